//! SPIR-V emission: a words writer in the manner of naga's back end. The
//! module's sections are separate buffers filled in any order; types and
//! constants are deduplicated through maps keyed by [`TypeKey`] and
//! [`ConstKey`]; a function's blocks are closed only by adding their
//! terminator, so each has exactly one.

use crate::{HashMap, HashSet};
pub use rspirv::spirv::{
    BuiltIn, Capability, Decoration, ExecutionModel, MemoryAccess, Op, StorageClass, Word,
};
use std::collections::BTreeSet;

mod hoist;
pub(crate) use hoist::optimize_loops;

/// A SPIR-V type, as the dedup map sees it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TypeKey {
    Void,
    Bool,
    Int(u32),
    /// A signed integer type: values are kept in the unsigned types, and
    /// only signed division and remainder see this one (see the lowering).
    SInt(u32),
    Float(u32),
    Vector(Word, u32),
    /// Element type and the id of the length constant.
    Array(Word, Word),
    RuntimeArray(Word, u32),
    Struct(Vec<Word>),
    /// A `Block`-decorated struct with explicit member offsets.
    BlockStruct(Vec<(Word, u32)>),
    Pointer(StorageClass, Word),
    Function(Word, Vec<Word>),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ConstKey {
    Bits(Word, u64),
    True,
    False,
    Composite(Word, Vec<Word>),
    Null(Word),
}

/// The module being built.
#[derive(Default)]
pub struct ModuleWriter {
    next_id: Word,
    pub capabilities: BTreeSet<u32>,
    pub extensions: BTreeSet<String>,
    glsl_ext: Option<Word>,
    entry_points: Vec<Word>,
    execution_modes: Vec<Word>,
    debug_names: Vec<Word>,
    annotations: Vec<Word>,
    types_globals: Vec<Word>,
    functions: Vec<Word>,
    types: HashMap<TypeKey, Word>,
    /// What each type id is, for the passes over function bodies.
    type_keys: HashMap<Word, TypeKey>,
    consts: HashMap<ConstKey, Word>,
    /// Types already given an `ArrayStride` decoration.
    strided: BTreeSet<Word>,
    /// 64-bit scalar types, whose constants take two words.
    wide: BTreeSet<Word>,
    /// The width of each integer type, for constant folding.
    int_widths: HashMap<Word, u32>,
    /// The type and bits of each scalar `OpConstant`.
    const_bits: HashMap<Word, (Word, u64)>,
    /// The element count of each vector and array type.
    composite_lens: HashMap<Word, u32>,
}

/// Encodes a literal string as SPIR-V words (NUL-terminated, padded).
pub fn string_words(s: &str) -> Vec<Word> {
    let mut words = Vec::new();
    push_string(&mut words, s);
    words
}

/// Appends `s` to `out` as a literal string ([`string_words`]).
fn push_string(out: &mut Vec<Word>, s: &str) {
    let start = out.len();
    out.resize(start + s.len() / 4 + 1, 0);
    for (i, b) in s.bytes().enumerate() {
        out[start + i / 4] |= (b as u32) << (8 * (i % 4));
    }
}

/// An instruction's operands, `head` then `tail`, assembled on the stack
/// where they are few, as nearly all are (a build emits millions of
/// instructions).
pub(crate) struct Operands {
    short: [Word; 16],
    long: Vec<Word>,
    len: usize,
}

impl Operands {
    pub(crate) fn new(head: &[Word], tail: &[Word]) -> Operands {
        let len = head.len() + tail.len();
        let mut ops = Operands {
            short: [0; 16],
            long: Vec::new(),
            len,
        };
        if len <= ops.short.len() {
            ops.short[..head.len()].copy_from_slice(head);
            ops.short[head.len()..len].copy_from_slice(tail);
        } else {
            ops.long = [head, tail].concat();
        }
        ops
    }

    pub(crate) fn words(&self) -> &[Word] {
        if self.len <= self.short.len() {
            &self.short[..self.len]
        } else {
            &self.long
        }
    }
}

fn push_inst(out: &mut Vec<Word>, op: Op, operands: &[Word]) {
    out.push(((operands.len() as u32 + 1) << 16) | op as u32);
    out.extend_from_slice(operands);
}

impl ModuleWriter {
    pub fn new() -> Self {
        ModuleWriter {
            next_id: 1,
            ..Default::default()
        }
    }

    pub fn id(&mut self) -> Word {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    pub fn capability(&mut self, c: Capability) {
        self.capabilities.insert(c as u32);
    }

    pub fn glsl(&mut self) -> Word {
        if let Some(id) = self.glsl_ext {
            return id;
        }
        let id = self.id();
        self.glsl_ext = Some(id);
        id
    }

    /// The `GLSL.std.450` import, if some instruction uses it yet.
    pub fn glsl_import(&self) -> Option<Word> {
        self.glsl_ext
    }

    pub fn name(&mut self, id: Word, name: &str) {
        // Written in place: a build names hundreds of thousands of ids.
        let out = &mut self.debug_names;
        let string_len = name.len() / 4 + 1;
        out.push(((2 + string_len as u32) << 16) | Op::Name as u32);
        out.push(id);
        push_string(out, name);
    }

    pub fn decorate(&mut self, id: Word, d: Decoration, extra: &[Word]) {
        let mut ops = vec![id, d as u32];
        ops.extend_from_slice(extra);
        push_inst(&mut self.annotations, Op::Decorate, &ops);
    }

    pub fn member_decorate(&mut self, id: Word, member: u32, d: Decoration, extra: &[Word]) {
        let mut ops = vec![id, member, d as u32];
        ops.extend_from_slice(extra);
        push_inst(&mut self.annotations, Op::MemberDecorate, &ops);
    }

    pub fn array_stride(&mut self, ty: Word, stride: u32) {
        if self.strided.insert(ty) {
            self.decorate(ty, Decoration::ArrayStride, &[stride]);
        }
    }

    /// A global instruction with a fresh result id (variables, spec
    /// constants).
    pub fn global(&mut self, op: Op, ty: Word, operands: &[Word]) -> Word {
        let id = self.id();
        let mut ops = vec![ty, id];
        ops.extend_from_slice(operands);
        push_inst(&mut self.types_globals, op, &ops);
        id
    }

    /// A global instruction whose result id was reserved earlier.
    pub fn global_with_id(&mut self, op: Op, ty: Word, id: Word, operands: &[Word]) {
        let mut ops = vec![ty, id];
        ops.extend_from_slice(operands);
        push_inst(&mut self.types_globals, op, &ops);
    }

    /// The component count of `ty` when it is a 64-bit float or a vector
    /// of them (SPIR-V vectors have 2 to 4 components).
    pub fn f64_components(&self, ty: Word) -> Option<u32> {
        let double = *self.types.get(&TypeKey::Float(64))?;
        if ty == double {
            return Some(1);
        }
        (2..=4).find(|&n| self.types.get(&TypeKey::Vector(double, n)) == Some(&ty))
    }

    pub fn ty(&mut self, key: TypeKey) -> Word {
        if let Some(id) = self.types.get(&key) {
            return *id;
        }
        let id = self.id();
        let (op, ops): (Op, Vec<Word>) = match &key {
            TypeKey::Void => (Op::TypeVoid, vec![id]),
            TypeKey::Bool => (Op::TypeBool, vec![id]),
            TypeKey::Int(bits) => {
                match bits {
                    8 => self.capability(Capability::Int8),
                    16 => self.capability(Capability::Int16),
                    64 => self.capability(Capability::Int64),
                    _ => {}
                }
                (Op::TypeInt, vec![id, *bits, 0])
            }
            TypeKey::SInt(bits) => (Op::TypeInt, vec![id, *bits, 1]),
            TypeKey::Float(bits) => {
                match bits {
                    16 => self.capability(Capability::Float16),
                    64 => self.capability(Capability::Float64),
                    _ => {}
                }
                (Op::TypeFloat, vec![id, *bits])
            }
            TypeKey::Vector(e, n) => (Op::TypeVector, vec![id, *e, *n]),
            TypeKey::Array(e, len) => (Op::TypeArray, vec![id, *e, *len]),
            TypeKey::RuntimeArray(e, _) => (Op::TypeRuntimeArray, vec![id, *e]),
            TypeKey::Struct(members) => {
                let mut v = vec![id];
                v.extend(members);
                (Op::TypeStruct, v)
            }
            TypeKey::BlockStruct(members) => {
                let mut v = vec![id];
                v.extend(members.iter().map(|m| m.0));
                (Op::TypeStruct, v)
            }
            TypeKey::Pointer(sc, t) => (Op::TypePointer, vec![id, *sc as u32, *t]),
            TypeKey::Function(r, ps) => {
                let mut v = vec![id, *r];
                v.extend(ps);
                (Op::TypeFunction, v)
            }
        };
        if let TypeKey::BlockStruct(members) = &key {
            self.decorate(id, Decoration::Block, &[]);
            for (i, m) in members.iter().enumerate() {
                self.member_decorate(id, i as u32, Decoration::Offset, &[m.1]);
            }
        }
        if matches!(
            key,
            TypeKey::Int(64) | TypeKey::SInt(64) | TypeKey::Float(64)
        ) {
            self.wide.insert(id);
        }
        match key {
            TypeKey::Int(bits) | TypeKey::SInt(bits) => {
                self.int_widths.insert(id, bits);
            }
            TypeKey::Vector(_, n) => {
                self.composite_lens.insert(id, n);
            }
            // An array's length is the id of a constant.
            TypeKey::Array(_, len) => {
                if let Some(&(_, n)) = self.const_bits.get(&len) {
                    self.composite_lens.insert(id, n as u32);
                }
            }
            _ => {}
        }
        push_inst(&mut self.types_globals, op, &ops);
        self.type_keys.insert(id, key.clone());
        self.types.insert(key, id);
        id
    }

    /// What the type `id` is, if this writer made it.
    pub fn type_key(&self, id: Word) -> Option<&TypeKey> {
        self.type_keys.get(&id)
    }

    pub fn constant(&mut self, key: ConstKey) -> Word {
        if let Some(id) = self.consts.get(&key) {
            return *id;
        }
        let id = self.id();
        match &key {
            ConstKey::Bits(ty, v) => {
                let wide = self.wide.contains(ty);
                let mut ops = vec![*ty, id, *v as u32];
                if wide {
                    ops.push((*v >> 32) as u32);
                }
                push_inst(&mut self.types_globals, Op::Constant, &ops);
                self.const_bits.insert(id, (*ty, *v));
            }
            ConstKey::True => {
                let b = self.ty(TypeKey::Bool);
                push_inst(&mut self.types_globals, Op::ConstantTrue, &[b, id]);
            }
            ConstKey::False => {
                let b = self.ty(TypeKey::Bool);
                push_inst(&mut self.types_globals, Op::ConstantFalse, &[b, id]);
            }
            ConstKey::Composite(ty, parts) => {
                let mut ops = vec![*ty, id];
                ops.extend(parts);
                push_inst(&mut self.types_globals, Op::ConstantComposite, &ops);
            }
            ConstKey::Null(ty) => {
                push_inst(&mut self.types_globals, Op::ConstantNull, &[*ty, id]);
            }
        }
        self.consts.insert(key, id);
        id
    }

    /// The width of integer type `ty`, if it is one.
    pub fn int_width(&self, ty: Word) -> Option<u32> {
        self.int_widths.get(&ty).copied()
    }

    /// The element count of vector or array type `ty`, if it is one.
    pub fn composite_len(&self, ty: Word) -> Option<u32> {
        self.composite_lens.get(&ty).copied()
    }

    /// The width and bits (zero-extended) of `id` if it is a scalar
    /// integer `OpConstant`.
    pub fn int_constant(&self, id: Word) -> Option<(u32, u64)> {
        let (ty, bits) = self.const_bits.get(&id)?;
        Some((self.int_width(*ty)?, *bits))
    }

    pub fn u32_const(&mut self, v: u32) -> Word {
        let t = self.ty(TypeKey::Int(32));
        self.constant(ConstKey::Bits(t, v as u64))
    }

    pub fn u64_const(&mut self, v: u64) -> Word {
        let t = self.ty(TypeKey::Int(64));
        self.constant(ConstKey::Bits(t, v))
    }

    pub fn entry_point(&mut self, func: Word, name: &str, interface: &[Word]) {
        let mut ops = vec![ExecutionModel::GLCompute as u32, func];
        ops.extend(string_words(name));
        ops.extend_from_slice(interface);
        push_inst(&mut self.entry_points, Op::EntryPoint, &ops);
    }

    pub fn execution_mode(
        &mut self,
        func: Word,
        mode: rspirv::spirv::ExecutionMode,
        extra: &[Word],
    ) {
        let mut ops = vec![func, mode as u32];
        ops.extend_from_slice(extra);
        push_inst(&mut self.execution_modes, Op::ExecutionMode, &ops);
    }

    pub fn add_function(&mut self, words: Vec<Word>) {
        self.functions.extend(words);
    }

    /// The finished module's words.
    pub fn finish(mut self, version: (u8, u8)) -> Vec<Word> {
        let mut out = vec![
            0x0723_0203,
            ((version.0 as u32) << 16) | ((version.1 as u32) << 8),
            0x4652_4C00, // generator: ferrocl
            0,
            0,
        ];
        let caps: Vec<u32> = self.capabilities.iter().copied().collect();
        for c in caps {
            push_inst(&mut out, Op::Capability, &[c]);
        }
        for e in std::mem::take(&mut self.extensions) {
            push_inst(&mut out, Op::Extension, &string_words(&e));
        }
        if let Some(id) = self.glsl_ext {
            let mut ops = vec![id];
            ops.extend(string_words("GLSL.std.450"));
            push_inst(&mut out, Op::ExtInstImport, &ops);
        }
        // Addressing PhysicalStorageBuffer64 (5348), memory model Vulkan (3).
        push_inst(&mut out, Op::MemoryModel, &[5348, 3]);
        out.extend(&self.entry_points);
        out.extend(&self.execution_modes);
        out.extend(&self.debug_names);
        out.extend(&self.annotations);
        out.extend(&self.types_globals);
        out.extend(&self.functions);
        out[3] = self.next_id;
        out
    }
}

/// One function body under construction: the `OpVariable`s of its entry
/// block kept apart (SPIR-V wants them first), then blocks.
pub struct FunctionWriter {
    pub vars: Vec<Word>,
    blocks: Vec<Vec<Word>>,
    current: Option<Vec<Word>>,
    /// Label of the block being written, if one is open.
    pub current_label: Option<Word>,
    /// Labels some terminator written so far branches to. Structured
    /// order puts every block after its predecessors but loop headers, and
    /// those are entered from before: a block begun with a label not in
    /// here is unreachable.
    targets: HashSet<Word>,
    entry: Word,
}

impl FunctionWriter {
    pub fn new(entry_label: Word) -> Self {
        let mut b = Vec::new();
        push_inst(&mut b, Op::Label, &[entry_label]);
        FunctionWriter {
            vars: Vec::new(),
            blocks: Vec::new(),
            current: Some(b),
            current_label: Some(entry_label),
            targets: HashSet::default(),
            entry: entry_label,
        }
    }

    /// Records branch targets of a terminator whose operands this writer
    /// does not decode (`OpSwitch`).
    pub fn mark_targets(&mut self, labels: &[Word]) {
        self.targets.extend(labels.iter().copied());
    }

    /// Can control reach the block being written?
    pub fn reachable(&self) -> bool {
        self.current_label
            .is_some_and(|l| l == self.entry || self.targets.contains(&l))
    }

    pub fn is_open(&self) -> bool {
        self.current.is_some()
    }

    /// Starts the block `label`. The previous block must be closed.
    pub fn begin(&mut self, label: Word) {
        if let Some(b) = self.current.take() {
            self.blocks.push(b);
        }
        let mut b = Vec::new();
        push_inst(&mut b, Op::Label, &[label]);
        self.current = Some(b);
        self.current_label = Some(label);
    }

    /// Appends a non-terminating instruction. Code after a terminator (dead
    /// code after `return` or `break`) goes to a fresh block no branch
    /// reaches; `fresh` supplies its label.
    pub fn push(&mut self, op: Op, operands: &[Word], fresh: impl FnOnce() -> Word) {
        if self.current.is_none() {
            self.begin(fresh());
        }
        if let Some(b) = self.current.as_mut() {
            push_inst(b, op, operands);
        }
    }

    /// Closes the current block with its terminator.
    pub fn terminate(&mut self, op: Op, operands: &[Word], fresh: impl FnOnce() -> Word) {
        if self.current.is_none() {
            self.begin(fresh());
        }
        match op {
            Op::Branch => {
                self.targets.insert(operands[0]);
            }
            Op::BranchConditional => {
                self.targets.insert(operands[1]);
                self.targets.insert(operands[2]);
            }
            _ => {}
        }
        if let Some(mut b) = self.current.take() {
            push_inst(&mut b, op, operands);
            self.blocks.push(b);
        }
        self.current_label = None;
    }

    pub fn var(&mut self, ty: Word, id: Word) {
        push_inst(
            &mut self.vars,
            Op::Variable,
            &[ty, id, StorageClass::Function as u32],
        );
    }

    /// Gives the function's variable `id` the pointer type `ty`.
    pub fn retype_var(&mut self, id: Word, ty: Word) {
        let mut at = 0;
        while at + 3 < self.vars.len() {
            if self.vars[at + 2] == id {
                self.vars[at + 1] = ty;
                return;
            }
            at += (self.vars[at] >> 16).max(1) as usize;
        }
    }

    /// Rewrites the instructions of the blocks written so far: `rewrite`
    /// gets each one in order and appends what replaces it.
    pub fn rewrite_blocks(&mut self, mut rewrite: impl FnMut(&[Word], &mut Vec<Word>)) {
        for block in self.blocks.iter_mut().chain(self.current.as_mut()) {
            let old = std::mem::take(block);
            block.reserve(old.len());
            let mut at = 0;
            while at < old.len() {
                let end = (at + (old[at] >> 16).max(1) as usize).min(old.len());
                rewrite(&old[at..end], block);
                at = end;
            }
        }
    }

    /// The function's words: `OpFunction` with the function control bits
    /// `control`, entry block with variables, the rest, `OpFunctionEnd`.
    pub fn finish(mut self, result_ty: Word, id: Word, fn_ty: Word, control: u32) -> Vec<Word> {
        if let Some(b) = self.current.take() {
            self.blocks.push(b);
        }
        let mut out = Vec::new();
        push_inst(&mut out, Op::Function, &[result_ty, id, control, fn_ty]);
        for (i, b) in self.blocks.iter().enumerate() {
            if i == 0 {
                // The label is the first two words of the entry block.
                out.extend_from_slice(&b[..2]);
                out.extend(&self.vars);
                out.extend_from_slice(&b[2..]);
            } else {
                out.extend(b);
            }
        }
        push_inst(&mut out, Op::FunctionEnd, &[]);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_nul_terminated_and_padded() {
        assert_eq!(string_words("abc"), vec![u32::from_le_bytes(*b"abc\0")]);
        assert_eq!(string_words("abcd"), vec![u32::from_le_bytes(*b"abcd"), 0]);
    }

    #[test]
    fn types_and_constants_are_deduplicated() {
        let mut m = ModuleWriter::new();
        let a = m.ty(TypeKey::Int(32));
        let b = m.ty(TypeKey::Int(32));
        assert_eq!(a, b);
        let v = m.ty(TypeKey::Vector(a, 4));
        assert_eq!(v, m.ty(TypeKey::Vector(a, 4)));
        assert_eq!(m.u32_const(7), m.u32_const(7));
        assert_ne!(m.u32_const(7), m.u32_const(8));
        // 64-bit constants take two literal words.
        let l = m.u64_const(1 << 40);
        assert_eq!(l, m.u64_const(1 << 40));
        assert!(m.capabilities.contains(&(Capability::Int64 as u32)));
    }

    #[test]
    fn blocks_close_once_and_dead_code_gets_its_own_block() {
        let mut next = 100;
        let mut fw = FunctionWriter::new(1);
        fw.terminate(Op::Return, &[], || unreachable!());
        assert!(!fw.is_open());
        // An instruction after the terminator opens a fresh, unreachable block.
        fw.push(Op::Nop, &[], || {
            next += 1;
            next
        });
        assert!(fw.is_open());
        fw.terminate(Op::Return, &[], || unreachable!());
        let words = fw.finish(2, 3, 4, 0);
        let labels = words
            .iter()
            .enumerate()
            .filter(|(i, w)| {
                **w == ((2 << 16) | Op::Label as u32) && words.get(i + 1) == Some(&101)
            })
            .count();
        assert_eq!(labels, 1);
    }
}
