//! The generic address space (OpenCL C 2.0/3.0): programs whose generic
//! pointers have a space known where they are made build and pass
//! spirv-val; the rest are lowered with tagged generic pointers on a device
//! that reports `__opencl_c_generic_address_space`, and diagnosed on one
//! that does not.

mod common;

use common::{disassemble, validate};
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

/// A device whose buffer addresses leave the generic pointer tag free.
fn tagged_caps() -> TargetCaps {
    TargetCaps {
        features: vec!["__opencl_c_generic_address_space".into()],
        ..TargetCaps::default()
    }
}

/// Builds with tagged generic pointers available; checks with spirv-val
/// and returns the disassembly.
fn build_tagged(source: &str, options: &str) -> String {
    let request = CompileRequest {
        source,
        options,
        headers: &[],
    };
    match compile(&request, &tagged_caps()) {
        Ok(p) => {
            validate(&p.spirv);
            disassemble(&p.spirv)
        }
        Err(e) => panic!("build failed:\n{}", e.log),
    }
}

#[test]
fn a_pointer_into_a_space_chosen_per_work_item_is_tagged() {
    let dis = build_tagged(
        "kernel void k(global int *g, local int *l, global int *out) {\n\
           int priv[2] = { 1, 2 };\n\
           int *p;\n\
           int sel = get_global_id(0) % 3;\n\
           if (sel == 0) p = g; else if (sel == 1) p = l; else p = priv;\n\
           *p += 1;\n\
           out[get_global_id(0)] = *p + (to_local(p) != NULL) + get_fence(p);\n\
         }\n",
        "-cl-std=CL2.0",
    );
    // Loads and stores branch on the tag with OpSwitch; every arm and the
    // code after the dispatch must stay reachable.
    assert!(dis.contains("OpSwitch"), "{dis}");
    assert!(!dis.contains("OpUnreachable"), "{dis}");
}

#[test]
fn a_local_pointer_compared_with_a_tagged_generic_one_is_tagged_first() {
    build_tagged(
        "kernel void k(global uint *results) {\n\
           int *ptr = NULL;\n\
           local int *lptr = NULL;\n\
           global int *gptr = NULL;\n\
           ptr = lptr;\n\
           results[get_global_id(0)] = (gptr == ptr) && (lptr == ptr);\n\
         }\n",
        "-cl-std=CL3.0",
    );
}

#[test]
fn private_pointers_stored_in_memory_and_chosen_by_conditional() {
    // OpenCL C 1.2 too: a __private pointer into one of several objects.
    build_tagged(
        "kernel void k(global int *out, int x) {\n\
           int a = 1, b = 2;\n\
           int *p = x > 0 ? &a : &b;\n\
           int *ps[2] = { &a, &b };\n\
           int **pp = &p;\n\
           **pp += 1;\n\
           *ps[x & 1] += 10;\n\
           out[0] = a * 100 + b;\n\
         }\n",
        "",
    );
}

#[test]
fn atomics_through_a_tagged_generic_pointer() {
    build_tagged(
        "kernel void k(global atomic_int *g, local atomic_int *l, global int *out) {\n\
           atomic_int *p = get_local_id(0) & 1 ? g : l;\n\
           if (get_local_id(0) == 0) atomic_init(l, 0);\n\
           barrier(CLK_LOCAL_MEM_FENCE);\n\
           out[get_global_id(0)] = atomic_fetch_add(p, 1);\n\
         }\n",
        "-cl-std=CL3.0",
    );
}
