//! Entry points of features no ferrocl device offers yet: images and
//! samplers (`CL_DEVICE_IMAGE_SUPPORT` is false), pipes
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

/// The image object types of `cl_mem_object_type`.
fn is_image_type(image_type: cl_uint) -> bool {
    matches!(
        image_type,
        CL_MEM_OBJECT_IMAGE1D
            | CL_MEM_OBJECT_IMAGE1D_ARRAY
            | CL_MEM_OBJECT_IMAGE1D_BUFFER
            | CL_MEM_OBJECT_IMAGE2D
            | CL_MEM_OBJECT_IMAGE2D_ARRAY
            | CL_MEM_OBJECT_IMAGE3D
    )
}

/// The start of every image-creating function: the context, the flags
/// and the presence of the format and descriptor, then
/// `CL_INVALID_OPERATION` as no device in any context supports images.
///
/// # Safety
/// `context` is NULL or a handle from this library.
unsafe fn create_image(
    context: *mut c_void,
    flags: cl_bitfield,
    image_format: *const c_void,
    image_desc_present: bool,
) -> Result<*mut c_void, cl_int> {
    // CL_INVALID_CONTEXT if context is not a valid context.
    // SAFETY: forwarded contract.
    unsafe { check_context(context)? };
    // CL_INVALID_VALUE if values specified in flags are not valid.
    if !mem_flags_valid(flags) {
        return Err(CL_INVALID_VALUE);
    }
    // CL_INVALID_IMAGE_FORMAT_DESCRIPTOR if values specified in
    // image_format are not valid or if image_format is NULL.
    if image_format.is_null() {
        return Err(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
    }
    // CL_INVALID_IMAGE_DESCRIPTOR if values specified in image_desc are not
    // valid or if image_desc is NULL.
    if !image_desc_present {
        return Err(CL_INVALID_IMAGE_DESCRIPTOR);
    }
    // CL_INVALID_OPERATION if there are no devices in context that support
    // images.
    Err(CL_INVALID_OPERATION)
}

/// The start of every image command: the queue, then the image, which can
/// never be an image object.
///
/// # Safety
/// `queue` is NULL or a handle from this library.
unsafe fn enqueue_image_command(queue: *mut c_void) -> Result<(), cl_int> {
    // CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host
    // command-queue.
    // SAFETY: forwarded contract.
    unsafe { check_queue(queue)? };
    // CL_INVALID_MEM_OBJECT if image is not a valid image object: no image
    // object can exist.
    Err(CL_INVALID_MEM_OBJECT)
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
// Images
// ---------------------------------------------------------------------------

#[no_mangle]
pub unsafe extern "C" fn clCreateImage2D(
    context: *mut c_void,
    flags: cl_bitfield,
    image_format: *const c_void,
    image_width: usize,
    image_height: usize,
    image_row_pitch: usize,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    let _ = (image_width, image_height, image_row_pitch, host_ptr);
    // SAFETY: the application's handle and pointers.
    unsafe {
        api_create(errcode_ret, || {
            create_image(context, flags, image_format, true)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn clCreateImage3D(
    context: *mut c_void,
    flags: cl_bitfield,
    image_format: *const c_void,
    image_width: usize,
    image_height: usize,
    image_depth: usize,
    image_row_pitch: usize,
    image_slice_pitch: usize,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    let _ = (
        image_width,
        image_height,
        image_depth,
        image_row_pitch,
        image_slice_pitch,
        host_ptr,
    );
    // SAFETY: the application's handle and pointers.
    unsafe {
        api_create(errcode_ret, || {
            create_image(context, flags, image_format, true)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn clCreateImage(
    context: *mut c_void,
    flags: cl_bitfield,
    image_format: *const c_void,
    image_desc: *const c_void,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    let _ = host_ptr;
    // SAFETY: the application's handle and pointers.
    unsafe {
        api_create(errcode_ret, || {
            create_image(context, flags, image_format, !image_desc.is_null())
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn clCreateImageWithProperties(
    context: *mut c_void,
    properties: *const cl_properties,
    flags: cl_bitfield,
    image_format: *const c_void,
    image_desc: *const c_void,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    let _ = host_ptr;
    // SAFETY: the application's handle and pointers.
    unsafe {
        api_create(errcode_ret, || {
            // CL_INVALID_CONTEXT if context is not a valid context.
            check_context(context)?;
            // CL_INVALID_PROPERTY if a property name in properties is not a
            // supported property name: no image property is supported.
            if !properties.is_null() && properties.read_unaligned() != 0 {
                return Err(CL_INVALID_PROPERTY);
            }
            create_image(context, flags, image_format, !image_desc.is_null())
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn clGetSupportedImageFormats(
    context: *mut c_void,
    flags: cl_bitfield,
    image_type: cl_uint,
    num_entries: cl_uint,
    image_formats: *mut c_void,
    num_image_formats: *mut cl_uint,
) -> cl_int {
    api_call(|| {
        // CL_INVALID_CONTEXT if context is not a valid context.
        // SAFETY: the application's handle.
        unsafe { check_context(context)? };
        // CL_INVALID_VALUE if flags or image_type are not valid, or if
        // num_entries is 0 and image_formats is not NULL.
        if !mem_flags_valid(flags)
            || !is_image_type(image_type)
            || (num_entries == 0 && !image_formats.is_null())
        {
            return Err(CL_INVALID_VALUE);
        }
        // No device supports images, so the list is empty.
        if !num_image_formats.is_null() {
            // SAFETY: the application's writable cl_uint.
            unsafe { num_image_formats.write_unaligned(0) };
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn clGetImageInfo(
    image: *mut c_void,
    param_name: cl_uint,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    let _ = (
        image,
        param_name,
        param_value_size,
        param_value,
        param_value_size_ret,
    );
    // CL_INVALID_MEM_OBJECT if image is a not a valid image object: no
    // image object can exist.
    api_call(|| Err(CL_INVALID_MEM_OBJECT))
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueReadImage(
    command_queue: *mut c_void,
    image: *mut c_void,
    blocking_read: cl_uint,
    origin: *const usize,
    region: *const usize,
    row_pitch: usize,
    slice_pitch: usize,
    ptr: *mut c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const *mut c_void,
    event: *mut *mut c_void,
) -> cl_int {
    let _ = (
        image,
        blocking_read,
        origin,
        region,
        row_pitch,
        slice_pitch,
        ptr,
    );
    let _ = (num_events_in_wait_list, event_wait_list, event);
    // SAFETY: the application's handle.
    api_call(|| unsafe { enqueue_image_command(command_queue) })
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueWriteImage(
    command_queue: *mut c_void,
    image: *mut c_void,
    blocking_write: cl_uint,
    origin: *const usize,
    region: *const usize,
    input_row_pitch: usize,
    input_slice_pitch: usize,
    ptr: *const c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const *mut c_void,
    event: *mut *mut c_void,
) -> cl_int {
    let _ = (
        image,
        blocking_write,
        origin,
        region,
        input_row_pitch,
        input_slice_pitch,
        ptr,
    );
    let _ = (num_events_in_wait_list, event_wait_list, event);
    // SAFETY: the application's handle.
    api_call(|| unsafe { enqueue_image_command(command_queue) })
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueCopyImage(
    command_queue: *mut c_void,
    src_image: *mut c_void,
    dst_image: *mut c_void,
    src_origin: *const usize,
    dst_origin: *const usize,
    region: *const usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const *mut c_void,
    event: *mut *mut c_void,
) -> cl_int {
    let _ = (src_image, dst_image, src_origin, dst_origin, region);
    let _ = (num_events_in_wait_list, event_wait_list, event);
    // SAFETY: the application's handle.
    api_call(|| unsafe { enqueue_image_command(command_queue) })
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueCopyImageToBuffer(
    command_queue: *mut c_void,
    src_image: *mut c_void,
    dst_buffer: *mut c_void,
    src_origin: *const usize,
    region: *const usize,
    dst_offset: usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const *mut c_void,
    event: *mut *mut c_void,
) -> cl_int {
    let _ = (src_image, dst_buffer, src_origin, region, dst_offset);
    let _ = (num_events_in_wait_list, event_wait_list, event);
    // SAFETY: the application's handle.
    api_call(|| unsafe { enqueue_image_command(command_queue) })
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueCopyBufferToImage(
    command_queue: *mut c_void,
    src_buffer: *mut c_void,
    dst_image: *mut c_void,
    src_offset: usize,
    dst_origin: *const usize,
    region: *const usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const *mut c_void,
    event: *mut *mut c_void,
) -> cl_int {
    let _ = (src_buffer, dst_image, src_offset, dst_origin, region);
    let _ = (num_events_in_wait_list, event_wait_list, event);
    // SAFETY: the application's handle.
    api_call(|| unsafe { enqueue_image_command(command_queue) })
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueMapImage(
    command_queue: *mut c_void,
    image: *mut c_void,
    blocking_map: cl_uint,
    map_flags: cl_bitfield,
    origin: *const usize,
    region: *const usize,
    image_row_pitch: *mut usize,
    image_slice_pitch: *mut usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const *mut c_void,
    event: *mut *mut c_void,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    let _ = (
        image,
        blocking_map,
        map_flags,
        origin,
        region,
        image_row_pitch,
        image_slice_pitch,
    );
    let _ = (num_events_in_wait_list, event_wait_list, event);
    // SAFETY: the application's handle and errcode_ret.
    unsafe {
        api_create(errcode_ret, || {
            enqueue_image_command(command_queue)?;
            Ok(std::ptr::null_mut())
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueFillImage(
    command_queue: *mut c_void,
    image: *mut c_void,
    fill_color: *const c_void,
    origin: *const usize,
    region: *const usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const *mut c_void,
    event: *mut *mut c_void,
) -> cl_int {
    let _ = (image, fill_color, origin, region);
    let _ = (num_events_in_wait_list, event_wait_list, event);
    // SAFETY: the application's handle.
    api_call(|| unsafe { enqueue_image_command(command_queue) })
}

// ---------------------------------------------------------------------------
// Samplers
// ---------------------------------------------------------------------------

fn addressing_mode_valid(mode: cl_uint) -> bool {
    matches!(
        mode,
        CL_ADDRESS_NONE
            | CL_ADDRESS_CLAMP_TO_EDGE
            | CL_ADDRESS_CLAMP
            | CL_ADDRESS_REPEAT
            | CL_ADDRESS_MIRRORED_REPEAT
    )
}

fn filter_mode_valid(mode: cl_uint) -> bool {
    matches!(mode, CL_FILTER_NEAREST | CL_FILTER_LINEAR)
}

#[no_mangle]
pub unsafe extern "C" fn clCreateSampler(
    context: *mut c_void,
    normalized_coords: cl_uint,
    addressing_mode: cl_uint,
    filter_mode: cl_uint,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    // SAFETY: the application's handle and errcode_ret.
    unsafe {
        api_create(errcode_ret, || {
            // CL_INVALID_CONTEXT if context is not a valid context.
            check_context(context)?;
            // CL_INVALID_VALUE if addressing_mode, filter_mode,
            // normalized_coords or a combination of these arguments are not
            // valid.
            if normalized_coords > CL_TRUE
                || !addressing_mode_valid(addressing_mode)
                || !filter_mode_valid(filter_mode)
            {
                return Err(CL_INVALID_VALUE);
            }
            // CL_INVALID_OPERATION if images are not supported by any device
            // associated with context.
            Err(CL_INVALID_OPERATION)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn clCreateSamplerWithProperties(
    context: *mut c_void,
    sampler_properties: *const cl_properties,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    // SAFETY: the application's handle, property list and errcode_ret.
    unsafe {
        api_create(errcode_ret, || {
            // CL_INVALID_CONTEXT if context is not a valid context.
            check_context(context)?;
            // CL_INVALID_VALUE if the property name in sampler_properties is
            // not a supported property name, if the value specified for a
            // supported property name is not valid, or if the same property
            // name is specified more than once.
            let mut seen: Vec<cl_properties> = Vec::new();
            let mut p = sampler_properties;
            while !p.is_null() && p.read_unaligned() != 0 {
                let name = p.read_unaligned();
                let value = p.add(1).read_unaligned();
                let valid = match u32::try_from(name) {
                    Ok(CL_SAMPLER_NORMALIZED_COORDS) => value <= u64::from(CL_TRUE),
                    Ok(CL_SAMPLER_ADDRESSING_MODE) => {
                        u32::try_from(value).is_ok_and(addressing_mode_valid)
                    }
                    Ok(CL_SAMPLER_FILTER_MODE) => u32::try_from(value).is_ok_and(filter_mode_valid),
                    _ => false,
                };
                if !valid || seen.contains(&name) {
                    return Err(CL_INVALID_VALUE);
                }
                seen.push(name);
                p = p.add(2);
            }
            // CL_INVALID_OPERATION if images are not supported by any device
            // associated with context.
            Err(CL_INVALID_OPERATION)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn clRetainSampler(sampler: *mut c_void) -> cl_int {
    let _ = sampler;
    // CL_INVALID_SAMPLER if sampler is not a valid sampler object: no
    // sampler can be created.
    api_call(|| Err(CL_INVALID_SAMPLER))
}

#[no_mangle]
pub unsafe extern "C" fn clReleaseSampler(sampler: *mut c_void) -> cl_int {
    let _ = sampler;
    // CL_INVALID_SAMPLER if sampler is not a valid sampler object.
    api_call(|| Err(CL_INVALID_SAMPLER))
}

#[no_mangle]
pub unsafe extern "C" fn clGetSamplerInfo(
    sampler: *mut c_void,
    param_name: cl_uint,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    let _ = (
        sampler,
        param_name,
        param_value_size,
        param_value,
        param_value_size_ret,
    );
    // CL_INVALID_SAMPLER if sampler is a not a valid sampler object.
    api_call(|| Err(CL_INVALID_SAMPLER))
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
/// query with the same errors (the extension itself is not reported).
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
            assert!(clCreateImage(null_mut(), 0, null(), null(), null_mut(), &mut err).is_null());
            assert_eq!(err, CL_INVALID_CONTEXT);
            assert!(clCreateSampler(
                null_mut(),
                CL_TRUE,
                CL_ADDRESS_CLAMP,
                CL_FILTER_LINEAR,
                &mut err
            )
            .is_null());
            assert_eq!(err, CL_INVALID_CONTEXT);
            assert!(clCreatePipe(null_mut(), 0, 4, 4, null(), &mut err).is_null());
            assert_eq!(err, CL_INVALID_CONTEXT);
            assert_eq!(
                clEnqueueReadImage(
                    null_mut(),
                    null_mut(),
                    1,
                    null(),
                    null(),
                    0,
                    0,
                    null_mut(),
                    0,
                    null(),
                    null_mut()
                ),
                CL_INVALID_COMMAND_QUEUE
            );
            assert_eq!(clRetainSampler(null_mut()), CL_INVALID_SAMPLER);
            assert_eq!(
                clGetImageInfo(null_mut(), 0, 0, null_mut(), null_mut()),
                CL_INVALID_MEM_OBJECT
            );
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
        let format = [CL_RGBA, CL_UNORM_INT8];
        let desc = [0u64; 10];
        let mut err = 0;
        let mut count = 7;
        unsafe {
            assert_eq!(
                clGetSupportedImageFormats(
                    context,
                    CL_MEM_READ_ONLY,
                    CL_MEM_OBJECT_IMAGE2D,
                    0,
                    null_mut(),
                    &mut count
                ),
                CL_SUCCESS
            );
            assert_eq!(count, 0);
            assert_eq!(
                clGetSupportedImageFormats(
                    context,
                    CL_MEM_READ_ONLY,
                    CL_MEM_OBJECT_BUFFER,
                    0,
                    null_mut(),
                    &mut count
                ),
                CL_INVALID_VALUE
            );
            let image = clCreateImage(
                context,
                CL_MEM_READ_ONLY,
                format.as_ptr().cast(),
                desc.as_ptr().cast(),
                null_mut(),
                &mut err,
            );
            assert!(image.is_null());
            assert_eq!(err, CL_INVALID_OPERATION);
            clCreateImage(
                context,
                CL_MEM_READ_ONLY,
                null(),
                desc.as_ptr().cast(),
                null_mut(),
                &mut err,
            );
            assert_eq!(err, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
            clCreateImage2D(
                context,
                CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY,
                format.as_ptr().cast(),
                4,
                4,
                0,
                null_mut(),
                &mut err,
            );
            assert_eq!(err, CL_INVALID_VALUE);
            clCreateSampler(
                context,
                CL_TRUE,
                CL_ADDRESS_CLAMP,
                CL_FILTER_NEAREST,
                &mut err,
            );
            assert_eq!(err, CL_INVALID_OPERATION);
            clCreateSampler(context, CL_TRUE, 0, CL_FILTER_NEAREST, &mut err);
            assert_eq!(err, CL_INVALID_VALUE);
            let props = [
                u64::from(CL_SAMPLER_FILTER_MODE),
                u64::from(CL_FILTER_LINEAR),
                0,
            ];
            clCreateSamplerWithProperties(context, props.as_ptr(), &mut err);
            assert_eq!(err, CL_INVALID_OPERATION);
            let twice = [
                u64::from(CL_SAMPLER_FILTER_MODE),
                u64::from(CL_FILTER_LINEAR),
                u64::from(CL_SAMPLER_FILTER_MODE),
                u64::from(CL_FILTER_LINEAR),
                0,
            ];
            clCreateSamplerWithProperties(context, twice.as_ptr(), &mut err);
            assert_eq!(err, CL_INVALID_VALUE);
            clCreatePipe(context, 0, 4, 16, null(), &mut err);
            assert_eq!(err, CL_INVALID_OPERATION);
            assert_eq!(
                clGetPipeInfo(buffer, CL_PIPE_PACKET_SIZE, 0, null_mut(), null_mut()),
                CL_INVALID_MEM_OBJECT
            );
            assert_eq!(
                clGetImageInfo(buffer, CL_IMAGE_FORMAT, 0, null_mut(), null_mut()),
                CL_INVALID_MEM_OBJECT
            );
            let origin = [0usize; 3];
            let region = [1usize; 3];
            let mut pixel = [0u8; 4];
            assert_eq!(
                clEnqueueReadImage(
                    queue,
                    buffer,
                    CL_TRUE,
                    origin.as_ptr(),
                    region.as_ptr(),
                    0,
                    0,
                    pixel.as_mut_ptr().cast(),
                    0,
                    null(),
                    null_mut()
                ),
                CL_INVALID_MEM_OBJECT
            );
            clEnqueueMapImage(
                queue,
                buffer,
                CL_TRUE,
                CL_MAP_READ,
                origin.as_ptr(),
                region.as_ptr(),
                null_mut(),
                null_mut(),
                0,
                null(),
                null_mut(),
                &mut err,
            );
            assert_eq!(err, CL_INVALID_MEM_OBJECT);
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
