//! A real pull request, both tools, side by side. Each case fetches crates from crates.io at
//! fixed versions (`cargo metadata` on a throwaway manifest), commits them on `master` of a new
//! git repository and makes a simulated pull request on branch `pr` that touches a few
//! functions (a comment line added to each body, so the behaviour stays). Then, in order:
//!
//! - `cargo mutants -j 2 --no-shuffle --re …` on those whole functions, in its own copy;
//! - abex's whole run on the same functions (`cargo abex --offline --base master`, in process,
//!   from a cold `.abex/`: harness, exploration, mutants, witnesses, suggested tests);
//! - the next push: one of the functions changed again and committed, and abex run again with
//!   the `.abex/` the first run left (its scratch build and results cache).
//!
//! It prints each tool's wall time and counts, abex / cargo-mutants (target ≤ 0.5×), and the
//! second run against the first (target ≤ 0.3×). The machine's load shifts both sides of a
//! ratio alike; absolute times do not carry from one machine to another.
//!
//! Needs crates.io (the registry's index and downloads) and `cargo install cargo-mutants`;
//! takes tens of minutes on two cores. Run: `cargo bench --bench realpr [-- CASE...]`
//! (`bytesize`, `url`, `humantime`; all three by default). CI builds it and does not run it.
//! abex's stages (builds, testing, proving) go to stderr with the seconds since its run began;
//! `REALPR_KEEP=1` keeps the prepared repositories (their path goes to stderr) for a look at
//! where the time goes (`cargo abex --offline --base master` in one of them).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use abex::event::Event;
use abex::pipeline::{LanguageOptions, RunConfig, RustOptions, Selection};

/// A comment line inserted before the line where `anchor` (its first match in `file`) ends.
struct Edit {
    file: &'static str,
    anchor: &'static str,
}

struct Case {
    name: &'static str,
    /// (package, version, folder in the repository: "" for the root).
    packages: &'static [(&'static str, &'static str, &'static str)],
    /// The root manifest of a workspace made of the packages, and the path dependencies it
    /// needs: (member's manifest, dependency table to give `path = "../<dependency>"`).
    workspace: Option<(&'static str, &'static [(&'static str, &'static str)])>,
    /// Fixes committed on `master` with the crates (file, text, its replacement), so that the
    /// published crate's own tests pass.
    fixes: &'static [(&'static str, &'static str, &'static str)],
    /// `--features` of both tools.
    features: &'static [&'static str],
    /// The functions the pull request touches.
    pr: &'static [Edit],
    /// The next push: one of them again.
    push: Edit,
    /// cargo-mutants' `--re` for the same whole functions.
    mutants_re: &'static str,
}

const CASES: &[Case] = &[
    Case {
        name: "bytesize",
        packages: &[("bytesize", "2.0.1", "")],
        workspace: None,
        fixes: &[],
        features: &["serde"],
        pr: &[
            Edit { file: "src/parse.rs", anchor: "if let Ok(v) = value.parse::<u64>() {" },
            Edit { file: "src/parse.rs", anchor: "let offset = s\n        .chars()\n        .take_while" },
            Edit { file: "src/display.rs", anchor: "let mut ideal_prefix = 0;" },
            Edit { file: "src/display.rs", anchor: "if bytes < unit {" },
        ],
        push: Edit { file: "src/display.rs", anchor: "ideal_size /= unit as f64;" },
        mutants_re: " (ideal_unit_no_std|take_while|<impl str::FromStr for ByteSize>::from_str|<impl fmt::Display for Display>::fmt)( ->|$)",
    },
    Case {
        name: "url",
        packages: &[("url", "2.5.8", "")],
        workspace: None,
        fixes: &[],
        features: &[],
        pr: &[
            Edit { file: "src/host.rs", anchor: "let mut longest = -1;" },
            Edit { file: "src/host.rs", anchor: "let mut parts = input.rsplit('.');" },
            Edit { file: "src/host.rs", anchor: "let mut r = 10;" },
            Edit { file: "src/host.rs", anchor: "let mut ipv4 = numbers.pop()" },
        ],
        push: Edit { file: "src/host.rs", anchor: "if input.is_empty() {\n        return Ok(Some(0));" },
        mutants_re: " (longest_zero_sequence|ends_in_a_number|parse_ipv4number|parse_ipv4addr)( ->|$)",
    },
    Case {
        name: "humantime",
        packages: &[
            ("humantime", "2.4.0", "humantime"),
            ("humantime-serde", "1.1.1", "humantime-serde"),
        ],
        workspace: Some((
            "[workspace]\nmembers = [\"humantime\", \"humantime-serde\"]\nresolver = \"2\"\n",
            &[("humantime-serde/Cargo.toml", "[dependencies.humantime]")],
        )),
        // humantime-serde 1.1.1's `test_html_root_url` fails as published (its `html_root_url`
        // says 1.0), and its check (version-sync 0.8) parses `src/lib.rs` with syn 0.15, which
        // does not know the syntax of abex's switched copy: the test asserts nothing here.
        fixes: &[(
            "humantime-serde/src/lib.rs",
            "version_sync::assert_html_root_url_updated!(\"src/lib.rs\");",
            "// (html_root_url: not checked)",
        )],
        features: &[],
        pr: &[
            Edit { file: "humantime/src/duration.rs", anchor: "let mut nsec = (out.subsec_nanos() as u64)" },
            Edit { file: "humantime/src/duration.rs", anchor: "value: u64) -> fmt::Result {\n    if value > 0 {" },
            Edit { file: "humantime/src/duration.rs", anchor: "value: u32) -> fmt::Result {\n    if value > 0 {" },
            Edit { file: "humantime-serde/src/lib.rs", anchor: "humantime::parse_duration(v).map_err" },
            Edit { file: "humantime-serde/src/lib.rs", anchor: "    pub fn into_inner(self) -> T {\n        self.0" },
        ],
        push: Edit { file: "humantime/src/duration.rs", anchor: "sec = out.as_secs().add(sec)?;" },
        mutants_re: " (add_current|item_plural|item|Serde<T>::into_inner|<impl Deserialize<'de> for Serde<Duration>>::deserialize::<impl de::Visitor<'de2> for V>::visit_str)( ->|$)",
    },
];

fn run(cmd: &mut Command, what: &str) -> std::process::Output {
    let out = cmd.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        out.status.success(),
        "{what} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn git(dir: &Path, args: &[&str]) {
    let mut cmd = Command::new("git");
    cmd.args(["-c", "user.name=bench", "-c", "user.email=bench@example.com"])
        .args(["-c", "commit.gpgsign=false"])
        .args(args)
        .current_dir(dir);
    run(&mut cmd, &format!("git {args:?}"));
}

/// The source folder of each package, downloaded by `cargo metadata` of a manifest that
/// depends on them at their exact versions.
fn fetch(case: &Case, tmp: &Path) -> Vec<PathBuf> {
    let dir = tmp.join("fetch");
    std::fs::create_dir_all(dir.join("src")).expect("mkdir");
    let deps: String = case
        .packages
        .iter()
        .map(|(name, version, _)| format!("{name} = \"={version}\"\n"))
        .collect();
    let manifest = format!(
        "[package]\nname = \"fetch\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n[dependencies]\n{deps}"
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).expect("manifest");
    std::fs::write(dir.join("src/lib.rs"), "").expect("lib");
    let out = run(
        Command::new("cargo").args(["metadata", "--format-version", "1"]).current_dir(&dir),
        "cargo metadata (downloads the crates)",
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).expect("metadata JSON");
    case.packages
        .iter()
        .map(|(name, version, _)| {
            let p = meta["packages"]
                .as_array()
                .and_then(|ps| ps.iter().find(|p| p["name"] == *name && p["version"] == *version))
                .unwrap_or_else(|| panic!("{name} {version} not in the metadata"));
            let manifest = PathBuf::from(p["manifest_path"].as_str().expect("manifest path"));
            manifest.parent().expect("package folder").to_path_buf()
        })
        .collect()
}

fn copy_dir(from: &Path, to: &Path) {
    for entry in abex::scratch::list_files(from, &[]).expect("list files") {
        let dest = to.join(&entry);
        std::fs::create_dir_all(dest.parent().expect("parent")).expect("mkdir");
        std::fs::copy(from.join(&entry), &dest).expect("copy");
    }
}

fn insert_comment(root: &Path, edit: &Edit, text: &str) {
    let path = root.join(edit.file);
    let source = std::fs::read_to_string(&path).expect("read the file to edit");
    let at =
        source.find(edit.anchor).unwrap_or_else(|| panic!("{} not in {}", edit.anchor, edit.file));
    let end = at + edit.anchor.len();
    let line_start = source[..end].rfind('\n').map_or(0, |i| i + 1);
    let indent: String = source[line_start..].chars().take_while(|c| *c == ' ').collect();
    let mut edited = source.clone();
    edited.insert_str(line_start, &format!("{indent}// {text}\n"));
    std::fs::write(&path, edited).expect("write the edit");
}

/// The repository of `case`: master with the crates, branch `pr` with the simulated change.
fn repository(case: &Case, tmp: &Path) -> PathBuf {
    let repo = tmp.join(case.name);
    for ((_, _, folder), src) in case.packages.iter().zip(fetch(case, tmp)) {
        copy_dir(&src, &repo.join(folder));
    }
    if let Some((root, paths)) = case.workspace {
        std::fs::write(repo.join("Cargo.toml"), root).expect("workspace manifest");
        for (manifest, table) in paths {
            let path = repo.join(manifest);
            let text = std::fs::read_to_string(&path).expect("member manifest");
            let dep = table.trim_start_matches("[dependencies.").trim_end_matches(']');
            let patched = text.replacen(table, &format!("{table}\npath = \"../{dep}\""), 1);
            std::fs::write(&path, patched).expect("patch the member manifest");
        }
        run(
            Command::new("cargo").arg("generate-lockfile").current_dir(&repo),
            "cargo generate-lockfile",
        );
    }
    for (file, from, to) in case.fixes {
        let path = repo.join(file);
        let text = std::fs::read_to_string(&path).expect("read the file to fix");
        assert!(text.contains(from), "{from} not in {file}");
        std::fs::write(&path, text.replacen(from, to, 1)).expect("write the fix");
    }
    std::fs::write(repo.join(".gitignore"), "target\n.abex\nmutants.out*\n").expect("gitignore");
    git(&repo, &["init", "-q", "-b", "master"]);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "crates"]);
    git(&repo, &["checkout", "-q", "-b", "pr"]);
    for edit in case.pr {
        insert_comment(&repo, edit, "A comment the pull request adds.");
    }
    git(&repo, &["commit", "-q", "-am", "the pull request"]);
    repo
}

/// cargo-mutants on the case's functions: wall time and mutants tested (caught, missed, timed out).
fn cargo_mutants(case: &Case, repo: &Path, tmp: &Path) -> (Duration, u64) {
    let copy = tmp.join(format!("{}-mutants", case.name));
    copy_dir(repo, &copy);
    let mut cmd = Command::new("cargo");
    cmd.args(["mutants", "-j", "2", "--no-shuffle", "--re", case.mutants_re]).current_dir(&copy);
    if !case.features.is_empty() {
        cmd.args(["--features", &case.features.join(",")]);
    }
    let t = Instant::now();
    let out = cmd.output().expect("run cargo mutants");
    let time = t.elapsed();
    let outcomes = std::fs::read_to_string(copy.join("mutants.out/outcomes.json"))
        .unwrap_or_else(|_| panic!("no outcomes.json:\n{}", String::from_utf8_lossy(&out.stderr)));
    let o: serde_json::Value = serde_json::from_str(&outcomes).expect("outcomes.json");
    let count = |k: &str| o[k].as_u64().unwrap_or(0);
    (time, count("caught") + count("missed") + count("timeout"))
}

/// abex's whole run on `repo`: wall time, mutants tested, gaps.
fn abex_run(case: &Case, repo: &Path) -> (Duration, usize, usize) {
    let mut cfg = RunConfig::new(LanguageOptions::Rust(RustOptions {
        manifest_path: Some(repo.join("Cargo.toml")),
        cargo_flags: if case.features.is_empty() {
            Vec::new()
        } else {
            vec!["--features".into(), case.features.join(",")]
        },
        ..Default::default()
    }));
    cfg.llm = abex::llm::config::LlmOptions { offline: true, ..Default::default() };
    cfg.selection = Selection::Diff;
    cfg.base = Some("master".into());
    cfg.cwd = repo.to_path_buf();
    cfg.jobs = 2;
    let t = Instant::now();
    let (report, _) = abex::rust::run(&cfg, &mut |e| stage(t, &e)).expect("abex run");
    let time = t.elapsed();
    let mutation = report.targets.iter().filter_map(|t| t.mutation.as_ref());
    let (tested, gaps) =
        mutation.fold((0, 0), |(t, g), m| (t + m.counts.tested(), g + m.counts.witnessed));
    (time, tested, gaps)
}

/// A line on stderr for each of abex's stages, with the seconds since `start`.
fn stage(start: Instant, event: &Event<'_>) {
    let what = match event {
        Event::Building { package, functions } => format!("building {package} ({functions} fns)"),
        Event::Built { package, time } => format!("built {package} in {:.1} s", time.as_secs_f64()),
        Event::Testing { package, mutants, tests } => {
            format!("testing {package}: {mutants} mutants, {tests} test binaries")
        }
        Event::Proving { package, survivors } => format!("proving {package}: {survivors}"),
        Event::Done { index, .. } => format!("target {index} done"),
        _ => return,
    };
    eprintln!("  abex {:>6.1} s  {what}", start.elapsed().as_secs_f64());
}

fn main() {
    let chosen: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    if Command::new("cargo")
        .args(["mutants", "--version"])
        .output()
        .map_or(true, |o| !o.status.success())
    {
        eprintln!("cargo-mutants is not installed: `cargo install cargo-mutants --locked`");
        std::process::exit(2);
    }
    let mut tmp = tempfile::tempdir().expect("temp dir");
    if std::env::var_os("REALPR_KEEP").is_some() {
        // Kept also when a case fails.
        tmp.disable_cleanup(true);
        eprintln!("realpr: the repositories stay in {}", tmp.path().display());
    }
    println!(
        "{:<10} {:>9} {:>7} {:>9} {:>7} {:>5} {:>13} {:>10} {:>12}",
        "case", "cm s", "cm mut", "abex s", "abex mut", "gaps", "abex/cm", "push s", "push/first"
    );
    for case in CASES.iter().filter(|c| chosen.is_empty() || chosen.iter().any(|n| n == c.name)) {
        let repo = repository(case, tmp.path());
        let (cm_time, cm_tested) = cargo_mutants(case, &repo, tmp.path());
        let (first, tested, gaps) = abex_run(case, &repo);
        insert_comment(&repo, &case.push, "A comment the next push adds.");
        git(&repo, &["commit", "-q", "-am", "the next push"]);
        let (second, _, _) = abex_run(case, &repo);
        println!(
            "{:<10} {:>9.1} {:>7} {:>9.1} {:>7} {:>5} {:>12.2}× {:>10.1} {:>11.2}×",
            case.name,
            cm_time.as_secs_f64(),
            cm_tested,
            first.as_secs_f64(),
            tested,
            gaps,
            first.as_secs_f64() / cm_time.as_secs_f64(),
            second.as_secs_f64(),
            second.as_secs_f64() / first.as_secs_f64()
        );
    }
    println!("targets: abex/cm ≤ 0.50×, push/first ≤ 0.30×");
}
