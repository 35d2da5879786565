//! Suggested pytest tests: a test function that calls the target on a witness input and checks
//! the original's outcome (its `repr`, or the exception type it raises), so that it passes on
//! the original and fails on the mutant. abex runs it both ways before it suggests it.

use crate::report::Witness;
use crate::value::{CtorForm, Outcome, Ty, Value};

use super::source::Kind;

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

/// The suggested test `name` for `witness`, or `None` when the original's outcome cannot be
/// asserted (a timeout, a crash, or a text cut for its length, see [`crate::value::cut`]).
pub fn test_fn(f: &Callee<'_>, w: &Witness, name: &str, why: &str) -> Option<String> {
    if w.original.is_cut() {
        return None; // the original's full value is not known: nothing to assert
    }
    let args: Vec<String> = w
        .input
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let ty = f.params.get(i).cloned().unwrap_or(Ty::Any);
            literal(v, &ty, f.tuples.get(i).copied().unwrap_or(false))
        })
        .collect();
    let (owner, name_in) = match f.qualname.rsplit_once('.') {
        Some((c, n)) => (c, n),
        None => (f.qualname, f.qualname),
    };
    let call = match f.kind {
        Kind::Function => format!("{}({})", f.qualname, args.join(", ")),
        Kind::Method => format!("{owner}().{name_in}({})", args.join(", ")),
        Kind::StaticMethod | Kind::ClassMethod => format!("{owner}.{name_in}({})", args.join(", ")),
    };
    let import_name = if f.kind == Kind::Function { f.qualname } else { owner };
    let mut code = format!("def {name}():\n    {}\n", string(why));
    if matches!(w.original, Outcome::Error { .. }) {
        code.push_str("    import pytest\n");
    }
    code.push_str(&format!("    from {} import {import_name}\n\n", f.module));
    match &w.original {
        Outcome::Ok { value } => {
            code.push_str(&format!("    assert repr({call}) == {}\n", string(value)));
        }
        Outcome::Error { ty, message } => {
            code.push_str(&format!(
                "    with pytest.raises(Exception) as raised:\n        {call}\n"
            ));
            code.push_str(&format!("    assert type(raised.value).__name__ == {}\n", string(ty)));
            // The mutant raises the same type: only the message tells them apart.
            if matches!(&w.mutant, Outcome::Error { ty: t, .. } if t == ty) {
                code.push_str(&format!("    assert str(raised.value) == {}\n", string(message)));
            }
        }
        _ => return None,
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
    fn a_test_asserts_the_original_outcome() {
        let params = [Ty::int(64, true)];
        let f = Callee {
            module: "pkg.grades",
            qualname: "grade",
            kind: Kind::Function,
            params: &params,
            tuples: &[false],
        };
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
