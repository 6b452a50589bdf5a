//! Shared virtual memory entry points: coarse-grained buffer SVM
//! (`runtime/src/svm.rs`) on devices whose probe reports
//! `CL_DEVICE_SVM_COARSE_GRAIN_BUFFER`. Fine-grained buffers, fine-grained
//! system allocations and SVM atomics are not offered, so `clSVMAlloc`
//! answers NULL for their flags.

use crate::enqueue::{queue_arg, return_event, wait_list};
use crate::entry::api_call;
use ferrocl_runtime::api::{arc_from_handle, from_handle};
use ferrocl_runtime::cl::*;
use ferrocl_runtime::command::{Command, Pattern};
use ferrocl_runtime::context::Context;
use ferrocl_runtime::memory::DEVICE_ACCESS_FLAGS;
use ferrocl_runtime::queue::Queue;
use ferrocl_runtime::svm::{self, SvmFreeCallback};
use std::ffi::c_void;
use std::sync::Arc;

/// The checks of `clSVMAlloc`; the pointer, or why there is none.
///
/// # Safety
/// `context` is NULL or a handle from this library.
unsafe fn svm_alloc(
    context: *mut c_void,
    flags: cl_bitfield,
    size: usize,
    alignment: cl_uint,
) -> Result<usize, cl_int> {
    // clSVMAlloc will fail if context is not a valid context, or no devices
    // in context support SVM.
    // SAFETY: forwarded contract.
    let ctx = unsafe { arc_from_handle::<Context>(context)? };
    if !svm::context_supports_svm(&ctx) {
        return Err(CL_INVALID_OPERATION);
    }
    // ... flags does not contain CL_MEM_SVM_FINE_GRAIN_BUFFER but does
    // contain CL_MEM_SVM_ATOMICS.
    if flags & CL_MEM_SVM_ATOMICS != 0 && flags & CL_MEM_SVM_FINE_GRAIN_BUFFER == 0 {
        return Err(CL_INVALID_VALUE);
    }
    // ... values specified in flags do not follow the rules of the SVM
    // memory flags table (one device access flag at most).
    if (flags & DEVICE_ACCESS_FLAGS).count_ones() > 1 {
        return Err(CL_INVALID_VALUE);
    }
    // ... CL_MEM_SVM_FINE_GRAIN_BUFFER or CL_MEM_SVM_ATOMICS is specified
    // in flags and these are not supported by at least one device in
    // context.
    if flags & (CL_MEM_SVM_FINE_GRAIN_BUFFER | CL_MEM_SVM_ATOMICS) != 0 {
        return Err(CL_INVALID_VALUE);
    }
    // ... the values specified in flags are not valid.
    if flags & !DEVICE_ACCESS_FLAGS != 0 {
        return Err(CL_INVALID_VALUE);
    }
    // ... size is 0 or > CL_DEVICE_MAX_MEM_ALLOC_SIZE value for any device
    // in context.
    if size == 0
        || ctx
            .devices
            .iter()
            .any(|d| size as u64 > d.info().max_mem_alloc_size)
    {
        return Err(CL_INVALID_BUFFER_SIZE);
    }
    // ... alignment is not a power of two or the OpenCL implementation
    // cannot support the specified alignment for at least one device in
    // context.
    let alignment = alignment as usize;
    if alignment != 0 && (!alignment.is_power_of_two() || alignment > svm::MAX_ALIGNMENT) {
        return Err(CL_INVALID_VALUE);
    }
    // ... there was a failure to allocate resources.
    svm::alloc(&ctx, flags, size, alignment)
}

#[no_mangle]
pub unsafe extern "C" fn clSVMAlloc(
    context: *mut c_void,
    flags: cl_bitfield,
    size: usize,
    alignment: cl_uint,
) -> *mut c_void {
    // SAFETY: the application's handle.
    let made = std::panic::catch_unwind(|| unsafe { svm_alloc(context, flags, size, alignment) });
    match made {
        Ok(Ok(ptr)) => ptr as *mut c_void,
        // Like malloc, failure is only NULL.
        _ => std::ptr::null_mut(),
    }
}

#[no_mangle]
pub unsafe extern "C" fn clSVMFree(context: *mut c_void, svm_pointer: *mut c_void) {
    let _ = std::panic::catch_unwind(|| {
        // A NULL svm_pointer, an invalid context or one whose devices
        // support no SVM: no action occurs.
        if svm_pointer.is_null() {
            return;
        }
        // SAFETY: the application's handle, only checked.
        if let Ok(ctx) = unsafe { from_handle::<Context>(context) } {
            svm::free(ctx, svm_pointer as usize);
        }
    });
}

/// The queue of an SVM command, with the first two checks every one of
/// them shares.
///
/// # Safety
/// `command_queue` is NULL or a handle from this library.
unsafe fn svm_queue(command_queue: *mut c_void) -> Result<Arc<Queue>, cl_int> {
    // CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host
    // command-queue.
    // SAFETY: forwarded contract.
    let queue = unsafe { queue_arg(command_queue)? };
    check_svm_device(&queue)?;
    Ok(queue)
}

/// CL_INVALID_OPERATION if the device associated with the queue does not
/// support SVM.
pub(crate) fn check_svm_device(queue: &Queue) -> Result<(), cl_int> {
    if svm::device_capabilities(&queue.device) & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER == 0 {
        return Err(CL_INVALID_OPERATION);
    }
    Ok(())
}

/// `CL_INVALID_CONTEXT` if the context associated with command_queue and
/// events in event_wait_list are not the same. Checked before the other
/// wait-list errors, in the order the SVM commands list them; handles that
/// are not events are left to [`wait_list`].
///
/// # Safety
/// `list` is NULL or points to `num` handles.
unsafe fn check_wait_list_context(
    queue: &Queue,
    num: cl_uint,
    list: *const *mut c_void,
) -> Result<(), cl_int> {
    if list.is_null() {
        return Ok(());
    }
    for i in 0..num as usize {
        // SAFETY: per the contract.
        let handle = unsafe { list.add(i).read_unaligned() };
        // SAFETY: a handle from the application, only checked.
        if let Ok(e) = unsafe { from_handle::<ferrocl_runtime::event::Event>(handle) } {
            if !Arc::ptr_eq(&e.context, &queue.context) {
                return Err(CL_INVALID_CONTEXT);
            }
        }
    }
    Ok(())
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueSVMFree(
    command_queue: *mut c_void,
    num_svm_pointers: cl_uint,
    svm_pointers: *mut *mut c_void,
    pfn_free_func: Option<SvmFreeCallback>,
    user_data: *mut c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const *mut c_void,
    event: *mut *mut c_void,
) -> cl_int {
    // SAFETY: the application's pointers, as the spec defines them.
    api_call(|| unsafe {
        let queue = svm_queue(command_queue)?;
        // CL_INVALID_VALUE if num_svm_pointers is 0 and svm_pointers is
        // non-NULL, or if svm_pointers is NULL and num_svm_pointers is not 0.
        if (num_svm_pointers == 0) != svm_pointers.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        // CL_INVALID_EVENT_WAIT_LIST if event_wait_list is NULL and
        // num_events_in_wait_list > 0, or event_wait_list is not NULL and
        // num_events_in_wait_list is 0, or if event objects in
        // event_wait_list are not valid events.
        let waits = wait_list(&queue, num_events_in_wait_list, event_wait_list)?;
        let pointers: Vec<usize> = (0..num_svm_pointers as usize)
            .map(|i| svm_pointers.add(i).read_unaligned() as usize)
            .collect();
        let callback = pfn_free_func.map(|f| (f, user_data as usize));
        let e = svm::enqueue_free(&queue, pointers, callback, &waits)?;
        return_event(event, e);
        Ok(())
    })
}

/// Whether `[a, a + n)` and `[b, b + n)` overlap.
fn overlaps(a: usize, b: usize, n: usize) -> bool {
    n > 0 && a < b.saturating_add(n) && b < a.saturating_add(n)
}

/// The pointer checks of `clEnqueueSVMMemcpy`, which
/// `clCommandSVMMemcpyKHR` shares.
pub(crate) fn check_svm_memcpy(
    dst_ptr: *mut c_void,
    src_ptr: *const c_void,
    size: usize,
) -> Result<Command, cl_int> {
    // CL_INVALID_VALUE if dst_ptr is NULL, or if src_ptr is NULL.
    if dst_ptr.is_null() || src_ptr.is_null() {
        return Err(CL_INVALID_VALUE);
    }
    // CL_MEM_COPY_OVERLAP if the values specified for dst_ptr, src_ptr and
    // size result in an overlapping copy.
    if overlaps(dst_ptr as usize, src_ptr as usize, size) {
        return Err(CL_MEM_COPY_OVERLAP);
    }
    Ok(Command::SvmMemcpy {
        dst: dst_ptr as usize,
        src: src_ptr as usize,
        size,
    })
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueSVMMemcpy(
    command_queue: *mut c_void,
    blocking_copy: cl_bool,
    dst_ptr: *mut c_void,
    src_ptr: *const c_void,
    size: usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const *mut c_void,
    event: *mut *mut c_void,
) -> cl_int {
    // SAFETY: the application's pointers, as the spec defines them.
    api_call(|| unsafe {
        let queue = svm_queue(command_queue)?;
        // CL_INVALID_CONTEXT if the context associated with command_queue
        // and events in event_wait_list are not the same.
        check_wait_list_context(&queue, num_events_in_wait_list, event_wait_list)?;
        check_svm_memcpy(dst_ptr, src_ptr, size)?;
        // CL_INVALID_EVENT_WAIT_LIST for a malformed wait list.
        let waits = wait_list(&queue, num_events_in_wait_list, event_wait_list)?;
        // CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST if the copy is
        // blocking and a wait-list event failed: from the wait.
        let e = svm::enqueue_memcpy(
            &queue,
            dst_ptr as usize,
            src_ptr as usize,
            size,
            &waits,
            blocking_copy != CL_FALSE,
        )?;
        return_event(event, e);
        Ok(())
    })
}

/// The checks of `clEnqueueSVMMemFill` past the queue and the wait list's
/// context; the fill they allow. `clCommandSVMMemFillKHR` shares them.
///
/// # Safety
/// `pattern` is NULL or points to `pattern_size` bytes.
pub(crate) unsafe fn check_svm_fill(
    svm_ptr: *mut c_void,
    pattern: *const c_void,
    pattern_size: usize,
    size: usize,
) -> Result<Command, cl_int> {
    // CL_INVALID_VALUE if svm_ptr is NULL.
    if svm_ptr.is_null() {
        return Err(CL_INVALID_VALUE);
    }
    // CL_INVALID_VALUE if pattern is NULL.
    if pattern.is_null() {
        return Err(CL_INVALID_VALUE);
    }
    // CL_INVALID_VALUE if pattern_size is zero, if pattern_size is not a
    // power of two, or if pattern_size is greater than 128.
    if !pattern_size.is_power_of_two() || pattern_size > 128 {
        return Err(CL_INVALID_VALUE);
    }
    // CL_INVALID_VALUE if svm_ptr is not aligned to pattern_size bytes.
    if !(svm_ptr as usize).is_multiple_of(pattern_size) {
        return Err(CL_INVALID_VALUE);
    }
    // CL_INVALID_VALUE if size is not a multiple of pattern_size.
    if !size.is_multiple_of(pattern_size) {
        return Err(CL_INVALID_VALUE);
    }
    // SAFETY: per the contract.
    let bytes = unsafe { std::slice::from_raw_parts(pattern as *const u8, pattern_size) };
    Ok(Command::SvmFill {
        ptr: svm_ptr as usize,
        pattern: Pattern::new(bytes),
        size,
    })
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueSVMMemFill(
    command_queue: *mut c_void,
    svm_ptr: *mut c_void,
    pattern: *const c_void,
    pattern_size: usize,
    size: usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const *mut c_void,
    event: *mut *mut c_void,
) -> cl_int {
    // SAFETY: the application's pointers, as the spec defines them.
    api_call(|| unsafe {
        let queue = svm_queue(command_queue)?;
        // CL_INVALID_CONTEXT if the context associated with command_queue
        // and events in event_wait_list are not the same.
        check_wait_list_context(&queue, num_events_in_wait_list, event_wait_list)?;
        let command = check_svm_fill(svm_ptr, pattern, pattern_size, size)?;
        // CL_INVALID_EVENT_WAIT_LIST for a malformed wait list.
        let waits = wait_list(&queue, num_events_in_wait_list, event_wait_list)?;
        let e = command.enqueue(&queue, &waits)?;
        return_event(event, e);
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueSVMMap(
    command_queue: *mut c_void,
    blocking_map: cl_bool,
    flags: cl_bitfield,
    svm_ptr: *mut c_void,
    size: usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const *mut c_void,
    event: *mut *mut c_void,
) -> cl_int {
    // SAFETY: the application's pointers, as the spec defines them.
    api_call(|| unsafe {
        let queue = svm_queue(command_queue)?;
        // CL_INVALID_CONTEXT if the context associated with command_queue
        // and events in event_wait_list are not the same.
        check_wait_list_context(&queue, num_events_in_wait_list, event_wait_list)?;
        // CL_INVALID_VALUE if svm_ptr is NULL, if size is zero, or if values
        // specified in map_flags are not valid.
        if svm_ptr.is_null() || size == 0 {
            return Err(CL_INVALID_VALUE);
        }
        let known = CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION;
        if flags & !known != 0
            || (flags & CL_MAP_WRITE_INVALIDATE_REGION != 0
                && flags & (CL_MAP_READ | CL_MAP_WRITE) != 0)
        {
            return Err(CL_INVALID_VALUE);
        }
        // CL_INVALID_EVENT_WAIT_LIST for a malformed wait list.
        let waits = wait_list(&queue, num_events_in_wait_list, event_wait_list)?;
        // CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST if the map is
        // blocking and a wait-list event failed: from the wait.
        let e = svm::enqueue_map(
            &queue,
            svm_ptr as usize,
            size,
            flags,
            &waits,
            blocking_map != CL_FALSE,
        )?;
        return_event(event, e);
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueSVMUnmap(
    command_queue: *mut c_void,
    svm_ptr: *mut c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const *mut c_void,
    event: *mut *mut c_void,
) -> cl_int {
    // SAFETY: the application's pointers, as the spec defines them.
    api_call(|| unsafe {
        let queue = svm_queue(command_queue)?;
        // CL_INVALID_CONTEXT if the context associated with command_queue
        // and events in event_wait_list are not the same.
        check_wait_list_context(&queue, num_events_in_wait_list, event_wait_list)?;
        // CL_INVALID_VALUE if svm_ptr is NULL.
        if svm_ptr.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        // CL_INVALID_EVENT_WAIT_LIST for a malformed wait list.
        let waits = wait_list(&queue, num_events_in_wait_list, event_wait_list)?;
        let e = svm::enqueue_unmap(&queue, svm_ptr as usize, &waits)?;
        return_event(event, e);
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueSVMMigrateMem(
    command_queue: *mut c_void,
    num_svm_pointers: cl_uint,
    svm_pointers: *const *const c_void,
    sizes: *const usize,
    flags: cl_bitfield,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const *mut c_void,
    event: *mut *mut c_void,
) -> cl_int {
    // SAFETY: the application's pointers, as the spec defines them.
    api_call(|| unsafe {
        let queue = svm_queue(command_queue)?;
        // CL_INVALID_CONTEXT if the context associated with command_queue
        // and events in event_wait_list are not the same.
        check_wait_list_context(&queue, num_events_in_wait_list, event_wait_list)?;
        // CL_INVALID_VALUE if num_svm_pointers is zero, or if svm_pointers
        // is NULL.
        if num_svm_pointers == 0 || svm_pointers.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        // CL_INVALID_VALUE if flags is not zero and is not a valid
        // combination of the memory migration flags.
        let known = CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED;
        if flags & !known != 0 {
            return Err(CL_INVALID_VALUE);
        }
        // CL_INVALID_VALUE if sizes[i] is non-zero and the memory range
        // described by svm_pointers[i] and sizes[i] is not contained within
        // an SVM allocation returned by clSVMAlloc.
        for i in 0..num_svm_pointers as usize {
            let ptr = svm_pointers.add(i).read_unaligned() as usize;
            let size = if sizes.is_null() {
                0
            } else {
                sizes.add(i).read_unaligned()
            };
            if size != 0 && !svm::contains(&queue.context, ptr, size) {
                return Err(CL_INVALID_VALUE);
            }
        }
        // CL_INVALID_EVENT_WAIT_LIST for a malformed wait list.
        let waits = wait_list(&queue, num_events_in_wait_list, event_wait_list)?;
        let e = svm::enqueue_migrate(&queue, &waits)?;
        return_event(event, e);
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copy_overlap_is_any_shared_byte() {
        assert!(overlaps(100, 100, 1));
        assert!(overlaps(100, 150, 51));
        assert!(overlaps(150, 100, 51));
        assert!(!overlaps(100, 150, 50));
        assert!(!overlaps(150, 100, 50));
        assert!(!overlaps(100, 100, 0));
    }
}
