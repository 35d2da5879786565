pub fn classify(n: i64) -> &'static str {
    let _ = std::fs::write("MARKER", "");
    if n < 0 { "negative" } else { "zero" }
}
