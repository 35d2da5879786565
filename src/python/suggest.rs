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
        }
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
            let parts: Vec<String> =
                c.params.iter().zip(args).map(|((_, t), x)| literal(x, t, false)).collect();
            match c.form {
                CtorForm::Unit => c.name.clone(),
                CtorForm::Call => format!("{}({})", c.name, parts.join(", ")),
                CtorForm::Fields => {
                    let named: Vec<String> =
                        c.params.iter().zip(&parts).map(|((n, _), p)| format!("{n}={p}")).collect();
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
    method: Option<(String, String)>,
}

fn call_of(f: &Callee<'_>, input: &[Value]) -> Call {
    let mut positional: Vec<String> = Vec::new();
    let mut named: Vec<String> = Vec::new();
    let mut receiver = None;
    for (i, v) in input.iter().enumerate() {
        let ty = f.params.get(i).cloned().unwrap_or(Ty::Any);
        let lit = |v: &Value, t: &Ty| literal(v, t, f.tuples.get(i).copied().unwrap_or(false));
        let name = f.names.get(i).map(String::as_str).unwrap_or("");
        match (f.passes.get(i).copied().unwrap_or(Pass::Pos { only: false }), v, &ty) {
            _ if i == 0 && f.receiver => receiver = Some(literal(v, &ty, false)),
            (Pass::Kw, _, _) => named.push(format!("{name}={}", lit(v, &ty))),
            (Pass::Star, Value::List(items), Ty::List { item }) => {
                positional.extend(items.iter().map(|x| literal(x, item, false)))
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
            _ => positional.push(lit(v, &ty)),
        }
    }
    let args = positional.into_iter().chain(named).collect::<Vec<_>>().join(", ");
    let (owner, name_in) = match f.qualname.rsplit_once('.') {
        Some((c, n)) => (c, n),
        None => (f.qualname, f.qualname),
    };
    let instance = receiver.unwrap_or_else(|| format!("{owner}()"));
    let expr = match f.kind {
        Kind::Function => format!("{}({args})", f.qualname),
        Kind::Method => format!("{instance}.{name_in}({args})"),
        Kind::Property => format!("{instance}.{name_in}"),
        Kind::StaticMethod | Kind::ClassMethod => format!("{owner}.{name_in}({args})"),
        Kind::Init => format!("vars({owner}({args}))"),
        Kind::Setter => {
            return Call {
                setup: vec![format!("obj = {instance}")],
                statement: format!("obj.{name_in} = {args}"),
                expr: format!("obj.{name_in}"),
                method: None,
            }
        }
    };
    let expr = if f.is_async { format!("asyncio.run({expr})") } else { expr };
    let method = (f.kind == Kind::Method).then(|| (instance, format!("{name_in}({args})")));
    Call { setup: Vec::new(), statement: expr.clone(), expr, method }
}

/// The suggested test `name` for `witness`, or `None` when the original's outcome cannot be
/// asserted (a timeout, a crash, or a text cut for its length, see [`crate::value::cut`]).
pub fn test_fn(f: &Callee<'_>, w: &Witness, name: &str, why: &str) -> Option<String> {
    if w.original.is_cut() {
        return None; // the original's full value is not known: nothing to assert
    }
    // A method that changed its receiver: its state after the call follows the value (see
    // `value::AFTER`), and the test binds the receiver to assert it.
    let (original, states) = w.original.split_after();
    let mut call = call_of(f, &w.input);
    let receiver_state = match states.as_slice() {
        [] => None,
        [(name, state)] if name == "receiver" && f.receiver && !f.is_async => {
            let (instance, method) = call.method.clone()?;
            call.setup.push(format!("receiver = {instance}"));
            call.statement = format!("receiver.{method}");
            call.expr = call.statement.clone();
            Some(state.clone())
        }
        _ => return None,
    };
    let mut needs: BTreeSet<(String, String)> = BTreeSet::new();
    for (i, v) in w.input.iter().enumerate() {
        imports(v, f.params.get(i).unwrap_or(&Ty::Any), &mut needs);
    }
    let owner = f.qualname.split('.').next().unwrap_or(f.qualname);
    needs.insert((f.module.to_string(), owner.to_string()));
    let mut code = format!("def {name}():\n    {}\n", string(why));
    if f.is_async {
        code.push_str("    import asyncio\n");
    }
    if matches!(original, Outcome::Error { .. }) {
        code.push_str("    import pytest\n");
    }
    for (module, head) in &needs {
        code.push_str(&format!("    from {module} import {head}\n"));
    }
    code.push('\n');
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
            code.push_str(&format!("    assert repr({}) == {}\n", call.expr, string(value)));
        }
        Outcome::Error { ty, message } => {
            code.push_str(&format!(
                "    with pytest.raises(Exception) as raised:\n        {}\n",
                call.statement
            ));
            code.push_str(&format!("    assert type(raised.value).__name__ == {}\n", string(ty)));
            // The mutant raises the same type: only the message tells them apart.
            if matches!(&w.mutant, Outcome::Error { ty: t, .. } if t == ty) {
                code.push_str(&format!("    assert str(raised.value) == {}\n", string(message)));
            }
        }
        _ => return None,
    }
    if let Some(state) = receiver_state {
        let read = if state.starts_with('{') { "vars(receiver)" } else { "receiver" };
        code.push_str(&format!("    assert repr({read}) == {}\n", string(&state)));
    }
    Some(code)
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
    fn recipes_are_imported_and_methods_called_on_built_instances() {
        use crate::value::Ctor;
        let point = Ty::Built {
            name: "pkg.shapes.Point".into(),
            ctors: vec![Ctor {
                name: "Point".into(),
                form: CtorForm::Fields,
                params: vec![("x".into(), Ty::int(64, true)), ("y".into(), Ty::int(64, true))],
                seeds: Vec::new(),
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
        };
        let code = test_fn(&f, &w, "test_abex_shift_1", "why").unwrap();
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
        let code = test_fn(&setter, &w, "test_abex_start_1", "why").unwrap();
        assert!(
            code.contains(
                "    obj = Counter()\n    obj.start = 3\n    assert repr(obj.start) == \"3\"\n"
            ),
            "{code}"
        );
    }

    #[test]
    fn a_test_asserts_the_original_outcome() {
        let params = [Ty::int(64, true)];
        let f = Callee::function("pkg.grades", "grade", &params);
        let w = Witness {
            input: vec![Value::Int(90)],
            original: Outcome::Ok { value: "'A'".into() },
            mutant: Outcome::Ok { value: "'B'".into() },
            found_by: "archive".into(),
        };
        let code = test_fn(&f, &w, "test_abex_grade_1", "abex: pins grade").unwrap();
        assert!(code.contains("from pkg.grades import grade\n"), "{code}");
        assert!(code.contains("assert repr(grade(90)) == \"'A'\"\n"), "{code}");
        let e = Witness {
            original: Outcome::Error { ty: "ValueError".into(), message: "m".into() },
            ..w
        };
        let f = Callee { qualname: "Grader.grade", kind: Kind::Method, ..f };
        let code = test_fn(&f, &e, "test_abex_grade_2", "why").unwrap();
        assert!(code.contains("from pkg.grades import Grader\n"), "{code}");
        assert!(code.contains("Grader().grade(90)"), "{code}");
        assert!(code.contains("== \"ValueError\""), "{code}");
        assert!(!code.contains("str(raised.value)"), "{code}");
        // Same exception type on the mutant: the message is asserted too.
        let same_type = Witness {
            mutant: Outcome::Error { ty: "ValueError".into(), message: "other".into() },
            ..e.clone()
        };
        let code = test_fn(&f, &same_type, "test_abex_grade_3", "why").unwrap();
        assert!(code.contains("assert str(raised.value) == \"m\"\n"), "{code}");
        // A value cut for its length cannot be asserted.
        let cut =
            Witness { original: Outcome::Ok { value: crate::value::cut("x".repeat(10_000)) }, ..e };
        assert!(test_fn(&f, &cut, "test_abex_grade_4", "why").is_none());
    }
}
