//! Compile-speed benchmark of the OpenCL C compiler alone (no device):
//! a generated 2000-line program of many kernels and helpers, and a typical
//! conformance-suite kernel. Prints the median and spread of many runs.
//!
//! `cargo bench -p ferrocl-compiler --bench compile`; with `COMPILE_FILE`
//! set, that OpenCL C file is measured as well.

use ferrocl_compiler::{compile, CompileRequest, TargetCaps};
use std::time::{Duration, Instant};

#[path = "programs/mod.rs"]
mod programs;

use programs::{large_program, process_cpu_time, CTS_KERNEL};

/// Median, fastest and slowest of `runs` builds of `source` (after warm-up
/// builds), and the mean CPU time per build.
fn measure(source: &str, options: &str, runs: usize) -> Measured {
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
    let cpu_before = process_cpu_time();
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            let out = compile(&request, &caps);
            let t = start.elapsed();
            std::hint::black_box(out.is_ok());
            t
        })
        .collect();
    let cpu = match (cpu_before, process_cpu_time()) {
        (Some(before), Some(after)) => Some((after - before) / runs as u32),
        _ => None,
    };
    times.sort();
    Measured {
        median: times[runs / 2],
        min: times[0],
        max: times[runs - 1],
        cpu,
    }
}

struct Measured {
    median: Duration,
    min: Duration,
    max: Duration,
    /// Mean CPU time per build (10 ms resolution over all the runs).
    cpu: Option<Duration>,
}

fn report(name: &str, lines: usize, m: Measured) {
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let cpu = m
        .cpu
        .map_or("-".to_string(), |c| format!("{:.3} ms", ms(c)));
    println!(
        "{name:<28} {lines:>5} lines  median {:>8.3} ms  min {:>8.3} ms  max {:>8.3} ms  cpu/build {cpu}",
        ms(m.median),
        ms(m.min),
        ms(m.max),
    );
}

fn main() {
    // `cargo bench` passes `--bench`; a number argument sets the run count.
    let runs = std::env::args()
        .skip(1)
        .find_map(|a| a.parse::<usize>().ok())
        .unwrap_or(1001);
    if let Some(path) = std::env::var_os("COMPILE_FILE") {
        let Ok(source) = std::fs::read_to_string(&path) else {
            eprintln!("cannot read {}", path.to_string_lossy());
            std::process::exit(1);
        };
        let name = std::path::Path::new(&path).file_name().unwrap_or_default();
        report(
            &name.to_string_lossy(),
            source.lines().count(),
            measure(&source, "", runs),
        );
    }
    let large = large_program(2000);
    let large_lines = large.lines().count();
    let kernels = large.matches("__kernel").count();
    println!("compiler alone, {runs} runs each ({kernels} kernels in the large program)");
    report(
        "cts kernel",
        CTS_KERNEL.lines().count(),
        measure(CTS_KERNEL, "", runs),
    );
    report(
        "cts kernel -cl-std=CL3.0",
        CTS_KERNEL.lines().count(),
        measure(CTS_KERNEL, "-cl-std=CL3.0", runs),
    );
    report(
        "2000-line program",
        large_lines,
        measure(&large, "", runs.div_ceil(20)),
    );
}
