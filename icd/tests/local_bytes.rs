//! Bytes of `__local` words written by many work-items at once: RC4 with
//! its state interleaved so that each work-item owns one 32-bit bank
//! (hashcat's GPU layout in `inc_cipher_rc4.cl`), each swap a byte load
//! and two byte stores into words that neighbouring work-items never
//! touch. The keystream must match a host RC4 for every work-group size.

mod common;

use common::{Gpu, XorShift};

const RC4: &str = "
#define KEY8(t, k) (((k) & 3) + (((k) / 4) * 128) + (((t) & 31) * 4) + (((t) / 32) * 8192))
#define KEY32(t, k) (((k) * 32) + ((t) & 31) + (((t) / 32) * 2048))
uchar get8(local uint *s, uchar k, ulong lid) { return ((local uchar *)s)[KEY8(lid, k)]; }
void set8(local uint *s, uchar k, uchar v, ulong lid) { ((local uchar *)s)[KEY8(lid, k)] = v; }
void swap8(local uint *s, uchar i, uchar j, ulong lid) {
    uchar t = get8(s, i, lid);
    set8(s, i, get8(s, j, lid), lid);
    set8(s, j, t, lid);
}
kernel void rc4(global const uint *keys, global uint *out) {
    local uint s[64 * 64];
    ulong lid = get_local_id(0);
    size_t g = get_global_id(0);
    uint key[4];
    for (int i = 0; i < 4; i++) key[i] = keys[4 * g + i];
    uint v = 0x03020100u;
    for (uchar i = 0; i < 64; i++) { s[KEY32(lid, i)] = v; v += 0x04040404u; }
    uchar j = 0;
    for (uint i = 0; i < 256; i++) {
        j += get8(s, (uchar)i, lid) + (uchar)(key[(i >> 2) & 3] >> (8 * (i & 3)));
        swap8(s, (uchar)i, j, lid);
    }
    uchar a = 0;
    j = 0;
    for (uint n = 0; n < 8; n++) {
        uint w = 0;
        for (uint b = 0; b < 4; b++) {
            a++;
            uchar x = get8(s, a, lid);
            j += x;
            swap8(s, a, j, lid);
            w |= (uint)get8(s, (uchar)(x + get8(s, a, lid)), lid) << (8 * b);
        }
        out[8 * g + n] = w;
    }
}";

/// RC4's first 32 keystream bytes for a 16-byte key, as little-endian words.
fn rc4_model(key: &[u32; 4]) -> [u32; 8] {
    let k: Vec<u8> = key.iter().flat_map(|w| w.to_le_bytes()).collect();
    let mut s: Vec<u8> = (0..=255).collect();
    let mut j = 0u8;
    for i in 0..256 {
        j = j.wrapping_add(s[i]).wrapping_add(k[i % 16]);
        s.swap(i, usize::from(j));
    }
    let (mut a, mut j) = (0u8, 0u8);
    let mut out = [0u32; 8];
    for word in &mut out {
        for b in 0..4 {
            a = a.wrapping_add(1);
            j = j.wrapping_add(s[usize::from(a)]);
            s.swap(usize::from(a), usize::from(j));
            let x = s[usize::from(a)].wrapping_add(s[usize::from(j)]);
            *word |= u32::from(s[usize::from(x)]) << (8 * b);
        }
    }
    out
}

#[test]
fn rc4_state_interleaved_in_local_words_gives_rc4s_keystream() {
    let gpu = Gpu::new();
    let kernel = gpu.kernel(RC4, "rc4");
    let items = 256;
    let keys = XorShift::new(12_500).u32s(4 * items);
    let want: Vec<u32> = keys
        .chunks(4)
        .flat_map(|k| rc4_model(&[k[0], k[1], k[2], k[3]]))
        .collect();
    for local in [1, 8, 32, 64] {
        let keys_buf = gpu.buffer(&keys);
        let out = gpu.zeroed::<u32>(8 * items);
        kernel.arg_buffer(0, &keys_buf).arg_buffer(1, &out);
        gpu.run(&kernel, &[items], Some(&[local]), None);
        let got: Vec<u32> = gpu.read(&out);
        let wrong = (0..items).find(|&i| got[8 * i..8 * i + 8] != want[8 * i..8 * i + 8]);
        assert_eq!(
            wrong, None,
            "work-groups of {local}: first work-item with a wrong keystream"
        );
    }
}
