//! The function items of a file that have a body, with the attributes of the items around them.

use syn::spanned::Spanned;
use syn::{Attribute, Block, ImplItem, Item, Signature, TraitItem};

/// A function item with a body, and the attributes of the items around it.
pub(super) struct FnItem<'a> {
    pub(super) attrs: &'a [Attribute],
    pub(super) sig: &'a Signature,
    pub(super) block: &'a Block,
    pub(super) span: proc_macro2::Span,
    pub(super) ancestors: Vec<&'a [Attribute]>,
}

/// Every function item of a file with a body: free, in an `impl`, a trait default, in inline
/// modules. Not functions nested in bodies: those are part of their enclosing function's text
/// but never mutated.
pub(super) fn collect<'a>(
    items: &'a [Item],
    ancestors: &mut Vec<&'a [Attribute]>,
    out: &mut Vec<FnItem<'a>>,
) {
    for item in items {
        match item {
            Item::Fn(f) => out.push(FnItem {
                attrs: &f.attrs,
                sig: &f.sig,
                block: &f.block,
                span: item.span(),
                ancestors: ancestors.clone(),
            }),
            Item::Impl(imp) => {
                ancestors.push(&imp.attrs);
                for it in &imp.items {
                    if let ImplItem::Fn(f) = it {
                        out.push(FnItem {
                            attrs: &f.attrs,
                            sig: &f.sig,
                            block: &f.block,
                            span: it.span(),
                            ancestors: ancestors.clone(),
                        });
                    }
                }
                ancestors.pop();
            }
            Item::Trait(t) => {
                ancestors.push(&t.attrs);
                for it in &t.items {
                    if let TraitItem::Fn(f) = it {
                        if let Some(block) = &f.default {
                            out.push(FnItem {
                                attrs: &f.attrs,
                                sig: &f.sig,
                                block,
                                span: it.span(),
                                ancestors: ancestors.clone(),
                            });
                        }
                    }
                }
                ancestors.pop();
            }
            Item::Mod(m) => {
                if let Some((_, inner)) = &m.content {
                    ancestors.push(&m.attrs);
                    collect(inner, ancestors, out);
                    ancestors.pop();
                }
            }
            _ => {}
        }
    }
}
