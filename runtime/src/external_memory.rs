//! cl_khr_external_memory with opaque file descriptors
//! (cl_khr_external_memory_opaque_fd): buffers over memory another API
//! (Vulkan) exported, and the commands that hand such memory between that
//! API and OpenCL.
//!
//! The memory is imported into the context's first device (the ICD allows
//! no other), so the buffer has no copies on other devices. Acquiring and
//! releasing are Vulkan queue family ownership transfers from and to
//! `VK_QUEUE_FAMILY_EXTERNAL`, recorded in queue order like any command;
//! their access is not known to the hazard tracking, so work on either side
//! of them is ordered by full barriers.

use crate::cl::*;
use crate::context::Context;
use crate::event::Event;
use crate::memory::Mem;
use crate::queue::{Access, Queue};
use crate::vk_error;
use std::sync::Arc;

/// Whether a memory object was created from an external memory handle
/// (its storage, shared with its sub-buffers, is imported memory).
pub fn is_external(mem: &Mem) -> bool {
    mem.buffer.imported_from_fd()
}

/// A buffer of `size` bytes over the memory of the opaque file descriptor
/// `fd`, on the context's first device; on success the buffer owns `fd`.
/// `properties` is the list as given (`CL_MEM_PROPERTIES`).
pub fn import_opaque_fd(
    context: Arc<Context>,
    flags: cl_bitfield,
    size: usize,
    fd: i32,
    properties: Vec<u64>,
) -> Result<Arc<Mem>, cl_int> {
    let device = context.devices[0].backend()?;
    // SAFETY: the application gives a descriptor of exported memory at
    // least `size` bytes long, as the extension requires.
    let buffer = unsafe { device.import_memory_fd(fd, size as u64) }.map_err(|e| match e {
        ferrocl_vk::Error::Other(_) => CL_INVALID_VALUE,
        e => vk_error(e),
    })?;
    Ok(Mem::new_over_buffer(
        context,
        flags,
        size,
        0,
        Arc::new(buffer),
        0,
        properties,
    ))
}

/// `clEnqueueAcquireExternalMemObjectsKHR` (`acquire`) and
/// `clEnqueueReleaseExternalMemObjectsKHR` after the ICD's checks.
pub fn enqueue_ownership(
    queue: &Arc<Queue>,
    mems: Vec<Arc<Mem>>,
    acquire: bool,
    wait_list: &[Arc<Event>],
) -> Result<Arc<Event>, cl_int> {
    let command_type = if acquire {
        CL_COMMAND_ACQUIRE_EXTERNAL_MEM_OBJECTS_KHR
    } else {
        CL_COMMAND_RELEASE_EXTERNAL_MEM_OBJECTS_KHR
    };
    queue.enqueue_with_access(command_type, wait_list, Access::Unknown, move |r| {
        for mem in &mems {
            r.stream
                .external_ownership(&mem.buffer, acquire)
                .map_err(vk_error)?;
        }
        for mem in mems {
            r.keep(mem);
        }
        Ok(())
    })
}
