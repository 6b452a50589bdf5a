//! Shared virtual memory entry points. ferrocl devices report no SVM
//! capabilities (`CL_DEVICE_SVM_CAPABILITIES` is 0), so allocation answers
//! NULL and every SVM command `CL_INVALID_OPERATION`, as the spec requires
//! of such devices.

use crate::enqueue::queue_arg;
use crate::entry::api_call;
use ferrocl_runtime::api::from_handle;
use ferrocl_runtime::cl::*;
use ferrocl_runtime::context::Context;
use std::ffi::c_void;

#[no_mangle]
pub unsafe extern "C" fn clSVMAlloc(
    context: *mut c_void,
    flags: cl_bitfield,
    size: usize,
    alignment: cl_uint,
) -> *mut c_void {
    let _ = (flags, size, alignment);
    // SAFETY: a handle the application got from this library; only checked.
    let _ = std::panic::catch_unwind(|| unsafe { from_handle::<Context>(context).is_ok() });
    // NULL: no device in any context supports SVM.
    std::ptr::null_mut()
}

#[no_mangle]
pub unsafe extern "C" fn clSVMFree(context: *mut c_void, svm_pointer: *mut c_void) {
    // Nothing was ever allocated by clSVMAlloc, so there is nothing to free.
    let _ = (context, svm_pointer);
}

/// The error of every SVM command: the queue is checked first.
///
/// # Safety
/// `command_queue` is NULL or a handle from this library.
unsafe fn svm_command(command_queue: *mut c_void) -> cl_int {
    api_call(|| {
        // CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host
        // command-queue.
        // SAFETY: forwarded contract.
        unsafe { queue_arg(command_queue)? };
        // CL_INVALID_OPERATION if the device associated with command_queue
        // does not support SVM.
        Err(CL_INVALID_OPERATION)
    })
}

type SvmFreeCallback = unsafe extern "C" fn(*mut c_void, cl_uint, *mut *mut c_void, *mut c_void);

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
    let _ = (
        num_svm_pointers,
        svm_pointers,
        pfn_free_func,
        user_data,
        num_events_in_wait_list,
        event_wait_list,
        event,
    );
    // SAFETY: the application's handle.
    unsafe { svm_command(command_queue) }
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
    let _ = (
        blocking_copy,
        dst_ptr,
        src_ptr,
        size,
        num_events_in_wait_list,
        event_wait_list,
        event,
    );
    // SAFETY: the application's handle.
    unsafe { svm_command(command_queue) }
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
    let _ = (
        svm_ptr,
        pattern,
        pattern_size,
        size,
        num_events_in_wait_list,
        event_wait_list,
        event,
    );
    // SAFETY: the application's handle.
    unsafe { svm_command(command_queue) }
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
    let _ = (
        blocking_map,
        flags,
        svm_ptr,
        size,
        num_events_in_wait_list,
        event_wait_list,
        event,
    );
    // SAFETY: the application's handle.
    unsafe { svm_command(command_queue) }
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueSVMUnmap(
    command_queue: *mut c_void,
    svm_ptr: *mut c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const *mut c_void,
    event: *mut *mut c_void,
) -> cl_int {
    let _ = (svm_ptr, num_events_in_wait_list, event_wait_list, event);
    // SAFETY: the application's handle.
    unsafe { svm_command(command_queue) }
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
    let _ = (
        num_svm_pointers,
        svm_pointers,
        sizes,
        flags,
        num_events_in_wait_list,
        event_wait_list,
        event,
    );
    // SAFETY: the application's handle.
    unsafe { svm_command(command_queue) }
}
