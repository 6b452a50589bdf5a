//! The register pad (compiler/src/lower/register_pad.rs): with
//! `TargetCaps::register_pad` every kernel declares a `Workgroup` array
//! whose length is the specialization constant `SPEC_ID_REGISTER_PAD`,
//! touched by an atomic behind a test of the work dimension; without it
//! nothing of the kind. Launches with it: icd/tests/register_pad.rs.

mod common;

use ferrocl_compiler::{TargetCaps, SPEC_ID_REGISTER_PAD};

const SOURCE: &str = "kernel void a(global uint *o) { o[get_global_id(0)] = 1u; }\n\
                      kernel void b(global uint *o, local uint *s) { s[0] = 2u; o[0] = s[0]; }\n";

fn disassembly(register_pad: bool) -> String {
    let caps = TargetCaps {
        register_pad,
        ..common::caps()
    };
    common::disassemble(&common::build_caps(SOURCE, &caps).spirv)
}

#[test]
fn kernels_declare_the_pad_only_when_asked() {
    let text = disassembly(true);
    let spec = format!("SpecId {SPEC_ID_REGISTER_PAD}");
    assert_eq!(text.matches(&spec).count(), 1, "{text}");
    // One pad the kernels share, in each entry point's interface, and an
    // atomic touching it in each kernel.
    let names: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("OpName") && l.ends_with("\"register_pad\""))
        .collect();
    assert_eq!(names.len(), 1, "{text}");
    let pad = names[0].split_whitespace().nth(1).unwrap_or("");
    assert_eq!(text.matches("OpAtomicIAdd").count(), 2, "{text}");
    for entry in text.lines().filter(|l| l.contains("OpEntryPoint")) {
        assert!(entry.split_whitespace().any(|w| w == pad), "{entry}");
    }
    let plain = disassembly(false);
    assert!(!plain.contains(&spec), "{plain}");
    assert!(!plain.contains("register_pad"), "{plain}");
    assert!(!plain.contains("OpAtomicIAdd"), "{plain}");
}
