//! Execution tests for program-scope `__global` variables (OpenCL C 2.0
//! and 3.0): initial values, values that persist between kernel launches
//! and between kernels of one program, and the size clGetProgramBuildInfo
//! reports.

mod common;

use common::*;
use ferrocl_runtime::cl::CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE;
use std::ffi::c_void;
use std::ptr::null_mut;

const SOURCE: &str = r#"
    global int calls = 100;
    static global float weights[4] = { 0.5f, 1.5f, 2.5f, 3.5f };
    global int *last_out;
    struct stats { uint n; long sum; };
    global struct stats totals;

    kernel void accumulate(global const int *in, global int *out) {
        int g = get_global_id(0);
        atomic_add(&totals.n, 1u);
        atom_add(&totals.sum, (long)in[g]);
        out[g] = in[g] * (int)weights[g & 3];
        if (g == 0) {
            calls++;
            last_out = out;
        }
    }

    kernel void report(global long *result) {
        result[0] = calls;
        result[1] = totals.n;
        result[2] = totals.sum;
        result[3] = last_out != 0;
        weights[1] += 1.0f;
    }
"#;

#[test]
fn values_persist_between_launches_and_kernels() {
    let gpu = Gpu::new();
    let program = gpu.program(SOURCE, "-cl-std=CL2.0");
    let mut total = 0usize;
    // SAFETY: `total` is a size_t the call writes.
    let status = unsafe {
        (gpu.api.clGetProgramBuildInfo)(
            program.handle,
            gpu.device,
            CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE,
            std::mem::size_of::<usize>(),
            &mut total as *mut usize as *mut c_void,
            null_mut(),
        )
    };
    check(status, "clGetProgramBuildInfo(GLOBAL_VARIABLE_TOTAL_SIZE)");
    // int, pad, float[4] at 4, pointer at 24, struct {uint; long} at 32.
    assert_eq!(total, 48);

    let accumulate = program.kernel("accumulate");
    let report = program.kernel("report");
    let n = 256usize;
    let input: Vec<i32> = (0..n as i32).map(|i| i * 3 - 100).collect();
    let (din, dout, dres) = (
        gpu.buffer(&input),
        gpu.zeroed::<i32>(n),
        gpu.zeroed::<i64>(4),
    );
    accumulate.arg_buffer(0, &din).arg_buffer(1, &dout);
    report.arg_buffer(0, &dres);
    let weights = [0.5f32, 1.5, 2.5, 3.5];
    for launch in 1..=3i64 {
        gpu.run(&accumulate, &[n], None, None);
        gpu.run(&report, &[1], None, None);
        let got = gpu.read::<i64>(&dres);
        let sum: i64 = input.iter().map(|&x| x as i64).sum();
        assert_eq!(
            got,
            vec![100 + launch, launch * n as i64, launch * sum, 1],
            "after launch {launch}"
        );
        // `report` raised weights[1] by 1 each time before this launch.
        let w1 = weights[1] + (launch - 1) as f32;
        let want: Vec<i32> = input
            .iter()
            .enumerate()
            .map(|(g, &x)| {
                let w = if g & 3 == 1 { w1 } else { weights[g & 3] };
                x * w as i32
            })
            .collect();
        assert_same(&gpu.read::<i32>(&dout), &want, "scaled by weights");
    }
}

#[test]
fn each_program_has_its_own_variables() {
    let gpu = Gpu::new();
    let src = r#"
        global uint counter = 7;
        kernel void bump(global uint *out) { out[0] = counter; counter += 10; }
    "#;
    let (a, b) = (
        gpu.program(src, "-cl-std=CL2.0"),
        gpu.program(src, "-cl-std=CL2.0"),
    );
    let (ka, kb) = (a.kernel("bump"), b.kernel("bump"));
    let out = gpu.zeroed::<u32>(1);
    ka.arg_buffer(0, &out);
    kb.arg_buffer(0, &out);
    gpu.run(&ka, &[1], None, None);
    gpu.run(&ka, &[1], None, None);
    assert_eq!(gpu.read::<u32>(&out), vec![17]);
    gpu.run(&kb, &[1], None, None);
    assert_eq!(gpu.read::<u32>(&out), vec![7]);
}

#[test]
fn static_variables_in_functions_keep_their_values() {
    let gpu = Gpu::new();
    let src = r#"
        uint next_ticket(void) { static uint tickets = 1000; return atomic_inc(&tickets); }
        kernel void take(global uint *out) {
            static global int launches;
            out[get_global_id(0)] = next_ticket();
            if (get_global_id(0) == 0)
                out[64] = ++launches;
        }
    "#;
    let k = gpu.kernel_with_options(src, "take", "-cl-std=CL3.0");
    let out = gpu.zeroed::<u32>(65);
    k.arg_buffer(0, &out);
    for launch in 0..2u32 {
        gpu.run(&k, &[64], None, None);
        let got = gpu.read::<u32>(&out);
        let mut tickets = got[..64].to_vec();
        tickets.sort_unstable();
        let want: Vec<u32> = (0..64).map(|i| 1000 + 64 * launch + i).collect();
        assert_eq!(tickets, want, "tickets of launch {launch}");
        assert_eq!(got[64], launch + 1);
    }
}
