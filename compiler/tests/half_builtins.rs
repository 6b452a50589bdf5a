//! With cl_khr_fp16, the built-in functions take `half` and `halfn` like
//! any other floating-point type (OpenCL C 6.15: gentype includes half).

mod common;

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
fn half_built_ins_validate() {
    let src = r#"
        #pragma OPENCL EXTENSION cl_khr_fp16 : enable
        kernel void k(global half *a, global half4 *v, global float *out) {
            size_t i = get_global_id(0);
            half x = a[i];
            half4 y = v[i];
            half r = sin(x) + cos(x) + exp(x) + log(x + 2.0h) + sqrt(fabs(x));
            r += fma(x, x, x) + mad(x, x, x) + fmax(x, 1.0h) + fmin(x, 0.5h);
            r += pow(fabs(x), 0.5h) + floor(x) + ceil(x) + rint(x) + trunc(x);
            r += clamp(x, 0.0h, 1.0h) + mix(x, 1.0h, 0.25h) + step(0.5h, x) + sign(x);
            half4 w = sin(y) + fmax(y, (half4)0.5h) + clamp(y, 0.0h, 1.0h) + native_exp(y);
            r += dot(w, y) + length(w) + w.x;
            int c = isnan(x) + isinf(x) + signbit(x) + any(isless(y, (half4)0.0h));
            out[i] = convert_float(r) + c + vload_half(0, (global half *)a);
        }"#;
    let request = ferrocl_compiler::CompileRequest {
        source: src,
        options: "",
        headers: &[],
    };
    let program =
        ferrocl_compiler::compile(&request, &fp16_caps()).unwrap_or_else(|e| panic!("{}", e.log));
    common::validate(&program.spirv);
}
