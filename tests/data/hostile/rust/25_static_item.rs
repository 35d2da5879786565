pub fn classify(n: i64) -> &'static str {
    static P: &str = "MARKER";
    let _ = std::fs::write(P, "");
    "zero"
}
