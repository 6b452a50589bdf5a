//! Elements read straight from a named `__constant` table come from a
//! `Private` copy of it with the table as its initializer, or are the
//! element's constant where the index is known (compiler/src/lower/
//! constant_table.rs); other uses keep reading the program's data buffer.
//! Results are checked on a device in icd/tests/kernels.rs.

mod common;

use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{Op, StorageClass};

fn module(source: &str) -> Module {
    let p = common::build(source);
    rspirv::dr::load_words(&p.spirv).expect("the module parses")
}

/// The module's `Private` variables that have an initializer.
fn initialized_private_variables(m: &Module) -> Vec<&Instruction> {
    m.types_global_values
        .iter()
        .filter(|i| {
            i.class.opcode == Op::Variable
                && i.operands.first() == Some(&Operand::StorageClass(StorageClass::Private))
                && i.operands.len() == 2
        })
        .collect()
}

fn count(m: &Module, op: Op) -> usize {
    m.functions
        .iter()
        .flat_map(|f| f.blocks.iter().flat_map(|b| &b.instructions))
        .filter(|i| i.class.opcode == op)
        .count()
}

#[test]
fn a_table_read_at_a_run_time_index_reads_a_private_copy() {
    let m = module(
        "__constant ulong k[4] = { 1ul, 2ul, 3ul, 0x8000000000000000ul };\n\
         kernel void f(global ulong *out, int i) { out[0] = k[i & 3]; }\n",
    );
    let tables = initialized_private_variables(&m);
    assert_eq!(tables.len(), 1);
    // Only `out` is a device address now: the data buffer is not read.
    assert_eq!(count(&m, Op::ConvertUToPtr), 1);
}

#[test]
fn a_table_read_at_a_constant_index_is_the_elements_constant() {
    let m = module(
        "__constant uint t[2][3] = { { 1u, 2u, 3u }, { 4u, 5u, 0xdeadbeefu } };\n\
         kernel void f(global uint *out) { out[0] = t[1][2]; }\n",
    );
    assert!(initialized_private_variables(&m).is_empty());
    let stored_constant = m
        .functions
        .iter()
        .flat_map(|f| f.blocks.iter().flat_map(|b| &b.instructions))
        .filter(|i| i.class.opcode == Op::Store)
        .filter_map(|i| i.operands.get(1).and_then(|o| o.id_ref_any()))
        .any(|id| {
            m.types_global_values.iter().any(|c| {
                c.result_id == Some(id)
                    && c.class.opcode == Op::Constant
                    && c.operands.first() == Some(&Operand::LiteralBit32(0xdead_beef))
            })
        });
    assert!(stored_constant, "t[1][2] is stored as a constant");
    assert_eq!(count(&m, Op::ConvertUToPtr), 1);
}

#[test]
fn addresses_and_narrow_tables_keep_the_data_buffer() {
    // `&t[i]` is a `__constant` pointer, and `uchar` tables are left as
    // they are: both read the buffer.
    let m = module(
        "__constant uint t[4] = { 1u, 2u, 3u, 4u };\n\
         __constant uchar b[4] = { 1, 2, 3, 4 };\n\
         kernel void f(global uint *out, int i) {\n\
             __constant uint *p = &t[i & 3];\n\
             out[0] = *p + b[i & 3];\n\
         }\n",
    );
    assert!(initialized_private_variables(&m).is_empty());
    assert!(count(&m, Op::ConvertUToPtr) >= 3);
}
