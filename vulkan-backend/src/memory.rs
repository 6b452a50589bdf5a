//! Buffers and their memory. Each OpenCL memory object is one `VkBuffer` on
//! memory sub-allocated by gpu-allocator (or a dedicated allocation where the
//! driver asks for one), always with a device address, persistently mapped
//! when host-visible.

use crate::device::{Device, DeviceShared};
use crate::error::{allocation_vk_error, allocator_error, Error, Result};
use crate::recycle::{Kept, Recycled};
use ash::vk;
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme};
use std::ffi::c_void;
use std::ptr::NonNull;
use std::sync::Arc;

/// Where a buffer's memory lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemoryLocation {
    /// DEVICE_LOCAL; may also be host-visible (then mapped).
    DeviceLocal,
    /// Host-visible, meant for host writes read by the device (staging in).
    HostToDevice,
    /// Host-visible and cached, meant for device writes read by the host.
    DeviceToHost,
}

/// The host address of a mapped buffer.
#[derive(Clone, Copy)]
struct MappedPtr(NonNull<u8>);

// SAFETY: the pointer is a persistent mapping of device memory owned by the
// buffer; it is valid from any thread, and the buffer never dereferences it
// itself, so sharing it adds no data race of the buffer's own.
unsafe impl Send for MappedPtr {}
// SAFETY: as above.
unsafe impl Sync for MappedPtr {}

/// What a buffer's memory is.
enum Backing {
    /// A range of gpu-allocator's blocks (or a dedicated allocation of it).
    Pooled(Allocation),
    /// Application memory imported with VK_EXT_external_memory_host; the
    /// `VkDeviceMemory` is ours, the pages stay the application's.
    ImportedHost(vk::DeviceMemory),
    /// Memory another API exported as an opaque file descriptor
    /// (VK_KHR_external_memory_fd); the import owns a reference to it.
    ImportedFd(vk::DeviceMemory),
    /// Device-local allocations of ours, outside gpu-allocator: several of
    /// at most maxMemoryAllocationSize each, bound in order to a buffer
    /// created with SPARSE_BINDING, or one past that size, which the
    /// driver accepted.
    Owned(Vec<vk::DeviceMemory>),
}

/// A buffer and its memory; freed on drop. The runtime keeps it alive
/// until the commands that use it have completed.
pub struct Buffer {
    device: Arc<DeviceShared>,
    pub(crate) raw: vk::Buffer,
    memory: Option<Backing>,
    size: u64,
    address: u64,
    mapped: Option<MappedPtr>,
    host_cached: bool,
    /// The memory is not DEVICE_LOCAL: on a discrete GPU, host memory
    /// reached across the bus.
    system_memory: bool,
    /// Host pages at the device address of a coarse-grained SVM buffer
    /// whose own mapping (if any) lies elsewhere.
    mirror: Option<HostMirror>,
    /// Where a buffer of gpu-allocator's memory made by
    /// [`Device::create_aligned_buffer`] lives: such a buffer is kept for
    /// a new one when freed (`crate::recycle`).
    location: Option<MemoryLocation>,
}

impl Buffer {
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Device address of byte 0.
    pub fn device_address(&self) -> u64 {
        self.address
    }

    /// Pointer to byte 0 when host-visible and mapped. The memory is always
    /// HOST_COHERENT (a non-coherent mapping is not offered), and every
    /// submission ends with a barrier that makes device writes visible to
    /// the host once its timeline value is reached.
    pub fn mapped_ptr(&self) -> Option<NonNull<u8>> {
        self.mapped.map(|m| m.0)
    }

    /// The mapping is HOST_CACHED, so host reads through it run at memory
    /// speed. Uncached device-local memory (ReBAR on a discrete GPU) is fast
    /// to write from the host but very slow to read: read it back through a
    /// `DeviceToHost` buffer instead.
    pub fn host_cached(&self) -> bool {
        self.host_cached
    }

    /// The memory is not DEVICE_LOCAL (see `Device::copy_on_compute`).
    pub fn system_memory(&self) -> bool {
        self.system_memory
    }

    /// The memory was imported from a file descriptor
    /// ([`Device::import_memory_fd`]).
    pub fn imported_from_fd(&self) -> bool {
        matches!(self.memory, Some(Backing::ImportedFd(_)))
    }

    /// How the device address of a buffer made by
    /// [`Device::create_svm_buffer`] is also a host address; `None` for
    /// other buffers.
    pub fn svm_host_view(&self) -> Option<SvmHostView> {
        if self.mirror.is_some() {
            Some(SvmHostView::Mirror)
        } else if self.mapped_ptr().map(|p| p.as_ptr() as u64) == Some(self.address) {
            Some(SvmHostView::Shared)
        } else {
            None
        }
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        if let (Some(Backing::Pooled(_)), None, Some(location)) =
            (&self.memory, &self.mirror, self.location)
        {
            if Recycled::keeps(self.size) {
                if let Some(Backing::Pooled(allocation)) = self.memory.take() {
                    let kept = Kept::new(self.raw, allocation, self.size, location, self.address);
                    destroy_kept(&self.device, self.device.recycled.keep(kept));
                    return;
                }
            }
        }
        // SAFETY: the runtime and the command streams keep a buffer alive
        // until every command using it has completed.
        unsafe { self.device.raw.destroy_buffer(self.raw, None) };
        match self.memory.take() {
            Some(Backing::Pooled(allocation)) => free_pooled(&self.device, allocation),
            Some(Backing::ImportedHost(memory) | Backing::ImportedFd(memory)) => {
                // SAFETY: the buffer bound to it is destroyed above; the
                // application's pages, or the exporter's memory, stay
                // theirs.
                unsafe { self.device.raw.free_memory(memory, None) };
            }
            Some(Backing::Owned(memories)) => free_memories(&self.device, &memories),
            None => {}
        }
    }
}

/// Gives `allocation` back to gpu-allocator.
fn free_pooled(shared: &DeviceShared, allocation: Allocation) {
    if let Some(allocator) = shared.allocator.lock().as_mut() {
        // A failure here only leaks the range; nothing to report to.
        let _ = allocator.free(allocation);
    }
}

/// Destroys buffers the recycler let go of.
pub(crate) fn destroy_kept(shared: &DeviceShared, kept: Vec<Kept>) {
    for k in kept {
        // SAFETY: a kept buffer was freed by its last user, after every
        // command using it completed, and nothing took it since.
        unsafe { shared.raw.destroy_buffer(k.raw, None) };
        free_pooled(shared, k.allocation);
    }
}

/// A buffer of gpu-allocator's memory, bound, with its device address.
fn pooled_buffer(
    shared: &Arc<DeviceShared>,
    raw: vk::Buffer,
    allocation: Allocation,
    size: u64,
    address: u64,
    location: MemoryLocation,
) -> Buffer {
    let mapped = mapping_of(&allocation);
    let host_cached = mapped.is_some()
        && allocation
            .memory_properties()
            .contains(vk::MemoryPropertyFlags::HOST_CACHED);
    let system_memory = !allocation
        .memory_properties()
        .contains(vk::MemoryPropertyFlags::DEVICE_LOCAL);
    Buffer {
        device: Arc::clone(shared),
        raw,
        memory: Some(Backing::Pooled(allocation)),
        size,
        address,
        mapped,
        host_cached,
        system_memory,
        mirror: None,
        location: Some(location),
    }
}

impl Device {
    /// A buffer of `size` bytes (> 0) usable as storage buffer, transfer
    /// source and destination, with SHADER_DEVICE_ADDRESS.
    pub fn create_buffer(&self, size: u64, location: MemoryLocation) -> Result<Buffer> {
        self.create_aligned_buffer(size, location, 1)
    }

    /// [`Device::create_buffer`] with the device address a multiple of
    /// `min_alignment` (a power of two).
    pub fn create_aligned_buffer(
        &self,
        size: u64,
        location: MemoryLocation,
        min_alignment: u64,
    ) -> Result<Buffer> {
        let shared = &self.shared;
        if size == 0 {
            return Err(Error::Other(
                "zero-size buffer requested; the caller must reject it".to_string(),
            ));
        }
        let limits = &shared.info.limits;
        if size > limits.max_buffer_size {
            return Err(Error::OutOfDeviceMemory);
        }
        if size > limits.max_allocation_size {
            // Only device-local buffers go past one allocation: host-visible
            // ones are mapped whole.
            if location != MemoryLocation::DeviceLocal {
                return Err(Error::OutOfDeviceMemory);
            }
            let mut refused = Error::OutOfDeviceMemory;
            if one_allocation_past_the_limit() {
                let one = PastTheLimit::OneAllocation;
                match create_past_limit_buffer(shared, size, min_alignment, one) {
                    Ok(buffer) => return Ok(buffer),
                    Err(e) => refused = e,
                }
            }
            if !shared.info.features.sparse_binding {
                return Err(refused);
            }
            return create_past_limit_buffer(shared, size, min_alignment, PastTheLimit::Sparse);
        }
        let (found, stale) = shared.recycled.take(size, location, min_alignment);
        destroy_kept(shared, stale);
        if let Some(k) = found {
            return Ok(pooled_buffer(
                shared,
                k.raw,
                k.allocation,
                size,
                k.address,
                location,
            ));
        }
        match new_pooled_buffer(shared, size, location, min_alignment) {
            // Memory the kept buffers hold may be what is missing.
            Err(Error::OutOfDeviceMemory) => {
                destroy_kept(shared, shared.recycled.drain());
                new_pooled_buffer(shared, size, location, min_alignment)
            }
            made => made,
        }
    }
}

/// A new buffer of gpu-allocator's memory (see
/// [`Device::create_aligned_buffer`]).
fn new_pooled_buffer(
    shared: &Arc<DeviceShared>,
    size: u64,
    location: MemoryLocation,
    min_alignment: u64,
) -> Result<Buffer> {
    let info = vk::BufferCreateInfo::default()
        .size(size)
        .usage(crate::info::BUFFER_USAGE)
        .sharing_mode(vk::SharingMode::EXCLUSIVE);
    // SAFETY: the device is alive; size is within maxBufferSize.
    let raw = unsafe { shared.raw.create_buffer(&info, None) }
        .map_err(|e| allocation_vk_error("vkCreateBuffer", e))?;
    match allocate_and_bind(shared, raw, location, min_alignment) {
        Ok((allocation, address)) => Ok(pooled_buffer(
            shared, raw, allocation, size, address, location,
        )),
        Err(e) => {
            // SAFETY: created above, never bound or used.
            unsafe { shared.raw.destroy_buffer(raw, None) };
            Err(e)
        }
    }
}

/// Whether a device-local buffer larger than maxMemoryAllocationSize is
/// first tried as one allocation, which the spec lets a driver refuse with
/// VK_ERROR_OUT_OF_DEVICE_MEMORY, before sparse binding. NVIDIA's driver
/// accepts it, and random 1 KiB reads
/// across a 66 GiB buffer (hashcat's scrypt at its default trade-off) ran
/// 3.8 times as long sparsely bound as in one allocation on an H200 (2.84
/// against 0.74 ms; 16.5 GiB: no difference; smaller pages for sparse
/// resources would explain it, not verified). `FERROCL_LARGE_BUFFERS=sparse`
/// binds such buffers sparsely (`=one`, the default, tries one allocation
/// first), to compare the two and to test both on any device that binds
/// sparse memory.
fn one_allocation_past_the_limit() -> bool {
    static ONE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ONE.get_or_init(|| std::env::var("FERROCL_LARGE_BUFFERS").map_or(true, |v| v != "sparse"))
}

/// How a device-local buffer larger than maxMemoryAllocationSize gets its
/// memory.
#[derive(Clone, Copy, PartialEq, Eq)]
enum PastTheLimit {
    /// One dedicated allocation of its whole size, which the driver may
    /// refuse.
    OneAllocation,
    /// Created with SPARSE_BINDING and bound, through the device's queue,
    /// to as many allocations of at most maxMemoryAllocationSize as it
    /// needs (each a whole number of the buffer's sparse blocks).
    Sparse,
}

/// A device-local buffer of `size` bytes, more than one allocation holds,
/// with its memory bound `how`. It has no mapping: the runtime reaches it
/// through copies, as any unmapped device memory.
fn create_past_limit_buffer(
    shared: &Arc<DeviceShared>,
    size: u64,
    min_alignment: u64,
    how: PastTheLimit,
) -> Result<Buffer> {
    let flags = match how {
        PastTheLimit::OneAllocation => vk::BufferCreateFlags::empty(),
        PastTheLimit::Sparse => vk::BufferCreateFlags::SPARSE_BINDING,
    };
    let info = vk::BufferCreateInfo::default()
        .size(size)
        .usage(crate::info::BUFFER_USAGE)
        .flags(flags)
        .sharing_mode(vk::SharingMode::EXCLUSIVE);
    // SAFETY: the device is alive, with sparseBinding on for a sparse
    // buffer; size is within maxBufferSize (and the sparse address space).
    let raw = unsafe { shared.raw.create_buffer(&info, None) }
        .map_err(|e| allocation_vk_error("vkCreateBuffer", e))?;
    let mut memories = Vec::new();
    let bound = match how {
        PastTheLimit::OneAllocation => bind_dedicated(shared, raw, &mut memories),
        PastTheLimit::Sparse => bind_sparse(shared, raw, &mut memories),
    };
    owned_buffer(shared, raw, memories, bound, size, min_alignment)
}

/// Allocates one dedicated allocation for `buffer` (pushed onto
/// `memories`, which the caller frees on failure) and binds it.
fn bind_dedicated(
    shared: &DeviceShared,
    buffer: vk::Buffer,
    memories: &mut Vec<vk::DeviceMemory>,
) -> Result<()> {
    // SAFETY: `buffer` is a live buffer of this device.
    let requirements = unsafe { shared.raw.get_buffer_memory_requirements(buffer) };
    let device_local = vk::MemoryPropertyFlags::DEVICE_LOCAL;
    let type_index = memory_type(shared, requirements.memory_type_bits, device_local)
        .ok_or(Error::OutOfDeviceMemory)?;
    let mut flags =
        vk::MemoryAllocateFlagsInfo::default().flags(vk::MemoryAllocateFlags::DEVICE_ADDRESS);
    let mut dedicated = vk::MemoryDedicatedAllocateInfo::default().buffer(buffer);
    let allocate = vk::MemoryAllocateInfo::default()
        .allocation_size(requirements.size)
        .memory_type_index(type_index)
        .push_next(&mut flags)
        .push_next(&mut dedicated);
    // SAFETY: a type the buffer accepts; past maxMemoryAllocationSize the
    // driver may answer VK_ERROR_OUT_OF_DEVICE_MEMORY.
    let memory = unsafe { shared.raw.allocate_memory(&allocate, None) }
        .map_err(|e| allocation_vk_error("vkAllocateMemory", e))?;
    memories.push(memory);
    // SAFETY: the allocation is the buffer's dedicated one, of its size.
    unsafe { shared.raw.bind_buffer_memory(buffer, memory, 0) }
        .map_err(|e| allocation_vk_error("vkBindBufferMemory", e))
}

/// The [`Buffer`] of `raw`, bound (where `bound` is `Ok`) to `memories`,
/// which it then owns; its device address must be a multiple of
/// `min_alignment`, since the driver placed it. On any failure the buffer
/// is destroyed and the memories freed.
fn owned_buffer(
    shared: &Arc<DeviceShared>,
    raw: vk::Buffer,
    memories: Vec<vk::DeviceMemory>,
    bound: Result<()>,
    size: u64,
    min_alignment: u64,
) -> Result<Buffer> {
    let address = bound.and_then(|()| {
        let address_info = vk::BufferDeviceAddressInfo::default().buffer(raw);
        // SAFETY: the buffer has SHADER_DEVICE_ADDRESS usage and is bound
        // whole to memory allocated with the DEVICE_ADDRESS flag.
        let address = unsafe { shared.raw.get_buffer_device_address(&address_info) };
        if address % min_alignment.max(1) == 0 {
            Ok(address)
        } else {
            Err(Error::Other(format!(
                "the driver placed a buffer of {size} bytes at {address:#x}, not a multiple \
                 of {min_alignment}"
            )))
        }
    });
    match address {
        Ok(address) => Ok(Buffer {
            device: Arc::clone(shared),
            raw,
            memory: Some(Backing::Owned(memories)),
            size,
            address,
            mapped: None,
            host_cached: false,
            system_memory: false,
            mirror: None,
            location: None,
        }),
        Err(e) => {
            // SAFETY: no command has used the buffer; a sparse bind
            // completed or was never submitted.
            unsafe { shared.raw.destroy_buffer(raw, None) };
            free_memories(shared, &memories);
            Err(e)
        }
    }
}

/// Allocates the memory of sparse buffer `buffer` (pushing each allocation
/// onto `memories`, which the caller frees on failure) and binds it, waiting
/// until the binding is done so that any later submission sees it.
fn bind_sparse(
    shared: &DeviceShared,
    buffer: vk::Buffer,
    memories: &mut Vec<vk::DeviceMemory>,
) -> Result<()> {
    // SAFETY: `buffer` is a live buffer of this device.
    let requirements = unsafe { shared.raw.get_buffer_memory_requirements(buffer) };
    let block = requirements.alignment.max(1);
    let piece = shared.info.limits.max_allocation_size / block * block;
    let device_local = vk::MemoryPropertyFlags::DEVICE_LOCAL;
    let type_index = memory_type(shared, requirements.memory_type_bits, device_local)
        .filter(|_| piece > 0)
        .ok_or(Error::OutOfDeviceMemory)?;
    let mut binds = Vec::new();
    let mut offset = 0;
    while offset < requirements.size {
        let len = piece.min(requirements.size - offset);
        let mut flags =
            vk::MemoryAllocateFlagsInfo::default().flags(vk::MemoryAllocateFlags::DEVICE_ADDRESS);
        let allocate = vk::MemoryAllocateInfo::default()
            .allocation_size(len)
            .memory_type_index(type_index)
            .push_next(&mut flags);
        // SAFETY: the size is within maxMemoryAllocationSize and the type
        // is one the buffer accepts.
        let memory = unsafe { shared.raw.allocate_memory(&allocate, None) }
            .map_err(|e| allocation_vk_error("vkAllocateMemory", e))?;
        memories.push(memory);
        binds.push(vk::SparseMemoryBind {
            resource_offset: offset,
            size: len,
            memory,
            memory_offset: 0,
            flags: vk::SparseMemoryBindFlags::empty(),
        });
        offset += len;
    }
    let buffer_binds = [vk::SparseBufferMemoryBindInfo::default()
        .buffer(buffer)
        .binds(&binds)];
    let bind = [vk::BindSparseInfo::default().buffer_binds(&buffer_binds)];
    // SAFETY: the device is alive.
    let fence = unsafe {
        shared
            .raw
            .create_fence(&vk::FenceCreateInfo::default(), None)
    }
    .map_err(|e| allocation_vk_error("vkCreateFence", e))?;
    let done = {
        let queue = shared.queue.lock();
        // SAFETY: the queue is externally synchronized by its lock and its
        // family binds sparse memory; the memory and buffer are live.
        unsafe { shared.raw.queue_bind_sparse(*queue, &bind, fence) }
    }
    .and_then(|()| {
        // SAFETY: the fence was submitted just above.
        unsafe { shared.raw.wait_for_fences(&[fence], true, u64::MAX) }
    });
    // SAFETY: the bind has completed or was never submitted.
    unsafe { shared.raw.destroy_fence(fence, None) };
    done.map_err(|e| allocation_vk_error("vkQueueBindSparse", e))
}

/// The first memory type among `allowed` (bit i = type i) with every flag
/// of `want`.
fn memory_type(shared: &DeviceShared, allowed: u32, want: vk::MemoryPropertyFlags) -> Option<u32> {
    (0..shared.memory_types.len() as u32)
        .find(|&i| allowed & (1 << i) != 0 && shared.memory_types[i as usize].contains(want))
}

/// Frees the allocations of a sparse buffer that is destroyed or was never
/// used.
fn free_memories(shared: &DeviceShared, memories: &[vk::DeviceMemory]) {
    for &memory in memories {
        // SAFETY: the buffer bound to it is destroyed, or never used.
        unsafe { shared.raw.free_memory(memory, None) };
    }
}

/// Host pointer of a host-coherent mapping; non-coherent memory would need
/// flushes the runtime does not do, so it is not offered.
fn mapping_of(allocation: &Allocation) -> Option<MappedPtr> {
    let coherent = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
    if !allocation.memory_properties().contains(coherent) {
        return None;
    }
    allocation.mapped_ptr().map(|p| MappedPtr(p.cast::<u8>()))
}

/// Allocates memory for `buffer` at an offset that is a multiple of
/// `min_alignment` (besides the buffer's own requirement), binds it, and
/// returns the allocation and the buffer's device address.
fn allocate_and_bind(
    shared: &DeviceShared,
    buffer: vk::Buffer,
    location: MemoryLocation,
    min_alignment: u64,
) -> Result<(Allocation, u64)> {
    let mut dedicated = vk::MemoryDedicatedRequirements::default();
    let mut requirements = vk::MemoryRequirements2::default().push_next(&mut dedicated);
    let query = vk::BufferMemoryRequirementsInfo2::default().buffer(buffer);
    // SAFETY: `buffer` is a live buffer of this device.
    unsafe {
        shared
            .raw
            .get_buffer_memory_requirements2(&query, &mut requirements)
    };
    let mut requirements = requirements.memory_requirements;
    requirements.alignment = requirements.alignment.max(min_alignment);
    let scheme = if dedicated.prefers_dedicated_allocation == vk::TRUE
        || dedicated.requires_dedicated_allocation == vk::TRUE
    {
        AllocationScheme::DedicatedBuffer(buffer)
    } else {
        AllocationScheme::GpuAllocatorManaged
    };
    let allocation = {
        let mut guard = shared.allocator.lock();
        let allocator = guard
            .as_mut()
            .ok_or_else(|| Error::Other("device is being destroyed".to_string()))?;
        let mut attempt = |requirements: vk::MemoryRequirements,
                           location: gpu_allocator::MemoryLocation| {
            allocator.allocate(&AllocationCreateDesc {
                name: "ferrocl buffer",
                requirements,
                location,
                linear: true,
                allocation_scheme: scheme,
            })
        };
        match location {
            MemoryLocation::DeviceLocal => {
                // Where device-local memory is also host-visible over the
                // whole heap (ReBAR, unified memory), use it so that the
                // runtime reads and writes it in place instead of staging.
                let mappable =
                    requirements.memory_type_bits & shared.host_visible_device_local_types;
                let in_place = if mappable != 0 {
                    let only_mappable = vk::MemoryRequirements {
                        memory_type_bits: mappable,
                        ..requirements
                    };
                    attempt(only_mappable, gpu_allocator::MemoryLocation::CpuToGpu).ok()
                } else {
                    None
                };
                match in_place {
                    Some(allocation) => Ok(allocation),
                    None => attempt(requirements, gpu_allocator::MemoryLocation::GpuOnly),
                }
            }
            MemoryLocation::HostToDevice => {
                attempt(requirements, gpu_allocator::MemoryLocation::CpuToGpu)
            }
            MemoryLocation::DeviceToHost => {
                attempt(requirements, gpu_allocator::MemoryLocation::GpuToCpu)
            }
        }
        .map_err(allocator_error)?
    };
    // SAFETY: the memory handle is only bound here, never freed or mapped
    // behind the allocator's back.
    let memory = unsafe { allocation.memory() };
    // SAFETY: the allocation satisfies the buffer's requirements and is not
    // bound to anything else; the offset is aligned by the allocator.
    let bound = unsafe {
        shared
            .raw
            .bind_buffer_memory(buffer, memory, allocation.offset())
    };
    if let Err(e) = bound {
        if let Some(allocator) = shared.allocator.lock().as_mut() {
            let _ = allocator.free(allocation);
        }
        return Err(allocation_vk_error("vkBindBufferMemory", e));
    }
    let address_info = vk::BufferDeviceAddressInfo::default().buffer(buffer);
    // SAFETY: the buffer has SHADER_DEVICE_ADDRESS usage and bound memory
    // allocated with the DEVICE_ADDRESS flag (bufferDeviceAddress is on).
    let address = unsafe { shared.raw.get_buffer_device_address(&address_info) };
    Ok((allocation, address))
}

impl Device {
    /// A buffer over `size` bytes of application memory at `host` (for
    /// `CL_MEM_USE_HOST_PTR`), imported with VK_EXT_external_memory_host so
    /// the device reads and writes the application's own pages.
    /// [`Buffer::mapped_ptr`] returns `host`. `host` and `size` must be
    /// multiples of `Limits::min_imported_host_pointer_alignment`; devices
    /// without the extension, or memory the driver cannot import, answer
    /// `Error::Other` and the caller falls back to a copy.
    ///
    /// # Safety
    ///
    /// `host` must point to `size` readable and writable bytes that stay
    /// allocated (and are not unmapped or remapped) until the returned
    /// buffer is dropped and every command using it has completed.
    pub unsafe fn import_host_memory(&self, host: NonNull<u8>, size: u64) -> Result<Buffer> {
        let shared = &self.shared;
        let Some(external) = &shared.external_memory_host else {
            return Err(Error::Other(
                "VK_EXT_external_memory_host is not available".to_string(),
            ));
        };
        let alignment = shared
            .info
            .limits
            .min_imported_host_pointer_alignment
            .max(1);
        // Vulkan makes the alignment a power of two.
        if size == 0 || ((host.as_ptr() as u64) | size) & (alignment - 1) != 0 {
            return Err(Error::Other(format!(
                "host memory to import must be a non-empty multiple of {alignment} bytes \
                 at an address aligned to it"
            )));
        }
        if size > shared.info.limits.max_allocation_size {
            return Err(Error::OutOfDeviceMemory);
        }
        let handle_type = vk::ExternalMemoryHandleTypeFlags::HOST_ALLOCATION_EXT;
        let mut host_props = vk::MemoryHostPointerPropertiesEXT::default();
        // SAFETY: the extension is enabled; the caller vouches for the
        // pointer; the output struct is valid for writing.
        let result = unsafe {
            (external.fp().get_memory_host_pointer_properties_ext)(
                shared.raw.handle(),
                handle_type,
                host.as_ptr().cast::<c_void>().cast_const(),
                &mut host_props,
            )
        };
        if result != vk::Result::SUCCESS {
            return Err(Error::Other(format!(
                "this host memory cannot be imported ({result})"
            )));
        }

        let importable = shared.instance.raw.as_ref().is_some_and(|raw| {
            crate::info::buffers_importable(&raw.instance, shared.physical, handle_type)
        });
        if !importable {
            return Err(Error::Other(
                "the device cannot import host memory into storage buffers".to_string(),
            ));
        }
        let (buffer, requirements) = external_buffer(shared, size, handle_type)?;
        let allowed = requirements.memory_type_bits & host_props.memory_type_bits;
        let coherent = vk::MemoryPropertyFlags::HOST_COHERENT;
        let pick = |want: vk::MemoryPropertyFlags| memory_type(shared, allowed, want);
        let Some(type_index) = pick(coherent).or_else(|| pick(vk::MemoryPropertyFlags::empty()))
        else {
            // SAFETY: created above, never bound.
            unsafe { shared.raw.destroy_buffer(buffer, None) };
            return Err(Error::Other(
                "no memory type can hold both this buffer and imported host memory".to_string(),
            ));
        };

        let mut import = vk::ImportMemoryHostPointerInfoEXT::default()
            .handle_type(handle_type)
            .host_pointer(host.as_ptr().cast::<c_void>());
        // SAFETY: the import info names memory the caller keeps alive, with
        // size and address aligned to minImportedHostPointerAlignment.
        let (memory, address) =
            unsafe { bind_imported(shared, buffer, size, type_index, &mut import)? };
        let mapped = shared.memory_types[type_index as usize]
            .contains(coherent)
            .then_some(MappedPtr(host));
        Ok(Buffer {
            device: Arc::clone(shared),
            raw: buffer,
            memory: Some(Backing::ImportedHost(memory)),
            size,
            address,
            // The application's own pages, read through the host's caches.
            host_cached: mapped.is_some(),
            system_memory: true,
            mapped,
            mirror: None,
            location: None,
        })
    }

    /// A buffer over `size` bytes of memory another API exported as an
    /// opaque file descriptor (VK_KHR_external_memory_fd). On success the
    /// import owns `fd`. OpenCL names no memory type, and Vulkan requires
    /// the exporter's: this takes the first DEVICE_LOCAL type the buffer
    /// allows, the type an exporter of device memory picks first.
    ///
    /// # Safety
    /// `fd` is an opaque file descriptor of memory exported from a device
    /// of the same driver, at least `size` bytes long.
    pub unsafe fn import_memory_fd(&self, fd: i32, size: u64) -> Result<Buffer> {
        let shared = &self.shared;
        if !shared.info.features.external_memory_fd {
            return Err(Error::Other(
                "this device imports no memory from file descriptors".to_string(),
            ));
        }
        if size == 0 || size > shared.info.limits.max_allocation_size {
            return Err(Error::OutOfDeviceMemory);
        }
        let handle_type = vk::ExternalMemoryHandleTypeFlags::OPAQUE_FD;
        let (buffer, requirements) = external_buffer(shared, size, handle_type)?;
        let device_local = vk::MemoryPropertyFlags::DEVICE_LOCAL;
        let Some(type_index) = memory_type(shared, requirements.memory_type_bits, device_local)
        else {
            // SAFETY: created above, never bound.
            unsafe { shared.raw.destroy_buffer(buffer, None) };
            return Err(Error::Other(
                "no device-local memory type can hold this buffer".to_string(),
            ));
        };
        let mut import = vk::ImportMemoryFdInfoKHR::default()
            .handle_type(handle_type)
            .fd(fd);
        // SAFETY: the caller vouches for the descriptor; Vulkan takes it
        // over only when the import succeeds.
        let (memory, address) = unsafe {
            bind_imported(
                shared,
                buffer,
                requirements.size.max(size),
                type_index,
                &mut import,
            )?
        };
        Ok(Buffer {
            device: Arc::clone(shared),
            raw: buffer,
            memory: Some(Backing::ImportedFd(memory)),
            size,
            address,
            host_cached: false,
            system_memory: false,
            mapped: None,
            mirror: None,
            location: None,
        })
    }
}

/// A buffer of ferrocl's usage that memory of `handle_type` can back, and
/// its memory requirements.
fn external_buffer(
    shared: &DeviceShared,
    size: u64,
    handle_type: vk::ExternalMemoryHandleTypeFlags,
) -> Result<(vk::Buffer, vk::MemoryRequirements)> {
    let mut external_info = vk::ExternalMemoryBufferCreateInfo::default().handle_types(handle_type);
    let info = vk::BufferCreateInfo::default()
        .size(size)
        .usage(crate::info::BUFFER_USAGE)
        .sharing_mode(vk::SharingMode::EXCLUSIVE)
        .push_next(&mut external_info);
    // SAFETY: the device is alive; the callers keep size within
    // maxBufferSize.
    let buffer = unsafe { shared.raw.create_buffer(&info, None) }
        .map_err(|e| allocation_vk_error("vkCreateBuffer", e))?;
    // SAFETY: a live buffer of this device.
    let requirements = unsafe { shared.raw.get_buffer_memory_requirements(buffer) };
    Ok((buffer, requirements))
}

/// Imports memory (`import`, an import structure of the handle type) of
/// `size` bytes and `type_index`, with device addresses, binds it to
/// `buffer` and returns it and the buffer's device address. On failure the
/// buffer is destroyed.
///
/// # Safety
/// `buffer` is a new, unbound buffer of the device; `import` names memory
/// the import may take.
unsafe fn bind_imported<T: vk::ExtendsMemoryAllocateInfo + ?Sized>(
    shared: &DeviceShared,
    buffer: vk::Buffer,
    size: u64,
    type_index: u32,
    import: &mut T,
) -> Result<(vk::DeviceMemory, u64)> {
    let mut flags =
        vk::MemoryAllocateFlagsInfo::default().flags(vk::MemoryAllocateFlags::DEVICE_ADDRESS);
    let allocate = vk::MemoryAllocateInfo::default()
        .allocation_size(size)
        .memory_type_index(type_index)
        .push_next(import)
        .push_next(&mut flags);
    // SAFETY: per the contract.
    let memory = match unsafe { shared.raw.allocate_memory(&allocate, None) } {
        Ok(memory) => memory,
        Err(e) => {
            // SAFETY: per the contract, never bound.
            unsafe { shared.raw.destroy_buffer(buffer, None) };
            return Err(allocation_vk_error("vkAllocateMemory (import)", e));
        }
    };
    // SAFETY: the callers pick a memory type the buffer allows, and the
    // memory covers the buffer from offset 0.
    if let Err(e) = unsafe { shared.raw.bind_buffer_memory(buffer, memory, 0) } {
        // SAFETY: both are unused.
        unsafe {
            shared.raw.destroy_buffer(buffer, None);
            shared.raw.free_memory(memory, None);
        }
        return Err(allocation_vk_error("vkBindBufferMemory", e));
    }
    let address_info = vk::BufferDeviceAddressInfo::default().buffer(buffer);
    // SAFETY: SHADER_DEVICE_ADDRESS usage, memory allocated with the
    // DEVICE_ADDRESS flag.
    let address = unsafe { shared.raw.get_buffer_device_address(&address_info) };
    Ok((memory, address))
}

/// How a coarse-grained SVM buffer is seen from the host at its device
/// address (OpenCL SVM hands the application one pointer for both sides).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SvmHostView {
    /// The buffer's persistent mapping is at its device address (lavapipe,
    /// whose device addresses are the host addresses of its memory): host
    /// and device read and write the same bytes.
    Shared,
    /// Anonymous host pages reserved at the device address stand for the
    /// buffer on the host; the runtime copies between them and the buffer
    /// when the application maps and unmaps it, which is all that
    /// coarse-grained sharing promises.
    Mirror,
}

/// Anonymous host pages mapped at a fixed address; unmapped on drop.
struct HostMirror {
    base: NonNull<u8>,
    len: usize,
}

// SAFETY: plain private memory of this process, only handed out as an
// address; nothing in the backend reads or writes it.
unsafe impl Send for HostMirror {}
// SAFETY: as above.
unsafe impl Sync for HostMirror {}

impl Drop for HostMirror {
    fn drop(&mut self) {
        // SAFETY: the pages were mapped by `HostMirror::reserve` with this
        // length and are unmapped only here.
        unsafe { host_pages::unmap(self.base, self.len) };
    }
}

impl HostMirror {
    /// Maps `len` bytes of zeroed private pages at exactly `address`, or
    /// fails without touching anything already mapped there.
    fn reserve(address: u64, len: usize) -> Result<HostMirror> {
        let base = host_pages::map_fixed(address, len).ok_or_else(|| {
            Error::Other(format!(
                "the host address range {address:#x}+{len:#x} of an SVM buffer is taken"
            ))
        })?;
        Ok(HostMirror { base, len })
    }
}

/// The few POSIX calls that reserve host pages at a chosen address.
#[cfg(target_os = "linux")]
mod host_pages {
    use std::ffi::c_void;
    use std::ptr::NonNull;

    const PROT_READ: i32 = 0x1;
    const PROT_WRITE: i32 = 0x2;
    const MAP_PRIVATE: i32 = 0x02;
    const MAP_ANONYMOUS: i32 = 0x20;
    /// Linux 4.17 and newer: fail with EEXIST instead of replacing pages.
    /// Older kernels take the address as a hint, so the result is checked.
    const MAP_FIXED_NOREPLACE: i32 = 0x10_0000;
    const SC_PAGESIZE: i32 = 30;

    extern "C" {
        fn mmap(
            addr: *mut c_void,
            len: usize,
            prot: i32,
            flags: i32,
            fd: i32,
            off: i64,
        ) -> *mut c_void;
        fn munmap(addr: *mut c_void, len: usize) -> i32;
        fn sysconf(name: i32) -> i64;
    }

    pub fn page_size() -> u64 {
        // SAFETY: sysconf has no preconditions.
        let size = unsafe { sysconf(SC_PAGESIZE) };
        if size > 0 {
            size as u64
        } else {
            4096
        }
    }

    pub fn map_fixed(address: u64, len: usize) -> Option<NonNull<u8>> {
        if address == 0 || len == 0 || !address.is_multiple_of(page_size()) {
            return None;
        }
        let want = address as usize as *mut c_void;
        // SAFETY: an anonymous private mapping; NOREPLACE leaves any
        // existing mapping of the range alone.
        let got = unsafe {
            mmap(
                want,
                len,
                PROT_READ | PROT_WRITE,
                MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
                -1,
                0,
            )
        };
        if got as isize == -1 {
            return None;
        }
        if got != want {
            // A kernel without NOREPLACE placed it elsewhere.
            // SAFETY: the mapping just made, of this length.
            unsafe { munmap(got, len) };
            return None;
        }
        NonNull::new(got.cast::<u8>())
    }

    /// # Safety
    /// `base` and `len` are a mapping made by [`map_fixed`], unused after.
    pub unsafe fn unmap(base: NonNull<u8>, len: usize) {
        // SAFETY: per the contract.
        unsafe { munmap(base.as_ptr().cast::<c_void>(), len) };
    }
}

/// Without Linux's fixed mappings there is no mirror; SVM buffers then need
/// a device whose mapping is at its device address.
#[cfg(not(target_os = "linux"))]
mod host_pages {
    use std::ptr::NonNull;

    pub fn page_size() -> u64 {
        4096
    }

    pub fn map_fixed(_address: u64, _len: usize) -> Option<NonNull<u8>> {
        None
    }

    /// # Safety
    /// Never called: `map_fixed` maps nothing.
    pub unsafe fn unmap(_base: NonNull<u8>, _len: usize) {}
}

impl Device {
    /// A buffer for a coarse-grained SVM allocation: `size` bytes whose
    /// device address is a multiple of `alignment` (a power of two) and is
    /// also a host address ([`Buffer::svm_host_view`]). First a device-local
    /// buffer whose persistent mapping turns out to be at its device address
    /// ([`SvmHostView::Shared`]); else one of whole pages with host pages
    /// reserved at its device address ([`SvmHostView::Mirror`]). An error
    /// when that address range is already in use on the host.
    pub fn create_svm_buffer(&self, size: u64, alignment: u64) -> Result<Buffer> {
        let alignment = alignment.max(1);
        let shared = self.create_aligned_buffer(size, MemoryLocation::DeviceLocal, alignment)?;
        if shared.svm_host_view() == Some(SvmHostView::Shared) {
            return Ok(shared);
        }
        drop(shared);
        // Whole pages, so that the mirrors of neighbouring buffers of one
        // memory block never share a page.
        let page = host_pages::page_size();
        let whole = size
            .checked_next_multiple_of(page)
            .ok_or(Error::OutOfDeviceMemory)?;
        let mut buffer =
            self.create_aligned_buffer(whole, MemoryLocation::DeviceLocal, alignment.max(page))?;
        let len = usize::try_from(whole).map_err(|_| Error::OutOfHostMemory)?;
        buffer.mirror = Some(HostMirror::reserve(buffer.address, len)?);
        Ok(buffer)
    }
}
