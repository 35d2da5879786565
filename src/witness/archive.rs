//! The explored archive's inputs as witnesses: they are tried first on every survivor (the
//! strongest boundaries first), and the survivor's outcomes on them say which boundaries it
//! moves (pinning).

use std::time::Instant;

use crate::archive::Pair;
use crate::exec::probe::Answers;
use crate::exec::{Evaluate, ExecError, ProbeEvaluate};
use crate::report::Witness;
use crate::value::{Args, Outcome};

/// Whether the original's outcome `original` and a mutant's `mutant` prove them different. A
/// timeout on either side never does: whether a call finishes in time depends on the machine
/// and its load, and a witness must hold on every run. Nor do two errors of one type whose
/// messages differ only in the operator they name (Python's `TypeError: '>' not supported
/// between instances of 'str' and 'int'` against `'>='`, on an argument of the wrong type):
/// that is the mutation showing through, not a behaviour a test would pin. Nor do two crashes:
/// a crash takes the test process down whatever its signal or last words, and those words are
/// whatever stderr held when the worker died (slab 0.4.9: `Slab::with_capacity(27644824218750)`
/// aborts on the allocation on both sides, once with the panic hook's note and once without).
/// Nor does a crash against a panic: both fail the call, and which of the two it is can depend
/// on the process's memory, not on the code: near the memory limit the unwinder cannot
/// allocate its panic and aborts (`fatal runtime error: failed to initiate panic`).
/// smallbitvec 2.5.3: `SmallBitVec::with_capacity(33778204353)` then `remove(0)` panicked
/// (`index out of range`) on the original and aborted on a mutant whose line the call never
/// reached, every time, the mutant's worker holding a few more bytes.
pub fn tells_apart(original: &Outcome, mutant: &Outcome) -> bool {
    let failure = |o: &Outcome| matches!(o, Outcome::Crash { .. } | Outcome::Panic { .. });
    let crash = |o: &Outcome| matches!(o, Outcome::Crash { .. });
    let crashes = (crash(original) || crash(mutant)) && failure(original) && failure(mutant);
    original != mutant
        && *original != Outcome::Timeout
        && *mutant != Outcome::Timeout
        && !crashes
        && !only_the_operator_differs(original, mutant)
}

/// Whether `a` and `b` are errors of one type whose messages are the same but for the
/// operators they name (`'>'`, `'>='`, `for +:`, `for -:`).
fn only_the_operator_differs(a: &Outcome, b: &Outcome) -> bool {
    static OPERATOR: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        let ops = r"(?:<=|>=|==|!=|<<|>>|//|\*\*|[<>+\-*/%&|^@~])";
        regex::Regex::new(&format!(r"'{ops}'|for {ops}:|operand type\(s\) for {ops}"))
            .expect("a valid pattern")
    });
    match (a, b) {
        (Outcome::Error { ty: t, message: m }, Outcome::Error { ty: u, message: n }) if t == u => {
            OPERATOR.replace_all(m, "<op>") == OPERATOR.replace_all(n, "<op>")
        }
        _ => false,
    }
}

/// Whether an outcome is no panic: a witness where neither side panics gives a suggested test
/// that asserts a value or an error.
pub(super) fn calm(o: &Outcome) -> bool {
    !matches!(o, Outcome::Panic { .. })
}

/// The distinct inputs of the archive's `elites` with their original outcomes, strongest
/// boundaries first: the inputs tried first as witnesses. Inputs on which the original timed
/// out are left out: they cannot be witnesses (see [`tells_apart`]) and are the slowest to run.
pub fn known_inputs(elites: &[Pair]) -> Vec<(Args, Outcome)> {
    let mut seen = std::collections::HashSet::new();
    let mut known = Vec::new();
    for p in elites {
        for k in 0..2 {
            if p.outcomes[k] != Outcome::Timeout && seen.insert(format!("{:?}", p.inputs[k])) {
                known.push((p.inputs[k].clone(), p.outcomes[k].clone()));
            }
        }
    }
    known
}

/// Pinning: the indices of the `elites` with a positive PD that a survivor moves, i.e. whose
/// inputs give another outcome on it (`outs`, its outcomes on `known`) than on the original.
pub fn moved_boundaries(
    elites: &[Pair],
    known: &[(Args, Outcome)],
    outs: &[Outcome],
) -> Vec<usize> {
    elites
        .iter()
        .enumerate()
        .filter(|(_, p)| p.pd > 0.0)
        .filter(|(_, p)| {
            (0..2).any(|k| {
                known
                    .iter()
                    .position(|(a, _)| *a == p.inputs[k])
                    .is_some_and(|i| tells_apart(&known[i].1, &outs[i]))
            })
        })
        .map(|(ci, _)| ci)
        .collect()
}

/// Inputs evaluated between two looks at the clock.
pub(super) const CHUNK: usize = 32;

/// A batch of the archive's inputs quicker than this is followed by one twice as large, up to
/// [`MAX_CHUNK`] inputs.
const QUICK_BATCH: std::time::Duration = std::time::Duration::from_millis(20);

/// The most inputs of the archive run between two looks at the clock.
const MAX_CHUNK: usize = 512;

pub(super) fn past(until: Option<Instant>) -> bool {
    until.is_some_and(|u| Instant::now() >= u)
}

/// Runs `inputs` (with their known original outcomes) on the mutant, until `until` at the
/// latest. Returns the first input whose outcome differs, and the mutant's outcome on every
/// input (for pinning; `timeout` for those left unrun when time ran out).
pub fn from_inputs(
    known: &[(Args, Outcome)],
    mutant: &mut dyn Evaluate,
    until: Option<Instant>,
) -> Result<(Option<Witness>, Vec<Outcome>), ExecError> {
    let mut unprobed = crate::exec::probe::Unprobed(mutant);
    let (w, outs) = probed(known, &mut unprobed, until)?;
    Ok((w, outs.into_iter().map(|(o, _)| o).collect()))
}

/// [`from_inputs`] on a mutant that reports probes: the mutant's outcome and probe on every
/// input (no probe for those left unrun).
pub(super) fn probed(
    known: &[(Args, Outcome)],
    mutant: &mut dyn ProbeEvaluate,
    until: Option<Instant>,
) -> Result<(Option<Witness>, Answers), ExecError> {
    // Where the original ran out of time no outcome of the mutant tells them apart, so the
    // mutant is not run there: a function that loops forever on some inputs would cost a
    // timed-out call and a restarted worker on each (bytesize's `ideal_unit_no_std`, 2 s of
    // one survivor's search). Those inputs count as timed out.
    let run: Vec<usize> = (0..known.len()).filter(|&k| known[k].1 != Outcome::Timeout).collect();
    let mut outs = vec![(Outcome::Timeout, None); known.len()];
    // Every input runs (pinning needs them all): batches grow while they are quick, so a small
    // function's few hundred inputs cost a few round trips to the worker, not one per CHUNK.
    let mut size = CHUNK;
    let mut rest = &run[..];
    while !rest.is_empty() && !past(until) {
        let (chunk, after) = rest.split_at(size.min(rest.len()));
        rest = after;
        let batch: Vec<Args> = chunk.iter().map(|&k| known[k].0.clone()).collect();
        let started = Instant::now();
        for (&k, out) in chunk.iter().zip(mutant.evaluate_probed(&batch)?) {
            outs[k] = out;
        }
        if started.elapsed() < QUICK_BATCH {
            size = (size * 2).min(MAX_CHUNK);
        }
    }
    // Where both sides return or raise an error of their own, the suggested test asserts a
    // value; a panic (an arithmetic overflow far from the boundary) makes a weaker test.
    let differ = || known.iter().zip(&outs).filter(|((_, o), (m, _))| tells_apart(o, m));
    let witness = differ()
        .find(|((_, o), (m, _))| calm(o) && calm(m))
        .or_else(|| differ().next())
        .map(|((a, o), m)| Witness {
            input: a.clone(),
            original: o.clone(),
            mutant: m.0.clone(),
            found_by: "archive".into(),
            shrunk_from: None,
        });
    Ok((witness, outs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mutant_is_not_run_where_the_original_ran_out_of_time() {
        let int = |x: i128| vec![crate::value::Value::Int(x)];
        let ok = |v: &str| Outcome::Ok { value: v.into() };
        let known = vec![(int(1), ok("1")), (int(0), Outcome::Timeout), (int(2), ok("2"))];
        let mut called = Vec::new();
        let mut mutant = crate::exec::probe::ProbeFnEvaluator(|a: &Args| {
            called.push(a[0].as_int().unwrap());
            (ok("9"), None)
        });
        let (witness, outs) = probed(&known, &mut mutant, None).unwrap();
        assert_eq!(called, [1, 2], "the input the original timed out on is left out");
        let outs: Vec<Outcome> = outs.into_iter().map(|(o, _)| o).collect();
        assert_eq!(outs, [ok("9"), Outcome::Timeout, ok("9")]);
        assert_eq!(witness.unwrap().input, int(1));
    }

    #[test]
    fn quick_batches_of_the_archive_grow_so_a_large_archive_costs_few_round_trips() {
        struct Batches(Vec<usize>);
        impl ProbeEvaluate for Batches {
            fn evaluate_probed(&mut self, batch: &[Args]) -> Result<Answers, ExecError> {
                self.0.push(batch.len());
                Ok(batch.iter().map(|_| (Outcome::Ok { value: "0".into() }, None)).collect())
            }
        }
        let known: Vec<(Args, Outcome)> = (0..1000)
            .map(|x| (vec![crate::value::Value::Int(x)], Outcome::Ok { value: "0".into() }))
            .collect();
        let mut mutant = Batches(Vec::new());
        let (witness, outs) = probed(&known, &mut mutant, None).unwrap();
        assert!(witness.is_none());
        assert_eq!(outs.len(), 1000);
        assert_eq!(mutant.0, [32, 64, 128, 256, 512, 8], "every input, in six batches");
    }

    #[test]
    fn two_crashes_or_a_crash_and_a_panic_tell_nothing_apart() {
        let crash = |d: &str| Outcome::Crash { detail: d.into() };
        let noted = crash("aborted (SIGABRT): note: run with `RUST_BACKTRACE=1`");
        let bare = crash("aborted (SIGABRT)");
        assert!(!tells_apart(&noted, &bare));
        assert!(!tells_apart(&bare, &crash("segmentation fault (SIGSEGV)")));
        // Nor a crash against a panic (smallbitvec 2.5.3: the original panicked, the mutant's
        // worker could not allocate the panic and aborted, on a line the mutant never reached).
        let panic = Outcome::Panic { message: "index out of range".into() };
        assert!(!tells_apart(&panic, &noted));
        assert!(!tells_apart(&bare, &panic));
        // A crash against a value or an error still does: a test can pin those.
        assert!(tells_apart(&Outcome::Ok { value: "1".into() }, &bare));
        let error = Outcome::Error { ty: "Err".into(), message: "Empty".into() };
        assert!(tells_apart(&bare, &error));
        // As do two panics with other messages.
        assert!(tells_apart(&panic, &Outcome::Panic { message: "overflow".into() }));
    }

    #[test]
    fn errors_that_differ_only_in_the_operator_they_name_tell_nothing_apart() {
        let e = |m: &str| Outcome::Error { ty: "TypeError".into(), message: m.into() };
        let gt = e("'>' not supported between instances of 'str' and 'int'");
        let ge = e("'>=' not supported between instances of 'str' and 'int'");
        assert!(!tells_apart(&gt, &ge));
        let plus = e("unsupported operand type(s) for +: 'int' and 'str'");
        let minus = e("unsupported operand type(s) for -: 'int' and 'str'");
        assert!(!tells_apart(&plus, &minus));
        // Another type, another message or a value still does.
        assert!(tells_apart(&gt, &e("'>' not supported between instances of 'str' and 'float'")));
        assert!(tells_apart(&gt, &Outcome::Ok { value: "10".into() }));
        let other =
            Outcome::Error { ty: "ValueError".into(), message: "'>=' not supported".into() };
        assert!(tells_apart(&ge, &other));
    }
    use crate::exec::FnEvaluator;
    use crate::value::Value;
    use std::time::Duration;

    pub(crate) fn f(boundary: i128) -> impl FnMut(&Args) -> Outcome {
        move |a: &Args| Outcome::Ok { value: (a[0].as_int().unwrap_or(0) >= boundary).to_string() }
    }

    #[test]
    fn the_first_archive_input_that_differs_is_the_witness() {
        let known: Vec<(Args, Outcome)> = [5, 10, 11]
            .iter()
            .map(|&x| (vec![Value::Int(x)], Outcome::Ok { value: (x >= 10).to_string() }))
            .collect();
        let mut mutant = FnEvaluator(f(11));
        let (w, outs) = from_inputs(&known, &mut mutant, None).unwrap();
        let w = w.unwrap();
        assert_eq!(w.input, vec![Value::Int(10)]);
        assert_eq!(w.original, Outcome::Ok { value: "true".into() });
        assert_eq!(outs.len(), 3);
        let mut same = FnEvaluator(f(10));
        assert!(from_inputs(&known, &mut same, None).unwrap().0.is_none());
    }

    #[test]
    fn a_witness_where_neither_side_panics_comes_before_a_panic() {
        let known: Vec<(Args, Outcome)> = vec![
            (
                vec![Value::Int(1 << 60)],
                Outcome::Panic { message: "attempt to add with overflow".into() },
            ),
            (vec![Value::Int(10)], Outcome::Ok { value: "true".into() }),
        ];
        let mut mutant = FnEvaluator(f(11));
        let w = from_inputs(&known, &mut mutant, None).unwrap().0.unwrap();
        assert_eq!(w.input, vec![Value::Int(10)]);
        let mut only = FnEvaluator(f(10));
        let w = from_inputs(&known[..1], &mut only, None).unwrap().0.unwrap();
        assert_eq!(w.input, vec![Value::Int(1 << 60)], "a panic is still a witness");
    }

    #[test]
    fn a_timeout_on_the_mutants_side_is_never_an_archive_witness() {
        let known: Vec<(Args, Outcome)> =
            vec![(vec![Value::Int(5)], Outcome::Ok { value: "false".into() })];
        let mut mutant = FnEvaluator(|_: &Args| Outcome::Timeout);
        assert!(from_inputs(&known, &mut mutant, None).unwrap().0.is_none());
    }

    #[test]
    fn archive_inputs_stop_at_their_deadline() {
        let known: Vec<(Args, Outcome)> =
            (0..1000).map(|x| (vec![Value::Int(x)], f(10)(&vec![Value::Int(x)]))).collect();
        let mut slow_mutant = FnEvaluator(|a: &Args| {
            std::thread::sleep(Duration::from_millis(1));
            f(999)(a)
        });
        let until = Some(Instant::now() + Duration::from_millis(50));
        let (w, outs) = from_inputs(&known, &mut slow_mutant, until).unwrap();
        assert_eq!(outs.len(), 1000);
        assert_eq!(outs[999], Outcome::Timeout, "inputs left unrun count as timeouts");
        assert_eq!(w.unwrap().input, vec![Value::Int(10)], "found among the inputs it ran");
    }
}
