//! Runs the `ferrocl-cts` binary against a fake CTS directory whose
//! "binaries" are shell scripts printing what CTS binaries print, crashing
//! with SIGSEGV and hanging, and checks what the harness records.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use ferrocl_cts::results::{Outcome, RunResults, Source, Status, SUITE_ENTRY};

struct Fixture {
    root: PathBuf,
    icd: PathBuf,
}

fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap();
            if entry.file_name().to_string_lossy().starts_with("test_") {
                fs::set_permissions(&target, fs::Permissions::from_mode(0o755)).unwrap();
            }
        }
    }
}

impl Fixture {
    fn new(name: &str) -> Fixture {
        let root =
            std::env::temp_dir().join(format!("ferrocl-cts-it-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        fs::create_dir_all(root.join("sync")).unwrap();
        fs::create_dir_all(root.join("pids")).unwrap();
        let cts = root.join("build");
        copy_tree(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fake_cts"),
            &cts,
        );
        // The fake binaries never load it; the harness only names it in the
        // vendor file, which they check.
        let icd = root.join("libferrocl.so");
        fs::write(&icd, "not a real ICD").unwrap();
        Fixture { root, icd }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.root.join(name)
    }

    /// Runs `ferrocl-cts run` with the fixture's CTS and ICD plus `args`.
    fn run(&self, args: &[&str]) -> (i32, String, String) {
        let mut all: Vec<String> = vec![
            "run".into(),
            // Relative to the harness's working directory, while each
            // binary runs in its own.
            "--cts-dir".into(),
            "build".into(),
            "--icd".into(),
            "libferrocl.so".into(),
        ];
        all.extend(args.iter().map(|s| s.to_string()));
        self.command(&all)
    }

    fn command(&self, args: &[String]) -> (i32, String, String) {
        let output = Command::new(env!("CARGO_BIN_EXE_ferrocl-cts"))
            .args(args)
            .current_dir(&self.root)
            .env(
                "FAKE_EXPECTED_ICD",
                fs::canonicalize(&self.icd).unwrap().display().to_string(),
            )
            .env("FAKE_SYNC", self.path("sync"))
            .env("FAKE_PIDS", self.path("pids"))
            // Must be replaced by the ICD under test for the CTS processes.
            .env("OCL_ICD_FILENAMES", "/nonexistent/libOther.so")
            .output()
            .unwrap();
        (
            output.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    }

    fn results(&self, name: &str) -> RunResults {
        serde_json::from_str(&fs::read_to_string(self.path(name)).unwrap()).unwrap()
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.root);
    }
}

fn status(results: &RunResults, suite: &str, subtest: &str) -> Option<Status> {
    results
        .suites
        .get(suite)?
        .subtests
        .get(subtest)
        .map(|s| s.status)
}

/// Alive and not a zombie left for its new parent to reap.
fn process_alive(pid: i32) -> bool {
    for _ in 0..50 {
        match fs::read_to_string(format!("/proc/{pid}/stat")) {
            Err(_) => return false,
            Ok(stat) => {
                let state = stat.rsplit(')').next().unwrap_or("").trim_start();
                if state.starts_with('Z') || state.starts_with('X') {
                    return false;
                }
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    true
}

#[test]
fn whole_binaries_crashes_hangs_and_parallel_runs() {
    let f = Fixture::new("whole");
    let out = f.path("r.json").display().to_string();
    let md = f.path("r.md").display().to_string();
    let logs = f.path("logs").display().to_string();
    let (code, stdout, stderr) = f.run(&[
        "--jobs",
        "4",
        "--timeout",
        "5",
        "--allow-missing",
        "--wimpy",
        "--out",
        &out,
        "--markdown",
        &md,
        "--logs",
        &logs,
    ]);
    assert_eq!(code, 0, "stdout:\n{stdout}\nstderr:\n{stderr}");
    let r = f.results("r.json");

    // Both halves of the rendezvous saw each other: they ran at once.
    assert_eq!(status(&r, "Rendezvous A", "meet"), Some(Status::Pass));
    assert_eq!(status(&r, "Rendezvous B", "meet"), Some(Status::Pass));

    let good = &r.suites["Good"];
    assert_eq!(good.source, Some(Source::CtsJson));
    assert_eq!(good.outcome, Some(Outcome::Exited { code: 1 }));
    assert_eq!(status(&r, "Good", "alpha"), Some(Status::Pass));
    assert_eq!(status(&r, "Good", "beta"), Some(Status::Fail));
    assert_eq!(status(&r, "Good", "gamma"), Some(Status::Skip));
    assert!(!good.subtests.contains_key(SUITE_ENTRY));
    assert!(good.subtests["beta"]
        .output_tail
        .iter()
        .any(|l| l.contains("got 11, expected 12")));

    let crashy = &r.suites["Crashy"];
    assert_eq!(
        crashy.outcome,
        Some(Outcome::Signaled {
            signal: 11,
            name: "SIGSEGV".into()
        })
    );
    assert_eq!(crashy.source, Some(Source::Output));
    assert_eq!(status(&r, "Crashy", "one"), Some(Status::Pass));
    assert_eq!(status(&r, "Crashy", "two"), Some(Status::Crash));
    assert_eq!(status(&r, "Crashy", "three"), None);
    let two = &crashy.subtests["two"];
    assert!(two.detail.as_deref().unwrap().contains("SIGSEGV"));
    assert_eq!(two.output_tail, ["two...", "launching the kernel"]);

    let hangs = &r.suites["Hangs"];
    assert_eq!(hangs.outcome, Some(Outcome::TimedOut { after_s: 5.0 }));
    assert_eq!(status(&r, "Hangs", "slow"), Some(Status::Timeout));
    let pid: i32 = fs::read_to_string(f.path("pids/hang.pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(
        !process_alive(pid),
        "the hung binary's child {pid} survived"
    );

    let missing = &r.suites["Not Built"];
    assert!(!missing.ran());
    assert!(missing.subtests.is_empty());
    // Device-specific lines only run when their device type is asked for.
    assert!(!r.suites.contains_key("Good on GPU"));

    assert_eq!(r.totals.pass, 4);
    assert_eq!(r.totals.fail, 1);
    assert_eq!(r.totals.skip, 1);
    assert_eq!(r.totals.crash, 1);
    assert_eq!(r.totals.timeout, 1);
    assert!(r.wimpy);

    let good_log = fs::read_to_string(f.path("logs/Good.log")).unwrap();
    assert!(good_log.contains("Wimpy mode enabled"));

    let report = fs::read_to_string(&md).unwrap();
    assert!(report.contains("| suite | pass | fail | skip | crash | timeout | time |"));
    assert!(report.contains("| Crashy | 1 | 0 | 0 | 1 | 0 |"));
    assert!(report.contains("| Hangs | 0 | 0 | 0 | 0 | 1 |"));
    assert!(report.contains("- Not Built: binary not found"));
    assert!(stdout.contains("results: "));
    assert!(stderr.contains("Crashy: 1 pass, 0 fail, 0 skip, 1 crash"));
}

#[test]
fn missing_binaries_refuse_to_run() {
    let f = Fixture::new("missing");
    let (code, _, stderr) = f.run(&["--timeout", "5"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("Not Built (missing/test_missing)"),
        "{stderr}"
    );
    assert!(!f.path("ferrocl-cts-results.json").exists());
}

#[test]
fn unknown_suite_is_a_harness_error() {
    let f = Fixture::new("unknown");
    let (code, _, stderr) = f.run(&["--suites", "Nope"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("`Nope`"), "{stderr}");
}

#[test]
fn split_subtests_run_alone() {
    let f = Fixture::new("split");
    let out = f.path("split.json").display().to_string();
    let (code, stdout, stderr) = f.run(&[
        "--suites",
        "Good,crashy",
        "--split-subtests",
        "--jobs",
        "2",
        "--timeout",
        "5",
        "--out",
        &out,
    ]);
    assert_eq!(code, 0, "stdout:\n{stdout}\nstderr:\n{stderr}");
    let r = f.results("split.json");
    assert!(r.split_subtests);
    assert_eq!(status(&r, "Good", "alpha"), Some(Status::Pass));
    assert_eq!(status(&r, "Good", "beta"), Some(Status::Fail));
    assert_eq!(status(&r, "Good", "gamma"), Some(Status::Skip));
    assert_eq!(status(&r, "Crashy", "one"), Some(Status::Pass));
    assert_eq!(status(&r, "Crashy", "two"), Some(Status::Crash));
    // Alone, the subtest after the crash gets to run.
    assert_eq!(status(&r, "Crashy", "three"), Some(Status::Pass));
    let two = &r.suites["Crashy"].subtests["two"];
    assert!(matches!(
        two.outcome,
        Some(Outcome::Signaled { signal: 11, .. })
    ));
    assert!(two.time_s.is_some());
    assert_eq!(r.suites["Good"].outcome, None);
    assert_eq!(r.suites.len(), 2);
}

#[test]
fn device_type_enables_device_lines() {
    let f = Fixture::new("device");
    let out = f.path("gpu.json").display().to_string();
    let (code, _, stderr) = f.run(&[
        "--device-type",
        "gpu",
        "--suites",
        "Good on GPU",
        "--out",
        &out,
    ]);
    assert_eq!(code, 0, "{stderr}");
    let r = f.results("gpu.json");
    let suite = &r.suites["Good on GPU"];
    assert_eq!(suite.args, ["alpha"]);
    assert_eq!(status(&r, "Good on GPU", "alpha"), Some(Status::Pass));
    assert_eq!(suite.subtests.len(), 1);
}

#[test]
fn baseline_regressions_and_expected_failures() {
    let f = Fixture::new("baseline");
    let base = f.path("base.json").display().to_string();
    let (code, _, stderr) = f.run(&["--suites", "Good", "--out", &base]);
    assert_eq!(code, 0, "{stderr}");
    // Pretend beta passed and alpha failed last time.
    let mut old = f.results("base.json");
    let good = old.suites.get_mut("Good").unwrap();
    good.subtests.get_mut("beta").unwrap().status = Status::Pass;
    good.subtests.get_mut("alpha").unwrap().status = Status::Fail;
    old.recount();
    fs::write(&base, serde_json::to_string(&old).unwrap()).unwrap();

    let now = f.path("now.json").display().to_string();
    let md = f.path("now.md").display().to_string();
    let none_expected = f.path("none.txt");
    fs::write(&none_expected, "# nothing expected to fail\n").unwrap();
    let (code, stdout, _) = f.run(&[
        "--suites",
        "Good",
        "--out",
        &now,
        "--markdown",
        &md,
        "--baseline",
        &base,
        "--expected-failures",
        none_expected.to_str().unwrap(),
        "--fail-on-regression",
    ]);
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.starts_with("Regressions: 1\n  Good/beta: pass -> fail\nProgressions: 1\n  Good/alpha: fail -> pass\n"),
        "{stdout}"
    );
    let report = fs::read_to_string(&md).unwrap();
    assert!(report.find("## Regressions").unwrap() < report.find("## Results").unwrap());

    let expected = f.path("expected.txt");
    fs::write(&expected, "Good/beta  the fake binary always fails it\n").unwrap();
    let (code, stdout, _) = f.run(&[
        "--suites",
        "Good",
        "--out",
        &now,
        "--markdown",
        &md,
        "--baseline",
        &base,
        "--expected-failures",
        expected.to_str().unwrap(),
        "--fail-on-regression",
    ]);
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.starts_with("Regressions: 0\n"), "{stdout}");
    assert!(stdout.contains("Regressions on the expected-failure list: 1"));
    let report = fs::read_to_string(&md).unwrap();
    assert!(report.contains("- `Good/beta`: fail: the fake binary always fails it"));

    // A list entry without a reason stops the harness before it runs.
    let bad = f.path("bad.txt");
    fs::write(&bad, "Good/beta\n").unwrap();
    let (code, _, stderr) = f.run(&[
        "--suites",
        "Good",
        "--expected-failures",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(stderr.contains("no reason"), "{stderr}");
}

#[test]
fn parse_command_reads_a_recorded_log() {
    let f = Fixture::new("parse");
    let log = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/crash_mid.log");
    let (code, stdout, _) = f.command(&["parse".into(), log.display().to_string()]);
    assert_eq!(code, 0);
    assert!(stdout.contains("atomic_add: pass\n"));
    assert!(stdout.contains("atomic_sub: fail\n"));
    assert!(stdout.contains("atomic_xchg: unfinished"));
    assert!(stdout.ends_with("pass 1  fail 1  skip 0  unfinished 1\n"));

    let json = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/results.json");
    let (code, stdout, _) = f.command(&["parse".into(), json.display().to_string()]);
    assert_eq!(code, 0);
    assert!(stdout.contains("buffer_fill_struct: fail\n"));
}

#[test]
fn usage_errors() {
    let f = Fixture::new("usage");
    let (code, _, stderr) = f.command(&["frobnicate".into()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("usage:"));
    let (code, stdout, _) = f.command(&["help".into()]);
    assert_eq!(code, 0);
    assert!(stdout.contains("--split-subtests"));
}
