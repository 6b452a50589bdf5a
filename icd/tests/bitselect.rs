//! `bitselect` against the host with random bits: on integers, on the
//! forms hash functions use (SHA's majority `bitselect(x, y, x ^ z)` and
//! choice `bitselect(z, y, x)`), on vectors and on floats; and the
//! majority written out, `(x & y) | (z & (x ^ y))`, which the compiler
//! rewrites (compiler/src/lower/majority.rs), in its orders, on vectors
//! and 64-bit values, on mixed types and with a side effect, which it
//! keeps as written.

mod common;

const SOURCE: &str = r#"
    __kernel void k(__global const uint *in, __global uint *out) {
        size_t g = get_global_id(0);
        size_t m = get_global_size(0);
        uint x = in[3 * g], y = in[3 * g + 1], z = in[3 * g + 2];
        out[g] = bitselect(x, y, z);
        out[m + g] = bitselect(x, y, x ^ z);
        out[2 * m + g] = bitselect(z, y, x);
        uint4 v = bitselect((uint4)(x, y, z, ~x), (uint4)(y, z, x, y), (uint4)(z, x, y, z));
        out[3 * m + g] = v.x ^ v.y ^ v.z ^ v.w;
        out[4 * m + g] = as_uint(bitselect(as_float(x), as_float(y), as_float(z)));
        out[5 * m + g] = (uint)bitselect((long)x << 32 | y, (long)y << 32 | z, (long)z << 32 | x);
        out[6 * m + g] = (x & y) | (z & (x ^ y));
        out[7 * m + g] = (z & (y ^ x)) | (y & x);
        uint4 a = (uint4)(x, y, z, ~x), b = (uint4)(y, z, x, y), c = (uint4)(z, x, y, z);
        uint4 w = ((a & b) | ((a ^ b) & c));
        out[8 * m + g] = w.x ^ w.y ^ w.z ^ w.w;
        ulong p = (ulong)x << 32 | y, q = (ulong)y << 32 | z, r = (ulong)z << 32 | x;
        ulong maj64 = (p & q) | (r & (p ^ q));
        out[9 * m + g] = (uint)(maj64 >> 32) ^ (uint)maj64;
        int sx = (int)x;
        out[10 * m + g] = (uint)(((sx & y) | ((long)r & (sx ^ y))) >> 7);
        uint n = x;
        out[11 * m + g] = (n++ & y) | (z & (n ^ y));
    }
"#;

/// The bits of `a` where `c` is 0, of `b` where it is 1.
fn select<T>(a: T, b: T, c: T) -> T
where
    T: std::ops::BitAnd<Output = T>
        + std::ops::BitOr<Output = T>
        + std::ops::Not<Output = T>
        + Copy,
{
    (a & !c) | (b & c)
}

#[test]
fn bitselect_matches_the_host() {
    let gpu = common::Gpu::new();
    let k = gpu.kernel(SOURCE, "k");
    let mut rng = common::XorShift::new(3);
    let m = 256usize;
    let mut input: Vec<u32> = (0..3 * m).map(|_| rng.next_u32()).collect();
    input[..6].copy_from_slice(&[0, u32::MAX, 0x5555_5555, u32::MAX, 0, 0xaaaa_aaaa]);
    let din = gpu.buffer(&input);
    let dout = gpu.zeroed::<u32>(12 * m);
    k.arg_buffer(0, &din).arg_buffer(1, &dout);
    gpu.run(&k, &[m], None, None);
    let out = gpu.read::<u32>(&dout);
    let want = |i: usize| {
        let (x, y, z) = (input[3 * i], input[3 * i + 1], input[3 * i + 2]);
        let v = [
            select(x, y, z),
            select(y, z, x),
            select(z, x, y),
            select(!x, y, z),
        ];
        let wide = |p: u32, q: u32| (u64::from(p) << 32) | u64::from(q);
        let maj = |a: u32, b: u32, c: u32| (a & b) | (a & c) | (b & c);
        let w = [maj(x, y, z), maj(y, z, x), maj(z, x, y), maj(!x, y, z)];
        let maj64 = {
            let (p, q, r) = (wide(x, y), wide(y, z), wide(z, x));
            (p & q) | (p & r) | (q & r)
        };
        // An `int` and a `uint` beside a `long`: their AND and XOR are
        // `uint`s, zero-extended where they meet `r` (the `int` alone
        // would be sign-extended).
        let mixed = {
            let r = wide(z, x) as i64;
            ((i64::from(x & y) | (r & i64::from(x ^ y))) >> 7) as u32
        };
        [
            select(x, y, z),
            maj(x, y, z),
            (x & y) | (!x & z),
            v[0] ^ v[1] ^ v[2] ^ v[3],
            select(x, y, z),
            select(wide(x, y), wide(y, z), wide(z, x)) as u32,
            maj(x, y, z),
            maj(x, y, z),
            w[0] ^ w[1] ^ w[2] ^ w[3],
            (maj64 >> 32) as u32 ^ maj64 as u32,
            mixed,
            (x & y) | (z & (x.wrapping_add(1) ^ y)),
        ]
    };
    for row in 0..12 {
        let got = &out[row * m..(row + 1) * m];
        let expected: Vec<u32> = (0..m).map(|i| want(i)[row]).collect();
        common::assert_same(got, &expected, &format!("row {row}"));
    }
}
