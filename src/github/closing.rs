//! Whether a run may close an earlier abex comment: only when each of its gaps' mutants was
//! tested in this run and killed (or no longer builds), or no longer exists in the code. A
//! mutant left untested (the time budget ran out, an interruption), or one that still survives,
//! leaves the comment open, and the reason is said in the job summary.
//!
//! A comment names its gaps by fingerprint (`finding.rs`); the run's report gives every mutant
//! of every function it analysed, killed ones included, so a fingerprint is matched against all
//! of them. "No longer exists" is proven only for a gap whose comment names its function (a
//! `fn=` part of its marker, written for mutants the rules made) when this run analysed that
//! function and made no such mutant; a model-written mutant may simply not be written again,
//! so its absence proves nothing. A "not reached" note closes when this run tested its
//! function's self-check and a test killed it: a test now reaches the function.

use std::collections::{HashMap, HashSet};

use crate::report::{MutantReport, MutantStatus, Report};

/// The key of a function in comment markers: SHA-256 (hex) of its file as the repository names
/// it and its qualified name.
pub fn function_key(path: &str, function: &str) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    for part in [path, function] {
        h.update(part.as_bytes());
        h.update([0]);
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// What a run says of the gaps of earlier comments.
#[derive(Clone, Debug, Default)]
pub struct Closing {
    /// For each fingerprint a mutant of this run answers to (identical mutants of a function
    /// answer to each other's), the statuses of those mutants.
    statuses: HashMap<String, Vec<MutantStatus>>,
    /// The functions (by [`function_key`]) whose mutants this run listed.
    analysed: HashSet<String>,
    /// For each "not reached" note's fingerprint of a function whose self-check this run
    /// tested: whether a test reached it.
    reached: HashMap<String, bool>,
    /// Why the run left work undone, if it did: "the time budget ran out".
    stopped: Option<String>,
}

/// What the run says of one earlier gap.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fate {
    /// Its mutant was tested in this run and killed (or no longer builds): closed, and why.
    Closed(&'static str),
    /// It stays open, and why.
    Open(String),
}

impl Closing {
    /// What `report` says, its paths under `prefix` (the project's folder in the repository).
    pub fn of(report: &Report, prefix: &str) -> Closing {
        let mut out = Closing {
            stopped: (!report.complete).then(|| report.stopped_because().to_string()),
            ..Closing::default()
        };
        for t in &report.targets {
            let Some(mr) = &t.mutation else { continue };
            let function = &t.target.qualified_name;
            if let Some(killed) = mr.self_check_killed {
                let path = Report::prefixed(prefix, &t.target.file);
                out.reached.insert(Report::unreached_fingerprint(&path, function), killed);
            }
            // Identical mutants of a function, by their first fingerprint: the first one and
            // every one's status.
            let mut groups: HashMap<String, (&MutantReport, String, Vec<MutantStatus>)> =
                HashMap::new();
            for m in &mr.mutants {
                let path = Report::prefixed(prefix, &m.file);
                let key = m.gap_fingerprint(&path, function, 0);
                groups.entry(key).or_insert_with(|| (m, path, Vec::new())).2.push(m.status);
            }
            for (first, path, statuses) in groups.into_values() {
                out.analysed.insert(function_key(&path, function));
                for ordinal in 0..statuses.len() {
                    let fp = first.gap_fingerprint(&path, function, ordinal);
                    out.statuses.insert(fp, statuses.clone());
                }
            }
        }
        out
    }

    /// What this run says of the gap `fingerprint` of an earlier comment, whose marker named its
    /// function (`function`, a [`function_key`]) when the rules made its mutant.
    pub fn fate(&self, fingerprint: &str, function: Option<&str>) -> Fate {
        let untested = || match &self.stopped {
            Some(why) => format!("its mutant was not tested in this run ({why})"),
            None => "its mutant was not tested in this run".to_string(),
        };
        match self.reached.get(fingerprint) {
            Some(true) => return Fate::Closed("a test now reaches its function"),
            Some(false) => return Fate::Open("no test of this run reaches its function".into()),
            None => {}
        }
        match self.statuses.get(fingerprint) {
            Some(s)
                if s.iter().all(|s| matches!(s, MutantStatus::Killed | MutantStatus::Timeout)) =>
            {
                Fate::Closed("the tests now kill its mutant")
            }
            Some(s) if s.iter().all(|s| matches!(s, MutantStatus::Unviable)) => {
                Fate::Closed("its mutant no longer builds")
            }
            Some(s) if s.contains(&MutantStatus::NotTested) => Fate::Open(untested()),
            Some(s) if s.contains(&MutantStatus::NotReached) => {
                Fate::Open("no test of this run reaches its function".into())
            }
            Some(s) if s.contains(&MutantStatus::Survived) => Fate::Open(
                "its mutant still passes every test (this run found no input that tells it apart)"
                    .into(),
            ),
            Some(_) => Fate::Open("its mutant's code is not compiled under these features".into()),
            None => match function {
                Some(f) if self.analysed.contains(f) => {
                    Fate::Closed("its mutant no longer exists in the code")
                }
                Some(_) => Fate::Open("its function was not analysed in this run".into()),
                None => Fate::Open(
                    "its mutant is not among this run's (a model-written one, or a comment of an \
                     older abex): its absence proves nothing"
                        .into(),
                ),
            },
        }
    }
}

#[cfg(test)]
impl Closing {
    /// A run in which the mutants of the fingerprints of `statuses` had those statuses, that
    /// analysed the functions `analysed` (keys) and stopped `stopped` ("the time budget ran
    /// out") if it did.
    pub(crate) fn with<'a>(
        statuses: impl IntoIterator<Item = (&'a str, MutantStatus)>,
        analysed: &[String],
        stopped: Option<&str>,
    ) -> Closing {
        Closing {
            statuses: statuses.into_iter().map(|(fp, s)| (fp.to_string(), vec![s])).collect(),
            analysed: analysed.iter().cloned().collect(),
            reached: HashMap::new(),
            stopped: stopped.map(str::to_string),
        }
    }

    /// This run, where the function of the "not reached" note `fingerprint` had its
    /// self-check tested: killed (`reached`) or not.
    pub(crate) fn with_note(mut self, fingerprint: &str, reached: bool) -> Closing {
        self.reached.insert(fingerprint.to_string(), reached);
        self
    }
}
