//! Expected-failure lists: subtests known to fail, each with the reason.
//!
//! One entry a line: `suite/subtest`, then two or more spaces (or a tab),
//! then the reason. The suite is the test list's name for it (it may hold
//! spaces and slashes: `Multiple Device/Context`); the subtest is what
//! follows the last `/`, or `(suite)` for a failure of the suite as a whole.
//! `#` starts a comment line. A line without a reason is an error: a list
//! of excuses nobody can explain is how regressions hide.

use std::collections::BTreeMap;
use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpectedFailure {
    pub suite: String,
    pub subtest: String,
    pub reason: String,
    /// 1-based line in the list.
    pub line: usize,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExpectedFailures {
    entries: BTreeMap<(String, String), ExpectedFailure>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpectationError {
    pub line: usize,
    pub message: String,
}

impl fmt::Display for ExpectationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for ExpectationError {}

/// Splits `id  reason` at the first tab or run of two or more spaces.
fn split_reason(line: &str) -> Option<(&str, &str)> {
    let bytes = line.as_bytes();
    for i in 0..bytes.len() {
        let gap = bytes[i] == b'\t' || (bytes[i] == b' ' && bytes.get(i + 1) == Some(&b' '));
        if gap {
            return Some((&line[..i], line[i..].trim()));
        }
    }
    None
}

impl ExpectedFailures {
    pub fn parse(text: &str) -> Result<Self, ExpectationError> {
        let mut list = ExpectedFailures::default();
        for (index, raw) in text.lines().enumerate() {
            let line_no = index + 1;
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let err = |message: String| ExpectationError {
                line: line_no,
                message,
            };
            let (id, reason) = split_reason(line)
                .filter(|(_, reason)| !reason.is_empty())
                .ok_or_else(|| {
                    err(format!(
                        "`{line}` has no reason (write `suite/subtest  reason`, \
                         two spaces or a tab before the reason)"
                    ))
                })?;
            let (suite, subtest) = id
                .rsplit_once('/')
                .filter(|(s, t)| !s.trim().is_empty() && !t.trim().is_empty())
                .ok_or_else(|| err(format!("`{id}` is not `suite/subtest`")))?;
            let key = (suite.trim().to_string(), subtest.trim().to_string());
            if let Some(previous) = list.entries.get(&key) {
                return Err(err(format!(
                    "`{id}` is already listed on line {}",
                    previous.line
                )));
            }
            list.entries.insert(
                key.clone(),
                ExpectedFailure {
                    suite: key.0,
                    subtest: key.1,
                    reason: reason.to_string(),
                    line: line_no,
                },
            );
        }
        Ok(list)
    }

    pub fn get(&self, suite: &str, subtest: &str) -> Option<&ExpectedFailure> {
        self.entries.get(&(suite.to_string(), subtest.to_string()))
    }

    pub fn iter(&self) -> impl Iterator<Item = &ExpectedFailure> {
        self.entries.values()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(name: &str) -> String {
        let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(path).unwrap()
    }

    #[test]
    fn reads_entries_with_reasons() {
        let list = ExpectedFailures::parse(&data("expected_failures.txt")).unwrap();
        assert_eq!(list.len(), 3);
        let e = list.get("Buffers", "buffer_fill_struct").unwrap();
        assert_eq!(e.reason, "fill patterns over 16 bytes are split wrongly");
        let e = list
            .get(
                "Multiple Device/Context",
                "context_multiple_contexts_same_device",
            )
            .unwrap();
        assert_eq!(e.reason, "lavapipe: one VkDevice per process");
        let e = list.get("Images (Kernel pitch)", "(suite)").unwrap();
        assert_eq!(e.reason, "image support is not there yet");
        assert!(list.get("Buffers", "buffer_copy").is_none());
    }

    #[test]
    fn a_line_without_reason_is_an_error() {
        let err = ExpectedFailures::parse("# ok\nBasic/hostptr\n").unwrap_err();
        assert_eq!(err.line, 2);
        assert!(err.message.contains("no reason"));
        // One space is part of the name, not a separator.
        assert!(ExpectedFailures::parse("Basic/hostptr broken\n").is_err());
        assert!(ExpectedFailures::parse("Basic/hostptr   \n").is_err());
    }

    #[test]
    fn a_line_without_subtest_is_an_error() {
        assert!(ExpectedFailures::parse("hostptr  reason\n").is_err());
        assert!(ExpectedFailures::parse("Basic/  reason\n").is_err());
    }

    #[test]
    fn duplicates_are_an_error() {
        let err = ExpectedFailures::parse("Basic/a  one\nBasic/a  two\n").unwrap_err();
        assert_eq!(err.line, 2);
    }
}
