//! Rule-based mutants of Python functions, read with tree-sitter: comparison and boundary
//! shifts, arithmetic, boolean and augmented-assignment swaps, `not`, `~` and unary `-` removal,
//! integer constants ±1, slice bounds ±1, negated `if`/`while` conditions and returned values
//! replaced by `None`; and every operator of mutmut 3 (its `mutation/mutators.py`), so that
//! abex's mutants are a superset of mutmut's: numbers + 1, strings wrapped in `XX` or their case
//! changed, `True` ↔ `False`, assigned values → `None`, augmented assignments made plain, call
//! arguments → `None` or dropped, `dict(k=…)` keywords renamed, mirrored string methods,
//! `deepcopy` → `copy`, lambda bodies → `None`, `break` → `return`, `continue` → `break`, match
//! cases deleted, and conditional expressions forced either way. Every mutant is confined to the
//! function's body; a line carrying `# pragma: no mutate` (mutmut's marker) gets none.

use std::path::Path;

use tree_sitter::{Node, Parser};

use super::{line_column, mutant_id, whole_lines, Mutant, Operator, Origin};

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

impl<'a> Gen<'a> {
    fn src(&self, n: Node<'_>) -> &'a str {
        &self.text[n.start_byte()..n.end_byte()]
    }

    /// mutmut's string mutants: the text wrapped in `XX`, made lower case and upper case (its
    /// escapes kept); not f-strings or triple-quoted strings (docstrings, mostly).
    fn string(&mut self, n: Node<'_>) {
        let whole = self.src(n);
        let Some(quote_at) = whole.find(['"', '\'']) else { return };
        let (prefix, rest) = whole.split_at(quote_at);
        let low = prefix.to_ascii_lowercase();
        if low.contains('f')
            || low.contains('t')
            || rest.starts_with("\"\"\"")
            || rest.starts_with("'''")
            || rest.len() < 2
        {
            return;
        }
        let (q, inner) = (&rest[..1], &rest[1..rest.len() - 1]);
        let raw = low.contains('r');
        let span = (n.start_byte(), n.end_byte());
        for changed in [format!("XX{inner}XX"), recase(inner, raw, false), recase(inner, raw, true)]
        {
            if changed != inner {
                self.push(Operator::ReplaceLiteral, span, format!("{prefix}{q}{changed}{q}"), "");
            }
        }
    }

    /// mutmut's call mutants: `dict(k=…)` keywords renamed, each argument replaced by `None`
    /// and (with two or more) dropped, mirrored methods swapped.
    fn call(&mut self, n: Node<'_>) {
        let (Some(func), Some(args)) =
            (n.child_by_field_name("function"), n.child_by_field_name("arguments"))
        else {
            return;
        };
        if func.kind() == "attribute" {
            if let Some(attr) = func.child_by_field_name("attribute") {
                let name = self.src(attr).to_string();
                let mut c = args.walk();
                let listed: Vec<Node<'_>> = args.named_children(&mut c).collect();
                let maxsplit = listed.iter().any(|a| {
                    a.kind() == "keyword_argument"
                        && a.child_by_field_name("name").is_some_and(|k| self.src(k) == "maxsplit")
                });
                let mirror = METHOD_MIRRORS.iter().find(|(a, _)| *a == name).map(|(_, b)| *b);
                let split = match name.as_str() {
                    "split" if listed.len() == 2 || maxsplit => Some("rsplit"),
                    "rsplit" if listed.len() == 2 || maxsplit => Some("split"),
                    _ => None,
                };
                if let Some(to) = mirror.or(split) {
                    let s = (attr.start_byte(), attr.end_byte());
                    self.push(Operator::SwapMethod, s, to.to_string(), "");
                }
            }
        }
        if args.kind() != "argument_list" {
            return;
        }
        let mut c = args.walk();
        let list: Vec<Node<'_>> =
            args.named_children(&mut c).filter(|a| a.kind() != "comment").collect();
        if self.src(func) == "dict" {
            for a in &list {
                let Some(k) =
                    a.child_by_field_name("name").filter(|_| a.kind() == "keyword_argument")
                else {
                    break;
                };
                let renamed = format!("{}XX", self.src(k));
                self.push(Operator::ReplaceArgument, (k.start_byte(), k.end_byte()), renamed, "");
            }
        }
        for a in &list {
            let value = match a.kind() {
                "list_splat" | "dictionary_splat" | "parenthesized_list_splat" => continue,
                "keyword_argument" => match a.child_by_field_name("value") {
                    Some(v) => v,
                    None => continue,
                },
                _ => *a,
            };
            if value.kind() != "none" {
                let s = (value.start_byte(), value.end_byte());
                self.push(Operator::ReplaceArgument, s, "None".into(), "");
            }
        }
        if list.len() > 1 {
            let texts: Vec<&str> = list.iter().map(|a| self.src(*a)).collect();
            for i in 0..list.len() {
                let kept: Vec<&str> =
                    texts.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, t)| *t).collect();
                let what = format!("drop the argument `{}`", one_line(texts[i]));
                let s = (args.start_byte(), args.end_byte());
                self.push(Operator::ReplaceArgument, s, format!("({})", kept.join(", ")), &what);
            }
        }
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
            peer_name: None,
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
                    "//=" => &["/="],
                    "%=" => &["/="],
                    "**=" => &["*="],
                    "<<=" => &[">>="],
                    ">>=" => &["<<="],
                    "&=" => &["|="],
                    "|=" => &["&="],
                    "^=" => &["&="],
                    _ => &[],
                };
                let s = (op.start_byte(), op.end_byte());
                for a in alts {
                    self.push(Operator::BinaryOperator, s, (*a).to_string(), "");
                }
                if n.kind() == "augmented_assignment" {
                    let side = |f: &str| n.child_by_field_name(f).map(|x| self.src(x).to_string());
                    if let (Some(l), Some(r)) = (side("left"), side("right")) {
                        let what = "make the augmented assignment plain";
                        self.push(Operator::ReplaceAssignment, span, format!("{l} = {r}"), what);
                    }
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
                let op = n.child_by_field_name("operator").map(|o| self.src(o).to_string());
                let Some(arg) = n.child_by_field_name("argument") else { return };
                let r = self.src(arg).to_string();
                match op.as_deref() {
                    Some("-") => self.push(Operator::DeleteNeg, span, r, "delete unary `-`"),
                    Some("~") => self.push(Operator::DeleteNot, span, r, "delete `~`"),
                    Some("+") => self.push(Operator::SwapUnary, span, format!("-{r}"), ""),
                    _ => {}
                }
            }
            "integer" => {
                let t = self.src(n).replace('_', "");
                if let Some(im) = t.strip_suffix(['j', 'J']) {
                    if im.parse::<f64>().is_ok_and(f64::is_finite) {
                        let r = format!("({} + 1j)", self.src(n));
                        self.push(Operator::ConstantPlusOne, span, r, "");
                    }
                } else if let Ok(v) = t.parse::<i128>() {
                    self.push(Operator::ConstantPlusOne, span, (v + 1).to_string(), "");
                    self.push(Operator::ConstantMinusOne, span, (v - 1).to_string(), "");
                }
            }
            "float" => {
                let t = self.src(n).replace('_', "");
                if let Some(im) = t.strip_suffix(['j', 'J']) {
                    if im.parse::<f64>().is_ok_and(f64::is_finite) {
                        let r = format!("({} + 1j)", self.src(n));
                        self.push(Operator::ConstantPlusOne, span, r, "");
                    }
                } else if let Some(v) = t.parse::<f64>().ok().map(|v| v + 1.0) {
                    if v.is_finite() {
                        self.push(Operator::ConstantPlusOne, span, format!("{v:?}"), "");
                    }
                }
            }
            "string" => self.string(n),
            "true" => self.push(Operator::ReplaceLiteral, span, "False".into(), ""),
            "false" => self.push(Operator::ReplaceLiteral, span, "True".into(), ""),
            "identifier" if self.src(n) == "deepcopy" => {
                self.push(Operator::SwapMethod, span, "copy".into(), "")
            }
            "assignment" => {
                let right = n.child_by_field_name("right");
                if let Some(r) = right.filter(|r| r.kind() != "assignment") {
                    let to = if r.kind() == "none" { "\"\"" } else { "None" };
                    let s = (r.start_byte(), r.end_byte());
                    self.push(Operator::ReplaceAssignment, s, to.into(), "");
                }
            }
            "call" => self.call(n),
            "lambda" => {
                if let Some(b) = n.child_by_field_name("body") {
                    let to = if b.kind() == "none" { "0" } else { "None" };
                    let what = format!("replace the lambda's body with `{to}`");
                    self.push(
                        Operator::ReplaceBody,
                        (b.start_byte(), b.end_byte()),
                        to.into(),
                        &what,
                    );
                }
            }
            "break_statement" => self.push(Operator::ReplaceStatement, span, "return".into(), ""),
            "continue_statement" => self.push(Operator::ReplaceStatement, span, "break".into(), ""),
            "match_statement" => {
                let Some(body) = n.child_by_field_name("body") else { return };
                let mut c = body.walk();
                let cases: Vec<Node<'_>> =
                    body.named_children(&mut c).filter(|k| k.kind() == "case_clause").collect();
                if cases.len() > 1 {
                    for case in cases {
                        let s = whole_lines(self.text, (case.start_byte(), case.end_byte()));
                        let head =
                            self.src(case).lines().next().unwrap_or_default().trim().to_string();
                        self.push(
                            Operator::DeleteMatchArm,
                            s,
                            String::new(),
                            &format!("delete `{head}`"),
                        );
                    }
                }
            }
            "conditional_expression" => {
                let mut c = n.walk();
                let parts: Vec<Node<'_>> = n.named_children(&mut c).collect();
                if let [_, cond, _] = parts.as_slice() {
                    let t = self.src(*cond).to_string();
                    let s = (cond.start_byte(), cond.end_byte());
                    for forced in [format!("({t}) and False"), format!("({t}) or True")] {
                        self.push(Operator::ForceCondition, s, forced, "");
                    }
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

/// The method pairs mutmut swaps whatever the arguments.
const METHOD_MIRRORS: [(&str, &str); 14] = [
    ("lower", "upper"),
    ("upper", "lower"),
    ("lstrip", "rstrip"),
    ("rstrip", "lstrip"),
    ("find", "rfind"),
    ("rfind", "find"),
    ("ljust", "rjust"),
    ("rjust", "ljust"),
    ("index", "rindex"),
    ("rindex", "index"),
    ("removeprefix", "removesuffix"),
    ("removesuffix", "removeprefix"),
    ("partition", "rpartition"),
    ("rpartition", "partition"),
];

/// A string literal's body in lower or upper case, its escapes kept as they are (`\x4A`, `\N{…}`
/// whole; in a raw string, the character after each backslash).
fn recase(inner: &str, raw: bool, upper: bool) -> String {
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            if upper {
                out.extend(c.to_uppercase());
            } else {
                out.extend(c.to_lowercase());
            }
            continue;
        }
        out.push(c);
        let Some(next) = chars.next() else { break };
        out.push(next);
        let keep = match next {
            _ if raw => 0,
            'x' => 2,
            'u' => 4,
            'U' => 8,
            'N' if chars.peek() == Some(&'{') => usize::MAX,
            _ => 0,
        };
        if keep == usize::MAX {
            for k in chars.by_ref() {
                out.push(k);
                if k == '}' {
                    break;
                }
            }
        } else {
            out.extend(chars.by_ref().take(keep));
        }
    }
    out
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
        peer_name: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::python::types::function::functions;

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

    /// One snippet per operator of mutmut 3.8 (`mutation/mutators.py`) and the mutants mutmut
    /// makes of it: abex makes each (a mutmut `-x` → `+x` is abex's `-x` → `x`, the same
    /// value; everything else is the same text).
    #[test]
    fn every_mutmut_operator_is_made() {
        let src = r#"def f(a, b, xs, s, d):
    n = 1.5
    m = None
    k = 2j
    t = "Hi\x4A\n"
    r = r"A\N"
    ok = True
    no = False
    c = copy.deepcopy(xs)
    a += 1
    a //= 2
    a **= 3
    z = ~a
    w = +a
    v = -a
    e = dict(x=1, y=2)
    g(a, b=b, *xs)
    h = s.lower().find("q").rsplit(",", 1)
    u = s.split(",")
    fn = lambda q: q + 1
    fz = lambda: None
    y = a if a > b else b
    for i in xs:
        if i:
            break
        continue
    match a:
        case 1:
            pass
        case _:
            pass
    return a is not b and b in xs or a << 2 >> 1 & 3 | 4 ^ 5 ** 2 % 3 // 1
"#;
        let f = functions(src).into_iter().find(|f| f.name == "f").unwrap();
        let ms = mutants_of(src, Path::new("m.py"), "m.f", f.body_span);
        let got: Vec<(String, String)> =
            ms.iter().map(|m| (m.original.clone(), m.replacement.clone())).collect();
        let has = |o: &str, r: &str| got.iter().any(|(a, b)| a == o && b == r);
        for (o, r) in [
            // operator_number
            ("1.5", "2.5"),
            ("1", "2"),
            ("2j", "(2j + 1j)"),
            // operator_string: XX, lower, upper (escapes kept)
            ("\"Hi\\x4A\\n\"", "\"XXHi\\x4A\\nXX\""),
            ("\"Hi\\x4A\\n\"", "\"hi\\x4A\\n\""),
            ("\"Hi\\x4A\\n\"", "\"HI\\x4A\\n\""),
            ("r\"A\\N\"", "r\"a\\N\""),
            // operator_name
            ("True", "False"),
            ("False", "True"),
            ("deepcopy", "copy"),
            // operator_assignment
            ("1.5", "None"),
            ("None", "\"\""),
            // operator_augmented_assignment
            ("a += 1", "a = 1"),
            ("a //= 2", "a = 2"),
            // operator_remove_unary_ops, operator_swap_op on unary operators
            ("~a", "a"),
            ("+a", "-a"),
            ("-a", "a"),
            // operator_dict_arguments
            ("x", "xXX"),
            ("y", "yXX"),
            // operator_arg_removal
            ("a", "None"),
            ("b", "None"),
            ("(a, b=b, *xs)", "(b=b, *xs)"),
            ("(a, b=b, *xs)", "(a, *xs)"),
            ("(a, b=b, *xs)", "(a, b=b)"),
            // operator_symmetric_string_methods_swap, unsymmetrical (two arguments only)
            ("lower", "upper"),
            ("find", "rfind"),
            ("rsplit", "split"),
            // operator_lambda
            ("q + 1", "None"),
            ("None", "0"),
            // operator_keywords
            ("is not", "is"),
            ("in", "not in"),
            ("break", "return"),
            ("continue", "break"),
            // operator_swap_op on binary, augmented, comparison and boolean operators
            ("//=", "/="),
            ("**=", "*="),
            ("<<", ">>"),
            (">>", "<<"),
            ("&", "|"),
            ("|", "&"),
            ("^", "&"),
            ("**", "*"),
            ("%", "/"),
            ("//", "/"),
            (">", ">="),
            ("and", "or"),
            ("or", "and"),
            // operator_if_exp
            ("a > b", "(a > b) and False"),
            ("a > b", "(a > b) or True"),
        ] {
            assert!(has(o, r), "missing {o} -> {r} in {got:#?}");
        }
        // `split` with one argument is not mirrored (mutmut: only with two or `maxsplit`).
        assert!(!has("split", "rsplit"), "{got:#?}");
        // operator_match: each case deleted, whole lines.
        let cases: Vec<&str> = ms
            .iter()
            .filter(|m| m.operator == Operator::DeleteMatchArm)
            .map(|m| m.original.as_str())
            .collect();
        assert_eq!(
            cases,
            ["        case 1:\n            pass\n", "        case _:\n            pass\n"]
        );
        for m in &ms {
            let mutated = m.apply(src);
            let f2 = functions(&mutated);
            assert!(f2.iter().any(|f| f.name == "f"), "{m:?} breaks the file");
        }
    }
}
