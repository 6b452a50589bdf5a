//! Comparing a run with an earlier one and with the expected-failure list.

use crate::expectations::ExpectedFailures;
use crate::results::{RunResults, Status};

/// A subtest whose result differs between the baseline and this run;
/// `None` means it did not appear in that run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub suite: String,
    pub subtest: String,
    pub before: Option<Status>,
    pub after: Option<Status>,
    /// The expected-failure list's reason, when the subtest is on it.
    pub expected_reason: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Comparison {
    /// Passed in the baseline, not now, and not on the expected-failure list.
    pub regressions: Vec<Change>,
    /// Passed in the baseline, not now, but on the expected-failure list.
    pub expected_regressions: Vec<Change>,
    /// Passes now, did not in the baseline.
    pub progressions: Vec<Change>,
}

/// Compares the suites that ran in both runs, subtest by subtest; a suite
/// left out of either run (filtered, or not built) is not compared.
pub fn compare(
    baseline: &RunResults,
    current: &RunResults,
    expected: &ExpectedFailures,
) -> Comparison {
    let mut comparison = Comparison::default();
    for (suite_name, now) in &current.suites {
        let Some(before) = baseline.suites.get(suite_name) else {
            continue;
        };
        if !now.ran() || !before.ran() {
            continue;
        }
        let names = before.subtests.keys().chain(
            now.subtests
                .keys()
                .filter(|k| !before.subtests.contains_key(*k)),
        );
        for subtest in names {
            let was = before.subtests.get(subtest).map(|s| s.status);
            let is = now.subtests.get(subtest).map(|s| s.status);
            let was_pass = was == Some(Status::Pass);
            let is_pass = is == Some(Status::Pass);
            if was_pass == is_pass {
                continue;
            }
            let change = Change {
                suite: suite_name.clone(),
                subtest: subtest.clone(),
                before: was,
                after: is,
                expected_reason: expected.get(suite_name, subtest).map(|e| e.reason.clone()),
            };
            if is_pass {
                comparison.progressions.push(change);
            } else if change.expected_reason.is_some() {
                comparison.expected_regressions.push(change);
            } else {
                comparison.regressions.push(change);
            }
        }
    }
    comparison
}

/// One failure, or one entry of the expected-failure list, in this run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    pub suite: String,
    pub subtest: String,
    /// `None`: the subtest did not appear in this run.
    pub status: Option<Status>,
    pub reason: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExpectationReport {
    /// Failures (fail, crash, timeout) not on the list.
    pub unexpected: Vec<Listed>,
    /// Failures on the list.
    pub expected: Vec<Listed>,
    /// Listed subtests of suites that ran which did not fail: they passed,
    /// were skipped, or did not appear. The list wants updating.
    pub not_failing: Vec<Listed>,
}

pub fn classify(results: &RunResults, expected: &ExpectedFailures) -> ExpectationReport {
    let mut report = ExpectationReport::default();
    for (suite_name, suite) in &results.suites {
        for (subtest, result) in &suite.subtests {
            if !result.status.is_failure() {
                continue;
            }
            let reason = expected.get(suite_name, subtest).map(|e| e.reason.clone());
            let listed = Listed {
                suite: suite_name.clone(),
                subtest: subtest.clone(),
                status: Some(result.status),
                reason,
            };
            if listed.reason.is_some() {
                report.expected.push(listed);
            } else {
                report.unexpected.push(listed);
            }
        }
    }
    for entry in expected.iter() {
        let Some(suite) = results.suites.get(&entry.suite) else {
            continue;
        };
        if !suite.ran() {
            continue;
        }
        let status = suite.subtests.get(&entry.subtest).map(|s| s.status);
        if !status.is_some_and(Status::is_failure) {
            report.not_failing.push(Listed {
                suite: entry.suite.clone(),
                subtest: entry.subtest.clone(),
                status,
                reason: Some(entry.reason.clone()),
            });
        }
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::{run_of, Outcome};

    fn baseline() -> RunResults {
        use Status::*;
        run_of(&[
            (
                "Basic",
                &[("a", Pass), ("b", Pass), ("c", Fail), ("d", Pass)],
            ),
            ("Buffers", &[("x", Pass)]),
            ("Only before", &[("z", Pass)]),
        ])
    }

    #[test]
    fn regressions_and_progressions() {
        use Status::*;
        let now = run_of(&[
            (
                "Basic",
                &[("a", Pass), ("b", Crash), ("c", Pass), ("e", Pass)],
            ),
            ("Buffers", &[("x", Fail)]),
            ("Only now", &[("y", Fail)]),
        ]);
        let expected = ExpectedFailures::parse("Buffers/x  known bad\n").unwrap();
        let cmp = compare(&baseline(), &now, &expected);
        let names = |v: &[Change]| {
            v.iter()
                .map(|c| format!("{}/{}", c.suite, c.subtest))
                .collect::<Vec<_>>()
        };
        assert_eq!(names(&cmp.regressions), ["Basic/b", "Basic/d"]);
        assert_eq!(cmp.regressions[0].after, Some(Crash));
        assert_eq!(cmp.regressions[1].after, None);
        assert_eq!(names(&cmp.progressions), ["Basic/c", "Basic/e"]);
        assert_eq!(cmp.progressions[1].before, None);
        assert_eq!(names(&cmp.expected_regressions), ["Buffers/x"]);
        assert_eq!(
            cmp.expected_regressions[0].expected_reason.as_deref(),
            Some("known bad")
        );
    }

    #[test]
    fn suites_that_did_not_run_are_not_compared() {
        let mut now = baseline();
        now.suites.get_mut("Buffers").unwrap().outcome = Some(Outcome::Missing {
            path: "/cts/buffers/test_buffers".into(),
        });
        now.suites.get_mut("Buffers").unwrap().subtests.clear();
        let cmp = compare(&baseline(), &now, &ExpectedFailures::default());
        assert_eq!(cmp, Comparison::default());
    }

    #[test]
    fn classification_against_the_list() {
        use Status::*;
        let now = run_of(&[("Basic", &[("a", Pass), ("b", Timeout), ("c", Fail)])]);
        let expected =
            ExpectedFailures::parse("Basic/c  known\nBasic/a  fixed now\nOther/q  not run\n")
                .unwrap();
        let report = classify(&now, &expected);
        assert_eq!(report.unexpected.len(), 1);
        assert_eq!(report.unexpected[0].subtest, "b");
        assert_eq!(report.expected.len(), 1);
        assert_eq!(report.expected[0].reason.as_deref(), Some("known"));
        assert_eq!(report.not_failing.len(), 1);
        assert_eq!(report.not_failing[0].subtest, "a");
        assert_eq!(report.not_failing[0].status, Some(Pass));
    }
}
