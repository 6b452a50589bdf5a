//! Reading what a CTS binary reports: its console log, the JSON file it
//! writes to `CL_CONFORMANCE_RESULTS_FILENAME`, and its `--list` output.
//!
//! The CTS harness prints `name...` when a subtest starts and then one of
//! `name passed`, `name FAILED`, `name test not supported`,
//! `name skipped (requires at least ...)` when it ends. Tests print freely
//! in between, so a line only counts as a start or a result when it names a
//! subtest the binary listed; without that list the parser falls back to the
//! harness's serial order (a result closes everything started before it).

use std::collections::BTreeSet;

/// A subtest's result as the CTS itself reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reported {
    Pass,
    Fail,
    Skip,
}

/// One subtest found in a console log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoggedSubtest {
    pub name: String,
    /// `None` when the log ends before the subtest's result line: the
    /// process crashed, hung or exited inside it.
    pub reported: Option<Reported>,
    /// 0-based line range of the subtest in the log, inclusive.
    pub first_line: usize,
    pub last_line: usize,
}

/// Everything read from one console log.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConsoleLog {
    /// In the order the results appeared; an unfinished subtest last.
    pub subtests: Vec<LoggedSubtest>,
    /// Set when the harness gave up before running any subtest
    /// (`Test skipped while initialization`, `Test failed while ...`).
    pub init_failure: Option<Reported>,
    pub line_count: usize,
}

/// Test names in the CTS are C identifiers; prose lines never are.
fn looks_like_test_name(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The subtest name and result of a harness result line.
fn result_line(line: &str) -> Option<(&str, Reported)> {
    let found = if let Some(name) = line.strip_suffix(" passed") {
        (name, Reported::Pass)
    } else if let Some(name) = line.strip_suffix(" FAILED") {
        (name, Reported::Fail)
    } else if let Some(name) = line.strip_suffix(" test not supported") {
        (name, Reported::Skip)
    } else if let Some(name) = line.strip_suffix(" test currently not implemented") {
        (name, Reported::Skip)
    } else if let Some((name, _)) = line.split_once(" skipped (requires at least ") {
        (name, Reported::Skip)
    } else if let Some((name, _)) = line
        .strip_prefix("Subtest ")
        .and_then(|rest| rest.split_once(" tests is not supported in offline compiler"))
    {
        (name, Reported::Skip)
    } else {
        return None;
    };
    looks_like_test_name(found.0).then_some(found)
}

/// Parses a console log. `known` is the binary's own subtest list, when it
/// could be had; it makes the parse immune to test output that happens to
/// look like a harness line.
pub fn parse_console_log(text: &str, known: Option<&BTreeSet<String>>) -> ConsoleLog {
    let mut log = ConsoleLog::default();
    let mut pending: Vec<(String, usize)> = Vec::new();
    let mut finished: BTreeSet<String> = BTreeSet::new();
    let accepts = |name: &str| match known {
        Some(k) => k.contains(name),
        None => looks_like_test_name(name),
    };
    for (index, raw) in text.lines().enumerate() {
        log.line_count = index + 1;
        let line = raw.trim();
        if line == "Test skipped while initialization" {
            log.init_failure = Some(Reported::Skip);
            continue;
        }
        if line == "Test failed while initialization" {
            log.init_failure = Some(Reported::Fail);
            continue;
        }
        if let Some((name, reported)) = result_line(line) {
            if !accepts(name) || finished.contains(name) {
                continue;
            }
            let started = pending.iter().position(|(n, _)| n == name);
            let first_line = match started {
                Some(p) => pending.remove(p).1,
                // The harness always prints the start line first; without a
                // list to vouch for the name, an unannounced result is noise.
                None if known.is_some() => index,
                None => continue,
            };
            if known.is_none() {
                // Serial harness: whatever "started" inside this subtest was
                // test output, not a subtest.
                pending.clear();
            }
            finished.insert(name.to_string());
            log.subtests.push(LoggedSubtest {
                name: name.to_string(),
                reported: Some(reported),
                first_line,
                last_line: index,
            });
            continue;
        }
        if let Some(name) = line.strip_suffix("...") {
            if accepts(name) && !finished.contains(name) && !pending.iter().any(|(n, _)| n == name)
            {
                pending.push((name.to_string(), index));
            }
        }
    }
    let last_line = log.line_count.saturating_sub(1);
    // With a list every unfinished subtest is real (worker threads may run
    // several at once); without one only the first is, the others being its
    // own output.
    let keep = if known.is_some() { pending.len() } else { 1 };
    for (name, first_line) in pending.into_iter().take(keep) {
        log.subtests.push(LoggedSubtest {
            name,
            reported: None,
            first_line,
            last_line,
        });
    }
    log
}

fn reported_from_word(word: &str) -> Option<Reported> {
    match word {
        "pass" => Some(Reported::Pass),
        "fail" => Some(Reported::Fail),
        "skip" => Some(Reported::Skip),
        _ => None,
    }
}

/// Parses the file a CTS binary writes to `CL_CONFORMANCE_RESULTS_FILENAME`:
/// `{"cmd": ..., "args": ..., "results": {"name": "pass"|"fail"|"skip"}}`.
/// The CTS writes `cmd` and `args` without escaping them, so when the text is
/// not valid JSON the `results` block is read line by line instead. Returns
/// `None` when no results block is found.
pub fn parse_results_json(text: &str) -> Option<Vec<(String, Reported)>> {
    if let Ok(value) = serde_json::from_str::<serde_json::Value>(text) {
        let results = value.get("results")?.as_object()?;
        return Some(
            results
                .iter()
                .filter_map(|(name, v)| Some((name.clone(), reported_from_word(v.as_str()?)?)))
                .collect(),
        );
    }
    let mut lines = text.lines();
    lines
        .by_ref()
        .find(|l| l.trim_start().starts_with("\"results\""))?;
    let mut found = Vec::new();
    for line in lines {
        let line = line.trim().trim_end_matches(',');
        if line.starts_with('}') {
            return Some(found);
        }
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let key = key.trim().trim_matches('"');
        let value = value.trim().trim_matches('"');
        if let Some(reported) = reported_from_word(value) {
            found.push((key.to_string(), reported));
        }
    }
    // A block that never closed was cut short: trust none of it.
    None
}

/// Parses the output of `test_x --list`: one subtest name per line, each
/// indented by a tab.
pub fn parse_test_list(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.starts_with('\t'))
        .map(str::trim)
        .filter(|name| looks_like_test_name(name))
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(name: &str) -> String {
        let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(path).unwrap()
    }

    fn summary(log: &ConsoleLog) -> Vec<(&str, Option<Reported>)> {
        log.subtests
            .iter()
            .map(|s| (s.name.as_str(), s.reported))
            .collect()
    }

    fn known(names: &[&str]) -> BTreeSet<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn all_passed() {
        let log = parse_console_log(&data("basic_passed.log"), None);
        assert_eq!(
            summary(&log),
            [
                ("hostptr", Some(Reported::Pass)),
                ("fpmath", Some(Reported::Pass)),
                ("intmath_int", Some(Reported::Pass)),
            ]
        );
        assert_eq!(log.init_failure, None);
    }

    #[test]
    fn mixed_results_without_a_list() {
        let log = parse_console_log(&data("mixed.log"), None);
        assert_eq!(
            summary(&log),
            [
                ("buffer_read_async_int", Some(Reported::Pass)),
                ("buffer_fill_struct", Some(Reported::Fail)),
                ("sub_buffers_read_write", Some(Reported::Skip)),
                ("svm_buffer_map", Some(Reported::Skip)),
                ("buffer_migrate", Some(Reported::Pass)),
            ]
        );
        let failed = &log.subtests[1];
        assert!(failed.first_line < failed.last_line);
        assert!(data("mixed.log")
            .lines()
            .nth(failed.last_line)
            .unwrap()
            .contains("FAILED"));
    }

    #[test]
    fn mixed_results_with_a_list() {
        let names = known(&[
            "buffer_read_async_int",
            "buffer_fill_struct",
            "sub_buffers_read_write",
            "svm_buffer_map",
            "buffer_migrate",
            "buffer_copy",
        ]);
        let log = parse_console_log(&data("mixed.log"), Some(&names));
        assert_eq!(log.subtests.len(), 5);
        assert_eq!(log.subtests[1].reported, Some(Reported::Fail));
    }

    #[test]
    fn crash_mid_output_leaves_the_running_subtest_unfinished() {
        let text = data("crash_mid.log");
        let log = parse_console_log(&text, None);
        assert_eq!(
            summary(&log),
            [
                ("atomic_add", Some(Reported::Pass)),
                ("atomic_sub", Some(Reported::Fail)),
                ("atomic_xchg", None),
            ]
        );
        let running = &log.subtests[2];
        assert_eq!(running.last_line, log.line_count - 1);
        // Test output that ends in "..." inside the running subtest is not a
        // subtest of its own.
        assert!(text.contains("Verifying..."));
    }

    #[test]
    fn crash_mid_output_with_a_list() {
        let names = known(&["atomic_add", "atomic_sub", "atomic_xchg", "atomic_min"]);
        let log = parse_console_log(&data("crash_mid.log"), Some(&names));
        assert_eq!(log.subtests.last().unwrap().name, "atomic_xchg");
        assert_eq!(log.subtests.last().unwrap().reported, None);
        assert_eq!(log.subtests.len(), 3);
    }

    #[test]
    fn initialization_skip() {
        let log = parse_console_log(&data("init_skipped.log"), None);
        assert_eq!(log.init_failure, Some(Reported::Skip));
        assert!(log.subtests.is_empty());
    }

    #[test]
    fn results_json() {
        let results = parse_results_json(&data("results.json")).unwrap();
        assert_eq!(
            results,
            [
                ("buffer_fill_struct".to_string(), Reported::Fail),
                ("buffer_migrate".to_string(), Reported::Pass),
                ("buffer_read_async_int".to_string(), Reported::Pass),
                ("sub_buffers_read_write".to_string(), Reported::Skip),
            ]
        );
    }

    #[test]
    fn results_json_with_unescaped_arguments() {
        let text = "{\n\t\"cmd\": \"C:\\cts\\data\\x\",\n\t\"args\": \"\",\n\t\"results\": {\n\t\t\"hostptr\": \"pass\",\n\t\t\"fpmath\": \"fail\"\n\t}\n}\n";
        assert!(serde_json::from_str::<serde_json::Value>(text).is_err());
        let results = parse_results_json(text).unwrap();
        assert_eq!(
            results,
            [
                ("hostptr".to_string(), Reported::Pass),
                ("fpmath".to_string(), Reported::Fail),
            ]
        );
    }

    #[test]
    fn truncated_results_json_is_rejected() {
        let text = "{\n\t\"cmd\": \"x\",\n\t\"results\": {\n\t\t\"hostptr\": \"pass\",\n";
        assert_eq!(parse_results_json(text), None);
        assert_eq!(parse_results_json("not json"), None);
    }

    #[test]
    fn test_list() {
        assert_eq!(
            parse_test_list(&data("list.txt")),
            ["buffer_copy", "buffer_fill_struct", "buffer_migrate"]
        );
    }
}
