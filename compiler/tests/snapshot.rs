//! Snapshot: a small kernel in, its disassembled SPIR-V out. A change in
//! the emitted code shows up here for review; regenerate the file with
//! `FERROCL_UPDATE_SNAPSHOTS=1 cargo test -p ferrocl-compiler --test snapshot`.

mod common;

use std::path::Path;

fn check(name: &str, source: &str) {
    let p = common::build(source);
    let text = common::disassemble(&p.spirv);
    if text.is_empty() {
        eprintln!("spirv-dis is not installed: skipping the snapshot comparison");
        return;
    }
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots")
        .join(format!("{name}.spvasm"));
    if std::env::var_os("FERROCL_UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, &text).expect("write snapshot");
        return;
    }
    let want = std::fs::read_to_string(&path).expect("snapshot file exists");
    assert!(
        want == text,
        "{name}: the emitted SPIR-V changed; review and regenerate.\n--- got ---\n{text}"
    );
}

#[test]
fn vector_add_snapshot() {
    check(
        "vector_add",
        "kernel void vadd(global const float *a, global const float *b, global float *c) {\n\
           size_t i = get_global_id(0);\n\
           c[i] = a[i] + b[i];\n\
         }\n",
    );
}
