//! How the harness calls one function: its parameters planned in its own module (with `Self`
//! and generic parameters substituted), the receiver of a method as its first argument (built
//! like any other), trait methods through their trait (`Display::fmt` through `format!`,
//! `Iterator::next` through a capped `collect`, `Hash::hash` through a hasher's `finish`, the
//! others by `<T as Trait>::method`), and generic functions and impls instantiated with
//! concrete types (`generics.rs`), a few instantiations per function, first one first.

use std::collections::{BTreeMap, BTreeSet};

use quote::ToTokens;
use syn::{FnArg, Pat, Signature, Type};

use super::callplan::{CallPlan, Callee, Receiver, Via};
use super::generics::{self, instantiations};
use super::recipes::{with_lifetimes, Place, Recipes};
use super::table::{tight, Resolved};
use crate::rust::types::{self, ArgPlan, Ret};
use crate::targets::Param;
use crate::value::Ty;

/// The head of the impl block a function is in.
#[derive(Clone)]
pub struct ImplHead {
    /// Its generics.
    pub generics: syn::Generics,
    /// Its self type.
    pub self_ty: Type,
    /// The trait it implements, if any.
    pub trait_: Option<syn::Path>,
}

/// What planning a function found: its parameters (receiver first, as `self`) and its call
/// plans (the first instantiation that plans, then the other candidates), or why it cannot be
/// called.
pub struct Planned {
    /// The parameters, with the value types of the first plan.
    pub params: Vec<Param>,
    /// The first plan, or why there is none.
    pub plan: Result<CallPlan, String>,
    /// Other instantiations, tried when the first does not compile.
    pub alternatives: Vec<CallPlan>,
}

/// The formatting traits driven through `format!`, with their format spec.
const FORMATS: [(&str, &str); 8] = [
    ("Display", "display"),
    ("Debug", "debug"),
    ("LowerHex", "lower_hex"),
    ("UpperHex", "upper_hex"),
    ("Octal", "octal"),
    ("Binary", "binary"),
    ("LowerExp", "lower_exp"),
    ("UpperExp", "upper_exp"),
];

fn via_of(trait_name: Option<&str>, fn_name: &str) -> Via {
    match (trait_name, fn_name) {
        (Some(t), "fmt") => {
            FORMATS.iter().find(|(n, _)| *n == t).map_or(Via::Direct, |(_, spec)| Via::Format(spec))
        }
        (Some("Iterator"), "next") => Via::Collect,
        (Some("Hash"), "hash") => Via::Hash,
        _ => Via::Direct,
    }
}

/// Why a function cannot be called at all, whatever its types.
fn refused(sig: &Signature, head: Option<&ImplHead>, trait_name: Option<&str>) -> Option<String> {
    if sig.asyncness.is_some() {
        return Some("an `async` function".into());
    }
    if sig.unsafety.is_some() {
        return Some("an `unsafe` function".into());
    }
    if sig.variadic.is_some() {
        return Some("a variadic function".into());
    }
    if trait_name == Some("Drop") {
        return Some("a `Drop` impl (only the compiler calls it)".into());
    }
    if let Some(r) = sig.receiver() {
        if r.colon_token.is_some() && !matches!(&*r.ty, Type::Reference(_)) {
            let ty = tight(&*r.ty);
            if ty != "Self" {
                return Some(format!("a typed `self: {ty}` receiver"));
            }
        }
    }
    if head.is_some_and(|h| h.self_ty.to_token_stream().to_string().contains("dyn ")) {
        return Some("an impl on a trait object".into());
    }
    None
}

/// Plans function `sig` written in `module` (inside the impl `head`, if any).
pub fn plan(
    recipes: &Recipes<'_, '_>,
    module: &[String],
    sig: &Signature,
    head: Option<&ImplHead>,
) -> Planned {
    let trait_name = head
        .and_then(|h| h.trait_.as_ref())
        .and_then(|t| t.segments.last())
        .map(|s| s.ident.to_string());
    let fn_name = sig.ident.to_string();
    let via = via_of(trait_name.as_deref(), &fn_name);
    // Parameters as written; `impl Trait` arguments become made-up generic parameters.
    let mut generic_params = Vec::new();
    if let Some(h) = head {
        generic_params.extend(generics::params_of(&h.generics));
        generics::from_aliases(&mut generic_params, &h.self_ty, recipes.table);
    }
    let own = generics::params_of(&sig.generics);
    let turbofish_names: Vec<String> = own.iter().map(|p| p.name.clone()).collect();
    generic_params.extend(own);
    let mut written: Vec<(String, Type)> = Vec::new();
    for (i, input) in sig.inputs.iter().enumerate() {
        let FnArg::Typed(pt) = input else { continue };
        let name = match &*pt.pat {
            Pat::Ident(id) => id.ident.to_string(),
            _ => format!("arg{i}"),
        };
        let ty = match &*pt.ty {
            Type::ImplTrait(it) => {
                let made_up = format!("__AbexImpl{i}");
                generic_params.push(generics::Param {
                    name: made_up.clone(),
                    bounds: it.bounds.iter().cloned().collect(),
                    ..generics::Param::default()
                });
                syn::parse_str(&made_up).expect("an identifier")
            }
            t => t.clone(),
        };
        written.push((name, ty));
    }
    // `fmt`'s formatter and `hash`'s hasher are supplied by the harness.
    match via {
        Via::Format(_) | Via::Hash => {
            written.pop();
            generic_params.retain(|p| p.name != "H");
        }
        _ => {}
    }
    let mut params: Vec<Param> = Vec::new();
    let receiver = sig.receiver().map(|r| match (&r.reference, &r.mutability) {
        (Some(_), Some(_)) => Receiver::RefMut,
        (Some(_), None) => Receiver::Ref,
        (None, _) => Receiver::Value,
    });
    let fail = |params: Vec<Param>, why: String| Planned {
        params,
        plan: Err(why),
        alternatives: Vec::new(),
    };
    let show = |t: &Type| t.to_token_stream().to_string();
    if let Some(r) = &head.map(|h| h.self_ty.clone()).filter(|_| receiver.is_some()) {
        let amp = match receiver {
            Some(Receiver::Ref) => "& ",
            Some(Receiver::RefMut) => "& mut ",
            _ => "",
        };
        params.push(Param {
            name: "self".into(),
            type_text: format!("{amp}{}", show(r)),
            ty: None,
        });
    }
    if let Via::Format(_) = via {
        for (n, t) in
            [("alternate", "bool"), ("width", "Option < u8 >"), ("precision", "Option < u8 >")]
        {
            params.push(Param { name: n.into(), type_text: t.into(), ty: None });
        }
    }
    for (n, t) in &written {
        let type_text = sig
            .inputs
            .iter()
            .find_map(|i| match i {
                FnArg::Typed(pt) if matches!(&*pt.pat, Pat::Ident(id) if id.ident == *n) => {
                    Some(show(&pt.ty))
                }
                _ => None,
            })
            .unwrap_or_else(|| show(t));
        params.push(Param { name: n.clone(), type_text, ty: None });
    }
    if let Some(why) = refused(sig, head, trait_name.as_deref()) {
        return fail(params, why);
    }
    let tries = instantiations(&generic_params, recipes.table);
    if tries.is_empty() {
        let why = if generic_params.iter().any(|p| p.name.starts_with("__AbexImpl")) {
            "an `impl Trait` parameter abex cannot instantiate".to_string()
        } else {
            "a generic function abex cannot instantiate".to_string()
        };
        return fail(params, why);
    }
    let mut plans: Vec<(CallPlan, Vec<Ty>)> = Vec::new();
    let mut first_error = None;
    for subst in tries {
        match plan_one(
            recipes,
            module,
            sig,
            head,
            receiver,
            via,
            &written,
            &subst,
            &turbofish_names,
        ) {
            Ok(p) => plans.push(p),
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    if plans.is_empty() {
        let why = first_error.unwrap_or_else(|| "no plan".into());
        return fail(params, why);
    }
    let (first, tys) = plans.remove(0);
    for (p, t) in params.iter_mut().zip(tys) {
        p.ty = Some(t);
    }
    Planned { params, plan: Ok(first), alternatives: plans.into_iter().map(|(p, _)| p).collect() }
}

/// The crate type in `ty` (a returned type, written at `place`) that the harness cannot show,
/// if the crate's sources say so: the type itself, shown by `Debug` or `Display`, or a type
/// inside a std container, tuple or reference, which `Debug` shows only through its items'.
/// `None` when it can be shown or that is not known; a build decides then.
fn unshowable(place: &Place<'_, '_, '_>, ty: &Type) -> Option<String> {
    struct Walk<'p, 'r, 't, 'a> {
        place: &'p Place<'r, 't, 'a>,
        top: bool,
        found: Option<String>,
    }
    impl<'ast> syn::visit::Visit<'ast> for Walk<'_, '_, '_, '_> {
        fn visit_type_path(&mut self, p: &'ast syn::TypePath) {
            let table = self.place.recipes.table;
            let top = std::mem::replace(&mut self.top, false);
            match table.resolve_path(&self.place.module, &p.path) {
                // A crate type is shown by its own impls, whatever its arguments.
                Some(Resolved::Crate(i)) => {
                    let hidden = (!table.may_show(i, top)).then(|| table.types[i].name.clone());
                    self.found = self.found.take().or(hidden);
                }
                _ if p.qself.is_none() => syn::visit::visit_type_path(self, p),
                _ => {}
            }
        }
        fn visit_type_reference(&mut self, r: &'ast syn::TypeReference) {
            // `&T` shows as `T` does.
            syn::visit::visit_type(self, &r.elem);
        }
        fn visit_type_paren(&mut self, p: &'ast syn::TypeParen) {
            syn::visit::visit_type(self, &p.elem);
        }
        fn visit_type_group(&mut self, g: &'ast syn::TypeGroup) {
            syn::visit::visit_type(self, &g.elem);
        }
        fn visit_type_tuple(&mut self, t: &'ast syn::TypeTuple) {
            self.top = false;
            syn::visit::visit_type_tuple(self, t);
        }
        fn visit_type_array(&mut self, t: &'ast syn::TypeArray) {
            self.top = false;
            syn::visit::visit_type_array(self, t);
        }
        fn visit_type_slice(&mut self, t: &'ast syn::TypeSlice) {
            self.top = false;
            syn::visit::visit_type_slice(self, t);
        }
        // What a trait object or an `impl` type shows is its bounds' business.
        fn visit_type_trait_object(&mut self, _: &'ast syn::TypeTraitObject) {}
        fn visit_type_impl_trait(&mut self, _: &'ast syn::TypeImplTrait) {}
        fn visit_type_bare_fn(&mut self, _: &'ast syn::TypeBareFn) {}
    }
    let mut walk = Walk { place, top: true, found: None };
    syn::visit::Visit::visit_type(&mut walk, ty);
    walk.found
}

#[allow(clippy::too_many_arguments)]
fn plan_one(
    recipes: &Recipes<'_, '_>,
    module: &[String],
    sig: &Signature,
    head: Option<&ImplHead>,
    receiver: Option<Receiver>,
    via: Via,
    written: &[(String, Type)],
    subst: &BTreeMap<String, Type>,
    turbofish_names: &[String],
) -> Result<(CallPlan, Vec<Ty>), String> {
    let mut place: Place<'_, '_, '_> = recipes.place(module);
    place.subst = subst.clone();
    let self_ty = head.map(|h| place.substitute_in(&h.self_ty));
    place.self_ty = self_ty.clone();
    let mut args: Vec<ArgPlan> = Vec::new();
    if let (Some(r), Some(st)) = (receiver, &self_ty) {
        let t: Type = match r {
            Receiver::Ref => syn::parse_quote!(&#st),
            Receiver::RefMut => syn::parse_quote!(&mut #st),
            Receiver::Value => st.clone(),
        };
        args.push(place.plan(&t).map_err(|e| format!("its receiver: {e}"))?);
    }
    if let Via::Format(_) = via {
        for t in ["bool", "Option<u8>", "Option<u8>"] {
            args.push(types::plan(&syn::parse_str(t).expect("a type"), &types::Plain)?);
        }
    }
    for (_, t) in written {
        args.push(place.plan(t)?);
    }
    let ret = match via {
        Via::Direct => {
            let out = match &sig.output {
                syn::ReturnType::Type(arrow, t) => {
                    syn::ReturnType::Type(*arrow, Box::new(place.substitute_in(t)))
                }
                d => d.clone(),
            };
            let ret = types::ret(&out)?;
            if let (Ret::Value, syn::ReturnType::Type(_, t)) = (&ret, &out) {
                if let Some(name) = unshowable(&place, t) {
                    return Err(format!(
                        "the harness cannot show what it returns: `{name}` implements neither `Debug` nor `Display`"
                    ));
                }
            }
            ret
        }
        _ => Ret::Value,
    };
    let book_tys: Vec<Ty> = args.iter().map(|a| a.ty.clone()).collect();
    let mut builders = BTreeSet::new();
    let mut expanded = Vec::new();
    for t in &book_tys {
        builders.extend(recipes.reached(t));
        expanded.push(recipes.expand(t)?);
    }
    let trait_ = head.and_then(|h| h.trait_.as_ref()).map(|t| {
        let mut path = t.clone();
        let mut ty: Type = Type::Path(syn::TypePath { qself: None, path: path.clone() });
        ty = place.substitute_in(&ty);
        if let Type::Path(p) = ty {
            path = p.path;
        }
        with_lifetimes(&path, false)
    });
    let self_text = self_ty.as_ref().map(|t| with_lifetimes(t, false));
    let callee = match (self_text, receiver) {
        (None, _) => Callee::Free,
        (Some(self_ty), None) => Callee::Assoc { self_ty },
        (Some(self_ty), Some(receiver)) => Callee::Method { self_ty, receiver },
    };
    let turbofish = if turbofish_names.is_empty() || via != Via::Direct {
        String::new()
    } else {
        let ts: Vec<String> = turbofish_names
            .iter()
            .map(|n| subst.get(n).map_or("_".to_string(), |t| with_lifetimes(t, false)))
            .collect();
        format!("::<{}>", ts.join(", "))
    };
    let plan = CallPlan {
        callee,
        trait_,
        via,
        turbofish,
        args,
        ret,
        builders: builders.into_iter().collect(),
    };
    Ok((plan, expanded))
}
