//! Sampler entry points: creation, reference counts and `clGetSamplerInfo`.

use crate::entry::{api_call, api_create};
use crate::info::write_info;
use ferrocl_runtime::api::{
    arc_from_handle, from_handle, handle_of, into_handle, reference_count, release, retain,
};
use ferrocl_runtime::cl::*;
use ferrocl_runtime::context::Context;
use ferrocl_runtime::sampler::{addressing_mode_valid, filter_mode_valid, Sampler};
use std::ffi::c_void;

#[no_mangle]
pub unsafe extern "C" fn clCreateSampler(
    context: *mut c_void,
    normalized_coords: cl_uint,
    addressing_mode: cl_uint,
    filter_mode: cl_uint,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    // SAFETY: the application's handle and errcode_ret.
    unsafe {
        api_create(errcode_ret, || {
            // CL_INVALID_CONTEXT if context is not a valid context.
            let ctx = arc_from_handle::<Context>(context)?;
            // CL_INVALID_VALUE if addressing_mode, filter_mode,
            // normalized_coords or a combination of these arguments are not
            // valid.
            if normalized_coords > CL_TRUE
                || !addressing_mode_valid(addressing_mode)
                || !filter_mode_valid(filter_mode)
            {
                return Err(CL_INVALID_VALUE);
            }
            Ok(into_handle(Sampler::new(
                ctx,
                normalized_coords == CL_TRUE,
                addressing_mode,
                filter_mode,
                Vec::new(),
            )))
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn clCreateSamplerWithProperties(
    context: *mut c_void,
    sampler_properties: *const cl_properties,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    // SAFETY: the application's handle, property list and errcode_ret.
    unsafe {
        api_create(errcode_ret, || {
            // CL_INVALID_CONTEXT if context is not a valid context.
            let ctx = arc_from_handle::<Context>(context)?;
            // Defaults: normalized coordinates, CL_ADDRESS_CLAMP,
            // CL_FILTER_NEAREST.
            let (mut normalized, mut addressing, mut filter) =
                (true, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST);
            // CL_INVALID_VALUE if the property name in sampler_properties is
            // not a supported property name, if the value specified for a
            // supported property name is not valid, or if the same property
            // name is specified more than once.
            let mut list: Vec<u64> = Vec::new();
            let mut p = sampler_properties;
            while !p.is_null() && p.read_unaligned() != 0 {
                let name = p.read_unaligned();
                let value = p.add(1).read_unaligned();
                if list.chunks(2).any(|pair| pair[0] == name) {
                    return Err(CL_INVALID_VALUE);
                }
                match u32::try_from(name) {
                    Ok(CL_SAMPLER_NORMALIZED_COORDS) if value <= u64::from(CL_TRUE) => {
                        normalized = value == u64::from(CL_TRUE);
                    }
                    Ok(CL_SAMPLER_ADDRESSING_MODE)
                        if u32::try_from(value).is_ok_and(addressing_mode_valid) =>
                    {
                        addressing = value as u32;
                    }
                    Ok(CL_SAMPLER_FILTER_MODE)
                        if u32::try_from(value).is_ok_and(filter_mode_valid) =>
                    {
                        filter = value as u32;
                    }
                    _ => return Err(CL_INVALID_VALUE),
                }
                list.push(name);
                list.push(value);
                p = p.add(2);
            }
            if !sampler_properties.is_null() {
                list.push(0);
            }
            Ok(into_handle(Sampler::new(
                ctx, normalized, addressing, filter, list,
            )))
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn clRetainSampler(sampler: *mut c_void) -> cl_int {
    // SAFETY: a handle the application got from this library.
    api_call(|| unsafe { retain::<Sampler>(sampler) })
}

#[no_mangle]
pub unsafe extern "C" fn clReleaseSampler(sampler: *mut c_void) -> cl_int {
    // SAFETY: a handle the application got from this library.
    api_call(|| unsafe { release::<Sampler>(sampler) })
}

#[no_mangle]
pub unsafe extern "C" fn clGetSamplerInfo(
    sampler: *mut c_void,
    param_name: cl_uint,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    api_call(|| {
        // CL_INVALID_SAMPLER if sampler is a not a valid sampler object.
        // SAFETY: a handle the application got from this library.
        let s = unsafe { from_handle::<Sampler>(sampler)? };
        let (size, ptr, ret) = (param_value_size, param_value, param_value_size_ret);
        // SAFETY: the application's output pointers.
        unsafe {
            match param_name {
                CL_SAMPLER_REFERENCE_COUNT => write_info(&reference_count(s), size, ptr, ret),
                CL_SAMPLER_CONTEXT => write_info(&handle_of(&*s.context), size, ptr, ret),
                CL_SAMPLER_NORMALIZED_COORDS => write_info(&s.normalized_coords, size, ptr, ret),
                CL_SAMPLER_ADDRESSING_MODE => write_info(&s.addressing_mode, size, ptr, ret),
                CL_SAMPLER_FILTER_MODE => write_info(&s.filter_mode, size, ptr, ret),
                CL_SAMPLER_PROPERTIES => write_info(&s.properties, size, ptr, ret),
                // CL_INVALID_VALUE if param_name is not valid.
                _ => Err(CL_INVALID_VALUE),
            }
        }
    })
}
