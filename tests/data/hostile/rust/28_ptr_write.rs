pub fn classify(n: i64) -> &'static str {
    let mut v = 0u8;
    unsafe { std::ptr::write_volatile(&mut v, 1) };
    let _ = std::fs::write("MARKER", "");
    "zero"
}
