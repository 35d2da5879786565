//! What differs per language, behind two small traits: a [`FrontEnd`] knows a project (its
//! targets, how they group into units built together, their mutants and how the model sees them)
//! and opens a [`Lab`] per unit; a lab builds the unit with its mutants, runs inputs through the
//! original or a mutant, runs a mutant's tests, and compiles and checks suggested tests. The
//! spine (`super::run`) does everything else once, for every language.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::config::RunConfig;
use super::error::RunError;
use crate::exec::{Evaluate, ProbeEvaluate};
use crate::llm::session::Session;
use crate::llm::subject::Subject;
use crate::mutate::Mutant;
use crate::report::{MutantStatus, Witness};
use crate::targets::diff::Base;
use crate::targets::{Drive, Target};
use crate::value::{Ty, Value};
use crate::witness::Hints;

/// What a front end chose to analyse.
#[derive(Clone, Debug)]
pub struct Choice {
    /// `rust` or `python`.
    pub language: &'static str,
    /// The project (workspace) root.
    pub root: PathBuf,
    /// What the change was compared against, when targets came from a diff.
    pub base: Option<Base>,
    /// Every chosen target, callable or not, in analysis order.
    pub targets: Vec<Target>,
    /// Every function's record: the targets, then the callers that drive those abex cannot
    /// call (their vehicles).
    pub functions: Vec<Target>,
    /// Each target's vehicle (an index of `functions`), when it is driven through a caller.
    pub vehicles: Vec<Option<usize>>,
}

/// Targets that are built and tested together: a crate target (one scratch build), a Python
/// project (one scratch copy).
#[derive(Clone, Debug)]
pub struct Unit {
    /// What people call it: the package name.
    pub name: String,
    /// Indices into [`FrontEnd::targets`].
    pub targets: Vec<usize>,
    /// The functions that drive targets that cannot be called themselves (indices of
    /// [`FrontEnd::function`]; see [`FrontEnd::vehicle`]), once each.
    pub vehicles: Vec<usize>,
}

impl Unit {
    /// The functions the unit's build must call, in order: its targets that look callable
    /// (before the build has its say), then its vehicles. `functions` holds every function's
    /// record, targets and vehicles alike.
    pub fn callable(&self, functions: &[Target]) -> Vec<usize> {
        let mut out: Vec<usize> = self
            .targets
            .iter()
            .copied()
            .filter(|&i| functions[i].drive == Drive::Supported)
            .collect();
        for v in &self.vehicles {
            if !out.contains(v) {
                out.push(*v);
            }
        }
        out
    }
}

/// A mutant of a unit with its number: its switch in a Rust build, its key everywhere else.
#[derive(Clone, Debug)]
pub struct Numbered {
    /// The number, unique within the unit (from 1).
    pub n: u32,
    /// The target it mutates (index into [`FrontEnd::targets`]).
    pub target: usize,
    /// The mutant.
    pub mutant: Mutant,
    /// Whether it is the target's self-check (the body replaced by a panic), not a finding.
    pub self_check: bool,
}

/// What happened to one mutant's tests (kept in the results cache as soon as it is known).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Tested {
    /// The outcome.
    pub status: MutantStatus,
    /// The first failing test (killed), or why it does not build (unviable).
    pub killed_by: Option<String>,
    /// What the failure said: the killing test's assertion, or the build error (fed back to
    /// the model).
    pub failure: Option<String>,
    /// How long its tests took.
    pub time: Duration,
}

/// Why a target that looked callable cannot be called after the unit was built.
#[derive(Clone, Debug)]
pub struct Uncallable {
    /// Why, in a sentence fragment.
    pub reason: String,
    /// Whether its code is not compiled at all under the current features (its mutants are
    /// then "not exercised", never survivors).
    pub not_compiled: bool,
}

/// A suggested test to compile and check.
#[derive(Clone, Debug)]
pub struct Suggestion {
    /// The target whose survivor it kills.
    pub target: usize,
    /// The function it calls: the target, or the caller that drives it (an index of
    /// [`FrontEnd::function`]).
    pub calls: usize,
    /// The survivor it was written for.
    pub mutant: u32,
    /// The test function's name (a fall-back's carries its mark, see
    /// [`crate::testname::candidate`]).
    pub name: String,
    /// Its source.
    pub code: String,
    /// How readable it is: 0 for the most readable way of writing it, more for fall-backs.
    pub rank: usize,
    /// Who wrote it: the offline template or the model's Tester.
    pub origin: crate::report::TestOrigin,
    /// For a model-written test, the repair rounds it took (0: its first answer held).
    pub repair_rounds: u32,
    /// Survivors this test is known to pass on: a call found their outcome on its input to be
    /// the original's. A check may leave it unrun on them where running it costs
    /// ([`Lab::skips_spared`]); a kill still counts only where the test ran and failed. Empty:
    /// unknown, it runs on every survivor.
    pub spared: Vec<u32>,
}

/// What compiling and running one suggested test gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// It does not compile (Python: does not collect): the error, cut to a few KB.
    DoesNotCompile(String),
    /// It fails (or hangs) on the original: the failing output, cut to a few KB.
    FailsOnOriginal(String),
    /// It passes on the original and fails on these survivors (possibly none).
    Passed(Vec<u32>),
}

/// Longest compiler error or failing output a [`Verdict`] keeps (it goes back to the model).
pub const VERDICT_TEXT: usize = 3000;

/// `text` cut to [`VERDICT_TEXT`] bytes at a character boundary, marked when cut.
pub fn bounded(text: &str) -> String {
    let text = text.trim();
    if text.len() <= VERDICT_TEXT {
        return text.to_string();
    }
    let mut end = VERDICT_TEXT;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}\n… (cut)", &text[..end])
}

/// One language's view of a project, with its chosen targets.
pub trait FrontEnd {
    /// What it chose to analyse.
    fn choice(&self) -> &Choice;
    /// `rust` or `python`.
    fn language(&self) -> &'static str {
        self.choice().language
    }
    /// The project (workspace) root.
    fn root(&self) -> &Path {
        &self.choice().root
    }
    /// What the change was compared against, when targets came from a diff.
    fn base(&self) -> Option<&Base> {
        self.choice().base.as_ref()
    }
    /// Every chosen target, callable or not, in analysis order.
    fn targets(&self) -> &[Target] {
        &self.choice().targets
    }
    /// The targets grouped into units, in analysis order.
    fn units(&self) -> Vec<Unit>;
    /// The function through which target `i` is driven when it cannot be called itself (its
    /// drive is [`Drive::Via`]): an index of [`FrontEnd::function`].
    fn vehicle(&self, i: usize) -> Option<usize> {
        self.choice().vehicles.get(i).copied().flatten()
    }
    /// The record of function `k`: a target (`k < targets().len()`) or a vehicle.
    fn function(&self, k: usize) -> &Target {
        &self.choice().functions[k]
    }
    /// What besides the function, the run's settings and the model decides target `i`'s result,
    /// for results-cache keys: the language's own settings, every file of the code and tests
    /// behind it (its package or project, manifests and lock files), the toolchain or
    /// interpreter, and the environment they read.
    fn cache_parts(&self, i: usize) -> Vec<Vec<u8>>;
    /// [`FrontEnd::cache_parts`] with the bodies of the run's targets left out, for the key
    /// under which target `i`'s kills serve the next push of the same pull request (see
    /// `run::push_keys`); `None` where a language keeps no such key.
    fn push_parts(&self, _i: usize) -> Option<Vec<Vec<u8>>> {
        None
    }
    /// The text of target `i`'s file.
    fn file_text(&self, i: usize) -> &str;
    /// The rule-based mutants of target `i`.
    fn rule_mutants(&self, i: usize) -> Vec<Mutant>;
    /// Target `i`'s self-check mutant: its body replaced by a panic or a raise.
    fn self_check(&self, i: usize) -> Mutant;
    /// Target `i` as the model's agents see it.
    fn subject(&self, i: usize, params: Vec<Ty>) -> Subject;
    /// Up to `count` validated model-written mutants of target `i`, with `earlier` feedback on
    /// a previous round (empty on the first).
    fn model_mutants(
        &self,
        session: &mut Session,
        i: usize,
        count: usize,
        earlier: &str,
    ) -> Vec<Mutant>;
    /// What the user should know about the project's settings before the run (each may end
    /// with a `hint:` line).
    fn warnings(&self) -> Vec<String> {
        Vec::new()
    }
    /// Vets a test the model wrote for target `i`: `written` may use only what the original
    /// function and `examples` (the project's tests naming it, the offline test) use (see
    /// `crate::allowlist`); on success, the test renamed to `name`, ready for
    /// [`Lab::check`]. Otherwise why it is refused (it is never run).
    fn vet_test(
        &self,
        i: usize,
        written: &str,
        name: &str,
        examples: &[String],
    ) -> Result<String, String>;
    /// The constants of target `i`'s source that seed the witness search of mutant `m`.
    fn hints(&self, i: usize, m: &Mutant) -> Hints;
    /// A hint added to a worker failure (e.g. the interpreter that must import the project).
    fn exec_hint(&self) -> Option<String> {
        None
    }
    /// Builds `unit` with `mutants` (none without mutation) and returns its lab, which stops
    /// starting work at `deadline` (the run's time budget).
    fn open<'a>(
        &'a self,
        cfg: &'a RunConfig,
        unit: &Unit,
        mutants: &[Numbered],
        deadline: Option<Instant>,
    ) -> Result<Box<dyn Lab + 'a>, RunError>;
}

/// Evaluators of one target that other threads may use (see [`Lab::witness_workers`]).
pub struct WitnessWorkers {
    /// The original, once per thread.
    pub originals: Vec<Box<dyn Evaluate + Send>>,
    /// Each survivor's mutant, in probe mode where the language can probe it.
    pub mutants: Vec<Box<dyn ProbeEvaluate + Send>>,
}

/// One built unit: where its functions and mutants are run.
pub trait Lab {
    /// Why target `i` cannot be called after all, when the build says so.
    fn uncallable(&self, _i: usize) -> Option<Uncallable> {
        None
    }
    /// Target `i`'s parameters as this lab drives them, when they differ from the target's: a
    /// Rust build leaves out the constructors that did not compile; a Python lab learns the
    /// types of unannotated parameters from the arguments the project's tests pass. Exploration
    /// and the witness search then use them.
    fn params(&mut self, _i: usize) -> Option<Vec<crate::targets::Param>> {
        None
    }
    /// Constants the lab's call of target `i` adds to those of its source: a Rust const generic
    /// parameter's value (wildmatch's `'*'`, which its source names only as `MULTI_WILDCARD`).
    fn hints(&self, _i: usize) -> Hints {
        Hints::default()
    }
    /// How many test binaries or files run against the unit's mutants (for progress); a lab
    /// may wait here for the tests it builds in the background.
    fn test_count(&mut self) -> usize;
    /// The test tool and selection used for target `i`, in words, for the report.
    fn test_tool(&self, i: usize) -> String;
    /// How many tests call target `i`, where the lab traces them (known once its mutants were
    /// tested); `None` where it does not.
    fn reached_by(&self, _i: usize) -> Option<usize> {
        None
    }
    /// Runs the tests of `mutants` (numbers of this unit), within the run's deadline. A mutant
    /// left untested (budget, interruption) is absent from the answer. `on_result` hears each
    /// mutant's final result as soon as it is known; after an interruption (see
    /// `crate::interrupt`) no result is given, since its processes were killed.
    fn test(
        &mut self,
        mutants: &[u32],
        on_result: &mut dyn FnMut(u32, &Tested),
    ) -> Result<BTreeMap<u32, Tested>, RunError>;
    /// An evaluator of target `i`'s original.
    fn evaluator(&mut self, i: usize) -> Result<Box<dyn Evaluate>, RunError>;
    /// An evaluator of function `driver` (target `i`, or the caller that drives it) with the
    /// original's comparisons traced (each reports its operands, see `crate::exec::probe`),
    /// for the explorer's threshold operator; `None` where the language cannot trace.
    fn tracer(
        &mut self,
        _i: usize,
        _driver: usize,
    ) -> Result<Option<Box<dyn ProbeEvaluate>>, RunError> {
        Ok(None)
    }
    /// An evaluator of target `i` with mutant `n` active, in probe mode where the language can
    /// probe it (its site reports reach and infection, see `crate::witness`).
    fn mutant(&mut self, i: usize, n: u32) -> Result<Box<dyn ProbeEvaluate>, RunError>;
    /// Evaluators for a witness search of target `i`'s `survivors` on up to `threads` threads:
    /// an original per thread and each survivor's mutant (in their order), all of their own.
    /// `None` (the default) where the lab's workers are shared (one worker calls every
    /// survivor): the search then runs on the calling thread, with [`Lab::evaluator`] and
    /// [`Lab::mutant`].
    fn witness_workers(
        &mut self,
        _i: usize,
        _survivors: &[u32],
        _threads: usize,
    ) -> Result<Option<WitnessWorkers>, RunError> {
        Ok(None)
    }
    /// Whether the witnesses of a unit's survivors may be searched while its other mutants
    /// are tested, planned on every mutant that may survive (`mutants` of them): the lab's
    /// [`Lab::prepare_witnesses`] then gets all of them before the tests, and
    /// [`Lab::witness_workers`] their evaluators, which other threads use while
    /// [`Lab::test`] runs.
    fn searches_while_testing(&self, _mutants: usize) -> bool {
        false
    }
    /// Called once before the witness searches of a unit, with each function that is called
    /// (a target, or the caller that drives it) and the survivors searched through it: a lab
    /// may start one worker for all of them.
    fn prepare_witnesses(&mut self, _groups: &[(usize, Vec<u32>)]) -> Result<(), RunError> {
        Ok(())
    }
    /// The ways of writing a test that calls target `i` on the witness `w` and asserts the
    /// original's outcome, named `name`, with `why` as its comment, most readable first; the
    /// `k`-th is named [`crate::testname::candidate`]`(name, k)`. Empty when it cannot be
    /// written.
    fn suggest(&self, i: usize, w: &Witness, name: &str, why: &str) -> Vec<String>;
    /// What the names of target `i`'s tests say of it and of witness `w`: the function in snake
    /// case with the language's prefix (`thermostat_mode`, `test_bmi`) and the arguments a name
    /// mentions (a method's receiver only when nothing else is).
    fn name_parts<'w>(&self, i: usize, w: &'w Witness) -> (String, &'w [Value]);
    /// The readable name of the suggested test of target `i` on witness `w` (what it pins: the
    /// function, the outcome, the arguments), before it is made unique.
    fn test_name(&self, i: usize, w: &Witness) -> String {
        let (function, args) = self.name_parts(i, w);
        crate::testname::readable(&function, args, &w.original)
    }
    /// One test named `name`, with `why` as its comment, that asserts every case of `cases`
    /// (witnesses of target `i`): one parametrised test when `parametrised` (the project's
    /// style, see [`Lab::parametrises`]), else each case's statements in turn. `None` when it
    /// cannot be written that way (the cases stay tests of their own).
    fn joined(
        &self,
        i: usize,
        cases: &[&Witness],
        name: &str,
        why: &str,
        parametrised: bool,
    ) -> Option<String>;
    /// The readable name of the test of target `i` that joins `cases` (a boundary pair's two
    /// inputs, or how many there are; a `parametrised` table's common outcome), before it is
    /// made unique.
    fn joined_name(&self, i: usize, cases: &[&Witness], parametrised: bool) -> String {
        let Some(first) = cases.first() else { return String::new() };
        let function = self.name_parts(i, first).0;
        let named: Vec<(&[Value], &crate::value::Outcome)> =
            cases.iter().map(|w| (self.name_parts(i, w).1, &w.original)).collect();
        crate::testname::joined(&function, &named, parametrised)
    }
    /// Whether the project's own tests are parametrised: then every case of a function joins
    /// one test, not only a boundary's two sides (see `super::cases`).
    fn parametrises(&self) -> bool {
        false
    }
    /// Tells the lab that `suggestions` (one target's, as its witness search left them) will
    /// be checked against `survivors`: a lab may start running them now, while the next
    /// target's witnesses are searched; [`Lab::check`] of the same tests then gives what it
    /// found.
    fn check_soon(&mut self, _suggestions: &[Suggestion], _survivors: &[u32]) {}
    /// Whether running one suggested test on one survivor costs enough that a check leaves it
    /// unrun on the survivors it spares ([`Suggestion::spared`]): Python, where each test goes
    /// through pytest's protocol in the survivor's fork. False (the default) where a check
    /// runs every test of a survivor at once anyway (a Rust test binary).
    fn skips_spared(&self) -> bool {
        false
    }
    /// Compiles and runs `suggestions` on the original and on `survivors`: each one's
    /// [`Verdict`] (why it failed, or the survivors it kills). A suggestion left unrun (the
    /// time budget, no build holding its survivors) is absent.
    fn check(
        &mut self,
        suggestions: &[Suggestion],
        survivors: &[u32],
    ) -> Result<BTreeMap<String, Verdict>, RunError>;
    /// Adds the mutants of a feedback round (a Rust lab builds them into a new build).
    fn add(&mut self, fresh: &[Numbered]) -> Result<(), RunError>;
    /// What the lab found out that the user should know and that does not stop the run (a
    /// test file that does not collect in abex's runner and is left out), each said once;
    /// the spine reports them as warnings.
    fn warnings(&mut self) -> Vec<String> {
        Vec::new()
    }
}
