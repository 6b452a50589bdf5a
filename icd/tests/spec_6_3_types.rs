//! OpenCL C 6.3 (supported data types): scalar widths and wrap-around,
//! sizes and alignments, vector types of every length, structs, unions,
//! enums, typedefs and arrays, each computed on the device and compared
//! with the host.

mod common;
mod spec_support;

use spec_support::*;

#[test]
fn scalar_integer_types_wrap_at_their_width() {
    let rows: &[Row<i32, i32>] = &[
        row(
            "char wraps",
            "char c = (char)x; c += 100; out[i] = c;",
            |x| (x as i8).wrapping_add(100) as i32,
        ),
        row(
            "uchar wraps",
            "uchar c = (uchar)x; c += 200; out[i] = c;",
            |x| (x as u8).wrapping_add(200) as i32,
        ),
        row(
            "short wraps",
            "short s = (short)x; s *= 3; out[i] = s;",
            |x| (x as i16).wrapping_mul(3) as i32,
        ),
        row(
            "ushort wraps",
            "ushort s = (ushort)x; s -= 1000; out[i] = s;",
            |x| (x as u16).wrapping_sub(1000) as i32,
        ),
        row("int wraps", "out[i] = x * 65537 + 12345;", |x| {
            x.wrapping_mul(65537).wrapping_add(12345)
        }),
        row(
            "uint wraps",
            "uint u = (uint)x; out[i] = (int)(u * 3u + 0xF0000000u);",
            |x| ((x as u32).wrapping_mul(3).wrapping_add(0xF000_0000)) as i32,
        ),
        row(
            "long keeps 64 bits",
            "long l = (long)x * (long)x; out[i] = (int)(l >> 32);",
            |x| ((x as i64 * x as i64) >> 32) as i32,
        ),
        row(
            "ulong keeps 64 bits",
            "ulong l = (ulong)(uint)x << 20; out[i] = (int)(l >> 24);",
            |x| (((x as u32 as u64) << 20) >> 24) as i32,
        ),
        row("bool normalizes", "bool b = x; out[i] = b;", |x| {
            (x != 0) as i32
        }),
        row(
            "bool from comparison",
            "bool b = x > 5; out[i] = b + b;",
            |x| 2 * (x > 5) as i32,
        ),
        row(
            "size_t is 32 or 64 bits",
            "size_t s = (size_t)(uint)x; out[i] = (int)(s + 1);",
            |x| x.wrapping_add(1),
        ),
        row(
            "ptrdiff_t signed",
            "ptrdiff_t d = -(ptrdiff_t)x; out[i] = (int)d;",
            |x| x.wrapping_neg(),
        ),
        row(
            "char sign",
            "char c = (char)(x & 0xff); out[i] = c < 0;",
            |x| ((x & 0xff) as u8 as i8).lt(&0) as i32,
        ),
        row(
            "unsigned char no sign",
            "unsigned char c = (unsigned char)x; out[i] = c;",
            |x| x as u8 as i32,
        ),
        row(
            "unsigned int spelled out",
            "unsigned int u = x; out[i] = (int)(u >> 31);",
            |x| ((x as u32) >> 31) as i32,
        ),
        row(
            "long shifts past 32",
            "long a = x; long b = a << 33; out[i] = (int)(b >> 33);",
            |x| (((x as i64) << 33) >> 33) as i32,
        ),
    ];
    check_rows("int", "int", &int_inputs(), rows, "", 0.0);
}

#[test]
fn sizes_and_alignments_of_types() {
    let rows: &[Row<i32, i32>] = &[
        row("sizeof scalars", "out[i] = sizeof(char) + 10 * sizeof(short) + 100 * sizeof(int) + 1000 * sizeof(long);", |_| 1 + 20 + 400 + 8000),
        row("sizeof float", "out[i] = sizeof(float) + 10 * sizeof(uchar) + 100 * sizeof(ushort) + 1000 * sizeof(ulong);", |_| 4 + 10 + 200 + 8000),
        row("sizeof vectors", "out[i] = sizeof(char2) + 100 * sizeof(int4) + 10000 * sizeof(float16);", |_| 2 + 1600 + 640000),
        row("sizeof 3-vectors is 4-vector", "out[i] = sizeof(float3) + 100 * sizeof(char3) + 1000 * sizeof(short3);", |_| 16 + 400 + 8000),
        row("sizeof long8", "out[i] = sizeof(long8) + 1000 * sizeof(ulong3);", |_| 64 + 32000),
        row("alignof vectors", "out[i] = __alignof__(float4) + 100 * __alignof__(int3) + 10000 * __alignof__(char2);", |_| 16 + 1600 + 20000),
        row("sizeof half", "out[i] = sizeof(half) + 10 * sizeof(half4);", |_| 2 + 80),
        row_with("struct padding", "typedef struct { char c; int n; short s; } S;", "out[i] = sizeof(S) * 100 + __alignof__(S);", |_| 1204),
        row_with("struct with float4 aligns to 16", "struct V { char tag; float4 v; };", "out[i] = sizeof(struct V);", |_| 32),
        row_with("struct with float3", "struct T { float3 p; float w; };", "out[i] = sizeof(struct T);", |_| 32),
        row_with("offsetof members", "typedef struct { char a; long b; char c; } S;", "S s; out[i] = (int)((char *)&s.c - (char *)&s) + 100 * (int)((char *)&s.b - (char *)&s);", |_| 16 + 800),
        row_with("union size is largest", "union U { char c[5]; int n; };", "out[i] = sizeof(union U);", |_| 8),
        row_with("array of structs", "typedef struct { short a; char b; } P;", "P arr[7]; out[i] = sizeof(arr);", |_| 28),
        row("vec_step of vectors, 3-vectors count 4", "out[i] = vec_step(float4) + 10 * vec_step(int3) + 100 * vec_step(char16) + 1000 * vec_step(float);", |_| 4 + 40 + 1600 + 1000),
    ];
    check_rows("int", "int", &int_inputs(), rows, "", 0.0);
}

#[test]
fn vector_types_of_every_length() {
    let rows: &[Row<i32, i32>] = &[
        row("char2", "char2 v = (char2)((char)x, 3); out[i] = v.x + v.y;", |x| (x as i8) as i32 + 3),
        row("uchar3", "uchar3 v = (uchar3)(1, 2, (uchar)x); out[i] = v.x + v.y + v.z;", |x| 3 + (x as u8) as i32),
        row("short4", "short4 v = (short4)(x); v += (short4)(1, 2, 3, 4); out[i] = v.s0 + v.s1 + v.s2 + v.s3;", |x| 4 * (x as i16) as i32 + 10),
        row("ushort8", "ushort8 v = (ushort8)(x); out[i] = v.s7 + v.s0;", |x| 2 * (x as u16) as i32),
        row("int16", "int16 v = (int16)(x) + (int16)(0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15); out[i] = v.sf - v.s0 + v.sa;", |x| 15 + x.wrapping_add(10)),
        row("uint2", "uint2 v = (uint2)((uint)x, 5u); out[i] = (int)(v.x * v.y);", |x| (x as u32).wrapping_mul(5) as i32),
        row("long3", "long3 v = (long3)((long)x, (long)x, 1L); v *= v; out[i] = (int)(v.x >> 16) ^ (int)v.z;", |x| (((x as i64) * (x as i64)) >> 16) as i32 ^ 1),
        row("ulong4", "ulong4 v = (ulong4)((ulong)(uint)x); out[i] = (int)(v.s3 >> 1);", |x| ((x as u32 as u64) >> 1) as i32),
        row("float8", "float8 v = (float8)((float)(x & 255)); v = v * 2.0f; out[i] = (int)v.s5;", |x| (x & 255) * 2),
        row("float16", "float16 v = (float16)(1.0f); v.sF = (float)(x & 1023); out[i] = (int)(v.sF + v.s0);", |x| (x & 1023) + 1),
        row("char16", "char16 v = (char16)((char)x); out[i] = v.sA + v.sB;", |x| 2 * (x as i8) as i32),
        row("int3 arithmetic", "int3 v = (int3)(x, 2 * x, 3); v = v + v; out[i] = v.x + v.y + v.z;", |x| x.wrapping_mul(2).wrapping_add(x.wrapping_mul(4)).wrapping_add(6)),
    ];
    check_rows("int", "int", &int_inputs(), rows, "", 0.0);
}

#[test]
fn structs_unions_enums_typedefs_arrays() {
    let rows: &[Row<i32, i32>] = &[
        row_with("struct fields", "struct P { int a; short b; char c; };", "struct P p; p.a = x; p.b = 2; p.c = 3; out[i] = p.a + p.b * p.c;", |x| x.wrapping_add(6)),
        row_with("struct copy", "typedef struct { int v[3]; } T;", "T a = {{x, 1, 2}}; T b = a; b.v[1] = 9; out[i] = a.v[0] + a.v[1] + b.v[1];", |x| x.wrapping_add(10)),
        row_with("struct return", "typedef struct { int q, r; } D; D dm(int a, int b) { D d; d.q = a / b; d.r = a % b; return d; }", "D d = dm(x, 7); out[i] = d.q * 7 + d.r;", |x| x),
        row_with("nested struct", "struct In { char c; int v; }; struct Out { struct In in; float4 f; };", "struct Out o; o.in.v = x; o.f = (float4)(1.0f); out[i] = o.in.v + (int)o.f.w;", |x| x.wrapping_add(1)),
        row_with("union reinterpret", "union U { float f; uint u; };", "union U u; u.f = (float)(x & 0xffff); out[i] = (int)u.u;", |x| ((x & 0xffff) as f32).to_bits() as i32),
        row_with("union bytes", "union U { int n; uchar b[4]; };", "union U u; u.n = x; out[i] = u.b[0] | (u.b[3] << 8);", |x| (x & 0xff) | (((x as u32 >> 24) as i32) << 8)),
        row_with("enum values", "enum Color { RED, GREEN = 5, BLUE };", "enum Color c = BLUE; out[i] = c * 10 + RED + GREEN;", |_| 65),
        row_with("enum in switch", "typedef enum { A = 1, B = 2, C = 4 } E;", "E e = (E)((x & 3) == 0 ? A : B); switch (e) { case A: out[i] = 10; break; case B: out[i] = 20; break; default: out[i] = 0; }", |x| if x & 3 == 0 { 10 } else { 20 }),
        row_with("typedef chain", "typedef int myint; typedef myint int_t; typedef int_t *int_ptr;", "int_t a = x; int_ptr p = &a; *p += 1; out[i] = a;", |x| x.wrapping_add(1)),
        row_with("typedef vector", "typedef float4 vec; typedef vec vecs[2];", "vecs v; v[0] = (vec)(1.0f); v[1] = v[0] * 3.0f; out[i] = (int)(v[1].z + v[0].x);", |_| 4),
        row("array init and index", "int a[5] = {1, 2, 3, 4, 5}; out[i] = a[x & 3] + a[4];", |x| (x & 3) + 1 + 5),
        row("2d array", "int a[3][4]; for (int r = 0; r < 3; r++) for (int c = 0; c < 4; c++) a[r][c] = r * 4 + c; out[i] = a[2][x & 3] + a[1][1];", |x| 8 + (x & 3) + 5),
        row("array partial init zeroes the rest", "int a[6] = {x, 2}; out[i] = a[0] + a[1] + a[2] + a[5];", |x| x.wrapping_add(2)),
        row_with("struct with array member", "typedef struct { int n; int v[4]; } A;", "A a = {3, {x, x + 1, x + 2, x + 3}}; int s = 0; for (int j = 0; j < a.n; j++) s += a.v[j]; out[i] = s;", |x| x.wrapping_mul(3).wrapping_add(3)),
        // C11 anonymous members, as pyopencl's complex types declare them:
        // a union of two untagged structs, each member reached directly.
        row_with("anonymous struct members of a union", "typedef union { struct { float x, y; } __attribute__((aligned(8))); struct { float real, imag; } __attribute__((aligned(8))); } cf; cf mul(cf a, cf b) { cf c; c.real = a.real * b.real - a.imag * b.imag; c.imag = a.real * b.imag + a.imag * b.real; return c; }", "cf a; a.x = (float)(x & 255); a.y = 1.0f; cf p = mul(a, a); out[i] = (int)p.real * 1000 + (int)p.imag + (int)(sizeof(cf) * 100000000) + (int)__alignof__(cf) * 10000000;", |x| { let r = x & 255; (r * r - 1) * 1000 + 2 * r + 800_000_000 + 80_000_000 }),
        row_with("anonymous union member of a struct", "typedef struct { int tag; union { int n; float f; }; } T;", "T t; t.tag = 3; t.f = 1.5f; out[i] = t.tag + t.n + (int)__builtin_offsetof(T, f) * 100;", |_| 3 + 1.5f32.to_bits() as i32 + 400),
        row_with("anonymous struct typedef compared", "typedef struct { uchar r, g, b, a; } rgba;", "rgba p = {(uchar)x, 1, 2, 3}; uchar4 q = (uchar4)(p.r, p.g, p.b, p.a); out[i] = as_int(q);", |x| i32::from_le_bytes([x as u8, 1, 2, 3])),
    ];
    check_rows("int", "int", &int_inputs(), rows, "", 0.0);
}

#[test]
fn float_types() {
    let rows: &[Row<f32, f32>] = &[
        row("float add", "out[i] = x + 1.5f;", |x| x + 1.5),
        row("float mul", "out[i] = x * x;", |x| x * x),
        row(
            "float literal forms",
            "out[i] = x + 1e1f + 0x1p-2f + .5f + 2.f;",
            |x| x + 10.0 + 0.25 + 0.5 + 2.0,
        ),
        row("float div", "out[i] = x / 4.0f;", |x| x / 4.0),
        row("float negative zero kept", "out[i] = -x;", |x| -x),
        row("float to int to float", "out[i] = (float)(int)x;", |x| {
            (x as i32) as f32
        }),
        row(
            "float4 dot by hand",
            "float4 v = (float4)(x, 1.0f, 2.0f, 3.0f); out[i] = v.x * v.x + v.y + v.z + v.w;",
            |x| x * x + 6.0,
        ),
    ];
    check_rows("float", "float", &float_inputs(), rows, "", 0.0);
}

#[test]
fn double_when_the_device_has_fp64() {
    let gpu = common::Gpu::new();
    let extensions = gpu.device_string(ferrocl_runtime::cl::CL_DEVICE_EXTENSIONS);
    drop(gpu);
    if !extensions.contains("cl_khr_fp64") {
        eprintln!("device lacks cl_khr_fp64: double rows skipped");
        return;
    }
    let rows: &[Row<f32, f32>] = &[
        row(
            "double keeps precision",
            "double d = (double)x; d = d * 3.0 + 1e-9; out[i] = (float)(d - 1e-9);",
            |x| ((x as f64) * 3.0 + 1e-9 - 1e-9) as f32,
        ),
        row(
            "double sizeof",
            "out[i] = (float)(sizeof(double) + sizeof(double4) * 10);",
            |_| 328.0,
        ),
        row(
            "double vectors",
            "double2 v = (double2)(x, 2.0); out[i] = (float)(v.x * v.y);",
            |x| (x as f64 * 2.0) as f32,
        ),
    ];
    check_rows("float", "float", &float_inputs(), rows, "", 0.0);
}

#[test]
fn sizeof_operand_is_not_evaluated() {
    let rows: &[Row<i32, i32>] = &[row(
        "sizeof expression not evaluated",
        "int y = x; out[i] = sizeof(y++) + y - x;",
        |_| 4,
    )];
    check_rows("int", "int", &int_inputs(), rows, "", 0.0);
}

#[test]
fn array_size_from_initializer() {
    let rows: &[Row<i32, i32>] = &[row(
        "array size from init",
        "char s[] = {1, 2, 3, 4, 5, 6, 7}; out[i] = sizeof(s) + s[6];",
        |_| 14,
    )];
    check_rows("int", "int", &int_inputs(), rows, "", 0.0);
}

#[test]
fn designated_initializers() {
    let rows: &[Row<i32, i32>] = &[row_with(
        "struct designated init",
        "typedef struct { int a, b, c; } S;",
        "S s = { .c = x, .a = 2 }; out[i] = s.a + s.b + s.c;",
        |x| x.wrapping_add(2),
    )];
    check_rows("int", "int", &int_inputs(), rows, "", 0.0);
}
