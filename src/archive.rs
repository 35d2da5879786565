//! The boundary archive (MAP-Elites) and its metrics, exactly as `docs/design.md` defines them
//! (section "Definitions"): four integer descriptors per pair, the program derivative with the
//! bigram-Jaccard output distance, strict-improvement insertion, QD-score, BC count and validity
//! groups.
//!
//! Their fields in the report: `docs/report.md` (section "Boundaries: cells").

use std::collections::{BTreeSet, HashMap};

use serde::{Deserialize, Serialize};

use crate::value::{stringify_arg, stringify_input, Args, Outcome, Value};

/// The archive cell of a pair: exact integers, no binning.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Descriptor(
    /// How many of the two runs raised (0, 1 or 2).
    pub u8,
    /// |len(out1) − len(out2)| of the stringified outputs, in characters.
    pub usize,
    /// len(in1) + len(in2) of the stringified inputs, in characters.
    pub usize,
    /// ⌊(len(in1) − len(in2))² / 2⌋: the sample variance of the two input lengths, floored.
    pub usize,
);

impl Descriptor {
    /// Computes the descriptor of a pair from its stringified inputs and outputs.
    pub fn of(in1: &str, in2: &str, out1: &Outcome, out2: &Outcome) -> Descriptor {
        let (l1, l2) = (in1.chars().count(), in2.chars().count());
        let raised = out1.raised() as u8 + out2.raised() as u8;
        let o1 = out1.stringify().chars().count();
        let o2 = out2.stringify().chars().count();
        let d = l1.abs_diff(l2);
        Descriptor(raised, o1.abs_diff(o2), l1 + l2, d * d / 2)
    }
}

/// Validity group of a boundary: how the two outcomes differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Group {
    /// Both valid, different outputs.
    VV,
    /// One valid, one error.
    VE,
    /// Both errors, different ones.
    EE,
}

impl Group {
    /// The group of two outcomes.
    pub fn of(out1: &Outcome, out2: &Outcome) -> Group {
        match (out1.raised(), out2.raised()) {
            (false, false) => Group::VV,
            (true, true) => Group::EE,
            _ => Group::VE,
        }
    }
}

/// Character n-grams used by the Jaccard distance: distinct bigrams, or distinct characters when
/// either string is shorter than two characters.
fn grams(s: &str, n: usize) -> BTreeSet<&str> {
    let idx: Vec<usize> = s.char_indices().map(|(i, _)| i).chain([s.len()]).collect();
    (0..idx.len().saturating_sub(n)).map(|k| &s[idx[k]..idx[k + n]]).collect()
}

/// Jaccard distance of two strings over their sets of distinct character bigrams (unigrams when
/// either is shorter than 2 characters); two empty strings are at distance 0.
pub fn jaccard(a: &str, b: &str) -> f64 {
    if a == b {
        return 0.0;
    }
    let n = if a.chars().count() < 2 || b.chars().count() < 2 { 1 } else { 2 };
    let (ga, gb) = (grams(a, n), grams(b, n));
    let union = ga.union(&gb).count();
    if union == 0 {
        return 0.0;
    }
    1.0 - ga.intersection(&gb).count() as f64 / union as f64
}

/// Distance between one numeric argument's two values, for the Euclidean input distance.
fn numeric_delta(a: &Value, b: &Value) -> f64 {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => (x - y).unsigned_abs() as f64,
        _ => {
            let (x, y) = (a.as_f64().unwrap_or(0.0), b.as_f64().unwrap_or(0.0));
            if x == y || (x.is_nan() && y.is_nan()) {
                0.0
            } else if !x.is_finite() || !y.is_finite() {
                // A step to or from NaN or an infinity counts as one unit.
                1.0
            } else {
                (x - y).abs()
            }
        }
    }
}

/// Input distance: Euclidean when every argument is numeric; otherwise the mean over arguments
/// of Jaccard on the stringified value for strings and sequences, 0/1 equality for the rest.
pub fn input_distance(i1: &[Value], i2: &[Value]) -> f64 {
    let numeric = |v: &Value| matches!(v, Value::Int(_) | Value::BigUint(_) | Value::Float(_));
    if i1.len() != i2.len() {
        return 1.0;
    }
    if i1.is_empty() {
        return 0.0;
    }
    if i1.iter().chain(i2).all(numeric) {
        return i1.iter().zip(i2).map(|(a, b)| numeric_delta(a, b).powi(2)).sum::<f64>().sqrt();
    }
    let per_arg = |(a, b): (&Value, &Value)| match (a, b) {
        (Value::Str(_) | Value::List(_) | Value::Map(_), _)
        | (_, Value::Str(_) | Value::List(_) | Value::Map(_)) => {
            jaccard(&stringify_arg(a), &stringify_arg(b))
        }
        _ => (a != b) as u8 as f64,
    };
    i1.iter().zip(i2).map(per_arg).sum::<f64>() / i1.len() as f64
}

/// Where a pair came from: which part of the search proposed it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Origin {
    /// The offline operators (random, neighbour, midpoint, around elites).
    #[default]
    Operator,
    /// Bisection of a pair with different outcomes down to adjacent inputs.
    Bisection,
    /// The threshold operator (pairs at a traced comparison's threshold).
    Threshold,
    /// The model's Explorer, under a strategy, with a persona.
    Model {
        /// The strategy's name.
        strategy: String,
        /// The persona's index among the Explorer's personas.
        persona: usize,
    },
}

impl Origin {
    /// The origin's kind: `operator`, `bisection`, `threshold` or `model`.
    pub fn kind(&self) -> &'static str {
        match self {
            Origin::Operator => "operator",
            Origin::Bisection => "bisection",
            Origin::Threshold => "threshold",
            Origin::Model { .. } => "model",
        }
    }
}

/// One evaluated input pair with everything the archive and the report need.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Pair {
    /// The two argument lists.
    pub inputs: [Args; 2],
    /// Their two outcomes.
    pub outcomes: [Outcome; 2],
    /// Jaccard distance of the stringified outputs.
    pub d_out: f64,
    /// Input distance (see [`input_distance`]).
    pub d_in: f64,
    /// Program derivative d_out / d_in (0 when d_in is 0).
    pub pd: f64,
    /// The archive cell.
    pub descriptor: Descriptor,
    /// Which part of the search proposed it.
    #[serde(default)]
    pub origin: Origin,
}

impl Pair {
    /// Scores a pair. Returns `None` for identical inputs, which are not a pair.
    pub fn new(i1: Args, i2: Args, o1: Outcome, o2: Outcome) -> Option<Pair> {
        if i1 == i2 {
            return None;
        }
        let (s1, s2) = (stringify_input(&i1), stringify_input(&i2));
        let d_out = jaccard(&o1.stringify(), &o2.stringify());
        let d_in = input_distance(&i1, &i2);
        let pd = if d_in > 0.0 && d_in.is_finite() { d_out / d_in } else { 0.0 };
        let descriptor = Descriptor::of(&s1, &s2, &o1, &o2);
        Some(Pair {
            inputs: [i1, i2],
            outcomes: [o1, o2],
            d_out,
            d_in,
            pd,
            descriptor,
            origin: Origin::Operator,
        })
    }

    /// The validity group of the pair.
    pub fn group(&self) -> Group {
        Group::of(&self.outcomes[0], &self.outcomes[1])
    }
}

/// What an insertion did to the archive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Insert {
    /// The pair filled an empty cell.
    NewCell,
    /// The pair replaced a cell's elite with a strictly higher PD.
    Improved,
    /// The cell kept its elite.
    Rejected,
}

/// MAP-Elites archive: one elite pair per descriptor cell.
#[derive(Clone, Debug, Default)]
pub struct Archive {
    cells: HashMap<Descriptor, Pair>,
}

impl Archive {
    /// An empty archive.
    pub fn new() -> Archive {
        Archive::default()
    }

    /// Inserts a pair: an empty cell takes it; an occupied one only with a strictly higher PD.
    pub fn insert(&mut self, pair: Pair) -> Insert {
        match self.cells.get_mut(&pair.descriptor) {
            None => {
                self.cells.insert(pair.descriptor, pair);
                Insert::NewCell
            }
            Some(elite) if pair.pd > elite.pd => {
                *elite = pair;
                Insert::Improved
            }
            Some(_) => Insert::Rejected,
        }
    }

    /// QD-score: the sum of PD over cells.
    pub fn qd_score(&self) -> f64 {
        // Summed in the elites' stable order: a float sum depends on its order, and a run must
        // give the same figure for the same seed.
        self.elites().iter().map(|p| p.pd).sum::<f64>() + 0.0
    }

    /// BC count: cells whose elite has PD > 0.
    pub fn bc_count(&self) -> usize {
        self.cells.values().filter(|p| p.pd > 0.0).count()
    }

    /// Number of occupied cells.
    pub fn len(&self) -> usize {
        self.cells.len()
    }

    /// Whether no cell is occupied.
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// The elite of a cell.
    pub fn get(&self, d: &Descriptor) -> Option<&Pair> {
        self.cells.get(d)
    }

    /// Elites in a stable order: strongest PD first, then by descriptor.
    pub fn elites(&self) -> Vec<&Pair> {
        let mut v: Vec<&Pair> = self.cells.values().collect();
        v.sort_by(|a, b| b.pd.total_cmp(&a.pd).then(a.descriptor.cmp(&b.descriptor)));
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(s: &str) -> Outcome {
        Outcome::Ok { value: s.into() }
    }

    fn s(t: &str) -> Value {
        Value::Str(t.into())
    }

    #[test]
    fn the_papers_email_example_lands_in_cell_1_28_11_0() {
        let err =
            Outcome::Error { ty: "ValueError".into(), message: "Invalid email format.".into() };
        let p = Pair::new(vec![s("a@b.co")], vec![s("a@b.c")], ok("Valid"), err).unwrap();
        assert_eq!(p.descriptor, Descriptor(1, 28, 11, 0));
        assert_eq!(p.group(), Group::VE);
    }

    #[test]
    fn jaccard_uses_distinct_bigrams() {
        // "abab" → {ab, ba}; "ab" → {ab}: 1 − 1/2.
        assert_eq!(jaccard("abab", "ab"), 0.5);
        // "night" {ni,ig,gh,ht} vs "nacht" {na,ac,ch,ht}: one shared of seven.
        assert!((jaccard("night", "nacht") - (1.0 - 1.0 / 7.0)).abs() < 1e-12);
        assert_eq!(jaccard("aa", "aaa"), 0.0);
    }

    #[test]
    fn jaccard_falls_back_to_characters_when_either_string_is_short() {
        // "a" vs "ab": unigrams {a} vs {a, b}.
        assert_eq!(jaccard("a", "ab"), 0.5);
        assert_eq!(jaccard("ab", "a"), 0.5);
        assert_eq!(jaccard("", ""), 0.0);
        assert_eq!(jaccard("", "x"), 1.0);
        assert_eq!(jaccard("é", "éa"), 0.5);
    }

    #[test]
    fn numeric_inputs_use_euclidean_distance() {
        let d = input_distance(&[Value::Int(3), Value::Int(4)], &[Value::Int(0), Value::Int(0)]);
        assert_eq!(d, 5.0);
        let f = input_distance(&[Value::Float(1.5)], &[Value::Float(f64::NAN)]);
        assert_eq!(f, 1.0);
    }

    #[test]
    fn mixed_inputs_average_per_argument_distances() {
        // "abab" vs "ab" → 0.5; 7 vs 8 → 1; mean 0.75.
        let d = input_distance(&[s("abab"), Value::Int(7)], &[s("ab"), Value::Int(8)]);
        assert_eq!(d, 0.75);
        let same_num = input_distance(&[s("abab"), Value::Int(7)], &[s("ab"), Value::Int(7)]);
        assert_eq!(same_num, 0.25);
    }

    #[test]
    fn pd_is_output_distance_over_input_distance() {
        let p = Pair::new(vec![Value::Int(2)], vec![Value::Int(4)], ok("ab"), ok("ba")).unwrap();
        assert_eq!(p.d_out, 1.0);
        assert_eq!(p.d_in, 2.0);
        assert_eq!(p.pd, 0.5);
        assert_eq!(p.descriptor, Descriptor(0, 0, 6, 0));
    }

    #[test]
    fn identical_inputs_are_not_a_pair_and_zero_input_distance_gives_zero_pd() {
        assert!(Pair::new(vec![Value::Int(1)], vec![Value::Int(1)], ok("a"), ok("a")).is_none());
        let p = Pair::new(vec![s("aa")], vec![s("aaa")], ok("x"), ok("y")).unwrap();
        assert_eq!(p.pd, 0.0);
    }

    #[test]
    fn an_occupied_cell_takes_only_a_strictly_better_pair() {
        let mut a = Archive::new();
        let p1 = Pair::new(vec![Value::Int(2)], vec![Value::Int(4)], ok("ab"), ok("ba")).unwrap();
        let p2 = Pair::new(vec![Value::Int(3)], vec![Value::Int(4)], ok("ab"), ok("ba")).unwrap();
        assert_eq!(a.insert(p1.clone()), Insert::NewCell);
        assert_eq!(a.insert(p1.clone()), Insert::Rejected);
        // "[3]" and "[4]" land in the same cell as "[2]" and "[4]", with PD 1 > 0.5.
        assert_eq!(p2.descriptor, p1.descriptor);
        assert_eq!(a.insert(p2), Insert::Improved);
        assert_eq!(a.qd_score(), 1.0);
        assert_eq!(a.bc_count(), 1);
        let flat = Pair::new(vec![Value::Int(10)], vec![Value::Int(11)], ok("a"), ok("a")).unwrap();
        assert_eq!(a.insert(flat), Insert::NewCell);
        assert_eq!(a.len(), 2);
        assert_eq!(a.bc_count(), 1);
        assert_eq!(a.qd_score(), 1.0);
    }

    #[test]
    fn validity_groups_follow_the_outcomes() {
        let e = |m: &str| Outcome::Error { ty: "E".into(), message: m.into() };
        assert_eq!(Group::of(&ok("a"), &ok("b")), Group::VV);
        assert_eq!(Group::of(&ok("a"), &Outcome::Panic { message: "p".into() }), Group::VE);
        assert_eq!(Group::of(&e("x"), &e("y")), Group::EE);
    }
}
