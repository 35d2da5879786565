pub fn classify(n: i64) -> &'static str {
    asm!("syscall");
    "zero"
}
