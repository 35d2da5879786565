//! The Rust harness and the worker, end to end on fixture crates: building in a scratch copy,
//! calling private functions, and surviving panics, hangs and crashes without losing the other
//! results of a batch.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use abex::exec::shared::HungSplit;
use abex::exec::worker::{Hung, Worker, WorkerSpec};
use abex::exec::Evaluate;
use abex::rust::harness;
use abex::value::{Outcome, Value};

use crate::support;

fn build(dir: &std::path::Path, names: &[&str]) -> (harness::Harness, Vec<String>) {
    let ws = abex::rust::workspace::load(Some(&dir.join("Cargo.toml")), &[]).unwrap();
    let ct = &ws.crates[0];
    let fns: Vec<_> =
        names.iter().map(|n| ct.sources.fns.iter().find(|f| f.name == *n).unwrap()).collect();
    let scratch = dir.join(".abex/scratch/test");
    let req = ct.harness_request(&ws.root, fns, &scratch);
    let h = harness::build(&req).unwrap();
    (h, names.iter().map(|s| s.to_string()).collect())
}

fn worker(h: &harness::Harness, timeout_ms: u64) -> Worker {
    Worker::new(WorkerSpec {
        program: h.exe.clone(),
        args: vec![],
        env: vec![],
        cwd: h.cwd.clone(),
        call_timeout: Duration::from_millis(timeout_ms),
        memory_limit: Some(2 << 30),
    })
}

fn ints(xs: &[i128]) -> Vec<Vec<Value>> {
    xs.iter().map(|&x| vec![Value::Int(x)]).collect()
}

#[test]
fn panics_hangs_and_crashes_are_outcomes_and_the_rest_of_the_batch_survives() {
    let (_tmp, dir) = support::project("hang");
    let before = support::snapshot(&dir);
    let (h, _) = build(&dir, &["spin", "deep", "boom"]);
    let mut w = worker(&h, 300);

    let out = w.run(2, &ints(&[4, 5, 6])).unwrap();
    assert_eq!(out[0], Outcome::Ok { value: "4".into() });
    assert_eq!(out[1], Outcome::Panic { message: "boom at 5".into() });
    assert_eq!(out[2], Outcome::Ok { value: "6".into() });

    let out = w.run(0, &ints(&[1, 7, 8, 7, 9])).unwrap();
    let expected = [
        Outcome::Ok { value: "1".into() },
        Outcome::Timeout,
        Outcome::Ok { value: "8".into() },
        Outcome::Timeout,
        Outcome::Ok { value: "9".into() },
    ];
    assert_eq!(out, expected);

    let out = w.run(1, &ints(&[1, 2, 3, 4])).unwrap();
    assert_eq!(out[0], Outcome::Ok { value: "1".into() });
    assert_eq!(out[1], Outcome::Ok { value: "2".into() });
    match &out[2] {
        Outcome::Crash { detail } => {
            assert!(detail.contains("SIG") || detail.contains("overflow"), "{detail}")
        }
        other => panic!("expected a crash, got {other:?}"),
    }
    assert_eq!(out[3], Outcome::Ok { value: "4".into() });
    assert!(w.starts >= 4, "the worker restarted after each timeout and the crash: {}", w.starts);

    // Everything was built in the scratch copy; the project itself is untouched.
    assert_eq!(support::snapshot(&dir), before);
    assert!(h.exe.starts_with(dir.join(".abex")));
}

#[test]
fn a_function_that_hung_once_gets_a_shorter_time_limit_and_the_others_keep_theirs() {
    let (_tmp, dir) = support::project("slow");
    let (h, _) = build(&dir, &["nap", "doze"]);
    let hung = Hung::default();
    let mut w = worker(&h, 1500).sharing_hung(&hung);
    // Workers made before the hang (a sibling, one of another build sharing the lab's set)
    // learn of it too.
    let mut sibling = w.sibling();
    let mut other = worker(&h, 1500).sharing_hung(&hung);
    let ok = |n: u16| Outcome::Ok { value: n.to_string() };
    // 600 ms is within the limit, until `nap` hangs (on 7).
    assert_eq!(w.run(0, &ints(&[600])).unwrap(), [ok(600)]);
    assert_eq!(w.run(0, &ints(&[7])).unwrap(), [Outcome::Timeout]);
    // The next process gives `nap` twenty times its slowest call, at least 20 ms.
    assert_eq!(w.run(0, &ints(&[0, 2, 600])).unwrap(), [ok(0), ok(2), Outcome::Timeout]);
    // Another function of the same worker keeps the full limit.
    assert_eq!(w.run(1, &ints(&[600])).unwrap(), [ok(600)]);
    // The others start their processes knowing `nap` hangs: 20 ms, as they have timed no call.
    for x in [&mut sibling, &mut other] {
        assert_eq!(x.run(0, &ints(&[0, 600])).unwrap(), [ok(0), Outcome::Timeout]);
        assert_eq!(x.run(1, &ints(&[600])).unwrap(), [ok(600)]);
    }
}

#[test]
fn the_batches_of_a_function_that_hung_are_split_over_two_workers_with_the_same_outcomes() {
    let (_tmp, dir) = support::project("slow");
    let (h, _) = build(&dir, &["nap", "doze"]);
    let ok = |n: u16| Outcome::Ok { value: n.to_string() };
    let shared = Rc::new(RefCell::new(worker(&h, 1500)));
    let mut nap = HungSplit::new(shared.clone(), 0);
    // Before `nap` hangs, a batch runs on the one worker.
    assert_eq!(nap.evaluate(&ints(&[1, 2])).unwrap(), [ok(1), ok(2)]);
    assert!(nap.sibling.is_none());
    assert_eq!(nap.evaluate(&ints(&[7])).unwrap(), [Outcome::Timeout]);
    // Then in two halves side by side, each hanging call on its own worker, in their order.
    let batch = ints(&[7, 3, 4, 7, 5]);
    let want = [Outcome::Timeout, ok(3), ok(4), Outcome::Timeout, ok(5)];
    assert_eq!(nap.evaluate(&batch).unwrap(), want);
    assert!(nap.sibling.as_ref().is_some_and(|s| s.starts >= 2), "the second half's worker");
    // Another function of the same worker, which never hung, is not split.
    let mut doze = HungSplit::new(shared, 1);
    assert_eq!(doze.evaluate(&ints(&[1, 2])).unwrap(), [ok(1), ok(2)]);
    assert!(doze.sibling.is_none());
}

#[test]
fn private_functions_methods_and_borrowed_parameters_are_callable() {
    let (_tmp, dir) = support::project("simple");
    let (h, _) = build(&dir, &["classify", "private_double", "shout", "count_vowels"]);
    let mut w = worker(&h, 1000);
    assert_eq!(
        w.run(0, &ints(&[99, 100])).unwrap(),
        [Outcome::Ok { value: "\"small\"".into() }, Outcome::Ok { value: "\"large\"".into() }]
    );
    assert_eq!(w.run(1, &ints(&[21])).unwrap(), [Outcome::Ok { value: "42".into() }]);
    let s = vec![vec![Value::Str("héllo".into())]];
    assert_eq!(w.run(2, &s).unwrap(), [Outcome::Ok { value: "\"HÉLLO!\"".into() }]);
    // A wrong argument is reported, not a crash.
    let bad = w.run(3, &ints(&[1])).unwrap();
    assert!(
        matches!(&bad[0], Outcome::Error { ty, .. } if ty.contains("bad arguments")),
        "{bad:?}"
    );
}

#[test]
fn functions_the_harness_cannot_call_are_dropped_with_the_compilers_reason() {
    let (_tmp, dir) = support::project("unsupported");
    let ws = abex::rust::workspace::load(Some(&dir.join("Cargo.toml")), &[]).unwrap();
    let ct = &ws.crates[0];
    let supported: Vec<_> = ct.sources.fns.iter().filter(|f| f.plan.is_ok()).collect();
    let names: Vec<&str> = supported.iter().map(|f| f.name.as_str()).collect();
    assert!(names.contains(&"inc") && names.contains(&"aliased"), "{names:?}");
    // A method on a type with no constructor abex can drive is refused before the build, with
    // the type named; so is a function whose returned type the sources show has neither
    // `Debug` nor `Display`.
    let why = |name: &str| {
        let f = ct.sources.fns.iter().find(|f| f.name == name).unwrap();
        f.plan.as_ref().unwrap_err().clone()
    };
    assert!(why("get").contains("cannot build `Counter`"), "{}", why("get"));
    assert!(why("opaque").contains("`NoDebug` implements neither"), "{}", why("opaque"));
    // Through an alias, the build finds out.
    let (h, names) = build(&dir, &names);
    let reason = |n: &str| h.dropped_fn(names.iter().position(|x| x == n).unwrap()).cloned();
    assert!(reason("aliased").is_some_and(|r| r.contains("Debug")), "{:?}", h.dropped);
    assert_eq!(reason("inc"), None);
    let mut w = worker(&h, 1000);
    let id = names.iter().position(|x| x == "inc").unwrap();
    assert_eq!(w.run(id, &ints(&[255])).unwrap(), [Outcome::Ok { value: "0".into() }]);
}
