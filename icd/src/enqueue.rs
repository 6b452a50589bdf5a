//! Kernel launches, markers and barriers, and the checks every `clEnqueue*`
//! shares (wait lists, returned events).

use crate::entry::api_call;
use ferrocl_runtime::api::{arc_from_handle, into_handle};
use ferrocl_runtime::cl::*;
use ferrocl_runtime::command::Command;
use ferrocl_runtime::event::Event;
use ferrocl_runtime::kernel::{pick_local_size, Kernel, NdRange};
use ferrocl_runtime::queue::{no_work, Access, Queue};
use std::ffi::c_void;
use std::sync::Arc;

/// The events of `event_wait_list`, checked.
///
/// # Safety
/// `list` is NULL or points to `num` handles.
pub(crate) unsafe fn wait_list(
    queue: &Queue,
    num: cl_uint,
    list: *const *mut c_void,
) -> Result<Vec<Arc<Event>>, cl_int> {
    // CL_INVALID_EVENT_WAIT_LIST if event_wait_list is NULL and
    // num_events_in_wait_list > 0, or event_wait_list is not NULL and
    // num_events_in_wait_list is 0.
    if list.is_null() != (num == 0) {
        return Err(CL_INVALID_EVENT_WAIT_LIST);
    }
    let mut events = Vec::with_capacity(num as usize);
    for i in 0..num as usize {
        // CL_INVALID_EVENT_WAIT_LIST if event objects in event_wait_list are
        // not valid events.
        // SAFETY: the list holds num handles per the contract.
        let e = unsafe { arc_from_handle::<Event>(list.add(i).read_unaligned()) }
            .map_err(|_| CL_INVALID_EVENT_WAIT_LIST)?;
        // CL_INVALID_CONTEXT if the context associated with command_queue
        // and events in event_wait_list are not the same.
        if !Arc::ptr_eq(&e.context, &queue.context) {
            return Err(CL_INVALID_CONTEXT);
        }
        events.push(e);
    }
    Ok(events)
}

/// [`wait_list`] for the commands whose call itself fails when a waited-for
/// event has: CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST if the execution
/// status of any of the events in event_wait_list is a negative integer
/// value.
///
/// # Safety
/// `list` is NULL or points to `num` handles.
pub(crate) unsafe fn unfailed_wait_list(
    queue: &Queue,
    num: cl_uint,
    list: *const *mut c_void,
) -> Result<Vec<Arc<Event>>, cl_int> {
    // SAFETY: forwarded contract.
    let waits = unsafe { wait_list(queue, num, list)? };
    if waits.iter().any(|e| e.status() < 0) {
        return Err(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    }
    Ok(waits)
}

/// Hands the command's event to the application when it asked for one.
///
/// # Safety
/// `out` is NULL or writable.
pub(crate) unsafe fn return_event(out: *mut *mut c_void, event: Arc<Event>) {
    if !out.is_null() {
        // SAFETY: per the contract.
        unsafe { out.write_unaligned(into_handle(event)) };
    }
}

/// The queue of a `command_queue` argument.
///
/// # Safety
/// `handle` is NULL or a handle from this library.
pub(crate) unsafe fn queue_arg(handle: *mut c_void) -> Result<Arc<Queue>, cl_int> {
    // CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host
    // command-queue.
    // SAFETY: forwarded contract.
    unsafe { arc_from_handle::<Queue>(handle) }
}

/// Reads `n` `size_t` values (1 for the dimensions past `n`).
///
/// # Safety
/// `ptr` points to `n` values.
unsafe fn dims(ptr: *const usize, n: usize, fill: usize) -> [usize; 3] {
    let mut out = [fill; 3];
    for (d, slot) in out.iter_mut().enumerate().take(n) {
        // SAFETY: per the contract.
        *slot = unsafe { ptr.add(d).read_unaligned() };
    }
    out
}

/// What `clEnqueueNDRangeKernel` and `clGetKernelSuggestedLocalWorkSizeKHR`
/// check first, in the spec's order after the queue: the kernel, the
/// kernel's executable for the queue's device (its index is returned), one
/// context, every argument set, and `work_dim`.
///
/// # Safety
/// The handle is the application's, as the spec defines it.
unsafe fn launch_target(
    queue: &Queue,
    kernel: *mut c_void,
    work_dim: cl_uint,
    args_required: bool,
) -> Result<(Arc<Kernel>, usize), cl_int> {
    // CL_INVALID_KERNEL if kernel is not a valid kernel.
    // SAFETY: per the contract.
    let kernel = unsafe { arc_from_handle::<Kernel>(kernel) }?;
    // CL_INVALID_PROGRAM_EXECUTABLE if there is no successfully built
    // program executable available for the device associated with
    // command_queue.
    let index = kernel
        .program
        .device_index(&queue.device)
        .ok_or(CL_INVALID_PROGRAM_EXECUTABLE)?;
    if !kernel.has_executable(index) {
        return Err(CL_INVALID_PROGRAM_EXECUTABLE);
    }
    // CL_INVALID_CONTEXT if the context associated with command_queue and
    // kernel are not the same.
    if !Arc::ptr_eq(&kernel.program.context, &queue.context) {
        return Err(CL_INVALID_CONTEXT);
    }
    // CL_INVALID_KERNEL_ARGS if any kernel arguments for kernel have not
    // been set (a mutable command-buffer's kernel command may set them
    // later).
    if args_required && !kernel.all_args_set() {
        return Err(CL_INVALID_KERNEL_ARGS);
    }
    // CL_INVALID_WORK_DIMENSION if work_dim is not valid for the device
    // associated with command_queue.
    if !(1..=3).contains(&work_dim) {
        return Err(CL_INVALID_WORK_DIMENSION);
    }
    Ok((kernel, index))
}

/// `global_work_offset` (NULL: zeros) for an NDRange of `global`:
/// CL_INVALID_GLOBAL_OFFSET if global_work_size plus global_work_offset in
/// any dimension is greater than the largest size_t of the device (64 bits,
/// as on the host).
///
/// # Safety
/// `global_work_offset` is NULL or points to `n` values.
unsafe fn check_offset(
    global_work_offset: *const usize,
    n: usize,
    global: [usize; 3],
) -> Result<[usize; 3], cl_int> {
    let offset = if global_work_offset.is_null() {
        [0; 3]
    } else {
        // SAFETY: per the contract.
        unsafe { dims(global_work_offset, n, 0) }
    };
    if (0..3).any(|d| offset[d].checked_add(global[d]).is_none()) {
        return Err(CL_INVALID_GLOBAL_OFFSET);
    }
    Ok(offset)
}

/// The work-group size a NULL `local_work_size` gets: the kernel's
/// required size, else [`pick_local_size`] within the device's limits.
fn local_for_null(
    kernel: &Kernel,
    index: usize,
    queue: &Queue,
    global: [usize; 3],
    n: usize,
) -> [usize; 3] {
    if let Some(r) = kernel.info.reqd_work_group_size {
        return [r[0] as usize, r[1] as usize, r[2] as usize];
    }
    let info = queue.device.info();
    pick_local_size(
        global.map(|g| g.max(1)),
        n,
        info.max_work_group_size,
        info.max_work_item_sizes,
        !kernel.requires_uniform_work_groups(index),
    )
}

/// `clGetKernelSuggestedLocalWorkSizeKHR` (cl_khr_suggested_local_work_size):
/// the local size `clEnqueueNDRangeKernel` would choose for a NULL
/// `local_work_size`, with that call's errors.
///
/// # Safety
/// The application's pointers, as the extension defines them.
#[allow(non_snake_case)] // the extension's C name
pub unsafe extern "C" fn clGetKernelSuggestedLocalWorkSizeKHR(
    command_queue: *mut c_void,
    kernel: *mut c_void,
    work_dim: cl_uint,
    global_work_offset: *const usize,
    global_work_size: *const usize,
    suggested_local_work_size: *mut usize,
) -> cl_int {
    // SAFETY: the application's pointers, as the extension defines them.
    api_call(|| unsafe {
        let queue = queue_arg(command_queue)?;
        let (kernel, index) = launch_target(&queue, kernel, work_dim, true)?;
        let n = work_dim as usize;
        // CL_INVALID_GLOBAL_WORK_SIZE if global_work_size is NULL or any of
        // its values is zero (unlike an enqueue, no empty NDRange here).
        if global_work_size.is_null() {
            return Err(CL_INVALID_GLOBAL_WORK_SIZE);
        }
        let global = dims(global_work_size, n, 1);
        check_offset(global_work_offset, n, global)?;
        if global[..n].contains(&0) {
            return Err(CL_INVALID_GLOBAL_WORK_SIZE);
        }
        if suggested_local_work_size.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let local = local_for_null(&kernel, index, &queue, global, n);
        std::ptr::copy_nonoverlapping(local.as_ptr(), suggested_local_work_size, n);
        Ok(())
    })
}

/// The checks of `clEnqueueNDRangeKernel` but the wait list's, in the
/// spec's order; the launch they allow. `clCommandNDRangeKernelKHR` and
/// `clUpdateMutableCommandsKHR` share them, with `args_required` false
/// where a mutable kernel command may get its arguments later.
///
/// # Safety
/// The application's pointers, as the spec defines them.
pub(crate) unsafe fn check_nd_range(
    queue: &Queue,
    kernel: *mut c_void,
    work_dim: cl_uint,
    global_work_offset: *const usize,
    global_work_size: *const usize,
    local_work_size: *const usize,
    args_required: bool,
) -> Result<(Arc<Kernel>, NdRange), cl_int> {
    // SAFETY: forwarded contract.
    unsafe {
        let (kernel, index) = launch_target(queue, kernel, work_dim, args_required)?;
        let n = work_dim as usize;
        // A NULL global_work_size is an empty NDRange (OpenCL 2.1 and newer).
        let global = if global_work_size.is_null() {
            [0; 3]
        } else {
            dims(global_work_size, n, 1)
        };
        let offset = check_offset(global_work_offset, n, global)?;
        let info = queue.device.info();
        let max_wg = info.max_work_group_size;
        // Non-uniform work-groups (OpenCL 2.0 and newer) unless the program
        // asks for uniform ones (OpenCL C 1.x, -cl-uniform-work-group-size).
        let uniform = kernel.requires_uniform_work_groups(index);
        let reqd = kernel
            .info
            .reqd_work_group_size
            .map(|r| [r[0] as usize, r[1] as usize, r[2] as usize]);
        let local = if local_work_size.is_null() {
            local_for_null(&kernel, index, queue, global, n)
        } else {
            let local = dims(local_work_size, n, 1);
            let total: usize = local.iter().product();
            // CL_INVALID_WORK_GROUP_SIZE if local_work_size is not NULL, if
            // the work-group size must be uniform, and if the
            // global_work_size is not evenly divisible by the
            // local_work_size.
            if uniform && total != 0 && (0..3).any(|d| global[d] % local[d] != 0) {
                return Err(CL_INVALID_WORK_GROUP_SIZE);
            }
            // ... if the total number of work-items in the work-group is
            // zero.
            if total == 0 {
                return Err(CL_INVALID_WORK_GROUP_SIZE);
            }
            // ... is greater than the maximum work-group size supported for
            // kernel on the device.
            if total > max_wg {
                return Err(CL_INVALID_WORK_GROUP_SIZE);
            }
            // ... does not match the required work-group size for kernel.
            if reqd.is_some_and(|r| r != local) {
                return Err(CL_INVALID_WORK_GROUP_SIZE);
            }
            // CL_INVALID_WORK_ITEM_SIZE if the number of work-items specified
            // in any dimension of local_work_size is not valid for the device.
            if (0..3).any(|d| local[d] > info.max_work_item_sizes[d]) {
                return Err(CL_INVALID_WORK_ITEM_SIZE);
            }
            local
        };
        // A NULL local_work_size takes a uniform size where the work-groups
        // must be uniform; a required work-group size that does not divide
        // the global size cannot be one.
        if uniform && (0..3).any(|d| global[d] % local[d] != 0) {
            return Err(CL_INVALID_WORK_GROUP_SIZE);
        }
        // CL_OUT_OF_RESOURCES if there is a failure to queue the execution
        // instance of kernel because of insufficient resources needed to
        // execute the kernel (here: more local memory than the device has).
        if kernel.local_mem_size() > info.local_mem_size {
            return Err(CL_OUT_OF_RESOURCES);
        }
        let range = NdRange {
            work_dim,
            offset,
            global,
            local,
        };
        Ok((kernel, range))
    }
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueNDRangeKernel(
    command_queue: *mut c_void,
    kernel: *mut c_void,
    work_dim: cl_uint,
    global_work_offset: *const usize,
    global_work_size: *const usize,
    local_work_size: *const usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const *mut c_void,
    event: *mut *mut c_void,
) -> cl_int {
    // SAFETY: the application's pointers, as the spec defines them.
    api_call(|| unsafe {
        let queue = queue_arg(command_queue)?;
        let (kernel, range) = check_nd_range(
            &queue,
            kernel,
            work_dim,
            global_work_offset,
            global_work_size,
            local_work_size,
            true,
        )?;
        let waits = wait_list(&queue, num_events_in_wait_list, event_wait_list)?;
        let command = Command::nd_range(kernel, range);
        return_event(event, command.enqueue(&queue, &waits)?);
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueTask(
    command_queue: *mut c_void,
    kernel: *mut c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const *mut c_void,
    event: *mut *mut c_void,
) -> cl_int {
    let one = 1usize;
    // SAFETY: forwarded; `one` lives for the call.
    unsafe {
        clEnqueueNDRangeKernel(
            command_queue,
            kernel,
            1,
            std::ptr::null(),
            &one,
            &one,
            num_events_in_wait_list,
            event_wait_list,
            event,
        )
    }
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueNativeKernel(
    command_queue: *mut c_void,
    user_func: Option<unsafe extern "C" fn(*mut c_void)>,
    args: *mut c_void,
    cb_args: usize,
    num_mem_objects: cl_uint,
    mem_list: *const *mut c_void,
    args_mem_loc: *const *const c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const *mut c_void,
    event: *mut *mut c_void,
) -> cl_int {
    let _ = (
        user_func,
        args,
        cb_args,
        num_mem_objects,
        mem_list,
        args_mem_loc,
    );
    let _ = (num_events_in_wait_list, event_wait_list, event);
    api_call(|| {
        // SAFETY: a handle the application got from this library.
        unsafe { queue_arg(command_queue)? };
        // CL_INVALID_OPERATION if the device associated with command_queue
        // cannot execute the native kernel (no CL_EXEC_NATIVE_KERNEL).
        Err(CL_INVALID_OPERATION)
    })
}

/// A command that does no GPU work: it completes after the commands before
/// it (in order) and its wait list.
///
/// # Safety
/// As the entry points' pointers.
unsafe fn enqueue_sync_point(
    command_queue: *mut c_void,
    command_type: cl_uint,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const *mut c_void,
    event: *mut *mut c_void,
) -> Result<(), cl_int> {
    // SAFETY: forwarded contract.
    unsafe {
        let queue = queue_arg(command_queue)?;
        let waits = wait_list(&queue, num_events_in_wait_list, event_wait_list)?;
        let e = queue.enqueue_with_access(command_type, &waits, Access::Nothing, no_work)?;
        return_event(event, e);
    }
    Ok(())
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueMarkerWithWaitList(
    command_queue: *mut c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const *mut c_void,
    event: *mut *mut c_void,
) -> cl_int {
    // SAFETY: the application's pointers.
    api_call(|| unsafe {
        enqueue_sync_point(
            command_queue,
            CL_COMMAND_MARKER,
            num_events_in_wait_list,
            event_wait_list,
            event,
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueBarrierWithWaitList(
    command_queue: *mut c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const *mut c_void,
    event: *mut *mut c_void,
) -> cl_int {
    // SAFETY: the application's pointers.
    api_call(|| unsafe {
        enqueue_sync_point(
            command_queue,
            CL_COMMAND_BARRIER,
            num_events_in_wait_list,
            event_wait_list,
            event,
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueMarker(
    command_queue: *mut c_void,
    event: *mut *mut c_void,
) -> cl_int {
    api_call(|| {
        // CL_INVALID_VALUE if event is NULL.
        if event.is_null() {
            // SAFETY: validates the handle only.
            unsafe { queue_arg(command_queue)? };
            return Err(CL_INVALID_VALUE);
        }
        // SAFETY: the application's pointers.
        unsafe { enqueue_sync_point(command_queue, CL_COMMAND_MARKER, 0, std::ptr::null(), event) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueBarrier(command_queue: *mut c_void) -> cl_int {
    // SAFETY: the application's pointers.
    api_call(|| unsafe {
        enqueue_sync_point(
            command_queue,
            CL_COMMAND_BARRIER,
            0,
            std::ptr::null(),
            std::ptr::null_mut(),
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueWaitForEvents(
    command_queue: *mut c_void,
    num_events: cl_uint,
    event_list: *const *mut c_void,
) -> cl_int {
    api_call(|| {
        // SAFETY: a handle the application got from this library.
        let queue = unsafe { queue_arg(command_queue)? };
        // CL_INVALID_VALUE if num_events is 0 or event_list is NULL.
        if num_events == 0 || event_list.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        // CL_INVALID_EVENT if event objects specified in event_list are not
        // valid events.
        // SAFETY: the application gives num_events handles.
        let waits = unsafe { wait_list(&queue, num_events, event_list) }.map_err(|e| {
            if e == CL_INVALID_EVENT_WAIT_LIST {
                CL_INVALID_EVENT
            } else {
                e
            }
        })?;
        queue.enqueue_with_access(CL_COMMAND_BARRIER, &waits, Access::Nothing, no_work)?;
        Ok(())
    })
}
