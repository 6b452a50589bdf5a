//! `ferrocl bench`: the same OpenCL workloads on every platform and device
//! the system loader sees (ferrocl and any other implementation beside it),
//! printed side by side with ferrocl/other ratios and the targets they are
//! held to, or as JSON.
//!
//! Owns: the workloads (`workloads`, their OpenCL C in `kernels`), the
//! extra entry points they need (`api`), and the report (`report`). It
//! reaches ferrocl only through `libOpenCL.so.1`, exactly as any
//! application does, so both sides of a ratio pay the same loader costs.

mod api;
mod kernels;
mod report;
mod workloads;

use crate::args::BenchArgs;
use crate::install;
use crate::loader::{Handle, OpenCl};
use api::{Api, Ctx};
use ferrocl_runtime::cl::*;
use std::path::PathBuf;
use workloads::{Sizes, Target};

/// One measurement's result.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    Value(f64),
    /// The device lacks what the workload needs (fp16, fp64).
    NotSupported(String),
    /// An OpenCL error, a build failure or a wrong result.
    Failed(String),
}

/// One line of a device's results.
#[derive(Clone, Debug)]
pub struct Row {
    pub group: &'static str,
    pub name: String,
    pub unit: &'static str,
    pub value: Outcome,
}

/// Everything measured on one device.
#[derive(Clone, Debug)]
pub struct DeviceResults {
    pub platform: String,
    pub device: String,
    pub driver: String,
    pub version: String,
    pub ferrocl: bool,
    pub rows: Vec<Row>,
}

/// The workloads `--only` can name; `app` names the last six.
pub const WORKLOADS: [&str; 11] = [
    "bandwidth",
    "compute",
    "transfer",
    "enqueue",
    "build",
    "sgemm",
    "reduction",
    "scan",
    "nbody",
    "conv2d",
    "radix",
];

/// The workload names a `--only` list selects, in the order they run.
pub fn select(only: &[String]) -> Result<Vec<&'static str>, String> {
    if only.is_empty() {
        return Ok(WORKLOADS.to_vec());
    }
    for name in only {
        if name != "app" && !WORKLOADS.contains(&name.as_str()) {
            return Err(format!(
                "unknown workload {name:?} (known: {}, app)",
                WORKLOADS.join(", ")
            ));
        }
    }
    Ok(WORKLOADS
        .iter()
        .enumerate()
        .filter(|(i, w)| only.iter().any(|o| o == *w || (o == "app" && *i >= 5)))
        .map(|(_, w)| *w)
        .collect())
}

/// A temporary vendors directory naming our library, removed on drop.
struct TemporaryVendors(PathBuf);

impl Drop for TemporaryVendors {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Without `OCL_ICD_VENDORS`, the loader is pointed at a vendors directory
/// holding ferrocl's .icd (ocl-icd), and ferrocl is appended to
/// `OCL_ICD_FILENAMES` (the Khronos loader), so the other platforms the
/// user's environment names stay visible beside it.
fn prepare_loader_environment(quiet: bool) -> Result<Option<TemporaryVendors>, String> {
    if std::env::var_os("OCL_ICD_VENDORS").is_some() {
        return Ok(None);
    }
    let lib = install::library_next_to_executable()?;
    let dir = std::env::temp_dir().join(format!("ferrocl-bench-{}", std::process::id()));
    let (_, line) = install::write_icd(&dir, &lib)?;
    // Still single-threaded: the loader reads these on the first OpenCL
    // call, after this point.
    std::env::set_var("OCL_ICD_VENDORS", &dir);
    let filenames = match std::env::var("OCL_ICD_FILENAMES") {
        Ok(list) if !list.is_empty() => format!("{list}:{line}"),
        _ => line.clone(),
    };
    std::env::set_var("OCL_ICD_FILENAMES", &filenames);
    if !quiet {
        eprintln!("OCL_ICD_VENDORS was not set: using {line} for this run");
    }
    Ok(Some(TemporaryVendors(dir)))
}

fn has_extension(cl: &OpenCl, device: Handle, extension: &str) -> bool {
    cl.device_string(device, CL_DEVICE_EXTENSIONS)
        .unwrap_or_default()
        .split_whitespace()
        .any(|e| e == extension)
}

fn device_flag(cl: &OpenCl, device: Handle, extension: &str, config: cl_uint) -> bool {
    let fp_config: cl_ulong = cl.device_value(device, config).unwrap_or(0);
    has_extension(cl, device, extension) || fp_config != 0
}

/// One device under test: its results so far and its context.
struct DeviceRun<'a> {
    results: DeviceResults,
    target: Target<'a>,
}

fn open_device<'a>(
    cl: &OpenCl,
    platform: &str,
    device: Handle,
    ctx: &'a Ctx<'a>,
    sizes: &'a Sizes,
) -> Result<DeviceRun<'a>, String> {
    let results = DeviceResults {
        platform: platform.to_string(),
        device: cl.device_string(device, CL_DEVICE_NAME)?,
        driver: cl.device_string(device, CL_DRIVER_VERSION)?,
        version: cl.device_string(device, CL_DEVICE_VERSION)?,
        ferrocl: platform == "ferrocl",
        rows: Vec::new(),
    };
    let target = Target {
        ctx,
        sizes,
        compute_units: cl.device_value::<cl_uint>(device, CL_DEVICE_MAX_COMPUTE_UNITS)? as usize,
        max_group: cl.device_value::<usize>(device, CL_DEVICE_MAX_WORK_GROUP_SIZE)?,
        max_alloc: cl.device_value::<cl_ulong>(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE)? as usize,
        fp64: device_flag(cl, device, "cl_khr_fp64", CL_DEVICE_DOUBLE_FP_CONFIG),
        fp16: has_extension(cl, device, "cl_khr_fp16"),
        integer_dot: has_extension(cl, device, "cl_khr_integer_dot_product"),
    };
    Ok(DeviceRun { results, target })
}

fn run_workload(run: &mut DeviceRun<'_>, workload: &str, quiet: bool) {
    let target = &run.target;
    if !quiet {
        eprintln!(
            "  {} / {}: {workload}",
            run.results.platform, run.results.device
        );
    }
    let rows = match workload {
        "bandwidth" => workloads::bandwidth(target),
        "compute" => workloads::compute(target),
        "transfer" => workloads::transfers(target),
        "enqueue" => workloads::enqueue(target),
        "build" => workloads::build(target),
        "sgemm" => vec![workloads::sgemm(target)],
        "reduction" => vec![workloads::reduction(target)],
        "scan" => vec![workloads::scan(target)],
        "nbody" => vec![workloads::nbody(target)],
        "conv2d" => vec![workloads::conv2d(target)],
        "radix" => vec![workloads::radix(target)],
        _ => Vec::new(),
    };
    if !quiet {
        for row in &rows {
            let value = match &row.value {
                Outcome::Value(v) => format!("{v:.4} {}", row.unit),
                Outcome::NotSupported(e) => format!("n/a ({e})"),
                Outcome::Failed(e) => format!("FAILED: {e}"),
            };
            eprintln!("    {}: {value}", row.name);
        }
    }
    run.results.rows.extend(rows);
}

pub fn run(args: &BenchArgs) -> Result<(), String> {
    let selected = select(&args.only)?;
    let mut sizes = if args.quick {
        Sizes::quick()
    } else {
        Sizes::full()
    };
    if let Some(r) = args.repeats {
        sizes.repeats = r;
    }
    if let Some(bytes) = args.mem {
        sizes.bandwidth_bytes = bytes;
        sizes.transfer_bytes = bytes;
    }
    if let Some(threads) = args.threads {
        sizes.enqueue_threads = threads;
    }
    let _vendors = prepare_loader_environment(args.json)?;
    let cl = OpenCl::open()?;
    let api = Api::open()?;
    let mut found = Vec::new();
    for platform in cl.platforms()? {
        let platform_name = cl.platform_string(platform, CL_PLATFORM_NAME)?;
        if let Some(filter) = &args.platform {
            if !platform_name
                .to_lowercase()
                .contains(&filter.to_lowercase())
                && platform_name != "ferrocl"
            {
                continue;
            }
        }
        for device in cl.devices(platform)? {
            let device_name = cl.device_string(device, CL_DEVICE_NAME)?;
            if let Some(filter) = &args.device {
                if !device_name.to_lowercase().contains(&filter.to_lowercase()) {
                    continue;
                }
            }
            if !args.json {
                eprintln!("running on {platform_name} / {device_name}");
            }
            found.push((platform_name.clone(), device));
        }
    }
    if found.is_empty() {
        return Err("the OpenCL loader sees no device".into());
    }
    let contexts = found
        .iter()
        .map(|(_, device)| Ctx::new(&api, *device))
        .collect::<Result<Vec<_>, _>>()?;
    let mut runs = found
        .iter()
        .zip(&contexts)
        .map(|((platform, device), ctx)| open_device(&cl, platform, *device, ctx, &sizes))
        .collect::<Result<Vec<_>, _>>()?;
    // Each workload runs on every device before the next one starts, so
    // the figures a ratio compares are taken moments apart, in the same
    // state of the machine (clocks, temperature), not minutes apart.
    for &workload in &selected {
        for run in &mut runs {
            run_workload(run, workload, args.json);
        }
    }
    let devices: Vec<DeviceResults> = runs.into_iter().map(|r| r.results).collect();
    let report = report::Report::new(devices);
    if args.json {
        println!("{}", report.json());
    } else {
        print!("{}", report.table());
    }
    if let Some(path) = &args.json_file {
        std::fs::write(path, report.json() + "\n")
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    let failures = report.failures();
    if failures > 0 {
        return Err(format!("{failures} measurement(s) failed; see the table"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn select_workloads() {
        assert_eq!(select(&[]).unwrap(), WORKLOADS.to_vec());
        assert_eq!(
            select(&["radix".into(), "bandwidth".into()]).unwrap(),
            vec!["bandwidth", "radix"]
        );
        assert_eq!(
            select(&["app".into()]).unwrap(),
            vec!["sgemm", "reduction", "scan", "nbody", "conv2d", "radix"]
        );
        assert!(select(&["frobnicate".into()]).is_err());
    }
}
