//! Built-ins on the values where they are easy to get wrong (zeros,
//! subnormals, infinities, NaNs, the largest values, power-of-two and
//! rounding boundaries) and on random bit patterns, checked bit for bit
//! against the C library or an exact host reference: fract, modf, frexp,
//! logb, nextafter for float, double (cl_khr_fp64) and half (cl_khr_fp16);
//! double rsqrt and fma; half ldexp, pown, rootn, ilogb; conversions to half
//! in every rounding mode.

mod common;

use common::*;
use ferrocl_runtime::cl::*;

extern "C" {
    fn frexp(x: f64, e: *mut i32) -> f64;
    fn logb(x: f64) -> f64;
    fn nextafter(x: f64, y: f64) -> f64;
    fn nextafterf(x: f32, y: f32) -> f32;
}

fn has_extension(gpu: &Gpu, name: &str) -> bool {
    gpu.device_string(CL_DEVICE_EXTENSIONS)
        .split_whitespace()
        .any(|e| e == name)
}

/// Same value, or both NaN; zeros compare with their sign.
fn same(got: f64, want: f64) -> bool {
    (got.is_nan() && want.is_nan()) || got.to_bits() == want.to_bits()
}

/// fract in the arithmetic of a type whose rounding is `round`.
fn host_fract(x: f64, below_one: f64, round: &dyn Fn(f64) -> f64) -> (f64, f64) {
    if x.is_nan() {
        return (x, x);
    }
    if x.is_infinite() {
        return (0.0f64.copysign(x), x);
    }
    let fl = x.floor();
    (round(x - fl).min(below_one), fl)
}

fn host_modf(x: f64) -> (f64, f64) {
    if x.is_nan() {
        return (x, x);
    }
    if x.is_infinite() {
        return (0.0f64.copysign(x), x);
    }
    ((x - x.trunc()).copysign(x), x.trunc())
}

fn host_frexp(x: f64) -> (f64, i32) {
    if !x.is_finite() || x == 0.0 {
        return (x, 0);
    }
    let mut e = 0;
    // SAFETY: frexp writes one int through a valid pointer.
    let m = unsafe { frexp(x, &mut e) };
    (m, e)
}

/// The float and double kernel: every function at once on x[i] (and y[i]).
fn split_kernel(ty: &str) -> String {
    let pragma = if ty == "double" {
        "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
    } else if ty == "half" {
        "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
    } else {
        ""
    };
    format!(
        "{pragma}__kernel void k(__global const {ty} *x, __global const {ty} *y,\n\
           __global {ty} *fr, __global {ty} *fl, __global {ty} *mo, __global {ty} *wh,\n\
           __global {ty} *fe, __global int *ex, __global {ty} *lb, __global {ty} *na) {{\n\
           size_t i = get_global_id(0);\n\
           {ty} a; int e;\n\
           fr[i] = fract(x[i], &a); fl[i] = a;\n\
           mo[i] = modf(x[i], &a); wh[i] = a;\n\
           fe[i] = frexp(x[i], &e); ex[i] = e;\n\
           lb[i] = logb(x[i]);\n\
           na[i] = nextafter(x[i], y[i]);\n\
         }}\n"
    )
}

/// Results of `split_kernel` as f64, whatever the element type.
struct Split {
    fract: Vec<f64>,
    floor: Vec<f64>,
    modf: Vec<f64>,
    whole: Vec<f64>,
    frexp: Vec<f64>,
    exponent: Vec<i32>,
    logb: Vec<f64>,
    nextafter: Vec<f64>,
}

fn run_split<T: Pod + Default>(
    gpu: &Gpu,
    ty: &str,
    xs: &[T],
    ys: &[T],
    widen: impl Fn(T) -> f64,
) -> Split {
    let k = gpu.kernel(&split_kernel(ty), "k");
    let (dx, dy) = (gpu.buffer(xs), gpu.buffer(ys));
    let outs: Vec<_> = (0..8).map(|_| gpu.zeroed::<T>(xs.len())).collect();
    let dex = gpu.zeroed::<i32>(xs.len());
    k.arg_buffer(0, &dx).arg_buffer(1, &dy);
    for (i, b) in outs.iter().enumerate().take(5) {
        k.arg_buffer(2 + i as u32, b);
    }
    k.arg_buffer(7, &dex)
        .arg_buffer(8, &outs[5])
        .arg_buffer(9, &outs[6]);
    gpu.run(&k, &[xs.len()], None, None);
    let read = |i: usize| -> Vec<f64> { gpu.read::<T>(&outs[i]).into_iter().map(&widen).collect() };
    Split {
        fract: read(0),
        floor: read(1),
        modf: read(2),
        whole: read(3),
        frexp: read(4),
        exponent: gpu.read::<i32>(&dex),
        logb: read(5),
        nextafter: read(6),
    }
}

/// Checks `split` against the host for inputs `xs`, `ys` (as f64) with
/// `below_one` the type's largest value below 1 and `next` its nextafter.
fn check_split(
    what: &str,
    xs: &[f64],
    ys: &[f64],
    split: &Split,
    below_one: f64,
    round: &dyn Fn(f64) -> f64,
    next: impl Fn(f64, f64) -> f64,
) {
    for (i, (&x, &y)) in xs.iter().zip(ys).enumerate() {
        let (f, fl) = host_fract(x, below_one, round);
        assert!(
            same(split.fract[i], f) && same(split.floor[i], fl),
            "{what} fract({x:e}) = ({:e}, {:e}), want ({f:e}, {fl:e})",
            split.fract[i],
            split.floor[i]
        );
        let (m, w) = host_modf(x);
        assert!(
            same(split.modf[i], m) && same(split.whole[i], w),
            "{what} modf({x:e}) = ({:e}, {:e}), want ({m:e}, {w:e})",
            split.modf[i],
            split.whole[i]
        );
        let (m, e) = host_frexp(x);
        assert!(
            same(split.frexp[i], m) && split.exponent[i] == e,
            "{what} frexp({x:e}) = ({:e}, {}), want ({m:e}, {e})",
            split.frexp[i],
            split.exponent[i]
        );
        // SAFETY: a pure C library function.
        let l = unsafe { logb(x) };
        assert!(
            same(split.logb[i], l),
            "{what} logb({x:e}) = {:e}, want {l:e}",
            split.logb[i]
        );
        let n = next(x, y);
        assert!(
            same(split.nextafter[i], n),
            "{what} nextafter({x:e}, {y:e}) = {:e}, want {n:e}",
            split.nextafter[i]
        );
    }
}

const EDGE_BITS_F32: [u32; 16] = [
    0x0000_0000,
    0x8000_0000,
    0x0000_0001,
    0x8000_0001,
    0x007f_ffff,
    0x0080_0000,
    0x3f80_0000,
    0xbf80_0000,
    0x3f7f_ffff,
    0xb380_0000,
    0x7f7f_ffff,
    0xff7f_ffff,
    0x7f80_0000,
    0xff80_0000,
    0x7fc0_0000,
    0x4b00_0001,
];

#[test]
fn float_split_functions_at_the_edges_and_at_random() {
    let gpu = Gpu::new();
    let mut rng = XorShift::new(0x7f4a7c15);
    let mut xs: Vec<f32> = EDGE_BITS_F32.iter().map(|&b| f32::from_bits(b)).collect();
    let mut ys: Vec<f32> = xs.iter().rev().copied().collect();
    while xs.len() < 4096 {
        xs.push(f32::from_bits(rng.next_u64() as u32));
        ys.push(f32::from_bits(rng.next_u64() as u32));
    }
    let denorms = gpu.device_info::<cl_bitfield>(CL_DEVICE_SINGLE_FP_CONFIG) & CL_FP_DENORM != 0;
    if !denorms {
        // Without CL_FP_DENORM a device may flush subnormal inputs: keep
        // to normal values and zeros.
        let normal = |v: &f32| v.is_normal() || *v == 0.0 || !v.is_finite();
        let keep: Vec<bool> = xs
            .iter()
            .zip(&ys)
            .map(|(x, y)| normal(x) && normal(y))
            .collect();
        let mut k = keep.iter();
        xs.retain(|_| *k.next().unwrap());
        let mut k = keep.iter();
        ys.retain(|_| *k.next().unwrap());
    }
    let split = run_split(&gpu, "float", &xs, &ys, f64::from);
    let wide = |v: &[f32]| v.iter().map(|&x| f64::from(x)).collect::<Vec<_>>();
    check_split(
        "float",
        &wide(&xs),
        &wide(&ys),
        &split,
        f64::from(f32::from_bits(0x3f7f_ffff)),
        &|v| f64::from(v as f32),
        // SAFETY: a pure C library function.
        |x, y| f64::from(unsafe { nextafterf(x as f32, y as f32) }),
    );
}

#[test]
fn double_split_functions_at_the_edges_and_at_random() {
    let gpu = Gpu::new();
    if !has_extension(&gpu, "cl_khr_fp64") {
        return;
    }
    let mut rng = XorShift::new(0x4f6cdd1d);
    let edges: [u64; 14] = [
        0,
        1 << 63,
        1,
        (1 << 63) | 1,
        0x000f_ffff_ffff_ffff,
        0x0010_0000_0000_0000,
        0x3ff0_0000_0000_0000,
        0x3fef_ffff_ffff_ffff,
        0xbca0_0000_0000_0000,
        0x7fef_ffff_ffff_ffff,
        0x7ff0_0000_0000_0000,
        0xfff0_0000_0000_0000,
        0x7ff8_0000_0000_0000,
        0x4330_0000_0000_0001,
    ];
    let mut xs: Vec<f64> = edges.iter().map(|&b| f64::from_bits(b)).collect();
    let mut ys: Vec<f64> = xs.iter().rev().copied().collect();
    while xs.len() < 4096 {
        xs.push(f64::from_bits(rng.next_u64()));
        ys.push(f64::from_bits(rng.next_u64()));
    }
    let split = run_split(&gpu, "double", &xs, &ys, |v| v);
    check_split(
        "double",
        &xs,
        &ys,
        &split,
        f64::from_bits(0x3fef_ffff_ffff_ffff),
        &|v| v,
        // SAFETY: a pure C library function.
        |x, y| unsafe { nextafter(x, y) },
    );
}

fn half_to_f64(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = i32::from((h >> 10) & 0x1f);
    let m = f64::from(h & 0x3ff);
    sign * match e {
        0 => m * 2f64.powi(-24),
        31 if m == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        _ => (1.0 + m / 1024.0) * 2f64.powi(e - 15),
    }
}

/// `v` (finite, within half's range) rounded to the nearest half, ties to
/// even.
fn round_to_half(v: f64) -> f64 {
    if v == 0.0 {
        return v;
    }
    let e = (v.abs().log2().floor() as i32).max(-14);
    let quantum = 2f64.powi(e - 10);
    (v / quantum).round_ties_even() * quantum
}

/// nextafter on half bit patterns.
fn half_nextafter(x: u16, y: u16) -> f64 {
    let (fx, fy) = (half_to_f64(x), half_to_f64(y));
    if fx.is_nan() || fy.is_nan() {
        return f64::NAN;
    }
    if fx == fy {
        return fy;
    }
    if fx == 0.0 {
        return half_to_f64(if fy > 0.0 { 1 } else { 0x8001 });
    }
    let away = (fx < fy) == (fx > 0.0);
    half_to_f64(if away { x + 1 } else { x - 1 })
}

#[test]
fn half_split_functions_on_every_half() {
    let gpu = Gpu::new();
    if !has_extension(&gpu, "cl_khr_fp16") {
        return;
    }
    let mut rng = XorShift::new(0x9abcdef1);
    let xs: Vec<u16> = (0..=u16::MAX).collect();
    let ys: Vec<u16> = xs.iter().map(|_| rng.next_u64() as u16).collect();
    let split = run_split(&gpu, "half", &xs, &ys, half_to_f64);
    let wide = |v: &[u16]| v.iter().map(|&x| half_to_f64(x)).collect::<Vec<_>>();
    let next = |x: f64, y: f64| {
        // Back to the bit patterns: both are exact halves.
        let bits = |v: f64| xs.iter().copied().find(|&h| same(half_to_f64(h), v));
        match (bits(x), bits(y)) {
            (Some(a), Some(b)) => half_nextafter(a, b),
            _ => f64::NAN,
        }
    };
    check_split(
        "half",
        &wide(&xs),
        &wide(&ys),
        &split,
        1.0 - 2f64.powi(-11),
        &round_to_half,
        next,
    );
}

#[test]
fn double_rsqrt_keeps_nans_and_fma_rounds_once_near_the_subnormals() {
    let gpu = Gpu::new();
    if !has_extension(&gpu, "cl_khr_fp64") {
        return;
    }
    let src = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n\
        __kernel void k(__global const double *a, __global const double *b,\n\
        __global const double *c, __global double *rs, __global double *f) {\n\
          size_t i = get_global_id(0);\n\
          rs[i] = rsqrt(a[i]);\n\
          f[i] = fma(a[i], b[i], c[i]);\n\
        }\n";
    // A signalling-NaN pattern, a quiet NaN, and the fma inputs the CTS
    // found on a GPU: a product far below a c just above the smallest
    // normal.
    let a = [
        f64::from_bits(0x7ff0_0000_0000_0200),
        f64::NAN,
        -f64::from_bits(0x3630_ffff_ffff_fd57),
        f64::from_bits(0x0010_0000_0000_0001),
        f64::from_bits(0x0452_6fff_ffff_f881),
        f64::from_bits(0x3ff0_0000_0000_0001),
    ];
    let b = [
        1.0,
        1.0,
        f64::from_bits(0x055f_0fff_ffff_fa4d),
        0.5,
        -f64::from_bits(0x36ca_2000_0000_0089),
        f64::from_bits(0x0010_0000_0000_0000),
    ];
    let c = [
        0.0,
        0.0,
        -f64::from_bits(0x0016_d000_0000_05de),
        -f64::from_bits(0x0008_0000_0000_0000),
        f64::from_bits(0x000d_7000_0000_0561),
        -f64::from_bits(0x0000_0000_0000_0001),
    ];
    let k = gpu.kernel(src, "k");
    let (da, db, dc) = (gpu.buffer(&a), gpu.buffer(&b), gpu.buffer(&c));
    let (drs, df) = (gpu.zeroed::<f64>(a.len()), gpu.zeroed::<f64>(a.len()));
    k.arg_buffer(0, &da)
        .arg_buffer(1, &db)
        .arg_buffer(2, &dc)
        .arg_buffer(3, &drs)
        .arg_buffer(4, &df);
    gpu.run(&k, &[a.len()], None, None);
    let rs = gpu.read::<f64>(&drs);
    assert!(rs[0].is_nan() && rs[1].is_nan(), "rsqrt(NaN) = {rs:?}");
    let f = gpu.read::<f64>(&df);
    for i in 2..a.len() {
        let want = a[i].mul_add(b[i], c[i]);
        assert!(
            same(f[i], want),
            "fma({:e}, {:e}, {:e}) = {:e}, want {want:e}",
            a[i],
            b[i],
            c[i],
            f[i]
        );
    }
}

#[test]
fn half_functions_with_an_int_argument() {
    let gpu = Gpu::new();
    if !has_extension(&gpu, "cl_khr_fp16") {
        return;
    }
    let src = "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n\
        __kernel void k(__global const half *x, __global const int *n,\n\
        __global half *ld, __global half *pw, __global half *rt, __global int *lg) {\n\
          size_t i = get_global_id(0);\n\
          ld[i] = ldexp(x[i], n[i]);\n\
          pw[i] = pown(x[i], n[i]);\n\
          rt[i] = rootn(x[i], n[i]);\n\
          lg[i] = ilogb(x[i]);\n\
        }\n";
    // (x, n) and the wanted ldexp, pown, rootn, ilogb.
    let half = |v: f64| -> u16 {
        (0..=u16::MAX)
            .find(|&h| same(half_to_f64(h), v))
            .expect("exact half")
    };
    let cases: [(f64, i32, f64, f64, f64, i32); 6] = [
        (0.0, 0, 0.0, 1.0, f64::NAN, i32::MIN),
        (-0.0, 0, -0.0, 1.0, f64::NAN, i32::MIN),
        (1.5, 3, 12.0, 3.375, 1.1447142425533319, 0),
        (8.0, 3, 64.0, 512.0, 2.0, 3),
        (0.75, -2, 0.1875, 1.7777777777777777, 1.1547005383792515, -1),
        (2.0, 20, f64::INFINITY, f64::INFINITY, 1.0352649238413776, 1),
    ];
    let xs: Vec<u16> = cases.iter().map(|c| half(c.0)).collect();
    let ns: Vec<i32> = cases.iter().map(|c| c.1).collect();
    let k = gpu.kernel(src, "k");
    let (dx, dn) = (gpu.buffer(&xs), gpu.buffer(&ns));
    let outs: Vec<_> = (0..3).map(|_| gpu.zeroed::<u16>(xs.len())).collect();
    let dlg = gpu.zeroed::<i32>(xs.len());
    k.arg_buffer(0, &dx)
        .arg_buffer(1, &dn)
        .arg_buffer(2, &outs[0])
        .arg_buffer(3, &outs[1])
        .arg_buffer(4, &outs[2])
        .arg_buffer(5, &dlg);
    gpu.run(&k, &[xs.len()], None, None);
    let got: Vec<Vec<f64>> = outs
        .iter()
        .map(|b| gpu.read::<u16>(b).into_iter().map(half_to_f64).collect())
        .collect();
    let lg = gpu.read::<i32>(&dlg);
    for (i, c) in cases.iter().enumerate() {
        // Within a half ulp of the exact value (pown and rootn are 16 ulp
        // functions for half; these cases are exact or nearly so).
        let close = |got: f64, want: f64| {
            same(got, want)
                || (want.is_finite() && (got - want).abs() <= want.abs() * 2f64.powi(-10))
        };
        assert!(
            same(got[0][i], c.2),
            "ldexp({}, {}) = {}",
            c.0,
            c.1,
            got[0][i]
        );
        assert!(
            close(got[1][i], c.3),
            "pown({}, {}) = {}",
            c.0,
            c.1,
            got[1][i]
        );
        assert!(
            close(got[2][i], c.4),
            "rootn({}, {}) = {}",
            c.0,
            c.1,
            got[2][i]
        );
        assert_eq!(lg[i], c.5, "ilogb({})", c.0);
    }
}

/// `v` rounded onto half's grid in `mode` ("rte", "rtz", "rtp", "rtn"),
/// with IEEE overflow: to infinity or to the largest half as the mode says.
fn host_half(v: f64, mode: &str) -> f64 {
    if v.is_nan() || v.is_infinite() || v == 0.0 {
        return v;
    }
    let a = v.abs();
    let e = (a.log2().floor() as i32).max(-14);
    let quantum = 2f64.powi(e - 10);
    let t = a / quantum;
    let up = (mode == "rtp" && v > 0.0) || (mode == "rtn" && v < 0.0);
    let n = match mode {
        "rte" => t.round_ties_even(),
        _ if up => t.ceil(),
        _ => t.trunc(),
    };
    let r = n * quantum;
    let r = if r > 65504.0 {
        if mode == "rte" || up {
            f64::INFINITY
        } else {
            65504.0
        }
    } else {
        r
    };
    r.copysign(v)
}

#[test]
fn conversions_to_half_in_every_rounding_mode() {
    let gpu = Gpu::new();
    if !has_extension(&gpu, "cl_khr_fp16") {
        return;
    }
    let fp64 = has_extension(&gpu, "cl_khr_fp64");
    let mut rng = XorShift::new(0xdeadbeef);
    // Values of every source type as f64 (exact for all of them but the
    // largest longs, which are far beyond half's range either way).
    let sources: [(&str, Vec<f64>); 7] = [
        ("ushort", (0..=u16::MAX).map(f64::from).collect()),
        ("short", (i16::MIN..=i16::MAX).map(f64::from).collect()),
        (
            "int",
            (0..8192)
                .map(|_| f64::from(rng.next_u64() as i32 >> (rng.next_u64() % 24)))
                .collect(),
        ),
        (
            "uint",
            (0..8192)
                .map(|_| f64::from(rng.next_u64() as u32 >> (rng.next_u64() % 24)))
                .collect(),
        ),
        (
            "long",
            (0..4096)
                .map(|_| (rng.next_u64() as i64 >> (rng.next_u64() % 56)) as f64)
                .collect(),
        ),
        ("float", {
            let mut v: Vec<f64> = (0..16384)
                .map(|_| {
                    f64::from(f32::from_bits(
                        0x3000_0000 + (rng.next_u64() as u32 % 0x1800_0000),
                    ))
                })
                .collect();
            v.extend([
                65504.0, 65519.99, 65520.0, -65520.0, 1e-8, -1e-8, 2049.0, 0.0, -0.0,
            ]);
            v.iter().flat_map(|&x| [x, -x]).collect()
        }),
        (
            "double",
            (0..8192)
                .map(|_| {
                    f64::from_bits(0x3e00_0000_0000_0000 + rng.next_u64() % 0x0300_0000_0000_0000)
                })
                .collect(),
        ),
    ];
    for (ty, values) in sources {
        if ty == "double" && !fp64 {
            continue;
        }
        let src = format!(
            "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n\
             {}\
             __kernel void k(__global const {ty} *x, __global half *out, uint n) {{\n\
               size_t i = get_global_id(0);\n\
               out[i] = convert_half(x[i]);\n\
               out[n + i] = convert_half_rte(x[i]);\n\
               out[2 * n + i] = convert_half_rtz(x[i]);\n\
               vstore2(convert_half2_rtp(({ty}2)(x[i], x[i])), 0, out + 3 * n + 2 * i);\n\
               out[5 * n + i] = convert_half_rtn(x[i]);\n\
             }}\n",
            if ty == "double" {
                "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
            } else {
                ""
            }
        );
        let bytes: Vec<u8> = values
            .iter()
            .flat_map(|&v| match ty {
                "ushort" => (v as u16).to_le_bytes().to_vec(),
                "short" => (v as i16).to_le_bytes().to_vec(),
                "int" => (v as i32).to_le_bytes().to_vec(),
                "uint" => (v as u32).to_le_bytes().to_vec(),
                "long" => (v as i64).to_le_bytes().to_vec(),
                "float" => (v as f32).to_le_bytes().to_vec(),
                _ => v.to_le_bytes().to_vec(),
            })
            .collect();
        let n = values.len();
        let k = gpu.kernel(&src, "k");
        let dx = gpu.buffer(&bytes);
        let dout = gpu.zeroed::<u16>(6 * n);
        k.arg_buffer(0, &dx).arg_buffer(1, &dout).arg(2, n as u32);
        gpu.run(&k, &[n], None, None);
        let out = gpu.read::<u16>(&dout);
        for (i, &v) in values.iter().enumerate() {
            let v = if ty == "float" {
                f64::from(v as f32)
            } else {
                v
            };
            for (slot, mode) in [(0, "rte"), (1, "rte"), (2, "rtz"), (3, "rtp"), (5, "rtn")] {
                let at = if slot == 3 {
                    3 * n + 2 * i
                } else {
                    slot * n + i
                };
                let got = half_to_f64(out[at]);
                let want = host_half(v, mode);
                assert!(
                    same(got, want),
                    "convert_half_{mode}(({ty}){v:e}) = {got:e}, want {want:e}"
                );
            }
        }
    }
}
