//! How long the driver takes to create a compute pipeline from a SPIR-V
//! module, the work behind a kernel's first launch. Each argument is
//! `FILE.spv:ENTRY:PUSH_BYTES`; every pipeline is new to the driver, so no
//! cache answers:
//!
//! - `spec`: the work-group size specialization constant (id 0) differs
//!   from pipeline to pipeline, counting down from `PIPELINE_GROUP`
//!   (default 64; modules without it are skipped);
//! - `name`: the module differs by an `OpName` of the entry point.
//!
//! Prints the first creation and the median and minimum of the rest, in ms.
//! `PIPELINE_COUNT` sets how many are made per file and mode (default 24);
//! `PIPELINE_NOOPT=1` asks for unoptimized pipelines (DISABLE_OPTIMIZATION).
//!
//! cargo run --release -p ferrocl-vk --example pipeline_latency -- a.spv:main:0

use ferrocl_vk::{Instance, PipelineOptions};
use std::time::Instant;

const PIPELINES: u32 = 24;

/// `PIPELINE_COUNT`, else [`PIPELINES`]: large kernels take a second or
/// more each.
fn pipeline_count() -> u32 {
    std::env::var("PIPELINE_COUNT")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n| n >= 2)
        .unwrap_or(PIPELINES)
}

/// Opcodes that come before the debug names in a module's layout.
const BEFORE_NAMES: [u32; 11] = [17, 10, 11, 14, 15, 16, 331, 7, 3, 4, 2];

fn has_spec_id_zero(words: &[u32]) -> bool {
    instructions(words)
        .any(|(at, op, len)| op == 71 && len == 4 && words[at + 2] == 1 && words[at + 3] == 0)
}

/// (offset, opcode, word count) of each instruction after the header.
fn instructions(words: &[u32]) -> impl Iterator<Item = (usize, u32, usize)> + '_ {
    let mut at = 5;
    std::iter::from_fn(move || {
        let word = *words.get(at)?;
        let len = (word >> 16) as usize;
        if len == 0 {
            return None;
        }
        let item = (at, word & 0xffff, len);
        at += len;
        Some(item)
    })
}

/// The module with `OpName %entry "salt<n>"` added.
fn salted(words: &[u32], n: u32) -> Vec<u32> {
    let entry_id = instructions(words)
        .find(|&(_, op, _)| op == 15)
        .map(|(at, _, _)| words[at + 2])
        .expect("an OpEntryPoint");
    let insert_at = instructions(words)
        .find(|&(_, op, _)| !BEFORE_NAMES.contains(&op))
        .map(|(at, _, _)| at)
        .expect("a module body");
    let mut text = format!("salt{n}").into_bytes();
    text.push(0);
    text.resize(text.len().next_multiple_of(4), 0);
    let mut name = vec![0, entry_id];
    name.extend(
        text.chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])),
    );
    name[0] = ((name.len() as u32) << 16) | 5;
    let mut out = words[..insert_at].to_vec();
    out.extend(name);
    out.extend(&words[insert_at..]);
    out
}

fn main() {
    let instance = Instance::new();
    let device = instance.open_device(0).expect("a Vulkan device");
    println!("{}", device.info().name);
    for arg in std::env::args().skip(1) {
        let mut parts = arg.split(':');
        let (Some(path), Some(entry), Some(push)) = (parts.next(), parts.next(), parts.next())
        else {
            eprintln!("{arg}: expected FILE.spv:ENTRY:PUSH_BYTES");
            continue;
        };
        let bytes = std::fs::read(path).expect("a SPIR-V file");
        let words: Vec<u32> = bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let push: u32 = push.parse().expect("a push-constant size");
        let salt = std::process::id() * 1000;
        // Work-group sizes counted down from this one (`PIPELINE_GROUP`,
        // default 64) by `spec`; `name` uses it as it is.
        let group: u32 = std::env::var("PIPELINE_GROUP")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(64);
        let options = PipelineOptions {
            disable_optimization: std::env::var("PIPELINE_NOOPT").is_ok_and(|v| v == "1"),
            ..PipelineOptions::default()
        };
        for mode in ["spec", "name"] {
            if mode == "spec" && !has_spec_id_zero(&words) {
                continue;
            }
            let mut times = Vec::new();
            for i in 0..pipeline_count() {
                let (module, spec) = match mode {
                    "spec" => (
                        words.clone(),
                        vec![(0, group - i), (0x7fff_0000, group - i)],
                    ),
                    _ => (
                        salted(&words, salt + i),
                        vec![(0, group), (0x7fff_0000, group)],
                    ),
                };
                let started = Instant::now();
                let created =
                    device.create_pipeline_with_options(&module, entry, push, &spec, &options);
                let ms = started.elapsed().as_secs_f64() * 1e3;
                if let Err(e) = created {
                    eprintln!("{path} {entry}: {e}");
                    break;
                }
                times.push(ms);
            }
            if times.len() < 2 {
                continue;
            }
            let first = times.remove(0);
            times.sort_by(f64::total_cmp);
            println!(
                "  {path} {entry} ({} words) by {mode}: first {first:.3} ms, median {:.3} ms, min {:.3} ms",
                words.len(),
                times[times.len() / 2],
                times[0]
            );
        }
    }
}
