//! Kernel objects of one name share what `clCreateKernel` makes for it:
//! the kernel's module cut from the program's and the analysis of which
//! arguments it writes are made once per name and build
//! (runtime/src/kernel.rs `SharedKernel`). OpenCV makes a kernel object
//! per operation, hundreds for one template match, and each cost 0.25 ms
//! here before. The ICD's entry points are called as Rust functions of
//! the `ferrocl` rlib, so the runtime's count of analyses is this
//! process's.

mod common;

use common::rlib::{check_validation, ok, Env, Kernel};
use ferrocl::kernel::{clCreateKernel, clReleaseKernel};
use ferrocl::memory::{clCreateBuffer, clEnqueueReadBuffer, clReleaseMemObject};
use ferrocl::program::clRetainProgram;
use ferrocl::queue::clFinish;
use ferrocl_runtime::cl::*;
use ferrocl_runtime::kernel::kernels_analysed;
use std::ffi::c_void;
use std::ptr::null_mut;

const SOURCE: &str = "
__kernel void fill(__global uint *o, uint v) { o[get_global_id(0)] = v + (uint)get_global_id(0); }
__kernel void other(__global uint *o) { o[get_global_id(0)] = 7u; }
";

/// A new kernel object of `name` of `program`.
fn create(program: *mut c_void, name: &std::ffi::CStr) -> *mut c_void {
    let mut err = 0;
    // SAFETY: a built program and a NUL-terminated name.
    let kernel = unsafe { clCreateKernel(program, name.as_ptr(), &mut err) };
    ok(err);
    kernel
}

#[test]
fn kernel_objects_of_one_name_share_its_analysis() {
    let env = Env::new();
    let first = Kernel::build(env.ctx, SOURCE, c"fill");
    let analysed = kernels_analysed();
    // Forty more objects of the same name: no new analysis; the last one
    // launches and writes what its kernel says.
    for _ in 0..39 {
        // SAFETY: a kernel object made just above, released once.
        unsafe { clReleaseKernel(create(first.program, c"fill")) };
    }
    // Its own reference to the program, which its drop releases.
    // SAFETY: a valid program.
    ok(unsafe { clRetainProgram(first.program) });
    let last = Kernel {
        program: first.program,
        kernel: create(first.program, c"fill"),
    };
    assert_eq!(
        kernels_analysed(),
        analysed,
        "kernel objects of a name made before were cut and analysed again"
    );
    let mut err = 0;
    // SAFETY: a valid context; no host pointer.
    let out = unsafe { clCreateBuffer(env.ctx, CL_MEM_READ_WRITE, 256, null_mut(), &mut err) };
    ok(err);
    last.arg(0, &out);
    last.arg(1, &100u32);
    last.run(env.queue, 64, &[]);
    let mut got = [0u32; 64];
    // SAFETY: a blocking read of the buffer's 256 bytes into `got`.
    ok(unsafe {
        clEnqueueReadBuffer(
            env.queue,
            out,
            CL_TRUE,
            0,
            256,
            got.as_mut_ptr().cast(),
            0,
            std::ptr::null(),
            null_mut(),
        )
    });
    // SAFETY: a valid queue.
    ok(unsafe { clFinish(env.queue) });
    let want: Vec<u32> = (0..64).map(|i| 100 + i).collect();
    assert_eq!(got.to_vec(), want);
    // Another name of the program is analysed once, on its first object.
    let other = create(first.program, c"other");
    let other_again = create(first.program, c"other");
    assert_eq!(kernels_analysed(), analysed + 1);
    // SAFETY: objects made above, each released once.
    unsafe {
        clReleaseKernel(other);
        clReleaseKernel(other_again);
        clReleaseMemObject(out);
    }
    drop(last);
    drop(first);
    check_validation();
}
