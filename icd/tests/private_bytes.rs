//! Bytes and halves stored into private memory that is also read and
//! written as words: the compiler holds such a variable as `uchar4` words
//! for NVIDIA's driver, as `uint` words for others
//! (compiler/src/lower/split_pool.rs, runtime `private_byte_words`). The
//! values a kernel leaves match a host model of little-endian memory,
//! both ways.

mod common;

use common::Gpu;

const BYTES: &str = "
typedef struct { uchar tag; ushort half; uint word; ulong wide; } rec_t;
#define PUT64_BE(a, p, c) ((uchar *)(a))[(p) ^ 7] = (uchar)(c)
kernel void bytes(global const uint *in, global ulong *out) {
    size_t g = get_global_id(0);
    uint n = in[g];
    ulong blk[4] = { n, (ulong)n << 32 | 0x55u, 0, ~(ulong)n };
    uint first = ((uint *)blk)[n & 7];
    uchar *b = (uchar *)blk;
    for (uint i = 0; i < 11u; i++) b[(n + 3u * i) & 31u] = (uchar)(first >> i) ^ (uchar)i;
    ushort *h = (ushort *)blk;
    h[(n >> 3) & 15u] = (ushort)(n * 77u);
    ((uint *)blk)[(n >> 5) & 7u] ^= 0xa5a5a5a5u;
    for (uint k = 0, p = n & 7u; k < 8u; k++, p++) PUT64_BE(blk, p, blk[3] >> (8 * k));
    rec_t r;
    r.word = n;
    r.wide = blk[1];
    r.tag = (uchar)n;
    r.half = (ushort)(n >> 4);
    uchar *rb = (uchar *)&r;
    rb[n % 16u] += 1;
    for (uint i = 0; i < 4u; i++) out[8 * g + i] = blk[i];
    out[8 * g + 4] = b[(n * 7u) & 31u] | (ulong)h[n & 15u] << 8;
    out[8 * g + 5] = r.tag | (ulong)r.half << 8 | (ulong)r.word << 32;
    out[8 * g + 6] = r.wide;
    out[8 * g + 7] = first;
}";

/// What `BYTES` leaves for input `n`, on little-endian memory.
fn model(n: u32) -> [u64; 8] {
    let mut blk = [0u8; 32];
    let words = [u64::from(n), u64::from(n) << 32 | 0x55, 0, !u64::from(n)];
    for (i, w) in words.iter().enumerate() {
        blk[8 * i..8 * i + 8].copy_from_slice(&w.to_le_bytes());
    }
    let word_at =
        |blk: &[u8], i: usize| u32::from_le_bytes(blk[4 * i..4 * i + 4].try_into().unwrap());
    let wide_at =
        |blk: &[u8], i: usize| u64::from_le_bytes(blk[8 * i..8 * i + 8].try_into().unwrap());
    let n_ = n as usize;
    let first = word_at(&blk, n_ & 7);
    for i in 0..11usize {
        blk[(n_ + 3 * i) & 31] = (first >> i) as u8 ^ i as u8;
    }
    let hi = (n_ >> 3) & 15;
    blk[2 * hi..2 * hi + 2].copy_from_slice(&(n.wrapping_mul(77) as u16).to_le_bytes());
    let wi = (n_ >> 5) & 7;
    let w = word_at(&blk, wi) ^ 0xa5a5_a5a5;
    blk[4 * wi..4 * wi + 4].copy_from_slice(&w.to_le_bytes());
    for k in 0..8usize {
        // Each byte comes from `blk[3]` as it is when it is read.
        let c = (wide_at(&blk, 3) >> (8 * k)) as u8;
        blk[((n_ & 7) + k) ^ 7] = c;
    }
    let mut rec = [0u8; 16];
    rec[4..8].copy_from_slice(&n.to_le_bytes());
    rec[8..16].copy_from_slice(&wide_at(&blk, 1).to_le_bytes());
    rec[0] = n as u8;
    rec[2..4].copy_from_slice(&((n >> 4) as u16).to_le_bytes());
    rec[n_ % 16] = rec[n_ % 16].wrapping_add(1);
    let half = u16::from_le_bytes([blk[2 * (n_ & 15)], blk[2 * (n_ & 15) + 1]]);
    let tag = u64::from(rec[0]);
    let rec_half = u64::from(u16::from_le_bytes([rec[2], rec[3]]));
    let rec_word = u64::from(word_at(&rec, 1));
    [
        wide_at(&blk, 0),
        wide_at(&blk, 1),
        wide_at(&blk, 2),
        wide_at(&blk, 3),
        u64::from(blk[(n_ * 7) & 31]) | u64::from(half) << 8,
        tag | rec_half << 8 | rec_word << 32,
        wide_at(&rec, 1),
        u64::from(first),
    ]
}

#[test]
fn bytes_stored_into_words_land_where_memory_puts_them() {
    let gpu = Gpu::new();
    let kernel = gpu.kernel(BYTES, "bytes");
    let n = 512usize;
    let input: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2_654_435_761) ^ (i >> 3))
        .collect();
    let d = gpu.buffer(&input);
    let out = gpu.zeroed::<u64>(8 * n);
    kernel.arg_buffer(0, &d).arg_buffer(1, &out);
    gpu.run(&kernel, &[n], None, None);
    let got = gpu.read::<u64>(&out);
    for (g, &x) in input.iter().enumerate() {
        assert_eq!(got[8 * g..8 * g + 8], model(x), "work-item {g}, n = {x:#x}");
    }
}

/// Arrays of word-sized elements indexed at run time, through pointers
/// moved forwards and back; `steps_whole` also reads through a pointer
/// chosen at run time between two variables, which keeps its pool whole.
const STEPS: &str = "
typedef struct { uint a; ulong b; } pair_t;
#define BODY \\
    size_t g = get_global_id(0); \\
    uint n = in[g]; \\
    ulong t[4][6]; \\
    pair_t ps[5]; \\
    for (uint a = 0; a < 4; a++) \\
        for (uint b = 0; b < 6; b++) t[a][b] = (ulong)(n + a) << 20 | (b * 7u + a); \\
    for (uint i = 0; i < 5; i++) { ps[i].a = n ^ i; ps[i].b = (ulong)i << 40 | n; } \\
    ((uchar *)t)[n % 192u] ^= 0x5a; \\
    uint r = n % 4u, c = (n >> 2) % 6u, k = (n >> 5) % 5u; \\
    ulong *row = t[r]; \\
    uint *words = (uint *)&ps[k]; \\
    ulong acc = t[r][c] + t[r][5] + row[c] * 3 + *(row + 5 - c) + ps[k].b \\
        + words[2] + words[3] + (&ps[4] - k)->a;
kernel void steps(global const uint *in, global ulong *out) {
    BODY
    out[g] = acc;
}
kernel void steps_whole(global const uint *in, global ulong *out) {
    BODY
    ulong u[6] = { 1, 2, 3, 4, 5, n };
    ulong *pick = (n & 1) ? t[r] : u;
    out[g] = acc + pick[c];
}";

/// What `STEPS`'s kernels leave for input `n`: `steps`, then `steps_whole`.
fn steps_model(n: u32) -> (u64, u64) {
    let mut t = [[0u64; 6]; 4];
    for (a, row) in t.iter_mut().enumerate() {
        for (b, x) in row.iter_mut().enumerate() {
            *x = u64::from(n.wrapping_add(a as u32)) << 20 | (b as u64 * 7 + a as u64);
        }
    }
    let x = (n % 192) as usize;
    t[x / 48][(x / 8) % 6] ^= 0x5a << (8 * (x % 8));
    let ps: Vec<(u32, u64)> = (0..5u32)
        .map(|i| (n ^ i, u64::from(i) << 40 | u64::from(n)))
        .collect();
    let (r, c, k) = (
        (n % 4) as usize,
        ((n >> 2) % 6) as usize,
        ((n >> 5) % 5) as usize,
    );
    let acc = t[r][c]
        .wrapping_add(t[r][5])
        .wrapping_add(t[r][c].wrapping_mul(3))
        .wrapping_add(t[r][5 - c])
        .wrapping_add(ps[k].1)
        .wrapping_add(ps[k].1 & 0xffff_ffff)
        .wrapping_add(ps[k].1 >> 32)
        .wrapping_add(u64::from(ps[4 - k].0));
    let u = [1, 2, 3, 4, 5, u64::from(n)];
    let pick = if n & 1 == 1 { t[r][c] } else { u[c] };
    (acc, acc.wrapping_add(pick))
}

#[test]
fn words_indexed_at_run_time_read_their_element() {
    let gpu = Gpu::new();
    let n = 256usize;
    let input: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2_246_822_519) ^ (i << 3))
        .collect();
    let d = gpu.buffer(&input);
    for (name, pick) in [("steps", false), ("steps_whole", true)] {
        let kernel = gpu.kernel(STEPS, name);
        let out = gpu.zeroed::<u64>(n);
        kernel.arg_buffer(0, &d).arg_buffer(1, &out);
        gpu.run(&kernel, &[n], None, None);
        let got = gpu.read::<u64>(&out);
        for (g, &x) in input.iter().enumerate() {
            let (split, whole) = steps_model(x);
            let want = if pick { whole } else { split };
            assert_eq!(got[g], want, "{name}, work-item {g}, n = {x:#x}");
        }
    }
}

/// The two tests above in a process for each value of
/// `FERROCL_PRIVATE_BYTES` (read when the library starts): variables that
/// take byte stores held as `uchar4` words, as NVIDIA's driver gets them,
/// and as `uint` words, as other drivers do.
#[test]
fn private_bytes_and_words_both_ways() {
    for name in [
        "bytes_stored_into_words_land_where_memory_puts_them",
        "words_indexed_at_run_time_read_their_element",
    ] {
        common::rerun_with_each("FERROCL_PRIVATE_BYTES", &["uchar4", "uint"], name);
    }
}
