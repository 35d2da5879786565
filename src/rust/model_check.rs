//! Validation of model-written Rust mutants: the answer is untrusted. It must parse as one
//! function with the original's signature, change its body, and add no imports, no `unsafe`,
//! and no process, file, network or environment access; anything else is refused unrun with the
//! reason (fed back to the model).

use syn::visit::Visit;

/// Paths whose use is refused: process, file, network, environment and raw-memory access.
const FORBIDDEN_SEGMENTS: &[&str] = &[
    "process",
    "fs",
    "net",
    "env",
    "Command",
    "File",
    "OpenOptions",
    "TcpStream",
    "TcpListener",
    "UdpSocket",
    "UnixStream",
    "Stdio",
    "exit",
    "abort",
    "transmute",
    "ptr",
    "libc",
    "unsafe_code",
];

/// Macros whose use is refused (they read files or the environment at build time).
const FORBIDDEN_MACROS: &[&str] =
    &["include", "include_str", "include_bytes", "env", "option_env", "asm", "global_asm"];

struct Checker {
    refusal: Option<String>,
}

impl Checker {
    fn refuse(&mut self, why: String) {
        self.refusal.get_or_insert(why);
    }
}

impl<'ast> Visit<'ast> for Checker {
    fn visit_item(&mut self, i: &'ast syn::Item) {
        match i {
            syn::Item::Use(_) | syn::Item::ExternCrate(_) => {
                self.refuse("it adds an import".into())
            }
            syn::Item::ForeignMod(_) => self.refuse("it declares foreign functions".into()),
            syn::Item::Mod(_) => self.refuse("it declares a module".into()),
            _ => {}
        }
        syn::visit::visit_item(self, i);
    }
    fn visit_expr_unsafe(&mut self, e: &'ast syn::ExprUnsafe) {
        self.refuse("it uses `unsafe`".into());
        syn::visit::visit_expr_unsafe(self, e);
    }
    fn visit_signature(&mut self, s: &'ast syn::Signature) {
        if s.unsafety.is_some() {
            self.refuse("it uses `unsafe`".into());
        }
        syn::visit::visit_signature(self, s);
    }
    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        if i.unsafety.is_some() {
            self.refuse("it uses `unsafe`".into());
        }
        syn::visit::visit_item_impl(self, i);
    }
    fn visit_path(&mut self, p: &'ast syn::Path) {
        if let Some(s) =
            p.segments.iter().find(|s| FORBIDDEN_SEGMENTS.contains(&s.ident.to_string().as_str()))
        {
            self.refuse(format!(
                "it reaches `{}` (process, file, network or environment access)",
                s.ident
            ));
        }
        syn::visit::visit_path(self, p);
    }
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        if let Some(last) = m.path.segments.last() {
            if FORBIDDEN_MACROS.contains(&last.ident.to_string().as_str()) {
                self.refuse(format!("it uses `{}!`", last.ident));
            }
        }
        // Macro arguments are not parsed by syn: look at their identifiers as text.
        let tokens = m.tokens.to_string();
        if let Some(w) = tokens
            .split(|c: char| !c.is_alphanumeric() && c != '_')
            .find(|w| FORBIDDEN_SEGMENTS.contains(w) || *w == "unsafe")
        {
            self.refuse(format!("it reaches `{w}` inside a macro"));
        }
        syn::visit::visit_macro(self, m);
    }
}

/// Parses a function item, free or associated.
fn parse_fn(text: &str) -> Result<(syn::Signature, syn::Block, Vec<syn::Attribute>), String> {
    if let Ok(f) = syn::parse_str::<syn::ItemFn>(text) {
        return Ok((f.sig, *f.block, f.attrs));
    }
    syn::parse_str::<syn::ImplItemFn>(text)
        .map(|f| (f.sig, f.block, f.attrs))
        .map_err(|e| format!("it does not parse as one function: {e}"))
}

/// Validates a model's mutated Rust function against the original item `original`; returns the
/// new body block's text.
pub fn validate_rust(original: &str, candidate: &str) -> Result<String, String> {
    use quote::ToTokens;
    // A fenced answer (```rust … ```) is the code inside the fence.
    let candidate = candidate.trim();
    let candidate = match candidate.strip_prefix("```") {
        Some(rest) => {
            let rest = rest.split_once('\n').map_or("", |(_, code)| code);
            rest.trim_end().strip_suffix("```").unwrap_or(rest).trim()
        }
        None => candidate,
    };
    let (osig, oblock, _) = parse_fn(original).map_err(|e| format!("the original: {e}"))?;
    let (sig, block, _) = parse_fn(candidate)?;
    if sig.to_token_stream().to_string() != osig.to_token_stream().to_string() {
        return Err("it changes the signature".into());
    }
    if block.to_token_stream().to_string() == oblock.to_token_stream().to_string() {
        return Err("it does not change the body".into());
    }
    let mut c = Checker { refusal: None };
    c.visit_block(&block);
    if let Some(why) = c.refusal {
        return Err(why);
    }
    // The body's text, from its braces' positions in the candidate.
    let lines = super::source::Lines::new(candidate);
    let span = block.brace_token.span;
    let (open, close) = (
        lines.offset(candidate, span.open().start()),
        lines.offset(candidate, span.close().start()),
    );
    match candidate.get(open..=close) {
        Some(body) if body.starts_with('{') && body.ends_with('}') => Ok(body.to_string()),
        _ => Ok(block.to_token_stream().to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ORIGINAL: &str =
        "/// Clamp.\npub fn clamp(x: i32) -> i32 {\n    if x > 10 { 10 } else { x }\n}";

    #[test]
    fn a_body_change_is_accepted_and_its_text_kept() {
        let m = "pub fn clamp(x: i32) -> i32 {\n    if x >= 10 { 10 } else { x }\n}";
        assert_eq!(validate_rust(ORIGINAL, m).unwrap(), "{\n    if x >= 10 { 10 } else { x }\n}");
        let attrs = "/// Clamp.\n#[inline]\npub fn clamp(x: i32) -> i32 { x.min(9) }";
        assert_eq!(validate_rust(ORIGINAL, attrs).unwrap(), "{ x.min(9) }");
        let fenced = "```rust\npub fn clamp(x: i32) -> i32 { x.min(8) }\n```\n";
        assert_eq!(validate_rust(ORIGINAL, fenced).unwrap(), "{ x.min(8) }");
    }

    #[test]
    fn forbidden_mutants_are_refused_with_a_reason() {
        let cases = [
            ("pub fn clamp(x: i64) -> i32 { 0 }", "signature"),
            (
                "pub fn clamp(x: i32) -> i32 {\n    if x > 10 { 10 } else { x }\n}",
                "does not change",
            ),
            ("pub fn clamp(x: i32) -> i32 { use std::cmp::min; min(x, 9) }", "import"),
            ("pub fn clamp(x: i32) -> i32 { unsafe { x } }", "unsafe"),
            ("pub fn clamp(x: i32) -> i32 { std::process::exit(1) }", "process"),
            ("pub fn clamp(x: i32) -> i32 { let _ = std::fs::remove_dir_all(\"/\"); x }", "`fs`"),
            ("pub fn clamp(x: i32) -> i32 { let _ = Command::new(\"rm\"); x }", "Command"),
            ("pub fn clamp(x: i32) -> i32 { let _ = File::open(\"k\"); x }", "File"),
            (
                "pub fn clamp(x: i32) -> i32 { let _ = std::net::TcpStream::connect(\"h:1\"); x }",
                "net",
            ),
            ("pub fn clamp(x: i32) -> i32 { println!(\"{:?}\", std::env::var(\"K\")); x }", "env"),
            (
                "pub fn clamp(x: i32) -> i32 { include_str!(\"/etc/passwd\").len() as i32 }",
                "include_str",
            ),
            ("pub fn clamp(x: i32) -> i32 { x", "parse"),
            ("fn a() {} fn b() {}", "parse"),
        ];
        for (m, why) in cases {
            let e = validate_rust(ORIGINAL, m).unwrap_err();
            assert!(e.contains(why), "{m}: {e}");
        }
    }
}
