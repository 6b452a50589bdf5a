//! The math built-ins in the emitted SPIR-V: which come from the built-in
//! library and which from GLSL.std.450, how the math build options change
//! that, and the diagnostics of conversions and math calls.

mod common;

use ferrocl_compiler::{compile, CompileRequest, CompiledProgram, TargetCaps};

fn fp64_caps() -> TargetCaps {
    TargetCaps {
        fp64: true,
        extensions: vec!["cl_khr_fp64".into()],
        features: vec!["__opencl_c_fp64".into()],
        ..TargetCaps::default()
    }
}

fn build_opts(source: &str, options: &str, caps: &TargetCaps) -> CompiledProgram {
    match compile(
        &CompileRequest {
            source,
            options,
            headers: &[],
        },
        caps,
    ) {
        Ok(p) => {
            common::validate(&p.spirv);
            p
        }
        Err(e) => panic!("build with '{options}' failed:\n{}", e.log),
    }
}

/// The GLSL.std.450 instructions the module uses, by name.
fn glsl_ops(p: &CompiledProgram) -> String {
    common::disassemble(&p.spirv)
        .lines()
        .filter(|l| l.contains("OpExtInst"))
        .collect::<Vec<_>>()
        .join("\n")
}

const MATH: &str = "__kernel void k(__global float *x) {\n\
                    size_t i = get_global_id(0);\n\
                    x[i] = sin(x[i]) + exp(x[i]) + fma(x[i], x[i], 1.0f) + x[i] * x[i] + 2.0f;\n\
                    }\n";

#[test]
fn default_math_comes_from_the_library() {
    let p = build_opts(MATH, "", &common::caps());
    let ops = glsl_ops(&p);
    if ops.is_empty() && common::disassemble(&p.spirv).is_empty() {
        return; // spirv-dis not installed
    }
    assert!(!ops.contains(" Sin "), "sin must not be GLSL Sin:\n{ops}");
    assert!(!ops.contains(" Exp "), "exp must not be GLSL Exp:\n{ops}");
}

#[test]
fn fast_relaxed_math_uses_instructions_but_keeps_fma_exact() {
    for options in ["-cl-fast-relaxed-math", "-cl-unsafe-math-optimizations"] {
        let caps = fp64_caps();
        let p = build_opts(MATH, options, &caps);
        let text = common::disassemble(&p.spirv);
        if text.is_empty() {
            return;
        }
        let ops = glsl_ops(&p);
        assert!(ops.contains(" Sin "), "{options}: sin as GLSL Sin:\n{ops}");
        // exp stays in the library: Vulkan's Exp bound (3 + 2|x| ulp) is
        // looser than OpenCL's relaxed one (3 + floor(2|x|)).
        assert!(!ops.contains(" Exp "), "{options}: exp as GLSL Exp:\n{ops}");
        // fma stays correctly rounded: computed in double, never the
        // driver's Fma, which Vulkan does not promise to fuse.
        assert!(!ops.contains(" Fma "), "{options}: fma as GLSL Fma:\n{ops}");
    }
}

/// On a driver whose `Fma` is fused (`TargetCaps::fused_fma`), `fma` of
/// every width is that instruction, with no call into the library.
#[test]
fn fma_is_the_drivers_where_it_is_fused() {
    let src = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n\
               __kernel void k(__global float *x, __global double *d) {\n\
               x[0] = fma(x[0], x[1], x[2]);\n\
               d[0] = fma(d[0], d[1], d[2]);\n\
               }\n";
    let fused = TargetCaps {
        fused_fma: true,
        ..fp64_caps()
    };
    let text = common::disassemble(&build_opts(src, "", &fused).spirv);
    if text.is_empty() {
        return;
    }
    let fmas = text.lines().filter(|l| l.contains(" Fma ")).count();
    assert_eq!(fmas, 2, "one GLSL Fma per width:\n{text}");
    assert!(!text.contains("OpFunctionCall"), "a library call:\n{text}");
    let library = common::disassemble(&build_opts(src, "", &fp64_caps()).spirv);
    assert!(
        !library.contains(" Fma "),
        "the library's fma uses Fma:\n{library}"
    );
}

#[test]
fn fast_relaxed_math_defines_its_macro() {
    let src = "#ifndef __FAST_RELAXED_MATH__\n#error not defined\n#endif\n\
               __kernel void k(__global float *x) { x[0] = 1.0f; }\n";
    build_opts(src, "-cl-fast-relaxed-math", &common::caps());
    let plain = "#ifdef __FAST_RELAXED_MATH__\n#error defined\n#endif\n\
                 __kernel void k(__global float *x) { x[0] = 1.0f; }\n";
    build_opts(plain, "", &common::caps());
}

#[test]
fn mad_enable_lets_the_driver_contract() {
    let src = "__kernel void k(__global float *x) { x[0] = x[0] * x[1] + x[2]; }\n";
    let strict = common::disassemble(&build_opts(src, "", &common::caps()).spirv);
    if strict.is_empty() {
        return;
    }
    assert!(strict.contains("NoContraction"));
    for options in ["-cl-mad-enable", "-cl-fast-relaxed-math"] {
        let relaxed = common::disassemble(&build_opts(src, options, &common::caps()).spirv);
        assert!(
            !relaxed.contains("NoContraction"),
            "{options} keeps NoContraction:\n{relaxed}"
        );
    }
}

#[test]
fn finite_math_only_drops_signed_zero_inf_nan_preserve() {
    let src = "__kernel void k(__global float *x) { x[0] = x[0] + x[1]; }\n";
    let strict = common::disassemble(&build_opts(src, "", &common::caps()).spirv);
    if strict.is_empty() {
        return;
    }
    assert!(strict.contains("SignedZeroInfNanPreserve"));
    let relaxed =
        common::disassemble(&build_opts(src, "-cl-finite-math-only", &common::caps()).spirv);
    assert!(!relaxed.contains("SignedZeroInfNanPreserve"));
}

#[test]
fn denorm_preserve_is_declared_where_the_device_offers_it() {
    let src = "__kernel void k(__global float *x) { x[0] = x[0] * x[1]; }\n";
    let plain = common::disassemble(&build_opts(src, "", &common::caps()).spirv);
    if plain.is_empty() {
        return;
    }
    assert!(!plain.contains("DenormPreserve"));
    let caps = ferrocl_compiler::TargetCaps {
        denorm_preserve_fp32: true,
        ..common::caps()
    };
    let preserving = common::disassemble(&build_opts(src, "", &caps).spirv);
    assert!(preserving.contains("DenormPreserve 32"), "{preserving}");
    assert!(preserving.contains("OpCapability DenormPreserve"));
}

#[test]
fn every_math_option_is_accepted() {
    for options in [
        "-cl-fast-relaxed-math",
        "-cl-mad-enable",
        "-cl-unsafe-math-optimizations",
        "-cl-finite-math-only",
        "-cl-no-signed-zeros",
        "-cl-denorms-are-zero",
        "-cl-fp32-correctly-rounded-divide-sqrt",
        "-cl-single-precision-constant",
    ] {
        build_opts(MATH, options, &fp64_caps());
    }
}

#[test]
fn every_math_builtin_builds_for_float_and_double() {
    let one = [
        "erf", "erfc", "tgamma", "lgamma", "exp", "exp2", "exp10", "expm1", "log", "log2", "log10",
        "log1p", "sin", "cos", "tan", "sinpi", "cospi", "tanpi", "asin", "acos", "atan", "sinh",
        "cosh", "tanh", "asinh", "acosh", "atanh", "cbrt", "sqrt", "rsqrt",
    ];
    let two = ["pow", "powr", "atan2", "fmod", "remainder", "hypot"];
    for ty in ["float", "float4", "double", "double3"] {
        let mut body = String::new();
        for f in one {
            body.push_str(&format!("r += {f}(a);\n"));
        }
        for f in two {
            body.push_str(&format!("r += {f}(a, b);\n"));
        }
        body.push_str(
            "r += fma(a, b, r);\nr += ldexp(a, 3);\nr += pown(a, 3);\nr += rootn(a, 3);\n",
        );
        let ity = ty.replace("float", "int").replace("double", "int");
        body.push_str(&format!("{ity} q; r += remquo(a, b, &q);\n"));
        body.push_str(&format!("{ity} s; r += lgamma_r(a, &s);\n"));
        body.push_str(&format!("{ty} c; r += sincos(a, &c);\n"));
        let src = format!(
            "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n\
             __kernel void k(__global {ty} *x) {{\n\
             {ty} a = x[0], b = x[1], r = 0;\n{body}x[2] = r;\n}}\n"
        );
        build_opts(&src, "", &fp64_caps());
    }
}

#[test]
fn conversion_sat_to_float_is_an_error() {
    let log = common::build_error(
        "__kernel void k(__global float *x, int i) { x[0] = convert_float_sat(i); }\n",
    );
    assert!(log.contains("_sat"), "{log}");
}

#[test]
fn half_and_native_forms_build() {
    let src = "__kernel void k(__global float4 *x) {\n\
               float4 a = x[0], b = x[1];\n\
               x[2] = half_exp10(a) + half_log(a) + half_log2(a) + half_log10(a) + half_powr(a, b)\n\
               + half_exp(a) + half_sin(a) + half_rsqrt(a) + half_divide(a, b) + half_recip(b)\n\
               + native_exp10(a) + native_log(a) + native_powr(a, b) + native_sin(a);\n}\n";
    build_opts(src, "", &common::caps());
}

/// Where the driver's double `Trunc` and `RoundEven` are wrong (lavapipe),
/// `trunc`, `rint`, `round` and the `_rte` conversions of doubles, scalar
/// and vector, use neither; floats keep them, and other devices keep both.
#[test]
fn double_rounding_comes_from_floor_where_the_driver_asks() {
    let source = r#"
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void k(__global double *d, __global double3 *d3, __global double8 *d8,
                __global float *f, __global int8 *i8) {
    d[0] = trunc(d[1]) + rint(d[2]) + round(d[3]);
    d3[0] = trunc(d3[1]) + rint(d3[2]);
    d8[0] = rint(d8[1]) + trunc(d8[2]);
    i8[0] = convert_int8_rte(d8[3]);
    f[0] = trunc(f[1]) + rint(f[2]);
}
"#;
    // (Trunc and RoundEven on doubles, on floats), by result type.
    let rounding_of = |caps: &TargetCaps| {
        use rspirv::dr::Operand;
        use rspirv::spirv::Op;
        let program = common::build_caps(source, caps);
        let module = rspirv::dr::load_words(&program.spirv).unwrap();
        let float_width = |ty: u32| {
            let def = module
                .types_global_values
                .iter()
                .find(|i| i.result_id == Some(ty))?;
            let scalar = match def.class.opcode {
                Op::TypeVector => def.operands[0].id_ref_any()?,
                _ => ty,
            };
            module
                .types_global_values
                .iter()
                .find(|i| i.result_id == Some(scalar) && i.class.opcode == Op::TypeFloat)
                .and_then(|i| match i.operands[0] {
                    Operand::LiteralBit32(w) => Some(w),
                    _ => None,
                })
        };
        let (mut double, mut float) = (0, 0);
        for inst in module
            .functions
            .iter()
            .flat_map(|f| &f.blocks)
            .flat_map(|b| &b.instructions)
            .filter(|i| i.class.opcode == Op::ExtInst)
        {
            // GLSL.std.450: RoundEven 2, Trunc 3.
            if !matches!(inst.operands[1], Operand::LiteralExtInstInteger(2 | 3)) {
                continue;
            }
            match inst.result_type.and_then(float_width) {
                Some(64) => double += 1,
                Some(32) => float += 1,
                _ => {}
            }
        }
        (double, float)
    };
    let (double, float) = rounding_of(&fp64_caps());
    assert!(double >= 5, "{double} double roundings");
    assert_eq!(float, 2);
    let lavapipe = TargetCaps {
        f64_rounding_from_floor: true,
        ..fp64_caps()
    };
    let (double, float) = rounding_of(&lavapipe);
    assert_eq!(double, 0);
    assert_eq!(float, 2);
}
