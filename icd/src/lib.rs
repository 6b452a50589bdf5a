//! libferrocl.so: the OpenCL C ABI.
//!
//! Owns every `cl*` entry point, exported by name and through the ICD
//! dispatch table; handle validation; argument checks in the order the spec
//! lists them; `cl_int` error codes; `catch_unwind` at every entry point.
//! It holds no state of its own: the objects live in `ferrocl-runtime`.

pub mod entry;
pub mod info;
pub mod platform;
pub mod device;
pub mod dispatch;
pub mod extension;
pub mod unsupported;
pub mod context;
pub mod queue;
pub mod memory;
pub mod program;
pub mod kernel;
pub mod event;
pub mod enqueue;
pub mod svm;
