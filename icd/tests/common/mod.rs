//! How the execution tests reach ferrocl: the built `libferrocl.so` is opened
//! with libloading and every `cl*` entry point is resolved by name, exactly as
//! a C program linked against the library would see it.
//!
//! Tests hold one process-wide lock while they use the device, so that a
//! Vulkan validation message is charged to the test that caused it.
//!
//! The tests that call the rlib's entry points directly (api.rs and the
//! image API and transfer tests) share [`rlib`] instead.

#![allow(dead_code, non_snake_case)]

use ferrocl_runtime::cl::*;
use libloading::Library;
use std::ffi::{c_char, c_void, CString};
use std::path::PathBuf;
use std::ptr::{null, null_mut};
use std::sync::{Mutex, MutexGuard, OnceLock};

pub type Handle = *mut c_void;

type NotifyFn = Option<unsafe extern "C" fn(Handle, *mut c_void)>;

macro_rules! cl_api {
    ($($name:ident : fn($($arg:ty),*) -> $ret:ty;)*) => {
        /// The entry points of libferrocl.so that the tests call.
        pub struct Api {
            $(pub $name: unsafe extern "C" fn($($arg),*) -> $ret,)*
        }

        impl Api {
            fn load(lib: &'static Library) -> Result<Api, String> {
                Ok(Api {
                    $($name: {
                        let name = concat!(stringify!($name), "\0");
                        // SAFETY: the type is the one the OpenCL headers
                        // declare for this entry point; the library lives in
                        // a static for the whole process.
                        let symbol = unsafe {
                            lib.get::<unsafe extern "C" fn($($arg),*) -> $ret>(name.as_bytes())
                        };
                        *symbol.map_err(|e| format!("{}: {e}", stringify!($name)))?
                    },)*
                })
            }
        }
    };
}

cl_api! {
    clGetPlatformIDs: fn(cl_uint, *mut Handle, *mut cl_uint) -> cl_int;
    clGetPlatformInfo: fn(Handle, cl_uint, usize, *mut c_void, *mut usize) -> cl_int;
    clGetExtensionFunctionAddressForPlatform: fn(Handle, *const c_char) -> *mut c_void;
    clGetDeviceIDs: fn(Handle, cl_bitfield, cl_uint, *mut Handle, *mut cl_uint) -> cl_int;
    clGetDeviceInfo: fn(Handle, cl_uint, usize, *mut c_void, *mut usize) -> cl_int;
    clCreateContext: fn(*const isize, cl_uint, *const Handle, Option<unsafe extern "C" fn(*const c_char, *const c_void, usize, *mut c_void)>, *mut c_void, *mut cl_int) -> Handle;
    clReleaseContext: fn(Handle) -> cl_int;
    clCreateCommandQueueWithProperties: fn(Handle, Handle, *const cl_ulong, *mut cl_int) -> Handle;
    clReleaseCommandQueue: fn(Handle) -> cl_int;
    clCreateBuffer: fn(Handle, cl_bitfield, usize, *mut c_void, *mut cl_int) -> Handle;
    clCreateSubBuffer: fn(Handle, cl_bitfield, cl_uint, *const c_void, *mut cl_int) -> Handle;
    clCreateBufferWithProperties: fn(Handle, *const cl_ulong, cl_bitfield, usize, *mut c_void, *mut cl_int) -> Handle;
    clGetMemObjectInfo: fn(Handle, cl_uint, usize, *mut c_void, *mut usize) -> cl_int;
    clSetKernelExecInfo: fn(Handle, cl_uint, usize, *const c_void) -> cl_int;
    clReleaseMemObject: fn(Handle) -> cl_int;
    clCreateProgramWithSource: fn(Handle, cl_uint, *const *const c_char, *const usize, *mut cl_int) -> Handle;
    clBuildProgram: fn(Handle, cl_uint, *const Handle, *const c_char, NotifyFn, *mut c_void) -> cl_int;
    clGetProgramBuildInfo: fn(Handle, Handle, cl_uint, usize, *mut c_void, *mut usize) -> cl_int;
    clReleaseProgram: fn(Handle) -> cl_int;
    clCreateKernel: fn(Handle, *const c_char, *mut cl_int) -> Handle;
    clReleaseKernel: fn(Handle) -> cl_int;
    clSetKernelArg: fn(Handle, cl_uint, usize, *const c_void) -> cl_int;
    clGetKernelWorkGroupInfo: fn(Handle, Handle, cl_uint, usize, *mut c_void, *mut usize) -> cl_int;
    clEnqueueNDRangeKernel: fn(Handle, Handle, cl_uint, *const usize, *const usize, *const usize, cl_uint, *const Handle, *mut Handle) -> cl_int;
    clEnqueueWriteBuffer: fn(Handle, Handle, cl_uint, usize, usize, *const c_void, cl_uint, *const Handle, *mut Handle) -> cl_int;
    clEnqueueReadBuffer: fn(Handle, Handle, cl_uint, usize, usize, *mut c_void, cl_uint, *const Handle, *mut Handle) -> cl_int;
    clEnqueueFillBuffer: fn(Handle, Handle, *const c_void, usize, usize, usize, cl_uint, *const Handle, *mut Handle) -> cl_int;
    clEnqueueMapBuffer: fn(Handle, Handle, cl_uint, cl_bitfield, usize, usize, cl_uint, *const Handle, *mut Handle, *mut cl_int) -> *mut c_void;
    clFinish: fn(Handle) -> cl_int;
    clFlush: fn(Handle) -> cl_int;
    clCloneKernel: fn(Handle, *mut cl_int) -> Handle;
    clCreateUserEvent: fn(Handle, *mut cl_int) -> Handle;
    clSetUserEventStatus: fn(Handle, cl_int) -> cl_int;
    clSetEventCallback: fn(Handle, cl_int, Option<unsafe extern "C" fn(Handle, cl_int, *mut c_void)>, *mut c_void) -> cl_int;
    clWaitForEvents: fn(cl_uint, *const Handle) -> cl_int;
    clGetEventInfo: fn(Handle, cl_uint, usize, *mut c_void, *mut usize) -> cl_int;
    clReleaseEvent: fn(Handle) -> cl_int;
    clRetainEvent: fn(Handle) -> cl_int;
    clEnqueueMarkerWithWaitList: fn(Handle, cl_uint, *const Handle, *mut Handle) -> cl_int;
    clCreateImage: fn(Handle, cl_bitfield, *const ImageFormat, *const ImageDesc, *mut c_void, *mut cl_int) -> Handle;
    clGetSupportedImageFormats: fn(Handle, cl_bitfield, cl_uint, cl_uint, *mut ImageFormat, *mut cl_uint) -> cl_int;
    clGetImageInfo: fn(Handle, cl_uint, usize, *mut c_void, *mut usize) -> cl_int;
    clEnqueueReadImage: fn(Handle, Handle, cl_uint, *const usize, *const usize, usize, usize, *mut c_void, cl_uint, *const Handle, *mut Handle) -> cl_int;
    clEnqueueWriteImage: fn(Handle, Handle, cl_uint, *const usize, *const usize, usize, usize, *const c_void, cl_uint, *const Handle, *mut Handle) -> cl_int;
    clEnqueueMapImage: fn(Handle, Handle, cl_uint, cl_bitfield, *const usize, *const usize, *mut usize, *mut usize, cl_uint, *const Handle, *mut Handle, *mut cl_int) -> *mut c_void;
    clEnqueueUnmapMemObject: fn(Handle, Handle, *mut c_void, cl_uint, *const Handle, *mut Handle) -> cl_int;
    clCreateSamplerWithProperties: fn(Handle, *const u64, *mut cl_int) -> Handle;
    clReleaseSampler: fn(Handle) -> cl_int;
    ferrocl_validation_message_count: fn() -> usize;
}

/// `cl_image_format`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageFormat {
    pub order: cl_uint,
    pub ty: cl_uint,
}

/// `cl_image_desc`; `buffer` is its `mem_object`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ImageDesc {
    pub image_type: cl_uint,
    pub width: usize,
    pub height: usize,
    pub depth: usize,
    pub array_size: usize,
    pub row_pitch: usize,
    pub slice_pitch: usize,
    pub num_mip_levels: cl_uint,
    pub num_samples: cl_uint,
    pub buffer: Handle,
}

/// The directory of the library: the test executable lives in
/// `target/<profile>/deps/`. `cargo test` builds `libferrocl.so` there
/// and copies it one level up only on `cargo build`, so the copy beside the
/// test is the one built from the code under test; the one above is used
/// when no library sits beside the test.
pub fn library_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("path of the test executable");
    let deps = exe.parent().expect("test executable has a directory");
    if deps.join("libferrocl.so").exists() {
        return deps.to_path_buf();
    }
    deps.parent().unwrap_or(deps).to_path_buf()
}

/// Absolute path of the built `libferrocl.so`.
pub fn library_path() -> PathBuf {
    library_dir().join("libferrocl.so")
}

/// The entry points, loaded once per process (with the validation layer
/// chosen first).
pub fn api() -> &'static Api {
    static LIBRARY: OnceLock<Library> = OnceLock::new();
    static API: OnceLock<Api> = OnceLock::new();
    API.get_or_init(|| {
        // The validation layer must be chosen before the library creates its
        // Vulkan instance, so the variable is set before the library is even
        // loaded, once, while every other test thread waits on this OnceLock.
        // A value already set (e.g. `sync` for synchronization validation)
        // is kept.
        let chosen = std::env::var_os("FERROCL_VALIDATION");
        if !matches!(chosen, Some(v) if !v.is_empty() && v != "0") {
            std::env::set_var("FERROCL_VALIDATION", "1");
        }
        let path = library_path();
        let lib = LIBRARY.get_or_init(|| {
            // SAFETY: loading ferrocl runs no initialisers with preconditions.
            unsafe { Library::new(&path) }
                .unwrap_or_else(|e| panic!("cannot load {}: {e}", path.display()))
        });
        Api::load(lib).unwrap_or_else(|e| panic!("{} lacks a symbol: {e}", path.display()))
    })
}

/// The name of an OpenCL error code, for messages.
pub fn error_name(code: cl_int) -> String {
    let name = match code {
        CL_SUCCESS => "CL_SUCCESS",
        CL_DEVICE_NOT_FOUND => "CL_DEVICE_NOT_FOUND",
        CL_COMPILER_NOT_AVAILABLE => "CL_COMPILER_NOT_AVAILABLE",
        CL_MEM_OBJECT_ALLOCATION_FAILURE => "CL_MEM_OBJECT_ALLOCATION_FAILURE",
        CL_OUT_OF_RESOURCES => "CL_OUT_OF_RESOURCES",
        CL_OUT_OF_HOST_MEMORY => "CL_OUT_OF_HOST_MEMORY",
        CL_BUILD_PROGRAM_FAILURE => "CL_BUILD_PROGRAM_FAILURE",
        CL_INVALID_VALUE => "CL_INVALID_VALUE",
        CL_INVALID_PLATFORM => "CL_INVALID_PLATFORM",
        CL_INVALID_DEVICE => "CL_INVALID_DEVICE",
        CL_INVALID_CONTEXT => "CL_INVALID_CONTEXT",
        CL_INVALID_COMMAND_QUEUE => "CL_INVALID_COMMAND_QUEUE",
        CL_INVALID_MEM_OBJECT => "CL_INVALID_MEM_OBJECT",
        CL_INVALID_BUILD_OPTIONS => "CL_INVALID_BUILD_OPTIONS",
        CL_INVALID_PROGRAM => "CL_INVALID_PROGRAM",
        CL_INVALID_PROGRAM_EXECUTABLE => "CL_INVALID_PROGRAM_EXECUTABLE",
        CL_INVALID_KERNEL_NAME => "CL_INVALID_KERNEL_NAME",
        CL_INVALID_KERNEL => "CL_INVALID_KERNEL",
        CL_INVALID_ARG_INDEX => "CL_INVALID_ARG_INDEX",
        CL_INVALID_ARG_VALUE => "CL_INVALID_ARG_VALUE",
        CL_INVALID_ARG_SIZE => "CL_INVALID_ARG_SIZE",
        CL_INVALID_KERNEL_ARGS => "CL_INVALID_KERNEL_ARGS",
        CL_INVALID_WORK_DIMENSION => "CL_INVALID_WORK_DIMENSION",
        CL_INVALID_WORK_GROUP_SIZE => "CL_INVALID_WORK_GROUP_SIZE",
        CL_INVALID_WORK_ITEM_SIZE => "CL_INVALID_WORK_ITEM_SIZE",
        CL_INVALID_GLOBAL_OFFSET => "CL_INVALID_GLOBAL_OFFSET",
        CL_INVALID_OPERATION => "CL_INVALID_OPERATION",
        CL_INVALID_BUFFER_SIZE => "CL_INVALID_BUFFER_SIZE",
        CL_INVALID_GLOBAL_WORK_SIZE => "CL_INVALID_GLOBAL_WORK_SIZE",
        CL_INVALID_PROPERTY => "CL_INVALID_PROPERTY",
        _ => "",
    };
    if name.is_empty() {
        format!("error {code}")
    } else {
        format!("{name} ({code})")
    }
}

#[track_caller]
pub fn check(code: cl_int, what: &str) {
    assert_eq!(code, CL_SUCCESS, "{what} failed: {}", error_name(code));
}

/// Plain data that may be copied to and from device buffers byte for byte.
///
/// # Safety
/// Implementors have no padding bytes and accept every bit pattern.
pub unsafe trait Pod: Copy + 'static {}

macro_rules! pod {
    ($($t:ty),*) => { $(
        // SAFETY: primitive numbers have no padding and no invalid values.
        unsafe impl Pod for $t {}
    )* };
}
pod!(u8, i8, u16, i16, u32, i32, u64, i64, f32, f64);
// SAFETY: arrays of Pod have no padding between elements.
unsafe impl<T: Pod, const N: usize> Pod for [T; N] {}

pub fn as_bytes<T: Pod>(data: &[T]) -> &[u8] {
    // SAFETY: Pod has no padding; the length covers exactly the slice.
    unsafe { std::slice::from_raw_parts(data.as_ptr() as *const u8, std::mem::size_of_val(data)) }
}

/// One test's view of the device: platform, first device, context and an
/// in-order queue. Dropping it releases everything and then checks that the
/// Vulkan validation layer said nothing while the test ran.
pub struct Gpu {
    pub api: &'static Api,
    pub platform: Handle,
    pub device: Handle,
    pub context: Handle,
    pub queue: Handle,
    validation_before: usize,
    _serial: MutexGuard<'static, ()>,
}

impl Gpu {
    pub fn new() -> Gpu {
        static SERIAL: Mutex<()> = Mutex::new(());
        let serial = SERIAL
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let api = api();
        // SAFETY: every call below passes pointers to live locals of the
        // sizes the spec requires.
        unsafe {
            let validation_before = (api.ferrocl_validation_message_count)();
            let mut platform = null_mut();
            let mut count = 0;
            check(
                (api.clGetPlatformIDs)(1, &mut platform, &mut count),
                "clGetPlatformIDs",
            );
            assert!(count >= 1, "ferrocl reports no platform");
            let mut device = null_mut();
            check(
                (api.clGetDeviceIDs)(platform, CL_DEVICE_TYPE_ALL, 1, &mut device, &mut count),
                "clGetDeviceIDs",
            );
            assert!(
                count >= 1,
                "ferrocl reports no device (is lavapipe installed?)"
            );
            let mut err = 0;
            let context = (api.clCreateContext)(null(), 1, &device, None, null_mut(), &mut err);
            check(err, "clCreateContext");
            assert!(!context.is_null());
            let queue = (api.clCreateCommandQueueWithProperties)(context, device, null(), &mut err);
            check(err, "clCreateCommandQueueWithProperties");
            assert!(!queue.is_null());
            Gpu {
                api,
                platform,
                device,
                context,
                queue,
                validation_before,
                _serial: serial,
            }
        }
    }

    /// Builds `source` with `options`: the program, or the status of
    /// clBuildProgram and the build log.
    pub fn try_program(
        &self,
        source: &str,
        options: &str,
    ) -> Result<Program<'_>, (cl_int, String)> {
        let api = self.api;
        let options = CString::new(options).expect("options without NUL");
        // SAFETY: the source pointer and length describe `source`; options is
        // NUL-terminated; the device list holds our one device.
        unsafe {
            let ptr = source.as_ptr() as *const c_char;
            let len = source.len();
            let mut err = 0;
            let program = (api.clCreateProgramWithSource)(self.context, 1, &ptr, &len, &mut err);
            check(err, "clCreateProgramWithSource");
            let program = Program {
                gpu: self,
                handle: program,
            };
            let status = (api.clBuildProgram)(
                program.handle,
                1,
                &self.device,
                options.as_ptr(),
                None,
                null_mut(),
            );
            if status == CL_SUCCESS {
                Ok(program)
            } else {
                Err((status, program.build_log()))
            }
        }
    }

    /// Builds `source` with `options`; a failed build panics with the log.
    #[track_caller]
    pub fn program(&self, source: &str, options: &str) -> Program<'_> {
        match self.try_program(source, options) {
            Ok(program) => program,
            Err((status, log)) => panic!(
                "clBuildProgram failed: {}\n--- build log ---\n{log}",
                error_name(status)
            ),
        }
    }

    /// Builds `source` and creates the kernel `name` from it.
    #[track_caller]
    pub fn kernel(&self, source: &str, name: &str) -> Kernel<'_> {
        self.kernel_with_options(source, name, "")
    }

    #[track_caller]
    pub fn kernel_with_options(&self, source: &str, name: &str, options: &str) -> Kernel<'_> {
        let program = self.program(source, options);
        program.kernel(name)
    }

    /// A read-write buffer holding a copy of `data`, written with
    /// clEnqueueWriteBuffer.
    #[track_caller]
    pub fn buffer<T: Pod>(&self, data: &[T]) -> Buffer<'_> {
        let buffer = self.buffer_bytes(std::mem::size_of_val(data).max(1));
        self.write(&buffer, data);
        buffer
    }

    /// `clCreateBufferWithProperties` of a read-write buffer of `bytes`
    /// bytes from the 0-terminated property list `props`, without a host
    /// pointer; fails the test (naming `what`) on an error.
    #[track_caller]
    pub fn buffer_with_properties(&self, props: &[u64], bytes: usize, what: &str) -> Handle {
        let mut err = 0;
        // SAFETY: a 0-terminated property list; no host pointer.
        let mem = unsafe {
            (self.api.clCreateBufferWithProperties)(
                self.context,
                props.as_ptr(),
                CL_MEM_READ_WRITE,
                bytes,
                null_mut(),
                &mut err,
            )
        };
        check(err, what);
        mem
    }

    /// A read-write buffer of `len` elements of `T`, all zero.
    #[track_caller]
    pub fn zeroed<T: Pod>(&self, len: usize) -> Buffer<'_> {
        let bytes = vec![0u8; len * std::mem::size_of::<T>()];
        self.buffer(&bytes)
    }

    /// A buffer made with CL_MEM_COPY_HOST_PTR.
    #[track_caller]
    pub fn buffer_copy_host<T: Pod>(&self, data: &[T]) -> Buffer<'_> {
        let bytes = as_bytes(data);
        let mut err = 0;
        // SAFETY: the host pointer covers `size` bytes and is only read.
        let handle = unsafe {
            (self.api.clCreateBuffer)(
                self.context,
                CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                bytes.len(),
                bytes.as_ptr() as *mut c_void,
                &mut err,
            )
        };
        check(err, "clCreateBuffer(CL_MEM_COPY_HOST_PTR)");
        Buffer {
            gpu: self,
            handle,
            size: bytes.len(),
        }
    }

    #[track_caller]
    pub fn buffer_bytes(&self, size: usize) -> Buffer<'_> {
        let mut err = 0;
        // SAFETY: no host pointer is passed.
        let handle = unsafe {
            (self.api.clCreateBuffer)(self.context, CL_MEM_READ_WRITE, size, null_mut(), &mut err)
        };
        check(err, "clCreateBuffer");
        assert!(!handle.is_null());
        Buffer {
            gpu: self,
            handle,
            size,
        }
    }

    /// Blocking write of `data` at the start of `buffer`.
    #[track_caller]
    pub fn write<T: Pod>(&self, buffer: &Buffer<'_>, data: &[T]) {
        let bytes = as_bytes(data);
        assert!(bytes.len() <= buffer.size);
        if bytes.is_empty() {
            return;
        }
        // SAFETY: a blocking write reads `bytes` before returning.
        let status = unsafe {
            (self.api.clEnqueueWriteBuffer)(
                self.queue,
                buffer.handle,
                CL_TRUE,
                0,
                bytes.len(),
                bytes.as_ptr() as *const c_void,
                0,
                null(),
                null_mut(),
            )
        };
        check(status, "clEnqueueWriteBuffer");
    }

    /// Blocking read of the whole buffer as elements of `T`.
    #[track_caller]
    pub fn read<T: Pod>(&self, buffer: &Buffer<'_>) -> Vec<T> {
        let len = buffer.size / std::mem::size_of::<T>();
        let mut out: Vec<T> = Vec::with_capacity(len);
        let bytes = len * std::mem::size_of::<T>();
        // SAFETY: a blocking read fills all `bytes` of the vector's capacity
        // before returning; every bit pattern is a valid T (Pod).
        unsafe {
            let status = (self.api.clEnqueueReadBuffer)(
                self.queue,
                buffer.handle,
                CL_TRUE,
                0,
                bytes,
                out.as_mut_ptr() as *mut c_void,
                0,
                null(),
                null_mut(),
            );
            check(status, "clEnqueueReadBuffer");
            out.set_len(len);
        }
        out
    }

    /// Enqueues an NDRange; `local` and `offset` may be absent (NULL).
    #[track_caller]
    pub fn run(
        &self,
        kernel: &Kernel<'_>,
        global: &[usize],
        local: Option<&[usize]>,
        offset: Option<&[usize]>,
    ) {
        let status = self.try_run(kernel, global, local, offset);
        check(status, "clEnqueueNDRangeKernel");
    }

    pub fn try_run(
        &self,
        kernel: &Kernel<'_>,
        global: &[usize],
        local: Option<&[usize]>,
        offset: Option<&[usize]>,
    ) -> cl_int {
        if let Some(local) = local {
            assert_eq!(local.len(), global.len());
        }
        if let Some(offset) = offset {
            assert_eq!(offset.len(), global.len());
        }
        // SAFETY: each array has work_dim elements (checked above).
        unsafe {
            (self.api.clEnqueueNDRangeKernel)(
                self.queue,
                kernel.handle,
                global.len() as cl_uint,
                offset.map_or(null(), |o| o.as_ptr()),
                global.as_ptr(),
                local.map_or(null(), |l| l.as_ptr()),
                0,
                null(),
                null_mut(),
            )
        }
    }

    #[track_caller]
    pub fn finish(&self) {
        // SAFETY: the queue is live.
        check(unsafe { (self.api.clFinish)(self.queue) }, "clFinish");
    }

    /// A string-valued `cl_device_info` (e.g. `CL_DEVICE_EXTENSIONS`).
    #[track_caller]
    pub fn device_string(&self, param: cl_uint) -> String {
        let mut size = 0;
        // SAFETY: the first call asks for the size; the second writes at
        // most `size` bytes into a buffer of that size.
        unsafe {
            check(
                (self.api.clGetDeviceInfo)(self.device, param, 0, null_mut(), &mut size),
                "clGetDeviceInfo(size)",
            );
            let mut bytes = vec![0u8; size];
            check(
                (self.api.clGetDeviceInfo)(
                    self.device,
                    param,
                    size,
                    bytes.as_mut_ptr() as *mut c_void,
                    null_mut(),
                ),
                "clGetDeviceInfo",
            );
            String::from_utf8_lossy(&bytes)
                .trim_end_matches('\0')
                .to_string()
        }
    }

    /// A sub-buffer of `parent` covering `size` bytes from `origin`.
    #[track_caller]
    pub fn sub_buffer<'g>(&'g self, parent: &Buffer<'g>, origin: usize, size: usize) -> Buffer<'g> {
        let region = [origin, size];
        let mut err = 0;
        // SAFETY: CL_BUFFER_CREATE_TYPE_REGION takes a cl_buffer_region,
        // two size_t values.
        let handle = unsafe {
            (self.api.clCreateSubBuffer)(
                parent.handle,
                CL_MEM_READ_WRITE,
                CL_BUFFER_CREATE_TYPE_REGION,
                region.as_ptr() as *const c_void,
                &mut err,
            )
        };
        check(err, "clCreateSubBuffer");
        Buffer {
            gpu: self,
            handle,
            size,
        }
    }

    /// A `cl_device_info` value of plain type `T`.
    #[track_caller]
    pub fn device_info<T: Pod>(&self, param: cl_uint) -> T {
        let mut value = std::mem::MaybeUninit::<T>::zeroed();
        // SAFETY: the destination holds size_of::<T>() bytes.
        unsafe {
            check(
                (self.api.clGetDeviceInfo)(
                    self.device,
                    param,
                    std::mem::size_of::<T>(),
                    value.as_mut_ptr() as *mut c_void,
                    null_mut(),
                ),
                "clGetDeviceInfo",
            );
            value.assume_init()
        }
    }
}

impl Default for Gpu {
    fn default() -> Self {
        Gpu::new()
    }
}

impl Drop for Gpu {
    fn drop(&mut self) {
        // SAFETY: the queue and context are ours; everything made from them
        // borrows this Gpu and is therefore already released.
        unsafe {
            let finished = (self.api.clFinish)(self.queue);
            let queue = (self.api.clReleaseCommandQueue)(self.queue);
            let context = (self.api.clReleaseContext)(self.context);
            if std::thread::panicking() {
                return;
            }
            check(finished, "clFinish");
            check(queue, "clReleaseCommandQueue");
            check(context, "clReleaseContext");
            let after = (self.api.ferrocl_validation_message_count)();
            assert_eq!(
                after - self.validation_before.min(after),
                0,
                "the Vulkan validation layer reported {} message(s) during this test (see stderr)",
                after - self.validation_before.min(after)
            );
        }
    }
}

pub struct Buffer<'g> {
    gpu: &'g Gpu,
    pub handle: Handle,
    pub size: usize,
}

impl<'g> Buffer<'g> {
    /// Takes over a buffer the test created itself (released on drop).
    pub fn wrap(gpu: &'g Gpu, handle: Handle, size: usize) -> Buffer<'g> {
        Buffer { gpu, handle, size }
    }
}

impl Drop for Buffer<'_> {
    fn drop(&mut self) {
        // SAFETY: the handle is ours.
        let status = unsafe { (self.gpu.api.clReleaseMemObject)(self.handle) };
        if !std::thread::panicking() {
            check(status, "clReleaseMemObject");
        }
    }
}

pub struct Program<'g> {
    gpu: &'g Gpu,
    pub handle: Handle,
}

impl<'g> Program<'g> {
    pub fn build_log(&self) -> String {
        let api = self.gpu.api;
        let mut size = 0;
        // SAFETY: the first call asks for the size only; the second writes
        // at most `size` bytes into a buffer of that size.
        unsafe {
            let status = (api.clGetProgramBuildInfo)(
                self.handle,
                self.gpu.device,
                CL_PROGRAM_BUILD_LOG,
                0,
                null_mut(),
                &mut size,
            );
            if status != CL_SUCCESS {
                return format!("(no build log: {})", error_name(status));
            }
            let mut log = vec![0u8; size];
            let status = (api.clGetProgramBuildInfo)(
                self.handle,
                self.gpu.device,
                CL_PROGRAM_BUILD_LOG,
                size,
                log.as_mut_ptr() as *mut c_void,
                null_mut(),
            );
            if status != CL_SUCCESS {
                return format!("(no build log: {})", error_name(status));
            }
            String::from_utf8_lossy(&log)
                .trim_end_matches('\0')
                .to_string()
        }
    }

    #[track_caller]
    pub fn kernel(&self, name: &str) -> Kernel<'g> {
        let cname = CString::new(name).expect("kernel name without NUL");
        let mut err = 0;
        // SAFETY: the name is NUL-terminated.
        let handle =
            unsafe { (self.gpu.api.clCreateKernel)(self.handle, cname.as_ptr(), &mut err) };
        check(err, &format!("clCreateKernel({name})"));
        // A kernel keeps its program alive (the spec's reference rules), so
        // the program may be released first.
        Kernel {
            gpu: self.gpu,
            handle,
        }
    }
}

impl Drop for Program<'_> {
    fn drop(&mut self) {
        // SAFETY: the handle is ours.
        let status = unsafe { (self.gpu.api.clReleaseProgram)(self.handle) };
        if !std::thread::panicking() {
            check(status, "clReleaseProgram");
        }
    }
}

pub struct Kernel<'g> {
    gpu: &'g Gpu,
    pub handle: Handle,
}

impl Kernel<'_> {
    /// A `__global`/`__constant` pointer argument.
    #[track_caller]
    pub fn arg_buffer(&self, index: u32, buffer: &Buffer<'_>) -> &Self {
        // SAFETY: a cl_mem argument is passed as a pointer to the handle.
        let status = unsafe {
            (self.gpu.api.clSetKernelArg)(
                self.handle,
                index,
                std::mem::size_of::<Handle>(),
                &buffer.handle as *const Handle as *const c_void,
            )
        };
        check(status, &format!("clSetKernelArg({index}, buffer)"));
        self
    }

    /// A value argument (scalar, vector, array standing for a vector).
    #[track_caller]
    pub fn arg<T: Pod>(&self, index: u32, value: T) -> &Self {
        self.arg_bytes(index, as_bytes(std::slice::from_ref(&value)))
    }

    #[track_caller]
    pub fn arg_bytes(&self, index: u32, bytes: &[u8]) -> &Self {
        // SAFETY: the pointer covers `bytes.len()` bytes.
        let status = unsafe {
            (self.gpu.api.clSetKernelArg)(
                self.handle,
                index,
                bytes.len(),
                bytes.as_ptr() as *const c_void,
            )
        };
        check(
            status,
            &format!("clSetKernelArg({index}, {} bytes)", bytes.len()),
        );
        self
    }

    /// A `__local` pointer argument of `bytes` bytes.
    #[track_caller]
    pub fn arg_local(&self, index: u32, bytes: usize) -> &Self {
        // SAFETY: a NULL value with a size is the spec's form for __local.
        let status = unsafe { (self.gpu.api.clSetKernelArg)(self.handle, index, bytes, null()) };
        check(
            status,
            &format!("clSetKernelArg({index}, __local {bytes} bytes)"),
        );
        self
    }

    /// `CL_KERNEL_WORK_GROUP_SIZE` for the test's device.
    #[track_caller]
    pub fn work_group_size(&self) -> usize {
        let mut size = 0usize;
        // SAFETY: the destination is a size_t.
        let status = unsafe {
            (self.gpu.api.clGetKernelWorkGroupInfo)(
                self.handle,
                self.gpu.device,
                CL_KERNEL_WORK_GROUP_SIZE,
                std::mem::size_of::<usize>(),
                &mut size as *mut usize as *mut c_void,
                null_mut(),
            )
        };
        check(status, "clGetKernelWorkGroupInfo");
        size
    }
}

impl Drop for Kernel<'_> {
    fn drop(&mut self) {
        // SAFETY: the handle is ours.
        let status = unsafe { (self.gpu.api.clReleaseKernel)(self.handle) };
        if !std::thread::panicking() {
            check(status, "clReleaseKernel");
        }
    }
}

/// A small deterministic generator (xorshift32) for test inputs.
pub struct XorShift(u32);

impl XorShift {
    pub fn new(seed: u32) -> XorShift {
        XorShift(seed.max(1))
    }

    pub fn next_u32(&mut self) -> u32 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.0 = x;
        x
    }

    /// 64 random bits (two draws).
    pub fn next_u64(&mut self) -> u64 {
        (u64::from(self.next_u32()) << 32) | u64::from(self.next_u32())
    }

    /// Uniform in [lo, hi).
    pub fn f32_in(&mut self, lo: f32, hi: f32) -> f32 {
        let unit = (self.next_u32() >> 8) as f32 / (1u32 << 24) as f32;
        lo + (hi - lo) * unit
    }

    pub fn floats(&mut self, n: usize, lo: f32, hi: f32) -> Vec<f32> {
        (0..n).map(|_| self.f32_in(lo, hi)).collect()
    }

    pub fn u32s(&mut self, n: usize) -> Vec<u32> {
        (0..n).map(|_| self.next_u32()).collect()
    }

    pub fn i32s(&mut self, n: usize) -> Vec<i32> {
        (0..n).map(|_| self.next_u32() as i32).collect()
    }
}

/// Asserts `got` is within `abs + rel * |want|` of `want` everywhere.
#[track_caller]
pub fn assert_close(got: &[f32], want: &[f32], abs: f32, rel: f32, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    let mut bad = Vec::new();
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let ok = (g - w).abs() <= abs + rel * w.abs() || (g.is_nan() && w.is_nan()) || g == w;
        if !ok {
            bad.push(i);
        }
    }
    if let Some(&first) = bad.first() {
        panic!(
            "{what}: {} of {} values differ; first at [{first}]: got {} want {}",
            bad.len(),
            got.len(),
            got[first],
            want[first]
        );
    }
}

/// Runs the test `name` of this executable again, in a process of its own
/// for each of `values` of the environment variable `var`, which the
/// library reads when it starts, and asserts that each run passes. In
/// such a process (`var` already set) it does nothing.
pub fn rerun_with_each(var: &str, values: &[&str], name: &str) {
    if std::env::var_os(var).is_some() {
        return;
    }
    let exe = std::env::current_exe().expect("path of the test executable");
    for value in values {
        let status = std::process::Command::new(&exe)
            .env(var, value)
            .args(["--exact", name, "--test-threads", "1"])
            .status()
            .expect("the test executable runs again");
        assert!(status.success(), "{var}={value}: {status}");
    }
}

/// Asserts two integer-like slices are equal, naming the first difference.
#[track_caller]
pub fn assert_same<T: PartialEq + std::fmt::Debug>(got: &[T], want: &[T], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    let bad = got.iter().zip(want).filter(|(g, w)| g != w).count();
    if let Some(i) = got.iter().zip(want).position(|(g, w)| g != w) {
        panic!(
            "{what}: {bad} of {} values differ; first at [{i}]: got {:?} want {:?}",
            got.len(),
            got[i],
            want[i]
        );
    }
}

/// A rounding mode of `convert_*` and `vstore_half*`: the suffix a kernel
/// names it by (`Default` is none).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Mode {
    Default,
    Rte,
    Rtz,
    Rtp,
    Rtn,
}

pub const MODES: [Mode; 5] = [Mode::Default, Mode::Rte, Mode::Rtz, Mode::Rtp, Mode::Rtn];

impl Mode {
    pub fn suffix(self) -> &'static str {
        match self {
            Mode::Default => "",
            Mode::Rte => "_rte",
            Mode::Rtz => "_rtz",
            Mode::Rtp => "_rtp",
            Mode::Rtn => "_rtn",
        }
    }
}

/// The harness of the tests that call the entry points of the `ferrocl`
/// rlib directly (Rust functions with the C signatures) rather than through
/// the loaded library: the first device, a context and queue on it, and
/// the validation layer's verdict.
pub mod rlib {
    use ferrocl::context::{clCreateContext, clReleaseContext};
    use ferrocl::device::clGetDeviceIDs;
    use ferrocl::enqueue::clEnqueueNDRangeKernel;
    use ferrocl::event::{clGetEventInfo, clGetEventProfilingInfo};
    use ferrocl::kernel::{clCreateKernel, clReleaseKernel, clSetKernelArg};
    use ferrocl::platform::clGetPlatformIDs;
    use ferrocl::program::{clBuildProgram, clCreateProgramWithSource, clReleaseProgram};
    use ferrocl::queue::{clCreateCommandQueue, clReleaseCommandQueue};
    use ferrocl_runtime::cl::*;
    use std::ffi::c_void;
    use std::ptr::{null, null_mut};
    use std::sync::{Once, OnceLock};

    type H = *mut c_void;

    /// Turns the validation layer on before anything touches Vulkan.
    pub fn init() {
        static VALIDATION: Once = Once::new();
        VALIDATION.call_once(|| std::env::set_var("FERROCL_VALIDATION", "1"));
    }

    pub fn check_validation() {
        assert_eq!(
            ferrocl_vk::validation_message_count(),
            0,
            "Vulkan validation messages"
        );
    }

    #[track_caller]
    pub fn ok(code: cl_int) {
        assert_eq!(code, CL_SUCCESS, "expected CL_SUCCESS");
    }

    struct DeviceHandle(H);
    // SAFETY: a device handle is a pointer to a Send + Sync runtime object.
    unsafe impl Send for DeviceHandle {}
    // SAFETY: as above.
    unsafe impl Sync for DeviceHandle {}

    /// The first device of the first platform.
    pub fn device() -> H {
        static DEVICE: OnceLock<DeviceHandle> = OnceLock::new();
        init();
        DEVICE
            .get_or_init(|| unsafe {
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
                DeviceHandle(dev)
            })
            .0
    }

    /// A 4-byte property of `event` (`CL_EVENT_COMMAND_TYPE`,
    /// `CL_EVENT_COMMAND_EXECUTION_STATUS`, ...).
    pub fn event_u32(event: H, param: cl_uint) -> u32 {
        let mut value: u32 = 0;
        // SAFETY: `value` holds the 4 bytes asked for.
        ok(unsafe { clGetEventInfo(event, param, 4, (&mut value as *mut u32).cast(), null_mut()) });
        value
    }

    /// The queued, submit, start and end times of a profiled `event`.
    pub fn profiling_times(event: H) -> [cl_ulong; 4] {
        [
            CL_PROFILING_COMMAND_QUEUED,
            CL_PROFILING_COMMAND_SUBMIT,
            CL_PROFILING_COMMAND_START,
            CL_PROFILING_COMMAND_END,
        ]
        .map(|param| {
            let mut t: cl_ulong = 0;
            // SAFETY: `t` holds the 8 bytes asked for.
            ok(unsafe {
                clGetEventProfilingInfo(
                    event,
                    param,
                    8,
                    (&mut t as *mut cl_ulong).cast(),
                    null_mut(),
                )
            });
            t
        })
    }

    /// `set(x, v)`: every word of `x` to `v`, one per work-item.
    pub const SET_WORDS: &str =
        "__kernel void set(__global uint *x, uint v) { x[get_global_id(0)] = v; }";

    /// A kernel built from OpenCL C for the first device, with its program;
    /// both released on drop.
    pub struct Kernel {
        pub program: H,
        pub kernel: H,
    }

    impl Kernel {
        /// Builds `source` in `ctx` and makes its kernel `name`.
        pub fn build(ctx: H, source: &str, name: &std::ffi::CStr) -> Kernel {
            let dev = device();
            let source = std::ffi::CString::new(source).expect("source without NUL");
            let mut err = 0;
            // SAFETY: valid handles and NUL-terminated strings that outlive
            // the calls.
            unsafe {
                let ptr = source.as_ptr();
                let program = clCreateProgramWithSource(ctx, 1, &ptr, null(), &mut err);
                ok(err);
                ok(clBuildProgram(program, 1, &dev, null(), None, null_mut()));
                let kernel = clCreateKernel(program, name.as_ptr(), &mut err);
                ok(err);
                Kernel { program, kernel }
            }
        }

        /// Sets argument `index` to the bytes of `value` (a memory object's
        /// handle or a scalar).
        pub fn arg<T>(&self, index: cl_uint, value: &T) {
            // SAFETY: `value` holds `size_of::<T>()` bytes.
            ok(unsafe {
                clSetKernelArg(
                    self.kernel,
                    index,
                    std::mem::size_of::<T>(),
                    (value as *const T).cast(),
                )
            });
        }

        /// Enqueues `global` work-items in one dimension (the local size
        /// left to the runtime) on `queue` after `waits`; the launch's
        /// event.
        pub fn run(&self, queue: H, global: usize, waits: &[H]) -> H {
            let mut event = null_mut();
            let (count, list) = wait_list(waits);
            // SAFETY: valid handles; `waits` holds its length of events.
            ok(unsafe {
                clEnqueueNDRangeKernel(
                    queue,
                    self.kernel,
                    1,
                    null(),
                    &global,
                    null(),
                    count,
                    list,
                    &mut event,
                )
            });
            event
        }
    }

    /// `waits` as an enqueue call's wait list: its length and its events
    /// (NULL when empty, as the API asks).
    pub fn wait_list(waits: &[H]) -> (cl_uint, *const H) {
        let list = if waits.is_empty() {
            null()
        } else {
            waits.as_ptr()
        };
        (waits.len() as cl_uint, list)
    }

    impl Drop for Kernel {
        fn drop(&mut self) {
            // SAFETY: this value's own handles, released once.
            unsafe {
                clReleaseKernel(self.kernel);
                clReleaseProgram(self.program);
            }
        }
    }

    /// A value moved to another thread though it holds OpenCL handles or
    /// pointers, which any thread may use.
    pub struct Sent<T>(pub T);
    // SAFETY: OpenCL handles may be used from any thread; the caller keeps
    // what a pointer points to alive until the other thread is done.
    unsafe impl<T> Send for Sent<T> {}

    /// Runs `call` on another thread and returns what it returns; panics,
    /// naming `what`, when it has not returned within 20 s: for an enqueue
    /// call that must not wait for an event the application sets after
    /// it. The memory `call` uses must outlive the wait.
    pub fn returns_at_once<T: 'static>(what: &str, call: impl FnOnce() -> T + 'static) -> T {
        let call = Sent(call);
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            // The whole wrapper moves here, not only its closure.
            let call = call;
            let _ = tx.send(Sent((call.0)()));
        });
        match rx.recv_timeout(std::time::Duration::from_secs(20)) {
            Ok(Sent(result)) => result,
            Err(_) => panic!("{what} did not return while its user event was unset"),
        }
    }

    /// A context and an in-order queue on the first device, released on
    /// drop.
    pub struct Env {
        pub ctx: H,
        pub queue: H,
    }

    impl Env {
        pub fn new() -> Env {
            Env::with_queue_properties(0)
        }

        /// The queue made with `properties` (`CL_QUEUE_PROFILING_ENABLE`,
        /// ...).
        pub fn with_queue_properties(properties: cl_bitfield) -> Env {
            let dev = device();
            let mut err = 0;
            unsafe {
                let ctx = clCreateContext(null(), 1, &dev, None, null_mut(), &mut err);
                ok(err);
                let queue = clCreateCommandQueue(ctx, dev, properties, &mut err);
                ok(err);
                Env { ctx, queue }
            }
        }
    }

    impl Drop for Env {
        fn drop(&mut self) {
            unsafe {
                clReleaseCommandQueue(self.queue);
                clReleaseContext(self.ctx);
            }
        }
    }
}
