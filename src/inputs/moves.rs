//! The variables a directed search moves in an argument list, and its moves on them (the
//! witness search's alternating variable method and the explorer's threshold operator):
//! numbers (integers within their type's range, floats), the length of a string or list, the
//! code point of one character of a string, the integer a string of digits spells (parsers
//! compare the number, not the characters), and booleans. A variable is addressed by a path:
//! the argument's index, then indices into lists, arrays and tuples (and, last, a character's
//! index into a string).

use crate::value::{Args, Ty, Value};

/// How many elements of a list (characters of a string) get variables of their own.
const ELEMENTS: usize = 8;

/// The longest string or list a length move makes.
pub(crate) const MAX_LEN: i128 = 10_000;

/// What kind of value a variable is.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Kind {
    /// An integer in `lo..=hi`.
    Int { lo: i128, hi: i128 },
    /// A float.
    Float,
    /// The length of a string (`item` None) or of a list of `item`.
    Len { item: Option<Ty> },
    /// The code point of a string's character.
    Code,
    /// The integer a string of digits spells (spaces around kept).
    Digits,
    /// The integer a run of digits inside a string spells (`2000` in `2000-02-14T00:28:07`),
    /// the run starting at character `at`; its width is kept (zeros in front) while it fits.
    Run { at: usize },
    /// A boolean.
    Toggle,
}

/// One variable of an argument list.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Var {
    /// Where it is (see the module comment).
    pub path: Vec<usize>,
    /// What it is.
    pub kind: Kind,
}

/// The variables of `args` (typed by `params`), in argument order.
pub(crate) fn vars(params: &[Ty], args: &Args) -> Vec<Var> {
    let mut out = Vec::new();
    for (i, (ty, v)) in params.iter().zip(args).enumerate() {
        walk(ty, v, &mut vec![i], &mut out, 0);
    }
    out
}

fn walk(ty: &Ty, v: &Value, path: &mut Vec<usize>, out: &mut Vec<Var>, depth: usize) {
    if depth > 3 {
        return;
    }
    let mut push = |kind| out.push(Var { path: path.clone(), kind });
    match (ty, v) {
        (Ty::Int { bits, signed }, Value::Int(_)) => {
            let (lo, hi) = Ty::int_range(*bits, *signed);
            push(Kind::Int { lo, hi: hi.min(i128::MAX as u128) as i128 });
        }
        (Ty::Float { .. }, Value::Float(_) | Value::Int(_)) => push(Kind::Float),
        (Ty::Bool, Value::Bool(_)) => push(Kind::Toggle),
        (Ty::Char, Value::Str(_)) => {
            path.push(0);
            out.push(Var { path: path.clone(), kind: Kind::Code });
            path.pop();
        }
        (Ty::Str, Value::Str(s)) | (Ty::Any, Value::Str(s)) => {
            if s.trim().parse::<i128>().is_ok() {
                push(Kind::Digits);
            } else {
                for at in runs(s).into_iter().take(ELEMENTS) {
                    push(Kind::Run { at });
                }
            }
            push(Kind::Len { item: None });
            for k in 0..s.chars().count().min(ELEMENTS) {
                path.push(k);
                out.push(Var { path: path.clone(), kind: Kind::Code });
                path.pop();
            }
        }
        (Ty::Bytes, Value::List(items)) => {
            let byte = Ty::int(8, false);
            push(Kind::Len { item: Some(byte.clone()) });
            elements(&byte, items, path, out, depth);
        }
        (Ty::List { item }, Value::List(items)) => {
            push(Kind::Len { item: Some((**item).clone()) });
            elements(item, items, path, out, depth);
        }
        (Ty::Array { item, .. }, Value::List(items)) => elements(item, items, path, out, depth),
        (Ty::Tuple { items: tys }, Value::List(items)) => {
            for (k, (t, x)) in tys.iter().zip(items).enumerate() {
                path.push(k);
                walk(t, x, path, out, depth + 1);
                path.pop();
            }
        }
        (Ty::Option { item }, x) if *x != Value::Null => walk(item, x, path, out, depth),
        // A recipe's variables are its arguments'; a union value's are its option's.
        (Ty::Built { ctors, .. }, Value::Built { ctor, args }) => {
            let Some(c) = ctors.iter().find(|c| c.name == *ctor) else { return };
            for (k, ((_, t), x)) in c.params.iter().zip(args).enumerate() {
                path.push(k);
                walk(t, x, path, out, depth + 1);
                path.pop();
            }
        }
        (Ty::Union { options }, x) => {
            if let Some(t) = super::conform::conforms_any(options, x) {
                walk(t, x, path, out, depth);
            }
        }
        (Ty::Any, Value::Int(_)) => push(Kind::Int { lo: i64::MIN.into(), hi: i64::MAX.into() }),
        (Ty::Any, Value::Float(_)) => push(Kind::Float),
        (Ty::Any, Value::Bool(_)) => push(Kind::Toggle),
        (Ty::Any, Value::List(items)) => {
            push(Kind::Len { item: Some(Ty::Any) });
            elements(&Ty::Any, items, path, out, depth);
        }
        _ => {}
    }
}

fn elements(item: &Ty, items: &[Value], path: &mut Vec<usize>, out: &mut Vec<Var>, d: usize) {
    for (k, x) in items.iter().take(ELEMENTS).enumerate() {
        path.push(k);
        walk(item, x, path, out, d + 1);
        path.pop();
    }
}

/// Where the runs of ASCII digits of `s` start (character indices), those of up to 18 digits.
pub(crate) fn runs(s: &str) -> Vec<usize> {
    let chars: Vec<char> = s.chars().collect();
    let mut out = Vec::new();
    let mut k = 0;
    while k < chars.len() {
        if chars[k].is_ascii_digit() {
            let start = k;
            while k < chars.len() && chars[k].is_ascii_digit() {
                k += 1;
            }
            if k - start <= 18 {
                out.push(start);
            }
        } else {
            k += 1;
        }
    }
    out
}

/// The number the run of digits at character `at` of `chars` spells, and its width.
fn run_at(chars: &[char], at: usize) -> Option<(i128, usize)> {
    let width = chars.get(at..)?.iter().take_while(|c| c.is_ascii_digit()).count();
    let text: String = chars[at..at + width].iter().collect();
    Some((text.parse().ok()?, width))
}

/// The value at `path` (a character's variable addresses its string).
fn at_mut<'a>(args: &'a mut Args, path: &[usize]) -> Option<&'a mut Value> {
    let (first, rest) = path.split_first()?;
    let mut v = args.get_mut(*first)?;
    for &k in rest {
        v = match v {
            Value::List(items) | Value::Built { args: items, .. } => items.get_mut(k)?,
            _ => return None,
        };
    }
    Some(v)
}

/// A plain value of `ty`, to grow a list with.
pub(crate) fn filler(ty: &Ty) -> Value {
    match ty {
        Ty::Int { .. } | Ty::Any => Value::Int(0),
        Ty::Float { .. } => Value::Float(0.0),
        Ty::Bool => Value::Bool(false),
        Ty::Char => Value::Str("a".into()),
        Ty::Str => Value::Str(String::new()),
        Ty::Bytes | Ty::List { .. } => Value::List(Vec::new()),
        Ty::Map { .. } => Value::Map(Vec::new()),
        Ty::Array { item, len } => Value::List(vec![filler(item); *len]),
        Ty::Tuple { items } => Value::List(items.iter().map(filler).collect()),
        Ty::Option { .. } => Value::Null,
        Ty::Built { ctors, .. } => ctors.first().map_or(Value::Null, |c| Value::Built {
            ctor: c.name.clone(),
            args: c.params.iter().map(|(_, t)| filler(t)).collect(),
        }),
        Ty::Union { options } => options.first().map_or(Value::Null, filler),
        Ty::OneOf { values } => values.first().cloned().unwrap_or(Value::Null),
    }
}

/// `args` with variable `var` moved by `step` (a float step for floats, its integral part
/// otherwise; a toggle for booleans), or `None` when that changes nothing.
pub(crate) fn moved(args: &Args, var: &Var, step: f64) -> Option<Args> {
    let mut out = args.clone();
    match &var.kind {
        Kind::Code => {
            let (k, parent) = var.path.split_last()?;
            let Value::Str(s) = at_mut(&mut out, parent)? else { return None };
            let mut chars: Vec<char> = s.chars().collect();
            let c = chars.get_mut(*k)?;
            let code = (i64::from(u32::from(*c)) + step as i64).clamp(0, 0x10FFFF) as u32;
            let moved = char::from_u32(code)
                .or_else(|| char::from_u32(if step < 0.0 { 0xD7FF } else { 0xE000 }))?;
            if moved == *c {
                return None;
            }
            *c = moved;
            *s = chars.into_iter().collect();
        }
        kind => {
            let v = at_mut(&mut out, &var.path)?;
            let new = match (kind, &*v) {
                (Kind::Int { lo, hi }, Value::Int(x)) => {
                    Value::Int(x.saturating_add(step as i128).clamp(*lo, *hi))
                }
                (Kind::Float, x) => {
                    let f = x.as_f64()? + step;
                    if !f.is_finite() {
                        return None;
                    }
                    Value::Float(f)
                }
                (Kind::Toggle, Value::Bool(b)) => Value::Bool(!b),
                (Kind::Digits, Value::Str(s)) => {
                    let n: i128 = s.trim().parse().ok()?;
                    let lead = &s[..s.len() - s.trim_start().len()];
                    let tail = &s[s.trim_end().len()..];
                    Value::Str(format!("{lead}{}{tail}", n.saturating_add(step as i128)))
                }
                (Kind::Run { at }, Value::Str(s)) => {
                    let chars: Vec<char> = s.chars().collect();
                    let (n, width) = run_at(&chars, *at)?;
                    let m = n.checked_add(step as i128).filter(|m| *m >= 0)?;
                    let head: String = chars[..*at].iter().collect();
                    let tail: String = chars[at + width..].iter().collect();
                    Value::Str(format!("{head}{m:0width$}{tail}"))
                }
                (Kind::Len { item: None }, Value::Str(s)) => {
                    let n = s.chars().count() as i128;
                    let len = (n + step as i128).clamp(0, MAX_LEN) as usize;
                    let fill = s.chars().last().unwrap_or('a');
                    let mut t: String = s.chars().take(len).collect();
                    t.extend(std::iter::repeat_n(fill, len.saturating_sub(t.chars().count())));
                    Value::Str(t)
                }
                (Kind::Len { item: Some(ty) }, Value::List(items)) => {
                    let len = (items.len() as i128 + step as i128).clamp(0, MAX_LEN) as usize;
                    let fill = items.last().cloned().unwrap_or_else(|| filler(ty));
                    let mut t: Vec<Value> = items.iter().take(len).cloned().collect();
                    t.resize(len, fill);
                    Value::List(t)
                }
                _ => return None,
            };
            if super::same::same(&new, v) {
                return None;
            }
            *v = new;
        }
    }
    Some(out)
}

/// `args` with variable `var` set to `value` (a number, or a length), or `None` when it does
/// not fit or changes nothing.
pub(crate) fn set(args: &Args, var: &Var, value: f64) -> Option<Args> {
    let current = match (&var.kind, get(args, var)?) {
        (Kind::Int { lo, hi }, x) => {
            if value.fract() != 0.0 || value < *lo as f64 || value > *hi as f64 {
                return None;
            }
            x
        }
        (Kind::Len { .. }, x)
            if value.fract() == 0.0 && (0.0..=MAX_LEN as f64).contains(&value) =>
        {
            x
        }
        (Kind::Digits | Kind::Run { .. }, x) if value.fract() == 0.0 => x,
        (Kind::Float, x) => x,
        _ => return None,
    };
    if current == value {
        return None;
    }
    if let Kind::Int { .. } = var.kind {
        let mut out = args.clone();
        *at_mut(&mut out, &var.path)? = Value::Int(value as i128);
        return Some(out);
    }
    moved(args, var, value - current)
}

/// The string whose length is variable `var` (a `Len` of a string), in `args`.
pub(crate) fn text(args: &Args, var: &Var) -> Option<String> {
    let mut copy = args.clone();
    match (&var.kind, at_mut(&mut copy, &var.path)?) {
        (Kind::Len { item: None }, Value::Str(s)) => Some(std::mem::take(s)),
        _ => None,
    }
}

/// `args` with the string whose length is variable `var` replaced by `s` (or the byte string,
/// by `s`'s UTF-8 bytes), or `None` when `var` is not a string's or a byte string's length or
/// nothing changes.
pub(crate) fn with_text(args: &Args, var: &Var, s: &str) -> Option<Args> {
    let mut out = args.clone();
    match (&var.kind, at_mut(&mut out, &var.path)?) {
        (Kind::Len { item: None }, Value::Str(t)) if t != s => *t = s.to_string(),
        (Kind::Len { item: Some(byte) }, Value::List(items)) if *byte == Ty::int(8, false) => {
            let bytes: Vec<Value> = s.bytes().map(|b| Value::Int(b.into())).collect();
            if *items == bytes {
                return None;
            }
            *items = bytes;
        }
        _ => return None,
    }
    Some(out)
}

/// The numeric value of variable `var` in `args` (a length for a length).
pub(crate) fn get(args: &Args, var: &Var) -> Option<f64> {
    let mut copy = args.clone();
    let v = at_mut(&mut copy, &var.path)?;
    match (&var.kind, &*v) {
        (Kind::Len { .. }, Value::Str(s)) => Some(s.chars().count() as f64),
        (Kind::Len { .. }, Value::List(items)) => Some(items.len() as f64),
        (Kind::Digits, Value::Str(s)) => s.trim().parse::<i128>().ok().map(|n| n as f64),
        (Kind::Run { at }, Value::Str(s)) => {
            run_at(&s.chars().collect::<Vec<_>>(), *at).map(|(n, _)| n as f64)
        }
        (Kind::Int { .. } | Kind::Float, x) => x.as_f64(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_of_argument_has_its_variables_and_moves() {
        let params = [
            Ty::int(8, false),
            Ty::Str,
            Ty::List { item: Box::new(Ty::Float { bits: 64 }) },
            Ty::Bool,
            Ty::Option { item: Box::new(Ty::int(32, true)) },
        ];
        let args = vec![
            Value::Int(250),
            Value::Str("ab".into()),
            Value::List(vec![Value::Float(1.5)]),
            Value::Bool(false),
            Value::Null,
        ];
        let vs = vars(&params, &args);
        let kinds: Vec<&Kind> = vs.iter().map(|v| &v.kind).collect();
        assert_eq!(
            kinds,
            [
                &Kind::Int { lo: 0, hi: 255 },
                &Kind::Len { item: None },
                &Kind::Code,
                &Kind::Code,
                &Kind::Len { item: Some(Ty::Float { bits: 64 }) },
                &Kind::Float,
                &Kind::Toggle
            ]
        );
        // Integers stay within their type; a move that changes nothing is no move.
        assert_eq!(moved(&args, &vs[0], 16.0).unwrap()[0], Value::Int(255));
        let top = moved(&args, &vs[0], 5.0).unwrap();
        assert!(moved(&top, &vs[0], 1.0).is_none());
        // Lengths grow with the last character and shrink from the end.
        assert_eq!(moved(&args, &vs[1], 3.0).unwrap()[1], Value::Str("abbbb".into()));
        assert_eq!(moved(&args, &vs[1], -5.0).unwrap()[1], Value::Str(String::new()));
        assert_eq!(moved(&args, &vs[3], 1.0).unwrap()[1], Value::Str("ac".into()));
        assert_eq!(moved(&args, &vs[5], -0.5).unwrap()[2], Value::List(vec![Value::Float(1.0)]));
        assert_eq!(moved(&args, &vs[6], 1.0).unwrap()[3], Value::Bool(true));
        assert_eq!(set(&args, &vs[1], 64.0).unwrap()[1].to_json().len(), 66);
        assert_eq!(set(&args, &vs[0], 300.0), None);
        assert_eq!(set(&args, &vs[0], 185.0).unwrap()[0], Value::Int(185));
        assert_eq!(get(&args, &vs[4]), Some(1.0));
        // A string of digits moves by its number.
        let text = vec![Value::Str(" 999".into())];
        let vs = vars(&[Ty::Str], &text);
        assert_eq!(vs[0].kind, Kind::Digits);
        assert_eq!(moved(&text, &vs[0], 1.0).unwrap()[0], Value::Str(" 1000".into()));
        assert_eq!(set(&text, &vs[0], 64.0).unwrap()[0], Value::Str(" 64".into()));
        // A run of digits inside a string moves by its number, keeping its width.
        let stamp = vec![Value::Str("2000-02-14T00:28:07".into())];
        let vs = vars(&[Ty::Str], &stamp);
        let runs: Vec<&Var> = vs.iter().filter(|v| matches!(v.kind, Kind::Run { .. })).collect();
        assert_eq!(runs.len(), 6);
        let year = moved(&stamp, runs[0], -31.0).unwrap();
        assert_eq!(year[0], Value::Str("1969-02-14T00:28:07".into()));
        assert_eq!(
            moved(&stamp, runs[1], 8.0).unwrap()[0],
            Value::Str("2000-10-14T00:28:07".into())
        );
        assert_eq!(get(&year, runs[0]), Some(1969.0));
        assert_eq!(
            set(&stamp, runs[2], 100.0).unwrap()[0],
            Value::Str("2000-02-100T00:28:07".into())
        );
        assert!(moved(&stamp, runs[3], -1.0).is_none(), "no negative run");
    }
}
