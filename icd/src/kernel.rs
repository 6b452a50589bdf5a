//! OpenCL kernel entry points.
