//! `half` arithmetic with cl_khr_fp16 (OpenCL C 6.1.1.1 and the extension):
//! operators, conversions, literals and vectors build and pass spirv-val
//! for a device with 16-bit floats; without the extension, half values
//! are storage only.

mod common;

use common::{build_caps, build_error};
use ferrocl_compiler::TargetCaps;

fn fp16_caps() -> TargetCaps {
    TargetCaps {
        fp16: true,
        int16: true,
        extensions: vec!["cl_khr_fp16".into()],
        ..TargetCaps::default()
    }
}

#[test]
fn half_operators_conversions_and_vectors() {
    build_caps(
        "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n\
         kernel void k(global half *h, global float *f, half s, global half4 *v) {\n\
           int i = get_global_id(0);\n\
           half a = h[i];\n\
           half b = a * s + 1.0h;\n\
           half c = b / (half)3 - a;\n\
           f[i] = (float)c + a;\n\
           h[i] = -c;\n\
           half4 x = v[i];\n\
           half4 y = x * (half)2 + (half4)(1.0h, 2.0h, 3.0h, 4.0h);\n\
           v[i] = y.wzyx;\n\
           short4 m = x < y;\n\
           v[i + 1] = convert_half4(convert_float4(y)) + convert_half4(m);\n\
           h[i + 2] = (half)i + (half)f[i];\n\
           h[i + 3] = a > b ? a : b;\n\
           h[i + 4] = as_half(as_short(a));\n\
           half8 w = (half8)(a);\n\
           h[i + 5] = w.s7 + vec_step(w);\n\
         }\n",
        &fp16_caps(),
    );
}

#[test]
fn half_kernel_arguments_need_the_extension() {
    let log = build_error("kernel void k(global float *f, half s) { f[0] = s; }\n");
    assert!(log.contains("need cl_khr_fp16"), "{log}");
}
