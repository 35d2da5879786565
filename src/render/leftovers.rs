//! The survivors left without a witness, grouped for people: per function, one group per reason
//! (the same sentence, see `Unwitnessed::describe`), each with its mutants. The terminal text,
//! `summary.md` and `junit.xml` draw them from here, so that the three say the same thing: where
//! the search got stuck first (never reached, never infected, no probe), and last the masked
//! ones, the only ones that read as "probably equivalent". None of them is a gap.

use crate::report::Unwitnessed;
use crate::report::{MutantReport, MutantStatus, MutationReport};

/// Survivors without a witness that share one reason.
#[derive(Debug)]
pub struct Leftover<'a> {
    /// The reason, one sentence ("site never reached (closest approach: …)").
    pub reason: String,
    /// A short name of the stage: `never_reached`, `never_infected`, `no_probe`,
    /// `not_callable` (abex cannot call the function), `masked`, `unsteady` (a witness did not
    /// hold when run again), `reach_unknown` (whether the tests reach the function is not
    /// known), or `not_searched` (the run stopped before its search: time budget or
    /// interruption).
    pub stage: &'static str,
    /// Whether the reason reads as "probably equivalent" (masked only).
    pub probably_equivalent: bool,
    /// The survivors, in line order.
    pub mutants: Vec<&'a MutantReport>,
}

/// The reason of a survivor without a witness, its stage and rank (the order of the groups).
fn reason(u: Option<&Unwitnessed>) -> (String, &'static str, u8) {
    match u {
        Some(u @ Unwitnessed::NeverReached { .. }) => (u.describe(), "never_reached", 0),
        Some(u @ Unwitnessed::NeverInfected { .. }) => (u.describe(), "never_infected", 1),
        Some(u @ Unwitnessed::NoProbe { .. }) => (u.describe(), "no_probe", 2),
        Some(u @ Unwitnessed::NotCallable { .. }) => (u.describe(), "not_callable", 3),
        Some(u @ Unwitnessed::Masked { .. }) => (u.describe(), "masked", 4),
        Some(u @ Unwitnessed::ReachUnknown { .. }) => (u.describe(), "reach_unknown", 3),
        Some(u @ Unwitnessed::NotSearched { .. }) => (u.describe(), "not_searched", 3),
        Some(u @ Unwitnessed::Unsteady { .. }) => (u.describe(), "unsteady", 3),
        // A report written before the reason was recorded.
        None => ("no witness search ran".to_string(), "not_searched", 3),
    }
}

/// The survivors of `m` without a witness, grouped by reason: the stuck searches first (by
/// stage), the masked ones last; groups of one stage by their first line.
pub fn leftovers(m: &MutationReport) -> Vec<Leftover<'_>> {
    let mut groups: Vec<(u8, Leftover<'_>)> = Vec::new();
    let mut left: Vec<&MutantReport> = m
        .mutants
        .iter()
        .filter(|x| x.status == MutantStatus::Survived && x.witness.is_none())
        .collect();
    left.sort_by_key(|x| (x.line, x.column));
    for x in left {
        let (text, stage, rank) = reason(x.unwitnessed.as_ref());
        match groups.iter_mut().find(|(_, g)| g.reason == text) {
            Some((_, g)) => g.mutants.push(x),
            None => groups.push((
                rank,
                Leftover {
                    reason: text,
                    stage,
                    probably_equivalent: stage == "masked",
                    mutants: vec![x],
                },
            )),
        }
    }
    // Stable: groups of one rank stay in the order of their first line.
    groups.sort_by_key(|(rank, _)| *rank);
    groups.into_iter().map(|(_, g)| g).collect()
}

/// One survivor, shortly: "line 52 replace `2` with `3` (92d18e4b)"; the description cut to
/// `max` characters.
pub fn item(x: &MutantReport, max: usize) -> String {
    let d = x.description.replace('\n', " ");
    let d = if d.chars().count() > max {
        format!("{}…", d.chars().take(max.saturating_sub(1)).collect::<String>())
    } else {
        d
    };
    format!("line {} {d} ({})", x.line, &x.id[..x.id.len().min(8)])
}

/// How many survivors without a witness `m` has.
pub fn count(m: &MutationReport) -> usize {
    m.mutants.iter().filter(|x| x.status == MutantStatus::Survived && x.witness.is_none()).count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::MutantCounts;

    fn survivor(id: &str, line: usize, u: Option<Unwitnessed>) -> MutantReport {
        serde_json::from_value(serde_json::json!({
            "id": id, "origin": "rules", "operator": "comparison_boundary",
            "description": "replace `>` with `>=`", "file": "src/lib.rs", "line": line,
            "column": 5, "original": ">", "replacement": ">=", "diff": "", "status": "survived",
            "possibly_equivalent": true, "unwitnessed": u, "time_ms": 1
        }))
        .expect("a mutant report")
    }

    #[test]
    fn leftovers_group_by_reason_with_the_masked_ones_last() {
        let masked = Unwitnessed::Masked { infected_inputs: 2 };
        let far = Unwitnessed::NeverReached { missed_guards: 1, branch_distance: Some(1.0) };
        let m = MutationReport {
            self_check_killed: Some(true),
            reached_by: None,
            test_tool: String::new(),
            counts: MutantCounts::default(),
            mutants: vec![
                survivor("aaaaaaaaaaaa", 3, Some(masked.clone())),
                survivor("bbbbbbbbbbbb", 9, Some(far.clone())),
                survivor("cccccccccccc", 7, Some(far)),
                survivor("dddddddddddd", 1, Some(masked)),
                survivor("eeeeeeeeeeee", 2, None),
            ],
            unpinned: Vec::new(),
            suggested_tests: Vec::new(),
        };
        let groups = leftovers(&m);
        let stages: Vec<&str> = groups.iter().map(|g| g.stage).collect();
        assert_eq!(stages, ["never_reached", "not_searched", "masked"]);
        let ids = |g: &Leftover<'_>| g.mutants.iter().map(|x| x.line).collect::<Vec<_>>();
        assert_eq!(ids(&groups[0]), [7, 9]);
        assert_eq!(ids(&groups[2]), [1, 3]);
        assert!(groups[2].probably_equivalent && !groups[0].probably_equivalent);
        assert_eq!(item(groups[0].mutants[0], 10), "line 7 replace `… (cccccccc)");
        assert_eq!(count(&m), 5);
    }
}
