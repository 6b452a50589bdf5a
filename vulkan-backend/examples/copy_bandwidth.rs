//! Measures buffer copy and fill bandwidth on every device, with the copy
//! engine (`vkCmdCopyBuffer`/`vkCmdFillBuffer`) and with the backend's
//! compute kernels, timed by device timestamps: device-local copies and
//! fills, and copies from and to host memory (`HostToDevice` and
//! `DeviceToHost` buffers, as the runtime's staging uses). This is the
//! measurement behind `CopyEngine::Auto`.
//!
//! cargo run --release -p ferrocl-vk --example copy_bandwidth

use ferrocl_vk::{CopyEngine, Device, Instance, MemoryLocation};
use std::sync::Arc;

const REPEATS: u64 = 8;

/// What one measurement moves.
#[derive(Clone, Copy)]
enum Work {
    Fill,
    Copy(MemoryLocation, MemoryLocation),
}

fn measure(device: &Device, engine: CopyEngine, size: u64, work: Work) -> f64 {
    device.set_copy_engine(engine);
    let (from, to) = match work {
        Work::Fill => (MemoryLocation::DeviceLocal, MemoryLocation::DeviceLocal),
        Work::Copy(from, to) => (from, to),
    };
    let fill = matches!(work, Work::Fill);
    let src = Arc::new(device.create_buffer(size, from).unwrap());
    let dst = Arc::new(device.create_buffer(size, to).unwrap());
    let timeline = device.create_timeline(0).unwrap();
    let mut stream = device.create_command_stream().unwrap();
    // Warm-up: touches the pages and builds the built-in pipelines.
    stream.fill_buffer(&src, 0, size, 1).unwrap();
    stream.fill_buffer(&dst, 0, size, 2).unwrap();
    stream.barrier().unwrap();
    let start = stream.write_timestamp().unwrap();
    for _ in 0..REPEATS {
        if fill {
            stream.fill_buffer(&dst, 0, size, 3).unwrap();
        } else {
            stream.copy_buffer(&src, 0, &dst, 0, size).unwrap();
        }
        stream.barrier().unwrap();
    }
    let end = stream.write_timestamp().unwrap();
    stream.submit(&[], (&timeline, 1)).unwrap();
    timeline.wait(1, u64::MAX).unwrap();
    let ticks = end.ticks().unwrap().unwrap() - start.ticks().unwrap().unwrap();
    let seconds = ticks as f64 * f64::from(device.info().limits.timestamp_period) * 1e-9;
    // Bytes moved: a copy within device memory reads and writes each
    // byte, a fill writes it; a copy across the bus counts each byte once,
    // as transfer rates are quoted.
    let per_op = match work {
        Work::Copy(MemoryLocation::DeviceLocal, MemoryLocation::DeviceLocal) => 2 * size,
        _ => size,
    };
    (per_op * REPEATS) as f64 / seconds / 1e9
}

fn main() {
    let instance = Instance::new();
    for note in instance.notes() {
        eprintln!("note: {note}");
    }
    for index in 0..instance.devices().len() {
        let device = instance.open_device(index).unwrap();
        println!("{}", device.info().name);
        // Where each kind of buffer landed: on a discrete GPU with a
        // resizable BAR, upload buffers are device memory the host writes.
        for location in [MemoryLocation::HostToDevice, MemoryLocation::DeviceToHost] {
            let probe = device.create_buffer(4096, location).unwrap();
            let place = if probe.system_memory() {
                "host memory"
            } else {
                "device memory"
            };
            println!("  {location:?} buffers: {place}");
        }
        let max = device.info().limits.max_buffer_size.min(1 << 30);
        let mut size = 64 * 1024;
        while size <= max {
            let mut line = format!("{:>10} KiB", size >> 10);
            let local = MemoryLocation::DeviceLocal;
            for (label, work) in [
                ("copy", Work::Copy(local, local)),
                ("fill", Work::Fill),
                (
                    "host to device",
                    Work::Copy(MemoryLocation::HostToDevice, local),
                ),
                (
                    "device to host",
                    Work::Copy(local, MemoryLocation::DeviceToHost),
                ),
                // A readback buffer as the source: the GPU reading host
                // memory where upload buffers are in a resizable BAR.
                (
                    "readback memory to device",
                    Work::Copy(MemoryLocation::DeviceToHost, local),
                ),
            ] {
                let transfer = measure(&device, CopyEngine::Transfer, size, work);
                let compute = measure(&device, CopyEngine::Compute, size, work);
                line +=
                    &format!("  {label}: transfer {transfer:8.1} GB/s, compute {compute:8.1} GB/s");
            }
            println!("{line}");
            size *= 4;
        }
    }
}
