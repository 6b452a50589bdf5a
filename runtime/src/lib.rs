//! The OpenCL object model.
//!
//! Owns contexts, queues, events, memory objects, programs and kernels and
//! the scheduling of commands. It never calls Vulkan itself: it uses the
//! safe types of `ferrocl_vk`, and `ferrocl_compiler` for builds.
pub mod api;
pub mod build_cache;
pub mod cl;
pub mod command;
pub mod command_buffer;
pub mod context;
pub mod copy_pool;
pub mod device;
pub mod device_address;
pub mod event;
pub mod external_memory;
pub mod image;
pub mod kernel;
pub mod memory;
pub mod migrate;
pub mod pipeline_cache;
pub mod pipeline_jobs;
pub mod platform;
pub mod printf;
pub mod program;
pub mod queue;
pub mod sampler;
pub mod semaphore;
pub mod staging;
pub mod svm;

/// The OpenCL error for a backend failure.
pub fn vk_error(error: ferrocl_vk::Error) -> cl::cl_int {
    match error {
        ferrocl_vk::Error::OutOfDeviceMemory => cl::CL_MEM_OBJECT_ALLOCATION_FAILURE,
        ferrocl_vk::Error::OutOfHostMemory => cl::CL_OUT_OF_HOST_MEMORY,
        ferrocl_vk::Error::DeviceLost | ferrocl_vk::Error::Other(_) => cl::CL_OUT_OF_RESOURCES,
    }
}
