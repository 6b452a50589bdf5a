//! OpenCL C 6.9 (function qualifiers) and 6.10 (storage-class specifiers):
//! kernels calling kernels and helper functions, `static` and `extern`
//! declarations, `inline`, argument passing by value.

mod common;
mod spec_support;

use spec_support::*;

#[test]
fn kernel_and_helper_functions() {
    let rows: &[Row<i32, i32>] = &[
        row_with("helper function", "int twice(int v) { return 2 * v; }", "out[i] = twice(x);", |x| x.wrapping_mul(2)),
        row_with("helper calls helper", "int sq(int v) { return v * v; } int quad(int v) { return sq(sq(v)); }", "out[i] = quad(x & 15);", |x| (x & 15).pow(4)),
        row_with("void helper writing through pointer", "void set(global int *p, int v) { *p = v + 1; }", "set(out + i, x);", |x| x.wrapping_add(1)),
        row_with("helper with early return", "int sign(int v) { if (v > 0) return 1; if (v < 0) return -1; return 0; }", "out[i] = sign(x);", |x| x.signum()),
        row_with("kernel calls kernel", "kernel void inner(global int *o, int v) { o[get_global_id(0)] = v * 3; }", "inner(out, x);", |x| x.wrapping_mul(3)),
        row_with("__kernel spelling", "__kernel void other(global int *o) { }", "out[i] = x;", |x| x),
        row_with("inline function", "inline int add1(int v) { return v + 1; }", "out[i] = add1(x);", |x| x.wrapping_add(1)),
        row_with("static inline function", "static inline int sub1(int v) { return v - 1; }", "out[i] = sub1(x);", |x| x.wrapping_sub(1)),
        row_with("function declared before defined", "int later(int v); int later(int v) { return v ^ 0x5a; }", "out[i] = later(x);", |x| x ^ 0x5a),
        row_with("prototype after use site definition", "int f(int); int g(int v) { return f(v) + 1; } int f(int v) { return v * 5; }", "out[i] = g(x);", |x| x.wrapping_mul(5).wrapping_add(1)),
        row_with("struct by value argument", "typedef struct { int a, b; } P; int sum(P p) { p.a += 1; return p.a + p.b; }", "P p = {x, 2}; int s = sum(p); out[i] = s + p.a - x;", |x| x.wrapping_add(3)),
        row_with("vector by value argument", "int4 rev(int4 v) { return v.wzyx; }", "int4 r = rev((int4)(x, 1, 2, 3)); out[i] = r.x * 100 + r.y * 10 + r.z + (r.w == x) * 1000;", |_| 1321),
        row_with("array argument decays to pointer", "void fill(int *a, int n, int v) { for (int j = 0; j < n; j++) a[j] = v + j; }", "int a[4]; fill(a, 4, x); out[i] = a[3];", |x| x.wrapping_add(3)),
        row_with("many arguments", "int m(int a, int b, int c, int d, int e, int f, int g, int h) { return a - b + c - d + e - f + g - h; }", "out[i] = m(x, 1, 2, 3, 4, 5, 6, 7);", |x| x.wrapping_sub(4)),
        row_with("function returning struct by value", "typedef struct { int v[2]; } W; W mk(int a) { W w; w.v[0] = a; w.v[1] = -a; return w; }", "W w = mk(x); out[i] = w.v[0] + w.v[1];", |_| 0),
        row_with("const parameter", "int cp(const int v) { return v + 9; }", "out[i] = cp(x);", |x| x.wrapping_add(9)),
    ];
    check_rows("int", "int", &int_inputs(), rows, "", 0.0);
}

#[test]
fn kernel_arguments_by_value_and_qualifiers() {
    let gpu = common::Gpu::new();
    let src = r#"
        typedef struct { int a; float b; char c; } S;
        kernel void k(global int *out, const int n, float f, S s, int4 v,
                      global int *restrict r, volatile global int *vol,
                      constant int *c, uchar u, short sh) {
            out[0] = n; out[1] = (int)f; out[2] = s.a; out[3] = (int)s.b;
            out[4] = s.c; out[5] = v.w; out[6] = r == 0; out[7] = *c;
            out[8] = u; out[9] = sh; *vol = 1;
        }"#;
    let k = gpu.kernel(src, "k");
    let out = gpu.zeroed::<i32>(10);
    let vol = gpu.zeroed::<i32>(1);
    let c = gpu.buffer(&[77i32]);
    let mut s = [0u8; 12];
    s[0..4].copy_from_slice(&(-5i32).to_le_bytes());
    s[4..8].copy_from_slice(&6.5f32.to_le_bytes());
    s[8] = 3;
    k.arg_buffer(0, &out)
        .arg(1, 11i32)
        .arg(2, 2.75f32)
        .arg_bytes(3, &s)
        .arg(4, [1i32, 2, 3, 4])
        .arg_bytes(5, &0usize.to_ne_bytes())
        .arg_buffer(6, &vol)
        .arg_buffer(7, &c)
        .arg(8, 200u8)
        .arg(9, -300i16);
    gpu.run(&k, &[1], None, None);
    common::assert_same(
        &gpu.read::<i32>(&out),
        &[11, 2, -5, 6, 3, 4, 1, 77, 200, -300],
        "kernel arguments",
    );
    common::assert_same(&gpu.read::<i32>(&vol), &[1], "volatile pointer");
}

#[test]
fn storage_class_specifiers() {
    let rows: &[Row<i32, i32>] = &[
        row_with("static function", "static int hidden(int v) { return v + 100; }", "out[i] = hidden(x);", |x| x.wrapping_add(100)),
        row_with("extern declaration of a function defined later", "extern int ext(int v); int ext(int v) { return v * 7; }", "out[i] = ext(x);", |x| x.wrapping_mul(7)),
        row_with("static constant at program scope", "static constant int k3 = 3;", "out[i] = x * k3;", |x| x.wrapping_mul(3)),
        row("static local variable in kernel", "local int s[1]; if (get_local_id(0) == 0) s[0] = 4; barrier(CLK_LOCAL_MEM_FENCE); out[i] = s[0] + x;", |x| x.wrapping_add(4)),
        row_with("extern constant declared then defined", "extern constant int later_k; constant int later_k = 12;", "out[i] = later_k + x;", |x| x.wrapping_add(12)),
        row("auto-like local scope shadowing", "int v = 1; { int v = x; out[i] = v; } out[i] += v;", |x| x.wrapping_add(1)),
    ];
    check_rows("int", "int", &int_inputs(), rows, "", 0.0);
}
