//! OpenCL extension entry points.
