//! 32-bit indices `t + c` addressed as `p[t]` plus a constant offset
//! where `c` fits below the low bits known to be zero in `t`
//! (compiler/src/lower/expr.rs `pointer_add`), against the host: products
//! that wrap past 32 bits before the constant is added, shifts, masks,
//! subtraction from a pointer, negative signed indices, and sums the
//! compiler keeps whole. The
//! SPIR-V shapes: compiler/tests/index_offsets.rs.

mod common;

use common::*;

const SOURCE: &str = r#"
    __kernel void k(__global const uint *p, __global const uint *xs, __global uint *out) {
        size_t g = get_global_id(0);
        __global const uint *x = xs + g * ROWS;
        __global uint *o = out + g * ROWS;
        o[0] = p[x[0] * 64u + 5u];
        o[1] = p[x[1] * 64u + 63u];
        o[2] = p[(x[2] << 4) + 15u];
        o[3] = p[(x[3] & ~7u) + 7u];
        o[4] = p[x[4] * 1024u * 64u + (x[4] >> 20) * 64u + 9u];
        __global const uint *r = p + 4096;
        o[5] = *(r - (x[5] * 8u + 3u));
        o[6] = p[x[6] * 64u + 64u];
        o[7] = p[(x[7] + 1u) * 4u + 2u];
        o[8] = r[(int)x[8] * 64 + 3];
    }
"#;

const ROWS: usize = 9;

/// Inputs whose index sums wrap to 0.
const EDGES: [u32; 2] = [0x03ff_ffff, 0xffff_ffff];

/// Words in `p`.
const WORDS: usize = 1 << 16;

/// The word each row reads for input `x`, as the host computes the index
/// (`None` past `p`): 32-bit arithmetic that wraps.
fn index(row: usize, x: u32) -> Option<usize> {
    let i = match row {
        0 => x.wrapping_mul(64).wrapping_add(5),
        1 => x.wrapping_mul(64).wrapping_add(63),
        2 => (x << 4).wrapping_add(15),
        3 => (x & !7).wrapping_add(7),
        4 => x
            .wrapping_mul(1024 * 64)
            .wrapping_add((x >> 20).wrapping_mul(64))
            .wrapping_add(9),
        5 => 4096u32.checked_sub(x.wrapping_mul(8).checked_add(3)?)?,
        6 => x.wrapping_mul(64).wrapping_add(64),
        7 => x.wrapping_add(1).wrapping_mul(4).wrapping_add(2),
        // A signed index from 4096 words in, which must not overflow.
        _ => u32::try_from(4096 + i64::from((x as i32).checked_mul(64)?.checked_add(3)?)).ok()?,
    };
    ((i as usize) < WORDS).then_some(i as usize)
}

#[test]
fn constant_offsets_of_unsigned_indices_match_the_host() {
    let gpu = Gpu::new();
    let k = gpu.kernel(&SOURCE.replace("ROWS", &ROWS.to_string()), "k");
    let p: Vec<u32> = XorShift::new(5).u32s(WORDS);
    // Per row, inputs whose products wrap past 2^32 back below WORDS
    // (half of them), and small ones.
    let mut rng = XorShift::new(9);
    let candidates: Vec<u32> = (0..4096u32)
        .flat_map(|k| {
            [
                k,
                0x0400_0000 + k,
                0x1000_0000 + k,
                0x4000_0000 + k,
                0x8000_0000u32.wrapping_add(k.wrapping_mul(0x10_0000)),
                0xffff_ffff - k,
                k.wrapping_mul(0x10_0001),
            ]
        })
        .collect();
    let items = 256usize;
    let mut xs = vec![0u32; items * ROWS];
    for row in 0..ROWS {
        let fit: Vec<u32> = candidates
            .iter()
            .copied()
            .filter(|&x| index(row, x).is_some())
            .collect();
        assert!(fit.len() >= items, "row {row}: {} inputs", fit.len());
        // Inputs this large wrap past 2^32 in every row but 3's (a mask)
        // and 8's (a signed index, negative there).
        let large: Vec<u32> = fit.iter().copied().filter(|&x| x >= 0x0400_0000).collect();
        assert!(
            row == 3 || row == 8 || !large.is_empty(),
            "row {row}: no input that wraps"
        );
        let edge = EDGES.iter().find(|&&x| index(row, x) == Some(0));
        for item in 0..items {
            let from = if item % 2 == 0 && !large.is_empty() {
                &large
            } else {
                &fit
            };
            let pick = from[rng.next_u32() as usize % from.len()];
            // The first item takes an input whose sum wraps to 0 past the
            // top of 32 bits where the row has one (row 6: `x * 64` is
            // 0xffffffc0, plus 64), which a wrong split would read past
            // the buffer.
            let pick = match edge.filter(|_| item == 0) {
                Some(&x) => x,
                None => pick,
            };
            xs[item * ROWS + row] = pick;
        }
    }
    let (dp, dx) = (gpu.buffer(&p), gpu.buffer(&xs));
    let dout = gpu.zeroed::<u32>(ROWS * items);
    k.arg_buffer(0, &dp).arg_buffer(1, &dx).arg_buffer(2, &dout);
    gpu.run(&k, &[items], None, None);
    let out = gpu.read::<u32>(&dout);
    for row in 0..ROWS {
        let got: Vec<u32> = (0..items).map(|i| out[i * ROWS + row]).collect();
        let want: Vec<u32> = (0..items)
            .map(|i| p[index(row, xs[i * ROWS + row]).unwrap()])
            .collect();
        assert_same(&got, &want, &format!("row {row}"));
    }
}

/// 64-bit indices `t + c` are addressed as `p[t]` plus `c` elements
/// whatever they hold: a product that wraps modulo 2^64 back into the
/// buffer, a negative constant, a subtracted sum.
#[test]
fn constant_offsets_of_64_bit_indices_match_the_host() {
    const SOURCE64: &str = r#"
        __kernel void k(__global const uint *p, __global const uint *xs, __global const int *ss,
                        __global uint *out) {
            size_t g = get_global_id(0);
            ulong x = xs[g];
            long s = ss[g];
            __global const uint *r = p + 4096;
            out[4 * g + 0] = p[g * 4 + 1];
            out[4 * g + 1] = p[x * 0xffffffffffffffffUL + 4000UL];
            out[4 * g + 2] = r[s * 3L - 7L];
            out[4 * g + 3] = *(r - (x + 9UL));
        }
    "#;
    let gpu = Gpu::new();
    let k = gpu.kernel(SOURCE64, "k");
    let p: Vec<u32> = XorShift::new(11).u32s(WORDS);
    let items = 1024usize;
    let mut rng = XorShift::new(13);
    let xs: Vec<u32> = (0..items).map(|_| rng.next_u32() % 4000).collect();
    // Negative down to -1363, where `s * 3 - 7` is 4096 elements before
    // `r`, the start of `p`.
    let ss: Vec<i32> = (0..items)
        .map(|_| (rng.next_u32() % 11_000) as i32 - 1363)
        .collect();
    let (dp, dx, ds) = (gpu.buffer(&p), gpu.buffer(&xs), gpu.buffer(&ss));
    let dout = gpu.zeroed::<u32>(4 * items);
    k.arg_buffer(0, &dp)
        .arg_buffer(1, &dx)
        .arg_buffer(2, &ds)
        .arg_buffer(3, &dout);
    gpu.run(&k, &[items], None, None);
    let out = gpu.read::<u32>(&dout);
    for g in 0..items {
        let (x, s) = (xs[g] as usize, i64::from(ss[g]));
        let want = [
            p[g * 4 + 1],
            p[4000 - x],
            p[(4096 + s * 3 - 7) as usize],
            p[4096 - (x + 9)],
        ];
        assert_eq!(&out[4 * g..4 * g + 4], &want, "item {g}: x {x}, s {s}");
    }
}
