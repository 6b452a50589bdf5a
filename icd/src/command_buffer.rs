//! cl_khr_command_buffer (revision 0.9.8): creating, recording, finalizing,
//! enqueuing and querying command-buffers. Applications reach these
//! through `clGetExtensionFunctionAddressForPlatform`.
//!
//! Each `clCommand*KHR` runs the same checks as its `clEnqueue*` twin on
//! the command-buffer's queue and records the [`Command`] they produce
//! (runtime/src/command_buffer.rs says how an enqueue replays it). A
//! kernel's arguments are taken when the command is recorded: the command
//! holds a copy of the kernel, as `clCloneKernel` makes.
//!
//! ferrocl has neither cl_khr_command_buffer_multi_device nor
//! cl_khr_command_buffer_mutable_dispatch: a command-buffer has one queue,
//! every recording call takes a NULL queue and a NULL mutable handle, and
//! no command-buffer flag is valid.

// The extension's C names.
#![allow(non_snake_case)]

use crate::enqueue::{check_nd_range, queue_arg, return_event, wait_list};
use crate::entry::{api_call, api_create};
use crate::image::{
    check_copy_buffer_to_image, check_copy_image, check_copy_image_to_buffer, check_fill_image,
};
use crate::info::write_info;
use crate::memory::{check_copy_buffer, check_copy_buffer_rect, check_fill_buffer};
use crate::svm::{check_svm_device, check_svm_fill, check_svm_memcpy};
use ferrocl_runtime::api::{
    arc_from_handle, from_handle, handle_of, into_handle, reference_count, release, retain,
};
use ferrocl_runtime::cl::*;
use ferrocl_runtime::command::Command;
use ferrocl_runtime::command_buffer::CommandBuffer;
use std::ffi::c_void;
use std::sync::Arc;

/// `clCreateCommandBufferKHR`'s property list, checked: what
/// `CL_COMMAND_BUFFER_PROPERTIES_ARRAY_KHR` returns.
///
/// # Safety
/// `properties` is NULL or a 0-terminated list of (name, value) pairs.
unsafe fn command_buffer_properties(properties: *const cl_properties) -> Result<Vec<u64>, cl_int> {
    let mut array = Vec::new();
    if properties.is_null() {
        return Ok(array);
    }
    let mut i = 0;
    loop {
        // SAFETY: per the contract.
        let name = unsafe { properties.add(i).read_unaligned() };
        if name == 0 {
            break;
        }
        // SAFETY: per the contract, a value follows every name.
        let value = unsafe { properties.add(i + 1).read_unaligned() };
        // CL_INVALID_VALUE if values specified in properties are not valid,
        // or if the same property name is specified more than once. The
        // flags this extension defines belong to layered extensions
        // ferrocl does not have, so only 0 is a valid value.
        let repeated = array.chunks(2).any(|pair| pair[0] == name);
        if name != u64::from(CL_COMMAND_BUFFER_FLAGS_KHR) || value != 0 || repeated {
            return Err(CL_INVALID_VALUE);
        }
        array.extend([name, value]);
        i += 2;
    }
    array.push(0);
    Ok(array)
}

/// # Safety
/// The application's pointers, as the extension defines them.
pub unsafe extern "C" fn clCreateCommandBufferKHR(
    num_queues: cl_uint,
    queues: *const *mut c_void,
    properties: *const cl_properties,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    // SAFETY: the application's pointers.
    unsafe {
        api_create(errcode_ret, || {
            // CL_INVALID_VALUE if queues is NULL, or (without
            // cl_khr_command_buffer_multi_device) num_queues is not one.
            if queues.is_null() || num_queues != 1 {
                return Err(CL_INVALID_VALUE);
            }
            // CL_INVALID_COMMAND_QUEUE if any command-queue in queues is not
            // a valid command-queue.
            let queue = queue_arg(queues.read_unaligned())?;
            let properties = command_buffer_properties(properties)?;
            Ok(into_handle(CommandBuffer::new(queue, properties)))
        })
    }
}

/// # Safety
/// A handle from the application.
pub unsafe extern "C" fn clRetainCommandBufferKHR(command_buffer: *mut c_void) -> cl_int {
    // SAFETY: per the contract.
    api_call(|| unsafe { retain::<CommandBuffer>(command_buffer) })
}

/// # Safety
/// A handle from the application.
pub unsafe extern "C" fn clReleaseCommandBufferKHR(command_buffer: *mut c_void) -> cl_int {
    // Enqueued executions hold no reference to the command-buffer: each
    // command keeps what it uses alive until it completes.
    // SAFETY: per the contract.
    api_call(|| unsafe { release::<CommandBuffer>(command_buffer) })
}

/// # Safety
/// A handle from the application.
pub unsafe extern "C" fn clFinalizeCommandBufferKHR(command_buffer: *mut c_void) -> cl_int {
    api_call(|| {
        // CL_INVALID_COMMAND_BUFFER_KHR if command_buffer is not a valid
        // command-buffer.
        // SAFETY: per the contract.
        let cb = unsafe { from_handle::<CommandBuffer>(command_buffer)? };
        // CL_INVALID_OPERATION if command_buffer is not in the Recording
        // state.
        cb.finalize()
    })
}

/// # Safety
/// The application's pointers, as the extension defines them.
pub unsafe extern "C" fn clEnqueueCommandBufferKHR(
    num_queues: cl_uint,
    queues: *const *mut c_void,
    command_buffer: *mut c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const *mut c_void,
    event: *mut *mut c_void,
) -> cl_int {
    // SAFETY: the application's pointers.
    api_call(|| unsafe {
        // CL_INVALID_COMMAND_BUFFER_KHR if command_buffer is not a valid
        // command-buffer.
        let cb = arc_from_handle::<CommandBuffer>(command_buffer)?;
        // CL_INVALID_OPERATION if command_buffer is not in the Executable
        // state.
        if cb.state() != CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR {
            return Err(CL_INVALID_OPERATION);
        }
        // CL_INVALID_VALUE if queues is NULL and num_queues is > 0, or
        // queues is not NULL and num_queues is 0, or num_queues is > 0 and
        // not the number set on creation (one).
        if queues.is_null() != (num_queues == 0) || num_queues > 1 {
            return Err(CL_INVALID_VALUE);
        }
        let queue = if queues.is_null() {
            cb.queue.clone()
        } else {
            // CL_INVALID_COMMAND_QUEUE if any element of queues is not a
            // valid command-queue.
            let q = queue_arg(queues.read_unaligned())?;
            // CL_INVALID_CONTEXT if any element of queues does not have the
            // same context as the command-queue set on creation at the same
            // list index.
            if !Arc::ptr_eq(&q.context, &cb.context) {
                return Err(CL_INVALID_CONTEXT);
            }
            // CL_INVALID_DEVICE if any element of queues does not have the
            // same device as the command-queue set on creation at the same
            // list index.
            if !Arc::ptr_eq(&q.device, &cb.queue.device) {
                return Err(CL_INVALID_DEVICE);
            }
            q
        };
        // Every host queue property is among
        // CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES_KHR and none is
        // required, so no queue is CL_INCOMPATIBLE_COMMAND_QUEUE_KHR.
        // CL_INVALID_CONTEXT if the context associated with command_buffer
        // and events in event_wait_list are not the same;
        // CL_INVALID_EVENT_WAIT_LIST for a malformed list.
        let waits = wait_list(&queue, num_events_in_wait_list, event_wait_list)?;
        return_event(event, cb.enqueue(&queue, &waits)?);
        Ok(())
    })
}

/// # Safety
/// The application's pointers, as the extension defines them.
pub unsafe extern "C" fn clGetCommandBufferInfoKHR(
    command_buffer: *mut c_void,
    param_name: cl_uint,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    api_call(|| {
        // CL_INVALID_COMMAND_BUFFER_KHR if command_buffer is not a valid
        // command-buffer.
        // SAFETY: per the contract.
        let cb = unsafe { from_handle::<CommandBuffer>(command_buffer)? };
        let (size, ptr, ret) = (param_value_size, param_value, param_value_size_ret);
        // SAFETY: the application's output pointers.
        unsafe {
            match param_name {
                CL_COMMAND_BUFFER_QUEUES_KHR => {
                    write_info(&[handle_of(&*cb.queue)], size, ptr, ret)
                }
                CL_COMMAND_BUFFER_NUM_QUEUES_KHR => write_info(&(1 as cl_uint), size, ptr, ret),
                CL_COMMAND_BUFFER_REFERENCE_COUNT_KHR => {
                    write_info(&reference_count(cb), size, ptr, ret)
                }
                CL_COMMAND_BUFFER_STATE_KHR => write_info(&cb.state(), size, ptr, ret),
                CL_COMMAND_BUFFER_PROPERTIES_ARRAY_KHR => {
                    write_info(&cb.properties, size, ptr, ret)
                }
                CL_COMMAND_BUFFER_CONTEXT_KHR => {
                    write_info(&handle_of(&*cb.context), size, ptr, ret)
                }
                // CL_INVALID_VALUE if param_name is not one of the supported
                // values.
                _ => Err(CL_INVALID_VALUE),
            }
        }
    })
}

/// What every `clCommand*KHR` does besides its command's own checks: the
/// recording arguments are checked, then `check` runs on the
/// command-buffer's queue, and the command it allows is recorded after the
/// sync points it waits for.
///
/// # Safety
/// The pointers are the application's, as the extension defines them.
#[allow(clippy::too_many_arguments)] // the arguments every recording call has
unsafe fn record(
    command_buffer: *mut c_void,
    command_queue: *mut c_void,
    properties: *const cl_properties,
    num_sync_points_in_wait_list: cl_uint,
    sync_point_wait_list: *const cl_uint,
    sync_point: *mut cl_uint,
    mutable_handle: *mut *mut c_void,
    check: impl FnOnce(&CommandBuffer) -> Result<Command, cl_int>,
) -> Result<(), cl_int> {
    // SAFETY: per the contract.
    unsafe {
        // CL_INVALID_COMMAND_BUFFER_KHR if command_buffer is not a valid
        // command-buffer.
        let cb = from_handle::<CommandBuffer>(command_buffer)?;
        // CL_INVALID_COMMAND_QUEUE if command_queue is not NULL (without
        // cl_khr_command_buffer_multi_device).
        if !command_queue.is_null() {
            return Err(CL_INVALID_COMMAND_QUEUE);
        }
        // CL_INVALID_OPERATION if command_buffer has been finalized.
        if cb.state() != CL_COMMAND_BUFFER_STATE_RECORDING_KHR {
            return Err(CL_INVALID_OPERATION);
        }
        // CL_INVALID_VALUE if values specified in properties are not valid:
        // the extension defines none.
        if !properties.is_null() && properties.read_unaligned() != 0 {
            return Err(CL_INVALID_VALUE);
        }
        // CL_INVALID_VALUE if mutable_handle is not NULL.
        if !mutable_handle.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let command = check(cb)?;
        // CL_INVALID_SYNC_POINT_WAIT_LIST_KHR if sync_point_wait_list is
        // NULL and num_sync_points_in_wait_list is > 0, or
        // sync_point_wait_list is not NULL and num_sync_points_in_wait_list
        // is 0, or if synchronization-point objects in sync_point_wait_list
        // are not valid synchronization-points.
        if sync_point_wait_list.is_null() != (num_sync_points_in_wait_list == 0) {
            return Err(CL_INVALID_SYNC_POINT_WAIT_LIST_KHR);
        }
        let points: Vec<cl_uint> = (0..num_sync_points_in_wait_list as usize)
            .map(|i| sync_point_wait_list.add(i).read_unaligned())
            .collect();
        let waits = cb.check_sync_points(&points)?;
        let point = match command {
            Command::Nothing {
                command_type: CL_COMMAND_BARRIER,
            } => cb.record_barrier(waits)?,
            command => cb.record(command, waits)?,
        };
        if !sync_point.is_null() {
            sync_point.write_unaligned(point);
        }
        Ok(())
    }
}

/// # Safety
/// The application's pointers, as the extension defines them.
pub unsafe extern "C" fn clCommandBarrierWithWaitListKHR(
    command_buffer: *mut c_void,
    command_queue: *mut c_void,
    properties: *const cl_properties,
    num_sync_points_in_wait_list: cl_uint,
    sync_point_wait_list: *const cl_uint,
    sync_point: *mut cl_uint,
    mutable_handle: *mut *mut c_void,
) -> cl_int {
    // SAFETY: the application's pointers.
    api_call(|| unsafe {
        record(
            command_buffer,
            command_queue,
            properties,
            num_sync_points_in_wait_list,
            sync_point_wait_list,
            sync_point,
            mutable_handle,
            |_| {
                Ok(Command::Nothing {
                    command_type: CL_COMMAND_BARRIER,
                })
            },
        )
    })
}

/// # Safety
/// The application's pointers, as the extension defines them.
#[allow(clippy::too_many_arguments)] // the extension's signature
pub unsafe extern "C" fn clCommandCopyBufferKHR(
    command_buffer: *mut c_void,
    command_queue: *mut c_void,
    properties: *const cl_properties,
    src_buffer: *mut c_void,
    dst_buffer: *mut c_void,
    src_offset: usize,
    dst_offset: usize,
    size: usize,
    num_sync_points_in_wait_list: cl_uint,
    sync_point_wait_list: *const cl_uint,
    sync_point: *mut cl_uint,
    mutable_handle: *mut *mut c_void,
) -> cl_int {
    // SAFETY: the application's pointers.
    api_call(|| unsafe {
        record(
            command_buffer,
            command_queue,
            properties,
            num_sync_points_in_wait_list,
            sync_point_wait_list,
            sync_point,
            mutable_handle,
            |cb| {
                check_copy_buffer(
                    &cb.queue, src_buffer, dst_buffer, src_offset, dst_offset, size,
                )
            },
        )
    })
}

/// # Safety
/// The application's pointers, as the extension defines them.
#[allow(clippy::too_many_arguments)] // the extension's signature
pub unsafe extern "C" fn clCommandCopyBufferRectKHR(
    command_buffer: *mut c_void,
    command_queue: *mut c_void,
    properties: *const cl_properties,
    src_buffer: *mut c_void,
    dst_buffer: *mut c_void,
    src_origin: *const usize,
    dst_origin: *const usize,
    region: *const usize,
    src_row_pitch: usize,
    src_slice_pitch: usize,
    dst_row_pitch: usize,
    dst_slice_pitch: usize,
    num_sync_points_in_wait_list: cl_uint,
    sync_point_wait_list: *const cl_uint,
    sync_point: *mut cl_uint,
    mutable_handle: *mut *mut c_void,
) -> cl_int {
    // SAFETY: the application's pointers.
    api_call(|| unsafe {
        record(
            command_buffer,
            command_queue,
            properties,
            num_sync_points_in_wait_list,
            sync_point_wait_list,
            sync_point,
            mutable_handle,
            |cb| {
                check_copy_buffer_rect(
                    &cb.queue,
                    src_buffer,
                    dst_buffer,
                    src_origin,
                    dst_origin,
                    region,
                    src_row_pitch,
                    src_slice_pitch,
                    dst_row_pitch,
                    dst_slice_pitch,
                )
            },
        )
    })
}

/// # Safety
/// The application's pointers, as the extension defines them.
#[allow(clippy::too_many_arguments)] // the extension's signature
pub unsafe extern "C" fn clCommandCopyBufferToImageKHR(
    command_buffer: *mut c_void,
    command_queue: *mut c_void,
    properties: *const cl_properties,
    src_buffer: *mut c_void,
    dst_image: *mut c_void,
    src_offset: usize,
    dst_origin: *const usize,
    region: *const usize,
    num_sync_points_in_wait_list: cl_uint,
    sync_point_wait_list: *const cl_uint,
    sync_point: *mut cl_uint,
    mutable_handle: *mut *mut c_void,
) -> cl_int {
    // SAFETY: the application's pointers.
    api_call(|| unsafe {
        record(
            command_buffer,
            command_queue,
            properties,
            num_sync_points_in_wait_list,
            sync_point_wait_list,
            sync_point,
            mutable_handle,
            |cb| {
                check_copy_buffer_to_image(
                    &cb.queue, src_buffer, dst_image, src_offset, dst_origin, region,
                )
            },
        )
    })
}

/// # Safety
/// The application's pointers, as the extension defines them.
#[allow(clippy::too_many_arguments)] // the extension's signature
pub unsafe extern "C" fn clCommandCopyImageKHR(
    command_buffer: *mut c_void,
    command_queue: *mut c_void,
    properties: *const cl_properties,
    src_image: *mut c_void,
    dst_image: *mut c_void,
    src_origin: *const usize,
    dst_origin: *const usize,
    region: *const usize,
    num_sync_points_in_wait_list: cl_uint,
    sync_point_wait_list: *const cl_uint,
    sync_point: *mut cl_uint,
    mutable_handle: *mut *mut c_void,
) -> cl_int {
    // SAFETY: the application's pointers.
    api_call(|| unsafe {
        record(
            command_buffer,
            command_queue,
            properties,
            num_sync_points_in_wait_list,
            sync_point_wait_list,
            sync_point,
            mutable_handle,
            |cb| {
                check_copy_image(
                    &cb.queue, src_image, dst_image, src_origin, dst_origin, region,
                )
            },
        )
    })
}

/// # Safety
/// The application's pointers, as the extension defines them.
#[allow(clippy::too_many_arguments)] // the extension's signature
pub unsafe extern "C" fn clCommandCopyImageToBufferKHR(
    command_buffer: *mut c_void,
    command_queue: *mut c_void,
    properties: *const cl_properties,
    src_image: *mut c_void,
    dst_buffer: *mut c_void,
    src_origin: *const usize,
    region: *const usize,
    dst_offset: usize,
    num_sync_points_in_wait_list: cl_uint,
    sync_point_wait_list: *const cl_uint,
    sync_point: *mut cl_uint,
    mutable_handle: *mut *mut c_void,
) -> cl_int {
    // SAFETY: the application's pointers.
    api_call(|| unsafe {
        record(
            command_buffer,
            command_queue,
            properties,
            num_sync_points_in_wait_list,
            sync_point_wait_list,
            sync_point,
            mutable_handle,
            |cb| {
                check_copy_image_to_buffer(
                    &cb.queue, src_image, dst_buffer, src_origin, region, dst_offset,
                )
            },
        )
    })
}

/// # Safety
/// The application's pointers, as the extension defines them.
#[allow(clippy::too_many_arguments)] // the extension's signature
pub unsafe extern "C" fn clCommandFillBufferKHR(
    command_buffer: *mut c_void,
    command_queue: *mut c_void,
    properties: *const cl_properties,
    buffer: *mut c_void,
    pattern: *const c_void,
    pattern_size: usize,
    offset: usize,
    size: usize,
    num_sync_points_in_wait_list: cl_uint,
    sync_point_wait_list: *const cl_uint,
    sync_point: *mut cl_uint,
    mutable_handle: *mut *mut c_void,
) -> cl_int {
    // SAFETY: the application's pointers.
    api_call(|| unsafe {
        record(
            command_buffer,
            command_queue,
            properties,
            num_sync_points_in_wait_list,
            sync_point_wait_list,
            sync_point,
            mutable_handle,
            |cb| check_fill_buffer(&cb.queue, buffer, pattern, pattern_size, offset, size),
        )
    })
}

/// # Safety
/// The application's pointers, as the extension defines them.
#[allow(clippy::too_many_arguments)] // the extension's signature
pub unsafe extern "C" fn clCommandFillImageKHR(
    command_buffer: *mut c_void,
    command_queue: *mut c_void,
    properties: *const cl_properties,
    image: *mut c_void,
    fill_color: *const c_void,
    origin: *const usize,
    region: *const usize,
    num_sync_points_in_wait_list: cl_uint,
    sync_point_wait_list: *const cl_uint,
    sync_point: *mut cl_uint,
    mutable_handle: *mut *mut c_void,
) -> cl_int {
    // SAFETY: the application's pointers.
    api_call(|| unsafe {
        record(
            command_buffer,
            command_queue,
            properties,
            num_sync_points_in_wait_list,
            sync_point_wait_list,
            sync_point,
            mutable_handle,
            |cb| check_fill_image(&cb.queue, image, fill_color, origin, region),
        )
    })
}

/// # Safety
/// The application's pointers, as the extension defines them.
#[allow(clippy::too_many_arguments)] // the extension's signature
pub unsafe extern "C" fn clCommandNDRangeKernelKHR(
    command_buffer: *mut c_void,
    command_queue: *mut c_void,
    properties: *const cl_properties,
    kernel: *mut c_void,
    work_dim: cl_uint,
    global_work_offset: *const usize,
    global_work_size: *const usize,
    local_work_size: *const usize,
    num_sync_points_in_wait_list: cl_uint,
    sync_point_wait_list: *const cl_uint,
    sync_point: *mut cl_uint,
    mutable_handle: *mut *mut c_void,
) -> cl_int {
    // SAFETY: the application's pointers.
    api_call(|| unsafe {
        record(
            command_buffer,
            command_queue,
            properties,
            num_sync_points_in_wait_list,
            sync_point_wait_list,
            sync_point,
            mutable_handle,
            |cb| {
                let command = check_nd_range(
                    &cb.queue,
                    kernel,
                    work_dim,
                    global_work_offset,
                    global_work_size,
                    local_work_size,
                )?;
                // The arguments as they are now: later clSetKernelArg calls do
                // not change the recorded command.
                Ok(match command {
                    Command::NdRange { kernel, range } => Command::NdRange {
                        kernel: kernel.clone_kernel(),
                        range,
                    },
                    other => other,
                })
            },
        )
    })
}

/// # Safety
/// The application's pointers, as the extension defines them.
#[allow(clippy::too_many_arguments)] // the extension's signature
pub unsafe extern "C" fn clCommandSVMMemcpyKHR(
    command_buffer: *mut c_void,
    command_queue: *mut c_void,
    properties: *const cl_properties,
    dst_ptr: *mut c_void,
    src_ptr: *const c_void,
    size: usize,
    num_sync_points_in_wait_list: cl_uint,
    sync_point_wait_list: *const cl_uint,
    sync_point: *mut cl_uint,
    mutable_handle: *mut *mut c_void,
) -> cl_int {
    // SAFETY: the application's pointers.
    api_call(|| unsafe {
        record(
            command_buffer,
            command_queue,
            properties,
            num_sync_points_in_wait_list,
            sync_point_wait_list,
            sync_point,
            mutable_handle,
            |cb| {
                check_svm_device(&cb.queue)?;
                check_svm_memcpy(dst_ptr, src_ptr, size)
            },
        )
    })
}

/// # Safety
/// The application's pointers, as the extension defines them.
#[allow(clippy::too_many_arguments)] // the extension's signature
pub unsafe extern "C" fn clCommandSVMMemFillKHR(
    command_buffer: *mut c_void,
    command_queue: *mut c_void,
    properties: *const cl_properties,
    svm_ptr: *mut c_void,
    pattern: *const c_void,
    pattern_size: usize,
    size: usize,
    num_sync_points_in_wait_list: cl_uint,
    sync_point_wait_list: *const cl_uint,
    sync_point: *mut cl_uint,
    mutable_handle: *mut *mut c_void,
) -> cl_int {
    // SAFETY: the application's pointers.
    api_call(|| unsafe {
        record(
            command_buffer,
            command_queue,
            properties,
            num_sync_points_in_wait_list,
            sync_point_wait_list,
            sync_point,
            mutable_handle,
            |cb| {
                check_svm_device(&cb.queue)?;
                check_svm_fill(svm_ptr, pattern, pattern_size, size)
            },
        )
    })
}
