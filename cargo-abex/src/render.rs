//! Terminal rendering of a run for people: a progress bar per function while it is explored
//! (hidden when stderr is not a terminal), then its boundaries grouped by validity group,
//! strongest first. Everything goes to stderr; stdout is reserved for `--json`.

use std::path::Path;
use std::time::Duration;

use abex::archive::Group;
use abex::pipeline::Event;
use abex::report::{Cell, MutationReport, Report, TargetReport};
use abex::targets::{Drive, Target};
use console::style;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Renders events as they come.
pub struct Terminal {
    quiet: bool,
    show: usize,
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

/// What makes two boundary cells "the same boundary" for display: the arguments that differ
/// between the two inputs (position and both values), and the kinds of the two outcomes.
fn boundary_key(c: &Cell) -> String {
    let kind = |o: &abex::value::Outcome| format!("{:?}", std::mem::discriminant(o));
    let key = |(a, b): (usize, usize)| {
        let mut key = String::new();
        for (i, (x, y)) in c.inputs[a].iter().zip(&c.inputs[b]).enumerate() {
            if x != y {
                key.push_str(&format!("{i}:{}|{};", x.to_json(), y.to_json()));
            }
        }
        key + &kind(&c.outcomes[a]) + &kind(&c.outcomes[b])
    };
    // The pair in either order is the same boundary.
    key((0, 1)).min(key((1, 0)))
}

fn truncate(s: &str, max: usize) -> String {
    let s = s.replace('\n', "\\n");
    if s.chars().count() <= max {
        s
    } else {
        format!("{}…", s.chars().take(max - 1).collect::<String>())
    }
}

impl Terminal {
    /// A renderer; `quiet` prints only the summary, `show` boundaries per group.
    pub fn new(quiet: bool, show: usize) -> Terminal {
        let in_ci =
            std::env::var_os("CI").is_some() || std::env::var_os("GITHUB_ACTIONS").is_some();
        Terminal { quiet, show, bar: None, in_ci }
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
            Event::Warning { message } => {
                let mut lines = message.lines();
                let first = lines.next().unwrap_or_default();
                self.line(format!("{} {first}", style("warning:").yellow().bold()));
                for l in lines {
                    self.line(l);
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
            Event::Proving { package, survivors } => {
                if !self.quiet && survivors > 0 {
                    self.line(format!(
                        "{} {survivors} survivor{} of `{package}`: witnesses and suggested tests",
                        style("    Proving").green().bold(),
                        if survivors == 1 { "" } else { "s" }
                    ));
                }
            }
            Event::Done { report, .. } => {
                if let Some(b) = self.bar.take() {
                    b.finish_and_clear();
                }
                if !self.quiet {
                    self.target(report);
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

    fn header(&self, t: &Target) {
        eprintln!();
        eprintln!(
            "{}  {}",
            style(&t.qualified_name).bold(),
            style(format!("{}:{}-{}", t.file.display(), t.span.start_line, t.span.end_line)).dim()
        );
        eprintln!("  {}", style(truncate(&t.signature, 110)).dim());
    }

    fn target(&self, r: &TargetReport) {
        self.header(&r.target);
        self.boundaries(r);
        if let Some(m) = &r.mutation {
            self.mutation(m);
        }
    }

    fn mutation(&self, m: &MutationReport) {
        eprintln!("  {} {}", style("mutants").bold(), m.counts.describe());
        if m.self_check_killed == Some(false) {
            eprintln!(
                "  {} no test fails when this function panics: the tests do not reach it",
                style("warning:").yellow().bold()
            );
        }
        for x in m.mutants.iter().filter(|x| x.witness.is_some()) {
            let w = x.witness.as_ref().expect("filtered");
            eprintln!(
                "  {} {}:{}  {}",
                style("GAP").red().bold(),
                x.file.display(),
                x.line,
                truncate(&x.description, 90)
            );
            eprintln!(
                "      on {}: original → {}, mutant → {}",
                truncate(&abex::value::stringify_input(&w.input), 50),
                truncate(&w.original.stringify(), 50),
                truncate(&w.mutant.stringify(), 50)
            );
        }
        let equivalent = m.mutants.iter().filter(|x| x.possibly_equivalent).count();
        if equivalent > 0 {
            eprintln!("  {}", style(format!("{equivalent} survivor(s) with no witness: possibly equivalent, not reported as gaps")).dim());
        }
        if m.unpinned.len() > self.show {
            eprintln!(
                "  {} boundaries the tests do not pin (strongest {} shown):",
                m.unpinned.len(),
                self.show
            );
        }
        for b in m.unpinned.iter().take(self.show) {
            eprintln!(
                "  {} {} → {}  |  {} → {}  (moved by {})",
                style("unpinned").yellow(),
                truncate(&b.inputs[0], 30),
                truncate(&b.outputs[0], 30),
                truncate(&b.inputs[1], 30),
                truncate(&b.outputs[1], 30),
                b.mutants.join(", ")
            );
        }
        for s in &m.suggested_tests {
            eprintln!(
                "  {} (kills {})",
                style("suggested test").green().bold(),
                s.kills.join(", ")
            );
            for line in s.code.lines() {
                eprintln!("    {line}");
            }
        }
    }

    fn boundaries(&self, r: &TargetReport) {
        let Some(x) = &r.exploration else {
            if let Drive::Unsupported { reason } = &r.target.drive {
                eprintln!("  {} {}", style("not explored:").yellow(), truncate(reason, 200));
            }
            return;
        };
        eprintln!(
            "  {} pairs, {} calls in {:.2} s · QD-score {:.2} · {} boundaries in {} cells",
            x.pairs_evaluated,
            x.evaluations,
            x.time_ms as f64 / 1000.0,
            x.qd_score,
            x.bc_count,
            x.cells_total
        );
        for group in [Group::VE, Group::VV, Group::EE] {
            let cells: Vec<&Cell> = x.boundaries().filter(|c| c.group == Some(group)).collect();
            if cells.is_empty() {
                continue;
            }
            let label = match group {
                Group::VV => "VV  both valid, different outputs",
                Group::VE => "VE  valid on one side, error on the other",
                Group::EE => "EE  different errors",
            };
            eprintln!("  {} ({})", style(label).cyan(), cells.len());
            // The same threshold shows up in many cells (other arguments vary): show it once.
            let mut seen = std::collections::HashSet::new();
            let distinct: Vec<&&Cell> =
                cells.iter().filter(|c| seen.insert(boundary_key(c))).collect();
            for c in distinct.iter().take(self.show) {
                eprintln!(
                    "    PD {:<5.2} {} → {}",
                    c.pd,
                    truncate(&c.strings.inputs[0], 40),
                    truncate(&c.strings.outputs[0], 60)
                );
                eprintln!(
                    "             {} → {}",
                    truncate(&c.strings.inputs[1], 40),
                    truncate(&c.strings.outputs[1], 60)
                );
            }
            if distinct.len() > self.show || cells.len() > distinct.len() {
                let more = distinct.len().saturating_sub(self.show);
                eprintln!(
                    "    {}",
                    style(format!(
                        "… {more} more distinct, {} cells in all, in report.json",
                        cells.len()
                    ))
                    .dim()
                );
            }
        }
    }

    /// The closing lines: totals and where the report is.
    pub fn summary(&self, report: &Report, out: &Path) {
        let explored = report.targets.iter().filter(|t| t.exploration.is_some()).count();
        let skipped = report.targets.len() - explored;
        let boundaries: usize =
            report.targets.iter().filter_map(|t| t.exploration.as_ref()).map(|x| x.bc_count).sum();
        let gaps: usize = report
            .targets
            .iter()
            .filter_map(|t| t.mutation.as_ref())
            .map(|m| m.counts.witnessed)
            .sum();
        let tested: usize = report
            .targets
            .iter()
            .filter_map(|t| t.mutation.as_ref())
            .map(|m| m.counts.tested())
            .sum();
        eprintln!();
        eprintln!(
            "{} {explored} function{} explored, {skipped} not explored, {boundaries} boundaries, {tested} mutants tested, {gaps} gap{} · report: {}",
            style("abex:").bold(),
            if explored == 1 { "" } else { "s" },
            if gaps == 1 { "" } else { "s" },
            out.join("report.json").display()
        );
        if let Some(llm) = &report.llm {
            eprintln!("{} {}", style("abex:").bold(), llm.describe());
        }
        let mutation_on = report.targets.iter().any(|t| t.mutation.is_some());
        if mutation_on && tested == 0 {
            eprintln!(
                "{} no mutant was tested: this is not a clean pass",
                style("warning:").yellow().bold()
            );
        }
        if explored == 0 {
            eprintln!(
                "{} nothing was explored: this is not a clean pass",
                style("warning:").yellow().bold()
            );
        }
    }
}
