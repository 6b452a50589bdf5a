//! printf from kernels, end to end. printf writes to the process's stdout,
//! so each test runs its kernels in a child process (this test binary,
//! re-run on that one test with `FERROCL_PRINTF_CHILD` set) and checks the
//! text the child wrote between two markers.

mod common;

use common::*;
use std::collections::HashSet;
use std::process::Command;

const CHILD: &str = "FERROCL_PRINTF_CHILD";
const BEGIN: &str = "=== printf begin ===\n";
const END: &str = "=== printf end ===";

/// True in the child process, which runs the kernels.
fn in_child() -> bool {
    std::env::var_os(CHILD).is_some()
}

/// Runs the test `name` of this binary in a child process; returns what its
/// kernels printed (the text between the markers the child writes around
/// its work).
fn child_output(name: &str) -> String {
    let exe = std::env::current_exe().expect("path of the test executable");
    let out = Command::new(exe)
        .args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .output()
        .expect("run the test binary again");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "child for {name} failed ({})\n--- stdout ---\n{stdout}--- stderr ---\n{stderr}",
        out.status
    );
    let start = stdout
        .find(BEGIN)
        .unwrap_or_else(|| panic!("no begin marker\n{stdout}"))
        + BEGIN.len();
    let end = stdout[start..]
        .find(END)
        .unwrap_or_else(|| panic!("no end marker\n{stdout}"))
        + start;
    stdout[start..end].to_string()
}

/// Marks the start of the kernels' output in the child. Flushed at once:
/// the kernels' text goes to the same file descriptor from the library.
fn begin() {
    use std::io::Write;
    print!("{BEGIN}");
    std::io::stdout().flush().unwrap();
}

fn end() {
    use std::io::Write;
    println!("{END}");
    std::io::stdout().flush().unwrap();
}

#[test]
fn vectors_strings_and_every_conversion() {
    if !in_child() {
        let text = child_output("vectors_strings_and_every_conversion");
        let want = "\
f4 1.000000,-2.500000,0.125000,10000000000.000000|1.0e+00,-2.5e+00,1.2e-01,1.0e+10|1,-2.5,0.125,1e+10|0x1p+0,-0x1.4p+1,0x1p-3,0x1.2a05f2p+33
uc 0xfa,0x7|250,7 s3 -1,0,300|-1,+0,+300|0177777,0,0454
i8 0,1,2,3,4,5,6,7|000,001,002,003,004,005,006,007
str abc|de    |fg|      |
sc ok 4000000000 -5000000000 18446744073709551615 ff FF   007 -7   | %
ff 6.022140 6.022140e+00 6.02214 0x1.816abep+2 1E-05 2 2.e+00
nan nan NAN -nan inf inf -INF
wide 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15 -1.5 7
";
        assert_eq!(text, want);
        return;
    }
    let gpu = Gpu::new();
    let src = r#"
        __kernel void show(__global const float *f) {
            float4 v = (float4)(1.0f, -2.5f, 0.125f, 1e10f);
            uchar2 u = (uchar2)(0xFA, 7);
            short3 s = (short3)(-1, 0, 300);
            int8 i8 = (int8)(0, 1, 2, 3, 4, 5, 6, 7);
            printf("f4 %v4hlf|%5.1v4hle|%v4hlg|%v4hla\n", v, v, v, v);
            printf("uc %#v2hhx|%v2hhu s3 %v3hd|%+v3hd|%#v3ho\n", u, u, s, s, s);
            printf("i8 %v8hld|%03v8hli\n", i8, i8);
            printf("str %s|%-6s|%.2s|%6s|\n", "abc", "de", "fghij", "");
            printf("sc %c%c %u %ld %lu %x %X %5.3d %-5d| %%\n", 'o', 'k', 4000000000u,
                   -5000000000L, 18446744073709551615UL, 255, 255, 7, -7);
            printf("ff %f %e %g %a %G %.0f %#.0e\n", f[0], f[0], f[0], f[0], f[1], f[2], f[2]);
            printf("nan %f %F %e inf %f %+E\n", f[3], f[3], f[5], f[4], -f[4]);
        }"#;
    let k = gpu.kernel(src, "show");
    // A negative NaN comes from the host: the sign of a NaN that kernel
    // arithmetic makes is the device's (NVIDIA's negation gives +NaN).
    let values = [
        6.02214f32,
        1e-5,
        2.5,
        f32::NAN,
        f32::INFINITY,
        f32::from_bits(0xffc0_0000),
    ];
    let f = gpu.buffer(&values);
    k.arg_buffer(0, &f);
    // Arguments too large for push constants (128 bytes on lavapipe) travel
    // in an argument buffer, the printf buffer's address with them.
    let wide_src = r#"
        __kernel void wide(int16 a, float16 b, long c) {
            printf("wide %v16hld %g %ld\n", a, b.s3, c);
        }"#;
    let wide = gpu.kernel(wide_src, "wide");
    let a: [i32; 16] = std::array::from_fn(|i| i as i32);
    let b: [f32; 16] = std::array::from_fn(|i| i as f32 * -0.5);
    wide.arg(0, a).arg(1, b).arg(2, 7i64);
    begin();
    gpu.run(&k, &[1], None, None);
    gpu.run(&wide, &[1], None, None);
    gpu.finish();
    end();
}

#[test]
fn many_work_items_and_several_kernels_in_one_batch() {
    const ITEMS: usize = 256;
    const STEPS: usize = 4;
    if !in_child() {
        let text = child_output("many_work_items_and_several_kernels_in_one_batch");
        let lines: Vec<&str> = text.lines().collect();
        // The first kernel's output is complete before the second's: an
        // in-order queue finishes (and prints) them in order.
        assert_eq!(lines.len(), 2 * ITEMS * STEPS + ITEMS, "{text}");
        let (first, rest) = lines.split_at(ITEMS * STEPS);
        let (second, third) = rest.split_at(ITEMS);
        // Within a work-item, its lines keep their order.
        let mut next_step = [0usize; ITEMS];
        for line in first {
            let (item, step) = line
                .strip_prefix("wi ")
                .and_then(|l| l.split_once(" step "))
                .and_then(|(i, s)| Some((i.parse::<usize>().ok()?, s.parse::<usize>().ok()?)))
                .unwrap_or_else(|| panic!("unexpected line {line:?}"));
            assert_eq!(step, next_step[item], "work-item {item} out of order");
            next_step[item] += 1;
        }
        assert!(next_step.iter().all(|&n| n == STEPS));
        let seen: HashSet<&str> = second.iter().copied().collect();
        let want: Vec<String> = (0..ITEMS).map(|i| format!("second {}", i * 3)).collect();
        assert_eq!(seen, want.iter().map(String::as_str).collect());
        // The first kernel launched again reuses a printf buffer: its
        // output is complete and no record of the earlier launch repeats.
        let mut again: Vec<&str> = third.to_vec();
        let mut first_sorted: Vec<&str> = first.to_vec();
        again.sort_unstable();
        first_sorted.sort_unstable();
        assert_eq!(again, first_sorted);
        return;
    }
    let gpu = Gpu::new();
    let src = r#"
        __kernel void steps(int n) {
            int i = get_global_id(0);
            for (int s = 0; s < n; ++s)
                printf("wi %d step %d\n", i, s);
        }
        __kernel void second(void) {
            printf("second %u\n", (uint)get_global_id(0) * 3u);
        }"#;
    let program = gpu.program(src, "");
    let steps = program.kernel("steps");
    let second = program.kernel("second");
    steps.arg(0, STEPS as i32);
    begin();
    gpu.run(&steps, &[ITEMS], Some(&[64]), None);
    gpu.run(&second, &[ITEMS], None, None);
    gpu.run(&steps, &[ITEMS], Some(&[32]), None);
    gpu.finish();
    end();
}

#[test]
fn overflow_drops_the_records_that_did_not_fit() {
    // CL_DEVICE_PRINTF_BUFFER_SIZE.
    const BUFFER: usize = 8 * 1024 * 1024;
    const ITEMS: usize = 400_000;
    // A record: format id and size (8 bytes), then one argument: kind and
    // count (8 bytes) and its 8-byte value.
    const RECORD: usize = 24;
    if !in_child() {
        let text = child_output("overflow_drops_the_records_that_did_not_fit");
        let (printed, returns) = text
            .split_once("returns ")
            .unwrap_or_else(|| panic!("no return values\n{text}"));
        let fits = (BUFFER - 8) / RECORD;
        let lines: Vec<&str> = printed.lines().collect();
        assert_eq!(lines.len(), fits);
        let ok: Vec<usize> = returns
            .split_whitespace()
            .map(|n| n.parse().unwrap())
            .collect();
        // printf returned 0 exactly for the records that were printed, -1
        // for the others.
        assert_eq!(ok.len(), fits, "work-items whose printf returned 0");
        let printed: HashSet<usize> = lines
            .iter()
            .map(|l| l.strip_prefix("r ").and_then(|n| n.parse().ok()).unwrap())
            .collect();
        assert_eq!(printed, ok.into_iter().collect::<HashSet<usize>>());
        return;
    }
    let gpu = Gpu::new();
    // size_t on this 64-bit host.
    let buffer_size: u64 = gpu.device_info(ferrocl_runtime::cl::CL_DEVICE_PRINTF_BUFFER_SIZE);
    assert_eq!(buffer_size, BUFFER as u64, "the test's buffer size");
    let src = r#"
        __kernel void flood(__global int *status) {
            int i = get_global_id(0);
            status[i] = printf("r %d\n", i);
        }"#;
    let k = gpu.kernel(src, "flood");
    let status = gpu.zeroed::<i32>(ITEMS);
    k.arg_buffer(0, &status);
    begin();
    gpu.run(&k, &[ITEMS], None, None);
    gpu.finish();
    let result = gpu.read::<i32>(&status);
    assert!(
        result.iter().all(|&r| r == 0 || r == -1),
        "printf returns 0 or -1"
    );
    let ok: Vec<String> = (0..ITEMS)
        .filter(|&i| result[i] == 0)
        .map(|i| i.to_string())
        .collect();
    println!("returns {}", ok.join(" "));
    end();
}
