//! Fingerprints: SHA-256 of a list of byte strings, in hex. Every key abex derives from content
//! goes through [`key`]: results cache entries, model response cache entries, strategy ids,
//! function and shape fingerprints, the hash that marks a cut text in a report, witness seeds.
//!
//! This module depends on nothing else in the crate, so that the value model can hash without
//! reaching the cache (and, through it, the report).

use sha2::{Digest, Sha256};

/// Salt of every fingerprint, before the abex version. It is the results cache's format version
/// (`cache.rs`): bumping it invalidates every cache entry, and changes every other fingerprint
/// with them.
const SALT: &str = "abex-results-1";

/// SHA-256 of the salt, the abex version and the parts, each part length-prefixed so that
/// boundaries between parts count; 64 hex digits.
pub fn key(parts: &[&[u8]]) -> String {
    let mut h = Sha256::new();
    h.update(SALT.as_bytes());
    h.update(env!("CARGO_PKG_VERSION").as_bytes());
    for p in parts {
        h.update((p.len() as u64).to_le_bytes());
        h.update(p);
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_depend_on_every_part_and_on_where_parts_end() {
        let a = key(&[b"ab", b"c"]);
        assert_eq!(a, key(&[b"ab", b"c"]));
        assert_ne!(a, key(&[b"a", b"bc"]));
        assert_ne!(a, key(&[b"ab", b"d"]));
        assert_eq!(a.len(), 64);
    }
}
