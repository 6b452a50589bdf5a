//! Execution tests: kernels a user would write, run through the exported C
//! ABI of libferrocl.so on the first device (lavapipe in CI), each compared
//! with a reference computed on the host.

mod common;

use common::*;
use ferrocl_runtime::cl::{
    CL_DEVICE_EXTENSIONS, CL_DEVICE_MEM_BASE_ADDR_ALIGN, CL_INVALID_BUILD_OPTIONS,
};

fn round_up(n: usize, m: usize) -> usize {
    n.div_ceil(m) * m
}

// ---------------------------------------------------------------------------
// Basic data-parallel kernels
// ---------------------------------------------------------------------------

#[test]
fn vector_add() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void vector_add(__global const float *a, __global const float *b,
                                 __global float *c, const uint n) {
            size_t i = get_global_id(0);
            if (i < n) c[i] = a[i] + b[i];
        }"#;
    let n = 100_003usize;
    let mut rng = XorShift::new(1);
    let a = rng.floats(n, -100.0, 100.0);
    let b = rng.floats(n, -100.0, 100.0);
    let k = gpu.kernel(src, "vector_add");
    let (da, db, dc) = (gpu.buffer(&a), gpu.buffer(&b), gpu.zeroed::<f32>(n));
    k.arg_buffer(0, &da)
        .arg_buffer(1, &db)
        .arg_buffer(2, &dc)
        .arg(3, n as u32);
    gpu.run(&k, &[n], None, None);
    let want: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    assert_same(&gpu.read::<f32>(&dc), &want, "a + b");
}

#[test]
fn saxpy_with_copy_host_ptr() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void saxpy(float alpha, __global const float *x, __global float *y) {
            int i = get_global_id(0);
            y[i] = alpha * x[i] + y[i];
        }"#;
    let n = 4099usize;
    let mut rng = XorShift::new(2);
    let x = rng.floats(n, -1.0, 1.0);
    let y = rng.floats(n, -1.0, 1.0);
    let k = gpu.kernel(src, "saxpy");
    let (dx, dy) = (gpu.buffer_copy_host(&x), gpu.buffer_copy_host(&y));
    k.arg(0, 2.5f32).arg_buffer(1, &dx).arg_buffer(2, &dy);
    gpu.run(&k, &[n], None, None);
    let want: Vec<f32> = x.iter().zip(&y).map(|(x, y)| 2.5 * x + y).collect();
    // A fused multiply-add is allowed (FP_CONTRACT is on by default).
    assert_close(&gpu.read::<f32>(&dy), &want, 1e-6, 1e-6, "saxpy");
}

#[test]
fn scale_with_global_offset() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void scale(__global const int *in, __global int *out, int factor) {
            size_t i = get_global_id(0);
            out[i] = in[i] * factor;
        }"#;
    let n = 5000usize;
    let (offset, count) = (1000usize, 3001usize);
    let input: Vec<i32> = (0..n as i32).map(|i| i * 7 - 3000).collect();
    let k = gpu.kernel(src, "scale");
    let (din, dout) = (gpu.buffer(&input), gpu.zeroed::<i32>(n));
    k.arg_buffer(0, &din).arg_buffer(1, &dout).arg(2, -3i32);
    gpu.run(&k, &[count], None, Some(&[offset]));
    let want: Vec<i32> = (0..n)
        .map(|i| {
            if (offset..offset + count).contains(&i) {
                input[i] * -3
            } else {
                0
            }
        })
        .collect();
    assert_same(&gpu.read::<i32>(&dout), &want, "scaled range only");
}

// ---------------------------------------------------------------------------
// Work-item functions in 1, 2 and 3 dimensions
// ---------------------------------------------------------------------------

const INDEX_ND: &str = r#"
    __kernel void index_nd(__global uint *out) {
        size_t x = get_global_id(0) - get_global_offset(0);
        size_t y = get_global_id(1) - get_global_offset(1);
        size_t z = get_global_id(2) - get_global_offset(2);
        size_t linear = (z * get_global_size(1) + y) * get_global_size(0) + x;
        __global uint *r = out + linear * 24;
        for (uint d = 0; d < 3; d++) {
            r[d] = get_global_id(d);
            r[3 + d] = get_local_id(d);
            r[6 + d] = get_group_id(d);
            r[9 + d] = get_num_groups(d);
            r[12 + d] = get_global_size(d);
            r[15 + d] = get_local_size(d);
            r[18 + d] = get_global_offset(d);
        }
        r[21] = get_work_dim();
        r[22] = get_global_id(3) + 10 * get_local_size(3) + 100 * get_num_groups(3);
        r[23] = 0xC0FFEEu;
    }"#;

/// Runs `index_nd` and checks every value every work-item wrote. With no
/// local size the one the implementation chose is read back (the largest
/// local size seen) and the rest is checked against it, allowing a smaller
/// last group (non-uniform work-groups).
fn check_index_nd(global: &[usize], local: Option<&[usize]>, offset: Option<&[usize]>) {
    let gpu = Gpu::new();
    let k = gpu.kernel(INDEX_ND, "index_nd");
    let total: usize = global.iter().product();
    let out = gpu.zeroed::<u32>(total * 24);
    k.arg_buffer(0, &out);
    gpu.run(&k, global, local, offset);
    let got = gpu.read::<u32>(&out);
    let dims = global.len();
    let g3 = |d: usize| if d < dims { global[d] } else { 1 };
    let o3 = |d: usize| offset.map_or(0, |o| if d < dims { o[d] } else { 0 });
    let chosen: Vec<usize> = (0..3)
        .map(|d| match local {
            Some(l) if d < dims => l[d],
            _ => (0..total)
                .map(|i| got[i * 24 + 15 + d] as usize)
                .max()
                .unwrap(),
        })
        .collect();
    for (d, &l) in chosen.iter().enumerate() {
        assert!(
            l >= 1 && l <= g3(d),
            "local size {l} in dimension {d} for global {}",
            g3(d)
        );
    }
    for z in 0..g3(2) {
        for y in 0..g3(1) {
            for x in 0..g3(0) {
                let linear = (z * g3(1) + y) * g3(0) + x;
                let r = &got[linear * 24..linear * 24 + 24];
                let rel = [x, y, z];
                for d in 0..3 {
                    let l = chosen[d];
                    let group = rel[d] / l;
                    let groups = g3(d).div_ceil(l);
                    let size = l.min(g3(d) - group * l);
                    let want = [
                        rel[d] + o3(d),
                        rel[d] % l,
                        group,
                        groups,
                        g3(d),
                        size,
                        o3(d),
                    ];
                    for (j, w) in want.iter().enumerate() {
                        assert_eq!(
                            r[j * 3 + d] as usize,
                            *w,
                            "item {rel:?}, dimension {d}, value #{j} (gid,lid,group,groups,gsize,lsize,offset)"
                        );
                    }
                }
                assert_eq!(r[21] as usize, dims, "get_work_dim at {rel:?}");
                // Out-of-range dimension: id 0, local size 1, groups 1.
                assert_eq!(r[22], 110, "dimension 3 values at {rel:?}");
                assert_eq!(r[23], 0xC0FFEE, "end marker at {rel:?}");
            }
        }
    }
}

#[test]
fn index_1d_null_local_with_offset() {
    check_index_nd(&[1000], None, Some(&[7]));
}

#[test]
fn index_2d_explicit_local_with_offset() {
    check_index_nd(&[40, 24], Some(&[8, 4]), Some(&[3, 5]));
}

#[test]
fn index_2d_null_local_with_offset() {
    check_index_nd(&[37, 19], None, Some(&[2, 1]));
}

#[test]
fn index_3d_explicit_local_with_offset() {
    check_index_nd(&[12, 6, 5], Some(&[4, 3, 5]), Some(&[1, 2, 3]));
}

#[test]
fn index_3d_null_local() {
    check_index_nd(&[7, 5, 3], None, None);
}

// ---------------------------------------------------------------------------
// Matrices and local memory
// ---------------------------------------------------------------------------

fn host_matmul(a: &[f32], b: &[f32], m: usize, n: usize, k: usize) -> Vec<f32> {
    let mut c = vec![0f32; m * n];
    for row in 0..m {
        for col in 0..n {
            let mut acc = 0f64;
            for i in 0..k {
                acc += a[row * k + i] as f64 * b[i * n + col] as f64;
            }
            c[row * n + col] = acc as f32;
        }
    }
    c
}

#[test]
fn matmul_naive() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void matmul(__global const float *A, __global const float *B,
                             __global float *C, int M, int N, int K) {
            int col = get_global_id(0);
            int row = get_global_id(1);
            float acc = 0.0f;
            for (int i = 0; i < K; ++i)
                acc += A[row * K + i] * B[i * N + col];
            C[row * N + col] = acc;
        }"#;
    let (m, n, k) = (67usize, 45usize, 53usize);
    let mut rng = XorShift::new(3);
    let a = rng.floats(m * k, -1.0, 1.0);
    let b = rng.floats(k * n, -1.0, 1.0);
    let kern = gpu.kernel(src, "matmul");
    let (da, db, dc) = (gpu.buffer(&a), gpu.buffer(&b), gpu.zeroed::<f32>(m * n));
    kern.arg_buffer(0, &da)
        .arg_buffer(1, &db)
        .arg_buffer(2, &dc);
    kern.arg(3, m as i32).arg(4, n as i32).arg(5, k as i32);
    gpu.run(&kern, &[n, m], None, None);
    assert_close(
        &gpu.read::<f32>(&dc),
        &host_matmul(&a, &b, m, n, k),
        1e-4,
        1e-5,
        "A*B",
    );
}

#[test]
fn matmul_tiled_local_memory() {
    let gpu = Gpu::new();
    let src = r#"
        #define TS 16
        __kernel void matmul_tiled(__global const float *A, __global const float *B,
                                   __global float *C, int M, int N, int K) {
            __local float As[TS][TS];
            __local float Bs[TS][TS];
            int col = get_global_id(0), row = get_global_id(1);
            int lc = get_local_id(0), lr = get_local_id(1);
            float acc = 0.0f;
            for (int t = 0; t < (K + TS - 1) / TS; ++t) {
                int ac = t * TS + lc, br = t * TS + lr;
                As[lr][lc] = (row < M && ac < K) ? A[row * K + ac] : 0.0f;
                Bs[lr][lc] = (br < K && col < N) ? B[br * N + col] : 0.0f;
                barrier(CLK_LOCAL_MEM_FENCE);
                for (int i = 0; i < TS; ++i)
                    acc += As[lr][i] * Bs[i][lc];
                barrier(CLK_LOCAL_MEM_FENCE);
            }
            if (row < M && col < N)
                C[row * N + col] = acc;
        }"#;
    let (m, n, k) = (70usize, 90usize, 50usize);
    let mut rng = XorShift::new(4);
    let a = rng.floats(m * k, -1.0, 1.0);
    let b = rng.floats(k * n, -1.0, 1.0);
    let kern = gpu.kernel(src, "matmul_tiled");
    let (da, db, dc) = (gpu.buffer(&a), gpu.buffer(&b), gpu.zeroed::<f32>(m * n));
    kern.arg_buffer(0, &da)
        .arg_buffer(1, &db)
        .arg_buffer(2, &dc);
    kern.arg(3, m as i32).arg(4, n as i32).arg(5, k as i32);
    gpu.run(
        &kern,
        &[round_up(n, 16), round_up(m, 16)],
        Some(&[16, 16]),
        None,
    );
    assert_close(
        &gpu.read::<f32>(&dc),
        &host_matmul(&a, &b, m, n, k),
        1e-4,
        1e-5,
        "tiled A*B",
    );
}

#[test]
fn transpose_through_local_tile() {
    let gpu = Gpu::new();
    let src = r#"
        #define T 16
        __kernel void transpose(__global const float *in, __global float *out, int w, int h) {
            __local float tile[T][T + 1];
            int lx = get_local_id(0), ly = get_local_id(1);
            int gx = get_group_id(0) * T + lx, gy = get_group_id(1) * T + ly;
            if (gx < w && gy < h)
                tile[ly][lx] = in[gy * w + gx];
            barrier(CLK_LOCAL_MEM_FENCE);
            int ox = get_group_id(1) * T + lx, oy = get_group_id(0) * T + ly;
            if (ox < h && oy < w)
                out[oy * h + ox] = tile[lx][ly];
        }"#;
    let (w, h) = (100usize, 75usize);
    let input: Vec<f32> = (0..w * h).map(|i| i as f32 * 0.5).collect();
    let k = gpu.kernel(src, "transpose");
    let (din, dout) = (gpu.buffer(&input), gpu.zeroed::<f32>(w * h));
    k.arg_buffer(0, &din)
        .arg_buffer(1, &dout)
        .arg(2, w as i32)
        .arg(3, h as i32);
    gpu.run(
        &k,
        &[round_up(w, 16), round_up(h, 16)],
        Some(&[16, 16]),
        None,
    );
    let mut want = vec![0f32; w * h];
    for y in 0..h {
        for x in 0..w {
            want[x * h + y] = input[y * w + x];
        }
    }
    assert_same(&gpu.read::<f32>(&dout), &want, "transpose");
}

#[test]
fn reduction_with_local_pointer_argument() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void reduce_sum(__global const float *in, __global float *partial,
                                 __local float *scratch, uint n) {
            uint gid = get_global_id(0), lid = get_local_id(0);
            scratch[lid] = gid < n ? in[gid] : 0.0f;
            barrier(CLK_LOCAL_MEM_FENCE);
            for (uint s = get_local_size(0) / 2; s > 0; s >>= 1) {
                if (lid < s)
                    scratch[lid] += scratch[lid + s];
                barrier(CLK_LOCAL_MEM_FENCE);
            }
            if (lid == 0)
                partial[get_group_id(0)] = scratch[0];
        }"#;
    let n = 100_000usize;
    let wg = 128usize;
    let groups = n.div_ceil(wg);
    let mut rng = XorShift::new(5);
    let input = rng.floats(n, 0.0, 1.0);
    let k = gpu.kernel(src, "reduce_sum");
    let (din, dpart) = (gpu.buffer(&input), gpu.zeroed::<f32>(groups));
    k.arg_buffer(0, &din)
        .arg_buffer(1, &dpart)
        .arg_local(2, wg * 4)
        .arg(3, n as u32);
    gpu.run(&k, &[groups * wg], Some(&[wg]), None);
    let want: Vec<f32> = input
        .chunks(wg)
        .map(|c| c.iter().map(|&v| v as f64).sum::<f64>() as f32)
        .collect();
    assert_close(
        &gpu.read::<f32>(&dpart),
        &want,
        1e-4,
        1e-5,
        "per-group sums",
    );
}

#[test]
fn prefix_sum_hillis_steele() {
    let gpu = Gpu::new();
    let src = r#"
        #define WG 256
        __kernel void scan_block(__global const int *in, __global int *out, int n) {
            __local int buf[2][WG];
            int lid = get_local_id(0), gid = get_global_id(0);
            int pout = 0, pin = 1;
            buf[pout][lid] = gid < n ? in[gid] : 0;
            barrier(CLK_LOCAL_MEM_FENCE);
            for (int off = 1; off < WG; off <<= 1) {
                pout = 1 - pout;
                pin = 1 - pout;
                int v = buf[pin][lid];
                if (lid >= off)
                    v += buf[pin][lid - off];
                buf[pout][lid] = v;
                barrier(CLK_LOCAL_MEM_FENCE);
            }
            if (gid < n)
                out[gid] = buf[pout][lid];
        }
        __kernel void add_block_offsets(__global int *data, __global const int *offsets, int n) {
            int gid = get_global_id(0);
            if (gid < n)
                data[gid] += offsets[get_group_id(0)];
        }"#;
    let n = 5000usize;
    let wg = 256usize;
    let mut rng = XorShift::new(6);
    let input: Vec<i32> = (0..n)
        .map(|_| (rng.next_u32() % 201) as i32 - 100)
        .collect();
    let program = gpu.program(src, "");
    let scan = program.kernel("scan_block");
    let add = program.kernel("add_block_offsets");
    let (din, dout) = (gpu.buffer(&input), gpu.zeroed::<i32>(n));
    scan.arg_buffer(0, &din)
        .arg_buffer(1, &dout)
        .arg(2, n as i32);
    gpu.run(&scan, &[round_up(n, wg)], Some(&[wg]), None);
    let blocks = gpu.read::<i32>(&dout);
    // Each block's scan, then the exclusive sums of block totals added back.
    let mut offsets = vec![0i32; n.div_ceil(wg)];
    for b in 1..offsets.len() {
        offsets[b] = offsets[b - 1] + blocks[b * wg - 1];
    }
    let doff = gpu.buffer(&offsets);
    add.arg_buffer(0, &dout)
        .arg_buffer(1, &doff)
        .arg(2, n as i32);
    gpu.run(&add, &[round_up(n, wg)], Some(&[wg]), None);
    let mut want = input.clone();
    for i in 1..n {
        want[i] += want[i - 1];
    }
    let block_scan: Vec<i32> = input
        .chunks(wg)
        .flat_map(|c| {
            c.iter()
                .scan(0i32, |acc, &v| {
                    *acc += v;
                    Some(*acc)
                })
                .collect::<Vec<_>>()
        })
        .collect();
    assert_same(&blocks, &block_scan, "per-block inclusive scan");
    assert_same(&gpu.read::<i32>(&dout), &want, "whole inclusive scan");
}

#[test]
fn histogram_global_atomics() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void histogram(__global const uint *data, __global uint *bins,
                                __global uint *total, uint nbins) {
            uint v = data[get_global_id(0)];
            atomic_inc(&bins[v % nbins]);
            atomic_add(total, v & 0xffu);
        }"#;
    // Not a multiple of any work-group size a device would prefer.
    let n = 60_001usize;
    let nbins = 37u32;
    let mut rng = XorShift::new(7);
    let data = rng.u32s(n);
    let k = gpu.kernel(src, "histogram");
    let (dd, dbins, dtotal) = (
        gpu.buffer(&data),
        gpu.zeroed::<u32>(nbins as usize),
        gpu.zeroed::<u32>(1),
    );
    k.arg_buffer(0, &dd)
        .arg_buffer(1, &dbins)
        .arg_buffer(2, &dtotal)
        .arg(3, nbins);
    gpu.run(&k, &[n], None, None);
    let mut bins = vec![0u32; nbins as usize];
    for &v in &data {
        bins[(v % nbins) as usize] += 1;
    }
    let total: u32 = data.iter().map(|v| v & 0xff).sum();
    assert_same(&gpu.read::<u32>(&dbins), &bins, "bins");
    assert_eq!(gpu.read::<u32>(&dtotal)[0], total, "total");
}

#[test]
fn histogram_local_atomics_merged_into_global() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void histogram256(__global const uchar *data, uint n, __global uint *bins) {
            __local uint local_bins[256];
            for (uint b = get_local_id(0); b < 256; b += get_local_size(0))
                local_bins[b] = 0;
            barrier(CLK_LOCAL_MEM_FENCE);
            for (uint i = get_global_id(0); i < n; i += get_global_size(0))
                atomic_inc(&local_bins[data[i]]);
            barrier(CLK_LOCAL_MEM_FENCE);
            for (uint b = get_local_id(0); b < 256; b += get_local_size(0))
                if (local_bins[b] != 0)
                    atomic_add(&bins[b], local_bins[b]);
        }"#;
    let n = 100_000usize;
    let mut rng = XorShift::new(8);
    // Skewed so that some bins are hot.
    let data: Vec<u8> = (0..n)
        .map(|_| {
            let r = rng.next_u32();
            if r.is_multiple_of(4) {
                7
            } else {
                (r >> 8) as u8
            }
        })
        .collect();
    let k = gpu.kernel(src, "histogram256");
    let (dd, dbins) = (gpu.buffer(&data), gpu.zeroed::<u32>(256));
    k.arg_buffer(0, &dd).arg(1, n as u32).arg_buffer(2, &dbins);
    gpu.run(&k, &[64 * 16], Some(&[64]), None);
    let mut bins = vec![0u32; 256];
    for &v in &data {
        bins[v as usize] += 1;
    }
    assert_same(&gpu.read::<u32>(&dbins), &bins, "bins");
}

#[test]
fn jacobi_stencil_5_point() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void jacobi(__global const float *u, __global float *v, int w, int h) {
            int x = get_global_id(0), y = get_global_id(1);
            if (x >= w || y >= h)
                return;
            int i = y * w + x;
            if (x == 0 || y == 0 || x == w - 1 || y == h - 1) {
                v[i] = u[i];
                return;
            }
            v[i] = 0.25f * (u[i - 1] + u[i + 1] + u[i - w] + u[i + w]);
        }"#;
    let (w, h) = (130usize, 97usize);
    let mut rng = XorShift::new(9);
    let u = rng.floats(w * h, 0.0, 10.0);
    let k = gpu.kernel(src, "jacobi");
    let (du, dv) = (gpu.buffer(&u), gpu.zeroed::<f32>(w * h));
    k.arg_buffer(0, &du)
        .arg_buffer(1, &dv)
        .arg(2, w as i32)
        .arg(3, h as i32);
    gpu.run(&k, &[w, h], None, None);
    let mut want = u.clone();
    for y in 1..h - 1 {
        for x in 1..w - 1 {
            let i = y * w + x;
            want[i] = 0.25 * (u[i - 1] + u[i + 1] + u[i - w] + u[i + w]);
        }
    }
    assert_close(&gpu.read::<f32>(&dv), &want, 1e-5, 1e-6, "one Jacobi step");
}

#[test]
fn convolution_1d_constant_filter() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void conv1d(__global const float *in, __constant float *filter,
                             __global float *out, int n, int radius) {
            int i = get_global_id(0);
            float acc = 0.0f;
            for (int k = -radius; k <= radius; ++k) {
                int j = clamp(i + k, 0, n - 1);
                acc += in[j] * filter[k + radius];
            }
            out[i] = acc;
        }"#;
    let n = 10_000usize;
    let radius = 4i32;
    let filter: Vec<f32> = (0..9)
        .map(|i| 1.0 / (1.0 + (i as f32 - 4.0).abs()))
        .collect();
    let mut rng = XorShift::new(10);
    let input = rng.floats(n, -5.0, 5.0);
    let k = gpu.kernel(src, "conv1d");
    let (din, df, dout) = (
        gpu.buffer(&input),
        gpu.buffer(&filter),
        gpu.zeroed::<f32>(n),
    );
    k.arg_buffer(0, &din)
        .arg_buffer(1, &df)
        .arg_buffer(2, &dout)
        .arg(3, n as i32)
        .arg(4, radius);
    gpu.run(&k, &[n], None, None);
    let want: Vec<f32> = (0..n as i32)
        .map(|i| {
            (-radius..=radius)
                .map(|k| {
                    input[(i + k).clamp(0, n as i32 - 1) as usize] as f64
                        * filter[(k + radius) as usize] as f64
                })
                .sum::<f64>() as f32
        })
        .collect();
    assert_close(&gpu.read::<f32>(&dout), &want, 1e-5, 1e-5, "convolution");
}

// ---------------------------------------------------------------------------
// Structs
// ---------------------------------------------------------------------------

#[test]
fn particle_structs_integrated_one_step() {
    let gpu = Gpu::new();
    let src = r#"
        struct particle { float4 pos; float4 vel; };
        typedef struct particle particle;
        __kernel void integrate(__global particle *p, float dt, float4 gravity) {
            size_t i = get_global_id(0);
            particle q = p[i];
            q.vel += gravity * dt;
            q.pos += q.vel * dt;
            q.pos.w = 1.0f;
            p[i] = q;
        }"#;
    let n = 3000usize;
    let mut rng = XorShift::new(11);
    let particles: Vec<[f32; 8]> = (0..n)
        .map(|_| {
            let mut p = [0f32; 8];
            for v in p.iter_mut() {
                *v = rng.f32_in(-10.0, 10.0);
            }
            p
        })
        .collect();
    let (dt, g) = (0.01f32, [0.0f32, -9.81, 0.5, 0.0]);
    let k = gpu.kernel(src, "integrate");
    let dp = gpu.buffer(&particles);
    k.arg_buffer(0, &dp).arg(1, dt).arg(2, g);
    gpu.run(&k, &[n], None, None);
    let got: Vec<f32> = gpu.read::<[f32; 8]>(&dp).into_iter().flatten().collect();
    let want: Vec<f32> = particles
        .iter()
        .flat_map(|p| {
            let mut q = *p;
            for c in 0..4 {
                q[4 + c] += g[c] * dt;
                q[c] += q[4 + c] * dt;
            }
            q[3] = 1.0;
            q
        })
        .collect();
    assert_close(&got, &want, 1e-5, 1e-6, "particles");
}

/// `struct mixed { char c; int i; float f; short s; }` in C layout: 16 bytes,
/// with 3 bytes of padding after `c` and 2 at the end.
fn encode_mixed(c: i8, i: i32, f: f32, s: i16) -> [u8; 16] {
    let mut b = [0u8; 16];
    b[0] = c as u8;
    b[4..8].copy_from_slice(&i.to_le_bytes());
    b[8..12].copy_from_slice(&f.to_le_bytes());
    b[12..14].copy_from_slice(&s.to_le_bytes());
    b
}

fn decode_mixed(b: &[u8; 16]) -> (i8, i32, f32, i16) {
    (
        b[0] as i8,
        i32::from_le_bytes(b[4..8].try_into().unwrap()),
        f32::from_le_bytes(b[8..12].try_into().unwrap()),
        i16::from_le_bytes(b[12..14].try_into().unwrap()),
    )
}

#[test]
fn mixed_struct_by_pointer_and_by_value() {
    let gpu = Gpu::new();
    let src = r#"
        typedef struct { char c; int i; float f; short s; } mixed;
        __kernel void update(__global const mixed *in, __global mixed *out, mixed delta,
                             __global int *layout) {
            size_t g = get_global_id(0);
            mixed m = in[g];
            m.c = (char)(m.c + delta.c);
            m.i = m.i * delta.i;
            m.f = m.f + delta.f;
            m.s = (short)(m.s - delta.s);
            out[g] = m;
            if (g == 0) {
                layout[0] = sizeof(mixed);
                layout[1] = (int)((__global char *)&out[0].i - (__global char *)&out[0]);
                layout[2] = (int)((__global char *)&out[0].f - (__global char *)&out[0]);
                layout[3] = (int)((__global char *)&out[0].s - (__global char *)&out[0]);
                layout[4] = (int)((__global char *)&out[1] - (__global char *)&out[0]);
            }
        }"#;
    let n = 1000usize;
    let mut rng = XorShift::new(12);
    let items: Vec<(i8, i32, f32, i16)> = (0..n)
        .map(|_| {
            let r = rng.next_u32();
            (
                r as i8,
                (r >> 8) as i32 % 10_000,
                rng.f32_in(-1.0, 1.0),
                (r >> 16) as i16,
            )
        })
        .collect();
    let encoded: Vec<[u8; 16]> = items
        .iter()
        .map(|&(c, i, f, s)| encode_mixed(c, i, f, s))
        .collect();
    let delta = (5i8, -3i32, 0.25f32, 1000i16);
    let k = gpu.kernel(src, "update");
    let (din, dout, dlayout) = (
        gpu.buffer(&encoded),
        gpu.zeroed::<[u8; 16]>(n),
        gpu.zeroed::<i32>(5),
    );
    k.arg_buffer(0, &din).arg_buffer(1, &dout);
    k.arg_bytes(2, &encode_mixed(delta.0, delta.1, delta.2, delta.3));
    k.arg_buffer(3, &dlayout);
    gpu.run(&k, &[n], None, None);
    assert_same(
        &gpu.read::<i32>(&dlayout),
        &[16, 4, 8, 12, 16],
        "sizeof and member offsets",
    );
    let got = gpu.read::<[u8; 16]>(&dout);
    for (j, (b, &(c, i, f, s))) in got.iter().zip(&items).enumerate() {
        let want = (
            c.wrapping_add(delta.0),
            i * delta.1,
            f + delta.2,
            s.wrapping_sub(delta.3),
        );
        assert_eq!(decode_mixed(b), want, "element {j}");
    }
}

// ---------------------------------------------------------------------------
// Vector types
// ---------------------------------------------------------------------------

#[test]
fn float4_arithmetic_and_swizzles() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void vec_float4(__global const float4 *a, __global const float4 *b,
                                 __global float4 *out) {
            size_t i = get_global_id(0);
            float4 x = a[i], y = b[i];
            float4 r = x * y + (float4)(1.0f, 2.0f, 3.0f, 4.0f);
            r.xy = r.yx;
            r.w += x.x * 2.0f;
            float4 s = x.wzyx - y.s0123 * 0.5f;
            float2 lo = x.lo;
            float2 hi = y.hi;
            out[3 * i] = r;
            out[3 * i + 1] = s;
            out[3 * i + 2] = (float4)(lo, hi.yx);
        }"#;
    let n = 1000usize;
    let mut rng = XorShift::new(13);
    let gen = |rng: &mut XorShift| -> Vec<[f32; 4]> {
        (0..n)
            .map(|_| [0; 4].map(|_: i32| rng.f32_in(-4.0, 4.0)))
            .collect()
    };
    let (a, b) = (gen(&mut rng), gen(&mut rng));
    let k = gpu.kernel(src, "vec_float4");
    let (da, db, dout) = (
        gpu.buffer(&a),
        gpu.buffer(&b),
        gpu.zeroed::<[f32; 4]>(3 * n),
    );
    k.arg_buffer(0, &da).arg_buffer(1, &db).arg_buffer(2, &dout);
    gpu.run(&k, &[n], None, None);
    let got: Vec<f32> = gpu.read::<[f32; 4]>(&dout).into_iter().flatten().collect();
    let want: Vec<f32> = a
        .iter()
        .zip(&b)
        .flat_map(|(x, y)| {
            let r = [
                x[1] * y[1] + 2.0,
                x[0] * y[0] + 1.0,
                x[2] * y[2] + 3.0,
                x[3] * y[3] + 4.0 + x[0] * 2.0,
            ];
            let s = [
                x[3] - y[0] * 0.5,
                x[2] - y[1] * 0.5,
                x[1] - y[2] * 0.5,
                x[0] - y[3] * 0.5,
            ];
            let t = [x[0], x[1], y[3], y[2]];
            [r, s, t].into_iter().flatten()
        })
        .collect();
    assert_close(&got, &want, 1e-5, 1e-6, "float4 results");
}

#[test]
fn int8_compare_select_even_odd() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void vec_int8(__global const int8 *a, __global const int8 *b, __global int8 *out) {
            size_t i = get_global_id(0);
            int8 x = a[i], y = b[i];
            int8 lt = x < y;
            out[4 * i] = lt;
            out[4 * i + 1] = select(x, y, lt);
            out[4 * i + 2] = (int8)(x.even, y.odd);
            int8 t = x * 3 - (int8)(1, 2, 3, 4, 5, 6, 7, 8);
            t.s07 = t.s70;
            out[4 * i + 3] = t + (int8)(y.s0);
        }"#;
    let n = 777usize;
    let mut rng = XorShift::new(14);
    let gen = |rng: &mut XorShift| -> Vec<[i32; 8]> {
        (0..n)
            .map(|_| [0; 8].map(|_: i32| (rng.next_u32() % 2001) as i32 - 1000))
            .collect()
    };
    let (a, b) = (gen(&mut rng), gen(&mut rng));
    let k = gpu.kernel(src, "vec_int8");
    let (da, db, dout) = (
        gpu.buffer(&a),
        gpu.buffer(&b),
        gpu.zeroed::<[i32; 8]>(4 * n),
    );
    k.arg_buffer(0, &da).arg_buffer(1, &db).arg_buffer(2, &dout);
    gpu.run(&k, &[n], None, None);
    let got = gpu.read::<[i32; 8]>(&dout);
    for i in 0..n {
        let (x, y) = (a[i], b[i]);
        let lt: [i32; 8] = std::array::from_fn(|j| if x[j] < y[j] { -1 } else { 0 });
        let sel: [i32; 8] = std::array::from_fn(|j| if x[j] < y[j] { y[j] } else { x[j] });
        let eo = [x[0], x[2], x[4], x[6], y[1], y[3], y[5], y[7]];
        let mut t: [i32; 8] = std::array::from_fn(|j| x[j] * 3 - (j as i32 + 1));
        t.swap(0, 7);
        let t = t.map(|v| v + y[0]);
        assert_eq!(got[4 * i], lt, "x < y at {i}");
        assert_eq!(got[4 * i + 1], sel, "select at {i}");
        assert_eq!(got[4 * i + 2], eo, "even/odd at {i}");
        assert_eq!(got[4 * i + 3], t, "arithmetic and write swizzle at {i}");
    }
}

#[test]
fn uchar16_wrapping_max_hi_lo_compare() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void vec_uchar16(__global const uchar16 *a, __global const uchar16 *b,
                                  __global uchar16 *out) {
            size_t i = get_global_id(0);
            uchar16 x = a[i], y = b[i];
            out[4 * i] = x + y;
            out[4 * i + 1] = max(x, y);
            uchar16 c = (uchar16)(y.hi, x.lo);
            out[4 * i + 2] = c.sfedcba9876543210;
            out[4 * i + 3] = as_uchar16(x > y);
        }"#;
    let n = 513usize;
    let mut rng = XorShift::new(15);
    let gen = |rng: &mut XorShift| -> Vec<[u8; 16]> {
        (0..n)
            .map(|_| [0; 16].map(|_: u8| rng.next_u32() as u8))
            .collect()
    };
    let (a, b) = (gen(&mut rng), gen(&mut rng));
    let k = gpu.kernel(src, "vec_uchar16");
    let (da, db, dout) = (
        gpu.buffer(&a),
        gpu.buffer(&b),
        gpu.zeroed::<[u8; 16]>(4 * n),
    );
    k.arg_buffer(0, &da).arg_buffer(1, &db).arg_buffer(2, &dout);
    gpu.run(&k, &[n], None, None);
    let got = gpu.read::<[u8; 16]>(&dout);
    for i in 0..n {
        let (x, y) = (a[i], b[i]);
        let c: [u8; 16] = std::array::from_fn(|j| if j < 8 { y[8 + j] } else { x[j - 8] });
        assert_eq!(
            got[4 * i],
            std::array::from_fn(|j| x[j].wrapping_add(y[j])),
            "x + y at {i}"
        );
        assert_eq!(
            got[4 * i + 1],
            std::array::from_fn(|j| x[j].max(y[j])),
            "max at {i}"
        );
        assert_eq!(
            got[4 * i + 2],
            std::array::from_fn(|j| c[15 - j]),
            "hi/lo reversed at {i}"
        );
        assert_eq!(
            got[4 * i + 3],
            std::array::from_fn(|j| if x[j] > y[j] { 0xff } else { 0 }),
            "x > y at {i}"
        );
    }
}

// ---------------------------------------------------------------------------
// Conversions, integer and math built-ins
// ---------------------------------------------------------------------------

#[test]
fn conversions_and_reinterpretation() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void conversions(__global const float *f, __global const int *n,
                                  __global int *oi, __global float *of,
                                  __global uchar *ou, __global uint *bits) {
            size_t i = get_global_id(0);
            float x = f[i];
            int v = n[i];
            oi[3 * i] = convert_int(x);
            oi[3 * i + 1] = convert_int_rte(x);
            oi[3 * i + 2] = convert_short_sat(v);
            of[2 * i] = convert_float(v);
            of[2 * i + 1] = as_float(as_uint(x) ^ 0x80000000u);
            ou[3 * i] = convert_uchar_sat(v);
            ou[3 * i + 1] = convert_uchar_sat(x);
            ou[3 * i + 2] = convert_uchar(v);
            bits[i] = as_uint(x);
        }"#;
    let n = 2048usize;
    let mut rng = XorShift::new(16);
    let mut f = rng.floats(n, -1000.0, 1000.0);
    // Exact halves, where rounding modes differ.
    for (j, v) in f.iter_mut().take(64).enumerate() {
        *v = j as f32 - 31.5;
    }
    let mut ints = rng.i32s(n);
    for (j, v) in ints.iter_mut().take(600).enumerate() {
        *v = j as i32 - 300;
    }
    ints[600] = i32::MAX;
    ints[601] = i32::MIN;
    ints[602] = 32768;
    ints[603] = -32769;
    let k = gpu.kernel(src, "conversions");
    let (df, dn) = (gpu.buffer(&f), gpu.buffer(&ints));
    let (doi, dof, dou, dbits) = (
        gpu.zeroed::<i32>(3 * n),
        gpu.zeroed::<f32>(2 * n),
        gpu.zeroed::<u8>(3 * n),
        gpu.zeroed::<u32>(n),
    );
    k.arg_buffer(0, &df)
        .arg_buffer(1, &dn)
        .arg_buffer(2, &doi)
        .arg_buffer(3, &dof);
    k.arg_buffer(4, &dou).arg_buffer(5, &dbits);
    gpu.run(&k, &[n], None, None);
    let want_i: Vec<i32> = (0..n)
        .flat_map(|i| {
            [
                f[i] as i32,
                f[i].round_ties_even() as i32,
                ints[i].clamp(-32768, 32767),
            ]
        })
        .collect();
    let want_f: Vec<f32> = (0..n).flat_map(|i| [ints[i] as f32, -f[i]]).collect();
    let want_u: Vec<u8> = (0..n)
        .flat_map(|i| [ints[i].clamp(0, 255) as u8, f[i] as u8, ints[i] as u8])
        .collect();
    let want_bits: Vec<u32> = f.iter().map(|v| v.to_bits()).collect();
    assert_same(
        &gpu.read::<i32>(&doi),
        &want_i,
        "float/int conversions (trunc, rte, short_sat)",
    );
    assert_same(
        &gpu.read::<f32>(&dof),
        &want_f,
        "convert_float and as_float",
    );
    assert_same(&gpu.read::<u8>(&dou), &want_u, "uchar conversions");
    assert_same(&gpu.read::<u32>(&dbits), &want_bits, "as_uint");
}

#[test]
fn integer_builtins_and_c_semantics() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void integer_ops(__global const int *a, __global const int *b, __global int *out) {
            size_t i = get_global_id(0);
            int x = a[i], y = b[i];
            uint ux = (uint)x, uy = (uint)y;
            int d = (y >> 20) | 1;
            if (d == -1)
                d = 3;
            __global int *r = out + 14 * i;
            r[0] = mul_hi(x, y);
            r[1] = (int)mul_hi(ux, uy);
            r[2] = mad24(x >> 16, y >> 16, x);
            r[3] = (int)rotate(ux, uy);
            r[4] = popcount(x);
            r[5] = clz(x);
            r[6] = add_sat(x, y);
            r[7] = sub_sat(x, y);
            r[8] = x << y;
            r[9] = x >> y;
            r[10] = (int)(ux >> uy);
            r[11] = x / d;
            r[12] = x % d;
            r[13] = hadd(x, y);
        }"#;
    let n = 4096usize;
    let mut rng = XorShift::new(17);
    let mut a = rng.i32s(n);
    let mut b = rng.i32s(n);
    let specials = [0, -1, 1, i32::MIN, i32::MAX, 31, 32, 33, -33, 100];
    for (j, &s) in specials.iter().enumerate() {
        for (k, &t) in specials.iter().enumerate() {
            a[j * specials.len() + k] = s;
            b[j * specials.len() + k] = t;
        }
    }
    let k = gpu.kernel(src, "integer_ops");
    let (da, db, dout) = (gpu.buffer(&a), gpu.buffer(&b), gpu.zeroed::<i32>(14 * n));
    k.arg_buffer(0, &da).arg_buffer(1, &db).arg_buffer(2, &dout);
    gpu.run(&k, &[n], None, None);
    let got = gpu.read::<i32>(&dout);
    let names = [
        "mul_hi(int)",
        "mul_hi(uint)",
        "mad24",
        "rotate",
        "popcount",
        "clz",
        "add_sat",
        "sub_sat",
        "<<",
        ">> (int)",
        ">> (uint)",
        "/",
        "%",
        "hadd",
    ];
    for i in 0..n {
        let (x, y) = (a[i], b[i]);
        let (ux, uy) = (x as u32, y as u32);
        let mut d = (y >> 20) | 1;
        if d == -1 {
            d = 3;
        }
        let want = [
            ((x as i64 * y as i64) >> 32) as i32,
            ((ux as u64 * uy as u64) >> 32) as i32,
            ((x >> 16) * (y >> 16)).wrapping_add(x),
            ux.rotate_left(uy % 32) as i32,
            x.count_ones() as i32,
            x.leading_zeros() as i32,
            x.saturating_add(y),
            x.saturating_sub(y),
            x.wrapping_shl(uy),
            x.wrapping_shr(uy),
            ux.wrapping_shr(uy) as i32,
            x.wrapping_div(d),
            x.wrapping_rem(d),
            ((x as i64 + y as i64) >> 1) as i32,
        ];
        for (j, w) in want.iter().enumerate() {
            assert_eq!(got[14 * i + j], *w, "{} with x={x} y={y}", names[j]);
        }
    }
}

/// |got - want| in units in the last place of the f32 nearest `want`
/// (`want` is the f64 reference, so it stands for the exact result).
fn ulp_error(got: f32, want: f64) -> f64 {
    if got as f64 == want || (got.is_nan() && want.is_nan()) {
        return 0.0;
    }
    let w = (want as f32).abs();
    let exponent = ((w.to_bits() >> 23) & 0xff).max(1) as i32;
    let ulp = 2f64.powi(exponent - 127 - 23);
    (got as f64 - want).abs() / ulp
}

#[test]
fn math_builtins_within_opencl_precision() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void math(__global const float *in, __global float *out) {
            size_t i = get_global_id(0);
            __global const float *v = in + 8 * i;
            float a = v[0], p = v[1], b = v[2], e = v[3], c = v[4], d = v[5], t = v[6];
            __global float *r = out + 16 * i;
            r[0] = sqrt(p);
            r[1] = exp(a);
            r[2] = log(p);
            r[3] = sin(a);
            r[4] = cos(a);
            r[5] = pow(b, e);
            r[6] = fabs(c);
            r[7] = floor(c);
            r[8] = fmin(c, d);
            r[9] = fmax(c, d);
            r[10] = mad(c, d, a);
            r[11] = clamp(c, -50.0f, 50.0f);
            r[12] = mix(c, d, t);
            r[13] = log2(p);
            r[14] = rsqrt(p);
            r[15] = hypot(c, d);
        }"#;
    let n = 4000usize;
    let mut rng = XorShift::new(18);
    let mut input = Vec::with_capacity(8 * n);
    for _ in 0..n {
        input.extend([
            rng.f32_in(-10.0, 10.0),
            rng.f32_in(0.001, 1000.0),
            rng.f32_in(0.1, 10.0),
            rng.f32_in(-3.0, 3.0),
            rng.f32_in(-100.0, 100.0),
            rng.f32_in(-100.0, 100.0),
            rng.f32_in(0.0, 1.0),
            0.0,
        ]);
    }
    let k = gpu.kernel(src, "math");
    let (din, dout) = (gpu.buffer(&input), gpu.zeroed::<f32>(16 * n));
    k.arg_buffer(0, &din).arg_buffer(1, &dout);
    gpu.run(&k, &[n], None, None);
    let got = gpu.read::<f32>(&dout);
    // (name, allowed ulp) from the OpenCL C full-profile single-precision
    // table; exact ones are 0.
    let bounds: [(&str, f64); 16] = [
        ("sqrt", 3.0),
        ("exp", 3.0),
        ("log", 3.0),
        ("sin", 4.0),
        ("cos", 4.0),
        ("pow", 16.0),
        ("fabs", 0.0),
        ("floor", 0.0),
        ("fmin", 0.0),
        ("fmax", 0.0),
        ("mad", -1.0),
        ("clamp", 0.0),
        ("mix", -1.0),
        ("log2", 3.0),
        ("rsqrt", 2.0),
        ("hypot", 4.0),
    ];
    // Per function: how many results are out of bounds, the worst error in
    // ulp, and the first bad input.
    let mut bad: Vec<(usize, f64, String)> = vec![(0, 0.0, String::new()); bounds.len()];
    for i in 0..n {
        let v = &input[8 * i..8 * i + 8];
        let (a, p, b, e, c, d, t) = (
            v[0] as f64,
            v[1] as f64,
            v[2] as f64,
            v[3] as f64,
            v[4] as f64,
            v[5] as f64,
            v[6] as f64,
        );
        let want = [
            p.sqrt(),
            a.exp(),
            p.ln(),
            a.sin(),
            a.cos(),
            b.powf(e),
            c.abs(),
            c.floor(),
            c.min(d),
            c.max(d),
            0.0,
            c.clamp(-50.0, 50.0),
            0.0,
            p.log2(),
            1.0 / p.sqrt(),
            c.hypot(d),
        ];
        for (j, &(name, ulps)) in bounds.iter().enumerate() {
            let g = got[16 * i + j];
            let ok = match name {
                // Either a correctly rounded fma or a correctly rounded
                // multiply followed by a correctly rounded add.
                "mad" => g == v[4].mul_add(v[5], v[0]) || g == v[4] * v[5] + v[0],
                // Precision is implementation-defined; any sensible
                // a + (b - a) * t is within this.
                "mix" => (g as f64 - (c + (d - c) * t)).abs() <= 1e-4 + 1e-5 * (c.abs() + d.abs()),
                _ => ulp_error(g, want[j]) <= ulps,
            };
            if !ok {
                let entry = &mut bad[j];
                entry.0 += 1;
                if ulps > 0.0 {
                    entry.1 = entry.1.max(ulp_error(g, want[j]));
                }
                if entry.2.is_empty() {
                    entry.2 = format!("item {i} (inputs {v:?}): got {g:e} want {:e}", want[j]);
                }
            }
        }
    }
    let report: Vec<String> = bounds
        .iter()
        .zip(&bad)
        .filter(|(_, b)| b.0 > 0)
        .map(|(&(name, ulps), (count, worst, first))| {
            format!("{name}: {count} of {n} out of bounds (allowed {ulps} ulp, worst {worst:.1} ulp); first {first}")
        })
        .collect();
    assert!(
        report.is_empty(),
        "math results out of bounds:\n{}",
        report.join("\n")
    );
}

// ---------------------------------------------------------------------------
// Control flow, functions, pointers
// ---------------------------------------------------------------------------

#[test]
fn private_array_dynamic_indexing() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void private_array(__global const int *idx, __global int *out) {
            int table[16];
            int g = get_global_id(0);
            for (int k = 0; k < 16; ++k)
                table[k] = k * k + g;
            int j = idx[g] & 15;
            table[j] += 100;
            int s = 0;
            for (int k = 0; k <= j; ++k)
                s += table[(k * 7 + j) & 15];
            out[g] = s + table[15 - j];
        }"#;
    let n = 1500usize;
    let mut rng = XorShift::new(19);
    let idx = rng.i32s(n);
    let k = gpu.kernel(src, "private_array");
    let (di, dout) = (gpu.buffer(&idx), gpu.zeroed::<i32>(n));
    k.arg_buffer(0, &di).arg_buffer(1, &dout);
    gpu.run(&k, &[n], None, None);
    let want: Vec<i32> = (0..n as i32)
        .map(|g| {
            let mut table: [i32; 16] = std::array::from_fn(|k| (k * k) as i32 + g);
            let j = (idx[g as usize] & 15) as usize;
            table[j] += 100;
            let s: i32 = (0..=j).map(|k| table[(k * 7 + j) & 15]).sum();
            s + table[15 - j]
        })
        .collect();
    assert_same(&gpu.read::<i32>(&dout), &want, "private array");
}

fn host_loops(x: i32) -> [i32; 4] {
    let mut a = 0;
    for i in 0..20 {
        if i == x % 7 {
            continue;
        }
        if i > 15 && (x & 1) != 0 {
            break;
        }
        a += i;
    }
    let (mut b, mut n) = (0, x % 13 + 1);
    while n > 0 {
        n -= 1;
        if n == 3 {
            continue;
        }
        b += n * 2;
        if b > 60 {
            break;
        }
    }
    let (mut c, mut m) = (0, 0);
    loop {
        c += m * m;
        m += 1;
        if c > x {
            break;
        }
        if m >= 10 {
            break;
        }
    }
    let mut d = 0;
    'outer: for i in 0..5 {
        for j in 0..5 {
            if j > i {
                continue 'outer;
            }
            if (i + j) % 2 != 0 {
                continue;
            }
            d += i * j + 1;
        }
    }
    [a, b, c, d]
}

#[test]
fn loops_with_break_and_continue() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void loops(__global const int *in, __global int *out) {
            int g = get_global_id(0);
            int x = in[g];
            int a = 0;
            for (int i = 0; i < 20; i++) {
                if (i == x % 7)
                    continue;
                if (i > 15 && (x & 1))
                    break;
                a += i;
            }
            int b = 0, n = x % 13 + 1;
            while (n > 0) {
                n--;
                if (n == 3)
                    continue;
                b += n * 2;
                if (b > 60)
                    break;
            }
            int c = 0, m = 0;
            do {
                c += m * m;
                m++;
                if (c > x)
                    break;
            } while (m < 10);
            int d = 0;
            for (int i = 0; i < 5; i++)
                for (int j = 0; j < 5; j++) {
                    if (j > i)
                        break;
                    if ((i + j) % 2)
                        continue;
                    d += i * j + 1;
                }
            out[4 * g] = a;
            out[4 * g + 1] = b;
            out[4 * g + 2] = c;
            out[4 * g + 3] = d;
        }"#;
    let n = 1000usize;
    let input: Vec<i32> = (0..n as i32).collect();
    let k = gpu.kernel(src, "loops");
    let (din, dout) = (gpu.buffer(&input), gpu.zeroed::<i32>(4 * n));
    k.arg_buffer(0, &din).arg_buffer(1, &dout);
    gpu.run(&k, &[n], None, None);
    let want: Vec<i32> = input.iter().flat_map(|&x| host_loops(x)).collect();
    assert_same(
        &gpu.read::<i32>(&dout),
        &want,
        "for/while/do-while/nested loops",
    );
}

fn host_switch(v: i32) -> [i32; 2] {
    let r = match v & 7 {
        0 => 11,
        1 => 10,
        2 | 3 => 1100,
        4 => 1000,
        6 => -1,
        _ => 7,
    };
    let r2 = match v % 5 {
        0 => 5,
        3 => 2,
        4 => 9,
        _ => -1,
    };
    [r, r2]
}

#[test]
fn switch_fall_through_and_default() {
    let gpu = Gpu::new();
    let src = r#"
        int classify(int v) {
            int r = 0;
            switch (v & 7) {
            case 0:
                r += 1;
            case 1:
                r += 10;
                break;
            case 2:
            case 3:
                r += 100;
            case 4:
                r += 1000;
                break;
            case 6:
                r = -1;
                break;
            default:
                r = 7;
            }
            return r;
        }
        __kernel void switches(__global const int *in, __global int *out) {
            int g = get_global_id(0);
            int v = in[g];
            int r2 = 0;
            switch (v % 5) {
            case 0:
                r2 = 5;
                break;
            default:
                r2 = -3;
            case 3:
                r2 += 2;
                break;
            case 4:
                r2 = 9;
            }
            out[2 * g] = classify(v);
            out[2 * g + 1] = r2;
        }"#;
    let n = 640usize;
    let input: Vec<i32> = (0..n as i32).map(|i| i * 3 + 1).collect();
    let k = gpu.kernel(src, "switches");
    let (din, dout) = (gpu.buffer(&input), gpu.zeroed::<i32>(2 * n));
    k.arg_buffer(0, &din).arg_buffer(1, &dout);
    gpu.run(&k, &[n], None, None);
    let want: Vec<i32> = input.iter().flat_map(|&v| host_switch(v)).collect();
    assert_same(&gpu.read::<i32>(&dout), &want, "switch results");
}

#[test]
fn helper_functions_several_levels() {
    let gpu = Gpu::new();
    let src = r#"
        float sq(float x) { return x * x; }
        float dist2(float2 a, float2 b) { return sq(a.x - b.x) + sq(a.y - b.y); }
        int nearest(__global const float2 *pts, int n, float2 p, float *best) {
            int bi = 0;
            float bd = dist2(pts[0], p);
            for (int i = 1; i < n; ++i) {
                float d = dist2(pts[i], p);
                if (d < bd) {
                    bd = d;
                    bi = i;
                }
            }
            *best = bd;
            return bi;
        }
        void record(__global int *idx, __global float *dist, int g, int i, float d) {
            idx[g] = i;
            dist[g] = sqrt(d);
        }
        __kernel void nearest_point(__global const float2 *pts, int n, __global const float2 *q,
                                    __global int *idx, __global float *dist) {
            int g = get_global_id(0);
            float best;
            int i = nearest(pts, n, q[g], &best);
            record(idx, dist, g, i, best);
        }"#;
    let (npts, nq) = (64usize, 1000usize);
    let mut rng = XorShift::new(20);
    let pts: Vec<[f32; 2]> = (0..npts)
        .map(|_| [rng.f32_in(0.0, 1.0), rng.f32_in(0.0, 1.0)])
        .collect();
    let qs: Vec<[f32; 2]> = (0..nq)
        .map(|_| [rng.f32_in(0.0, 1.0), rng.f32_in(0.0, 1.0)])
        .collect();
    let k = gpu.kernel(src, "nearest_point");
    let (dp, dq, di, dd) = (
        gpu.buffer(&pts),
        gpu.buffer(&qs),
        gpu.zeroed::<i32>(nq),
        gpu.zeroed::<f32>(nq),
    );
    k.arg_buffer(0, &dp)
        .arg(1, npts as i32)
        .arg_buffer(2, &dq)
        .arg_buffer(3, &di)
        .arg_buffer(4, &dd);
    gpu.run(&k, &[nq], None, None);
    let (gi, gd) = (gpu.read::<i32>(&di), gpu.read::<f32>(&dd));
    let d2 =
        |p: [f32; 2], q: [f32; 2]| ((p[0] - q[0]) as f64).powi(2) + ((p[1] - q[1]) as f64).powi(2);
    for (j, q) in qs.iter().enumerate() {
        let best = (0..npts)
            .min_by(|&a, &b| d2(pts[a], *q).total_cmp(&d2(pts[b], *q)))
            .unwrap();
        let (want_d, got_d) = (d2(pts[best], *q), d2(pts[gi[j] as usize], *q));
        // A contracted multiply-add may only swap near-ties.
        assert!(
            gi[j] as usize == best || (got_d - want_d).abs() < 1e-6,
            "query {j}: nearest {} want {best}",
            gi[j]
        );
        assert!(
            (gd[j] as f64 - want_d.sqrt()).abs() < 1e-5,
            "query {j}: distance {} want {}",
            gd[j],
            want_d.sqrt()
        );
    }
}

#[test]
fn global_pointer_casts_and_arithmetic() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void bytes_of_floats(__global const float *in, __global uint *bits,
                                      __global int *ints, int n) {
            int i = get_global_id(0);
            __global const uchar *p = (__global const uchar *)in;
            __global const float *end = in + n;
            uint b0 = p[4 * i], b1 = p[4 * i + 1], b2 = p[4 * i + 2], b3 = p[4 * i + 3];
            bits[i] = b0 | (b1 << 8) | (b2 << 16) | (b3 << 24);
            __global char *c = (__global char *)ints;
            __global int *q = (__global int *)(c + 4 * i);
            *q = (int)b3 - (int)b0 + (int)(end - (in + i));
        }"#;
    let n = 3333usize;
    let mut rng = XorShift::new(21);
    let input = rng.floats(n, -1e6, 1e6);
    let k = gpu.kernel(src, "bytes_of_floats");
    let (din, dbits, dints) = (
        gpu.buffer(&input),
        gpu.zeroed::<u32>(n),
        gpu.zeroed::<i32>(n),
    );
    k.arg_buffer(0, &din)
        .arg_buffer(1, &dbits)
        .arg_buffer(2, &dints)
        .arg(3, n as i32);
    gpu.run(&k, &[n], None, None);
    let want_bits: Vec<u32> = input.iter().map(|f| f.to_bits()).collect();
    let want_ints: Vec<i32> = input
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let b = f.to_le_bytes();
            b[3] as i32 - b[0] as i32 + (n - i) as i32
        })
        .collect();
    assert_same(
        &gpu.read::<u32>(&dbits),
        &want_bits,
        "float bytes through uchar*",
    );
    assert_same(&gpu.read::<i32>(&dints), &want_ints, "ints through char*");
}

#[test]
fn global_pointer_inside_private_struct() {
    let gpu = Gpu::new();
    let src = r#"
        typedef struct {
            __global float *data;
            int stride;
            float scale;
        } view;
        float view_get(view v, int i) { return v.data[i * v.stride] * v.scale; }
        void view_set(view *v, int i, float x) { v->data[i * v->stride] = x; }
        __kernel void strided(__global float *src, __global float *dst, int stride) {
            int i = get_global_id(0);
            view in;
            in.data = src + 1;
            in.stride = stride;
            in.scale = 2.0f;
            view out = { dst, 1, 1.0f };
            view_set(&out, i, view_get(in, i));
        }"#;
    let (n, stride) = (1000usize, 3usize);
    let input: Vec<f32> = (0..n * stride + 1).map(|i| i as f32).collect();
    let k = gpu.kernel(src, "strided");
    let (din, dout) = (gpu.buffer(&input), gpu.zeroed::<f32>(n));
    k.arg_buffer(0, &din)
        .arg_buffer(1, &dout)
        .arg(2, stride as i32);
    gpu.run(&k, &[n], None, None);
    let want: Vec<f32> = (0..n).map(|i| input[1 + i * stride] * 2.0).collect();
    assert_same(&gpu.read::<f32>(&dout), &want, "strided view");
}

#[test]
fn ternary_operators() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void ternary(__global const int *a, __global const float *f,
                              __global int *out, __global float *fout) {
            int g = get_global_id(0);
            int x = a[g];
            out[g] = x > 0 ? (x % 3 == 0 ? x / 3 : -x) : (x < -100 ? 1 : 2);
            float y = f[g];
            fout[g] = y < 0.0f ? -y : (y > 0.5f ? y * 2.0f : y);
            __global int *which = x & 1 ? out : out;
            which[g] += (y > 0.0f) ? 1000 : 0;
        }"#;
    let n = 2000usize;
    let mut rng = XorShift::new(22);
    let a: Vec<i32> = (0..n)
        .map(|_| (rng.next_u32() % 1001) as i32 - 500)
        .collect();
    let f = rng.floats(n, -1.0, 1.0);
    let k = gpu.kernel(src, "ternary");
    let (da, df, dout, dfout) = (
        gpu.buffer(&a),
        gpu.buffer(&f),
        gpu.zeroed::<i32>(n),
        gpu.zeroed::<f32>(n),
    );
    k.arg_buffer(0, &da)
        .arg_buffer(1, &df)
        .arg_buffer(2, &dout)
        .arg_buffer(3, &dfout);
    gpu.run(&k, &[n], None, None);
    let want: Vec<i32> = a
        .iter()
        .zip(&f)
        .map(|(&x, &y)| {
            let v = if x > 0 {
                if x % 3 == 0 {
                    x / 3
                } else {
                    -x
                }
            } else if x < -100 {
                1
            } else {
                2
            };
            v + if y > 0.0 { 1000 } else { 0 }
        })
        .collect();
    let want_f: Vec<f32> = f
        .iter()
        .map(|&y| {
            if y < 0.0 {
                -y
            } else if y > 0.5 {
                y * 2.0
            } else {
                y
            }
        })
        .collect();
    assert_same(&gpu.read::<i32>(&dout), &want, "integer ternaries");
    assert_same(&gpu.read::<f32>(&dfout), &want_f, "float ternaries");
}

// ---------------------------------------------------------------------------
// Whole algorithms
// ---------------------------------------------------------------------------

#[test]
fn bitonic_sort_steps() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void bitonic_step(__global uint *data, uint j, uint k) {
            uint i = get_global_id(0);
            uint ixj = i ^ j;
            if (ixj > i) {
                uint a = data[i], b = data[ixj];
                bool up = (i & k) == 0;
                if ((up && a > b) || (!up && a < b)) {
                    data[i] = b;
                    data[ixj] = a;
                }
            }
        }"#;
    let n = 4096usize;
    let mut rng = XorShift::new(23);
    let input: Vec<u32> = (0..n).map(|_| rng.next_u32() % 100_000).collect();
    let kern = gpu.kernel(src, "bitonic_step");
    let dd = gpu.buffer(&input);
    kern.arg_buffer(0, &dd);
    // Every step depends on the previous one: the in-order queue orders them.
    let mut k = 2u32;
    while k as usize <= n {
        let mut j = k / 2;
        while j > 0 {
            kern.arg(1, j).arg(2, k);
            gpu.run(&kern, &[n], Some(&[64]), None);
            j /= 2;
        }
        k *= 2;
    }
    let mut want = input.clone();
    want.sort_unstable();
    assert_same(&gpu.read::<u32>(&dd), &want, "sorted");
}

#[test]
fn mandelbrot_iteration_counts() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void mandelbrot(__global int *out, float x0, float y0, float dx, float dy,
                                 int width, int max_iter) {
            int px = get_global_id(0), py = get_global_id(1);
            float cr = x0 + (float)px * dx, ci = y0 + (float)py * dy;
            float x = 0.0f, y = 0.0f;
            int it = 0;
            while (it < max_iter && x * x + y * y <= 4.0f) {
                float xt = x * x - y * y + cr;
                y = 2.0f * x * y + ci;
                x = xt;
                it++;
            }
            out[py * width + px] = it;
        }"#;
    let (w, h, max_iter) = (256usize, 192usize, 200i32);
    let (x0, y0, dx, dy) = (-2.2f32, -1.2f32, 3.2f32 / w as f32, 2.4f32 / h as f32);
    let k = gpu.kernel(src, "mandelbrot");
    let dout = gpu.zeroed::<i32>(w * h);
    k.arg_buffer(0, &dout)
        .arg(1, x0)
        .arg(2, y0)
        .arg(3, dx)
        .arg(4, dy)
        .arg(5, w as i32)
        .arg(6, max_iter);
    gpu.run(&k, &[w, h], None, None);
    let got = gpu.read::<i32>(&dout);
    let mut mismatches = 0;
    for py in 0..h {
        for px in 0..w {
            let (cr, ci) = (x0 + px as f32 * dx, y0 + py as f32 * dy);
            let (mut x, mut y, mut it) = (0f32, 0f32, 0);
            while it < max_iter && x * x + y * y <= 4.0 {
                let xt = x * x - y * y + cr;
                y = 2.0 * x * y + ci;
                x = xt;
                it += 1;
            }
            let g = got[py * w + px];
            assert!(
                (0..=max_iter).contains(&g),
                "pixel ({px},{py}): {g} iterations"
            );
            if g != it {
                mismatches += 1;
            }
        }
    }
    // Contracted multiply-adds may change a chaotic orbit near the set's
    // edge; that may only affect a tiny fraction of pixels.
    assert!(
        mismatches * 200 <= w * h,
        "{mismatches} of {} pixels differ",
        w * h
    );
}

#[test]
fn nbody_step() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void nbody(__global const float4 *pos, __global const float4 *vel,
                            __global float4 *new_pos, __global float4 *new_vel,
                            int n, float dt, float eps2) {
            int i = get_global_id(0);
            float4 p = pos[i];
            float3 acc = (float3)(0.0f);
            for (int j = 0; j < n; ++j) {
                float4 q = pos[j];
                float3 d = q.xyz - p.xyz;
                float r2 = dot(d, d) + eps2;
                float inv = 1.0f / sqrt(r2);
                acc += d * (q.w * inv * inv * inv);
            }
            float4 v = vel[i];
            v.xyz += acc * dt;
            p.xyz += v.xyz * dt;
            new_pos[i] = p;
            new_vel[i] = v;
        }"#;
    let n = 512usize;
    let (dt, eps2) = (0.01f32, 0.01f32);
    let mut rng = XorShift::new(24);
    let pos: Vec<[f32; 4]> = (0..n)
        .map(|_| {
            [
                rng.f32_in(-1.0, 1.0),
                rng.f32_in(-1.0, 1.0),
                rng.f32_in(-1.0, 1.0),
                rng.f32_in(0.5, 1.5),
            ]
        })
        .collect();
    let vel: Vec<[f32; 4]> = (0..n)
        .map(|_| {
            [
                rng.f32_in(-0.1, 0.1),
                rng.f32_in(-0.1, 0.1),
                rng.f32_in(-0.1, 0.1),
                0.0,
            ]
        })
        .collect();
    let k = gpu.kernel(src, "nbody");
    let (dp, dv) = (gpu.buffer(&pos), gpu.buffer(&vel));
    let (dnp, dnv) = (gpu.zeroed::<[f32; 4]>(n), gpu.zeroed::<[f32; 4]>(n));
    k.arg_buffer(0, &dp)
        .arg_buffer(1, &dv)
        .arg_buffer(2, &dnp)
        .arg_buffer(3, &dnv);
    k.arg(4, n as i32).arg(5, dt).arg(6, eps2);
    gpu.run(&k, &[n], None, None);
    let mut want_p = Vec::with_capacity(4 * n);
    let mut want_v = Vec::with_capacity(4 * n);
    for i in 0..n {
        let p = pos[i].map(|v| v as f64);
        let mut acc = [0f64; 3];
        for q in &pos {
            let d = [q[0] as f64 - p[0], q[1] as f64 - p[1], q[2] as f64 - p[2]];
            let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + eps2 as f64;
            let inv = 1.0 / r2.sqrt();
            for c in 0..3 {
                acc[c] += d[c] * q[3] as f64 * inv * inv * inv;
            }
        }
        let mut v = vel[i].map(|v| v as f64);
        let mut np = p;
        for c in 0..3 {
            v[c] += acc[c] * dt as f64;
            np[c] += v[c] * dt as f64;
        }
        want_p.extend(np.map(|x| x as f32));
        want_v.extend(v.map(|x| x as f32));
    }
    let got_p: Vec<f32> = gpu.read::<[f32; 4]>(&dnp).into_iter().flatten().collect();
    let got_v: Vec<f32> = gpu.read::<[f32; 4]>(&dnv).into_iter().flatten().collect();
    assert_close(&got_v, &want_v, 1e-3, 1e-3, "velocities");
    assert_close(&got_p, &want_p, 1e-4, 1e-4, "positions");
}

#[test]
fn gaussian_blur_3x3_uchar() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void blur(__global const uchar *in, __global uchar *out, int w, int h) {
            int x = get_global_id(0), y = get_global_id(1);
            if (x >= w || y >= h)
                return;
            const int weights[3][3] = { { 1, 2, 1 }, { 2, 4, 2 }, { 1, 2, 1 } };
            int sum = 0;
            for (int dy = -1; dy <= 1; ++dy)
                for (int dx = -1; dx <= 1; ++dx) {
                    int sx = clamp(x + dx, 0, w - 1), sy = clamp(y + dy, 0, h - 1);
                    sum += weights[dy + 1][dx + 1] * in[sy * w + sx];
                }
            out[y * w + x] = (uchar)((sum + 8) >> 4);
        }"#;
    let (w, h) = (173usize, 111usize);
    let mut rng = XorShift::new(25);
    let img: Vec<u8> = (0..w * h).map(|_| rng.next_u32() as u8).collect();
    let k = gpu.kernel(src, "blur");
    let (din, dout) = (gpu.buffer(&img), gpu.zeroed::<u8>(w * h));
    k.arg_buffer(0, &din)
        .arg_buffer(1, &dout)
        .arg(2, w as i32)
        .arg(3, h as i32);
    gpu.run(&k, &[round_up(w, 8), round_up(h, 8)], Some(&[8, 8]), None);
    let weights = [[1, 2, 1], [2, 4, 2], [1, 2, 1]];
    let mut want = vec![0u8; w * h];
    for y in 0..h as i32 {
        for x in 0..w as i32 {
            let mut sum = 0i32;
            for dy in -1..=1 {
                for dx in -1..=1 {
                    let sx = (x + dx).clamp(0, w as i32 - 1) as usize;
                    let sy = (y + dy).clamp(0, h as i32 - 1) as usize;
                    sum += weights[(dy + 1) as usize][(dx + 1) as usize] * img[sy * w + sx] as i32;
                }
            }
            want[y as usize * w + x as usize] = ((sum + 8) >> 4) as u8;
        }
    }
    assert_same(&gpu.read::<u8>(&dout), &want, "blurred image");
}

#[test]
fn bit_reversal_by_shifts() {
    let gpu = Gpu::new();
    let src = r#"
        uint reverse_bits(uint x) {
            x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
            x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
            x = ((x >> 4) & 0x0F0F0F0Fu) | ((x & 0x0F0F0F0Fu) << 4);
            x = ((x >> 8) & 0x00FF00FFu) | ((x & 0x00FF00FFu) << 8);
            return (x >> 16) | (x << 16);
        }
        __kernel void bits(__global const uint *in, __global uint *out) {
            int i = get_global_id(0);
            uint x = in[i];
            out[3 * i] = reverse_bits(x);
            out[3 * i + 1] = x & (x - 1);
            out[3 * i + 2] = (x ^ (x >> 1)) | (~x & 0xFFu);
        }"#;
    let n = 10_000usize;
    let mut rng = XorShift::new(26);
    let mut input = rng.u32s(n);
    input[0] = 0;
    input[1] = u32::MAX;
    input[2] = 1;
    let k = gpu.kernel(src, "bits");
    let (din, dout) = (gpu.buffer(&input), gpu.zeroed::<u32>(3 * n));
    k.arg_buffer(0, &din).arg_buffer(1, &dout);
    gpu.run(&k, &[n], None, None);
    let want: Vec<u32> = input
        .iter()
        .flat_map(|&x| {
            [
                x.reverse_bits(),
                x & x.wrapping_sub(1),
                (x ^ (x >> 1)) | (!x & 0xff),
            ]
        })
        .collect();
    assert_same(&gpu.read::<u32>(&dout), &want, "bit manipulation");
}

#[test]
fn ulong_arithmetic() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void wide(__global const ulong *a, __global const ulong *b, __global ulong *out,
                           __global long *sout) {
            int i = get_global_id(0);
            ulong x = a[i], y = b[i];
            out[5 * i] = x * y + 0x9E3779B97F4A7C15UL;
            out[5 * i + 1] = (x << 13) ^ (y >> 7) ^ (x >> (y & 63));
            out[5 * i + 2] = x / ((y >> 40) | 1);
            out[5 * i + 3] = x > y ? x - y : y - x;
            out[5 * i + 4] = mul_hi(x, y);
            long sx = (long)x;
            sout[i] = (sx >> 3) + (long)(y % 1000) * -7L;
        }"#;
    let n = 3000usize;
    let mut rng = XorShift::new(27);
    let mut gen = || -> Vec<u64> {
        (0..n)
            .map(|_| (rng.next_u32() as u64) << 32 | rng.next_u32() as u64)
            .collect()
    };
    let (a, b) = (gen(), gen());
    let k = gpu.kernel(src, "wide");
    let (da, db, dout, dsout) = (
        gpu.buffer(&a),
        gpu.buffer(&b),
        gpu.zeroed::<u64>(5 * n),
        gpu.zeroed::<i64>(n),
    );
    k.arg_buffer(0, &da)
        .arg_buffer(1, &db)
        .arg_buffer(2, &dout)
        .arg_buffer(3, &dsout);
    gpu.run(&k, &[n], None, None);
    let want: Vec<u64> = a
        .iter()
        .zip(&b)
        .flat_map(|(&x, &y)| {
            [
                x.wrapping_mul(y).wrapping_add(0x9E37_79B9_7F4A_7C15),
                (x << 13) ^ (y >> 7) ^ (x >> (y & 63)),
                x / ((y >> 40) | 1),
                x.abs_diff(y),
                ((x as u128 * y as u128) >> 64) as u64,
            ]
        })
        .collect();
    let want_s: Vec<i64> = a
        .iter()
        .zip(&b)
        .map(|(&x, &y)| ((x as i64) >> 3) + (y % 1000) as i64 * -7)
        .collect();
    assert_same(&gpu.read::<u64>(&dout), &want, "ulong results");
    assert_same(&gpu.read::<i64>(&dsout), &want_s, "long results");
}

// ---------------------------------------------------------------------------
// Launch mechanics: argument buffers, attributes, build options, queues,
// split dispatches
// ---------------------------------------------------------------------------

#[test]
fn fourteen_buffer_arguments_beyond_push_constants() {
    let gpu = Gpu::new();
    // 14 pointers (112 bytes) plus two scalars do not fit in lavapipe's 128
    // bytes of push constants after the 64-byte launch header, nor after
    // the 32 bytes that stay there when the header moves to a buffer.
    let params: Vec<String> = (0..13)
        .map(|i| format!("__global const float *a{i}"))
        .collect();
    let terms: Vec<String> = (0..13).map(|i| format!("a{i}[i] * {}.0f", i + 1)).collect();
    let src = format!(
        "__kernel void many({}, __global float *out, float bias, int n) {{\n\
             int i = get_global_id(0);\n\
             if (i < n) out[i] = {} + bias;\n\
         }}",
        params.join(", "),
        terms.join(" + ")
    );
    let n = 1000usize;
    let inputs: Vec<Vec<f32>> = (0..13)
        .map(|j| (0..n).map(|i| (i * (j + 1) % 17) as f32).collect())
        .collect();
    let k = gpu.kernel(&src, "many");
    let buffers: Vec<_> = inputs.iter().map(|v| gpu.buffer(v)).collect();
    let out = gpu.zeroed::<f32>(n);
    for (j, b) in buffers.iter().enumerate() {
        k.arg_buffer(j as u32, b);
    }
    k.arg_buffer(13, &out).arg(14, 0.5f32).arg(15, n as i32);
    gpu.run(&k, &[n], None, None);
    let want: Vec<f32> = (0..n)
        .map(|i| (0..13).map(|j| inputs[j][i] * (j + 1) as f32).sum::<f32>() + 0.5)
        .collect();
    // Small integers: every partial sum is exact in any order.
    assert_same(&gpu.read::<f32>(&out), &want, "weighted sum of 13 inputs");
}

#[test]
fn reqd_work_group_size_with_null_local() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel __attribute__((reqd_work_group_size(32, 1, 1)))
        void fixed(__global uint *out) {
            size_t i = get_global_id(0);
            out[2 * i] = get_local_size(0);
            out[2 * i + 1] = get_local_id(0) + 1000 * get_group_id(0);
        }"#;
    let n = 32 * 37usize;
    let k = gpu.kernel(src, "fixed");
    let out = gpu.zeroed::<u32>(2 * n);
    k.arg_buffer(0, &out);
    gpu.run(&k, &[n], None, None);
    let want: Vec<u32> = (0..n as u32)
        .flat_map(|i| [32, i % 32 + 1000 * (i / 32)])
        .collect();
    assert_same(
        &gpu.read::<u32>(&out),
        &want,
        "local size chosen from reqd_work_group_size",
    );
}

#[test]
fn build_options_define_macros() {
    let gpu = Gpu::new();
    let src = r#"
        #ifndef SCALE
        #define SCALE 1
        #endif
        __kernel void shaped(__global const int *in, __global int *out) {
            int i = get_global_id(0);
        #ifdef USE_SQUARE
            out[i] = in[i] * in[i] * SCALE;
        #else
            out[i] = in[i] + SCALE;
        #endif
        }"#;
    let n = 700usize;
    let input: Vec<i32> = (0..n as i32).map(|i| i - 350).collect();
    let din = gpu.buffer(&input);
    type Expected = fn(i32) -> i32;
    let cases: [(&str, Expected); 3] = [
        ("", |x| x + 1),
        ("-D SCALE=5", |x| x + 5),
        ("-DUSE_SQUARE -DSCALE=3", |x| x * x * 3),
    ];
    for (options, f) in cases {
        let k = gpu.kernel_with_options(src, "shaped", options);
        let out = gpu.zeroed::<i32>(n);
        k.arg_buffer(0, &din).arg_buffer(1, &out);
        gpu.run(&k, &[n], None, None);
        let want: Vec<i32> = input.iter().map(|&x| f(x)).collect();
        assert_same(
            &gpu.read::<i32>(&out),
            &want,
            &format!("options {options:?}"),
        );
    }
}

#[test]
fn multi_kernel_pipeline_in_order_queue() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void square(__global const float *in, __global float *tmp) {
            int i = get_global_id(0);
            tmp[i] = in[i] * in[i];
        }
        __kernel void add_input(__global const float *tmp, __global const float *in,
                                __global float *out) {
            int i = get_global_id(0);
            out[i] = tmp[i] + in[i];
        }
        __kernel void shift_left(__global const float *src, __global float *dst, int n) {
            int i = get_global_id(0);
            dst[i] = src[(i + 1) % n];
        }"#;
    let n = 20_000usize;
    let mut rng = XorShift::new(28);
    let input = rng.floats(n, -3.0, 3.0);
    let program = gpu.program(src, "");
    let (square, add, shift) = (
        program.kernel("square"),
        program.kernel("add_input"),
        program.kernel("shift_left"),
    );
    drop(program);
    let (din, dtmp, dout, dfinal) = (
        gpu.buffer(&input),
        gpu.zeroed::<f32>(n),
        gpu.zeroed::<f32>(n),
        gpu.zeroed::<f32>(n),
    );
    square.arg_buffer(0, &din).arg_buffer(1, &dtmp);
    add.arg_buffer(0, &dtmp)
        .arg_buffer(1, &din)
        .arg_buffer(2, &dout);
    shift
        .arg_buffer(0, &dout)
        .arg_buffer(1, &dfinal)
        .arg(2, n as i32);
    // No clFinish between: each kernel reads what the previous one wrote.
    gpu.run(&square, &[n], None, None);
    gpu.run(&add, &[n], None, None);
    gpu.run(&shift, &[n], None, None);
    gpu.finish();
    let mid: Vec<f32> = input.iter().map(|x| x * x + x).collect();
    let want: Vec<f32> = (0..n).map(|i| mid[(i + 1) % n]).collect();
    assert_close(
        &gpu.read::<f32>(&dfinal),
        &want,
        1e-6,
        1e-6,
        "square, add, rotate",
    );
}

#[test]
fn launch_beyond_max_group_count_is_split() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void ids(__global uint *gid, __global uint *grp) {
            size_t i = get_global_id(0);
            gid[i] = (uint)i * 3u + 1u;
            grp[i] = get_group_id(0);
        }"#;
    // 70001 groups of 16: more than lavapipe's maxComputeWorkGroupCount[0]
    // (65535), so the dispatch must be split with a non-zero group base.
    let (groups, local) = (70_001usize, 16usize);
    let n = groups * local;
    let k = gpu.kernel(src, "ids");
    let (dgid, dgrp) = (gpu.zeroed::<u32>(n), gpu.zeroed::<u32>(n));
    k.arg_buffer(0, &dgid).arg_buffer(1, &dgrp);
    gpu.run(&k, &[n], Some(&[local]), None);
    let want_gid: Vec<u32> = (0..n as u32).map(|i| i * 3 + 1).collect();
    let want_grp: Vec<u32> = (0..n as u32).map(|i| i / local as u32).collect();
    assert_same(&gpu.read::<u32>(&dgid), &want_gid, "global ids");
    assert_same(&gpu.read::<u32>(&dgrp), &want_grp, "group ids");
}

#[test]
fn launch_with_local_size_one_and_offset_is_split() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void fill(__global int *out) {
            size_t i = get_global_id(0);
            out[i - get_global_offset(0)] = (int)(i * 2 + get_group_id(0));
        }"#;
    let (n, offset) = (150_000usize, 5usize);
    let k = gpu.kernel(src, "fill");
    let out = gpu.zeroed::<i32>(n);
    k.arg_buffer(0, &out);
    gpu.run(&k, &[n], Some(&[1]), Some(&[offset]));
    let want: Vec<i32> = (0..n).map(|i| ((i + offset) * 2 + i) as i32).collect();
    assert_same(&gpu.read::<i32>(&out), &want, "ids with local size 1");
}

// ---------------------------------------------------------------------------
// More of what user kernels do
// ---------------------------------------------------------------------------

#[test]
fn program_scope_constant_tables() {
    let gpu = Gpu::new();
    let src = r#"
        __constant int primes[8] = { 2, 3, 5, 7, 11, 13, 17, 19 };
        __constant float4 weights = (float4)(0.5f, 0.25f, 0.125f, 0.125f);
        __kernel void lookup(__global const uint *idx, __global const float4 *v,
                             __global int *out, __global float *fout) {
            int i = get_global_id(0);
            uint k = idx[i];
            out[i] = primes[k & 7] * primes[(k >> 3) & 7];
            fout[i] = dot(v[i], weights);
        }"#;
    let n = 2000usize;
    let mut rng = XorShift::new(29);
    let idx = rng.u32s(n);
    let v: Vec<[f32; 4]> = (0..n)
        .map(|_| [0; 4].map(|_: i32| rng.f32_in(-8.0, 8.0)))
        .collect();
    let k = gpu.kernel(src, "lookup");
    let (di, dv, dout, dfout) = (
        gpu.buffer(&idx),
        gpu.buffer(&v),
        gpu.zeroed::<i32>(n),
        gpu.zeroed::<f32>(n),
    );
    k.arg_buffer(0, &di)
        .arg_buffer(1, &dv)
        .arg_buffer(2, &dout)
        .arg_buffer(3, &dfout);
    gpu.run(&k, &[n], None, None);
    let primes = [2, 3, 5, 7, 11, 13, 17, 19];
    let weights = [0.5f32, 0.25, 0.125, 0.125];
    let want: Vec<i32> = idx
        .iter()
        .map(|&k| primes[(k & 7) as usize] * primes[((k >> 3) & 7) as usize])
        .collect();
    let want_f: Vec<f32> = v
        .iter()
        .map(|x| (0..4).map(|c| x[c] * weights[c]).sum())
        .collect();
    assert_same(&gpu.read::<i32>(&dout), &want, "constant int table");
    assert_close(
        &gpu.read::<f32>(&dfout),
        &want_f,
        1e-5,
        1e-6,
        "dot with a constant float4",
    );
}

#[test]
fn vload_vstore_unaligned() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void vloads(__global const float *in, __global float *out4, __global float *out3) {
            int i = get_global_id(0);
            float4 a = vload4(i, in + 1);
            float3 b = vload3(i, in);
            vstore4(a * 2.0f, i, out4);
            vstore3(b + (float3)(1.0f, 2.0f, 3.0f), i, out3 + 1);
        }"#;
    let n = 999usize;
    let input: Vec<f32> = (0..4 * n + 1).map(|i| i as f32 * 0.25).collect();
    let k = gpu.kernel(src, "vloads");
    let (din, d4, d3) = (
        gpu.buffer(&input),
        gpu.zeroed::<f32>(4 * n),
        gpu.zeroed::<f32>(3 * n + 1),
    );
    k.arg_buffer(0, &din).arg_buffer(1, &d4).arg_buffer(2, &d3);
    gpu.run(&k, &[n], None, None);
    let want4: Vec<f32> = (0..4 * n).map(|j| input[1 + j] * 2.0).collect();
    let mut want3 = vec![0f32; 3 * n + 1];
    for j in 0..3 * n {
        want3[1 + j] = input[j] + (j % 3 + 1) as f32;
    }
    assert_same(&gpu.read::<f32>(&d4), &want4, "vload4/vstore4");
    assert_same(&gpu.read::<f32>(&d3), &want3, "vload3/vstore3");
}

#[test]
fn double_precision_when_cl_khr_fp64() {
    let gpu = Gpu::new();
    if !gpu
        .device_string(CL_DEVICE_EXTENSIONS)
        .split_whitespace()
        .any(|e| e == "cl_khr_fp64")
    {
        eprintln!("skipped: the device does not offer cl_khr_fp64");
        return;
    }
    let src = r#"
        #pragma OPENCL EXTENSION cl_khr_fp64 : enable
        __kernel void dmath(__global const double *a, __global const double *b,
                            __global double *out, __global float *narrowed) {
            int i = get_global_id(0);
            double x = a[i], y = b[i];
            out[4 * i] = x * y + 1.0;
            out[4 * i + 1] = x / y;
            out[4 * i + 2] = sqrt(fabs(x));
            out[4 * i + 3] = (double)(float)x;
            narrowed[i] = (float)(x / 3.0);
        }"#;
    let n = 1000usize;
    let mut rng = XorShift::new(30);
    let a: Vec<f64> = (0..n)
        .map(|_| rng.f32_in(-1e3, 1e3) as f64 + rng.f32_in(0.0, 1.0) as f64 * 1e-7)
        .collect();
    let b: Vec<f64> = (0..n)
        .map(|_| rng.f32_in(1.0, 100.0) as f64 / 3.0)
        .collect();
    let k = gpu.kernel(src, "dmath");
    let (da, db, dout, dn) = (
        gpu.buffer(&a),
        gpu.buffer(&b),
        gpu.zeroed::<f64>(4 * n),
        gpu.zeroed::<f32>(n),
    );
    k.arg_buffer(0, &da)
        .arg_buffer(1, &db)
        .arg_buffer(2, &dout)
        .arg_buffer(3, &dn);
    gpu.run(&k, &[n], None, None);
    let got = gpu.read::<f64>(&dout);
    for i in 0..n {
        let (x, y) = (a[i], b[i]);
        let fused = x.mul_add(y, 1.0);
        assert!(
            got[4 * i] == x * y + 1.0 || got[4 * i] == fused,
            "x*y+1 at {i}: {}",
            got[4 * i]
        );
        // Division and sqrt are correctly rounded in double precision.
        assert_eq!(got[4 * i + 1], x / y, "x/y at {i}");
        assert_eq!(got[4 * i + 2], x.abs().sqrt(), "sqrt at {i}");
        assert_eq!(
            got[4 * i + 3],
            x as f32 as f64,
            "round trip through float at {i}"
        );
    }
    let want_n: Vec<f32> = a.iter().map(|&x| (x / 3.0) as f32).collect();
    assert_same(&gpu.read::<f32>(&dn), &want_n, "double to float");
}

#[test]
fn int4_clamp_abs_minmax_rhadd_any_all() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void ivec(__global const int4 *a, __global const int4 *b, __global int4 *out,
                           __global int *flags) {
            int i = get_global_id(0);
            int4 x = a[i], y = b[i];
            out[4 * i] = clamp(x, -100, 100);
            out[4 * i + 1] = as_int4(abs(x - y));
            out[4 * i + 2] = min(x, y) * 2 + max(x, y);
            out[4 * i + 3] = rhadd(x, y);
            flags[2 * i] = any(x > y);
            flags[2 * i + 1] = all(x >= -900);
        }"#;
    let n = 1200usize;
    let mut rng = XorShift::new(31);
    let gen = |rng: &mut XorShift| -> Vec<[i32; 4]> {
        (0..n)
            .map(|_| [0; 4].map(|_: i32| (rng.next_u32() % 2001) as i32 - 1000))
            .collect()
    };
    let (a, b) = (gen(&mut rng), gen(&mut rng));
    let k = gpu.kernel(src, "ivec");
    let (da, db, dout, dflags) = (
        gpu.buffer(&a),
        gpu.buffer(&b),
        gpu.zeroed::<[i32; 4]>(4 * n),
        gpu.zeroed::<i32>(2 * n),
    );
    k.arg_buffer(0, &da)
        .arg_buffer(1, &db)
        .arg_buffer(2, &dout)
        .arg_buffer(3, &dflags);
    gpu.run(&k, &[n], None, None);
    let got = gpu.read::<[i32; 4]>(&dout);
    let flags = gpu.read::<i32>(&dflags);
    for i in 0..n {
        let (x, y) = (a[i], b[i]);
        assert_eq!(got[4 * i], x.map(|v| v.clamp(-100, 100)), "clamp at {i}");
        assert_eq!(
            got[4 * i + 1],
            std::array::from_fn(|c| (x[c] - y[c]).abs()),
            "abs at {i}"
        );
        assert_eq!(
            got[4 * i + 2],
            std::array::from_fn(|c| x[c].min(y[c]) * 2 + x[c].max(y[c])),
            "min/max at {i}"
        );
        assert_eq!(
            got[4 * i + 3],
            std::array::from_fn(|c| ((x[c] as i64 + y[c] as i64 + 1) >> 1) as i32),
            "rhadd at {i}"
        );
        assert_eq!(
            flags[2 * i],
            (0..4).any(|c| x[c] > y[c]) as i32,
            "any at {i}"
        );
        assert_eq!(
            flags[2 * i + 1],
            (0..4).all(|c| x[c] >= -900) as i32,
            "all at {i}"
        );
    }
}

#[test]
fn struct_with_float3_and_array_members() {
    let gpu = Gpu::new();
    let src = r#"
        typedef struct { float3 p; float m; int tags[3]; } body;
        __kernel void bodies(__global body *b, __global int *layout) {
            int i = get_global_id(0);
            body x = b[i];
            x.p = x.p * x.m;
            x.tags[(x.tags[0] & 1) ? 2 : 1] += 7;
            b[i] = x;
            if (i == 0) {
                layout[0] = sizeof(body);
                layout[1] = (int)((__global char *)&b[0].m - (__global char *)&b[0]);
                layout[2] = (int)((__global char *)&b[0].tags[0] - (__global char *)&b[0]);
            }
        }"#;
    // float3 takes 16 bytes with 16-byte alignment: p@0, m@16, tags@20,
    // size 32 (rounded up to the 16-byte alignment).
    let n = 500usize;
    let mut rng = XorShift::new(32);
    let items: Vec<[u32; 8]> = (0..n)
        .map(|_| {
            let p = [
                rng.f32_in(-5.0, 5.0),
                rng.f32_in(-5.0, 5.0),
                rng.f32_in(-5.0, 5.0),
            ];
            let m = rng.f32_in(0.5, 2.0);
            let tags = [
                rng.next_u32() % 100,
                rng.next_u32() % 100,
                rng.next_u32() % 100,
            ];
            [
                p[0].to_bits(),
                p[1].to_bits(),
                p[2].to_bits(),
                0,
                m.to_bits(),
                tags[0],
                tags[1],
                tags[2],
            ]
        })
        .collect();
    let k = gpu.kernel(src, "bodies");
    let (db, dl) = (gpu.buffer(&items), gpu.zeroed::<i32>(3));
    k.arg_buffer(0, &db).arg_buffer(1, &dl);
    gpu.run(&k, &[n], None, None);
    assert_same(
        &gpu.read::<i32>(&dl),
        &[32, 16, 20],
        "sizeof(body), offsets of m and tags",
    );
    let got = gpu.read::<[u32; 8]>(&db);
    for (i, (g, x)) in got.iter().zip(&items).enumerate() {
        let m = f32::from_bits(x[4]);
        for c in 0..3 {
            assert_eq!(
                f32::from_bits(g[c]),
                f32::from_bits(x[c]) * m,
                "p[{c}] of {i}"
            );
        }
        assert_eq!(g[4], x[4], "m of {i}");
        let mut tags = [x[5], x[6], x[7]];
        tags[if tags[0] & 1 != 0 { 2 } else { 1 }] += 7;
        assert_eq!([g[5], g[6], g[7]], tags, "tags of {i}");
    }
}

#[test]
fn global_memory_barrier_within_work_group() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void rotate_in_group(__global int *buf, __global int *out) {
            int l = get_local_id(0), n = get_local_size(0), g = get_global_id(0);
            buf[g] = g * 3 + 1;
            barrier(CLK_GLOBAL_MEM_FENCE);
            out[g] = buf[g - l + (l + 1) % n];
        }"#;
    let (n, wg) = (64 * 50usize, 64usize);
    let k = gpu.kernel(src, "rotate_in_group");
    let (dbuf, dout) = (gpu.zeroed::<i32>(n), gpu.zeroed::<i32>(n));
    k.arg_buffer(0, &dbuf).arg_buffer(1, &dout);
    gpu.run(&k, &[n], Some(&[wg]), None);
    let want: Vec<i32> = (0..n)
        .map(|g| ((g - g % wg + (g % wg + 1) % wg) * 3 + 1) as i32)
        .collect();
    assert_same(
        &gpu.read::<i32>(&dout),
        &want,
        "neighbour's value after the barrier",
    );
}

#[test]
fn sub_buffers_as_kernel_arguments() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void tag(__global int *part, int base) {
            int i = get_global_id(0);
            part[i] = base + i;
        }"#;
    let align_bytes = (gpu.device_info::<u32>(CL_DEVICE_MEM_BASE_ADDR_ALIGN) / 8) as usize;
    let per_part = (align_bytes / 4).max(1) * 8;
    let parts = 4usize;
    let total = per_part * parts;
    let k = gpu.kernel(src, "tag");
    let whole = gpu.buffer(&vec![-1i32; total]);
    for p in 0..parts {
        let sub = gpu.sub_buffer(&whole, p * per_part * 4, per_part * 4);
        k.arg_buffer(0, &sub).arg(1, (p * 1000) as i32);
        // Each part fills only its first half: the rest must stay untouched.
        gpu.run(&k, &[per_part / 2], None, None);
    }
    let want: Vec<i32> = (0..total)
        .map(|j| {
            let (p, i) = (j / per_part, j % per_part);
            if i < per_part / 2 {
                (p * 1000 + i) as i32
            } else {
                -1
            }
        })
        .collect();
    assert_same(
        &gpu.read::<i32>(&whole),
        &want,
        "parts written through sub-buffers",
    );
}

#[test]
fn char_and_short_arithmetic() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void narrow(__global const short *s, __global const char *c,
                             __global short *so, __global uchar *uo, __global int *io) {
            int i = get_global_id(0);
            short a = s[i];
            char b = c[i];
            so[2 * i] = (short)(a * 3 + b);
            so[2 * i + 1] = add_sat(a, (short)(b * 300));
            uo[i] = (uchar)(b ^ 0x5a) + (uchar)3;
            io[i] = (a >> 3) + (b >> 1) + (ushort)a / 7;
        }"#;
    let n = 3001usize;
    let mut rng = XorShift::new(33);
    let s: Vec<i16> = (0..n).map(|_| rng.next_u32() as i16).collect();
    let c: Vec<i8> = (0..n).map(|_| rng.next_u32() as i8).collect();
    let k = gpu.kernel(src, "narrow");
    let (ds, dc) = (gpu.buffer(&s), gpu.buffer(&c));
    let (dso, duo, dio) = (
        gpu.zeroed::<i16>(2 * n),
        gpu.zeroed::<u8>(n),
        gpu.zeroed::<i32>(n),
    );
    k.arg_buffer(0, &ds)
        .arg_buffer(1, &dc)
        .arg_buffer(2, &dso)
        .arg_buffer(3, &duo)
        .arg_buffer(4, &dio);
    gpu.run(&k, &[n], None, None);
    let want_so: Vec<i16> = (0..n)
        .flat_map(|i| {
            let (a, b) = (s[i], c[i]);
            // Integer promotion: arithmetic in int, then truncation.
            [
                (a as i32 * 3 + b as i32) as i16,
                a.saturating_add((b as i32 * 300) as i16),
            ]
        })
        .collect();
    let want_uo: Vec<u8> = c
        .iter()
        .map(|&b| ((b ^ 0x5a) as u8).wrapping_add(3))
        .collect();
    let want_io: Vec<i32> = (0..n)
        .map(|i| (s[i] as i32 >> 3) + (c[i] as i32 >> 1) + (s[i] as u16 as i32) / 7)
        .collect();
    assert_same(&gpu.read::<i16>(&dso), &want_so, "short results");
    assert_same(&gpu.read::<u8>(&duo), &want_uo, "uchar results");
    assert_same(&gpu.read::<i32>(&dio), &want_io, "promoted results");
}

#[test]
fn local_memory_reinterpreted_as_bytes() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void bytes_in_local(__global const uint *in, __global uint *out) {
            __local uint words[64];
            __local uchar *bytes = (__local uchar *)words;
            int l = get_local_id(0), g = get_global_id(0);
            words[l] = in[g];
            barrier(CLK_LOCAL_MEM_FENCE);
            // Reverse the bytes of the neighbour's word, one byte at a time.
            int n = (l + 1) % 64;
            uchar b0 = bytes[4 * n], b1 = bytes[4 * n + 1], b2 = bytes[4 * n + 2], b3 = bytes[4 * n + 3];
            barrier(CLK_LOCAL_MEM_FENCE);
            bytes[4 * l] = b3;
            bytes[4 * l + 1] = b2;
            bytes[4 * l + 2] = b1;
            bytes[4 * l + 3] = b0;
            barrier(CLK_LOCAL_MEM_FENCE);
            out[g] = words[l];
        }"#;
    let n = 64 * 40usize;
    let mut rng = XorShift::new(34);
    let input = rng.u32s(n);
    let k = gpu.kernel(src, "bytes_in_local");
    let (din, dout) = (gpu.buffer(&input), gpu.zeroed::<u32>(n));
    k.arg_buffer(0, &din).arg_buffer(1, &dout);
    gpu.run(&k, &[n], Some(&[64]), None);
    let want: Vec<u32> = (0..n)
        .map(|g| input[g - g % 64 + (g % 64 + 1) % 64].swap_bytes())
        .collect();
    assert_same(&gpu.read::<u32>(&dout), &want, "byte-reversed neighbours");
}

#[test]
fn private_variable_reinterpreted_through_pointer() {
    let gpu = Gpu::new();
    let src = r#"
        uint bytes_sum(const uchar *p, int n) {
            uint s = 0;
            for (int i = 0; i < n; ++i)
                s = s * 31 + p[i];
            return s;
        }
        __kernel void private_bytes(__global const float *in, __global uint *out) {
            int i = get_global_id(0);
            float f = in[i];
            uint h = bytes_sum((const uchar *)&f, 4);
            int pair[2] = { i, -i };
            uint h2 = bytes_sum((const uchar *)pair, 8);
            uchar *fb = (uchar *)&f;
            fb[3] ^= 0x80;
            out[3 * i] = h;
            out[3 * i + 1] = h2;
            out[3 * i + 2] = as_uint(f);
        }"#;
    let n = 1024usize;
    let mut rng = XorShift::new(35);
    let input = rng.floats(n, -100.0, 100.0);
    let k = gpu.kernel(src, "private_bytes");
    let (din, dout) = (gpu.buffer(&input), gpu.zeroed::<u32>(3 * n));
    k.arg_buffer(0, &din).arg_buffer(1, &dout);
    gpu.run(&k, &[n], None, None);
    let hash = |bytes: &[u8]| {
        bytes
            .iter()
            .fold(0u32, |s, &b| s.wrapping_mul(31).wrapping_add(b as u32))
    };
    let want: Vec<u32> = (0..n)
        .flat_map(|i| {
            let f = input[i];
            let mut pair = (i as i32).to_le_bytes().to_vec();
            pair.extend((-(i as i32)).to_le_bytes());
            [
                hash(&f.to_le_bytes()),
                hash(&pair),
                f.to_bits() ^ 0x8000_0000,
            ]
        })
        .collect();
    assert_same(&gpu.read::<u32>(&dout), &want, "bytes of private variables");
}

#[test]
fn atomics_return_values_compaction_and_cmpxchg() {
    let gpu = Gpu::new();
    let src = r#"
        void atomic_add_float(volatile __global float *p, float v) {
            uint old = as_uint(*p), seen;
            while ((seen = atomic_cmpxchg((volatile __global uint *)p, old, as_uint(as_float(old) + v))) != old)
                old = seen;
        }
        __kernel void compact(__global const int *in, __global int *out, __global uint *count,
                              __global float *fsum, __global int *extremes) {
            int i = get_global_id(0);
            int v = in[i];
            if ((v & 3) == 0) {
                uint slot = atomic_inc(count);
                out[slot] = v;
            }
            atomic_add_float(fsum, (float)(v & 15) * 0.5f);
            atomic_min(&extremes[0], v);
            atomic_max(&extremes[1], v);
            atomic_xchg(&extremes[2], 7);
            atomic_or(&extremes[3], 1 << (v & 31));
        }"#;
    let n = 5000usize;
    let mut rng = XorShift::new(36);
    let input: Vec<i32> = (0..n)
        .map(|_| (rng.next_u32() % 2_000_001) as i32 - 1_000_000)
        .collect();
    let k = gpu.kernel(src, "compact");
    let (din, dout, dcount, dfsum) = (
        gpu.buffer(&input),
        gpu.zeroed::<i32>(n),
        gpu.zeroed::<u32>(1),
        gpu.zeroed::<f32>(1),
    );
    let dext = gpu.buffer(&[i32::MAX, i32::MIN, 0, 0]);
    k.arg_buffer(0, &din)
        .arg_buffer(1, &dout)
        .arg_buffer(2, &dcount)
        .arg_buffer(3, &dfsum)
        .arg_buffer(4, &dext);
    gpu.run(&k, &[n], None, None);
    let mut want: Vec<i32> = input.iter().copied().filter(|v| v & 3 == 0).collect();
    let count = gpu.read::<u32>(&dcount)[0] as usize;
    assert_eq!(count, want.len(), "number of multiples of 4");
    // Slots come from atomic_inc's return value: each taken exactly once,
    // in no particular order.
    let mut got: Vec<i32> = gpu.read::<i32>(&dout)[..count].to_vec();
    got.sort_unstable();
    want.sort_unstable();
    assert_same(&got, &want, "compacted values");
    // Every term is a multiple of 0.5 below 8 and the total stays far below
    // 2^24 * 0.5, so every order of additions gives the exact sum.
    let fsum: f32 = input.iter().map(|v| (v & 15) as f32 * 0.5).sum();
    assert_eq!(
        gpu.read::<f32>(&dfsum)[0],
        fsum,
        "float sum through atomic_cmpxchg"
    );
    let bits = input.iter().fold(0i32, |acc, v| acc | (1 << (v & 31)));
    let ext = gpu.read::<i32>(&dext);
    assert_eq!(
        ext,
        vec![
            *input.iter().min().unwrap(),
            *input.iter().max().unwrap(),
            7,
            bits
        ],
        "atomic_min, atomic_max, atomic_xchg, atomic_or"
    );
}

#[test]
fn async_work_group_copy_into_local() {
    let gpu = Gpu::new();
    let src = r#"
        #define WG 64
        __kernel void window_sum(__global const float *in, __global float *out) {
            __local float tile[WG + 2];
            size_t base = get_group_id(0) * WG;
            event_t e = async_work_group_copy(tile, in + base, WG + 2, 0);
            wait_group_events(1, &e);
            int l = get_local_id(0);
            out[base + l] = tile[l] + tile[l + 1] + tile[l + 2];
        }"#;
    let (groups, wg) = (100usize, 64usize);
    let n = groups * wg;
    let input: Vec<f32> = (0..n + 2).map(|i| (i % 97) as f32).collect();
    let k = gpu.kernel(src, "window_sum");
    let (din, dout) = (gpu.buffer(&input), gpu.zeroed::<f32>(n));
    k.arg_buffer(0, &din).arg_buffer(1, &dout);
    gpu.run(&k, &[n], Some(&[wg]), None);
    let want: Vec<f32> = (0..n)
        .map(|i| input[i] + input[i + 1] + input[i + 2])
        .collect();
    assert_same(&gpu.read::<f32>(&dout), &want, "3-wide window sums");
}

#[test]
fn large_struct_by_value_in_argument_buffer() {
    let gpu = Gpu::new();
    // 40 floats and an int: 164 bytes, more than lavapipe's push constants.
    let src = r#"
        typedef struct { float coeffs[40]; int count; } poly;
        __kernel void eval(poly p, __global const float *x, __global float *y) {
            int i = get_global_id(0);
            float acc = 0.0f;
            for (int k = p.count - 1; k >= 0; --k)
                acc = acc * x[i] + p.coeffs[k];
            y[i] = acc;
        }"#;
    let n = 777usize;
    let count = 37i32;
    let coeffs: Vec<f32> = (0..40)
        .map(|k| {
            if k < count {
                1.0 / (k + 1) as f32
            } else {
                99.0
            }
        })
        .collect();
    let mut arg = Vec::new();
    for c in &coeffs {
        arg.extend(c.to_le_bytes());
    }
    arg.extend(count.to_le_bytes());
    let mut rng = XorShift::new(37);
    let x = rng.floats(n, -1.0, 1.0);
    let k = gpu.kernel(src, "eval");
    let (dx, dy) = (gpu.buffer(&x), gpu.zeroed::<f32>(n));
    k.arg_bytes(0, &arg).arg_buffer(1, &dx).arg_buffer(2, &dy);
    gpu.run(&k, &[n], None, None);
    let want: Vec<f32> = x
        .iter()
        .map(|&xi| {
            (0..count as usize)
                .rev()
                .fold(0f64, |acc, k| acc * xi as f64 + coeffs[k] as f64) as f32
        })
        .collect();
    assert_close(
        &gpu.read::<f32>(&dy),
        &want,
        1e-5,
        1e-5,
        "Horner evaluation",
    );
}

#[test]
fn vector_ternary_and_saturating_conversions() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void vmix(__global const float4 *a, __global const float4 *b,
                           __global int4 *iout, __global float4 *fout) {
            int i = get_global_id(0);
            float4 x = a[i], y = b[i];
            int4 lt = x < y;
            fout[2 * i] = lt ? y : x;
            fout[2 * i + 1] = convert_float4(convert_int4_sat_rte(x * 1000.0f));
            iout[i] = convert_int4_sat_rte(x * 3.0e9f);
        }"#;
    let n = 1000usize;
    let mut rng = XorShift::new(38);
    let gen = |rng: &mut XorShift| -> Vec<[f32; 4]> {
        (0..n)
            .map(|_| [0; 4].map(|_: i32| rng.f32_in(-2.0, 2.0)))
            .collect()
    };
    let (a, b) = (gen(&mut rng), gen(&mut rng));
    let k = gpu.kernel(src, "vmix");
    let (da, db) = (gpu.buffer(&a), gpu.buffer(&b));
    let (di, df) = (gpu.zeroed::<[i32; 4]>(n), gpu.zeroed::<[f32; 4]>(2 * n));
    k.arg_buffer(0, &da)
        .arg_buffer(1, &db)
        .arg_buffer(2, &di)
        .arg_buffer(3, &df);
    gpu.run(&k, &[n], None, None);
    let (gi, gf) = (gpu.read::<[i32; 4]>(&di), gpu.read::<[f32; 4]>(&df));
    let sat_rte = |v: f32| -> i32 {
        let r = v.round_ties_even();
        if r >= 2147483647.0 {
            i32::MAX
        } else if r <= -2147483648.0 {
            i32::MIN
        } else {
            r as i32
        }
    };
    for i in 0..n {
        let (x, y) = (a[i], b[i]);
        assert_eq!(
            gf[2 * i],
            std::array::from_fn(|c| if x[c] < y[c] { y[c] } else { x[c] }),
            "vector ?: at {i}"
        );
        assert_eq!(
            gf[2 * i + 1],
            x.map(|v| sat_rte(v * 1000.0) as f32),
            "round trip at {i}"
        );
        assert_eq!(
            gi[i],
            x.map(|v| sat_rte(v * 3.0e9)),
            "saturating conversion at {i}"
        );
    }
}

#[test]
fn shuffle_and_shuffle2() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void shuffles(__global const float4 *a, __global const float4 *b,
                               __global float4 *fout, __global int4 *iout) {
            int i = get_global_id(0);
            float4 x = a[i], y = b[i];
            fout[i] = shuffle2(x, y, (uint4)(7, 0, 5, 2));
            iout[i] = shuffle(as_int4(x), (uint4)(3, 3, 0, 1 + (i & 1)));
        }"#;
    let n = 300usize;
    let mut rng = XorShift::new(41);
    let gen = |rng: &mut XorShift| -> Vec<[f32; 4]> {
        (0..n)
            .map(|_| [0; 4].map(|_: i32| rng.f32_in(-2.0, 2.0)))
            .collect()
    };
    let (a, b) = (gen(&mut rng), gen(&mut rng));
    let k = gpu.kernel(src, "shuffles");
    let (da, db) = (gpu.buffer(&a), gpu.buffer(&b));
    let (df, di) = (gpu.zeroed::<[f32; 4]>(n), gpu.zeroed::<[i32; 4]>(n));
    k.arg_buffer(0, &da)
        .arg_buffer(1, &db)
        .arg_buffer(2, &df)
        .arg_buffer(3, &di);
    gpu.run(&k, &[n], None, None);
    let (gf, gi) = (gpu.read::<[f32; 4]>(&df), gpu.read::<[i32; 4]>(&di));
    for i in 0..n {
        let (x, y) = (a[i], b[i]);
        let both = [x[0], x[1], x[2], x[3], y[0], y[1], y[2], y[3]];
        let xi = x.map(|v| v.to_bits() as i32);
        assert_eq!(
            gf[i],
            [both[7], both[0], both[5], both[2]],
            "shuffle2 at {i}"
        );
        assert_eq!(
            gi[i],
            [xi[3], xi[3], xi[0], xi[1 + (i & 1)]],
            "shuffle at {i}"
        );
    }
}

#[test]
fn math_builtins_with_pointer_outputs() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void parts(__global const float *in, __global float *out, __global int *iout) {
            int i = get_global_id(0);
            float x = in[i];
            float whole, fl, c;
            int e, q;
            out[6 * i] = fract(x, &fl);
            out[6 * i + 1] = fl;
            out[6 * i + 2] = modf(x, &whole);
            out[6 * i + 3] = whole;
            out[6 * i + 4] = frexp(x, &e);
            out[6 * i + 5] = remquo(x, 0.75f, &q);
            iout[2 * i] = e;
            iout[2 * i + 1] = q & 7;
        }"#;
    let n = 2000usize;
    let mut rng = XorShift::new(39);
    let mut input = rng.floats(n, -50.0, 50.0);
    input[0] = 0.0;
    input[1] = -3.0;
    input[2] = 0.75;
    let k = gpu.kernel(src, "parts");
    let (din, dout, diout) = (
        gpu.buffer(&input),
        gpu.zeroed::<f32>(6 * n),
        gpu.zeroed::<i32>(2 * n),
    );
    k.arg_buffer(0, &din)
        .arg_buffer(1, &dout)
        .arg_buffer(2, &diout);
    gpu.run(&k, &[n], None, None);
    let (got, goti) = (gpu.read::<f32>(&dout), gpu.read::<i32>(&diout));
    for (i, &x) in input.iter().enumerate() {
        let fl = x.floor();
        // fract: min(x - floor(x), 0x1.fffffep-1f).
        let fract = (x - fl).min(f32::from_bits(0x3f7f_ffff));
        let whole = x.trunc();
        let (mant, exp) = if x == 0.0 {
            (0.0, 0)
        } else {
            let e = x.abs().log2().floor() as i32 + 1;
            let m = x / 2f32.powi(e);
            // Correct an off-by-one from log2 rounding.
            if m.abs() >= 1.0 {
                (m / 2.0, e + 1)
            } else if m.abs() < 0.5 {
                (m * 2.0, e - 1)
            } else {
                (m, e)
            }
        };
        // remquo: x - n*y with n the integer nearest x/y (ties to even),
        // computed exactly in f64; the low 3 bits of n with x/y's sign.
        let ratio = x as f64 / 0.75;
        let nq = ratio.round_ties_even();
        let rem = (x as f64 - nq * 0.75) as f32;
        let qbits = ((nq.abs() as i64 & 7) as i32 * if ratio < 0.0 { -1 } else { 1 }) & 7;
        assert_eq!(got[6 * i], fract, "fract({x})");
        assert_eq!(got[6 * i + 1], fl, "fract's floor({x})");
        assert_eq!(got[6 * i + 2], x - whole, "modf({x})");
        assert_eq!(got[6 * i + 3], whole, "modf's integral part({x})");
        assert_eq!((got[6 * i + 4], goti[2 * i]), (mant, exp), "frexp({x})");
        assert_eq!(got[6 * i + 5], rem, "remquo({x}, 0.75)");
        assert_eq!(goti[2 * i + 1], qbits, "remquo's quotient bits for {x}");
    }
}

#[test]
fn unions_enums_and_typedef_arrays() {
    let gpu = Gpu::new();
    let src = r#"
        typedef enum { RED = 1, GREEN = 4, BLUE = GREEN * 2 } colour;
        typedef union { float f; uint u; uchar b[4]; } word;
        typedef int triple[3];
        int weight(colour c) {
            switch (c) {
            case RED: return 10;
            case GREEN: return 20;
            case BLUE: return 30;
            }
            return -1;
        }
        __kernel void unions(__global const float *in, __global uint *out) {
            int i = get_global_id(0);
            word w;
            w.f = in[i];
            triple t = { (int)w.b[0], (int)w.b[3], weight((colour)(1 << (i % 4))) };
            out[4 * i] = w.u;
            out[4 * i + 1] = t[0] + t[1];
            out[4 * i + 2] = t[2];
            out[4 * i + 3] = sizeof(word) + sizeof(triple) + BLUE;
        }"#;
    let n = 512usize;
    let mut rng = XorShift::new(40);
    let input = rng.floats(n, -10.0, 10.0);
    let k = gpu.kernel(src, "unions");
    let (din, dout) = (gpu.buffer(&input), gpu.zeroed::<u32>(4 * n));
    k.arg_buffer(0, &din).arg_buffer(1, &dout);
    gpu.run(&k, &[n], None, None);
    let want: Vec<u32> = input
        .iter()
        .enumerate()
        .flat_map(|(i, f)| {
            let b = f.to_le_bytes();
            let weight = match 1 << (i % 4) {
                1 => 10,
                4 => 20,
                8 => 30,
                _ => -1i32,
            };
            [
                f.to_bits(),
                b[0] as u32 + b[3] as u32,
                weight as u32,
                4 + 12 + 8,
            ]
        })
        .collect();
    assert_same(
        &gpu.read::<u32>(&dout),
        &want,
        "union, enum and array results",
    );
}

/// An enumerator is an `int`; one whose value does not fit keeps the type
/// of its value, as in GCC and clang (hashcat keeps its SHA-512 constants
/// in an enum).
#[test]
fn enumerators_beyond_int_keep_their_type() {
    let gpu = Gpu::new();
    let src = r#"
        typedef enum {
            SMALL = 5, NEXT, BIG = 0x6a09e667f3bcc908UL, AFTER, U32 = 0xd76aa478, NEG = -3
        } consts;
        __kernel void k(__global ulong *out) {
            out[0] = BIG;
            out[1] = AFTER;
            out[2] = (ulong)U32;
            out[3] = (ulong)NEG;
            out[4] = NEXT;
            out[5] = sizeof(BIG);
            out[6] = sizeof(U32) + sizeof(SMALL);
            out[7] = U32 >> 28;
        }"#;
    let k = gpu.kernel(src, "k");
    let out = gpu.zeroed::<u64>(8);
    k.arg_buffer(0, &out);
    gpu.run(&k, &[1], None, None);
    let want = [
        0x6a09_e667_f3bc_c908,
        0x6a09_e667_f3bc_c909,
        0xd76a_a478,
        (-3i64) as u64,
        6,
        8,
        8,
        0xd,
    ];
    assert_same(&gpu.read::<u64>(&out), &want, "enumerators");
}

/// A program with a union or a pointer cast in private memory keeps the
/// variables that may be addressed in the private pool and the others in
/// their own variables (compiler/src/lower/addressed.rs); both kinds, and
/// pointers into the pool, in one kernel.
#[test]
fn pooled_and_unpooled_private_variables_side_by_side() {
    let gpu = Gpu::new();
    let src = r#"
        typedef union { uint4 v; uint w[4]; } quad;
        typedef struct { uint v[4]; } ctr_t;
        uint sum4(const uint *p) { return p[0] + p[1] + p[2] + p[3]; }
        void bump(ctr_t *c) { if (++c->v[0] == 0) ++c->v[1]; }
        __kernel void mixed(__global const uint *in, __global uint *out) {
            int i = get_global_id(0);
            uint x = in[i];
            uint table[4] = { x, x ^ 1u, x + 2u, x * 3u };
            uint passed[4] = { x, 7u, 11u, 13u };
            ctr_t c = {{ x, 0u, 5u, 6u }};
            ctr_t plain = {{ 1u, 2u, 3u, 4u }};
            float f = as_float((x & 0x3fffffffu) | 0x00800000u);
            uint bits = *(uint *)&f;
            quad q;
            q.v = (uint4)(x, x + 1u, x + 2u, x + 3u);
            uint acc = 0;
            for (int k = 0; k < 4; k++) {
                acc += table[(i + k) & 3] * (uint)(k + 1);
                plain.v[k] += acc;
            }
            bump(&c);
            uint *p = passed + 1;
            p[1] += 100u;
            out[8 * i] = acc;
            out[8 * i + 1] = sum4(passed);
            out[8 * i + 2] = c.v[0] + c.v[1];
            out[8 * i + 3] = plain.v[0] ^ plain.v[3];
            out[8 * i + 4] = bits;
            out[8 * i + 5] = q.w[i & 3];
            out[8 * i + 6] = *p;
            out[8 * i + 7] = plain.v[1] + plain.v[2];
        }"#;
    let n = 256usize;
    let mut rng = XorShift::new(41);
    let mut input = rng.u32s(n);
    input[0] = u32::MAX;
    let k = gpu.kernel(src, "mixed");
    let (din, dout) = (gpu.buffer(&input), gpu.zeroed::<u32>(8 * n));
    k.arg_buffer(0, &din).arg_buffer(1, &dout);
    gpu.run(&k, &[n], None, None);
    let want: Vec<u32> = input
        .iter()
        .enumerate()
        .flat_map(|(i, &x)| {
            let table = [x, x ^ 1, x.wrapping_add(2), x.wrapping_mul(3)];
            let mut plain = [1u32, 2, 3, 4];
            let mut acc = 0u32;
            for k in 0..4 {
                acc = acc.wrapping_add(table[(i + k) & 3].wrapping_mul(k as u32 + 1));
                plain[k] = plain[k].wrapping_add(acc);
            }
            let c0 = x.wrapping_add(1);
            let c1 = u32::from(c0 == 0);
            let passed = [x, 7u32, 111, 13];
            [
                acc,
                passed.iter().fold(0u32, |a, &b| a.wrapping_add(b)),
                c0.wrapping_add(c1),
                plain[0] ^ plain[3],
                (x & 0x3fff_ffff) | 0x0080_0000,
                x.wrapping_add((i & 3) as u32),
                7,
                plain[1].wrapping_add(plain[2]),
            ]
        })
        .collect();
    assert_same(
        &gpu.read::<u32>(&dout),
        &want,
        "pooled and unpooled variables",
    );
}

#[test]
fn expression_semantics_side_effects_and_short_circuit() {
    let gpu = Gpu::new();
    let src = r#"
        int bump(int *counter, int v) { (*counter)++; return v; }
        __kernel void exprs(__global const int *in, __global int *out) {
            int i = get_global_id(0);
            int x = in[i];
            int calls = 0;
            int a = (x > 0 && bump(&calls, x % 2)) || bump(&calls, 1);
            int arr[4] = { 1, 2, 3, 4 };
            int j = 0;
            arr[j++] += 10;
            arr[++j] *= 3;
            int k = (j += 2, j * 5);
            int4 v = (int4)(x, x + 1, x + 2, x + 3);
            v.xz += (int2)(100, 200);
            v.w <<= 2;
            int post = x++;
            int pre = ++x;
            out[8 * i] = a;
            out[8 * i + 1] = calls;
            out[8 * i + 2] = arr[0] * 1000 + arr[1] * 100 + arr[2] * 10 + arr[3];
            out[8 * i + 3] = k;
            out[8 * i + 4] = v.x + v.y + v.z + v.w;
            out[8 * i + 5] = post * 10 + pre;
            out[8 * i + 6] = x;
            out[8 * i + 7] = (x & 1) ? x-- : --x;
        }"#;
    let n = 600usize;
    let input: Vec<i32> = (0..n as i32).map(|i| i - 300).collect();
    let k = gpu.kernel(src, "exprs");
    let (din, dout) = (gpu.buffer(&input), gpu.zeroed::<i32>(8 * n));
    k.arg_buffer(0, &din).arg_buffer(1, &dout);
    gpu.run(&k, &[n], None, None);
    let want: Vec<i32> = input
        .iter()
        .flat_map(|&x0| {
            let mut calls = 0;
            let first = x0 > 0 && {
                calls += 1;
                x0 % 2 != 0
            };
            let a = first || {
                calls += 1;
                true
            };
            // arr[0] += 10, then arr[2] *= 3 (j is 2 after ++j), j = 4.
            let arr = [11, 2, 9, 4];
            let k = 4 * 5;
            let v = [x0 + 100, x0 + 1, x0 + 2 + 200, (x0 + 3) << 2];
            let post = x0;
            let pre = x0 + 2;
            let x = x0 + 2;
            let last = if x & 1 != 0 { x } else { x - 1 };
            [
                a as i32,
                calls,
                arr[0] * 1000 + arr[1] * 100 + arr[2] * 10 + arr[3],
                k,
                v.iter().sum(),
                post * 10 + pre,
                x,
                last,
            ]
        })
        .collect();
    assert_same(&gpu.read::<i32>(&dout), &want, "expression results");
}

#[test]
fn kernel_called_as_a_function() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void scale_one(__global float *data, int i, float s) {
            data[i] *= s;
        }
        __kernel void scale_pairs(__global float *data, float s) {
            int i = get_global_id(0);
            scale_one(data, 2 * i, s);
            scale_one(data, 2 * i + 1, -s);
        }"#;
    let n = 500usize;
    let input: Vec<f32> = (0..2 * n).map(|i| i as f32).collect();
    let k = gpu.kernel(src, "scale_pairs");
    let d = gpu.buffer(&input);
    k.arg_buffer(0, &d).arg(1, 1.5f32);
    gpu.run(&k, &[n], None, None);
    let want: Vec<f32> = input
        .iter()
        .enumerate()
        .map(|(i, v)| if i % 2 == 0 { v * 1.5 } else { v * -1.5 })
        .collect();
    assert_same(&gpu.read::<f32>(&d), &want, "pairs scaled");
}

#[test]
fn signed_division_and_remainder_all_sign_combinations() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void divmod(__global const int *x, __global const int *y, __global int *q,
                             __global int *r, __global long *lq, __global long *lr,
                             __global short *sr) {
            int i = get_global_id(0);
            int a = x[i], b = y[i];
            q[i] = a / b;
            r[i] = a % b;
            long la = (long)a * 3000000000L, lb = (long)b;
            lq[i] = la / lb;
            lr[i] = la % lb;
            short sa = (short)a, sb = (short)b;
            sr[i] = sa % sb;
        }"#;
    let mut xs = Vec::new();
    let mut ys = Vec::new();
    for a in -9..=9 {
        for b in (-4..=4).filter(|&b| b != 0) {
            xs.push(a);
            ys.push(b);
        }
    }
    for (a, b) in [
        (i32::MIN, 7),
        (i32::MIN, -7),
        (i32::MAX, -2),
        (-1000001, 1000),
        (1000001, -1000),
    ] {
        xs.push(a);
        ys.push(b);
    }
    let n = xs.len();
    let k = gpu.kernel(src, "divmod");
    let (dx, dy) = (gpu.buffer(&xs), gpu.buffer(&ys));
    let (dq, dr) = (gpu.zeroed::<i32>(n), gpu.zeroed::<i32>(n));
    let (dlq, dlr, dsr) = (
        gpu.zeroed::<i64>(n),
        gpu.zeroed::<i64>(n),
        gpu.zeroed::<i16>(n),
    );
    k.arg_buffer(0, &dx)
        .arg_buffer(1, &dy)
        .arg_buffer(2, &dq)
        .arg_buffer(3, &dr);
    k.arg_buffer(4, &dlq)
        .arg_buffer(5, &dlr)
        .arg_buffer(6, &dsr);
    gpu.run(&k, &[n], None, None);
    let (q, r) = (gpu.read::<i32>(&dq), gpu.read::<i32>(&dr));
    let (lq, lr, sr) = (
        gpu.read::<i64>(&dlq),
        gpu.read::<i64>(&dlr),
        gpu.read::<i16>(&dsr),
    );
    let mut wrong = Vec::new();
    for i in 0..n {
        let (a, b) = (xs[i], ys[i]);
        let la = a as i64 * 3_000_000_000;
        let (sa, sb) = (a as i16, b as i16);
        let want = (
            a / b,
            a % b,
            la / b as i64,
            la % b as i64,
            sa.wrapping_rem(sb),
        );
        let got = (q[i], r[i], lq[i], lr[i], sr[i]);
        if got != want {
            wrong.push(format!(
                "{a} / {b}: got (q, r, lq, lr, sr) = {got:?}, want {want:?}"
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {n} cases wrong (C rounds quotients toward zero; the remainder takes the dividend's sign):\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

#[test]
fn geometric_common_and_relational_builtins() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void geo(__global const float4 *a, __global const float4 *b,
                          __global float *out, __global int *iout) {
            int i = get_global_id(0);
            float4 x = a[i], y = b[i];
            __global float *r = out + 16 * i;
            float4 c = cross(x, y);
            r[0] = c.x;
            r[1] = c.y;
            r[2] = c.z;
            r[3] = dot(x, y);
            r[4] = length(x);
            r[5] = distance(x, y);
            r[6] = normalize(x).y;
            r[7] = step(0.5f, x.x);
            r[8] = smoothstep(-1.0f, 1.0f, x.y);
            r[9] = sign(x.z);
            r[10] = degrees(x.w);
            r[11] = radians(x.w);
            r[12] = copysign(x.x, y.x);
            r[13] = fdim(x.x, y.x);
            r[14] = maxmag(x.y, y.y);
            r[15] = minmag(x.y, y.y);
            __global int *s = iout + 12 * i;
            s[0] = isnan(y.w);
            s[1] = isinf(y.w);
            s[2] = isfinite(y.w);
            s[3] = signbit(y.w);
            s[4] = isequal(x.x, y.x);
            s[5] = isless(x.x, y.x);
            s[6] = isgreater(x.x, y.x);
            int4 nan4 = isnan(y);
            s[7] = nan4.w;
            s[8] = any(isinf(y));
            s[9] = all(isfinite(x));
            s[10] = as_int(bitselect(x.x, y.x, as_float(0xFFFF0000u)));
            s[11] = isunordered(x.x, y.w);
        }"#;
    let n = 1024usize;
    let mut rng = XorShift::new(42);
    let a: Vec<[f32; 4]> = (0..n)
        .map(|_| [0; 4].map(|_: i32| rng.f32_in(-3.0, 3.0)))
        .collect();
    let mut b: Vec<[f32; 4]> = (0..n)
        .map(|_| [0; 4].map(|_: i32| rng.f32_in(-3.0, 3.0)))
        .collect();
    for (i, v) in b.iter_mut().enumerate() {
        v[3] = match i % 6 {
            0 => f32::NAN,
            1 => f32::INFINITY,
            2 => f32::NEG_INFINITY,
            3 => -0.0,
            _ => v[3],
        };
    }
    let k = gpu.kernel(src, "geo");
    let (da, db, dout, diout) = (
        gpu.buffer(&a),
        gpu.buffer(&b),
        gpu.zeroed::<f32>(16 * n),
        gpu.zeroed::<i32>(12 * n),
    );
    k.arg_buffer(0, &da)
        .arg_buffer(1, &db)
        .arg_buffer(2, &dout)
        .arg_buffer(3, &diout);
    gpu.run(&k, &[n], None, None);
    let (got, goti) = (gpu.read::<f32>(&dout), gpu.read::<i32>(&diout));
    let mut want = Vec::with_capacity(16 * n);
    let mut want_i = Vec::with_capacity(12 * n);
    for i in 0..n {
        let (x, y) = (a[i].map(|v| v as f64), b[i]);
        let yd = y.map(|v| v as f64);
        let len = (x.iter().map(|v| v * v).sum::<f64>()).sqrt();
        let dist = (0..4).map(|c| (x[c] - yd[c]).powi(2)).sum::<f64>().sqrt();
        let t = ((x[1] + 1.0) / 2.0).clamp(0.0, 1.0);
        let sign = if x[2] > 0.0 {
            1.0
        } else if x[2] < 0.0 {
            -1.0
        } else {
            0.0
        };
        let (xf, yf) = (a[i], b[i]);
        let maxmag = if xf[1].abs() > yf[1].abs() {
            xf[1]
        } else if yf[1].abs() > xf[1].abs() {
            yf[1]
        } else {
            xf[1].max(yf[1])
        };
        let minmag = if xf[1].abs() < yf[1].abs() {
            xf[1]
        } else if yf[1].abs() < xf[1].abs() {
            yf[1]
        } else {
            xf[1].min(yf[1])
        };
        want.extend([
            (x[1] * yd[2] - x[2] * yd[1]) as f32,
            (x[2] * yd[0] - x[0] * yd[2]) as f32,
            (x[0] * yd[1] - x[1] * yd[0]) as f32,
            (0..4).map(|c| x[c] * yd[c]).sum::<f64>() as f32,
            len as f32,
            dist as f32,
            (x[1] / len) as f32,
            if xf[0] < 0.5 { 0.0 } else { 1.0 },
            (t * t * (3.0 - 2.0 * t)) as f32,
            sign,
            (x[3] * 180.0 / std::f64::consts::PI) as f32,
            (x[3] * std::f64::consts::PI / 180.0) as f32,
            xf[0].copysign(yf[0]),
            if xf[0] > yf[0] { xf[0] - yf[0] } else { 0.0 },
            maxmag,
            minmag,
        ]);
        let w = yf[3];
        let bits = (xf[0].to_bits() & !0xFFFF_0000) | (yf[0].to_bits() & 0xFFFF_0000);
        want_i.extend([
            w.is_nan() as i32,
            w.is_infinite() as i32,
            w.is_finite() as i32,
            w.is_sign_negative() as i32,
            (xf[0] == yf[0]) as i32,
            (xf[0] < yf[0]) as i32,
            (xf[0] > yf[0]) as i32,
            -(w.is_nan() as i32),
            yf.iter().any(|v| v.is_infinite()) as i32,
            xf.iter().all(|v| v.is_finite()) as i32,
            bits as i32,
            (xf[0].is_nan() || w.is_nan()) as i32,
        ]);
    }
    assert_same(&goti, &want_i, "relational results");
    assert_close(&got, &want, 2e-5, 2e-5, "geometric and common results");
}

/// IEEE half bits to f32 (exact).
fn half_to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = ((h >> 10) & 0x1f) as i32;
    let man = (h & 0x3ff) as f32;
    match exp {
        0 => sign * man * 2f32.powi(-24),
        31 if man == 0.0 => sign * f32::INFINITY,
        31 => f32::NAN,
        _ => sign * (1.0 + man / 1024.0) * 2f32.powi(exp - 15),
    }
}

/// f32 to IEEE half bits, rounding to nearest even (vstore_half's default).
fn f32_to_half_rte(v: f32) -> u16 {
    let bits = v.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let exp = ((bits >> 23) & 0xff) as i32;
    let man = bits & 0x7f_ffff;
    if exp == 255 {
        return sign | 0x7c00 | if man != 0 { 0x200 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 31 {
        return sign | 0x7c00;
    }
    let (mant, shift) = if e <= 0 {
        (man | 0x80_0000, 14 - e)
    } else {
        (man, 13)
    };
    if shift > 24 {
        return sign;
    }
    let mut m = mant >> shift;
    let rem = mant & ((1 << shift) - 1);
    let half = 1 << (shift - 1);
    if rem > half || (rem == half && m & 1 == 1) {
        m += 1;
    }
    let base = if e <= 0 { 0 } else { (e as u32) << 10 };
    // A carry out of the mantissa moves into the exponent, as it should.
    sign | (base + m) as u16
}

#[test]
fn vload_half_and_vstore_half() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void halves(__global const half *h, __global float *f, __global half *out) {
            int i = get_global_id(0);
            float x = vload_half(i, h);
            f[i] = x;
            vstore_half(x * 2.0f + 0.5f, i, out);
            vstore_half(x / 3.0f, i, out + get_global_size(0));
        }"#;
    let n = 4096usize;
    let mut rng = XorShift::new(43);
    let input: Vec<u16> = (0..n)
        .map(|_| {
            let r = rng.next_u32();
            // Normal halves up to 2^6 in magnitude, either sign.
            let exp = 1 + (r >> 16) % 21;
            ((r & 0x8000) | (exp << 10) | (r & 0x3ff)) as u16
        })
        .collect();
    let k = gpu.kernel(src, "halves");
    let (dh, df, dout) = (
        gpu.buffer(&input),
        gpu.zeroed::<f32>(n),
        gpu.zeroed::<u16>(2 * n),
    );
    k.arg_buffer(0, &dh).arg_buffer(1, &df).arg_buffer(2, &dout);
    gpu.run(&k, &[n], None, None);
    let floats: Vec<f32> = input.iter().map(|&h| half_to_f32(h)).collect();
    assert_same(&gpu.read::<f32>(&df), &floats, "vload_half");
    let got = gpu.read::<u16>(&dout);
    let want_a: Vec<u16> = floats
        .iter()
        .map(|&x| f32_to_half_rte(x * 2.0 + 0.5))
        .collect();
    assert_same(&got[..n], &want_a, "vstore_half of exact values");
    // x / 3 is rounded twice (the f32 division may be 2.5 ulp off): allow
    // one half ulp either way.
    for (i, &x) in floats.iter().enumerate() {
        let want = f32_to_half_rte(x / 3.0);
        let diff = (got[n + i] as i32 - want as i32).abs();
        assert!(
            diff <= 1,
            "vstore_half({} / 3) = {:#06x}, want {want:#06x}",
            x,
            got[n + i]
        );
    }
}

#[test]
fn build_options_language_versions_and_math_flags() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void opts(__global float *x, __global int *info) {
            int i = get_global_id(0);
            x[i] = x[i] * 2.0f + 1.0f;
            if (i == 0) {
                info[0] = __OPENCL_C_VERSION__;
        #ifdef __FAST_RELAXED_MATH__
                info[1] = 1;
        #else
                info[1] = 0;
        #endif
                info[2] = __OPENCL_VERSION__;
            }
        }"#;
    let n = 256usize;
    let input: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let want: Vec<f32> = input.iter().map(|x| x * 2.0 + 1.0).collect();
    for (options, version, fast) in [
        ("", 120, 0),
        ("-cl-std=CL1.2", 120, 0),
        ("-cl-std=CL3.0", 300, 0),
        ("-cl-fast-relaxed-math", 120, 1),
        (
            "-cl-mad-enable -cl-no-signed-zeros -cl-denorms-are-zero",
            120,
            0,
        ),
        ("-w -Werror -cl-opt-disable", 120, 0),
    ] {
        let program = gpu
            .try_program(src, options)
            .unwrap_or_else(|(status, log)| {
                panic!(
                    "options {options:?}: clBuildProgram {}\n{log}",
                    error_name(status)
                )
            });
        let k = program.kernel("opts");
        let (dx, dinfo) = (gpu.buffer(&input), gpu.zeroed::<i32>(3));
        k.arg_buffer(0, &dx).arg_buffer(1, &dinfo);
        gpu.run(&k, &[n], None, None);
        assert_same(
            &gpu.read::<f32>(&dx),
            &want,
            &format!("results with {options:?}"),
        );
        assert_eq!(
            gpu.read::<i32>(&dinfo),
            vec![version, fast, 300],
            "macros with {options:?}"
        );
    }
    // An option the compiler does not know is the application's error.
    let unknown = gpu.try_program(src, "-cl-no-such-option").map(|_| ());
    assert_eq!(
        unknown.map_err(|(status, _)| status),
        Err(CL_INVALID_BUILD_OPTIONS),
        "an unknown option"
    );
}

#[test]
fn local_atomics_return_slots() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void local_slots(__global const int *in, __global int *out, __global int *counts) {
            __local int next;
            __local int buf[128];
            int l = get_local_id(0);
            if (l == 0)
                next = 0;
            barrier(CLK_LOCAL_MEM_FENCE);
            int v = in[get_global_id(0)];
            if (v & 1) {
                int slot = atomic_add(&next, 1);
                buf[slot] = v;
            }
            barrier(CLK_LOCAL_MEM_FENCE);
            int n = next;
            if (l < n)
                out[get_group_id(0) * 128 + l] = buf[l];
            if (l == 0)
                counts[get_group_id(0)] = n;
        }"#;
    let (groups, wg) = (40usize, 128usize);
    let n = groups * wg;
    let mut rng = XorShift::new(44);
    let input: Vec<i32> = (0..n).map(|_| (rng.next_u32() % 100_000) as i32).collect();
    let k = gpu.kernel(src, "local_slots");
    let (din, dout, dcounts) = (
        gpu.buffer(&input),
        gpu.zeroed::<i32>(n),
        gpu.zeroed::<i32>(groups),
    );
    k.arg_buffer(0, &din)
        .arg_buffer(1, &dout)
        .arg_buffer(2, &dcounts);
    gpu.run(&k, &[n], Some(&[wg]), None);
    let (out, counts) = (gpu.read::<i32>(&dout), gpu.read::<i32>(&dcounts));
    for g in 0..groups {
        let mut want: Vec<i32> = input[g * wg..(g + 1) * wg]
            .iter()
            .copied()
            .filter(|v| v & 1 == 1)
            .collect();
        assert_eq!(counts[g] as usize, want.len(), "odd values in group {g}");
        let mut got = out[g * wg..g * wg + want.len()].to_vec();
        got.sort_unstable();
        want.sort_unstable();
        assert_same(&got, &want, &format!("compacted group {g}"));
    }
}

#[test]
fn large_static_local_array() {
    let gpu = Gpu::new();
    let src = r#"
        #define N 4096
        __kernel void big_local(__global const float *in, __global float *out) {
            __local float big[N];
            int l = get_local_id(0), ls = get_local_size(0);
            for (int k = l; k < N; k += ls)
                big[k] = in[get_group_id(0) * N + k];
            barrier(CLK_LOCAL_MEM_FENCE);
            out[get_global_id(0)] = big[N - 1 - 3 * l] + big[(l * 37) % N];
        }"#;
    // 16 KiB of __local: within the 32 KiB minimum of the full profile.
    let (groups, wg, big) = (8usize, 256usize, 4096usize);
    let input: Vec<f32> = (0..groups * big).map(|i| (i % 1000) as f32).collect();
    let k = gpu.kernel(src, "big_local");
    let (din, dout) = (gpu.buffer(&input), gpu.zeroed::<f32>(groups * wg));
    k.arg_buffer(0, &din).arg_buffer(1, &dout);
    gpu.run(&k, &[groups * wg], Some(&[wg]), None);
    let want: Vec<f32> = (0..groups * wg)
        .map(|gid| {
            let (g, l) = (gid / wg, gid % wg);
            input[g * big + big - 1 - 3 * l] + input[g * big + (l * 37) % big]
        })
        .collect();
    assert_same(
        &gpu.read::<f32>(&dout),
        &want,
        "reads from a 16 KiB local array",
    );
}

#[test]
fn jacobi_iterations_ping_pong_without_host_sync() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void relax(__global const float *u, __global float *v, int n) {
            int i = get_global_id(0);
            if (i == 0 || i == n - 1)
                v[i] = u[i];
            else
                v[i] = 0.5f * u[i] + 0.25f * (u[i - 1] + u[i + 1]);
        }"#;
    let (n, iterations) = (1000usize, 101usize);
    let mut u: Vec<f32> = (0..n)
        .map(|i| if i % 100 == 0 { 64.0 } else { 0.0 })
        .collect();
    let k = gpu.kernel(src, "relax");
    let (da, db) = (gpu.buffer(&u), gpu.zeroed::<f32>(n));
    // Each launch reads what the previous one wrote and overwrites what the
    // one before it read: read-after-write and write-after-read on the
    // same buffers, with arguments swapped between launches.
    for it in 0..iterations {
        let (src_buf, dst_buf) = if it % 2 == 0 { (&da, &db) } else { (&db, &da) };
        k.arg_buffer(0, src_buf)
            .arg_buffer(1, dst_buf)
            .arg(2, n as i32);
        gpu.run(&k, &[n], None, None);
    }
    for _ in 0..iterations {
        let mut v = u.clone();
        for i in 1..n - 1 {
            v[i] = 0.5 * u[i] + 0.25 * (u[i - 1] + u[i + 1]);
        }
        u = v;
    }
    let result = if iterations % 2 == 1 { &db } else { &da };
    assert_close(
        &gpu.read::<f32>(result),
        &u,
        1e-5,
        1e-5,
        "after 101 relaxation steps",
    );
}

#[test]
fn transfers_and_kernels_interleaved_on_one_queue() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void accumulate(__global const int *x, __global int *y) {
            int i = get_global_id(0);
            y[i] = y[i] * 3 + x[i];
        }"#;
    let n = 4096usize;
    let rounds: Vec<Vec<i32>> = (0..4)
        .map(|r| (0..n as i32).map(|i| i * (r + 1) - 7 * r).collect())
        .collect();
    let k = gpu.kernel(src, "accumulate");
    let (dx, dy) = (gpu.zeroed::<i32>(n), gpu.zeroed::<i32>(n));
    k.arg_buffer(0, &dx).arg_buffer(1, &dy);
    // Non-blocking writes into the buffer the previous kernel reads: the
    // in-order queue must not let a write overtake that kernel.
    for data in &rounds {
        // SAFETY: `rounds` outlives the clFinish below, so the host memory
        // stays valid while the non-blocking write may still read it.
        let status = unsafe {
            (gpu.api.clEnqueueWriteBuffer)(
                gpu.queue,
                dx.handle,
                0,
                0,
                n * 4,
                data.as_ptr() as *const std::ffi::c_void,
                0,
                std::ptr::null(),
                std::ptr::null_mut(),
            )
        };
        check(status, "clEnqueueWriteBuffer (non-blocking)");
        gpu.run(&k, &[n], None, None);
    }
    gpu.finish();
    let mut want = vec![0i32; n];
    for data in &rounds {
        for i in 0..n {
            want[i] = want[i] * 3 + data[i];
        }
    }
    assert_same(&gpu.read::<i32>(&dy), &want, "accumulated rounds");
}

#[test]
fn largest_work_group_the_kernel_allows() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void wide_sum(__global const uint *in, __global uint *out, __local uint *scratch) {
            uint l = get_local_id(0);
            scratch[l] = in[get_global_id(0)];
            barrier(CLK_LOCAL_MEM_FENCE);
            for (uint s = get_local_size(0) / 2; s > 0; s >>= 1) {
                if (l < s)
                    scratch[l] += scratch[l + s];
                barrier(CLK_LOCAL_MEM_FENCE);
            }
            if (l == 0)
                out[get_group_id(0)] = scratch[0];
        }"#;
    let k = gpu.kernel(src, "wide_sum");
    // The largest power of two within CL_KERNEL_WORK_GROUP_SIZE.
    let max = k.work_group_size();
    assert!(max >= 1, "CL_KERNEL_WORK_GROUP_SIZE is 0");
    let wg = 1usize << (usize::BITS - 1 - max.leading_zeros());
    let groups = 6usize;
    let input: Vec<u32> = (0..(groups * wg) as u32).map(|i| i % 1009).collect();
    let (din, dout) = (gpu.buffer(&input), gpu.zeroed::<u32>(groups));
    k.arg_buffer(0, &din)
        .arg_buffer(1, &dout)
        .arg_local(2, wg * 4);
    gpu.run(&k, &[groups * wg], Some(&[wg]), None);
    let want: Vec<u32> = input.chunks(wg).map(|c| c.iter().sum()).collect();
    assert_same(
        &gpu.read::<u32>(&dout),
        &want,
        &format!("sums over work-groups of {wg}"),
    );
}

#[test]
fn single_work_item_launches() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void one(__global uint *out) {
            out[0] = get_global_size(0) * 100 + get_global_size(1) * 10 + get_global_size(2);
            out[1] = get_local_size(0) + get_local_size(1) + get_local_size(2);
            out[2] = get_work_dim();
            out[3] += 1;
        }"#;
    let k = gpu.kernel(src, "one");
    let out = gpu.zeroed::<u32>(4);
    k.arg_buffer(0, &out);
    gpu.run(&k, &[1], None, None);
    gpu.run(&k, &[1, 1, 1], Some(&[1, 1, 1]), None);
    assert_same(
        &gpu.read::<u32>(&out),
        &[111, 3, 3, 2],
        "values of the 3-D launch after two launches",
    );
}

#[test]
fn global_ids_beyond_32_bits() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void ids(__global ulong *out) {
            size_t g = get_global_id(0);
            out[g - get_global_offset(0)] = g;
        }"#;
    // size_t is 64 bits on this device (CL_DEVICE_ADDRESS_BITS), so ids
    // past 2^32 are valid and must not wrap.
    let (offset, n) = ((1usize << 32) - 500, 1000usize);
    let k = gpu.kernel(src, "ids");
    let out = gpu.zeroed::<u64>(n);
    k.arg_buffer(0, &out);
    gpu.run(&k, &[n], None, Some(&[offset]));
    let want: Vec<u64> = (0..n).map(|i| (offset + i) as u64).collect();
    assert_same(&gpu.read::<u64>(&out), &want, "global ids around 2^32");
}

// ---------------------------------------------------------------------------
// Applications
// ---------------------------------------------------------------------------

#[test]
fn rgba_pixels_grayscale_and_brighten() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void pixels(__global const uchar4 *in, __global uchar *gray, __global uchar4 *bright,
                             int boost) {
            int i = get_global_id(0);
            uchar4 p = in[i];
            uint4 w = convert_uint4(p) * (uint4)(77, 150, 29, 0);
            gray[i] = (uchar)((w.x + w.y + w.z + 128) >> 8);
            int4 b = convert_int4(p) + (int4)(boost, boost, boost, 0);
            bright[i] = convert_uchar4_sat(b);
        }"#;
    let n = 640 * 48usize;
    let mut rng = XorShift::new(45);
    let img: Vec<[u8; 4]> = (0..n).map(|_| rng.next_u32().to_le_bytes()).collect();
    let k = gpu.kernel(src, "pixels");
    let (din, dgray, dbright) = (
        gpu.buffer(&img),
        gpu.zeroed::<u8>(n),
        gpu.zeroed::<[u8; 4]>(n),
    );
    k.arg_buffer(0, &din)
        .arg_buffer(1, &dgray)
        .arg_buffer(2, &dbright)
        .arg(3, 60i32);
    gpu.run(&k, &[n], None, None);
    let want_gray: Vec<u8> = img
        .iter()
        .map(|p| ((77 * p[0] as u32 + 150 * p[1] as u32 + 29 * p[2] as u32 + 128) >> 8) as u8)
        .collect();
    let want_bright: Vec<[u8; 4]> = img
        .iter()
        .map(|p| {
            [
                p[0].saturating_add(60),
                p[1].saturating_add(60),
                p[2].saturating_add(60),
                p[3],
            ]
        })
        .collect();
    assert_same(&gpu.read::<u8>(&dgray), &want_gray, "grayscale");
    assert_same(&gpu.read::<[u8; 4]>(&dbright), &want_bright, "brightened");
}

#[test]
fn sparse_matrix_vector_multiply_csr() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void spmv(int rows, __global const int *row_start, __global const int *cols,
                           __global const float *vals, __global const float *x, __global float *y) {
            int r = get_global_id(0);
            if (r >= rows)
                return;
            float acc = 0.0f;
            for (int j = row_start[r]; j < row_start[r + 1]; ++j)
                acc += vals[j] * x[cols[j]];
            y[r] = acc;
        }"#;
    let (rows, ncols) = (2000usize, 1500usize);
    let mut rng = XorShift::new(46);
    let mut row_start = vec![0i32];
    let (mut cols, mut vals) = (Vec::new(), Vec::new());
    for _ in 0..rows {
        for _ in 0..rng.next_u32() % 21 {
            cols.push((rng.next_u32() % ncols as u32) as i32);
            vals.push(rng.f32_in(-1.0, 1.0));
        }
        row_start.push(cols.len() as i32);
    }
    let x = rng.floats(ncols, -2.0, 2.0);
    let k = gpu.kernel(src, "spmv");
    let (drs, dcols, dvals, dx, dy) = (
        gpu.buffer(&row_start),
        gpu.buffer(&cols),
        gpu.buffer(&vals),
        gpu.buffer(&x),
        gpu.zeroed::<f32>(rows),
    );
    k.arg(0, rows as i32)
        .arg_buffer(1, &drs)
        .arg_buffer(2, &dcols)
        .arg_buffer(3, &dvals);
    k.arg_buffer(4, &dx).arg_buffer(5, &dy);
    gpu.run(&k, &[round_up(rows, 64)], Some(&[64]), None);
    let want: Vec<f32> = (0..rows)
        .map(|r| {
            (row_start[r]..row_start[r + 1])
                .map(|j| vals[j as usize] as f64 * x[cols[j as usize] as usize] as f64)
                .sum::<f64>() as f32
        })
        .collect();
    assert_close(&gpu.read::<f32>(&dy), &want, 1e-5, 1e-5, "y = A x");
}

#[test]
fn black_scholes_options() {
    let gpu = Gpu::new();
    let src = r#"
        float cnd(float d) {
            const float A1 = 0.31938153f, A2 = -0.356563782f, A3 = 1.781477937f;
            const float A4 = -1.821255978f, A5 = 1.330274429f;
            const float RSQRT2PI = 0.39894228040143267794f;
            float k = 1.0f / (1.0f + 0.2316419f * fabs(d));
            float c = RSQRT2PI * exp(-0.5f * d * d) * (k * (A1 + k * (A2 + k * (A3 + k * (A4 + k * A5)))));
            return d > 0.0f ? 1.0f - c : c;
        }
        __kernel void black_scholes(__global const float *S, __global const float *X,
                                    __global const float *T, __global float *call,
                                    __global float *put, float R, float V) {
            int i = get_global_id(0);
            float s = S[i], x = X[i], t = T[i];
            float sqrt_t = sqrt(t);
            float d1 = (log(s / x) + (R + 0.5f * V * V) * t) / (V * sqrt_t);
            float d2 = d1 - V * sqrt_t;
            float e = exp(-R * t);
            call[i] = s * cnd(d1) - x * e * cnd(d2);
            put[i] = x * e * (1.0f - cnd(d2)) - s * (1.0f - cnd(d1));
        }"#;
    let n = 4000usize;
    let (r, v) = (0.02f32, 0.30f32);
    let mut rng = XorShift::new(47);
    let s = rng.floats(n, 5.0, 30.0);
    let x = rng.floats(n, 1.0, 100.0);
    let t = rng.floats(n, 0.25, 10.0);
    let k = gpu.kernel(src, "black_scholes");
    let (ds, dx, dt) = (gpu.buffer(&s), gpu.buffer(&x), gpu.buffer(&t));
    let (dcall, dput) = (gpu.zeroed::<f32>(n), gpu.zeroed::<f32>(n));
    k.arg_buffer(0, &ds)
        .arg_buffer(1, &dx)
        .arg_buffer(2, &dt)
        .arg_buffer(3, &dcall)
        .arg_buffer(4, &dput);
    k.arg(5, r).arg(6, v);
    gpu.run(&k, &[n], None, None);
    let cnd = |d: f64| {
        let k = 1.0 / (1.0 + 0.2316419 * d.abs());
        let poly = k
            * (0.31938153
                + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 + k * 1.330274429))));
        let c = 0.398_942_280_401_432_7 * (-0.5 * d * d).exp() * poly;
        if d > 0.0 {
            1.0 - c
        } else {
            c
        }
    };
    let (mut want_call, mut want_put) = (Vec::new(), Vec::new());
    for i in 0..n {
        let (s, x, t, r, v) = (s[i] as f64, x[i] as f64, t[i] as f64, r as f64, v as f64);
        let d1 = ((s / x).ln() + (r + 0.5 * v * v) * t) / (v * t.sqrt());
        let d2 = d1 - v * t.sqrt();
        let e = (-r * t).exp();
        want_call.push((s * cnd(d1) - x * e * cnd(d2)) as f32);
        want_put.push((x * e * (1.0 - cnd(d2)) - s * (1.0 - cnd(d1))) as f32);
    }
    // Prices up to ~100 from differences of terms up to ~100: a few f32
    // ulps of the terms.
    assert_close(
        &gpu.read::<f32>(&dcall),
        &want_call,
        1e-4,
        1e-4,
        "call prices",
    );
    assert_close(&gpu.read::<f32>(&dput), &want_put, 1e-4, 1e-4, "put prices");
}

#[test]
fn monte_carlo_quarter_circle_with_in_kernel_rng() {
    let gpu = Gpu::new();
    let src = r#"
        uint next(uint *state) {
            uint x = *state;
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            *state = x;
            return x;
        }
        __kernel void darts(__global uint *hits, __global uint *per_item, int samples) {
            uint state = get_global_id(0) * 2654435761u + 1u;
            uint inside = 0;
            for (int s = 0; s < samples; ++s) {
                ulong x = next(&state) >> 16, y = next(&state) >> 16;
                if (x * x + y * y <= 65535ul * 65535ul)
                    inside++;
            }
            per_item[get_global_id(0)] = inside;
            atomic_add(hits, inside);
        }"#;
    let (n, samples) = (4096usize, 256i32);
    let k = gpu.kernel(src, "darts");
    let (dhits, dper) = (gpu.zeroed::<u32>(1), gpu.zeroed::<u32>(n));
    k.arg_buffer(0, &dhits).arg_buffer(1, &dper).arg(2, samples);
    gpu.run(&k, &[n], None, None);
    let per: Vec<u32> = (0..n as u32)
        .map(|g| {
            let mut state = g.wrapping_mul(2_654_435_761).wrapping_add(1);
            let mut next = || {
                state ^= state << 13;
                state ^= state >> 17;
                state ^= state << 5;
                state
            };
            (0..samples)
                .filter(|_| {
                    let (x, y) = ((next() >> 16) as u64, (next() >> 16) as u64);
                    x * x + y * y <= 65535 * 65535
                })
                .count() as u32
        })
        .collect();
    assert_same(&gpu.read::<u32>(&dper), &per, "hits per work-item");
    let total: u32 = per.iter().sum();
    assert_eq!(gpu.read::<u32>(&dhits)[0], total, "total hits");
    let pi = 4.0 * total as f64 / (n as f64 * samples as f64);
    assert!((pi - std::f64::consts::PI).abs() < 0.01, "estimate {pi}");
}

#[test]
fn softmax_rows_with_work_group_reductions() {
    let gpu = Gpu::new();
    let src = r#"
        #define WG 128
        __kernel void softmax(__global const float *in, __global float *out, int cols) {
            __local float scratch[WG];
            int row = get_group_id(0), l = get_local_id(0);
            __global const float *x = in + row * cols;
            float m = -INFINITY;
            for (int c = l; c < cols; c += WG)
                m = fmax(m, x[c]);
            scratch[l] = m;
            barrier(CLK_LOCAL_MEM_FENCE);
            for (int s = WG / 2; s > 0; s >>= 1) {
                if (l < s)
                    scratch[l] = fmax(scratch[l], scratch[l + s]);
                barrier(CLK_LOCAL_MEM_FENCE);
            }
            m = scratch[0];
            barrier(CLK_LOCAL_MEM_FENCE);
            float sum = 0.0f;
            for (int c = l; c < cols; c += WG)
                sum += exp(x[c] - m);
            scratch[l] = sum;
            barrier(CLK_LOCAL_MEM_FENCE);
            for (int s = WG / 2; s > 0; s >>= 1) {
                if (l < s)
                    scratch[l] += scratch[l + s];
                barrier(CLK_LOCAL_MEM_FENCE);
            }
            float total = scratch[0];
            for (int c = l; c < cols; c += WG)
                out[row * cols + c] = exp(x[c] - m) / total;
        }"#;
    let (rows, cols) = (100usize, 300usize);
    let mut rng = XorShift::new(48);
    let input = rng.floats(rows * cols, -20.0, 20.0);
    let k = gpu.kernel(src, "softmax");
    let (din, dout) = (gpu.buffer(&input), gpu.zeroed::<f32>(rows * cols));
    k.arg_buffer(0, &din)
        .arg_buffer(1, &dout)
        .arg(2, cols as i32);
    gpu.run(&k, &[rows * 128], Some(&[128]), None);
    let mut want = Vec::with_capacity(rows * cols);
    for row in input.chunks(cols) {
        let m = row.iter().fold(f64::NEG_INFINITY, |m, &v| m.max(v as f64));
        let total: f64 = row.iter().map(|&v| (v as f64 - m).exp()).sum();
        want.extend(row.iter().map(|&v| ((v as f64 - m).exp() / total) as f32));
    }
    assert_close(&gpu.read::<f32>(&dout), &want, 1e-7, 1e-5, "softmax");
}

// ---------------------------------------------------------------------------
// Vector typing corners and integer built-ins the conformance suite checks
// ---------------------------------------------------------------------------

#[test]
fn vec_step_cast_literals_and_three_vector_hi_lo() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void corners(__global const int *in, __global int *out) {
            int x = in[0];
            int3 v = (int3)(in[1], in[2], in[3]);
            char2 c = (char2)(char)x;
            float4 f = (float4)((float)x, 1.0f, 2, 3);
            out[0] = vec_step(int3);
            out[1] = vec_step(v);
            out[2] = vec_step(float16);
            out[3] = c.x + c.y;
            out[4] = (int)(f.x + f.y + f.z + f.w);
            out[5] = v.lo.x; out[6] = v.lo.y;
            out[7] = v.hi.x;
            out[8] = v.even.x; out[9] = v.even.y;
            out[10] = v.odd.x;
            v.hi = (int2)(40, 41);
            out[11] = v.x; out[12] = v.y; out[13] = v.z;
        }"#;
    let k = gpu.kernel(src, "corners");
    let (din, dout) = (gpu.buffer(&[9i32, 10, 20, 30]), gpu.zeroed::<i32>(14));
    k.arg_buffer(0, &din).arg_buffer(1, &dout);
    gpu.run(&k, &[1], None, None);
    let got = gpu.read::<i32>(&dout);
    assert_eq!(&got[..3], &[4, 4, 16], "vec_step");
    assert_eq!(got[3], 18, "(char2)(char)x");
    assert_eq!(got[4], 15, "(float4)((float)x, ...)");
    assert_eq!(&got[5..11], &[10, 20, 30, 10, 30, 20], ".lo .hi .even .odd");
    assert_eq!(&got[11..14], &[10, 20, 40], "store to .hi of a 3-vector");
}

#[test]
fn wide_mul_hi_and_64_bit_mad_sat() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void hi_sat(__global const long8 *a, __global const long8 *b,
                             __global const long8 *c, __global long8 *out) {
            size_t i = get_global_id(0);
            long8 x = a[i], y = b[i], z = c[i];
            out[4 * i] = mul_hi(x, y);
            out[4 * i + 1] = mad_hi(x, y, z);
            out[4 * i + 2] = mad_sat(x, y, z);
            out[4 * i + 3] = as_long8(mad_sat(as_ulong8(x), as_ulong8(y), as_ulong8(z)));
        }"#;
    let n = 64usize;
    let mut rng = XorShift::new(91);
    let gen = |rng: &mut XorShift| -> Vec<[i64; 8]> {
        (0..n)
            .map(|_| {
                [0; 8].map(|_: i64| {
                    let v = ((rng.next_u32() as u64) << 32 | rng.next_u32() as u64) as i64;
                    // Small values too, so that some results do not saturate.
                    match rng.next_u32() % 3 {
                        0 => v,
                        1 => v >> 33,
                        _ => v >> 50,
                    }
                })
            })
            .collect()
    };
    let (a, b, c) = (gen(&mut rng), gen(&mut rng), gen(&mut rng));
    let k = gpu.kernel(src, "hi_sat");
    let (da, db, dc, dout) = (
        gpu.buffer(&a),
        gpu.buffer(&b),
        gpu.buffer(&c),
        gpu.zeroed::<[i64; 8]>(4 * n),
    );
    k.arg_buffer(0, &da)
        .arg_buffer(1, &db)
        .arg_buffer(2, &dc)
        .arg_buffer(3, &dout);
    gpu.run(&k, &[n], None, None);
    let got = gpu.read::<[i64; 8]>(&dout);
    for i in 0..n {
        for j in 0..8 {
            let (x, y, z) = (a[i][j], b[i][j], c[i][j]);
            let hi = ((x as i128 * y as i128) >> 64) as i64;
            let sat = (x as i128 * y as i128 + z as i128).clamp(i64::MIN as i128, i64::MAX as i128)
                as i64;
            let (ux, uy, uz) = (x as u64 as u128, y as u64 as u128, z as u64 as u128);
            let usat = ux
                .checked_mul(uy)
                .and_then(|p| p.checked_add(uz))
                .map_or(u64::MAX, |r| r.min(u64::MAX as u128) as u64);
            assert_eq!(got[4 * i][j], hi, "mul_hi({x}, {y})");
            assert_eq!(
                got[4 * i + 1][j],
                hi.wrapping_add(z),
                "mad_hi({x}, {y}, {z})"
            );
            assert_eq!(got[4 * i + 2][j], sat, "mad_sat({x}, {y}, {z})");
            assert_eq!(
                got[4 * i + 3][j] as u64,
                usat,
                "ulong mad_sat({x}, {y}, {z})"
            );
        }
    }
}

#[test]
fn asinpi_acospi_within_opencl_precision() {
    let gpu = Gpu::new();
    let src = r#"
        __kernel void pi_trig(__global const float *in, __global float *out) {
            size_t i = get_global_id(0);
            out[2 * i] = asinpi(in[i]);
            out[2 * i + 1] = acospi(in[i]);
        }"#;
    let mut rng = XorShift::new(5);
    let mut input = rng.floats(4000, -1.0, 1.0);
    input.extend([
        0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1e-30, -1e-38, 0.99999994, 1.5,
    ]);
    let k = gpu.kernel(src, "pi_trig");
    let (din, dout) = (gpu.buffer(&input), gpu.zeroed::<f32>(2 * input.len()));
    k.arg_buffer(0, &din).arg_buffer(1, &dout);
    gpu.run(&k, &[input.len()], None, None);
    let got = gpu.read::<f32>(&dout);
    let pi = std::f64::consts::PI;
    // A device without CL_FP_DENORM may flush a denormal input to zero.
    let flushes = gpu.device_info::<u64>(ferrocl_runtime::cl::CL_DEVICE_SINGLE_FP_CONFIG)
        & ferrocl_runtime::cl::CL_FP_DENORM
        == 0;
    for (i, &x) in input.iter().enumerate() {
        let x64 = x as f64;
        let flushed = (if x.is_sign_negative() { -0.0f64 } else { 0.0 }).asin() / pi;
        for (g, want, name) in [
            (got[2 * i], x64.asin() / pi, "asinpi"),
            (got[2 * i + 1], x64.acos() / pi, "acospi"),
        ] {
            let e = if flushes && x.is_subnormal() && name == "asinpi" {
                ulp_error(g, want).min(ulp_error(g, flushed))
            } else {
                ulp_error(g, want)
            };
            assert!(e <= 5.0, "{name}({x:e}) = {g:e}, want {want:e} ({e} ulp)");
        }
    }
}

/// |got - want| in units in the last place of `want`, for doubles.
fn ulp_error_f64(got: f64, want: f64) -> f64 {
    if got == want || (got.is_nan() && want.is_nan()) {
        return 0.0;
    }
    let exponent = ((want.abs().to_bits() >> 52) & 0x7ff).max(1) as i32;
    let ulp = 2f64.powi(exponent - 1023 - 52);
    (got - want).abs() / ulp
}

#[test]
fn double_degrees_radians_and_pi_scaled_inverse_trig() {
    let gpu = Gpu::new();
    if !gpu
        .device_string(CL_DEVICE_EXTENSIONS)
        .split_whitespace()
        .any(|e| e == "cl_khr_fp64")
    {
        eprintln!("skipped: the device does not offer cl_khr_fp64");
        return;
    }
    let src = r#"
        #pragma OPENCL EXTENSION cl_khr_fp64 : enable
        __kernel void dtrig(__global const double2 *in, __global double *out) {
            size_t i = get_global_id(0);
            double x = in[i].x, y = in[i].y;
            out[6 * i] = degrees(x);
            out[6 * i + 1] = radians(y);
            out[6 * i + 2] = asinpi(x);
            out[6 * i + 3] = acospi(x);
            out[6 * i + 4] = atanpi(y);
            out[6 * i + 5] = atan2pi(y, x);
        }"#;
    let mut rng = XorShift::new(77);
    let mut input: Vec<[f64; 2]> = (0..2000)
        .map(|_| {
            let x = rng.f32_in(-1.0, 1.0) as f64 + rng.f32_in(0.0, 1.0) as f64 * 1e-9;
            [x.clamp(-1.0, 1.0), rng.f32_in(-1e4, 1e4) as f64]
        })
        .collect();
    input.extend([
        [0.0, 0.0],
        [1.0, -0.0],
        [-1.0, 1e300],
        [0.5, -3.0],
        [1e-300, 2.0],
    ]);
    let k = gpu.kernel(src, "dtrig");
    let (din, dout) = (gpu.buffer(&input), gpu.zeroed::<f64>(6 * input.len()));
    k.arg_buffer(0, &din).arg_buffer(1, &dout);
    gpu.run(&k, &[input.len()], None, None);
    let got = gpu.read::<f64>(&dout);
    let pi = std::f64::consts::PI;
    for (i, &[x, y]) in input.iter().enumerate() {
        // The OpenCL bounds, plus 1.5 ulp for the host reference, which
        // rounds twice (the libm result, then the division by pi).
        for (g, want, bound, name) in [
            (got[6 * i], x.to_degrees(), 2.0, "degrees"),
            (got[6 * i + 1], y.to_radians(), 2.0, "radians"),
            (got[6 * i + 2], x.asin() / pi, 6.5, "asinpi"),
            (got[6 * i + 3], x.acos() / pi, 6.5, "acospi"),
            (got[6 * i + 4], y.atan() / pi, 6.5, "atanpi"),
            (got[6 * i + 5], y.atan2(x) / pi, 7.5, "atan2pi"),
        ] {
            let e = ulp_error_f64(g, want);
            assert!(
                e <= bound,
                "{name}({x:e}, {y:e}) = {g:e}, want {want:e} ({e} ulp)"
            );
        }
    }
}

#[test]
fn local_private_constant_pointers_as_integers_and_vector_conditions() {
    let gpu = Gpu::new();
    let src = r#"
        __constant int table[4] = { 1, 2, 3, 4 };
        __kernel void addr(__global ulong *o, __global int4 *v) {
            __local char c[3];
            __local short4 s4[2];
            __private char pc[3];
            __private int4 pi[2];
            c[0] = 1; s4[0] = (short4)(1); pc[0] = 2; pi[0] = (int4)(3);
            o[0] = (ulong)&s4[1] - (ulong)&s4[0];
            o[1] = (ulong)&pi[1] % 16;
            o[2] = (ulong)&s4[0] % 8;
            o[3] = (uintptr_t)&pc[0] < (uintptr_t)&pc[2];
            o[4] = (ulong)&table[3] - (ulong)&table[1];
            o[5] = (ulong)&c[0] != (ulong)&pc[0];
            o[6] = c[0] + s4[0].x + pc[0] + pi[0].x;
            int4 x = v[0];
            v[1] = x > 2 ? 100 : -1;
            v[2] = x > 2 ? x : 9;
        }"#;
    let k = gpu.kernel(src, "addr");
    let (dout, dv) = (
        gpu.zeroed::<u64>(7),
        gpu.buffer(&[[1i32, 2, 3, 4], [0; 4], [0; 4]]),
    );
    k.arg_buffer(0, &dout).arg_buffer(1, &dv);
    gpu.run(&k, &[1], None, None);
    assert_eq!(gpu.read::<u64>(&dout), [8, 0, 0, 1, 8, 1, 7]);
    let v = gpu.read::<[i32; 4]>(&dv);
    assert_eq!(v[1], [-1, -1, 100, 100], "vector condition, scalar arms");
    assert_eq!(v[2], [9, 9, 3, 4], "vector condition, one scalar arm");
}

#[test]
fn helper_declared_before_and_defined_after_the_kernel() {
    let gpu = Gpu::new();
    let src = r#"
        float blend(float a, float b, float t);
        int steps(int);
        __kernel void lerp(__global const float *a, __global const float *b,
                           __global float *o, __global int *n) {
            size_t i = get_global_id(0);
            o[i] = blend(a[i], b[i], 0.25f);
            n[i] = steps((int)i);
        }
        float blend(float a, float b, float t) { return a + (b - a) * t; }
        int steps(int v) { return v * v + 1; }"#;
    let k = gpu.kernel(src, "lerp");
    let a: Vec<f32> = (0..16).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..16).map(|i| 100.0 + 4.0 * i as f32).collect();
    let (da, db) = (gpu.buffer(&a), gpu.buffer(&b));
    let (dout, dn) = (gpu.zeroed::<f32>(16), gpu.zeroed::<i32>(16));
    k.arg_buffer(0, &da)
        .arg_buffer(1, &db)
        .arg_buffer(2, &dout)
        .arg_buffer(3, &dn);
    gpu.run(&k, &[16], None, None);
    let want: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + (y - x) * 0.25).collect();
    assert_eq!(gpu.read::<f32>(&dout), want);
    let want_n: Vec<i32> = (0..16).map(|v| v * v + 1).collect();
    assert_eq!(gpu.read::<i32>(&dn), want_n);
}

/// Library math on 8 and 16 components runs in a loop over the
/// components (one inlined body); it must give, bit for bit, what the
/// same function gives one component at a time, including for a function
/// of a vector and an int vector (`ldexp`) and one with a pointer result
/// (`lgamma_r`).
#[test]
fn wide_library_math_matches_scalar_math() {
    let gpu = Gpu::new();
    let src = r#"
        float f(float x, int e, float y, int *sign) {
            return lgamma_r(x, sign) + pow(fabs(x), y) + sin(x) + ldexp(y, e);
        }
        __kernel void scalar(__global const float *x, __global const int *e,
                             __global const float *y, __global float *out,
                             __global int *sign) {
            size_t i = get_global_id(0);
            int s;
            out[i] = f(x[i], e[i], y[i], &s);
            sign[i] = s;
        }"#;
    let wide = |n: usize| {
        format!(
            "__kernel void wide{n}(__global const float{n} *x, __global const int{n} *e,
                                   __global const float{n} *y, __global float{n} *out,
                                   __global int{n} *sign) {{
                size_t i = get_global_id(0);
                int{n} s;
                out[i] = lgamma_r(x[i], &s) + pow(fabs(x[i]), y[i]) + sin(x[i])
                         + ldexp(y[i], e[i]);
                sign[i] = s;
            }}"
        )
    };
    let src = format!("{src}\n{}\n{}", wide(8), wide(16));
    let n = 256usize;
    let mut rng = XorShift::new(29);
    let x = rng.floats(n, -20.0, 20.0);
    let y = rng.floats(n, -3.0, 3.0);
    let e: Vec<i32> = rng.i32s(n).iter().map(|v| v % 20).collect();
    let (dx, dy, de) = (gpu.buffer(&x), gpu.buffer(&y), gpu.buffer(&e));
    let run = |name: &str, width: usize| {
        let k = gpu.kernel(&src, name);
        let (out, sign) = (gpu.zeroed::<f32>(n), gpu.zeroed::<i32>(n));
        k.arg_buffer(0, &dx)
            .arg_buffer(1, &de)
            .arg_buffer(2, &dy)
            .arg_buffer(3, &out)
            .arg_buffer(4, &sign);
        gpu.run(&k, &[n / width], None, None);
        let bits: Vec<u32> = gpu.read::<f32>(&out).iter().map(|v| v.to_bits()).collect();
        (bits, gpu.read::<i32>(&sign))
    };
    let want = run("scalar", 1);
    assert_same(&run("wide8", 8).0, &want.0, "float8 results");
    assert_same(&run("wide8", 8).1, &want.1, "int8 signs");
    assert_same(&run("wide16", 16).0, &want.0, "float16 results");
    assert_same(&run("wide16", 16).1, &want.1, "int16 signs");
}

#[test]
fn branch_hints_keep_values_and_assumptions_run_nothing() {
    let gpu = Gpu::new();
    let src = r#"
        #if __has_builtin(__builtin_expect)
        #define likely(x) __builtin_expect(!!(x), 1)
        #else
        #error no __builtin_expect
        #endif
        __kernel void k(__global int *p) {
            int i = get_global_id(0);
            int v = p[3 * i];
            // The condition is a hint and is not evaluated: p[3i + 1]
            // keeps its value.
            __builtin_assume(p[3 * i + 1]++ >= 0);
            p[3 * i + 2] = likely(v > 3) ? (int)__builtin_expect(v, 0) * 2 : -1;
        }"#;
    let k = gpu.kernel(src, "k");
    let n = 64usize;
    let data: Vec<i32> = (0..3 * n as i32).map(|x| x % 11).collect();
    let d = gpu.buffer(&data);
    k.arg_buffer(0, &d);
    gpu.run(&k, &[n], None, None);
    let want: Vec<i32> = (0..3 * n)
        .map(|j| match j % 3 {
            2 => {
                let v = data[j - 2];
                if v > 3 {
                    v * 2
                } else {
                    -1
                }
            }
            _ => data[j],
        })
        .collect();
    assert_same(&gpu.read::<i32>(&d), &want, "hinted results");
}

#[test]
fn kernel_clocks_advance_for_each_work_item() {
    use ferrocl_runtime::cl::*;
    let gpu = Gpu::new();
    let extensions = gpu.device_string(CL_DEVICE_EXTENSIONS);
    let caps = if extensions.split(' ').any(|e| e == "cl_khr_kernel_clock") {
        gpu.device_info::<cl_bitfield>(CL_DEVICE_KERNEL_CLOCK_CAPABILITIES_KHR)
    } else {
        0
    };
    // Vulkan has no work-group clock.
    assert_eq!(caps & CL_DEVICE_KERNEL_CLOCK_SCOPE_WORK_GROUP_KHR, 0);
    for (bit, scope) in [
        (CL_DEVICE_KERNEL_CLOCK_SCOPE_DEVICE_KHR, "device"),
        (CL_DEVICE_KERNEL_CLOCK_SCOPE_SUB_GROUP_KHR, "sub_group"),
    ] {
        let src = format!(
            r#"__kernel void k(__global ulong *t, __global uint *spin) {{
                size_t i = get_global_id(0);
                uint2 a = clock_read_hilo_{scope}();
                ulong b = clock_read_{scope}();
                uint x = spin[i];
                for (uint j = 0; j < 2000u; ++j)
                    x = x * 1664525u + 1013904223u;
                spin[i] = x;
                ulong c = clock_read_{scope}();
                t[3 * i] = as_ulong(a);
                t[3 * i + 1] = b;
                t[3 * i + 2] = c;
            }}"#
        );
        if caps & bit == 0 {
            // Without the scope the functions are refused with a log.
            let (status, log) = match gpu.try_program(&src, "") {
                Ok(_) => panic!("clock_read_{scope} built without its feature"),
                Err(e) => e,
            };
            assert_eq!(status, CL_BUILD_PROGRAM_FAILURE);
            assert!(log.contains("cl_khr_kernel_clock"), "{log}");
            continue;
        }
        let k = gpu.kernel(&src, "k");
        let n = 256usize;
        let (t, spin) = (gpu.zeroed::<u64>(3 * n), gpu.zeroed::<u32>(n));
        k.arg_buffer(0, &t).arg_buffer(1, &spin);
        gpu.run(&k, &[n], None, None);
        let t = gpu.read::<u64>(&t);
        for i in 0..n {
            let (a, b, c) = (t[3 * i], t[3 * i + 1], t[3 * i + 2]);
            assert!(
                a <= b && b < c,
                "{scope} clock of work-item {i}: {a}, {b}, {c}"
            );
        }
    }
}

/// An MD4-like compression and a context update, large enough (and
/// called often enough) to be outlined: the OpenCL C source and its model.
const COMPRESS_AND_UPDATE: &str = r#"
    typedef struct { uint h[4]; uint len; } ctx_t;
    #define R(a, b, c, d, k, s) \
        a = rotate(a + ((b & c) | (~b & d)) + w[k] + 0x5a827999u * (k + 1u), (uint)(s)) + b
    #define ROUNDS(o) \
        R(a, b, c, d, o + 0u, 3); R(d, a, b, c, o + 1u, 7); \
        R(c, d, a, b, o + 2u, 11); R(b, c, d, a, o + 3u, 19)
    void compress(uint *h, const uint *w) {
        uint a = h[0], b = h[1], c = h[2], d = h[3];
        ROUNDS(0u); ROUNDS(4u); ROUNDS(8u); ROUNDS(12u);
        ROUNDS(1u); ROUNDS(5u); ROUNDS(9u); ROUNDS(3u);
        h[0] += a; h[1] += b; h[2] += c; h[3] += d;
    }
    uint update(ctx_t *ctx, const uint *w, int n) {
        if (n == 0) return ctx->len;
        for (int r = 0; r < n; r++) compress(ctx->h, w);
        ctx->len += (uint)n;
        compress(ctx->h, w);
        return ctx->len;
    }
"#;

fn compress(h: &mut [u32; 4], w: &[u32; 16]) {
    let [mut a, mut b, mut c, mut d] = *h;
    let r = |a: u32, b: u32, c: u32, d: u32, k: u32, s: u32| {
        let f = (b & c) | (!b & d);
        a.wrapping_add(f)
            .wrapping_add(w[k as usize])
            .wrapping_add(0x5a82_7999u32.wrapping_mul(k + 1))
            .rotate_left(s)
            .wrapping_add(b)
    };
    for o in [0, 4, 8, 12, 1, 5, 9, 3] {
        a = r(a, b, c, d, o, 3);
        d = r(d, a, b, c, o + 1, 7);
        c = r(c, d, a, b, o + 2, 11);
        b = r(b, c, d, a, o + 3, 19);
    }
    for (x, y) in h.iter_mut().zip([a, b, c, d]) {
        *x = x.wrapping_add(y);
    }
}

fn update(h: &mut [u32; 4], len: &mut u32, w: &[u32; 16], n: u32) -> u32 {
    if n == 0 {
        return *len;
    }
    for _ in 0..n {
        compress(h, w);
    }
    *len += n;
    compress(h, w);
    *len
}

/// Work-items of the `hashes` kernels below.
const HASH_ITEMS: usize = 128;

/// Runs kernel `hashes` of `src` over [`HASH_ITEMS`] work-items, each
/// reading 16 words of input (made from `seed`) and writing `row` words:
/// the input and the output.
fn run_hashes(gpu: &Gpu, src: &str, seed: u32, row: usize) -> (Vec<u32>, Vec<u32>) {
    let input = XorShift::new(seed).u32s(16 * HASH_ITEMS);
    let k = gpu.kernel(src, "hashes");
    let (din, dout) = (gpu.buffer(&input), gpu.zeroed::<u32>(row * HASH_ITEMS));
    k.arg_buffer(0, &din).arg_buffer(1, &dout);
    gpu.run(&k, &[HASH_ITEMS], None, None);
    let got = gpu.read::<u32>(&dout);
    (input, got)
}

/// Large functions a kernel would inline several times are SPIR-V
/// functions of their own (compiler/src/lower/outline.rs): here `update`
/// (called twice by the kernel) and `compress` (called by the kernel and
/// twice by `update`), both taking `__private` pointers into the kernel's
/// private pool (the `uchar *` cast puts the program there), with an
/// early return, a loop around a call and a byte store through the pool
/// between the calls.
#[test]
fn outlined_functions_with_private_pointers_into_the_pool() {
    let gpu = Gpu::new();
    let src = format!(
        "{COMPRESS_AND_UPDATE}{}",
        r#"
        void set_byte(uint *w, int i, uchar v) { ((uchar *)w)[i] = v; }
        __kernel void hashes(__global const uint *in, __global uint *out) {
            int i = get_global_id(0);
            uint w[16];
            for (int k = 0; k < 16; k++) w[k] = in[16 * i + k];
            ctx_t ctx = {{ 1u, 2u, 3u, 4u }, 0u};
            set_byte(w, 5, (uchar)i);
            uint l = update(&ctx, w, i & 3);
            compress(ctx.h, w);
            set_byte(w, 0, (uchar)0xab);
            l += update(&ctx, w, 1);
            for (int k = 0; k < 4; k++) out[5 * i + k] = ctx.h[k];
            out[5 * i + 4] = l;
        }"#
    );
    let n = HASH_ITEMS;
    let (input, got) = run_hashes(&gpu, &src, 43, 5);
    let want: Vec<u32> = (0..n)
        .flat_map(|i| {
            let mut w: [u32; 16] = input[16 * i..16 * i + 16].try_into().unwrap();
            w[1] = (w[1] & !0xff00) | ((i as u32 & 0xff) << 8);
            let (mut h, mut len) = ([1u32, 2, 3, 4], 0u32);
            let mut l = update(&mut h, &mut len, &w, i as u32 & 3);
            compress(&mut h, &w);
            w[0] = (w[0] & !0xff) | 0xab;
            l += update(&mut h, &mut len, &w, 1);
            [h[0], h[1], h[2], h[3], l]
        })
        .collect();
    assert_same(&got, &want, "outlined functions");
}

/// Without casts or unions in private memory, private pointers name
/// their variable at compile time; an outlined function takes that
/// variable as a parameter, with the target's dynamic indices (`&ctxs[j]`)
/// and the element index, and writes through it into the caller's
/// variables.
#[test]
fn outlined_functions_take_private_pointers_as_their_variable() {
    let gpu = Gpu::new();
    let src = format!(
        "{COMPRESS_AND_UPDATE}{}",
        r#"
        __kernel void hashes(__global const uint *in, __global uint *out) {
            int i = get_global_id(0);
            uint w[16];
            for (int k = 0; k < 16; k++) w[k] = in[16 * i + k];
            ctx_t ctxs[2] = {{{ 1u, 2u, 3u, 4u }, 0u}, {{ 5u, 6u, 7u, 8u }, 0u}};
            int j = i & 1;
            w[1] ^= (uint)i;
            uint l = update(&ctxs[j], w, i & 3);
            compress(ctxs[1 - j].h, w + 0);
            w[0] ^= 0xabu;
            l += update(&ctxs[1 - j], w, 1);
            for (int k = 0; k < 4; k++) out[9 * i + k] = ctxs[0].h[k];
            for (int k = 0; k < 4; k++) out[9 * i + 4 + k] = ctxs[1].h[k];
            out[9 * i + 8] = l + ctxs[0].len * 16u + ctxs[1].len * 256u;
        }"#
    );
    let n = HASH_ITEMS;
    let (input, got) = run_hashes(&gpu, &src, 47, 9);
    let want: Vec<u32> = (0..n)
        .flat_map(|i| {
            let mut w: [u32; 16] = input[16 * i..16 * i + 16].try_into().unwrap();
            let mut h = [[1u32, 2, 3, 4], [5, 6, 7, 8]];
            let mut len = [0u32; 2];
            let j = i & 1;
            w[1] ^= i as u32;
            let mut l = update(&mut h[j], &mut len[j], &w, i as u32 & 3);
            compress(&mut h[1 - j], &w);
            w[0] ^= 0xab;
            l += update(&mut h[1 - j], &mut len[1 - j], &w, 1);
            let mut row = Vec::with_capacity(9);
            row.extend(h[0]);
            row.extend(h[1]);
            row.push(l + len[0] * 16 + len[1] * 256);
            row
        })
        .collect();
    assert_same(&got, &want, "outlined functions");
}

/// A struct member passed to an outlined function (`&hm.ipad`, as
/// hashcat's HMAC contexts are) goes as a copy, copied back after the call,
/// so one copy of `update` serves both members (compiler/src/lower/
/// outline.rs `member_copy`); a call with two pointers into one variable
/// (`both`) keeps the members themselves. Checked in a process with
/// `FERROCL_OUTLINE_MEMBERS=copy` and one with `=chain`.
#[test]
fn outlined_functions_take_struct_members() {
    let gpu = Gpu::new();
    let src = format!(
        "{COMPRESS_AND_UPDATE}{}",
        r#"
        typedef struct { ctx_t ipad; ctx_t opad; } hmac_t;
        uint both(ctx_t *a, ctx_t *b, const uint *w) {
            compress(a->h, w);
            b->h[2] ^= a->h[1];
            compress(b->h, w);
            b->len += a->len;
            return a->h[0] ^ b->h[3];
        }
        __kernel void hashes(__global const uint *in, __global uint *out) {
            int i = get_global_id(0);
            uint w[16];
            for (int k = 0; k < 16; k++) w[k] = in[16 * i + k];
            hmac_t hm = {{{ 1u, 2u, 3u, 4u }, 0u}, {{ 5u, 6u, 7u, 8u }, 3u}};
            uint l = update(&hm.ipad, w, i & 3);
            w[2] ^= l;
            l += update(&hm.opad, w, 1 + (i & 1));
            l += both(&hm.ipad, &hm.opad, w);
            w[3] ^= hm.opad.h[1];
            l += update(&hm.ipad, w, 2);
            for (int k = 0; k < 4; k++) out[9 * i + k] = hm.ipad.h[k];
            for (int k = 0; k < 4; k++) out[9 * i + 4 + k] = hm.opad.h[k];
            out[9 * i + 8] = l + hm.ipad.len * 16u + hm.opad.len * 256u;
        }"#
    );
    let n = HASH_ITEMS;
    let (input, got) = run_hashes(&gpu, &src, 53, 9);
    let want: Vec<u32> = (0..n)
        .flat_map(|i| {
            let mut w: [u32; 16] = input[16 * i..16 * i + 16].try_into().unwrap();
            let (mut ih, mut ilen) = ([1u32, 2, 3, 4], 0u32);
            let (mut oh, mut olen) = ([5u32, 6, 7, 8], 3u32);
            let mut l = update(&mut ih, &mut ilen, &w, i as u32 & 3);
            w[2] ^= l;
            l = l.wrapping_add(update(&mut oh, &mut olen, &w, 1 + (i as u32 & 1)));
            // both(&hm.ipad, &hm.opad, w)
            compress(&mut ih, &w);
            oh[2] ^= ih[1];
            compress(&mut oh, &w);
            olen = olen.wrapping_add(ilen);
            l = l.wrapping_add(ih[0] ^ oh[3]);
            w[3] ^= oh[1];
            l = l.wrapping_add(update(&mut ih, &mut ilen, &w, 2));
            let mut row = Vec::with_capacity(9);
            row.extend(ih);
            row.extend(oh);
            row.push(l.wrapping_add(ilen * 16).wrapping_add(olen * 256));
            row
        })
        .collect();
    assert_same(&got, &want, "struct members to outlined functions");
}

#[test]
fn outlined_functions_take_struct_members_both_ways() {
    common::rerun_with_each(
        "FERROCL_OUTLINE_MEMBERS",
        &["copy", "chain"],
        "outlined_functions_take_struct_members",
    );
}

/// The private pool gives the slots of returned calls and left blocks
/// back, but never those of an outlined function, which may run under any
/// caller: here `scramble` (outlined: large, called twice) is called
/// while an array declared after its first call is live, and the array
/// must survive it.
#[test]
fn private_pool_slots_are_reused_but_never_under_an_outlined_function() {
    let gpu = Gpu::new();
    let src = r#"
        #define MIX(i) t[(i) & 3] = rotate(t[(i) & 3] ^ (b[((i) * 5) & 15] + (uint)(i)), (uint)((i) % 31 + 1)) * 0x9e3779b9u
        #define MIX8(o) MIX(o); MIX(o + 1); MIX(o + 2); MIX(o + 3); MIX(o + 4); MIX(o + 5); MIX(o + 6); MIX(o + 7)
        uint scramble(uint x) {
            uint t[4] = { x, x ^ 1u, x + 2u, x * 3u };
            uchar *b = (uchar *)t;
            MIX8(0); MIX8(8); MIX8(16); MIX8(24);
            return t[0] ^ t[1] ^ t[2] ^ t[3];
        }
        uint bytes_of(uint x) { uint w[2] = { x, ~x }; uchar *c = (uchar *)w; return c[1] + c[6]; }
        __kernel void reuse(__global const uint *in, __global uint *out) {
            int i = get_global_id(0);
            uint keep = in[i];
            uint acc = scramble(keep) + bytes_of(keep) + bytes_of(keep + 1u);
            {
                uint a[8];
                for (int k = 0; k < 8; k++) a[k] = keep * (uint)(k + 1);
                uchar *p = (uchar *)a;
                acc += scramble(acc + p[3]);
                for (int k = 0; k < 8; k++) out[10 * i + k] = a[k];
            }
            out[10 * i + 8] = acc;
            out[10 * i + 9] = keep;
        }"#;
    fn scramble(x: u32) -> u32 {
        let mut t = [x, x ^ 1, x.wrapping_add(2), x.wrapping_mul(3)];
        for i in 0..32u32 {
            let bytes: Vec<u8> = t.iter().flat_map(|w| w.to_le_bytes()).collect();
            let j = (i & 3) as usize;
            let v = t[j] ^ u32::from(bytes[((i * 5) & 15) as usize]).wrapping_add(i);
            t[j] = v.rotate_left(i % 31 + 1).wrapping_mul(0x9e37_79b9);
        }
        t[0] ^ t[1] ^ t[2] ^ t[3]
    }
    fn bytes_of(x: u32) -> u32 {
        ((x >> 8) & 0xff) + ((!x >> 16) & 0xff)
    }
    let n = 64usize;
    let input = XorShift::new(47).u32s(n);
    let k = gpu.kernel(src, "reuse");
    let (din, dout) = (gpu.buffer(&input), gpu.zeroed::<u32>(10 * n));
    k.arg_buffer(0, &din).arg_buffer(1, &dout);
    gpu.run(&k, &[n], None, None);
    let want: Vec<u32> = input
        .iter()
        .flat_map(|&keep| {
            let mut acc = scramble(keep)
                .wrapping_add(bytes_of(keep))
                .wrapping_add(bytes_of(keep.wrapping_add(1)));
            let a: Vec<u32> = (0..8).map(|k| keep.wrapping_mul(k + 1)).collect();
            acc = acc.wrapping_add(scramble(acc.wrapping_add(a[0] >> 24)));
            a.into_iter().chain([acc, keep])
        })
        .collect();
    assert_same(&gpu.read::<u32>(&dout), &want, "pool slot reuse");
}

/// Where every access's variable is known, each private pool slot is an
/// array of its own (compiler/src/lower/split_pool.rs): pointers held in
/// variables and moved, returned from a call, one past an array's end and
/// indexed backwards, hashcat's byte stores between two `ulong` arrays;
/// `chosen`, of the same program, picks its pointer at run time and keeps
/// one pool.
#[test]
fn split_private_pool_follows_pointers_to_their_variable() {
    let gpu = Gpu::new();
    let src = r#"
        #define PUTCHAR64_BE(a, p, c) ((uchar *)(a))[(p) ^ 7] = (uchar)(c)
        #define GETCHAR64_BE(a, p) ((uchar *)(a))[(p) ^ 7]
        uchar *skip(uchar *p, uint n) { return p + n; }
        __kernel void followed(__global const uint *in, __global uint *out) {
            int i = get_global_id(0);
            uint n = in[i];
            uint a[4] = { n, n + 1u, n * 3u, ~n };
            uint b[4] = { 0u, 0u, 0u, 0u };
            uchar *src = (uchar *)a;
            uchar *dst = skip((uchar *)b, 1u);
            for (uint k = 0; k < 15u; k++) *dst++ = *src++;
            uchar *end = (uchar *)a + 16;
            ulong digest[2] = { upsample(n, ~n), upsample(n * 7u, n ^ 0x5au) };
            ulong block[4] = { 0ul, 0ul, 0ul, 0ul };
            for (uint k = 0, p = n & 15u; k < 16u; k++, p++)
                PUTCHAR64_BE(block, p, GETCHAR64_BE(digest, k));
            out[8 * i] = b[n & 3];
            out[8 * i + 1] = end[-1 - (int)(n & 15u)];
            for (int k = 0; k < 4; k++) {
                out[8 * i + 2 + k] = (uint)(block[k] ^ (block[k] >> 32));
            }
            out[8 * i + 6] = b[0] ^ b[3];
        }
        __kernel void chosen(__global const uint *in, __global uint *out) {
            int i = get_global_id(0);
            uint x = in[i], y = ~in[i];
            uchar *p = (x & 1u) ? (uchar *)&x : (uchar *)&y;
            out[i] = p[x & 3] + p[(x >> 2) & 3];
        }"#;
    let n = 128usize;
    let mut input = XorShift::new(53).u32s(n);
    input[0] = 0;
    input[1] = u32::MAX;
    let (din, dout, dchosen) = (
        gpu.buffer(&input),
        gpu.zeroed::<u32>(8 * n),
        gpu.zeroed::<u32>(n),
    );
    let k = gpu.kernel(src, "followed");
    k.arg_buffer(0, &din).arg_buffer(1, &dout);
    gpu.run(&k, &[n], None, None);
    let c = gpu.kernel(src, "chosen");
    c.arg_buffer(0, &din).arg_buffer(1, &dchosen);
    gpu.run(&c, &[n], None, None);
    let want: Vec<u32> = input
        .iter()
        .flat_map(|&x| {
            let a = [x, x.wrapping_add(1), x.wrapping_mul(3), !x];
            let a_bytes: Vec<u8> = a.iter().flat_map(|w| w.to_le_bytes()).collect();
            let mut b_bytes = [0u8; 16];
            b_bytes[1..16].copy_from_slice(&a_bytes[..15]);
            let b: Vec<u32> = b_bytes
                .chunks(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            let digest = [
                (u64::from(x) << 32) | u64::from(!x),
                (u64::from(x.wrapping_mul(7)) << 32) | u64::from(x ^ 0x5a),
            ];
            let d_bytes: Vec<u8> = digest.iter().flat_map(|w| w.to_le_bytes()).collect();
            let mut block = [0u8; 32];
            for k in 0..16usize {
                let p = (x as usize & 15) + k;
                block[p ^ 7] = d_bytes[k ^ 7];
            }
            let mut row = vec![
                b[(x & 3) as usize],
                u32::from(a_bytes[15 - (x & 15) as usize]),
            ];
            for w in block.chunks(8) {
                let v = u64::from_le_bytes(w.try_into().unwrap());
                row.push((v ^ (v >> 32)) as u32);
            }
            row.push(b[0] ^ b[3]);
            row.push(0);
            row
        })
        .collect();
    assert_same(&gpu.read::<u32>(&dout), &want, "split pool");
    let want: Vec<u32> = input
        .iter()
        .map(|&x| {
            let v = if x & 1 == 1 { x } else { !x };
            let bytes = v.to_le_bytes();
            u32::from(bytes[(x & 3) as usize]) + u32::from(bytes[((x >> 2) & 3) as usize])
        })
        .collect();
    assert_same(&gpu.read::<u32>(&dchosen), &want, "pool kept whole");
}

/// Elements read by name from `__constant` tables come from a `Private`
/// copy of the table (compiler/src/lower/constant_table.rs): at run-time
/// and constant indices, through two dimensions flattened as C lays them
/// out, for 64-bit and vector elements, beside a pointer into a table,
/// which still reads the program's data buffer.
#[test]
fn constant_tables_read_by_name() {
    let gpu = Gpu::new();
    let src = r#"
        __constant uint table2[3][5] = {
            { 3u, 1u, 4u, 1u, 5u }, { 9u, 2u, 6u, 5u, 3u }, { 5u, 8u, 9u, 7u, 0xfffffff0u } };
        __constant float4 vtab[4] = {
            (float4)(1.0f, 2.0f, 3.0f, 4.0f), (float4)(-1.0f, 0.5f, 8.0f, 0.25f),
            (float4)(16.0f, 0.0f, -2.0f, 1.0f), (float4)(7.0f, 7.0f, 7.0f, 7.0f) };
        __constant ulong k64[6] = {
            0x428a2f98d728ae22ul, 0x7137449123ef65cdul, 0xb5c0fbcfec4d3b2ful,
            0xe9b5dba58189dbbcul, 0x3956c25bf348b538ul, 0x59f111f1b605d019ul };
        __constant uint via_ptr[4] = { 10u, 20u, 30u, 40u };
        __kernel void tables(__global const int *idx, __global ulong *out) {
            int i = get_global_id(0);
            int x = idx[i];
            int a = x % 3, b = x % 5, c = x & 3, d = x % 6;
            __constant uint *p = &via_ptr[c];
            float4 v = vtab[c];
            out[6 * i + 0] = table2[a][b];
            out[6 * i + 1] = table2[0][a * 5 + b];
            out[6 * i + 2] = k64[d];
            out[6 * i + 3] = k64[4] + table2[2][4];
            out[6 * i + 4] = (ulong)(long)(v.x + v.y * 2.0f + v.z * 4.0f + v.w * 8.0f);
            out[6 * i + 5] = *p + p[-c];
        }"#;
    let table2 = [
        [3u64, 1, 4, 1, 5],
        [9, 2, 6, 5, 3],
        [5, 8, 9, 7, 0xffff_fff0],
    ];
    let vtab = [
        [1.0f32, 2.0, 3.0, 4.0],
        [-1.0, 0.5, 8.0, 0.25],
        [16.0, 0.0, -2.0, 1.0],
        [7.0, 7.0, 7.0, 7.0],
    ];
    let k64 = [
        0x428a_2f98_d728_ae22u64,
        0x7137_4491_23ef_65cd,
        0xb5c0_fbcf_ec4d_3b2f,
        0xe9b5_dba5_8189_dbbc,
        0x3956_c25b_f348_b538,
        0x59f1_11f1_b605_d019,
    ];
    let via_ptr = [10u64, 20, 30, 40];
    let n = 64usize;
    let idx: Vec<i32> = (0..n as i32).map(|i| i * 7 + 3).collect();
    let k = gpu.kernel(src, "tables");
    let (din, dout) = (gpu.buffer(&idx), gpu.zeroed::<u64>(6 * n));
    k.arg_buffer(0, &din).arg_buffer(1, &dout);
    gpu.run(&k, &[n], None, None);
    let want: Vec<u64> = idx
        .iter()
        .flat_map(|&x| {
            let (a, b, c, d) = (
                (x % 3) as usize,
                (x % 5) as usize,
                (x & 3) as usize,
                (x % 6) as usize,
            );
            let v = vtab[c];
            let dot = v[0] + v[1] * 2.0 + v[2] * 4.0 + v[3] * 8.0;
            [
                table2[a][b],
                table2[a][b],
                k64[d],
                k64[4].wrapping_add(table2[2][4]),
                dot as i64 as u64,
                via_ptr[c] + via_ptr[0],
            ]
        })
        .collect();
    assert_same(&gpu.read::<u64>(&dout), &want, "constant tables");
}
