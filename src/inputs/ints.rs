//! Integers of every width, `u128` and `i128` included: boundary constants, bituniform samples,
//! one-step neighbours, midpoints, and the shared translation of two integers.

use rand::seq::IndexedRandom;
use rand::Rng;

use super::rng::rng_index;
use crate::value::{Ty, Value};

/// Domain constants that often sit on a boundary (calendar, percent, byte, port, time).
const DOMAIN_INTS: &[u128] = &[
    2, 3, 7, 10, 12, 13, 24, 28, 29, 30, 31, 59, 60, 100, 127, 128, 255, 256, 365, 366, 400, 1000,
    1024, 1900, 1970, 2000, 2024, 2100, 3600, 9999, 10000, 65535, 65536, 86400, 1_000_000,
];

/// An integer type's range. Values are addressed by their offset from the minimum, so that every
/// width, `u128` and `i128` included, is handled in one `u128` space without overflow.
#[derive(Clone, Copy, Debug)]
pub(super) struct IntRange {
    min: i128,
    max: u128,
    signed: bool,
    bits: u8,
}

impl IntRange {
    pub(super) fn new(bits: u8, signed: bool) -> IntRange {
        let bits = bits.clamp(2, 128);
        let (min, max) = Ty::int_range(bits, signed);
        IntRange { min, max, signed, bits }
    }

    /// The largest offset (`max − min`).
    fn span(self) -> u128 {
        self.max.wrapping_sub(self.min as u128)
    }

    /// The offset of an integer value, clamped into range; `None` for a non-integer.
    fn offset(self, v: &Value) -> Option<u128> {
        match *v {
            Value::Int(i) if i < self.min => Some(0),
            Value::Int(i) if i >= 0 && i as u128 > self.max => Some(self.span()),
            Value::Int(i) => Some((i as u128).wrapping_sub(self.min as u128)),
            Value::BigUint(u) if u > self.max => Some(self.span()),
            Value::BigUint(u) => Some(u.wrapping_sub(self.min as u128)),
            _ => None,
        }
    }

    /// The value at an offset.
    fn value(self, off: u128) -> Value {
        let raw = (self.min as u128).wrapping_add(off);
        if self.signed || raw <= i128::MAX as u128 {
            Value::Int(raw as i128)
        } else {
            Value::BigUint(raw)
        }
    }

    /// ±`mag` if it is in range.
    fn signed_value(self, neg: bool, mag: u128) -> Option<Value> {
        if neg && mag > 0 {
            if !self.signed || mag > (self.max + 1) {
                return None;
            }
            Some(Value::Int((mag as i128).wrapping_neg()))
        } else if mag <= self.max {
            Some(self.value(mag.wrapping_sub(self.min as u128)))
        } else {
            None
        }
    }

    /// The offset of `2·v` (`double`) or `v / 2`, computed on the value and clamped into range.
    fn scale(self, off: u128, double: bool) -> u128 {
        if self.signed {
            let i = (self.min as u128).wrapping_add(off) as i128;
            let n = if double { i.saturating_mul(2) } else { i / 2 };
            let n = n.clamp(self.min, self.max as i128);
            (n as u128).wrapping_sub(self.min as u128)
        } else if double {
            off.saturating_mul(2).min(self.max)
        } else {
            off / 2
        }
    }
}

/// 0, ±1, MIN, MIN+1, MAX, MAX−1, powers of two and their neighbours, domain constants, and
/// small values up to 16.
pub(super) fn boundary_int(r: IntRange, rng: &mut impl Rng) -> Value {
    let edge = |rng: &mut _| match rng_index(rng, 7) {
        0 => r.value(0),
        1 => r.value(1),
        2 => r.value(r.span()),
        3 => r.value(r.span() - 1),
        4 => r.signed_value(false, 1).unwrap_or(Value::Int(1)),
        5 if r.signed => Value::Int(-1),
        _ => r.signed_value(false, 0).unwrap_or(Value::Int(0)),
    };
    let picked = match rng.random_range(0..12) {
        0..=3 => None,
        // Small values: loop counts, indices, enum-like codes.
        10 | 11 => {
            let v = rng.random_range(0u128..=16);
            r.signed_value(r.signed && rng.random_ratio(1, 4), v)
        }
        4..=6 => {
            let k = rng.random_range(0..r.bits as u32);
            let delta = rng.random_range(-1i8..=1);
            let mag = match delta {
                -1 => (1u128 << k) - 1,
                0 => 1u128 << k,
                _ => (1u128 << k) + 1,
            };
            r.signed_value(r.signed && rng.random_ratio(1, 4), mag)
        }
        _ => {
            let c = *DOMAIN_INTS.choose(rng).unwrap_or(&0);
            r.signed_value(r.signed && rng.random_ratio(1, 4), c)
        }
    };
    picked.unwrap_or_else(|| edge(rng))
}

/// "Bituniform" sampling (AutoBVA): a uniform value shifted right by a uniform number of bits,
/// so that every magnitude is equally likely; plus some small uniform values.
pub(super) fn sampled_int(r: IntRange, rng: &mut impl Rng) -> Value {
    if rng.random_ratio(1, 4) {
        let lo = r.min.max(-1000);
        let hi = (r.max.min(1000)) as i128;
        let i = rng.random_range(lo..=hi);
        return r.signed_value(i < 0, i.unsigned_abs()).unwrap_or(Value::Int(0));
    }
    let width = if r.signed { r.bits as u32 - 1 } else { r.bits as u32 };
    let raw = rng.random::<u128>().checked_shr(128 - width).unwrap_or(0);
    let mag = raw.checked_shr(rng.random_range(0..=width)).unwrap_or(0);
    r.signed_value(r.signed && rng.random(), mag).unwrap_or(Value::Int(0))
}

pub(super) fn int_neighbour(r: IntRange, v: &Value, rng: &mut impl Rng) -> Option<Value> {
    let Some(off) = r.offset(v) else {
        return Some(sampled_int(r, rng));
    };
    let span = r.span();
    for _ in 0..8 {
        let up = rng.random_bool(0.5);
        let cand = match rng.random_range(0..10) {
            0..=5 => {
                if up {
                    off.checked_add(1).filter(|&x| x <= span)
                } else {
                    off.checked_sub(1)
                }
            }
            6..=7 => {
                let step = 1u128 << rng.random_range(1..r.bits as u32);
                if up {
                    Some(off.saturating_add(step).min(span))
                } else {
                    Some(off.saturating_sub(step))
                }
            }
            8 => Some(r.scale(off, true)),
            _ => Some(r.scale(off, false)),
        };
        if let Some(c) = cand.filter(|&c| c != off) {
            return Some(r.value(c));
        }
    }
    if off < span {
        Some(r.value(off + 1))
    } else if off > 0 {
        Some(r.value(off - 1))
    } else {
        None
    }
}

pub(super) fn int_midpoint(r: IntRange, a: &Value, b: &Value) -> Option<Value> {
    let (x, y) = (r.offset(a)?, r.offset(b)?);
    let (lo, hi) = if x < y { (x, y) } else { (y, x) };
    if hi - lo <= 1 {
        return None;
    }
    Some(r.value(lo + (hi - lo) / 2))
}

/// Two integers moved by the same offset (a random place, or a step away), keeping their
/// distance: boundaries that repeat (every fourth year) show up again elsewhere.
pub(super) fn translate(
    r: IntRange,
    a: &Value,
    b: &Value,
    rng: &mut impl Rng,
) -> Option<(Value, Value)> {
    let (x, y) = (r.offset(a)?, r.offset(b)?);
    let (lo, d) = (x.min(y), x.max(y) - x.min(y));
    let room = r.span() - d;
    let to = (0..4).find_map(|_| {
        let to = if rng.random_bool(0.5) {
            r.offset(&sampled_int(r, rng))?.min(room)
        } else {
            let step = 1u128 << rng.random_range(0..r.bits as u32);
            if rng.random() {
                lo.saturating_add(step).min(room)
            } else {
                lo.saturating_sub(step)
            }
        };
        (to != lo).then_some(to)
    })?;
    let (nx, ny) = if x <= y { (to, to + d) } else { (to + d, to) };
    Some((r.value(nx), r.value(ny)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inputs::midpoint;
    use crate::inputs::random_value;
    use crate::inputs::testing::{conforms, rng};

    #[test]
    fn integer_generation_reaches_the_edges_and_spreads_magnitudes() {
        let mut r = rng(2);
        let ty = Ty::int(64, true);
        let vals: Vec<i128> =
            (0..4000).filter_map(|_| random_value(&ty, &mut r).as_int()).collect();
        for edge in [0, 1, -1, i64::MIN as i128, i64::MAX as i128, i64::MAX as i128 - 1, 1000, 1024]
        {
            assert!(vals.contains(&edge), "missing {edge}");
        }
        // Bituniform: many decimal magnitudes appear.
        let digits: std::collections::BTreeSet<usize> =
            vals.iter().map(|v| v.unsigned_abs().to_string().len()).collect();
        assert!(digits.len() >= 15, "{digits:?}");
        let u = Ty::int(128, false);
        let big = (0..2000).any(|_| random_value(&u, &mut r) == Value::BigUint(u128::MAX));
        assert!(big);
        let u8t = Ty::int(8, false);
        assert!((0..500).all(|_| conforms(&u8t, &random_value(&u8t, &mut r))));
    }

    #[test]
    fn integer_midpoints_are_exact_at_every_width() {
        let i64t = Ty::int(64, true);
        assert_eq!(midpoint(&i64t, &Value::Int(0), &Value::Int(10)), Some(Value::Int(5)));
        assert_eq!(midpoint(&i64t, &Value::Int(10), &Value::Int(0)), Some(Value::Int(5)));
        assert_eq!(midpoint(&i64t, &Value::Int(999), &Value::Int(1000)), None);
        assert_eq!(midpoint(&i64t, &Value::Int(-3), &Value::Int(-1)), Some(Value::Int(-2)));
        let i128t = Ty::int(128, true);
        let m = midpoint(&i128t, &Value::Int(i128::MIN), &Value::Int(i128::MAX));
        assert_eq!(m, Some(Value::Int(-1)));
        let m = midpoint(&i128t, &Value::Int(i128::MAX - 2), &Value::Int(i128::MAX));
        assert_eq!(m, Some(Value::Int(i128::MAX - 1)));
        let u128t = Ty::int(128, false);
        let m = midpoint(&u128t, &Value::Int(0), &Value::BigUint(u128::MAX));
        assert_eq!(m, Some(Value::Int(i128::MAX)));
        let m = midpoint(&u128t, &Value::BigUint(u128::MAX - 2), &Value::BigUint(u128::MAX));
        assert_eq!(m, Some(Value::BigUint(u128::MAX - 1)));
        let m = midpoint(&u128t, &Value::Int(i128::MAX), &Value::BigUint(u128::MAX));
        assert_eq!(m, Some(Value::BigUint(i128::MAX as u128 + (1u128 << 126))));
        // Bisection from the extremes reaches the boundary 999/1000 in at most 64 steps.
        let (mut lo, mut hi) = (Value::Int(i64::MIN as i128), Value::Int(i64::MAX as i128));
        let mut steps = 0;
        while let Some(m) = midpoint(&i64t, &lo, &hi) {
            if m.as_int().unwrap() >= 1000 {
                hi = m;
            } else {
                lo = m;
            }
            steps += 1;
        }
        assert_eq!((lo, hi, steps <= 64), (Value::Int(999), Value::Int(1000), true));
    }
}
