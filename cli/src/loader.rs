//! The system OpenCL loader (`libOpenCL.so.1`), opened at run time: the
//! entry points `ferrocl demo` calls, exactly as any OpenCL application
//! reaches whichever platforms the loader finds.

#![allow(non_snake_case)]

use ferrocl_runtime::cl::*;
use libloading::Library;
use std::ffi::{c_char, c_void, CString};
use std::ptr::{null, null_mut};

pub type Handle = *mut c_void;

macro_rules! loader_api {
    ($($name:ident : fn($($arg:ty),*) -> $ret:ty;)*) => {
        /// Entry points resolved from the loader; valid while `_library`
        /// lives.
        pub struct OpenCl {
            _library: Library,
            $(pub $name: unsafe extern "C" fn($($arg),*) -> $ret,)*
        }

        impl OpenCl {
            fn resolve(library: Library) -> Result<OpenCl, String> {
                $(
                    // SAFETY: the signature is the one CL/cl.h declares for
                    // this entry point; the pointer is kept no longer than
                    // the library (both live in the returned struct).
                    let $name = unsafe {
                        *library
                            .get::<unsafe extern "C" fn($($arg),*) -> $ret>(concat!(stringify!($name), "\0").as_bytes())
                            .map_err(|e| format!("libOpenCL.so.1 lacks {}: {e}", stringify!($name)))?
                    };
                )*
                Ok(OpenCl { _library: library, $($name,)* })
            }
        }
    };
}

loader_api! {
    clGetPlatformIDs: fn(cl_uint, *mut Handle, *mut cl_uint) -> cl_int;
    clGetPlatformInfo: fn(Handle, cl_uint, usize, *mut c_void, *mut usize) -> cl_int;
    clGetDeviceIDs: fn(Handle, cl_bitfield, cl_uint, *mut Handle, *mut cl_uint) -> cl_int;
    clGetDeviceInfo: fn(Handle, cl_uint, usize, *mut c_void, *mut usize) -> cl_int;
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
    clFinish: fn(Handle) -> cl_int;
}

/// A failed OpenCL call: which one, and its status.
pub fn cl_error(what: &str, code: cl_int) -> String {
    format!("{what} failed with error {code}")
}

pub fn check(code: cl_int, what: &str) -> Result<(), String> {
    if code == CL_SUCCESS {
        Ok(())
    } else {
        Err(cl_error(what, code))
    }
}

impl OpenCl {
    /// Opens the system loader.
    pub fn open() -> Result<OpenCl, String> {
        // SAFETY: the OpenCL loader's initialisers have no preconditions.
        let library = unsafe { Library::new("libOpenCL.so.1") }.map_err(|e| {
            format!(
                "cannot open the OpenCL loader libOpenCL.so.1 (install ocl-icd-libopencl1): {e}"
            )
        })?;
        OpenCl::resolve(library)
    }

    pub fn platforms(&self) -> Result<Vec<Handle>, String> {
        let mut count = 0;
        // SAFETY: count is a live cl_uint; the second call writes `count`
        // handles into a vector of that length.
        unsafe {
            let status = (self.clGetPlatformIDs)(0, null_mut(), &mut count);
            // ocl-icd answers CL_PLATFORM_NOT_FOUND_KHR (-1001) when no ICD
            // loads: no platforms.
            if status == -1001 {
                return Ok(Vec::new());
            }
            check(status, "clGetPlatformIDs")?;
            let mut platforms = vec![null_mut(); count as usize];
            check(
                (self.clGetPlatformIDs)(count, platforms.as_mut_ptr(), null_mut()),
                "clGetPlatformIDs",
            )?;
            Ok(platforms)
        }
    }

    pub fn platform_string(&self, platform: Handle, param: cl_uint) -> Result<String, String> {
        self.string(|size, ptr, ret| {
            // SAFETY: forwarded size/pointer pair from `string`.
            unsafe { (self.clGetPlatformInfo)(platform, param, size, ptr, ret) }
        })
    }

    pub fn device_string(&self, device: Handle, param: cl_uint) -> Result<String, String> {
        self.string(|size, ptr, ret| {
            // SAFETY: forwarded size/pointer pair from `string`.
            unsafe { (self.clGetDeviceInfo)(device, param, size, ptr, ret) }
        })
    }

    fn string(
        &self,
        query: impl Fn(usize, *mut c_void, *mut usize) -> cl_int,
    ) -> Result<String, String> {
        let mut size = 0;
        check(query(0, null_mut(), &mut size), "string query")?;
        let mut bytes = vec![0u8; size];
        check(
            query(size, bytes.as_mut_ptr() as *mut c_void, null_mut()),
            "string query",
        )?;
        while bytes.last() == Some(&0) {
            bytes.pop();
        }
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// A fixed-size device query (`cl_uint`, `cl_ulong`, `size_t`, ...).
    pub fn device_value<T: Copy + Default>(
        &self,
        device: Handle,
        param: cl_uint,
    ) -> Result<T, String> {
        let mut value = T::default();
        // SAFETY: the destination holds size_of::<T>() bytes.
        let status = unsafe {
            (self.clGetDeviceInfo)(
                device,
                param,
                std::mem::size_of::<T>(),
                &mut value as *mut T as *mut c_void,
                null_mut(),
            )
        };
        check(status, "clGetDeviceInfo")?;
        Ok(value)
    }

    pub fn devices(&self, platform: Handle) -> Result<Vec<Handle>, String> {
        let mut count = 0;
        // SAFETY: as in `platforms`.
        unsafe {
            let status =
                (self.clGetDeviceIDs)(platform, CL_DEVICE_TYPE_ALL, 0, null_mut(), &mut count);
            if status == CL_DEVICE_NOT_FOUND {
                return Ok(Vec::new());
            }
            check(status, "clGetDeviceIDs")?;
            let mut devices = vec![null_mut(); count as usize];
            check(
                (self.clGetDeviceIDs)(
                    platform,
                    CL_DEVICE_TYPE_ALL,
                    count,
                    devices.as_mut_ptr(),
                    null_mut(),
                ),
                "clGetDeviceIDs",
            )?;
            Ok(devices)
        }
    }
}

/// A context and in-order queue on one device, with the objects made from
/// them released on drop.
pub struct Session<'a> {
    pub cl: &'a OpenCl,
    pub device: Handle,
    pub context: Handle,
    pub queue: Handle,
}

impl<'a> Session<'a> {
    pub fn new(cl: &'a OpenCl, device: Handle) -> Result<Session<'a>, String> {
        let mut err = 0;
        // SAFETY: one device handle from clGetDeviceIDs; no callback.
        unsafe {
            let context = (cl.clCreateContext)(null(), 1, &device, null(), null_mut(), &mut err);
            check(err, "clCreateContext")?;
            let queue = (cl.clCreateCommandQueueWithProperties)(context, device, null(), &mut err);
            if err != CL_SUCCESS {
                (cl.clReleaseContext)(context);
                return Err(cl_error("clCreateCommandQueueWithProperties", err));
            }
            Ok(Session {
                cl,
                device,
                context,
                queue,
            })
        }
    }

    /// Builds `source` and returns its kernel `name`; the build log is in the
    /// error on failure.
    pub fn kernel(&self, source: &str, name: &str) -> Result<Kernel<'_>, String> {
        let cl = self.cl;
        let mut err = 0;
        // SAFETY: pointer/length describe `source`; strings are
        // NUL-terminated; the program is released on every path.
        unsafe {
            let ptr = source.as_ptr() as *const c_char;
            let len = source.len();
            let program = (cl.clCreateProgramWithSource)(self.context, 1, &ptr, &len, &mut err);
            check(err, "clCreateProgramWithSource")?;
            let status =
                (cl.clBuildProgram)(program, 1, &self.device, c"".as_ptr(), null(), null_mut());
            if status != CL_SUCCESS {
                let mut size = 0;
                (cl.clGetProgramBuildInfo)(
                    program,
                    self.device,
                    CL_PROGRAM_BUILD_LOG,
                    0,
                    null_mut(),
                    &mut size,
                );
                let mut log = vec![0u8; size];
                (cl.clGetProgramBuildInfo)(
                    program,
                    self.device,
                    CL_PROGRAM_BUILD_LOG,
                    size,
                    log.as_mut_ptr() as *mut c_void,
                    null_mut(),
                );
                (cl.clReleaseProgram)(program);
                return Err(format!(
                    "{}\n{}",
                    cl_error("clBuildProgram", status),
                    String::from_utf8_lossy(&log).trim_end_matches('\0')
                ));
            }
            let cname = CString::new(name).map_err(|e| e.to_string())?;
            let kernel = (cl.clCreateKernel)(program, cname.as_ptr(), &mut err);
            // The kernel holds its own reference to the program.
            (cl.clReleaseProgram)(program);
            check(err, "clCreateKernel")?;
            Ok(Kernel {
                session: self,
                handle: kernel,
            })
        }
    }

    pub fn buffer(&self, bytes: usize) -> Result<Buffer<'_>, String> {
        let mut err = 0;
        // SAFETY: no host pointer.
        let handle = unsafe {
            (self.cl.clCreateBuffer)(self.context, CL_MEM_READ_WRITE, bytes, null_mut(), &mut err)
        };
        check(err, "clCreateBuffer")?;
        Ok(Buffer {
            session: self,
            handle,
            bytes,
        })
    }

    pub fn write_f32(&self, buffer: &Buffer<'_>, data: &[f32]) -> Result<(), String> {
        let bytes = std::mem::size_of_val(data);
        if bytes > buffer.bytes {
            return Err("write past the end of a buffer".into());
        }
        // SAFETY: blocking write of `bytes` bytes from `data`.
        let status = unsafe {
            (self.cl.clEnqueueWriteBuffer)(
                self.queue,
                buffer.handle,
                CL_TRUE,
                0,
                bytes,
                data.as_ptr() as *const c_void,
                0,
                null(),
                null_mut(),
            )
        };
        check(status, "clEnqueueWriteBuffer")
    }

    pub fn read_f32(&self, buffer: &Buffer<'_>, len: usize) -> Result<Vec<f32>, String> {
        let mut out = vec![0f32; len];
        let bytes = std::mem::size_of_val(out.as_slice());
        if bytes > buffer.bytes {
            return Err("read past the end of a buffer".into());
        }
        // SAFETY: blocking read of `bytes` bytes into `out`.
        let status = unsafe {
            (self.cl.clEnqueueReadBuffer)(
                self.queue,
                buffer.handle,
                CL_TRUE,
                0,
                bytes,
                out.as_mut_ptr() as *mut c_void,
                0,
                null(),
                null_mut(),
            )
        };
        check(status, "clEnqueueReadBuffer")?;
        Ok(out)
    }

    pub fn run(
        &self,
        kernel: &Kernel<'_>,
        global: &[usize],
        local: Option<&[usize]>,
    ) -> Result<(), String> {
        // SAFETY: `global` (and `local` when present) hold work_dim values.
        let status = unsafe {
            (self.cl.clEnqueueNDRangeKernel)(
                self.queue,
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

    pub fn finish(&self) -> Result<(), String> {
        // SAFETY: the queue is live.
        check(unsafe { (self.cl.clFinish)(self.queue) }, "clFinish")
    }
}

impl Drop for Session<'_> {
    fn drop(&mut self) {
        // SAFETY: both handles are ours; kernels and buffers borrow the
        // session and are gone already.
        unsafe {
            (self.cl.clReleaseCommandQueue)(self.queue);
            (self.cl.clReleaseContext)(self.context);
        }
    }
}

pub struct Kernel<'s> {
    session: &'s Session<'s>,
    handle: Handle,
}

impl Kernel<'_> {
    pub fn arg_buffer(&self, index: u32, buffer: &Buffer<'_>) -> Result<(), String> {
        // SAFETY: a cl_mem argument is a pointer to the handle.
        let status = unsafe {
            (self.session.cl.clSetKernelArg)(
                self.handle,
                index,
                std::mem::size_of::<Handle>(),
                &buffer.handle as *const Handle as *const c_void,
            )
        };
        check(status, "clSetKernelArg")
    }

    pub fn arg_u32(&self, index: u32, value: u32) -> Result<(), String> {
        // SAFETY: 4 bytes from a live u32.
        let status = unsafe {
            (self.session.cl.clSetKernelArg)(
                self.handle,
                index,
                4,
                &value as *const u32 as *const c_void,
            )
        };
        check(status, "clSetKernelArg")
    }

    pub fn arg_local(&self, index: u32, bytes: usize) -> Result<(), String> {
        // SAFETY: NULL with a size is the form for a __local argument.
        let status = unsafe { (self.session.cl.clSetKernelArg)(self.handle, index, bytes, null()) };
        check(status, "clSetKernelArg")
    }
}

impl Drop for Kernel<'_> {
    fn drop(&mut self) {
        // SAFETY: the handle is ours.
        unsafe { (self.session.cl.clReleaseKernel)(self.handle) };
    }
}

pub struct Buffer<'s> {
    session: &'s Session<'s>,
    handle: Handle,
    bytes: usize,
}

impl Drop for Buffer<'_> {
    fn drop(&mut self) {
        // SAFETY: the handle is ours.
        unsafe { (self.session.cl.clReleaseMemObject)(self.handle) };
    }
}
