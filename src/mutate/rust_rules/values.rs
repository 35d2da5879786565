//! Values of a return type, for the mutants that replace a whole body: every value
//! cargo-mutants 27 makes for the type (its FnValue genre), in its order, so that abex's body
//! mutants are a superset of cargo-mutants' list.

use syn::{GenericArgument, Path, PathArguments, Type, TypeParamBound};

use super::items::tidy;

/// Values of a return type, cargo-mutants style; empty when there is none (`impl Trait` other
/// than an iterator, `!`). Unknown types get `Default::default()`, which may not compile: such a
/// mutant is unviable and dropped by the build.
pub(super) fn values(ty: &Type) -> Vec<String> {
    let strs = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let each = |t: &Type, f: &dyn Fn(&str) -> String| values(t).iter().map(|v| f(v)).collect();
    let then = |first: Vec<String>, rest: Vec<String>| first.into_iter().chain(rest).collect();
    match ty {
        Type::Paren(p) => values(&p.elem),
        Type::Group(g) => values(&g.elem),
        Type::Path(p) => path_values(&p.path),
        Type::Array(a) => {
            let len = tidy(&a.len);
            each(&a.elem, &|v| format!("[{v}; {len}]"))
        }
        Type::Slice(s) => leaked_slices(&s.elem),
        Type::Reference(r) => match &*r.elem {
            Type::Path(p) if r.mutability.is_none() && p.path.is_ident("str") => {
                strs(&["\"\"", "\"xyzzy\""])
            }
            Type::Slice(s) => leaked_slices(&s.elem),
            inner => each(inner, &|v| format!("Box::leak(Box::new({v}))")),
        },
        Type::Tuple(t) => {
            let mut rows = vec![Vec::<String>::new()];
            for elem in &t.elems {
                let vs = values(elem);
                rows = rows
                    .iter()
                    .flat_map(|row| {
                        vs.iter().map(move |v| row.iter().cloned().chain([v.clone()]).collect())
                    })
                    .collect();
            }
            let comma = if t.elems.len() == 1 { "," } else { "" };
            rows.iter().map(|r| format!("({}{comma})", r.join(", "))).collect()
        }
        Type::ImplTrait(it) => match iterator_item(&it.bounds) {
            Some(item) => then(
                strs(&["::std::iter::empty()"]),
                each(item, &|v| format!("::std::iter::once({v})")),
            ),
            None => Vec::new(),
        },
        Type::Never(_) => Vec::new(),
        _ => strs(&["Default::default()"]),
    }
}

/// The values of a type named by a path: primitives, std containers, collections and maps, and
/// `Default::default()` for the rest.
fn path_values(path: &Path) -> Vec<String> {
    let strs = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let each = |t: &Type, f: &dyn Fn(&str) -> String| -> Vec<String> {
        values(t).iter().map(|v| f(v)).collect()
    };
    let Some(last) = path.segments.last() else { return Vec::new() };
    let name = last.ident.to_string();
    let args: Vec<&Type> = match &last.arguments {
        PathArguments::AngleBracketed(a) => a
            .args
            .iter()
            .filter_map(|g| match g {
                GenericArgument::Type(t) => Some(t),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    let first = first_type_arg(path);
    let one = |t: &str| path.is_ident(t);
    if one("bool") {
        return strs(&["true", "false"]);
    }
    if one("String") {
        return strs(&["String::new()", "\"xyzzy\".into()"]);
    }
    if one("str") {
        return strs(&["\"\"", "\"xyzzy\""]);
    }
    if ["u8", "u16", "u32", "u64", "u128", "usize"].iter().any(|t| one(t)) {
        return strs(&["0", "1"]);
    }
    if ["i8", "i16", "i32", "i64", "i128", "isize"].iter().any(|t| one(t)) {
        return strs(&["0", "1", "-1"]);
    }
    let nonzero = |signed: bool| {
        let mut v = vec!["1.try_into().unwrap()".to_string()];
        if signed {
            v.push("(-1).try_into().unwrap()".to_string());
        }
        v
    };
    let widths = ["size", "8", "16", "32", "64", "128"];
    for (sign, signed) in [("I", true), ("U", false)] {
        if widths.iter().any(|w| name == format!("NonZero{sign}{w}")) {
            return nonzero(signed);
        }
    }
    if name == "NonZero" && first.is_some() {
        let unsigned = first.is_some_and(|t| {
            matches!(t, Type::Path(p) if ["u8", "u16", "u32", "u64", "u128", "usize"]
                .iter()
                .any(|u| p.path.is_ident(u)))
        });
        return nonzero(!unsigned);
    }
    if one("f32") || one("f64") {
        return strs(&["0.0", "1.0", "-1.0"]);
    }
    if name == "Result" {
        return match first {
            Some(ok) => each(ok, &|v| format!("Ok({v})")),
            // A `Result` without arguments: `fmt::Result` or an alias.
            None => strs(&["Ok(Default::default())"]),
        };
    }
    if name == "HttpResponse" {
        return strs(&["HttpResponse::Ok().finish()"]);
    }
    if let (true, Some(t)) = (name == "Option", first) {
        return ["None".to_string()]
            .into_iter()
            .chain(each(t, &|v| format!("Some({v})")))
            .collect();
    }
    if let (true, Some(t)) = (name == "Vec", first) {
        return ["vec![]".to_string()]
            .into_iter()
            .chain(each(t, &|v| format!("vec![{v}]")))
            .collect();
    }
    if let (true, Some(t)) = (name == "Cow", first) {
        return values(t)
            .iter()
            .flat_map(|v| [format!("Cow::Borrowed({v})"), format!("Cow::Owned({v}.to_owned())")])
            .collect();
    }
    let containers = ["Box", "Cell", "RefCell", "Arc", "Rc", "Mutex"];
    if let (true, [t]) = (containers.contains(&name.as_str()), args.as_slice()) {
        if matches!(&last.arguments, PathArguments::AngleBracketed(a) if a.args.len() == 1) {
            return each(t, &|v| format!("{name}::new({v})"));
        }
    }
    let collections = ["BinaryHeap", "BTreeSet", "HashSet", "LinkedList", "VecDeque"];
    if collections.contains(&name.as_str()) {
        if let PathArguments::AngleBracketed(a) = &last.arguments {
            if let (1, [t]) = (a.args.len(), args.as_slice()) {
                return [format!("{name}::new()")]
                    .into_iter()
                    .chain(each(t, &|v| format!("{name}::from_iter([{v}])")))
                    .collect();
            }
        }
    }
    if name == "BTreeMap" || name == "HashMap" {
        if let PathArguments::AngleBracketed(a) = &last.arguments {
            if let [GenericArgument::Type(k), GenericArgument::Type(v)] =
                a.args.iter().collect::<Vec<_>>().as_slice()
            {
                let mut out = vec![format!("{name}::new()")];
                for k in values(k) {
                    out.extend(
                        values(v).iter().map(|v| format!("{name}::from_iter([({k}, {v})])")),
                    );
                }
                return out;
            }
        }
    }
    if let [t] = args.as_slice() {
        // `T<A>`: probably a container or collection that can be made from an `A`.
        return [format!("{name}::new()")]
            .into_iter()
            .chain(values(t).iter().flat_map(|v| {
                [
                    format!("{name}::from_iter([{v}])"),
                    format!("{name}::new({v})"),
                    format!("{name}::from({v})"),
                ]
            }))
            .collect();
    }
    strs(&["Default::default()"])
}

/// `Vec::leak(Vec::new())`, then a leaked one-element vector per value of the element type.
fn leaked_slices(elem: &Type) -> Vec<String> {
    ["Vec::leak(Vec::new())".to_string()]
        .into_iter()
        .chain(values(elem).iter().map(|v| format!("Vec::leak(vec![{v}])")))
        .collect()
}

/// The first type argument of the path's last segment, past its lifetimes; `None` when another
/// kind of argument comes first.
fn first_type_arg(path: &Path) -> Option<&Type> {
    let PathArguments::AngleBracketed(a) = &path.segments.last()?.arguments else { return None };
    for arg in &a.args {
        match arg {
            GenericArgument::Type(t) => return Some(t),
            GenericArgument::Lifetime(_) => {}
            _ => return None,
        }
    }
    None
}

/// `T` of an `impl Iterator<Item = T>`.
fn iterator_item(
    bounds: &syn::punctuated::Punctuated<TypeParamBound, syn::token::Plus>,
) -> Option<&Type> {
    bounds.iter().find_map(|b| {
        let TypeParamBound::Trait(t) = b else { return None };
        let last = t.path.segments.last()?;
        let PathArguments::AngleBracketed(a) = &last.arguments else { return None };
        match (last.ident == "Iterator", a.args.first()) {
            (true, Some(GenericArgument::AssocType(at))) if at.ident == "Item" => Some(&at.ty),
            _ => None,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mutate::rust_rules::testing::{mutants, triples};

    #[test]
    fn return_values_are_cargo_mutants_values() {
        let cases: [(&str, &[&str]); 22] = [
            ("bool", &["true", "false"]),
            ("f64", &["0.0", "1.0", "-1.0"]),
            ("String", &["String::new()", "\"xyzzy\".into()"]),
            ("&'static str", &["\"\"", "\"xyzzy\""]),
            ("Option<u8>", &["None", "Some(0)", "Some(1)"]),
            ("Result<(), E>", &["Ok(())"]),
            ("io::Result<bool>", &["Ok(true)", "Ok(false)"]),
            ("fmt::Result", &["Ok(Default::default())"]),
            ("Vec<bool>", &["vec![]", "vec![true]", "vec![false]"]),
            (
                "(u8, String)",
                &[
                    "(0, String::new())",
                    "(0, \"xyzzy\".into())",
                    "(1, String::new())",
                    "(1, \"xyzzy\".into())",
                ],
            ),
            ("Box<u8>", &["Box::new(0)", "Box::new(1)"]),
            (
                "HashMap<u8, bool>",
                &[
                    "HashMap::new()",
                    "HashMap::from_iter([(0, true)])",
                    "HashMap::from_iter([(0, false)])",
                    "HashMap::from_iter([(1, true)])",
                    "HashMap::from_iter([(1, false)])",
                ],
            ),
            (
                "BTreeSet<u8>",
                &["BTreeSet::new()", "BTreeSet::from_iter([0])", "BTreeSet::from_iter([1])"],
            ),
            (
                "Cow<'static, str>",
                &[
                    "Cow::Borrowed(\"\")",
                    "Cow::Owned(\"\".to_owned())",
                    "Cow::Borrowed(\"xyzzy\")",
                    "Cow::Owned(\"xyzzy\".to_owned())",
                ],
            ),
            ("&[u8]", &["Vec::leak(Vec::new())", "Vec::leak(vec![0])", "Vec::leak(vec![1])"]),
            ("&mut u8", &["Box::leak(Box::new(0))", "Box::leak(Box::new(1))"]),
            ("[u8; 4]", &["[0; 4]", "[1; 4]"]),
            ("NonZeroI32", &["1.try_into().unwrap()", "(-1).try_into().unwrap()"]),
            ("NonZero<usize>", &["1.try_into().unwrap()"]),
            (
                "impl Iterator<Item = bool>",
                &["::std::iter::empty()", "::std::iter::once(true)", "::std::iter::once(false)"],
            ),
            (
                "Wrapper<bool>",
                &[
                    "Wrapper::new()",
                    "Wrapper::from_iter([true])",
                    "Wrapper::new(true)",
                    "Wrapper::from(true)",
                    "Wrapper::from_iter([false])",
                    "Wrapper::new(false)",
                    "Wrapper::from(false)",
                ],
            ),
            ("char", &["Default::default()"]),
        ];
        for (ty, want) in cases {
            let ty: Type = syn::parse_str(ty).unwrap();
            assert_eq!(values(&ty), want);
        }
        for none in ["impl Display", "!"] {
            assert!(values(&syn::parse_str(none).unwrap()).is_empty(), "{none}");
        }
        // A unit function gets an empty body, unless it is empty already.
        let text = "fn log(x: u8) {\n    record(x);\n}\nfn nop() {}\nfn zero() -> u8 { 0 }\n";
        assert_eq!(triples(&mutants(text, "log"))[0].2, "{}");
        assert_eq!(mutants(text, "nop"), []);
        assert_eq!(
            triples(&mutants(text, "zero")).into_iter().map(|t| t.2).collect::<Vec<_>>(),
            ["{ 1 }", "1"]
        );
    }
}
