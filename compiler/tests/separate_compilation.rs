//! Compiled objects (`clCompileProgram`): `extern` declarations left for
//! the link (C99 6.9), headers read from `-I` directories kept with the
//! object, and what a link of several units (parsed as one text) needs: a
//! struct that two units define identically is one type.

mod common;

use common::{build, build_error, caps, validate};
use ferrocl_compiler::driver::compile_object;
use ferrocl_compiler::{CompileRequest, Header};

fn object(
    source: &str,
    options: &str,
    headers: &[Header],
) -> ferrocl_compiler::driver::CompiledObject {
    let request = CompileRequest {
        source,
        options,
        headers,
    };
    match compile_object(&request, &caps()) {
        Ok(o) => o,
        Err(e) => panic!("compile failed:\n{}", e.log),
    }
}

#[test]
fn extern_declarations_compile_alone() {
    for src in [
        "extern constant float foo;\n",
        "extern constant struct bar bart;\n",
        "extern int baz(int, int);\n",
        "extern __kernel void CopyBuffer(__global float *src, __global float *dst);\n",
    ] {
        object(src, "", &[]);
    }
}

#[test]
fn an_object_may_use_what_another_unit_defines() {
    let o = object(
        "extern constant float foo;\n\
         extern constant struct bar { float x, y; int c; } shared;\n\
         extern int helper(int);\n\
         float access_foo() { return foo; }\n\
         kernel void k(global float *out) {\n\
           out[0] = access_foo() + shared.y + (float)helper(3);\n\
         }\n",
        "",
        &[],
    );
    validate(&o.program.spirv);
}

#[test]
fn an_object_still_reports_real_errors() {
    let request = CompileRequest {
        source: "extern constant float foo;\nkernel void k(global float *o) { o[0] = fo; }\n",
        options: "",
        headers: &[],
    };
    let e = compile_object(&request, &caps()).expect_err("undeclared name");
    assert!(
        e.log.contains("use of undeclared identifier 'fo'"),
        "{}",
        e.log
    );
}

#[test]
fn an_executable_needs_the_definition() {
    let log =
        build_error("extern constant float foo;\nkernel void k(global float *o) { o[0] = foo; }\n");
    assert!(
        log.contains("external variable 'foo' is declared but not defined"),
        "{log}"
    );
}

#[test]
fn headers_read_from_disk_stay_with_the_object() {
    let dir = std::env::temp_dir().join(format!("ferrocl-sepcomp-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(dir.join("sub/decl.h"), "extern int twice(int);\n").unwrap();
    let options = format!("-I{}", dir.display());
    let o = object(
        "#include \"sub/decl.h\"\nkernel void k(global int *o) { o[0] = twice(o[0]); }\n",
        &options,
        &[],
    );
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(o.included.len(), 1);
    assert_eq!(o.included[0].name, "sub/decl.h");
    assert_eq!(o.included[0].source, "extern int twice(int);\n");
}

#[test]
fn linked_units_share_an_identical_struct() {
    // Two units as clLinkProgram joins them: each defines `struct bar`.
    build(
        "constant struct bar { float x, y, z, r; int color; } foo = {1.f, 2.f, 3.f, 4.f, 5};\n\
         extern constant struct bar { float x, y, z, r; int color; } foo;\n\
         struct bar access_foo() { return foo; }\n\
         kernel void k(global float *o) { o[0] = access_foo().y; }\n",
    );
}

#[test]
fn a_differing_struct_is_another_type() {
    let log = build_error(
        "constant struct bar { float x; } foo = {1.f};\n\
         extern constant struct bar { int x; } foo;\n\
         kernel void k(global float *o) { o[0] = 1.0f; }\n",
    );
    assert!(log.contains("declared with a type other than"), "{log}");
}

#[test]
fn an_untagged_struct_of_a_shared_header_is_one_type_across_units() {
    build(
        "typedef struct { uchar c; uint i; } my_struct_t;\n\
         constant my_struct_t var = { 'a', 42 };\n\
         #pragma ferrocl translation_unit\n\
         typedef struct { uchar c; uint i; } my_struct_t;\n\
         extern constant my_struct_t var;\n\
         kernel void k(global uint *o) { o[0] = var.i + var.c; }\n",
    );
    // Within one unit, two untagged definitions stay two types.
    let log = build_error(
        "kernel void k(global int *o) {\n\
           struct { int a; } x = { 1 };\n\
           struct { int a; } y;\n\
           y = x;\n\
           o[0] = y.a;\n\
         }\n",
    );
    assert!(log.contains("error"), "{log}");
}

#[test]
fn static_functions_of_two_units_do_not_clash() {
    build(
        "static int helper(void) { return 1; }\n\
         int first(void) { return helper(); }\n\
         #pragma ferrocl translation_unit\n\
         static int helper(void) { return 2; }\n\
         int first(void);\n\
         kernel void k(global int *o) { o[0] = first() * 10 + helper(); }\n",
    );
}

#[test]
fn each_unit_is_preprocessed_on_its_own() {
    let header = Header {
        name: "shared.h".into(),
        source: "#ifndef SHARED_H\n#define SHARED_H\ntypedef struct { int a; } shared_t;\n#endif\n"
            .into(),
    };
    let request = CompileRequest {
        source: "#include \"shared.h\"\n\
                 #define LOCAL_ONLY 1\n\
                 int first(shared_t s) { return s.a + LOCAL_ONLY; }\n\
                 #pragma ferrocl translation_unit\n\
                 #include \"shared.h\"\n\
                 #ifdef LOCAL_ONLY\n\
                 #error a macro of the first unit is visible in the second\n\
                 #endif\n\
                 int first(shared_t s);\n\
                 kernel void k(global int *o) { shared_t s = { 2 }; o[0] = first(s) + __OPENCL_C_VERSION__; }\n",
        options: "",
        headers: std::slice::from_ref(&header),
    };
    match ferrocl_compiler::compile(&request, &caps()) {
        Ok(p) => validate(&p.spirv),
        Err(e) => panic!("build failed:\n{}", e.log),
    }
}
