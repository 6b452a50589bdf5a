//! `ferrocl demo`: real OpenCL work through the system loader, verified on
//! the host, with a short speed report.

use crate::args::DemoArgs;
use crate::install;
use crate::loader::{Handle, OpenCl, Session};
use ferrocl_runtime::cl::*;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Timed repetitions of each kernel after one untimed warm-up run.
const REPEATS: usize = 5;

const VECADD: &str = r#"
__kernel void vecadd(__global const float *a, __global const float *b, __global float *c, uint n) {
    uint i = get_global_id(0);
    if (i < n)
        c[i] = a[i] + b[i];
}
"#;

const REDUCE: &str = r#"
__kernel void reduce(__global const float *in, __global float *partial, __local float *scratch, uint n) {
    uint lid = get_local_id(0);
    float sum = 0.0f;
    for (uint i = get_global_id(0); i < n; i += get_global_size(0))
        sum += in[i];
    scratch[lid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = get_local_size(0) / 2; s > 0; s >>= 1) {
        if (lid < s)
            scratch[lid] += scratch[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        partial[get_group_id(0)] = scratch[0];
}
"#;

const MATMUL: &str = r#"
#define TS 16
__kernel void matmul(__global const float *A, __global const float *B, __global float *C, uint n) {
    __local float As[TS][TS];
    __local float Bs[TS][TS];
    uint col = get_global_id(0), row = get_global_id(1);
    uint lc = get_local_id(0), lr = get_local_id(1);
    float acc = 0.0f;
    for (uint t = 0; t < n / TS; ++t) {
        As[lr][lc] = A[row * n + t * TS + lc];
        Bs[lr][lc] = B[(t * TS + lr) * n + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint k = 0; k < TS; ++k)
            acc += As[lr][k] * Bs[k][lc];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[row * n + col] = acc;
}
"#;

/// A temporary vendors directory naming our library, removed on drop.
struct TemporaryVendors(PathBuf);

impl Drop for TemporaryVendors {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// When the user has not chosen the loader's vendors directory, point the
/// loader at ferrocl, so the demo works without `ferrocl install`. ocl-icd
/// reads `OCL_ICD_VENDORS` (a directory of `.icd` files); the Khronos loader
/// shipped with CUDA reads `OCL_ICD_FILENAMES` (library paths, which some
/// systems already set to their own ICDs): ferrocl is added to that list.
/// Each loader ignores the other's variable.
fn prepare_loader_environment() -> Result<Option<TemporaryVendors>, String> {
    if std::env::var_os("OCL_ICD_VENDORS").is_some() {
        return Ok(None);
    }
    let lib = install::library_next_to_executable()?;
    let dir = std::env::temp_dir().join(format!("ferrocl-demo-{}", std::process::id()));
    let (file, line) = install::write_icd(&dir, &lib)?;
    // Nothing else runs yet, and the loader reads the environment on the
    // application's first OpenCL call, after this point.
    std::env::set_var("OCL_ICD_VENDORS", &dir);
    let filenames = match std::env::var("OCL_ICD_FILENAMES") {
        Ok(list) if !list.is_empty() => format!("{list}:{line}"),
        _ => line.clone(),
    };
    std::env::set_var("OCL_ICD_FILENAMES", &filenames);
    println!(
        "OCL_ICD_VENDORS was not set: using {} (naming {line}) for this run, and OCL_ICD_FILENAMES={filenames}",
        file.display()
    );
    Ok(Some(TemporaryVendors(dir)))
}

/// One demo kernel, run and verified.
type DemoKernel<'a> = dyn Fn() -> Result<Outcome, String> + 'a;

struct Outcome {
    name: &'static str,
    passed: bool,
    detail: String,
    time: Duration,
    rate: String,
}

fn xorshift_floats(seed: u32, n: usize) -> Vec<f32> {
    let mut x = seed.max(1);
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            (x >> 8) as f32 / (1u32 << 24) as f32
        })
        .collect()
}

/// Runs `launch` once untimed, then REPEATS times; the best time.
fn best_time(
    session: &Session<'_>,
    mut launch: impl FnMut() -> Result<(), String>,
) -> Result<Duration, String> {
    launch()?;
    session.finish()?;
    let mut best = Duration::MAX;
    for _ in 0..REPEATS {
        let start = Instant::now();
        launch()?;
        session.finish()?;
        best = best.min(start.elapsed());
    }
    Ok(best)
}

fn rate(amount: f64, unit: &str, time: Duration) -> String {
    format!("{:.2} {unit}", amount / time.as_secs_f64() / 1e9)
}

fn vector_add(session: &Session<'_>, n: usize) -> Result<Outcome, String> {
    let a = xorshift_floats(1, n);
    let b = xorshift_floats(2, n);
    let bytes = n * 4;
    let (da, db, dc) = (
        session.buffer(bytes)?,
        session.buffer(bytes)?,
        session.buffer(bytes)?,
    );
    session.write_f32(&da, &a)?;
    session.write_f32(&db, &b)?;
    let kernel = session.kernel(VECADD, "vecadd")?;
    kernel.arg_buffer(0, &da)?;
    kernel.arg_buffer(1, &db)?;
    kernel.arg_buffer(2, &dc)?;
    kernel.arg_u32(3, n as u32)?;
    let time = best_time(session, || session.run(&kernel, &[n], None))?;
    let c = session.read_f32(&dc, n)?;
    let wrong = (0..n).filter(|&i| c[i] != a[i] + b[i]).count();
    Ok(Outcome {
        name: "vector add",
        passed: wrong == 0,
        detail: format!("{n} floats, {wrong} wrong"),
        time,
        rate: rate(3.0 * bytes as f64, "GB/s", time),
    })
}

fn reduction(session: &Session<'_>, n: usize) -> Result<Outcome, String> {
    let input = xorshift_floats(3, n);
    let (wg, groups) = (256usize, 256usize.min(n.div_ceil(256)).max(1));
    let (din, dpart) = (session.buffer(n * 4)?, session.buffer(groups * 4)?);
    session.write_f32(&din, &input)?;
    let kernel = session.kernel(REDUCE, "reduce")?;
    kernel.arg_buffer(0, &din)?;
    kernel.arg_buffer(1, &dpart)?;
    kernel.arg_local(2, wg * 4)?;
    kernel.arg_u32(3, n as u32)?;
    let time = best_time(session, || {
        session.run(&kernel, &[wg * groups], Some(&[wg]))
    })?;
    let partial = session.read_f32(&dpart, groups)?;
    let got: f64 = partial.iter().map(|&v| v as f64).sum();
    let want: f64 = input.iter().map(|&v| v as f64).sum();
    let error = (got - want).abs() / want.abs().max(1.0);
    Ok(Outcome {
        name: "reduction",
        passed: error < 1e-4,
        detail: format!("sum of {n} floats, relative error {error:.1e}"),
        time,
        rate: rate(n as f64 * 4.0, "GB/s", time),
    })
}

fn matrix_multiply(session: &Session<'_>) -> Result<Outcome, String> {
    let n = 512usize;
    let a: Vec<f32> = xorshift_floats(4, n * n).iter().map(|v| v - 0.5).collect();
    let b: Vec<f32> = xorshift_floats(5, n * n).iter().map(|v| v - 0.5).collect();
    let bytes = n * n * 4;
    let (da, db, dc) = (
        session.buffer(bytes)?,
        session.buffer(bytes)?,
        session.buffer(bytes)?,
    );
    session.write_f32(&da, &a)?;
    session.write_f32(&db, &b)?;
    let kernel = session.kernel(MATMUL, "matmul")?;
    kernel.arg_buffer(0, &da)?;
    kernel.arg_buffer(1, &db)?;
    kernel.arg_buffer(2, &dc)?;
    kernel.arg_u32(3, n as u32)?;
    let time = best_time(session, || session.run(&kernel, &[n, n], Some(&[16, 16])))?;
    let c = session.read_f32(&dc, n * n)?;
    // The host reference, row by row with B transposed for locality.
    let mut bt = vec![0f32; n * n];
    for i in 0..n {
        for j in 0..n {
            bt[j * n + i] = b[i * n + j];
        }
    }
    let mut wrong = 0;
    let mut worst = 0f64;
    for row in 0..n {
        for col in 0..n {
            let want: f64 = (0..n)
                .map(|k| a[row * n + k] as f64 * bt[col * n + k] as f64)
                .sum();
            let err = (c[row * n + col] as f64 - want).abs();
            worst = worst.max(err);
            if err > 1e-3 {
                wrong += 1;
            }
        }
    }
    Ok(Outcome {
        name: "tiled matrix multiply",
        passed: wrong == 0,
        detail: format!("{n}x{n}, largest error {worst:.1e}, {wrong} wrong"),
        time,
        rate: rate(2.0 * (n * n * n) as f64, "GFLOP/s", time),
    })
}

pub fn run(args: &DemoArgs) -> Result<(), String> {
    let _vendors = prepare_loader_environment()?;
    let cl = OpenCl::open()?;
    let platforms = cl.platforms()?;
    println!("the OpenCL loader sees {} platform(s):", platforms.len());
    let mut candidates: Vec<(Handle, cl_bitfield, String, String)> = Vec::new();
    for (p, &platform) in platforms.iter().enumerate() {
        let name = cl.platform_string(platform, CL_PLATFORM_NAME)?;
        let version = cl.platform_string(platform, CL_PLATFORM_VERSION)?;
        println!("  platform {p}: {name} ({version})");
        for (d, device) in cl.devices(platform)?.into_iter().enumerate() {
            let device_name = cl.device_string(device, CL_DEVICE_NAME)?;
            let device_type: cl_bitfield = cl.device_value(device, CL_DEVICE_TYPE)?;
            let kind = if device_type & CL_DEVICE_TYPE_GPU != 0 {
                "GPU"
            } else if device_type & CL_DEVICE_TYPE_CPU != 0 {
                "CPU"
            } else {
                "other"
            };
            println!("    device {d}: {device_name} [{kind}]");
            if name == "ferrocl" {
                candidates.push((device, device_type, name.clone(), device_name));
            }
        }
    }
    // GPUs first, then CPUs; in loader order otherwise.
    candidates.sort_by_key(|c| {
        if c.1 & CL_DEVICE_TYPE_GPU != 0 {
            0
        } else if c.1 & CL_DEVICE_TYPE_CPU != 0 {
            1
        } else {
            2
        }
    });
    let Some((device, _, platform_name, device_name)) = candidates.into_iter().next() else {
        return Err("no ferrocl device is visible through the loader (check OCL_ICD_VENDORS or `ferrocl install`)".into());
    };
    println!("\nrunning on platform {platform_name}, device {device_name}");
    let session = Session::new(&cl, device)?;
    let n = args.size;
    let mut failures = 0;
    let tests: [(&str, &DemoKernel); 3] = [
        ("vector add", &|| vector_add(&session, n)),
        ("reduction", &|| reduction(&session, n)),
        ("tiled matrix multiply", &|| matrix_multiply(&session)),
    ];
    for (name, test) in tests {
        match test() {
            Ok(o) => {
                if !o.passed {
                    failures += 1;
                }
                println!(
                    "  {:<22} {}  {:>9.3} ms  {:>14}  ({})",
                    o.name,
                    if o.passed { "PASS" } else { "FAIL" },
                    o.time.as_secs_f64() * 1e3,
                    o.rate,
                    o.detail
                );
            }
            Err(e) => {
                failures += 1;
                println!("  {name:<22} FAIL  {e}");
            }
        }
    }
    if failures > 0 {
        return Err(format!("{failures} demo kernel(s) failed"));
    }
    Ok(())
}
