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

#[test]
fn half_limits_and_constants_with_cl_khr_fp16() {
    build_caps(
        "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n\
         #if HALF_MAX_EXP != 16 || HALF_MIN_EXP != -13 || HALF_RADIX != 2\n\
         #error half limits\n\
         #endif\n\
         kernel void k(global half *h, global int *n) {\n\
           n[0] = HALF_DIG + HALF_MANT_DIG + HALF_MAX_10_EXP + HALF_MIN_10_EXP;\n\
           h[0] = HALF_MAX + HALF_MIN + HALF_EPSILON;\n\
           h[1] = M_E_H + M_LOG2E_H + M_LOG10E_H + M_LN2_H + M_LN10_H + M_PI_H;\n\
           h[2] = M_PI_2_H + M_PI_4_H + M_1_PI_H + M_2_PI_H + M_2_SQRTPI_H;\n\
           h[3] = M_SQRT2_H * M_SQRT1_2_H;\n\
         }\n",
        &fp16_caps(),
    );
    let log = build_error("kernel void k(global int *n) { n[0] = HALF_DIG; }\n");
    assert!(log.contains("undeclared identifier 'HALF_DIG'"), "{log}");
}
