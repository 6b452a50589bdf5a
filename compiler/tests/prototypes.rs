//! Function declarations without a body (C99 6.7.5.3 prototypes): calls
//! before the definition, redeclarations, and a prototype never defined.

mod common;

use common::{build, build_error};

fn assert_has(log: &str, want: &str) {
    assert!(log.contains(want), "log lacks {want:?}:\n{log}");
}

#[test]
fn call_before_definition_through_a_prototype() {
    let p = build(
        "float scale(float x, float by);\n\
         int twice(int);\n\
         kernel void k(global float *o, global int *i) {\n\
           o[0] = scale(o[0], 2.0f);\n\
           i[0] = twice(i[0]);\n\
         }\n\
         float scale(float x, float by) { return x * by; }\n\
         int twice(int v) { return v + v; }\n",
    );
    assert_eq!(p.kernels.len(), 1);
    assert_eq!(p.kernels[0].name, "k");
}

#[test]
fn repeated_compatible_prototypes() {
    build(
        "int f(int);\n\
         extern int f(int a);\n\
         int g(int), f(int b);\n\
         int g(int x) { return f(x) - 1; }\n\
         kernel void k(global int *o) { o[0] = g(o[1]); }\n\
         int f(int x) { return x * 3; }\n",
    );
}

#[test]
fn kernel_prototype_then_definition_is_one_kernel() {
    let p = build(
        "extern __kernel void k(global int *o);\n\
         __kernel void k(global int *o);\n\
         __kernel void k(global int *o) { o[get_global_id(0)] = 1; }\n",
    );
    assert_eq!(p.kernels.len(), 1);
    assert_eq!(p.kernels[0].name, "k");
    assert_eq!(p.kernels[0].args.len(), 1);
    assert_eq!(p.kernels[0].args[0].name, "o");
}

#[test]
fn kernel_prototype_without_definition_is_no_kernel() {
    let p = build(
        "kernel void other(global int *o);\n\
         kernel void k(global int *o) { o[0] = 2; }\n",
    );
    assert_eq!(p.kernels.len(), 1);
    assert_eq!(p.kernels[0].name, "k");
}

#[test]
fn uncalled_prototype_without_definition_builds() {
    build(
        "float helper(float);\n\
         kernel void k(global float *o) { o[0] = 1.0f; }\n",
    );
}

#[test]
fn prototype_of_a_builtin_keeps_the_builtin() {
    build(
        "size_t get_global_id(uint);\n\
         kernel void k(global uint *o) { o[get_global_id(0)] = 7; }\n",
    );
}

#[test]
fn called_but_never_defined() {
    let log = build_error(
        "float helper(float);\n\
         kernel void k(global float *o) {\n\
           o[0] = helper(o[0]);\n\
         }\n",
    );
    assert_has(
        &log,
        "<source>:3:8: error: function 'helper' is declared but never defined",
    );
    assert!(!log.contains("implicit declaration"), "{log}");
}

#[test]
fn conflicting_redeclaration() {
    let log = build_error(
        "int f(int);\n\
         float f(float x) { return x; }\n\
         kernel void k(global float *o) { o[0] = f(o[0]); }\n",
    );
    assert_has(&log, "<source>:2:");
    assert_has(&log, "error: conflicting types for 'f'");
}

#[test]
fn redefinition_after_prototype() {
    let log = build_error(
        "int f(int);\n\
         int f(int x) { return x; }\n\
         int f(int x) { return x + 1; }\n\
         kernel void k(global int *o) { o[0] = f(o[0]); }\n",
    );
    assert_has(&log, "<source>:3:");
    assert_has(&log, "error: redefinition of 'f'");
}

#[test]
fn parameter_adjustments_and_top_level_qualifiers_are_compatible() {
    build(
        "void f(global int a[], const int n);\n\
         void g(void);\n\
         kernel void k(global int *o) { f(o, 3); g(); }\n\
         void f(global int *a, int n) { a[0] = n; }\n\
         void g() { }\n",
    );
}
