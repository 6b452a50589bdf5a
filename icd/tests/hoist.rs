//! Loops whose invariants the compiler computes before them
//! (compiler/src/spirv/hoist.rs), run on the first device (lavapipe in CI)
//! and compared with the host: a SHA-256 compression in which one message
//! word changes per trip, loops that run no trip with an index out of
//! bounds, and nested loops with invariants of each level and variables
//! stored on some paths only. The SPIR-V shapes are checked in
//! compiler/tests/hoist.rs.

mod common;

use common::*;

const K: [u32; 64] = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
];

const IV: [u32; 8] = [
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
];

/// The kernel in the form hashcat writes its `s04` loops: sixteen words
/// copied into variables each trip, the schedule expanded in them, only the
/// first word changing from trip to trip.
fn sha256_loop_source() -> String {
    let names: Vec<String> = (0..16).map(|j| format!("w{j:x}_t")).collect();
    let regs = ["a", "b", "c", "d", "e", "f", "g", "h"];
    let mut body = String::new();
    for t in 0..64 {
        let r: Vec<&str> = (0..8).map(|k| regs[(k + 8 - t % 8) % 8]).collect();
        let wt = &names[t % 16];
        if t >= 16 {
            body += &format!(
                "    {wt} = EXPAND({}, {}, {}, {wt});\n",
                names[(t - 2) % 16],
                names[(t - 7) % 16],
                names[(t - 15) % 16]
            );
        }
        body += &format!("    STEP({}, {wt}, 0x{:08x}u);\n", r.join(","), K[t]);
    }
    let copies: String = (1..16)
        .map(|j| format!("    uint {} = w[{j}];\n", names[j]))
        .collect();
    format!(
        "#define S0(x) (rotate((x), 25u) ^ rotate((x), 14u) ^ ((x) >> 3u))\n\
         #define S1(x) (rotate((x), 15u) ^ rotate((x), 13u) ^ ((x) >> 10u))\n\
         #define S2(x) (rotate((x), 30u) ^ rotate((x), 19u) ^ rotate((x), 10u))\n\
         #define S3(x) (rotate((x), 26u) ^ rotate((x), 21u) ^ rotate((x), 7u))\n\
         #define F0(x,y,z) (((x) & (y)) | ((z) & ((x) ^ (y))))\n\
         #define F1(x,y,z) ((z) ^ ((x) & ((y) ^ (z))))\n\
         #define STEP(a,b,c,d,e,f,g,h,x,K) {{ h = h + K + x; h = h + S3(e) + F1(e,f,g); d += h; h = h + S2(a) + F0(a,b,c); }}\n\
         #define EXPAND(x,y,z,w) (S1(x) + y + S0(z) + w)\n\
         __kernel void k(__global const uint *words, __global uint *out, uint iters) {{\n\
           uint id = get_global_id(0);\n\
           uint w[16];\n\
           for (int j = 0; j < 16; j++) w[j] = words[16 * id + j];\n\
           uint acc = 0;\n\
           for (uint i = 0; i < iters; i++) {{\n\
             uint {} = w[0] ^ (i * 0x01000193u);\n\
         {copies}\
             uint a = 0x{:08x}u, b = 0x{:08x}u, c = 0x{:08x}u, d = 0x{:08x}u, e = 0x{:08x}u, f = 0x{:08x}u, g = 0x{:08x}u, h = 0x{:08x}u;\n\
         {body}\
             acc ^= a + e;\n\
           }}\n\
           out[id] = acc;\n\
         }}\n",
        names[0], IV[0], IV[1], IV[2], IV[3], IV[4], IV[5], IV[6], IV[7]
    )
}

/// The same on the host: SHA-256's rounds on the words, their schedule
/// expanded in place.
fn sha256_loop_host(words: &[u32], iters: u32) -> u32 {
    let s0 = |x: u32| x.rotate_left(25) ^ x.rotate_left(14) ^ (x >> 3);
    let s1 = |x: u32| x.rotate_left(15) ^ x.rotate_left(13) ^ (x >> 10);
    let s2 = |x: u32| x.rotate_left(30) ^ x.rotate_left(19) ^ x.rotate_left(10);
    let s3 = |x: u32| x.rotate_left(26) ^ x.rotate_left(21) ^ x.rotate_left(7);
    let mut acc = 0u32;
    for i in 0..iters {
        let mut w: [u32; 16] = words.try_into().unwrap();
        w[0] ^= i.wrapping_mul(0x0100_0193);
        let mut r = IV;
        for t in 0..64 {
            if t >= 16 {
                w[t % 16] = s1(w[(t - 2) % 16])
                    .wrapping_add(w[(t - 7) % 16])
                    .wrapping_add(s0(w[(t - 15) % 16]))
                    .wrapping_add(w[t % 16]);
            }
            // The registers a..h rotate by one place a round.
            let at = |k: usize| (k + 8 - t % 8) % 8;
            let (a, b, c, e, f, g) = (r[at(0)], r[at(1)], r[at(2)], r[at(4)], r[at(5)], r[at(6)]);
            let mut h = r[at(7)].wrapping_add(K[t]).wrapping_add(w[t % 16]);
            h = h.wrapping_add(s3(e)).wrapping_add(g ^ (e & (f ^ g)));
            r[at(3)] = r[at(3)].wrapping_add(h);
            h = h.wrapping_add(s2(a)).wrapping_add((a & b) | (c & (a ^ b)));
            r[at(7)] = h;
        }
        acc ^= r[0].wrapping_add(r[4]);
    }
    acc
}

#[test]
fn a_sha256_loop_with_one_word_changing_matches_the_host() {
    let gpu = Gpu::new();
    let n = 64usize;
    let words = XorShift::new(71).u32s(16 * n);
    let src = sha256_loop_source();
    let (din, dout) = (gpu.buffer(&words), gpu.zeroed::<u32>(n));
    for iters in [0u32, 1, 5] {
        let k = gpu.kernel(&src, "k");
        k.arg_buffer(0, &din)
            .arg_buffer(1, &dout)
            .arg_bytes(2, &iters.to_le_bytes());
        gpu.run(&k, &[n], None, None);
        let want: Vec<u32> = words
            .chunks(16)
            .map(|w| sha256_loop_host(w, iters))
            .collect();
        assert_same(&gpu.read::<u32>(&dout), &want, &format!("{iters} trips"));
    }
}

#[test]
fn loops_that_run_no_trip_read_nothing_out_of_bounds() {
    // The words at `k` move before the loop with their index clamped to
    // the array: with `n` = 0 the loop never reads them, whatever `k` is.
    let gpu = Gpu::new();
    let src = r#"
        __kernel void k(__global const uint *in, __global uint *out, uint n, uint k) {
            uint id = get_global_id(0);
            uint w[8];
            for (int j = 0; j < 8; j++) w[j] = in[id] * (j + 1u);
            uint acc = id;
            for (uint i = 0; i < n; i = (i << 1) + 1) {
                uint a = w[k];
                uint b = w[k ^ 1u];
                acc += ((a >> 13) ^ (a * 0x9e3779b9u) ^ (a + 12345u)) + (b * 7u ^ (b >> 5)) + i;
            }
            out[id] = acc;
        }"#;
    let n = 32usize;
    let input = XorShift::new(72).u32s(n);
    let (din, dout) = (gpu.buffer(&input), gpu.zeroed::<u32>(n));
    for (trips_bound, index) in [(0u32, 0xffff_fff0u32), (0, 1 << 30), (9, 5), (9, 2)] {
        let k = gpu.kernel(src, "k");
        k.arg_buffer(0, &din)
            .arg_buffer(1, &dout)
            .arg_bytes(2, &trips_bound.to_le_bytes())
            .arg_bytes(3, &index.to_le_bytes());
        gpu.run(&k, &[n], None, None);
        let want: Vec<u32> = input
            .iter()
            .enumerate()
            .map(|(id, &x)| {
                let word = |j: u32| x.wrapping_mul(j + 1);
                let mut acc = id as u32;
                let mut i = 0u32;
                while i < trips_bound {
                    let (a, b) = (word(index), word(index ^ 1));
                    let mix = (a >> 13) ^ a.wrapping_mul(0x9e37_79b9) ^ a.wrapping_add(12345);
                    let other = b.wrapping_mul(7) ^ (b >> 5);
                    acc = acc.wrapping_add(mix).wrapping_add(other).wrapping_add(i);
                    i = (i << 1) + 1;
                }
                acc
            })
            .collect();
        assert_same(
            &gpu.read::<u32>(&dout),
            &want,
            &format!("n = {trips_bound}, k = {index:#x}"),
        );
    }
}

#[test]
fn nested_loops_keep_what_each_level_changes() {
    // `s` is invariant in the inner loop but not in the outer one; `t` is
    // stored on one path of the inner loop only; `u` is set before both.
    let gpu = Gpu::new();
    let src = r#"
        __kernel void k(__global const uint *in, __global uint *out, uint n, uint m) {
            uint id = get_global_id(0);
            uint u = in[id] * 0x85ebca6bu;
            uint acc = 0, t = 7u;
            for (uint o = 0; o < n; o = (o << 1) + 1) {
                uint s = (o ^ u) * 0xc2b2ae35u;
                for (uint i = 0; i < m; i = (i << 1) + 1) {
                    uint inner = ((s >> 15) ^ (s * 0x27d4eb2du) ^ (u + 0x165667b1u)) + t;
                    if ((inner ^ i) & 1u) t = inner >> 3;
                    acc = (acc ^ inner) + i * 3u + ((u >> 7) ^ (u * 0x9e3779b9u) ^ (u + 1u));
                }
            }
            out[id] = acc ^ t;
        }"#;
    let count = 32usize;
    let input = XorShift::new(73).u32s(count);
    let (din, dout) = (gpu.buffer(&input), gpu.zeroed::<u32>(count));
    for (n, m) in [(0u32, 9u32), (9, 0), (20, 40), (3, 1)] {
        let k = gpu.kernel(src, "k");
        k.arg_buffer(0, &din)
            .arg_buffer(1, &dout)
            .arg_bytes(2, &n.to_le_bytes())
            .arg_bytes(3, &m.to_le_bytes());
        gpu.run(&k, &[count], None, None);
        let want: Vec<u32> = input
            .iter()
            .map(|&x| {
                let u = x.wrapping_mul(0x85eb_ca6b);
                let (mut acc, mut t) = (0u32, 7u32);
                let mut o = 0u32;
                while o < n {
                    let s = (o ^ u).wrapping_mul(0xc2b2_ae35);
                    let mut i = 0u32;
                    while i < m {
                        let inner =
                            ((s >> 15) ^ s.wrapping_mul(0x27d4_eb2d) ^ u.wrapping_add(0x1656_67b1))
                                .wrapping_add(t);
                        if (inner ^ i) & 1 != 0 {
                            t = inner >> 3;
                        }
                        let mix = (u >> 7) ^ u.wrapping_mul(0x9e37_79b9) ^ u.wrapping_add(1);
                        acc = (acc ^ inner)
                            .wrapping_add(i.wrapping_mul(3))
                            .wrapping_add(mix);
                        i = (i << 1) + 1;
                    }
                    o = (o << 1) + 1;
                }
                acc ^ t
            })
            .collect();
        assert_same(&gpu.read::<u32>(&dout), &want, &format!("n = {n}, m = {m}"));
    }
}
