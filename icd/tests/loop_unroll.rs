//! Loops the compiler unrolls (compiler/src/lower/unroll.rs) run exactly
//! the iterations of the loop as written, in order: each loop folds its
//! counter into an order-sensitive hash, over trip counts around the
//! unroll factor, negative and empty ranges, and ranges that end at the
//! top of the counter's type. compiler/tests/loop_unroll.rs checks which
//! loops are unrolled.

mod common;

use common::Gpu;

/// (start, end) pairs: every trip count from 0 to 13, the ones around 100
/// and 1000, empty and reversed ranges.
fn ranges() -> Vec<(i64, i64)> {
    let mut r: Vec<(i64, i64)> = (0..14).map(|n| (3, 3 + n)).collect();
    r.extend([
        (0, 99),
        (0, 100),
        (0, 101),
        (7, 1007),
        (5, 5),
        (9, 2),
        (-40, -3),
    ]);
    r.extend([(-17, 4), (-3, 0), (-1000, 1003), (-9, -9), (1, 0)]);
    r
}

fn hash<T>(start: T, end: T, step: T, mul: u32, seed: u32) -> u32
where
    T: Copy + PartialOrd + std::ops::Add<Output = T> + Into<i128>,
{
    let mut acc = seed;
    let mut i = start;
    while i < end {
        let v: i128 = i.into();
        acc = acc.wrapping_mul(mul).wrapping_add(v as u32);
        i = i + step;
    }
    acc
}

#[test]
fn unrolled_loops_run_every_iteration_in_order() {
    let gpu = Gpu::new();
    let src = "
kernel void loops(global const int *s32, global const int *e32, global const long *s64,
                  global const long *e64, global const uint *su, global const uint *eu,
                  global const ulong *sul, global const ulong *eul, global uint *out) {
    size_t g = get_global_id(0);
    int a = s32[g], b = e32[g];
    long c = s64[g], d = e64[g];
    uint p = su[g], q = eu[g];
    ulong x = sul[g], y = eul[g];
    uint h0 = 17u, h1 = 5u, h2 = 3u, h3 = 11u, h4 = 13u, h5 = 19u, h6 = 23u, h7 = 29u;
    for (int i = a; i < b; ++i) h0 = h0 * 31u + (uint)i;
    for (int i = a; b > i; i += 5) h1 = h1 * 29u + (uint)i;
    for (long i = c; i < d; i = i + 2) h2 = h2 * 37u + (uint)i;
    for (uint i = p; i < q; i++) { uint t = i * 3u; h3 = h3 * 41u + t / 3u; }
    for (ulong i = x; i < y; i += 3) h4 = h4 * 43u + (uint)i;
    uint j = p;
    for (; j < q; j = 7 + j) h5 = h5 * 47u + j;
    int bl = b - 1;
    for (int i = a; i <= bl; i += 3) h6 = h6 * 53u + (uint)i;
    ulong yl = y - 1;
    for (ulong i = x; yl >= i; ++i) h7 = h7 * 59u + (uint)i;
    out[9 * g + 0] = h0;
    out[9 * g + 1] = h1;
    out[9 * g + 2] = h2;
    out[9 * g + 3] = h3;
    out[9 * g + 4] = h4;
    out[9 * g + 5] = h5;
    out[9 * g + 6] = j;
    out[9 * g + 7] = h6;
    out[9 * g + 8] = h7;
}";
    let kernel = gpu.kernel(src, "loops");
    let ranges = ranges();
    let n = ranges.len();
    // Unsigned ranges: the same trip counts, shifted to be non-negative,
    // and some ending at the top of the type.
    let mut unsigned: Vec<(u64, u64)> = ranges
        .iter()
        .map(|&(s, e)| ((s + 2000) as u64, (e + 2000) as u64))
        .collect();
    // Ranges ending at the top of `uint` where no step (1 and 7 below)
    // carries the counter past it, which would wrap it around.
    let top = u32::MAX as u64;
    unsigned.truncate(ranges.len() - 3);
    unsigned.extend([(top - 14, top), (top - 7, top), (0, 0)]);
    let s32: Vec<i32> = ranges.iter().map(|r| r.0 as i32).collect();
    let e32: Vec<i32> = ranges.iter().map(|r| r.1 as i32).collect();
    // 64-bit signed ranges beyond 32 bits.
    let s64: Vec<i64> = ranges.iter().map(|r| r.0 - (1i64 << 40)).collect();
    let e64: Vec<i64> = ranges.iter().map(|r| r.1 - (1i64 << 40)).collect();
    let su: Vec<u32> = unsigned.iter().map(|r| r.0 as u32).collect();
    let eu: Vec<u32> = unsigned.iter().map(|r| r.1 as u32).collect();
    // 64-bit unsigned ranges near the top of `ulong`; the last one ends
    // one below it (steps of 3 from there stop at the bound exactly).
    let base = u64::MAX - 10_000;
    let mut sul: Vec<u64> = ranges.iter().map(|r| base + (r.0 + 2000) as u64).collect();
    let mut eul: Vec<u64> = ranges.iter().map(|r| base + (r.1 + 2000) as u64).collect();
    sul[n - 1] = u64::MAX - 10;
    eul[n - 1] = u64::MAX - 1;
    let bufs = [
        gpu.buffer(&s32),
        gpu.buffer(&e32),
        gpu.buffer(&s64),
        gpu.buffer(&e64),
        gpu.buffer(&su),
        gpu.buffer(&eu),
        gpu.buffer(&sul),
        gpu.buffer(&eul),
    ];
    let out = gpu.zeroed::<u32>(9 * n);
    for (k, b) in bufs.iter().enumerate() {
        kernel.arg_buffer(k as u32, b);
    }
    kernel.arg_buffer(8, &out);
    gpu.run(&kernel, &[n], None, None);
    let got: Vec<u32> = gpu.read(&out);
    for g in 0..n {
        let last_j = {
            let mut j = su[g];
            while j < eu[g] {
                j = j.wrapping_add(7);
            }
            j
        };
        let want = [
            hash(s32[g], e32[g], 1, 31, 17),
            hash(s32[g], e32[g], 5, 29, 5),
            hash(s64[g], e64[g], 2, 37, 3),
            (su[g]..eu[g]).fold(11u32, |h, i| {
                h.wrapping_mul(41).wrapping_add(i.wrapping_mul(3) / 3)
            }),
            hash(sul[g], eul[g], 3, 43, 13),
            hash(su[g], eu[g], 7, 47, 19),
            last_j,
            hash(s32[g], e32[g], 3, 53, 23),
            hash(sul[g], eul[g], 1, 59, 29),
        ];
        assert_eq!(
            &got[9 * g..9 * g + 9],
            &want,
            "work-item {g}: int {}..{}, long {}..{}, uint {}..{}, ulong {}..{}",
            s32[g],
            e32[g],
            s64[g],
            e64[g],
            su[g],
            eu[g],
            sul[g],
            eul[g]
        );
    }
}

/// Loops whose step is a value the loop does not change, known only at
/// run time: unrolled with a limit computed from it, or (a step of 0, or
/// one so large that four of them would not fit the counter's type) left
/// to the loop as written.
#[test]
fn loops_with_a_run_time_step_run_every_iteration_in_order() {
    let gpu = Gpu::new();
    let src = "
kernel void loops(global const int *s32, global const int *e32, global const int *st32,
                  global const ulong *s64, global const ulong *e64, global const ulong *st64,
                  uint total, global uint *out) {
    size_t g = get_global_id(0);
    int a = s32[g], b = e32[g], c = st32[g];
    uint p = (uint)(a + 2000), q = (uint)(b + 2000), r = (uint)c;
    ulong x = s64[g], y = e64[g], z = st64[g];
    uint h0 = 17u, h1 = 5u, h2 = 3u, h3 = 11u;
    for (int i = a; i < b; i += c) h0 = h0 * 31u + (uint)i;
    for (uint i = p; i < q; i = r + i) h1 = h1 * 29u + i;
    for (ulong i = x; i < y; i += z) h2 = h2 * 37u + (uint)(i >> 7) + (uint)i;
    for (uint i = (uint)g; i < total; i += get_global_size(0)) h3 = h3 * 41u + i;
    out[4 * g + 0] = h0;
    out[4 * g + 1] = h1;
    out[4 * g + 2] = h2;
    out[4 * g + 3] = h3;
}";
    let kernel = gpu.kernel(src, "loops");
    let mut ranges = ranges();
    ranges.truncate(ranges.len() - 6);
    // Every range with each step: small ones, one of 1000, one at the
    // largest a trip of four may take and one past it.
    let steps: [i64; 7] = [1, 2, 3, 7, 1000, (1 << 29) - 1, 1 << 30];
    let mut cases = Vec::new();
    for &(start, end) in &ranges {
        for &step in &steps {
            cases.push((start, end, step));
        }
    }
    // A step of 0 where the loop runs no trip.
    cases.push((5, 5, 0));
    cases.push((9, 2, 0));
    let n = cases.len();
    let s32: Vec<i32> = cases.iter().map(|c| c.0 as i32).collect();
    let e32: Vec<i32> = cases.iter().map(|c| c.1 as i32).collect();
    let st32: Vec<i32> = cases.iter().map(|c| c.2 as i32).collect();
    // 64-bit ranges near the top of `ulong`, steps scaled up past 2^32.
    let base = u64::MAX - (1u64 << 45);
    let s64: Vec<u64> = cases
        .iter()
        .map(|c| base + ((c.0 + 2000) as u64) * (1 << 8))
        .collect();
    let e64: Vec<u64> = cases
        .iter()
        .map(|c| base + ((c.1 + 2000) as u64) * (1 << 8))
        .collect();
    let st64: Vec<u64> = cases.iter().map(|c| (c.2 as u64) << 8).collect();
    let total = (3 * n + 5) as u32;
    let bufs = [
        gpu.buffer(&s32),
        gpu.buffer(&e32),
        gpu.buffer(&st32),
        gpu.buffer(&s64),
        gpu.buffer(&e64),
        gpu.buffer(&st64),
    ];
    let out = gpu.zeroed::<u32>(4 * n);
    for (k, b) in bufs.iter().enumerate() {
        kernel.arg_buffer(k as u32, b);
    }
    kernel.arg(6, total).arg_buffer(7, &out);
    gpu.run(&kernel, &[n], None, None);
    let got: Vec<u32> = gpu.read(&out);
    for g in 0..n {
        let (p, q) = ((s32[g] + 2000) as u32, (e32[g] + 2000) as u32);
        let mut h2 = 3u32;
        let mut i = s64[g];
        while i < e64[g] {
            h2 = h2
                .wrapping_mul(37)
                .wrapping_add((i >> 7) as u32)
                .wrapping_add(i as u32);
            i = i.wrapping_add(st64[g]);
        }
        let want = [
            hash(s32[g] as i64, e32[g] as i64, st32[g] as i64, 31, 17),
            hash(p as u64, q as u64, st32[g] as u64, 29, 5),
            h2,
            (g as u32..total)
                .step_by(n)
                .fold(11u32, |h, i| h.wrapping_mul(41).wrapping_add(i)),
        ];
        assert_eq!(
            &got[4 * g..4 * g + 4],
            &want,
            "work-item {g}: {}..{} by {}",
            s32[g],
            e32[g],
            st32[g]
        );
    }
}

/// A barrier in an unrolled body: every work-item of the group runs the
/// same trip count, so each copy of the barrier is reached by all.
#[test]
fn unrolled_loops_with_barriers_keep_work_items_in_step() {
    let gpu = Gpu::new();
    let src = "
kernel void rotate(global uint *out, local uint *tmp, uint rounds) {
    uint l = get_local_id(0), size = get_local_size(0);
    tmp[l] = l + 1u;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint r = 0; r < rounds; ++r) {
        uint v = tmp[(l + 1u) % size];
        barrier(CLK_LOCAL_MEM_FENCE);
        tmp[l] = v * 3u + r;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[get_global_id(0)] = tmp[l];
}";
    let kernel = gpu.kernel(src, "rotate");
    let (groups, size) = (3usize, 16usize);
    for rounds in [0u32, 1, 3, 4, 5, 8, 11] {
        let out = gpu.zeroed::<u32>(groups * size);
        kernel
            .arg_buffer(0, &out)
            .arg_local(1, size * 4)
            .arg(2, rounds);
        gpu.run(&kernel, &[groups * size], Some(&[size]), None);
        let got: Vec<u32> = gpu.read(&out);
        let mut tmp: Vec<u32> = (1..=size as u32).collect();
        for r in 0..rounds {
            tmp = (0..size)
                .map(|l| tmp[(l + 1) % size].wrapping_mul(3).wrapping_add(r))
                .collect();
        }
        for g in 0..groups {
            assert_eq!(
                &got[g * size..(g + 1) * size],
                &tmp[..],
                "{rounds} rounds, group {g}"
            );
        }
    }
}

/// A loop over tiles whose body holds a loop of constant trips (a tiled
/// matrix product's shape): unrolled with its inner loop, it still runs
/// every tile and every inner trip in order, for tile counts around the
/// unroll factor.
#[test]
fn unrolled_loops_holding_constant_loops_run_every_trip() {
    let gpu = Gpu::new();
    let src = "
kernel void tiles(global const uint *in, global uint *out, local uint *tile, uint n) {
    uint l = get_local_id(0);
    uint h = 7u;
    for (uint t = 0; t < n; t += 4) {
        tile[l] = in[t + l];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint k = 0; k < 4; ++k)
            h = h * 33u + tile[k] + k;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[get_global_id(0)] = h;
}";
    let kernel = gpu.kernel(src, "tiles");
    let data: Vec<u32> = (0..64u32).map(|i| i.wrapping_mul(2654435761)).collect();
    let input = gpu.buffer(&data);
    for n in [0u32, 4, 8, 12, 16, 20, 28, 36, 60] {
        let out = gpu.zeroed::<u32>(4);
        kernel
            .arg_buffer(0, &input)
            .arg_buffer(1, &out)
            .arg_local(2, 16)
            .arg(3, n);
        gpu.run(&kernel, &[4], Some(&[4]), None);
        let mut h = 7u32;
        for t in (0..n as usize).step_by(4) {
            for k in 0..4 {
                h = h
                    .wrapping_mul(33)
                    .wrapping_add(data[t + k])
                    .wrapping_add(k as u32);
            }
        }
        assert_eq!(gpu.read::<u32>(&out), vec![h; 4], "n = {n}");
    }
}

/// hashcat's sha512crypt appends a digest to a block byte by byte in a
/// 64-trip loop with a second counter; the compiler copies such a loop
/// out (its counter indexes a private array). Each copy reads the digest
/// at its own constant index and writes the block at a run-time offset:
/// the bytes land where the loop as written puts them.
#[test]
fn loops_copied_out_run_every_trip() {
    let gpu = Gpu::new();
    let src = "
#define PUT64_BE(a, p, c) ((uchar *)(a))[(p) ^ 7] = (uchar)(c)
#define GET64_BE(a, p) ((uchar *)(a))[(p) ^ 7]
kernel void append(global const ulong *digests, global const uint *lens, global ulong *out) {
    size_t g = get_global_id(0);
    ulong digest[8];
    ulong block[16];
    for (uint i = 0; i < 8; ++i) digest[i] = digests[8 * g + i];
    for (uint i = 0; i < 16; ++i) block[i] = 0x0101010101010101ul * i;
    uint len = lens[g];
    for (uint k = 0, p = len; k < 64; k++, p++) PUT64_BE(block, p, GET64_BE(digest, k));
    ulong sum = 0;
    for (uint s = 0, t = 3; s < 5; ++s, t += 7) sum += digest[s] * t;
    for (uint i = 0; i < 16; ++i) out[17 * g + i] = block[i];
    out[17 * g + 16] = sum;
}";
    let kernel = gpu.kernel(src, "append");
    let n = 16usize;
    let digests: Vec<u64> = (0..8 * n as u64)
        .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (i << 7))
        .collect();
    let lens: Vec<u32> = (0..n as u32).map(|g| (g * 5) % 65).collect();
    let d = gpu.buffer(&digests);
    let l = gpu.buffer(&lens);
    let out = gpu.zeroed::<u64>(17 * n);
    kernel
        .arg_buffer(0, &d)
        .arg_buffer(1, &l)
        .arg_buffer(2, &out);
    gpu.run(&kernel, &[n], None, None);
    let got = gpu.read::<u64>(&out);
    for g in 0..n {
        let digest = &digests[8 * g..8 * g + 8];
        let mut block: Vec<u64> = (0..16u64).map(|i| 0x0101_0101_0101_0101 * i).collect();
        // Byte `x` of a little-endian array of `u64`s is byte `x % 8`
        // of word `x / 8`.
        let byte = |a: &[u64], x: usize| (a[x / 8] >> (8 * (x % 8))) as u8;
        for k in 0..64 {
            let p = lens[g] as usize + k;
            let b = byte(digest, k ^ 7);
            let (w, s) = ((p ^ 7) / 8, 8 * ((p ^ 7) % 8));
            block[w] = block[w] & !(0xff << s) | u64::from(b) << s;
        }
        let sum = (0..5u64).fold(0u64, |acc, s| {
            acc.wrapping_add(digest[s as usize].wrapping_mul(3 + 7 * s))
        });
        assert_eq!(
            &got[17 * g..17 * g + 16],
            &block[..],
            "block of work-item {g}"
        );
        assert_eq!(got[17 * g + 16], sum, "sum of work-item {g}");
    }
}

/// Loops of every shape the compiler copies out (counters counting down,
/// shifted, multiplied, 64-bit, signed, beside a second counter, read
/// after the loop) leave the same values as the same loops kept rolled
/// with `#pragma nounroll`.
#[test]
fn loops_copied_out_match_the_loops_kept_rolled() {
    let gpu = Gpu::new();
    let loops = [
        "for (int k = 10; k != 0; k -= 2) a[k >> 1] += (uint)k * acc;",
        "for (i = 1; i < 1000; i *= 3) a[i & 7] ^= i + acc;",
        "for (uint s = 128; s > 0; s >>= 1) a[s & 7] += s ^ acc;",
        "for (ulong b = 1; b < (1ul << 40); b <<= 4) a[b & 7] += (uint)(b >> 3) + acc;",
        "for (int d = -3; d <= 3; ++d) a[d + 3] = a[(d + 4) & 7] * 3u + (uint)d;",
        "for (uint k = 0, p = n; k < 16; k++, p += 3) a[(p + k) & 7] += k * acc;",
        "for (uint k = 0; k < 8; ++k) { uint t = a[k] ^ acc; a[7 - k] = t * 5u; acc += t; }",
    ];
    let body: String = loops
        .iter()
        .map(|l| format!("    ROLLED\n    {l}\n    acc = acc * 31u + a[acc & 7] + (uint)i;\n"))
        .collect();
    let src = format!(
        "kernel void k(global uint *out, uint n) {{
    uint g = get_global_id(0);
    uint a[8];
    for (uint j = 0; j < 8; ++j) a[j] = g * 2654435761u + j;
    uint acc = g, i = 0;
{body}    for (uint j = 0; j < 8; ++j) out[9 * g + j] = a[j];
    out[9 * g + 8] = acc + i;
}}"
    );
    let n = 8usize;
    let run = |rolled: &str| {
        let kernel = gpu.kernel(&src.replace("ROLLED", rolled), "k");
        let out = gpu.zeroed::<u32>(9 * n);
        kernel.arg_buffer(0, &out).arg(1, 5u32);
        gpu.run(&kernel, &[n], None, None);
        gpu.read::<u32>(&out)
    };
    let copied = run("");
    let rolled = run("#pragma nounroll");
    assert_eq!(copied, rolled);
    // The values differ from work-item to work-item: nothing above ran
    // on a constant.
    assert_ne!(copied[..9], copied[9..18]);
}

/// The two tests above in a process for each value of
/// `FERROCL_PRIVATE_LOOPS` (read when the library starts): loops copied
/// out, as NVIDIA's driver gets them, and kept, as other drivers do.
#[test]
fn loops_over_private_arrays_run_every_trip_both_ways() {
    for name in [
        "loops_copied_out_run_every_trip",
        "loops_copied_out_match_the_loops_kept_rolled",
    ] {
        common::rerun_with_each("FERROCL_PRIVATE_LOOPS", &["copy", "keep"], name);
    }
}
