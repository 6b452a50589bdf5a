//! Compile-speed benchmark of the OpenCL C compiler alone (no device):
//! a generated 2000-line program of many kernels and helpers, and a typical
//! conformance-suite kernel. Prints the median and spread of many runs.
//!
//! `cargo bench -p ferrocl-compiler --bench compile`

use ferrocl_compiler::{compile, CompileRequest, TargetCaps};
use std::time::{Duration, Instant};

#[path = "programs/mod.rs"]
mod programs;

use programs::{large_program, CTS_KERNEL};

/// Median, fastest and slowest of `runs` builds of `source` (after warm-up
/// builds).
fn measure(source: &str, options: &str, runs: usize) -> (Duration, Duration, Duration) {
    let caps = TargetCaps::default();
    let request = CompileRequest {
        source,
        options,
        headers: &[],
    };
    let check = compile(&request, &caps);
    if let Err(e) = &check {
        eprintln!("the benchmark program does not build:\n{}", e.log);
        std::process::exit(1);
    }
    for _ in 0..3 {
        let _ = compile(&request, &caps);
    }
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            let out = compile(&request, &caps);
            let t = start.elapsed();
            std::hint::black_box(out.is_ok());
            t
        })
        .collect();
    times.sort();
    (times[runs / 2], times[0], times[runs - 1])
}

fn report(name: &str, lines: usize, (median, min, max): (Duration, Duration, Duration)) {
    println!(
        "{name:<28} {lines:>5} lines  median {:>8.3} ms  min {:>8.3} ms  max {:>8.3} ms",
        median.as_secs_f64() * 1e3,
        min.as_secs_f64() * 1e3,
        max.as_secs_f64() * 1e3
    );
}

fn main() {
    // `cargo bench` passes `--bench`; a number argument sets the run count.
    let runs = std::env::args()
        .skip(1)
        .find_map(|a| a.parse::<usize>().ok())
        .unwrap_or(101);
    let large = large_program(2000);
    let large_lines = large.lines().count();
    let kernels = large.matches("__kernel").count();
    println!("compiler alone, {runs} runs each ({kernels} kernels in the large program)");
    report("cts kernel", CTS_KERNEL.lines().count(), measure(CTS_KERNEL, "", runs));
    report(
        "cts kernel -cl-std=CL3.0",
        CTS_KERNEL.lines().count(),
        measure(CTS_KERNEL, "-cl-std=CL3.0", runs),
    );
    report("2000-line program", large_lines, measure(&large, "", runs.div_ceil(4)));
}
