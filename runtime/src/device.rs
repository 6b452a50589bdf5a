//! The OpenCL device.
