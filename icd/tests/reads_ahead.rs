//! Large reads go as chunk commands that the queue releases as the
//! earlier chunks are copied out (runtime/src/memory.rs
//! `read_ahead_in_chunks`): a non-blocking call returns at once, a
//! blocking one once the bytes are there, the bytes arrive whole and in
//! queue order, the returned event spans the whole read, and the read
//! finishes after the application has released its queue.
//! lavapipe's buffers are host memory, which a read on an idle queue copies
//! from directly, so this process sets `FERROCL_DIRECT_ACCESS=off` before
//! its first OpenCL call: reads then take the path of a discrete GPU.
//!
//! The Vulkan validation layer is on for the whole process; each test ends
//! by checking that it reported nothing.

mod common;

use common::rlib::{
    check_validation, event_u32, ok, profiling_times, returns_at_once, Env, Kernel, Sent, SET_WORDS,
};
use ferrocl::event::*;
use ferrocl::memory::*;
use ferrocl::queue::*;
use ferrocl_runtime::cl::*;
use ferrocl_runtime::memory::{
    read_ahead_peak, reads_ahead_in_chunks, reset_read_ahead_peak, READ_AHEAD_IN_FLIGHT,
};
use std::ffi::c_void;
use std::ptr::{null, null_mut};

type H = *mut c_void;

/// One test at a time: they read the process's count of reads ahead.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Sets `FERROCL_DIRECT_ACCESS=off` before the process's first OpenCL call.
fn staged() {
    static STAGED: std::sync::Once = std::sync::Once::new();
    STAGED.call_once(|| std::env::set_var("FERROCL_DIRECT_ACCESS", "off"));
}

fn env(properties: cl_bitfield) -> Env {
    staged();
    Env::with_queue_properties(properties)
}

/// Nine chunks and part of a tenth (more than the chunks in flight, so
/// the last ones are held when the call returns), read from an odd offset.
const SIZE: usize = (144 << 20) + 12_345;
const AT: usize = 4_099;
/// Bytes of the destination around the read, which it must leave alone.
const MARGIN: usize = 777;

fn pattern(len: usize, seed: usize) -> Vec<u8> {
    (0..len).map(|i| ((i * 31 + seed) % 253) as u8).collect()
}

/// A buffer of `AT + SIZE` bytes holding [`pattern`] with `seed`.
unsafe fn filled_buffer(env: &Env, seed: usize) -> (H, Vec<u8>) {
    let mut err = 0;
    let data = pattern(AT + SIZE, seed);
    let buf = clCreateBuffer(env.ctx, CL_MEM_READ_WRITE, data.len(), null_mut(), &mut err);
    ok(err);
    ok(clEnqueueWriteBuffer(
        env.queue,
        buf,
        CL_TRUE,
        0,
        data.len(),
        data.as_ptr().cast(),
        0,
        null(),
        null_mut(),
    ));
    (buf, data)
}

/// A non-blocking read of `SIZE` bytes at `AT` into `out[MARGIN..]`, which
/// went ahead in chunks.
unsafe fn read_ahead(queue: H, buf: H, out: &mut [u8]) -> H {
    let before = reads_ahead_in_chunks();
    let event = enqueue_read(queue, buf, out);
    assert_eq!(
        reads_ahead_in_chunks(),
        before + 1,
        "the read went ahead in chunks"
    );
    event
}

/// A non-blocking read of `SIZE` bytes at `AT` into `out[MARGIN..]`.
unsafe fn enqueue_read(queue: H, buf: H, out: &mut [u8]) -> H {
    let mut event = null_mut();
    ok(clEnqueueReadBuffer(
        queue,
        buf,
        CL_FALSE,
        AT,
        SIZE,
        out[MARGIN..].as_mut_ptr().cast(),
        0,
        null(),
        &mut event,
    ));
    event
}

/// The bytes read are the buffer's at `AT`, and those around them in the
/// destination are untouched.
fn check_read(out: &[u8], data: &[u8]) {
    let mismatch = out[MARGIN..MARGIN + SIZE]
        .iter()
        .zip(&data[AT..])
        .position(|(a, b)| a != b);
    assert_eq!(mismatch, None, "first byte read wrong");
    assert!(
        out[..MARGIN]
            .iter()
            .chain(&out[MARGIN + SIZE..])
            .all(|&b| b == 0x5a),
        "the bytes around the read"
    );
}

/// The read sees the buffer as the commands before it left it, not as a
/// kernel enqueued after it (while most of its chunks are still held)
/// rewrites it; its event has the read's command type and spans the whole
/// read: it was submitted before the kernel after it was enqueued (the
/// last chunk alone is submitted only once an earlier one is copied out).
#[test]
fn reads_ahead_arrive_whole_and_in_order() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let env = env(CL_QUEUE_PROFILING_ENABLE);
    let set = Kernel::build(env.ctx, SET_WORDS, c"set");
    unsafe {
        let (buf, data) = filled_buffer(&env, 3);
        let mut out = vec![0x5au8; SIZE + 2 * MARGIN];
        let read = read_ahead(env.queue, buf, &mut out);
        set.arg(0, &buf);
        set.arg(1, &0xeeee_eeeeu32);
        let after = set.run(env.queue, (AT + SIZE) / 4, &[]);
        ok(clFinish(env.queue));
        check_read(&out, &data);
        assert_eq!(
            event_u32(read, CL_EVENT_COMMAND_EXECUTION_STATUS) as cl_int,
            CL_COMPLETE as cl_int
        );
        assert_eq!(
            event_u32(read, CL_EVENT_COMMAND_TYPE),
            CL_COMMAND_READ_BUFFER
        );
        let times = profiling_times(read);
        assert!(times.windows(2).all(|w| w[0] <= w[1]), "{times:?}");
        let kernel_times = profiling_times(after);
        assert!(
            times[1] <= kernel_times[0],
            "the read's submit time is its first chunk's: {times:?} against the \
             next command's {kernel_times:?}"
        );
        assert!(times[3] <= kernel_times[2], "the kernel ran after the read");
        ok(clReleaseEvent(read));
        ok(clReleaseEvent(after));
        ok(clReleaseMemObject(buf));
    }
    drop(set);
    drop(env);
    check_validation();
}

/// A blocking read goes ahead in chunks too, then waits: the bytes are
/// there when the call returns.
#[test]
fn blocking_reads_go_ahead_then_wait() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let env = env(0);
    unsafe {
        let (buf, data) = filled_buffer(&env, 7);
        let mut out = vec![0x5au8; SIZE + 2 * MARGIN];
        let before = reads_ahead_in_chunks();
        ok(clEnqueueReadBuffer(
            env.queue,
            buf,
            CL_TRUE,
            AT,
            SIZE,
            out[MARGIN..].as_mut_ptr().cast(),
            0,
            null(),
            null_mut(),
        ));
        assert_eq!(
            reads_ahead_in_chunks(),
            before + 1,
            "the read went ahead in chunks"
        );
        check_read(&out, &data);
        ok(clReleaseMemObject(buf));
    }
    drop(env);
    check_validation();
}

/// Reads enqueued back to back, as clpeak's non-blocking read row does,
/// each land whole once the queue is finished, and share one window of
/// chunks in flight: the first chunks of a read released behind another
/// wait for that read's chunks to be copied out, so the queue never holds
/// more chunks of staging than one read does.
#[test]
fn reads_ahead_back_to_back() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let env = env(0);
    unsafe {
        let (buf, data) = filled_buffer(&env, 5);
        let mut outs: Vec<Vec<u8>> = (0..3).map(|_| vec![0x5au8; SIZE + 2 * MARGIN]).collect();
        reset_read_ahead_peak();
        for out in &mut outs {
            ok(clReleaseEvent(read_ahead(env.queue, buf, out)));
        }
        ok(clFinish(env.queue));
        for out in &outs {
            check_read(out, &data);
        }
        check_window();
        ok(clReleaseMemObject(buf));
    }
    drop(env);
    check_validation();
}

/// Two threads reading through one queue at once: every read lands whole,
/// and the window of chunks in flight stays the queue's one window.
#[test]
fn reads_ahead_from_two_threads_on_one_queue() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let env = env(0);
    unsafe {
        let (buf, data) = filled_buffer(&env, 13);
        let before = reads_ahead_in_chunks();
        reset_read_ahead_peak();
        let threads: Vec<_> = (0..2)
            .map(|_| {
                let handles = Sent((env.queue, buf));
                std::thread::spawn(move || {
                    // Moved whole: a closure would capture only the fields.
                    let handles = handles;
                    let Sent((queue, buf)) = handles;
                    let mut outs: Vec<Vec<u8>> =
                        (0..2).map(|_| vec![0x5au8; SIZE + 2 * MARGIN]).collect();
                    // The count of reads ahead is the process's, which the
                    // other thread's reads move too: checked after both.
                    for out in &mut outs {
                        ok(clReleaseEvent(enqueue_read(queue, buf, out)));
                    }
                    ok(clFinish(queue));
                    outs
                })
            })
            .collect();
        for thread in threads {
            for out in thread.join().expect("a reading thread") {
                check_read(&out, &data);
            }
        }
        assert_eq!(reads_ahead_in_chunks(), before + 4, "every read went ahead");
        check_window();
        ok(clReleaseMemObject(buf));
    }
    drop(env);
    check_validation();
}

/// Since the last `reset_read_ahead_peak`, some chunks were in flight and
/// never more than one window of them.
fn check_window() {
    let peak = read_ahead_peak();
    assert!(
        (1..=READ_AHEAD_IN_FLIGHT as u64).contains(&peak),
        "{peak} chunks in flight at once"
    );
}

/// The application may release its queue as soon as the read is enqueued:
/// the read still finishes, and its event completes.
#[test]
fn reads_ahead_outlive_their_queue_handle() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    staged();
    let dev = common::rlib::device();
    let mut err = 0;
    unsafe {
        let ctx = ferrocl::context::clCreateContext(null(), 1, &dev, None, null_mut(), &mut err);
        ok(err);
        let queue = clCreateCommandQueue(ctx, dev, 0, &mut err);
        ok(err);
        let env = Env { ctx, queue };
        let (buf, data) = filled_buffer(&env, 9);
        std::mem::forget(env);
        let mut out = vec![0x5au8; SIZE + 2 * MARGIN];
        let read = read_ahead(queue, buf, &mut out);
        ok(clReleaseCommandQueue(queue));
        ok(clWaitForEvents(1, &read));
        assert_eq!(
            event_u32(read, CL_EVENT_COMMAND_EXECUTION_STATUS) as cl_int,
            CL_COMPLETE as cl_int
        );
        check_read(&out, &data);
        ok(clReleaseEvent(read));
        ok(clReleaseMemObject(buf));
        ok(ferrocl::context::clReleaseContext(ctx));
    }
    check_validation();
}

/// A read as large, behind a user event the application has not set, does
/// not go ahead in chunks (the chunks in flight would wait for the event
/// in the call on an error), returns at once, and lands once the event is
/// set.
#[test]
fn a_large_read_behind_a_user_event_returns_at_once() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let env = env(0);
    let before = reads_ahead_in_chunks();
    let mut err = 0;
    unsafe {
        let (buf, data) = filled_buffer(&env, 11);
        let gate = clCreateUserEvent(env.ctx, &mut err);
        ok(err);
        let mut out = vec![0x5au8; SIZE + 2 * MARGIN];
        let (queue, dst) = (env.queue, out[MARGIN..].as_mut_ptr());
        let (status, event) = returns_at_once("the read", move || {
            let mut event: H = null_mut();
            let status = clEnqueueReadBuffer(
                queue,
                buf,
                CL_FALSE,
                AT,
                SIZE,
                dst.cast(),
                1,
                &gate,
                &mut event,
            );
            (status, event)
        });
        ok(status);
        assert_eq!(reads_ahead_in_chunks(), before);
        ok(clSetUserEventStatus(gate, CL_COMPLETE as cl_int));
        ok(clWaitForEvents(1, &event));
        check_read(&out, &data);
        ok(clReleaseEvent(event));
        ok(clReleaseEvent(gate));
        ok(clReleaseMemObject(buf));
    }
    drop(env);
    check_validation();
}
