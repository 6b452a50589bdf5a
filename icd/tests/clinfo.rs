//! Debian's `clinfo` through the ocl-icd loader against the built
//! libferrocl.so: every platform and device query the way a real
//! application makes it, through the ICD dispatch table.
//!
//! The test builds nothing itself: it points an `OCL_ICD_VENDORS` directory
//! at the libferrocl.so cargo built next to this test binary, runs clinfo
//! with the Vulkan validation layer on, and checks that clinfo saw no error
//! and printed what `clGetDeviceInfo` answers in this process.

use ferrocl_runtime::cl::*;
use std::ffi::c_void;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::ptr::null_mut;

/// What clinfo prints when a query fails: `<file:line: clGetDeviceInfo(...)
/// : error -30>`, `<error: ...>`, a size it did not expect, or an error
/// code's name. ("Error Correction support" is a query, not an error; "(n/a)"
/// is clinfo's way of showing a query the device does not have, e.g.
/// CL_DEVICE_HALF_FP_CONFIG without cl_khr_fp16.)
const ERROR_MARKERS: [&str; 6] = [
    " : error ",
    "<error",
    "size mismatch",
    "CL_INVALID_",
    "Invalid device type",
    "CL_OUT_OF_",
];

/// libferrocl.so of the same build as this test binary
/// (target/<profile>/deps/clinfo-<hash>).
fn built_library() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let deps = exe.parent()?;
    [
        deps.join("libferrocl.so"),
        deps.parent()?.join("libferrocl.so"),
    ]
    .into_iter()
    .find(|p| p.is_file())
}

fn clinfo_installed() -> bool {
    Command::new("clinfo")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// An `OCL_ICD_VENDORS` directory holding one .icd file that names `library`.
fn vendors_dir(library: &Path) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ferrocl-clinfo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("ferrocl.icd"), format!("{}\n", library.display())).unwrap();
    dir
}

fn run_clinfo(vendors: &Path, library: &Path, args: &[&str]) -> Output {
    Command::new("clinfo")
        .args(args)
        .env("OCL_ICD_VENDORS", vendors)
        // The Khronos loader (e.g. CUDA's) reads only OCL_ICD_FILENAMES.
        .env("OCL_ICD_FILENAMES", library)
        .env("FERROCL_VALIDATION", "1")
        // Other ICDs installed on the machine would mix their lines in.
        .env_remove("OPENCL_VENDOR_PATH")
        .output()
        .expect("clinfo runs")
}

/// `clGetDeviceInfo` of this process for the first device (the same code
/// as libferrocl.so, linked as the rlib).
fn device_value<T: Copy + Default>(param: cl_uint) -> T {
    let mut device = null_mut();
    let status = unsafe {
        ferrocl::device::clGetDeviceIDs(null_mut(), CL_DEVICE_TYPE_ALL, 1, &mut device, null_mut())
    };
    assert_eq!(status, CL_SUCCESS, "clGetDeviceIDs");
    let mut value = T::default();
    let status = unsafe {
        ferrocl::device::clGetDeviceInfo(
            device,
            param,
            std::mem::size_of::<T>(),
            (&mut value as *mut T).cast::<c_void>(),
            null_mut(),
        )
    };
    assert_eq!(status, CL_SUCCESS, "clGetDeviceInfo(0x{param:x})");
    value
}

/// The value of `name` for device 0 of our platform in `clinfo --raw`
/// output (`[FERRO/0]  CL_DEVICE_GLOBAL_MEM_SIZE  2147483648`).
fn raw_value<'a>(raw: &'a str, name: &str) -> Option<&'a str> {
    raw.lines().find_map(|line| {
        let rest = line.trim_start().strip_prefix("[FERRO/0]")?;
        let mut words = rest.split_whitespace();
        (words.next()? == name).then(|| words.next()).flatten()
    })
}

#[test]
fn clinfo_lists_ferrocl_without_errors() {
    if !clinfo_installed() {
        eprintln!("skipped: clinfo is not installed (apt-get install clinfo)");
        return;
    }
    let library = built_library()
        .expect("libferrocl.so next to the test binary (cargo builds the cdylib with the tests)");
    let vendors = vendors_dir(&library);

    let full = run_clinfo(&vendors, &library, &[]);
    let stdout = String::from_utf8_lossy(&full.stdout);
    let stderr = String::from_utf8_lossy(&full.stderr);
    assert!(
        full.status.success(),
        "clinfo failed: {}\n{stdout}\n{stderr}",
        full.status
    );
    assert!(
        !stderr.contains("ferrocl: vulkan validation"),
        "Vulkan validation messages:\n{stderr}"
    );
    let errors: Vec<&str> = stdout
        .lines()
        .filter(|line| ERROR_MARKERS.iter().any(|marker| line.contains(marker)))
        .collect();
    assert!(
        errors.is_empty(),
        "clinfo reported errors:\n{}\n\nfull output:\n{stdout}",
        errors.join("\n")
    );
    assert!(
        stdout.contains("Platform Name                                   ferrocl"),
        "{stdout}"
    );
    let devices: u32 = stdout
        .lines()
        .find_map(|line| line.strip_prefix("Number of devices"))
        .and_then(|n| n.trim().parse().ok())
        .expect("a device count");
    assert!(devices >= 1, "ferrocl lists no device:\n{stdout}");

    let raw = run_clinfo(&vendors, &library, &["--raw"]);
    assert!(raw.status.success());
    let raw = String::from_utf8_lossy(&raw.stdout);
    let global_mem: u64 = device_value(CL_DEVICE_GLOBAL_MEM_SIZE);
    let compute_units: u32 = device_value(CL_DEVICE_MAX_COMPUTE_UNITS);
    assert_eq!(
        raw_value(&raw, "CL_DEVICE_GLOBAL_MEM_SIZE"),
        Some(global_mem.to_string().as_str()),
        "{raw}"
    );
    assert_eq!(
        raw_value(&raw, "CL_DEVICE_MAX_COMPUTE_UNITS"),
        Some(compute_units.to_string().as_str()),
        "{raw}"
    );

    let list = run_clinfo(&vendors, &library, &["-l"]);
    assert!(list.status.success());
    let list = String::from_utf8_lossy(&list.stdout);
    assert!(
        list.lines()
            .any(|l| l.starts_with("Platform #") && l.ends_with(": ferrocl")),
        "{list}"
    );
    assert!(list.contains("-- Device #0: "), "{list}");

    let _ = std::fs::remove_dir_all(&vendors);
}
