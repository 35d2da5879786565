//! Floats, `f32` and `f64`: boundary constants, random samples, one-step neighbours, and
//! midpoints by representation, so that repeated bisection ends at two adjacent floats.

use rand::seq::IndexedRandom;
use rand::Rng;

use crate::value::Value;

/// Boundary constants for `f64` (the `f32` ones are derived from `f32` limits).
const F64_CONSTS: &[f64] = &[
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    -0.5,
    0.1,
    2.0,
    10.0,
    100.0,
    1e-10,
    1e10,
    1e300,
    -1e300,
    f64::MIN_POSITIVE,
    f64::EPSILON,
    5e-324,
    f64::MAX,
    f64::MIN,
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
];

/// Boundary constants for `f32`, as `f32` values.
const F32_CONSTS: &[f32] = &[
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    -0.5,
    0.1,
    2.0,
    10.0,
    100.0,
    1e-10,
    1e10,
    1e30,
    -1e30,
    f32::MIN_POSITIVE,
    f32::EPSILON,
    1e-45,
    f32::MAX,
    f32::MIN,
    f32::NAN,
    f32::INFINITY,
    f32::NEG_INFINITY,
];

const SIGN64: u64 = 1 << 63;
const SIGN32: u32 = 1 << 31;

/// A monotone map from non-NaN floats to integers: consecutive representable values have
/// consecutive keys (`-0.0` is −1, `0.0` is 0), so bisection on keys converges to adjacent floats.
fn float_key(bits: u8, x: f64) -> i64 {
    if bits == 32 {
        let b = (x as f32).to_bits();
        let mag = (b & !SIGN32) as i64;
        if b & SIGN32 != 0 {
            -mag - 1
        } else {
            mag
        }
    } else {
        let b = x.to_bits();
        let mag = (b & !SIGN64) as i64;
        if b & SIGN64 != 0 {
            -mag - 1
        } else {
            mag
        }
    }
}

fn float_from_key(bits: u8, k: i64) -> f64 {
    if bits == 32 {
        let b = if k >= 0 { k as u32 } else { (-(k + 1)) as u32 | SIGN32 };
        f32::from_bits(b) as f64
    } else {
        let b = if k >= 0 { k as u64 } else { (-(k + 1)) as u64 | SIGN64 };
        f64::from_bits(b)
    }
}

/// Rounds to the float type's precision.
fn round_float(bits: u8, x: f64) -> f64 {
    if bits == 32 {
        x as f32 as f64
    } else {
        x
    }
}

/// The next representable float above (`up`) or below `x`, stopping at the infinities.
fn float_step(bits: u8, x: f64, up: bool) -> f64 {
    let top = float_key(bits, f64::INFINITY);
    let k = float_key(bits, x);
    let n = if up { (k + 1).min(top) } else { (k - 1).max(-top - 1) };
    float_from_key(bits, n)
}

pub(super) fn random_float(bits: u8, constant: bool, rng: &mut impl Rng) -> f64 {
    if constant {
        return if bits == 32 {
            *F32_CONSTS.choose(rng).unwrap_or(&0.0) as f64
        } else {
            *F64_CONSTS.choose(rng).unwrap_or(&0.0)
        };
    }
    let x = match rng.random_range(0..4) {
        0 => rng.random_range(-1.0..1.0) * 10f64.powi(rng.random_range(-3..=6)),
        1 => rng.random_range(-100i32..=100) as f64,
        2 => rng.random_range(-1000.0..1000.0),
        _ => loop {
            let x = if bits == 32 {
                f32::from_bits(rng.random()) as f64
            } else {
                f64::from_bits(rng.random())
            };
            if x.is_finite() {
                break x;
            }
        },
    };
    round_float(bits, x)
}

pub(super) fn float_neighbour(bits: u8, v: &Value, rng: &mut impl Rng) -> Option<Value> {
    let x = match v {
        Value::Float(x) if !x.is_nan() => round_float(bits, *x),
        _ => return Some(Value::Float(0.0)),
    };
    for _ in 0..8 {
        let y = match rng.random_range(0..10) {
            0..=3 => float_step(bits, x, rng.random()),
            4 => x + 1.0,
            5 => x - 1.0,
            6 => x * 2.0,
            7 => x / 2.0,
            8 => -x,
            _ => float_step(bits, x, rng.random()),
        };
        let y = round_float(bits, y);
        if !y.is_nan() && y != x {
            return Some(Value::Float(y));
        }
    }
    // `±0.0` steps onto the other zero first, which is equal; step once more.
    let up = x != f64::INFINITY;
    let mut y = float_step(bits, x, up);
    if y == x {
        y = float_step(bits, y, up);
    }
    (y != x).then_some(Value::Float(y))
}

pub(super) fn float_midpoint(bits: u8, a: &Value, b: &Value) -> Option<Value> {
    let (Value::Float(x), Value::Float(y)) = (a, b) else {
        return None;
    };
    if x.is_nan() || y.is_nan() {
        return None;
    }
    let (kx, ky) = (float_key(bits, *x) as i128, float_key(bits, *y) as i128);
    let (lo, hi) = if kx < ky { (kx, ky) } else { (ky, kx) };
    if hi - lo <= 1 {
        return None;
    }
    Some(Value::Float(float_from_key(bits, (lo + (hi - lo) / 2) as i64)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inputs::midpoint;
    use crate::value::Ty;

    #[test]
    fn float_midpoints_converge_to_adjacent_representable_values() {
        for bits in [32u8, 64] {
            let ty = Ty::Float { bits };
            let mut lo = Value::Float(-1e30);
            let mut hi = Value::Float(f64::INFINITY);
            let mut steps = 0;
            while let Some(m) = midpoint(&ty, &lo, &hi) {
                let Value::Float(x) = m else { unreachable!() };
                assert!(bits == 64 || (x as f32) as f64 == x);
                if x >= 0.1 {
                    hi = m;
                } else {
                    lo = m;
                }
                steps += 1;
            }
            assert!(steps <= 66, "{steps}");
            let (Value::Float(a), Value::Float(b)) = (lo, hi) else { unreachable!() };
            assert!(a < 0.1 && b >= 0.1);
            assert_eq!(float_step(bits, a, true), b, "adjacent in f{bits}");
        }
        let f = Ty::Float { bits: 64 };
        assert_eq!(midpoint(&f, &Value::Float(-0.0), &Value::Float(0.0)), None);
        assert_eq!(midpoint(&f, &Value::Float(f64::NAN), &Value::Float(1.0)), None);
        let m = midpoint(&f, &Value::Float(f64::MAX), &Value::Float(f64::INFINITY));
        assert_eq!(m, None);
        let m = midpoint(&f, &Value::Float(1.0), &Value::Float(1.0 + 2.0 * f64::EPSILON));
        assert_eq!(m, Some(Value::Float(1.0 + f64::EPSILON)));
    }
}
