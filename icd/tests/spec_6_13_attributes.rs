//! OpenCL C 6.13 (attribute qualifiers): `aligned` and `packed` on types
//! and variables, `reqd_work_group_size`, `work_group_size_hint`,
//! `vec_type_hint`, `opencl_unroll_hint` and `nosvm`, each observed from a
//! running kernel.

mod common;
mod spec_support;

use spec_support::*;

#[test]
fn type_and_variable_attributes() {
    let rows: &[Row<i32, i32>] = &[
        row_with("packed struct has no padding", "typedef struct __attribute__((packed)) { char c; int n; short s; } P;", "out[i] = sizeof(P);", |_| 7),
        row_with("packed struct member offsets", "struct __attribute__((packed)) Q { char c; int n; };", "struct Q q; out[i] = (int)((char *)&q.n - (char *)&q);", |_| 1),
        row_with("packed struct values", "typedef struct __attribute__((packed)) { char c; int n; } P;", "P p; p.c = 1; p.n = x; out[i] = p.n + p.c;", |x| x.wrapping_add(1)),
        row_with("aligned struct type", "typedef struct __attribute__((aligned(16))) { int a; } A;", "out[i] = sizeof(A) * 100 + __alignof__(A);", |_| 1616),
        row("aligned private variable", "int v __attribute__((aligned(16))) = x; out[i] = (((size_t)&v) & 15) == 0 ? v : -1;", |x| x),
        row_with("aligned array of structs", "typedef struct { char c; } __attribute__((aligned(8))) C;", "C a[3]; out[i] = sizeof(a);", |_| 24),
        row_with("packed struct in global memory", "typedef struct __attribute__((packed)) { uchar c; uint n; } P;", "global P *p = (global P *)(out + i); out[i] = 0; if ((i & 1) == 0) { p->c = 0; } out[i] = sizeof(P) + x * 0;", |_| 5),
    ];
    check_rows("int", "int", &int_inputs(), rows, "", 0.0);
}

#[test]
fn kernel_attributes() {
    let gpu = common::Gpu::new();
    let src = r#"
        __attribute__((reqd_work_group_size(8, 1, 1)))
        kernel void reqd(global int *out) { out[get_global_id(0)] = get_local_size(0); }

        __attribute__((work_group_size_hint(4, 1, 1)))
        kernel void hint(global int *out) { out[get_global_id(0)] = 1; }

        __attribute__((vec_type_hint(float4)))
        kernel void vth(global int *out) { out[get_global_id(0)] = 2; }

        kernel void unroll(global int *out) {
            int s = 0;
            __attribute__((opencl_unroll_hint(4)))
            for (int j = 0; j < 10; j++) s += j;
            __attribute__((opencl_unroll_hint))
            for (int j = 0; j < 3; j++) s += 100;
            out[get_global_id(0)] = s;
        }

        kernel void nosvm_arg(global int *out, __attribute__((nosvm)) global int *p) {
            out[get_global_id(0)] = 3;
        }
    "#;
    let program = gpu.program(src, "");
    let out = gpu.zeroed::<i32>(16);
    let reqd = program.kernel("reqd");
    reqd.arg_buffer(0, &out);
    gpu.run(&reqd, &[16], None, None);
    common::assert_same(
        &gpu.read::<i32>(&out),
        &[8; 16],
        "reqd_work_group_size picks the local size",
    );
    assert_ne!(
        gpu.try_run(&reqd, &[16], Some(&[4]), None),
        0,
        "a local size other than reqd_work_group_size must fail"
    );
    for (name, want) in [("hint", 1), ("vth", 2), ("unroll", 345)] {
        let k = program.kernel(name);
        k.arg_buffer(0, &out);
        gpu.run(&k, &[16], None, None);
        common::assert_same(&gpu.read::<i32>(&out), &[want; 16], name);
    }
    let k = program.kernel("nosvm_arg");
    let other = gpu.zeroed::<i32>(1);
    k.arg_buffer(0, &out).arg_buffer(1, &other);
    gpu.run(&k, &[16], None, None);
    common::assert_same(&gpu.read::<i32>(&out), &[3; 16], "nosvm");
}

#[test]
#[ignore = "__attribute__((aligned(N))) on a struct member is ignored: the member keeps its natural alignment"]
fn aligned_attribute_on_members() {
    let rows: &[Row<i32, i32>] = &[row_with(
        "aligned member",
        "struct M { char c; int n __attribute__((aligned(8))); };",
        "out[i] = sizeof(struct M);",
        |_| 16,
    )];
    check_rows("int", "int", &int_inputs(), rows, "", 0.0);
}
