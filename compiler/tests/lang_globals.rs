//! Program-scope `__global` variables (OpenCL C 6.8 of 2.0/3.0, feature
//! `__opencl_c_program_scope_global_variables`): layout, initial bytes, the
//! hidden launch argument, and the errors of older language versions.

mod common;

use common::validate;
use ferrocl_compiler::{compile, ArgKind, CompileRequest, CompiledProgram, TargetCaps};

fn caps() -> TargetCaps {
    TargetCaps {
        features: vec!["__opencl_c_program_scope_global_variables".into()],
        ..TargetCaps::default()
    }
}

fn build_std(source: &str, options: &str) -> Result<CompiledProgram, String> {
    let request = CompileRequest {
        source,
        options,
        headers: &[],
    };
    compile(&request, &caps()).map_err(|e| e.log)
}

fn build(source: &str) -> CompiledProgram {
    match build_std(source, "-cl-std=CL3.0") {
        Ok(p) => {
            validate(&p.spirv);
            p
        }
        Err(log) => panic!("build failed:\n{log}"),
    }
}

#[test]
fn initial_bytes_follow_c_layout() {
    let p = build(
        "global int counter = 5;\n\
         global char tag[3] = \"ab\";\n\
         static global float4 scale = (float4)(1.0f, 2.0f, 3.0f, 4.0f);\n\
         struct pair { short a; long b; };\n\
         global struct pair pairs[2] = { { 1, 2 }, { -1 } };\n\
         global uint zeroes[4];\n\
         kernel void k(global int *out) {\n\
           out[0] = counter++ + tag[1] + (int)scale.w + pairs[1].a + (int)zeroes[2];\n\
         }\n",
    );
    let mut want = Vec::new();
    want.extend_from_slice(&5i32.to_le_bytes());
    want.extend_from_slice(b"ab\0");
    want.resize(16, 0);
    for f in [1.0f32, 2.0, 3.0, 4.0] {
        want.extend_from_slice(&f.to_le_bytes());
    }
    for (a, b) in [(1i16, 2i64), (-1, 0)] {
        let mut s = [0u8; 16];
        s[..2].copy_from_slice(&a.to_le_bytes());
        s[8..].copy_from_slice(&b.to_le_bytes());
        want.extend_from_slice(&s);
    }
    want.extend_from_slice(&[0u8; 16]);
    assert_eq!(p.global_data, want);
}

#[test]
fn the_buffer_address_is_a_hidden_argument_before_printf() {
    let p = build(
        "int total;\n\
         kernel void k(global int *out, char c) {\n\
           total += c;\n\
           out[0] = total;\n\
           printf(\"%d\\n\", total);\n\
         }\n\
         kernel void plain(int x) { }\n",
    );
    let k = &p.kernels[0];
    assert_eq!(k.args.len(), 2);
    assert_eq!(k.args[1].kind, ArgKind::Value);
    assert_eq!(k.global_data_offset(), 16);
    assert_eq!(k.args_size, 32);
    assert_eq!(p.kernels[1].global_data_offset(), 8);
    assert_eq!(p.kernels[1].args_size, 16);
    assert_eq!(p.global_data, vec![0; 4]);
}

#[test]
fn pointers_to_globals_and_extern_declarations() {
    build(
        "extern global int shared_count;\n\
         global int shared_count = 1;\n\
         global float data[16];\n\
         void bump(global int *p) { atomic_inc(p); }\n\
         kernel void k(global float *out) {\n\
           global float *d = data;\n\
           d[get_global_id(0) & 15] += 1.0f;\n\
           bump(&shared_count);\n\
           out[0] = d[3] + shared_count;\n\
         }\n",
    );
}

#[test]
fn global_variables_need_opencl_c_2_0() {
    let log = build_std("global int x;\nkernel void k() { x = 1; }\n", "").unwrap_err();
    assert!(
        log.contains("<source>:1:") && log.contains("need -cl-std=CL2.0 or CL3.0"),
        "{log}"
    );
    let log = build_std("int x;\nkernel void k() { x = 1; }\n", "-cl-std=CL1.2").unwrap_err();
    assert!(log.contains("__constant address space"), "{log}");
}

#[test]
fn global_variable_errors() {
    let log = build_std("local int x;\nkernel void k() { }\n", "-cl-std=CL2.0").unwrap_err();
    assert!(log.contains("__global or __constant"), "{log}");
    let log = build_std(
        "extern global int missing;\nkernel void k(global int *o) { o[0] = missing; }\n",
        "-cl-std=CL2.0",
    )
    .unwrap_err();
    assert!(
        log.contains("'missing' is declared but not defined"),
        "{log}"
    );
    let log = build_std(
        "global int a = 1;\nglobal int a = 2;\nkernel void k() { }\n",
        "-cl-std=CL2.0",
    )
    .unwrap_err();
    assert!(log.contains("redefinition of 'a'"), "{log}");
    let log = build_std(
        "int n = 3;\nglobal int *p = &n + n;\nkernel void k() { }\n",
        "-cl-std=CL2.0",
    )
    .unwrap_err();
    assert!(log.contains("not an address constant"), "{log}");
    let log = build_std(
        "constant int c = 3;\nglobal int *p = &c;\nkernel void k() { }\n",
        "-cl-std=CL2.0",
    )
    .unwrap_err();
    assert!(
        log.contains("pointer to the __global address space with an address in the __constant"),
        "{log}"
    );
    let request = CompileRequest {
        source: "global int x;\nkernel void k() { x = 1; }\n",
        options: "-cl-std=CL3.0",
        headers: &[],
    };
    let log = compile(&request, &TargetCaps::default()).unwrap_err().log;
    assert!(
        log.contains("__opencl_c_program_scope_global_variables"),
        "{log}"
    );
}

#[test]
fn static_variables_in_functions() {
    let p = build(
        "int next_id(void) { static int counter = 10; return counter++; }\n\
         float scaled(float x) { static constant float k[2] = { 2.0f, 3.0f }; return x * k[1]; }\n\
         kernel void k(global int *out) {\n\
           static global uint launches;\n\
           launches++;\n\
           out[0] = next_id() + next_id() + (int)scaled(1.0f) + (int)launches;\n\
         }\n",
    );
    // counter, then the __constant k (2.0f, 3.0f), then launches.
    assert_eq!(
        p.global_data,
        [10, 0, 0, 0, 0, 0, 0, 64, 0, 0, 64, 64, 0, 0, 0, 0]
    );
    let log = build_std(
        "kernel void k(global int *o) { static int n; o[0] = n++; }\n",
        "-cl-std=CL1.2",
    )
    .unwrap_err();
    assert!(log.contains("static variables in functions need"), "{log}");
    let log = build_std(
        "kernel void k(global int *o) { static local int n; o[0] = n; }\n",
        "-cl-std=CL2.0",
    )
    .unwrap_err();
    assert!(
        log.contains("must be in the __global or __constant"),
        "{log}"
    );
}

#[test]
fn program_scope_pointers_hold_offsets_until_relocated() {
    let p = build_std(
        "int n = 3;\nglobal int *p = &n;\nconstant char *constant s = \"hi\";\n\
         kernel void k(global int *o) { o[0] = *p + s[1]; }\n",
        "-cl-std=CL2.0",
    )
    .unwrap();
    // n at 0, p at 8 holding n's offset; "hi" is placed when s's
    // initializer names it, before s, which holds its offset.
    assert_eq!(p.global_relocations, [8, 24]);
    assert_eq!(&p.global_data[8..16], &[0; 8]);
    assert_eq!(&p.global_data[16..19], b"hi\0");
    assert_eq!(&p.global_data[24..32], &[16, 0, 0, 0, 0, 0, 0, 0]);
    // CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE counts n and p (with
    // the padding that aligns p), not the string.
    assert_eq!(p.global_variable_size, 16);
    let c = build_std(
        "constant int t[4] = {1, 2, 3, 4};\nkernel void k(global int *o) { o[0] = t[o[1]]; }\n",
        "-cl-std=CL1.2",
    )
    .unwrap();
    assert_eq!((c.global_data.len(), c.global_variable_size), (16, 0));
}
