//! Threads that create pipelines ahead of their first launch
//! (runtime/src/kernel.rs `Kernel::create_pipelines_ahead`), started on
//! first use and kept for the process.
//!
//! A job that has not started when the process exits never runs; exit
//! waits for the ones running, so that no thread is inside the driver
//! while the driver's libraries run their destructors.

use parking_lot::{Condvar, Mutex};
use std::collections::VecDeque;
use std::sync::OnceLock;

type Job = Box<dyn FnOnce() + Send>;

struct State {
    queue: VecDeque<Job>,
    /// Jobs taken by a worker and not finished.
    running: usize,
    /// The process is exiting: no job starts any more.
    closing: bool,
}

struct Jobs {
    state: Mutex<State>,
    /// A job was queued, or the process is exiting.
    work: Condvar,
    /// A running job finished.
    finished: Condvar,
    /// The process that started the workers: a child made by `fork` has
    /// none.
    pid: u32,
}

static JOBS: OnceLock<&'static Jobs> = OnceLock::new();

/// Workers: creating a pipeline keeps one core busy in the driver's
/// compiler, and an application creates its kernels together (hashcat:
/// five to ten per mode), so a few run at once while leaving cores to the
/// application.
fn worker_count() -> usize {
    std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .saturating_sub(1)
        .clamp(1, 4)
}

/// The jobs, their workers started on first use.
fn jobs() -> &'static Jobs {
    JOBS.get_or_init(|| {
        let jobs: &'static Jobs = Box::leak(Box::new(Jobs {
            state: Mutex::new(State {
                queue: VecDeque::new(),
                running: 0,
                closing: false,
            }),
            work: Condvar::new(),
            finished: Condvar::new(),
            pid: std::process::id(),
        }));
        // SAFETY: `wait_at_exit` never unwinds and lives as long as the
        // library, which is never unloaded while its objects exist.
        unsafe { atexit(wait_at_exit) };
        let started = (0..worker_count())
            .take_while(|i| {
                std::thread::Builder::new()
                    .name(format!("ferrocl-pipeline-{i}"))
                    .spawn(move || work(jobs))
                    .is_ok()
            })
            .count();
        // With no worker, no job would ever run: `submit` refuses them.
        jobs.state.lock().closing = started == 0;
        jobs
    })
}

extern "C" {
    fn atexit(callback: extern "C" fn()) -> std::ffi::c_int;
}

/// Queues `job`, unless jobs cannot run here (no worker started, the
/// process is exiting, or it is a child made by `fork`, which has no
/// workers): then it is dropped, and the launch that needs its pipeline
/// makes it.
pub fn submit(job: Job) {
    let jobs = jobs();
    if in_forked_child() {
        return;
    }
    let mut state = jobs.state.lock();
    if state.closing {
        return;
    }
    state.queue.push_back(job);
    drop(state);
    jobs.work.notify_one();
}

/// Whether this process is a child made by `fork` after the workers
/// started: their jobs, and any lock a job held, never finish here.
pub fn in_forked_child() -> bool {
    JOBS.get()
        .is_some_and(|jobs| jobs.pid != std::process::id())
}

fn work(jobs: &'static Jobs) {
    loop {
        let job = {
            let mut state = jobs.state.lock();
            loop {
                if state.closing {
                    return;
                }
                if let Some(job) = state.queue.pop_front() {
                    state.running += 1;
                    break job;
                }
                jobs.work.wait(&mut state);
            }
        };
        // A job that panics must not take the worker (or the count of
        // running jobs) with it.
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
        let mut state = jobs.state.lock();
        state.running -= 1;
        if state.running == 0 {
            jobs.finished.notify_all();
        }
    }
}

/// At exit: no queued job starts, and the running ones finish first.
/// Queued jobs are leaked rather than dropped, since what they hold may
/// be the driver's.
extern "C" fn wait_at_exit() {
    let _ = std::panic::catch_unwind(|| {
        let Some(jobs) = JOBS.get() else {
            return;
        };
        if in_forked_child() {
            return;
        }
        let mut state = jobs.state.lock();
        state.closing = true;
        std::mem::forget(std::mem::take(&mut state.queue));
        jobs.work.notify_all();
        while state.running > 0 {
            jobs.finished.wait(&mut state);
        }
    });
}
