//! Reading a SPIR-V module word by word, for the passes over finished
//! modules ([`crate::arg_writes`], [`crate::entry_module`]) that need only
//! a few facts of each instruction and must stay fast on large programs.

use std::collections::HashMap;

/// Whether an opcode's instruction has a result type and a result id,
/// from the SPIR-V grammar, cached per opcode.
#[derive(Default)]
pub(crate) struct Layouts(HashMap<u32, (bool, bool)>);

impl Layouts {
    pub(crate) fn get(&mut self, op: u32) -> (bool, bool) {
        *self.0.entry(op).or_insert_with(|| {
            use rspirv::grammar::OperandKind;
            rspirv::grammar::INSTRUCTION_TABLE
                .lookup_opcode(op)
                .map_or((false, false), |g| {
                    let kind = |i: usize| g.operands.get(i).map(|o| o.kind);
                    match kind(0) {
                        Some(OperandKind::IdResultType) => {
                            (true, kind(1) == Some(OperandKind::IdResult))
                        }
                        Some(OperandKind::IdResult) => (false, true),
                        _ => (false, false),
                    }
                })
        })
    }

    /// The id an instruction defines, if any (`words` is the whole
    /// instruction, opcode word first).
    pub(crate) fn result_id(&mut self, words: &[u32]) -> Option<u32> {
        let (has_type, has_result) = self.get(words[0] & 0xffff);
        let at = if has_type { 2 } else { 1 };
        has_result.then(|| words.get(at).copied()).flatten()
    }
}

/// The string literal starting at `words` (NUL-terminated, little-endian).
pub(crate) fn literal_string(words: &[u32]) -> String {
    let mut bytes = Vec::new();
    'outer: for w in words {
        for b in w.to_le_bytes() {
            if b == 0 {
                break 'outer;
            }
            bytes.push(b);
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}
