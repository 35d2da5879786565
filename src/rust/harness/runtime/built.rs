// Built values in the abex harness runtime. abex pastes this file after `runtime/core.rs` in
// `pub mod __abex_harness { ... }`, with the same rules: std only, no `unsafe`, no inner
// attributes, absolute `::std` paths, editions 2015 to 2024.
//
// A built value arrives as a recipe, `{"$ctor": "Version::parse", "$args": ["1.2.3"]}`. The
// crate's own types get `FromJson` impls generated next to them (abex's `builders.rs`); the std
// types that are recipes (`Duration`, `SystemTime`, `NonZero*`, `PathBuf`, `OsString`,
// `Ordering`) and the std containers (`Rc`, `Arc`, `Cow`, sets, deques, maps) are decoded here.
// A constructor that returns `Err`/`None` or panics makes the call's outcome the error
// `abex: could not build` (an argument that cannot be decoded stays "bad arguments").

/// Marks an error text as "could not build" (a constructor failed), not "bad arguments".
pub const BUILD_MARK: &str = "\u{1}abex-could-not-build\u{1}";

/// The error of constructor `ctor` failing with `detail`.
pub fn could_not_build(ctor: &str, detail: &str) -> String {
    ::std::format!("{}{}: {}", BUILD_MARK, ctor, detail)
}

/// The outcome of a call whose arguments failed to decode or build.
pub fn arg_failed(e: String) -> Outcome {
    match e.find(BUILD_MARK) {
        Some(at) => {
            let mut text = e[..at].to_string();
            text.push_str(&e[at + BUILD_MARK.len()..]);
            Outcome::Err("abex: could not build".to_string(), text)
        }
        None => Outcome::Bad(e),
    }
}

/// The constructor's name and arguments of a recipe for a `ty`.
pub fn recipe<'j>(j: &'j Json, ty: &str) -> Result<(&'j str, &'j [Json]), String> {
    if let Json::Obj(ref members) = *j {
        let ctor = members.iter().find(|m| m.0 == "$ctor").map(|m| &m.1);
        let args = members.iter().find(|m| m.0 == "$args").map(|m| &m.1);
        if let (Some(&Json::Str(ref c)), Some(&Json::Arr(ref a))) = (ctor, args) {
            return Ok((c.as_str(), a.as_slice()));
        }
    }
    mismatch(&::std::format!("a recipe for {} ({{\"$ctor\": …, \"$args\": […]}})", ty), j)
}

/// The error for a constructor name a type does not have.
pub fn unknown_ctor<T>(ty: &str, ctor: &str) -> Result<T, String> {
    Err(::std::format!("`{}` has no constructor `{}`", ty, ctor))
}

/// The error for a constructor given the wrong number of arguments.
pub fn arity<T>(ctor: &str, want: usize, got: usize) -> Result<T, String> {
    Err(::std::format!("`{}` takes {} arguments, got {}", ctor, want, got))
}

/// Runs constructor `ctor`; a panic in it means the value could not be built.
pub fn guard<T, F: FnOnce() -> Result<T, String>>(ctor: &str, f: F) -> Result<T, String> {
    match ::std::panic::catch_unwind(::std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => {
            Err(could_not_build(ctor, &::std::format!("panicked: {}", panic_message(payload))))
        }
    }
}

/// Leaks `v`, so that a built value may borrow from its arguments for as long as it lives.
pub fn leak<T: 'static>(v: T) -> &'static mut T {
    Box::leak(Box::new(v))
}

/// Describes a constructor's error: its `Debug` text when it has one (autoref specialisation:
/// `(&&Describe(&e)).describe()` picks the `Debug` impl when the type has one).
pub struct Describe<'a, T: 'a>(pub &'a T);

/// The `Debug` description.
pub trait DescribeDebug {
    /// The text.
    fn describe(&self) -> String;
}

/// The fallback description.
pub trait DescribeAny {
    /// The text.
    fn describe(&self) -> String;
}

impl<'a, 'b, T: ::std::fmt::Debug> DescribeDebug for &'b Describe<'a, T> {
    fn describe(&self) -> String {
        ::std::format!("{:?}", self.0)
    }
}

impl<'a, T> DescribeAny for Describe<'a, T> {
    fn describe(&self) -> String {
        ::std::format!("an error of type {}", ::std::any::type_name::<T>())
    }
}

/// Renders a returned value: its `Debug` text, else its `Display` text, else `<type name>`
/// (autoref specialisation again: `(&&&Render(&v)).abex_render()`).
pub struct Render<'a, T: ?Sized + 'a>(pub &'a T);

/// Rendering with `Debug`.
pub trait RenderDebug {
    /// The text.
    fn abex_render(&self) -> String;
}

/// Rendering with `Display`.
pub trait RenderDisplay {
    /// The text.
    fn abex_render(&self) -> String;
}

/// Rendering of a value that has neither.
pub trait RenderOpaque {
    /// The text.
    fn abex_render(&self) -> String;
}

impl<'a, 'b, 'c, T: ::std::fmt::Debug + ?Sized> RenderDebug for &'c &'b Render<'a, T> {
    fn abex_render(&self) -> String {
        ::std::format!("{:?}", self.0)
    }
}

impl<'a, 'b, T: ::std::fmt::Display + ?Sized> RenderDisplay for &'b Render<'a, T> {
    fn abex_render(&self) -> String {
        ::std::format!("{}", self.0)
    }
}

impl<'a, T: ?Sized> RenderOpaque for Render<'a, T> {
    fn abex_render(&self) -> String {
        ::std::format!("<{}>", ::std::any::type_name::<T>())
    }
}

/// The type name of a value (for an error's type).
pub fn type_name_of<T: ?Sized>(_: &T) -> &'static str {
    ::std::any::type_name::<T>()
}

// ---- std containers: plain values ----

impl<T: FromJson> FromJson for ::std::rc::Rc<T> {
    fn from_json(j: &Json) -> Result<Self, String> {
        T::from_json(j).map(::std::rc::Rc::new)
    }
}

impl<T: FromJson> FromJson for ::std::sync::Arc<T> {
    fn from_json(j: &Json) -> Result<Self, String> {
        T::from_json(j).map(::std::sync::Arc::new)
    }
}

impl<T: FromJson> FromJson for ::std::cell::RefCell<T> {
    fn from_json(j: &Json) -> Result<Self, String> {
        T::from_json(j).map(::std::cell::RefCell::new)
    }
}

impl<T: FromJson> FromJson for ::std::cell::Cell<T> {
    fn from_json(j: &Json) -> Result<Self, String> {
        T::from_json(j).map(::std::cell::Cell::new)
    }
}

impl FromJson for Box<str> {
    fn from_json(j: &Json) -> Result<Self, String> {
        String::from_json(j).map(String::into_boxed_str)
    }
}

impl<T: FromJson> FromJson for Box<[T]> {
    fn from_json(j: &Json) -> Result<Self, String> {
        Vec::<T>::from_json(j).map(Vec::into_boxed_slice)
    }
}

impl FromJson for ::std::rc::Rc<str> {
    fn from_json(j: &Json) -> Result<Self, String> {
        String::from_json(j).map(::std::rc::Rc::from)
    }
}

impl FromJson for ::std::sync::Arc<str> {
    fn from_json(j: &Json) -> Result<Self, String> {
        String::from_json(j).map(::std::sync::Arc::from)
    }
}

impl<T: FromJson> FromJson for ::std::rc::Rc<[T]> {
    fn from_json(j: &Json) -> Result<Self, String> {
        Vec::<T>::from_json(j).map(::std::rc::Rc::from)
    }
}

impl<T: FromJson> FromJson for ::std::sync::Arc<[T]> {
    fn from_json(j: &Json) -> Result<Self, String> {
        Vec::<T>::from_json(j).map(::std::sync::Arc::from)
    }
}

impl FromJson for ::std::borrow::Cow<'static, str> {
    fn from_json(j: &Json) -> Result<Self, String> {
        String::from_json(j).map(::std::borrow::Cow::Owned)
    }
}

impl<T: FromJson + Clone> FromJson for ::std::borrow::Cow<'static, [T]> {
    fn from_json(j: &Json) -> Result<Self, String> {
        Vec::<T>::from_json(j).map(::std::borrow::Cow::Owned)
    }
}

impl<T: FromJson + Clone> FromJson for ::std::borrow::Cow<'static, T> {
    fn from_json(j: &Json) -> Result<Self, String> {
        T::from_json(j).map(::std::borrow::Cow::Owned)
    }
}

impl FromJson for ::std::str::Chars<'static> {
    fn from_json(j: &Json) -> Result<Self, String> {
        let s: &'static str = Box::leak(String::from_json(j)?.into_boxed_str());
        Ok(s.chars())
    }
}

impl<T: FromJson> FromJson for ::std::vec::IntoIter<T> {
    fn from_json(j: &Json) -> Result<Self, String> {
        Vec::<T>::from_json(j).map(::std::iter::IntoIterator::into_iter)
    }
}

impl<T> FromJson for ::std::marker::PhantomData<T> {
    fn from_json(j: &Json) -> Result<Self, String> {
        let (c, a) = recipe(j, "PhantomData")?;
        match (c, a.len()) {
            ("PhantomData", 0) => Ok(::std::marker::PhantomData),
            _ => unknown_ctor("PhantomData", c),
        }
    }
}

macro_rules! abex_collection_impls {
    ($($t:ident [$($b:tt)*])*) => {$(
        impl<T: FromJson $($b)*> FromJson for ::std::collections::$t<T> {
            fn from_json(j: &Json) -> Result<Self, String> {
                Vec::<T>::from_json(j).map(|v| v.into_iter().collect())
            }
        }
    )*};
}
abex_collection_impls! {
    HashSet [+ ::std::cmp::Eq + ::std::hash::Hash]
    BTreeSet [+ ::std::cmp::Ord]
    VecDeque []
    BinaryHeap [+ ::std::cmp::Ord]
    LinkedList []
}

impl<K: FromJson + ::std::cmp::Eq + ::std::hash::Hash, V: FromJson> FromJson
    for ::std::collections::HashMap<K, V>
{
    fn from_json(j: &Json) -> Result<Self, String> {
        Vec::<(K, V)>::from_json(j).map(|v| v.into_iter().collect())
    }
}

impl<K: FromJson + ::std::cmp::Ord, V: FromJson> FromJson for ::std::collections::BTreeMap<K, V> {
    fn from_json(j: &Json) -> Result<Self, String> {
        Vec::<(K, V)>::from_json(j).map(|v| v.into_iter().collect())
    }
}

// ---- std recipes (the names are abex's `rust/types/std.rs`) ----

impl FromJson for ::std::time::Duration {
    fn from_json(j: &Json) -> Result<Self, String> {
        let (c, a) = recipe(j, "Duration")?;
        match c {
            "Duration::from_secs" => Ok(::std::time::Duration::from_secs(arg(a, 0)?)),
            "Duration::from_millis" => Ok(::std::time::Duration::from_millis(arg(a, 0)?)),
            "Duration::new" => {
                let (s, n): (u64, u32) = (arg(a, 0)?, arg(a, 1)?);
                guard(c, move || Ok(::std::time::Duration::new(s, n)))
            }
            _ => unknown_ctor("Duration", c),
        }
    }
}

impl FromJson for ::std::time::SystemTime {
    fn from_json(j: &Json) -> Result<Self, String> {
        let (c, a) = recipe(j, "SystemTime")?;
        let epoch = ::std::time::UNIX_EPOCH;
        let t = match c {
            "UNIX_EPOCH + Duration::from_secs" => {
                epoch.checked_add(::std::time::Duration::from_secs(arg(a, 0)?))
            }
            "UNIX_EPOCH - Duration::from_secs" => {
                epoch.checked_sub(::std::time::Duration::from_secs(arg(a, 0)?))
            }
            "UNIX_EPOCH + Duration::new" => {
                let (s, n): (u64, u32) = (arg(a, 0)?, arg(a, 1)?);
                epoch.checked_add(guard(c, move || Ok(::std::time::Duration::new(s, n)))?)
            }
            _ => return unknown_ctor("SystemTime", c),
        };
        t.ok_or_else(|| could_not_build(c, "out of range"))
    }
}

impl FromJson for ::std::path::PathBuf {
    fn from_json(j: &Json) -> Result<Self, String> {
        let (c, a) = recipe(j, "PathBuf")?;
        match c {
            "PathBuf::from" => Ok(::std::path::PathBuf::from(arg::<String>(a, 0)?)),
            _ => unknown_ctor("PathBuf", c),
        }
    }
}

impl FromJson for ::std::ffi::OsString {
    fn from_json(j: &Json) -> Result<Self, String> {
        let (c, a) = recipe(j, "OsString")?;
        match c {
            "OsString::from" => Ok(::std::ffi::OsString::from(arg::<String>(a, 0)?)),
            _ => unknown_ctor("OsString", c),
        }
    }
}

impl FromJson for ::std::cmp::Ordering {
    fn from_json(j: &Json) -> Result<Self, String> {
        let (c, _) = recipe(j, "Ordering")?;
        match c {
            "Ordering::Less" => Ok(::std::cmp::Ordering::Less),
            "Ordering::Equal" => Ok(::std::cmp::Ordering::Equal),
            "Ordering::Greater" => Ok(::std::cmp::Ordering::Greater),
            _ => unknown_ctor("Ordering", c),
        }
    }
}

/// `std::net::Ipv4Addr::new` of arguments `k..k + 4`.
fn abex_v4(a: &[Json], k: usize) -> Result<::std::net::Ipv4Addr, String> {
    Ok(::std::net::Ipv4Addr::new(arg(a, k)?, arg(a, k + 1)?, arg(a, k + 2)?, arg(a, k + 3)?))
}

/// `std::net::Ipv6Addr::new` of arguments `k..k + 8`.
fn abex_v6(a: &[Json], k: usize) -> Result<::std::net::Ipv6Addr, String> {
    let mut s = [0u16; 8];
    for (i, x) in s.iter_mut().enumerate() {
        *x = arg(a, k + i)?;
    }
    Ok(::std::net::Ipv6Addr::new(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]))
}

impl FromJson for ::std::net::Ipv4Addr {
    fn from_json(j: &Json) -> Result<Self, String> {
        let (c, a) = recipe(j, "Ipv4Addr")?;
        match c {
            "Ipv4Addr::new" => abex_v4(a, 0),
            _ => unknown_ctor("Ipv4Addr", c),
        }
    }
}

impl FromJson for ::std::net::Ipv6Addr {
    fn from_json(j: &Json) -> Result<Self, String> {
        let (c, a) = recipe(j, "Ipv6Addr")?;
        match c {
            "Ipv6Addr::new" => abex_v6(a, 0),
            _ => unknown_ctor("Ipv6Addr", c),
        }
    }
}

impl FromJson for ::std::net::IpAddr {
    fn from_json(j: &Json) -> Result<Self, String> {
        let (c, a) = recipe(j, "IpAddr")?;
        match c {
            "IpAddr::V4" => abex_v4(a, 0).map(::std::net::IpAddr::V4),
            "IpAddr::V6" => abex_v6(a, 0).map(::std::net::IpAddr::V6),
            _ => unknown_ctor("IpAddr", c),
        }
    }
}

impl FromJson for ::std::net::SocketAddrV4 {
    fn from_json(j: &Json) -> Result<Self, String> {
        let (c, a) = recipe(j, "SocketAddrV4")?;
        match c {
            "SocketAddrV4::new" => Ok(::std::net::SocketAddrV4::new(abex_v4(a, 0)?, arg(a, 4)?)),
            _ => unknown_ctor("SocketAddrV4", c),
        }
    }
}

impl FromJson for ::std::net::SocketAddrV6 {
    fn from_json(j: &Json) -> Result<Self, String> {
        let (c, a) = recipe(j, "SocketAddrV6")?;
        match c {
            "SocketAddrV6::new" => {
                Ok(::std::net::SocketAddrV6::new(abex_v6(a, 0)?, arg(a, 8)?, 0, 0))
            }
            _ => unknown_ctor("SocketAddrV6", c),
        }
    }
}

impl FromJson for ::std::net::SocketAddr {
    fn from_json(j: &Json) -> Result<Self, String> {
        let (c, a) = recipe(j, "SocketAddr")?;
        let ip = match c {
            "SocketAddr::V4" => ::std::net::IpAddr::V4(abex_v4(a, 0)?),
            "SocketAddr::V6" => ::std::net::IpAddr::V6(abex_v6(a, 0)?),
            _ => return unknown_ctor("SocketAddr", c),
        };
        let port = if c == "SocketAddr::V4" { arg(a, 4)? } else { arg(a, 8)? };
        Ok(::std::net::SocketAddr::new(ip, port))
    }
}

macro_rules! abex_non_zero_impls {
    ($($t:ident $p:ident)*) => {$(
        impl FromJson for ::std::num::$t {
            fn from_json(j: &Json) -> Result<Self, String> {
                let (c, a) = recipe(j, ::std::stringify!($t))?;
                if c != ::std::concat!(::std::stringify!($t), "::new") {
                    return unknown_ctor(::std::stringify!($t), c);
                }
                let n: $p = arg(a, 0)?;
                ::std::num::$t::new(n).ok_or_else(|| could_not_build(c, "returned None"))
            }
        }
    )*};
}
abex_non_zero_impls! {
    NonZeroU8 u8 NonZeroU16 u16 NonZeroU32 u32 NonZeroU64 u64 NonZeroU128 u128
    NonZeroUsize usize NonZeroI8 i8 NonZeroI16 i16 NonZeroI32 i32 NonZeroI64 i64
    NonZeroI128 i128 NonZeroIsize isize
}

// ---- trait methods driven through their trait ----

macro_rules! abex_format_helpers {
    ($($name:ident $tr:ident $s:tt)*) => {$(
        /// `v` formatted through this trait, with the formatter's flags.
        pub fn $name<T: ::std::fmt::$tr + ?Sized>(
            v: &T,
            alternate: bool,
            width: Option<u8>,
            precision: Option<u8>,
        ) -> String {
            let (w, p) = (width.map(usize::from), precision.map(usize::from));
            match (alternate, w, p) {
                (false, None, None) => ::std::format!(::std::concat!("{:", $s, "}"), v),
                (false, Some(w), None) => ::std::format!(::std::concat!("{:1$", $s, "}"), v, w),
                (false, None, Some(p)) => ::std::format!(::std::concat!("{:.1$", $s, "}"), v, p),
                (false, Some(w), Some(p)) => {
                    ::std::format!(::std::concat!("{:1$.2$", $s, "}"), v, w, p)
                }
                (true, None, None) => ::std::format!(::std::concat!("{:#", $s, "}"), v),
                (true, Some(w), None) => ::std::format!(::std::concat!("{:#1$", $s, "}"), v, w),
                (true, None, Some(p)) => ::std::format!(::std::concat!("{:#.1$", $s, "}"), v, p),
                (true, Some(w), Some(p)) => {
                    ::std::format!(::std::concat!("{:#1$.2$", $s, "}"), v, w, p)
                }
            }
        }
    )*};
}
abex_format_helpers! {
    display Display ""
    debug Debug "?"
    lower_hex LowerHex "x"
    upper_hex UpperHex "X"
    octal Octal "o"
    binary Binary "b"
    lower_exp LowerExp "e"
    upper_exp UpperExp "E"
}
