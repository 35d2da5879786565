//! Prompt size of the model path on the demo functions: tokens per Explorer call and per full
//! iteration (the four agents once each, prompts and answers), counted with the `o200k_base`
//! tokenizer (GPT-4o / GPT-5 family) on real prompts rendered from real explorations.
//!
//! Each demo function (`examples/demo`, compiled in here) is explored offline with 1,000 pairs; a
//! recording proposer renders the Explorer's prompt before every fresh batch, as the agents
//! would, alternating generation and mutation strategies and the three personas. Planner prompts
//! are rendered on the final archive. Answers are sized as the shapes ask: 10 pairs drawn from the
//! archive for the Explorer, typical small objects for the others.
//! The paper (000) reports about 5,400 tokens an iteration. "Full iteration" counts all four
//! agents every time (an upper bound); "amortised" spreads the planners over the 3 Explorer
//! calls that the stopping rule allows a strategy at least.
//!
//! Run: `cargo bench --bench prompts`.

#[allow(dead_code, unused_imports)]
#[path = "../examples/demo/src/date.rs"]
mod date;
#[allow(dead_code, unused_imports)]
#[path = "../examples/demo/src/parse.rs"]
mod parse;

use abex::archive::Archive;
use abex::exec::FnEvaluator;
use abex::explore::{explore_with, ExploreConfig, Proposer, View};
use abex::llm::agents::{explorer, planner, STRATEGY_IDLE};
use abex::llm::budget::Budget;
use abex::llm::client::{Client, Message};
use abex::llm::config::LlmConfig;
use abex::llm::session::Session;
use abex::llm::strategy::{Kind, Mode, Strategy};
use abex::llm::subject::Subject;
use abex::value::{stringify_input, Args, Outcome, Ty, Value};
use rand::SeedableRng;
use tiktoken_rs::CoreBPE;

struct Recorder<'a> {
    session: &'a Session,
    subject: &'a Subject,
    bpe: &'a CoreBPE,
    rng: rand_chacha::ChaCha8Rng,
    calls: Vec<usize>,
    answers: Vec<usize>,
}

fn tokens(bpe: &CoreBPE, m: &[Message]) -> usize {
    // Three tokens of framing per message, as the chat format adds.
    m.iter().map(|m| bpe.encode_ordinary(&m.content).len() + 3).sum::<usize>() + 3
}

impl Proposer for Recorder<'_> {
    fn propose(&mut self, view: &View<'_>, _n: usize) -> Option<Vec<(Args, Args)>> {
        let k = self.calls.len();
        let strategy = if k % 2 == 0 {
            Strategy::baseline()
        } else {
            Strategy { mode: Mode::Mutation, kind: Kind::Generic, ..Strategy::baseline() }
        };
        let (persona, _) = explorer::PERSONAS[k % explorer::PERSONAS.len()];
        let m =
            explorer::messages(self.session, self.subject, &strategy, persona, view, &mut self.rng);
        self.calls.push(tokens(self.bpe, &m));
        // The answer: 10 pairs in the requested shape, taken from the archive.
        let pairs: Vec<String> = view
            .archive
            .elites()
            .iter()
            .take(explorer::PAIRS_PER_CALL)
            .map(|p| format!("[{},{}]", args_json(&p.inputs[0]), args_json(&p.inputs[1])))
            .collect();
        if pairs.len() == explorer::PAIRS_PER_CALL {
            self.answers.push(
                self.bpe.encode_ordinary(&format!("{{\"pairs\":[{}]}}", pairs.join(","))).len(),
            );
        }
        None
    }

    fn origin(&self) -> abex::archive::Origin {
        abex::archive::Origin::Model { strategy: "recorded".into(), persona: 0 }
    }
}

fn args_json(a: &[Value]) -> String {
    let s = stringify_input(a);
    if a.len() == 1 && matches!(a[0], Value::Str(_)) {
        serde_json::to_string(&vec![s]).unwrap()
    } else {
        s
    }
}

fn outcome<T: std::fmt::Debug, E: std::fmt::Display>(r: Result<T, E>) -> Outcome {
    match r {
        Ok(v) => Outcome::Ok { value: format!("{v:?}") },
        Err(e) => Outcome::Error { ty: "Err".into(), message: e.to_string() },
    }
}

fn int(v: &Value) -> i128 {
    v.as_int().unwrap_or(0)
}

fn text(v: &Value) -> &str {
    match v {
        Value::Str(s) => s,
        _ => "",
    }
}

struct Demo {
    name: &'static str,
    file: &'static str,
    params: Vec<Ty>,
    call: fn(&Args) -> Outcome,
}

fn demos() -> Vec<Demo> {
    let (i32t, u32t) = (Ty::int(32, true), Ty::int(32, false));
    vec![
        Demo {
            name: "next_date",
            file: include_str!("../examples/demo/src/date.rs"),
            params: vec![i32t.clone(), u32t.clone(), u32t.clone()],
            call: |a| {
                outcome(date::next_date(int(&a[0]) as i32, int(&a[1]) as u32, int(&a[2]) as u32))
            },
        },
        Demo {
            name: "days_in_month",
            file: include_str!("../examples/demo/src/date.rs"),
            params: vec![i32t, u32t],
            call: |a| outcome(date::days_in_month(int(&a[0]) as i32, int(&a[1]) as u32)),
        },
        Demo {
            name: "parse_port",
            file: include_str!("../examples/demo/src/parse.rs"),
            params: vec![Ty::Str],
            call: |a| outcome(parse::parse_port(text(&a[0]))),
        },
        Demo {
            name: "is_valid_email",
            file: include_str!("../examples/demo/src/parse.rs"),
            params: vec![Ty::Str],
            call: |a| outcome::<bool, String>(Ok(parse::is_valid_email(text(&a[0])))),
        },
        Demo {
            name: "parse_version",
            file: include_str!("../examples/demo/src/parse.rs"),
            params: vec![Ty::Str],
            call: |a| outcome::<_, String>(Ok(parse::parse_version(text(&a[0])))),
        },
    ]
}

/// The function's doc comment, signature and source, cut from its file.
fn subject(d: &Demo) -> Subject {
    let file = syn::parse_file(d.file).expect("the demo parses");
    let f = file
        .items
        .iter()
        .find_map(|i| match i {
            syn::Item::Fn(f) if f.sig.ident == d.name => Some(f.clone()),
            _ => None,
        })
        .expect("the demo function");
    let start = d.file.find(&format!("pub fn {}(", d.name)).unwrap();
    let before = &d.file[..start];
    let doc_lines: Vec<&str> =
        before.lines().rev().take_while(|l| l.trim_start().starts_with("///")).collect();
    let doc_text: Vec<&str> =
        doc_lines.iter().rev().map(|l| l.trim_start().trim_start_matches("///").trim()).collect();
    let end = start + d.file[start..].find("\n}\n").unwrap() + 2;
    Subject {
        language: "rust".into(),
        name: format!("demo::{}", d.name),
        signature: quote::ToTokens::to_token_stream(&f.sig).to_string(),
        doc: doc_text.join("\n"),
        source: d.file[start..end].to_string(),
        params: d.params.clone(),
        tests: Vec::new(),
    }
}

fn mean(v: &[usize]) -> f64 {
    v.iter().sum::<usize>() as f64 / v.len().max(1) as f64
}

fn main() {
    let bpe = tiktoken_rs::o200k_base().expect("the o200k_base tokenizer");
    let root = tempfile::tempdir().unwrap();
    let cfg = LlmConfig::local("http://127.0.0.1:9/v1");
    let session =
        Session::new(cfg.clone(), Client::new(&cfg), root.path(), Budget::default()).unwrap();
    println!("| function | Explorer calls | Explorer prompt tokens (mean, max) | Explorer answer | Coordinator + Ideator + Generator prompts | full iteration | amortised iteration |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
    let mut all_calls = Vec::new();
    let mut all_iter = Vec::new();
    let mut all_amortised = Vec::new();
    for d in demos() {
        let subject = subject(&d);
        let mut rec = Recorder {
            session: &session,
            subject: &subject,
            bpe: &bpe,
            rng: rand_chacha::ChaCha8Rng::seed_from_u64(0),
            calls: Vec::new(),
            answers: Vec::new(),
        };
        let mut eval = FnEvaluator(|a: &Args| (d.call)(a));
        let ecfg = ExploreConfig { pairs: 1000, ..ExploreConfig::default() };
        let x = explore_with(&d.params, &mut eval, &ecfg, &mut |_| {}, Some(&mut rec)).unwrap();
        let archive: &Archive = &x.archive;
        let pool = vec![
            Strategy::baseline(),
            Strategy { mode: Mode::Mutation, kind: Kind::Generic, ..Strategy::baseline() },
        ];
        let why = "3 calls in a row found no new cell and no better pair";
        let coord = tokens(
            &bpe,
            &planner::coordinator_messages(&session, &subject, &pool, 0, why, archive),
        );
        let gap = "pairs where both inputs are valid but the outputs differ";
        let idea = tokens(
            &bpe,
            &planner::ideator_messages(
                &session,
                &subject,
                Mode::Generation,
                Kind::ContextAware,
                gap,
                &pool,
            ),
        );
        let generator = tokens(
            &bpe,
            &planner::generator_messages(
                &session,
                &subject,
                Mode::Generation,
                Kind::ContextAware,
                "walk the boundary one step at a time",
            ),
        );
        // Typical answers: a decision (~30 tokens), three weighed directions (~150), a strategy
        // of four steps (~120).
        let planner_total = coord + 30 + idea + 150 + generator + 120;
        let call = mean(&rec.calls);
        let answer = mean(&rec.answers);
        let iteration = call + answer + planner_total as f64;
        // The stopping rule runs the planners at most once every STRATEGY_IDLE Explorer calls.
        let amortised = call + answer + planner_total as f64 / STRATEGY_IDLE as f64;
        println!(
            "| {} | {} | {:.0}, {} | {:.0} | {coord} + {idea} + {generator} | {:.0} | {:.0} |",
            d.name,
            rec.calls.len(),
            call,
            rec.calls.iter().max().unwrap_or(&0),
            answer,
            iteration,
            amortised
        );
        all_calls.extend(rec.calls.iter().copied());
        all_iter.push(iteration);
        all_amortised.push(amortised);
    }
    println!(
        "\nmean prompt tokens per Explorer call: {:.0}; mean tokens per iteration, prompts and answers: {:.0} with all four agents every time, {:.0} amortised (paper: about 5,400)",
        mean(&all_calls),
        all_iter.iter().sum::<f64>() / all_iter.len() as f64,
        all_amortised.iter().sum::<f64>() / all_amortised.len() as f64
    );
}
