//! Host-API tests through the Rust-callable `extern "C"` entry points of the
//! `ferrocl` rlib: object lifetimes, every buffer transfer, programs,
//! kernels and launches, events, and the error codes of bad arguments.
//!
//! The Vulkan validation layer is on for the whole process; each test ends
//! by checking that it reported nothing.

#![allow(clippy::missing_safety_doc)]

mod common;

use common::rlib::{check_validation, device, event_u32, ok, profiling_times};
use ferrocl::context::*;
use ferrocl::device::*;
use ferrocl::enqueue::*;
use ferrocl::event::*;
use ferrocl::kernel::*;
use ferrocl::memory::*;
use ferrocl::platform::*;
use ferrocl::program::*;
use ferrocl::queue::*;
use ferrocl::svm::*;
use ferrocl_runtime::cl::*;
use std::ffi::{c_char, c_void, CString};
use std::ptr::{null, null_mut};
use std::sync::atomic::{AtomicUsize, Ordering};

type H = *mut c_void;

/// A context and an in-order queue on the first device.
struct Env {
    ctx: H,
    queue: H,
}

impl Env {
    fn new() -> Env {
        Env::with_queue_properties(0)
    }

    fn with_queue_properties(props: cl_bitfield) -> Env {
        let dev = device();
        let mut err = 0;
        unsafe {
            let ctx = clCreateContext(null(), 1, &dev, None, null_mut(), &mut err);
            ok(err);
            let queue = clCreateCommandQueue(ctx, dev, props, &mut err);
            ok(err);
            Env { ctx, queue }
        }
    }

    fn buffer(&self, flags: cl_bitfield, size: usize, host: *mut c_void) -> H {
        let mut err = 0;
        let b = unsafe { clCreateBuffer(self.ctx, flags, size, host, &mut err) };
        ok(err);
        b
    }

    fn write<T: Copy>(&self, buf: H, offset: usize, data: &[T]) {
        let size = std::mem::size_of_val(data);
        unsafe {
            ok(clEnqueueWriteBuffer(
                self.queue,
                buf,
                CL_TRUE,
                offset,
                size,
                data.as_ptr().cast(),
                0,
                null(),
                null_mut(),
            ));
        }
    }

    fn read<T: Copy + Default>(&self, buf: H, offset: usize, len: usize) -> Vec<T> {
        let mut out = vec![T::default(); len];
        unsafe {
            ok(clEnqueueReadBuffer(
                self.queue,
                buf,
                CL_TRUE,
                offset,
                len * std::mem::size_of::<T>(),
                out.as_mut_ptr().cast(),
                0,
                null(),
                null_mut(),
            ));
        }
        out
    }

    /// Builds `source`; panics with the build log on failure.
    fn program(&self, source: &str, options: &str) -> H {
        let dev = device();
        let src = CString::new(source).unwrap();
        let opts = CString::new(options).unwrap();
        let mut err = 0;
        unsafe {
            let ptr = src.as_ptr();
            let p = clCreateProgramWithSource(self.ctx, 1, &ptr, null(), &mut err);
            ok(err);
            let r = clBuildProgram(p, 1, &dev, opts.as_ptr(), None, null_mut());
            assert_eq!(r, CL_SUCCESS, "build failed:\n{}", build_log(p));
            p
        }
    }

    fn kernel(&self, source: &str, name: &str) -> (H, H) {
        let p = self.program(source, "");
        let n = CString::new(name).unwrap();
        let mut err = 0;
        let k = unsafe { clCreateKernel(p, n.as_ptr(), &mut err) };
        ok(err);
        (p, k)
    }
}

impl Drop for Env {
    fn drop(&mut self) {
        unsafe {
            ok(clFinish(self.queue));
            ok(clReleaseCommandQueue(self.queue));
            ok(clReleaseContext(self.ctx));
        }
    }
}

fn build_log(p: H) -> String {
    let mut size = 0;
    unsafe {
        ok(clGetProgramBuildInfo(
            p,
            device(),
            CL_PROGRAM_BUILD_LOG,
            0,
            null_mut(),
            &mut size,
        ));
        let mut buf = vec![0u8; size];
        ok(clGetProgramBuildInfo(
            p,
            device(),
            CL_PROGRAM_BUILD_LOG,
            size,
            buf.as_mut_ptr().cast(),
            null_mut(),
        ));
        String::from_utf8_lossy(&buf[..size.saturating_sub(1)]).into_owned()
    }
}

unsafe fn set_arg<T>(k: H, index: u32, value: &T) {
    ok(clSetKernelArg(
        k,
        index,
        std::mem::size_of::<T>(),
        (value as *const T).cast(),
    ));
}

fn ref_count(
    query: impl Fn(cl_uint, usize, *mut c_void, *mut usize) -> cl_int,
    param: cl_uint,
) -> u32 {
    let mut n = 0u32;
    ok(query(param, 4, (&mut n as *mut u32).cast(), null_mut()));
    n
}

const VECTOR_ADD: &str = "
__kernel void add(__global const float *a, __global const float *b, __global float *c)
{
    size_t i = get_global_id(0);
    c[i] = a[i] + b[i];
}
";

#[test]
fn context_info_and_reference_counts() {
    let dev = device();
    let mut err = 0;
    unsafe {
        let ctx = clCreateContext(null(), 1, &dev, None, null_mut(), &mut err);
        ok(err);
        let count = |c: H| {
            ref_count(
                |p, s, v, r| clGetContextInfo(c, p, s, v, r),
                CL_CONTEXT_REFERENCE_COUNT,
            )
        };
        assert_eq!(count(ctx), 1);
        ok(clRetainContext(ctx));
        assert_eq!(count(ctx), 2);
        ok(clReleaseContext(ctx));
        assert_eq!(count(ctx), 1);
        let mut n = 0u32;
        ok(clGetContextInfo(
            ctx,
            CL_CONTEXT_NUM_DEVICES,
            4,
            (&mut n as *mut u32).cast(),
            null_mut(),
        ));
        assert_eq!(n, 1);
        let mut d: H = null_mut();
        ok(clGetContextInfo(
            ctx,
            CL_CONTEXT_DEVICES,
            8,
            (&mut d as *mut H).cast(),
            null_mut(),
        ));
        assert_eq!(d, dev);
        let mut size = 99;
        ok(clGetContextInfo(
            ctx,
            CL_CONTEXT_PROPERTIES,
            0,
            null_mut(),
            &mut size,
        ));
        assert_eq!(size, 0);
        assert_eq!(
            clGetContextInfo(ctx, 0xdead, 0, null_mut(), &mut size),
            CL_INVALID_VALUE
        );
        ok(clReleaseContext(ctx));

        // Properties naming the platform, and from-type creation.
        let mut platform: H = null_mut();
        ok(clGetPlatformIDs(1, &mut platform, null_mut()));
        let props = [CL_CONTEXT_PLATFORM as isize, platform as isize, 0];
        let ctx = clCreateContextFromType(
            props.as_ptr(),
            CL_DEVICE_TYPE_ALL,
            None,
            null_mut(),
            &mut err,
        );
        ok(err);
        let mut got = [0isize; 3];
        ok(clGetContextInfo(
            ctx,
            CL_CONTEXT_PROPERTIES,
            24,
            got.as_mut_ptr().cast(),
            null_mut(),
        ));
        assert_eq!(got, props);
        ok(clReleaseContext(ctx));
    }
    check_validation();
}

#[test]
fn context_errors() {
    let dev = device();
    let mut err = 0;
    unsafe {
        assert!(clCreateContext(null(), 0, &dev, None, null_mut(), &mut err).is_null());
        assert_eq!(err, CL_INVALID_VALUE);
        assert!(clCreateContext(null(), 1, null(), None, null_mut(), &mut err).is_null());
        assert_eq!(err, CL_INVALID_VALUE);
        // A handle of another type where a device belongs.
        let other = clCreateContext(null(), 1, &dev, None, null_mut(), &mut err);
        ok(err);
        assert!(clCreateContext(null(), 1, &other, None, null_mut(), &mut err).is_null());
        assert_eq!(err, CL_INVALID_DEVICE);
        let props = [0x7777isize, 1, 0];
        assert!(clCreateContext(props.as_ptr(), 1, &dev, None, null_mut(), &mut err).is_null());
        assert_eq!(err, CL_INVALID_PROPERTY);
        let props = [CL_CONTEXT_PLATFORM as isize, other as isize, 0];
        assert!(clCreateContext(props.as_ptr(), 1, &dev, None, null_mut(), &mut err).is_null());
        assert_eq!(err, CL_INVALID_PLATFORM);
        assert!(clCreateContext(null(), 1, &dev, None, 8 as *mut c_void, &mut err).is_null());
        assert_eq!(err, CL_INVALID_VALUE);
        assert!(clCreateContextFromType(null(), 0, None, null_mut(), &mut err).is_null());
        assert_eq!(err, CL_INVALID_DEVICE_TYPE);
        assert!(clCreateContextFromType(
            null(),
            CL_DEVICE_TYPE_ACCELERATOR,
            None,
            null_mut(),
            &mut err
        )
        .is_null());
        assert_eq!(err, CL_DEVICE_NOT_FOUND);
        // Handles of the wrong type or NULL.
        assert_eq!(clRetainContext(null_mut()), CL_INVALID_CONTEXT);
        assert_eq!(clReleaseContext(dev), CL_INVALID_CONTEXT);
        assert_eq!(
            clGetContextInfo(dev, CL_CONTEXT_NUM_DEVICES, 0, null_mut(), null_mut()),
            CL_INVALID_CONTEXT
        );
        ok(clReleaseContext(other));
    }
    check_validation();
}

static DESTROYED: AtomicUsize = AtomicUsize::new(0);

unsafe extern "C" fn count_destruction(_object: *mut c_void, user_data: *mut c_void) {
    DESTROYED.fetch_add(user_data as usize, Ordering::SeqCst);
}

#[test]
fn destructor_callbacks_run_once_at_release() {
    let dev = device();
    let mut err = 0;
    unsafe {
        let ctx = clCreateContext(null(), 1, &dev, None, null_mut(), &mut err);
        ok(err);
        let buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64, null_mut(), &mut err);
        ok(err);
        ok(clSetMemObjectDestructorCallback(
            buf,
            Some(count_destruction),
            1000 as *mut c_void,
        ));
        ok(clSetContextDestructorCallback(
            ctx,
            Some(count_destruction),
            10 as *mut c_void,
        ));
        assert_eq!(
            clSetContextDestructorCallback(ctx, None, null_mut()),
            CL_INVALID_VALUE
        );
        let before = DESTROYED.load(Ordering::SeqCst);
        // The buffer keeps the context alive.
        ok(clReleaseContext(ctx));
        assert_eq!(DESTROYED.load(Ordering::SeqCst), before);
        ok(clReleaseMemObject(buf));
        assert_eq!(DESTROYED.load(Ordering::SeqCst) - before, 1010);
    }
    check_validation();
}

#[test]
fn queue_info_and_errors() {
    let env = Env::new();
    let dev = device();
    let mut err = 0;
    unsafe {
        let mut ctx: H = null_mut();
        ok(clGetCommandQueueInfo(
            env.queue,
            CL_QUEUE_CONTEXT,
            8,
            (&mut ctx as *mut H).cast(),
            null_mut(),
        ));
        assert_eq!(ctx, env.ctx);
        let mut d: H = null_mut();
        ok(clGetCommandQueueInfo(
            env.queue,
            CL_QUEUE_DEVICE,
            8,
            (&mut d as *mut H).cast(),
            null_mut(),
        ));
        assert_eq!(d, dev);
        let mut props: cl_bitfield = 99;
        ok(clGetCommandQueueInfo(
            env.queue,
            CL_QUEUE_PROPERTIES,
            8,
            (&mut props as *mut u64).cast(),
            null_mut(),
        ));
        assert_eq!(props, 0);
        let count = |q: H| {
            ref_count(
                |p, s, v, r| clGetCommandQueueInfo(q, p, s, v, r),
                CL_QUEUE_REFERENCE_COUNT,
            )
        };
        let before = count(env.queue);
        ok(clRetainCommandQueue(env.queue));
        assert_eq!(count(env.queue), before + 1);
        ok(clReleaseCommandQueue(env.queue));
        assert_eq!(count(env.queue), before);

        let with = [CL_QUEUE_PROPERTIES as u64, CL_QUEUE_PROFILING_ENABLE, 0];
        let q = clCreateCommandQueueWithProperties(env.ctx, dev, with.as_ptr(), &mut err);
        ok(err);
        let mut array = [0u64; 3];
        let mut size = 0;
        ok(clGetCommandQueueInfo(
            q,
            CL_QUEUE_PROPERTIES_ARRAY,
            24,
            array.as_mut_ptr().cast(),
            &mut size,
        ));
        assert_eq!((array, size), (with, 24));
        ok(clReleaseCommandQueue(q));

        assert!(clCreateCommandQueue(null_mut(), dev, 0, &mut err).is_null());
        assert_eq!(err, CL_INVALID_CONTEXT);
        assert!(clCreateCommandQueue(env.ctx, env.ctx, 0, &mut err).is_null());
        assert_eq!(err, CL_INVALID_DEVICE);
        assert!(clCreateCommandQueue(env.ctx, dev, 1 << 20, &mut err).is_null());
        assert_eq!(err, CL_INVALID_VALUE);
        let bad = [0x1234u64, 0, 0];
        assert!(clCreateCommandQueueWithProperties(env.ctx, dev, bad.as_ptr(), &mut err).is_null());
        assert_eq!(err, CL_INVALID_VALUE);
        assert_eq!(clFlush(env.ctx), CL_INVALID_COMMAND_QUEUE);
        assert_eq!(clFinish(null_mut()), CL_INVALID_COMMAND_QUEUE);
        assert_eq!(
            clGetCommandQueueInfo(env.queue, CL_QUEUE_SIZE, 0, null_mut(), null_mut()),
            CL_INVALID_COMMAND_QUEUE
        );
    }
    check_validation();
}

#[test]
fn buffer_write_read_round_trip() {
    let env = Env::new();
    let buf = env.buffer(CL_MEM_READ_WRITE, 4096, null_mut());
    let data: Vec<u32> = (0..1024).collect();
    env.write(buf, 0, &data);
    assert_eq!(env.read::<u32>(buf, 0, 1024), data);
    // Partial ranges at odd offsets.
    env.write(buf, 5, &[0xaau8, 0xbb, 0xcc]);
    let bytes = env.read::<u8>(buf, 4, 5);
    // Byte 4 is the low byte of element 1; byte 8 that of element 2.
    assert_eq!(bytes, vec![1, 0xaa, 0xbb, 0xcc, 2]);
    unsafe { ok(clReleaseMemObject(buf)) };
    check_validation();
}

#[test]
fn buffer_flags_and_host_pointers() {
    let env = Env::new();
    let mut err = 0;
    let mut host: Vec<u32> = (0..256).collect();
    unsafe {
        // COPY_HOST_PTR: the contents at creation, the host memory is not
        // used afterwards.
        let copy = env.buffer(
            CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
            1024,
            host.as_mut_ptr().cast(),
        );
        host[0] = 77;
        assert_eq!(
            env.read::<u32>(copy, 0, 256),
            (0..256).collect::<Vec<u32>>()
        );
        let mut p: *mut c_void = null_mut();
        ok(clGetMemObjectInfo(
            copy,
            CL_MEM_HOST_PTR,
            8,
            (&mut p as *mut H).cast(),
            null_mut(),
        ));
        assert!(p.is_null());
        let mut flags: cl_bitfield = 0;
        ok(clGetMemObjectInfo(
            copy,
            CL_MEM_FLAGS,
            8,
            (&mut flags as *mut u64).cast(),
            null_mut(),
        ));
        assert_eq!(flags, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR);
        ok(clReleaseMemObject(copy));

        // USE_HOST_PTR: CL_MEM_HOST_PTR is the application's pointer and a
        // map returns it (at the mapped offset), with the device contents.
        let use_ptr = env.buffer(CL_MEM_USE_HOST_PTR, 1024, host.as_mut_ptr().cast());
        ok(clGetMemObjectInfo(
            use_ptr,
            CL_MEM_HOST_PTR,
            8,
            (&mut p as *mut H).cast(),
            null_mut(),
        ));
        assert_eq!(p, host.as_mut_ptr().cast());
        env.write(use_ptr, 16, &[1000u32, 1001]);
        let mapped = clEnqueueMapBuffer(
            env.queue,
            use_ptr,
            CL_TRUE,
            CL_MAP_READ | CL_MAP_WRITE,
            16,
            8,
            0,
            null(),
            null_mut(),
            &mut err,
        );
        ok(err);
        assert_eq!(mapped, host.as_mut_ptr().add(4).cast());
        assert_eq!(
            std::slice::from_raw_parts(mapped as *const u32, 2),
            &[1000, 1001]
        );
        *(mapped as *mut u32) = 5;
        ok(clEnqueueUnmapMemObject(
            env.queue,
            use_ptr,
            mapped,
            0,
            null(),
            null_mut(),
        ));
        assert_eq!(env.read::<u32>(use_ptr, 16, 2), vec![5, 1001]);
        ok(clReleaseMemObject(use_ptr));

        // ALLOC_HOST_PTR with host access flags.
        let alloc = env.buffer(
            CL_MEM_ALLOC_HOST_PTR | CL_MEM_HOST_WRITE_ONLY,
            64,
            null_mut(),
        );
        env.write(alloc, 0, &[1u8; 64]);
        let mut byte = 0u8;
        let r = clEnqueueReadBuffer(
            env.queue,
            alloc,
            CL_TRUE,
            0,
            1,
            (&mut byte as *mut u8).cast(),
            0,
            null(),
            null_mut(),
        );
        assert_eq!(r, CL_INVALID_OPERATION);
        ok(clReleaseMemObject(alloc));
        let read_only = env.buffer(CL_MEM_HOST_READ_ONLY, 64, null_mut());
        let r = clEnqueueWriteBuffer(
            env.queue,
            read_only,
            CL_TRUE,
            0,
            1,
            (&byte as *const u8).cast(),
            0,
            null(),
            null_mut(),
        );
        assert_eq!(r, CL_INVALID_OPERATION);
        let m = clEnqueueMapBuffer(
            env.queue,
            read_only,
            CL_TRUE,
            CL_MAP_WRITE,
            0,
            4,
            0,
            null(),
            null_mut(),
            &mut err,
        );
        assert!(m.is_null());
        assert_eq!(err, CL_INVALID_OPERATION);
        ok(clReleaseMemObject(read_only));
        let none = env.buffer(CL_MEM_HOST_NO_ACCESS | CL_MEM_WRITE_ONLY, 64, null_mut());
        let r = clEnqueueReadBuffer(
            env.queue,
            none,
            CL_TRUE,
            0,
            1,
            (&mut byte as *mut u8).cast(),
            0,
            null(),
            null_mut(),
        );
        assert_eq!(r, CL_INVALID_OPERATION);
        ok(clReleaseMemObject(none));

        // Creation errors.
        let cases: [(cl_bitfield, usize, *mut c_void, cl_int); 7] = [
            (CL_MEM_READ_WRITE, 0, null_mut(), CL_INVALID_BUFFER_SIZE),
            (
                CL_MEM_READ_WRITE | CL_MEM_READ_ONLY,
                4,
                null_mut(),
                CL_INVALID_VALUE,
            ),
            (
                CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS,
                4,
                null_mut(),
                CL_INVALID_VALUE,
            ),
            (
                CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR,
                4,
                host.as_mut_ptr().cast(),
                CL_INVALID_VALUE,
            ),
            (CL_MEM_COPY_HOST_PTR, 4, null_mut(), CL_INVALID_HOST_PTR),
            (
                CL_MEM_READ_WRITE,
                4,
                host.as_mut_ptr().cast(),
                CL_INVALID_HOST_PTR,
            ),
            (1 << 40, 4, null_mut(), CL_INVALID_VALUE),
        ];
        for (flags, size, ptr, want) in cases {
            assert!(clCreateBuffer(env.ctx, flags, size, ptr, &mut err).is_null());
            assert_eq!(err, want, "flags {flags:#x} size {size}");
        }
        assert!(clCreateBuffer(env.queue, 0, 4, null_mut(), &mut err).is_null());
        assert_eq!(err, CL_INVALID_CONTEXT);
        let props = [1u64, 0];
        assert!(
            clCreateBufferWithProperties(env.ctx, props.as_ptr(), 0, 4, null_mut(), &mut err)
                .is_null()
        );
        assert_eq!(err, CL_INVALID_PROPERTY);
        let b = clCreateBufferWithProperties(env.ctx, null(), 0, 4, null_mut(), &mut err);
        ok(err);
        ok(clReleaseMemObject(b));
    }
    check_validation();
}

#[test]
fn transfer_errors() {
    let env = Env::new();
    let buf = env.buffer(CL_MEM_READ_WRITE, 64, null_mut());
    let mut data = [0u8; 128];
    let p = data.as_mut_ptr().cast::<c_void>();
    unsafe {
        let q = env.queue;
        assert_eq!(
            clEnqueueReadBuffer(q, buf, CL_TRUE, 60, 8, p, 0, null(), null_mut()),
            CL_INVALID_VALUE
        );
        assert_eq!(
            clEnqueueReadBuffer(q, buf, CL_TRUE, 0, 0, p, 0, null(), null_mut()),
            CL_INVALID_VALUE
        );
        assert_eq!(
            clEnqueueReadBuffer(q, buf, CL_TRUE, 0, 8, null_mut(), 0, null(), null_mut()),
            CL_INVALID_VALUE
        );
        assert_eq!(
            clEnqueueReadBuffer(buf, buf, CL_TRUE, 0, 8, p, 0, null(), null_mut()),
            CL_INVALID_COMMAND_QUEUE
        );
        assert_eq!(
            clEnqueueReadBuffer(q, q, CL_TRUE, 0, 8, p, 0, null(), null_mut()),
            CL_INVALID_MEM_OBJECT
        );
        assert_eq!(
            clEnqueueWriteBuffer(q, buf, CL_TRUE, 0, 65, p, 0, null(), null_mut()),
            CL_INVALID_VALUE
        );
        assert_eq!(
            clEnqueueWriteBuffer(q, buf, CL_TRUE, 0, 8, p, 1, null(), null_mut()),
            CL_INVALID_EVENT_WAIT_LIST
        );
        let not_event = buf;
        assert_eq!(
            clEnqueueWriteBuffer(q, buf, CL_TRUE, 0, 8, p, 1, &not_event, null_mut()),
            CL_INVALID_EVENT_WAIT_LIST
        );
        assert_eq!(
            clEnqueueCopyBuffer(q, buf, buf, 0, 8, 16, 0, null(), null_mut()),
            CL_MEM_COPY_OVERLAP
        );
        assert_eq!(
            clEnqueueCopyBuffer(q, buf, buf, 0, 60, 8, 0, null(), null_mut()),
            CL_INVALID_VALUE
        );
        let pattern = [0u8; 3];
        assert_eq!(
            clEnqueueFillBuffer(
                q,
                buf,
                pattern.as_ptr().cast(),
                3,
                0,
                6,
                0,
                null(),
                null_mut()
            ),
            CL_INVALID_VALUE
        );
        assert_eq!(
            clEnqueueFillBuffer(
                q,
                buf,
                pattern.as_ptr().cast(),
                2,
                1,
                6,
                0,
                null(),
                null_mut()
            ),
            CL_INVALID_VALUE
        );
        assert_eq!(
            clEnqueueFillBuffer(q, buf, null(), 2, 0, 6, 0, null(), null_mut()),
            CL_INVALID_VALUE
        );
        assert_eq!(
            clEnqueueUnmapMemObject(q, buf, p, 0, null(), null_mut()),
            CL_INVALID_VALUE
        );
        let mut err = 0;
        let m = clEnqueueMapBuffer(
            q,
            buf,
            CL_TRUE,
            CL_MAP_READ | CL_MAP_WRITE_INVALIDATE_REGION,
            0,
            4,
            0,
            null(),
            null_mut(),
            &mut err,
        );
        assert!(m.is_null());
        assert_eq!(err, CL_INVALID_VALUE);
        // A buffer of another context.
        let other = Env::new();
        assert_eq!(
            clEnqueueReadBuffer(other.queue, buf, CL_TRUE, 0, 8, p, 0, null(), null_mut()),
            CL_INVALID_CONTEXT
        );
        ok(clReleaseMemObject(buf));
    }
    check_validation();
}

#[test]
fn copy_and_fill_patterns() {
    let env = Env::new();
    let size = 1024;
    let a = env.buffer(CL_MEM_READ_WRITE, size, null_mut());
    let b = env.buffer(CL_MEM_READ_WRITE, size, null_mut());
    let data: Vec<u8> = (0..size).map(|i| (i * 7 % 251) as u8).collect();
    env.write(a, 0, &data);
    unsafe {
        ok(clEnqueueCopyBuffer(
            env.queue,
            a,
            b,
            3,
            101,
            500,
            0,
            null(),
            null_mut(),
        ));
        // Non-overlapping ranges of one buffer.
        ok(clEnqueueCopyBuffer(
            env.queue,
            a,
            a,
            0,
            512,
            256,
            0,
            null(),
            null_mut(),
        ));
    }
    let got_b = env.read::<u8>(b, 101, 500);
    assert_eq!(got_b, data[3..503]);
    let got_a = env.read::<u8>(a, 512, 256);
    assert_eq!(got_a, data[0..256]);

    for pattern_size in [1usize, 2, 4, 8, 16, 32, 64, 128] {
        let pattern: Vec<u8> = (0..pattern_size)
            .map(|i| (i as u8).wrapping_mul(13).wrapping_add(1))
            .collect();
        let zero = vec![0u8; size];
        env.write(b, 0, &zero);
        let offset = pattern_size * 2;
        let len = pattern_size * 5;
        unsafe {
            ok(clEnqueueFillBuffer(
                env.queue,
                b,
                pattern.as_ptr().cast(),
                pattern_size,
                offset,
                len,
                0,
                null(),
                null_mut(),
            ));
        }
        let got = env.read::<u8>(b, 0, size);
        for (i, &v) in got.iter().enumerate() {
            let want = if (offset..offset + len).contains(&i) {
                pattern[(i - offset) % pattern_size]
            } else {
                0
            };
            assert_eq!(v, want, "pattern size {pattern_size}, byte {i}");
        }
    }
    unsafe {
        ok(clReleaseMemObject(a));
        ok(clReleaseMemObject(b));
    }
    check_validation();
}

#[test]
fn rectangular_transfers() {
    let env = Env::new();
    // A 16 x 8 x 3 byte box in a buffer with row pitch 20 and slice pitch
    // 200.
    let (row, slice) = (20usize, 200usize);
    let buf = env.buffer(CL_MEM_READ_WRITE, 800, null_mut());
    env.write(buf, 0, &[0u8; 800]);
    let host: Vec<u8> = (0..16 * 8 * 3).map(|i| (i % 256) as u8).collect();
    let region = [16usize, 8, 3];
    let origin = [2usize, 1, 1];
    let zero = [0usize; 3];
    unsafe {
        ok(clEnqueueWriteBufferRect(
            env.queue,
            buf,
            CL_TRUE,
            origin.as_ptr(),
            zero.as_ptr(),
            region.as_ptr(),
            row,
            slice,
            0,
            0,
            host.as_ptr().cast(),
            0,
            null(),
            null_mut(),
        ));
    }
    let all = env.read::<u8>(buf, 0, 800);
    for z in 0..3 {
        for y in 0..8 {
            for x in 0..16 {
                let at = (origin[0] + x) + (origin[1] + y) * row + (origin[2] + z) * slice;
                assert_eq!(all[at], host[x + y * 16 + z * 128]);
            }
        }
    }
    assert_eq!(
        all.iter().filter(|&&v| v != 0).count(),
        host.iter().filter(|&&v| v != 0).count()
    );

    // Read it back into a padded host box (host pitch 32 x 10 rows).
    let mut back = vec![0u8; 32 * 10 * 3];
    let host_origin = [4usize, 1, 0];
    unsafe {
        ok(clEnqueueReadBufferRect(
            env.queue,
            buf,
            CL_TRUE,
            origin.as_ptr(),
            host_origin.as_ptr(),
            region.as_ptr(),
            row,
            slice,
            32,
            320,
            back.as_mut_ptr().cast(),
            0,
            null(),
            null_mut(),
        ));
    }
    for z in 0..3 {
        for y in 0..8 {
            for x in 0..16 {
                assert_eq!(
                    back[(4 + x) + (1 + y) * 32 + z * 320],
                    host[x + y * 16 + z * 128]
                );
            }
        }
    }

    // The same read and a rewrite through staging memory: held behind a
    // user event, so that the queue is busy and nothing takes the direct
    // path to host-visible memory.
    let mut again = vec![0u8; 32 * 10 * 3];
    unsafe {
        let mut err = 0;
        let gate = clCreateUserEvent(env.ctx, &mut err);
        ok(err);
        let mut write_ev = null_mut();
        ok(clEnqueueWriteBufferRect(
            env.queue,
            buf,
            CL_FALSE,
            origin.as_ptr(),
            zero.as_ptr(),
            region.as_ptr(),
            row,
            slice,
            0,
            0,
            host.as_ptr().cast(),
            1,
            &gate,
            &mut write_ev,
        ));
        let mut read_ev = null_mut();
        ok(clEnqueueReadBufferRect(
            env.queue,
            buf,
            CL_FALSE,
            origin.as_ptr(),
            host_origin.as_ptr(),
            region.as_ptr(),
            row,
            slice,
            32,
            320,
            again.as_mut_ptr().cast(),
            0,
            null(),
            &mut read_ev,
        ));
        ok(clSetUserEventStatus(gate, CL_COMPLETE as cl_int));
        ok(clWaitForEvents(1, &read_ev));
        for e in [gate, write_ev, read_ev] {
            ok(clReleaseEvent(e));
        }
    }
    assert_eq!(again, back);

    // Copy the box to another buffer with tighter pitches.
    let dst = env.buffer(CL_MEM_READ_WRITE, 16 * 8 * 3, null_mut());
    unsafe {
        ok(clEnqueueCopyBufferRect(
            env.queue,
            buf,
            dst,
            origin.as_ptr(),
            zero.as_ptr(),
            region.as_ptr(),
            row,
            slice,
            0,
            0,
            0,
            null(),
            null_mut(),
        ));
    }
    assert_eq!(env.read::<u8>(dst, 0, 16 * 8 * 3), host);

    // Within one buffer: to a box past the source (the rows go as one
    // command), and to one whose rows fall between the source's (the
    // spans meet, so row by row).
    let one = env.buffer(CL_MEM_READ_WRITE, 2000, null_mut());
    let pattern: Vec<u8> = (0..2000).map(|i| (i * 7 % 251) as u8).collect();
    env.write(one, 0, &pattern);
    let copy_within = |src_origin: [usize; 3],
                       dst_origin: [usize; 3],
                       region: [usize; 3],
                       pitch: [usize; 2]| unsafe {
        ok(clEnqueueCopyBufferRect(
            env.queue,
            one,
            one,
            src_origin.as_ptr(),
            dst_origin.as_ptr(),
            region.as_ptr(),
            pitch[0],
            pitch[1],
            pitch[0],
            pitch[1],
            0,
            null(),
            null_mut(),
        ));
    };
    let mut want = pattern.clone();
    let mut copy_model =
        |src_origin: [usize; 3], dst_origin: [usize; 3], region: [usize; 3], pitch: [usize; 2]| {
            let at = |o: [usize; 3], x: usize, y: usize, z: usize| {
                (o[0] + x) + (o[1] + y) * pitch[0] + (o[2] + z) * pitch[1]
            };
            let before = want.clone();
            for z in 0..region[2] {
                for y in 0..region[1] {
                    for x in 0..region[0] {
                        want[at(dst_origin, x, y, z)] = before[at(src_origin, x, y, z)];
                    }
                }
            }
        };
    for (s, d, reg, pitch) in [
        ([0, 0, 0], [4, 1, 2], [16, 8, 2], [40, 400]),
        ([0, 0, 0], [20, 0, 0], [16, 8, 1], [40, 400]),
    ] {
        copy_within(s, d, reg, pitch);
        copy_model(s, d, reg, pitch);
    }
    assert_eq!(env.read::<u8>(one, 0, 2000), want);
    unsafe {
        // Out of bounds and bad pitches.
        let big = [16usize, 8, 5];
        let r = clEnqueueCopyBufferRect(
            env.queue,
            buf,
            dst,
            origin.as_ptr(),
            zero.as_ptr(),
            big.as_ptr(),
            row,
            slice,
            0,
            0,
            0,
            null(),
            null_mut(),
        );
        assert_eq!(r, CL_INVALID_VALUE);
        let r = clEnqueueWriteBufferRect(
            env.queue,
            buf,
            CL_TRUE,
            origin.as_ptr(),
            zero.as_ptr(),
            region.as_ptr(),
            8,
            0,
            0,
            0,
            host.as_ptr().cast(),
            0,
            null(),
            null_mut(),
        );
        assert_eq!(r, CL_INVALID_VALUE);
        let flat = [16usize, 0, 1];
        let r = clEnqueueReadBufferRect(
            env.queue,
            buf,
            CL_TRUE,
            zero.as_ptr(),
            zero.as_ptr(),
            flat.as_ptr(),
            0,
            0,
            0,
            0,
            back.as_mut_ptr().cast(),
            0,
            null(),
            null_mut(),
        );
        assert_eq!(r, CL_INVALID_VALUE);
        // Overlapping rectangles of one buffer.
        let small = [4usize, 4, 1];
        let o2 = [2usize, 2, 0];
        let r = clEnqueueCopyBufferRect(
            env.queue,
            buf,
            buf,
            zero.as_ptr(),
            o2.as_ptr(),
            small.as_ptr(),
            row,
            0,
            row,
            0,
            0,
            null(),
            null_mut(),
        );
        assert_eq!(r, CL_MEM_COPY_OVERLAP);
        ok(clReleaseMemObject(buf));
        ok(clReleaseMemObject(dst));
        ok(clReleaseMemObject(one));
    }
    check_validation();
}

/// Reads and writes whose host side is pinned memory (a mapped
/// `ALLOC_HOST_PTR` buffer), large enough for the copy engine to take
/// them on a discrete GPU, at an offset inside the mapping.
#[test]
fn transfers_through_pinned_memory() {
    const SIZE: usize = 9 << 20;
    const AT: usize = 4096 + 12;
    const LEN: usize = 5 << 20;
    let env = Env::new();
    let pinned = env.buffer(CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, SIZE, null_mut());
    let device = env.buffer(CL_MEM_READ_WRITE, SIZE, null_mut());
    let pattern: Vec<u8> = (0..LEN).map(|i| (i * 7 % 251) as u8).collect();
    let mut err = 0;
    unsafe {
        let host = clEnqueueMapBuffer(
            env.queue,
            pinned,
            CL_TRUE,
            CL_MAP_READ | CL_MAP_WRITE,
            0,
            SIZE,
            0,
            null(),
            null_mut(),
            &mut err,
        );
        ok(err);
        let host = host.cast::<u8>();
        std::ptr::copy_nonoverlapping(pattern.as_ptr(), host.add(AT), LEN);
        ok(clEnqueueWriteBuffer(
            env.queue,
            device,
            CL_TRUE,
            100,
            LEN,
            host.add(AT).cast(),
            0,
            null(),
            null_mut(),
        ));
        let written = env.read::<u8>(device, 100, LEN);
        assert!(written == pattern, "write from pinned memory");

        std::ptr::write_bytes(host, 0, SIZE);
        ok(clEnqueueReadBuffer(
            env.queue,
            device,
            CL_TRUE,
            100,
            LEN,
            host.add(AT).cast(),
            0,
            null(),
            null_mut(),
        ));
        let back = std::slice::from_raw_parts(host, SIZE);
        assert!(back[AT..AT + LEN] == pattern[..], "read into pinned memory");
        assert!(back[..AT].iter().chain(&back[AT + LEN..]).all(|&b| b == 0));
        ok(clEnqueueUnmapMemObject(
            env.queue,
            pinned,
            host.cast(),
            0,
            null(),
            null_mut(),
        ));
        ok(clFinish(env.queue));
        ok(clReleaseMemObject(pinned));
        ok(clReleaseMemObject(device));
    }
    check_validation();
}

#[test]
fn map_and_unmap() {
    let env = Env::new();
    let buf = env.buffer(CL_MEM_READ_WRITE, 256, null_mut());
    let data: Vec<u8> = (0..=255).collect();
    env.write(buf, 0, &data);
    let mut err = 0;
    unsafe {
        let m = clEnqueueMapBuffer(
            env.queue,
            buf,
            CL_TRUE,
            CL_MAP_READ | CL_MAP_WRITE,
            64,
            32,
            0,
            null(),
            null_mut(),
            &mut err,
        );
        ok(err);
        assert_eq!(
            std::slice::from_raw_parts(m as *const u8, 32),
            &data[64..96]
        );
        let mut count = 0u32;
        ok(clGetMemObjectInfo(
            buf,
            CL_MEM_MAP_COUNT,
            4,
            (&mut count as *mut u32).cast(),
            null_mut(),
        ));
        assert_eq!(count, 1);
        std::ptr::write_bytes(m as *mut u8, 0xee, 32);
        let mut unmap_event = null_mut();
        ok(clEnqueueUnmapMemObject(
            env.queue,
            buf,
            m,
            0,
            null(),
            &mut unmap_event,
        ));
        ok(clWaitForEvents(1, &unmap_event));
        ok(clReleaseEvent(unmap_event));
        ok(clGetMemObjectInfo(
            buf,
            CL_MEM_MAP_COUNT,
            4,
            (&mut count as *mut u32).cast(),
            null_mut(),
        ));
        assert_eq!(count, 0);
        let back = env.read::<u8>(buf, 0, 256);
        assert!(back[64..96].iter().all(|&v| v == 0xee));
        assert_eq!(back[..64], data[..64]);
        assert_eq!(back[96..], data[96..]);

        // Non-blocking map: the pointer is valid once the event completes;
        // a write-invalidate map does not read the device.
        let mut ev = null_mut();
        let m = clEnqueueMapBuffer(
            env.queue,
            buf,
            CL_FALSE,
            CL_MAP_READ,
            0,
            16,
            0,
            null(),
            &mut ev,
            &mut err,
        );
        ok(err);
        ok(clWaitForEvents(1, &ev));
        assert_eq!(std::slice::from_raw_parts(m as *const u8, 16), &data[..16]);
        ok(clReleaseEvent(ev));
        let w = clEnqueueMapBuffer(
            env.queue,
            buf,
            CL_TRUE,
            CL_MAP_WRITE_INVALIDATE_REGION,
            200,
            8,
            0,
            null(),
            null_mut(),
            &mut err,
        );
        ok(err);
        std::ptr::copy_nonoverlapping([9u8; 8].as_ptr(), w as *mut u8, 8);
        ok(clEnqueueUnmapMemObject(
            env.queue,
            buf,
            w,
            0,
            null(),
            null_mut(),
        ));
        ok(clEnqueueUnmapMemObject(
            env.queue,
            buf,
            m,
            0,
            null(),
            null_mut(),
        ));
        assert_eq!(env.read::<u8>(buf, 200, 8), vec![9u8; 8]);
        // Unmapping twice is an error.
        assert_eq!(
            clEnqueueUnmapMemObject(env.queue, buf, m, 0, null(), null_mut()),
            CL_INVALID_VALUE
        );
        ok(clReleaseMemObject(buf));
    }
    check_validation();
}

#[test]
fn sub_buffers() {
    let env = Env::new();
    let mut err = 0;
    let mut align_bits = 0u32;
    unsafe {
        ok(clGetDeviceInfo(
            device(),
            CL_DEVICE_MEM_BASE_ADDR_ALIGN,
            4,
            (&mut align_bits as *mut u32).cast(),
            null_mut(),
        ));
    }
    let align = (align_bits / 8) as usize;
    let parent = env.buffer(
        CL_MEM_READ_WRITE | CL_MEM_HOST_READ_ONLY,
        align * 4,
        null_mut(),
    );
    unsafe {
        let data: Vec<u8> = (0..align * 4).map(|i| (i % 253) as u8).collect();
        // The parent is host-read-only: fill it through a sibling-free path
        // (a copy from a writable buffer).
        let src = env.buffer(CL_MEM_READ_WRITE, align * 4, null_mut());
        env.write(src, 0, &data);
        ok(clEnqueueCopyBuffer(
            env.queue,
            src,
            parent,
            0,
            0,
            align * 4,
            0,
            null(),
            null_mut(),
        ));
        let region = [align, align * 2];
        let sub = clCreateSubBuffer(
            parent,
            CL_MEM_READ_ONLY,
            CL_BUFFER_CREATE_TYPE_REGION,
            region.as_ptr().cast(),
            &mut err,
        );
        ok(err);
        assert_eq!(env.read::<u8>(sub, 0, align * 2), data[align..align * 3]);
        let mut info: H = null_mut();
        ok(clGetMemObjectInfo(
            sub,
            CL_MEM_ASSOCIATED_MEMOBJECT,
            8,
            (&mut info as *mut H).cast(),
            null_mut(),
        ));
        assert_eq!(info, parent);
        let mut offset = 0usize;
        ok(clGetMemObjectInfo(
            sub,
            CL_MEM_OFFSET,
            8,
            (&mut offset as *mut usize).cast(),
            null_mut(),
        ));
        assert_eq!(offset, align);
        let mut flags = 0u64;
        ok(clGetMemObjectInfo(
            sub,
            CL_MEM_FLAGS,
            8,
            (&mut flags as *mut u64).cast(),
            null_mut(),
        ));
        assert_eq!(flags, CL_MEM_READ_ONLY | CL_MEM_HOST_READ_ONLY);
        // Copy through the sub-buffer into the other buffer.
        ok(clEnqueueCopyBuffer(
            env.queue,
            sub,
            src,
            0,
            0,
            16,
            0,
            null(),
            null_mut(),
        ));
        assert_eq!(env.read::<u8>(src, 0, 16), data[align..align + 16]);

        // Errors.
        let bad = [1usize, 16];
        assert!(clCreateSubBuffer(
            parent,
            0,
            CL_BUFFER_CREATE_TYPE_REGION,
            bad.as_ptr().cast(),
            &mut err
        )
        .is_null());
        assert_eq!(err, CL_MISALIGNED_SUB_BUFFER_OFFSET);
        let out = [align * 3, align * 2];
        assert!(clCreateSubBuffer(
            parent,
            0,
            CL_BUFFER_CREATE_TYPE_REGION,
            out.as_ptr().cast(),
            &mut err
        )
        .is_null());
        assert_eq!(err, CL_INVALID_VALUE);
        let empty = [0usize, 0];
        assert!(clCreateSubBuffer(
            parent,
            0,
            CL_BUFFER_CREATE_TYPE_REGION,
            empty.as_ptr().cast(),
            &mut err
        )
        .is_null());
        assert_eq!(err, CL_INVALID_BUFFER_SIZE);
        assert!(clCreateSubBuffer(
            parent,
            CL_MEM_HOST_WRITE_ONLY,
            CL_BUFFER_CREATE_TYPE_REGION,
            region.as_ptr().cast(),
            &mut err
        )
        .is_null());
        assert_eq!(err, CL_INVALID_VALUE);
        assert!(clCreateSubBuffer(
            sub,
            0,
            CL_BUFFER_CREATE_TYPE_REGION,
            region.as_ptr().cast(),
            &mut err
        )
        .is_null());
        assert_eq!(err, CL_INVALID_MEM_OBJECT);
        assert!(clCreateSubBuffer(parent, 0, 0x9999, region.as_ptr().cast(), &mut err).is_null());
        assert_eq!(err, CL_INVALID_VALUE);
        // Overlapping sub-buffers of one parent may not be copied into each
        // other.
        let r2 = [align, align];
        let sub2 = clCreateSubBuffer(
            parent,
            0,
            CL_BUFFER_CREATE_TYPE_REGION,
            r2.as_ptr().cast(),
            &mut err,
        );
        ok(err);
        assert_eq!(
            clEnqueueCopyBuffer(env.queue, sub, sub2, 0, 0, 8, 0, null(), null_mut()),
            CL_MEM_COPY_OVERLAP
        );
        ok(clReleaseMemObject(sub2));
        ok(clReleaseMemObject(sub));
        ok(clReleaseMemObject(parent));
        ok(clReleaseMemObject(src));
    }
    check_validation();
}

#[test]
fn program_build_info_and_kernel_names() {
    let env = Env::new();
    let source = format!("{VECTOR_ADD}\n__kernel void scale(__global float *x, float f) {{ x[get_global_id(0)] *= f; }}\n");
    let p = env.program(&source, "-DUNUSED=1");
    let dev = device();
    unsafe {
        let mut n = 0usize;
        ok(clGetProgramInfo(
            p,
            CL_PROGRAM_NUM_KERNELS,
            8,
            (&mut n as *mut usize).cast(),
            null_mut(),
        ));
        assert_eq!(n, 2);
        let mut names = [0u8; 64];
        let mut size = 0;
        ok(clGetProgramInfo(
            p,
            CL_PROGRAM_KERNEL_NAMES,
            64,
            names.as_mut_ptr().cast(),
            &mut size,
        ));
        let names = std::str::from_utf8(&names[..size - 1]).unwrap();
        let mut list: Vec<&str> = names.split(';').collect();
        list.sort();
        assert_eq!(list, ["add", "scale"]);
        let mut status: cl_int = 1;
        ok(clGetProgramBuildInfo(
            p,
            dev,
            CL_PROGRAM_BUILD_STATUS,
            4,
            (&mut status as *mut i32).cast(),
            null_mut(),
        ));
        assert_eq!(status, CL_BUILD_SUCCESS as cl_int);
        let mut opts = [0u8; 32];
        ok(clGetProgramBuildInfo(
            p,
            dev,
            CL_PROGRAM_BUILD_OPTIONS,
            32,
            opts.as_mut_ptr().cast(),
            &mut size,
        ));
        assert_eq!(&opts[..size], b"-DUNUSED=1\0");
        let mut bt = 0u32;
        ok(clGetProgramBuildInfo(
            p,
            dev,
            CL_PROGRAM_BINARY_TYPE,
            4,
            (&mut bt as *mut u32).cast(),
            null_mut(),
        ));
        assert_eq!(bt, CL_PROGRAM_BINARY_TYPE_EXECUTABLE);
        let mut src_size = 0;
        ok(clGetProgramInfo(
            p,
            CL_PROGRAM_SOURCE,
            0,
            null_mut(),
            &mut src_size,
        ));
        assert_eq!(src_size, source.len() + 1);
        let count = |q: H| {
            ref_count(
                |a, s, v, r| clGetProgramInfo(q, a, s, v, r),
                CL_PROGRAM_REFERENCE_COUNT,
            )
        };
        assert_eq!(count(p), 1);
        ok(clRetainProgram(p));
        assert_eq!(count(p), 2);
        ok(clReleaseProgram(p));

        // Kernels keep the program; building again is refused while they
        // exist.
        let mut ks = [null_mut(); 2];
        let mut nk = 0u32;
        ok(clCreateKernelsInProgram(p, 2, ks.as_mut_ptr(), &mut nk));
        assert_eq!(nk, 2);
        assert_eq!(
            clBuildProgram(p, 0, null(), null(), None, null_mut()),
            CL_INVALID_OPERATION
        );
        assert_eq!(
            clCreateKernelsInProgram(p, 1, ks.as_mut_ptr(), null_mut()),
            CL_INVALID_VALUE
        );
        for k in ks {
            ok(clReleaseKernel(k));
        }
        ok(clBuildProgram(p, 0, null(), null(), None, null_mut()));
        ok(clReleaseProgram(p));
    }
    check_validation();
}

#[test]
fn build_failure_has_a_log_with_line_and_column() {
    let env = Env::new();
    let dev = device();
    let src = CString::new("__kernel void broken(__global int *x)\n{\n    x[0] = y;\n}\n").unwrap();
    let mut err = 0;
    unsafe {
        let ptr = src.as_ptr();
        let p = clCreateProgramWithSource(env.ctx, 1, &ptr, null(), &mut err);
        ok(err);
        let mut status: cl_int = 0;
        ok(clGetProgramBuildInfo(
            p,
            dev,
            CL_PROGRAM_BUILD_STATUS,
            4,
            (&mut status as *mut i32).cast(),
            null_mut(),
        ));
        assert_eq!(status, -1, "CL_BUILD_NONE before a build");
        assert_eq!(
            clBuildProgram(p, 1, &dev, null(), None, null_mut()),
            CL_BUILD_PROGRAM_FAILURE
        );
        ok(clGetProgramBuildInfo(
            p,
            dev,
            CL_PROGRAM_BUILD_STATUS,
            4,
            (&mut status as *mut i32).cast(),
            null_mut(),
        ));
        assert_eq!(status, -2, "CL_BUILD_ERROR");
        let log = build_log(p);
        assert!(log.contains("3:12"), "log without line:col: {log}");
        let name = CString::new("broken").unwrap();
        assert!(clCreateKernel(p, name.as_ptr(), &mut err).is_null());
        assert_eq!(err, CL_INVALID_PROGRAM_EXECUTABLE);
        let mut n = 0usize;
        assert_eq!(
            clGetProgramInfo(
                p,
                CL_PROGRAM_NUM_KERNELS,
                8,
                (&mut n as *mut usize).cast(),
                null_mut()
            ),
            CL_INVALID_PROGRAM_EXECUTABLE
        );
        // Bad options.
        let bad = CString::new("-cl-no-such-option").unwrap();
        let good_src = CString::new(VECTOR_ADD).unwrap();
        let gp = good_src.as_ptr();
        let q = clCreateProgramWithSource(env.ctx, 1, &gp, null(), &mut err);
        ok(err);
        assert_eq!(
            clBuildProgram(q, 1, &dev, bad.as_ptr(), None, null_mut()),
            CL_INVALID_BUILD_OPTIONS
        );
        // Argument errors.
        assert_eq!(
            clBuildProgram(q, 1, null(), null(), None, null_mut()),
            CL_INVALID_VALUE
        );
        assert_eq!(
            clBuildProgram(q, 0, null(), null(), None, 8 as *mut c_void),
            CL_INVALID_VALUE
        );
        assert_eq!(
            clBuildProgram(q, 1, &env.ctx, null(), None, null_mut()),
            CL_INVALID_DEVICE
        );
        assert_eq!(
            clBuildProgram(env.ctx, 0, null(), null(), None, null_mut()),
            CL_INVALID_PROGRAM
        );
        assert!(clCreateProgramWithSource(env.ctx, 0, &gp, null(), &mut err).is_null());
        assert_eq!(err, CL_INVALID_VALUE);
        let nul: *const c_char = null();
        assert!(clCreateProgramWithSource(env.ctx, 1, &nul, null(), &mut err).is_null());
        assert_eq!(err, CL_INVALID_VALUE);
        ok(clReleaseProgram(p));
        ok(clReleaseProgram(q));
    }
    check_validation();
}

static BUILD_NOTIFIED: AtomicUsize = AtomicUsize::new(0);

unsafe extern "C" fn build_done(_program: *mut c_void, user_data: *mut c_void) {
    BUILD_NOTIFIED.fetch_add(user_data as usize, Ordering::SeqCst);
}

#[test]
fn binaries_round_trip_and_compile_link() {
    let env = Env::new();
    let dev = device();
    let p = env.program(VECTOR_ADD, "");
    let mut err = 0;
    unsafe {
        let mut size = 0usize;
        ok(clGetProgramInfo(
            p,
            CL_PROGRAM_BINARY_SIZES,
            8,
            (&mut size as *mut usize).cast(),
            null_mut(),
        ));
        assert!(size > 0);
        let mut binary = vec![0u8; size];
        let mut slot = binary.as_mut_ptr();
        ok(clGetProgramInfo(
            p,
            CL_PROGRAM_BINARIES,
            8,
            (&mut slot as *mut *mut u8).cast(),
            null_mut(),
        ));
        let bin_ptr = binary.as_ptr();
        let mut status = 1;
        let q = clCreateProgramWithBinary(env.ctx, 1, &dev, &size, &bin_ptr, &mut status, &mut err);
        ok(err);
        ok(status);
        let before = BUILD_NOTIFIED.load(Ordering::SeqCst);
        ok(clBuildProgram(
            q,
            0,
            null(),
            null(),
            Some(build_done),
            5 as *mut c_void,
        ));
        assert_eq!(BUILD_NOTIFIED.load(Ordering::SeqCst) - before, 5);
        let name = CString::new("add").unwrap();
        let k = clCreateKernel(q, name.as_ptr(), &mut err);
        ok(err);
        ok(clReleaseKernel(k));
        // Garbage is not a binary.
        let junk = [1u8, 2, 3];
        let jp = junk.as_ptr();
        let three = 3usize;
        assert!(
            clCreateProgramWithBinary(env.ctx, 1, &dev, &three, &jp, &mut status, &mut err)
                .is_null()
        );
        assert_eq!((err, status), (CL_INVALID_BINARY, CL_INVALID_BINARY));

        // Separate compilation with an in-memory header, then link.
        let header = CString::new("#define FACTOR 3.0f\n").unwrap();
        let hp = header.as_ptr();
        let h = clCreateProgramWithSource(env.ctx, 1, &hp, null(), &mut err);
        ok(err);
        let src = CString::new("#include \"factor.h\"\n__kernel void triple(__global float *x) { x[get_global_id(0)] *= FACTOR; }\n").unwrap();
        let sp = src.as_ptr();
        let c = clCreateProgramWithSource(env.ctx, 1, &sp, null(), &mut err);
        ok(err);
        let hname = CString::new("factor.h").unwrap();
        let hn = hname.as_ptr();
        ok(clCompileProgram(
            c,
            1,
            &dev,
            null(),
            1,
            &h,
            &hn,
            None,
            null_mut(),
        ));
        let mut bt = 0u32;
        ok(clGetProgramBuildInfo(
            c,
            dev,
            CL_PROGRAM_BINARY_TYPE,
            4,
            (&mut bt as *mut u32).cast(),
            null_mut(),
        ));
        assert_eq!(bt, CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT);
        let linked = clLinkProgram(env.ctx, 1, &dev, null(), 1, &c, None, null_mut(), &mut err);
        ok(err);
        let tname = CString::new("triple").unwrap();
        let k = clCreateKernel(linked, tname.as_ptr(), &mut err);
        ok(err);
        let buf = env.buffer(CL_MEM_READ_WRITE, 16, null_mut());
        env.write(buf, 0, &[1.0f32, 2.0, 3.0, 4.0]);
        set_arg(k, 0, &buf);
        let global = 4usize;
        ok(clEnqueueNDRangeKernel(
            env.queue,
            k,
            1,
            null(),
            &global,
            null(),
            0,
            null(),
            null_mut(),
        ));
        assert_eq!(env.read::<f32>(buf, 0, 4), vec![3.0, 6.0, 9.0, 12.0]);
        // Linking something that was never compiled.
        let raw = clCreateProgramWithSource(env.ctx, 1, &sp, null(), &mut err);
        assert!(clLinkProgram(
            env.ctx,
            1,
            &dev,
            null(),
            1,
            &raw,
            None,
            null_mut(),
            &mut err
        )
        .is_null());
        assert_eq!(err, CL_INVALID_OPERATION);
        for obj in [p, q, h, c, linked, raw] {
            ok(clReleaseProgram(obj));
        }
        ok(clReleaseKernel(k));
        ok(clReleaseMemObject(buf));
        // IL and built-in kernels are not offered.
        let il = [0x07230203u32];
        assert!(clCreateProgramWithIL(env.ctx, il.as_ptr().cast(), 4, &mut err).is_null());
        assert_eq!(err, CL_INVALID_OPERATION);
        let names = CString::new("foo").unwrap();
        assert!(
            clCreateProgramWithBuiltInKernels(env.ctx, 1, &dev, names.as_ptr(), &mut err).is_null()
        );
        assert_eq!(err, CL_INVALID_VALUE);
    }
    check_validation();
}

#[test]
fn kernel_args_and_info() {
    let env = Env::new();
    let src = "
__kernel void mixed(__global float *out, __local int *scratch, float scale, int4 v, __constant uint *lut)
{
    out[get_global_id(0)] = scale;
}
";
    let (p, k) = env.kernel(src, "mixed");
    let mut err = 0;
    unsafe {
        let mut num = 0u32;
        ok(clGetKernelInfo(
            k,
            CL_KERNEL_NUM_ARGS,
            4,
            (&mut num as *mut u32).cast(),
            null_mut(),
        ));
        assert_eq!(num, 5);
        let mut name = [0u8; 16];
        let mut size = 0;
        ok(clGetKernelInfo(
            k,
            CL_KERNEL_FUNCTION_NAME,
            16,
            name.as_mut_ptr().cast(),
            &mut size,
        ));
        assert_eq!(&name[..size], b"mixed\0");
        let mut prog: H = null_mut();
        ok(clGetKernelInfo(
            k,
            CL_KERNEL_PROGRAM,
            8,
            (&mut prog as *mut H).cast(),
            null_mut(),
        ));
        assert_eq!(prog, p);
        let mut ctx: H = null_mut();
        ok(clGetKernelInfo(
            k,
            CL_KERNEL_CONTEXT,
            8,
            (&mut ctx as *mut H).cast(),
            null_mut(),
        ));
        assert_eq!(ctx, env.ctx);

        let arg_u32 = |i: u32, param: cl_uint| {
            let mut v = 0u32;
            ok(clGetKernelArgInfo(
                k,
                i,
                param,
                4,
                (&mut v as *mut u32).cast(),
                null_mut(),
            ));
            v
        };
        assert_eq!(
            arg_u32(0, CL_KERNEL_ARG_ADDRESS_QUALIFIER),
            CL_KERNEL_ARG_ADDRESS_GLOBAL
        );
        assert_eq!(
            arg_u32(1, CL_KERNEL_ARG_ADDRESS_QUALIFIER),
            CL_KERNEL_ARG_ADDRESS_LOCAL
        );
        assert_eq!(
            arg_u32(2, CL_KERNEL_ARG_ADDRESS_QUALIFIER),
            CL_KERNEL_ARG_ADDRESS_PRIVATE
        );
        assert_eq!(
            arg_u32(4, CL_KERNEL_ARG_ADDRESS_QUALIFIER),
            CL_KERNEL_ARG_ADDRESS_CONSTANT
        );
        assert_eq!(
            arg_u32(0, CL_KERNEL_ARG_ACCESS_QUALIFIER),
            CL_KERNEL_ARG_ACCESS_NONE
        );
        let mut tn = [0u8; 16];
        ok(clGetKernelArgInfo(
            k,
            3,
            CL_KERNEL_ARG_TYPE_NAME,
            16,
            tn.as_mut_ptr().cast(),
            &mut size,
        ));
        assert_eq!(&tn[..size], b"int4\0");
        ok(clGetKernelArgInfo(
            k,
            2,
            CL_KERNEL_ARG_NAME,
            16,
            tn.as_mut_ptr().cast(),
            &mut size,
        ));
        assert_eq!(&tn[..size], b"scale\0");
        let mut tq = 99u64;
        ok(clGetKernelArgInfo(
            k,
            0,
            CL_KERNEL_ARG_TYPE_QUALIFIER,
            8,
            (&mut tq as *mut u64).cast(),
            null_mut(),
        ));
        assert_eq!(tq, CL_KERNEL_ARG_TYPE_NONE);
        // A __constant pointer is const.
        ok(clGetKernelArgInfo(
            k,
            4,
            CL_KERNEL_ARG_TYPE_QUALIFIER,
            8,
            (&mut tq as *mut u64).cast(),
            null_mut(),
        ));
        assert_eq!(tq, CL_KERNEL_ARG_TYPE_CONST);
        assert_eq!(
            clGetKernelArgInfo(
                k,
                5,
                CL_KERNEL_ARG_NAME,
                16,
                tn.as_mut_ptr().cast(),
                null_mut()
            ),
            CL_INVALID_ARG_INDEX
        );

        // clSetKernelArg checks.
        let buf = env.buffer(CL_MEM_READ_WRITE, 64, null_mut());
        let f = 2.5f32;
        assert_eq!(
            clSetKernelArg(k, 5, 4, (&f as *const f32).cast()),
            CL_INVALID_ARG_INDEX
        );
        assert_eq!(
            clSetKernelArg(k, 2, 8, (&f as *const f32).cast()),
            CL_INVALID_ARG_SIZE
        );
        assert_eq!(clSetKernelArg(k, 2, 4, null()), CL_INVALID_ARG_VALUE);
        assert_eq!(clSetKernelArg(k, 1, 0, null()), CL_INVALID_ARG_SIZE);
        assert_eq!(
            clSetKernelArg(k, 1, 16, (&f as *const f32).cast()),
            CL_INVALID_ARG_VALUE
        );
        assert_eq!(
            clSetKernelArg(k, 0, 4, (&buf as *const H).cast()),
            CL_INVALID_ARG_SIZE
        );
        assert_eq!(
            clSetKernelArg(k, 0, 8, (&env.queue as *const H).cast()),
            CL_INVALID_MEM_OBJECT
        );
        assert_eq!(
            clSetKernelArg(env.ctx, 0, 8, (&buf as *const H).cast()),
            CL_INVALID_KERNEL
        );
        // Launching with unset arguments.
        let global = 4usize;
        assert_eq!(
            clEnqueueNDRangeKernel(
                env.queue,
                k,
                1,
                null(),
                &global,
                null(),
                0,
                null(),
                null_mut()
            ),
            CL_INVALID_KERNEL_ARGS
        );
        set_arg(k, 0, &buf);
        ok(clSetKernelArg(k, 1, 64, null()));
        set_arg(k, 2, &f);
        set_arg(k, 3, &[1i32, 2, 3, 4]);
        // A NULL buffer is a valid pointer argument.
        ok(clSetKernelArg(k, 4, 8, null()));
        ok(clEnqueueNDRangeKernel(
            env.queue,
            k,
            1,
            null(),
            &global,
            null(),
            0,
            null(),
            null_mut(),
        ));
        assert_eq!(env.read::<f32>(buf, 0, 4), vec![2.5; 4]);

        // Work-group info.
        let mut wg = 0usize;
        ok(clGetKernelWorkGroupInfo(
            k,
            device(),
            CL_KERNEL_WORK_GROUP_SIZE,
            8,
            (&mut wg as *mut usize).cast(),
            null_mut(),
        ));
        assert!(wg >= 1);
        let mut local = 0u64;
        ok(clGetKernelWorkGroupInfo(
            k,
            null_mut(),
            CL_KERNEL_LOCAL_MEM_SIZE,
            8,
            (&mut local as *mut u64).cast(),
            null_mut(),
        ));
        assert!(local >= 64);
        let mut compile = [9usize; 3];
        ok(clGetKernelWorkGroupInfo(
            k,
            null_mut(),
            CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
            24,
            compile.as_mut_ptr().cast(),
            null_mut(),
        ));
        assert_eq!(compile, [0, 0, 0]);
        let mut gws = [0usize; 3];
        assert_eq!(
            clGetKernelWorkGroupInfo(
                k,
                null_mut(),
                CL_KERNEL_GLOBAL_WORK_SIZE,
                24,
                gws.as_mut_ptr().cast(),
                null_mut()
            ),
            CL_INVALID_VALUE
        );
        assert_eq!(
            clGetKernelWorkGroupInfo(
                k,
                env.ctx,
                CL_KERNEL_WORK_GROUP_SIZE,
                8,
                (&mut wg as *mut usize).cast(),
                null_mut()
            ),
            CL_INVALID_DEVICE
        );

        // A clone has its own copy of the arguments.
        let clone = clCloneKernel(k, &mut err);
        ok(err);
        let g = 7.0f32;
        set_arg(clone, 2, &g);
        ok(clEnqueueNDRangeKernel(
            env.queue,
            clone,
            1,
            null(),
            &global,
            null(),
            0,
            null(),
            null_mut(),
        ));
        assert_eq!(env.read::<f32>(buf, 0, 4), vec![7.0; 4]);
        ok(clEnqueueNDRangeKernel(
            env.queue,
            k,
            1,
            null(),
            &global,
            null(),
            0,
            null(),
            null_mut(),
        ));
        assert_eq!(env.read::<f32>(buf, 0, 4), vec![2.5; 4]);
        let bad_name = CString::new("nope").unwrap();
        assert!(clCreateKernel(p, bad_name.as_ptr(), &mut err).is_null());
        assert_eq!(err, CL_INVALID_KERNEL_NAME);
        assert!(clCreateKernel(p, null(), &mut err).is_null());
        assert_eq!(err, CL_INVALID_VALUE);
        ok(clReleaseKernel(clone));
        ok(clReleaseKernel(k));
        ok(clReleaseProgram(p));
        ok(clReleaseMemObject(buf));
    }
    check_validation();
}

/// (work_dim, global size, global offset, local size or NULL).
type NdCase = (u32, [usize; 3], [usize; 3], Option<[usize; 3]>);

const GLOBAL_IDS: &str = "
__kernel void ids(__global uint *out, uint w, uint h)
{
    size_t x = get_global_id(0);
    size_t y = get_global_id(1);
    size_t z = get_global_id(2);
    size_t lx = x - get_global_offset(0);
    size_t ly = y - get_global_offset(1);
    size_t lz = z - get_global_offset(2);
    out[lx + ly * w + lz * w * h] = (uint)(x + 1000 * y + 1000000 * z);
}
";

#[test]
fn nd_range_1d_2d_3d_with_offsets_and_null_local() {
    let env = Env::new();
    let (p, k) = env.kernel(GLOBAL_IDS, "ids");
    // (work_dim, global, offset, local)
    let cases: [NdCase; 6] = [
        (1, [1000, 1, 1], [0, 0, 0], None),
        (1, [777, 1, 1], [5, 0, 0], None),
        (1, [512, 1, 1], [0, 0, 0], Some([64, 1, 1])),
        (2, [33, 17, 1], [3, 4, 0], None),
        (2, [64, 8, 1], [0, 0, 0], Some([8, 4, 1])),
        (3, [9, 6, 5], [1, 2, 3], None),
    ];
    for (dim, global, offset, local) in cases {
        let n: usize = global.iter().product();
        let buf = env.buffer(CL_MEM_READ_WRITE, n * 4, null_mut());
        unsafe {
            set_arg(k, 0, &buf);
            set_arg(k, 1, &(global[0] as u32));
            set_arg(k, 2, &(global[1] as u32));
            let lp = local.as_ref().map_or(null(), |l| l.as_ptr());
            ok(clEnqueueNDRangeKernel(
                env.queue,
                k,
                dim,
                offset.as_ptr(),
                global.as_ptr(),
                lp,
                0,
                null(),
                null_mut(),
            ));
        }
        let got = env.read::<u32>(buf, 0, n);
        for z in 0..global[2] {
            for y in 0..global[1] {
                for x in 0..global[0] {
                    let want =
                        (x + offset[0]) + 1000 * (y + offset[1]) + 1_000_000 * (z + offset[2]);
                    assert_eq!(
                        got[x + y * global[0] + z * global[0] * global[1]] as usize,
                        want,
                        "dim {dim} at ({x},{y},{z})"
                    );
                }
            }
        }
        unsafe { ok(clReleaseMemObject(buf)) };
    }
    unsafe {
        let global = [64usize, 1, 1];
        let bad_local = [7usize, 1, 1];
        let q = env.queue;
        assert_eq!(
            clEnqueueNDRangeKernel(
                q,
                k,
                1,
                null(),
                global.as_ptr(),
                bad_local.as_ptr(),
                0,
                null(),
                null_mut()
            ),
            CL_INVALID_WORK_GROUP_SIZE
        );
        assert_eq!(
            clEnqueueNDRangeKernel(
                q,
                k,
                0,
                null(),
                global.as_ptr(),
                null(),
                0,
                null(),
                null_mut()
            ),
            CL_INVALID_WORK_DIMENSION
        );
        assert_eq!(
            clEnqueueNDRangeKernel(
                q,
                k,
                4,
                null(),
                global.as_ptr(),
                null(),
                0,
                null(),
                null_mut()
            ),
            CL_INVALID_WORK_DIMENSION
        );
        let huge = [1usize << 20, 1, 1];
        assert_eq!(
            clEnqueueNDRangeKernel(
                q,
                k,
                1,
                null(),
                global.as_ptr(),
                huge.as_ptr(),
                0,
                null(),
                null_mut()
            ),
            CL_INVALID_WORK_GROUP_SIZE
        );
        let zero = [0usize, 1, 1];
        assert_eq!(
            clEnqueueNDRangeKernel(
                q,
                k,
                1,
                null(),
                global.as_ptr(),
                zero.as_ptr(),
                0,
                null(),
                null_mut()
            ),
            CL_INVALID_WORK_GROUP_SIZE
        );
        assert_eq!(
            clEnqueueNDRangeKernel(
                q,
                p,
                1,
                null(),
                global.as_ptr(),
                null(),
                0,
                null(),
                null_mut()
            ),
            CL_INVALID_KERNEL
        );
        assert_eq!(
            clEnqueueNDRangeKernel(
                k,
                k,
                1,
                null(),
                global.as_ptr(),
                null(),
                0,
                null(),
                null_mut()
            ),
            CL_INVALID_COMMAND_QUEUE
        );
        let other = Env::new();
        assert_eq!(
            clEnqueueNDRangeKernel(
                other.queue,
                k,
                1,
                null(),
                global.as_ptr(),
                null(),
                0,
                null(),
                null_mut()
            ),
            CL_INVALID_CONTEXT
        );
        // An empty NDRange is a command that does nothing.
        let mut ev = null_mut();
        ok(clEnqueueNDRangeKernel(
            q,
            k,
            1,
            null(),
            zero.as_ptr(),
            null(),
            0,
            null(),
            &mut ev,
        ));
        ok(clWaitForEvents(1, &ev));
        ok(clReleaseEvent(ev));
        ok(clReleaseKernel(k));
        ok(clReleaseProgram(p));
    }
    check_validation();
}

#[test]
fn reqd_work_group_size_and_task() {
    let env = Env::new();
    let src = "
__kernel __attribute__((reqd_work_group_size(4, 2, 1)))
void tile(__global uint *out)
{
    out[get_global_id(0) + get_global_id(1) * get_global_size(0)] = (uint)(get_local_id(0) + 10 * get_local_id(1));
}
__kernel void single(__global uint *out) { out[0] = (uint)get_global_size(0) + 41u; }
";
    let p = env.program(src, "");
    let mut err = 0;
    unsafe {
        let tile = CString::new("tile").unwrap();
        let k = clCreateKernel(p, tile.as_ptr(), &mut err);
        ok(err);
        let buf = env.buffer(CL_MEM_READ_WRITE, 8 * 4 * 4, null_mut());
        set_arg(k, 0, &buf);
        let mut compile = [0usize; 3];
        ok(clGetKernelWorkGroupInfo(
            k,
            null_mut(),
            CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
            24,
            compile.as_mut_ptr().cast(),
            null_mut(),
        ));
        assert_eq!(compile, [4, 2, 1]);
        let global = [8usize, 4, 1];
        ok(clEnqueueNDRangeKernel(
            env.queue,
            k,
            2,
            null(),
            global.as_ptr(),
            null(),
            0,
            null(),
            null_mut(),
        ));
        let got = env.read::<u32>(buf, 0, 32);
        for y in 0..4 {
            for x in 0..8 {
                assert_eq!(got[x + y * 8], (x % 4 + 10 * (y % 2)) as u32);
            }
        }
        let wrong = [8usize, 1, 1];
        assert_eq!(
            clEnqueueNDRangeKernel(
                env.queue,
                k,
                2,
                null(),
                global.as_ptr(),
                wrong.as_ptr(),
                0,
                null(),
                null_mut()
            ),
            CL_INVALID_WORK_GROUP_SIZE
        );
        ok(clReleaseKernel(k));

        let single = CString::new("single").unwrap();
        let k = clCreateKernel(p, single.as_ptr(), &mut err);
        ok(err);
        set_arg(k, 0, &buf);
        ok(clEnqueueTask(env.queue, k, 0, null(), null_mut()));
        assert_eq!(env.read::<u32>(buf, 0, 1), vec![42]);
        ok(clReleaseKernel(k));
        ok(clReleaseMemObject(buf));
        ok(clReleaseProgram(p));
    }
    check_validation();
}

fn event_status(e: H) -> cl_int {
    let mut s: cl_int = 99;
    unsafe {
        ok(clGetEventInfo(
            e,
            CL_EVENT_COMMAND_EXECUTION_STATUS,
            4,
            (&mut s as *mut i32).cast(),
            null_mut(),
        ))
    };
    s
}

#[test]
fn event_info_and_wait_lists() {
    let env = Env::new();
    let buf = env.buffer(CL_MEM_READ_WRITE, 64, null_mut());
    let data = [3u8; 64];
    unsafe {
        let mut ev = null_mut();
        ok(clEnqueueWriteBuffer(
            env.queue,
            buf,
            CL_FALSE,
            0,
            64,
            data.as_ptr().cast(),
            0,
            null(),
            &mut ev,
        ));
        let mut ty = 0u32;
        ok(clGetEventInfo(
            ev,
            CL_EVENT_COMMAND_TYPE,
            4,
            (&mut ty as *mut u32).cast(),
            null_mut(),
        ));
        assert_eq!(ty, CL_COMMAND_WRITE_BUFFER);
        let mut q: H = null_mut();
        ok(clGetEventInfo(
            ev,
            CL_EVENT_COMMAND_QUEUE,
            8,
            (&mut q as *mut H).cast(),
            null_mut(),
        ));
        assert_eq!(q, env.queue);
        let mut c: H = null_mut();
        ok(clGetEventInfo(
            ev,
            CL_EVENT_CONTEXT,
            8,
            (&mut c as *mut H).cast(),
            null_mut(),
        ));
        assert_eq!(c, env.ctx);
        let mut out = [0u8; 64];
        let mut read_ev = null_mut();
        ok(clEnqueueReadBuffer(
            env.queue,
            buf,
            CL_FALSE,
            0,
            64,
            out.as_mut_ptr().cast(),
            1,
            &ev,
            &mut read_ev,
        ));
        let mut marker = null_mut();
        let list = [ev, read_ev];
        ok(clEnqueueMarkerWithWaitList(
            env.queue,
            2,
            list.as_ptr(),
            &mut marker,
        ));
        ok(clWaitForEvents(1, &marker));
        assert_eq!(event_status(ev), CL_COMPLETE as cl_int);
        assert_eq!(event_status(read_ev), CL_COMPLETE as cl_int);
        assert_eq!(out, data);
        let count = |e: H| {
            ref_count(
                |a, s, v, r| clGetEventInfo(e, a, s, v, r),
                CL_EVENT_REFERENCE_COUNT,
            )
        };
        // The completion thread may still hold its reference for a moment.
        assert!(count(marker) >= 1);
        ok(clRetainEvent(marker));
        assert!(count(marker) >= 2);
        ok(clReleaseEvent(marker));
        ok(clReleaseEvent(marker));
        let mut barrier = null_mut();
        ok(clEnqueueBarrierWithWaitList(
            env.queue,
            0,
            null(),
            &mut barrier,
        ));
        ok(clEnqueueMarker(env.queue, &mut marker));
        ok(clEnqueueBarrier(env.queue));
        ok(clEnqueueWaitForEvents(env.queue, 1, &barrier));
        ok(clFinish(env.queue));
        assert_eq!(event_status(barrier), CL_COMPLETE as cl_int);
        assert_eq!(event_status(marker), CL_COMPLETE as cl_int);
        for e in [ev, read_ev, barrier, marker] {
            ok(clReleaseEvent(e));
        }
        // Errors.
        assert_eq!(clWaitForEvents(0, &ev), CL_INVALID_VALUE);
        assert_eq!(clWaitForEvents(1, null()), CL_INVALID_VALUE);
        assert_eq!(clWaitForEvents(1, &buf), CL_INVALID_EVENT);
        assert_eq!(
            clGetEventInfo(buf, CL_EVENT_COMMAND_TYPE, 4, null_mut(), null_mut()),
            CL_INVALID_EVENT
        );
        assert_eq!(clEnqueueMarker(env.queue, null_mut()), CL_INVALID_VALUE);
        assert_eq!(
            clEnqueueWaitForEvents(env.queue, 0, null()),
            CL_INVALID_VALUE
        );
        assert_eq!(
            clEnqueueMarkerWithWaitList(env.queue, 1, null(), null_mut()),
            CL_INVALID_EVENT_WAIT_LIST
        );
        // Events of another context.
        let other = Env::new();
        let mut err = 0;
        let foreign = clCreateUserEvent(other.ctx, &mut err);
        ok(err);
        assert_eq!(
            clEnqueueMarkerWithWaitList(env.queue, 1, &foreign, null_mut()),
            CL_INVALID_CONTEXT
        );
        let mine = clCreateUserEvent(env.ctx, &mut err);
        let mixed = [mine, foreign];
        assert_eq!(clWaitForEvents(2, mixed.as_ptr()), CL_INVALID_CONTEXT);
        ok(clSetUserEventStatus(mine, CL_COMPLETE as cl_int));
        ok(clSetUserEventStatus(foreign, CL_COMPLETE as cl_int));
        ok(clReleaseEvent(mine));
        ok(clReleaseEvent(foreign));
        ok(clReleaseMemObject(buf));
    }
    check_validation();
}

#[test]
fn user_event_gates_commands_in_order() {
    let env = Env::new();
    let buf = env.buffer(CL_MEM_READ_WRITE, 16, null_mut());
    env.write(buf, 0, &[0u32; 4]);
    let mut err = 0;
    unsafe {
        let gate = clCreateUserEvent(env.ctx, &mut err);
        ok(err);
        assert_eq!(event_status(gate), CL_SUBMITTED as cl_int);
        let mut ty = 0u32;
        ok(clGetEventInfo(
            gate,
            CL_EVENT_COMMAND_TYPE,
            4,
            (&mut ty as *mut u32).cast(),
            null_mut(),
        ));
        assert_eq!(ty, CL_COMMAND_USER);
        let values = [7u32, 8, 9, 10];
        let mut write_ev = null_mut();
        ok(clEnqueueWriteBuffer(
            env.queue,
            buf,
            CL_FALSE,
            0,
            16,
            values.as_ptr().cast(),
            1,
            &gate,
            &mut write_ev,
        ));
        // A later command with no wait list still runs after the held one
        // (in-order queue).
        let mut out = [0u32; 4];
        let mut read_ev = null_mut();
        ok(clEnqueueReadBuffer(
            env.queue,
            buf,
            CL_FALSE,
            0,
            16,
            out.as_mut_ptr().cast(),
            0,
            null(),
            &mut read_ev,
        ));
        ok(clFlush(env.queue));
        std::thread::sleep(std::time::Duration::from_millis(50));
        assert!(event_status(write_ev) > CL_COMPLETE as cl_int);
        assert!(event_status(read_ev) > CL_COMPLETE as cl_int);
        assert_eq!(out, [0; 4]);
        // Released from another thread, as applications do.
        let gate_addr = gate as usize;
        std::thread::spawn(move || ok(clSetUserEventStatus(gate_addr as H, CL_COMPLETE as cl_int)))
            .join()
            .unwrap();
        ok(clWaitForEvents(1, &read_ev));
        assert_eq!(out, values);
        assert_eq!(event_status(write_ev), CL_COMPLETE as cl_int);
        assert_eq!(
            clSetUserEventStatus(gate, CL_COMPLETE as cl_int),
            CL_INVALID_OPERATION
        );
        assert_eq!(
            clSetUserEventStatus(write_ev, CL_COMPLETE as cl_int),
            CL_INVALID_EVENT
        );
        let other = clCreateUserEvent(env.ctx, &mut err);
        assert_eq!(
            clSetUserEventStatus(other, CL_SUBMITTED as cl_int),
            CL_INVALID_VALUE
        );

        // A failed user event fails the commands that wait for it.
        let mut failing_ev = null_mut();
        ok(clEnqueueWriteBuffer(
            env.queue,
            buf,
            CL_FALSE,
            0,
            16,
            values.as_ptr().cast(),
            1,
            &other,
            &mut failing_ev,
        ));
        ok(clSetUserEventStatus(other, -42));
        assert_eq!(
            clWaitForEvents(1, &failing_ev),
            CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST
        );
        assert!(event_status(failing_ev) < 0);
        let r = clEnqueueReadBuffer(
            env.queue,
            buf,
            CL_TRUE,
            0,
            16,
            out.as_mut_ptr().cast(),
            1,
            &other,
            null_mut(),
        );
        assert_eq!(r, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
        // The queue keeps working afterwards.
        assert_eq!(env.read::<u32>(buf, 0, 4), values.to_vec());
        for e in [gate, write_ev, read_ev, other, failing_ev] {
            ok(clReleaseEvent(e));
        }
        ok(clReleaseMemObject(buf));
    }
    check_validation();
}

#[test]
fn commands_across_queues() {
    let env = Env::new();
    let dev = device();
    let mut err = 0;
    unsafe {
        let q2 = clCreateCommandQueue(env.ctx, dev, 0, &mut err);
        ok(err);
        let a = env.buffer(CL_MEM_READ_WRITE, 1 << 16, null_mut());
        let b = env.buffer(CL_MEM_READ_WRITE, 1 << 16, null_mut());
        let data: Vec<u32> = (0..1 << 14).map(|i| i * 3).collect();
        let mut w = null_mut();
        ok(clEnqueueWriteBuffer(
            env.queue,
            a,
            CL_FALSE,
            0,
            1 << 16,
            data.as_ptr().cast(),
            0,
            null(),
            &mut w,
        ));
        // Not flushed: the second queue's command must still see it.
        let mut c = null_mut();
        ok(clEnqueueCopyBuffer(q2, a, b, 0, 0, 1 << 16, 1, &w, &mut c));
        let mut out = vec![0u32; 1 << 14];
        ok(clEnqueueReadBuffer(
            env.queue,
            b,
            CL_TRUE,
            0,
            1 << 16,
            out.as_mut_ptr().cast(),
            1,
            &c,
            null_mut(),
        ));
        assert_eq!(out, data);
        // A user event that gates the second queue while the first waits on
        // that queue's command.
        let gate = clCreateUserEvent(env.ctx, &mut err);
        let mut fill_ev = null_mut();
        let pattern = 0xabu8;
        ok(clEnqueueFillBuffer(
            q2,
            b,
            (&pattern as *const u8).cast(),
            1,
            0,
            64,
            1,
            &gate,
            &mut fill_ev,
        ));
        let mut small = [0u8; 64];
        let mut read_ev = null_mut();
        ok(clEnqueueReadBuffer(
            env.queue,
            b,
            CL_FALSE,
            0,
            64,
            small.as_mut_ptr().cast(),
            1,
            &fill_ev,
            &mut read_ev,
        ));
        ok(clFlush(env.queue));
        ok(clSetUserEventStatus(gate, CL_COMPLETE as cl_int));
        ok(clWaitForEvents(1, &read_ev));
        assert_eq!(small, [0xab; 64]);
        ok(clFinish(q2));
        for e in [w, c, gate, fill_ev, read_ev] {
            ok(clReleaseEvent(e));
        }
        ok(clReleaseCommandQueue(q2));
        ok(clReleaseMemObject(a));
        ok(clReleaseMemObject(b));
    }
    check_validation();
}

static CALLBACK_HITS: [AtomicUsize; 4] = [
    AtomicUsize::new(0),
    AtomicUsize::new(0),
    AtomicUsize::new(0),
    AtomicUsize::new(0),
];
static CALLBACK_STATUS_OK: AtomicUsize = AtomicUsize::new(0);

unsafe extern "C" fn on_status(_event: *mut c_void, status: cl_int, user_data: *mut c_void) {
    let registered = user_data as usize;
    CALLBACK_HITS[registered].fetch_add(1, Ordering::SeqCst);
    if status == registered as cl_int {
        CALLBACK_STATUS_OK.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn event_callbacks_run_exactly_once() {
    let env = Env::new();
    let buf = env.buffer(CL_MEM_READ_WRITE, 64, null_mut());
    let mut err = 0;
    unsafe {
        let gate = clCreateUserEvent(env.ctx, &mut err);
        ok(err);
        let mut ev = null_mut();
        let data = [1u8; 64];
        ok(clEnqueueWriteBuffer(
            env.queue,
            buf,
            CL_FALSE,
            0,
            64,
            data.as_ptr().cast(),
            1,
            &gate,
            &mut ev,
        ));
        for status in [CL_SUBMITTED, CL_RUNNING, CL_COMPLETE] {
            ok(clSetEventCallback(
                ev,
                status as cl_int,
                Some(on_status),
                status as usize as *mut c_void,
            ));
        }
        assert_eq!(
            clSetEventCallback(ev, CL_QUEUED as cl_int, Some(on_status), null_mut()),
            CL_INVALID_VALUE
        );
        assert_eq!(
            clSetEventCallback(ev, CL_COMPLETE as cl_int, None, null_mut()),
            CL_INVALID_VALUE
        );
        assert_eq!(CALLBACK_HITS[0].load(Ordering::SeqCst), 0);
        ok(clSetUserEventStatus(gate, CL_COMPLETE as cl_int));
        ok(clWaitForEvents(1, &ev));
        ok(clFinish(env.queue));
        // Callbacks may run on another thread just after the status
        // changes; give them a moment.
        for _ in 0..100 {
            if CALLBACK_HITS[0].load(Ordering::SeqCst) == 1 {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        // Registered after completion: runs at once.
        ok(clSetEventCallback(
            ev,
            CL_COMPLETE as cl_int,
            Some(on_status),
            null_mut(),
        ));
        assert_eq!(CALLBACK_HITS[0].load(Ordering::SeqCst), 2);
        assert_eq!(CALLBACK_HITS[1].load(Ordering::SeqCst), 1);
        assert_eq!(CALLBACK_HITS[2].load(Ordering::SeqCst), 1);
        assert_eq!(CALLBACK_STATUS_OK.load(Ordering::SeqCst), 4);
        ok(clReleaseEvent(ev));
        ok(clReleaseEvent(gate));
        ok(clReleaseMemObject(buf));
    }
    check_validation();
}

#[test]
fn profiling_times_are_ordered() {
    let env = Env::with_queue_properties(CL_QUEUE_PROFILING_ENABLE);
    let buf = env.buffer(CL_MEM_READ_WRITE, 1 << 20, null_mut());
    let data = vec![5u8; 1 << 20];
    unsafe {
        let mut ev = null_mut();
        ok(clEnqueueWriteBuffer(
            env.queue,
            buf,
            CL_TRUE,
            0,
            1 << 20,
            data.as_ptr().cast(),
            0,
            null(),
            &mut ev,
        ));
        ok(clWaitForEvents(1, &ev));
        let mut times = [0u64; 5];
        let params = [
            CL_PROFILING_COMMAND_QUEUED,
            CL_PROFILING_COMMAND_SUBMIT,
            CL_PROFILING_COMMAND_START,
            CL_PROFILING_COMMAND_END,
            CL_PROFILING_COMMAND_COMPLETE,
        ];
        for (t, p) in times.iter_mut().zip(params) {
            ok(clGetEventProfilingInfo(
                ev,
                p,
                8,
                (t as *mut u64).cast(),
                null_mut(),
            ));
        }
        assert!(times[0] > 0);
        assert!(times.windows(2).all(|w| w[0] <= w[1]), "{times:?}");
        // A kernel, timed by device timestamps where the device has them:
        // still in order, and taking some time.
        let (p, k) = env.kernel(VECTOR_ADD, "add");
        set_arg(k, 0, &buf);
        set_arg(k, 1, &buf);
        set_arg(k, 2, &buf);
        let n = (1usize << 20) / 4;
        let mut kev = null_mut();
        ok(clEnqueueNDRangeKernel(
            env.queue,
            k,
            1,
            null(),
            &n,
            null(),
            0,
            null(),
            &mut kev,
        ));
        ok(clWaitForEvents(1, &kev));
        let mut kt = [0u64; 4];
        for (t, p) in kt.iter_mut().zip(params) {
            ok(clGetEventProfilingInfo(
                kev,
                p,
                8,
                (t as *mut u64).cast(),
                null_mut(),
            ));
        }
        assert!(kt.windows(2).all(|w| w[0] <= w[1]), "{kt:?}");
        assert!(kt[3] > kt[2], "{kt:?}");
        ok(clReleaseEvent(kev));
        ok(clReleaseKernel(k));
        ok(clReleaseProgram(p));
        let mut t = 0u64;
        assert_eq!(
            clGetEventProfilingInfo(ev, 0x7777, 8, (&mut t as *mut u64).cast(), null_mut()),
            CL_INVALID_VALUE
        );
        assert_eq!(
            clGetEventProfilingInfo(
                ev,
                CL_PROFILING_COMMAND_END,
                4,
                (&mut t as *mut u64).cast(),
                null_mut()
            ),
            CL_INVALID_VALUE
        );
        ok(clReleaseEvent(ev));
        // Without CL_QUEUE_PROFILING_ENABLE, and for user events.
        let plain = Env::new();
        ok(clEnqueueMarkerWithWaitList(plain.queue, 0, null(), &mut ev));
        ok(clWaitForEvents(1, &ev));
        assert_eq!(
            clGetEventProfilingInfo(
                ev,
                CL_PROFILING_COMMAND_END,
                8,
                (&mut t as *mut u64).cast(),
                null_mut()
            ),
            CL_PROFILING_INFO_NOT_AVAILABLE
        );
        ok(clReleaseEvent(ev));
        let mut err = 0;
        let user = clCreateUserEvent(env.ctx, &mut err);
        ok(clSetUserEventStatus(user, CL_COMPLETE as cl_int));
        assert_eq!(
            clGetEventProfilingInfo(
                user,
                CL_PROFILING_COMMAND_END,
                8,
                (&mut t as *mut u64).cast(),
                null_mut()
            ),
            CL_PROFILING_INFO_NOT_AVAILABLE
        );
        ok(clReleaseEvent(user));
        ok(clReleaseMemObject(buf));
    }
    check_validation();
}

#[test]
fn many_commands_span_batches() {
    let env = Env::new();
    let n = 200;
    let buf = env.buffer(CL_MEM_READ_WRITE, n * 4, null_mut());
    let values: Vec<u32> = (0..n as u32).map(|i| i * i).collect();
    unsafe {
        for (i, v) in values.iter().enumerate() {
            ok(clEnqueueWriteBuffer(
                env.queue,
                buf,
                CL_FALSE,
                i * 4,
                4,
                (v as *const u32).cast(),
                0,
                null(),
                null_mut(),
            ));
        }
        ok(clFinish(env.queue));
    }
    assert_eq!(env.read::<u32>(buf, 0, n), values);
    unsafe { ok(clReleaseMemObject(buf)) };
    check_validation();
}

#[test]
fn unsupported_features_answer_honest_errors() {
    let env = Env::new();
    let mut err = 0;
    unsafe {
        let mut a = [0u8; 4];
        let b = [0u8; 4];
        assert_eq!(
            clEnqueueSVMMemcpy(
                env.ctx,
                CL_TRUE,
                a.as_mut_ptr().cast(),
                b.as_ptr().cast(),
                4,
                0,
                null(),
                null_mut()
            ),
            CL_INVALID_COMMAND_QUEUE
        );
        assert_eq!(
            clEnqueueNativeKernel(
                env.queue,
                None,
                null_mut(),
                0,
                0,
                null(),
                null(),
                0,
                null(),
                null_mut()
            ),
            CL_INVALID_OPERATION
        );
        let p = env.program(VECTOR_ADD, "");
        let name = CString::new("add").unwrap();
        let k = clCreateKernel(p, name.as_ptr(), &mut err);
        ok(err);
        let v = 0u32;
        assert_eq!(
            clSetProgramSpecializationConstant(p, 0, 4, (&v as *const u32).cast()),
            CL_INVALID_OPERATION
        );
        assert_eq!(clSetKernelExecInfo(k, 0x7777, 0, null()), CL_INVALID_VALUE);
        ok(clReleaseKernel(k));
        ok(clReleaseProgram(p));
    }
    check_validation();
}

#[test]
fn arguments_beyond_push_constants_go_through_the_ring() {
    let env = Env::new();
    // Twelve pointers and four floats: more than lavapipe's 128 bytes of
    // push constants hold after the 32-byte launch header.
    let src = "
__kernel void many(__global float *o, __global const float *a0, __global const float *a1,
                   __global const float *a2, __global const float *a3, __global const float *a4,
                   __global const float *a5, __global const float *a6, __global const float *a7,
                   __global const float *a8, __global const float *a9, __global const float *a10,
                   float s0, float s1, float s2, float s3)
{
    size_t i = get_global_id(0);
    o[i] = a0[i] + a1[i] + a2[i] + a3[i] + a4[i] + a5[i] + a6[i] + a7[i] + a8[i] + a9[i] + a10[i]
         + s0 + s1 * 10.0f + s2 * 100.0f + s3 * 1000.0f;
}
";
    let (p, k) = env.kernel(src, "many");
    let n = 64;
    let out = env.buffer(CL_MEM_READ_WRITE, n * 4, null_mut());
    let inputs: Vec<H> = (0..11)
        .map(|j| {
            let b = env.buffer(CL_MEM_READ_ONLY, n * 4, null_mut());
            let data: Vec<f32> = (0..n).map(|i| (i * (j + 1)) as f32).collect();
            env.write(b, 0, &data);
            b
        })
        .collect();
    unsafe {
        set_arg(k, 0, &out);
        for (j, b) in inputs.iter().enumerate() {
            set_arg(k, j as u32 + 1, b);
        }
        // Several launches with different scalars in one batch: each must
        // see its own arguments.
        for round in 0..3 {
            for s in 0..4u32 {
                set_arg(k, 12 + s, &((round + s) as f32));
            }
            let global = n;
            ok(clEnqueueNDRangeKernel(
                env.queue,
                k,
                1,
                null(),
                &global,
                null(),
                0,
                null(),
                null_mut(),
            ));
            let got = env.read::<f32>(out, 0, n);
            for (i, v) in got.iter().enumerate() {
                let sum: usize = (1..=11).map(|m| i * m).sum();
                let r = round as f32;
                let want =
                    sum as f32 + r + (r + 1.0) * 10.0 + (r + 2.0) * 100.0 + (r + 3.0) * 1000.0;
                assert_eq!(*v, want, "round {round} item {i}");
            }
        }
        ok(clReleaseKernel(k));
        ok(clReleaseProgram(p));
        ok(clReleaseMemObject(out));
        for b in inputs {
            ok(clReleaseMemObject(b));
        }
    }
    check_validation();
}

#[test]
fn nd_range_beyond_the_group_count_limit_is_split() {
    let env = Env::new();
    let src = "
__kernel void mark(__global uint *o, __global uint *g)
{
    size_t i = get_global_id(0) - get_global_offset(0);
    o[i] = (uint)get_global_id(0) ^ 0x5a5a5a5au;
    g[i] = (uint)get_group_id(0);
}
";
    let (p, k) = env.kernel(src, "mark");
    // 70000 groups of one work-item: more than lavapipe's
    // maxComputeWorkGroupCount (65535) in x.
    let n = 70000usize;
    let out = env.buffer(CL_MEM_READ_WRITE, n * 4, null_mut());
    let groups = env.buffer(CL_MEM_READ_WRITE, n * 4, null_mut());
    unsafe {
        set_arg(k, 0, &out);
        set_arg(k, 1, &groups);
        for (offset, local) in [(0usize, 1usize), (3, 1)] {
            ok(clEnqueueNDRangeKernel(
                env.queue,
                k,
                1,
                &offset,
                &n,
                &local,
                0,
                null(),
                null_mut(),
            ));
            let got = env.read::<u32>(out, 0, n);
            let grp = env.read::<u32>(groups, 0, n);
            for i in 0..n {
                assert_eq!(
                    got[i],
                    (i + offset) as u32 ^ 0x5a5a5a5a,
                    "offset {offset} item {i}"
                );
                assert_eq!(grp[i], (i / local) as u32, "offset {offset} item {i}");
            }
        }
        // A NULL local size for a prime global size.
        let prime = 65537usize;
        ok(clEnqueueNDRangeKernel(
            env.queue,
            k,
            1,
            null(),
            &prime,
            null(),
            0,
            null(),
            null_mut(),
        ));
        let got = env.read::<u32>(out, 0, prime);
        for (i, v) in got.iter().enumerate() {
            assert_eq!(*v, i as u32 ^ 0x5a5a5a5a, "item {i}");
        }
        ok(clReleaseKernel(k));
        ok(clReleaseProgram(p));
        ok(clReleaseMemObject(out));
        ok(clReleaseMemObject(groups));
    }
    check_validation();
}

#[test]
fn local_memory_arguments_size_the_pipeline() {
    let env = Env::new();
    let src = "
__kernel void reverse_groups(__global const int *in, __global int *out, __local int *tmp)
{
    size_t l = get_local_id(0);
    size_t n = get_local_size(0);
    tmp[l] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = tmp[n - 1 - l];
}
";
    let (p, k) = env.kernel(src, "reverse_groups");
    let n = 256usize;
    let data: Vec<i32> = (0..n as i32).collect();
    let input = env.buffer(CL_MEM_READ_ONLY, n * 4, null_mut());
    let out = env.buffer(CL_MEM_WRITE_ONLY, n * 4, null_mut());
    env.write(input, 0, &data);
    unsafe {
        set_arg(k, 0, &input);
        set_arg(k, 1, &out);
        for group in [16usize, 32, 64] {
            ok(clSetKernelArg(k, 2, group * 4, null()));
            ok(clEnqueueNDRangeKernel(
                env.queue,
                k,
                1,
                null(),
                &n,
                &group,
                0,
                null(),
                null_mut(),
            ));
            let got = env.read::<i32>(out, 0, n);
            for (i, v) in got.iter().enumerate() {
                let base = i / group * group;
                assert_eq!(
                    *v as usize,
                    base + group - 1 - (i - base),
                    "group {group} item {i}"
                );
            }
        }
        // More local memory than the device has.
        ok(clSetKernelArg(k, 2, 1 << 30, null()));
        let group = 16usize;
        assert_eq!(
            clEnqueueNDRangeKernel(env.queue, k, 1, null(), &n, &group, 0, null(), null_mut()),
            CL_OUT_OF_RESOURCES
        );
        ok(clReleaseKernel(k));
        ok(clReleaseProgram(p));
        ok(clReleaseMemObject(input));
        ok(clReleaseMemObject(out));
    }
    check_validation();
}

#[test]
fn queues_on_many_threads() {
    let env = Env::new();
    let (p, k) = env.kernel(VECTOR_ADD, "add");
    let (ctx, kernel_addr) = (env.ctx as usize, k as usize);
    let threads: Vec<_> = (0..4)
        .map(|t| {
            std::thread::spawn(move || unsafe {
                let ctx = ctx as H;
                let dev = device();
                let mut err = 0;
                let q = clCreateCommandQueue(ctx, dev, 0, &mut err);
                ok(err);
                // Each thread its own kernel object: argument values belong
                // to the kernel, not the launch.
                let k = clCloneKernel(kernel_addr as H, &mut err);
                ok(err);
                let n = 4096usize;
                let a: Vec<f32> = (0..n).map(|i| (i + t) as f32).collect();
                let b: Vec<f32> = (0..n).map(|i| (2 * i) as f32).collect();
                let mk = |data: &[f32]| {
                    let mut err = 0;
                    let buf = clCreateBuffer(
                        ctx,
                        CL_MEM_COPY_HOST_PTR,
                        n * 4,
                        data.as_ptr() as *mut c_void,
                        &mut err,
                    );
                    ok(err);
                    buf
                };
                let (da, db) = (mk(&a), mk(&b));
                let dc = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, n * 4, null_mut(), &mut err);
                ok(err);
                set_arg(k, 0, &da);
                set_arg(k, 1, &db);
                set_arg(k, 2, &dc);
                for _ in 0..10 {
                    ok(clEnqueueNDRangeKernel(
                        q,
                        k,
                        1,
                        null(),
                        &n,
                        null(),
                        0,
                        null(),
                        null_mut(),
                    ));
                }
                let mut out = vec![0f32; n];
                ok(clEnqueueReadBuffer(
                    q,
                    dc,
                    CL_TRUE,
                    0,
                    n * 4,
                    out.as_mut_ptr().cast(),
                    0,
                    null(),
                    null_mut(),
                ));
                for (i, v) in out.iter().enumerate() {
                    assert_eq!(*v, (i + t + 2 * i) as f32);
                }
                for m in [da, db, dc] {
                    ok(clReleaseMemObject(m));
                }
                ok(clReleaseKernel(k));
                ok(clReleaseCommandQueue(q));
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    unsafe {
        ok(clReleaseKernel(k));
        ok(clReleaseProgram(p));
    }
    check_validation();
}

/// Where `enqueue_from_callback` leaves what its nested enqueue returned.
static NESTED_STATUS: AtomicUsize = AtomicUsize::new(usize::MAX);

unsafe extern "C" fn enqueue_from_callback(
    event: *mut c_void,
    _status: cl_int,
    user_data: *mut c_void,
) {
    // Callbacks run outside the runtime's locks: enqueueing on the event's
    // own queue from here must not deadlock.
    let mut queue: H = null_mut();
    let r = clGetEventInfo(
        event,
        CL_EVENT_COMMAND_QUEUE,
        8,
        (&mut queue as *mut H).cast(),
        null_mut(),
    );
    let mut marker = null_mut();
    let r = if r == CL_SUCCESS {
        clEnqueueMarkerWithWaitList(queue, 0, null(), &mut marker)
    } else {
        r
    };
    if r == CL_SUCCESS {
        clFlush(queue);
        *(user_data as *mut H) = marker;
    }
    NESTED_STATUS.store(r as usize, Ordering::SeqCst);
}

#[test]
fn callbacks_may_enqueue_and_objects_outlive_their_release() {
    let env = Env::new();
    let (p, k) = env.kernel(VECTOR_ADD, "add");
    let n = 1024usize;
    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let mut err = 0;
    unsafe {
        let da = clCreateBuffer(
            env.ctx,
            CL_MEM_COPY_HOST_PTR,
            n * 4,
            a.as_ptr() as *mut c_void,
            &mut err,
        );
        ok(err);
        let db = clCreateBuffer(
            env.ctx,
            CL_MEM_COPY_HOST_PTR,
            n * 4,
            a.as_ptr() as *mut c_void,
            &mut err,
        );
        ok(err);
        let dc = env.buffer(CL_MEM_WRITE_ONLY, n * 4, null_mut());
        set_arg(k, 0, &da);
        set_arg(k, 1, &db);
        set_arg(k, 2, &dc);
        let gate = clCreateUserEvent(env.ctx, &mut err);
        let mut ev = null_mut();
        ok(clEnqueueNDRangeKernel(
            env.queue,
            k,
            1,
            null(),
            &n,
            null(),
            1,
            &gate,
            &mut ev,
        ));
        // The inputs, the kernel and its program go while the launch waits.
        ok(clReleaseMemObject(da));
        ok(clReleaseMemObject(db));
        ok(clReleaseKernel(k));
        ok(clReleaseProgram(p));
        let mut nested: H = null_mut();
        ok(clSetEventCallback(
            ev,
            CL_COMPLETE as cl_int,
            Some(enqueue_from_callback),
            (&mut nested as *mut H).cast(),
        ));
        ok(clSetUserEventStatus(gate, CL_COMPLETE as cl_int));
        ok(clWaitForEvents(1, &ev));
        assert_eq!(
            env.read::<f32>(dc, 0, n),
            a.iter().map(|x| 2.0 * x).collect::<Vec<_>>()
        );
        for _ in 0..500 {
            if NESTED_STATUS.load(Ordering::SeqCst) != usize::MAX {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert_eq!(NESTED_STATUS.load(Ordering::SeqCst), CL_SUCCESS as usize);
        ok(clWaitForEvents(1, &nested));
        ok(clReleaseEvent(nested));
        ok(clReleaseEvent(ev));
        ok(clReleaseEvent(gate));
        ok(clReleaseMemObject(dc));
    }
    check_validation();
}

static RELEASED_WHILE_SET: AtomicUsize = AtomicUsize::new(0);

unsafe extern "C" fn note_release(_mem: *mut c_void, _user_data: *mut c_void) {
    RELEASED_WHILE_SET.fetch_add(1, Ordering::SeqCst);
}

#[test]
fn kernel_arguments_do_not_retain_memory_objects() {
    let env = Env::new();
    let src = "__kernel void k(__global const volatile int *p, const int v) { }";
    let (p, k) = env.kernel(src, "k");
    unsafe {
        let buf = env.buffer(CL_MEM_READ_ONLY, 32, null_mut());
        ok(clSetMemObjectDestructorCallback(
            buf,
            Some(note_release),
            null_mut(),
        ));
        set_arg(k, 0, &buf);
        set_arg(k, 1, &5i32);
        ok(clReleaseMemObject(buf));
        assert_eq!(RELEASED_WHILE_SET.load(Ordering::SeqCst), 1);
        // The released object is no argument value any more.
        let one = 1usize;
        assert_eq!(
            clEnqueueNDRangeKernel(env.queue, k, 1, null(), &one, null(), 0, null(), null_mut()),
            CL_INVALID_KERNEL_ARGS
        );
        // Qualifiers: volatile pointee reported, a by-value const is not.
        let mut tq = 0u64;
        ok(clGetKernelArgInfo(
            k,
            0,
            CL_KERNEL_ARG_TYPE_QUALIFIER,
            8,
            (&mut tq as *mut u64).cast(),
            null_mut(),
        ));
        assert_eq!(tq, CL_KERNEL_ARG_TYPE_CONST | CL_KERNEL_ARG_TYPE_VOLATILE);
        ok(clGetKernelArgInfo(
            k,
            1,
            CL_KERNEL_ARG_TYPE_QUALIFIER,
            8,
            (&mut tq as *mut u64).cast(),
            null_mut(),
        ));
        assert_eq!(tq, CL_KERNEL_ARG_TYPE_NONE);
        ok(clReleaseKernel(k));
        ok(clReleaseProgram(p));
    }
    check_validation();
}

/// `text` compiled with `clCompileProgram` and `options` for the device.
unsafe fn compiled_object(env: &Env, text: &str, options: &str) -> H {
    let src = CString::new(text).unwrap();
    let options = CString::new(options).unwrap();
    let dev = device();
    let sp = src.as_ptr();
    let mut err = 0;
    // SAFETY: NUL-terminated source and options, one device.
    unsafe {
        let p = clCreateProgramWithSource(env.ctx, 1, &sp, null(), &mut err);
        ok(err);
        ok(clCompileProgram(
            p,
            1,
            &dev,
            options.as_ptr(),
            0,
            null(),
            null(),
            None,
            null_mut(),
        ));
        p
    }
}

/// `objects` linked with `clLinkProgram` for the device.
unsafe fn linked_program(env: &Env, objects: &[H]) -> H {
    let dev = device();
    let mut err = 0;
    // SAFETY: compiled objects of this context.
    let linked = unsafe {
        clLinkProgram(
            env.ctx,
            1,
            &dev,
            null(),
            objects.len() as cl_uint,
            objects.as_ptr(),
            None,
            null_mut(),
            &mut err,
        )
    };
    ok(err);
    linked
}

/// Runs kernel `name` of `program` over a buffer holding `data`, one
/// work-item per element, and returns what the buffer holds after.
unsafe fn run_in_place<T: Copy + Default>(env: &Env, program: H, name: &str, data: &[T]) -> Vec<T> {
    let mut err = 0;
    let name = CString::new(name).unwrap();
    // SAFETY: a program the caller built, and buffers made here.
    unsafe {
        let k = clCreateKernel(program, name.as_ptr(), &mut err);
        ok(err);
        let buf = env.buffer(CL_MEM_READ_WRITE, std::mem::size_of_val(data), null_mut());
        env.write(buf, 0, data);
        set_arg(k, 0, &buf);
        let global = data.len();
        ok(clEnqueueNDRangeKernel(
            env.queue,
            k,
            1,
            null(),
            &global,
            null(),
            0,
            null(),
            null_mut(),
        ));
        let got = env.read::<T>(buf, 0, data.len());
        ok(clReleaseKernel(k));
        ok(clReleaseMemObject(buf));
        got
    }
}

#[test]
fn separately_compiled_helper_is_linked() {
    let env = Env::new();
    unsafe {
        let compiled = |text: &str| compiled_object(&env, text, "");
        let caller = compiled(
            "float helper(float);\n\
             __kernel void apply(__global float *x) {\n\
               size_t i = get_global_id(0);\n\
               x[i] = helper(x[i]);\n\
             }\n",
        );
        let callee = compiled("float helper(float v) { return v * v + 1.0f; }\n");
        let linked = linked_program(&env, &[caller, callee]);
        let got = run_in_place(&env, linked, "apply", &[1.0f32, 2.0, 3.0, 4.0]);
        assert_eq!(got, vec![2.0, 5.0, 10.0, 17.0]);
        for obj in [caller, callee, linked] {
            ok(clReleaseProgram(obj));
        }
    }
    check_validation();
}

/// hashcat compiles its kernels with `clCompileProgram` and links them
/// alone: the source includes headers by absolute path (`-D
/// INCLUDE_PATH=...`), and those include their neighbours by bare quoted
/// names. The link finds them all among what the compile read, also once
/// the directory is gone.
#[test]
fn a_link_finds_the_neighbours_of_headers_included_by_path() {
    let env = Env::new();
    let dir = std::env::temp_dir().join(format!("ferrocl-link-includes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("inc_types.h"), "#pragma once\ntypedef uint u32;\n").unwrap();
    std::fs::write(
        dir.join("inc_common.cl"),
        "#include \"inc_types.h\"\nu32 twice(u32 v) { return v * 2u; }\n",
    )
    .unwrap();
    let text = "#include M2S(INCLUDE_PATH/inc_types.h)\n\
                #include M2S(INCLUDE_PATH/inc_common.cl)\n\
                __kernel void k(__global u32 *x) { x[get_global_id(0)] = twice(x[get_global_id(0)]); }\n";
    let options = format!(
        "-D INCLUDE_PATH={} -D XM2S(x)=#x -D M2S(x)=XM2S(x)",
        dir.display()
    );
    unsafe {
        let object = compiled_object(&env, text, &options);
        std::fs::remove_dir_all(&dir).unwrap();
        let linked = linked_program(&env, &[object]);
        assert_eq!(
            run_in_place(&env, linked, "k", &[1u32, 2, 3, 4]),
            vec![2, 4, 6, 8]
        );
        ok(clReleaseProgram(object));
        ok(clReleaseProgram(linked));
    }
    check_validation();
}

/// A map larger than the staging pool keeps reusing one staging buffer:
/// the next map of the buffer returns the same host pointer, and still
/// fetches the buffer's current contents into it.
#[test]
fn large_maps_reuse_their_staging_buffer() {
    const SIZE: usize = (1 << 30) + (4 << 20);
    let env = Env::new();
    let mut max_alloc: cl_ulong = 0;
    unsafe {
        ok(clGetDeviceInfo(
            device(),
            CL_DEVICE_MAX_MEM_ALLOC_SIZE,
            8,
            (&mut max_alloc as *mut cl_ulong).cast(),
            null_mut(),
        ));
    }
    if (max_alloc as usize) < SIZE {
        return;
    }
    let buf = env.buffer(CL_MEM_READ_WRITE, SIZE, null_mut());
    let map = |flags: cl_bitfield| -> *mut u8 {
        let mut err = 0;
        let p = unsafe {
            clEnqueueMapBuffer(
                env.queue,
                buf,
                CL_TRUE,
                flags,
                0,
                SIZE,
                0,
                null(),
                null_mut(),
                &mut err,
            )
        };
        ok(err);
        p.cast()
    };
    let unmap = |p: *mut u8| unsafe {
        ok(clEnqueueUnmapMemObject(
            env.queue,
            buf,
            p.cast(),
            0,
            null(),
            null_mut(),
        ));
    };
    let first = map(CL_MAP_WRITE_INVALIDATE_REGION);
    unsafe { std::ptr::write_bytes(first, 0x5a, SIZE) };
    unmap(first);
    // Change the buffer behind the mapping's back: the next map must see it.
    let probe: Vec<u8> = (0..4096).map(|i| (i % 251) as u8).collect();
    env.write(buf, SIZE - 4096, &probe);
    let second = map(CL_MAP_READ);
    assert_eq!(second, first, "the staging buffer was reused");
    unsafe {
        let bytes = std::slice::from_raw_parts(second, SIZE);
        assert!(bytes[..SIZE - 4096]
            .iter()
            .step_by(4093)
            .all(|&b| b == 0x5a));
        assert!(
            bytes[SIZE - 4096..] == probe[..],
            "the map fetched the new bytes"
        );
    }
    unmap(second);
    unsafe {
        ok(clFinish(env.queue));
        ok(clReleaseMemObject(buf));
    }
    check_validation();
}

/// A large blocking read at an offset into an offset destination arrives
/// whole and nothing around it changes. On a GPU it runs as chunks of
/// 16 MiB (runtime/src/memory.rs `read_in_chunks`), which this size does
/// not divide; its event's profiling times span the whole read.
#[test]
fn large_reads_arrive_whole() {
    const SIZE: usize = (96 << 20) + 12_345;
    const FROM: usize = 4_100;
    const AT: usize = 333;
    let env = Env::with_queue_properties(CL_QUEUE_PROFILING_ENABLE);
    let data: Vec<u8> = (0..SIZE + FROM).map(|i| (i * 31 % 253) as u8).collect();
    let buf = env.buffer(CL_MEM_READ_WRITE, SIZE + FROM, null_mut());
    env.write(buf, 0, &data);
    let mut out = vec![0xeeu8; SIZE + 2 * AT];
    let mut event: H = null_mut();
    unsafe {
        ok(clEnqueueReadBuffer(
            env.queue,
            buf,
            CL_TRUE,
            FROM,
            SIZE,
            out.as_mut_ptr().add(AT).cast(),
            0,
            null(),
            &mut event,
        ));
    }
    assert!(out[AT..AT + SIZE] == data[FROM..], "the bytes read");
    assert!(out[..AT]
        .iter()
        .chain(&out[AT + SIZE..])
        .all(|&b| b == 0xee));
    let times = profiling_times(event);
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "{times:?}");
    assert_eq!(
        event_u32(event, CL_EVENT_COMMAND_TYPE),
        CL_COMMAND_READ_BUFFER
    );
    unsafe {
        ok(clReleaseEvent(event));
        ok(clReleaseMemObject(buf));
    }
    check_validation();
}

/// Every buffer's device address is a multiple of
/// `CL_DEVICE_MEM_BASE_ADDR_ALIGN`, small buffers made one after another
/// included: a kernel may rely on a `long16 *` argument being 128-byte
/// aligned (the CTS's `kernel_memory_alignment_global`).
#[test]
fn buffers_start_at_the_base_address_alignment() {
    let env = Env::new();
    let mut align_bits: cl_uint = 0;
    unsafe {
        ok(clGetDeviceInfo(
            device(),
            CL_DEVICE_MEM_BASE_ADDR_ALIGN,
            4,
            (&mut align_bits as *mut cl_uint).cast(),
            null_mut(),
        ));
    }
    let align = u64::from(align_bits / 8);
    assert!(align >= 128, "{align_bits} bits");
    let p = env.program(
        "kernel void k(global ulong *r, global char *a, global short2 *b, global int4 *c,
                       global long4 *d, global long8 *e, global long16 *f) {
           r[0] = (ulong)a; r[1] = (ulong)b; r[2] = (ulong)c;
           r[3] = (ulong)d; r[4] = (ulong)e; r[5] = (ulong)f;
         }",
        "",
    );
    let mut err = 0;
    let k = unsafe { clCreateKernel(p, c"k".as_ptr(), &mut err) };
    ok(err);
    let results = env.buffer(CL_MEM_READ_WRITE, 48, null_mut());
    let small: Vec<H> = [8usize, 16, 32, 32, 64, 128]
        .iter()
        .map(|&n| env.buffer(CL_MEM_READ_WRITE, n, null_mut()))
        .collect();
    unsafe {
        set_arg(k, 0, &results);
        for (i, b) in small.iter().enumerate() {
            set_arg(k, i as u32 + 1, b);
        }
        let global = 1usize;
        ok(clEnqueueNDRangeKernel(
            env.queue,
            k,
            1,
            null(),
            &global,
            null(),
            0,
            null(),
            null_mut(),
        ));
    }
    let addresses = env.read::<u64>(results, 0, 6);
    for (i, a) in addresses.iter().enumerate() {
        assert_eq!(a % align, 0, "buffer {i} at {a:#x}");
    }
    unsafe {
        for b in small {
            ok(clReleaseMemObject(b));
        }
        ok(clReleaseMemObject(results));
        ok(clReleaseKernel(k));
        ok(clReleaseProgram(p));
    }
    check_validation();
}
