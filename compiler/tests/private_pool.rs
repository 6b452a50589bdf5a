//! A kernel that casts `__private` pointers or takes the address of a
//! union in private memory (itself or in a function it calls) lowers
//! private pointers to byte offsets into the private pool. Only variables
//! that may be addressed, or hold a union, take slots there
//! (compiler/src/lower/addressed.rs); the rest stay `Function` variables
//! of their own, which drivers keep in registers. A kernel with unions
//! alone keeps only those in the pool.
//!
//! Where the compiler knows which variable every access reaches, each
//! slot is a word array of its own, named after its variable
//! (compiler/src/lower/split_pool.rs); otherwise, and with
//! `TargetCaps::split_private_pool` off, the pool is one unnamed array.
//! Results are checked on a device in icd/tests/kernels.rs.

mod common;

use ferrocl_compiler::TargetCaps;
use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{Op, StorageClass};

/// The instructions of the module's functions.
fn instructions(m: &Module) -> impl Iterator<Item = &Instruction> {
    m.functions
        .iter()
        .flat_map(|f| f.blocks.iter().flat_map(|b| &b.instructions))
}

/// The type, constant or global `id` defines.
fn global(m: &Module, id: u32) -> Option<&Instruction> {
    m.types_global_values
        .iter()
        .find(|i| i.result_id == Some(id))
}

/// The length of the array of 32-bit words that pointer type `ptr_ty`
/// points to, if it is one.
fn word_array_len(m: &Module, ptr_ty: u32) -> Option<u32> {
    array_len(m, ptr_ty, |elem| is_int(elem, 32))
}

/// The length of the array of `uchar4` words that pointer type `ptr_ty`
/// points to.
fn byte_word_array_len(m: &Module, ptr_ty: u32) -> Option<u32> {
    array_len(m, ptr_ty, |elem| {
        elem.class.opcode == Op::TypeVector
            && elem.operands.get(1) == Some(&Operand::LiteralBit32(4))
            && global(m, elem.operands[0].unwrap_id_ref()).is_some_and(|c| is_int(c, 8))
    })
}

fn is_int(ty: &Instruction, bits: u32) -> bool {
    ty.class.opcode == Op::TypeInt && ty.operands.first() == Some(&Operand::LiteralBit32(bits))
}

/// The length of the array that pointer type `ptr_ty` points to, where
/// its element type passes `elem_is`.
fn array_len(m: &Module, ptr_ty: u32, elem_is: impl Fn(&Instruction) -> bool) -> Option<u32> {
    let arr = global(m, global(m, ptr_ty)?.operands.get(1)?.unwrap_id_ref())?;
    if arr.class.opcode != Op::TypeArray || !elem_is(global(m, arr.operands[0].unwrap_id_ref())?) {
        return None;
    }
    match global(m, arr.operands[1].unwrap_id_ref())?.operands.first() {
        Some(Operand::LiteralBit32(n)) => Some(*n),
        _ => None,
    }
}

/// The lengths of the unnamed `Function` arrays of 32-bit words: the
/// pools (named variables are the program's own).
fn pool_lengths(m: &Module) -> Vec<u32> {
    let named = |id: u32| {
        m.debug_names
            .iter()
            .any(|i| i.class.opcode == Op::Name && i.operands.first() == Some(&Operand::IdRef(id)))
    };
    instructions(m)
        .filter(|i| {
            i.class.opcode == Op::Variable
                && i.operands.first() == Some(&Operand::StorageClass(StorageClass::Function))
                && !i.result_id.is_some_and(named)
        })
        .filter_map(|i| word_array_len(m, i.result_type?))
        .collect()
}

fn names(m: &Module) -> Vec<String> {
    m.debug_names
        .iter()
        .filter(|i| i.class.opcode == Op::Name)
        .filter_map(|i| match i.operands.get(1) {
            Some(Operand::LiteralString(s)) => Some(s.clone()),
            _ => None,
        })
        .collect()
}

/// The length of the `Function` array of 32-bit words named `name`.
fn named_word_array(m: &Module, name: &str) -> Option<u32> {
    word_array_len(m, named_variable(m, name)?.result_type?)
}

/// The length of the `Function` array of `uchar4` words named `name`.
fn named_byte_word_array(m: &Module, name: &str) -> Option<u32> {
    byte_word_array_len(m, named_variable(m, name)?.result_type?)
}

fn named_variable<'m>(m: &'m Module, name: &str) -> Option<&'m Instruction> {
    let id = m
        .debug_names
        .iter()
        .find_map(|i| match i.operands.as_slice() {
            [Operand::IdRef(id), Operand::LiteralString(s)] if s == name => Some(*id),
            _ => None,
        })?;
    instructions(m).find(|i| i.class.opcode == Op::Variable && i.result_id == Some(id))
}

/// Capabilities that keep every private pool whole.
fn whole() -> TargetCaps {
    TargetCaps {
        split_private_pool: false,
        ..common::caps()
    }
}

/// The module of `source`, its private pools whole.
fn module(source: &str) -> Module {
    let p = common::build_caps(source, &whole());
    rspirv::dr::load_words(&p.spirv).expect("the module parses")
}

/// The module of `source` as built for devices: pools split where they
/// can be.
fn split_module(source: &str) -> Module {
    let p = common::build(source);
    rspirv::dr::load_words(&p.spirv).expect("the module parses")
}

/// A union, a float whose address is taken, and counters and a table
/// that are never addressed.
const ADDRESSED_AND_NOT: &str =
        "typedef union { uint4 v; uint w[4]; } quad;\n\
         kernel void k(global uint *out, uint n) {\n\
             quad q;\n\
             q.v = (uint4)(n);\n\
             float f = (float)n;\n\
             uint bits = *(uint *)&f;\n\
             uint table[4] = { n, n + 1, n + 2, n + 3 };\n\
             uint acc = 0, a = 1, b = 2, c = 3, d = 4, e = 5, g = 6;\n\
             for (uint i = 0; i < n; i++) { acc += table[i & 3] * a; a += b; b ^= c; c += d; d -= e; e += g; }\n\
             out[get_global_id(0)] = acc + q.w[n & 3] + bits;\n\
         }\n";

#[test]
fn only_addressed_variables_and_unions_take_pool_slots() {
    // The union takes 16 bytes and `f`, whose address is taken, 4: a pool
    // of 20 bytes (5 words, and one more that every pool has). The
    // counters and the array indexed by name would add 48 bytes.
    let m = module(ADDRESSED_AND_NOT);
    assert_eq!(pool_lengths(&m), [6]);
    let names = names(&m);
    for own in ["acc", "table", "bits", "g"] {
        assert!(names.iter().any(|n| n == own), "{own} in {names:?}");
    }
    assert!(!names.iter().any(|n| n == "q" || n == "f"), "{names:?}");
}

/// A kernel with a union `u`, an array `passed` that decays into a call,
/// the parameter `v` of `twice` addressed, and `kept` only indexed;
/// `second` initialises `passed[1]`.
fn decaying_and_addressed(second: &str) -> Module {
    module(&format!(
        "typedef union {{ int i; float f; }} num;\n\
         int sum(const int *p) {{ return p[0] + p[1]; }}\n\
         int twice(int v) {{ int *p = &v; *p *= 2; return v; }}\n\
         kernel void k(global int *out, int n) {{\n\
             num u; u.i = n;\n\
             float f = (float)n;\n\
             int passed[2] = {{ n, {second} }};\n\
             int kept[2] = {{ n, 2 }};\n\
             out[0] = sum(passed) + kept[n & 1] + twice(n) + (int)u.f;\n\
         }}\n"
    ))
}

#[test]
fn arrays_that_decay_and_parameters_whose_address_is_taken_take_slots() {
    // The pointer cast makes private pointers pool offsets: `passed`, `v`
    // and `f` join `u` in the pool; `kept` stays a variable.
    let m = decaying_and_addressed("*(int *)&f");
    // `u` 4 bytes, `f` 4, `passed` 8, `v` 4: 20 bytes, 5 words and one
    // more.
    assert_eq!(pool_lengths(&m), [6]);
    let names = names(&m);
    assert!(names.iter().any(|n| n == "kept"), "{names:?}");
    assert!(!names.iter().any(|n| n == "passed"), "{names:?}");
}

#[test]
fn without_pointer_casts_only_unions_take_slots() {
    // No pointer cast and no union whose address is taken: `u` alone
    // takes a slot, and `passed` and `v`, though addressed, stay
    // variables of their own, their pointers typed.
    let m = decaying_and_addressed("1");
    assert_eq!(pool_lengths(&m), [2]);
    let names = names(&m);
    for own in ["kept", "passed", "v"] {
        assert!(names.iter().any(|n| n == own), "{own} in {names:?}");
    }
}

#[test]
fn a_union_whose_address_is_taken_makes_private_pointers_pool_offsets() {
    // `&u` points into a union: every addressed variable joins the pool.
    let m = module(
        "typedef union { int i; float f; } num;\n\
         float as_float(const num *p) { return p->f; }\n\
         int sum(const int *p) { return p[0] + p[1]; }\n\
         kernel void k(global int *out, int n) {\n\
             num u; u.i = n;\n\
             int passed[2] = { n, 1 };\n\
             out[0] = sum(passed) + (int)as_float(&u);\n\
         }\n",
    );
    // `u` 4 bytes and `passed` 8: 3 words and one more.
    assert_eq!(pool_lengths(&m), [4]);
    assert!(!names(&m).iter().any(|n| n == "passed"));
}

#[test]
fn each_kernel_has_a_pool_only_if_what_it_calls_needs_one() {
    // `bytes` casts a private pointer; only `casting` calls it.
    let m = module(
        "uint bytes(uint x) { uchar *b = (uchar *)&x; return b[0] + b[3]; }\n\
         uint sum(const uint *p) { return p[0] + p[1]; }\n\
         kernel void casting(global uint *out) { uint a[2] = { out[0], 1 }; out[1] = bytes(out[2]) + sum(a); }\n\
         kernel void plain(global uint *out) { uint a[2] = { out[0], 1 }; out[1] = sum(a); }\n",
    );
    // `casting`: `x` 4 bytes and `a` 8, 3 words and one more; `plain`
    // has none.
    assert_eq!(pool_lengths(&m), [4]);
    assert_eq!(
        names(&m).iter().filter(|n| *n == "a").count(),
        1,
        "`a` of plain is a variable"
    );
}

#[test]
fn uncalled_functions_take_pool_offsets_as_private_pointers() {
    // hashcat's headers define many functions a kernel does not call; a
    // function is checked even so, given pointers of its parameters'
    // types. In a pooled program a private pointer is an offset: it may
    // be reinterpreted, and an array it reaches may decay.
    let m = module(
        "typedef struct { uint w[4]; } ctx_t;\n\
         uchar second_byte(const uint *src) { const uchar *p = (const uchar *)src; return p[1]; }\n\
         uint first_word(const uint *w) { return w[0]; }\n\
         void touch(ctx_t *c) { c->w[1] = first_word(c->w); }\n\
         uchar unused_reader(const uint *src) { return ((const uchar *)src)[2]; }\n\
         kernel void k(global uint *out) { uint x = out[1]; out[0] = second_byte(&x); }\n",
    );
    assert_eq!(pool_lengths(&m), [2]);
}

/// Three inlined calls of `low_bytes`, each with an 8-byte addressed
/// array, then two blocks of 16-byte arrays one after the other, and
/// `keep`, addressed, living through all of it.
const SLOT_REUSE: &str =
        "uint low_bytes(uint x) { uint t[2] = { x, x + 1u }; uchar *b = (uchar *)t; return b[0] + b[4]; }\n\
         kernel void k(global uint *out, uint n) {\n\
             uint keep = n;\n\
             uint *kp = &keep;\n\
             uint acc = low_bytes(n) + low_bytes(n + 1u) + low_bytes(n + 2u);\n\
             { uint a[4] = { n, 1u, 2u, 3u }; uchar *b = (uchar *)a; acc += b[n & 15u]; }\n\
             { uint c[4] = { 4u, n, 5u, 6u }; uchar *d = (uchar *)c; acc += d[(n + 1u) & 15u]; }\n\
             out[0] = acc + *kp;\n\
         }\n";

#[test]
fn variables_of_returned_calls_and_left_blocks_give_their_slots_back() {
    // The pool holds the largest of them at a time plus `keep` (4 + 16
    // bytes: 5 words and one more), not their sum (4 + 24 + 32 bytes).
    let m = module(SLOT_REUSE);
    assert_eq!(pool_lengths(&m), [6]);
    // CL_KERNEL_PRIVATE_MEM_SIZE counts the pool at its length: with the
    // two arrays in one block, both live at once, it is 16 bytes more.
    let one_block = SLOT_REUSE.replace("acc += b[n & 15u]; }", "acc += b[n & 15u];");
    let one_block = one_block.replace("{ uint c[4]", "uint c[4]");
    assert_eq!(pool_lengths(&module(&one_block)), [10]);
    let size = |src: &str| common::build_caps(src, &whole()).kernels[0].private_mem_size;
    assert_eq!(size(&one_block) - size(SLOT_REUSE), 16);
}

#[test]
fn each_slot_is_an_array_of_its_own_where_every_access_is_known() {
    // The same kernel built for a device: `q` and `f` take word arrays of
    // their own (4 words and 1) and there is no pool; the rest are as
    // before.
    let m = split_module(ADDRESSED_AND_NOT);
    assert_eq!(pool_lengths(&m), [0u32; 0]);
    assert_eq!(named_word_array(&m, "q"), Some(4));
    assert_eq!(named_word_array(&m, "f"), Some(1));
    assert_eq!(named_word_array(&m, "table"), Some(4));
    assert_eq!(named_word_array(&m, "acc"), None);
    // Slots given back are not taken again: both blocks' arrays and each
    // call's `t` are arrays of their own.
    let m = split_module(SLOT_REUSE);
    assert_eq!(pool_lengths(&m), [0u32; 0]);
    for (name, words) in [("keep", 1), ("a", 4), ("c", 4), ("t", 2)] {
        assert_eq!(named_word_array(&m, name), Some(words), "{name}");
    }
}

/// Kernels whose pointers into private memory are held in variables,
/// moved, returned from a call, and one past an array's end.
const FOLLOWED_POINTERS: &str = "\
    uchar *skip(uchar *p, uint n) { return p + n; }\n\
    kernel void k(global uint *out, uint n) {\n\
        uint a[4] = { n, n + 1u, n + 2u, n + 3u };\n\
        uint b[4] = { 0u, 0u, 0u, 0u };\n\
        uchar *src = (uchar *)a;\n\
        uchar *dst = skip((uchar *)b, 1u);\n\
        for (uint i = 0; i < 15u; i++) *dst++ = *src++;\n\
        uchar *end = (uchar *)a + 16;\n\
        out[0] = b[n & 3] + end[-1 - (int)(n & 15u)];\n\
    }\n";

#[test]
fn pointers_held_moved_returned_and_past_the_end_keep_their_variable() {
    let m = split_module(FOLLOWED_POINTERS);
    assert_eq!(pool_lengths(&m), [0u32; 0]);
    assert_eq!(named_word_array(&m, "a"), Some(4));
    // `b` takes byte stores: its words are `uchar4`.
    assert_eq!(named_byte_word_array(&m, "b"), Some(4));
}

/// A `ulong[4]` written and read as words before and after bytes and
/// halves are stored into it.
const BYTE_STORES: &str = "\
    kernel void k(global uint *out, uint n) {\n\
        ulong blk[4] = { n, n + 1u, 0, 0 };\n\
        uint first = (uint)blk[n & 3];\n\
        uchar *b = (uchar *)blk;\n\
        for (uint i = 0; i < 8u; i++) b[(n + i) ^ 7u] = (uchar)(first >> i);\n\
        ushort *h = (ushort *)blk;\n\
        h[n & 15u] = (ushort)n;\n\
        blk[3] = blk[2] + 1u;\n\
        out[0] = (uint)blk[n & 3] + b[n & 31u] + first;\n\
    }\n";

#[test]
fn a_variable_that_takes_byte_stores_is_held_as_uchar4_words() {
    let m = split_module(BYTE_STORES);
    assert_eq!(named_word_array(&m, "blk"), None);
    assert_eq!(named_byte_word_array(&m, "blk"), Some(8));
    let blk = named_variable(&m, "blk").and_then(|v| v.result_id);
    // Chains from `blk` to a word, and from a word to a byte.
    let chains: Vec<&Instruction> = instructions(&m)
        .filter(|i| i.class.opcode == Op::AccessChain)
        .collect();
    let words: Vec<u32> = chains
        .iter()
        .filter(|c| Some(c.operands[0].unwrap_id_ref()) == blk)
        .filter_map(|c| c.result_id)
        .collect();
    let bytes: Vec<u32> = chains
        .iter()
        .filter(|c| words.contains(&c.operands[0].unwrap_id_ref()))
        .filter_map(|c| c.result_id)
        .collect();
    // Loads and stores both name their pointer first.
    let through = |op: Op, ptrs: &[u32]| {
        instructions(&m)
            .filter(|i| i.class.opcode == op && ptrs.contains(&i.operands[0].unwrap_id_ref()))
            .count()
    };
    // Each byte is stored through its own component: the loop's, and a
    // half's two; `b[n & 31]` loads one.
    assert_eq!(through(Op::Store, &bytes), 3);
    assert_eq!(through(Op::Load, &bytes), 1);
    // Words are read and written whole, as `uchar4`, also those written
    // before the first byte store: no word is loaded to merge a byte in.
    // The initializer's two rounds (8 words each), `blk[3]`'s 2; `first`,
    // `blk[2]` and `blk[n & 3]` read 2 each.
    assert_eq!(through(Op::Store, &words), 18);
    assert_eq!(through(Op::Load, &words), 6);
    let uchar4_loads = instructions(&m)
        .filter(|i| i.class.opcode == Op::Load && words.contains(&i.operands[0].unwrap_id_ref()))
        .filter(|i| {
            let ty = global(&m, i.result_type.unwrap_or(0));
            ty.is_some_and(|t| t.class.opcode == Op::TypeVector)
        })
        .count();
    assert_eq!(uchar4_loads, 6);
}

#[test]
fn a_pointer_chosen_at_run_time_keeps_that_kernels_pool_whole() {
    // `chosen` reads through a pointer into `x` or `y`, picked at run
    // time: its pool stays one array (`x`, `y` 4 bytes each: 2 words and
    // one more). `k` of the same program is split.
    let source = format!(
        "{FOLLOWED_POINTERS}\
         kernel void chosen(global uint *out, uint n) {{\n\
             uint x = n, y = ~n;\n\
             uchar *p = (n & 1u) ? (uchar *)&x : (uchar *)&y;\n\
             out[0] = p[n & 3];\n\
         }}\n"
    );
    let m = split_module(&source);
    assert_eq!(pool_lengths(&m), [3]);
    assert_eq!(named_word_array(&m, "a"), Some(4));
    assert_eq!(named_word_array(&m, "x"), None);
}

#[test]
fn the_words_of_a_value_index_from_one_word_of_its_address() {
    // `row[j]` is a `ulong` at a run-time offset: its high word's index is
    // the low word's plus one, not a shift of its own offset, so that the
    // driver sees one address and a displacement. The same with the pool
    // whole.
    let source = "kernel void k(global ulong *out, uint n) {\n\
                      ulong rows[4][4];\n\
                      for (int i = 0; i < 16; i++) rows[i / 4][i % 4] = out[i];\n\
                      ulong *row = rows[n & 3];\n\
                      uchar *b = (uchar *)row;\n\
                      b[n & 31] = 1;\n\
                      out[0] = row[1] + row[2];\n\
                  }\n";
    for m in [split_module(source), module(source)] {
        let indices: Vec<u32> = instructions(&m)
            .filter(|i| i.class.opcode == Op::AccessChain && i.operands.len() == 2)
            .map(|i| i.operands[1].unwrap_id_ref())
            .collect();
        // Word indices that are another word index plus a constant:
        // `row[1]` and `row[2]` are 2 and 4 words past `row`, their high
        // words 3 and 5 (before, each word's index was its byte offset
        // shifted).
        let constant = |id: u32| global(&m, id).is_some_and(|i| i.class.opcode == Op::Constant);
        let displaced = indices
            .iter()
            .filter(|&&id| {
                instructions(&m)
                    .find(|i| i.result_id == Some(id))
                    .is_some_and(|i| {
                        i.class.opcode == Op::IAdd && constant(i.operands[1].unwrap_id_ref())
                    })
            })
            .count();
        assert!(displaced >= 4, "{displaced} of {} indices", indices.len());
    }
}

/// Rows of a pool variable indexed at run time, their words at constant
/// columns, and one byte stored at a run-time offset.
const RUN_TIME_ROWS: &str = "\
    kernel void k(global ulong *out, uint j) {\n\
        ulong wpc[8][16];\n\
        for (uint a = 0; a < 8u; a++) for (uint b = 0; b < 16u; b++) wpc[a][b] = a * b + j;\n\
        ((uchar *)wpc)[j & 1023u] = 1;\n\
        uint pc = j >> 3;\n\
        out[0] = wpc[pc][0] + wpc[pc][3] + wpc[pc][15];\n\
    }\n";

#[test]
fn words_at_run_time_indices_are_counted_in_words() {
    // `wpc[pc][3]` is word `pc * 32 + 6` of `wpc`'s array (and `+ 7`),
    // not its byte offset shifted right by two: the driver cannot tell
    // that a byte offset does not wrap, so it could not address the row
    // once and its words at constant displacements. Only the byte stored
    // at a run-time byte offset shifts it.
    let m = split_module(RUN_TIME_ROWS);
    let wpc = named_variable(&m, "wpc").and_then(|v| v.result_id);
    let defs: std::collections::HashMap<u32, &Instruction> = instructions(&m)
        .filter_map(|i| Some((i.result_id?, i)))
        .collect();
    let indices: Vec<Op> = instructions(&m)
        .filter(|i| i.class.opcode == Op::AccessChain)
        .filter(|i| Some(i.operands[0].unwrap_id_ref()) == wpc)
        .map(|i| {
            let index = i.operands[1].unwrap_id_ref();
            defs.get(&index).map_or(Op::Nop, |d| d.class.opcode)
        })
        .collect();
    let shifted = indices
        .iter()
        .filter(|&&op| op == Op::ShiftRightLogical)
        .count();
    assert_eq!(shifted, 1, "{indices:?}");
    // The sum's six words and the loop's (copied out, 32) are the rest.
    assert_eq!(indices.len(), 39, "{indices:?}");
}
