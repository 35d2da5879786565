//! Exploration strategies and the strategy library.
//!
//! A strategy (paper 000, section 3.1) is a mode (generation or mutation), a type (generic or
//! context-aware) and ordered steps in natural language, with statistics of how it did. The
//! library keeps strategies across runs under `.abex/cache/strategies/`, one file per strategy
//! in a folder per shape fingerprint (the parameter types), each file recording the function
//! fingerprint it was learnt on. A later run seeds its pool with the best strategies learnt on
//! the same function first, then on functions of the same shape. One file per strategy, written
//! atomically, keeps two concurrent runs from tearing entries (the later one's statistics win).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Generation builds pairs from the signature; mutation changes a pair from the archive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// From scratch.
    Generation,
    /// From an archive pair.
    Mutation,
}

/// Whether a strategy may use the function's source and doc.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// Type-driven only.
    Generic,
    /// Uses the source and doc.
    ContextAware,
}

/// How a strategy did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    /// Explorer calls under it.
    pub uses: u64,
    /// Calls after which the archive gained a cell or a better pair.
    pub successes: u64,
    /// Success rate decayed over time: `0.7·old + 0.3·last`.
    pub decayed: f64,
}

impl Stats {
    /// Records one call's result.
    pub fn record(&mut self, success: bool) {
        self.uses += 1;
        self.successes += success as u64;
        self.decayed = 0.7 * self.decayed + 0.3 * f64::from(u8::from(success));
    }

    /// The overall success rate.
    pub fn rate(&self) -> f64 {
        if self.uses == 0 {
            0.0
        } else {
            self.successes as f64 / self.uses as f64
        }
    }
}

/// One strategy.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Strategy {
    /// A short name.
    pub name: String,
    /// Generation or mutation.
    pub mode: Mode,
    /// Generic or context-aware.
    #[serde(rename = "type")]
    pub kind: Kind,
    /// Ordered steps.
    pub steps: Vec<String>,
    /// Its statistics.
    #[serde(default)]
    pub stats: Stats,
}

impl Strategy {
    /// The pool's starting strategy (paper 000: one context-aware baseline).
    pub fn baseline() -> Strategy {
        Strategy {
            name: "baseline".into(),
            mode: Mode::Generation,
            kind: Kind::ContextAware,
            steps: vec![
                "Read the signature and doc for the conditions that split the input space.".into(),
                "For each condition, pick the values just inside and just outside it.".into(),
                "Pair each with its nearest neighbour on the other side.".into(),
            ],
            stats: Stats::default(),
        }
    }

    /// The steps on one line, numbered.
    pub fn steps_text(&self) -> String {
        self.steps
            .iter()
            .enumerate()
            .map(|(i, s)| format!("{}. {s}", i + 1))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// A stable id for the library file.
    fn id(&self) -> String {
        let mode = serde_json::to_string(&(self.mode, self.kind)).unwrap_or_default();
        crate::fingerprint::key(&[b"strategy", mode.as_bytes(), self.steps.join("\n").as_bytes()])
            [..16]
            .to_string()
    }
}

/// Format of a library entry.
const FORMAT: &str = "abex-strategy";
const VERSION: u32 = 1;

/// A library entry.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Entry {
    format: String,
    version: u32,
    /// The function fingerprint it was learnt on.
    function: String,
    strategy: Strategy,
}

/// The strategy library of a project.
pub struct Library {
    dir: PathBuf,
}

impl Library {
    /// The library under `root/.abex/cache/strategies`.
    pub fn open(root: &Path) -> Library {
        Library { dir: root.join(".abex").join("cache").join("strategies") }
    }

    /// Up to `max` strategies that succeeded before: learnt on `function` first, then on the
    /// same `shape`, best success rate first.
    pub fn seeds(&self, function: &str, shape: &str, max: usize) -> Vec<Strategy> {
        let Ok(rd) = std::fs::read_dir(self.dir.join(shape)) else { return Vec::new() };
        let mut found: Vec<(bool, Strategy)> = rd
            .flatten()
            .filter_map(|e| std::fs::read_to_string(e.path()).ok())
            .filter_map(|t| serde_json::from_str::<Entry>(&t).ok())
            .filter(|e| {
                e.format == FORMAT && e.version == VERSION && e.strategy.stats.successes > 0
            })
            .map(|e| (e.function == function, e.strategy))
            .collect();
        found.sort_by(|(sa, a), (sb, b)| {
            sb.cmp(sa).then(b.stats.rate().total_cmp(&a.stats.rate())).then(a.name.cmp(&b.name))
        });
        found.into_iter().take(max).map(|(_, s)| s).collect()
    }

    /// Saves `strategy` with its statistics (the baseline is built in and not saved).
    pub fn save(&self, function: &str, shape: &str, strategy: &Strategy) {
        if strategy.stats.uses == 0
            || *strategy == (Strategy { stats: strategy.stats, ..Strategy::baseline() })
        {
            return;
        }
        let e = Entry {
            format: FORMAT.into(),
            version: VERSION,
            function: function.into(),
            strategy: strategy.clone(),
        };
        let Ok(bytes) = serde_json::to_vec_pretty(&e) else { return };
        let path = self.dir.join(shape).join(format!("{}.json", strategy.id()));
        let _ = crate::atomic::write(&path, &bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(name: &str, uses: u64, successes: u64) -> Strategy {
        Strategy {
            name: name.into(),
            mode: Mode::Mutation,
            kind: Kind::Generic,
            steps: vec![format!("{name} step")],
            stats: Stats { uses, successes, decayed: 0.0 },
        }
    }

    #[test]
    fn decayed_rate_weighs_recent_calls_more() {
        let mut st = Stats::default();
        for ok in [true, true, false, false] {
            st.record(ok);
        }
        assert_eq!((st.uses, st.successes), (4, 2));
        assert_eq!(st.rate(), 0.5);
        assert!(st.decayed < 0.5 && st.decayed > 0.1, "{}", st.decayed);
    }

    #[test]
    fn seeds_come_from_the_same_function_first_then_the_same_shape() {
        let d = tempfile::tempdir().unwrap();
        let lib = Library::open(d.path());
        lib.save("f1", "shape", &s("own-weak", 10, 1));
        lib.save("f2", "shape", &s("other-strong", 10, 9));
        lib.save("f2", "shape", &s("never-worked", 10, 0));
        lib.save("f3", "other-shape", &s("elsewhere", 10, 9));
        lib.save(
            "f1",
            "shape",
            &Strategy {
                stats: Stats { uses: 3, successes: 3, decayed: 0.9 },
                ..Strategy::baseline()
            },
        );
        let names: Vec<String> = lib.seeds("f1", "shape", 5).into_iter().map(|s| s.name).collect();
        assert_eq!(names, ["own-weak", "other-strong"]);
        assert_eq!(lib.seeds("f1", "shape", 1)[0].name, "own-weak");
        assert!(lib.seeds("f1", "nothing", 5).is_empty());
    }
}
