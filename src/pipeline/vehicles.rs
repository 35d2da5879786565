//! Vehicles: a target abex cannot call itself is driven through a function that calls it. The
//! front end finds the caller (its call graph); this attaches it to the run's functions.

use crate::targets::{Drive, Target};

/// For each of the first `n` functions of `chosen` (the targets) that cannot be called,
/// `caller` gives a callable function that calls it, if any: it is added to `chosen` after the
/// targets (or found there, when it is a target too), and the target's drive becomes
/// [`Drive::Via`]. Returns each target's vehicle (an index of `chosen`).
pub fn attach<C>(
    chosen: &mut Vec<C>,
    n: usize,
    record: impl Fn(&mut C) -> &mut Target,
    same: impl Fn(&C, &C) -> bool,
    caller: impl Fn(&C) -> Option<C>,
) -> Vec<Option<usize>> {
    let mut vehicles = vec![None; n];
    for i in 0..n {
        let Drive::Unsupported { reason } = record(&mut chosen[i]).drive.clone() else { continue };
        let Some(v) = caller(&chosen[i]) else { continue };
        let at = match chosen.iter().position(|c| same(c, &v)) {
            Some(at) => at,
            None => {
                chosen.push(v);
                chosen.len() - 1
            }
        };
        let name = record(&mut chosen[at]).qualified_name.clone();
        if record(&mut chosen[at]).drive != Drive::Supported {
            continue;
        }
        record(&mut chosen[i]).drive = Drive::Via { caller: name, reason };
        vehicles[i] = Some(at);
    }
    vehicles
}
