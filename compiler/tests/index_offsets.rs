//! A 32-bit index `t + c` whose constant `c` fits below the low bits
//! known to be zero in `t` (`x * 64 + 5`) cannot carry out of 32 bits, so
//! `p[t + c]` is addressed as `p[t]` plus a constant offset
//! (compiler/src/lower/expr.rs `pointer_add`), which a driver folds into
//! the access; other indices widen the sum as written. Results on a
//! device: icd/tests/index_offsets.rs.

mod common;

use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{Op, Word};
use std::collections::HashMap;

/// The 32-bit indices widened to 64 bits that are still a sum with a
/// constant: the adds a driver cannot split, since they might wrap.
fn widened_constant_sums(source: &str) -> usize {
    constant_sums_used_by(source, &[Op::UConvert, Op::SConvert])
}

/// The instructions of opcodes `users` whose first operand is a sum with a
/// constant.
fn constant_sums_used_by(source: &str, users: &[Op]) -> usize {
    let p = common::build(source);
    let m: Module = rspirv::dr::load_words(&p.spirv).expect("the module parses");
    let constants: Vec<Word> = m
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::Constant)
        .filter_map(|i| i.result_id)
        .collect();
    let body: Vec<&Instruction> = m
        .functions
        .iter()
        .flat_map(|f| f.blocks.iter().flat_map(|b| &b.instructions))
        .collect();
    let defs: HashMap<Word, &Instruction> = body
        .iter()
        .filter_map(|i| i.result_id.map(|id| (id, *i)))
        .collect();
    let constant_sum = |id: &Word| {
        defs.get(id).is_some_and(|d| {
            d.class.opcode == Op::IAdd
                && d.operands
                    .iter()
                    .any(|o| matches!(o, Operand::IdRef(c) if constants.contains(c)))
        })
    };
    body.iter()
        .filter(|i| users.contains(&i.class.opcode))
        .filter(|i| matches!(i.operands.first(), Some(Operand::IdRef(x)) if constant_sum(x)))
        .count()
}

#[test]
fn sixty_four_bit_indices_always_split() {
    // A 64-bit sum scaled by the element size is the scaled sum modulo
    // 2^64 whatever it holds: no index is a sum multiplied by the size.
    let split = "kernel void f(global uint4 *p, global uint4 *q, ulong x, long y) {\n\
        size_t g = get_global_id(0);\n\
        q[0] = p[g * 4 + 1];\n\
        q[1] = p[x * 3UL + 0xffffffffffUL];\n\
        q[2] = (p + 100)[y * 5L - 7L];\n\
        q[3] = *(p + 100 - (x + 9UL));\n\
    }\n";
    assert_eq!(constant_sums_used_by(split, &[Op::IMul]), 0);
    // The same sums in 32 bits with no known zeros keep theirs.
    let kept = "kernel void f(global uint4 *p, global uint4 *q, uint x) {\n\
        q[0] = p[x * 3u + 1u];\n\
    }\n";
    assert_eq!(constant_sums_used_by(kept, &[Op::UConvert]), 1);
}

#[test]
fn sums_that_cannot_wrap_are_addressed_with_constant_offsets() {
    let split = "kernel void f(global uint4 *p, global uint4 *q, uint x) {\n\
        q[0] = p[x * 64u + 0u];\n\
        q[1] = p[x * 64u + 1u];\n\
        q[2] = p[x * 64u + 63u];\n\
        q[3] = p[(x << 4) + 15u];\n\
        q[4] = p[(x & ~7u) + 7u];\n\
        q[5] = p[x * 16384u * 64u + (x >> 3) * 64u + 9u];\n\
        global uint4 *r = p + 1000;\n\
        q[6] = *(r - (x * 8u + 3u));\n\
        q[7] = r[(int)x * 64 + 3];\n\
    }\n";
    assert_eq!(widened_constant_sums(split), 0);
    // A constant as large as the known zeros allow and indices with none
    // known keep the widened sum.
    let kept = "kernel void f(global uint4 *p, global uint4 *q, uint x, int i) {\n\
        q[0] = p[x * 64u + 64u];\n\
        q[1] = p[x + 1u];\n\
        q[2] = p[i * 3 + 1];\n\
    }\n";
    assert_eq!(widened_constant_sums(kept), 3);
}

#[test]
fn a_signed_index_keeps_its_sign() {
    // `x & 0` is a zero the compiler cannot fold, so every bit of it is
    // known to be zero; -1 as an `int` added to it widens to -1, not to
    // 0xffffffff, and must keep the sum.
    let src = "kernel void f(global uint4 *p, global uint4 *q, int x) {\n\
        q[0] = (p + 8)[(x & 0) + (int)0xffffffffu];\n\
        q[1] = p[(uint)(x & 0) + 0xffffffffu];\n\
    }\n";
    assert_eq!(widened_constant_sums(src), 1);
}
