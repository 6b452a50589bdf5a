//! OpenCL C 6.10 (storage-class specifiers): `static` file-scope names are
//! private to their translation unit when compiled objects are linked
//! (C99 6.2.2), `extern` names are shared, and `const` value parameters are
//! legal but read-only. Through the Rust-callable entry points of the
//! `ferrocl` rlib, with the Vulkan validation layer on.

use ferrocl::context::*;
use ferrocl::device::*;
use ferrocl::enqueue::*;
use ferrocl::kernel::*;
use ferrocl::memory::*;
use ferrocl::platform::*;
use ferrocl::program::*;
use ferrocl::queue::*;
use ferrocl_runtime::cl::*;
use std::ffi::{c_void, CString};
use std::ptr::{null, null_mut};

type H = *mut c_void;

fn ok(code: cl_int, what: &str) {
    assert_eq!(code, CL_SUCCESS, "{what}");
}

struct Env {
    dev: H,
    ctx: H,
    queue: H,
}

impl Env {
    fn new() -> Env {
        std::env::set_var("FERROCL_VALIDATION", "1");
        let mut err = 0;
        // SAFETY: every out-pointer is a valid local; handles come from the
        // calls before them.
        unsafe {
            let mut platform = null_mut();
            ok(clGetPlatformIDs(1, &mut platform, null_mut()), "platform");
            let mut dev = null_mut();
            ok(
                clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &mut dev, null_mut()),
                "device",
            );
            let ctx = clCreateContext(null(), 1, &dev, None, null_mut(), &mut err);
            ok(err, "context");
            let queue = clCreateCommandQueue(ctx, dev, 0, &mut err);
            ok(err, "queue");
            Env { dev, ctx, queue }
        }
    }

    fn log(&self, p: H) -> String {
        let mut size = 0;
        // SAFETY: `p` is a live program; the buffer holds `size` bytes.
        unsafe {
            clGetProgramBuildInfo(p, self.dev, CL_PROGRAM_BUILD_LOG, 0, null_mut(), &mut size);
            let mut buf = vec![0u8; size];
            clGetProgramBuildInfo(
                p,
                self.dev,
                CL_PROGRAM_BUILD_LOG,
                size,
                buf.as_mut_ptr().cast(),
                null_mut(),
            );
            String::from_utf8_lossy(&buf[..size.saturating_sub(1)]).into_owned()
        }
    }

    /// clCompileProgram of `source` as one object.
    fn object(&self, source: &str) -> H {
        let src = CString::new(source).unwrap();
        let mut err = 0;
        // SAFETY: the source is NUL-terminated; the device list is ours.
        unsafe {
            let ptr = src.as_ptr();
            let p = clCreateProgramWithSource(self.ctx, 1, &ptr, null(), &mut err);
            ok(err, "create");
            let r = clCompileProgram(p, 1, &self.dev, null(), 0, null(), null(), None, null_mut());
            assert_eq!(r, CL_SUCCESS, "compile failed:\n{}", self.log(p));
            p
        }
    }

    /// Links `objects`, runs kernel `name` on one work-item with an int
    /// buffer of `n`, and returns the buffer.
    fn link_and_run(&self, objects: &[H], name: &str, n: usize) -> Vec<i32> {
        let mut err = 0;
        // SAFETY: handles are live; the buffer and its read are `n` ints.
        unsafe {
            let linked = clLinkProgram(
                self.ctx,
                1,
                &self.dev,
                null(),
                objects.len() as cl_uint,
                objects.as_ptr(),
                None,
                null_mut(),
                &mut err,
            );
            assert_eq!(err, CL_SUCCESS, "link failed:\n{}", self.log(linked));
            let kname = CString::new(name).unwrap();
            let k = clCreateKernel(linked, kname.as_ptr(), &mut err);
            ok(err, "kernel");
            let buf = clCreateBuffer(self.ctx, CL_MEM_READ_WRITE, n * 4, null_mut(), &mut err);
            ok(err, "buffer");
            ok(
                clSetKernelArg(k, 0, std::mem::size_of::<H>(), (&buf as *const H).cast()),
                "arg",
            );
            let one = 1usize;
            ok(
                clEnqueueNDRangeKernel(
                    self.queue,
                    k,
                    1,
                    null(),
                    &one,
                    null(),
                    0,
                    null(),
                    null_mut(),
                ),
                "enqueue",
            );
            let mut out = vec![0i32; n];
            ok(
                clEnqueueReadBuffer(
                    self.queue,
                    buf,
                    CL_TRUE,
                    0,
                    n * 4,
                    out.as_mut_ptr().cast(),
                    0,
                    null(),
                    null_mut(),
                ),
                "read",
            );
            clReleaseMemObject(buf);
            clReleaseKernel(k);
            clReleaseProgram(linked);
            out
        }
    }
}

impl Drop for Env {
    fn drop(&mut self) {
        // SAFETY: the handles were created by Env::new.
        unsafe {
            clReleaseCommandQueue(self.queue);
            clReleaseContext(self.ctx);
        }
    }
}

#[test]
fn static_names_are_private_to_their_unit_when_linked() {
    let env = Env::new();
    let a = env.object(
        "static int helper(int v) { return v + 1; }\n\
         static constant int bias = 10;\n\
         int from_a(int v) { return helper(v) + bias; }\n",
    );
    let b = env.object(
        "static int helper(int v) { return v * 100; }\n\
         static constant int bias = 1000;\n\
         int from_a(int v);\n\
         kernel void k(global int *out) {\n\
           out[0] = from_a(1);\n\
           out[1] = helper(2) + bias;\n\
         }\n",
    );
    assert_eq!(env.link_and_run(&[a, b], "k", 2), [12, 1200]);
    // SAFETY: the objects are live programs.
    unsafe {
        clReleaseProgram(a);
        clReleaseProgram(b);
    }
    assert_eq!(ferrocl_vk::validation_message_count(), 0);
}

#[test]
fn const_value_parameters_are_read_only() {
    let env = Env::new();
    let good = env.object(
        "int twice(const int v) { return v * 2; }\n\
         kernel void k(global int *out, const int unused) { out[0] = twice(21); }\n",
    );
    // SAFETY: `good` is a live program.
    unsafe { clReleaseProgram(good) };
    let src =
        CString::new("void f(const int v) { v = 1; }\nkernel void k(global int *o) { f(1); }\n")
            .unwrap();
    let mut err = 0;
    // SAFETY: the source is NUL-terminated; the device list is ours.
    unsafe {
        let ptr = src.as_ptr();
        let p = clCreateProgramWithSource(env.ctx, 1, &ptr, null(), &mut err);
        ok(err, "create");
        let r = clBuildProgram(p, 1, &env.dev, null(), None, null_mut());
        assert_eq!(r, CL_BUILD_PROGRAM_FAILURE);
        let log = env.log(p);
        assert!(log.contains("const-qualified"), "{log}");
        clReleaseProgram(p);
    }
}
