//! The mutation part of a target's report: each mutant's outcome ([`MutantReport`]), its
//! witness, the suggested tests that kill it, the boundaries no test pins, and the counts.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::archive::{Descriptor, Pair};
use crate::value::{stringify_input, Args, Outcome};

/// How a mutant fared against the tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MutantStatus {
    /// It does not build.
    Unviable,
    /// A test failed.
    Killed,
    /// Every test passed.
    Survived,
    /// The tests ran past the time limit (twice: the second time alone).
    Timeout,
    /// Its code is not compiled under the current features.
    NotExercised,
    /// The run's time budget ran out before it was tested.
    NotTested,
    /// No test reaches its function (the function with its body replaced by a raise or a panic
    /// fails no test, or no test calls it): the tests did not judge it, so it is no gap.
    NotReached,
}

impl MutantStatus {
    /// What a self-check (the function's body replaced by a raise or a panic) with this
    /// outcome shows: whether the tests reach the function (a test failed or hung, or none
    /// did); `None` when it shows nothing (it did not build or did not run).
    pub fn reach_shown(self) -> Option<bool> {
        match self {
            MutantStatus::Killed | MutantStatus::Timeout => Some(true),
            MutantStatus::Survived | MutantStatus::NotReached => Some(false),
            MutantStatus::Unviable | MutantStatus::NotExercised | MutantStatus::NotTested => None,
        }
    }
}

/// An input on which a mutant's outcome differs from the original's.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Witness {
    /// The argument list.
    pub input: Args,
    /// The original function's outcome.
    pub original: Outcome,
    /// The mutant's outcome.
    pub mutant: Outcome,
    /// Where it was found: `archive` (an explored input) or `search` (differential search).
    pub found_by: String,
    /// The input the search found, when shrinking ([`crate::witness::shrink`]) made `input` a
    /// simpler one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shrunk_from: Option<Args>,
}

/// One mutant and what happened to it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MutantReport {
    /// Stable id.
    pub id: String,
    /// `rules` or `model`.
    pub origin: crate::mutate::Origin,
    /// The operator.
    pub operator: crate::mutate::Operator,
    /// What it changes, in words.
    pub description: String,
    /// The name cargo-mutants gives the same mutant, when it makes it (see
    /// [`crate::mutate::Mutant::peer_name`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peer_name: Option<String>,
    /// File, relative to the project root.
    pub file: PathBuf,
    /// 1-based line and column of the change.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// The original text.
    pub original: String,
    /// The replacement text.
    pub replacement: String,
    /// Unified diff of the change.
    pub diff: String,
    /// The outcome.
    pub status: MutantStatus,
    /// The first test that failed, for a killed mutant.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub killed_by: Option<String>,
    /// What the failure said: the killing test's own output (its assertion with expected and
    /// actual values), or the compiler's error for an unviable mutant. Fed back to the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    /// For a survivor: the input that tells it from the original, when one was found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub witness: Option<Witness>,
    /// For a survivor with no witness: true (it may be equivalent; never reported as a gap).
    pub possibly_equivalent: bool,
    /// For a survivor with no witness: the stage of reach, infect, propagate that no input
    /// passed (only `masked` reads as "probably equivalent").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unwitnessed: Option<crate::report::Unwitnessed>,
    /// For a survivor: how long its witness search took, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search_ms: Option<u64>,
    /// Name of the suggested test that kills it, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suggested_test: Option<String>,
    /// Milliseconds its tests took.
    pub time_ms: u64,
}

/// A boundary the tests do not hold: a witnessed survivor moves an outcome on one of its inputs.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct UnpinnedBoundary {
    /// The archive cell's descriptor.
    pub descriptor: Descriptor,
    /// The two stringified inputs.
    pub inputs: [String; 2],
    /// The two stringified outputs of the original.
    pub outputs: [String; 2],
    /// The survivors that change it.
    pub mutants: Vec<String>,
}

/// A test abex suggests: checked to pass on the original and fail on each mutant it kills.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SuggestedTest {
    /// The test function's name.
    pub name: String,
    /// Its source text, ready to paste into a `#[cfg(test)]` module next to the function.
    pub code: String,
    /// The mutants it kills.
    pub kills: Vec<String>,
    /// The file of the function it calls (the target, or the caller that drives it), relative
    /// to the project root; empty in reports of older versions (then the target's).
    #[serde(default, skip_serializing_if = "is_empty_path")]
    pub file: PathBuf,
    /// The name of the function it calls; empty in reports of older versions.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub function: String,
    /// Who wrote it: abex's template (`offline`) or the model's Tester (`model`).
    #[serde(default)]
    pub origin: TestOrigin,
    /// For a model-written test, how many repair rounds it took (0: the first answer held).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub repair_rounds: u32,
    /// For an offline test, why the model's test for the survivors it closes was not kept
    /// (`the Tester's test did not hold after 3 repair rounds: …`), when the model tried.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback: Option<String>,
}

impl SuggestedTest {
    /// Who wrote it, in words, when a model took part: `written by the model, 3 repair
    /// rounds`, or why the model's test was not kept. `None` for an offline run's test.
    pub fn provenance(&self) -> Option<String> {
        match self.origin {
            TestOrigin::Model => Some(match self.repair_rounds {
                0 => "written by the model".to_string(),
                1 => "written by the model, 1 repair round".to_string(),
                n => format!("written by the model, {n} repair rounds"),
            }),
            TestOrigin::Offline => self.fallback.clone(),
        }
    }
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

fn is_zero_usize(n: &usize) -> bool {
    *n == 0
}

/// One origin's part of one function's exploration (`crate::provenance::shares`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct OriginShare {
    /// `operator`, `bisection`, `threshold` or `model explorer`.
    pub origin: String,
    /// The function's archive cells whose elite it proposed.
    pub cells: usize,
    /// Of those, boundaries (PD > 0).
    pub boundaries: usize,
    /// Its share (0 to 1) of the function's QD-score; absent when the function has no
    /// boundary. Where the QD-score is infinite, its share of the infinite cells.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qd_share: Option<f64>,
    /// Its share (0 to 1) of the function's boundaries; absent when there is none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boundary_share: Option<f64>,
}

/// Who wrote a suggested test.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TestOrigin {
    /// abex's template, from the witness (no model).
    #[default]
    Offline,
    /// The model's Tester, compiled and run before it was kept (generate-and-repair).
    Model,
}

fn is_empty_path(p: &Path) -> bool {
    p.as_os_str().is_empty()
}

/// Counts of mutant outcomes.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct MutantCounts {
    /// Mutants generated.
    pub total: usize,
    /// Killed by a test.
    pub killed: usize,
    /// Survived every test.
    pub survived: usize,
    /// Survivors with a witness (real gaps).
    pub witnessed: usize,
    /// Did not build.
    pub unviable: usize,
    /// Timed out.
    pub timeout: usize,
    /// Not compiled under the current features.
    pub not_exercised: usize,
    /// Not tested within the time budget.
    pub not_tested: usize,
    /// Of a function no test reaches (untested, never gaps).
    #[serde(default)]
    pub not_reached: usize,
}

impl MutantCounts {
    /// Mutants whose tests ran to an outcome: killed, survived or timed out.
    pub fn tested(&self) -> usize {
        self.killed + self.survived + self.timeout
    }

    /// One line for people: "9 mutants: 6 killed, 3 survived (3 with a witness), …".
    pub fn describe(&self) -> String {
        let budget = if self.not_tested > 0 {
            format!(", {} not tested (the run stopped first)", self.not_tested)
        } else {
            String::new()
        };
        let unreached = if self.not_reached > 0 {
            format!(", {} untested (no test reaches the function)", self.not_reached)
        } else {
            String::new()
        };
        format!(
            "{} mutants: {} killed, {} survived ({} with a witness), {} unviable, {} timed out{budget}{unreached}",
            self.total, self.killed, self.survived, self.witnessed, self.unviable, self.timeout
        )
    }
}

impl MutantCounts {
    /// Counts one mutant of `status`; `witnessed` for a survivor with a witness.
    pub fn add(&mut self, status: MutantStatus, witnessed: bool) {
        match status {
            MutantStatus::Killed => self.killed += 1,
            MutantStatus::Survived => self.survived += 1,
            MutantStatus::Unviable => self.unviable += 1,
            MutantStatus::Timeout => self.timeout += 1,
            MutantStatus::NotExercised => self.not_exercised += 1,
            MutantStatus::NotTested => self.not_tested += 1,
            MutantStatus::NotReached => self.not_reached += 1,
        }
        if status == MutantStatus::Survived && witnessed {
            self.witnessed += 1;
        }
    }
}

impl UnpinnedBoundary {
    /// The boundary of archive elite `p`, moved by the survivors `mutants`.
    pub fn of(p: &Pair, mutants: Vec<String>) -> UnpinnedBoundary {
        UnpinnedBoundary {
            descriptor: p.descriptor,
            inputs: [stringify_input(&p.inputs[0]), stringify_input(&p.inputs[1])],
            outputs: [p.outcomes[0].stringify(), p.outcomes[1].stringify()],
            mutants,
        }
    }
}

/// The smallest set of suggested tests (greedy) that kills every mutant some test kills:
/// `kills` maps a test's name to the mutants it kills, `ranks` a test's name to how readable it
/// is (0 the most; missing is 0); ties go to the more readable test, then the first name.
pub fn smallest_killing_set<K: Ord + Copy>(
    kills: &std::collections::BTreeMap<String, Vec<K>>,
    ranks: &std::collections::BTreeMap<String, usize>,
) -> Vec<(String, Vec<K>)> {
    let mut chosen: Vec<(String, Vec<K>)> = Vec::new();
    let mut left: std::collections::BTreeSet<K> = kills.values().flatten().copied().collect();
    let rank = |name: &str| ranks.get(name).copied().unwrap_or(0);
    while !left.is_empty() {
        let best = kills.iter().max_by_key(|(name, k)| {
            let closes = k.iter().filter(|n| left.contains(n)).count();
            (closes, std::cmp::Reverse(rank(name)), std::cmp::Reverse((*name).clone()))
        });
        let Some((name, k)) = best else { break };
        if k.iter().all(|n| !left.contains(n)) {
            break;
        }
        for n in k {
            left.remove(n);
        }
        chosen.push((name.clone(), k.clone()));
    }
    chosen
}

/// The mutation analysis of one target.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MutationReport {
    /// Whether a deliberately broken copy of the function (its body replaced by a panic) was
    /// killed; false means the tests do not reach the function at all.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub self_check_killed: Option<bool>,
    /// How many of the tests call the function, where the front end traces them (Python: the
    /// runner's baseline); absent where it does not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reached_by: Option<usize>,
    /// The test command used, e.g. `cargo test` (binaries run directly).
    pub test_tool: String,
    /// Counts per outcome.
    pub counts: MutantCounts,
    /// Every mutant, survivors first.
    pub mutants: Vec<MutantReport>,
    /// Boundaries the tests do not pin.
    pub unpinned: Vec<UnpinnedBoundary>,
    /// The smallest set of suggested tests that kills every witnessed survivor it can.
    pub suggested_tests: Vec<SuggestedTest>,
}

impl MutationReport {
    /// Whether no test reaches the function: its self-check survived, so its mutants are
    /// untested (`not_reached`), never gaps.
    pub fn unreached(&self) -> bool {
        self.self_check_killed == Some(false)
    }
}

/// The figures of one origin over a run (`crate::provenance`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct OriginFigures {
    /// `operator`, `bisection`, `threshold`, `model explorer` (cells); `rules`, `model mutator`
    /// (mutants).
    pub origin: String,
    /// Archive cells whose elite it proposed, over every function.
    pub cells: usize,
    /// Of those, boundaries (PD > 0).
    pub boundaries: usize,
    /// Functions in whose archive it holds a cell.
    #[serde(default, skip_serializing_if = "is_zero_usize")]
    pub functions: usize,
    /// Its mean share (0 to 1) of a function's QD-score, over the functions with a boundary
    /// (QD-scores are never added up across functions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qd_share: Option<f64>,
    /// Its mean share (0 to 1) of a function's boundaries, over the same functions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boundary_share: Option<f64>,
    /// Mutants it wrote.
    pub mutants: usize,
    /// Gaps: its surviving mutants with a witness.
    pub gaps: usize,
    /// Model tokens it cost (prompt and completion; the Explorer's origin also carries the
    /// Coordinator's, Ideator's and Strategy Generator's, which steer it).
    pub tokens: u64,
}

impl MutantReport {
    /// The fingerprint of this mutant as a gap: SHA-256 (hex) of what identifies it wherever the
    /// code sits: the file as the repository names it (`path`), the `function`, the operator and
    /// the whitespace-normalised original and replacement text, no line number. `ordinal` tells
    /// apart identical mutants of one function. Review comments' markers and SARIF's
    /// `partialFingerprints` both carry it, so a gap keeps its identity across pushes.
    pub fn gap_fingerprint(&self, path: &str, function: &str, ordinal: usize) -> String {
        use sha2::{Digest, Sha256};
        let normalise = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
        let operator = serde_json::to_string(&self.operator).unwrap_or_default();
        let mut h = Sha256::new();
        for part in [
            path,
            function,
            &operator,
            &normalise(&self.original),
            &normalise(&self.replacement),
            &ordinal.to_string(),
        ] {
            h.update(part.as_bytes());
            h.update([0]);
        }
        h.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }
}
