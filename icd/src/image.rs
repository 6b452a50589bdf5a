//! Image entry points: creation (`clCreateImage*`), the supported formats,
//! `clGetImageInfo`, and every image command (read, write, copy, copies to
//! and from buffers, fill, map).
//!
//! Images are available on every ferrocl device; kernels read and write them
//! in software (docs/images.md).

// cl.h spells the sRGB channel orders with a lower-case s (`CL_sRGBA`).
#![allow(non_upper_case_globals)]

use crate::enqueue::{queue_arg, wait_list};
use crate::entry::{api_call, api_create};
use crate::info::write_info;
use crate::memory::{
    buffer_arg, check_flags_against_parent, check_host_read, check_host_write, enqueue_checked,
    finish_enqueue,
};
use ferrocl_runtime::api::{arc_from_handle, from_handle, handle_of, into_handle};
use ferrocl_runtime::cl::*;
use ferrocl_runtime::command::Command;
use ferrocl_runtime::context::Context;
use ferrocl_runtime::image::{
    self, format::all_formats, resolve_desc, ClImageDesc, FillColor, Image, ImageDesc, ImageFormat,
    ImageSource,
};
use ferrocl_runtime::memory::{Mem, DEVICE_ACCESS_FLAGS, HOST_ACCESS_FLAGS};
use ferrocl_runtime::queue::Queue;
use std::ffi::c_void;
use std::sync::Arc;

const HOST_PTR_FLAGS: cl_bitfield =
    CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR;

/// Whether `flags` is a valid `cl_mem_flags` combination: at most one
/// device access flag, at most one host access flag, and `USE_HOST_PTR`
/// without `ALLOC_HOST_PTR` or `COPY_HOST_PTR`.
fn flags_valid(flags: cl_bitfield) -> bool {
    let known =
        DEVICE_ACCESS_FLAGS | HOST_ACCESS_FLAGS | HOST_PTR_FLAGS | CL_MEM_KERNEL_READ_AND_WRITE;
    flags & !known == 0
        && (flags & DEVICE_ACCESS_FLAGS).count_ones() <= 1
        && (flags & HOST_ACCESS_FLAGS).count_ones() <= 1
        && !(flags & CL_MEM_USE_HOST_PTR != 0
            && flags & (CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR) != 0)
}

/// Channel orders a 2D image may take when it views another 2D image.
fn orders_compatible(view: cl_uint, of: cl_uint) -> bool {
    view == of
        || matches!(
            (view, of),
            (CL_sBGRA, CL_BGRA)
                | (CL_BGRA, CL_sBGRA)
                | (CL_sRGBA, CL_RGBA)
                | (CL_RGBA, CL_sRGBA)
                | (CL_sRGBx, CL_RGBx)
                | (CL_RGBx, CL_sRGBx)
                | (CL_sRGB, CL_RGB)
                | (CL_RGB, CL_sRGB)
                | (CL_DEPTH, CL_R)
        )
}

/// Reads a `cl_image_format`.
///
/// # Safety
/// `ptr` is NULL or points to a `cl_image_format`.
unsafe fn read_format(ptr: *const c_void) -> Result<ImageFormat, cl_int> {
    // CL_INVALID_IMAGE_FORMAT_DESCRIPTOR if image_format is NULL or if
    // values specified in image_format are not valid.
    if ptr.is_null() {
        return Err(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
    }
    // SAFETY: per the contract.
    let format = unsafe { (ptr as *const ImageFormat).read_unaligned() };
    if !format.is_valid() {
        return Err(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
    }
    Ok(format)
}

/// The checks shared by every image-creating function, in the order of
/// the spec, after the context and properties.
///
/// # Safety
/// The application's pointers, as `clCreateImage` defines them.
unsafe fn create_image(
    ctx: Arc<Context>,
    properties: Vec<u64>,
    flags: cl_bitfield,
    image_format: *const c_void,
    image_desc: *const c_void,
    host_ptr: *mut c_void,
) -> Result<*mut c_void, cl_int> {
    // CL_INVALID_VALUE if values specified in flags are not valid.
    if !flags_valid(flags) {
        return Err(CL_INVALID_VALUE);
    }
    // SAFETY: forwarded contract.
    let format = unsafe { read_format(image_format)? };
    let element_size = format
        .element_size()
        .ok_or(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)?;
    // CL_INVALID_IMAGE_DESCRIPTOR if values specified in image_desc are not
    // valid or if image_desc is NULL.
    if image_desc.is_null() {
        return Err(CL_INVALID_IMAGE_DESCRIPTOR);
    }
    // SAFETY: a cl_image_desc per the contract.
    let raw = unsafe { (image_desc as *const ClImageDesc).read_unaligned() };
    // mem_object may be a buffer for a 1D buffer image or a 2D image, an
    // image for a 2D image; otherwise it must be NULL. A 1D buffer image
    // needs one.
    let source = if raw.mem_object.is_null() {
        if raw.image_type == CL_MEM_OBJECT_IMAGE1D_BUFFER {
            return Err(CL_INVALID_IMAGE_DESCRIPTOR);
        }
        None
    } else {
        // SAFETY: a handle the application got from this library.
        let m = unsafe { arc_from_handle::<Mem>(raw.mem_object) }
            .map_err(|_| CL_INVALID_IMAGE_DESCRIPTOR)?;
        let allowed = matches!(
            (raw.image_type, &m.image),
            (CL_MEM_OBJECT_IMAGE1D_BUFFER, None) | (CL_MEM_OBJECT_IMAGE2D, _)
        );
        if !allowed || !Arc::ptr_eq(&m.context, &ctx) {
            return Err(CL_INVALID_IMAGE_DESCRIPTOR);
        }
        Some(m)
    };
    let mut flags = flags;
    if let Some(m) = &source {
        let pf = m.flags;
        // CL_INVALID_VALUE if an image is being created from another memory
        // object (buffer or image) and mem_object was created with
        // CL_MEM_WRITE_ONLY and flags specifies CL_MEM_READ_WRITE or
        // CL_MEM_READ_ONLY, or with CL_MEM_READ_ONLY and flags specifies
        // CL_MEM_READ_WRITE or CL_MEM_WRITE_ONLY, or flags specifies
        // CL_MEM_USE_HOST_PTR or CL_MEM_ALLOC_HOST_PTR or
        // CL_MEM_COPY_HOST_PTR; likewise for host access flags the parent
        // excludes.
        check_flags_against_parent(pf, flags)?;
        // Access flags not given, and the host pointer flags, are
        // inherited from mem_object.
        if flags & DEVICE_ACCESS_FLAGS == 0 {
            flags |= pf & DEVICE_ACCESS_FLAGS;
        }
        if flags & HOST_ACCESS_FLAGS == 0 {
            flags |= pf & HOST_ACCESS_FLAGS;
        }
        flags |= pf & HOST_PTR_FLAGS;
    }
    let from_buffer = source.as_ref().is_some_and(|m| m.image.is_none());
    let desc = resolve_desc(
        &raw,
        element_size,
        !host_ptr.is_null() || source.is_some(),
        from_buffer,
    )?;
    let desc = match &source {
        Some(m) => {
            check_source(m, &format, &desc, &raw, element_size)?;
            // A view of another image takes that image's pitches.
            m.image.as_ref().map_or(desc, |parent| parent.desc)
        }
        None => desc,
    };
    // CL_INVALID_HOST_PTR if host_ptr is NULL and CL_MEM_USE_HOST_PTR or
    // CL_MEM_COPY_HOST_PTR are set in flags or if host_ptr is not NULL but
    // CL_MEM_COPY_HOST_PTR or CL_MEM_USE_HOST_PTR are not set in flags.
    if source.is_none() {
        let wants_ptr = flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR) != 0;
        if wants_ptr == host_ptr.is_null() {
            return Err(CL_INVALID_HOST_PTR);
        }
    } else if !host_ptr.is_null() {
        return Err(CL_INVALID_HOST_PTR);
    }
    // CL_IMAGE_FORMAT_NOT_SUPPORTED if there are no devices in context that
    // support image_format.
    if !format.is_supported(desc.image_type, flags) {
        return Err(CL_IMAGE_FORMAT_NOT_SUPPORTED);
    }
    // CL_INVALID_IMAGE_SIZE if the image's memory exceeds the device's
    // largest allocation.
    if ctx
        .devices
        .iter()
        .all(|d| desc.size() as u64 > d.info().max_mem_alloc_size)
    {
        return Err(CL_INVALID_IMAGE_SIZE);
    }
    if flags & DEVICE_ACCESS_FLAGS == 0 {
        flags |= CL_MEM_READ_WRITE;
    }
    let source = match &source {
        Some(m) => ImageSource::Shared(m),
        None => ImageSource::New { host_ptr },
    };
    Ok(into_handle(image::create_image(
        &ctx, flags, format, desc, source, properties,
    )?))
}

/// The rules of an image made from a buffer or from another image.
fn check_source(
    m: &Mem,
    format: &ImageFormat,
    desc: &ImageDesc,
    raw: &ClImageDesc,
    element_size: usize,
) -> Result<(), cl_int> {
    match &m.image {
        None => {
            // A 1D image buffer's width × element size, and a 2D image's
            // row pitch × height, must fit in the buffer.
            if desc.size() > m.size {
                return Err(CL_INVALID_IMAGE_SIZE);
            }
            // CL_INVALID_IMAGE_FORMAT_DESCRIPTOR if a 2D image is created
            // from a buffer and the row pitch and base address alignment do
            // not follow the rules: the buffer's start must be a multiple
            // of CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT pixels.
            let align = element_size * image::IMAGE_BASE_ADDRESS_ALIGNMENT as usize;
            let base = if m.host_ptr != 0 {
                m.host_ptr
            } else {
                m.offset
            };
            if !base.is_multiple_of(align) {
                return Err(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
            }
            Ok(())
        }
        Some(parent) => {
            // The image channel data type must match mem_object's, and the
            // channel order be compatible with it.
            if format.channel_data_type != parent.format.channel_data_type
                || !orders_compatible(format.channel_order, parent.format.channel_order)
            {
                return Err(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
            }
            // All of the values in image_desc except mem_object must match
            // mem_object's.
            let p = &parent.desc;
            if p.image_type != CL_MEM_OBJECT_IMAGE2D
                || desc.width != p.width
                || desc.height != p.height
                || (raw.image_row_pitch != 0 && raw.image_row_pitch != p.row_pitch)
            {
                return Err(CL_INVALID_IMAGE_DESCRIPTOR);
            }
            Ok(())
        }
    }
}

/// The properties of `clCreateImageWithProperties`: none is supported,
/// so only an empty list is accepted.
///
/// # Safety
/// `properties` is NULL or a 0-terminated list.
unsafe fn image_properties(properties: *const cl_properties) -> Result<Vec<u64>, cl_int> {
    if properties.is_null() {
        return Ok(Vec::new());
    }
    // CL_INVALID_PROPERTY if a property name in properties is not a
    // supported property name.
    // SAFETY: per the contract.
    if unsafe { properties.read_unaligned() } != 0 {
        return Err(CL_INVALID_PROPERTY);
    }
    Ok(vec![0])
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
    // SAFETY: the application's handle and pointers.
    unsafe {
        api_create(errcode_ret, || {
            // CL_INVALID_CONTEXT if context is not a valid context.
            let ctx = arc_from_handle::<Context>(context)?;
            create_image(ctx, Vec::new(), flags, image_format, image_desc, host_ptr)
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
    // SAFETY: the application's handle and pointers.
    unsafe {
        api_create(errcode_ret, || {
            // CL_INVALID_CONTEXT if context is not a valid context.
            let ctx = arc_from_handle::<Context>(context)?;
            let list = image_properties(properties)?;
            create_image(ctx, list, flags, image_format, image_desc, host_ptr)
        })
    }
}

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
    let desc = ClImageDesc {
        image_type: CL_MEM_OBJECT_IMAGE2D,
        image_width,
        image_height,
        image_depth: 0,
        image_array_size: 0,
        image_row_pitch,
        image_slice_pitch: 0,
        num_mip_levels: 0,
        num_samples: 0,
        mem_object: std::ptr::null_mut(),
    };
    // SAFETY: the application's handle and pointers; desc lives for the
    // call.
    unsafe {
        api_create(errcode_ret, || {
            // CL_INVALID_CONTEXT if context is not a valid context.
            let ctx = arc_from_handle::<Context>(context)?;
            create_image(
                ctx,
                Vec::new(),
                flags,
                image_format,
                (&desc as *const ClImageDesc).cast(),
                host_ptr,
            )
            .map_err(legacy_error)
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
    let desc = ClImageDesc {
        image_type: CL_MEM_OBJECT_IMAGE3D,
        image_width,
        image_height,
        image_depth,
        image_array_size: 0,
        image_row_pitch,
        image_slice_pitch,
        num_mip_levels: 0,
        num_samples: 0,
        mem_object: std::ptr::null_mut(),
    };
    // SAFETY: the application's handle and pointers; desc lives for the
    // call.
    unsafe {
        api_create(errcode_ret, || {
            // CL_INVALID_CONTEXT if context is not a valid context.
            let ctx = arc_from_handle::<Context>(context)?;
            // CL_INVALID_IMAGE_SIZE if image_depth <= 1, after the flag and
            // format checks that come first.
            if image_depth <= 1 {
                if !flags_valid(flags) {
                    return Err(CL_INVALID_VALUE);
                }
                read_format(image_format)?;
                return Err(CL_INVALID_IMAGE_SIZE);
            }
            create_image(
                ctx,
                Vec::new(),
                flags,
                image_format,
                (&desc as *const ClImageDesc).cast(),
                host_ptr,
            )
            .map_err(legacy_error)
        })
    }
}

/// clCreateImage2D and clCreateImage3D have no image descriptor: the
/// pitch errors of `clCreateImage` are `CL_INVALID_IMAGE_SIZE` there.
fn legacy_error(code: cl_int) -> cl_int {
    if code == CL_INVALID_IMAGE_DESCRIPTOR {
        CL_INVALID_IMAGE_SIZE
    } else {
        code
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
        unsafe { from_handle::<Context>(context)? };
        // CL_INVALID_VALUE if flags or image_type are not valid, or if
        // num_entries is 0 and image_formats is not NULL.
        if !flags_valid(flags)
            || !image::is_image_type(image_type)
            || (num_entries == 0 && !image_formats.is_null())
        {
            return Err(CL_INVALID_VALUE);
        }
        let list: Vec<ImageFormat> = all_formats()
            .into_iter()
            .filter(|f| f.is_supported(image_type, flags))
            .collect();
        if !image_formats.is_null() {
            let out = image_formats as *mut ImageFormat;
            for (i, f) in list.iter().take(num_entries as usize).enumerate() {
                // SAFETY: the application gives room for num_entries.
                unsafe { out.add(i).write_unaligned(*f) };
            }
        }
        if !num_image_formats.is_null() {
            // SAFETY: the application's writable cl_uint.
            unsafe { num_image_formats.write_unaligned(list.len() as cl_uint) };
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
    api_call(|| {
        // CL_INVALID_MEM_OBJECT if image is a not a valid image object.
        // SAFETY: a handle the application got from this library.
        let m = unsafe { from_handle::<Mem>(image)? };
        let img = image::image_of(m)?;
        let d = &img.desc;
        let t = d.image_type;
        let (size, ptr, ret) = (param_value_size, param_value, param_value_size_ret);
        let height = match t {
            CL_MEM_OBJECT_IMAGE2D | CL_MEM_OBJECT_IMAGE2D_ARRAY | CL_MEM_OBJECT_IMAGE3D => d.height,
            _ => 0,
        };
        let depth = if t == CL_MEM_OBJECT_IMAGE3D {
            d.depth
        } else {
            0
        };
        let array_size = match t {
            CL_MEM_OBJECT_IMAGE1D_ARRAY | CL_MEM_OBJECT_IMAGE2D_ARRAY => d.array_size,
            _ => 0,
        };
        // SAFETY: the application's output pointers.
        unsafe {
            match param_name {
                CL_IMAGE_FORMAT => write_info(
                    &[img.format.channel_order, img.format.channel_data_type],
                    size,
                    ptr,
                    ret,
                ),
                CL_IMAGE_ELEMENT_SIZE => write_info(&img.element_size, size, ptr, ret),
                CL_IMAGE_ROW_PITCH => write_info(&d.row_pitch, size, ptr, ret),
                CL_IMAGE_SLICE_PITCH => write_info(&d.slice_pitch, size, ptr, ret),
                CL_IMAGE_WIDTH => write_info(&d.width, size, ptr, ret),
                CL_IMAGE_HEIGHT => write_info(&height, size, ptr, ret),
                CL_IMAGE_DEPTH => write_info(&depth, size, ptr, ret),
                CL_IMAGE_ARRAY_SIZE => write_info(&array_size, size, ptr, ret),
                CL_IMAGE_BUFFER => {
                    let buffer = match &m.parent {
                        Some(p) if p.image.is_none() => handle_of(&**p),
                        _ => std::ptr::null_mut(),
                    };
                    write_info(&buffer, size, ptr, ret)
                }
                CL_IMAGE_NUM_MIP_LEVELS | CL_IMAGE_NUM_SAMPLES => write_info(&0u32, size, ptr, ret),
                // CL_INVALID_VALUE if param_name is not valid.
                _ => Err(CL_INVALID_VALUE),
            }
        }
    })
}

/// The queue and image of an image command, with the context check.
///
/// # Safety
/// Handles from the application.
unsafe fn queue_and_image(
    command_queue: *mut c_void,
    image: *mut c_void,
) -> Result<(Arc<Queue>, Arc<Mem>), cl_int> {
    // SAFETY: forwarded contract.
    unsafe {
        // CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host
        // command-queue.
        let queue = queue_arg(command_queue)?;
        let mem = image_arg(&queue, image)?;
        Ok((queue, mem))
    }
}

/// The image of a command on `queue`, with the context check.
///
/// # Safety
/// A handle from the application.
unsafe fn image_arg(queue: &Queue, image: *mut c_void) -> Result<Arc<Mem>, cl_int> {
    // CL_INVALID_MEM_OBJECT if image is not a valid image object.
    // SAFETY: forwarded contract.
    let mem = unsafe { arc_from_handle::<Mem>(image)? };
    image::image_of(&mem)?;
    // CL_INVALID_CONTEXT if the context associated with command_queue and
    // image are not the same.
    if !Arc::ptr_eq(&queue.context, &mem.context) {
        return Err(CL_INVALID_CONTEXT);
    }
    Ok(mem)
}

/// Whether `image` is a 1D image buffer made from `buffer`.
fn made_from(image: &Mem, buffer: &Arc<Mem>) -> bool {
    let one_d_buffer = image
        .image
        .as_ref()
        .is_some_and(|i| i.desc.image_type == CL_MEM_OBJECT_IMAGE1D_BUFFER);
    one_d_buffer
        && image
            .parent
            .as_ref()
            .is_some_and(|p| Arc::ptr_eq(p, buffer))
}

/// Reads a `size_t[3]`; `CL_INVALID_VALUE` if NULL.
///
/// # Safety
/// `ptr` is NULL or points to 3 values.
unsafe fn triple(ptr: *const usize) -> Result<[usize; 3], cl_int> {
    if ptr.is_null() {
        return Err(CL_INVALID_VALUE);
    }
    // SAFETY: per the contract.
    unsafe {
        Ok([
            ptr.read_unaligned(),
            ptr.add(1).read_unaligned(),
            ptr.add(2).read_unaligned(),
        ])
    }
}

/// CL_INVALID_VALUE if the region is out of bounds, has a 0, or if values
/// in origin and region do not follow the rules for the image's type (the
/// unused coordinates of origin 0, of region 1).
fn check_region(img: &Image, origin: [usize; 3], region: [usize; 3]) -> Result<(), cl_int> {
    if region.contains(&0) {
        return Err(CL_INVALID_VALUE);
    }
    let dims = img.desc.dims();
    for d in dims..3 {
        if origin[d] != 0 || region[d] != 1 {
            return Err(CL_INVALID_VALUE);
        }
    }
    let extent = img.desc.extent();
    for d in 0..3 {
        if origin[d]
            .checked_add(region[d])
            .is_none_or(|end| end > extent[d])
        {
            return Err(CL_INVALID_VALUE);
        }
    }
    Ok(())
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
    // SAFETY: the application's pointers, as the spec defines them.
    api_call(|| unsafe {
        let (queue, mem) = queue_and_image(command_queue, image)?;
        let img = image::image_of(&mem)?;
        // CL_INVALID_VALUE if origin or region is NULL, the region is out
        // of bounds or breaks the rules of the image type, the pitches are
        // not valid, or ptr is NULL.
        let (o, r) = (triple(origin)?, triple(region)?);
        check_region(img, o, r)?;
        let host = image::host_rect(&img.desc, img.element_size, r, row_pitch, slice_pitch)?;
        if ptr.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let waits = wait_list(&queue, num_events_in_wait_list, event_wait_list)?;
        check_host_read(&mem)?;
        let e = image::enqueue_read(
            &queue,
            &mem,
            o,
            r,
            host,
            ptr as usize,
            &waits,
            blocking_read != 0,
        )?;
        finish_enqueue(e, blocking_read != 0, event)
    })
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
    // SAFETY: the application's pointers, as the spec defines them.
    api_call(|| unsafe {
        let (queue, mem) = queue_and_image(command_queue, image)?;
        let img = image::image_of(&mem)?;
        // CL_INVALID_VALUE if origin or region is NULL, the region is out
        // of bounds or breaks the rules of the image type, the pitches are
        // not valid, or ptr is NULL.
        let (o, r) = (triple(origin)?, triple(region)?);
        check_region(img, o, r)?;
        let host = image::host_rect(
            &img.desc,
            img.element_size,
            r,
            input_row_pitch,
            input_slice_pitch,
        )?;
        if ptr.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let waits = wait_list(&queue, num_events_in_wait_list, event_wait_list)?;
        check_host_write(&mem)?;
        let e = image::enqueue_write(&queue, &mem, o, r, host, ptr as usize, &waits)?;
        finish_enqueue(e, blocking_write != 0, event)
    })
}

/// Whether two boxes (origin, region) share a pixel.
fn boxes_overlap(a: [usize; 3], b: [usize; 3], region: [usize; 3]) -> bool {
    (0..3).all(|d| a[d] < b[d] + region[d] && b[d] < a[d] + region[d])
}

/// The checks of `clEnqueueCopyImage` but the queue's and the wait list's;
/// the copy they allow. `clCommandCopyImageKHR` shares them.
///
/// # Safety
/// The application's pointers, as the spec defines them.
pub(crate) unsafe fn check_copy_image(
    queue: &Queue,
    src_image: *mut c_void,
    dst_image: *mut c_void,
    src_origin: *const usize,
    dst_origin: *const usize,
    region: *const usize,
) -> Result<Command, cl_int> {
    // SAFETY: forwarded contract.
    unsafe {
        let src = image_arg(queue, src_image)?;
        let dst = image_arg(queue, dst_image)?;
        let (si, di) = (image::image_of(&src)?, image::image_of(&dst)?);
        // CL_IMAGE_FORMAT_MISMATCH if src_image and dst_image do not use
        // the same image format.
        if si.format != di.format {
            return Err(CL_IMAGE_FORMAT_MISMATCH);
        }
        // CL_INVALID_VALUE if an origin or region is NULL, or a region lies
        // outside its image or breaks the rules of its image type.
        let (so, d_o, r) = (triple(src_origin)?, triple(dst_origin)?, triple(region)?);
        check_region(si, so, r)?;
        check_region(di, d_o, r)?;
        // CL_MEM_COPY_OVERLAP if src_image and dst_image are the same image
        // object and the source and destination regions overlap.
        if Arc::ptr_eq(&src, &dst) && boxes_overlap(so, d_o, r) {
            return Err(CL_MEM_COPY_OVERLAP);
        }
        Ok(Command::CopyImage {
            src,
            dst,
            src_origin: so,
            dst_origin: d_o,
            region: r,
        })
    }
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
    // SAFETY: the application's pointers, as the spec defines them.
    api_call(|| unsafe {
        let queue = queue_arg(command_queue)?;
        let command =
            check_copy_image(&queue, src_image, dst_image, src_origin, dst_origin, region)?;
        enqueue_checked(
            &queue,
            command,
            num_events_in_wait_list,
            event_wait_list,
            event,
        )
    })
}

/// CL_INVALID_VALUE unless `offset` plus the bytes of `region` of `img`
/// lies within `buffer`.
fn check_buffer_span(
    img: &Image,
    region: [usize; 3],
    buffer: &Mem,
    offset: usize,
) -> Result<(), cl_int> {
    let bytes = region[0] * region[1] * region[2] * img.element_size;
    if offset
        .checked_add(bytes)
        .is_none_or(|end| end > buffer.size)
    {
        return Err(CL_INVALID_VALUE);
    }
    Ok(())
}

/// The checks of `clEnqueueCopyImageToBuffer` but the queue's and the wait
/// list's; the copy they allow. `clCommandCopyImageToBufferKHR` shares
/// them.
///
/// # Safety
/// The application's pointers, as the spec defines them.
pub(crate) unsafe fn check_copy_image_to_buffer(
    queue: &Queue,
    src_image: *mut c_void,
    dst_buffer: *mut c_void,
    src_origin: *const usize,
    region: *const usize,
    dst_offset: usize,
) -> Result<Command, cl_int> {
    // SAFETY: forwarded contract.
    unsafe {
        let src = image_arg(queue, src_image)?;
        let dst = buffer_arg(queue, dst_buffer)?;
        // CL_INVALID_MEM_OBJECT if src_image is a 1D image buffer object
        // created from dst_buffer.
        if made_from(&src, &dst) {
            return Err(CL_INVALID_MEM_OBJECT);
        }
        let img = image::image_of(&src)?;
        // CL_INVALID_VALUE if src_origin or region is NULL, the region is
        // outside src_image or breaks the rules of its type, or dst_offset
        // + dst_cb is outside dst_buffer.
        let (o, r) = (triple(src_origin)?, triple(region)?);
        check_region(img, o, r)?;
        check_buffer_span(img, r, &dst, dst_offset)?;
        Ok(Command::CopyImageToBuffer {
            src,
            dst,
            src_origin: o,
            region: r,
            dst_offset,
        })
    }
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
    // SAFETY: the application's pointers, as the spec defines them.
    api_call(|| unsafe {
        let queue = queue_arg(command_queue)?;
        let command = check_copy_image_to_buffer(
            &queue, src_image, dst_buffer, src_origin, region, dst_offset,
        )?;
        enqueue_checked(
            &queue,
            command,
            num_events_in_wait_list,
            event_wait_list,
            event,
        )
    })
}

/// The checks of `clEnqueueCopyBufferToImage` but the queue's and the wait
/// list's; the copy they allow. `clCommandCopyBufferToImageKHR` shares
/// them.
///
/// # Safety
/// The application's pointers, as the spec defines them.
pub(crate) unsafe fn check_copy_buffer_to_image(
    queue: &Queue,
    src_buffer: *mut c_void,
    dst_image: *mut c_void,
    src_offset: usize,
    dst_origin: *const usize,
    region: *const usize,
) -> Result<Command, cl_int> {
    // SAFETY: forwarded contract.
    unsafe {
        let src = buffer_arg(queue, src_buffer)?;
        let dst = image_arg(queue, dst_image)?;
        // CL_INVALID_MEM_OBJECT if dst_image is a 1D image buffer object
        // created from src_buffer.
        if made_from(&dst, &src) {
            return Err(CL_INVALID_MEM_OBJECT);
        }
        let img = image::image_of(&dst)?;
        // CL_INVALID_VALUE if dst_origin or region is NULL, the region is
        // outside dst_image or breaks the rules of its type, or src_offset
        // + src_cb is outside src_buffer.
        let (o, r) = (triple(dst_origin)?, triple(region)?);
        check_region(img, o, r)?;
        check_buffer_span(img, r, &src, src_offset)?;
        Ok(Command::CopyBufferToImage {
            src,
            dst,
            src_offset,
            dst_origin: o,
            region: r,
        })
    }
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
    // SAFETY: the application's pointers, as the spec defines them.
    api_call(|| unsafe {
        let queue = queue_arg(command_queue)?;
        let command = check_copy_buffer_to_image(
            &queue, src_buffer, dst_image, src_offset, dst_origin, region,
        )?;
        enqueue_checked(
            &queue,
            command,
            num_events_in_wait_list,
            event_wait_list,
            event,
        )
    })
}

/// The checks of `clEnqueueFillImage` but the queue's and the wait list's;
/// the fill they allow. `clCommandFillImageKHR` shares them.
///
/// # Safety
/// The application's pointers, as the spec defines them.
pub(crate) unsafe fn check_fill_image(
    queue: &Queue,
    image: *mut c_void,
    fill_color: *const c_void,
    origin: *const usize,
    region: *const usize,
) -> Result<Command, cl_int> {
    // SAFETY: forwarded contract.
    unsafe {
        let mem = image_arg(queue, image)?;
        let img = image::image_of(&mem)?;
        // CL_INVALID_VALUE if fill_color is NULL.
        if fill_color.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        // CL_INVALID_VALUE if origin or region is NULL, the region is out of
        // bounds or breaks the rules of the image type.
        let (o, r) = (triple(origin)?, triple(region)?);
        check_region(img, o, r)?;
        // A depth image's fill colour is one float; every other is four
        // 32-bit values.
        let mut bytes = [0u8; 16];
        let n = if img.format.channel_order == CL_DEPTH {
            4
        } else {
            16
        };
        std::ptr::copy_nonoverlapping(fill_color as *const u8, bytes.as_mut_ptr(), n);
        let color = FillColor::from_bytes(&img.format, bytes);
        Ok(Command::FillImage {
            mem,
            color,
            origin: o,
            region: r,
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
    // SAFETY: the application's pointers, as the spec defines them.
    api_call(|| unsafe {
        let queue = queue_arg(command_queue)?;
        let command = check_fill_image(&queue, image, fill_color, origin, region)?;
        enqueue_checked(
            &queue,
            command,
            num_events_in_wait_list,
            event_wait_list,
            event,
        )
    })
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
    // SAFETY: the application's pointers, as the spec defines them.
    unsafe {
        api_create(errcode_ret, || {
            let (queue, mem) = queue_and_image(command_queue, image)?;
            let img = image::image_of(&mem)?;
            // CL_INVALID_VALUE if origin or region is NULL, the region is
            // out of bounds or breaks the rules of the image type, or
            // values specified in map_flags are not valid.
            let (o, r) = (triple(origin)?, triple(region)?);
            check_region(img, o, r)?;
            let known = CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION;
            if map_flags & !known != 0
                || (map_flags & CL_MAP_WRITE_INVALIDATE_REGION != 0
                    && map_flags & (CL_MAP_READ | CL_MAP_WRITE) != 0)
            {
                return Err(CL_INVALID_VALUE);
            }
            // CL_INVALID_VALUE if image_row_pitch is NULL, or if
            // image_slice_pitch is NULL for a 3D image, 1D or 2D image array.
            let t = img.desc.image_type;
            let needs_slice = matches!(
                t,
                CL_MEM_OBJECT_IMAGE3D | CL_MEM_OBJECT_IMAGE1D_ARRAY | CL_MEM_OBJECT_IMAGE2D_ARRAY
            );
            if image_row_pitch.is_null() || (needs_slice && image_slice_pitch.is_null()) {
                return Err(CL_INVALID_VALUE);
            }
            let waits = wait_list(&queue, num_events_in_wait_list, event_wait_list)?;
            // CL_INVALID_OPERATION if image has been created with
            // CL_MEM_HOST_WRITE_ONLY or CL_MEM_HOST_NO_ACCESS and CL_MAP_READ
            // is set in map_flags, or with CL_MEM_HOST_READ_ONLY or
            // CL_MEM_HOST_NO_ACCESS and CL_MAP_WRITE or
            // CL_MAP_WRITE_INVALIDATE_REGION is set in map_flags.
            if map_flags & CL_MAP_READ != 0 {
                check_host_read(&mem)?;
            }
            if map_flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION) != 0 {
                check_host_write(&mem)?;
            }
            let (e, ptr, row_pitch, slice_pitch) =
                image::enqueue_map(&queue, &mem, map_flags, o, r, &waits)?;
            image_row_pitch.write_unaligned(row_pitch);
            if !image_slice_pitch.is_null() {
                image_slice_pitch.write_unaligned(slice_pitch);
            }
            finish_enqueue(e, blocking_map != 0, event)?;
            Ok(ptr)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_and_overlaps() {
        assert!(flags_valid(0));
        assert!(flags_valid(
            CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR | CL_MEM_HOST_NO_ACCESS
        ));
        assert!(!flags_valid(CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY));
        assert!(!flags_valid(CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR));
        assert!(!flags_valid(1 << 40));
        assert!(boxes_overlap([0, 0, 0], [1, 1, 0], [2, 2, 1]));
        assert!(!boxes_overlap([0, 0, 0], [2, 0, 0], [2, 2, 1]));
        assert!(orders_compatible(CL_sRGBA, CL_RGBA));
        assert!(!orders_compatible(CL_BGRA, CL_RGBA));
    }
}
