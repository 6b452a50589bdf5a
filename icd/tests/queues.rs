//! Command queues through the Rust-callable `extern "C"` entry points of the
//! `ferrocl` rlib: in-order queues whose barriers follow real hazards,
//! out-of-order queues (independent commands, wait lists, markers and
//! barriers, user events), and `clSetCommandQueueProperty`.
//!
//! The Vulkan validation layer is on for the whole process; each test ends
//! by checking that it reported nothing.

#![allow(clippy::missing_safety_doc)]

use ferrocl::context::*;
use ferrocl::device::*;
use ferrocl::enqueue::*;
use ferrocl::event::*;
use ferrocl::kernel::*;
use ferrocl::memory::*;
use ferrocl::platform::*;
use ferrocl::program::*;
use ferrocl::queue::*;
use ferrocl_runtime::cl::*;
use std::ffi::{c_void, CString};
use std::ptr::{null, null_mut};
use std::sync::Once;

type H = *mut c_void;

static VALIDATION: Once = Once::new();

fn ok(code: cl_int) {
    assert_eq!(code, CL_SUCCESS, "expected CL_SUCCESS");
}

fn check_validation() {
    assert_eq!(
        ferrocl_vk::validation_message_count(),
        0,
        "Vulkan validation messages"
    );
}

fn device() -> H {
    VALIDATION.call_once(|| {
        if std::env::var_os("FERROCL_VALIDATION").is_none() {
            std::env::set_var("FERROCL_VALIDATION", "1");
        }
    });
    unsafe {
        let mut platform = null_mut();
        ok(clGetPlatformIDs(1, &mut platform, null_mut()));
        let mut dev = null_mut();
        ok(clGetDeviceIDs(
            platform,
            CL_DEVICE_TYPE_ALL,
            1,
            &mut dev,
            null_mut(),
        ));
        dev
    }
}

const KERNELS: &str = r#"
    __kernel void inc(__global uint *x) { x[get_global_id(0)] += 1; }
    __kernel void set(__global uint *x, uint v) { x[get_global_id(0)] = v; }
    __kernel void twice_plus(__global const uint *a, __global uint *b, uint add) {
        size_t i = get_global_id(0);
        b[i] = a[i] * 2 + add;
    }
    __kernel void sum(__global const uint *a, __global const uint *b, __global uint *c) {
        size_t i = get_global_id(0);
        c[i] += a[i] + b[i];
    }
    __kernel void copy_plus(__global uint *src, __global uint *dst, uint add) {
        size_t i = get_global_id(0);
        dst[i] = src[i] + add;
    }
    __kernel void set_through_integer(__global uint *x, uint v) {
        ulong address = (ulong)x + 4 * get_global_id(0);
        *(__global uint *)address = v;
    }
    __kernel void lcg(__global uint *x, uint steps) {
        uint v = x[get_global_id(0)];
        for (uint i = 0; i < steps; i++) v = v * 1664525u + 1013904223u;
        x[get_global_id(0)] = v;
    }
"#;

const N: usize = 1024;

struct Env {
    ctx: H,
    queue: H,
    program: H,
}

impl Env {
    fn new(properties: cl_bitfield) -> Env {
        let dev = device();
        let mut err = 0;
        unsafe {
            let ctx = clCreateContext(null(), 1, &dev, None, null_mut(), &mut err);
            ok(err);
            let queue = clCreateCommandQueue(ctx, dev, properties, &mut err);
            ok(err);
            let src = CString::new(KERNELS).unwrap();
            let ptr = src.as_ptr();
            let program = clCreateProgramWithSource(ctx, 1, &ptr, null(), &mut err);
            ok(err);
            ok(clBuildProgram(program, 1, &dev, null(), None, null_mut()));
            Env {
                ctx,
                queue,
                program,
            }
        }
    }

    fn kernel(&self, name: &str) -> H {
        let n = CString::new(name).unwrap();
        let mut err = 0;
        let k = unsafe { clCreateKernel(self.program, n.as_ptr(), &mut err) };
        ok(err);
        k
    }

    fn buffer(&self, len: usize) -> H {
        let mut err = 0;
        let data = vec![0u32; len];
        let b = unsafe {
            clCreateBuffer(
                self.ctx,
                CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                len * 4,
                data.as_ptr() as *mut c_void,
                &mut err,
            )
        };
        ok(err);
        b
    }

    /// A blocking read after the events of `waits`.
    fn read(&self, buf: H, waits: &[H]) -> Vec<u32> {
        let mut out = vec![0u32; N];
        unsafe {
            ok(clEnqueueReadBuffer(
                self.queue,
                buf,
                CL_TRUE,
                0,
                N * 4,
                out.as_mut_ptr().cast(),
                waits.len() as cl_uint,
                if waits.is_empty() {
                    null()
                } else {
                    waits.as_ptr()
                },
                null_mut(),
            ));
        }
        out
    }

    /// Enqueues `kernel` over N work-items after `waits`; returns its event.
    fn run(&self, kernel: H, waits: &[H]) -> H {
        let global = N;
        let mut event = null_mut();
        unsafe {
            ok(clEnqueueNDRangeKernel(
                self.queue,
                kernel,
                1,
                null(),
                &global,
                null(),
                waits.len() as cl_uint,
                if waits.is_empty() {
                    null()
                } else {
                    waits.as_ptr()
                },
                &mut event,
            ));
        }
        event
    }
}

impl Drop for Env {
    fn drop(&mut self) {
        unsafe {
            ok(clFinish(self.queue));
            ok(clReleaseProgram(self.program));
            ok(clReleaseCommandQueue(self.queue));
            ok(clReleaseContext(self.ctx));
        }
    }
}

unsafe fn arg<T>(k: H, index: u32, value: &T) {
    ok(clSetKernelArg(
        k,
        index,
        std::mem::size_of::<T>(),
        (value as *const T).cast(),
    ));
}

fn status(e: H) -> cl_int {
    let mut s: cl_int = 0;
    unsafe {
        ok(clGetEventInfo(
            e,
            CL_EVENT_COMMAND_EXECUTION_STATUS,
            4,
            (&mut s as *mut cl_int).cast(),
            null_mut(),
        ));
    }
    s
}

fn release(events: &[H]) {
    for &e in events {
        unsafe { ok(clReleaseEvent(e)) };
    }
}

/// In order, without clFinish between them: read after write and write
/// after write on one buffer (a chain of increments, across batches),
/// ping-pong between two buffers, several readers of one buffer, and
/// writers of two sub-buffers of one parent read as a whole.
#[test]
fn in_order_commands_see_every_earlier_result() {
    let env = Env::new(0);
    let (inc, set, twice, sum) = (
        env.kernel("inc"),
        env.kernel("set"),
        env.kernel("twice_plus"),
        env.kernel("sum"),
    );
    let (a, b, c) = (env.buffer(N), env.buffer(N), env.buffer(N));
    let mut events = Vec::new();
    unsafe {
        arg(inc, 0, &a);
        for _ in 0..100 {
            events.push(env.run(inc, &[]));
        }
        // b = 2a + 1, a = 2b + 1, b = 2a + 1.
        arg(twice, 2, &1u32);
        for (from, to) in [(a, b), (b, a), (a, b)] {
            arg(twice, 0, &from);
            arg(twice, 1, &to);
            events.push(env.run(twice, &[]));
        }
        // Readers of b only: c += a + b three times.
        arg(sum, 0, &b);
        arg(sum, 1, &b);
        arg(sum, 2, &c);
        for _ in 0..3 {
            events.push(env.run(sum, &[]));
        }
    }
    let a_val = (100 * 2 + 1) * 2 + 1;
    let b_val = a_val * 2 + 1;
    assert_eq!(env.read(a, &[]), vec![a_val; N]);
    assert_eq!(env.read(b, &[]), vec![b_val; N]);
    assert_eq!(env.read(c, &[]), vec![3 * 2 * b_val; N]);

    // Sub-buffers of one parent written by different kernels.
    let parent = env.buffer(2 * N);
    let mut subs = Vec::new();
    for half in 0..2 {
        let region = [half * N * 4, N * 4];
        let mut err = 0;
        let sub = unsafe {
            clCreateSubBuffer(
                parent,
                CL_MEM_READ_WRITE,
                CL_BUFFER_CREATE_TYPE_REGION,
                region.as_ptr().cast(),
                &mut err,
            )
        };
        ok(err);
        subs.push(sub);
    }
    unsafe {
        arg(set, 0, &subs[0]);
        arg(set, 1, &7u32);
        events.push(env.run(set, &[]));
        arg(set, 0, &subs[1]);
        arg(set, 1, &9u32);
        events.push(env.run(set, &[]));
        arg(twice, 0, &subs[1]);
        arg(twice, 1, &subs[0]);
        arg(twice, 2, &0u32);
        events.push(env.run(twice, &[]));
    }
    assert_eq!(env.read(subs[0], &[]), vec![18; N]);
    release(&events);
    unsafe {
        for m in subs.into_iter().chain([parent, a, b, c]) {
            ok(clReleaseMemObject(m));
        }
        for k in [inc, set, twice, sum] {
            ok(clReleaseKernel(k));
        }
    }
    check_validation();
}

/// A queue whose earlier work is done submits a stream of commands once
/// it holds two, without `clFlush`, so the device starts on them while
/// the application goes on enqueueing; a lone command waits for a flush
/// or a wait (which then submits it on the waiting thread). The batch
/// after such a one is not submitted early again until `clFinish`.
#[test]
fn an_idle_queue_submits_its_second_command_without_a_flush() {
    use ferrocl_runtime::queue::IDLE_BATCH;
    assert_eq!(IDLE_BATCH, 2);
    let env = Env::new(0);
    let set = env.kernel("set");
    let inc = env.kernel("inc");
    let x = env.buffer(N);
    let done = |e: H| {
        let start = std::time::Instant::now();
        while status(e) != CL_COMPLETE as cl_int {
            assert!(
                start.elapsed() < std::time::Duration::from_secs(20),
                "status {}",
                status(e)
            );
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    };
    unsafe {
        arg(set, 0, &x);
        arg(set, 1, &5u32);
        arg(inc, 0, &x);
        for round in 0..3 {
            let first = env.run(set, &[]);
            assert_eq!(status(first), CL_QUEUED as cl_int, "round {round}");
            // No enqueue, flush or wait: the lone command stays queued.
            std::thread::sleep(std::time::Duration::from_millis(20));
            assert_eq!(status(first), CL_QUEUED as cl_int, "round {round}");
            let second = env.run(inc, &[]);
            // Only status queries from here: the completion thread alone
            // sees both commands through.
            done(first);
            done(second);
            // The device is idle again, but the next batch fills up.
            let third = env.run(inc, &[]);
            let fourth = env.run(inc, &[]);
            std::thread::sleep(std::time::Duration::from_millis(20));
            assert_eq!(status(third), CL_QUEUED as cl_int, "round {round}");
            assert_eq!(status(fourth), CL_QUEUED as cl_int, "round {round}");
            ok(clFinish(env.queue));
            assert_eq!(status(fourth), CL_COMPLETE as cl_int, "round {round}");
            release(&[first, second, third, fourth]);
        }
    }
    assert_eq!(env.read(x, &[]), vec![8; N]);
    unsafe {
        ok(clReleaseMemObject(x));
        ok(clReleaseKernel(set));
        ok(clReleaseKernel(inc));
    }
    check_validation();
}

/// The barriers recorded so far between commands of `queue`.
fn hazard_barriers(queue: H) -> u64 {
    // SAFETY: `queue` is a live command-queue handle of this test.
    let q = unsafe { ferrocl_runtime::api::from_handle::<ferrocl_runtime::queue::Queue>(queue) };
    q.expect("queue handle").hazard_barriers()
}

/// A kernel that never stores through a non-`const` pointer argument only
/// reads that buffer: launches that share it are not ordered by a barrier,
/// while a launch that reads what an earlier one wrote (or writes what an
/// earlier one read) still is, and sees the data.
#[test]
fn launches_that_only_read_a_buffer_share_it_without_a_barrier() {
    let env = Env::new(0);
    let (set, copy, launder) = (
        env.kernel("set"),
        env.kernel("copy_plus"),
        env.kernel("set_through_integer"),
    );
    let (a, b, c, d) = (env.buffer(N), env.buffer(N), env.buffer(N), env.buffer(N));
    let mut events = Vec::new();
    unsafe {
        arg(set, 0, &a);
        arg(set, 1, &5u32);
        events.push(env.run(set, &[]));
        ok(clFinish(env.queue));
        // The first two commands after a wait go out as a batch of their
        // own (`IDLE_BATCH`): the commands counted below share the next.
        arg(set, 0, &d);
        arg(set, 1, &0u32);
        events.push(env.run(set, &[]));
        events.push(env.run(set, &[]));
        let before = hazard_barriers(env.queue);
        // Two readers of a, writing different buffers: no barrier.
        arg(copy, 0, &a);
        arg(copy, 1, &b);
        arg(copy, 2, &1u32);
        events.push(env.run(copy, &[]));
        arg(copy, 1, &c);
        arg(copy, 2, &2u32);
        events.push(env.run(copy, &[]));
        assert_eq!(hazard_barriers(env.queue), before, "reads after reads");
        // Read after write (b), then write after read (a).
        arg(copy, 0, &b);
        arg(copy, 1, &d);
        arg(copy, 2, &10u32);
        events.push(env.run(copy, &[]));
        assert_eq!(hazard_barriers(env.queue), before + 1, "read after write");
        arg(set, 0, &b);
        arg(set, 1, &100u32);
        events.push(env.run(set, &[]));
        assert_eq!(hazard_barriers(env.queue), before + 2, "write after read");
        // A write through the argument's address turned into an integer and
        // back is a write: the reader after it is ordered and sees it.
        arg(launder, 0, &c);
        arg(launder, 1, &40u32);
        events.push(env.run(launder, &[]));
        arg(copy, 0, &c);
        arg(copy, 1, &d);
        arg(copy, 2, &2u32);
        events.push(env.run(copy, &[]));
        assert_eq!(hazard_barriers(env.queue), before + 3, "read after write");
    }
    assert_eq!(env.read(a, &[]), vec![5; N]);
    assert_eq!(env.read(c, &[]), vec![40; N]);
    assert_eq!(env.read(d, &[]), vec![42; N]);
    assert_eq!(env.read(b, &[]), vec![100; N]);
    release(&events);
    unsafe {
        for m in [a, b, c, d] {
            ok(clReleaseMemObject(m));
        }
        for k in [set, copy, launder] {
            ok(clReleaseKernel(k));
        }
    }
    check_validation();
}

/// An application that enqueues faster than the device runs is held back
/// in the enqueue call that would submit one batch too many: no more than
/// `MAX_IN_FLIGHT` batches wait for the device, and every launch still runs.
#[test]
fn batches_waiting_for_the_device_are_bounded() {
    use ferrocl_runtime::queue::{BATCH_LIMIT, MAX_IN_FLIGHT};
    let env = Env::new(0);
    let lcg = env.kernel("lcg");
    let x = env.buffer(N);
    // Enough work per launch that the device falls behind the enqueue
    // calls: on an H100 500 steps took about as long as an enqueue call.
    // A CPU device stays below lavapipe's loop limit of 65535 iterations.
    let mut kind: cl_bitfield = 0;
    unsafe {
        ok(clGetDeviceInfo(
            device(),
            CL_DEVICE_TYPE,
            8,
            (&mut kind as *mut cl_bitfield).cast(),
            null_mut(),
        ));
    }
    let steps = if kind & CL_DEVICE_TYPE_CPU != 0 {
        500u32
    } else {
        60_000
    };
    let launches = BATCH_LIMIT * (MAX_IN_FLIGHT as usize + 8);
    // SAFETY: `env.queue` is a live command-queue handle of this test.
    let queue =
        unsafe { ferrocl_runtime::api::from_handle::<ferrocl_runtime::queue::Queue>(env.queue) }
            .expect("queue handle");
    let mut most = 0;
    unsafe {
        arg(lcg, 0, &x);
        arg(lcg, 1, &steps);
        let global = N;
        for _ in 0..launches {
            ok(clEnqueueNDRangeKernel(
                env.queue,
                lcg,
                1,
                null(),
                &global,
                null(),
                0,
                null(),
                null_mut(),
            ));
            most = most.max(queue.batches_in_flight());
        }
    }
    assert!(most <= MAX_IN_FLIGHT, "{most} batches in flight");
    // The launches were pipelined at all (the device takes far longer than
    // the enqueue calls).
    assert!(most > 1, "{most} batches in flight");
    let mut expected = 0u32;
    for _ in 0..launches * steps as usize {
        expected = expected.wrapping_mul(1664525).wrapping_add(1013904223);
    }
    assert_eq!(env.read(x, &[]), vec![expected; N]);
    unsafe {
        ok(clReleaseMemObject(x));
        ok(clReleaseKernel(lcg));
    }
    check_validation();
}

/// Out of order: independent commands on separate buffers, each chained to
/// its predecessor by a wait list, then a barrier that orders a command
/// over all of them.
#[test]
fn out_of_order_wait_lists_and_barriers_order_commands() {
    let env = Env::new(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    let set = env.kernel("set");
    let inc = env.kernel("inc");
    let sum = env.kernel("sum");
    let bufs: Vec<H> = (0..4).map(|_| env.buffer(N)).collect();
    let mut events = Vec::new();
    let mut last = Vec::new();
    unsafe {
        // Four independent chains: set(i) -> inc -> inc -> ... (i+1 times).
        for (i, &buf) in bufs.iter().enumerate() {
            arg(set, 0, &buf);
            arg(set, 1, &(i as u32 * 10));
            let mut prev = env.run(set, &[]);
            events.push(prev);
            arg(inc, 0, &buf);
            for _ in 0..=i {
                prev = env.run(inc, &[prev]);
                events.push(prev);
            }
            last.push(prev);
        }
        // Every command after the barrier waits for every one before it.
        ok(clEnqueueBarrierWithWaitList(
            env.queue,
            0,
            null(),
            null_mut(),
        ));
        arg(sum, 0, &bufs[0]);
        arg(sum, 1, &bufs[1]);
        arg(sum, 2, &bufs[2]);
        let summed = env.run(sum, &[]);
        events.push(summed);
        // The blocking read waits for the sum through its wait list.
        assert_eq!(env.read(bufs[2], &[summed]), vec![23 + 1 + 12; N]);
        assert_eq!(env.read(bufs[3], &last[3..]), vec![34; N]);
        let mut marker = null_mut();
        ok(clEnqueueMarkerWithWaitList(
            env.queue,
            0,
            null(),
            &mut marker,
        ));
        ok(clWaitForEvents(1, &marker));
        for &e in &events {
            assert_eq!(
                status(e),
                CL_COMPLETE as cl_int,
                "command before the marker"
            );
        }
        events.push(marker);
    }
    release(&events);
    unsafe {
        for m in bufs {
            ok(clReleaseMemObject(m));
        }
        for k in [set, inc, sum] {
            ok(clReleaseKernel(k));
        }
    }
    check_validation();
}

/// Out of order, a command held by a user event holds back only what waits
/// for it: an independent command completes meanwhile, while a marker and
/// a barrier (which wait for every earlier command) and what follows the
/// barrier wait too.
#[test]
fn out_of_order_user_event_holds_only_its_dependents() {
    let env = Env::new(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    let set_a = env.kernel("set");
    let set_b = env.kernel("set");
    let inc = env.kernel("inc");
    let (a, b) = (env.buffer(N), env.buffer(N));
    let mut err = 0;
    unsafe {
        let gate = clCreateUserEvent(env.ctx, &mut err);
        ok(err);
        arg(set_a, 0, &a);
        arg(set_a, 1, &5u32);
        let held = env.run(set_a, &[gate]);
        arg(set_b, 0, &b);
        arg(set_b, 1, &6u32);
        let free = env.run(set_b, &[]);
        ok(clWaitForEvents(1, &free));
        assert_eq!(env.read(b, &[free]), vec![6; N]);
        assert!(
            status(held) > CL_COMPLETE as cl_int,
            "waits for the user event"
        );
        let mut marker = null_mut();
        ok(clEnqueueMarkerWithWaitList(
            env.queue,
            0,
            null(),
            &mut marker,
        ));
        let mut barrier = null_mut();
        ok(clEnqueueBarrierWithWaitList(
            env.queue,
            0,
            null(),
            &mut barrier,
        ));
        arg(inc, 0, &a);
        let after = env.run(inc, &[]);
        ok(clFlush(env.queue));
        std::thread::sleep(std::time::Duration::from_millis(50));
        for e in [held, marker, barrier, after] {
            assert!(
                status(e) > CL_COMPLETE as cl_int,
                "held behind the user event"
            );
        }
        ok(clSetUserEventStatus(gate, CL_COMPLETE as cl_int));
        ok(clFinish(env.queue));
        for e in [held, marker, barrier, after] {
            assert_eq!(status(e), CL_COMPLETE as cl_int);
        }
        assert_eq!(env.read(a, &[]), vec![6; N]);
        release(&[gate, held, free, marker, barrier, after]);
        for m in [a, b] {
            ok(clReleaseMemObject(m));
        }
        for k in [set_a, set_b, inc] {
            ok(clReleaseKernel(k));
        }
    }
    check_validation();
}

/// A failed dependency fails its dependents on an out-of-order queue too.
#[test]
fn out_of_order_failed_user_event_fails_dependents() {
    let env = Env::new(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    let set = env.kernel("set");
    let a = env.buffer(N);
    let mut err = 0;
    unsafe {
        let gate = clCreateUserEvent(env.ctx, &mut err);
        ok(err);
        arg(set, 0, &a);
        arg(set, 1, &1u32);
        let e = env.run(set, &[gate]);
        ok(clSetUserEventStatus(gate, -1));
        ok(clFinish(env.queue));
        assert_eq!(status(e), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
        release(&[gate, e]);
        ok(clReleaseMemObject(a));
        ok(clReleaseKernel(set));
    }
    check_validation();
}

fn queue_properties(q: H) -> cl_bitfield {
    let mut props: cl_bitfield = 0;
    unsafe {
        ok(clGetCommandQueueInfo(
            q,
            CL_QUEUE_PROPERTIES,
            8,
            (&mut props as *mut cl_bitfield).cast(),
            null_mut(),
        ));
    }
    props
}

#[test]
fn set_command_queue_property_switches_modes() {
    let env = Env::new(0);
    let inc = env.kernel("inc");
    let a = env.buffer(N);
    unsafe {
        let mut supported: cl_bitfield = 0;
        ok(clGetDeviceInfo(
            device(),
            CL_DEVICE_QUEUE_ON_HOST_PROPERTIES,
            8,
            (&mut supported as *mut cl_bitfield).cast(),
            null_mut(),
        ));
        assert_ne!(supported & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0);
        arg(inc, 0, &a);
        let before = env.run(inc, &[]);
        let mut old: cl_bitfield = 99;
        ok(clSetCommandQueueProperty(
            env.queue,
            CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE,
            CL_TRUE,
            &mut old,
        ));
        assert_eq!(old, 0);
        // Commands enqueued before the change have completed.
        assert_eq!(status(before), CL_COMPLETE as cl_int);
        assert_eq!(
            queue_properties(env.queue),
            CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE
        );
        let during = env.run(inc, &[]);
        ok(clSetCommandQueueProperty(
            env.queue,
            CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
            CL_FALSE,
            null_mut(),
        ));
        assert_eq!(queue_properties(env.queue), CL_QUEUE_PROFILING_ENABLE);
        let after = env.run(inc, &[]);
        ok(clFinish(env.queue));
        assert_eq!(env.read(a, &[]), vec![3; N]);
        let mut start: cl_ulong = 0;
        ok(clGetEventProfilingInfo(
            after,
            CL_PROFILING_COMMAND_START,
            8,
            (&mut start as *mut cl_ulong).cast(),
            null_mut(),
        ));
        assert_ne!(start, 0);
        // CL_INVALID_VALUE if values specified in properties are not valid.
        assert_eq!(
            clSetCommandQueueProperty(env.queue, 1 << 20, CL_TRUE, null_mut()),
            CL_INVALID_VALUE
        );
        assert_eq!(
            clSetCommandQueueProperty(null_mut(), 0, CL_TRUE, null_mut()),
            CL_INVALID_COMMAND_QUEUE
        );
        release(&[before, during, after]);
        ok(clReleaseMemObject(a));
        ok(clReleaseKernel(inc));
    }
    check_validation();
}

fn profiling(e: H, param: cl_uint) -> cl_ulong {
    let mut t: cl_ulong = 0;
    unsafe {
        ok(clGetEventProfilingInfo(
            e,
            param,
            8,
            (&mut t as *mut cl_ulong).cast(),
            null_mut(),
        ));
    }
    t
}

/// Profiling times come in order and on the clock of clGetHostTimer (the
/// device timer): device timestamps are calibrated to it.
#[test]
fn profiling_times_lie_on_the_host_timer() {
    let env = Env::new(CL_QUEUE_PROFILING_ENABLE);
    let inc = env.kernel("inc");
    let a = env.buffer(N);
    unsafe {
        arg(inc, 0, &a);
        let mut before: cl_ulong = 0;
        ok(clGetHostTimer(device(), &mut before));
        let events: Vec<H> = (0..40).map(|_| env.run(inc, &[])).collect();
        ok(clWaitForEvents(events.len() as cl_uint, events.as_ptr()));
        let mut after: cl_ulong = 0;
        ok(clGetHostTimer(device(), &mut after));
        let mut previous_end = 0;
        for &e in &events {
            let t = [
                CL_PROFILING_COMMAND_QUEUED,
                CL_PROFILING_COMMAND_SUBMIT,
                CL_PROFILING_COMMAND_START,
                CL_PROFILING_COMMAND_END,
                CL_PROFILING_COMMAND_COMPLETE,
            ]
            .map(|p| profiling(e, p));
            assert!(before <= t[0], "queued after the host timer read before");
            assert!(t.windows(2).all(|w| w[0] <= w[1]), "ordered times {t:?}");
            assert!(t[4] <= after, "complete before the host timer read after");
            // In order: a command starts once the one before has ended.
            assert!(
                t[2] >= previous_end,
                "start {} after end {previous_end}",
                t[2]
            );
            previous_end = t[3];
        }
        release(&events);
        ok(clReleaseMemObject(a));
        ok(clReleaseKernel(inc));
    }
    check_validation();
}
