//! The function items of a file that have a body, with the attributes of the items around them
//! and the name cargo-mutants gives each.

use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{Attribute, Block, ImplItem, Item, Signature, TraitItem};

/// A function item with a body, and the attributes of the items around it.
pub(super) struct FnItem<'a> {
    pub(super) attrs: &'a [Attribute],
    pub(super) sig: &'a Signature,
    pub(super) block: &'a Block,
    pub(super) span: proc_macro2::Span,
    pub(super) ancestors: Vec<&'a [Attribute]>,
    /// The function's name as cargo-mutants writes it in a mutant's name: the inline modules,
    /// the `impl` (`Thermostat`, `<impl Display for Version>`) or trait, then the function.
    pub(super) peer_name: String,
}

/// Every function item of a file with a body: free, in an `impl`, a trait default, in inline
/// modules. Not functions nested in bodies: those are part of their enclosing function's text
/// but never mutated.
pub(super) fn collect<'a>(
    items: &'a [Item],
    ancestors: &mut Vec<&'a [Attribute]>,
    out: &mut Vec<FnItem<'a>>,
) {
    collect_in(items, ancestors, &mut Vec::new(), out);
}

fn collect_in<'a>(
    items: &'a [Item],
    ancestors: &mut Vec<&'a [Attribute]>,
    names: &mut Vec<String>,
    out: &mut Vec<FnItem<'a>>,
) {
    let named = |names: &[String], sig: &Signature| {
        names.iter().cloned().chain([sig.ident.to_string()]).collect::<Vec<_>>().join("::")
    };
    for item in items {
        match item {
            Item::Fn(f) => out.push(FnItem {
                attrs: &f.attrs,
                sig: &f.sig,
                block: &f.block,
                span: item.span(),
                ancestors: ancestors.clone(),
                peer_name: named(names, &f.sig),
            }),
            Item::Impl(imp) => {
                ancestors.push(&imp.attrs);
                let ty = tidy(&imp.self_ty);
                names.push(match &imp.trait_ {
                    Some((_, path, _)) => format!("<impl {} for {ty}>", tidy(path)),
                    None => ty,
                });
                for it in &imp.items {
                    if let ImplItem::Fn(f) = it {
                        out.push(FnItem {
                            attrs: &f.attrs,
                            sig: &f.sig,
                            block: &f.block,
                            span: it.span(),
                            ancestors: ancestors.clone(),
                            peer_name: named(names, &f.sig),
                        });
                    }
                }
                names.pop();
                ancestors.pop();
            }
            Item::Trait(t) => {
                ancestors.push(&t.attrs);
                names.push(t.ident.to_string());
                for it in &t.items {
                    if let TraitItem::Fn(f) = it {
                        if let Some(block) = &f.default {
                            out.push(FnItem {
                                attrs: &f.attrs,
                                sig: &f.sig,
                                block,
                                span: it.span(),
                                ancestors: ancestors.clone(),
                                peer_name: named(names, &f.sig),
                            });
                        }
                    }
                }
                names.pop();
                ancestors.pop();
            }
            Item::Mod(m) => {
                if let Some((_, inner)) = &m.content {
                    ancestors.push(&m.attrs);
                    names.push(m.ident.to_string());
                    collect_in(inner, ancestors, names, out);
                    names.pop();
                    ancestors.pop();
                }
            }
            _ => {}
        }
    }
}

/// Tokens as one line, spaced the way people write Rust (`Lex<'buf>`, `Option<Self::Item>`,
/// `(u8, String)`): the spacing cargo-mutants' names use, near enough that two names compare
/// once their whitespace is dropped.
pub(super) fn tidy(node: &impl ToTokens) -> String {
    let raw = node.to_token_stream().to_string();
    let mut out = String::with_capacity(raw.len());
    let tokens: Vec<&str> = raw.split(' ').filter(|t| !t.is_empty()).collect();
    for (i, t) in tokens.iter().enumerate() {
        let prev = if i == 0 { "" } else { tokens[i - 1] };
        let glued = matches!(*t, "<" | ">" | "::" | "," | ")" | "]" | "." | "?" | ";" | "!")
            || matches!(prev, "<" | "::" | "(" | "[" | "&" | "." | "#" | "!" | "'")
            || (*t == "(" && !matches!(prev, "," | "=" | "->" | "for" | "in" | "dyn" | "impl"))
            || (*t == "[" && prev != ",");
        if i > 0 && !glued {
            out.push(' ');
        }
        out.push_str(t);
    }
    out
}
