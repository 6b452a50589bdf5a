//! Loop-invariant code motion on a finished function body.
//!
//! NVIDIA's Vulkan compiler (driver 580) leaves in a loop the arithmetic
//! whose operands do not change in it, where NVIDIA's OpenCL compiler
//! computes it once before the loop. A SHA-256 loop in which only the
//! first message word changes per trip (hashcat's `s04` kernels) ran 12 %
//! longer through ferrocl than through NVIDIA's OpenCL on an H200, and 3 %
//! once the invariant part of the message schedule was written before the
//! loop in the source (docs/performance.md, "Loop invariants before the
//! loop"). This pass does that for every loop:
//!
//! 1. **Stores forwarded to loads.** The lowering keeps every variable in
//!    a `Function` variable, so a value read back after a store is a load.
//!    Within a block, and on into a block whose only predecessor is the
//!    block before it, a load from a place last stored to (or loaded from)
//!    becomes an `OpCopyObject` of that value. Only variables reached by
//!    nothing but loads, stores and access chains are followed: any other
//!    use (a call, an atomic, a pointer stored or selected) leaves the
//!    variable alone.
//! 2. **Invariants hoisted.** Innermost loop first, an instruction of the
//!    loop that computes a value from values defined outside it moves to
//!    the end of the block that enters the loop: arithmetic, logic,
//!    conversions, composites, `GLSL.std.450` functions, access chains,
//!    and loads from a followed variable the loop never stores to. A
//!    chain of constant indices computes nothing (the driver folds it
//!    into the access): it leaves only along with a load through it. Made
//!    before the loop for a store in it, such chains made NVIDIA's
//!    compiler give hashcat's `m22000_loop` 0.5 % more time on an H200.
//! 3. **What does not pay stays.** A value computed before the loop holds
//!    a register through it: cheap values go back into the loop
//!    ([`Body::keep_cheap_values_in_loop`]), and a loop that would lose
//!    less than one value per [`LOOP_INSTRUCTIONS_PER_VALUE`] of its
//!    instructions keeps all its arithmetic (only loads and copies move).
//!    Pointers are never computed before a loop.
//!
//! 4. **Addresses split.** Where enabled, addresses the loop computes as
//!    `A + v * F` become that, `A` and `F` computed before the loop
//!    (addresses.rs).
//!
//! What moves runs once per entry of the loop, also when the loop runs no
//! trip, so nothing moves that could fail or read out of bounds there:
//! integer division only by a constant other than 0 (and -1 when signed),
//! no dynamic vector component, and a load only through an access chain
//! whose indices are constants within their bounds or were clamped to
//! them when the chain moved (`UMin`; an index in bounds keeps its value).
//! A loop is left as it is unless exactly one block enters it, ending in a
//! branch to the header. Blocks no path from the entry reaches are never
//! touched.

use super::{ConstKey, FunctionWriter, ModuleWriter, Op, TypeKey, Word};
use crate::spirv_words::{instruction_spans, Layouts};
use crate::{HashMap, HashSet};

// GLSL.std.450 instructions (the extended instruction set's numbers).
const GLSL_UMIN: Word = 38;
/// Those that write through a pointer operand: `Modf`, `Frexp`.
const GLSL_WRITES: [Word; 2] = [35, 51];
/// `InterpolateAtCentroid`, `InterpolateAtSample`, `InterpolateAtOffset`.
const GLSL_INTERPOLATE: std::ops::RangeInclusive<Word> = 76..=78;
const MEMORY_ACCESS_VOLATILE: Word = 1;

mod addresses;

/// Moves what each loop of `fw` computes from values defined outside it to
/// before the loop where `hoist` says so, and splits the loop's addresses
/// into what the loop changes and what it does not where `addresses` says
/// so (addresses.rs); see the module's comment.
pub(crate) fn optimize_loops(
    fw: &mut FunctionWriter,
    m: &mut ModuleWriter,
    hoist: bool,
    addresses: bool,
) {
    if !hoist && !addresses {
        return;
    }
    if let Some(b) = fw.current.take() {
        fw.blocks.push(b);
        fw.current_label = None;
    }
    if !fw.blocks.iter().any(|b| has_loop(b)) {
        return;
    }
    let Some(mut body) = Body::parse(&fw.blocks, &fw.vars, m) else {
        return;
    };
    if hoist {
        body.forward_stores(m);
        body.hoist(m);
    }
    if addresses {
        body.split_loop_addresses(m);
    }
    fw.blocks = body.words();
}

fn opcode(word: Word) -> Word {
    word & 0xffff
}

fn is(op: Word, what: Op) -> bool {
    op == what as Word
}

/// Splits a block's words into instructions; `None` on a malformed one.
fn instructions(words: &[Word]) -> Option<Vec<Vec<Word>>> {
    let spans = instruction_spans(words, 0)?;
    Some(
        spans
            .into_iter()
            .map(|(at, len)| words[at..at + len].to_vec())
            .collect(),
    )
}

fn has_loop(words: &[Word]) -> bool {
    instruction_spans(words, 0).is_some_and(|spans| {
        spans
            .iter()
            .any(|&(at, _)| is(opcode(words[at]), Op::LoopMerge))
    })
}

/// A value computed from fewer arithmetic instructions than this is cheap.
const CHEAP_VALUE_INSTRUCTIONS: usize = 4;
/// Arithmetic leaves a loop only where at least one value that needs a
/// register would leave per this many instructions of the loop: on an
/// H200, hashcat's SHA2-256 loop (236 values of 13,427 instructions) ran
/// 3 % faster with them out and md5crypt's (43 of 3,882) 0.7 %; SHA1's
/// (43 of 5,379) ran 4.3 % slower, its driver keeping 13 words a
/// work-item in shared memory.
const LOOP_INSTRUCTIONS_PER_VALUE: usize = 100;

/// An instruction on its way out of a loop.
struct Moved {
    /// `None` once put back.
    inst: Option<Vec<Word>>,
    /// Where it was in the loop (block, instruction); `None` for what the
    /// pass made (a clamp).
    from: Option<(usize, usize)>,
    /// Computes a value (not a load, a copy or an address).
    arithmetic: bool,
}

impl Moved {
    fn new(inst: Vec<Word>, from: Option<(usize, usize)>, arithmetic: bool) -> Moved {
        Moved {
            inst: Some(inst),
            from,
            arithmetic,
        }
    }
}

/// A `Function` variable or an access chain into one.
#[derive(Clone)]
struct Place {
    root: Word,
    /// The indices from the variable, through every chain on the way.
    indices: Vec<Word>,
    /// The type of what the pointer points to.
    pointee: Word,
}

struct Block {
    insts: Vec<Vec<Word>>,
    succ: Vec<usize>,
    /// The variables the block stores to.
    writes: Vec<Word>,
}

struct Body {
    blocks: Vec<Block>,
    preds: Vec<Vec<usize>>,
    reachable: Vec<bool>,
    places: HashMap<Word, Place>,
    /// Variables used other than by loads, stores and access chains.
    escaped: HashSet<Word>,
    /// The result type of every instruction of the body.
    types: HashMap<Word, Word>,
    /// Pointers known to address memory inside their variable.
    in_bounds: HashSet<Word>,
    layouts: Layouts,
}

impl Body {
    fn parse(words: &[Vec<Word>], vars: &[Word], m: &ModuleWriter) -> Option<Body> {
        let layouts = Layouts::default();
        let mut blocks = Vec::with_capacity(words.len());
        let mut labels = HashMap::default();
        for (i, w) in words.iter().enumerate() {
            let insts = instructions(w)?;
            let first = insts.first()?;
            if !is(opcode(first[0]), Op::Label) || first.len() < 2 {
                return None;
            }
            labels.insert(first[1], i);
            blocks.push(Block {
                insts,
                succ: Vec::new(),
                writes: Vec::new(),
            });
        }
        let mut preds = vec![Vec::new(); blocks.len()];
        for (i, b) in blocks.iter_mut().enumerate() {
            let last = b.insts.last()?;
            let targets: &[Word] = match Op::from_u32(opcode(last[0])) {
                Some(Op::Branch) => last.get(1..2),
                Some(Op::BranchConditional) => last.get(2..4),
                // Labels among the selector's literals only add edges.
                Some(Op::Switch) => last.get(2..),
                _ => None,
            }
            .unwrap_or(&[]);
            for t in targets {
                if let Some(&s) = labels.get(t) {
                    if !b.succ.contains(&s) {
                        b.succ.push(s);
                        preds[s].push(i);
                    }
                }
            }
        }
        let mut reachable = vec![false; blocks.len()];
        let mut stack = vec![0];
        while let Some(b) = stack.pop() {
            if !std::mem::replace(&mut reachable[b], true) {
                stack.extend(&blocks[b].succ);
            }
        }
        let mut body = Body {
            blocks,
            preds,
            reachable,
            places: HashMap::default(),
            escaped: HashSet::default(),
            types: HashMap::default(),
            in_bounds: HashSet::default(),
            layouts,
        };
        for v in instructions(vars)? {
            if let (Some(&ty), Some(&id)) = (v.get(1), v.get(2)) {
                if let Some(TypeKey::Pointer(_, pointee)) = m.type_key(ty) {
                    body.places.insert(
                        id,
                        Place {
                            root: id,
                            indices: Vec::new(),
                            pointee: *pointee,
                        },
                    );
                    body.in_bounds.insert(id);
                }
            }
        }
        body.follow_places(m);
        Some(body)
    }

    /// Records the access chains into variables, the result types, which
    /// variables escape and which blocks store to which variables.
    fn follow_places(&mut self, m: &ModuleWriter) {
        for b in 0..self.blocks.len() {
            for i in 0..self.blocks[b].insts.len() {
                let inst = &self.blocks[b].insts[i];
                let op = opcode(inst[0]);
                let (has_type, has_result) = self.layouts.get(op);
                if has_type && has_result && inst.len() >= 3 {
                    self.types.insert(inst[2], inst[1]);
                }
                if is_chain(op) && inst.len() >= 4 {
                    if let (Some(base), Some(TypeKey::Pointer(_, pointee))) =
                        (self.places.get(&inst[3]), m.type_key(inst[1]))
                    {
                        let mut place = base.clone();
                        place.indices.extend_from_slice(&inst[4..]);
                        place.pointee = *pointee;
                        self.places.insert(inst[2], place);
                    }
                }
            }
        }
        for b in 0..self.blocks.len() {
            let mut writes = Vec::new();
            for inst in &self.blocks[b].insts {
                let op = opcode(inst[0]);
                let operands = self.layouts.operands_at(inst);
                // Where a followed pointer may stand without escaping.
                let allowed = if is(op, Op::Load) {
                    if inst.get(4).is_some_and(|a| a & MEMORY_ACCESS_VOLATILE != 0) {
                        None
                    } else {
                        Some(3)
                    }
                } else if is(op, Op::Store) {
                    if inst.get(3).is_some_and(|a| a & MEMORY_ACCESS_VOLATILE != 0) {
                        None
                    } else {
                        if let Some(p) = inst.get(1).and_then(|p| self.places.get(p)) {
                            writes.push(p.root);
                        }
                        Some(1)
                    }
                } else if is_chain(op) {
                    Some(3)
                } else {
                    None
                };
                for (at, w) in inst.iter().enumerate().skip(operands) {
                    if Some(at) != allowed {
                        if let Some(p) = self.places.get(w) {
                            self.escaped.insert(p.root);
                        }
                    }
                }
            }
            writes.sort_unstable();
            writes.dedup();
            self.blocks[b].writes = writes;
        }
    }

    /// The place `ptr` names, if the pass follows its variable.
    fn followed(&self, ptr: Word) -> Option<&Place> {
        self.places
            .get(&ptr)
            .filter(|p| !self.escaped.contains(&p.root))
    }

    fn is_pointer(&self, m: &ModuleWriter, ty: Word) -> bool {
        matches!(m.type_key(ty), Some(TypeKey::Pointer(..)))
    }

    /// Step 1 of the module's comment.
    fn forward_stores(&mut self, m: &ModuleWriter) {
        // Known values per variable, keyed by the indices of the place.
        let mut known: HashMap<Word, HashMap<Vec<Word>, Word>> = HashMap::default();
        for b in 0..self.blocks.len() {
            let carried = b > 0 && self.preds[b] == [b - 1];
            if !carried {
                known.clear();
            }
            if !self.reachable[b] {
                continue;
            }
            for i in 0..self.blocks[b].insts.len() {
                let inst = &self.blocks[b].insts[i];
                let op = opcode(inst[0]);
                if is(op, Op::Load) && inst.len() >= 4 {
                    let (ty, id, ptr) = (inst[1], inst[2], inst[3]);
                    let Some(place) = self.followed(ptr) else {
                        continue;
                    };
                    if self.is_pointer(m, ty) {
                        continue;
                    }
                    let values = known.entry(place.root).or_default();
                    match values.get(&place.indices) {
                        Some(&v) => {
                            self.blocks[b].insts[i] =
                                vec![(4 << 16) | Op::CopyObject as Word, ty, id, v];
                        }
                        None => {
                            values.insert(place.indices.clone(), id);
                        }
                    }
                } else if is(op, Op::Store) && inst.len() >= 3 {
                    if let Some(place) = self.followed(inst[1]) {
                        let values = known.entry(place.root).or_default();
                        values.clear();
                        values.insert(place.indices.clone(), inst[2]);
                    }
                }
            }
        }
    }

    /// The loops of the body, innermost first: (header, the block that
    /// enters it, the blocks of the loop in order). A loop is the header
    /// and what reaches one of its back edges (branches to it from blocks
    /// it dominates) without passing through it.
    fn loops(&self) -> Vec<(usize, usize, Vec<usize>)> {
        let dom = Dominators::new(self);
        let mut loops = Vec::new();
        for (h, block) in self.blocks.iter().enumerate() {
            let n = block.insts.len();
            if !self.reachable[h] || n < 2 || !is(opcode(block.insts[n - 2][0]), Op::LoopMerge) {
                continue;
            }
            let (back, entering): (Vec<usize>, Vec<usize>) = self.preds[h]
                .iter()
                .copied()
                .filter(|&p| self.reachable[p])
                .partition(|&p| dom.dominates(h, p));
            let [e] = entering[..] else { continue };
            let last = &self.blocks[e].insts[self.blocks[e].insts.len() - 1];
            if back.is_empty() || !is(opcode(last[0]), Op::Branch) {
                continue;
            }
            let mut inside = HashSet::default();
            inside.insert(h);
            let mut stack = back;
            while let Some(b) = stack.pop() {
                if self.reachable[b] && inside.insert(b) {
                    stack.extend(&self.preds[b]);
                }
            }
            if inside.iter().any(|&b| !dom.dominates(h, b)) {
                continue;
            }
            let mut blocks: Vec<usize> = inside.into_iter().collect();
            blocks.sort_unstable();
            loops.push((h, e, blocks));
        }
        loops.sort_by_key(|l| l.2.len());
        loops
    }

    /// Step 2 of the module's comment.
    fn hoist(&mut self, m: &mut ModuleWriter) {
        for (_, entry, blocks) in self.loops() {
            // Read per loop: the clamps of an inner loop may have made it.
            let glsl = m.glsl_import();
            let mut written: HashSet<Word> = HashSet::default();
            for &b in &blocks {
                written.extend(&self.blocks[b].writes);
            }
            let before: Vec<Vec<Vec<Word>>> = blocks
                .iter()
                .map(|&b| self.blocks[b].insts.clone())
                .collect();
            let size: usize = before.iter().map(Vec::len).sum();
            let in_bounds_before = self.in_bounds.clone();
            let mut moved = self.invariants(m, glsl, &blocks, &written, true);
            let computed = self.keep_cheap_values_in_loop(&blocks, &mut moved);
            if computed * LOOP_INSTRUCTIONS_PER_VALUE < size {
                // Too little arithmetic leaves the loop to pay for the
                // registers it holds: only loads and copies move.
                for (&b, insts) in blocks.iter().zip(before) {
                    self.blocks[b].insts = insts;
                }
                // The chains put back are no longer clamped.
                self.in_bounds = in_bounds_before;
                moved = self.invariants(m, glsl, &blocks, &written, false);
            }
            let moved: Vec<Vec<Word>> = moved.into_iter().filter_map(|v| v.inst).collect();
            if !moved.is_empty() {
                let insts = &mut self.blocks[entry].insts;
                let mut at = insts.len() - 1;
                if at > 0 && insts[at - 1].first().is_some_and(|&w| is_merge(opcode(w))) {
                    at -= 1;
                }
                insts.splice(at..at, moved);
            }
        }
    }

    /// Takes out of the loop `blocks` what it computes from values
    /// defined outside it (arithmetic only where `arithmetic` says so).
    fn invariants(
        &mut self,
        m: &mut ModuleWriter,
        glsl: Option<Word>,
        blocks: &[usize],
        written: &HashSet<Word>,
        arithmetic: bool,
    ) -> Vec<Moved> {
        let mut defined = self.definitions(blocks);
        let mut moved = Vec::new();
        // Chains of constant indices the loop could lose, by result id:
        // they leave only with a load that leaves through them.
        let mut constant_chains: HashMap<Word, (usize, usize)> = HashMap::default();
        for &b in blocks {
            let n = self.blocks[b].insts.len();
            for i in 1..n {
                let inst = &self.blocks[b].insts[i];
                if inst.len() < 3 {
                    continue;
                }
                let through_constant_chain = is(opcode(inst[0]), Op::Load)
                    && inst.len() >= 4
                    && constant_chains.contains_key(&inst[3]);
                if inst[3..]
                    .iter()
                    .enumerate()
                    .any(|(k, w)| defined.contains_key(w) && !(k == 0 && through_constant_chain))
                {
                    continue;
                }
                let op = opcode(inst[0]);
                let id = inst[2];
                let from = Some((b, i));
                let hoisted = if (is_chain(op) || is(op, Op::Load)) && inst.len() < 4 {
                    false
                } else if is_chain(op) && inst[4..].iter().all(|&w| m.int_constant(w).is_some()) {
                    constant_chains.insert(id, (b, i));
                    false
                } else if is_chain(op) {
                    self.hoist_chain(m, inst.clone(), from, written, &mut moved)
                } else if is(op, Op::Load) {
                    let load = inst.clone();
                    let loaded = self
                        .followed(load[3])
                        .is_some_and(|p| !written.contains(&p.root))
                        && self.loads_in_bounds(m, load[3])
                        && !self.is_pointer(m, load[1]);
                    if loaded {
                        if let Some((cb, ci)) = constant_chains.remove(&load[3]) {
                            let chain = std::mem::take(&mut self.blocks[cb].insts[ci]);
                            self.hoist_chain(m, chain, Some((cb, ci)), written, &mut moved);
                            defined.remove(&load[3]);
                        }
                        moved.push(Moved::new(load, from, false));
                    }
                    loaded
                } else if self.speculable(m, glsl, inst) {
                    let copy = is(op, Op::CopyObject);
                    if copy || arithmetic {
                        moved.push(Moved::new(inst.clone(), from, !copy));
                    }
                    copy || arithmetic
                } else {
                    false
                };
                if hoisted {
                    defined.remove(&id);
                    self.blocks[b].insts[i] = Vec::new();
                }
            }
        }
        moved
    }

    /// Where each value the blocks `blocks` make is made (block,
    /// instruction).
    fn definitions(&mut self, blocks: &[usize]) -> HashMap<Word, (usize, usize)> {
        let mut defs = HashMap::default();
        for &b in blocks {
            for (i, inst) in self.blocks[b].insts.iter().enumerate() {
                if !inst.is_empty() {
                    if let Some(id) = self.layouts.result_id(inst) {
                        defs.insert(id, (b, i));
                    }
                }
            }
        }
        defs
    }

    /// The arithmetic among `moved` that needs a register: all but what is
    /// computed (or copied) from constants alone, which the driver folds.
    fn computed_values(&self, moved: &[Moved]) -> HashSet<usize> {
        let index = Self::index(moved);
        let mut constant: HashSet<usize> = HashSet::default();
        for (k, v) in moved.iter().enumerate() {
            let Some(inst) = v.inst.as_ref() else {
                continue;
            };
            let operands_fixed = inst[3..].iter().all(|w| match index.get(w) {
                Some(j) => constant.contains(j),
                None => !self.types.contains_key(w) && !self.places.contains_key(w),
            });
            if operands_fixed && !is(opcode(inst[0]), Op::Load) {
                constant.insert(k);
            }
        }
        (0..moved.len())
            .filter(|k| moved[*k].arithmetic && moved[*k].inst.is_some() && !constant.contains(k))
            .collect()
    }

    /// Where each value of `moved` is made.
    fn index(moved: &[Moved]) -> HashMap<Word, usize> {
        moved
            .iter()
            .enumerate()
            .filter_map(|(k, v)| Some((v.inst.as_ref()?[2], k)))
            .collect()
    }

    /// Puts back into the loop the cheap values that would each hold a
    /// register through it. A value computed before the loop and read in
    /// it stays live across every trip; where it saves only an instruction
    /// or two a trip, that register costs more than it saves (NVIDIA's
    /// compiler may then keep values in shared memory to hold its
    /// occupancy). A value read in the loop and computed from fewer than
    /// [`CHEAP_VALUE_INSTRUCTIONS`] arithmetic instructions goes back, and
    /// so, in turn, does what only it used; loads and copies stay (the
    /// driver keeps variables in registers either way), and so do values
    /// computed from constants alone.
    ///
    /// Returns how many of the values that need a register still leave.
    fn keep_cheap_values_in_loop(&mut self, blocks: &[usize], moved: &mut [Moved]) -> usize {
        let index = Self::index(moved);
        let computed = self.computed_values(moved);
        let mut used_in_loop: HashSet<Word> = HashSet::default();
        for &b in blocks {
            for inst in self.blocks[b].insts.iter().filter(|i| !i.is_empty()) {
                let operands = self.layouts.operands_at(inst);
                used_in_loop.extend(inst.iter().skip(operands).filter(|w| index.contains_key(w)));
            }
        }
        loop {
            let mut used_by_moved: HashSet<Word> = HashSet::default();
            for v in moved.iter().filter_map(|v| v.inst.as_ref()) {
                used_by_moved.extend(v[3..].iter().filter(|w| index.contains_key(w)));
            }
            let cheap: Vec<usize> = used_in_loop
                .iter()
                .filter(|id| !used_by_moved.contains(id))
                .filter_map(|id| index.get(id).copied())
                .filter(|k| computed.contains(k) && moved[*k].inst.is_some())
                .filter(|&k| Self::instructions_of(moved, &index, k) < CHEAP_VALUE_INSTRUCTIONS)
                .collect();
            if cheap.is_empty() {
                return computed
                    .iter()
                    .filter(|&&k| moved[k].inst.is_some())
                    .count();
            }
            for k in cheap {
                let Some((b, i)) = moved[k].from else {
                    continue;
                };
                let Some(inst) = moved[k].inst.take() else {
                    continue;
                };
                used_in_loop.extend(inst[3..].iter().filter(|w| index.contains_key(w)));
                self.blocks[b].insts[i] = inst;
            }
        }
    }

    /// The arithmetic instructions among `moved` that the value `k` is
    /// computed from, itself included.
    fn instructions_of(moved: &[Moved], index: &HashMap<Word, usize>, k: usize) -> usize {
        let mut seen: HashSet<usize> = HashSet::default();
        let mut stack = vec![k];
        while let Some(k) = stack.pop() {
            let Some(inst) = moved[k].inst.as_ref() else {
                continue;
            };
            if seen.insert(k) {
                stack.extend(inst[3..].iter().filter_map(|w| index.get(w).copied()));
            }
        }
        seen.iter().filter(|&&k| moved[k].arithmetic).count()
    }

    /// Moves the access chain `inst` to `moved`, its dynamic indices into
    /// a followed variable clamped to their bounds where the loop does not
    /// store to the variable (so that loads through it may move too).
    fn hoist_chain(
        &mut self,
        m: &mut ModuleWriter,
        mut inst: Vec<Word>,
        from: Option<(usize, usize)>,
        written: &HashSet<Word>,
        moved: &mut Vec<Moved>,
    ) -> bool {
        let Some(base) = self.followed(inst[3]).cloned() else {
            moved.push(Moved::new(inst, from, false));
            return true;
        };
        // A chain an inner loop already moved (and clamped) moves as it is.
        if written.contains(&base.root)
            || !self.loads_in_bounds(m, inst[3])
            || self.in_bounds.contains(&inst[2])
        {
            moved.push(Moved::new(inst, from, false));
            return true;
        }
        let bounds = self
            .pointee_of(m, inst[3])
            .and_then(|pointee| self.bounds(m, pointee, &inst[4..]));
        let Some(bounds) = bounds else {
            moved.push(Moved::new(inst, from, false));
            return true;
        };
        if bounds.iter().any(Option::is_some) {
            let glsl = m.glsl();
            for (k, clamp) in bounds.into_iter().enumerate() {
                let Some((t, last)) = clamp else { continue };
                let k = k + 4;
                let limit = m.constant(ConstKey::Bits(t, last));
                let clamped = m.id();
                let clamp = vec![
                    (7 << 16) | Op::ExtInst as Word,
                    t,
                    clamped,
                    glsl,
                    GLSL_UMIN,
                    inst[k],
                    limit,
                ];
                moved.push(Moved::new(clamp, None, false));
                self.types.insert(clamped, t);
                inst[k] = clamped;
            }
        }
        self.in_bounds.insert(inst[2]);
        moved.push(Moved::new(inst, from, false));
        true
    }

    /// Walks `indices` from a pointer to `pointee`: for each index, `None`
    /// where it is a constant within its bound, or its type and the
    /// largest index its bound allows where it is computed; `None` for the whole walk where
    /// an index may leave its object (a constant out of bounds, a computed
    /// struct member, a type the walk does not know, an index of unknown
    /// type).
    fn bounds(
        &self,
        m: &ModuleWriter,
        pointee: Word,
        indices: &[Word],
    ) -> Option<Vec<Option<(Word, u64)>>> {
        let mut ty = pointee;
        let mut out = Vec::with_capacity(indices.len());
        for &index in indices {
            let constant = m.int_constant(index).map(|(_, v)| v);
            let (bound, next) = match m.type_key(ty)? {
                TypeKey::Array(e, len) => (m.int_constant(*len)?.1, *e),
                TypeKey::Vector(e, n) => (u64::from(*n), *e),
                TypeKey::Struct(members) => {
                    let c = usize::try_from(constant?).ok()?;
                    (members.len() as u64, *members.get(c)?)
                }
                TypeKey::BlockStruct(members) => {
                    let c = usize::try_from(constant?).ok()?;
                    (members.len() as u64, members.get(c)?.0)
                }
                _ => return None,
            };
            match constant {
                Some(c) if c < bound => out.push(None),
                Some(_) => return None,
                None => {
                    let t = *self.types.get(&index)?;
                    m.int_width(t)?;
                    out.push(Some((t, bound.checked_sub(1)?)));
                }
            }
            ty = next;
        }
        Some(out)
    }

    /// Whether a load through `ptr` stays inside its variable: a pointer
    /// the pass clamped, or a chain of constant indices within bounds.
    fn loads_in_bounds(&self, m: &ModuleWriter, ptr: Word) -> bool {
        if self.in_bounds.contains(&ptr) {
            return true;
        }
        let Some(place) = self.places.get(&ptr) else {
            return false;
        };
        let root = self.places.get(&place.root).map(|r| r.pointee);
        root.and_then(|pointee| self.bounds(m, pointee, &place.indices))
            .is_some_and(|b| b.iter().all(Option::is_none))
    }

    fn pointee_of(&self, m: &ModuleWriter, ptr: Word) -> Option<Word> {
        match self.places.get(&ptr) {
            Some(p) if p.root == ptr => Some(p.pointee),
            _ => match m.type_key(*self.types.get(&ptr)?) {
                Some(TypeKey::Pointer(_, pointee)) => Some(*pointee),
                _ => None,
            },
        }
    }

    /// Whether `inst` computes its value from its operands alone and can
    /// run where the loop would not have run it.
    fn speculable(&self, m: &ModuleWriter, glsl: Option<Word>, inst: &[Word]) -> bool {
        let op = opcode(inst[0]);
        let Some(op) = Op::from_u32(op) else {
            return false;
        };
        // Pointers stay where they are made: logical ones must, and a
        // global address made in the loop lets the driver fold a constant
        // offset into the load where one made before would hold two
        // registers through the loop.
        if self.is_pointer(m, inst[1]) {
            return false;
        }
        match op {
            Op::UDiv | Op::UMod => inst
                .get(4)
                .and_then(|&d| m.int_constant(d))
                .is_some_and(|(_, v)| v != 0),
            Op::SDiv | Op::SRem | Op::SMod => inst
                .get(4)
                .and_then(|&d| m.int_constant(d))
                .is_some_and(|(w, v)| v != 0 && v != u64::MAX >> (64 - w)),
            Op::ExtInst => {
                glsl.is_some_and(|g| inst.get(3) == Some(&g))
                    && inst
                        .get(4)
                        .is_some_and(|i| !GLSL_WRITES.contains(i) && !GLSL_INTERPOLATE.contains(i))
            }
            _ => pure(op),
        }
    }

    fn words(self) -> Vec<Vec<Word>> {
        self.blocks
            .into_iter()
            .map(|b| b.insts.into_iter().flatten().collect())
            .collect()
    }
}

/// The dominator tree of the reachable blocks (Cooper, Harvey and
/// Kennedy's iteration over reverse postorder), numbered so that a
/// dominance test is two comparisons.
struct Dominators {
    /// Preorder number and the largest number below each block in the
    /// tree; `None` for unreachable blocks.
    span: Vec<Option<(usize, usize)>>,
}

impl Dominators {
    fn new(body: &Body) -> Dominators {
        let n = body.blocks.len();
        // Postorder of a depth-first walk from the entry.
        let mut post = vec![usize::MAX; n];
        let mut order = Vec::with_capacity(n);
        let mut seen = vec![false; n];
        let mut stack = vec![(0usize, 0usize)];
        seen[0] = true;
        while let Some(&mut (b, ref mut next)) = stack.last_mut() {
            if let Some(&s) = body.blocks[b].succ.get(*next) {
                *next += 1;
                if !seen[s] {
                    seen[s] = true;
                    stack.push((s, 0));
                }
            } else {
                post[b] = order.len();
                order.push(b);
                stack.pop();
            }
        }
        let mut idom = vec![usize::MAX; n];
        idom[0] = 0;
        let mut changed = true;
        while changed {
            changed = false;
            for &b in order.iter().rev().skip(1) {
                let mut new = usize::MAX;
                for &p in &body.preds[b] {
                    if idom[p] == usize::MAX {
                        continue;
                    }
                    new = if new == usize::MAX {
                        p
                    } else {
                        let (mut x, mut y) = (p, new);
                        while x != y {
                            while post[x] < post[y] {
                                x = idom[x];
                            }
                            while post[y] < post[x] {
                                y = idom[y];
                            }
                        }
                        x
                    };
                }
                if new != usize::MAX && idom[b] != new {
                    idom[b] = new;
                    changed = true;
                }
            }
        }
        let mut children = vec![Vec::new(); n];
        for &b in &order {
            if b != 0 && idom[b] != usize::MAX {
                children[idom[b]].push(b);
            }
        }
        let mut span = vec![None; n];
        let mut count = 0;
        let mut stack = vec![(0usize, false)];
        while let Some((b, done)) = stack.pop() {
            if done {
                span[b] = span[b].map(|(pre, _)| (pre, count - 1));
                continue;
            }
            span[b] = Some((count, count));
            count += 1;
            stack.push((b, true));
            stack.extend(children[b].iter().map(|&c| (c, false)));
        }
        Dominators { span }
    }

    /// Whether every path from the entry to `b` passes through `a`.
    fn dominates(&self, a: usize, b: usize) -> bool {
        match (self.span[a], self.span[b]) {
            (Some((a0, a1)), Some((b0, _))) => a0 <= b0 && b0 <= a1,
            _ => false,
        }
    }
}

fn is_chain(op: Word) -> bool {
    is(op, Op::AccessChain) || is(op, Op::InBoundsAccessChain)
}

fn is_merge(op: Word) -> bool {
    is(op, Op::LoopMerge) || is(op, Op::SelectionMerge)
}

/// Instructions whose value depends on their operands alone and which
/// cannot fault: what may run once before a loop instead of in it.
fn pure(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        IAdd | ISub
            | IMul
            | SNegate
            | FAdd
            | FSub
            | FMul
            | FDiv
            | FRem
            | FMod
            | FNegate
            | IAddCarry
            | ISubBorrow
            | UMulExtended
            | SMulExtended
            | VectorTimesScalar
            | Dot
            | Not
            | BitwiseAnd
            | BitwiseOr
            | BitwiseXor
            | ShiftLeftLogical
            | ShiftRightLogical
            | ShiftRightArithmetic
            | BitFieldInsert
            | BitFieldSExtract
            | BitFieldUExtract
            | BitReverse
            | BitCount
            | IEqual
            | INotEqual
            | UGreaterThan
            | SGreaterThan
            | UGreaterThanEqual
            | SGreaterThanEqual
            | ULessThan
            | SLessThan
            | ULessThanEqual
            | SLessThanEqual
            | FOrdEqual
            | FUnordEqual
            | FOrdNotEqual
            | FUnordNotEqual
            | FOrdLessThan
            | FUnordLessThan
            | FOrdGreaterThan
            | FUnordGreaterThan
            | FOrdLessThanEqual
            | FUnordLessThanEqual
            | FOrdGreaterThanEqual
            | FUnordGreaterThanEqual
            | IsNan
            | IsInf
            | Any
            | All
            | LogicalEqual
            | LogicalNotEqual
            | LogicalOr
            | LogicalAnd
            | LogicalNot
            | Select
            | UConvert
            | SConvert
            | FConvert
            | ConvertFToU
            | ConvertFToS
            | ConvertSToF
            | ConvertUToF
            | Bitcast
            | CompositeConstruct
            | CompositeExtract
            | CompositeInsert
            | VectorShuffle
            | CopyObject
    )
}
