//! Concrete types for generic parameters, so that generic functions and impls can be called:
//! for each parameter, the types its bounds point at (`V: Into<u64>` → `u64`,
//! `S: AsRef<str>` → `&str`, `I: IntoIterator<Item = Comparator>` → `Vec<Comparator>`), the crate's
//! own types that implement a crate trait it is bound by, then a short list (`i32`, `u64`,
//! `String`, `f64`, `Vec<u8>`, `&str`) without the ones its bounds rule out. A const parameter
//! takes values: its default, those the crate's aliases give an impl's type, then a few of its
//! type. A few instantiations are tried; the harness keeps the first that compiles.

use std::collections::BTreeMap;

use syn::punctuated::Punctuated;
use syn::{GenericParam, Token, Type, TypeParamBound, WherePredicate};

use super::args::{const_value, generic_args, value};
use super::recipes::type_args;
use super::table::{tight, TypeKind, TypeTable};

/// How many instantiations of one function are tried.
pub const MAX_TRIES: usize = 3;

/// The short list of types tried for any parameter.
const SHORT_LIST: [&str; 6] = ["i32", "u64", "String", "f64", "Vec<u8>", "&str"];

/// The values tried for a const parameter of each type (after its default and the crate's
/// aliases): a small capacity first, so that exploring can fill it.
const CONST_VALUES: [(&str, &[&str]); 3] =
    [("bool", &["false", "true"]), ("char", &["'a'", "'*'"]), ("", &["4", "1", "16"])];

/// num-traits' float traits: a parameter bound by one is a float, never an integer or a string.
const FLOAT_TRAITS: [&str; 3] = ["Float", "FloatCore", "Real"];

/// One generic parameter to instantiate: its name and bounds.
#[derive(Default)]
pub struct Param {
    /// Its name (`T`, or a made-up name for an `impl Trait` argument).
    pub name: String,
    /// Its bounds, inline and from `where` clauses.
    pub bounds: Vec<TypeParamBound>,
    /// Candidates its bounds on a reference point at, tried first (`&'a T: IntoIterator<Item =
    /// E>` → `T = Vec<i32>`, `E = &i32`).
    pub preferred: Vec<Type>,
    /// A const parameter's type (`usize` of `const CAP: usize`); its candidates are values,
    /// written as [`Type::Verbatim`] (`4`, `'*'`).
    pub konst: Option<Type>,
}

/// The type parameters of `generics` with their bounds, and its const parameters.
pub fn params_of(generics: &syn::Generics) -> Vec<Param> {
    let mut out: Vec<Param> = generics
        .params
        .iter()
        .filter_map(|g| match g {
            GenericParam::Type(t) => Some(Param {
                name: t.ident.to_string(),
                bounds: t.bounds.iter().cloned().collect(),
                ..Param::default()
            }),
            GenericParam::Const(c) => Some(Param {
                name: c.ident.to_string(),
                preferred: c.default.iter().map(value).collect(),
                konst: Some(c.ty.clone()),
                ..Param::default()
            }),
            GenericParam::Lifetime(_) => None,
        })
        .collect();
    if let Some(w) = &generics.where_clause {
        for pred in &w.predicates {
            if let WherePredicate::Type(pt) = pred {
                if let Type::Reference(r) = &pt.bounded_ty {
                    by_reference(&mut out, &r.elem, &pt.bounds);
                }
                if let Type::Path(p) = &pt.bounded_ty {
                    if let Some(id) = p.path.get_ident() {
                        if let Some(param) = out.iter_mut().find(|x| *id == x.name) {
                            param.bounds.extend(pt.bounds.iter().cloned());
                        }
                    }
                }
            }
        }
    }
    out
}

/// Prefers for `params` (an impl's, whose self type is `self_ty`) the const values the crate's
/// own type aliases give its self type: wildmatch 2.4's `impl<const MULTI_WILDCARD: char, const
/// SINGLE_WILDCARD: char> WildMatchPattern<MULTI_WILDCARD, SINGLE_WILDCARD>` is called on
/// `WildMatch = WildMatchPattern<'*', '?'>`, its users' type.
pub fn from_aliases(params: &mut [Param], self_ty: &Type, table: &TypeTable<'_>) {
    let Type::Path(own) = self_ty else { return };
    let Some(own) = own.path.segments.last() else { return };
    let written = generic_args(&own.arguments);
    for def in &table.types {
        let TypeKind::Alias(Type::Path(target)) = def.kind else { continue };
        let Some(last) = target.path.segments.last() else { continue };
        if last.ident != own.ident || !def.generics.params.is_empty() {
            continue;
        }
        let given = generic_args(&last.arguments);
        if given.len() != written.len() {
            continue;
        }
        for (w, g) in written.iter().zip(given) {
            if let Some(p) = param_named(params, w).filter(|p| p.konst.is_some()) {
                if !p.preferred.iter().any(|x| tight(x) == tight(&g)) {
                    p.preferred.push(g);
                }
            }
        }
    }
}

/// The name of the generic parameter `t` is, if it is one of `params`.
fn param_named<'p>(params: &'p mut [Param], t: &Type) -> Option<&'p mut Param> {
    let Type::Path(p) = t else { return None };
    let id = p.path.get_ident()?;
    params.iter_mut().find(|x| *id == x.name)
}

/// A bound on a reference to a parameter, `&'a T: IntoIterator<Item = I>` (iterating a
/// borrowed collection): `T` is a `Vec`, and its items are references to the elements, so
/// `I = &X` gives `T = Vec<X>`, and a parameter `I` gives `T = Vec<i32>`, `I = &i32`.
fn by_reference(params: &mut [Param], elem: &Type, bounds: &Punctuated<TypeParamBound, Token![+]>) {
    for b in bounds {
        let TypeParamBound::Trait(t) = b else { continue };
        let Some(last) = t.path.segments.last() else { continue };
        if last.ident != "IntoIterator" {
            continue;
        }
        let syn::PathArguments::AngleBracketed(a) = &last.arguments else { continue };
        let Some(item) = a.args.iter().find_map(|g| match g {
            syn::GenericArgument::AssocType(at) if at.ident == "Item" => Some(at.ty.clone()),
            _ => None,
        }) else {
            continue;
        };
        let element = match &item {
            Type::Reference(r) => tight(&r.elem),
            _ => {
                let Some(e) = param_named(params, &item) else { continue };
                e.preferred.push(parse("&i32"));
                "i32".to_string()
            }
        };
        if let Some(p) = param_named(params, elem) {
            p.preferred.push(parse(&format!("Vec<{element}>")));
        }
    }
}

/// The type `t` names, with `String` and `Vec` written as absolute std paths: the harness puts
/// these types in the crate's own modules, and a `#![no_std]` crate has neither in its prelude
/// (heck 0.5: `AsKebabCase<String>` did not compile, so its `Display` impl, and every helper it
/// drives, went unexplored).
fn parse(t: &str) -> Type {
    let mut ty = syn::parse_str(t).unwrap_or_else(|_| syn::parse_quote!(i32));
    syn::visit_mut::VisitMut::visit_type_mut(&mut Absolute, &mut ty);
    ty
}

/// Writes the prelude's `String` and `Vec<…>` as `::std::string::String`, `::std::vec::Vec<…>`.
struct Absolute;

impl syn::visit_mut::VisitMut for Absolute {
    fn visit_type_path_mut(&mut self, p: &mut syn::TypePath) {
        syn::visit_mut::visit_type_path_mut(self, p);
        if p.qself.is_some() || p.path.leading_colon.is_some() || p.path.segments.len() != 1 {
            return;
        }
        let seg = &p.path.segments[0];
        let module = match seg.ident.to_string().as_str() {
            "String" => "string",
            "Vec" => "vec",
            _ => return,
        };
        let module = syn::Ident::new(module, seg.ident.span());
        let seg = seg.clone();
        p.path = syn::parse_quote!(::std::#module::#seg);
    }
}

/// A trait a parameter is bound by: its name and its type arguments (`AsRef<Options>`:
/// `("AsRef", ["Options"])`), each written tight.
type Bound = (String, Vec<String>);

/// The type arguments of a trait path's last segment, each written tight.
fn written_args(args: &syn::PathArguments) -> Vec<String> {
    type_args(args).iter().map(|a| tight(*a)).collect()
}

/// The types a parameter's bounds point at, and the traits it is bound by.
fn from_bounds(bounds: &[TypeParamBound]) -> (Vec<Type>, Vec<Bound>) {
    let mut types = Vec::new();
    let mut traits = Vec::new();
    for b in bounds {
        let TypeParamBound::Trait(t) = b else { continue };
        let Some(last) = t.path.segments.last() else { continue };
        let name = last.ident.to_string();
        let args = type_args(&last.arguments);
        let written = written_args(&last.arguments);
        let assoc_item = match &last.arguments {
            syn::PathArguments::AngleBracketed(a) => a.args.iter().find_map(|g| match g {
                syn::GenericArgument::AssocType(at) if at.ident == "Item" => Some(at.ty.clone()),
                _ => None,
            }),
            _ => None,
        };
        match (name.as_str(), args.as_slice()) {
            ("Into" | "PartialEq" | "PartialOrd", [x]) => types.push((*x).clone()),
            ("AsRef" | "Borrow", [Type::Path(p)]) if p.path.is_ident("str") => {
                types.push(parse("&str"));
                types.push(parse("String"));
            }
            ("AsRef" | "Borrow", [Type::Path(p)]) if p.path.is_ident("Path") => {
                types.push(parse("std::path::PathBuf"))
            }
            ("AsRef" | "Borrow", [Type::Slice(s)]) => {
                types.push(parse(&format!("Vec<{}>", tight(&*s.elem))))
            }
            ("IntoIterator", _) => {
                let item = assoc_item.as_ref().map_or("i32".to_string(), tight);
                types.push(parse(&format!("Vec<{item}>")));
            }
            ("Iterator" | "DoubleEndedIterator" | "ExactSizeIterator" | "FusedIterator", _) => {
                // Without an `Item`, an iterator of `i32`s.
                let item = assoc_item.as_ref().map_or("i32".to_string(), tight);
                types.push(parse(&format!("std::vec::IntoIter<{item}>")));
            }
            ("Read" | "BufRead", _) => types.push(parse("&[u8]")),
            ("Write", _) => types.push(parse("Vec<u8>")),
            ("Hasher", _) => types.push(parse("std::collections::hash_map::DefaultHasher")),
            ("ToString" | "Display" | "Into", _) => types.push(parse("String")),
            // `ordered_float::OrderedFloat<T: FloatCore>`.
            (name, _) if FLOAT_TRAITS.contains(&name) => {
                types.push(parse("f64"));
                types.push(parse("f32"));
            }
            _ => {}
        }
        traits.push((name, written));
    }
    (types, traits)
}

/// Whether the short-list type `t` may satisfy `traits` (a cheap filter; the compiler decides).
fn may_satisfy(t: &str, traits: &[String]) -> bool {
    let has = |n: &str| traits.iter().any(|x| x == n);
    let owned = matches!(t, "String" | "Vec<u8>");
    let float = t == "f64";
    !(has("Copy") && owned
        || (has("Eq") || has("Ord") || has("Hash")) && float
        || has("Display") && t == "Vec<u8>"
        || (has("Default") || has("FromStr")) && t == "&str"
        || has("Iterator")
        || has("Fn")
        || has("FnMut")
        || has("FnOnce")
        || has("Hasher")
        || has("Serializer")
        || has("Deserializer")
        || has("Error")
        || FLOAT_TRAITS.iter().any(|f| has(f)) && !float)
}

/// The candidates of one parameter, best first. With `nested`, a generic impl of a trait it is
/// bound by gives its self type too, its own parameters instantiated (without `nested`).
fn candidates_of(p: &Param, table: &TypeTable<'_>, nested: bool) -> Vec<Type> {
    if let Some(ty) = &p.konst {
        let ty = tight(ty);
        let mut out = p.preferred.clone();
        let (_, values) =
            CONST_VALUES.iter().find(|(t, _)| *t == ty || t.is_empty()).expect("a row");
        for v in *values {
            let v = value(&syn::parse_str(v).expect("a literal"));
            if !out.iter().any(|x| tight(x) == tight(&v)) {
                out.push(v);
            }
        }
        return out;
    }
    let (found, bounds) = from_bounds(&p.bounds);
    let traits: Vec<String> = bounds.iter().map(|(name, _)| name.clone()).collect();
    let mut out = p.preferred.clone();
    out.extend(found);
    // Crate types (and primitives) with an impl of a trait the parameter is bound by: a crate
    // trait, or a trait with type arguments implemented for the same ones (humansize 2.1.3's
    // `O: AsRef<FormatSizeOptions>` and its `impl AsRef<FormatSizeOptions> for
    // FormatSizeOptions`; the short list's `i32` did not compile, so its `Display` impl went
    // unexplored).
    // A generic impl's self type with its own parameters instantiated (tinyvec 1.8's `impl<A:
    // Array> ArrayVec<A>`, where `Array` is implemented for `[T; 0]`, `[T; 1]`, …, each `impl<T:
    // Default>`: `i32` did not compile, and no method of `ArrayVec` was explored).
    let mut generic: Vec<Type> = Vec::new();
    for imp in &table.impls {
        let Some((_, path, _)) = &imp.item.trait_ else { continue };
        let Some(last) = path.segments.last() else { continue };
        let name = last.ident.to_string();
        let crate_trait = table.traits.iter().any(|(_, t)| *t == name);
        let written = written_args(&last.arguments);
        let bound = bounds
            .iter()
            .any(|(n, args)| *n == name && (crate_trait || !args.is_empty() && *args == written));
        if !bound {
            continue;
        }
        if imp.item.generics.params.is_empty() {
            out.push((*imp.item.self_ty).clone());
        } else if nested {
            let own = params_of(&imp.item.generics);
            if let Some(map) = instantiations_of(&own, table, false).into_iter().next() {
                let mut t = (*imp.item.self_ty).clone();
                syn::visit_mut::VisitMut::visit_type_mut(&mut SubstParams(&map), &mut t);
                generic.push(t);
            }
        }
    }
    // An array of a small capacity first, as a const parameter's values (exploring can fill
    // it); then the others in the crate's order, a few of them.
    generic.sort_by_key(capacity_rank);
    out.extend(generic.into_iter().take(MAX_TRIES));
    for t in SHORT_LIST {
        if may_satisfy(t, &traits) {
            out.push(parse(t));
        }
    }
    let mut seen = Vec::new();
    out.retain(|t| {
        let k = tight(t);
        let new = !seen.contains(&k);
        seen.push(k);
        new
    });
    out
}

/// Where an array type's length comes in [`CONST_VALUES`]' order of capacities (`[i32; 4]`
/// first); any other type after them.
fn capacity_rank(t: &Type) -> usize {
    let (_, sizes) = CONST_VALUES.iter().find(|(ty, _)| ty.is_empty()).expect("a row");
    let Type::Array(a) = t else { return sizes.len() };
    let len = tight(&a.len);
    sizes.iter().position(|s| *s == len).unwrap_or(sizes.len())
}

/// Replaces generic parameters by their candidates.
struct SubstParams<'m>(&'m BTreeMap<String, Type>);

impl syn::visit_mut::VisitMut for SubstParams<'_> {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        if let Some(v) = const_value(self.0, e) {
            *e = v;
            return;
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }

    fn visit_type_mut(&mut self, t: &mut Type) {
        if let Type::Path(p) = t {
            if let Some(s) = p.path.get_ident().and_then(|i| self.0.get(&i.to_string())) {
                *t = s.clone();
                return;
            }
        }
        syn::visit_mut::visit_type_mut(self, t);
    }
}

/// Up to [`MAX_TRIES`] instantiations of `params`: the first candidate of each, then the
/// second, and so on.
pub fn instantiations(params: &[Param], table: &TypeTable<'_>) -> Vec<BTreeMap<String, Type>> {
    instantiations_of(params, table, true)
}

/// [`instantiations`], generic impls' self types among the candidates with `nested`.
fn instantiations_of(
    params: &[Param],
    table: &TypeTable<'_>,
    nested: bool,
) -> Vec<BTreeMap<String, Type>> {
    if params.is_empty() {
        return vec![BTreeMap::new()];
    }
    let lists: Vec<Vec<Type>> = params.iter().map(|p| candidates_of(p, table, nested)).collect();
    if lists.iter().any(Vec::is_empty) {
        return Vec::new();
    }
    let mut out: Vec<BTreeMap<String, Type>> = Vec::new();
    for r in 0..MAX_TRIES {
        let mut map: BTreeMap<String, Type> = params
            .iter()
            .zip(&lists)
            .map(|(p, l)| (p.name.clone(), l[r.min(l.len() - 1)].clone()))
            .collect();
        // A candidate may name another parameter (`I: IntoIterator<Item = E>` → `Vec<E>`).
        for _ in 0..params.len() {
            let before = map.clone();
            for t in map.values_mut() {
                let mut s = SubstParams(&before);
                syn::visit_mut::VisitMut::visit_type_mut(&mut s, t);
            }
        }
        let key: Vec<String> = map.values().map(tight).collect();
        if !out.iter().any(|m| m.values().map(tight).collect::<Vec<_>>() == key) {
            out.push(map);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rust::files::SourceFile;

    fn first(sig: &str) -> Vec<String> {
        let f: syn::ItemFn = syn::parse_str(&format!("{sig} {{}}")).unwrap();
        let files = Vec::new();
        let table = TypeTable::new(&files, &[]);
        instantiations(&params_of(&f.sig.generics), &table)
            .into_iter()
            .map(|m| m.values().map(tight).collect::<Vec<_>>().join(", "))
            .collect()
    }

    #[test]
    fn bounds_point_at_the_types_they_convert_from() {
        assert_eq!(first("fn kib<V: Into<u64>>(size: V) -> u64")[0], "u64");
        assert_eq!(first("fn f<S: AsRef<str>>(s: S)")[0], "&str");
        let v = first("fn from_iter<I>(iter: I) where I: IntoIterator<Item = Comparator>");
        assert_eq!(v[0], "::std::vec::Vec<Comparator>");
    }

    #[test]
    fn a_borrowed_collection_that_iterates_is_a_vec_of_its_elements() {
        let v = first(
            "fn jaro<'a, 'b, I1, I2, E1, E2>(a: &'a I1, b: &'b I2) -> f64 where &'a I1: \
             IntoIterator<Item = E1>, &'b I2: IntoIterator<Item = E2>, E1: PartialEq<E2>",
        );
        // In name order: E1, E2, I1, I2.
        assert_eq!(v[0], "&i32, &i32, ::std::vec::Vec<i32>, ::std::vec::Vec<i32>");
        let v = first("fn f<'a, T>(a: &'a T) where &'a T: IntoIterator<Item = &'a u8>");
        assert_eq!(v[0], "::std::vec::Vec<u8>");
    }

    #[test]
    fn iterators_readers_writers_and_hashers_get_a_std_type_of_their_own() {
        assert_eq!(first("fn f<I: Iterator>(it: I) -> usize")[0], "std::vec::IntoIter<i32>");
        assert_eq!(
            first("fn f<I>(it: I) -> usize where I: DoubleEndedIterator")[0],
            "std::vec::IntoIter<i32>"
        );
        assert_eq!(first("fn f<I: IntoIterator>(it: I) -> usize")[0], "::std::vec::Vec<i32>");
        assert_eq!(first("fn f<R: std::io::Read>(r: R) -> usize")[0], "&[u8]");
        assert_eq!(first("fn f<W: Write>(w: W)")[0], "::std::vec::Vec<u8>");
    }

    #[test]
    fn a_crate_type_that_implements_a_bound_with_its_arguments_comes_before_the_short_list() {
        let text = "pub struct Options { pub k: u64 }\n\
                    impl AsRef<Options> for Options { fn as_ref(&self) -> &Options { self } }\n\
                    pub struct Other;\n\
                    impl AsRef<str> for Other { fn as_ref(&self) -> &str { \"\" } }";
        let file = SourceFile { path: "lib.rs".into(), module: vec![], text: text.into() };
        let files = vec![(file, syn::parse_file(text).unwrap())];
        let table = TypeTable::new(&files, &[]);
        let f: syn::ItemFn =
            syn::parse_str("fn show<T: Copy, O: AsRef<Options>>(v: T, o: O) {}").unwrap();
        let v: Vec<String> = instantiations(&params_of(&f.sig.generics), &table)
            .into_iter()
            .map(|m| tight(&m["O"]))
            .collect();
        // Not `Other`: its `AsRef` is of another type.
        assert_eq!(v[0], "Options", "{v:?}");
        assert!(!v.contains(&"Other".to_string()), "{v:?}");
    }

    #[test]
    fn a_generic_impl_of_a_crate_trait_gives_its_type_instantiated_a_small_array_first() {
        // tinyvec 1.8: `impl<A: Array> ArrayVec<A>`, `Array` implemented for `[T; 0]`, `[T;
        // 1]`, … by `impl<T: Default>`: `[i32; 4]` first (a capacity exploring can fill).
        let text = "pub trait Array { type Item; }\n\
                    impl<T: Default> Array for [T; 0] { type Item = T; }\n\
                    impl<T: Default> Array for [T; 1] { type Item = T; }\n\
                    impl<T: Default> Array for [T; 4] { type Item = T; }\n\
                    impl<T: Default> Array for [T; 8] { type Item = T; }";
        let file = SourceFile { path: "lib.rs".into(), module: vec![], text: text.into() };
        let files = vec![(file, syn::parse_file(text).unwrap())];
        let table = TypeTable::new(&files, &[]);
        let f: syn::ItemFn = syn::parse_str("fn len<A: Array>(a: A) -> usize { 0 }").unwrap();
        let v: Vec<String> = instantiations(&params_of(&f.sig.generics), &table)
            .into_iter()
            .map(|m| tight(&m["A"]))
            .collect();
        assert_eq!(v, ["[i32;4]", "[i32;1]", "[i32;0]"]);
    }

    #[test]
    fn the_short_list_drops_what_the_bounds_rule_out() {
        let v = first("fn largest<T: PartialOrd + Copy>(xs: &[T]) -> T");
        assert_eq!(v, ["i32", "u64", "f64"]);
        let v = first("fn h<T: std::hash::Hash + Eq>(x: T)");
        assert!(!v.contains(&"f64".to_string()), "{v:?}");
        assert!(first("fn take<P: FnMut(char) -> bool>(p: P)").is_empty());
    }

    #[test]
    fn a_float_bound_gets_the_floats_first() {
        assert_eq!(first("fn f<T: FloatCore>(x: T) -> T"), ["f64", "f32"]);
        assert_eq!(first("fn f<F>(x: &F) -> u64 where F: num_traits::Float")[0], "f64");
    }

    #[test]
    fn string_and_vec_are_written_as_absolute_std_paths_for_no_std_crates() {
        let v = first("fn f<S: AsRef<str>>(s: S)");
        assert_eq!(v, ["&str", "::std::string::String", "i32"]);
        let v = first("fn f<T: Clone>(x: T)");
        assert!(v.contains(&"::std::string::String".to_string()), "{v:?}");
        // An iterator's element type keeps its own path; only the prelude's names change.
        let v = first("fn f<I: Iterator<Item = String>>(it: I) -> usize");
        assert_eq!(v[0], "std::vec::IntoIter<::std::string::String>");
    }

    #[test]
    fn a_const_parameter_takes_its_default_then_values_of_its_type() {
        assert_eq!(first("fn f<const N: usize>(xs: [u8; N])"), ["4", "1", "16"]);
        assert_eq!(first("fn f<const N: usize = 8>(xs: [u8; N])"), ["8", "4", "1"]);
        assert_eq!(first("fn f<const B: bool>()"), ["false", "true"]);
        assert_eq!(
            first("fn f<T: Copy, const C: char>(x: T)"),
            ["'a', i32", "'*', u64", "'*', f64"]
        );
    }

    #[test]
    fn an_impl_s_const_parameters_take_the_values_the_crate_s_aliases_give_its_type() {
        let src = "pub struct Pattern<const ANY: char, const ONE: char> { t: String }\n\
                   pub type Glob = Pattern<'*', '?'>;\n\
                   pub type Unrelated = Vec<u8>;";
        let file = SourceFile { path: "lib.rs".into(), module: vec![], text: src.into() };
        let files = vec![(file, syn::parse_file(src).unwrap())];
        let table = TypeTable::new(&files, &[]);
        let imp: syn::ItemImpl =
            syn::parse_str("impl<const ANY: char, const ONE: char> Pattern<ANY, ONE> {}").unwrap();
        let mut params = params_of(&imp.generics);
        from_aliases(&mut params, &imp.self_ty, &table);
        let tries: Vec<String> = instantiations(&params, &table)
            .into_iter()
            .map(|m| format!("{} {}", tight(&m["ANY"]), tight(&m["ONE"])))
            .collect();
        assert_eq!(tries, ["'*' '?'", "'a' 'a'", "'a' '*'"]);
        // Substituted into a type and an array length, they read as written.
        let mut ty: Type = syn::parse_str("(Pattern<ANY, ONE>, [u8; ANY])").unwrap();
        let first = instantiations(&params, &table).remove(0);
        syn::visit_mut::VisitMut::visit_type_mut(&mut SubstParams(&first), &mut ty);
        assert_eq!(tight(&ty), "(Pattern<'*', '?'>, [u8;'*'])");
    }
}
