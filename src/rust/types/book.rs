//! The recipe book of a crate: for each of its types that a function takes, the constructors
//! abex can build it with (struct literals, enum variants, associated functions, `FromStr`,
//! `From`, `TryFrom`, `Default`, constants, `Arbitrary`), each as the code the harness runs and
//! the code a suggested test writes. Computed once when the crate is read (`recipes.rs`), plain
//! data afterwards: the harness generates builders from it (`builders.rs`), the lab prunes the
//! constructors that did not compile, and suggested tests print recipes with it.
//!
//! A parameter's value type names a crate type by a placeholder (`Ty::Built` with no
//! constructors and a name starting with [`PLACEHOLDER`]); [`Book::expand`] replaces it with
//! the type's constructors, cut at [`MAX_DEPTH`] so that recursive types stay finite.

use std::collections::{BTreeMap, BTreeSet};

use super::ArgPlan;
use crate::value::{Ctor, CtorForm, Ty, Value};

/// The first character of a placeholder's name; the builder's index follows.
pub const PLACEHOLDER: char = '\u{1}';

/// How deep built values nest inside an argument (the argument itself is at depth 0).
pub const MAX_DEPTH: usize = 3;

/// How many type nodes an argument's value type may hold; deeper constructors are cut first.
const MAX_NODES: usize = 600;

/// What a fallible constructor returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fallible {
    /// It returns the value.
    No,
    /// It returns `Result<Self, E>`: an `Err` means the value cannot be built.
    Result,
    /// It returns `Option<Self>`: a `None` means the value cannot be built.
    Option,
}

/// One constructor of a type.
#[derive(Clone, Debug)]
pub struct Arm {
    /// Its name, as in `$ctor`: `Version::parse`, `Op::Caret`, `Comparator`.
    pub ctor: String,
    /// How it is written.
    pub form: CtorForm,
    /// Its parameters (field names for struct literals) and how each is decoded and passed.
    pub params: Vec<(String, ArgPlan)>,
    /// The module its code is generated in (where the impl or the type is written).
    pub home: Vec<String>,
    /// The built type as written in `home`.
    pub ret_text: String,
    /// The expression that builds the value from `a0`, `a1`, … in `home`.
    pub build: String,
    /// Whether it can fail.
    pub fallible: Fallible,
    /// How a suggested test writes it: `{T}` stands for the type's path, `{0}`… for the
    /// arguments; empty when it cannot be written.
    pub code: String,
    /// Whether the code needs private access (fields, private functions): a suggested test
    /// can then write it only inside `home`.
    pub private: bool,
    /// Whether it is a struct literal with private fields: it may break invariants that the
    /// type's own functions keep, so it is used only when the type offers nothing else (or
    /// the crate's tests write it).
    pub bypasses_api: bool,
    /// Argument lists seen in the crate's tests and examples.
    pub seeds: Vec<Vec<Value>>,
}

/// The constructors of one type.
#[derive(Clone, Debug, Default)]
pub struct Builder {
    /// The value type's name, unique in the crate: `Version`, `wrapper::Duration`, `Foo<i32>`.
    pub name: String,
    /// The module the type is defined in (where its `FromJson` impl goes).
    pub module: Vec<String>,
    /// The type as written in `module`.
    pub self_text: String,
    /// Its constructors.
    pub arms: Vec<Arm>,
    /// Constructors left out, with why.
    pub left_out: Vec<String>,
    /// How a suggested test names the type from each module (`None`: it cannot).
    pub paths: BTreeMap<Vec<String>, Option<String>>,
    /// Generic arguments written after the path in an expression (`::<i32>`), or empty.
    pub turbofish: String,
}

/// Every builder of a crate.
#[derive(Clone, Debug, Default)]
pub struct Book {
    /// The builders, by index.
    pub builders: Vec<Builder>,
}

/// The placeholder value type of builder `b`.
pub fn placeholder(b: usize) -> Ty {
    Ty::Built { name: format!("{PLACEHOLDER}{b}"), ctors: Vec::new() }
}

/// The builder a placeholder stands for.
pub fn placeholder_of(ty: &Ty) -> Option<usize> {
    match ty {
        Ty::Built { name, ctors } if ctors.is_empty() => {
            name.strip_prefix(PLACEHOLDER)?.parse().ok()
        }
        _ => None,
    }
}

/// The builders a value type names, directly.
fn named(ty: &Ty, out: &mut BTreeSet<usize>) {
    if let Some(b) = placeholder_of(ty) {
        out.insert(b);
        return;
    }
    match ty {
        Ty::List { item } | Ty::Array { item, .. } | Ty::Option { item } => named(item, out),
        Ty::Map { key, value } => {
            named(key, out);
            named(value, out);
        }
        Ty::Tuple { items } | Ty::Union { options: items } => {
            items.iter().for_each(|t| named(t, out))
        }
        Ty::Built { ctors, .. } => {
            ctors.iter().flat_map(|c| &c.params).for_each(|(_, t)| named(t, out))
        }
        _ => {}
    }
}

fn count(ty: &Ty) -> usize {
    1 + match ty {
        Ty::List { item } | Ty::Array { item, .. } | Ty::Option { item } => count(item),
        Ty::Map { key, value } => count(key) + count(value),
        Ty::Tuple { items } | Ty::Union { options: items } => items.iter().map(count).sum(),
        Ty::Built { ctors, .. } => {
            ctors.iter().flat_map(|c| &c.params).map(|(_, t)| count(t)).sum()
        }
        _ => 0,
    }
}

impl Book {
    /// The builders reached from `ty`, transitively (through every constructor).
    pub fn reached(&self, ty: &Ty) -> BTreeSet<usize> {
        let mut seen = BTreeSet::new();
        let mut todo: Vec<usize> = {
            let mut s = BTreeSet::new();
            named(ty, &mut s);
            s.into_iter().collect()
        };
        while let Some(b) = todo.pop() {
            if !seen.insert(b) {
                continue;
            }
            for arm in self.builders.get(b).map_or(&[][..], |x| &x.arms[..]) {
                for (_, p) in &arm.params {
                    let mut s = BTreeSet::new();
                    named(&p.ty, &mut s);
                    todo.extend(s);
                }
            }
        }
        seen
    }

    /// `ty` with every placeholder replaced by its type's constructors (those for which
    /// `keep(builder, arm)` holds), cut at [`MAX_DEPTH`]; `Err` names the type that cannot be
    /// built.
    pub fn expand(&self, ty: &Ty, keep: &dyn Fn(usize, usize) -> bool) -> Result<Ty, String> {
        let mut depth = MAX_DEPTH;
        loop {
            let t = self.expand_at(ty, 0, depth, keep)?;
            if count(&t) <= MAX_NODES || depth == 0 {
                return Ok(t);
            }
            depth -= 1;
        }
    }

    fn expand_at(
        &self,
        ty: &Ty,
        depth: usize,
        max: usize,
        keep: &dyn Fn(usize, usize) -> bool,
    ) -> Result<Ty, String> {
        let inner = |t: &Ty| self.expand_at(t, depth, max, keep).map(Box::new);
        if let Some(b) = placeholder_of(ty) {
            return self.expand_builder(b, depth, max, keep);
        }
        Ok(match ty {
            Ty::List { item } => Ty::List { item: inner(item)? },
            Ty::Array { item, len } => Ty::Array { item: inner(item)?, len: *len },
            Ty::Option { item } => Ty::Option { item: inner(item)? },
            Ty::Map { key, value } => Ty::Map { key: inner(key)?, value: inner(value)? },
            Ty::Tuple { items } => Ty::Tuple {
                items: items
                    .iter()
                    .map(|t| self.expand_at(t, depth, max, keep))
                    .collect::<Result<_, _>>()?,
            },
            other => other.clone(),
        })
    }

    fn expand_builder(
        &self,
        b: usize,
        depth: usize,
        max: usize,
        keep: &dyn Fn(usize, usize) -> bool,
    ) -> Result<Ty, String> {
        let builder = self.builders.get(b).ok_or("an unknown type")?;
        let mut ctors = Vec::new();
        let mut why = Vec::new();
        for (k, arm) in builder.arms.iter().enumerate() {
            if !keep(b, k) {
                why.push(format!("`{}` does not compile", arm.ctor));
                continue;
            }
            let nested = arm.params.iter().any(|(_, p)| !self.reached(&p.ty).is_empty());
            if depth >= max && nested {
                continue;
            }
            let params: Result<Vec<(String, Ty)>, String> = arm
                .params
                .iter()
                .map(|(n, p)| Ok((n.clone(), self.expand_at(&p.ty, depth + 1, max, keep)?)))
                .collect();
            match params {
                Ok(params) => {
                    let seeds = arm
                        .seeds
                        .iter()
                        .filter(|s| {
                            s.len() == params.len()
                                && s.iter()
                                    .zip(&params)
                                    .all(|(v, (_, t))| crate::inputs::conforms(t, v))
                        })
                        .cloned()
                        .collect();
                    ctors.push(Ctor {
                        name: arm.ctor.clone(),
                        form: arm.form,
                        params,
                        seeds,
                        defaults: Vec::new(),
                    });
                }
                Err(e) => why.push(e),
            }
        }
        // Constructors that can fail (`parse`) rarely build from generated arguments: when the
        // type has a constructor that cannot fail, they are kept only with seeds.
        let fallible =
            |c: &Ctor| builder.arms.iter().any(|a| a.ctor == c.name && a.fallible != Fallible::No);
        if ctors.iter().any(|c| !fallible(c)) {
            ctors.retain(|c| !fallible(c) || !c.seeds.is_empty());
        }
        let bypasses = |c: &Ctor| builder.arms.iter().any(|a| a.ctor == c.name && a.bypasses_api);
        if ctors.iter().any(|c| !bypasses(c)) {
            ctors.retain(|c| !bypasses(c) || !c.seeds.is_empty());
        }
        if ctors.is_empty() {
            why.extend(builder.left_out.iter().cloned());
            why.dedup();
            let detail = if why.is_empty() {
                "no constructor abex can drive".to_string()
            } else {
                why.into_iter().take(3).collect::<Vec<_>>().join("; ")
            };
            return Err(format!("abex cannot build `{}`: {detail}", builder.name));
        }
        Ok(Ty::Built { name: builder.name.clone(), ctors })
    }

    /// The builder whose value type is named `name`.
    pub fn by_name(&self, name: &str) -> Option<(usize, &Builder)> {
        self.builders.iter().enumerate().find(|(_, b)| b.name == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rust::types::Pass;

    fn plan(ty: Ty) -> ArgPlan {
        ArgPlan { ty, owned: String::new(), pass: Pass::Value }
    }

    fn arm(ctor: &str, form: CtorForm, params: Vec<(&str, Ty)>) -> Arm {
        Arm {
            ctor: ctor.into(),
            form,
            params: params.into_iter().map(|(n, t)| (n.to_string(), plan(t))).collect(),
            home: Vec::new(),
            ret_text: String::new(),
            build: String::new(),
            fallible: Fallible::No,
            code: String::new(),
            private: false,
            bypasses_api: false,
            seeds: Vec::new(),
        }
    }

    #[test]
    fn recursive_types_are_cut_at_a_small_depth() {
        // enum Expr { Lit(i32), Neg(Box<Expr>) }
        let b = Builder {
            name: "Expr".into(),
            arms: vec![
                arm("Expr::Lit", CtorForm::Call, vec![("0", Ty::int(32, true))]),
                arm("Expr::Neg", CtorForm::Call, vec![("0", placeholder(0))]),
            ],
            ..Builder::default()
        };
        let book = Book { builders: vec![b] };
        let t = book.expand(&placeholder(0), &|_, _| true).unwrap();
        let mut depth = 0;
        let mut at = &t;
        while let Ty::Built { ctors, .. } = at {
            match ctors.iter().find(|c| c.name == "Expr::Neg") {
                Some(neg) => {
                    at = &neg.params[0].1;
                    depth += 1;
                }
                None => break,
            }
        }
        assert_eq!(depth, MAX_DEPTH);
        assert_eq!(book.reached(&placeholder(0)), BTreeSet::from([0]));
    }

    #[test]
    fn a_type_whose_constructors_all_failed_cannot_be_built_and_says_why() {
        let b = Builder {
            name: "Version".into(),
            arms: vec![arm("Version::parse", CtorForm::Call, vec![("text", Ty::Str)])],
            ..Builder::default()
        };
        let book = Book { builders: vec![b] };
        let e = book.expand(&Ty::Option { item: Box::new(placeholder(0)) }, &|_, _| false);
        let e = e.unwrap_err();
        assert!(e.contains("abex cannot build `Version`") && e.contains("Version::parse"), "{e}");
    }
}
