//! How runtime objects appear at the C boundary.
//!
//! Every API object (`Platform`, `Device`, `Context`, `Queue`, `Mem`,
//! `Program`, `Kernel`, `Event`, `Sampler`, `CommandBuffer`,
//! `MutableDispatch`, `Semaphore`) is `#[repr(C)]` and begins with an
//! [`ApiHeader`]: the ICD dispatch-table pointer (the ICD loader reads it
//! from the first word of every handle) and a type tag. A handle is
//! `Arc::into_raw` of the object, so the runtime's own `Arc`s and the
//! application's references are one count, and an object stays alive while
//! anything needs it.
//!
//! The dispatch table belongs to the ICD crate, which registers it once with
//! [`set_dispatch_table`] before it creates any object.

use crate::cl::cl_int;
use std::ffi::c_void;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::Arc;

static DISPATCH: AtomicPtr<c_void> = AtomicPtr::new(std::ptr::null_mut());

/// Registers the ICD dispatch table that every new object points to.
pub fn set_dispatch_table(table: *const c_void) {
    DISPATCH.store(table as *mut c_void, Ordering::Release);
}

fn dispatch_table() -> *const c_void {
    DISPATCH.load(Ordering::Acquire)
}

/// Type tags; random-looking so that a stray pointer rarely matches.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tag {
    Platform = 0x5046_4c54,
    Device = 0x4445_5643,
    Context = 0x4354_5854,
    Queue = 0x5155_4555,
    Mem = 0x4d45_4d4f,
    Program = 0x5052_4f47,
    Kernel = 0x4b45_524e,
    Event = 0x4556_4e54,
    Sampler = 0x5341_4d50,
    CommandBuffer = 0x434d_4442,
    MutableCommand = 0x4d55_5443,
    Semaphore = 0x5345_4d41,
}

/// The first bytes of every API object.
#[repr(C)]
pub struct ApiHeader {
    dispatch: *const c_void,
    tag: Tag,
}

// SAFETY: the dispatch pointer refers to an immutable static table.
unsafe impl Send for ApiHeader {}
// SAFETY: as above; the header is never written after creation.
unsafe impl Sync for ApiHeader {}

impl ApiHeader {
    pub fn new(tag: Tag) -> ApiHeader {
        ApiHeader {
            dispatch: dispatch_table(),
            tag,
        }
    }
}

/// An API object type: `#[repr(C)]` with an [`ApiHeader`] as first field.
///
/// # Safety
/// Implementors must be `#[repr(C)]` with `ApiHeader` as their first field,
/// and `TAG` unique to the type.
pub unsafe trait ApiObject: Sized + Send + Sync + 'static {
    const TAG: Tag;
    /// `CL_INVALID_<OBJECT>` for this type.
    const INVALID: cl_int;
}

/// Turns an `Arc` into a handle the application owns (one reference).
pub fn into_handle<T: ApiObject>(object: Arc<T>) -> *mut c_void {
    Arc::into_raw(object) as *mut c_void
}

/// Checks a handle: NULL, a foreign pointer and a wrong type all give
/// `T::INVALID`.
///
/// # Safety
/// `handle` is NULL or a pointer the application got from this library (a
/// dangling handle is undefined behaviour, as the spec allows; the tag check
/// catches most such misuse without crashing while the memory is mapped).
pub unsafe fn from_handle<'a, T: ApiObject>(handle: *const c_void) -> Result<&'a T, cl_int> {
    if handle.is_null() || !(handle as usize).is_multiple_of(std::mem::align_of::<ApiHeader>()) {
        return Err(T::INVALID);
    }
    // SAFETY: per the contract, a non-NULL handle points to at least an
    // ApiHeader of one of our objects.
    let header = unsafe { &*(handle as *const ApiHeader) };
    if header.dispatch != dispatch_table() || header.tag as u32 != T::TAG as u32 {
        return Err(T::INVALID);
    }
    // SAFETY: the tag says this is a T (repr(C), header first).
    Ok(unsafe { &*(handle as *const T) })
}

/// A new `Arc` for a checked handle (the application keeps its reference).
///
/// # Safety
/// As [`from_handle`].
pub unsafe fn arc_from_handle<T: ApiObject>(handle: *const c_void) -> Result<Arc<T>, cl_int> {
    // SAFETY: forwarded contract.
    let object = unsafe { from_handle::<T>(handle)? };
    let ptr = object as *const T;
    // SAFETY: ptr came from Arc::into_raw (the only way handles are made);
    // taking one more strong reference keeps the application's intact.
    unsafe {
        Arc::increment_strong_count(ptr);
        Ok(Arc::from_raw(ptr))
    }
}

/// `clRetain*`.
///
/// # Safety
/// As [`from_handle`].
pub unsafe fn retain<T: ApiObject>(handle: *const c_void) -> Result<(), cl_int> {
    // SAFETY: forwarded contract.
    let object = unsafe { from_handle::<T>(handle)? };
    // SAFETY: the pointer came from Arc::into_raw.
    unsafe { Arc::increment_strong_count(object as *const T) };
    Ok(())
}

/// `clRelease*`: drops the application's reference; the object goes when
/// nothing else (a pending command, a child object) holds it.
///
/// # Safety
/// As [`from_handle`].
pub unsafe fn release<T: ApiObject>(handle: *const c_void) -> Result<(), cl_int> {
    // SAFETY: forwarded contract.
    let object = unsafe { from_handle::<T>(handle)? };
    // SAFETY: the pointer came from Arc::into_raw and the application owned
    // the reference it gives back.
    unsafe { Arc::decrement_strong_count(object as *const T) };
    Ok(())
}

/// `CL_*_REFERENCE_COUNT`: the strong count (application and runtime
/// references together).
pub fn reference_count<T: ApiObject>(object: &T) -> u32 {
    let ptr = object as *const T;
    // SAFETY: every API object lives in an Arc (see the module docs); the
    // temporary Arc is forgotten, so the count is unchanged.
    let arc = unsafe { Arc::from_raw(ptr) };
    let count = Arc::strong_count(&arc);
    std::mem::forget(arc);
    count as u32
}

/// The handle of an object the runtime holds (for info queries that return
/// a handle, e.g. `CL_QUEUE_CONTEXT`). No reference is added.
pub fn handle_of<T: ApiObject>(object: &T) -> *mut c_void {
    object as *const T as *mut c_void
}
