//! GitHub: posting a report as a pull-request review, and the files GitHub Actions reads (the
//! job summary, step outputs). Works from a saved [`crate::report::Report`] alone, so any front
//! end (`cargo abex`, `pytest --abex`) and a separate `workflow_run` job can post.

pub mod actions;
pub mod api;
pub mod closing;
pub mod event;
pub mod finding;
pub mod plan;
pub mod post;
pub mod publish;
pub mod suggestion;

pub use event::{Context, PullRequest};
pub use post::{post, PostError, PostOptions, Posted};
pub use publish::{publish, Publish, Published};
