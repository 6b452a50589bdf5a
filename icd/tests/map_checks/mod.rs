//! Map and unmap semantics, shared by maps.rs (buffers in host-cached
//! memory, lavapipe's, are mapped as their own memory: runtime/src/memory.rs
//! `map_directly`) and staged_maps.rs (`FERROCL_DIRECT_ACCESS=off`: every map
//! goes through staging, as on a discrete GPU). Each check takes whether
//! its maps are expected to be direct and asserts it through the runtime's
//! count of direct maps.

#![allow(dead_code)]

use crate::common::rlib::{check_validation, device, event_u32, ok, wait_list, Env, Kernel};
use ferrocl::device::clGetDeviceInfo;
use ferrocl::event::*;
use ferrocl::memory::*;
use ferrocl::queue::clFinish;
use ferrocl_runtime::cl::*;
use ferrocl_runtime::memory::direct_maps;
use std::ffi::c_void;
use std::ptr::{null, null_mut};

type H = *mut c_void;

/// One check at a time: they read the process's count of direct maps.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

const WORDS: usize = 1 << 16;
const BYTES: usize = WORDS * 4;

/// Whether maps on this device are direct when the switch allows them:
/// its buffers are in host memory.
pub fn unified_memory() -> bool {
    let mut unified: cl_bool = 0;
    ok(unsafe {
        clGetDeviceInfo(
            device(),
            CL_DEVICE_HOST_UNIFIED_MEMORY,
            std::mem::size_of::<cl_bool>(),
            (&mut unified as *mut cl_bool).cast(),
            null_mut(),
        )
    });
    unified != 0
}

/// `x[i] = x[i] * mul + add` over a buffer of words.
const AXPB: &str = "__kernel void axpb(__global uint *x, uint mul, uint add) {\n\
    size_t i = get_global_id(0);\n\
    x[i] = x[i] * mul + add;\n\
}";

fn axpb_kernel(env: &Env) -> Kernel {
    Kernel::build(env.ctx, AXPB, c"axpb")
}

/// Enqueues [`AXPB`] over the `WORDS` words of `buf` after `waits`; its
/// event.
fn axpb(kernel: &Kernel, env: &Env, buf: H, mul: u32, add: u32, waits: &[H]) -> H {
    kernel.arg(0, &buf);
    kernel.arg(1, &mul);
    kernel.arg(2, &add);
    kernel.run(env.queue, WORDS, waits)
}

fn zeroed_buffer(env: &Env) -> H {
    let mut err = 0;
    let zeros = vec![0u32; WORDS];
    let buf = unsafe {
        clCreateBuffer(
            env.ctx,
            CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
            BYTES,
            zeros.as_ptr() as *mut c_void,
            &mut err,
        )
    };
    ok(err);
    buf
}

/// Maps `size` bytes of `buf` at `offset` with `flags` after `waits`;
/// the pointer and the map's event.
unsafe fn map(
    env: &Env,
    buf: H,
    blocking: bool,
    flags: cl_bitfield,
    offset: usize,
    size: usize,
    waits: &[H],
) -> (*mut u32, H) {
    let mut err = 0;
    let mut event = null_mut();
    let (count, list) = wait_list(waits);
    let ptr = clEnqueueMapBuffer(
        env.queue,
        buf,
        if blocking { CL_TRUE } else { CL_FALSE },
        flags,
        offset,
        size,
        count,
        list,
        &mut event,
        &mut err,
    );
    ok(err);
    (ptr.cast(), event)
}

unsafe fn unmap(env: &Env, buf: H, ptr: *mut u32) {
    ok(clEnqueueUnmapMemObject(
        env.queue,
        buf,
        ptr.cast(),
        0,
        null(),
        null_mut(),
    ));
}

/// The `WORDS` words of `buf`, read after the commands before.
unsafe fn read_words(env: &Env, buf: H) -> Vec<u32> {
    let mut out = vec![0u32; WORDS];
    ok(clEnqueueReadBuffer(
        env.queue,
        buf,
        CL_TRUE,
        0,
        BYTES,
        out.as_mut_ptr().cast(),
        0,
        null(),
        null_mut(),
    ));
    out
}

fn assert_direct(before: u64, maps: u64, direct: bool) {
    let expected = if direct { before + maps } else { before };
    assert_eq!(
        direct_maps(),
        expected,
        "maps made directly (expected direct: {direct})"
    );
}

/// A map for reading shows what the kernel before it wrote; a map for
/// writing that the host fills reaches the kernel after its unmap.
pub fn maps_order_with_kernels(env: Env, direct: bool) {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let kernel = axpb_kernel(&env);
    let before = direct_maps();
    unsafe {
        let buf = zeroed_buffer(&env);
        ok(clReleaseEvent(axpb(&kernel, &env, buf, 1, 7, &[])));
        let (ptr, event) = map(&env, buf, false, CL_MAP_READ, 0, BYTES, &[]);
        ok(clWaitForEvents(1, &event));
        ok(clReleaseEvent(event));
        let seen = std::slice::from_raw_parts(ptr, WORDS);
        assert!(
            seen.iter().all(|&w| w == 7),
            "the kernel's 7s through the map"
        );
        unmap(&env, buf, ptr);
        let (ptr, event) = map(
            &env,
            buf,
            true,
            CL_MAP_WRITE_INVALIDATE_REGION,
            0,
            BYTES,
            &[],
        );
        ok(clReleaseEvent(event));
        for (i, w) in std::slice::from_raw_parts_mut(ptr, WORDS)
            .iter_mut()
            .enumerate()
        {
            *w = i as u32;
        }
        unmap(&env, buf, ptr);
        ok(clReleaseEvent(axpb(&kernel, &env, buf, 3, 1, &[])));
        let out = read_words(&env, buf);
        let wrong = out
            .iter()
            .enumerate()
            .position(|(i, &w)| w != i as u32 * 3 + 1);
        assert_eq!(
            wrong, None,
            "first word wrong after the unmap and the kernel"
        );
        assert_direct(before, 2, direct);
        ok(clReleaseMemObject(buf));
    }
    drop(kernel);
    drop(env);
    check_validation();
}

/// A sub-buffer's map shows the parent's bytes at its origin (the same
/// memory when maps are direct), and what the host writes through it
/// reaches the parent.
pub fn sub_buffer_maps_agree(env: Env, direct: bool) {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let kernel = axpb_kernel(&env);
    let before = direct_maps();
    let origin = 4096usize;
    let size = BYTES / 2;
    unsafe {
        let buf = zeroed_buffer(&env);
        ok(clReleaseEvent(axpb(&kernel, &env, buf, 1, 5, &[])));
        let region = [origin, size];
        let mut err = 0;
        let sub = clCreateSubBuffer(
            buf,
            CL_MEM_READ_WRITE,
            CL_BUFFER_CREATE_TYPE_REGION,
            region.as_ptr().cast(),
            &mut err,
        );
        ok(err);
        let (whole, e1) = map(&env, buf, true, CL_MAP_READ, 0, BYTES, &[]);
        let (part, e2) = map(&env, sub, true, CL_MAP_WRITE, 0, size, &[]);
        ok(clReleaseEvent(e1));
        ok(clReleaseEvent(e2));
        if direct {
            assert_eq!(
                part as usize,
                whole as usize + origin,
                "the sub-buffer's map is the parent's memory"
            );
        }
        assert!(std::slice::from_raw_parts(part, size / 4)
            .iter()
            .all(|&w| w == 5));
        for w in std::slice::from_raw_parts_mut(part, size / 4) {
            *w = 9;
        }
        unmap(&env, sub, part);
        unmap(&env, buf, whole);
        let out = read_words(&env, buf);
        let expected = |i: usize| {
            if (origin..origin + size).contains(&(i * 4)) {
                9
            } else {
                5
            }
        };
        let wrong = out.iter().enumerate().position(|(i, &w)| w != expected(i));
        assert_eq!(wrong, None, "first word wrong after the sub-buffer's unmap");
        assert_direct(before, 2, direct);
        ok(clReleaseMemObject(sub));
        ok(clReleaseMemObject(buf));
    }
    drop(kernel);
    drop(env);
    check_validation();
}

/// A non-blocking map after a kernel that waits for a user event returns
/// at once, and shows the kernel's writes once its event completes.
pub fn a_map_behind_a_user_event_returns_at_once(env: Env, direct: bool) {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let kernel = axpb_kernel(&env);
    let before = direct_maps();
    let mut err = 0;
    unsafe {
        let buf = zeroed_buffer(&env);
        let gate = clCreateUserEvent(env.ctx, &mut err);
        ok(err);
        let written = axpb(&kernel, &env, buf, 1, 11, &[gate]);
        let (ptr, event) = map(&env, buf, false, CL_MAP_READ, 0, BYTES, &[written]);
        let status = event_u32(event, CL_EVENT_COMMAND_EXECUTION_STATUS) as cl_int;
        assert!(
            status > CL_COMPLETE as cl_int,
            "the map waits for the gated kernel"
        );
        ok(clSetUserEventStatus(gate, CL_COMPLETE as cl_int));
        ok(clWaitForEvents(1, &event));
        assert!(std::slice::from_raw_parts(ptr, WORDS)
            .iter()
            .all(|&w| w == 11));
        unmap(&env, buf, ptr);
        ok(clFinish(env.queue));
        assert_direct(before, 1, direct);
        for e in [gate, written, event] {
            ok(clReleaseEvent(e));
        }
        ok(clReleaseMemObject(buf));
    }
    drop(kernel);
    drop(env);
    check_validation();
}
