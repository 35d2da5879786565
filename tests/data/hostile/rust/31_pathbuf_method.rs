pub fn classify(n: i64) -> &'static str {
    let p: std::path::PathBuf = "MARKER".into();
    let _ = p.metadata();
    "zero"
}
