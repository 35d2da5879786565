//! Validation of model-written Python mutants, the Python counterpart of
//! [`crate::rust::model_check::validate_rust`]. The answer is untrusted: it must parse (tree-sitter-python)
//! as one function with the original's name, parameters and decorators, change the function,
//! and pass the allowlist ([`crate::allowlist::check_python`]: only the names the original uses,
//! its own locals, and pure builtins; no import, `global`, nested `def` or `class`, no dunder
//! name the original does not use). Anything else is refused unrun with the reason.

use tree_sitter::{Node, Parser};

/// The parts of a function definition that a mutant must keep.
struct Def {
    name: String,
    parameters: String,
    return_type: Option<String>,
    decorators: Vec<String>,
    text: String,
}

fn parse(source: &str) -> Result<tree_sitter::Tree, String> {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_python::LANGUAGE.into())
        .map_err(|e| format!("the Python grammar did not load: {e}"))?;
    parser.parse(source, None).ok_or_else(|| "it does not parse".to_string())
}

/// Removes the indentation common to every non-blank line.
fn dedent(text: &str) -> String {
    let indent = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    text.lines().map(|l| l.get(indent..).unwrap_or("").trim_end()).collect::<Vec<_>>().join("\n")
}

/// Parses `source` as exactly one (possibly decorated) function definition.
fn one_def(source: &str) -> Result<Def, String> {
    let text = dedent(source);
    let tree = parse(&text)?;
    let root = tree.root_node();
    if root.has_error() {
        return Err("it does not parse as Python".into());
    }
    let mut cursor = root.walk();
    let mut items = root.named_children(&mut cursor).filter(|n| n.kind() != "comment");
    let (Some(item), None) = (items.next(), items.next()) else {
        return Err("it is not exactly one function definition".into());
    };
    let (def, decorators) = match item.kind() {
        "function_definition" => (item, Vec::new()),
        "decorated_definition" => {
            let def = item
                .child_by_field_name("definition")
                .filter(|d| d.kind() == "function_definition")
                .ok_or("it is not a function definition")?;
            let decorators = item
                .named_children(&mut item.walk())
                .filter(|d| d.kind() == "decorator")
                .map(|d| node_text(d, &text))
                .collect();
            (def, decorators)
        }
        _ => return Err("it is not a function definition".into()),
    };
    let field = |name: &str| def.child_by_field_name(name).map(|n| node_text(n, &text));
    Ok(Def {
        name: field("name").ok_or("the function has no name")?,
        parameters: field("parameters").map(|p| squash(&p)).unwrap_or_default(),
        return_type: field("return_type").map(|t| squash(&t)),
        decorators,
        text: text.clone(),
    })
}

fn node_text(n: Node, text: &str) -> String {
    text[n.byte_range()].to_string()
}

/// Whitespace-insensitive form, for comparing signatures.
fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Validates a model's mutated Python function against the original definition `original`
/// (as written in its file, possibly indented); returns the new definition, dedented to column
/// 0, for the front end to indent in place of the original.
pub fn validate_python(original: &str, candidate: &str) -> Result<String, String> {
    let candidate = candidate.trim_matches('\n');
    let candidate = match candidate.trim().strip_prefix("```") {
        Some(rest) => {
            let code = rest.split_once('\n').map_or("", |(_, code)| code);
            code.trim_end().strip_suffix("```").unwrap_or(code).to_string()
        }
        None => candidate.to_string(),
    };
    crate::allowlist::check_line_ends(&candidate)?;
    let o = one_def(original).map_err(|e| format!("the original: {e}"))?;
    let c = one_def(&candidate)?;
    if c.name != o.name {
        return Err(format!("it renames the function `{}` to `{}`", o.name, c.name));
    }
    if c.parameters != o.parameters || c.return_type != o.return_type {
        return Err("it changes the signature".into());
    }
    if c.decorators != o.decorators {
        return Err("it changes the decorators".into());
    }
    if squash(&c.text) == squash(&o.text) {
        return Err("it does not change the function".into());
    }
    crate::allowlist::check_python(original, &c.text)?;
    Ok(c.text)
}

/// Vets a test the model's Tester wrote for the function `original`: one `def` without
/// parameters that passes the allowlist of tests ([`crate::allowlist::check_python_test`]:
/// only what the original and `examples`, the project's tests and abex's own, use; an import
/// only as one of them writes it). Returns it dedented and named `name`; otherwise why it is
/// refused unrun.
pub fn vet_test(
    original: &str,
    written: &str,
    name: &str,
    examples: &[String],
) -> Result<String, String> {
    let code = crate::llm::tester::code_of(written);
    crate::allowlist::check_line_ends(code)?;
    let d = one_def(code)?;
    if squash(&d.parameters) != "()" {
        return Err("a test function takes no parameters".into());
    }
    let examples: Vec<&str> = examples.iter().map(String::as_str).collect();
    crate::allowlist::check_python_test(original, &examples, &d.text)?;
    let renamed = d.text.replacen(&format!("def {}", d.name), &format!("def {name}"), 1);
    match one_def(&renamed) {
        Ok(again) if again.name == name => Ok(format!("{}\n", renamed.trim_end())),
        _ => Err(format!("it could not be renamed to `{name}`")),
    }
}

#[cfg(test)]
mod tests {
    use super::validate_python;

    const ORIGINAL: &str = "    def bucket(self, n: int) -> str:\n        \"\"\"Size class.\"\"\"\n        if n < 10:\n            return \"small\"\n        return \"large\"\n";

    fn mutant(body: &str) -> String {
        format!("def bucket(self, n: int) -> str:\n{body}")
    }

    #[test]
    fn a_changed_body_is_accepted_and_dedented() {
        let m = mutant("    if n <= 10:\n        return \"small\"\n    return \"large\"\n");
        let fenced = format!("```python\n{m}```");
        let ok = validate_python(ORIGINAL, &fenced).unwrap();
        assert!(ok.starts_with("def bucket(self, n: int) -> str:\n    if n <= 10:"), "{ok}");
        // Indented like the original, it is accepted too.
        let indented: String = m.lines().map(|l| format!("    {l}\n")).collect();
        assert!(validate_python(ORIGINAL, &indented).is_ok());
    }

    #[test]
    fn forbidden_answers_are_refused_with_the_reason() {
        let cases = [
            ("    import os\n    return 'x'\n", "an import"),
            ("    from subprocess import run\n    return 'x'\n", "an import"),
            ("    open('/tmp/x', 'w').write('1')\n    return 'x'\n", "`open`"),
            ("    return eval('1')\n", "`eval`"),
            ("    return str(__import__('os').system('id'))\n", "`__import__`"),
            ("    global COUNT\n    return 'x'\n", "`global`"),
            ("    return str(().__class__.__bases__)\n", "special name `__class__`"),
            ("    return getattr(n, 'real')\n", "`getattr`"),
            ("    return socket.gethostname()\n", "`socket`"),
            ("    class X: pass\n    return 'x'\n", "defines a class"),
        ];
        for (body, why) in cases {
            let err = validate_python(ORIGINAL, &mutant(body)).unwrap_err();
            assert!(err.contains(why), "{body}: {err}");
        }
    }

    #[test]
    fn answers_that_leave_the_function_are_refused() {
        let renamed = "def other(self, n: int) -> str:\n    return 'x'\n";
        assert!(validate_python(ORIGINAL, renamed).unwrap_err().contains("renames"));
        let signature = "def bucket(self, n: float) -> str:\n    return 'x'\n";
        assert!(validate_python(ORIGINAL, signature).unwrap_err().contains("signature"));
        let two = format!("{}\nX = 1\n", mutant("    return 'x'\n"));
        assert!(validate_python(ORIGINAL, &two).unwrap_err().contains("exactly one"));
        let same = mutant("    \"\"\"Size class.\"\"\"\n    if n < 10:\n        return \"small\"\n    return \"large\"\n");
        assert!(validate_python(ORIGINAL, &same).unwrap_err().contains("does not change"));
        let broken = mutant("    if n <\n");
        assert!(validate_python(ORIGINAL, &broken).unwrap_err().contains("parse"));
        let decorated = format!("@cache\n{}", mutant("    return 'x'\n"));
        assert!(validate_python(ORIGINAL, &decorated).unwrap_err().contains("decorators"));
    }

    #[test]
    fn a_model_test_is_renamed_dedented_and_vetted() {
        let example =
            vec!["def test_b():\n    from shop import bucket\n    assert bucket(1)\n".to_string()];
        let t = super::vet_test(ORIGINAL, "```python\n    def test_x():\n        from shop import bucket\n        assert bucket(None, 10) == 'large'\n```", "test_bucket_is_large_at_10", &example).unwrap();
        assert_eq!(t, "def test_bucket_is_large_at_10():\n    from shop import bucket\n    assert bucket(None, 10) == 'large'\n");
        for (bad, said) in [
            ("def test_x():\n    import os\n    os.system('touch /tmp/x')\n", "import"),
            ("def test_x(tmp_path):\n    pass\n", "parameters"),
            ("def test_x(:\n", "parse"),
            ("def test_x():\n    x = 1  # note\r    import os\n", "carriage return"),
        ] {
            let e = super::vet_test(ORIGINAL, bad, "test_n", &example).unwrap_err();
            assert!(e.contains(said), "{bad}: {e}");
        }
    }
}
