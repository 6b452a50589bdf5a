//! Pipelines created ahead of a kernel's first launch (runtime/src/kernel.rs
//! `Kernel::create_pipelines_ahead`): with `FERROCL_PIPELINES_AHEAD=on`
//! the two pipelines of a kernel that ignores its work-groups are made on
//! background threads when the kernel is made, and a small and a large
//! launch then make none; with `=off` each launch makes its own. Which is
//! which is read from `FERROCL_PIPELINE_STATS=1`'s report, in a child
//! process per setting (the library reads both when it starts). The
//! results are checked against the host either way, and with the register
//! pad on (the small launch's pipeline then carries it).

mod common;

use common::*;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

const SOURCE: &str = r#"
    __kernel void mix(__global const uint *in, __global uint *out, uint n) {
        size_t g = get_global_id(0);
        if (g < n) out[g] = in[g] * 2654435761u + (uint)g;
    }
"#;

const AHEAD: &str = "FERROCL_PIPELINES_AHEAD";
/// Set for the child processes: they wait for a line on stdin between
/// making the kernel and launching it.
const CHILD: &str = "FERROCL_TEST_PIPELINES_AHEAD_CHILD";

#[test]
fn launches_of_a_kernel_that_ignores_its_work_groups() {
    let gpu = Gpu::new();
    let kernel = gpu.kernel(SOURCE, "mix");
    if std::env::var_os(CHILD).is_some() {
        let mut line = String::new();
        std::io::stdin()
            .read_line(&mut line)
            .expect("the parent's go-ahead");
    }
    // On any device: 64 work-items take the narrow work-groups, 2^18 the
    // wide ones.
    for items in [64usize, 1 << 18] {
        let input = XorShift::new(items as u32).u32s(items);
        let din = gpu.buffer(&input);
        let out = gpu.zeroed::<u32>(items);
        kernel
            .arg_buffer(0, &din)
            .arg_buffer(1, &out)
            .arg(2, items as u32);
        gpu.run(&kernel, &[items], Some(&[64]), None);
        let got: Vec<u32> = gpu.read(&out);
        let want: Vec<u32> = (0..items)
            .map(|g| input[g].wrapping_mul(2654435761).wrapping_add(g as u32))
            .collect();
        assert_same(&got, &want, &format!("{items} work-items"));
    }
}

/// Runs the test above in a child with `env`; once the pipelines made
/// ahead are reported (`wait_for_ahead` of them), or at once, lets it
/// launch. Returns the pipelines of `mix` the report lists as made ahead
/// and as made at a launch.
fn pipelines_in_child(env: &[(&str, &str)], wait_for_ahead: usize) -> (usize, usize) {
    let exe = std::env::current_exe().expect("path of the test executable");
    let mut child = Command::new(&exe)
        .envs(env.iter().copied())
        .env(CHILD, "1")
        .env("FERROCL_PIPELINE_STATS", "1")
        .args([
            "--exact",
            "launches_of_a_kernel_that_ignores_its_work_groups",
            "--test-threads",
            "1",
            "--nocapture",
        ])
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("the test executable runs again");
    let stderr = child.stderr.take().expect("piped stderr");
    let (send, lines) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = send.send(line);
        }
    });
    let is_mix = |l: &str| l.contains("kernel mix ") && l.contains("pipeline created");
    let is_ahead = |l: &str| is_mix(l) && l.contains("ahead of its launch");
    let mut seen = Vec::new();
    while seen.iter().filter(|l: &&String| is_ahead(l)).count() < wait_for_ahead {
        match lines.recv_timeout(Duration::from_secs(120)) {
            Ok(line) => seen.push(line),
            Err(e) => panic!(
                "{env:?}: {wait_for_ahead} pipelines made ahead not reported ({e})\n{}",
                seen.join("\n")
            ),
        }
    }
    let mut stdin = child.stdin.take().expect("piped stdin");
    stdin.write_all(b"go\n").expect("the go-ahead");
    drop(stdin);
    let status = child.wait().expect("the child exits");
    reader.join().expect("the reader thread");
    seen.extend(lines.try_iter());
    assert!(status.success(), "{env:?}: {status}\n{}", seen.join("\n"));
    let ahead = seen.iter().filter(|l| is_ahead(l)).count();
    let all = seen.iter().filter(|l| is_mix(l)).count();
    (ahead, all - ahead)
}

#[test]
fn pipelines_made_ahead_or_at_launch() {
    if std::env::var_os(CHILD).is_some() {
        return;
    }
    // Launches as enqueued take a pipeline per local size: none is known
    // ahead.
    if std::env::var("FERROCL_GROUP_SIZE").as_deref() == Ok("enqueued") {
        eprintln!("skipping: FERROCL_GROUP_SIZE=enqueued");
        return;
    }
    assert_eq!(
        pipelines_in_child(&[(AHEAD, "on")], 2),
        (2, 0),
        "(ahead, at launch) with {AHEAD}=on"
    );
    assert_eq!(
        pipelines_in_child(&[(AHEAD, "on"), ("FERROCL_REGISTER_PAD", "on")], 2),
        (2, 0),
        "(ahead, at launch) with {AHEAD}=on and the register pad"
    );
    assert_eq!(
        pipelines_in_child(&[(AHEAD, "off")], 0),
        (0, 2),
        "(ahead, at launch) with {AHEAD}=off"
    );
}

/// Kernel objects of one name share their pipelines, and a program built
/// again gets new ones: here the build options change what the kernel
/// writes.
#[test]
fn a_program_built_again_drops_its_shared_pipelines() {
    let gpu = Gpu::new();
    let src =
        "__kernel void k(__global uint *o) { o[get_global_id(0)] = V + (uint)get_global_id(0); }";
    let program = gpu.program(src, "-DV=10u");
    let out = gpu.zeroed::<u32>(64);
    let run = |want: u32| {
        let k = program.kernel("k");
        k.arg_buffer(0, &out);
        gpu.run(&k, &[64], None, None);
        let expected: Vec<u32> = (0..64).map(|i| want + i).collect();
        assert_same(&gpu.read::<u32>(&out), &expected, &format!("V = {want}"));
    };
    // Two kernel objects, one after the other: the second shares the
    // first's pipeline.
    run(10);
    run(10);
    let options = std::ffi::CString::new("-DV=20u").unwrap();
    // SAFETY: the program, device and options are valid; no kernel object
    // of the program is alive.
    let status = unsafe {
        (gpu.api.clBuildProgram)(
            program.handle,
            1,
            &gpu.device,
            options.as_ptr(),
            None,
            std::ptr::null_mut(),
        )
    };
    check(status, "clBuildProgram again");
    run(20);
}
