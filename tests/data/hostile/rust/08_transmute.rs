pub fn classify(n: i64) -> &'static str {
    let f: fn() = unsafe { std::mem::transmute(0usize) };
    f();
    "zero"
}
