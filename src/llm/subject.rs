//! The function under test as the agents see it: language-neutral text (signature, doc comment,
//! source, the tests that reach it) plus its parameter types. Each front end fills one; the
//! agents never look at a syntax tree.

use crate::value::Ty;

/// One function, as text for the model.
#[derive(Clone, Debug, PartialEq)]
pub struct Subject {
    /// `rust` or `python`.
    pub language: String,
    /// Qualified name.
    pub name: String,
    /// The signature as written.
    pub signature: String,
    /// The doc comment or docstring.
    pub doc: String,
    /// The whole function's source.
    pub source: String,
    /// Its parameter types.
    pub params: Vec<Ty>,
    /// Source of the tests that reach it (each a whole test function).
    pub tests: Vec<String>,
}

impl Subject {
    /// The parameter types, compactly: `(i64, str)`.
    pub fn params_text(&self) -> String {
        let p: Vec<String> = self.params.iter().map(|t| t.to_string()).collect();
        format!("({})", p.join(", "))
    }

    /// What a strategy of `kind` may see of the function (paper 000): a generic one only the
    /// parameter types (given to every prompt apart, so nothing here), a context-aware one the
    /// signature and docstring, and the source too with `white_box`.
    pub fn for_strategy(&self, kind: super::strategy::Kind, white_box: bool) -> String {
        match kind {
            super::strategy::Kind::Generic => String::new(),
            super::strategy::Kind::ContextAware => self.render(white_box),
        }
    }

    /// The signature, doc and (with `source`) the source, quoted as data.
    pub fn render(&self, source: bool) -> String {
        let mut s = format!("Function (<data>{}</data>):\n", super::prompts::data(&self.signature));
        if !self.doc.trim().is_empty() {
            s.push_str(&format!(
                "Doc:\n<data>\n{}\n</data>\n",
                super::prompts::data(self.doc.trim())
            ));
        }
        if source {
            s.push_str(&format!(
                "Source:\n<data>\n{}\n</data>\n",
                super::prompts::data(self.source.trim())
            ));
        }
        s
    }

    /// SHA-256 of language, qualified name, normalised signature and doc: the key of the
    /// strategies learnt on this very function.
    pub fn function_fingerprint(&self) -> String {
        let sig: Vec<&str> = self.signature.split_whitespace().collect();
        crate::fingerprint::key(&[
            b"function",
            self.language.as_bytes(),
            self.name.as_bytes(),
            sig.join(" ").as_bytes(),
            self.doc.trim().as_bytes(),
        ])
    }

    /// SHA-256 of language and parameter types: the key of strategies for functions of the
    /// same shape.
    pub fn shape_fingerprint(&self) -> String {
        crate::fingerprint::key(&[
            b"shape",
            self.language.as_bytes(),
            self.params_text().as_bytes(),
        ])
    }
}

/// The test functions among `test_code` (whole `#[cfg(test)]` modules or test files) that name
/// `function`, at most `max` of them: the tests that can reach it, as far as text can tell.
pub fn reaching_tests(test_code: &[String], function: &str, max: usize) -> Vec<String> {
    let mut out = Vec::new();
    for code in test_code {
        let Ok(file) = syn::parse_file(code)
            .or_else(|_| syn::parse_str::<syn::File>(&format!("mod m {{ {code} }}")))
        else {
            continue;
        };
        let mut fns = Vec::new();
        collect_fns(&file.items, &mut fns);
        for f in fns {
            let text = quote::ToTokens::to_token_stream(&f).to_string();
            let is_test =
                f.attrs.iter().any(|a| a.path().segments.last().is_some_and(|s| s.ident == "test"));
            if is_test
                && text.split(|c: char| !c.is_alphanumeric() && c != '_').any(|w| w == function)
            {
                out.push(prettyish(&text));
                if out.len() >= max {
                    return out;
                }
            }
        }
    }
    out
}

fn collect_fns(items: &[syn::Item], out: &mut Vec<syn::ItemFn>) {
    for item in items {
        match item {
            syn::Item::Fn(f) => out.push(f.clone()),
            syn::Item::Mod(m) => {
                if let Some((_, items)) = &m.content {
                    collect_fns(items, out);
                }
            }
            _ => {}
        }
    }
}

/// Token text with the spaces tokens get around punctuation removed where they read oddly.
fn prettyish(t: &str) -> String {
    t.replace(" (", "(")
        .replace("( ", "(")
        .replace(" )", ")")
        .replace(" ,", ",")
        .replace(" ;", ";\n")
        .replace(" !", "!")
        .replace(" . ", ".")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tests_that_name_the_function_are_picked() {
        let code = "mod tests { use super::*; #[test] fn one() { assert_eq!(clamp(5), 5); } \
                    #[test] fn other() { assert!(unclamped(1)); } fn clamp_helper() { clamp(1); } }";
        let t = reaching_tests(&[code.to_string()], "clamp", 5);
        assert_eq!(t.len(), 1);
        assert!(t[0].contains("assert_eq!(clamp(5), 5)"), "{}", t[0]);
    }

    #[test]
    fn generic_strategies_see_types_only_and_context_aware_ones_no_source_unless_white_box() {
        use crate::llm::strategy::Kind;
        let s = Subject {
            language: "rust".into(),
            name: "f".into(),
            signature: "fn f(x: i64) -> bool".into(),
            doc: "Whether x is big.".into(),
            source: "fn f(x: i64) -> bool { x > 99 }".into(),
            params: vec![Ty::int(64, true)],
            tests: vec![],
        };
        assert_eq!(s.for_strategy(Kind::Generic, true), "");
        let black = s.for_strategy(Kind::ContextAware, false);
        assert!(black.contains("fn f(x: i64) -> bool") && black.contains("Whether x is big."));
        assert!(!black.contains("x > 99"), "{black}");
        assert!(s.for_strategy(Kind::ContextAware, true).contains("x > 99"));
    }

    #[test]
    fn fingerprints_separate_functions_but_not_shapes() {
        let s = Subject {
            language: "rust".into(),
            name: "a::f".into(),
            signature: "fn f(x: i64)".into(),
            doc: String::new(),
            source: String::new(),
            params: vec![Ty::int(64, true)],
            tests: vec![],
        };
        let g = Subject { name: "a::g".into(), signature: "fn  g(x: i64)".into(), ..s.clone() };
        assert_ne!(s.function_fingerprint(), g.function_fingerprint());
        assert_eq!(s.shape_fingerprint(), g.shape_fingerprint());
        let spaced = Subject { signature: "fn f( x: i64 )".into(), ..s.clone() };
        assert_ne!(s.function_fingerprint(), spaced.function_fingerprint());
    }
}
