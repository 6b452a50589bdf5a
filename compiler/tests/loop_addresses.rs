//! A loop's addresses split into the part it changes and the part computed
//! before it (compiler/src/spirv/hoist/addresses.rs): which addresses are
//! rewritten and which stay, read from the SPIR-V (every module here
//! passes spirv-val). The results on a device are checked in
//! icd/tests/loop_addresses.rs.

mod common;

use common::{build, build_caps, caps, disassemble, loop_end};
use ferrocl_compiler::TargetCaps;

/// The lines of the first loop: its header's label to its merge block.
fn first_loop(text: &str) -> Vec<&str> {
    let lines: Vec<&str> = text.lines().collect();
    let merge = lines
        .iter()
        .position(|l| l.contains("OpLoopMerge"))
        .unwrap_or_else(|| panic!("no loop:\n{text}"));
    let header = lines[..merge]
        .iter()
        .rposition(|l| l.contains("= OpLabel"))
        .unwrap();
    lines[header..loop_end(&lines, merge)].to_vec()
}

fn count(lines: &[&str], what: &str) -> usize {
    lines.iter().filter(|l| l.contains(what)).count()
}

/// `sum += in[index]` over `ty` in the loop `head`, a hint before it.
fn reader(ty: &str, hint: &str, head: &str, index: &str) -> String {
    format!(
        "kernel void k(global const {ty} *in, global {ty} *out, uint n, int lo) {{\n\
           size_t gid = get_global_id(0);\n\
           size_t stride = get_global_size(0);\n\
           {ty} sum = 0;\n\
           {hint}\n\
           for ({head}) sum += in[{index}];\n\
           out[gid] = sum;\n\
         }}\n"
    )
}

fn computed() -> TargetCaps {
    TargetCaps {
        split_loop_addresses: false,
        ..caps()
    }
}

/// The multiplications in the first loop, split and as written.
fn products(src: &str) -> (usize, usize) {
    let split = disassemble(&build(src).spirv);
    let written = disassemble(&build_caps(src, &computed()).spirv);
    (
        count(&first_loop(&split), "OpIMul"),
        count(&first_loop(&written), "OpIMul"),
    )
}

#[test]
fn a_sixteen_wide_read_leaves_one_product_a_copy_in_the_loop() {
    // `in + (gid + zext(i) * stride) * 64`: two products a copy of the
    // body as written (four copies unrolled), one split.
    let src = reader("float16", "", "uint i = 0; i < n; ++i", "gid + i * stride");
    assert_eq!(products(&src), (4, 8));
    // As written by the hint: one copy.
    let src = reader(
        "float16",
        "#pragma unroll 1",
        "uint i = 0; i < n; ++i",
        "gid + i * stride",
    );
    assert_eq!(products(&src), (1, 2));
    // Whatever the counter: an `int` (sign-extended), a `ulong`, or a
    // value the loop loads.
    for (head, index) in [
        ("int i = lo; i < (int)n; i++", "gid + i * stride"),
        ("ulong i = 0; i < n; i += 3", "gid + i * stride"),
        (
            "uint i = 0; i < n; ++i",
            "gid + ((global const uint *)in)[i] * stride",
        ),
    ] {
        let src = reader("float16", "#pragma unroll 1", head, index);
        let (split, written) = products(&src);
        assert_eq!(split + 1, written, "{head}: {index}");
    }
}

#[test]
fn the_part_set_before_the_loop_is_computed_there() {
    let src = reader(
        "float16",
        "#pragma unroll 1",
        "uint i = 0; i < n; ++i",
        "gid + i * stride",
    );
    let text = disassemble(&build(&src).spirv);
    let lines: Vec<&str> = text.lines().collect();
    let header = lines
        .iter()
        .position(|l| l.contains("OpLoopMerge"))
        .unwrap();
    // `A` with the counter's term 0, and `F = stride * 64`.
    assert!(count(&lines[..header], "OpIMul") >= 3, "{text}");
    // In the loop the address is `A` plus the product, and the three
    // other loads of the vector add their offsets to it.
    let body = first_loop(&text);
    let product = body
        .iter()
        .find(|l| l.contains("OpIMul"))
        .and_then(|l| l.split_whitespace().next())
        .unwrap();
    let address = body
        .iter()
        .find(|l| l.contains("OpIAdd") && l.ends_with(&format!(" {product}")))
        .and_then(|l| l.split_whitespace().next())
        .unwrap_or_else(|| panic!("no address from {product}:\n{text}"));
    let offsets = body
        .iter()
        .filter(|l| l.contains("OpIAdd") && l.split_whitespace().nth(4) == Some(address))
        .count();
    assert_eq!(offsets, 3, "{text}");
}

#[test]
fn narrow_reads_and_short_computations_are_left_alone() {
    for (ty, index) in [
        // One or two loads an address: measured slower split.
        ("float", "gid + i * stride"),
        ("float4", "gid + i * stride"),
        ("float8", "gid + i * stride"),
        // `in + zext(i) * 64`: two operations.
        ("float16", "i"),
        // Constant multipliers only.
        ("float16", "gid + i * 3"),
    ] {
        let src = reader(ty, "#pragma unroll 1", "uint i = 0; i < n; ++i", index);
        let (split, written) = products(&src);
        assert_eq!(split, written, "{ty}: {index}");
    }
}

#[test]
fn loops_of_every_shape_stay_valid() {
    // `build` runs spirv-val on each.
    let bodies = [
        "for (uint i = 0; i < n; ++i) { if (in[gid + i * stride].s0 > 0) continue; sum += 1; }",
        "for (uint i = 0; i < n; ++i) { sum += in[gid + i * stride]; if (sum.s3 > 9) break; }",
        "uint i = 0; while (i < n) { sum += in[gid + i * stride]; i++; }",
        "uint i = 0; do { sum += in[gid + i * stride]; } while (++i < n);",
        "for (uint i = 0; i < n; ++i) { if (i & 1) { sum += in[gid + i * stride]; } else { sum -= in[gid + i * stride * 2]; } }",
        "for (uint i = 0; i < n; ++i) { for (uint j = 0; j < i; ++j) sum += in[gid + j * stride + i]; }",
        "for (uint i = 0; i < n; ++i) { barrier(CLK_GLOBAL_MEM_FENCE); sum += in[gid + i * stride]; }",
        "for (uint i = 0; i < n; ++i) { if (i == 3) { i += 2; } sum += in[gid + i * stride]; }",
    ];
    for body in bodies {
        let src = format!(
            "kernel void k(global const int16 *in, global int16 *out, uint n) {{\n\
               size_t gid = get_global_id(0);\n\
               size_t stride = get_global_size(0);\n\
               int16 sum = 0;\n\
               {body}\n\
               out[gid] = sum;\n\
             }}\n"
        );
        build(&src);
    }
}
