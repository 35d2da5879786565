//! What one posting run does, decided without the network: which findings become new inline
//! comments and on which line, which of abex's earlier comments are updated or marked closed,
//! which findings were suppressed by a person, and which go into the review body instead.
//!
//! Placement: a finding goes on its mutant's line when that line changed, else on the nearest
//! changed line of its function, else into the review body. At most one comment per line: a
//! finding whose line already holds an abex comment joins that comment. A 👎 reaction on an abex
//! comment, or a reply whose line reads `/abex ignore`, suppresses every fingerprint in it, when
//! it comes from someone with write access to the repository (the pull request's author from a
//! fork cannot silence what abex says about their change).

use std::collections::{BTreeMap, HashMap, HashSet};

use super::closing::{Closing, Fate};
use super::finding::{
    closed_body, comment_body, comment_body_with, markers, moved_body, Finding, Markers,
};
use super::suggestion::{section, without_suggestion, TestSuggestion};

/// A review comment already on the pull request, as listed by the API.
#[derive(Clone, Debug, Default)]
pub struct Existing {
    /// Comment id.
    pub id: u64,
    /// File.
    pub path: String,
    /// Its line in the head commit; none once GitHub has marked it outdated (new findings
    /// then do not join it).
    pub line: Option<u64>,
    /// Its body.
    pub body: String,
    /// The comment it replies to.
    pub in_reply_to: Option<u64>,
    /// 👎 reactions of people with write access to the repository (see
    /// [`super::api::Client::comments`]).
    pub thumbs_down: u64,
    /// Whether its author has write access to the repository (`author_association` `OWNER`,
    /// `MEMBER` or `COLLABORATOR`): only such a reply's `/abex ignore` counts.
    pub author_can_write: bool,
    /// Whether the posting identity wrote it: only then can it be abex's (a marker in anyone
    /// else's comment is text, never a claim).
    pub mine: bool,
}

/// A new inline comment.
#[derive(Clone, Debug, PartialEq)]
pub struct NewComment {
    /// File, relative to the repository root.
    pub path: String,
    /// Line in the head commit (right side of the diff).
    pub line: usize,
    /// The findings it holds.
    pub findings: Vec<Finding>,
    /// The suggestion that adds its test (and the other suggested tests of the file) in one
    /// click, when its line is the one the tests follow.
    pub suggestion: Option<TestSuggestion>,
}

impl NewComment {
    /// Its body.
    pub fn body(&self) -> String {
        let s = self.suggestion.as_ref().map(section);
        comment_body_with(&self.findings.iter().collect::<Vec<_>>(), s.as_deref())
    }
}

/// Why a finding is in the review body rather than on a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unplaced {
    /// Its function has no changed line (named with `--function`, or only deletions).
    NoChangedLine,
    /// The run's cap on new comments was reached.
    OverCap,
    /// GitHub said the line is not part of the pull request's diff.
    OutsideDiff,
}

impl Unplaced {
    /// In words, for the review body.
    pub fn describe(self) -> &'static str {
        match self {
            Unplaced::NoChangedLine => "its function has no changed line to comment on",
            Unplaced::OverCap => "over this run's cap on new comments",
            Unplaced::OutsideDiff => "GitHub's diff of the pull request does not hold its line",
        }
    }
}

/// The edit of an earlier comment.
#[derive(Clone, Debug, PartialEq)]
pub struct Edit {
    /// Comment id.
    pub id: u64,
    /// The new body.
    pub body: String,
}

/// An earlier comment left open although this run did not report its gaps.
#[derive(Clone, Debug, PartialEq)]
pub struct KeptOpen {
    /// Comment id.
    pub id: u64,
    /// Its file.
    pub path: String,
    /// Its line, unless GitHub marked it outdated.
    pub line: Option<u64>,
    /// Why it stays open.
    pub why: String,
}

/// What a posting run does.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    /// New inline comments, in file and line order.
    pub new: Vec<NewComment>,
    /// Earlier comments whose findings changed.
    pub updates: Vec<Edit>,
    /// Earlier comments whose gaps are gone.
    pub closes: Vec<Edit>,
    /// Earlier comments that stay as they are.
    pub unchanged: usize,
    /// Earlier comments whose gaps this run did not find, left open all the same, and why (a
    /// mutant not tested in this run, one that still survives, a function not analysed).
    pub kept_open: Vec<KeptOpen>,
    /// Findings a person suppressed.
    pub suppressed: Vec<Finding>,
    /// Findings that go into the review body.
    pub unplaced: Vec<(Finding, Unplaced)>,
}

fn ignores(body: &str) -> bool {
    body.lines().any(|l| l.trim().to_ascii_lowercase().starts_with("/abex ignore"))
}

/// Plans a run. `closing` says which earlier gaps this run closes: a comment is closed only
/// when each of its gaps' mutants was tested in this run and killed, or no longer exists.
pub fn plan(
    findings: &[Finding],
    existing: &[Existing],
    max_new: usize,
    closing: &Closing,
    head_sha: &str,
) -> Plan {
    let own: Vec<(&Existing, Markers)> = existing
        .iter()
        .filter(|c| c.mine)
        .filter_map(|c| markers(&c.body).map(|m| (c, m)))
        .collect();
    let mut suppressed_fps: HashSet<&str> = HashSet::new();
    for (c, m) in &own {
        let replied = existing
            .iter()
            .any(|r| r.in_reply_to == Some(c.id) && r.author_can_write && ignores(&r.body));
        if c.thumbs_down > 0 || replied {
            suppressed_fps.extend(m.fingerprints.iter().map(String::as_str));
        }
    }
    let mut by_fp: HashMap<&str, u64> = HashMap::new();
    let mut by_line: HashMap<(&str, u64), u64> = HashMap::new();
    let mut blocked: HashSet<(&str, u64)> = HashSet::new();
    for (c, m) in &own {
        // An outdated comment (no line any more) keeps its suppressions but no finding: its
        // findings are posted again on their new line.
        if c.line.is_none() {
            continue;
        }
        for fp in &m.fingerprints {
            by_fp.entry(fp.as_str()).or_insert(c.id);
        }
        if let Some(line) = c.line {
            if m.fingerprints.iter().any(|f| suppressed_fps.contains(f.as_str())) {
                blocked.insert((c.path.as_str(), line));
            } else {
                by_line.entry((c.path.as_str(), line)).or_insert(c.id);
            }
        }
    }
    let mut out = Plan::default();
    let mut assigned: HashMap<u64, Vec<&Finding>> = HashMap::new();
    let mut new: BTreeMap<(String, usize), Vec<Finding>> = BTreeMap::new();
    // The findings still to place, in groups: the gaps one suggested test closes together (the
    // most closing first), each other gap alone.
    let mut groups: Vec<Vec<&Finding>> = Vec::new();
    for f in findings {
        if suppressed_fps.contains(f.fingerprint.as_str()) {
            out.suppressed.push(f.clone());
            continue;
        }
        if let Some(id) = by_fp.get(f.fingerprint.as_str()) {
            assigned.entry(*id).or_default().push(f);
            continue;
        }
        let same = |g: &&mut Vec<&Finding>| {
            f.test_name.is_some() && g[0].test_name == f.test_name && g[0].path == f.path
        };
        match groups.iter_mut().find(same) {
            Some(g) => g.push(f),
            None => groups.push(vec![f]),
        }
    }
    groups.sort_by_key(|g| std::cmp::Reverse(g.len()));
    for mut group in groups {
        group.sort_by_key(|f| f.line);
        let (path, first) = (group[0].path.as_str(), group[0].line);
        // The changed lines of its gaps first (the first gap's first), then the changed lines
        // nearest the first gap.
        let mut lines: Vec<usize> =
            group.iter().map(|f| f.line).filter(|l| group[0].changed_lines.contains(l)).collect();
        let mut near = group[0].changed_lines.clone();
        near.sort_by_key(|&l| (l.abs_diff(first), l));
        lines.extend(near);
        let mut seen = HashSet::new();
        lines.retain(|l| seen.insert(*l) && !blocked.contains(&(path, *l as u64)));
        let Some(&line) = lines.first() else {
            out.unplaced.extend(group.into_iter().map(|f| (f.clone(), Unplaced::NoChangedLine)));
            continue;
        };
        // At most one comment per line: a test's gaps take a free line of their own, a gap
        // without a test its line; else they join the comment on the first one.
        let is_free = |l: usize| {
            !by_line.contains_key(&(path, l as u64)) && !new.contains_key(&(path.to_string(), l))
        };
        let free = match group[0].test_name {
            Some(_) => lines.iter().copied().find(|&l| is_free(l)),
            None => Some(line).filter(|&l| is_free(l)),
        };
        match free {
            Some(l) if new.len() < max_new => {
                new.insert((path.to_string(), l), group.into_iter().cloned().collect());
            }
            Some(_)
                if !by_line.contains_key(&(path, line as u64))
                    && !new.contains_key(&(path.to_string(), line)) =>
            {
                out.unplaced.extend(group.into_iter().map(|f| (f.clone(), Unplaced::OverCap)));
            }
            _ => match by_line.get(&(path, line as u64)) {
                Some(id) => assigned.entry(*id).or_default().extend(group),
                None => match new.get_mut(&(path.to_string(), line)) {
                    Some(comment) => comment.extend(group.into_iter().cloned()),
                    None => out
                        .unplaced
                        .extend(group.into_iter().map(|f| (f.clone(), Unplaced::OverCap))),
                },
            },
        }
    }
    // The comments that close the most first, then in file and line order.
    let mut placed: Vec<NewComment> = new
        .into_iter()
        .map(|((path, line), findings)| NewComment { path, line, findings, suggestion: None })
        .collect();
    placed.sort_by_key(|c| std::cmp::Reverse(c.findings.len()));
    out.new = placed;
    for (c, m) in &own {
        if m.fingerprints.iter().any(|f| suppressed_fps.contains(f.as_str())) {
            out.unchanged += 1;
            continue;
        }
        match assigned.get(&c.id) {
            Some(fs) => {
                let body = comment_body(fs);
                // The suggestion it was posted with stays while its gaps are the same.
                if body == without_suggestion(&c.body) {
                    out.unchanged += 1;
                } else {
                    out.updates.push(Edit { id: c.id, body });
                }
            }
            None if !m.closed
                && c.line.is_none()
                && findings.iter().any(|f| m.fingerprints.contains(&f.fingerprint)) =>
            {
                out.closes
                    .push(Edit { id: c.id, body: moved_body(&c.body, &m.fingerprints, head_sha) });
            }
            None if !m.closed => {
                let fates = m
                    .fingerprints
                    .iter()
                    .map(|fp| closing.fate(fp, m.functions.get(fp).map(String::as_str)));
                let mut why = None;
                for fate in fates {
                    match fate {
                        Fate::Closed(w) => {
                            why.get_or_insert(Ok(w));
                        }
                        Fate::Open(w) => {
                            why = Some(Err(w));
                            break;
                        }
                    }
                }
                match why {
                    Some(Ok(why)) => out.closes.push(Edit {
                        id: c.id,
                        body: closed_body(&c.body, &m.fingerprints, head_sha, why),
                    }),
                    Some(Err(why)) => {
                        out.unchanged += 1;
                        out.kept_open.push(KeptOpen {
                            id: c.id,
                            path: c.path.clone(),
                            line: c.line,
                            why,
                        });
                    }
                    None => out.unchanged += 1,
                }
            }
            None => out.unchanged += 1,
        }
    }
    out
}

impl Plan {
    /// Gives each of `suggestions` to the first new comment (the one that closes the most) of
    /// one of the tests it adds, and moves that comment to the suggestion's line, when no other
    /// comment (`existing` or new) is on that line.
    pub fn attach(&mut self, suggestions: &[TestSuggestion], existing: &[Existing]) {
        for s in suggestions {
            let taken = |c: &NewComment| c.path == s.path && c.line == s.line;
            let on_line = existing.iter().any(|c| {
                c.mine
                    && c.path == s.path
                    && c.line == Some(s.line as u64)
                    && markers(&c.body).is_some()
            });
            if on_line || self.new.iter().any(taken) {
                continue;
            }
            let adds = |c: &&mut NewComment| {
                c.suggestion.is_none()
                    && c.findings
                        .iter()
                        .any(|f| f.test_name.as_ref().is_some_and(|t| s.tests.contains(t)))
            };
            if let Some(c) = self.new.iter_mut().find(adds) {
                c.path = s.path.clone();
                c.line = s.line;
                c.suggestion = Some(s.clone());
            }
        }
    }

    /// Moves the new comments whose line GitHub does not accept (`allowed` holds, per file, the
    /// right-side lines of the pull request's diff) into the review body; returns how many moved.
    pub fn drop_anchors(&mut self, allowed: &HashMap<String, HashSet<usize>>) -> usize {
        let (keep, drop): (Vec<NewComment>, Vec<NewComment>) = std::mem::take(&mut self.new)
            .into_iter()
            .partition(|c| allowed.get(&c.path).is_some_and(|lines| lines.contains(&c.line)));
        self.new = keep;
        let moved = drop.len();
        for c in drop {
            self.unplaced.extend(c.findings.into_iter().map(|f| (f, Unplaced::OutsideDiff)));
        }
        moved
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::MutantStatus;

    /// A run that closes nothing.
    fn none() -> Closing {
        Closing::default()
    }

    /// A run in which the mutants of the findings named `cs` were tested and killed.
    fn killed(cs: &[&str]) -> Closing {
        let fps: Vec<String> = cs.iter().map(|c| c.repeat(64)).collect();
        Closing::with(fps.iter().map(|f| (f.as_str(), MutantStatus::Killed)), &[], None)
    }

    fn finding(c: char, line: usize, changed: &[usize]) -> Finding {
        Finding {
            kind: super::super::finding::Kind::Gap,
            fingerprint: std::iter::repeat_n(c, 64).collect(),
            path: "src/lib.rs".into(),
            function: "f".into(),
            line,
            changed_lines: changed.to_vec(),
            title: format!("gap {c}"),
            description: format!("gap {c}"),
            body: format!("gap {c}\n"),
            test: None,
            test_name: None,
            witness: String::new(),
            function_key: None,
        }
    }

    fn posted(id: u64, line: u64, fs: &[&Finding]) -> Existing {
        Existing {
            id,
            path: "src/lib.rs".into(),
            line: Some(line),
            body: comment_body(fs),
            mine: true,
            ..Default::default()
        }
    }

    #[test]
    fn a_suggestion_moves_its_test_s_comment_to_its_line_unless_one_is_there() {
        let mut a = finding('a', 5, &[5]);
        a.test_name = Some("t".into());
        a.test = Some("```rust\nfn t() {}\n```\n".into());
        let s = TestSuggestion {
            path: "src/lib.rs".into(),
            line: 30,
            replacement: "    }\n    fn t() {}".into(),
            tests: vec!["t".into()],
        };
        let mut p = plan(std::slice::from_ref(&a), &[], 30, &none(), "h");
        p.attach(std::slice::from_ref(&s), &[]);
        assert_eq!((p.new[0].line, p.new[0].suggestion.as_ref()), (30, Some(&s)));
        let body = p.new[0].body();
        assert!(body.contains("```suggestion\n    }\n    fn t() {}\n```"), "{body}");
        assert!(!body.contains("```rust"), "{body}");
        // An abex comment already on that line: the comment stays on its line, with the code.
        let there = posted(9, 30, &[&finding('b', 30, &[30])]);
        let mut p = plan(&[a], std::slice::from_ref(&there), 30, &none(), "h");
        p.attach(&[s], &[there]);
        assert_eq!(p.new[0].line, 5);
        assert!(p.new[0].suggestion.is_none());
    }

    #[test]
    fn a_marker_in_someone_else_s_comment_is_not_abex_s() {
        let a = finding('a', 8, &[8]);
        // Another user pasted abex's comment (markers and all): abex neither closes nor joins it.
        let forged = Existing { mine: false, ..posted(1, 8, &[&finding('e', 8, &[8])]) };
        let p = plan(std::slice::from_ref(&a), std::slice::from_ref(&forged), 30, &none(), "s");
        assert!(p.closes.is_empty() && p.updates.is_empty(), "{p:?}");
        assert_eq!(
            p.new,
            vec![NewComment {
                path: "src/lib.rs".into(),
                line: 8,
                findings: vec![a],
                suggestion: None
            }]
        );
        // The same comment by the posting identity would have been closed.
        let p = plan(&[], &[Existing { mine: true, ..forged }], 30, &killed(&["e"]), "s");
        assert_eq!(p.closes.len(), 1);
    }

    #[test]
    fn an_outdated_comment_s_finding_is_posted_again_on_its_new_line_and_the_old_one_marked() {
        let (a, b) = (finding('a', 12, &[12]), finding('b', 20, &[20]));
        let outdated = Existing { line: None, ..posted(1, 8, &[&a]) };
        let gone = Existing { line: None, ..posted(2, 9, &[&finding('e', 9, &[9])]) };
        let p = plan(&[a.clone(), b.clone()], &[outdated, gone], 30, &killed(&["e"]), "0123456789");
        let new: Vec<(usize, &str)> =
            p.new.iter().map(|n| (n.line, n.findings[0].title.as_str())).collect();
        assert_eq!(new, vec![(12, "gap a"), (20, "gap b")]);
        let edits: Vec<(u64, bool)> =
            p.closes.iter().map(|e| (e.id, e.body.contains("abex: moved"))).collect();
        assert_eq!(edits, vec![(1, true), (2, false)]);
        assert!(p.closes.iter().all(|e| markers(&e.body).unwrap().closed));
    }

    #[test]
    fn findings_go_on_their_line_or_the_nearest_changed_one_one_comment_per_line() {
        let (a, b, c, d) = (
            finding('a', 8, &[8, 12]),
            finding('b', 8, &[8, 12]),
            finding('c', 11, &[8, 12]),
            finding('d', 3, &[]),
        );
        let p = plan(&[a.clone(), b.clone(), c.clone(), d.clone()], &[], 30, &none(), "s");
        let placed: Vec<(usize, usize)> =
            p.new.iter().map(|n| (n.line, n.findings.len())).collect();
        assert_eq!(placed, vec![(8, 2), (12, 1)]);
        assert_eq!(p.unplaced, vec![(d, Unplaced::NoChangedLine)]);
        let p = plan(&[a, c.clone()], &[], 1, &none(), "s");
        assert_eq!(p.new.len(), 1);
        assert_eq!(p.unplaced, vec![(c, Unplaced::OverCap)]);
    }

    #[test]
    fn a_rerun_updates_changed_comments_closes_gone_ones_and_leaves_the_rest() {
        let (a, b, c) = (finding('a', 8, &[8]), finding('b', 8, &[8]), finding('c', 20, &[20]));
        let existing = [
            posted(1, 8, &[&a, &b]),
            posted(2, 20, &[&c]),
            posted(3, 30, &[&finding('e', 30, &[30])]),
        ];
        // b is fixed, c unchanged, e is gone; a new finding on line 8 joins comment 1.
        let n = finding('n', 8, &[8]);
        let p = plan(&[a.clone(), c, n.clone()], &existing, 30, &killed(&["e"]), "0123456789");
        assert!(p.new.is_empty());
        assert_eq!(p.updates, vec![Edit { id: 1, body: comment_body(&[&a, &n]) }]);
        assert_eq!(p.closes.len(), 1);
        assert_eq!(p.closes[0].id, 3);
        assert!(markers(&p.closes[0].body).unwrap().closed);
        assert_eq!(p.unchanged, 1);
        // An interrupted run closes nothing; a closed comment stays closed.
        assert!(plan(&[], &existing, 30, &none(), "s").closes.is_empty());
        let closed = Existing { body: p.closes[0].body.clone(), ..existing[2].clone() };
        assert!(plan(&[], &[closed], 30, &killed(&["e"]), "s").closes.is_empty());
    }

    #[test]
    fn a_comment_is_closed_only_when_its_mutants_were_killed_in_this_run_or_are_gone() {
        let e = finding('e', 30, &[30]);
        let with_key = Finding { function_key: Some("f".repeat(64)), ..e.clone() };
        let posted_e = posted(3, 30, &[&e]);
        let posted_keyed = posted(4, 30, &[&with_key]);
        let fp = "e".repeat(64);
        // The time budget left its mutant untested: left open, and why.
        let cut = Closing::with(
            [(fp.as_str(), MutantStatus::NotTested)],
            &[],
            Some("the time budget ran out"),
        );
        let p = plan(&[], std::slice::from_ref(&posted_e), 30, &cut, "s");
        assert!(p.closes.is_empty(), "{p:?}");
        assert_eq!(p.unchanged, 1);
        assert_eq!(p.kept_open.len(), 1);
        assert!(
            p.kept_open[0].why.contains("not tested in this run (the time budget ran out)"),
            "{p:?}"
        );
        // Still surviving (no witness this time): open.
        let alive = Closing::with([(fp.as_str(), MutantStatus::Survived)], &[], None);
        let p = plan(&[], std::slice::from_ref(&posted_e), 30, &alive, "s");
        assert!(p.closes.is_empty() && p.kept_open[0].why.contains("still passes"), "{p:?}");
        // Killed in this run: closed, and the comment says so.
        let p = plan(&[], std::slice::from_ref(&posted_e), 30, &killed(&["e"]), "0123456789");
        assert_eq!(p.closes.len(), 1);
        assert!(p.closes[0].body.contains("the tests now kill its mutant"), "{}", p.closes[0].body);
        // Absent: gone only where its marker names a function this run analysed.
        let analysed = Closing::with([], &["f".repeat(64)], None);
        let p = plan(&[], &[posted_e.clone(), posted_keyed.clone()], 30, &analysed, "0123456789");
        assert_eq!(p.closes.iter().map(|c| c.id).collect::<Vec<_>>(), vec![4]);
        assert!(p.closes[0].body.contains("no longer exists in the code"));
        assert!(p.kept_open[0].why.contains("absence proves nothing"), "{p:?}");
        let elsewhere = Closing::with([], &["0".repeat(64)], None);
        let p = plan(&[], &[posted_keyed], 30, &elsewhere, "s");
        assert!(p.closes.is_empty() && p.kept_open[0].why.contains("not analysed"), "{p:?}");
    }

    #[test]
    fn a_thumbs_down_or_an_ignore_reply_suppresses_the_findings_of_a_comment() {
        let (a, b) = (finding('a', 8, &[8]), finding('b', 9, &[9]));
        let mut first = posted(1, 8, &[&a]);
        first.thumbs_down = 1;
        let reply = Existing {
            id: 5,
            in_reply_to: Some(2),
            body: "False positive.\n/abex ignore".into(),
            author_can_write: true,
            ..Default::default()
        };
        let existing = [first, posted(2, 9, &[&b]), reply.clone()];
        let p = plan(&[a.clone(), b.clone()], &existing, 30, &none(), "s");
        assert_eq!(p.suppressed, vec![a.clone(), b.clone()]);
        assert!(p.new.is_empty() && p.updates.is_empty() && p.closes.is_empty());
        assert_eq!(p.unchanged, 2);
        // The same reply by someone without write access (the pull request's author from a
        // fork) suppresses nothing.
        let outsider = Existing { author_can_write: false, ..reply };
        let existing = [posted(2, 9, &[&b]), outsider];
        assert!(plan(&[b], &existing, 30, &none(), "s").suppressed.is_empty());
    }

    #[test]
    fn anchors_outside_github_s_diff_move_to_the_review_body() {
        let (a, c) = (finding('a', 8, &[8]), finding('c', 20, &[20]));
        let mut p = plan(&[a, c.clone()], &[], 30, &none(), "s");
        let allowed = HashMap::from([("src/lib.rs".to_string(), HashSet::from([7, 8, 9]))]);
        assert_eq!(p.drop_anchors(&allowed), 1);
        assert_eq!(p.new.len(), 1);
        assert_eq!(p.unplaced, vec![(c, Unplaced::OutsideDiff)]);
    }

    #[test]
    fn a_not_reached_note_closes_only_once_a_test_reaches_its_function() {
        let note =
            Finding { kind: super::super::finding::Kind::NotReached, ..finding('e', 8, &[8]) };
        let existing = [posted(7, 8, &[&note])];
        let fp = note.fingerprint.clone();
        // Still not reached, or its self-check not tested (a cut run): it stays.
        let p = plan(&[], &existing, 30, &none().with_note(&fp, false), "s");
        assert!(p.closes.is_empty(), "{p:?}");
        assert!(
            p.kept_open.first().is_some_and(|k| k.why.contains("reaches its function")),
            "{p:?}"
        );
        let p = plan(&[], &existing, 30, &none(), "s");
        assert!(p.closes.is_empty(), "{p:?}");
        // A test now reaches it: closed, and said so (not "the tests now kill its mutant").
        let p = plan(&[], &existing, 30, &none().with_note(&fp, true), "0123456789");
        assert_eq!(p.closes.len(), 1, "{p:?}");
        assert!(
            p.closes[0].body.contains("a test now reaches its function"),
            "{}",
            p.closes[0].body
        );
    }

    #[test]
    fn the_gaps_one_test_closes_share_a_comment_on_a_line_of_their_own() {
        let with = |c: char, line: usize, test: &str| Finding {
            test_name: Some(test.into()),
            ..finding(c, line, &[8, 9, 12, 20])
        };
        // t1 closes gaps on 8 and 12; t2 closes a gap on 8 (taken: it goes on its other gap's
        // line 20), t3 one on 9; t1 closes the most and comes first.
        let all = [
            with('a', 8, "t1"),
            with('b', 12, "t1"),
            with('c', 8, "t2"),
            with('d', 20, "t2"),
            with('e', 9, "t3"),
            with('f', 12, "t1"),
        ];
        let p = plan(&all, &[], 30, &none(), "s");
        let placed: Vec<(usize, Vec<&str>)> = p
            .new
            .iter()
            .map(|n| (n.line, n.findings.iter().map(|f| f.title.as_str()).collect()))
            .collect();
        assert_eq!(
            placed,
            vec![
                (8, vec!["gap a", "gap b", "gap f"]),
                (20, vec!["gap c", "gap d"]),
                (9, vec!["gap e"]),
            ]
        );
        let body = p.new[0].body();
        assert!(body.starts_with("### abex: 3 gaps the tests do not pin down"), "{body}");
        assert_eq!(markers(&body).unwrap().fingerprints.len(), 3);
    }
}
