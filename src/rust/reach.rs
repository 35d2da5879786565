//! Which tests a mutant runs: the baseline runs the test binaries with `ABEX_REACH` set, and the
//! switched crate records which test (libtest names each test's thread after it) reached the
//! site of each mutant (`switch.rs`, `__abex_mutants::reached`). A test that never reaches a
//! function on the original code runs the same code on each of its mutants, so it cannot kill
//! one: a mutant runs only the tests that reached its function (any of the function's mutant
//! sites), the test that killed the last mutant first, as nextest's filters or mutmut's
//! per-function test selection do. A site reached outside every test the binary lists (a thread
//! of the test's own, a child process) makes the binary run whole for that function.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Mutex;

/// What the baseline's trace says of one test binary.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BinaryTrace {
    /// The binary's tests (`--list`); `None` when it could not list them.
    pub tests: Option<BTreeSet<String>>,
    /// Mutant → the threads that reached its site (test names, or other threads' names).
    pub reached: BTreeMap<u32, BTreeSet<String>>,
}

impl BinaryTrace {
    /// Reads the trace file `path` (`id<TAB>thread name` lines) of a binary whose tests are
    /// `tests`; a missing file is a binary that reached no site.
    pub fn read(path: &Path, tests: Option<BTreeSet<String>>) -> BinaryTrace {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let mut reached: BTreeMap<u32, BTreeSet<String>> = BTreeMap::new();
        for line in text.lines() {
            let Some((id, thread)) = line.split_once('\t') else { continue };
            if let Ok(id) = id.parse() {
                reached.entry(id).or_default().insert(thread.to_string());
            }
        }
        BinaryTrace { tests, reached }
    }
}

/// What one binary runs for a mutant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Run {
    /// Nothing: none of its tests reached the mutant's function.
    Nothing,
    /// Every test.
    All,
    /// These tests (exact names).
    Only(Vec<String>),
}

/// The tests of each mutant, per binary, and the tests that killed mutants so far.
#[derive(Debug, Default)]
pub struct Selection {
    /// Mutant → what each binary (in the suite's order) runs; a mutant not here runs every test.
    plans: BTreeMap<u32, Vec<Run>>,
    /// (binary, test) that killed mutants, the latest first.
    killers: Mutex<Vec<(usize, String)>>,
}

/// At most this many killers are remembered.
const KILLERS: usize = 16;

impl Selection {
    /// The selection for the mutants of `functions` (each a group of mutant numbers whose site
    /// lies in one function) from the baseline's `traces`, one per binary.
    pub fn new(traces: &[BinaryTrace], functions: &[Vec<u32>]) -> Selection {
        let mut plans = BTreeMap::new();
        for group in functions {
            let runs: Vec<Run> = traces.iter().map(|t| run_of(t, group)).collect();
            for &n in group {
                plans.insert(n, runs.clone());
            }
        }
        Selection { plans, killers: Mutex::new(Vec::new()) }
    }

    /// What each binary runs for mutant `n`, or `None` when it runs every test.
    pub fn of(&self, n: u32) -> Option<&[Run]> {
        self.plans.get(&n).map(Vec::as_slice)
    }

    /// The latest killer that mutant `n`'s plan `runs` includes.
    pub fn first_killer(&self, runs: &[Run]) -> Option<(usize, String)> {
        let killers = self.killers.lock().unwrap_or_else(|e| e.into_inner());
        killers
            .iter()
            .find(|(b, test)| match runs.get(*b) {
                Some(Run::All) => true,
                Some(Run::Only(tests)) => tests.contains(test),
                _ => false,
            })
            .cloned()
    }

    /// Notes that `test` of binary `b` killed a mutant.
    pub fn killed(&self, b: usize, test: &str) {
        let mut killers = self.killers.lock().unwrap_or_else(|e| e.into_inner());
        killers.retain(|(x, t)| (*x, t.as_str()) != (b, test));
        killers.insert(0, (b, test.to_string()));
        killers.truncate(KILLERS);
    }
}

/// What binary `trace` runs for the mutants `group` of one function.
fn run_of(trace: &BinaryTrace, group: &[u32]) -> Run {
    let threads: BTreeSet<&String> =
        group.iter().filter_map(|n| trace.reached.get(n)).flatten().collect();
    if threads.is_empty() {
        return Run::Nothing;
    }
    let Some(tests) = &trace.tests else { return Run::All };
    // A site reached outside the listed tests: the binary runs whole.
    if threads.iter().any(|t| !tests.contains(*t)) {
        return Run::All;
    }
    // Naming most of the tests saves little and lengthens the command line.
    if threads.len() * 2 > tests.len() || threads.len() > 500 {
        return Run::All;
    }
    Run::Only(threads.into_iter().cloned().collect())
}

/// The tests libtest's `--list` output names (`path: test` lines).
pub fn listed(out: &str) -> BTreeSet<String> {
    out.lines().filter_map(|l| l.strip_suffix(": test")).map(str::to_string).collect()
}

/// Whether `line` is the last line of libtest's `--list` output (`2 tests, 0 benchmarks`): a
/// binary that does not print it is not libtest, and its names are not known.
pub fn is_list_end(line: &str) -> bool {
    let words: Vec<&str> = line.split_whitespace().collect();
    matches!(
        words.as_slice(),
        [n, "test," | "tests,", m, "benchmark" | "benchmarks"]
            if n.parse::<usize>().is_ok() && m.parse::<usize>().is_ok()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trace(tests: &[&str], reached: &[(u32, &str)]) -> BinaryTrace {
        let mut t = BinaryTrace {
            tests: Some(tests.iter().map(|s| s.to_string()).collect()),
            reached: BTreeMap::new(),
        };
        for (n, thread) in reached {
            t.reached.entry(*n).or_default().insert(thread.to_string());
        }
        t
    }

    #[test]
    fn a_mutant_runs_the_tests_that_reached_any_site_of_its_function() {
        let tests = ["a", "b", "c", "d", "e"];
        let bin = trace(&tests, &[(1, "a"), (2, "b"), (3, "c")]);
        // Mutants 1 and 2 share a function; 3 is alone in another; 4 was reached by nothing.
        let s = Selection::new(&[bin], &[vec![1, 2], vec![3], vec![4]]);
        assert_eq!(s.of(1), Some(&[Run::Only(vec!["a".into(), "b".into()])][..]));
        assert_eq!(s.of(2), s.of(1));
        assert_eq!(s.of(3), Some(&[Run::Only(vec!["c".into()])][..]));
        assert_eq!(s.of(4), Some(&[Run::Nothing][..]));
        // A mutant the selection does not know runs every test.
        assert_eq!(s.of(5), None);
    }

    #[test]
    fn a_site_reached_outside_the_listed_tests_runs_the_whole_binary() {
        let tests = ["a", "b", "c", "d", "e"];
        let own_thread = trace(&tests, &[(1, "a"), (1, "worker")]);
        let unlisted = BinaryTrace { tests: None, ..trace(&[], &[(1, "a")]) };
        let most = trace(&tests, &[(1, "a"), (1, "b"), (1, "c")]);
        let s = Selection::new(&[own_thread, unlisted, most], &[vec![1]]);
        assert_eq!(s.of(1), Some(&[Run::All, Run::All, Run::All][..]));
    }

    #[test]
    fn the_latest_killer_in_a_mutants_plan_runs_first() {
        let s = Selection::default();
        let runs = [Run::Only(vec!["x".into()]), Run::All];
        assert_eq!(s.first_killer(&runs), None);
        s.killed(0, "y");
        assert_eq!(s.first_killer(&runs), None, "`y` is not in the plan of binary 0");
        s.killed(1, "z");
        s.killed(0, "x");
        assert_eq!(s.first_killer(&runs), Some((0, "x".to_string())));
        s.killed(1, "z");
        assert_eq!(s.first_killer(&runs), Some((1, "z".to_string())));
        assert_eq!(s.first_killer(&[Run::Nothing, Run::Nothing]), None);
    }

    #[test]
    fn the_trace_file_and_the_list_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("0.tsv");
        std::fs::write(&path, "3\tm::t\n3\tmain\nx\ty\n7\tm::u\n").unwrap();
        let t = BinaryTrace::read(&path, None);
        assert_eq!(t.reached[&3], ["m::t".to_string(), "main".to_string()].into());
        assert_eq!(t.reached[&7], ["m::u".to_string()].into());
        assert_eq!(t.reached.len(), 2);
        assert!(BinaryTrace::read(&dir.path().join("none"), None).reached.is_empty());
        let out = "m::t: test\nm::b: bench\nm::u: test\n\n2 tests, 1 benchmark\n";
        assert_eq!(listed(out), ["m::t".to_string(), "m::u".to_string()].into());
        assert!(out.lines().any(is_list_end));
        assert!(is_list_end("1 test, 0 benchmarks"));
        assert!(!is_list_end("running 2 tests"));
    }
}
