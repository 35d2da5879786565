//! Where the directed search starts: the archive's closest inputs, the constants of the
//! function's own source put into each argument (the mutated constant and its neighbours
//! first), lengths from those constants for strings and lists, and the random search's closest
//! inputs. Boundary mutants are infected at a constant of the source far more often than
//! anywhere else. Numbers written in strings are also respelled the ways parsers disagree on
//! (`+3`, `-3`, `03`, ` 3`): a check on the characters that a mutant weakens is told apart only
//! by a spelling the number parser behind it still accepts, and no walk of code points finds a
//! sign in front of a digit.

use crate::mutate::{Mutant, Operator};
use crate::value::{Args, Ty, Value};

use crate::inputs::moves::{self, Kind};

/// Constants read from a function's source, most promising first.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Hints {
    /// Integer constants.
    pub ints: Vec<i128>,
    /// Float constants.
    pub floats: Vec<f64>,
    /// String and character constants.
    pub strs: Vec<String>,
}

/// How many seed inputs the constants give at most.
const MAX_SEEDS: usize = 512;

impl Hints {
    /// These hints with the mutated constant of `m` (and the constant next to it) first: the
    /// original and replacement of a constant mutant, with their neighbours.
    pub fn for_mutant(mut self, m: &Mutant) -> Hints {
        if matches!(m.operator, Operator::ConstantPlusOne | Operator::ConstantMinusOne) {
            let mut first = Vec::new();
            for text in [&m.original, &m.replacement] {
                if let Some(k) = parse_int(text) {
                    for d in [-1, 0, 1] {
                        if let Some(v) = k.checked_add(d) {
                            if !first.contains(&v) {
                                first.push(v);
                            }
                        }
                    }
                }
            }
            self.ints.retain(|v| !first.contains(v));
            first.append(&mut self.ints);
            self.ints = first;
        }
        self
    }

    /// These hints with those of `more` after them, each once.
    pub fn and(mut self, more: Hints) -> Hints {
        more.ints.into_iter().for_each(|v| self.int(v));
        more.floats.into_iter().for_each(|v| self.float(v));
        more.strs.iter().for_each(|v| self.str(v));
        self
    }

    /// Adds an integer constant, once.
    pub fn int(&mut self, v: i128) {
        if !self.ints.contains(&v) {
            self.ints.push(v);
        }
    }

    /// Adds a float constant, once.
    pub fn float(&mut self, v: f64) {
        if v.is_finite() && !self.floats.contains(&v) {
            self.floats.push(v);
        }
    }

    /// Adds a string constant, once.
    pub fn str(&mut self, v: &str) {
        if v.len() <= 4096 && !self.strs.iter().any(|s| s == v) {
            self.strs.push(v.to_string());
        }
    }
}

/// An integer literal's value: decimal, `0x`, `0o`, `0b`, with `_` separators and a type
/// suffix (`1_000u32`), as Rust and Python write them.
pub fn parse_int(text: &str) -> Option<i128> {
    let t = text.trim().replace('_', "").to_ascii_lowercase();
    let (neg, t) = match t.strip_prefix('-') {
        Some(rest) => (true, rest.to_string()),
        None => (false, t),
    };
    let (radix, digits) = match t.get(..2) {
        Some("0x") => (16, &t[2..]),
        Some("0o") => (8, &t[2..]),
        Some("0b") => (2, &t[2..]),
        _ => (10, t.as_str()),
    };
    let end = digits.find(|c: char| !c.is_digit(radix)).unwrap_or(digits.len());
    let rest = &digits[end..];
    if !(rest.is_empty() || rest.starts_with('i') || rest.starts_with('u') || rest == "l") {
        return None;
    }
    let v = i128::from_str_radix(&digits[..end], radix).ok()?;
    Some(if neg { -v } else { v })
}

/// Inputs made from `base` with one variable set to a constant of `hints` each, or one string
/// argument replaced by a string constant; at most [`MAX_SEEDS`].
pub(super) fn from_constants(params: &[Ty], base: &Args, hints: &Hints) -> Vec<Args> {
    let mut out = keyed(params, base, hints);
    let vars = moves::vars(params, base);
    // Round-robin over the constants, so that every variable gets the first (most
    // promising) ones before any gets the last.
    let numbers: Vec<f64> =
        hints.ints.iter().map(|&i| i as f64).chain(hints.floats.iter().copied()).collect();
    for c in &numbers {
        for var in &vars {
            if out.len() >= MAX_SEEDS {
                return out;
            }
            let fits = match &var.kind {
                Kind::Int { .. } | Kind::Len { .. } | Kind::Digits | Kind::Run { .. } => {
                    c.fract() == 0.0
                }
                Kind::Float => true,
                _ => false,
            };
            if fits {
                out.extend(moves::set(base, var, *c));
            }
        }
    }
    // Strings: the string constants, the shapes their guards test (a prefix and a suffix
    // around a filler, at and around the length constants), then the integers as text.
    let texts = hints
        .strs
        .iter()
        .cloned()
        .chain(shapes(hints))
        .chain(hints.ints.iter().map(i128::to_string));
    // And the strings and byte strings inside the arguments: a recipe's (the bytes a
    // receiver is made from: shlex 1.3.0's `Shlex::new(b"\\$")`, whose `parse_double` matches
    // one constant character after another), a list's, a tuple's.
    let inner: Vec<&moves::Var> = vars
        .iter()
        .filter(|v| match &v.kind {
            Kind::Len { item: None } => v.path.len() > 1,
            Kind::Len { item: Some(t) } => *t == Ty::int(8, false),
            _ => false,
        })
        .collect();
    for s in texts.collect::<Vec<String>>().iter() {
        for (i, ty) in params.iter().enumerate() {
            if holds_text(ty, s)
                && out.len() < MAX_SEEDS
                && base.get(i) != Some(&Value::Str(s.clone()))
            {
                let mut a = base.clone();
                a[i] = Value::Str(s.clone());
                out.push(a);
            }
        }
        for var in &inner {
            if out.len() < MAX_SEEDS {
                out.extend(moves::with_text(base, var, s));
            }
        }
    }
    out
}

/// Whether an argument of type `ty` may be the string `s`: a string, any value, a character
/// when `s` is one, or an option or union with such an option (`Optional[Union[str, Platform]]`:
/// pathvalidate 3.2.0's `normalize_platform("mac")`, which no input found before).
fn holds_text(ty: &Ty, s: &str) -> bool {
    match ty {
        Ty::Str | Ty::Any => true,
        Ty::Char => s.chars().count() == 1,
        Ty::Option { item } => holds_text(item, s),
        Ty::Union { options } => options.iter().any(|o| holds_text(o, s)),
        _ => false,
    }
}

/// How many inputs [`keyed`] makes at most.
const MAX_KEYED: usize = 160;

/// Inputs made from `base` with a string constant of `hints` put as a key into one dictionary
/// argument (a `dict[str, V]`, or an unannotated argument that holds a dictionary), holding a value the constants suggest for its type: for text, the
/// string constants, the integers as text and the one-character constants before them (`-15`:
/// `"timezone" in matches` and `int(matches["timezone"][1:3]) > 14`); for integers, the
/// integer constants and their neighbours (`config.get("retries")` and `count > 10`). A
/// guard on a key a random dictionary never holds is otherwise never passed. At most
/// [`MAX_KEYED`].
fn keyed(params: &[Ty], base: &Args, hints: &Hints) -> Vec<Args> {
    let keys: Vec<&str> =
        hints.strs.iter().map(String::as_str).filter(|k| !k.is_empty()).take(8).collect();
    let ints: Vec<i128> = hints
        .ints
        .iter()
        .take(6)
        .flat_map(|&k| [k, k.saturating_add(1), k.saturating_sub(1)])
        .collect();
    let mut texts: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
    texts.extend(ints.iter().map(i128::to_string));
    let signs: Vec<&str> = keys.iter().copied().filter(|k| k.chars().count() == 1).collect();
    for sign in signs.iter().take(2) {
        for k in ints.iter().filter(|k| **k >= 0) {
            texts.push(format!("{sign}{k:02}"));
        }
    }
    let text_values = || texts.iter().map(|t| Value::Str(t.clone()));
    let int_values = || ints.iter().map(|&k| Value::Int(k));
    let mut out = Vec::new();
    for (i, ty) in params.iter().enumerate() {
        let values: Vec<Value> = match ty {
            Ty::Map { key, value } if matches!(**key, Ty::Str | Ty::Any) => match &**value {
                Ty::Str => text_values().collect(),
                Ty::Int { .. } => int_values().collect(),
                Ty::Any => int_values().chain(text_values()).collect(),
                _ => Vec::new(),
            },
            // Unannotated: only where a dictionary already is (else it may take numbers).
            Ty::Any if matches!(base.get(i), Some(Value::Map(_))) => {
                int_values().chain(text_values()).collect()
            }
            _ => Vec::new(),
        };
        let entries = match base.get(i) {
            Some(Value::Map(es)) => es.clone(),
            _ => Vec::new(),
        };
        for key in &keys {
            for v in &values {
                if out.len() >= MAX_KEYED {
                    return out;
                }
                let mut es: Vec<(String, Value)> =
                    entries.iter().filter(|(k, _)| k != key).cloned().collect();
                es.push((key.to_string(), v.clone()));
                let mut a = base.clone();
                a[i] = Value::Map(es);
                out.push(a);
            }
        }
    }
    out
}

/// How many pairs [`keyed_pairs`] makes at most.
const MAX_KEYED_PAIRS: usize = 128;

/// Pairs for the explorer from [`keyed`]: each input that holds a key the function names
/// beside `base` (its dictionaries empty) and beside the next such input (the same key, the
/// next value the constants suggest). A random dictionary never holds the key, so without them
/// a guard on it is no boundary the explorer can find. Empty when no argument is a dictionary.
pub fn keyed_pairs(params: &[Ty], base: &Args, hints: &Hints) -> Vec<(Args, Args)> {
    let mut empty = base.clone();
    for (v, ty) in empty.iter_mut().zip(params) {
        if matches!(ty, Ty::Map { .. }) {
            *v = Value::Map(Vec::new());
        }
    }
    let inputs = keyed(params, &empty, hints);
    let mut out = Vec::new();
    for (k, x) in inputs.iter().enumerate() {
        out.push((empty.clone(), x.clone()));
        if let Some(next) = inputs.get(k + 1) {
            out.push((x.clone(), next.clone()));
        }
    }
    out.truncate(MAX_KEYED_PAIRS);
    out
}

/// How many shaped strings [`shapes`] makes at most.
const MAX_SHAPES: usize = 96;

/// Strings shaped like the guards on a string test them (`s.starts_with('"') && s.ends_with('"')
/// && s.len() > 2`, `s.contains("::")`): each string constant `a` (then each ordered pair `a`,
/// `b`) around a filler of `a`s, its length at and around each small integer constant (and 0 to
/// 3), and the same with a character outside ASCII in the filler (slices between constants
/// often cut a character in two). At most [`MAX_SHAPES`].
fn shapes(hints: &Hints) -> Vec<String> {
    let consts: Vec<&str> =
        hints.strs.iter().map(String::as_str).filter(|s| !s.is_empty()).take(6).collect();
    let lengths: Vec<i128> = (0..=3).chain(hints.ints.iter().copied()).collect();
    let mut out: Vec<String> = Vec::new();
    let mut add = |s: String| {
        if out.len() < MAX_SHAPES && !out.contains(&s) && !hints.strs.contains(&s) {
            out.push(s);
        }
    };
    let pairs = consts.iter().flat_map(|a| consts.iter().map(move |b| (*a, *b)));
    for (a, b) in consts.iter().map(|a| (*a, *a)).chain(pairs) {
        let around = a.chars().count() + b.chars().count();
        for &k in &lengths {
            for total in [k - 1, k, k + 1] {
                let Ok(n) = usize::try_from(total - around as i128) else { continue };
                if n > 64 {
                    continue;
                }
                add(format!("{a}{}{b}", "a".repeat(n)));
                if n > 0 {
                    add(format!("{a}é{}{b}", "a".repeat(n - 1)));
                }
            }
        }
    }
    out
}

/// How many respelled inputs [`spellings`] makes at most.
const MAX_SPELLINGS: usize = 48;

/// Inputs made from `base` by respelling one number written in a string argument (a run of
/// digits): a sign in front (`+3`, `-3`), a leading zero (`03`), a space before or after; and,
/// for an integer written alone (no `.` next to it), the halves on either side of it (`99.5`
/// and `100.5` for `100`): a function that parses the string compares a number, and a mutated
/// bound (`> 100` made `> 99`) differs only strictly between two integers (webcolors 24.8.0's
/// `_normalize_percent_rgb("99.5")`). At most [`MAX_SPELLINGS`].
pub(super) fn spellings(params: &[Ty], base: &Args) -> Vec<Args> {
    let mut out = Vec::new();
    for (i, (ty, v)) in params.iter().zip(base).enumerate() {
        let Value::Str(text) = v else { continue };
        // Any text, not a character alone: a number respelled is longer.
        if !holds_text(ty, "") {
            continue;
        }
        let chars: Vec<char> = text.chars().collect();
        for at in moves::runs(text) {
            let end = at + chars[at..].iter().take_while(|c| c.is_ascii_digit()).count();
            let (head, run, tail): (String, String, String) = (
                chars[..at].iter().collect(),
                chars[at..end].iter().collect(),
                chars[end..].iter().collect(),
            );
            let mut respelled: Vec<String> =
                [("+", ""), ("-", ""), ("0", ""), (" ", ""), ("", " ")]
                    .iter()
                    .map(|(before, after)| format!("{head}{before}{run}{after}{tail}"))
                    .collect();
            let alone = !head.ends_with('.') && !tail.starts_with('.');
            if let Some(n) = run.parse::<u128>().ok().filter(|_| alone) {
                if let Some(below) = n.checked_sub(1) {
                    respelled.push(format!("{head}{below}.5{tail}"));
                }
                respelled.push(format!("{head}{run}.5{tail}"));
            }
            for text in respelled {
                if out.len() >= MAX_SPELLINGS {
                    return out;
                }
                let mut a = base.clone();
                a[i] = Value::Str(text);
                out.push(a);
            }
        }
    }
    out
}

/// A plain argument list for `params`, when there is no archive input to start from.
pub(super) fn plain(params: &[Ty]) -> Args {
    params
        .iter()
        .map(|t| match t {
            Ty::Option { item } => moves::filler(item),
            t => moves::filler(t),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dictionary_gets_the_keys_and_values_its_guards_name() {
        let text = Ty::Map { key: Box::new(Ty::Str), value: Box::new(Ty::Str) };
        let count = Ty::Map { key: Box::new(Ty::Str), value: Box::new(Ty::int(64, true)) };
        let hints = Hints {
            ints: vec![-1, 1, 3, 14, 10],
            floats: vec![],
            strs: vec!["timezone".into(), "-".into(), "retries".into()],
        };
        let empty = vec![Value::Map(vec![])];
        let entry = |k: &str, v: Value| vec![Value::Map(vec![(k.to_string(), v)])];
        let seeds = from_constants(&[text], &empty, &hints);
        // `"timezone" in matches` and `int(matches["timezone"][1:3]) > 14`, with a sign.
        for v in ["-14", "-15", "15"] {
            let want = entry("timezone", Value::Str(v.into()));
            assert!(seeds.contains(&want), "{v}: {seeds:?}");
        }
        let seeds = from_constants(std::slice::from_ref(&count), &empty, &hints);
        // `config.get("retries")` and `count > 10`.
        for v in [10, 11] {
            assert!(seeds.contains(&entry("retries", Value::Int(v))), "{v}: {seeds:?}");
        }
        // An unannotated argument gets keys only where a dictionary already is.
        let plain = from_constants(&[Ty::Any], &vec![Value::Int(3)], &hints);
        assert!(!plain.iter().any(|a| matches!(a[0], Value::Map(_))), "{plain:?}");
        let dict = from_constants(&[Ty::Any], &empty, &hints);
        assert!(dict.contains(&entry("retries", Value::Int(11))), "{dict:?}");
        // The explorer's pairs: the empty dictionary (a base's own is emptied) against one
        // key, and two values of one key side by side; none for an argument of another type.
        let base = vec![Value::Map(vec![("x".into(), Value::Int(1))])];
        let pairs = keyed_pairs(std::slice::from_ref(&count), &base, &hints);
        assert!(pairs.contains(&(empty.clone(), entry("retries", Value::Int(10)))), "{pairs:?}");
        assert!(
            pairs.contains(&(entry("retries", Value::Int(10)), entry("retries", Value::Int(11))))
        );
        assert!(pairs.len() <= MAX_KEYED_PAIRS);
        assert!(keyed_pairs(&[Ty::Str], &vec![Value::Str("a".into())], &hints).is_empty());
    }
    use std::path::PathBuf;

    #[test]
    fn integer_literals_parse_in_every_radix_with_separators_and_suffixes() {
        assert_eq!(parse_int("185"), Some(185));
        assert_eq!(parse_int("1_000u32"), Some(1000));
        assert_eq!(parse_int("0xFF"), Some(255));
        assert_eq!(parse_int("0b101i8"), Some(5));
        assert_eq!(parse_int("-7"), Some(-7));
        assert_eq!(parse_int("1.5"), None);
        assert_eq!(parse_int("abc"), None);
    }

    #[test]
    fn the_mutated_constant_and_its_neighbours_come_first() {
        let m = Mutant {
            id: "x".into(),
            origin: crate::mutate::Origin::Rules,
            operator: Operator::ConstantPlusOne,
            function: "f".into(),
            file: PathBuf::from("f.rs"),
            line: 1,
            column: 1,
            span: (0, 3),
            original: "185".into(),
            replacement: "186".into(),
            switchable: true,
            description: String::new(),
            peer_name: None,
        };
        let h = Hints { ints: vec![2, 185, 7], ..Hints::default() }.for_mutant(&m);
        assert_eq!(h.ints, [184, 185, 186, 187, 2, 7]);
    }

    #[test]
    fn constants_go_into_every_argument_they_fit() {
        let params = [Ty::int(8, false), Ty::Str];
        let base = vec![Value::Int(3), Value::Str("ab".into())];
        let hints = Hints { ints: vec![64, 300], floats: vec![], strs: vec!["x@y".into()] };
        let seeds = from_constants(&params, &base, &hints);
        assert!(seeds.contains(&vec![Value::Int(64), Value::Str("ab".into())]));
        assert!(seeds.iter().any(|s| s[1].to_json().len() == 66), "a string of 64 characters");
        assert!(seeds.contains(&vec![Value::Int(3), Value::Str("x@y".into())]));
        assert!(!seeds.iter().any(|s| s[0] == Value::Int(300)), "300 does not fit a u8");
        assert_eq!(plain(&params), vec![Value::Int(0), Value::Str(String::new())]);
    }

    #[test]
    fn constants_go_into_the_byte_string_a_receiver_is_made_from() {
        // shlex 1.3.0: `Shlex::new(bytes).parse_double(&mut out)` matches `\\` then `$`: the
        // receiver's bytes must hold the two constants one after the other.
        let ctor = crate::value::Ctor {
            name: "Shlex::new".into(),
            form: crate::value::CtorForm::Call,
            params: vec![("in_bytes".into(), Ty::Bytes)],
            seeds: Vec::new(),
            defaults: Vec::new(),
        };
        let shlex = Ty::Built { name: "Shlex".into(), ctors: vec![ctor] };
        let params = [shlex, Ty::Bytes];
        let made = |bytes: &[u8]| Value::Built {
            ctor: "Shlex::new".into(),
            args: vec![Value::List(bytes.iter().map(|&b| Value::Int(b.into())).collect())],
        };
        let base = vec![made(b""), Value::List(Vec::new())];
        let hints = Hints { ints: vec![], floats: vec![], strs: vec!["\\".into(), "$".into()] };
        let seeds = from_constants(&params, &base, &hints);
        assert!(seeds.contains(&vec![made(b"\\$"), Value::List(Vec::new())]), "{seeds:?}");
        // A byte string argument of its own gets them too.
        let dollar = Value::List(vec![Value::Int(b'$'.into())]);
        assert!(seeds.contains(&vec![made(b""), dollar]));
    }

    #[test]
    fn string_constants_make_the_shapes_their_guards_test() {
        // `if s.len() > 2 && s.starts_with('"') && s.ends_with('"') { &s[1..s.len() - 1] }`
        let hints = Hints { ints: vec![2, 1], floats: vec![], strs: vec!["\"".into()] };
        let made = shapes(&hints);
        for want in ["\"\"", "\"a\"", "\"aa\"", "\"é\"", "\"éa\""] {
            assert!(made.iter().any(|s| s == want), "{want} in {made:?}");
        }
        let seeds = from_constants(&[Ty::Str], &vec![Value::Str(String::new())], &hints);
        assert!(seeds.contains(&vec![Value::Str("\"a\"".into())]));
        // A prefix and a suffix of their own.
        let pair = Hints { ints: vec![5], floats: vec![], strs: vec!["[".into(), "]".into()] };
        assert!(shapes(&pair).iter().any(|s| s == "[aaa]"), "{:?}", shapes(&pair));
        assert!(shapes(&pair).len() <= MAX_SHAPES);
    }

    #[test]
    fn string_constants_go_into_an_option_or_union_that_holds_text() {
        // pathvalidate 3.2.0: `normalize_platform(name: Optional[Union[str, Platform]])` and
        // `if name in ["mac", "macos", "darwin"]`.
        let hints = Hints { ints: vec![], floats: vec![], strs: vec!["mac".into()] };
        let platform = Ty::Built { name: "Platform".into(), ctors: vec![] };
        let union = Ty::Union { options: vec![Ty::Str, platform.clone()] };
        let optional = Ty::Option { item: Box::new(union) };
        let seeds = from_constants(&[optional], &vec![Value::Null], &hints);
        assert!(seeds.contains(&vec![Value::Str("mac".into())]), "{seeds:?}");
        // Not where no option holds text.
        let only = Ty::Option { item: Box::new(platform) };
        assert!(from_constants(&[only], &vec![Value::Null], &hints).is_empty());
    }

    #[test]
    fn numbers_in_strings_are_respelled_the_ways_parsers_disagree_on() {
        let params = [Ty::int(8, false), Ty::Str];
        let base = vec![Value::Int(3), Value::Str("1.2.3".into())];
        let texts: Vec<String> = spellings(&params, &base)
            .into_iter()
            .map(|a| match &a[1] {
                Value::Str(s) => s.clone(),
                v => panic!("{v:?}"),
            })
            .collect();
        for t in ["+1.2.3", "1.2.+3", "1.-2.3", "1.02.3", "1.2. 3", "1.2.3 "] {
            assert!(texts.iter().any(|x| x == t), "{t} in {texts:?}");
        }
        assert_eq!(texts.len(), 15, "five spellings of each of three numbers");
        // An integer alone gets the halves on either side too; 0 has none below.
        let alone = |text: &str| -> Vec<String> {
            let base = vec![Value::Int(3), Value::Str(text.into())];
            spellings(&params, &base)
                .into_iter()
                .filter_map(|a| match &a[1] {
                    Value::Str(s) if s.contains(".5") => Some(s.clone()),
                    _ => None,
                })
                .collect()
        };
        assert_eq!(alone("100"), ["99.5", "100.5"]);
        assert_eq!(alone("x0%"), ["x0.5%"]);
        // Integers are left alone; a string without digits has nothing to respell.
        let none = vec![Value::Int(3), Value::Str("abc".into())];
        assert!(spellings(&params, &none).is_empty());
    }
}
