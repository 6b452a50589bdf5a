//! The `ferrocl-cts` command line.

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::fs;
use std::path::PathBuf;
use std::time::Duration;

use crate::compare::{classify, compare};
use crate::cts_output::{parse_console_log, parse_results_json, parse_test_list, Reported};
use crate::expectations::ExpectedFailures;
use crate::process::stop_on_signals;
use crate::report::{console_summary, markdown};
use crate::results::{RunResults, RESULTS_FORMAT};
use crate::runner::{run_cts, RunOptions};
use crate::suite_list::normalize_device_type;

/// Everything ran; results are in the files, whatever they are.
pub const EXIT_OK: i32 = 0;
/// `--fail-on-regression` and there were regressions.
pub const EXIT_REGRESSION: i32 = 1;
/// The harness itself could not do its job: bad arguments, missing files.
pub const EXIT_HARNESS_ERROR: i32 = 2;
/// Stopped by SIGINT, SIGTERM or SIGHUP.
pub const EXIT_STOPPED: i32 = 130;

pub const DEFAULT_OUT: &str = "ferrocl-cts-results.json";
const DEFAULT_TIMEOUT_S: u64 = 1800;

pub const USAGE: &str = "\
usage:
  ferrocl-cts run --cts-dir DIR --icd PATH [options]
      Runs the OpenCL-CTS binaries built in DIR against the ICD at PATH
      (libferrocl.so), each in its own process group.
    --csv FILE               test list (default: opencl_conformance_tests_full.csv
                             in DIR or DIR/test_conformance)
    --suites A,B,...         only these suites: list names (\"Basic\"), binary
                             directories (basic) or binary names (test_basic)
    --wimpy                  reduced test sizes (sets CL_WIMPY_MODE)
    --jobs N                 processes at once (default: half the CPUs, at least 1)
    --timeout SECS           per process (default 1800)
    --split-subtests         run every subtest in a process of its own
    --device-type TYPE       cpu, gpu, ... : sets CL_DEVICE_TYPE and runs the
                             list's lines for that device type
    --allow-missing          record binaries that were not built instead of
                             refusing to start
    --out FILE               results JSON (default ferrocl-cts-results.json)
    --markdown FILE          markdown report
    --logs DIR               keep every process's full output in DIR
    --baseline FILE          earlier results JSON: print regressions and
                             progressions first
    --expected-failures FILE `suite/subtest  reason` lines
    --fail-on-regression     exit 1 on regressions against the baseline, and on
                             failures not in --expected-failures
    --no-line-buffering      do not run binaries through stdbuf -oL
  ferrocl-cts parse FILE [--list LISTFILE]
      Parses one recorded CTS console log (or CTS results JSON) and prints
      each subtest's result; LISTFILE is the binary's --list output.
exit status: 0 everything ran, 1 regressions (with --fail-on-regression),
2 harness error, 130 stopped by a signal
";

fn usage_error(message: &str) -> i32 {
    eprintln!("ferrocl-cts: {message}\n\n{USAGE}");
    EXIT_HARNESS_ERROR
}

fn harness_error(message: &str) -> i32 {
    eprintln!("ferrocl-cts: {message}");
    EXIT_HARNESS_ERROR
}

/// Command-line words, with `--name=value` split into two.
fn words(args: Vec<OsString>) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for arg in args {
        let arg = arg
            .into_string()
            .map_err(|a| format!("argument {a:?} is not UTF-8"))?;
        match arg.split_once('=') {
            Some((name, value)) if name.starts_with("--") => {
                out.push(name.to_string());
                out.push(value.to_string());
            }
            _ => out.push(arg),
        }
    }
    Ok(out)
}

/// Parsed `run` arguments, before files are read.
#[derive(Debug)]
pub struct RunArgs {
    pub options: RunOptions,
    pub out: PathBuf,
    pub markdown: Option<PathBuf>,
    pub baseline: Option<PathBuf>,
    pub expected_failures: Option<PathBuf>,
    pub fail_on_regression: bool,
}

pub fn parse_run_args(args: &[String]) -> Result<RunArgs, String> {
    let mut cts_dir = None;
    let mut icd = None;
    let mut csv = None;
    let mut suites = None;
    let mut wimpy = false;
    let mut jobs = None;
    let mut timeout = DEFAULT_TIMEOUT_S;
    let mut split_subtests = false;
    let mut device_type = None;
    let mut allow_missing = false;
    let mut logs_dir = None;
    let mut line_buffered = true;
    let mut out = PathBuf::from(DEFAULT_OUT);
    let mut markdown = None;
    let mut baseline = None;
    let mut expected_failures = None;
    let mut fail_on_regression = false;

    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = || {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{arg} needs a value"))
        };
        match arg.as_str() {
            "--cts-dir" => cts_dir = Some(PathBuf::from(value()?)),
            "--icd" => icd = Some(PathBuf::from(value()?)),
            "--csv" => csv = Some(PathBuf::from(value()?)),
            "--suites" => {
                let list: Vec<String> = value()?
                    .split(',')
                    .map(|s| s.trim().to_string())
                    .filter(|s| !s.is_empty())
                    .collect();
                if list.is_empty() {
                    return Err("--suites names no suite".into());
                }
                suites = Some(list);
            }
            "--wimpy" | "-w" => wimpy = true,
            "--jobs" | "-j" => {
                let v = value()?;
                let n: usize = v
                    .parse()
                    .ok()
                    .filter(|&n| n > 0)
                    .ok_or_else(|| format!("--jobs {v}: not a positive number"))?;
                jobs = Some(n);
            }
            "--timeout" => {
                let v = value()?;
                timeout =
                    v.parse().ok().filter(|&n| n > 0).ok_or_else(|| {
                        format!("--timeout {v}: not a positive number of seconds")
                    })?;
            }
            "--split-subtests" => split_subtests = true,
            "--device-type" => {
                let v = value()?;
                device_type = Some(
                    normalize_device_type(&v)
                        .ok_or_else(|| format!("--device-type {v}: not a CL_DEVICE_TYPE"))?,
                );
            }
            "--allow-missing" => allow_missing = true,
            "--logs" => logs_dir = Some(PathBuf::from(value()?)),
            "--no-line-buffering" => line_buffered = false,
            "--out" => out = PathBuf::from(value()?),
            "--markdown" => markdown = Some(PathBuf::from(value()?)),
            "--baseline" => baseline = Some(PathBuf::from(value()?)),
            "--expected-failures" => expected_failures = Some(PathBuf::from(value()?)),
            "--fail-on-regression" => fail_on_regression = true,
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    let jobs = jobs.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get() / 2)
            .unwrap_or(1)
            .max(1)
    });
    Ok(RunArgs {
        options: RunOptions {
            cts_dir: cts_dir.ok_or("--cts-dir is required")?,
            icd: icd.ok_or("--icd is required")?,
            csv,
            suites,
            wimpy,
            jobs,
            timeout: Duration::from_secs(timeout),
            split_subtests,
            device_type,
            allow_missing,
            logs_dir,
            line_buffered,
        },
        out,
        markdown,
        baseline,
        expected_failures,
        fail_on_regression,
    })
}

fn load_baseline(path: &PathBuf) -> Result<RunResults, String> {
    let text =
        fs::read_to_string(path).map_err(|e| format!("--baseline {}: {e}", path.display()))?;
    let results: RunResults = serde_json::from_str(&text).map_err(|e| {
        format!(
            "--baseline {}: not a ferrocl-cts results file: {e}",
            path.display()
        )
    })?;
    if results.format != RESULTS_FORMAT {
        return Err(format!(
            "--baseline {}: results format {} (this harness reads {RESULTS_FORMAT})",
            path.display(),
            results.format
        ));
    }
    Ok(results)
}

fn command_run(args: &[String]) -> i32 {
    let run_args = match parse_run_args(args) {
        Ok(a) => a,
        Err(e) => return usage_error(&e),
    };
    // Read every input before spending hours on the run.
    let expected = match &run_args.expected_failures {
        Some(path) => match fs::read_to_string(path) {
            Ok(text) => match ExpectedFailures::parse(&text) {
                Ok(list) => list,
                Err(e) => return harness_error(&format!("{}: {e}", path.display())),
            },
            Err(e) => return harness_error(&format!("{}: {e}", path.display())),
        },
        None => ExpectedFailures::default(),
    };
    let baseline = match run_args.baseline.as_ref().map(load_baseline).transpose() {
        Ok(b) => b,
        Err(e) => return harness_error(&e),
    };

    stop_on_signals();
    let mut progress = |line: &str| eprintln!("{line}");
    let results = match run_cts(&run_args.options, &mut progress) {
        Ok(r) => r,
        Err(e) if crate::process::stop_requested() => {
            eprintln!("ferrocl-cts: {e}");
            return EXIT_STOPPED;
        }
        Err(e) => return harness_error(&e.to_string()),
    };

    let comparison = baseline.as_ref().map(|b| compare(b, &results, &expected));
    let expectations = classify(&results, &expected);
    let json = match serde_json::to_string_pretty(&results) {
        Ok(j) => j,
        Err(e) => return harness_error(&format!("serializing results: {e}")),
    };
    if let Err(e) = fs::write(&run_args.out, json + "\n") {
        return harness_error(&format!("writing {}: {e}", run_args.out.display()));
    }
    if let Some(path) = &run_args.markdown {
        let text = markdown(&results, comparison.as_ref(), &expectations);
        if let Err(e) = fs::write(path, text) {
            return harness_error(&format!("writing {}: {e}", path.display()));
        }
    }

    print!("{}", console_summary(&results, comparison.as_ref()));
    if !expected.is_empty() {
        println!(
            "{} failures outside the expected-failure list, {} expected, {} listed but not failing",
            expectations.unexpected.len(),
            expectations.expected.len(),
            expectations.not_failing.len()
        );
    }
    println!("results: {}", run_args.out.display());
    if let Some(path) = &run_args.markdown {
        println!("report: {}", path.display());
    }

    let regressions = comparison.as_ref().map_or(0, |c| c.regressions.len())
        + if run_args.expected_failures.is_some() {
            expectations.unexpected.len()
        } else {
            0
        };
    if run_args.fail_on_regression && regressions > 0 {
        return EXIT_REGRESSION;
    }
    EXIT_OK
}

fn reported_word(r: Option<Reported>) -> &'static str {
    match r {
        Some(Reported::Pass) => "pass",
        Some(Reported::Fail) => "fail",
        Some(Reported::Skip) => "skip",
        None => "unfinished (crashed, hung or exited inside it)",
    }
}

fn command_parse(args: &[String]) -> i32 {
    let mut file = None;
    let mut list = None;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--list" => match it.next() {
                Some(v) => list = Some(v.clone()),
                None => return usage_error("--list needs a value"),
            },
            other if file.is_none() && !other.starts_with("--") => file = Some(other.to_string()),
            other => return usage_error(&format!("unknown argument `{other}`")),
        }
    }
    let Some(file) = file else {
        return usage_error("parse needs a FILE");
    };
    let text = match fs::read(&file) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => return harness_error(&format!("{file}: {e}")),
    };
    let known: Option<BTreeSet<String>> = match &list {
        Some(path) => match fs::read_to_string(path) {
            Ok(t) => Some(parse_test_list(&t).into_iter().collect()),
            Err(e) => return harness_error(&format!("{path}: {e}")),
        },
        None => None,
    };
    let mut counts = [0usize; 4];
    let mut show = |name: &str, r: Option<Reported>| {
        let slot = match r {
            Some(Reported::Pass) => 0,
            Some(Reported::Fail) => 1,
            Some(Reported::Skip) => 2,
            None => 3,
        };
        counts[slot] += 1;
        println!("{name}: {}", reported_word(r));
    };
    if text.trim_start().starts_with('{') {
        let Some(results) = parse_results_json(&text) else {
            return harness_error(&format!("{file}: no CTS results block"));
        };
        for (name, r) in results {
            show(&name, Some(r));
        }
    } else {
        let log = parse_console_log(&text, known.as_ref());
        if let Some(init) = log.init_failure {
            println!(
                "the CTS harness stopped during initialization: {}",
                reported_word(Some(init))
            );
        }
        for s in &log.subtests {
            show(&s.name, s.reported);
            if s.reported != Some(Reported::Pass) {
                println!("  lines {}-{}", s.first_line + 1, s.last_line + 1);
            }
        }
    }
    println!(
        "pass {}  fail {}  skip {}  unfinished {}",
        counts[0], counts[1], counts[2], counts[3]
    );
    EXIT_OK
}

/// Runs the command line (without the program name) and returns the exit
/// status.
pub fn main_with_args(args: Vec<OsString>) -> i32 {
    let args = match words(args) {
        Ok(w) => w,
        Err(e) => return usage_error(&e),
    };
    match args.first().map(String::as_str) {
        Some("run") => command_run(&args[1..]),
        Some("parse") => command_parse(&args[1..]),
        Some("help" | "--help" | "-h") => {
            print!("{USAGE}");
            EXIT_OK
        }
        Some(other) => usage_error(&format!("unknown command `{other}`")),
        None => usage_error("no command"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: &[&str]) -> Vec<String> {
        words(v.iter().map(OsString::from).collect()).unwrap()
    }

    #[test]
    fn run_arguments() {
        let a = parse_run_args(&args(&[
            "--cts-dir",
            "/cts",
            "--icd=/lib/libferrocl.so",
            "--suites",
            "Basic, api",
            "--jobs",
            "3",
            "--timeout=60",
            "--wimpy",
            "--split-subtests",
            "--device-type",
            "cpu",
            "--fail-on-regression",
        ]))
        .unwrap();
        assert_eq!(a.options.cts_dir, PathBuf::from("/cts"));
        assert_eq!(a.options.icd, PathBuf::from("/lib/libferrocl.so"));
        assert_eq!(
            a.options.suites,
            Some(vec!["Basic".to_string(), "api".to_string()])
        );
        assert_eq!(a.options.jobs, 3);
        assert_eq!(a.options.timeout, Duration::from_secs(60));
        assert!(a.options.wimpy && a.options.split_subtests && a.fail_on_regression);
        assert_eq!(a.options.device_type.as_deref(), Some("CL_DEVICE_TYPE_CPU"));
        assert_eq!(a.out, PathBuf::from(DEFAULT_OUT));
    }

    #[test]
    fn run_argument_errors() {
        assert!(parse_run_args(&args(&["--icd", "x"])).is_err());
        assert!(parse_run_args(&args(&["--cts-dir", "d", "--icd", "x", "--jobs", "0"])).is_err());
        assert!(parse_run_args(&args(&["--cts-dir", "d", "--icd", "x", "--bogus"])).is_err());
        assert!(parse_run_args(&args(&["--cts-dir", "d", "--icd"])).is_err());
        let a = parse_run_args(&args(&["--cts-dir", "d", "--icd", "x"])).unwrap();
        assert!(a.options.jobs >= 1);
    }
}
