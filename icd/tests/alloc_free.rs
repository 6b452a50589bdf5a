//! The kernel-launch hot path allocates nothing: after a warm-up, a steady
//! stream of `clSetKernelArg` + `clEnqueueNDRangeKernel` calls makes no heap
//! allocation on the calling thread. The ICD's entry points are called as
//! Rust functions of the `ferrocl` rlib, under a counting global allocator.
//!
//! With `FERROCL_ALLOC_BACKTRACE=1` every counted allocation prints its
//! backtrace to stderr, which is how the allocations are found.

use ferrocl::context::{clCreateContext, clReleaseContext};
use ferrocl::device::clGetDeviceIDs;
use ferrocl::enqueue::clEnqueueNDRangeKernel;
use ferrocl::kernel::{clCreateKernel, clReleaseKernel, clSetKernelArg};
use ferrocl::memory::{clCreateBuffer, clReleaseMemObject};
use ferrocl::platform::clGetPlatformIDs;
use ferrocl::program::{clBuildProgram, clCreateProgramWithSource, clReleaseProgram};
use ferrocl::queue::{clCreateCommandQueueWithProperties, clFinish, clReleaseCommandQueue};
use ferrocl_runtime::cl::*;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::ffi::c_void;
use std::ptr::{null, null_mut};
use std::sync::atomic::{AtomicUsize, Ordering};

struct CountingAllocator;

static COUNTED: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// Counting is on for this thread (the one enqueueing).
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    /// Inside the backtrace printer, whose own allocations are not counted.
    static REPORTING: Cell<bool> = const { Cell::new(false) };
}

fn backtraces_wanted() -> bool {
    static WANTED: AtomicUsize = AtomicUsize::new(2);
    match WANTED.load(Ordering::Relaxed) {
        2 => {
            // Reading the environment allocates: done with counting off.
            let was = COUNTING.with(|c| c.replace(false));
            let on = std::env::var_os("FERROCL_ALLOC_BACKTRACE").is_some_and(|v| v != "0");
            COUNTING.with(|c| c.set(was));
            WANTED.store(on as usize, Ordering::Relaxed);
            on
        }
        v => v == 1,
    }
}

impl CountingAllocator {
    fn note(&self, what: &str, size: usize) {
        let counting = COUNTING.try_with(Cell::get).unwrap_or(false);
        let reporting = REPORTING.try_with(Cell::get).unwrap_or(true);
        if !counting || reporting {
            return;
        }
        COUNTED.fetch_add(1, Ordering::Relaxed);
        REPORTING.with(|r| r.set(true));
        if backtraces_wanted() {
            let trace = std::backtrace::Backtrace::force_capture();
            eprintln!("== {what} of {size} bytes on the enqueue path:\n{trace}");
        }
        REPORTING.with(|r| r.set(false));
    }
}

// SAFETY: every call is forwarded to the system allocator unchanged; the
// counting touches only atomics and thread-locals without destructors.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        self.note("allocation", layout.size());
        // SAFETY: forwarded with the caller's layout.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        self.note("allocation", layout.size());
        // SAFETY: forwarded with the caller's layout.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        self.note("reallocation", new_size);
        // SAFETY: forwarded with the caller's pointer and layouts.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded with the caller's pointer and layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

fn ok(code: cl_int, what: &str) {
    assert_eq!(code, CL_SUCCESS, "{what} failed with {code}");
}

const SOURCE: &str = r#"
__kernel void scale(__global float *data, float factor, uint n) {
    uint i = get_global_id(0);
    if (i < n) data[i] *= factor;
}
"#;

/// Heap allocations on the calling thread during `launches` launches,
/// each with one clSetKernelArg before it, after four rounds of `warm_up`
/// launches and a `clFinish`.
fn allocations_after_warm_up(warm_up: usize, launches: usize) -> usize {
    // The tests run under the validation layer, chosen before the first
    // call creates the Vulkan instance.
    if std::env::var_os("FERROCL_VALIDATION").is_none() {
        std::env::set_var("FERROCL_VALIDATION", "1");
    }
    let validation_before = ferrocl_vk::validation_message_count();
    let mut err = 0;
    // SAFETY: every call gets the pointers and handles the OpenCL
    // specification describes, all live for the call.
    unsafe {
        let mut platform = null_mut();
        ok(
            clGetPlatformIDs(1, &mut platform, null_mut()),
            "clGetPlatformIDs",
        );
        let mut device = null_mut();
        ok(
            clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &mut device, null_mut()),
            "clGetDeviceIDs",
        );
        let context = clCreateContext(null(), 1, &device, None, null_mut(), &mut err);
        ok(err, "clCreateContext");
        let queue = clCreateCommandQueueWithProperties(context, device, null(), &mut err);
        ok(err, "clCreateCommandQueueWithProperties");
        let n = 4096usize;
        let buffer = clCreateBuffer(context, CL_MEM_READ_WRITE, n * 4, null_mut(), &mut err);
        ok(err, "clCreateBuffer");
        let text = SOURCE.as_ptr().cast();
        let len = SOURCE.len();
        let program = clCreateProgramWithSource(context, 1, &text, &len, &mut err);
        ok(err, "clCreateProgramWithSource");
        ok(
            clBuildProgram(program, 1, &device, c"".as_ptr(), None, null_mut()),
            "clBuildProgram",
        );
        let kernel = clCreateKernel(program, c"scale".as_ptr(), &mut err);
        ok(err, "clCreateKernel");
        ok(
            clSetKernelArg(
                kernel,
                0,
                size_of::<*mut c_void>(),
                (&buffer as *const *mut c_void).cast(),
            ),
            "clSetKernelArg(0)",
        );
        let count = n as u32;
        ok(
            clSetKernelArg(kernel, 2, 4, (&count as *const u32).cast()),
            "clSetKernelArg(2)",
        );
        let global = n;
        let local = 64usize;
        // Alternating factors that multiply to one keep the data finite.
        let launch = |i: usize| {
            let factor = if i.is_multiple_of(2) { 2.0f32 } else { 0.5 };
            let status = clSetKernelArg(kernel, 1, 4, (&factor as *const f32).cast());
            if status != CL_SUCCESS {
                return status;
            }
            clEnqueueNDRangeKernel(
                queue,
                kernel,
                1,
                null(),
                &global,
                &local,
                0,
                null(),
                null_mut(),
            )
        };
        // Warm-up: pipelines built, pools and rings grown, batches submitted
        // and recycled.
        for round in 0..4 {
            for i in 0..warm_up {
                ok(launch(round * warm_up + i), "warm-up launch");
            }
            ok(clFinish(queue), "clFinish");
        }
        COUNTED.store(0, Ordering::Relaxed);
        let mut failed = CL_SUCCESS;
        COUNTING.with(|c| c.set(true));
        for i in 0..launches {
            let status = launch(i);
            if status != CL_SUCCESS {
                failed = status;
                break;
            }
        }
        COUNTING.with(|c| c.set(false));
        let counted = COUNTED.load(Ordering::Relaxed);
        ok(failed, "steady-state launch");
        ok(clFinish(queue), "clFinish");
        clReleaseKernel(kernel);
        clReleaseProgram(program);
        clReleaseMemObject(buffer);
        clReleaseCommandQueue(queue);
        clReleaseContext(context);
        assert_eq!(
            ferrocl_vk::validation_message_count(),
            validation_before,
            "the Vulkan validation layer reported messages (see stderr)"
        );
        counted
    }
}

#[test]
fn steady_state_kernel_launches_do_not_allocate() {
    let launches = 256;
    let counted = allocations_after_warm_up(launches, launches);
    assert_eq!(
        counted, 0,
        "{counted} heap allocations in {launches} launches (run with FERROCL_ALLOC_BACKTRACE=1 to see where)"
    );
}

/// A queue holds from its creation the batches, command buffers and events
/// of as many commands as it lets be pending, so that a stream longer than
/// any before it (more batches pending than ever, as happens when the
/// device falls behind) allocates nothing either.
#[test]
fn a_longer_stream_than_any_before_does_not_allocate() {
    let launches = 512;
    let counted = allocations_after_warm_up(2, launches);
    assert_eq!(
        counted, 0,
        "{counted} heap allocations in {launches} launches after short warm-up rounds \
         (run with FERROCL_ALLOC_BACKTRACE=1 to see where)"
    );
}
