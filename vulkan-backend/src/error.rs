//! Backend errors and the mapping of `VkResult` and allocator failures onto
//! them. Each error already names the OpenCL code the runtime reports.

use ash::vk;
use std::fmt;

/// Backend errors, already in OpenCL terms where the runtime needs them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// VK_ERROR_OUT_OF_DEVICE_MEMORY / allocation failure → CL_MEM_OBJECT_ALLOCATION_FAILURE.
    OutOfDeviceMemory,
    /// VK_ERROR_OUT_OF_HOST_MEMORY → CL_OUT_OF_HOST_MEMORY.
    OutOfHostMemory,
    /// VK_ERROR_DEVICE_LOST → CL_OUT_OF_RESOURCES.
    DeviceLost,
    /// Anything else (message for logs) → CL_OUT_OF_RESOURCES.
    Other(String),
}

pub type Result<T> = std::result::Result<T, Error>;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::OutOfDeviceMemory => f.write_str("out of device memory"),
            Error::OutOfHostMemory => f.write_str("out of host memory"),
            Error::DeviceLost => f.write_str("Vulkan device lost"),
            Error::Other(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for Error {}

/// The general mapping: the three results that have an OpenCL meaning of
/// their own, everything else as a message naming the call that failed.
pub(crate) fn vk_error(call: &str, result: vk::Result) -> Error {
    match result {
        vk::Result::ERROR_OUT_OF_DEVICE_MEMORY => Error::OutOfDeviceMemory,
        vk::Result::ERROR_OUT_OF_HOST_MEMORY => Error::OutOfHostMemory,
        vk::Result::ERROR_DEVICE_LOST => Error::DeviceLost,
        other => Error::Other(format!("{call} failed: {other}")),
    }
}

/// Results of memory-allocating calls (vkCreateBuffer, vkAllocateMemory):
/// a too-large or fragmented request is a device-memory failure to OpenCL
/// (CL_MEM_OBJECT_ALLOCATION_FAILURE), whatever the driver calls it.
pub(crate) fn allocation_vk_error(call: &str, result: vk::Result) -> Error {
    match result {
        vk::Result::ERROR_OUT_OF_HOST_MEMORY => Error::OutOfHostMemory,
        vk::Result::ERROR_DEVICE_LOST => Error::DeviceLost,
        vk::Result::ERROR_OUT_OF_DEVICE_MEMORY
        | vk::Result::ERROR_TOO_MANY_OBJECTS
        | vk::Result::ERROR_INVALID_EXTERNAL_HANDLE
        | vk::Result::ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS => Error::OutOfDeviceMemory,
        other => Error::Other(format!("{call} failed: {other}")),
    }
}

/// gpu-allocator failures: running out of memory or finding no memory type
/// for the request is an allocation failure; the rest are bugs worth a log.
pub(crate) fn allocator_error(error: gpu_allocator::AllocationError) -> Error {
    use gpu_allocator::AllocationError as A;
    match error {
        A::OutOfMemory | A::NoCompatibleMemoryTypeFound => Error::OutOfDeviceMemory,
        other => Error::Other(format!("gpu-allocator: {other}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_map_to_their_opencl_meaning() {
        assert_eq!(
            vk_error("x", vk::Result::ERROR_OUT_OF_DEVICE_MEMORY),
            Error::OutOfDeviceMemory
        );
        assert_eq!(
            vk_error("x", vk::Result::ERROR_DEVICE_LOST),
            Error::DeviceLost
        );
        assert!(matches!(
            vk_error("vkFoo", vk::Result::ERROR_UNKNOWN),
            Error::Other(m) if m.starts_with("vkFoo failed")
        ));
        assert_eq!(
            allocation_vk_error("x", vk::Result::ERROR_TOO_MANY_OBJECTS),
            Error::OutOfDeviceMemory
        );
        assert_eq!(
            allocator_error(gpu_allocator::AllocationError::OutOfMemory),
            Error::OutOfDeviceMemory
        );
    }
}
