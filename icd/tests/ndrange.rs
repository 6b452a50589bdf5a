//! NDRange shapes: non-uniform work-groups (OpenCL 2.0 and newer), offsets,
//! NULL local sizes and NDRanges split beyond `maxComputeWorkGroupCount`,
//! every work-item function compared with values computed on the host.

mod common;

use common::*;
use ferrocl_runtime::cl::{CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT, CL_INVALID_WORK_GROUP_SIZE};

/// Values each work-item writes, in this order, per dimension where the
/// function takes one.
const PER_DIM: usize = 6;
/// Per work-item: 6 functions × 3 dimensions, the two linear ids and the
/// local size derived from a barrier-synchronised count of the group.
const STRIDE: usize = PER_DIM * 3 + 3;

const IDS: &str = r#"
    __kernel void ids(__global ulong *out, __local uint *count) {
        size_t lin = get_global_linear_id();
        __global ulong *o = out + lin * 21;
        for (uint d = 0; d < 3; d++) {
            o[d * 6 + 0] = get_global_id(d);
            o[d * 6 + 1] = get_local_id(d);
            o[d * 6 + 2] = get_group_id(d);
            o[d * 6 + 3] = get_local_size(d);
            o[d * 6 + 4] = get_enqueued_local_size(d);
            o[d * 6 + 5] = get_num_groups(d);
        }
        o[18] = lin;
        o[19] = get_local_linear_id();
        // Every work-item of the group counts itself: the group really has
        // get_local_size work-items.
        if (get_local_linear_id() == 0) *count = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        atomic_inc(count);
        barrier(CLK_LOCAL_MEM_FENCE);
        o[20] = *count;
    }"#;

/// What work-item `gid` (offset included) of an NDRange must report.
fn expected(
    gid: [usize; 3],
    global: [usize; 3],
    local: [usize; 3],
    offset: [usize; 3],
) -> Vec<u64> {
    let mut out = Vec::with_capacity(STRIDE);
    let mut lsize = [0usize; 3];
    let mut lid = [0usize; 3];
    for d in 0..3 {
        let i = gid[d] - offset[d];
        let group = i / local[d];
        let whole = global[d] / local[d];
        let size = if group < whole {
            local[d]
        } else {
            global[d] % local[d]
        };
        lsize[d] = size;
        lid[d] = i % local[d];
        out.extend_from_slice(&[
            gid[d] as u64,
            lid[d] as u64,
            group as u64,
            size as u64,
            local[d] as u64,
            global[d].div_ceil(local[d]) as u64,
        ]);
    }
    let rel: Vec<usize> = (0..3).map(|d| gid[d] - offset[d]).collect();
    out.push(((rel[2] * global[1] + rel[1]) * global[0] + rel[0]) as u64);
    out.push(((lid[2] * lsize[1] + lid[1]) * lsize[0] + lid[0]) as u64);
    out.push((lsize[0] * lsize[1] * lsize[2]) as u64);
    out
}

fn pad(v: &[usize], fill: usize) -> [usize; 3] {
    let mut out = [fill; 3];
    out[..v.len()].copy_from_slice(v);
    out
}

/// Runs the `ids` kernel over one shape and compares every value.
fn check_shape(gpu: &Gpu, k: &Kernel<'_>, global: &[usize], local: &[usize], offset: &[usize]) {
    check_shape_from(gpu, k, 0, global, local, offset);
}

/// `check_shape` for an `ids` kernel whose own arguments start at
/// `first_arg`.
fn check_shape_from(
    gpu: &Gpu,
    k: &Kernel<'_>,
    first_arg: u32,
    global: &[usize],
    local: &[usize],
    offset: &[usize],
) {
    let g = pad(global, 1);
    let l = pad(local, 1);
    let o = pad(offset, 0);
    let items: usize = g.iter().product();
    let out = gpu.zeroed::<u64>(items * STRIDE);
    k.arg_buffer(first_arg, &out).arg_local(first_arg + 1, 4);
    gpu.run(k, global, Some(local), Some(offset));
    let got = gpu.read::<u64>(&out);
    let mut want = Vec::with_capacity(items * STRIDE);
    for z in 0..g[2] {
        for y in 0..g[1] {
            for x in 0..g[0] {
                want.extend(expected([x + o[0], y + o[1], z + o[2]], g, l, o));
            }
        }
    }
    assert_same(
        &got,
        &want,
        &format!("work-item values of global {global:?} local {local:?} offset {offset:?}"),
    );
}

#[test]
fn device_reports_non_uniform_work_groups() {
    let gpu = Gpu::new();
    let supported: u32 = gpu.device_info(CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT);
    assert_eq!(supported, 1);
}

#[test]
fn non_uniform_shapes_in_one_to_three_dimensions() {
    let gpu = Gpu::new();
    let k = gpu.kernel_with_options(IDS, "ids", "-cl-std=CL3.0");
    let shapes: &[(&[usize], &[usize], &[usize])] = &[
        (&[10], &[4], &[0]),
        (&[3], &[8], &[0]),
        (&[1], &[64], &[5]),
        (&[257], &[64], &[1000]),
        (&[64], &[16], &[3]),
        (&[13, 9], &[4, 2], &[0, 0]),
        (&[5, 7], &[8, 8], &[2, 1]),
        (&[33, 3], &[16, 4], &[7, 11]),
        (&[16, 16], &[4, 4], &[1, 2]),
        (&[13, 9, 5], &[4, 2, 3], &[0, 0, 0]),
        (&[7, 5, 3], &[2, 2, 2], &[1, 2, 3]),
        (&[9, 10, 11], &[3, 3, 3], &[100, 0, 7]),
        (&[4, 4, 4], &[4, 4, 4], &[0, 0, 0]),
        (&[1, 1, 17], &[1, 1, 8], &[0, 0, 0]),
    ];
    for (global, local, offset) in shapes {
        check_shape(&gpu, &k, global, local, offset);
    }
}

/// `ids` after 0 to 4 `float16` arguments (8 to 264 bytes of arguments in
/// all): on devices with 128 or 256 bytes of push constants this puts the
/// launch header and the arguments in push constants, then (with
/// `FERROCL_LARGE_ARGS=push`) the header in a buffer and the arguments in
/// push constants, then the arguments in a buffer
/// (`ferrocl_compiler::ArgBlock`). Each shape reads every part of the
/// header: offsets, sizes, the work dimension (through the linear id), the
/// group base of a partial work-group and of an NDRange split beyond
/// `maxComputeWorkGroupCount`.
#[test]
fn header_and_arguments_wherever_they_fit() {
    let gpu = Gpu::new();
    let shapes: &[(&[usize], &[usize], &[usize])] = &[
        (&[257], &[64], &[1000]),
        (&[13, 9, 5], &[4, 2, 3], &[0, 0, 0]),
        (&[9, 10, 11], &[3, 3, 3], &[100, 0, 7]),
        (&[2, 65_600], &[2, 1], &[0, 3]),
    ];
    for pads in 0..=4u32 {
        let params: String = (0..pads).map(|i| format!("float16 p{i}, ")).collect();
        let copies: String = (0..pads)
            .map(|i| format!("vstore16(p{i}, {i}, check); "))
            .collect();
        let src = IDS
            .replace(
                "__kernel void ids(",
                &format!("__kernel void ids({params}__global float *check, "),
            )
            .replace(
                "o[20] = *count;",
                &format!("o[20] = *count;\n        if (lin == 0) {{ {copies}}}"),
            );
        let k = gpu.kernel_with_options(&src, "ids", "-cl-std=CL3.0");
        let values: Vec<[f32; 16]> = (0..pads)
            .map(|i| std::array::from_fn(|j| (16 * i) as f32 + j as f32 + 0.5))
            .collect();
        for (i, v) in values.iter().enumerate() {
            k.arg(i as u32, *v);
        }
        let check = gpu.zeroed::<f32>(16 * values.len().max(1));
        k.arg_buffer(pads, &check);
        for (global, local, offset) in shapes {
            check_shape_from(&gpu, &k, pads + 1, global, local, offset);
        }
        if pads > 0 {
            let want: Vec<f32> = values.iter().flatten().copied().collect();
            assert_same(
                &gpu.read::<f32>(&check),
                &want,
                &format!("{pads} float16 arguments"),
            );
        }
    }
}

/// The test above in a process for each value of `FERROCL_LARGE_ARGS`
/// (read once per device).
#[test]
fn header_and_arguments_both_ways() {
    rerun_with_each(
        "FERROCL_LARGE_ARGS",
        &["push", "buffer"],
        "header_and_arguments_wherever_they_fit",
    );
}

#[test]
fn opencl_c_2_0_allows_non_uniform_groups() {
    let gpu = Gpu::new();
    let k = gpu.kernel_with_options(IDS, "ids", "-cl-std=CL2.0");
    check_shape(&gpu, &k, &[11, 6], &[4, 4], &[2, 0]);
}

#[test]
fn uniform_work_groups_are_required_where_the_program_asks() {
    let gpu = Gpu::new();
    let out = gpu.zeroed::<u64>(100 * STRIDE);
    for options in [
        "",
        "-cl-std=CL1.2",
        "-cl-std=CL3.0 -cl-uniform-work-group-size",
    ] {
        let k = gpu.kernel_with_options(IDS, "ids", options);
        k.arg_buffer(0, &out).arg_local(1, 4);
        assert_eq!(
            gpu.try_run(&k, &[10], Some(&[4]), None),
            CL_INVALID_WORK_GROUP_SIZE,
            "non-dividing local size with options {options:?}"
        );
        // A dividing one still runs.
        gpu.run(&k, &[12], Some(&[4]), None);
    }
    gpu.finish();
}

#[test]
fn null_local_size_covers_a_prime_range_once() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void count(__global uint *hits, __global uint *sizes) {
            atomic_inc(&hits[get_global_id(0)]);
            if (get_global_id(0) == 0) {
                sizes[0] = get_local_size(0);
                sizes[1] = get_enqueued_local_size(0);
                sizes[2] = get_num_groups(0);
            }
        }"#;
    for options in ["-cl-std=CL3.0", "-cl-std=CL1.2"] {
        let k = gpu.kernel_with_options(src, "count", options);
        let n = 1031usize;
        let hits = gpu.zeroed::<u32>(n);
        let sizes = gpu.zeroed::<u32>(3);
        k.arg_buffer(0, &hits).arg_buffer(1, &sizes);
        gpu.run(&k, &[n], None, None);
        assert_same(&gpu.read::<u32>(&hits), &vec![1u32; n], "each id once");
        let s = gpu.read::<u32>(&sizes);
        assert_eq!(s[0], s[1], "the first group is whole");
        assert_eq!(s[2] as usize, n.div_ceil(s[1] as usize));
        if options.contains("CL1.2") {
            assert_eq!(n % s[1] as usize, 0, "uniform groups for OpenCL C 1.2");
        } else {
            assert!(s[1] > 1, "a useful group size for a prime range");
        }
    }
}

/// More work-groups in y and in z than lavapipe's (and most GPUs')
/// `maxComputeWorkGroupCount` of 65535 there.
#[test]
fn many_groups_in_y_and_z() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void groups(__global uint *out) {
            size_t i = get_global_linear_id();
            out[i] = (uint)(get_group_id(0) + get_group_id(1) + get_group_id(2));
            if (get_global_id(1) + get_global_id(2) == 0)
                out[i] = (uint)(get_num_groups(1) * get_num_groups(2));
        }"#;
    let k = gpu.kernel_with_options(src, "groups", "-cl-std=CL3.0");
    for global in [[1usize, 70_001, 1], [1, 1, 70_001], [2, 300, 300]] {
        let local = [1usize, 1, 1];
        let n: usize = global.iter().product();
        let out = gpu.zeroed::<u32>(n);
        k.arg_buffer(0, &out);
        gpu.run(&k, &global, Some(&local), None);
        let mut want = Vec::with_capacity(n);
        for z in 0..global[2] {
            for y in 0..global[1] {
                for x in 0..global[0] {
                    want.push(if y + z == 0 {
                        (global[1] * global[2]) as u32
                    } else {
                        (x + y + z) as u32
                    });
                }
            }
        }
        assert_same(
            &gpu.read::<u32>(&out),
            &want,
            &format!("groups of {global:?}"),
        );
    }
}

#[test]
fn ids_and_offsets_past_32_bits() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void ids(__global ulong *out) {
            size_t g = get_global_id(0) - get_global_offset(0);
            size_t h = get_global_id(1) - get_global_offset(1);
            out[h * get_global_size(0) + g] = get_global_id(0) ^ (get_global_id(1) << 1);
        }"#;
    let k = gpu.kernel_with_options(src, "ids", "-cl-std=CL3.0");
    let offset = [(1usize << 32) - 7, (1usize << 40) + 3];
    let global = [19usize, 5];
    let out = gpu.zeroed::<u64>(global[0] * global[1]);
    k.arg_buffer(0, &out);
    gpu.run(&k, &global, Some(&[4, 2]), Some(&offset));
    let mut want = Vec::new();
    for y in 0..global[1] {
        for x in 0..global[0] {
            want.push(((offset[0] + x) ^ ((offset[1] + y) << 1)) as u64);
        }
    }
    assert_same(&gpu.read::<u64>(&out), &want, "ids around 2^32 and 2^40");
}

#[test]
fn offset_plus_size_past_size_t_is_invalid() {
    let gpu = Gpu::new();
    let k = gpu.kernel_with_options(IDS, "ids", "-cl-std=CL3.0");
    let out = gpu.zeroed::<u64>(16 * STRIDE);
    k.arg_buffer(0, &out).arg_local(1, 4);
    assert_eq!(
        gpu.try_run(&k, &[16], Some(&[4]), Some(&[usize::MAX - 5])),
        ferrocl_runtime::cl::CL_INVALID_GLOBAL_OFFSET
    );
    gpu.finish();
}

type SuggestLocalWorkSize = unsafe extern "C" fn(
    Handle,
    Handle,
    ferrocl_runtime::cl::cl_uint,
    *const usize,
    *const usize,
    *mut usize,
) -> ferrocl_runtime::cl::cl_int;

#[test]
fn suggested_local_work_size_is_the_one_a_null_local_size_gets() {
    use ferrocl_runtime::cl::*;
    use std::ptr::{null, null_mut};
    let gpu = Gpu::new();
    assert!(gpu
        .device_string(CL_DEVICE_EXTENSIONS)
        .split_whitespace()
        .any(|e| e == "cl_khr_suggested_local_work_size"));
    // SAFETY: a valid platform and a NUL-terminated name.
    let f = unsafe {
        (gpu.api.clGetExtensionFunctionAddressForPlatform)(
            gpu.platform,
            c"clGetKernelSuggestedLocalWorkSizeKHR".as_ptr(),
        )
    };
    assert!(!f.is_null());
    // SAFETY: the extension's signature.
    let suggest: SuggestLocalWorkSize = unsafe { std::mem::transmute(f) };
    let src = "__kernel void k(__global uint *out) {\n\
          out[get_global_id(1) * get_global_size(0) + get_global_id(0)] =\n\
            (uint)(get_local_size(0) * 10000 + get_local_size(1));\n\
        }\n";
    let k = gpu.kernel(src, "k");
    let global = [96usize, 40];
    let out = gpu.zeroed::<u32>(global[0] * global[1]);
    k.arg_buffer(0, &out);
    let mut local = [0usize; 2];
    // SAFETY: valid handles and arrays of two.
    let status = unsafe {
        suggest(
            gpu.queue,
            k.handle,
            2,
            null(),
            global.as_ptr(),
            local.as_mut_ptr(),
        )
    };
    check(status, "clGetKernelSuggestedLocalWorkSizeKHR");
    let max = gpu.device_info::<u64>(CL_DEVICE_MAX_WORK_GROUP_SIZE) as usize;
    assert!(
        local[0] >= 1 && local[1] >= 1 && local[0] * local[1] <= max,
        "{local:?}"
    );
    // An OpenCL C 1.2 kernel needs uniform work-groups.
    assert_eq!(
        (global[0] % local[0], global[1] % local[1]),
        (0, 0),
        "{local:?}"
    );
    gpu.run(&k, &global, None, None);
    let want = (local[0] * 10000 + local[1]) as u32;
    assert!(gpu.read::<u32>(&out).iter().all(|&v| v == want));
    // The errors of clEnqueueNDRangeKernel, and NULL or zero sizes.
    let zero = [96usize, 0];
    let mut unused = [0usize; 3];
    // SAFETY: each call passes valid memory or NULL where the case says.
    unsafe {
        let call = |q: Handle, dim: cl_uint, g: *const usize, l: *mut usize| {
            suggest(q, k.handle, dim, null(), g, l)
        };
        assert_eq!(
            call(null_mut(), 2, global.as_ptr(), local.as_mut_ptr()),
            CL_INVALID_COMMAND_QUEUE
        );
        assert_eq!(
            call(gpu.queue, 0, global.as_ptr(), unused.as_mut_ptr()),
            CL_INVALID_WORK_DIMENSION
        );
        assert_eq!(
            call(gpu.queue, 4, global.as_ptr(), unused.as_mut_ptr()),
            CL_INVALID_WORK_DIMENSION
        );
        assert_eq!(
            call(gpu.queue, 2, null(), unused.as_mut_ptr()),
            CL_INVALID_GLOBAL_WORK_SIZE
        );
        assert_eq!(
            call(gpu.queue, 2, zero.as_ptr(), unused.as_mut_ptr()),
            CL_INVALID_GLOBAL_WORK_SIZE
        );
        assert_eq!(
            call(gpu.queue, 2, global.as_ptr(), null_mut()),
            CL_INVALID_VALUE
        );
        let unset = gpu.kernel(src, "k");
        assert_eq!(
            suggest(
                gpu.queue,
                unset.handle,
                2,
                null(),
                global.as_ptr(),
                unused.as_mut_ptr()
            ),
            CL_INVALID_KERNEL_ARGS
        );
        assert_eq!(
            suggest(
                gpu.queue,
                null_mut(),
                2,
                null(),
                global.as_ptr(),
                unused.as_mut_ptr()
            ),
            CL_INVALID_KERNEL
        );
    }
}
