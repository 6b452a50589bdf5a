//! OpenCL C 6.7 (address space qualifiers): `__global`, `__local`,
//! `__constant` and `__private` data, program-scope variables, pointer
//! casts and byte access in every address space, and the generic address
//! space of OpenCL C 2.0/3.0 with `to_global`/`to_local`/`to_private`.

mod common;
mod spec_support;

use spec_support::*;

#[test]
fn global_memory() {
    let rows: &[Row<i32, i32>] = &[
        row("global read write", "out[i] = in[i] * 2;", |x| x.wrapping_mul(2)),
        row("global pointer cast to uchar", "global const uchar *b = (global const uchar *)in; out[i] = b[i * 4 + 1];", |x| (x >> 8) & 0xff),
        row("global pointer cast to short", "global const short *s = (global const short *)(in + i); out[i] = s[1];", |x| (x >> 16) as i16 as i32),
        row("global vector view", "global const int4 *v = (global const int4 *)in; out[i] = ((const int *)0 == 0) ? v[i / 4].s0 * 0 + in[i] : 0;", |x| x),
        row("global pointer in private struct", "struct S { global const int *p; int k; } s; s.p = in + i; s.k = 3; out[i] = *s.p + s.k;", |x| x.wrapping_add(3)),
        row("global pointer arithmetic walks back", "global const int *p = in + i; p -= i; out[i] = p[i];", |x| x),
        row("global float store through uint", "global uint *u = (global uint *)out; u[i] = as_uint((float)(x & 0xff)); out[i] = as_int((float)(x & 0xff));", |x| ((x & 0xff) as f32).to_bits() as i32),
        row("global uchar writes", "global uchar *b = (global uchar *)(out + i); b[0] = (uchar)x; b[1] = 1; b[2] = 2; b[3] = 3;", |x| i32::from_le_bytes([x as u8, 1, 2, 3])),
    ];
    check_rows("int", "int", &int_inputs(), rows, "", 0.0);
}

#[test]
fn local_memory() {
    let rows: &[Row<i32, i32>] = &[
        row("local array shared in group", "local int t[256]; size_t l = get_local_id(0); t[l] = x; barrier(CLK_LOCAL_MEM_FENCE); out[i] = t[l];", |x| x),
        row("local read neighbour", "local int t[256]; size_t l = get_local_id(0); size_t n = get_local_size(0); t[l] = x; barrier(CLK_LOCAL_MEM_FENCE); out[i] = t[(l + 1) % n] * 0 + t[l];", |x| x),
        row("local float through uchar pointer", "local float f[256]; size_t l = get_local_id(0); f[l] = (float)(x & 0xffff); barrier(CLK_LOCAL_MEM_FENCE); local uchar *b = (local uchar *)f; out[i] = b[l * 4 + 2] | (b[l * 4 + 3] << 8);", |x| (((x & 0xffff) as f32).to_bits() >> 16) as i32),
        row("local scalar", "local int s; if (get_local_id(0) == 0) s = 7; barrier(CLK_LOCAL_MEM_FENCE); out[i] = s + x;", |x| x.wrapping_add(7)),
        row("local struct", "typedef struct { int a; short b; } S; local S s[256]; size_t l = get_local_id(0); s[l].a = x; s[l].b = 2; barrier(CLK_LOCAL_MEM_FENCE); out[i] = s[l].a + s[l].b;", |x| x.wrapping_add(2)),
        row("local pointer arithmetic", "local int t[256]; local int *p = t + get_local_id(0); *p = x; barrier(CLK_LOCAL_MEM_FENCE); out[i] = *p + (int)(p - t - (int)get_local_id(0));", |x| x),
        row("local vector array", "local int4 t[256]; size_t l = get_local_id(0); t[l] = (int4)(x, 1, 2, 3); barrier(CLK_LOCAL_MEM_FENCE); out[i] = t[l].x + t[l].w;", |x| x.wrapping_add(3)),
    ];
    check_rows("int", "int", &int_inputs(), rows, "", 0.0);
}

#[test]
fn constant_and_program_scope_memory() {
    let rows: &[Row<i32, i32>] = &[
        row_with(
            "program-scope constant array",
            "constant int tab[4] = {10, 20, 30, 40};",
            "out[i] = tab[x & 3];",
            |x| 10 * ((x & 3) + 1),
        ),
        row_with(
            "constant struct",
            "typedef struct { int a; float b; } S; constant S s = {5, 2.5f};",
            "out[i] = s.a + (int)(s.b * 2.0f);",
            |_| 10,
        ),
        row_with(
            "constant pointer arithmetic",
            "constant int tab[4] = {1, 2, 3, 4};",
            "constant int *p = tab + 1; out[i] = p[x & 1] + *(p + 2);",
            |x| 2 + (x & 1) + 4,
        ),
        row_with(
            "constant vector",
            "constant int4 v = (int4)(1, 2, 3, 4);",
            "out[i] = v.w + v.x;",
            |_| 5,
        ),
        row_with(
            "constant function argument",
            "int pick(constant int *t, int k) { return t[k]; } constant int tab[2] = {7, 9};",
            "out[i] = pick(tab, x & 1);",
            |x| if x & 1 == 0 { 7 } else { 9 },
        ),
        row_with(
            "constant 2d table",
            "constant char tab[2][3] = {{1, 2, 3}, {4, 5, 6}};",
            "out[i] = tab[x & 1][2];",
            |x| if x & 1 == 0 { 3 } else { 6 },
        ),
    ];
    check_rows("int", "int", &int_inputs(), rows, "", 0.0);
}

#[test]
fn private_memory() {
    let rows: &[Row<i32, i32>] = &[
        row("private struct walked with char pointer", "struct { int a; short b; char c; } s; s.a = x; s.b = 0x0102; s.c = 3; char *p = (char *)&s; out[i] = p[0] + p[4] + p[5] + p[6];", |x| (x as i8 as i32) + 2 + 1 + 3),
        row("private array through int pointer", "uchar b[8] = {1, 2, 3, 4, 5, 6, 7, 8}; int *p = (int *)b; out[i] = p[1] + (x & 0);", |_| i32::from_le_bytes([5, 6, 7, 8])),
        row("private float viewed as int", "float f = (float)(x & 0xfff); int *p = (int *)&f; out[i] = *p;", |x| ((x & 0xfff) as f32).to_bits() as i32),
        row("private array passed to function", "int a[4] = {x, 1, 2, 3}; out[i] = total(a, 4);", |x| x.wrapping_add(6)),
        row("private vector as array", "int4 v = (int4)(x, 1, 2, 3); int *p = (int *)&v; p[3] = 10; out[i] = v.w + p[0];", |x| x.wrapping_add(10)),
    ];
    let rows: Vec<Row<i32, i32>> = rows
        .iter()
        .map(|r| Row {
            prelude: "int total(int *a, int n) { int s = 0; for (int j = 0; j < n; j++) s += a[j]; return s; }",
            ..*r
        })
        .collect();
    check_rows("int", "int", &int_inputs(), &rows, "", 0.0);
}

#[test]
fn program_scope_global_variables() {
    if !device_defines("__opencl_c_program_scope_global_variables", "-cl-std=CL3.0") {
        eprintln!("the device lacks __opencl_c_program_scope_global_variables: nothing to run");
        return;
    }
    let rows: &[Row<i32, i32>] = &[
        row_with(
            "global variable read",
            "global int g = 42;",
            "out[i] = g + (x & 0);",
            |_| 42,
        ),
        row_with(
            "global array initializer",
            "global int g[3] = {1, 2, 3};",
            "out[i] = g[x & 1] + g[2];",
            |x| (x & 1) + 1 + 3,
        ),
        row_with(
            "static global",
            "static global int counter = 5;",
            "out[i] = counter * 2;",
            |_| 10,
        ),
    ];
    check_rows("int", "int", &int_inputs(), rows, "-cl-std=CL3.0", 0.0);
}

#[test]
fn generic_address_space() {
    // OpenCL C 2.0 has the generic address space in its core; ferrocl
    // compiles generic pointers whose address space is known where they are
    // made (the device does not offer `__opencl_c_generic_address_space`
    // for 3.0, as pointers into different spaces are not supported).
    let rows: &[Row<i32, i32>] = &[
        row_with("generic pointer to global", "int get(int *p) { return *p; }", "out[i] = get((int *)&in[i]) + 0 * get(&out[i]);", |x| x),
        row_with("generic pointer to private", "void bump(int *p) { *p += 1; }", "int a = x; bump(&a); out[i] = a;", |x| x.wrapping_add(1)),
        row_with("generic pointer to local", "void put(int *p, int v) { *p = v; }", "local int t[256]; put(&t[get_local_id(0)], x); barrier(CLK_LOCAL_MEM_FENCE); out[i] = t[get_local_id(0)];", |x| x),
        row("to_global of global", "int *g = &out[i]; global int *p = to_global(g); out[i] = (p != 0) + (to_local(g) == 0) * 2 + (to_private(g) == 0) * 4;", |_| 7),
        row("to_private of private", "int a = x; int *g = &a; out[i] = (to_private(g) != 0) + (to_global(g) == 0) * 2;", |_| 3),
        row("to_local of local", "local int t[1]; int *g = t; out[i] = (to_local(g) != 0) + (to_global(g) == 0) * 2;", |_| 3),
        row("generic pointer arithmetic", "int a[4] = {1, 2, 3, x}; int *g = a; g += 3; out[i] = *g + g[-1];", |x| x.wrapping_add(3)),
        row("cast generic back to global", "int *g = (int *)(out + i); global int *p = (global int *)g; *p = x + 1;", |x| x.wrapping_add(1)),
    ];
    check_rows("int", "int", &int_inputs(), rows, "-cl-std=CL2.0", 0.0);
}

#[test]
fn address_of_program_scope_constant() {
    let rows: &[Row<i32, i32>] = &[
        row_with(
            "constant bytes through uchar pointer",
            "constant uint word = 0x04030201u;",
            "constant uchar *b = (constant uchar *)&word; out[i] = b[x & 3];",
            |x| (x & 3) + 1,
        ),
        row_with(
            "constant array passed to a function",
            "constant int tab[4] = {5, 6, 7, 8};\nint pick(constant int *t, int k) { return t[k]; }",
            "out[i] = pick(tab, x & 3) + pick(&tab[1], 0) * 10;",
            |x| 60 + 5 + (x & 3),
        ),
        row_with(
            "pointers into one constant array compare",
            "constant int tab[4] = {5, 6, 7, 8};",
            "constant int *p = &tab[x & 3]; out[i] = (p - tab) + (p == &tab[x & 3]) * 10;",
            |x| (x & 3) + 10,
        ),
    ];
    check_rows("int", "int", &int_inputs(), rows, "", 0.0);
}

#[test]
fn private_pointers_stored_in_private_memory() {
    let rows: &[Row<i32, i32>] = &[
        row(
            "private pointer to pointer",
            "int a = x; int *p = &a; int **pp = &p; **pp += 1; out[i] = a;",
            |x| x.wrapping_add(1),
        ),
        row(
            "private array of pointers",
            "int a = 1, b = 2; int *ps[2] = {&a, &b}; *ps[x & 1] = 9; out[i] = a * 10 + b;",
            |x| if x & 1 == 0 { 92 } else { 19 },
        ),
    ];
    check_rows("int", "int", &int_inputs(), rows, "", 0.0);
}

#[test]
fn get_fence_of_generic_pointers() {
    let rows: &[Row<i32, i32>] = &[row(
        "get_fence",
        "local int t[1]; int *g = t; out[i] = get_fence(g) == CLK_LOCAL_MEM_FENCE;",
        |_| 1,
    )];
    check_rows("int", "int", &int_inputs(), rows, "-cl-std=CL3.0", 0.0);
}

#[test]
fn program_scope_pointer_to_a_global_variable() {
    let rows: &[Row<i32, i32>] = &[
        row_with(
            "global pointer variable",
            "global int tab[2] = {3, 4}; global int *global gp = &tab[1];",
            "out[i] = *gp;",
            |_| 4,
        ),
        row_with(
            "pointer to an array element, moved by a kernel",
            "global int arr[8] = {0, 1, 2, 3, 4, 5, 6, 7}; global int *p3 = &arr[3];",
            "global int *q = p3; out[i] = q[x & 3] + *(arr + 1) * 100;",
            |x| 103 + (x & 3),
        ),
        row_with(
            "pointer arithmetic, struct member, array decay",
            "struct pair { int a; int b[3]; };\nglobal struct pair pr = {5, {6, 7, 8}};\nglobal int *pb = &pr.b[0] + 2; global int *pa = &pr.a; global int *pd = pr.b;",
            "out[i] = *pb * 100 + *pa * 10 + pd[1];",
            |_| 857,
        ),
        row_with(
            "constant pointers to constant data and strings",
            "constant int ctab[3] = {10, 20, 30};\nconstant int *constant cp = ctab + 1;\nconstant char *constant name = \"xyz\";",
            "out[i] = cp[x & 1] + name[2];",
            |x| if x & 1 == 0 { 20 + 122 } else { 30 + 122 },
        ),
        row_with(
            "pointer stored in a struct at program scope",
            "global int cell = 41; struct holder { int pad; global int *p; };\nglobal struct holder h = {1, &cell};",
            "out[i] = *h.p + h.pad;",
            |_| 42,
        ),
    ];
    check_rows("int", "int", &int_inputs(), rows, "-cl-std=CL3.0", 0.0);
}

#[test]
fn local_pointer_kernel_arguments() {
    let gpu = common::Gpu::new();
    let src = r#"
        kernel void k(global const int *in, global int *out, local int *a, local float4 *b) {
            size_t l = get_local_id(0), n = get_local_size(0);
            a[l] = in[get_global_id(0)];
            b[l] = (float4)((float)l);
            barrier(CLK_LOCAL_MEM_FENCE);
            out[get_global_id(0)] = a[n - 1 - l] + (int)b[n - 1 - l].w;
        }"#;
    let k = gpu.kernel(src, "k");
    let n = 64usize;
    let input: Vec<i32> = (0..n as i32).map(|v| v * 5 - 7).collect();
    let din = gpu.buffer(&input);
    let dout = gpu.zeroed::<i32>(n);
    k.arg_buffer(0, &din)
        .arg_buffer(1, &dout)
        .arg_local(2, 16 * 4)
        .arg_local(3, 16 * 16);
    gpu.run(&k, &[n], Some(&[16]), None);
    let want: Vec<i32> = (0..n)
        .map(|g| {
            let (base, l) = (g / 16 * 16, g % 16);
            input[base + 15 - l] + (15 - l) as i32
        })
        .collect();
    common::assert_same(&gpu.read::<i32>(&dout), &want, "__local pointer arguments");
}
