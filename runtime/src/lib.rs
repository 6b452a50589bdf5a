//! The OpenCL object model.
pub mod api;
pub mod cl;
