//! Command-queue entry points.

use crate::entry::{api_call, api_create};
use crate::info::write_info;
use ferrocl_runtime::api::{
    arc_from_handle, from_handle, handle_of, into_handle, reference_count, release, retain,
};
use ferrocl_runtime::cl::*;
use ferrocl_runtime::context::Context;
use ferrocl_runtime::device::Device;
use ferrocl_runtime::queue::Queue;
use std::ffi::c_void;

fn create_queue(
    context: *mut c_void,
    device: *mut c_void,
    properties: cl_bitfield,
    properties_array: Vec<u64>,
) -> Result<*mut c_void, cl_int> {
    // CL_INVALID_CONTEXT if context is not a valid context.
    // SAFETY: handles the application got from this library.
    let ctx = unsafe { arc_from_handle::<Context>(context)? };
    // CL_INVALID_DEVICE if device is not a valid device or is not
    // associated with context.
    // SAFETY: as above.
    let dev = unsafe { arc_from_handle::<Device>(device)? };
    if !ctx.has_device(&dev) {
        return Err(CL_INVALID_DEVICE);
    }
    // CL_INVALID_VALUE if values specified in properties are not valid.
    let known = CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE
        | CL_QUEUE_PROFILING_ENABLE
        | CL_QUEUE_ON_DEVICE
        | CL_QUEUE_ON_DEVICE_DEFAULT;
    if properties & !known != 0
        || (properties & CL_QUEUE_ON_DEVICE_DEFAULT != 0 && properties & CL_QUEUE_ON_DEVICE == 0)
    {
        return Err(CL_INVALID_VALUE);
    }
    // CL_INVALID_QUEUE_PROPERTIES if values specified in properties are
    // valid but are not supported by the device.
    let host_supported = dev.info().queue_properties
        & (CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE);
    if properties & !host_supported != 0 {
        return Err(CL_INVALID_QUEUE_PROPERTIES);
    }
    Ok(into_handle(Queue::new(
        ctx,
        dev,
        properties,
        properties_array,
    )?))
}

#[no_mangle]
pub unsafe extern "C" fn clCreateCommandQueue(
    context: *mut c_void,
    device: *mut c_void,
    properties: cl_bitfield,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    // SAFETY: errcode_ret is the application's.
    unsafe {
        api_create(errcode_ret, || {
            create_queue(context, device, properties, Vec::new())
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn clCreateCommandQueueWithProperties(
    context: *mut c_void,
    device: *mut c_void,
    properties: *const cl_properties,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    // SAFETY: errcode_ret is the application's.
    unsafe {
        api_create(errcode_ret, || {
            // CL_INVALID_CONTEXT if context is not a valid context.
            from_handle::<Context>(context)?;
            let mut bits = 0;
            let mut array = Vec::new();
            let mut has_size = false;
            if !properties.is_null() {
                let mut i = 0;
                loop {
                    // SAFETY: a 0-terminated list of (name, value) pairs.
                    let name = properties.add(i).read_unaligned();
                    if name == 0 {
                        break;
                    }
                    let value = properties.add(i + 1).read_unaligned();
                    match name as cl_uint {
                        CL_QUEUE_PROPERTIES => bits = value,
                        CL_QUEUE_SIZE => has_size = true,
                        // CL_INVALID_VALUE if values specified in properties
                        // are not valid.
                        _ => return Err(CL_INVALID_VALUE),
                    }
                    array.push(name);
                    array.push(value);
                    i += 2;
                }
                array.push(0);
            }
            // CL_QUEUE_SIZE is valid only for device queues.
            if has_size && bits & CL_QUEUE_ON_DEVICE == 0 {
                return Err(CL_INVALID_VALUE);
            }
            create_queue(context, device, bits, array)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn clRetainCommandQueue(command_queue: *mut c_void) -> cl_int {
    // SAFETY: a handle the application got from this library.
    api_call(|| unsafe { retain::<Queue>(command_queue) })
}

#[no_mangle]
pub unsafe extern "C" fn clReleaseCommandQueue(command_queue: *mut c_void) -> cl_int {
    api_call(|| {
        // SAFETY: a handle the application got from this library.
        let queue = unsafe { from_handle::<Queue>(command_queue)? };
        // clReleaseCommandQueue performs an implicit flush.
        queue.flush();
        // SAFETY: as above.
        unsafe { release::<Queue>(command_queue) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn clGetCommandQueueInfo(
    command_queue: *mut c_void,
    param_name: cl_uint,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    api_call(|| {
        // CL_INVALID_COMMAND_QUEUE if command_queue is not a valid
        // command-queue.
        // SAFETY: a handle the application got from this library.
        let q = unsafe { from_handle::<Queue>(command_queue)? };
        let (size, ptr, ret) = (param_value_size, param_value, param_value_size_ret);
        // SAFETY: the application's output pointers.
        unsafe {
            match param_name {
                CL_QUEUE_CONTEXT => write_info(&handle_of(&*q.context), size, ptr, ret),
                CL_QUEUE_DEVICE => write_info(&handle_of(&*q.device), size, ptr, ret),
                CL_QUEUE_REFERENCE_COUNT => write_info(&reference_count(q), size, ptr, ret),
                CL_QUEUE_PROPERTIES => write_info(&q.properties(), size, ptr, ret),
                CL_QUEUE_PROPERTIES_ARRAY => write_info(&q.properties_array, size, ptr, ret),
                // CL_INVALID_COMMAND_QUEUE ... when the query is
                // CL_QUEUE_SIZE and command_queue is not a device queue.
                CL_QUEUE_SIZE => Err(CL_INVALID_COMMAND_QUEUE),
                CL_QUEUE_DEVICE_DEFAULT => {
                    write_info(&std::ptr::null_mut::<c_void>(), size, ptr, ret)
                }
                // CL_INVALID_VALUE if param_name is not one of the supported
                // values.
                _ => Err(CL_INVALID_VALUE),
            }
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn clSetCommandQueueProperty(
    command_queue: *mut c_void,
    properties: cl_bitfield,
    enable: cl_bool,
    old_properties: *mut cl_bitfield,
) -> cl_int {
    api_call(|| {
        // CL_INVALID_COMMAND_QUEUE if command_queue is not a valid
        // command-queue.
        // SAFETY: a handle the application got from this library.
        let q = unsafe { from_handle::<Queue>(command_queue)? };
        // CL_INVALID_VALUE if values specified in properties are not valid
        // (the bits of the legacy command-queue properties table).
        let legacy = CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE;
        if properties & !legacy != 0 {
            return Err(CL_INVALID_VALUE);
        }
        // CL_INVALID_QUEUE_PROPERTIES if values specified in properties are
        // valid but are not supported by the device.
        if enable != 0 && properties & !q.device.info().queue_properties != 0 {
            return Err(CL_INVALID_QUEUE_PROPERTIES);
        }
        let old = q.set_properties(properties, enable != 0)?;
        if !old_properties.is_null() {
            // SAFETY: the application's output pointer.
            unsafe { old_properties.write_unaligned(old) };
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn clFlush(command_queue: *mut c_void) -> cl_int {
    api_call(|| {
        // CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host
        // command-queue.
        // SAFETY: a handle the application got from this library.
        let q = unsafe { from_handle::<Queue>(command_queue)? };
        q.flush();
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn clFinish(command_queue: *mut c_void) -> cl_int {
    api_call(|| {
        // CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host
        // command-queue.
        // SAFETY: a handle the application got from this library.
        let q = unsafe { from_handle::<Queue>(command_queue)? };
        q.finish()
    })
}
