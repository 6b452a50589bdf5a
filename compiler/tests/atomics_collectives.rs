//! Work-group collectives and sub-group functions build to modules that
//! `spirv-val` accepts; sub-group functions need the device's extensions.

mod common;

use ferrocl_compiler::TargetCaps;

const SUBGROUP_EXTENSIONS: [&str; 8] = [
    "cl_khr_subgroups",
    "cl_khr_subgroup_non_uniform_vote",
    "cl_khr_subgroup_ballot",
    "cl_khr_subgroup_non_uniform_arithmetic",
    "cl_khr_subgroup_shuffle",
    "cl_khr_subgroup_shuffle_relative",
    "cl_khr_subgroup_rotate",
    "cl_khr_subgroup_extended_types",
];

fn subgroup_caps() -> TargetCaps {
    TargetCaps {
        fp64: true,
        int16: true,
        extensions: SUBGROUP_EXTENSIONS.iter().map(|e| e.to_string()).collect(),
        ..TargetCaps::default()
    }
}

#[test]
fn work_group_collectives_validate_for_every_type() {
    let src = r#"
        kernel void k(global int *i, global uint *u, global long *l, global ulong *ul,
                      global float *f, global double *d) {
            size_t g = get_global_id(0);
            i[g] = work_group_all(i[g]) + work_group_any(f[g] > 0.0f)
                 + work_group_broadcast(i[g], 0) + work_group_broadcast(i[g], 1, 2)
                 + work_group_broadcast(i[g], 1, 0, 0)
                 + work_group_reduce_add(i[g]) + work_group_scan_exclusive_min(i[g]);
            u[g] = work_group_reduce_max(u[g]) + work_group_scan_inclusive_add(u[g]);
            l[g] = work_group_reduce_min(l[g]) + work_group_scan_exclusive_max(l[g]);
            ul[g] = work_group_scan_inclusive_min(ul[g]) + work_group_broadcast(ul[g], 3);
            f[g] = work_group_reduce_add(f[g]) + work_group_scan_exclusive_max(f[g])
                 + work_group_scan_inclusive_min(f[g]);
            d[g] = work_group_reduce_max(d[g]) + work_group_scan_exclusive_add(d[g]);
        }"#;
    common::build_caps(
        src,
        &TargetCaps {
            fp64: true,
            ..TargetCaps::default()
        },
    );
}

#[test]
fn work_group_collective_misuse_is_diagnosed() {
    for (src, want) in [
        (
            "kernel void k(global int *p) { p[0] = work_group_reduce_add(p[0], 1); }",
            "takes 1 argument",
        ),
        (
            "kernel void k(global char *p) { p[0] = work_group_reduce_add(p[0]); }",
            "not 'char'",
        ),
        (
            "kernel void k(global int4 *p) { p[0] = work_group_broadcast(p[0], 0); }",
            "not 'int4'",
        ),
        (
            "kernel void k(global int *p) { p[0] = work_group_broadcast(p[0]); }",
            "takes 2 to 4 arguments",
        ),
    ] {
        let log = common::build_error(src);
        assert!(log.contains(want), "for {src}\nwanted '{want}' in:\n{log}");
    }
}

#[test]
fn sub_group_functions_validate() {
    let src = r#"
        kernel void k(global int *i, global uint *u, global long *l, global float *f,
                      global double *d, global short *s, global uchar *c) {
            size_t g = get_global_id(0);
            uint lid = get_sub_group_local_id();
            u[g] = get_sub_group_size() + get_max_sub_group_size() + get_num_sub_groups()
                 + get_enqueued_num_sub_groups() + get_sub_group_id() + lid;
            sub_group_barrier(CLK_LOCAL_MEM_FENCE);
            sub_group_barrier(CLK_GLOBAL_MEM_FENCE, memory_scope_work_group);
            sub_group_barrier(0);
            i[g] = sub_group_all(i[g]) + sub_group_any(i[g]) + sub_group_broadcast(i[g], 0)
                 + sub_group_broadcast(i[g], lid ^ 1) + sub_group_reduce_add(i[g])
                 + sub_group_scan_exclusive_min(i[g]) + sub_group_scan_inclusive_max(i[g]);
            l[g] = sub_group_reduce_max(l[g]) + sub_group_scan_inclusive_add(l[g]);
            f[g] = sub_group_reduce_min(f[g]) + sub_group_scan_exclusive_add(f[g]);
            d[g] = sub_group_reduce_add(d[g]);
            uint4 b = sub_group_ballot(i[g] > 0);
            u[g] += sub_group_ballot_bit_count(b) + sub_group_ballot_inclusive_scan(b)
                  + sub_group_ballot_exclusive_scan(b) + sub_group_ballot_find_lsb(b)
                  + sub_group_ballot_find_msb(b) + sub_group_ballot_bit_extract(b, 2)
                  + sub_group_inverse_ballot(b) + get_sub_group_eq_mask().x
                  + get_sub_group_ge_mask().y + get_sub_group_gt_mask().z
                  + get_sub_group_le_mask().w + get_sub_group_lt_mask().x;
            i[g] += sub_group_elect() + sub_group_non_uniform_all(i[g])
                  + sub_group_non_uniform_any(i[g]) + sub_group_non_uniform_all_equal(i[g])
                  + sub_group_non_uniform_broadcast(i[g], 0) + sub_group_broadcast_first(i[g]);
            i[g] += sub_group_non_uniform_reduce_mul(i[g])
                  + sub_group_non_uniform_scan_inclusive_and(i[g])
                  + sub_group_non_uniform_scan_exclusive_or(i[g])
                  + sub_group_non_uniform_reduce_xor(i[g])
                  + sub_group_non_uniform_reduce_logical_and(i[g])
                  + sub_group_non_uniform_scan_inclusive_logical_xor(i[g]);
            f[g] += sub_group_non_uniform_reduce_mul(f[g]) + sub_group_shuffle(f[g], lid)
                  + sub_group_shuffle_xor(f[g], 1u) + sub_group_shuffle_up(f[g], 1u)
                  + sub_group_shuffle_down(f[g], 2u);
            s[g] = sub_group_broadcast(s[g], 1) + sub_group_shuffle(s[g], 0u);
            int3 v3 = sub_group_non_uniform_broadcast((int3)(i[g], 1, 2), 1u);
            float8 v8 = sub_group_broadcast_first((float8)(f[g]));
            i[g] += v3.z + (int)v8.s7 + sub_group_rotate(i[g], -2)
                  + sub_group_clustered_rotate(i[g], 1, 4u);
            long16 w = sub_group_broadcast((long16)(l[g]), 3);
            l[g] += w.sF;
            c[g] = sub_group_reduce_add(c[g]);
        }"#;
    common::build_caps(src, &subgroup_caps());
}

#[test]
fn sub_group_functions_need_the_extensions() {
    let log = common::build_error(
        "kernel void k(global uint *p) { p[0] = get_sub_group_size() + sub_group_reduce_add(p[1]); }",
    );
    assert!(log.contains("needs cl_khr_subgroups"), "{log}");
    // The OpenCL C 3.0 feature alone offers the core functions.
    common::build_caps(
        "kernel void k(global uint *p) { p[0] = get_sub_group_size() + sub_group_reduce_add(p[1]); }",
        &TargetCaps {
            features: vec!["__opencl_c_subgroups".to_string()],
            ..TargetCaps::default()
        },
    );
    let mut caps = TargetCaps {
        extensions: vec!["cl_khr_subgroups".to_string()],
        ..TargetCaps::default()
    };
    let src = "kernel void k(global int *p) { p[0] = sub_group_shuffle(p[1], 0u); }";
    let log = common::build_error_caps(src, &caps);
    assert!(log.contains("needs cl_khr_subgroup_shuffle"), "{log}");
    caps.extensions.push("cl_khr_subgroup_shuffle".to_string());
    common::build_caps(src, &caps);
    let log = common::build_error_caps(
        "kernel void k(global float *p) { p[0] = sub_group_non_uniform_reduce_and(p[1]); }",
        &subgroup_caps(),
    );
    assert!(log.contains("takes integers"), "{log}");
}

#[test]
fn clustered_reductions_validate_and_need_a_constant_power_of_two() {
    let mut caps = subgroup_caps();
    caps.extensions
        .push("cl_khr_subgroup_clustered_reduce".to_string());
    let src = r#"
        #define CLUSTER 8
        kernel void k(global int *i, global uint *u, global long *l, global float *f,
                      global double *d, global uchar *c) {
            size_t g = get_global_id(0);
            i[g] = sub_group_clustered_reduce_add(i[g], 4) + sub_group_clustered_reduce_mul(i[g], 2u)
                 + sub_group_clustered_reduce_min(i[g], 1) + sub_group_clustered_reduce_max(i[g], CLUSTER)
                 + sub_group_clustered_reduce_and(i[g], 2 * 2)
                 + sub_group_clustered_reduce_logical_and(i[g], 4)
                 + sub_group_clustered_reduce_logical_or(i[g] > 3, 16)
                 + sub_group_clustered_reduce_logical_xor(i[g], 2);
            u[g] = sub_group_clustered_reduce_or(u[g], 4) ^ sub_group_clustered_reduce_xor(u[g], 8);
            l[g] = sub_group_clustered_reduce_max(l[g], 4);
            f[g] = sub_group_clustered_reduce_add(f[g], 4) + sub_group_clustered_reduce_min(f[g], 2);
            d[g] = sub_group_clustered_reduce_mul(d[g], 4);
            c[g] = sub_group_clustered_reduce_add(c[g], 2);
        }"#;
    let words = common::build_caps(src, &caps).spirv;
    let text = common::disassemble(&words);
    assert!(
        text.contains("OpCapability GroupNonUniformClustered"),
        "{text}"
    );
    assert!(text.contains("ClusteredReduce"), "{text}");
    // Without the extension the functions are unknown to the device.
    let log = common::build_error_caps(src, &subgroup_caps());
    assert!(
        log.contains("needs cl_khr_subgroup_clustered_reduce"),
        "{log}"
    );
    for (size, what) in [
        ("3", "not a power of two"),
        ("0", "zero"),
        ("-4", "negative"),
        ("p[1]", "not a constant"),
    ] {
        let src = format!(
            "kernel void k(global uint *p) {{ p[0] = sub_group_clustered_reduce_add(p[0], {size}); }}"
        );
        let log = common::build_error_caps(&src, &caps);
        assert!(
            log.contains("integer constant expression and a power of two"),
            "{what}: {log}"
        );
    }
    // There are no clustered scans, and bitwise reductions take integers.
    common::assert_build_errors(
        &caps,
        &[
            (
                "kernel void k(global uint *p) { p[0] = sub_group_clustered_scan_inclusive_add(p[0], 4); }",
                "sub_group_clustered_scan_inclusive_add",
            ),
            (
                "kernel void k(global float *p) { p[0] = sub_group_clustered_reduce_or(p[0], 4); }",
                "takes integers",
            ),
            (
                "kernel void k(global uint *p) { p[0] = sub_group_clustered_reduce_add(p[0]); }",
                "takes 2 arguments",
            ),
        ],
    );
}

#[test]
fn uniform_arithmetic_collectives_validate_and_need_the_extension() {
    let src = r#"
        kernel void k(global int *i, global ulong *l, global float *f, global double *d) {
            size_t g = get_global_id(0);
            i[g] = work_group_reduce_mul(i[g]) + work_group_scan_inclusive_and(i[g])
                 + work_group_scan_exclusive_or(i[g]) + work_group_reduce_xor(i[g])
                 + work_group_reduce_logical_and(i[g]) + work_group_scan_inclusive_logical_or(i[g])
                 + work_group_scan_exclusive_logical_xor(i[g]);
            l[g] = work_group_scan_exclusive_mul(l[g]) ^ work_group_reduce_and(l[g]);
            f[g] = work_group_scan_inclusive_mul(f[g]);
            d[g] = work_group_reduce_mul(d[g]);
        }"#;
    let caps = TargetCaps {
        fp64: true,
        extensions: vec!["cl_khr_work_group_uniform_arithmetic".to_string()],
        ..TargetCaps::default()
    };
    common::build_caps(src, &caps);
    let log = common::build_error_caps(
        "kernel void k(global int *p) { p[0] = work_group_reduce_mul(p[1]); }",
        &TargetCaps::default(),
    );
    assert!(
        log.contains("needs cl_khr_work_group_uniform_arithmetic"),
        "{log}"
    );
    let log = common::build_error_caps(
        "kernel void k(global float *p) { p[0] = work_group_reduce_xor(p[1]); }",
        &caps,
    );
    assert!(log.contains("take integers"), "{log}");
}
