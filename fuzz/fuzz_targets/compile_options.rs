//! Arbitrary build options. The first line of the input is the options
//! string of `clBuildProgram`; the rest is the source (a small kernel that
//! uses macros and the language version when the input has no second line).
//! Bad options must come back as `invalid_options`, never a panic.

#![no_main]

use ferrocl_compiler::{compile, CompileRequest, Header, TargetCaps};
use libfuzzer_sys::fuzz_target;

const DEFAULT_SOURCE: &str = "#include \"h.h\"\n\
#ifndef N\n#define N 4\n#endif\n\
kernel void k(global float *o) {\n\
  int i = get_global_id(0);\n\
#if __OPENCL_C_VERSION__ >= 200\n  o[i] = H(i) + N;\n\
#else\n  o[i] = N;\n#endif\n\
#ifdef __FAST_RELAXED_MATH__\n  o[i] = native_sin(o[i]);\n#endif\n\
}\n";

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (options, source) = match text.split_once('\n') {
        Some((o, s)) if !s.is_empty() => (o, s),
        Some((o, _)) => (o, DEFAULT_SOURCE),
        None => (&*text, DEFAULT_SOURCE),
    };
    let headers = [Header {
        name: "h.h".to_string(),
        source: "#define H(x) ((float)(x) * 2.0f)\n".to_string(),
    }];
    let caps = TargetCaps {
        fp64: !data.len().is_multiple_of(2),
        ..TargetCaps::default()
    };
    let request = CompileRequest {
        source,
        options,
        headers: &headers,
    };
    let _ = compile(&request, &caps);
});
