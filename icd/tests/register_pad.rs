//! Launches with the register pad sized and without it (compiler
//! lower/register_pad.rs, runtime/src/kernel.rs `pads_registers`): a
//! small NDRange (the pad sized), a large one (not), and a small one whose
//! `__local` memory leaves no room for the pad, each against the host, in a
//! process with `FERROCL_REGISTER_PAD=on` and one with `=off`.

mod common;

use common::*;
use ferrocl_runtime::cl::CL_DEVICE_LOCAL_MEM_SIZE;

const SOURCE: &str = r#"
    __kernel void rows(__global const uint4 *v, __global uint *out, __local uint *scratch,
                       uint scratch_words) {
        size_t g = get_global_id(0);
        uint l = (uint)get_local_id(0);
        uint4 t[16];
        for (uint z = 0; z < 16u; z++) t[z] = v[(g * 16u + z) % 4096u];
        uint h = 7u;
        for (uint z = 0; z < 16u; z++) h = h * 31u + t[z].x + t[z].y * 3u + t[z].z * 5u + t[z].w;
        scratch[l % scratch_words] = h;
        barrier(CLK_LOCAL_MEM_FENCE);
        out[g] = h + 3u * scratch[(l ^ 1u) % scratch_words];
    }
"#;

/// `h` of work-item `g`.
fn row_hash(v: &[u32], g: usize) -> u32 {
    let mut h = 7u32;
    for z in 0..16 {
        let e = 4 * ((g * 16 + z) % 4096);
        h = h
            .wrapping_mul(31)
            .wrapping_add(v[e])
            .wrapping_add(v[e + 1].wrapping_mul(3))
            .wrapping_add(v[e + 2].wrapping_mul(5))
            .wrapping_add(v[e + 3]);
    }
    h
}

/// `out[g]` as the kernel computes it: the groups are 64 wide and
/// `scratch` holds at least 64 words, so `l ^ 1` is work-item `g ^ 1`.
fn expected(v: &[u32], g: usize) -> u32 {
    row_hash(v, g).wrapping_add(row_hash(v, g ^ 1).wrapping_mul(3))
}

#[test]
fn launches_with_and_without_the_register_pad() {
    let gpu = Gpu::new();
    let kernel = gpu.kernel(SOURCE, "rows");
    let v = XorShift::new(0x9ad).u32s(4 * 4096);
    let dv = gpu.buffer(&v);
    let local_limit = gpu.device_info::<u64>(CL_DEVICE_LOCAL_MEM_SIZE) as usize;
    // The pad is 8 KiB: a launch using all but 4 KiB of the device's
    // `__local` memory has no room for it.
    for (items, scratch_bytes) in [(256, 256), (1 << 18, 256), (256, local_limit - 4096)] {
        let out = gpu.zeroed::<u32>(items);
        kernel
            .arg_buffer(0, &dv)
            .arg_buffer(1, &out)
            .arg_local(2, scratch_bytes)
            .arg(3, (scratch_bytes / 4) as u32);
        gpu.run(&kernel, &[items], Some(&[64]), None);
        let got: Vec<u32> = gpu.read(&out);
        let want: Vec<u32> = (0..items).map(|g| expected(&v, g)).collect();
        assert_same(
            &got,
            &want,
            &format!("{items} work-items, {scratch_bytes} bytes"),
        );
    }
}

/// The test above in a process for each value of `FERROCL_REGISTER_PAD`
/// (read when the library starts).
#[test]
fn register_pad_both_ways() {
    common::rerun_with_each(
        "FERROCL_REGISTER_PAD",
        &["on", "off"],
        "launches_with_and_without_the_register_pad",
    );
}
