//! OpenCL unsupported entry points.
