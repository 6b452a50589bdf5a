//! OpenCL C 6.15.3 (integer functions) and 6.15.1 (work-item functions),
//! each compared with a host reference over inputs that reach the edges.

mod common;
mod spec_support;

use spec_support::*;

fn hadd(a: i32, b: i32) -> i32 {
    ((a as i64 + b as i64) >> 1) as i32
}

#[test]
fn integer_functions_on_int() {
    let rows: &[Row<i32, i32>] = &[
        row("abs", "out[i] = (int)abs(x);", |x| x.unsigned_abs() as i32),
        row("abs_diff", "out[i] = (int)abs_diff(x, 1000);", |x| (x as i64 - 1000).unsigned_abs() as u32 as i32),
        row("add_sat", "out[i] = add_sat(x, 0x40000000);", |x| x.saturating_add(0x4000_0000)),
        row("sub_sat", "out[i] = sub_sat(x, 0x40000000);", |x| x.saturating_sub(0x4000_0000)),
        row("hadd", "out[i] = hadd(x, 0x7ffffff0);", |x| hadd(x, 0x7fff_fff0)),
        row("rhadd", "out[i] = rhadd(x, -3);", |x| ((x as i64 - 3 + 1) >> 1) as i32),
        row("clamp", "out[i] = clamp(x, -100, 100);", |x| x.clamp(-100, 100)),
        row("clz", "out[i] = clz(x);", |x| x.leading_zeros() as i32),
        row("ctz", "out[i] = ctz(x);", |x| x.trailing_zeros() as i32),
        row("popcount", "out[i] = popcount(x);", |x| x.count_ones() as i32),
        row("mad_hi", "out[i] = mad_hi(x, 0x12345678, 5);", |x| ((x as i64 * 0x1234_5678) >> 32) as i32 + 5),
        row("mul_hi", "out[i] = mul_hi(x, x);", |x| ((x as i64 * x as i64) >> 32) as i32),
        row("mad_sat", "out[i] = mad_sat(x, 3, 7);", |x| (x as i64 * 3 + 7).clamp(i32::MIN as i64, i32::MAX as i64) as i32),
        row("max min", "out[i] = max(x, 5) + min(x, -5);", |x| x.max(5).wrapping_add(x.min(-5))),
        row("rotate", "out[i] = rotate(x, 7);", |x| x.rotate_left(7)),
        row("rotate by negative", "out[i] = rotate(x, -3);", |x| x.rotate_left(29)),
        row("mad24", "out[i] = mad24(x & 0x7fffff, 3, -1);", |x| (x & 0x7f_ffff) * 3 - 1),
        // Floating scalars beside integer arguments take the integer
        // overload, converted toward zero as C converts them (OpenCV's
        // Hough transform indexes with `mad24(p.y, step, p.x + offset)`).
        row("mad24 float args", "float f = (float)(x & 0xffff) + 0.75f; out[i] = mad24(f, 3, -f);", |x| (x & 0xffff) * 2),
        row("mul24 float and uint", "out[i] = (int)mul24((float)(x & 0xff) + 0.5f, 2u);", |x| (x & 0xff) * 2),
        row("mul24", "out[i] = mul24((x << 8) >> 8, 100);", |x| ((x << 8) >> 8).wrapping_mul(100)),
        row("upsample short", "out[i] = upsample((short)x, (ushort)(x >> 16));", |x| ((x as i16 as i32) << 16) | ((x >> 16) as u16 as i32)),
        row("max of vectors", "int4 v = max((int4)(x), (int4)(0, 1, 2, 3)); out[i] = v.x + v.w;", |x| x.max(0).wrapping_add(x.max(3))),
        row("clz of char", "out[i] = clz((char)x);", |x| (x as u8).leading_zeros() as i32),
        row("popcount of ulong", "out[i] = (int)popcount(((ulong)(uint)x << 32) | (uint)x);", |x| 2 * x.count_ones() as i32),
        row("abs of vector", "uint2 a = abs((int2)(x, -7)); out[i] = (int)(a.x + a.y);", |x| x.unsigned_abs().wrapping_add(7) as i32),
        row("clamp of vector with scalar bounds", "int4 v = clamp((int4)(x, -x, 0, 1000), -10, 10); out[i] = v.x + v.y * 100 + v.w * 10000;", |x| x.clamp(-10, 10) + 100 * x.wrapping_neg().clamp(-10, 10) + 100_000),
        row("add_sat of uchar", "out[i] = add_sat((uchar)x, (uchar)200);", |x| (x as u8).saturating_add(200) as i32),
        row("sub_sat of ushort", "out[i] = sub_sat((ushort)x, (ushort)1000);", |x| (x as u16).saturating_sub(1000) as i32),
        row("mul_hi of uint", "out[i] = (int)mul_hi((uint)x, 0xdeadbeefu);", |x| (((x as u32 as u64) * 0xdead_beef) >> 32) as i32),
        row("hadd of uint", "out[i] = (int)hadd((uint)x, 0xffffffffu);", |x| (((x as u32 as u64) + 0xffff_ffff) >> 1) as u32 as i32),
        row("rotate of uchar", "out[i] = rotate((uchar)x, (uchar)3);", |x| (x as u8).rotate_left(3) as i32),
        row("long mul_hi", "long a = (long)x << 20; out[i] = (int)mul_hi(a, a);", |x| { let a = (x as i64) << 20; ((a as i128 * a as i128) >> 64) as i32 }),
    ];
    check_rows("int", "int", &int_inputs(), rows, "", 0.0);
}

#[test]
fn work_item_functions() {
    let gpu = common::Gpu::new();
    let src = r#"
        kernel void k(global uint *out) {
            size_t g = get_global_id(0) + get_global_size(0) * get_global_id(1);
            global uint *r = out + g * 10;
            r[0] = get_work_dim();
            r[1] = get_global_size(0);
            r[2] = get_global_size(1);
            r[3] = get_local_size(0);
            r[4] = get_num_groups(1);
            r[5] = get_group_id(0);
            r[6] = get_local_id(1);
            r[7] = get_global_offset(0);
            r[8] = get_global_linear_id();
            r[9] = get_local_linear_id();
        }"#;
    let program = match gpu.try_program(src, "-cl-std=CL2.0") {
        Ok(p) => p,
        Err((_, log)) => panic!("build failed:\n{log}"),
    };
    let k = program.kernel("k");
    let out = gpu.zeroed::<u32>(8 * 6 * 10);
    k.arg_buffer(0, &out);
    gpu.run(&k, &[8, 6], Some(&[4, 3]), None);
    let got = gpu.read::<u32>(&out);
    let mut want = Vec::new();
    for y in 0..6u32 {
        for x in 0..8u32 {
            let (lx, ly) = (x % 4, y % 3);
            want.extend_from_slice(&[2, 8, 6, 4, 2, x / 4, ly, 0, y * 8 + x, ly * 4 + lx]);
        }
    }
    common::assert_same(&got, &want, "work-item functions");
}

/// Every integer type: name, width in bits, signedness.
const TYPES: &[(&str, u32, bool)] = &[
    ("char", 8, true),
    ("uchar", 8, false),
    ("short", 16, true),
    ("ushort", 16, false),
    ("int", 32, true),
    ("uint", 32, false),
    ("long", 64, true),
    ("ulong", 64, false),
];

fn range(bits: u32, signed: bool) -> (i128, i128) {
    if signed {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

/// `v` reduced modulo 2^bits into the type's range.
fn wrap(v: i128, bits: u32, signed: bool) -> i128 {
    let (lo, hi) = range(bits, signed);
    (v - lo).rem_euclid(hi - lo + 1) + lo
}

/// The 64 bits that `(long)` of a value of the type holds.
fn as_long(v: i128) -> i64 {
    v as i64
}

type Binary = fn(i128, i128, u32, bool) -> i128;

#[test]
fn integer_functions_on_every_type() {
    let functions: &[(&str, &str, Binary)] = &[
        ("abs", "abs(a)", |a, _, _, _| a.abs()),
        ("abs_diff", "abs_diff(a, b)", |a, b, _, _| (a - b).abs()),
        ("add_sat", "add_sat(a, b)", |a, b, n, s| {
            let (lo, hi) = range(n, s);
            (a + b).clamp(lo, hi)
        }),
        ("sub_sat", "sub_sat(a, b)", |a, b, n, s| {
            let (lo, hi) = range(n, s);
            (a - b).clamp(lo, hi)
        }),
        ("hadd", "hadd(a, b)", |a, b, _, _| (a + b) >> 1),
        ("rhadd", "rhadd(a, b)", |a, b, _, _| (a + b + 1) >> 1),
        ("max", "max(a, b)", |a, b, _, _| a.max(b)),
        ("min", "min(a, b)", |a, b, _, _| a.min(b)),
        ("mul_hi", "mul_hi(a, b)", |a, b, n, s| {
            if s {
                (a * b) >> n
            } else {
                ((a as u128 * b as u128) >> n) as i128
            }
        }),
        ("mad_sat", "mad_sat(a, b, (T)5)", |a, b, n, s| {
            let (lo, hi) = range(n, s);
            match a.checked_mul(b).and_then(|p| p.checked_add(5)) {
                Some(v) => v.clamp(lo, hi),
                None => hi,
            }
        }),
        ("clamp", "clamp(a, (T)10, (T)100)", |a, _, _, _| {
            a.clamp(10, 100)
        }),
        ("rotate", "rotate(a, b)", |a, b, n, s| {
            let mask = (1i128 << n) - 1;
            let ua = a & mask;
            let r = (b.rem_euclid(n as i128)) as u32;
            let v = if r == 0 {
                ua
            } else {
                ((ua << r) | (ua >> (n - r))) & mask
            };
            wrap(v, n, s)
        }),
        ("clz", "clz(a)", |a, _, n, _| {
            let ua = a & ((1i128 << n) - 1);
            (0..n)
                .take_while(|&k| ua & (1i128 << (n - 1 - k)) == 0)
                .count() as i128
        }),
        ("popcount", "popcount(a)", |a, _, n, _| {
            (a & ((1i128 << n) - 1)).count_ones() as i128
        }),
        ("shift right", "a >> (b & (T)7)", |a, b, n, s| {
            let sh = (wrap(b & 7, n, s) & (n as i128 - 1)) as u32;
            a >> sh
        }),
        ("bitwise", "(a & b) ^ (a | (T)3)", |a, b, n, s| {
            wrap((a & b) ^ (a | 3), n, s)
        }),
    ];
    let mut rows: Vec<Generated<i32, i64>> = Vec::new();
    for &(t, n, s) in TYPES {
        for &(fname, expr, host) in functions {
            let expr = expr.replace("(T)", &format!("({t})"));
            let unsigned_result = matches!(fname, "abs" | "abs_diff");
            rows.push(Generated {
                name: format!("{fname} on {t}"),
                src: row_source(
                    "int",
                    "long",
                    "",
                    &format!(
                        "{t} a = ({t})x; {t} b = ({t})(x ^ 0x5a5a5a5a); out[i] = (long)({expr});"
                    ),
                ),
                host: Box::new(move |x| {
                    let a = wrap(x as i128, n, s);
                    let b = wrap((x ^ 0x5a5a_5a5a) as i128, n, s);
                    let r = host(a, b, n, s);
                    // abs and abs_diff return the unsigned type.
                    as_long(wrap(r, n, s && !unsigned_result))
                }),
            });
        }
    }
    check_generated(&int_inputs(), &rows, "", 0.0);
}

/// `dot(a, b)` of four bytes, each read signed or unsigned.
fn dot4(a: u32, b: u32, a_signed: bool, b_signed: bool) -> i64 {
    let byte = |w: u32, i: u32, signed: bool| {
        let v = (w >> (8 * i)) as u8;
        if signed {
            i64::from(v as i8)
        } else {
            i64::from(v)
        }
    };
    (0..4)
        .map(|i| byte(a, i, a_signed) * byte(b, i, b_signed))
        .sum()
}

#[test]
fn integer_dot_products_match_the_host() {
    use ferrocl_runtime::cl::*;
    let gpu = common::Gpu::new();
    let extensions = gpu.device_string(CL_DEVICE_EXTENSIONS);
    assert!(
        extensions
            .split(' ')
            .any(|e| e == "cl_khr_integer_dot_product"),
        "{extensions}"
    );
    let both = CL_DEVICE_INTEGER_DOT_PRODUCT_INPUT_4x8BIT_KHR
        | CL_DEVICE_INTEGER_DOT_PRODUCT_INPUT_4x8BIT_PACKED_KHR;
    assert_eq!(
        gpu.device_info::<cl_bitfield>(CL_DEVICE_INTEGER_DOT_PRODUCT_CAPABILITIES_KHR),
        both
    );
    // What the driver says of its dot instructions; nothing is
    // accelerated where the compiler writes the arithmetic itself.
    let arithmetic = std::env::var_os("FERROCL_INTEGER_DOT").is_some_and(|v| v == "arith");
    for query in [
        CL_DEVICE_INTEGER_DOT_PRODUCT_ACCELERATION_PROPERTIES_8BIT_KHR,
        CL_DEVICE_INTEGER_DOT_PRODUCT_ACCELERATION_PROPERTIES_4x8BIT_PACKED_KHR,
    ] {
        let accelerated = gpu.device_info::<[cl_bool; 6]>(query);
        assert!(
            accelerated.iter().all(|&b| b == CL_TRUE || b == CL_FALSE),
            "{accelerated:?}"
        );
        if arithmetic {
            assert_eq!(accelerated, [CL_FALSE; 6]);
        }
    }
    let src = r#"
        __kernel void k(__global const uint *w, __global const int *acc,
                        __global const uint *uacc, __global uint *ou, __global int *oi) {
            size_t g = get_global_id(0);
            size_t n = get_global_size(0);
            uint a = w[g], b = w[n + g];
            uchar4 ua = as_uchar4(a), ub = as_uchar4(b);
            char4 ca = as_char4(a), cb = as_char4(b);
            ou[g] = dot(ua, ub);
            ou[n + g] = dot_acc_sat(ua, ub, uacc[g]);
            ou[2 * n + g] = dot_4x8packed_uu_uint(a, b);
            ou[3 * n + g] = dot_acc_sat_4x8packed_uu_uint(a, b, uacc[g]);
            oi[g] = dot(ca, cb);
            oi[n + g] = dot(ua, cb);
            oi[2 * n + g] = dot(ca, ub);
            oi[3 * n + g] = dot_acc_sat(ca, cb, acc[g]);
            oi[4 * n + g] = dot_acc_sat(ua, cb, acc[g]);
            oi[5 * n + g] = dot_acc_sat(ca, ub, acc[g]);
            oi[6 * n + g] = dot_4x8packed_ss_int(a, b);
            oi[7 * n + g] = dot_4x8packed_us_int(a, b);
            oi[8 * n + g] = dot_4x8packed_su_int(a, b);
            oi[9 * n + g] = dot_acc_sat_4x8packed_ss_int(a, b, acc[g]);
            oi[10 * n + g] = dot_acc_sat_4x8packed_us_int(a, b, acc[g]);
            oi[11 * n + g] = dot_acc_sat_4x8packed_su_int(a, b, acc[g]);
        }"#;
    let k = gpu.kernel(src, "k");
    let n = 4096usize;
    let mut rng = common::XorShift::new(5);
    let mut words = rng.u32s(2 * n);
    // The extremes of every byte.
    words[..8].copy_from_slice(&[
        0xffff_ffff,
        0x8080_8080,
        0x7f7f_7f7f,
        0,
        0x8080_8080,
        0xffff_ffff,
        0x8080_8080,
        0x7f80_ff01,
    ]);
    words[n..n + 8].copy_from_slice(&[
        0xffff_ffff,
        0x8080_8080,
        0x7f7f_7f7f,
        0x1234_5678,
        0xffff_ffff,
        0x8080_8080,
        0x7f7f_7f7f,
        0x01ff_807f,
    ]);
    // Accumulators near both ends, so that saturation happens both ways.
    let acc: Vec<i32> = (0..n)
        .map(|i| match i % 4 {
            0 => i32::MAX - (rng.next_u32() % 200_000) as i32,
            1 => i32::MIN + (rng.next_u32() % 200_000) as i32,
            _ => rng.next_u32() as i32,
        })
        .collect();
    let uacc: Vec<u32> = (0..n)
        .map(|i| match i % 2 {
            0 => u32::MAX - rng.next_u32() % 300_000,
            _ => rng.next_u32(),
        })
        .collect();
    let (dw, dacc, duacc) = (gpu.buffer(&words), gpu.buffer(&acc), gpu.buffer(&uacc));
    let (dou, doi) = (gpu.zeroed::<u32>(4 * n), gpu.zeroed::<i32>(12 * n));
    k.arg_buffer(0, &dw)
        .arg_buffer(1, &dacc)
        .arg_buffer(2, &duacc)
        .arg_buffer(3, &dou)
        .arg_buffer(4, &doi);
    gpu.run(&k, &[n], None, None);
    let sat_u = |d: i64, acc: u32| (d + i64::from(acc)).min(i64::from(u32::MAX)) as u32;
    let sat_i = |d: i64, acc: i32| {
        (d + i64::from(acc)).clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32
    };
    let mut want_u = vec![0u32; 4 * n];
    let mut want_i = vec![0i32; 12 * n];
    for g in 0..n {
        let (a, b) = (words[g], words[n + g]);
        let uu = dot4(a, b, false, false);
        let (ss, us, su) = (
            dot4(a, b, true, true),
            dot4(a, b, false, true),
            dot4(a, b, true, false),
        );
        want_u[g] = uu as u32;
        want_u[n + g] = sat_u(uu, uacc[g]);
        want_u[2 * n + g] = uu as u32;
        want_u[3 * n + g] = sat_u(uu, uacc[g]);
        // The vector forms, then the packed ones: the same six values.
        let six = [
            ss as i32,
            us as i32,
            su as i32,
            sat_i(ss, acc[g]),
            sat_i(us, acc[g]),
            sat_i(su, acc[g]),
        ];
        for (j, v) in six.into_iter().chain(six).enumerate() {
            want_i[j * n + g] = v;
        }
    }
    common::assert_same(&gpu.read::<u32>(&dou), &want_u, "unsigned dot products");
    common::assert_same(&gpu.read::<i32>(&doi), &want_i, "signed dot products");
}

/// The same products through both ways the compiler writes them, where
/// the device's Vulkan has SPIR-V's dot instructions, whichever the
/// runtime would choose: the test above, run again in a process for each
/// value of `FERROCL_INTEGER_DOT` (read when the library starts).
#[test]
fn integer_dot_products_match_the_host_both_ways() {
    common::rerun_with_each(
        "FERROCL_INTEGER_DOT",
        &["arith", "instructions"],
        "integer_dot_products_match_the_host",
    );
}

/// The low `bits` bits of `v`.
fn low(v: u64, bits: u32) -> u64 {
    if bits >= 64 {
        v
    } else {
        v & ((1u64 << bits) - 1)
    }
}

/// cl_khr_extended_bit_ops on `width`-bit values held in u64s: insert,
/// extract signed, extract unsigned, reverse.
fn bit_ops_reference(a: u64, b: u64, offset: u32, count: u32, width: u32) -> [u64; 4] {
    let field = low(a.checked_shr(offset).unwrap_or(0), count);
    let mask = low(u64::MAX, count).checked_shl(offset).unwrap_or(0);
    let insert = (a & !mask) | (b.checked_shl(offset).unwrap_or(0) & mask);
    let signed = if count > 0 && field >> (count - 1) & 1 == 1 {
        field | !low(u64::MAX, count)
    } else {
        field
    };
    let reverse = a.reverse_bits() >> (64 - width);
    [insert, signed, field, reverse].map(|v| low(v, width))
}

#[test]
fn extended_bit_operations_match_the_host() {
    let gpu = common::Gpu::new();
    let mut rng = common::XorShift::new(23);
    // (element type, its unsigned type, bits, vector width: 1 for scalars)
    let types: [(&str, &str, u32, usize); 14] = [
        ("char", "uchar", 8, 1),
        ("uchar", "uchar", 8, 1),
        ("short", "ushort", 16, 1),
        ("ushort", "ushort", 16, 1),
        ("int", "uint", 32, 1),
        ("uint", "uint", 32, 1),
        ("long", "ulong", 64, 1),
        ("ulong", "ulong", 64, 1),
        ("char", "uchar", 8, 16),
        ("uchar", "uchar", 8, 8),
        ("ushort", "ushort", 16, 3),
        ("int", "uint", 32, 4),
        ("long", "ulong", 64, 2),
        ("ulong", "ulong", 64, 8),
    ];
    for (s, us, bits, n) in types {
        let (v, uv) = if n == 1 {
            (s.to_string(), us.to_string())
        } else {
            (format!("{s}{n}"), format!("{us}{n}"))
        };
        let load = if n == 1 {
            "#define LOAD(i, p) p[i]\n#define STORE(v, i, p) p[i] = v".to_string()
        } else {
            format!("#define LOAD(i, p) vload{n}(i, p)\n#define STORE(v, i, p) vstore{n}(v, i, p)")
        };
        let src = format!(
            r#"{load}
            __kernel void k(__global const {s} *xs, __global const {s} *ys,
                            __global const uint *os, __global const uint *cs,
                            __global {us} *o1, __global {us} *o2, __global {us} *o3,
                            __global {us} *o4) {{
                size_t i = get_global_id(0);
                {v} a = LOAD(i, xs), b = LOAD(i, ys);
                uint o = os[i], c = cs[i];
                STORE(as_{uv}(bitfield_insert(a, b, o, c)), i, o1);
                STORE(as_{uv}(bitfield_extract_signed(a, o, c)), i, o2);
                STORE(bitfield_extract_unsigned(a, o, c), i, o3);
                STORE(as_{uv}(bit_reverse(a)), i, o4);
            }}"#
        );
        let k = gpu.kernel(&src, "k");
        let items = 256usize;
        let elems = items * n;
        let xs: Vec<u64> = (0..elems).map(|_| low(rng.next_u64(), bits)).collect();
        let ys: Vec<u64> = (0..elems).map(|_| low(rng.next_u64(), bits)).collect();
        // Every count from 0 to the width, at offsets that keep the field
        // inside the value (the edges first).
        let mut counts = Vec::new();
        let mut offsets = Vec::new();
        for i in 0..items {
            let count = match i {
                0 => 0,
                1 => bits,
                _ => rng.next_u32() % (bits + 1),
            };
            let offset = match i {
                2 => 0,
                3 => bits - count,
                _ => rng.next_u32() % (bits - count + 1),
            };
            counts.push(count);
            offsets.push(offset);
        }
        let bytes = |vals: &[u64]| -> Vec<u8> {
            vals.iter()
                .flat_map(|v| v.to_le_bytes()[..(bits / 8) as usize].to_vec())
                .collect()
        };
        let (dx, dy) = (gpu.buffer(&bytes(&xs)), gpu.buffer(&bytes(&ys)));
        let (doff, dcnt) = (gpu.buffer(&offsets), gpu.buffer(&counts));
        let outs: Vec<_> = (0..4)
            .map(|_| gpu.zeroed::<u8>(elems * (bits / 8) as usize))
            .collect();
        k.arg_buffer(0, &dx)
            .arg_buffer(1, &dy)
            .arg_buffer(2, &doff)
            .arg_buffer(3, &dcnt);
        for (j, o) in outs.iter().enumerate() {
            k.arg_buffer(4 + j as u32, o);
        }
        gpu.run(&k, &[items], None, None);
        for (j, o) in outs.iter().enumerate() {
            let got: Vec<u64> = gpu
                .read::<u8>(o)
                .chunks_exact((bits / 8) as usize)
                .map(|c| {
                    let mut b = [0u8; 8];
                    b[..c.len()].copy_from_slice(c);
                    u64::from_le_bytes(b)
                })
                .collect();
            let want: Vec<u64> = (0..elems)
                .map(|e| {
                    let i = e / n;
                    bit_ops_reference(xs[e], ys[e], offsets[i], counts[i], bits)[j]
                })
                .collect();
            let what = [
                "bitfield_insert",
                "bitfield_extract_signed",
                "bitfield_extract_unsigned",
                "bit_reverse",
            ][j];
            common::assert_same(&got, &want, &format!("{what} on {v}"));
        }
    }
}
