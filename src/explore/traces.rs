//! The traces of one exploration run (the original in trace mode, see `exec::probe`): every
//! input run, with its traced comparisons; where one comparison stands at an input ([`Gap`]);
//! and the count of the archive's boundaries that sit exactly at a comparison's threshold
//! ([`Exact`]). The search loop notes every traced call here; the threshold operator
//! (`threshold`) reads them and spends its share of calls from here.

use std::collections::{BTreeSet, HashMap};

use super::memo::args_key;
use crate::archive::Archive;
use crate::exec::{Compared, Probe};
use crate::inputs::moves;
use crate::value::{Args, Ty};

/// The traces of one run, and the threshold operator's spending.
#[derive(Default)]
pub(super) struct Traces {
    /// Every input run, by memo key, with its traced comparisons.
    pub(super) traces: HashMap<String, (Args, Vec<Compared>)>,
    /// Whether the threshold operator has run (once per run).
    pub(super) ran: bool,
    /// Calls the threshold operator may still make.
    pub(super) calls: usize,
    /// Pairs of the budget its calls took beyond the pairs it offered (see `Search::left`).
    pub(super) charged: usize,
}

impl Traces {
    /// Notes the trace of `args`, whose memo key is `key`.
    pub(super) fn note(&mut self, key: String, args: &Args, probe: Option<Probe>) {
        self.traces.insert(key, (args.clone(), probe.map(|p| p.cmps).unwrap_or_default()));
    }

    /// The traced comparisons of the input with memo key `key`.
    pub(super) fn trace(&self, key: &str) -> &[Compared] {
        self.traces.get(key).map_or(&[], |(_, t)| t.as_slice())
    }

    /// Comparison `id` at the input with memo key `key`.
    pub(super) fn at(&self, key: &str, id: u32) -> Option<&Compared> {
        self.trace(key).iter().find(|c| c.id == id)
    }

    /// Where comparison `id` stands at the input with memo key `key`.
    pub(super) fn gap(&self, key: &str, id: u32) -> Gap {
        self.at(key, id)
            .and_then(Compared::diff)
            .map_or(Gap::NONE, |d| Gap { ran: true, d: d.abs() })
    }
}

/// How many of the archive's boundaries sit exactly at a comparison's threshold.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Exact {
    /// Elite pairs (PD > 0) whose two inputs are on either side of one comparison, adjacent
    /// across its threshold: `a − b` is 0 on one side and, on the other, ±1 (integers), within
    /// a millionth of the operands' size (floats), or anything one step of one argument away
    /// (`year % 4 == 0` at 2024 and 2023).
    pub pairs: usize,
    /// Distinct comparisons with at least one such pair.
    pub comparisons: usize,
    /// Distinct comparisons with numeric operands traced on the archive's inputs.
    pub traced: usize,
}

/// Where one comparison stands at an input: whether it ran, and its `|a − b|` (lower is
/// closer to the threshold).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Gap {
    pub(super) ran: bool,
    pub(super) d: f64,
}

impl Gap {
    pub(super) const NONE: Gap = Gap { ran: false, d: f64::INFINITY };
}

impl Eq for Gap {}

impl PartialOrd for Gap {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Gap {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        other.ran.cmp(&self.ran).then(self.d.total_cmp(&other.d))
    }
}

impl Traces {
    /// How many of the archive's boundaries sit exactly at a comparison's threshold (see
    /// [`Exact`]), from the traces of their inputs.
    pub(super) fn exact(&self, archive: &Archive, params: &[Ty]) -> Exact {
        let mut out = Exact::default();
        let (mut seen, mut hit) = (BTreeSet::new(), BTreeSet::new());
        for p in archive.elites().into_iter().filter(|p| p.pd > 0.0) {
            let [a, b] = &p.inputs;
            let ta = self.trace(&args_key(a));
            let tb = self.trace(&args_key(b));
            seen.extend(ta.iter().chain(tb).filter(|c| c.diff().is_some()).map(|c| c.id));
            let mut exact = false;
            for c in ta {
                let Some(d) = tb.iter().find(|d| d.id == c.id) else { continue };
                if adjacent(c, d) || (on_either_side(c, d) && neighbours(params, a, b)) {
                    exact = true;
                    hit.insert(c.id);
                }
            }
            out.pairs += usize::from(exact);
        }
        out.comparisons = hit.len();
        out.traced = seen.len();
        out
    }
}

/// Whether two evaluations of one comparison give different results, one of them exactly at
/// its threshold (`a == b`).
fn on_either_side(c: &Compared, d: &Compared) -> bool {
    let (Some(x), Some(y), Some(p), Some(q)) = (c.diff(), d.diff(), c.holds(), d.holds()) else {
        return false;
    };
    p != q && (x == 0.0 || y == 0.0)
}

/// Whether `y` is `x` with one variable moved by one step.
fn neighbours(params: &[Ty], x: &Args, y: &Args) -> bool {
    moves::vars(params, x)
        .iter()
        .any(|v| [1.0, -1.0].iter().any(|&d| moves::moved(x, v, d).as_ref() == Some(y)))
}

/// Whether two evaluations of one comparison are adjacent across its threshold (see
/// [`Exact::pairs`]).
pub(super) fn adjacent(c: &Compared, d: &Compared) -> bool {
    if !on_either_side(c, d) {
        return false;
    }
    let (x, y) = (c.diff().unwrap_or(f64::NAN), d.diff().unwrap_or(f64::NAN));
    let other = if x == 0.0 { y } else { x };
    if c.integral() && d.integral() {
        return other.abs() == 1.0;
    }
    let size = c.operands.iter().chain(&d.operands).filter_map(|t| t.parse::<f64>().ok());
    other.abs() <= 1e-6 * size.fold(1.0_f64, |m, v| m.max(v.abs()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Value;

    #[test]
    fn pairs_adjacent_across_a_threshold_are_exact() {
        let c =
            |a: &str, b: &str| Compared { id: 1, op: "<".into(), operands: [a.into(), b.into()] };
        assert!(adjacent(&c("184", "185"), &c("185", "185")));
        assert!(!adjacent(&c("183", "185"), &c("185", "185")), "two apart");
        assert!(!adjacent(&c("184", "185"), &c("186", "185")), "straddles from afar");
        assert!(adjacent(&c("37.5", "37.5"), &c("37.49999999999999", "37.5")));
        assert!(!adjacent(&c("37.5", "37.5"), &c("37.4", "37.5")));
        assert!(Gap { ran: true, d: 5.0 } < Gap::NONE);
        assert!(Gap { ran: true, d: 0.0 } < Gap { ran: true, d: 5.0 });
        let params = [Ty::int(32, true), Ty::int(32, true)];
        let x = vec![Value::Int(2024), Value::Int(2)];
        assert!(neighbours(&params, &x, &vec![Value::Int(2023), Value::Int(2)]));
        assert!(!neighbours(&params, &x, &vec![Value::Int(2022), Value::Int(2)]));
    }
}
