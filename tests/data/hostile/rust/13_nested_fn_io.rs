pub fn classify(n: i64) -> &'static str {
    fn helper() { let _ = std::fs::write("MARKER", ""); }
    helper();
    "zero"
}
