//! The OpenCL object model.
pub mod cl;
