//! One mechanism for every `clGet*Info`: values that can be written into the
//! application's `(param_value_size, param_value, param_value_size_ret)`.
//!
//! A query arm is one line: `CL_DEVICE_NAME => write_info(&dev.name, size, ptr, size_ret)`.

use ferrocl_runtime::cl::*;
use std::ffi::c_void;

/// A value an info query returns, as bytes.
pub trait InfoValue {
    /// Calls `f` with the value's bytes exactly as the C API returns them.
    fn with_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R;
}

macro_rules! plain_info_value {
    ($($t:ty),*) => {$(
        impl InfoValue for $t {
            fn with_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
                f(&self.to_ne_bytes())
            }
        }
    )*};
}
plain_info_value!(u8, i8, u16, i16, u32, i32, u64, i64, usize, isize);

/// A `cl_bool`.
impl InfoValue for bool {
    fn with_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
        f(&(if *self { CL_TRUE } else { CL_FALSE }).to_ne_bytes())
    }
}

/// A C string: NUL-terminated.
impl InfoValue for str {
    fn with_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
        let mut bytes = Vec::with_capacity(self.len() + 1);
        bytes.extend_from_slice(self.as_bytes());
        bytes.push(0);
        f(&bytes)
    }
}

impl InfoValue for String {
    fn with_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
        self.as_str().with_bytes(f)
    }
}

/// A handle (`cl_context`, `cl_device_id`, ...), NULL allowed.
impl InfoValue for *mut c_void {
    fn with_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
        f(&(*self as usize).to_ne_bytes())
    }
}

/// An array of plain values (`size_t[3]`, a property list, a handle list).
impl<T: Copy + InfoValue> InfoValue for [T] {
    fn with_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
        let mut bytes = Vec::new();
        for v in self {
            v.with_bytes(|b| bytes.extend_from_slice(b));
        }
        f(&bytes)
    }
}

impl<T: Copy + InfoValue, const N: usize> InfoValue for [T; N] {
    fn with_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
        self.as_slice().with_bytes(f)
    }
}

impl<T: Copy + InfoValue> InfoValue for Vec<T> {
    fn with_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
        self.as_slice().with_bytes(f)
    }
}

/// Raw bytes (e.g. a UUID), written as they are.
pub struct Bytes<'a>(pub &'a [u8]);

impl InfoValue for Bytes<'_> {
    fn with_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
        f(self.0)
    }
}

/// Writes `value` per the rules every `clGet*Info` shares.
///
/// # Safety
/// `param_value` is NULL or writable for `param_value_size` bytes;
/// `param_value_size_ret` is NULL or writable.
pub unsafe fn write_info<V: InfoValue + ?Sized>(
    value: &V,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> Result<(), cl_int> {
    value.with_bytes(|bytes| {
        // CL_INVALID_VALUE if the size in bytes specified by
        // param_value_size is < size of return type and param_value is not
        // NULL.
        if !param_value.is_null() {
            if param_value_size < bytes.len() {
                return Err(CL_INVALID_VALUE);
            }
            // SAFETY: the caller guarantees param_value_size writable bytes.
            unsafe {
                std::ptr::copy_nonoverlapping(bytes.as_ptr(), param_value as *mut u8, bytes.len())
            };
        }
        if !param_value_size_ret.is_null() {
            // SAFETY: the caller guarantees a writable size_t.
            unsafe { param_value_size_ret.write_unaligned(bytes.len()) };
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_is_nul_terminated_and_sized() {
        let mut size = 0usize;
        unsafe { write_info("abc", 0, std::ptr::null_mut(), &mut size) }.unwrap();
        assert_eq!(size, 4);
        let mut buf = [0xffu8; 4];
        unsafe { write_info("abc", 4, buf.as_mut_ptr().cast(), std::ptr::null_mut()) }.unwrap();
        assert_eq!(&buf, b"abc\0");
    }

    #[test]
    fn too_small_is_invalid_value() {
        let mut v = 0u32;
        let r = unsafe { write_info(&7u64, 4, (&mut v as *mut u32).cast(), std::ptr::null_mut()) };
        assert_eq!(r, Err(CL_INVALID_VALUE));
    }

    #[test]
    fn arrays_concatenate() {
        let mut out = [0usize; 3];
        unsafe {
            write_info(
                &[1usize, 2, 3],
                24,
                out.as_mut_ptr().cast(),
                std::ptr::null_mut(),
            )
        }
        .unwrap();
        assert_eq!(out, [1, 2, 3]);
    }
}
