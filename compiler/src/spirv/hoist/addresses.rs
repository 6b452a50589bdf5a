//! Addresses in a loop split into what the loop changes and what it does
//! not.
//!
//! `sum += in[gid + i * stride]` over `float16`, with `i` the loop's
//! counter and the others `size_t`, reaches the driver as `in + (gid +
//! zext(i) * stride) * 64`: four operations a trip on 64-bit values, three
//! of them on values set before the loop. Rewritten as `A + zext(i) * F`,
//! with `A = in + gid * 64` and `F = stride * 64` computed once before the
//! loop, the trip's share is one multiply and one addition. On an H200
//! (driver 580) the benchmark's 16-wide bandwidth kernel ran 76.2-76.8 µs
//! a launch as written and 73.3 µs rewritten, against 74.4 µs through
//! NVIDIA's OpenCL, whose compiler steps such an address per trip; the
//! 1- to 8-wide kernels, whose addresses feed one or two loads, ran 0-2 %
//! slower rewritten (the driver schedules their loads differently), and
//! so did they with the address stepped per trip in an `OpPhi`
//! (docs/performance.md, "Addresses split around the loop").
//!
//! So, in each loop, a 64-bit value computed from a value `v` the loop
//! makes (any value that is not itself such a computation) through
//! additions, subtractions, multiplications by values defined outside the
//! loop and left shifts by constants is `A + v * F` modulo 2^64, whatever
//! `v` is: `A` is the same computation with `v = 0`, `F` the product of
//! the multipliers. Where such a value
//!
//! - takes at least [`MIN_OPERATIONS`] operations from `v`, one of them a
//!   multiplication by a value known only at run time, and
//! - is the address of at least [`MIN_ACCESSES`] accesses (made a pointer
//!   as it is or after adding a constant, which then stays in the loop for
//!   the driver to fold into the access),
//!
//! it is rewritten so, `A` and `F` computed in the block that enters the
//! loop. Nothing there can fault: it is integer arithmetic on values
//! already computed. Innermost loops come first, so an outer loop sees the
//! inner loop's `A` as one of its own values.

use super::{is, opcode, pure, Body};
use crate::spirv::{ConstKey, ModuleWriter, Op, TypeKey, Word};
use crate::HashMap;

/// The fewest operations between `v` and a value worth rewriting: the
/// rewritten value takes two.
const MIN_OPERATIONS: usize = 3;
/// The fewest accesses through a value worth rewriting (see the module's
/// comment for the measurements).
const MIN_ACCESSES: usize = 4;

/// A value of the loop as `A + v * unit * factors` modulo 2^64: `v` the
/// loop's value `source`, the `factors` defined outside the loop.
#[derive(Clone)]
struct Affine {
    source: Word,
    unit: u64,
    factors: Vec<Word>,
    /// Operations from `source`.
    operations: usize,
}

/// One loop's values.
struct Loop {
    /// Where each value of the loop is made (block, instruction).
    defs: HashMap<Word, (usize, usize)>,
    memo: HashMap<Word, Option<Affine>>,
}

impl Body {
    /// Rewrites the addresses of each loop as the module's comment says.
    pub(super) fn split_loop_addresses(&mut self, m: &mut ModuleWriter) {
        // What the hoisting took out left empty places.
        for b in &mut self.blocks {
            b.insts.retain(|i| !i.is_empty());
        }
        for (_, entry, blocks) in self.loops() {
            self.split_addresses(m, entry, &blocks);
        }
    }

    fn split_addresses(&mut self, m: &mut ModuleWriter, entry: usize, blocks: &[usize]) {
        let mut l = Loop {
            defs: self.definitions(blocks),
            memo: HashMap::default(),
        };
        // Who uses each value of the loop.
        let mut users: HashMap<Word, Vec<(usize, usize)>> = HashMap::default();
        for &b in blocks {
            for (i, inst) in self.blocks[b].insts.iter().enumerate() {
                if inst.is_empty() {
                    continue;
                }
                let first = self.layouts.operands_at(inst);
                for &w in &inst[first.min(inst.len())..] {
                    if l.defs.contains_key(&w) {
                        users.entry(w).or_default().push((b, i));
                    }
                }
            }
        }
        let mut roots = Vec::new();
        let mut ids: Vec<Word> = l.defs.keys().copied().collect();
        ids.sort_unstable();
        for id in ids {
            let Some(a) = self.affine(m, &mut l, id) else {
                continue;
            };
            if a.operations >= MIN_OPERATIONS
                && !a.factors.is_empty()
                && !self.feeds_affine(m, &mut l, &users, id)
                && self.accesses(m, &users, id) >= MIN_ACCESSES
            {
                roots.push((id, a));
            }
        }
        if roots.is_empty() {
            return;
        }
        let mut before = Vec::new();
        let mut cloned = HashMap::default();
        let mut replaced = Vec::new();
        for (_, a) in &roots {
            if let Some(&ty) = self.types.get(&a.source) {
                cloned.insert(a.source, m.constant(ConstKey::Bits(ty, 0)));
            }
        }
        for (r, a) in roots {
            // `A` needs `v` = 0, of `v`'s type.
            if !cloned.contains_key(&a.source) {
                continue;
            }
            let Some(&(b, i)) = l.defs.get(&r) else {
                continue;
            };
            let ty = self.blocks[b].insts[i][1];
            let Some(base) = self.value_at_zero(&l, r, &mut cloned, m, &mut before, 0) else {
                continue;
            };
            let mut factor = m.constant(ConstKey::Bits(ty, a.unit));
            for &f in &a.factors {
                let product = m.id();
                before.push(vec![(5 << 16) | Op::IMul as Word, ty, product, factor, f]);
                factor = product;
            }
            let product = m.id();
            self.types.insert(product, ty);
            replaced.push((
                b,
                i,
                vec![
                    vec![(5 << 16) | Op::IMul as Word, ty, product, a.source, factor],
                    vec![(5 << 16) | Op::IAdd as Word, ty, r, base, product],
                ],
            ));
        }
        for inst in &before {
            self.types.insert(inst[2], inst[1]);
        }
        // What only computed the old values goes; the places of the
        // instructions stay until every old value is gone.
        let mut uses = self.uses();
        for (_, _, new) in &replaced {
            for &w in new.iter().flat_map(|inst| &inst[3..]) {
                *uses.entry(w).or_insert(0) += 1;
            }
        }
        for (b, i, _) in &replaced {
            let old = std::mem::take(&mut self.blocks[*b].insts[*i]);
            self.drop_operands(&l, &old, &mut uses);
        }
        replaced.sort_by_key(|&(b, i, _)| std::cmp::Reverse((b, i)));
        for (b, i, new) in replaced {
            self.blocks[b].insts.splice(i..i + 1, new);
        }
        let at = self.blocks[entry].insts.len() - 1;
        self.blocks[entry].insts.splice(at..at, before);
    }

    /// `id` as `A + v * F`, if it is a 64-bit value computed so from a
    /// value of the loop.
    fn affine(&self, m: &ModuleWriter, l: &mut Loop, id: Word) -> Option<Affine> {
        if let Some(a) = l.memo.get(&id) {
            return a.clone();
        }
        // Marked first: a value reaches itself only through a phi, which
        // ends the walk.
        l.memo.insert(id, None);
        let a = self.affine_inst(m, l, id);
        l.memo.insert(id, a.clone());
        a
    }

    fn affine_inst(&self, m: &ModuleWriter, l: &mut Loop, id: Word) -> Option<Affine> {
        let &(b, i) = l.defs.get(&id)?;
        let inst = &self.blocks[b].insts[i];
        if inst.len() < 4 || !matches!(m.type_key(inst[1]), Some(TypeKey::Int(64))) {
            return None;
        }
        let source = Affine {
            source: id,
            unit: 1,
            factors: Vec::new(),
            operations: 0,
        };
        let op = Op::from_u32(opcode(inst[0]));
        let (Some(op @ (Op::IMul | Op::IAdd | Op::ISub | Op::ShiftLeftLogical)), 5) =
            (op, inst.len())
        else {
            return Some(source);
        };
        let invariant = |w: Word| !l.defs.contains_key(&w);
        let (varying, other) = match (invariant(inst[3]), invariant(inst[4])) {
            (false, true) => (inst[3], inst[4]),
            (true, false) if matches!(op, Op::IMul | Op::IAdd) => (inst[4], inst[3]),
            _ => return Some(source),
        };
        let mut a = self.affine(m, l, varying)?;
        a.operations += 1;
        match op {
            Op::IMul => match m.int_constant(other) {
                Some((_, c)) => a.unit = a.unit.wrapping_mul(c),
                None => a.factors.push(other),
            },
            Op::ShiftLeftLogical => match m.int_constant(other) {
                Some((_, s)) if s < 64 => a.unit = a.unit.wrapping_shl(s as u32),
                _ => return Some(source),
            },
            _ => {}
        }
        Some(a)
    }

    /// Whether another value of the same form is computed from `id`, which
    /// is then not where the rewriting starts (but a constant added to it
    /// last stays, for the driver to fold).
    fn feeds_affine(
        &self,
        m: &ModuleWriter,
        l: &mut Loop,
        users: &HashMap<Word, Vec<(usize, usize)>>,
        id: Word,
    ) -> bool {
        let Some(users) = users.get(&id) else {
            return false;
        };
        users.iter().any(|&(b, i)| {
            let inst = &self.blocks[b].insts[i];
            let result = inst.get(2).copied().unwrap_or(0);
            !constant_added(m, inst)
                && l.defs.get(&result) == Some(&(b, i))
                && self
                    .affine(m, l, result)
                    .is_some_and(|a| a.source != result)
        })
    }

    /// The accesses whose address is `id`, or `id` plus a constant.
    fn accesses(
        &self,
        m: &ModuleWriter,
        users: &HashMap<Word, Vec<(usize, usize)>>,
        id: Word,
    ) -> usize {
        let mut count = 0;
        for &(b, i) in users.get(&id).into_iter().flatten() {
            let inst = &self.blocks[b].insts[i];
            if is(opcode(inst[0]), Op::ConvertUToPtr) {
                count += 1;
            } else if constant_added(m, inst) {
                count += users
                    .get(&inst[2])
                    .into_iter()
                    .flatten()
                    .filter(|&&(b, i)| is(opcode(self.blocks[b].insts[i][0]), Op::ConvertUToPtr))
                    .count();
            }
        }
        count
    }

    /// Writes to `out` the computation of `id` with every source set to 0
    /// (as `cloned` maps them); returns its id.
    fn value_at_zero(
        &self,
        l: &Loop,
        id: Word,
        cloned: &mut HashMap<Word, Word>,
        m: &mut ModuleWriter,
        out: &mut Vec<Vec<Word>>,
        depth: u32,
    ) -> Option<Word> {
        if !l.defs.contains_key(&id) {
            return Some(id);
        }
        if let Some(&c) = cloned.get(&id) {
            return Some(c);
        }
        if depth > 64 {
            return None;
        }
        let &(b, i) = l.defs.get(&id)?;
        let mut copy = self.blocks[b].insts[i].clone();
        for w in copy.iter_mut().skip(3) {
            *w = self.value_at_zero(l, *w, cloned, m, out, depth + 1)?;
        }
        copy[2] = m.id();
        let new = copy[2];
        out.push(copy);
        cloned.insert(id, new);
        Some(new)
    }

    /// How many operands name each id.
    fn uses(&mut self) -> HashMap<Word, usize> {
        let mut uses = HashMap::default();
        for b in &self.blocks {
            for inst in b.insts.iter().filter(|i| !i.is_empty()) {
                let first = self.layouts.operands_at(inst);
                for &w in inst.iter().skip(first) {
                    *uses.entry(w).or_insert(0) += 1;
                }
            }
        }
        uses
    }

    /// Removes, after `old` went, the instructions of the loop whose
    /// values nothing uses any more and which have no other effect.
    fn drop_operands(&mut self, l: &Loop, old: &[Word], uses: &mut HashMap<Word, usize>) {
        let mut stack: Vec<Word> = old.iter().skip(3).copied().collect();
        while let Some(w) = stack.pop() {
            let Some(n) = uses.get_mut(&w) else { continue };
            *n = n.saturating_sub(1);
            if *n > 0 {
                continue;
            }
            let Some(&(b, i)) = l.defs.get(&w) else {
                continue;
            };
            let inst = &self.blocks[b].insts[i];
            let removable = !inst.is_empty()
                && inst.get(2) == Some(&w)
                && Op::from_u32(opcode(inst[0])).is_some_and(pure);
            if removable {
                stack.extend(inst.iter().skip(3));
                self.blocks[b].insts[i] = Vec::new();
            }
        }
    }
}

/// Whether `inst` adds a constant to (or subtracts one from) a value.
fn constant_added(m: &ModuleWriter, inst: &[Word]) -> bool {
    matches!(Op::from_u32(opcode(inst[0])), Some(Op::IAdd | Op::ISub))
        && inst.len() == 5
        && inst[3..].iter().any(|&w| m.int_constant(w).is_some())
}
