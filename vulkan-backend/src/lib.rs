//! Every Vulkan call of ferrocl (ash + gpu-allocator).
//!
//! Owns: loading the Vulkan loader at run time, device discovery and
//! capability probing, memory and buffers (device addresses), compute
//! pipelines and the pipeline cache, command recording, submission and
//! timeline semaphores. The runtime above it never touches Vulkan.
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
//!   copies, fills and barriers into command buffers and submits them with
//!   timeline waits and a timeline signal.
//!
//! With `FERROCL_VALIDATION=1` the Khronos validation layer is enabled and
//! every message it sends is printed to stderr and counted
//! ([`validation_message_count`]); the tests fail on any.

#![warn(unsafe_op_in_unsafe_fn)]

// ---------------------------------------------------------------------------
// API skeleton: the signatures below are the contract with the runtime. The
// implementation lives in submodules (instance.rs, device.rs, memory.rs,
// pipeline.rs, command.rs, sync.rs, conv.rs, ...), re-exported here.
// ---------------------------------------------------------------------------

use std::ptr::NonNull;
use std::sync::Arc;

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

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceType {
    Cpu,
    DiscreteGpu,
    IntegratedGpu,
    VirtualGpu,
    Other,
}

/// Limits the runtime reports and obeys.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    pub max_push_constants_size: u32,
    pub max_compute_shared_memory_size: u32,
    pub max_compute_work_group_invocations: u32,
    pub max_compute_work_group_size: [u32; 3],
    pub max_compute_work_group_count: [u32; 3],
    /// maxMemoryAllocationSize (Vulkan 1.1 maintenance3) and maxBufferSize
    /// where known: the largest single buffer.
    pub max_buffer_size: u64,
    pub max_storage_buffer_range: u32,
    /// Nanoseconds per timestamp tick.
    pub timestamp_period: f32,
    pub subgroup_size: u32,
    pub min_subgroup_size: u32,
    pub max_subgroup_size: u32,
}

/// Optional capabilities that switch OpenCL extensions on.
#[derive(Clone, Debug, Default)]
pub struct Features {
    pub float64: bool,
    pub float16: bool,
    pub int16: bool,
    pub storage_16bit: bool,
    pub int64_atomics: bool,
    /// Subgroup operations available in compute (basic, vote, ballot,
    /// shuffle, shuffle relative, arithmetic, clustered).
    pub subgroup_basic: bool,
    pub subgroup_vote: bool,
    pub subgroup_ballot: bool,
    pub subgroup_shuffle: bool,
    pub subgroup_shuffle_relative: bool,
    pub subgroup_arithmetic: bool,
    pub subgroup_clustered: bool,
    pub float32_atomic_add: bool,
    pub float32_atomic_min_max: bool,
    pub integer_dot_product: bool,
    pub workgroup_memory_explicit_layout: bool,
    pub push_descriptor: bool,
    pub external_memory_host: bool,
}

/// A Vulkan physical device that qualifies for ferrocl.
#[derive(Clone, Debug)]
pub struct PhysicalDeviceInfo {
    pub name: String,
    pub vendor_id: u32,
    pub device_id: u32,
    pub device_type: DeviceType,
    /// VkPhysicalDeviceProperties::apiVersion.
    pub api_version: u32,
    pub driver_version: u32,
    /// VkPhysicalDeviceDriverProperties: driverName, driverInfo.
    pub driver_name: String,
    pub driver_info: String,
    pub device_uuid: [u8; 16],
    pub driver_uuid: [u8; 16],
    /// Device LUID where valid (VkPhysicalDeviceIDProperties).
    pub device_luid: Option<[u8; 8]>,
    pub device_node_mask: u32,
    /// PCI bus info where VK_EXT_pci_bus_info exists: (domain, bus, device, function).
    pub pci_bus_info: Option<(u32, u32, u32, u32)>,
    pub limits: Limits,
    pub features: Features,
    /// Size of the largest DEVICE_LOCAL heap.
    pub device_local_heap_size: u64,
    /// Some memory type is DEVICE_LOCAL | HOST_VISIBLE over (most of) the
    /// device-local heap (ReBAR, unified memory, lavapipe).
    pub host_visible_device_local: bool,
    pub unified_memory: bool,
    /// Real compute units: SM count (VK_NV_shader_sm_builtins), AMD's
    /// shader core properties, else the host's CPU count for a CPU device,
    /// else 1 with a note in docs.
    pub compute_units: u32,
    /// Clock in MHz where the driver tells it; else 0.
    pub max_clock_mhz: u32,
    /// SPIR-V version the device accepts: (1, 5) for Vulkan 1.2, (1, 6) for 1.3.
    pub spirv_version: (u8, u8),
}

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

/// The Vulkan instance and the qualifying physical devices.
pub struct Instance {
    _private: (),
}

impl Instance {
    /// Loads Vulkan. On a machine without a loader or without a qualifying
    /// device this still succeeds, with an empty [`Instance::devices`], and
    /// `why_no_devices` says why (for a log line).
    pub fn new() -> Arc<Instance> {
        unimplemented!()
    }
    pub fn devices(&self) -> &[PhysicalDeviceInfo] {
        unimplemented!()
    }
    /// Why the device list is empty or shorter than the Vulkan list: one
    /// line per skipped device or failure.
    pub fn notes(&self) -> &[String] {
        unimplemented!()
    }
    /// Opens a logical device with every feature ferrocl uses enabled and one
    /// compute queue.
    pub fn open_device(self: &Arc<Self>, index: usize) -> Result<Device> {
        let _ = index;
        unimplemented!()
    }
}

/// A logical device. Clones share it.
#[derive(Clone)]
pub struct Device {
    _private: (),
}

impl Device {
    pub fn info(&self) -> &PhysicalDeviceInfo {
        unimplemented!()
    }
    /// A buffer of `size` bytes (> 0) usable as storage buffer, transfer
    /// source and destination, with SHADER_DEVICE_ADDRESS.
    pub fn create_buffer(&self, size: u64, location: MemoryLocation) -> Result<Buffer> {
        let _ = (size, location);
        unimplemented!()
    }
    /// A compute pipeline for `entry_point` of `spirv`, with a push-constant
    /// range of `push_constant_size` bytes (0: none) and the given
    /// specialization constants (id, 32-bit value). Created with
    /// DISPATCH_BASE, through the device's VkPipelineCache.
    pub fn create_pipeline(
        &self,
        spirv: &[u32],
        entry_point: &str,
        push_constant_size: u32,
        spec_constants: &[(u32, u32)],
    ) -> Result<Pipeline> {
        let _ = (spirv, entry_point, push_constant_size, spec_constants);
        unimplemented!()
    }
    pub fn create_timeline(&self, initial_value: u64) -> Result<Timeline> {
        let _ = initial_value;
        unimplemented!()
    }
    pub fn create_command_stream(&self) -> Result<CommandStream> {
        unimplemented!()
    }
    /// Waits for the device to be idle (used at teardown only).
    pub fn wait_idle(&self) {}
}

/// A buffer and its memory; freed on drop. The runtime keeps it alive
/// until the commands that use it have completed.
pub struct Buffer {
    _private: (),
}

impl Buffer {
    pub fn size(&self) -> u64 {
        unimplemented!()
    }
    /// Device address of byte 0.
    pub fn device_address(&self) -> u64 {
        unimplemented!()
    }
    /// Pointer to byte 0 when host-visible and mapped (always coherent:
    /// the backend flushes/invalidates non-coherent memory itself around
    /// submissions, or picks coherent types only).
    pub fn mapped_ptr(&self) -> Option<NonNull<u8>> {
        unimplemented!()
    }
}

/// A compute pipeline; destroyed on drop.
pub struct Pipeline {
    _private: (),
}

/// A timeline semaphore.
pub struct Timeline {
    _private: (),
}

impl Timeline {
    /// The current counter value.
    pub fn value(&self) -> Result<u64> {
        unimplemented!()
    }
    /// Blocks until the counter reaches `value`; `Ok(false)` on timeout.
    pub fn wait(&self, value: u64, timeout_ns: u64) -> Result<bool> {
        let _ = (value, timeout_ns);
        unimplemented!()
    }
    /// Signals `value` from the host.
    pub fn signal(&self, value: u64) -> Result<()> {
        let _ = value;
        unimplemented!()
    }
}

/// Records commands into command buffers and submits them on the device's
/// compute queue. Not `Sync`: the runtime owns one per OpenCL queue behind
/// its own lock. Command buffers are recycled once the timeline value their
/// submission signalled is reached.
pub struct CommandStream {
    _private: (),
}

impl CommandStream {
    /// Records `vkCmdDispatchBase(base, groups)` with `push` (≤ the
    /// pipeline's push-constant size) as push constants. The pipeline is
    /// kept alive until the submission completes.
    pub fn dispatch(
        &mut self,
        pipeline: &Arc<Pipeline>,
        push: &[u8],
        base: [u32; 3],
        groups: [u32; 3],
    ) -> Result<()> {
        let _ = (pipeline, push, base, groups);
        unimplemented!()
    }
    /// Copies `size` bytes between buffers (may be the same buffer with
    /// non-overlapping ranges).
    pub fn copy_buffer(
        &mut self,
        src: &Arc<Buffer>,
        src_offset: u64,
        dst: &Arc<Buffer>,
        dst_offset: u64,
        size: u64,
    ) -> Result<()> {
        let _ = (src, src_offset, dst, dst_offset, size);
        unimplemented!()
    }
    /// Fills `size` bytes at `offset` with the 32-bit `value` (offset and
    /// size multiples of 4).
    pub fn fill_buffer(
        &mut self,
        dst: &Arc<Buffer>,
        offset: u64,
        size: u64,
        value: u32,
    ) -> Result<()> {
        let _ = (dst, offset, size, value);
        unimplemented!()
    }
    /// A full memory barrier between everything recorded before and after
    /// (compute and transfer, all shader memory, host reads after the
    /// submission).
    pub fn barrier(&mut self) -> Result<()> {
        unimplemented!()
    }
    /// True when nothing has been recorded since the last submit.
    pub fn is_empty(&self) -> bool {
        unimplemented!()
    }
    /// Ends the current command buffer (if any) and submits it, waiting on
    /// every `(timeline, value)` in `waits` and signalling `signal` when done.
    /// With nothing recorded it still submits (the signal must happen).
    pub fn submit(&mut self, waits: &[(&Timeline, u64)], signal: (&Timeline, u64)) -> Result<()> {
        let _ = (waits, signal);
        unimplemented!()
    }
}

/// Number of validation-layer messages seen in this process (see the crate
/// docs).
pub fn validation_message_count() -> usize {
    unimplemented!()
}
