//! Suggested pytest tests: a test function that calls the target on a witness input and checks
//! the original's outcome (its `repr`, or the exception type it raises), so that it passes on
//! the original and fails on the mutant. abex runs it both ways before it suggests it.

use std::collections::BTreeSet;

use crate::report::Witness;
use crate::value::{CtorForm, Outcome, Ty, Value};

use super::source::Kind;
use super::types::Pass;

/// What a suggested test needs to know of its function.
pub struct Callee<'a> {
    /// The dotted module.
    pub module: &'a str,
    /// `Class.name` or `name`.
    pub qualname: &'a str,
    /// How it is called.
    pub kind: Kind,
    /// Parameter types.
    pub params: &'a [Ty],
    /// Per parameter, whether it is a tuple.
    pub tuples: &'a [bool],
    /// Per parameter, its name (for arguments passed by name).
    pub names: &'a [String],
    /// Per parameter, how it is passed.
    pub passes: &'a [Pass],
    /// Whether the first parameter is the instance a method is called on.
    pub receiver: bool,
    /// Whether it is `async def`.
    pub is_async: bool,
    /// The parameters whose default is a plain literal, by name, with it: an argument equal to
    /// it is left out of the call where the call reads the same without it (a trailing
    /// positional one, or one passed by name).
    pub defaults: &'a [(String, Value)],
}

impl Callee<'_> {
    /// A plain function of `module` taking `params` by position.
    pub fn function<'a>(module: &'a str, qualname: &'a str, params: &'a [Ty]) -> Callee<'a> {
        Callee {
            module,
            qualname,
            kind: Kind::Function,
            params,
            tuples: &[],
            names: &[],
            passes: &[],
            receiver: false,
            is_async: false,
            defaults: &[],
        }
    }

    /// Whether `v`, the argument of parameter `name`, is that parameter's literal default, or
    /// stands for its default (`None` of a [`Pass::Unset`] parameter).
    fn is_default(&self, name: &str, v: &Value) -> bool {
        let unset = |k: usize| self.passes.get(k) == Some(&Pass::Unset);
        self.defaults.iter().any(|(n, d)| n == name && is_default_value(v, d))
            || *v == Value::Null && self.names.iter().position(|n| n == name).is_some_and(unset)
    }

    /// How many of `input`'s arguments a call writes, from the first: those at the end that
    /// equal their parameters' literal defaults are left out (a receiver never is).
    pub fn written(&self, input: &[Value]) -> usize {
        let mut end = input.len();
        while end > usize::from(self.receiver) {
            let name = self.names.get(end - 1).map(String::as_str).unwrap_or("");
            if !self.is_default(name, &input[end - 1]) {
                break;
            }
            end -= 1;
        }
        end
    }
}

/// Whether the argument `v` is the literal default `d` (a float bit for bit: `-0.0` is not
/// `0.0`), so that a call without it reads the same.
fn is_default_value(v: &Value, d: &Value) -> bool {
    match (v, d) {
        (Value::Float(a), Value::Float(b)) => a.to_bits() == b.to_bits(),
        _ => v == d,
    }
}

/// Where the recipe of type `ty_name` (`datetime.date`, `pkg.shapes.Color`) by its constructor
/// `ctor` (`date`, `Color.RED`) is imported from: (module, name), or `None` for a builtin.
pub fn import_of(ty_name: &str, ctor: &str) -> Option<(String, String)> {
    let ts: Vec<&str> = ty_name.split('.').collect();
    let cs: Vec<&str> = ctor.split('.').collect();
    let k = (1..=cs.len().min(ts.len())).rev().find(|&k| ts.ends_with(&cs[..k]))?;
    let module = ts[..ts.len() - k].join(".");
    (!module.is_empty() && module != "builtins").then(|| (module, cs[0].to_string()))
}

/// Adds the imports that the recipes in `v` (of type `ty`) need to `out`.
fn imports(v: &Value, ty: &Ty, out: &mut BTreeSet<(String, String)>) {
    match (v, ty) {
        (Value::Built { ctor, args }, Ty::Built { name, ctors }) => {
            out.extend(import_of(name, ctor));
            if let Some(c) = ctors.iter().find(|c| c.name == *ctor) {
                for ((_, t), x) in c.params.iter().zip(args) {
                    imports(x, t, out);
                }
            }
        }
        (v, Ty::Union { options }) => {
            if let Some(t) = crate::inputs::conforms_any(options, v) {
                imports(v, t, out);
            }
        }
        (v, Ty::Option { item }) if *v != Value::Null => imports(v, item, out),
        (Value::List(items), Ty::List { item } | Ty::Array { item, .. }) => {
            items.iter().for_each(|x| imports(x, item, out))
        }
        (Value::List(items), Ty::Tuple { items: tys }) => {
            items.iter().zip(tys).for_each(|(x, t)| imports(x, t, out))
        }
        (Value::Map(entries), Ty::Map { value, .. }) => {
            entries.iter().for_each(|(_, x)| imports(x, value, out))
        }
        _ => {}
    }
}

/// A Python literal of `v` as an argument of type `ty`.
pub fn literal(v: &Value, ty: &Ty, as_tuple: bool) -> String {
    match (v, ty) {
        (Value::Built { ctor, args }, Ty::Built { ctors, .. }) => {
            let Some(c) = ctors.iter().find(|c| c.name == *ctor) else { return v.display() };
            // An argument equal to its parameter's literal default is left out: by name
            // anywhere, by position at the end.
            let default = |n: &str, x: &Value| {
                c.defaults.iter().any(|(d, dv)| d == n && is_default_value(x, dv))
            };
            let parts: Vec<String> =
                c.params.iter().zip(args).map(|((_, t), x)| literal(x, t, false)).collect();
            match c.form {
                CtorForm::Unit => c.name.clone(),
                CtorForm::Call => {
                    let mut end = parts.len().min(args.len());
                    while end > 0 && default(&c.params[end - 1].0, &args[end - 1]) {
                        end -= 1;
                    }
                    format!("{}({})", c.name, parts[..end].join(", "))
                }
                CtorForm::Fields => {
                    let named: Vec<String> = c
                        .params
                        .iter()
                        .zip(args)
                        .zip(&parts)
                        .filter(|(((n, _), x), _)| !default(n, x))
                        .map(|(((n, _), _), p)| format!("{n}={p}"))
                        .collect();
                    format!("{}({})", c.name, named.join(", "))
                }
            }
        }
        (v, Ty::Union { options }) => match crate::inputs::conforms_any(options, v) {
            Some(t) => literal(v, t, as_tuple),
            None => literal(v, &Ty::Any, as_tuple),
        },
        (Value::Built { .. }, _) => v.display(),
        (Value::Null, _) => "None".into(),
        (Value::Bool(b), _) => if *b { "True" } else { "False" }.into(),
        (Value::Int(i), Ty::Float { .. }) => format!("{i}.0"),
        (Value::Int(i), _) => i.to_string(),
        (Value::BigUint(u), _) => u.to_string(),
        (Value::Float(x), _) if x.is_nan() => "float('nan')".into(),
        (Value::Float(x), _) if x.is_infinite() => {
            if *x > 0.0 { "float('inf')" } else { "float('-inf')" }.into()
        }
        (Value::Float(x), _) => format!("{x:?}"),
        (Value::Str(s), Ty::Float { .. }) => match s.as_str() {
            "NaN" => "float('nan')".into(),
            "inf" => "float('inf')".into(),
            "-inf" => "float('-inf')".into(),
            _ => string(s),
        },
        (Value::Str(s), _) => string(s),
        (Value::List(items), Ty::Bytes) => {
            let b: Vec<String> = items.iter().map(|x| literal(x, &Ty::Any, false)).collect();
            format!("bytes([{}])", b.join(", "))
        }
        (Value::List(items), Ty::Tuple { items: tys }) => {
            let parts: Vec<String> =
                items.iter().zip(tys).map(|(x, t)| literal(x, t, false)).collect();
            tuple(parts)
        }
        (Value::List(items), Ty::List { item } | Ty::Array { item, .. }) => {
            let parts: Vec<String> = items.iter().map(|x| literal(x, item, false)).collect();
            if as_tuple {
                tuple(parts)
            } else {
                format!("[{}]", parts.join(", "))
            }
        }
        (Value::List(items), Ty::Option { item }) => {
            literal(&Value::List(items.clone()), item, as_tuple)
        }
        (Value::List(items), _) => {
            let parts: Vec<String> = items.iter().map(|x| literal(x, &Ty::Any, false)).collect();
            format!("[{}]", parts.join(", "))
        }
        (Value::Map(entries), ty) => {
            let (kt, vt) = match ty {
                Ty::Map { key, value } => (key.as_ref().clone(), value.as_ref().clone()),
                Ty::Option { item } => match item.as_ref() {
                    Ty::Map { key, value } => (key.as_ref().clone(), value.as_ref().clone()),
                    _ => (Ty::Str, Ty::Any),
                },
                _ => (Ty::Str, Ty::Any),
            };
            let parts: Vec<String> = entries
                .iter()
                .map(|(k, x)| {
                    let key = match kt {
                        Ty::Int { .. } => k.clone(),
                        _ => string(k),
                    };
                    format!("{key}: {}", literal(x, &vt, false))
                })
                .collect();
            format!("{{{}}}", parts.join(", "))
        }
    }
}

fn tuple(parts: Vec<String>) -> String {
    if parts.len() == 1 {
        format!("({},)", parts[0])
    } else {
        format!("({})", parts.join(", "))
    }
}

/// A Python string literal (JSON's escapes are valid Python escapes).
pub fn string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "''".into())
}

/// Whether `k` can be written as a keyword argument.
fn is_identifier(k: &str) -> bool {
    let mut cs = k.chars();
    cs.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && cs.all(|c| c.is_alphanumeric() || c == '_')
}

/// The call of `f` on `input` as code: lines that set it up, the statement that runs it
/// (where it may raise), and the expression whose value the test asserts; for most functions
/// the last two are the call (`Point(x=1, y=2).norm()`, `f(1, *[2], key=3)`), for a property's
/// setter `obj.name = value` and `obj.name`.
struct Call {
    setup: Vec<String>,
    statement: String,
    expr: String,
    /// For a method: the instance's expression and the call on it (`Point(x=1)`, `norm()`).
    method: Option<(String, On)>,
    /// Whether `expr` has the call's value (`cache[0] = 1` has none: a statement).
    valued: bool,
}

/// How a method is called on its instance: by name, or by the operator its dunder name stands
/// for, as a person writes it (`cache[key]`, not `cache.__getitem__(key)`).
#[derive(Clone, Debug, PartialEq)]
enum On {
    /// `name(args)`.
    Call(String),
    /// `__getitem__(key)`: `recv[key]`.
    Item(String),
    /// `__setitem__(key, value)`: `recv[key] = value` (a statement).
    SetItem(String, String),
    /// `__delitem__(key)`: `del recv[key]` (a statement).
    DelItem(String),
    /// `__contains__(x)`: `x in recv`.
    Contains(String),
    /// `__len__()`: `len(recv)`.
    Len,
}

impl On {
    /// The method `name` called with `args` (positional only, as written), by its operator
    /// when it has one.
    fn of(name: &str, args: &[String], named: bool, all: &str) -> On {
        match (name, args, named) {
            ("__getitem__", [k], false) => On::Item(k.clone()),
            ("__setitem__", [k, v], false) => On::SetItem(k.clone(), v.clone()),
            ("__delitem__", [k], false) => On::DelItem(k.clone()),
            ("__contains__", [x], false) => On::Contains(x.clone()),
            ("__len__", [], false) => On::Len,
            _ => On::Call(format!("{name}({all})")),
        }
    }

    /// The code that calls it on `recv`, and whether that is an expression with its value.
    fn on(&self, recv: &str) -> (String, bool) {
        match self {
            On::Call(call) => (format!("{recv}.{call}"), true),
            On::Item(k) => (format!("{recv}[{k}]"), true),
            On::SetItem(k, v) => (format!("{recv}[{k}] = {v}"), false),
            On::DelItem(k) => (format!("del {recv}[{k}]"), false),
            On::Contains(x) => (format!("({x} in {recv})"), true),
            On::Len => (format!("len({recv})"), true),
        }
    }
}

/// The call of `f` on `input`; a dunder method by its operator when `operators`.
fn call_of(f: &Callee<'_>, input: &[Value], operators: bool) -> Call {
    // Each positional argument, and whether the call reads the same without it (its
    // parameter's default): those at the end are left out.
    let mut positional: Vec<(String, bool)> = Vec::new();
    let mut named: Vec<String> = Vec::new();
    let mut receiver = None;
    for (i, v) in input.iter().enumerate() {
        let ty = f.params.get(i).cloned().unwrap_or(Ty::Any);
        let lit = |v: &Value, t: &Ty| literal(v, t, f.tuples.get(i).copied().unwrap_or(false));
        let name = f.names.get(i).map(String::as_str).unwrap_or("");
        let default = f.is_default(name, v);
        match (f.passes.get(i).copied().unwrap_or(Pass::Pos { only: false }), v, &ty) {
            _ if i == 0 && f.receiver => receiver = Some(literal(v, &ty, false)),
            (Pass::Kw, _, _) if default => {}
            (Pass::Unset, Value::Null, _) => {}
            (Pass::Unset, _, _) => named.push(format!("{name}={}", lit(v, &ty))),
            (Pass::Kw, _, _) => named.push(format!("{name}={}", lit(v, &ty))),
            (Pass::Star, Value::List(items), Ty::List { item }) => {
                positional.extend(items.iter().map(|x| (literal(x, item, false), false)))
            }
            (Pass::StarStar, Value::Map(entries), Ty::Map { value, .. }) => {
                for (k, x) in entries {
                    if is_identifier(k) && !f.names.iter().any(|n| n == k) {
                        named.push(format!("{k}={}", literal(x, value, false)));
                    } else {
                        named.push(format!("**{{{}: {}}}", string(k), literal(x, value, false)));
                    }
                }
            }
            _ => positional.push((lit(v, &ty), default)),
        }
    }
    while positional.last().is_some_and(|(_, default)| *default) {
        positional.pop();
    }
    let positional: Vec<String> = positional.into_iter().map(|(text, _)| text).collect();
    let args = positional.iter().chain(&named).cloned().collect::<Vec<_>>().join(", ");
    let (owner, name_in) = match f.qualname.rsplit_once('.') {
        Some((c, n)) => (c, n),
        None => (f.qualname, f.qualname),
    };
    let instance = receiver.unwrap_or_else(|| format!("{owner}()"));
    let on = match operators && !f.is_async {
        true => On::of(name_in, &positional, !named.is_empty(), &args),
        false => On::Call(format!("{name_in}({args})")),
    };
    let (on_instance, valued) = on.on(&instance);
    let expr = match f.kind {
        Kind::Function => format!("{}({args})", f.qualname),
        Kind::Method => on_instance,
        Kind::Property => format!("{instance}.{name_in}"),
        Kind::StaticMethod | Kind::ClassMethod => format!("{owner}.{name_in}({args})"),
        Kind::Init => format!("vars({owner}({args}))"),
        Kind::Setter => {
            return Call {
                setup: vec![format!("obj = {instance}")],
                statement: format!("obj.{name_in} = {args}"),
                expr: format!("obj.{name_in}"),
                method: None,
                valued: true,
            }
        }
    };
    let expr = if f.is_async { format!("asyncio.run({expr})") } else { expr };
    let method = (f.kind == Kind::Method).then_some((instance, on));
    let valued = valued || f.kind != Kind::Method;
    Call { setup: Vec::new(), statement: expr.clone(), expr, method, valued }
}

/// Whether `text` (a `repr`) is a Python literal that reads back as an equal value: numbers,
/// strings, bytes, `True`/`False`/`None`, and lists, tuples, dicts and sets of them.
pub fn is_literal(text: &str) -> bool {
    let mut parser = tree_sitter::Parser::new();
    if parser.set_language(&tree_sitter_python::LANGUAGE.into()).is_err() {
        return false;
    }
    let Some(tree) = parser.parse(text, None) else { return false };
    let root = tree.root_node();
    let Some(stmt) = root.named_child(0).filter(|_| root.named_child_count() == 1) else {
        return false;
    };
    if stmt.kind() != "expression_statement" || stmt.named_child_count() != 1 {
        return false;
    }
    fn literal_node(n: tree_sitter::Node<'_>) -> bool {
        if n.is_error() || n.is_missing() {
            return false;
        }
        match n.kind() {
            "integer" | "float" | "true" | "false" | "none" => true,
            "string" => {
                let mut c = n.walk();
                let ok = n.named_children(&mut c).all(|x| x.kind() != "interpolation");
                ok
            }
            "concatenated_string"
            | "list"
            | "tuple"
            | "dictionary"
            | "set"
            | "pair"
            | "parenthesized_expression" => {
                let mut c = n.walk();
                let ok = n.named_children(&mut c).all(literal_node);
                ok
            }
            "unary_operator" => {
                let mut c = n.walk();
                let ok = n.named_children(&mut c).all(|x| matches!(x.kind(), "integer" | "float"));
                ok
            }
            _ => false,
        }
    }
    !root.has_error() && stmt.named_child(0).is_some_and(literal_node)
}

/// Python's built-in exceptions that do not derive from `Exception`.
const NOT_EXCEPTIONS: [&str; 4] =
    ["BaseException", "SystemExit", "GeneratorExit", "KeyboardInterrupt"];

/// Python's built-in exceptions a test can name without an import.
const BUILTIN_EXCEPTIONS: [&str; 28] = [
    "Exception",
    "BaseException",
    "SystemExit",
    "GeneratorExit",
    "KeyboardInterrupt",
    "ArithmeticError",
    "AssertionError",
    "AttributeError",
    "EOFError",
    "FloatingPointError",
    "IndexError",
    "KeyError",
    "LookupError",
    "NotImplementedError",
    "OSError",
    "OverflowError",
    "RecursionError",
    "RuntimeError",
    "TypeError",
    "UnicodeDecodeError",
    "UnicodeEncodeError",
    "UnicodeError",
    "ValueError",
    "ZeroDivisionError",
    "FileNotFoundError",
    "PermissionError",
    "TimeoutError",
    "StopIteration",
];

/// How many items of a returned iterator the worker shows (`pytest_abex/worker.py`'s `ITEMS`).
const ITER_ITEMS: usize = 64;

/// The items of an iterator the worker showed by its first items (`iter([1, 2])`), as a list's
/// text (`[1, 2]`).
fn iter_items(value: &str) -> Option<&str> {
    value.strip_prefix("iter(")?.strip_suffix(')').filter(|l| l.starts_with('['))
}

/// `assert <expr> == <value>` as a person writes it: `is` for `True`, `False` and `None`, the
/// literal when `value` is one, else (with `literal` false too) the `repr` comparison.
fn assert_value(expr: &str, value: &str, literal: bool) -> String {
    match value {
        "True" | "False" | "None" if literal => format!("assert {expr} is {value}"),
        _ if literal && is_literal(value) => format!("assert {expr} == {value}"),
        _ => format!("assert repr({expr}) == {}", string(value)),
    }
}

/// The characters Python's `re` gives a meaning.
const REGEX_SPECIAL: &str = "\\.^$*+?{}[]|()";

/// `message` as a regular expression that matches it as it is (Python's `re.escape` of
/// [`REGEX_SPECIAL`]).
fn regex_escape(message: &str) -> String {
    let mut out = String::new();
    for c in message.chars() {
        if REGEX_SPECIAL.contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Whether a message can be matched by `pytest.raises(match=...)` as it is (no regex syntax).
fn plain_pattern(message: &str) -> bool {
    !message.chars().any(|c| REGEX_SPECIAL.contains(c))
}

/// The ways of writing the suggested test `name` for `witness`, most readable first: plain
/// value comparisons and `pytest.raises(Type)` where they can be written, then the `repr`
/// comparison the first ones fall back to (named by [`crate::testname::candidate`]). Empty
/// when the original's outcome cannot be asserted (a timeout, a crash, or a text cut for its
/// length, see [`crate::value::cut`]).
pub fn candidates(f: &Callee<'_>, w: &Witness, name: &str, why: &str) -> Vec<String> {
    crate::testname::readable_then_fallback(name, |n, readable| render(f, w, n, why, readable))
}

/// The suggested test `name` for `witness`: readable when `readable`, else with `repr` and the
/// exception's type name compared as text.
fn render(f: &Callee<'_>, w: &Witness, name: &str, why: &str, readable: bool) -> Option<String> {
    let case = case(f, w, readable)?;
    Some(test_def(name, why, &case.imports, &case.body))
}

/// One test named `name` that asserts every case of `cases` (witnesses of one function): a
/// `pytest.mark.parametrize` test when `parametrised` (`None` unless every case is a plain call
/// whose value is a literal), else the cases' statements one after the other, readable (`None`
/// when a case cannot be asserted).
pub fn joined(
    f: &Callee<'_>,
    cases: &[&Witness],
    name: &str,
    why: &str,
    parametrised: bool,
) -> Option<String> {
    if parametrised {
        return parametrized(f, cases, name, why);
    }
    let mut imports = BTreeSet::new();
    let mut body = String::new();
    for w in cases {
        let c = case(f, w, true)?;
        imports.extend(c.imports);
        body.push_str(&c.body);
    }
    Some(test_def(name, why, &imports, &body))
}

/// The parameter that carries the original's value in a parametrised test.
const EXPECTED: &str = "expected";

/// The parameter that carries the message a raised exception must match, where its mutant
/// raises the same type (`None` in the rows where the type is enough).
const MATCH: &str = "match";

/// `cases` as one `pytest.mark.parametrize` test over the function's parameters: a table of
/// values (with [`EXPECTED`], asserted equal) when every case returns a literal, or of inputs
/// that raise one exception (`pytest.raises`, with [`MATCH`] when some mutant raises it too)
/// when every case raises it. `None` otherwise, and unless the function is called plainly (no
/// instance, not `async`, no `*args`/`**kwargs`).
fn parametrized(f: &Callee<'_>, cases: &[&Witness], name: &str, why: &str) -> Option<String> {
    let plain = matches!(f.kind, Kind::Function | Kind::StaticMethod | Kind::ClassMethod);
    if !plain || f.receiver || f.is_async || cases.len() < 2 {
        return None;
    }
    let arity = cases[0].input.len();
    if arity == 0 || cases.iter().any(|w| w.input.len() != arity || w.original.is_cut()) {
        return None;
    }
    let owner = f.qualname.split('.').next().unwrap_or(f.qualname);
    let names: Vec<&str> = f.names.get(..arity)?.iter().map(String::as_str).collect();
    let distinct: BTreeSet<&str> = names.iter().copied().collect();
    let ours = [EXPECTED, MATCH, owner, "pytest"];
    let clash = |n: &str| !is_identifier(n) || ours.contains(&n);
    if distinct.len() != arity || names.iter().any(|n| clash(n)) {
        return None;
    }
    let mut args = Vec::new();
    for (i, n) in names.iter().enumerate() {
        match f.passes.get(i).copied().unwrap_or(Pass::Pos { only: false }) {
            Pass::Pos { .. } => args.push(n.to_string()),
            Pass::Kw => args.push(format!("{n}={n}")),
            // An `Unset` one's `None` means "not given", which a table's column cannot say.
            Pass::Unset | Pass::Star | Pass::StarStar => return None,
        }
    }
    let call = format!("{}({})", f.qualname, args.join(", "));
    let mut needs: BTreeSet<(String, String)> = BTreeSet::new();
    needs.insert((f.module.to_string(), owner.to_string()));
    // What every row asserts: its value, or the exception all of them raise.
    let raised = match &cases[0].original {
        Outcome::Ok { .. } => None,
        Outcome::Error { ty, .. } => Some(ty.clone()),
        _ => return None,
    };
    let mut rows = Vec::new();
    for w in cases {
        let (original, states) = w.original.split_after();
        let mutant_raises = |ty: &str| matches!(&w.mutant, Outcome::Error { ty: t, .. } if t == ty);
        let expected = match (&original, &raised) {
            (Outcome::Ok { value }, None) if is_literal(value) => value.clone(),
            (Outcome::Error { ty, message }, Some(all)) if ty == all && mutant_raises(ty) => {
                string(&regex_escape(message))
            }
            (Outcome::Error { ty, .. }, Some(all)) if ty == all => "None".into(),
            _ => return None,
        };
        if !states.is_empty() {
            return None;
        }
        let mut row = Vec::new();
        for (i, v) in w.input.iter().enumerate() {
            let ty = f.params.get(i).unwrap_or(&Ty::Any);
            imports(v, ty, &mut needs);
            row.push(literal(v, ty, f.tuples.get(i).copied().unwrap_or(false)));
        }
        rows.push((row, expected));
    }
    // A message column only when some row needs its message.
    let matches = raised.is_some() && rows.iter().any(|(_, m)| m != "None");
    let rows: Vec<String> = rows
        .into_iter()
        .map(|(mut row, last)| {
            if raised.is_none() || matches {
                row.push(last);
            }
            format!("        {},\n", tuple(row))
        })
        .collect();
    let mut columns: Vec<&str> = names.clone();
    let check = match &raised {
        None => {
            columns.push(EXPECTED);
            format!("    assert {call} == {EXPECTED}\n")
        }
        Some(ty) => {
            if !BUILTIN_EXCEPTIONS.contains(&ty.as_str()) {
                needs.insert((f.module.to_string(), ty.clone()));
            }
            let matching = if matches {
                columns.push(MATCH);
                format!(", match={MATCH}")
            } else {
                String::new()
            };
            format!("    with pytest.raises({ty}{matching}):\n        {call}\n")
        }
    };
    let quoted: Vec<String> = columns.iter().map(|n| string(n)).collect();
    let mut code = format!(
        "import pytest\n\n\n@pytest.mark.parametrize(\n    {},\n    [\n{}    ],\n)\n",
        tuple(quoted),
        rows.concat()
    );
    code.push_str(&format!("def {name}({}):\n    {}\n", columns.join(", "), string(why)));
    for (module, head) in &needs {
        code.push_str(&format!("    from {module} import {head}\n"));
    }
    code.push('\n');
    code.push_str(&check);
    Some(code)
}

/// What one case of a test needs: its import lines (`import pytest`, `from m import f`), and
/// its statements, indented as a test's body.
struct Case {
    imports: BTreeSet<String>,
    body: String,
}

/// `def name():` with `why` as its docstring, the imports (plain ones first) and `body`.
fn test_def(name: &str, why: &str, imports: &BTreeSet<String>, body: &str) -> String {
    let mut code = format!("def {name}():\n    {}\n", string(why));
    let (plain, from): (Vec<&String>, Vec<&String>) =
        imports.iter().partition(|l| l.starts_with("import "));
    for line in plain.into_iter().chain(from) {
        code.push_str(&format!("    {line}\n"));
    }
    code.push('\n');
    code.push_str(body);
    code
}

/// The case of `witness`: its call and the assertion of the original's outcome, readable when
/// `readable`.
fn case(f: &Callee<'_>, w: &Witness, readable: bool) -> Option<Case> {
    if w.original.is_cut() {
        return None; // the original's full value is not known: nothing to assert
    }
    // A method that changed its receiver: its state after the call follows the value (see
    // `value::AFTER`), and the test binds the receiver to assert it.
    let (original, states) = w.original.split_after();
    let mut call = call_of(f, &w.input, true);
    let receiver_state = match states.as_slice() {
        [] => None,
        [(name, state)] if name == "receiver" && f.receiver && !f.is_async => Some(state.clone()),
        _ => return None,
    };
    // A statement (`cache[0] = 1`) asserts no value: where the value is asserted, the method is
    // called by its name.
    let asserted = match &original {
        Outcome::Ok { value } => !(receiver_state.is_some() && value == "None"),
        _ => false,
    };
    if asserted && !call.valued {
        call = call_of(f, &w.input, false);
    }
    if receiver_state.is_some() {
        let (instance, on) = call.method.clone()?;
        call.setup.push(format!("receiver = {instance}"));
        call.statement = on.on("receiver").0;
        call.expr = call.statement.clone();
    }
    let mut needs: BTreeSet<(String, String)> = BTreeSet::new();
    for (i, v) in w.input.iter().enumerate() {
        imports(v, f.params.get(i).unwrap_or(&Ty::Any), &mut needs);
    }
    let owner = f.qualname.split('.').next().unwrap_or(f.qualname);
    needs.insert((f.module.to_string(), owner.to_string()));
    // The exception as `pytest.raises` names it: a builtin, or one the function's module has.
    let raised = match &original {
        Outcome::Error { ty, .. } if readable && !BUILTIN_EXCEPTIONS.contains(&ty.as_str()) => {
            needs.insert((f.module.to_string(), ty.clone()));
            Some(ty.clone())
        }
        Outcome::Error { ty, .. } if readable => Some(ty.clone()),
        _ => None,
    };
    let same_type = |ty: &str| matches!(&w.mutant, Outcome::Error { ty: t, .. } if t == ty);
    let pattern = match &original {
        Outcome::Error { ty, message } if same_type(ty) && !plain_pattern(message) => {
            Some(format!("re.escape({})", string(message)))
        }
        Outcome::Error { ty, message } if same_type(ty) => Some(string(message)),
        _ => None,
    };
    let mut imports = BTreeSet::new();
    if f.is_async {
        imports.insert("import asyncio".to_string());
    }
    if matches!(original, Outcome::Error { .. }) {
        imports.insert("import pytest".to_string());
    }
    if readable && pattern.as_deref().is_some_and(|p| p.starts_with("re.")) {
        imports.insert("import re".to_string());
    }
    for (module, head) in &needs {
        imports.insert(format!("from {module} import {head}"));
    }
    let mut code = String::new();
    for line in &call.setup {
        code.push_str(&format!("    {line}\n"));
    }
    match &original {
        Outcome::Ok { value } if receiver_state.is_some() && value == "None" => {
            code.push_str(&format!("    {}\n", call.statement));
        }
        Outcome::Ok { value } => {
            if call.statement != call.expr {
                code.push_str(&format!("    {}\n", call.statement));
            }
            // An iterator is asserted by its first items, as the worker showed it.
            let (expr, value) = match iter_items(value) {
                Some(items) => {
                    imports.insert("import itertools".to_string());
                    (format!("list(itertools.islice({}, {ITER_ITEMS}))", call.expr), items)
                }
                None => (call.expr.clone(), value.as_str()),
            };
            code.push_str(&format!("    {}\n", assert_value(&expr, value, readable)));
        }
        Outcome::Error { .. } if raised.is_some() => {
            let ty = raised.as_deref().unwrap_or("Exception");
            let matching = pattern.map(|p| format!(", match={p}")).unwrap_or_default();
            code.push_str(&format!(
                "    with pytest.raises({ty}{matching}):\n        {}\n",
                call.statement
            ));
        }
        Outcome::Error { ty, message } => {
            // `SystemExit` and the like are no `Exception`.
            let base =
                if NOT_EXCEPTIONS.contains(&ty.as_str()) { "BaseException" } else { "Exception" };
            code.push_str(&format!(
                "    with pytest.raises({base}) as raised:\n        {}\n",
                call.statement
            ));
            code.push_str(&format!("    assert type(raised.value).__name__ == {}\n", string(ty)));
            // The mutant raises the same type: only the message tells them apart.
            if same_type(ty) {
                code.push_str(&format!("    assert str(raised.value) == {}\n", string(message)));
            }
        }
        _ => return None,
    }
    if let Some(state) = receiver_state {
        let read = if state.starts_with('{') { "vars(receiver)" } else { "receiver" };
        code.push_str(&format!("    {}\n", assert_value(read, &state, readable)));
    }
    Some(Case { imports, body: code })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_follow_the_parameter_types() {
        let int = Ty::int(64, true);
        assert_eq!(literal(&Value::Int(3), &Ty::Float { bits: 64 }, false), "3.0");
        assert_eq!(
            literal(&Value::Str("NaN".into()), &Ty::Float { bits: 64 }, false),
            "float('nan')"
        );
        assert_eq!(literal(&Value::Str("a\"b\n".into()), &Ty::Str, false), r#""a\"b\n""#);
        assert_eq!(literal(&Value::List(vec![Value::Int(104)]), &Ty::Bytes, false), "bytes([104])");
        let list = Ty::List { item: Box::new(int.clone()) };
        let xs = Value::List(vec![Value::Int(1)]);
        assert_eq!(literal(&xs, &list, false), "[1]");
        assert_eq!(literal(&xs, &list, true), "(1,)");
        let map = Ty::Map { key: Box::new(int), value: Box::new(Ty::Bool) };
        let m = Value::Map(vec![("7".into(), Value::Bool(true))]);
        assert_eq!(literal(&m, &map, false), "{7: True}");
        assert_eq!(literal(&Value::Null, &Ty::Any, false), "None");
    }

    #[test]
    fn a_constructor_s_arguments_at_their_defaults_are_left_out() {
        // semantic_version 2.10.0's `Version(version_string=None, major=None, ..., partial=False)`
        // was written with all seven arguments.
        use crate::value::Ctor;
        let version = |form| Ty::Built {
            name: "m.Version".into(),
            ctors: vec![Ctor {
                name: "Version".into(),
                form,
                params: ["text", "major", "partial"].map(|n| (n.to_string(), Ty::Any)).to_vec(),
                seeds: Vec::new(),
                defaults: vec![
                    ("text".into(), Value::Null),
                    ("partial".into(), Value::Bool(false)),
                ],
            }],
        };
        let v = |args: Vec<Value>| Value::Built { ctor: "Version".into(), args };
        let whole = v(vec![Value::Null, Value::Int(1), Value::Bool(false)]);
        assert_eq!(literal(&whole, &version(CtorForm::Fields), false), "Version(major=1)");
        let partial = v(vec![Value::Str("1".into()), Value::Null, Value::Bool(true)]);
        assert_eq!(
            literal(&partial, &version(CtorForm::Fields), false),
            "Version(text=\"1\", major=None, partial=True)"
        );
        // By position, only those at the end: `None` for `text` stays before `1`.
        assert_eq!(literal(&whole, &version(CtorForm::Call), false), "Version(None, 1)");
        let text = v(vec![Value::Str("1.2.3".into()), Value::Null, Value::Bool(false)]);
        assert_eq!(literal(&text, &version(CtorForm::Call), false), "Version(\"1.2.3\", None)");
    }

    #[test]
    fn recipes_are_imported_and_methods_called_on_built_instances() {
        use crate::value::Ctor;
        let point = Ty::Built {
            name: "pkg.shapes.Point".into(),
            ctors: vec![Ctor {
                name: "Point".into(),
                form: CtorForm::Fields,
                params: vec![("x".into(), Ty::int(64, true)), ("y".into(), Ty::int(64, true))],
                seeds: Vec::new(),
                defaults: Vec::new(),
            }],
        };
        let date = crate::python::types::stdlib::ty("datetime.date", &[]).unwrap();
        let params = [point, date, Ty::List { item: Box::new(Ty::Str) }, Ty::Bool];
        let names: Vec<String> = ["self", "day", "rest", "strict"].map(String::from).to_vec();
        let passes = [Pass::Pos { only: true }, Pass::Pos { only: false }, Pass::Star, Pass::Kw];
        let f = Callee {
            qualname: "Point.shift",
            kind: Kind::Method,
            tuples: &[],
            names: &names,
            passes: &passes,
            receiver: true,
            is_async: true,
            ..Callee::function("pkg.shapes", "Point.shift", &params)
        };
        let w = Witness {
            input: vec![
                Value::Built { ctor: "Point".into(), args: vec![Value::Int(1), Value::Int(2)] },
                Value::Built {
                    ctor: "date".into(),
                    args: vec![Value::Int(2024), Value::Int(2), Value::Int(29)],
                },
                Value::List(vec![Value::Str("a".into())]),
                Value::Bool(true),
            ],
            original: Outcome::Ok { value: "3".into() },
            mutant: Outcome::Ok { value: "4".into() },
            found_by: "archive".into(),
            shrunk_from: None,
        };
        let code = render(&f, &w, "test_abex_shift_1", "why", false).unwrap();
        assert!(code.contains("    import asyncio\n"), "{code}");
        assert!(
            code.contains("    from datetime import date\n    from pkg.shapes import Point\n"),
            "{code}"
        );
        assert!(
            code.contains(
                r#"assert repr(asyncio.run(Point(x=1, y=2).shift(date(2024, 2, 29), "a", strict=True))) == "3""#
            ),
            "{code}"
        );
        assert_eq!(
            import_of("pkg.time.Unit", "Unit.SECONDS"),
            Some(("pkg.time".into(), "Unit".into()))
        );
        assert_eq!(import_of("builtins.set", "set"), None);
        // A property's setter sets, then asserts what reads back.
        let ints = [Ty::int(64, true)];
        let setter =
            Callee { kind: Kind::Setter, ..Callee::function("pkg.c", "Counter.start", &ints) };
        let w = Witness { input: vec![Value::Int(3)], ..w };
        let code = render(&setter, &w, "test_abex_start_1", "why", false).unwrap();
        assert!(
            code.contains(
                "    obj = Counter()\n    obj.start = 3\n    assert repr(obj.start) == \"3\"\n"
            ),
            "{code}"
        );
    }

    #[test]
    fn a_dunder_method_is_called_by_its_operator() {
        // cachetools 5.5.0's `Cache.__setitem__` was written `Cache(maxsize=0).__setitem__(0,
        // None)`; a person writes `cache[0] = None`.
        let cache = Ty::Built {
            name: "pkg.Cache".into(),
            ctors: vec![crate::value::Ctor {
                name: "Cache".into(),
                form: CtorForm::Fields,
                params: vec![("maxsize".into(), Ty::int(64, true))],
                seeds: Vec::new(),
                defaults: Vec::new(),
            }],
        };
        let params = [cache, Ty::Any, Ty::Any];
        let names: Vec<String> = ["self", "key", "value"].map(String::from).to_vec();
        let passes = [Pass::Pos { only: false }; 3];
        let method = |qualname: &'static str, n: usize| Callee {
            qualname,
            kind: Kind::Method,
            names: &names[..n],
            passes: &passes[..n],
            receiver: true,
            ..Callee::function("pkg", qualname, &params[..n])
        };
        let receiver = Value::Built { ctor: "Cache".into(), args: vec![Value::Int(0)] };
        let witness = |input: Vec<Value>, original: Outcome| Witness {
            input,
            original,
            mutant: Outcome::Ok { value: "7".into() },
            found_by: "archive".into(),
            shrunk_from: None,
        };
        let raised = Outcome::Error { ty: "ValueError".into(), message: "value too large".into() };
        let (set, two) = (method("Cache.__setitem__", 3), vec![receiver.clone(), Value::Int(0)]);
        let both = [two.clone(), vec![Value::Null]].concat();
        let code = render(&set, &witness(both.clone(), raised), "test_t", "why", true).unwrap();
        assert!(
            code.contains("pytest.raises(ValueError):\n        Cache(maxsize=0)[0] = None\n"),
            "{code}"
        );
        // The state after it: the statement, then the receiver.
        let changed =
            Outcome::Ok { value: format!("None{}receiver = {{'n': 1}}", crate::value::AFTER) };
        let code = render(&set, &witness(both.clone(), changed), "test_t", "why", true).unwrap();
        assert!(code.contains("    receiver = Cache(maxsize=0)\n    receiver[0] = None\n    assert vars(receiver) == {'n': 1}\n"), "{code}");
        // A value to assert: the statement has none, so the method is called by its name.
        let valued = Outcome::Ok { value: "3".into() };
        let code = render(&set, &witness(both, valued), "test_t", "why", true).unwrap();
        assert!(code.contains("assert Cache(maxsize=0).__setitem__(0, None) == 3"), "{code}");
        let (get, has, len) = (
            method("Cache.__getitem__", 2),
            method("Cache.__contains__", 2),
            method("Cache.__len__", 1),
        );
        let three = Outcome::Ok { value: "3".into() };
        let code =
            render(&get, &witness(two.clone(), three.clone()), "test_t", "why", true).unwrap();
        assert!(code.contains("assert Cache(maxsize=0)[0] == 3"), "{code}");
        let yes = Outcome::Ok { value: "True".into() };
        let code = render(&has, &witness(two, yes), "test_t", "why", true).unwrap();
        assert!(code.contains("assert (0 in Cache(maxsize=0)) is True"), "{code}");
        let code = render(&len, &witness(vec![receiver], three), "test_t", "why", true).unwrap();
        assert!(code.contains("assert len(Cache(maxsize=0)) == 3"), "{code}");
    }

    #[test]
    fn a_returned_iterator_is_asserted_by_its_first_items() {
        // toolz 0.12.1's `partition_all` returns a generator: the worker shows its items.
        let params = [Ty::int(64, true)];
        let f = Callee::function("toolz.itertoolz", "partition_all", &params);
        let w = Witness {
            input: vec![Value::Int(2)],
            original: Outcome::Ok { value: "iter([(1, 2), (3,)])".into() },
            mutant: Outcome::Ok { value: "iter([(1, 2)])".into() },
            found_by: "archive".into(),
            shrunk_from: None,
        };
        let code = render(&f, &w, "test_abex_partition_all_1", "why", true).unwrap();
        assert!(code.contains("    import itertools\n"), "{code}");
        assert!(
            code.contains(
                "    assert list(itertools.islice(partition_all(2), 64)) == [(1, 2), (3,)]\n"
            ),
            "{code}"
        );
        // Not readable: the list's repr, still of the items.
        let code = render(&f, &w, "test_abex_partition_all_1", "why", false).unwrap();
        assert!(
            code.contains(
                "assert repr(list(itertools.islice(partition_all(2), 64))) == \"[(1, 2), (3,)]\""
            ),
            "{code}"
        );
    }

    /// `grade(90)` is `'A'` on the original, `'B'` on the mutant.
    fn grade_a_not_b() -> Witness {
        Witness {
            input: vec![Value::Int(90)],
            original: Outcome::Ok { value: "'A'".into() },
            mutant: Outcome::Ok { value: "'B'".into() },
            found_by: "archive".into(),
            shrunk_from: None,
        }
    }

    #[test]
    fn a_test_asserts_the_original_outcome() {
        let params = [Ty::int(64, true)];
        let f = Callee::function("pkg.grades", "grade", &params);
        let w = grade_a_not_b();
        let code = render(&f, &w, "test_abex_grade_1", "abex: pins grade", false).unwrap();
        assert!(code.contains("from pkg.grades import grade\n"), "{code}");
        assert!(code.contains("assert repr(grade(90)) == \"'A'\"\n"), "{code}");
        let e = Witness {
            original: Outcome::Error { ty: "ValueError".into(), message: "m".into() },
            ..w
        };
        let f = Callee { qualname: "Grader.grade", kind: Kind::Method, ..f };
        let code = render(&f, &e, "test_abex_grade_2", "why", false).unwrap();
        assert!(code.contains("from pkg.grades import Grader\n"), "{code}");
        assert!(code.contains("Grader().grade(90)"), "{code}");
        assert!(code.contains("== \"ValueError\""), "{code}");
        assert!(!code.contains("str(raised.value)"), "{code}");
        // Same exception type on the mutant: the message is asserted too.
        let same_type = Witness {
            mutant: Outcome::Error { ty: "ValueError".into(), message: "other".into() },
            ..e.clone()
        };
        let code = render(&f, &same_type, "test_abex_grade_3", "why", false).unwrap();
        assert!(code.contains("assert str(raised.value) == \"m\"\n"), "{code}");
        // A value cut for its length cannot be asserted.
        let cut =
            Witness { original: Outcome::Ok { value: crate::value::cut("x".repeat(10_000)) }, ..e };
        assert!(candidates(&f, &cut, "test_abex_grade_4", "why").is_empty());
    }

    #[test]
    fn arguments_equal_to_their_literal_defaults_are_left_out_where_the_call_reads_the_same() {
        // `bytes2human(nbytes, ndigits=0, unit="B", *, exact=False)`: boltons 24.1.0's
        // `bytes2human(1073741824, 0)` reads `bytes2human(1073741824)`.
        let int = Ty::int(64, true);
        let params = [int.clone(), int.clone(), Ty::Str, Ty::Bool];
        let names: Vec<String> = ["nbytes", "ndigits", "unit", "exact"].map(String::from).to_vec();
        let passes = [
            Pass::Pos { only: false },
            Pass::Pos { only: false },
            Pass::Pos { only: false },
            Pass::Kw,
        ];
        let defaults = [
            ("ndigits".to_string(), Value::Int(0)),
            ("unit".to_string(), Value::Str("B".into())),
            ("exact".to_string(), Value::Bool(false)),
        ];
        let f = Callee {
            names: &names,
            passes: &passes,
            defaults: &defaults,
            ..Callee::function("boltons.strutils", "bytes2human", &params)
        };
        let call = |input: Vec<Value>| call_of(&f, &input, true).expr;
        let (n, s) = (|x| Value::Int(x), |x: &str| Value::Str(x.into()));
        let no = Value::Bool(false);
        assert_eq!(call(vec![n(1 << 30), n(0), s("B"), no.clone()]), "bytes2human(1073741824)");
        // A default before an argument that is not one stays: the call needs it in its place.
        assert_eq!(call(vec![n(7), n(0), s("K"), no.clone()]), "bytes2human(7, 0, \"K\")");
        assert_eq!(
            call(vec![n(7), n(2), s("B"), Value::Bool(true)]),
            "bytes2human(7, 2, exact=True)"
        );
        // A float is its default bit for bit only: -0.0 is not 0.0.
        let floats = [Ty::Float { bits: 64 }];
        let zero = [("x".to_string(), Value::Float(0.0))];
        let x = vec!["x".to_string()];
        let g = Callee { names: &x, defaults: &zero, ..Callee::function("m", "g", &floats) };
        assert_eq!(call_of(&g, &[Value::Float(-0.0)], true).expr, "g(-0.0)");
        assert_eq!(call_of(&g, &[Value::Float(0.0)], true).expr, "g()");
    }

    #[test]
    fn readable_tests_compare_literals_and_name_the_exception() {
        let params = [Ty::int(64, true)];
        let f = Callee::function("pkg.grades", "grade", &params);
        let w = grade_a_not_b();
        let tests = candidates(&f, &w, "test_grade_is_a_for_90", "why");
        assert_eq!(tests.len(), 2, "{tests:?}");
        assert!(tests[0].contains("    assert grade(90) == 'A'\n"), "{}", tests[0]);
        assert!(tests[1].starts_with("def test_grade_is_a_for_90__abex_alt1():"), "{}", tests[1]);
        assert!(tests[1].contains("assert repr(grade(90)) == \"'A'\""), "{}", tests[1]);
        let none = Witness { original: Outcome::Ok { value: "None".into() }, ..w.clone() };
        assert!(candidates(&f, &none, "t", "why")[0].contains("assert grade(90) is None\n"));
        // Not a literal: the repr comparison is the only way.
        let obj =
            Witness { original: Outcome::Ok { value: "<A object at 0x1>".into() }, ..w.clone() };
        let tests = candidates(&f, &obj, "t", "why");
        assert_eq!(tests.len(), 1);
        assert!(tests[0].contains("assert repr(grade(90)) =="), "{}", tests[0]);
        let raised = Witness {
            original: Outcome::Error { ty: "ValueError".into(), message: "bad (90)".into() },
            mutant: Outcome::Error { ty: "ValueError".into(), message: "other".into() },
            ..w.clone()
        };
        let code = &candidates(&f, &raised, "t", "why")[0];
        assert!(
            code.contains("    with pytest.raises(ValueError, match=re.escape(\"bad (90)\")):\n        grade(90)\n"),
            "{code}"
        );
        let own = Witness {
            original: Outcome::Error { ty: "GradeError".into(), message: "m".into() },
            mutant: Outcome::Ok { value: "'B'".into() },
            ..w
        };
        let code = &candidates(&f, &own, "t", "why")[0];
        assert!(code.contains("from pkg.grades import GradeError\n"), "{code}");
        assert!(code.contains("with pytest.raises(GradeError):\n"), "{code}");
        // `sys.exit(2)`: a `BaseException`, named without an import, caught by its fall-back.
        let exits = Witness {
            original: Outcome::Error { ty: "SystemExit".into(), message: "2".into() },
            mutant: Outcome::Ok { value: "'B'".into() },
            ..own
        };
        let tests = candidates(&f, &exits, "t", "why");
        assert!(
            tests[0].contains("    with pytest.raises(SystemExit):\n        grade(90)\n"),
            "{}",
            tests[0]
        );
        assert!(!tests[0].contains("import SystemExit"), "{}", tests[0]);
        assert!(
            tests[1].contains("with pytest.raises(BaseException) as raised:\n"),
            "{}",
            tests[1]
        );
    }

    #[test]
    fn joined_cases_are_one_parametrised_test_or_one_test_with_each_case() {
        let params = [Ty::int(64, true)];
        let names = vec!["score".to_string()];
        let f = Callee { names: &names, ..Callee::function("pkg.grades", "grade", &params) };
        let a = grade_a_not_b();
        let b = Witness {
            input: vec![Value::Int(89)],
            original: Outcome::Ok { value: "'B'".into() },
            ..a.clone()
        };
        let code = joined(&f, &[&b, &a], "test_grade_at_89_and_90", "why", true).unwrap();
        assert_eq!(
            code,
            "import pytest\n\n\n@pytest.mark.parametrize(\n    (\"score\", \"expected\"),\n    [\n        (89, 'B'),\n        (90, 'A'),\n    ],\n)\ndef test_grade_at_89_and_90(score, expected):\n    \"why\"\n    from pkg.grades import grade\n\n    assert grade(score) == expected\n"
        );
        // A case that raises is no row of a table; each case's statements, under one set of
        // imports, are.
        let raises = Witness {
            original: Outcome::Error { ty: "ValueError".into(), message: "m".into() },
            ..a.clone()
        };
        assert!(joined(&f, &[&b, &raises], "t", "why", true).is_none());
        // Inputs that raise one exception (the mutants do not) are a table of their own.
        let other = Witness { input: vec![Value::Int(-1)], ..raises.clone() };
        let code = joined(&f, &[&other, &raises], "t", "why", true).unwrap();
        assert!(
            code.contains("    (\"score\",),\n    [\n        (-1,),\n        (90,),\n    ],\n)\ndef t(score):\n"),
            "{code}"
        );
        assert!(
            code.ends_with("\n    with pytest.raises(ValueError):\n        grade(score)\n"),
            "{code}"
        );
        // Where a mutant raises the same type, its row carries the message to match.
        let same_type = Witness {
            original: Outcome::Error { ty: "ValueError".into(), message: "bad (-1)".into() },
            mutant: Outcome::Error { ty: "ValueError".into(), message: "other".into() },
            ..other
        };
        let code = joined(&f, &[&same_type, &raises], "t", "why", true).unwrap();
        assert!(
            code.contains("    (\"score\", \"match\"),\n    [\n        (-1, \"bad \\\\(-1\\\\)\"),\n        (90, None),\n    ],\n)\ndef t(score, match):\n"),
            "{code}"
        );
        assert!(
            code.ends_with(
                "    with pytest.raises(ValueError, match=match):\n        grade(score)\n"
            ),
            "{code}"
        );
        let code = joined(&f, &[&b, &raises], "t", "why", false).unwrap();
        assert_eq!(
            code,
            "def t():\n    \"why\"\n    import pytest\n    from pkg.grades import grade\n\n    assert grade(89) == 'B'\n    with pytest.raises(ValueError):\n        grade(90)\n"
        );
        let code = joined(&f, &[&b, &a], "t", "why", false).unwrap();
        assert!(
            code.ends_with("    assert grade(89) == 'B'\n    assert grade(90) == 'A'\n"),
            "{code}"
        );
        // A name the test needs for itself is no parameter's name.
        let clash = vec!["expected".to_string()];
        let f = Callee { names: &clash, ..f };
        assert!(joined(&f, &[&b, &a], "t", "why", true).is_none());
    }

    #[test]
    fn literals_are_told_from_other_reprs() {
        for lit in [
            "5",
            "-5",
            "0.05",
            "'a'",
            "\"b\"",
            "[1, 'a']",
            "(1,)",
            "{'k': [1.5]}",
            "{1, 2}",
            "True",
            "None",
            "b'x'",
            "-1e-05",
        ] {
            assert!(is_literal(lit), "{lit}");
        }
        for not in [
            "nan",
            "inf",
            "Decimal('1.5')",
            "<Color.RED: 1>",
            "Point(x=1, y=2)",
            "set()",
            "f'{x}'",
            "1 +",
            "datetime.date(2024, 1, 1)",
        ] {
            assert!(!is_literal(not), "{not}");
        }
    }
}
