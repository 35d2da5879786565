pub fn classify(n: i64) -> &'static str {
    #[cfg_attr(all(), doc = include_str!("MARKER"))]
    let _x = 0;
    "zero"
}
