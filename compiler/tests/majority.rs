//! The bitwise majority as hash functions write it, `(x & y) | (z & (x ^
//! y))`, and `bitselect` reach SPIR-V as XORs around one AND
//! (compiler/src/lower/majority.rs): the shape NVIDIA's Vulkan compiler
//! makes one logic instruction of. Results are checked on a device in
//! icd/tests/bitselect.rs.

mod common;

use rspirv::dr::Module;
use rspirv::spirv::Op;

/// How many of each bitwise operation the module's functions hold:
/// (AND, OR, XOR, NOT), those of the launch's own code included.
fn all_bitwise_ops(source: &str) -> (usize, usize, usize, usize) {
    let p = common::build(source);
    let m: Module = rspirv::dr::load_words(&p.spirv).expect("the module parses");
    let count = |op: Op| {
        m.functions
            .iter()
            .flat_map(|f| f.blocks.iter().flat_map(|b| &b.instructions))
            .filter(|i| i.class.opcode == op)
            .count()
    };
    (
        count(Op::BitwiseAnd),
        count(Op::BitwiseOr),
        count(Op::BitwiseXor),
        count(Op::Not),
    )
}

/// The bitwise operations `source` adds to a kernel that copies a value.
fn bitwise_ops(source: &str) -> (usize, usize, usize, usize) {
    let (a, o, x, n) = all_bitwise_ops(source);
    let (a0, o0, x0, n0) = all_bitwise_ops(&kernel("uint", "x"));
    (a - a0, o - o0, x - x0, n - n0)
}

fn kernel(ty: &str, body: &str) -> String {
    format!(
        "kernel void k(global {ty} *io) {{\n\
             {ty} x = io[0], y = io[1], z = io[2];\n\
             io[3] = {body};\n\
         }}\n"
    )
}

#[test]
fn the_majority_is_xors_around_one_and() {
    for ty in ["uint", "ulong", "uint4", "uchar"] {
        for body in [
            "(x & y) | (z & (x ^ y))",
            "(y & x) | ((y ^ x) & z)",
            "(z & (x ^ y)) | (x & y)",
        ] {
            assert_eq!(bitwise_ops(&kernel(ty, body)), (1, 0, 3, 0), "{ty}: {body}");
        }
    }
}

#[test]
fn near_misses_and_side_effects_stay_as_written() {
    for body in [
        // Not the majority: `z` with `x ^ z`.
        "(x & y) | (z & (x ^ z))",
        // `x` read twice with a side effect between: evaluated as written.
        "(x++ & y) | (z & (x ^ y))",
    ] {
        let (_, or, ..) = bitwise_ops(&kernel("uint", body));
        assert_eq!(or, 1, "{body}");
    }
    // Operands of different types, where the two forms would convert
    // differently: as written.
    let mixed = "kernel void k(global uint *io, int x, uint y) {\n\
                     long z = io[0];\n\
                     io[3] = (uint)((x & y) | (z & (x ^ y)));\n\
                 }\n";
    assert_eq!(bitwise_ops(mixed).1, 1);
}

#[test]
fn bitselect_is_xors_around_one_and() {
    let select = kernel("uint", "bitselect(x, y, z)");
    assert_eq!(bitwise_ops(&select), (1, 0, 2, 0));
    let floats = kernel("float", "bitselect(x, y, z)");
    assert_eq!(bitwise_ops(&floats), (1, 0, 2, 0));
}
