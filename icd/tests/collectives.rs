//! Work-group collective functions (OpenCL C 6.15.16) on work-groups of
//! many shapes, including sizes that are not a power of two, checked
//! against host results.

mod common;

use common::*;

const INT_SOURCE: &str = r#"
    __kernel void k(__global const int *in, __global int *out, int pick) {
        size_t i = get_global_id(0);
        int v = in[i];
        size_t n = get_global_size(0);
        out[i] = work_group_reduce_add(v);
        out[n + i] = work_group_reduce_min(v);
        out[2 * n + i] = work_group_reduce_max(v);
        out[3 * n + i] = work_group_scan_inclusive_add(v);
        out[4 * n + i] = work_group_scan_exclusive_add(v);
        out[5 * n + i] = work_group_scan_inclusive_min(v);
        out[6 * n + i] = work_group_scan_exclusive_max(v);
        out[7 * n + i] = work_group_broadcast(v, (size_t)pick);
        out[8 * n + i] = work_group_all(v > -900);
        out[9 * n + i] = work_group_any(v == 77);
    }"#;

fn int_reference(data: &[i32], local: usize, pick: usize) -> Vec<i32> {
    let n = data.len();
    let mut out = vec![0i32; 10 * n];
    for (g, chunk) in data.chunks(local).enumerate() {
        let base = g * local;
        let sum = chunk.iter().fold(0i32, |a, &v| a.wrapping_add(v));
        let min = *chunk.iter().min().unwrap_or(&0);
        let max = *chunk.iter().max().unwrap_or(&0);
        let all = chunk.iter().all(|&v| v > -900);
        let any = chunk.contains(&77);
        let (mut incl, mut incl_min, mut excl_max) = (0i32, i32::MAX, i32::MIN);
        for (l, &v) in chunk.iter().enumerate() {
            let i = base + l;
            out[i] = sum;
            out[n + i] = min;
            out[2 * n + i] = max;
            out[4 * n + i] = incl;
            incl = incl.wrapping_add(v);
            out[3 * n + i] = incl;
            incl_min = incl_min.min(v);
            out[5 * n + i] = incl_min;
            out[6 * n + i] = excl_max;
            excl_max = excl_max.max(v);
            out[7 * n + i] = chunk[pick];
            out[8 * n + i] = i32::from(all);
            out[9 * n + i] = i32::from(any);
        }
    }
    out
}

fn check_int_collectives(local: usize, groups: usize, seed: u32) {
    let gpu = Gpu::new();
    let n = local * groups;
    let mut rng = XorShift::new(seed);
    let mut data: Vec<i32> = (0..n)
        .map(|_| (rng.next_u32() % 2001) as i32 - 1000)
        .collect();
    // Group 0 holds 77 once; the others do not.
    for v in data.iter_mut() {
        if *v == 77 {
            *v = 78;
        }
    }
    data[local / 2] = 77;
    // One group has a value that fails `all`.
    if groups > 1 {
        data[local + local / 3] = -950;
    }
    let pick = (local * 2) / 3;
    let k = gpu.kernel_with_options(INT_SOURCE, "k", "-cl-std=CL2.0");
    let (din, dout) = (gpu.buffer(&data), gpu.zeroed::<i32>(10 * n));
    k.arg_buffer(0, &din)
        .arg_buffer(1, &dout)
        .arg(2, pick as i32);
    gpu.run(&k, &[n], Some(&[local]), None);
    let want = int_reference(&data, local, pick);
    let got = gpu.read::<i32>(&dout);
    let names = [
        "reduce_add",
        "reduce_min",
        "reduce_max",
        "scan_inclusive_add",
        "scan_exclusive_add",
        "scan_inclusive_min",
        "scan_exclusive_max",
        "broadcast",
        "all",
        "any",
    ];
    for (f, name) in names.iter().enumerate() {
        assert_same(
            &got[f * n..(f + 1) * n],
            &want[f * n..(f + 1) * n],
            &format!("work_group_{name} with {local} work-items"),
        );
    }
}

#[test]
fn int_collectives_on_a_power_of_two_group() {
    check_int_collectives(64, 5, 31);
}

#[test]
fn int_collectives_on_odd_groups() {
    check_int_collectives(13, 7, 32);
    check_int_collectives(100, 3, 33);
}

#[test]
fn int_collectives_on_one_work_item_and_a_large_group() {
    check_int_collectives(1, 9, 34);
    check_int_collectives(256, 2, 35);
}

#[test]
fn unsigned_long_and_float_collectives() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void k(__global const uint *u, __global const long *l,
                        __global const float *f, __global uint *ou,
                        __global long *ol, __global float *of) {
            size_t i = get_global_id(0);
            size_t n = get_global_size(0);
            ou[i] = work_group_reduce_max(u[i]);
            ou[n + i] = work_group_scan_exclusive_min(u[i]);
            ol[i] = work_group_scan_inclusive_add(l[i]);
            ol[n + i] = work_group_reduce_min(l[i]);
            of[i] = work_group_reduce_add(f[i]);
            of[n + i] = work_group_scan_exclusive_add(f[i]);
            of[2 * n + i] = work_group_scan_inclusive_max(f[i]);
        }"#;
    let (local, groups) = (24usize, 6usize);
    let n = local * groups;
    let mut rng = XorShift::new(36);
    let u = rng.u32s(n);
    let l: Vec<i64> = (0..n)
        .map(|_| (i64::from(rng.next_u32()) << 20) - (1i64 << 50))
        .collect();
    // Small integers: float sums are exact in every order.
    let f: Vec<f32> = (0..n)
        .map(|_| (rng.next_u32() % 64) as f32 - 32.0)
        .collect();
    let k = gpu.kernel_with_options(src, "k", "-cl-std=CL2.0");
    let (du, dl, df) = (gpu.buffer(&u), gpu.buffer(&l), gpu.buffer(&f));
    let (dou, dol, dof) = (
        gpu.zeroed::<u32>(2 * n),
        gpu.zeroed::<i64>(2 * n),
        gpu.zeroed::<f32>(3 * n),
    );
    k.arg_buffer(0, &du)
        .arg_buffer(1, &dl)
        .arg_buffer(2, &df)
        .arg_buffer(3, &dou)
        .arg_buffer(4, &dol)
        .arg_buffer(5, &dof);
    gpu.run(&k, &[n], Some(&[local]), None);
    let (mut wu, mut wl, mut wf) = (vec![0u32; 2 * n], vec![0i64; 2 * n], vec![0f32; 3 * n]);
    for g in 0..groups {
        let r = g * local..(g + 1) * local;
        let umax = u[r.clone()].iter().copied().max().unwrap_or(0);
        let lmin = l[r.clone()].iter().copied().min().unwrap_or(0);
        let fsum: f32 = f[r.clone()].iter().sum();
        let (mut umin, mut lsum, mut fex, mut fmax) = (u32::MAX, 0i64, 0f32, f32::NEG_INFINITY);
        for i in r {
            wu[i] = umax;
            wu[n + i] = umin;
            umin = umin.min(u[i]);
            lsum += l[i];
            wl[i] = lsum;
            wl[n + i] = lmin;
            wf[i] = fsum;
            wf[n + i] = fex;
            fex += f[i];
            fmax = fmax.max(f[i]);
            wf[2 * n + i] = fmax;
        }
    }
    assert_same(&gpu.read::<u32>(&dou), &wu, "uint collectives");
    assert_same(&gpu.read::<i64>(&dol), &wl, "long collectives");
    assert_same(&gpu.read::<f32>(&dof), &wf, "float collectives");
}

#[test]
fn collectives_on_two_and_three_dimensional_groups() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void k(__global int *out) {
            size_t lin = get_local_linear_id();
            int v = (int)(lin * 3 + get_group_id(0));
            size_t g = get_group_id(2) * get_num_groups(1) * get_num_groups(0)
                     + get_group_id(1) * get_num_groups(0) + get_group_id(0);
            size_t wg = get_local_size(0) * get_local_size(1) * get_local_size(2);
            size_t at = g * wg + lin;
            size_t n = wg * get_num_groups(0) * get_num_groups(1) * get_num_groups(2);
            out[at] = work_group_scan_inclusive_add(v);
            out[n + at] = work_group_broadcast(v, 1, 2, 1);
            out[2 * n + at] = work_group_broadcast(v, (size_t)2, (size_t)1);
        }"#;
    let (local, groups) = ([3usize, 4, 2], [2usize, 1, 2]);
    let wg = local.iter().product::<usize>();
    let ng = groups.iter().product::<usize>();
    let n = wg * ng;
    let global = [
        local[0] * groups[0],
        local[1] * groups[1],
        local[2] * groups[2],
    ];
    let k = gpu.kernel_with_options(src, "k", "-cl-std=CL2.0");
    let dout = gpu.zeroed::<i32>(3 * n);
    k.arg_buffer(0, &dout);
    gpu.run(&k, &global, Some(&local), None);
    let mut want = vec![0i32; 3 * n];
    for gz in 0..groups[2] {
        for gy in 0..groups[1] {
            for gx in 0..groups[0] {
                let g = (gz * groups[1] + gy) * groups[0] + gx;
                let value = |lin: usize| (lin * 3 + gx) as i32;
                let mut sum = 0;
                for lin in 0..wg {
                    sum += value(lin);
                    let at = g * wg + lin;
                    want[at] = sum;
                    want[n + at] = value(1 + 2 * local[0] + local[0] * local[1]);
                    want[2 * n + at] = value(2 + local[0]);
                }
            }
        }
    }
    assert_same(&gpu.read::<i32>(&dout), &want, "2D and 3D collectives");
}

#[test]
fn collectives_in_a_loop_reuse_their_scratch() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void k(__global int *out) {
            int acc = 0;
            for (int r = 0; r < 5; r++)
                acc += work_group_reduce_add((int)get_local_id(0) * (r + 1));
            out[get_global_id(0)] = acc;
        }"#;
    let local = 37usize;
    let k = gpu.kernel_with_options(src, "k", "-cl-std=CL2.0");
    let dout = gpu.zeroed::<i32>(2 * local);
    k.arg_buffer(0, &dout);
    gpu.run(&k, &[2 * local], Some(&[local]), None);
    let base: i32 = (0..local as i32).sum();
    let want = vec![base * 15; 2 * local];
    assert_same(&gpu.read::<i32>(&dout), &want, "reductions in a loop");
}

/// cl_khr_work_group_uniform_arithmetic: `mul`, bitwise and logical
/// reductions and scans, on an odd work-group size, where the device
/// reports the extension; elsewhere the functions are refused.
#[test]
fn uniform_arithmetic_collectives_match_the_host() {
    let gpu = Gpu::new();
    let reported = gpu
        .device_string(ferrocl_runtime::cl::CL_DEVICE_EXTENSIONS)
        .split(' ')
        .any(|e| e == "cl_khr_work_group_uniform_arithmetic");
    let src = r#"
        #ifndef cl_khr_work_group_uniform_arithmetic
        #error the extension macro is missing
        #endif
        __kernel void k(__global const int *in, __global const float *fin,
                        __global int *out, __global float *fout) {
            size_t i = get_global_id(0);
            size_t n = get_global_size(0);
            int v = in[i];
            out[i] = work_group_reduce_mul(v);
            out[n + i] = work_group_scan_inclusive_mul(v);
            out[2 * n + i] = work_group_scan_exclusive_and(v);
            out[3 * n + i] = work_group_reduce_or(v);
            out[4 * n + i] = work_group_scan_inclusive_xor(v);
            out[5 * n + i] = work_group_reduce_logical_and(v);
            out[6 * n + i] = work_group_scan_exclusive_logical_or(v > 200);
            out[7 * n + i] = work_group_scan_inclusive_logical_xor(v & 1);
            fout[i] = work_group_scan_exclusive_mul(fin[i]);
        }"#;
    if !reported {
        let src = "__kernel void k(__global int *p) { p[0] = work_group_reduce_mul(p[1]); }";
        let log = match gpu.try_program(src, "-cl-std=CL2.0") {
            Ok(_) => panic!("work-group products built without the extension"),
            Err((_, log)) => log,
        };
        assert!(
            log.contains("cl_khr_work_group_uniform_arithmetic"),
            "{log}"
        );
        return;
    }
    let (local, groups) = (37usize, 3usize);
    let n = local * groups;
    let mut rng = XorShift::new(19);
    // Products stay exact: ints wrap like the device's, and the floats are
    // powers of two and their negatives.
    let data: Vec<i32> = (0..n).map(|_| (rng.next_u32() % 301) as i32 - 50).collect();
    let fdata: Vec<f32> = (0..n)
        .map(|_| match rng.next_u32() % 4 {
            0 => 2.0,
            1 => -1.0,
            2 => 0.5,
            _ => 1.0,
        })
        .collect();
    let k = gpu.kernel_with_options(src, "k", "-cl-std=CL2.0");
    let (din, dfin) = (gpu.buffer(&data), gpu.buffer(&fdata));
    let (dout, dfout) = (gpu.zeroed::<i32>(8 * n), gpu.zeroed::<f32>(n));
    k.arg_buffer(0, &din)
        .arg_buffer(1, &dfin)
        .arg_buffer(2, &dout)
        .arg_buffer(3, &dfout);
    gpu.run(&k, &[n], Some(&[local]), None);
    let mut want = vec![0i32; 8 * n];
    let mut fwant = vec![0f32; n];
    for g in 0..groups {
        let group = &data[g * local..(g + 1) * local];
        let truth = |b: bool| i32::from(b);
        let product = group.iter().fold(1i32, |a, &v| a.wrapping_mul(v));
        let any = group.iter().fold(0, |a, &v| a | v);
        let all = truth(group.iter().all(|&v| v != 0));
        let (mut mul, mut and, mut xor, mut or_big, mut odd) = (1i32, -1i32, 0i32, false, false);
        let mut fmul = 1f32;
        for (l, &v) in group.iter().enumerate() {
            let i = g * local + l;
            want[i] = product;
            want[2 * n + i] = and;
            want[3 * n + i] = any;
            want[5 * n + i] = all;
            want[6 * n + i] = truth(or_big);
            fwant[i] = fmul;
            mul = mul.wrapping_mul(v);
            and &= v;
            xor ^= v;
            or_big |= v > 200;
            odd ^= v & 1 != 0;
            fmul *= fdata[i];
            want[n + i] = mul;
            want[4 * n + i] = xor;
            want[7 * n + i] = truth(odd);
        }
    }
    let got = gpu.read::<i32>(&dout);
    let names = [
        "reduce_mul",
        "scan_inclusive_mul",
        "scan_exclusive_and",
        "reduce_or",
        "scan_inclusive_xor",
        "reduce_logical_and",
        "scan_exclusive_logical_or",
        "scan_inclusive_logical_xor",
    ];
    for (f, name) in names.iter().enumerate() {
        assert_same(
            &got[f * n..(f + 1) * n],
            &want[f * n..(f + 1) * n],
            &format!("work_group_{name}"),
        );
    }
    assert_same(
        &gpu.read::<f32>(&dfout),
        &fwant,
        "work_group_scan_exclusive_mul(float)",
    );
}
