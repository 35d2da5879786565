//! The harness's wrapper of one function: decode each argument (the receiver first), call the
//! function the way its [`CallPlan`] says (`<T as Trait>::f(…)`, a formatting trait through
//! `format!`, `Iterator::next` through a capped `collect`, `Hash::hash` through a hasher), and
//! report the outcome. A generic function gets one wrapper per instantiation, each a harness
//! part of its own (`// abex-part inst ID K {` … `}`); the wrapper the dispatcher calls forwards
//! to the first one that compiles.

use crate::rust::source::{CallPlan, Callee, FoundFn, Via};
use crate::rust::types::{pass_expr, Pass, Ret, ITEMS};
use crate::value::AFTER;

/// The plans of `f`: its first plan, then the other instantiations.
pub fn plans(f: &FoundFn) -> Vec<&CallPlan> {
    f.plan.iter().chain(&f.alternatives).collect()
}

/// The plan the harness uses for `f` when the instantiations `dropped` did not compile, and
/// its index: the first that compiled and whose arguments can all be built (`buildable`), else
/// the first that compiled. heck's `AsKebabCase<T: AsRef<str>>` tried as `&str` compiles, but
/// its only constructor does not (`AsKebabCase(&a0)` is an `AsKebabCase<&String>`), so the
/// `String` one, which builds, is called.
pub fn chosen<'f>(
    f: &'f FoundFn,
    dropped: &dyn Fn(usize) -> bool,
    buildable: &dyn Fn(&CallPlan) -> bool,
) -> Option<(usize, &'f CallPlan)> {
    let all = plans(f);
    if all.len() == 1 {
        return Some((0, all[0]));
    }
    let compiled = || all.iter().copied().enumerate().filter(|(k, _)| !dropped(*k));
    compiled().find(|(_, p)| buildable(p)).or_else(|| compiled().next())
}

/// The path of the function as the harness calls it.
fn callee(f: &FoundFn, plan: &CallPlan) -> String {
    let name = &f.name;
    let tf = &plan.turbofish;
    match (&plan.callee, &plan.trait_) {
        (Callee::Free, _) => format!("super::{name}{tf}"),
        (Callee::Assoc { self_ty } | Callee::Method { self_ty, .. }, Some(t)) => {
            format!("<{self_ty} as {t}>::{name}{tf}")
        }
        (Callee::Assoc { self_ty } | Callee::Method { self_ty, .. }, None) => {
            format!("<{self_ty}>::{name}{tf}")
        }
    }
}

/// The arguments whose state after the call is part of its outcome: those passed as `&mut`
/// (the receiver of a `&mut self` method included), by the name a suggested test gives them.
pub fn observed(plan: &CallPlan) -> Vec<(usize, String)> {
    if plan.via != Via::Direct {
        return Vec::new();
    }
    let method = matches!(plan.callee, Callee::Method { .. });
    plan.args
        .iter()
        .enumerate()
        .filter(|(_, a)| a.pass == Pass::RefMut)
        .map(|(i, _)| (i, if i == 0 && method { "receiver".into() } else { format!("arg{i}") }))
        .collect()
}

/// The statements of a wrapper's body: decode, call, report.
fn body(f: &FoundFn, plan: &CallPlan, rt: &str) -> String {
    let n = plan.args.len();
    let mut s = format!(
        "        if args.len() != {n} {{ return {rt}::Outcome::Bad(::std::format!(\"expected {n} arguments, got {{}}\", args.len())); }}\n"
    );
    let mut passed = Vec::new();
    for (i, a) in plan.args.iter().enumerate() {
        let mutable = a.pass == Pass::RefMut || (i == 0 && plan.via == Via::Collect);
        let m = if mutable { "mut " } else { "" };
        s.push_str(&format!(
            "        let {m}a{i}: {ty} = match {rt}::arg(args, {i}) {{ ::std::result::Result::Ok(v) => v, ::std::result::Result::Err(e) => return {rt}::arg_failed(e) }};\n",
            ty = a.owned
        ));
        passed.push(pass_expr(&format!("a{i}"), &a.pass));
    }
    let path = callee(f, plan);
    let call = match plan.via {
        Via::Direct => format!("{path}({})", passed.join(", ")),
        Via::Format(spec) => format!("{rt}::{spec}(&a0, a1, a2, a3)"),
        Via::Collect => format!(
            "::std::iter::Iterator::collect::<::std::vec::Vec<_>>(::std::iter::Iterator::take(&mut a0, {ITEMS}))"
        ),
        Via::Hash => format!(
            "{{ let mut __h = ::std::collections::hash_map::DefaultHasher::new(); {path}(&a0, &mut __h); ::std::hash::Hasher::finish(&__h) }}"
        ),
    };
    s.push_str(&format!("        let __r = {call};\n"));
    // A value is rendered with `Debug`, else `Display`; inside `Ok`/`Err` a value with neither
    // is `<its type>`, since whether the call failed still tells inputs apart.
    let render = |v: &str, any: bool| {
        let opaque = if any { ", RenderOpaque as _" } else { "" };
        format!("{{ use {rt}::{{RenderDebug as _, RenderDisplay as _{opaque}}}; (&&&{rt}::Render(&{v})).abex_render() }}")
    };
    let outcome = match plan.ret {
        Ret::Result => format!(
            "        match __r {{ ::std::result::Result::Ok(v) => {rt}::Outcome::Ok({}), ::std::result::Result::Err(e) => {rt}::Outcome::Err(::std::string::ToString::to_string({rt}::type_name_of(&e)), {}) }}\n",
            render("v", true),
            render("e", true)
        ),
        Ret::Value => format!("        {rt}::Outcome::Ok({})\n", render("__r", false)),
        Ret::Iter => format!(
            "        let __items = ::std::iter::Iterator::collect::<::std::vec::Vec<_>>(::std::iter::Iterator::take(__r, {ITEMS}));\n        {rt}::Outcome::Ok({})\n",
            render("__items", false)
        ),
    };
    let states = observed(plan);
    if states.is_empty() {
        s.push_str(&outcome);
    } else {
        // The value is rendered first, so that a borrow it holds of an argument has ended.
        let listed: Vec<String> = states
            .iter()
            .map(|(i, name)| format!("({name:?}, {})", render(&format!("a{i}"), true)))
            .collect();
        s.push_str(&format!("        let __o = {{\n{outcome}        }};\n"));
        s.push_str(&format!("        {rt}::after(__o, {AFTER:?}, &[{}])\n", listed.join(", ")));
    }
    s
}

fn signature(name: &str, rt: &str) -> String {
    format!("    pub(crate) fn {name}(args: &[{rt}::Json]) -> {rt}::Outcome {{\n")
}

/// The wrapper of `f` (harness id `id`), with `rt` the runtime's path; `dropped(k)` says which
/// instantiations did not compile, `buildable` whether a plan's arguments can be built (see
/// [`chosen`]).
pub fn wrapper(
    id: usize,
    f: &FoundFn,
    rt: &str,
    dropped: &dyn Fn(usize) -> bool,
    buildable: &dyn Fn(&CallPlan) -> bool,
) -> String {
    let all = plans(f);
    let main = format!("__abex_call_{id}");
    let mut s = signature(&main, rt);
    if all.len() <= 1 {
        if let Some(p) = all.first() {
            s.push_str(&body(f, p, rt));
        }
        s.push_str(&format!("    }} // end {main}\n"));
        return s;
    }
    match chosen(f, dropped, buildable) {
        Some((k, _)) => s.push_str(&format!("        {main}_{k}(args)\n")),
        // Every instantiation failed: the first one again, so that its error drops the wrapper.
        None => s.push_str(&body(f, all[0], rt)),
    }
    s.push_str(&format!("    }} // end {main}\n"));
    for (k, p) in all.iter().enumerate() {
        if dropped(k) {
            continue;
        }
        s.push_str(&format!("// abex-part inst {id} {k} {{\n"));
        s.push_str(&signature(&format!("{main}_{k}"), rt));
        s.push_str(&body(f, p, rt));
        s.push_str(&format!("    }}\n// abex-part inst {id} {k} }}\n"));
    }
    s
}
