//! Byte alignments written as `if`/`else if` chains of funnel shifts,
//! against the host: the chains the compiler turns into one shift
//! (compiler lower/funnel.rs), as a 64-bit shift of the pair (NVIDIA's
//! driver) and as 32-bit shifts (the others), and chains that lower as
//! written. Both ways run on any device through `FERROCL_FUNNEL`.

mod common;

/// Rows of results the kernel writes per work-item.
const ROWS: usize = 9;

const SOURCE: &str = r#"
    // hashcat's generic byte alignments, big- and little-endian.
    uint align_be(const uint a, const uint b, const int c) {
        uint r = 0;
        const int cm = c & 3;
             if (cm == 0) { r = b;                     }
        else if (cm == 1) { r = (a << 24) | (b >>  8); }
        else if (cm == 2) { r = (a << 16) | (b >> 16); }
        else if (cm == 3) { r = (a <<  8) | (b >> 24); }
        return r;
    }
    uint align_le(const uint a, const uint b, const int c) {
        uint r = 0;
        const int cm = c & 3;
             if (cm == 0) { r = b;                     }
        else if (cm == 1) { r = (a >> 24) | (b <<  8); }
        else if (cm == 2) { r = (a >> 16) | (b << 16); }
        else if (cm == 3) { r = (a >>  8) | (b << 24); }
        return r;
    }

    __kernel void k(__global const uint *x, __global const int *n, __global uint *out) {
        size_t g = get_global_id(0);
        size_t m = get_global_size(0);
        uint a = x[2 * g], b = x[2 * g + 1];
        int c = n[g];
        uint sc = (uint)c;
        out[g] = align_be(a, b, c);
        out[m + g] = align_le(a, b, c);
        // Unmasked: a value outside the constants keeps the old value.
        uint r = 7;
        if (sc == 2) r = (a << 16) | (b >> 16);
        else if (sc == 3) r = (a << 8) | (b >> 24);
        else if (sc == 4) r = a;
        out[2 * m + g] = r;
        // Constants first, arms in another order, a step of 4 bits.
        uint s = 9;
        if (1 == sc) s = (b << 28) | (a >> 4);
        else if (0 == sc) s = a;
        else if (2 == sc) s = (b << 24) | (a >> 8);
        out[3 * m + g] = s;
        // A shift left in every arm: `high` is the other variable.
        uint t = 5;
        if (sc == 5) { t = (b >> 31) | (a << 1); }
        else if (sc == 6) { t = (b >> 30) | (a << 2); }
        else if (sc == 7) { t = (b >> 29) | (a << 3); }
        out[4 * m + g] = t;
        // Not a funnel chain: the amounts are not affine in the value.
        uint u = 3;
        if (sc == 0) u = (a << 24) | (b >> 8);
        else if (sc == 1) u = (a << 16) | (b >> 16);
        else if (sc == 2) u = (a << 8) | (b >> 24);
        else if (sc == 3) u = (a << 28) | (b >> 4);
        out[5 * m + g] = u;
        // Not one either: a gap in the constants, two pairs of values.
        uint v = 1;
        if (sc == 0) v = b;
        else if (sc == 1) v = (a << 24) | (b >> 8);
        else if (sc == 3) v = (a << 8) | (b >> 24);
        out[6 * m + g] = v;
        uint w = 2;
        if (sc == 0) w = b;
        else if (sc == 1) w = (a << 24) | (b >> 8);
        else if (sc == 2) w = (b << 16) | (a >> 16);
        out[7 * m + g] = w;
        // A signed value: `>>` copies the sign bit, not a funnel shift.
        int sa = (int)a, sr = 11;
        if (sc == 1) sr = (sa << 24) | (sa >> 8);
        else if (sc == 2) sr = (sa << 16) | (sa >> 16);
        else if (sc == 3) sr = (sa << 8) | (sa >> 24);
        out[8 * m + g] = (uint)sr;
    }
"#;

/// The low 32 bits of `high:low` shifted right by `s` (0..=32).
fn funnel(high: u32, low: u32, s: u32) -> u32 {
    ((((high as u64) << 32) | low as u64) >> s) as u32
}

/// `(x << up) | (x >> down)` of a signed value, whose `>>` copies the
/// sign bit: no rotate.
fn signed_shifts(x: i32, up: u32, down: u32) -> u32 {
    ((x << up) | (x >> down)) as u32
}

/// Each output row of the kernel from one pair and count.
fn expected(a: u32, b: u32, c: i32) -> [u32; ROWS] {
    let cm = (c & 3) as u32;
    let sc = c as u32;
    let pick = |old: u32, arms: &[(u32, u32)]| {
        arms.iter().find(|(k, _)| *k == sc).map_or(old, |&(_, v)| v)
    };
    let sa = a as i32;
    [
        funnel(a, b, 8 * cm),
        funnel(b, a, 32 - 8 * cm),
        pick(7, &[(2, funnel(a, b, 16)), (3, funnel(a, b, 24)), (4, a)]),
        pick(9, &[(0, a), (1, funnel(b, a, 4)), (2, funnel(b, a, 8))]),
        pick(
            5,
            &[
                (5, funnel(a, b, 31)),
                (6, funnel(a, b, 30)),
                (7, funnel(a, b, 29)),
            ],
        ),
        pick(
            3,
            &[
                (0, funnel(a, b, 8)),
                (1, funnel(a, b, 16)),
                (2, funnel(a, b, 24)),
                (3, funnel(a, b, 4)),
            ],
        ),
        pick(1, &[(0, b), (1, funnel(a, b, 8)), (3, funnel(a, b, 24))]),
        pick(2, &[(0, b), (1, funnel(a, b, 8)), (2, funnel(b, a, 16))]),
        pick(
            11,
            &[
                (1, signed_shifts(sa, 24, 8)),
                (2, signed_shifts(sa, 16, 16)),
                (3, signed_shifts(sa, 8, 24)),
            ],
        ),
    ]
}

#[test]
fn byte_alignments_match_the_host() {
    let gpu = common::Gpu::new();
    let k = gpu.kernel(SOURCE, "k");
    let mut rng = common::XorShift::new(5);
    let m = 512usize;
    let mut x: Vec<u32> = (0..2 * m).map(|_| rng.next_u32()).collect();
    x[..4].copy_from_slice(&[0, u32::MAX, 0x8000_0001, 0x1234_5678]);
    // Every count from -4 to 11 (inside and outside each chain's
    // constants), then random ones.
    let n: Vec<i32> = (0..m)
        .map(|i| match i {
            0..=63 => (i % 16) as i32 - 4,
            _ => rng.next_u32() as i32,
        })
        .collect();
    let (dx, dn) = (gpu.buffer(&x), gpu.buffer(&n));
    let dout = gpu.zeroed::<u32>(ROWS * m);
    k.arg_buffer(0, &dx).arg_buffer(1, &dn).arg_buffer(2, &dout);
    gpu.run(&k, &[m], None, None);
    let out = gpu.read::<u32>(&dout);
    for row in 0..ROWS {
        let got = &out[row * m..(row + 1) * m];
        let want: Vec<u32> = (0..m)
            .map(|i| expected(x[2 * i], x[2 * i + 1], n[i])[row])
            .collect();
        common::assert_same(got, &want, &format!("row {row}"));
    }
}

/// The test above in a process for each value of `FERROCL_FUNNEL` (read
/// when the library starts), whichever way the device would get.
#[test]
fn byte_alignments_match_the_host_both_ways() {
    common::rerun_with_each(
        "FERROCL_FUNNEL",
        &["narrow", "wide"],
        "byte_alignments_match_the_host",
    );
}
