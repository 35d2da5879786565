//! Outcome classes: what a boundary map colours its inputs by. Each error type (an `Err`'s
//! type, a Python exception, a panic, a timeout, a crash) is a class; each distinct returned
//! value is a class when there are few of them, and all returned values are one class
//! otherwise. At most [`PALETTE`]`.len()` classes are shown, the rarest folded into "other".

use std::collections::HashMap;

use crate::value::Outcome;

/// Colours of the classes, in order of frequency (Okabe and Ito's colour-blind-safe set).
pub const PALETTE: [&str; 8] =
    ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"];

/// The colour of the folded "other" class.
const OTHER_COLOUR: &str = "#999999";

/// Returned values that each get their own class; more than this are one class.
const DISTINCT_VALUES: usize = 6;

/// The outcome classes of one function's explored inputs.
pub struct Classes {
    /// Labels of the classes, most frequent first; the last is "other" when classes were folded.
    labels: Vec<String>,
    /// Index of each class key.
    index: HashMap<String, usize>,
    /// Whether every returned value is one class.
    values_folded: bool,
    /// Whether the last label is the folded "other" class.
    other: bool,
    /// Class of each stringified outcome seen, for boundaries known only by their strings.
    by_string: HashMap<String, usize>,
}

fn key(o: &Outcome, fold_values: bool) -> String {
    match o {
        Outcome::Ok { .. } if fold_values => "returns a value".into(),
        Outcome::Ok { value } => format!("= {value}"),
        Outcome::Error { ty, .. } => format!("error {ty}"),
        Outcome::Panic { .. } => "panic".into(),
        Outcome::Timeout => "timeout".into(),
        Outcome::Crash { .. } => "crash".into(),
    }
}

impl Classes {
    /// The classes of `outcomes` (with repeats: frequency orders them).
    pub fn of<'a>(outcomes: impl IntoIterator<Item = &'a Outcome>) -> Classes {
        let outcomes: Vec<&Outcome> = outcomes.into_iter().collect();
        let mut values: Vec<&str> = outcomes
            .iter()
            .filter_map(|o| match o {
                Outcome::Ok { value } => Some(value.as_str()),
                _ => None,
            })
            .collect();
        values.sort_unstable();
        values.dedup();
        let values_folded = values.len() > DISTINCT_VALUES;
        let mut counts: HashMap<String, usize> = HashMap::new();
        for o in &outcomes {
            *counts.entry(key(o, values_folded)).or_default() += 1;
        }
        let mut keys: Vec<(String, usize)> = counts.into_iter().collect();
        keys.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let other = keys.len() > PALETTE.len();
        let shown = if other { PALETTE.len() - 1 } else { keys.len() };
        let mut labels: Vec<String> = keys.iter().take(shown).map(|(k, _)| k.clone()).collect();
        let mut index: HashMap<String, usize> =
            labels.iter().enumerate().map(|(i, k)| (k.clone(), i)).collect();
        if other {
            for (k, _) in keys.iter().skip(shown) {
                index.insert(k.clone(), shown);
            }
            labels.push("other outcomes".into());
        }
        let mut classes =
            Classes { labels, index, values_folded, other, by_string: HashMap::new() };
        for o in &outcomes {
            let c = classes.class(o);
            classes.by_string.entry(o.stringify()).or_insert(c);
        }
        classes
    }

    /// The class of an outcome.
    pub fn class(&self, o: &Outcome) -> usize {
        let k = key(o, self.values_folded);
        self.index.get(&k).copied().unwrap_or(self.labels.len().saturating_sub(1))
    }

    /// The class of a stringified outcome seen among the outcomes, if it was.
    pub fn class_of_string(&self, s: &str) -> Option<usize> {
        self.by_string.get(s).copied()
    }

    /// How many classes there are.
    pub fn len(&self) -> usize {
        self.labels.len()
    }

    /// The label of class `i`.
    pub fn label(&self, i: usize) -> &str {
        self.labels.get(i).map_or("", String::as_str)
    }

    /// The colour of class `i`.
    pub fn colour(&self, i: usize) -> &'static str {
        if self.other && i + 1 == self.labels.len() {
            OTHER_COLOUR
        } else {
            PALETTE.get(i).copied().unwrap_or(OTHER_COLOUR)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(v: &str) -> Outcome {
        Outcome::Ok { value: v.into() }
    }

    #[test]
    fn few_values_are_classes_of_their_own_and_errors_go_by_type() {
        let e = |m: &str| Outcome::Error { ty: "PortError".into(), message: m.into() };
        let outcomes = [ok("true"), ok("false"), ok("true"), e("a"), e("b")];
        let c = Classes::of(&outcomes);
        assert_eq!(c.len(), 3);
        assert_eq!(c.label(0), "= true");
        assert_eq!(c.class(&e("c")), c.class(&e("a")));
        assert_ne!(c.class(&ok("true")), c.class(&ok("false")));
        assert_eq!(c.class_of_string("PortError: a"), Some(c.class(&e("x"))));
    }

    #[test]
    fn many_values_fold_into_one_class_and_rare_classes_into_other() {
        let many: Vec<Outcome> = (0..20).map(|i| ok(&i.to_string())).collect();
        let c = Classes::of(&many);
        assert_eq!((c.len(), c.label(0)), (1, "returns a value"));
        let errors: Vec<Outcome> = (0..12)
            .map(|i| Outcome::Error { ty: format!("E{i}"), message: String::new() })
            .collect();
        let c = Classes::of(&errors);
        assert_eq!(c.len(), PALETTE.len());
        assert_eq!(c.label(PALETTE.len() - 1), "other outcomes");
        assert_eq!(c.class(&errors[9]), PALETTE.len() - 1);
        assert_eq!(c.colour(PALETTE.len() - 1), OTHER_COLOUR);
    }
}
