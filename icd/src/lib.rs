//! libferrocl.so: the OpenCL C ABI.
//!
//! Owns every `cl*` entry point, exported by name and through the ICD
//! dispatch table; handle validation; argument checks in the order the spec
//! lists them; `cl_int` error codes; `catch_unwind` at every entry point.
//! It holds no state of its own: the objects live in `ferrocl-runtime`.

pub mod entry;
pub mod info;
