//! `const` integer locals with constant initializers are read as their
//! constants, and loops they bound count as constant-trip loops
//! (compiler/src/lower/mod.rs `note_constant_local`, lower/unroll.rs):
//! hashcat's scrypt row loops, bounds made by division, a negative start,
//! values that wrap to the declared type, and an inner `const` local with
//! a run-time value hiding a constant one, against the host. The SPIR-V
//! shapes: compiler/tests/loop_unroll.rs.

mod common;

use common::*;

const SOURCE: &str = r#"
    #define ZS 8
    __kernel void rows(__global const uint4 *V, __global const uint *ks, __global uint *out) {
        const uint ySIZE = 64u / 2u;
        const uint zSIZE = ZS;
        const uint x = (uint)get_global_id(0);
        const uint xd4 = x / 4;
        const uint y = ks[x] % ySIZE;
        uint4 T[ZS];
        for (uint z = 0; z < zSIZE; z++) T[z] = V[xd4 * ySIZE * zSIZE + y * zSIZE + z];
        uint h = 7u;
        for (uint z = 0; z < zSIZE; z++) {
            h = h * 31u + T[z].x + T[z].y * 3u + T[z].z * 5u + T[z].w * 7u;
        }
        const int lo = -7 / 2;
        for (int i = lo; i < 5; ++i) h = h * 37u + (uint)i;
        const uchar w = 266;
        for (uint i = 0; i < w; i += 1) h = h * 41u + i;
        const short s = -40000;
        h = h * 43u + (uint)s;
        const ulong big = 0xffffffffffUL * 3UL;
        h = h * 47u + (uint)(big >> 20);
        const uint c = 8u;
        {
            const uint c = ks[x] & 7u;
            for (uint i = 0; i < c; ++i) h = h * 53u + i;
        }
        for (uint i = 0; i < c; ++i) h = h * 59u + i;
        out[x] = h;
    }
"#;

const ITEMS: usize = 64;
const Y_SIZE: usize = 32;
const Z_SIZE: usize = 8;

/// `out[x]` as the kernel computes it, in the host's wrapping arithmetic.
fn expected(v: &[u32], k: u32, x: usize) -> u32 {
    let row = (x / 4) * Y_SIZE * Z_SIZE + (k as usize % Y_SIZE) * Z_SIZE;
    let mut h = 7u32;
    for z in 0..Z_SIZE {
        let t = &v[4 * (row + z)..4 * (row + z) + 4];
        h = h
            .wrapping_mul(31)
            .wrapping_add(t[0])
            .wrapping_add(t[1].wrapping_mul(3))
            .wrapping_add(t[2].wrapping_mul(5))
            .wrapping_add(t[3].wrapping_mul(7));
    }
    // -7 / 2 truncates to -3.
    for i in -3i32..5 {
        h = h.wrapping_mul(37).wrapping_add(i as u32);
    }
    // 266 as a uchar is 10.
    for i in 0..10u32 {
        h = h.wrapping_mul(41).wrapping_add(i);
    }
    // -40000 as a short is 25536.
    h = h.wrapping_mul(43).wrapping_add(25536);
    h = h
        .wrapping_mul(47)
        .wrapping_add(((0xff_ffff_ffffu64 * 3) >> 20) as u32);
    for i in 0..(k & 7) {
        h = h.wrapping_mul(53).wrapping_add(i);
    }
    for i in 0..8u32 {
        h = h.wrapping_mul(59).wrapping_add(i);
    }
    h
}

#[test]
fn const_locals_read_as_constants_give_the_hosts_results() {
    let gpu = Gpu::new();
    let kernel = gpu.kernel(SOURCE, "rows");
    let mut rng = XorShift::new(0x5c_0157);
    let v = rng.u32s(4 * (ITEMS / 4) * Y_SIZE * Z_SIZE);
    let ks = rng.u32s(ITEMS);
    let v_buf = gpu.buffer(&v);
    let k_buf = gpu.buffer(&ks);
    let out = gpu.zeroed::<u32>(ITEMS);
    kernel
        .arg_buffer(0, &v_buf)
        .arg_buffer(1, &k_buf)
        .arg_buffer(2, &out);
    gpu.run(&kernel, &[ITEMS], None, None);
    let got: Vec<u32> = gpu.read(&out);
    for (x, (&g, &k)) in got.iter().zip(&ks).enumerate() {
        assert_eq!(g, expected(&v, k, x), "work-item {x}, k = {k}");
    }
}

/// The test above in a process for each value of `FERROCL_CONST_LOCALS`
/// (read when the library starts): `const` locals read as constants, and
/// kept as variables.
#[test]
fn const_locals_both_ways() {
    common::rerun_with_each(
        "FERROCL_CONST_LOCALS",
        &["fold", "keep"],
        "const_locals_read_as_constants_give_the_hosts_results",
    );
}
