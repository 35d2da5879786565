//! Validation of model-written Rust mutants: the answer is untrusted. It must parse as one
//! function with the original's signature, change its body, and pass the allowlist
//! ([`crate::allowlist::check_rust`]: only what the original uses, plus pure std items);
//! anything else is refused unrun with the reason (fed back to the model).

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
    crate::allowlist::check_line_ends(candidate)?;
    let (osig, oblock, _) = parse_fn(original).map_err(|e| format!("the original: {e}"))?;
    let (sig, block, _) = parse_fn(candidate)?;
    if sig.to_token_stream().to_string() != osig.to_token_stream().to_string() {
        return Err("it changes the signature".into());
    }
    if block.to_token_stream().to_string() == oblock.to_token_stream().to_string() {
        return Err("it does not change the body".into());
    }
    crate::allowlist::check_rust(original, candidate)?;
    // The body's text, from its braces' positions in the candidate.
    let lines = crate::mutate::Lines::new(candidate);
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

/// Vets a test the model's Tester wrote for the function `original`: one function item, without
/// parameters, that passes the allowlist of tests ([`crate::allowlist::check_rust_test`]: only
/// what the original and `examples`, the project's tests and abex's own, use). Returns it
/// named `name`, with `#[test]` (added when missing); otherwise why it is refused unrun.
pub fn vet_test(
    original: &str,
    written: &str,
    name: &str,
    examples: &[String],
) -> Result<String, String> {
    let text = crate::llm::tester::code_of(written).trim();
    crate::allowlist::check_line_ends(text)?;
    let f = syn::parse_str::<syn::ItemFn>(text)
        .map_err(|e| format!("it does not parse as one test function: {e}"))?;
    if !f.sig.inputs.is_empty() {
        return Err("a test function takes no parameters".into());
    }
    let examples: Vec<&str> = examples.iter().map(String::as_str).collect();
    crate::allowlist::check_rust_test(original, &examples, text)?;
    let old = f.sig.ident.to_string();
    let renamed = text.replacen(&format!("fn {old}"), &format!("fn {name}"), 1);
    let again = syn::parse_str::<syn::ItemFn>(&renamed)
        .map_err(|e| format!("it does not parse once renamed: {e}"))?;
    if again.sig.ident != name {
        return Err(format!("it could not be renamed to `{name}`"));
    }
    let is_test = f.attrs.iter().any(|a| a.path().is_ident("test"));
    Ok(if is_test { renamed } else { format!("#[test]\n{renamed}") })
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
            ("pub fn clamp(x: i32) -> i32 { use std::cmp::min; min(x, 9) }", "an item"),
            ("pub fn clamp(x: i32) -> i32 { unsafe { x } }", "unsafe"),
            ("pub fn clamp(x: i32) -> i32 { std::process::exit(1) }", "std::process::exit"),
            (
                "pub fn clamp(x: i32) -> i32 { let _ = std::fs::remove_dir_all(\"/\"); x }",
                "std::fs::remove_dir_all",
            ),
            ("pub fn clamp(x: i32) -> i32 { let _ = Command::new(\"rm\"); x }", "Command::new"),
            ("pub fn clamp(x: i32) -> i32 { let _ = remove_dir_all(\"k\"); x }", "remove_dir_all"),
            (
                "pub fn clamp(x: i32) -> i32 { let _ = std::net::TcpStream::connect(\"h:1\"); x }",
                "std::net",
            ),
            ("pub fn clamp(x: i32) -> i32 { println!(\"{:?}\", 1); x }", "println!"),
            (
                "pub fn clamp(x: i32) -> i32 { include_str!(\"/etc/passwd\").len() as i32 }",
                "include_str!",
            ),
            ("pub fn clamp(x: i32) -> i32 { x", "parse"),
            ("fn a() {} fn b() {}", "parse"),
        ];
        for (m, why) in cases {
            let e = validate_rust(ORIGINAL, m).unwrap_err();
            assert!(e.contains(why), "{m}: {e}");
        }
    }

    #[test]
    fn a_model_test_is_renamed_marked_and_vetted() {
        let example = vec!["#[test]\nfn old() { assert_eq!(clamp(3), 3); }".to_string()];
        let t = vet_test(
            ORIGINAL,
            "```rust\nfn whatever() { assert_eq!(clamp(11), 10); }\n```",
            "clamp_is_10_at_11",
            &example,
        )
        .unwrap();
        assert_eq!(t, "#[test]\nfn clamp_is_10_at_11() { assert_eq!(clamp(11), 10); }");
        for (bad, said) in [
            (
                "#[test] fn t() { let _ = std::process::Command::new(\"touch\").status(); }",
                "std::process::Command",
            ),
            ("#[test] fn t(x: i32) { assert_eq!(clamp(x), x); }", "parameters"),
            ("#[test] fn t() { assert_eq!(clamp(1), 1) ", "parse"),
        ] {
            let e = vet_test(ORIGINAL, bad, "n", &example).unwrap_err();
            assert!(e.contains(said), "{bad}: {e}");
        }
    }
}
