//! OpenCL C 6.15.6 (relational functions), 6.15.7 (vector data load and
//! store), 6.15.8-6.15.12 (synchronization and atomics) and 6.15.13
//! (miscellaneous vector functions), compared with host references.

mod common;
mod spec_support;

use spec_support::*;

#[test]
fn relational_functions() {
    let rows: &[Row<f32, i32>] = &[
        row("isequal scalar", "out[i] = isequal(x, 1.0f);", |x| (x == 1.0) as i32),
        row("isnotequal", "out[i] = isnotequal(x, 0.0f);", |x| (x != 0.0) as i32),
        row("isgreater isless", "out[i] = isgreater(x, 0.0f) * 2 + isless(x, 0.0f);", |x| 2 * (x > 0.0) as i32 + (x < 0.0) as i32),
        row("isgreaterequal islessequal", "out[i] = isgreaterequal(x, 1.0f) * 2 + islessequal(x, -1.0f);", |x| 2 * (x >= 1.0) as i32 + (x <= -1.0) as i32),
        row("islessgreater", "out[i] = islessgreater(x, 0.5f);", |x| (x != 0.5) as i32),
        row("isnan isinf isfinite", "float n = as_float(0x7fc00000u); float inf = as_float(0x7f800000u); out[i] = isnan(n) + isinf(inf) * 2 + isfinite(x) * 4 + isnan(x) * 8;", |_| 7),
        row("isnormal", "out[i] = isnormal(x) + isnormal(as_float(1u)) * 2;", |x| x.is_normal() as i32),
        row("signbit", "out[i] = signbit(x);", |x| x.is_sign_negative() as i32),
        row("isordered isunordered", "float n = as_float(0x7fc00000u); out[i] = isordered(x, 1.0f) + isunordered(x, n) * 2;", |_| 3),
        row("vector isequal gives -1", "int4 r = isequal((float4)(x, 1.0f, 2.0f, x), (float4)(1.0f)); out[i] = r.x * 10 + r.y + r.z * 100;", |x| -10 * (x == 1.0) as i32 - 1),
        row("vector signbit gives -1", "int2 r = signbit((float2)(x, -1.0f)); out[i] = r.x * 10 + r.y;", |x| -10 * x.is_sign_negative() as i32 - 1),
        row("any", "out[i] = any((int4)(0, 0, (int)x, 0)) + any((int2)(-1, 0)) * 2;", |x| 2 + ((x as i32) < 0) as i32),
        row("all", "out[i] = all((int4)(-1, -1, (int)x, -1)) + all((int2)(1, 1)) * 2;", |x| ((x as i32) < 0) as i32),
        row("bitselect", "out[i] = as_int(bitselect(x, 2.0f, as_float(0x80000000u)));", |x| ((x.to_bits() & 0x7fff_ffff) | (2f32.to_bits() & 0x8000_0000)) as i32),
        row("select scalar", "out[i] = select(1, 2, x > 0.0f);", |x| if x > 0.0 { 2 } else { 1 }),
        row("select vector by MSB", "int4 r = select((int4)(1), (int4)(2), (int4)((int)x, -1, 0, 0x80000000)); out[i] = r.x * 1000 + r.y * 100 + r.z * 10 + r.w;", |x| (if (x as i32) < 0 { 2000 } else { 1000 }) + 200 + 10 + 2),
        row("select float vector", "float2 r = select((float2)(1.0f), (float2)(x), (int2)(-1, 0)); out[i] = (int)(r.x * 10.0f + r.y);", |x| (x * 10.0 + 1.0) as i32),
    ];
    check_rows("float", "int", &float_inputs(), rows, "", 0.0);
}

#[test]
fn vector_data_load_and_store() {
    let rows: &[Row<i32, i32>] = &[
        row("vload2", "int2 v = vload2(0, in + (i & ~1)); out[i] = v.x + v.y;", |_| 0),
        row("vload4 offset", "if (i < 8) { int4 v = vload4(i, in); out[i] = v.w; } else out[i] = x;", |x| x),
        row("vload3 packed", "if (i < 10) { int3 v = vload3(i, in); out[i] = v.x + v.y + v.z; } else out[i] = 0;", |_| 0),
        row("vload8 of private array", "int a[8] = {x, 1, 2, 3, 4, 5, 6, 7}; int8 v = vload8(0, a); out[i] = v.s0 + v.s7;", |x| x.wrapping_add(7)),
        row("vstore2 to private array", "int a[4] = {0, 0, 0, 0}; vstore2((int2)(x, 5), 1, a); out[i] = a[2] + a[3] + a[0];", |x| x.wrapping_add(5)),
        row("vstore3 to private array", "int a[6] = {9, 9, 9, 9, 9, 9}; vstore3((int3)(x, 1, 2), 1, a); out[i] = a[3] + a[4] + a[5] + a[2];", |x| x.wrapping_add(12)),
        row("vload16 of uchar", "uchar b[16]; for (int j = 0; j < 16; j++) b[j] = (uchar)(j + x); uchar16 v = vload16(0, b); out[i] = v.sF + v.s0;", |x| (15i32.wrapping_add(x) as u8) as i32 + (x as u8) as i32),
        row("vstore_half_rte to global", "float f = (float)(x & 0x3ff); vstore_half_rte(f, 2 * i, (global half *)out); vstore_half_rte(1.0f, 2 * i + 1, (global half *)out);", |x| (0x3c00 << 16) | half_bits((x & 0x3ff) as f32) as i32),
    ];
    let input = int_inputs();
    let rows: Vec<Row<i32, i32>> = rows.to_vec();
    // Rows whose result depends on neighbours are checked by their own
    // kernels below; these check a value per work-item.
    let own: Vec<Row<i32, i32>> = rows
        .into_iter()
        .filter(|r| !["vload2", "vload4 offset", "vload3 packed"].contains(&r.name))
        .collect();
    check_rows("int", "int", &input, &own, "", 0.0);

    let n = input.len();
    let cases: Vec<Case<i32, i32>> = vec![
        Case {
            name: "vload2 pairs",
            src: row_source(
                "int",
                "int",
                "",
                "int2 v = vload2(i / 2, in); out[i] = v.x + v.y;",
            ),
            global: n,
            host: |v| {
                (0..v.len())
                    .map(|i| v[i / 2 * 2].wrapping_add(v[i / 2 * 2 + 1]))
                    .collect()
            },
        },
        Case {
            name: "vload4 by index",
            src: row_source(
                "int",
                "int",
                "",
                "int4 v = vload4(i / 4, in); out[i] = v.w - v.x;",
            ),
            global: n,
            host: |v| {
                (0..v.len())
                    .map(|i| v[i / 4 * 4 + 3].wrapping_sub(v[i / 4 * 4]))
                    .collect()
            },
        },
        Case {
            name: "vload3 packed triples",
            src: row_source(
                "int",
                "int",
                "",
                "if (i < 10) { int3 v = vload3(i, in); out[i] = v.x ^ v.y ^ v.z; }",
            ),
            global: n,
            host: |v| {
                (0..v.len())
                    .map(|i| {
                        if i < 10 {
                            v[3 * i] ^ v[3 * i + 1] ^ v[3 * i + 2]
                        } else {
                            0
                        }
                    })
                    .collect()
            },
        },
        Case {
            name: "vstore3 packed triples",
            src: row_source(
                "int",
                "int",
                "",
                "if (i < 10) vstore3((int3)(in[3 * i + 2], in[3 * i + 1], in[3 * i]), i, out);",
            ),
            global: n,
            host: |v| {
                let mut o = vec![0; v.len()];
                for i in 0..10 {
                    o[3 * i] = v[3 * i + 2];
                    o[3 * i + 1] = v[3 * i + 1];
                    o[3 * i + 2] = v[3 * i];
                }
                o
            },
        },
        Case {
            name: "vstore4 per group of four",
            src: row_source("int", "int", "", "if ((i & 3) == 0) vstore4((int4)(in[i], in[i + 1], in[i + 2], in[i + 3]), i / 4, out);"),
            global: n,
            host: |v| v.to_vec(),
        },
        Case {
            name: "vload_half of global",
            src: row_source("int", "int", "", "out[i] = as_int(vload_half(2 * i, (global const half *)in));"),
            global: n,
            host: |v| v.iter().map(|&x| half_to_f32(x as u16).to_bits() as i32).collect(),
        },
        Case {
            name: "vload_half2 of global",
            src: row_source("int", "int", "", "float2 f = vload_half2(i, (global const half *)in); out[i] = as_int(f.y);"),
            global: n,
            host: |v| v.iter().map(|&x| half_to_f32((x >> 16) as u16).to_bits() as i32).collect(),
        },
        Case {
            name: "vstore8",
            src: row_source(
                "int",
                "int",
                "",
                "if (i < 4) vstore8(vload8(i, in) + (int8)(1), i, out);",
            ),
            global: n,
            host: |v| v.iter().map(|x| x.wrapping_add(1)).collect(),
        },
    ];
    // Halves with an exponent below 31 (no infinities or NaNs, whose
    // payloads a conversion may change).
    let halves: Vec<i32> = input.iter().map(|&x| x & !0x0400_0400).collect();
    check_cases(&cases, &halves, "", 0.0);
}

/// The float a binary16 bit pattern (finite) stands for.
fn half_to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = ((h >> 10) & 0x1f) as i32;
    let mant = (h & 0x3ff) as f32;
    let magnitude = if exp == 0 {
        mant * 2f32.powi(-24)
    } else {
        (1024.0 + mant) * 2f32.powi(exp - 25)
    };
    sign * magnitude
}

/// binary16 bits of a float that a half represents exactly.
fn half_bits(x: f32) -> u32 {
    if x == 0.0 {
        return 0;
    }
    let bits = x.to_bits();
    let exp = ((bits >> 23) & 0xff) as i32 - 127 + 15;
    ((exp as u32) << 10) | ((bits >> 13) & 0x3ff)
}

#[test]
fn atomics_and_synchronization() {
    let n = 256usize;
    let input: Vec<i32> = (0..n as i32).map(|v| v * 3 - 100).collect();
    let sum: i32 = input.iter().sum();
    let cases: Vec<Case<i32, i32>> = vec![
        Case {
            name: "atomic_add",
            src: row_source("int", "int", "", "atomic_add(&out[0], x);"),
            global: n,
            host: move |v| vec![v.iter().sum()],
        },
        Case {
            name: "atomic_inc and atomic_dec",
            src: row_source("int", "int", "", "atomic_inc(&out[0]); atomic_dec(&out[1]);"),
            global: n,
            host: |v| vec![v.len() as i32, -(v.len() as i32)],
        },
        Case {
            name: "atomic_max and atomic_min",
            src: row_source("int", "int", "", "atomic_max(&out[0], x); atomic_min(&out[1], x);"),
            global: n,
            host: |v| vec![*v.iter().max().unwrap(), (*v.iter().min().unwrap()).min(0)],
        },
        Case {
            name: "atomic_or and atomic_and and atomic_xor",
            src: row_source("int", "int", "", "atomic_or(&out[0], 1 << (i & 31)); atomic_xor(&out[1], x); atomic_and(&out[2], 0);"),
            global: n,
            host: |v| vec![-1, v.iter().fold(0, |a, b| a ^ b), 0],
        },
        Case {
            name: "atomic_xchg and atomic_cmpxchg count",
            src: row_source("int", "int", "", "int old = atomic_cmpxchg(&out[0], 0, 1); if (old == 0) atomic_inc(&out[1]); atomic_xchg(&out[2], 7);"),
            global: n,
            host: |_| vec![1, 1, 7],
        },
        Case {
            name: "atomic_sub",
            src: row_source("int", "int", "", "atomic_sub(&out[0], 2);"),
            global: n,
            host: |v| vec![-2 * v.len() as i32],
        },
        Case {
            name: "local atomics and barrier",
            src: row_source("int", "int", "", "local int s; if (get_local_id(0) == 0) s = 0; barrier(CLK_LOCAL_MEM_FENCE); atomic_add(&s, 1); barrier(CLK_LOCAL_MEM_FENCE); if (get_local_id(0) == 0) atomic_add(&out[0], s);"),
            global: n,
            host: |v| vec![v.len() as i32],
        },
        Case {
            name: "local reduction with barriers",
            src: row_source("int", "int", "", "local int t[64]; size_t l = get_local_id(0); t[l] = x; barrier(CLK_LOCAL_MEM_FENCE); for (uint s = 32; s > 0; s >>= 1) { if (l < s) t[l] += t[l + s]; barrier(CLK_LOCAL_MEM_FENCE); } if (l == 0) atomic_add(&out[0], t[0]);"),
            global: n,
            host: |v| vec![v.iter().sum()],
        },
        Case {
            name: "atom_ names of cl_khr_global_int32_base_atomics",
            src: row_source("int", "int", "", "atom_add(&out[0], 1);"),
            global: n,
            host: |v| vec![v.len() as i32],
        },
        Case {
            name: "atomic on uint",
            src: "kernel void k(global const int *in, global uint *out) { atomic_add(&out[0], 0xffffffffu); }".to_string(),
            global: n,
            host: |v| vec![0u32.wrapping_sub(v.len() as u32) as i32],
        },
    ];
    let mut reduce_only: Vec<Case<i32, i32>> = Vec::new();
    let mut rest = Vec::new();
    for c in cases {
        if c.name == "local reduction with barriers" {
            reduce_only.push(c);
        } else {
            rest.push(c);
        }
    }
    check_cases(&rest, &input, "-cl-std=CL2.0", 0.0);
    // The reduction needs 64 work-items per group; the runner picks the
    // local size, so the kernel is run here with an explicit one.
    let gpu = common::Gpu::new();
    let k = gpu.kernel(&reduce_only[0].src, "k");
    let din = gpu.buffer(&input);
    let dout = gpu.zeroed::<i32>(1);
    k.arg_buffer(0, &din).arg_buffer(1, &dout);
    gpu.run(&k, &[n], Some(&[64]), None);
    common::assert_same(&gpu.read::<i32>(&dout), &[sum], "local reduction");
}

#[test]
fn shuffle_functions() {
    let rows: &[Row<i32, i32>] = &[
        row("shuffle reverse", "int4 v = shuffle((int4)(x, 1, 2, 3), (uint4)(3, 2, 1, 0)); out[i] = v.x * 100 + v.y * 10 + v.z + (v.w == x) * 1000;", |_| 1321),
        row("shuffle narrows", "int2 v = shuffle((int4)(x, 1, 2, 3), (uint2)(2, 0)); out[i] = v.x + (v.y == x) * 10;", |_| 12),
        row("shuffle widens", "int8 v = shuffle((int2)(x, 5), (uint8)(1, 1, 1, 1, 0, 0, 0, 1)); out[i] = v.s0 + v.s7 + (v.s4 == x);", |_| 11),
        row("shuffle mask uses low bits", "int4 v = shuffle((int4)(0, 1, 2, 3), (uint4)(4, 5, 6, 7)); out[i] = v.x + v.y * 10 + v.z * 100 + v.w * 1000 + (x & 0);", |_| 3210),
        row("shuffle2", "int4 v = shuffle2((int4)(x, 1, 2, 3), (int4)(4, 5, 6, 7), (uint4)(7, 0, 4, 2)); out[i] = v.x * 100 + v.z * 10 + v.w + (v.y == x) * 1000;", |_| 1742),
        row("shuffle of float", "float4 v = shuffle((float4)(1.0f, 2.0f, 3.0f, 4.0f), (uint4)(x & 3)); out[i] = (int)v.w;", |x| (x & 3) + 1),
        row("vec_step", "out[i] = vec_step((int2)(x)) + vec_step(float16) * 10;", |_| 162),
    ];
    check_rows("int", "int", &int_inputs(), rows, "", 0.0);
}

#[test]
fn c11_atomics_with_relaxed_order() {
    let n = 256usize;
    let input: Vec<i32> = (0..n as i32).map(|v| v * 3 - 100).collect();
    let cases: Vec<Case<i32, i32>> = vec![
        Case {
            name: "C11 atomic_fetch_add",
            src: row_source("int", "int", "", "atomic_fetch_add_explicit((volatile global atomic_int *)&out[0], x, memory_order_relaxed);"),
            global: n,
            host: |v| vec![v.iter().sum()],
        },
        Case {
            name: "atomic_load and atomic_store relaxed",
            src: row_source("int", "int", "", "if (i == 0) atomic_store_explicit((volatile global atomic_int *)&out[0], 5, memory_order_relaxed); out[1 + (i & 1)] = 0;"),
            global: 1,
            host: |_| vec![5],
        },
    ];
    check_cases(&cases, &input, "-cl-std=CL3.0", 0.0);
}
