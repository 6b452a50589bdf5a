//! End-to-end build speed: clCreateProgramWithSource + clBuildProgram (and
//! clCreateKernel of one kernel) on the first device, through the library's
//! own entry points, for the same programs as the compiler-only benchmark.
//!
//! `cargo bench -p ferrocl-icd --bench build`

use ferrocl::context::{clCreateContext, clReleaseContext};
use ferrocl::device::clGetDeviceIDs;
use ferrocl::kernel::{clCreateKernel, clReleaseKernel};
use ferrocl::platform::clGetPlatformIDs;
use ferrocl::program::{clBuildProgram, clCreateProgramWithSource, clReleaseProgram};
use ferrocl_runtime::cl::{CL_DEVICE_TYPE_ALL, CL_SUCCESS};
use std::ffi::{c_char, c_void, CString};
use std::ptr::{null, null_mut};
use std::time::{Duration, Instant};

#[path = "../../compiler/benches/programs/mod.rs"]
mod programs;

use programs::{large_program, process_cpu_time, CTS_KERNEL};

struct Device {
    device: *mut c_void,
    context: *mut c_void,
}

fn open_device() -> Device {
    let mut platform = null_mut();
    let mut device = null_mut();
    let mut n = 0;
    let mut err = 0;
    // SAFETY: every pointer is a live local of the type the spec requires.
    unsafe {
        assert_eq!(clGetPlatformIDs(1, &mut platform, &mut n), CL_SUCCESS);
        assert_eq!(
            clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &mut device, &mut n),
            CL_SUCCESS,
            "no device"
        );
        let context = clCreateContext(null(), 1, &device, None, null_mut(), &mut err);
        assert_eq!(err, CL_SUCCESS, "clCreateContext");
        Device { device, context }
    }
}

/// One build from source: program creation, clBuildProgram and the kernel
/// object for `kernel`; returns the time of each part.
fn build_once(dev: &Device, source: &str, kernel: &CString) -> (Duration, Duration) {
    let ptr = source.as_ptr() as *const c_char;
    let len = source.len();
    let mut err = 0;
    // SAFETY: the source pointer and length describe `source`; the device
    // list is our one device; handles are released before returning.
    unsafe {
        let start = Instant::now();
        let program = clCreateProgramWithSource(dev.context, 1, &ptr, &len, &mut err);
        assert_eq!(err, CL_SUCCESS, "clCreateProgramWithSource");
        let status = clBuildProgram(program, 1, &dev.device, c"".as_ptr(), None, null_mut());
        assert_eq!(status, CL_SUCCESS, "clBuildProgram");
        let built = start.elapsed();
        let k = clCreateKernel(program, kernel.as_ptr(), &mut err);
        assert_eq!(err, CL_SUCCESS, "clCreateKernel");
        let with_kernel = start.elapsed();
        clReleaseKernel(k);
        clReleaseProgram(program);
        (built, with_kernel)
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn bench(dev: &Device, name: &str, source: &str, kernel: &str, runs: usize) {
    let kernel = CString::new(kernel).expect("kernel name");
    for _ in 0..2 {
        build_once(dev, source, &kernel);
    }
    let cpu_before = process_cpu_time();
    let (build, with_kernel): (Vec<_>, Vec<_>) =
        (0..runs).map(|_| build_once(dev, source, &kernel)).unzip();
    let cpu = match (cpu_before, process_cpu_time()) {
        (Some(b), Some(a)) => format!("{:.3} ms", ((a - b) / runs as u32).as_secs_f64() * 1e3),
        _ => "-".to_string(),
    };
    println!(
        "{name:<20} {:>5} lines  clBuildProgram median {:>8.3} ms  (+ clCreateKernel {:>8.3} ms)  cpu/build {cpu}",
        source.lines().count(),
        median(build).as_secs_f64() * 1e3,
        median(with_kernel).as_secs_f64() * 1e3
    );
}

fn main() {
    let runs = std::env::args()
        .skip(1)
        .find_map(|a| a.parse::<usize>().ok())
        .unwrap_or(401);
    // The same source again and again: the on-disk build cache would
    // answer every build after the first, and this measures the compiler.
    std::env::set_var("FERROCL_CACHE", "off");
    let dev = open_device();
    println!("end to end on the first device, {runs} runs each");
    bench(&dev, "cts kernel", CTS_KERNEL, "test_fpmath_float4", runs);
    let large = large_program(2000);
    bench(
        &dev,
        "2000-line program",
        &large,
        "process_0",
        runs.div_ceil(8),
    );
    // SAFETY: the context is live and released once.
    unsafe {
        clReleaseContext(dev.context);
    }
}
