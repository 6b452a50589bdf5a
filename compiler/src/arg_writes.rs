//! Which buffer arguments a kernel may write: an analysis of the finished
//! SPIR-V module, so that it sees the code the device runs (every call the
//! lowering inlined, generic pointers resolved) and also serves programs
//! built from binaries.
//!
//! A command queue orders two launches only where one may write a buffer
//! the other uses; a buffer argument the kernel provably never writes lets
//! launches that share it overlap. The answer must never say "not written"
//! for an argument the kernel can write, so the analysis follows where each
//! argument's address may flow and gives up towards "written":
//!
//! - Every value carries a provenance: the arguments whose address it may
//!   be derived from. Arithmetic, conversions, composites, selects and phis
//!   take the union of their operands (a pointer cast to an integer and
//!   back keeps its provenance).
//! - `Function`, `Private` and `Workgroup` variables are cells: what is
//!   stored into any part of one may come out of any load from it.
//! - A store or atomic through a `PhysicalStorageBuffer` pointer writes
//!   the arguments of the pointer's provenance. A pointer that the analysis
//!   cannot trace (a 64-bit value loaded from device memory, a by-value
//!   argument of 8 bytes or more, an argument-buffer load at an unknown
//!   offset) may point anywhere: every buffer argument counts as written.
//! - An argument's address stored into device memory (a global variable,
//!   a buffer, an image) escapes: that argument counts as written, since
//!   a later access through the stored copy is not followed.
//! - Calls to functions the module keeps (not inlined) pass provenance to
//!   the parameters and back through the return value; a call to anything
//!   else writes every buffer argument.
//!
//! The analysis is flow-insensitive and runs to a fixed point over the
//! functions the kernel's entry point reaches. It never fails: a module it
//! cannot read answers "written" for every argument.

use crate::spirv_words::{literal_string, Layouts};
use crate::HashMap;
use crate::{ArgBlock, ArgKind, KernelInfo};
use rspirv::spirv::{Op, StorageClass, Word};

/// For each argument of `kernel` (in order): true when the kernel may
/// write the memory object the argument names. Images answer true;
/// arguments that name no memory object (values, `__local` sizes,
/// samplers) answer false.
pub fn written_arguments(spirv: &[u32], kernel: &KernelInfo) -> Vec<bool> {
    let written = Module::read(spirv)
        .as_ref()
        .and_then(|m| Analysis::new(m, kernel)?.run())
        .unwrap_or(Written::All);
    kernel
        .args
        .iter()
        .enumerate()
        .map(|(i, a)| match a.kind {
            ArgKind::Buffer => match written {
                Written::All => true,
                Written::Some(mask) => mask & arg_bit(i) != 0,
            },
            ArgKind::Image => true,
            ArgKind::Value | ArgKind::LocalPointer | ArgKind::Sampler => false,
        })
        .collect()
}

/// Arguments past 63 share the last bit, which can only make them
/// "written" together.
fn arg_bit(index: usize) -> u64 {
    1u64 << index.min(63)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Written {
    All,
    Some(u64),
}

/// Where a value may come from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Prov {
    /// Bits of the arguments whose address the value may carry.
    args: u64,
    /// The value may be an address the analysis cannot trace.
    foreign: bool,
    /// The value may be the argument buffer's address (arguments that do
    /// not fit in push constants).
    block: bool,
}

impl Prov {
    fn union(self, other: Prov) -> Prov {
        Prov {
            args: self.args | other.args,
            foreign: self.foreign || other.foreign,
            block: self.block || other.block,
        }
    }
}

/// One instruction: its opcode and all of its words (the first included).
#[derive(Clone, Copy)]
struct Inst<'a> {
    op: u32,
    words: &'a [u32],
    /// The instruction has a result type and a result id (words 1 and 2).
    typed_result: bool,
}

impl Inst<'_> {
    fn word(&self, i: usize) -> Option<Word> {
        self.words.get(i).copied()
    }
}

struct Function {
    params: Vec<Word>,
    /// Indices into `Module::insts` of the body.
    body: std::ops::Range<usize>,
}

/// What the analysis needs from the module, read from its words.
struct Module<'a> {
    insts: Vec<Inst<'a>>,
    /// `OpTypePointer`: storage class and pointee.
    pointers: HashMap<Word, (u32, Word)>,
    /// Type ids that may hold an address: 64-bit integers, pointers, and
    /// composites containing either.
    wide_types: HashMap<Word, bool>,
    /// Integer constants.
    constants: HashMap<Word, u64>,
    /// Result id → result type id.
    types: HashMap<Word, Word>,
    /// Result id → index in `insts` of the instruction that defines it.
    defs: HashMap<Word, usize>,
    /// Storage class of every variable.
    variables: HashMap<Word, u32>,
    /// Entry point name → function id.
    entries: HashMap<String, Word>,
    functions: HashMap<Word, Function>,
}

impl<'a> Module<'a> {
    fn read(words: &'a [u32]) -> Option<Module<'a>> {
        if words.len() < 5 || words[0] != 0x0723_0203 {
            return None;
        }
        let mut m = Module {
            insts: Vec::new(),
            pointers: HashMap::default(),
            wide_types: HashMap::default(),
            constants: HashMap::default(),
            types: HashMap::default(),
            defs: HashMap::default(),
            variables: HashMap::default(),
            entries: HashMap::default(),
            functions: HashMap::default(),
        };
        let mut layouts = Layouts::default();
        let mut at = 5;
        let mut current: Option<(Word, Function)> = None;
        while at < words.len() {
            let count = (words[at] >> 16) as usize;
            if count == 0 || at + count > words.len() {
                return None;
            }
            let op = words[at] & 0xffff;
            let (has_type, has_result) = layouts.get(op);
            let inst = Inst {
                op,
                words: &words[at..at + count],
                typed_result: has_type && has_result && count > 2,
            };
            at += count;
            let index = m.insts.len();
            m.insts.push(inst);
            if inst.typed_result {
                m.types.insert(inst.words[2], inst.words[1]);
                m.defs.insert(inst.words[2], index);
            }
            let w = |i| inst.word(i).unwrap_or(0);
            match Op::from_u32(inst.op) {
                Some(Op::EntryPoint) if count > 3 => {
                    m.entries.insert(literal_string(&inst.words[3..]), w(2));
                }
                Some(Op::TypePointer) => {
                    m.pointers.insert(w(1), (w(2), w(3)));
                    m.wide_types.insert(w(1), true);
                }
                Some(Op::TypeInt | Op::TypeFloat) => {
                    m.wide_types.insert(w(1), w(2) >= 64);
                }
                Some(Op::TypeBool) => {
                    m.wide_types.insert(w(1), false);
                }
                Some(Op::TypeVector | Op::TypeMatrix | Op::TypeArray | Op::TypeRuntimeArray) => {
                    let wide = m.wide_types.get(&w(2)).copied().unwrap_or(false);
                    m.wide_types.insert(w(1), wide);
                }
                Some(Op::TypeStruct) => {
                    let wide = inst.words[2..]
                        .iter()
                        .any(|t| m.wide_types.get(t).copied().unwrap_or(false));
                    m.wide_types.insert(w(1), wide);
                }
                Some(Op::Constant) => {
                    let value = u64::from(w(3)) | inst.word(4).map_or(0, |hi| u64::from(hi) << 32);
                    m.constants.insert(w(2), value);
                }
                Some(Op::Variable) => {
                    m.variables.insert(w(2), w(3));
                }
                Some(Op::Function) => {
                    current = Some((
                        w(2),
                        Function {
                            params: Vec::new(),
                            body: index..index,
                        },
                    ));
                }
                Some(Op::FunctionParameter) => {
                    if let Some((_, f)) = &mut current {
                        f.params.push(w(2));
                    }
                }
                Some(Op::FunctionEnd) => {
                    if let Some((id, mut f)) = current.take() {
                        f.body.end = index;
                        m.functions.insert(id, f);
                    }
                }
                _ => {}
            }
        }
        Some(m)
    }

    fn storage_class(&self, pointer: Word) -> Option<u32> {
        let ty = self.types.get(&pointer)?;
        self.pointers.get(ty).map(|p| p.0)
    }

    /// The value may hold an address (64 bits or wider, or a pointer).
    fn is_wide(&self, value: Word) -> bool {
        self.types
            .get(&value)
            .and_then(|t| self.wide_types.get(t))
            .copied()
            .unwrap_or(true)
    }
}

const PUSH: u32 = StorageClass::PushConstant as u32;
const PSB: u32 = StorageClass::PhysicalStorageBuffer as u32;

fn is_cell(storage: u32) -> bool {
    storage == StorageClass::Function as u32
        || storage == StorageClass::Private as u32
        || storage == StorageClass::Workgroup as u32
}

/// Memory an access through the pointer goes to: device memory the
/// analysis does not model as cells.
fn is_device_memory(storage: Option<u32>) -> bool {
    match storage {
        Some(s) => !is_cell(s) && s != PUSH && s != StorageClass::Input as u32,
        None => false,
    }
}

struct Analysis<'m, 'a> {
    m: &'m Module<'a>,
    kernel: &'m KernelInfo,
    /// Functions the entry point reaches.
    reached: Vec<Word>,
    prov: HashMap<Word, Prov>,
    /// Pointers into cells: the variables they may point into.
    roots: HashMap<Word, Vec<Word>>,
    cells: HashMap<Word, Prov>,
    /// Pointers into the push-constant block: the word they address, when
    /// it is a constant.
    push_words: HashMap<Word, Option<u64>>,
    returns: HashMap<Word, Prov>,
    written: u64,
    all: bool,
    changed: bool,
}

impl<'m, 'a> Analysis<'m, 'a> {
    fn new(m: &'m Module<'a>, kernel: &'m KernelInfo) -> Option<Analysis<'m, 'a>> {
        let entry = *m.entries.get(&kernel.name)?;
        let mut reached = vec![entry];
        let mut i = 0;
        while let Some(&f) = reached.get(i) {
            i += 1;
            let body = m.functions.get(&f)?.body.clone();
            for inst in &m.insts[body] {
                if inst.op == Op::FunctionCall as u32 {
                    let callee = inst.word(3)?;
                    if !reached.contains(&callee) {
                        reached.push(callee);
                    }
                }
            }
        }
        let mut a = Analysis {
            m,
            kernel,
            reached,
            prov: HashMap::default(),
            roots: HashMap::default(),
            cells: HashMap::default(),
            push_words: HashMap::default(),
            returns: HashMap::default(),
            written: 0,
            all: false,
            changed: false,
        };
        for (&id, &storage) in &m.variables {
            if is_cell(storage) {
                a.roots.insert(id, vec![id]);
            }
        }
        Some(a)
    }

    fn run(mut self) -> Option<Written> {
        // Each round can only grow the facts, which are finite; the bound
        // only guards against a module this analysis misreads.
        for _ in 0..256 {
            self.changed = false;
            for f in self.reached.clone() {
                let body = self.m.functions.get(&f)?.body.clone();
                for inst in &self.m.insts[body] {
                    self.step(f, *inst);
                }
            }
            if self.all {
                return Some(Written::All);
            }
            if !self.changed {
                return Some(Written::Some(self.written));
            }
        }
        None
    }

    fn get(&self, id: Word) -> Prov {
        self.prov.get(&id).copied().unwrap_or_default()
    }

    fn add(&mut self, id: Word, p: Prov) {
        if p == Prov::default() {
            return;
        }
        let entry = self.prov.entry(id).or_default();
        let new = entry.union(p);
        if new != *entry {
            *entry = new;
            self.changed = true;
        }
    }

    fn add_roots(&mut self, id: Word, from: Word) {
        let Some(src) = self.roots.get(&from).cloned() else {
            return;
        };
        let dst = self.roots.entry(id).or_default();
        for r in src {
            if !dst.contains(&r) {
                dst.push(r);
                self.changed = true;
            }
        }
    }

    fn store_cells(&mut self, pointer: Word, p: Prov) {
        if p == Prov::default() {
            return;
        }
        for r in self.roots.get(&pointer).cloned().unwrap_or_default() {
            let cell = self.cells.entry(r).or_default();
            let new = cell.union(p);
            if new != *cell {
                *cell = new;
                self.changed = true;
            }
        }
    }

    fn load_cells(&self, pointer: Word) -> Prov {
        self.roots.get(&pointer).map_or(Prov::default(), |roots| {
            roots.iter().fold(Prov::default(), |acc, r| {
                acc.union(self.cells.get(r).copied().unwrap_or_default())
            })
        })
    }

    fn write_through(&mut self, pointer: Prov) {
        self.written |= pointer.args;
        if pointer.foreign || pointer.block {
            self.all = true;
        }
    }

    fn escape(&mut self, value: Prov) {
        self.written |= value.args;
    }

    /// Whatever a 32-bit word of the launch block at `byte` (relative to
    /// the start of the arguments) carries.
    fn argument_word(&self, byte: u64) -> Prov {
        for (i, arg) in self.kernel.args.iter().enumerate() {
            if arg.kind == ArgKind::LocalPointer {
                continue;
            }
            let start = u64::from(arg.offset);
            if byte < start || byte >= start + u64::from(arg.size) {
                continue;
            }
            return match arg.kind {
                ArgKind::Buffer | ArgKind::Image | ArgKind::Sampler => Prov {
                    args: arg_bit(i),
                    ..Prov::default()
                },
                // A by-value argument wide enough to hold an address.
                _ if arg.size >= 8 => Prov {
                    foreign: true,
                    ..Prov::default()
                },
                _ => Prov::default(),
            };
        }
        // The hidden arguments (global variable and printf buffers) are
        // ordered by the runtime on their own.
        Prov::default()
    }

    fn every_argument() -> Prov {
        Prov {
            args: u64::MAX,
            foreign: true,
            block: false,
        }
    }

    /// A load from the push-constant block at word `word`.
    fn push_word(&self, word: Option<u64>) -> Prov {
        let Some(word) = word else {
            return Self::every_argument();
        };
        let byte = word * 4;
        let block = self.kernel.arg_block;
        // The launch header, or the header buffer's address (whose loads
        // are 32-bit header words).
        let args = u64::from(block.args_offset());
        if byte < args {
            return Prov::default();
        }
        match block {
            ArgBlock::Push | ArgBlock::HeaderBuffer => self.argument_word(byte - args),
            ArgBlock::Buffer if byte < args + 8 => Prov {
                block: true,
                ..Prov::default()
            },
            ArgBlock::Buffer => Prov::default(),
        }
    }

    /// A load through a device pointer made from the integer `address`
    /// (`OpConvertUToPtr`), when that integer is the argument buffer's
    /// address plus a constant.
    fn argument_buffer_load(&self, address: Option<Word>) -> Prov {
        let offset = address.and_then(|a| self.constant_offset_from_block(a));
        match offset {
            Some(byte) => self.argument_word(byte),
            None => Self::every_argument(),
        }
    }

    fn constant_offset_from_block(&self, address: Word) -> Option<u64> {
        let only_block = Prov {
            block: true,
            ..Prov::default()
        };
        if self.get(address) == only_block && !self.is_sum(address) {
            return Some(0);
        }
        let inst = self.defining(address)?;
        if inst.op != Op::IAdd as u32 {
            return None;
        }
        let (x, y) = (inst.word(3)?, inst.word(4)?);
        let (base, c) = match (self.m.constants.get(&x), self.m.constants.get(&y)) {
            (None, Some(c)) => (x, *c),
            (Some(c), None) => (y, *c),
            _ => return None,
        };
        (self.get(base) == only_block && !self.is_sum(base)).then_some(c)
    }

    fn is_sum(&self, id: Word) -> bool {
        self.defining(id).is_some_and(|i| i.op == Op::IAdd as u32)
    }

    fn defining(&self, id: Word) -> Option<Inst<'a>> {
        self.m.defs.get(&id).map(|&i| self.m.insts[i])
    }

    fn step(&mut self, function: Word, inst: Inst<'a>) {
        let w = |i| inst.word(i).unwrap_or(0);
        let Some(op) = Op::from_u32(inst.op) else {
            // Unknown to this reader: it may do anything with its operands.
            self.all = true;
            return;
        };
        match op {
            Op::Variable => {
                if inst.words.len() > 4 {
                    let init = self.get(w(4));
                    self.store_cells(w(2), init);
                }
            }
            Op::AccessChain
            | Op::InBoundsAccessChain
            | Op::PtrAccessChain
            | Op::InBoundsPtrAccessChain => {
                let (id, base) = (w(2), w(3));
                if self.m.variables.get(&base) == Some(&PUSH) || self.push_words.contains_key(&base)
                {
                    // The launch block is `struct { uint words[]; }`.
                    let word = if self.push_words.contains_key(&base) {
                        None
                    } else {
                        match inst.words.get(4..) {
                            Some([zero, word]) if self.m.constants.get(zero) == Some(&0) => {
                                self.m.constants.get(word).copied()
                            }
                            _ => None,
                        }
                    };
                    if self.push_words.insert(id, word) != Some(word) {
                        self.changed = true;
                    }
                    return;
                }
                self.add_roots(id, base);
                self.generic(inst);
            }
            Op::Load | Op::AtomicLoad => self.load(w(2), w(3)),
            Op::Store | Op::AtomicStore => {
                let (pointer, value) = if op == Op::Store {
                    (w(1), w(2))
                } else {
                    (w(1), w(4))
                };
                self.store(pointer, self.get(value));
            }
            Op::CopyMemory | Op::CopyMemorySized => {
                let (target, source) = (w(1), w(2));
                let mut content = self.load_cells(source);
                if !self.roots.contains_key(&source) {
                    content = content.union(Prov {
                        foreign: true,
                        ..Prov::default()
                    });
                }
                self.store(target, content);
            }
            Op::FunctionCall => {
                let callee = w(3);
                let Some(params) = self.m.functions.get(&callee).map(|f| f.params.clone()) else {
                    self.all = true;
                    return;
                };
                for (param, arg) in params.iter().zip(inst.words.iter().skip(4)) {
                    let p = self.get(*arg);
                    self.add(*param, p);
                    self.add_roots(*param, *arg);
                }
                let r = self.returns.get(&callee).copied().unwrap_or_default();
                self.add(w(2), r);
            }
            Op::ReturnValue => {
                let p = self.get(w(1));
                let entry = self.returns.entry(function).or_default();
                let new = entry.union(p);
                if new != *entry {
                    *entry = new;
                    self.changed = true;
                }
            }
            Op::AtomicFlagClear => self.store(w(1), Prov::default()),
            _ if is_atomic_update(op) => {
                // Result type, result, pointer, scope, semantics, values.
                let pointer = w(3);
                let values = inst
                    .words
                    .iter()
                    .skip(6)
                    .fold(Prov::default(), |acc, v| acc.union(self.get(*v)));
                self.store(pointer, values);
                self.load(w(2), pointer);
            }
            _ => {
                if inst.typed_result {
                    for operand in inst.words.iter().skip(3) {
                        self.add_roots(w(2), *operand);
                    }
                    self.generic(inst);
                } else if writes_memory(op) {
                    // Image and other stores: the first operand is where,
                    // the rest may be stored.
                    let target = self.get(w(1));
                    self.write_through(target);
                    let values = inst
                        .words
                        .iter()
                        .skip(2)
                        .fold(Prov::default(), |acc, v| acc.union(self.get(*v)));
                    self.escape(values);
                }
            }
        }
    }

    /// A value computed from its operands: their union.
    fn generic(&mut self, inst: Inst<'a>) {
        let Some(id) = inst.word(2) else {
            return;
        };
        let p = inst
            .words
            .iter()
            .skip(3)
            .fold(Prov::default(), |acc, v| acc.union(self.get(*v)));
        self.add(id, p);
    }

    fn load(&mut self, result: Word, pointer: Word) {
        if let Some(word) = self.push_words.get(&pointer).copied() {
            let p = self.push_word(word);
            self.add(result, p);
            return;
        }
        if self.m.variables.get(&pointer) == Some(&PUSH) {
            self.add(result, Self::every_argument());
            return;
        }
        let cells = self.load_cells(pointer);
        self.add(result, cells);
        let storage = self.m.storage_class(pointer);
        if storage == Some(PSB) || (storage.is_none() && !self.roots.contains_key(&pointer)) {
            let through = self.get(pointer);
            if through.block {
                let address = self.address_of(pointer);
                let p = self.argument_buffer_load(address);
                self.add(result, p);
            } else if self.m.is_wide(result) {
                self.add(
                    result,
                    Prov {
                        foreign: true,
                        ..Prov::default()
                    },
                );
            }
        } else if is_device_memory(storage) && self.m.is_wide(result) {
            self.add(
                result,
                Prov {
                    foreign: true,
                    ..Prov::default()
                },
            );
        }
    }

    /// The integer a device pointer was made from by `OpConvertUToPtr`.
    fn address_of(&self, pointer: Word) -> Option<Word> {
        let inst = self.defining(pointer)?;
        (inst.op == Op::ConvertUToPtr as u32)
            .then(|| inst.word(3))
            .flatten()
    }

    fn store(&mut self, pointer: Word, value: Prov) {
        if self.roots.contains_key(&pointer) {
            self.store_cells(pointer, value);
            return;
        }
        let storage = self.m.storage_class(pointer);
        if storage.is_some_and(is_cell) {
            // A cell pointer the analysis lost track of.
            self.all = true;
            return;
        }
        let target = self.get(pointer);
        self.write_through(target);
        self.escape(value);
    }
}

fn is_atomic_update(op: Op) -> bool {
    matches!(
        op,
        Op::AtomicExchange
            | Op::AtomicCompareExchange
            | Op::AtomicCompareExchangeWeak
            | Op::AtomicIIncrement
            | Op::AtomicIDecrement
            | Op::AtomicIAdd
            | Op::AtomicISub
            | Op::AtomicSMin
            | Op::AtomicUMin
            | Op::AtomicSMax
            | Op::AtomicUMax
            | Op::AtomicAnd
            | Op::AtomicOr
            | Op::AtomicXor
            | Op::AtomicFlagTestAndSet
            | Op::AtomicFMinEXT
            | Op::AtomicFMaxEXT
            | Op::AtomicFAddEXT
    )
}

/// Instructions without a result that write memory through their first
/// operand.
fn writes_memory(op: Op) -> bool {
    matches!(
        op,
        Op::ImageWrite | Op::CooperativeMatrixStoreKHR | Op::CooperativeMatrixStoreNV
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{compile, CompileRequest, CompiledProgram, TargetCaps};

    /// The written flags of kernel `name` in `source`, built with `options`.
    fn build(source: &str, options: &str, caps: &TargetCaps) -> CompiledProgram {
        compile(
            &CompileRequest {
                source,
                options,
                headers: &[],
            },
            caps,
        )
        .unwrap_or_else(|e| panic!("build failed:\n{}", e.log))
    }

    fn written_with(source: &str, options: &str, caps: &TargetCaps, name: &str) -> Vec<bool> {
        let program = build(source, options, caps);
        let kernel = program
            .kernels
            .iter()
            .find(|k| k.name == name)
            .expect("kernel");
        written_arguments(&program.spirv, kernel)
    }

    fn written(source: &str) -> Vec<bool> {
        written_with(source, "", &TargetCaps::default(), "k")
    }

    fn written_cl3(source: &str) -> Vec<bool> {
        let caps = TargetCaps {
            features: vec![
                "__opencl_c_program_scope_global_variables".into(),
                "__opencl_c_generic_address_space".into(),
            ],
            ..TargetCaps::default()
        };
        written_with(source, "-cl-std=CL3.0", &caps, "k")
    }

    #[test]
    fn loads_are_not_writes() {
        let src = "__kernel void k(__global const float *in, __global float *scratch,
                                    __global float *out, float s, uint n) {
            size_t i = get_global_id(0);
            if (i < n) out[i] = in[i] * s + scratch[i];
        }";
        assert_eq!(written(src), [false, false, true, false, false]);
        let two = "__kernel void k(__global const float *a, __global float *b) { b[0] = a[0]; }
            __kernel void j(__global float *a, __global const float *b) { a[0] = b[0]; }";
        let program = compile(
            &CompileRequest {
                source: two,
                options: "",
                headers: &[],
            },
            &TargetCaps::default(),
        )
        .expect("build");
        for kernel in &program.kernels {
            let expected = if kernel.name == "k" {
                [false, true]
            } else {
                [true, false]
            };
            assert_eq!(
                written_arguments(&program.spirv, kernel),
                expected,
                "{}",
                kernel.name
            );
        }
        // An argument the kernel never uses, as in an empty kernel.
        let src = "__kernel void k(__global uint *unused) { }";
        assert_eq!(written(src), [false]);
    }

    #[test]
    fn stores_through_derived_pointers_are_writes() {
        let src = "__kernel void k(__global float *a, __global float *b, int c) {
            __global float *p = c ? a + 4 : b;
            p[get_global_id(0)] = 1.0f;
        }";
        assert_eq!(written(src), [true, true, false]);
        let src = "__kernel void k(__global const uint *idx, __global float4 *out,
                                    __global const float4 *in) {
            size_t i = get_global_id(0);
            vstore4(in[i], idx[i], (__global float *)out);
        }";
        assert_eq!(written(src), [false, true, false]);
    }

    #[test]
    fn indices_loaded_from_memory_do_not_make_a_store_untraced() {
        let src = "__kernel void k(__global const int *idx, __global const float *f,
                                    __global float *out, __global const float *in) {
            size_t i = get_global_id(0);
            out[idx[i] + (int)f[i]] = in[i];
        }";
        assert_eq!(written(src), [false, false, true, false]);
        // A 64-bit index may be an address: every buffer counts as written.
        let src = "__kernel void k(__global const long *idx, __global float *out,
                                    __global const float *in) {
            size_t i = get_global_id(0);
            out[idx[i]] = in[i];
        }";
        assert_eq!(written(src), [true, true, true]);
    }

    #[test]
    fn atomics_are_writes() {
        let src = "__kernel void k(__global int *count, __global const int *v) {
            atomic_add(&count[1], v[get_global_id(0)]);
        }";
        assert_eq!(written(src), [true, false]);
        let src = "__kernel void k(__global int *count, __global const int *v) {
            int old = atomic_cmpxchg(count, 0, 1);
            if (old == v[0]) { }
        }";
        assert_eq!(written(src), [true, false]);
    }

    #[test]
    fn a_pointer_cast_to_an_integer_and_back_is_followed() {
        let src = "__kernel void k(__global float *a, __global float *b) {
            ulong bits = (ulong)a + 8;
            __global float *p = (__global float *)bits;
            *p = b[0];
        }";
        assert_eq!(written(src), [true, false]);
    }

    #[test]
    fn a_pointer_stored_to_memory_escapes() {
        // As an integer into a buffer.
        let src = "__kernel void k(__global float *a, __global ulong *slots) {
            slots[get_global_id(0)] = (ulong)a;
        }";
        assert_eq!(written(src), [true, true]);
        // Into `__local` memory and used from there.
        let src = "__kernel void k(__global float *a, __global float *b) {
            __local ulong slot;
            if (get_local_id(0) == 0) slot = (ulong)a;
            barrier(CLK_LOCAL_MEM_FENCE);
            ((__global float *)slot)[get_local_id(0)] = b[0];
        }";
        assert_eq!(written(src), [true, false]);
        // Into a program-scope pointer variable; the store through it is
        // not followed, so it writes every buffer.
        let src = "__global float *saved;
            __kernel void k(__global float *a, __global const float *b) {
                saved = a;
                saved[0] = b[0] + 1.0f;
            }";
        assert_eq!(written_cl3(src), [true, true]);
        // Only stored: still counted, since a later access is not followed.
        let src = "__global float *saved;
            __kernel void k(__global float *a) { saved = a; }";
        assert_eq!(written_cl3(src), [true]);
    }

    #[test]
    fn a_store_through_an_untraced_pointer_writes_every_buffer() {
        // A pointer loaded from device memory may point into any argument.
        let src = "__kernel void k(__global const float *a, __global const ulong *table) {
            __global float *p = (__global float *)table[0];
            *p = 1.0f;
        }";
        assert_eq!(written(src), [true, true]);
        let src = "__global float *saved;
            __kernel void k(__global const float *a) { saved[0] = a[0]; }";
        assert_eq!(written_cl3(src), [true]);
        // A by-value argument wide enough to be an address.
        let src = "__kernel void k(__global const float *a, ulong address) {
            *(__global float *)address = a[0];
        }";
        assert_eq!(written(src), [true, false]);
    }

    #[test]
    fn generic_pointers_are_followed() {
        let src = "void put(float *p, float v) { *p = v; }
            __kernel void k(__global float *a, __global const float *b) {
                float *g = a;
                put(g + get_global_id(0), b[0]);
            }";
        assert_eq!(written_cl3(src), [true, false]);
    }

    /// A kernel of `n` pointer arguments writing `a6` from `a0` and
    /// `a{n-1}`: which arguments the analysis finds written.
    fn written_of_many_pointers(n: usize, block: ArgBlock) -> Vec<bool> {
        let params: Vec<String> = (0..n).map(|i| format!("__global float *a{i}")).collect();
        let src = format!(
            "__kernel void k({}) {{
                size_t i = get_global_id(0);
                a6[i] = a0[i] + a{}[i] * (float)get_global_size(0);
            }}",
            params.join(", "),
            n - 1
        );
        let caps = TargetCaps {
            header_buffer: block == ArgBlock::HeaderBuffer,
            ..TargetCaps::default()
        };
        let program = build(&src, "", &caps);
        assert_eq!(program.kernels[0].arg_block, block);
        written_arguments(&program.spirv, &program.kernels[0])
    }

    #[test]
    fn arguments_in_the_argument_buffer_are_told_apart() {
        // Sixteen pointers do not fit in 128 bytes of push constants, even
        // with the launch header out of them.
        let mut expected = vec![false; 16];
        expected[6] = true;
        assert_eq!(written_of_many_pointers(16, ArgBlock::Buffer), expected);
    }

    #[test]
    fn arguments_after_the_header_address_are_told_apart() {
        // Nine pointers fit in 128 bytes of push constants after the 32
        // bytes that stay there when the header moves to a buffer, not
        // after the whole header.
        let mut expected = vec![false; 9];
        expected[6] = true;
        assert_eq!(
            written_of_many_pointers(9, ArgBlock::HeaderBuffer),
            expected
        );
    }

    #[test]
    fn an_unreadable_module_writes_everything() {
        let src = "__kernel void k(__global const float *a) { }";
        let program = build(src, "", &TargetCaps::default());
        let kernel = &program.kernels[0];
        assert_eq!(written_arguments(&program.spirv, kernel), [false]);
        assert_eq!(written_arguments(&program.spirv[..3], kernel), [true]);
        let mut renamed = kernel.clone();
        renamed.name = "other".into();
        assert_eq!(written_arguments(&program.spirv, &renamed), [true]);
    }

    /// A module whose kernel passes its first argument to a function the
    /// module keeps (not inlined), which stores through it; `call_unknown`
    /// calls an id that is no function instead.
    fn module_with_call(call_unknown: bool) -> (Vec<u32>, KernelInfo) {
        use rspirv::spirv::{AddressingModel, Capability, ExecutionModel, FunctionControl};
        use rspirv::spirv::{MemoryModel, StorageClass as Sc};
        let mut b = rspirv::dr::Builder::new();
        b.capability(Capability::Shader);
        b.capability(Capability::Int64);
        b.capability(Capability::PhysicalStorageBufferAddresses);
        b.memory_model(
            AddressingModel::PhysicalStorageBuffer64,
            MemoryModel::Vulkan,
        );
        let void = b.type_void();
        let u32t = b.type_int(32, 0);
        let u64t = b.type_int(64, 0);
        let f32t = b.type_float(32, None);
        let words = b.constant_bit32(u32t, 20);
        let arr = b.type_array(u32t, words);
        let block = b.type_struct(vec![arr]);
        let push_ptr = b.type_pointer(None, Sc::PushConstant, block);
        let push_u32 = b.type_pointer(None, Sc::PushConstant, u32t);
        let psb_f32 = b.type_pointer(None, Sc::PhysicalStorageBuffer, f32t);
        let push = b.variable(push_ptr, None, Sc::PushConstant, None);
        let zero = b.constant_bit32(u32t, 0);
        let shift = b.constant_bit64(u64t, 32);
        let one = b.constant_bit32(f32t, 1.0f32.to_bits());
        let c = |v: u32, b: &mut rspirv::dr::Builder| b.constant_bit32(u32t, v);
        let w16 = c(16, &mut b);
        let w17 = c(17, &mut b);
        let w18 = c(18, &mut b);
        let w19 = c(19, &mut b);
        let store_ty = b.type_function(void, vec![u64t]);
        let main_ty = b.type_function(void, vec![]);
        // void put(ulong address) { *(float *)address = 1.0f; }
        let put = b
            .begin_function(void, None, FunctionControl::NONE, store_ty)
            .unwrap();
        let param = b.function_parameter(u64t).unwrap();
        b.begin_block(None).unwrap();
        let p = b.convert_u_to_ptr(psb_f32, None, param).unwrap();
        let aligned = rspirv::spirv::MemoryAccess::ALIGNED;
        b.store(
            p,
            one,
            Some(aligned),
            vec![rspirv::dr::Operand::LiteralBit32(4)],
        )
        .unwrap();
        b.ret().unwrap();
        b.end_function().unwrap();
        let main = b
            .begin_function(void, None, FunctionControl::NONE, main_ty)
            .unwrap();
        b.begin_block(None).unwrap();
        let address = |lo: u32, hi: u32, b: &mut rspirv::dr::Builder| {
            let lo_ptr = b
                .access_chain(push_u32, None, push, vec![zero, lo])
                .unwrap();
            let hi_ptr = b
                .access_chain(push_u32, None, push, vec![zero, hi])
                .unwrap();
            let lo = b.load(u32t, None, lo_ptr, None, vec![]).unwrap();
            let hi = b.load(u32t, None, hi_ptr, None, vec![]).unwrap();
            let lo = b.u_convert(u64t, None, lo).unwrap();
            let hi = b.u_convert(u64t, None, hi).unwrap();
            let hi = b.shift_left_logical(u64t, None, hi, shift).unwrap();
            b.bitwise_or(u64t, None, lo, hi).unwrap()
        };
        let a = address(w16, w17, &mut b);
        let second = address(w18, w19, &mut b);
        let p = b.convert_u_to_ptr(psb_f32, None, second).unwrap();
        b.load(
            f32t,
            None,
            p,
            Some(aligned),
            vec![rspirv::dr::Operand::LiteralBit32(4)],
        )
        .unwrap();
        let callee = if call_unknown { one } else { put };
        b.function_call(void, None, callee, vec![a]).unwrap();
        b.ret().unwrap();
        b.end_function().unwrap();
        b.entry_point(ExecutionModel::GLCompute, main, "k", vec![push]);
        let arg = |name: &str, offset: u32| crate::KernelArg {
            name: name.into(),
            type_name: "float*".into(),
            address_qualifier: crate::AddressQualifier::Global,
            access_qualifier: crate::AccessQualifier::None,
            type_qualifier: 0,
            kind: ArgKind::Buffer,
            offset,
            size: 8,
            local_size_spec_id: None,
        };
        let mut kernel = program_kernel();
        kernel.args = vec![arg("a", 0), arg("b", 8)];
        kernel.args_size = 16;
        use rspirv::binary::Assemble;
        (b.module().assemble(), kernel)
    }

    /// A kernel description to edit, taken from a real build.
    fn program_kernel() -> KernelInfo {
        compile(
            &CompileRequest {
                source: "__kernel void k(__global float *a, __global float *b) { }",
                options: "",
                headers: &[],
            },
            &TargetCaps::default(),
        )
        .expect("build")
        .kernels
        .remove(0)
    }

    #[test]
    fn calls_pass_provenance_to_functions_kept_in_the_module() {
        let (words, kernel) = module_with_call(false);
        assert_eq!(written_arguments(&words, &kernel), [true, false]);
        let (words, kernel) = module_with_call(true);
        assert_eq!(written_arguments(&words, &kernel), [true, true]);
    }
}
