//! `bitselect` against the host with random bits: on integers, on the
//! forms hash functions use (SHA's majority `bitselect(x, y, x ^ z)` and
//! choice `bitselect(z, y, x)`), on vectors and on floats.

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
    let dout = gpu.zeroed::<u32>(6 * m);
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
        [
            select(x, y, z),
            (x & y) | (x & z) | (y & z),
            (x & y) | (!x & z),
            v[0] ^ v[1] ^ v[2] ^ v[3],
            select(x, y, z),
            select(wide(x, y), wide(y, z), wide(z, x)) as u32,
        ]
    };
    for row in 0..6 {
        let got = &out[row * m..(row + 1) * m];
        let expected: Vec<u32> = (0..m).map(|i| want(i)[row]).collect();
        common::assert_same(got, &expected, &format!("row {row}"));
    }
}
