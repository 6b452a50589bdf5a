//! Large writes from pageable memory into a buffer whose memory the host
//! cannot write at memory speed go in chunks through host-memory staging
//! (runtime/src/memory.rs `write_in_chunks`). lavapipe's memory is all
//! host memory, so this process sets `FERROCL_WRITE_CHUNKS=on`, which takes
//! that path for every buffer, before its first OpenCL call.
//!
//! The Vulkan validation layer is on for the whole process; each test ends
//! by checking that it reported nothing.

mod common;

use common::rlib::{
    check_validation, event_u32, ok, profiling_times, returns_at_once, Env, Kernel, SET_WORDS,
};
use ferrocl::event::*;
use ferrocl::memory::*;
use ferrocl_runtime::cl::*;
use std::ffi::c_void;
use std::ptr::{null, null_mut};
use std::sync::Once;

type H = *mut c_void;

/// One test at a time: they read the process's count of chunked writes.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// A context and queue, with `FERROCL_WRITE_CHUNKS=on` set before the
/// first OpenCL call of the process.
fn env(properties: cl_bitfield) -> Env {
    static CHUNKS: Once = Once::new();
    CHUNKS.call_once(|| std::env::set_var("FERROCL_WRITE_CHUNKS", "on"));
    Env::with_queue_properties(properties)
}

/// Five chunks and part of a sixth, at an odd offset into the buffer.
const SIZE: usize = (80 << 20) + 12_345;
const AT: usize = 4_099;

/// A write of SIZE bytes lands whole, after the kernel enqueued before it
/// and before the read after it, leaving the bytes around it alone; its
/// event completes with the write's command type, and the profiling times
/// it reports (the first chunk's start, the last one's end) are in order.
#[test]
fn chunked_writes_arrive_whole_and_in_order() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let env = env(CL_QUEUE_PROFILING_ENABLE);
    let (ctx, queue) = (env.ctx, env.queue);
    let set = Kernel::build(ctx, SET_WORDS, c"set");
    let before = ferrocl_runtime::memory::chunked_writes();
    let mut err = 0;
    unsafe {
        let total = (SIZE + 2 * AT).next_multiple_of(4);
        let buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, total, null_mut(), &mut err);
        ok(err);
        // Still queued or running when the write comes: the write's chunks
        // must land after it.
        set.arg(0, &buf);
        set.arg(1, &0xeeee_eeeeu32);
        ok(clReleaseEvent(set.run(queue, total / 4, &[])));
        let data: Vec<u8> = (0..SIZE).map(|i| (i * 31 % 253) as u8).collect();
        let mut event: H = null_mut();
        ok(clEnqueueWriteBuffer(
            queue,
            buf,
            CL_FALSE,
            AT,
            SIZE,
            data.as_ptr().cast(),
            0,
            null(),
            &mut event,
        ));
        assert_eq!(
            ferrocl_runtime::memory::chunked_writes(),
            before + 1,
            "the write went in chunks"
        );
        let mut out = vec![0u8; total];
        ok(clEnqueueReadBuffer(
            queue,
            buf,
            CL_TRUE,
            0,
            total,
            out.as_mut_ptr().cast(),
            0,
            null(),
            null_mut(),
        ));
        assert_eq!(
            event_u32(event, CL_EVENT_COMMAND_EXECUTION_STATUS) as cl_int,
            CL_COMPLETE as cl_int
        );
        assert_eq!(
            event_u32(event, CL_EVENT_COMMAND_TYPE),
            CL_COMMAND_WRITE_BUFFER
        );
        let times = profiling_times(event);
        assert!(times.windows(2).all(|w| w[0] <= w[1]), "{times:?}");
        let mismatch = out[AT..AT + SIZE]
            .iter()
            .zip(&data)
            .position(|(a, b)| a != b);
        assert_eq!(mismatch, None, "first byte written wrong");
        assert!(
            out[..AT]
                .iter()
                .chain(&out[AT + SIZE..])
                .all(|&b| b == 0xee),
            "the bytes around the write"
        );
        ok(clReleaseEvent(event));
        ok(clReleaseMemObject(buf));
    }
    drop(set);
    drop(env);
    check_validation();
}

/// A write as large as the chunked ones, behind a user event the
/// application has not set, returns at once (the chunked path would wait
/// in the call for its first chunks, which wait for the event) and lands
/// once the event is set.
#[test]
fn a_large_write_behind_a_user_event_returns_at_once() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let env = env(0);
    let (ctx, queue) = (env.ctx, env.queue);
    let before = ferrocl_runtime::memory::chunked_writes();
    let mut err = 0;
    unsafe {
        let buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, SIZE, null_mut(), &mut err);
        ok(err);
        let gate = clCreateUserEvent(ctx, &mut err);
        ok(err);
        let data: Vec<u8> = (0..SIZE).map(|i| (i * 7 % 251) as u8).collect();
        let src = data.as_ptr();
        let (status, event) = returns_at_once("the write", move || {
            let mut event: H = null_mut();
            let status = clEnqueueWriteBuffer(
                queue,
                buf,
                CL_FALSE,
                0,
                SIZE,
                src.cast(),
                1,
                &gate,
                &mut event,
            );
            (status, event)
        });
        ok(status);
        assert_eq!(ferrocl_runtime::memory::chunked_writes(), before);
        ok(clSetUserEventStatus(gate, CL_COMPLETE as cl_int));
        ok(clWaitForEvents(1, &event));
        let mut out = vec![0u8; SIZE];
        ok(clEnqueueReadBuffer(
            queue,
            buf,
            CL_TRUE,
            0,
            SIZE,
            out.as_mut_ptr().cast(),
            0,
            null(),
            null_mut(),
        ));
        assert!(out == data, "the bytes written");
        ok(clReleaseEvent(event));
        ok(clReleaseEvent(gate));
        ok(clReleaseMemObject(buf));
    }
    drop(env);
    check_validation();
}
