//! How many work-groups of a kernel each compute unit runs at once, as
//! the driver lays them out: each argument is `FILE.spv:ENTRY`, a module
//! from `ferrocl compile` of a kernel `(__global uint *out, uint iters)`
//! whose work-groups each run a chain of `iters` dependent steps (the
//! launch ABI puts `out` at push-constant bytes 64..72 and `iters` at
//! 72..76). The example launches `k` times as many one-subgroup
//! work-groups as the device has compute units, for `k` = 1..=10, and
//! prints each launch's time over that of `k` = 1: the time steps up
//! where `k` passes the number of work-groups a compute unit holds.
//!
//! `OCCUPANCY_GROUP` sets the work-group size (default 11, the size
//! hashcat's bcrypt uses), `OCCUPANCY_ITERS` the chain length (default
//! 20000), `OCCUPANCY_UNITS` the compute units (default: the driver's
//! count where it tells it, else 132, an H100's).
//!
//! cargo run --release -p ferrocl-vk --example occupancy -- occ.spv:occ

use ferrocl_vk::{Device, Instance, MemoryLocation};
use std::sync::Arc;
use std::time::Instant;

fn env_or(name: &str, default: u32) -> u32 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn read_words(path: &str) -> Vec<u32> {
    let bytes = std::fs::read(path).expect("a SPIR-V file");
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// The fastest of `rounds` launches of `groups` work-groups, in seconds,
/// after one launch that is not counted.
fn launch_time(
    device: &Device,
    pipeline: &Arc<ferrocl_vk::Pipeline>,
    push: &[u8],
    groups: u32,
    rounds: usize,
) -> f64 {
    let timeline = device.create_timeline(0).unwrap();
    let mut stream = device.create_command_stream().unwrap();
    let mut best = f64::INFINITY;
    for value in 1..=(rounds as u64 + 1) {
        let start = Instant::now();
        stream
            .dispatch(pipeline, push, [0; 3], [groups, 1, 1])
            .unwrap();
        stream.submit(&[], (&timeline, value)).unwrap();
        timeline.wait(value, u64::MAX).unwrap();
        stream.release_completed();
        if value > 1 {
            best = best.min(start.elapsed().as_secs_f64());
        }
    }
    best
}

fn main() {
    let instance = Instance::new();
    let device = instance.open_device(0).expect("a Vulkan device");
    let group = env_or("OCCUPANCY_GROUP", 11);
    let iters = env_or("OCCUPANCY_ITERS", 20000);
    let units = env_or("OCCUPANCY_UNITS", 132);
    println!(
        "{}: work-groups of {group}, {units} units",
        device.info().name
    );
    let out = Arc::new(
        device
            .create_buffer(
                u64::from(units) * 16 * u64::from(group) * 4,
                MemoryLocation::DeviceLocal,
            )
            .expect("an output buffer"),
    );
    let mut push = vec![0u8; 76];
    push[64..72].copy_from_slice(&out.device_address().to_le_bytes());
    push[72..76].copy_from_slice(&iters.to_le_bytes());
    for arg in std::env::args().skip(1) {
        let Some((path, entry)) = arg.split_once(':') else {
            eprintln!("{arg}: expected FILE.spv:ENTRY");
            continue;
        };
        let words = read_words(path);
        let spec = [
            (0, group),
            (1, 1),
            (2, 1),
            (0x7fff_0000, group),
            (0x7fff_0001, 1),
            (0x7fff_0002, 1),
        ];
        let pipeline = match device.create_pipeline(&words, entry, 76, &spec) {
            Ok(p) => Arc::new(p),
            Err(e) => {
                eprintln!("{path}: {e}");
                continue;
            }
        };
        let one = launch_time(&device, &pipeline, &push, units, 4);
        print!("  {path}:");
        for k in 1..=10 {
            let t = launch_time(&device, &pipeline, &push, k * units, 4);
            print!(" {k}:{:.2}", t / one);
        }
        println!("  (one wave {:.3} ms)", one * 1e3);
    }
}
