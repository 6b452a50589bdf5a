//! Semantic analysis: the OpenCL C type system, constant evaluation and the
//! built-in function table. Expression typing happens as the lowering walks
//! the tree (see [`crate::lower`]), with the rules defined here.

pub mod builtins;
pub mod consteval;
pub mod linkage;
pub mod types;
