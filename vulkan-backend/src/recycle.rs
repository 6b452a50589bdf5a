//! Buffers kept a while after they are freed, for a new buffer of the same
//! size and memory location. Applications such as OpenCV create and
//! release their temporary buffers on every operation, the same sizes each
//! time; on NVIDIA's driver a buffer of a 1920x1080 image's size cost
//! 0.2-0.3 ms to create and as much to free (a memory block of its own, or
//! one gpu-allocator makes and frees with it), more than the kernels that
//! used it. A buffer taken from here keeps its `VkBuffer`, its memory and
//! its device address; its contents are whatever the last user left, which
//! OpenCL allows (a buffer made without host data has undefined contents).

use crate::memory::MemoryLocation;
use ash::vk;
use gpu_allocator::vulkan::Allocation;
use parking_lot::Mutex;
use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// The most bytes kept at once.
const KEPT_BYTES: u64 = 256 << 20;

/// The largest buffer kept.
const LARGEST_KEPT: u64 = 64 << 20;

/// The most buffers kept at once.
const KEPT_BUFFERS: usize = 64;

/// How long a buffer stays kept with no one taking it.
const KEPT_FOR: Duration = Duration::from_secs(2);

/// A freed buffer, bound to its memory, not yet destroyed.
pub(crate) struct Kept {
    pub raw: vk::Buffer,
    pub allocation: Allocation,
    pub size: u64,
    pub location: MemoryLocation,
    pub address: u64,
    freed: Instant,
}

impl Kept {
    pub fn new(
        raw: vk::Buffer,
        allocation: Allocation,
        size: u64,
        location: MemoryLocation,
        address: u64,
    ) -> Kept {
        Kept {
            raw,
            allocation,
            size,
            location,
            address,
            freed: Instant::now(),
        }
    }
}

/// The buffers kept for one device, oldest first.
#[derive(Default)]
pub(crate) struct Recycled {
    kept: Mutex<VecDeque<Kept>>,
}

impl Recycled {
    /// Whether a freed buffer of `size` bytes is worth keeping.
    pub fn keeps(size: u64) -> bool {
        size <= LARGEST_KEPT
    }

    /// A kept buffer of exactly `size` bytes in `location` whose device
    /// address is a multiple of `alignment`, the most recently freed
    /// first; also returns, for the caller to destroy, those kept too long.
    pub fn take(
        &self,
        size: u64,
        location: MemoryLocation,
        alignment: u64,
    ) -> (Option<Kept>, Vec<Kept>) {
        let mut kept = self.kept.lock();
        let stale = expire(&mut kept);
        let found = kept
            .iter()
            .rposition(|k| {
                k.size == size && k.location == location && k.address % alignment.max(1) == 0
            })
            .and_then(|i| kept.remove(i));
        (found, stale)
    }

    /// Keeps `buffer`; returns the buffers it pushes out (the oldest, past
    /// the limits) and those kept too long, for the caller to destroy.
    pub fn keep(&self, buffer: Kept) -> Vec<Kept> {
        let mut kept = self.kept.lock();
        let mut out = expire(&mut kept);
        kept.push_back(buffer);
        let mut bytes: u64 = kept.iter().map(|k| k.size).sum();
        while bytes > KEPT_BYTES || kept.len() > KEPT_BUFFERS {
            let Some(oldest) = kept.pop_front() else {
                break;
            };
            bytes -= oldest.size;
            out.push(oldest);
        }
        out
    }

    /// Every kept buffer, for the caller to destroy (device teardown, or
    /// memory needed for a new buffer).
    pub fn drain(&self) -> Vec<Kept> {
        self.kept.lock().drain(..).collect()
    }
}

/// Removes and returns the buffers kept longer than [`KEPT_FOR`].
fn expire(kept: &mut VecDeque<Kept>) -> Vec<Kept> {
    let mut out = Vec::new();
    while kept.front().is_some_and(|k| k.freed.elapsed() > KEPT_FOR) {
        out.extend(kept.pop_front());
    }
    out
}
