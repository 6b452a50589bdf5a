//! OpenCL C 6.12 (preprocessor directives and macros): the C99
//! preprocessor, the predefined macros, `#pragma OPENCL`, and the `-D`,
//! `-cl-std` build options, each observed from a running kernel.

mod common;
mod spec_support;

use spec_support::*;

#[test]
fn c99_preprocessor() {
    let rows: &[Row<i32, i32>] = &[
        row_with("object-like macro", "#define K 41", "out[i] = x + K;", |x| x.wrapping_add(41)),
        row_with("function-like macro", "#define SQ(a) ((a) * (a))", "out[i] = SQ(x & 0xff) + SQ(1 + 1);", |x| (x & 0xff) * (x & 0xff) + 4),
        row_with("token paste", "#define CAT(a, b) a##b\n#define VAR_A 3", "int CAT(my, var) = 9; out[i] = myvar + CAT(VAR, _A);", |_| 12),
        row_with("variadic macro", "#define FIRST(a, ...) (a)\n#define COUNT(...) sum3(__VA_ARGS__)\nint sum3(int a, int b, int c) { return a + b + c; }", "out[i] = FIRST(x, 1, 2) + COUNT(1, 2, 3);", |x| x.wrapping_add(6)),
        row_with("conditional inclusion", "#define LEVEL 3\n#if LEVEL > 2 && defined(LEVEL)\n#define R 1\n#elif LEVEL == 2\n#define R 2\n#else\n#define R 3\n#endif", "out[i] = R;", |_| 1),
        row_with("ifdef ifndef", "#define A\n#ifdef A\n#define X1 10\n#endif\n#ifndef B\n#define X2 20\n#endif", "out[i] = X1 + X2;", |_| 30),
        row_with("undef", "#define T 1\n#undef T\n#ifdef T\n#define V 5\n#else\n#define V 6\n#endif", "out[i] = V;", |_| 6),
        row_with("nested macro expansion", "#define A(x) B(x) + 1\n#define B(x) (x * 2)", "out[i] = A(x);", |x| x.wrapping_mul(2).wrapping_add(1)),
        row_with("macro not recursively expanded", "#define foo foo", "int foo = 3; out[i] = foo;", |_| 3),
        row_with("line continuation", "#define LONG(a) \\\n  ((a) + \\\n   7)", "out[i] = LONG(x);", |x| x.wrapping_add(7)),
        row_with("__LINE__", "", "out[i] = __LINE__;", |_| 5),
        row_with("#line directive", "#line 100", "out[i] = __LINE__;", |_| 103),
        row_with("if with arithmetic and char", "#if (1 << 4) == 16 && 'a' == 97 && -1 < 0\n#define OK 1\n#else\n#define OK 0\n#endif", "out[i] = OK;", |_| 1),
        row_with("if with unsigned arithmetic", "#if -1 > 0u\n#define U 1\n#else\n#define U 0\n#endif", "out[i] = U;", |_| 1),
        row_with("comments are whitespace", "#define C /* comment */ 5 // trailing", "out[i] = C /* inline */ + 1;", |_| 6),
        row_with("empty directive and pragma once-like guards", "#\n#ifndef GUARD\n#define GUARD\nint g1(void) { return 1; }\n#endif\n#ifndef GUARD\nint g1(void) { return 2; }\n#endif", "out[i] = g1();", |_| 1),
        row_with("function macro name without parens", "#define f(a) (a + 1)", "int f = 3; out[i] = f + f(1);", |_| 5),
        row_with("#error not reached", "#if 0\n#error never\n#endif", "out[i] = 1;", |_| 1),
    ];
    check_rows("int", "int", &int_inputs(), rows, "", 0.0);
}

#[test]
fn predefined_macros_and_pragmas() {
    let rows: &[Row<i32, i32>] = &[
        row("__OPENCL_VERSION__", "out[i] = __OPENCL_VERSION__;", |_| 300),
        row("CL_VERSION macros", "out[i] = CL_VERSION_1_0 + CL_VERSION_1_1 * 0 + CL_VERSION_1_2 * 0 + CL_VERSION_2_0 * 0 + CL_VERSION_3_0 - 300;", |_| 100),
        row("__ENDIAN_LITTLE__", "#ifdef __ENDIAN_LITTLE__\n  out[i] = __ENDIAN_LITTLE__;\n#else\n  out[i] = 0;\n#endif", |_| 1),
        row("__kernel_exec", "out[i] = 1;", |_| 1),
        row("__OPENCL_C_VERSION__ default", "out[i] = __OPENCL_C_VERSION__;", |_| 120),
        row("FP_CONTRACT pragma", "#pragma OPENCL FP_CONTRACT ON\n  out[i] = x;", |x| x),
        row("OPENCL EXTENSION pragma", "#pragma OPENCL EXTENSION all : disable\n  out[i] = x;", |x| x),
        row("unknown pragma ignored", "#pragma unknown_vendor thing\n  out[i] = x;", |x| x),
        row("_Pragma operator", "_Pragma(\"OPENCL FP_CONTRACT OFF\") out[i] = x;", |x| x),
        row("__IMAGE_SUPPORT__ matches device", "#ifdef __IMAGE_SUPPORT__\n  out[i] = __IMAGE_SUPPORT__;\n#else\n  out[i] = 1;\n#endif", |_| 1),
    ];
    check_rows("int", "int", &int_inputs(), rows, "", 0.0);
}

#[test]
fn build_options_reach_the_preprocessor() {
    let gpu = common::Gpu::new();
    let src = "kernel void k(global int *out) {\n  out[0] = N;\n#ifdef FLAG\n  out[1] = 1;\n#endif\n  out[2] = __OPENCL_C_VERSION__;\n#ifdef __FAST_RELAXED_MATH__\n  out[3] = 1;\n#endif\n}\n";
    let cases: &[(&str, [i32; 4])] = &[
        ("-DN=5", [5, 0, 120, 0]),
        ("-D N=6 -DFLAG", [6, 1, 120, 0]),
        ("-DN=7 -cl-std=CL1.2", [7, 0, 120, 0]),
        ("-DN=8 -cl-std=CL2.0", [8, 0, 200, 0]),
        ("-DN=9 -cl-std=CL3.0", [9, 0, 300, 0]),
        ("-DN=10 -cl-fast-relaxed-math", [10, 0, 120, 1]),
        ("-DN=(2*6) -DFLAG=0", [12, 1, 120, 0]),
    ];
    let mut failed = Vec::new();
    for (options, want) in cases {
        match gpu.try_program(src, options) {
            Ok(program) => {
                let k = program.kernel("k");
                let out = gpu.zeroed::<i32>(4);
                k.arg_buffer(0, &out);
                gpu.run(&k, &[1], None, None);
                let got = gpu.read::<i32>(&out);
                if got != want {
                    failed.push(format!("{options}: got {got:?}, want {want:?}"));
                }
            }
            Err((_, log)) => failed.push(format!("{options}: build failed\n{log}")),
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

#[test]
fn string_literals_outside_printf() {
    let rows: &[Row<i32, i32>] = &[
        row_with(
            "stringize",
            "#define STR(a) #a",
            "constant char *s = STR(hello); out[i] = s[1] + x * 0;",
            |_| b'e' as i32,
        ),
        row(
            "__FILE__ is a string",
            "constant char *f = __FILE__; out[i] = f[0] != 0;",
            |_| 1,
        ),
        row_with(
            "program-scope __constant array from a string",
            "__constant char msg[] = \"hi\";",
            "out[i] = msg[x & 1] + sizeof(msg) * 1000;",
            |x| if x & 1 == 0 { 3104 } else { 3105 },
        ),
        row(
            "private array from a string",
            "char buf[] = \"abc\"; buf[0] = 'z'; out[i] = buf[x & 3] + sizeof(buf) * 1000;",
            |x| [4122, 4098, 4099, 4000][(x & 3) as usize],
        ),
        row(
            "indexing a string literal",
            "out[i] = \"abc\"[x & 3] + sizeof(\"abc\") * 1000;",
            |x| [4097, 4098, 4099, 4000][(x & 3) as usize],
        ),
        row_with(
            "string passed to a function",
            "int len(constant char *s) { int n = 0; while (s[n]) n++; return n; }",
            "out[i] = len(\"hello\") + len(x > 0 ? \"ab\" : \"\");",
            |x| if x > 0 { 7 } else { 5 },
        ),
    ];
    check_rows("int", "int", &int_inputs(), rows, "", 0.0);
}
