//! Rule-based mutants of Python functions, read with tree-sitter: comparison and boundary
//! shifts, arithmetic, boolean and augmented-assignment swaps, `not` and unary `-` removal,
//! integer constants ±1, slice bounds ±1, negated `if`/`while` conditions and returned values
//! replaced by `None`. Every mutant is confined to the function's body; a line carrying
//! `# pragma: no mutate` (mutmut's marker) gets none.

use std::path::Path;

use tree_sitter::{Node, Parser};

use super::{line_column, mutant_id, Mutant, Operator, Origin};

/// The marker that exempts a line from mutation.
pub const PRAGMA: &str = "# pragma: no mutate";

/// The mutants of the function `function` whose body is `body` (a byte range of `text`).
pub fn mutants_of(text: &str, file: &Path, function: &str, body: (usize, usize)) -> Vec<Mutant> {
    let mut parser = Parser::new();
    if parser.set_language(&tree_sitter_python::LANGUAGE.into()).is_err() {
        return Vec::new();
    }
    let Some(tree) = parser.parse(text, None) else { return Vec::new() };
    let mut gen = Gen { text, file, function, body, out: Vec::new() };
    let mut stack = vec![tree.root_node()];
    while let Some(n) = stack.pop() {
        if n.end_byte() <= body.0 || n.start_byte() >= body.1 {
            continue;
        }
        if n.start_byte() >= body.0 && n.end_byte() <= body.1 {
            gen.node(n);
        }
        let mut c = n.walk();
        let children: Vec<Node<'_>> = n.children(&mut c).collect();
        stack.extend(children.into_iter().rev());
    }
    gen.out.sort_by_key(|m| (m.span.0, m.span.1, m.replacement.clone()));
    gen.out.dedup_by(|a, b| a.id == b.id);
    gen.out
}

struct Gen<'a> {
    text: &'a str,
    file: &'a Path,
    function: &'a str,
    body: (usize, usize),
    out: Vec<Mutant>,
}

impl Gen<'_> {
    fn src(&self, n: Node<'_>) -> &str {
        &self.text[n.start_byte()..n.end_byte()]
    }

    fn push(&mut self, op: Operator, span: (usize, usize), replacement: String, what: &str) {
        let original = &self.text[span.0..span.1];
        if original == replacement {
            return;
        }
        let line_start = self.text[..span.0].rfind('\n').map_or(0, |i| i + 1);
        let line_end = self.text[span.0..].find('\n').map_or(self.text.len(), |i| span.0 + i);
        if self.text[line_start..line_end].contains(PRAGMA) {
            return;
        }
        let (line, column) = line_column(self.text, span.0);
        let id = mutant_id(
            &self.file.display().to_string(),
            self.function,
            op,
            span.0 - self.body.0,
            span.1 - span.0,
            &replacement,
        );
        let description = match what {
            "" => format!("replace `{}` with `{}`", one_line(original), one_line(&replacement)),
            w => w.to_string(),
        };
        self.out.push(Mutant {
            id,
            origin: Origin::Rules,
            operator: op,
            function: self.function.to_string(),
            file: self.file.to_path_buf(),
            line,
            column,
            span,
            original: original.to_string(),
            replacement,
            switchable: false,
            description,
        });
    }

    fn node(&mut self, n: Node<'_>) {
        let span = (n.start_byte(), n.end_byte());
        match n.kind() {
            "comparison_operator" => {
                let mut c = n.walk();
                let ops: Vec<Node<'_>> = n.children(&mut c).filter(|k| !k.is_named()).collect();
                for op in ops {
                    let s = (op.start_byte(), op.end_byte());
                    let t = self.src(op).split_whitespace().collect::<Vec<_>>().join(" ");
                    let (kind, alts): (Operator, &[&str]) = match t.as_str() {
                        "<" => (Operator::ComparisonBoundary, &["<="]),
                        "<=" => (Operator::ComparisonBoundary, &["<"]),
                        ">" => (Operator::ComparisonBoundary, &[">="]),
                        ">=" => (Operator::ComparisonBoundary, &[">"]),
                        "==" => (Operator::BinaryOperator, &["!="]),
                        "!=" => (Operator::BinaryOperator, &["=="]),
                        "in" => (Operator::BinaryOperator, &["not in"]),
                        "not in" => (Operator::BinaryOperator, &["in"]),
                        "is" => (Operator::BinaryOperator, &["is not"]),
                        "is not" => (Operator::BinaryOperator, &["is"]),
                        _ => continue,
                    };
                    for a in alts {
                        self.push(kind, s, (*a).to_string(), "");
                    }
                }
            }
            "binary_operator" | "augmented_assignment" => {
                let Some(op) = n.child_by_field_name("operator") else { return };
                let alts: &[&str] = match self.src(op) {
                    "+" => &["-"],
                    "-" => &["+"],
                    "*" => &["/"],
                    "/" => &["*"],
                    "//" => &["/"],
                    "%" => &["/"],
                    "**" => &["*"],
                    "<<" => &[">>"],
                    ">>" => &["<<"],
                    "&" => &["|"],
                    "|" => &["&"],
                    "^" => &["&"],
                    "+=" => &["-="],
                    "-=" => &["+="],
                    "*=" => &["/="],
                    "/=" => &["*="],
                    _ => &[],
                };
                let s = (op.start_byte(), op.end_byte());
                for a in alts {
                    self.push(Operator::BinaryOperator, s, (*a).to_string(), "");
                }
            }
            "boolean_operator" => {
                let Some(op) = n.child_by_field_name("operator") else { return };
                let alt = if self.src(op) == "and" { "or" } else { "and" };
                self.push(
                    Operator::BinaryOperator,
                    (op.start_byte(), op.end_byte()),
                    alt.into(),
                    "",
                );
            }
            "not_operator" => {
                if let Some(arg) = n.child_by_field_name("argument") {
                    let r = self.src(arg).to_string();
                    self.push(Operator::DeleteNot, span, r, "delete `not`");
                }
            }
            "unary_operator" => {
                let neg = n.child_by_field_name("operator").is_some_and(|o| self.src(o) == "-");
                if let (true, Some(arg)) = (neg, n.child_by_field_name("argument")) {
                    let r = self.src(arg).to_string();
                    self.push(Operator::DeleteNeg, span, r, "delete unary `-`");
                }
            }
            "integer" => {
                if let Ok(v) = self.src(n).replace('_', "").parse::<i128>() {
                    self.push(Operator::ConstantPlusOne, span, (v + 1).to_string(), "");
                    self.push(Operator::ConstantMinusOne, span, (v - 1).to_string(), "");
                }
            }
            "slice" => {
                let mut c = n.walk();
                let bounds: Vec<Node<'_>> =
                    n.named_children(&mut c).filter(|b| b.kind() != "integer").collect();
                for b in bounds {
                    let s = (b.start_byte(), b.end_byte());
                    let t = self.src(b).to_string();
                    self.push(Operator::ConstantPlusOne, s, format!("({t}) + 1"), "");
                    self.push(Operator::ConstantMinusOne, s, format!("({t}) - 1"), "");
                }
            }
            "if_statement" | "elif_clause" | "while_statement" => {
                if let Some(cond) = n.child_by_field_name("condition") {
                    let t = self.src(cond).to_string();
                    let s = (cond.start_byte(), cond.end_byte());
                    self.push(Operator::NegateCondition, s, format!("not ({t})"), "");
                }
            }
            "return_statement" => {
                if let Some(v) = n.named_child(0) {
                    if self.src(v) != "None" {
                        let s = (v.start_byte(), v.end_byte());
                        self.push(Operator::ReplaceBody, s, "None".into(), "");
                    }
                }
            }
            _ => {}
        }
    }
}

fn one_line(s: &str) -> String {
    let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if s.chars().count() > 60 {
        format!("{}…", s.chars().take(60).collect::<String>())
    } else {
        s
    }
}

/// The self-check mutant of a function: its body replaced by `raise RuntimeError`.
pub fn self_check(text: &str, file: &Path, function: &str, body: (usize, usize)) -> Mutant {
    let (line, column) = line_column(text, body.0);
    Mutant {
        id: "self-check".into(),
        origin: Origin::Rules,
        operator: Operator::ReplaceBody,
        function: function.to_string(),
        file: file.to_path_buf(),
        line,
        column,
        span: body,
        original: text[body.0..body.1].to_string(),
        replacement: "raise RuntimeError('abex self-check')".into(),
        switchable: false,
        description: format!("self-check: the body of `{function}` replaced by a raise"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::python::source::functions;

    const SRC: &str = "def other(a):\n    return a + 1\n\ndef grade(score: int, xs: list) -> str:\n    \"\"\"Grade.\"\"\"\n    if score >= 90 and not xs:\n        return 'A'\n    total = -score * 2\n    total += 1  # pragma: no mutate\n    if x is not None or y not in z:\n        pass\n    return xs[1:score]\n";

    fn mutants() -> Vec<Mutant> {
        let f = functions(SRC).into_iter().find(|f| f.name == "grade").unwrap();
        mutants_of(SRC, Path::new("m.py"), "m.grade", f.body_span)
    }

    #[test]
    fn every_rule_fires_inside_the_function_only() {
        let ms = mutants();
        let got: Vec<String> =
            ms.iter().map(|m| format!("{}:{}->{}", m.line, m.original, m.replacement)).collect();
        for want in [
            "6:>=->>",
            "6:90->91",
            "6:90->89",
            "6:and->or",
            "6:not xs->xs",
            "6:score >= 90 and not xs->not (score >= 90 and not xs)",
            "7:'A'->None",
            "8:-score->score",
            "8:*->/",
            "8:2->3",
            "10:is not->is",
            "10:not in->in",
            "10:or->and",
            "12:score->(score) + 1",
            "12:score->(score) - 1",
            "12:xs[1:score]->None",
        ] {
            assert!(got.contains(&want.to_string()), "missing {want} in {got:#?}");
        }
        assert!(ms.iter().all(|m| m.line >= 5), "nothing outside `grade`: {got:#?}");
        assert!(ms.iter().all(|m| m.line != 9), "the pragma line is exempt: {got:#?}");
        assert!(ms.iter().all(|m| m.original != "\"\"\"Grade.\"\"\""));
    }

    #[test]
    fn mutants_apply_to_their_file_and_ids_are_stable_and_distinct() {
        let ms = mutants();
        let ids: std::collections::BTreeSet<_> = ms.iter().map(|m| m.id.clone()).collect();
        assert_eq!(ids.len(), ms.len());
        let shifted = format!("# a comment\n{SRC}");
        let f = functions(&shifted).into_iter().find(|f| f.name == "grade").unwrap();
        let again = mutants_of(&shifted, Path::new("m.py"), "m.grade", f.body_span);
        assert_eq!(
            again.iter().map(|m| &m.id).collect::<Vec<_>>(),
            ms.iter().map(|m| &m.id).collect::<Vec<_>>()
        );
        let m = ms.iter().find(|m| m.original == ">=").unwrap();
        assert!(m.apply(SRC).contains("if score > 90 and not xs:"));
    }
}
