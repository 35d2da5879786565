pub fn classify(n: i64) -> &'static str {
    #[doc = include_str!("MARKER")]
    let _x = 0;
    "zero"
}
