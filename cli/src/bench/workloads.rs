//! The measurements. Each workload builds its kernels, checks one run's
//! results against the host where it computes something, then times it:
//! one untimed call, a batch size chosen so a sample lasts about
//! [`Sizes::sample_seconds`], a warm-up of [`WARM_UP_SAMPLES`] samples'
//! time, and the median of `repeats` samples.

use super::api::{Ctx, Kernel, Mem};
use super::kernels;
use super::{Outcome, Row};
use crate::loader::check;
use ferrocl_runtime::cl::*;
use std::ffi::c_void;
use std::ptr::{null, null_mut};
use std::time::Instant;

/// Problem sizes and repetition counts.
#[derive(Clone, Debug)]
pub struct Sizes {
    pub repeats: usize,
    pub sample_seconds: f64,
    /// Bytes read by the bandwidth kernels.
    pub bandwidth_bytes: usize,
    pub bandwidth_iters: u32,
    /// Work-items per compute unit and loop trips of the compute kernels.
    pub compute_items_per_unit: usize,
    pub compute_iters: u32,
    pub transfer_bytes: usize,
    /// Launches per sample of the enqueue measurements.
    pub launches: usize,
    pub enqueue_threads: usize,
    pub builds: usize,
    pub sgemm_n: usize,
    pub reduce_n: usize,
    pub scan_n: usize,
    pub nbody_n: usize,
    pub conv_side: usize,
    pub radix_n: usize,
}

impl Sizes {
    /// Sizes that keep a large GPU busy for many microseconds per launch.
    pub fn full() -> Sizes {
        Sizes {
            repeats: 7,
            sample_seconds: 0.05,
            bandwidth_bytes: 256 << 20,
            bandwidth_iters: 16,
            compute_items_per_unit: 4096,
            // Peak arithmetic, not launch overhead: 512 trips make each
            // launch 0.35-1.1 ms on an H100, where the gap between two
            // launches (each writes `out`, so the second waits for the
            // first) is under 1 %. With 64 trips the fp16 launch lasted
            // 45 us, of which the gap took about a tenth.
            compute_iters: 512,
            transfer_bytes: 128 << 20,
            launches: 2000,
            enqueue_threads: 4,
            builds: 3,
            sgemm_n: 2048,
            reduce_n: 64 << 20,
            scan_n: 16 << 20,
            nbody_n: 32768,
            conv_side: 4096,
            radix_n: 16 << 20,
        }
    }

    /// Sizes for a software rasteriser such as lavapipe: every workload
    /// runs and is checked, in seconds in all.
    pub fn quick() -> Sizes {
        Sizes {
            repeats: 3,
            sample_seconds: 0.01,
            bandwidth_bytes: 4 << 20,
            bandwidth_iters: 4,
            compute_items_per_unit: 1024,
            compute_iters: 32,
            transfer_bytes: 4 << 20,
            launches: 100,
            enqueue_threads: 4,
            builds: 1,
            sgemm_n: 128,
            reduce_n: 1 << 18,
            scan_n: 1 << 16,
            nbody_n: 1024,
            conv_side: 256,
            radix_n: 1 << 16,
        }
    }
}

/// What a workload needs to know about its device.
pub struct Target<'a> {
    pub ctx: &'a Ctx<'a>,
    pub sizes: &'a Sizes,
    pub compute_units: usize,
    pub max_group: usize,
    pub max_alloc: usize,
    pub fp64: bool,
    pub fp16: bool,
    /// cl_khr_integer_dot_product.
    pub integer_dot: bool,
}

impl Target<'_> {
    /// The 1D work-group size: 256 where the device allows it.
    fn group(&self) -> usize {
        self.max_group.clamp(1, 256)
    }
}

fn xorshift(seed: u32) -> impl FnMut() -> u32 {
    let mut x = seed.max(1);
    move || {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x
    }
}

fn unit_floats(seed: u32, n: usize) -> Vec<f32> {
    let mut next = xorshift(seed);
    (0..n)
        .map(|_| (next() >> 8) as f32 / (1u32 << 24) as f32)
        .collect()
}

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    let n = samples.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 {
        samples[n / 2]
    } else {
        (samples[n / 2 - 1] + samples[n / 2]) / 2.0
    }
}

/// Median seconds per call of `op`, which enqueues work on `ctx`'s queue:
/// after a warm-up call, each sample runs a batch of calls and one
/// `clFinish`.
/// How long each measurement runs its operation before the samples that
/// count, in samples' lengths.
const WARM_UP_SAMPLES: f64 = 5.0;

fn time_per_call(
    target: &Target<'_>,
    mut op: impl FnMut() -> Result<(), String>,
) -> Result<f64, String> {
    let ctx = target.ctx;
    op()?;
    ctx.finish()?;
    let start = Instant::now();
    op()?;
    ctx.finish()?;
    let once = start.elapsed().as_secs_f64().max(1e-7);
    let batch = ((target.sizes.sample_seconds / once).ceil() as usize).clamp(1, 1000);
    // Warm-up: a GPU lowers its clocks when it idles, and raises them only
    // after some time under load. On an H100 the SM clock fell to 345-510
    // MHz within a second of the transfer rows (copy engines and host
    // copies), and the sgemm launches right after them ran 4x slower for
    // the first 50-60 ms of the row.
    let warm = Instant::now();
    while warm.elapsed().as_secs_f64() < target.sizes.sample_seconds * WARM_UP_SAMPLES {
        for _ in 0..batch {
            op()?;
        }
        ctx.finish()?;
    }
    let mut samples = Vec::with_capacity(target.sizes.repeats);
    for _ in 0..target.sizes.repeats {
        let start = Instant::now();
        for _ in 0..batch {
            op()?;
        }
        ctx.finish()?;
        samples.push(start.elapsed().as_secs_f64() / batch as f64);
    }
    Ok(median(samples))
}

fn row(group: &'static str, name: impl Into<String>, unit: &'static str, value: Outcome) -> Row {
    Row {
        group,
        name: name.into(),
        unit,
        value,
    }
}

fn measured(result: Result<f64, String>) -> Outcome {
    match result {
        Ok(v) => Outcome::Value(v),
        Err(e) => Outcome::Failed(e),
    }
}

// ---------------------------------------------------------------- bandwidth

pub fn bandwidth(t: &Target<'_>) -> Vec<Row> {
    ["float", "float2", "float4", "float8", "float16"]
        .iter()
        .map(|v| {
            row(
                "bandwidth",
                format!("global memory bandwidth {v}"),
                "GB/s",
                measured(bandwidth_one(t, v)),
            )
        })
        .collect()
}

fn bandwidth_one(t: &Target<'_>, vector: &str) -> Result<f64, String> {
    let ctx = t.ctx;
    let width: usize = vector.trim_start_matches("float").parse().unwrap_or(1);
    let iters = t.sizes.bandwidth_iters as usize;
    let group = t.group();
    let bytes = t.sizes.bandwidth_bytes.min(t.max_alloc);
    // Whole work-groups, each work-item reading `iters` vectors.
    let items = (bytes / (4 * width * iters)) / group * group;
    if items == 0 {
        return Err("buffer too small for one work-group".into());
    }
    let vectors = items * iters;
    let floats = vectors * width;
    let input: Vec<f32> = (0..floats).map(|i| (i % 7) as f32).collect();
    let din = ctx.upload(&input)?;
    let dout = ctx.buffer(CL_MEM_READ_WRITE, items * width * 4)?;
    let program = ctx.program(&kernels::bandwidth(vector), "")?;
    let kernel = program.kernel("bandwidth")?;
    kernel.mem(0, &din)?;
    kernel.mem(1, &dout)?;
    kernel.value(2, iters as u32)?;
    ctx.run(&kernel, &[items], Some(&[group]))?;
    let out: Vec<f32> = ctx.read(&dout, items * width)?;
    for (j, &got) in out.iter().enumerate() {
        let (item, lane) = (j / width, j % width);
        let want: f32 = (0..iters)
            .map(|i| (((item + i * items) * width + lane) % 7) as f32)
            .sum();
        if got != want {
            return Err(format!("wrong sum at {j}: {got}, expected {want}"));
        }
    }
    let seconds = time_per_call(t, || ctx.run(&kernel, &[items], Some(&[group])))?;
    Ok(((floats + items * width) * 4) as f64 / seconds / 1e9)
}

// ------------------------------------------------------------------ compute

pub fn compute(t: &Target<'_>) -> Vec<Row> {
    let fp16 = if t.fp16 {
        measured(compute_one(
            t,
            "half",
            ("mad(A, B, A)", 2.0),
            "#pragma OPENCL EXTENSION cl_khr_fp16 : enable",
        ))
    } else {
        Outcome::NotSupported("no cl_khr_fp16".into())
    };
    let fp64 = if t.fp64 {
        measured(compute_one(
            t,
            "double",
            ("mad(A, B, A)", 2.0),
            "#pragma OPENCL EXTENSION cl_khr_fp64 : enable",
        ))
    } else {
        Outcome::NotSupported("no cl_khr_fp64".into())
    };
    // Four 8-bit multiplies and four adds per lane and step: the dot of
    // two packed words added to one of them.
    let int8_dot = if t.integer_dot {
        measured(compute_one(t, "uint", ("dot4(A, B)", 8.0), kernels::DOT4))
    } else {
        Outcome::NotSupported("no cl_khr_integer_dot_product".into())
    };
    vec![
        row(
            "compute",
            "fp32 compute (mad)",
            "GFLOPS",
            measured(compute_one(t, "float", ("mad(A, B, A)", 2.0), "")),
        ),
        row("compute", "fp64 compute (mad)", "GFLOPS", fp64),
        row("compute", "fp16 compute (mad)", "GFLOPS", fp16),
        row(
            "compute",
            "int32 compute (mul+add)",
            "GIOPS",
            measured(compute_one(t, "int", ("A * B + A", 2.0), "")),
        ),
        row(
            "compute",
            "int8 dot compute (4x8 packed)",
            "GIOPS",
            int8_dot,
        ),
    ]
}

/// One compute row: a chain of `step` (its expression in `A` and `B`,
/// and the operations it does per vector lane) on 4-lane vectors of
/// `scalar`, after `prelude` (pragmas, helper functions).
fn compute_one(
    t: &Target<'_>,
    scalar: &str,
    (step, ops_per_lane): (&str, f64),
    prelude: &str,
) -> Result<f64, String> {
    let ctx = t.ctx;
    let c = ComputeKernel::new(t, scalar, step, prelude)?;
    let (items, group) = (c.items, c.group);
    let seconds = time_per_call(t, || ctx.run(&c.kernel, &[items], Some(&[group])))?;
    // 16 steps of 4 lanes per loop trip.
    let ops = items as f64 * t.sizes.compute_iters as f64 * 16.0 * 4.0 * ops_per_lane;
    Ok(ops / seconds / 1e9)
}

/// The compute rows' kernel, its arguments set, with its sizes.
struct ComputeKernel<'c> {
    kernel: Kernel<'c>,
    items: usize,
    group: usize,
    /// Keeps the kernel's output alive.
    _out: Mem<'c>,
}

impl<'c> ComputeKernel<'c> {
    /// A chain of `step` on 4-lane vectors of `scalar`, after `prelude`.
    fn new(
        t: &Target<'c>,
        scalar: &str,
        step: &str,
        prelude: &str,
    ) -> Result<ComputeKernel<'c>, String> {
        let ctx = t.ctx;
        let group = t.group();
        let items =
            (t.compute_units.max(1) * t.sizes.compute_items_per_unit).div_ceil(group) * group;
        let element = match scalar {
            "half" => 2,
            "double" => 8,
            _ => 4,
        };
        let out = ctx.buffer(CL_MEM_READ_WRITE, items * 4 * element)?;
        let program = ctx.program(&kernels::compute(scalar, step, prelude), "")?;
        let kernel = program.kernel("compute")?;
        kernel.mem(0, &out)?;
        kernel.value(1, 1.3f32)?;
        kernel.value(2, t.sizes.compute_iters)?;
        Ok(ComputeKernel {
            kernel,
            items,
            group,
            _out: out,
        })
    }
}

// ---------------------------------------------------------------- transfers

/// Host memory that the device can reach directly: a mapped
/// `CL_MEM_ALLOC_HOST_PTR` buffer.
struct Pinned<'c> {
    mem: Mem<'c>,
    ptr: *mut c_void,
}

impl<'c> Pinned<'c> {
    fn new(ctx: &'c Ctx<'c>, bytes: usize) -> Result<Pinned<'c>, String> {
        let mem = ctx.buffer(CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes)?;
        let mut err = 0;
        // SAFETY: blocking map of the whole buffer.
        let ptr = unsafe {
            (ctx.api.clEnqueueMapBuffer)(
                ctx.queue,
                mem.handle,
                CL_TRUE,
                CL_MAP_READ | CL_MAP_WRITE,
                0,
                bytes,
                0,
                null(),
                null_mut(),
                &mut err,
            )
        };
        check(err, "clEnqueueMapBuffer(ALLOC_HOST_PTR)")?;
        Ok(Pinned { mem, ptr })
    }
}

impl Drop for Pinned<'_> {
    fn drop(&mut self) {
        let ctx = self.mem.ctx;
        // SAFETY: the pointer is this buffer's mapping.
        unsafe {
            (ctx.api.clEnqueueUnmapMemObject)(
                ctx.queue,
                self.mem.handle,
                self.ptr,
                0,
                null(),
                null_mut(),
            );
            (ctx.api.clFinish)(ctx.queue);
        }
    }
}

pub fn transfers(t: &Target<'_>) -> Vec<Row> {
    let bytes = t.sizes.transfer_bytes.min(t.max_alloc);
    let mb = bytes >> 20;
    let mut rows = Vec::new();
    let mut pageable = vec![0u8; bytes];
    for (i, b) in pageable.iter_mut().enumerate() {
        *b = (i % 251) as u8;
    }
    let host = pageable.as_mut_ptr().cast::<c_void>();
    for blocking in [true, false] {
        let how = if blocking { "" } else { " non-blocking" };
        rows.push(row(
            "transfer",
            format!("clEnqueueWriteBuffer pageable{how} {mb} MiB"),
            "GB/s",
            measured(write_or_read(t, host, bytes, true, blocking)),
        ));
        rows.push(row(
            "transfer",
            format!("clEnqueueReadBuffer pageable{how} {mb} MiB"),
            "GB/s",
            measured(write_or_read(t, host, bytes, false, blocking)),
        ));
    }
    match Pinned::new(t.ctx, bytes) {
        Ok(pinned) => {
            rows.push(row(
                "transfer",
                format!("clEnqueueWriteBuffer pinned {mb} MiB"),
                "GB/s",
                measured(write_or_read(t, pinned.ptr, bytes, true, true)),
            ));
            rows.push(row(
                "transfer",
                format!("clEnqueueReadBuffer pinned {mb} MiB"),
                "GB/s",
                measured(write_or_read(t, pinned.ptr, bytes, false, true)),
            ));
        }
        Err(e) => {
            for what in ["Write", "Read"] {
                rows.push(row(
                    "transfer",
                    format!("clEnqueue{what}Buffer pinned {mb} MiB"),
                    "GB/s",
                    Outcome::Failed(e.clone()),
                ));
            }
        }
    }
    let (map, unmap) = map_unmap(t, bytes);
    rows.push(row(
        "transfer",
        format!("clEnqueueMapBuffer (read) {mb} MiB"),
        "GB/s",
        measured(map),
    ));
    rows.push(row(
        "transfer",
        format!("clEnqueueUnmapMemObject (write) {mb} MiB"),
        "GB/s",
        measured(unmap),
    ));
    rows
}

/// A write from (or read into) `host`, checked once by a blocking round
/// trip through the device. A non-blocking one is timed like the others:
/// calls back to back, then `clFinish`.
fn write_or_read(
    t: &Target<'_>,
    host: *mut c_void,
    bytes: usize,
    write: bool,
    blocking: bool,
) -> Result<f64, String> {
    let ctx = t.ctx;
    let api = ctx.api;
    let dev = ctx.buffer(CL_MEM_READ_WRITE, bytes)?;
    // SAFETY: `host` holds `bytes` bytes for the whole function.
    let host_bytes = unsafe { std::slice::from_raw_parts_mut(host.cast::<u8>(), bytes) };
    for (i, b) in host_bytes.iter_mut().enumerate() {
        *b = (i % 251) as u8;
    }
    let op = |write: bool, blocking: bool| {
        let blocking = if blocking { CL_TRUE } else { CL_FALSE };
        // SAFETY: a transfer of `bytes` bytes between `host` and a buffer
        // of that size; `host` outlives the `clFinish` that ends the timing.
        let status = unsafe {
            if write {
                (api.clEnqueueWriteBuffer)(
                    ctx.queue,
                    dev.handle,
                    blocking,
                    0,
                    bytes,
                    host,
                    0,
                    null(),
                    null_mut(),
                )
            } else {
                (api.clEnqueueReadBuffer)(
                    ctx.queue,
                    dev.handle,
                    blocking,
                    0,
                    bytes,
                    host,
                    0,
                    null(),
                    null_mut(),
                )
            }
        };
        check(
            status,
            if write {
                "clEnqueueWriteBuffer"
            } else {
                "clEnqueueReadBuffer"
            },
        )
    };
    op(true, true)?;
    host_bytes.fill(0);
    op(false, true)?;
    if let Some(i) = host_bytes
        .iter()
        .enumerate()
        .position(|(i, &b)| b != (i % 251) as u8)
    {
        return Err(format!("byte {i} came back wrong"));
    }
    let seconds = time_per_call(t, || op(write, blocking))?;
    Ok(bytes as f64 / seconds / 1e9)
}

/// GB/s of a blocking `CL_MAP_READ` map, and of the unmap (through
/// `clFinish`) of a `CL_MAP_WRITE_INVALIDATE_REGION` map whose bytes the
/// host rewrote.
fn map_unmap(t: &Target<'_>, bytes: usize) -> (Result<f64, String>, Result<f64, String>) {
    let ctx = t.ctx;
    let api = ctx.api;
    let dev = match ctx.buffer(CL_MEM_READ_WRITE, bytes) {
        Ok(d) => d,
        Err(e) => return (Err(e.clone()), Err(e)),
    };
    let map = |flags: cl_bitfield| -> Result<*mut c_void, String> {
        let mut err = 0;
        // SAFETY: blocking map of the whole buffer.
        let ptr = unsafe {
            (api.clEnqueueMapBuffer)(
                ctx.queue,
                dev.handle,
                CL_TRUE,
                flags,
                0,
                bytes,
                0,
                null(),
                null_mut(),
                &mut err,
            )
        };
        check(err, "clEnqueueMapBuffer")?;
        Ok(ptr)
    };
    let unmap = |ptr: *mut c_void| -> Result<(), String> {
        // SAFETY: `ptr` is a live mapping of `dev`.
        check(
            unsafe {
                (api.clEnqueueUnmapMemObject)(ctx.queue, dev.handle, ptr, 0, null(), null_mut())
            },
            "clEnqueueUnmapMemObject",
        )?;
        ctx.finish()
    };
    let fill = |ptr: *mut c_void, salt: usize| {
        // SAFETY: a mapping of `bytes` bytes, mapped for writing.
        let s = unsafe { std::slice::from_raw_parts_mut(ptr.cast::<u8>(), bytes) };
        for (i, b) in s.iter_mut().enumerate() {
            *b = ((i + salt) % 253) as u8;
        }
    };
    let run = || -> Result<(f64, f64), String> {
        // Correctness: data written through an unmap comes back through a
        // read map.
        let p = map(CL_MAP_WRITE_INVALIDATE_REGION)?;
        fill(p, 3);
        unmap(p)?;
        let p = map(CL_MAP_READ)?;
        // SAFETY: a read mapping of `bytes` bytes.
        let s = unsafe { std::slice::from_raw_parts(p.cast::<u8>(), bytes) };
        let wrong = s
            .iter()
            .enumerate()
            .position(|(i, &b)| b != ((i + 3) % 253) as u8);
        unmap(p)?;
        if let Some(i) = wrong {
            return Err(format!("mapped byte {i} is wrong"));
        }
        let mut map_times = Vec::new();
        let mut unmap_times = Vec::new();
        for _ in 0..t.sizes.repeats + 1 {
            let start = Instant::now();
            let p = map(CL_MAP_READ)?;
            map_times.push(start.elapsed().as_secs_f64());
            unmap(p)?;
            let p = map(CL_MAP_WRITE_INVALIDATE_REGION)?;
            fill(p, 5);
            let start = Instant::now();
            unmap(p)?;
            unmap_times.push(start.elapsed().as_secs_f64());
        }
        // The first of each is the warm-up.
        map_times.remove(0);
        unmap_times.remove(0);
        Ok((
            bytes as f64 / median(map_times) / 1e9,
            bytes as f64 / median(unmap_times) / 1e9,
        ))
    };
    match run() {
        Ok((m, u)) => (Ok(m), Ok(u)),
        Err(e) => (Err(e.clone()), Err(e)),
    }
}

// ------------------------------------------------------------------ enqueue

pub fn enqueue(t: &Target<'_>) -> Vec<Row> {
    let threads = t.sizes.enqueue_threads;
    let names = [
        "empty kernel enqueue+finish round trip".to_string(),
        "pipelined enqueue, per kernel".to_string(),
        "  of which clEnqueueNDRangeKernel calls".to_string(),
        format!("pipelined enqueue from {threads} threads, per kernel"),
        "dependent launches, per kernel".to_string(),
    ];
    let values = match enqueue_all(t) {
        Ok(e) => vec![
            Outcome::Value(e.round),
            Outcome::Value(e.pipelined),
            Outcome::Value(e.host_per_call),
            measured(e.threaded),
            measured(e.dependent),
        ],
        Err(e) => vec![Outcome::Failed(e); 5],
    };
    names
        .into_iter()
        .zip(values)
        .map(|(name, value)| row("enqueue", name, "us", value))
        .collect()
}

/// Microseconds per empty kernel: one at a time to completion, a stream of
/// them to completion, the calls alone of that stream, and streams from
/// several threads; and per kernel of a stream where each launch reads the
/// one before it (what ordering launches costs the device).
struct Enqueue {
    round: f64,
    pipelined: f64,
    host_per_call: f64,
    threaded: Result<f64, String>,
    dependent: Result<f64, String>,
}

/// Keeps the device's arithmetic busy for a while before a measurement
/// of short launches, which load it too lightly to raise its clocks.
///
/// The launch rows measure latency, and a GPU's clock governor sets the
/// clocks that latency is paid at. On an H200 (driver 580) the SM clock
/// fell from 1980 to 660-990 MHz when ferrocl's launch rows followed its
/// transfer rows, which keep the SMs idle for seconds: the round trip went
/// from 15.6 to 22.9 µs and dependent launches from 2.5 to 5.2 µs, while
/// NVIDIA's rows after its own transfers ran at 1980 MHz. Each platform's
/// launch rows now start from the same state, the clocks of a busy device.
struct Busy<'c>(ComputeKernel<'c>);

impl<'c> Busy<'c> {
    fn new(t: &Target<'c>) -> Result<Busy<'c>, String> {
        ComputeKernel::new(t, "float", "mad(A, B, A)", "").map(Busy)
    }

    /// Launches the kernel to completion, one at a time, for at least the
    /// warm-up of [`time_per_call`] and until no launch has been 2 %
    /// faster than the fastest before it for half that long: the clocks
    /// have stopped rising (on the H200 they took 0.2-0.4 s to rise from
    /// 435 to 1980 MHz). Eight warm-ups at most.
    fn run(&self, t: &Target<'_>) -> Result<(), String> {
        let warm_up = t.sizes.sample_seconds * WARM_UP_SAMPLES;
        let start = Instant::now();
        let mut fastest = f64::INFINITY;
        let mut faster_at = start;
        loop {
            let launch = Instant::now();
            let c = &self.0;
            t.ctx.run(&c.kernel, &[c.items], Some(&[c.group]))?;
            t.ctx.finish()?;
            let seconds = launch.elapsed().as_secs_f64();
            if seconds < fastest * 0.98 {
                faster_at = Instant::now();
            }
            fastest = fastest.min(seconds);
            let elapsed = start.elapsed().as_secs_f64();
            let steady = faster_at.elapsed().as_secs_f64() >= warm_up / 2.0;
            if (elapsed >= warm_up && steady) || elapsed >= 8.0 * warm_up {
                return Ok(());
            }
        }
    }
}

fn enqueue_all(t: &Target<'_>) -> Result<Enqueue, String> {
    let ctx = t.ctx;
    let busy = Busy::new(t)?;
    let unused = ctx.buffer(CL_MEM_READ_WRITE, 64)?;
    let program = ctx.program(kernels::EMPTY, "")?;
    let kernel = program.kernel("empty")?;
    kernel.mem(0, &unused)?;
    let launch = |k: &Kernel<'_>, queue| ctx.run_on(queue, k, &[1], Some(&[1]));
    busy.run(t)?;
    for _ in 0..10 {
        launch(&kernel, ctx.queue)?;
        ctx.finish()?;
    }
    let n = t.sizes.launches;
    let mut trips = Vec::with_capacity(n);
    for _ in 0..n {
        let start = Instant::now();
        launch(&kernel, ctx.queue)?;
        ctx.finish()?;
        trips.push(start.elapsed().as_secs_f64());
    }
    let round = median(trips) * 1e6;
    busy.run(t)?;
    let mut samples = Vec::new();
    let mut host = Vec::new();
    for _ in 0..t.sizes.repeats {
        let start = Instant::now();
        for _ in 0..n {
            launch(&kernel, ctx.queue)?;
        }
        host.push(start.elapsed().as_secs_f64() / n as f64);
        ctx.finish()?;
        samples.push(start.elapsed().as_secs_f64() / n as f64);
    }
    let pipelined = median(samples) * 1e6;
    let kernels = program_kernels(t, &unused)?;
    busy.run(t)?;
    let threaded = threaded_enqueue(t, &kernels);
    busy.run(t)?;
    Ok(Enqueue {
        round,
        pipelined,
        host_per_call: median(host) * 1e6,
        threaded,
        dependent: dependent_launches(t),
    })
}

/// Microseconds per launch of a stream of one-work-item kernels, each
/// incrementing the counter the one before it wrote, to `clFinish`. The
/// device must finish each launch before the next may start: the gap the
/// in-order queue costs between dependent kernels, which every row of
/// chained application kernels pays (prefix scan, radix sort).
fn dependent_launches(t: &Target<'_>) -> Result<f64, String> {
    let ctx = t.ctx;
    let counter = ctx.upload(&[0u32])?;
    let program = ctx.program(kernels::STEP, "")?;
    let kernel = program.kernel("count_step")?;
    kernel.mem(0, &counter)?;
    let n = t.sizes.launches;
    let mut launched = 0usize;
    let mut stream = |count: usize| -> Result<(), String> {
        for _ in 0..count {
            ctx.run(&kernel, &[1], Some(&[1]))?;
        }
        launched += count;
        ctx.finish()
    };
    stream(10)?;
    let mut samples = Vec::with_capacity(t.sizes.repeats);
    for _ in 0..t.sizes.repeats {
        let start = Instant::now();
        stream(n)?;
        samples.push(start.elapsed().as_secs_f64() / n as f64);
    }
    let got: Vec<u32> = ctx.read(&counter, 1)?;
    if got[0] as usize != launched {
        return Err(format!("counter {} after {launched} launches", got[0]));
    }
    Ok(median(samples) * 1e6)
}

/// One kernel object per thread: clSetKernelArg is the one call the
/// specification does not make thread-safe on a shared kernel.
fn program_kernels<'c>(t: &Target<'c>, unused: &Mem<'_>) -> Result<Vec<Kernel<'c>>, String> {
    let program = t.ctx.program(kernels::EMPTY, "")?;
    (0..t.sizes.enqueue_threads)
        .map(|_| {
            let k = program.kernel("empty")?;
            k.mem(0, unused)?;
            Ok(k)
        })
        .collect()
}

/// Microseconds per kernel when every thread enqueues `launches` empty
/// kernels into a queue of its own and then finishes it.
fn threaded_enqueue(t: &Target<'_>, kernels: &[Kernel<'_>]) -> Result<f64, String> {
    let ctx = t.ctx;
    let n = t.sizes.launches;
    let queues = kernels
        .iter()
        .map(|_| ctx.new_queue())
        .collect::<Result<Vec<_>, _>>()?;
    /// A queue and the kernel only its thread enqueues.
    struct Lane<'k, 'c>(*mut c_void, &'k Kernel<'c>);
    // SAFETY: command queues are thread-safe OpenCL objects, and each
    // kernel object goes to exactly one thread, which sets no argument.
    unsafe impl Send for Lane<'_, '_> {}
    let run = |lane: Lane<'_, '_>, barrier: &std::sync::Barrier| {
        barrier.wait();
        for _ in 0..n {
            ctx.run_on(lane.0, lane.1, &[1], Some(&[1]))?;
        }
        ctx.finish_queue(lane.0)
    };
    let mut samples = Vec::new();
    let mut result = Ok(());
    for _ in 0..t.sizes.repeats + 1 {
        let barrier = std::sync::Barrier::new(kernels.len() + 1);
        let elapsed = std::thread::scope(|s| {
            let handles: Vec<_> = kernels
                .iter()
                .zip(&queues)
                .map(|(k, q)| {
                    let lane = Lane(*q, k);
                    let barrier = &barrier;
                    s.spawn(move || run(lane, barrier))
                })
                .collect();
            barrier.wait();
            let start = Instant::now();
            let outcomes: Vec<_> = handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|_| Err("enqueue thread panicked".into()))
                })
                .collect();
            (start.elapsed().as_secs_f64(), outcomes)
        });
        if let Some(e) = elapsed.1.into_iter().find_map(Result::err) {
            result = Err(e);
            break;
        }
        samples.push(elapsed.0 / (n * kernels.len()) as f64);
    }
    for q in queues {
        ctx.release_queue(q);
    }
    result?;
    samples.remove(0);
    Ok(median(samples) * 1e6)
}

// -------------------------------------------------------------------- build

pub fn build(t: &Target<'_>) -> Vec<Row> {
    vec![row(
        "build",
        "cold clBuildProgram (5 kernels) + first launch",
        "ms",
        measured(cold_build(t)),
    )]
}

fn cold_build(t: &Target<'_>) -> Result<f64, String> {
    let ctx = t.ctx;
    let n = 1024usize;
    let x = ctx.upload(&vec![1.0f32; n])?;
    let y = ctx.buffer(CL_MEM_READ_WRITE, n * 4)?;
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let mut samples = Vec::new();
    for i in 0..t.sizes.builds {
        ctx.write(&y, &vec![2.0f32; n])?;
        let salt = unique_salt(stamp, i);
        let source = format!(
            "// ferrocl bench cold build {} {stamp} {i}\n#define SALT {salt}u\n{}",
            std::process::id(),
            kernels::BUILD_FIVE
        );
        let start = Instant::now();
        let program = ctx.program(&source, "")?;
        let kernel = program.kernel("axpy")?;
        kernel.mem(0, &y)?;
        kernel.mem(1, &x)?;
        kernel.value(2, 3.0f32)?;
        kernel.value(3, n as u32)?;
        ctx.run(&kernel, &[n], None)?;
        ctx.finish()?;
        samples.push(start.elapsed().as_secs_f64());
        let out: Vec<f32> = ctx.read(&y, n)?;
        if let Some(i) = out.iter().position(|&v| v != 5.0) {
            return Err(format!("axpy wrong at {i}: {}", out[i]));
        }
    }
    Ok(median(samples) * 1e3)
}

/// A `uint` for build `i` of this process, different from build to build
/// and from run to run, with the top bit set so that it is never the
/// launch's `n`.
fn unique_salt(stamp: u128, i: usize) -> u32 {
    let base = (stamp ^ (stamp >> 32) ^ u128::from(std::process::id())) as u32;
    0x8000_0000 | (base.wrapping_add(i as u32) & 0x7fff_ffff)
}

// ------------------------------------------------------------- applications

pub fn sgemm(t: &Target<'_>) -> Row {
    row("app", "tiled sgemm", "GFLOPS", measured(sgemm_run(t)))
}

fn sgemm_run(t: &Target<'_>) -> Result<f64, String> {
    let ctx = t.ctx;
    let n = t.sizes.sgemm_n / 16 * 16;
    if t.max_group < 256 {
        return Err("needs 16x16 work-groups".into());
    }
    let a: Vec<f32> = unit_floats(4, n * n).iter().map(|v| v - 0.5).collect();
    let b: Vec<f32> = unit_floats(5, n * n).iter().map(|v| v - 0.5).collect();
    let (da, db) = (ctx.upload(&a)?, ctx.upload(&b)?);
    let dc = ctx.buffer(CL_MEM_READ_WRITE, n * n * 4)?;
    let program = ctx.program(kernels::SGEMM, "")?;
    let k = program.kernel("sgemm")?;
    k.mem(0, &da)?;
    k.mem(1, &db)?;
    k.mem(2, &dc)?;
    k.value(3, n as u32)?;
    let launch = || ctx.run(&k, &[n, n], Some(&[16, 16]));
    launch()?;
    let c: Vec<f32> = ctx.read(&dc, n * n)?;
    // Every entry of small products; 4096 scattered ones (corners
    // included) of large ones, each against a double-precision dot product.
    let mut pick = xorshift(9);
    let checks: Vec<(usize, usize)> = if n * n <= 4096 {
        (0..n * n).map(|i| (i / n, i % n)).collect()
    } else {
        let mut v = vec![(0, 0), (0, n - 1), (n - 1, 0), (n - 1, n - 1)];
        v.extend((0..4092).map(|_| (pick() as usize % n, pick() as usize % n)));
        v
    };
    let tolerance = 1e-5 * n as f64 + 1e-4;
    for (r, col) in checks {
        let want: f64 = (0..n)
            .map(|k| a[r * n + k] as f64 * b[k * n + col] as f64)
            .sum();
        let got = c[r * n + col] as f64;
        if (got - want).abs() > tolerance {
            return Err(format!("C[{r}][{col}] = {got}, expected {want}"));
        }
    }
    let seconds = time_per_call(t, launch)?;
    Ok(2.0 * (n * n * n) as f64 / seconds / 1e9)
}

pub fn reduction(t: &Target<'_>) -> Row {
    row(
        "app",
        "reduction (float sum)",
        "GB/s",
        measured(reduction_run(t)),
    )
}

fn reduction_run(t: &Target<'_>) -> Result<f64, String> {
    let ctx = t.ctx;
    let n = (t.sizes.reduce_n.min(t.max_alloc / 4)) / 4 * 4;
    let group = t.group();
    let groups = (t.compute_units.max(1) * 8).min(n / 4 / group).max(1);
    let input = unit_floats(3, n);
    let din = ctx.upload(&input)?;
    let dpart = ctx.buffer(CL_MEM_READ_WRITE, groups * 4)?;
    let program = ctx.program(kernels::REDUCE, "")?;
    let k = program.kernel("reduce")?;
    k.mem(0, &din)?;
    k.mem(1, &dpart)?;
    k.local(2, group * 4)?;
    k.value(3, (n / 4) as u32)?;
    let launch = || ctx.run(&k, &[groups * group], Some(&[group]));
    launch()?;
    let partial: Vec<f32> = ctx.read(&dpart, groups)?;
    let got: f64 = partial.iter().map(|&v| v as f64).sum();
    let want: f64 = input.iter().map(|&v| v as f64).sum();
    let error = (got - want).abs() / want.abs().max(1.0);
    if error > 1e-4 {
        return Err(format!("sum {got}, expected {want}"));
    }
    let seconds = time_per_call(t, launch)?;
    Ok((n * 4) as f64 / seconds / 1e9)
}

/// An inclusive scan of `n` uints from `input`, as levels of 256-element
/// blocks: kernels made and their arguments set once.
struct Scan<'c> {
    /// Per level: (scan_block kernel, work-items, output buffer).
    levels: Vec<(Kernel<'c>, usize, Mem<'c>)>,
    /// Per level but the last: add_base kernel and work-items.
    adds: Vec<(Kernel<'c>, usize)>,
    /// Block totals of the last level (unused; every level writes them).
    _sums: Vec<Mem<'c>>,
}

impl<'c> Scan<'c> {
    fn new(
        ctx: &'c Ctx<'c>,
        program: &super::api::Program<'c>,
        input: &Mem<'c>,
        n: usize,
    ) -> Result<Scan<'c>, String> {
        let mut levels: Vec<(Kernel<'c>, usize, Mem<'c>)> = Vec::new();
        let mut sums: Vec<Mem<'c>> = Vec::new();
        let mut len = n;
        loop {
            let groups = len.div_ceil(256);
            let out = ctx.buffer(CL_MEM_READ_WRITE, len * 4)?;
            let total = ctx.buffer(CL_MEM_READ_WRITE, groups * 4)?;
            let k = program.kernel("scan_block")?;
            k.mem(0, sums.last().unwrap_or(input))?;
            k.mem(1, &out)?;
            k.mem(2, &total)?;
            k.value(3, len as u32)?;
            levels.push((k, groups * 256, out));
            sums.push(total);
            if groups == 1 {
                break;
            }
            len = groups;
        }
        let mut adds = Vec::new();
        for i in 0..levels.len() - 1 {
            let k = program.kernel("add_base")?;
            k.mem(0, &levels[i].2)?;
            k.mem(1, &levels[i + 1].2)?;
            let len = if i == 0 { n } else { levels[i - 1].1 / 256 };
            k.value(2, len as u32)?;
            adds.push((k, levels[i].1));
        }
        Ok(Scan {
            levels,
            adds,
            _sums: sums,
        })
    }

    fn enqueue(&self, ctx: &Ctx<'_>) -> Result<(), String> {
        for (k, items, _) in &self.levels {
            ctx.run(k, &[*items], Some(&[256]))?;
        }
        for (k, items) in self.adds.iter().rev() {
            ctx.run(k, &[*items], Some(&[256]))?;
        }
        Ok(())
    }

    fn output(&self) -> &Mem<'c> {
        &self.levels[0].2
    }
}

pub fn scan(t: &Target<'_>) -> Row {
    row(
        "app",
        "prefix scan (uint, inclusive)",
        "Gelem/s",
        measured(scan_run(t)),
    )
}

fn scan_run(t: &Target<'_>) -> Result<f64, String> {
    let ctx = t.ctx;
    if t.max_group < 256 {
        return Err("needs work-groups of 256".into());
    }
    let n = t.sizes.scan_n;
    let mut next = xorshift(6);
    let input: Vec<u32> = (0..n).map(|_| next() % 16).collect();
    let din = ctx.upload(&input)?;
    let program = ctx.program(kernels::SCAN, "")?;
    let plan = Scan::new(ctx, &program, &din, n)?;
    plan.enqueue(ctx)?;
    let got: Vec<u32> = ctx.read(plan.output(), n)?;
    let mut acc = 0u32;
    for (i, (&x, &g)) in input.iter().zip(&got).enumerate() {
        acc = acc.wrapping_add(x);
        if g != acc {
            return Err(format!("scan[{i}] = {g}, expected {acc}"));
        }
    }
    let seconds = time_per_call(t, || plan.enqueue(ctx))?;
    Ok(n as f64 / seconds / 1e9)
}

pub fn nbody(t: &Target<'_>) -> Row {
    row(
        "app",
        "n-body (all pairs)",
        "Ginteractions/s",
        measured(nbody_run(t)),
    )
}

fn nbody_run(t: &Target<'_>) -> Result<f64, String> {
    let ctx = t.ctx;
    let group = t.group();
    let n = (t.sizes.nbody_n / group).max(1) * group;
    let r = unit_floats(7, n * 4);
    let pos: Vec<f32> = (0..n * 4)
        .map(|i| {
            if i % 4 == 3 {
                0.5 + 0.5 * r[i]
            } else {
                2.0 * r[i] - 1.0
            }
        })
        .collect();
    let eps2 = 0.01f32;
    let dpos = ctx.upload(&pos)?;
    let dacc = ctx.buffer(CL_MEM_READ_WRITE, n * 16)?;
    let program = ctx.program(kernels::NBODY, "")?;
    let k = program.kernel("nbody")?;
    k.mem(0, &dpos)?;
    k.mem(1, &dacc)?;
    k.local(2, group * 16)?;
    k.value(3, n as u32)?;
    k.value(4, eps2)?;
    let launch = || ctx.run(&k, &[n], Some(&[group]));
    launch()?;
    let acc: Vec<f32> = ctx.read(&dacc, n * 4)?;
    let mut pick = xorshift(8);
    for _ in 0..64.min(n) {
        let i = pick() as usize % n;
        let mut want = [0f64; 3];
        let mut scale = [0f64; 3];
        for j in 0..n {
            let d: Vec<f64> = (0..3)
                .map(|c| (pos[j * 4 + c] - pos[i * 4 + c]) as f64)
                .collect();
            let r2 = d.iter().map(|x| x * x).sum::<f64>() + eps2 as f64;
            let s = pos[j * 4 + 3] as f64 / (r2 * r2.sqrt());
            for c in 0..3 {
                want[c] += d[c] * s;
                scale[c] += (d[c] * s).abs();
            }
        }
        for c in 0..3 {
            let got = acc[i * 4 + c] as f64;
            if (got - want[c]).abs() > 1e-4 * scale[c] + 1e-6 {
                return Err(format!(
                    "body {i} component {c}: {got}, expected {}",
                    want[c]
                ));
            }
        }
    }
    let seconds = time_per_call(t, launch)?;
    Ok((n * n) as f64 / seconds / 1e9)
}

pub fn conv2d(t: &Target<'_>) -> Row {
    row(
        "app",
        "2D convolution 5x5",
        "Gpixel/s",
        measured(conv2d_run(t)),
    )
}

fn conv2d_run(t: &Target<'_>) -> Result<f64, String> {
    let ctx = t.ctx;
    let side = t.sizes.conv_side / 16 * 16;
    let img = unit_floats(10, side * side);
    let raw = unit_floats(11, 25);
    let total: f32 = raw.iter().sum();
    let filt: Vec<f32> = raw.iter().map(|v| v / total).collect();
    let (dimg, dfilt) = (ctx.upload(&img)?, ctx.upload(&filt)?);
    let dout = ctx.buffer(CL_MEM_READ_WRITE, side * side * 4)?;
    let program = ctx.program(kernels::CONV2D, "")?;
    let k = program.kernel("conv2d")?;
    k.mem(0, &dimg)?;
    k.mem(1, &dout)?;
    k.mem(2, &dfilt)?;
    k.value(3, side as i32)?;
    k.value(4, side as i32)?;
    let (lx, ly) = if t.max_group >= 256 { (16, 16) } else { (8, 8) };
    let launch = || ctx.run(&k, &[side, side], Some(&[lx, ly]));
    launch()?;
    let out: Vec<f32> = ctx.read(&dout, side * side)?;
    let s = side as isize;
    for y in 0..s {
        for x in 0..s {
            let mut want = 0f64;
            for dy in -2..=2isize {
                let yy = (y + dy).clamp(0, s - 1);
                for dx in -2..=2isize {
                    let xx = (x + dx).clamp(0, s - 1);
                    want += img[(yy * s + xx) as usize] as f64
                        * filt[((dy + 2) * 5 + dx + 2) as usize] as f64;
                }
            }
            let got = out[(y * s + x) as usize] as f64;
            if (got - want).abs() > 1e-5 {
                return Err(format!("pixel ({x}, {y}) = {got}, expected {want}"));
            }
        }
    }
    let seconds = time_per_call(t, launch)?;
    Ok((side * side) as f64 / seconds / 1e9)
}

pub fn radix(t: &Target<'_>) -> Row {
    row(
        "app",
        "radix sort (uint keys, 4-bit digits)",
        "Gkeys/s",
        measured(radix_run(t)),
    )
}

fn radix_run(t: &Target<'_>) -> Result<f64, String> {
    let ctx = t.ctx;
    if t.max_group < 256 {
        return Err("needs work-groups of 256".into());
    }
    let n = (t.sizes.radix_n / 256).max(1) * 256;
    let blocks = n / 256;
    let mut next = xorshift(12);
    let keys: Vec<u32> = (0..n).map(|_| next()).collect();
    let original = ctx.upload(&keys)?;
    let a = ctx.buffer(CL_MEM_READ_WRITE, n * 4)?;
    let b = ctx.buffer(CL_MEM_READ_WRITE, n * 4)?;
    let sorted = ctx.buffer(CL_MEM_READ_WRITE, n * 4)?;
    let hist = ctx.buffer(CL_MEM_READ_WRITE, 16 * blocks * 4)?;
    let starts = ctx.buffer(CL_MEM_READ_WRITE, 16 * blocks * 4)?;
    let program = ctx.program(kernels::RADIX, "")?;
    let scan_program = ctx.program(kernels::SCAN, "")?;
    let scan = Scan::new(ctx, &scan_program, &hist, 16 * blocks)?;
    // Pass p reads `original` (p = 0), else the previous pass's output;
    // eight passes end in `a`.
    let mut passes = Vec::new();
    for p in 0..8u32 {
        let src = match p {
            0 => &original,
            _ if p % 2 == 1 => &b,
            _ => &a,
        };
        let dst = if p % 2 == 0 { &b } else { &a };
        let block = program.kernel("radix_block")?;
        block.mem(0, src)?;
        block.mem(1, &sorted)?;
        block.mem(2, &hist)?;
        block.mem(3, &starts)?;
        block.value(4, p * 4)?;
        block.value(5, blocks as u32)?;
        let scatter = program.kernel("radix_scatter")?;
        scatter.mem(0, &sorted)?;
        scatter.mem(1, &hist)?;
        scatter.mem(2, scan.output())?;
        scatter.mem(3, &starts)?;
        scatter.mem(4, dst)?;
        scatter.value(5, p * 4)?;
        scatter.value(6, blocks as u32)?;
        passes.push((block, scatter));
    }
    let sort = || -> Result<(), String> {
        for (block, scatter) in &passes {
            ctx.run(block, &[n], Some(&[256]))?;
            scan.enqueue(ctx)?;
            ctx.run(scatter, &[n], Some(&[256]))?;
        }
        Ok(())
    };
    sort()?;
    let got: Vec<u32> = ctx.read(&a, n)?;
    let mut want = keys;
    want.sort_unstable();
    if let Some(i) = got.iter().zip(&want).position(|(g, w)| g != w) {
        return Err(format!("sorted[{i}] = {}, expected {}", got[i], want[i]));
    }
    let seconds = time_per_call(t, sort)?;
    Ok(n as f64 / seconds / 1e9)
}
