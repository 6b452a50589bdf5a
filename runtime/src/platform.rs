//! The OpenCL platform.
