//! Platform entry points: `clGetPlatformIDs`, `clGetPlatformInfo`.
//!
//! ferrocl has exactly one platform; its handle is the runtime's static
//! [`Platform`], never reference counted.

use crate::entry::api_call;
use crate::info::{write_info, Bytes};
use ferrocl_runtime::api::{from_handle, handle_of};
use ferrocl_runtime::cl::*;
use ferrocl_runtime::device::NameVersion;
use ferrocl_runtime::platform::{Platform, ICD_SUFFIX};
use std::ffi::c_void;
use std::sync::Arc;

/// The platform, after the dispatch table is registered (so every handle
/// made from here on carries it). Entry points that may run before
/// `clGetPlatformIDs` use this rather than `Platform::get`.
pub fn platform() -> &'static Arc<Platform> {
    crate::dispatch::ensure_registered();
    Platform::get()
}

/// The platform a `cl_platform_id` argument names. NULL selects ferrocl's
/// only platform (the behaviour is implementation-defined).
///
/// # Safety
/// `handle` is NULL or a handle from this library.
pub unsafe fn platform_from_handle(handle: *const c_void) -> Result<&'static Platform, cl_int> {
    let platform = platform();
    if handle.is_null() {
        return Ok(platform);
    }
    // SAFETY: forwarded contract.
    let given = unsafe { from_handle::<Platform>(handle)? };
    if std::ptr::eq(given, &**platform) {
        Ok(platform)
    } else {
        Err(CL_INVALID_PLATFORM)
    }
}

/// The shared body of `clGetPlatformIDs` and `clIcdGetPlatformIDsKHR`.
///
/// # Safety
/// `platforms` is NULL or writable for `num_entries` handles;
/// `num_platforms` is NULL or writable.
pub unsafe fn get_platform_ids(
    num_entries: cl_uint,
    platforms: *mut *mut c_void,
    num_platforms: *mut cl_uint,
) -> Result<(), cl_int> {
    // CL_INVALID_VALUE if num_entries is equal to zero and platforms is not
    // NULL.
    if num_entries == 0 && !platforms.is_null() {
        return Err(CL_INVALID_VALUE);
    }
    // CL_INVALID_VALUE if both num_platforms and platforms are NULL.
    if num_platforms.is_null() && platforms.is_null() {
        return Err(CL_INVALID_VALUE);
    }
    let platform = platform();
    if !platforms.is_null() {
        // SAFETY: num_entries > 0 here, so one handle is writable.
        unsafe { platforms.write_unaligned(handle_of(&**platform)) };
    }
    if !num_platforms.is_null() {
        // SAFETY: the caller guarantees a writable cl_uint.
        unsafe { num_platforms.write_unaligned(1) };
    }
    Ok(())
}

#[no_mangle]
pub unsafe extern "C" fn clGetPlatformIDs(
    num_entries: cl_uint,
    platforms: *mut *mut c_void,
    num_platforms: *mut cl_uint,
) -> cl_int {
    // SAFETY: the application's pointers, as the spec defines them.
    api_call(|| unsafe { get_platform_ids(num_entries, platforms, num_platforms) })
}

#[no_mangle]
pub unsafe extern "C" fn clGetPlatformInfo(
    platform: *mut c_void,
    param_name: cl_uint,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    api_call(|| {
        // CL_INVALID_PLATFORM if platform is not a valid platform.
        // SAFETY: the application's handle.
        let platform = unsafe { platform_from_handle(platform)? };
        let (size, ptr, size_ret) = (param_value_size, param_value, param_value_size_ret);
        // SAFETY (every arm): the application's output pointers, as
        // write_info requires.
        unsafe {
            match param_name {
                CL_PLATFORM_PROFILE => write_info(platform.profile(), size, ptr, size_ret),
                CL_PLATFORM_VERSION => write_info(&platform.version(), size, ptr, size_ret),
                CL_PLATFORM_NUMERIC_VERSION => {
                    write_info(&platform.numeric_version(), size, ptr, size_ret)
                }
                CL_PLATFORM_NAME => write_info(platform.name(), size, ptr, size_ret),
                CL_PLATFORM_VENDOR => write_info(platform.vendor(), size, ptr, size_ret),
                CL_PLATFORM_EXTENSIONS => write_info(platform.extensions(), size, ptr, size_ret),
                CL_PLATFORM_EXTENSIONS_WITH_VERSION => write_info(
                    &Bytes(&NameVersion::to_c_bytes(platform.extensions_with_version())),
                    size,
                    ptr,
                    size_ret,
                ),
                CL_PLATFORM_HOST_TIMER_RESOLUTION => {
                    write_info(&platform.host_timer_resolution(), size, ptr, size_ret)
                }
                CL_PLATFORM_ICD_SUFFIX_KHR => write_info(ICD_SUFFIX, size, ptr, size_ret),
                // The handle types every device imports.
                CL_PLATFORM_EXTERNAL_MEMORY_IMPORT_HANDLE_TYPES_KHR
                    if platform
                        .extensions_with_version()
                        .iter()
                        .any(|e| e.name == "cl_khr_external_memory_opaque_fd") =>
                {
                    write_info(
                        &[CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR],
                        size,
                        ptr,
                        size_ret,
                    )
                }
                // Every device has cl_khr_semaphore's binary semaphores.
                CL_PLATFORM_SEMAPHORE_TYPES_KHR => {
                    write_info(&[CL_SEMAPHORE_TYPE_BINARY_KHR], size, ptr, size_ret)
                }
                // CL_INVALID_VALUE if param_name is not one of the supported
                // values (queries of extensions ferrocl does not expose
                // included).
                _ => Err(CL_INVALID_VALUE),
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ptr::null_mut;

    #[test]
    fn get_platform_ids_checks_its_arguments() {
        let mut platform = null_mut();
        let mut count = 0;
        unsafe {
            assert_eq!(
                clGetPlatformIDs(0, &mut platform, null_mut()),
                CL_INVALID_VALUE
            );
            assert_eq!(
                clGetPlatformIDs(1, null_mut(), null_mut()),
                CL_INVALID_VALUE
            );
            assert_eq!(clGetPlatformIDs(0, null_mut(), &mut count), CL_SUCCESS);
            assert_eq!(count, 1);
            assert_eq!(clGetPlatformIDs(1, &mut platform, null_mut()), CL_SUCCESS);
        }
        assert!(!platform.is_null());
    }

    fn platform_string(platform: *mut c_void, param: cl_uint) -> String {
        let mut size = 0;
        let status = unsafe { clGetPlatformInfo(platform, param, 0, null_mut(), &mut size) };
        assert_eq!(status, CL_SUCCESS);
        let mut buf = vec![0u8; size];
        let status = unsafe {
            clGetPlatformInfo(
                platform,
                param,
                buf.len(),
                buf.as_mut_ptr().cast(),
                &mut size,
            )
        };
        assert_eq!(status, CL_SUCCESS);
        assert_eq!(buf[size - 1], 0, "NUL-terminated");
        String::from_utf8(buf[..size - 1].to_vec()).unwrap()
    }

    #[test]
    fn platform_strings() {
        let mut platform = null_mut();
        assert_eq!(
            unsafe { clGetPlatformIDs(1, &mut platform, null_mut()) },
            CL_SUCCESS
        );
        assert_eq!(
            platform_string(platform, CL_PLATFORM_PROFILE),
            "FULL_PROFILE"
        );
        assert!(platform_string(platform, CL_PLATFORM_VERSION).starts_with("OpenCL 3.0 ferrocl "));
        assert_eq!(platform_string(platform, CL_PLATFORM_NAME), "ferrocl");
        assert_eq!(
            platform_string(platform, CL_PLATFORM_ICD_SUFFIX_KHR),
            "FERRO"
        );
        let extensions = platform_string(platform, CL_PLATFORM_EXTENSIONS);
        assert!(extensions.split(' ').any(|e| e == "cl_khr_icd"));
        // NULL selects the one platform.
        assert_eq!(platform_string(null_mut(), CL_PLATFORM_NAME), "ferrocl");
    }

    #[test]
    fn platform_info_errors() {
        let mut platform = null_mut();
        assert_eq!(
            unsafe { clGetPlatformIDs(1, &mut platform, null_mut()) },
            CL_SUCCESS
        );
        let mut version = 0u32;
        let mut bogus = [0u64; 4];
        unsafe {
            assert_eq!(
                clGetPlatformInfo(
                    platform,
                    0xdead,
                    4,
                    (&mut version as *mut u32).cast(),
                    null_mut()
                ),
                CL_INVALID_VALUE
            );
            assert_eq!(
                clGetPlatformInfo(
                    platform,
                    CL_PLATFORM_NAME,
                    2,
                    (&mut version as *mut u32).cast(),
                    null_mut()
                ),
                CL_INVALID_VALUE
            );
            assert_eq!(
                clGetPlatformInfo(
                    bogus.as_mut_ptr().cast(),
                    CL_PLATFORM_NAME,
                    0,
                    null_mut(),
                    null_mut()
                ),
                CL_INVALID_PLATFORM
            );
            assert_eq!(
                clGetPlatformInfo(
                    platform,
                    CL_PLATFORM_NUMERIC_VERSION,
                    4,
                    (&mut version as *mut u32).cast(),
                    null_mut()
                ),
                CL_SUCCESS
            );
        }
        assert_eq!(version, (3 << 22));
    }

    #[test]
    fn extensions_with_version_match_the_string() {
        let mut platform = null_mut();
        assert_eq!(
            unsafe { clGetPlatformIDs(1, &mut platform, null_mut()) },
            CL_SUCCESS
        );
        let mut size = 0;
        let status = unsafe {
            clGetPlatformInfo(
                platform,
                CL_PLATFORM_EXTENSIONS_WITH_VERSION,
                0,
                null_mut(),
                &mut size,
            )
        };
        assert_eq!(status, CL_SUCCESS);
        assert_eq!(size % 68, 0);
        let extensions = platform_string(platform, CL_PLATFORM_EXTENSIONS);
        assert_eq!(size / 68, extensions.split(' ').count());
    }
}
