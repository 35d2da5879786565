//! The model response cache under `.abex/cache/llm/`: a re-run of the same commit replays the
//! answers instead of paying for them.
//!
//! An entry is keyed by SHA-256 of the canonical JSON of the request (model, temperature,
//! messages, the answer's declared shape and `max_tokens`) and holds the answer's JSON and its
//! usage, in a versioned envelope. Writes go to a temporary file in the same folder and are
//! renamed into place, so two concurrent runs never read a torn entry (the last writer wins, with
//! the same content for the same key). A cache failure never fails a run, and an entry git
//! tracks (one a pull request committed) is never read.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::client::{Request, Usage};

/// Format of an entry; bump it to invalidate every entry.
const FORMAT: &str = "abex-llm-response";
const VERSION: u32 = 1;

/// One stored answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// Always `abex-llm-response`.
    pub format: String,
    /// The entry format version.
    pub version: u32,
    /// The answer's JSON.
    pub json: serde_json::Value,
    /// What it cost when it was made.
    pub usage: Usage,
}

/// The response cache of a project.
pub struct ResponseCache {
    dir: PathBuf,
    /// Its files that git tracks (a pull request can commit answers): never read.
    tracked: std::collections::BTreeSet<PathBuf>,
}

impl ResponseCache {
    /// The cache under `root/.abex/cache/llm`.
    pub fn open(root: &Path) -> ResponseCache {
        let dir = root.join(".abex").join("cache").join("llm");
        ResponseCache { tracked: crate::cache::tracked(root, &dir), dir }
    }

    /// The key of a request.
    pub fn key(req: &Request) -> String {
        let canonical = serde_json::to_vec(req).unwrap_or_default();
        crate::fingerprint::key(&[FORMAT.as_bytes(), &canonical])
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir.join(&key[..2]).join(format!("{key}.json"))
    }

    /// The stored answer for `key`, if any (an unreadable or other-version entry is a miss).
    pub fn get(&self, key: &str) -> Option<Entry> {
        let path = self.path(key);
        if self.tracked.contains(&path) {
            return None;
        }
        let text = std::fs::read_to_string(path).ok()?;
        let e: Entry = serde_json::from_str(&text).ok()?;
        (e.format == FORMAT && e.version == VERSION).then_some(e)
    }

    /// Stores an answer.
    pub fn put(&self, key: &str, json: &serde_json::Value, usage: Usage) {
        let entry = Entry { format: FORMAT.into(), version: VERSION, json: json.clone(), usage };
        let Ok(bytes) = serde_json::to_vec(&entry) else { return };
        let path = self.path(key);
        if !self.tracked.contains(&path) {
            let _ = crate::atomic::write(&path, &bytes);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::client::{Message, Shape};

    fn req(t: f64) -> Request {
        Request {
            model: "m".into(),
            temperature: t,
            messages: vec![Message::user("hi")],
            shape: Shape { name: "s", schema: serde_json::json!({"type": "object"}) },
            max_tokens: 100,
        }
    }

    #[test]
    fn answers_round_trip_and_keys_depend_on_the_request() {
        let d = tempfile::tempdir().unwrap();
        let c = ResponseCache::open(d.path());
        let (k1, k2) = (ResponseCache::key(&req(0.5)), ResponseCache::key(&req(0.8)));
        assert_ne!(k1, k2);
        assert_eq!(c.get(&k1), None);
        let u = Usage { prompt_tokens: 3, completion_tokens: 4, estimated: false };
        c.put(&k1, &serde_json::json!({"x": 1}), u);
        assert_eq!(c.get(&k1).unwrap().json, serde_json::json!({"x": 1}));
        assert_eq!(c.get(&k1).unwrap().usage, u);
        assert_eq!(c.get(&k2), None);
    }

    #[test]
    fn concurrent_writers_of_one_key_leave_a_whole_entry() {
        let d = tempfile::tempdir().unwrap();
        let k = ResponseCache::key(&req(0.5));
        let big = serde_json::json!({"x": "y".repeat(200_000)});
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    let c = ResponseCache::open(d.path());
                    for _ in 0..10 {
                        c.put(&k, &big, Usage::default());
                        if let Some(e) = c.get(&k) {
                            assert_eq!(e.json, big);
                        }
                    }
                });
            }
        });
    }
}
