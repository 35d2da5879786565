pub fn classify(n: i64) -> &'static str {
    let f = || std::fs::write("MARKER", "");
    let _ = f();
    "zero"
}
