//! Execution tests for the generic address space (OpenCL C 2.0/3.0):
//! pointers without an address space in helper functions and variables,
//! `to_global`/`to_local`/`to_private`, and casts to generic pointers.
//! Every call is inlined, so each generic pointer's space is known where it
//! is made.

mod common;

use common::*;

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
#[ignore = "tagged generic pointers are off (compiler/src/lower/mod.rs TAGGED_GENERIC_POINTERS): with them on, this kernel crashes lavapipe"]
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
