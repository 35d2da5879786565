//! The std types functions take, beyond primitives, strings and `Vec`/`Option`: each as a plain
//! value where the value model has a shape for it (`Rc<T>`, `Arc<T>`, `Cow<str>`, `Box<str>` as
//! their contents; sets, deques and `vec::IntoIter` as lists; maps as lists of pairs; `Chars` as
//! its string), otherwise as a recipe
//! (`Duration::from_millis(1500)`, `UNIX_EPOCH + Duration::from_secs(86400)`,
//! `NonZeroU32::new(3)`, `PathBuf::from("a/b")`, `Ordering::Less`, `Ipv4Addr::new(127, 0, 0, 1)`,
//! `SocketAddr::new(IpAddr::V4(…), 8080)`). The harness decodes them with the impls in
//! `runtime/built.rs`, whose constructor names are the ones listed here.

use quote::ToTokens;
use syn::Type;

use crate::value::{Ctor, CtorForm, Ty};

/// A std constructor: its name (as in `$ctor`), its parameters, the Rust code a suggested test
/// writes (`{0}`, `{1}` stand for the arguments) and whether it returns an `Option`.
pub struct StdCtor {
    /// The constructor's name.
    pub name: &'static str,
    /// Its parameters.
    pub params: &'static [(&'static str, StdParam)],
    /// The code a suggested test writes.
    pub code: &'static str,
    /// Whether it returns an `Option` (`None`: the value cannot be built).
    pub fallible: bool,
}

/// The type of a std constructor's parameter.
#[derive(Clone, Copy)]
pub enum StdParam {
    /// An unsigned integer of this many bits.
    U(u8),
    /// A signed integer of this many bits.
    I(u8),
    /// A string.
    Str,
}

impl StdParam {
    fn ty(self) -> Ty {
        match self {
            StdParam::U(b) => Ty::int(b, false),
            StdParam::I(b) => Ty::int(b, true),
            StdParam::Str => Ty::Str,
        }
    }
}

const fn c(
    name: &'static str,
    params: &'static [(&'static str, StdParam)],
    code: &'static str,
) -> StdCtor {
    StdCtor { name, params, code, fallible: false }
}

const SECS: (&str, StdParam) = ("secs", StdParam::U(64));
const NANOS: (&str, StdParam) = ("nanos", StdParam::U(32));

/// `Duration`'s constructors.
pub const DURATION: &[StdCtor] = &[
    c("Duration::from_secs", &[SECS], "std::time::Duration::from_secs({0})"),
    c(
        "Duration::from_millis",
        &[("millis", StdParam::U(64))],
        "std::time::Duration::from_millis({0})",
    ),
    c("Duration::new", &[SECS, NANOS], "std::time::Duration::new({0}, {1})"),
];

/// `SystemTime`'s constructors.
pub const SYSTEM_TIME: &[StdCtor] = &[
    c(
        "UNIX_EPOCH + Duration::from_secs",
        &[SECS],
        "std::time::UNIX_EPOCH + std::time::Duration::from_secs({0})",
    ),
    c(
        "UNIX_EPOCH + Duration::new",
        &[SECS, NANOS],
        "std::time::UNIX_EPOCH + std::time::Duration::new({0}, {1})",
    ),
    c(
        "UNIX_EPOCH - Duration::from_secs",
        &[SECS],
        "std::time::UNIX_EPOCH - std::time::Duration::from_secs({0})",
    ),
];

/// `PathBuf`'s (and `&Path`'s) constructor.
pub const PATH_BUF: &[StdCtor] =
    &[c("PathBuf::from", &[("path", StdParam::Str)], "std::path::PathBuf::from({0})")];

/// `OsString`'s (and `&OsStr`'s) constructor.
pub const OS_STRING: &[StdCtor] =
    &[c("OsString::from", &[("text", StdParam::Str)], "std::ffi::OsString::from({0})")];

/// `std::cmp::Ordering`'s variants.
pub const ORDERING: &[StdCtor] = &[
    c("Ordering::Less", &[], "std::cmp::Ordering::Less"),
    c("Ordering::Equal", &[], "std::cmp::Ordering::Equal"),
    c("Ordering::Greater", &[], "std::cmp::Ordering::Greater"),
];

const fn u8_(name: &'static str) -> (&'static str, StdParam) {
    (name, StdParam::U(8))
}
const fn u16_(name: &'static str) -> (&'static str, StdParam) {
    (name, StdParam::U(16))
}
const V4: [(&str, StdParam); 4] = [u8_("a"), u8_("b"), u8_("c"), u8_("d")];
const V6: [(&str, StdParam); 8] =
    [u16_("a"), u16_("b"), u16_("c"), u16_("d"), u16_("e"), u16_("f"), u16_("g"), u16_("h")];
const V4_PORT: [(&str, StdParam); 5] = [V4[0], V4[1], V4[2], V4[3], u16_("port")];
const V6_PORT: [(&str, StdParam); 9] =
    [V6[0], V6[1], V6[2], V6[3], V6[4], V6[5], V6[6], V6[7], u16_("port")];

/// `std::net::Ipv4Addr`'s constructor.
pub const IPV4: &[StdCtor] =
    &[c("Ipv4Addr::new", &V4, "std::net::Ipv4Addr::new({0}, {1}, {2}, {3})")];

/// `std::net::Ipv6Addr`'s constructor.
pub const IPV6: &[StdCtor] =
    &[c("Ipv6Addr::new", &V6, "std::net::Ipv6Addr::new({0}, {1}, {2}, {3}, {4}, {5}, {6}, {7})")];

/// `std::net::IpAddr`'s variants.
pub const IP: &[StdCtor] = &[
    c("IpAddr::V4", &V4, "std::net::IpAddr::V4(std::net::Ipv4Addr::new({0}, {1}, {2}, {3}))"),
    c(
        "IpAddr::V6",
        &V6,
        "std::net::IpAddr::V6(std::net::Ipv6Addr::new({0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}))",
    ),
];

/// `std::net::SocketAddrV4`'s constructor.
pub const SOCKET_V4: &[StdCtor] = &[c(
    "SocketAddrV4::new",
    &V4_PORT,
    "std::net::SocketAddrV4::new(std::net::Ipv4Addr::new({0}, {1}, {2}, {3}), {4})",
)];

/// `std::net::SocketAddrV6`'s constructor (flow info and scope id 0).
pub const SOCKET_V6: &[StdCtor] = &[c(
    "SocketAddrV6::new",
    &V6_PORT,
    "std::net::SocketAddrV6::new(std::net::Ipv6Addr::new({0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}), {8}, 0, 0)",
)];

/// `std::net::SocketAddr`'s constructors, one per address family.
pub const SOCKET: &[StdCtor] = &[
    c(
        "SocketAddr::V4",
        &V4_PORT,
        "std::net::SocketAddr::new(std::net::IpAddr::V4(std::net::Ipv4Addr::new({0}, {1}, {2}, {3})), {4})",
    ),
    c(
        "SocketAddr::V6",
        &V6_PORT,
        "std::net::SocketAddr::new(std::net::IpAddr::V6(std::net::Ipv6Addr::new({0}, {1}, {2}, {3}, {4}, {5}, {6}, {7})), {8})",
    ),
];

/// The `NonZero*` types: name, parameter, owned type.
pub const NON_ZERO: &[(&str, StdParam)] = &[
    ("NonZeroU8", StdParam::U(8)),
    ("NonZeroU16", StdParam::U(16)),
    ("NonZeroU32", StdParam::U(32)),
    ("NonZeroU64", StdParam::U(64)),
    ("NonZeroU128", StdParam::U(128)),
    ("NonZeroUsize", StdParam::U(64)),
    ("NonZeroI8", StdParam::I(8)),
    ("NonZeroI16", StdParam::I(16)),
    ("NonZeroI32", StdParam::I(32)),
    ("NonZeroI64", StdParam::I(64)),
    ("NonZeroI128", StdParam::I(128)),
    ("NonZeroIsize", StdParam::I(64)),
];

/// The names of the std types that are recipes (a crate type of the same name gets another).
pub const BUILT_NAMES: &[&str] = &[
    "Duration",
    "SystemTime",
    "PathBuf",
    "OsString",
    "Ordering",
    "NonZero",
    "Ipv4Addr",
    "Ipv6Addr",
    "IpAddr",
    "SocketAddr",
    "SocketAddrV4",
    "SocketAddrV6",
];

fn built(name: &str, ctors: &[StdCtor]) -> Ty {
    let ctors = ctors
        .iter()
        .map(|k| Ctor {
            name: k.name.to_string(),
            form: if k.params.is_empty() { CtorForm::Unit } else { CtorForm::Call },
            params: k.params.iter().map(|(n, p)| (n.to_string(), p.ty())).collect(),
            seeds: Vec::new(),
            defaults: Vec::new(),
        })
        .collect();
    Ty::Built { name: name.to_string(), ctors }
}

fn non_zero(name: &str, p: StdParam) -> (Ty, String) {
    let ctor = Ctor {
        name: format!("{name}::new"),
        form: CtorForm::Call,
        params: vec![("n".to_string(), p.ty())],
        seeds: Vec::new(),
        defaults: Vec::new(),
    };
    (Ty::Built { name: name.to_string(), ctors: vec![ctor] }, format!("::std::num::{name}"))
}

/// How a suggested test writes std constructor `name` (`{0}`… for its arguments), and whether
/// it returns an `Option`.
pub fn ctor_code(name: &str) -> Option<(String, bool)> {
    if name == "PhantomData" {
        return Some(("std::marker::PhantomData".into(), false));
    }
    let lists = [
        DURATION,
        SYSTEM_TIME,
        PATH_BUF,
        OS_STRING,
        ORDERING,
        IPV4,
        IPV6,
        IP,
        SOCKET_V4,
        SOCKET_V6,
        SOCKET,
    ];
    for list in lists {
        if let Some(k) = list.iter().find(|k| k.name == name) {
            return Some((k.code.to_string(), k.fallible));
        }
    }
    let ty = name.strip_suffix("::new")?;
    NON_ZERO.iter().any(|(n, _)| *n == ty).then(|| (format!("std::num::{ty}::new({{0}})"), true))
}

/// A value type and the owned Rust type the harness decodes it into, or why there is none.
pub type Owned = Result<(Ty, String), String>;

/// The value type and owned Rust type of the std type `name<args>`, with `inner` planning a
/// type argument; `None` when `name` is not one of them.
pub fn owned(name: &str, args: &[&Type], inner: &dyn Fn(&Type) -> Owned) -> Option<Owned> {
    let is_str = |t: &Type| matches!(t, Type::Path(p) if p.path.is_ident("str"));
    fn slice(t: &Type) -> Option<&Type> {
        match t {
            Type::Slice(s) => Some(&s.elem),
            _ => None,
        }
    }
    let wrap = |path: &str, t: &Type| -> Result<(Ty, String), String> {
        if is_str(t) {
            return Ok((Ty::Str, format!("{path}<str>")));
        }
        if let Some(item) = slice(t) {
            let (ty, o) = inner(item)?;
            return Ok((Ty::List { item: Box::new(ty) }, format!("{path}<[{o}]>")));
        }
        let (ty, o) = inner(t)?;
        Ok((ty, format!("{path}<{o}>")))
    };
    let list = |path: &str, t: &Type| -> Result<(Ty, String), String> {
        let (ty, o) = inner(t)?;
        Ok((Ty::List { item: Box::new(ty) }, format!("{path}<{o}>")))
    };
    let map = |path: &str, k: &Type, v: &Type| -> Result<(Ty, String), String> {
        let ((kt, ko), (vt, vo)) = (inner(k)?, inner(v)?);
        let pair = Ty::Tuple { items: vec![kt, vt] };
        Ok((Ty::List { item: Box::new(pair) }, format!("{path}<{ko}, {vo}>")))
    };
    let recipe = |ty: Ty, path: &str| Ok((ty, path.to_string()));
    Some(match (name, args) {
        ("Box", [t]) => wrap("::std::boxed::Box", t),
        ("Rc", [t]) => wrap("::std::rc::Rc", t),
        ("Arc", [t]) => wrap("::std::sync::Arc", t),
        ("RefCell", [t]) => inner(t).map(|(ty, o)| (ty, format!("::std::cell::RefCell<{o}>"))),
        ("Cell", [t]) => inner(t).map(|(ty, o)| (ty, format!("::std::cell::Cell<{o}>"))),
        ("Cow", [t]) if is_str(t) => Ok((Ty::Str, "::std::borrow::Cow<'static, str>".into())),
        ("Cow", [t]) => match slice(t) {
            Some(item) => inner(item).map(|(ty, o)| {
                (Ty::List { item: Box::new(ty) }, format!("::std::borrow::Cow<'static, [{o}]>"))
            }),
            None => inner(t).map(|(ty, o)| (ty, format!("::std::borrow::Cow<'static, {o}>"))),
        },
        ("Chars", []) => Ok((Ty::Str, "::std::str::Chars<'static>".into())),
        ("IntoIter", [t]) => list("::std::vec::IntoIter", t),
        ("HashSet", [t]) => list("::std::collections::HashSet", t),
        ("BTreeSet", [t]) => list("::std::collections::BTreeSet", t),
        ("VecDeque", [t]) => list("::std::collections::VecDeque", t),
        ("BinaryHeap", [t]) => list("::std::collections::BinaryHeap", t),
        ("LinkedList", [t]) => list("::std::collections::LinkedList", t),
        ("HashMap", [k, v]) => map("::std::collections::HashMap", k, v),
        ("BTreeMap", [k, v]) => map("::std::collections::BTreeMap", k, v),
        ("Duration", []) => recipe(built("Duration", DURATION), "::std::time::Duration"),
        ("SystemTime", []) => recipe(built("SystemTime", SYSTEM_TIME), "::std::time::SystemTime"),
        ("PathBuf" | "Path", []) => recipe(built("PathBuf", PATH_BUF), "::std::path::PathBuf"),
        ("OsString" | "OsStr", []) => recipe(built("OsString", OS_STRING), "::std::ffi::OsString"),
        ("Ordering", []) => recipe(built("Ordering", ORDERING), "::std::cmp::Ordering"),
        ("Ipv4Addr", []) => recipe(built("Ipv4Addr", IPV4), "::std::net::Ipv4Addr"),
        ("Ipv6Addr", []) => recipe(built("Ipv6Addr", IPV6), "::std::net::Ipv6Addr"),
        ("IpAddr", []) => recipe(built("IpAddr", IP), "::std::net::IpAddr"),
        ("SocketAddr", []) => recipe(built("SocketAddr", SOCKET), "::std::net::SocketAddr"),
        ("SocketAddrV4", []) => {
            recipe(built("SocketAddrV4", SOCKET_V4), "::std::net::SocketAddrV4")
        }
        ("SocketAddrV6", []) => {
            recipe(built("SocketAddrV6", SOCKET_V6), "::std::net::SocketAddrV6")
        }
        ("PhantomData", [_]) => {
            let unit = Ctor {
                name: "PhantomData".into(),
                form: CtorForm::Unit,
                params: Vec::new(),
                seeds: Vec::new(),
                defaults: Vec::new(),
            };
            let ty = Ty::Built { name: "PhantomData".into(), ctors: vec![unit] };
            recipe(ty, "::std::marker::PhantomData<_>")
        }
        ("NonZero", [t]) => {
            let prim = match t {
                Type::Path(p) => p.path.get_ident().map(|i| i.to_string()),
                _ => None,
            };
            let found = prim.as_deref().and_then(|p| {
                let want = format!("NonZero{}{}", p[..1].to_uppercase(), &p[1..]);
                NON_ZERO.iter().find(|(n, _)| *n == want)
            });
            match found {
                Some((n, p)) => Ok(non_zero(n, *p)),
                None => Err(format!("unsupported `NonZero` of `{}`", t.to_token_stream())),
            }
        }
        (n, []) => return NON_ZERO.iter().find(|(k, _)| *k == n).map(|(k, p)| Ok(non_zero(k, *p))),
        _ => return None,
    })
}
