//! Arbitrary bytes as OpenCL C source. The compiler must answer every input
//! with a program or a build log: a panic, an abort or a hang is a bug.
//! Every kernel of a program that builds is also cut to its own module,
//! from one index of the program's (`entry_module`), and the arguments it
//! writes are read from that module (`arg_writes`), as the runtime does
//! when the kernel is created.
//!
//! The device capabilities alternate with the input's length so that both
//! the minimal device (no fp64) and one with `cl_khr_fp64` are exercised
//! without halving the execution rate.

#![no_main]

use ferrocl_compiler::arg_writes::written_arguments;
use ferrocl_compiler::entry_module::ModuleIndex;
use ferrocl_compiler::{compile, CompileRequest, TargetCaps};
use libfuzzer_sys::fuzz_target;

fn fp64_caps() -> TargetCaps {
    TargetCaps {
        fp64: true,
        extensions: vec!["cl_khr_fp64".to_string()],
        features: vec!["__opencl_c_fp64".to_string()],
        ..TargetCaps::default()
    }
}

fuzz_target!(|data: &[u8]| {
    let source = String::from_utf8_lossy(data);
    let caps = if data.len().is_multiple_of(2) {
        TargetCaps::default()
    } else {
        fp64_caps()
    };
    let request = CompileRequest {
        source: &source,
        options: "",
        headers: &[],
    };
    if let Ok(program) = compile(&request, &caps) {
        // Each kernel's own module, which its pipelines are made from, is
        // cut from every program that builds, and analysed for the
        // arguments it writes: neither may panic.
        let index = ModuleIndex::new(&program.spirv);
        for kernel in &program.kernels {
            let cut = index
                .as_ref()
                .and_then(|index| index.cut(&program.spirv, &kernel.name));
            let _ = written_arguments(cut.as_deref().unwrap_or(&program.spirv), kernel);
        }
    }
});
