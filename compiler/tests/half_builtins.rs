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

/// Every math built-in of OpenCL C 6.15.2 on every floating-point type and
/// a vector of it compiles to valid SPIR-V (half through the float library,
/// where argument types must be converted both ways).
#[test]
fn every_math_built_in_validates_for_every_float_type() {
    const UNARY: &[&str] = &[
        "acos", "acosh", "acospi", "asin", "asinh", "asinpi", "atan", "atanh", "atanpi", "cbrt",
        "ceil", "cos", "cosh", "cospi", "erfc", "erf", "exp", "exp2", "exp10", "expm1", "fabs",
        "floor", "lgamma", "log", "log2", "log10", "log1p", "logb", "rint", "round", "rsqrt",
        "sin", "sinh", "sinpi", "sqrt", "tan", "tanh", "tanpi", "tgamma", "trunc",
    ];
    const BINARY: &[&str] = &[
        "atan2",
        "atan2pi",
        "copysign",
        "fdim",
        "fmax",
        "fmin",
        "fmod",
        "hypot",
        "maxmag",
        "minmag",
        "nextafter",
        "pow",
        "powr",
        "remainder",
    ];
    let caps = TargetCaps {
        fp64: true,
        extensions: vec!["cl_khr_fp16".into(), "cl_khr_fp64".into()],
        ..fp16_caps()
    };
    for (ty, int_ty) in [
        ("half", "int"),
        ("half3", "int3"),
        ("float", "int"),
        ("float4", "int4"),
        ("double", "int"),
        ("double2", "int2"),
    ] {
        let mut body = String::new();
        for f in UNARY {
            body += &format!("r += {f}(x);\n");
        }
        for f in BINARY {
            body += &format!("r += {f}(x, y);\n");
        }
        body += "r += fma(x, y, x) + mad(x, y, y);\n\
                 r += ldexp(x, n) + pown(x, n) + rootn(x, n);\n\
                 m += ilogb(x);\n\
                 r += fract(x, &t) + t; r += modf(x, &t) + t; r += sincos(x, &t) + t;\n\
                 r += frexp(x, &m) + remquo(x, y, &m) + lgamma_r(x, &m);\n";
        let src = format!(
            "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n\
             #pragma OPENCL EXTENSION cl_khr_fp64 : enable\n\
             kernel void k(global {ty} *a, global {int_ty} *b) {{\n\
               size_t i = get_global_id(0);\n\
               {ty} x = a[i], y = a[i + 1], r = x, t;\n\
               {int_ty} n = b[i], m = n;\n\
               {body}\
               a[i] = r; b[i] = m;\n\
             }}\n"
        );
        let request = ferrocl_compiler::CompileRequest {
            source: &src,
            options: "",
            headers: &[],
        };
        let program = ferrocl_compiler::compile(&request, &caps)
            .unwrap_or_else(|e| panic!("{ty}: {}", e.log));
        common::validate(&program.spirv);
    }
}
