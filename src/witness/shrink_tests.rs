use super::*;
use crate::exec::FnEvaluator;
use crate::value::{Ctor, CtorForm};

fn ok(v: impl ToString) -> Outcome {
    Outcome::Ok { value: v.to_string() }
}

fn error(ty: &str, message: &str) -> Outcome {
    Outcome::Error { ty: ty.into(), message: message.into() }
}

fn witness(input: Args, original: Outcome, mutant: Outcome) -> Witness {
    Witness { input, original, mutant, found_by: "search".into(), shrunk_from: None }
}

/// Shrinks `w` between two functions of the arguments, with the default budget.
fn shrunk(
    params: &[Ty],
    w: &Witness,
    original: impl FnMut(&Args) -> Outcome,
    mutant: impl FnMut(&Args) -> Outcome,
) -> Witness {
    let (mut o, mut m) = (FnEvaluator(original), FnEvaluator(mutant));
    shrink_within(params, w, &mut o, &mut m, SHRINK_CALLS, None).unwrap()
}

fn text(a: &Args, k: usize) -> String {
    match &a[k] {
        Value::Str(s) => s.clone(),
        other => panic!("not a string: {other:?}"),
    }
}

/// semver's `Version.match`: the original rejects an expression that starts with no operator
/// and no digit; the mutant (`match_expr[0]` → `match_expr[-1]`) looks at its last character.
fn semver_match(last: bool) -> impl FnMut(&Args) -> Outcome {
    move |a: &Args| {
        let s = text(a, 1);
        let c = if last { s.chars().last() } else { s.chars().next() };
        if s.starts_with(['<', '>', '=', '!']) || c.is_some_and(|c| c.is_ascii_digit()) {
            ok(format!("parsed {s:?}"))
        } else {
            error("ValueError", &format!("You provided: {s:?}"))
        }
    }
}

fn version_ty() -> Ty {
    let int = Ty::Int { bits: 64, signed: true };
    let optional = Ty::Option { item: Box::new(Ty::Union { options: vec![Ty::Str, Ty::Bytes] }) };
    let params = ["major", "minor", "patch"]
        .into_iter()
        .map(|n| (n.to_string(), int.clone()))
        .chain(["prerelease", "build"].into_iter().map(|n| (n.to_string(), optional.clone())))
        .collect();
    let ctor = Ctor { name: "Version".into(), form: CtorForm::Call, params, seeds: vec![] };
    Ty::Built { name: "Version".into(), ctors: vec![ctor] }
}

#[test]
fn a_long_random_string_shrinks_to_two_plain_characters() {
    let version = Value::Built {
        ctor: "Version".into(),
        args: vec![
            Value::Int(1635882),
            Value::Int(2172827704),
            Value::Int(5847776),
            Value::List(vec![]),
            Value::Null,
        ],
    };
    let found = "\u{10FFFF}0handqzlle@@@@@9@@@7!é@epi-botesfmE5107839`a\u{0}`````3";
    let input = vec![version, Value::Str(found.into())];
    let params = [version_ty(), Ty::Str];
    let (o, m) = (semver_match(false)(&input), semver_match(true)(&input));
    let w = shrunk(&params, &witness(input.clone(), o, m), semver_match(false), semver_match(true));
    let s = text(&w.input, 1);
    assert_eq!(s.chars().count(), 2, "{s:?}");
    assert!(s.chars().all(|c| (' '..='~').contains(&c)), "{s:?}");
    let zero = Value::Int(0);
    let simplest = vec![zero.clone(), zero.clone(), zero, Value::Null, Value::Null];
    assert_eq!(w.input[0], Value::Built { ctor: "Version".into(), args: simplest });
    assert_eq!(w.shrunk_from.as_ref(), Some(&input));
    assert!(matches!(&w.original, Outcome::Error { ty, .. } if ty == "ValueError"));
    assert!(tells_apart(&w.original, &w.mutant));
}

#[test]
fn an_integer_shrinks_to_the_boundary_nearest_zero() {
    let above = |b: i128| move |a: &Args| ok(a[0].as_int().unwrap() >= b);
    let params = [Ty::Int { bits: 64, signed: true }];
    let w = witness(vec![Value::Int(98)], ok(false), ok(true));
    assert_eq!(shrunk(&params, &w, above(100), above(50)).input, vec![Value::Int(50)]);
    let below = |b: i128| move |a: &Args| ok(a[0].as_int().unwrap() < b);
    let w = witness(vec![Value::Int(-987_654)], ok(false), ok(true));
    assert_eq!(shrunk(&params, &w, below(-1_000_000), below(-5)).input, vec![Value::Int(-6)]);
}

#[test]
fn a_list_keeps_only_the_element_that_matters() {
    let has = |x: i128| {
        move |a: &Args| ok(matches!(&a[0], Value::List(xs) if xs.contains(&Value::Int(x))))
    };
    let params = [Ty::List { item: Box::new(Ty::Int { bits: 32, signed: true }) }];
    let xs = [3, 9, 7, 12, 100, -40, 7, 5].map(Value::Int).to_vec();
    let w = witness(vec![Value::List(xs)], ok(true), ok(false));
    let w = shrunk(&params, &w, has(7), |_: &Args| ok(false));
    assert_eq!(w.input, vec![Value::List(vec![Value::Int(7)])]);
}

#[test]
fn outcomes_keep_their_kind_and_error_type() {
    // On anything shorter than 5 characters the mutant raises another error type: the test
    // written on such an input would say something else than the witness found.
    let original = |_: &Args| ok("fine");
    let mutant = |a: &Args| {
        if text(a, 0).chars().count() < 5 {
            error("TypeError", "short")
        } else {
            error("ValueError", "long")
        }
    };
    let w = witness(
        vec![Value::Str("abcdefghijklmnop".into())],
        ok("fine"),
        error("ValueError", "long"),
    );
    let w = shrunk(&[Ty::Str], &w, original, mutant);
    assert_eq!(text(&w.input, 0).chars().count(), 5);
    assert!(matches!(&w.mutant, Outcome::Error { ty, .. } if ty == "ValueError"));
}

#[test]
fn a_witness_nothing_simpler_tells_apart_stays_as_found() {
    let w = witness(vec![Value::Int(0)], ok(1), ok(2));
    let same =
        shrunk(&[Ty::Int { bits: 8, signed: false }], &w, |_: &Args| ok(1), |_: &Args| ok(2));
    assert_eq!(same.input, w.input);
    assert!(same.shrunk_from.is_none());
}

#[test]
fn the_budget_bounds_the_calls() {
    let mut calls = 0;
    let counting = |a: &Args| {
        calls += 1;
        ok(a[0].as_int().unwrap() >= 1)
    };
    let w = witness(vec![Value::Int(1 << 40)], ok(true), ok(false));
    let params = [Ty::Int { bits: 64, signed: true }];
    let got = {
        let (mut o, mut m) = (FnEvaluator(counting), FnEvaluator(|_: &Args| ok(false)));
        shrink_within(&params, &w, &mut o, &mut m, 10, None).unwrap()
    };
    assert_eq!(calls, 10);
    assert!(got.input[0].as_int().unwrap() < 1 << 40);
    // Past its deadline it runs nothing.
    let past = Some(Instant::now() - std::time::Duration::from_secs(1));
    let (mut o, mut m) = (FnEvaluator(|_: &Args| ok(true)), FnEvaluator(|_: &Args| ok(false)));
    assert_eq!(shrink_within(&params, &w, &mut o, &mut m, 10, past).unwrap().input, w.input);
}

#[test]
fn every_candidate_is_simpler_and_of_its_type() {
    let params = [version_ty(), Ty::Str, Ty::Float { bits: 64 }, Ty::Bool];
    let input = vec![
        Value::Built {
            ctor: "Version".into(),
            args: vec![
                Value::Int(-3),
                Value::Int(7),
                Value::Int(0),
                Value::Str("rc.1".into()),
                Value::List(vec![Value::Int(255)]),
            ],
        },
        Value::Str("x\u{0}y".into()),
        Value::Float(-2.75),
        Value::Bool(true),
    ];
    let before = Measure::of_args(&input);
    let cands = candidates(&params, &input);
    assert!(cands.len() > 20, "{}", cands.len());
    for c in &cands {
        assert!(params.iter().zip(c).all(|(t, v)| conforms(t, v)), "{c:?}");
    }
    assert!(cands.iter().filter(|c| Measure::of_args(c) < before).count() > 20);
    // The boldest moves come first: the first argument's simplest fields before finer moves.
    assert_eq!(cands[0][1], input[1]);
}
