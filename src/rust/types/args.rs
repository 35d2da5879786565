//! A path's generic arguments as abex reads them: type arguments and const values alike
//! (`Pattern<'*', '?'>`, `Vec<u8, 4>`), a const value written as a [`Type::Verbatim`] that prints
//! as written, and what a const parameter's name (`N` in `[u8; N]`) stands for once
//! instantiated. A leaf: the type modules that read arguments share it.

use std::collections::BTreeMap;

use syn::{GenericArgument, PathArguments, Type};

/// Const value `e` as a generic argument (a [`Type::Verbatim`] that prints as written).
pub fn value(e: &syn::Expr) -> Type {
    Type::Verbatim(quote::ToTokens::to_token_stream(e))
}

/// The type and const arguments of a path segment, in order; a const argument (`'*'`, `4`,
/// `{ N }`) is written as a [`value`]. syn reads a bare name (`N`) as a type either way.
pub fn generic_args(args: &PathArguments) -> Vec<Type> {
    match args {
        PathArguments::AngleBracketed(a) => a
            .args
            .iter()
            .filter_map(|g| match g {
                GenericArgument::Type(t) => Some(t.clone()),
                GenericArgument::Const(e) => Some(value(e)),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// The names of `generics`' type and const parameters, in order (what [`generic_args`] fills).
pub fn value_params(generics: &syn::Generics) -> Vec<String> {
    generics
        .params
        .iter()
        .filter_map(|g| match g {
            syn::GenericParam::Type(t) => Some(t.ident.to_string()),
            syn::GenericParam::Const(c) => Some(c.ident.to_string()),
            syn::GenericParam::Lifetime(_) => None,
        })
        .collect()
}

/// The value expression `e` (a bare const parameter's name, `N` in `[u8; N]`) stands for in
/// `subst`, when it is one.
pub fn const_value(subst: &BTreeMap<String, Type>, e: &syn::Expr) -> Option<syn::Expr> {
    let syn::Expr::Path(p) = e else { return None };
    as_expr(subst.get(&p.path.get_ident()?.to_string())?)
}

/// A const value written as a generic argument ([`value`]) as the expression it is.
pub fn as_expr(t: &Type) -> Option<syn::Expr> {
    let Type::Verbatim(v) = t else { return None };
    syn::parse2(v.clone()).ok()
}
