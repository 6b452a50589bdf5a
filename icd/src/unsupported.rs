//! Entry points of features no ferrocl device offers yet: pipes
//! (`CL_DEVICE_PIPE_SUPPORT` is false), sharing with OpenGL, EGL, Direct3D
//! and DX9 media surfaces (no context is ever created for sharing), the
//! cl_ext_device_fission entry points (no device can be partitioned), and
//! the cl_khr_subgroups spelling of `clGetKernelSubGroupInfo`.
//!
//! Each validates its handles first and then answers the error the spec
//! gives for a device or context without the feature; none creates
//! anything. The ICD loader reaches them through the dispatch table, and a
//! program linked against libferrocl by name.

use crate::entry::{api_call, api_create};
use crate::platform::platform_from_handle;
use ferrocl_runtime::api::from_handle;
use ferrocl_runtime::cl::*;
use ferrocl_runtime::context::Context;
use ferrocl_runtime::device::Device;
use ferrocl_runtime::memory::Mem;
use ferrocl_runtime::queue::Queue;
use std::ffi::c_void;

// ---------------------------------------------------------------------------
// Shared checks
// ---------------------------------------------------------------------------

/// # Safety
/// `handle` is NULL or a handle from this library.
unsafe fn check_context(handle: *mut c_void) -> Result<&'static Context, cl_int> {
    // SAFETY: forwarded contract.
    unsafe { from_handle::<Context>(handle) }
}

/// # Safety
/// `handle` is NULL or a handle from this library.
unsafe fn check_queue(handle: *mut c_void) -> Result<&'static Queue, cl_int> {
    // SAFETY: forwarded contract.
    unsafe { from_handle::<Queue>(handle) }
}

/// Whether `flags` is a valid `cl_mem_flags` combination for a memory
/// object: one access mode, one host access mode, and `USE_HOST_PTR`
/// without `ALLOC_HOST_PTR` or `COPY_HOST_PTR`.
fn mem_flags_valid(flags: cl_bitfield) -> bool {
    let known = CL_MEM_READ_WRITE
        | CL_MEM_WRITE_ONLY
        | CL_MEM_READ_ONLY
        | CL_MEM_USE_HOST_PTR
        | CL_MEM_ALLOC_HOST_PTR
        | CL_MEM_COPY_HOST_PTR
        | CL_MEM_HOST_WRITE_ONLY
        | CL_MEM_HOST_READ_ONLY
        | CL_MEM_HOST_NO_ACCESS
        | CL_MEM_KERNEL_READ_AND_WRITE;
    let access = flags & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY);
    let host = flags & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS);
    flags & !known == 0
        && access.count_ones() <= 1
        && host.count_ones() <= 1
        && !(flags & CL_MEM_USE_HOST_PTR != 0
            && flags & (CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR) != 0)
}

/// The interop API of an acquire/release entry point.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Interop {
    Gl,
    D3d10,
    D3d11,
    Dx9,
    Egl,
}

/// `clEnqueueAcquire*` / `clEnqueueRelease*` of every sharing extension.
///
/// # Safety
/// `mem_objects` is NULL or readable for `num_objects` handles; every
/// handle is NULL or from this library.
unsafe fn enqueue_interop_objects(
    interop: Interop,
    command_queue: *mut c_void,
    num_objects: cl_uint,
    mem_objects: *const *mut c_void,
) -> Result<(), cl_int> {
    // CL_INVALID_VALUE if num_objects is zero and mem_objects is not a NULL
    // value or if num_objects > 0 and mem_objects is NULL.
    if (num_objects == 0) != mem_objects.is_null() {
        return Err(CL_INVALID_VALUE);
    }
    // CL_INVALID_MEM_OBJECT if memory objects in mem_objects are not valid
    // OpenCL memory objects.
    for i in 0..num_objects as usize {
        // SAFETY: num_objects readable handles, per the contract.
        let handle = unsafe { mem_objects.add(i).read_unaligned() };
        // SAFETY: as above.
        unsafe { from_handle::<Mem>(handle)? };
    }
    // For EGL: CL_INVALID_EGL_OBJECT_KHR if memory objects in mem_objects
    // have not been created from EGL resources (none can be).
    if interop == Interop::Egl && num_objects > 0 {
        return Err(CL_INVALID_EGL_OBJECT_KHR);
    }
    // CL_INVALID_COMMAND_QUEUE if command_queue is not a valid
    // command-queue.
    // SAFETY: forwarded contract.
    unsafe { check_queue(command_queue)? };
    match interop {
        // CL_INVALID_CONTEXT if context associated with command_queue was
        // not created from an OpenGL context / a Direct3D device / a media
        // adapter: no ferrocl context is.
        Interop::Gl | Interop::D3d10 | Interop::D3d11 | Interop::Dx9 => Err(CL_INVALID_CONTEXT),
        // Nothing to acquire, and the platform does not offer
        // cl_khr_egl_image to enqueue it with.
        Interop::Egl => Err(CL_INVALID_OPERATION),
    }
}

/// `clGetDeviceIDsFromD3D10KHR`, `...D3D11KHR` and `...DX9MediaAdapterKHR`
/// after their own argument checks: the shared checks of the device list,
/// then no device corresponds to a Direct3D object.
fn no_devices_for_interop(
    num_entries: cl_uint,
    devices: *mut *mut c_void,
    num_devices: *mut cl_uint,
) -> Result<(), cl_int> {
    // CL_INVALID_VALUE if num_entries is equal to zero and devices is not
    // NULL, or if both num_devices and devices are NULL.
    if (num_entries == 0 && !devices.is_null()) || (num_devices.is_null() && devices.is_null()) {
        return Err(CL_INVALID_VALUE);
    }
    // CL_DEVICE_NOT_FOUND if no OpenCL devices that correspond to the
    // object were found: ferrocl runs on Vulkan devices only.
    Err(CL_DEVICE_NOT_FOUND)
}

// ---------------------------------------------------------------------------
// Pipes
// ---------------------------------------------------------------------------

#[no_mangle]
pub unsafe extern "C" fn clCreatePipe(
    context: *mut c_void,
    flags: cl_bitfield,
    pipe_packet_size: cl_uint,
    pipe_max_packets: cl_uint,
    properties: *const isize,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    let _ = (pipe_packet_size, pipe_max_packets);
    // SAFETY: the application's handle, property list and errcode_ret.
    unsafe {
        api_create(errcode_ret, || {
            // CL_INVALID_CONTEXT if context is not a valid context.
            check_context(context)?;
            // CL_INVALID_VALUE if values specified in flags are not as
            // defined above (0, CL_MEM_READ_WRITE, CL_MEM_HOST_NO_ACCESS).
            if flags & !(CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS) != 0 {
                return Err(CL_INVALID_VALUE);
            }
            // CL_INVALID_VALUE if properties is not NULL (no pipe property
            // is defined).
            if !properties.is_null() && properties.read_unaligned() != 0 {
                return Err(CL_INVALID_VALUE);
            }
            // CL_INVALID_OPERATION if no devices in context support pipes.
            Err(CL_INVALID_OPERATION)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn clGetPipeInfo(
    pipe: *mut c_void,
    param_name: cl_uint,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    let _ = (
        pipe,
        param_name,
        param_value_size,
        param_value,
        param_value_size_ret,
    );
    // CL_INVALID_MEM_OBJECT if pipe is a not a valid pipe object: no pipe
    // can be created.
    api_call(|| Err(CL_INVALID_MEM_OBJECT))
}

// ---------------------------------------------------------------------------
// cl_khr_subgroups
// ---------------------------------------------------------------------------

/// The cl_khr_subgroups spelling of `clGetKernelSubGroupInfo`: the same
/// query with the same errors.
#[no_mangle]
pub unsafe extern "C" fn clGetKernelSubGroupInfoKHR(
    kernel: *mut c_void,
    device: *mut c_void,
    param_name: cl_uint,
    input_value_size: usize,
    input_value: *const c_void,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    // SAFETY: the application's arguments, forwarded unchanged.
    unsafe {
        crate::kernel::clGetKernelSubGroupInfo(
            kernel,
            device,
            param_name,
            input_value_size,
            input_value,
            param_value_size,
            param_value,
            param_value_size_ret,
        )
    }
}

// ---------------------------------------------------------------------------
// cl_ext_device_fission
// ---------------------------------------------------------------------------

#[no_mangle]
pub unsafe extern "C" fn clCreateSubDevicesEXT(
    in_device: *mut c_void,
    properties: *const cl_ulong,
    num_entries: cl_uint,
    out_devices: *mut *mut c_void,
    num_devices: *mut cl_uint,
) -> cl_int {
    let _ = (properties, num_entries, out_devices, num_devices);
    api_call(|| {
        // CL_INVALID_DEVICE if in_device is not valid.
        // SAFETY: the application's handle.
        unsafe { from_handle::<Device>(in_device)? };
        // CL_INVALID_VALUE if values specified in properties are not valid
        // or not supported: no partition type is supported.
        Err(CL_INVALID_VALUE)
    })
}

#[no_mangle]
pub unsafe extern "C" fn clRetainDeviceEXT(device: *mut c_void) -> cl_int {
    api_call(|| {
        // CL_INVALID_DEVICE if device is not a valid device.
        // SAFETY: the application's handle.
        unsafe { from_handle::<Device>(device)? };
        // Root devices are not reference counted.
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn clReleaseDeviceEXT(device: *mut c_void) -> cl_int {
    api_call(|| {
        // CL_INVALID_DEVICE if device is not a valid device.
        // SAFETY: the application's handle.
        unsafe { from_handle::<Device>(device)? };
        // Root devices are not reference counted.
        Ok(())
    })
}

// ---------------------------------------------------------------------------
// OpenGL sharing (cl_khr_gl_sharing, cl_khr_gl_event)
// ---------------------------------------------------------------------------

/// The OpenGL object-creating functions: no ferrocl context is created from
/// an OpenGL context.
///
/// # Safety
/// `context` is NULL or a handle from this library.
unsafe fn create_from_gl(context: *mut c_void) -> Result<*mut c_void, cl_int> {
    // CL_INVALID_CONTEXT if context is not a valid context or was not
    // created from a GL context.
    // SAFETY: forwarded contract.
    unsafe { check_context(context)? };
    Err(CL_INVALID_CONTEXT)
}

#[no_mangle]
pub unsafe extern "C" fn clCreateFromGLBuffer(
    context: *mut c_void,
    flags: cl_bitfield,
    bufobj: u32,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    let _ = (flags, bufobj);
    // SAFETY: the application's handle and errcode_ret.
    unsafe { api_create(errcode_ret, || create_from_gl(context)) }
}

#[no_mangle]
pub unsafe extern "C" fn clCreateFromGLTexture(
    context: *mut c_void,
    flags: cl_bitfield,
    target: u32,
    miplevel: i32,
    texture: u32,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    let _ = (flags, target, miplevel, texture);
    // SAFETY: the application's handle and errcode_ret.
    unsafe { api_create(errcode_ret, || create_from_gl(context)) }
}

#[no_mangle]
pub unsafe extern "C" fn clCreateFromGLTexture2D(
    context: *mut c_void,
    flags: cl_bitfield,
    target: u32,
    miplevel: i32,
    texture: u32,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    let _ = (flags, target, miplevel, texture);
    // SAFETY: the application's handle and errcode_ret.
    unsafe { api_create(errcode_ret, || create_from_gl(context)) }
}

#[no_mangle]
pub unsafe extern "C" fn clCreateFromGLTexture3D(
    context: *mut c_void,
    flags: cl_bitfield,
    target: u32,
    miplevel: i32,
    texture: u32,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    let _ = (flags, target, miplevel, texture);
    // SAFETY: the application's handle and errcode_ret.
    unsafe { api_create(errcode_ret, || create_from_gl(context)) }
}

#[no_mangle]
pub unsafe extern "C" fn clCreateFromGLRenderbuffer(
    context: *mut c_void,
    flags: cl_bitfield,
    renderbuffer: u32,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    let _ = (flags, renderbuffer);
    // SAFETY: the application's handle and errcode_ret.
    unsafe { api_create(errcode_ret, || create_from_gl(context)) }
}

#[no_mangle]
pub unsafe extern "C" fn clGetGLObjectInfo(
    memobj: *mut c_void,
    gl_object_type: *mut cl_uint,
    gl_object_name: *mut u32,
) -> cl_int {
    let _ = (gl_object_type, gl_object_name);
    api_call(|| {
        // CL_INVALID_MEM_OBJECT if memobj is not a valid OpenCL memory
        // object.
        // SAFETY: the application's handle.
        unsafe { from_handle::<Mem>(memobj)? };
        // CL_INVALID_GL_OBJECT if there is no GL object associated with
        // memobj.
        Err(CL_INVALID_GL_OBJECT)
    })
}

#[no_mangle]
pub unsafe extern "C" fn clGetGLTextureInfo(
    memobj: *mut c_void,
    param_name: cl_uint,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    let _ = (
        param_name,
        param_value_size,
        param_value,
        param_value_size_ret,
    );
    api_call(|| {
        // CL_INVALID_MEM_OBJECT if memobj is not a valid OpenCL memory
        // object.
        // SAFETY: the application's handle.
        unsafe { from_handle::<Mem>(memobj)? };
        // CL_INVALID_GL_OBJECT if there is no GL texture object associated
        // with memobj.
        Err(CL_INVALID_GL_OBJECT)
    })
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueAcquireGLObjects(
    command_queue: *mut c_void,
    num_objects: cl_uint,
    mem_objects: *const *mut c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const *mut c_void,
    event: *mut *mut c_void,
) -> cl_int {
    let _ = (num_events_in_wait_list, event_wait_list, event);
    // SAFETY: the application's handles and list.
    api_call(|| unsafe {
        enqueue_interop_objects(Interop::Gl, command_queue, num_objects, mem_objects)
    })
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueReleaseGLObjects(
    command_queue: *mut c_void,
    num_objects: cl_uint,
    mem_objects: *const *mut c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const *mut c_void,
    event: *mut *mut c_void,
) -> cl_int {
    let _ = (num_events_in_wait_list, event_wait_list, event);
    // SAFETY: the application's handles and list.
    api_call(|| unsafe {
        enqueue_interop_objects(Interop::Gl, command_queue, num_objects, mem_objects)
    })
}

#[no_mangle]
pub unsafe extern "C" fn clGetGLContextInfoKHR(
    properties: *const isize,
    param_name: cl_uint,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    let _ = (
        properties,
        param_value_size,
        param_value,
        param_value_size_ret,
    );
    api_call(|| {
        // CL_INVALID_VALUE if param_name is not one of the supported values.
        if !matches!(
            param_name,
            CL_CURRENT_DEVICE_FOR_GL_CONTEXT_KHR | CL_DEVICES_FOR_GL_CONTEXT_KHR
        ) {
            return Err(CL_INVALID_VALUE);
        }
        // CL_INVALID_GL_SHAREGROUP_REFERENCE_KHR if the specified context is
        // not compatible with the OpenCL context being created: ferrocl's
        // Vulkan devices share nothing with OpenGL.
        Err(CL_INVALID_GL_SHAREGROUP_REFERENCE_KHR)
    })
}

#[no_mangle]
pub unsafe extern "C" fn clCreateEventFromGLsyncKHR(
    context: *mut c_void,
    sync: *mut c_void,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    let _ = sync;
    // CL_INVALID_CONTEXT if context is not a valid context, or was not
    // created from a GL context.
    // SAFETY: the application's handle and errcode_ret.
    unsafe { api_create(errcode_ret, || create_from_gl(context)) }
}

// ---------------------------------------------------------------------------
// Direct3D 10 / 11 and DX9 media sharing
// ---------------------------------------------------------------------------

#[no_mangle]
pub unsafe extern "C" fn clGetDeviceIDsFromD3D10KHR(
    platform: *mut c_void,
    d3d_device_source: cl_uint,
    d3d_object: *mut c_void,
    d3d_device_set: cl_uint,
    num_entries: cl_uint,
    devices: *mut *mut c_void,
    num_devices: *mut cl_uint,
) -> cl_int {
    let _ = d3d_object;
    api_call(|| {
        // CL_INVALID_PLATFORM if platform is not a valid platform.
        // SAFETY: the application's handle.
        unsafe { platform_from_handle(platform)? };
        // CL_INVALID_VALUE if d3d_device_source or d3d_device_set is not a
        // valid value.
        if !matches!(
            d3d_device_source,
            CL_D3D10_DEVICE_KHR | CL_D3D10_DXGI_ADAPTER_KHR
        ) || !matches!(
            d3d_device_set,
            CL_PREFERRED_DEVICES_FOR_D3D10_KHR | CL_ALL_DEVICES_FOR_D3D10_KHR
        ) {
            return Err(CL_INVALID_VALUE);
        }
        no_devices_for_interop(num_entries, devices, num_devices)
    })
}

#[no_mangle]
pub unsafe extern "C" fn clGetDeviceIDsFromD3D11KHR(
    platform: *mut c_void,
    d3d_device_source: cl_uint,
    d3d_object: *mut c_void,
    d3d_device_set: cl_uint,
    num_entries: cl_uint,
    devices: *mut *mut c_void,
    num_devices: *mut cl_uint,
) -> cl_int {
    let _ = d3d_object;
    api_call(|| {
        // CL_INVALID_PLATFORM if platform is not a valid platform.
        // SAFETY: the application's handle.
        unsafe { platform_from_handle(platform)? };
        // CL_INVALID_VALUE if d3d_device_source or d3d_device_set is not a
        // valid value.
        if !matches!(
            d3d_device_source,
            CL_D3D11_DEVICE_KHR | CL_D3D11_DXGI_ADAPTER_KHR
        ) || !matches!(
            d3d_device_set,
            CL_PREFERRED_DEVICES_FOR_D3D11_KHR | CL_ALL_DEVICES_FOR_D3D11_KHR
        ) {
            return Err(CL_INVALID_VALUE);
        }
        no_devices_for_interop(num_entries, devices, num_devices)
    })
}

#[no_mangle]
pub unsafe extern "C" fn clGetDeviceIDsFromDX9MediaAdapterKHR(
    platform: *mut c_void,
    num_media_adapters: cl_uint,
    media_adapter_type: *mut cl_uint,
    media_adapters: *mut c_void,
    media_adapter_set: cl_uint,
    num_entries: cl_uint,
    devices: *mut *mut c_void,
    num_devices: *mut cl_uint,
) -> cl_int {
    let _ = media_adapters;
    api_call(|| {
        // CL_INVALID_PLATFORM if platform is not a valid platform.
        // SAFETY: the application's handle.
        unsafe { platform_from_handle(platform)? };
        // CL_INVALID_VALUE if num_media_adapters is zero, media_adapter_type
        // is NULL, a media adapter type is not valid, or media_adapter_set is
        // not a valid value.
        if num_media_adapters == 0
            || media_adapter_type.is_null()
            || !matches!(
                media_adapter_set,
                CL_PREFERRED_DEVICES_FOR_DX9_MEDIA_ADAPTER_KHR
                    | CL_ALL_DEVICES_FOR_DX9_MEDIA_ADAPTER_KHR
            )
        {
            return Err(CL_INVALID_VALUE);
        }
        for i in 0..num_media_adapters as usize {
            // SAFETY: the application gives num_media_adapters types.
            let adapter = unsafe { media_adapter_type.add(i).read_unaligned() };
            if !matches!(
                adapter,
                CL_ADAPTER_D3D9_KHR | CL_ADAPTER_D3D9EX_KHR | CL_ADAPTER_DXVA_KHR
            ) {
                return Err(CL_INVALID_VALUE);
            }
        }
        no_devices_for_interop(num_entries, devices, num_devices)
    })
}

/// The Direct3D object-creating functions.
///
/// # Safety
/// `context` is NULL or a handle from this library.
unsafe fn create_from_d3d(
    context: *mut c_void,
    flags: cl_bitfield,
    resource_error: cl_int,
) -> Result<*mut c_void, cl_int> {
    // CL_INVALID_CONTEXT if context is not a valid context.
    // SAFETY: forwarded contract.
    unsafe { check_context(context)? };
    // CL_INVALID_VALUE if values specified in flags are not valid.
    if !mem_flags_valid(flags) {
        return Err(CL_INVALID_VALUE);
    }
    // CL_INVALID_D3D1x_RESOURCE_KHR if context was not created against the
    // same Direct3D device from which resource was created: no ferrocl
    // context is created against a Direct3D device.
    Err(resource_error)
}

#[no_mangle]
pub unsafe extern "C" fn clCreateFromD3D10BufferKHR(
    context: *mut c_void,
    flags: cl_bitfield,
    resource: *mut c_void,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    let _ = resource;
    // SAFETY: the application's handle and errcode_ret.
    unsafe {
        api_create(errcode_ret, || {
            create_from_d3d(context, flags, CL_INVALID_D3D10_RESOURCE_KHR)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn clCreateFromD3D10Texture2DKHR(
    context: *mut c_void,
    flags: cl_bitfield,
    resource: *mut c_void,
    subresource: u32,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    let _ = (resource, subresource);
    // SAFETY: the application's handle and errcode_ret.
    unsafe {
        api_create(errcode_ret, || {
            create_from_d3d(context, flags, CL_INVALID_D3D10_RESOURCE_KHR)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn clCreateFromD3D10Texture3DKHR(
    context: *mut c_void,
    flags: cl_bitfield,
    resource: *mut c_void,
    subresource: u32,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    let _ = (resource, subresource);
    // SAFETY: the application's handle and errcode_ret.
    unsafe {
        api_create(errcode_ret, || {
            create_from_d3d(context, flags, CL_INVALID_D3D10_RESOURCE_KHR)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn clCreateFromD3D11BufferKHR(
    context: *mut c_void,
    flags: cl_bitfield,
    resource: *mut c_void,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    let _ = resource;
    // SAFETY: the application's handle and errcode_ret.
    unsafe {
        api_create(errcode_ret, || {
            create_from_d3d(context, flags, CL_INVALID_D3D11_RESOURCE_KHR)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn clCreateFromD3D11Texture2DKHR(
    context: *mut c_void,
    flags: cl_bitfield,
    resource: *mut c_void,
    subresource: u32,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    let _ = (resource, subresource);
    // SAFETY: the application's handle and errcode_ret.
    unsafe {
        api_create(errcode_ret, || {
            create_from_d3d(context, flags, CL_INVALID_D3D11_RESOURCE_KHR)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn clCreateFromD3D11Texture3DKHR(
    context: *mut c_void,
    flags: cl_bitfield,
    resource: *mut c_void,
    subresource: u32,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    let _ = (resource, subresource);
    // SAFETY: the application's handle and errcode_ret.
    unsafe {
        api_create(errcode_ret, || {
            create_from_d3d(context, flags, CL_INVALID_D3D11_RESOURCE_KHR)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn clCreateFromDX9MediaSurfaceKHR(
    context: *mut c_void,
    flags: cl_bitfield,
    adapter_type: cl_uint,
    surface_info: *mut c_void,
    plane: cl_uint,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    let _ = (adapter_type, surface_info, plane);
    // SAFETY: the application's handle and errcode_ret.
    unsafe {
        api_create(errcode_ret, || {
            // CL_INVALID_CONTEXT if context is not a valid context.
            check_context(context)?;
            // CL_INVALID_VALUE if values specified in flags are not valid.
            if !mem_flags_valid(flags) {
                return Err(CL_INVALID_VALUE);
            }
            // CL_INVALID_OPERATION if there are no devices in context that
            // support images (a media surface becomes an image).
            Err(CL_INVALID_OPERATION)
        })
    }
}

macro_rules! interop_acquire_release {
    ($($name:ident => $interop:expr;)*) => {$(
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            command_queue: *mut c_void,
            num_objects: cl_uint,
            mem_objects: *const *mut c_void,
            num_events_in_wait_list: cl_uint,
            event_wait_list: *const *mut c_void,
            event: *mut *mut c_void,
        ) -> cl_int {
            let _ = (num_events_in_wait_list, event_wait_list, event);
            // SAFETY: the application's handles and list.
            api_call(|| unsafe { enqueue_interop_objects($interop, command_queue, num_objects, mem_objects) })
        }
    )*};
}

interop_acquire_release! {
    clEnqueueAcquireD3D10ObjectsKHR => Interop::D3d10;
    clEnqueueReleaseD3D10ObjectsKHR => Interop::D3d10;
    clEnqueueAcquireD3D11ObjectsKHR => Interop::D3d11;
    clEnqueueReleaseD3D11ObjectsKHR => Interop::D3d11;
    clEnqueueAcquireDX9MediaSurfacesKHR => Interop::Dx9;
    clEnqueueReleaseDX9MediaSurfacesKHR => Interop::Dx9;
    clEnqueueAcquireEGLObjectsKHR => Interop::Egl;
    clEnqueueReleaseEGLObjectsKHR => Interop::Egl;
}

// ---------------------------------------------------------------------------
// EGL (cl_khr_egl_image, cl_khr_egl_event)
// ---------------------------------------------------------------------------

#[no_mangle]
pub unsafe extern "C" fn clCreateFromEGLImageKHR(
    context: *mut c_void,
    egldisplay: *mut c_void,
    eglimage: *mut c_void,
    flags: cl_bitfield,
    properties: *const isize,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    let _ = (egldisplay, eglimage, properties);
    // SAFETY: the application's handle and errcode_ret.
    unsafe {
        api_create(errcode_ret, || {
            // CL_INVALID_CONTEXT if context is not a valid OpenCL context.
            check_context(context)?;
            // CL_INVALID_VALUE if flags are not in the set defined above.
            if !mem_flags_valid(flags) {
                return Err(CL_INVALID_VALUE);
            }
            // CL_INVALID_OPERATION if there are no devices in context that
            // support images.
            Err(CL_INVALID_OPERATION)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn clCreateEventFromEGLSyncKHR(
    context: *mut c_void,
    sync: *mut c_void,
    display: *mut c_void,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    let _ = (sync, display);
    // SAFETY: the application's handle and errcode_ret.
    unsafe {
        api_create(errcode_ret, || {
            // CL_INVALID_CONTEXT if context is not a valid context, or was
            // not created from an EGL display.
            check_context(context)?;
            Err(CL_INVALID_CONTEXT)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ptr::{null, null_mut};

    #[test]
    fn mem_flags() {
        assert!(mem_flags_valid(0));
        assert!(mem_flags_valid(
            CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR | CL_MEM_HOST_NO_ACCESS
        ));
        assert!(!mem_flags_valid(CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY));
        assert!(!mem_flags_valid(CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR));
        assert!(!mem_flags_valid(
            CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS
        ));
        assert!(!mem_flags_valid(1 << 40));
    }

    #[test]
    fn bad_handles_are_reported_first() {
        let mut err = 0;
        unsafe {
            assert!(clCreatePipe(null_mut(), 0, 4, 4, null(), &mut err).is_null());
            assert_eq!(err, CL_INVALID_CONTEXT);
            assert_eq!(
                clCreateSubDevicesEXT(null_mut(), null(), 0, null_mut(), null_mut()),
                CL_INVALID_DEVICE
            );
            assert_eq!(
                clEnqueueAcquireGLObjects(null_mut(), 0, null(), 0, null(), null_mut()),
                CL_INVALID_COMMAND_QUEUE
            );
            assert_eq!(
                clEnqueueAcquireGLObjects(null_mut(), 1, null(), 0, null(), null_mut()),
                CL_INVALID_VALUE
            );
            assert_eq!(
                clGetGLContextInfoKHR(null(), 0, 0, null_mut(), null_mut()),
                CL_INVALID_VALUE
            );
        }
    }

    /// A context, a queue and a buffer on the first device, released on drop.
    struct Objects {
        context: *mut c_void,
        queue: *mut c_void,
        buffer: *mut c_void,
    }

    impl Objects {
        fn new() -> Option<Objects> {
            let mut device = null_mut();
            let status = unsafe {
                crate::device::clGetDeviceIDs(
                    null_mut(),
                    CL_DEVICE_TYPE_ALL,
                    1,
                    &mut device,
                    null_mut(),
                )
            };
            if status == CL_DEVICE_NOT_FOUND {
                eprintln!("skipped: no Vulkan device qualifies on this machine");
                return None;
            }
            let mut err = 0;
            unsafe {
                let context =
                    crate::context::clCreateContext(null(), 1, &device, None, null_mut(), &mut err);
                assert_eq!(err, CL_SUCCESS);
                let queue = crate::queue::clCreateCommandQueueWithProperties(
                    context,
                    device,
                    null(),
                    &mut err,
                );
                assert_eq!(err, CL_SUCCESS);
                let buffer = crate::memory::clCreateBuffer(
                    context,
                    CL_MEM_READ_WRITE,
                    64,
                    null_mut(),
                    &mut err,
                );
                assert_eq!(err, CL_SUCCESS);
                Some(Objects {
                    context,
                    queue,
                    buffer,
                })
            }
        }
    }

    impl Drop for Objects {
        fn drop(&mut self) {
            unsafe {
                crate::memory::clReleaseMemObject(self.buffer);
                crate::queue::clReleaseCommandQueue(self.queue);
                crate::context::clReleaseContext(self.context);
            }
        }
    }

    #[test]
    fn valid_objects_get_the_feature_errors() {
        let Some(objects) = Objects::new() else {
            return;
        };
        let (context, queue, buffer) = (objects.context, objects.queue, objects.buffer);
        let mut err = 0;
        unsafe {
            clCreatePipe(context, 0, 4, 16, null(), &mut err);
            assert_eq!(err, CL_INVALID_OPERATION);
            assert_eq!(
                clGetPipeInfo(buffer, CL_PIPE_PACKET_SIZE, 0, null_mut(), null_mut()),
                CL_INVALID_MEM_OBJECT
            );
            clCreateFromGLBuffer(context, CL_MEM_READ_WRITE, 1, &mut err);
            assert_eq!(err, CL_INVALID_CONTEXT);
            assert_eq!(
                clGetGLObjectInfo(buffer, null_mut(), null_mut()),
                CL_INVALID_GL_OBJECT
            );
            assert_eq!(
                clEnqueueAcquireGLObjects(queue, 1, &buffer, 0, null(), null_mut()),
                CL_INVALID_CONTEXT
            );
            assert_eq!(
                clEnqueueAcquireEGLObjectsKHR(queue, 1, &buffer, 0, null(), null_mut()),
                CL_INVALID_EGL_OBJECT_KHR
            );
            clCreateFromD3D10BufferKHR(context, CL_MEM_READ_WRITE, null_mut(), &mut err);
            assert_eq!(err, CL_INVALID_D3D10_RESOURCE_KHR);
            let mut n = 0;
            assert_eq!(
                clGetDeviceIDsFromD3D11KHR(
                    null_mut(),
                    CL_D3D11_DEVICE_KHR,
                    null_mut(),
                    CL_ALL_DEVICES_FOR_D3D11_KHR,
                    0,
                    null_mut(),
                    &mut n
                ),
                CL_DEVICE_NOT_FOUND
            );
        }
    }
}
