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
//! With cl_khr_command_buffer_mutable_dispatch (revision 0.9.5), a kernel
//! command recorded with a mutable handle, or with arguments still unset
//! where its updatable fields allow, can be changed between enqueues by
//! `clUpdateMutableCommandsKHR`: each update is checked on a copy of the
//! command's kernel by the checks of `clSetKernelArg`,
//! `clSetKernelArgSVMPointer`, `clSetKernelExecInfo` and
//! `clEnqueueNDRangeKernel`, and applied only when every one passes.
//!
//! ferrocl has no cl_khr_command_buffer_multi_device: a command-buffer has
//! one queue and every recording call takes a NULL queue.

// The extension's C names.
#![allow(non_snake_case)]

use crate::enqueue::{check_nd_range, queue_arg, return_event, wait_list};
use crate::entry::{api_call, api_create};
use crate::image::{
    check_copy_buffer_to_image, check_copy_image, check_copy_image_to_buffer, check_fill_image,
};
use crate::info::write_info;
use crate::kernel::{clSetKernelArg, clSetKernelArgSVMPointer, clSetKernelExecInfo};
use crate::memory::{check_copy_buffer, check_copy_buffer_rect, check_fill_buffer};
use crate::properties::{Properties, Value};
use crate::svm::{check_svm_device, check_svm_fill, check_svm_memcpy};
use ferrocl_runtime::api::{
    arc_from_handle, from_handle, handle_of, into_handle, reference_count, release, retain,
};
use ferrocl_runtime::cl::*;
use ferrocl_runtime::command::Command;
use ferrocl_runtime::command_buffer::{CommandBuffer, DispatchConfig, MutableDispatch, Step};
use ferrocl_runtime::kernel::NdRange;
use std::ffi::c_void;
use std::sync::Arc;

/// The updatable fields every ferrocl device offers
/// (`CL_DEVICE_MUTABLE_DISPATCH_CAPABILITIES_KHR`).
pub(crate) const MUTABLE_DISPATCH_FIELDS: cl_bitfield = CL_MUTABLE_DISPATCH_GLOBAL_OFFSET_KHR
    | CL_MUTABLE_DISPATCH_GLOBAL_SIZE_KHR
    | CL_MUTABLE_DISPATCH_LOCAL_SIZE_KHR
    | CL_MUTABLE_DISPATCH_ARGUMENTS_KHR
    | CL_MUTABLE_DISPATCH_EXEC_INFO_KHR;

/// A property list of a command-buffer or a command, each name at most
/// once and `known` with only the bits `known` gives it
/// (else `CL_INVALID_VALUE`).
///
/// # Safety
/// `properties` is NULL or a 0-terminated list of (name, value) pairs.
unsafe fn property_list(
    properties: *const cl_properties,
    known: &[(cl_uint, cl_bitfield)],
) -> Result<Properties, cl_int> {
    // CL_INVALID_VALUE if values specified in properties are not valid, or
    // if the same property name is specified more than once.
    // SAFETY: per the contract.
    let props = unsafe { Properties::read(properties, &[], CL_INVALID_VALUE)? };
    let valid = |(name, value): &(u64, Value)| {
        known.iter().any(|&(n, bits)| {
            u64::from(n) == *name && matches!(value, Value::Word(w) if w & !bits == 0)
        })
    };
    if !props.entries.iter().all(valid) {
        return Err(CL_INVALID_VALUE);
    }
    Ok(props)
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
            let known = [
                (
                    CL_COMMAND_BUFFER_FLAGS_KHR,
                    CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR | CL_COMMAND_BUFFER_MUTABLE_KHR,
                ),
                (
                    CL_COMMAND_BUFFER_MUTABLE_DISPATCH_ASSERTS_KHR,
                    CL_MUTABLE_DISPATCH_ASSERT_NO_ADDITIONAL_WORK_GROUPS_KHR,
                ),
            ];
            let props = property_list(properties, &known)?;
            let flags = props.word(CL_COMMAND_BUFFER_FLAGS_KHR).unwrap_or(0);
            let asserts = props
                .word(CL_COMMAND_BUFFER_MUTABLE_DISPATCH_ASSERTS_KHR)
                .unwrap_or(0);
            Ok(into_handle(CommandBuffer::new(
                queue,
                props.array,
                flags,
                asserts,
            )))
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
unsafe fn record<S: Into<Step>>(
    command_buffer: *mut c_void,
    command_queue: *mut c_void,
    properties: *const cl_properties,
    num_sync_points_in_wait_list: cl_uint,
    sync_point_wait_list: *const cl_uint,
    sync_point: *mut cl_uint,
    mutable_handle: *mut *mut c_void,
    check: impl FnOnce(&CommandBuffer) -> Result<S, cl_int>,
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
        // the extension defines none (kernel commands check theirs in
        // `check`).
        if !properties.is_null() && properties.read_unaligned() != 0 {
            return Err(CL_INVALID_VALUE);
        }
        // CL_INVALID_VALUE if mutable_handle is not NULL (kernel commands
        // hand theirs out in `check`).
        if !mutable_handle.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let step = check(cb)?.into();
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
        let point = match step {
            Step::Fixed(Command::Nothing {
                command_type: CL_COMMAND_BARRIER,
            }) => cb.record_barrier(waits)?,
            step => cb.record(step, waits)?,
        };
        if !sync_point.is_null() {
            sync_point.write_unaligned(point);
        }
        Ok(())
    }
}

/// Defines a `clCommand*KHR` entry point: the arguments every recording
/// call has around the command's own, and the command's checks as the
/// body [`record`] runs on the command-buffer.
macro_rules! recording_entry_point {
    ($name:ident($($arg:ident: $ty:ty),*) => |$cb:ident| $check:expr) => {
        /// # Safety
        /// The application's pointers, as the extension defines them.
        #[allow(clippy::too_many_arguments)] // the extension's signature
        pub unsafe extern "C" fn $name(
            command_buffer: *mut c_void,
            command_queue: *mut c_void,
            properties: *const cl_properties,
            $($arg: $ty,)*
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
                    |$cb: &CommandBuffer| $check,
                )
            })
        }
    };
}

recording_entry_point!(clCommandBarrierWithWaitListKHR() => |_cb| Ok(Command::Nothing {
    command_type: CL_COMMAND_BARRIER,
}));

recording_entry_point!(clCommandCopyBufferKHR(
    src_buffer: *mut c_void,
    dst_buffer: *mut c_void,
    src_offset: usize,
    dst_offset: usize,
    size: usize
) => |cb| check_copy_buffer(&cb.queue, src_buffer, dst_buffer, src_offset, dst_offset, size));

recording_entry_point!(clCommandCopyBufferRectKHR(
    src_buffer: *mut c_void,
    dst_buffer: *mut c_void,
    src_origin: *const usize,
    dst_origin: *const usize,
    region: *const usize,
    src_row_pitch: usize,
    src_slice_pitch: usize,
    dst_row_pitch: usize,
    dst_slice_pitch: usize
) => |cb| check_copy_buffer_rect(
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
));

recording_entry_point!(clCommandCopyBufferToImageKHR(
    src_buffer: *mut c_void,
    dst_image: *mut c_void,
    src_offset: usize,
    dst_origin: *const usize,
    region: *const usize
) => |cb| check_copy_buffer_to_image(
    &cb.queue, src_buffer, dst_image, src_offset, dst_origin, region,
));

recording_entry_point!(clCommandCopyImageKHR(
    src_image: *mut c_void,
    dst_image: *mut c_void,
    src_origin: *const usize,
    dst_origin: *const usize,
    region: *const usize
) => |cb| check_copy_image(&cb.queue, src_image, dst_image, src_origin, dst_origin, region));

recording_entry_point!(clCommandCopyImageToBufferKHR(
    src_image: *mut c_void,
    dst_buffer: *mut c_void,
    src_origin: *const usize,
    region: *const usize,
    dst_offset: usize
) => |cb| check_copy_image_to_buffer(
    &cb.queue, src_image, dst_buffer, src_origin, region, dst_offset,
));

recording_entry_point!(clCommandFillBufferKHR(
    buffer: *mut c_void,
    pattern: *const c_void,
    pattern_size: usize,
    offset: usize,
    size: usize
) => |cb| check_fill_buffer(&cb.queue, buffer, pattern, pattern_size, offset, size));

recording_entry_point!(clCommandFillImageKHR(
    image: *mut c_void,
    fill_color: *const c_void,
    origin: *const usize,
    region: *const usize
) => |cb| check_fill_image(&cb.queue, image, fill_color, origin, region));

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
    let mut handle = None;
    // SAFETY: the application's pointers.
    let status = api_call(|| unsafe {
        // The properties and the mutable handle are this command's own,
        // checked once the command-buffer is known to be recording.
        record(
            command_buffer,
            command_queue,
            std::ptr::null(),
            num_sync_points_in_wait_list,
            sync_point_wait_list,
            sync_point,
            std::ptr::null_mut(),
            |cb| {
                let known = [
                    (
                        CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR,
                        MUTABLE_DISPATCH_FIELDS,
                    ),
                    (
                        CL_MUTABLE_DISPATCH_ASSERTS_KHR,
                        CL_MUTABLE_DISPATCH_ASSERT_NO_ADDITIONAL_WORK_GROUPS_KHR,
                    ),
                ];
                let props = property_list(properties, &known)?;
                let named = props.word(CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR);
                // CL_INVALID_VALUE if the command or the command-buffer
                // asserts no additional work-groups and local_work_size is
                // NULL.
                let asserts = props.word(CL_MUTABLE_DISPATCH_ASSERTS_KHR).unwrap_or(0) | cb.asserts;
                if asserts & CL_MUTABLE_DISPATCH_ASSERT_NO_ADDITIONAL_WORK_GROUPS_KHR != 0
                    && local_work_size.is_null()
                {
                    return Err(CL_INVALID_VALUE);
                }
                // CL_INVALID_KERNEL_ARGS if the kernel argument values have
                // not been specified and CL_MUTABLE_DISPATCH_ARGUMENTS_KHR
                // was not set in properties.
                let deferrable = named.is_some_and(|f| f & CL_MUTABLE_DISPATCH_ARGUMENTS_KHR != 0);
                let (recorded, range) = check_nd_range(
                    &cb.queue,
                    kernel,
                    work_dim,
                    global_work_offset,
                    global_work_size,
                    local_work_size,
                    !deferrable,
                )?;
                // The arguments as they are now: later clSetKernelArg calls
                // do not change the recorded command.
                let copy = recorded.clone_kernel();
                if mutable_handle.is_null() && copy.all_args_set() {
                    return Ok(Step::Fixed(Command::nd_range(copy, range)));
                }
                let config = DispatchConfig {
                    kernel: copy,
                    range,
                    local_given: !local_work_size.is_null(),
                };
                // Without CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR every
                // field the device can update may be.
                let updatable = named.unwrap_or(MUTABLE_DISPATCH_FIELDS);
                let dispatch = cb.new_dispatch(recorded, props.array, updatable, config);
                handle = Some(handle_of(&*dispatch));
                Ok(Step::Dispatch(dispatch))
            },
        )
    });
    if let (CL_SUCCESS, Some(h)) = (status, handle) {
        if !mutable_handle.is_null() {
            // SAFETY: the application's pointer, per the contract.
            unsafe { mutable_handle.write_unaligned(h) };
        }
    }
    status
}

/// `cl_mutable_dispatch_arg_khr`.
#[repr(C)]
struct MutableDispatchArg {
    arg_index: cl_uint,
    arg_size: usize,
    arg_value: *const c_void,
}

/// `cl_mutable_dispatch_exec_info_khr`.
#[repr(C)]
struct MutableDispatchExecInfo {
    param_name: cl_uint,
    param_value_size: usize,
    param_value: *const c_void,
}

/// `cl_mutable_dispatch_config_khr`.
#[repr(C)]
struct MutableDispatchConfig {
    command: *mut c_void,
    num_args: cl_uint,
    num_svm_args: cl_uint,
    num_exec_infos: cl_uint,
    work_dim: cl_uint,
    arg_list: *const MutableDispatchArg,
    arg_svm_list: *const MutableDispatchArg,
    exec_info_list: *const MutableDispatchExecInfo,
    global_work_offset: *const usize,
    global_work_size: *const usize,
    local_work_size: *const usize,
}

/// `count` entries at `list`, `CL_INVALID_VALUE` unless the list is NULL
/// exactly when the count is 0.
///
/// # Safety
/// `list` is NULL or points to `count` entries.
unsafe fn config_list<'a, T>(list: *const T, count: cl_uint) -> Result<&'a [T], cl_int> {
    if list.is_null() != (count == 0) {
        return Err(CL_INVALID_VALUE);
    }
    if list.is_null() {
        return Ok(&[]);
    }
    // SAFETY: per the contract.
    Ok(unsafe { std::slice::from_raw_parts(list, count as usize) })
}

/// `work_dim` values at `ptr`, the rest taken from `current`; NULL keeps
/// `current`.
///
/// # Safety
/// `ptr` is NULL or points to `work_dim` values.
unsafe fn merged(ptr: *const usize, work_dim: usize, current: [usize; 3]) -> [usize; 3] {
    let mut out = current;
    if !ptr.is_null() {
        for (d, slot) in out.iter_mut().enumerate().take(work_dim) {
            // SAFETY: per the contract.
            *slot = unsafe { ptr.add(d).read_unaligned() };
        }
    }
    out
}

/// One configuration of `clUpdateMutableCommandsKHR`, checked on a copy of
/// the command's kernel: what the command runs once the update is kept.
///
/// # Safety
/// `config` is the application's, as the extension defines it.
unsafe fn updated(
    dispatch: &MutableDispatch,
    current: DispatchConfig,
    config: &MutableDispatchConfig,
) -> Result<DispatchConfig, cl_int> {
    let fields = dispatch.updatable;
    let allowed = |field: cl_bitfield, given: bool| {
        // CL_INVALID_OPERATION if the field was not made updatable when the
        // command was recorded and the configuration changes it.
        if given && fields & field == 0 {
            Err(CL_INVALID_OPERATION)
        } else {
            Ok(())
        }
    };
    let work_dim = current.range.work_dim;
    // CL_INVALID_OPERATION if work_dim is not zero and different from the
    // work_dim set on command recording.
    if config.work_dim != 0 && config.work_dim != work_dim {
        return Err(CL_INVALID_OPERATION);
    }
    allowed(
        CL_MUTABLE_DISPATCH_GLOBAL_OFFSET_KHR,
        !config.global_work_offset.is_null(),
    )?;
    allowed(
        CL_MUTABLE_DISPATCH_GLOBAL_SIZE_KHR,
        !config.global_work_size.is_null(),
    )?;
    allowed(
        CL_MUTABLE_DISPATCH_LOCAL_SIZE_KHR,
        !config.local_work_size.is_null(),
    )?;
    allowed(
        CL_MUTABLE_DISPATCH_ARGUMENTS_KHR,
        config.num_args != 0 || config.num_svm_args != 0,
    )?;
    allowed(
        CL_MUTABLE_DISPATCH_EXEC_INFO_KHR,
        config.num_exec_infos != 0,
    )?;
    // SAFETY: per the contract.
    let (args, svm_args, infos) = unsafe {
        (
            config_list(config.arg_list, config.num_args)?,
            config_list(config.arg_svm_list, config.num_svm_args)?,
            config_list(config.exec_info_list, config.num_exec_infos)?,
        )
    };
    // The errors of clSetKernelArg, clSetKernelArgSVMPointer and
    // clSetKernelExecInfo, from those entry points run on a copy.
    let kernel = current.kernel.clone_kernel();
    let handle = handle_of(&*kernel);
    let status = |code: cl_int| {
        if code == CL_SUCCESS {
            Ok(())
        } else {
            Err(code)
        }
    };
    // SAFETY: the application's argument values, per the contract.
    unsafe {
        for a in args {
            status(clSetKernelArg(handle, a.arg_index, a.arg_size, a.arg_value))?;
        }
        for a in svm_args {
            status(clSetKernelArgSVMPointer(handle, a.arg_index, a.arg_value))?;
        }
        for i in infos {
            status(clSetKernelExecInfo(
                handle,
                i.param_name,
                i.param_value_size,
                i.param_value,
            ))?;
        }
    }
    let n = work_dim as usize;
    let range = current.range;
    // SAFETY: each pointer is NULL or holds work_dim values, per the
    // contract.
    let (offset, global, local) = unsafe {
        (
            merged(config.global_work_offset, n, range.offset),
            merged(config.global_work_size, n, range.global),
            merged(config.local_work_size, n, range.local),
        )
    };
    // A local size that was chosen is chosen again for a new global size.
    let local_given = current.local_given || !config.local_work_size.is_null();
    // The errors of clEnqueueNDRangeKernel for the new NDRange.
    // SAFETY: three values in each array.
    let (kernel, new_range) = unsafe {
        check_nd_range(
            &dispatch.queue,
            handle,
            work_dim,
            offset.as_ptr(),
            global.as_ptr(),
            if local_given {
                local.as_ptr()
            } else {
                std::ptr::null()
            },
            false,
        )?
    };
    // CL_INVALID_OPERATION if the values of local_work_size and/or
    // global_work_size result in a change to work-group uniformity.
    let uniform = |r: &NdRange| (0..3).all(|d| r.global[d].is_multiple_of(r.local[d]));
    if uniform(&range) != uniform(&new_range) {
        return Err(CL_INVALID_OPERATION);
    }
    Ok(DispatchConfig {
        kernel,
        range: new_range,
        local_given,
    })
}

/// # Safety
/// The application's pointers, as the extension defines them.
pub unsafe extern "C" fn clUpdateMutableCommandsKHR(
    command_buffer: *mut c_void,
    num_configs: cl_uint,
    config_types: *const cl_uint,
    configs: *const *const c_void,
) -> cl_int {
    // SAFETY: the application's pointers.
    api_call(|| unsafe {
        // CL_INVALID_COMMAND_BUFFER_KHR if command_buffer is not a valid
        // command-buffer.
        let cb = from_handle::<CommandBuffer>(command_buffer)?;
        // CL_INVALID_OPERATION if command_buffer has not been finalized, or
        // was not created with the CL_COMMAND_BUFFER_MUTABLE_KHR flag.
        if cb.state() == CL_COMMAND_BUFFER_STATE_RECORDING_KHR
            || cb.flags & CL_COMMAND_BUFFER_MUTABLE_KHR == 0
        {
            return Err(CL_INVALID_OPERATION);
        }
        // CL_INVALID_VALUE if config_types or configs is NULL and
        // num_configs > 0, or not NULL and num_configs is 0.
        let types = config_list(config_types, num_configs)?;
        let configs = config_list(configs, num_configs)?;
        let mut updates: Vec<(Arc<MutableDispatch>, DispatchConfig)> = Vec::new();
        for (&kind, &config) in types.iter().zip(configs) {
            // CL_INVALID_VALUE if any element of config_types is not a
            // valid cl_command_buffer_update_type_khr, or any element of
            // configs is NULL.
            if kind != CL_STRUCTURE_TYPE_MUTABLE_DISPATCH_CONFIG_KHR || config.is_null() {
                return Err(CL_INVALID_VALUE);
            }
            let config = &*(config as *const MutableDispatchConfig);
            // CL_INVALID_MUTABLE_COMMAND_KHR if command is not a valid
            // mutable command object of command_buffer.
            let dispatch = arc_from_handle::<MutableDispatch>(config.command)?;
            if !dispatch.belongs_to(cb) {
                return Err(CL_INVALID_MUTABLE_COMMAND_KHR);
            }
            // A command updated twice in one call takes both, in order.
            let earlier = updates.iter().position(|(d, _)| Arc::ptr_eq(d, &dispatch));
            let current = match earlier {
                Some(i) => updates[i].1.clone(),
                None => dispatch.config(),
            };
            let next = updated(&dispatch, current, config)?;
            match earlier {
                Some(i) => updates[i].1 = next,
                None => updates.push((dispatch, next)),
            }
        }
        cb.update(updates);
        Ok(())
    })
}

/// # Safety
/// The application's pointers, as the extension defines them.
pub unsafe extern "C" fn clGetMutableCommandInfoKHR(
    command: *mut c_void,
    param_name: cl_uint,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    api_call(|| {
        // CL_INVALID_MUTABLE_COMMAND_KHR if command is not a valid
        // mutable command object.
        // SAFETY: per the contract.
        let dispatch = unsafe { from_handle::<MutableDispatch>(command)? };
        let config = dispatch.config();
        let n = config.range.work_dim as usize;
        let local = if config.local_given {
            config.range.local
        } else {
            [0; 3]
        };
        let (size, ptr, ret) = (param_value_size, param_value, param_value_size_ret);
        // SAFETY: the application's output pointers.
        unsafe {
            match param_name {
                CL_MUTABLE_COMMAND_COMMAND_QUEUE_KHR => {
                    write_info(&handle_of(&*dispatch.queue), size, ptr, ret)
                }
                CL_MUTABLE_COMMAND_COMMAND_BUFFER_KHR => {
                    write_info(&dispatch.command_buffer_handle(), size, ptr, ret)
                }
                CL_MUTABLE_COMMAND_COMMAND_TYPE_KHR => {
                    write_info(&CL_COMMAND_NDRANGE_KERNEL, size, ptr, ret)
                }
                CL_MUTABLE_COMMAND_PROPERTIES_ARRAY_KHR => {
                    write_info(&dispatch.properties, size, ptr, ret)
                }
                CL_MUTABLE_DISPATCH_KERNEL_KHR => {
                    write_info(&handle_of(&*dispatch.recorded_kernel), size, ptr, ret)
                }
                CL_MUTABLE_DISPATCH_DIMENSIONS_KHR => {
                    write_info(&config.range.work_dim, size, ptr, ret)
                }
                CL_MUTABLE_DISPATCH_GLOBAL_WORK_OFFSET_KHR => {
                    write_info(&config.range.offset[..n], size, ptr, ret)
                }
                CL_MUTABLE_DISPATCH_GLOBAL_WORK_SIZE_KHR => {
                    write_info(&config.range.global[..n], size, ptr, ret)
                }
                CL_MUTABLE_DISPATCH_LOCAL_WORK_SIZE_KHR => write_info(&local[..n], size, ptr, ret),
                // CL_INVALID_VALUE if param_name is not one of the supported
                // values.
                _ => Err(CL_INVALID_VALUE),
            }
        }
    })
}

recording_entry_point!(clCommandSVMMemcpyKHR(
    dst_ptr: *mut c_void,
    src_ptr: *const c_void,
    size: usize
) => |cb| {
    check_svm_device(&cb.queue)?;
    check_svm_memcpy(dst_ptr, src_ptr, size)
});

recording_entry_point!(clCommandSVMMemFillKHR(
    svm_ptr: *mut c_void,
    pattern: *const c_void,
    pattern_size: usize,
    size: usize
) => |cb| {
    check_svm_device(&cb.queue)?;
    check_svm_fill(svm_ptr, pattern, pattern_size, size)
});
