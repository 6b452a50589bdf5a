//! OpenCL memory entry points.
