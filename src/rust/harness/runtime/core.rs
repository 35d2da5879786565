// The abex harness runtime. abex pastes this file (with `include_str!`) into a scratch copy of the
// user's crate as the body of `pub mod __abex_harness { ... }`, next to generated wrappers that
// decode arguments with `arg`, call the target, and report with `ok` or `result`. It therefore
// uses std only, no `unsafe`, no inner attributes, and absolute `::std` paths (macros included:
// a user `macro_rules! format` must not capture ours). It builds on editions 2015 to 2024.
//
// Protocol (JSON lines, each written line prefixed by `@abex@`, on the file descriptor
// `ABEX_ANSWER_FD` names, else stdout): the worker writes
// `{"abex_harness":1}`, then answers each request line
// `[target_id, [arg0, arg1, ...]]` with exactly one line: `{"ok":"<Debug>"}`,
// `{"err":["<type>","<Debug>"]}`, `{"panic":"<message>"}`, `{"bad":"<message>"}`, or
// `{"timeout":true}`, after which the process exits with code 124. An empty line or EOF ends it.
// With `ABEX_PROBE` set, each answer also carries a `probe` member about the active mutant's
// site (`{"ok":"3","probe":{"reached":1,...}}`; see `runtime/probe.rs`, pasted after this file).
// Responses are buffered and written when no more input is buffered (one write per batch), or
// after every response with `ABEX_FLUSH_EACH=1`. `ABEX_CALL_TIMEOUT_MS` (default 1000, 0 = none)
// is the per-call time limit. The targets `ABEX_HUNG_TARGETS` names (ids separated by commas:
// those that ran into the limit in an earlier process of the same worker) get a shorter one,
// twenty times their slowest call in this process, at least `HUNG_FLOOR_MS`: a function that
// loops forever on some inputs costs the full limit once per worker, not once per such input.

use ::std::any::Any;
use ::std::boxed::Box;
use ::std::io::{BufRead, BufReader, Read, Write};
use ::std::option::Option::{self, None, Some};
use ::std::result::Result::{self, Err, Ok};
use ::std::string::{String, ToString};
use ::std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use ::std::sync::{Arc, Mutex, MutexGuard};
use ::std::vec::Vec;

/// A parsed JSON value; numbers keep their source text so that every integer width stays exact.
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, as its raw text (`-12`, `1.5e3`).
    Num(String),
    /// A string, unescaped.
    Str(String),
    /// An array.
    Arr(Vec<Json>),
    /// An object, members in source order (duplicates kept).
    Obj(Vec<(String, Json)>),
}

impl Json {
    /// Parses one JSON document, surrounded by optional whitespace.
    pub fn parse(text: &str) -> Result<Json, String> {
        let mut p = JsonParser { s: text, b: text.as_bytes(), i: 0, depth: 0 };
        let v = p.value()?;
        p.ws();
        p.check(p.i == p.b.len(), "trailing characters").map(|_| v)
    }
}

struct JsonParser<'a> {
    s: &'a str,
    b: &'a [u8],
    i: usize,
    depth: usize,
}

impl<'a> JsonParser<'a> {
    fn error(&self, what: &str) -> String {
        ::std::format!("invalid JSON: {} at byte {}", what, self.i)
    }

    fn check(&self, ok: bool, what: &str) -> Result<(), String> {
        if ok {
            Ok(())
        } else {
            Err(self.error(what))
        }
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).cloned()
    }

    fn ws(&mut self) {
        while let Some(b' ') | Some(b'\t') | Some(b'\n') | Some(b'\r') = self.peek() {
            self.i += 1;
        }
    }

    // Consumes `c` if it comes next (no whitespace skipped).
    fn eat(&mut self, c: u8) -> bool {
        let hit = self.peek() == Some(c);
        self.i += hit as usize;
        hit
    }

    // Skips whitespace, then consumes `c` if it comes next.
    fn skip(&mut self, c: u8) -> bool {
        self.ws();
        self.eat(c)
    }

    fn digits(&mut self) -> usize {
        let start = self.i;
        while self.peek().map_or(false, |c| c.is_ascii_digit()) {
            self.i += 1;
        }
        self.i - start
    }

    fn value(&mut self) -> Result<Json, String> {
        self.ws();
        match self.peek() {
            Some(b'"') => self.string().map(Json::Str),
            Some(b'[') => self.nested(false),
            Some(b'{') => self.nested(true),
            Some(b'-') | Some(b'0'..=b'9') => self.number(),
            Some(b'n') => self.word("null", Json::Null),
            Some(b't') => self.word("true", Json::Bool(true)),
            Some(b'f') => self.word("false", Json::Bool(false)),
            Some(_) => Err(self.error("unexpected character")),
            None => Err(self.error("unexpected end of input")),
        }
    }

    fn word(&mut self, word: &str, v: Json) -> Result<Json, String> {
        self.check(self.b[self.i..].starts_with(word.as_bytes()), "invalid literal")?;
        self.i += word.len();
        Ok(v)
    }

    fn number(&mut self) -> Result<Json, String> {
        let start = self.i;
        self.eat(b'-');
        let int = self.eat(b'0') || self.digits() > 0;
        let frac = !self.eat(b'.') || self.digits() > 0;
        let exp = !(self.eat(b'e') || self.eat(b'E')) || {
            let _ = self.eat(b'+') || self.eat(b'-');
            self.digits() > 0
        };
        self.check(int && frac && exp, "invalid number")?;
        Ok(Json::Num(self.s[start..self.i].to_string()))
    }

    // An array, or an object when `obj`; called on the opening bracket.
    fn nested(&mut self, obj: bool) -> Result<Json, String> {
        self.i += 1;
        self.depth += 1;
        self.check(self.depth <= 500, "nesting too deep")?;
        let close = if obj { b'}' } else { b']' };
        let (mut items, mut members) = (Vec::new(), Vec::new());
        if !self.skip(close) {
            loop {
                if obj {
                    self.ws();
                    self.check(self.peek() == Some(b'"'), "expected a string key")?;
                    let key = self.string()?;
                    let colon = self.skip(b':');
                    self.check(colon, "expected ':'")?;
                    members.push((key, self.value()?));
                } else {
                    items.push(self.value()?);
                }
                if self.skip(close) {
                    break;
                }
                let comma = self.eat(b',');
                self.check(comma, "expected ',' or a closing bracket")?;
            }
        }
        self.depth -= 1;
        Ok(if obj { Json::Obj(members) } else { Json::Arr(items) })
    }

    // Called on the opening quote. Unescaped runs are copied as whole slices; they always end on
    // an ASCII byte, hence on a char boundary.
    fn string(&mut self) -> Result<String, String> {
        self.i += 1;
        let mut out = String::new();
        loop {
            let start = self.i;
            while let Some(c) = self.peek() {
                if c == b'"' || c == b'\\' || c < 0x20 {
                    break;
                }
                self.i += 1;
            }
            out.push_str(&self.s[start..self.i]);
            match self.peek() {
                Some(b'"') => {
                    self.i += 1;
                    return Ok(out);
                }
                Some(b'\\') => self.i += 1,
                Some(_) => return Err(self.error("control character in string")),
                None => return Err(self.error("unterminated string")),
            }
            let escape = self.peek().unwrap_or(0);
            self.i += 1;
            match b"\"\\/bfnrt".iter().position(|&e| e == escape) {
                Some(k) => out.push(['"', '\\', '/', '\u{8}', '\u{c}', '\n', '\r', '\t'][k]),
                None if escape == b'u' => out.push(self.unicode_escape()?),
                None => return Err(self.error("invalid escape")),
            }
        }
    }

    // After `\u`: four hex digits, and a second `\u` escape when the first is a high surrogate.
    fn unicode_escape(&mut self) -> Result<char, String> {
        let hi = self.hex4()?;
        let code = match hi {
            0xD800..=0xDBFF if self.eat(b'\\') && self.eat(b'u') => {
                let lo = self.hex4()?;
                self.check((0xDC00..=0xDFFF).contains(&lo), "unpaired surrogate")?;
                0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
            }
            0xD800..=0xDFFF => return Err(self.error("unpaired surrogate")),
            _ => hi,
        };
        ::std::char::from_u32(code).ok_or_else(|| self.error("invalid code point"))
    }

    fn hex4(&mut self) -> Result<u32, String> {
        let mut v = 0;
        for _ in 0..4 {
            let digit = self.peek().and_then(|c| (c as char).to_digit(16));
            v = v * 16 + digit.ok_or_else(|| self.error("invalid \\u escape"))?;
            self.i += 1;
        }
        Ok(v)
    }
}

/// Decodes a Rust value from its JSON form (abex's value model: integers as JSON integers,
/// non-finite floats as "NaN"/"inf"/"-inf", chars as one-character strings, `None` as null,
/// sequences, arrays and tuples as arrays).
pub trait FromJson: Sized {
    /// Decodes `j`, or explains why it does not fit.
    fn from_json(j: &Json) -> Result<Self, String>;
}

fn mismatch<T>(want: &str, j: &Json) -> Result<T, String> {
    let got = match *j {
        Json::Null => "null".to_string(),
        Json::Bool(b) => b.to_string(),
        Json::Num(ref n) => n.clone(),
        Json::Str(ref s) if s.len() <= 40 => ::std::format!("string {:?}", s),
        Json::Str(_) => "a long string".to_string(),
        Json::Arr(ref a) => ::std::format!("an array of length {}", a.len()),
        Json::Obj(_) => "an object".to_string(),
    };
    Err(::std::format!("expected {}, got {}", want, got))
}

// Prefixes an error inside a sequence or tuple with the item's index.
fn at(i: usize, e: String) -> String {
    ::std::format!("item {}: {}", i, e)
}

// The text of an integer literal (`-0` read as `0`), or why `j` is not one.
fn int_text<'a>(j: &'a Json, ty: &str) -> Result<&'a str, String> {
    match *j {
        Json::Num(ref n) if n == "-0" => Ok("0"),
        Json::Num(ref n) if n.bytes().all(|c| c == b'-' || c.is_ascii_digit()) => Ok(n),
        Json::Num(ref n) => Err(::std::format!("expected an integer ({}), got {}", ty, n)),
        _ => mismatch(ty, j),
    }
}

macro_rules! abex_int_impls {
    ($($t:ident)*) => {$(
        impl FromJson for $t {
            fn from_json(j: &Json) -> Result<$t, String> {
                let text = int_text(j, ::std::stringify!($t))?;
                text.parse::<$t>().map_err(|_| {
                    ::std::format!("{} is out of range for {}", text, ::std::stringify!($t))
                })
            }
        }
    )*};
}
abex_int_impls!(i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize);

macro_rules! abex_float_impls {
    ($($t:ident)*) => {$(
        impl FromJson for $t {
            fn from_json(j: &Json) -> Result<$t, String> {
                match *j {
                    Json::Num(ref n) => n.parse::<$t>().map_err(|e| ::std::format!("{}", e)),
                    Json::Str(ref s) if s == "NaN" => Ok(<$t>::NAN),
                    Json::Str(ref s) if s == "inf" => Ok(<$t>::INFINITY),
                    Json::Str(ref s) if s == "-inf" => Ok(<$t>::NEG_INFINITY),
                    _ => mismatch(::std::concat!(::std::stringify!($t),
                        " (a number, \"NaN\", \"inf\" or \"-inf\")"), j),
                }
            }
        }
    )*};
}
abex_float_impls!(f32 f64);

impl FromJson for bool {
    fn from_json(j: &Json) -> Result<bool, String> {
        match *j {
            Json::Bool(b) => Ok(b),
            _ => mismatch("bool", j),
        }
    }
}

impl FromJson for char {
    fn from_json(j: &Json) -> Result<char, String> {
        let mut chars = if let Json::Str(ref s) = *j { s.chars() } else { "".chars() };
        match (chars.next(), chars.next()) {
            (Some(c), None) => Ok(c),
            _ => mismatch("char (a one-character string)", j),
        }
    }
}

impl FromJson for String {
    fn from_json(j: &Json) -> Result<String, String> {
        match *j {
            Json::Str(ref s) => Ok(s.clone()),
            _ => mismatch("a string", j),
        }
    }
}

impl FromJson for () {
    fn from_json(j: &Json) -> Result<(), String> {
        match *j {
            Json::Null => Ok(()),
            Json::Arr(ref a) if a.is_empty() => Ok(()),
            _ => mismatch("() (null or [])", j),
        }
    }
}

impl<T: FromJson> FromJson for Vec<T> {
    fn from_json(j: &Json) -> Result<Vec<T>, String> {
        match *j {
            Json::Arr(ref a) => {
                a.iter().enumerate().map(|(i, x)| T::from_json(x).map_err(|e| at(i, e))).collect()
            }
            _ => mismatch("an array", j),
        }
    }
}

impl<T: FromJson> FromJson for Option<T> {
    fn from_json(j: &Json) -> Result<Option<T>, String> {
        match *j {
            Json::Null => Ok(None),
            _ => T::from_json(j).map(Some),
        }
    }
}

impl<T: FromJson> FromJson for Box<T> {
    fn from_json(j: &Json) -> Result<Box<T>, String> {
        T::from_json(j).map(Box::new)
    }
}

impl<T: FromJson, const N: usize> FromJson for [T; N] {
    fn from_json(j: &Json) -> Result<[T; N], String> {
        match *j {
            Json::Arr(ref a) if a.len() != N => {
                Err(::std::format!("expected an array of length {}, got length {}", N, a.len()))
            }
            _ => <[T; N] as ::std::convert::TryFrom<Vec<T>>>::try_from(Vec::from_json(j)?)
                .map_err(|_| "array length mismatch".to_string()),
        }
    }
}

macro_rules! abex_tuple_impls {
    ($(($n:expr; $($t:ident $i:tt)+))+) => {$(
        impl<$($t: FromJson),+> FromJson for ($($t,)+) {
            fn from_json(j: &Json) -> Result<($($t,)+), String> {
                match *j {
                    Json::Arr(ref a) if a.len() == $n => {
                        Ok(($($t::from_json(&a[$i]).map_err(|e| at($i, e))?,)+))
                    }
                    Json::Arr(ref a) => Err(::std::format!(
                        "expected a tuple of {} items, got {}", $n, a.len())),
                    _ => mismatch("an array (tuple)", j),
                }
            }
        }
    )+};
}
abex_tuple_impls! {
    (1; A 0) (2; A 0 B 1) (3; A 0 B 1 C 2) (4; A 0 B 1 C 2 D 3) (5; A 0 B 1 C 2 D 3 E 4)
    (6; A 0 B 1 C 2 D 3 E 4 F 5) (7; A 0 B 1 C 2 D 3 E 4 F 5 G 6)
    (8; A 0 B 1 C 2 D 3 E 4 F 5 G 6 H 7)
}

/// Decodes argument `i` of a call (an error names the argument, or says it is missing).
pub fn arg<T: FromJson>(args: &[Json], i: usize) -> Result<T, String> {
    match args.get(i) {
        Some(j) => T::from_json(j).map_err(|e| ::std::format!("argument {}: {}", i, e)),
        None => Err(::std::format!("missing argument {} (got {})", i, args.len())),
    }
}

/// What one call did, as reported on the wire.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Returned; the `Debug` text of the value.
    Ok(String),
    /// Returned `Err(e)`: the error's type name and the `Debug` text of `e`.
    Err(String, String),
    /// Panicked with this message.
    Panic(String),
    /// The request or its arguments could not be decoded.
    Bad(String),
}

/// A returned value, rendered with `Debug`.
pub fn ok<T: ::std::fmt::Debug + ?Sized>(v: &T) -> Outcome {
    Outcome::Ok(::std::format!("{:?}", v))
}

/// A returned `Result` of any error type (works through aliases like `io::Result<T>`).
pub fn result<T: ::std::fmt::Debug, E: ::std::fmt::Debug>(r: Result<T, E>) -> Outcome {
    match r {
        Ok(v) => ok(&v),
        Err(e) => Outcome::Err(::std::any::type_name::<E>().to_string(), ::std::format!("{:?}", e)),
    }
}

/// `o` with the state, after the call, of each argument the call borrowed mutably (`name =
/// state` each, after `sep`): a method on `&mut self` that returns `()` still shows what it did.
pub fn after(o: Outcome, sep: &str, states: &[(&str, String)]) -> Outcome {
    let mut tail = String::new();
    for &(name, ref state) in states {
        tail.push_str(&::std::format!("{}{} = {}", sep, name, state));
    }
    match o {
        Outcome::Ok(v) => Outcome::Ok(v + &tail),
        Outcome::Err(t, m) => Outcome::Err(t, m + &tail),
        other => other,
    }
}

/// The response line for `o`, without its newline.
pub fn encode(o: &Outcome) -> String {
    let mut line = Vec::new();
    encode_into(&mut line, o, None);
    line.pop();
    String::from_utf8(line.split_off(MARK.len())).unwrap_or_default()
}

/// Prefix of every line the worker writes, so that output of the code under test is told apart.
const MARK: &[u8] = b"@abex@";

/// Texts longer than this many bytes are cut before they are written (abex's `value::CUT_AT`).
pub const CUT_AT: usize = 4096;
/// How many bytes a cut text keeps from its start (abex's `value::CUT_KEEP`).
pub const CUT_KEEP: usize = 256;
/// What follows the kept start of a cut text (abex's `value::CUT_MARK`).
pub const CUT_MARK: &str = "\u{2026} [abex: cut from ";

/// `s` as written: cut to its start, its length and an FNV-1a hash of the whole when it is
/// longer than `CUT_AT` bytes (a function may return a gigabyte-long string).
pub fn cut(s: &str) -> ::std::borrow::Cow<'_, str> {
    if s.len() <= CUT_AT {
        return ::std::borrow::Cow::Borrowed(s);
    }
    let mut keep = CUT_KEEP;
    while !s.is_char_boundary(keep) {
        keep -= 1;
    }
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in s.as_bytes() {
        hash = (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    ::std::borrow::Cow::Owned(::std::format!(
        "{}{}{}, fnv1a {:016x}]",
        &s[..keep],
        CUT_MARK,
        s.len(),
        hash
    ))
}

// Writes the answer line for `o`, with the `probe` member `probe` (`,"probe":{…}`) if any.
fn encode_into(out: &mut Vec<u8>, o: &Outcome, probe: Option<&str>) {
    out.extend_from_slice(MARK);
    let (key, text): (&[u8], &str) = match *o {
        Outcome::Ok(ref s) => (b"{\"ok\":", s),
        Outcome::Err(ref t, ref m) => {
            out.extend_from_slice(b"{\"err\":[");
            json_str(out, &cut(t));
            out.push(b',');
            json_str(out, &cut(m));
            out.push(b']');
            out.extend_from_slice(probe.unwrap_or("").as_bytes());
            out.extend_from_slice(b"}\n");
            return;
        }
        Outcome::Panic(ref m) => (b"{\"panic\":", m),
        Outcome::Bad(ref m) => (b"{\"bad\":", m),
    };
    out.extend_from_slice(key);
    json_str(out, &cut(text));
    out.extend_from_slice(probe.unwrap_or("").as_bytes());
    out.extend_from_slice(b"}\n");
}

// Writes `s` as a JSON string literal: `"` and `\` escaped, control characters as `\n`, `\r`,
// `\t` or `\u00XX`, everything else (non-ASCII included) as is.
fn json_str(out: &mut Vec<u8>, s: &str) {
    let b = s.as_bytes();
    let mut start = 0;
    out.push(b'"');
    for (i, &c) in b.iter().enumerate() {
        if c == b'"' || c == b'\\' || c < 0x20 {
            out.extend_from_slice(&b[start..i]);
            start = i + 1;
            match c {
                b'"' | b'\\' => out.extend_from_slice(&[b'\\', c]),
                b'\n' => out.extend_from_slice(b"\\n"),
                b'\r' => out.extend_from_slice(b"\\r"),
                b'\t' => out.extend_from_slice(b"\\t"),
                _ => out.extend_from_slice(::std::format!("\\u{:04x}", c).as_bytes()),
            }
        }
    }
    out.extend_from_slice(&b[start..]);
    out.push(b'"');
}

::std::thread_local! {
    // Set while a call runs on this thread: its panics are reported, not printed.
    static ABEX_IN_CALL: ::std::cell::Cell<bool> = ::std::cell::Cell::new(false);
}

static ABEX_HOOK: ::std::sync::Once = ::std::sync::Once::new();

// Panics inside a call print nothing (the protocol reports them); any other panic (in a thread
// the target spawned, or a harness bug) still goes to the previous hook.
fn install_panic_hook() {
    ABEX_HOOK.call_once(|| {
        let previous = ::std::panic::take_hook();
        ::std::panic::set_hook(Box::new(move |info| {
            if !ABEX_IN_CALL.try_with(|f| f.get()).unwrap_or(false) {
                previous(info)
            }
        }));
    });
}

fn panic_message(payload: Box<dyn Any + Send>) -> String {
    let msg = match (payload.downcast_ref::<&str>(), payload.downcast_ref::<String>()) {
        (Some(s), _) => s.to_string(),
        (_, Some(s)) => s.clone(),
        _ => "Box<dyn Any>".to_string(),
    };
    // A payload whose `drop` panics must not take the worker down.
    let _ = ::std::panic::catch_unwind(::std::panic::AssertUnwindSafe(move || drop(payload)));
    msg
}

// Responses not yet written, and where they go. The main thread locks it only between calls.
struct Sink<W> {
    buf: Vec<u8>,
    out: W,
}

impl<W: Write> Sink<W> {
    fn flush(&mut self) -> ::std::io::Result<()> {
        self.out.write_all(&self.buf)?;
        self.buf.clear();
        self.out.flush()
    }
}

struct Shared<W> {
    sink: Mutex<Sink<W>>,
    calls: AtomicUsize, // bumped before and after each call: odd while one runs
    done: AtomicBool,
    limit_ms: AtomicU64, // the running call's time limit
}

/// The shortest time limit of a target that hung before (see the protocol at the top). Each
/// such call that hangs again costs this much plus a new process: a function that loops forever
/// on a tenth of its inputs (`while size >= unit` with `unit` 1) hangs dozens of times in an
/// exploration (57 times on bytesize's `ideal_unit_no_std`: 4.7 s at 50 ms, 1.6 s at 20 ms).
pub const HUNG_FLOOR_MS: u64 = 20;

// The time limit of each call: the full one, or a shorter one for a target that hung before.
struct Limits {
    full_ms: u64,
    hung: Vec<usize>,
    slowest_us: Vec<(usize, u64)>, // per target: its slowest call in this process
}

impl Limits {
    fn of(&self, id: usize) -> u64 {
        if self.full_ms == 0 || !self.hung.contains(&id) {
            return self.full_ms;
        }
        let slowest = self.slowest_us.iter().find(|(t, _)| *t == id).map_or(0, |(_, us)| *us);
        let twenty = slowest.saturating_mul(20) / 1000;
        self.full_ms.min(if twenty > HUNG_FLOOR_MS { twenty } else { HUNG_FLOOR_MS })
    }

    fn took(&mut self, id: usize, us: u64) {
        match self.slowest_us.iter_mut().find(|(t, _)| *t == id) {
            Some(entry) => {
                if us > entry.1 {
                    entry.1 = us;
                }
            }
            None => self.slowest_us.push((id, us)),
        }
    }
}

fn lock<W>(m: &Mutex<Sink<W>>) -> MutexGuard<'_, Sink<W>> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

// Decodes a request line and runs it under its time limit, catching panics.
fn call<W>(
    line: &str,
    dispatch: fn(usize, &[Json]) -> Outcome,
    shared: &Shared<W>,
    limits: &mut Limits,
) -> Outcome {
    let calls = &shared.calls;
    let req = match Json::parse(line) {
        Ok(j) => j,
        Err(e) => return Outcome::Bad(e),
    };
    let request = match req {
        Json::Arr(ref items) if items.len() == 2 => match (&items[0], &items[1]) {
            (Json::Num(id), Json::Arr(args)) => id.parse::<usize>().ok().map(|id| (id, args)),
            _ => None,
        },
        _ => None,
    };
    let (id, args) = match request {
        Some(r) => r,
        None => return Outcome::Bad("a request is [target_id, [args...]]".to_string()),
    };
    shared.limit_ms.store(limits.of(id), Ordering::SeqCst);
    let started = ::std::time::Instant::now();
    calls.fetch_add(1, Ordering::SeqCst);
    ABEX_IN_CALL.with(|f| f.set(true));
    let r = ::std::panic::catch_unwind(::std::panic::AssertUnwindSafe(|| dispatch(id, args)));
    ABEX_IN_CALL.with(|f| f.set(false));
    calls.fetch_add(1, Ordering::SeqCst);
    limits.took(id, started.elapsed().as_micros() as u64);
    r.unwrap_or_else(|payload| Outcome::Panic(panic_message(payload)))
}

// Fires when one call has been running for `timeout_ms`: writes what is buffered plus the timeout
// line, and exits. The call counter is checked again under the lock, so a call that finished in
// the meantime is never blamed. It looks every tenth of the running call's limit (1 to 10 ms),
// so that a shorter limit is kept as closely as the full one.
fn watchdog<W: Write>(shared: &Shared<W>, timeout_ms: u64) {
    let (mut seen, mut since) = (0, ::std::time::Instant::now());
    while !shared.done.load(Ordering::SeqCst) {
        let limit_ms = shared.limit_ms.load(Ordering::SeqCst).min(timeout_ms);
        let tick = ::std::time::Duration::from_millis((limit_ms / 10).clamp(1, 10));
        ::std::thread::park_timeout(tick);
        let current = shared.calls.load(Ordering::SeqCst);
        if current & 1 == 0 || current != seen {
            seen = current;
            since = ::std::time::Instant::now();
            continue;
        }
        let limit = ::std::time::Duration::from_millis(shared.limit_ms.load(Ordering::SeqCst));
        if since.elapsed() >= limit {
            let mut sink = lock(&shared.sink);
            if shared.calls.load(Ordering::SeqCst) == current {
                sink.buf.extend_from_slice(MARK);
                sink.buf.extend_from_slice(b"{\"timeout\":true}\n");
                let _ = sink.flush();
                ::std::process::exit(124);
            }
        }
    }
}

/// The worker loop over any input and output (see the protocol at the top of this file); returns
/// the output once the input ends. `timeout_ms` 0 means no time limit.
pub fn serve_with<R: Read, W: Write + Send + 'static>(
    input: R,
    output: W,
    dispatch: fn(usize, &[Json]) -> Outcome,
    timeout_ms: u64,
    flush_each: bool,
) -> W {
    serve_hung(input, output, dispatch, timeout_ms, Vec::new(), flush_each)
}

/// [`serve_with`] where the targets `hung` ran into the limit before and get a shorter one.
pub fn serve_hung<R: Read, W: Write + Send + 'static>(
    input: R,
    output: W,
    dispatch: fn(usize, &[Json]) -> Outcome,
    timeout_ms: u64,
    hung: Vec<usize>,
    flush_each: bool,
) -> W {
    install_panic_hook();
    let mut hello = MARK.to_vec();
    hello.extend_from_slice(b"{\"abex_harness\":1}\n");
    let sink = Sink { buf: hello, out: output };
    let shared = Arc::new(Shared {
        sink: Mutex::new(sink),
        calls: AtomicUsize::new(0),
        done: AtomicBool::new(false),
        limit_ms: AtomicU64::new(timeout_ms),
    });
    let mut limits = Limits { full_ms: timeout_ms, hung, slowest_us: Vec::new() };
    let mut live = lock(&shared.sink).flush().is_ok();
    let mut guard = None;
    if live && timeout_ms > 0 {
        let watched = shared.clone();
        let spawned = ::std::thread::Builder::new()
            .name("abex-watchdog".to_string())
            .spawn(move || watchdog(&watched, timeout_ms));
        guard = spawned.ok();
    }
    let mut reader = BufReader::with_capacity(1 << 16, input);
    let mut line = Vec::new();
    while live {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        probe_reset();
        let outcome = match ::std::str::from_utf8(&line) {
            Ok(text) if text.trim().is_empty() => break,
            Ok(text) => call(text, dispatch, &shared, &mut limits),
            Err(_) => Outcome::Bad("the request is not valid UTF-8".to_string()),
        };
        let probe = probe_report();
        let mut sink = lock(&shared.sink);
        encode_into(&mut sink.buf, &outcome, probe.as_ref().map(|p| p.as_str()));
        if flush_each || reader.buffer().is_empty() {
            live = sink.flush().is_ok();
        }
    }
    let _ = lock(&shared.sink).flush();
    shared.done.store(true, Ordering::SeqCst);
    if let Some(handle) = guard {
        handle.thread().unpark();
        let _ = handle.join();
    }
    match Arc::try_unwrap(shared) {
        Ok(shared) => shared.sink.into_inner().unwrap_or_else(|p| p.into_inner()).out,
        Err(_) => ::std::panic!("abex harness: the watchdog outlived the worker loop"),
    }
}

/// The worker: serves requests from stdin until an empty line or EOF, with the time limit from
/// `ABEX_CALL_TIMEOUT_MS` and per-response flushing when `ABEX_FLUSH_EACH=1`. It answers on the
/// file descriptor `ABEX_ANSWER_FD` names (opened as `/dev/fd/N`: no `unsafe` here), so what
/// the code under test prints on stdout never mixes with the answers; on stdout without it.
pub fn serve(dispatch: fn(usize, &[Json]) -> Outcome) {
    let timeout_ms =
        ::std::env::var("ABEX_CALL_TIMEOUT_MS").ok().and_then(|v| v.trim().parse().ok());
    let flush_each = ::std::env::var("ABEX_FLUSH_EACH").map(|v| v.trim() == "1").unwrap_or(false);
    let timeout_ms = timeout_ms.unwrap_or(1000);
    let hung: Vec<usize> = ::std::env::var("ABEX_HUNG_TARGETS")
        .map(|v| v.split(',').filter_map(|id| id.trim().parse().ok()).collect())
        .unwrap_or_default();
    let channel = ::std::env::var("ABEX_ANSWER_FD").ok().and_then(|fd| {
        let fd: u32 = fd.trim().parse().ok()?;
        let path = ::std::format!("/dev/fd/{}", fd);
        ::std::fs::OpenOptions::new().write(true).open(path).ok()
    });
    let stdin = ::std::io::stdin();
    match channel {
        Some(answers) => {
            serve_hung(stdin, answers, dispatch, timeout_ms, hung, flush_each);
        }
        None => {
            serve_hung(stdin, ::std::io::stdout(), dispatch, timeout_ms, hung, flush_each);
        }
    }
}
