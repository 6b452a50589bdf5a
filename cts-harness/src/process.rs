//! Running one CTS binary: its own process group, output to a log file, a
//! deadline that kills the whole group, and a pool that runs several at once.
//!
//! A CTS binary may fork helpers or hang inside a driver thread, so a
//! timeout kills the process group, not just the pid; and the group is
//! killed before the leader is reaped, while the leader's pid (and so the
//! group id) cannot yet be reused by an unrelated process.

use std::fs::File;
use std::io;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use crate::results::Outcome;

/// Set by SIGINT/SIGTERM/SIGHUP once [`stop_on_signals`] is installed: every
/// running group is killed and no new process starts.
static STOP_REQUESTED: AtomicBool = AtomicBool::new(false);

extern "C" fn request_stop(_signal: libc::c_int) {
    // Only an atomic store: the one thing a signal handler may safely do here.
    STOP_REQUESTED.store(true, Ordering::SeqCst);
}

/// The CTS processes run in their own process groups, so the terminal's
/// Ctrl-C reaches only the harness; it must pass the stop on to them rather
/// than leave them running.
pub fn stop_on_signals() {
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: the handler only stores to an atomic, which is
        // async-signal-safe; the cast is how libc takes a handler address.
        unsafe {
            libc::signal(signal, request_stop as *const () as libc::sighandler_t);
        }
    }
}

pub fn stop_requested() -> bool {
    STOP_REQUESTED.load(Ordering::SeqCst)
}

/// One process to run.
#[derive(Debug, Clone)]
pub struct ProcessSpec {
    pub program: PathBuf,
    pub args: Vec<String>,
    pub cwd: PathBuf,
    pub env: Vec<(String, String)>,
    pub env_remove: Vec<String>,
    /// Receives stdout and stderr together, in the order they were written.
    pub log_path: PathBuf,
    pub timeout: Duration,
    /// Run through `stdbuf -oL -eL`, so that a crash loses no buffered
    /// lines (C stdio buffers whole blocks when writing to a file).
    pub stdbuf: Option<PathBuf>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ProcessRun {
    pub outcome: Outcome,
    pub wall_s: f64,
}

/// `SIGSEGV` for 11 and so on; the number for signals without a name here.
pub fn signal_name(signal: i32) -> String {
    let name = match signal {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGILL => "SIGILL",
        libc::SIGTRAP => "SIGTRAP",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGUSR1 => "SIGUSR1",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGUSR2 => "SIGUSR2",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGALRM => "SIGALRM",
        libc::SIGTERM => "SIGTERM",
        libc::SIGXCPU => "SIGXCPU",
        libc::SIGXFSZ => "SIGXFSZ",
        libc::SIGSYS => "SIGSYS",
        _ => return format!("signal {signal}"),
    };
    name.to_string()
}

/// Whether the child has exited, without reaping it.
fn has_exited(pid: libc::pid_t) -> io::Result<bool> {
    // SAFETY: siginfo_t is plain data; all zeroes is a valid value, and
    // si_pid stays 0 unless waitid reports a child.
    let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
    // SAFETY: `info` is valid for writes; WNOWAIT leaves the child
    // unreaped, so std's Child::wait still collects its status later.
    let rc = unsafe {
        libc::waitid(
            libc::P_PID,
            pid as libc::id_t,
            &mut info,
            libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
        )
    };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: waitid filled in a SIGCHLD-style siginfo (or left zeroes).
    Ok(unsafe { info.si_pid() } != 0)
}

fn kill_group(pgid: libc::pid_t) {
    // SAFETY: plain syscall; the group id is that of our own unreaped
    // child, so it names no unrelated processes. ESRCH (group already
    // empty) is fine to ignore.
    unsafe {
        libc::kill(-pgid, libc::SIGKILL);
    }
}

/// Runs one process to its end or its deadline.
pub fn run_process(spec: &ProcessSpec) -> ProcessRun {
    let start = Instant::now();
    let spawn_failed = |error: String| ProcessRun {
        outcome: Outcome::SpawnFailed { error },
        wall_s: start.elapsed().as_secs_f64(),
    };
    if !spec.program.is_file() {
        return ProcessRun {
            outcome: Outcome::Missing {
                path: spec.program.display().to_string(),
            },
            wall_s: 0.0,
        };
    }
    let log = match File::create(&spec.log_path) {
        Ok(f) => f,
        Err(e) => return spawn_failed(format!("log {}: {e}", spec.log_path.display())),
    };
    let log_err = match log.try_clone() {
        Ok(f) => f,
        Err(e) => return spawn_failed(format!("log {}: {e}", spec.log_path.display())),
    };
    let mut command = match &spec.stdbuf {
        Some(stdbuf) => {
            let mut c = Command::new(stdbuf);
            c.args(["-oL", "-eL"]).arg(&spec.program);
            c
        }
        None => Command::new(&spec.program),
    };
    command
        .args(&spec.args)
        .current_dir(&spec.cwd)
        .stdin(Stdio::null())
        .stdout(log)
        .stderr(log_err)
        .process_group(0);
    for name in &spec.env_remove {
        command.env_remove(name);
    }
    for (name, value) in &spec.env {
        command.env(name, value);
    }
    let mut child = match command.spawn() {
        Ok(c) => c,
        Err(e) => return spawn_failed(e.to_string()),
    };
    let pid = child.id() as libc::pid_t;
    let mut timed_out = false;
    let mut poll = Duration::from_millis(5);
    loop {
        match has_exited(pid) {
            Ok(true) => break,
            Ok(false) => {}
            // Should not happen for our own child; stop watching and let
            // wait() below report what it can.
            Err(_) => break,
        }
        if start.elapsed() >= spec.timeout || stop_requested() {
            timed_out = !stop_requested();
            kill_group(pid);
            break;
        }
        thread::sleep(poll);
        poll = (poll * 2).min(Duration::from_millis(100));
    }
    // Whatever the leader left behind in its group goes with it.
    kill_group(pid);
    let status = child.wait();
    let wall_s = start.elapsed().as_secs_f64();
    let outcome = if timed_out {
        Outcome::TimedOut {
            after_s: spec.timeout.as_secs_f64(),
        }
    } else {
        match status {
            Ok(s) => match (s.code(), s.signal()) {
                (Some(code), _) => Outcome::Exited { code },
                (None, Some(signal)) => Outcome::Signaled {
                    signal,
                    name: signal_name(signal),
                },
                (None, None) => Outcome::SpawnFailed {
                    error: format!("unrecognised wait status {s:?}"),
                },
            },
            Err(e) => Outcome::SpawnFailed {
                error: format!("wait: {e}"),
            },
        }
    };
    ProcessRun { outcome, wall_s }
}

/// Runs every spec, at most `jobs` at a time, calling `on_done` on the
/// calling thread as each one finishes; returns the runs in spec order.
/// After a stop request the specs not yet started are not run (they come
/// back as `SpawnFailed`).
pub fn run_all(
    specs: &[ProcessSpec],
    jobs: usize,
    mut on_done: impl FnMut(usize, &ProcessRun),
) -> Vec<ProcessRun> {
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel::<(usize, ProcessRun)>();
    let mut runs: Vec<Option<ProcessRun>> = vec![None; specs.len()];
    thread::scope(|scope| {
        for _ in 0..jobs.max(1).min(specs.len()) {
            let tx = tx.clone();
            let next = &next;
            scope.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                if i >= specs.len() || stop_requested() {
                    break;
                }
                let run = run_process(&specs[i]);
                if tx.send((i, run)).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        for (i, run) in rx {
            on_done(i, &run);
            runs[i] = Some(run);
        }
    });
    runs.into_iter()
        .map(|r| {
            r.unwrap_or(ProcessRun {
                outcome: Outcome::SpawnFailed {
                    error: "not started: the run was stopped".to_string(),
                },
                wall_s: 0.0,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("ferrocl-cts-process-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn shell(dir: &std::path::Path, script: &str, timeout: Duration) -> ProcessSpec {
        ProcessSpec {
            program: PathBuf::from("/bin/sh"),
            args: vec!["-c".into(), script.into()],
            cwd: dir.to_path_buf(),
            env: vec![("FERROCL_CTS_PROBE".into(), "set".into())],
            env_remove: vec![],
            log_path: dir.join("log"),
            timeout,
            stdbuf: None,
        }
    }

    #[test]
    fn exit_codes_signals_and_output() {
        let dir = scratch("exit");
        let spec = shell(
            &dir,
            "echo out; echo err >&2; echo $FERROCL_CTS_PROBE; exit 3",
            Duration::from_secs(60),
        );
        let run = run_process(&spec);
        assert_eq!(run.outcome, Outcome::Exited { code: 3 });
        let log = std::fs::read_to_string(dir.join("log")).unwrap();
        assert_eq!(log, "out\nerr\nset\n");

        let run = run_process(&shell(&dir, "kill -SEGV $$", Duration::from_secs(60)));
        assert_eq!(
            run.outcome,
            Outcome::Signaled {
                signal: libc::SIGSEGV,
                name: "SIGSEGV".into()
            }
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn missing_program() {
        let dir = scratch("missing");
        let mut spec = shell(&dir, "", Duration::from_secs(1));
        spec.program = dir.join("no_such_binary");
        assert!(matches!(
            run_process(&spec).outcome,
            Outcome::Missing { .. }
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn timeout_kills_the_whole_group() {
        let dir = scratch("timeout");
        // The background sleep is a grandchild: only a group kill reaches it.
        let spec = shell(
            &dir,
            "sleep 300 & echo $! > grandchild.pid; wait",
            Duration::from_millis(500),
        );
        let run = run_process(&spec);
        assert_eq!(run.outcome, Outcome::TimedOut { after_s: 0.5 });
        let pid: i32 = std::fs::read_to_string(dir.join("grandchild.pid"))
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert!(!process_alive(pid), "grandchild {pid} survived the timeout");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Alive and not a zombie waiting for its new parent to reap it.
    pub(crate) fn process_alive(pid: i32) -> bool {
        for _ in 0..50 {
            match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
                Err(_) => return false,
                Ok(stat) => {
                    let state = stat.rsplit(')').next().unwrap_or("").trim_start();
                    if state.starts_with('Z') || state.starts_with('X') {
                        return false;
                    }
                }
            }
            thread::sleep(Duration::from_millis(20));
        }
        true
    }

    #[test]
    fn pool_reports_every_job() {
        let dir = scratch("pool");
        let specs: Vec<ProcessSpec> = (0..5)
            .map(|i| {
                let mut s = shell(&dir, &format!("exit {i}"), Duration::from_secs(60));
                s.log_path = dir.join(format!("log{i}"));
                s
            })
            .collect();
        let mut seen = Vec::new();
        let runs = run_all(&specs, 2, |i, _| seen.push(i));
        seen.sort();
        assert_eq!(seen, [0, 1, 2, 3, 4]);
        for (i, run) in runs.iter().enumerate() {
            assert_eq!(run.outcome, Outcome::Exited { code: i as i32 });
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn signal_names() {
        assert_eq!(signal_name(libc::SIGABRT), "SIGABRT");
        assert_eq!(signal_name(64), "signal 64");
    }
}
