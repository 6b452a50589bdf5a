//! Runs an already-built Khronos OpenCL-CTS against the ferrocl ICD and
//! turns what the CTS binaries report into result files and tables.
//!
//! The crate never loads OpenCL itself: every CTS binary runs in a process
//! group of its own, pointed at ferrocl through the ICD loader's
//! environment, so that a crash or a hang costs only that one binary.
//!
//! - [`suite_list`]: the CTS's `opencl_conformance_tests_*.csv` lists.
//! - [`cts_output`]: reading a CTS binary's console log, results JSON and
//!   `--list` output.
//! - [`results`]: the results model and how a process becomes results.
//! - [`process`]: process groups, deadlines, the parallel pool.
//! - [`runner`]: a whole run, from the list to the results.
//! - [`expectations`], [`compare`]: expected failures and baselines.
//! - [`report`]: the markdown report and the console table.
//! - [`cli`]: the command line.

pub mod cli;
pub mod compare;
pub mod cts_output;
pub mod expectations;
pub mod process;
pub mod report;
pub mod results;
pub mod runner;
pub mod suite_list;
