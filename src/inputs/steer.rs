//! Steering by the compared values (input-to-state correspondence, as Redqueen does for
//! fuzzers): when a guard on the way to a site compares `a` with `b` and goes the wrong way,
//! the variables of the input that hold `a` are set to `b` (and `b ± 1`, for `<` and `>`), one
//! at a time and all at once, and those that hold `b` to `a`. A guard reads a field of an
//! argument (`cmp.major > 0`), which the input holds wherever its constructor put it: a field
//! of a struct literal, a number of a string a parser reads (`"1.2.3"`), an integer argument;
//! the value says where, whatever the construction. Setting all the variables that hold a value
//! at once keeps the guards that compare two fields equal (`ver.major != cmp.major`) while it
//! moves both.
//!
//! Past the site, no probe says what a masked input lacks, and a comparison of values that are
//! not numbers (`ver.pre > cmp.pre`) has no distance; such comparisons most often read two
//! fields (`ver.minor != minor`), so [`equalised`] makes each number of the input equal to
//! another one, and each string equal to another one or empty.

use super::moves::{self, Kind, Var};
use crate::value::Args;

/// How many inputs [`candidates`] makes at most.
const MAX: usize = 64;

/// The inputs made from `x` (whose variables are `vars`) by setting the variables that hold
/// one operand of each of `pairs` (as the worker wrote them) to the other, at most [`MAX`].
pub(crate) fn candidates(x: &Args, vars: &[Var], pairs: &[[String; 2]]) -> Vec<Args> {
    let mut out: Vec<Args> = Vec::new();
    let add = |y: Option<Args>, out: &mut Vec<Args>| {
        if let Some(y) = y {
            if out.len() < MAX && y != *x && !out.contains(&y) {
                out.push(y);
            }
        }
    };
    let values: Vec<Option<f64>> = vars.iter().map(|v| moves::get(x, v)).collect();
    for [a, b] in pairs {
        let (Ok(a), Ok(b)) = (a.parse::<f64>(), b.parse::<f64>()) else { continue };
        if a == b || !a.is_finite() || !b.is_finite() {
            continue;
        }
        for (from, to) in [(a, b), (b, a)] {
            let holding: Vec<&Var> = vars
                .iter()
                .zip(&values)
                .filter(|(_, v)| **v == Some(from))
                .map(|(v, _)| v)
                .collect();
            if holding.is_empty() {
                continue;
            }
            for target in [to, to + 1.0, to - 1.0] {
                let mut all = Some(x.clone());
                for v in &holding {
                    all = all.map(|y| moves::set(&y, v, target).unwrap_or(y));
                }
                add(all, &mut out);
                if holding.len() > 1 {
                    for v in &holding {
                        add(moves::set(x, v, target), &mut out);
                    }
                }
            }
        }
    }
    out
}

/// The inputs made from `x` (whose variables are `vars`) by setting one number (an integer,
/// a number written in a string) to the value of another that differs, and one string to
/// another or to `""`, at most [`MAX`].
pub(crate) fn equalised(x: &Args, vars: &[Var]) -> Vec<Args> {
    let numbers: Vec<(&Var, f64)> = vars
        .iter()
        .filter(|v| matches!(v.kind, Kind::Int { .. } | Kind::Digits | Kind::Run { .. }))
        .filter_map(|v| Some((v, moves::get(x, v)?)))
        .collect();
    let texts: Vec<(&Var, String)> =
        vars.iter().filter_map(|v| Some((v, moves::text(x, v)?))).collect();
    let mut out: Vec<Args> = Vec::new();
    let mut add = |y: Option<Args>| {
        if let Some(y) = y {
            if out.len() < MAX && !out.contains(&y) {
                out.push(y);
            }
        }
    };
    for (v, _) in &numbers {
        for (_, value) in &numbers {
            add(moves::set(x, v, *value));
        }
    }
    for (v, _) in &texts {
        add(moves::with_text(x, v, ""));
        for (_, t) in &texts {
            add(moves::with_text(x, v, t));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::{Ctor, CtorForm, Ty, Value};

    fn pair(a: &str, b: &str) -> [String; 2] {
        [a.to_string(), b.to_string()]
    }

    #[test]
    fn the_inputs_holding_a_compared_value_get_the_other_all_at_once() {
        // `if ver.major != cmp.major { return } if cmp.major > 0 { … } else { site }`, with
        // the comparator parsed from a string and the version built from three integers.
        let version = Ty::Built {
            name: "Version".into(),
            ctors: vec![Ctor {
                name: "Version::new".into(),
                form: CtorForm::Call,
                params: ["major", "minor", "patch"]
                    .iter()
                    .map(|n| (n.to_string(), Ty::int(64, false)))
                    .collect(),
                seeds: vec![],
                defaults: Vec::new(),
            }],
        };
        let params = [Ty::Str, version];
        let x = vec![
            Value::Str("^1.2.3".into()),
            Value::Built {
                ctor: "Version::new".into(),
                args: vec![Value::Int(1), Value::Int(4), Value::Int(5)],
            },
        ];
        let vars = moves::vars(&params, &x);
        let made = candidates(&x, &vars, &[pair("1", "0")]);
        let both = vec![
            Value::Str("^0.2.3".into()),
            Value::Built {
                ctor: "Version::new".into(),
                args: vec![Value::Int(0), Value::Int(4), Value::Int(5)],
            },
        ];
        assert_eq!(made[0], both, "{made:?}");
        assert!(made.iter().any(|y| y[0] == Value::Str("^0.2.3".into()) && y[1] == x[1]));
        // Each side steers the other; operands that are not numbers, or equal, steer nothing.
        assert!(candidates(&x, &vars, &[pair("0", "2")])
            .iter()
            .any(|y| y[0] == Value::Str("^1.0.3".into())));
        assert!(candidates(&x, &vars, &[pair("a", "b"), pair("7", "7")]).is_empty());
        assert!(candidates(&x, &vars, &[pair("70", "71")]).is_empty(), "no input holds 70");
        // Each number made equal to each other one: the version's minor to the requirement's.
        let same = equalised(&x, &vars);
        assert!(same.iter().any(|y| y[0] == x[0]
            && y[1]
                == Value::Built {
                    ctor: "Version::new".into(),
                    args: vec![Value::Int(1), Value::Int(2), Value::Int(5)],
                }));
        assert!(same.iter().any(|y| y[0] == Value::Str("^1.5.3".into())));
        assert!(!same.contains(&x));
        assert!(same.contains(&vec![Value::Str(String::new()), x[1].clone()]));
        // Two strings made equal, either way.
        let two = vec![Value::Str("alpha".into()), Value::Str("beta".into())];
        let same = equalised(&two, &moves::vars(&[Ty::Str, Ty::Str], &two));
        assert!(same.contains(&vec![Value::Str("beta".into()), Value::Str("beta".into())]));
        assert!(same.contains(&vec![Value::Str("alpha".into()), Value::Str("alpha".into())]));
    }
}
