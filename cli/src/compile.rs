//! `ferrocl compile`: the in-process OpenCL C compiler, offline. Prints the
//! build log and the reflection the runtime would use, and writes the SPIR-V
//! module.

use crate::args::CompileArgs;
use ferrocl_compiler::{
    AccessQualifier, AddressQualifier, ArgBlock, ArgKind, CompileRequest, KernelInfo, TargetCaps,
};
use std::fmt::Write as _;
use std::process::Command;

/// The capabilities to compile for: a device's, or a baseline Vulkan 1.2
/// device (what `TargetCaps::default()` describes, with
/// `FERROCL_OUTLINE_NODES` applied as for a device).
fn target_caps(device: Option<usize>) -> Result<(TargetCaps, String), String> {
    match device {
        None => {
            let caps = TargetCaps {
                outline_min_nodes: ferrocl_runtime::device::outline_min_nodes_setting(),
                ..TargetCaps::default()
            };
            Ok((caps, "baseline Vulkan 1.2 device".into()))
        }
        Some(index) => {
            let platform = ferrocl_runtime::platform::Platform::get();
            let devices = platform.devices();
            let device = devices.get(index).ok_or_else(|| {
                format!(
                    "no device {index}: ferrocl sees {} device(s) (see `ferrocl info`)",
                    devices.len()
                )
            })?;
            Ok((device.target_caps().clone(), device.info().name.clone()))
        }
    }
}

pub fn run(args: &CompileArgs) -> Result<(), String> {
    let source = std::fs::read_to_string(&args.input)
        .map_err(|e| format!("{}: {e}", args.input.display()))?;
    let (caps, target) = target_caps(args.device)?;
    // Relative #include paths resolve against the source's own directory, as
    // with a C compiler.
    let mut options = args.options.clone();
    if let Some(dir) = args.input.parent().filter(|d| !d.as_os_str().is_empty()) {
        options = format!("{options} -I \"{}\"", dir.display());
    }
    let request = CompileRequest {
        source: &source,
        options: &options,
        headers: &[],
    };
    println!("compiling {} for {target}", args.input.display());
    let program = match ferrocl_compiler::compile(&request, &caps) {
        Ok(program) => program,
        Err(error) => {
            eprint!("{}", with_newline(&error.log));
            return Err(if error.invalid_options {
                "invalid build options".into()
            } else {
                "build failed".into()
            });
        }
    };
    if !program.log.trim().is_empty() {
        eprint!("{}", with_newline(&program.log));
    }
    for kernel in &program.kernels {
        print!("{}", describe_kernel(kernel));
    }
    let output = args.output_path();
    let bytes: Vec<u8> = program.spirv.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(&output, &bytes).map_err(|e| format!("{}: {e}", output.display()))?;
    println!(
        "wrote {} ({} bytes of SPIR-V)",
        output.display(),
        bytes.len()
    );
    if args.disasm {
        match Command::new("spirv-dis").arg(&output).status() {
            Ok(status) if status.success() => {}
            Ok(status) => return Err(format!("spirv-dis failed ({status})")),
            Err(e) => eprintln!("--disasm: cannot run spirv-dis ({e}); install spirv-tools"),
        }
    }
    Ok(())
}

fn with_newline(text: &str) -> String {
    if text.ends_with('\n') {
        text.to_string()
    } else {
        format!("{text}\n")
    }
}

/// The reflection of one kernel as a few indented lines.
pub fn describe_kernel(kernel: &KernelInfo) -> String {
    let mut out = String::new();
    let block = match kernel.arg_block {
        ArgBlock::Push => "push constants",
        ArgBlock::Buffer => "argument buffer",
        ArgBlock::HeaderBuffer => "push constants, launch header in a buffer",
    };
    let _ = writeln!(
        out,
        "kernel {}: {} argument bytes in {block}",
        kernel.name, kernel.args_size
    );
    for (i, arg) in kernel.args.iter().enumerate() {
        let space = match arg.address_qualifier {
            AddressQualifier::Global => "__global ",
            AddressQualifier::Local => "__local ",
            AddressQualifier::Constant => "__constant ",
            AddressQualifier::Private => "",
        };
        let access = match arg.access_qualifier {
            AccessQualifier::ReadOnly => "read_only ",
            AccessQualifier::WriteOnly => "write_only ",
            AccessQualifier::ReadWrite => "read_write ",
            AccessQualifier::None => "",
        };
        let mut qualifiers = String::new();
        for (bit, name) in [
            (1, "const "),
            (2, "restrict "),
            (4, "volatile "),
            (8, "pipe "),
        ] {
            if arg.type_qualifier & bit != 0 {
                qualifiers.push_str(name);
            }
        }
        let placement = match arg.kind {
            ArgKind::LocalPointer => match arg.local_size_spec_id {
                Some(id) => format!("size from clSetKernelArg, spec constant {id}"),
                None => "size from clSetKernelArg".to_string(),
            },
            ArgKind::Image => "image".to_string(),
            ArgKind::Sampler => "sampler".to_string(),
            ArgKind::Buffer => format!("offset {}, device address", arg.offset),
            ArgKind::Value => format!("offset {}, {} bytes", arg.offset, arg.size),
        };
        let _ = writeln!(
            out,
            "  [{i}] {access}{space}{qualifiers}{} {}  ({placement})",
            arg.type_name, arg.name
        );
    }
    if let Some([x, y, z]) = kernel.reqd_work_group_size {
        let _ = writeln!(out, "  reqd_work_group_size({x}, {y}, {z})");
    }
    if let Some([x, y, z]) = kernel.work_group_size_hint {
        let _ = writeln!(out, "  work_group_size_hint({x}, {y}, {z})");
    }
    if let Some(hint) = &kernel.vec_type_hint {
        let _ = writeln!(out, "  vec_type_hint({hint})");
    }
    if kernel.static_local_mem_size > 0 {
        let _ = writeln!(
            out,
            "  {} bytes of __local variables",
            kernel.static_local_mem_size
        );
    }
    if kernel.private_mem_size > 0 {
        let _ = writeln!(
            out,
            "  {} bytes of private memory per work-item",
            kernel.private_mem_size
        );
    }
    if kernel.uses_printf {
        let _ = writeln!(out, "  calls printf");
    }
    if kernel.ignores_work_groups {
        let _ = writeln!(
            out,
            "  ignores its work-groups: one pipeline for every local size"
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferrocl_compiler::KernelArg;

    #[test]
    fn kernel_description_lists_arguments_in_order() {
        let kernel = KernelInfo {
            name: "reduce".into(),
            args: vec![
                KernelArg {
                    name: "in".into(),
                    type_name: "float*".into(),
                    address_qualifier: AddressQualifier::Global,
                    access_qualifier: AccessQualifier::None,
                    type_qualifier: 1,
                    kind: ArgKind::Buffer,
                    offset: 0,
                    size: 8,
                    local_size_spec_id: None,
                },
                KernelArg {
                    name: "scratch".into(),
                    type_name: "float*".into(),
                    address_qualifier: AddressQualifier::Local,
                    access_qualifier: AccessQualifier::None,
                    type_qualifier: 0,
                    kind: ArgKind::LocalPointer,
                    offset: 0,
                    size: 0,
                    local_size_spec_id: Some(3),
                },
                KernelArg {
                    name: "n".into(),
                    type_name: "uint".into(),
                    address_qualifier: AddressQualifier::Private,
                    access_qualifier: AccessQualifier::None,
                    type_qualifier: 0,
                    kind: ArgKind::Value,
                    offset: 8,
                    size: 4,
                    local_size_spec_id: None,
                },
            ],
            arg_block: ArgBlock::Push,
            args_size: 12,
            reqd_work_group_size: Some([64, 1, 1]),
            work_group_size_hint: None,
            vec_type_hint: None,
            attributes: String::new(),
            static_local_mem_size: 0,
            private_mem_size: 0,
            uses_printf: false,
            ignores_work_groups: false,
        };
        let text = describe_kernel(&kernel);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "kernel reduce: 12 argument bytes in push constants"
        );
        assert_eq!(
            lines[1],
            "  [0] __global const float* in  (offset 0, device address)"
        );
        assert_eq!(
            lines[2],
            "  [1] __local float* scratch  (size from clSetKernelArg, spec constant 3)"
        );
        assert_eq!(lines[3], "  [2] uint n  (offset 8, 4 bytes)");
        assert_eq!(lines[4], "  reqd_work_group_size(64, 1, 1)");
        assert_eq!(lines.len(), 5);
    }
}
