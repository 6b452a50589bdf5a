//! Measures the floor under an OpenCL launch round trip on every device:
//! one submission driven straight through the backend, with no OpenCL
//! around it, and where it goes. Each line is the median of many round
//! trips:
//!
//! - `empty`: a submission with no command buffer that only signals the
//!   timeline; the host spins on the counter.
//! - `dispatch`: one compute dispatch (a 16-byte fill kernel) and the
//!   end-of-batch barrier, as the runtime records a launch; spin.
//! - `dispatch, blocking wait`: the same, waited for with vkWaitSemaphores.
//!
//! For `dispatch`, device timestamps placed on the host clock
//! (VK_EXT_calibrated_timestamps) split the round trip: the submit call,
//! from the call's return to the kernel's start, the kernel, and from its
//! end until the host sees the counter.
//! - `recording`: what the host spends recording one such dispatch (push
//!   constants and a dispatch, the pipeline bound once, as the runtime
//!   records a launch), in rounds of 1,000 recorded into one stream, and
//!   the one submission of each round; to set beside `ferrocl bench`'s
//!   "of which clEnqueueNDRangeKernel calls" row.
//!
//! cargo run --release -p ferrocl-vk --example submit_latency

use ferrocl_vk::{Buffer, CommandStream, CopyEngine, Device, Instance, MemoryLocation, Timeline};
use std::sync::Arc;
use std::time::Instant;

const ROUND_TRIPS: usize = 2000;
const WARM_UP: usize = 200;

#[derive(Clone, Copy, PartialEq)]
enum Wait {
    Spin,
    Block,
}

fn wait(timeline: &Timeline, value: u64, how: Wait) {
    match how {
        Wait::Spin => while timeline.value().unwrap() < value {},
        Wait::Block => {
            timeline.wait(value, u64::MAX).unwrap();
        }
    }
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn host_ns(epoch: Instant) -> f64 {
    epoch.elapsed().as_nanos() as f64
}

/// What the dispatch lines record: a 4 KiB buffer that the fill kernel
/// (the compute copy engine) writes, a timeline and a command stream.
fn fill_setup(device: &Device) -> (Arc<Buffer>, Timeline, CommandStream) {
    device.set_copy_engine(CopyEngine::Compute);
    let buffer = Arc::new(
        device
            .create_buffer(4096, MemoryLocation::DeviceLocal)
            .unwrap(),
    );
    let timeline = device.create_timeline(0).unwrap();
    let stream = device.create_command_stream().unwrap();
    (buffer, timeline, stream)
}

fn empty_round_trip(device: &Device) -> f64 {
    let timeline = device.create_timeline(0).unwrap();
    let mut stream = device.create_command_stream().unwrap();
    let mut times = Vec::with_capacity(ROUND_TRIPS);
    for value in 1..=(WARM_UP + ROUND_TRIPS) as u64 {
        let start = Instant::now();
        stream.submit(&[], (&timeline, value)).unwrap();
        wait(&timeline, value, Wait::Spin);
        if value > WARM_UP as u64 {
            times.push(start.elapsed().as_nanos() as f64 / 1e3);
        }
    }
    median(&mut times)
}

/// Medians of (round trip, submit call, return to kernel start, kernel,
/// kernel end to host seeing it), in µs; the last three are `None` without
/// calibrated timestamps.
fn dispatch_round_trip(device: &Device, how: Wait) -> (f64, f64, Option<[f64; 3]>) {
    let (buffer, timeline, mut stream) = fill_setup(device);
    let period = f64::from(device.info().limits.timestamp_period);
    // The device clock as host CLOCK_MONOTONIC nanoseconds, and Instant's
    // offset from CLOCK_MONOTONIC (Instant reads that clock on Linux).
    let calibration = device.calibrated_host_time().unwrap();
    let epoch = Instant::now();
    let epoch_monotonic = device
        .calibrated_host_time()
        .unwrap()
        .map(|c| c.host_time as f64 - host_ns(epoch));
    let mut round_trip = Vec::with_capacity(ROUND_TRIPS);
    let mut submit_call = Vec::with_capacity(ROUND_TRIPS);
    let mut phases: [Vec<f64>; 3] = Default::default();
    for value in 1..=(WARM_UP + ROUND_TRIPS) as u64 {
        let start = host_ns(epoch);
        let before = stream.write_timestamp().unwrap();
        stream.fill_buffer(&buffer, 0, 16, value as u32).unwrap();
        let after = stream.write_timestamp().unwrap();
        let submitting = host_ns(epoch);
        stream.submit(&[], (&timeline, value)).unwrap();
        let submitted = host_ns(epoch);
        wait(&timeline, value, how);
        let seen = host_ns(epoch);
        if value <= WARM_UP as u64 {
            continue;
        }
        round_trip.push((seen - start) / 1e3);
        submit_call.push((submitted - submitting) / 1e3);
        if let (Some(c), Some(offset)) = (calibration, epoch_monotonic) {
            // Device ticks to this program's host nanoseconds.
            let to_host = |ticks: u64| {
                let device_ns = (ticks as f64 - c.device_ticks as f64) * period;
                c.host_time as f64 + device_ns - offset
            };
            let began = to_host(before.ticks().unwrap().unwrap());
            let ended = to_host(after.ticks().unwrap().unwrap());
            phases[0].push((began - submitted) / 1e3);
            phases[1].push((ended - began) / 1e3);
            phases[2].push((seen - ended) / 1e3);
        }
    }
    let split = calibration.map(|_| {
        let [a, b, c] = &mut phases;
        [median(a), median(b), median(c)]
    });
    (median(&mut round_trip), median(&mut submit_call), split)
}

/// Dispatches recorded per round of [`recording_cost`].
const RECORDED: usize = 1000;

/// Medians of (recording one dispatch, submitting [`RECORDED`] of them),
/// in µs.
fn recording_cost(device: &Device) -> (f64, f64) {
    let (buffer, timeline, mut stream) = fill_setup(device);
    let rounds = 50;
    let (mut record, mut submit) = (Vec::new(), Vec::new());
    for round in 1..=(5 + rounds) as u64 {
        let start = Instant::now();
        for i in 0..RECORDED {
            let offset = 16 * (i as u64 % 256);
            stream.fill_buffer(&buffer, offset, 16, i as u32).unwrap();
        }
        let recorded = Instant::now();
        stream.submit(&[], (&timeline, round)).unwrap();
        let submitted = Instant::now();
        wait(&timeline, round, Wait::Spin);
        if round > 5 {
            let us = |a: Instant, b: Instant| (b - a).as_nanos() as f64 / 1e3;
            record.push(us(start, recorded) / RECORDED as f64);
            submit.push(us(recorded, submitted));
        }
    }
    (median(&mut record), median(&mut submit))
}

fn main() {
    let instance = Instance::new();
    for note in instance.notes() {
        eprintln!("note: {note}");
    }
    for index in 0..instance.devices().len() {
        let device = instance.open_device(index).unwrap();
        println!("{}", device.info().name);
        println!(
            "  empty submission, spin:   {:7.2} µs",
            empty_round_trip(&device)
        );
        for (label, how) in [("spin", Wait::Spin), ("blocking wait", Wait::Block)] {
            let (total, submit, split) = dispatch_round_trip(&device, how);
            print!("  one dispatch, {label:<13} {total:7.2} µs (submit call {submit:.2}");
            if let Some([to_start, kernel, to_seen]) = split {
                print!(
                    ", to kernel start {to_start:.2}, kernel {kernel:.2}, \
                     kernel end to host {to_seen:.2}"
                );
            }
            println!(")");
        }
        let (record, submit) = recording_cost(&device);
        println!(
            "  recording:                {record:7.3} µs per dispatch \
             (submitting {RECORDED}: {submit:.2} µs)"
        );
    }
}
