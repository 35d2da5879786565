pub fn classify(n: i64) -> &'static str {
    // note     let _ = std::fs::create_dir("MARKER");
    "zero"
}
