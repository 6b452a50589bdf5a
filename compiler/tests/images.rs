//! Images and samplers in kernels: every built-in form on every image type
//! builds to valid SPIR-V with the argument reflection of docs/images.md;
//! the programs the OpenCL C specification forbids are diagnosed.

mod common;

use ferrocl_compiler::{AccessQualifier, AddressQualifier, ArgKind, TargetCaps};

fn image_caps() -> TargetCaps {
    TargetCaps {
        images: true,
        ..TargetCaps::default()
    }
}

fn build(source: &str) -> ferrocl_compiler::CompiledProgram {
    common::build_caps(source, &image_caps())
}

fn build_error(source: &str) -> String {
    match common::build_with(source, &image_caps()) {
        Ok(_) => panic!("expected a build error for:\n{source}"),
        Err(e) => e.log,
    }
}

/// (image type, int coordinate type, float coordinate type, texel-of-float
/// type) of every image type.
const TYPES: [(&str, &str, &str, &str); 6] = [
    ("image1d_t", "int", "float", "float4"),
    ("image1d_array_t", "int2", "float2", "float4"),
    ("image2d_t", "int2", "float2", "float4"),
    ("image2d_array_t", "int4", "float4", "float4"),
    ("image3d_t", "int4", "float4", "float4"),
    ("image1d_buffer_t", "int", "", "float4"),
];

#[test]
fn image_and_sampler_arguments_reflect() {
    let p = build(
        "kernel void k(read_only image2d_t a, write_only image3d_t b, image1d_t c,\n\
                       read_write image2d_array_t d, sampler_t s, global int *out) {\n\
           out[0] = get_image_width(a) + get_image_width(b) + get_image_width(c)\n\
                  + get_image_width(d);\n\
         }\n",
    );
    let k = &p.kernels[0];
    let kinds: Vec<ArgKind> = k.args.iter().map(|a| a.kind).collect();
    assert_eq!(
        kinds,
        [
            ArgKind::Image,
            ArgKind::Image,
            ArgKind::Image,
            ArgKind::Image,
            ArgKind::Sampler,
            ArgKind::Buffer
        ]
    );
    let access: Vec<AccessQualifier> = k.args.iter().map(|a| a.access_qualifier).collect();
    assert_eq!(
        access,
        [
            AccessQualifier::ReadOnly,
            AccessQualifier::WriteOnly,
            AccessQualifier::ReadOnly,
            AccessQualifier::ReadWrite,
            AccessQualifier::None,
            AccessQualifier::None
        ]
    );
    for a in &k.args[..4] {
        assert_eq!(a.address_qualifier, AddressQualifier::Global);
        assert_eq!(a.size, 8);
    }
    assert_eq!(k.args[4].size, 8);
    let offsets: Vec<u32> = k.args.iter().map(|a| a.offset).collect();
    assert_eq!(offsets, [0, 8, 16, 24, 32, 40]);
    let names: Vec<&str> = k.args.iter().map(|a| a.type_name.as_str()).collect();
    assert_eq!(names[0], "image2d_t");
    assert_eq!(names[4], "sampler_t");
}

#[test]
fn every_read_form_builds() {
    for (img, ic, fc, _) in TYPES {
        let mut body = String::new();
        body += &format!("  {ic} ic = ({ic})(0);\n");
        body += "  float4 f = read_imagef(im, ic);\n";
        body += "  int4 i = read_imagei(im, ic);\n";
        body += "  uint4 u = read_imageui(im, ic);\n";
        if !fc.is_empty() {
            body += &format!("  {fc} fc = ({fc})(0.5f);\n");
            body += "  f += read_imagef(im, s, fc) + read_imagef(im, s, ic);\n";
            body += "  i += read_imagei(im, s, fc) + read_imagei(im, s, ic);\n";
            body += "  u += read_imageui(im, s, fc) + read_imageui(im, s, ic);\n";
            body += "  f += read_imagef(im, CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_REPEAT | CLK_FILTER_LINEAR, fc);\n";
        }
        body += "  out[0] = f; out[1] = convert_float4(i) + convert_float4(u);\n";
        let src = format!(
            "kernel void k(read_only {img} im, sampler_t s, global float4 *out) {{\n{body}}}\n"
        );
        let p = build(&src);
        assert_eq!(p.kernels[0].args[0].kind, ArgKind::Image, "{img}");
    }
}

#[test]
fn every_write_form_builds() {
    for (img, ic, _, _) in TYPES {
        for access in ["write_only", "read_write"] {
            let src = format!(
                "kernel void k({access} {img} im, float4 f, int4 i, uint4 u) {{\n\
                   {ic} c = ({ic})(1);\n\
                   write_imagef(im, c, f);\n\
                   write_imagei(im, c, i);\n\
                   write_imageui(im, c, u);\n\
                 }}\n"
            );
            build(&src);
        }
    }
}

#[test]
fn read_write_images_read_without_a_sampler() {
    build(
        "kernel void k(read_write image2d_t im) {\n\
           int2 c = (int2)(get_global_id(0), get_global_id(1));\n\
           float4 v = read_imagef(im, c);\n\
           write_imagef(im, c, v * 2.0f);\n\
           atomic_work_item_fence(CLK_IMAGE_MEM_FENCE, memory_order_acq_rel, memory_scope_work_item);\n\
           write_imagef(im, c, read_imagef(im, c) + 1.0f);\n\
         }\n",
    );
}

#[test]
fn every_query_builds() {
    let p = build(
        "kernel void k(image1d_t a, image1d_array_t b, image2d_t c, image2d_array_t d,\n\
                       image3d_t e, image1d_buffer_t f, global int *out, global ulong *sz) {\n\
           out[0] = get_image_width(a) + get_image_width(b) + get_image_width(f);\n\
           out[1] = get_image_height(c) + get_image_height(d) + get_image_height(e);\n\
           out[2] = get_image_depth(e);\n\
           sz[0] = get_image_array_size(b) + get_image_array_size(d);\n\
           int2 dc = get_image_dim(c) + get_image_dim(d);\n\
           int4 de = get_image_dim(e);\n\
           out[3] = dc.x + dc.y + de.z + de.w;\n\
           out[4] = get_image_channel_data_type(a) + get_image_channel_order(e);\n\
           out[5] = CLK_UNORM_INT8 + CLK_RGBA + CLK_sRGBA + CLK_UNORM_INT_101010_2;\n\
         }\n",
    );
    assert_eq!(p.kernels[0].args.len(), 8);
}

#[test]
fn samplers_in_the_program() {
    build(
        "constant sampler_t glob = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_MIRRORED_REPEAT | CLK_FILTER_LINEAR;\n\
         kernel void k(image2d_t im, global float4 *out) {\n\
           const sampler_t loc = CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;\n\
           out[0] = read_imagef(im, glob, (float2)(0.25f, 0.75f));\n\
           out[1] = read_imagef(im, loc, (int2)(3, -1));\n\
         }\n",
    );
}

#[test]
fn images_pass_to_helper_functions() {
    build(
        "float4 fetch(read_only image2d_t im, sampler_t s, int2 c) { return read_imagef(im, s, c); }\n\
         void put(write_only image2d_t im, int2 c, float4 v) { write_imagef(im, c, v); }\n\
         kernel void k(read_only image2d_t src, write_only image2d_t dst, sampler_t s) {\n\
           int2 c = (int2)(get_global_id(0), get_global_id(1));\n\
           put(dst, c, fetch(src, s, c) + fetch(src, s, c + (int2)(1, 0)));\n\
         }\n",
    );
}

#[test]
fn half_forms_need_fp16() {
    let log = build_error(
        "kernel void k(image2d_t im, global float *out) { out[0] = read_imageh(im, (int2)(0)).x; }\n",
    );
    assert!(log.contains("cl_khr_fp16"), "{log}");
}

#[test]
fn forbidden_programs_are_diagnosed() {
    let cases = [
        (
            "kernel void k(read_only image2d_t im) { write_imagef(im, (int2)(0), (float4)(0)); }",
            "read_only",
        ),
        (
            "kernel void k(image2d_t im) { write_imagef(im, (int2)(0), (float4)(0)); }",
            "read_only",
        ),
        (
            "kernel void k(write_only image2d_t im, global float4 *o) { o[0] = read_imagef(im, (int2)(0)); }",
            "write_only",
        ),
        (
            "kernel void k(read_write image2d_t im, sampler_t s, global float4 *o) { o[0] = read_imagef(im, s, (int2)(0)); }",
            "read_write",
        ),
        (
            "kernel void k(image2d_t im, global float4 *o) { image2d_t copy = im; o[0] = read_imagef(copy, (int2)(0)); }",
            "image",
        ),
        (
            "kernel void k(image1d_buffer_t im, sampler_t s, global float4 *o) { o[0] = read_imagef(im, s, 0); }",
            "sampler",
        ),
        (
            "kernel void k(image2d_t im, global float4 *o) { o[0] = read_imagef(im, (float2)(0)); }",
            "coordinates",
        ),
        (
            "kernel void k(image2d_t im, global int *o) { o[0] = get_image_depth(im); }",
            "not defined",
        ),
        (
            "kernel void k(global float4 *o) { o[0] = read_imagef(o, (int2)(0)); }",
            "image",
        ),
        (
            "kernel void k(write_only image2d_t im) { write_imagei(im, (int2)(0), (uint4)(0)); }",
            "int4",
        ),
    ];
    for (src, want) in cases {
        let log = build_error(src);
        assert!(log.contains(want), "{src}\n{log}");
    }
}

#[test]
fn images_need_image_support() {
    let log = match common::build_with(
        "kernel void k(image2d_t im, global int *o) { o[0] = get_image_width(im); }",
        &TargetCaps::default(),
    ) {
        Ok(_) => panic!("built without image support"),
        Err(e) => e.log,
    };
    assert!(log.contains("image support"), "{log}");
}

#[test]
fn half_forms_build_with_fp16() {
    let caps = TargetCaps {
        images: true,
        fp16: true,
        int16: true,
        ..TargetCaps::default()
    };
    common::build_caps(
        "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n\
         kernel void k(read_only image2d_t src, write_only image3d_t dst, sampler_t s, global half4 *out) {\n\
           half4 a = read_imageh(src, s, (float2)(0.5f)) + read_imageh(src, s, (int2)(1)) + read_imageh(src, (int2)(0));\n\
           out[0] = a;\n\
           write_imageh(dst, (int4)(0), a);\n\
         }\n",
        &caps,
    );
}

#[test]
fn image_constants_in_constant_expressions() {
    build(
        "kernel void k(image2d_t im, global int *out) {\n\
           switch (get_image_channel_order(im)) {\n\
           case CLK_RGBA: out[0] = 1; break;\n\
           case CLK_BGRA: out[0] = 2; break;\n\
           default: out[0] = 0;\n\
           }\n\
           int table[CLK_FILTER_LINEAR];\n\
           table[0] = 1; out[1] = table[0];\n\
         }\n",
    );
}

#[test]
fn malformed_image_calls_are_diagnosed_without_panicking() {
    let bodies = [
        "read_imagef(1, 2, 3);",
        "read_imagef(im, im, im);",
        "read_imagef(im, s, s);",
        "read_imagef();",
        "write_imagef(im);",
        "write_imagef(im, (int2)(0), im);",
        "get_image_width();",
        "get_image_width(im, im);",
        "get_image_dim(s);",
        "read_imageui(im, 1.5f, (float2)(0));",
        "sampler_t t;",
        "sampler_t t = im;",
    ];
    for body in bodies {
        let src = format!("kernel void k(write_only image2d_t im, sampler_t s) {{ {body} }}");
        let log = build_error(&src);
        assert!(log.contains("error"), "{body}: {log}");
    }
    let log = build_error("constant sampler_t s = 1.5f; kernel void k(global int *o) { }");
    assert!(log.contains("sampler"), "{log}");
    let log = build_error("constant image2d_t i = 0; kernel void k(global int *o) { }");
    assert!(log.contains("image2d_t"), "{log}");
    let log = build_error("kernel void k(event_t e) { }");
    assert!(log.contains("event_t"), "{log}");
}
