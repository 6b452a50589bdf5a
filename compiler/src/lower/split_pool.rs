//! The private pool split into one `Function` array per variable.
//!
//! A kernel that reinterprets private memory keeps its addressed variables
//! in the private word pool, pointers being byte offsets into it (see the
//! crate's lowering notes in `mod.rs`). One array for every variable hides
//! them all from the driver's register allocation: a variable only ever
//! read and written at constant offsets (hashcat's digests, the unions of
//! its 64-bit helpers) stays in memory because another variable of the
//! same array is indexed at run time. Where the compiler knows which
//! variable each access reaches, every variable gets a word array of its
//! own, and the driver keeps in registers the ones it can.
//!
//! Pointers stay byte offsets. Each variable's slot is a range of offsets
//! never given to another variable of the kernel, with at least one word
//! between slots, so a constant offset (one past the end included) names
//! one variable. An offset computed at run time takes the variable of the
//! pointer it was computed from: C's pointer arithmetic stays within its
//! object (C11 6.5.6). A `Function` variable holding such pointers takes
//! the variable of the values stored in it, while they all agree. Any
//! access whose variable is unknown (a pointer chosen at run time between
//! objects, loaded from memory, or stored where the walk does not follow)
//! marks the kernel, and the program is lowered again with that kernel's
//! pool whole (`lower` in `mod.rs`).
//!
//! A variable's array holds `uint` words, or `uchar4` words where the
//! variable takes byte stores (hashcat's `PUTCHAR` appends into a `ulong`
//! block). A byte store into a `uint` word loads the word, merges the byte
//! and stores the word back; NVIDIA's Vulkan compiler then keeps the array
//! in local memory and runs that sequence per byte, where a store through
//! a `uchar4` component is one byte store, and whole words still load and
//! store as 32 bits (a 64-byte append into a `ulong[16]`, unrolled, ran
//! 54.6 ms held as words and 48.1 ms as `uchar4` words on an H200;
//! NVIDIA's OpenCL 45.0). A variable's first byte store makes it a
//! variable of bytes; what the kernel wrote before through its `uint`
//! words is retyped once the kernel is lowered (`retype_byte_slots`).

use super::{LocalPool, Lowerer, PoolWord, Val, WordStep};
use crate::sema::types::{round_up, Type, TypeRef};
use crate::spirv::{Op, StorageClass, TypeKey, Word};
use crate::{HashMap, HashSet};
use std::collections::BTreeMap;

/// Slots start here, so that offset 0 (a null pointer) is in none.
const FIRST_SLOT: u32 = 16;
/// Offsets stay below this: past it the kernel keeps its pool whole.
const LAST_OFFSET: u32 = 1 << 30;

/// The variables of a split private pool, and what is known of the
/// offsets that point into them.
#[derive(Default)]
pub(super) struct SplitPool {
    /// Each variable's array by the first offset of its slot.
    slots: BTreeMap<u32, Slot>,
    /// Where the next slot may start.
    next: u32,
    /// Offsets computed at run time: the first offset of the slot they
    /// point into.
    derived: HashMap<Word, u32>,
    /// `Function` variables holding pointers into the pool: the slot every
    /// value stored there points into, `None` once two disagree.
    holders: HashMap<Word, Option<u32>>,
}

#[derive(Clone, Copy)]
struct Slot {
    /// The variable's `Function` array of 32-bit words.
    var: Word,
    /// One past its last byte.
    end: u32,
    /// The words are `uchar4`, not `uint`: the variable takes byte stores.
    bytes: bool,
}

impl SplitPool {
    pub(super) fn new() -> SplitPool {
        SplitPool {
            next: FIRST_SLOT,
            ..SplitPool::default()
        }
    }
}

impl<'a> Lowerer<'a> {
    fn split_pool(&self) -> Option<&SplitPool> {
        self.ppool.as_ref().and_then(|p| p.split.as_ref())
    }

    fn split_pool_mut(&mut self) -> Option<&mut SplitPool> {
        self.ppool.as_mut().and_then(|p| p.split.as_mut())
    }

    /// A slot of its own for a private pool variable of `size` bytes, with
    /// its word array: the slot's first offset, or `None` where the pool
    /// is whole.
    pub(super) fn split_slot(&mut self, name: &str, size: u32, align: u32) -> Option<u32> {
        let next = self.split_pool()?.next;
        let at = round_up(next, align.max(4));
        let end = at.checked_add(size).filter(|&e| e < LAST_OFFSET);
        let Some(end) = end else {
            self.split_failed = true;
            return None;
        };
        let words = size.div_ceil(4).max(1);
        let var = self.new_function_var(&Type::Array(TypeRef::new(Type::UINT), words));
        if !name.is_empty() {
            self.m.name(var, name);
        }
        let split = self.split_pool_mut()?;
        let slot = Slot {
            var,
            end,
            bytes: false,
        };
        split.slots.insert(at, slot);
        // A word apart: one past this slot's end is no offset of the next.
        split.next = round_up(end, 4) + 4;
        Some(at)
    }

    /// Whether accesses to `sc` go to a split private pool.
    pub(super) fn splits(&self, sc: StorageClass) -> bool {
        sc == StorageClass::Function && self.split_pool().is_some()
    }

    /// The first offset of the slot `offset` points into, if known.
    fn slot_of(&self, offset: Word) -> Option<u32> {
        let split = self.split_pool()?;
        match self.m.int_constant(offset) {
            Some((_, k)) => {
                let k = u32::try_from(k).ok()?;
                let (&start, slot) = split.slots.range(..=k).next_back()?;
                (k <= slot.end).then_some(start)
            }
            None => split.derived.get(&offset).copied(),
        }
    }

    /// The pointer to the word `words` past byte `offset` of a split
    /// private pool, in the array of the variable `offset` lies in; `None`
    /// where the pool is whole, or the variable is not known (the kernel
    /// is then marked to be lowered again with its pool whole).
    pub(super) fn split_word_ptr(
        &mut self,
        sc: StorageClass,
        offset: Word,
        words: u32,
    ) -> Option<PoolWord> {
        if !self.splits(sc) {
            return None;
        }
        let Some(start) = self.slot_of(offset) else {
            self.split_failed = true;
            return None;
        };
        self.split_pool()?.slots.get(&start)?;
        let u = self.m.ty(TypeKey::Int(32));
        let first = self.u32c(start);
        let within = self.op(Op::ISub, u, &[offset, first]);
        let two = self.u32c(2);
        let index = self.op(Op::ShiftRightLogical, u, &[within, two]);
        let index = self.plus_words(index, words);
        self.slot_word_ptr(start, index)
    }

    /// The pointer to the word holding byte `offset` of a split private
    /// pool, `offset` being `4 * w + bytes` with the word count `w` that
    /// `steps` compute (`pool_word_ptr`); `None` where the variable is not
    /// known or its slot starts past `bytes`.
    pub(super) fn split_word_ptr_in_words(
        &mut self,
        offset: Word,
        steps: &[WordStep],
        bytes: u32,
    ) -> Option<PoolWord> {
        let start = self.slot_of(offset)?;
        let within = bytes.checked_sub(start)?;
        let w = self.word_count(steps);
        let index = self.plus_words(w, within / 4);
        self.slot_word_ptr(start, index)
    }

    /// The pointer to word `index` of the variable whose slot starts at
    /// `start`.
    fn slot_word_ptr(&mut self, start: u32, index: Word) -> Option<PoolWord> {
        let slot = *self.split_pool()?.slots.get(&start)?;
        let u = self.m.ty(TypeKey::Int(32));
        let word = if slot.bytes { self.uchar4_ty() } else { u };
        let p = self.m.ty(TypeKey::Pointer(StorageClass::Function, word));
        Some(PoolWord {
            ptr: self.op(Op::AccessChain, p, &[slot.var, index]),
            bytes: slot.bytes,
        })
    }

    /// Holds as bytes the variable of a split private pool that `offset`
    /// points into, a byte being stored there, where the target holds
    /// such variables as bytes: its words are `uchar4` from here on.
    pub(super) fn hold_split_slot_as_bytes(&mut self, sc: StorageClass, offset: Word) {
        if !self.caps.private_byte_words || !self.splits(sc) {
            return;
        }
        let Some(start) = self.slot_of(offset) else {
            return;
        };
        if let Some(slot) = self.split_pool_mut().and_then(|s| s.slots.get_mut(&start)) {
            slot.bytes = true;
        }
    }

    /// Gives the variables held as bytes their `uchar4` arrays, and what
    /// the kernel wrote through their `uint` words before their first
    /// byte store the same form: a word's chain points to a `uchar4`, a
    /// load of it is bitcast to `uint` after, a stored `uint` before.
    pub(super) fn retype_byte_slots(&mut self) {
        let Some(split) = self.split_pool() else {
            return;
        };
        let slots: Vec<(u32, Slot)> = split
            .slots
            .iter()
            .filter(|(_, s)| s.bytes)
            .map(|(&start, &s)| (start, s))
            .collect();
        if slots.is_empty() {
            return;
        }
        let u = self.m.ty(TypeKey::Int(32));
        let word = self.uchar4_ty();
        let uint_ptr = self.m.ty(TypeKey::Pointer(StorageClass::Function, u));
        let word_ptr = self.m.ty(TypeKey::Pointer(StorageClass::Function, word));
        let mut vars = HashSet::default();
        for (start, slot) in &slots {
            // The length `split_slot` gave the array.
            let len = self.m.u32_const((slot.end - start).div_ceil(4).max(1));
            let arr = self.m.ty(TypeKey::Array(word, len));
            let p = self.m.ty(TypeKey::Pointer(StorageClass::Function, arr));
            self.f.retype_var(slot.var, p);
            self.root_types.insert(slot.var, p);
            vars.insert(slot.var);
        }
        let mut chains = HashSet::default();
        let m = &mut self.m;
        self.f.rewrite_blocks(|inst, out| {
            let op = inst[0] & 0xffff;
            let at = out.len();
            out.extend_from_slice(inst);
            if op == Op::AccessChain as Word
                && inst.len() >= 4
                && inst[1] == uint_ptr
                && vars.contains(&inst[3])
            {
                chains.insert(inst[2]);
                out[at + 1] = word_ptr;
            } else if op == Op::Load as Word && inst.len() >= 4 && chains.contains(&inst[3]) {
                // %w = OpLoad %uchar4 %chain; %id = OpBitcast %uint %w
                let w = m.id();
                out[at + 1] = word;
                out[at + 2] = w;
                out.extend_from_slice(&[4 << 16 | Op::Bitcast as Word, u, inst[2], w]);
            } else if op == Op::Store as Word && inst.len() >= 3 && chains.contains(&inst[1]) {
                // %w = OpBitcast %uchar4 %value; OpStore %chain %w
                let w = m.id();
                out.truncate(at);
                out.extend_from_slice(&[4 << 16 | Op::Bitcast as Word, word, w, inst[2]]);
                out.extend_from_slice(inst);
                out[at + 4 + 2] = w;
            }
        });
    }

    /// A new private word pool in `storage`, split where the kernel being
    /// lowered may split its pool and the pool is a `Function` variable.
    pub(super) fn private_pool(&mut self, storage: StorageClass, pointers: bool) -> LocalPool {
        let zero = self.u32c(0);
        let mut pool = LocalPool::new(self.m.id(), zero, storage, pointers);
        if self.split_pools && storage == StorageClass::Function {
            pool.split = Some(SplitPool::new());
        }
        pool
    }

    /// `to`, a run-time offset computed from offset `from`, points into the
    /// same variable (called through `note_pool_offset`).
    pub(super) fn note_derived_offset(&mut self, from: Word, to: Word) {
        if let Some(start) = self.slot_of(from) {
            if let Some(split) = self.split_pool_mut() {
                split.derived.insert(to, start);
            }
        }
    }

    /// Whether values of `ty` are offsets into a split private pool.
    fn is_split_pointer(&self, ty: &Type) -> bool {
        self.split_pool().is_some()
            && matches!(ty, Type::Pointer(_, sp, _) if self.pool_of(*sp) == Some(StorageClass::Function))
    }

    /// `v` was stored whole into `Function` variable `holder`.
    pub(super) fn note_pointer_store(&mut self, holder: Word, v: &Val) {
        if !self.is_split_pointer(&v.ty) {
            return;
        }
        // A null pointer points into nothing, and leaves what the variable
        // points into as it was.
        if self.m.int_constant(v.id).is_some_and(|(_, k)| k == 0) {
            return;
        }
        let slot = self.slot_of(v.id);
        let Some(split) = self.split_pool_mut() else {
            return;
        };
        let agreed = match split.holders.get(&holder) {
            None => slot,
            Some(&held) if held == slot => slot,
            Some(_) => None,
        };
        split.holders.insert(holder, agreed);
        if agreed.is_none() {
            self.split_failed = true;
        }
    }

    /// `id` was loaded whole from `Function` variable `holder`, as `ty`.
    pub(super) fn note_pointer_load(&mut self, holder: Word, id: Word, ty: &Type) {
        if !self.is_split_pointer(ty) {
            return;
        }
        if let Some(split) = self.split_pool_mut() {
            if let Some(&Some(start)) = split.holders.get(&holder) {
                split.derived.insert(id, start);
            }
        }
    }
}
