//! Values of a return type, cargo-mutants style, for the mutants that replace a whole body.

use syn::Type;

/// Values of a return type, cargo-mutants style; `None` when there is no sensible one
/// (`impl Trait`, references other than `&str`, `char`, pointers, `!`).
pub(super) fn values(ty: &Type) -> Option<Vec<String>> {
    let all = |v: &[&str]| Some(v.iter().map(|s| s.to_string()).collect());
    match ty {
        Type::Paren(p) => values(&p.elem),
        Type::Group(g) => values(&g.elem),
        Type::Tuple(t) if t.elems.is_empty() => all(&["()"]),
        Type::Tuple(t) => {
            let firsts: Option<Vec<String>> =
                t.elems.iter().map(|e| values(e)?.into_iter().next()).collect();
            let firsts = firsts?;
            let comma = if firsts.len() == 1 { "," } else { "" };
            Some(vec![format!("({}{comma})", firsts.join(", "))])
        }
        Type::Reference(r) => match &*r.elem {
            Type::Path(p) if p.path.is_ident("str") => all(&["\"\"", "\"xyzzy\""]),
            _ => None,
        },
        Type::Array(_) => all(&["Default::default()"]),
        Type::Path(p) if p.qself.is_none() => {
            let seg = p.path.segments.last()?;
            let arg = match &seg.arguments {
                syn::PathArguments::AngleBracketed(a) => a.args.iter().find_map(|g| match g {
                    syn::GenericArgument::Type(t) => Some(t),
                    _ => None,
                }),
                _ => None,
            };
            let wrap = |f: &dyn Fn(&str) -> String| -> Option<Vec<String>> {
                Some(values(arg?)?.iter().map(|v| f(v)).collect())
            };
            match seg.ident.to_string().as_str() {
                "bool" => all(&["true", "false"]),
                "u8" | "u16" | "u32" | "u64" | "u128" | "usize" => all(&["0", "1"]),
                "i8" | "i16" | "i32" | "i64" | "i128" | "isize" => all(&["0", "1", "-1"]),
                "f32" | "f64" => all(&["0.0", "1.0", "-1.0"]),
                "String" => all(&["String::new()", "\"xyzzy\".into()"]),
                "char" | "str" => None,
                "Option" => {
                    let mut v = vec!["None".to_string()];
                    v.extend(wrap(&|x| format!("Some({x})")).unwrap_or_default());
                    Some(v)
                }
                // A bare `Result` is `fmt::Result` or an alias of it, most often.
                "Result" if arg.is_none() => all(&["Ok(())"]),
                "Result" => wrap(&|x| format!("Ok({x})")),
                "Vec" => {
                    let mut v = vec!["vec![]".to_string()];
                    v.extend(wrap(&|x| format!("vec![{x}]")).unwrap_or_default());
                    Some(v)
                }
                name @ ("Box" | "Rc" | "Arc") => wrap(&|x| format!("{name}::new({x})")),
                _ => all(&["Default::default()"]),
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mutate::rust_rules::testing::{mutants, triples};

    #[test]
    fn return_values_follow_the_type() {
        let cases = [
            ("bool", vec!["true", "false"]),
            ("f64", vec!["0.0", "1.0", "-1.0"]),
            ("String", vec!["String::new()", "\"xyzzy\".into()"]),
            ("&'static str", vec!["\"\"", "\"xyzzy\""]),
            ("Option<u8>", vec!["None", "Some(0)", "Some(1)"]),
            ("Result<(), E>", vec!["Ok(())"]),
            ("Vec<bool>", vec!["vec![]", "vec![true]", "vec![false]"]),
            ("(u8, String)", vec!["(0, String::new())"]),
            ("Box<u8>", vec!["Box::new(0)", "Box::new(1)"]),
            ("HashMap<u8, u8>", vec!["Default::default()"]),
            ("fmt::Result", vec!["Ok(())"]),
        ];
        for (ty, want) in cases {
            let ty: Type = syn::parse_str(ty).unwrap();
            assert_eq!(values(&ty).unwrap(), want);
        }
        for none in ["impl Iterator<Item = u8>", "&[u8]", "&mut S", "char", "!"] {
            assert_eq!(values(&syn::parse_str(none).unwrap()), None, "{none}");
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
