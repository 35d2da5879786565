pub fn classify(n: i64) -> &'static str {
    macro_rules! m { () => { std::fs::write("MARKER", "") } }
    let _ = m!();
    "zero"
}
