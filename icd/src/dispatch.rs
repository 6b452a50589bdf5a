//! OpenCL dispatch entry points.
