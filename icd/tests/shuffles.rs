//! `shuffle` and `shuffle2` (OpenCL C 6.15.12) on the widest vectors of
//! every element size, with masks read from memory (so nothing folds at
//! compile time) and mask bits above the index that must be ignored,
//! checked against the host.

mod common;

use common::*;
use ferrocl_runtime::cl::CL_DEVICE_EXTENSIONS;

/// Runs shuffle(x, m) and shuffle2(x, y, m) for `ty`16 with masks of
/// `mask_ty`16 over `items` work-items; elements travel as u64 bit patterns
/// widened from `size` bytes.
fn check_shuffles(gpu: &Gpu, ty: &str, mask_ty: &str, size: usize, n_out: usize) {
    let items = 64;
    let mut rng = XorShift::new(0x5eed_0001 ^ size as u32);
    let width_in = 16;
    let elem_mask = if size == 8 {
        u64::MAX
    } else {
        (1u64 << (8 * size)) - 1
    };
    let xs: Vec<u64> = (0..items * width_in)
        .map(|_| rng.next_u64() & elem_mask)
        .collect();
    let ys: Vec<u64> = (0..items * width_in)
        .map(|_| rng.next_u64() & elem_mask)
        .collect();
    // Random indices with random high bits that the built-ins ignore.
    let masks: Vec<u64> = (0..items * n_out)
        .map(|_| rng.next_u64() & elem_mask.min(0xffff_ffff))
        .collect();
    let pack = |v: &[u64]| -> Vec<u8> {
        v.iter()
            .flat_map(|x| x.to_le_bytes()[..size].to_vec())
            .collect()
    };
    let pragma = if ty == "double" {
        "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
    } else {
        ""
    };
    let src = format!(
        "{pragma}__kernel void k(__global const {ty}16 *x, __global const {ty}16 *y,\n\
           __global const {mask_ty}{n_out} *m, __global {ty}{n_out} *one,\n\
           __global {ty}{n_out} *two) {{\n\
           size_t i = get_global_id(0);\n\
           one[i] = shuffle(x[i], m[i]);\n\
           two[i] = shuffle2(x[i], y[i], m[i]);\n\
         }}\n"
    );
    let k = gpu.kernel(&src, "k");
    let (dx, dy, dm) = (
        gpu.buffer(&pack(&xs)),
        gpu.buffer(&pack(&ys)),
        gpu.buffer(&pack(&masks)),
    );
    let (d1, d2) = (
        gpu.zeroed::<u8>(items * n_out * size),
        gpu.zeroed::<u8>(items * n_out * size),
    );
    k.arg_buffer(0, &dx)
        .arg_buffer(1, &dy)
        .arg_buffer(2, &dm)
        .arg_buffer(3, &d1)
        .arg_buffer(4, &d2);
    gpu.run(&k, &[items], None, None);
    let unpack = |b: Vec<u8>| -> Vec<u64> {
        b.chunks(size)
            .map(|c| {
                let mut w = [0u8; 8];
                w[..size].copy_from_slice(c);
                u64::from_le_bytes(w)
            })
            .collect()
    };
    let (one, two) = (unpack(gpu.read::<u8>(&d1)), unpack(gpu.read::<u8>(&d2)));
    for i in 0..items {
        for j in 0..n_out {
            let m = masks[i * n_out + j];
            let want1 = xs[i * width_in + (m % 16) as usize];
            let k2 = (m % 32) as usize;
            let want2 = if k2 < 16 {
                xs[i * width_in + k2]
            } else {
                ys[i * width_in + k2 - 16]
            };
            assert_eq!(
                one[i * n_out + j],
                want1,
                "shuffle {ty}16 -> {n_out}, item {i} [{j}]"
            );
            assert_eq!(
                two[i * n_out + j],
                want2,
                "shuffle2 {ty}16 -> {n_out}, item {i} [{j}]"
            );
        }
    }
}

#[test]
fn shuffles_of_sixteen_components_of_every_size() {
    let gpu = Gpu::new();
    let fp64 = gpu
        .device_string(CL_DEVICE_EXTENSIONS)
        .split_whitespace()
        .any(|e| e == "cl_khr_fp64");
    for (ty, mask, size) in [
        ("uchar", "uchar", 1),
        ("ushort", "ushort", 2),
        ("uint", "uint", 4),
        ("float", "uint", 4),
        ("ulong", "ulong", 8),
        ("double", "ulong", 8),
    ] {
        if ty == "double" && !fp64 {
            continue;
        }
        for n_out in [2, 16] {
            check_shuffles(&gpu, ty, mask, size, n_out);
        }
    }
}
