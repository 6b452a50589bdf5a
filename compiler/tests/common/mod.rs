//! Helpers shared by the compiler's integration tests.

#![allow(dead_code)]

use ferrocl_compiler::{compile, BuildError, CompileRequest, CompiledProgram, TargetCaps};
use std::io::Write;
use std::process::{Command, Stdio};

pub fn caps() -> TargetCaps {
    TargetCaps::default()
}

pub fn build_with(source: &str, caps: &TargetCaps) -> Result<CompiledProgram, BuildError> {
    compile(
        &CompileRequest {
            source,
            options: "",
            headers: &[],
        },
        caps,
    )
}

/// Compiles `source`, panicking with the build log on failure, and checks
/// the module with `spirv-val`.
pub fn build(source: &str) -> CompiledProgram {
    build_caps(source, &caps())
}

pub fn build_caps(source: &str, caps: &TargetCaps) -> CompiledProgram {
    match build_with(source, caps) {
        Ok(p) => {
            validate(&p.spirv);
            p
        }
        Err(e) => panic!("build failed:\n{}", e.log),
    }
}

/// The build log of a program that must not build.
pub fn build_error(source: &str) -> String {
    build_error_caps(source, &caps())
}

/// The build log of a program that must not build for `caps`.
pub fn build_error_caps(source: &str, caps: &TargetCaps) -> String {
    match build_with(source, caps) {
        Ok(_) => panic!("expected a build error for:\n{source}"),
        Err(e) => e.log,
    }
}

/// Each `(source, message)`: the source must not build for `caps`, and
/// its build log must hold the message.
pub fn assert_build_errors(caps: &TargetCaps, cases: &[(&str, &str)]) {
    for (source, want) in cases {
        let log = build_error_caps(source, caps);
        assert!(log.contains(want), "{source}: {log}");
    }
}

fn tool(name: &str) -> Option<Command> {
    match Command::new(name).arg("--version").output() {
        Ok(_) => Some(Command::new(name)),
        Err(_) => None,
    }
}

fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Runs `spirv-val --target-env vulkan1.2 --scalar-block-layout`.
pub fn validate(words: &[u32]) {
    let Some(mut cmd) = tool("spirv-val") else {
        eprintln!("spirv-val is not installed: skipping SPIR-V validation");
        return;
    };
    let mut child = cmd
        .args(["--target-env", "vulkan1.2", "--scalar-block-layout", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spirv-val runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(&bytes(words))
        .expect("write module");
    let out = child.wait_with_output().expect("spirv-val finishes");
    if !out.status.success() {
        panic!(
            "spirv-val rejected the module:\n{}{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
            disassemble(words)
        );
    }
}

/// The module as `spirv-dis` prints it (empty when it is not installed).
pub fn disassemble(words: &[u32]) -> String {
    let Some(mut cmd) = tool("spirv-dis") else {
        return String::new();
    };
    let mut child = cmd
        .args(["--raw-id", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spirv-dis runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(&bytes(words))
        .expect("write module");
    let out = child.wait_with_output().expect("spirv-dis finishes");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Where the loop whose `OpLoopMerge` stands at `merge` in a disassembly's
/// `lines` ends: the line of its merge block's label (or the end).
pub fn loop_end(lines: &[&str], merge: usize) -> usize {
    let merge_label = lines[merge].split_whitespace().nth(1).unwrap_or("");
    lines[merge..]
        .iter()
        .position(|l| {
            l.trim_start()
                .starts_with(&format!("{merge_label} = OpLabel"))
        })
        .map_or(lines.len(), |p| merge + p)
}
