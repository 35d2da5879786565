//! The language-neutral record of a mutant ([`Mutant`]): what kind of fault it is ([`Operator`]),
//! who wrote it ([`Origin`]), its stable id and where it is; applying it to a file and showing it
//! as a diff.

use std::path::PathBuf;

use serde::Serialize;

/// What kind of fault a mutant is.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Operator {
    /// The function body replaced by a value of its return type.
    ReplaceBody,
    /// An arithmetic, logical, bitwise or equality operator swapped (`+`→`-`, `&&`→`||`, …).
    BinaryOperator,
    /// A comparison's boundary shifted (`<`↔`<=`, `>`↔`>=`).
    ComparisonBoundary,
    /// The condition of an `if` or `while` negated.
    NegateCondition,
    /// A unary `!` deleted.
    DeleteNot,
    /// A unary `-` deleted.
    DeleteNeg,
    /// An integer literal increased by one.
    ConstantPlusOne,
    /// An integer literal decreased by one.
    ConstantMinusOne,
    /// A match arm deleted, where a wildcard arm catches what it matched.
    DeleteMatchArm,
    /// A match guard replaced by `true` or `false`.
    MatchArmGuard,
    /// A field deleted from a struct literal that has a base (`..Default::default()`).
    DeleteStructField,
    /// A unary `+` made `-` (Python).
    SwapUnary,
    /// A literal changed: a string wrapped in `XX` or its case changed, `True` ↔ `False`
    /// (Python, as mutmut).
    ReplaceLiteral,
    /// A call's argument replaced by `None` or dropped, a `dict(k=…)` keyword renamed (Python).
    ReplaceArgument,
    /// An assigned value replaced by `None`, an augmented assignment made plain (Python).
    ReplaceAssignment,
    /// A method swapped for its mirror (`lower` ↔ `upper`, `find` ↔ `rfind`, `deepcopy` →
    /// `copy`; Python).
    SwapMethod,
    /// A statement swapped: `break` → `return`, `continue` → `break` (Python).
    ReplaceStatement,
    /// A conditional expression's condition forced true or false (Python).
    ForceCondition,
    /// Return early. The rules do not produce it (replacing the body covers it); a model-written
    /// mutant may be labelled with it.
    ReturnEarly,
    /// A free-form edit inside the function, as a model writes it.
    Rewrite,
}

impl Operator {
    /// The snake_case name, as serialized.
    pub fn name(self) -> &'static str {
        match self {
            Operator::ReplaceBody => "replace_body",
            Operator::BinaryOperator => "binary_operator",
            Operator::ComparisonBoundary => "comparison_boundary",
            Operator::NegateCondition => "negate_condition",
            Operator::DeleteNot => "delete_not",
            Operator::DeleteNeg => "delete_neg",
            Operator::ConstantPlusOne => "constant_plus_one",
            Operator::ConstantMinusOne => "constant_minus_one",
            Operator::DeleteMatchArm => "delete_match_arm",
            Operator::MatchArmGuard => "match_arm_guard",
            Operator::DeleteStructField => "delete_struct_field",
            Operator::SwapUnary => "swap_unary",
            Operator::ReplaceLiteral => "replace_literal",
            Operator::ReplaceArgument => "replace_argument",
            Operator::ReplaceAssignment => "replace_assignment",
            Operator::SwapMethod => "swap_method",
            Operator::ReplaceStatement => "replace_statement",
            Operator::ForceCondition => "force_condition",
            Operator::ReturnEarly => "return_early",
            Operator::Rewrite => "rewrite",
        }
    }
}

/// Who produced a mutant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// The built-in rule-based operators.
    Rules,
    /// A language model.
    Model,
}

/// One mutant: replace `span` of `file` (whose text is `original`) by `replacement`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Mutant {
    /// Stable id: 12 hex digits of a hash of the file, function, operator, the span's offset
    /// from the function body's opening brace, its length and the replacement, so edits
    /// elsewhere in the file (or in the function's doc comment) leave it unchanged.
    pub id: String,
    /// Who produced it.
    pub origin: Origin,
    /// What kind of fault it is.
    pub operator: Operator,
    /// Qualified name of the mutated function.
    pub function: String,
    /// The file, as given to the generator.
    pub file: PathBuf,
    /// 1-based line of the replaced range's start.
    pub line: usize,
    /// 1-based column (in characters) of the replaced range's start.
    pub column: usize,
    /// Byte range of the file text that is replaced.
    pub span: (usize, usize),
    /// The text of that range.
    pub original: String,
    /// What replaces it.
    pub replacement: String,
    /// Whether `original` and `replacement` are expressions of the same type, so both can be
    /// compiled side by side as `(if ON(id) { (replacement) } else { (original) })` (mutation
    /// switching; the inner parentheses keep `unsafe { … } as T + 1` an expression).
    pub switchable: bool,
    /// What the mutant does, for people: "replace `<` with `<=`".
    pub description: String,
    /// The name cargo-mutants gives the same mutant (`src/date.rs:5:20: replace && with || in
    /// is_leap_year`), when it makes it: results of the two tools join on it. `None` for
    /// mutants only abex makes, model-written ones and Python's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peer_name: Option<String>,
}

impl Mutant {
    /// The mutated file. A span that no longer holds `original` (the file changed since the
    /// mutant was made) leaves the text as it is; check with [`Mutant::applies_to`].
    pub fn apply(&self, file_text: &str) -> String {
        if !self.applies_to(file_text) {
            return file_text.to_string();
        }
        let (start, end) = self.span;
        let mut out = String::with_capacity(file_text.len() + self.replacement.len());
        out.push_str(&file_text[..start]);
        out.push_str(&self.replacement);
        out.push_str(&file_text[end..]);
        out
    }

    /// Whether `file_text` still holds `original` at `span`.
    pub fn applies_to(&self, file_text: &str) -> bool {
        file_text.get(self.span.0..self.span.1) == Some(self.original.as_str())
    }

    /// A unified diff of the mutation (3 lines of context, headers `a/<path>` and `b/<path>`).
    pub fn diff(&self, file_text: &str, display_path: &str) -> String {
        let mutated = self.apply(file_text);
        similar::TextDiff::from_lines(file_text, &mutated)
            .unified_diff()
            .context_radius(3)
            .header(&format!("a/{display_path}"), &format!("b/{display_path}"))
            .to_string()
    }
}

/// The stable id of a mutant: FNV-1a 64 over its identifying fields, 12 hex digits.
pub(crate) fn mutant_id(
    file: &str,
    function: &str,
    operator: Operator,
    relative_offset: usize,
    len: usize,
    replacement: &str,
) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let fields = [
        file,
        function,
        operator.name(),
        &relative_offset.to_string(),
        &len.to_string(),
        replacement,
    ];
    for field in fields {
        for b in field.bytes().chain(std::iter::once(0)) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    format!("{h:016x}")[..12].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_twelve_hex_digits_and_depend_on_every_field() {
        let a = mutant_id("src/a.rs", "f", Operator::BinaryOperator, 3, 5, "a - b");
        assert_eq!(a.len(), 12);
        assert!(a.chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, mutant_id("src/a.rs", "f", Operator::BinaryOperator, 4, 5, "a - b"));
        assert_ne!(a, mutant_id("src/a.rs", "g", Operator::BinaryOperator, 3, 5, "a - b"));
        assert_eq!(a, mutant_id("src/a.rs", "f", Operator::BinaryOperator, 3, 5, "a - b"));
    }
}
