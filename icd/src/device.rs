//! OpenCL device entry points.
