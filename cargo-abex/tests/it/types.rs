//! `cargo abex` on functions that take values of real types (issue 11): the fixture `types` has
//! structs and an enum (`eval::matches`, semver-like), a `FromStr` type with a `Display` impl,
//! an enum with tuple and struct variants, a generic function, methods on a type without
//! `Default`, and a `Duration` parameter. Each is explored through built arguments, its gaps are
//! proven with witnesses, and the suggested tests build their arguments as a person would.

use std::process::Command;

use serde_json::Value;

use crate::support;

fn find<'a>(r: &'a Value, qualified: &str) -> &'a Value {
    let all = r["targets"].as_array().unwrap();
    all.iter().find(|t| t["qualified_name"] == qualified).unwrap_or_else(|| panic!("{qualified}"))
}

/// The displayed inputs of a target's archive cells.
fn inputs(t: &Value) -> Vec<String> {
    let cells = t["exploration"]["cells"].as_array().unwrap();
    cells
        .iter()
        .flat_map(|c| c["strings"]["inputs"].as_array().unwrap().iter())
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

/// The suggested tests of a target, and its survivors that have a witness.
fn proven(t: &Value) -> (Vec<String>, Vec<&Value>) {
    let m = &t["mutation"];
    let tests = m["suggested_tests"].as_array().unwrap();
    let codes = tests.iter().map(|s| s["code"].as_str().unwrap().to_string()).collect();
    let witnessed =
        m["mutants"].as_array().unwrap().iter().filter(|x| !x["witness"].is_null()).collect();
    (codes, witnessed)
}

/// Runs `cargo abex --offline --all --seed 1` on a copy of `fixture`, gives its report (and
/// its text) to `check`, then checks the project was not changed.
fn analysed(fixture: &str, check: impl FnOnce(&Value, &str)) {
    let (_tmp, dir) = support::project(fixture);
    let before = support::snapshot(&dir);
    let bin = env!("CARGO_BIN_EXE_cargo-abex");
    let (r, text) = support::abex_report(bin, &dir, &["--offline", "--all", "--seed", "1"]);
    check(&r, &text);
    assert_eq!(support::snapshot(&dir), before, "the project was changed");
}

#[test]
fn functions_taking_structs_enums_generics_receivers_and_durations_are_explored_and_proven() {
    let (_tmp, dir) = support::project("types");
    let before = support::snapshot(&dir);
    let o = Command::new(env!("CARGO_BIN_EXE_cargo-abex"))
        .args(["abex", "--offline", "--all", "--pairs", "500", "--test-timeout", "5s"])
        .current_dir(&dir)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(dir.join(".abex/out/report.json")).unwrap();
    let r: Value = serde_json::from_str(&text).unwrap();

    let every = [
        "Version::new",
        "Version::parse",
        "Version::from_str",
        "Version::fmt",
        "eval::matches",
        "is_big",
        "count_above",
        "Budget::new",
        "Budget::spend",
        "Budget::left",
        "time::timeout_label",
        "Budget::raise",
        "forgive_small",
    ];
    for name in every {
        let t = find(&r, name);
        assert_eq!(t["drive"]["status"], "supported", "{name}: {:#}", t["drive"]);
        assert!(t["exploration"]["bc_count"].as_u64().unwrap() >= 1, "{name}: no boundary");
    }
    // A method's receiver is its first argument, built with the type's constructor (`Budget`
    // has no `Default` and private fields).
    let spend = find(&r, "Budget::spend");
    assert_eq!(spend["params"][0]["name"], "self");
    assert!(inputs(spend).iter().any(|i| i.starts_with("[Budget::new(")), "{:?}", inputs(spend));
    // `Display::fmt` is driven through `format!`; `FromStr::from_str` through the trait.
    let shown = find(&r, "Version::fmt")["exploration"].to_string();
    assert!(shown.contains(r#"\"1.2.3"#) || shown.contains(".0.0"), "{shown}");
    // The generic function is instantiated with a concrete type.
    assert_eq!(find(&r, "count_above")["params"][1]["ty"]["kind"], "int");
    // An enum with tuple and struct variants.
    let shapes = inputs(find(&r, "is_big"));
    assert!(shapes.iter().any(|i| i.contains("Shape::Square(")), "{shapes:?}");
    assert!(shapes.iter().any(|i| i.contains("Shape::Rect(")), "{shapes:?}");

    // The semver-like case: gaps of a function taking two user structs, proven, and a test
    // that builds its arguments the way the crate's own tests do.
    let (tests, witnessed) = proven(find(&r, "eval::matches"));
    assert!(!witnessed.is_empty());
    assert!(
        tests.iter().any(|c| c.contains("&Comparator { op: Op::") && c.contains("Version")),
        "{tests:#?}"
    );
    // `Duration`: the untested minute is a gap, proven on a duration written as a recipe.
    let label = find(&r, "time::timeout_label");
    let (tests, witnessed) = proven(label);
    let minute = witnessed
        .iter()
        .find(|m| m["description"].as_str().unwrap().contains("replace `>=` with `>`"))
        .expect("the minute's `>=` survives with a witness");
    let input = &minute["witness"]["input"][0];
    assert!(input["$ctor"].as_str().unwrap().starts_with("Duration::"), "{input}");
    assert!(tests.iter().any(|c| c.contains("std::time::Duration::")), "{tests:#?}");

    // A call that returns nothing shows what it did to its `&mut` arguments and receiver: the
    // untested thresholds are gaps, and the suggested tests assert the state after the call.
    for (name, state) in [("Budget::raise", "receiver"), ("forgive_small", "arg0")] {
        let (tests, witnessed) = proven(find(&r, name));
        let boundary = witnessed
            .iter()
            .find(|m| m["description"].as_str().unwrap().contains("replace `<=` with `<`"))
            .unwrap_or_else(|| panic!("{name}: the `<=` survives with a witness"));
        let original = boundary["witness"]["original"].to_string();
        assert!(original.contains(&format!("{state} = ")), "{name}: {original}");
        let asserts_state = format!("format!(\"{{:?}}\", {state})");
        assert!(tests.iter().any(|c| c.contains(&asserts_state)), "{name}: {tests:#?}");
    }

    assert_eq!(support::snapshot(&dir), before, "the user's tree changed");
}

/// A `#![no_std]` crate with `alloc` (heck 0.5's shape): its private helper takes a
/// `fmt::Formatter`, so it is driven through a `Display` impl of a wrapper generic over
/// `T: AsRef<str>`. The wrapper is instantiated with `String`, written so that a crate without
/// the std prelude finds it, since the `&str` instantiation compiles but cannot be built (heck's
/// three functions were "not explored"); the helper's `>` -> `>=` gap is proven on a word of
/// three letters.
#[test]
fn a_no_std_helper_behind_a_generic_display_wrapper_is_driven_and_proven() {
    analysed("nostdalloc", |r, text| {
        let t = find(r, "shout");
        assert_eq!(t["drive"]["status"], "via", "{:#}: {text}", t["drive"]);
        assert!(t["exploration"]["pairs_evaluated"].as_u64().unwrap() > 0, "{text}");
        assert!(inputs(t).iter().any(|i| i.contains("AsShout<String>(")), "{:?}", inputs(t));
        let (_, witnessed) = proven(t);
        let gap = witnessed
            .iter()
            .find(|m| m["replacement"] == "s.len() >= 3")
            .unwrap_or_else(|| panic!("`>` -> `>=` is not proven: {text}"));
        let input = gap["witness"]["input"][0].to_string();
        assert!(input.contains("AsShout<String>"), "{input}");
    });
}

/// A formatter generic over its options, humansize 2.1.3's shape (`O: AsRef<Options>`, a
/// `usize` field read as a precision): the harness instantiates `O` with the crate's
/// `Options` (its `impl AsRef<Options>`; the short list's `i32` did not compile, and the
/// `Display` impl went unexplored). The untested `>= 1000` boundary is proven with a witness
/// where neither side panics (a huge precision panics in `core::fmt` on one side: an artefact
/// of the input that shrinking lets go), and its test writes the `usize` field as `0usize`
/// (it wrote `0u64`, which does not compile, so the gap had no test; textwrap 0.16.1's
/// `Word::break_apart` gap too).
#[test]
fn a_display_generic_over_its_options_is_explored_proven_and_tested() {
    analysed("options", |r, text| {
        let t = find(r, "Size<O>::fmt");
        assert!(t["exploration"]["pairs_evaluated"].as_u64().unwrap() > 0, "{text}");
        assert!(inputs(t).iter().any(|i| i.contains("Size<crate::Options>(")), "{:?}", inputs(t));
        let (tests, witnessed) = proven(t);
        let gap = witnessed
            .iter()
            .find(|m| m["replacement"] == "self.bytes > 1000")
            .unwrap_or_else(|| panic!("`>=` -> `>` is not proven: {text}"));
        let w = &gap["witness"];
        assert_eq!(
            (w["original"]["kind"].as_str(), w["mutant"]["kind"].as_str()),
            (Some("ok"), Some("ok")),
            "{w}"
        );
        let id = gap["id"].as_str().unwrap();
        let kills = t["mutation"]["suggested_tests"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["kills"].as_array().unwrap().iter().any(|k| k == id));
        let code =
            kills.unwrap_or_else(|| panic!("no test kills {id}: {tests:?}"))["code"].as_str();
        assert!(code.unwrap().contains("places: 0usize"), "{code:?}");
    });
}

/// A trait's default method (num-integer 0.1.46's `Integer::next_multiple_of` shape) is a
/// function of its own: abex called it nothing and said nothing of it (a pull request that
/// changed one got no word). Now it is explored through a type of the crate that implements
/// the trait without overriding it (`File`, not `Folder`), its untested `block == 0` branch is
/// proven, and the test calls it as `<File as Blocks>::rounded`; a default method no type of
/// the crate implements says why it is not explored.
#[test]
fn a_traits_default_method_is_called_through_a_type_that_implements_it() {
    analysed("traitdefault", |r, text| {
        let t = find(r, "Blocks::rounded");
        assert!(t["exploration"]["pairs_evaluated"].as_u64().unwrap() > 0, "{text}");
        assert!(inputs(t).iter().all(|i| i.starts_with("[File(")), "{:?}", inputs(t).first());
        let (tests, witnessed) = proven(t);
        let gap = witnessed
            .iter()
            .find(|m| m["line"] == 13 && m["original"] == "0")
            .unwrap_or_else(|| panic!("`block == 0` is not proven: {text}"));
        assert_eq!(gap["witness"]["input"][1], 0, "{}", gap["witness"]);
        assert!(
            tests.iter().any(|c| c.contains("<File as Blocks>::rounded(&receiver, 0)")),
            "{tests:?}"
        );
        let named = find(r, "Named::greeting");
        let why = named["drive"]["reason"].as_str().unwrap_or_default();
        assert!(why.contains("default method of trait `Named`"), "{:#}", named["drive"]);
    });
}

/// A `#![no_std]` crate whose API takes `core::net` addresses: the harness builds (it brings
/// its own `extern crate std;`), the functions are explored with addresses built as recipes
/// (one returning a `Result`, whose error's type name the wrapper renders without the std
/// prelude: ipnet 2.11's 15 such functions were uncallable), and the port's boundary gap is
/// proven with a witness written as a person writes it.
#[test]
fn a_no_std_crate_taking_net_addresses_is_explored_and_proven() {
    analysed("nostd", |r, text| {
        for f in ["is_private_ten", "privileged", "netmask"] {
            let t = find(r, f);
            assert_eq!(t["drive"]["status"], "supported", "{f}: {text}");
            assert!(t["exploration"]["pairs_evaluated"].as_u64().unwrap() > 0, "{f}: {text}");
        }
        let (_, witnessed) = proven(find(r, "privileged"));
        let port = witnessed
            .iter()
            .find(|m| m["replacement"] == "addr.port() <= 1024")
            .unwrap_or_else(|| panic!("`<` -> `<=` is not proven: {text}"));
        let input = port["witness"]["input"][0].to_string();
        assert!(input.contains("SocketAddr::V4") && input.contains("1024"), "{input}");
    });
}

/// Const generic parameters (wildmatch 2.4's `impl<const MULTI_WILDCARD: char, const
/// SINGLE_WILDCARD: char> WildMatchPattern<…>`: every function of it was "generic type without
/// its type arguments", nothing explored, no survivor proven). An impl's parameters take the
/// values of the crate's own alias (`Glob = Pattern<'*', '?'>`), a capacity and an array length
/// a small number; the values are constants of the witness search (`collapsed` compares with
/// `ANY` only); the gaps are proven and the suggested tests name the values
/// (`Stack::<4>::from_slice`, `total::<4>`), which they need to compile. A type named as a std
/// one (`fixed::String<N>`) is the crate's.
#[test]
fn functions_of_const_generic_impls_and_arrays_are_explored_proven_and_tested() {
    analysed("constgenerics", |r, text| {
        // `fixed::String<4>` is the crate's, not std's `String` (heapless 0.8's `String<N>`
        // methods were "mismatched types": the harness declared their receiver a std string).
        let fs = [
            "Pattern<ANY,ONE>::matches",
            "Stack<CAP>::from_slice",
            "total",
            "fixed::String<N>::push",
        ];
        for f in fs {
            let t = find(r, f);
            assert_eq!(t["drive"]["status"], "supported", "{f}: {text}");
            assert!(t["exploration"]["pairs_evaluated"].as_u64().unwrap() > 0, "{f}: {text}");
        }
        let matches = find(r, "Pattern<ANY,ONE>::matches");
        assert!(
            inputs(matches).iter().all(|i| i.starts_with("[Pattern<'*', '?'>::new(")),
            "{:?}",
            inputs(matches).first()
        );
        let (tests, witnessed) = proven(matches);
        let one = |m: &&&Value| m["original"].as_str().is_some_and(|o| o.contains("ONE"));
        assert!(witnessed.iter().any(|m| one(&m)), "`p == ONE` unproven: {text}");
        assert!(tests.iter().any(|c| c.contains("Pattern::<'*', '?'>::new(")), "{tests:?}");
        // `collapsed`'s source names `ANY`, never `'*'`: the instantiation's values are the
        // search's constants, or no input starts with two of them.
        let (_, witnessed) = proven(find(r, "Pattern<ANY,ONE>::collapsed"));
        assert!(witnessed.len() >= 4, "{text}");
        assert!(witnessed.iter().all(|m| m["witness"]["input"][0] == "**"), "{text}");
        let (_, witnessed) = proven(find(r, "Stack<CAP>::from_slice"));
        let full = witnessed
            .iter()
            .find(|m| m["replacement"] == "items.len() < CAP")
            .unwrap_or_else(|| panic!("`<=` -> `<` is not proven: {text}"));
        assert_eq!(full["witness"]["input"][0].as_array().unwrap().len(), 4, "{}", full);
        // Its test is `room`'s, whose receiver `Stack::<4>::from_slice(&[0; 4])` kills it too.
        assert!(full["suggested_test"].is_string(), "{}", full);
        // `room` of a full stack: its receiver is built by `from_slice`, seeded by the test's
        // `assert_eq!(Stack::<3>::from_slice(&[1]).unwrap().room(), 2)` (inside a macro, which
        // was never read: every receiver was `Stack::default()`, empty, and nothing explored).
        let (tests, witnessed) = proven(find(r, "Stack<CAP>::room"));
        assert!(witnessed.iter().any(|m| m["replacement"] == "1"), "{text}");
        assert!(tests.iter().any(|c| c.contains("Stack::<4>::from_slice(")), "{tests:?}");
        let (tests, witnessed) = proven(find(r, "total"));
        assert!(witnessed.iter().any(|m| m["replacement"] == "s == N as u32"), "{text}");
        assert!(tests.iter().any(|c| c.contains("total::<4>([0u8, 0u8, 0u8, 0u8])")), "{tests:?}");
    });
}
