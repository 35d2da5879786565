//! The value model shared by every front end: parameter types, argument values as JSON, outcomes,
//! and the canonical stringification that descriptors and the program derivative are computed on.
//!
//! Rules (also in `docs/values.md`):
//! - an argument list is a JSON array, one element per parameter (a Rust receiver is the first);
//! - integers of any width are JSON integers (`u128::MAX` included); floats are JSON numbers, and
//!   the three non-finite floats are the strings `"NaN"`, `"inf"` and `"-inf"`;
//! - `char` and strings are JSON strings; `Option::None` is `null`; sequences, arrays and tuples
//!   are JSON arrays;
//! - the stringified input is the text itself when the list holds one string argument, otherwise
//!   the compact JSON of the whole list (`[2024,2,29]`);
//! - the stringified outcome is the rendered return value (`Debug` in Rust, `repr` in Python), or
//!   `Type: message` for an error, `panic: message` for a panic, `timeout`, `crash: detail`.

use std::fmt::{self, Write as _};

use serde::{Deserialize, Serialize};

/// A parameter type that abex can generate values for.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Ty {
    /// An integer of `bits` width (8..=128), signed or not.
    Int { bits: u8, signed: bool },
    /// A float of 32 or 64 bits.
    Float { bits: u8 },
    /// `bool`.
    Bool,
    /// A Unicode scalar value (`char`).
    Char,
    /// A string (`String`, `&str`, Python `str`).
    Str,
    /// Bytes (Python `bytes`, rendered as a list of integers 0..=255).
    Bytes,
    /// A sequence of any length (`Vec<T>`, `&[T]`, Python `list[T]`).
    List { item: Box<Ty> },
    /// A fixed-length array (`[T; N]`).
    Array { item: Box<Ty>, len: usize },
    /// An optional value (`Option<T>`, Python `T | None`).
    Option { item: Box<Ty> },
    /// A tuple of fixed arity.
    Tuple { items: Vec<Ty> },
    /// A dictionary with string-rendered keys (Python `dict[K, V]`).
    Map { key: Box<Ty>, value: Box<Ty> },
    /// Any JSON value (unannotated Python parameters).
    Any,
    /// A value of a named type, built by one of its constructors (a struct literal, an enum
    /// variant, an associated function, `FromStr`, a Python class or dataclass): a recipe.
    Built {
        /// The type's name as written (`Version`, `Op`, `datetime.date`).
        name: String,
        /// The ways to build one, tried in turn by the explorer.
        ctors: Vec<Ctor>,
    },
    /// One of several types (a Python union such as `int | str`).
    Union {
        /// The types, in the order written.
        options: Vec<Ty>,
    },
    /// One of a few constant values (a Python `Literal[...]`).
    OneOf {
        /// The values.
        values: Vec<Value>,
    },
}

/// How a constructor's arguments are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CtorForm {
    /// A call: `Version::parse("1.2.3")`, `Some(3)`, `datetime.date(2024, 2, 29)`.
    Call,
    /// Named fields: `Comparator { op: Op::Caret, major: 1 }` (Rust), `Point(x=1, y=2)` (Python).
    Fields,
    /// Nothing: a unit variant or a constant (`Op::Caret`, `Color.RED`).
    Unit,
}

/// One way to build a value of a [`Ty::Built`] type.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ctor {
    /// How it is written, without its arguments: `Version::parse`, `Op::Caret`, `Comparator`.
    pub name: String,
    /// How its arguments are written.
    pub form: CtorForm,
    /// Its parameters (field names for [`CtorForm::Fields`]) with their types.
    pub params: Vec<(String, Ty)>,
    /// Argument lists seen in the project (its tests and examples), tried first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seeds: Vec<Vec<Value>>,
    /// The literal defaults of its parameters, by name (a Python `__init__`'s): a suggested
    /// test leaves out an argument equal to its default (by name anywhere, by position at the
    /// end), as a person writes the call.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub defaults: Vec<(String, Value)>,
}

impl Ctor {
    /// The constructor's recipe with `args` as code-like text: `Version::parse("1.2.3")`,
    /// `Comparator { op: Op::Caret, major: 1 }`, `Op::Caret`. Argument values are written as in
    /// [`Value::display`].
    pub fn display(&self, args: &[Value]) -> String {
        let parts: Vec<String> = args.iter().map(Value::display).collect();
        match self.form {
            CtorForm::Unit => self.name.clone(),
            CtorForm::Call => format!("{}({})", self.name, parts.join(", ")),
            CtorForm::Fields => {
                let fields: Vec<String> = self
                    .params
                    .iter()
                    .zip(&parts)
                    .map(|((name, _), v)| format!("{name}: {v}"))
                    .collect();
                format!("{} {{ {} }}", self.name, fields.join(", "))
            }
        }
    }
}

impl Ty {
    /// The signed or unsigned integer type of `bits` width.
    pub fn int(bits: u8, signed: bool) -> Ty {
        Ty::Int { bits, signed }
    }

    /// Inclusive range of an integer type, as `i128` bounds plus the true upper bound for `u128`.
    pub fn int_range(bits: u8, signed: bool) -> (i128, u128) {
        if signed {
            let max = if bits >= 128 { i128::MAX } else { (1i128 << (bits - 1)) - 1 };
            (-max - 1, max as u128)
        } else {
            let max = if bits >= 128 { u128::MAX } else { (1u128 << bits) - 1 };
            (0, max)
        }
    }

    /// Whether every value of this type is a plain number (for the Euclidean input distance).
    pub fn is_numeric(&self) -> bool {
        matches!(self, Ty::Int { .. } | Ty::Float { .. })
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::Int { bits, signed } => write!(f, "{}{bits}", if *signed { 'i' } else { 'u' }),
            Ty::Float { bits } => write!(f, "f{bits}"),
            Ty::Bool => f.write_str("bool"),
            Ty::Char => f.write_str("char"),
            Ty::Str => f.write_str("str"),
            Ty::Bytes => f.write_str("bytes"),
            Ty::List { item } => write!(f, "list[{item}]"),
            Ty::Array { item, len } => write!(f, "[{item}; {len}]"),
            Ty::Option { item } => write!(f, "option[{item}]"),
            Ty::Tuple { items } => {
                f.write_char('(')?;
                for (i, t) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{t}")?;
                }
                f.write_char(')')
            }
            Ty::Map { key, value } => write!(f, "dict[{key}, {value}]"),
            Ty::Any => f.write_str("any"),
            Ty::Built { name, .. } => f.write_str(name),
            Ty::Union { options } => {
                for (i, t) in options.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" | ")?;
                    }
                    write!(f, "{t}")?;
                }
                Ok(())
            }
            Ty::OneOf { values } => {
                let shown: Vec<String> = values.iter().map(Value::display).collect();
                write!(f, "one of {}", shown.join(", "))
            }
        }
    }
}

/// One argument value. Integers keep their exact value for every width.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// JSON `null` (`None`).
    Null,
    /// A boolean.
    Bool(bool),
    /// A signed integer, or an unsigned one up to `i128::MAX`.
    Int(i128),
    /// An unsigned integer above `i128::MAX` (only `u128` reaches it).
    BigUint(u128),
    /// A float; non-finite ones are written as strings.
    Float(f64),
    /// A string or a `char`.
    Str(String),
    /// A list, array, tuple or byte string.
    List(Vec<Value>),
    /// A dictionary with string keys, in insertion order.
    Map(Vec<(String, Value)>),
    /// A value of a [`Ty::Built`] type: the constructor's name and its arguments. Its JSON is
    /// `{"$ctor": "Version::parse", "$args": ["1.2.3"]}`.
    Built {
        /// The constructor's [`Ctor::name`].
        ctor: String,
        /// Its arguments, in its parameters' order.
        args: Vec<Value>,
    },
}

/// The JSON keys of a [`Value::Built`].
const CTOR_KEY: &str = "$ctor";
const ARGS_KEY: &str = "$args";

impl Value {
    /// The integer value, if this is an integer that fits `i128`.
    pub fn as_int(&self) -> Option<i128> {
        match self {
            Value::Int(i) => Some(*i),
            _ => None,
        }
    }

    /// Numeric view used by the Euclidean distance.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Int(i) => Some(*i as f64),
            Value::BigUint(u) => Some(*u as f64),
            Value::Float(x) => Some(*x),
            _ => None,
        }
    }

    /// The compact JSON text of this value (no spaces), as sent to workers and stored in reports.
    pub fn to_json(&self) -> String {
        let mut s = String::new();
        self.write_json(&mut s);
        s
    }

    fn write_json(&self, s: &mut String) {
        match self {
            Value::Null => s.push_str("null"),
            Value::Bool(b) => s.push_str(if *b { "true" } else { "false" }),
            Value::Int(i) => {
                let _ = write!(s, "{i}");
            }
            Value::BigUint(u) => {
                let _ = write!(s, "{u}");
            }
            Value::Float(x) => {
                if x.is_nan() {
                    s.push_str("\"NaN\"");
                } else if x.is_infinite() {
                    s.push_str(if *x > 0.0 { "\"inf\"" } else { "\"-inf\"" });
                } else if x.fract() == 0.0 && x.abs() < 1e15 {
                    // Keep a float recognisable as one: `2.0`, not `2`.
                    let _ = write!(s, "{x:.1}");
                } else {
                    let _ = write!(s, "{x:?}");
                }
            }
            Value::Str(t) => write_json_str(s, t),
            Value::List(items) => {
                s.push('[');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        s.push(',');
                    }
                    v.write_json(s);
                }
                s.push(']');
            }
            Value::Map(entries) => {
                s.push('{');
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        s.push(',');
                    }
                    write_json_str(s, k);
                    s.push(':');
                    v.write_json(s);
                }
                s.push('}');
            }
            Value::Built { ctor, args } => {
                s.push('{');
                write_json_str(s, CTOR_KEY);
                s.push(':');
                write_json_str(s, ctor);
                s.push(',');
                write_json_str(s, ARGS_KEY);
                s.push(':');
                Value::List(args.clone()).write_json(s);
                s.push('}');
            }
        }
    }

    /// The value as a person reads it: a built value as its recipe
    /// (`Version::parse("1.2.3")`), anything else as its compact JSON.
    pub fn display(&self) -> String {
        match self {
            Value::Built { ctor, args } => {
                let parts: Vec<String> = args.iter().map(Value::display).collect();
                if args.is_empty() {
                    ctor.clone()
                } else {
                    format!("{ctor}({})", parts.join(", "))
                }
            }
            Value::List(items) if items.iter().any(Value::has_built) => {
                let parts: Vec<String> = items.iter().map(Value::display).collect();
                format!("[{}]", parts.join(", "))
            }
            other => other.to_json(),
        }
    }

    /// Whether a built value is in this value.
    pub fn has_built(&self) -> bool {
        match self {
            Value::Built { .. } => true,
            Value::List(items) => items.iter().any(Value::has_built),
            Value::Map(entries) => entries.iter().any(|(_, v)| v.has_built()),
            _ => false,
        }
    }

    /// Converts a parsed JSON value. Integers beyond `u64`/`i64` are read from their text.
    pub fn from_json(j: &serde_json::Value) -> Value {
        match j {
            serde_json::Value::Null => Value::Null,
            serde_json::Value::Bool(b) => Value::Bool(*b),
            serde_json::Value::Number(n) => {
                if let Some(i) = n.as_i64() {
                    Value::Int(i as i128)
                } else if let Some(u) = n.as_u64() {
                    Value::Int(u as i128)
                } else {
                    Value::Float(n.as_f64().unwrap_or(f64::NAN))
                }
            }
            serde_json::Value::String(s) => Value::Str(s.clone()),
            serde_json::Value::Array(a) => Value::List(a.iter().map(Value::from_json).collect()),
            serde_json::Value::Object(o) => match (o.get(CTOR_KEY), o.get(ARGS_KEY)) {
                (Some(serde_json::Value::String(ctor)), Some(serde_json::Value::Array(args)))
                    if o.len() == 2 =>
                {
                    Value::Built {
                        ctor: ctor.clone(),
                        args: args.iter().map(Value::from_json).collect(),
                    }
                }
                _ => Value::Map(o.iter().map(|(k, v)| (k.clone(), Value::from_json(v))).collect()),
            },
        }
    }
}

impl Serialize for Value {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap, SerializeSeq};
        match self {
            Value::Null => ser.serialize_unit(),
            Value::Bool(b) => ser.serialize_bool(*b),
            Value::Int(i) => ser.serialize_i128(*i),
            Value::BigUint(u) => ser.serialize_u128(*u),
            Value::Float(x) if x.is_nan() => ser.serialize_str("NaN"),
            Value::Float(x) if x.is_infinite() => {
                ser.serialize_str(if *x > 0.0 { "inf" } else { "-inf" })
            }
            Value::Float(x) => ser.serialize_f64(*x),
            Value::Str(s) => ser.serialize_str(s),
            Value::List(items) => {
                let mut seq = ser.serialize_seq(Some(items.len()))?;
                for v in items {
                    seq.serialize_element(v)?;
                }
                seq.end()
            }
            Value::Map(entries) => {
                let mut map = ser.serialize_map(Some(entries.len()))?;
                for (k, v) in entries {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
            Value::Built { ctor, args } => {
                let mut map = ser.serialize_map(Some(2))?;
                map.serialize_entry(CTOR_KEY, ctor)?;
                map.serialize_entry(ARGS_KEY, args)?;
                map.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: serde::Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        serde_json::Value::deserialize(de).map(|j| Value::from_json(&j))
    }
}

/// Writes `t` as a JSON string literal.
pub fn write_json_str(s: &mut String, t: &str) {
    s.push('"');
    for c in t.chars() {
        match c {
            '"' => s.push_str("\\\""),
            '\\' => s.push_str("\\\\"),
            '\n' => s.push_str("\\n"),
            '\r' => s.push_str("\\r"),
            '\t' => s.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(s, "\\u{:04x}", c as u32);
            }
            c => s.push(c),
        }
    }
    s.push('"');
}

/// An argument list: one value per parameter, in order.
pub type Args = Vec<Value>;

/// The canonical stringified input: a lone string argument is its text; otherwise the compact JSON
/// of the argument list, where a built value is written as its recipe (see [`Value::display`]).
pub fn stringify_input(args: &[Value]) -> String {
    match args {
        [Value::Str(s)] => s.clone(),
        _ => Value::List(args.to_vec()).display(),
    }
}

/// [`stringify_input`] as a person reads it: a lone empty string is `""`, not nothing at all
/// (a report's "on : original → …" or a test's "pins `f` on  (the tests missed …)").
pub fn shown_input(args: &[Value]) -> String {
    match args {
        [Value::Str(s)] if s.is_empty() => "\"\"".into(),
        _ => stringify_input(args),
    }
}

/// The stringified value of one argument, for the per-argument input distance.
pub fn stringify_arg(v: &Value) -> String {
    match v {
        Value::Str(s) => s.clone(),
        other => other.display(),
    }
}

/// What one call of the function under test did.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Outcome {
    /// Returned normally; `value` is the rendered return value.
    Ok { value: String },
    /// Returned an error (`Err(e)` in Rust) or raised an exception (Python).
    Error {
        #[serde(rename = "type")]
        ty: String,
        message: String,
    },
    /// Panicked (Rust).
    Panic { message: String },
    /// Did not finish within the per-call time limit.
    Timeout,
    /// The worker died during the call (stack overflow, abort, out of memory).
    Crash { detail: String },
}

/// Outcome texts (values, messages) longer than this many bytes are cut, in the workers and
/// again when an answer is read: a function may return a gigabyte-long string, and neither the
/// pipe, the report nor a suggested test should carry it.
pub const CUT_AT: usize = 4096;

/// How many bytes a cut text keeps from its start.
pub const CUT_KEEP: usize = 256;

/// What follows the kept start of a cut text: `… [abex: cut from N, HASH]`, where `N` is the
/// full length and `HASH` a hash of the full text, so that two long texts that differ after
/// their start still differ once cut. The workers (the Rust runtime, the Python worker) write
/// the same marker with their own hash.
pub const CUT_MARK: &str = "\u{2026} [abex: cut from ";

/// `text` cut to [`CUT_KEEP`] bytes and the [`CUT_MARK`] when it is longer than [`CUT_AT`]
/// bytes (and not cut already); as it is otherwise.
pub fn cut(text: String) -> String {
    if text.len() <= CUT_AT || text.contains(CUT_MARK) {
        return text;
    }
    let mut keep = CUT_KEEP;
    while !text.is_char_boundary(keep) {
        keep -= 1;
    }
    let hash = crate::fingerprint::key(&[text.as_bytes()]);
    format!("{}{CUT_MARK}{}, sha256 {}]", &text[..keep], text.len(), &hash[..16])
}

/// The error type of a call whose arguments could not be built: one of their constructors
/// failed (`Version::parse("x")`), so the function itself never ran.
pub const COULD_NOT_BUILD: &str = "abex: could not build";

/// What separates a call's value (or an error's message) from the state, after the call, of an
/// argument the call changed: `() ⟹ receiver = Budget { limit: 1000 }` (Rust: every `&mut`
/// argument; Python: the receiver of a method when the call changed it).
pub const AFTER: &str = " ⟹ ";

impl Outcome {
    /// This outcome without the states after the call of the arguments it changed, and those
    /// states as `(name, state)` (see [`AFTER`]).
    pub fn split_after(&self) -> (Outcome, Vec<(String, String)>) {
        let split = |text: &str| -> (String, Vec<(String, String)>) {
            let mut parts = text.split(AFTER);
            let head = parts.next().unwrap_or_default().to_string();
            let states = parts
                .filter_map(|p| p.split_once(" = ").map(|(n, v)| (n.to_string(), v.to_string())))
                .collect();
            (head, states)
        };
        match self {
            Outcome::Ok { value } => {
                let (value, states) = split(value);
                (Outcome::Ok { value }, states)
            }
            Outcome::Error { ty, message } => {
                let (message, states) = split(message);
                (Outcome::Error { ty: ty.clone(), message }, states)
            }
            other => (other.clone(), Vec::new()),
        }
    }

    /// Whether the function never ran because its arguments could not be built.
    pub fn unbuilt(&self) -> bool {
        matches!(self, Outcome::Error { ty, .. } if ty == COULD_NOT_BUILD)
    }

    /// Whether a text of this outcome was cut (see [`cut`]): it then cannot be written into a
    /// suggested test.
    pub fn is_cut(&self) -> bool {
        match self {
            Outcome::Ok { value: t }
            | Outcome::Error { message: t, .. }
            | Outcome::Panic { message: t }
            | Outcome::Crash { detail: t } => t.contains(CUT_MARK),
            Outcome::Timeout => false,
        }
    }

    /// Whether the call raised: every outcome except `ok`.
    pub fn raised(&self) -> bool {
        !matches!(self, Outcome::Ok { .. })
    }

    /// The canonical stringified outcome.
    pub fn stringify(&self) -> String {
        match self {
            Outcome::Ok { value } => value.clone(),
            Outcome::Error { ty, message } => format!("{ty}: {message}"),
            Outcome::Panic { message } => format!("panic: {message}"),
            Outcome::Timeout => "timeout".to_string(),
            Outcome::Crash { detail } => format!("crash: {detail}"),
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.stringify())
    }
}

/// The items of a written list or tuple's inside (a Rust `Debug` value's, a Python type
/// comment's parameters), split at its top-level commas, each trimmed (strings and chars kept
/// whole; nothing after a trailing comma).
pub fn split_top(inner: &str) -> Vec<String> {
    let mut items = Vec::new();
    let (mut depth, mut quote, mut escaped) = (0i32, None::<char>, false);
    let mut current = String::new();
    for c in inner.chars() {
        match quote {
            Some(q) => {
                if escaped {
                    escaped = false;
                } else if c == '\\' {
                    escaped = true;
                } else if c == q {
                    quote = None;
                }
            }
            None => match c {
                '"' | '\'' => quote = Some(c),
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' => depth -= 1,
                ',' if depth == 0 => {
                    items.push(current.trim().to_string());
                    current.clear();
                    continue;
                }
                _ => {}
            },
        }
        current.push(c);
    }
    if !current.trim().is_empty() {
        items.push(current.trim().to_string());
    }
    items
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_string_input_is_shown_as_one() {
        // titlecase 2.4.1's `create_wordlist_filter_from_file("")`: "on : original → …".
        assert_eq!(shown_input(&[Value::Str(String::new())]), "\"\"");
        assert_eq!(shown_input(&[Value::Str("a/".into())]), "a/");
        assert_eq!(stringify_input(&[Value::Str(String::new())]), "");
    }

    #[test]
    fn a_long_text_is_cut_once_and_keeps_what_tells_it_apart() {
        let long = "7".repeat(1 << 20);
        let cut_long = cut(long.clone());
        assert!(cut_long.len() < 400 && cut_long.starts_with(&"7".repeat(CUT_KEEP)));
        assert!(cut_long.contains(&format!("{CUT_MARK}{}, sha256 ", 1 << 20)), "{cut_long}");
        assert_eq!(cut(cut_long.clone()), cut_long, "a cut text is not cut again");
        assert_ne!(cut(format!("{long}8")), cut_long);
        assert!(Outcome::Ok { value: cut_long }.is_cut());
        assert!(!Outcome::Ok { value: long[..CUT_AT].to_string() }.is_cut());
        let odd = format!("a{}", "é".repeat(3000)); // byte CUT_KEEP is inside an `é`
        let kept = format!("a{}{CUT_MARK}", "é".repeat(127));
        assert!(cut(odd).starts_with(&kept));
    }

    #[test]
    fn a_lone_string_argument_stringifies_to_its_text() {
        assert_eq!(stringify_input(&[Value::Str("a@b.co".into())]), "a@b.co");
    }

    #[test]
    fn other_argument_lists_stringify_to_compact_json() {
        let args = vec![Value::Int(2024), Value::Int(2), Value::Int(29)];
        assert_eq!(stringify_input(&args), "[2024,2,29]");
        let mixed = vec![Value::Str("x".into()), Value::Float(1.5), Value::Null];
        assert_eq!(stringify_input(&mixed), r#"["x",1.5,null]"#);
        let list = vec![Value::List(vec![Value::Bool(true)])];
        assert_eq!(stringify_input(&list), "[[true]]");
    }

    #[test]
    fn floats_stay_floats_and_non_finite_ones_are_strings() {
        assert_eq!(Value::Float(2.0).to_json(), "2.0");
        assert_eq!(Value::Float(f64::NAN).to_json(), "\"NaN\"");
        assert_eq!(Value::Float(f64::NEG_INFINITY).to_json(), "\"-inf\"");
        assert_eq!(Value::Float(1e300).to_json(), "1e300");
    }

    #[test]
    fn strings_are_escaped_as_json() {
        assert_eq!(Value::Str("a\"b\n".into()).to_json(), r#""a\"b\n""#);
        assert_eq!(Value::Str("\u{1}".into()).to_json(), r#""\u0001""#);
    }

    #[test]
    fn wide_integers_round_trip_exactly_through_serde() {
        let v = Value::List(vec![Value::BigUint(u128::MAX), Value::Int(i128::MIN)]);
        let text = serde_json::to_string(&v).unwrap();
        assert_eq!(text, v.to_json());
        assert_eq!(text, format!("[{},{}]", u128::MAX, i128::MIN));
    }

    #[test]
    fn outcomes_stringify_as_type_colon_message() {
        let e = Outcome::Error { ty: "ValueError".into(), message: "Invalid email format.".into() };
        assert_eq!(e.stringify(), "ValueError: Invalid email format.");
        assert_eq!(Outcome::Panic { message: "boom".into() }.stringify(), "panic: boom");
        assert_eq!(Outcome::Ok { value: "Some(3)".into() }.stringify(), "Some(3)");
        assert!(!Outcome::Ok { value: String::new() }.raised());
        assert!(Outcome::Timeout.raised());
    }

    #[test]
    fn a_built_value_is_json_for_workers_and_a_recipe_for_people() {
        let v =
            Value::Built { ctor: "Version::parse".into(), args: vec![Value::Str("1.2.3".into())] };
        let json = v.to_json();
        assert_eq!(json, r#"{"$ctor":"Version::parse","$args":["1.2.3"]}"#);
        assert_eq!(serde_json::to_string(&v).unwrap(), json);
        assert_eq!(Value::from_json(&serde_json::from_str(&json).unwrap()), v);
        let args = vec![v.clone(), Value::Int(3)];
        assert_eq!(stringify_input(&args), r#"[Version::parse("1.2.3"), 3]"#);
        assert_eq!(stringify_arg(&v), r#"Version::parse("1.2.3")"#);
        // Lists and maps without a built value keep their JSON.
        assert_eq!(stringify_input(&[Value::Int(1), Value::Int(2)]), "[1,2]");
        let map = r#"{"$ctor":"x","other":[]}"#;
        assert!(matches!(Value::from_json(&serde_json::from_str(map).unwrap()), Value::Map(_)));
        let ctor = Ctor {
            name: "Comparator".into(),
            form: CtorForm::Fields,
            params: vec![("op".into(), Ty::Bool), ("major".into(), Ty::int(64, false))],
            seeds: Vec::new(),
            defaults: Vec::new(),
        };
        let built = [Value::Built { ctor: "Op::Caret".into(), args: vec![] }, Value::Int(1)];
        assert_eq!(ctor.display(&built), "Comparator { op: Op::Caret, major: 1 }");
    }

    #[test]
    fn integer_ranges_cover_every_width() {
        assert_eq!(Ty::int_range(8, true), (-128, 127));
        assert_eq!(Ty::int_range(8, false), (0, 255));
        assert_eq!(Ty::int_range(128, false), (0, u128::MAX));
        assert_eq!(Ty::int_range(128, true), (i128::MIN, i128::MAX as u128));
    }
}
