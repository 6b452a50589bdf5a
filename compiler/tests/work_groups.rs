//! Which kernels observe nothing of their work-groups
//! (`KernelInfo::ignores_work_groups`, compiler lower/work_groups.rs): the
//! runtime runs only those with work-groups of its own size.

mod common;

use ferrocl_compiler::TargetCaps;

fn caps() -> TargetCaps {
    TargetCaps {
        extensions: vec!["cl_khr_subgroups".to_string()],
        ..TargetCaps::default()
    }
}

/// Whether the one kernel `k` of `src` ignores its work-groups.
fn ignores(src: &str) -> bool {
    let p = common::build_caps(src, &caps());
    let k = p.kernels.iter().find(|k| k.name == "k").expect("kernel k");
    k.ignores_work_groups
}

#[test]
fn kernels_of_global_ids_and_sizes_ignore_work_groups() {
    for src in [
        "kernel void k(global uint *p) { p[get_global_id(0)] = 1; }",
        // Every global built-in, printf, a helper, global atomics.
        r#"uint twice(uint x) { return 2 * x; }
           kernel void k(global uint *p, global int *c) {
               size_t g = get_global_id(0) + get_global_size(1) + get_global_offset(0)
                        + get_work_dim() + get_global_linear_id();
               p[g] = twice((uint)g);
               atomic_inc(c);
               if (g == 0) printf("%u\n", p[0]);
           }"#,
        // A private array, a `__constant` table, a cast to `__global`.
        r#"constant uint table[2] = {1, 2};
           kernel void k(global uint *p) {
               uint a[4] = {0};
               a[p[0] & 3] = table[p[1] & 1];
               ((global uchar *)p)[3] = (uchar)a[1];
           }"#,
        // A local id read into a variable that is never used (hashcat's
        // kernels declare `lid` whether or not they use it).
        r#"kernel void k(global uint *p) {
               const size_t lid = get_local_id(0);
               const size_t lsz = get_local_size(0);
               p[get_global_id(0)] = 1;
           }"#,
    ] {
        assert!(ignores(src), "{src}");
    }
}

#[test]
fn kernels_that_observe_work_groups_are_marked() {
    for src in [
        "kernel void k(global uint *p) { p[get_local_id(0)] = 1; }",
        "kernel void k(global uint *p) { p[0] = get_local_size(0); }",
        "kernel void k(global uint *p) { p[0] = get_enqueued_local_size(0); }",
        "kernel void k(global uint *p) { p[get_group_id(0)] = 1; }",
        "kernel void k(global uint *p) { p[0] = get_num_groups(0); }",
        "kernel void k(global uint *p) { p[get_local_linear_id()] = 1; }",
        "kernel void k(global uint *p) { p[0] = 1; barrier(CLK_GLOBAL_MEM_FENCE); }",
        "kernel void k(global uint *p) { p[0] = 1; mem_fence(CLK_GLOBAL_MEM_FENCE); }",
        "kernel void k(global uint *p) { p[0] = 1; write_mem_fence(CLK_GLOBAL_MEM_FENCE); }",
        "kernel void k(global uint *p) { p[0] = get_sub_group_local_id(); }",
        "kernel void k(global uint *p) { p[0] = sub_group_reduce_add(p[0]); }",
        // Through a helper, and a helper's helper.
        r#"uint lid(void) { return get_local_id(0); }
           uint twice(void) { return 2 * lid(); }
           kernel void k(global uint *p) { p[0] = twice(); }"#,
        // `__local` memory: a variable, an argument.
        r#"kernel void k(global uint *p) {
               local uint s[4];
               s[0] = p[0];
               p[1] = s[0];
           }"#,
        "kernel void k(global uint *p, local uint *s) { s[0] = p[0]; p[1] = s[0]; }",
        // The variable is read, in the kernel or through a pointer to it.
        r#"kernel void k(global uint *p) {
               const size_t lid = get_local_id(0);
               p[get_global_id(0)] = lid;
           }"#,
        r#"kernel void k(global uint *p) {
               size_t lid = get_local_id(0);
               size_t *q = &lid;
               p[0] = *q;
           }"#,
        // A query whose argument is not a constant.
        r#"kernel void k(global uint *p) {
               uint d = p[0];
               size_t lsz = get_local_size(d++);
               p[1] = d;
           }"#,
    ] {
        assert!(!ignores(src), "{src}");
    }
}

#[test]
fn work_group_functions_and_scopes_of_opencl_c_2_are_marked() {
    for src in [
        "kernel void k(global int *p) { p[0] = work_group_reduce_add(p[0]); }",
        "kernel void k(global int *p) { p[0] = work_group_broadcast(p[0], 0); }",
        "kernel void k(global int *p) { p[0] = 1; work_group_barrier(CLK_GLOBAL_MEM_FENCE); }",
        r#"kernel void k(global atomic_int *p) {
               atomic_fetch_add_explicit(p, 1, memory_order_relaxed, memory_scope_work_group);
           }"#,
    ] {
        let p = ferrocl_compiler::compile(
            &ferrocl_compiler::CompileRequest {
                source: src,
                options: "-cl-std=CL2.0",
                headers: &[],
            },
            &caps(),
        )
        .unwrap_or_else(|e| panic!("{src}: {e}"));
        assert!(!p.kernels[0].ignores_work_groups, "{src}");
    }
}
