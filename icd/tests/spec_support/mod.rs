//! Table-driven kernel checks for the spec-organized execution suites
//! (`spec_6_*.rs`): each row is one OpenCL C program with a kernel `k`,
//! built, run on the device and compared with a value the host computes.
//!
//! Every kernel has the signature `kernel void k(global const I *in,
//! global O *out)`; rows that need no input still take it, so the runner is
//! the same for all. A table runs every row and reports every failing row at
//! once, so one compiler bug does not hide the next.

#![allow(dead_code)]

use crate::common::*;
use std::fmt::Debug;

/// One kernel: its source, the number of work-items and the host reference,
/// which maps the whole input to the whole expected output.
pub struct Case<I, O> {
    pub name: &'static str,
    pub src: String,
    pub global: usize,
    pub host: fn(&[I]) -> Vec<O>,
}

/// How results are compared.
pub trait Expect: Pod + Debug {
    fn matches(got: Self, want: Self, tolerance: f64) -> bool;
}

macro_rules! exact {
    ($($t:ty),*) => { $(
        impl Expect for $t {
            fn matches(got: Self, want: Self, _: f64) -> bool {
                got == want
            }
        }
    )* };
}
exact!(i8, u8, i16, u16, i32, u32, i64, u64);

impl Expect for f32 {
    fn matches(got: f32, want: f32, tolerance: f64) -> bool {
        if got.is_nan() || want.is_nan() {
            return got.is_nan() && want.is_nan();
        }
        if tolerance == 0.0 {
            return got.to_bits() == want.to_bits();
        }
        (f64::from(got) - f64::from(want)).abs() <= tolerance * f64::from(want).abs().max(1.0)
    }
}

impl Expect for f64 {
    fn matches(got: f64, want: f64, tolerance: f64) -> bool {
        if got.is_nan() || want.is_nan() {
            return got.is_nan() && want.is_nan();
        }
        if tolerance == 0.0 {
            return got.to_bits() == want.to_bits();
        }
        (got - want).abs() <= tolerance * want.abs().max(1.0)
    }
}

/// Builds and runs one case; the first difference, or the build failure,
/// as a message.
pub fn run_case<I: Pod, O: Expect>(
    gpu: &Gpu,
    case: &Case<I, O>,
    input: &[I],
    options: &str,
    tolerance: f64,
) -> Result<(), String> {
    let program = gpu
        .try_program(&case.src, options)
        .map_err(|(status, log)| format!("build failed ({})\n{log}", error_name(status)))?;
    let kernel = program.kernel("k");
    let want = (case.host)(input);
    let din = gpu.buffer(input);
    let dout = gpu.zeroed::<O>(want.len().max(1));
    kernel.arg_buffer(0, &din).arg_buffer(1, &dout);
    let status = gpu.try_run(&kernel, &[case.global], None, None);
    if status != 0 {
        return Err(format!("clEnqueueNDRangeKernel: {}", error_name(status)));
    }
    let got = gpu.read::<O>(&dout);
    for (j, (&g, &w)) in got.iter().zip(&want).enumerate() {
        if !O::matches(g, w, tolerance) {
            return Err(format!("out[{j}]: got {g:?}, want {w:?}"));
        }
    }
    Ok(())
}

/// Runs every case and panics listing all that failed.
#[track_caller]
pub fn check_cases<I: Pod, O: Expect>(
    cases: &[Case<I, O>],
    input: &[I],
    options: &str,
    tolerance: f64,
) {
    let gpu = Gpu::new();
    let mut failed = Vec::new();
    for case in cases {
        if let Err(why) = run_case(&gpu, case, input, options, tolerance) {
            failed.push(format!(
                "[{}] {why}\n--- source ---\n{}",
                case.name, case.src
            ));
        }
    }
    assert!(
        failed.is_empty(),
        "{} of {} kernels failed:\n{}",
        failed.len(),
        cases.len(),
        failed.join("\n\n")
    );
}

/// One row of an expression table: `body` runs per work-item with `x` =
/// `in[i]` (of the input type) and must store `out[i]`; `prelude` is
/// program-scope code placed before the kernel.
#[derive(Clone, Copy)]
pub struct Row<I, O> {
    pub name: &'static str,
    pub prelude: &'static str,
    pub body: &'static str,
    pub host: fn(I) -> O,
}

/// A row with no program-scope code.
pub const fn row<I, O>(name: &'static str, body: &'static str, host: fn(I) -> O) -> Row<I, O> {
    Row {
        name,
        prelude: "",
        body,
        host,
    }
}

/// A row with program-scope code (helpers, types, constants).
pub const fn row_with<I, O>(
    name: &'static str,
    prelude: &'static str,
    body: &'static str,
    host: fn(I) -> O,
) -> Row<I, O> {
    Row {
        name,
        prelude,
        body,
        host,
    }
}

/// The program text of an expression row.
pub fn row_source(tin: &str, tout: &str, prelude: &str, body: &str) -> String {
    format!(
        "{prelude}\nkernel void k(global const {tin} *in, global {tout} *out) {{\n  \
         size_t i = get_global_id(0);\n  {tin} x = in[i];\n  {body}\n}}\n"
    )
}

/// Runs every row over `input` (one work-item per element) and panics
/// listing every row that failed.
#[track_caller]
pub fn check_rows<I: Pod + Debug, O: Expect>(
    tin: &str,
    tout: &str,
    input: &[I],
    rows: &[Row<I, O>],
    options: &str,
    tolerance: f64,
) {
    let generated: Vec<Generated<I, O>> = rows
        .iter()
        .map(|r| Generated {
            name: r.name.to_string(),
            src: row_source(tin, tout, r.prelude, r.body),
            host: Box::new(r.host),
        })
        .collect();
    check_generated(input, &generated, options, tolerance);
}

/// A row whose source and reference are made at run time (tables over
/// every type, rounding mode or width).
pub struct Generated<I, O> {
    pub name: String,
    /// A whole program with the kernel `k` (see [`row_source`]).
    pub src: String,
    pub host: Box<dyn Fn(I) -> O>,
}

/// Like [`check_rows`] for rows made at run time.
#[track_caller]
pub fn check_generated<I: Pod + Debug, O: Expect>(
    input: &[I],
    rows: &[Generated<I, O>],
    options: &str,
    tolerance: f64,
) {
    let gpu = Gpu::new();
    let mut failed = Vec::new();
    for r in rows {
        let src = &r.src;
        let program = match gpu.try_program(src, options) {
            Ok(p) => p,
            Err((status, log)) => {
                failed.push(format!(
                    "[{}] build failed ({})\n{log}\n--- source ---\n{src}",
                    r.name,
                    error_name(status)
                ));
                continue;
            }
        };
        let kernel = program.kernel("k");
        let din = gpu.buffer(input);
        let dout = gpu.zeroed::<O>(input.len());
        kernel.arg_buffer(0, &din).arg_buffer(1, &dout);
        let status = gpu.try_run(&kernel, &[input.len()], None, None);
        if status != 0 {
            failed.push(format!("[{}] enqueue: {}", r.name, error_name(status)));
            continue;
        }
        let got = gpu.read::<O>(&dout);
        if let Some(j) =
            (0..input.len()).find(|&j| !O::matches(got[j], (r.host)(input[j]), tolerance))
        {
            failed.push(format!(
                "[{}] x = {:?}: got {:?}, want {:?}\n--- source ---\n{src}",
                r.name,
                input[j],
                got[j],
                (r.host)(input[j])
            ));
        }
    }
    assert!(
        failed.is_empty(),
        "{} of {} kernels failed:\n{}",
        failed.len(),
        rows.len(),
        failed.join("\n\n")
    );
}

/// Integer inputs that reach the edges: zero, ±1, the extremes and a
/// spread of ordinary values.
pub fn int_inputs() -> Vec<i32> {
    let mut v = vec![
        0,
        1,
        -1,
        2,
        -2,
        7,
        -7,
        100,
        -100,
        12345,
        -54321,
        i32::MAX,
        i32::MIN,
    ];
    let mut rng = XorShift::new(42);
    v.extend(rng.i32s(19));
    v
}

pub fn uint_inputs() -> Vec<u32> {
    int_inputs().into_iter().map(|x| x as u32).collect()
}

/// Floats in a modest range (no overflow in the expressions under test).
pub fn float_inputs() -> Vec<f32> {
    let mut v = vec![0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.25, 100.0, -1e-3];
    let mut rng = XorShift::new(7);
    v.extend(rng.floats(23, -50.0, 50.0));
    v
}

/// Whether the OpenCL C compiler of the device defines `macro` under
/// `options` (a feature macro such as `__opencl_c_generic_address_space`,
/// or an extension macro), found by building and running a probe kernel.
pub fn device_defines(macro_name: &str, options: &str) -> bool {
    let gpu = Gpu::new();
    let src = format!(
        "kernel void k(global int *out) {{\n#ifdef {macro_name}\n  out[0] = 1;\n#else\n  out[0] = 2;\n#endif\n}}\n"
    );
    let kernel = gpu.kernel_with_options(&src, "k", options);
    let dout = gpu.zeroed::<i32>(1);
    kernel.arg_buffer(0, &dout);
    gpu.run(&kernel, &[1], None, None);
    let got = gpu.read::<i32>(&dout)[0];
    assert!(got == 1 || got == 2, "probe kernel wrote {got}");
    got == 1
}
