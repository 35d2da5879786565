//! The standard library's value types, as recipes: `datetime.date(2024, 2, 29)`,
//! `timedelta(days=1, seconds=30.0)`, `Decimal("1.5")`, `Fraction(1, 3)`, `Path("a.txt")`,
//! `UUID(int=5)`, `set([1, 2])`. Each has seeds that are valid values, so that half of the
//! generated ones are, and the explorer steps from them to the edges (`date(2024, 2, 30)`).

use crate::value::{Ctor, CtorForm, Ty, Value};

fn int(bits: u8, signed: bool) -> Ty {
    Ty::int(bits, signed)
}

fn ints(rows: &[&[i128]]) -> Vec<Vec<Value>> {
    rows.iter().map(|r| r.iter().map(|i| Value::Int(*i)).collect()).collect()
}

fn strs(rows: &[&str]) -> Vec<Vec<Value>> {
    rows.iter().map(|s| vec![Value::Str((*s).to_string())]).collect()
}

fn call(name: &str, params: &[(&str, Ty)], seeds: Vec<Vec<Value>>) -> Ctor {
    let params = params.iter().map(|(n, t)| ((*n).to_string(), t.clone())).collect();
    Ctor { name: name.to_string(), form: CtorForm::Call, params, seeds, defaults: Vec::new() }
}

fn built(name: &str, ctors: Vec<Ctor>) -> Ty {
    Ty::Built { name: name.to_string(), ctors }
}

/// The built type of the standard library's `path` (`datetime.date`, `pathlib.Path`, …) with
/// its subscript `args` mapped already (for `set[T]`), or `None` when it is not one.
pub fn ty(path: &str, args: &[Ty]) -> Option<Ty> {
    let item = || args.first().cloned().unwrap_or(Ty::Any);
    Some(match path {
        "datetime.date" => built(
            path,
            vec![call(
                "date",
                &[("year", int(16, false)), ("month", int(8, false)), ("day", int(8, false))],
                ints(&[&[2024, 2, 29], &[2023, 12, 31], &[2000, 1, 1], &[1970, 1, 1]]),
            )],
        ),
        "datetime.datetime" => built(
            path,
            vec![call(
                "datetime",
                &[
                    ("year", int(16, false)),
                    ("month", int(8, false)),
                    ("day", int(8, false)),
                    ("hour", int(8, false)),
                    ("minute", int(8, false)),
                    ("second", int(8, false)),
                ],
                ints(&[
                    &[2024, 2, 29, 12, 30, 0],
                    &[2023, 12, 31, 23, 59, 59],
                    &[2000, 1, 1, 0, 0, 0],
                ]),
            )],
        ),
        "datetime.time" => built(
            path,
            vec![call(
                "time",
                &[("hour", int(8, false)), ("minute", int(8, false)), ("second", int(8, false))],
                ints(&[&[0, 0, 0], &[12, 30, 0], &[23, 59, 59]]),
            )],
        ),
        "datetime.timedelta" => {
            let mut c = call(
                "timedelta",
                &[("days", int(32, true)), ("seconds", Ty::Float { bits: 64 })],
                vec![
                    vec![Value::Int(0), Value::Float(0.0)],
                    vec![Value::Int(0), Value::Float(59.0)],
                    vec![Value::Int(0), Value::Float(3600.0)],
                    vec![Value::Int(1), Value::Float(0.0)],
                    vec![Value::Int(365), Value::Float(0.0)],
                ],
            );
            c.form = CtorForm::Fields;
            built(path, vec![c])
        }
        "decimal.Decimal" => built(
            path,
            vec![call(
                "Decimal",
                &[("value", Ty::Union { options: vec![int(64, true), Ty::Str] })],
                strs(&["0", "1.5", "-2.25", "100", "0.001", "1E+3", "NaN", "Infinity"]),
            )],
        ),
        "fractions.Fraction" => built(
            path,
            vec![call(
                "Fraction",
                &[("numerator", int(64, true)), ("denominator", int(64, true))],
                ints(&[&[1, 2], &[3, 1], &[-1, 3], &[0, 1]]),
            )],
        ),
        "pathlib.Path" | "pathlib.PurePath" | "pathlib.PosixPath" | "pathlib.PurePosixPath" => {
            let short = path.rsplit('.').next().unwrap_or("Path");
            built(
                path,
                vec![call(
                    short,
                    &[("path", Ty::Str)],
                    strs(&["a.txt", "dir/file.tar.gz", "/", "", ".", ".hidden", "a/../b"]),
                )],
            )
        }
        "uuid.UUID" => {
            let mut c = call("UUID", &[("int", int(128, false))], ints(&[&[0], &[1]]));
            c.form = CtorForm::Fields;
            built(path, vec![c])
        }
        "builtins.set" | "builtins.frozenset" => {
            let short = &path["builtins.".len()..];
            let list = Ty::List { item: Box::new(item()) };
            built(path, vec![call(short, &[("items", list)], Vec::new())])
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::python::suggest::literal;

    #[test]
    fn standard_types_are_recipes_people_write() {
        let date = ty("datetime.date", &[]).unwrap();
        let v = Value::Built {
            ctor: "date".into(),
            args: vec![Value::Int(2024), Value::Int(2), Value::Int(29)],
        };
        assert_eq!(literal(&v, &date, false), "date(2024, 2, 29)");
        let td = ty("datetime.timedelta", &[]).unwrap();
        let v =
            Value::Built { ctor: "timedelta".into(), args: vec![Value::Int(1), Value::Float(0.5)] };
        assert_eq!(literal(&v, &td, false), "timedelta(days=1, seconds=0.5)");
        let set = ty("builtins.frozenset", &[Ty::Str]).unwrap();
        let v = Value::Built {
            ctor: "frozenset".into(),
            args: vec![Value::List(vec![Value::Str("a".into())])],
        };
        assert_eq!(literal(&v, &set, false), "frozenset([\"a\"])");
        let dec = ty("decimal.Decimal", &[]).unwrap();
        let v = Value::Built { ctor: "Decimal".into(), args: vec![Value::Str("1.5".into())] };
        assert_eq!(literal(&v, &dec, false), "Decimal(\"1.5\")");
        assert!(ty("collections.OrderedDict", &[]).is_none());
    }
}
