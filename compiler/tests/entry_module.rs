//! A kernel's own module cut from its program's: valid SPIR-V, one entry
//! point, and nothing of the other kernels.

mod common;

use ferrocl_compiler::arg_writes::written_arguments;
use ferrocl_compiler::entry_module::{module_for_entry, ModuleIndex};
use ferrocl_compiler::CompiledProgram;
use rspirv::dr::{self, Operand};
use rspirv::spirv::{ExecutionMode, Op};

const PROGRAM: &str = r#"
typedef struct { float scale; int shift; } params;

float helper(float x, params p) { return x * p.scale + (float)p.shift; }

__kernel void uses_helper(__global float *out, params p) {
    size_t i = get_global_id(0);
    out[i] = helper(out[i], p);
}

__kernel __attribute__((reqd_work_group_size(64, 1, 1)))
void fixed_group(__global int *out, __local int *tmp) {
    uint l = get_local_id(0);
    tmp[l] = (int)l;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = tmp[63 - l];
}

__kernel void with_double(__global double *out) {
    out[get_global_id(0)] = sqrt((double)get_global_id(0));
}
"#;

fn build_program() -> CompiledProgram {
    let mut caps = common::caps();
    caps.fp64 = true;
    common::build_caps(PROGRAM, &caps)
}

fn entry_names(module: &dr::Module) -> Vec<String> {
    module.entry_points.iter().map(entry_name).collect()
}

fn entry_name(e: &dr::Instruction) -> String {
    match e.operands.get(2) {
        Some(Operand::LiteralString(name)) => name.clone(),
        _ => String::new(),
    }
}

fn opcodes(module: &dr::Module, op: Op) -> usize {
    module
        .functions
        .iter()
        .flat_map(|f| &f.blocks)
        .flat_map(|b| &b.instructions)
        .chain(&module.types_global_values)
        .filter(|i| i.class.opcode == op)
        .count()
}

#[test]
fn each_kernel_gets_a_valid_module_of_its_own() {
    let program = build_program();
    let whole = dr::load_words(&program.spirv).unwrap();
    assert_eq!(entry_names(&whole).len(), 3);
    for kernel in &program.kernels {
        let cut = module_for_entry(&program.spirv, &kernel.name)
            .unwrap_or_else(|| panic!("no module for {}", kernel.name));
        common::validate(&cut);
        assert!(
            cut.len() < program.spirv.len(),
            "{}: {} words, the whole module {}",
            kernel.name,
            cut.len(),
            program.spirv.len()
        );
        let module = dr::load_words(&cut).unwrap();
        assert_eq!(entry_names(&module), vec![kernel.name.clone()]);
        assert_eq!(module.execution_modes.len(), {
            let entry = whole
                .entry_points
                .iter()
                .find(|e| entry_name(e) == kernel.name)
                .and_then(|e| e.operands[1].id_ref_any())
                .unwrap();
            whole
                .execution_modes
                .iter()
                .filter(|m| m.operands[0].id_ref_any() == Some(entry))
                .count()
        });
    }
}

#[test]
fn a_kernel_keeps_what_it_uses_and_loses_what_it_does_not() {
    let program = build_program();
    let whole = dr::load_words(&program.spirv).unwrap();
    let module =
        |name: &str| dr::load_words(module_for_entry(&program.spirv, name).unwrap()).unwrap();

    // The double-precision kernel's float64 type goes with it.
    let float_types = |m: &dr::Module| {
        m.types_global_values
            .iter()
            .filter(|i| i.class.opcode == Op::TypeFloat)
            .filter(|i| i.operands.first() == Some(&Operand::LiteralBit32(64)))
            .count()
    };
    assert_eq!(float_types(&whole), 1);
    assert_eq!(float_types(&module("with_double")), 1);
    assert_eq!(float_types(&module("uses_helper")), 0);

    // Only the kernel with local memory keeps a Workgroup variable, and
    // its fixed work-group size stays.
    let workgroup_vars = |m: &dr::Module| {
        m.types_global_values
            .iter()
            .filter(|i| i.class.opcode == Op::Variable)
            .filter(|i| {
                i.operands.first()
                    == Some(&Operand::StorageClass(
                        rspirv::spirv::StorageClass::Workgroup,
                    ))
            })
            .count()
    };
    assert!(workgroup_vars(&module("fixed_group")) >= 1);
    assert_eq!(workgroup_vars(&module("uses_helper")), 0);
    assert_eq!(workgroup_vars(&module("with_double")), 0);
    let fixed = module("fixed_group");
    let sizes: Vec<_> = fixed
        .execution_modes
        .iter()
        .chain(&fixed.types_global_values)
        .filter(|i| {
            i.operands.get(1) == Some(&Operand::ExecutionMode(ExecutionMode::LocalSize))
                || i.class.opcode == Op::SpecConstantComposite
                || i.class.opcode == Op::ConstantComposite
        })
        .collect();
    assert!(!sizes.is_empty(), "the fixed work-group size was lost");

    // A kernel keeps as many barriers and calls as it had.
    assert_eq!(opcodes(&fixed, Op::ControlBarrier), 1);
    assert!(opcodes(&whole, Op::ControlBarrier) >= 1);
}

#[test]
fn modules_it_cannot_cut_are_left_whole() {
    let program = common::build("__kernel void k(__global int *p) { p[0] = 1; }");
    assert!(module_for_entry(&program.spirv, "not_a_kernel").is_none());
    assert!(module_for_entry(&[], "k").is_none());
    assert!(module_for_entry(&[0x0723_0203, 1, 2, 3], "k").is_none());
    let mut unbounded = program.spirv.clone();
    unbounded[3] = u32::MAX;
    assert!(module_for_entry(&unbounded, "k").is_none());
    // Instructions of every length the module's words can be cut into,
    // read from any offset: never a panic.
    for skip in 0..program.spirv.len().min(64) {
        let mut shifted = program.spirv[..5].to_vec();
        shifted.extend_from_slice(&program.spirv[5 + skip..]);
        let _ = module_for_entry(&shifted, "k");
    }
    let mut truncated = program.spirv.clone();
    truncated.truncate(program.spirv.len() - 3);
    assert!(module_for_entry(&truncated, "k").is_none());
    // A one-kernel program cuts to a module as valid as the whole.
    let cut = module_for_entry(&program.spirv, "k").unwrap();
    common::validate(&cut);
    // An index cuts only the words it was made from.
    let index = ModuleIndex::new(&program.spirv).unwrap();
    assert!(index.cut(&truncated, "k").is_none());
    assert!(index.cut(&[], "k").is_none());
}

#[path = "../benches/programs/mod.rs"]
#[allow(dead_code)]
mod programs;

/// Every kernel of larger programs (the compile benchmark's 48 kernels with
/// structs, helpers, local memory and switches; the fuzzing seeds with
/// printf, unions and async copies) cuts to a valid module whose entry point
/// is that kernel, and together the cuts hold no more functions than the
/// kernels reach.
#[test]
fn every_kernel_of_larger_programs_cuts_to_a_valid_module() {
    let mut sources = vec![
        programs::large_program(600),
        programs::CTS_KERNEL.to_string(),
    ];
    for seed in ["memory.cl", "semantics.cl"] {
        let path = format!("{}/tests/seeds/{seed}", env!("CARGO_MANIFEST_DIR"));
        sources.push(std::fs::read_to_string(path).unwrap());
    }
    for source in &sources {
        let program = common::build(source);
        assert!(!program.kernels.is_empty());
        let whole_functions = dr::load_words(&program.spirv).unwrap().functions.len();
        // One index serves every kernel's cut, as in the runtime.
        let index = ModuleIndex::new(&program.spirv).expect("index");
        for kernel in &program.kernels {
            let cut = index
                .cut(&program.spirv, &kernel.name)
                .unwrap_or_else(|| panic!("no module for {}", kernel.name));
            assert_eq!(
                Some(&cut),
                module_for_entry(&program.spirv, &kernel.name).as_ref()
            );
            common::validate(&cut);
            let module = dr::load_words(&cut).unwrap();
            assert_eq!(entry_names(&module), vec![kernel.name.clone()]);
            // The runtime reads which arguments a kernel writes from its
            // cut: the answer must be the whole module's.
            assert_eq!(
                written_arguments(&cut, kernel),
                written_arguments(&program.spirv, kernel),
                "{}",
                kernel.name
            );
            if program.kernels.len() > 1 {
                assert!(module.functions.len() < whole_functions);
            }
        }
    }
}
