//! 64-bit atomics (cl_khr_int64_base_atomics, cl_khr_int64_extended_atomics)
//! under contention on `__global` and `__local` memory, checked against
//! results computed on the host.

mod common;

use common::*;
use ferrocl_runtime::cl::*;

/// The device offers both 64-bit atomic extensions (it does where Vulkan
/// has shaderBufferInt64Atomics and shaderSharedInt64Atomics).
fn has_int64_atomics(gpu: &Gpu) -> bool {
    let ext = gpu.device_string(CL_DEVICE_EXTENSIONS);
    let base = ext.split(' ').any(|e| e == "cl_khr_int64_base_atomics");
    let extended = ext.split(' ').any(|e| e == "cl_khr_int64_extended_atomics");
    assert_eq!(
        base, extended,
        "the two 64-bit atomic extensions go together"
    );
    base
}

fn values(n: usize, seed: u32) -> Vec<u64> {
    let mut rng = XorShift::new(seed);
    (0..n)
        .map(|_| (u64::from(rng.next_u32()) << 32) | u64::from(rng.next_u32()))
        .collect()
}

#[test]
fn global_int64_atomics_under_contention() {
    let gpu = Gpu::new();
    if !has_int64_atomics(&gpu) {
        eprintln!("skipped: the device has no 64-bit atomics");
        return;
    }
    let src = r#"
        #pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
        #pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable
        __kernel void k(__global const ulong *in, __global ulong *u, __global long *s,
                        __global ulong *old_inc) {
            size_t i = get_global_id(0);
            ulong v = in[i];
            atom_add(&u[0], v);
            atom_sub(&u[1], v >> 3);
            atom_xor(&u[2], v);
            atom_or(&u[3], v & 0x0101010101010101ul);
            atom_and(&u[4], v | 0x7f7f7f7f7f7f7f7ful);
            atom_min(&u[5], v);
            atom_max(&u[6], v);
            atom_min(&s[0], (long)v);
            atom_max(&s[1], (long)v);
            old_inc[i] = atom_inc(&u[7]);
            atom_dec(&u[8]);
            /* A compare-and-swap loop: each work-item adds its value once. */
            ulong seen = u[9];
            for (;;) {
                ulong prev = atom_cmpxchg(&u[9], seen, seen + (v & 0xffff));
                if (prev == seen) break;
                seen = prev;
            }
        }"#;
    let n = 65 * 64usize;
    let data = values(n, 11);
    let init_u: Vec<u64> = vec![
        1,
        u64::MAX,
        0x5555_5555_5555_5555,
        0,
        u64::MAX,
        u64::MAX,
        0,
        0,
        1 << 40,
        7,
    ];
    let init_s: Vec<i64> = vec![i64::MAX, i64::MIN];
    let k = gpu.kernel(src, "k");
    let (din, du, ds, dold) = (
        gpu.buffer(&data),
        gpu.buffer(&init_u),
        gpu.buffer(&init_s),
        gpu.zeroed::<u64>(n),
    );
    k.arg_buffer(0, &din)
        .arg_buffer(1, &du)
        .arg_buffer(2, &ds)
        .arg_buffer(3, &dold);
    gpu.run(&k, &[n], Some(&[64]), None);

    let mut want = init_u.clone();
    let mut want_s = init_s.clone();
    for &v in &data {
        want[0] = want[0].wrapping_add(v);
        want[1] = want[1].wrapping_sub(v >> 3);
        want[2] ^= v;
        want[3] |= v & 0x0101_0101_0101_0101;
        want[4] &= v | 0x7f7f_7f7f_7f7f_7f7f;
        want[5] = want[5].min(v);
        want[6] = want[6].max(v);
        want_s[0] = want_s[0].min(v as i64);
        want_s[1] = want_s[1].max(v as i64);
        want[7] += 1;
        want[8] -= 1;
        want[9] = want[9].wrapping_add(v & 0xffff);
    }
    assert_same(&gpu.read::<u64>(&du), &want, "ulong results");
    assert_same(&gpu.read::<i64>(&ds), &want_s, "long results");
    // atom_inc hands out every old value exactly once.
    let mut old = gpu.read::<u64>(&dold);
    old.sort_unstable();
    let expected: Vec<u64> = (0..n as u64).collect();
    assert_same(&old, &expected, "values returned by atom_inc");
}

#[test]
fn local_int64_atomics_merged_into_global() {
    let gpu = Gpu::new();
    if !has_int64_atomics(&gpu) {
        eprintln!("skipped: the device has no 64-bit atomics");
        return;
    }
    let src = r#"
        #pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
        #pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable
        __kernel void k(__global const ulong *in, __global ulong *sums,
                        __global long *mins, __global ulong *xchg) {
            __local ulong sum;
            __local long lo;
            __local ulong last;
            if (get_local_id(0) == 0) {
                sum = 0;
                lo = LONG_MAX;
                last = 0;
            }
            barrier(CLK_LOCAL_MEM_FENCE);
            ulong v = in[get_global_id(0)];
            atom_add(&sum, v);
            atom_min(&lo, (long)v);
            ulong before = atom_xchg(&last, v);
            barrier(CLK_LOCAL_MEM_FENCE);
            if (get_local_id(0) == 0) {
                sums[get_group_id(0)] = sum;
                mins[get_group_id(0)] = lo;
            }
            /* Every value but one is returned by some exchange; the one
               left in `last` is read once the group is done. */
            xchg[get_global_id(0)] = before;
            if (get_local_id(0) == 0)
                xchg[get_global_size(0) + get_group_id(0)] = last;
        }"#;
    let (groups, local) = (37usize, 96usize);
    let n = groups * local;
    let data = values(n, 12);
    let k = gpu.kernel(src, "k");
    let (din, dsum, dmin, dx) = (
        gpu.buffer(&data),
        gpu.zeroed::<u64>(groups),
        gpu.zeroed::<i64>(groups),
        gpu.zeroed::<u64>(n + groups),
    );
    k.arg_buffer(0, &din)
        .arg_buffer(1, &dsum)
        .arg_buffer(2, &dmin)
        .arg_buffer(3, &dx);
    gpu.run(&k, &[n], Some(&[local]), None);
    let sums: Vec<u64> = data
        .chunks(local)
        .map(|c| c.iter().fold(0u64, |a, &v| a.wrapping_add(v)))
        .collect();
    let mins: Vec<i64> = data
        .chunks(local)
        .map(|c| c.iter().map(|&v| v as i64).min().unwrap_or(i64::MAX))
        .collect();
    assert_same(&gpu.read::<u64>(&dsum), &sums, "local sums");
    assert_same(&gpu.read::<i64>(&dmin), &mins, "local minimums");
    let x = gpu.read::<u64>(&dx);
    for g in 0..groups {
        let mut got: Vec<u64> = x[g * local..(g + 1) * local].to_vec();
        got.push(x[n + g]);
        got.sort_unstable();
        let mut want: Vec<u64> = data[g * local..(g + 1) * local].to_vec();
        want.push(0);
        want.sort_unstable();
        assert_same(&got, &want, "values passed through atom_xchg");
    }
}

#[test]
fn int64_atomics_are_reported_with_their_macros() {
    let gpu = Gpu::new();
    let has = has_int64_atomics(&gpu);
    let src = r#"
        __kernel void k(__global int *out) {
        #if defined(cl_khr_int64_base_atomics) && defined(cl_khr_int64_extended_atomics)
            out[0] = 1;
        #else
            out[0] = 0;
        #endif
        }"#;
    let k = gpu.kernel(src, "k");
    let d = gpu.zeroed::<i32>(1);
    k.arg_buffer(0, &d);
    gpu.run(&k, &[1], None, None);
    assert_eq!(gpu.read::<i32>(&d)[0], i32::from(has));
}
