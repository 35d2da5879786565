//! The versioned JSON report: the source of every other surface (terminal, markdown, JUnit,
//! review comments). Its schema is documented in `docs/report.md`; bump [`REPORT_VERSION`] on any
//! change that is not a pure addition.
//!
//! This module holds the data and pure operations on it (merging shards, counting, choosing the
//! smallest set of suggested tests); it renders nothing and imports no renderer. The renderers
//! (`render/`) depend on it, and the output folder (`out.rs`) writes it and their files.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Deserializer, Serialize};

use crate::archive::{Descriptor, Group, Pair};
use crate::explore::{Exploration, QdPoint, StopReason};
use crate::targets::diff::Base;
use crate::targets::{Drive, Target};
use crate::value::{stringify_input, Args, Outcome};

/// Reads a distance, PD or QD-score. JSON has no infinity, and serde_json writes a non-finite
/// number as `null`; these figures are never NaN, so `null` reads back as +∞ (the Euclidean
/// distance between two huge floats overflows).
fn number_or_infinity<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::INFINITY))
}

/// Version of the report format.
pub const REPORT_VERSION: u32 = 2;

/// The whole report of a run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Report {
    /// Always `abex-report`.
    pub format: String,
    /// [`REPORT_VERSION`].
    pub version: u32,
    /// The abex version that wrote it.
    pub abex_version: String,
    /// `rust` or `python`.
    pub language: String,
    /// The project root.
    pub project_root: PathBuf,
    /// The project root relative to the top of its git repository, `/`-separated (absent at the
    /// top or outside git): what the paths of review comments, annotations and SARIF start with.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub repo_prefix: String,
    /// What the change was compared against (absent with `--function` or `--all`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base: Option<Base>,
    /// How targets were chosen: `diff`, `function` or `all`.
    pub selection: String,
    /// The settings that shape the result.
    pub settings: Settings,
    /// Whether the run finished its work: every selected function explored, every mutant
    /// tested and every survivor searched (false while it runs, after an interruption, and
    /// when the time budget ran out first).
    pub complete: bool,
    /// Why the run ended before it finished: the signal that interrupted it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interrupted: Option<Interrupted>,
    /// What ran out before the run finished its work: `time budget`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exhausted: Option<String>,
    /// What a run that did not finish left undone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unfinished: Option<Unfinished>,
    /// What the run took from the results cache instead of doing it again.
    #[serde(default, skip_serializing_if = "Reused::is_empty")]
    pub reused: Reused,
    /// One entry per target, in analysis order.
    pub targets: Vec<TargetReport>,
    /// What the model engine spent and whether the run fell back to the offline engine.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub llm: Option<crate::llm::usage::LlmReport>,
    /// What each origin contributed (`crate::provenance`): cells, boundaries and QD-score of
    /// the operators, bisection, the threshold operator and the model's Explorer; mutants and
    /// gaps of the rules and the model; the model tokens each model origin cost.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub origins: Vec<OriginFigures>,
}

/// Why a run ended early.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Interrupted {
    /// `SIGINT` or `SIGTERM`.
    pub signal: String,
    /// In words, for people: "interrupted by SIGINT".
    pub reason: String,
}

/// What a run left undone (`Report::unfinished`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unfinished {
    /// Mutants whose tests never ran (`not_tested`).
    pub mutants_not_tested: usize,
    /// Survivors whose witness search never ran (`not_searched`).
    pub survivors_not_searched: usize,
    /// Functions abex could call that were not explored.
    pub functions_not_explored: usize,
}

impl Unfinished {
    /// Whether nothing was left undone.
    pub fn is_empty(&self) -> bool {
        *self == Unfinished::default()
    }

    /// In words: "7 mutants not tested, 1 survivor not searched".
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        let mut say = |n: usize, one: &str, many: &str, what: &str| {
            if n > 0 {
                parts.push(format!("{n} {} {what}", if n == 1 { one } else { many }));
            }
        };
        say(self.mutants_not_tested, "mutant", "mutants", "not tested");
        say(self.survivors_not_searched, "survivor", "survivors", "not searched for a witness");
        say(self.functions_not_explored, "function", "functions", "not explored");
        parts.join(", ")
    }

    fn add(&mut self, other: &Unfinished) {
        self.mutants_not_tested += other.mutants_not_tested;
        self.survivors_not_searched += other.survivors_not_searched;
        self.functions_not_explored += other.functions_not_explored;
    }
}

/// What a run reused from the results cache (an earlier run of the same code and settings,
/// finished or interrupted).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reused {
    /// Functions whose whole result was cached.
    pub functions: usize,
    /// Explorations of functions an earlier run finished exploring but not analysing.
    pub explorations: usize,
    /// Mutants whose tests an earlier run finished (of functions it did not finish).
    pub mutants: usize,
}

impl Reused {
    /// Whether nothing was reused.
    pub fn is_empty(&self) -> bool {
        *self == Reused::default()
    }
}

/// The settings that shape a run's result.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Settings {
    /// Offline engine or model.
    pub engine: String,
    /// Pair budget per target.
    pub pairs: usize,
    /// Time budget per run, in seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_budget_s: Option<f64>,
    /// Random seed.
    pub seed: u64,
    /// Per-call time limit in milliseconds.
    pub call_timeout_ms: u64,
    /// `k/n` when this run analysed one shard of the targets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
}

/// What happened to one target.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TargetReport {
    /// The target.
    #[serde(flatten)]
    pub target: Target,
    /// Its boundary exploration, when it was driven.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exploration: Option<ExplorationReport>,
    /// Its mutation analysis, when mutants were tested.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mutation: Option<MutationReport>,
}

impl TargetReport {
    /// What of this function's work was left undone.
    pub fn unfinished(&self) -> Unfinished {
        let drivable = matches!(self.target.drive, Drive::Supported | Drive::Via { .. });
        let mut left = Unfinished {
            functions_not_explored: usize::from(drivable && self.exploration.is_none()),
            ..Unfinished::default()
        };
        for m in self.mutation.iter().flat_map(|m| &m.mutants) {
            left.mutants_not_tested += usize::from(m.status == MutantStatus::NotTested);
            let unsearched =
                matches!(m.unwitnessed, Some(crate::witness::Unwitnessed::NotSearched { .. }));
            left.survivors_not_searched += usize::from(unsearched);
        }
        left
    }
}

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
    pub unwitnessed: Option<crate::witness::Unwitnessed>,
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

/// The result of exploring one target.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ExplorationReport {
    /// Pairs offered to the archive.
    pub pairs_evaluated: usize,
    /// Calls of the function.
    pub evaluations: usize,
    /// Wall time spent, in milliseconds.
    pub time_ms: u64,
    /// Why exploration stopped.
    pub stop: StopReason,
    /// Σ PD over cells.
    #[serde(deserialize_with = "number_or_infinity")]
    pub qd_score: f64,
    /// Cells with PD > 0.
    pub bc_count: usize,
    /// Occupied cells.
    pub cells_total: usize,
    /// How many boundaries sit exactly at a comparison's threshold, where the original's
    /// comparisons were traced (see `explore::Exact`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exact_pairs: Option<crate::explore::Exact>,
    /// Each origin's cells, boundaries and shares of this function's QD-score and boundaries;
    /// absent in reports of older versions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub origins: Vec<OriginShare>,
    /// Every archive cell, strongest first.
    pub cells: Vec<Cell>,
    /// The QD-score over evaluations: at most [`QD_HISTORY_POINTS`] points, oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub qd_history: Vec<QdPoint>,
}

/// How many points of an exploration's QD-score curve the report keeps.
pub const QD_HISTORY_POINTS: usize = 64;

/// One archive cell: its elite pair.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Cell {
    /// The four descriptors.
    pub descriptor: Descriptor,
    /// Program derivative.
    #[serde(deserialize_with = "number_or_infinity")]
    pub pd: f64,
    /// Input distance.
    #[serde(deserialize_with = "number_or_infinity")]
    pub d_in: f64,
    /// Output distance.
    #[serde(deserialize_with = "number_or_infinity")]
    pub d_out: f64,
    /// Validity group; absent when both outcomes are equal (PD 0, not a boundary).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group: Option<Group>,
    /// The two argument lists.
    pub inputs: [Args; 2],
    /// Their outcomes.
    pub outcomes: [Outcome; 2],
    /// The stringified inputs and outputs the metrics were computed on.
    pub strings: CellStrings,
    /// Which part of the search proposed the pair (`{"kind": "operator"}`, `bisection`,
    /// `threshold`, or `{"kind": "model", "strategy": …, "persona": …}`); absent in reports of
    /// older versions, which read it as `operator`.
    #[serde(default)]
    pub origin: crate::archive::Origin,
}

/// Stringified forms of a cell's pair.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CellStrings {
    /// The two stringified inputs.
    pub inputs: [String; 2],
    /// The two stringified outcomes.
    pub outputs: [String; 2],
}

impl Cell {
    /// The report form of an archive elite.
    pub fn of(p: &Pair) -> Cell {
        let differ = p.outcomes[0] != p.outcomes[1];
        Cell {
            descriptor: p.descriptor,
            pd: p.pd,
            d_in: p.d_in,
            d_out: p.d_out,
            group: differ.then(|| p.group()),
            inputs: p.inputs.clone(),
            outcomes: p.outcomes.clone(),
            strings: CellStrings {
                inputs: [stringify_input(&p.inputs[0]), stringify_input(&p.inputs[1])],
                outputs: [p.outcomes[0].stringify(), p.outcomes[1].stringify()],
            },
            origin: p.origin.clone(),
        }
    }
}

/// The figures of a whole run: what its closing lines and summaries count.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    /// Functions in the report.
    pub functions: usize,
    /// Functions explored.
    pub explored: usize,
    /// Boundaries found (cells with PD > 0), over every function.
    pub boundaries: usize,
    /// Whether mutants were generated for any function (not `--no-mutants`).
    pub mutation_on: bool,
    /// Mutants whose tests ran to an outcome.
    pub mutants_tested: usize,
    /// Witnessed survivors: the gaps.
    pub gaps: usize,
    /// Functions no test reaches (their mutants untested).
    pub unreached: usize,
}

impl Report {
    /// Why the run stopped before it finished, in words: its interruption ("interrupted by
    /// SIGINT"), otherwise its time budget (the only other reason work is left undone).
    pub fn stopped_because(&self) -> &str {
        self.interrupted.as_ref().map_or("the time budget ran out", |i| i.reason.as_str())
    }

    /// [`Report::repo_prefix`] when it stays inside the repository; `""` for one that could
    /// leave it (absolute, or with `.` or `..` parts: a report from an untrusted artifact).
    pub fn safe_prefix(&self) -> &str {
        let prefix = self.repo_prefix.trim_end_matches('/');
        let safe = !prefix.starts_with('/')
            && !prefix.contains('\\')
            && prefix.split('/').all(|part| !matches!(part, "." | ".."));
        if safe {
            prefix
        } else {
            ""
        }
    }

    /// `file` (relative to the project root) as the repository names it: under
    /// [`Report::safe_prefix`], `/`-separated.
    pub fn repo_path(&self, file: &std::path::Path) -> String {
        Report::prefixed(self.safe_prefix(), file)
    }

    /// What the run left undone, over every function.
    pub fn unfinished_work(&self) -> Unfinished {
        let mut left = Unfinished::default();
        for t in &self.targets {
            left.add(&t.unfinished());
        }
        left
    }

    /// The run's [`Totals`].
    pub fn totals(&self) -> Totals {
        let mut n = Totals { functions: self.targets.len(), ..Totals::default() };
        for t in &self.targets {
            if let Some(x) = &t.exploration {
                n.explored += 1;
                n.boundaries += x.bc_count;
            }
            if let Some(m) = &t.mutation {
                n.mutation_on = true;
                n.mutants_tested += m.counts.tested();
                n.gaps += m.counts.witnessed;
                n.unreached += usize::from(m.unreached());
            }
        }
        n
    }
}

impl Report {
    /// Combines the reports of the shards of one run: every target once, in file order; the
    /// result is complete when every shard is.
    pub fn merge(mut parts: Vec<Report>) -> Option<Report> {
        let mut merged = parts.first().cloned()?;
        merged.complete = parts.iter().all(|r| r.complete);
        merged.exhausted = parts.iter().find_map(|r| r.exhausted.clone());
        merged.unfinished = parts.iter().filter_map(|r| r.unfinished).reduce(|mut a, b| {
            a.add(&b);
            a
        });
        merged.settings.shard = None;
        let mut targets: Vec<TargetReport> =
            parts.iter_mut().flat_map(|r| std::mem::take(&mut r.targets)).collect();
        targets.sort_by(|a, b| {
            (&a.target.file, a.target.span.start_line, &a.target.qualified_name).cmp(&(
                &b.target.file,
                b.target.span.start_line,
                &b.target.qualified_name,
            ))
        });
        targets.dedup_by(|a, b| {
            a.target.file == b.target.file && a.target.qualified_name == b.target.qualified_name
        });
        merged.targets = targets;
        Some(merged)
    }
}

/// One gap of a report: a survivor with a witness that is not possibly equivalent.
#[derive(Clone, Debug)]
pub struct Gap<'a> {
    /// Its function.
    pub target: &'a TargetReport,
    /// The surviving mutant.
    pub mutant: &'a MutantReport,
    /// Its file as the repository names it.
    pub path: String,
    /// [`MutantReport::gap_fingerprint`], identical mutants of one function told apart.
    pub fingerprint: String,
}

/// A function no test reaches: one note for the function, never a gap per mutant.
#[derive(Clone, Debug)]
pub struct Unreached<'a> {
    /// The function.
    pub target: &'a TargetReport,
    /// Its file as the repository names it.
    pub path: String,
    /// How many of its mutants the tests did not judge.
    pub untested: usize,
    /// SHA-256 (hex) of the path and the function's name: the note keeps its identity across
    /// pushes, as a gap's fingerprint does.
    pub fingerprint: String,
}

impl Report {
    /// The functions no test reaches (their self-check survived), in report order, their paths
    /// under `prefix`.
    pub fn unreached(&self, prefix: &str) -> Vec<Unreached<'_>> {
        let mut out = Vec::new();
        for t in &self.targets {
            let Some(mr) = t.mutation.as_ref().filter(|m| m.unreached()) else { continue };
            let path = Report::prefixed(prefix, &t.target.file);
            let fingerprint = Report::unreached_fingerprint(&path, &t.target.qualified_name);
            out.push(Unreached { target: t, path, untested: mr.counts.not_reached, fingerprint });
        }
        out
    }

    /// The fingerprint of the "not reached" note of `function` in `path` (as the repository
    /// names it): SHA-256 (hex) of both, so the note keeps its identity across pushes.
    pub fn unreached_fingerprint(path: &str, function: &str) -> String {
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        for part in ["not reached", path, function] {
            h.update(part.as_bytes());
            h.update([0]);
        }
        h.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }

    /// The suggested test that closes mutant `m`: the one it names, wherever the unit's
    /// smallest set lists it (a function driven through another one has its tests listed
    /// there), else one of its function's that kills it.
    pub fn suggested_test(&self, m: &MutantReport) -> Option<&SuggestedTest> {
        let all = self.targets.iter().filter_map(|t| t.mutation.as_ref());
        let mut tests = all.flat_map(|mr| &mr.suggested_tests);
        match &m.suggested_test {
            Some(name) => tests.find(|s| &s.name == name),
            None => tests.find(|s| s.kills.contains(&m.id)),
        }
    }

    /// `file` (relative to the project root) under `prefix` (the project's folder in the
    /// repository), `/`-separated: the path review comments and fingerprints use.
    pub fn prefixed(prefix: &str, file: &Path) -> String {
        let file = file.to_string_lossy().replace('\\', "/");
        match prefix.trim_matches('/') {
            "" => file,
            p => format!("{p}/{file}"),
        }
    }

    /// The gaps, in report order, their paths under `prefix` (the project's folder in the
    /// repository).
    pub fn gaps(&self, prefix: &str) -> Vec<Gap<'_>> {
        let mut out = Vec::new();
        for t in &self.targets {
            let Some(mr) = &t.mutation else { continue };
            let function = &t.target.qualified_name;
            let mut seen: Vec<String> = Vec::new();
            for m in &mr.mutants {
                if m.status != MutantStatus::Survived
                    || m.witness.is_none()
                    || m.possibly_equivalent
                {
                    continue;
                }
                let path = Report::prefixed(prefix, &m.file);
                let key = m.gap_fingerprint(&path, function, 0);
                let ordinal = seen.iter().filter(|k| **k == key).count();
                seen.push(key.clone());
                let fingerprint =
                    if ordinal == 0 { key } else { m.gap_fingerprint(&path, function, ordinal) };
                out.push(Gap { target: t, mutant: m, path, fingerprint });
            }
        }
        out
    }
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

impl ExplorationReport {
    /// The report form of an exploration.
    pub fn of(e: &Exploration) -> ExplorationReport {
        ExplorationReport {
            pairs_evaluated: e.pairs_evaluated,
            evaluations: e.evaluations,
            time_ms: e.elapsed.as_millis() as u64,
            stop: e.stop,
            qd_score: e.archive.qd_score(),
            bc_count: e.archive.bc_count(),
            cells_total: e.archive.len(),
            exact_pairs: e.exact,
            origins: Vec::new(),
            cells: e.archive.elites().into_iter().map(Cell::of).collect(),
            qd_history: QdPoint::thin(&e.history, QD_HISTORY_POINTS),
        }
    }

    /// The boundaries (PD > 0), strongest first.
    pub fn boundaries(&self) -> impl Iterator<Item = &Cell> {
        self.cells.iter().filter(|c| c.pd > 0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::{Outcome, Value};

    #[test]
    fn an_infinite_distance_reads_back_from_the_null_json_writes_for_it() {
        let ok = |v: &str| Outcome::Ok { value: v.to_string() };
        let (tiny, huge) = (6.6e-156, 4.3e307);
        let pair = Pair::new(
            vec![Value::Float(tiny)],
            vec![Value::Float(huge)],
            ok(&tiny.to_string()),
            ok(&huge.to_string()),
        )
        .expect("a pair");
        let cell = Cell::of(&pair);
        assert_eq!(cell.d_in, f64::INFINITY);
        let json = serde_json::to_string(&cell).unwrap();
        assert!(json.contains("\"d_in\":null"), "{json}");
        let back: Cell = serde_json::from_str(&json).unwrap();
        assert_eq!((back.d_in, back.pd, back.d_out), (cell.d_in, cell.pd, cell.d_out));
    }
}
