//! OpenCL C 2.0 atomics and 64-bit atomics: every form builds to a module
//! that `spirv-val` accepts, with the memory semantics the Vulkan memory
//! model allows; misuse is diagnosed.

mod common;

use ferrocl_compiler::TargetCaps;

fn caps_with(features: &[&str], int64_atomics: bool) -> TargetCaps {
    TargetCaps {
        int64_atomics,
        features: features.iter().map(|f| f.to_string()).collect(),
        ..TargetCaps::default()
    }
}

const EVERY_C11_FORM: &str = r#"
        kernel void k(volatile global int *gi, volatile global uint *gu, global float *gf,
                      global int *out) {
            local int li;
            local uint lu;
            atomic_init(&li, 0);
            atomic_store(&lu, 1u);
            atomic_store_explicit(&gi[1], 2, memory_order_release);
            atomic_store_explicit(&gi[2], 3, memory_order_seq_cst, memory_scope_work_group);
            int a = atomic_load(&gi[0]);
            a += atomic_load_explicit(&li, memory_order_acquire);
            a += atomic_load_explicit(&gi[3], memory_order_relaxed, memory_scope_device);
            a += atomic_exchange(&gi[4], a);
            a += atomic_exchange_explicit(&li, a, memory_order_acq_rel, memory_scope_sub_group);
            int expected = 5;
            bool ok = atomic_compare_exchange_strong(&gi[5], &expected, 6);
            ok = ok && atomic_compare_exchange_weak_explicit(&li, &expected, 7,
                         memory_order_acq_rel, memory_order_acquire, memory_scope_work_group);
            ok = ok || atomic_compare_exchange_strong_explicit(&gu[0], (uint *)&expected, 8u,
                         memory_order_release, memory_order_relaxed);
            a += atomic_fetch_add(&gi[6], 1) + atomic_fetch_sub(&lu, 1u);
            a += atomic_fetch_or_explicit(&gu[1], 2u, memory_order_relaxed);
            a += atomic_fetch_xor_explicit(&gu[2], 2u, memory_order_acquire, memory_scope_device);
            a += atomic_fetch_and(&li, 3) + atomic_fetch_min(&gi[7], a) + atomic_fetch_max(&lu, 4u);
            a += atomic_fetch_min_explicit(&gu[3], 5u, memory_order_seq_cst, memory_scope_work_item);
            a += atomic_flag_test_and_set(&gi[8]);
            a += atomic_flag_test_and_set_explicit(&li, memory_order_acquire, memory_scope_device);
            atomic_flag_clear(&gi[8]);
            atomic_flag_clear_explicit(&li, memory_order_release);
            atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_release, memory_scope_device);
            atomic_work_item_fence(CLK_LOCAL_MEM_FENCE, memory_order_acquire, memory_scope_work_group);
            atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE,
                                   memory_order_seq_cst, memory_scope_work_item);
            atomic_work_item_fence(CLK_LOCAL_MEM_FENCE, memory_order_relaxed, memory_scope_work_group);
            work_group_barrier(CLK_GLOBAL_MEM_FENCE, memory_scope_device);
            work_group_barrier(CLK_LOCAL_MEM_FENCE, memory_scope_work_group);
            work_group_barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE, memory_scope_sub_group);
            float f = atomic_load(gf) + atomic_exchange(&gf[1], 1.0f);
            atomic_store(&gf[2], f);
            float fe = 1.0f;
            ok = ok && atomic_compare_exchange_strong(&gf[3], &fe, 2.0f);
            local float lf;
            atomic_store_explicit(&lf, f, memory_order_relaxed, memory_scope_work_group);
            f += atomic_exchange(&lf, 3.0f) + atomic_load(&lf);
            out[0] = a + ok;
        }"#;

#[test]
fn every_c11_atomic_form_validates() {
    let p = common::build(EVERY_C11_FORM);
    let text = common::disassemble(&p.spirv);
    assert!(text.is_empty() || text.contains("OpMemoryBarrier"));
}

#[test]
fn fences_become_work_group_atomics_where_the_driver_asks() {
    // lavapipe runs OpMemoryBarrier as a work-group barrier: there every
    // fence, and every order of an atomic, is a relaxed OR into a
    // work-group word (TargetCaps::fences_as_atomics).
    let caps = TargetCaps {
        fences_as_atomics: true,
        ..TargetCaps::default()
    };
    let p = common::build_caps(EVERY_C11_FORM, &caps);
    let text = common::disassemble(&p.spirv);
    if text.is_empty() {
        return;
    }
    assert!(!text.contains("OpMemoryBarrier"), "{text}");
    // `%r = OpAtomicOr %uint %word %scope %semantics %value`: the word
    // is the work-group variable most of them update.
    let mut per_pointer = std::collections::HashMap::<&str, usize>::new();
    for line in text.lines().filter(|l| l.contains("OpAtomicOr")) {
        if let Some(p) = line.split_whitespace().nth(4) {
            *per_pointer.entry(p).or_default() += 1;
        }
    }
    let (word, fences) = per_pointer
        .into_iter()
        .max_by_key(|e| e.1)
        .unwrap_or(("none", 0));
    let declared = format!("{word} = OpVariable");
    assert!(
        text.lines()
            .any(|l| l.trim_start().starts_with(&declared) && l.ends_with("Workgroup")),
        "{word} is not a work-group variable"
    );
    assert!(fences >= 10, "{fences} fences on {word} in\n{text}");
}

#[test]
fn sixty_four_bit_atomics_validate_where_the_device_has_them() {
    let src = r#"
        #pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
        #pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable
        kernel void k(global long *g, global ulong *u) {
            local long l;
            local ulong lu;
            l = 0; lu = 0;
            barrier(CLK_LOCAL_MEM_FENCE);
            atom_add(&l, 2L);
            atom_min(&l, g[0]);
            atom_max(&lu, u[0]);
            atom_inc(&lu);
            atom_cmpxchg(&g[1], 3L, 4L);
            atom_xor(&u[1], 5UL);
            atomic_fetch_add(&g[2], 1L);
            global double *gd = (global double *)u;
            double de = 1.0;
            atomic_compare_exchange_strong(&gd[4], &de, 2.0);
            atomic_store(&gd[5], atomic_exchange(&gd[6], de) + atomic_load(&gd[7]));
            long e = 0;
            atomic_compare_exchange_strong_explicit(&l, &e, 9L, memory_order_acq_rel,
                                                    memory_order_relaxed, memory_scope_work_group);
            u[2] = atomic_load(&lu) + atomic_exchange(&u[3], 7UL);
        }"#;
    let mut caps = caps_with(&[], true);
    caps.fp64 = true;
    common::build_caps(src, &caps);
    caps.int64_atomics = false;
    let log = match common::build_with(src, &caps) {
        Ok(_) => panic!("64-bit atomics built for a device without them"),
        Err(e) => e.log,
    };
    assert!(log.contains("atomic functions on 'long'"), "{log}");
}

#[test]
fn float_atomics_follow_the_device_features() {
    let src = r#"
        kernel void k(global float *g) {
            local float l;
            l = 0.0f;
            barrier(CLK_LOCAL_MEM_FENCE);
            float a = atomic_fetch_add(&g[0], 1.0f);
            a += atomic_fetch_sub_explicit(&l, 2.0f, memory_order_relaxed);
            a += atomic_fetch_min(&g[1], a);
            a += atomic_fetch_max_explicit(&l, a, memory_order_relaxed, memory_scope_work_group);
            g[2] = a;
        }"#;
    let all = caps_with(
        &[
            "__opencl_c_ext_fp32_global_atomic_add",
            "__opencl_c_ext_fp32_local_atomic_add",
            "__opencl_c_ext_fp32_global_atomic_min_max",
            "__opencl_c_ext_fp32_local_atomic_min_max",
        ],
        false,
    );
    let p = common::build_caps(src, &all);
    assert!(!p.spirv.is_empty());
    let only_add = caps_with(&["__opencl_c_ext_fp32_global_atomic_add"], false);
    let log = match common::build_with(src, &only_add) {
        Ok(_) => panic!("float atomic min built without the feature"),
        Err(e) => e.log,
    };
    assert!(
        log.contains("__opencl_c_ext_fp32_local_atomic_add"),
        "{log}"
    );
    assert!(
        log.contains("__opencl_c_ext_fp32_global_atomic_min_max"),
        "{log}"
    );
}

#[test]
fn misuse_is_diagnosed() {
    for (src, want) in [
        (
            "kernel void k(global int *p) { atomic_load(p, memory_order_relaxed); }",
            "'atomic_load' takes 1 arguments",
        ),
        (
            "kernel void k(global int *p) { atomic_store_explicit(p, 1); }",
            "'atomic_store_explicit' takes 3 or 4 arguments",
        ),
        (
            "kernel void k(global int *p) { int x = 0; atomic_fetch_add(x, 1); }",
            "must be a pointer",
        ),
        (
            "kernel void k(global float *p) { atomic_fetch_or(p, 1.0f); }",
            "takes an integer object",
        ),
        (
            "kernel void k(global long *p) { atomic_flag_clear(p); }",
            "atomic_flag",
        ),
        (
            "typedef struct { float a; int b; } pair;
             kernel void k(global float *p) { local pair l; float e = 0;
                 atomic_compare_exchange_strong(&l.a, &e, 1.0f); }",
            "inside a __local struct or vector is not supported",
        ),
        (
            "kernel void k(global float *p) { local atomic_float l; atomic_fetch_or(&l, 1.0f); }",
            "takes an integer object",
        ),
        (
            "kernel void k(global int *g) { int x = 0; atomic_fetch_add(&x, 1); }",
            "__global or __local",
        ),
    ] {
        let log = common::build_error(src);
        assert!(log.contains(want), "for {src}\nwanted '{want}' in:\n{log}");
    }
}

#[test]
fn c11_atomic_types_and_enumerators_are_declared() {
    // The 2.0 atomic type names, `memory_order`/`memory_scope` variables,
    // and the initializer macros, as the CTS c11_atomics suite writes them.
    let src = r#"
        kernel void k(global atomic_int *a, global atomic_ulong *b, global atomic_float *c,
                      global int *out) {
            atomic_flag f = ATOMIC_FLAG_INIT;
            atomic_int init = ATOMIC_VAR_INIT(3);
            memory_order o = memory_order_relaxed;
            memory_scope s = memory_scope_device;
            int v = atomic_fetch_add_explicit(a, 1, o, s);
            ulong w = atomic_load(b);
            float x = atomic_load_explicit(c, memory_order_acquire);
            out[get_global_id(0)] = v + (int)w + (int)x + f + init + o + s;
        }"#;
    let caps = caps_with(&[], true);
    let opts = ferrocl_compiler::CompileRequest {
        source: src,
        options: "-cl-std=CL2.0",
        headers: &[],
    };
    let program = ferrocl_compiler::compile(&opts, &caps).unwrap_or_else(|e| panic!("{}", e.log));
    common::validate(&program.spirv);
}

fn float_caps() -> TargetCaps {
    let mut caps = caps_with(
        &[
            "__opencl_c_ext_fp32_global_atomic_add",
            "__opencl_c_ext_fp32_local_atomic_add",
            "__opencl_c_ext_fp32_global_atomic_min_max",
            "__opencl_c_ext_fp32_local_atomic_min_max",
        ],
        true,
    );
    caps.fp64 = true;
    caps
}

fn build_cl20(src: &str, caps: &TargetCaps) -> Result<ferrocl_compiler::CompiledProgram, String> {
    let req = ferrocl_compiler::CompileRequest {
        source: src,
        options: "-cl-std=CL2.0",
        headers: &[],
    };
    ferrocl_compiler::compile(&req, caps).map_err(|e| e.log)
}

#[test]
fn local_float_and_double_atomics_validate() {
    // Kernel-scope scalars and arrays, `__local` pointer arguments, and a
    // helper function taking the pointer, as the CTS c11_atomics suite
    // writes them; also ordinary accesses to `__local` floats of the same
    // program, which read and write the bits.
    let src = r#"
        #pragma OPENCL EXTENSION cl_khr_fp64 : enable
        #pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
        #pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable
        void helper(volatile __local atomic_double *d, __global double *out, uint i) {
            double e = 1.0;
            atomic_compare_exchange_weak_explicit(d + i, &e, 2.0, memory_order_acq_rel,
                                                  memory_order_relaxed, memory_scope_work_group);
            out[i] = atomic_exchange(&d[i], e) + atomic_load(d + 1);
        }
        kernel void k(global float *gf, global double *gd, volatile __local atomic_float *lf,
                      volatile __local atomic_double *ld, __local float *plain) {
            __local atomic_float f;
            __local atomic_double d;
            __local volatile atomic_float fa[4][3];
            __local atomic_double da[8];
            __local float tile[16];
            uint l = get_local_id(0);
            atomic_init(&f, 1.0f);
            atomic_init(&d, 2.0);
            atomic_store(&fa[l % 4][1], gf[0]);
            atomic_store_explicit(&da[l % 8], gd[0], memory_order_release, memory_scope_work_group);
            atomic_store_explicit(lf + l, 3.0f, memory_order_relaxed, memory_scope_work_group);
            atomic_init(&ld[l], 4.0);
            tile[l % 16] = gf[l];
            plain[l] = tile[(l + 1) % 16] * 2.0f;
            plain[l] += 1.0f;
            barrier(CLK_LOCAL_MEM_FENCE);
            float x = atomic_load(&f) + atomic_exchange(&fa[1][2], 5.0f) + atomic_load(lf + 1);
            double y = atomic_load_explicit(&d, memory_order_acquire) + atomic_exchange(&da[3], 6.0)
                       + atomic_exchange_explicit(&ld[2], 7.0, memory_order_acq_rel);
            float fe = x;
            bool ok = atomic_compare_exchange_strong(&f, &fe, 8.0f);
            double de = y;
            ok = atomic_compare_exchange_weak(&da[1], &de, 9.0) && ok;
            ok = atomic_compare_exchange_strong(&gf[1], &fe, x) && ok;
            ok = atomic_compare_exchange_strong_explicit(&gd[1], &de, y, memory_order_acq_rel,
                                                         memory_order_acquire) && ok;
            x += atomic_fetch_add(&f, 1.0f) + atomic_fetch_sub_explicit(lf, 1.0f, memory_order_acq_rel);
            x += atomic_fetch_min(&fa[0][0], x) + atomic_fetch_max_explicit(&fa[2][2], x,
                     memory_order_relaxed, memory_scope_work_group);
            helper(ld, gd, l);
            gf[l] = x + fe + tile[l % 16] + plain[l] + ok;
            gd[l] = y + de;
        }"#;
    let p = build_cl20(src, &float_caps()).unwrap_or_else(|log| panic!("{log}"));
    common::validate(&p.spirv);
}

#[test]
fn float_atomics_on_the_local_word_pool_validate() {
    // A program that reinterprets `__local` memory keeps it in a pool of
    // 32-bit words: float atomics move the words.
    let src = r#"
        kernel void k(global float *g, __local atomic_float *lf) {
            __local atomic_float f[2];
            __local uint words[4];
            ((__local float *)words)[get_local_id(0) % 4] = 1.0f;
            atomic_init(&f[0], 0.0f);
            atomic_store(lf, 2.0f);
            barrier(CLK_LOCAL_MEM_FENCE);
            float e = 0.0f;
            atomic_compare_exchange_strong(&f[0], &e, 1.0f);
            g[0] = atomic_exchange(&f[1], e) + atomic_load(lf) + atomic_fetch_add(&f[0], 1.0f)
                   + atomic_xchg((volatile __local float *)&words[0], 3.0f);
        }"#;
    let p = build_cl20(src, &float_caps()).unwrap_or_else(|log| panic!("{log}"));
    common::validate(&p.spirv);
    let doubles = r#"
        #pragma OPENCL EXTENSION cl_khr_fp64 : enable
        kernel void k(global double *g) {
            __local atomic_double d;
            __local uint words[4];
            ((__local float *)words)[0] = 1.0f;
            atomic_store(&d, 1.0);
            g[0] = atomic_load(&d);
        }"#;
    let log = build_cl20(doubles, &float_caps()).expect_err("64-bit atomics on the word pool");
    assert!(
        log.contains("64-bit atomics on reinterpreted __local memory"),
        "{log}"
    );
}

#[test]
fn local_double_atomics_need_int64_atomics() {
    let src = r#"
        #pragma OPENCL EXTENSION cl_khr_fp64 : enable
        kernel void k(global double *g) {
            __local atomic_double d;
            atomic_store(&d, g[0]);
            g[1] = atomic_load(&d);
        }"#;
    let mut caps = float_caps();
    let p = build_cl20(src, &caps).unwrap_or_else(|log| panic!("{log}"));
    common::validate(&p.spirv);
    caps.int64_atomics = false;
    let log = build_cl20(src, &caps).expect_err("double atomics without 64-bit atomics");
    assert!(log.contains("atomic functions on 'double'"), "{log}");
}

#[test]
fn float_fetch_on_local_bits_still_needs_the_feature() {
    let src = r#"
        kernel void k(global float *g) {
            __local atomic_float f;
            atomic_init(&f, 0.0f);
            g[0] = atomic_fetch_add(&f, 1.0f);
        }"#;
    let caps = caps_with(&["__opencl_c_ext_fp32_global_atomic_add"], false);
    let log = build_cl20(src, &caps).expect_err("local float add without the feature");
    assert!(
        log.contains("__opencl_c_ext_fp32_local_atomic_add"),
        "{log}"
    );
}
