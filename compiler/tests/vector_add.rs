//! The thin path: a vector-add kernel to valid SPIR-V with its reflection.

mod common;

use ferrocl_compiler::{AccessQualifier, AddressQualifier, ArgBlock, ArgKind};

#[test]
fn vector_add_builds_and_reflects() {
    let p = common::build(
        "__kernel void vadd(__global const float *a, __global const float *b,\n\
                            __global float *c, uint n) {\n\
           size_t i = get_global_id(0);\n\
           if (i < n) c[i] = a[i] + b[i];\n\
         }\n",
    );
    assert_eq!(p.kernels.len(), 1);
    let k = &p.kernels[0];
    assert_eq!(k.name, "vadd");
    assert_eq!(k.arg_block, ArgBlock::Push);
    let names: Vec<&str> = k.args.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["a", "b", "c", "n"]);
    let types: Vec<&str> = k.args.iter().map(|a| a.type_name.as_str()).collect();
    assert_eq!(types, ["float*", "float*", "float*", "uint"]);
    assert_eq!(k.args[0].kind, ArgKind::Buffer);
    assert_eq!(k.args[0].address_qualifier, AddressQualifier::Global);
    assert_eq!(k.args[0].access_qualifier, AccessQualifier::None);
    assert_eq!(k.args[0].type_qualifier, 1, "const");
    assert_eq!(k.args[2].type_qualifier, 0);
    assert_eq!(k.args[3].kind, ArgKind::Value);
    let offsets: Vec<u32> = k.args.iter().map(|a| a.offset).collect();
    assert_eq!(offsets, [0, 8, 16, 24]);
    let sizes: Vec<u32> = k.args.iter().map(|a| a.size).collect();
    assert_eq!(sizes, [8, 8, 8, 4]);
    assert_eq!(k.args_size, 28);
}

#[test]
fn argument_type_qualifiers_follow_the_spec() {
    let p = common::build(
        "kernel void k(global const int * restrict a, global volatile int *b, constant float *c,\n\
                       const int d, global int * const e, global int * volatile f, local int *g) {\n\
           f[0] = a[0] + b[0] + (int)c[0] + d + e[0] + g[0];\n\
         }\n",
    );
    let q: Vec<u32> = p.kernels[0].args.iter().map(|a| a.type_qualifier).collect();
    assert_eq!(q, [1 | 2, 4, 1, 0, 0, 0, 0]);
    let names: Vec<&str> = p.kernels[0]
        .args
        .iter()
        .map(|a| a.type_name.as_str())
        .collect();
    assert_eq!(
        names,
        ["int*", "int*", "float*", "int", "int*", "int*", "int*"]
    );
}
