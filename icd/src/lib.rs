//! libferrocl.so: the OpenCL C ABI.
//!
//! Owns every `cl*` entry point, exported by name and through the ICD
//! dispatch table; handle validation; argument checks in the order the spec
//! lists them; `cl_int` error codes; `catch_unwind` at every entry point.
//! It holds no state of its own: the objects live in `ferrocl-runtime`.

// Every `extern "C"` entry point is unsafe with one contract: the pointers
// and handles are what the OpenCL specification says they are.
#![allow(clippy::missing_safety_doc)]

pub mod command_buffer;
pub mod context;
pub mod device;
pub mod dispatch;
pub mod enqueue;
pub mod entry;
pub mod event;
pub mod extension;
pub mod image;
pub mod info;
pub mod kernel;
pub mod memory;
pub mod platform;
pub mod program;
pub(crate) mod properties;
pub mod queue;
pub mod sampler;
pub mod semaphore;
pub mod svm;
pub mod unsupported;

/// Number of Vulkan validation-layer messages seen in this process (with
/// `FERROCL_VALIDATION=1`), for C tests that fail on any.
#[no_mangle]
pub extern "C" fn ferrocl_validation_message_count() -> usize {
    std::panic::catch_unwind(ferrocl_vk::validation_message_count).unwrap_or(usize::MAX)
}
