//! OpenCL queue entry points.
