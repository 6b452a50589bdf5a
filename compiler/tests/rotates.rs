//! 64-bit rotates on 32-bit halves under `TargetCaps::rotate64_in_halves`
//! (compiler/src/lower/rotate.rs): the SPIR-V keeps no 64-bit shift but
//! those that split and join the halves. Results are checked on a device,
//! both ways, in icd/tests/rotates.rs.

mod common;

use ferrocl_compiler::TargetCaps;
use rspirv::dr::{Module, Operand};
use rspirv::spirv::{Op, Word};
use std::collections::HashMap;

fn halves() -> TargetCaps {
    TargetCaps {
        rotate64_in_halves: true,
        ..common::caps()
    }
}

/// The 64-bit shifts of the module by something other than 32: what a
/// rotate written as shifts leaves.
fn wide_shifts(source: &str, caps: &TargetCaps) -> usize {
    let p = common::build_caps(source, caps);
    let m: Module = rspirv::dr::load_words(&p.spirv).expect("the module parses");
    let mut width: HashMap<Word, u32> = HashMap::new();
    let mut constant: HashMap<Word, u64> = HashMap::new();
    for i in &m.types_global_values {
        let Some(id) = i.result_id else { continue };
        match (i.class.opcode, i.operands.as_slice()) {
            (Op::TypeInt, [Operand::LiteralBit32(w), ..]) => {
                width.insert(id, *w);
            }
            (Op::TypeVector, [Operand::IdRef(e), ..]) => {
                let w = width.get(e).copied().unwrap_or(0);
                width.insert(id, w);
            }
            (Op::Constant, [Operand::LiteralBit32(v)]) => {
                constant.insert(id, u64::from(*v));
            }
            (Op::Constant, [Operand::LiteralBit64(v)]) => {
                constant.insert(id, *v);
            }
            (Op::ConstantComposite, [Operand::IdRef(first), rest @ ..])
                if rest.iter().all(|o| o == &Operand::IdRef(*first)) =>
            {
                if let Some(&v) = constant.get(first) {
                    constant.insert(id, v);
                }
            }
            _ => {}
        }
    }
    m.functions
        .iter()
        .flat_map(|f| f.blocks.iter().flat_map(|b| &b.instructions))
        .filter(|i| {
            matches!(
                i.class.opcode,
                Op::ShiftLeftLogical | Op::ShiftRightLogical | Op::ShiftRightArithmetic
            )
        })
        .filter(|i| i.result_type.and_then(|t| width.get(&t)) == Some(&64))
        .filter(|i| match i.operands.get(1) {
            Some(Operand::IdRef(count)) => constant.get(count) != Some(&32),
            _ => true,
        })
        .count()
}

const HASHCAT_STYLE: &str = "\
    ulong rotr64(const ulong a, const int n) { return (a >> n) | (a << (64 - n)); }\n\
    ulong rotl64(const ulong a, const int n) { return (a << n) | (a >> (64 - n)); }\n\
    kernel void f(global ulong *x) {\n\
        ulong a = x[0];\n\
        x[1] = rotr64(a, 14) ^ rotr64(a, 18) ^ rotl64(a, 23);\n\
        x[2] = (a >> 7) | (a << 57);\n\
        x[9] = ((a << 1) ^ (a >> (64 - 1))) + ((a >> 20) + (a << 44));\n\
        x[3] = rotate(a, (ulong)x[4]);\n\
        ulong2 v = vload2(0, x + 5);\n\
        vstore2((v << 3) | (v >> (64 - 3)), 0, x + 7);\n\
    }\n";

#[test]
fn rotates_of_ulong_values_shift_only_32_bit_halves() {
    assert_eq!(wide_shifts(HASHCAT_STYLE, &halves()), 0);
    // Written as shifts, each rotate is two 64-bit shifts.
    assert!(wide_shifts(HASHCAT_STYLE, &common::caps()) >= 10);
}

#[test]
fn what_is_not_a_64_bit_rotate_keeps_its_shifts() {
    for (source, shifts) in [
        // A signed value: `>>` copies the sign bit.
        ("long a = x[0]; x[1] = (a >> 3) | (a << 61);", 2),
        // Counts that do not add up to 64.
        ("ulong a = x[0]; x[1] = (a >> 3) | (a << 60);", 2),
        // Other operators than `|` are not rotates for a count of 0: a
        // count not known, or known to be 0 (mod 64).
        (
            "ulong a = x[0]; int n = x[2]; x[1] = (a >> n) ^ (a << (64 - n));",
            2,
        ),
        ("ulong a = x[0]; x[1] = (a >> 64) + (a << (64 - 64));", 2),
        // Shifts of two different values.
        ("ulong a = x[0], b = x[2]; x[1] = (a >> 3) | (b << 61);", 2),
        // An operand with a side effect is not evaluated once for two.
        (
            "ulong a = x[0]; int i = 0; x[1] = (x[i++] >> 3) | (x[i++] << 61);",
            2,
        ),
    ] {
        let src = format!("kernel void f(global long *x) {{ {source} }}\n");
        assert_eq!(wide_shifts(&src, &halves()), shifts, "{source}");
    }
    // 32-bit rotates stay shifts, which drivers match.
    let src = "kernel void f(global uint *x) { uint a = x[0]; x[1] = (a >> 3) | (a << 29); }\n";
    assert_eq!(wide_shifts(src, &halves()), 0);
}

#[test]
fn a_rotate_with_a_wrong_count_gets_the_shifts_diagnostics() {
    common::assert_build_errors(
        &halves(),
        &[
            (
                "kernel void f(global ulong *x, float c) { ulong a = x[0]; \
                 x[1] = (a >> c) | (a << (64 - c)); }",
                "shift operands must be integers",
            ),
            (
                "kernel void f(global ulong2 *x, int3 c) { ulong2 a = x[0]; \
                 x[1] = (a >> c) | (a << (64 - c)); }",
                "shift operands have different vector sizes",
            ),
        ],
    );
}
