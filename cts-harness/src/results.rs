//! The results of a CTS run, as written to and read from the results file,
//! and how one process's exit and output become subtest results.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::cts_output::{parse_console_log, parse_results_json, ConsoleLog, Reported};

/// Version of the results file layout.
pub const RESULTS_FORMAT: u32 = 1;

/// Key of the entry that holds what no single subtest can be blamed for:
/// a crash before the first subtest or after the last, a failed
/// initialization, a non-zero exit with no failing subtest.
pub const SUITE_ENTRY: &str = "(suite)";

/// How many lines of output a failure keeps.
pub const TAIL_LINES: usize = 200;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Pass,
    Fail,
    Skip,
    Crash,
    Timeout,
}

impl Status {
    pub fn is_failure(self) -> bool {
        matches!(self, Status::Fail | Status::Crash | Status::Timeout)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "fail",
            Status::Skip => "skip",
            Status::Crash => "crash",
            Status::Timeout => "timeout",
        }
    }

    /// Which of two results for one subtest tells more about a problem.
    fn severity(self) -> u8 {
        match self {
            Status::Pass => 0,
            Status::Skip => 1,
            Status::Fail => 2,
            Status::Timeout => 3,
            Status::Crash => 4,
        }
    }
}

impl From<Reported> for Status {
    fn from(r: Reported) -> Self {
        match r {
            Reported::Pass => Status::Pass,
            Reported::Fail => Status::Fail,
            Reported::Skip => Status::Skip,
        }
    }
}

/// How one CTS process ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Outcome {
    Exited {
        code: i32,
    },
    Signaled {
        signal: i32,
        name: String,
    },
    TimedOut {
        after_s: f64,
    },
    /// The binary named by the test list does not exist.
    Missing {
        path: String,
    },
    SpawnFailed {
        error: String,
    },
}

impl Outcome {
    pub fn describe(&self) -> String {
        match self {
            Outcome::Exited { code } => format!("exited with code {code}"),
            Outcome::Signaled { name, .. } => format!("killed by {name}"),
            Outcome::TimedOut { after_s } => format!("timed out after {after_s:.0}s"),
            Outcome::Missing { path } => format!("binary not found: {path}"),
            Outcome::SpawnFailed { error } => format!("could not start: {error}"),
        }
    }
}

/// Where a process's subtest results were read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// The CTS's own `CL_CONFORMANCE_RESULTS_FILENAME` file.
    CtsJson,
    /// Its console output (the JSON file is written last, so a crash or a
    /// hang leaves none).
    Output,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubtestResult {
    pub status: Status,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// Wall time, when the subtest ran in a process of its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_s: Option<f64>,
    /// How its process ended, when it ran in a process of its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Outcome>,
    /// The last lines of output of a subtest that did not pass or skip.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub output_tail: Vec<String>,
}

impl SubtestResult {
    pub fn new(status: Status) -> Self {
        SubtestResult {
            status,
            detail: None,
            time_s: None,
            outcome: None,
            output_tail: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    pub pass: usize,
    pub fail: usize,
    pub skip: usize,
    pub crash: usize,
    pub timeout: usize,
}

impl Counts {
    pub fn add(&mut self, status: Status) {
        match status {
            Status::Pass => self.pass += 1,
            Status::Fail => self.fail += 1,
            Status::Skip => self.skip += 1,
            Status::Crash => self.crash += 1,
            Status::Timeout => self.timeout += 1,
        }
    }

    pub fn merge(&mut self, other: &Counts) {
        self.pass += other.pass;
        self.fail += other.fail;
        self.skip += other.skip;
        self.crash += other.crash;
        self.timeout += other.timeout;
    }

    pub fn total(&self) -> usize {
        self.pass + self.fail + self.skip + self.crash + self.timeout
    }

    pub fn of<'a>(subtests: impl IntoIterator<Item = &'a SubtestResult>) -> Counts {
        let mut counts = Counts::default();
        for s in subtests {
            counts.add(s.status);
        }
        counts
    }
}

/// One line of the test list, run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SuiteResult {
    pub binary: String,
    pub args: Vec<String>,
    /// How the process ended; absent when each subtest ran in its own
    /// process (see each subtest's `outcome`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Outcome>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<Source>,
    /// Wall time of the suite's process, or the sum over its subtests'
    /// processes.
    pub time_s: f64,
    pub counts: Counts,
    pub subtests: BTreeMap<String, SubtestResult>,
}

impl SuiteResult {
    /// Whether the binary ran at all.
    pub fn ran(&self) -> bool {
        !matches!(
            self.outcome,
            Some(Outcome::Missing { .. }) | Some(Outcome::SpawnFailed { .. })
        )
    }
}

/// A whole run: what the results file holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunResults {
    pub format: u32,
    pub icd: String,
    pub cts_dir: String,
    pub test_list: String,
    pub wimpy: bool,
    pub split_subtests: bool,
    pub started_unix_s: u64,
    pub time_s: f64,
    pub totals: Counts,
    pub suites: BTreeMap<String, SuiteResult>,
}

impl RunResults {
    pub fn recount(&mut self) {
        let mut totals = Counts::default();
        for suite in self.suites.values_mut() {
            suite.counts = Counts::of(suite.subtests.values());
            totals.merge(&suite.counts);
        }
        self.totals = totals;
    }
}

/// The last `TAIL_LINES` of `lines[first..=last]`.
fn tail(lines: &[&str], first: usize, last: usize) -> Vec<String> {
    if lines.is_empty() {
        return Vec::new();
    }
    let last = last.min(lines.len() - 1);
    let first = first.min(last);
    let from = (last + 1).saturating_sub(TAIL_LINES).max(first);
    lines[from..=last].iter().map(|l| l.to_string()).collect()
}

/// Turns one finished process into subtest results: statuses from the CTS's
/// JSON file when it wrote one, else from its console log; subtests the log
/// leaves unfinished take the process's fate (crash, timeout, or a failure
/// when it exited); what can't be pinned on a subtest goes to
/// [`SUITE_ENTRY`]. Every failure keeps the tail of its part of the log.
pub fn results_of_process(
    outcome: &Outcome,
    log_text: &str,
    cts_json: Option<&str>,
    known: Option<&BTreeSet<String>>,
) -> (BTreeMap<String, SubtestResult>, Source) {
    let log: ConsoleLog = parse_console_log(log_text, known);
    let lines: Vec<&str> = log_text.lines().collect();
    let whole_tail = || tail(&lines, 0, lines.len().saturating_sub(1));
    let mut subtests = BTreeMap::new();

    let from_json = cts_json.and_then(parse_results_json);
    let source = if from_json.is_some() {
        Source::CtsJson
    } else {
        Source::Output
    };
    if let Some(results) = from_json {
        for (name, reported) in results {
            subtests.insert(name, SubtestResult::new(reported.into()));
        }
    } else {
        for logged in &log.subtests {
            let result = match logged.reported {
                Some(r) => SubtestResult::new(r.into()),
                None => {
                    let mut r = SubtestResult::new(match outcome {
                        Outcome::Signaled { .. } => Status::Crash,
                        Outcome::TimedOut { .. } => Status::Timeout,
                        _ => Status::Fail,
                    });
                    r.detail = Some(format!("{} before reporting a result", outcome.describe()));
                    r
                }
            };
            subtests.insert(logged.name.clone(), result);
        }
        if subtests.is_empty() {
            if let Some(init) = log.init_failure {
                let mut r = SubtestResult::new(init.into());
                r.detail = Some("the CTS harness stopped during initialization".to_string());
                subtests.insert(SUITE_ENTRY.to_string(), r);
            }
        }
    }

    // Attach each failure's own part of the log.
    for (name, result) in subtests.iter_mut() {
        if !result.status.is_failure() {
            continue;
        }
        result.output_tail = match log.subtests.iter().find(|s| &s.name == name) {
            Some(s) => tail(&lines, s.first_line, s.last_line),
            None => whole_tail(),
        };
    }

    let any_failure = subtests.values().any(|s| s.status.is_failure());
    let process_problem = match outcome {
        Outcome::Signaled { .. } => Some(Status::Crash),
        Outcome::TimedOut { .. } => Some(Status::Timeout),
        Outcome::Exited { code } if *code != 0 && !any_failure => Some(Status::Fail),
        Outcome::Exited { .. } => None,
        Outcome::Missing { .. } | Outcome::SpawnFailed { .. } => Some(Status::Fail),
    };
    let blamed = subtests
        .values()
        .any(|s| matches!(s.status, Status::Crash | Status::Timeout));
    if let Some(status) = process_problem {
        if !blamed {
            let mut r = SubtestResult::new(status);
            r.detail = Some(outcome.describe());
            r.output_tail = whole_tail();
            subtests.insert(SUITE_ENTRY.to_string(), r);
        }
    } else if subtests.is_empty() {
        let mut r = SubtestResult::new(Status::Pass);
        r.detail = Some("exited with code 0 and reported no subtests".to_string());
        subtests.insert(SUITE_ENTRY.to_string(), r);
    }
    (subtests, source)
}

/// The result of subtest `name` run alone in its own process: its own entry
/// combined with whatever happened to the process around it.
pub fn single_subtest_result(
    name: &str,
    outcome: &Outcome,
    mut subtests: BTreeMap<String, SubtestResult>,
    time_s: f64,
) -> SubtestResult {
    let own = subtests.remove(name);
    let around = subtests.remove(SUITE_ENTRY);
    let mut result = match (own, around) {
        (Some(own), Some(around)) => {
            if around.status.severity() > own.status.severity() {
                around
            } else {
                own
            }
        }
        (Some(own), None) => own,
        (None, Some(around)) => around,
        (None, None) => {
            let mut r = SubtestResult::new(Status::Fail);
            r.detail = Some(format!(
                "{} without reporting this subtest",
                outcome.describe()
            ));
            r
        }
    };
    result.time_s = Some(time_s);
    result.outcome = Some(outcome.clone());
    result
}

/// A run made of the given suites and subtest statuses, for tests.
#[cfg(test)]
pub(crate) fn run_of(suites: &[(&str, &[(&str, Status)])]) -> RunResults {
    let mut run = RunResults {
        format: RESULTS_FORMAT,
        icd: String::new(),
        cts_dir: String::new(),
        test_list: String::new(),
        wimpy: false,
        split_subtests: false,
        started_unix_s: 0,
        time_s: 0.0,
        totals: Counts::default(),
        suites: BTreeMap::new(),
    };
    for (name, subtests) in suites {
        run.suites.insert(
            name.to_string(),
            SuiteResult {
                binary: "x/test_x".into(),
                args: vec![],
                outcome: Some(Outcome::Exited { code: 0 }),
                source: None,
                time_s: 0.0,
                counts: Counts::default(),
                subtests: subtests
                    .iter()
                    .map(|(n, s)| (n.to_string(), SubtestResult::new(*s)))
                    .collect(),
            },
        );
    }
    run.recount();
    run
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(name: &str) -> String {
        let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(path).unwrap()
    }

    fn statuses(map: &BTreeMap<String, SubtestResult>) -> Vec<(&str, Status)> {
        map.iter().map(|(k, v)| (k.as_str(), v.status)).collect()
    }

    #[test]
    fn crash_blames_the_running_subtest() {
        let outcome = Outcome::Signaled {
            signal: 11,
            name: "SIGSEGV".into(),
        };
        let (subtests, source) = results_of_process(&outcome, &data("crash_mid.log"), None, None);
        assert_eq!(source, Source::Output);
        assert_eq!(
            statuses(&subtests),
            [
                ("atomic_add", Status::Pass),
                ("atomic_sub", Status::Fail),
                ("atomic_xchg", Status::Crash),
            ]
        );
        let crashed = &subtests["atomic_xchg"];
        assert_eq!(
            crashed.detail.as_deref(),
            Some("killed by SIGSEGV before reporting a result")
        );
        assert_eq!(crashed.output_tail.first().unwrap(), "atomic_xchg...");
        assert_eq!(
            crashed.output_tail.last().unwrap(),
            " running 1024 work-items"
        );
        let failed = &subtests["atomic_sub"];
        assert_eq!(
            failed.output_tail,
            [
                "atomic_sub...",
                "Expected 12, got 11 at index 3",
                "atomic_sub FAILED"
            ]
        );
        assert!(subtests["atomic_add"].output_tail.is_empty());
    }

    #[test]
    fn json_results_win_over_the_log() {
        let outcome = Outcome::Exited { code: 1 };
        let json = data("results.json");
        let (subtests, source) =
            results_of_process(&outcome, &data("mixed.log"), Some(&json), None);
        assert_eq!(source, Source::CtsJson);
        assert_eq!(subtests.len(), 4);
        assert_eq!(subtests["buffer_fill_struct"].status, Status::Fail);
        // The failure's tail still comes from its part of the log.
        assert!(subtests["buffer_fill_struct"]
            .output_tail
            .iter()
            .any(|l| l.contains("did not validate")));
        assert!(!subtests.contains_key(SUITE_ENTRY));
    }

    #[test]
    fn crash_before_any_subtest_goes_to_the_suite_entry() {
        let outcome = Outcome::Signaled {
            signal: 6,
            name: "SIGABRT".into(),
        };
        let log = "Initializing random seed to 0.\nRequesting Default device\n";
        let (subtests, _) = results_of_process(&outcome, log, None, None);
        assert_eq!(statuses(&subtests), [(SUITE_ENTRY, Status::Crash)]);
        assert_eq!(subtests[SUITE_ENTRY].output_tail.len(), 2);
    }

    #[test]
    fn nonzero_exit_without_a_failing_subtest_is_a_failure() {
        let outcome = Outcome::Exited { code: 1 };
        let (subtests, _) = results_of_process(&outcome, &data("basic_passed.log"), None, None);
        assert_eq!(subtests[SUITE_ENTRY].status, Status::Fail);
        assert_eq!(subtests["hostptr"].status, Status::Pass);
    }

    #[test]
    fn initialization_skip_is_one_skip() {
        let outcome = Outcome::Exited { code: 0 };
        let (subtests, _) = results_of_process(&outcome, &data("init_skipped.log"), None, None);
        assert_eq!(statuses(&subtests), [(SUITE_ENTRY, Status::Skip)]);
    }

    #[test]
    fn silent_success_is_recorded_honestly() {
        let (subtests, _) = results_of_process(&Outcome::Exited { code: 0 }, "", None, None);
        assert_eq!(subtests[SUITE_ENTRY].status, Status::Pass);
        assert!(subtests[SUITE_ENTRY].detail.is_some());
    }

    #[test]
    fn timeout_in_a_split_subtest() {
        let outcome = Outcome::TimedOut { after_s: 5.0 };
        let log = "hostptr...\nwaiting\n";
        let (subtests, _) = results_of_process(&outcome, log, None, None);
        let r = single_subtest_result("hostptr", &outcome, subtests, 5.0);
        assert_eq!(r.status, Status::Timeout);
        assert_eq!(r.time_s, Some(5.0));
    }

    #[test]
    fn crash_after_a_split_subtest_passed() {
        let outcome = Outcome::Signaled {
            signal: 11,
            name: "SIGSEGV".into(),
        };
        let log = "hostptr...\nhostptr passed\n";
        let (subtests, _) = results_of_process(&outcome, log, None, None);
        let r = single_subtest_result("hostptr", &outcome, subtests, 1.0);
        assert_eq!(r.status, Status::Crash);
    }

    #[test]
    fn split_subtest_that_reported_nothing() {
        let outcome = Outcome::Exited { code: 0 };
        let log = "hostptr...\nhostptr passed\n";
        let (subtests, _) = results_of_process(&outcome, log, None, None);
        let r = single_subtest_result("fpmath", &outcome, subtests, 1.0);
        assert_eq!(r.status, Status::Fail);
    }

    #[test]
    fn tail_is_bounded() {
        let lines: Vec<String> = (0..500).map(|i| format!("line {i}")).collect();
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        let t = tail(&refs, 0, 499);
        assert_eq!(t.len(), TAIL_LINES);
        assert_eq!(t.last().unwrap(), "line 499");
        assert_eq!(tail(&refs, 10, 12), ["line 10", "line 11", "line 12"]);
        assert!(tail(&[], 0, 0).is_empty());
    }

    #[test]
    fn results_round_trip_through_json() {
        let mut suite = SuiteResult {
            binary: "basic/test_basic".into(),
            args: vec![],
            outcome: Some(Outcome::Exited { code: 0 }),
            source: Some(Source::CtsJson),
            time_s: 1.5,
            counts: Counts::default(),
            subtests: BTreeMap::new(),
        };
        suite
            .subtests
            .insert("hostptr".into(), SubtestResult::new(Status::Pass));
        let mut run = RunResults {
            format: RESULTS_FORMAT,
            icd: "/x/libferrocl.so".into(),
            cts_dir: "/cts".into(),
            test_list: "/cts/list.csv".into(),
            wimpy: true,
            split_subtests: false,
            started_unix_s: 0,
            time_s: 1.5,
            totals: Counts::default(),
            suites: BTreeMap::from([("Basic".to_string(), suite)]),
        };
        run.recount();
        assert_eq!(run.totals.pass, 1);
        let text = serde_json::to_string_pretty(&run).unwrap();
        assert!(text.contains("\"kind\": \"exited\""));
        let back: RunResults = serde_json::from_str(&text).unwrap();
        assert_eq!(back, run);
    }
}
