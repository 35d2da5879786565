//! The axes of a boundary map: a linear scale for a narrow range, a symmetric logarithmic one
//! (`sign(v)·ln(1 + |v|)`, linear near zero) for a wide one, so that a boundary at 60 and an
//! input at 2³¹ both find a place; `false`/`true` for a boolean. Ticks are round numbers.

use super::markup::num;

/// Ranges wider than this are drawn on the symmetric logarithmic scale.
const LOG_ABOVE: f64 = 2000.0;

/// What an axis carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AxisKind {
    /// Integers or floats.
    Number,
    /// `false` (0) and `true` (1).
    Bool,
}

/// A map from data values to pixels along one axis.
#[derive(Clone, Debug)]
pub struct Scale {
    lo: f64,
    hi: f64,
    log: bool,
    kind: AxisKind,
    from: f64,
    to: f64,
}

fn symlog(v: f64) -> f64 {
    v.signum() * v.abs().ln_1p()
}

impl Scale {
    /// A scale over `values` (finite ones), drawn from pixel `from` to pixel `to`.
    pub fn fit(values: &[f64], kind: AxisKind, from: f64, to: f64) -> Scale {
        let finite = values.iter().copied().filter(|v| v.is_finite());
        let (mut lo, mut hi) =
            finite.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(v), hi.max(v)));
        if kind == AxisKind::Bool || lo > hi {
            (lo, hi) = (0.0, 1.0);
        }
        if lo == hi {
            (lo, hi) = (lo - 1.0, hi + 1.0);
        }
        let log = kind == AxisKind::Number && hi - lo > LOG_ABOVE;
        Scale { lo, hi, log, kind, from, to }
    }

    fn t(&self, v: f64) -> f64 {
        if self.log {
            symlog(v)
        } else {
            v
        }
    }

    /// The pixel of value `v` (clamped to the axis).
    pub fn at(&self, v: f64) -> f64 {
        let (a, b) = (self.t(self.lo), self.t(self.hi));
        let f = ((self.t(v) - a) / (b - a)).clamp(0.0, 1.0);
        // A margin of 4% on each side keeps the extreme points off the frame.
        self.from + (self.to - self.from) * (0.04 + 0.92 * f)
    }

    /// Words for the text alternative: "linear" or "symmetric logarithmic".
    pub fn describe(&self) -> &'static str {
        match (self.kind, self.log) {
            (AxisKind::Bool, _) => "false and true",
            (_, true) => "symmetric logarithmic",
            (_, false) => "linear",
        }
    }

    /// Round values to mark on the axis, with their labels.
    pub fn ticks(&self) -> Vec<(f64, String)> {
        if self.kind == AxisKind::Bool {
            return vec![(0.0, "false".into()), (1.0, "true".into())];
        }
        let mut ticks: Vec<f64> = if self.log { self.log_ticks() } else { self.linear_ticks() };
        ticks.retain(|v| (self.lo..=self.hi).contains(v));
        ticks.into_iter().map(|v| (v, num(v))).collect()
    }

    fn linear_ticks(&self) -> Vec<f64> {
        let raw = (self.hi - self.lo) / 5.0;
        let mag = 10f64.powf(raw.log10().floor());
        let step = [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * mag).find(|s| *s >= raw).unwrap_or(mag);
        let step = if step < 1.0 && self.lo.fract() == 0.0 { step.max(1.0) } else { step };
        let first = (self.lo / step).ceil() * step;
        (0..=12).map(|k| first + k as f64 * step).collect()
    }

    fn log_ticks(&self) -> Vec<f64> {
        let top = self.lo.abs().max(self.hi.abs()).log10().ceil() as i32;
        let every = (top / 4).max(1);
        let mut ticks = vec![0.0];
        for p in (0..=top).filter(|p| p % every == 0) {
            let v = 10f64.powi(p);
            ticks.extend([v, -v]);
        }
        ticks.sort_by(f64::total_cmp);
        ticks
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_narrow_range_is_linear_and_a_wide_one_logarithmic() {
        let s = Scale::fit(&[0.0, 100.0], AxisKind::Number, 0.0, 100.0);
        assert_eq!(s.describe(), "linear");
        assert!((s.at(50.0) - 50.0).abs() < 1e-9);
        let ticks: Vec<String> = s.ticks().into_iter().map(|t| t.1).collect();
        assert_eq!(ticks, ["0", "20", "40", "60", "80", "100"]);
        let w = Scale::fit(&[-2147483648.0, 60.0, 2147483647.0], AxisKind::Number, 0.0, 100.0);
        assert_eq!(w.describe(), "symmetric logarithmic");
        // 60 and 61 are apart on the log scale as well, and 0 is in the middle.
        assert!(w.at(61.0) > w.at(60.0));
        assert!((w.at(0.0) - 50.0).abs() < 1e-6);
        assert!(w.ticks().iter().any(|t| t.0 == 10000.0 && t.1 == "10000"));
    }

    #[test]
    fn a_boolean_axis_has_two_ticks_and_one_value_gets_a_range() {
        let b = Scale::fit(&[1.0], AxisKind::Bool, 0.0, 10.0);
        assert_eq!(b.ticks().len(), 2);
        let one = Scale::fit(&[5.0], AxisKind::Number, 0.0, 10.0);
        assert!(one.at(5.0) > 0.0 && one.at(5.0) < 10.0);
        let none = Scale::fit(&[f64::NAN], AxisKind::Number, 0.0, 10.0);
        assert!(none.at(0.5).is_finite());
    }
}
