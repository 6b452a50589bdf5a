//! One kernel's own SPIR-V module, cut from its program's module.
//!
//! A program's module holds every kernel of the program and every function
//! they call. A Vulkan driver reads, and may compile, the whole module for
//! each pipeline: on an H200 (driver 580) creating the pipeline of a small
//! kernel took 5.1-5.5 ms from the module of a five-kernel program and
//! 3.8-4.2 ms from a module holding that kernel alone. So each pipeline is
//! made from a module holding only what its entry point reaches: its
//! function and the functions it calls, the types, constants and global
//! variables those use, and the names and decorations of what is kept.
//!
//! The cut works on the words, not on a parsed module, so that it costs
//! little next to the driver's compile even for programs of many kernels;
//! what it keeps of types, constants and variables may be a little more
//! than needed (any word of a kept instruction that is an id of one keeps
//! it), never less. It never changes what the kernel does: everything the
//! entry point can reach stays, and so does a `WorkgroupSize` built-in,
//! which sets the work-group size of every entry point whether or not code
//! reads it.

use crate::spirv_words::{instruction_spans, literal_string, Layouts};

const MAGIC: u32 = 0x0723_0203;

// Opcodes and enumerants (SPIR-V 1.6 specification).
const OP_SOURCE_CONTINUED: u32 = 2;
const OP_SOURCE: u32 = 3;
const OP_SOURCE_EXTENSION: u32 = 4;
const OP_NAME: u32 = 5;
const OP_MEMBER_NAME: u32 = 6;
const OP_STRING: u32 = 7;
const OP_EXTENSION: u32 = 10;
const OP_EXT_INST_IMPORT: u32 = 11;
const OP_MEMORY_MODEL: u32 = 14;
const OP_ENTRY_POINT: u32 = 15;
const OP_EXECUTION_MODE: u32 = 16;
const OP_CAPABILITY: u32 = 17;
const OP_TYPE_FORWARD_POINTER: u32 = 39;
const OP_FUNCTION: u32 = 54;
const OP_FUNCTION_END: u32 = 56;
const OP_FUNCTION_CALL: u32 = 57;
const OP_DECORATE: u32 = 71;
const OP_MEMBER_DECORATE: u32 = 72;
const OP_DECORATION_GROUP: u32 = 73;
const OP_GROUP_DECORATE: u32 = 74;
const OP_GROUP_MEMBER_DECORATE: u32 = 75;
const OP_MODULE_PROCESSED: u32 = 330;
const OP_EXECUTION_MODE_ID: u32 = 331;
const OP_DECORATE_ID: u32 = 332;
const OP_DECORATE_STRING: u32 = 5632;
const OP_MEMBER_DECORATE_STRING: u32 = 5633;
const DECORATION_BUILT_IN: u32 = 11;
const BUILT_IN_WORKGROUP_SIZE: u32 = 25;

/// Where one instruction lies in the module's words.
#[derive(Clone, Copy)]
struct Inst {
    at: usize,
    len: usize,
    op: u32,
}

/// What one instruction before the functions is, for the cut.
#[derive(Clone, Copy, PartialEq)]
enum Section {
    /// Capabilities, extensions, imports, the memory model, strings and
    /// sources: always kept.
    Kept,
    EntryPoint,
    ExecutionMode,
    /// `OpName`, `OpMemberName`: kept with their target.
    Name,
    /// Decorations: kept with their target.
    Annotation,
    /// Types, constants, global variables: kept when used.
    Global,
}

fn section(op: u32) -> Section {
    match op {
        OP_CAPABILITY | OP_EXTENSION | OP_EXT_INST_IMPORT | OP_MEMORY_MODEL | OP_STRING
        | OP_SOURCE | OP_SOURCE_CONTINUED | OP_SOURCE_EXTENSION | OP_MODULE_PROCESSED => {
            Section::Kept
        }
        OP_ENTRY_POINT => Section::EntryPoint,
        OP_EXECUTION_MODE | OP_EXECUTION_MODE_ID => Section::ExecutionMode,
        OP_NAME | OP_MEMBER_NAME => Section::Name,
        OP_DECORATE
        | OP_MEMBER_DECORATE
        | OP_DECORATE_ID
        | OP_DECORATE_STRING
        | OP_MEMBER_DECORATE_STRING => Section::Annotation,
        _ => Section::Global,
    }
}

/// The module of `spirv` cut down to what the entry point named `entry`
/// needs, as SPIR-V words; `None` when the words do not read as a module,
/// name no such entry point, or use decoration groups (which the compiler
/// never emits): then the whole module serves.
pub fn module_for_entry(spirv: &[u32], entry: &str) -> Option<Vec<u32>> {
    ModuleIndex::new(spirv)?.cut(spirv, entry)
}

/// What every cut of one module reads the same way, read once: its
/// instructions, its functions and the id each instruction before the
/// functions defines. Cutting each kernel of a 48-kernel program from
/// one index costs a fraction of cutting each from the words.
pub struct ModuleIndex {
    /// The length of the words indexed; a cut of other words is refused.
    len: usize,
    bound: usize,
    insts: Vec<Inst>,
    functions: Vec<Function>,
    /// Per instruction before the first function: the id it defines.
    results: Vec<Option<u32>>,
}

impl ModuleIndex {
    /// `None` when the words do not read as a module or use decoration
    /// groups.
    pub fn new(spirv: &[u32]) -> Option<ModuleIndex> {
        if spirv.len() < 5 || spirv[0] != MAGIC {
            return None;
        }
        let bound = spirv[3] as usize;
        // Every id is defined by an instruction of two words or more, so a
        // bound far past the length is not a module (and would size the id
        // sets after it).
        if bound > spirv.len() + 1 {
            return None;
        }
        let insts = instructions(spirv)?;
        if insts.iter().any(|i| {
            matches!(
                i.op,
                OP_DECORATION_GROUP | OP_GROUP_DECORATE | OP_GROUP_MEMBER_DECORATE
            )
        }) {
            return None;
        }
        let functions = functions(spirv, &insts)?;
        let first_function = functions.first().map_or(insts.len(), |f| f.start);
        let mut layouts = Layouts::default();
        let results = insts[..first_function]
            .iter()
            .map(|i| layouts.result_id(&spirv[i.at..i.at + i.len]))
            .collect();
        Some(ModuleIndex {
            len: spirv.len(),
            bound,
            insts,
            functions,
            results,
        })
    }

    /// [`module_for_entry`] from this index; `spirv` must be the words it
    /// was made from (`None` if their length differs).
    pub fn cut(&self, spirv: &[u32], entry: &str) -> Option<Vec<u32>> {
        if spirv.len() != self.len {
            return None;
        }
        let ModuleIndex {
            bound,
            insts,
            functions,
            results,
            ..
        } = self;
        let words = |i: &Inst| &spirv[i.at..i.at + i.len];
        let entry_point = insts.iter().find(|i| {
            i.op == OP_ENTRY_POINT && i.len > 3 && literal_string(&words(i)[3..]) == entry
        })?;
        let function = words(entry_point)[2];
        let reached = reachable(spirv, insts, functions, function)?;
        let kept_functions: Vec<&Function> = functions
            .iter()
            .filter(|f| reached.contains(&f.id))
            .collect();
        let before = &insts[..results.len()];

        let mut kept = Ids::new(*bound);
        let mut layouts = Layouts::default();
        // The entry point's function and interface variables (after its name).
        let name_words = words(entry_point)[3..]
            .iter()
            .position(|w| w.to_le_bytes().contains(&0))?
            + 1;
        for &id in &words(entry_point)[3 + name_words..] {
            kept.mark(id);
        }
        kept.mark(function);
        for i in before {
            let w = words(i);
            match section(i.op) {
                Section::ExecutionMode if w.get(1) == Some(&function) => {
                    kept.mark_all(&w[1..]);
                }
                Section::Annotation
                    if i.op == OP_DECORATE
                        && w.len() == 4
                        && w[2] == DECORATION_BUILT_IN
                        && w[3] == BUILT_IN_WORKGROUP_SIZE =>
                {
                    kept.mark(w[1]);
                }
                _ => {}
            }
        }
        // Every id a kept function's instructions name, and every id they
        // define (decorations and names of those stay).
        let mut defined = Ids::new(*bound);
        for f in &kept_functions {
            for i in &insts[f.start..f.end] {
                kept.mark_all(&words(i)[1..]);
                if let Some(id) = layouts.result_id(words(i)) {
                    defined.mark(id);
                }
            }
        }
        // Types, constants and variables name each other; a pointer type may
        // be used before its declaration (OpTypeForwardPointer), so one pass
        // may not be enough.
        let global_kept = |kept: &Ids, k: usize| {
            let i = &before[k];
            if i.op == OP_TYPE_FORWARD_POINTER {
                return words(i).get(1).is_some_and(|&id| kept.has(id));
            }
            results[k].is_none_or(|id| kept.has(id))
        };
        loop {
            let mut grew = false;
            for (k, i) in before.iter().enumerate().rev() {
                match section(i.op) {
                    Section::Global if global_kept(&kept, k) => {
                        grew |= kept.mark_all(&words(i)[1..]);
                    }
                    Section::Annotation if i.op == OP_DECORATE_ID => {
                        let w = words(i);
                        if w.len() > 3 && kept.has(w[1]) {
                            grew |= kept.mark_all(&w[3..]);
                        }
                    }
                    _ => {}
                }
            }
            if !grew {
                break;
            }
        }
        let globals: Vec<bool> = (0..before.len())
            .map(|k| section(before[k].op) == Section::Global && global_kept(&kept, k))
            .collect();
        for (k, &global) in globals.iter().enumerate() {
            if let (true, Some(id)) = (global, results[k]) {
                defined.mark(id);
            }
        }

        let mut out = Vec::with_capacity(spirv.len());
        out.extend_from_slice(&spirv[..5]);
        for (i, &global) in before.iter().zip(&globals) {
            let w = words(i);
            let keep = match section(i.op) {
                Section::Kept => true,
                Section::EntryPoint => i.at == entry_point.at,
                Section::ExecutionMode => w.get(1) == Some(&function),
                Section::Name | Section::Annotation => w.get(1).is_some_and(|&id| defined.has(id)),
                Section::Global => global,
            };
            if keep {
                out.extend_from_slice(w);
            }
        }
        for f in &kept_functions {
            for i in &insts[f.start..f.end] {
                out.extend_from_slice(words(i));
            }
        }
        Some(out)
    }
}

/// The instructions after the header; `None` if a word count runs past
/// the end or is zero.
fn instructions(spirv: &[u32]) -> Option<Vec<Inst>> {
    let spans = instruction_spans(spirv, 5)?;
    Some(
        spans
            .into_iter()
            .map(|(at, len)| Inst {
                at,
                len,
                op: spirv[at] & 0xffff,
            })
            .collect(),
    )
}

/// A function: its id and its instructions, `OpFunction` to
/// `OpFunctionEnd`, as a range of instruction indices.
struct Function {
    id: u32,
    start: usize,
    end: usize,
}

fn functions(spirv: &[u32], insts: &[Inst]) -> Option<Vec<Function>> {
    let mut functions = Vec::new();
    let mut open: Option<(u32, usize)> = None;
    for (k, i) in insts.iter().enumerate() {
        match i.op {
            OP_FUNCTION if i.len >= 3 && open.is_none() => open = Some((spirv[i.at + 2], k)),
            OP_FUNCTION => return None,
            OP_FUNCTION_END => {
                let (id, start) = open.take()?;
                functions.push(Function {
                    id,
                    start,
                    end: k + 1,
                });
            }
            _ if open.is_none() && !functions.is_empty() => return None,
            _ => {}
        }
    }
    open.is_none().then_some(functions)
}

/// The entry point's function and every function it calls, directly or
/// not; `None` if one of them is not defined in the module.
fn reachable(
    spirv: &[u32],
    insts: &[Inst],
    functions: &[Function],
    entry: u32,
) -> Option<Vec<u32>> {
    let mut reached = vec![entry];
    let mut todo = vec![entry];
    while let Some(id) = todo.pop() {
        let f = functions.iter().find(|f| f.id == id)?;
        for i in &insts[f.start..f.end] {
            if i.op != OP_FUNCTION_CALL || i.len < 4 {
                continue;
            }
            let callee = spirv[i.at + 3];
            if !reached.contains(&callee) {
                reached.push(callee);
                todo.push(callee);
            }
        }
    }
    Some(reached)
}

/// A set of ids below the module's bound.
struct Ids(Vec<bool>);

impl Ids {
    fn new(bound: usize) -> Ids {
        Ids(vec![false; bound])
    }

    fn has(&self, id: u32) -> bool {
        self.0.get(id as usize).copied().unwrap_or(false)
    }

    /// Adds `id` if it is one; true when it was not there yet.
    fn mark(&mut self, id: u32) -> bool {
        match self.0.get_mut(id as usize) {
            Some(slot) if id != 0 && !*slot => {
                *slot = true;
                true
            }
            _ => false,
        }
    }

    fn mark_all(&mut self, words: &[u32]) -> bool {
        let mut grew = false;
        for &w in words {
            grew |= self.mark(w);
        }
        grew
    }
}
