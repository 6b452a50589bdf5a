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
fn aligned_attribute_on_members() {
    let rows: &[Row<i32, i32>] = &[
        row_with(
            "aligned member",
            "struct M { char c; int n __attribute__((aligned(8))); };",
            "out[i] = sizeof(struct M);",
            |_| 16,
        ),
        row_with(
            "aligned member offset and struct alignment",
            "struct M { char c; __attribute__((aligned(16))) int n; char d; };",
            "out[i] = __builtin_offsetof(struct M, n) * 100 + sizeof(struct M) * 10 + __alignof__(struct M) / 16;",
            |_| 1600 + 320 + 1,
        ),
        row_with(
            "packed member, aligned array member",
            "struct P { char c; int n __attribute__((packed)); short s[2] __attribute__((aligned(8))); };",
            "out[i] = __builtin_offsetof(struct P, n) * 100 + __builtin_offsetof(struct P, s[1]) * 10 + sizeof(struct P) / 8;",
            |_| 100 + 100 + 2,
        ),
        row_with(
            "aligned member read and written in a private struct",
            "struct M { char c; int n __attribute__((aligned(8))); char d; };",
            "struct M m = { 1, x, 3 }; m.n += m.c + m.d; out[i] = m.n;",
            |x| x.wrapping_add(4),
        ),
    ];
    check_rows("int", "int", &int_inputs(), rows, "", 0.0);
}

#[test]
fn aligned_members_in_kernel_arguments_and_global_memory() {
    // The host lays the struct out as the kernel does: c at 0, n at 8,
    // d at 16, 24 bytes in all (a multiple of the 8-byte alignment).
    let gpu = common::Gpu::new();
    let src = "struct M { char c; int n __attribute__((aligned(8))); long d; };\n\
               kernel void k(struct M m, global struct M *g, global long *out) {\n\
                 out[0] = m.c; out[1] = m.n; out[2] = m.d;\n\
                 out[3] = g[1].c; out[4] = g[1].n; out[5] = g[1].d;\n\
                 g[0].n = m.n + 1; g[0].d = sizeof(struct M);\n\
               }\n";
    let k = gpu.kernel(src, "k");
    let record = |c: u8, n: i32, d: i64| {
        let mut b = vec![0u8; 24];
        b[0] = c;
        b[8..12].copy_from_slice(&n.to_le_bytes());
        b[16..24].copy_from_slice(&d.to_le_bytes());
        b
    };
    let mut both = record(0, 0, 0);
    both.extend(record(7, -8, 9));
    let g = gpu.buffer(&both);
    let out = gpu.zeroed::<i64>(6);
    k.arg_bytes(0, &record(3, 4, 5))
        .arg_buffer(1, &g)
        .arg_buffer(2, &out);
    gpu.run(&k, &[1], None, None);
    common::assert_same(&gpu.read::<i64>(&out), &[3, 4, 5, 7, -8, 9], "values");
    let back = gpu.read::<u8>(&g);
    assert_eq!(i32::from_le_bytes(back[8..12].try_into().unwrap()), 5);
    assert_eq!(i64::from_le_bytes(back[16..24].try_into().unwrap()), 24);
}
