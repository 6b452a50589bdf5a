//! The OpenCL C 2.0 atomic functions (`atomic_fetch_<op>`, `atomic_load`,
//! `atomic_store`, `atomic_exchange`, `atomic_compare_exchange_*`,
//! `atomic_flag_*`, `atomic_work_item_fence`) with their memory orders and
//! scopes, under contention, checked against host results.

mod common;

use common::*;
use ferrocl_runtime::cl::*;

#[test]
fn fetch_operations_under_contention() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void k(__global const uint *in, volatile __global uint *u,
                        volatile __global int *s, __global uint *old) {
            size_t i = get_global_id(0);
            uint v = in[i];
            old[i] = atomic_fetch_add(&u[0], 1u);
            atomic_fetch_add_explicit(&u[1], v, memory_order_relaxed);
            atomic_fetch_sub_explicit(&u[2], v >> 4, memory_order_acq_rel, memory_scope_device);
            atomic_fetch_or_explicit(&u[3], v & 0x01010101u, memory_order_release,
                                     memory_scope_work_group);
            atomic_fetch_xor(&u[4], v);
            atomic_fetch_and_explicit(&u[5], v | 0x7f7f7f7fu, memory_order_acquire);
            atomic_fetch_min(&u[6], v);
            atomic_fetch_max_explicit(&u[7], v, memory_order_seq_cst, memory_scope_device);
            atomic_fetch_min(&s[0], (int)v);
            atomic_fetch_max(&s[1], (int)v);
        }"#;
    let n = 64 * 40usize;
    let data = XorShift::new(21).u32s(n);
    let init: Vec<u32> = vec![0, 5, 0, 0, 0x1234_5678, u32::MAX, u32::MAX, 0];
    let init_s: Vec<i32> = vec![i32::MAX, i32::MIN];
    let k = gpu.kernel_with_options(src, "k", "-cl-std=CL3.0");
    let (din, du, ds, dold) = (
        gpu.buffer(&data),
        gpu.buffer(&init),
        gpu.buffer(&init_s),
        gpu.zeroed::<u32>(n),
    );
    k.arg_buffer(0, &din)
        .arg_buffer(1, &du)
        .arg_buffer(2, &ds)
        .arg_buffer(3, &dold);
    gpu.run(&k, &[n], Some(&[64]), None);
    let mut want = init.clone();
    let mut want_s = init_s.clone();
    for &v in &data {
        want[0] += 1;
        want[1] = want[1].wrapping_add(v);
        want[2] = want[2].wrapping_sub(v >> 4);
        want[3] |= v & 0x0101_0101;
        want[4] ^= v;
        want[5] &= v | 0x7f7f_7f7f;
        want[6] = want[6].min(v);
        want[7] = want[7].max(v);
        want_s[0] = want_s[0].min(v as i32);
        want_s[1] = want_s[1].max(v as i32);
    }
    assert_same(&gpu.read::<u32>(&du), &want, "uint results");
    assert_same(&gpu.read::<i32>(&ds), &want_s, "int results");
    let mut old = gpu.read::<u32>(&dold);
    old.sort_unstable();
    let expected: Vec<u32> = (0..n as u32).collect();
    assert_same(&old, &expected, "values returned by atomic_fetch_add");
}

#[test]
fn compare_exchange_loops_and_exchange_on_local_memory() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void k(__global const uint *in, __global uint *sums,
                        __global uint *strong_sum, __global uint *passed) {
            __local uint sum;
            __local uint last;
            if (get_local_id(0) == 0) {
                atomic_init(&sum, 0u);
                atomic_store_explicit(&last, 0u, memory_order_relaxed, memory_scope_work_group);
            }
            barrier(CLK_LOCAL_MEM_FENCE);
            uint v = in[get_global_id(0)];
            /* Add with a weak compare-and-swap loop on local memory ... */
            uint seen = atomic_load_explicit(&sum, memory_order_relaxed, memory_scope_work_group);
            while (!atomic_compare_exchange_weak_explicit(&sum, &seen, seen + v,
                        memory_order_relaxed, memory_order_relaxed, memory_scope_work_group))
                ;
            /* ... and with a strong one on global memory. */
            uint g = atomic_load_explicit(strong_sum, memory_order_relaxed);
            while (!atomic_compare_exchange_strong_explicit(strong_sum, &g, g + (v & 0xff),
                        memory_order_relaxed, memory_order_relaxed))
                ;
            passed[get_global_id(0)] = atomic_exchange(&last, v);
            barrier(CLK_LOCAL_MEM_FENCE);
            if (get_local_id(0) == 0) {
                sums[get_group_id(0)] = atomic_load(&sum);
                passed[get_global_size(0) + get_group_id(0)] = atomic_load(&last);
            }
        }"#;
    let (groups, local) = (23usize, 48usize);
    let n = groups * local;
    let data: Vec<u32> = XorShift::new(22).u32s(n).iter().map(|v| v >> 8).collect();
    let k = gpu.kernel_with_options(src, "k", "-cl-std=CL3.0");
    let (din, dsums, dstrong, dpassed) = (
        gpu.buffer(&data),
        gpu.zeroed::<u32>(groups),
        gpu.zeroed::<u32>(1),
        gpu.zeroed::<u32>(n + groups),
    );
    k.arg_buffer(0, &din)
        .arg_buffer(1, &dsums)
        .arg_buffer(2, &dstrong)
        .arg_buffer(3, &dpassed);
    gpu.run(&k, &[n], Some(&[local]), None);
    let sums: Vec<u32> = data
        .chunks(local)
        .map(|c| c.iter().fold(0u32, |a, &v| a.wrapping_add(v)))
        .collect();
    assert_same(&gpu.read::<u32>(&dsums), &sums, "local CAS sums");
    let strong = data.iter().fold(0u32, |a, &v| a.wrapping_add(v & 0xff));
    assert_eq!(gpu.read::<u32>(&dstrong)[0], strong, "global CAS sum");
    let passed = gpu.read::<u32>(&dpassed);
    for g in 0..groups {
        let mut got: Vec<u32> = passed[g * local..(g + 1) * local].to_vec();
        got.push(passed[n + g]);
        got.sort_unstable();
        let mut want: Vec<u32> = data[g * local..(g + 1) * local].to_vec();
        want.push(0);
        want.sort_unstable();
        assert_same(&got, &want, "values passed through atomic_exchange");
    }
}

#[test]
fn atomic_flag_has_one_winner_and_guards_a_critical_section() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void k(volatile __global int *flags, __global uint *winners,
                        volatile __global int *lock, __global uint *counter) {
            size_t g = get_group_id(0);
            if (!atomic_flag_test_and_set(&flags[g]))
                atomic_fetch_add_explicit(&winners[g], 1u, memory_order_relaxed);
            /* One work-item per group tries a lock a bounded number of
               times; the plain read-modify-write inside is ordered by
               acquire and release. */
            if (get_local_id(0) == 0) {
                for (int tries = 0; tries < 4096; ++tries) {
                    if (!atomic_flag_test_and_set_explicit(lock, memory_order_acquire,
                                                           memory_scope_device)) {
                        counter[0] = counter[0] + 1;
                        counter[1 + g] = counter[0];
                        atomic_flag_clear_explicit(lock, memory_order_release,
                                                   memory_scope_device);
                        break;
                    }
                }
            }
        }"#;
    let groups = 40usize;
    let k = gpu.kernel_with_options(src, "k", "-cl-std=CL3.0");
    let (dflags, dwin, dlock, dcount) = (
        gpu.zeroed::<i32>(groups),
        gpu.zeroed::<u32>(groups),
        gpu.zeroed::<i32>(1),
        gpu.zeroed::<u32>(groups + 1),
    );
    k.arg_buffer(0, &dflags)
        .arg_buffer(1, &dwin)
        .arg_buffer(2, &dlock)
        .arg_buffer(3, &dcount);
    gpu.run(&k, &[groups * 32], Some(&[32]), None);
    assert_same(&gpu.read::<u32>(&dwin), &vec![1; groups], "flag winners");
    // The attempts are bounded because OpenCL promises no forward progress
    // between work-groups: a group may spin while the holder is not running
    // at all, and lavapipe ends a work-item's loops after 65535 iterations
    // in all (gallivm's loop limiter), so an unbounded spin fails whenever
    // the holder's thread is descheduled for a few milliseconds. What is
    // checked is what the lock promises: no increment is lost, and every
    // holder saw a count of its own.
    let count = gpu.read::<u32>(&dcount);
    let mut order: Vec<u32> = count[1..].iter().copied().filter(|&c| c != 0).collect();
    assert!(
        !order.is_empty(),
        "the first attempt on a free lock succeeds"
    );
    assert_eq!(count[0], order.len() as u32, "increments under the lock");
    order.sort_unstable();
    let expected: Vec<u32> = (1..=order.len() as u32).collect();
    assert_same(&order, &expected, "each holder saw a distinct count");
    assert_eq!(gpu.read::<i32>(&dlock)[0], 0, "the lock is free at the end");
}

#[test]
fn fences_in_loops_that_work_items_leave_at_different_times() {
    let gpu = Gpu::new();
    // One work-item per group loops with a fence (or an ordered atomic)
    // in each iteration while the rest of its group has left. Groups of 32
    // span several SIMD batches on a CPU device: lavapipe runs a fence as
    // a work-group barrier, which ended such loops after two iterations.
    let src = r#"
        __kernel void k(__global uint *plain, volatile __global atomic_uint *flags) {
            size_t g = get_group_id(0);
            if (get_local_id(0) == 0) {
                for (int i = 0; i < 100; ++i) {
                    atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_release,
                                           memory_scope_device);
                    plain[g] += 1;
                    mem_fence(CLK_LOCAL_MEM_FENCE);
                    atomic_fetch_add_explicit(&flags[g], 1u, memory_order_acq_rel);
                    atomic_store_explicit(&flags[4 + g], (uint)i, memory_order_release);
                    plain[4 + g] += atomic_load_explicit(&flags[4 + g], memory_order_acquire);
                }
            }
        }"#;
    let k = gpu.kernel_with_options(src, "k", "-cl-std=CL3.0");
    let (dplain, dflags) = (gpu.zeroed::<u32>(8), gpu.zeroed::<u32>(8));
    k.arg_buffer(0, &dplain).arg_buffer(1, &dflags);
    gpu.run(&k, &[4 * 32], Some(&[32]), None);
    let sum: u32 = (0..100).sum();
    assert_same(
        &gpu.read::<u32>(&dplain),
        &[100, 100, 100, 100, sum, sum, sum, sum],
        "iterations and acquired values",
    );
    assert_same(
        &gpu.read::<u32>(&dflags),
        &[100, 100, 100, 100, 99, 99, 99, 99],
        "atomic counts and last stores",
    );
}

#[test]
fn fences_and_message_passing_between_work_items() {
    let gpu = Gpu::new();
    // Producer and consumer in the same work-group: the consumer waits for
    // the flag only after a barrier, so the test cannot hang; it checks that
    // fences and acquire/release atomics compile and keep their data.
    let src = r#"
        __kernel void k(__global int *data, volatile __global int *flag, __global int *out) {
            __local int ldata[64];
            size_t l = get_local_id(0);
            ldata[l] = (int)l * 3;
            data[get_global_id(0)] = (int)get_global_id(0) + 7;
            atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE,
                                   memory_order_release, memory_scope_work_group);
            if (l == 0)
                atomic_store_explicit(&flag[get_group_id(0)], 1, memory_order_release,
                                      memory_scope_device);
            work_group_barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
            int f = atomic_load_explicit(&flag[get_group_id(0)], memory_order_acquire,
                                         memory_scope_device);
            atomic_work_item_fence(CLK_LOCAL_MEM_FENCE, memory_order_acquire,
                                   memory_scope_work_group);
            atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_relaxed,
                                   memory_scope_work_item);
            size_t peer = get_local_size(0) - 1 - l;
            out[get_global_id(0)] = f * (ldata[peer] +
                data[get_group_id(0) * get_local_size(0) + peer]);
        }"#;
    let (groups, local) = (8usize, 64usize);
    let n = groups * local;
    let k = gpu.kernel_with_options(src, "k", "-cl-std=CL3.0");
    let (dd, dflag, dout) = (
        gpu.zeroed::<i32>(n),
        gpu.zeroed::<i32>(groups),
        gpu.zeroed::<i32>(n),
    );
    k.arg_buffer(0, &dd)
        .arg_buffer(1, &dflag)
        .arg_buffer(2, &dout);
    gpu.run(&k, &[n], Some(&[local]), None);
    let want: Vec<i32> = (0..n)
        .map(|i| {
            let (g, l) = (i / local, i % local);
            let peer = local - 1 - l;
            (peer as i32 * 3) + (g * local + peer) as i32 + 7
        })
        .collect();
    assert_same(&gpu.read::<i32>(&dout), &want, "values after the fences");
}

/// `CL_DEVICE_SINGLE_FP_ATOMIC_CAPABILITIES_EXT`, or 0 on a device
/// without cl_ext_float_atomics (where the query is invalid).
fn single_fp_atomic_capabilities(gpu: &Gpu) -> cl_bitfield {
    let extensions = gpu.device_string(CL_DEVICE_EXTENSIONS);
    if !extensions
        .split_whitespace()
        .any(|e| e == "cl_ext_float_atomics")
    {
        return 0;
    }
    gpu.device_info(CL_DEVICE_SINGLE_FP_ATOMIC_CAPABILITIES_EXT)
}

#[test]
fn float_atomics_where_the_device_has_them() {
    let gpu = Gpu::new();
    let caps = single_fp_atomic_capabilities(&gpu);
    let min_max = caps & CL_DEVICE_GLOBAL_FP_ATOMIC_MIN_MAX_EXT != 0;
    if caps & CL_DEVICE_GLOBAL_FP_ATOMIC_ADD_EXT == 0 {
        eprintln!("skipped: the device has no float atomic add");
        return;
    }
    let src = r#"
        __kernel void k(__global const float *in, volatile __global float *out) {
            float v = in[get_global_id(0)];
            atomic_fetch_add_explicit(&out[0], v, memory_order_relaxed, memory_scope_device);
            atomic_fetch_sub_explicit(&out[1], v, memory_order_relaxed, memory_scope_device);
        #ifdef __opencl_c_ext_fp32_global_atomic_min_max
            atomic_fetch_min_explicit(&out[2], v, memory_order_relaxed, memory_scope_device);
            atomic_fetch_max_explicit(&out[3], v, memory_order_relaxed, memory_scope_device);
        #endif
            atomic_exchange(&out[4], 2.5f);
        }"#;
    // Small integers: every order of the additions gives the same sum.
    let n = 64 * 16usize;
    let data: Vec<f32> = XorShift::new(23)
        .u32s(n)
        .iter()
        .map(|v| (v % 201) as f32 - 100.0)
        .collect();
    let k = gpu.kernel_with_options(src, "k", "-cl-std=CL3.0");
    let init = [0.0f32, 1000.0, f32::INFINITY, f32::NEG_INFINITY, 0.0];
    let (din, dout) = (gpu.buffer(&data), gpu.buffer(&init));
    k.arg_buffer(0, &din).arg_buffer(1, &dout);
    gpu.run(&k, &[n], Some(&[64]), None);
    let got = gpu.read::<f32>(&dout);
    let sum: f32 = data.iter().sum();
    assert_eq!(got[0], sum, "atomic add");
    assert_eq!(got[1], 1000.0 - sum, "atomic sub");
    if min_max {
        let min = data.iter().copied().fold(f32::INFINITY, f32::min);
        let max = data.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        assert_eq!(got[2], min, "atomic min");
        assert_eq!(got[3], max, "atomic max");
    }
    assert_eq!(got[4], 2.5, "atomic exchange");
}

#[test]
fn local_float_atomics_where_the_device_has_them() {
    let gpu = Gpu::new();
    let caps = single_fp_atomic_capabilities(&gpu);
    let min_max = caps & CL_DEVICE_LOCAL_FP_ATOMIC_MIN_MAX_EXT != 0;
    if caps & CL_DEVICE_LOCAL_FP_ATOMIC_ADD_EXT == 0 {
        eprintln!("skipped: the device has no float atomic add on local memory");
        return;
    }
    let src = r#"
        #ifndef cl_ext_float_atomics
        #error cl_ext_float_atomics is not defined
        #endif
        __kernel void k(__global const float *in, __global float *out) {
            __local float acc[4];
            size_t l = get_local_id(0), g = get_group_id(0);
            if (l == 0) {
                atomic_init(&acc[0], 0.0f);
                atomic_init(&acc[1], 0.0f);
                atomic_init(&acc[2], INFINITY);
                atomic_init(&acc[3], -INFINITY);
            }
            barrier(CLK_LOCAL_MEM_FENCE);
            float v = in[get_global_id(0)];
            atomic_fetch_add_explicit(&acc[0], v, memory_order_relaxed, memory_scope_work_group);
            /* Ordered: the order's fences surround the update. */
            atomic_fetch_sub_explicit(&acc[1], v, memory_order_acq_rel, memory_scope_work_group);
        #ifdef __opencl_c_ext_fp32_local_atomic_min_max
            atomic_fetch_min_explicit(&acc[2], v, memory_order_relaxed, memory_scope_work_group);
            atomic_fetch_max_explicit(&acc[3], v, memory_order_relaxed, memory_scope_work_group);
        #endif
            barrier(CLK_LOCAL_MEM_FENCE);
            if (l < 4)
                out[g * 4 + l] = atomic_load_explicit(&acc[l], memory_order_relaxed,
                                                      memory_scope_work_group);
        }"#;
    let (groups, local) = (16usize, 64usize);
    let n = groups * local;
    // Small integers: every order of the additions gives the same sum.
    let data: Vec<f32> = XorShift::new(24)
        .u32s(n)
        .iter()
        .map(|v| (v % 301) as f32 - 150.0)
        .collect();
    let k = gpu.kernel_with_options(src, "k", "-cl-std=CL3.0");
    let (din, dout) = (gpu.buffer(&data), gpu.zeroed::<f32>(groups * 4));
    k.arg_buffer(0, &din).arg_buffer(1, &dout);
    gpu.run(&k, &[n], Some(&[local]), None);
    let got = gpu.read::<f32>(&dout);
    for (g, chunk) in data.chunks(local).enumerate() {
        let sum: f32 = chunk.iter().sum();
        assert_eq!(got[g * 4], sum, "group {g}: local atomic add");
        assert_eq!(got[g * 4 + 1], -sum, "group {g}: local atomic sub");
        if min_max {
            let min = chunk.iter().copied().fold(f32::INFINITY, f32::min);
            let max = chunk.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            assert_eq!(got[g * 4 + 2], min, "group {g}: local atomic min");
            assert_eq!(got[g * 4 + 3], max, "group {g}: local atomic max");
        }
    }
}

#[test]
fn float_atomic_capabilities_match_the_extension_and_features() {
    let gpu = Gpu::new();
    let extensions = gpu.device_string(CL_DEVICE_EXTENSIONS);
    let features = gpu.device_string(CL_DEVICE_OPENCL_C_FEATURES);
    // Names in the cl_name_version array end at a NUL.
    let has = |f: &str| features.split(['\0', ' ']).any(|x| x.ends_with(f));
    if !extensions
        .split_whitespace()
        .any(|e| e == "cl_ext_float_atomics")
    {
        let mut caps: cl_bitfield = 0;
        // SAFETY: the destination holds one cl_bitfield.
        let status = unsafe {
            (gpu.api.clGetDeviceInfo)(
                gpu.device,
                CL_DEVICE_SINGLE_FP_ATOMIC_CAPABILITIES_EXT,
                std::mem::size_of::<cl_bitfield>(),
                &mut caps as *mut cl_bitfield as *mut std::ffi::c_void,
                std::ptr::null_mut(),
            )
        };
        assert_eq!(
            status, CL_INVALID_VALUE,
            "query without cl_ext_float_atomics"
        );
        assert!(!has("__opencl_c_ext_fp32_global_atomic_add"));
        return;
    }
    let single: cl_bitfield = gpu.device_info(CL_DEVICE_SINGLE_FP_ATOMIC_CAPABILITIES_EXT);
    let double: cl_bitfield = gpu.device_info(CL_DEVICE_DOUBLE_FP_ATOMIC_CAPABILITIES_EXT);
    let half: cl_bitfield = gpu.device_info(CL_DEVICE_HALF_FP_ATOMIC_CAPABILITIES_EXT);
    assert_ne!(single, 0, "cl_ext_float_atomics with no float operation");
    for (bit, name) in [
        (
            CL_DEVICE_GLOBAL_FP_ATOMIC_ADD_EXT,
            "__opencl_c_ext_fp32_global_atomic_add",
        ),
        (
            CL_DEVICE_LOCAL_FP_ATOMIC_ADD_EXT,
            "__opencl_c_ext_fp32_local_atomic_add",
        ),
        (
            CL_DEVICE_GLOBAL_FP_ATOMIC_MIN_MAX_EXT,
            "__opencl_c_ext_fp32_global_atomic_min_max",
        ),
        (
            CL_DEVICE_LOCAL_FP_ATOMIC_MIN_MAX_EXT,
            "__opencl_c_ext_fp32_local_atomic_min_max",
        ),
    ] {
        assert_eq!(single & bit != 0, has(name), "{name}");
    }
    // Double and half arithmetic atomics are not offered, so none of their
    // feature macros may be either.
    assert_eq!((double, half), (0, 0));
    assert!(!features.contains("__opencl_c_ext_fp64_"));
    assert!(!features.contains("__opencl_c_ext_fp16_"));
}

#[test]
fn reported_atomic_capabilities_match_the_feature_macros() {
    let gpu = Gpu::new();
    let memory: cl_bitfield = gpu.device_info(CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES);
    let fence: cl_bitfield = gpu.device_info(CL_DEVICE_ATOMIC_FENCE_CAPABILITIES);
    let features = gpu.device_string(CL_DEVICE_OPENCL_C_FEATURES);
    let has = |f: &str| features.split(' ').any(|x| x == f) || features.contains(f);
    let minimum = CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP;
    assert_eq!(memory & minimum, minimum);
    assert_eq!(
        fence & (minimum | CL_DEVICE_ATOMIC_ORDER_ACQ_REL),
        minimum | CL_DEVICE_ATOMIC_ORDER_ACQ_REL
    );
    assert_eq!(
        has("__opencl_c_atomic_order_acq_rel"),
        memory & CL_DEVICE_ATOMIC_ORDER_ACQ_REL != 0
    );
    assert_eq!(
        has("__opencl_c_atomic_order_seq_cst"),
        memory & CL_DEVICE_ATOMIC_ORDER_SEQ_CST != 0
    );
    assert_eq!(
        has("__opencl_c_atomic_scope_device"),
        memory & CL_DEVICE_ATOMIC_SCOPE_DEVICE != 0
    );
    assert_eq!(
        has("__opencl_c_atomic_scope_all_devices"),
        memory & CL_DEVICE_ATOMIC_SCOPE_ALL_DEVICES != 0
    );
}

/// Ordered atomics in a loop that work-items of one work-group leave at
/// different times. Every memory barrier, including the one an ordered
/// atomic implies, acts like an execution barrier on lavapipe (Mesa
/// 22.3): work-items that left the loop never meet it, and the work-group
/// computes garbage. `mem_fence` in such a loop fails the same way.
#[test]
#[ignore = "lavapipe (Mesa 22.3) treats memory barriers in divergent loops as work-group barriers"]
fn ordered_compare_exchange_loop_in_divergent_control_flow() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void k(__global const uint *in, __global uint *sums) {
            __local uint sum;
            if (get_local_id(0) == 0)
                atomic_init(&sum, 0u);
            barrier(CLK_LOCAL_MEM_FENCE);
            uint v = in[get_global_id(0)];
            uint seen = atomic_load_explicit(&sum, memory_order_relaxed, memory_scope_work_group);
            while (!atomic_compare_exchange_weak_explicit(&sum, &seen, seen + v,
                        memory_order_acq_rel, memory_order_relaxed, memory_scope_work_group))
                ;
            barrier(CLK_LOCAL_MEM_FENCE);
            if (get_local_id(0) == 0)
                sums[get_group_id(0)] = atomic_load(&sum);
        }"#;
    let (groups, local) = (4usize, 48usize);
    let data: Vec<u32> = (0..(groups * local) as u32).collect();
    let k = gpu.kernel_with_options(src, "k", "-cl-std=CL3.0");
    let (din, dsums) = (gpu.buffer(&data), gpu.zeroed::<u32>(groups));
    k.arg_buffer(0, &din).arg_buffer(1, &dsums);
    gpu.run(&k, &[groups * local], Some(&[local]), None);
    let sums: Vec<u32> = data.chunks(local).map(|c| c.iter().sum()).collect();
    assert_same(&gpu.read::<u32>(&dsums), &sums, "sums");
}

/// Does the device have cl_khr_fp64 and 64-bit atomics (which `__local`
/// `atomic_double` needs)?
fn has_double_atomics(gpu: &Gpu) -> bool {
    let extensions = gpu.device_string(CL_DEVICE_EXTENSIONS);
    let has = |e: &str| extensions.split_whitespace().any(|x| x == e);
    has("cl_khr_fp64") && has("cl_khr_int64_base_atomics")
}

/// Kernel source prefix: `real` and `atomic_real` are double and
/// atomic_double with `-DWITH_DOUBLE`, else float and atomic_float.
const REAL_TYPES: &str = r#"
        #ifdef WITH_DOUBLE
        #pragma OPENCL EXTENSION cl_khr_fp64 : enable
        #pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
        #pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable
        typedef double real;
        typedef atomic_double atomic_real;
        #else
        typedef float real;
        typedef atomic_float atomic_real;
        #endif
"#;

/// Finite floats with random bits, signs, and subnormals among them.
fn float_bits(seed: u32, n: usize) -> Vec<u32> {
    XorShift::new(seed)
        .u32s(n)
        .iter()
        .map(|&b| {
            if b & 0x7f80_0000 == 0x7f80_0000 {
                b & 0x807f_ffff
            } else {
                b
            }
        })
        .collect()
}

#[test]
fn local_float_and_double_atomics_move_whole_values_per_work_group() {
    let gpu = Gpu::new();
    let doubles = has_double_atomics(&gpu);
    // Work-item 0 initialises, every work-item exchanges its value into
    // its neighbour's slot and stores one into its own, and after a
    // barrier each reads the slots back: in kernel-scope arrays, through
    // `__local` pointer arguments, and through a helper function.
    let src = [
        REAL_TYPES,
        r#"
        #define N 32
        real swap_in(volatile __local atomic_real *slots, uint i, real v) {
            return atomic_exchange_explicit(slots + i, v, memory_order_relaxed,
                                            memory_scope_work_group);
        }
        __kernel void k(__global const float *fin, __global const real *rin,
                        __global float *fout, __global real *rout,
                        volatile __local atomic_float *fslots,
                        volatile __local atomic_real *rslots) {
            __local atomic_float fown[N];
            __local volatile atomic_real rown[N];
            uint l = get_local_id(0), base = get_group_id(0) * N, gid = base + l;
            uint next = (l + 1) % N;
            if (l == 0)
                for (uint i = 0; i < N; i++) {
                    atomic_init(&fslots[i], fin[base + i]);
                    atomic_store_explicit(rslots + i, rin[base + i], memory_order_relaxed,
                                          memory_scope_work_group);
                }
            barrier(CLK_LOCAL_MEM_FENCE);
            float fv = fin[gid] * 2.0f;
            real rv = rin[gid] * 2;
            float fold = atomic_exchange(&fslots[next], fv);
            real rold = swap_in(rslots, next, rv);
            atomic_store(&fown[l], -fv);
            atomic_init(&rown[l], -rv);
            barrier(CLK_LOCAL_MEM_FENCE);
            fout[4 * gid] = fold;
            fout[4 * gid + 1] = atomic_load(fslots + l);
            fout[4 * gid + 2] = atomic_load_explicit(&fown[next], memory_order_relaxed,
                                                     memory_scope_work_group);
            rout[4 * gid] = rold;
            rout[4 * gid + 1] = atomic_load(&rslots[l]);
            rout[4 * gid + 2] = atomic_load_explicit(rown + next, memory_order_acquire,
                                                     memory_scope_work_group);
        }"#,
    ]
    .concat();
    let (groups, local) = (6usize, 32usize);
    let n = groups * local;
    let fin: Vec<f32> = float_bits(31, n)
        .iter()
        .map(|&b| f32::from_bits(b) / 4.0)
        .collect();
    // Exact in both widths: the float inputs, widened.
    let rin: Vec<f64> = fin.iter().map(|&f| f as f64).collect();
    let check = |fout: &[f32], rout: Option<&[f64]>| {
        for g in 0..groups {
            for l in 0..local {
                let gid = g * local + l;
                let next = g * local + (l + 1) % local;
                let prev = g * local + (l + local - 1) % local;
                let f = &fout[4 * gid..4 * gid + 3];
                let want = [fin[next], fin[prev] * 2.0, -(fin[next] * 2.0)];
                let same = f.iter().zip(&want).all(|(a, b)| a.to_bits() == b.to_bits());
                assert!(same, "float work-item {gid}: got {f:?}, want {want:?}");
                if let Some(rout) = rout {
                    let r = &rout[4 * gid..4 * gid + 3];
                    let want = [rin[next], rin[prev] * 2.0, -(rin[next] * 2.0)];
                    let same = r.iter().zip(&want).all(|(a, b)| a.to_bits() == b.to_bits());
                    assert!(same, "double work-item {gid}: got {r:?}, want {want:?}");
                }
            }
        }
    };
    let k = gpu.kernel_with_options(&src, "k", "-cl-std=CL3.0");
    let (dfin, dfout) = (gpu.buffer(&fin), gpu.zeroed::<f32>(4 * n));
    let dfin2 = gpu.buffer(&fin);
    let dfout2 = gpu.zeroed::<f32>(4 * n);
    k.arg_buffer(0, &dfin)
        .arg_buffer(1, &dfin2)
        .arg_buffer(2, &dfout)
        .arg_buffer(3, &dfout2)
        .arg_local(4, 4 * local)
        .arg_local(5, 4 * local);
    gpu.run(&k, &[n], Some(&[local]), None);
    let fout = gpu.read::<f32>(&dfout);
    check(&fout, None);
    check(&gpu.read::<f32>(&dfout2), None);
    if !doubles {
        eprintln!("skipped the double half: the device has no 64-bit atomics or doubles");
        return;
    }
    let k = gpu.kernel_with_options(&src, "k", "-cl-std=CL3.0 -DWITH_DOUBLE");
    let (drin, drout, dfout) = (
        gpu.buffer(&rin),
        gpu.zeroed::<f64>(4 * n),
        gpu.zeroed::<f32>(4 * n),
    );
    k.arg_buffer(0, &dfin)
        .arg_buffer(1, &drin)
        .arg_buffer(2, &dfout)
        .arg_buffer(3, &drout)
        .arg_local(4, 4 * local)
        .arg_local(5, 8 * local);
    gpu.run(&k, &[n], Some(&[local]), None);
    check(&gpu.read::<f32>(&dfout), Some(&gpu.read::<f64>(&drout)));
}

#[test]
fn compare_exchange_counters_on_floats_and_doubles() {
    let gpu = Gpu::new();
    let doubles = has_double_atomics(&gpu);
    // Each work-item adds 1 to a float and a double counter, in local and
    // in global memory, by compare-exchange loops (relaxed: see the ignored
    // test below for ordered ones on lavapipe). Small integers are exact,
    // so the totals are too.
    let src = [
        REAL_TYPES,
        r#"
        __kernel void k(volatile __global atomic_real *total, __global real *sums,
                        volatile __local atomic_real *arg_counter) {
            __local atomic_real counter;
            if (get_local_id(0) == 0) {
                atomic_init(&counter, 0);
                atomic_init(arg_counter, 100);
            }
            barrier(CLK_LOCAL_MEM_FENCE);
            real seen = atomic_load_explicit(&counter, memory_order_relaxed,
                                             memory_scope_work_group);
            while (!atomic_compare_exchange_weak_explicit(&counter, &seen, seen + 1,
                        memory_order_relaxed, memory_order_relaxed, memory_scope_work_group))
                ;
            seen = atomic_load_explicit(arg_counter, memory_order_relaxed,
                                        memory_scope_work_group);
            while (!atomic_compare_exchange_strong_explicit(arg_counter, &seen, seen + 1,
                        memory_order_relaxed, memory_order_relaxed, memory_scope_work_group))
                ;
            real g = atomic_load_explicit(total, memory_order_relaxed, memory_scope_device);
            while (!atomic_compare_exchange_strong_explicit(total, &g, g + 1,
                        memory_order_relaxed, memory_order_relaxed))
                ;
            barrier(CLK_LOCAL_MEM_FENCE);
            if (get_local_id(0) == 0) {
                sums[2 * get_group_id(0)] = atomic_load_explicit(&counter,
                    memory_order_relaxed, memory_scope_work_group);
                sums[2 * get_group_id(0) + 1] = atomic_load_explicit(arg_counter,
                    memory_order_relaxed, memory_scope_work_group);
            }
        }"#,
    ]
    .concat();
    let (groups, local) = (12usize, 40usize);
    let want_sums: Vec<f64> = (0..groups)
        .flat_map(|_| [local as f64, 100.0 + local as f64])
        .collect();
    let k = gpu.kernel_with_options(&src, "k", "-cl-std=CL3.0");
    let (dtotal, dsums) = (gpu.buffer(&[0.5f32]), gpu.zeroed::<f32>(2 * groups));
    k.arg_buffer(0, &dtotal)
        .arg_buffer(1, &dsums)
        .arg_local(2, 4);
    gpu.run(&k, &[groups * local], Some(&[local]), None);
    let sums: Vec<f64> = gpu.read::<f32>(&dsums).iter().map(|&v| v as f64).collect();
    assert_same(&sums, &want_sums, "float local counters");
    assert_eq!(
        gpu.read::<f32>(&dtotal)[0],
        0.5 + (groups * local) as f32,
        "float global counter"
    );
    if !doubles {
        eprintln!("skipped the double half: the device has no 64-bit atomics or doubles");
        return;
    }
    let k = gpu.kernel_with_options(&src, "k", "-cl-std=CL3.0 -DWITH_DOUBLE");
    let (dtotal, dsums) = (gpu.buffer(&[0.25f64]), gpu.zeroed::<f64>(2 * groups));
    k.arg_buffer(0, &dtotal)
        .arg_buffer(1, &dsums)
        .arg_local(2, 8);
    gpu.run(&k, &[groups * local], Some(&[local]), None);
    assert_same(
        &gpu.read::<f64>(&dsums),
        &want_sums,
        "double local counters",
    );
    assert_eq!(
        gpu.read::<f64>(&dtotal)[0],
        0.25 + (groups * local) as f64,
        "double global counter"
    );
}

#[test]
fn failed_compare_exchange_returns_the_bits_found() {
    let gpu = Gpu::new();
    let doubles = has_double_atomics(&gpu);
    // C11 compares object representations: -0.0 does not match a stored
    // +0.0, and `expected` then holds the +0.0 found. A NaN matches its
    // own bits. A success leaves `expected` as it was.
    let src = [
        REAL_TYPES,
        r#"
        __kernel void k(volatile __global atomic_real *g, __global real *out) {
            __local atomic_real l[2];
            atomic_init(&l[0], 0);
            atomic_init(&l[1], NAN);
            real e = -0.0;
            out[0] = atomic_compare_exchange_strong(&l[0], &e, 5);
            out[1] = e;
            out[2] = atomic_load(&l[0]);
            e = atomic_load(&l[1]);
            out[3] = atomic_compare_exchange_strong(&l[1], &e, 6);
            out[4] = e;
            out[5] = atomic_load(&l[1]);
            e = -0.0;
            out[6] = atomic_compare_exchange_weak(g, &e, 7);
            out[7] = e;
            e = 0.0;
            out[8] = atomic_compare_exchange_strong(g, &e, 8);
            out[9] = e;
            out[10] = atomic_load(g);
        }"#,
    ]
    .concat();
    let check = |out: &[f64], what: &str| {
        let want = [0.0, 0.0, 0.0, 1.0, f64::NAN, 6.0, 0.0, 0.0, 1.0, 0.0, 8.0];
        for (i, (a, b)) in out.iter().zip(&want).enumerate() {
            let ok = (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits();
            assert!(ok, "{what} result {i}: got {a}, want {b} (all: {out:?})");
        }
    };
    let k = gpu.kernel_with_options(&src, "k", "-cl-std=CL3.0");
    let (dg, dout) = (gpu.buffer(&[0.0f32]), gpu.zeroed::<f32>(11));
    k.arg_buffer(0, &dg).arg_buffer(1, &dout);
    gpu.run(&k, &[1], Some(&[1]), None);
    let out: Vec<f64> = gpu.read::<f32>(&dout).iter().map(|&v| v as f64).collect();
    check(&out, "float");
    if !doubles {
        eprintln!("skipped the double half: the device has no 64-bit atomics or doubles");
        return;
    }
    let k = gpu.kernel_with_options(&src, "k", "-cl-std=CL3.0 -DWITH_DOUBLE");
    let (dg, dout) = (gpu.buffer(&[0.0f64]), gpu.zeroed::<f64>(11));
    k.arg_buffer(0, &dg).arg_buffer(1, &dout);
    gpu.run(&k, &[1], Some(&[1]), None);
    check(&gpu.read::<f64>(&dout), "double");
}

#[test]
fn ordinary_local_float_accesses_in_a_program_with_atomics() {
    let gpu = Gpu::new();
    // The atomic call stores this program's `__local` floats as bits:
    // copies, vector loads and stores, compound assignments and pointer
    // arithmetic on them must still see the values.
    let src = r#"
        __kernel void k(__global const float *in, __global float *out, __local float *lp,
                        volatile __global atomic_int *count) {
            __local float tile[64];
            size_t l = get_local_id(0), g = get_group_id(0);
            event_t e = async_work_group_copy(tile, in + g * 64, 64, 0);
            wait_group_events(1, &e);
            lp[l] = tile[63 - l];
            barrier(CLK_LOCAL_MEM_FENCE);
            if (l < 16) {
                float4 v = vload4(l, tile);
                vstore4(v * 2.0f, l, lp);
            }
            barrier(CLK_LOCAL_MEM_FENCE);
            __local float *q = lp + l;
            *q += 0.5f;
            atomic_fetch_add_explicit(count, 1, memory_order_relaxed);
            out[g * 64 + l] = q[0] - tile[l];
        }"#;
    let (groups, local) = (5usize, 64usize);
    let n = groups * local;
    let data: Vec<f32> = (0..n).map(|i| (i % 97) as f32 * 0.25).collect();
    let k = gpu.kernel_with_options(src, "k", "-cl-std=CL3.0");
    let (din, dout, dcount) = (
        gpu.buffer(&data),
        gpu.zeroed::<f32>(n),
        gpu.zeroed::<i32>(1),
    );
    k.arg_buffer(0, &din)
        .arg_buffer(1, &dout)
        .arg_local(2, 4 * local)
        .arg_buffer(3, &dcount);
    gpu.run(&k, &[n], Some(&[local]), None);
    let want: Vec<f32> = (0..n)
        .map(|i| {
            let (g, l) = (i / local, i % local);
            let tile = |j: usize| data[g * local + j];
            // Work-items 0..16 overwrite elements 0..64 with doubled tile values.
            let doubled = tile(l) * 2.0;
            doubled + 0.5 - tile(l)
        })
        .collect();
    assert_same(&gpu.read::<f32>(&dout), &want, "local float values");
    assert_eq!(gpu.read::<i32>(&dcount)[0], n as i32);
}

#[test]
fn atomic_xchg_on_floats_in_both_spaces() {
    let gpu = Gpu::new();
    // OpenCL C 1.2's `atomic_xchg` on float: every work-item swaps its
    // value in; the values returned plus the one left over are the inputs
    // plus the initial value, bit for bit.
    let src = r#"
        __kernel void k(__global const float *in, volatile __global float *g,
                        __global float *old, __global float *last) {
            __local float l;
            size_t i = get_global_id(0), lid = get_local_id(0);
            if (lid == 0)
                atomic_xchg(&l, -0.0f);
            barrier(CLK_LOCAL_MEM_FENCE);
            old[2 * i] = atomic_xchg(&g[get_group_id(0)], in[i]);
            old[2 * i + 1] = atomic_xchg(&l, in[i]);
            barrier(CLK_LOCAL_MEM_FENCE);
            if (lid == 0)
                last[get_group_id(0)] = atomic_xchg(&l, 0.0f);
        }"#;
    let (groups, local) = (4usize, 32usize);
    let n = groups * local;
    let data: Vec<f32> = float_bits(41, n).into_iter().map(f32::from_bits).collect();
    let k = gpu.kernel(src, "k");
    let init = vec![1.5f32; groups];
    let (din, dg, dold, dlast) = (
        gpu.buffer(&data),
        gpu.buffer(&init),
        gpu.zeroed::<f32>(2 * n),
        gpu.zeroed::<f32>(groups),
    );
    k.arg_buffer(0, &din)
        .arg_buffer(1, &dg)
        .arg_buffer(2, &dold)
        .arg_buffer(3, &dlast);
    gpu.run(&k, &[n], Some(&[local]), None);
    let (old, g, last) = (
        gpu.read::<f32>(&dold),
        gpu.read::<f32>(&dg),
        gpu.read::<f32>(&dlast),
    );
    for grp in 0..groups {
        let inputs = &data[grp * local..(grp + 1) * local];
        for (space, first, left) in [("global", 1.5f32, g[grp]), ("local", -0.0, last[grp])] {
            let index = if space == "global" { 0 } else { 1 };
            let mut got: Vec<u32> = (0..local)
                .map(|l| old[2 * (grp * local + l) + index].to_bits())
                .collect();
            got.push(left.to_bits());
            got.sort_unstable();
            let mut want: Vec<u32> = inputs.iter().map(|v| v.to_bits()).collect();
            want.push(first.to_bits());
            want.sort_unstable();
            assert_same(&got, &want, &format!("group {grp}: {space} exchanges"));
        }
    }
}
