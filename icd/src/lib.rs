//! The OpenCL C ABI.
