//! The macros every program sees before its first line: OpenCL C 6.12's
//! predefined macros for the target, its extension and feature macros, and
//! the `-D` options. They are written as `#define` lines of two small files
//! (`<built-in>`, `<command line>`), so a bad `-D` is diagnosed like any
//! other definition.

use crate::options::{BuildOptions, ClStd};
use crate::TargetCaps;
use std::fmt::Write;

/// The `<built-in>` file: what OpenCL C 6.12 predefines for this target and
/// options.
pub(crate) fn builtin_source(options: &BuildOptions, caps: &TargetCaps) -> String {
    let mut s = String::new();
    // Any value above 200 meets 6.12 for an OpenCL 3.0 device; 300 names the
    // version the device reports.
    s.push_str("#define __OPENCL_VERSION__ 300\n");
    for (name, value) in [
        ("CL_VERSION_1_0", 100),
        ("CL_VERSION_1_1", 110),
        ("CL_VERSION_1_2", 120),
        ("CL_VERSION_2_0", 200),
        ("CL_VERSION_3_0", 300),
    ] {
        let _ = writeln!(s, "#define {name} {value}");
    }
    let _ = writeln!(
        s,
        "#define __OPENCL_C_VERSION__ {}",
        options.cl_std.version_number()
    );
    s.push_str("#define __ENDIAN_LITTLE__ 1\n");
    for name in ["__kernel_exec", "kernel_exec"] {
        let _ = writeln!(
            s,
            "#define {name}(X, typen) __kernel __attribute__((work_group_size_hint(X, 1, 1))) \
             __attribute__((vec_type_hint(typen)))"
        );
    }
    if caps.images {
        s.push_str("#define __IMAGE_SUPPORT__ 1\n");
    }
    if options.fast_relaxed_math {
        s.push_str("#define __FAST_RELAXED_MATH__ 1\n");
    }
    // `NULL` is a predefined macro from OpenCL C 2.0 on.
    if options.cl_std >= ClStd::Cl2_0 {
        s.push_str("#define NULL ((void*)0)\n");
        // Initializers of the 2.0 atomic types, whose representation is
        // their value type's.
        s.push_str("#define ATOMIC_VAR_INIT(x) (x)\n");
        s.push_str("#define ATOMIC_FLAG_INIT 0\n");
    }
    for ext in &caps.extensions {
        if is_identifier(ext) {
            let _ = writeln!(s, "#define {ext} 1");
        }
    }
    // The `__opencl_c_*` feature macros exist in OpenCL C 3.0 only.
    if options.cl_std == ClStd::Cl3_0 {
        for feature in &caps.features {
            if is_identifier(feature) {
                let _ = writeln!(s, "#define {feature} 1");
            }
        }
    }
    s
}

/// The `<command line>` file: the `-D` options, in order.
pub(crate) fn command_line_source(options: &BuildOptions) -> String {
    let mut s = String::new();
    for (name, value) in &options.defines {
        let name = name.split(['\n', '\r']).next().unwrap_or("");
        match value {
            Some(value) => {
                let value = value.split(['\n', '\r']).next().unwrap_or("");
                let _ = writeln!(s, "#define {name} {value}");
            }
            None => {
                let _ = writeln!(s, "#define {name} 1");
            }
        }
    }
    s
}

fn is_identifier(s: &str) -> bool {
    let mut bytes = s.bytes();
    bytes
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}
