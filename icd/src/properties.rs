//! The 0-terminated property lists of the `*WithProperties` entry points
//! (command-buffers and their commands, semaphores, buffers): read once
//! into names and values, kept as given for the `*_PROPERTIES` queries.

use ferrocl_runtime::api::from_handle;
use ferrocl_runtime::cl::*;
use ferrocl_runtime::context::Context;
use ferrocl_runtime::device::Device;
use std::ffi::c_void;
use std::sync::Arc;

/// A property's value: one word, or a list of handles ended by 0
/// (`CL_MEM_DEVICE_HANDLE_LIST_KHR`, `CL_SEMAPHORE_DEVICE_HANDLE_LIST_KHR`).
pub(crate) enum Value {
    Word(u64),
    List(Vec<u64>),
}

/// A property list as read.
#[derive(Default)]
pub(crate) struct Properties {
    /// The list as given, with its terminating 0; empty for NULL.
    pub array: Vec<u64>,
    /// Each property in order.
    pub entries: Vec<(u64, Value)>,
}

impl Properties {
    /// Reads the list at `ptr`; `lists` names the properties whose value
    /// is a 0-terminated list. `repeated` is the error for a name given
    /// twice.
    ///
    /// # Safety
    /// `ptr` is NULL or a 0-terminated property list.
    pub unsafe fn read(
        ptr: *const cl_properties,
        lists: &[cl_uint],
        repeated: cl_int,
    ) -> Result<Properties, cl_int> {
        let mut props = Properties {
            array: Vec::new(),
            entries: Vec::new(),
        };
        if ptr.is_null() {
            return Ok(props);
        }
        let mut i = 0;
        let mut next = || {
            // SAFETY: per the contract, the list goes on until its
            // terminating 0, a value following every name.
            let word = unsafe { ptr.add(i).read_unaligned() };
            i += 1;
            word
        };
        loop {
            let name = next();
            props.array.push(name);
            if name == 0 {
                return Ok(props);
            }
            if props.entries.iter().any(|(n, _)| *n == name) {
                return Err(repeated);
            }
            let value = if lists.iter().any(|&l| u64::from(l) == name) {
                let mut list = Vec::new();
                loop {
                    let word = next();
                    props.array.push(word);
                    if word == 0 {
                        break;
                    }
                    list.push(word);
                }
                Value::List(list)
            } else {
                let word = next();
                props.array.push(word);
                Value::Word(word)
            };
            props.entries.push((name, value));
        }
    }

    /// The one-word value of `name`, if given.
    pub fn word(&self, name: cl_uint) -> Option<u64> {
        self.entries.iter().find_map(|(n, v)| match v {
            Value::Word(w) if *n == u64::from(name) => Some(*w),
            _ => None,
        })
    }

    /// The list value of `name`, if given.
    pub fn list(&self, name: cl_uint) -> Option<&[u64]> {
        self.entries.iter().find_map(|(n, v)| match v {
            Value::List(l) if *n == u64::from(name) => Some(l.as_slice()),
            _ => None,
        })
    }
}

/// The devices of a device handle list, each a device of `context`
/// (else `CL_INVALID_DEVICE`).
///
/// # Safety
/// The handles are the application's.
pub(crate) unsafe fn context_devices(
    context: &Context,
    handles: &[u64],
) -> Result<Vec<Arc<Device>>, cl_int> {
    handles
        .iter()
        .map(|&h| {
            // SAFETY: per the contract; the handle is only checked.
            let device = unsafe { from_handle::<Device>(h as *mut c_void) }
                .map_err(|_| CL_INVALID_DEVICE)?;
            context
                .devices
                .iter()
                .find(|d| std::ptr::eq(Arc::as_ptr(d), device))
                .cloned()
                .ok_or(CL_INVALID_DEVICE)
        })
        .collect()
}
