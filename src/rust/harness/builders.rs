//! The generated code that decodes built values in the harness: for each crate type a function
//! takes, a `FromJson` impl in the module that defines the type, dispatching on the recipe's
//! constructor to one function per constructor, generated in the module where that constructor
//! is written (an inherent impl, a trait impl or the type itself), so that private fields and
//! functions are in reach. Every piece is marked as a harness part of its own
//! (`// abex-part built N {` … `// abex-part built N }`, or one line ending in
//! `// abex-part built N =`): a constructor that does not compile drops only that constructor.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use crate::rust::files::ModuleSite;
use crate::rust::types::book::{Book, Fallible};
use crate::rust::types::Pass;

/// The name of the generated module holding builders in each module.
pub const MODULE: &str = "__abex_b";

/// The part id of builder `b`'s impl (`arm` `None`) or of its constructor `arm`.
pub fn part_id(b: usize, arm: Option<usize>) -> u32 {
    ((b as u32) << 8) | arm.map_or(0, |k| k as u32 + 1)
}

/// Builder and constructor of a part id.
pub fn part_of(id: u32) -> (usize, Option<usize>) {
    let arm = id & 0xff;
    ((id >> 8) as usize, if arm == 0 { None } else { Some(arm as usize - 1) })
}

/// Code to insert in one file.
pub struct BuiltEdit {
    /// The file (absolute, in the user's tree).
    pub file: PathBuf,
    /// The byte offset.
    pub at: usize,
    /// The code.
    pub text: String,
}

/// The builders' code for a harness.
pub struct Built {
    /// The insertions.
    pub edits: Vec<BuiltEdit>,
    /// Modules that must be visible crate-wide (they hold constructors the impls call).
    pub widen: Vec<Vec<String>>,
}

fn path_of(module: &[String]) -> String {
    let mut s = String::from("crate::");
    for m in module {
        s.push_str(m);
        s.push_str("::");
    }
    s.push_str(MODULE);
    s
}

/// The code of builders `needed` of `book` (and those they reach), without the parts
/// `dropped`.
pub fn code(
    book: &Book,
    sites: &[ModuleSite],
    needed: &BTreeSet<usize>,
    dropped: &dyn Fn(u32) -> bool,
) -> Built {
    let rt = "crate::__abex_harness";
    let mut per_module: BTreeMap<Vec<String>, String> = BTreeMap::new();
    let mut widen = BTreeSet::new();
    for &b in needed {
        let Some(builder) = book.builders.get(b) else { continue };
        if dropped(part_id(b, None)) {
            continue;
        }
        let mut arms = String::new();
        for (k, arm) in builder.arms.iter().enumerate() {
            let id = part_id(b, Some(k));
            if dropped(id) {
                continue;
            }
            // The constructor's function, in its home module.
            let n = arm.params.len();
            let mut f = format!(
                "// abex-part built {id} {{\n    pub(crate) fn __abex_ctor_{b}_{k}(args: &[{rt}::Json]) -> ::std::result::Result<{ret}, ::std::string::String> {{\n        if args.len() != {n} {{ return {rt}::arity({ctor:?}, {n}, args.len()); }}\n",
                ret = arm.ret_text,
                ctor = arm.ctor,
            );
            for (i, (_, p)) in arm.params.iter().enumerate() {
                let m = if p.pass == Pass::RefMut { "mut " } else { "" };
                f.push_str(&format!(
                    "        let {m}a{i}: {ty} = {rt}::arg(args, {i})?;\n",
                    ty = p.owned
                ));
            }
            let body = match arm.fallible {
                Fallible::No => format!("::std::result::Result::Ok({})", arm.build),
                Fallible::Result => format!(
                    "match {} {{ ::std::result::Result::Ok(v) => ::std::result::Result::Ok(v), ::std::result::Result::Err(e) => ::std::result::Result::Err({rt}::could_not_build({ctor:?}, &{{ use {rt}::{{DescribeDebug as _, DescribeAny as _}}; (&&{rt}::Describe(&e)).describe() }})) }}",
                    arm.build,
                    ctor = arm.ctor
                ),
                Fallible::Option => format!(
                    "match {} {{ ::std::option::Option::Some(v) => ::std::result::Result::Ok(v), ::std::option::Option::None => ::std::result::Result::Err({rt}::could_not_build({ctor:?}, \"returned None\")) }}",
                    arm.build,
                    ctor = arm.ctor
                ),
            };
            f.push_str(&format!(
                "        {rt}::guard({ctor:?}, move || {body})\n    }}\n// abex-part built {id} }}\n",
                ctor = arm.ctor
            ));
            per_module.entry(arm.home.clone()).or_default().push_str(&f);
            widen.insert(arm.home.clone());
            arms.push_str(&format!(
                "                {ctor:?} => {home}::__abex_ctor_{b}_{k}(args), // abex-part built {id} =\n",
                ctor = arm.ctor,
                home = path_of(&arm.home)
            ));
        }
        let id = part_id(b, None);
        let name = &builder.name;
        let imp = format!(
            "// abex-part built {id} {{\n    impl {rt}::FromJson for {ty} {{\n        fn from_json(j: &{rt}::Json) -> ::std::result::Result<Self, ::std::string::String> {{\n            let (c, args) = {rt}::recipe(j, {name:?})?;\n            match c {{\n{arms}                _ => {rt}::unknown_ctor({name:?}, c),\n            }}\n        }}\n    }}\n// abex-part built {id} }}\n",
            ty = builder.self_text,
        );
        per_module.entry(builder.module.clone()).or_default().push_str(&imp);
    }
    let mut edits = Vec::new();
    for (module, code) in per_module {
        let Some(site) = sites.iter().find(|s| s.module == module) else { continue };
        edits.push(BuiltEdit {
            file: site.file.clone(),
            at: site.inject_at,
            text: format!(
                "\n#[doc(hidden)]\n#[allow(warnings, missing_docs, unused, clippy::all)]\npub(crate) mod {MODULE} {{\n    use super::*;\n{code}}}\n"
            ),
        });
    }
    Built { edits, widen: widen.into_iter().collect() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rust::types::book::{Arm, Builder};
    use crate::rust::types::ArgPlan;
    use crate::value::{CtorForm, Ty};

    #[test]
    fn each_constructor_is_a_part_and_a_dropped_one_is_left_out() {
        let arm = |ctor: &str, build: &str, fallible| Arm {
            ctor: ctor.into(),
            form: CtorForm::Call,
            params: vec![(
                "text".into(),
                ArgPlan { ty: Ty::Str, owned: "::std::string::String".into(), pass: Pass::Ref },
            )],
            home: vec!["parse".into()],
            ret_text: "Version".into(),
            build: build.into(),
            fallible,
            code: String::new(),
            private: false,
            bypasses_api: false,
            seeds: Vec::new(),
        };
        let book = Book {
            builders: vec![Builder {
                name: "Version".into(),
                self_text: "Version".into(),
                arms: vec![
                    arm("Version::parse", "<Version>::parse(&a0)", Fallible::Result),
                    arm(
                        "Version::from_str",
                        "<Version as FromStr>::from_str(&a0)",
                        Fallible::Result,
                    ),
                ],
                ..Builder::default()
            }],
        };
        let sites = vec![
            ModuleSite { module: vec![], file: "/c/src/lib.rs".into(), inject_at: 10 },
            ModuleSite {
                module: vec!["parse".into()],
                file: "/c/src/parse.rs".into(),
                inject_at: 5,
            },
        ];
        let all = code(&book, &sites, &BTreeSet::from([0]), &|_| false);
        assert_eq!(all.widen, [vec!["parse".to_string()]]);
        let parse = &all.edits.iter().find(|e| e.file.ends_with("parse.rs")).unwrap().text;
        assert!(parse.contains("fn __abex_ctor_0_0(") && parse.contains("fn __abex_ctor_0_1("));
        assert!(
            parse.contains("// abex-part built 1 {") && parse.contains("// abex-part built 2 }")
        );
        let lib = &all.edits.iter().find(|e| e.file.ends_with("lib.rs")).unwrap().text;
        assert!(lib.contains("impl crate::__abex_harness::FromJson for Version"), "{lib}");
        assert!(lib.contains("\"Version::parse\" => crate::parse::__abex_b::__abex_ctor_0_0(args), // abex-part built 1 ="));
        let one = code(&book, &sites, &BTreeSet::from([0]), &|id| id == part_id(0, Some(0)));
        let text: String = one.edits.iter().map(|e| e.text.clone()).collect();
        assert!(!text.contains("__abex_ctor_0_0") && text.contains("__abex_ctor_0_1"));
        assert_eq!(part_of(part_id(3, Some(4))), (3, Some(4)));
        assert_eq!(part_of(part_id(3, None)), (3, None));
    }

    /// A crate with types of each kind, its builders, its wrappers and the runtime, as the
    /// harness generates them, type-checked by rustc on every edition.
    #[test]
    fn builders_wrappers_and_the_runtime_build_on_every_edition() {
        let lib = r#"
use std::fmt;
use std::str::FromStr;
use std::time::Duration;
#[derive(Debug, Clone, PartialEq)]
pub struct Version { pub major: u64, pub minor: u64 }
impl Version {
    pub fn parse(text: &str) -> Result<Version, String> { let _ = text; Err("no".into()) }
    pub fn bump(&mut self, by: u64) -> u64 { self.major += by; self.major }
}
impl FromStr for Version { type Err = String; fn from_str(s: &str) -> Result<Self, String> { Version::parse(s) } }
impl fmt::Display for Version { fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result { write!(f, "{}", self.major) } }
#[derive(Debug)]
pub enum Shape { Dot, Square(u32), Rect { w: u32, h: u32 } }
pub struct Parser<'a> { src: &'a str }
impl<'a> Parser<'a> { pub fn rest(&self) -> usize { self.src.len() } }
pub fn area(s: &Shape, d: Duration, n: std::num::NonZeroU8) -> u64 { let _ = (d, n); match s { Shape::Dot => 0, Shape::Square(a) => u64::from(*a), Shape::Rect { w, h } => u64::from(*w * *h) } }
pub fn above<T: PartialOrd>(xs: &[T], limit: T) -> usize { xs.iter().filter(|x| **x > limit).count() }
"#;
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("lib.rs");
        std::fs::write(&path, lib).unwrap();
        let c = crate::rust::source::read_crate(&path).unwrap();
        let fns: Vec<&crate::rust::source::FoundFn> =
            c.fns.iter().filter(|f| f.plan.is_ok()).collect();
        assert!(
            fns.len() >= 6,
            "{:?}",
            c.fns.iter().map(|f| (&f.name, &f.plan)).collect::<Vec<_>>()
        );
        let needed: BTreeSet<usize> = fns
            .iter()
            .flat_map(|f| {
                crate::rust::harness::wrapper::plans(f).into_iter().flat_map(|p| p.builders.clone())
            })
            .collect();
        let built = code(&c.book, &c.sites, &needed, &|_| false);
        let mut text = lib.to_string();
        for e in &built.edits {
            text.push_str(&e.text);
        }
        let rt = "crate::__abex_harness";
        let wrappers: String = fns
            .iter()
            .enumerate()
            .map(|(id, f)| crate::rust::harness::wrapper::wrapper(id, f, rt, &|_| false, &|_| true))
            .collect();
        text.push_str(&format!(
            "\n#[allow(warnings)]\npub mod __abex_h {{\n    use super::*;\n{wrappers}}}\n#[allow(warnings)]\npub mod __abex_harness {{\n{}\n{}\n}}\n",
            crate::rust::harness::RUNTIME,
            crate::rust::harness::RUNTIME_BUILT
        ));
        std::fs::write(&path, &text).unwrap();
        for edition in ["2015", "2018", "2021", "2024"] {
            let out =
                std::process::Command::new(std::env::var_os("RUSTC").unwrap_or("rustc".into()))
                    .args(["--edition", edition, "--crate-type", "lib", "--crate-name", "built"])
                    .args(["--emit", "metadata", "--cap-lints", "warn", "-o"])
                    .arg(d.path().join(format!("lib{edition}.rmeta")))
                    .arg(&path)
                    .output()
                    .unwrap();
            assert!(
                out.status.success(),
                "edition {edition}:\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
}
