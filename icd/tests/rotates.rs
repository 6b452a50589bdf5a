//! Rotates written as two shifts, and `rotate`, against the host: with
//! the shifts as written, and on 32-bit halves (compiler lower/rotate.rs,
//! which NVIDIA's driver gets). Both ways run on any device through
//! `FERROCL_ROTATE64`.

mod common;

/// Rows of results the kernel writes per work-item.
const ROWS: usize = 21;

const SOURCE: &str = r#"
    // hashcat's generic rotates: the counts are parameters, constants
    // only once inlined.
    ulong rotr64(const ulong a, const int n) { return (a >> n) | (a << (64 - n)); }
    ulong rotl64(const ulong a, const int n) { return (a << n) | (a >> (64 - n)); }

    typedef struct { ulong v; int n; } pair;

    __kernel void k(__global const ulong *x, __global const int *n,
                    __global ulong *out, __global long *sout) {
        size_t g = get_global_id(0);
        size_t m = get_global_size(0);
        ulong a = x[g];
        int c = n[g];
        pair p = { a, c };
        out[g] = (a >> c) | (a << (64 - c));
        out[m + g] = (a << (64 - c)) | (a >> c);
        out[2 * m + g] = rotl64(a, c);
        out[3 * m + g] = rotr64(a, 14) ^ rotr64(a, 18) ^ rotl64(a, 23);
        out[4 * m + g] = (a >> 14) | (a << 50);
        out[5 * m + g] = rotate(a, (ulong)c);
        out[6 * m + g] = (p.v >> p.n) | (p.v << (64 - p.n));
        ulong2 v = (ulong2)(a, ~a);
        ulong2 rv = (v >> c) | (v << (64 - c));
        out[7 * m + g] = rv.x;
        out[8 * m + g] = rv.y;
        ulong2 cv = (ulong2)((ulong)c, (ulong)(c + 5));
        ulong2 rw = (v << cv) | (v >> (64 - cv));
        out[9 * m + g] = rw.x;
        out[10 * m + g] = rw.y;
        ulong3 r3 = rotate((ulong3)(a, ~a, a ^ 0x5555), (ulong3)(c, 1, 63));
        out[11 * m + g] = r3.x;
        out[12 * m + g] = r3.y;
        out[13 * m + g] = r3.z;
        out[14 * m + g] = rotate((long)a, (long)-c);
        // Eight lanes: wider than a SPIR-V vector.
        ulong8 v8 = (ulong8)(a, ~a, a ^ 1, a + 1, a * 3, a >> 1, a << 1, 0);
        ulong8 r8 = rotate(v8, (ulong8)((ulong)c));
        ulong8 s8 = (v8 >> c) | (v8 << (64 - c));
        out[17 * m + g] = r8.s0 ^ r8.s1 ^ r8.s2 ^ r8.s3 ^ r8.s4 ^ r8.s5 ^ r8.s6 ^ r8.s7;
        out[18 * m + g] = s8.s0 ^ s8.s1 ^ s8.s2 ^ s8.s3 ^ s8.s4 ^ s8.s5 ^ s8.s6 ^ s8.s7;
        // `^` and `+` join the shifts as `|` does for a nonzero count.
        out[19 * m + g] = (a << 1) ^ (a >> (64 - 1));
        out[20 * m + g] = (a >> 20) + (a << 44);
        // Not 64-bit rotates: 32 bits, and counts that do not add up.
        out[15 * m + g] = ((uint)a >> c) | ((uint)a << (32 - c));
        out[16 * m + g] = (a >> c) | (a << (63 - c));
        // A signed value: `>>` copies the sign bit.
        long s = (long)a;
        sout[g] = (s >> c) | (s << (64 - c));
    }
"#;

/// Each output row of the kernel from one input and count.
fn expected(a: u64, c: i32) -> [u64; ROWS] {
    let rotr = |x: u64, n: i64| x.rotate_right((n & 63) as u32);
    let c = i64::from(c);
    let r3 = [
        a.rotate_left((c & 63) as u32),
        (!a).rotate_left(1),
        (a ^ 0x5555).rotate_left(63),
    ];
    let r32 = (a as u32).rotate_right((c & 31) as u32);
    let v8 = [
        a,
        !a,
        a ^ 1,
        a.wrapping_add(1),
        a.wrapping_mul(3),
        a >> 1,
        a << 1,
        0,
    ];
    let lanes = |n: i64| v8.iter().fold(0, |acc, &v| acc ^ rotr(v, n));
    [
        rotr(a, c),
        rotr(a, c),
        rotr(a, -c),
        rotr(a, 14) ^ rotr(a, 18) ^ rotr(a, -23),
        rotr(a, 14),
        rotr(a, -c),
        rotr(a, c),
        rotr(a, c),
        rotr(!a, c),
        rotr(a, -c),
        rotr(!a, -(c + 5)),
        r3[0],
        r3[1],
        r3[2],
        rotr(a, c),
        u64::from(r32),
        (a >> (c & 63)) | (a << ((63 - c) & 63)),
        lanes(-c),
        lanes(c),
        rotr(a, -1),
        rotr(a, 20),
    ]
}

fn signed_expected(a: u64, c: i32) -> i64 {
    let s = a as i64;
    let c = i64::from(c);
    (s >> (c & 63)) | (s << ((64 - c) & 63))
}

#[test]
fn rotates_match_the_host() {
    let gpu = common::Gpu::new();
    let k = gpu.kernel(SOURCE, "k");
    let mut rng = common::XorShift::new(11);
    let counts = [
        0, 1, 14, 31, 32, 33, 41, 63, 64, 65, 127, -1, -31, -32, -63, -64,
    ];
    let m = 512usize;
    let mut x: Vec<u64> = (0..m).map(|_| rng.next_u64()).collect();
    x[..4].copy_from_slice(&[0, u64::MAX, 1 << 63, 1]);
    let n: Vec<i32> = (0..m)
        .map(|i| match counts.get(i % 24) {
            Some(&c) => c,
            None => rng.next_u32() as i32 % 200,
        })
        .collect();
    let (dx, dn) = (gpu.buffer(&x), gpu.buffer(&n));
    let (dout, dsout) = (gpu.zeroed::<u64>(ROWS * m), gpu.zeroed::<i64>(m));
    k.arg_buffer(0, &dx)
        .arg_buffer(1, &dn)
        .arg_buffer(2, &dout)
        .arg_buffer(3, &dsout);
    gpu.run(&k, &[m], None, None);
    let out = gpu.read::<u64>(&dout);
    for row in 0..ROWS {
        let got = &out[row * m..(row + 1) * m];
        let want: Vec<u64> = (0..m).map(|i| expected(x[i], n[i])[row]).collect();
        common::assert_same(got, &want, &format!("row {row}"));
    }
    let want: Vec<i64> = (0..m).map(|i| signed_expected(x[i], n[i])).collect();
    common::assert_same(&gpu.read::<i64>(&dsout), &want, "signed shifts");
}

/// The test above in a process for each value of `FERROCL_ROTATE64` (read
/// when the library starts), whichever way the device would get.
#[test]
fn rotates_match_the_host_both_ways() {
    common::rerun_with_each(
        "FERROCL_ROTATE64",
        &["shifts", "halves"],
        "rotates_match_the_host",
    );
}

/// `rotate` by counts known when the kernel is compiled, which a compiler
/// may fold: every integer width, scalars and vectors, counts of 0, the
/// width, past it and negative, lanes alike and not.
const CONSTANT_COUNTS: &str = r#"
    __kernel void k(__global const ulong *x, __global ulong *out) {
        size_t g = get_global_id(0);
        ulong a = x[g];
        uint u = (uint)a;
        uint4 v = (uint4)(u, ~u, u ^ 0xa5a5a5a5u, (uint)(a >> 32));
        __global ulong *o = out + g * 16;
        uint4 r7 = rotate(v, 7);
        uint4 r9 = rotate(v, (uint4)(9));
        uint4 r0 = rotate(v, (uint4)(32, 32, 32, 32));
        uint4 rn = rotate(v, -3);
        uint4 rl = rotate(v, (uint4)(1, 0, 31, 45));
        o[0] = as_ulong(r7.lo); o[1] = as_ulong(r7.hi);
        o[2] = as_ulong(r9.lo) ^ as_ulong(r9.hi);
        o[3] = as_ulong(r0.lo) ^ as_ulong(r0.hi);
        o[4] = as_ulong(rn.lo); o[5] = as_ulong(rn.hi);
        o[6] = as_ulong(rl.lo); o[7] = as_ulong(rl.hi);
        o[8] = rotate(u, 13u);
        o[9] = rotate(u, 45u);
        o[10] = rotate((uchar)a, (uchar)3) | ((ulong)rotate((uchar)a, (uchar)11) << 8);
        o[11] = rotate((ushort)a, (ushort)5) | ((ulong)(ushort)rotate((short)a, (short)-1) << 16);
        o[12] = rotate(a, 17ul);
        o[13] = rotate(a, 64ul);
        ulong2 w = rotate((ulong2)(a, ~a), (ulong2)(71));
        o[14] = w.x ^ (w.y << 1);
        int8 e = rotate(as_int8((ulong4)(a, ~a, a * 3, a + 1)), 30);
        o[15] = as_ulong(e.s01) ^ as_ulong(e.s23) ^ as_ulong(e.s45) ^ as_ulong(e.s67);
    }
"#;

fn constant_counts_expected(a: u64) -> [u64; 16] {
    let u = a as u32;
    let v = [u, !u, u ^ 0xa5a5_a5a5, (a >> 32) as u32];
    let lanes = |n: [u32; 4]| -> [u32; 4] { std::array::from_fn(|i| v[i].rotate_left(n[i] & 31)) };
    let pair = |l: [u32; 4], i: usize| u64::from(l[i]) | u64::from(l[i + 1]) << 32;
    let (r7, r9, r0) = (lanes([7; 4]), lanes([9; 4]), lanes([0; 4]));
    let (rn, rl) = (lanes([29; 4]), lanes([1, 0, 31, 13]));
    let w = [a.rotate_left(7), (!a).rotate_left(7)];
    let words = |x: u64| [x as u32, (x >> 32) as u32];
    let e: Vec<u32> = [a, !a, a.wrapping_mul(3), a.wrapping_add(1)]
        .iter()
        .flat_map(|&x| words(x))
        .map(|x| x.rotate_left(30))
        .collect();
    let join = |i: usize| u64::from(e[i]) | u64::from(e[i + 1]) << 32;
    [
        pair(r7, 0),
        pair(r7, 2),
        pair(r9, 0) ^ pair(r9, 2),
        pair(r0, 0) ^ pair(r0, 2),
        pair(rn, 0),
        pair(rn, 2),
        pair(rl, 0),
        pair(rl, 2),
        u64::from(u.rotate_left(13)),
        u64::from(u.rotate_left(13)),
        u64::from((a as u8).rotate_left(3)) | u64::from((a as u8).rotate_left(3)) << 8,
        u64::from((a as u16).rotate_left(5)) | u64::from((a as u16).rotate_left(15)) << 16,
        a.rotate_left(17),
        a,
        w[0] ^ (w[1] << 1),
        join(0) ^ join(2) ^ join(4) ^ join(6),
    ]
}

#[test]
fn rotates_by_constants_match_the_host() {
    let gpu = common::Gpu::new();
    let k = gpu.kernel(CONSTANT_COUNTS, "k");
    let mut rng = common::XorShift::new(23);
    let m = 256usize;
    let mut x: Vec<u64> = (0..m).map(|_| rng.next_u64()).collect();
    x[..4].copy_from_slice(&[0, u64::MAX, 1 << 63, 1]);
    let dx = gpu.buffer(&x);
    let dout = gpu.zeroed::<u64>(16 * m);
    k.arg_buffer(0, &dx).arg_buffer(1, &dout);
    gpu.run(&k, &[m], None, None);
    let out = gpu.read::<u64>(&dout);
    for row in 0..16 {
        let got: Vec<u64> = (0..m).map(|i| out[i * 16 + row]).collect();
        let want: Vec<u64> = (0..m)
            .map(|i| constant_counts_expected(x[i])[row])
            .collect();
        common::assert_same(&got, &want, &format!("row {row}"));
    }
}
