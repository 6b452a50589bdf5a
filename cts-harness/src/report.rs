//! Human-readable reports of a run: the markdown file and the console
//! summary.

use std::fmt::Write as _;

use crate::compare::{Change, Comparison, ExpectationReport};
use crate::results::{Counts, RunResults, Status, SuiteResult};

/// `12.3s`, `4m 05s`, `1h 02m`.
pub fn format_duration(seconds: f64) -> String {
    if seconds < 60.0 {
        return format!("{seconds:.1}s");
    }
    let whole = seconds.round() as u64;
    if whole < 3600 {
        format!("{}m {:02}s", whole / 60, whole % 60)
    } else {
        format!("{}h {:02}m", whole / 3600, (whole % 3600) / 60)
    }
}

fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

fn status_word(status: Option<Status>) -> &'static str {
    status.map_or("not run", Status::as_str)
}

/// A code fence longer than any run of backticks in the text it encloses.
fn fence_for(lines: &[String]) -> String {
    let mut longest = 0;
    for line in lines {
        let mut run = 0;
        for c in line.chars() {
            run = if c == '`' { run + 1 } else { 0 };
            longest = longest.max(run);
        }
    }
    "`".repeat((longest + 1).max(3))
}

fn counts_row(out: &mut String, name: &str, counts: &Counts, time: &str) {
    let _ = writeln!(
        out,
        "| {} | {} | {} | {} | {} | {} | {} |",
        name, counts.pass, counts.fail, counts.skip, counts.crash, counts.timeout, time
    );
}

fn change_table(out: &mut String, changes: &[Change], with_reason: bool) {
    if changes.is_empty() {
        out.push_str("None.\n\n");
        return;
    }
    if with_reason {
        out.push_str("| suite | subtest | before | now | reason |\n|---|---|---|---|---|\n");
    } else {
        out.push_str("| suite | subtest | before | now |\n|---|---|---|---|\n");
    }
    for c in changes {
        let _ = write!(
            out,
            "| {} | `{}` | {} | {} |",
            cell(&c.suite),
            c.subtest,
            status_word(c.before),
            status_word(c.after)
        );
        if with_reason {
            let _ = write!(
                out,
                " {} |",
                cell(c.expected_reason.as_deref().unwrap_or(""))
            );
        }
        out.push('\n');
    }
    out.push('\n');
}

/// The markdown report: baseline changes first (when compared), then the
/// table `suite | pass | fail | skip | crash | timeout | time`, then each
/// unexpected failure with the tail of its output, grouped by suite, then
/// the expected failures and the suites that did not run.
pub fn markdown(
    results: &RunResults,
    comparison: Option<&Comparison>,
    expectations: &ExpectationReport,
) -> String {
    let mut out = String::new();
    out.push_str("# OpenCL-CTS results\n\n");
    let _ = writeln!(out, "- ICD: `{}`", results.icd);
    let _ = writeln!(out, "- test list: `{}`", results.test_list);
    let _ = writeln!(
        out,
        "- mode: {}, one process per {}",
        if results.wimpy { "wimpy" } else { "full" },
        if results.split_subtests {
            "subtest"
        } else {
            "suite"
        }
    );
    let t = &results.totals;
    let _ = writeln!(
        out,
        "- totals: {} pass, {} fail, {} skip, {} crash, {} timeout in {}\n",
        t.pass,
        t.fail,
        t.skip,
        t.crash,
        t.timeout,
        format_duration(results.time_s)
    );

    if let Some(cmp) = comparison {
        out.push_str("## Regressions since the baseline\n\n");
        change_table(&mut out, &cmp.regressions, false);
        out.push_str("## Progressions since the baseline\n\n");
        change_table(&mut out, &cmp.progressions, false);
        if !cmp.expected_regressions.is_empty() {
            out.push_str("## Changes on the expected-failure list\n\n");
            change_table(&mut out, &cmp.expected_regressions, true);
        }
    }

    out.push_str("## Results\n\n");
    out.push_str("| suite | pass | fail | skip | crash | timeout | time |\n");
    out.push_str("|---|---:|---:|---:|---:|---:|---:|\n");
    for (name, suite) in &results.suites {
        let time = if suite.ran() {
            format_duration(suite.time_s)
        } else {
            "not run".to_string()
        };
        counts_row(&mut out, &cell(name), &suite.counts, &time);
    }
    counts_row(
        &mut out,
        "**total**",
        &results.totals,
        &format_duration(results.time_s),
    );
    out.push('\n');

    out.push_str("## Failures\n\n");
    if expectations.unexpected.is_empty() {
        out.push_str("None outside the expected-failure list.\n\n");
    }
    let mut current_suite: Option<&str> = None;
    for failure in &expectations.unexpected {
        if current_suite != Some(failure.suite.as_str()) {
            let _ = writeln!(out, "### {}\n", failure.suite);
            current_suite = Some(&failure.suite);
        }
        let Some(result) = results
            .suites
            .get(&failure.suite)
            .and_then(|s| s.subtests.get(&failure.subtest))
        else {
            continue;
        };
        let _ = write!(out, "- `{}`: {}", failure.subtest, result.status.as_str());
        if let Some(detail) = &result.detail {
            let _ = write!(out, " ({detail})");
        }
        out.push('\n');
        if !result.output_tail.is_empty() {
            let fence = fence_for(&result.output_tail);
            let what = match result.output_tail.len() {
                1 => "last line".to_string(),
                n => format!("last {n} lines"),
            };
            let _ = writeln!(
                out,
                "\n<details><summary>{what} of output</summary>\n\n{fence}text"
            );
            for line in &result.output_tail {
                out.push_str(line);
                out.push('\n');
            }
            let _ = writeln!(out, "{fence}\n\n</details>\n");
        }
    }
    if current_suite.is_some() {
        out.push('\n');
    }

    if !expectations.expected.is_empty() || !expectations.not_failing.is_empty() {
        out.push_str("## Expected failures\n\n");
        for e in &expectations.expected {
            let _ = writeln!(
                out,
                "- `{}/{}`: {}: {}",
                e.suite,
                e.subtest,
                status_word(e.status),
                e.reason.as_deref().unwrap_or("")
            );
        }
        if !expectations.not_failing.is_empty() {
            out.push_str("\nListed as expected failures but not failing now:\n\n");
            for e in &expectations.not_failing {
                let _ = writeln!(
                    out,
                    "- `{}/{}`: {} (listed: {})",
                    e.suite,
                    e.subtest,
                    status_word(e.status),
                    e.reason.as_deref().unwrap_or("")
                );
            }
        }
        out.push('\n');
    }

    let not_run: Vec<(&String, &SuiteResult)> =
        results.suites.iter().filter(|(_, s)| !s.ran()).collect();
    if !not_run.is_empty() {
        out.push_str("## Not run\n\n");
        for (name, suite) in not_run {
            if let Some(outcome) = &suite.outcome {
                let _ = writeln!(out, "- {}: {}", name, outcome.describe());
            }
        }
        out.push('\n');
    }
    out
}

fn change_lines(out: &mut String, title: &str, changes: &[Change]) {
    let _ = writeln!(out, "{title}: {}", changes.len());
    for c in changes {
        let _ = writeln!(
            out,
            "  {}/{}: {} -> {}",
            c.suite,
            c.subtest,
            status_word(c.before),
            status_word(c.after)
        );
    }
}

/// What the console shows at the end of a run: baseline changes first,
/// then an aligned table of the suites.
pub fn console_summary(results: &RunResults, comparison: Option<&Comparison>) -> String {
    let mut out = String::new();
    if let Some(cmp) = comparison {
        change_lines(&mut out, "Regressions", &cmp.regressions);
        change_lines(&mut out, "Progressions", &cmp.progressions);
        if !cmp.expected_regressions.is_empty() {
            change_lines(
                &mut out,
                "Regressions on the expected-failure list",
                &cmp.expected_regressions,
            );
        }
        out.push('\n');
    }
    let mut rows: Vec<[String; 7]> = vec![[
        "suite".into(),
        "pass".into(),
        "fail".into(),
        "skip".into(),
        "crash".into(),
        "timeout".into(),
        "time".into(),
    ]];
    let row = |name: &str, c: &Counts, time: String| {
        [
            name.to_string(),
            c.pass.to_string(),
            c.fail.to_string(),
            c.skip.to_string(),
            c.crash.to_string(),
            c.timeout.to_string(),
            time,
        ]
    };
    for (name, suite) in &results.suites {
        let time = if suite.ran() {
            format_duration(suite.time_s)
        } else {
            "not run".into()
        };
        rows.push(row(name, &suite.counts, time));
    }
    rows.push(row(
        "total",
        &results.totals,
        format_duration(results.time_s),
    ));
    let mut widths = [0usize; 7];
    for r in &rows {
        for (w, c) in widths.iter_mut().zip(r.iter()) {
            *w = (*w).max(c.chars().count());
        }
    }
    for r in &rows {
        let _ = write!(out, "{:<w$}", r[0], w = widths[0]);
        for (c, w) in r.iter().zip(widths.iter()).skip(1) {
            let _ = write!(out, "  {c:>w$}");
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::{classify, compare};
    use crate::expectations::ExpectedFailures;
    use crate::results::{run_of, Outcome};

    fn sample() -> (RunResults, Comparison, ExpectationReport) {
        use Status::*;
        let before = run_of(&[("Basic", &[("a", Pass), ("b", Pass)])]);
        let mut now = run_of(&[
            ("Basic", &[("a", Pass), ("b", Crash), ("c", Fail)]),
            ("Images (Kernel | pitch)", &[]),
        ]);
        now.time_s = 125.0;
        let b = now
            .suites
            .get_mut("Basic")
            .unwrap()
            .subtests
            .get_mut("b")
            .unwrap();
        b.detail = Some("killed by SIGSEGV before reporting a result".into());
        b.output_tail = vec!["b...".into(), "```inner fence```".into()];
        let images = now.suites.get_mut("Images (Kernel | pitch)").unwrap();
        images.outcome = Some(Outcome::Missing {
            path: "/cts/images/test_image_streams".into(),
        });
        now.recount();
        let expected = ExpectedFailures::parse("Basic/c  rounding of fma\n").unwrap();
        let cmp = compare(&before, &now, &expected);
        let report = classify(&now, &expected);
        (now, cmp, report)
    }

    #[test]
    fn markdown_layout() {
        let (now, cmp, report) = sample();
        let md = markdown(&now, Some(&cmp), &report);
        let regressions = md.find("## Regressions since the baseline").unwrap();
        let table = md.find("## Results").unwrap();
        assert!(regressions < table, "baseline changes come first");
        assert!(md.contains("| Basic | `b` | pass | crash |"));
        assert!(md.contains("| suite | pass | fail | skip | crash | timeout | time |"));
        assert!(md.contains("| Basic | 1 | 1 | 0 | 1 | 0 | 0.0s |"));
        assert!(md.contains("| Images (Kernel \\| pitch) | 0 | 0 | 0 | 0 | 0 | not run |"));
        assert!(md.contains("| **total** | 1 | 1 | 0 | 1 | 0 | 2m 05s |"));
        assert!(md.contains("### Basic\n\n- `b`: crash (killed by SIGSEGV"));
        // The tail holds three backticks, so the fence takes four.
        assert!(md.contains("````text\nb...\n```inner fence```\n````"));
        assert!(md.contains("## Expected failures\n\n- `Basic/c`: fail: rounding of fma"));
        assert!(md.contains("## Not run\n\n- Images (Kernel | pitch): binary not found"));
        // The expected failure is not among the unexpected ones.
        assert!(!md.contains("- `c`: fail"));
    }

    #[test]
    fn markdown_without_baseline_or_failures() {
        let now = run_of(&[("Basic", &[("a", Status::Pass)])]);
        let report = classify(&now, &ExpectedFailures::default());
        let md = markdown(&now, None, &report);
        assert!(!md.contains("Regressions"));
        assert!(md.contains("None outside the expected-failure list."));
        assert!(!md.contains("## Expected failures"));
    }

    #[test]
    fn console_summary_lists_changes_first() {
        let (now, cmp, _) = sample();
        let text = console_summary(&now, Some(&cmp));
        assert!(text.starts_with("Regressions: 1\n  Basic/b: pass -> crash\nProgressions: 0\n"));
        let lines: Vec<&str> = text.lines().collect();
        let header = lines.iter().find(|l| l.starts_with("suite")).unwrap();
        let total = lines.last().unwrap();
        assert!(total.starts_with("total"));
        assert_eq!(header.len(), total.len(), "columns are aligned");
    }

    #[test]
    fn durations() {
        assert_eq!(format_duration(2.26), "2.3s");
        assert_eq!(format_duration(65.0), "1m 05s");
        assert_eq!(format_duration(3725.0), "1h 02m");
    }
}
