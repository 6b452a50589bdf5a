//! Event entry points.

use crate::entry::{api_call, api_create};
use crate::info::write_info;
use ferrocl_runtime::api::{
    arc_from_handle, from_handle, handle_of, into_handle, reference_count, release, retain,
};
use ferrocl_runtime::cl::*;
use ferrocl_runtime::context::Context;
use ferrocl_runtime::event::{Event, EventCallback};
use std::ffi::c_void;
use std::sync::Arc;

#[no_mangle]
pub unsafe extern "C" fn clWaitForEvents(
    num_events: cl_uint,
    event_list: *const *mut c_void,
) -> cl_int {
    api_call(|| {
        // CL_INVALID_VALUE if num_events is zero or event_list is NULL.
        if num_events == 0 || event_list.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let mut events: Vec<Arc<Event>> = Vec::with_capacity(num_events as usize);
        for i in 0..num_events as usize {
            // CL_INVALID_EVENT if event objects specified in event_list are
            // not valid event objects.
            // SAFETY: the application gives num_events handles.
            let e = unsafe { arc_from_handle::<Event>(event_list.add(i).read_unaligned())? };
            // CL_INVALID_CONTEXT if events specified in event_list do not
            // belong to the same context.
            if let Some(first) = events.first() {
                if !Arc::ptr_eq(&first.context, &e.context) {
                    return Err(CL_INVALID_CONTEXT);
                }
            }
            events.push(e);
        }
        // Submit every queue first so that the waits overlap.
        for e in &events {
            if e.timeline_value().is_none() {
                if let Some(q) = e.queue() {
                    q.flush();
                }
            }
        }
        let mut failed = false;
        for e in &events {
            failed |= e.wait() < 0;
        }
        // CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST if the execution
        // status of any of the events in event_list is a negative integer
        // value.
        if failed {
            return Err(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn clGetEventInfo(
    event: *mut c_void,
    param_name: cl_uint,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    api_call(|| {
        // CL_INVALID_EVENT if event is a not a valid event object.
        // SAFETY: a handle the application got from this library.
        let e = unsafe { from_handle::<Event>(event)? };
        let (size, ptr, ret) = (param_value_size, param_value, param_value_size_ret);
        // SAFETY: the application's output pointers.
        unsafe {
            match param_name {
                CL_EVENT_COMMAND_QUEUE => write_info(&e.queue_handle(), size, ptr, ret),
                CL_EVENT_CONTEXT => write_info(&handle_of(&*e.context), size, ptr, ret),
                CL_EVENT_COMMAND_TYPE => write_info(&e.command_type, size, ptr, ret),
                CL_EVENT_COMMAND_EXECUTION_STATUS => write_info(&e.status(), size, ptr, ret),
                CL_EVENT_REFERENCE_COUNT => write_info(&reference_count(e), size, ptr, ret),
                // CL_INVALID_VALUE if param_name is not valid.
                _ => Err(CL_INVALID_VALUE),
            }
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn clCreateUserEvent(
    context: *mut c_void,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    // SAFETY: errcode_ret is the application's.
    unsafe {
        api_create(errcode_ret, || {
            // CL_INVALID_CONTEXT if context is not a valid context.
            let ctx = arc_from_handle::<Context>(context)?;
            Ok(into_handle(Event::new_user(ctx)))
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn clRetainEvent(event: *mut c_void) -> cl_int {
    // SAFETY: a handle the application got from this library.
    api_call(|| unsafe { retain::<Event>(event) })
}

#[no_mangle]
pub unsafe extern "C" fn clReleaseEvent(event: *mut c_void) -> cl_int {
    // SAFETY: a handle the application got from this library.
    api_call(|| unsafe { release::<Event>(event) })
}

#[no_mangle]
pub unsafe extern "C" fn clSetUserEventStatus(
    event: *mut c_void,
    execution_status: cl_int,
) -> cl_int {
    api_call(|| {
        // CL_INVALID_EVENT if event is not a valid user event object.
        // SAFETY: a handle the application got from this library.
        let e = unsafe { arc_from_handle::<Event>(event)? };
        if !e.is_user() {
            return Err(CL_INVALID_EVENT);
        }
        // CL_INVALID_VALUE if the execution_status is not CL_COMPLETE or a
        // negative integer value.
        if execution_status > CL_COMPLETE as cl_int {
            return Err(CL_INVALID_VALUE);
        }
        // CL_INVALID_OPERATION if the execution_status for event has already
        // been changed by a previous call to clSetUserEventStatus.
        if !e.complete(execution_status) {
            return Err(CL_INVALID_OPERATION);
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn clSetEventCallback(
    event: *mut c_void,
    command_exec_callback_type: cl_int,
    pfn_notify: Option<EventCallback>,
    user_data: *mut c_void,
) -> cl_int {
    api_call(|| {
        // CL_INVALID_EVENT if event is not a valid event object.
        // SAFETY: a handle the application got from this library.
        let e = unsafe { arc_from_handle::<Event>(event)? };
        // CL_INVALID_VALUE if pfn_event_notify is NULL or if
        // command_exec_callback_type is not CL_SUBMITTED, CL_RUNNING, or
        // CL_COMPLETE.
        let callback = pfn_notify.ok_or(CL_INVALID_VALUE)?;
        let valid = [CL_SUBMITTED, CL_RUNNING, CL_COMPLETE].map(|s| s as cl_int);
        if !valid.contains(&command_exec_callback_type) {
            return Err(CL_INVALID_VALUE);
        }
        e.add_callback(command_exec_callback_type, callback, user_data);
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn clGetEventProfilingInfo(
    event: *mut c_void,
    param_name: cl_uint,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    api_call(|| {
        // CL_INVALID_EVENT if event is a not a valid event object.
        // SAFETY: a handle the application got from this library.
        let e = unsafe { from_handle::<Event>(event)? };
        // CL_PROFILING_INFO_NOT_AVAILABLE if the CL_QUEUE_PROFILING_ENABLE
        // flag is not set for the command-queue, if the execution status of
        // the command identified by event is not CL_COMPLETE or if event is
        // a user event object.
        let profiled = e.profiled();
        if !profiled || e.status() != CL_COMPLETE as cl_int {
            return Err(CL_PROFILING_INFO_NOT_AVAILABLE);
        }
        let [queued, submit, start, end] = e.profiling_times();
        let value: u64 = match param_name {
            CL_PROFILING_COMMAND_QUEUED => queued,
            CL_PROFILING_COMMAND_SUBMIT => submit,
            CL_PROFILING_COMMAND_START => start,
            CL_PROFILING_COMMAND_END | CL_PROFILING_COMMAND_COMPLETE => end,
            // CL_INVALID_VALUE if param_name is not valid.
            _ => return Err(CL_INVALID_VALUE),
        };
        // SAFETY: the application's output pointers.
        unsafe { write_info(&value, param_value_size, param_value, param_value_size_ret) }
    })
}
