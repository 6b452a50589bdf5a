//! Kernel entry points: creation, arguments, info queries.

use crate::entry::{api_call, api_create};
use crate::info::write_info;
use ferrocl_runtime::api::{
    arc_from_handle, from_handle, handle_of, into_handle, reference_count, release, retain,
};
use ferrocl_runtime::cl::*;
use ferrocl_runtime::device::Device;
use ferrocl_runtime::kernel::{
    AccessQualifier, AddressQualifier, ArgKind, ArgValue, Kernel, KernelArg,
};
use ferrocl_runtime::memory::Mem;
use ferrocl_runtime::program::Program;
use std::ffi::{c_char, c_void, CStr};
use std::sync::Arc;

#[no_mangle]
pub unsafe extern "C" fn clCreateKernel(
    program: *mut c_void,
    kernel_name: *const c_char,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    // SAFETY: the application's pointers, as the spec defines them.
    unsafe {
        api_create(errcode_ret, || {
            // CL_INVALID_PROGRAM if program is not a valid program object.
            let p = arc_from_handle::<Program>(program)?;
            // CL_INVALID_PROGRAM_EXECUTABLE if there is no successfully built
            // executable for program.
            if p.any_executable().is_none() {
                return Err(CL_INVALID_PROGRAM_EXECUTABLE);
            }
            // CL_INVALID_VALUE if kernel_name is NULL.
            if kernel_name.is_null() {
                return Err(CL_INVALID_VALUE);
            }
            // CL_INVALID_KERNEL_NAME if kernel_name is not found in program.
            let name = CStr::from_ptr(kernel_name)
                .to_str()
                .map_err(|_| CL_INVALID_KERNEL_NAME)?;
            Ok(into_handle(Kernel::new(&p, name)?))
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn clCreateKernelsInProgram(
    program: *mut c_void,
    num_kernels: cl_uint,
    kernels: *mut *mut c_void,
    num_kernels_ret: *mut cl_uint,
) -> cl_int {
    // SAFETY: the application's pointers, as the spec defines them.
    api_call(|| unsafe {
        // CL_INVALID_PROGRAM if program is not a valid program object.
        let p = arc_from_handle::<Program>(program)?;
        // CL_INVALID_PROGRAM_EXECUTABLE if there is no successfully built
        // executable for any device in program.
        let exe = p.any_executable().ok_or(CL_INVALID_PROGRAM_EXECUTABLE)?;
        let n = exe.kernels.len();
        // CL_INVALID_VALUE if kernels is not NULL and num_kernels is less
        // than the number of kernels in program.
        if !kernels.is_null() && (num_kernels as usize) < n {
            return Err(CL_INVALID_VALUE);
        }
        if !kernels.is_null() {
            let mut made = Vec::with_capacity(n);
            for k in &exe.kernels {
                made.push(Kernel::new(&p, &k.name)?);
            }
            for (i, k) in made.into_iter().enumerate() {
                kernels.add(i).write_unaligned(into_handle(k));
            }
        }
        if !num_kernels_ret.is_null() {
            num_kernels_ret.write_unaligned(n as cl_uint);
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn clCloneKernel(
    source_kernel: *mut c_void,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    // SAFETY: the application's pointers, as the spec defines them.
    unsafe {
        api_create(errcode_ret, || {
            // CL_INVALID_KERNEL if kernel is not a valid kernel object.
            let k = from_handle::<Kernel>(source_kernel)?;
            Ok(into_handle(k.clone_kernel()))
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn clRetainKernel(kernel: *mut c_void) -> cl_int {
    // SAFETY: a handle the application got from this library.
    api_call(|| unsafe { retain::<Kernel>(kernel) })
}

#[no_mangle]
pub unsafe extern "C" fn clReleaseKernel(kernel: *mut c_void) -> cl_int {
    // SAFETY: a handle the application got from this library.
    api_call(|| unsafe { release::<Kernel>(kernel) })
}

#[no_mangle]
pub unsafe extern "C" fn clSetKernelArg(
    kernel: *mut c_void,
    arg_index: cl_uint,
    arg_size: usize,
    arg_value: *const c_void,
) -> cl_int {
    // SAFETY: the application's pointers, as the spec defines them.
    api_call(|| unsafe {
        // CL_INVALID_KERNEL if kernel is not a valid kernel object.
        let k = from_handle::<Kernel>(kernel)?;
        // CL_INVALID_ARG_INDEX if arg_index is not a valid argument index.
        let arg = k
            .info
            .args
            .get(arg_index as usize)
            .ok_or(CL_INVALID_ARG_INDEX)?;
        let value = match arg.kind {
            ArgKind::LocalPointer => {
                // CL_INVALID_ARG_VALUE if the argument is declared with the
                // local qualifier and arg_value is not NULL.
                if !arg_value.is_null() {
                    return Err(CL_INVALID_ARG_VALUE);
                }
                // CL_INVALID_ARG_SIZE if the argument is declared with the
                // local qualifier and arg_size is zero.
                if arg_size == 0 {
                    return Err(CL_INVALID_ARG_SIZE);
                }
                ArgValue::Local(arg_size)
            }
            ArgKind::Buffer => {
                // CL_INVALID_ARG_SIZE if arg_size does not match the size of
                // the data type for an argument that is a memory object.
                if arg_size != std::mem::size_of::<*mut c_void>() {
                    return Err(CL_INVALID_ARG_SIZE);
                }
                // A NULL arg_value, or a NULL cl_mem, is a NULL pointer
                // argument.
                let handle = if arg_value.is_null() {
                    std::ptr::null_mut()
                } else {
                    (arg_value as *const *mut c_void).read_unaligned()
                };
                if handle.is_null() {
                    ArgValue::Buffer(None)
                } else {
                    // CL_INVALID_MEM_OBJECT for an argument declared to be a
                    // memory object when the specified arg_value is not a
                    // valid memory object (for a pointer: a buffer).
                    let m = arc_from_handle::<Mem>(handle)?;
                    if m.image.is_some() {
                        return Err(CL_INVALID_MEM_OBJECT);
                    }
                    ArgValue::Buffer(Some(Arc::downgrade(&m)))
                }
            }
            ArgKind::Value => {
                // CL_INVALID_ARG_VALUE if arg_value specified is not a valid
                // value.
                if arg_value.is_null() {
                    return Err(CL_INVALID_ARG_VALUE);
                }
                // CL_INVALID_ARG_SIZE if arg_size does not match the size of
                // the data type for an argument that is not a memory object.
                if arg_size != arg.size as usize {
                    return Err(CL_INVALID_ARG_SIZE);
                }
                let bytes = std::slice::from_raw_parts(arg_value as *const u8, arg_size);
                k.set_arg_bytes(arg_index as usize, bytes);
                return Ok(());
            }
            ArgKind::Image => {
                // CL_INVALID_ARG_SIZE if arg_size does not match the size of
                // the data type for an argument that is a memory object.
                if arg_size != std::mem::size_of::<*mut c_void>() {
                    return Err(CL_INVALID_ARG_SIZE);
                }
                // CL_INVALID_ARG_VALUE if arg_value specified is not a valid
                // value.
                if arg_value.is_null() {
                    return Err(CL_INVALID_ARG_VALUE);
                }
                // CL_INVALID_MEM_OBJECT for an argument declared to be a
                // memory object when the specified arg_value is not a valid
                // memory object (here: an image).
                let handle = (arg_value as *const *mut c_void).read_unaligned();
                let m = arc_from_handle::<Mem>(handle)?;
                if m.image.is_none() {
                    return Err(CL_INVALID_MEM_OBJECT);
                }
                // CL_INVALID_ARG_VALUE if the argument is an image declared
                // with the read_only qualifier and arg_value refers to an
                // image object created with CL_MEM_WRITE_ONLY, or declared
                // write_only and created with CL_MEM_READ_ONLY.
                let wrong_access = match arg.access_qualifier {
                    AccessQualifier::ReadOnly => m.flags & CL_MEM_WRITE_ONLY != 0,
                    AccessQualifier::WriteOnly => m.flags & CL_MEM_READ_ONLY != 0,
                    _ => false,
                };
                if wrong_access {
                    return Err(CL_INVALID_ARG_VALUE);
                }
                ArgValue::Image(Arc::downgrade(&m))
            }
            ArgKind::Sampler => {
                // CL_INVALID_ARG_SIZE if arg_size does not match the size of
                // the data type for an argument that is not a memory object
                // (a cl_sampler).
                if arg_size != std::mem::size_of::<*mut c_void>() {
                    return Err(CL_INVALID_ARG_SIZE);
                }
                // CL_INVALID_SAMPLER for an argument declared to be of type
                // sampler_t when the specified arg_value is not a valid
                // sampler object.
                if arg_value.is_null() {
                    return Err(CL_INVALID_SAMPLER);
                }
                let handle = (arg_value as *const *mut c_void).read_unaligned();
                let sampler = from_handle::<ferrocl_runtime::sampler::Sampler>(handle)?;
                // The kernel receives the sampler's CLK_* bits in an 8-byte
                // slot (docs/images.md).
                k.set_arg_bytes(arg_index as usize, &u64::from(sampler.bits()).to_ne_bytes());
                return Ok(());
            }
        };
        k.set_arg(arg_index as usize, value);
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn clGetKernelInfo(
    kernel: *mut c_void,
    param_name: cl_uint,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    api_call(|| {
        // CL_INVALID_KERNEL if kernel is a not a valid kernel object.
        // SAFETY: a handle the application got from this library.
        let k = unsafe { from_handle::<Kernel>(kernel)? };
        let (size, ptr, ret) = (param_value_size, param_value, param_value_size_ret);
        // SAFETY: the application's output pointers.
        unsafe {
            match param_name {
                CL_KERNEL_FUNCTION_NAME => write_info(&k.info.name, size, ptr, ret),
                CL_KERNEL_NUM_ARGS => write_info(&(k.info.args.len() as cl_uint), size, ptr, ret),
                CL_KERNEL_REFERENCE_COUNT => write_info(&reference_count(k), size, ptr, ret),
                CL_KERNEL_CONTEXT => write_info(&handle_of(&*k.program.context), size, ptr, ret),
                CL_KERNEL_PROGRAM => write_info(&handle_of(&*k.program), size, ptr, ret),
                CL_KERNEL_ATTRIBUTES => write_info(&k.info.attributes, size, ptr, ret),
                // CL_INVALID_VALUE if param_name is not valid.
                _ => Err(CL_INVALID_VALUE),
            }
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn clGetKernelArgInfo(
    kernel: *mut c_void,
    arg_index: cl_uint,
    param_name: cl_uint,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    api_call(|| {
        // CL_INVALID_KERNEL if kernel is a not a valid kernel object.
        // SAFETY: a handle the application got from this library.
        let k = unsafe { from_handle::<Kernel>(kernel)? };
        // CL_INVALID_ARG_INDEX if arg_index is not a valid argument index.
        let arg = k
            .info
            .args
            .get(arg_index as usize)
            .ok_or(CL_INVALID_ARG_INDEX)?;
        let (size, ptr, ret) = (param_value_size, param_value, param_value_size_ret);
        // SAFETY: the application's output pointers.
        unsafe {
            match param_name {
                CL_KERNEL_ARG_ADDRESS_QUALIFIER => {
                    let q = match arg.address_qualifier {
                        AddressQualifier::Global => CL_KERNEL_ARG_ADDRESS_GLOBAL,
                        AddressQualifier::Local => CL_KERNEL_ARG_ADDRESS_LOCAL,
                        AddressQualifier::Constant => CL_KERNEL_ARG_ADDRESS_CONSTANT,
                        AddressQualifier::Private => CL_KERNEL_ARG_ADDRESS_PRIVATE,
                    };
                    write_info(&q, size, ptr, ret)
                }
                CL_KERNEL_ARG_ACCESS_QUALIFIER => {
                    let q = match arg.access_qualifier {
                        AccessQualifier::ReadOnly => CL_KERNEL_ARG_ACCESS_READ_ONLY,
                        AccessQualifier::WriteOnly => CL_KERNEL_ARG_ACCESS_WRITE_ONLY,
                        AccessQualifier::ReadWrite => CL_KERNEL_ARG_ACCESS_READ_WRITE,
                        AccessQualifier::None => CL_KERNEL_ARG_ACCESS_NONE,
                    };
                    write_info(&q, size, ptr, ret)
                }
                CL_KERNEL_ARG_TYPE_NAME => write_info(&arg.type_name, size, ptr, ret),
                CL_KERNEL_ARG_TYPE_QUALIFIER => write_info(&type_qualifier(arg), size, ptr, ret),
                CL_KERNEL_ARG_NAME => write_info(&arg.name, size, ptr, ret),
                // CL_INVALID_VALUE if param_name is not valid.
                _ => Err(CL_INVALID_VALUE),
            }
        }
    })
}

/// `CL_KERNEL_ARG_TYPE_QUALIFIER`: const, restrict and volatile describe
/// what a pointer points to, so an argument passed by value reports none;
/// a `__constant` pointer is always const.
fn type_qualifier(arg: &KernelArg) -> cl_bitfield {
    let mut q = arg.type_qualifier as cl_bitfield;
    if matches!(arg.kind, ArgKind::Value | ArgKind::Sampler) {
        q &= CL_KERNEL_ARG_TYPE_PIPE;
    }
    if arg.address_qualifier == AddressQualifier::Constant {
        q |= CL_KERNEL_ARG_TYPE_CONST;
    }
    q
}

/// The device of a per-device kernel query: NULL is allowed when the
/// program has a single device.
///
/// # Safety
/// `device` is NULL or a handle from this library.
unsafe fn kernel_device(k: &Kernel, device: *mut c_void) -> Result<&Device, cl_int> {
    // CL_INVALID_DEVICE if device is not in the list of devices associated
    // with kernel or if device is NULL but there is more than one device
    // associated with kernel.
    if device.is_null() {
        return match k.program.devices.as_slice() {
            [only] => Ok(only),
            _ => Err(CL_INVALID_DEVICE),
        };
    }
    // SAFETY: per the contract.
    let d = unsafe { from_handle::<Device>(device)? };
    let index = k.program.device_index(d).ok_or(CL_INVALID_DEVICE)?;
    Ok(&k.program.devices[index])
}

#[no_mangle]
pub unsafe extern "C" fn clGetKernelWorkGroupInfo(
    kernel: *mut c_void,
    device: *mut c_void,
    param_name: cl_uint,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    api_call(|| {
        // CL_INVALID_KERNEL if kernel is a not a valid kernel object.
        // SAFETY: handles the application got from this library.
        let k = unsafe { from_handle::<Kernel>(kernel)? };
        // SAFETY: as above.
        let d = unsafe { kernel_device(k, device)? };
        let info = d.info();
        let (size, ptr, ret) = (param_value_size, param_value, param_value_size_ret);
        let reqd = k
            .info
            .reqd_work_group_size
            .map(|r| [r[0] as usize, r[1] as usize, r[2] as usize]);
        // SAFETY: the application's output pointers.
        unsafe {
            match param_name {
                CL_KERNEL_WORK_GROUP_SIZE => {
                    let max = reqd.map_or(info.max_work_group_size, |r| r.iter().product());
                    write_info(&max, size, ptr, ret)
                }
                CL_KERNEL_COMPILE_WORK_GROUP_SIZE => {
                    write_info(&reqd.unwrap_or([0; 3]), size, ptr, ret)
                }
                CL_KERNEL_LOCAL_MEM_SIZE => write_info(&k.local_mem_size(), size, ptr, ret),
                CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE => {
                    write_info(&info.preferred_work_group_size_multiple, size, ptr, ret)
                }
                CL_KERNEL_PRIVATE_MEM_SIZE => write_info(&k.info.private_mem_size, size, ptr, ret),
                // CL_INVALID_VALUE if param_name is
                // CL_KERNEL_GLOBAL_WORK_SIZE and device is not a custom device
                // and kernel is not a built-in kernel.
                // CL_INVALID_VALUE if param_name is not valid.
                _ => Err(CL_INVALID_VALUE),
            }
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn clGetKernelSubGroupInfo(
    kernel: *mut c_void,
    device: *mut c_void,
    param_name: cl_uint,
    input_value_size: usize,
    input_value: *const c_void,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    api_call(|| {
        // CL_INVALID_KERNEL if kernel is a not a valid kernel object.
        // SAFETY: handles the application got from this library.
        let k = unsafe { from_handle::<Kernel>(kernel)? };
        // SAFETY: as above.
        let d = unsafe { kernel_device(k, device)? };
        let info = d.info();
        // CL_INVALID_OPERATION if device does not support subgroups.
        if info.sub_group_size == 0 {
            return Err(CL_INVALID_OPERATION);
        }
        let sub_group = info.sub_group_size as usize;
        let max_work_group = k
            .info
            .reqd_work_group_size
            .map_or(info.max_work_group_size, |r| {
                r.iter().map(|&n| n as usize).product()
            });
        let (size, ptr, ret) = (param_value_size, param_value, param_value_size_ret);
        // The local work size given as input: one to three size_t values.
        let local_size = || -> Result<usize, cl_int> {
            // CL_INVALID_VALUE if param_name is
            // CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE or
            // CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE and the size in bytes
            // specified by input_value_size is not valid or if input_value
            // is NULL.
            let word = std::mem::size_of::<usize>();
            if input_value.is_null()
                || input_value_size == 0
                || !input_value_size.is_multiple_of(word)
                || input_value_size / word > 3
            {
                return Err(CL_INVALID_VALUE);
            }
            // SAFETY: the application passes input_value_size readable
            // bytes; size_t values need not be aligned for read_unaligned.
            let dims: Vec<usize> = (0..input_value_size / word)
                .map(|i| unsafe { (input_value as *const usize).add(i).read_unaligned() })
                .collect();
            Ok(dims.iter().product())
        };
        // The sub-group count given as input: one size_t.
        let sub_group_count = || -> Result<usize, cl_int> {
            // CL_INVALID_VALUE if param_name is
            // CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT and the size in bytes
            // specified by input_value_size is not valid or if input_value
            // is NULL.
            if input_value.is_null() || input_value_size != std::mem::size_of::<usize>() {
                return Err(CL_INVALID_VALUE);
            }
            // SAFETY: one size_t, checked above.
            Ok(unsafe { (input_value as *const usize).read_unaligned() })
        };
        // SAFETY: the application's output pointers.
        unsafe {
            match param_name {
                CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE => {
                    let n = local_size()?;
                    write_info(&sub_group.min(n), size, ptr, ret)
                }
                CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE => {
                    let n = local_size()?;
                    write_info(&n.div_ceil(sub_group), size, ptr, ret)
                }
                CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT => {
                    let count = sub_group_count()?;
                    let word = std::mem::size_of::<usize>();
                    // The answer has as many dimensions as param_value has
                    // room for.
                    let dims = (param_value_size / word).clamp(1, 3);
                    let mut local = vec![0usize; dims];
                    let wanted = count.checked_mul(sub_group);
                    if let Some(n) = wanted.filter(|&n| n > 0 && n <= max_work_group) {
                        local[0] = n;
                        for l in local.iter_mut().skip(1) {
                            *l = 1;
                        }
                    }
                    write_info(&local, size, ptr, ret)
                }
                CL_KERNEL_MAX_NUM_SUB_GROUPS => {
                    write_info(&max_work_group.div_ceil(sub_group), size, ptr, ret)
                }
                // No attribute fixes the number of sub-groups.
                CL_KERNEL_COMPILE_NUM_SUB_GROUPS => write_info(&0usize, size, ptr, ret),
                // CL_INVALID_VALUE if param_name is not one of the supported
                // values.
                _ => Err(CL_INVALID_VALUE),
            }
        }
    })
}

/// A `clSetKernelExecInfo` list of 64-bit addresses (pointers on this
/// 64-bit host): CL_INVALID_VALUE if param_value is NULL and
/// param_value_size is greater than zero, or if the size specified by
/// param_value_size is not valid.
///
/// # Safety
/// `param_value` is NULL or points to `param_value_size` bytes.
unsafe fn addresses(
    param_value: *const c_void,
    param_value_size: usize,
) -> Result<Vec<u64>, cl_int> {
    let word = std::mem::size_of::<u64>();
    if (param_value.is_null() && param_value_size > 0) || !param_value_size.is_multiple_of(word) {
        return Err(CL_INVALID_VALUE);
    }
    Ok((0..param_value_size / word)
        // SAFETY: per the contract.
        .map(|i| unsafe { (param_value as *const u64).add(i).read_unaligned() })
        .collect())
}

#[no_mangle]
pub unsafe extern "C" fn clSetKernelExecInfo(
    kernel: *mut c_void,
    param_name: cl_uint,
    param_value_size: usize,
    param_value: *const c_void,
) -> cl_int {
    api_call(|| {
        // CL_INVALID_KERNEL if kernel is a not a valid kernel object.
        // SAFETY: a handle the application got from this library.
        let k = unsafe { from_handle::<Kernel>(kernel)? };
        let svm = ferrocl_runtime::svm::context_supports_svm(&k.program.context);
        match param_name {
            CL_KERNEL_EXEC_INFO_SVM_PTRS => {
                // CL_INVALID_OPERATION if param_name is
                // CL_KERNEL_EXEC_INFO_SVM_PTRS and no devices in the context
                // associated with kernel support SVM.
                if !svm {
                    return Err(CL_INVALID_OPERATION);
                }
                // CL_INVALID_VALUE if param_value is NULL and
                // param_value_size is greater than zero, or if the size
                // specified by param_value_size is not valid.
                // SAFETY: per the contract.
                k.set_svm_pointers(unsafe { addresses(param_value, param_value_size)? });
                Ok(())
            }
            // Every ferrocl device has cl_ext_buffer_device_address.
            CL_KERNEL_EXEC_INFO_DEVICE_PTRS_EXT => {
                // SAFETY: per the contract.
                k.set_device_pointers(unsafe { addresses(param_value, param_value_size)? });
                Ok(())
            }
            CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM => {
                // CL_INVALID_VALUE if param_value is NULL, or if the size
                // specified by param_value_size is not valid.
                if param_value.is_null() || param_value_size != std::mem::size_of::<cl_bool>() {
                    return Err(CL_INVALID_VALUE);
                }
                // SAFETY: one cl_bool, checked above.
                let value = unsafe { (param_value as *const cl_bool).read_unaligned() };
                // CL_INVALID_OPERATION if param_name is
                // CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM and param_value
                // is CL_TRUE and no devices in the context associated with
                // kernel support fine-grain system SVM allocations (none
                // does). CL_FALSE is the default and asks for nothing.
                if value != CL_FALSE {
                    return Err(CL_INVALID_OPERATION);
                }
                Ok(())
            }
            // CL_INVALID_VALUE if param_name is not valid.
            _ => Err(CL_INVALID_VALUE),
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn clSetKernelArgSVMPointer(
    kernel: *mut c_void,
    arg_index: cl_uint,
    arg_value: *const c_void,
) -> cl_int {
    api_call(|| {
        // CL_INVALID_KERNEL if kernel is not a valid kernel object.
        // SAFETY: a handle the application got from this library.
        let k = unsafe { from_handle::<Kernel>(kernel)? };
        // CL_INVALID_OPERATION if no devices in the context associated with
        // kernel support SVM.
        if !ferrocl_runtime::svm::context_supports_svm(&k.program.context) {
            return Err(CL_INVALID_OPERATION);
        }
        // CL_INVALID_ARG_INDEX if arg_index is not a valid argument index.
        let arg = k
            .info
            .args
            .get(arg_index as usize)
            .ok_or(CL_INVALID_ARG_INDEX)?;
        // CL_INVALID_ARG_VALUE if arg_value specified is not a valid value
        // (the argument is not a __global or __constant pointer). Any
        // pointer value is one: a pointer into the middle of an allocation,
        // NULL, or one the kernel never dereferences.
        if arg.kind != ArgKind::Buffer {
            return Err(CL_INVALID_ARG_VALUE);
        }
        k.set_arg(arg_index as usize, ArgValue::Address(arg_value as u64));
        Ok(())
    })
}

/// `clSetKernelArgDevicePointerEXT` (cl_ext_buffer_device_address).
///
/// # Safety
/// A handle from the application.
#[allow(non_snake_case)] // the extension's C name
pub unsafe extern "C" fn clSetKernelArgDevicePointerEXT(
    kernel: *mut c_void,
    arg_index: cl_uint,
    arg_value: u64,
) -> cl_int {
    api_call(|| {
        // CL_INVALID_KERNEL if kernel is not a valid kernel object.
        // SAFETY: per the contract.
        let k = unsafe { from_handle::<Kernel>(kernel)? };
        // CL_INVALID_ARG_INDEX if arg_index is not a valid argument index,
        // or the argument is not a pointer to the global address space. Any
        // value is allowed: a kernel may be given a pointer it never
        // dereferences.
        let arg = k
            .info
            .args
            .get(arg_index as usize)
            .ok_or(CL_INVALID_ARG_INDEX)?;
        if arg.kind != ArgKind::Buffer || arg.address_qualifier != AddressQualifier::Global {
            return Err(CL_INVALID_ARG_INDEX);
        }
        k.set_arg(arg_index as usize, ArgValue::Address(arg_value));
        Ok(())
    })
}
