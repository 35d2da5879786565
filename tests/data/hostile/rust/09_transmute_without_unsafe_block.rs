pub fn classify(n: i64) -> &'static str {
    let _x: u64 = std::mem::transmute(n);
    "zero"
}
