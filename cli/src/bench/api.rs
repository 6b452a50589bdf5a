//! The OpenCL entry points the benchmark needs beyond those of
//! [`crate::loader`] (maps, events, flush), resolved from the same system
//! loader, and owning wrappers that release what they hold.

#![allow(non_snake_case)]

use crate::loader::{check, cl_error, Handle};
use ferrocl_runtime::cl::*;
use libloading::Library;
use std::ffi::{c_char, c_void, CString};
use std::ptr::{null, null_mut};

macro_rules! bench_api {
    ($($name:ident : fn($($arg:ty),*) -> $ret:ty;)*) => {
        /// Entry points resolved from `libOpenCL.so.1`; valid while
        /// `_library` lives.
        pub struct Api {
            _library: Library,
            $(pub $name: unsafe extern "C" fn($($arg),*) -> $ret,)*
        }

        impl Api {
            pub fn open() -> Result<Api, String> {
                // SAFETY: the loader's initialisers have no preconditions;
                // `OpenCl::open` has loaded the same library already.
                let library = unsafe { Library::new("libOpenCL.so.1") }
                    .map_err(|e| format!("cannot open libOpenCL.so.1: {e}"))?;
                $(
                    // SAFETY: the signature is the one CL/cl.h declares for
                    // this entry point; the pointer lives no longer than the
                    // library, which the struct owns.
                    let $name = unsafe {
                        *library
                            .get::<unsafe extern "C" fn($($arg),*) -> $ret>(concat!(stringify!($name), "\0").as_bytes())
                            .map_err(|e| format!("libOpenCL.so.1 lacks {}: {e}", stringify!($name)))?
                    };
                )*
                Ok(Api { _library: library, $($name,)* })
            }
        }
    };
}

bench_api! {
    clCreateContext: fn(*const isize, cl_uint, *const Handle, *const c_void, *mut c_void, *mut cl_int) -> Handle;
    clReleaseContext: fn(Handle) -> cl_int;
    clCreateCommandQueueWithProperties: fn(Handle, Handle, *const cl_ulong, *mut cl_int) -> Handle;
    clReleaseCommandQueue: fn(Handle) -> cl_int;
    clCreateBuffer: fn(Handle, cl_bitfield, usize, *mut c_void, *mut cl_int) -> Handle;
    clReleaseMemObject: fn(Handle) -> cl_int;
    clCreateProgramWithSource: fn(Handle, cl_uint, *const *const c_char, *const usize, *mut cl_int) -> Handle;
    clBuildProgram: fn(Handle, cl_uint, *const Handle, *const c_char, *const c_void, *mut c_void) -> cl_int;
    clGetProgramBuildInfo: fn(Handle, Handle, cl_uint, usize, *mut c_void, *mut usize) -> cl_int;
    clReleaseProgram: fn(Handle) -> cl_int;
    clCreateKernel: fn(Handle, *const c_char, *mut cl_int) -> Handle;
    clReleaseKernel: fn(Handle) -> cl_int;
    clSetKernelArg: fn(Handle, cl_uint, usize, *const c_void) -> cl_int;
    clEnqueueNDRangeKernel: fn(Handle, Handle, cl_uint, *const usize, *const usize, *const usize, cl_uint, *const Handle, *mut Handle) -> cl_int;
    clEnqueueWriteBuffer: fn(Handle, Handle, cl_uint, usize, usize, *const c_void, cl_uint, *const Handle, *mut Handle) -> cl_int;
    clEnqueueReadBuffer: fn(Handle, Handle, cl_uint, usize, usize, *mut c_void, cl_uint, *const Handle, *mut Handle) -> cl_int;
    clEnqueueMapBuffer: fn(Handle, Handle, cl_uint, cl_bitfield, usize, usize, cl_uint, *const Handle, *mut Handle, *mut cl_int) -> *mut c_void;
    clEnqueueUnmapMemObject: fn(Handle, Handle, *mut c_void, cl_uint, *const Handle, *mut Handle) -> cl_int;
    clFinish: fn(Handle) -> cl_int;
}

/// A context on one device with an in-order queue.
pub struct Ctx<'a> {
    pub api: &'a Api,
    pub device: Handle,
    pub context: Handle,
    pub queue: Handle,
}

// SAFETY: OpenCL contexts, queues and devices are thread-safe objects (the
// specification makes every API call except clSetKernelArg on one kernel
// safe from any thread); the handles are only passed to the library.
unsafe impl Sync for Ctx<'_> {}

impl<'a> Ctx<'a> {
    pub fn new(api: &'a Api, device: Handle) -> Result<Ctx<'a>, String> {
        let mut err = 0;
        // SAFETY: one device handle from clGetDeviceIDs; no callback.
        let context =
            unsafe { (api.clCreateContext)(null(), 1, &device, null(), null_mut(), &mut err) };
        check(err, "clCreateContext")?;
        let mut ctx = Ctx {
            api,
            device,
            context,
            queue: null_mut(),
        };
        ctx.queue = ctx.new_queue()?;
        Ok(ctx)
    }

    /// Another in-order queue on the same device; the caller releases it
    /// with [`Ctx::release_queue`].
    pub fn new_queue(&self) -> Result<Handle, String> {
        let mut err = 0;
        // SAFETY: live context and device; no properties.
        let queue = unsafe {
            (self.api.clCreateCommandQueueWithProperties)(
                self.context,
                self.device,
                null(),
                &mut err,
            )
        };
        check(err, "clCreateCommandQueueWithProperties")?;
        Ok(queue)
    }

    pub fn release_queue(&self, queue: Handle) {
        // SAFETY: a queue made by `new_queue`, released once.
        unsafe { (self.api.clReleaseCommandQueue)(queue) };
    }

    pub fn finish(&self) -> Result<(), String> {
        self.finish_queue(self.queue)
    }

    pub fn finish_queue(&self, queue: Handle) -> Result<(), String> {
        // SAFETY: a live queue.
        check(unsafe { (self.api.clFinish)(queue) }, "clFinish")
    }

    pub fn buffer(&self, flags: cl_bitfield, bytes: usize) -> Result<Mem<'_>, String> {
        let mut err = 0;
        // SAFETY: no host pointer.
        let handle =
            unsafe { (self.api.clCreateBuffer)(self.context, flags, bytes, null_mut(), &mut err) };
        check(err, "clCreateBuffer")?;
        Ok(Mem {
            ctx: self,
            handle,
            bytes,
        })
    }

    /// A device buffer holding `data`.
    pub fn upload<T: Copy>(&self, data: &[T]) -> Result<Mem<'_>, String> {
        let mem = self.buffer(CL_MEM_READ_WRITE, std::mem::size_of_val(data).max(4))?;
        self.write(&mem, data)?;
        Ok(mem)
    }

    pub fn write<T: Copy>(&self, mem: &Mem<'_>, data: &[T]) -> Result<(), String> {
        let bytes = std::mem::size_of_val(data);
        if bytes > mem.bytes {
            return Err("write past the end of a buffer".into());
        }
        // SAFETY: blocking write of `bytes` bytes from `data`.
        let status = unsafe {
            (self.api.clEnqueueWriteBuffer)(
                self.queue,
                mem.handle,
                CL_TRUE,
                0,
                bytes,
                data.as_ptr().cast(),
                0,
                null(),
                null_mut(),
            )
        };
        check(status, "clEnqueueWriteBuffer")
    }

    pub fn read<T: Copy + Default>(&self, mem: &Mem<'_>, len: usize) -> Result<Vec<T>, String> {
        let mut out = vec![T::default(); len];
        let bytes = std::mem::size_of_val(out.as_slice());
        if bytes > mem.bytes {
            return Err("read past the end of a buffer".into());
        }
        // SAFETY: blocking read of `bytes` bytes into `out`.
        let status = unsafe {
            (self.api.clEnqueueReadBuffer)(
                self.queue,
                mem.handle,
                CL_TRUE,
                0,
                bytes,
                out.as_mut_ptr().cast(),
                0,
                null(),
                null_mut(),
            )
        };
        check(status, "clEnqueueReadBuffer")?;
        Ok(out)
    }

    /// Builds `source` with `options`; the build log is in the error.
    pub fn program(&self, source: &str, options: &str) -> Result<Program<'_>, String> {
        let api = self.api;
        let mut err = 0;
        let ptr = source.as_ptr() as *const c_char;
        let len = source.len();
        // SAFETY: pointer and length describe `source`.
        let handle =
            unsafe { (api.clCreateProgramWithSource)(self.context, 1, &ptr, &len, &mut err) };
        check(err, "clCreateProgramWithSource")?;
        let program = Program { ctx: self, handle };
        let options = CString::new(options).map_err(|e| e.to_string())?;
        // SAFETY: live program and device; NUL-terminated options.
        let status = unsafe {
            (api.clBuildProgram)(
                handle,
                1,
                &self.device,
                options.as_ptr(),
                null(),
                null_mut(),
            )
        };
        if status != CL_SUCCESS {
            return Err(format!(
                "{}\n{}",
                cl_error("clBuildProgram", status),
                program.build_log()
            ));
        }
        Ok(program)
    }

    /// Enqueues `kernel` over `global` (and `local` when given).
    pub fn run(
        &self,
        kernel: &Kernel<'_>,
        global: &[usize],
        local: Option<&[usize]>,
    ) -> Result<(), String> {
        self.run_on(self.queue, kernel, global, local)
    }

    pub fn run_on(
        &self,
        queue: Handle,
        kernel: &Kernel<'_>,
        global: &[usize],
        local: Option<&[usize]>,
    ) -> Result<(), String> {
        if let Some(local) = local {
            if local.len() != global.len() {
                return Err("local and global sizes differ in dimensions".into());
            }
        }
        // SAFETY: `global` (and `local`) hold work_dim values.
        let status = unsafe {
            (self.api.clEnqueueNDRangeKernel)(
                queue,
                kernel.handle,
                global.len() as cl_uint,
                null(),
                global.as_ptr(),
                local.map_or(null(), |l| l.as_ptr()),
                0,
                null(),
                null_mut(),
            )
        };
        check(status, "clEnqueueNDRangeKernel")
    }
}

impl Drop for Ctx<'_> {
    fn drop(&mut self) {
        // SAFETY: both handles are ours; every object made from them is
        // released already (they borrow the context).
        unsafe {
            (self.api.clReleaseCommandQueue)(self.queue);
            (self.api.clReleaseContext)(self.context);
        }
    }
}

pub struct Mem<'c> {
    pub ctx: &'c Ctx<'c>,
    pub handle: Handle,
    pub bytes: usize,
}

impl Drop for Mem<'_> {
    fn drop(&mut self) {
        // SAFETY: the handle is ours.
        unsafe { (self.ctx.api.clReleaseMemObject)(self.handle) };
    }
}

pub struct Program<'c> {
    ctx: &'c Ctx<'c>,
    handle: Handle,
}

impl<'c> Program<'c> {
    pub fn kernel(&self, name: &str) -> Result<Kernel<'c>, String> {
        let cname = CString::new(name).map_err(|e| e.to_string())?;
        let mut err = 0;
        // SAFETY: live program; NUL-terminated name.
        let handle =
            unsafe { (self.ctx.api.clCreateKernel)(self.handle, cname.as_ptr(), &mut err) };
        check(err, &format!("clCreateKernel({name})"))?;
        Ok(Kernel {
            ctx: self.ctx,
            handle,
        })
    }

    fn build_log(&self) -> String {
        let api = self.ctx.api;
        let mut size = 0;
        // SAFETY: the size query, then a buffer of that size.
        unsafe {
            (api.clGetProgramBuildInfo)(
                self.handle,
                self.ctx.device,
                CL_PROGRAM_BUILD_LOG,
                0,
                null_mut(),
                &mut size,
            );
            let mut log = vec![0u8; size];
            (api.clGetProgramBuildInfo)(
                self.handle,
                self.ctx.device,
                CL_PROGRAM_BUILD_LOG,
                size,
                log.as_mut_ptr().cast(),
                null_mut(),
            );
            String::from_utf8_lossy(&log)
                .trim_end_matches('\0')
                .to_string()
        }
    }
}

impl Drop for Program<'_> {
    fn drop(&mut self) {
        // SAFETY: the handle is ours; kernels hold their own reference.
        unsafe { (self.ctx.api.clReleaseProgram)(self.handle) };
    }
}

pub struct Kernel<'c> {
    ctx: &'c Ctx<'c>,
    handle: Handle,
}

// SAFETY: a kernel object may be used from another thread as long as no two
// threads set its arguments at once; each benchmark thread owns its kernel.
unsafe impl Send for Kernel<'_> {}

impl Kernel<'_> {
    fn set(&self, index: u32, size: usize, value: *const c_void) -> Result<(), String> {
        // SAFETY: `value` is NULL (a __local size) or points to `size`
        // readable bytes.
        let status = unsafe { (self.ctx.api.clSetKernelArg)(self.handle, index, size, value) };
        check(status, &format!("clSetKernelArg({index})"))
    }

    pub fn mem(&self, index: u32, mem: &Mem<'_>) -> Result<(), String> {
        self.set(
            index,
            std::mem::size_of::<Handle>(),
            (&mem.handle as *const Handle).cast(),
        )
    }

    /// A by-value argument of a plain type (`uint`, `float`, ...).
    pub fn value<T: Copy>(&self, index: u32, value: T) -> Result<(), String> {
        self.set(index, std::mem::size_of::<T>(), (&value as *const T).cast())
    }

    pub fn local(&self, index: u32, bytes: usize) -> Result<(), String> {
        self.set(index, bytes, null())
    }
}

impl Drop for Kernel<'_> {
    fn drop(&mut self) {
        // SAFETY: the handle is ours.
        unsafe { (self.ctx.api.clReleaseKernel)(self.handle) };
    }
}
