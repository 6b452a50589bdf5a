//! Context entry points.

use crate::entry::{api_call, api_create};
use crate::info::write_info;
use ferrocl_runtime::api::{
    arc_from_handle, from_handle, handle_of, into_handle, reference_count, release, retain,
};
use ferrocl_runtime::cl::*;
use ferrocl_runtime::context::{Context, ContextNotify, ObjectCallback};
use ferrocl_runtime::device::Device;
use ferrocl_runtime::platform::Platform;
use std::ffi::c_void;
use std::sync::Arc;

/// Checks a context property list; returns it as given (with the
/// terminating 0), empty for NULL.
///
/// # Safety
/// `properties` is NULL or a 0-terminated list of (name, value) pairs.
unsafe fn context_properties(properties: *const isize) -> Result<Vec<isize>, cl_int> {
    let mut list = Vec::new();
    if properties.is_null() {
        return Ok(list);
    }
    let mut seen = Vec::new();
    let mut i = 0;
    loop {
        // SAFETY: the list is 0-terminated per the contract.
        let name = unsafe { properties.add(i).read_unaligned() };
        if name == 0 {
            break;
        }
        // SAFETY: every name is followed by its value.
        let value = unsafe { properties.add(i + 1).read_unaligned() };
        // CL_INVALID_PROPERTY if the same property name is specified more
        // than once.
        if seen.contains(&name) {
            return Err(CL_INVALID_PROPERTY);
        }
        seen.push(name);
        match name as cl_uint {
            CL_CONTEXT_PLATFORM => {
                // CL_INVALID_PLATFORM if platform value specified in
                // properties is not a valid platform.
                // SAFETY: the value is meant to be a platform handle.
                let platform = unsafe { from_handle::<Platform>(value as *const c_void) }
                    .map_err(|_| CL_INVALID_PLATFORM)?;
                if !std::ptr::eq(platform, &**crate::platform::platform()) {
                    return Err(CL_INVALID_PLATFORM);
                }
            }
            CL_CONTEXT_INTEROP_USER_SYNC => {
                // CL_INVALID_PROPERTY if ... the value specified for a
                // supported property name is not valid.
                if value != CL_TRUE as isize && value != CL_FALSE as isize {
                    return Err(CL_INVALID_PROPERTY);
                }
            }
            // CL_INVALID_PROPERTY if context property name in properties is
            // not a supported property name.
            _ => return Err(CL_INVALID_PROPERTY),
        }
        list.push(name);
        list.push(value);
        i += 2;
    }
    list.push(0);
    Ok(list)
}

#[no_mangle]
pub unsafe extern "C" fn clCreateContext(
    properties: *const isize,
    num_devices: cl_uint,
    devices: *const *mut c_void,
    pfn_notify: Option<ContextNotify>,
    user_data: *mut c_void,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    // SAFETY: the application's pointers, as the spec defines them.
    unsafe {
        api_create(errcode_ret, || {
            let props = context_properties(properties)?;
            // CL_INVALID_VALUE if devices is NULL.
            // CL_INVALID_VALUE if num_devices is equal to zero.
            if devices.is_null() || num_devices == 0 {
                return Err(CL_INVALID_VALUE);
            }
            // CL_INVALID_VALUE if pfn_notify is NULL but user_data is not
            // NULL.
            if pfn_notify.is_none() && !user_data.is_null() {
                return Err(CL_INVALID_VALUE);
            }
            let mut list: Vec<Arc<Device>> = Vec::new();
            for i in 0..num_devices as usize {
                // CL_INVALID_DEVICE if any device in devices is not a valid
                // device.
                let device = arc_from_handle::<Device>(devices.add(i).read_unaligned())?;
                // Duplicate devices are ignored.
                if !list.iter().any(|d| Arc::ptr_eq(d, &device)) {
                    list.push(device);
                }
            }
            let notify = pfn_notify.map(|f| (f, user_data as usize));
            Ok(into_handle(Context::new(list, props, notify)))
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn clCreateContextFromType(
    properties: *const isize,
    device_type: cl_bitfield,
    pfn_notify: Option<ContextNotify>,
    user_data: *mut c_void,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    // SAFETY: the application's pointers, as the spec defines them.
    unsafe {
        api_create(errcode_ret, || {
            let platform = crate::platform::platform();
            let props = context_properties(properties)?;
            // CL_INVALID_VALUE if pfn_notify is NULL but user_data is not
            // NULL.
            if pfn_notify.is_none() && !user_data.is_null() {
                return Err(CL_INVALID_VALUE);
            }
            // CL_INVALID_DEVICE_TYPE if device_type is not a valid value.
            let known = CL_DEVICE_TYPE_DEFAULT
                | CL_DEVICE_TYPE_CPU
                | CL_DEVICE_TYPE_GPU
                | CL_DEVICE_TYPE_ACCELERATOR
                | CL_DEVICE_TYPE_CUSTOM;
            if device_type != CL_DEVICE_TYPE_ALL && (device_type == 0 || device_type & !known != 0)
            {
                return Err(CL_INVALID_DEVICE_TYPE);
            }
            let list: Vec<Arc<Device>> = platform
                .devices()
                .iter()
                .filter(|d| {
                    device_type == CL_DEVICE_TYPE_ALL
                        || d.info().device_type & device_type != 0
                        || (device_type & CL_DEVICE_TYPE_DEFAULT != 0 && d.is_default())
                })
                .cloned()
                .collect();
            // CL_DEVICE_NOT_FOUND if no devices that match device_type and
            // property values specified in properties are currently
            // available.
            if list.is_empty() {
                return Err(CL_DEVICE_NOT_FOUND);
            }
            let notify = pfn_notify.map(|f| (f, user_data as usize));
            Ok(into_handle(Context::new(list, props, notify)))
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn clRetainContext(context: *mut c_void) -> cl_int {
    // SAFETY: a handle the application got from this library.
    api_call(|| unsafe { retain::<Context>(context) })
}

#[no_mangle]
pub unsafe extern "C" fn clReleaseContext(context: *mut c_void) -> cl_int {
    // SAFETY: a handle the application got from this library.
    api_call(|| unsafe { release::<Context>(context) })
}

#[no_mangle]
pub unsafe extern "C" fn clGetContextInfo(
    context: *mut c_void,
    param_name: cl_uint,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    api_call(|| {
        // CL_INVALID_CONTEXT if context is not a valid context.
        // SAFETY: a handle the application got from this library.
        let ctx = unsafe { from_handle::<Context>(context)? };
        let (size, ptr, ret) = (param_value_size, param_value, param_value_size_ret);
        // SAFETY: the application's output pointers.
        unsafe {
            match param_name {
                CL_CONTEXT_REFERENCE_COUNT => write_info(&reference_count(ctx), size, ptr, ret),
                CL_CONTEXT_NUM_DEVICES => {
                    write_info(&(ctx.devices.len() as cl_uint), size, ptr, ret)
                }
                CL_CONTEXT_DEVICES => {
                    let handles: Vec<*mut c_void> =
                        ctx.devices.iter().map(|d| handle_of(&**d)).collect();
                    write_info(&handles, size, ptr, ret)
                }
                CL_CONTEXT_PROPERTIES => write_info(&ctx.properties, size, ptr, ret),
                // CL_INVALID_VALUE if param_name is not one of the supported
                // values.
                _ => Err(CL_INVALID_VALUE),
            }
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn clSetContextDestructorCallback(
    context: *mut c_void,
    pfn_notify: Option<ObjectCallback>,
    user_data: *mut c_void,
) -> cl_int {
    api_call(|| {
        // CL_INVALID_CONTEXT if context is not a valid context.
        // SAFETY: a handle the application got from this library.
        let ctx = unsafe { from_handle::<Context>(context)? };
        // CL_INVALID_VALUE if pfn_notify is NULL.
        let callback = pfn_notify.ok_or(CL_INVALID_VALUE)?;
        ctx.add_destructor(callback, user_data);
        Ok(())
    })
}
