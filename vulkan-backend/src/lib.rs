//! Every Vulkan call of ferrocl (ash + gpu-allocator).
//!
//! Owns: loading the Vulkan loader at run time, device discovery and
//! capability probing, memory and buffers (device addresses), compute
//! pipelines and the pipeline cache, command recording, submission,
//! timeline semaphores and timestamps. The runtime above it never touches
//! Vulkan.
//!
//! Public API (the contract with `ferrocl-runtime`):
//!
//! - [`Instance::new`] loads Vulkan (no library or no qualifying device is an
//!   empty device list, not an error a caller must handle specially) and lists
//!   [`PhysicalDeviceInfo`] for every device that has what ferrocl requires.
//! - [`Instance::open_device`] → [`Device`] (cheap to clone, `Send + Sync`).
//! - [`Device::create_buffer`] → [`Buffer`]: its own `VkBuffer` on memory
//!   sub-allocated by gpu-allocator, with a device address; host-visible
//!   ones are persistently mapped.
//! - [`Device::create_pipeline`] → [`Pipeline`]: one compute pipeline of a
//!   SPIR-V module entry point, with push-constant size and specialization
//!   constants.
//! - [`Device::create_timeline`] → [`Timeline`]: a timeline semaphore with
//!   host wait, host signal and query.
//! - [`Device::create_command_stream`] → [`CommandStream`]: records dispatches,
//!   copies, fills, barriers and timestamps ([`Timestamp`]) into command
//!   buffers and submits them with timeline waits and a timeline signal.
//!   Large copies run as the backend's own compute kernels on discrete GPUs
//!   ([`CopyEngine`]).
//! - [`Device::import_host_memory`]: a buffer over application memory
//!   (VK_EXT_external_memory_host), for `CL_MEM_USE_HOST_PTR`.
//! - [`Device::calibrated_host_time`]: device and host clocks sampled
//!   together, to place profiling timestamps on the host's time line.
//!
//! With `FERROCL_VALIDATION=1` the Khronos validation layer is enabled and
//! every warning or error it sends is printed to stderr and counted
//! ([`validation_message_count`]); the tests fail on any.
//! `FERROCL_VALIDATION=sync` adds the layer's synchronization validation,
//! which reports missing barriers and semaphore waits between commands.
//!
//! Module map: `instance` (loader, layer, enumeration), `info` (probing and
//! the info types), `device` (logical device, pipeline cache, layouts,
//! allocator), `memory` (buffers), `pipeline`, `sync` (timelines),
//! `command` (recording and submission), `builtin` (copy and fill kernels
//! as SPIR-V words), `timestamp` (query pools), `error` (VkResult →
//! [`Error`]).

#![warn(unsafe_op_in_unsafe_fn)]

mod builtin;
mod command;
mod device;
mod error;
mod info;
mod instance;
mod memory;
mod pipeline;
mod recycle;
mod sync;
mod timestamp;

pub use command::CommandStream;
pub use device::{CalibratedTime, CopyEngine, Device};
pub use error::{Error, Result};
pub use info::{DeviceType, Features, Limits, PhysicalDeviceInfo};
pub use instance::{validation_message_count, Instance};
pub use memory::{Buffer, MemoryLocation, SvmHostView};
pub use pipeline::{Pipeline, PipelineExecutable, PipelineOptions};
pub use sync::Timeline;
pub use timestamp::Timestamp;

#[cfg(test)]
mod tests {
    use super::*;

    fn shared_between_threads<T: Send + Sync>() {}
    fn moved_between_threads<T: Send>() {}

    /// The runtime keeps these in `Arc`s used from any thread (OpenCL API
    /// objects are thread-safe), and a command stream behind its queue's lock.
    #[test]
    fn api_objects_are_thread_safe() {
        shared_between_threads::<Instance>();
        shared_between_threads::<Device>();
        shared_between_threads::<Buffer>();
        shared_between_threads::<Pipeline>();
        shared_between_threads::<Timeline>();
        shared_between_threads::<Timestamp>();
        moved_between_threads::<CommandStream>();
    }
}
