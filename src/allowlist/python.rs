//! The allowlist for model-written Python (tree-sitter-python): the identifiers the original
//! function uses are collected, and every name and attribute the written code uses must be
//! among them, among the names it binds itself (function-level assignments, and the parameters
//! and targets of a lambda or comprehension inside it), or on the pure lists ([`super::pure`]).
//! Imports, `global`/`nonlocal`, nested `def`/`class` and any dunder name the original does not
//! use are refused outright; so are non-ASCII identifiers the original does not use (Python folds
//! look-alikes such as `ｏｓ` to `os`).

use std::collections::HashSet;

use tree_sitter::{Node, Parser};

use super::pure;

/// Node kinds refused wherever they appear in the written code, and why.
const REFUSED_KINDS: &[(&str, &str)] = &[
    ("import_statement", "it adds an import"),
    ("import_from_statement", "it adds an import"),
    ("future_import_statement", "it adds an import"),
    ("global_statement", "it adds a `global` statement"),
    ("nonlocal_statement", "it adds a `nonlocal` statement"),
    ("class_definition", "it defines a class inside the function"),
    ("function_definition", "it defines a function inside the function"),
    ("decorated_definition", "it defines a function inside the function"),
    ("exec_statement", "it adds an `exec` statement"),
    ("print_statement", "it adds a `print` statement"),
];

/// Node kinds that open a scope of their own (their parameters or targets are local to them).
const SCOPES: &[&str] = &[
    "lambda",
    "list_comprehension",
    "set_comprehension",
    "dictionary_comprehension",
    "generator_expression",
];

fn parse(source: &str) -> Result<tree_sitter::Tree, String> {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_python::LANGUAGE.into())
        .map_err(|e| format!("the Python grammar did not load: {e}"))?;
    let tree = parser.parse(source, None).ok_or_else(|| "it does not parse".to_string())?;
    if tree.root_node().has_error() {
        return Err("it does not parse as Python".into());
    }
    Ok(tree)
}

fn text<'a>(n: Node, src: &'a str) -> &'a str {
    &src[n.byte_range()]
}

fn children(n: Node) -> Vec<Node> {
    let mut c = n.walk();
    n.children(&mut c).collect()
}

/// Every identifier under `n`.
fn identifiers(n: Node, src: &str, out: &mut HashSet<String>) {
    if n.kind() == "identifier" {
        out.insert(text(n, src).to_string());
    }
    for c in children(n) {
        identifiers(c, src, out);
    }
}

/// The identifiers a target (of an assignment, `for`, `with … as`, `except … as`) binds: the
/// names themselves, and those inside tuple and list targets, not the objects of attribute or
/// subscript targets.
fn target_names(n: Node, src: &str, out: &mut Vec<String>) {
    match n.kind() {
        "identifier" => out.push(text(n, src).to_string()),
        "pattern_list"
        | "tuple_pattern"
        | "list_pattern"
        | "tuple"
        | "list"
        | "list_splat_pattern"
        | "parenthesized_expression"
        | "as_pattern_target" => {
            for c in children(n) {
                target_names(c, src, out);
            }
        }
        _ => {}
    }
}

/// The names bound in the scope `n` opens (a function body, a lambda, a comprehension),
/// without descending into nested scopes, except for `:=`, which binds in the enclosing
/// function even inside a comprehension.
fn scope_binders(n: Node, src: &str, out: &mut Vec<String>) {
    let field = |name: &str| n.child_by_field_name(name);
    match n.kind() {
        "assignment" | "augmented_assignment" | "for_statement" | "for_in_clause" => {
            if let Some(l) = field("left") {
                target_names(l, src, out);
            }
        }
        "named_expression" => {
            if let Some(name) = field("name") {
                target_names(name, src, out);
            }
        }
        "as_pattern" => {
            if let Some(alias) = field("alias") {
                target_names(alias, src, out);
            }
        }
        "lambda_parameters" | "parameters" => {
            for c in children(n) {
                match c.kind() {
                    "identifier" => out.push(text(c, src).to_string()),
                    _ => {
                        if let Some(name) = c.child_by_field_name("name") {
                            target_names(name, src, out);
                        } else if let Some(first) = c.named_child(0) {
                            target_names(first, src, out);
                        }
                    }
                }
            }
        }
        "case_pattern" | "capture_pattern" => {
            let mut all = HashSet::new();
            identifiers(n, src, &mut all);
            out.extend(all);
        }
        _ => {}
    }
    for c in children(n) {
        if SCOPES.contains(&c.kind()) {
            // A nested scope binds for itself, but its `:=` binds here.
            walrus(c, src, out);
            continue;
        }
        scope_binders(c, src, out);
    }
}

fn walrus(n: Node, src: &str, out: &mut Vec<String>) {
    if n.kind() == "named_expression" {
        if let Some(name) = n.child_by_field_name("name") {
            target_names(name, src, out);
        }
    }
    for c in children(n) {
        walrus(c, src, out);
    }
}

struct Checker<'s> {
    src: &'s str,
    original: HashSet<String>,
    scopes: Vec<HashSet<String>>,
    /// Import statements allowed as written (whitespace normalised): a test may import what
    /// the project's tests import.
    imports: HashSet<String>,
}

/// An import statement's text with its whitespace normalised.
fn import_text(n: Node, src: &str) -> String {
    text(n, src).split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The import statements under `n`, normalised.
fn import_texts(n: Node, src: &str, out: &mut HashSet<String>) {
    if matches!(n.kind(), "import_statement" | "import_from_statement") {
        out.insert(import_text(n, src));
    }
    for c in children(n) {
        import_texts(c, src, out);
    }
}

impl Checker<'_> {
    fn known(&self, name: &str) -> bool {
        self.original.contains(name)
            || self.scopes.iter().any(|s| s.contains(name))
            || pure::PYTHON_NAMES.contains(&name)
    }

    fn check(&mut self, n: Node) -> Result<(), String> {
        if self.imports.contains(&import_text(n, self.src))
            && matches!(n.kind(), "import_statement" | "import_from_statement")
        {
            return Ok(());
        }
        if let Some((_, why)) = REFUSED_KINDS.iter().find(|(k, _)| *k == n.kind()) {
            return Err(why.to_string());
        }
        if SCOPES.contains(&n.kind()) {
            let mut b = Vec::new();
            scope_binders(n, self.src, &mut b);
            self.scopes.push(b.into_iter().collect());
            let r = children(n).into_iter().try_for_each(|c| self.check(c));
            self.scopes.pop();
            return r;
        }
        if n.kind() == "identifier" {
            return self.check_identifier(n);
        }
        children(n).into_iter().try_for_each(|c| self.check(c))
    }

    fn check_identifier(&self, n: Node) -> Result<(), String> {
        let name = text(n, self.src);
        if self.original.contains(name) {
            return Ok(());
        }
        if !name.is_ascii() {
            return Err(format!(
                "it uses the non-ASCII name `{name}`, which the original does not"
            ));
        }
        if name.starts_with("__") && name.ends_with("__") {
            return Err(format!("it uses the special name `{name}`, which the original does not"));
        }
        let parent = n.parent();
        let is = |kind: &str, field: &str| {
            parent.is_some_and(|p| p.kind() == kind && p.child_by_field_name(field) == Some(n))
        };
        if is("keyword_argument", "name") {
            return Ok(());
        }
        if is("attribute", "attribute") {
            return if pure::PYTHON_ATTRIBUTES.contains(&name) {
                Ok(())
            } else {
                Err(format!(
                    "it uses the attribute `.{name}`, which the original function does not use and is not on the pure list"
                ))
            };
        }
        if self.known(name) {
            Ok(())
        } else {
            Err(format!(
                "it uses `{name}`, which the original function does not use and is not on the pure builtins list"
            ))
        }
    }
}

/// The one function definition of `source` (decorators included), dedented.
fn the_def(source: &str) -> Result<(String, tree_sitter::Tree), String> {
    let indent = source
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let text: String = source
        .lines()
        .map(|l| l.get(indent..).unwrap_or("").trim_end())
        .collect::<Vec<_>>()
        .join("\n");
    let tree = parse(&text)?;
    Ok((text, tree))
}

/// The function definition node at the top of `tree`.
fn def_node(tree: &tree_sitter::Tree) -> Result<Node<'_>, String> {
    let root = tree.root_node();
    let item = children(root)
        .into_iter()
        .find(|n| n.is_named() && n.kind() != "comment")
        .ok_or("it holds no function")?;
    match item.kind() {
        "function_definition" => Ok(item),
        "decorated_definition" => item
            .child_by_field_name("definition")
            .filter(|d| d.kind() == "function_definition")
            .ok_or_else(|| "it is not a function definition".to_string()),
        _ => Err("it is not a function definition".into()),
    }
}

/// Checks model-written Python against the allowlist of `original` (the original function
/// definition's source, possibly indented): `written` (a function definition: a mutant of the
/// original, or a test) may use only the identifiers the original uses, the names it binds
/// itself, and the pure builtins and attributes of [`super::pure`]. Returns why it is refused.
pub fn check_python(original: &str, written: &str) -> Result<(), String> {
    let (osrc, otree) = the_def(original).map_err(|e| format!("the original: {e}"))?;
    let mut names = HashSet::new();
    identifiers(otree.root_node(), &osrc, &mut names);
    check_against(names, HashSet::new(), written)
}

/// Checks a model-written pytest test against what `original` (the function under test) and
/// `examples` (the project's tests that name it, abex's own test of the same witness) use, by
/// the same rules as [`check_python`], except that an import statement one of them makes (and
/// `import pytest`) may be made again, word for word: a test may import the function the way
/// the project's tests do, and nothing else. An example that does not parse is left out.
pub fn check_python_test(original: &str, examples: &[&str], written: &str) -> Result<(), String> {
    let (osrc, otree) = the_def(original).map_err(|e| format!("the original: {e}"))?;
    let mut names: HashSet<String> =
        pure::PYTEST_ATTRIBUTES.iter().map(|a| a.to_string()).collect();
    names.insert("pytest".into());
    let mut imports = HashSet::from(["import pytest".to_string()]);
    identifiers(otree.root_node(), &osrc, &mut names);
    for e in examples {
        if let Ok((src, tree)) = the_def(e) {
            identifiers(tree.root_node(), &src, &mut names);
            import_texts(tree.root_node(), &src, &mut imports);
        }
    }
    check_against(names, imports, written)
}

/// Checks the function definition `written` against the identifiers `names` and the import
/// statements `imports` it may use.
fn check_against(
    names: HashSet<String>,
    imports: HashSet<String>,
    written: &str,
) -> Result<(), String> {
    let (src, tree) = the_def(written)?;
    let def = def_node(&tree)?;
    let mut binders = Vec::new();
    if let Some(p) = def.child_by_field_name("parameters") {
        scope_binders(p, &src, &mut binders);
    }
    let mut c = Checker { src: &src, original: names, scopes: Vec::new(), imports };
    // Decorators, defaults and annotations are read where the function is defined.
    let root = tree.root_node();
    for n in children(root).into_iter().filter(|n| n.kind() == "decorated_definition") {
        for d in children(n).into_iter().filter(|d| d.kind() == "decorator") {
            c.check(d)?;
        }
    }
    if let Some(p) = def.child_by_field_name("parameters") {
        for param in children(p) {
            for (i, part) in children(param).into_iter().enumerate() {
                // The name itself is a binder; defaults and annotations are lookups.
                if i > 0 || part.kind() != "identifier" {
                    c.check(part)?;
                }
            }
        }
    }
    if let Some(r) = def.child_by_field_name("return_type") {
        c.check(r)?;
    }
    let body = def.child_by_field_name("body").ok_or("the function has no body")?;
    scope_binders(body, &src, &mut binders);
    c.scopes.push(binders.into_iter().collect());
    c.check(body)
}

#[cfg(test)]
mod tests {
    use super::{check_python, check_python_test};

    const ORIGINAL: &str = "def bulk_discount(quantity: int) -> float:\n    \"\"\"15% from 100 items.\"\"\"\n    if quantity < 0:\n        raise ValueError(\"quantity must not be negative\")\n    if quantity >= 100:\n        return 0.15\n    return 0.0\n";

    fn def(body: &str) -> String {
        format!("def bulk_discount(quantity: int) -> float:\n{body}")
    }

    #[test]
    fn what_the_original_uses_locals_and_pure_builtins_pass() {
        for b in [
            "    if quantity <= 0:\n        raise ValueError('no')\n    return 0.15\n",
            "    rate = 0.15 if quantity > 100 else 0.0\n    return round(max(rate, 0.0), 2)\n",
            "    steps = [q for q in range(quantity) if q % 2]\n    return float(len(steps))\n",
            "    f = lambda k: k * 2\n    return f(quantity) / 1000\n",
            "    text = str(quantity).strip()\n    return 0.15 if text.startswith('1') else 0.0\n",
        ] {
            assert_eq!(check_python(ORIGINAL, &def(b)), Ok(()), "{b}");
        }
    }

    #[test]
    fn a_lambda_parameter_does_not_open_a_name_outside_the_lambda() {
        let b = "    g = lambda run: run\n    run(['touch', 'x'])\n    return 0.0\n";
        let e = check_python(ORIGINAL, &def(b)).unwrap_err();
        assert!(e.contains("`run`"), "{e}");
    }

    #[test]
    fn a_test_may_import_what_the_projects_tests_import_and_nothing_else() {
        let example = "def test_bulk():\n    from shop.pricing import bulk_discount\n    assert bulk_discount(5) == 0.0\n";
        let good = "def test_x():\n    from shop.pricing import bulk_discount\n    import pytest\n    with pytest.raises(ValueError):\n        bulk_discount(-1)\n    assert bulk_discount(100) == 0.15\n";
        assert_eq!(check_python_test(ORIGINAL, &[example], good), Ok(()));
        for (bad, said) in [
            ("def test_x():\n    import os\n    os.system('touch x')\n", "import"),
            ("def test_x():\n    from shop.pricing import bulk_discount, os\n    os.system('x')\n", "import"),
            ("def test_x():\n    __import__('os').system('x')\n", "__import__"),
            ("def test_x():\n    open('x', 'w').write('y')\n", "open"),
        ] {
            let e = check_python_test(ORIGINAL, &[example], bad).unwrap_err();
            assert!(e.contains(said), "{bad}: {e}");
        }
    }
}
