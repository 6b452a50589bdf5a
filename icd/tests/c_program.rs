//! C programs written against the Khronos headers (tests/c/), compiled with
//! the system C compiler at test time and run two ways: through the ocl-icd
//! loader (`-lOpenCL` with a vendors directory naming libferrocl.so) and
//! linked straight to libferrocl.so. Each must print PASS and exit 0 with no
//! Vulkan validation message.

mod common;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn c_source(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/c")
        .join(name)
}

/// The C compiler, or why these tests cannot run here.
fn toolchain() -> Result<String, String> {
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    match Command::new(&cc).arg("--version").output() {
        Ok(out) if out.status.success() => {}
        _ => return Err(format!("no working C compiler ({cc})")),
    }
    if !Path::new("/usr/include/CL/cl.h").exists() {
        return Err("the Khronos headers (/usr/include/CL/cl.h) are not installed".into());
    }
    Ok(cc)
}

/// Whether the linker finds libOpenCL.so (the ICD loader's development link).
fn loader_available(cc: &str) -> bool {
    Command::new(cc)
        .arg("-print-file-name=libOpenCL.so")
        .output()
        .map(|out| {
            let path = String::from_utf8_lossy(&out.stdout).trim().to_string();
            Path::new(&path).is_absolute() && Path::new(&path).exists()
        })
        .unwrap_or(false)
}

/// A fresh directory under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    /// A fresh directory: tests running at once may build the same
    /// program (the same tag), so each directory also gets a number.
    fn new(tag: &str) -> TempDir {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("ferrocl-c-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create temp dir");
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Longer than any of these programs needs on lavapipe with validation; a
/// program still running then is hung (e.g. a call looping in the loader).
const RUN_LIMIT: Duration = Duration::from_secs(120);

/// Runs `command` to completion like `Command::output`, but kills it after
/// `limit`.
fn output_within(mut command: Command, limit: Duration) -> Result<Output, String> {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start: {e}"))?;
    // Drain both pipes on their own threads so a chatty child cannot block.
    let mut stdout = child.stdout.take().expect("piped stdout");
    let mut stderr = child.stderr.take().expect("piped stderr");
    let out_thread = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stdout.read_to_end(&mut buf);
        buf
    });
    let err_thread = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stderr.read_to_end(&mut buf);
        buf
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            break status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            let stdout = out_thread.join().unwrap_or_default();
            let stderr = err_thread.join().unwrap_or_default();
            return Err(format!(
                "still running after {} s, killed\n--- stdout ---\n{}--- stderr ---\n{}",
                limit.as_secs(),
                String::from_utf8_lossy(&stdout),
                String::from_utf8_lossy(&stderr)
            ));
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    Ok(Output {
        status,
        stdout: out_thread.join().unwrap_or_default(),
        stderr: err_thread.join().unwrap_or_default(),
    })
}

enum Linkage {
    IcdLoader,
    Direct,
    /// The program dlopens the ICD loader (libOpenCL.so.1) itself; it is
    /// run with the same vendors directory as `IcdLoader`.
    LoaderAtRunTime,
}

/// Builds and runs `source`; its stdout, or None when the test is skipped.
fn build_and_run(source: &str, linkage: Linkage) -> Option<String> {
    build_and_run_with(source, linkage, None).map(|(stdout, _)| stdout)
}

/// [`build_and_run`] with `layer` (a shared library) named in
/// `OPENCL_LAYERS`; its stdout and stderr.
fn build_and_run_with(
    source: &str,
    linkage: Linkage,
    layer: Option<&Path>,
) -> Option<(String, String)> {
    let cc = match toolchain() {
        Ok(cc) => cc,
        Err(why) => {
            eprintln!("skipping {source}: {why}");
            return None;
        }
    };
    if !matches!(linkage, Linkage::Direct) && !loader_available(&cc) {
        eprintln!("skipping {source} through the ICD loader: libOpenCL.so is not installed");
        return None;
    }
    let lib = common::library_path();
    assert!(lib.exists(), "{} was not built", lib.display());
    let lib_dir = common::library_dir();
    let tag = format!(
        "{}-{}",
        source.trim_end_matches(".c"),
        match linkage {
            Linkage::IcdLoader => "icd",
            Linkage::Direct => "direct",
            Linkage::LoaderAtRunTime => "dlopen",
        }
    );
    let tmp = TempDir::new(&tag);
    let exe = tmp.0.join(&tag);

    let mut compile = Command::new(&cc);
    compile
        .args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-O1"])
        .arg(c_source(source))
        .arg("-o")
        .arg(&exe);
    match linkage {
        Linkage::IcdLoader => {
            compile.arg("-lOpenCL");
        }
        Linkage::Direct => {
            compile
                .arg(format!("-L{}", lib_dir.display()))
                .arg("-lferrocl")
                .arg(format!("-Wl,-rpath,{}", lib_dir.display()));
        }
        Linkage::LoaderAtRunTime => {
            compile.arg("-ldl");
        }
    }
    let out = compile.output().expect("run the C compiler");
    assert!(
        out.status.success(),
        "compiling {source} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let mut run = Command::new(&exe);
    run.env("FERROCL_VALIDATION", "1");
    if !matches!(linkage, Linkage::Direct) {
        let vendors = tmp.0.join("vendors");
        std::fs::create_dir_all(&vendors).unwrap();
        let absolute = lib.canonicalize().expect("absolute library path");
        std::fs::write(
            vendors.join("ferrocl.icd"),
            format!("{}\n", absolute.display()),
        )
        .unwrap();
        // ocl-icd reads OCL_ICD_VENDORS; the Khronos loader some systems
        // ship (CUDA's) reads only OCL_ICD_FILENAMES. Both name ferrocl
        // alone, so no other platform on the machine answers in its place.
        run.env("OCL_ICD_VENDORS", &vendors)
            .env("OCL_ICD_FILENAMES", &absolute)
            .env_remove("OPENCL_VENDOR_PATH");
    }
    if let Some(layer) = layer {
        // The layer also saves each built program's binary, next to itself,
        // and traces the calls it sees.
        let binaries = layer.with_file_name("binaries");
        std::fs::create_dir_all(&binaries).unwrap();
        run.env("OPENCL_LAYERS", layer)
            .env("CL_PROFILE_BINARIES", &binaries)
            .env("CL_PROFILE_TRACE", "1")
            .env_remove("CL_PROFILE_OUT");
    }
    let out = output_within(run, RUN_LIMIT).unwrap_or_else(|e| panic!("{tag}: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let report = format!("--- stdout ---\n{stdout}--- stderr ---\n{stderr}");
    assert!(
        out.status.success(),
        "{tag} exited with {}\n{report}",
        out.status
    );
    assert!(
        stdout.lines().any(|l| l.trim() == "PASS"),
        "{tag} did not print PASS\n{report}"
    );
    assert!(
        !stderr.contains("ferrocl: vulkan validation"),
        "{tag}: the Vulkan validation layer reported messages\n{report}"
    );
    if let Linkage::IcdLoader = linkage {
        assert!(
            !stdout.contains("platform 1:"),
            "{tag}: a platform other than ferrocl answered\n{report}"
        );
    }
    Some((stdout.into_owned(), stderr.into_owned()))
}

#[test]
fn printf_from_kernel() {
    let Some(stdout) = build_and_run("printf.c", Linkage::Direct) else {
        return;
    };
    // The kernel's lines, in any order between work-items, all written
    // before clFinish returned (so before PASS), and nothing else.
    let all: Vec<&str> = stdout.lines().collect();
    assert_eq!(all.last(), Some(&"PASS"), "kernel printf output\n{stdout}");
    let mut lines = all[..all.len() - 1].to_vec();
    lines.sort_by_key(|l| {
        let number = l.strip_prefix("line ").and_then(|r| r.split(':').next());
        number.and_then(|n| n.parse::<i32>().ok())
    });
    let want: Vec<String> = (0..8i64)
        .map(|i| {
            let v = i as f32 * 1.25 - 2.0;
            let hex = if i == 0 {
                "0".to_string()
            } else {
                format!("{:#x}", i * 16)
            };
            let c = (b'A' + i as u8) as char;
            format!(
                "line {i}: {v:5.2} {hex} ok {c} {i},{} {}",
                -i,
                i * 10_000_000_000
            )
        })
        .collect();
    assert_eq!(lines, want, "kernel printf output\n{stdout}");
}

#[test]
fn vecadd_through_icd_loader() {
    build_and_run("vecadd.c", Linkage::IcdLoader);
}

#[test]
fn vecadd_linked_directly() {
    build_and_run("vecadd.c", Linkage::Direct);
}

#[test]
fn queries_through_icd_loader() {
    build_and_run("queries.c", Linkage::IcdLoader);
}

#[test]
fn queries_linked_directly() {
    build_and_run("queries.c", Linkage::Direct);
}

/// tools/cl_profile_layer.c built as a loader layer in a fresh directory
/// (kept alive by the returned TempDir), or None when this machine cannot
/// build or load layers.
fn profile_layer(tag: &str) -> Option<(TempDir, PathBuf)> {
    let Ok(cc) = toolchain() else {
        eprintln!("skipping the profile layer: no C compiler or headers");
        return None;
    };
    if !Path::new("/usr/include/CL/cl_layer.h").exists() || !loader_available(&cc) {
        eprintln!("skipping the profile layer: no cl_layer.h or ICD loader");
        return None;
    }
    let tmp = TempDir::new(tag);
    let layer = tmp.0.join("libcl_profile_layer.so");
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tools/cl_profile_layer.c");
    let out = Command::new(&cc)
        .args([
            "-O2", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC", "-o",
        ])
        .arg(&layer)
        .arg(&source)
        .arg("-lpthread")
        .output()
        .expect("run the C compiler");
    assert!(
        out.status.success(),
        "compiling the layer failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some((tmp, layer))
}

/// The count column of the layer report's row for `name`.
fn layer_row(stderr: &str, name: &str) -> u64 {
    stderr
        .lines()
        .find_map(|l| l.strip_prefix(name).filter(|rest| rest.starts_with(' ')))
        .unwrap_or_else(|| panic!("no row for {name}\n{stderr}"))
        .split_whitespace()
        .next()
        .and_then(|n| n.parse::<u64>().ok())
        .unwrap_or_else(|| panic!("no count for {name}\n{stderr}"))
}

/// tools/cl_profile_layer.c, built as a loader layer, times vecadd.c's
/// kernel and transfers through the ICD loader and leaves its result
/// alone (vecadd.c still checks it and prints PASS).
#[test]
fn profile_layer_reports_vecadd() {
    let Some((tmp, layer)) = profile_layer("profile-layer") else {
        return;
    };
    let Some((_, stderr)) = build_and_run_with("vecadd.c", Linkage::IcdLoader, Some(&layer)) else {
        return;
    };
    // ocl-icd before 2.3 has no layers: then there is no report at all.
    if !stderr.contains("cl_profile_layer") {
        eprintln!("skipping: the loader did not load the layer\n{stderr}");
        return;
    }
    let row = |name: &str| layer_row(&stderr, name);
    assert_eq!(row("vecadd"), 1, "{stderr}");
    assert_eq!(row("(read buffer)"), 1, "{stderr}");
    assert!(row("(write buffer)") >= 1, "{stderr}");
    // The trace, in the order the calls came.
    let traced: Vec<&str> = stderr
        .lines()
        .filter_map(|l| l.split_once(" cl_profile_layer: ").map(|(_, what)| what))
        .filter(|what| !what.starts_with("buffer"))
        .collect();
    assert_eq!(
        traced,
        [
            "build starts",
            "build ends (0)",
            "kernel vecadd",
            "launch vecadd global 100032 local 64 offset -"
        ],
        "{stderr}"
    );
    // The program's binary, as clGetProgramInfo gives it.
    let saved = std::fs::read(tmp.0.join("binaries/0000-vecadd-0.bin"))
        .unwrap_or_else(|e| panic!("no saved binary ({e})\n{stderr}"));
    assert!(!saved.is_empty());
}

/// A program that unloads the ICD loader before it exits, with its queue
/// and buffer never released (hashcat, when it skips a device), exits 0:
/// ferrocl's threads and exit handlers never call into the loader.
#[test]
fn loader_unloaded_before_exit() {
    build_and_run("unload_loader.c", Linkage::LoaderAtRunTime);
}

/// The same program under the profile layer: the layer reports the
/// unreleased queue at exit through the loader's entry points, so it must
/// keep the loader mapped after the application's dlclose (it used to
/// jump into unmapped code there).
#[test]
fn profile_layer_outlives_unloaded_loader() {
    let Some((_tmp, layer)) = profile_layer("profile-layer-unload") else {
        return;
    };
    let Some((_, stderr)) =
        build_and_run_with("unload_loader.c", Linkage::LoaderAtRunTime, Some(&layer))
    else {
        return;
    };
    if !stderr.contains("cl_profile_layer") {
        eprintln!("skipping: the loader did not load the layer\n{stderr}");
        return;
    }
    assert!(stderr.contains("cl_profile_layer (exit)"), "{stderr}");
    assert_eq!(layer_row(&stderr, "(write buffer)"), 1, "{stderr}");
}
