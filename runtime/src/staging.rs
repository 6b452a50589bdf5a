//! Host-visible staging buffers for transfers, reused across commands.
//!
//! A read, write, fill or map takes a staging buffer of a power-of-two size
//! class from its queue's pool; the buffer goes back when the last command
//! using it has completed (the [`Staging`] handle is dropped), so a steady
//! stream of transfers creates no Vulkan buffers.

use crate::cl::*;
use crate::vk_error;
use ferrocl_vk::{Buffer, MemoryLocation};
use parking_lot::Mutex;
use std::sync::Arc;

/// Smallest size class.
const MIN_CLASS: u64 = 4096;
/// Larger buffers are not kept for reuse.
const MAX_POOLED: u64 = 16 << 20;
/// Bytes of idle buffers a pool keeps.
const POOL_CAPACITY: u64 = 64 << 20;

struct Idle {
    buffers: Vec<(MemoryLocation, Arc<Buffer>)>,
    bytes: u64,
}

/// The staging buffers of one queue.
pub struct StagingPool {
    device: ferrocl_vk::Device,
    idle: Mutex<Idle>,
}

/// A staging buffer taken from a pool; returns to it on drop.
pub struct Staging {
    buffer: Option<Arc<Buffer>>,
    location: MemoryLocation,
    pool: Arc<StagingPool>,
}

impl StagingPool {
    pub fn new(device: ferrocl_vk::Device) -> Arc<StagingPool> {
        Arc::new(StagingPool {
            device,
            idle: Mutex::new(Idle {
                buffers: Vec::new(),
                bytes: 0,
            }),
        })
    }

    /// A mapped buffer of at least `size` bytes in `location`.
    pub fn take(
        self: &Arc<Self>,
        size: usize,
        location: MemoryLocation,
    ) -> Result<Staging, cl_int> {
        let class = (size as u64).max(1).next_power_of_two().max(MIN_CLASS);
        let reused = {
            let mut idle = self.idle.lock();
            let found = idle
                .buffers
                .iter()
                .position(|(l, b)| *l == location && b.size() == class);
            found.map(|i| {
                let (_, b) = idle.buffers.swap_remove(i);
                idle.bytes -= class;
                b
            })
        };
        let buffer = match reused {
            Some(b) => b,
            None => Arc::new(
                self.device
                    .create_buffer(class, location)
                    .map_err(vk_error)?,
            ),
        };
        if buffer.mapped_ptr().is_none() {
            return Err(CL_OUT_OF_RESOURCES);
        }
        Ok(Staging {
            buffer: Some(buffer),
            location,
            pool: self.clone(),
        })
    }
}

impl Staging {
    pub fn buffer(&self) -> &Arc<Buffer> {
        // Only Drop takes the buffer out.
        self.buffer
            .as_ref()
            .expect("staging buffer present until drop")
    }

    /// The mapped bytes (checked mapped when taken).
    pub fn ptr(&self) -> *mut u8 {
        self.buffer()
            .mapped_ptr()
            .map_or(std::ptr::null_mut(), |p| p.as_ptr())
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        let Some(buffer) = self.buffer.take() else {
            return;
        };
        let size = buffer.size();
        if size > MAX_POOLED {
            return;
        }
        let mut idle = self.pool.idle.lock();
        if idle.bytes + size <= POOL_CAPACITY {
            idle.bytes += size;
            idle.buffers.push((self.location, buffer));
        }
    }
}
