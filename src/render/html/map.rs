//! The boundary map of one function: an SVG of the explored inputs over one or two numeric (or
//! boolean) parameters, each input coloured by its outcome class, each boundary pair joined by a
//! short segment, the pairs the tests do not pin drawn thick, and each gap's witness marked.
//! Hover text (SVG `<title>`) gives the inputs and outputs; a `<desc>` says in words what the
//! picture shows.
//!
//! With one parameter the inputs lie on one lane per outcome class, so that a boundary is a
//! segment crossing lanes however close its two inputs are. With two, the plane. A function
//! with other parameters is drawn over the (at most two) numeric parameters that differ in most
//! of its boundary pairs, when they account for at least half of them; otherwise it has no map
//! (its table shows the pairs).
//!
//! The map draws at most [`MAX_PAIRS`] archive cells (the strongest), plus every unpinned
//! boundary and every witness: the report's cells are summarised, not copied.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use super::classes::Classes;
use super::markup::{esc, esc_short, px};
use super::scale::{AxisKind, Scale};
use crate::report::{ExplorationReport, MutantStatus, MutationReport, TargetReport};
use crate::value::{Args, Outcome, Ty, Value};

/// Archive cells a map draws at most.
pub const MAX_PAIRS: usize = 200;

const WIDTH: f64 = 720.0;

/// The parameters a map is drawn over.
pub struct Axes {
    dims: Vec<usize>,
    kinds: Vec<AxisKind>,
    names: Vec<String>,
    /// Whether other parameters exist (the map is a projection).
    projected: bool,
}

fn kind(ty: &Ty) -> Option<AxisKind> {
    match ty {
        Ty::Int { .. } | Ty::Float { .. } => Some(AxisKind::Number),
        Ty::Bool => Some(AxisKind::Bool),
        _ => None,
    }
}

fn coord(v: &Value) -> Option<f64> {
    match v {
        Value::Int(i) => Some(*i as f64),
        Value::BigUint(u) => Some(*u as f64),
        Value::Float(f) if f.is_finite() => Some(*f),
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        _ => None,
    }
}

impl Axes {
    /// The axes of `t`'s map, or `None` when no parameters explain its boundaries.
    pub fn choose(t: &TargetReport, x: &ExplorationReport) -> Option<Axes> {
        let params = &t.target.params;
        let kinds: Vec<Option<AxisKind>> =
            params.iter().map(|p| p.ty.as_ref().and_then(kind)).collect();
        let plottable: Vec<usize> = (0..params.len()).filter(|&i| kinds[i].is_some()).collect();
        let dims = if !plottable.is_empty() && plottable.len() == params.len() && params.len() <= 2
        {
            plottable
        } else {
            // The numeric parameters that differ in most boundary pairs, if they cover half.
            let pairs: Vec<&[Args; 2]> = x.boundaries().map(|c| &c.inputs).collect();
            let differs = |i: usize, p: &[Args; 2]| p[0].get(i) != p[1].get(i);
            let mut counts: Vec<(usize, usize)> = plottable
                .iter()
                .map(|&i| (pairs.iter().filter(|p| differs(i, p)).count(), i))
                .filter(|(n, _)| *n > 0)
                .collect();
            counts.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
            let mut dims: Vec<usize> = counts.iter().take(2).map(|(_, i)| *i).collect();
            dims.sort_unstable();
            let covered = pairs.iter().filter(|p| dims.iter().any(|&i| differs(i, p))).count();
            if dims.is_empty() || covered * 2 < pairs.len() {
                return None;
            }
            dims
        };
        Some(Axes {
            kinds: dims.iter().filter_map(|&i| kinds[i]).collect(),
            names: dims.iter().map(|&i| params[i].name.clone()).collect(),
            projected: dims.len() < params.len(),
            dims,
        })
    }

    fn point(&self, args: &[Value]) -> Option<Vec<f64>> {
        self.dims.iter().map(|&i| args.get(i).and_then(coord)).collect()
    }

    fn point_of_string(&self, s: &str) -> Option<Vec<f64>> {
        let json: serde_json::Value = serde_json::from_str(s).ok()?;
        let args: Vec<Value> = json.as_array()?.iter().map(Value::from_json).collect();
        self.point(&args)
    }
}

/// One explored input.
struct Dot {
    at: Vec<f64>,
    class: usize,
    title: String,
}

/// A boundary pair.
struct Segment {
    ends: [Vec<f64>; 2],
    classes: [usize; 2],
    unpinned: bool,
    title: String,
}

/// A gap's witness.
struct Mark {
    at: Vec<f64>,
    title: String,
}

/// What a map draws.
struct Picture {
    dots: Vec<Dot>,
    segments: Vec<Segment>,
    marks: Vec<Mark>,
    classes: Classes,
}

fn input_text(t: &TargetReport, args: &[Value]) -> String {
    let names = t.target.params.iter().map(|p| p.name.as_str());
    let parts: Vec<String> =
        names.zip(args).map(|(n, v)| format!("{n} = {}", v.display())).collect();
    parts.join(", ")
}

fn picture(
    t: &TargetReport,
    x: &ExplorationReport,
    m: Option<&MutationReport>,
    axes: &Axes,
) -> Picture {
    let cells: Vec<_> = x.cells.iter().take(MAX_PAIRS).collect();
    let gaps: Vec<_> = m
        .iter()
        .flat_map(|m| &m.mutants)
        .filter(|mu| mu.status == MutantStatus::Survived)
        .filter_map(|mu| mu.witness.as_ref().map(|w| (mu, w)))
        .collect();
    let outcomes = cells.iter().flat_map(|c| &c.outcomes).chain(gaps.iter().map(|g| &g.1.original));
    let classes = Classes::of(outcomes);
    let unpinned: HashMap<[&str; 2], &Vec<String>> = m
        .iter()
        .flat_map(|m| &m.unpinned)
        .flat_map(|u| {
            let (a, b) = (u.inputs[0].as_str(), u.inputs[1].as_str());
            [([a, b], &u.mutants), ([b, a], &u.mutants)]
        })
        .collect();
    let mut seen: HashSet<String> = HashSet::new();
    let mut drawn: HashSet<[&str; 2]> = HashSet::new();
    let mut pic = Picture { dots: vec![], segments: vec![], marks: vec![], classes };
    for c in &cells {
        let ends = [axes.point(&c.inputs[0]), axes.point(&c.inputs[1])];
        let [Some(a), Some(b)] = ends else { continue };
        let cls = [pic.classes.class(&c.outcomes[0]), pic.classes.class(&c.outcomes[1])];
        for k in 0..2 {
            if seen.insert(c.strings.inputs[k].clone()) {
                let title = format!(
                    "{} → {}",
                    esc_short(&input_text(t, &c.inputs[k]), 160),
                    esc_short(&c.strings.outputs[k], 80)
                );
                pic.dots.push(Dot { at: [&a, &b][k].clone(), class: cls[k], title });
            }
        }
        if c.pd > 0.0 {
            let key = [c.strings.inputs[0].as_str(), c.strings.inputs[1].as_str()];
            let moved = unpinned.get(&key).copied();
            drawn.insert(key);
            let title = segment_title(&c.strings.inputs, &c.strings.outputs, c.pd, moved);
            pic.segments.push(Segment {
                ends: [a, b],
                classes: cls,
                unpinned: moved.is_some(),
                title,
            });
        }
    }
    for u in m.iter().flat_map(|m| &m.unpinned) {
        if drawn.contains(&[u.inputs[0].as_str(), u.inputs[1].as_str()]) {
            continue;
        }
        let (Some(a), Some(b)) =
            (axes.point_of_string(&u.inputs[0]), axes.point_of_string(&u.inputs[1]))
        else {
            continue;
        };
        let other = pic.classes.len().saturating_sub(1);
        let cls = u.outputs.clone().map(|o| pic.classes.class_of_string(&o).unwrap_or(other));
        let title = segment_title(&u.inputs, &u.outputs, f64::NAN, Some(&u.mutants));
        pic.segments.push(Segment { ends: [a, b], classes: cls, unpinned: true, title });
    }
    for (mu, w) in gaps {
        let Some(at) = axes.point(&w.input) else { continue };
        let title = format!(
            "gap {}: {} (line {}) — on {} the original gives {}, the mutant {}",
            mu.id,
            mu.description,
            mu.line,
            input_text(t, &w.input),
            short_outcome(&w.original),
            short_outcome(&w.mutant)
        );
        pic.marks.push(Mark { at, title: esc(&title) });
    }
    pic
}

fn short_outcome(o: &Outcome) -> String {
    super::markup::short(&o.stringify(), 80)
}

fn segment_title(
    inputs: &[String; 2],
    outputs: &[String; 2],
    pd: f64,
    moved: Option<&Vec<String>>,
) -> String {
    let mut s = format!(
        "{} → {} | {} → {}",
        esc_short(&inputs[0], 60),
        esc_short(&outputs[0], 60),
        esc_short(&inputs[1], 60),
        esc_short(&outputs[1], 60)
    );
    if pd.is_finite() {
        let _ = write!(s, " (PD {})", super::markup::num(pd));
    }
    match moved {
        Some(ids) => {
            let _ =
                write!(s, "; NOT pinned by the tests: moved by mutant {}", esc(&ids.join(", ")));
        }
        None => s.push_str("; pinned by the tests or not tested"),
    }
    s
}

/// The map of `t` (SVG and its legend), or `None` when it has no axes or nothing to draw.
pub fn render(
    id: &str,
    t: &TargetReport,
    x: &ExplorationReport,
    m: Option<&MutationReport>,
) -> Option<String> {
    let axes = Axes::choose(t, x)?;
    let pic = picture(t, x, m, &axes);
    if pic.dots.is_empty() && pic.segments.is_empty() {
        return None;
    }
    let mut out = String::new();
    let desc = description(t, x, &axes, &pic);
    let svg = if axes.dims.len() == 1 {
        lanes(id, t, &axes, &pic, &desc)
    } else {
        plane(id, t, &axes, &pic, &desc)
    };
    out.push_str(&svg);
    out.push_str(&legend(&pic.classes));
    Some(out)
}

fn description(t: &TargetReport, x: &ExplorationReport, axes: &Axes, pic: &Picture) -> String {
    let unpinned = pic.segments.iter().filter(|s| s.unpinned).count();
    let mut d = format!(
        "{} explored inputs of {} in {} outcome classes ({}), {} boundary pairs drawn of {} found, \
         {unpinned} of them not pinned by the tests, {} gap witnesses marked.",
        pic.dots.len(),
        t.target.qualified_name,
        pic.classes.len(),
        (0..pic.classes.len()).map(|i| pic.classes.label(i)).collect::<Vec<_>>().join("; "),
        pic.segments.len(),
        x.bc_count,
        pic.marks.len()
    );
    let _ = write!(d, " Horizontal axis: {}.", axes.names[0]);
    if let Some(y) = axes.names.get(1) {
        let _ = write!(d, " Vertical axis: {y}.");
    } else {
        d.push_str(" One lane per outcome class.");
    }
    if axes.projected {
        d.push_str(" The other parameters are not shown.");
    }
    esc(&d)
}

fn open_svg(out: &mut String, id: &str, t: &TargetReport, height: f64, desc: &str) {
    let _ = write!(
        out,
        "<svg class=\"boundary-map\" viewBox=\"0 0 {WIDTH} {h}\" width=\"{WIDTH}\" height=\"{h}\" \
         role=\"img\" aria-labelledby=\"{id}-t {id}-d\"><title id=\"{id}-t\">Boundary map of {name}</title>\
         <desc id=\"{id}-d\">{desc}</desc>",
        h = px(height),
        name = esc(&t.target.qualified_name)
    );
}

fn axis_x(out: &mut String, s: &Scale, y: f64, name: &str, left: f64) {
    let _ = write!(
        out,
        "<g class=\"axis\"><line x1=\"{l}\" x2=\"{r}\" y1=\"{y}\" y2=\"{y}\"/>",
        l = px(left),
        r = px(WIDTH - 10.0),
        y = px(y)
    );
    for (v, label) in s.ticks() {
        let x = px(s.at(v));
        let _ = write!(
            out,
            "<line x1=\"{x}\" x2=\"{x}\" y1=\"{y0}\" y2=\"{y1}\"/><text x=\"{x}\" y=\"{ty}\" text-anchor=\"middle\">{l}</text>",
            y0 = px(y),
            y1 = px(y + 4.0),
            ty = px(y + 15.0),
            l = esc(&label)
        );
    }
    let _ = write!(
        out,
        "<text class=\"axis-name\" x=\"{x}\" y=\"{ty}\" text-anchor=\"end\">{n} ({d})</text></g>",
        x = px(WIDTH - 10.0),
        ty = px(y + 30.0),
        n = esc(name),
        d = s.describe()
    );
}

fn segment_svg(out: &mut String, s: &Segment, a: (f64, f64), b: (f64, f64)) {
    let class = if s.unpinned { "pair unpinned" } else { "pair" };
    let _ = write!(
        out,
        "<line class=\"{class}\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"><title>{}</title></line>",
        px(a.0),
        px(a.1),
        px(b.0),
        px(b.1),
        s.title
    );
}

fn dot_svg(out: &mut String, d: &Dot, at: (f64, f64), classes: &Classes) {
    let _ = write!(
        out,
        "<circle cx=\"{}\" cy=\"{}\" r=\"3\" fill=\"{}\"><title>{}</title></circle>",
        px(at.0),
        px(at.1),
        classes.colour(d.class),
        d.title
    );
}

/// One parameter: a lane per outcome class.
fn lanes(id: &str, t: &TargetReport, axes: &Axes, pic: &Picture, desc: &str) -> String {
    let (left, top, lane) = (170.0, 30.0, 26.0);
    let n = pic.classes.len().max(1) as f64;
    let bottom = top + n * lane;
    let xs: Vec<f64> = all_points(pic).map(|p| p[0]).collect();
    let sx = Scale::fit(&xs, axes.kinds[0], left, WIDTH - 10.0);
    let y = |class: usize| top + lane * (class as f64 + 0.5);
    let mut out = String::new();
    open_svg(&mut out, id, t, bottom + 40.0, desc);
    for c in 0..pic.classes.len() {
        let _ = write!(
            out,
            "<text class=\"lane\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
            px(left - 6.0),
            px(y(c) + 4.0),
            esc_short(pic.classes.label(c), 26)
        );
    }
    for m in &pic.marks {
        let x = sx.at(m.at[0]);
        let _ = write!(
            out,
            "<g class=\"witness\"><title>{}</title><line x1=\"{x}\" x2=\"{x}\" y1=\"{t0}\" y2=\"{b}\"/>\
             <path d=\"M{l},{t1}L{r},{t1}L{x},{t0}Z\"/></g>",
            m.title,
            x = px(x),
            l = px(x - 5.0),
            r = px(x + 5.0),
            t0 = px(top - 2.0),
            t1 = px(top - 12.0),
            b = px(bottom)
        );
    }
    for s in &pic.segments {
        let a = (sx.at(s.ends[0][0]), y(s.classes[0]));
        let b = (sx.at(s.ends[1][0]), y(s.classes[1]));
        segment_svg(&mut out, s, a, b);
    }
    for d in &pic.dots {
        dot_svg(&mut out, d, (sx.at(d.at[0]), y(d.class)), &pic.classes);
    }
    axis_x(&mut out, &sx, bottom + 4.0, &axes.names[0], left);
    out.push_str("</svg>");
    out
}

/// Two parameters: the plane.
fn plane(id: &str, t: &TargetReport, axes: &Axes, pic: &Picture, desc: &str) -> String {
    let (left, top, bottom) = (80.0, 16.0, 380.0);
    let xs: Vec<f64> = all_points(pic).map(|p| p[0]).collect();
    let ys: Vec<f64> = all_points(pic).map(|p| p[1]).collect();
    let sx = Scale::fit(&xs, axes.kinds[0], left, WIDTH - 10.0);
    let sy = Scale::fit(&ys, axes.kinds[1], bottom, top);
    let at = |p: &[f64]| (sx.at(p[0]), sy.at(p[1]));
    let mut out = String::new();
    open_svg(&mut out, id, t, bottom + 40.0, desc);
    let _ = write!(
        out,
        "<g class=\"axis\"><line x1=\"{l}\" x2=\"{l}\" y1=\"{t}\" y2=\"{b}\"/>",
        l = px(left),
        t = px(top),
        b = px(bottom)
    );
    for (v, label) in sy.ticks() {
        let y = px(sy.at(v));
        let _ = write!(
            out,
            "<line x1=\"{l0}\" x2=\"{l}\" y1=\"{y}\" y2=\"{y}\"/><text x=\"{tx}\" y=\"{y}\" dy=\"4\" text-anchor=\"end\">{}</text>",
            esc(&label),
            l0 = px(left - 4.0),
            l = px(left),
            tx = px(left - 6.0)
        );
    }
    let _ = write!(
        out,
        "<text class=\"axis-name\" x=\"{x}\" y=\"{y}\">{} ({})</text></g>",
        esc(&axes.names[1]),
        sy.describe(),
        x = px(left + 4.0),
        y = px(top + 8.0)
    );
    for s in &pic.segments {
        segment_svg(&mut out, s, at(&s.ends[0]), at(&s.ends[1]));
    }
    for d in &pic.dots {
        dot_svg(&mut out, d, at(&d.at), &pic.classes);
    }
    for m in &pic.marks {
        let (x, y) = at(&m.at);
        let _ = write!(
            out,
            "<g class=\"witness\"><title>{}</title><path d=\"M{a},{c}L{b},{d}M{a},{d}L{b},{c}\"/></g>",
            m.title,
            a = px(x - 6.0),
            b = px(x + 6.0),
            c = px(y - 6.0),
            d = px(y + 6.0)
        );
    }
    axis_x(&mut out, &sx, bottom, &axes.names[0], left);
    out.push_str("</svg>");
    out
}

fn all_points(pic: &Picture) -> impl Iterator<Item = &Vec<f64>> {
    let dots = pic.dots.iter().map(|d| &d.at);
    let ends = pic.segments.iter().flat_map(|s| &s.ends);
    dots.chain(ends).chain(pic.marks.iter().map(|m| &m.at))
}

fn legend(classes: &Classes) -> String {
    let mut out = String::from("<ul class=\"legend\" aria-label=\"Legend\">");
    for i in 0..classes.len() {
        let _ = write!(
            out,
            "<li><span class=\"swatch\" style=\"background:{}\"></span>{}</li>",
            classes.colour(i),
            esc_short(classes.label(i), 40)
        );
    }
    out.push_str(
        "<li><span class=\"key pair\"></span>boundary pair</li>\
         <li><span class=\"key unpinned\"></span>not pinned by the tests</li>\
         <li><span class=\"key witness\" aria-hidden=\"true\">▼ ×</span>a gap's witness</li></ul>",
    );
    out
}
