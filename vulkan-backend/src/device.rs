//! The logical device: feature enabling, the compute queue, the pipeline
//! cache, pipeline layouts per push-constant size, and the memory allocator.
//! Every other backend object holds an `Arc<DeviceShared>`, so the
//! `VkDevice` is destroyed only after all of them.

use crate::builtin::{self, BuiltinKernel};
use crate::error::{allocator_error, vk_error, Error, Result};
use crate::info::{Candidate, PhysicalDeviceInfo};
use crate::instance::Instance;
use crate::timestamp::QueryPools;
use ash::vk;
use gpu_allocator::vulkan::{Allocator, AllocatorCreateDesc};
use parking_lot::Mutex;
use std::collections::HashMap;
use std::ffi::CStr;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;

pub(crate) struct DeviceShared {
    pub raw: ash::Device,
    pub info: PhysicalDeviceInfo,
    pub queue_family: u32,
    /// vkQueueSubmit needs external synchronization of the queue.
    pub queue: Mutex<vk::Queue>,
    /// Internally synchronized by Vulkan: pipelines are created through it
    /// from any thread without a lock of ours.
    pub pipeline_cache: vk::PipelineCache,
    layouts: Mutex<HashMap<u32, vk::PipelineLayout>>,
    /// The backend's own copy and fill pipelines, made on first use. Raw
    /// handles (not `Pipeline`s, which would hold the device alive).
    builtins: Mutex<HashMap<BuiltinKernel, vk::Pipeline>>,
    copy_engine: AtomicU8,
    /// `None` only during teardown.
    pub allocator: Mutex<Option<Allocator>>,
    /// Freed buffers kept for new ones of the same size
    /// (`crate::recycle`).
    pub recycled: crate::recycle::Recycled,
    /// Memory types that are DEVICE_LOCAL | HOST_VISIBLE | HOST_COHERENT on
    /// the largest device-local heap.
    pub host_visible_device_local_types: u32,
    pub calibration: Option<(ash::ext::calibrated_timestamps::Device, vk::TimeDomainEXT)>,
    pub external_memory_host: Option<ash::ext::external_memory_host::Device>,
    /// VK_KHR_pipeline_executable_properties, where the device has it.
    pub executable_properties: Option<ash::khr::pipeline_executable_properties::Device>,
    /// Property flags of each memory type, by index.
    pub memory_types: Vec<vk::MemoryPropertyFlags>,
    pub query_pools: Mutex<QueryPools>,
    pub physical: vk::PhysicalDevice,
    // Last: the instance must outlive the device.
    pub instance: Arc<Instance>,
}

impl DeviceShared {
    /// The pipeline layout with one COMPUTE push-constant range of
    /// `push_constant_size` bytes (a multiple of 4; 0 for none) and no
    /// descriptor sets, made once per size.
    pub fn pipeline_layout(&self, push_constant_size: u32) -> Result<vk::PipelineLayout> {
        let mut layouts = self.layouts.lock();
        if let Some(&layout) = layouts.get(&push_constant_size) {
            return Ok(layout);
        }
        let range = [vk::PushConstantRange::default()
            .stage_flags(vk::ShaderStageFlags::COMPUTE)
            .offset(0)
            .size(push_constant_size)];
        let ranges: &[vk::PushConstantRange] = if push_constant_size == 0 { &[] } else { &range };
        let info = vk::PipelineLayoutCreateInfo::default().push_constant_ranges(ranges);
        // SAFETY: the device is alive; `info` points at locals.
        let layout = unsafe { self.raw.create_pipeline_layout(&info, None) }
            .map_err(|e| vk_error("vkCreatePipelineLayout", e))?;
        layouts.insert(push_constant_size, layout);
        Ok(layout)
    }

    /// The pipeline of a built-in kernel, compiled on first use. The driver
    /// compiles without the map locked; a racing thread's duplicate is
    /// destroyed.
    pub fn builtin_pipeline(
        &self,
        kernel: BuiltinKernel,
    ) -> Result<(vk::Pipeline, vk::PipelineLayout)> {
        let layout = self.pipeline_layout(builtin::PUSH_SIZE)?;
        if let Some(&pipeline) = self.builtins.lock().get(&kernel) {
            return Ok((pipeline, layout));
        }
        let (made, _, _) = crate::pipeline::create_raw_pipeline(
            self,
            &builtin::spirv(kernel),
            BuiltinKernel::ENTRY_POINT,
            builtin::PUSH_SIZE,
            &[],
            &crate::PipelineOptions::default(),
        )?;
        let mut builtins = self.builtins.lock();
        if let Some(&existing) = builtins.get(&kernel) {
            // SAFETY: `made` was never used.
            unsafe { self.raw.destroy_pipeline(made, None) };
            return Ok((existing, layout));
        }
        builtins.insert(kernel, made);
        Ok((made, layout))
    }

    /// Whether a copy of `size` bytes runs as a compute kernel;
    /// `system_memory` when either side lies in host memory.
    pub fn copy_on_compute(&self, size: u64, system_memory: bool) -> bool {
        match CopyEngine::from_u8(self.copy_engine.load(Ordering::Relaxed)) {
            CopyEngine::Transfer => false,
            CopyEngine::Compute => true,
            // Across PCIe both move the link's speed (on an H100, 64 MiB
            // and more: 49.5-50.4 GB/s reading host memory and 52.3-52.4
            // writing it, either way; examples/copy_bandwidth.rs), so such
            // copies take the copy engine and leave the SMs to kernels.
            CopyEngine::Auto => {
                self.info.device_type == crate::DeviceType::DiscreteGpu
                    && size >= COMPUTE_COPY_MIN_BYTES
                    && !system_memory
            }
        }
    }

    /// Whether a rectangle copy runs as the built-in kernel: on GPUs, where
    /// NVIDIA's driver runs a `vkCmdCopyBuffer` of many regions as as many
    /// small copies (OpenCV's 1,080-row copies took 75 us each to record
    /// on an H200); lavapipe copies regions with the CPU, as fast.
    pub fn rect_copy_on_compute(&self) -> bool {
        match CopyEngine::from_u8(self.copy_engine.load(Ordering::Relaxed)) {
            CopyEngine::Transfer => false,
            CopyEngine::Compute => true,
            CopyEngine::Auto => self.info.device_type != crate::DeviceType::Cpu,
        }
    }

    /// Whether a fill runs as a compute kernel: only when asked for, since
    /// `vkCmdFillBuffer` kept up with the kernel on every device measured.
    pub fn fill_on_compute(&self) -> bool {
        CopyEngine::from_u8(self.copy_engine.load(Ordering::Relaxed)) == CopyEngine::Compute
    }
}

/// Below this size a copy's cost is the command, not the bandwidth: on an
/// H100 (driver 580) both paths moved about 27 GB/s at 64 KiB, the kernel
/// pulled ahead from 1 MiB (444 vs 320 GB/s) and reached 2.9 TB/s against
/// the copy engine's 850 GB/s from 16 MiB on (examples/copy_bandwidth.rs).
const COMPUTE_COPY_MIN_BYTES: u64 = 256 * 1024;

/// Which engine records `CommandStream::copy_buffer` and `fill_buffer`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CopyEngine {
    /// Compute kernels for copies of 256 KiB and more on discrete GPUs
    /// (whose copy engines are slower than their SMs), transfer commands
    /// for everything else. On lavapipe the transfer path is a memcpy and
    /// far faster than running the kernel.
    Auto,
    /// Always `vkCmdCopyBuffer` / `vkCmdFillBuffer`.
    Transfer,
    /// Compute kernels wherever the addresses and size are 4-byte aligned.
    Compute,
}

impl CopyEngine {
    fn from_u8(value: u8) -> CopyEngine {
        match value {
            1 => CopyEngine::Transfer,
            2 => CopyEngine::Compute,
            _ => CopyEngine::Auto,
        }
    }

    fn as_u8(self) -> u8 {
        match self {
            CopyEngine::Auto => 0,
            CopyEngine::Transfer => 1,
            CopyEngine::Compute => 2,
        }
    }
}

impl Drop for DeviceShared {
    fn drop(&mut self) {
        // SAFETY: the device is alive; nothing else can submit (this is the
        // last reference). A lost device still allows destruction.
        let _ = unsafe { self.raw.device_wait_idle() };
        for (_, pipeline) in self.builtins.get_mut().drain() {
            // SAFETY: the device is idle; command streams that recorded the
            // pipeline held an Arc to this device and are gone.
            unsafe { self.raw.destroy_pipeline(pipeline, None) };
        }
        for (_, layout) in self.layouts.get_mut().drain() {
            // SAFETY: every pipeline using the layout held an Arc to this
            // device and is gone.
            unsafe { self.raw.destroy_pipeline_layout(layout, None) };
        }
        for pool in self.query_pools.get_mut().take_all() {
            // SAFETY: every timestamp slot of the pool held an Arc to this
            // device and is gone; the device is idle.
            unsafe { self.raw.destroy_query_pool(pool, None) };
        }
        // SAFETY: pipelines created through the cache are gone or independent
        // of it; the cache is destroyed once.
        unsafe { self.raw.destroy_pipeline_cache(self.pipeline_cache, None) };
        // Kept buffers go before the allocator whose memory they hold.
        crate::memory::destroy_kept(self, self.recycled.drain());
        // The allocator frees its memory blocks, which needs the device.
        drop(self.allocator.get_mut().take());
        // SAFETY: every child object is destroyed above or by its owner,
        // each of which held an Arc to this device.
        unsafe { self.raw.destroy_device(None) };
    }
}

/// A logical device. Clones share it.
#[derive(Clone)]
pub struct Device {
    pub(crate) shared: Arc<DeviceShared>,
}

/// A device timestamp paired with the host clock read at the same moment
/// (VK_EXT_calibrated_timestamps), to place profiling timestamps on the
/// host's time line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CalibratedTime {
    /// Device timestamp ticks (× `Limits::timestamp_period` ns).
    pub device_ticks: u64,
    /// CLOCK_MONOTONIC nanoseconds (QueryPerformanceCounter ticks on Windows).
    pub host_time: u64,
    /// The largest difference, in nanoseconds, between when the two were
    /// sampled.
    pub max_deviation_ns: u64,
}

impl Instance {
    /// Opens a logical device with every feature ferrocl uses enabled and one
    /// compute queue.
    pub fn open_device(self: &Arc<Self>, index: usize) -> Result<Device> {
        self.open_device_with_pipeline_cache(index, &[])
    }

    /// As [`Instance::open_device`], seeding the `VkPipelineCache` with data
    /// from [`Device::pipeline_cache_data`] of an earlier run (Vulkan ignores
    /// data made for another device or driver).
    pub fn open_device_with_pipeline_cache(
        self: &Arc<Self>,
        index: usize,
        cache_data: &[u8],
    ) -> Result<Device> {
        let raw = self
            .raw
            .as_ref()
            .ok_or_else(|| Error::Other("Vulkan is not available".to_string()))?;
        let candidate = self.candidates.get(index).ok_or_else(|| {
            Error::Other(format!(
                "device index {index} out of range ({} devices)",
                self.candidates.len()
            ))
        })?;
        let device = create_logical_device(raw, candidate)?;
        // From here on `device` must be destroyed on every error path.
        let guard = DestroyOnError(Some(&device));
        // SAFETY: the family was created with one queue.
        let queue = unsafe { device.get_device_queue(candidate.queue_family, 0) };
        let cache_info = vk::PipelineCacheCreateInfo::default().initial_data(cache_data);
        // SAFETY: the device is alive; incompatible initial data is ignored by
        // the implementation, as the spec requires.
        let pipeline_cache = unsafe { device.create_pipeline_cache(&cache_info, None) }
            .map_err(|e| vk_error("vkCreatePipelineCache", e))?;
        let allocator = Allocator::new(&AllocatorCreateDesc {
            instance: raw.instance.clone(),
            device: device.clone(),
            physical_device: candidate.physical,
            debug_settings: Default::default(),
            buffer_device_address: true,
            allocation_sizes: Default::default(),
        });
        let allocator = match allocator {
            Ok(allocator) => allocator,
            Err(e) => {
                // SAFETY: created above, unused.
                unsafe { device.destroy_pipeline_cache(pipeline_cache, None) };
                return Err(allocator_error(e));
            }
        };
        let calibration = candidate
            .support
            .calibrated_timestamps
            .then(|| crate::info::host_time_domain(&raw.entry, &raw.instance, candidate.physical))
            .flatten()
            .map(|domain| {
                (
                    ash::ext::calibrated_timestamps::Device::new(&raw.instance, &device),
                    domain,
                )
            });
        let external_memory_host = candidate
            .support
            .external_memory_host
            .then(|| ash::ext::external_memory_host::Device::new(&raw.instance, &device));
        let executable_properties = candidate
            .support
            .pipeline_executable_info
            .then(|| ash::khr::pipeline_executable_properties::Device::new(&raw.instance, &device));
        // SAFETY: `physical` belongs to the live instance.
        let memory = unsafe {
            raw.instance
                .get_physical_device_memory_properties(candidate.physical)
        };
        let memory_types = memory
            .memory_types_as_slice()
            .iter()
            .map(|t| t.property_flags)
            .collect();
        std::mem::forget(guard);
        Ok(Device {
            shared: Arc::new(DeviceShared {
                raw: device,
                info: candidate.info.clone(),
                queue_family: candidate.queue_family,
                queue: Mutex::new(queue),
                pipeline_cache,
                layouts: Mutex::new(HashMap::new()),
                builtins: Mutex::new(HashMap::new()),
                copy_engine: AtomicU8::new(CopyEngine::Auto.as_u8()),
                allocator: Mutex::new(Some(allocator)),
                recycled: crate::recycle::Recycled::default(),
                host_visible_device_local_types: candidate.host_visible_device_local_types,
                calibration,
                external_memory_host,
                executable_properties,
                memory_types,
                query_pools: Mutex::new(QueryPools::default()),
                physical: candidate.physical,
                instance: Arc::clone(self),
            }),
        })
    }
}

/// Destroys a freshly made device if opening fails half way.
struct DestroyOnError<'a>(Option<&'a ash::Device>);

impl Drop for DestroyOnError<'_> {
    fn drop(&mut self) {
        if let Some(device) = self.0 {
            // SAFETY: reached only on an error path of `open_device`, where
            // the device has no children left.
            unsafe { device.destroy_device(None) };
        }
    }
}

/// Creates the `VkDevice` with ferrocl's required features, every optional
/// feature the device reports in [`crate::Features`], and one queue.
fn create_logical_device(
    raw: &crate::instance::RawInstance,
    candidate: &Candidate,
) -> Result<ash::Device> {
    let s = &candidate.support;
    let core10 = vk::PhysicalDeviceFeatures::default()
        .shader_int64(true)
        .shader_float64(s.shader_float64)
        .shader_int16(s.shader_int16)
        .sparse_binding(s.sparse_binding);
    let mut v11 = vk::PhysicalDeviceVulkan11Features::default()
        .storage_buffer16_bit_access(s.storage_buffer_16bit_access)
        .storage_push_constant16(s.storage_push_constant16);
    let mut v12 = vk::PhysicalDeviceVulkan12Features::default()
        .buffer_device_address(true)
        .timeline_semaphore(true)
        .vulkan_memory_model(true)
        .vulkan_memory_model_device_scope(true)
        .vulkan_memory_model_availability_visibility_chains(
            s.vulkan_memory_model_availability_visibility_chains,
        )
        .scalar_block_layout(true)
        .storage_buffer8_bit_access(true)
        .storage_push_constant8(s.storage_push_constant8)
        .shader_int8(true)
        .shader_float16(s.shader_float16)
        .shader_buffer_int64_atomics(s.shader_buffer_int64_atomics)
        .shader_shared_int64_atomics(s.shader_shared_int64_atomics)
        .shader_subgroup_extended_types(s.shader_subgroup_extended_types);
    let mut v13 = vk::PhysicalDeviceVulkan13Features::default()
        .subgroup_size_control(s.subgroup_size_control)
        .compute_full_subgroups(s.compute_full_subgroups)
        .shader_integer_dot_product(s.shader_integer_dot_product);
    let mut sgc = vk::PhysicalDeviceSubgroupSizeControlFeatures::default()
        .subgroup_size_control(s.subgroup_size_control)
        .compute_full_subgroups(s.compute_full_subgroups);
    let mut idp = vk::PhysicalDeviceShaderIntegerDotProductFeatures::default()
        .shader_integer_dot_product(s.shader_integer_dot_product);
    let af = s.atomic_float.unwrap_or_default();
    let mut af_features = vk::PhysicalDeviceShaderAtomicFloatFeaturesEXT::default()
        .shader_buffer_float32_atomics(af.buffer_float32_atomics)
        .shader_buffer_float32_atomic_add(af.buffer_float32_atomic_add)
        .shader_buffer_float64_atomics(af.buffer_float64_atomics)
        .shader_buffer_float64_atomic_add(af.buffer_float64_atomic_add)
        .shader_shared_float32_atomics(af.shared_float32_atomics)
        .shader_shared_float32_atomic_add(af.shared_float32_atomic_add);
    let af2 = s.atomic_float2.unwrap_or_default();
    let mut af2_features = vk::PhysicalDeviceShaderAtomicFloat2FeaturesEXT::default()
        .shader_buffer_float32_atomic_min_max(af2.buffer_float32_atomic_min_max)
        .shader_buffer_float64_atomic_min_max(af2.buffer_float64_atomic_min_max)
        .shader_shared_float32_atomic_min_max(af2.shared_float32_atomic_min_max);
    let wg = s.workgroup_explicit_layout.unwrap_or_default();
    let mut wg_features = vk::PhysicalDeviceWorkgroupMemoryExplicitLayoutFeaturesKHR::default()
        .workgroup_memory_explicit_layout(true)
        .workgroup_memory_explicit_layout_scalar_block_layout(wg.scalar_block_layout)
        .workgroup_memory_explicit_layout8_bit_access(wg.access_8bit)
        .workgroup_memory_explicit_layout16_bit_access(wg.access_16bit);
    let clock = s.shader_clock.unwrap_or_default();
    let mut clock_features = vk::PhysicalDeviceShaderClockFeaturesKHR::default()
        .shader_subgroup_clock(clock.subgroup)
        .shader_device_clock(clock.device);
    let mut pep_features = vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default()
        .pipeline_executable_info(true);

    let mut extensions: Vec<&CStr> = Vec::new();
    let optional_subgroup_size = s.subgroup_size_control || s.compute_full_subgroups;
    if !s.core13 {
        if optional_subgroup_size {
            extensions.push(ash::ext::subgroup_size_control::NAME);
        }
        if s.shader_integer_dot_product {
            extensions.push(ash::khr::shader_integer_dot_product::NAME);
        }
    }
    if s.atomic_float.is_some() {
        extensions.push(ash::ext::shader_atomic_float::NAME);
    }
    if s.atomic_float2.is_some() {
        extensions.push(ash::ext::shader_atomic_float2::NAME);
    }
    if s.workgroup_explicit_layout.is_some() {
        extensions.push(ash::khr::workgroup_memory_explicit_layout::NAME);
    }
    if s.shader_clock.is_some() {
        extensions.push(ash::khr::shader_clock::NAME);
    }
    if s.push_descriptor {
        extensions.push(ash::khr::push_descriptor::NAME);
    }
    if s.external_memory_host {
        extensions.push(ash::ext::external_memory_host::NAME);
    }
    if s.external_memory_fd {
        extensions.push(ash::khr::external_memory_fd::NAME);
    }
    if s.calibrated_timestamps {
        extensions.push(ash::ext::calibrated_timestamps::NAME);
    }
    if s.pipeline_executable_info {
        extensions.push(ash::khr::pipeline_executable_properties::NAME);
    }
    // The spec requires enabling it wherever a driver lists it.
    if s.portability_subset {
        extensions.push(ash::khr::portability_subset::NAME);
    }
    let extension_ptrs: Vec<_> = extensions.iter().map(|e| e.as_ptr()).collect();

    let priorities = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(candidate.queue_family)
        .queue_priorities(&priorities)];
    let mut info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_extension_names(&extension_ptrs)
        .enabled_features(&core10)
        .push_next(&mut v11)
        .push_next(&mut v12);
    if s.core13 {
        info = info.push_next(&mut v13);
    } else {
        if optional_subgroup_size {
            info = info.push_next(&mut sgc);
        }
        if s.shader_integer_dot_product {
            info = info.push_next(&mut idp);
        }
    }
    if s.atomic_float.is_some() {
        info = info.push_next(&mut af_features);
    }
    if s.atomic_float2.is_some() {
        info = info.push_next(&mut af2_features);
    }
    if s.workgroup_explicit_layout.is_some() {
        info = info.push_next(&mut wg_features);
    }
    if s.shader_clock.is_some() {
        info = info.push_next(&mut clock_features);
    }
    if s.pipeline_executable_info {
        info = info.push_next(&mut pep_features);
    }
    // SAFETY: every feature enabled was reported by the device, every
    // extension is listed by it, and every chained struct outlives the call.
    unsafe { raw.instance.create_device(candidate.physical, &info, None) }
        .map_err(|e| vk_error("vkCreateDevice", e))
}

impl Device {
    pub fn info(&self) -> &PhysicalDeviceInfo {
        &self.shared.info
    }

    /// Waits for the device to be idle (used at teardown only).
    pub fn wait_idle(&self) {
        // vkDeviceWaitIdle needs every queue externally synchronized.
        let _queue = self.shared.queue.lock();
        // SAFETY: the device is alive and its only queue is locked.
        let _ = unsafe { self.shared.raw.device_wait_idle() };
    }

    /// Chooses how copies and fills are recorded on this device (all its
    /// streams); [`CopyEngine::Auto`] unless changed.
    pub fn set_copy_engine(&self, engine: CopyEngine) {
        self.shared
            .copy_engine
            .store(engine.as_u8(), Ordering::Relaxed);
    }

    pub fn copy_engine(&self) -> CopyEngine {
        CopyEngine::from_u8(self.shared.copy_engine.load(Ordering::Relaxed))
    }

    /// The `VkPipelineCache` contents, to be stored on disk keyed by the
    /// device UUID and given to [`Instance::open_device_with_pipeline_cache`].
    pub fn pipeline_cache_data(&self) -> Result<Vec<u8>> {
        // SAFETY: the cache is internally synchronized and alive.
        unsafe {
            self.shared
                .raw
                .get_pipeline_cache_data(self.shared.pipeline_cache)
        }
        .map_err(|e| vk_error("vkGetPipelineCacheData", e))
    }

    /// A device timestamp and the host clock sampled together, where the
    /// device has VK_EXT_calibrated_timestamps; `Ok(None)` elsewhere.
    pub fn calibrated_host_time(&self) -> Result<Option<CalibratedTime>> {
        let Some((calibrated, host_domain)) = &self.shared.calibration else {
            return Ok(None);
        };
        let infos = [
            vk::CalibratedTimestampInfoEXT::default().time_domain(vk::TimeDomainEXT::DEVICE),
            vk::CalibratedTimestampInfoEXT::default().time_domain(*host_domain),
        ];
        // SAFETY: the extension is enabled and both domains were reported
        // calibrateable for this device.
        let (values, deviation) = unsafe { calibrated.get_calibrated_timestamps(&infos) }
            .map_err(|e| vk_error("vkGetCalibratedTimestampsEXT", e))?;
        Ok(Some(CalibratedTime {
            device_ticks: values[0],
            host_time: values[1],
            max_deviation_ns: deviation,
        }))
    }
}
