//! OpenCL event entry points.
