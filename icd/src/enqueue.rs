//! OpenCL enqueue entry points.
