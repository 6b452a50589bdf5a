//! Reading a SPIR-V module word by word, for the passes over finished
//! modules ([`crate::arg_writes`], [`crate::entry_module`]) that need only
//! a few facts of each instruction and must stay fast on large programs.

use crate::HashMap;

/// Whether an opcode's instruction has a result type and a result id,
/// from the SPIR-V grammar, cached per opcode: core opcodes (below
/// [`Layouts::DIRECT`]) in a table, the rest (extensions) in a map. A
/// SipHash map for all of them was a sixth of the time of cutting a
/// kernel's module.
pub(crate) struct Layouts {
    direct: [Option<(bool, bool)>; Layouts::DIRECT],
    other: HashMap<u32, (bool, bool)>,
}

impl Default for Layouts {
    fn default() -> Layouts {
        Layouts {
            direct: [None; Layouts::DIRECT],
            other: HashMap::default(),
        }
    }
}

impl Layouts {
    const DIRECT: usize = 512;

    pub(crate) fn get(&mut self, op: u32) -> (bool, bool) {
        match self.direct.get_mut(op as usize) {
            Some(slot) => *slot.get_or_insert_with(|| grammar_layout(op)),
            None => *self.other.entry(op).or_insert_with(|| grammar_layout(op)),
        }
    }

    /// The id an instruction defines, if any (`words` is the whole
    /// instruction, opcode word first).
    pub(crate) fn result_id(&mut self, words: &[u32]) -> Option<u32> {
        let (has_type, has_result) = self.get(words[0] & 0xffff);
        let at = if has_type { 2 } else { 1 };
        has_result.then(|| words.get(at).copied()).flatten()
    }

    /// Where an instruction's operands start: after the opcode word, the
    /// result type and the result id it has.
    pub(crate) fn operands_at(&mut self, words: &[u32]) -> usize {
        let (has_type, has_result) = self.get(words[0] & 0xffff);
        1 + usize::from(has_type) + usize::from(has_result)
    }
}

/// Whether `op` has a result type and a result id, by the grammar; an
/// opcode the grammar does not know has neither.
fn grammar_layout(op: u32) -> (bool, bool) {
    use rspirv::grammar::OperandKind;
    rspirv::grammar::INSTRUCTION_TABLE
        .lookup_opcode(op)
        .map_or((false, false), |g| {
            let kind = |i: usize| g.operands.get(i).map(|o| o.kind);
            match kind(0) {
                Some(OperandKind::IdResultType) => (true, kind(1) == Some(OperandKind::IdResult)),
                Some(OperandKind::IdResult) => (false, true),
                _ => (false, false),
            }
        })
}

/// Where each instruction of `words` from `start` on begins and how many
/// words it has; `None` if a word count is zero or runs past the end.
pub(crate) fn instruction_spans(words: &[u32], start: usize) -> Option<Vec<(usize, usize)>> {
    let mut spans = Vec::new();
    let mut at = start;
    while at < words.len() {
        let len = (words[at] >> 16) as usize;
        if len == 0 || at + len > words.len() {
            return None;
        }
        spans.push((at, len));
        at += len;
    }
    Some(spans)
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

#[cfg(test)]
mod tests {
    use super::*;
    use rspirv::spirv::Op;

    #[test]
    fn layouts_follow_the_grammar_from_the_table_and_the_map() {
        let mut layouts = Layouts::default();
        let cases = [
            (Op::TypeInt, (false, true)),
            (Op::IAdd, (true, true)),
            (Op::Store, (false, false)),
            // Past the table: extension opcodes.
            (Op::SubgroupBallotKHR, (true, true)),
            (Op::DecorateString, (false, false)),
        ];
        // Twice: the first answer is looked up, the second cached.
        for _ in 0..2 {
            for (op, layout) in cases {
                assert_eq!(layouts.get(op as u32), layout, "{op:?}");
            }
        }
        assert_eq!(layouts.get(0xffff), (false, false));
        // OpIAdd %type %result %a %b defines %result; OpStore defines none.
        assert_eq!(
            layouts.result_id(&[(5 << 16) | Op::IAdd as u32, 1, 7, 2, 3]),
            Some(7)
        );
        assert_eq!(
            layouts.result_id(&[(3 << 16) | Op::Store as u32, 4, 5]),
            None
        );
    }
}
