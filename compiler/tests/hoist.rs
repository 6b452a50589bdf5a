//! Loop invariants computed before their loop (compiler/src/spirv/hoist.rs):
//! which instructions leave a loop and which stay, read from the SPIR-V
//! (every module here passes spirv-val). The results on a device are
//! checked in icd/tests/hoist.rs.

mod common;

use common::{build, build_caps, caps, disassemble, loop_end};
use ferrocl_compiler::TargetCaps;

/// The kernel's disassembly around its last loop: the lines before the
/// loop's header, and the loop's own lines (the header to its merge block).
fn around_last_loop(text: &str) -> (Vec<&str>, Vec<&str>) {
    let lines: Vec<&str> = text.lines().collect();
    let merge = lines
        .iter()
        .rposition(|l| l.contains("OpLoopMerge"))
        .unwrap_or_else(|| panic!("no loop:\n{text}"));
    let end = loop_end(&lines, merge);
    // The header's label is the line before the merge instruction.
    (lines[..merge - 1].to_vec(), lines[merge - 1..end].to_vec())
}

fn count(lines: &[&str], what: &str) -> usize {
    lines.iter().filter(|l| l.contains(what)).count()
}

/// The result id of the first line holding `what`.
fn result_of<'a>(lines: &[&'a str], what: &str) -> &'a str {
    lines
        .iter()
        .find(|l| l.contains(what))
        .and_then(|l| l.split_whitespace().next())
        .unwrap_or_else(|| panic!("no {what}"))
}

/// An invariant worth moving: five instructions from `a` alone.
const MIX: &str = "((a >> 13) ^ (a * 0x9e3779b9u) ^ (a + 12345u))";

/// The loops below step `i` by a shift so that the unroller (which takes
/// counted loops) leaves them as written: one loop to look at.
fn kernel(body: &str) -> String {
    format!(
        "kernel void k(global uint *out, uint n, uint k, uint d) {{\n\
           uint id = get_global_id(0);\n\
           uint w[8];\n\
           for (int j = 0; j < 8; j++) w[j] = id * (j + 3u);\n\
           uint acc = 0;\n\
           {body}\n\
           out[id] = acc;\n\
         }}\n"
    )
}

#[test]
fn a_computation_from_values_set_before_the_loop_moves_before_it() {
    let src = kernel(&format!(
        "for (uint i = 0; i < n; i = (i << 1) + 1) {{ uint a = w[1]; acc += {MIX} + i; }}"
    ));
    let text = disassemble(&build(&src).spirv);
    let (before, from) = around_last_loop(&text);
    // The multiplication by the constant is the invariant's, and so are
    // the shift and the two XORs.
    for op in ["OpIMul", "OpShiftRightLogical", "OpBitwiseXor"] {
        assert!(count(&before, op) >= 1, "{op} before the loop:\n{text}");
        assert_eq!(count(&from, op), 0, "{op} left in the loop:\n{text}");
    }
    // The array word it reads is loaded once, before the loop.
    assert_eq!(count(&from, "OpAccessChain"), 0, "{text}");

    // Without the pass the loop computes it.
    let kept = TargetCaps {
        hoist_loop_invariants: false,
        split_loop_addresses: false,
        ..caps()
    };
    let text = disassemble(&build_caps(&src, &kept).spirv);
    let (_, from) = around_last_loop(&text);
    assert!(count(&from, "OpIMul") >= 1, "{text}");
    assert_eq!(count(&text.lines().collect::<Vec<_>>(), "OpCopyObject"), 0);
}

#[test]
fn what_the_loop_changes_stays_in_it() {
    // `a` is stored to in the loop, so what is computed from it is not
    // invariant, though the same expression reads only `a`.
    let src = kernel(&format!(
        "uint a = w[2]; for (uint i = 0; i < n; i = (i << 1) + 1) {{ acc += {MIX}; a = acc; }}"
    ));
    let text = disassemble(&build(&src).spirv);
    let (_, from) = around_last_loop(&text);
    assert!(count(&from, "OpIMul") >= 1, "{text}");
    assert!(count(&from, "OpShiftRightLogical") >= 1, "{text}");
}

#[test]
fn a_load_after_a_store_reads_the_stored_value() {
    let src = kernel(
        "for (uint i = 0; i < n; i = (i << 1) + 1) { uint t = i * 7u; uint u = t + 1u; acc += u * t; }",
    );
    let text = disassemble(&build(&src).spirv);
    let (_, from) = around_last_loop(&text);
    // `t` and `u` are stored and read back within one block: the reads
    // are copies of the stored values, not loads.
    assert!(count(&from, "OpCopyObject") >= 3, "{text}");
    for name in ["t", "u"] {
        let var = named(&text, name);
        assert!(
            !from
                .iter()
                .any(|l| l.contains("OpLoad") && l.ends_with(&format!(" {var}"))),
            "{name} ({var}) is loaded in the loop:\n{text}"
        );
        assert!(
            from.iter()
                .any(|l| l.contains("OpStore") && l.contains(&format!(" {var} "))),
            "{name} ({var}) is not stored in the loop:\n{text}"
        );
    }
}

/// The id `OpName` gives `name` (the disassembly prints raw ids).
fn named<'a>(text: &'a str, name: &str) -> &'a str {
    text.lines()
        .find(|l| l.contains("OpName") && l.ends_with(&format!("\"{name}\"")))
        .and_then(|l| l.split_whitespace().nth(1))
        .unwrap_or_else(|| panic!("no variable {name}:\n{text}"))
}

#[test]
fn a_word_at_a_constant_index_leaves_only_with_its_load() {
    // `v` is stored in the loop, so nothing loaded from it leaves; the
    // addresses of `v[1]` (a constant index) stay beside their load and
    // store, where the driver folds them (chains made before the loop
    // made NVIDIA's m22000_loop 0.5 % slower). `w[1]` is only read: its
    // load leaves and takes its address along.
    let src = kernel(&format!(
        "uint v[2]; v[0] = k; v[1] = d;\n\
         for (uint i = 0; i < n; i = (i << 1) + 1) {{ uint a = w[1]; acc += {MIX} + v[1]; v[1] = acc; }}"
    ));
    let text = disassemble(&build(&src).spirv);
    let (before, from) = around_last_loop(&text);
    let chains_into = |lines: &[&str], name: &str| {
        let var = named(&text, name);
        lines
            .iter()
            .filter(|l| l.contains("OpAccessChain") && l.contains(&format!(" {var} ")))
            .map(|l| l.split_whitespace().last().unwrap_or_default().to_string())
            .collect::<Vec<_>>()
    };
    let in_loop = chains_into(&from, "v");
    assert_eq!(in_loop.len(), 2, "{text}");
    for index in in_loop {
        assert!(
            text.lines().any(
                |l| l.trim_start().starts_with(&format!("{index} = OpConstant"))
                    && l.ends_with(" 1")
            ),
            "{text}"
        );
    }
    assert!(chains_into(&from, "w").is_empty(), "{text}");
    assert!(!chains_into(&before, "w").is_empty(), "{text}");
    assert_eq!(count(&from, "OpIMul"), 0, "{text}");
}

#[test]
fn division_moves_only_by_a_constant_it_cannot_fault_on() {
    let by = |divisor: &str| {
        let a = "uint a = w[3];";
        let src = kernel(&format!(
            "for (uint i = 0; i < n; i = (i << 1) + 1) {{ {a} acc += ({MIX} / {divisor}) + i; }}"
        ));
        let text = disassemble(&build(&src).spirv);
        let (before, from) = around_last_loop(&text);
        (count(&before, "OpUDiv"), count(&from, "OpUDiv"), text)
    };
    let (before, inside, text) = by("7u");
    assert_eq!((before, inside), (1, 0), "{text}");
    // A divisor that may be zero when the loop runs no trip stays.
    let (_, inside, text) = by("d");
    assert_eq!(inside, 1, "{text}");
}

#[test]
fn a_word_at_a_computed_index_is_clamped_to_its_array_when_it_moves() {
    let src = kernel(&format!(
        "for (uint i = 0; i < n; i = (i << 1) + 1) {{ uint a = w[k]; acc += {MIX} + i; }}"
    ));
    let text = disassemble(&build(&src).spirv);
    let (before, from) = around_last_loop(&text);
    let umin = result_of(&before, "UMin");
    assert!(
        before
            .iter()
            .any(|l| l.contains("OpAccessChain") && l.ends_with(umin)),
        "the moved access chain does not use the clamped index {umin}:\n{text}"
    );
    // Clamped to the last word of `w[8]`.
    let limit = before
        .iter()
        .find(|l| l.contains("UMin"))
        .and_then(|l| l.split_whitespace().last())
        .unwrap();
    assert!(
        text.lines().any(
            |l| l.trim_start().starts_with(&format!("{limit} = OpConstant")) && l.ends_with(" 7")
        ),
        "{text}"
    );
    assert_eq!(count(&from, "OpIMul"), 0, "{text}");
}

#[test]
fn a_cheap_value_stays_in_the_loop() {
    // `a ^ b` saves one instruction a trip: not worth a register held
    // through the loop.
    let src = kernel(
        "for (uint i = 0; i < n; i = (i << 1) + 1) { uint a = w[4], b = w[5]; acc += (a ^ b) + i; }",
    );
    let text = disassemble(&build(&src).spirv);
    let (_, from) = around_last_loop(&text);
    assert_eq!(count(&from, "OpBitwiseXor"), 1, "{text}");
}

#[test]
fn little_arithmetic_in_a_large_loop_stays() {
    // One invariant of five instructions beside a body of hundreds: less
    // than one value per hundred instructions of the loop.
    let big: String = (0..60)
        .map(|j| {
            format!(
                "acc = rotate(acc, {}u) ^ (acc * {}u + i);\n",
                j % 31 + 1,
                2 * j + 3
            )
        })
        .collect();
    let src = kernel(&format!(
        "for (uint i = 0; i < n; i = (i << 1) + 1) {{ uint a = w[6]; {big} acc += {MIX}; }}"
    ));
    let text = disassemble(&build(&src).spirv);
    let (_, from) = around_last_loop(&text);
    // Sixty multiplications of the body and the invariant's.
    assert_eq!(count(&from, "OpIMul"), 61, "{text}");
}

#[test]
fn loops_of_every_shape_stay_valid() {
    // Each body has an invariant worth moving; spirv-val checks every
    // module (dominance of the moved values included).
    let shapes = [
        format!("uint i = 0; do {{ uint a = w[1]; acc += {MIX} + i; i = (i << 1) + 1; }} while (i < n);"),
        format!("uint i = 0; while (1) {{ uint a = w[2]; acc += {MIX}; if (acc > n) break; i++; if (i > 9u) return; }}"),
        format!("for (uint i = 0; i < n; i = (i << 1) + 1) {{ uint a = w[3]; if (i & 1u) continue; acc += {MIX}; }}"),
        format!(
            "for (uint i = 0; i < n; i = (i << 1) + 1) {{ uint a = w[k & 7u]; switch (i & 3u) {{ \
             case 0: acc += {MIX}; break; case 1: acc ^= i; break; default: acc -= {MIX}; }} }}"
        ),
        format!(
            "for (uint o = 0; o < n; o = (o << 1) + 1) {{ uint a = w[4] + o; \
             for (uint i = 0; i < d; i = (i << 1) + 1) {{ acc += {MIX} + i; if (acc == k) break; }} }}"
        ),
        format!(
            "if (k) for (uint i = 0; i < n; i = (i << 1) + 1) {{ uint a = w[5]; acc += {MIX}; \
             barrier(CLK_LOCAL_MEM_FENCE); }}"
        ),
        format!(
            "for (uint i = 0; i < n; i = (i << 1) + 1) {{ uint a = w[6]; w[i & 7u] = acc; acc += {MIX}; }}"
        ),
    ];
    for body in shapes {
        build(&kernel(&body));
    }
    // A loop in a function the kernel calls, kept a SPIR-V function
    // (outlined), reading through its pointer parameter.
    let outlined = TargetCaps {
        outline_min_nodes: 0,
        ..caps()
    };
    let program = build_caps(
        &format!(
            "uint f(const uint *w, uint n) {{ uint acc = 0; \
               for (uint i = 0; i < n; i = (i << 1) + 1) {{ uint a = w[2]; acc += {MIX} + i; }} \
               return acc; }}\n\
             kernel void k(global uint *out, uint n) {{ uint w[4] = {{ n, n + 1u, n * 3u, 7u }}; \
               out[0] = f(w, n) + f(w + 1, n + 1u); }}\n"
        ),
        &outlined,
    );
    let text = disassemble(&program.spirv);
    assert!(
        count(&text.lines().collect::<Vec<_>>(), "OpFunctionCall") >= 2,
        "{text}"
    );
}
