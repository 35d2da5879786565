//! When two values count as the same input: when they are `==` or render to the same JSON, so
//! that `0.0` and `-0.0` (equal, so not a pair) and two `NaN`s (same text, so one memoised input)
//! never count as different.

use crate::value::Value;

/// Whether two values count as the same input.
pub fn same(a: &Value, b: &Value) -> bool {
    a == b || a.to_json() == b.to_json()
}

/// Whether two lists hold the same inputs, element by element.
pub(super) fn same_list(a: &[Value], b: &[Value]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y))
}
