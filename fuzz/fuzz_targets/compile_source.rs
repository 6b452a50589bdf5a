//! Arbitrary bytes as OpenCL C source. The compiler must answer every input
//! with a program or a build log: a panic, an abort or a hang is a bug.
//!
//! The device capabilities alternate with the input's length so that both
//! the minimal device (no fp64) and one with `cl_khr_fp64` are exercised
//! without halving the execution rate.

#![no_main]

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
    let _ = compile(&request, &caps);
});
