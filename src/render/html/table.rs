//! The boundary pairs of one function as tables, one per validity group (VV: two different
//! values, VE: a value and an error, EE: two different errors), strongest first, each pair's two
//! outputs shown as a character diff (`similar`), the pairs the tests do not pin marked. The
//! page's script sorts a table by a column when its header button is pressed.
//!
//! At most [`MAX_ROWS`] pairs are listed per function (the strongest, and every unpinned one);
//! the rest are counted and left in `report.json`.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use similar::{ChangeTag, TextDiff};

use super::markup::{esc, esc_short, num};
use crate::archive::Group;
use crate::report::{ExplorationReport, MutationReport};

/// Boundary pairs listed per function at most.
pub const MAX_ROWS: usize = 120;

/// Characters of an input or output shown at most.
const TEXT: usize = 160;

/// One boundary pair.
struct Row<'a> {
    group: Option<Group>,
    inputs: [&'a str; 2],
    outputs: [&'a str; 2],
    pd: Option<f64>,
    moved_by: Option<&'a [String]>,
}

/// `a` → `b` as a character diff: what only `a` has struck out, what only `b` has underlined.
pub fn diff(a: &str, b: &str) -> String {
    let (a, b) = (super::markup::short(a, TEXT), super::markup::short(b, TEXT));
    let d = TextDiff::from_chars(a.as_str(), b.as_str());
    let mut out = String::new();
    for c in d.iter_all_changes() {
        let v = esc(c.value());
        match c.tag() {
            ChangeTag::Equal => out.push_str(&v),
            ChangeTag::Delete => {
                let _ = write!(out, "<del>{v}</del>");
            }
            ChangeTag::Insert => {
                let _ = write!(out, "<ins>{v}</ins>");
            }
        }
    }
    // Runs of one tag come out as one element each character; join neighbours.
    out.replace("</del><del>", "").replace("</ins><ins>", "")
}

fn rows<'a>(x: &'a ExplorationReport, m: Option<&'a MutationReport>) -> (Vec<Row<'a>>, usize) {
    let unpinned: HashMap<[&str; 2], &[String]> = m
        .iter()
        .flat_map(|m| &m.unpinned)
        .flat_map(|u| {
            let (a, b) = (u.inputs[0].as_str(), u.inputs[1].as_str());
            [([a, b], u.mutants.as_slice()), ([b, a], u.mutants.as_slice())]
        })
        .collect();
    let mut listed: HashSet<[&str; 2]> = HashSet::new();
    let mut rows: Vec<Row> = Vec::new();
    let mut left = 0;
    for c in x.boundaries() {
        let inputs = [c.strings.inputs[0].as_str(), c.strings.inputs[1].as_str()];
        let moved_by = unpinned.get(&inputs).copied();
        if rows.len() >= MAX_ROWS && moved_by.is_none() {
            left += 1;
            continue;
        }
        listed.insert(inputs);
        let outputs = [c.strings.outputs[0].as_str(), c.strings.outputs[1].as_str()];
        rows.push(Row { group: c.group, inputs, outputs, pd: Some(c.pd), moved_by });
    }
    // Unpinned boundaries whose cell the report does not carry (a trimmed report).
    for u in m.iter().flat_map(|m| &m.unpinned) {
        let inputs = [u.inputs[0].as_str(), u.inputs[1].as_str()];
        if listed.contains(&inputs) {
            continue;
        }
        let group = Some(match u.descriptor.0 {
            0 => Group::VV,
            1 => Group::VE,
            _ => Group::EE,
        });
        let outputs = [u.outputs[0].as_str(), u.outputs[1].as_str()];
        rows.push(Row { group, inputs, outputs, pd: None, moved_by: Some(&u.mutants) });
    }
    (rows, left)
}

fn group_title(g: Option<Group>) -> &'static str {
    match g {
        Some(Group::VV) => "VV: two different values",
        Some(Group::VE) => "VE: a value and an error",
        Some(Group::EE) => "EE: two different errors",
        None => "equal outcomes",
    }
}

/// The tables of `x`'s boundary pairs; `id` makes the element ids unique in the page.
pub fn render(id: &str, name: &str, x: &ExplorationReport, m: Option<&MutationReport>) -> String {
    let (rows, left) = rows(x, m);
    let mut out = String::new();
    if rows.is_empty() {
        out.push_str("<p class=\"no-boundaries\">No boundary pair was found.</p>");
        return out;
    }
    for g in [Some(Group::VV), Some(Group::VE), Some(Group::EE), None] {
        let of_group: Vec<&Row> = rows.iter().filter(|r| r.group == g).collect();
        if of_group.is_empty() {
            continue;
        }
        let caption = format!("{} — {} pair(s) of {}", group_title(g), of_group.len(), esc(name));
        let _ = write!(
            out,
            "<table class=\"boundaries sortable\" id=\"{id}-{}\"><caption>{caption}</caption><thead><tr>\
             <th scope=\"col\"><button type=\"button\">input 1</button></th>\
             <th scope=\"col\"><button type=\"button\">input 2</button></th>\
             <th scope=\"col\"><button type=\"button\">output 1 → output 2</button></th>\
             <th scope=\"col\"><button type=\"button\" data-numeric>PD</button></th>\
             <th scope=\"col\"><button type=\"button\">held by the tests</button></th></tr></thead><tbody>",
            g.map_or("eq", |g| match g {
                Group::VV => "vv",
                Group::VE => "ve",
                Group::EE => "ee",
            })
        );
        for r in of_group {
            let pd = r.pd.map_or(String::new(), num);
            let sort = r.pd.map_or(-1.0, |p| if p.is_finite() { p } else { f64::MAX });
            let held = match r.moved_by {
                Some(ids) => format!(
                    "<strong class=\"unpinned\">not pinned</strong> (mutant {})",
                    esc(&ids.join(", "))
                ),
                None => "yes, or not tested".into(),
            };
            let _ = write!(
                out,
                "<tr{}><td><code>{}</code></td><td><code>{}</code></td><td><code>{}</code></td>\
                 <td data-sort=\"{sort}\">{pd}</td><td>{held}</td></tr>",
                if r.moved_by.is_some() { " class=\"unpinned\"" } else { "" },
                esc_short(r.inputs[0], TEXT),
                esc_short(r.inputs[1], TEXT),
                diff(r.outputs[0], r.outputs[1]),
            );
        }
        out.push_str("</tbody></table>");
    }
    if left > 0 {
        let _ = write!(
            out,
            "<p class=\"note\">{left} more boundary pair(s) are in <code>report.json</code>.</p>"
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_output_diff_strikes_out_the_first_and_underlines_the_second() {
        assert_eq!(
            diff("\"cool\"", "\"idle\""),
            "&quot;<del>coo</del><ins>id</ins>l<ins>e</ins>&quot;"
        );
        assert_eq!(diff("<a>", "<a>"), "&lt;a&gt;");
    }
}
