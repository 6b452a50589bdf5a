//! cl_khr_semaphore: binary semaphores between the queues of a context
//! (runtime/src/semaphore.rs keeps them). No external semaphore handle type
//! is offered, so semaphores are neither imported nor exported.

// The extension's C names.
#![allow(non_snake_case)]

use crate::enqueue::{queue_arg, return_event, unfailed_wait_list};
use crate::entry::{api_call, api_create};
use crate::info::write_info;
use crate::properties::{context_devices, Properties, Value};
use ferrocl_runtime::api::{
    arc_from_handle, from_handle, handle_of, into_handle, reference_count, release, retain,
};
use ferrocl_runtime::cl::*;
use ferrocl_runtime::context::Context;
use ferrocl_runtime::device::Device;
use ferrocl_runtime::event::Event;
use ferrocl_runtime::queue::Queue;
use ferrocl_runtime::semaphore::{self, Semaphore};
use std::ffi::c_void;
use std::sync::Arc;

/// # Safety
/// The application's pointers, as the extension defines them.
pub unsafe extern "C" fn clCreateSemaphoreWithPropertiesKHR(
    context: *mut c_void,
    sema_props: *const cl_properties,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    // SAFETY: the application's pointers.
    unsafe {
        api_create(errcode_ret, || {
            // CL_INVALID_CONTEXT if context is not a valid context.
            let context = arc_from_handle::<Context>(context)?;
            // CL_INVALID_VALUE if sema_props is NULL.
            if sema_props.is_null() {
                return Err(CL_INVALID_VALUE);
            }
            // CL_INVALID_PROPERTY if a property name in sema_props is not a
            // supported property name, if the value specified for a
            // supported property name is not valid, or if the same property
            // name is specified more than once.
            let list_name = CL_SEMAPHORE_DEVICE_HANDLE_LIST_KHR;
            let props = Properties::read(sema_props, &[list_name], CL_INVALID_PROPERTY)?;
            let known = |(name, _): &(u64, Value)| {
                [CL_SEMAPHORE_TYPE_KHR, list_name]
                    .iter()
                    .any(|&n| u64::from(n) == *name)
            };
            if !props.entries.iter().all(known) {
                return Err(CL_INVALID_PROPERTY);
            }
            match props.word(CL_SEMAPHORE_TYPE_KHR) {
                Some(kind) if kind == u64::from(CL_SEMAPHORE_TYPE_BINARY_KHR) => {}
                Some(_) => return Err(CL_INVALID_PROPERTY),
                // CL_INVALID_VALUE if sema_props does not specify
                // CL_SEMAPHORE_TYPE_KHR.
                None => return Err(CL_INVALID_VALUE),
            }
            let device = match props.list(list_name) {
                // CL_INVALID_PROPERTY if context is a multiple device
                // context and sema_props does not specify
                // CL_SEMAPHORE_DEVICE_HANDLE_LIST_KHR.
                None if context.devices.len() > 1 => return Err(CL_INVALID_PROPERTY),
                None => context.devices[0].clone(),
                // CL_INVALID_DEVICE if the list does not identify exactly
                // one valid device of context.
                Some(handles) => match &context_devices(&context, handles)?[..] {
                    [device] => device.clone(),
                    _ => return Err(CL_INVALID_DEVICE),
                },
            };
            Ok(into_handle(Semaphore::new(context, device, props.array)))
        })
    }
}

/// # Safety
/// A handle from the application.
pub unsafe extern "C" fn clRetainSemaphoreKHR(sema_object: *mut c_void) -> cl_int {
    // SAFETY: per the contract.
    api_call(|| unsafe { retain::<Semaphore>(sema_object) })
}

/// # Safety
/// A handle from the application.
pub unsafe extern "C" fn clReleaseSemaphoreKHR(sema_object: *mut c_void) -> cl_int {
    // Commands that use the semaphore keep what they need alive (their
    // events), so the object may go at once.
    // SAFETY: per the contract.
    api_call(|| unsafe { release::<Semaphore>(sema_object) })
}

/// The semaphores of a wait or signal command, checked against `queue`.
///
/// # Safety
/// `list` is NULL or points to `num` handles.
unsafe fn semaphores(
    queue: &Queue,
    num: cl_uint,
    list: *const *mut c_void,
) -> Result<Vec<Arc<Semaphore>>, cl_int> {
    // CL_INVALID_VALUE if num_sema_objects is 0.
    if num == 0 {
        return Err(CL_INVALID_VALUE);
    }
    // CL_INVALID_SEMAPHORE_KHR if any of the semaphore objects specified by
    // sema_objects is not valid.
    if list.is_null() {
        return Err(CL_INVALID_SEMAPHORE_KHR);
    }
    (0..num as usize)
        .map(|i| {
            // SAFETY: per the contract.
            let s = unsafe { arc_from_handle::<Semaphore>(list.add(i).read_unaligned())? };
            // CL_INVALID_CONTEXT if the context associated with
            // command_queue and any of the semaphore objects are not the
            // same.
            if !Arc::ptr_eq(&s.context, &queue.context) {
                return Err(CL_INVALID_CONTEXT);
            }
            // CL_INVALID_COMMAND_QUEUE if the device associated with
            // command_queue is not the semaphore's device.
            if !Arc::ptr_eq(&s.device, &queue.device) {
                return Err(CL_INVALID_COMMAND_QUEUE);
            }
            Ok(s)
        })
        .collect()
}

/// The runtime's wait or signal command.
type SemaphoreCommand =
    fn(&Arc<Queue>, &[Arc<Semaphore>], &[Arc<Event>]) -> Result<Arc<Event>, cl_int>;

/// What `clEnqueueWaitSemaphoresKHR` and `clEnqueueSignalSemaphoresKHR`
/// share; `enqueue` is the runtime's command. Binary semaphores take no
/// payload, so `sema_payload_list` is ignored.
///
/// # Safety
/// The application's pointers, as the extension defines them.
unsafe fn semaphore_command(
    command_queue: *mut c_void,
    num_sema_objects: cl_uint,
    sema_objects: *const *mut c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const *mut c_void,
    event: *mut *mut c_void,
    enqueue: SemaphoreCommand,
) -> cl_int {
    // SAFETY: the application's pointers.
    api_call(|| unsafe {
        // CL_INVALID_COMMAND_QUEUE if command_queue is not a valid
        // command-queue.
        let queue = queue_arg(command_queue)?;
        let semaphores = semaphores(&queue, num_sema_objects, sema_objects)?;
        let waits = unfailed_wait_list(&queue, num_events_in_wait_list, event_wait_list)?;
        return_event(event, enqueue(&queue, &semaphores, &waits)?);
        Ok(())
    })
}

/// # Safety
/// The application's pointers, as the extension defines them.
pub unsafe extern "C" fn clEnqueueWaitSemaphoresKHR(
    command_queue: *mut c_void,
    num_sema_objects: cl_uint,
    sema_objects: *const *mut c_void,
    _sema_payload_list: *const u64,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const *mut c_void,
    event: *mut *mut c_void,
) -> cl_int {
    // SAFETY: forwarded.
    unsafe {
        semaphore_command(
            command_queue,
            num_sema_objects,
            sema_objects,
            num_events_in_wait_list,
            event_wait_list,
            event,
            semaphore::enqueue_wait,
        )
    }
}

/// # Safety
/// The application's pointers, as the extension defines them.
pub unsafe extern "C" fn clEnqueueSignalSemaphoresKHR(
    command_queue: *mut c_void,
    num_sema_objects: cl_uint,
    sema_objects: *const *mut c_void,
    _sema_payload_list: *const u64,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const *mut c_void,
    event: *mut *mut c_void,
) -> cl_int {
    // SAFETY: forwarded.
    unsafe {
        semaphore_command(
            command_queue,
            num_sema_objects,
            sema_objects,
            num_events_in_wait_list,
            event_wait_list,
            event,
            semaphore::enqueue_signal,
        )
    }
}

/// # Safety
/// The application's pointers, as the extension defines them.
pub unsafe extern "C" fn clGetSemaphoreInfoKHR(
    sema_object: *mut c_void,
    param_name: cl_uint,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    api_call(|| {
        // CL_INVALID_SEMAPHORE_KHR if sema_object is not a valid semaphore.
        // SAFETY: per the contract.
        let s = unsafe { from_handle::<Semaphore>(sema_object)? };
        let (size, ptr, ret) = (param_value_size, param_value, param_value_size_ret);
        // SAFETY: the application's output pointers.
        unsafe {
            match param_name {
                CL_SEMAPHORE_CONTEXT_KHR => write_info(&handle_of(&*s.context), size, ptr, ret),
                CL_SEMAPHORE_REFERENCE_COUNT_KHR => write_info(&reference_count(s), size, ptr, ret),
                CL_SEMAPHORE_PROPERTIES_KHR => write_info(&s.properties, size, ptr, ret),
                CL_SEMAPHORE_TYPE_KHR => write_info(&CL_SEMAPHORE_TYPE_BINARY_KHR, size, ptr, ret),
                CL_SEMAPHORE_PAYLOAD_KHR => write_info(&s.payload(), size, ptr, ret),
                CL_SEMAPHORE_DEVICE_HANDLE_LIST_KHR => {
                    write_info(&[handle_of(&*s.device)], size, ptr, ret)
                }
                // CL_INVALID_VALUE if param_name is not one of the supported
                // values (the export queries belong to
                // cl_khr_external_semaphore, which is not offered).
                _ => Err(CL_INVALID_VALUE),
            }
        }
    })
}

/// `clGetSemaphoreHandleForTypeKHR` (cl_khr_external_semaphore, which is
/// not offered): no semaphore is created with export handle types, so every
/// valid request is `CL_INVALID_VALUE`. Resolvable because the CTS's
/// cl_khr_semaphore tests look it up before any test runs.
///
/// # Safety
/// Handles from the application.
pub unsafe extern "C" fn clGetSemaphoreHandleForTypeKHR(
    sema_object: *mut c_void,
    device: *mut c_void,
    _handle_type: cl_uint,
    _handle_size: usize,
    _handle_ptr: *mut c_void,
    _handle_size_ret: *mut usize,
) -> cl_int {
    api_call(|| {
        // CL_INVALID_SEMAPHORE_KHR if sema_object is not a valid semaphore.
        // SAFETY: per the contract.
        let s = unsafe { from_handle::<Semaphore>(sema_object)? };
        // CL_INVALID_DEVICE if device is not a valid device, or not the
        // semaphore's.
        // SAFETY: per the contract.
        let d = unsafe { from_handle::<Device>(device).map_err(|_| CL_INVALID_DEVICE)? };
        if !std::ptr::eq(Arc::as_ptr(&s.device), d) {
            return Err(CL_INVALID_DEVICE);
        }
        // CL_INVALID_VALUE if the requested external semaphore handle type
        // was not specified when sema_object was created.
        Err(CL_INVALID_VALUE)
    })
}
