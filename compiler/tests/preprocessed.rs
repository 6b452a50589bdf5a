//! A build from its preprocessed source (`driver::preprocess`, then
//! `driver::compile_preprocessed`, the path of the runtime's build cache)
//! gives what `compile` gives: the same program and the same log, warnings
//! included.

mod common;

use ferrocl_compiler::driver::{compile_preprocessed, preprocess};
use ferrocl_compiler::{compile, CompileRequest, Header};

/// Compares the two builds; whether the build succeeded with a log.
fn same_build(source: &str, options: &str, headers: &[Header]) -> bool {
    let caps = common::caps();
    let request = CompileRequest {
        source,
        options,
        headers,
    };
    let whole = compile(&request, &caps);
    match preprocess(&request, &caps) {
        Some(pre) => assert_eq!(compile_preprocessed(&pre, &caps), whole, "{source}"),
        // Refused options and preprocessor errors are left to `compile`.
        None => assert!(whole.is_err(), "{source}"),
    }
    whole.is_ok_and(|p| !p.log.is_empty())
}

#[test]
fn a_build_from_preprocessed_source_is_the_same_build() {
    let header = [Header {
        name: "scale.h".into(),
        source: "#define SCALE(x) ((x) * 3)\n".into(),
    }];
    let mut logs = 0;
    for (source, options) in [
        (include_str!("seeds/semantics.cl"), ""),
        (include_str!("seeds/memory.cl"), "-cl-fast-relaxed-math"),
        (
            "#include \"scale.h\"\nkernel void k(global int *o) { o[0] = SCALE(N); }\n",
            "-D N=7",
        ),
        // Warnings: unused, conversion, a macro defined again.
        (
            "#define A 1\n#define A 2\nkernel void k(global float *o) { int u; o[0] = 1.5; }\n",
            "",
        ),
        (
            "kernel void k(global float *o) { int u; o[0] = 1.5; }\n",
            "-w",
        ),
        (
            "kernel void k(global float *o) { int u; o[0] = 1.5; }\n",
            "-Werror",
        ),
        // Errors: in the program, in the preprocessor, in the options.
        ("kernel void k(global int *o) { o[0] = missing; }\n", ""),
        ("#include \"absent.h\"\n", ""),
        ("kernel void k() {}\n", "-cl-no-such-option"),
    ] {
        logs += same_build(source, options, &header) as usize;
    }
    assert!(logs >= 1, "no build had warnings");
}
