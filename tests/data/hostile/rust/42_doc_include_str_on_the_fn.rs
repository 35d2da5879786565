#[doc = include_str!("/proc/self/environ")]
pub fn classify(n: i64) -> &'static str {
    if n <= 0 { "negative" } else { "large" }
}
