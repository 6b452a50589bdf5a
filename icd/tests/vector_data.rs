//! Execution tests for the vector data functions (section 6.15.7 of the
//! OpenCL C specification): `vload_half`/`vloada_half` over every half bit
//! pattern, `vstore_half`/`vstorea_half` in every rounding mode from
//! `float` and `double`, and `vload`/`vstore` of every type and width, each
//! in every address space, against references computed on the host.

mod common;

use common::*;
use ferrocl_runtime::cl::CL_DEVICE_EXTENSIONS;

const WIDTHS: [usize; 6] = [1, 2, 3, 4, 8, 16];

/// The OpenCL C spelling of a vector width (empty for a scalar).
fn suffix(n: usize) -> String {
    if n == 1 {
        String::new()
    } else {
        n.to_string()
    }
}

/// The exact value of a binary16 bit pattern (infinity as itself, NaN as
/// NaN).
fn half_value(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = i32::from((h >> 10) & 0x1f);
    let m = f64::from(h & 0x3ff);
    match e {
        0 => sign * m * 2f64.powi(-24),
        31 if m == 0.0 => sign * f64::INFINITY,
        31 => f64::NAN,
        e => sign * (1.0 + m / 1024.0) * 2f64.powi(e - 15),
    }
}

fn is_half_nan(h: u16) -> bool {
    h & 0x7c00 == 0x7c00 && h & 0x3ff != 0
}

/// `x` rounded to binary16 in `mode`, by search among the ordered positive
/// halves (a different method from the device's bit arithmetic). Infinity
/// stands at 2^16 for the search, which is where IEEE 754 places the
/// overflow threshold of round to nearest (half-way to 2^16 from 65504).
fn round_to_half(x: f64, mode: Mode) -> u16 {
    if x.is_nan() {
        return 0x7e00;
    }
    let sign: u16 = if x.is_sign_negative() { 0x8000 } else { 0 };
    let a = x.abs();
    if a.is_infinite() {
        return sign | 0x7c00;
    }
    let value = |k: u16| {
        if k == 0x7c00 {
            65536.0
        } else {
            half_value(k)
        }
    };
    // The largest k with value(k) <= a, capped below infinity.
    let (mut lo, mut hi) = (0u16, 0x7c00u16);
    if a >= 65536.0 {
        lo = 0x7bff;
    } else {
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if value(mid) <= a {
                lo = mid;
            } else {
                hi = mid;
            }
        }
    }
    if value(lo) == a {
        return sign | lo;
    }
    let up = lo + 1;
    let positive = sign == 0;
    let pick = match mode {
        Mode::Rtz => lo,
        Mode::Rtp => {
            if positive {
                up
            } else {
                lo
            }
        }
        Mode::Rtn => {
            if positive {
                lo
            } else {
                up
            }
        }
        Mode::Default | Mode::Rte => {
            let below = a - value(lo);
            let above = value(up) - a;
            if below < above || (below == above && lo % 2 == 0) {
                lo
            } else {
                up
            }
        }
    };
    sign | pick
}

#[test]
fn host_reference_rounds_as_ieee_754_says() {
    assert_eq!(round_to_half(1.0, Mode::Rte), 0x3c00);
    assert_eq!(round_to_half(65504.0, Mode::Rtp), 0x7bff);
    assert_eq!(round_to_half(65519.0, Mode::Rte), 0x7bff);
    assert_eq!(round_to_half(65520.0, Mode::Rte), 0x7c00);
    assert_eq!(round_to_half(1e9, Mode::Rtz), 0x7bff);
    assert_eq!(round_to_half(-1e9, Mode::Rtp), 0xfbff);
    assert_eq!(round_to_half(-1e9, Mode::Rtn), 0xfc00);
    assert_eq!(round_to_half(2f64.powi(-26), Mode::Rtp), 0x0001);
    assert_eq!(round_to_half(2f64.powi(-25), Mode::Rte), 0x0000);
    assert_eq!(round_to_half(-2f64.powi(-30), Mode::Rtn), 0x8001);
    assert_eq!(round_to_half(1.0 + 2f64.powi(-11), Mode::Rte), 0x3c00);
    assert_eq!(
        round_to_half(1.0 + 2f64.powi(-11) + 2f64.powi(-40), Mode::Rte),
        0x3c01
    );
}

/// Values around every kind of boundary of binary16, with both signs.
fn edge_values() -> Vec<f64> {
    let mut v = vec![
        0.0,
        1.0,
        1.5,
        65504.0,
        65519.0,
        65519.99,
        65520.0,
        65536.0,
        1e10,
        f64::from(f32::MAX),
        f64::INFINITY,
        f64::NAN,
        2f64.powi(-14),
        2f64.powi(-24),
        2f64.powi(-25),
        2f64.powi(-26),
        3.0 * 2f64.powi(-26),
        2f64.powi(-149),
        2f64.powi(-126),
        1.0 / 3.0,
        std::f64::consts::PI,
    ];
    // Every half, and the points just beside it and half-way between
    // neighbours (ties in round to nearest).
    for h in (0u16..0x7c00)
        .step_by(97)
        .chain([0x3ff, 0x400, 0x7bfe, 0x7bff])
    {
        let x = half_value(h);
        let next = half_value(h + 1);
        let mid = (x + next) / 2.0;
        v.extend([
            x,
            mid,
            f64::from((mid as f32).next_up()),
            f64::from((mid as f32).next_down()),
        ]);
    }
    let negated: Vec<f64> = v.iter().map(|x| -x).collect();
    v.extend(negated);
    v
}

/// Floats: the edge values, then random ones spread over the exponents
/// around the half range, then random bit patterns.
fn float_inputs(count: usize) -> Vec<f32> {
    let mut v: Vec<f32> = edge_values().iter().map(|&x| x as f32).collect();
    let mut rng = XorShift::new(0x5eed_0016);
    while v.len() < count * 3 / 4 {
        let bits = rng.next_u32();
        let exp = 127 - 30 + (rng.next_u32() % 50);
        v.push(f32::from_bits((bits & 0x807f_ffff) | (exp << 23)));
    }
    while v.len() < count {
        v.push(f32::from_bits(rng.next_u32()));
    }
    v.truncate(count);
    v
}

/// Doubles: as for floats, with fraction bits below float precision, where
/// rounding through float would round twice.
fn double_inputs(count: usize) -> Vec<f64> {
    let mut v = edge_values();
    v.extend([
        1.0 + 2f64.powi(-11) + 2f64.powi(-40),
        1.0 + 2f64.powi(-11) - 2f64.powi(-40),
        65520.0 - 2f64.powi(-30),
        2f64.powi(-25) + 2f64.powi(-60),
        -(2f64.powi(-25) + 2f64.powi(-60)),
    ]);
    let mut rng = XorShift::new(0xd0b1_e016);
    while v.len() < count * 3 / 4 {
        let hi = u64::from(rng.next_u32());
        let lo = u64::from(rng.next_u32());
        let exp = 1023 - 30 + u64::from(rng.next_u32() % 50);
        let bits = ((hi << 32 | lo) & 0x800f_ffff_ffff_ffff) | (exp << 52);
        v.push(f64::from_bits(bits));
    }
    while v.len() < count {
        let hi = u64::from(rng.next_u32());
        let lo = u64::from(rng.next_u32());
        v.push(f64::from_bits(hi << 32 | lo));
    }
    v.truncate(count);
    v
}

fn has_extension(gpu: &Gpu, name: &str) -> bool {
    gpu.device_string(CL_DEVICE_EXTENSIONS)
        .split_whitespace()
        .any(|e| e == name)
}

/// Compares device halves with the host reference; NaN need only be NaN.
fn check_halves(got: &[u16], want: &[u16], inputs: &dyn Fn(usize) -> String, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    let mut bad = Vec::new();
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let ok = if is_half_nan(w) {
            is_half_nan(g)
        } else {
            g == w
        };
        if !ok {
            bad.push(format!(
                "[{i}] input {}: got {g:#06x}, want {w:#06x}",
                inputs(i)
            ));
        }
    }
    assert!(
        bad.is_empty(),
        "{what}: {} wrong halves, first: {:?}",
        bad.len(),
        &bad[..bad.len().min(8)]
    );
}

const LOCAL: usize = 64;

/// A kernel storing `n`-wide `src` vectors (read with vload from `in`) as
/// halves with `vstore{a}_half{n}{mode}` into `space` memory, then copying
/// the halves out as ushorts; `aligned` uses the `vstorea_half` form.
fn store_kernel(src: &str, n: usize, mode: Mode, aligned: bool, space: &str) -> String {
    let func = format!(
        "vstore{}_half{}{}",
        if aligned { "a" } else { "" },
        suffix(n),
        mode.suffix()
    );
    let stride = if aligned && n == 3 { 4 } else { n };
    let value = if n == 1 {
        "in[i]".to_string()
    } else {
        format!("vload{n}(i, in)")
    };
    let pragma = if src == "double" {
        "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
    } else {
        ""
    };
    let body = match space {
        "global" => format!("{func}({value}, i, (__global half *)out);"),
        "local" => format!(
            "__local ushort buf[{LOCAL} * {stride}];
            size_t l = get_local_id(0);
            {func}({value}, l, (__local half *)buf);
            barrier(CLK_LOCAL_MEM_FENCE);
            for (int k = 0; k < {stride}; k++)
                out[i * {stride} + k] = buf[l * {stride} + k];"
        ),
        _ => format!(
            "ushort buf[2 * {stride}];
            for (int k = 0; k < 2 * {stride}; k++)
                buf[k] = out[i * {stride} + k % {stride}];
            {func}({value}, 1, (__private half *)buf);
            for (int k = 0; k < {stride}; k++)
                out[i * {stride} + k] = buf[{stride} + k];"
        ),
    };
    format!(
        "{pragma}__kernel void k(__global const {src} *in, __global ushort *out) {{
            size_t i = get_global_id(0);
            {body}
        }}"
    )
}

/// Runs every store form over `values` (given to the device as `bytes`)
/// and compares each stored half with `want(value index, mode)`.
fn check_stores(
    gpu: &Gpu,
    src: &str,
    bytes: &[u8],
    count: usize,
    want: &dyn Fn(usize, Mode) -> u16,
    show: &dyn Fn(usize) -> String,
) {
    let din = gpu.buffer(bytes);
    const SENTINEL: u16 = 0xdead;
    for space in ["global", "local", "private"] {
        for &n in &WIDTHS {
            for aligned in [false, true] {
                if aligned && n == 1 {
                    continue;
                }
                let stride = if aligned && n == 3 { 4 } else { n };
                let groups = count / n / LOCAL;
                let items = groups * LOCAL;
                for mode in MODES {
                    let src_text = store_kernel(src, n, mode, aligned, space);
                    let k = gpu.kernel(&src_text, "k");
                    let out = gpu.buffer(&vec![SENTINEL; items * stride]);
                    k.arg_buffer(0, &din).arg_buffer(1, &out);
                    gpu.run(&k, &[items], Some(&[LOCAL]), None);
                    let got: Vec<u16> = gpu.read(&out);
                    let mut g = Vec::new();
                    let mut w = Vec::new();
                    for i in 0..items {
                        for c in 0..n {
                            g.push(got[i * stride + c]);
                            w.push(want(i * n + c, mode));
                        }
                        // vstorea_half3 writes 3 of its 4 slots (the
                        // local kernel copies out a slot nobody wrote).
                        if stride > n && space != "local" {
                            assert_eq!(
                                got[i * stride + 3],
                                SENTINEL,
                                "{src} {space} vstorea_half3{} wrote a 4th half",
                                mode.suffix()
                            );
                        }
                    }
                    let what = format!(
                        "{src} -> half, {space}, vstore{}_half{}{}",
                        if aligned { "a" } else { "" },
                        suffix(n),
                        mode.suffix()
                    );
                    let show_at = |j: usize| show((j / n) * n + j % n);
                    check_halves(&g, &w, &show_at, &what);
                }
            }
        }
    }
}

#[test]
fn vstore_half_from_float_in_every_rounding_mode_and_space() {
    let gpu = Gpu::new();
    let count = 48 * LOCAL * 2;
    let values = float_inputs(count);
    let want = |i: usize, mode: Mode| round_to_half(f64::from(values[i]), mode);
    let show = |i: usize| format!("{:e} ({:#010x})", values[i], values[i].to_bits());
    check_stores(&gpu, "float", as_bytes(&values), count, &want, &show);
}

#[test]
fn vstore_half_from_double_rounds_once() {
    let gpu = Gpu::new();
    if !has_extension(&gpu, "cl_khr_fp64") {
        eprintln!("device lacks cl_khr_fp64: skipped");
        return;
    }
    let count = 48 * LOCAL * 2;
    let values = double_inputs(count);
    let want = |i: usize, mode: Mode| round_to_half(values[i], mode);
    let show = |i: usize| format!("{:e} ({:#018x})", values[i], values[i].to_bits());
    check_stores(&gpu, "double", as_bytes(&values), count, &want, &show);
}

/// A kernel reading `vload{a}_half{n}` from `space` memory filled with the
/// ushorts of `p` and writing the floats to `f` (`n` per work-item, or the
/// 4-slot layout of `vloada_half3`, whose 4th float is left alone).
fn load_kernel(n: usize, aligned: bool, space: &str) -> String {
    let func = format!("vload{}_half{}", if aligned { "a" } else { "" }, suffix(n));
    let stride = if aligned && n == 3 { 4 } else { n };
    let store = |v: &str| {
        if n == 1 {
            format!("f[i] = {v};")
        } else {
            format!("vstore{n}({v}, 0, f + i * {stride});")
        }
    };
    match space {
        "global" | "constant" => format!(
            "__kernel void k(__{space} const half *p, __global float *f) {{
                size_t i = get_global_id(0);
                {}
            }}",
            store(&format!("{func}(i, p)"))
        ),
        "local" => format!(
            "__kernel void k(__global const ushort *p, __global float *f) {{
                __local ushort buf[{LOCAL} * {stride}];
                size_t i = get_global_id(0), l = get_local_id(0);
                for (int k = 0; k < {stride}; k++)
                    buf[l * {stride} + k] = p[i * {stride} + k];
                barrier(CLK_LOCAL_MEM_FENCE);
                {}
            }}",
            store(&format!("{func}(l, (__local const half *)buf)"))
        ),
        _ => format!(
            "__kernel void k(__global const ushort *p, __global float *f) {{
                ushort buf[2 * {stride}];
                size_t i = get_global_id(0);
                for (int k = 0; k < {stride}; k++) {{
                    buf[k] = 0x7c00;
                    buf[{stride} + k] = p[i * {stride} + k];
                }}
                {}
            }}",
            store(&format!("{func}(1, (__private half *)buf)"))
        ),
    }
}

#[test]
fn vload_half_every_pattern_every_width_and_space() {
    let gpu = Gpu::new();
    let halves: Vec<u16> = (0..=u16::MAX).collect();
    let din = gpu.buffer(&halves);
    for space in ["global", "constant", "local", "private"] {
        for &n in &WIDTHS {
            for aligned in [false, true] {
                if aligned && n == 1 {
                    continue;
                }
                let stride = if aligned && n == 3 { 4 } else { n };
                let items = halves.len() / stride / LOCAL * LOCAL;
                let k = gpu.kernel(&load_kernel(n, aligned, space), "k");
                let out = gpu.buffer(&vec![-7.0f32; items * stride]);
                k.arg_buffer(0, &din).arg_buffer(1, &out);
                gpu.run(&k, &[items], Some(&[LOCAL]), None);
                let got: Vec<f32> = gpu.read(&out);
                let mut bad = Vec::new();
                for i in 0..items {
                    for c in 0..stride {
                        let h = halves[i * stride + c];
                        let g = got[i * stride + c];
                        let ok = if c >= n {
                            g == -7.0
                        } else if is_half_nan(h) {
                            g.is_nan()
                        } else {
                            let w = half_value(h) as f32;
                            g.to_bits() == w.to_bits()
                        };
                        if !ok {
                            bad.push(format!("{h:#06x} -> {g:e} ({:#010x})", g.to_bits()));
                        }
                    }
                }
                assert!(
                    bad.is_empty(),
                    "{space} vload{}_half{}: {} wrong, first: {:?}",
                    if aligned { "a" } else { "" },
                    suffix(n),
                    bad.len(),
                    &bad[..bad.len().min(8)]
                );
            }
        }
    }
}

#[test]
fn half_round_trip_through_a_typed_local_half_argument() {
    // A `__local half *` argument that is never reinterpreted is a typed
    // half array (not the byte pool): stores and loads of halves there.
    let gpu = Gpu::new();
    if !has_extension(&gpu, "cl_khr_fp16") {
        eprintln!("device lacks cl_khr_fp16: skipped");
        return;
    }
    let src = "__kernel void k(__global const float *in, __global float *out,
                               __local half *tmp) {
        size_t i = get_global_id(0), l = get_local_id(0);
        vstore_half4_rtz(vload4(i, in), l, tmp);
        barrier(CLK_LOCAL_MEM_FENCE);
        vstore4(vload_half4(l ^ 1, tmp), i, out);
    }";
    let values = float_inputs(4 * LOCAL * 8);
    let items = values.len() / 4;
    let k = gpu.kernel(src, "k");
    let (din, dout) = (gpu.buffer(&values), gpu.zeroed::<f32>(values.len()));
    k.arg_buffer(0, &din)
        .arg_buffer(1, &dout)
        .arg_local(2, LOCAL * 4 * 2);
    gpu.run(&k, &[items], Some(&[LOCAL]), None);
    let got: Vec<f32> = gpu.read(&dout);
    for i in 0..items {
        for c in 0..4 {
            let x = values[(i ^ 1) * 4 + c];
            let h = round_to_half(f64::from(x), Mode::Rtz);
            let g = got[i * 4 + c];
            if is_half_nan(h) {
                assert!(g.is_nan(), "{x:e}: got {g:e}");
            } else {
                assert_eq!(g, half_value(h) as f32, "{x:e} through a local half");
            }
        }
    }
}

/// `vload{n}`/`vstore{n}` of `ty` from and to global, constant, local and
/// private memory: a copy that must give back every bit.
fn copy_kernels(ty: &str, pragma: &str) -> String {
    let mut s = pragma.to_string();
    for n in [2usize, 3, 4, 8, 16] {
        s += &format!(
            "__kernel void k{n}(__global const {ty} *in, __constant {ty} *cin,
                               __global {ty} *out) {{
                size_t i = get_global_id(0), l = get_local_id(0), g = get_global_size(0);
                __local {ty} lbuf[{LOCAL} * {n}];
                {ty} pbuf[{n} + 1];
                vstore{n}(vload{n}(i, in), i, out);
                vstore{n}(vload{n}(i, cin), i, out + g * {n});
                vstore{n}(vload{n}(i, in), l, lbuf);
                vstore{n}(vload{n}(i, in), 0, pbuf + 1);
                barrier(CLK_LOCAL_MEM_FENCE);
                vstore{n}(vload{n}(l ^ 1, lbuf), i, out + 2 * g * {n});
                vstore{n}(vload{n}(0, pbuf + 1), i, out + 3 * g * {n});
                vstore{n}(vload{n}(i, (__global const {ty} *)(in + 1)), i, out + 4 * g * {n} + 1);
            }}\n"
        );
    }
    s
}

#[test]
fn vload_vstore_every_type_width_and_space() {
    let gpu = Gpu::new();
    let mut types = vec![
        ("char", 1usize),
        ("uchar", 1),
        ("short", 2),
        ("ushort", 2),
        ("int", 4),
        ("uint", 4),
        ("long", 8),
        ("ulong", 8),
        ("float", 4),
    ];
    if has_extension(&gpu, "cl_khr_fp64") {
        types.push(("double", 8));
    }
    if has_extension(&gpu, "cl_khr_fp16") {
        types.push(("half", 2));
    }
    let items = 2 * LOCAL;
    for (ty, size) in types {
        let pragma = match ty {
            "double" => "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n",
            "half" => "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n",
            _ => "",
        };
        let program = gpu.program(&copy_kernels(ty, pragma), "");
        for n in [2usize, 3, 4, 8, 16] {
            let elems = items * n + 1;
            // Bytes with no NaN patterns for the float types: the copies
            // must keep every bit, so NaNs are left out of the comparison.
            let mut rng = XorShift::new(n as u32 * 77 + size as u32);
            let data: Vec<u8> = (0..elems * size)
                .map(|j| {
                    let b = rng.next_u32() as u8;
                    if j % size == size - 1 {
                        b & 0x3f
                    } else {
                        b
                    }
                })
                .collect();
            let k = program.kernel(&format!("k{n}"));
            let din = gpu.buffer(&data);
            let dcin = gpu.buffer(&data);
            let out = gpu.zeroed::<u8>(5 * items * n * size + size);
            k.arg_buffer(0, &din)
                .arg_buffer(1, &dcin)
                .arg_buffer(2, &out);
            gpu.run(&k, &[items], Some(&[LOCAL]), None);
            let got: Vec<u8> = gpu.read(&out);
            let span = items * n * size;
            for (part, what) in ["global", "constant", "local", "private", "unaligned global"]
                .iter()
                .enumerate()
            {
                let base = part * span;
                for i in 0..items {
                    let src_item = if part == 2 { i ^ 1 } else { i };
                    let (from, to) = if part == 4 {
                        (size + src_item * n * size, base + size + i * n * size)
                    } else {
                        (src_item * n * size, base + i * n * size)
                    };
                    assert_eq!(
                        &got[to..to + n * size],
                        &data[from..from + n * size],
                        "{ty}{n} through {what} memory, work-item {i}"
                    );
                }
            }
        }
    }
}

#[test]
fn half_vector_data_through_a_generic_pointer_chosen_at_run_time() {
    let gpu = Gpu::new();
    let src = "__kernel void k(__global ushort *g, __global float *out, __global float *back) {\n\
          __local ushort l[4];\n\
          ushort p[4];\n\
          size_t i = get_global_id(0);\n\
          if (get_local_id(0) == 0) for (int j = 0; j < 4; j++) l[j] = g[j];\n\
          barrier(CLK_LOCAL_MEM_FENCE);\n\
          for (int j = 0; j < 4; j++) p[j] = g[j];\n\
          half *h = (i % 3 == 0) ? (half *)g : (i % 3 == 1) ? (half *)l : (half *)p;\n\
          float4 v = vload_half4(0, h);\n\
          out[i] = v.x + 2.0f * v.y + 4.0f * v.z + 8.0f * v.w;\n\
          barrier(CLK_LOCAL_MEM_FENCE);\n\
          if (i % 3 != 0) vstore_half(v.x + 1.0f, 3, h);\n\
          barrier(CLK_LOCAL_MEM_FENCE);\n\
          if (i % 3 != 0) back[i] = vload_half(3, h);\n\
        }\n";
    let program = gpu.program(src, "-cl-std=CL2.0");
    let k = program.kernel("k");
    let g = gpu.buffer(&[0x3c00u16, 0x4000, 0x4200, 0x4400]);
    let n = 48;
    let out = gpu.zeroed::<f32>(n);
    let back = gpu.zeroed::<f32>(n);
    k.arg_buffer(0, &g).arg_buffer(1, &out).arg_buffer(2, &back);
    gpu.run(&k, &[n], Some(&[16]), None);
    let out = gpu.read::<f32>(&out);
    let back = gpu.read::<f32>(&back);
    for i in 0..n {
        assert_eq!(out[i], 49.0, "vload_half4 at work-item {i}");
        if i % 3 != 0 {
            assert_eq!(back[i], 2.0, "vstore_half then vload_half at work-item {i}");
        }
    }
}

#[test]
fn vstore_of_a_scalar_widens_it_to_every_component() {
    let gpu = Gpu::new();
    let src = "__kernel void k(int3 value, __global int *dst, __global float *f) {\n\
          vstore3(value.y, 1, dst);\n\
          vstore4(2, 1, f);\n\
        }\n";
    let k = gpu.kernel(src, "k");
    let dst = gpu.zeroed::<i32>(6);
    let f = gpu.zeroed::<f32>(8);
    k.arg(0, [7i32, 9, 11, 0])
        .arg_buffer(1, &dst)
        .arg_buffer(2, &f);
    gpu.run(&k, &[1], None, None);
    assert_eq!(gpu.read::<i32>(&dst), [0, 0, 0, 9, 9, 9]);
    assert_eq!(
        gpu.read::<f32>(&f),
        [0.0, 0.0, 0.0, 0.0, 2.0, 2.0, 2.0, 2.0]
    );
}
