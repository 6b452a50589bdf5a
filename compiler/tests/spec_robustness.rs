//! Inputs the fuzz targets in fuzz/ found to crash or hang the compiler,
//! minimized. Each must come back as a program or a build log with real
//! diagnostics: the driver turns a panic on its build thread into "internal
//! compiler error", which is a crash all the same.

use ferrocl_compiler::{compile, CompileRequest, TargetCaps};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Compiles `source` with `options`, failing the test if the compiler
/// panics, whether the panic escapes or is reported as an internal error.
fn survives(source: &str, options: &str) {
    let request = CompileRequest {
        source,
        options,
        headers: &[],
    };
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        compile(&request, &TargetCaps::default())
    }));
    match outcome {
        Err(_) => panic!("the compiler panicked on:\n{source:?}"),
        Ok(Err(e)) => assert!(
            !e.log.contains("internal compiler error"),
            "internal compiler error on:\n{source:?}\n{}",
            e.log
        ),
        Ok(Ok(_)) => {}
    }
}

#[test]
fn universal_character_name_cut_by_a_multibyte_character() {
    survives("constant char s[] = \"\\u00\u{20ac}\";\n", "");
    survives("constant char s[] = \"\\u0\u{e9}0\";\n", "");
    survives(
        "kernel void k(global char *o) { o[0] = \"\\U000000\u{20ac}x\"[0]; }\n",
        "",
    );
}

#[test]
fn hex_escape_with_more_digits_than_any_integer() {
    // Found by fuzzing: the escape's value saturated and then overflowed.
    survives("constant char s[] = \"\\x64ffffffffffffffffff9f\";\n", "");
    survives(
        "kernel void k(global char *o) { o[0] = '\\xfffffffffffffffff'; }\n",
        "",
    );
}
