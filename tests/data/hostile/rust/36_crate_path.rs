pub fn classify(n: i64) -> &'static str {
    crate::write_marker("MARKER");
    "zero"
}
