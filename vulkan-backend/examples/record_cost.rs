//! What recording a dispatch costs the host, per device, with nothing of
//! OpenCL around it: rounds of `DISPATCHES` fill dispatches (a 16-byte
//! fill kernel: push constants and a dispatch, the pipeline bound once, as
//! the runtime records a launch) into one command stream, then one
//! submission, waited for. Prints the median per dispatch of the
//! recording calls and of the submission, to set beside `ferrocl bench`'s
//! "of which clEnqueueNDRangeKernel calls" row.
//!
//! cargo run --release -p ferrocl-vk --example record_cost

use ferrocl_vk::{CopyEngine, Instance, MemoryLocation};
use std::sync::Arc;
use std::time::Instant;

const DISPATCHES: usize = 1000;
const ROUNDS: usize = 50;
const WARM_UP: usize = 5;

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn main() {
    let instance = Instance::new();
    for note in instance.notes() {
        eprintln!("note: {note}");
    }
    for index in 0..instance.devices().len() {
        let device = instance.open_device(index).unwrap();
        device.set_copy_engine(CopyEngine::Compute);
        let buffer = Arc::new(
            device
                .create_buffer(4096, MemoryLocation::DeviceLocal)
                .unwrap(),
        );
        let timeline = device.create_timeline(0).unwrap();
        let mut stream = device.create_command_stream().unwrap();
        let (mut record, mut submit) = (Vec::new(), Vec::new());
        for round in 1..=(WARM_UP + ROUNDS) as u64 {
            let start = Instant::now();
            for i in 0..DISPATCHES {
                let offset = 16 * (i as u64 % 256);
                stream.fill_buffer(&buffer, offset, 16, i as u32).unwrap();
            }
            let recorded = Instant::now();
            stream.submit(&[], (&timeline, round)).unwrap();
            let submitted = Instant::now();
            while timeline.value().unwrap() < round {}
            if round > WARM_UP as u64 {
                let per = |a: Instant, b: Instant| (b - a).as_nanos() as f64 / 1e3;
                record.push(per(start, recorded) / DISPATCHES as f64);
                submit.push(per(recorded, submitted));
            }
        }
        println!(
            "{}: recording {:.3} µs per dispatch; submitting {} dispatches {:.2} µs",
            device.info().name,
            median(&mut record),
            DISPATCHES,
            median(&mut submit)
        );
    }
}
