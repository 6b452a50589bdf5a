//! Buffer entry points: creation, sub-buffers, info, and every buffer
//! transfer command.

use crate::enqueue::{queue_arg, return_event, unfailed_wait_list, wait_list};
use crate::entry::{api_call, api_create};
use crate::info::write_info;
use crate::properties::{context_devices, Properties, Value};
use ferrocl_runtime::api::{
    arc_from_handle, from_handle, handle_of, into_handle, reference_count, release, retain,
};
use ferrocl_runtime::cl::*;
use ferrocl_runtime::command::{Command, Pattern};
use ferrocl_runtime::context::{Context, ObjectCallback};
use ferrocl_runtime::device_address;
use ferrocl_runtime::external_memory;
use ferrocl_runtime::memory::{
    self, wait_blocking, Mem, Rect, DEVICE_ACCESS_FLAGS, HOST_ACCESS_FLAGS,
};
use ferrocl_runtime::queue::Queue;
use std::ffi::c_void;
use std::sync::Arc;

const HOST_PTR_FLAGS: cl_bitfield =
    CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR;

/// Checks the `cl_mem_flags` of a buffer: at most one device access flag,
/// at most one host access flag, no contradictory host pointer flags.
fn check_flags(flags: cl_bitfield) -> Result<(), cl_int> {
    let known =
        DEVICE_ACCESS_FLAGS | HOST_ACCESS_FLAGS | HOST_PTR_FLAGS | CL_MEM_KERNEL_READ_AND_WRITE;
    if flags & !known != 0
        || (flags & DEVICE_ACCESS_FLAGS).count_ones() > 1
        || (flags & HOST_ACCESS_FLAGS).count_ones() > 1
        || (flags & CL_MEM_USE_HOST_PTR != 0
            && flags & (CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR) != 0)
    {
        return Err(CL_INVALID_VALUE);
    }
    Ok(())
}

fn create_buffer(
    context: *mut c_void,
    props: Properties,
    flags: cl_bitfield,
    size: usize,
    host_ptr: *mut c_void,
) -> Result<*mut c_void, cl_int> {
    // CL_INVALID_CONTEXT if context is not a valid context.
    // SAFETY: a handle the application got from this library.
    let ctx = unsafe { arc_from_handle::<Context>(context)? };
    if let Some(fd) = props.word(CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR) {
        return create_external_buffer(ctx, props, flags, size, host_ptr, fd as i32);
    }
    // CL_INVALID_PROPERTY if properties does not include a supported
    // external memory handle and CL_MEM_DEVICE_HANDLE_LIST_KHR is
    // specified.
    if props.list(CL_MEM_DEVICE_HANDLE_LIST_KHR).is_some() {
        return Err(CL_INVALID_PROPERTY);
    }
    // CL_INVALID_VALUE if values specified in flags are not valid.
    check_flags(flags)?;
    // CL_INVALID_BUFFER_SIZE if size is 0, or if size is greater than
    // CL_DEVICE_MAX_MEM_ALLOC_SIZE for all devices in context.
    if size == 0
        || ctx
            .devices
            .iter()
            .all(|d| size as u64 > d.info().max_mem_alloc_size)
    {
        return Err(CL_INVALID_BUFFER_SIZE);
    }
    // CL_INVALID_HOST_PTR if host_ptr is NULL and CL_MEM_USE_HOST_PTR or
    // CL_MEM_COPY_HOST_PTR are set in flags or if host_ptr is not NULL but
    // CL_MEM_COPY_HOST_PTR or CL_MEM_USE_HOST_PTR are not set in flags.
    let wants_ptr = flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR) != 0;
    if wants_ptr == host_ptr.is_null() {
        return Err(CL_INVALID_HOST_PTR);
    }
    let flags = if flags & DEVICE_ACCESS_FLAGS == 0 {
        flags | CL_MEM_READ_WRITE
    } else {
        flags
    };
    let device_address = wants_device_address(&props);
    let properties = props.array;
    // CL_MEM_USE_HOST_PTR with a pointer from clSVMAlloc: the buffer has the
    // shared memory as its storage (and so its device address is the SVM
    // pointer, as cl_ext_buffer_device_address promises).
    // CL_INVALID_BUFFER_SIZE when size runs past the end of the SVM
    // allocation.
    let over_svm = if flags & CL_MEM_USE_HOST_PTR != 0 {
        ferrocl_runtime::svm::buffer_over(&ctx, flags, size, host_ptr as usize, properties.clone())?
    } else {
        None
    };
    let mem = match over_svm {
        Some(mem) => mem,
        None => Mem::new_buffer(ctx, flags, size, host_ptr, properties)?,
    };
    if device_address {
        device_address::register(&mem);
    }
    Ok(into_handle(mem))
}

#[no_mangle]
pub unsafe extern "C" fn clCreateBuffer(
    context: *mut c_void,
    flags: cl_bitfield,
    size: usize,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    // SAFETY: errcode_ret is the application's.
    unsafe {
        api_create(errcode_ret, || {
            create_buffer(context, Properties::default(), flags, size, host_ptr)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn clCreateBufferWithProperties(
    context: *mut c_void,
    properties: *const cl_properties,
    flags: cl_bitfield,
    size: usize,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    // SAFETY: errcode_ret is the application's.
    unsafe {
        api_create(errcode_ret, || {
            // CL_INVALID_CONTEXT if context is not a valid context.
            from_handle::<Context>(context)?;
            // CL_INVALID_PROPERTY if a property name in properties is not a
            // supported property name, if the value specified for a
            // supported property name is not valid, or if the same property
            // name is specified more than once (or more than one external
            // memory handle is given: there is one handle type).
            let list_name = CL_MEM_DEVICE_HANDLE_LIST_KHR;
            let props = Properties::read(properties, &[list_name], CL_INVALID_PROPERTY)?;
            let valid = |(name, value): &(u64, Value)| match (*name, value) {
                // cl_ext_buffer_device_address's cl_bool.
                (n, Value::Word(w)) if n == u64::from(CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT) => {
                    *w == u64::from(CL_TRUE) || *w == u64::from(CL_FALSE)
                }
                // cl_khr_external_memory_opaque_fd's descriptor, and the
                // devices it is for.
                (n, _) => {
                    n == u64::from(CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR)
                        || n == u64::from(list_name)
                }
            };
            if !props.entries.iter().all(valid) {
                return Err(CL_INVALID_PROPERTY);
            }
            create_buffer(context, props, flags, size, host_ptr)
        })
    }
}

/// Whether `CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT` is `CL_TRUE` in `props`.
fn wants_device_address(props: &Properties) -> bool {
    props.word(CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT) == Some(u64::from(CL_TRUE))
}

/// `clCreateBufferWithProperties` with an opaque file descriptor
/// (cl_khr_external_memory_opaque_fd): a buffer over the memory it names,
/// imported into the context's first device.
fn create_external_buffer(
    ctx: Arc<Context>,
    props: Properties,
    flags: cl_bitfield,
    size: usize,
    host_ptr: *mut c_void,
    fd: i32,
) -> Result<*mut c_void, cl_int> {
    // CL_INVALID_DEVICE if a device identified by CL_MEM_DEVICE_HANDLE_LIST_KHR
    // is not a valid device of context or cannot import the handle type, or
    // if the list is not given and a device of context cannot. The memory
    // is imported into one device, the context's first.
    let first = &ctx.devices[0];
    let imports = |d: &Arc<ferrocl_runtime::device::Device>| {
        Arc::ptr_eq(d, first) && d.info().has_extension("cl_khr_external_memory_opaque_fd")
    };
    let importers = match props.list(CL_MEM_DEVICE_HANDLE_LIST_KHR) {
        // SAFETY: the application's handles.
        Some(handles) => unsafe { context_devices(&ctx, handles)? },
        None => ctx.devices.clone(),
    };
    if !importers.iter().all(imports) {
        return Err(CL_INVALID_DEVICE);
    }
    // CL_INVALID_VALUE if values specified in flags are not valid, or if an
    // external memory handle comes with CL_MEM_USE_HOST_PTR,
    // CL_MEM_ALLOC_HOST_PTR or CL_MEM_COPY_HOST_PTR.
    check_flags(flags)?;
    if flags & HOST_PTR_FLAGS != 0 {
        return Err(CL_INVALID_VALUE);
    }
    // CL_INVALID_BUFFER_SIZE if size is 0 or larger than the device allows.
    if size == 0 || size as u64 > first.info().max_mem_alloc_size {
        return Err(CL_INVALID_BUFFER_SIZE);
    }
    // CL_INVALID_HOST_PTR if an external memory handle comes with a
    // host_ptr.
    if !host_ptr.is_null() {
        return Err(CL_INVALID_HOST_PTR);
    }
    let flags = if flags & DEVICE_ACCESS_FLAGS == 0 {
        flags | CL_MEM_READ_WRITE
    } else {
        flags
    };
    let device_address = wants_device_address(&props);
    let mem = external_memory::import_opaque_fd(ctx, flags, size, fd, props.array)?;
    if device_address {
        device_address::register(&mem);
    }
    Ok(into_handle(mem))
}

/// `clEnqueueAcquireExternalMemObjectsKHR` (`acquire`) and
/// `clEnqueueReleaseExternalMemObjectsKHR`.
///
/// # Safety
/// The application's pointers, as the extension defines them.
unsafe fn external_ownership(
    command_queue: *mut c_void,
    num_mem_objects: cl_uint,
    mem_objects: *const *mut c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const *mut c_void,
    event: *mut *mut c_void,
    acquire: bool,
) -> cl_int {
    // SAFETY: the application's pointers.
    api_call(|| unsafe {
        // CL_INVALID_COMMAND_QUEUE if command_queue is not a valid
        // command-queue.
        let queue = queue_arg(command_queue)?;
        // CL_INVALID_VALUE if num_mem_objects is zero and mem_objects is not
        // NULL, or if num_mem_objects is greater than 0 and mem_objects is
        // NULL.
        if (num_mem_objects == 0) != mem_objects.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let mems = (0..num_mem_objects as usize)
            .map(|i| {
                // CL_INVALID_MEM_OBJECT if any of the memory objects is not
                // a valid memory object created using an external memory
                // handle.
                let mem = arc_from_handle::<Mem>(mem_objects.add(i).read_unaligned())?;
                if !external_memory::is_external(&mem) {
                    return Err(CL_INVALID_MEM_OBJECT);
                }
                // CL_INVALID_COMMAND_QUEUE if a memory object belongs to a
                // context that does not hold the queue's device, or was
                // imported for another device.
                if !Arc::ptr_eq(&mem.context, &queue.context)
                    || !Arc::ptr_eq(&mem.context.devices[0], &queue.device)
                {
                    return Err(CL_INVALID_COMMAND_QUEUE);
                }
                Ok(mem)
            })
            .collect::<Result<Vec<_>, cl_int>>()?;
        let waits = unfailed_wait_list(&queue, num_events_in_wait_list, event_wait_list)?;
        let e = external_memory::enqueue_ownership(&queue, mems, acquire, &waits)?;
        return_event(event, e);
        Ok(())
    })
}

/// # Safety
/// The application's pointers, as the extension defines them.
#[allow(non_snake_case)] // the extension's C name
pub unsafe extern "C" fn clEnqueueAcquireExternalMemObjectsKHR(
    command_queue: *mut c_void,
    num_mem_objects: cl_uint,
    mem_objects: *const *mut c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const *mut c_void,
    event: *mut *mut c_void,
) -> cl_int {
    // SAFETY: forwarded.
    unsafe {
        external_ownership(
            command_queue,
            num_mem_objects,
            mem_objects,
            num_events_in_wait_list,
            event_wait_list,
            event,
            true,
        )
    }
}

/// # Safety
/// The application's pointers, as the extension defines them.
#[allow(non_snake_case)] // the extension's C name
pub unsafe extern "C" fn clEnqueueReleaseExternalMemObjectsKHR(
    command_queue: *mut c_void,
    num_mem_objects: cl_uint,
    mem_objects: *const *mut c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const *mut c_void,
    event: *mut *mut c_void,
) -> cl_int {
    // SAFETY: forwarded.
    unsafe {
        external_ownership(
            command_queue,
            num_mem_objects,
            mem_objects,
            num_events_in_wait_list,
            event_wait_list,
            event,
            false,
        )
    }
}

/// `cl_buffer_region`.
#[repr(C)]
#[derive(Clone, Copy)]
struct BufferRegion {
    origin: usize,
    size: usize,
}

#[no_mangle]
pub unsafe extern "C" fn clCreateSubBuffer(
    buffer: *mut c_void,
    flags: cl_bitfield,
    buffer_create_type: cl_uint,
    buffer_create_info: *const c_void,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    // SAFETY: errcode_ret is the application's.
    unsafe {
        api_create(errcode_ret, || {
            // CL_INVALID_MEM_OBJECT if buffer is not a valid buffer object or
            // is a sub-buffer object.
            let parent = arc_from_handle::<Mem>(buffer)?;
            if parent.parent.is_some() || parent.image.is_some() {
                return Err(CL_INVALID_MEM_OBJECT);
            }
            // CL_INVALID_VALUE if buffer was created with CL_MEM_WRITE_ONLY
            // and flags specifies CL_MEM_READ_WRITE or CL_MEM_READ_ONLY, or
            // if buffer was created with CL_MEM_READ_ONLY and flags specifies
            // CL_MEM_READ_WRITE or CL_MEM_WRITE_ONLY, or if flags specifies
            // CL_MEM_USE_HOST_PTR or CL_MEM_ALLOC_HOST_PTR or
            // CL_MEM_COPY_HOST_PTR.
            check_flags(flags)?;
            let pf = parent.flags;
            check_flags_against_parent(pf, flags)?;
            // CL_INVALID_VALUE if the value specified in buffer_create_type
            // is not valid.
            if buffer_create_type != CL_BUFFER_CREATE_TYPE_REGION {
                return Err(CL_INVALID_VALUE);
            }
            // CL_INVALID_VALUE if value(s) specified in buffer_create_info
            // (for a given buffer_create_type) is not valid or if
            // buffer_create_info is NULL.
            if buffer_create_info.is_null() {
                return Err(CL_INVALID_VALUE);
            }
            let region = (buffer_create_info as *const BufferRegion).read_unaligned();
            // CL_INVALID_BUFFER_SIZE if the size field of the
            // cl_buffer_region structure passed in buffer_create_info is 0.
            if region.size == 0 {
                return Err(CL_INVALID_BUFFER_SIZE);
            }
            if region
                .origin
                .checked_add(region.size)
                .is_none_or(|end| end > parent.size)
            {
                return Err(CL_INVALID_VALUE);
            }
            // CL_MISALIGNED_SUB_BUFFER_OFFSET if there are no devices in
            // context associated with buffer for which the origin field of
            // the cl_buffer_region structure passed in buffer_create_info is
            // aligned to the CL_DEVICE_MEM_BASE_ADDR_ALIGN value.
            let aligned = parent.context.devices.iter().any(|d| {
                let align = (d.info().mem_base_addr_align as usize / 8).max(1);
                region.origin.is_multiple_of(align)
            });
            if !aligned {
                return Err(CL_MISALIGNED_SUB_BUFFER_OFFSET);
            }
            // Flags not given are inherited from the parent.
            let mut sub_flags = flags;
            if flags & DEVICE_ACCESS_FLAGS == 0 {
                sub_flags |= pf & DEVICE_ACCESS_FLAGS;
            }
            if flags & HOST_ACCESS_FLAGS == 0 {
                sub_flags |= pf & HOST_ACCESS_FLAGS;
            }
            sub_flags |= pf & HOST_PTR_FLAGS;
            Ok(into_handle(Mem::new_sub_buffer(
                &parent,
                sub_flags,
                region.origin,
                region.size,
            )))
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn clRetainMemObject(memobj: *mut c_void) -> cl_int {
    // SAFETY: a handle the application got from this library.
    api_call(|| unsafe { retain::<Mem>(memobj) })
}

#[no_mangle]
pub unsafe extern "C" fn clReleaseMemObject(memobj: *mut c_void) -> cl_int {
    // SAFETY: a handle the application got from this library.
    api_call(|| unsafe { release::<Mem>(memobj) })
}

#[no_mangle]
pub unsafe extern "C" fn clGetMemObjectInfo(
    memobj: *mut c_void,
    param_name: cl_uint,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    api_call(|| {
        // CL_INVALID_MEM_OBJECT if memobj is a not a valid memory object.
        // SAFETY: a handle the application got from this library.
        let m = unsafe { from_handle::<Mem>(memobj)? };
        let (size, ptr, ret) = (param_value_size, param_value, param_value_size_ret);
        // SAFETY: the application's output pointers.
        unsafe {
            match param_name {
                CL_MEM_TYPE => {
                    let t = m
                        .image
                        .as_ref()
                        .map_or(CL_MEM_OBJECT_BUFFER, |i| i.desc.image_type);
                    write_info(&t, size, ptr, ret)
                }
                CL_MEM_FLAGS => write_info(&m.flags, size, ptr, ret),
                CL_MEM_SIZE => write_info(&m.size, size, ptr, ret),
                CL_MEM_HOST_PTR => write_info(&(m.host_ptr as *mut c_void), size, ptr, ret),
                CL_MEM_MAP_COUNT => write_info(&(m.map_count() as cl_uint), size, ptr, ret),
                CL_MEM_REFERENCE_COUNT => write_info(&reference_count(m), size, ptr, ret),
                CL_MEM_CONTEXT => write_info(&handle_of(&*m.context), size, ptr, ret),
                CL_MEM_ASSOCIATED_MEMOBJECT => {
                    let parent = m
                        .parent
                        .as_ref()
                        .map_or(std::ptr::null_mut(), |p| handle_of(&**p));
                    write_info(&parent, size, ptr, ret)
                }
                CL_MEM_OFFSET => write_info(&m.origin, size, ptr, ret),
                CL_MEM_USES_SVM_POINTER => {
                    write_info(&ferrocl_runtime::svm::uses_svm_pointer(m), size, ptr, ret)
                }
                CL_MEM_PROPERTIES => write_info(&m.properties, size, ptr, ret),
                // CL_INVALID_OPERATION for a memory object created without
                // CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT.
                CL_MEM_DEVICE_ADDRESS_EXT => {
                    write_info(&device_address::addresses(m)?, size, ptr, ret)
                }
                // CL_INVALID_VALUE if param_name is not valid.
                _ => Err(CL_INVALID_VALUE),
            }
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn clSetMemObjectDestructorCallback(
    memobj: *mut c_void,
    pfn_notify: Option<ObjectCallback>,
    user_data: *mut c_void,
) -> cl_int {
    api_call(|| {
        // CL_INVALID_MEM_OBJECT if memobj is not a valid memory object.
        // SAFETY: a handle the application got from this library.
        let m = unsafe { from_handle::<Mem>(memobj)? };
        // CL_INVALID_VALUE if pfn_notify is NULL.
        let callback = pfn_notify.ok_or(CL_INVALID_VALUE)?;
        m.add_destructor(callback, user_data);
        Ok(())
    })
}

/// The queue and buffer of a transfer, with the context check.
///
/// # Safety
/// Handles from the application.
unsafe fn queue_and_mem(
    command_queue: *mut c_void,
    buffer: *mut c_void,
) -> Result<(Arc<Queue>, Arc<Mem>), cl_int> {
    // SAFETY: forwarded contract.
    unsafe {
        // CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host
        // command-queue.
        let queue = queue_arg(command_queue)?;
        let mem = buffer_arg(&queue, buffer)?;
        Ok((queue, mem))
    }
}

/// The buffer of a command on `queue`, with the context check.
///
/// # Safety
/// A handle from the application.
pub(crate) unsafe fn buffer_arg(queue: &Queue, buffer: *mut c_void) -> Result<Arc<Mem>, cl_int> {
    // CL_INVALID_MEM_OBJECT if buffer is not a valid buffer object.
    // SAFETY: forwarded contract.
    let mem = unsafe { arc_from_handle::<Mem>(buffer)? };
    if mem.image.is_some() {
        return Err(CL_INVALID_MEM_OBJECT);
    }
    // CL_INVALID_CONTEXT if the context associated with command_queue and
    // buffer are not the same.
    if !Arc::ptr_eq(&queue.context, &mem.context) {
        return Err(CL_INVALID_CONTEXT);
    }
    Ok(mem)
}

/// CL_INVALID_VALUE if a memory object made from `parent_flags`'s object
/// (a sub-buffer, or an image from a buffer or image) asks for access its
/// parent forbids: writes of a read-only parent, reads of a write-only one,
/// host pointer flags, or host access the parent's host flags exclude.
pub(crate) fn check_flags_against_parent(
    pf: cl_bitfield,
    flags: cl_bitfield,
) -> Result<(), cl_int> {
    if (pf & CL_MEM_WRITE_ONLY != 0 && flags & (CL_MEM_READ_WRITE | CL_MEM_READ_ONLY) != 0)
        || (pf & CL_MEM_READ_ONLY != 0 && flags & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY) != 0)
        || flags & HOST_PTR_FLAGS != 0
    {
        return Err(CL_INVALID_VALUE);
    }
    if (pf & CL_MEM_HOST_WRITE_ONLY != 0 && flags & CL_MEM_HOST_READ_ONLY != 0)
        || (pf & CL_MEM_HOST_READ_ONLY != 0 && flags & CL_MEM_HOST_WRITE_ONLY != 0)
        || (pf & CL_MEM_HOST_NO_ACCESS != 0
            && flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_WRITE_ONLY) != 0)
    {
        return Err(CL_INVALID_VALUE);
    }
    Ok(())
}

/// (offset, size) within `mem`, non-empty.
fn check_range(mem: &Mem, offset: usize, size: usize) -> Result<(), cl_int> {
    if size == 0 || offset.checked_add(size).is_none_or(|end| end > mem.size) {
        return Err(CL_INVALID_VALUE);
    }
    Ok(())
}

/// CL_INVALID_OPERATION if a read is called on a memory object (buffer or
/// image) created with CL_MEM_HOST_WRITE_ONLY or CL_MEM_HOST_NO_ACCESS.
pub(crate) fn check_host_read(mem: &Mem) -> Result<(), cl_int> {
    if mem.flags & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS) != 0 {
        return Err(CL_INVALID_OPERATION);
    }
    Ok(())
}

/// CL_INVALID_OPERATION if a write is called on a memory object created
/// with CL_MEM_HOST_READ_ONLY or CL_MEM_HOST_NO_ACCESS.
pub(crate) fn check_host_write(mem: &Mem) -> Result<(), cl_int> {
    if mem.flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS) != 0 {
        return Err(CL_INVALID_OPERATION);
    }
    Ok(())
}

fn linear(offset: usize) -> Rect {
    Rect {
        origin: [offset, 0, 0],
        row_pitch: 0,
        slice_pitch: 0,
    }
}

/// Finishes an enqueue: the event out, and the wait of a blocking call.
///
/// # Safety
/// `event` is NULL or writable.
pub(crate) unsafe fn finish_enqueue(
    e: Arc<ferrocl_runtime::event::Event>,
    blocking: bool,
    event: *mut *mut c_void,
) -> Result<(), cl_int> {
    if blocking {
        wait_blocking(&e)?;
    }
    // SAFETY: per the contract.
    unsafe { return_event(event, e) };
    Ok(())
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueReadBuffer(
    command_queue: *mut c_void,
    buffer: *mut c_void,
    blocking_read: cl_bool,
    offset: usize,
    size: usize,
    ptr: *mut c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const *mut c_void,
    event: *mut *mut c_void,
) -> cl_int {
    // SAFETY: the application's pointers, as the spec defines them.
    api_call(|| unsafe {
        let (queue, mem) = queue_and_mem(command_queue, buffer)?;
        // CL_INVALID_VALUE if the region being read specified by (offset,
        // size) is out of bounds or if ptr is a NULL value.
        check_range(&mem, offset, size)?;
        if ptr.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let waits = wait_list(&queue, num_events_in_wait_list, event_wait_list)?;
        check_host_read(&mem)?;
        let e = memory::enqueue_read(
            &queue,
            &mem,
            linear(offset),
            ptr as usize,
            linear(0),
            [size, 1, 1],
            &waits,
            CL_COMMAND_READ_BUFFER,
            blocking_read != 0,
        )?;
        finish_enqueue(e, blocking_read != 0, event)
    })
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueWriteBuffer(
    command_queue: *mut c_void,
    buffer: *mut c_void,
    blocking_write: cl_bool,
    offset: usize,
    size: usize,
    ptr: *const c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const *mut c_void,
    event: *mut *mut c_void,
) -> cl_int {
    // SAFETY: the application's pointers, as the spec defines them.
    api_call(|| unsafe {
        let (queue, mem) = queue_and_mem(command_queue, buffer)?;
        // CL_INVALID_VALUE if the region being written specified by (offset,
        // size) is out of bounds or if ptr is a NULL value.
        check_range(&mem, offset, size)?;
        if ptr.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let waits = wait_list(&queue, num_events_in_wait_list, event_wait_list)?;
        check_host_write(&mem)?;
        let e = memory::enqueue_write(
            &queue,
            &mem,
            linear(offset),
            ptr as usize,
            linear(0),
            [size, 1, 1],
            &waits,
            CL_COMMAND_WRITE_BUFFER,
        )?;
        finish_enqueue(e, blocking_write != 0, event)
    })
}

/// The checks of `clEnqueueCopyBuffer` but the queue's and the wait
/// list's; the copy they allow. `clCommandCopyBufferKHR` shares them.
///
/// # Safety
/// Handles from the application.
pub(crate) unsafe fn check_copy_buffer(
    queue: &Queue,
    src_buffer: *mut c_void,
    dst_buffer: *mut c_void,
    src_offset: usize,
    dst_offset: usize,
    size: usize,
) -> Result<Command, cl_int> {
    // SAFETY: forwarded contract.
    let (src, dst) = unsafe {
        (
            buffer_arg(queue, src_buffer)?,
            buffer_arg(queue, dst_buffer)?,
        )
    };
    // CL_INVALID_VALUE if src_offset, dst_offset, size, src_offset + size or
    // dst_offset + size require accessing elements outside the src_buffer
    // and dst_buffer buffer objects respectively.
    check_range(&src, src_offset, size)?;
    check_range(&dst, dst_offset, size)?;
    // CL_MEM_COPY_OVERLAP if src_buffer and dst_buffer are the same buffer
    // or sub-buffer object and the source and destination regions overlap
    // or if src_buffer and dst_buffer are different sub-buffers of the same
    // associated buffer object and they overlap.
    if Arc::ptr_eq(&src.buffer, &dst.buffer) {
        let (a, b) = (src.offset + src_offset, dst.offset + dst_offset);
        if a < b + size && b < a + size {
            return Err(CL_MEM_COPY_OVERLAP);
        }
    }
    Ok(Command::Copy {
        src,
        src_rect: linear(src_offset),
        dst,
        dst_rect: linear(dst_offset),
        region: [size, 1, 1],
        command_type: CL_COMMAND_COPY_BUFFER,
    })
}

/// Runs a checked command on `queue` after the wait list; hands out its
/// event.
///
/// # Safety
/// The wait list and `event` are the application's, as the spec defines
/// them.
pub(crate) unsafe fn enqueue_checked(
    queue: &Arc<Queue>,
    command: Command,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const *mut c_void,
    event: *mut *mut c_void,
) -> Result<(), cl_int> {
    // SAFETY: forwarded contract.
    unsafe {
        let waits = wait_list(queue, num_events_in_wait_list, event_wait_list)?;
        return_event(event, command.enqueue(queue, &waits)?);
    }
    Ok(())
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueCopyBuffer(
    command_queue: *mut c_void,
    src_buffer: *mut c_void,
    dst_buffer: *mut c_void,
    src_offset: usize,
    dst_offset: usize,
    size: usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const *mut c_void,
    event: *mut *mut c_void,
) -> cl_int {
    // SAFETY: the application's pointers, as the spec defines them.
    api_call(|| unsafe {
        let queue = queue_arg(command_queue)?;
        let command =
            check_copy_buffer(&queue, src_buffer, dst_buffer, src_offset, dst_offset, size)?;
        enqueue_checked(
            &queue,
            command,
            num_events_in_wait_list,
            event_wait_list,
            event,
        )
    })
}

/// Reads a `size_t[3]`.
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

/// Applies the default pitches and checks them against the region
/// (`CL_INVALID_VALUE`).
fn rect(
    origin: [usize; 3],
    region: [usize; 3],
    row_pitch: usize,
    slice_pitch: usize,
) -> Result<Rect, cl_int> {
    // CL_INVALID_VALUE if buffer_row_pitch is not 0 and is less than
    // region[0].
    if row_pitch != 0 && row_pitch < region[0] {
        return Err(CL_INVALID_VALUE);
    }
    let row_pitch = if row_pitch == 0 { region[0] } else { row_pitch };
    // CL_INVALID_VALUE if buffer_slice_pitch is not 0 and is less than
    // region[1] × buffer_row_pitch and not a multiple of buffer_row_pitch.
    if slice_pitch != 0
        && slice_pitch < region[1] * row_pitch
        && !slice_pitch.is_multiple_of(row_pitch)
    {
        return Err(CL_INVALID_VALUE);
    }
    let slice_pitch = if slice_pitch == 0 {
        region[1] * row_pitch
    } else {
        slice_pitch
    };
    Ok(Rect {
        origin,
        row_pitch,
        slice_pitch,
    })
}

/// CL_INVALID_VALUE if any region array element is 0; the region of a
/// rectangle must lie within the buffer.
fn check_region(region: [usize; 3]) -> Result<(), cl_int> {
    if region.contains(&0) {
        return Err(CL_INVALID_VALUE);
    }
    Ok(())
}

fn rect_in(mem: &Mem, r: &Rect, region: [usize; 3]) -> Result<(), cl_int> {
    // CL_INVALID_VALUE if the region being read or written specified by
    // (buffer_origin, region, buffer_row_pitch, buffer_slice_pitch) is out
    // of bounds.
    if r.end(region) > mem.size {
        return Err(CL_INVALID_VALUE);
    }
    Ok(())
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueReadBufferRect(
    command_queue: *mut c_void,
    buffer: *mut c_void,
    blocking_read: cl_bool,
    buffer_origin: *const usize,
    host_origin: *const usize,
    region: *const usize,
    buffer_row_pitch: usize,
    buffer_slice_pitch: usize,
    host_row_pitch: usize,
    host_slice_pitch: usize,
    ptr: *mut c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const *mut c_void,
    event: *mut *mut c_void,
) -> cl_int {
    // SAFETY: the application's pointers, as the spec defines them.
    api_call(|| unsafe {
        let (queue, mem) = queue_and_mem(command_queue, buffer)?;
        let (bo, ho, reg) = (
            triple(buffer_origin)?,
            triple(host_origin)?,
            triple(region)?,
        );
        check_region(reg)?;
        // CL_INVALID_VALUE if ptr is NULL.
        if ptr.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let src = rect(bo, reg, buffer_row_pitch, buffer_slice_pitch)?;
        let dst = rect(ho, reg, host_row_pitch, host_slice_pitch)?;
        rect_in(&mem, &src, reg)?;
        let waits = wait_list(&queue, num_events_in_wait_list, event_wait_list)?;
        check_host_read(&mem)?;
        let e = memory::enqueue_read(
            &queue,
            &mem,
            src,
            ptr as usize,
            dst,
            reg,
            &waits,
            CL_COMMAND_READ_BUFFER_RECT,
            blocking_read != 0,
        )?;
        finish_enqueue(e, blocking_read != 0, event)
    })
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueWriteBufferRect(
    command_queue: *mut c_void,
    buffer: *mut c_void,
    blocking_write: cl_bool,
    buffer_origin: *const usize,
    host_origin: *const usize,
    region: *const usize,
    buffer_row_pitch: usize,
    buffer_slice_pitch: usize,
    host_row_pitch: usize,
    host_slice_pitch: usize,
    ptr: *const c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const *mut c_void,
    event: *mut *mut c_void,
) -> cl_int {
    // SAFETY: the application's pointers, as the spec defines them.
    api_call(|| unsafe {
        let (queue, mem) = queue_and_mem(command_queue, buffer)?;
        let (bo, ho, reg) = (
            triple(buffer_origin)?,
            triple(host_origin)?,
            triple(region)?,
        );
        check_region(reg)?;
        // CL_INVALID_VALUE if ptr is NULL.
        if ptr.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let dst = rect(bo, reg, buffer_row_pitch, buffer_slice_pitch)?;
        let src = rect(ho, reg, host_row_pitch, host_slice_pitch)?;
        rect_in(&mem, &dst, reg)?;
        let waits = wait_list(&queue, num_events_in_wait_list, event_wait_list)?;
        check_host_write(&mem)?;
        let e = memory::enqueue_write(
            &queue,
            &mem,
            dst,
            ptr as usize,
            src,
            reg,
            &waits,
            CL_COMMAND_WRITE_BUFFER_RECT,
        )?;
        finish_enqueue(e, blocking_write != 0, event)
    })
}

/// The checks of `clEnqueueCopyBufferRect` but the queue's and the wait
/// list's; the copy they allow. `clCommandCopyBufferRectKHR` shares them.
///
/// # Safety
/// The application's pointers, as the spec defines them.
#[allow(clippy::too_many_arguments)] // the entry point's arguments
pub(crate) unsafe fn check_copy_buffer_rect(
    queue: &Queue,
    src_buffer: *mut c_void,
    dst_buffer: *mut c_void,
    src_origin: *const usize,
    dst_origin: *const usize,
    region: *const usize,
    src_row_pitch: usize,
    src_slice_pitch: usize,
    dst_row_pitch: usize,
    dst_slice_pitch: usize,
) -> Result<Command, cl_int> {
    // SAFETY: forwarded contract.
    unsafe {
        let src_mem = buffer_arg(queue, src_buffer)?;
        let dst_mem = buffer_arg(queue, dst_buffer)?;
        let (so, d_o, reg) = (triple(src_origin)?, triple(dst_origin)?, triple(region)?);
        check_region(reg)?;
        let src = rect(so, reg, src_row_pitch, src_slice_pitch)?;
        let dst = rect(d_o, reg, dst_row_pitch, dst_slice_pitch)?;
        rect_in(&src_mem, &src, reg)?;
        rect_in(&dst_mem, &dst, reg)?;
        // CL_INVALID_VALUE if src_buffer and dst_buffer are the same buffer
        // object and src_slice_pitch is not equal to dst_slice_pitch and
        // src_row_pitch is not equal to dst_row_pitch.
        let same = Arc::ptr_eq(&src_mem.buffer, &dst_mem.buffer);
        if Arc::ptr_eq(&src_mem, &dst_mem)
            && src.slice_pitch != dst.slice_pitch
            && src.row_pitch != dst.row_pitch
        {
            return Err(CL_INVALID_VALUE);
        }
        // CL_MEM_COPY_OVERLAP if src_buffer and dst_buffer are the same
        // buffer or sub-buffer object and the source and destination regions
        // overlap (checked on the byte extents of the two rectangles).
        if same {
            let a = (
                src_mem.offset + src.offset(0, 0, 0),
                src_mem.offset + src.end(reg),
            );
            let b = (
                dst_mem.offset + dst.offset(0, 0, 0),
                dst_mem.offset + dst.end(reg),
            );
            if rects_overlap(&src, src_mem.offset, &dst, dst_mem.offset, reg)
                && a.0 < b.1
                && b.0 < a.1
            {
                return Err(CL_MEM_COPY_OVERLAP);
            }
        }
        Ok(Command::Copy {
            src: src_mem,
            src_rect: src,
            dst: dst_mem,
            dst_rect: dst,
            region: reg,
            command_type: CL_COMMAND_COPY_BUFFER_RECT,
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueCopyBufferRect(
    command_queue: *mut c_void,
    src_buffer: *mut c_void,
    dst_buffer: *mut c_void,
    src_origin: *const usize,
    dst_origin: *const usize,
    region: *const usize,
    src_row_pitch: usize,
    src_slice_pitch: usize,
    dst_row_pitch: usize,
    dst_slice_pitch: usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const *mut c_void,
    event: *mut *mut c_void,
) -> cl_int {
    // SAFETY: the application's pointers, as the spec defines them.
    api_call(|| unsafe {
        let queue = queue_arg(command_queue)?;
        let command = check_copy_buffer_rect(
            &queue,
            src_buffer,
            dst_buffer,
            src_origin,
            dst_origin,
            region,
            src_row_pitch,
            src_slice_pitch,
            dst_row_pitch,
            dst_slice_pitch,
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

/// True when some row of one rectangle shares a byte with some row of the
/// other (rows are `region[0]` bytes long).
fn rects_overlap(a: &Rect, a_base: usize, b: &Rect, b_base: usize, region: [usize; 3]) -> bool {
    let rows = |r: &Rect, base: usize| -> Vec<usize> {
        let mut v = Vec::with_capacity(region[1] * region[2]);
        for z in 0..region[2] {
            for y in 0..region[1] {
                v.push(base + r.offset(0, y, z));
            }
        }
        v.sort_unstable();
        v
    };
    let (ra, rb) = (rows(a, a_base), rows(b, b_base));
    let w = region[0];
    // Two sorted lists of row starts: a row of A overlaps a row of B when
    // their starts are less than w apart.
    let mut j = 0;
    for &s in &ra {
        while j < rb.len() && rb[j] + w <= s {
            j += 1;
        }
        if j < rb.len() && rb[j] < s + w {
            return true;
        }
    }
    false
}

/// The checks of `clEnqueueFillBuffer` but the queue's and the wait
/// list's; the fill they allow. `clCommandFillBufferKHR` shares them.
///
/// # Safety
/// The application's pointers, as the spec defines them.
pub(crate) unsafe fn check_fill_buffer(
    queue: &Queue,
    buffer: *mut c_void,
    pattern: *const c_void,
    pattern_size: usize,
    offset: usize,
    size: usize,
) -> Result<Command, cl_int> {
    // SAFETY: forwarded contract.
    let mem = unsafe { buffer_arg(queue, buffer)? };
    // CL_INVALID_VALUE if offset or offset + size require accessing elements
    // outside the buffer object.
    check_range(&mem, offset, size)?;
    // CL_INVALID_VALUE if pattern is NULL or if pattern_size is 0 or if
    // pattern_size is not one of { 1, 2, 4, 8, 16, 32, 64, 128 }.
    if pattern.is_null() || !pattern_size.is_power_of_two() || pattern_size > 128 {
        return Err(CL_INVALID_VALUE);
    }
    // CL_INVALID_VALUE if offset and size are not a multiple of
    // pattern_size.
    if !offset.is_multiple_of(pattern_size) || !size.is_multiple_of(pattern_size) {
        return Err(CL_INVALID_VALUE);
    }
    // SAFETY: pattern points to pattern_size bytes per the contract.
    let bytes = unsafe { std::slice::from_raw_parts(pattern as *const u8, pattern_size) };
    Ok(Command::Fill {
        mem,
        pattern: Pattern::new(bytes),
        offset,
        size,
    })
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueFillBuffer(
    command_queue: *mut c_void,
    buffer: *mut c_void,
    pattern: *const c_void,
    pattern_size: usize,
    offset: usize,
    size: usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const *mut c_void,
    event: *mut *mut c_void,
) -> cl_int {
    // SAFETY: the application's pointers, as the spec defines them.
    api_call(|| unsafe {
        let queue = queue_arg(command_queue)?;
        let command = check_fill_buffer(&queue, buffer, pattern, pattern_size, offset, size)?;
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
pub unsafe extern "C" fn clEnqueueMapBuffer(
    command_queue: *mut c_void,
    buffer: *mut c_void,
    blocking_map: cl_bool,
    map_flags: cl_bitfield,
    offset: usize,
    size: usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const *mut c_void,
    event: *mut *mut c_void,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    // SAFETY: the application's pointers, as the spec defines them.
    unsafe {
        api_create(errcode_ret, || {
            let (queue, mem) = queue_and_mem(command_queue, buffer)?;
            // CL_INVALID_VALUE if region being mapped given by (offset, size)
            // is out of bounds or if size is 0 or if values specified in
            // map_flags are not valid.
            check_range(&mem, offset, size)?;
            let known = CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION;
            if map_flags & !known != 0
                || (map_flags & CL_MAP_WRITE_INVALIDATE_REGION != 0
                    && map_flags & (CL_MAP_READ | CL_MAP_WRITE) != 0)
            {
                return Err(CL_INVALID_VALUE);
            }
            let waits = wait_list(&queue, num_events_in_wait_list, event_wait_list)?;
            // CL_INVALID_OPERATION if buffer has been created with
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
            let (e, ptr) = memory::enqueue_map(&queue, &mem, map_flags, offset, size, &waits)?;
            finish_enqueue(e, blocking_map != 0, event)?;
            Ok(ptr)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueUnmapMemObject(
    command_queue: *mut c_void,
    memobj: *mut c_void,
    mapped_ptr: *mut c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const *mut c_void,
    event: *mut *mut c_void,
) -> cl_int {
    // SAFETY: the application's pointers, as the spec defines them.
    api_call(|| unsafe {
        // CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host
        // command-queue.
        let queue = queue_arg(command_queue)?;
        // CL_INVALID_MEM_OBJECT if memobj is not a valid memory object
        // (buffer or image).
        let mem = arc_from_handle::<Mem>(memobj)?;
        // CL_INVALID_CONTEXT if the context associated with command_queue
        // and memobj are not the same.
        if !Arc::ptr_eq(&queue.context, &mem.context) {
            return Err(CL_INVALID_CONTEXT);
        }
        let waits = wait_list(&queue, num_events_in_wait_list, event_wait_list)?;
        // CL_INVALID_VALUE if mapped_ptr is not a valid pointer returned by
        // clEnqueueMapBuffer or clEnqueueMapImage for memobj.
        let e = memory::enqueue_unmap(&queue, &mem, mapped_ptr, &waits)?;
        return_event(event, e);
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueMigrateMemObjects(
    command_queue: *mut c_void,
    num_mem_objects: cl_uint,
    mem_objects: *const *mut c_void,
    flags: cl_bitfield,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const *mut c_void,
    event: *mut *mut c_void,
) -> cl_int {
    // SAFETY: the application's pointers, as the spec defines them.
    api_call(|| unsafe {
        let queue = queue_arg(command_queue)?;
        // CL_INVALID_VALUE if num_mem_objects is zero or if mem_objects is
        // NULL.
        if num_mem_objects == 0 || mem_objects.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let mut mems: Vec<Arc<Mem>> = Vec::new();
        for i in 0..num_mem_objects as usize {
            // CL_INVALID_MEM_OBJECT if any of the memory objects in
            // mem_objects is not a valid memory object.
            let m = arc_from_handle::<Mem>(mem_objects.add(i).read_unaligned())?;
            // CL_INVALID_CONTEXT if the context associated with
            // command_queue and memory objects in mem_objects are not the
            // same.
            if !Arc::ptr_eq(&m.context, &queue.context) {
                return Err(CL_INVALID_CONTEXT);
            }
            mems.push(m);
        }
        // CL_INVALID_VALUE if flags is not 0 or is not any of the values
        // described in the table above.
        if flags & !(CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED) != 0 {
            return Err(CL_INVALID_VALUE);
        }
        let waits = wait_list(&queue, num_events_in_wait_list, event_wait_list)?;
        let e = ferrocl_runtime::migrate::enqueue_migrate(&queue, mems, flags, &waits)?;
        return_event(event, e);
        Ok(())
    })
}
