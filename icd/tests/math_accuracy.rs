//! Accuracy of the float math built-ins against the bounds of the OpenCL
//! environment specification (section 7.4, "ULP Values for Math
//! Instructions - Full Profile"), over special values, every kind of bit
//! pattern and a dense sample of each function's interesting range. The
//! reference is the host's double-precision result, whose own error is far
//! below a float ulp. Each test prints the worst error it measured
//! (`cargo test -- --nocapture` shows it).

mod common;

use common::*;
use ferrocl_runtime::cl::{CL_DEVICE_SINGLE_FP_CONFIG, CL_FP_DENORM};

extern "C" {
    // The C library's double versions, for functions Rust's std lacks.
    fn erf(x: f64) -> f64;
    fn erfc(x: f64) -> f64;
    fn tgamma(x: f64) -> f64;
    fn lgamma(x: f64) -> f64;
    fn remainder(x: f64, y: f64) -> f64;
}

/// |got - want| in ulps of the float binade of `want`, with the spec's
/// reading of overflow: an infinite result stands for 2^128, the next value
/// after FLT_MAX had the range been wider.
fn ulp_error(got: f32, want: f64) -> f64 {
    if want.is_nan() || got.is_nan() {
        return if want.is_nan() && got.is_nan() {
            0.0
        } else {
            f64::INFINITY
        };
    }
    // Beyond FLT_MAX by half an ulp or more, the float result is infinite.
    let want = if want.abs() >= 2f64.powi(128) - 2f64.powi(103) {
        f64::INFINITY.copysign(want)
    } else {
        want
    };
    if got as f64 == want {
        return 0.0;
    }
    let g = if got.is_infinite() {
        2f64.powi(128).copysign(got as f64)
    } else {
        got as f64
    };
    if want.is_infinite() {
        return if got.is_infinite() && got.signum() as f64 == want.signum() {
            0.0
        } else {
            f64::INFINITY
        };
    }
    let exponent = if want == 0.0 {
        -126
    } else {
        (want.abs().log2().floor() as i32).max(-126)
    };
    (g - want).abs() / 2f64.powi(exponent - 23)
}

/// The correctly rounded float fma: the product of two floats is exact in
/// double, and the sum rounded to odd there then to float rounds once.
fn fma_reference(a: f64, b: f64, c: f64) -> f64 {
    let p = a * b;
    let s = p + c;
    if !s.is_finite() {
        return s;
    }
    let bb = s - p;
    let e = (p - (s - bb)) + (c - bb);
    let mut r = s;
    if e != 0.0 && r.to_bits() & 1 == 0 {
        let bits = if (e > 0.0) == (r > 0.0) {
            r.to_bits() + 1
        } else {
            r.to_bits() - 1
        };
        r = f64::from_bits(bits);
    }
    r as f32 as f64
}

/// sin(pi x) with the reduction done exactly.
fn sinpi(x: f64) -> f64 {
    if x.is_infinite() {
        return f64::NAN;
    }
    // r in [-1, 1] exactly, then folded into [-1/2, 1/2] by symmetry.
    let mut r = x - 2.0 * (0.5 * x).round();
    if r > 0.5 {
        r = 1.0 - r;
    }
    if r < -0.5 {
        r = -1.0 - r;
    }
    let s = (std::f64::consts::PI * r).sin();
    if s == 0.0 {
        0.0f64.copysign(x)
    } else {
        s
    }
}

fn cospi(x: f64) -> f64 {
    if x.is_infinite() {
        return f64::NAN;
    }
    let r = (x - 2.0 * (0.5 * x).round()).abs();
    // cos(pi r) = sin(pi (1/2 - r)), exact in the subtraction.
    (std::f64::consts::PI * (0.5 - r)).sin()
}

fn tanpi(x: f64) -> f64 {
    if x.is_infinite() {
        return f64::NAN;
    }
    let r = x - (x).round();
    // Poles at half-integers: the sign follows the quadrant.
    if r.abs() == 0.5 {
        let odd = (x - r) % 2.0 != 0.0;
        return if (r > 0.0) != odd {
            f64::INFINITY
        } else {
            f64::NEG_INFINITY
        };
    }
    let t = (std::f64::consts::PI * r).tan();
    if t == 0.0 {
        // tanpi(n) has the sign of x for even n, the opposite for odd n.
        let odd = (x - r) % 2.0 != 0.0;
        return if odd {
            -0.0f64.copysign(x)
        } else {
            0.0f64.copysign(x)
        };
    }
    t
}

struct Case {
    name: &'static str,
    /// The OpenCL C expression over `a`, `b`, `c`.
    expr: &'static str,
    arity: usize,
    /// Allowed error in ulp (0.5: correctly rounded; 0: exact).
    bound: f64,
    reference: fn(f64, f64, f64) -> f64,
    /// The range random inputs are drawn from, besides random bit patterns.
    range: (f32, f32),
    /// Errors are measured in ulps of at least this size (lgamma's
    /// implementation-defined precision is judged absolutely near its zeros).
    ulp_floor: f64,
}

const SPECIALS: [f32; 24] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    -0.5,
    2.0,
    -2.0,
    3.0,
    -3.0,
    1.5,
    -2.5,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::NAN,
    f32::MAX,
    f32::MIN,
    f32::MIN_POSITIVE,
    -f32::MIN_POSITIVE,
    1.0e-40,
    -1.0e-40,
    1.0e-30,
    100.0,
    -100.0,
];

fn inputs(case: &Case, n: usize, seed: u32) -> [Vec<f32>; 3] {
    let mut rng = XorShift::new(seed);
    let mut v: [Vec<f32>; 3] = [Vec::new(), Vec::new(), Vec::new()];
    // Every combination of special values (for 3 arguments, the third is
    // drawn from them at random).
    for (i, &x) in SPECIALS.iter().enumerate() {
        if case.arity == 1 {
            v[0].push(x);
            v[1].push(0.0);
            v[2].push(0.0);
            continue;
        }
        for &y in SPECIALS.iter() {
            v[0].push(x);
            v[1].push(y);
            v[2].push(SPECIALS[(i + rng.next_u32() as usize) % SPECIALS.len()]);
        }
    }
    let (lo, hi) = case.range;
    while v[0].len() < n {
        for arg in v.iter_mut() {
            let x = match rng.next_u32() % 4 {
                0 => f32::from_bits(rng.next_u32()),
                _ => rng.f32_in(lo, hi),
            };
            arg.push(x);
        }
    }
    v
}

fn flush(x: f32) -> f32 {
    if x.is_subnormal() {
        0.0f32.copysign(x)
    } else {
        x
    }
}

/// Runs `case` on the device; returns the worst error and a description of
/// the first input out of bounds, if any.
fn measure(gpu: &Gpu, case: &Case, options: &str) -> (f64, Option<String>, usize) {
    let denorms = {
        let config: u64 = gpu.device_info(CL_DEVICE_SINGLE_FP_CONFIG);
        config & CL_FP_DENORM != 0
    };
    let src = format!(
        "__kernel void k(__global const float *pa, __global const float *pb,\n\
         __global const float *pc, __global float *out) {{\n\
         size_t i = get_global_id(0);\n\
         float a = pa[i], b = pb[i], c = pc[i];\n\
         out[i] = {};\n}}\n",
        case.expr
    );
    let n = 1 << 16;
    let seed = case
        .name
        .bytes()
        .fold(7u32, |h, b| h.wrapping_mul(31) ^ b as u32);
    let [a, b, c] = inputs(case, n, seed);
    let n = a.len();
    let k = gpu.kernel_with_options(&src, "k", options);
    let (da, db, dc) = (gpu.buffer(&a), gpu.buffer(&b), gpu.buffer(&c));
    let dout = gpu.zeroed::<f32>(n);
    k.arg_buffer(0, &da)
        .arg_buffer(1, &db)
        .arg_buffer(2, &dc)
        .arg_buffer(3, &dout);
    gpu.run(&k, &[n], None, None);
    let got = gpu.read::<f32>(&dout);
    let mut worst = 0.0f64;
    let mut first = None;
    let mut bad = 0;
    for i in 0..n {
        let (x, y, z) = (a[i], b[i], c[i]);
        let want = (case.reference)(x as f64, y as f64, z as f64);
        let mut err = ulp_error(got[i], want);
        if case.ulp_floor > 0.0 && err.is_finite() && want.is_finite() && got[i].is_finite() {
            err = err.min((got[i] as f64 - want).abs() / case.ulp_floor);
        }
        if !denorms && err > 0.0 {
            // Without CL_FP_DENORM, denormal inputs may be read as zero
            // and denormal results written as zero.
            let flushed = (case.reference)(flush(x) as f64, flush(y) as f64, flush(z) as f64);
            err = err.min(ulp_error(got[i], flushed));
            for w in [want, flushed] {
                if w.abs() < f32::MIN_POSITIVE as f64 && got[i] == 0.0 {
                    err = 0.0;
                }
            }
            // A denormal result reads as zero on such a device: compare it
            // as zero with both references.
            if got[i] != 0.0 && got[i].is_subnormal() {
                err = err.min(ulp_error(0.0, want)).min(ulp_error(0.0, flushed));
            }
        }
        if err > case.bound {
            bad += 1;
            if first.is_none() {
                first = Some(format!(
                    "{}({x:e}, {y:e}, {z:e}) = {:e}, want {want:e} ({err:.1} ulp)",
                    case.name, got[i]
                ));
            }
        }
        if err.is_finite() {
            worst = worst.max(err);
        }
    }
    (worst, first, bad)
}

fn check(case: Case) {
    let gpu = Gpu::new();
    let (worst, first, bad) = measure(&gpu, &case, "");
    println!("{}: worst {worst:.2} ulp (bound {})", case.name, case.bound);
    if let Some(first) = first {
        panic!(
            "{}: {bad} results beyond {} ulp; first: {first}",
            case.name, case.bound
        );
    }
}

macro_rules! float_case {
    ($test:ident, $name:expr, $expr:expr, $arity:expr, $bound:expr, $range:expr, $reference:expr) => {
        #[test]
        fn $test() {
            check(Case {
                name: $name,
                expr: $expr,
                arity: $arity,
                bound: $bound,
                reference: $reference,
                range: $range,
                ulp_floor: 0.0,
            });
        }
    };
}

const PI: f64 = std::f64::consts::PI;

float_case!(
    erf_float,
    "erf",
    "erf(a)",
    1,
    16.0,
    (-5.0, 5.0),
    |x, _, _| unsafe { erf(x) }
);
float_case!(
    erfc_float,
    "erfc",
    "erfc(a)",
    1,
    16.0,
    (-3.0, 11.0),
    |x, _, _| unsafe { erfc(x) }
);
float_case!(
    tgamma_float,
    "tgamma",
    "tgamma(a)",
    1,
    16.0,
    (-40.0, 36.0),
    |x, _, _| unsafe { tgamma(x) }
);
// lgamma's precision is implementation-defined; ferrocl holds it to the
// bound of tgamma, measured absolutely (in ulps of 1) near its zeros.
#[test]
fn lgamma_float() {
    check(Case {
        name: "lgamma",
        expr: "lgamma(a)",
        arity: 1,
        bound: 16.0,
        reference: |x, _, _| unsafe { lgamma(x) },
        range: (-40.0, 1.0e4),
        ulp_floor: 2f64.powi(-23),
    });
}

float_case!(
    fma_float,
    "fma",
    "fma(a, b, c)",
    3,
    0.5,
    (-4.0, 4.0),
    fma_reference
);
float_case!(
    exp_float,
    "exp",
    "exp(a)",
    1,
    3.0,
    (-104.0, 89.0),
    |x, _, _| x.exp()
);
float_case!(
    exp2_float,
    "exp2",
    "exp2(a)",
    1,
    3.0,
    (-150.0, 128.0),
    |x, _, _| x.exp2()
);
float_case!(
    exp10_float,
    "exp10",
    "exp10(a)",
    1,
    3.0,
    (-45.0, 39.0),
    |x, _, _| 10f64.powf(x)
);
float_case!(
    expm1_float,
    "expm1",
    "expm1(a)",
    1,
    3.0,
    (-20.0, 89.0),
    |x, _, _| x.exp_m1()
);
float_case!(
    log_float,
    "log",
    "log(a)",
    1,
    3.0,
    (0.0, 1.0e6),
    |x, _, _| x.ln()
);
float_case!(
    log2_float,
    "log2",
    "log2(a)",
    1,
    3.0,
    (0.0, 1.0e6),
    |x, _, _| x.log2()
);
float_case!(
    log10_float,
    "log10",
    "log10(a)",
    1,
    3.0,
    (0.0, 1.0e6),
    |x, _, _| x.log10()
);
float_case!(
    log1p_float,
    "log1p",
    "log1p(a)",
    1,
    2.0,
    (-1.0, 10.0),
    |x, _, _| x.ln_1p()
);
float_case!(
    pow_float,
    "pow",
    "pow(a, b)",
    2,
    16.0,
    (-10.0, 10.0),
    |x, y, _| x.powf(y)
);
float_case!(
    powr_float,
    "powr",
    "powr(fabs(a), b)",
    2,
    16.0,
    (0.0, 10.0),
    |x, y, _| { powr(x.abs(), y) }
);
float_case!(
    sin_float,
    "sin",
    "sin(a)",
    1,
    4.0,
    (-100.0, 100.0),
    |x, _, _| x.sin()
);
float_case!(
    cos_float,
    "cos",
    "cos(a)",
    1,
    4.0,
    (-100.0, 100.0),
    |x, _, _| x.cos()
);
float_case!(
    tan_float,
    "tan",
    "tan(a)",
    1,
    5.0,
    (-100.0, 100.0),
    |x, _, _| x.tan()
);
float_case!(
    sinpi_float,
    "sinpi",
    "sinpi(a)",
    1,
    4.0,
    (-100.0, 100.0),
    |x, _, _| sinpi(x)
);
float_case!(
    cospi_float,
    "cospi",
    "cospi(a)",
    1,
    4.0,
    (-100.0, 100.0),
    |x, _, _| cospi(x)
);
float_case!(
    tanpi_float,
    "tanpi",
    "tanpi(a)",
    1,
    6.0,
    (-100.0, 100.0),
    |x, _, _| tanpi(x)
);
float_case!(
    asin_float,
    "asin",
    "asin(a)",
    1,
    4.0,
    (-1.0, 1.0),
    |x, _, _| x.asin()
);
float_case!(
    acos_float,
    "acos",
    "acos(a)",
    1,
    4.0,
    (-1.0, 1.0),
    |x, _, _| x.acos()
);
float_case!(
    atan_float,
    "atan",
    "atan(a)",
    1,
    5.0,
    (-100.0, 100.0),
    |x, _, _| x.atan()
);
float_case!(
    asinpi_float,
    "asinpi",
    "asinpi(a)",
    1,
    5.0,
    (-1.0, 1.0),
    |x, _, _| x.asin() / PI
);
float_case!(
    acospi_float,
    "acospi",
    "acospi(a)",
    1,
    5.0,
    (-1.0, 1.0),
    |x, _, _| x.acos() / PI
);
float_case!(
    atanpi_float,
    "atanpi",
    "atanpi(a)",
    1,
    5.0,
    (-100.0, 100.0),
    |x, _, _| x.atan() / PI
);
float_case!(
    atan2_float,
    "atan2",
    "atan2(a, b)",
    2,
    6.0,
    (-10.0, 10.0),
    |y, x, _| y.atan2(x)
);
float_case!(
    atan2pi_float,
    "atan2pi",
    "atan2pi(a, b)",
    2,
    6.0,
    (-10.0, 10.0),
    |y, x, _| y.atan2(x) / PI
);
float_case!(
    sinh_float,
    "sinh",
    "sinh(a)",
    1,
    4.0,
    (-90.0, 90.0),
    |x, _, _| x.sinh()
);
float_case!(
    cosh_float,
    "cosh",
    "cosh(a)",
    1,
    4.0,
    (-90.0, 90.0),
    |x, _, _| x.cosh()
);
float_case!(
    tanh_float,
    "tanh",
    "tanh(a)",
    1,
    5.0,
    (-10.0, 10.0),
    |x, _, _| x.tanh()
);
float_case!(
    asinh_float,
    "asinh",
    "asinh(a)",
    1,
    4.0,
    (-100.0, 100.0),
    |x, _, _| x.asinh()
);
float_case!(
    acosh_float,
    "acosh",
    "acosh(a)",
    1,
    4.0,
    (1.0, 100.0),
    |x, _, _| x.acosh()
);
float_case!(
    atanh_float,
    "atanh",
    "atanh(a)",
    1,
    5.0,
    (-1.0, 1.0),
    |x, _, _| x.atanh()
);
float_case!(
    cbrt_float,
    "cbrt",
    "cbrt(a)",
    1,
    2.0,
    (-1000.0, 1000.0),
    |x, _, _| x.cbrt()
);
float_case!(
    sqrt_float,
    "sqrt",
    "sqrt(a)",
    1,
    3.0,
    (0.0, 1.0e6),
    |x, _, _| x.sqrt()
);
float_case!(
    rsqrt_float,
    "rsqrt",
    "rsqrt(a)",
    1,
    2.0,
    (0.0, 1.0e6),
    |x, _, _| 1.0 / x.sqrt()
);
float_case!(
    hypot_float,
    "hypot",
    "hypot(a, b)",
    2,
    4.0,
    (-1.0e3, 1.0e3),
    |x, y, _| x.hypot(y)
);
float_case!(
    fmod_float,
    "fmod",
    "fmod(a, b)",
    2,
    0.0,
    (-100.0, 100.0),
    |x, y, _| x % y
);
float_case!(
    remainder_float,
    "remainder",
    "remainder(a, b)",
    2,
    0.0,
    (-100.0, 100.0),
    |x, y, _| unsafe { remainder(x, y) }
);
float_case!(
    fdim_float,
    "fdim",
    "fdim(a, b)",
    2,
    0.5,
    (-100.0, 100.0),
    |x, y, _| {
        if x.is_nan() || y.is_nan() {
            f64::NAN
        } else if x > y {
            x - y
        } else {
            0.0
        }
    }
);
float_case!(
    floor_float,
    "floor",
    "floor(a)",
    1,
    0.0,
    (-1.0e7, 1.0e7),
    |x, _, _| x.floor()
);
float_case!(
    ceil_float,
    "ceil",
    "ceil(a)",
    1,
    0.0,
    (-1.0e7, 1.0e7),
    |x, _, _| x.ceil()
);
float_case!(
    trunc_float,
    "trunc",
    "trunc(a)",
    1,
    0.0,
    (-1.0e7, 1.0e7),
    |x, _, _| x.trunc()
);
float_case!(
    round_float,
    "round",
    "round(a)",
    1,
    0.0,
    (-1.0e7, 1.0e7),
    |x, _, _| x.round()
);
float_case!(
    rint_float,
    "rint",
    "rint(a)",
    1,
    0.0,
    (-1.0e7, 1.0e7),
    |x, _, _| x.round_ties_even()
);
float_case!(
    fabs_float,
    "fabs",
    "fabs(a)",
    1,
    0.0,
    (-1.0e7, 1.0e7),
    |x, _, _| x.abs()
);
float_case!(
    copysign_float,
    "copysign",
    "copysign(a, b)",
    2,
    0.0,
    (-10.0, 10.0),
    |x, y, _| x.copysign(y)
);
float_case!(
    fmin_float,
    "fmin",
    "fmin(a, b)",
    2,
    0.0,
    (-10.0, 10.0),
    |x, y, _| x.min(y)
);
float_case!(
    fmax_float,
    "fmax",
    "fmax(a, b)",
    2,
    0.0,
    (-10.0, 10.0),
    |x, y, _| x.max(y)
);
float_case!(
    logb_float,
    "logb",
    "logb(a)",
    1,
    0.0,
    (-1.0e7, 1.0e7),
    |x, _, _| logb(x)
);
float_case!(
    nextafter_float,
    "nextafter",
    "nextafter(a, b)",
    2,
    0.0,
    (-10.0, 10.0),
    |x, y, _| { nextafter(x as f32, y as f32) as f64 }
);

/// The integer argument the pown, rootn and ldexp cases pass: the float
/// input clamped and truncated (NaN as 0), as the kernel computes it.
fn int_arg(y: f64, limit: f64) -> i32 {
    if y.is_nan() {
        0
    } else {
        y.clamp(-limit, limit).trunc() as i32
    }
}

float_case!(
    pown_float,
    "pown",
    "pown(a, isnan(b) ? 0 : (int)clamp(b, -40.0f, 40.0f))",
    2,
    16.0,
    (-40.0, 40.0),
    |x, y, _| x.powi(int_arg(y, 40.0))
);
float_case!(
    rootn_float,
    "rootn",
    "rootn(a, isnan(b) ? 0 : (int)clamp(b, -16.0f, 16.0f))",
    2,
    16.0,
    (-16.0, 16.0),
    |x, y, _| {
        let n = int_arg(y, 16.0);
        if n == 0 || (x < 0.0 && n % 2 == 0) {
            return f64::NAN;
        }
        let r = x.abs().powf(1.0 / n as f64);
        if n % 2 != 0 {
            r.copysign(x)
        } else {
            r
        }
    }
);
float_case!(
    ldexp_float,
    "ldexp",
    "ldexp(a, isnan(b) ? 0 : (int)clamp(b, -300.0f, 300.0f))",
    2,
    0.5,
    (-300.0, 300.0),
    |x, y, _| x * 2f64.powi(int_arg(y, 300.0))
);

fn powr(x: f64, y: f64) -> f64 {
    // powr is pow restricted to x >= 0, with its own special cases.
    if x.is_nan() || y.is_nan() {
        return f64::NAN;
    }
    if x == 1.0 && y.is_infinite() || x.is_infinite() && y == 0.0 || x == 0.0 && y == 0.0 {
        return f64::NAN;
    }
    x.powf(y)
}

fn logb(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x.is_infinite() {
        return f64::INFINITY;
    }
    if x == 0.0 {
        return f64::NEG_INFINITY;
    }
    x.abs().log2().floor()
}

fn nextafter(x: f32, y: f32) -> f32 {
    if x.is_nan() || y.is_nan() {
        return f32::NAN;
    }
    if x == y {
        return y;
    }
    if x < y {
        x.next_up()
    } else {
        x.next_down()
    }
}

#[test]
fn lgamma_r_sign_and_value() {
    let gpu = Gpu::new();
    let src = "__kernel void k(__global const float *x, __global float *v, __global int *s) {\n\
               size_t i = get_global_id(0);\n\
               int sign;\n\
               v[i] = lgamma_r(x[i], &sign);\n\
               s[i] = sign;\n}\n";
    let xs: Vec<f32> = vec![
        0.5, 1.0, 2.0, 3.5, -0.5, -1.5, -2.5, -3.25, 0.0, -0.0, -1.0, -2.0, 10.0, -10.5,
    ];
    let k = gpu.kernel(src, "k");
    let (dx, dv, ds) = (
        gpu.buffer(&xs),
        gpu.zeroed::<f32>(xs.len()),
        gpu.zeroed::<i32>(xs.len()),
    );
    k.arg_buffer(0, &dx).arg_buffer(1, &dv).arg_buffer(2, &ds);
    gpu.run(&k, &[xs.len()], None, None);
    let (v, s) = (gpu.read::<f32>(&dv), gpu.read::<i32>(&ds));
    for (i, &x) in xs.iter().enumerate() {
        let g = unsafe { tgamma(x as f64) };
        let want_sign = if x <= 0.0 && x.floor() == x {
            0
        } else if g < 0.0 {
            -1
        } else {
            1
        };
        assert_eq!(s[i], want_sign, "sign of Gamma({x})");
        let want = unsafe { lgamma(x as f64) };
        assert!(
            ulp_error(v[i], want) <= 16.0
                || (want.abs() < 1e-6 && (v[i] as f64 - want).abs() < 1e-7),
            "lgamma_r({x}) = {}, want {want}",
            v[i]
        );
    }
}

#[test]
fn vector_forms_match_scalar() {
    let gpu = Gpu::new();
    let src = "__kernel void k(__global const float *x, __global float *v, __global float *s) {\n\
               size_t i = get_global_id(0);\n\
               float4 a = vload4(i, x);\n\
               vstore4(erf(a), i, v);\n\
               vstore4(fma(a, a.wzyx, a.yxwz), i + 256, v);\n\
               for (int j = 0; j < 4; j++) {\n\
                   s[4 * i + j] = erf(a[j]);\n\
                   s[1024 + 4 * i + j] = fma(a[j], a[3 - j], a[j ^ 1]);\n\
               }\n}\n";
    let mut rng = XorShift::new(5);
    let xs = rng.floats(1024, -3.0, 3.0);
    let k = gpu.kernel(src, "k");
    let (dx, dv, ds) = (
        gpu.buffer(&xs),
        gpu.zeroed::<f32>(2048),
        gpu.zeroed::<f32>(2048),
    );
    k.arg_buffer(0, &dx).arg_buffer(1, &dv).arg_buffer(2, &ds);
    gpu.run(&k, &[256], None, None);
    assert_same(
        &gpu.read::<f32>(&dv),
        &gpu.read::<f32>(&ds),
        "erf and fma on float4 against scalar",
    );
}

#[test]
fn sincos_matches_sin_and_cos_bounds() {
    let gpu = Gpu::new();
    let src = "__kernel void k(__global const float *x, __global float *s, __global float *c) {\n\
               size_t i = get_global_id(0);\n\
               float cv;\n\
               s[i] = sincos(x[i], &cv);\n\
               c[i] = cv;\n}\n";
    let mut rng = XorShift::new(9);
    let mut xs = rng.floats(4096, -1.0e4, 1.0e4);
    xs.extend((0..4096).map(|_| f32::from_bits(rng.next_u32())));
    let k = gpu.kernel(src, "k");
    let (dx, ds, dc) = (
        gpu.buffer(&xs),
        gpu.zeroed::<f32>(xs.len()),
        gpu.zeroed::<f32>(xs.len()),
    );
    k.arg_buffer(0, &dx).arg_buffer(1, &ds).arg_buffer(2, &dc);
    gpu.run(&k, &[xs.len()], None, None);
    let (s, c) = (gpu.read::<f32>(&ds), gpu.read::<f32>(&dc));
    for (i, &x) in xs.iter().enumerate() {
        let x = x as f64;
        let (es, ec) = (ulp_error(s[i], x.sin()), ulp_error(c[i], x.cos()));
        let flushed = x.abs() < f32::MIN_POSITIVE as f64;
        assert!(
            (es <= 4.0 && ec <= 4.0) || (flushed && c[i] == 1.0),
            "sincos({x:e}) = ({}, {}): {es:.1} and {ec:.1} ulp",
            s[i],
            c[i]
        );
    }
}

/// length, distance and normalize of vectors whose squares leave the float
/// range (0x1p64 squared overflows, 0x1p-80 squared underflows): the spec
/// asks for no overflow and no extraordinary loss to underflow.
#[test]
fn geometric_functions_do_not_overflow_or_underflow() {
    let gpu = Gpu::new();
    let src = "__kernel void k(__global const float4 *x, __global float *len, \
               __global float *dist, __global float4 *norm) {\n\
               size_t i = get_global_id(0);\n\
               float4 v = x[i];\n\
               len[4 * i] = length(v.x);\n\
               len[4 * i + 1] = length(v.xy);\n\
               len[4 * i + 2] = length(v.xyz);\n\
               len[4 * i + 3] = length(v);\n\
               dist[i] = distance(v.xy, (float2)(0.0f, 0.0f));\n\
               norm[i] = normalize(v);\n}\n";
    let cases: [[f32; 4]; 6] = [
        [1.8446744e19, 255.0, -300.0, 12.0],
        [3.0e38, 3.0e38, 0.0, 0.0],
        [8.271806e-25, -8.271806e-25, 8.271806e-25, 8.271806e-25],
        [3.0, 4.0, 0.0, 0.0],
        [f32::INFINITY, 5.0, f32::NEG_INFINITY, 1.0],
        [0.0, -0.0, 0.0, 0.0],
    ];
    let flat: Vec<f32> = cases.iter().flatten().copied().collect();
    let k = gpu.kernel(src, "k");
    let n = cases.len();
    let (dx, dl, dd, dn) = (
        gpu.buffer(&flat),
        gpu.zeroed::<f32>(4 * n),
        gpu.zeroed::<f32>(n),
        gpu.zeroed::<f32>(4 * n),
    );
    k.arg_buffer(0, &dx)
        .arg_buffer(1, &dl)
        .arg_buffer(2, &dd)
        .arg_buffer(3, &dn);
    gpu.run(&k, &[n], None, None);
    let (len, dist, norm) = (
        gpu.read::<f32>(&dl),
        gpu.read::<f32>(&dd),
        gpu.read::<f32>(&dn),
    );
    for (i, v) in cases.iter().enumerate() {
        let w: Vec<f64> = v.iter().map(|&c| c as f64).collect();
        let hyp = |k: usize| -> f64 {
            let m = w[..k].iter().fold(0.0f64, |a, c| a.max(c.abs()));
            if m == 0.0 || m.is_infinite() {
                return m;
            }
            m * w[..k].iter().map(|c| (c / m) * (c / m)).sum::<f64>().sqrt()
        };
        for (k, bound) in [(1usize, 3.25), (2, 3.75), (3, 4.25), (4, 4.75)] {
            let e = ulp_error(len[4 * i + k - 1], hyp(k));
            assert!(
                e <= bound,
                "length of {:?}[..{k}] = {}: {e:.2} ulp",
                v,
                len[4 * i + k - 1]
            );
        }
        let e = ulp_error(dist[i], hyp(2));
        assert!(
            e <= 6.5,
            "distance({:?}.xy, 0) = {}: {e:.2} ulp",
            v,
            dist[i]
        );
        // Infinite components count as +-1, finite ones as 0.
        let inf = w.iter().any(|c| c.is_infinite());
        let u: Vec<f64> = if inf {
            w.iter()
                .map(|c| {
                    if c.is_infinite() {
                        c.signum()
                    } else {
                        0.0 * c.signum()
                    }
                })
                .collect()
        } else {
            w.clone()
        };
        let l = {
            let m = u.iter().fold(0.0f64, |a, c| a.max(c.abs()));
            if m == 0.0 {
                0.0
            } else {
                m * u.iter().map(|c| (c / m) * (c / m)).sum::<f64>().sqrt()
            }
        };
        for j in 0..4 {
            let got = norm[4 * i + j];
            if l == 0.0 {
                assert_eq!(got.to_bits(), v[j].to_bits(), "normalize of zeros {:?}", v);
                continue;
            }
            let want = u[j] / l;
            let e = ulp_error(got, want);
            // A result below FLT_MIN may be flushed on a device without
            // float denormals.
            let flushed = want.abs() < f32::MIN_POSITIVE as f64 && got == 0.0;
            assert!(
                e <= 6.0 || flushed,
                "normalize({:?})[{j}] = {got}, want {want:e}: {e:.2} ulp",
                v
            );
        }
    }
}

/// pow, powr, pown and rootn of a float denormal x: every branch of the
/// library sees the same x (on a device that flushes denormals a
/// conversion to double may give zero while comparisons see x), so the
/// result is the one for x or, flushed, the one for zero, never a NaN.
#[test]
fn pow_family_is_consistent_on_denormal_x() {
    let gpu = Gpu::new();
    let src = "__kernel void k(__global const float *x, __global float *r) {\n\
               size_t i = get_global_id(0);\n\
               float v = x[i];\n\
               r[4 * i] = pow(v, -1.0f);\n\
               r[4 * i + 1] = powr(v, 0.5f);\n\
               r[4 * i + 2] = pown(v, -1);\n\
               r[4 * i + 3] = rootn(v, 3);\n}\n";
    let xs: Vec<f32> = vec![1.0e-40, -1.0e-40, 1.4e-45, 1.1754942e-38, -3.0e-39];
    let k = gpu.kernel(src, "k");
    let (dx, dr) = (gpu.buffer(&xs), gpu.zeroed::<f32>(4 * xs.len()));
    k.arg_buffer(0, &dx).arg_buffer(1, &dr);
    gpu.run(&k, &[xs.len()], None, None);
    let r = gpu.read::<f32>(&dr);
    for (i, &x) in xs.iter().enumerate() {
        let d = x as f64;
        let refs = [
            (
                d.powf(-1.0),
                if x < 0.0 {
                    f64::NEG_INFINITY
                } else {
                    f64::INFINITY
                },
            ),
            (d.powf(0.5), 0.0),
            (
                1.0 / d,
                if x < 0.0 {
                    f64::NEG_INFINITY
                } else {
                    f64::INFINITY
                },
            ),
            (d.cbrt(), 0.0 * d.signum()),
        ];
        for (j, (exact, flushed)) in refs.iter().enumerate() {
            let got = r[4 * i + j];
            let ok = ulp_error(got, *exact) <= 16.0 || got as f64 == *flushed;
            assert!(
                ok,
                "case {j} of x = {x:e}: {got}, want {exact:e} (or {flushed} flushed)"
            );
        }
    }
}
