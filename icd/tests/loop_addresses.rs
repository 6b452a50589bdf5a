//! Loops whose addresses the compiler splits into the part the loop
//! changes and the part computed before it
//! (compiler/src/spirv/hoist/addresses.rs), run on the first device
//! (lavapipe in CI) and compared with the host: strided reads of every
//! vector width and remainder, `int` counters below zero, counters at the
//! top of their type, 64-bit counters, nested loops, and loops of other
//! shapes. The pass rewrites the addresses of 16-wide reads, so the
//! kernels read `uint16`; the SPIR-V shapes are checked in
//! compiler/tests/loop_addresses.rs.

mod common;

use common::*;

/// Each loop both unrolled by the compiler and, with `#pragma unroll 1`,
/// as written.
const HINTS: [&str; 2] = ["", "#pragma unroll 1"];

#[test]
fn strided_reads_of_every_width_and_trip_count() {
    let gpu = Gpu::new();
    let items = 64usize;
    let most = 13usize;
    for width in [1usize, 4, 16] {
        let ty = if width == 1 {
            "uint".to_string()
        } else {
            format!("uint{width}")
        };
        let input = XorShift::new(81 + width as u32).u32s(items * most * width);
        let din = gpu.buffer(&input);
        let dout = gpu.zeroed::<u32>(items * width);
        for hint in HINTS {
            let src = format!(
                "__kernel void k(__global const {ty} *in, __global {ty} *out, uint n) {{\n\
                   size_t gid = get_global_id(0);\n\
                   size_t stride = get_global_size(0);\n\
                   {ty} sum = ({ty})(0u);\n\
                   {hint}\n\
                   for (uint i = 0; i < n; ++i) sum += in[gid + i * stride];\n\
                   out[gid] = sum;\n\
                 }}\n"
            );
            for n in [0u32, 1, 3, 4, 5, 8, 9, 13] {
                let k = gpu.kernel(&src, "k");
                k.arg_buffer(0, &din).arg_buffer(1, &dout).arg(2, n);
                gpu.run(&k, &[items], None, None);
                let want: Vec<u32> = (0..items * width)
                    .map(|j| {
                        let (item, lane) = (j / width, j % width);
                        (0..n as usize).fold(0u32, |s, i| {
                            s.wrapping_add(input[(item + i * items) * width + lane])
                        })
                    })
                    .collect();
                assert_same(
                    &gpu.read::<u32>(&dout),
                    &want,
                    &format!("{ty}, {n} trips, hint {hint:?}"),
                );
            }
        }
    }
}

#[test]
fn int_counters_below_zero() {
    // `i * stride` is negative for the first trips: the address steps
    // from below the middle of the buffer, sign-extended.
    let gpu = Gpu::new();
    let items = 32usize;
    let input = XorShift::new(91).u32s(items * 24 * 16);
    let din = gpu.buffer(&input);
    let dout = gpu.zeroed::<u32>(items * 16);
    for hint in HINTS {
        let src = format!(
            "__kernel void k(__global const uint16 *in, __global uint16 *out, int lo, int hi) {{\n\
               size_t gid = get_global_id(0);\n\
               size_t stride = get_global_size(0);\n\
               __global const uint16 *mid = in + 8 * stride;\n\
               uint16 sum = 0;\n\
               {hint}\n\
               for (int i = lo; i < hi; i++) sum = sum * 3u + mid[gid + i * stride];\n\
               out[gid] = sum;\n\
             }}\n"
        );
        for (lo, hi) in [(-8i32, 16i32), (-3, 2), (-1, 0), (0, -5), (5, 11), (-7, -2)] {
            let k = gpu.kernel(&src, "k");
            k.arg_buffer(0, &din)
                .arg_buffer(1, &dout)
                .arg(2, lo)
                .arg(3, hi);
            gpu.run(&k, &[items], None, None);
            let want: Vec<u32> = (0..items * 16)
                .map(|j| {
                    let (g, lane) = (j / 16, j % 16);
                    (lo..hi).fold(0u32, |s, i| {
                        let at = (8 + i) as usize * items + g;
                        s.wrapping_mul(3).wrapping_add(input[at * 16 + lane])
                    })
                })
                .collect();
            assert_same(
                &gpu.read::<u32>(&dout),
                &want,
                &format!("{lo}..{hi}, hint {hint:?}"),
            );
        }
    }
}

#[test]
fn counters_at_the_top_of_their_type() {
    // A `uint` counter running up to 2^32 - 1, and a `ulong` one stepped
    // by three: the addresses come from the counter less its start.
    let gpu = Gpu::new();
    let items = 16usize;
    let input = XorShift::new(92).u32s(items * 64 * 16);
    let din = gpu.buffer(&input);
    let dout = gpu.zeroed::<u32>(items * 16);
    let top: u32 = 0xffff_fff0;
    for hint in HINTS {
        let src = format!(
            "__kernel void k(__global const uint16 *in, __global uint16 *out, uint start, uint n, ulong base, ulong a, ulong b) {{\n\
               size_t gid = get_global_id(0);\n\
               ulong s = get_global_size(0);\n\
               uint16 sum = 0;\n\
               {hint}\n\
               for (uint i = start; i < n; i++) sum = sum * 5u + in[((ulong)i - base) * s + gid];\n\
               {hint}\n\
               for (ulong j = a; j < b; j += 3) sum = sum * 7u + in[(j - a) * s + gid];\n\
               out[gid] = sum;\n\
             }}\n"
        );
        for (start, n, a, b) in [
            (top, u32::MAX, 5u64, 50u64),
            (top + 9, u32::MAX, u64::MAX - 40, u64::MAX - 1),
            (top, top + 4, 0, 0),
            (u32::MAX, u32::MAX, 7, 8),
        ] {
            let k = gpu.kernel(&src, "k");
            k.arg_buffer(0, &din)
                .arg_buffer(1, &dout)
                .arg(2, start)
                .arg(3, n)
                .arg(4, top as u64)
                .arg(5, a)
                .arg(6, b);
            gpu.run(&k, &[items], None, None);
            let want: Vec<u32> = (0..items * 16)
                .map(|j| {
                    let (g, lane) = (j / 16, j % 16);
                    let mut sum = 0u32;
                    for i in start..n {
                        let at = (i - top) as usize * items + g;
                        sum = sum.wrapping_mul(5).wrapping_add(input[at * 16 + lane]);
                    }
                    let mut j = a;
                    while j < b {
                        let at = (j - a) as usize * items + g;
                        sum = sum.wrapping_mul(7).wrapping_add(input[at * 16 + lane]);
                        j = j.wrapping_add(3);
                    }
                    sum
                })
                .collect();
            assert_same(
                &gpu.read::<u32>(&dout),
                &want,
                &format!("{start:#x}..{n:#x}, {a}..{b}, hint {hint:?}"),
            );
        }
    }
}

#[test]
fn nested_loops_and_loops_left_alone() {
    // The inner loop's first address steps with the outer counter; the
    // second kernel's loops change their counter on one path, leave
    // early, or count down, and keep their addresses computed.
    let gpu = Gpu::new();
    let items = 8usize;
    let input = XorShift::new(93).u32s(items * 256 * 16);
    let din = gpu.buffer(&input);
    let dout = gpu.zeroed::<u32>(items * 16);
    let nested = r#"
        __kernel void k(__global const uint16 *in, __global uint16 *out, uint rows, uint cols, ulong pitch, ulong step) {
            size_t gid = get_global_id(0);
            uint16 sum = 0;
            for (uint r = 0; r < rows; ++r)
                for (uint c = 0; c < cols; ++c)
                    sum = sum * 3u + in[(r * pitch + c * step) * 8 + gid];
            out[gid] = sum;
        }"#;
    for (rows, cols, pitch, step) in [
        (5u32, 6u32, 7u64, 1u64),
        (0, 4, 3, 2),
        (3, 0, 9, 1),
        (4, 5, 10, 2),
    ] {
        let k = gpu.kernel(nested, "k");
        k.arg_buffer(0, &din)
            .arg_buffer(1, &dout)
            .arg(2, rows)
            .arg(3, cols)
            .arg(4, pitch)
            .arg(5, step);
        gpu.run(&k, &[items], None, None);
        let want: Vec<u32> = (0..items * 16)
            .map(|j| {
                let (g, lane) = (j / 16, j % 16);
                let mut sum = 0u32;
                for r in 0..rows as u64 {
                    for c in 0..cols as u64 {
                        let at = ((r * pitch + c * step) * 8) as usize + g;
                        sum = sum.wrapping_mul(3).wrapping_add(input[at * 16 + lane]);
                    }
                }
                sum
            })
            .collect();
        assert_same(&gpu.read::<u32>(&dout), &want, &format!("{rows} x {cols}"));
    }

    let other = r#"
        __kernel void k(__global const uint16 *in, __global uint16 *out, uint n) {
            size_t gid = get_global_id(0);
            size_t stride = get_global_size(0);
            uint16 sum = 0;
            for (uint i = 0; i < n; ++i) {
                if (i == 3) i += 2;
                sum = sum * 3u + in[gid + i * stride];
            }
            for (uint i = 0; i < n; ++i) {
                if (in[gid + i * stride].s0 % 5u == 0) break;
                sum = sum * 5u + in[gid + i * stride];
            }
            for (uint i = n; i > 0; --i) sum = sum * 7u + in[gid + (i - 1) * stride];
            out[gid] = sum;
        }"#;
    for n in [0u32, 2, 4, 9, 30] {
        let k = gpu.kernel(other, "k");
        k.arg_buffer(0, &din).arg_buffer(1, &dout).arg(2, n);
        gpu.run(&k, &[items], None, None);
        let want: Vec<u32> = (0..items * 16)
            .map(|j| {
                let (g, lane) = (j / 16, j % 16);
                let at = |i: u32| input[(g + i as usize * items) * 16 + lane];
                let first = |i: u32| input[(g + i as usize * items) * 16];
                let mut sum = 0u32;
                let mut i = 0;
                while i < n {
                    if i == 3 {
                        i += 2;
                    }
                    sum = sum.wrapping_mul(3).wrapping_add(at(i));
                    i += 1;
                }
                for i in 0..n {
                    if first(i) % 5 == 0 {
                        break;
                    }
                    sum = sum.wrapping_mul(5).wrapping_add(at(i));
                }
                for i in (1..=n).rev() {
                    sum = sum.wrapping_mul(7).wrapping_add(at(i - 1));
                }
                sum
            })
            .collect();
        assert_same(&gpu.read::<u32>(&dout), &want, &format!("n = {n}"));
    }
}
