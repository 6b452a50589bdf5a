//! The OpenCL object model.
pub mod api;
pub mod cl;
pub mod platform;
pub mod device;
