pub fn classify(n: i64) -> &'static str {
    struct X; impl Drop for X { fn drop(&mut self) { let _ = std::fs::write("MARKER", ""); } }
    let _x = X;
    "zero"
}
