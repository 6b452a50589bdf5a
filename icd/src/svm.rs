//! OpenCL svm entry points.
