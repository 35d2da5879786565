//! Choosing a run's functions, for every language: the diff's, named ones or all of them, the
//! shard of them a run analyses, and the callers (vehicles) that drive those abex cannot call.
//! A front end says how its project lists functions ([`Catalog`]); this does the rest once.

use std::path::Path;

use super::config::{RunConfig, Selection};
use super::error::RunError;
use super::front::Choice;
use super::shard::shard;
use super::vehicles::attach;
use crate::targets::diff::{self, Changes};
use crate::targets::Target;

/// How a project lists its functions.
pub trait Catalog {
    /// A chosen function: where it lives and its target record.
    type Item;
    /// The functions `FILE::NAME` names (`cwd` for a relative file); the error says why none.
    fn named(&self, spec: &str, cwd: &Path) -> Result<Vec<Self::Item>, String>;
    /// Every function.
    fn every(&self) -> Vec<Self::Item>;
    /// The functions `changes` touches.
    fn changed(&self, changes: &Changes) -> Vec<Self::Item>;
    /// Whether two items are the same function.
    fn same(&self, a: &Self::Item, b: &Self::Item) -> bool;
    /// An item's target record.
    fn target<'i>(&self, item: &'i Self::Item) -> &'i Target;
    /// An item's target record, to change its drive.
    fn record<'i>(&self, item: &'i mut Self::Item) -> &'i mut Target;
    /// A callable function that calls `item`, directly or through a few calls.
    fn caller(&self, item: &Self::Item) -> Option<Self::Item>;
}

/// The functions of `catalog` (rooted at `root`) that the run of `cfg` analyses, then their
/// vehicles, and what the run chose. Targets come first: a target's index is its position.
pub fn choose<C: Catalog>(
    catalog: &C,
    cfg: &RunConfig,
    root: &Path,
    language: &'static str,
) -> Result<(Vec<C::Item>, Choice), RunError> {
    let (chosen, base) = match &cfg.selection {
        Selection::All => (catalog.every(), None),
        Selection::Functions(specs) => {
            let mut out: Vec<C::Item> = Vec::new();
            for spec in specs {
                for c in catalog.named(spec, &cfg.cwd).map_err(RunError::UnknownFunction)? {
                    if !out.iter().any(|o| catalog.same(o, &c)) {
                        out.push(c);
                    }
                }
            }
            (out, None)
        }
        Selection::Diff if cfg.diff_file.is_some() => {
            let file = cfg.cwd.join(cfg.diff_file.as_deref().unwrap_or(Path::new("")));
            (catalog.changed(&diff::changes_from_file(root, &file)?), None)
        }
        Selection::Diff => {
            let base = diff::resolve_base(root, cfg.base.as_deref())?;
            let changes = diff::changes(root, &base)?;
            (catalog.changed(&changes), Some(base))
        }
    };
    let mut chosen = match cfg.shard {
        Some((k, n)) => shard(chosen, |c| catalog.target(c), k, n),
        None => chosen,
    };
    // A function abex cannot call is driven through one that calls it; the callers join the
    // chosen functions, after the targets.
    let n = chosen.len();
    let vehicles = attach(
        &mut chosen,
        n,
        |c| catalog.record(c),
        |a, b| catalog.same(a, b),
        |c| catalog.caller(c),
    );
    let mut functions = Vec::with_capacity(chosen.len());
    for c in &mut chosen {
        functions.push(catalog.record(c).clone());
    }
    let targets = functions[..n].to_vec();
    let choice = Choice { language, root: root.to_path_buf(), base, targets, functions, vehicles };
    Ok((chosen, choice))
}
