//! Arbitrary bytes as OpenCL C source. The compiler must answer every input
//! with a program or a build log: a panic, an abort or a hang is a bug.
//! Every kernel of a program that builds is also cut to its own module,
//! from one index of the program's (`entry_module`), and the arguments it
//! writes are read from that module (`arg_writes`), as the runtime does
//! when the kernel is created. Every third input is also built the way
//! the runtime's build cache builds it (`driver::preprocess`, then
//! `driver::compile_preprocessed`), which must give the same build.
//!
//! The device capabilities alternate with the input's length so that both
//! the minimal device (no fp64, no optional built-ins) and a rich one are
//! exercised without halving the execution rate.

#![no_main]

use ferrocl_compiler::arg_writes::written_arguments;
use ferrocl_compiler::driver::{compile_preprocessed, preprocess};
use ferrocl_compiler::entry_module::ModuleIndex;
use ferrocl_compiler::{compile, CompileRequest, TargetCaps};
use libfuzzer_sys::fuzz_target;

/// A device with `cl_khr_fp64`, sub-groups with clustered reductions,
/// integer dot products as SPIR-V dot instructions, extended bit
/// operations, kernel clocks and the extended work-group collectives, and
/// 64-bit rotates on halves (NVIDIA's), the launch header in a buffer
/// where that keeps the arguments in push constants; it also calls every
/// function it can as a SPIR-V function of its own (`outline_min_nodes`
/// 0), where the default device inlines them.
fn rich_caps() -> TargetCaps {
    let names = |list: &[&str]| list.iter().map(|s| s.to_string()).collect();
    TargetCaps {
        fp64: true,
        integer_dot_product: true,
        extensions: names(&[
            "cl_khr_fp64",
            "cl_khr_integer_dot_product",
            "cl_khr_subgroup_non_uniform_arithmetic",
            "cl_khr_subgroup_clustered_reduce",
            "cl_khr_extended_bit_ops",
            "cl_khr_kernel_clock",
            "cl_khr_work_group_uniform_arithmetic",
        ]),
        features: names(&[
            "__opencl_c_fp64",
            "__opencl_c_subgroups",
            "__opencl_c_integer_dot_product_input_4x8bit",
            "__opencl_c_integer_dot_product_input_4x8bit_packed",
            "__opencl_c_kernel_clock_scope_device",
            "__opencl_c_kernel_clock_scope_sub_group",
        ]),
        rotate64_in_halves: true,
        funnel_shift64: true,
        fused_fma: true,
        header_buffer: true,
        outline_min_nodes: 0,
        ..TargetCaps::default()
    }
}

fuzz_target!(|data: &[u8]| {
    let source = String::from_utf8_lossy(data);
    let caps = if data.len().is_multiple_of(2) {
        TargetCaps::default()
    } else {
        rich_caps()
    };
    let request = CompileRequest {
        source: &source,
        options: "",
        headers: &[],
    };
    let whole = compile(&request, &caps);
    // The runtime's build cache preprocesses first, keys the build by the
    // result and builds from it: that build must be the same, and hashing
    // it must not panic. Every third input, to keep the rate.
    if data.len().is_multiple_of(3) {
        if let Some(pre) = preprocess(&request, &caps) {
            let mut h = std::hash::DefaultHasher::new();
            pre.hash_tokens(&mut h);
            pre.hash_quoted_text(&mut h);
            assert_eq!(compile_preprocessed(&pre, &caps), whole);
        }
    }
    if let Ok(program) = whole {
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
