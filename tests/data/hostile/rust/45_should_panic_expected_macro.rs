#[should_panic(expected = include_str!("MARKER"))]
pub fn classify(n: i64) -> &'static str {
    if n <= 0 { "negative" } else { "large" }
}
