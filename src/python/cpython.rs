//! One parse, the interpreter's: model-written Python is checked with tree-sitter
//! ([`super::model_check`] and the allowlist), but what runs it is the project's CPython, and the
//! two readers can disagree on the same text (a comment that tree-sitter ends only at `\n` and
//! CPython at a lone `\r`). So the accepted text is also parsed by the project's own interpreter
//! (`ast.parse`, in `python -I -S`: no site packages, `.pth` files or environment of the project
//! take part) and both readings must have the same structure: the same statements by kind and the
//! same identifiers, each as many times. A difference means one reader sees code the other does
//! not, and the text is refused unrun. `allowlist::check_line_ends` refuses the known disputed
//! characters first; this check stands behind it for the ones nobody listed.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

use tree_sitter::Node;

/// The statements (by kind) and identifiers of one reading, each with its count.
#[derive(Debug, Default, PartialEq, Eq)]
struct Structure {
    statements: BTreeMap<String, usize>,
    names: BTreeMap<String, usize>,
}

impl Structure {
    fn add_statement(&mut self, kind: &str) {
        *self.statements.entry(kind.to_string()).or_default() += 1;
    }

    fn add_name(&mut self, name: &str) {
        // `_` is a name to one reader and a wildcard pattern to the other (`case _:`).
        if !name.is_empty() && name != "_" {
            *self.names.entry(name.to_string()).or_default() += 1;
        }
    }
}

/// The script the interpreter runs: the text on stdin, one JSON line out, either
/// `{"error": …}` or the statements by kind and the identifiers, with the kinds named as
/// [`statement_kind`] names tree-sitter's.
const READ: &str = r#"
import ast, json, sys
KINDS = {"Expr": "expression", "Assign": "expression", "AugAssign": "expression",
    "AnnAssign": "expression", "Return": "return", "If": "if", "For": "for", "AsyncFor": "for",
    "While": "while", "Try": "try", "TryStar": "try", "With": "with", "AsyncWith": "with",
    "Match": "match", "Raise": "raise", "Assert": "assert", "Delete": "del", "Pass": "pass",
    "Break": "break", "Continue": "continue", "Global": "global", "Nonlocal": "nonlocal",
    "Import": "import", "ImportFrom": "import_from", "FunctionDef": "def",
    "AsyncFunctionDef": "def", "ClassDef": "class", "TypeAlias": "type"}
try:
    tree = ast.parse(sys.stdin.buffer.read().decode("utf-8"))
except (SyntaxError, ValueError) as e:
    print(json.dumps({"error": str(e)}))
    sys.exit(0)
statements, names = [], []
for n in ast.walk(tree):
    if isinstance(n, ast.stmt):
        statements.append(KINDS.get(type(n).__name__, type(n).__name__))
    if isinstance(n, ast.Name):
        names.append(n.id)
    elif isinstance(n, ast.Attribute):
        names.append(n.attr)
    elif isinstance(n, ast.arg):
        names.append(n.arg)
    elif isinstance(n, ast.keyword) and n.arg:
        names.append(n.arg)
    elif isinstance(n, ast.alias):
        names += [p for p in n.name.split(".") if p != "*"] + ([n.asname] if n.asname else [])
    elif isinstance(n, ast.ImportFrom) and n.module:
        names += n.module.split(".")
    elif isinstance(n, (ast.Global, ast.Nonlocal)):
        names += n.names
    if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        names.append(n.name)
    for field in ("name", "rest"):
        v = getattr(n, field, None)
        if isinstance(n, ast.pattern) and isinstance(v, str):
            names.append(v)
    if isinstance(n, ast.ExceptHandler) and n.name:
        names.append(n.name)
    if type(n).__name__ == "MatchClass":
        names += n.kwd_attrs
print(json.dumps({"statements": statements, "names": names}))
"#;

/// The kind of a tree-sitter statement node as [`READ`] names the interpreter's, or `None` for
/// a node that is no statement. An `elif` is an `if` to the interpreter.
fn statement_kind(kind: &str) -> Option<&str> {
    Some(match kind {
        "expression_statement" => "expression",
        "if_statement" | "elif_clause" => "if",
        "future_import_statement" | "import_from_statement" => "import_from",
        "delete_statement" => "del",
        "function_definition" => "def",
        "class_definition" => "class",
        "type_alias_statement" => "type",
        k => k.strip_suffix("_statement")?,
    })
}

/// tree-sitter's reading of `text`.
fn tree_sitter_reading(text: &str) -> Result<Structure, String> {
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(&tree_sitter_python::LANGUAGE.into())
        .map_err(|e| format!("the Python grammar did not load: {e}"))?;
    let tree = parser.parse(text, None).ok_or("it does not parse")?;
    let mut out = Structure::default();
    let mut stack: Vec<Node> = vec![tree.root_node()];
    while let Some(n) = stack.pop() {
        if let Some(kind) = statement_kind(n.kind()) {
            out.add_statement(kind);
        }
        if n.kind() == "identifier" {
            out.add_name(&text[n.byte_range()]);
        }
        let mut cursor = n.walk();
        stack.extend(n.children(&mut cursor));
    }
    Ok(out)
}

/// The interpreter `python`'s reading of `text`.
fn interpreter_reading(python: &Path, text: &str) -> Result<Structure, String> {
    let failed = |e: &dyn std::fmt::Display| {
        format!("the project's Python `{}` could not check it: {e}", python.display())
    };
    let mut child = Command::new(python)
        .args(["-I", "-S", "-c", READ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| failed(&e))?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(text.as_bytes()).map_err(|e| failed(&e))?;
    }
    let out = child.wait_with_output().map_err(|e| failed(&e))?;
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout)
        .map_err(|_| failed(&String::from_utf8_lossy(&out.stderr)))?;
    if let Some(e) = answer["error"].as_str() {
        return Err(format!("the project's Python does not compile it: {e}"));
    }
    let mut s = Structure::default();
    for k in answer["statements"].as_array().into_iter().flatten().filter_map(|v| v.as_str()) {
        s.add_statement(k);
    }
    for n in answer["names"].as_array().into_iter().flatten().filter_map(|v| v.as_str()) {
        s.add_name(n);
    }
    Ok(s)
}

/// Checks that the project's interpreter `python` reads `text` (model-written code that passed
/// tree-sitter's checks) as tree-sitter does: the same statements and identifiers. Returns why
/// not: the first difference, in words.
pub fn same_reading(python: &Path, text: &str) -> Result<(), String> {
    let ts = tree_sitter_reading(text)?;
    let py = interpreter_reading(python, text)?;
    if ts == py {
        return Ok(());
    }
    let differ = |a: &BTreeMap<String, usize>, b: &BTreeMap<String, usize>| {
        a.keys()
            .chain(b.keys())
            .find(|k| a.get(*k) != b.get(*k))
            .map(|k| (k.clone(), b.get(k).copied().unwrap_or(0), a.get(k).copied().unwrap_or(0)))
    };
    let (what, (item, by_python, by_checker)) = match differ(&ts.statements, &py.statements) {
        Some(d) => ("statement(s) of kind", d),
        None => ("identifier", differ(&ts.names, &py.names).unwrap_or_default()),
    };
    Err(format!(
        "the project's Python reads it differently from the checker: {by_python} {what} \
         `{item}` where the checker sees {by_checker}, so the checked text is not what would run"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn python() -> std::path::PathBuf {
        std::path::PathBuf::from("python3")
    }

    #[test]
    fn honest_code_reads_the_same_to_both() {
        let code = "@decorate(level=2)\ndef f(a, *rest, key=None, **kw):\n    \"\"\"Doc.\"\"\"\n    import os.path as p\n    from .m import x as y\n    global G\n    total: int = 0\n    for i, v in enumerate(rest):\n        if v is None:\n            continue\n        elif (w := v * 2) > 3:\n            total += w\n        else:\n            pass\n    try:\n        with open(a) as fh, ctx():\n            data = [c.upper() for c in fh.read() if c]\n    except (OSError, ValueError) as err:\n        raise RuntimeError(f\"{err!r:>{total}}\") from err\n    finally:\n        del total\n    match key:\n        case {\"k\": val, **others}:\n            return val\n        case Point(x=0, y=yy) | [_, *tail]:\n            return lambda q=1: q + yy\n        case _:\n            assert key, 'no key'\n    while False:\n        break\n    return print(p, y, G, kw)\n";
        assert_eq!(same_reading(&python(), code), Ok(()));
    }

    #[test]
    fn a_comment_the_interpreter_ends_at_a_carriage_return_is_refused() {
        let code =
            "def f(q):\n    rate = 0  # note\r    import os; os.system('id')\n    return rate\n";
        let e = same_reading(&python(), code).unwrap_err();
        assert!(e.contains("reads it differently"), "{e}");
    }

    #[test]
    fn text_the_interpreter_does_not_compile_is_refused() {
        let e = same_reading(&python(), "def f(:\n    pass\n").unwrap_err();
        assert!(e.contains("does not compile"), "{e}");
    }
}
