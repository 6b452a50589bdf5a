//! Bad programs: the build log points at the problem with line:col.

mod common;

use common::build_error;

fn assert_has(log: &str, want: &str) {
    assert!(log.contains(want), "log lacks {want:?}:\n{log}");
}

#[test]
fn undeclared_identifier() {
    let log = build_error("kernel void k(global int *o) {\n  o[0] = nope;\n}\n");
    assert_has(
        &log,
        "<source>:2:10: error: use of undeclared identifier 'nope'",
    );
    assert_has(&log, "  o[0] = nope;\n         ^");
}

#[test]
fn syntax_errors_recover_at_statements() {
    let log = build_error(
        "kernel void k(global int *o) {\n  o[0] = 1 +;\n  o[1] = 2\n  o[2] = undefined_thing;\n}\n",
    );
    assert_has(&log, "<source>:2:");
    assert_has(&log, "<source>:4:");
}

#[test]
fn recursion_is_rejected() {
    let log = build_error(
        "int f(int x) { return x ? f(x - 1) : 0; }\nkernel void k(global int *o) { o[0] = f(3); }\n",
    );
    assert_has(&log, "recursi");
}

#[test]
fn double_without_fp64() {
    let log = build_error("kernel void k(global float *o) { double d = 1.0; o[0] = d; }\n");
    assert_has(&log, "cl_khr_fp64");
}

#[test]
fn vector_conversions_need_convert() {
    let log = build_error("kernel void k(global float4 *o, int4 v) { o[0] = v; }\n");
    assert_has(&log, "convert_float4");
}

#[test]
fn bad_swizzle() {
    let log = build_error("kernel void k(global float2 *o) { o[0] = o[0].xz; }\n");
    assert_has(&log, "swizzle");
}

#[test]
fn kernel_private_pointer_argument() {
    let log = build_error("kernel void k(int *p) { }\n");
    assert_has(&log, "__global, __constant or __local");
}

#[test]
fn unknown_attribute_is_a_warning() {
    let p =
        common::build("kernel __attribute__((frobnicate)) void k(global int *o) { o[0] = 1; }\n");
    assert!(
        p.log
            .contains("warning: unknown attribute 'frobnicate' ignored"),
        "{}",
        p.log
    );
}

#[test]
fn goto_into_a_nested_block_is_diagnosed() {
    let log = build_error(
        "kernel void k(global int *o, int n) {\n  if (n) goto in;\n  { in: o[0] = 1; }\n}\n",
    );
    assert_has(&log, "<source>:2:");
    assert_has(&log, "cannot jump to label 'in' from here");
}

#[test]
fn pointer_into_two_private_objects_is_diagnosed() {
    let log = build_error(
        "kernel void k(global int *o, int n) {\n  int a[2], b[2];\n  int *p = a;\n  if (n) p = b;\n  o[0] = *p;\n}\n",
    );
    assert_has(&log, "<source>:4:");
    assert_has(&log, "not supported yet");
}

#[test]
fn errors_in_uncalled_functions_are_reported() {
    let log = build_error(
        "int unused(local int *p) { return p[0] + missing; }\n\
         int rec(int x) { return rec(x); }\n\
         kernel void k(global int *o) { o[0] = 1; }\n",
    );
    assert_has(&log, "<source>:1:");
    assert_has(&log, "missing");
    assert_has(&log, "recursi");
}

#[test]
fn uncalled_functions_that_are_fine_build() {
    common::build(
        "float helper(local float *p, global float *g, float4 v) { return p[1] + g[0] + v.x; }\n\
         kernel void k(global int *o) { o[0] = 1; }\n",
    );
}

#[test]
fn as_type_of_different_sizes() {
    let log = build_error(
        "kernel void k(global int *o) {\n  float2 f = (float2)(1.0f);\n  o[0] = as_int(f);\n}\n",
    );
    assert_has(&log, "<source>:3:");
    assert_has(&log, "sizes of 'float2' and 'int' must match");
}

#[test]
fn writes_to_constant_memory() {
    let log = build_error(
        "kernel void k(constant int *c, global int *o) {\n  c[0] = 1;\n  o[0] = c[1];\n}\n",
    );
    assert_has(&log, "<source>:2:");
    assert_has(&log, "cannot assign to __constant memory");
    let log = build_error(
        "constant int tab[2] = { 1, 2 };\nkernel void k(global int *o) {\n  tab[0] = 3;\n}\n",
    );
    assert_has(&log, "<source>:3:");
    assert_has(&log, "cannot assign to __constant memory");
}

#[test]
fn kernels_must_return_void() {
    let log = build_error("kernel int k(global int *o) { o[0] = 1; return 0; }\n");
    assert_has(&log, "<source>:1:");
    assert_has(&log, "a kernel function must return void");
}

#[test]
fn pointer_to_pointer_kernel_argument() {
    let log = build_error("kernel void k(global int **pp) { }\n");
    assert_has(&log, "<source>:1:");
    assert_has(&log, "kernel arguments cannot be pointers to pointers");
}

#[test]
fn bad_designators() {
    let log = build_error(
        "struct P { int x, y; };\nkernel void k(global int *o) {\n  struct P p = { .z = 1 };\n  int a[2] = { [5] = 1 };\n  int s = { .x = 1 };\n  o[0] = p.x + a[0] + s;\n}\n",
    );
    assert_has(
        &log,
        "<source>:3:18: error: field designator 'z' does not refer to any field in type 'struct P'",
    );
    assert_has(
        &log,
        "<source>:4:16: error: array index 5 in initializer exceeds array bounds",
    );
    assert_has(
        &log,
        "<source>:5:13: error: field designator cannot initialize a non-struct",
    );
}

#[test]
fn bit_fields_are_not_allowed() {
    let log = build_error("struct B { uint a : 3; };\nkernel void k(global int *o) { }\n");
    assert_has(&log, "bit-fields are not supported in OpenCL C");
}

#[test]
fn spec_restrictions_on_declarations() {
    let log = build_error("kernel void k(global int *o) {\n  int a = 1;\n  int a = 2;\n}\n");
    assert_has(&log, "<source>:3:7: error: redefinition of 'a'");
    let log = build_error("kernel void k(global int *o) {\n  const int c = 1;\n  c++;\n}\n");
    assert_has(
        &log,
        "cannot assign to variable 'c' with const-qualified type",
    );
    let log = build_error("constant int c;\nkernel void k(global int *o) { o[0] = c; }\n");
    assert_has(&log, "in the __constant address space must be initialized");
    let log = build_error("kernel void k(global int2 *o, int2 v) {\n  v.yy = (int2)(1, 2);\n}\n");
    assert_has(&log, "names a component twice");
    let log = build_error("kernel void k(global local int *o) { }\n");
    assert_has(&log, "multiple address spaces");
    let log = build_error("kernel void k(global int *o, ptrdiff_t d) { }\n");
    assert_has(
        &log,
        "'ptrdiff_t' cannot be used as the type of a kernel argument",
    );
    let log = build_error("kernel void k(global int *o) {\n  int (*f)(int);\n}\n");
    assert_has(&log, "function pointers");
    let log = build_error("kernel void k(global float *o) {\n  half h;\n}\n");
    assert_has(
        &log,
        "<source>:2:8: error: variables of type 'half' need cl_khr_fp16",
    );
    let log = build_error("kernel void k(global int *o) {\n  int *p = o;\n}\n");
    assert_has(
        &log,
        "cannot convert a pointer to the __global address space",
    );
}

#[test]
fn program_scope_pointer_initializers_must_be_address_constants() {
    let log = build_error(
        "constant int c[2] = { 1, 2 };\nconstant int *constant p = c + c[0];\nkernel void k(global int *o) { o[0] = *p; }\n",
    );
    assert_has(&log, "<source>:2:");
    assert_has(&log, "not an address constant");
}

#[test]
fn string_literals_are_constant() {
    let log = build_error("kernel void k(global int *o) {\n  \"abc\"[0] = 'x';\n}\n");
    assert_has(&log, "<source>:2:");
    assert_has(&log, "cannot assign to __constant memory");
    let log = build_error("kernel void k(global int *o) {\n  char *s = \"abc\";\n}\n");
    assert_has(&log, "<source>:2:");
}
