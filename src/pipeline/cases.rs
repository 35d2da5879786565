//! One test per behaviour: after the smallest set is chosen, the chosen tests of one function
//! that sit on the two sides of a boundary (`f(199)` and `f(200)`) become one test that asserts
//! both; where the project's own tests are parametrised, every plain case of a function becomes
//! one `pytest.mark.parametrize` test. A joined test is compiled and run like any other and
//! replaces its cases only when it passes on the original and kills every survivor they killed.

use std::collections::{BTreeMap, BTreeSet};

use super::context::Ctx;
use super::error::{unless_cut, RunError};
use super::front::{Lab, Numbered, Suggestion, Verdict};
use crate::report::{TestOrigin, Witness};
use crate::value::{stringify_input, Outcome, Value};

/// The most cases one parametrised test holds (more are split over several).
const MAX_CASES: usize = 8;

/// A chosen test by its name, and the survivors it kills.
pub(crate) type Chosen = Vec<(String, Vec<u32>)>;

/// Joins the `chosen` tests whose cases belong together (see the module's doc), checked against
/// the `witnessed` survivors their cases killed; returns the chosen tests and the suggestions with the joined ones
/// in place of their cases. `witnesses` holds each survivor's witness, `taken` the names the
/// unit's tests have.
#[allow(clippy::too_many_arguments)]
pub(crate) fn join(
    ctx: &Ctx<'_>,
    lab: &mut dyn Lab,
    chosen: Chosen,
    mut suggestions: Vec<Suggestion>,
    witnesses: &BTreeMap<u32, Witness>,
    mutants: &[Numbered],
    witnessed: &[u32],
    taken: &mut BTreeSet<String>,
) -> Result<(Chosen, Vec<Suggestion>), RunError> {
    let input = |&(_, s): &Member| &witnesses[&suggestions[s].mutant].input;
    // Tables first, then boundary pairs, all checked in one round: a table that does not hold
    // leaves its cases to the pairs.
    let mut joined: Vec<(Suggestion, Vec<usize>)> = Vec::new();
    let parametrises = lab.parametrises();
    for members in by_function(&chosen, &suggestions, witnesses) {
        let mut sets: Vec<(Vec<Member>, bool)> = Vec::new();
        if parametrises {
            // One table of the cases that return a value, one per exception the others raise.
            let mut tables: BTreeMap<&str, Vec<Member>> = BTreeMap::new();
            for &(c, s) in &members {
                match &witnesses[&suggestions[s].mutant].original {
                    Outcome::Ok { .. } => tables.entry("").or_default().push((c, s)),
                    Outcome::Error { ty, .. } => tables.entry(ty).or_default().push((c, s)),
                    _ => {}
                }
            }
            let chunks = tables.values().flat_map(|rows| rows.chunks(MAX_CASES));
            sets.extend(chunks.filter(|set| set.len() > 1).map(|set| (set.to_vec(), true)));
        }
        sets.extend(boundary_pairs(&members, input).into_iter().map(|pair| (pair, false)));
        for (set, table) in sets {
            let made = write(ctx, &*lab, &set, table, &chosen, &suggestions, witnesses, mutants);
            if let Some(s) = made.map(|s| named(s, taken)) {
                joined.push((s, set.iter().map(|&(c, _)| c).collect()));
            }
        }
    }
    if joined.is_empty() || ctx.past_deadline() {
        return Ok((chosen, suggestions));
    }
    let tests: Vec<Suggestion> = joined.iter().map(|(s, _)| s.clone()).collect();
    // A joined test is judged on the survivors its cases killed, so only those run it.
    let needed: BTreeSet<u32> = joined
        .iter()
        .flat_map(|(_, members)| members)
        .flat_map(|&c| &chosen[c].1)
        .copied()
        .collect();
    let needed: Vec<u32> = witnessed.iter().copied().filter(|n| needed.contains(n)).collect();
    // The deadline killed the check: the cases stay as they are.
    let verdicts = unless_cut(lab.check(&tests, &needed))?.unwrap_or_default();
    let mut out: Vec<Option<(String, Vec<u32>)>> = chosen.into_iter().map(Some).collect();
    for (s, members) in joined {
        // A case another joined test took already is not joined twice.
        let free = members.iter().all(|&c| out[c].is_some());
        let union: BTreeSet<u32> =
            members.iter().filter_map(|&c| out[c].as_ref()).flat_map(|(_, k)| k.clone()).collect();
        let keeps_every_kill = matches!(verdicts.get(&s.name),
            Some(Verdict::Passed(killed)) if union.iter().all(|n| killed.contains(n)));
        if !free || !keeps_every_kill {
            taken.remove(&s.name);
            continue;
        }
        out[members[0]] = Some((s.name.clone(), union.into_iter().collect()));
        for &c in &members[1..] {
            out[c] = None;
        }
        suggestions.push(s);
    }
    Ok((out.into_iter().flatten().collect(), suggestions))
}

/// A chosen test: its index in the chosen tests and in the suggestions.
type Member = (usize, usize);

/// The joined test of `set`, named for now by what it pins (see [`named`]): parametrised when
/// `parametrised`.
#[allow(clippy::too_many_arguments)]
fn write(
    ctx: &Ctx<'_>,
    lab: &dyn Lab,
    set: &[Member],
    parametrised: bool,
    chosen: &Chosen,
    suggestions: &[Suggestion],
    witnesses: &BTreeMap<u32, Witness>,
    mutants: &[Numbered],
) -> Option<Suggestion> {
    let first = &suggestions[set[0].1];
    let (target, calls) = (first.target, first.calls);
    let mut cases: Vec<&Witness> =
        set.iter().filter_map(|&(_, s)| witnesses.get(&suggestions[s].mutant)).collect();
    // In the order a person lists them: the smaller input first.
    cases.sort_by(|a, b| order(&a.input, &b.input));
    let name = lab.joined_name(calls, &cases, parametrised);
    let why = why(ctx, target, &cases, set.iter().flat_map(|&(c, _)| &chosen[c].1), mutants);
    let code = lab.joined(calls, &cases, PLACEHOLDER, &why, parametrised)?;
    Some(Suggestion {
        target,
        calls,
        mutant: first.mutant,
        name,
        code,
        rank: 0,
        origin: TestOrigin::Offline,
        repair_rounds: 0,
        spared: Vec::new(),
    })
}

/// The name a joined test is written under until [`named`] gives it its own.
const PLACEHOLDER: &str = "abex_joined_test_name";

/// `s` under its name made unique among `taken`.
fn named(mut s: Suggestion, taken: &mut BTreeSet<String>) -> Suggestion {
    let name = crate::testname::unique(&s.name, taken);
    s.code = s.code.replacen(PLACEHOLDER, &name, 1);
    s.name = name;
    s
}

/// Per function, the chosen tests that can be joined: abex's readable tests with a witness, in
/// the chosen order; only functions with two or more.
fn by_function(
    chosen: &Chosen,
    suggestions: &[Suggestion],
    witnesses: &BTreeMap<u32, Witness>,
) -> Vec<Vec<Member>> {
    let mut by: BTreeMap<(usize, usize), Vec<Member>> = BTreeMap::new();
    for (c, (name, _)) in chosen.iter().enumerate() {
        let Some(s) = suggestions.iter().position(|s| &s.name == name) else { continue };
        let t = &suggestions[s];
        if t.origin == TestOrigin::Offline && t.rank == 0 && witnesses.contains_key(&t.mutant) {
            by.entry((t.target, t.calls)).or_default().push((c, s));
        }
    }
    by.into_values().filter(|m| m.len() > 1).collect()
}

/// The boundary pairs among `members` (each member in one pair at most), by their inputs.
fn boundary_pairs<'v>(
    members: &[Member],
    input: impl Fn(&Member) -> &'v Vec<Value>,
) -> Vec<Vec<Member>> {
    let mut used = vec![false; members.len()];
    let mut out = Vec::new();
    for a in 0..members.len() {
        for b in a + 1..members.len() {
            if !used[a] && !used[b] && boundary_pair(input(&members[a]), input(&members[b])) {
                used[a] = true;
                used[b] = true;
                out.push(vec![members[a], members[b]]);
            }
        }
    }
    out
}

/// Whether `a` and `b` are the two sides of one boundary: equal but for one argument, where
/// they are neighbours (integers 1 apart, floats at most 1 or a billionth apart, strings or
/// lists one item longer than the other and equal to it for the rest).
fn boundary_pair(a: &[Value], b: &[Value]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let differ: Vec<usize> = (0..a.len()).filter(|&k| a[k] != b[k]).collect();
    let [k] = differ.as_slice() else { return false };
    match (&a[*k], &b[*k]) {
        (Value::Int(x), Value::Int(y)) => x.abs_diff(*y) == 1,
        (Value::Float(x), Value::Float(y)) => {
            let d = (x - y).abs();
            d.is_finite() && (d <= 1.0 || d <= 1e-9 * x.abs().max(y.abs()))
        }
        (Value::Str(x), Value::Str(y)) => {
            let (short, long) = if x.len() < y.len() { (x, y) } else { (y, x) };
            long.chars().count() == short.chars().count() + 1
                && (long.starts_with(short.as_str()) || long.ends_with(short.as_str()))
        }
        (Value::List(x), Value::List(y)) => {
            let (short, long) = if x.len() < y.len() { (x, y) } else { (y, x) };
            long.len() == short.len() + 1 && (long.starts_with(short) || long.ends_with(short))
        }
        _ => false,
    }
}

/// The order of two inputs in a joined test: by their first argument that differs, numbers by
/// value, strings and lists by length, then text; equal when they cannot be told.
fn order(a: &[Value], b: &[Value]) -> std::cmp::Ordering {
    use std::cmp::Ordering::Equal;
    let by = |x: &Value, y: &Value| match (x, y) {
        (Value::Int(x), Value::Int(y)) => x.cmp(y),
        (Value::Float(x), Value::Float(y)) => x.total_cmp(y),
        (Value::Str(x), Value::Str(y)) => x.chars().count().cmp(&y.chars().count()).then(x.cmp(y)),
        (Value::List(x), Value::List(y)) => x.len().cmp(&y.len()).then_with(|| order(x, y)),
        _ => Equal,
    };
    a.iter().zip(b).map(|(x, y)| by(x, y)).find(|o| *o != Equal).unwrap_or(Equal)
}

/// The comment of a joined test of target `target` on `cases`: what it pins and every gap its
/// cases close (the survivors `kills`).
fn why<'k>(
    ctx: &Ctx<'_>,
    target: usize,
    cases: &[&Witness],
    kills: impl Iterator<Item = &'k u32>,
    mutants: &[Numbered],
) -> String {
    let name = &ctx.front.targets()[target].name;
    // A pair's two inputs are named; a table lists its own.
    let inputs: Vec<String> = match cases {
        [a, b] => vec![stringify_input(&a.input), stringify_input(&b.input)],
        _ => vec![format!("{} inputs", cases.len())],
    };
    // Two mutants of one line that read the same (a function the target calls, mutated for
    // each of its callers) are said once.
    let mut seen = BTreeSet::new();
    let missed: Vec<String> = kills
        .filter_map(|n| mutants.iter().find(|m| m.n == *n))
        .map(|m| format!("{}, line {}", m.mutant.description.replace('\n', " "), m.mutant.line))
        .filter(|text| seen.insert(text.clone()))
        .collect();
    format!(
        "abex: pins `{name}` on {} (the tests missed: {})",
        inputs.join(" and "),
        missed.join("; ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(xs: &[i128]) -> Vec<Value> {
        xs.iter().map(|&x| Value::Int(x)).collect()
    }

    #[test]
    fn boundary_pairs_differ_in_one_argument_by_one_step() {
        assert!(boundary_pair(&ints(&[199, 3]), &ints(&[200, 3])));
        assert!(!boundary_pair(&ints(&[199, 3]), &ints(&[201, 3])));
        assert!(!boundary_pair(&ints(&[199, 3]), &ints(&[200, 4])));
        assert!(!boundary_pair(&ints(&[5]), &ints(&[5])));
        let s = |x: &str| vec![Value::Str(x.into())];
        assert!(boundary_pair(&s("aaaa"), &s("aaa")));
        assert!(!boundary_pair(&s("abcd"), &s("abd")));
        let f = |x: f64| vec![Value::Float(x)];
        assert!(boundary_pair(&f(18.5), &f(18.4)));
        assert!(boundary_pair(&f(1e33), &f(9.999999999999994e32)));
        assert!(!boundary_pair(&f(25.0), &f(30.0)));
    }

    #[test]
    fn cases_are_listed_smaller_input_first() {
        use std::cmp::Ordering::*;
        assert_eq!(order(&ints(&[13, 0]), &ints(&[12, 5])), Greater);
        assert_eq!(order(&ints(&[3, 1]), &ints(&[3, 2])), Less);
        let s = |x: &str| vec![Value::Str(x.into())];
        assert_eq!(order(&s("zz"), &s("aaa")), Less);
        assert_eq!(order(&[Value::Null], &[Value::Bool(true)]), Equal);
    }

    fn suggestion(name: &str, mutant: u32, calls: usize) -> Suggestion {
        Suggestion {
            target: 0,
            calls,
            mutant,
            name: name.into(),
            code: String::new(),
            rank: 0,
            origin: TestOrigin::Offline,
            repair_rounds: 0,
            spared: Vec::new(),
        }
    }

    fn witness(x: i128) -> Witness {
        Witness {
            input: ints(&[x]),
            original: Outcome::Ok { value: x.to_string() },
            mutant: Outcome::Ok { value: "0".into() },
            found_by: "search".into(),
            shrunk_from: None,
        }
    }

    #[test]
    fn the_joinable_tests_are_abex_s_own_per_function_and_pairs_are_neighbours() {
        let chosen: Chosen = ["a", "b", "c", "d", "model"]
            .iter()
            .enumerate()
            .map(|(k, n)| (n.to_string(), vec![k as u32]))
            .collect();
        let mut suggestions = vec![
            suggestion("a", 0, 0),
            suggestion("b", 1, 0),
            suggestion("c", 2, 0),
            suggestion("d", 3, 1),
            suggestion("model", 4, 0),
        ];
        suggestions[4].origin = TestOrigin::Model;
        let witnesses: BTreeMap<u32, Witness> =
            [(0, 199), (1, 50), (2, 200), (3, 201), (4, 198)].map(|(n, x)| (n, witness(x))).into();
        // `d` (201) calls another function; the model's test stays as the model wrote it.
        let members = by_function(&chosen, &suggestions, &witnesses);
        assert_eq!(members, vec![vec![(0, 0), (1, 1), (2, 2)]]);
        // 199 and 200 are a boundary's two sides; 50 is no one's neighbour.
        let input = |&(_, s): &Member| &witnesses[&suggestions[s].mutant].input;
        assert_eq!(boundary_pairs(&members[0], input), vec![vec![(0, 0), (2, 2)]]);
    }
}
