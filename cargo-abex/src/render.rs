//! Terminal rendering of a run for people: what the run is doing (harness builds, mutants under
//! test) and a progress bar per function while it is explored (hidden when stderr is not a
//! terminal or in CI); as each function is done, its block of the core's terminal text
//! (`abex::render::text`), and at the end the text's totals. Everything goes to stderr; stdout
//! is reserved for `--json`. Colour follows the `console` crate's choice for stderr: a
//! terminal, and neither `NO_COLOR` nor `CLICOLOR=0`.

use std::path::Path;
use std::time::Duration;

use abex::out::REPORT_FILE;
use abex::render::text::{self, TextOptions};
use abex::report::Report;
use abex::run::Event;
use abex::targets::Drive;
use console::style;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Renders events as they come.
pub struct Terminal {
    quiet: bool,
    text: TextOptions,
    bar: Option<ProgressBar>,
    in_ci: bool,
}

/// Prints an error, with its `hint:` lines highlighted.
pub fn error(message: &str) {
    let mut lines = message.lines();
    if let Some(first) = lines.next() {
        eprintln!("{} {first}", style("error:").red().bold());
    }
    for l in lines {
        match l.strip_prefix("hint:") {
            Some(h) => eprintln!("{}{h}", style("hint:").cyan().bold()),
            None => eprintln!("{l}"),
        }
    }
}

impl Terminal {
    /// A renderer; `quiet` prints only the summary, `show` boundaries per group.
    pub fn new(quiet: bool, show: usize) -> Terminal {
        let in_ci =
            std::env::var_os("CI").is_some() || std::env::var_os("GITHUB_ACTIONS").is_some();
        let text =
            TextOptions { show, colour: console::colors_enabled_stderr(), report_path: None };
        Terminal { quiet, text, bar: None, in_ci }
    }

    fn line(&self, text: impl AsRef<str>) {
        match &self.bar {
            Some(b) => b.suspend(|| eprintln!("{}", text.as_ref())),
            None => eprintln!("{}", text.as_ref()),
        }
    }

    /// Renders one event.
    pub fn event(&mut self, e: Event<'_>) {
        match e {
            Event::Targets { root, targets } => {
                let driven = targets.iter().filter(|t| t.drive == Drive::Supported).count();
                if targets.is_empty() {
                    self.line(format!(
                        "{} no function to analyse in `{}`: the diff touches no function of a library or binary target\nhint: name one with `--function FILE::NAME`, or use `--all`",
                        style("warning:").yellow().bold(),
                        root.display()
                    ));
                } else if !self.quiet {
                    self.line(format!(
                        "{} {} function{} ({driven} to explore)",
                        style("abex").bold(),
                        targets.len(),
                        if targets.len() == 1 { "" } else { "s" }
                    ));
                }
            }
            Event::Building { package, functions } => {
                if !self.quiet {
                    self.line(format!(
                        "{} harness for `{package}` ({functions} function{})",
                        style("   Building").green().bold(),
                        if functions == 1 { "" } else { "s" }
                    ));
                }
            }
            Event::Built { package, time } => {
                if !self.quiet {
                    self.line(format!(
                        "{} harness for `{package}` in {:.1} s",
                        style("      Built").green().bold(),
                        time.as_secs_f64()
                    ));
                }
            }
            Event::Exploring { target, pairs, .. } => {
                if self.quiet || self.in_ci {
                    return;
                }
                let bar =
                    ProgressBar::with_draw_target(Some(pairs as u64), ProgressDrawTarget::stderr());
                bar.set_style(
                    ProgressStyle::with_template(
                        "  {prefix:.bold} [{bar:30}] {pos}/{len} pairs {msg}",
                    )
                    .unwrap_or_else(|_| ProgressStyle::default_bar())
                    .progress_chars("=> "),
                );
                bar.set_prefix(target.qualified_name.clone());
                bar.enable_steady_tick(Duration::from_millis(200));
                self.bar = Some(bar);
            }
            Event::Progress { progress, .. } => {
                if let Some(b) = &self.bar {
                    b.set_position(progress.pairs_evaluated as u64);
                    b.set_message(format!(
                        "· {} boundaries · QD {:.1}",
                        progress.bc_count, progress.qd_score
                    ));
                }
            }
            Event::Testing { package, mutants, tests } => {
                if !self.quiet {
                    self.line(format!(
                        "{} {mutants} mutants of `{package}` against {tests} test binar{}",
                        style("    Testing").green().bold(),
                        if tests == 1 { "y" } else { "ies" }
                    ));
                }
            }
            Event::Done { report, .. } => {
                if let Some(b) = self.bar.take() {
                    b.finish_and_clear();
                }
                if !self.quiet {
                    eprint!("{}", text::target(report, &self.text));
                }
            }
        }
    }

    /// Clears any bar left (after an error).
    pub fn finish_bars(&mut self) {
        if let Some(b) = self.bar.take() {
            b.finish_and_clear();
        }
    }

    /// The closing lines: totals, where the report is, the engine, and what makes the run not a
    /// clean pass.
    pub fn summary(&self, report: &Report, out: &Path) {
        let opts = TextOptions { report_path: Some(out.join(REPORT_FILE)), ..self.text.clone() };
        eprint!("{}", text::totals(report, &opts));
    }
}
