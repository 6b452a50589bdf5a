//! Execution tests for the generic address space (OpenCL C 2.0/3.0):
//! pointers without an address space in helper functions and variables,
//! `to_global`/`to_local`/`to_private`, and casts to generic pointers.
//! Every call is inlined, so each generic pointer's space is known where it
//! is made.

mod common;

use common::*;
use ferrocl_runtime::cl::*;

const SOURCE: &str = r#"
    int *advance(int *p, int n) { return p + n; }
    generic int *same(generic int *a) { return a; }
    int is_global(const int *p) { return to_global(p) != NULL; }
    int classify(int *p) {
        if (to_global(p)) return 1;
        if (to_local(p)) return 2;
        if (to_private(p)) return 3;
        return 0;
    }
    void add_to(int *p, int v) { *p += v; }

    kernel void k(global int *g, local int *l, global int *out) {
        int lid = get_local_id(0);
        int gid = get_global_id(0);
        int priv[4] = { lid, lid + 1, lid + 2, lid + 3 };
        l[lid] = lid * 10;
        barrier(CLK_LOCAL_MEM_FENCE);
        int *p;
        p = advance(g, gid);
        int *q = same(l);
        int *r = advance(priv, 1);
        add_to(r, 100);
        add_to(p, 1000);
        out[4 * gid] = *p + q[lid] + *r;
        out[4 * gid + 1] = classify(g) * 100 + classify(l) * 10 + classify(priv);
        out[4 * gid + 2] = is_global(g) * 10 + is_global(priv)
            + (to_local(g) == NULL) * 100 + (to_private(priv) != NULL) * 1000
            + (NULL == to_global(l)) * 10000;
        generic int *v = (int *)&l[(lid + 1) % 8];
        out[4 * gid + 3] = *v + priv[1];
    }
"#;

#[test]
fn generic_pointers_resolve_where_they_are_made() {
    let gpu = Gpu::new();
    let k = gpu.kernel_with_options(SOURCE, "k", "-cl-std=CL2.0");
    let n = 32usize;
    let input: Vec<i32> = (0..n as i32).map(|i| i * 7).collect();
    let (dg, dout) = (gpu.buffer(&input), gpu.zeroed::<i32>(4 * n));
    k.arg_buffer(0, &dg)
        .arg_local(1, 8 * 4)
        .arg_buffer(2, &dout);
    gpu.run(&k, &[n], Some(&[8]), None);
    let want: Vec<i32> = (0..n as i32)
        .flat_map(|gid| {
            let lid = gid % 8;
            [
                gid * 7 + 1000 + lid * 10 + lid + 1 + 100,
                123,
                11110,
                ((lid + 1) % 8) * 10 + lid + 1 + 100,
            ]
        })
        .collect();
    assert_same(&gpu.read::<i32>(&dout), &want, "generic pointers");
    let after: Vec<i32> = input.iter().map(|x| x + 1000).collect();
    assert_same(
        &gpu.read::<i32>(&dg),
        &after,
        "stores through generic pointers",
    );
}

/// A generic pointer that points into global, local or private memory
/// depending on the work-item: the compiler cannot resolve its space and
/// carries it in the pointer's tag bits.
const DYNAMIC: &str = r#"
    kernel void k(global int *g, local int *l, global int *out) {
        int lid = get_local_id(0);
        int gid = get_global_id(0);
        int priv[2] = { 5 * gid, 7 };
        l[lid] = 100 + lid;
        barrier(CLK_LOCAL_MEM_FENCE);
        int *p;
        int sel = gid % 3;
        if (sel == 0) p = g + gid; else if (sel == 1) p = l + lid; else p = priv;
        *p += 1;
        out[3 * gid] = *p;
        out[3 * gid + 1] = (to_global(p) != NULL) + 2 * (to_local(p) != NULL)
            + 4 * (to_private(p) != NULL);
        out[3 * gid + 2] = priv[0];
    }
"#;

#[test]
fn a_generic_pointer_into_a_space_chosen_at_run_time() {
    let gpu = Gpu::new();
    let k = gpu.kernel_with_options(DYNAMIC, "k", "-cl-std=CL2.0");
    let n = 24usize;
    let input: Vec<i32> = (0..n as i32).map(|i| i * 3).collect();
    let (dg, dout) = (gpu.buffer(&input), gpu.zeroed::<i32>(3 * n));
    k.arg_buffer(0, &dg)
        .arg_local(1, 8 * 4)
        .arg_buffer(2, &dout);
    gpu.run(&k, &[n], Some(&[8]), None);
    let want: Vec<i32> = (0..n as i32)
        .flat_map(|gid| {
            let lid = gid % 8;
            match gid % 3 {
                0 => [gid * 3 + 1, 1, 5 * gid],
                1 => [100 + lid + 1, 2, 5 * gid],
                _ => [5 * gid + 1, 4, 5 * gid + 1],
            }
        })
        .collect();
    assert_same(&gpu.read::<i32>(&dout), &want, "dynamic generic pointers");
}

#[test]
fn the_device_reports_the_generic_address_space() {
    let gpu = Gpu::new();
    let support: cl_bool = gpu.device_info(CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT);
    let features = gpu.device_string(CL_DEVICE_OPENCL_C_FEATURES);
    // Names in the cl_name_version array end at a NUL.
    let listed = features
        .split(['\0', ' '])
        .any(|f| f.ends_with("__opencl_c_generic_address_space"));
    assert_eq!(support == CL_TRUE, listed, "support flag and feature list");
    // lavapipe's device addresses are host pointers, far below 2^62.
    assert_eq!(support, CL_TRUE, "generic address space on this device");
    let k = gpu.kernel_with_options(
        "#ifndef __opencl_c_generic_address_space\n\
         #error the feature macro is missing\n\
         #endif\n\
         kernel void k(global int *out) { int *p = out; *p = 1; }\n",
        "k",
        "-cl-std=CL3.0",
    );
    let out = gpu.zeroed::<i32>(1);
    k.arg_buffer(0, &out);
    gpu.run(&k, &[1], None, None);
    assert_same(&gpu.read::<i32>(&out), &[1], "generic pointer to global");
}

/// Tagged generic pointers in OpenCL C 3.0 with atomics: work-items of
/// odd local id count in a `__global` counter, the others in a `__local`
/// one, through one generic pointer.
const ATOMICS: &str = r#"
    kernel void k(global atomic_int *g, local atomic_int *l, global int *out) {
        int lid = get_local_id(0);
        if (lid == 0) atomic_init(l, 0);
        barrier(CLK_LOCAL_MEM_FENCE);
        atomic_int *p = (lid & 1) ? (atomic_int *)g : (atomic_int *)l;
        atomic_fetch_add_explicit(p, 1, memory_order_relaxed, memory_scope_device);
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
        if (lid == 0) out[get_group_id(0)] = atomic_load(l);
    }
"#;

#[test]
fn atomics_through_a_generic_pointer_into_either_space() {
    let gpu = Gpu::new();
    let k = gpu.kernel_with_options(ATOMICS, "k", "-cl-std=CL3.0");
    let (groups, size) = (4usize, 16usize);
    let (dg, dout) = (gpu.zeroed::<i32>(1), gpu.zeroed::<i32>(groups));
    k.arg_buffer(0, &dg).arg_local(1, 4).arg_buffer(2, &dout);
    gpu.run(&k, &[groups * size], Some(&[size]), None);
    assert_same(
        &gpu.read::<i32>(&dg),
        &[(groups * size / 2) as i32],
        "global counter",
    );
    assert_same(
        &gpu.read::<i32>(&dout),
        &vec![(size / 2) as i32; groups],
        "local counters",
    );
}

/// Built-ins that write through a `__private` pointer (`fract`, `sincos`,
/// `frexp`, `remquo`, `modf`), vector loads and stores on a private array,
/// and an async copy from local memory. With `-DTAGGED` a `?:` between two
/// private objects makes the compiler tag every pointer; the results must
/// not change.
const BUILTIN_POINTERS: &str = r#"
    kernel void k(global const float *in, global float *out, local float *lf, int x) {
        int a = 1, b = 2;
    #ifdef TAGGED
        int *sel = x > 0 ? &a : &b;
    #else
        int *sel = &a;
    #endif
        *sel += 5;
        size_t i = get_global_id(0);
        float v0 = in[i];
        float ip, c, s;
        int e, q;
        float r = fract(v0, &ip) + ip;
        r += sincos(v0, &c) + c;
        r += frexp(v0, &e) + e;
        r += remquo(v0, 1.5f, &q) + q;
        r += modf(v0, &s) + s;
        float pv[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
        float4 v = vload4(1, pv);
        vstore4(v * v0, 0, pv);
        r += pv[0] + pv[3] + v.x;
        lf[get_local_id(0)] = r;
        barrier(CLK_LOCAL_MEM_FENCE);
        out[i] = lf[(get_local_id(0) + 1) % get_local_size(0)] + a * 10 + b;
        event_t ev = async_work_group_copy(out + get_global_size(0) + i - get_local_id(0),
                                           lf, get_local_size(0), 0);
        wait_group_events(1, &ev);
    }
"#;

#[test]
fn built_ins_with_pointers_behave_the_same_with_tagged_pointers() {
    let gpu = Gpu::new();
    let n = 32usize;
    let input: Vec<f32> = (0..n).map(|i| i as f32 * 0.37 - 4.5).collect();
    let run = |options: &str| {
        let k = gpu.kernel_with_options(BUILTIN_POINTERS, "k", options);
        let (din, dout) = (gpu.buffer(&input), gpu.zeroed::<f32>(2 * n));
        k.arg_buffer(0, &din)
            .arg_buffer(1, &dout)
            .arg_local(2, 8 * 4)
            .arg_bytes(3, &1i32.to_ne_bytes());
        gpu.run(&k, &[n], Some(&[8]), None);
        gpu.read::<f32>(&dout)
    };
    let plain = run("-cl-std=CL3.0");
    let tagged = run("-cl-std=CL3.0 -DTAGGED");
    // a = 6, b = 2 on every work-item.
    let neighbour = |i: usize| plain[n + i / 8 * 8 + (i + 1) % 8];
    for (i, &value) in plain[..n].iter().enumerate() {
        assert_eq!(value, neighbour(i) + 62.0, "plain kernel, item {i}");
    }
    let same = plain
        .iter()
        .zip(&tagged)
        .all(|(p, t)| p.to_bits() == t.to_bits());
    assert!(same, "plain {plain:?}\ntagged {tagged:?}");
}

/// Pointers to private and local memory inside a private struct reached
/// through a pointer, a pointer into the struct's array member, and a
/// work-group reduction, in a program compiled with tagged pointers (each
/// work-item picks `a` or `b` at run time).
const STRUCT_POINTERS: &str = r#"
    typedef struct { int *p; local int *lp; int v[3]; } S;
    kernel void k(global int *out, local int *l) {
        size_t gid = get_global_id(0), lid = get_local_id(0);
        int a = 1, b = 2;
        int *sel = (gid & 1) ? &a : &b;
        *sel += 5;
        S s = { sel, l + lid, { 1, 2, 3 } };
        S *ps = &s;
        *ps->p += ps->v[2];
        *ps->lp = a * 100 + (int)lid;
        barrier(CLK_LOCAL_MEM_FENCE);
        int w = work_group_reduce_add(a);
        int *q = &s.v[1];
        q[1] += w;
        out[3 * gid] = s.v[2];
        out[3 * gid + 1] = l[(lid + 1) % 8];
        out[3 * gid + 2] = a * 100 + b;
    }
"#;

#[test]
fn pointers_in_a_private_struct_with_tagged_pointers() {
    let gpu = Gpu::new();
    let k = gpu.kernel_with_options(STRUCT_POINTERS, "k", "-cl-std=CL3.0");
    let n = 16usize;
    let out = gpu.zeroed::<i32>(3 * n);
    k.arg_buffer(0, &out).arg_local(1, 8 * 4);
    gpu.run(&k, &[n], Some(&[8]), None);
    // Odd items: a = 6 + 3; even items: b = 7 + 3. Four of each per group.
    let a_of = |g: usize| if g & 1 == 1 { 9 } else { 1 };
    let b_of = |g: usize| if g & 1 == 1 { 2 } else { 10 };
    let want: Vec<i32> = (0..n)
        .flat_map(|g| {
            let nb = (g % 8 + 1) % 8;
            [
                3 + 4 * 9 + 4,
                a_of(nb) * 100 + nb as i32,
                a_of(g) * 100 + b_of(g),
            ]
        })
        .collect();
    assert_same(&gpu.read::<i32>(&out), &want, "struct pointers");
}
