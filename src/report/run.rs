//! The report of a whole run: [`Report`] with its settings, its targets' reports, what was
//! reused or left unfinished, and the figures and gaps read from it.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::exploration::ExplorationReport;
use super::mutation::{MutantReport, MutantStatus, MutationReport, OriginFigures, SuggestedTest};
use crate::targets::diff::Base;
use crate::targets::{Drive, Target};

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
    pub llm: Option<crate::report::usage::LlmReport>,
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
                matches!(m.unwitnessed, Some(crate::report::Unwitnessed::NotSearched { .. }));
            left.survivors_not_searched += usize::from(unsearched);
        }
        left
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
