pub fn classify(n: i64) -> &'static str {
    #[allow(unused_must_use)]
    remove_file("MARKER");
    "zero"
}
