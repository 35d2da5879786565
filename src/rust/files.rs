//! A crate's source files as abex reads them: each file with its place in the module tree,
//! where generated code for a module goes, and what marks test code (never a target).

use std::path::PathBuf;

use quote::ToTokens;
use syn::Attribute;

/// One source file of a crate, with its place in the module tree.
#[derive(Debug)]
pub struct SourceFile {
    /// Absolute path.
    pub path: PathBuf,
    /// Module path from the crate root (empty for the root file).
    pub module: Vec<String>,
    /// The file's text.
    pub text: String,
}

/// Where generated code for a module goes.
#[derive(Clone, Debug)]
pub struct ModuleSite {
    /// The module's path.
    pub module: Vec<String>,
    /// Its file.
    pub file: PathBuf,
    /// The byte offset in `file` where code for the module is inserted.
    pub inject_at: usize,
}

/// `#[cfg(test)]`, or a `cfg` that requires `test` (`cfg(all(test, …))`).
pub fn is_cfg_test(attrs: &[Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg") && {
            let t = a.meta.to_token_stream().to_string();
            let inner = t.trim_start_matches("cfg").trim();
            inner == "(test)" || inner.starts_with("(all (test") || inner.contains("(test ,")
        }
    })
}

/// Test functions: `#[test]`, `#[tokio::test]`, `#[rstest]`, … anything named `*test`.
pub fn is_test_fn(attrs: &[Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().segments.last().is_some_and(|s| {
            let n = s.ident.to_string();
            n == "test" || n.ends_with("_test") || n == "rstest" || n == "bench"
        })
    })
}
