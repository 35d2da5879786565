//! The renderers: every surface of a run drawn from its report alone. They depend on the report;
//! the report depends on none of them. Each returns its text (or document) and never prints or
//! writes: the output folder (`out.rs`) writes the files, the front ends print.
//!
//! - `text`: the terminal text both front ends print;
//! - `progress`: the progress lines both front ends print while a run goes;
//! - `markdown`: `summary.md`, also the GitHub job summary;
//! - `junit`: `junit.xml`;
//! - `leftovers`: the survivors without a witness grouped by reason, for the three above;
//! - `stryker`: `mutation-report.json` in the mutation-testing-report-schema;
//! - `html`: `report.html`, boundary maps, QD-score charts and the mutants in their source;
//! - `sarif`: `abex.sarif`, SARIF 2.1.0 for code scanning;
//! - `annotations`: GitHub Actions `::warning` lines, one per gap;
//! - `reach`: the note every surface gives a function no test reaches.
//! - `inert`: how every surface shows the report's text as data (code spans, safe fences,
//!   escaped markup and control characters).

pub mod annotations;
pub mod html;
pub mod inert;
pub mod junit;
pub mod leftovers;
pub mod markdown;
pub mod progress;
pub mod reach;
pub mod sarif;
pub mod stryker;
pub mod text;

pub use text::TextOptions;
