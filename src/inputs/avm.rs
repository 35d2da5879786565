//! The alternating variable method (Korel 1990) over an argument list, for any objective: from a
//! start, one variable at a time (see `moves`), exploratory moves (±1; for floats, finer steps
//! when ±1 fails) and, in the direction that improved, accelerating pattern moves (doubling
//! steps, tried as one batch); out of a local optimum, the variables holding a value that a
//! missed guard compared set to the other operand (`steer`), then moves of two numbers at once
//! and every number scaled. The witness search minimises a mutant's distance to infection with it, the
//! explorer's threshold operator a comparison's distance to its threshold.
//!
//! The method is deterministic: it draws nothing at random, and tries its moves in a fixed order.

use super::moves::{self, Kind, Var};
use crate::value::{Args, Ty};

/// Pattern moves tried in one batch: the step doubled this many times.
const PATTERN: u32 = 8;

/// Steps of the exploratory moves on a float, coarsest first.
const FLOAT_STEPS: [f64; 8] = [1.0, 0.5, 0.25, 0.125, 0.0625, 0.1, 0.01, 0.001];

/// The factors every number is scaled by to escape a local optimum: small ones, then orders
/// of magnitude either way, for objectives flat over a wide range (an exponent, a digit count:
/// `floor(log10(x)) >= 33` is 19 orders away from 1e14, and ±1 moves change nothing there).
const SCALES: [f64; 13] =
    [2.0, 3.0, 5.0, 10.0, 1e3, 1e6, 1e12, 1e24, 0.1, 1e-3, 1e-6, 1e-12, 1e-24];

/// Escapes from a local optimum per start (see [`escape`]).
const ESCAPES: usize = 4;

/// What the method minimises.
pub(crate) trait Objective {
    /// How good an input is: lower is better.
    type Key: Ord + Copy;
    /// What running inputs can fail with.
    type Error;
    /// The key of each input of `batch` (inputs it does not run get the worst key).
    fn eval(&mut self, batch: &[Args]) -> Result<Vec<Self::Key>, Self::Error>;
    /// Whether the search must stop now (a budget, the clock, a find).
    fn done(&self) -> bool;
    /// Whether `key` is the goal: the method stops there.
    fn goal(&self, key: &Self::Key) -> bool;
    /// The values compared where `x` went the wrong way (a missed guard's operands, as the
    /// worker wrote them), for [`steer`](super::steer); none by default.
    fn compared(&self, _x: &Args) -> Vec<[String; 2]> {
        Vec::new()
    }
}

/// The method from `start` (typed by `params`): where it stopped and its key.
pub(crate) fn avm<O: Objective>(
    params: &[Ty],
    o: &mut O,
    start: Args,
) -> Result<(Args, O::Key), O::Error> {
    let mut x = start;
    let mut fx = o.eval(std::slice::from_ref(&x))?[0];
    let (mut stuck, mut i, mut escapes) = (0, 0, 0);
    while !o.done() && !o.goal(&fx) {
        let vars = moves::vars(params, &x);
        if vars.is_empty() {
            break;
        }
        if stuck >= vars.len() {
            if escapes < ESCAPES && escape(o, &mut x, &mut fx, &vars)? {
                escapes += 1;
                stuck = 0;
                continue;
            }
            break;
        }
        let var = vars[i % vars.len()].clone();
        if optimise(o, &mut x, &mut fx, &var)? {
            stuck = 0;
        } else {
            stuck += 1;
            i += 1;
        }
    }
    Ok((x, fx))
}

/// The index of the best of `keys` that beats `than`.
fn best_below<K: Ord + Copy>(keys: &[K], than: K) -> Option<usize> {
    (0..keys.len()).filter(|&k| keys[k] < than).min_by_key(|&k| keys[k])
}

/// Out of a local optimum, where no single variable's move improves (two fields a guard
/// compares for equality, which move together or not at all; a lattice too coarse for the
/// target: `w * K / (h * h)` jumps over 184 whichever of `w` and `h` moves; a plateau, as of
/// an exponent): first the variables holding a value the objective says was compared, set to
/// the other operand, and the input's numbers and strings made equal to each other (a
/// comparison of values that are not numbers has no distance to climb; see [`super::steer`]);
/// then moves of two numbers at once, by up to ±3 each,
/// and every number scaled by the same factor (which keeps such ratios and makes their steps
/// finer, or crosses orders of magnitude, see [`SCALES`]), tried as one batch; whether one
/// improved.
fn escape<O: Objective>(
    o: &mut O,
    x: &mut Args,
    fx: &mut O::Key,
    vars: &[Var],
) -> Result<bool, O::Error> {
    let mut steered = super::steer::candidates(x, vars, &o.compared(x));
    steered.extend(super::steer::equalised(x, vars));
    if !steered.is_empty() {
        let fs = o.eval(&steered)?;
        if let Some(best) = best_below(&fs, *fx) {
            *x = steered[best].clone();
            *fx = fs[best];
            return Ok(true);
        }
    }
    let numbers: Vec<&Var> = vars
        .iter()
        .filter(|v| matches!(v.kind, Kind::Int { .. } | Kind::Float | Kind::Len { .. }))
        .take(6)
        .collect();
    let mut tries = Vec::new();
    for (a, va) in numbers.iter().enumerate() {
        for vb in &numbers[a + 1..] {
            for da in [-3.0, -2.0, -1.0, 1.0, 2.0, 3.0] {
                for db in [-3.0, -2.0, -1.0, 1.0, 2.0, 3.0] {
                    if let Some(y) = moves::moved(x, va, da).and_then(|y| moves::moved(&y, vb, db))
                    {
                        tries.push(y);
                    }
                }
            }
        }
    }
    for factor in SCALES {
        let mut y = Some(x.clone());
        for v in numbers.iter().filter(|v| !matches!(v.kind, Kind::Len { .. })) {
            y = y.and_then(|y| {
                let now = moves::get(&y, v)?;
                moves::set(&y, v, now * factor).or(Some(y))
            });
        }
        tries.extend(y.filter(|y| y != x));
    }
    let fs = o.eval(&tries)?;
    let Some(best) = best_below(&fs, *fx) else {
        return Ok(false);
    };
    *x = tries[best].clone();
    *fx = fs[best];
    Ok(true)
}

/// Exploratory and pattern moves on one variable until they stop improving; whether any
/// improved.
fn optimise<O: Objective>(
    o: &mut O,
    x: &mut Args,
    fx: &mut O::Key,
    var: &Var,
) -> Result<bool, O::Error> {
    let steps: &[f64] = match var.kind {
        Kind::Float => &FLOAT_STEPS,
        _ => &[1.0],
    };
    let mut improved = false;
    'explore: while !o.done() && !o.goal(fx) {
        for &s in steps {
            let tries: Vec<(f64, Args)> = [s, -s]
                .into_iter()
                .filter_map(|d| moves::moved(x, var, d).map(|a| (d, a)))
                .collect();
            let args: Vec<Args> = tries.iter().map(|(_, a)| a.clone()).collect();
            let fs = o.eval(&args)?;
            let Some(best) = best_below(&fs, *fx) else {
                continue;
            };
            *x = tries[best].1.clone();
            *fx = fs[best];
            improved = true;
            if var.kind != Kind::Toggle {
                pattern(o, x, fx, var, tries[best].0)?;
            }
            continue 'explore;
        }
        break;
    }
    Ok(improved)
}

/// Pattern moves from `x` in the direction of `step`: the step doubled [`PATTERN`] times,
/// tried as one batch; the best one is taken, and doubling goes on from there while the
/// furthest is the best.
fn pattern<O: Objective>(
    o: &mut O,
    x: &mut Args,
    fx: &mut O::Key,
    var: &Var,
    step: f64,
) -> Result<(), O::Error> {
    let mut step = step * 2.0;
    while !o.done() && !o.goal(fx) && step.abs() < 1e300 {
        let tries: Vec<Args> = (0..PATTERN)
            .filter_map(|j| moves::moved(x, var, step * f64::from(1u32 << j)))
            .collect();
        if tries.is_empty() {
            break;
        }
        let fs = o.eval(&tries)?;
        let Some(best) = best_below(&fs, *fx) else {
            break;
        };
        *x = tries[best].clone();
        *fx = fs[best];
        if best + 1 < tries.len() {
            break;
        }
        step *= f64::from(1u32 << PATTERN);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Value;

    /// `|x − y·y − 1000|` on two integers, counting calls.
    struct Square {
        calls: usize,
    }

    impl Objective for Square {
        type Key = i128;
        type Error = ();
        fn eval(&mut self, batch: &[Args]) -> Result<Vec<i128>, ()> {
            self.calls += batch.len();
            Ok(batch
                .iter()
                .map(|a| {
                    let (x, y) = (a[0].as_int().unwrap(), a[1].as_int().unwrap());
                    (x - y * y - 1000).abs()
                })
                .collect())
        }
        fn done(&self) -> bool {
            self.calls > 2000
        }
        fn goal(&self, k: &i128) -> bool {
            *k == 0
        }
    }

    /// `|floor(log10 |x|) − 33|`: flat over each order of magnitude.
    struct Exponent {
        calls: usize,
    }

    impl Objective for Exponent {
        type Key = i64;
        type Error = ();
        fn eval(&mut self, batch: &[Args]) -> Result<Vec<i64>, ()> {
            self.calls += batch.len();
            Ok(batch
                .iter()
                .map(|a| {
                    let x = a[0].as_f64().unwrap().abs();
                    if x == 0.0 {
                        33
                    } else {
                        (x.log10().floor() as i64 - 33).abs()
                    }
                })
                .collect())
        }
        fn done(&self) -> bool {
            self.calls > 2000
        }
        fn goal(&self, k: &i64) -> bool {
            *k == 0
        }
    }

    #[test]
    fn orders_of_magnitude_get_across_a_plateau() {
        let params = [Ty::Float { bits: 64 }];
        let mut o = Exponent { calls: 0 };
        let (x, k) = avm(&params, &mut o, vec![Value::Float(3.5e14)]).unwrap();
        assert_eq!(k, 0, "{x:?}");
    }

    #[test]
    fn the_method_walks_one_variable_at_a_time_to_the_goal() {
        let params = [Ty::int(32, true), Ty::int(32, true)];
        let mut o = Square { calls: 0 };
        let (x, k) = avm(&params, &mut o, vec![Value::Int(0), Value::Int(5)]).unwrap();
        assert_eq!(k, 0, "{x:?}");
        assert!(o.calls < 100, "{} calls", o.calls);
        let mut again = Square { calls: 0 };
        assert_eq!(avm(&params, &mut again, vec![Value::Int(0), Value::Int(5)]).unwrap().0, x);
    }
}
