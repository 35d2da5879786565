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
    let s = shrink_within(params, w, &mut o, &mut m, SHRINK_CALLS, None).unwrap();
    assert!(s.settled, "the budget ran out: {:?}", s.witness);
    s.witness
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
    let ctor = Ctor {
        name: "Version".into(),
        form: CtorForm::Call,
        params,
        seeds: vec![],
        defaults: Vec::new(),
    };
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
    assert!(!got.settled, "stopped by its budget");
    let got = got.witness;
    assert_eq!(calls, 10);
    assert!(got.input[0].as_int().unwrap() < 1 << 40);
    // Past its deadline it runs nothing.
    let past = Some(Instant::now() - std::time::Duration::from_secs(1));
    let (mut o, mut m) = (FnEvaluator(|_: &Args| ok(true)), FnEvaluator(|_: &Args| ok(false)));
    let stopped = shrink_within(&params, &w, &mut o, &mut m, 10, past).unwrap();
    assert_eq!(stopped.witness.input, w.input);
    assert!(!stopped.settled);
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

/// A string at a length bound (the mutant differs only from 64 characters on) shrinks to one
/// character repeated, the way a person writes `"a".repeat(64)`.
#[test]
fn a_string_at_a_length_bound_becomes_one_repeated_character() {
    let original = |a: &Args| ok(text(a, 0).chars().count() > 64);
    let mutant = |a: &Args| ok(text(a, 0).chars().count() >= 64);
    let found: String =
        "`%QTI%K\u{1b0e9}\u{0}vq~!@#ZZ9ä\u{10ffff}".chars().cycle().take(64).collect();
    let w = witness(vec![Value::Str(found)], ok(false), ok(true));
    let w = shrunk(&[Ty::Str], &w, original, mutant);
    assert_eq!(text(&w.input, 0), "a".repeat(64));
}

/// Characters go toward `a`, `0` and a space: a port number past 65535 written as text keeps
/// five digits and becomes one digit and zeros.
#[test]
fn digits_in_text_go_toward_round_numbers() {
    let port = |a: &Args| match text(a, 0).parse::<u64>() {
        Ok(n) if n <= 65535 => ok(n),
        _ => error("ParseError", "out of range"),
    };
    let accepts = |a: &Args| match text(a, 0).parse::<u64>() {
        Ok(n) => ok(n),
        Err(_) => error("ParseError", "out of range"),
    };
    let w = witness(
        vec![Value::Str("988097607".into())],
        port(&vec![Value::Str("988097607".into())]),
        ok(988097607),
    );
    let w = shrunk(&[Ty::Str], &w, port, accepts);
    let s = text(&w.input, 0);
    assert_eq!(s.len(), 5, "{s}");
    assert_eq!(s.chars().filter(|&c| c != '0').count(), 1, "{s}");
}

/// Integers go toward zero through round numbers: past a threshold at 1000, twenty calls take
/// `i32::MAX` to a round number below the present year (halving alone is still in the millions).
#[test]
fn an_integer_goes_toward_round_numbers() {
    let params = [Ty::Int { bits: 32, signed: true }];
    let big = |a: &Args| ok(a[0].as_int().unwrap() >= 1000);
    let w = witness(vec![Value::Int(i128::from(i32::MAX))], ok(true), ok(false));
    let (mut o, mut m) = (FnEvaluator(big), FnEvaluator(|_: &Args| ok(false)));
    let quick = shrink_within(&params, &w, &mut o, &mut m, 20, None).unwrap().witness;
    let n = quick.input[0].as_int().unwrap();
    assert!((1000..=PRESENT_YEAR).contains(&n), "{n}");
    assert!(n.to_string().trim_end_matches('0').len() <= 2, "{n}");
    assert_eq!(shrunk(&params, &w, big, |_: &Args| ok(false)).input, vec![Value::Int(1000)]);
    // A year past the present goes to the present when that is as far as it can go.
    let recent = |a: &Args| ok(a[0].as_int().unwrap() >= 2024);
    let w = witness(vec![Value::Int(i128::from(i32::MAX))], ok(true), ok(false));
    assert_eq!(
        shrunk(&params, &w, recent, |_: &Args| ok(false)).input,
        vec![Value::Int(PRESENT_YEAR)]
    );
}

/// A panic from arithmetic overflow is an artefact of a huge input: the witness of
/// `month < 12` → `month < 11` in a `next_date` whose year overflows is `(0, 11)`, where the
/// mutant rolls over to the next year and the original does not.
#[test]
fn an_overflow_panic_gives_way_to_a_plain_value() {
    let next = |last: i128| {
        move |a: &Args| {
            let (year, month) = (a[0].as_int().unwrap(), a[1].as_int().unwrap());
            if month < last {
                ok(format!("({year}, {})", month + 1))
            } else if year == i128::from(i32::MAX) {
                Outcome::Panic { message: "attempt to add with overflow".into() }
            } else {
                ok(format!("({}, 1)", year + 1))
            }
        }
    };
    let params = [Ty::Int { bits: 32, signed: true }, Ty::Int { bits: 32, signed: false }];
    let input = vec![Value::Int(i128::from(i32::MAX)), Value::Int(11)];
    let w = witness(input.clone(), next(12)(&input), next(11)(&input));
    let w = shrunk(&params, &w, next(12), next(11));
    assert_eq!(w.input, vec![Value::Int(0), Value::Int(11)]);
    assert_eq!(w.mutant, ok("(1, 1)"));
    // Any other panic keeps its kind.
    let other = |a: &Args| {
        if a[0].as_int().unwrap() > 5 {
            Outcome::Panic { message: "index out of bounds".into() }
        } else {
            ok("small")
        }
    };
    let w = witness(vec![Value::Int(90), Value::Int(1)], ok("fine"), other(&vec![Value::Int(90)]));
    let w = shrunk(&params, &w, |_: &Args| ok("fine"), other);
    assert_eq!(w.input[0], Value::Int(6));
}

/// A precision beyond what `core::fmt` takes is an artefact of a huge input too: a size written
/// with `{:.*}` and `places` from the input panics on the original's side of the boundary
/// `bytes >= 1000` (made `> 1000`) where the mutant writes bytes; with `0` places both write.
#[test]
fn a_formatting_panic_gives_way_to_a_plain_value() {
    let size = |strict: bool| {
        move |a: &Args| {
            let (bytes, places) = (a[0].as_int().unwrap(), a[1].as_int().unwrap());
            let kilo = if strict { bytes > 1000 } else { bytes >= 1000 };
            match (kilo, places > i128::from(u16::MAX)) {
                (true, true) => {
                    Outcome::Panic { message: "Formatting argument out of range".into() }
                }
                (true, false) => ok(format!("{:.*}kB", places as usize, bytes as f64 / 1000.0)),
                (false, _) => ok(format!("{bytes}B")),
            }
        }
    };
    let params = [Ty::Int { bits: 64, signed: false }, Ty::Int { bits: 64, signed: false }];
    let input = vec![Value::Int(1000), Value::Int(5_000_000_000_000)];
    let w = witness(input.clone(), size(false)(&input), size(true)(&input));
    let w = shrunk(&params, &w, size(false), size(true));
    assert_eq!(w.input, vec![Value::Int(1000), Value::Int(0)]);
    assert_eq!((w.original, w.mutant), (ok("1kB"), ok("1000B")));
}

/// A character a person would not type stays only when nothing simpler tells the mutant apart,
/// and [`untypable`] names it for the suggested test's comment.
#[test]
fn an_untypable_character_stays_only_when_it_is_needed() {
    let has_nul = |a: &Args| ok(text(a, 0).contains('\u{0}'));
    let w = witness(vec![Value::Str("xx\u{0}\u{10ffff}yy".into())], ok(true), ok(false));
    let w = shrunk(&[Ty::Str], &w, has_nul, |_: &Args| ok(false));
    assert_eq!(text(&w.input, 0), "\u{0}");
    assert_eq!(untypable(&w.input), ['\u{0}']);
    let long = |a: &Args| ok(text(a, 0).chars().count() > 3);
    let w =
        witness(vec![Value::Str("\u{10ffff}\u{0}\u{202e}\u{fffe}".into())], ok(true), ok(false));
    let w = shrunk(&[Ty::Str], &w, long, |_: &Args| ok(false));
    assert!(untypable(&w.input).is_empty(), "{:?}", w.input);
    assert!(typable('é') && typable(' ') && !typable('\u{10ffff}') && !typable('\u{200b}'));
}

/// hex's `decode_to_slice(data, out)`: `data` must have an even length and `out` half of it,
/// else both the original and the mutant return the same length error. The mutant reports the
/// first bad character's index as `2 + i` where the original says `2 * i`.
fn decode_to_slice(mutant: bool) -> impl FnMut(&Args) -> Outcome {
    move |a: &Args| {
        let bytes = |k: usize| match &a[k] {
            Value::List(xs) => xs.iter().map(|x| x.as_int().unwrap() as u8).collect::<Vec<u8>>(),
            other => panic!("not a list: {other:?}"),
        };
        let (data, out) = (bytes(0), bytes(1));
        if data.len() % 2 != 0 {
            return error("FromHexError", "OddLength");
        }
        if data.len() / 2 != out.len() {
            return error("FromHexError", "InvalidStringLength");
        }
        for i in 0..out.len() {
            for k in [2 * i, 2 * i + 1] {
                if !data[k].is_ascii_hexdigit() {
                    let index = if mutant && k == 2 * i { 2 + i } else { k };
                    return error("FromHexError", &format!("InvalidHexCharacter {index}"));
                }
            }
        }
        ok("()")
    }
}

/// Arguments whose lengths are coupled shrink together: deleting from `data` alone or from
/// `out` alone breaks `out.len() == data.len() / 2`, so the 26-byte witness found on hex
/// 0.4.3 stayed as found; blocks deleted from both at once, in the same proportion, take it
/// to 2 bytes and 1.
#[test]
fn sequences_whose_lengths_are_coupled_shrink_together() {
    let bytes = |xs: &[i128]| Value::List(xs.iter().map(|&x| Value::Int(x)).collect());
    let data = [0, 0, 0, 0, 0, 0, 0, 0, 254, 1, 2, 63, 199, 14, 14, 49, 14, 0, 7, 0, 253, 254, 7];
    let data: Vec<i128> = data.iter().copied().chain([255, 133, 1]).collect();
    let input = vec![bytes(&data), bytes(&[0, 0, 0, 0, 0, 0, 0, 0, 0, 254, 1, 0, 6])];
    let w = witness(input.clone(), decode_to_slice(false)(&input), decode_to_slice(true)(&input));
    assert!(tells_apart(&w.original, &w.mutant));
    let byte_list = Ty::List { item: Box::new(Ty::int(8, false)) };
    let params = [byte_list.clone(), byte_list];
    let w = shrunk(&params, &w, decode_to_slice(false), decode_to_slice(true));
    assert_eq!(w.input, vec![bytes(&[0, 0]), bytes(&[0])], "{:?}", w.input);
    // The archive's witness of 20 and 10 random bytes: the deletions from one argument fail
    // on every round, so the coupled ones go first (it stayed at 10 and 5 bytes otherwise).
    let data = [1, 232, 232, 27, 52, 1, 78, 1, 12, 13, 29, 191, 0, 1, 108, 43, 108, 143, 108, 13];
    let input = vec![bytes(&data), bytes(&[255, 1, 15, 13, 0, 1, 25, 69, 0, 10])];
    let w = witness(input.clone(), decode_to_slice(false)(&input), decode_to_slice(true)(&input));
    let w = shrunk(&params, &w, decode_to_slice(false), decode_to_slice(true));
    assert_eq!(w.input, vec![bytes(&[0, 0]), bytes(&[0])], "{:?}", w.input);
}

/// strsim's `sorensen_dice(a, b)`: 0 when either has fewer than 2 characters, else twice the
/// bigrams they share over their bigram counts; the mutant's `a.len() <= 2` makes it 0 at 2.
fn sorensen_dice(mutant: bool) -> impl FnMut(&Args) -> Outcome {
    move |args: &Args| {
        let (a, b) = (text(args, 0), text(args, 1));
        if a == b {
            return ok(1.0);
        }
        let short = if mutant { a.len() <= 2 } else { a.len() < 2 };
        if short || b.len() < 2 {
            return ok(0.0);
        }
        let bigrams = |s: &str| {
            let cs: Vec<char> = s.chars().collect();
            cs.windows(2).map(|w| (w[0], w[1])).collect::<Vec<_>>()
        };
        let mut rest = bigrams(&b);
        let mut shared = 0;
        for g in bigrams(&a) {
            if let Some(k) = rest.iter().position(|x| *x == g) {
                rest.remove(k);
                shared += 1;
            }
        }
        ok(2.0 * f64::from(shared) / (a.len() + b.len() - 2) as f64)
    }
}

/// Strings compared with each other keep what they share: a character renamed in every string
/// argument at once takes strsim's `[".c", ".ca"]` (a witness at the length bound 2) to
/// `["aa", "aaa"]`, which renaming in one argument alone never reaches.
#[test]
fn strings_that_share_characters_are_renamed_together() {
    let input = vec![Value::Str(".c".into()), Value::Str(".ca".into())];
    let w = witness(input.clone(), sorensen_dice(false)(&input), sorensen_dice(true)(&input));
    assert!(tells_apart(&w.original, &w.mutant));
    let w = shrunk(&[Ty::Str, Ty::Str], &w, sorensen_dice(false), sorensen_dice(true));
    assert_eq!((text(&w.input, 0), text(&w.input, 1)), ("aa".into(), "aaa".into()));
}

/// strsim 0.11.1's `sorensen_dice` with `a.len() < 2 || b.len() < 2` made `&&`: the mutant
/// divides 0 by 0 where one string is empty and the other has two bytes. Counted in characters,
/// `["", "ß"]` is simpler than `["", "ab"]`, and the suggested test said no simpler input told
/// them apart; a person writes the ASCII one, which has the same bytes.
#[test]
fn a_character_outside_ascii_gives_way_to_ascii_of_its_bytes() {
    let dice = |mutant: bool| {
        move |args: &Args| {
            let (a, b) = (text(args, 0), text(args, 1));
            let short =
                if mutant { a.len() < 2 && b.len() < 2 } else { a.len() < 2 || b.len() < 2 };
            match (a == b, short) {
                (true, _) => ok(1.0),
                (false, true) => ok(0.0),
                // Neither has a bigram the other shares.
                (false, false) => ok(0.0 / (a.len() + b.len() - 2) as f64),
            }
        }
    };
    let input = vec![Value::Str(String::new()), Value::Str("ß".into())];
    let w = witness(input.clone(), dice(false)(&input), dice(true)(&input));
    assert!(tells_apart(&w.original, &w.mutant));
    let w = shrunk(&[Ty::Str, Ty::Str], &w, dice(false), dice(true));
    assert_eq!(text(&w.input, 1), "aa", "{:?}", w.input);
    assert!(unusual(&w.input).is_empty());
    // Where the character itself matters, it stays.
    let upper = |a: &Args| ok(text(a, 0).to_uppercase() == "SS");
    let w = witness(vec![Value::Str("ß".into())], ok(true), ok(false));
    let w = shrunk(&[Ty::Str], &w, upper, |_: &Args| ok(false));
    assert_eq!(text(&w.input, 0), "ß");
}
