//! OpenCL context entry points.
