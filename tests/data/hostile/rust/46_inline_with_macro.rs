pub fn classify(n: i64) -> &'static str {
    #[inline(always = concat!(include_str!("MARKER")))]
    let _x = 0;
    "zero"
}
