//! The generic address space (OpenCL C 2.0/3.0): programs whose generic
//! pointers have a space known where they are made build and pass
//! spirv-val; the rest are diagnosed.

mod common;

use common::validate;
use ferrocl_compiler::{compile, CompileRequest, TargetCaps};

fn build_std(source: &str, options: &str) -> Result<Vec<u32>, String> {
    let request = CompileRequest {
        source,
        options,
        headers: &[],
    };
    compile(&request, &TargetCaps::default())
        .map(|p| p.spirv)
        .map_err(|e| e.log)
}

fn build(source: &str) {
    match build_std(source, "-cl-std=CL2.0") {
        Ok(words) => validate(&words),
        Err(log) => panic!("build failed:\n{log}"),
    }
}

#[test]
fn generic_parameters_variables_and_returns() {
    build(
        "int *advance(int *p, int n) { return p + n; }\n\
         generic int *same(generic int *a) { return a; }\n\
         __generic float *fsame(__generic float *a) { return a; }\n\
         void add_to(int *p, int v) { *p += v; }\n\
         kernel void k(global int *g, local int *l, global float *f) {\n\
           int priv[4] = { 1, 2, 3, 4 };\n\
           int *p;\n\
           p = advance(g, 2);\n\
           int *q = same(l);\n\
           int *r = advance(priv, 1);\n\
           add_to(r, 3); add_to(q, 4); add_to(p, 5);\n\
           *fsame(f) = 1.0f;\n\
           g[0] = *p + *q + *r;\n\
         }\n",
    );
}

#[test]
fn address_space_queries_and_casts() {
    build(
        "int classify(int *p) {\n\
           if (to_global(p)) return 1;\n\
           if (to_local(p)) return 2;\n\
           if (to_private(p)) return 3;\n\
           return 0;\n\
         }\n\
         kernel void k(global int *g, local int *l) {\n\
           int x = 5;\n\
           g[0] = classify(g) + classify(l) + classify(&x);\n\
           generic int *v = (int *)&l[1];\n\
           global int *back = (global int *)(int *)g;\n\
           local int *none = to_local(g);\n\
           back[1] = *v + (none == 0);\n\
         }\n",
    );
}

#[test]
fn generic_is_still_a_name_where_no_type_follows() {
    build("kernel void k(global int *o) { int generic = 3; o[0] = generic * 2; }\n");
}

#[test]
fn a_pointer_into_two_spaces_is_diagnosed() {
    let log = build_std(
        "kernel void k(global int *g, local int *l, int c) {\n\
           int *p;\n\
           if (c) p = g; else p = l;\n\
           *p = 1;\n\
         }\n",
        "-cl-std=CL2.0",
    )
    .unwrap_err();
    assert!(log.contains("<source>:3:"), "{log}");
    assert!(
        log.contains("cannot convert a pointer to the __local address space"),
        "{log}"
    );
}

#[test]
fn address_space_queries_need_opencl_c_2_0() {
    let log = build_std(
        "kernel void k(global int *g) { g[0] = to_global(g) != 0; }\n",
        "-cl-std=CL1.2",
    )
    .unwrap_err();
    assert!(
        log.contains("'to_global' needs the generic address space"),
        "{log}"
    );
    let log = build_std(
        "kernel void k(global int *g, constant int *c) { g[0] = to_global(c) != 0; }\n",
        "-cl-std=CL3.0",
    )
    .unwrap_err();
    assert!(log.contains("not a pointer to __constant"), "{log}");
}
