//! OpenCL platform entry points.
