//! Programs that chapter 6 of the OpenCL C specification forbids: each must
//! fail to build, with a clang-style diagnostic (`<source>:line:col:
//! error:`, the source line and a caret) at the offending line that names
//! the problem.

mod common;

use common::build_with;
use ferrocl_compiler::{compile, CompileRequest, TargetCaps};

/// A program that must not build: `line` is where the error is, `words`
/// are alternatives of which the message must contain one (lowercase).
struct Bad {
    name: &'static str,
    src: &'static str,
    line: u32,
    words: &'static [&'static str],
}

const fn bad(
    name: &'static str,
    src: &'static str,
    line: u32,
    words: &'static [&'static str],
) -> Bad {
    Bad {
        name,
        src,
        line,
        words,
    }
}

/// Checks every row and panics listing each that built, or whose log lacks
/// the location, the caret or the words.
fn check(rows: &[Bad], options: &str) {
    let mut failed = Vec::new();
    for r in rows {
        let request = CompileRequest {
            source: r.src,
            options,
            headers: &[],
        };
        let log = match compile(&request, &TargetCaps::default()) {
            Ok(_) => {
                failed.push(format!("[{}] built, but must not:\n{}", r.name, r.src));
                continue;
            }
            Err(e) => e.log,
        };
        let at = format!("<source>:{}:", r.line);
        let located = log
            .lines()
            .any(|l| l.starts_with(&at) && l.contains(": error: "));
        let caret = log
            .lines()
            .any(|l| l.trim_start() == "^" || l.trim_end().ends_with('^'));
        let lower = log.to_lowercase();
        let named = r.words.iter().any(|w| lower.contains(w));
        if !(located && caret && named) {
            failed.push(format!(
                "[{}] want an error at line {} naming one of {:?}:\n{log}",
                r.name, r.line, r.words
            ));
        }
    }
    assert!(
        failed.is_empty(),
        "{} of {} programs:\n{}",
        failed.len(),
        rows.len(),
        failed.join("\n")
    );
}

#[test]
fn types_and_conversions() {
    check(
        &[
            bad(
                "as_type of different sizes",
                "kernel void k(global int *o) {\n  o[0] = as_int((char2)(1, 2));\n}\n",
                2,
                &["size", "as_int"],
            ),
            bad(
                "as_type of 3 and 4 differ in CL ok but float3 to int2",
                "kernel void k(global int2 *o, float3 f) {\n  o[0] = as_int2(f);\n}\n",
                2,
                &["size", "as_int2"],
            ),
            bad(
                "implicit vector conversion",
                "kernel void k(global int4 *o, float4 f) {\n  o[0] = f;\n}\n",
                2,
                &["convert", "int4"],
            ),
            bad(
                "vector literal with too few components",
                "kernel void k(global int4 *o) {\n  o[0] = (int4)(1, 2, 3);\n}\n",
                2,
                &["component", "literal", "element"],
            ),
            bad(
                "vector literal with too many components",
                "kernel void k(global int2 *o) {\n  o[0] = (int2)(1, 2, 3);\n}\n",
                2,
                &["component", "literal", "element"],
            ),
            bad(
                "swizzle mixing letters and numbers",
                "kernel void k(global int *o, int4 v) {\n  o[0] = v.xs1;\n}\n",
                2,
                &["swizzle", "component"],
            ),
            bad(
                "swizzle out of range",
                "kernel void k(global int *o, int2 v) {\n  o[0] = v.z;\n}\n",
                2,
                &["swizzle", "component"],
            ),
            bad(
                "lo on a scalar",
                "kernel void k(global int *o, int v) {\n  o[0] = v.lo;\n}\n",
                2,
                &["member", "vector", "swizzle", "struct"],
            ),
            bad(
                "double without fp64",
                "kernel void k(global float *o) {\n  double d = 2.0;\n  o[0] = d;\n}\n",
                2,
                &["cl_khr_fp64", "double"],
            ),
            bad(
                "bit-fields",
                "struct S { int a : 3; };\nkernel void k(global int *o) { o[0] = 0; }\n",
                1,
                &["bit-field", "bitfield", "bit field"],
            ),
            bad(
                "variable length array",
                "kernel void k(global int *o, int n) {\n  int a[n];\n  o[0] = a[0];\n}\n",
                2,
                &["variable length", "constant", "size"],
            ),
            bad(
                "unknown type",
                "kernel void k(global int *o) {\n  int5 v;\n}\n",
                2,
                &["int5", "undeclared", "unknown"],
            ),
        ],
        "",
    );
}

#[test]
fn qualifiers_and_address_spaces() {
    check(
        &[
            bad("write to __constant", "constant int c[1] = {1};\nkernel void k(global int *o) {\n  c[0] = 2;\n}\n", 3, &["const", "read-only", "assign"]),
            bad("write through pointer to constant", "kernel void k(constant int *c) {\n  *c = 2;\n}\n", 2, &["const", "read-only", "assign"]),
            bad("local variable with initializer", "kernel void k(global int *o) {\n  local int t = 4;\n  o[0] = t;\n}\n", 2, &["initializ", "__local", "local"]),
            bad("local variable in non-kernel function", "int f(void) {\n  local int t[4];\n  return t[0];\n}\nkernel void k(global int *o) { o[0] = f(); }\n", 2, &["__local", "local", "kernel"]),
            bad("program-scope non-constant variable in CL1.2", "int g = 1;\nkernel void k(global int *o) { o[0] = g; }\n", 1, &["__constant", "program-scope", "program scope"]),
            bad("private kernel pointer argument", "kernel void k(int *p) {\n}\n", 1, &["__global", "address space", "private"]),
            bad("bool kernel argument", "kernel void k(global int *o, bool b) {\n  o[0] = b;\n}\n", 1, &["bool", "argument"]),
        ],
        "",
    );
}

#[test]
fn functions_and_statements() {
    check(
        &[
            bad("non-void kernel", "kernel int k(global int *o) {\n  return 1;\n}\n", 1, &["void", "return"]),
            bad("recursion", "int f(int x) {\n  return x ? f(x - 1) : 0;\n}\nkernel void k(global int *o) { o[0] = f(3); }\n", 2, &["recursi"]),
            bad("mutual recursion", "int g(int x);\nint f(int x) { return x ? g(x - 1) : 0; }\nint g(int x) { return f(x); }\nkernel void k(global int *o) { o[0] = f(3); }\n", 3, &["recursi"]),
            bad("undeclared function", "kernel void k(global int *o) {\n  o[0] = nothing_here(1);\n}\n", 2, &["implicit", "undeclared", "nothing_here"]),
            bad("too few arguments", "int f(int a, int b) { return a + b; }\nkernel void k(global int *o) {\n  o[0] = f(1);\n}\n", 3, &["argument"]),
            bad("break outside loop", "kernel void k(global int *o) {\n  break;\n}\n", 2, &["break"]),
            bad("continue outside loop", "kernel void k(global int *o) {\n  continue;\n}\n", 2, &["continue"]),
            bad("duplicate case", "kernel void k(global int *o, int n) {\n  switch (n) { case 1: break; case 1: break; }\n}\n", 2, &["duplicate", "case"]),
            bad("goto unknown label", "kernel void k(global int *o) {\n  goto nowhere;\n}\n", 2, &["label", "nowhere"]),
            bad("return value from void", "void f(void) {\n  return 3;\n}\nkernel void k(global int *o) { f(); }\n", 2, &["void", "return"]),
            bad("missing semicolon", "kernel void k(global int *o) {\n  o[0] = 1\n}\n", 3, &["expected", "';'"]),
            bad("sizeof of a function type", "int f(void) { return 0; }\nkernel void k(global int *o) {\n  o[0] = sizeof(f);\n}\n", 3, &["sizeof", "function"]),
        ],
        "",
    );
}

#[test]
fn preprocessor_errors() {
    check(
        &[
            bad(
                "#error",
                "#error stop here\nkernel void k(global int *o) { }\n",
                1,
                &["stop here"],
            ),
            bad(
                "unterminated #if",
                "#if 1\nkernel void k(global int *o) { }\n",
                1,
                &["#if", "unterminated", "endif"],
            ),
            bad(
                "#else without #if",
                "#else\nkernel void k(global int *o) { }\n",
                1,
                &["#else", "without"],
            ),
            bad(
                "missing include",
                "#include \"nothing.h\"\nkernel void k(global int *o) { }\n",
                1,
                &["nothing.h", "not found", "include"],
            ),
            bad(
                "macro argument count",
                "#define F(a, b) a + b\nkernel void k(global int *o) {\n  o[0] = F(1);\n}\n",
                3,
                &["argument", "macro"],
            ),
            bad(
                "unterminated comment",
                "kernel void k(global int *o) { }\n/* never closed\n",
                2,
                &["comment", "unterminated"],
            ),
            bad(
                "bad #if expression",
                "#if 1 +\n#endif\nkernel void k(global int *o) { }\n",
                1,
                &["expression", "expected"],
            ),
        ],
        "",
    );
}

#[test]
fn options_change_diagnostics() {
    let src = "kernel void k(global int *o) {\n  int unused_value;\n  o[0] = 1;\n}\n";
    let warn = "#if 1\n#endif extra\nkernel void k(global int *o) {\n  o[0] = 1;\n}\n";
    let caps = TargetCaps::default();
    let with = |source: &'static str, options: &'static str| {
        compile(
            &CompileRequest {
                source,
                options,
                headers: &[],
            },
            &caps,
        )
    };
    // Extra tokens after #endif are a warning; -Werror makes it an error
    // and -w silences it.
    let plain = with(warn, "").expect("a warning does not fail the build");
    assert!(
        plain.log.contains("warning"),
        "no warning for tokens after #endif:\n{}",
        plain.log
    );
    let werror = with(warn, "-Werror").expect_err("-Werror fails the build");
    assert!(werror.log.contains("error"), "{}", werror.log);
    let quiet = with(warn, "-w").expect("-w builds");
    assert!(!quiet.log.contains("warning"), "-w leaves:\n{}", quiet.log);
    assert!(with(src, "").is_ok());
    // Invalid options are CL_INVALID_BUILD_OPTIONS, not a failed build.
    for options in ["-cl-std=CL9.9", "-cl-no-such-option", "-D", "-I"] {
        let e = with(src, options).expect_err(options);
        assert!(e.invalid_options, "{options}: {}", e.log);
    }
    // A -D macro that does not parse is the program's error.
    assert!(build_with("kernel void k(global int *o) { o[0] = N; }\n", &caps).is_err());
}

#[test]
fn function_pointers_named() {
    check(
        &[
            bad("function pointer", "int f(int a) { return a; }\nkernel void k(global int *o) {\n  int (*p)(int) = f;\n  o[0] = p(1);\n}\n", 3, &["function pointer", "pointer"]),
        ],
        "",
    );
}

#[test]
fn redefinition_in_one_scope() {
    check(
        &[bad(
            "redefinition",
            "kernel void k(global int *o) {\n  int a = 1;\n  int a = 2;\n}\n",
            3,
            &["redefinition", "redeclar", "already"],
        )],
        "",
    );
}

#[test]
fn swizzle_lvalue_with_repeated_components() {
    check(
        &[bad(
            "repeated components written",
            "kernel void k(global int2 *o, int2 v) {\n  v.xx = (int2)(1, 2);\n  o[0] = v;\n}\n",
            2,
            &[
                "swizzle",
                "repeated",
                "twice",
                "duplicate",
                "lvalue",
                "assign",
            ],
        )],
        "",
    );
}

#[test]
fn half_values_without_fp16() {
    check(
        &[bad(
            "half arithmetic without cl_khr_fp16",
            "kernel void k(global float *o) {\n  half h;\n  o[0] = 1.0f;\n}\n",
            2,
            &["half", "cl_khr_fp16"],
        )],
        "",
    );
}

#[test]
fn assignment_to_const() {
    check(
        &[bad(
            "assign to const variable",
            "kernel void k(global int *o) {\n  const int a = 1;\n  a = 2;\n}\n",
            3,
            &["const", "read-only", "assign"],
        )],
        "",
    );
}

#[test]
fn pointers_between_named_address_spaces() {
    check(
        &[
            bad(
                "global pointer into private pointer",
                "kernel void k(global int *o) {\n  int *p = o;\n  *p = 1;\n}\n",
                2,
                &["address space", "__global", "__private"],
            ),
            bad(
                "explicit cast between named address spaces",
                "kernel void k(global int *o) {\n  int *p = (int *)o;\n  *p = 1;\n}\n",
                2,
                &["address space", "__global", "__private", "cast"],
            ),
        ],
        "",
    );
}

#[test]
fn constant_variable_without_initializer() {
    check(
        &[bad(
            "program-scope constant without initializer",
            "constant int c;\nkernel void k(global int *o) { o[0] = c; }\n",
            1,
            &["initializ", "constant"],
        )],
        "",
    );
}

#[test]
fn kernel_argument_restrictions() {
    check(
        &[
            bad(
                "pointer to pointer kernel argument",
                "kernel void k(global int *global *p) {\n}\n",
                1,
                &["pointer to pointer", "pointer", "argument"],
            ),
            bad(
                "size_t kernel argument",
                "kernel void k(global int *o, size_t n) {\n  o[0] = n;\n}\n",
                1,
                &["size_t", "argument"],
            ),
        ],
        "",
    );
}

#[test]
fn two_address_space_qualifiers() {
    check(
        &[bad(
            "two address spaces",
            "kernel void k(global local int *o) {\n}\n",
            1,
            &["address space", "qualifier"],
        )],
        "",
    );
}

#[test]
fn restrictions_of_6_11() {
    check(
        &[
            bad("auto", "kernel void k(global int *o) {\n  auto int a = 1;\n  o[0] = a;\n}\n", 2, &["'auto'", "not supported"]),
            bad("register", "kernel void k(global int *o) {\n  register int a = 1;\n  o[0] = a;\n}\n", 2, &["'register'", "not supported"]),
            bad("variadic function", "int f(int a,\n  ...) { return a; }\nkernel void k(global int *o) { o[0] = f(1, 2); }\n", 2, &["variadic"]),
            bad("image struct member", "struct S {\n  image2d_t i;\n};\nkernel void k(global int *o) { o[0] = 1; }\n", 2, &["member", "image2d_t"]),
            bad("sampler struct member", "struct S {\n  sampler_t s;\n};\nkernel void k(global int *o) { o[0] = 1; }\n", 2, &["member", "sampler_t"]),
            bad("event struct member", "struct S {\n  event_t e;\n};\nkernel void k(global int *o) { o[0] = 1; }\n", 2, &["member", "event_t"]),
            bad("array of samplers", "kernel void k(global int *o) {\n  sampler_t s[2];\n  o[0] = 1;\n}\n", 2, &["arrays of sampler_t"]),
            bad("pointer to an image", "void f(image2d_t\n  *p) { }\nkernel void k(global int *o) { o[0] = 1; }\n", 2, &["pointers to image2d_t"]),
            bad("static kernel", "static\nkernel void k(global int *o) { o[0] = 1; }\n", 2, &["kernel", "static"]),
            bad("function returning an image", "image2d_t\nf(image2d_t i) { return i; }\nkernel void k(global int *o) { o[0] = 1; }\n", 2, &["cannot return image2d_t"]),
        ],
        "",
    );
}
