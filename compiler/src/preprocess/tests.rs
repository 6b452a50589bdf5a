//! Tests of the whole preprocessor: source in, tokens (or their spellings)
//! and diagnostics out.

use super::*;
use crate::diag::Severity;

fn pp_full(
    src: &str,
    headers: &[Header],
    options: &BuildOptions,
    caps: &TargetCaps,
) -> (Vec<Token>, SourceMap, Diagnostics) {
    let mut diags = Diagnostics::default();
    let (toks, map) = preprocess(src, headers, options, caps, &mut diags);
    (toks, map, diags)
}

fn pp(src: &str) -> (Vec<Token>, Diagnostics) {
    let (t, _, d) = pp_full(src, &[], &BuildOptions::default(), &TargetCaps::default());
    (t, d)
}

/// The preprocessed token spellings, one space apart.
fn spell_with(
    src: &str,
    headers: &[Header],
    options: &BuildOptions,
    caps: &TargetCaps,
) -> (String, Diagnostics) {
    let mut diags = Diagnostics::default();
    let text = run(src, headers, options, caps, &mut diags, |pp, toks| {
        pp.join_spellings(&toks, false)
    });
    (text, diags)
}

fn spell(src: &str) -> String {
    let (text, diags) = spell_with(src, &[], &BuildOptions::default(), &TargetCaps::default());
    assert!(!diags.has_errors(), "{src}: {:?}", diags.list);
    text
}

/// `src` preprocesses to the same tokens as `expected`.
fn same(src: &str, expected: &str) {
    assert_eq!(spell(src), spell(expected), "for\n{src}");
}

/// Errors and warnings as (line, col, message).
fn problems(diags: &Diagnostics, severity: Severity) -> Vec<(u32, u32, String)> {
    diags
        .list
        .iter()
        .filter(|d| d.severity == severity)
        .map(|d| {
            let s = d.span.unwrap_or_default();
            (s.line, s.col, d.message.clone())
        })
        .collect()
}

fn errors(src: &str) -> Vec<(u32, u32, String)> {
    let (_, diags) = spell_with(src, &[], &BuildOptions::default(), &TargetCaps::default());
    problems(&diags, Severity::Error)
}

fn warnings(src: &str) -> Vec<(u32, u32, String)> {
    let (_, diags) = spell_with(src, &[], &BuildOptions::default(), &TargetCaps::default());
    problems(&diags, Severity::Warning)
}

fn kinds(src: &str) -> Vec<TokenKind> {
    let (toks, diags) = pp(src);
    assert!(!diags.has_errors(), "{:?}", diags.list);
    toks.into_iter().map(|t| t.kind).collect()
}

fn ident(s: &str) -> TokenKind {
    TokenKind::Identifier(s.into())
}

// ---- lexing to tokens ----

#[test]
fn plain_source_becomes_tokens() {
    assert_eq!(
        kinds("kernel void f(global float *a) { a[0] = 1.5f + 0x10u; }"),
        vec![
            ident("kernel"),
            ident("void"),
            ident("f"),
            TokenKind::Punct("("),
            ident("global"),
            ident("float"),
            TokenKind::Punct("*"),
            ident("a"),
            TokenKind::Punct(")"),
            TokenKind::Punct("{"),
            ident("a"),
            TokenKind::Punct("["),
            TokenKind::IntLiteral {
                value: 0,
                suffix: String::new(),
                radix: 8
            },
            TokenKind::Punct("]"),
            TokenKind::Punct("="),
            TokenKind::FloatLiteral {
                text: "1.5f".into()
            },
            TokenKind::Punct("+"),
            TokenKind::IntLiteral {
                value: 16,
                suffix: "u".into(),
                radix: 16
            },
            TokenKind::Punct(";"),
            TokenKind::Punct("}"),
            TokenKind::Eof,
        ]
    );
}

#[test]
fn strings_concatenate_and_chars_have_values() {
    assert_eq!(
        kinds("\"ab\" \"c\\n\"\n\"d\" 'x' '\\''"),
        vec![
            TokenKind::StringLiteral(b"abc\nd".to_vec()),
            TokenKind::CharLiteral(120),
            TokenKind::CharLiteral(39),
            TokenKind::Eof
        ]
    );
}

#[test]
fn eof_only_for_empty_source() {
    assert_eq!(kinds(""), vec![TokenKind::Eof]);
    assert_eq!(kinds("  // nothing\n/* at all */"), vec![TokenKind::Eof]);
}

#[test]
fn spans_survive() {
    let (toks, _) = pp("a\n  b");
    assert_eq!(
        (
            toks[1].span.file,
            toks[1].span.line,
            toks[1].span.col,
            toks[1].span.offset
        ),
        (0, 2, 3, 4)
    );
    assert_eq!(toks[2].kind, TokenKind::Eof);
    assert_eq!(toks[2].span.offset, 5);
}

#[test]
fn wide_literals_are_errors() {
    let e = errors("#define cat(a, b) a ## b\nint x = cat(L, 'a');\nchar *s = L\"s\";");
    assert_eq!(e, vec![]);
    let (_, diags) = pp("#if L'a' == 97\nint x = L'a';\n#endif\nchar *s = L\"s\";");
    let e = problems(&diags, Severity::Error);
    assert_eq!(
        e.iter().map(|(l, c, _)| (*l, *c)).collect::<Vec<_>>(),
        vec![(2, 9), (4, 11)]
    );
}

#[test]
fn bad_literals_are_errors_with_places() {
    let (_, diags) = pp("x = 09;\n  y = 'ab\n@");
    let places: Vec<(u32, u32)> = problems(&diags, Severity::Error)
        .into_iter()
        .map(|(l, c, _)| (l, c))
        .collect();
    assert_eq!(places, vec![(1, 5), (2, 7), (3, 1)]);
}

// ---- macros ----

#[test]
fn object_and_function_like_macros() {
    same(
        "#define N 16\n#define SQ(x) ((x)*(x))\nint a[N]; int b = SQ(N+1);",
        "int a[16]; int b = ((16+1)*(16+1));",
    );
    // A function-like macro name without `(` is an ordinary identifier.
    same("#define f(x) x\nint f; f (1) f\n(2)", "int f; 1 2");
    // Arguments may span lines and hold parenthesized commas.
    same("#define g(a, b) [a|b]\ng((1,2),\n  3)", "[(1,2)|3]");
    // Empty arguments.
    same("#define h(a, b) <a b>\nh(,) h( , x)", "< > <x>");
    same("#define z() 0\nz()", "0");
}

#[test]
fn recursion_is_painted_blue() {
    same("#define foo foo + 1\nfoo", "foo + 1");
    same("#define a b\n#define b a\na b", "a b");
    same("#define f(x) f(x) * 2\nf(f(1))", "f(f(1) * 2) * 2");
    // C99 6.10.3.4 EXAMPLE: nested use through an argument.
    same(
        "#define x 2\n#define f(a) f(x * (a))\nf(f(x))",
        "f(2 * (f(2 * (2))))",
    );
}

#[test]
fn rescanning_classics() {
    // The name painted inside NIL's argument is not painted in the rescan
    // of G_1's expansion.
    same(
        "#define NIL(xxx) xxx\n#define G_0(arg) NIL(G_1)(arg)\n#define G_1(arg) NIL(arg)\nG_0(42)",
        "42",
    );
    // C99 6.10.3.4p4's unspecified case: this gives what GCC and Clang give.
    same("#define f(a) a*g\n#define g(a) f(a)\nf(2)(9)", "2*9*g");
    // An object-like macro that names a function-like one, with the
    // arguments coming from the source after it.
    same("#define f(x) <x>\n#define g f\ng(1) g", "<1> f");
    // A function-like macro whose arguments come from the next line.
    same("#define f(x) <x>\nf\n\n(2)", "<2>");
}

#[test]
fn c99_example_3() {
    let src = "#define x 3
#define f(a) f(x * (a))
#undef x
#define x 2
#define g f
#define z z[0]
#define h g(~
#define m(a) a(w)
#define w 0,1
#define t(a) a
#define p() int
#define q(x) x
#define r(x,y) x ## y
#define str(x) # x
f(y+1) + f(f(z)) % t(t(g)(0) + t)(1);
g(x+(3,4)-w) | h 5) & m
(f)^m(m);
p() i[q()] = { q(1), r(2,3), r(4,), r(,5), r(,) };
char c[2][6] = { str(hello), str() };";
    let expected = "f(2 * (y+1)) + f(2 * (f(2 * (z[0])))) % f(2 * (0)) + t(1);
f(2 * (2+(3,4)-0,1)) | f(2 * (~ 5)) & f(2 * (0,1))^m(0,1);
int i[] = { 1, 23, 4, 5, };
char c[2][6] = { \"hello\", \"\" };";
    same(src, expected);
}

#[test]
fn c99_example_4_stringize_and_paste() {
    let src = r#"#define str(s) # s
#define xstr(s) str(s)
#define debug(s, t) printf("x" # s "= %d, x" # t "= %s", \
 x ## s, x ## t)
#define INCFILE(n) vers ## n
#define glue(a, b) a ## b
#define xglue(a, b) glue(a, b)
#define HIGHLOW "hello"
#define LOW LOW ", world"
debug(1, 2);
fputs(str(strncmp("abc\0d", "abc", '\4') // this goes away
 == 0) str(: @\n), s);
#include xstr(INCFILE(2).h)
glue(HIGH, LOW);
xglue(HIGH, LOW)
"#;
    let headers = [Header {
        name: "vers2.h".into(),
        source: "included_vers2\n".into(),
    }];
    let (text, diags) = spell_with(
        src,
        &headers,
        &BuildOptions::default(),
        &TargetCaps::default(),
    );
    assert!(!diags.has_errors(), "{:?}", diags.list);
    let expected = r#"printf("x" "1" "= %d, x" "2" "= %s", x1, x2);
fputs("strncmp(\"abc\\0d\", \"abc\", '\\4') == 0" ": @\n", s);
included_vers2
"hello";
"hello" ", world""#;
    assert_eq!(text, spell(expected));
}

#[test]
fn c99_example_5_placemarkers() {
    same(
        "#define t(x,y,z) x ## y ## z
int j[] = { t(1,2,3), t(,4,5), t(6,,7), t(8,9,),
 t(10,,), t(,11,), t(,,12), t(,,) };",
        "int j[] = { 123, 45, 67, 89, 10, 11, 12, };",
    );
}

#[test]
fn c99_example_hash_hash() {
    let src = "#define hash_hash # ## #
#define mkstr(a) # a
#define in_between(a) mkstr(a)
#define join(c, d) in_between(c hash_hash d)
char p[] = join(x, y);";
    same(src, "char p[] = \"x ## y\";");
}

#[test]
fn c99_example_7_variadic() {
    let src = r#"#define debug(...) fprintf(stderr, __VA_ARGS__)
#define showlist(...) puts(#__VA_ARGS__)
#define report(test, ...) ((test)?puts(#test):\
 printf(__VA_ARGS__))
debug("Flag");
debug("X = %d\n", x);
showlist(The first, second, and third items.);
report(x>y, "x is %d but y is %d", x, y);"#;
    let expected = r#"fprintf(stderr, "Flag" );
fprintf(stderr, "X = %d\n", x );
puts( "The first, second, and third items." );
((x>y)?puts("x>y"): printf("x is %d but y is %d", x, y));"#;
    same(src, expected);
}

#[test]
fn c99_redefinition_rules() {
    // EXAMPLE 6: these redefinitions are the same and valid.
    let ok = "#define OBJ_LIKE (1-1)
#define OBJ_LIKE /* white space */ (1-1) /* other */
#define FUNC_LIKE(a) ( a )
#define FUNC_LIKE( a )( /* note the white space */ \\
 a /* other stuff on this line
 */ )
";
    assert!(warnings(ok).is_empty(), "{:?}", warnings(ok));
    let bad = "#define OBJ_LIKE (1-1)
#define OBJ_LIKE (0) // different token sequence
#define OBJ_LIKE (1 - 1) // different white space
#define FUNC_LIKE(a) ( a )
#define FUNC_LIKE(b) ( a ) // different parameter usage
#define FUNC_LIKE(b) ( b ) // different parameter spelling
";
    let w = warnings(bad);
    assert_eq!(
        w.iter().map(|(l, c, _)| (*l, *c)).collect::<Vec<_>>(),
        vec![(2, 9), (3, 9), (5, 9), (6, 9)]
    );
    assert!(w[0].2.contains("'OBJ_LIKE' macro redefined"));
}

#[test]
fn gnu_variadic_forms() {
    same(
        "#define e(fmt, ...) f(fmt, ## __VA_ARGS__)\ne(a) e(a, b, c) e(a,)",
        "f(a) f(a, b, c) f(a)",
    );
    same(
        "#define n(fmt, args...) g(fmt, args)\nn(1, 2, 3)",
        "g(1, 2, 3)",
    );
    // C99 allows a variadic macro's variable part to be empty here too.
    same(
        "#define v(a, ...) [a __VA_ARGS__]\nv(1) v(1,) v(1, 2, 3)",
        "[1] [1] [1 2, 3]",
    );
}

#[test]
fn va_opt() {
    same(
        "#define F(a, ...) f(a __VA_OPT__(,) __VA_ARGS__)\n#define E\nF(1) F(1,) F(1, 2, 3) F(1, E)",
        "f(1) f(1) f(1, 2, 3) f(1)",
    );
    // The examples of C23 6.10.5.2.
    same(
        "#define SDEF(sname, ...) S sname __VA_OPT__(= { __VA_ARGS__ })\nSDEF(foo); SDEF(bar, 1, 2);",
        "S foo; S bar = { 1, 2 };",
    );
    same(
        "#define H2(X, Y, ...) __VA_OPT__(X ## Y,) __VA_ARGS__\nH2(a, b, c, d)",
        "ab, c, d",
    );
    same("#define H3(X, ...) #__VA_OPT__(X##X X##X)\nH3(, 0)", "\"\"");
    same(
        "#define H4(X, ...) __VA_OPT__(a X ## X) ## b\nH4(, 1)",
        "a b",
    );
    same(
        "#define H5A(...) __VA_OPT__()/**/__VA_OPT__()\n#define H5B(X) a ## X ## b\n#define H5C(X) H5B(X)\nH5C(H5A())",
        "ab",
    );
    same(
        "#define S(...) #__VA_OPT__(x   y)\nS(1) S()",
        "\"x y\" \"\"",
    );
    // Outside a variadic macro it is an ordinary identifier.
    same("#define N(a) __VA_OPT__(a)\nN(1)", "__VA_OPT__(1)");
    for (src, message) in [
        ("#define V(...) __VA_OPT__\n", "expected '('"),
        ("#define V(...) __VA_OPT__(a\n", "missing ')'"),
        (
            "#define V(...) __VA_OPT__(__VA_OPT__())\n",
            "cannot be nested",
        ),
        ("#define V(...) __VA_OPT__(## a)\n", "'##' cannot appear"),
    ] {
        let e = errors(src);
        assert_eq!(e.len(), 1, "{src}: {e:?}");
        assert!(e[0].2.contains(message), "{src}: {e:?}");
    }
}

#[test]
fn stringize_spacing_and_escapes() {
    same(
        "#define s(x) #x\ns(  a  +\n b ) s(\"q\\\"\" '\\'') s()",
        r#""a + b" "\"q\\\"\" '\\''" """#,
    );
}

#[test]
fn stringize_too_many_args_is_error() {
    let e = errors("#define s(x) #x\ns(a,b)");
    assert_eq!(e.len(), 1);
    assert_eq!((e[0].0, e[0].1), (2, 6));
    assert!(e[0].2.contains("too many arguments"), "{e:?}");
}

#[test]
fn pasting() {
    same(
        "#define cat(a, b) a ## b\ncat(x, y) cat(1, 2) cat(+, =) cat(<<, =) cat(., 5) cat(, z)",
        "xy 12 += <<= .5 z",
    );
    // The result of ## is rescanned.
    same("#define cat(a, b) a ## b\n#define xy 42\ncat(x, y)", "42");
    // Arguments next to ## are not expanded first.
    same("#define cat(a, b) a ## b\n#define A 1\ncat(A, A)", "AA");
    same(
        "#define cat(a, b) a ## b\n#define xcat(a, b) cat(a, b)\n#define A 1\nxcat(A, A)",
        "11",
    );
    let e = errors("#define cat(a, b) a ## b\n  cat(+, /)");
    assert_eq!(e.len(), 1);
    assert_eq!((e[0].0, e[0].1), (2, 7));
    assert!(e[0].2.contains("pasting formed '+/'"), "{e:?}");
}

#[test]
fn define_errors() {
    let cases: &[(&str, (u32, u32), &str)] = &[
        ("#define\n", (1, 2), "macro name missing"),
        ("#define 3 x\n", (1, 9), "macro name must be an identifier"),
        ("#define defined\n", (1, 9), "'defined' cannot be used"),
        ("#define f(a, a) a\n", (1, 14), "duplicate macro parameter"),
        ("#define f(a b) a\n", (1, 13), "expected comma"),
        ("#define f(a,) a\n", (1, 13), "expected parameter name"),
        ("#define f(a\n", (1, 11), "missing ')'"),
        (
            "#define f(x) #y\n",
            (1, 14),
            "'#' is not followed by a macro parameter",
        ),
        (
            "#define f(x) ## x\n",
            (1, 14),
            "'##' cannot appear at either end",
        ),
        (
            "#define g x ##\n",
            (1, 13),
            "'##' cannot appear at either end",
        ),
        (
            "#define f(__VA_ARGS__) 1\n",
            (1, 11),
            "__VA_ARGS__ can only appear",
        ),
    ];
    for (src, at, message) in cases {
        let e = errors(src);
        assert_eq!(e.len(), 1, "{src}: {e:?}");
        assert_eq!((e[0].0, e[0].1), *at, "{src}: {e:?}");
        assert!(e[0].2.contains(message), "{src}: {e:?}");
    }
    let w = warnings("#define g __VA_ARGS__\ng");
    assert_eq!(w.len(), 1);
    assert_eq!((w[0].0, w[0].1), (1, 11));
    same("#define g __VA_ARGS__\ng", "__VA_ARGS__");
    // `#` in an object-like macro is an ordinary token.
    same("#define H # x\ny H", "y # x");
}

#[test]
fn invocation_errors() {
    let e = errors("#define f(a, b) a\nf(1)\nf(1, 2, 3)\n  f(1,");
    assert_eq!(
        e.iter().map(|(l, c, _)| (*l, *c)).collect::<Vec<_>>(),
        vec![(2, 4), (3, 10), (4, 3)]
    );
    assert!(e[0].2.contains("too few arguments"));
    assert!(e[1].2.contains("too many arguments"));
    assert!(e[2]
        .2
        .contains("unterminated function-like macro invocation"));
}

#[test]
fn undef_and_redefine() {
    same("#define A 1\nA\n#undef A\nA\n#define A 2\nA", "1 A 2");
    same("#undef NEVER_DEFINED\nx", "x");
    assert!(warnings("#define A 1\n#define A 1\n").is_empty());
    assert_eq!(warnings("#define A 1\n#define A 2\n").len(), 1);
}

#[test]
fn directives_inside_arguments() {
    same(
        "#define f(x) [x]\nf(1\n#ifdef NOPE\n2\n#else\n3\n#endif\n)",
        "[1 3]",
    );
}

#[test]
fn expansion_spans_are_the_invocation() {
    let (toks, _) = pp("#define ADD(a, b) a + b\n\n   ADD(x,\n y)");
    let at: Vec<(u32, u32)> = toks.iter().map(|t| (t.span.line, t.span.col)).collect();
    // x from the argument, + from the macro (at its name), y from the
    // argument on the next line.
    assert_eq!(&at[..3], &[(3, 8), (3, 4), (4, 2)]);
}

// ---- conditionals ----

#[test]
fn conditional_groups() {
    same(
        "#if 1\na\n#else\nb\n#endif\n#if 0\nc\n#elif 2 > 1\nd\n#elif 1\ne\n#else\nf\n#endif",
        "a d",
    );
    same("#if 0\n#if 1\nx\n#else\ny\n#endif\n#else\nz\n#endif", "z");
    same(
        "#define A\n#ifdef A\n1\n#endif\n#ifndef A\n2\n#endif\n#ifdef B\n3\n#else\n4\n#endif",
        "1 4",
    );
    // Garbage in a skipped group is fine.
    same("#if 0\n#bogus\n'unterminated\n#error no\n#endif\nok", "ok");
}

#[test]
fn if_expressions() {
    let truths = [
        "1",
        "defined A",
        "defined(A)",
        "defined ( A ) && !defined B",
        "UNKNOWN == 0",
        "A + 1 == 2",
        "F(3) == 9",
        "1 ? 2 : 0",
        "0 ? 0 : 3",
        "(1, 2) == 2",
        "-1 < 0",
        "-1 > 0u",
        "0xffffffffffffffff == -1",
        "18446744073709551615u > 0",
        "~0u == 18446744073709551615u",
        "1 << 63 < 0",
        "(1u << 63) > 0",
        "-8 >> 1 == -4",
        "7 / 2 == 3 && 7 % 2 == 1 && -7 / 2 == -3",
        "(3 & 5) == 1 && (3 | 5) == 7 && (3 ^ 5) == 6",
        "1 <= 1 && 1 >= 1 && 2 != 1",
        "'a' == 97 && '\\n' == 10 && '\\377' < 0",
        "0 && 1 / 0 || 1",
        "1 || 1 / 0",
        "0 ? 1 / 0 : 1",
        "+3 == 3 && !0",
        "true == 0",
        "__OPENCL_VERSION__ >= 200",
        "(0 ? 1u : -1) > 0",
        "(8 << -1) == 4 && (8 >> -2) == 32 && (1 << 64) == 0 && (-1 >> 70) == -1",
    ];
    for e in truths {
        let src = format!("#define A 1\n#define F(x) (x*x)\n#if {e}\nyes\n#else\nno\n#endif");
        assert_eq!(spell(&src), "yes", "#if {e}");
    }
    for e in ["0", "defined B", "defined(F) && 0", "B", "-1 > 0"] {
        let src = format!("#define F(x) x\n#if {e}\nyes\n#else\nno\n#endif");
        assert_eq!(spell(&src), "no", "#if {e}");
    }
}

#[test]
fn if_expression_errors() {
    let cases: &[(&str, (u32, u32), &str)] = &[
        ("#if 1 / 0\n#endif", (1, 7), "division by zero"),
        ("#if 1 % (2 - 2)\n#endif", (1, 7), "remainder by zero"),
        ("#if\n#endif", (1, 2), "expected value"),
        ("#if 1 +\n#endif", (1, 2), "expected value"),
        ("#if (1\n#endif", (1, 2), "expected ')'"),
        ("#if 1 2\n#endif", (1, 7), "not a valid binary operator"),
        ("#if 1.0\n#endif", (1, 5), "floating point"),
        ("#if 1 ? 2\n#endif", (1, 2), "expected ':'"),
        (
            "#if defined\n#endif",
            (1, 5),
            "macro name must be an identifier",
        ),
        (
            "#if defined(A\n#endif",
            (1, 5),
            "missing ')' after 'defined'",
        ),
        ("#if x = 1\n#endif", (1, 7), "not a valid binary operator"),
        ("\n  #if 0\n#elif 1/0\n#endif", (3, 8), "division by zero"),
    ];
    for (src, at, message) in cases {
        let e = errors(src);
        assert_eq!(e.len(), 1, "{src}: {e:?}");
        assert_eq!((e[0].0, e[0].1), *at, "{src}: {e:?}");
        assert!(e[0].2.contains(message), "{src}: {e:?}");
    }
}

#[test]
fn conditional_structure_errors() {
    let cases: &[(&str, (u32, u32), &str)] = &[
        ("x\n  #if 1\n", (2, 3), "unterminated conditional"),
        ("#ifdef X\n#else\n", (1, 1), "unterminated conditional"),
        ("#else\n", (1, 2), "#else without #if"),
        ("#elif 1\n", (1, 2), "#elif without #if"),
        ("#endif\n", (1, 2), "#endif without #if"),
        ("#if 1\n#else\n#else\n#endif\n", (3, 2), "#else after #else"),
        (
            "#if 0\n#else\n#elif 1\n#endif\n",
            (3, 2),
            "#elif after #else",
        ),
        ("#ifdef\n#endif\n", (1, 2), "macro name missing"),
        (
            "#ifndef 3\n#endif\n",
            (1, 9),
            "macro name must be an identifier",
        ),
    ];
    for (src, at, message) in cases {
        let e = errors(src);
        assert_eq!(e.len(), 1, "{src}: {e:?}");
        assert_eq!((e[0].0, e[0].1), *at, "{src}: {e:?}");
        assert!(e[0].2.contains(message), "{src}: {e:?}");
    }
    assert_eq!(warnings("#if 1\n#endif X\n").len(), 1);
}

// ---- other directives ----

#[test]
fn error_warning_and_unknown_directives() {
    let e = errors("x\n #error this is \"bad\" stuff\n");
    assert_eq!(e, vec![(2, 3, "this is \"bad\" stuff".to_string())]);
    let w = warnings("#warning careful\n");
    assert_eq!(w, vec![(1, 2, "careful".to_string())]);
    let e = errors("#frobnicate 1\nok");
    assert_eq!(e.len(), 1);
    assert_eq!((e[0].0, e[0].1), (1, 2));
    // The null directive.
    same("#\n# /* c */\nx", "x");
}

#[test]
fn line_directive() {
    let (toks, map, diags) = pp_full(
        "a\n#line 100\nb __LINE__\n#line 7 \"foo.cl\"\nc __FILE__ __LINE__\n# 42 \"bar.cl\" 2\nd",
        &[],
        &BuildOptions::default(),
        &TargetCaps::default(),
    );
    assert!(!diags.has_errors(), "{:?}", diags.list);
    let b = &toks[1];
    assert_eq!(b.span.line, 100);
    assert_eq!(
        toks[2].kind,
        TokenKind::IntLiteral {
            value: 100,
            suffix: String::new(),
            radix: 10
        }
    );
    let c = &toks[3];
    assert_eq!(c.span.line, 7);
    assert_eq!(map.files[c.span.file as usize].name, "foo.cl");
    assert_eq!(toks[4].kind, TokenKind::StringLiteral(b"foo.cl".to_vec()));
    assert_eq!(
        toks[5].kind,
        TokenKind::IntLiteral {
            value: 7,
            suffix: String::new(),
            radix: 10
        }
    );
    let d = &toks[6];
    assert_eq!(d.span.line, 42);
    assert_eq!(map.files[d.span.file as usize].name, "bar.cl");
    let e = errors("#line 0\n#line x\n#line 5 y\n");
    assert_eq!(e.len(), 3, "{e:?}");
}

#[test]
fn file_and_line() {
    let (toks, _) = pp("__FILE__\n\n  __LINE__\n#define L __LINE__\nL");
    assert_eq!(toks[0].kind, TokenKind::StringLiteral(b"<source>".to_vec()));
    assert!(matches!(
        toks[1].kind,
        TokenKind::IntLiteral { value: 3, .. }
    ));
    assert!(matches!(
        toks[2].kind,
        TokenKind::IntLiteral { value: 5, .. }
    ));
}

fn pp_caps(src: &str) -> (Vec<Token>, Diagnostics) {
    let caps = TargetCaps {
        extensions: vec!["cl_khr_fp64".into(), "cl_khr_fp16".into()],
        ..TargetCaps::default()
    };
    let (t, _, d) = pp_full(src, &[], &BuildOptions::default(), &caps);
    (t, d)
}

#[test]
fn pragmas() {
    let (toks, diags) = pp_caps(
        "#pragma OPENCL EXTENSION cl_khr_fp64:enable\n#pragma unroll\n#define N 4\n#pragma unroll N\n#pragma OPENCL FP_CONTRACT OFF\n#pragma STDC FP_CONTRACT ON\n#pragma weird stuff\n#pragma\nx _Pragma(\"OPENCL EXTENSION all : disable\") y",
    );
    assert!(diags.list.is_empty(), "{:?}", diags.list);
    let kinds: Vec<TokenKind> = toks.into_iter().map(|t| t.kind).collect();
    assert_eq!(
        kinds,
        vec![
            TokenKind::Pragma("OPENCL EXTENSION cl_khr_fp64 : enable".into()),
            TokenKind::Pragma("unroll".into()),
            TokenKind::Pragma("unroll 4".into()),
            TokenKind::Pragma("OPENCL FP_CONTRACT OFF".into()),
            TokenKind::Pragma("STDC FP_CONTRACT ON".into()),
            ident("x"),
            TokenKind::Pragma("OPENCL EXTENSION all : disable".into()),
            ident("y"),
            TokenKind::Eof
        ]
    );
    // OPENCL pragmas are not macro-expanded.
    let (toks, _) =
        pp_caps("#define enable disable\n#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n");
    assert_eq!(
        toks[0].kind,
        TokenKind::Pragma("OPENCL EXTENSION cl_khr_fp16 : enable".into())
    );
    // _Pragma from a macro.
    let (toks, _) = pp("#define P _Pragma(\"unroll 2\") for\nP");
    assert_eq!(toks[0].kind, TokenKind::Pragma("unroll 2".into()));
    assert_eq!(toks[1].kind, ident("for"));
    assert_eq!(errors("_Pragma(1)").len(), 1);
}

#[test]
fn bad_opencl_pragmas_are_ignored_with_warnings() {
    let src = "#pragma OPENCL EXTENSION cl_khr_gl_sharing : enable
#pragma OPENCL EXTENSION cl_khr_fp64 enable
#pragma OPENCL EXTENSION cl_khr_fp64 : on
#pragma OPENCL EXTENSION all : enable
#pragma OPENCL FP_CONTRACT MAYBE
#pragma OPENCL SELECT_ROUNDING_MODE rte
#pragma OPENCL EXTENSION
x";
    let (toks, diags) = pp_caps(src);
    assert!(!diags.has_errors());
    let w = problems(&diags, Severity::Warning);
    assert_eq!(
        w.iter().map(|(l, c, _)| (*l, *c)).collect::<Vec<_>>(),
        vec![(1, 26), (2, 38), (3, 40), (4, 32), (5, 28), (6, 16), (7, 1)]
    );
    assert!(w[0]
        .2
        .contains("unsupported OpenCL extension 'cl_khr_gl_sharing'"));
    assert_eq!(toks.len(), 2, "every bad pragma is dropped");
}

// ---- includes ----

fn headers() -> Vec<Header> {
    vec![
        Header {
            name: "a.h".into(),
            source: "#ifndef A_H\n#define A_H\nint a;\n#include \"b.h\"\n#endif\n".into(),
        },
        Header {
            name: "b.h".into(),
            source: "#define B 2\nint b = B;\n".into(),
        },
        Header {
            name: "dir/c.h".into(),
            source: "#pragma once\nint c;\n".into(),
        },
        Header {
            name: "self.h".into(),
            source: "#include \"self.h\"\n".into(),
        },
        Header {
            name: "open.h".into(),
            source: "#if 1\nint o;\n".into(),
        },
    ]
}

fn spell_headers(src: &str) -> (String, Diagnostics) {
    spell_with(
        src,
        &headers(),
        &BuildOptions::default(),
        &TargetCaps::default(),
    )
}

#[test]
fn include_in_memory_headers() {
    let (text, diags) = spell_headers(
        "#include \"a.h\"\n#include <a.h>\n#include \"dir/c.h\"\n#include \"dir/c.h\"\n#define H \"b.h\"\n#include H\nend",
    );
    assert!(!diags.has_errors(), "{:?}", diags.list);
    assert_eq!(text, spell("int a; int b = 2; int c; int b = 2; end"));
}

#[test]
fn include_through_macros_and_boundaries() {
    let (text, diags) = spell_headers("#define HDR <b.h>\n#include HDR\nB");
    assert!(!diags.has_errors(), "{:?}", diags.list);
    assert_eq!(text, spell("int b = 2; 2"));
    // A header cannot close the includer's conditional.
    let hs = vec![Header {
        name: "close.h".into(),
        source: "#endif\n".into(),
    }];
    let (_, diags) = spell_with(
        "#if 1\n#include \"close.h\"\n#endif\n",
        &hs,
        &BuildOptions::default(),
        &TargetCaps::default(),
    );
    let e = problems(&diags, Severity::Error);
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].2.contains("#endif without #if"));
    // Nor can a macro invocation run out of a header.
    let hs = vec![Header {
        name: "half.h".into(),
        source: "#define f(x) x\nf(1,\n".into(),
    }];
    let (text, diags) = spell_with(
        "#include \"half.h\"\n2)",
        &hs,
        &BuildOptions::default(),
        &TargetCaps::default(),
    );
    assert_eq!(problems(&diags, Severity::Error).len(), 1);
    assert_eq!(text, "2 )");
}

#[test]
fn warnings_follow_w_and_werror() {
    let mut diags = Diagnostics {
        warnings_are_errors: true,
        ..Diagnostics::default()
    };
    preprocess(
        "#warning w\n",
        &[],
        &BuildOptions::default(),
        &TargetCaps::default(),
        &mut diags,
    );
    assert!(diags.has_errors());
    let mut diags = Diagnostics {
        suppress_warnings: true,
        ..Diagnostics::default()
    };
    preprocess(
        "#warning w\n#define A 1\n#define A 2\n",
        &[],
        &BuildOptions::default(),
        &TargetCaps::default(),
        &mut diags,
    );
    assert!(diags.list.is_empty());
}

#[test]
fn diagnostics_after_line_show_no_wrong_source() {
    let (_, map, diags) = pp_full(
        "#line 50 \"k.cl\"\n#error stop\n",
        &[],
        &BuildOptions::default(),
        &TargetCaps::default(),
    );
    assert_eq!(
        diags.render(&map),
        "k.cl:50:2: error: stop\n1 error generated.\n"
    );
    let (_, map, diags) = pp_full(
        "int x;\n  #error here\n",
        &[],
        &BuildOptions::default(),
        &TargetCaps::default(),
    );
    assert_eq!(
        diags.render(&map),
        "<source>:2:4: error: here\n  #error here\n   ^\n1 error generated.\n"
    );
}

#[test]
fn include_errors() {
    let (_, diags) = spell_headers("x\n#include \"missing.h\"\n#include\n#include 3\n");
    let e = problems(&diags, Severity::Error);
    assert_eq!(
        e.iter().map(|(l, c, _)| (*l, *c)).collect::<Vec<_>>(),
        vec![(2, 10), (3, 2), (4, 10)]
    );
    assert!(e[0].2.contains("'missing.h' file not found"));
    // Recursion stops at the depth limit with one error.
    let (_, diags) = spell_headers("#include \"self.h\"\n");
    let e = problems(&diags, Severity::Error);
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].2.contains("nested too deeply"));
    // A conditional left open in a header is an error there, not later.
    let (text, diags) = spell_headers("#include \"open.h\"\nafter\n");
    let e = problems(&diags, Severity::Error);
    assert_eq!(e.len(), 1, "{e:?}");
    assert_eq!(text, "int o ; after");
}

/// A directory of this test process and thread, for files a test writes.
fn scratch_dir(tag: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!(
        "ferrocl-pp-{tag}-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ))
}

#[test]
fn include_from_disk_directories() {
    let dir = scratch_dir("test");
    let sub = dir.join("inc");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(
        sub.join("disk.h"),
        "#define DISK 7\nint from_disk = DISK;\n",
    )
    .unwrap();
    let options = BuildOptions::parse(&format!("-I {}", sub.display())).unwrap();
    let (toks, map, diags) = pp_full(
        "#include <disk.h>\nx",
        &[],
        &options,
        &TargetCaps::default(),
    );
    assert!(!diags.has_errors(), "{:?}", diags.list);
    assert_eq!(toks[0].kind, ident("int"));
    assert!(map.files[toks[0].span.file as usize]
        .name
        .ends_with("disk.h"));
    // Without -I the file is not found: the current directory is not
    // searched.
    let (_, _, diags) = pp_full(
        "#include \"disk.h\"\n",
        &[],
        &BuildOptions::default(),
        &TargetCaps::default(),
    );
    assert!(diags.has_errors());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn quoted_includes_look_beside_the_including_header_first() {
    // pyopencl's random123 headers: `-I cl`, the source includes
    // "lib/top.h", which includes "inner.h" from its own directory; an
    // `inner.h` in the -I directory must not win, and <inner.h> still
    // searches only -I.
    let dir = scratch_dir("beside");
    let lib = dir.join("lib");
    std::fs::create_dir_all(&lib).unwrap();
    std::fs::write(lib.join("top.h"), "#include \"inner.h\"\n").unwrap();
    std::fs::write(lib.join("inner.h"), "int beside;\n").unwrap();
    std::fs::write(dir.join("inner.h"), "int on_path;\n").unwrap();
    std::fs::write(lib.join("angled.h"), "#include <inner.h>\n").unwrap();
    let options = BuildOptions::parse(&format!("-I {}", dir.display())).unwrap();
    let spelled = |src: &str| {
        let (toks, _, diags) = pp_full(src, &[], &options, &TargetCaps::default());
        assert!(!diags.has_errors(), "{:?}", diags.list);
        toks.iter()
            .filter_map(|t| match &t.kind {
                TokenKind::Identifier(name) => Some(name.clone()),
                _ => None,
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(spelled("#include \"lib/top.h\"\n"), ["int", "beside"]);
    assert_eq!(spelled("#include \"lib/angled.h\"\n"), ["int", "on_path"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn recorded_includes_preprocess_again_without_the_directory() {
    // hashcat's layout: the source includes headers by absolute path, and
    // those include their neighbours by bare quoted names. A link
    // compiles the objects again from the recorded files alone.
    let dir = scratch_dir("recorded");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("inc_vendor.h"),
        "#ifndef VENDOR\n#define VENDOR 7\n#endif\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("inc_platform.cl"),
        "#include \"inc_vendor.h\"\nint platform = VENDOR;\n",
    )
    .unwrap();
    let source = format!(
        "#include \"{0}/inc_vendor.h\"\n#include \"{0}/inc_platform.cl\"\n",
        dir.display()
    );
    let options = BuildOptions::default();
    let caps = TargetCaps::default();
    let spelled = |toks: &[Token]| {
        toks.iter()
            .map(|t| format!("{:?}", t.kind))
            .collect::<Vec<_>>()
    };
    let mut diags = Diagnostics::default();
    let (first, _, recorded) =
        super::preprocess_recording_includes(&source, &[], &options, &caps, &mut diags);
    assert!(!diags.has_errors(), "{:?}", diags.list);
    std::fs::remove_dir_all(&dir).unwrap();
    let mut diags = Diagnostics::default();
    let (again, _) = preprocess(&source, &recorded, &options, &caps, &mut diags);
    assert!(!diags.has_errors(), "{:?}", diags.list);
    assert_eq!(spelled(&first), spelled(&again));
    assert!(spelled(&again).iter().any(|t| t.contains('7')), "{again:?}");
}

// ---- predefined macros ----

fn value_of(src_expr: &str, options: &str, caps: &TargetCaps) -> String {
    let options = BuildOptions::parse(options).unwrap();
    let (text, diags) = spell_with(src_expr, &[], &options, caps);
    assert!(!diags.has_errors(), "{:?}", diags.list);
    text
}

#[test]
fn predefined_macros() {
    let caps = TargetCaps::default();
    assert_eq!(
        value_of(
            "__OPENCL_VERSION__ CL_VERSION_1_0 CL_VERSION_1_1 CL_VERSION_1_2 CL_VERSION_2_0 CL_VERSION_3_0 __ENDIAN_LITTLE__",
            "",
            &caps
        ),
        "300 100 110 120 200 300 1"
    );
    assert_eq!(value_of("__OPENCL_C_VERSION__", "", &caps), "120");
    assert_eq!(
        value_of("__OPENCL_C_VERSION__", "-cl-std=CL1.1", &caps),
        "110"
    );
    assert_eq!(
        value_of("__OPENCL_C_VERSION__", "-cl-std=CL2.0", &caps),
        "200"
    );
    assert_eq!(
        value_of("__OPENCL_C_VERSION__", "-cl-std=CL3.0", &caps),
        "300"
    );
    assert_eq!(
        value_of("__IMAGE_SUPPORT__", "", &caps),
        "__IMAGE_SUPPORT__"
    );
    let with_images = TargetCaps {
        images: true,
        ..TargetCaps::default()
    };
    assert_eq!(value_of("__IMAGE_SUPPORT__", "", &with_images), "1");
    assert_eq!(
        value_of("__FAST_RELAXED_MATH__", "", &caps),
        "__FAST_RELAXED_MATH__"
    );
    assert_eq!(
        value_of("__FAST_RELAXED_MATH__", "-cl-fast-relaxed-math", &caps),
        "1"
    );
    assert_eq!(value_of("NULL", "", &caps), "NULL");
    assert_eq!(value_of("NULL", "-cl-std=CL2.0", &caps), "( ( void * ) 0 )");
    assert_eq!(
        value_of("__kernel_exec(64, float4) kernel_exec(1, int)", "", &caps),
        "__kernel __attribute__ ( ( work_group_size_hint ( 64 , 1 , 1 ) ) ) __attribute__ ( ( vec_type_hint ( float4 ) ) ) \
         __kernel __attribute__ ( ( work_group_size_hint ( 1 , 1 , 1 ) ) ) __attribute__ ( ( vec_type_hint ( int ) ) )"
    );
}

#[test]
fn extension_and_feature_macros() {
    let caps = TargetCaps {
        extensions: vec!["cl_khr_fp64".into(), "cl_khr_int64_base_atomics".into()],
        features: vec!["__opencl_c_fp64".into(), "__opencl_c_int64".into()],
        ..TargetCaps::default()
    };
    let src = "cl_khr_fp64 cl_khr_int64_base_atomics cl_khr_fp16 __opencl_c_fp64 __opencl_c_int64";
    assert_eq!(
        value_of(src, "", &caps),
        "1 1 cl_khr_fp16 __opencl_c_fp64 __opencl_c_int64"
    );
    assert_eq!(
        value_of(src, "-cl-std=CL2.0", &caps),
        "1 1 cl_khr_fp16 __opencl_c_fp64 __opencl_c_int64"
    );
    assert_eq!(value_of(src, "-cl-std=CL3.0", &caps), "1 1 cl_khr_fp16 1 1");
}

#[test]
fn command_line_defines() {
    let caps = TargetCaps::default();
    assert_eq!(
        value_of(
            "A B C F(3) __OPENCL_VERSION__",
            "-D A -DB=2 -D C=x+y -D 'F(a)=a*a'",
            &caps
        ),
        "1 2 x + y 3 * 3 300"
    );
    // -D comes after the predefined macros, so it may redefine them.
    let options = BuildOptions::parse("-D __ENDIAN_LITTLE__=0").unwrap();
    let (text, diags) = spell_with("__ENDIAN_LITTLE__", &[], &options, &caps);
    assert_eq!(text, "0");
    assert_eq!(problems(&diags, Severity::Warning).len(), 1);
    // A bad definition made by hand is diagnosed in <command line>.
    let options = BuildOptions {
        defines: vec![("3x".into(), None)],
        ..BuildOptions::default()
    };
    let (_, map, diags) = pp_full("", &[], &options, &caps);
    assert!(diags.has_errors());
    let span = diags.list[0].span.unwrap();
    assert_eq!(map.files[span.file as usize].name, "<command line>");
}

// ---- robustness ----

#[test]
fn unterminated_things_do_not_panic() {
    for src in [
        "/* open",
        "\"open",
        "'open",
        "#if 1",
        "#if 0\n#else",
        "#define f(x) x\nf(",
        "#define",
        "#include",
        "#include <a",
        "#include \"a",
        "\\",
        "a\\",
        "#define s(x) #x\ns(\"",
        "#if (",
        "_Pragma(",
        "_Pragma",
        "#line",
        "#pragma",
        "#define f(...) __VA_ARGS__\nf(",
        "??=",
        "\u{0}\u{1}\u{7f}",
        "#define a(x) x\n#define b a(\nb b",
    ] {
        let (toks, _) = pp(src);
        assert_eq!(
            toks.last().map(|t| &t.kind),
            Some(&TokenKind::Eof),
            "{src:?}"
        );
    }
}

#[test]
fn random_input_does_not_panic() {
    // A fixed linear congruential generator: reproducible inputs.
    let mut state: u64 = 0x243F_6A88_85A3_08D3;
    let mut next = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) as u32
    };
    let pieces = [
        "#",
        "##",
        "define",
        "if",
        "elif",
        "else",
        "endif",
        "include",
        "(",
        ")",
        ",",
        "...",
        "__VA_ARGS__",
        "x",
        "f",
        "\n",
        " ",
        "\"",
        "'",
        "\\",
        "/*",
        "*/",
        "//",
        "0x",
        "1",
        "defined",
        "_Pragma",
        "line",
        "undef",
        "ifdef",
        "pragma",
        "error",
        "<",
        ">",
        "e+",
        "\\\n",
        "1.5",
        "?",
        ":",
        "/",
        "0",
    ];
    for _ in 0..300 {
        let mut src = String::new();
        let len = next() % 200;
        for _ in 0..len {
            if next() % 5 == 0 {
                let b = (next() % 128) as u8;
                src.push(b as char);
            } else {
                src.push_str(pieces[(next() as usize) % pieces.len()]);
            }
        }
        let (toks, _) = pp(&src);
        assert_eq!(toks.last().map(|t| &t.kind), Some(&TokenKind::Eof));
    }
}

#[test]
fn exponential_expansion_is_capped() {
    let mut src = String::from("#define m0 x x\n");
    for i in 1..40 {
        src.push_str(&format!("#define m{i} m{} m{}\n", i - 1, i - 1));
    }
    src.push_str("m39\n");
    let e = errors(&src);
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].2.contains("macro expansion produces more than"));
}

#[test]
fn deep_nesting_is_bounded() {
    let depth = 5000;
    let src = format!(
        "#define f(x) x\n{}1{}",
        "f(".repeat(depth),
        ")".repeat(depth)
    );
    let e = errors(&src);
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].2.contains("nested too deeply"), "{e:?}");
    // Nesting within the limit is fine.
    same(
        &format!("#define f(x) x\n{}1{}", "f(".repeat(100), ")".repeat(100)),
        "1",
    );
    let src = format!("#if {}1{}\n#endif", "(".repeat(depth), ")".repeat(depth));
    let e = errors(&src);
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].2.contains("nested too deeply"));
    let src = format!("#if {}1\n#endif", "-".repeat(depth));
    assert_eq!(errors(&src).len(), 1);
}

#[test]
fn long_sources_stay_linear() {
    // 50k lines with macros and skipped groups: correctness only (no
    // timing), but a quadratic pass would make this test crawl.
    let mut src = String::from("#define ADD(a, b) ((a) + (b))\n");
    for i in 0..50_000 {
        src.push_str(&format!(
            "int v{i} = ADD({i}, 1);\n#if 0\nskipped\n#endif\n"
        ));
    }
    let (toks, diags) = pp(&src);
    assert!(!diags.has_errors());
    assert_eq!(toks.len(), 50_000 * 13 + 1);
}

#[test]
fn random_macro_programs_do_not_panic() {
    // Random definitions, conditionals and uses, from a fixed seed.
    let mut state: u64 = 12345;
    let mut next = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) as usize
    };
    let names = [
        "a",
        "b",
        "f",
        "g",
        "h",
        "__VA_ARGS__",
        "defined",
        "_Pragma",
        "x",
        "__LINE__",
        "__FILE__",
    ];
    let bodies = [
        "#",
        "##",
        "(",
        ")",
        ",",
        "x",
        "a",
        "f",
        "g",
        "h",
        "\"s\"",
        "'c'",
        "1",
        "__VA_ARGS__",
        "...",
        "_Pragma",
        "defined",
        "#a",
        "a##b",
        "##",
    ];
    for _ in 0..1000 {
        let mut src = String::new();
        for _ in 0..(next() % 12) {
            match next() % 7 {
                0 | 1 => {
                    src.push_str("#define ");
                    src.push_str(names[next() % names.len()]);
                    if next() % 2 == 0 {
                        src.push('(');
                        for k in 0..(next() % 3) {
                            if k > 0 {
                                src.push(',');
                            }
                            src.push_str(["a", "b", "...", "c"][next() % 4]);
                        }
                        src.push(')');
                    }
                    for _ in 0..(next() % 6) {
                        src.push(' ');
                        src.push_str(bodies[next() % bodies.len()]);
                    }
                }
                2 => {
                    src.push_str(
                        [
                            "#if ",
                            "#elif ",
                            "#ifdef ",
                            "#else",
                            "#endif",
                            "#undef ",
                            "#include ",
                        ][next() % 7],
                    );
                    for _ in 0..(next() % 5) {
                        src.push_str(bodies[next() % bodies.len()]);
                        src.push_str([" ", "+", "/", "?", ":", "<<"][next() % 6]);
                    }
                }
                _ => {
                    for _ in 0..(next() % 10) {
                        src.push_str(bodies[next() % bodies.len()]);
                        if next() % 3 == 0 {
                            src.push(' ');
                        }
                    }
                }
            }
            src.push('\n');
        }
        let r = std::panic::catch_unwind(|| pp(&src));
        assert!(r.is_ok(), "panicked on:\n{src}");
    }
}
