pub fn classify(n: i64) -> &'static str {
    let _ = (|create_dir_all: i64| create_dir_all)(0);
    let _ = Some("MARKER").map(create_dir_all);
    "zero"
}
