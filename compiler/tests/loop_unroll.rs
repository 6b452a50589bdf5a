//! Counted loops with a run-time bound are unrolled by the compiler
//! (compiler/src/lower/unroll.rs); loops that do not qualify are left as
//! written. Each body below holds one `popcount`, so the number of
//! `OpBitCount`s counts the copies of the body: four unrolled plus the
//! remainder loop's, or one. Results are checked on a device in
//! icd/tests/loop_unroll.rs.

mod common;

use common::build;
use ferrocl_compiler::{compile, CompileRequest, CompiledProgram, TargetCaps};

/// `build` with `-cl-std=CL2.0`, which allows `static` in functions.
fn build_cl20(source: &str) -> CompiledProgram {
    build_cl20_caps(source, &common::caps())
}

/// The unroller's own output: loop invariants left where it wrote them
/// (spirv/hoist.rs would move the limit's sign flip out of the test).
fn build_cl20_unhoisted(source: &str) -> CompiledProgram {
    let caps = TargetCaps {
        hoist_loop_invariants: false,
        ..common::caps()
    };
    build_cl20_caps(source, &caps)
}

fn build_cl20_caps(source: &str, caps: &TargetCaps) -> CompiledProgram {
    let request = CompileRequest {
        source,
        options: "-cl-std=CL2.0",
        headers: &[],
    };
    match compile(&request, caps) {
        Ok(p) => {
            common::validate(&p.spirv);
            p
        }
        Err(e) => panic!("build failed:\n{}", e.log),
    }
}

fn copies_of_body(src: &str) -> usize {
    let p = build_cl20(src);
    let text = common::disassemble(&p.spirv);
    text.lines().filter(|l| l.contains("OpBitCount")).count()
}

fn kernel(params: &str, body: &str) -> String {
    format!(
        "kernel void k(global uint *out, uint n, int m, long l, ulong u{params}) {{\n\
           uint acc = 0;\n\
           {body}\n\
           out[get_global_id(0)] = acc;\n\
         }}\n"
    )
}

#[test]
fn counted_loops_with_a_run_time_bound_are_unrolled_four_times() {
    for body in [
        "for (uint i = 0; i < n; ++i) acc += popcount(i);",
        "for (uint i = 0; i < n; i++) acc += popcount(i);",
        "for (uint i = 0; i < n; i += 2) acc += popcount(i);",
        "for (uint i = 0; i < n; i = i + 3) acc += popcount(i);",
        "for (uint i = 0; i < n; i = 3 + i) acc += popcount(i);",
        "for (uint i = 0; n > i; ++i) acc += popcount(i);",
        "for (uint i = 0; i <= n; ++i) acc += popcount(i);",
        "for (long i = -3; l >= i; i += 3) acc += popcount((uint)i);",
        "for (int i = -7; i < m; i += 5) acc += popcount((uint)i);",
        "for (long i = 0; i < l; ++i) acc += popcount((uint)i);",
        "for (ulong i = 1; i < u; i += 4) { uint t = (uint)i; acc += popcount(t * 3u); }",
        "uint i = 5; for (; i < n; ++i) acc += popcount(i);",
        "for (uint i = 0; i < n; ++i) { if (acc > 9u) acc += popcount(i); else acc += 2u; }",
        "for (uint i = 0; i < n; ++i) { barrier(CLK_LOCAL_MEM_FENCE); acc += popcount(i); }",
        // A work-group size that is then changed, or a name that also
        // holds other values, is a bound like any other.
        "uint wg = get_local_size(0); wg += n; for (uint i = 0; i < wg; ++i) acc += popcount(i);",
        "uint wg = get_local_size(0); wg++; for (uint i = 0; i < wg; ++i) acc += popcount(i);",
        "uint wg = get_local_size(0); { uint wg = n; for (uint i = 0; i < wg; ++i) acc += popcount(i); }",
        // Steps the loop does not change, known at run time.
        "uint s = n / 3u + 1u; for (uint i = 0; i < n; i += s) acc += popcount(i);",
        "for (uint i = 0; i < n; i += get_global_size(0)) acc += popcount(i);",
        "for (int i = -7; i < m; i = i + (int)get_local_size(0)) acc += popcount((uint)i);",
        "for (ulong i = 0; i < u; i += l) acc += popcount((uint)i);",
    ] {
        assert_eq!(copies_of_body(&kernel("", body)), 5, "{body}");
    }
}

/// The unrolled loop's test compares the counter with a limit computed
/// once before the loop (`bound - (bound - counter) % span`, or the
/// counter where the loop does not run), so that the driver can count its
/// trips; it no longer tests `counter < bound && bound - counter >= span`.
/// For `counter <= bound` the limit counts from the bound plus one.
#[test]
fn the_unrolled_loop_runs_to_a_limit_computed_before_it() {
    for (body, remainder) in [
        (
            "for (uint i = 0; i < n; ++i) acc += popcount(i);",
            "OpBitwiseAnd",
        ),
        (
            "for (uint i = 0; i < n; i += 3) acc += popcount(i);",
            "OpUMod",
        ),
        (
            "for (int i = -7; i < m; i += 5) acc += popcount((uint)i);",
            "OpUMod",
        ),
        (
            "for (long i = 0; i < l; ++i) acc += popcount((uint)i);",
            "OpBitwiseAnd",
        ),
        (
            "for (ulong i = 1; i < u; i += 2) acc += popcount((uint)i);",
            "OpBitwiseAnd",
        ),
        (
            "for (uint i = 0; i <= n; ++i) acc += popcount(i);",
            "OpBitwiseAnd",
        ),
        (
            "for (int i = 5; m >= i; i += 7) acc += popcount((uint)i);",
            "OpUMod",
        ),
        (
            "for (uint i = 0; i < n; i += get_global_size(0)) acc += popcount(i);",
            "OpUMod",
        ),
    ] {
        let text = common::disassemble(&build_cl20_unhoisted(&kernel("", body)).spirv);
        let lines: Vec<&str> = text.lines().collect();
        let merge = lines
            .iter()
            .position(|l| l.contains("OpLoopMerge"))
            .unwrap();
        let before = &lines[..merge];
        let limit = before
            .iter()
            .rev()
            .find(|l| l.contains("OpSelect"))
            .and_then(|l| l.split_whitespace().next())
            .unwrap_or_else(|| panic!("no limit before the loop: {body}\n{text}"));
        assert!(
            before.iter().any(|l| l.contains(remainder)),
            "{body}\n{text}"
        );
        let check_end = merge
            + lines[merge..]
                .iter()
                .position(|l| l.contains("OpBranchConditional"))
                .unwrap();
        let check = &lines[merge..check_end];
        assert!(
            check
                .iter()
                .any(|l| l.split_whitespace().any(|w| w == limit)),
            "the test does not read the limit {limit}: {body}\n{}",
            check.join("\n")
        );
        assert!(
            !check
                .iter()
                .any(|l| l.contains("OpLogicalAnd") || l.contains("OpISub")),
            "{body}\n{}",
            check.join("\n")
        );
    }
}

#[test]
fn larger_bodies_are_unrolled_twice_and_the_largest_not_at_all() {
    let ops = |count: usize| "acc = acc * 3u + i; ".repeat(count);
    let twice = format!(
        "for (uint i = 0; i < n; ++i) {{ acc += popcount(i); {} }}",
        ops(40)
    );
    assert_eq!(copies_of_body(&kernel("", &twice)), 3);
    let never = format!(
        "for (uint i = 0; i < n; ++i) {{ acc += popcount(i); {} }}",
        ops(90)
    );
    assert_eq!(copies_of_body(&kernel("", &never)), 1);
}

#[test]
fn loops_that_do_not_qualify_are_left_as_written() {
    for (params, body, why) in [
        (
            "",
            "for (uint i = 0; i < 64u; ++i) acc += popcount(i);",
            "constant bound: the driver unrolls it",
        ),
        (
            "",
            "for (uint i = 0; i != n; ++i) acc += popcount(i);",
            "not a `<` or `<=` condition",
        ),
        (
            "",
            "uint wg = get_local_size(0); for (uint i = 0; i < wg; ++i) acc += popcount(i);",
            "work-group size bound: the driver knows it",
        ),
        (
            "",
            "uint wg = (uint)get_enqueued_local_size(1); for (uint i = 0; wg > i; i += 2) acc += popcount(i);",
            "enqueued work-group size bound",
        ),
        (
            "",
            "for (uint i = 0; i < n; i += n) acc += popcount(i);",
            "step is the bound",
        ),
        (
            "",
            "uint s = 2u; for (uint i = 0; i < n; i += s) { acc += popcount(i); s++; }",
            "step assigned",
        ),
        (
            "",
            "uint s = 2u; uint *p = &s; for (uint i = 0; i < n; i += s) { acc += popcount(i); *p = 3u; }",
            "step's address taken",
        ),
        (
            "",
            "uint s = 2u; for (uint i = 0; i <= n; i += s) acc += popcount(i);",
            "`<=` with a step known at run time",
        ),
        (
            "",
            "for (uint i = 0; i < n; i += get_global_id(0)) acc += popcount(i);",
            "step not a work size",
        ),
        (
            "",
            "for (uint i = 0; i < n; i -= 1) acc += popcount(i);",
            "not an increment",
        ),
        (
            "",
            "for (uint i = 0; i < n; ++i) { acc += popcount(i); if (acc == 7u) break; }",
            "break",
        ),
        (
            "",
            "for (uint i = 0; i < n; ++i) { if (acc == 7u) continue; acc += popcount(i); }",
            "continue",
        ),
        (
            "",
            "for (uint i = 0; i < n; ++i) { acc += popcount(i); if (acc == 7u) return; }",
            "return",
        ),
        (
            "",
            "for (uint i = 0; i < n; ++i) { acc += popcount(i); n -= 1u; }",
            "bound assigned",
        ),
        (
            "",
            "for (uint i = 0; i < n; ++i) { acc += popcount(i); i++; }",
            "counter assigned",
        ),
        (
            "",
            "uint *p = &n; for (uint i = 0; i < n; ++i) { acc += popcount(i); *p = 1u; }",
            "bound's address taken",
        ),
        (
            "",
            "for (uint i = 0; i < n; ++i) { uint n = 2u; acc += popcount(i + n); }",
            "bound shadowed",
        ),
        (
            "",
            "for (uint i = 0; i < n; ++i) { static uint s; acc += popcount(i); }",
            "static variable",
        ),
        (
            "",
            "for (uint i = 0; i < n; ++i) { for (;;) { acc += popcount(i); break; } }",
            "inner loop",
        ),
        (
            "",
            "for (uint i = 0; i < n; ++i) { switch (i) { default: acc += popcount(i); } }",
            "switch",
        ),
        (
            "",
            "for (ushort i = 0; i < (ushort)n; ++i) acc += popcount(i);",
            "narrow counter",
        ),
        (
            "",
            "for (int i = 0; i < n; ++i) acc += popcount((uint)i);",
            "counter and bound differ in type",
        ),
        (
            ", global uint *g",
            "for (uint i = 0; i < g[0]; ++i) acc += popcount(i);",
            "bound not a variable",
        ),
        (
            "",
            "uint i = 0; do { acc += popcount(i); ++i; } while (i < n);",
            "do-while",
        ),
    ] {
        assert_eq!(copies_of_body(&kernel(params, body)), 1, "{why}: {body}");
    }
}

#[test]
fn loops_holding_a_loop_of_a_few_constant_trips_are_unrolled() {
    // The inner loop is counted once per trip: four trips of a small body
    // leave the outer loop small enough for four copies, sixteen for two.
    let four =
        "for (uint i = 0; i < n; ++i) { for (uint k = 0; k < 4; ++k) acc += popcount(i + k); }";
    assert_eq!(copies_of_body(&kernel("", four)), 5, "{four}");
    let sixteen = "for (uint t = 0; t < n; t += 16) {\n\
                       barrier(CLK_LOCAL_MEM_FENCE);\n\
                       for (uint k = 0; k < 16; ++k) acc = acc * 3u + popcount(t + k);\n\
                       barrier(CLK_LOCAL_MEM_FENCE);\n\
                   }";
    assert_eq!(copies_of_body(&kernel("", sixteen)), 3, "{sixteen}");
    let nested = "for (uint i = 0; i < n; ++i)\n\
                      for (uint k = 0; k < 4; ++k)\n\
                          for (uint j = 0; j < 2; ++j) acc += popcount(i + k + j);";
    assert_eq!(copies_of_body(&kernel("", nested)), 5, "{nested}");
    for (body, why) in [
        (
            "for (uint i = 0; i < n; ++i) { for (uint k = 0; k < m; ++k) acc += popcount(i + k); }",
            "inner bound not constant",
        ),
        (
            "for (uint i = 0; i < n; ++i) { for (uint k = 0; k < 33; ++k) acc += popcount(i + k); }",
            "too many inner trips",
        ),
        (
            "for (uint i = 0; i < n; ++i) { for (uint k = 0; k < 4; ++k) { acc += popcount(k); i++; } }",
            "inner body moves the outer counter",
        ),
        (
            "for (uint i = 0; i < n; ++i) { for (uint k = 0; k < 4; ++k) { acc += popcount(k); n--; } }",
            "inner body moves the bound",
        ),
        (
            "for (uint i = 0; i < n; ++i) { for (uint k = 0; k < 4; ++k) { acc += popcount(k); k += acc & 1u; } }",
            "inner body moves its own counter",
        ),
        (
            "for (uint i = 0; i < n; ++i) { for (uint i = 0; i < 4; ++i) acc += popcount(i); }",
            "inner counter shadows the outer one",
        ),
        (
            "for (uint i = 0; i < n; ++i) { for (uint k = 0; k < 4; ++k) { if (acc == 9u) break; acc += popcount(k); } }",
            "inner break",
        ),
    ] {
        assert_eq!(copies_of_body(&kernel("", body)), 1, "{why}: {body}");
    }
}

#[test]
fn calls_to_the_programs_functions_keep_a_loop_rolled() {
    let src = "uint mix(uint a, uint b) { return a + popcount(b); }\n\
               kernel void k(global uint *out, uint n) {\n\
                 uint acc = 0;\n\
                 for (uint i = 0; i < n; ++i) acc = mix(acc, i);\n\
                 out[0] = acc;\n\
               }\n";
    assert_eq!(copies_of_body(src), 1);
}

#[test]
fn a_warning_in_an_unrolled_body_is_reported_once() {
    let src = "kernel void k(global uint *out, constant uint *c, uint n) {\n\
                 uint acc = 0;\n\
                 for (uint i = 0; i < n; ++i) { global uint *g = c; acc += popcount(g[i]); }\n\
                 out[0] = acc;\n\
               }\n";
    let p = build(src);
    let text = common::disassemble(&p.spirv);
    assert_eq!(text.lines().filter(|l| l.contains("OpBitCount")).count(), 5);
    assert_eq!(p.log.matches("warning:").count(), 1, "{}", p.log);
}

#[test]
fn the_loop_of_the_iterations_left_is_not_unrolled_by_the_driver() {
    let p = build(&kernel(
        "",
        "for (uint i = 0; i < n; ++i) acc += popcount(i);",
    ));
    let text = common::disassemble(&p.spirv);
    let merges: Vec<&str> = text.lines().filter(|l| l.contains("OpLoopMerge")).collect();
    assert_eq!(merges.len(), 2, "{text}");
    assert!(merges[0].trim_end().ends_with("None"), "{}", merges[0]);
    assert!(
        merges[1].trim_end().ends_with("DontUnroll"),
        "{}",
        merges[1]
    );
}

/// The loop controls of each loop, in order.
fn loop_controls(src: &str) -> Vec<String> {
    loop_controls_with(src, &common::caps())
}

/// [`loop_controls`] of a build for `caps`.
fn loop_controls_with(src: &str, caps: &TargetCaps) -> Vec<String> {
    let p = build_cl20_caps(src, caps);
    let text = common::disassemble(&p.spirv);
    text.lines()
        .filter(|l| l.contains("OpLoopMerge"))
        .map(|l| l.split_whitespace().skip(3).collect::<Vec<_>>().join(" "))
        .collect()
}

#[test]
fn unroll_hints_choose_the_factor_or_keep_a_loop_rolled() {
    let counted = "for (uint i = 0; i < n; ++i) acc += popcount(i);";
    let cases = [
        ("#pragma unroll 8\n", 9, vec!["None", "DontUnroll"]),
        ("#pragma unroll(2)\n", 3, vec!["None", "DontUnroll"]),
        (
            "__attribute__((opencl_unroll_hint(3)))\n",
            4,
            vec!["None", "DontUnroll"],
        ),
        ("#pragma unroll 1\n", 1, vec!["DontUnroll"]),
        ("#pragma nounroll\n", 1, vec!["DontUnroll"]),
        (
            "__attribute__((opencl_unroll_hint(1)))\n",
            1,
            vec!["DontUnroll"],
        ),
        // No count: the compiler chooses (four here); `#pragma unroll`
        // asks for full unrolling, passed on to the driver.
        (
            "__attribute__((opencl_unroll_hint))\n",
            5,
            vec!["None", "DontUnroll"],
        ),
        ("#pragma unroll\n", 5, vec!["None", "DontUnroll"]),
    ];
    for (hint, copies, controls) in cases {
        let src = kernel("", &format!("{hint}{counted}"));
        assert_eq!(copies_of_body(&src), copies, "{hint}");
        assert_eq!(loop_controls(&src), controls, "{hint}");
    }
    // So is a work-group size, unless a factor is asked for.
    let sized = "uint wg = get_local_size(0);\n";
    let loop_to_wg = "for (uint i = 0; i < wg; ++i) acc += popcount(i);";
    for (hint, copies, controls) in [
        ("", 1, vec!["None"]),
        ("#pragma unroll\n", 1, vec!["Unroll"]),
        ("#pragma unroll 2\n", 3, vec!["None", "DontUnroll"]),
    ] {
        let src = kernel("", &format!("{sized}{hint}{loop_to_wg}"));
        assert_eq!(copies_of_body(&src), copies, "{hint}");
        assert_eq!(loop_controls(&src), controls, "{hint}");
    }
    // A constant bound is left to the driver, which gets the hint.
    let constant = kernel(
        "",
        "#pragma unroll 4\nfor (uint i = 0; i < 64u; ++i) acc += popcount(i);",
    );
    assert_eq!(loop_controls(&constant), vec!["Unroll"]);
    let never = kernel(
        "",
        "#pragma nounroll\nfor (uint i = 0; i < 64u; ++i) acc += popcount(i);",
    );
    assert_eq!(loop_controls(&never), vec!["DontUnroll"]);
}

#[test]
fn misplaced_or_bad_unroll_hints_are_diagnosed() {
    let p = build_cl20(&kernel("", "#pragma unroll 4\nacc += 1u;"));
    assert!(
        p.log.contains("unroll pragma ignored: it must precede"),
        "{}",
        p.log
    );
    let p = build_cl20(&kernel(
        "",
        "#pragma unroll 0\nfor (uint i = 0; i < n; ++i) acc += i;",
    ));
    assert!(
        p.log.contains("the count must be a positive integer"),
        "{}",
        p.log
    );
    for src in [
        kernel(
            "",
            "__attribute__((opencl_unroll_hint(-1)))\nfor (uint i = 0; i < n; ++i) acc += i;",
        ),
        kernel("", "__attribute__((opencl_unroll_hint(2)))\nacc += 1u;"),
    ] {
        let request = CompileRequest {
            source: &src,
            options: "",
            headers: &[],
        };
        let log = match compile(&request, &common::caps()) {
            Ok(_) => panic!("expected an error for:\n{src}"),
            Err(e) => e.log,
        };
        assert!(log.contains("opencl_unroll_hint"), "{log}");
    }
}

#[test]
fn loops_of_a_few_constant_trips_ask_the_driver_to_unroll_them() {
    for body in [
        // The prefix scan's loop: eight trips holding barriers.
        "local uint a[256]; uint l = get_local_id(0); a[l] = l;\n\
         for (uint off = 1; off < 256; off <<= 1) {\n\
             barrier(CLK_LOCAL_MEM_FENCE); acc += popcount(a[l] >> off);\n\
         }",
        "for (uint k = 0; k < 16; ++k) acc += popcount(k);",
        "for (int d = -2; d <= 2; ++d) acc += popcount((uint)d);",
        "for (uint s = 128; s > 0; s >>= 1) acc += popcount(s);",
        "for (int i = 10; i != 0; i -= 2) acc += popcount((uint)i);",
        "uint i; for (i = 1; i < 1000; i *= 3) acc += popcount(i);",
        "for (uint i = 0; i < 32; i = i + 1) acc += popcount(i);",
        // 32 trips: the counter wraps to 0 after 1u << 31.
        "for (uint b = 1; b > 0; b <<= 1) acc += popcount(b);",
    ] {
        assert_eq!(loop_controls(&kernel("", body)), vec!["Unroll"], "{body}");
    }
    for body in [
        // Too many trips, one trip, none, a bound or step not constant,
        // a body that moves the counter, a body with a loop in it.
        "for (uint k = 0; k < 33; ++k) acc += popcount(k);",
        "for (uint k = 0; k < 1; ++k) acc += popcount(k);",
        "for (uint k = 5; k < 2; ++k) acc += popcount(k);",
        "for (uint k = 0; k < 8; k += n) acc += popcount(k);",
        "for (uint k = 0; k < 8; ++k) { acc += popcount(k); k += acc & 1; }",
        "for (uint k = 0; k < 4; ++k) do acc += popcount(k); while (acc < 9);",
        // 64 trips before the counter wraps to 0.
        "for (ulong b = 1; b > 0; b <<= 1) acc += popcount((uint)b);",
    ] {
        let controls = loop_controls(&kernel("", body));
        assert!(
            !controls.contains(&"Unroll".to_string()),
            "{body}: {controls:?}"
        );
    }
    // A body that, copied for every trip, passes the size limit.
    let big = format!(
        "for (uint k = 0; k < 32; ++k) acc += popcount(k{});",
        " * (acc + k)".repeat(40)
    );
    assert_eq!(loop_controls(&kernel("", &big)), vec!["None"]);
}

#[test]
fn loops_of_constant_trips_over_a_private_array_are_copied_out() {
    // hashcat's sha512crypt shape: a second counter beside the first,
    // bytes of a private array read at the counter; every index into
    // `st` becomes a constant and no loop is left.
    let src = kernel(
        "",
        "ulong st[8]; for (uint i = 0; i < 8; ++i) st[i] = n * (i + 1);\n\
         uchar b[80];\n\
         for (uint k = 0, p = n & 15; k < 64; k++, p++) {\n\
             b[p] = ((uchar *)st)[k ^ 7] + popcount((uint)st[k >> 3]);\n\
         }\n\
         acc += b[n & 63];",
    );
    let p = build_cl20(&src);
    let text = common::disassemble(&p.spirv);
    assert!(!text.contains("OpLoopMerge"), "{text}");
    assert_eq!(copies_of_body(&src), 64);
    let st = text
        .lines()
        .find(|l| l.contains("OpName") && l.ends_with("\"st\""))
        .and_then(|l| l.split_whitespace().nth(1))
        .unwrap()
        .to_string();
    let chains: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("OpAccessChain") && l.contains(&format!(" {st} ")))
        .collect();
    assert!(!chains.is_empty(), "{text}");
    for chain in chains {
        let index = chain.split_whitespace().last().unwrap();
        assert!(
            text.lines()
                .any(|l| l.trim_start().starts_with(&format!("{index} = OpConstant"))),
            "{chain}: the index is not a constant\n{text}"
        );
    }
    // Loops the rule leaves: one trip too many, no private array indexed
    // by the counter, the counter moved in the body, and a loop asked to
    // stay rolled.
    for body in [
        "ulong st[8]; for (uint i = 0; i < 8; ++i) st[i] = n + i;\n\
         for (uint k = 0; k < 65; ++k) acc += popcount((uint)st[k & 7]);",
        "for (uint k = 0; k < 64; ++k) acc += popcount(out[k]);",
        "uint w[16]; for (uint i = 0; i < 16; ++i) w[i] = n ^ i;\n\
         for (uint k = 0; k < 16; ++k) { acc += popcount(w[k]); k += acc & 1; }",
        "uint w[16]; for (uint i = 0; i < 16; ++i) w[i] = n ^ i;\n\
         __attribute__((opencl_unroll_hint(1)))\n\
         for (uint k = 0; k < 16; ++k) acc += popcount(w[k]);",
    ] {
        let controls = loop_controls(&kernel("", body));
        assert!(!controls.is_empty(), "{body}: no loop left");
    }
}

/// [`loop_controls`] with `const` locals kept as variables, as
/// `FERROCL_CONST_LOCALS=keep` does.
fn loop_controls_keeping_const_locals(src: &str) -> Vec<String> {
    let caps = TargetCaps {
        const_locals_as_constants: false,
        ..common::caps()
    };
    loop_controls_with(src, &caps)
}

#[test]
fn loops_bounded_by_const_locals_count_as_constant_trips() {
    // hashcat's shape (`const u32 zSIZE = STATE_CNT4;`): a `const` local
    // whose initializer is a constant bounds, starts or steps a loop as
    // the literal would, so it is not unrolled at run time.
    for body in [
        "const uint z = 8u; for (uint i = 0; i < z; ++i) acc += popcount(i);",
        "const uint y = 1024u / 64u; for (uint i = 0; i < y; ++i) acc += popcount(i);",
        "const int lo = -7 / 2; for (int i = lo; i < 5; ++i) acc += popcount((uint)i);",
        "const uchar w = 266; for (uint i = 0; i < w; i += 1) acc += popcount(i);",
        "const uint z = 16u, s = z / 4u; for (uint i = 0; i < z; i += s) acc += popcount(i);",
    ] {
        let src = kernel("", body);
        assert_eq!(loop_controls(&src), vec!["Unroll"], "{body}");
        let kept = loop_controls_keeping_const_locals(&src);
        assert!(!kept.contains(&"Unroll".to_string()), "{body}: {kept:?}");
    }
    // Over a private array the loop is copied out, each copy's index and
    // address a constant.
    let rows = kernel(
        "",
        "const uint zSIZE = 8u; uint4 t[8];\n\
         for (uint z = 0; z < zSIZE; z++) t[z] = vload4(n * zSIZE + z, out);\n\
         for (uint z = 0; z < zSIZE; z++) acc += popcount(t[z].x + t[z].w);",
    );
    assert_eq!(copies_of_body(&rows), 8);
    assert!(loop_controls(&rows).is_empty());
    // Not constants: a run-time initializer, a local that is not
    // `const`, and an inner `c` hiding a constant one. Each is unrolled at
    // run time: four copies and the rest.
    for body in [
        "const uint c = n; for (uint i = 0; i < c; ++i) acc += popcount(i);",
        "uint c = 8u; for (uint i = 0; i < c; ++i) acc += popcount(i);",
        "const uint c = 8u; { const uint c = n; for (uint i = 0; i < c; ++i) acc += popcount(i); }",
    ] {
        assert_eq!(copies_of_body(&kernel("", body)), 5, "{body}");
    }
    // A `const` local whose address is taken stays a variable: the loop it
    // bounds is neither unrolled here nor hinted.
    let addressed = kernel(
        "",
        "const uint c = 8u; const uint *p = &c; acc += *p;\n\
         for (uint i = 0; i < c; ++i) acc += popcount(i);",
    );
    assert_eq!(loop_controls(&addressed), vec!["None"]);
}
