//! The constants of a Python function's source (integers, floats and strings), read with the
//! tree-sitter parser of `source.rs`: seeds of the directed witness search, since a boundary
//! mutant is infected at a constant of the source far more often than anywhere else.

use tree_sitter::{Node, Parser};

use crate::witness::{parse_int, Hints};

/// The constants of `source` (a function's text), in order of appearance; a number after a
/// unary `-` also counts negated.
pub fn of_source(source: &str) -> Hints {
    let mut hints = Hints::default();
    let mut parser = Parser::new();
    if parser.set_language(&tree_sitter_python::LANGUAGE.into()).is_err() {
        return hints;
    }
    if let Some(tree) = parser.parse(source, None) {
        walk(tree.root_node(), source.as_bytes(), &mut hints);
    }
    hints
}

fn walk(n: Node<'_>, src: &[u8], hints: &mut Hints) {
    let text = n.utf8_text(src).unwrap_or_default();
    let negated = n.parent().is_some_and(|p| {
        p.kind() == "unary_operator" && p.child(0).is_some_and(|c| c.kind() == "-")
    });
    match n.kind() {
        "integer" => {
            if let Some(v) = parse_int(text) {
                hints.int(v);
                if negated {
                    hints.int(-v);
                }
            }
        }
        "float" => {
            if let Ok(v) = text.replace('_', "").parse::<f64>() {
                hints.float(v);
                if negated {
                    hints.float(-v);
                }
            }
        }
        "string" => {
            // Plain strings only: f-strings and escapes are left to the explorer.
            let mut c = n.walk();
            let content: Vec<Node<'_>> =
                n.named_children(&mut c).filter(|x| x.kind() == "string_content").collect();
            let interpolated = n.named_children(&mut n.walk()).any(|x| x.kind() == "interpolation");
            if !interpolated {
                let s: String =
                    content.iter().map(|x| x.utf8_text(src).unwrap_or_default()).collect();
                if !s.contains('\\') {
                    hints.str(&s);
                }
            }
            return;
        }
        _ => {}
    }
    let mut c = n.walk();
    for child in n.children(&mut c) {
        walk(child, src, hints);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_floats_and_plain_strings_are_read_in_order() {
        let h = of_source(
            "def f(x: int, s: str) -> bool:\n    \"\"\"Doc.\"\"\"\n    if x < -3 or len(s) > 0x40:\n        raise ValueError(f\"bad {x}\")\n    return x * 2.5 > 1_000 and s == 'abc'\n",
        );
        assert_eq!(h.ints, [3, -3, 64, 1000]);
        assert_eq!(h.floats, [2.5]);
        assert_eq!(h.strs, ["Doc.", "abc"]);
    }
}
