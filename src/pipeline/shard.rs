//! Sharding: shard `k` of `n` of a run's targets, for CI matrices.

use crate::targets::Target;

/// Shard `k` (1-based) of `n` of `items`: in file and name order, every `n`-th from the `k`-th,
/// so that the shards of a run split it without overlap, whatever the machine.
pub fn shard<T>(mut items: Vec<T>, target: impl Fn(&T) -> &Target, k: usize, n: usize) -> Vec<T> {
    items.sort_by(|a, b| {
        let (a, b) = (target(a), target(b));
        (&a.file, &a.qualified_name, a.span.start_line).cmp(&(
            &b.file,
            &b.qualified_name,
            b.span.start_line,
        ))
    });
    items.into_iter().enumerate().filter(|(i, _)| i % n == k - 1).map(|(_, c)| c).collect()
}
