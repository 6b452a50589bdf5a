//! OpenCL program entry points.
