//! What a `#![no_std]` crate root needs for the harness: the generated code (runtime, wrappers,
//! switches, probes) names std by absolute paths (`::std::string::String`), which resolve only
//! when `std` is in the extern prelude. A `no_std` crate has it there only where it declares
//! `extern crate std;` itself, often under a `cfg` (`#[cfg(feature = "std")]`,
//! `#[cfg(test)]`). [`std_item`] gives the item the harness adds at the crate root: an
//! `extern crate std;` under the negation of those `cfg`s (so the two never both exist, which
//! would define `std` twice), or nothing where the root declares it unconditionally or is not
//! `no_std` at all.

use quote::ToTokens;
use syn::{Attribute, Item, Meta};

/// Whether the crate root whose text is `root` is `no_std` (also under a `cfg_attr`): its
/// code has no std macro (`format!`, `vec!`) in scope.
pub fn declares(root: &str) -> bool {
    syn::parse_file(root).is_ok_and(|file| no_std(&file))
}

fn no_std(file: &syn::File) -> bool {
    file.attrs.iter().any(|a| a.to_token_stream().to_string().contains("no_std"))
}

/// The item to add at the crate root whose text is `root`, or `None`.
pub fn std_item(root: &str) -> Option<String> {
    let file = syn::parse_file(root).ok()?;
    if !no_std(&file) {
        return None;
    }
    // `#![cfg_attr(not(feature = "std"), no_std)]`: `no_std` only where its predicate holds;
    // elsewhere the crate has std in its prelude, and a second `std` would not build.
    let only_when: Vec<String> = file.attrs.iter().filter_map(no_std_predicate).collect();
    let mut conditions = Vec::new();
    for item in &file.items {
        let Item::ExternCrate(e) = item else { continue };
        let binds_std = match &e.rename {
            Some((_, name)) => name == "std",
            None => e.ident == "std",
        };
        if !binds_std {
            continue;
        }
        let cfgs: Vec<String> = e.attrs.iter().filter_map(cfg_predicate).collect();
        match cfgs.as_slice() {
            [] => return None,
            [one] => conditions.push(one.clone()),
            many => conditions.push(format!("all({})", many.join(", "))),
        }
    }
    let head = "#[doc(hidden)]\n#[allow(unused_extern_crates)]\n";
    let mut all = Vec::new();
    if !only_when.is_empty() && file.attrs.iter().all(|a| !is_plain_no_std(a)) {
        all.push(format!("any({})", only_when.join(", ")));
    }
    if !conditions.is_empty() {
        all.push(format!("not(any({}))", conditions.join(", ")));
    }
    Some(match all.as_slice() {
        [] => format!("\n{head}extern crate std;\n"),
        [one] => format!("\n#[cfg({one})]\n{head}extern crate std;\n"),
        both => format!("\n#[cfg(all({}))]\n{head}extern crate std;\n", both.join(", ")),
    })
}

/// Whether `a` is a plain `#![no_std]`.
fn is_plain_no_std(a: &Attribute) -> bool {
    matches!(&a.meta, Meta::Path(p) if p.is_ident("no_std"))
}

/// The predicate of a `#![cfg_attr(PRED, …, no_std, …)]`, as text.
fn no_std_predicate(a: &Attribute) -> Option<String> {
    let Meta::List(l) = &a.meta else { return None };
    if !l.path.is_ident("cfg_attr") {
        return None;
    }
    let parts = l
        .parse_args_with(syn::punctuated::Punctuated::<Meta, syn::Token![,]>::parse_terminated)
        .ok()?;
    let mut parts = parts.into_iter();
    let predicate = parts.next()?;
    parts.any(|m| m.path().is_ident("no_std")).then(|| predicate.to_token_stream().to_string())
}

/// The predicate of a `#[cfg(…)]` attribute, as text.
fn cfg_predicate(a: &Attribute) -> Option<String> {
    match &a.meta {
        Meta::List(l) if l.path.is_ident("cfg") => Some(l.tokens.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_no_std_root_gets_std_under_the_negation_of_its_own_cfgs() {
        assert_eq!(std_item("pub fn f() {}"), None);
        let plain = std_item("#![no_std]\npub fn f() {}").unwrap();
        assert!(plain.ends_with("extern crate std;\n") && !plain.contains("cfg"), "{plain}");
        let gated = std_item(
            "#![cfg_attr(not(feature = \"std\"), no_std)]\n#[cfg(feature = \"std\")]\nextern crate std;\n#[cfg(test)]\n#[macro_use]\nextern crate std as std;\nextern crate alloc;\n",
        )
        .unwrap();
        assert!(
            gated.contains(
                "#[cfg(all(any(not (feature = \"std\")), not(any(feature = \"std\", test))))]"
            ),
            "{gated}"
        );
        // shell-words 1.1.0: `no_std` without the `std` feature, and `extern crate core;` only.
        let words = std_item(
            "#![cfg_attr(not(feature = \"std\"), no_std)]\n#[cfg(feature = \"std\")]\nextern crate core;\n",
        )
        .unwrap();
        assert!(words.contains("#[cfg(any(not (feature = \"std\")))]"), "{words}");
        assert_eq!(std_item("#![no_std]\nextern crate std;\n"), None);
        // `extern crate std as other;` binds another name: std still needs its own.
        assert!(std_item("#![no_std]\nextern crate std as other;\n").is_some());
    }
}
