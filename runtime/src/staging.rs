//! Host-visible staging buffers for transfers, reused across commands.
//!
//! A read, write, fill or map takes a staging buffer of a power-of-two size
//! class from its queue's pool; the buffer goes back when the last command
//! using it has completed (the [`Staging`] handle is dropped), so a steady
//! stream of transfers creates no Vulkan buffers.
//!
//! The host half of a large transfer is spread over several threads
//! ([`host_copy`]). A read or write whose host pointer lies in a live
//! mapping of a staging buffer (mapped `CL_MEM_ALLOC_HOST_PTR` memory, the
//! "pinned" memory of OpenCL applications) skips the host copy: the GPU
//! copies to or from that staging buffer ([`mapped_staging`]). With
//! `FERROCL_HOST_IMPORT=1`, large transfers instead import the
//! application's own pages (VK_EXT_external_memory_host,
//! [`import_host_range`]) and the GPU copies them directly.

use crate::cl::*;
use crate::vk_error;
use ferrocl_vk::{Buffer, MemoryLocation};
use parking_lot::Mutex;
use std::sync::{Arc, Weak};

/// Smallest size class.
const MIN_CLASS: u64 = 4096;
/// Larger buffers are not kept for reuse. Allocating (and so pinning)
/// host-visible memory costs far more than copying through it: on an H100
/// (driver 580) a fresh 128 MiB staging buffer per map held a map at 3 GB/s,
/// and clpeak's 512 MiB reads ran at 2 GB/s, so buffers up to this size are
/// kept.
const MAX_POOLED: u64 = 1 << 30;
/// Whether a staging buffer of `size` bytes goes back to its pool when
/// dropped (if the pool has room).
pub fn pooled(size: u64) -> bool {
    size <= MAX_POOLED
}

/// The longest transfer one staging buffer carries: a staging buffer is
/// one allocation, which drivers cap at 2-4 GiB (maxMemoryAllocationSize),
/// while a device-local buffer bound sparsely may be far larger; longer
/// reads, writes and fills run as several commands, each with a staging
/// buffer the pool keeps.
pub const TRANSFER_PIECE: usize = MAX_POOLED as usize;

/// The size of the staging buffer that carries `size` bytes: a power of two
/// up to what the pool keeps; past it, the exact size in whole pages, as a
/// power of two could pass the driver's largest allocation (a 3 GiB map
/// would take 4 GiB, past NVIDIA's 4 GiB less 2 MiB).
fn size_class(size: u64) -> u64 {
    let size = size.max(1);
    if pooled(size) {
        size.next_power_of_two().max(MIN_CLASS)
    } else {
        size.next_multiple_of(MIN_CLASS)
    }
}

/// Bytes of idle buffers a pool keeps.
const POOL_CAPACITY: u64 = 1 << 30;

/// Transfers from this size on go straight between the application's
/// pages and the buffer when the pages can be imported; below it, pinning
/// them costs more than a staging copy.
pub const IMPORT_MIN_BYTES: usize = 4 << 20;

/// The smallest page size of the hosts ferrocl runs on: an import rounded
/// out to this alignment covers only pages that hold some of the
/// application's bytes, which are therefore mapped.
const MIN_PAGE_SIZE: u64 = 4096;

/// Host ranges of live `clEnqueueMapBuffer` mappings that are staging
/// buffers: a read or write whose host pointer lies in one (the "pinned"
/// memory of a mapped `CL_MEM_ALLOC_HOST_PTR` buffer) is a GPU copy from or
/// to that staging buffer, with no host copy.
/// Each entry: start, length, the staging buffer, and the device it lives
/// on (a copy may only join buffers of one Vulkan device).
static MAPPED_STAGING: Mutex<Vec<MappedStaging>> = Mutex::new(Vec::new());

struct MappedStaging {
    ptr: usize,
    len: usize,
    buffer: Weak<Buffer>,
    device: usize,
}

/// The identity [`register_mapping`] and [`mapped_staging`] compare
/// devices by.
pub fn device_key(device: &crate::device::Device) -> usize {
    device as *const crate::device::Device as usize
}

/// Records that `[ptr, ptr + len)` is the mapped memory of `buffer`, a
/// buffer of the device with [`device_key`] `device`, until
/// [`unregister_mapping`].
pub fn register_mapping(ptr: usize, len: usize, buffer: &Arc<Buffer>, device: usize) {
    MAPPED_STAGING.lock().push(MappedStaging {
        ptr,
        len,
        buffer: Arc::downgrade(buffer),
        device,
    });
}

/// Forgets the mapping registered at `ptr` (the latest one, when a staging
/// buffer was mapped twice).
pub fn unregister_mapping(ptr: usize) {
    let mut mapped = MAPPED_STAGING.lock();
    if let Some(i) = mapped.iter().rposition(|m| m.ptr == ptr) {
        mapped.swap_remove(i);
    }
}

/// The staging buffer of device `device` whose live mapping holds
/// `[ptr, ptr + len)`, and the offset of `ptr` in it.
pub fn mapped_staging(ptr: usize, len: usize, device: usize) -> Option<(Arc<Buffer>, u64)> {
    let mapped = MAPPED_STAGING.lock();
    mapped.iter().rev().find_map(|m| {
        let inside = m.device == device && ptr >= m.ptr && ptr.checked_add(len)? <= m.ptr + m.len;
        let buffer = m.buffer.upgrade().filter(|_| inside)?;
        let base = buffer.mapped_ptr()?.as_ptr() as usize;
        Some((buffer, (ptr - base) as u64))
    })
}

/// `FERROCL_HOST_IMPORT=1` turns the direct path on. It is off by default:
/// on an H100 (driver 580) importing 128 MiB of pageable memory per call
/// cost more than the copy it saved (9 GB/s end to end either way), while
/// the parallel host copy through pooled staging is faster.
pub fn host_import_requested() -> bool {
    static ENABLED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ENABLED.get_or_init(|| std::env::var("FERROCL_HOST_IMPORT").is_ok_and(|v| v == "1"))
}

/// Each thread of a parallel host copy moves at least this many bytes.
/// Small enough that a 16 MiB chunk of a read (`memory::READ_CHUNK`) is
/// copied out by sixteen threads (`copy_pool::max_threads`): with 8 MiB
/// per thread a 128 MiB read in 32 MiB chunks ran at 16.6 GB/s on an
/// H100, with 2 MiB and 16 MiB chunks at 26.1-26.3 GB/s; 512 KiB pieces
/// of 8 MiB chunks were no faster than 1 MiB pieces of 16 MiB chunks.
const PARALLEL_COPY_CHUNK: usize = 1 << 20;

/// `copy_nonoverlapping` of `len` bytes, spread over several threads when
/// large (`crate::copy_pool`): host copies into and out of staging (and
/// into write-combined device memory) are then no longer the slow half of
/// a transfer.
///
/// # Safety
///
/// As for `std::ptr::copy_nonoverlapping`: `src` readable and `dst`
/// writable for `len` bytes, the two ranges disjoint.
pub unsafe fn host_copy(src: *const u8, dst: *mut u8, len: usize) {
    let threads = (len / PARALLEL_COPY_CHUNK).min(crate::copy_pool::max_threads());
    // SAFETY: the caller's contract.
    unsafe { crate::copy_pool::copy(src, dst, len, threads) };
}

/// The application's bytes `[ptr, ptr + len)` as a buffer the GPU can copy
/// to and from: the pages around them imported with
/// VK_EXT_external_memory_host. Returns the buffer and the offset of `ptr`
/// in it, or `None` (then stage) when the transfer is small, the import
/// is not turned on (`FERROCL_HOST_IMPORT=1`) and the transfer fits a
/// pooled staging buffer, the device
/// lacks the extension, or the driver refuses these pages (read-only or
/// file-backed memory, for instance).
///
/// # Safety
///
/// The bytes must stay allocated and mapped until every command using the
/// buffer has completed; OpenCL requires that of the pointer of a read or
/// write until its command completes, and the caller keeps the buffer
/// alive exactly that long.
pub unsafe fn import_host_range(
    device: &ferrocl_vk::Device,
    ptr: usize,
    len: usize,
) -> Option<(Arc<Buffer>, u64)> {
    // Past the largest pooled staging buffer, each staged transfer would
    // allocate one: importing the pages is then the cheaper way.
    let past_pool = len as u64 > MAX_POOLED;
    if len < IMPORT_MIN_BYTES || !(host_import_requested() || past_pool) {
        return None;
    }
    // SAFETY: the caller's contract.
    unsafe { import_pages(device, ptr, len) }
}

/// The pages around `[ptr, ptr + len)` imported as a buffer, and the offset
/// of `ptr` in it.
///
/// # Safety
///
/// As for [`import_host_range`].
unsafe fn import_pages(
    device: &ferrocl_vk::Device,
    ptr: usize,
    len: usize,
) -> Option<(Arc<Buffer>, u64)> {
    let info = device.info();
    if !info.features.external_memory_host {
        return None;
    }
    let alignment = info.limits.min_imported_host_pointer_alignment.max(1);
    if alignment > MIN_PAGE_SIZE {
        return None;
    }
    let start = ptr as u64 & !(alignment - 1);
    let end = (ptr as u64)
        .checked_add(len as u64)?
        .checked_next_multiple_of(alignment)?;
    let host = std::ptr::NonNull::new(start as *mut u8)?;
    // SAFETY: the pages from `start` to `end` each hold some of the
    // caller's bytes, so they are mapped, and stay so as the caller
    // promises.
    let buffer = unsafe { device.import_host_memory(host, end - start) }.ok()?;
    Some((Arc::new(buffer), ptr as u64 - start))
}

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
        let class = size_class(size as u64);
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
        if !pooled(size) {
            return;
        }
        let mut idle = self.pool.idle.lock();
        if idle.bytes + size <= POOL_CAPACITY {
            idle.bytes += size;
            idle.buffers.push((self.location, buffer));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn staging_sizes_are_pool_classes_then_whole_pages() {
        assert_eq!(size_class(0), MIN_CLASS);
        assert_eq!(size_class(5000), 8192);
        assert_eq!(size_class(MAX_POOLED), MAX_POOLED);
        assert_eq!(size_class(MAX_POOLED + 1), MAX_POOLED + MIN_CLASS);
        let three_gib = 3 << 30;
        assert_eq!(size_class(three_gib - 100), three_gib);
    }

    #[test]
    fn parallel_host_copy_copies_every_byte() {
        for len in [0, 1, 4095, PARALLEL_COPY_CHUNK * 3 + 12345] {
            let src: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
            let mut dst = vec![0u8; len];
            // SAFETY: two distinct vectors of `len` bytes.
            unsafe { host_copy(src.as_ptr(), dst.as_mut_ptr(), len) };
            assert!(src == dst, "{len} bytes");
        }
    }

    /// A large, unaligned range of an ordinary heap vector imports as the
    /// pages around it, with the offset pointing at its first byte; small
    /// ranges are left to staging.
    #[test]
    fn heap_ranges_import_around_their_pages() {
        let instance = ferrocl_vk::Instance::new();
        let Some(index) = (0..instance.devices().len())
            .find(|&i| instance.devices()[i].features.external_memory_host)
        else {
            return;
        };
        let device = instance.open_device(index).expect("open the Vulkan device");
        let mut data = vec![7u8; IMPORT_MIN_BYTES + 8192];
        let ptr = data.as_mut_ptr() as usize + 100;
        // SAFETY: `data` outlives the buffer, dropped at the end of scope.
        let imported = unsafe { import_pages(&device, ptr, IMPORT_MIN_BYTES) };
        if let Some((buffer, at)) = imported {
            assert_eq!(
                buffer
                    .mapped_ptr()
                    .map(|p| p.as_ptr() as usize + at as usize),
                Some(ptr)
            );
            assert!(buffer.size() >= at + IMPORT_MIN_BYTES as u64);
            drop(buffer);
        }
        // SAFETY: as above.
        assert!(unsafe { import_host_range(&device, ptr, 4096) }.is_none());
        drop(data);
    }
}
