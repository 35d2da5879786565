//! The Rust harness: generated into a scratch copy of the crate, built once, run as a worker.
//!
//! Private functions are reachable because each wrapper is injected as a child module
//! (`__abex_h`) of the module that defines the function; the modules on the way from the crate
//! root are widened to `pub(crate)` in the copy, and a dispatcher at the crate root
//! (`__abex_harness`, which also holds the dependency-free runtime from `runtime/core.rs`) maps
//! target ids to wrappers. A library gets an extra binary target whose `main` serves the
//! protocol (a binary, not an example, so that dev-dependencies are not built); a binary's own
//! `main` is renamed and replaced. A wrapper that does not compile (a receiver type without
//! `Default`, a return type without `Debug`, code that is `cfg`'d out) drops only that target,
//! with the compiler's message as the reason; any other error means the crate itself does not
//! build.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::probe::{self, FnProbes};
use super::switch;
use super::{builders, wrapper as wrappers};
use crate::mutate::Mutant;
use crate::rust::cargo::{self, Build, CompileError, PendingTests, TestBinary};
use crate::rust::source::{CallPlan, CrateSources, FoundFn};
use crate::rust::types::book::Book;
use crate::scratch::{self, ScratchError};

/// The dependency-free runtime injected into the user's crate: the worker, then its probes.
pub const RUNTIME: &str =
    concat!(include_str!("runtime/core.rs"), include_str!("runtime/probe.rs"));

/// The runtime's part that decodes built values (std recipes and containers).
pub const RUNTIME_BUILT: &str = include_str!("runtime/built.rs");

/// Name of the generated binary target and runtime module.
const HARNESS: &str = "__abex_harness";

/// Where a library's harness binary lives in the package copy: outside `src/bin` and
/// `examples`, so that no auto-discovered target sees it.
const HARNESS_MAIN: &str = "abex-harness/main.rs";

/// Errors building a harness.
#[derive(Debug, thiserror::Error)]
pub enum HarnessError {
    /// The scratch copy failed.
    #[error(transparent)]
    Scratch(#[from] ScratchError),
    /// `cargo` could not be run.
    #[error("failed to run `cargo build` in `{dir}`: {source}")]
    Cargo {
        /// Where.
        dir: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The crate does not build, with the compiler's first error.
    #[error("package `{package}` does not build:\n{first_error}")]
    CrateDoesNotBuild {
        /// Which package.
        package: String,
        /// The compiler's first error, rendered.
        first_error: String,
    },
    /// The manifest could not be edited.
    #[error("failed to edit `{path}`: {message}")]
    Manifest {
        /// Which manifest.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
}

/// What kind of crate target hosts the harness.
#[derive(Clone, Debug)]
pub enum Host {
    /// A library; the harness is an extra binary that links it.
    Lib {
        /// The library's crate name (`-` replaced by `_`).
        crate_name: String,
    },
    /// A binary whose `main` is replaced.
    Bin {
        /// The binary's name.
        name: String,
    },
}

/// One crate target to build a harness for.
#[derive(Clone)]
pub struct HarnessRequest<'a> {
    /// The workspace root of the user's project.
    pub workspace_root: &'a Path,
    /// The package's manifest folder.
    pub package_dir: &'a Path,
    /// The package name.
    pub package: &'a str,
    /// The target's root file (`src/lib.rs`).
    pub root_file: &'a Path,
    /// Library or binary.
    pub host: Host,
    /// The crate's sources.
    pub sources: &'a CrateSources,
    /// The functions to reach; their index here is their id in the harness.
    pub fns: Vec<&'a FoundFn>,
    /// Scratch folder for this harness (the copy under `tree/`).
    pub scratch: &'a Path,
    /// The target folder cargo builds in. Every build of a run shares one (see
    /// `RustLab::build`), so that dependencies are compiled once, whichever copy builds.
    pub target_dir: PathBuf,
    /// Mutants to compile in behind switches, by number (1, 2, …).
    pub switches: Vec<(u32, &'a Mutant)>,
    /// Code inserted at byte offsets of files (absolute path, offset, code).
    pub inserts: Vec<(PathBuf, usize, String)>,
    /// Packages whose test binaries are built too (none: no test build).
    pub test_packages: Vec<String>,
    /// What the build builds: everything in one call, the harness first (the tests then
    /// build in the background, see [`Harness::pending`]), or the crate's own tests alone.
    pub what: Build,
    /// A mutant applied to the source directly (a mutant that cannot be switched), by number.
    pub apply: Option<(u32, &'a Mutant)>,
    /// Parts already known not to compile (from an earlier build of the same sources).
    pub known_dropped: BTreeMap<Part, String>,
    /// Feature flags every cargo build gets (`--features …`, `--all-features`, …).
    pub cargo_flags: &'a [String],
}

/// A built harness.
#[derive(Debug)]
pub struct Harness {
    /// The worker executable.
    pub exe: PathBuf,
    /// The working directory to run it in (the package's folder in the copy).
    pub cwd: PathBuf,
    /// Generated parts that were dropped because they do not compile, with the reason.
    pub dropped: BTreeMap<Part, String>,
    /// The dropped mutants that cannot compile alone either: the compiler's error fell in a
    /// switched region that holds that mutant and no other, or in that mutant's own branch of a
    /// switch that holds several (`branch_of`), and it is one about the mutant's own code (see
    /// [`own_error`]). They need no build of their own to be called unviable.
    pub unviable: BTreeSet<u32>,
    /// How long building took.
    pub build_time: Duration,
    /// Test binaries built.
    pub tests: Vec<TestBinary>,
    /// The scratch copy.
    pub tree: PathBuf,
    /// The probe spec of each switched mutant (see `runtime/probe.rs`), by number.
    pub probe_specs: BTreeMap<u32, String>,
    /// The test binaries still building, when the harness came first ([`Build::HarnessFirst`]).
    pub pending: Option<PendingTests>,
}

impl Harness {
    /// Why function `i` of the request cannot be called, if it was dropped.
    pub fn dropped_fn(&self, i: usize) -> Option<&String> {
        self.dropped.get(&Part::Wrapper(i))
    }

    /// The environment that starts mutant `n`'s worker in probe mode (nothing when the
    /// mutant is not switched in this harness, or probes are off).
    pub fn probe_env(&self, n: u32) -> Vec<(String, String)> {
        self.probe_specs
            .get(&n)
            .map(|s| vec![("ABEX_PROBE".to_string(), s.clone())])
            .unwrap_or_default()
    }
}

fn rel(p: &Path, base: &Path) -> PathBuf {
    p.strip_prefix(base).unwrap_or(p).to_path_buf()
}

/// The wrapper function for one target; `skip` holds the parts that did not compile: the
/// instantiations, and the builders' constructors, without which an instantiation's argument
/// may not be buildable (see [`wrappers::chosen`]).
fn wrapper(id: usize, f: &FoundFn, book: &Book, skip: &BTreeMap<Part, String>) -> String {
    let dropped = |k: usize| skip.contains_key(&Part::Inst(id, k));
    let buildable = |p: &CallPlan| buildable(book, p, skip);
    wrappers::wrapper(id, f, &format!("crate::{HARNESS}"), &dropped, &buildable)
}

/// Whether every argument of `plan` can be built with the constructors `skip` left.
pub(crate) fn buildable(book: &Book, plan: &CallPlan, skip: &BTreeMap<Part, String>) -> bool {
    plan.args.iter().all(|a| book.expand(&a.ty, &kept_constructors(skip)).is_ok())
}

/// Whether constructor `k` of builder `b` is left after `skip` (neither it nor its builder's
/// impl failed to compile).
pub(crate) fn kept_constructors(
    skip: &BTreeMap<Part, String>,
) -> impl Fn(usize, usize) -> bool + '_ {
    move |b, k| {
        !skip.contains_key(&Part::Built(builders::part_id(b, None)))
            && !skip.contains_key(&Part::Built(builders::part_id(b, Some(k))))
    }
}

fn module_block(wrappers: &[String]) -> String {
    format!(
        "\n#[doc(hidden)]\n#[allow(warnings, missing_docs, unused, clippy::all)]\npub(crate) mod __abex_h {{\n    use super::*;\n{}}}\n",
        wrappers.concat()
    )
}

fn runtime_block(arms: &[(usize, String)]) -> String {
    let mut s = format!(
        "\n#[doc(hidden)]\n#[allow(warnings, missing_docs, unused, clippy::all)]\npub mod {HARNESS} {{\n{RUNTIME}\n{RUNTIME_BUILT}\n    /// Maps a target id to its wrapper.\n    pub fn dispatch(id: usize, args: &[Json]) -> Outcome {{\n        match id {{\n"
    );
    for (id, path) in arms {
        s.push_str(&format!("            {id} => {path}(args), // arm {id}\n"));
    }
    s.push_str("            _ => Outcome::Bad(::std::format!(\"no target {}\", id)),\n        }\n    }\n}\n");
    s
}

/// What a piece of generated code belongs to, so that a compile error in it drops only that.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Part {
    /// The wrapper of function `i` (and its dispatch arm).
    Wrapper(usize),
    /// The switch of mutant number `n`.
    Mutant(u32),
    /// Inserted code `i` (a suggested test module).
    Insert(usize),
    /// The probes of function `i` (its mutants stay switched without them).
    Probe(usize),
    /// A builder of built values: a type's `FromJson` impl or one of its constructors (see
    /// `builders::part_id`).
    Built(u32),
    /// Instantiation `k` of generic function `i`.
    Inst(usize, usize),
}

/// The parts marked in generated text (`// abex-part built N {` … `}`, `// abex-part inst I K {`
/// … `}`, or one line ending in `// abex-part built N =`), as (first line, last line, part)
/// with lines counted from `first`.
fn marked(text: &str, first: usize) -> Vec<(usize, usize, Part)> {
    let mut open: Vec<(String, usize)> = Vec::new();
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let Some((_, mark)) = line.split_once("// abex-part ") else { continue };
        let (tag, end) = mark.trim().split_at(mark.trim().len().saturating_sub(1));
        let tag = tag.trim().to_string();
        let nums: Vec<usize> = tag.split(' ').skip(1).filter_map(|n| n.parse().ok()).collect();
        let part = match (tag.split(' ').next(), nums.as_slice()) {
            (Some("built"), [n]) => Part::Built(*n as u32),
            (Some("inst"), [i, k]) => Part::Inst(*i, *k),
            _ => continue,
        };
        match end {
            "{" => open.push((tag, i)),
            "=" => out.push((first + i, first + i, part)),
            "}" => {
                if let Some(at) = open.iter().rposition(|(t, _)| *t == tag) {
                    let (_, start) = open.remove(at);
                    out.push((first + start, first + i, part));
                }
            }
            _ => {}
        }
    }
    // Smallest first: an error in a constructor blames it, not the impl around it.
    out.sort_by_key(|(lo, hi, _)| hi - lo);
    out
}

/// The edited sources: file (absolute, in the user's tree) → new text, and the lines of each
/// generated part in the new text.
struct Generated {
    files: BTreeMap<PathBuf, String>,
    /// Where each generated part sits.
    regions: Vec<Region>,
    /// The probe spec of each switched mutant.
    specs: BTreeMap<u32, String>,
}

/// Where generated parts sit in an edited file: from `lo` to `hi`, both (line, column) and
/// inclusive, counted from 1 as the compiler counts them (columns in characters). A region of
/// whole lines ends at column `usize::MAX`; a mutant that could not be placed has line 0.
/// Several edits can share a line (the body replacements of a one-line function, an operator
/// beside a call): the columns tell them apart.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Region {
    file: PathBuf,
    lo: (usize, usize),
    hi: (usize, usize),
    parts: Vec<Part>,
    /// Where each switched mutant's own branch starts in it (`if crate::__abex_mutants::on(N)
    /// {`), in order: an error between one start and the next is in that mutant's branch or in
    /// the original code after the last one.
    starts: Vec<((usize, usize), u32)>,
}

impl Region {
    /// A region of the whole lines `lo..=hi`.
    fn lines(file: &Path, lo: usize, hi: usize, parts: Vec<Part>) -> Region {
        Region {
            file: file.to_path_buf(),
            lo: (lo, 1),
            hi: (hi, usize::MAX),
            parts,
            starts: Vec::new(),
        }
    }

    /// Whether it was placed in a file.
    fn placed(&self) -> bool {
        self.lo.0 > 0
    }

    /// Whether the compiler's error `e` points into it.
    fn holds(&self, e: &CompileError) -> bool {
        (self.lo..=self.hi).contains(&(e.line, e.column))
    }
}

/// The (line, column) of the character at byte `at` of `text`, counted from 1.
fn position(text: &str, at: usize) -> (usize, usize) {
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

/// An edit of a source file and the parts it holds.
struct PartEdit {
    start: usize,
    end: usize,
    text: String,
    parts: Vec<Part>,
}

fn generate(req: &HarnessRequest<'_>, skip: &BTreeMap<Part, String>) -> Generated {
    let mut edits: BTreeMap<PathBuf, Vec<PartEdit>> = BTreeMap::new();
    let mut blocks: BTreeMap<(PathBuf, usize), Vec<(usize, String)>> = BTreeMap::new();
    let mut arms = Vec::new();
    let mut widen: Vec<&Vec<String>> = Vec::new();
    for (id, f) in req.fns.iter().enumerate() {
        if skip.contains_key(&Part::Wrapper(id)) || f.plan.is_err() {
            continue;
        }
        blocks
            .entry((f.file.clone(), f.inject_at))
            .or_default()
            .push((id, wrapper(id, f, &req.sources.book, skip)));
        let mut path = String::from("crate::");
        for m in &f.module {
            path.push_str(m);
            path.push_str("::");
        }
        arms.push((id, format!("{path}__abex_h::__abex_call_{id}")));
        widen.push(&f.module);
    }
    // Builders of the built values the functions take.
    let needed: std::collections::BTreeSet<usize> = req
        .fns
        .iter()
        .enumerate()
        .filter(|(id, _)| !skip.contains_key(&Part::Wrapper(*id)))
        .flat_map(|(_, f)| wrappers::plans(f).into_iter().flat_map(|p| p.builders.iter().copied()))
        .collect();
    let built = builders::code(&req.sources.book, &req.sources.sites, &needed, &|n| {
        skip.contains_key(&Part::Built(n))
    });
    widen.extend(built.widen.iter());
    for e in built.edits {
        edits.entry(e.file).or_default().push(PartEdit {
            start: e.at,
            end: e.at,
            text: e.text,
            parts: vec![],
        });
    }
    for decl in &req.sources.mods {
        let needed = widen.iter().any(|m| m.starts_with(&decl.module));
        if needed && !decl.crate_visible {
            let text = if decl.vis.0 == decl.vis.1 { "pub(crate) " } else { "pub(crate)" };
            edits.entry(decl.file.clone()).or_default().push(PartEdit {
                start: decl.vis.0,
                end: decl.vis.1,
                text: text.into(),
                parts: vec![],
            });
        }
    }
    for ((file, at), wrappers) in &blocks {
        let code: Vec<String> = wrappers.iter().map(|(_, w)| w.clone()).collect();
        let parts = wrappers.iter().map(|(id, _)| Part::Wrapper(*id)).collect();
        edits.entry(file.clone()).or_default().push(PartEdit {
            start: *at,
            end: *at,
            text: module_block(&code),
            parts,
        });
    }
    for (i, (file, at, code)) in req.inserts.iter().enumerate() {
        if !skip.contains_key(&Part::Insert(i)) {
            let parts = vec![Part::Insert(i)];
            edits.entry(file.clone()).or_default().push(PartEdit {
                start: *at,
                end: *at,
                text: code.clone(),
                parts,
            });
        }
    }
    if let Some((n, m)) = req.apply.filter(|(n, _)| !skip.contains_key(&Part::Mutant(*n))) {
        let parts = vec![Part::Mutant(n)];
        let edit = PartEdit { start: m.span.0, end: m.span.1, text: m.replacement.clone(), parts };
        edits.entry(m.file.clone()).or_default().push(edit);
    }
    // Mutation switches, per file.
    let mut by_file: BTreeMap<&Path, Vec<(u32, &Mutant)>> = BTreeMap::new();
    for (n, m) in &req.switches {
        if !skip.contains_key(&Part::Mutant(*n)) {
            by_file.entry(m.file.as_path()).or_default().push((*n, *m));
        }
    }
    let mut rejected = Vec::new();
    let mut specs = BTreeMap::new();
    for (file, list) in by_file {
        let Some(src) = req.sources.files.iter().find(|f| f.path == file) else {
            rejected.extend(list.iter().map(|(n, _)| *n));
            continue;
        };
        let plans = probe_plans(req, skip, file, &src.text, &list);
        for (n, _) in &list {
            let why = "no probe was compiled for this mutant's function";
            let none = serde_json::json!({ "site": { "none": why }, "guards": [] }).to_string();
            let spec = plans.iter().find_map(|(_, p)| p.specs.get(n).cloned());
            if crate::witness::directed_enabled() {
                specs.insert(*n, spec.unwrap_or(none));
            }
        }
        let refs: Vec<(usize, &FnProbes)> = plans.iter().map(|(i, p)| (*i, p)).collect();
        let s = switch::switch_probed(&src.text, &list, &refs);
        rejected.extend(s.rejected);
        for e in s.edits {
            let parts = e
                .mutants
                .iter()
                .map(|n| Part::Mutant(*n))
                .chain(e.probes.iter().map(|f| Part::Probe(*f)))
                .collect();
            edits.entry(file.to_path_buf()).or_default().push(PartEdit {
                start: e.start,
                end: e.end,
                text: e.text,
                parts,
            });
        }
    }
    let root = req.root_file.to_path_buf();
    let root_text = req.sources.files.iter().find(|f| f.path == root).map(|f| f.text.as_str());
    let root_len = root_text.map_or(0, str::len);
    let mut tail = runtime_block(&arms);
    if !req.switches.is_empty() {
        tail.push_str(switch::SWITCH_MODULE);
        // Switches add parentheses that a crate's `#![deny(warnings)]` would turn into errors;
        // placed after the crate's own inner attributes, this allow wins over them.
        if let Some(at) = root_text.and_then(after_inner_attributes) {
            let allow = PartEdit {
                start: at,
                end: at,
                text: "\n#![allow(unused_parens)]\n".into(),
                parts: vec![],
            };
            edits.entry(root.clone()).or_default().push(allow);
        }
    }
    // A `no_std` crate gets `extern crate std;`: the generated code names std by `::std::…`.
    if let Some((at, item)) =
        root_text.and_then(|t| Some((after_inner_attributes(t)?, super::no_std::std_item(t)?)))
    {
        let edit = PartEdit { start: at, end: at, text: item, parts: vec![] };
        edits.entry(root.clone()).or_default().push(edit);
    }
    if let Host::Bin { .. } = req.host {
        // Rename the user's `main` and serve instead.
        if let Some(at) = root_text.and_then(find_main) {
            let rename =
                PartEdit { start: at, end: at + 4, text: "__abex_user_main".into(), parts: vec![] };
            edits.entry(root.clone()).or_default().push(rename);
        }
        tail.push_str(&format!("\nfn main() {{ {HARNESS}::serve({HARNESS}::dispatch) }}\n"));
    }
    let dispatch_parts = arms.iter().map(|(id, _)| Part::Wrapper(*id)).collect();
    edits.entry(root.clone()).or_default().push(PartEdit {
        start: root_len,
        end: root_len,
        text: tail,
        parts: dispatch_parts,
    });

    let mut files = BTreeMap::new();
    let mut regions = Vec::new();
    for (file, mut list) in edits {
        let Some(src) = req.sources.files.iter().find(|f| f.path == file) else { continue };
        list.sort_by_key(|e| (e.start, e.end));
        let mut text = String::with_capacity(src.text.len() * 2);
        let mut at = 0;
        for e in &list {
            if e.start < at {
                continue; // overlapping edits never come from `generate`; skip defensively
            }
            text.push_str(&src.text[at..e.start]);
            let begin = text.len();
            let first = text.matches('\n').count() + 1;
            text.push_str(&e.text);
            for (lo, hi, part) in marked(&e.text, first) {
                regions.push(Region::lines(&file, lo, hi, vec![part]));
            }
            let wrappers: Vec<usize> = e
                .parts
                .iter()
                .filter_map(|p| if let Part::Wrapper(id) = p { Some(*id) } else { None })
                .collect();
            if wrappers.is_empty() {
                if !e.parts.is_empty() {
                    // From its first character to its last (an empty edit holds no part).
                    let end = text.len().saturating_sub(1).max(begin);
                    let mut starts: Vec<((usize, usize), u32)> = e
                        .parts
                        .iter()
                        .filter_map(|p| if let Part::Mutant(n) = p { Some(*n) } else { None })
                        .filter_map(|n| {
                            let at = e.text.find(&format!("if {} {{", switch::on(n)))?;
                            Some((position(&text, begin + at), n))
                        })
                        .collect();
                    starts.sort();
                    regions.push(Region {
                        file: file.clone(),
                        lo: position(&text, begin),
                        hi: position(&text, end),
                        parts: e.parts.clone(),
                        starts,
                    });
                }
            } else {
                // Each wrapper and each dispatch arm is a region of its own.
                let lines: Vec<&str> = e.text.lines().collect();
                let find = |needle: &str| lines.iter().position(|l| l.contains(needle));
                for id in wrappers {
                    let arm = find(&format!("// arm {id}"));
                    let start = find(&format!("fn __abex_call_{id}("));
                    let end = find(&format!("// end __abex_call_{id}"));
                    if let Some(a) = arm {
                        regions.push(Region::lines(
                            &file,
                            first + a,
                            first + a,
                            vec![Part::Wrapper(id)],
                        ));
                    }
                    if let (Some(s), Some(en)) = (start, end) {
                        regions.push(Region::lines(
                            &file,
                            first + s,
                            first + en,
                            vec![Part::Wrapper(id)],
                        ));
                    }
                }
            }
            at = e.end;
        }
        text.push_str(&src.text[at..]);
        files.insert(file, text);
    }
    // Mutants `switch` could not place are reported as regions with no lines.
    for n in rejected {
        regions.push(Region::lines(Path::new(""), 0, 0, vec![Part::Mutant(n)]));
    }
    Generated { files, regions, specs }
}

/// The probes of the functions of `req` in `file` that have switched mutants in `list`,
/// unless they are dropped or the directed witness search is off.
fn probe_plans(
    req: &HarnessRequest<'_>,
    skip: &BTreeMap<Part, String>,
    file: &Path,
    text: &str,
    list: &[(u32, &Mutant)],
) -> Vec<(usize, FnProbes)> {
    if !crate::witness::directed_enabled() {
        return Vec::new();
    }
    let mut plans = Vec::new();
    for (id, f) in req.fns.iter().enumerate() {
        if f.file != file || skip.contains_key(&Part::Probe(id)) {
            continue;
        }
        let inside: Vec<(u32, &Mutant)> = list
            .iter()
            .filter(|(_, m)| f.body_span.0 <= m.span.0 && m.span.1 <= f.body_span.1)
            .copied()
            .collect();
        if !inside.is_empty() {
            let base = (id as u32 + 1).saturating_mul(10_000);
            plans.push((id, probe::plan(text, f.body_span, &inside, base)));
        }
    }
    plans
}

/// Byte offset just after the last inner attribute (`#![…]`, `//!`) of a crate root, or after a
/// shebang line, or 0.
fn after_inner_attributes(text: &str) -> Option<usize> {
    use syn::spanned::Spanned;
    let file = syn::parse_file(text).ok()?;
    let Some(last) = file.attrs.last() else {
        return Some(if text.starts_with("#!") && !text.starts_with("#![") {
            text.find('\n').map_or(text.len(), |i| i + 1)
        } else {
            0
        });
    };
    let end = last.span().end();
    let start: usize = text.split_inclusive('\n').take(end.line - 1).map(str::len).sum();
    Some(
        start
            + text[start..].char_indices().nth(end.column).map_or(text[start..].len(), |(i, _)| i),
    )
}

/// Byte offset of the identifier `main` in the root file's `fn main`.
fn find_main(text: &str) -> Option<usize> {
    let file = syn::parse_file(text).ok()?;
    file.items.iter().find_map(|it| match it {
        syn::Item::Fn(f) if f.sig.ident == "main" => {
            let lc = f.sig.ident.span().start();
            let start: usize = text.split_inclusive('\n').take(lc.line - 1).map(str::len).sum();
            Some(start + text[start..].char_indices().nth(lc.column).map_or(0, |(i, _)| i))
        }
        _ => None,
    })
}

/// Leaves out of a copy's manifest the examples that are no tests (`test = true`): a harness
/// built first selects `--examples` for its dependencies to resolve as the tests' will, and
/// must build none (see `cargo.rs`).
fn drop_examples(pkg: &mut toml_edit::DocumentMut) {
    if let Some(package) = pkg.get_mut("package").and_then(|p| p.as_table_like_mut()) {
        package.insert("autoexamples", toml_edit::value(false));
    }
    if let Some(examples) = pkg.get_mut("example").and_then(|e| e.as_array_of_tables_mut()) {
        examples.retain(|e| e.get("test").and_then(|t| t.as_bool()) == Some(true));
        if examples.is_empty() {
            pkg.remove("example");
        }
    }
}

/// Adds the harness binary target (libraries) and a `[workspace]` table where the root has none;
/// leaves the examples out when tests are built.
fn manifests(req: &HarnessRequest<'_>) -> Result<BTreeMap<PathBuf, String>, HarnessError> {
    let mut out = BTreeMap::new();
    let root_manifest = req.workspace_root.join("Cargo.toml");
    let pkg_manifest = req.package_dir.join("Cargo.toml");
    let read = |p: &Path| -> Result<toml_edit::DocumentMut, HarnessError> {
        let text = std::fs::read_to_string(p).map_err(|e| HarnessError::Manifest {
            path: p.to_path_buf(),
            message: e.to_string(),
        })?;
        text.parse().map_err(|e: toml_edit::TomlError| HarnessError::Manifest {
            path: p.to_path_buf(),
            message: e.to_string(),
        })
    };
    let mut pkg = read(&pkg_manifest)?;
    if let Host::Lib { .. } = req.host {
        let mut ex = toml_edit::Table::new();
        ex.insert("name", toml_edit::value(HARNESS));
        ex.insert("path", toml_edit::value(HARNESS_MAIN));
        ex.insert("test", toml_edit::value(false));
        ex.insert("bench", toml_edit::value(false));
        ex.insert("doc", toml_edit::value(false));
        let arr = pkg
            .entry("bin")
            .or_insert(toml_edit::Item::ArrayOfTables(Default::default()))
            .as_array_of_tables_mut()
            .ok_or_else(|| HarnessError::Manifest {
                path: pkg_manifest.clone(),
                message: "`bin` is not an array of tables".into(),
            })?;
        arr.push(ex);
    }
    if !req.test_packages.is_empty() {
        drop_examples(&mut pkg);
    }
    if pkg_manifest == root_manifest && !pkg.contains_key("workspace") {
        pkg.insert("workspace", toml_edit::Item::Table(toml_edit::Table::new()));
    }
    out.insert(pkg_manifest.clone(), pkg.to_string());
    if pkg_manifest != root_manifest {
        let mut root = read(&root_manifest)?;
        if !root.contains_key("workspace") {
            root.insert("workspace", toml_edit::Item::Table(toml_edit::Table::new()));
            out.insert(root_manifest, root.to_string());
        }
    }
    Ok(out)
}

/// A link to the built executable `exe` that later builds in the same target folder do not
/// replace (cargo writes every build of the harness to the same path: the mutants built alone,
/// the suggested tests' builds, other crates' harnesses), named by a digest of the generated
/// sources `overrides`, in `scratch/exe/`.
fn keep_exe(
    scratch: &Path,
    exe: &Path,
    overrides: &BTreeMap<PathBuf, Vec<u8>>,
) -> Result<PathBuf, HarnessError> {
    use sha2::{Digest, Sha256};
    let mut digest = Sha256::new();
    for (path, text) in overrides {
        digest.update(path.to_string_lossy().as_bytes());
        digest.update([0]);
        digest.update(text);
        digest.update([0]);
    }
    let hex: String = digest.finalize().iter().take(8).map(|b| format!("{b:02x}")).collect();
    let name = exe.file_name().map_or_else(|| "harness".into(), |n| n.to_string_lossy());
    let kept = scratch.join("exe").join(format!("{name}-{hex}"));
    let err = |source| ScratchError::Write { path: kept.clone(), source };
    fs_err::create_dir_all(scratch.join("exe")).map_err(err)?;
    // A link from an earlier build is replaced: its toolchain or dependencies may have changed.
    match std::fs::remove_file(&kept) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(err(e).into()),
        _ => {}
    }
    if std::fs::hard_link(exe, &kept).is_err() {
        fs_err::copy(exe, &kept).map_err(err)?;
    }
    Ok(kept)
}

/// Generates, copies and builds the harness (and the test binaries when asked); drops the parts
/// that do not compile, with the compiler's message.
pub fn build(req: &HarnessRequest<'_>) -> Result<Harness, HarnessError> {
    let started = Instant::now();
    let tree = req.scratch.join("tree");
    let target_dir = &req.target_dir;
    let mut dropped: BTreeMap<Part, String> = req.known_dropped.clone();
    let mut unviable: BTreeSet<u32> = BTreeSet::new();
    let manifest_overrides = manifests(req)?;
    let pkg_rel = rel(req.package_dir, req.workspace_root);
    for _round in 0..6 {
        let generated = generate(req, &dropped);
        for r in generated.regions.iter().filter(|r| !r.placed()) {
            for p in &r.parts {
                dropped
                    .entry(*p)
                    .or_insert_with(|| "it cannot be switched alongside the other mutants".into());
            }
        }
        let mut overrides: BTreeMap<PathBuf, Vec<u8>> = BTreeMap::new();
        for (abs, text) in generated.files.iter().chain(&manifest_overrides) {
            overrides.insert(rel(abs, req.workspace_root), text.clone().into_bytes());
        }
        if let Host::Lib { crate_name } = &req.host {
            let main = format!(
                "#[allow(unused_extern_crates)]\nextern crate {crate_name};\nfn main() {{ {crate_name}::{HARNESS}::serve({crate_name}::{HARNESS}::dispatch) }}\n"
            );
            overrides.insert(pkg_rel.join(HARNESS_MAIN), main.into_bytes());
        }
        scratch::sync(req.workspace_root, &tree, &overrides, &[])?;

        let bin = match &req.host {
            Host::Lib { .. } => HARNESS.to_string(),
            Host::Bin { name } => name.clone(),
        };
        let own = match &req.host {
            Host::Lib { .. } => vec!["--lib"],
            Host::Bin { name } => vec!["--bin", name.as_str()],
        };
        let args = |what| cargo::build_args(what, req.package, &bin, &own, &req.test_packages);
        let run = cargo::run(&tree, target_dir, &args(req.what), req.cargo_flags)
            .map_err(|source| HarnessError::Cargo { dir: tree.clone(), source })?;
        let exe = run.executables.iter().find(|(t, b)| b.name == bin && !t).map(|(_, b)| &b.exe);
        let tests: Vec<TestBinary> = run.tests();
        // Tests alone need no executable: the harness of the build they check serves.
        let exe = match exe {
            Some(exe) if run.ok => Some(keep_exe(req.scratch, exe, &overrides)?),
            None if run.ok && req.what == Build::OwnTests => Some(PathBuf::new()),
            _ => None,
        };
        if run.ok {
            if let Some(exe) = exe {
                // The harness came first: its tests build now, while it serves.
                let later = req.what == Build::HarnessFirst && !req.test_packages.is_empty();
                let pending = later.then(|| {
                    PendingTests::start(&tree, target_dir, &args(Build::All), req.cargo_flags)
                });
                return Ok(Harness {
                    exe,
                    cwd: tree.join(&pkg_rel),
                    dropped,
                    unviable,
                    build_time: started.elapsed(),
                    tests,
                    tree: tree.clone(),
                    probe_specs: generated.specs,
                    pending,
                });
            }
        }
        // Probes go first: an error in their lines, or away from every region of a file that
        // has probes (they can break type inference around them), drops them and nothing else
        // this round; without them, the switches may build.
        let probes = blamed_probes(&generated, &run.errors, &tree, &pkg_rel, req.workspace_root);
        if probes.iter().any(|(p, _)| !dropped.contains_key(p)) {
            for (p, why) in probes {
                dropped.entry(p).or_insert(why);
            }
            continue;
        }
        // Attribute each error to a generated part; an error outside every part is the crate's own.
        let mut attributed = false;
        let mut foreign = None;
        for e in &run.errors {
            let in_file = in_file_of(&generated, e, &tree, &pkg_rel, req.workspace_root);
            let hits: Vec<&Vec<Part>> =
                in_file.iter().filter(|r| r.holds(e)).map(|r| &r.parts).collect();
            if hits.is_empty() {
                // A mutant can break code outside its own span (type inference, a deleted match
                // arm): a mutant applied alone takes the blame, and switched mutants in the
                // erring file are moved to builds of their own.
                let reason = first_lines(&e.rendered, 4);
                if let Some((n, _)) =
                    req.apply.filter(|(n, _)| !dropped.contains_key(&Part::Mutant(*n)))
                {
                    dropped.insert(Part::Mutant(n), reason);
                    attributed = true;
                    continue;
                }
                let in_file: Vec<Part> = in_file
                    .iter()
                    .flat_map(|r| r.parts.iter().copied())
                    .filter(|p| matches!(p, Part::Mutant(_)) && !dropped.contains_key(p))
                    .collect();
                if !in_file.is_empty() {
                    for p in in_file {
                        dropped.insert(p, "it breaks the build of its file when switched".into());
                    }
                    attributed = true;
                    continue;
                }
                foreign.get_or_insert(e.rendered.clone());
                continue;
            }
            // An error the mutant alone would give, in its own branch: that mutant is
            // unviable, and the others switched beside it are not to blame.
            if let Some(n) = branch_of(&in_file, e) {
                unviable.insert(n);
                dropped.entry(Part::Mutant(n)).or_insert_with(|| first_lines(&e.rendered, 4));
                attributed = true;
                continue;
            }
            // The innermost region is the smallest; drop every part it holds.
            if let Some(parts) = hits.iter().min_by_key(|p| p.len()) {
                let mutants: Vec<u32> = parts
                    .iter()
                    .filter_map(|p| if let Part::Mutant(n) = p { Some(*n) } else { None })
                    .collect();
                if let ([n], true) = (mutants.as_slice(), own_error(&e.rendered)) {
                    unviable.insert(*n);
                }
                for p in parts.iter() {
                    dropped.entry(*p).or_insert_with(|| first_lines(&e.rendered, 4));
                    attributed = true;
                }
            }
        }
        if !attributed {
            let first_error = foreign
                .or_else(|| run.errors.first().map(|e| e.rendered.clone()))
                .unwrap_or_else(|| first_lines(run.stderr.trim(), 20));
            return Err(HarnessError::CrateDoesNotBuild {
                package: req.package.to_string(),
                first_error: first_lines(&first_error, 30),
            });
        }
    }
    Err(HarnessError::CrateDoesNotBuild {
        package: req.package.to_string(),
        first_error:
            "the harness kept failing to build after dropping the parts it could not compile".into(),
    })
}

/// The switched mutant whose own branch the compiler's error `e` points into, when the error is
/// one that mutant alone gives whatever surrounds it ([`own_error`], but not a type the compiler
/// cannot infer or a mismatch, which a probe's wrapping can cause, nor an error naming abex's
/// own code): the nearest branch start before the error in the smallest region of `in_file`
/// that holds it. `v * u` with `+` and `/` switched in, where only `f64 / Unit` does not
/// exist: the `/` is unviable, and the `+` stays switched instead of being built alone.
fn branch_of(in_file: &[&Region], e: &CompileError) -> Option<u32> {
    let first = e.rendered.lines().next().unwrap_or_default();
    let guessed = ["E0282", "E0283", "E0308"].iter().any(|c| first.contains(&format!("[{c}]")));
    if !own_error(&e.rendered) || guessed || first.to_lowercase().contains("abex") {
        return None;
    }
    let region = in_file.iter().filter(|r| r.holds(e)).min_by_key(|r| r.parts.len())?;
    let at = (e.line, e.column);
    let (_, n) = region.starts.iter().rev().find(|(start, _)| *start <= at)?;
    region.parts.contains(&Part::Mutant(*n)).then_some(*n)
}

/// Whether the compiler's error `rendered` is about a switched mutant's own code, so that the
/// mutant cannot compile applied alone either: a trait its value does not implement (E0277, a
/// `Default::default()` for a `T` without `Default`; E0271), a function, method or name that
/// does not exist (E0599, E0425, E0433, E0412, E0423: `ParseResult::new()` for a `Result`
/// alias), the wrong number of arguments (E0061), an operator the type lacks (E0369, E0600,
/// E0614), a type the compiler cannot infer (E0282, E0283: `Serde::from(Default::default())`;
/// a switch's other branch only gives inference more to go on), or a value of the wrong type (E0308: a body switch is `return value;`, checked
/// against the function's return type as the mutant alone would be). A mismatch between the
/// branches of a switch is not one of them: they must agree on a type where the mutant alone
/// would not have to (an `impl Trait` body), so such a mutant is still built alone.
fn own_error(rendered: &str) -> bool {
    const OWN: [&str; 14] = [
        "E0277", "E0271", "E0599", "E0425", "E0433", "E0412", "E0423", "E0061", "E0369", "E0600",
        "E0614", "E0282", "E0283", "E0308",
    ];
    let code =
        rendered.strip_prefix("error[").and_then(|rest| rest.split_once(']')).map(|(code, _)| code);
    // "`if` and `else` have incompatible types", "`match` arms have incompatible types".
    let between_branches =
        rendered.lines().next().is_some_and(|first| first.contains("incompatible types"));
    code.is_some_and(|c| OWN.contains(&c)) && !between_branches
}

/// The placed regions of the file the compiler's error `e` is in (it names the file relative to
/// the workspace root or to the package's folder `pkg_rel` of the copy `tree`).
fn in_file_of<'g>(
    generated: &'g Generated,
    e: &CompileError,
    tree: &Path,
    pkg_rel: &Path,
    workspace_root: &Path,
) -> Vec<&'g Region> {
    let here = [tree.join(&e.file), tree.join(pkg_rel).join(&e.file)];
    generated
        .regions
        .iter()
        .filter(|r| r.placed() && here.contains(&tree.join(rel(&r.file, workspace_root))))
        .collect()
}

/// The probe parts to drop for `errors`: those in the regions an error falls in, or, for an
/// error outside every region, those of its file.
fn blamed_probes(
    generated: &Generated,
    errors: &[CompileError],
    tree: &Path,
    pkg_rel: &Path,
    workspace_root: &Path,
) -> Vec<(Part, String)> {
    let mut out: Vec<(Part, String)> = Vec::new();
    for e in errors {
        let in_file = in_file_of(generated, e, tree, pkg_rel, workspace_root);
        if branch_of(&in_file, e).is_some() {
            continue; // the mutant's own error: its probes are not to blame
        }
        let hits: Vec<_> = in_file.iter().filter(|r| r.holds(e)).collect();
        let blamed: Vec<Part> = if hits.is_empty() {
            in_file.iter().flat_map(|r| r.parts.iter().copied()).collect()
        } else {
            hits.iter().flat_map(|r| r.parts.iter().copied()).collect()
        };
        for p in blamed.into_iter().filter(|p| matches!(p, Part::Probe(_))) {
            if !out.iter().any(|(q, _)| *q == p) {
                out.push((
                    p,
                    format!("its probes do not compile: {}", first_lines(&e.rendered, 4)),
                ));
            }
        }
    }
    out
}

fn first_lines(s: &str, n: usize) -> String {
    s.lines().take(n).collect::<Vec<_>>().join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marked_parts_are_regions_of_their_own_smallest_first() {
        let text = "a\n// abex-part built 256 {\nimpl X {\n  \"A\" => f(), // abex-part built 257 =\n}\n// abex-part built 256 }\n// abex-part inst 3 1 {\nfn g() {}\n// abex-part inst 3 1 }\n";
        let regions = marked(text, 10);
        assert_eq!(
            regions,
            [(13, 13, Part::Built(257)), (16, 18, Part::Inst(3, 1)), (11, 15, Part::Built(256))]
        );
    }

    #[test]
    fn the_lint_allowance_goes_after_the_crates_own_inner_attributes() {
        let text = "//! Docs.\n#![deny(warnings)]\n\npub fn f() {}\n";
        let at = after_inner_attributes(text).unwrap();
        assert_eq!(&text[..at], "//! Docs.\n#![deny(warnings)]");
        assert_eq!(after_inner_attributes("pub fn f() {}\n"), Some(0));
    }

    #[test]
    fn probes_take_the_blame_before_the_mutants_that_share_their_lines() {
        let (tree, pkg) = (Path::new("/s/tree"), Path::new(""));
        let file = PathBuf::from("/w/src/lib.rs");
        let generated = Generated {
            files: BTreeMap::new(),
            regions: vec![
                Region::lines(&file, 3, 3, vec![Part::Mutant(1), Part::Mutant(2), Part::Probe(0)]),
                Region::lines(&file, 9, 9, vec![Part::Mutant(3)]),
                Region::lines(&file, 12, 12, vec![Part::Probe(1)]),
            ],
            specs: BTreeMap::new(),
        };
        let error = |line: usize| CompileError {
            file: "src/lib.rs".into(),
            line,
            column: 5,
            rendered: "error[E0282]: type annotations needed".into(),
        };
        let blamed = blamed_probes(&generated, &[error(3)], tree, pkg, Path::new("/w"));
        assert_eq!(blamed.iter().map(|(p, _)| *p).collect::<Vec<_>>(), [Part::Probe(0)]);
        assert!(blamed[0].1.contains("type annotations needed"));
        // An error in a mutant's own lines blames no probe.
        assert!(blamed_probes(&generated, &[error(9)], tree, pkg, Path::new("/w")).is_empty());
        // An error away from every region blames the file's probes.
        let away = blamed_probes(&generated, &[error(20)], tree, pkg, Path::new("/w"));
        assert_eq!(
            away.iter().map(|(p, _)| *p).collect::<Vec<_>>(),
            [Part::Probe(0), Part::Probe(1)]
        );
    }

    #[test]
    fn an_error_of_a_mutant_s_own_kind_in_its_branch_names_that_mutant_alone() {
        let file = PathBuf::from("/w/src/lib.rs");
        let mut region = Region::lines(&file, 4, 4, vec![Part::Mutant(1), Part::Mutant(2)]);
        region.lo = (4, 10);
        region.hi = (4, 200);
        region.starts = vec![((4, 11), 1), ((4, 60), 2)];
        let regions = [&region];
        let error = |column: usize, rendered: &str| CompileError {
            file: "src/lib.rs".into(),
            line: 4,
            column,
            rendered: rendered.into(),
        };
        let divide = "error[E0277]: cannot divide `f64` by `Unit`";
        assert_eq!(branch_of(&regions, &error(30, divide)), Some(1));
        assert_eq!(branch_of(&regions, &error(90, divide)), Some(2));
        // Before the first branch, outside the region, or of a kind a probe can cause: none.
        assert_eq!(branch_of(&regions, &error(10, divide)), None);
        assert_eq!(branch_of(&regions, &error(201, divide)), None);
        let infer = "error[E0283]: type annotations needed";
        assert_eq!(branch_of(&regions, &error(90, infer)), None);
        let probe = "error[E0599]: no method named `abex_num` found for struct `Unit`";
        assert_eq!(branch_of(&regions, &error(90, probe)), None);
    }

    #[test]
    fn errors_in_a_mutant_s_own_code_are_told_from_a_switch_s_branches_disagreeing() {
        assert!(own_error("error[E0277]: the trait bound `T: Default` is not satisfied\n  -->"));
        assert!(own_error("error[E0599]: no variant or associated item named `new` found"));
        assert!(own_error("error[E0308]: mismatched types\n  --> src/lib.rs:17:53"));
        assert!(own_error("error[E0283]: type annotations needed\n  --> src/lib.rs:122:10"));
        assert!(!own_error("error[E0308]: `if` and `else` have incompatible types"));
        assert!(!own_error("error[E0308]: `match` arms have incompatible types"));
        assert!(!own_error("error[E0502]: cannot borrow `x` as mutable"));
        assert!(!own_error("error: expected expression, found `)`"));
    }

    #[test]
    fn regions_on_one_line_are_told_apart_by_their_columns() {
        let text = "fn f() -> u8 { if on(1) { return A; }  if on(2) { return B; } 7 }\n";
        let at = |needle: &str| text.find(needle).unwrap();
        let first = Region {
            file: PathBuf::from("/w/src/lib.rs"),
            lo: position(text, at("if on(1)")),
            hi: position(text, at("  if on(2)")),
            parts: vec![Part::Mutant(1)],
            starts: Vec::new(),
        };
        let second = Region {
            lo: position(text, at("if on(2)")),
            hi: position(text, at(" 7 }")),
            parts: vec![Part::Mutant(2)],
            ..first.clone()
        };
        // The compiler's column of `B` (1-based, in characters).
        let error = CompileError {
            file: "src/lib.rs".into(),
            line: 1,
            column: at("B;") + 1,
            rendered: "error[E0425]: cannot find value `B` in this scope".into(),
        };
        assert!(second.holds(&error) && !first.holds(&error));
        assert_eq!(position("ab\ncé d", "ab\ncé ".len()), (2, 4));
        assert!(Region::lines(Path::new("/w/src/lib.rs"), 1, 1, vec![]).holds(&error));
    }

    #[test]
    fn main_is_found_in_a_binary_root() {
        let text = "mod calc;\n\nfn main() {\n    println!(\"hi\");\n}\n";
        let at = find_main(text).unwrap();
        assert_eq!(&text[at..at + 4], "main");
    }
}
