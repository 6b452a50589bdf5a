//! `convert_<type>[_sat][_rte|_rtz|_rtp|_rtn]` (OpenCL C section 6.4.3)
//! for every pair of scalar types the device has, as scalars and as one
//! vector width per pair, on edge values and a large random sample, checked
//! bit for bit against a reference computed here on the host.

mod common;

use common::*;
use ferrocl_runtime::cl::{CL_DEVICE_DOUBLE_FP_CONFIG, CL_DEVICE_SINGLE_FP_CONFIG, CL_FP_DENORM};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Ty {
    Char,
    UChar,
    Short,
    UShort,
    Int,
    UInt,
    Long,
    ULong,
    Float,
    Double,
}

const TYPES: [Ty; 10] = [
    Ty::Char,
    Ty::UChar,
    Ty::Short,
    Ty::UShort,
    Ty::Int,
    Ty::UInt,
    Ty::Long,
    Ty::ULong,
    Ty::Float,
    Ty::Double,
];

impl Ty {
    fn name(self) -> &'static str {
        match self {
            Ty::Char => "char",
            Ty::UChar => "uchar",
            Ty::Short => "short",
            Ty::UShort => "ushort",
            Ty::Int => "int",
            Ty::UInt => "uint",
            Ty::Long => "long",
            Ty::ULong => "ulong",
            Ty::Float => "float",
            Ty::Double => "double",
        }
    }

    fn size(self) -> usize {
        match self {
            Ty::Char | Ty::UChar => 1,
            Ty::Short | Ty::UShort => 2,
            Ty::Int | Ty::UInt | Ty::Float => 4,
            Ty::Long | Ty::ULong | Ty::Double => 8,
        }
    }

    fn is_float(self) -> bool {
        matches!(self, Ty::Float | Ty::Double)
    }

    fn is_signed(self) -> bool {
        matches!(self, Ty::Char | Ty::Short | Ty::Int | Ty::Long)
    }

    /// The smallest and largest value of an integer type.
    fn range(self) -> (i128, i128) {
        let bits = 8 * self.size() as u32;
        if self.is_signed() {
            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        } else {
            (0, (1i128 << bits) - 1)
        }
    }
}

#[derive(Clone, Copy, Debug)]
enum Value {
    Int(i128),
    F32(f32),
    F64(f64),
}

fn decode(t: Ty, b: &[u8]) -> Value {
    let mut raw = [0u8; 16];
    raw[..t.size()].copy_from_slice(&b[..t.size()]);
    match t {
        Ty::Float => Value::F32(f32::from_le_bytes(raw[..4].try_into().unwrap())),
        Ty::Double => Value::F64(f64::from_le_bytes(raw[..8].try_into().unwrap())),
        _ => {
            let u = u128::from_le_bytes(raw);
            let bits = 8 * t.size() as u32;
            let v = if t.is_signed() {
                // Sign-extend from the type's width.
                ((u << (128 - bits)) as i128) >> (128 - bits)
            } else {
                u as i128
            };
            Value::Int(v)
        }
    }
}

/// An integer value stored in `t`, wrapped modulo 2^bits as C does.
fn encode_int(t: Ty, v: i128) -> Vec<u8> {
    v.to_le_bytes()[..t.size()].to_vec()
}

/// The conversions of one destination type: every rounding mode, then with
/// `_sat` too for integer destinations (the spec forbids `_sat` for floats).
fn variants(dst: Ty) -> Vec<(bool, Mode)> {
    let mut v: Vec<(bool, Mode)> = MODES.iter().map(|&m| (false, m)).collect();
    if !dst.is_float() {
        v.extend(MODES.iter().map(|&m| (true, m)));
    }
    v
}

/// Rounds the exact integer `x` to f32 in `mode`.
fn int_to_f32(x: i128, mode: Mode) -> f32 {
    let f = x as f32;
    let back = f as i128;
    match mode {
        Mode::Rtz if back.abs() > x.abs() => {
            if f > 0.0 {
                f.next_down()
            } else {
                f.next_up()
            }
        }
        Mode::Rtp if back < x => f.next_up(),
        Mode::Rtn if back > x => f.next_down(),
        _ => f,
    }
}

fn int_to_f64(x: i128, mode: Mode) -> f64 {
    let f = x as f64;
    let back = f as i128;
    match mode {
        Mode::Rtz if back.abs() > x.abs() => {
            if f > 0.0 {
                f.next_down()
            } else {
                f.next_up()
            }
        }
        Mode::Rtp if back < x => f.next_up(),
        Mode::Rtn if back > x => f.next_down(),
        _ => f,
    }
}

fn f64_to_f32(x: f64, mode: Mode) -> f32 {
    let f = x as f32;
    if x.is_nan() {
        return f;
    }
    let back = f as f64;
    match mode {
        Mode::Rtz if back.abs() > x.abs() => {
            if f > 0.0 {
                f.next_down()
            } else {
                f.next_up()
            }
        }
        Mode::Rtp if back < x => f.next_up(),
        Mode::Rtn if back > x => f.next_down(),
        _ => f,
    }
}

/// What `convert_<dst>[_sat]<mode>(v)` must give, or `None` where the
/// result is implementation-defined (out-of-range conversion to an
/// integer type without `_sat`).
fn reference(v: Value, dst: Ty, sat: bool, mode: Mode) -> Option<Value> {
    let mode_f = if mode == Mode::Default {
        Mode::Rte
    } else {
        mode
    };
    match dst {
        Ty::Float => Some(Value::F32(match v {
            Value::Int(x) => int_to_f32(x, mode_f),
            Value::F32(f) => f,
            Value::F64(d) => f64_to_f32(d, mode_f),
        })),
        Ty::Double => Some(Value::F64(match v {
            Value::Int(x) => int_to_f64(x, mode_f),
            Value::F32(f) => f as f64,
            Value::F64(d) => d,
        })),
        _ => {
            let (lo, hi) = dst.range();
            let x = match v {
                Value::Int(x) => x,
                Value::F32(f) => return float_to_int(f as f64, lo, hi, sat, mode),
                Value::F64(d) => return float_to_int(d, lo, hi, sat, mode),
            };
            if sat {
                Some(Value::Int(x.clamp(lo, hi)))
            } else {
                // Wrap modulo 2^bits into the destination's range.
                let span = hi - lo + 1;
                Some(Value::Int((x - lo).rem_euclid(span) + lo))
            }
        }
    }
}

fn float_to_int(d: f64, lo: i128, hi: i128, sat: bool, mode: Mode) -> Option<Value> {
    if d.is_nan() {
        return sat.then_some(Value::Int(0));
    }
    // Float to integer conversions round towards zero by default.
    let r = match mode {
        Mode::Default | Mode::Rtz => d.trunc(),
        Mode::Rte => d.round_ties_even(),
        Mode::Rtp => d.ceil(),
        Mode::Rtn => d.floor(),
    };
    // lo and hi + 1 are powers of two (or 0), so exact as doubles.
    if r < lo as f64 || r >= (hi + 1) as f64 {
        return sat.then_some(Value::Int(if r < 0.0 { lo } else { hi }));
    }
    Some(Value::Int(r as i128))
}

/// Edge values of the real line that conversions must get right: integers
/// around every type boundary and every power of two, halves (ties), and the
/// special values.
fn float_edges() -> Vec<f64> {
    let mut v = vec![
        0.0,
        0.5,
        1.0,
        1.5,
        2.5,
        3.5,
        0.49999999999999994,
        0.49999997,
        100.5,
        101.5,
        1e-300,
        1e-40,
        1e-45,
        1.1754942e-38,
        1.1754944e-38,
        f32::MAX as f64,
        f64::MAX,
        f64::MIN_POSITIVE,
        5e-324,
        3.4028235677973366e38,
        3.402823669209385e38,
        f64::INFINITY,
    ];
    for k in 0..=66 {
        let p = 2f64.powi(k);
        v.extend([p, p - 1.0, p + 1.0, p - 0.5, p + 0.5, p - 0.25, p + 0.75]);
    }
    // 2^24 + 1, 2^53 + 1 and friends: where int to float rounding ties.
    for k in [24, 25, 31, 32, 53, 54, 62, 63] {
        let p = 2i128.pow(k);
        v.extend([(p + 1) as f64, (p + 3) as f64]);
    }
    let mut all: Vec<f64> = v.iter().flat_map(|&x| [x, -x]).collect();
    all.push(f64::NAN);
    all
}

fn int_edges() -> Vec<i128> {
    let mut v = vec![0i128, 1, -1, 2, -2, 127, 128, 255, 256];
    for k in 0..=64 {
        let p = 1i128 << k;
        v.extend([p, p - 1, p + 1, -p, -p + 1, -p - 1]);
    }
    // Integers whose float neighbours are a tie or one step either side.
    for (k, w) in [
        (25, 24),
        (26, 24),
        (32, 24),
        (54, 53),
        (60, 53),
        (63, 24),
        (64, 53),
    ] {
        let p = 1i128 << k;
        let half_ulp = 1i128 << (k - w - 1);
        v.extend([
            p - half_ulp,
            p - half_ulp + 1,
            p - half_ulp - 1,
            p + 2 * half_ulp,
            p + 3 * half_ulp,
            -(p - half_ulp),
            -(p + 3 * half_ulp),
        ]);
    }
    v
}

/// The inputs for source type `t`: its edge values and `random` random
/// ones, as raw bytes, padded to a multiple of every vector width.
fn inputs(t: Ty, random: usize, seed: u32) -> Vec<u8> {
    let mut rng = XorShift::new(seed);
    let mut out = Vec::new();
    match t {
        Ty::Float => {
            for x in float_edges() {
                let f = x as f32;
                for g in [f, f.next_up(), f.next_down()] {
                    out.extend(g.to_le_bytes());
                }
            }
            for b in [1u32, 0x807f_ffff, 0x0040_0000, 0x7fc0_0001, 0xffc0_0000] {
                out.extend(b.to_le_bytes());
            }
            for i in 0..random {
                // Half raw bit patterns, half values of every magnitude an
                // integer type holds (random exponent, random mantissa).
                let b = if i % 2 == 0 {
                    rng.next_u32()
                } else {
                    let e = 127 - 3 + rng.next_u32() % 70;
                    (rng.next_u32() & 0x807f_ffff) | (e << 23)
                };
                out.extend(b.to_le_bytes());
            }
        }
        Ty::Double => {
            for x in float_edges() {
                for g in [x, x.next_up(), x.next_down(), x as f32 as f64] {
                    out.extend(g.to_le_bytes());
                }
            }
            for i in 0..random {
                let hi = rng.next_u32() as u64;
                let lo = rng.next_u32() as u64;
                let b = if i % 2 == 0 {
                    (hi << 32) | lo
                } else {
                    let e = 1023 - 3 + (hi % 70);
                    (((hi << 32) | lo) & 0x800f_ffff_ffff_ffff) | (e << 52)
                };
                out.extend(b.to_le_bytes());
            }
        }
        _ => {
            for x in int_edges() {
                out.extend(encode_int(t, x));
            }
            for i in 0..random {
                let hi = rng.next_u32() as u64;
                let lo = rng.next_u32() as u64;
                let mut x = (hi << 32) | lo;
                // Also small magnitudes, where the high bits are all equal.
                if i % 3 == 1 {
                    x = ((x as i64) >> (hi % 64)) as u64;
                }
                out.extend(encode_int(t, x as i64 as i128));
            }
        }
    }
    let n = out.len() / t.size();
    let padded = n.div_ceil(48) * 48;
    let first = out[..t.size()].to_vec();
    for _ in n..padded {
        out.extend(&first);
    }
    out
}

fn is_subnormal(v: Value) -> bool {
    match v {
        Value::F32(f) => f.is_subnormal(),
        Value::F64(d) => d.is_subnormal(),
        Value::Int(_) => false,
    }
}

fn is_zero(v: Value) -> bool {
    match v {
        Value::F32(f) => f == 0.0,
        Value::F64(d) => d == 0.0,
        Value::Int(_) => false,
    }
}

/// Bit-exact equality, any NaN matching any NaN.
fn same(a: Value, b: Value) -> bool {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::F32(x), Value::F32(y)) => x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()),
        (Value::F64(x), Value::F64(y)) => x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()),
        _ => false,
    }
}

struct Device {
    fp64: bool,
    /// Whether float and double keep denormals (CL_FP_DENORM); without it
    /// a denormal input or result may be flushed to zero.
    float_denorms: bool,
    double_denorms: bool,
}

fn device(gpu: &Gpu) -> Device {
    let fp64 = gpu
        .device_string(ferrocl_runtime::cl::CL_DEVICE_EXTENSIONS)
        .split_whitespace()
        .any(|e| e == "cl_khr_fp64");
    let single: u64 = gpu.device_info(CL_DEVICE_SINGLE_FP_CONFIG);
    let double: u64 = if fp64 {
        gpu.device_info(CL_DEVICE_DOUBLE_FP_CONFIG)
    } else {
        0
    };
    Device {
        fp64,
        float_denorms: single & CL_FP_DENORM != 0,
        double_denorms: double & CL_FP_DENORM != 0,
    }
}

fn program_source(src: Ty, dst: Ty, width: usize) -> String {
    let (s, d) = (src.name(), dst.name());
    let vars = variants(dst);
    let mut text = String::new();
    if src == Ty::Double || dst == Ty::Double {
        text.push_str("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n");
    }
    text.push_str(&format!(
        "__kernel void scalar(__global const {s} *in, __global {d} *out) {{\n\
         size_t i = get_global_id(0);\n\
         {s} x = in[i];\n\
         __global {d} *o = out + {} * i;\n",
        vars.len()
    ));
    for (k, (sat, mode)) in vars.iter().enumerate() {
        let sat = if *sat { "_sat" } else { "" };
        text.push_str(&format!("o[{k}] = convert_{d}{sat}{}(x);\n", mode.suffix()));
    }
    text.push_str("}\n");
    text.push_str(&format!(
        "__kernel void vector(__global const {s} *in, __global {d} *out, uint n) {{\n\
         size_t i = get_global_id(0);\n\
         {s}{width} x = vload{width}(i, in);\n"
    ));
    for (k, (sat, mode)) in vars.iter().enumerate() {
        let sat = if *sat { "_sat" } else { "" };
        text.push_str(&format!(
            "vstore{width}(convert_{d}{width}{sat}{}(x), i, out + {k} * n);\n",
            mode.suffix()
        ));
    }
    text.push_str("}\n");
    text
}

/// Runs every conversion from `src`; returns one line per conversion that
/// gave a wrong result.
fn check_from(src: Ty) {
    let gpu = Gpu::new();
    let dev = device(&gpu);
    if src == Ty::Double && !dev.fp64 {
        return;
    }
    let seed = 1 + TYPES.iter().position(|&t| t == src).unwrap() as u32;
    let input = inputs(src, 20_000, seed);
    let n = input.len() / src.size();
    let values: Vec<Value> = input.chunks(src.size()).map(|b| decode(src, b)).collect();
    let din = gpu.buffer(&input);
    let mut failures = Vec::new();
    for (di, &dst) in TYPES.iter().enumerate() {
        if dst == Ty::Double && !dev.fp64 {
            continue;
        }
        let vars = variants(dst);
        let width = [2usize, 3, 4, 8, 16][(seed as usize + di) % 5];
        let program = gpu.program(&program_source(src, dst, width), "");
        let dout = gpu.zeroed::<u8>(vars.len() * n * dst.size());
        let k = program.kernel("scalar");
        k.arg_buffer(0, &din).arg_buffer(1, &dout);
        gpu.run(&k, &[n], None, None);
        let scalar = gpu.read::<u8>(&dout);
        let dvec = gpu.zeroed::<u8>(vars.len() * n * dst.size());
        let k = program.kernel("vector");
        k.arg_buffer(0, &din).arg_buffer(1, &dvec).arg(2, n as u32);
        gpu.run(&k, &[n / width], None, None);
        let vector = gpu.read::<u8>(&dvec);
        for (vi, &(sat, mode)) in vars.iter().enumerate() {
            let name = format!(
                "convert_{}{}{}",
                dst.name(),
                if sat { "_sat" } else { "" },
                mode.suffix()
            );
            let mut bad = 0;
            let mut first = String::new();
            for (j, &v) in values.iter().enumerate() {
                let Some(want) = reference(v, dst, sat, mode) else {
                    continue;
                };
                let sz = dst.size();
                let s_at = (j * vars.len() + vi) * sz;
                let v_at = (vi * n + j) * sz;
                let results = [
                    ("scalar", decode(dst, &scalar[s_at..s_at + sz])),
                    ("vector", decode(dst, &vector[v_at..v_at + sz])),
                ];
                // Without denormal support a denormal source or result
                // may be flushed to zero.
                let flushable = |x: Value| {
                    is_subnormal(x)
                        && match x {
                            Value::F32(_) => !dev.float_denorms,
                            _ => !dev.double_denorms,
                        }
                };
                for (form, got) in results {
                    let ok = same(got, want)
                        || ((flushable(v) || flushable(want)) && is_zero(got))
                        || (flushable(v) && !dst.is_float() && same(got, Value::Int(0)));
                    if !ok {
                        bad += 1;
                        if first.is_empty() {
                            first = format!("{form} {v:?} gave {got:?}, want {want:?}");
                        }
                    }
                }
            }
            if bad > 0 {
                failures.push(format!(
                    "{name}({}): {bad} of {} wrong; first: {first}",
                    src.name(),
                    2 * n
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} conversions from {} wrong:\n{}",
        failures.len(),
        src.name(),
        failures.join("\n")
    );
}

#[test]
fn from_char() {
    check_from(Ty::Char);
}

#[test]
fn from_uchar() {
    check_from(Ty::UChar);
}

#[test]
fn from_short() {
    check_from(Ty::Short);
}

#[test]
fn from_ushort() {
    check_from(Ty::UShort);
}

#[test]
fn from_int() {
    check_from(Ty::Int);
}

#[test]
fn from_uint() {
    check_from(Ty::UInt);
}

#[test]
fn from_long() {
    check_from(Ty::Long);
}

#[test]
fn from_ulong() {
    check_from(Ty::ULong);
}

#[test]
fn from_float() {
    check_from(Ty::Float);
}

#[test]
fn from_double() {
    check_from(Ty::Double);
}

#[test]
fn sat_is_refused_for_float_destinations() {
    let gpu = Gpu::new();
    let src = "__kernel void k(__global int *in, __global float *out) {\n\
               out[0] = convert_float_sat(in[0]);\n}\n";
    assert!(gpu.try_program(src, "").is_err());
}

#[test]
fn host_reference_self_check() {
    // The reference itself, on cases worked by hand.
    let r = |v, d, s, m| reference(v, d, s, m).unwrap();
    assert!(same(
        r(Value::Int(16_777_217), Ty::Float, false, Mode::Rtp),
        Value::F32(16_777_218.0)
    ));
    assert!(same(
        r(Value::Int(16_777_217), Ty::Float, false, Mode::Default),
        Value::F32(16_777_216.0)
    ));
    assert!(same(
        r(Value::Int(-16_777_217), Ty::Float, false, Mode::Rtz),
        Value::F32(-16_777_216.0)
    ));
    assert!(same(
        r(Value::F64(1e300), Ty::Float, false, Mode::Rtz),
        Value::F32(f32::MAX)
    ));
    assert!(same(
        r(Value::F32(-1.5), Ty::Int, true, Mode::Rte),
        Value::Int(-2)
    ));
    assert!(same(
        r(Value::F32(f32::NAN), Ty::UChar, true, Mode::Default),
        Value::Int(0)
    ));
    assert!(same(
        r(Value::Int(-1), Ty::ULong, false, Mode::Default),
        Value::Int(u64::MAX as i128)
    ));
    assert!(same(
        r(Value::Int(-1), Ty::ULong, true, Mode::Default),
        Value::Int(0)
    ));
    assert!(same(
        r(Value::Int(u64::MAX as i128), Ty::Char, true, Mode::Default),
        Value::Int(127)
    ));
    assert!(reference(Value::F32(300.0), Ty::UChar, false, Mode::Default).is_none());
}
