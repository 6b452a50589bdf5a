//! cl_khr_integer_dot_product: every form builds to a module `spirv-val`
//! accepts, and needs the device's features.

mod common;

use ferrocl_compiler::TargetCaps;

fn dot_caps() -> TargetCaps {
    TargetCaps {
        extensions: vec!["cl_khr_integer_dot_product".to_string()],
        features: vec![
            "__opencl_c_integer_dot_product_input_4x8bit".to_string(),
            "__opencl_c_integer_dot_product_input_4x8bit_packed".to_string(),
        ],
        ..TargetCaps::default()
    }
}

const EVERY_FORM: &str = r#"
    kernel void k(global uchar4 *u, global char4 *c, global uint *w, global int *i,
                  global uint *ou, global int *oi) {
        size_t g = get_global_id(0);
        ou[g] = dot(u[g], u[g + 1]) + dot_acc_sat(u[g], u[g + 1], w[g])
              + dot_4x8packed_uu_uint(w[g], w[g + 1])
              + dot_acc_sat_4x8packed_uu_uint(w[g], w[g + 1], w[g + 2]);
        oi[g] = dot(c[g], c[g + 1]) + dot(u[g], c[g]) + dot(c[g], u[g])
              + dot_acc_sat(c[g], c[g + 1], i[g]) + dot_acc_sat(u[g], c[g], i[g])
              + dot_acc_sat(c[g], u[g], i[g])
              + dot_4x8packed_ss_int(w[g], w[g + 1]) + dot_4x8packed_us_int(w[g], w[g + 1])
              + dot_4x8packed_su_int(w[g], w[g + 1])
              + dot_acc_sat_4x8packed_ss_int(w[g], w[g + 1], i[g])
              + dot_acc_sat_4x8packed_us_int(w[g], w[g + 1], i[g])
              + dot_acc_sat_4x8packed_su_int(w[g], w[g + 1], i[g]);
    #ifndef cl_khr_integer_dot_product
    #error the extension macro is missing
    #endif
    #if __OPENCL_C_VERSION__ >= 300 && (!defined(__opencl_c_integer_dot_product_input_4x8bit) \
        || !defined(__opencl_c_integer_dot_product_input_4x8bit_packed))
    #error the feature macros are missing
    #endif
    }"#;

#[test]
fn every_form_validates() {
    common::build_caps(EVERY_FORM, &dot_caps());
    // OpenCL C 3.0 also has the feature macros.
    let request = ferrocl_compiler::CompileRequest {
        source: EVERY_FORM,
        options: "-cl-std=CL3.0",
        headers: &[],
    };
    match ferrocl_compiler::compile(&request, &dot_caps()) {
        Ok(program) => common::validate(&program.spirv),
        Err(e) => panic!("{}", e.log),
    }
}

#[test]
fn every_form_is_one_dot_instruction_where_the_device_has_them() {
    let caps = TargetCaps {
        integer_dot_product: true,
        ..dot_caps()
    };
    let words = common::build_caps(EVERY_FORM, &caps).spirv;
    let text = common::disassemble(&words);
    assert!(
        text.contains("OpCapability DotProductInput4x8BitPacked"),
        "{text}"
    );
    // Per kernel call site, one instruction: 4 + 12 of the 16 calls.
    let count = |op: &str| text.matches(&format!("= {op} ")).count();
    assert_eq!(count("OpUDot") + count("OpUDotAccSat"), 4, "{text}");
    assert_eq!(count("OpSDot") + count("OpSDotAccSat"), 4, "{text}");
    assert_eq!(count("OpSUDot") + count("OpSUDotAccSat"), 8, "{text}");
}

#[test]
fn the_forms_need_the_features_and_the_right_arguments() {
    let log = common::build_error_caps(
        "kernel void k(global uchar4 *u, global uint *o) { o[0] = dot(u[0], u[1]); }",
        &TargetCaps::default(),
    );
    assert!(log.contains("needs cl_khr_integer_dot_product"), "{log}");
    // Floating-point `dot` is untouched by the overloads.
    common::build_caps(
        "kernel void k(global float4 *f, global float *o) { o[0] = dot(f[0], f[1]); }",
        &dot_caps(),
    );
    common::assert_build_errors(
        &dot_caps(),
        &[
            (
                "kernel void k(global uchar4 *u, global uint *o) { o[0] = dot_acc_sat(u[0], u[1]); }",
                "takes 3 arguments",
            ),
            (
                "kernel void k(global uint *o) { o[0] = dot_4x8packed_uu_uint(o[1], o[2], o[3]); }",
                "takes 2 arguments",
            ),
            (
                "kernel void k(global short4 *s, global int *o) { o[0] = dot_acc_sat(s[0], s[1], 0); }",
                "takes two char4 or uchar4 vectors",
            ),
        ],
    );
}
