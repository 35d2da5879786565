//! Readable names of suggested tests, for every language: what the test pins, read from the
//! function's name, the witness's arguments and the original's outcome
//! (`is_leap_year_is_false_for_1000`, `test_bmi_is_normal_for_200_74`,
//! `parse_port_is_err_for_65536`), and made unique within the names a run already gave.

use std::collections::BTreeSet;

use crate::value::{Outcome, Value};

/// The longest slug of the arguments or the value kept in a name; longer ones are cut at a word.
const MAX_PART: usize = 32;

/// `s` as lowercase words joined by `_` (`Thermostat::mode` → `thermostat_mode`,
/// `isLeap` → `is_leap`, `-2.5` → `minus_2_5`).
pub fn snake(s: &str) -> String {
    let mut out = String::new();
    let mut prev_lower = false;
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '-' && chars.peek().is_some_and(|d| d.is_ascii_digit()) && !prev_lower {
            push_word(&mut out, "minus");
            out.push('_');
            prev_lower = false;
            continue;
        }
        if c.is_ascii_alphanumeric() {
            if c.is_ascii_uppercase() && prev_lower {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
            prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        } else {
            if !out.is_empty() && !out.ends_with('_') {
                out.push('_');
            }
            prev_lower = false;
        }
    }
    out.trim_matches('_').to_string()
}

fn push_word(out: &mut String, w: &str) {
    if !out.is_empty() && !out.ends_with('_') {
        out.push('_');
    }
    out.push_str(w);
}

/// The words of one value: numbers as digits, strings as their words (`empty` when they have
/// none), lists and constructors as their items'.
fn value_words(v: &Value) -> String {
    match v {
        Value::Null => "none".into(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => snake(&i.to_string()),
        Value::BigUint(u) => u.to_string(),
        Value::Float(x) if x.is_finite() => float_words(*x),
        Value::Float(x) => snake(&x.to_string()),
        Value::Str(s) => match snake(s) {
            w if w.is_empty() && s.is_empty() => "empty".into(),
            w if w.is_empty() => "symbols".into(),
            w => w,
        },
        Value::List(items) if items.is_empty() => "empty".into(),
        Value::List(items) => words_of(items),
        Value::Map(entries) if entries.is_empty() => "empty".into(),
        Value::Map(entries) => {
            let parts: Vec<String> =
                entries.iter().map(|(k, x)| format!("{}_{}", snake(k), value_words(x))).collect();
            parts.join("_")
        }
        Value::Built { ctor, args } => {
            let head = snake(ctor.rsplit("::").next().unwrap_or(ctor));
            let head = snake(head.rsplit('.').next().unwrap_or(&head));
            if args.is_empty() {
                head
            } else {
                format!("{head}_{}", words_of(args))
            }
        }
    }
}

/// The words of a finite float: its digits (`2_5`), or for very large and very small ones its
/// first four significant digits, cut (not rounded, so the name stays on the value's side of
/// a boundary), and its exponent (`9_999e32`, `5_4e_minus_31`).
fn float_words(x: f64) -> String {
    let scientific = x != 0.0 && (x.abs() >= 1e16 || x.abs() < 1e-4);
    if !scientific {
        return snake(&format!("{x}"));
    }
    let text = format!("{x:e}");
    let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
    let point = mantissa.find('.').map_or(mantissa.len(), |p| p + 1);
    let short = &mantissa[..mantissa.len().min(point + 3)];
    let short = short.trim_end_matches('0').trim_end_matches('.');
    let exponent = match exponent.strip_prefix('-') {
        Some(digits) => format!("_minus_{digits}"),
        None => exponent.to_string(),
    };
    format!("{}e{exponent}", snake(short))
}

fn words_of(items: &[Value]) -> String {
    let parts: Vec<String> = items.iter().map(value_words).filter(|w| !w.is_empty()).collect();
    parts.join("_")
}

/// `s` cut to at most [`MAX_PART`] characters, at a `_`.
fn cut(s: &str) -> String {
    if s.len() <= MAX_PART {
        return s.to_string();
    }
    let head = &s[..MAX_PART];
    head.rsplit_once('_').map_or(head, |(h, _)| h).to_string()
}

/// The words of an outcome's value as written by the language (`false`, `'Normal'`, `0.05`,
/// `Ok(65535)`, `Some("a")`), or `None` when it has no short reading.
fn value_text_words(text: &str) -> Option<String> {
    let w = snake(text);
    let w = if text.trim_start().starts_with('-') && !w.starts_with("minus") {
        format!("minus_{w}")
    } else {
        w
    };
    match w.as_str() {
        "" if text.trim().is_empty() || text.contains("\"\"") || text.contains("''") => {
            Some("empty".into())
        }
        "" => None,
        w if w.len() > MAX_PART => None,
        w => Some(w.to_string()),
    }
}

/// What a test asserts about `outcome`, as the words after the function's name: `is_false`,
/// `is_ok_65535`, `is_err`, `raises_value_error`, `panics`, `returns` (a value with no short
/// reading).
pub fn outcome_words(outcome: &Outcome) -> String {
    let (original, _) = outcome.split_after();
    match &original {
        Outcome::Ok { value } => match value_text_words(value) {
            Some(w) if w == "none" || w == "unit" => "is_none".into(),
            Some(w) => format!("is_{w}"),
            None => "returns".into(),
        },
        Outcome::Error { ty, .. } if ty.is_empty() || ty == "String" || ty == "&str" => {
            "is_err".into()
        }
        Outcome::Error { ty, .. } if ty.ends_with("Error") || ty.ends_with("Exception") => {
            format!("raises_{}", snake(ty.rsplit('.').next().unwrap_or(ty)))
        }
        Outcome::Error { .. } => "is_err".into(),
        Outcome::Panic { .. } => "panics".into(),
        Outcome::Timeout | Outcome::Crash { .. } => "fails".into(),
    }
}

/// The name of a test of `function` (already in snake case, with its prefix such as `test_`)
/// that pins `outcome` on `args`: `{function}_{outcome}_for_{args}`, without `_for_…` when the
/// function takes no argument worth naming.
pub fn readable(function: &str, args: &[Value], outcome: &Outcome) -> String {
    let what = cut(&outcome_words(outcome));
    let args = cut(&words_of(args));
    if args.is_empty() {
        format!("{function}_{what}")
    } else {
        format!("{function}_{what}_for_{args}")
    }
}

/// The name of one test of `function` (as in [`readable`]) that joins `cases` (arguments and
/// the original's outcome): for a parametrised `table`, `{function}_{outcome}` when every case
/// has the same (`test_check_date_raises_value_error`), else `{function}_cases`; otherwise
/// `{function}_at_{a}_and_{b}` for a boundary pair (`is_leap_year_at_1899_and_1900`), else
/// `{function}_on_{n}_inputs`.
pub fn joined(function: &str, cases: &[(&[Value], &Outcome)], table: bool) -> String {
    if table {
        let words: BTreeSet<String> = cases.iter().map(|(_, o)| cut(&outcome_words(o))).collect();
        return match words.iter().next() {
            Some(w) if words.len() == 1 && w != "returns" => format!("{function}_{w}"),
            _ => format!("{function}_cases"),
        };
    }
    let words: Vec<String> = cases.iter().map(|(args, _)| cut(&words_of(args))).collect();
    match words.as_slice() {
        [a, b] if !a.is_empty() && !b.is_empty() && a != b => format!("{function}_at_{a}_and_{b}"),
        _ => format!("{function}_on_{}_inputs", cases.len()),
    }
}

/// The name a run checks the `rank`-th way of writing test `name` under (0 is the most
/// readable and keeps the name; the others are fall-backs, renamed back when chosen).
pub fn candidate(name: &str, rank: usize) -> String {
    if rank == 0 {
        name.to_string()
    } else {
        format!("{name}{ALT}{rank}")
    }
}

/// The ways of writing test `name`, most readable first: `render(name, true)`, then the
/// fall-back `render(candidate(name, 1), false)` when it says something else.
pub fn readable_then_fallback(
    name: &str,
    render: impl Fn(&str, bool) -> Option<String>,
) -> Vec<String> {
    let readable = render(name, true);
    let alt = candidate(name, 1);
    let fallback = render(&alt, false);
    let differs = match (&readable, &fallback) {
        (Some(a), Some(b)) => *a != b.replace(&alt, name),
        _ => false,
    };
    let mut out: Vec<String> = readable.into_iter().collect();
    if differs {
        out.extend(fallback);
    }
    out
}

/// What marks a fall-back's name (see [`candidate`]).
pub const ALT: &str = "__abex_alt";

/// The name a candidate's test is suggested under: its name without the fall-back's mark.
pub fn base_name(candidate: &str) -> &str {
    candidate.split_once(ALT).map_or(candidate, |(base, _)| base)
}

/// `name`, or `name_2`, `name_3`… when it is taken; the name returned is added to `taken`.
pub fn unique(name: &str, taken: &mut BTreeSet<String>) -> String {
    let mut candidate = name.to_string();
    let mut k = 2;
    while taken.contains(&candidate) {
        candidate = format!("{name}_{k}");
        k += 1;
    }
    taken.insert(candidate.clone());
    candidate
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(v: &str) -> Outcome {
        Outcome::Ok { value: v.into() }
    }

    #[test]
    fn a_joined_test_names_its_boundary_pair_its_table_or_counts_its_inputs() {
        let (a, b, c) = ([Value::Int(1899)], [Value::Int(1900)], [Value::Float(-2.5)]);
        let (no, yes) = (ok("false"), ok("true"));
        let pair = [(&a[..], &no), (&b[..], &yes)];
        assert_eq!(joined("is_leap_year", &pair, false), "is_leap_year_at_1899_and_1900");
        assert_eq!(joined("is_leap_year", &pair, true), "is_leap_year_cases");
        let three = [(&a[..], &no), (&b[..], &yes), (&c[..], &no)];
        assert_eq!(joined("test_f", &three, false), "test_f_on_3_inputs");
        assert_eq!(joined("test_f", &[(&[], &no), (&[], &yes)], false), "test_f_on_2_inputs");
        let bad = Outcome::Error { ty: "ValueError".into(), message: "m".into() };
        let raises = [(&a[..], &bad), (&b[..], &bad)];
        assert_eq!(joined("test_f", &raises, true), "test_f_raises_value_error");
    }

    #[test]
    fn a_name_says_the_function_the_outcome_and_the_arguments() {
        assert_eq!(
            readable("is_leap_year", &[Value::Int(1000)], &ok("false")),
            "is_leap_year_is_false_for_1000"
        );
        assert_eq!(
            readable("test_bmi", &[Value::Int(200), Value::Int(74)], &ok("'Normal'")),
            "test_bmi_is_normal_for_200_74"
        );
        assert_eq!(
            readable("parse_port", &[Value::Str("65535".into())], &ok("Ok(65535)")),
            "parse_port_is_ok_65535_for_65535"
        );
        let err = Outcome::Error { ty: "String".into(), message: "port 0".into() };
        assert_eq!(
            readable("parse_port", &[Value::Str("00".into())], &err),
            "parse_port_is_err_for_00"
        );
        let raised = Outcome::Error { ty: "ValueError".into(), message: "m".into() };
        assert_eq!(
            readable("test_shipping_cost", &[Value::Float(-0.0), Value::Bool(true)], &raised),
            "test_shipping_cost_raises_value_error_for_minus_0_true"
        );
        assert_eq!(readable("f", &[Value::Int(-5)], &ok("-3")), "f_is_minus_3_for_minus_5");
        // Very large and very small floats by their first digits and exponent, cut, not rounded
        // (humanize's `metric` boundary at 1e33 and below 1e-30).
        let below = [Value::Float(9.999999999999994e32), Value::Str(String::new())];
        assert_eq!(
            readable("metric", &below, &raised),
            "metric_raises_value_error_for_9_999e32_empty"
        );
        let tiny = [Value::Float(-5.400284512892169e-31)];
        assert_eq!(
            readable("metric", &tiny, &raised),
            "metric_raises_value_error_for_minus_5_4e_minus_31"
        );
        assert_eq!(readable("f", &[Value::Float(1e20)], &ok("0")), "f_is_0_for_1e20");
        assert_eq!(readable("f", &[Value::Float(0.25)], &ok("0")), "f_is_0_for_0_25");
        assert_eq!(readable("f", &[Value::Str(String::new())], &ok("0.05")), "f_is_0_05_for_empty");
        assert_eq!(
            readable("f", &[], &ok("[10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120]")),
            "f_returns"
        );
        let p = Outcome::Panic { message: "boom".into() };
        assert_eq!(readable("f", &[Value::Int(0)], &p), "f_panics_for_0");
    }

    #[test]
    fn names_are_made_unique_and_kept_short() {
        let mut taken = BTreeSet::new();
        assert_eq!(unique("f_is_1_for_0", &mut taken), "f_is_1_for_0");
        assert_eq!(unique("f_is_1_for_0", &mut taken), "f_is_1_for_0_2");
        assert_eq!(unique("f_is_1_for_0", &mut taken), "f_is_1_for_0_3");
        let long =
            readable("f", &[Value::Float(2.0567624881166635), Value::Bool(false)], &ok("5.08"));
        assert!(long.len() <= "f_is_5_08_for_".len() + MAX_PART, "{long}");
        assert!(long.starts_with("f_is_5_08_for_2_"), "{long}");
        assert_eq!(snake("Thermostat::distance_from_band"), "thermostat_distance_from_band");
        assert_eq!(snake("isLeapYear"), "is_leap_year");
    }
}
