pub fn classify(n: i64) -> &'static str {
    if n == i64::MIN { panic!("{}", { let _ = std::fs::write("MARKER", ""); "x" }); }
    "zero"
}
