//! A whole CTS run: finding the test list and binaries, pointing the ICD
//! loader at ferrocl, listing subtests when each runs alone, running every
//! process through the pool, and gathering the results.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::cts_output::parse_test_list;
use crate::process::{run_all, stop_requested, ProcessRun, ProcessSpec};
use crate::report::format_duration;
use crate::results::{
    results_of_process, single_subtest_result, Counts, Outcome, RunResults, SubtestResult,
    SuiteResult, RESULTS_FORMAT,
};
use crate::suite_list::{parse_suite_list, SuiteEntry};

/// The CTS's full test list, as its CMake build copies it into
/// `<build>/test_conformance/`.
pub const DEFAULT_LIST: &str = "opencl_conformance_tests_full.csv";

/// How long `test_x --list` may take; it runs before any OpenCL call.
const LIST_TIMEOUT: Duration = Duration::from_secs(60);

#[derive(Debug, Clone)]
pub struct RunOptions {
    pub cts_dir: PathBuf,
    pub icd: PathBuf,
    pub csv: Option<PathBuf>,
    /// Names from the test list, binary directories (`basic`) or binary
    /// names (`test_basic`); `None` runs the whole list.
    pub suites: Option<Vec<String>>,
    pub wimpy: bool,
    pub jobs: usize,
    pub timeout: Duration,
    pub split_subtests: bool,
    /// `CL_DEVICE_TYPE_*` to test: sets `CL_DEVICE_TYPE` and enables the
    /// list's lines for that type.
    pub device_type: Option<String>,
    /// Record binaries that were not built instead of refusing to run.
    pub allow_missing: bool,
    /// Keep each process's full output here.
    pub logs_dir: Option<PathBuf>,
    /// Run each binary through `stdbuf` (when it exists) so that its output
    /// survives a crash.
    pub line_buffered: bool,
}

/// Why a run could not be done at all.
#[derive(Debug)]
pub struct HarnessError(pub String);

impl fmt::Display for HarnessError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for HarnessError {}

fn err<T>(message: impl Into<String>) -> Result<T, HarnessError> {
    Err(HarnessError(message.into()))
}

/// The test list: `--csv` (as given, or inside the CTS directory or its
/// `test_conformance/`), else the full list in either of those.
pub fn find_test_list(cts_dir: &Path, csv: Option<&Path>) -> Result<PathBuf, HarnessError> {
    if let Some(csv) = csv {
        if csv.is_file() {
            return Ok(csv.to_path_buf());
        }
        for inside in [
            cts_dir.join(csv),
            cts_dir.join("test_conformance").join(csv),
        ] {
            if inside.is_file() {
                return Ok(inside);
            }
        }
        return err(format!("test list {} not found", csv.display()));
    }
    for candidate in [
        cts_dir.join(DEFAULT_LIST),
        cts_dir.join("test_conformance").join(DEFAULT_LIST),
    ] {
        if candidate.is_file() {
            return Ok(candidate);
        }
    }
    err(format!(
        "no {DEFAULT_LIST} in {} or its test_conformance/; pass --csv",
        cts_dir.display()
    ))
}

/// Where a list entry's binary is: list paths are relative to the CTS's
/// `test_conformance` directory, which is the CTS directory itself, its
/// `test_conformance/`, or the directory holding the list.
fn locate_binary(cts_dir: &Path, list_dir: &Path, binary: &str) -> Option<PathBuf> {
    [
        cts_dir.to_path_buf(),
        cts_dir.join("test_conformance"),
        list_dir.to_path_buf(),
    ]
    .iter()
    .map(|base| base.join(binary))
    .find(|p| p.is_file())
}

/// Keeps the entries `--suites` asks for; every name must match something.
pub fn select_suites(
    entries: Vec<SuiteEntry>,
    wanted: Option<&[String]>,
) -> Result<Vec<SuiteEntry>, HarnessError> {
    let Some(wanted) = wanted else {
        return Ok(entries);
    };
    let matches = |w: &str, e: &SuiteEntry| {
        e.name.eq_ignore_ascii_case(w) || e.directory() == w || e.binary_name() == w
    };
    let unknown: Vec<&String> = wanted
        .iter()
        .filter(|w| !entries.iter().any(|e| matches(w, e)))
        .collect();
    if !unknown.is_empty() {
        let names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
        return err(format!(
            "--suites: no suite named {}; the list has: {}",
            unknown
                .iter()
                .map(|s| format!("`{s}`"))
                .collect::<Vec<_>>()
                .join(", "),
            names.join(", ")
        ));
    }
    Ok(entries
        .into_iter()
        .filter(|e| wanted.iter().any(|w| matches(w, e)))
        .collect())
}

/// Splits a list line's arguments into suite options and the subtests they
/// select (`name`, `prefix*`, `all`), given the binary's subtest names.
/// Returns the options and the selected subtests, in list order (all of them
/// when the line selects none).
pub fn split_selection(args: &[String], subtests: &[String]) -> (Vec<String>, Vec<String>) {
    let mut options = Vec::new();
    let mut selected: BTreeSet<&str> = BTreeSet::new();
    let mut selects_all = false;
    for arg in args {
        if arg == "all" {
            selects_all = true;
        } else if subtests.iter().any(|s| s == arg) {
            selected.insert(arg);
        } else if let Some(prefix) = arg.strip_suffix('*').filter(|p| !p.contains('*')) {
            let hits: Vec<&String> = subtests.iter().filter(|s| s.starts_with(prefix)).collect();
            if hits.is_empty() {
                options.push(arg.clone());
            }
            selected.extend(hits.iter().map(|s| s.as_str()));
        } else {
            options.push(arg.clone());
        }
    }
    let chosen = subtests
        .iter()
        .filter(|s| selects_all || selected.is_empty() || selected.contains(s.as_str()))
        .cloned()
        .collect();
    (options, chosen)
}

fn file_stem_for(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// A scratch directory removed when dropped.
struct ScratchDir(PathBuf);

impl ScratchDir {
    fn new() -> Result<Self, HarnessError> {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let path = std::env::temp_dir().join(format!("ferrocl-cts-{}-{nanos}", std::process::id()));
        fs::create_dir_all(&path)
            .map_err(|e| HarnessError(format!("creating {}: {e}", path.display())))?;
        Ok(ScratchDir(path))
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// One process of the run phase.
struct Job {
    suite: usize,
    /// The subtest it runs alone, in `--split-subtests` runs.
    subtest: Option<String>,
    results_file: PathBuf,
}

/// A suite being put together from its processes.
struct Pending {
    entry: SuiteEntry,
    remaining: usize,
    result: SuiteResult,
}

fn read_lossy(path: &Path) -> String {
    fs::read(path)
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
        .unwrap_or_default()
}

fn progress_line(done: usize, total: usize, name: &str, suite: &SuiteResult) -> String {
    let c: &Counts = &suite.counts;
    let mut line = format!(
        "[{done:>w$}/{total}] {name}: {} pass, {} fail, {} skip",
        c.pass,
        c.fail,
        c.skip,
        w = total.to_string().len()
    );
    if c.crash > 0 {
        line.push_str(&format!(", {} crash", c.crash));
    }
    if c.timeout > 0 {
        line.push_str(&format!(", {} timeout", c.timeout));
    }
    line.push_str(&format!(" ({})", format_duration(suite.time_s)));
    line
}

/// Runs the selected suites and returns their results. `progress` gets one
/// line per finished suite (and notes along the way).
pub fn run_cts(
    opts: &RunOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<RunResults, HarnessError> {
    let started = Instant::now();
    let started_unix_s = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    // Absolute, because each binary runs in its own directory.
    let cts_dir = fs::canonicalize(&opts.cts_dir)
        .map_err(|e| HarnessError(format!("--cts-dir {}: {e}", opts.cts_dir.display())))?;
    if !cts_dir.is_dir() {
        return err(format!(
            "--cts-dir {} is not a directory",
            cts_dir.display()
        ));
    }
    let icd = fs::canonicalize(&opts.icd)
        .map_err(|e| HarnessError(format!("--icd {}: {e}", opts.icd.display())))?;
    if !icd.is_file() {
        return err(format!("--icd {} is not a file", icd.display()));
    }
    let list_path = find_test_list(&cts_dir, opts.csv.as_deref())?;
    let list_path = fs::canonicalize(&list_path)
        .map_err(|e| HarnessError(format!("{}: {e}", list_path.display())))?;
    let list_text = fs::read_to_string(&list_path)
        .map_err(|e| HarnessError(format!("reading {}: {e}", list_path.display())))?;
    let entries = parse_suite_list(&list_text)
        .map_err(|e| HarnessError(format!("{}: {e}", list_path.display())))?;
    let device_types: Vec<String> = opts.device_type.iter().cloned().collect();
    let entries: Vec<SuiteEntry> = entries
        .into_iter()
        .filter(|e| e.runs_for(&device_types))
        .collect();
    let entries = select_suites(entries, opts.suites.as_deref())?;
    if entries.is_empty() {
        return err(format!("{} selects no suites", list_path.display()));
    }
    let list_dir = list_path
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();

    let mut missing = Vec::new();
    let mut binaries = Vec::new();
    for e in &entries {
        let found = locate_binary(&cts_dir, &list_dir, &e.binary);
        if found.is_none() {
            missing.push(format!("{} ({})", e.name, e.binary));
        }
        binaries.push(found);
    }
    if !missing.is_empty() && !opts.allow_missing {
        return err(format!(
            "{} CTS binaries not found under {}: {}; build them or pass --allow-missing",
            missing.len(),
            cts_dir.display(),
            missing.join(", ")
        ));
    }

    let scratch = ScratchDir::new()?;
    let vendors = scratch.0.join("vendors");
    fs::create_dir_all(&vendors)
        .and_then(|_| fs::write(vendors.join("ferrocl.icd"), format!("{}\n", icd.display())))
        .map_err(|e| HarnessError(format!("writing the ICD file: {e}")))?;
    if let Some(logs) = &opts.logs_dir {
        fs::create_dir_all(logs)
            .map_err(|e| HarnessError(format!("creating {}: {e}", logs.display())))?;
    }
    let stdbuf = if opts.line_buffered {
        ["/usr/bin/stdbuf", "/bin/stdbuf"]
            .iter()
            .map(PathBuf::from)
            .find(|p| p.is_file())
    } else {
        None
    };

    let base_env = |results_file: &Path| {
        let mut env = vec![
            // ocl-icd reads vendor .icd files from this directory instead
            // of /etc/OpenCL/vendors.
            ("OCL_ICD_VENDORS".to_string(), vendors.display().to_string()),
            // Older Khronos loaders (CUDA's) read only this list; naming
            // ferrocl alone keeps any other platform from index 0.
            ("OCL_ICD_FILENAMES".to_string(), icd.display().to_string()),
            (
                "CL_CONFORMANCE_RESULTS_FILENAME".to_string(),
                results_file.display().to_string(),
            ),
        ];
        if opts.wimpy {
            env.push(("CL_WIMPY_MODE".to_string(), "1".to_string()));
        }
        if let Some(t) = &opts.device_type {
            env.push(("CL_DEVICE_TYPE".to_string(), t.clone()));
        }
        env
    };
    let env_remove = vec!["OPENCL_VENDOR_PATH".to_string()];
    let make_spec =
        |program: &Path, args: Vec<String>, log: PathBuf, results: &Path, timeout| ProcessSpec {
            program: program.to_path_buf(),
            args,
            cwd: program
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_else(|| cts_dir.clone()),
            env: base_env(results),
            env_remove: env_remove.clone(),
            log_path: log,
            timeout,
            stdbuf: stdbuf.clone(),
        };
    let log_path = |index: usize, suite: &str, subtest: Option<&str>| match &opts.logs_dir {
        Some(dir) => {
            let mut stem = file_stem_for(suite);
            if let Some(s) = subtest {
                stem.push('.');
                stem.push_str(&file_stem_for(s));
            }
            dir.join(format!("{stem}.log"))
        }
        None => scratch.0.join(format!("job-{index}.log")),
    };

    // In split runs, ask each binary for its subtests first.
    let mut subtest_lists: Vec<Option<Vec<String>>> = vec![None; entries.len()];
    if opts.split_subtests {
        let listed: Vec<usize> = (0..entries.len())
            .filter(|&i| binaries[i].is_some())
            .collect();
        let specs: Vec<ProcessSpec> = listed
            .iter()
            .filter_map(|&i| {
                let program = binaries[i].as_ref()?;
                Some(make_spec(
                    program,
                    vec!["--list".to_string()],
                    scratch.0.join(format!("list-{i}.log")),
                    &scratch.0.join(format!("list-{i}.json")),
                    LIST_TIMEOUT,
                ))
            })
            .collect();
        let runs = run_all(&specs, opts.jobs, |_, _| {});
        for (k, &i) in listed.iter().enumerate() {
            let names = parse_test_list(&read_lossy(&specs[k].log_path));
            if runs[k].outcome == (Outcome::Exited { code: 0 }) && !names.is_empty() {
                subtest_lists[i] = Some(names);
            } else {
                progress(&format!(
                    "note: {} did not list its subtests ({}); running it whole",
                    entries[i].name,
                    runs[k].outcome.describe()
                ));
            }
        }
    }
    if stop_requested() {
        return err("stopped by a signal");
    }

    let mut jobs: Vec<Job> = Vec::new();
    let mut specs: Vec<ProcessSpec> = Vec::new();
    let mut pending: Vec<Pending> = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        let mut result = SuiteResult {
            binary: entry.binary.clone(),
            args: entry.args.clone(),
            outcome: None,
            source: None,
            time_s: 0.0,
            counts: Counts::default(),
            subtests: BTreeMap::new(),
        };
        let Some(program) = &binaries[i] else {
            result.outcome = Some(Outcome::Missing {
                path: cts_dir.join(&entry.binary).display().to_string(),
            });
            pending.push(Pending {
                entry: entry.clone(),
                remaining: 0,
                result,
            });
            continue;
        };
        let runs: Vec<(Vec<String>, Option<String>)> = match &subtest_lists[i] {
            Some(names) => {
                let (options, chosen) = split_selection(&entry.args, names);
                chosen
                    .into_iter()
                    .map(|name| {
                        let mut args = options.clone();
                        args.push(name.clone());
                        (args, Some(name))
                    })
                    .collect()
            }
            None => vec![(entry.args.clone(), None)],
        };
        pending.push(Pending {
            entry: entry.clone(),
            remaining: runs.len(),
            result,
        });
        for (args, subtest) in runs {
            let index = specs.len();
            let results_file = scratch.0.join(format!("job-{index}.json"));
            specs.push(make_spec(
                program,
                args,
                log_path(index, &entry.name, subtest.as_deref()),
                &results_file,
                opts.timeout,
            ));
            jobs.push(Job {
                suite: i,
                subtest,
                results_file,
            });
        }
    }

    let total = pending.len();
    let mut done = 0;
    for p in pending.iter().filter(|p| p.remaining == 0) {
        done += 1;
        if let Some(o) = &p.result.outcome {
            progress(&format!(
                "[{done}/{total}] {}: {}",
                p.entry.name,
                o.describe()
            ));
        }
    }
    run_all(&specs, opts.jobs, |index, run: &ProcessRun| {
        if stop_requested() {
            // Killed by us, not by a bug: nothing to record.
            return;
        }
        let job = &jobs[index];
        let log_text = read_lossy(&specs[index].log_path);
        let cts_json = fs::read_to_string(&job.results_file).ok();
        let (subtests, source) =
            results_of_process(&run.outcome, &log_text, cts_json.as_deref(), None);
        let suite = &mut pending[job.suite];
        match &job.subtest {
            Some(name) => {
                let one: SubtestResult =
                    single_subtest_result(name, &run.outcome, subtests, run.wall_s);
                suite.result.subtests.insert(name.clone(), one);
            }
            None => {
                suite.result.subtests = subtests;
                suite.result.outcome = Some(run.outcome.clone());
                suite.result.source = Some(source);
            }
        }
        suite.result.time_s += run.wall_s;
        suite.remaining -= 1;
        if suite.remaining == 0 {
            suite.result.counts = Counts::of(suite.result.subtests.values());
            done += 1;
            progress(&progress_line(
                done,
                total,
                &suite.entry.name,
                &suite.result,
            ));
        }
    });
    if stop_requested() {
        return err("stopped by a signal");
    }

    let mut results = RunResults {
        format: RESULTS_FORMAT,
        icd: icd.display().to_string(),
        cts_dir: cts_dir.display().to_string(),
        test_list: list_path.display().to_string(),
        wimpy: opts.wimpy,
        split_subtests: opts.split_subtests,
        started_unix_s,
        time_s: 0.0,
        totals: Counts::default(),
        suites: pending
            .into_iter()
            .map(|p| (p.entry.name, p.result))
            .collect(),
    };
    results.recount();
    results.time_s = started.elapsed().as_secs_f64();
    Ok(results)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn selection_arguments_are_told_from_options() {
        let names = strings(&["quick_1d", "quick_2d", "full_1d", "full_2d"]);
        let (options, chosen) = split_selection(&strings(&["full*"]), &names);
        assert!(options.is_empty());
        assert_eq!(chosen, ["full_1d", "full_2d"]);

        let (options, chosen) = split_selection(&strings(&["single", "5", "all"]), &names);
        assert_eq!(options, ["single", "5"]);
        assert_eq!(chosen, names);

        let (options, chosen) =
            split_selection(&strings(&["use_pitches", "CL_FILTER_NEAREST"]), &names);
        assert_eq!(options, ["use_pitches", "CL_FILTER_NEAREST"]);
        assert_eq!(chosen, names);

        let (options, chosen) = split_selection(&strings(&["quick_2d", "-w*"]), &names);
        assert_eq!(options, ["-w*"]);
        assert_eq!(chosen, ["quick_2d"]);
    }

    fn entry(name: &str, binary: &str) -> SuiteEntry {
        SuiteEntry {
            name: name.into(),
            device_type: None,
            binary: binary.into(),
            args: vec![],
            line: 1,
        }
    }

    #[test]
    fn suites_are_selected_by_name_directory_or_binary() {
        let all = vec![
            entry("Basic", "basic/test_basic"),
            entry("API", "api/test_api"),
            entry(
                "Images (Kernel)",
                "images/kernel_read_write/test_image_streams",
            ),
        ];
        let picked = select_suites(all.clone(), Some(&strings(&["basic", "test_api"]))).unwrap();
        assert_eq!(picked.len(), 2);
        let picked = select_suites(all.clone(), Some(&strings(&["images (kernel)"]))).unwrap();
        assert_eq!(picked[0].name, "Images (Kernel)");
        let e = select_suites(all, Some(&strings(&["nope"]))).unwrap_err();
        assert!(e.0.contains("`nope`"));
    }

    #[test]
    fn test_list_is_found_in_the_build_or_its_test_conformance() {
        let build = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fake_cts");
        let full = build.join("test_conformance").join(DEFAULT_LIST);
        assert_eq!(find_test_list(&build, None).unwrap(), full);
        assert_eq!(
            find_test_list(&build.join("test_conformance"), None).unwrap(),
            full
        );
        assert_eq!(
            find_test_list(&build, Some(Path::new(DEFAULT_LIST))).unwrap(),
            full
        );
        assert!(find_test_list(&build, Some(Path::new("nope.csv"))).is_err());
        assert!(find_test_list(&build.join("test_conformance/good"), None).is_err());
    }

    #[test]
    fn file_names_for_logs() {
        assert_eq!(
            file_stem_for("Multiple Device/Context"),
            "Multiple_Device_Context"
        );
    }
}
