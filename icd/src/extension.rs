//! Extension entry points: `clGetExtensionFunctionAddress`,
//! `clGetExtensionFunctionAddressForPlatform` and `clIcdGetPlatformIDsKHR`
//! (cl_khr_icd), the first function an ICD loader calls.

use crate::entry::api_call;
use crate::platform::{get_platform_ids, platform};
use ferrocl_runtime::api::from_handle;
use ferrocl_runtime::cl::*;
use ferrocl_runtime::platform::Platform;
use std::ffi::{c_char, c_void, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// The extension functions ferrocl provides, by name. Only extensions that
/// the platform or a device reports belong here.
fn extension_function(name: &[u8]) -> Option<*mut c_void> {
    match name {
        b"clIcdGetPlatformIDsKHR" => Some(clIcdGetPlatformIDsKHR as *mut c_void),
        b"clGetKernelSuggestedLocalWorkSizeKHR" => {
            Some(crate::enqueue::clGetKernelSuggestedLocalWorkSizeKHR as *mut c_void)
        }
        // cl_khr_create_command_queue: the core function under the
        // extension's name.
        b"clCreateCommandQueueWithPropertiesKHR" => {
            Some(crate::queue::clCreateCommandQueueWithProperties as *mut c_void)
        }
        b"clEnqueueAcquireExternalMemObjectsKHR" => {
            Some(crate::memory::clEnqueueAcquireExternalMemObjectsKHR as *mut c_void)
        }
        b"clEnqueueReleaseExternalMemObjectsKHR" => {
            Some(crate::memory::clEnqueueReleaseExternalMemObjectsKHR as *mut c_void)
        }
        b"clSetKernelArgDevicePointerEXT" => {
            Some(crate::kernel::clSetKernelArgDevicePointerEXT as *mut c_void)
        }
        b"clCreateSemaphoreWithPropertiesKHR" => {
            Some(crate::semaphore::clCreateSemaphoreWithPropertiesKHR as *mut c_void)
        }
        b"clRetainSemaphoreKHR" => Some(crate::semaphore::clRetainSemaphoreKHR as *mut c_void),
        b"clReleaseSemaphoreKHR" => Some(crate::semaphore::clReleaseSemaphoreKHR as *mut c_void),
        b"clEnqueueWaitSemaphoresKHR" => {
            Some(crate::semaphore::clEnqueueWaitSemaphoresKHR as *mut c_void)
        }
        b"clEnqueueSignalSemaphoresKHR" => {
            Some(crate::semaphore::clEnqueueSignalSemaphoresKHR as *mut c_void)
        }
        b"clGetSemaphoreInfoKHR" => Some(crate::semaphore::clGetSemaphoreInfoKHR as *mut c_void),
        b"clGetSemaphoreHandleForTypeKHR" => {
            Some(crate::semaphore::clGetSemaphoreHandleForTypeKHR as *mut c_void)
        }
        _ => command_buffer_function(name),
    }
}

/// The entry points of cl_khr_command_buffer and
/// cl_khr_command_buffer_mutable_dispatch.
fn command_buffer_function(name: &[u8]) -> Option<*mut c_void> {
    use crate::command_buffer::*;
    let f = match name {
        b"clCreateCommandBufferKHR" => clCreateCommandBufferKHR as *mut c_void,
        b"clRetainCommandBufferKHR" => clRetainCommandBufferKHR as *mut c_void,
        b"clReleaseCommandBufferKHR" => clReleaseCommandBufferKHR as *mut c_void,
        b"clFinalizeCommandBufferKHR" => clFinalizeCommandBufferKHR as *mut c_void,
        b"clEnqueueCommandBufferKHR" => clEnqueueCommandBufferKHR as *mut c_void,
        b"clGetCommandBufferInfoKHR" => clGetCommandBufferInfoKHR as *mut c_void,
        b"clCommandBarrierWithWaitListKHR" => clCommandBarrierWithWaitListKHR as *mut c_void,
        b"clCommandCopyBufferKHR" => clCommandCopyBufferKHR as *mut c_void,
        b"clCommandCopyBufferRectKHR" => clCommandCopyBufferRectKHR as *mut c_void,
        b"clCommandCopyBufferToImageKHR" => clCommandCopyBufferToImageKHR as *mut c_void,
        b"clCommandCopyImageKHR" => clCommandCopyImageKHR as *mut c_void,
        b"clCommandCopyImageToBufferKHR" => clCommandCopyImageToBufferKHR as *mut c_void,
        b"clCommandFillBufferKHR" => clCommandFillBufferKHR as *mut c_void,
        b"clCommandFillImageKHR" => clCommandFillImageKHR as *mut c_void,
        b"clCommandNDRangeKernelKHR" => clCommandNDRangeKernelKHR as *mut c_void,
        b"clCommandSVMMemcpyKHR" => clCommandSVMMemcpyKHR as *mut c_void,
        b"clCommandSVMMemFillKHR" => clCommandSVMMemFillKHR as *mut c_void,
        b"clUpdateMutableCommandsKHR" => clUpdateMutableCommandsKHR as *mut c_void,
        b"clGetMutableCommandInfoKHR" => clGetMutableCommandInfoKHR as *mut c_void,
        _ => return None,
    };
    Some(f)
}

/// # Safety
/// `func_name` is NULL or a NUL-terminated string.
unsafe fn lookup(func_name: *const c_char) -> *mut c_void {
    if func_name.is_null() {
        return std::ptr::null_mut();
    }
    // SAFETY: the caller guarantees a NUL-terminated string.
    let name = unsafe { CStr::from_ptr(func_name) };
    extension_function(name.to_bytes()).unwrap_or(std::ptr::null_mut())
}

#[no_mangle]
pub unsafe extern "C" fn clGetExtensionFunctionAddress(func_name: *const c_char) -> *mut c_void {
    // SAFETY: the application's string, as the spec defines it.
    catch_unwind(AssertUnwindSafe(|| unsafe { lookup(func_name) })).unwrap_or(std::ptr::null_mut())
}

#[no_mangle]
pub unsafe extern "C" fn clGetExtensionFunctionAddressForPlatform(
    platform_id: *mut c_void,
    func_name: *const c_char,
) -> *mut c_void {
    catch_unwind(AssertUnwindSafe(|| {
        // A return value of NULL indicates that platform is not a valid
        // platform.
        let platform = platform();
        // SAFETY: the application's handle.
        match unsafe { from_handle::<Platform>(platform_id) } {
            Ok(given) if std::ptr::eq(given, &**platform) => {}
            _ => return std::ptr::null_mut(),
        }
        // SAFETY: the application's string.
        unsafe { lookup(func_name) }
    }))
    .unwrap_or(std::ptr::null_mut())
}

#[no_mangle]
pub unsafe extern "C" fn clIcdGetPlatformIDsKHR(
    num_entries: cl_uint,
    platforms: *mut *mut c_void,
    num_platforms: *mut cl_uint,
) -> cl_int {
    // SAFETY: the loader's pointers, as the spec defines them.
    api_call(|| unsafe { get_platform_ids(num_entries, platforms, num_platforms) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ptr::null_mut;

    #[test]
    fn icd_entry_point_is_found_and_others_are_not() {
        unsafe {
            let f = clGetExtensionFunctionAddress(c"clIcdGetPlatformIDsKHR".as_ptr());
            assert_eq!(f, clIcdGetPlatformIDsKHR as *mut c_void);
            assert!(!clGetExtensionFunctionAddress(c"clCreateCommandBufferKHR".as_ptr()).is_null());
            assert!(
                !clGetExtensionFunctionAddress(c"clUpdateMutableCommandsKHR".as_ptr()).is_null()
            );
            assert_eq!(
                clGetExtensionFunctionAddress(c"clCreateCommandQueueWithPropertiesKHR".as_ptr()),
                crate::queue::clCreateCommandQueueWithProperties as *mut c_void
            );
            // cl_khr_command_buffer_multi_device is not offered.
            assert!(clGetExtensionFunctionAddress(c"clRemapCommandBufferKHR".as_ptr()).is_null());
            assert!(clGetExtensionFunctionAddress(std::ptr::null()).is_null());
        }
    }

    #[test]
    fn for_platform_needs_our_platform() {
        let mut platform = null_mut();
        unsafe {
            assert_eq!(
                clIcdGetPlatformIDsKHR(1, &mut platform, null_mut()),
                CL_SUCCESS
            );
            let name = c"clIcdGetPlatformIDsKHR".as_ptr();
            assert!(!clGetExtensionFunctionAddressForPlatform(platform, name).is_null());
            assert!(clGetExtensionFunctionAddressForPlatform(null_mut(), name).is_null());
            let mut bogus = [0u64; 4];
            assert!(
                clGetExtensionFunctionAddressForPlatform(bogus.as_mut_ptr().cast(), name).is_null()
            );
        }
    }
}
