//! The constants of a Rust function's source (integers, floats, strings and characters, macro
//! arguments included), read from its tokens: seeds of the directed witness search, since a
//! boundary mutant is infected at a constant of the source far more often than anywhere else.

use proc_macro2::{TokenStream, TokenTree};

use crate::witness::Hints;

/// The constants of `source` (a function's text), in order of appearance; a literal after a
/// `-` also counts negated.
pub fn of_source(source: &str) -> Hints {
    let mut hints = Hints::default();
    if let Ok(tokens) = source.parse::<TokenStream>() {
        walk(tokens, &mut hints);
    }
    hints
}

fn walk(tokens: TokenStream, hints: &mut Hints) {
    let mut minus = false;
    for t in tokens {
        match t {
            TokenTree::Group(g) => {
                walk(g.stream(), hints);
                minus = false;
            }
            TokenTree::Punct(p) => minus = p.as_char() == '-',
            TokenTree::Literal(l) => {
                match syn::Lit::new(l) {
                    syn::Lit::Int(i) => {
                        if let Ok(v) = i.base10_parse::<i128>() {
                            hints.int(v);
                            if minus {
                                hints.int(-v);
                            }
                        }
                    }
                    syn::Lit::Float(f) => {
                        if let Ok(v) = f.base10_parse::<f64>() {
                            hints.float(v);
                            if minus {
                                hints.float(-v);
                            }
                        }
                    }
                    syn::Lit::Str(s) => hints.str(&s.value()),
                    syn::Lit::Char(c) => hints.str(&c.value().to_string()),
                    _ => {}
                }
                minus = false;
            }
            TokenTree::Ident(_) => minus = false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_floats_strings_and_chars_are_read_in_order_even_inside_macros() {
        let h = of_source(
            "fn f(x: i32, s: &str) -> bool {\n    if x < -3 || s.len() > 0x40 { return false; }\n    assert!(x != 185, \"no {}\", 'q');\n    x as f64 > 2.5 && s == \"abc\"\n}",
        );
        assert_eq!(h.ints, [3, -3, 64, 185]);
        assert_eq!(h.floats, [2.5]);
        assert_eq!(h.strs, ["no {}", "q", "abc"]);
    }
}
