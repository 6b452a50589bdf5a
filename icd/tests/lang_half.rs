//! Execution tests for `half` arithmetic (cl_khr_fp16): operators,
//! conversions, literals and vectors, compared with the same operations
//! rounded to binary16 on the host. Skipped on a device without
//! cl_khr_fp16.

mod common;

use common::*;
use ferrocl_runtime::cl::CL_DEVICE_EXTENSIONS;

/// binary16 → f32 (exact).
fn h2f(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0f32 } else { 1.0 };
    let exp = ((h >> 10) & 0x1f) as i32;
    let man = (h & 0x3ff) as f32;
    match exp {
        0 => sign * man * 2f32.powi(-24),
        31 if man == 0.0 => sign * f32::INFINITY,
        31 => f32::NAN,
        e => sign * (1.0 + man / 1024.0) * 2f32.powi(e - 15),
    }
}

/// f32 → binary16, round to nearest even (finite, normal-range inputs and
/// subnormal results).
fn f2h(f: f32) -> u16 {
    let bits = f.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let a = f.abs();
    if a.is_nan() {
        return sign | 0x7e00;
    }
    if a >= 65520.0 {
        return sign | 0x7c00;
    }
    // Scale so the binary16 unit in the last place becomes 1, round to
    // nearest even, and rebuild.
    let e = if a == 0.0 {
        -14
    } else {
        (a.log2().floor() as i32).max(-14)
    };
    let ulp = 2f32.powi(e - 10);
    let q = (a / ulp).round_ties_even();
    let v = q * ulp;
    if v == 0.0 {
        return sign;
    }
    let e2 = (v.log2().floor() as i32).max(-15);
    if e2 < -14 {
        return sign | (v / 2f32.powi(-24)) as u16;
    }
    let man = ((v / 2f32.powi(e2) - 1.0) * 1024.0).round() as u16;
    sign | (((e2 + 15) as u16) << 10) | man
}

fn r(f: f32) -> f32 {
    h2f(f2h(f))
}

#[test]
fn half_operators_conversions_and_vectors() {
    let gpu = Gpu::new();
    if !gpu
        .device_string(CL_DEVICE_EXTENSIONS)
        .contains("cl_khr_fp16")
    {
        eprintln!("device lacks cl_khr_fp16: skipped");
        return;
    }
    let src = r#"
        #pragma OPENCL EXTENSION cl_khr_fp16 : enable
        kernel void k(global const half *in, global half *out, global float *f,
                      global short *cmp, half s) {
            int i = get_global_id(0);
            half a = in[i], b = in[i + 64];
            out[8 * i] = a + b;
            out[8 * i + 1] = a * s - 1.5h;
            out[8 * i + 2] = a / b;
            out[8 * i + 3] = -a;
            out[8 * i + 4] = (half)(float)i;
            half4 v = (half4)(a, b, s, 0.25h);
            half4 w = v * v + (half)1;
            out[8 * i + 5] = w.x + w.y;
            out[8 * i + 6] = w.z * w.w;
            half x = a;
            x += b;
            x *= 2.0h;
            out[8 * i + 7] = x++;
            f[2 * i] = a;
            f[2 * i + 1] = convert_float(b) + 0.5f;
            short4 c = v < (half4)(b);
            cmp[2 * i] = c.x;
            cmp[2 * i + 1] = a == b;
        }"#;
    let n = 64usize;
    let mut rng = XorShift::new(11);
    let vals: Vec<f32> = rng.floats(2 * n, -8.0, 8.0).into_iter().map(r).collect();
    let input: Vec<u16> = vals.iter().map(|&v| f2h(v)).collect();
    let s = r(0.75);
    let k = gpu.kernel(src, "k");
    let din = gpu.buffer(&input);
    let (dout, df, dc) = (
        gpu.zeroed::<u16>(8 * n),
        gpu.zeroed::<f32>(2 * n),
        gpu.zeroed::<i16>(2 * n),
    );
    k.arg_buffer(0, &din)
        .arg_buffer(1, &dout)
        .arg_buffer(2, &df)
        .arg_buffer(3, &dc)
        .arg(4, f2h(s));
    gpu.run(&k, &[n], None, None);
    let got: Vec<f32> = gpu.read::<u16>(&dout).into_iter().map(h2f).collect();
    let mut want = Vec::new();
    let (mut wf, mut wc) = (Vec::new(), Vec::new());
    for i in 0..n {
        let (a, b) = (vals[i], vals[i + n]);
        let w = [
            r(r(a * a) + 1.0),
            r(r(b * b) + 1.0),
            r(r(s * s) + 1.0),
            r(r(0.0625) + 1.0),
        ];
        want.extend([
            r(a + b),
            r(r(a * s) - 1.5),
            r(a / b),
            -a,
            r(i as f32),
            r(w[0] + w[1]),
            r(w[2] * w[3]),
            r(r(a + b) * 2.0),
        ]);
        wf.extend([a, b + 0.5]);
        wc.extend([if a < b { -1i16 } else { 0 }, (a == b) as i16]);
    }
    assert_same(&got, &want, "half results");
    assert_same(&gpu.read::<f32>(&df), &wf, "half to float");
    assert_same(&gpu.read::<i16>(&dc), &wc, "half comparisons");
}

/// The built-in math functions on `half` (computed in float and rounded
/// once): within 2 ulp of binary16 of the float result, the bound of the
/// half column of the OpenCL C ULP table for these functions.
#[test]
fn half_math_built_ins() {
    let gpu = Gpu::new();
    if !gpu
        .device_string(CL_DEVICE_EXTENSIONS)
        .contains("cl_khr_fp16")
    {
        eprintln!("device lacks cl_khr_fp16: skipped");
        return;
    }
    let src = r#"
        #pragma OPENCL EXTENSION cl_khr_fp16 : enable
        kernel void k(global const half *in, global half *out) {
            int i = get_global_id(0);
            half a = in[i];
            half2 v = (half2)(a, a * 0.5h);
            out[8 * i] = sin(a);
            out[8 * i + 1] = exp(a * 0.25h);
            out[8 * i + 2] = sqrt(fabs(a));
            out[8 * i + 3] = fma(a, a, 1.0h);
            out[8 * i + 4] = fmax(a, 0.5h);
            out[8 * i + 5] = clamp(a, -1.0h, 1.0h);
            out[8 * i + 6] = dot(v, v);
            out[8 * i + 7] = log(fabs(a) + 1.0h);
        }"#;
    let n = 64usize;
    let mut rng = XorShift::new(12);
    let vals: Vec<f32> = rng.floats(n, -4.0, 4.0).into_iter().map(r).collect();
    let input: Vec<u16> = vals.iter().map(|&v| f2h(v)).collect();
    let k = gpu.kernel(src, "k");
    let din = gpu.buffer(&input);
    let dout = gpu.zeroed::<u16>(8 * n);
    k.arg_buffer(0, &din).arg_buffer(1, &dout);
    gpu.run(&k, &[n], None, None);
    let got: Vec<f32> = gpu.read::<u16>(&dout).into_iter().map(h2f).collect();
    for (i, &a) in vals.iter().enumerate() {
        let h = r(a * 0.5);
        let want = [
            a.sin(),
            (r(a * 0.25)).exp(),
            a.abs().sqrt(),
            a.mul_add(a, 1.0),
            a.max(0.5),
            a.clamp(-1.0, 1.0),
            r(a * a) + r(h * h),
            r(a.abs() + 1.0).ln(),
        ];
        for (j, w) in want.iter().enumerate() {
            let g = got[8 * i + j];
            // One binary16 ulp at the result's magnitude.
            let ulp = 2f32.powi((w.abs().max(6.1e-5).log2().floor() as i32) - 10);
            assert!(
                (g - w).abs() <= 2.0 * ulp,
                "function {j} of {a}: got {g}, want {w}"
            );
        }
    }
}
