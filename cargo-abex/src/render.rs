//! Terminal rendering of a run for people: what the run is doing (harness builds, mutants under
//! test) and a progress bar per function while it is explored (hidden when stderr is not a
//! terminal or in CI); as each function is done, its block of the core's terminal text
//! (`abex::render::text`), and at the end the text's totals. Everything goes to stderr; stdout
//! is reserved for `--json`. Colour follows the `console` crate's choice for stderr: a
//! terminal, and neither `NO_COLOR` nor `CLICOLOR=0`.

use std::path::Path;
use std::time::Duration;

use abex::event::Event;
use abex::out::REPORT_FILE;
use abex::render::progress;
use abex::render::text::{self, TextOptions};
use abex::report::Report;
use console::style;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Renders events as they come.
pub struct Terminal {
    quiet: bool,
    text: TextOptions,
    bar: Option<ProgressBar>,
    in_ci: bool,
}

/// Prints an error, with its `hint:` lines highlighted; control characters in it (a build's
/// output, a path) are written out.
pub fn error(message: &str) {
    let message = abex::render::inert::escape_controls(message, false);
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

    /// Renders one event: its progress line (the verb styled), a bar while a function is
    /// explored, the function's block of text when it is done.
    pub fn event(&mut self, e: Event<'_>) {
        if let Some(l) = progress::line(&e, "rust") {
            if matches!(e, Event::Exploring { .. }) {
                // The bar says it, where there is one.
            } else if l.warning {
                let mut lines = l.text.lines();
                let first = lines.next().unwrap_or_default();
                self.line(format!("{} {first}", style(l.verb).yellow().bold()));
                for rest in lines {
                    match rest.strip_prefix("hint:") {
                        Some(h) => self.line(format!("{}{h}", style("hint:").cyan().bold())),
                        None => self.line(rest),
                    }
                }
            } else if !self.quiet {
                let verb = if l.verb == "abex" {
                    style(l.verb.to_string()).bold()
                } else {
                    style(format!("{:>11}", l.verb)).green().bold()
                };
                self.line(format!("{verb} {}", l.text));
            }
        }
        match e {
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
                    b.set_message(format!("· {} boundaries", progress.bc_count));
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
            _ => {}
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
