//! `goto` (OpenCL C 6.9 keeps C99 6.8.6.1): forward and backward jumps
//! that structured control flow can express build and pass spirv-val;
//! the others are diagnosed.

mod common;

use common::{build, build_error};

#[test]
fn forward_goto_to_cleanup_and_exit() {
    build(
        "kernel void k(global int *o, int n) {\n\
           int r = 0;\n\
           for (int i = 0; i < n; i++) {\n\
             if (o[i] < 0) goto fail;\n\
             r += o[i];\n\
           }\n\
           o[0] = r;\n\
           goto done;\n\
         fail:\n\
           o[0] = -1;\n\
         done:\n\
           o[1] = r;\n\
         }\n",
    );
}

#[test]
fn backward_goto_retries() {
    build(
        "kernel void k(global int *o, int n) {\n\
           int tries = 0;\n\
         retry:\n\
           tries++;\n\
           if (tries < n) goto retry;\n\
           o[0] = tries;\n\
         }\n",
    );
}

#[test]
fn goto_leaves_nested_loops_and_switches() {
    build(
        "kernel void k(global int *o, int n) {\n\
           int fi = -1, fj = -1;\n\
           for (int i = 0; i < n; i++)\n\
             for (int j = 0; j < n; j++) {\n\
               switch (j) {\n\
               case 3: if (i * j == n) goto found; break;\n\
               default: if (i + j == 2 * n - 3) goto found;\n\
               }\n\
             }\n\
           goto out;\n\
         found:\n\
           fi = n; fj = 1;\n\
         out:\n\
           o[0] = fi + fj;\n\
         }\n",
    );
}

#[test]
fn break_and_continue_cross_goto_regions() {
    build(
        "kernel void k(global int *o, int n) {\n\
           int a = 0;\n\
           for (int i = 0; i < n; i++) {\n\
             if (i & 1) goto next;\n\
             if (i > 40) break;\n\
             if (i == 6) continue;\n\
             a += i;\n\
           next:\n\
             a++;\n\
           }\n\
           o[0] = a;\n\
         }\n",
    );
}

#[test]
fn goto_in_an_inlined_function_with_early_returns() {
    build(
        "int find(global const int *p, int n, int v) {\n\
           int i = 0;\n\
         again:\n\
           if (i >= n) goto missing;\n\
           if (p[i] == v) return i;\n\
           i++;\n\
           goto again;\n\
         missing:\n\
           return -1;\n\
         }\n\
         kernel void k(global int *o, int n) {\n\
           o[0] = find(o, n, 7) + find(o + 1, n - 1, 9);\n\
         }\n",
    );
}

#[test]
fn goto_into_a_block_is_diagnosed() {
    let log = build_error(
        "kernel void k(global int *o, int n) {\n\
           if (n) goto inside;\n\
           if (n > 2) {\n\
           inside:\n\
             o[0] = 1;\n\
           }\n\
         }\n",
    );
    assert!(log.contains("<source>:2:"), "{log}");
    assert!(log.contains("cannot jump to label 'inside'"), "{log}");
}

#[test]
fn goto_into_a_loop_is_diagnosed() {
    let log = build_error(
        "kernel void k(global int *o, int n) {\n\
           if (n) goto mid;\n\
         top:\n\
           o[0]++;\n\
         mid:\n\
           o[1]++;\n\
           if (o[1] < n) goto top;\n\
         }\n",
    );
    assert!(log.contains("cannot be structured"), "{log}");
}

#[test]
fn undeclared_and_duplicate_labels() {
    let log = build_error("kernel void k(global int *o) { goto nowhere; }\n");
    assert!(log.contains("use of undeclared label 'nowhere'"), "{log}");
    let log = build_error("kernel void k(global int *o) { a: o[0] = 1; a: o[1] = 2; }\n");
    assert!(log.contains("redefinition of label 'a'"), "{log}");
}
