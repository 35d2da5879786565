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

/// The item to add at the crate root whose text is `root`, or `None`.
pub fn std_item(root: &str) -> Option<String> {
    let file = syn::parse_file(root).ok()?;
    let no_std = file.attrs.iter().any(|a| a.to_token_stream().to_string().contains("no_std"));
    if !no_std {
        return None;
    }
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
    Some(match conditions.as_slice() {
        [] => format!("\n{head}extern crate std;\n"),
        some => format!("\n#[cfg(not(any({})))]\n{head}extern crate std;\n", some.join(", ")),
    })
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
        assert!(gated.contains("#[cfg(not(any(feature = \"std\", test)))]"), "{gated}");
        assert_eq!(std_item("#![no_std]\nextern crate std;\n"), None);
        // `extern crate std as other;` binds another name: std still needs its own.
        assert!(std_item("#![no_std]\nextern crate std as other;\n").is_some());
    }
}
