//! The shape of every entry point: a Rust body returning `Result`, run under
//! `catch_unwind` so that no panic crosses into C.
//!
//! ```ignore
//! #[no_mangle]
//! pub unsafe extern "C" fn clRetainContext(context: cl_context) -> cl_int {
//!     api_call(|| unsafe { api::retain::<Context>(context) })
//! }
//! ```

use ferrocl_runtime::cl::*;
use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Runs an entry point that returns a status code.
pub fn api_call(body: impl FnOnce() -> Result<(), cl_int>) -> cl_int {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => CL_SUCCESS,
        Ok(Err(code)) => code,
        // A panic is a bug in ferrocl; the application gets the most
        // neutral error the spec allows everywhere.
        Err(_) => CL_OUT_OF_HOST_MEMORY,
    }
}

/// Runs an entry point that creates an object: the handle on success (and
/// `CL_SUCCESS` in `errcode_ret`), NULL and the error code otherwise.
///
/// # Safety
/// `errcode_ret` is NULL or writable.
pub unsafe fn api_create(
    errcode_ret: *mut cl_int,
    body: impl FnOnce() -> Result<*mut c_void, cl_int>,
) -> *mut c_void {
    let (handle, code) = match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(handle)) => (handle, CL_SUCCESS),
        Ok(Err(code)) => (std::ptr::null_mut(), code),
        Err(_) => (std::ptr::null_mut(), CL_OUT_OF_HOST_MEMORY),
    };
    if !errcode_ret.is_null() {
        // SAFETY: the caller guarantees errcode_ret is writable when non-NULL.
        unsafe { errcode_ret.write_unaligned(code) };
    }
    handle
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panics_become_error_codes() {
        assert_eq!(api_call(|| panic!("bug")), CL_OUT_OF_HOST_MEMORY);
        let mut err = 0;
        let h = unsafe { api_create(&mut err, || panic!("bug")) };
        assert!(h.is_null());
        assert_eq!(err, CL_OUT_OF_HOST_MEMORY);
    }
}
