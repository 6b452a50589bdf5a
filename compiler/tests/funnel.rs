//! Byte alignments written as `if`/`else if` chains of funnel shifts
//! (compiler/src/lower/funnel.rs) lower to straight-line code: no branch
//! is left of a chain, and with `TargetCaps::funnel_shift64` the shift is
//! one 64-bit shift of the pair. Chains that are no funnel shift keep
//! their branches. Results are checked on a device, both ways, in
//! icd/tests/funnel.rs.

mod common;

use ferrocl_compiler::TargetCaps;
use rspirv::dr::{Module, Operand};
use rspirv::spirv::Op;

fn caps(funnel_shift64: bool) -> TargetCaps {
    TargetCaps {
        funnel_shift64,
        ..common::caps()
    }
}

/// How many of each opcode the module's functions hold.
fn count(source: &str, caps: &TargetCaps, op: Op) -> usize {
    let p = common::build_caps(source, caps);
    let m: Module = rspirv::dr::load_words(&p.spirv).expect("the module parses");
    m.functions
        .iter()
        .flat_map(|f| f.blocks.iter().flat_map(|b| &b.instructions))
        .filter(|i| i.class.opcode == op)
        .count()
}

/// The 64-bit shifts right of the module.
fn wide_shifts_right(source: &str, caps: &TargetCaps) -> usize {
    let p = common::build_caps(source, caps);
    let m: Module = rspirv::dr::load_words(&p.spirv).expect("the module parses");
    let ulong = m
        .types_global_values
        .iter()
        .find(|i| {
            i.class.opcode == Op::TypeInt
                && i.operands.first() == Some(&Operand::LiteralBit32(64))
                && i.operands.get(1) == Some(&Operand::LiteralBit32(0))
        })
        .and_then(|i| i.result_id);
    m.functions
        .iter()
        .flat_map(|f| f.blocks.iter().flat_map(|b| &b.instructions))
        .filter(|i| i.class.opcode == Op::ShiftRightLogical && i.result_type == ulong)
        .count()
}

/// A kernel around `body`, which reads `uint a, b` and `int c` and
/// assigns `uint r`.
fn kernel(body: &str) -> String {
    format!(
        "__kernel void k(__global uint *p, int c) {{
            uint a = p[0], b = p[1];
            uint r = 0;
            {body}
            p[2] = r;
        }}"
    )
}

const HASHCAT_BE: &str = "const int cm = c & 3;
         if (cm == 0) { r = b;                     }
    else if (cm == 1) { r = (a << 24) | (b >>  8); }
    else if (cm == 2) { r = (a << 16) | (b >> 16); }
    else if (cm == 3) { r = (a <<  8) | (b >> 24); }";

#[test]
fn a_byte_alignment_chain_leaves_no_branch() {
    let source = kernel(HASHCAT_BE);
    // The kernel's own branches (its early return past the global size).
    let plain = kernel("r = b;");
    for wide in [false, true] {
        let caps = caps(wide);
        for op in [Op::BranchConditional, Op::SelectionMerge] {
            assert_eq!(
                count(&source, &caps, op),
                count(&plain, &caps, op),
                "wide {wide}, {op:?}"
            );
        }
        assert_eq!(
            wide_shifts_right(&source, &caps),
            usize::from(wide),
            "wide {wide}"
        );
    }
}

#[test]
fn chains_that_are_no_funnel_shift_keep_their_branches() {
    let rows = [
        // Amounts not affine in the value.
        "if (c == 0) r = (a << 24) | (b >> 8);
         else if (c == 1) r = (a << 16) | (b >> 16);
         else if (c == 2) r = (a << 28) | (b >> 4);",
        // A gap in the constants.
        "if (c == 0) r = b;
         else if (c == 1) r = (a << 24) | (b >> 8);
         else if (c == 3) r = (a << 8) | (b >> 24);",
        // Two different pairs.
        "if (c == 0) r = b;
         else if (c == 1) r = (a << 24) | (b >> 8);
         else if (c == 2) r = (b << 16) | (a >> 16);",
        // A final else.
        "if (c == 0) r = b;
         else if (c == 1) r = (a << 24) | (b >> 8);
         else if (c == 2) r = (a << 16) | (b >> 16);
         else r = 1;",
        // Two arms only.
        "if (c == 0) r = b;
         else if (c == 1) r = (a << 24) | (b >> 8);",
        // An arm with a second statement.
        "if (c == 0) r = b;
         else if (c == 1) { r = (a << 24) | (b >> 8); a = 0; }
         else if (c == 2) r = (a << 16) | (b >> 16);",
        // Signed values: `>>` copies the sign bit.
        "int sa = (int)a, sb = (int)b, sr = 0;
         if (c == 0) sr = sb;
         else if (c == 1) sr = (sa << 24) | (sb >> 8);
         else if (c == 2) sr = (sa << 16) | (sb >> 16);
         r = (uint)sr;",
        // A `__local` target: stored by every work-item otherwise.
        "__local uint lr;
         if (c == 0) lr = b;
         else if (c == 1) lr = (a << 24) | (b >> 8);
         else if (c == 2) lr = (a << 16) | (b >> 16);
         r = lr;",
        // 64-bit values.
        "ulong la = a, lb = b, lr = 0;
         if (c == 0) lr = lb;
         else if (c == 1) lr = (la << 24) | (lb >> 8);
         else if (c == 2) lr = (la << 16) | (lb >> 16);
         r = (uint)lr;",
    ];
    for (i, body) in rows.iter().enumerate() {
        let source = kernel(body);
        for wide in [false, true] {
            let branches = count(&source, &caps(wide), Op::BranchConditional);
            assert!(branches >= 2, "row {i}, wide {wide}: {branches} branches");
        }
    }
}

#[test]
fn a_chain_assigning_a_constant_variable_keeps_its_diagnostic() {
    let source = "__kernel void k(__global uint *p, int c) {
        uint a = p[0], b = p[1];
        const uint r = 0;
        if (c == 0) r = b;
        else if (c == 1) r = (a << 24) | (b >> 8);
        else if (c == 2) r = (a << 16) | (b >> 16);
        p[2] = r;
    }";
    let log = common::build_error(source);
    assert!(log.contains("const-qualified"), "{log}");
}
