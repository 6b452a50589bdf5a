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
    // OpenCL C 6.15.2.1: with cl_khr_fp16, the half limits (usable in
    // `#if`, so macros) and the `M_*_H` constants, here the half nearest
    // each value.
    if caps.fp16 {
        s.push_str(HALF_MACROS);
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

const HALF_MACROS: &str = "\
#define HALF_DIG 3
#define HALF_MANT_DIG 11
#define HALF_MAX_10_EXP +4
#define HALF_MAX_EXP +16
#define HALF_MIN_10_EXP -4
#define HALF_MIN_EXP -13
#define HALF_RADIX 2
#define HALF_MAX 0x1.ffcp15h
#define HALF_MIN 0x1.0p-14h
#define HALF_EPSILON 0x1.0p-10h
#define M_E_H 0x1.5cp+1h
#define M_LOG2E_H 0x1.714p+0h
#define M_LOG10E_H 0x1.bccp-2h
#define M_LN2_H 0x1.63p-1h
#define M_LN10_H 0x1.26cp+1h
#define M_PI_H 0x1.92p+1h
#define M_PI_2_H 0x1.92p+0h
#define M_PI_4_H 0x1.92p-1h
#define M_1_PI_H 0x1.46p-2h
#define M_2_PI_H 0x1.46p-1h
#define M_2_SQRTPI_H 0x1.20cp+0h
#define M_SQRT2_H 0x1.6ap+0h
#define M_SQRT1_2_H 0x1.6ap-1h
";

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
