//! One kernel's own SPIR-V module, cut from its program's module.
//!
//! A program's module holds every kernel of the program and every function
//! they call. A Vulkan driver reads, and may compile, the whole module for
//! each pipeline: on an H100 (driver 580) creating the pipeline of a small
//! kernel from the module of a five-kernel program took 6.1-8.1 ms, and
//! 5.1-5.3 ms from a module holding that kernel alone. So each pipeline is
//! made from a module holding only what its entry point reaches: its
//! function and the functions it calls, the types, constants and variables
//! those use, and the names and decorations of what is kept.
//!
//! The cut never changes what the kernel does: everything the entry point
//! can reach stays, and so does a `WorkgroupSize` built-in, which sets the
//! work-group size of every entry point whether or not code reads it.

use rspirv::binary::Assemble;
use rspirv::dr::{self, Instruction, Operand};
use rspirv::spirv::{BuiltIn, Decoration, Op, Word};
use std::collections::HashSet;

/// The module of `spirv` cut down to what the entry point named `entry`
/// needs, as SPIR-V words; `None` when the words do not parse as a module
/// or name no such entry point (then the whole module serves).
pub fn module_for_entry(spirv: &[u32], entry: &str) -> Option<Vec<u32>> {
    let mut module = dr::load_words(spirv).ok()?;
    // Decoration groups apply decorations through ids the cut would have
    // to follow separately; the compiler emits none, so such a module
    // (from elsewhere) is left whole.
    if module
        .annotations
        .iter()
        .any(|a| a.class.opcode == Op::DecorationGroup)
    {
        return None;
    }
    let entry_point = module
        .entry_points
        .iter()
        .find(|e| matches!(e.operands.get(2), Some(Operand::LiteralString(n)) if n == entry))?
        .clone();
    let function = entry_point.operands.get(1)?.id_ref_any()?;

    let reached = reachable_functions(&module, function);
    module
        .functions
        .retain(|f| function_id(f).is_some_and(|id| reached.contains(&id)));
    module.entry_points = vec![entry_point];
    module
        .execution_modes
        .retain(|m| m.operands.first().and_then(Operand::id_ref_any) == Some(function));

    let mut kept = Kept::default();
    for inst in module
        .entry_points
        .iter()
        .chain(&module.execution_modes)
        .chain(&module.ext_inst_imports)
        .chain(&module.debug_string_source)
    {
        kept.mark_instruction(inst);
    }
    for f in &module.functions {
        let body = f.def.iter().chain(&f.parameters).chain(f.end.iter());
        let blocks = f
            .blocks
            .iter()
            .flat_map(|b| b.label.iter().chain(&b.instructions));
        for inst in body.chain(blocks) {
            kept.mark_instruction(inst);
        }
    }
    for a in &module.annotations {
        if let Some(target) = workgroup_size_builtin(a) {
            kept.ids.insert(target);
        }
    }
    kept.close_over(&module);

    module.types_global_values.retain(|inst| kept.global(inst));
    module
        .annotations
        .retain(|a| kept.has(a.operands.first().and_then(Operand::id_ref_any)));
    module
        .debug_names
        .retain(|n| kept.has(n.operands.first().and_then(Operand::id_ref_any)));
    Some(module.assemble())
}

fn function_id(f: &dr::Function) -> Option<Word> {
    f.def.as_ref().and_then(|d| d.result_id)
}

/// The entry point's function and every function it calls, directly or
/// not.
fn reachable_functions(module: &dr::Module, entry: Word) -> HashSet<Word> {
    let mut reached = HashSet::from([entry]);
    let mut todo = vec![entry];
    while let Some(id) = todo.pop() {
        let Some(f) = module.functions.iter().find(|f| function_id(f) == Some(id)) else {
            continue;
        };
        for inst in f.blocks.iter().flat_map(|b| &b.instructions) {
            if inst.class.opcode != Op::FunctionCall {
                continue;
            }
            if let Some(callee) = inst.operands.first().and_then(Operand::id_ref_any) {
                if reached.insert(callee) {
                    todo.push(callee);
                }
            }
        }
    }
    reached
}

/// `OpDecorate %id BuiltIn WorkgroupSize`: the constant it decorates.
fn workgroup_size_builtin(a: &Instruction) -> Option<Word> {
    match a.operands.as_slice() {
        [Operand::IdRef(id), Operand::Decoration(Decoration::BuiltIn), Operand::BuiltIn(BuiltIn::WorkgroupSize)] => {
            Some(*id)
        }
        _ => None,
    }
}

/// The ids the cut module keeps.
#[derive(Default)]
struct Kept {
    ids: HashSet<Word>,
}

impl Kept {
    fn has(&self, id: Option<Word>) -> bool {
        id.is_some_and(|id| self.ids.contains(&id))
    }

    /// Keeps what `inst` defines and every id it refers to.
    fn mark_instruction(&mut self, inst: &Instruction) -> bool {
        let mut grew = false;
        let refs = inst
            .result_id
            .into_iter()
            .chain(inst.result_type)
            .chain(inst.operands.iter().filter_map(Operand::id_ref_any));
        for id in refs {
            grew |= self.ids.insert(id);
        }
        grew
    }

    /// Whether a type, constant or global variable stays: one that defines
    /// a kept id, or an `OpTypeForwardPointer` of a kept pointer type.
    fn global(&self, inst: &Instruction) -> bool {
        match inst.result_id {
            Some(id) => self.ids.contains(&id),
            None if inst.class.opcode == Op::TypeForwardPointer => {
                self.has(inst.operands.first().and_then(Operand::id_ref_any))
            }
            None => true,
        }
    }

    /// Adds what the kept types, constants, variables and decorations
    /// refer to, until nothing more is added. A type may name a pointer
    /// type declared after it (`OpTypeForwardPointer`), so one pass in
    /// either order may not be enough.
    fn close_over(&mut self, module: &dr::Module) {
        loop {
            let mut grew = false;
            for inst in module.types_global_values.iter().rev() {
                if self.global(inst) {
                    grew |= self.mark_instruction(inst);
                }
            }
            for a in &module.annotations {
                if self.has(a.operands.first().and_then(Operand::id_ref_any)) {
                    grew |= self.mark_instruction(a);
                }
            }
            if !grew {
                break;
            }
        }
    }
}
