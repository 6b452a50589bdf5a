//! Program entry points: creation from source or ferrocl binaries, build,
//! compile and link, and the info queries.

use crate::entry::{api_call, api_create};
use crate::info::{write_info, Bytes};

use ferrocl_runtime::api::{
    arc_from_handle, from_handle, handle_of, into_handle, reference_count, release, retain,
};
use ferrocl_runtime::cl::*;
use ferrocl_runtime::context::{Context, ObjectCallback};
use ferrocl_runtime::device::Device;
use ferrocl_runtime::program::{parse_binary, Header, Program, ProgramSource};
use std::ffi::{c_char, c_void, CStr};
use std::sync::Arc;

/// `void (CL_CALLBACK *pfn_notify)(cl_program, void *)`.
type ProgramNotify = ObjectCallback;

/// Reads a NUL-terminated string; NULL is the empty string.
///
/// # Safety
/// `s` is NULL or NUL-terminated.
unsafe fn c_str(s: *const c_char) -> String {
    if s.is_null() {
        return String::new();
    }
    // SAFETY: per the contract.
    unsafe { CStr::from_ptr(s) }.to_string_lossy().into_owned()
}

/// The devices of a `device_list` argument, each in `allowed`; all of
/// `allowed` when the list is NULL.
///
/// # Safety
/// `list` is NULL or points to `num` handles.
unsafe fn device_list(
    num: cl_uint,
    list: *const *mut c_void,
    allowed: &[Arc<Device>],
) -> Result<Vec<usize>, cl_int> {
    // CL_INVALID_VALUE if device_list is NULL and num_devices is greater
    // than zero, or if device_list is not NULL and num_devices is zero.
    if list.is_null() != (num == 0) {
        return Err(CL_INVALID_VALUE);
    }
    if list.is_null() {
        return Ok((0..allowed.len()).collect());
    }
    let mut out = Vec::new();
    for i in 0..num as usize {
        // CL_INVALID_DEVICE if any device in device_list is not in the list
        // of devices associated with program.
        // SAFETY: per the contract.
        let d = unsafe { from_handle::<Device>(list.add(i).read_unaligned())? };
        let index = allowed
            .iter()
            .position(|a| std::ptr::eq(&**a, d))
            .ok_or(CL_INVALID_DEVICE)?;
        if !out.contains(&index) {
            out.push(index);
        }
    }
    Ok(out)
}

#[no_mangle]
pub unsafe extern "C" fn clCreateProgramWithSource(
    context: *mut c_void,
    count: cl_uint,
    strings: *const *const c_char,
    lengths: *const usize,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    // SAFETY: the application's pointers, as the spec defines them.
    unsafe {
        api_create(errcode_ret, || {
            // CL_INVALID_CONTEXT if context is not a valid context.
            let ctx = arc_from_handle::<Context>(context)?;
            // CL_INVALID_VALUE if count is zero or if strings or any entry in
            // strings is NULL.
            if count == 0 || strings.is_null() {
                return Err(CL_INVALID_VALUE);
            }
            let mut source = Vec::new();
            for i in 0..count as usize {
                let s = strings.add(i).read_unaligned();
                if s.is_null() {
                    return Err(CL_INVALID_VALUE);
                }
                let len = if lengths.is_null() {
                    0
                } else {
                    lengths.add(i).read_unaligned()
                };
                if len == 0 {
                    source.extend_from_slice(CStr::from_ptr(s).to_bytes());
                } else {
                    source.extend_from_slice(std::slice::from_raw_parts(s as *const u8, len));
                }
            }
            let source = String::from_utf8_lossy(&source).into_owned();
            Ok(into_handle(Program::with_source(ctx, source)))
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn clCreateProgramWithBinary(
    context: *mut c_void,
    num_devices: cl_uint,
    device_list: *const *mut c_void,
    lengths: *const usize,
    binaries: *const *const u8,
    binary_status: *mut cl_int,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    // SAFETY: the application's pointers, as the spec defines them.
    unsafe {
        api_create(errcode_ret, || {
            // CL_INVALID_CONTEXT if context is not a valid context.
            let ctx = arc_from_handle::<Context>(context)?;
            // CL_INVALID_VALUE if device_list is NULL or num_devices is zero.
            if device_list.is_null() || num_devices == 0 {
                return Err(CL_INVALID_VALUE);
            }
            let mut devices = Vec::new();
            for i in 0..num_devices as usize {
                // CL_INVALID_DEVICE if any device in device_list is not in
                // the list of devices associated with context.
                let d = arc_from_handle::<Device>(device_list.add(i).read_unaligned())?;
                if !ctx.has_device(&d) {
                    return Err(CL_INVALID_DEVICE);
                }
                devices.push(d);
            }
            // CL_INVALID_VALUE if lengths or binaries is NULL or if any entry
            // in lengths[i] is zero or binaries[i] is NULL.
            if lengths.is_null() || binaries.is_null() {
                return Err(CL_INVALID_VALUE);
            }
            let mut parsed = Vec::new();
            let mut invalid = false;
            for i in 0..num_devices as usize {
                let len = lengths.add(i).read_unaligned();
                let bin = binaries.add(i).read_unaligned();
                if len == 0 || bin.is_null() {
                    return Err(CL_INVALID_VALUE);
                }
                let status = match parse_binary(std::slice::from_raw_parts(bin, len)) {
                    Some(p) => {
                        parsed.push(p);
                        CL_SUCCESS
                    }
                    None => {
                        invalid = true;
                        CL_INVALID_BINARY
                    }
                };
                if !binary_status.is_null() {
                    binary_status.add(i).write_unaligned(status);
                }
            }
            // CL_INVALID_BINARY if an invalid program binary was encountered
            // for any device.
            if invalid {
                return Err(CL_INVALID_BINARY);
            }
            Ok(into_handle(Program::with_binaries(ctx, devices, parsed)))
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn clCreateProgramWithBuiltInKernels(
    context: *mut c_void,
    num_devices: cl_uint,
    device_list: *const *mut c_void,
    kernel_names: *const c_char,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    // SAFETY: the application's pointers, as the spec defines them.
    unsafe {
        api_create(errcode_ret, || {
            // CL_INVALID_CONTEXT if context is not a valid context.
            let ctx = from_handle::<Context>(context)?;
            // CL_INVALID_VALUE if device_list is NULL or num_devices is zero.
            if device_list.is_null() || num_devices == 0 {
                return Err(CL_INVALID_VALUE);
            }
            // CL_INVALID_VALUE if kernel_names is NULL.
            if kernel_names.is_null() {
                return Err(CL_INVALID_VALUE);
            }
            // CL_INVALID_DEVICE if devices listed in device_list are not in
            // the list of devices associated with context.
            for i in 0..num_devices as usize {
                let d = from_handle::<Device>(device_list.add(i).read_unaligned())?;
                if !ctx.has_device(d) {
                    return Err(CL_INVALID_DEVICE);
                }
            }
            // CL_INVALID_VALUE if kernel_names contains a kernel name that is
            // not supported by any of the devices in device_list (ferrocl
            // devices have no built-in kernels).
            Err(CL_INVALID_VALUE)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn clCreateProgramWithIL(
    context: *mut c_void,
    il: *const c_void,
    length: usize,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    // SAFETY: the application's pointers, as the spec defines them.
    unsafe {
        api_create(errcode_ret, || {
            // CL_INVALID_CONTEXT if context is not a valid context.
            from_handle::<Context>(context)?;
            // CL_INVALID_VALUE if il is NULL or if length is zero.
            if il.is_null() || length == 0 {
                return Err(CL_INVALID_VALUE);
            }
            // CL_INVALID_OPERATION if no devices in context support
            // intermediate language programs (ferrocl takes OpenCL C only).
            Err(CL_INVALID_OPERATION)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn clRetainProgram(program: *mut c_void) -> cl_int {
    // SAFETY: a handle the application got from this library.
    api_call(|| unsafe { retain::<Program>(program) })
}

#[no_mangle]
pub unsafe extern "C" fn clReleaseProgram(program: *mut c_void) -> cl_int {
    // SAFETY: a handle the application got from this library.
    api_call(|| unsafe { release::<Program>(program) })
}

#[no_mangle]
pub unsafe extern "C" fn clBuildProgram(
    program: *mut c_void,
    num_devices: cl_uint,
    device_list: *const *mut c_void,
    options: *const c_char,
    pfn_notify: Option<ProgramNotify>,
    user_data: *mut c_void,
) -> cl_int {
    // SAFETY: the application's pointers, as the spec defines them.
    api_call(|| unsafe {
        // CL_INVALID_PROGRAM if program is not a valid program object.
        let p = arc_from_handle::<Program>(program)?;
        let indices = self::device_list(num_devices, device_list, &p.devices)?;
        // CL_INVALID_VALUE if pfn_notify is NULL but user_data is not NULL.
        if pfn_notify.is_none() && !user_data.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        // CL_INVALID_OPERATION if there are kernel objects attached to
        // program.
        if p.kernels_alive() > 0 {
            return Err(CL_INVALID_OPERATION);
        }
        let options = c_str(options);
        // The build is synchronous: the callback runs once it is done.
        let result = p.build(&indices, &options);
        // A build refused because another is in progress built nothing, so
        // it has nothing to notify.
        if let Some(notify) = pfn_notify.filter(|_| result != Err(CL_INVALID_OPERATION)) {
            notify(handle_of(&*p), user_data);
        }
        result
    })
}

#[no_mangle]
pub unsafe extern "C" fn clCompileProgram(
    program: *mut c_void,
    num_devices: cl_uint,
    device_list: *const *mut c_void,
    options: *const c_char,
    num_input_headers: cl_uint,
    input_headers: *const *mut c_void,
    header_include_names: *const *const c_char,
    pfn_notify: Option<ProgramNotify>,
    user_data: *mut c_void,
) -> cl_int {
    // SAFETY: the application's pointers, as the spec defines them.
    api_call(|| unsafe {
        // CL_INVALID_PROGRAM if program is not a valid program object.
        let p = arc_from_handle::<Program>(program)?;
        let mut headers = Vec::new();
        // CL_INVALID_VALUE if num_input_headers is zero and
        // header_include_names or input_headers are not NULL or if
        // num_input_headers is not zero and header_include_names or
        // input_headers are NULL.
        if (num_input_headers == 0) != (input_headers.is_null() && header_include_names.is_null())
            || (num_input_headers != 0
                && (input_headers.is_null() || header_include_names.is_null()))
        {
            return Err(CL_INVALID_VALUE);
        }
        for i in 0..num_input_headers as usize {
            let h = from_handle::<Program>(input_headers.add(i).read_unaligned())?;
            // CL_INVALID_CONTEXT if the context associated with program and
            // programs in input_headers are not the same.
            if !Arc::ptr_eq(&h.context, &p.context) {
                return Err(CL_INVALID_CONTEXT);
            }
            headers.push(Header {
                name: c_str(header_include_names.add(i).read_unaligned()),
                source: h.source(),
            });
        }
        let indices = self::device_list(num_devices, device_list, &p.devices)?;
        // CL_INVALID_VALUE if pfn_notify is NULL but user_data is not NULL.
        if pfn_notify.is_none() && !user_data.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        // CL_INVALID_OPERATION if there are kernel objects attached to
        // program.
        if p.kernels_alive() > 0 {
            return Err(CL_INVALID_OPERATION);
        }
        // CL_INVALID_OPERATION if program has no source or IL available.
        if p.origin != ProgramSource::Source {
            return Err(CL_INVALID_OPERATION);
        }
        let result = p.compile(&indices, &c_str(options), headers);
        if let Some(notify) = pfn_notify {
            notify(handle_of(&*p), user_data);
        }
        result
    })
}

#[no_mangle]
pub unsafe extern "C" fn clLinkProgram(
    context: *mut c_void,
    num_devices: cl_uint,
    device_list: *const *mut c_void,
    options: *const c_char,
    num_input_programs: cl_uint,
    input_programs: *const *mut c_void,
    pfn_notify: Option<ProgramNotify>,
    user_data: *mut c_void,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    let mut link_error = CL_SUCCESS;
    // SAFETY: the application's pointers, as the spec defines them.
    let handle = unsafe {
        api_create(errcode_ret, || {
            // CL_INVALID_CONTEXT if context is not a valid context.
            let ctx = arc_from_handle::<Context>(context)?;
            let indices = self::device_list(num_devices, device_list, &ctx.devices)?;
            // CL_INVALID_VALUE if num_input_programs is zero or
            // input_programs is NULL.
            if num_input_programs == 0 || input_programs.is_null() {
                return Err(CL_INVALID_VALUE);
            }
            let mut inputs = Vec::new();
            for i in 0..num_input_programs as usize {
                // CL_INVALID_PROGRAM if programs specified in input_programs
                // are not valid program objects.
                let p = arc_from_handle::<Program>(input_programs.add(i).read_unaligned())?;
                // CL_INVALID_CONTEXT if the context associated with programs
                // in input_programs is not the same as context.
                if !Arc::ptr_eq(&p.context, &ctx) {
                    return Err(CL_INVALID_CONTEXT);
                }
                inputs.push(p);
            }
            // CL_INVALID_VALUE if pfn_notify is NULL but user_data is not
            // NULL.
            if pfn_notify.is_none() && !user_data.is_null() {
                return Err(CL_INVALID_VALUE);
            }
            // CL_INVALID_OPERATION if the rules for devices containing
            // compiled binaries or libraries are not followed: every input
            // must be compiled (or a library) for each device.
            for p in &inputs {
                for &i in &indices {
                    let index = p
                        .device_index(&ctx.devices[i])
                        .ok_or(CL_INVALID_OPERATION)?;
                    let t = p.build_of(index).binary_type;
                    if t != CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT
                        && t != CL_PROGRAM_BINARY_TYPE_LIBRARY
                    {
                        return Err(CL_INVALID_OPERATION);
                    }
                }
            }
            let devices = indices.iter().map(|&i| ctx.devices[i].clone()).collect();
            let (program, result) = Program::link(ctx, devices, &inputs, &c_str(options));
            if let Some(notify) = pfn_notify {
                notify(handle_of(&*program), user_data);
            }
            if let Err(code) = result {
                link_error = code;
            }
            Ok(into_handle(program))
        })
    };
    // A failed link still returns the program, so that its build log can be
    // read; errcode_ret carries CL_LINK_PROGRAM_FAILURE.
    if link_error != CL_SUCCESS && !errcode_ret.is_null() {
        // SAFETY: the application's pointer.
        unsafe { errcode_ret.write_unaligned(link_error) };
    }
    handle
}

#[no_mangle]
pub unsafe extern "C" fn clUnloadCompiler() -> cl_int {
    // A hint; the compiler holds no global state to release.
    CL_SUCCESS
}

#[no_mangle]
pub unsafe extern "C" fn clUnloadPlatformCompiler(platform: *mut c_void) -> cl_int {
    api_call(|| {
        // CL_INVALID_PLATFORM if platform is not a valid platform.
        if platform.is_null() {
            return Err(CL_INVALID_PLATFORM);
        }
        // SAFETY: a handle the application got from this library.
        unsafe { crate::platform::platform_from_handle(platform)? };
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn clGetProgramInfo(
    program: *mut c_void,
    param_name: cl_uint,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    api_call(|| {
        // CL_INVALID_PROGRAM if program is not a valid program object.
        // SAFETY: a handle the application got from this library.
        let p = unsafe { from_handle::<Program>(program)? };
        let (size, ptr, ret) = (param_value_size, param_value, param_value_size_ret);
        // CL_INVALID_PROGRAM_EXECUTABLE if param_name is
        // CL_PROGRAM_NUM_KERNELS or CL_PROGRAM_KERNEL_NAMES and a successful
        // program executable has not been built for at least one device.
        let executable = || p.any_executable().ok_or(CL_INVALID_PROGRAM_EXECUTABLE);
        // SAFETY: the application's output pointers.
        unsafe {
            match param_name {
                CL_PROGRAM_REFERENCE_COUNT => write_info(&reference_count(p), size, ptr, ret),
                CL_PROGRAM_CONTEXT => write_info(&handle_of(&*p.context), size, ptr, ret),
                CL_PROGRAM_NUM_DEVICES => write_info(&(p.devices.len() as cl_uint), size, ptr, ret),
                CL_PROGRAM_DEVICES => {
                    let handles: Vec<*mut c_void> =
                        p.devices.iter().map(|d| handle_of(&**d)).collect();
                    write_info(&handles, size, ptr, ret)
                }
                CL_PROGRAM_SOURCE => match p.origin {
                    ProgramSource::Source => write_info(&p.source(), size, ptr, ret),
                    ProgramSource::Binary => write_info("", size, ptr, ret),
                },
                CL_PROGRAM_IL => write_info(&Bytes(&[]), size, ptr, ret),
                CL_PROGRAM_BINARY_SIZES => {
                    let sizes: Vec<usize> =
                        (0..p.devices.len()).map(|i| p.binary(i).len()).collect();
                    write_info(&sizes, size, ptr, ret)
                }
                CL_PROGRAM_BINARIES => {
                    // An array of pointers the application allocated, one per
                    // device; a NULL entry skips that device.
                    let n = p.devices.len();
                    let needed = n * std::mem::size_of::<*mut u8>();
                    if !ptr.is_null() {
                        if size < needed {
                            return Err(CL_INVALID_VALUE);
                        }
                        let slots = ptr as *const *mut u8;
                        for i in 0..n {
                            let dst = slots.add(i).read_unaligned();
                            if !dst.is_null() {
                                let bin = p.binary(i);
                                std::ptr::copy_nonoverlapping(bin.as_ptr(), dst, bin.len());
                            }
                        }
                    }
                    if !ret.is_null() {
                        ret.write_unaligned(needed);
                    }
                    Ok(())
                }
                CL_PROGRAM_NUM_KERNELS => write_info(&executable()?.kernels.len(), size, ptr, ret),
                CL_PROGRAM_KERNEL_NAMES => {
                    let exe = executable()?;
                    let names: Vec<&str> = exe.kernels.iter().map(|k| k.name.as_str()).collect();
                    write_info(&names.join(";"), size, ptr, ret)
                }
                CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT | CL_PROGRAM_SCOPE_GLOBAL_DTORS_PRESENT => {
                    write_info(&false, size, ptr, ret)
                }
                // CL_INVALID_VALUE if param_name is not valid.
                _ => Err(CL_INVALID_VALUE),
            }
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn clGetProgramBuildInfo(
    program: *mut c_void,
    device: *mut c_void,
    param_name: cl_uint,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    api_call(|| {
        // CL_INVALID_PROGRAM if program is a not a valid program object.
        // SAFETY: handles the application got from this library.
        let p = unsafe { from_handle::<Program>(program)? };
        // CL_INVALID_DEVICE if device is not in the list of devices
        // associated with program.
        // SAFETY: as above.
        let d = unsafe { from_handle::<Device>(device)? };
        let index = p.device_index(d).ok_or(CL_INVALID_DEVICE)?;
        let b = p.build_of(index);
        let (size, ptr, ret) = (param_value_size, param_value, param_value_size_ret);
        // SAFETY: the application's output pointers.
        unsafe {
            match param_name {
                CL_PROGRAM_BUILD_STATUS => write_info(&b.status, size, ptr, ret),
                CL_PROGRAM_BUILD_OPTIONS => write_info(&b.options, size, ptr, ret),
                CL_PROGRAM_BUILD_LOG => write_info(&b.log, size, ptr, ret),
                CL_PROGRAM_BINARY_TYPE => write_info(&b.binary_type, size, ptr, ret),
                // The bytes of the program-scope __global variables.
                CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE => {
                    let total = b.compiled.as_ref().map_or(0, |c| c.global_variable_size);
                    write_info(&total, size, ptr, ret)
                }
                // CL_INVALID_VALUE if param_name is not valid.
                _ => Err(CL_INVALID_VALUE),
            }
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn clSetProgramReleaseCallback(
    program: *mut c_void,
    pfn_notify: Option<ProgramNotify>,
    user_data: *mut c_void,
) -> cl_int {
    let _ = user_data;
    api_call(|| {
        // CL_INVALID_PROGRAM if program is not a valid program object.
        // SAFETY: a handle the application got from this library.
        unsafe { from_handle::<Program>(program)? };
        // CL_INVALID_VALUE if pfn_notify is NULL.
        pfn_notify.ok_or(CL_INVALID_VALUE)?;
        // CL_INVALID_OPERATION if no devices in the context associated with
        // program support destructors for program scope global variables.
        Err(CL_INVALID_OPERATION)
    })
}

#[no_mangle]
pub unsafe extern "C" fn clSetProgramSpecializationConstant(
    program: *mut c_void,
    spec_id: cl_uint,
    spec_size: usize,
    spec_value: *const c_void,
) -> cl_int {
    let _ = (spec_id, spec_size, spec_value);
    api_call(|| {
        // CL_INVALID_PROGRAM if program is not a valid program object.
        // SAFETY: a handle the application got from this library.
        unsafe { from_handle::<Program>(program)? };
        // CL_INVALID_OPERATION if no devices associated with program support
        // intermediate language programs (ferrocl takes OpenCL C only).
        Err(CL_INVALID_OPERATION)
    })
}
