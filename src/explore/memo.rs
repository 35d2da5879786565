//! What a run knows of its inputs: the outcome of every argument list run so far, keyed by the
//! list's compact JSON, and the hash of an unordered pair of keys by which the search and
//! refinement remember the pairs they have seen. Functions are assumed deterministic, so no input
//! runs twice.

use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use crate::value::{Outcome, Value};

/// An input's outcome and its stringified form.
pub(super) struct Known {
    pub(super) outcome: Outcome,
    pub(super) text: String,
}

/// The outcomes known so far, by memo key ([`args_key`]).
#[derive(Default)]
pub(super) struct Memo {
    known: HashMap<String, Known>,
}

impl Memo {
    /// The outcome of `args`, if it has run.
    pub(super) fn get(&self, args: &[Value]) -> Option<&Known> {
        self.by_key(&args_key(args))
    }

    /// The outcome of the argument list whose memo key is `key`, if it has run.
    pub(super) fn by_key(&self, key: &str) -> Option<&Known> {
        self.known.get(key)
    }

    pub(super) fn insert(&mut self, key: String, outcome: Outcome) {
        let text = outcome.stringify();
        self.known.insert(key, Known { outcome, text });
    }
}

/// The memo key of an argument list: the compact JSON of the list.
pub(super) fn args_key(args: &[Value]) -> String {
    let mut s = String::from("[");
    for (i, v) in args.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        s.push_str(&v.to_json());
    }
    s.push(']');
    s
}

/// A hash of the unordered pair `{x, y}`.
pub(super) fn hash_unordered(x: &str, y: &str) -> u64 {
    let (lo, hi) = if x <= y { (x, y) } else { (y, x) };
    let mut h = DefaultHasher::new();
    lo.hash(&mut h);
    hi.hash(&mut h);
    h.finish()
}
