//! Sub-groups (`__opencl_c_subgroups` and the extended sub-group extensions):
//! the work-item queries, collectives, ballots and shuffles, checked
//! against host results computed from the sub-groups the kernel reports,
//! and clGetKernelSubGroupInfo.

mod common;

use common::*;
use ferrocl_runtime::cl::*;
use std::collections::BTreeMap;
use std::ffi::c_void;
use std::ptr::null_mut;

fn has_extension(gpu: &Gpu, name: &str) -> bool {
    gpu.device_string(CL_DEVICE_EXTENSIONS)
        .split(' ')
        .any(|e| e == name)
}

/// The device offers OpenCL C 3.0 sub-groups (`__opencl_c_subgroups`; the
/// names in CL_DEVICE_OPENCL_C_FEATURES sit NUL-padded in fixed records).
fn has_sub_groups(gpu: &Gpu) -> bool {
    gpu.device_string(CL_DEVICE_OPENCL_C_FEATURES)
        .split('\0')
        .any(|e| e == "__opencl_c_subgroups")
}

/// Work-items grouped by (work-group, sub-group id), each sub-group's
/// members as global ids in sub-group local id order.
fn sub_groups(local: usize, sg_id: &[u32], sg_lid: &[u32]) -> Vec<Vec<usize>> {
    let mut map: BTreeMap<(usize, u32), Vec<(u32, usize)>> = BTreeMap::new();
    for i in 0..sg_id.len() {
        map.entry((i / local, sg_id[i]))
            .or_default()
            .push((sg_lid[i], i));
    }
    map.into_values()
        .map(|mut v| {
            v.sort_unstable();
            v.into_iter().map(|(_, i)| i).collect()
        })
        .collect()
}

/// The sub-group size kernels run with on the device.
fn max_sub_group_size(gpu: &Gpu) -> usize {
    let probe = gpu.kernel(
        "__kernel void k(__global uint *o) { o[0] = get_max_sub_group_size(); }",
        "k",
    );
    let d = gpu.zeroed::<u32>(1);
    probe.arg_buffer(0, &d);
    gpu.run(&probe, &[1], None, None);
    gpu.read::<u32>(&d)[0] as usize
}

/// What a kernel `k(in, lin, fin, out, lout, fout, ids)` wrote: the
/// sub-group ids and local ids (`ids`), then `int_rows` rows of int
/// results and two rows each of long and float results.
struct TypedResults {
    ids: Vec<u32>,
    ints: Vec<i32>,
    longs: Vec<i64>,
    floats: Vec<f32>,
}

/// Runs such a kernel over `data`, `ldata` and `fdata` (one value per
/// work-item) in work-groups of `local`.
fn run_on_three_types(
    gpu: &Gpu,
    k: &Kernel<'_>,
    local: usize,
    (data, ldata, fdata): (&[i32], &[i64], &[f32]),
    int_rows: usize,
) -> TypedResults {
    let n = data.len();
    let (din, dl, df) = (gpu.buffer(data), gpu.buffer(ldata), gpu.buffer(fdata));
    let (dout, dlout, dfout, dids) = (
        gpu.zeroed::<i32>(int_rows * n),
        gpu.zeroed::<i64>(2 * n),
        gpu.zeroed::<f32>(2 * n),
        gpu.zeroed::<u32>(2 * n),
    );
    k.arg_buffer(0, &din)
        .arg_buffer(1, &dl)
        .arg_buffer(2, &df)
        .arg_buffer(3, &dout)
        .arg_buffer(4, &dlout)
        .arg_buffer(5, &dfout)
        .arg_buffer(6, &dids);
    gpu.run(k, &[n], Some(&[local]), None);
    TypedResults {
        ids: gpu.read::<u32>(&dids),
        ints: gpu.read::<i32>(&dout),
        longs: gpu.read::<i64>(&dlout),
        floats: gpu.read::<f32>(&dfout),
    }
}

#[test]
fn work_item_queries_describe_a_partition_of_the_work_group() {
    let gpu = Gpu::new();
    if !has_sub_groups(&gpu) {
        eprintln!("skipped: the device has no sub-groups");
        return;
    }
    let src = r#"
        __kernel void k(__global uint *out) {
            size_t i = get_global_id(0);
            size_t n = get_global_size(0);
            out[i] = get_sub_group_size();
            out[n + i] = get_max_sub_group_size();
            out[2 * n + i] = get_num_sub_groups();
            out[3 * n + i] = get_sub_group_id();
            out[4 * n + i] = get_sub_group_local_id();
            out[5 * n + i] = get_enqueued_num_sub_groups();
        }"#;
    let (local, groups) = (20usize, 3usize);
    let n = local * groups;
    let k = gpu.kernel(src, "k");
    let dout = gpu.zeroed::<u32>(6 * n);
    k.arg_buffer(0, &dout);
    gpu.run(&k, &[n], Some(&[local]), None);
    let out = gpu.read::<u32>(&dout);
    let max = out[n] as usize;
    assert!(max >= 1, "a sub-group has at least one work-item");
    assert!(out[n..2 * n].iter().all(|&m| m as usize == max));
    let count = local.div_ceil(max);
    assert!(out[2 * n..3 * n].iter().all(|&c| c as usize == count));
    assert!(out[5 * n..6 * n].iter().all(|&c| c as usize == count));
    let groups_seen = sub_groups(local, &out[3 * n..4 * n], &out[4 * n..5 * n]);
    assert_eq!(
        groups_seen.len(),
        count * groups,
        "sub-groups per work-group"
    );
    for members in &groups_seen {
        for (lid, &i) in members.iter().enumerate() {
            assert_eq!(out[4 * n + i] as usize, lid, "local ids run from 0");
            assert_eq!(out[i] as usize, members.len(), "get_sub_group_size");
        }
    }
}

#[test]
fn collectives_match_the_host_per_sub_group() {
    let gpu = Gpu::new();
    if !has_sub_groups(&gpu) {
        eprintln!("skipped: the device has no sub-groups");
        return;
    }
    let src = r#"
        __kernel void k(__global const int *in, __global const long *lin,
                        __global const float *fin, __global int *out,
                        __global long *lout, __global float *fout, __global uint *ids) {
            size_t i = get_global_id(0);
            size_t n = get_global_size(0);
            int v = in[i];
            ids[i] = get_sub_group_id();
            ids[n + i] = get_sub_group_local_id();
            out[i] = sub_group_reduce_add(v);
            out[n + i] = sub_group_reduce_min(v);
            out[2 * n + i] = sub_group_reduce_max(v);
            out[3 * n + i] = sub_group_scan_inclusive_add(v);
            out[4 * n + i] = sub_group_scan_exclusive_min(v);
            out[5 * n + i] = sub_group_broadcast(v, 1);
            out[6 * n + i] = sub_group_all(v > -1000);
            out[7 * n + i] = sub_group_any(v == 5);
            out[8 * n + i] = (int)sub_group_scan_exclusive_add((uint)v);
            lout[i] = sub_group_scan_inclusive_max(lin[i]);
            lout[n + i] = sub_group_reduce_add(lin[i]);
            fout[i] = sub_group_reduce_add(fin[i]);
            fout[n + i] = sub_group_scan_exclusive_max(fin[i]);
            sub_group_barrier(CLK_LOCAL_MEM_FENCE);
        }"#;
    let (local, groups) = (24usize, 4usize);
    let n = local * groups;
    let mut rng = XorShift::new(41);
    let data: Vec<i32> = (0..n)
        .map(|_| (rng.next_u32() % 2001) as i32 - 1000)
        .collect();
    let ldata: Vec<i64> = (0..n)
        .map(|_| (i64::from(rng.next_u32()) << 24) - (1i64 << 54))
        .collect();
    let fdata: Vec<f32> = (0..n)
        .map(|_| (rng.next_u32() % 50) as f32 - 25.0)
        .collect();
    let k = gpu.kernel(src, "k");
    let got = run_on_three_types(&gpu, &k, local, (&data, &ldata, &fdata), 9);
    let ids = &got.ids;
    let (mut want, mut lwant, mut fwant) =
        (vec![0i32; 9 * n], vec![0i64; 2 * n], vec![0f32; 2 * n]);
    for members in sub_groups(local, &ids[..n], &ids[n..]) {
        let vals: Vec<i32> = members.iter().map(|&i| data[i]).collect();
        let sum = vals.iter().fold(0i32, |a, &v| a.wrapping_add(v));
        let lsum: i64 = members.iter().map(|&i| ldata[i]).sum();
        let fsum: f32 = members.iter().map(|&i| fdata[i]).sum();
        let (mut incl, mut exmin, mut exuadd) = (0i32, i32::MAX, 0u32);
        let (mut lmax, mut fexmax) = (i64::MIN, f32::NEG_INFINITY);
        for &i in &members {
            let v = data[i];
            want[i] = sum;
            want[n + i] = *vals.iter().min().unwrap_or(&0);
            want[2 * n + i] = *vals.iter().max().unwrap_or(&0);
            incl = incl.wrapping_add(v);
            want[3 * n + i] = incl;
            want[4 * n + i] = exmin;
            exmin = exmin.min(v);
            want[5 * n + i] = vals.get(1).copied().unwrap_or(vals[0]);
            want[6 * n + i] = i32::from(vals.iter().all(|&x| x > -1000));
            want[7 * n + i] = i32::from(vals.contains(&5));
            want[8 * n + i] = exuadd as i32;
            exuadd = exuadd.wrapping_add(v as u32);
            lmax = lmax.max(ldata[i]);
            lwant[i] = lmax;
            lwant[n + i] = lsum;
            fwant[i] = fsum;
            fwant[n + i] = fexmax;
            fexmax = fexmax.max(fdata[i]);
        }
    }
    for f in 0..9 {
        assert_same(
            &got.ints[f * n..(f + 1) * n],
            &want[f * n..(f + 1) * n],
            &format!("int result {f}"),
        );
    }
    assert_same(&got.longs, &lwant, "long results");
    assert_same(&got.floats, &fwant, "float results");
}

#[test]
fn ballots_shuffles_and_non_uniform_operations() {
    let gpu = Gpu::new();
    for ext in [
        "cl_khr_subgroup_ballot",
        "cl_khr_subgroup_shuffle",
        "cl_khr_subgroup_shuffle_relative",
        "cl_khr_subgroup_non_uniform_vote",
        "cl_khr_subgroup_non_uniform_arithmetic",
    ] {
        if !has_extension(&gpu, ext) {
            eprintln!("skipped: the device lacks {ext}");
            return;
        }
    }
    let src = r#"
        __kernel void k(__global const int *in, __global int *out, __global uint *ids) {
            size_t i = get_global_id(0);
            size_t n = get_global_size(0);
            int v = in[i];
            uint lid = get_sub_group_local_id();
            uint size = get_sub_group_size();
            ids[i] = get_sub_group_id();
            ids[n + i] = lid;
            uint4 b = sub_group_ballot(v & 1);
            out[i] = (int)sub_group_ballot_bit_count(b);
            out[n + i] = (int)sub_group_ballot_exclusive_scan(b);
            out[2 * n + i] = sub_group_ballot_bit_extract(b, (lid + 1) % size);
            out[3 * n + i] = (int)sub_group_ballot_find_lsb(b);
            out[4 * n + i] = sub_group_inverse_ballot(b);
            out[5 * n + i] = (get_sub_group_lt_mask().x & b.x) == (sub_group_ballot(1).x & b.x & ((1u << lid) - 1u));
            out[6 * n + i] = sub_group_shuffle(v, size - 1 - lid);
            out[7 * n + i] = sub_group_shuffle_xor(v, 1u);
            out[8 * n + i] = sub_group_shuffle_down(v, 1u);
            out[9 * n + i] = sub_group_elect();
            out[10 * n + i] = -7;
            if (v & 1) {
                out[10 * n + i] = sub_group_non_uniform_reduce_add(v);
                out[11 * n + i] = sub_group_non_uniform_scan_inclusive_mul(v == 1 ? 1 : 2);
                out[12 * n + i] = sub_group_non_uniform_all(v > 0);
                out[13 * n + i] = sub_group_broadcast_first(v);
            }
            out[14 * n + i] = sub_group_non_uniform_reduce_xor(v);
            out[15 * n + i] = sub_group_non_uniform_all_equal(v >> 30);
            out[16 * n + i] = sub_group_non_uniform_reduce_logical_or(v == 3);
        }"#;
    let (local, groups) = (32usize, 2usize);
    let n = local * groups;
    let mut rng = XorShift::new(42);
    let data: Vec<i32> = (0..n).map(|_| (rng.next_u32() % 9) as i32).collect();
    let k = gpu.kernel(src, "k");
    let (din, dout, dids) = (
        gpu.buffer(&data),
        gpu.zeroed::<i32>(17 * n),
        gpu.zeroed::<u32>(2 * n),
    );
    k.arg_buffer(0, &din)
        .arg_buffer(1, &dout)
        .arg_buffer(2, &dids);
    gpu.run(&k, &[n], Some(&[local]), None);
    let ids = gpu.read::<u32>(&dids);
    let got = gpu.read::<i32>(&dout);
    let mut want = got.clone();
    for members in sub_groups(local, &ids[..n], &ids[n..]) {
        let size = members.len();
        let odd: Vec<bool> = members.iter().map(|&i| data[i] & 1 == 1).collect();
        let odd_members: Vec<usize> = members
            .iter()
            .copied()
            .filter(|&i| data[i] & 1 == 1)
            .collect();
        let count = odd.iter().filter(|&&o| o).count() as i32;
        let first_odd = odd.iter().position(|&o| o).map_or(-1, |p| p as i32);
        let xor = members.iter().fold(0, |a, &i| a ^ data[i]);
        let odd_sum: i32 = odd_members.iter().map(|&i| data[i]).sum();
        let any3 = members.iter().any(|&i| data[i] == 3);
        let mut product = 1;
        for (lid, &i) in members.iter().enumerate() {
            want[i] = count;
            want[n + i] = odd[..lid].iter().filter(|&&o| o).count() as i32;
            want[2 * n + i] = i32::from(odd[(lid + 1) % size]);
            if first_odd >= 0 {
                want[3 * n + i] = first_odd;
            }
            want[4 * n + i] = i32::from(odd[lid]);
            want[5 * n + i] = 1;
            want[6 * n + i] = data[members[size - 1 - lid]];
            if (lid ^ 1) < size {
                want[7 * n + i] = data[members[lid ^ 1]];
            }
            if lid + 1 < size {
                want[8 * n + i] = data[members[lid + 1]];
            }
            want[9 * n + i] = i32::from(lid == 0);
            if odd[lid] {
                want[10 * n + i] = odd_sum;
                product *= if data[i] == 1 { 1 } else { 2 };
                want[11 * n + i] = product;
                want[12 * n + i] = 1;
                want[13 * n + i] = data[odd_members[0]];
            } else {
                want[10 * n + i] = -7;
            }
            want[14 * n + i] = xor;
            want[15 * n + i] = 1;
            want[16 * n + i] = i32::from(any3);
        }
    }
    let names = [
        "ballot_bit_count",
        "ballot_exclusive_scan",
        "ballot_bit_extract",
        "ballot_find_lsb",
        "inverse_ballot",
        "lt_mask",
        "shuffle",
        "shuffle_xor",
        "shuffle_down",
        "elect",
        "non_uniform_reduce_add",
        "non_uniform_scan_inclusive_mul",
        "non_uniform_all",
        "broadcast_first",
        "non_uniform_reduce_xor",
        "non_uniform_all_equal",
        "non_uniform_reduce_logical_or",
    ];
    for (f, name) in names.iter().enumerate() {
        assert_same(
            &got[f * n..(f + 1) * n],
            &want[f * n..(f + 1) * n],
            &format!("sub_group_{name}"),
        );
    }
}

type SubGroupInfoFn = unsafe extern "C" fn(
    Handle,
    Handle,
    cl_uint,
    usize,
    *const c_void,
    usize,
    *mut c_void,
    *mut usize,
) -> cl_int;

#[test]
fn kernel_sub_group_info_answers_for_the_device() {
    let gpu = Gpu::new();
    let k = gpu.kernel("__kernel void k(__global int *p) { p[0] = 1; }", "k");
    // SAFETY: the library the tests already loaded; the symbol has the type
    // the OpenCL headers declare.
    let lib = unsafe { libloading::Library::new(library_path()) }.expect("libferrocl.so loads");
    // SAFETY: as above.
    let info: SubGroupInfoFn = *unsafe { lib.get::<SubGroupInfoFn>(b"clGetKernelSubGroupInfo\0") }
        .expect("clGetKernelSubGroupInfo is exported");
    let query = |param: cl_uint, input: &[usize], out: &mut [usize]| -> cl_int {
        // SAFETY: input and out are live slices of the sizes passed.
        unsafe {
            info(
                k.handle,
                gpu.device,
                param,
                std::mem::size_of_val(input),
                if input.is_empty() {
                    std::ptr::null()
                } else {
                    input.as_ptr() as *const c_void
                },
                std::mem::size_of_val(out),
                out.as_mut_ptr() as *mut c_void,
                null_mut(),
            )
        }
    };
    let mut one = [0usize];
    if !has_sub_groups(&gpu) {
        assert_eq!(
            query(CL_KERNEL_MAX_NUM_SUB_GROUPS, &[], &mut one),
            CL_INVALID_OPERATION
        );
        return;
    }
    check(
        query(CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, &[64], &mut one),
        "CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE",
    );
    let size = one[0];
    assert!((1..=64).contains(&size));
    check(
        query(CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, &[3, 1], &mut one),
        "CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE",
    );
    assert_eq!(one[0], size.min(3));
    check(
        query(CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE, &[10, 3], &mut one),
        "CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE",
    );
    assert_eq!(one[0], 30usize.div_ceil(size));
    let mut three = [9usize; 3];
    check(
        query(CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT, &[2], &mut three),
        "CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT",
    );
    assert_eq!(three, [2 * size, 1, 1]);
    check(
        query(
            CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT,
            &[1 << 30],
            &mut three,
        ),
        "CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT",
    );
    assert_eq!(three, [0, 0, 0], "too many sub-groups for one work-group");
    check(
        query(CL_KERNEL_MAX_NUM_SUB_GROUPS, &[], &mut one),
        "CL_KERNEL_MAX_NUM_SUB_GROUPS",
    );
    assert_eq!(one[0], k.work_group_size().div_ceil(size));
    check(
        query(CL_KERNEL_COMPILE_NUM_SUB_GROUPS, &[], &mut one),
        "CL_KERNEL_COMPILE_NUM_SUB_GROUPS",
    );
    assert_eq!(one[0], 0);
    assert_eq!(
        query(CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE, &[], &mut one),
        CL_INVALID_VALUE,
        "a missing local size"
    );
    assert_eq!(
        query(
            CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE,
            &[1, 2, 3, 4],
            &mut one
        ),
        CL_INVALID_VALUE,
        "four dimensions"
    );
    assert_eq!(
        query(0x1234, &[], &mut one),
        CL_INVALID_VALUE,
        "an unknown query"
    );
}

#[test]
fn extended_types_in_broadcasts_reductions_and_scans() {
    let gpu = Gpu::new();
    if !has_extension(&gpu, "cl_khr_subgroup_extended_types") {
        eprintln!("skipped: the device lacks cl_khr_subgroup_extended_types");
        return;
    }
    let src = r#"
        __kernel void k(__global const char *c, __global const short *s,
                        __global int *out, __global uint *ids) {
            size_t i = get_global_id(0);
            size_t n = get_global_size(0);
            ids[i] = get_sub_group_id();
            ids[n + i] = get_sub_group_local_id();
            out[i] = sub_group_reduce_add(c[i]);
            out[n + i] = sub_group_scan_inclusive_max(s[i]);
            int4 v = sub_group_broadcast((int4)(c[i], s[i], 7, -1), 2);
            out[2 * n + i] = v.x * 1000 + v.y;
            out[3 * n + i] = sub_group_reduce_min((uchar)c[i]);
        }"#;
    let (local, groups) = (16usize, 3usize);
    let n = local * groups;
    let mut rng = XorShift::new(43);
    let c: Vec<i8> = (0..n).map(|_| (rng.next_u32() % 40) as i8 - 20).collect();
    let s: Vec<i16> = (0..n)
        .map(|_| (rng.next_u32() % 4000) as i16 - 2000)
        .collect();
    let k = gpu.kernel(src, "k");
    let (dc, ds, dout, dids) = (
        gpu.buffer(&c),
        gpu.buffer(&s),
        gpu.zeroed::<i32>(4 * n),
        gpu.zeroed::<u32>(2 * n),
    );
    k.arg_buffer(0, &dc)
        .arg_buffer(1, &ds)
        .arg_buffer(2, &dout)
        .arg_buffer(3, &dids);
    gpu.run(&k, &[n], Some(&[local]), None);
    let ids = gpu.read::<u32>(&dids);
    let mut want = vec![0i32; 4 * n];
    for members in sub_groups(local, &ids[..n], &ids[n..]) {
        let sum = members.iter().fold(0i8, |a, &i| a.wrapping_add(c[i]));
        let umin = members.iter().map(|&i| c[i] as u8).min().unwrap_or(0);
        let third = members.get(2).copied().unwrap_or(members[0]);
        let mut max = i16::MIN;
        for &i in &members {
            want[i] = i32::from(sum);
            max = max.max(s[i]);
            want[n + i] = i32::from(max);
            want[2 * n + i] = i32::from(c[third]) * 1000 + i32::from(s[third]);
            want[3 * n + i] = i32::from(umin);
        }
    }
    assert_same(&gpu.read::<i32>(&dout), &want, "extended-type results");
}

#[test]
fn rotations_within_the_sub_group_and_clusters() {
    let gpu = Gpu::new();
    if !has_extension(&gpu, "cl_khr_subgroup_rotate") {
        eprintln!("skipped: the device lacks cl_khr_subgroup_rotate");
        return;
    }
    let src = r#"
        __kernel void k(__global const int *in, __global int *out, __global uint *ids) {
            size_t i = get_global_id(0);
            size_t n = get_global_size(0);
            ids[i] = get_sub_group_id();
            ids[n + i] = get_sub_group_local_id();
            out[i] = sub_group_rotate(in[i], 3);
            out[n + i] = sub_group_rotate(in[i], -1);
            out[2 * n + i] = sub_group_clustered_rotate(in[i], 1, 4);
        }"#;
    // Full sub-groups only: a rotation may read inactive work-items.
    let k = gpu.kernel(src, "k");
    let max = max_sub_group_size(&gpu);
    let (local, groups) = (4 * max, 2usize);
    let n = local * groups;
    let data: Vec<i32> = (0..n as i32).map(|x| x * 7 + 1).collect();
    let (din, dout, dids) = (
        gpu.buffer(&data),
        gpu.zeroed::<i32>(3 * n),
        gpu.zeroed::<u32>(2 * n),
    );
    k.arg_buffer(0, &din)
        .arg_buffer(1, &dout)
        .arg_buffer(2, &dids);
    gpu.run(&k, &[n], Some(&[local]), None);
    let ids = gpu.read::<u32>(&dids);
    let mut want = vec![0i32; 3 * n];
    for members in sub_groups(local, &ids[..n], &ids[n..]) {
        let size = members.len();
        assert_eq!(size, max);
        for (lid, &i) in members.iter().enumerate() {
            want[i] = data[members[(lid + 3) % size]];
            want[n + i] = data[members[(lid + size - 1) % size]];
            let base = lid & !3;
            want[2 * n + i] = data[members[base + ((lid - base + 1) % 4)]];
        }
    }
    assert_same(&gpu.read::<i32>(&dout), &want, "rotations");
}

/// The reduction of `op` over the members of lane `lid`'s cluster of
/// `size` lanes that `active` keeps.
fn clustered<T: Copy>(
    lanes: &[T],
    lid: usize,
    size: usize,
    active: impl Fn(usize) -> bool,
    op: impl Fn(T, T) -> T,
) -> T {
    let base = lid & !(size - 1);
    (base..base + size)
        .filter(|&l| active(l))
        .map(|l| lanes[l])
        .reduce(op)
        .expect("the lane itself is active")
}

#[test]
fn clustered_reductions_match_the_host_per_cluster() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void k(__global const int *in, __global const long *lin,
                        __global const float *fin, __global int *out,
                        __global long *lout, __global float *fout, __global uint *ids) {
            size_t i = get_global_id(0);
            size_t n = get_global_size(0);
            uint lid = get_sub_group_local_id();
            ids[i] = get_sub_group_id();
            ids[n + i] = lid;
            int x = in[i];
            out[i] = sub_group_clustered_reduce_add(x, 4);
            out[n + i] = sub_group_clustered_reduce_mul((x & 3) + 1, 2);
            out[2 * n + i] = sub_group_clustered_reduce_min(x, MAXC);
            out[3 * n + i] = sub_group_clustered_reduce_max(x, 1);
            out[4 * n + i] = sub_group_clustered_reduce_and(x, 4);
            out[5 * n + i] = sub_group_clustered_reduce_or(x, 2);
            out[6 * n + i] = sub_group_clustered_reduce_xor(x, MAXC);
            out[7 * n + i] = sub_group_clustered_reduce_logical_and(x & 1, 2);
            out[8 * n + i] = sub_group_clustered_reduce_logical_or(x > 90, 4);
            out[9 * n + i] = sub_group_clustered_reduce_logical_xor(x & 1, 4);
            // Only the active work-items of a cluster take part.
            out[10 * n + i] = lid % 3 != 0 ? sub_group_clustered_reduce_add(x, 4) : -1;
            lout[i] = sub_group_clustered_reduce_add(lin[i], MAXC);
            lout[n + i] = sub_group_clustered_reduce_min(lin[i], 2);
            fout[i] = sub_group_clustered_reduce_add(fin[i], 4);
            fout[n + i] = sub_group_clustered_reduce_max(fin[i], 2);
        }"#;
    if !has_extension(&gpu, "cl_khr_subgroup_clustered_reduce") {
        // The device's Vulkan subgroups lack clustered operations: the
        // functions are refused with a build log naming the extension.
        let (status, log) = match gpu.try_program(&src.replace("MAXC", "4"), "") {
            Ok(_) => panic!("clustered reductions built without the extension"),
            Err(e) => e,
        };
        assert_eq!(status, CL_BUILD_PROGRAM_FAILURE);
        assert!(
            log.contains("cl_khr_subgroup_clustered_reduce"),
            "build log: {log}"
        );
        eprintln!("the device lacks cl_khr_subgroup_clustered_reduce: checked the refusal only");
        return;
    }
    let max = max_sub_group_size(&gpu);
    assert!(max >= 4, "sub-groups of {max}");
    let k = gpu.program(src, &format!("-D MAXC={max}")).kernel("k");
    let (local, groups) = (4 * max, 2usize);
    let n = local * groups;
    let mut rng = XorShift::new(11);
    let data: Vec<i32> = (0..n).map(|_| (rng.next_u32() % 100) as i32 - 5).collect();
    let ldata: Vec<i64> = (0..n)
        .map(|_| (rng.next_u64() >> 8) as i64 - (1 << 54))
        .collect();
    // Small integers, so float sums are exact in any order.
    let fdata: Vec<f32> = (0..n)
        .map(|_| (rng.next_u32() % 64) as f32 - 20.0)
        .collect();
    let got = run_on_three_types(&gpu, &k, local, (&data, &ldata, &fdata), 11);
    let ids = &got.ids;
    let mut want = vec![0i32; 11 * n];
    let mut lwant = vec![0i64; 2 * n];
    let mut fwant = vec![0f32; 2 * n];
    for members in sub_groups(local, &ids[..n], &ids[n..]) {
        assert_eq!(members.len(), max, "full sub-groups");
        let x: Vec<i32> = members.iter().map(|&i| data[i]).collect();
        let l: Vec<i64> = members.iter().map(|&i| ldata[i]).collect();
        let f: Vec<f32> = members.iter().map(|&i| fdata[i]).collect();
        let all = |_: usize| true;
        let truth =
            |v: &[i32], p: fn(i32) -> bool| v.iter().map(|&e| i32::from(p(e))).collect::<Vec<_>>();
        let odd = truth(&x, |e| e & 1 != 0);
        let big = truth(&x, |e| e > 90);
        let factors: Vec<i32> = x.iter().map(|&e| (e & 3) + 1).collect();
        for (lid, &i) in members.iter().enumerate() {
            want[i] = clustered(&x, lid, 4, all, i32::wrapping_add);
            want[n + i] = clustered(&factors, lid, 2, all, i32::wrapping_mul);
            want[2 * n + i] = clustered(&x, lid, max, all, i32::min);
            want[3 * n + i] = x[lid];
            want[4 * n + i] = clustered(&x, lid, 4, all, |a, b| a & b);
            want[5 * n + i] = clustered(&x, lid, 2, all, |a, b| a | b);
            want[6 * n + i] = clustered(&x, lid, max, all, |a, b| a ^ b);
            want[7 * n + i] = clustered(&odd, lid, 2, all, |a, b| a & b);
            want[8 * n + i] = clustered(&big, lid, 4, all, |a, b| a | b);
            want[9 * n + i] = clustered(&odd, lid, 4, all, |a, b| a ^ b);
            want[10 * n + i] = if lid % 3 != 0 {
                clustered(&x, lid, 4, |l| l % 3 != 0, i32::wrapping_add)
            } else {
                -1
            };
            lwant[i] = clustered(&l, lid, max, all, i64::wrapping_add);
            lwant[n + i] = clustered(&l, lid, 2, all, i64::min);
            fwant[i] = clustered(&f, lid, 4, all, |a, b| a + b);
            fwant[n + i] = clustered(&f, lid, 2, all, f32::max);
        }
    }
    assert_same(&got.ints, &want, "int clustered reductions");
    assert_same(&got.longs, &lwant, "long clustered reductions");
    assert_same(&got.floats, &fwant, "float clustered reductions");
}
