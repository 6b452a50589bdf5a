//! Capability probing of one Vulkan physical device: what ferrocl requires,
//! what it may use, and the honest numbers the runtime reports as device
//! info. Pure queries; nothing here creates a Vulkan object.
//!
//! Compute units: NVIDIA's SM count (VK_NV_shader_sm_builtins), AMD's shader
//! engines × arrays × CUs (VK_AMD_shader_core_properties), the host's thread
//! count for a CPU device (lavapipe runs one work-group per thread); a GPU
//! with neither extension (Intel, Arm, ...) reports 1 because Vulkan offers no
//! way to count its cores and a guess would mislead work-size heuristics.

use ash::vk;
use std::ffi::{CStr, CString};

/// What kind of Vulkan device this is; the order of the variants is the
/// order in which ferrocl lists devices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceType {
    Cpu,
    DiscreteGpu,
    IntegratedGpu,
    VirtualGpu,
    Other,
}

impl DeviceType {
    fn from_vk(kind: vk::PhysicalDeviceType) -> DeviceType {
        match kind {
            vk::PhysicalDeviceType::CPU => DeviceType::Cpu,
            vk::PhysicalDeviceType::DISCRETE_GPU => DeviceType::DiscreteGpu,
            vk::PhysicalDeviceType::INTEGRATED_GPU => DeviceType::IntegratedGpu,
            vk::PhysicalDeviceType::VIRTUAL_GPU => DeviceType::VirtualGpu,
            _ => DeviceType::Other,
        }
    }

    /// Listing rank: discrete GPUs first, then integrated, virtual, CPU.
    pub(crate) fn rank(self) -> u8 {
        match self {
            DeviceType::DiscreteGpu => 0,
            DeviceType::IntegratedGpu => 1,
            DeviceType::VirtualGpu => 2,
            DeviceType::Cpu => 3,
            DeviceType::Other => 4,
        }
    }
}

/// Limits the runtime reports and obeys.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    pub max_push_constants_size: u32,
    pub max_compute_shared_memory_size: u32,
    pub max_compute_work_group_invocations: u32,
    pub max_compute_work_group_size: [u32; 3],
    pub max_compute_work_group_count: [u32; 3],
    /// The largest buffer: maxBufferSize (maintenance4) where buffers may
    /// be bound to several allocations with sparse binding, else no more
    /// than one allocation (`max_allocation_size`).
    pub max_buffer_size: u64,
    /// maxMemoryAllocationSize (Vulkan 1.1 maintenance3): the largest
    /// single `VkDeviceMemory`. A buffer past it is backed by several.
    pub max_allocation_size: u64,
    pub max_storage_buffer_range: u32,
    /// Nanoseconds per timestamp tick.
    pub timestamp_period: f32,
    pub subgroup_size: u32,
    pub min_subgroup_size: u32,
    pub max_subgroup_size: u32,
    /// Valid bits of a timestamp written on the compute queue (0: the queue
    /// has no timestamps).
    pub timestamp_valid_bits: u32,
    /// minStorageBufferOffsetAlignment: sub-buffer origins that a descriptor
    /// may use must be multiples of this.
    pub min_storage_buffer_offset_alignment: u64,
    /// minImportedHostPointerAlignment (VK_EXT_external_memory_host): host
    /// memory given to `Device::import_host_memory` must start and end on
    /// multiples of this; 0 without the extension.
    pub min_imported_host_pointer_alignment: u64,
}

/// Optional capabilities that switch OpenCL extensions on.
#[derive(Clone, Debug, Default)]
pub struct Features {
    pub float64: bool,
    pub float16: bool,
    pub int16: bool,
    pub storage_16bit: bool,
    pub int64_atomics: bool,
    /// shaderSharedInt64Atomics: 64-bit atomics on `Workgroup` memory.
    pub shared_int64_atomics: bool,
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
    /// shaderSharedFloat32AtomicAdd / shaderSharedFloat32AtomicMinMax: the
    /// same on `Workgroup` memory.
    pub shared_float32_atomic_add: bool,
    pub shared_float32_atomic_min_max: bool,
    /// shaderIntegerDotProduct: SPIR-V's `OpSDot`, `OpUDot`, `OpSUDot`
    /// and their saturating accumulating forms.
    pub integer_dot_product: bool,
    /// Which of those, on four 8-bit components packed in a 32-bit word,
    /// the hardware runs as its own dot instructions
    /// (VkPhysicalDeviceShaderIntegerDotProductProperties), in the order
    /// of OpenCL's `cl_device_integer_dot_product_acceleration_properties_khr`:
    /// signed, unsigned, mixed signedness, then the same three accumulating
    /// with saturation.
    pub integer_dot_packed_accelerated: [bool; 6],
    pub workgroup_memory_explicit_layout: bool,
    /// OpReadClockKHR at Subgroup and at Device scope (VK_KHR_shader_clock).
    pub subgroup_clock: bool,
    pub device_clock: bool,
    pub push_descriptor: bool,
    pub external_memory_host: bool,
    /// VK_KHR_external_memory_fd, with storage buffers importable from
    /// opaque file descriptors (`Device::import_memory_fd`).
    pub external_memory_fd: bool,
    /// Buffers past one allocation are bound to several (sparseBinding on
    /// the compute queue): `Limits::max_buffer_size` may exceed
    /// `Limits::max_allocation_size`.
    pub sparse_binding: bool,
    /// storagePushConstant8 / storagePushConstant16: 8- and 16-bit members
    /// may be read straight from the push-constant block.
    pub push_constant_8bit: bool,
    pub push_constant_16bit: bool,
    /// shaderSubgroupExtendedTypes: subgroup operations on 8/16/64-bit types.
    pub subgroup_extended_types: bool,
    /// VK_EXT_subgroup_size_control (or Vulkan 1.3) with COMPUTE among the
    /// requiredSubgroupSizeStages: a compute pipeline may require a subgroup
    /// size (`PipelineOptions::required_subgroup_size`).
    pub subgroup_size_control: bool,
    /// computeFullSubgroups: a pipeline may require full subgroups
    /// (`PipelineOptions::full_subgroups`).
    pub compute_full_subgroups: bool,
    pub float64_atomic_add: bool,
    pub float64_atomic_min_max: bool,
    /// VK_EXT_calibrated_timestamps with the device and a host clock domain.
    pub calibrated_timestamps: bool,
    /// shaderDenormPreserveFloat16/32/64: a module may declare
    /// `DenormPreserve` for that width, so arithmetic keeps subnormals.
    pub denorm_preserve_float16: bool,
    pub denorm_preserve_float32: bool,
    pub denorm_preserve_float64: bool,
    /// VK_KHR_pipeline_executable_properties: a pipeline may be created
    /// with `PipelineOptions::capture_statistics` and report what the
    /// driver compiled (`Pipeline::executables`).
    pub pipeline_statistics: bool,
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
    /// else 1 (see the module docs).
    pub compute_units: u32,
    /// Clock in MHz where the driver tells it; else 0.
    pub max_clock_mhz: u32,
    /// SPIR-V version the device accepts: (1, 5) for Vulkan 1.2, (1, 6) for 1.3.
    pub spirv_version: (u8, u8),
}

/// Which optional Vulkan features and extensions a device has: the single
/// source for both [`Features`] and the feature structs enabled at device
/// creation, so that what is reported is exactly what is enabled.
#[derive(Clone, Debug, Default)]
pub(crate) struct FeatureSupport {
    pub core13: bool,
    pub shader_float64: bool,
    pub shader_int64: bool,
    pub shader_int16: bool,
    /// sparseBinding, on a device whose compute queue family binds sparse
    /// memory: buffers larger than one allocation (see `Limits`).
    pub sparse_binding: bool,
    pub storage_buffer_16bit_access: bool,
    pub storage_push_constant16: bool,
    pub buffer_device_address: bool,
    pub timeline_semaphore: bool,
    pub vulkan_memory_model: bool,
    pub vulkan_memory_model_device_scope: bool,
    pub vulkan_memory_model_availability_visibility_chains: bool,
    pub scalar_block_layout: bool,
    pub storage_buffer_8bit_access: bool,
    pub storage_push_constant8: bool,
    pub shader_int8: bool,
    pub shader_float16: bool,
    pub shader_buffer_int64_atomics: bool,
    pub shader_shared_int64_atomics: bool,
    pub shader_subgroup_extended_types: bool,
    pub subgroup_size_control: bool,
    pub compute_full_subgroups: bool,
    pub shader_integer_dot_product: bool,
    pub atomic_float: Option<AtomicFloatSupport>,
    pub atomic_float2: Option<AtomicFloat2Support>,
    pub workgroup_explicit_layout: Option<WorkgroupLayoutSupport>,
    /// VK_KHR_shader_clock: shaderSubgroupClock, shaderDeviceClock.
    pub shader_clock: Option<ShaderClockSupport>,
    pub push_descriptor: bool,
    pub external_memory_host: bool,
    pub external_memory_fd: bool,
    pub calibrated_timestamps: bool,
    pub portability_subset: bool,
    /// VK_KHR_pipeline_executable_properties with pipelineExecutableInfo.
    pub pipeline_executable_info: bool,
}

#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct AtomicFloatSupport {
    pub buffer_float32_atomics: bool,
    pub buffer_float32_atomic_add: bool,
    pub buffer_float64_atomics: bool,
    pub buffer_float64_atomic_add: bool,
    pub shared_float32_atomics: bool,
    pub shared_float32_atomic_add: bool,
}

#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct AtomicFloat2Support {
    pub buffer_float32_atomic_min_max: bool,
    pub buffer_float64_atomic_min_max: bool,
    pub shared_float32_atomic_min_max: bool,
}

#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ShaderClockSupport {
    pub subgroup: bool,
    pub device: bool,
}

#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct WorkgroupLayoutSupport {
    pub scalar_block_layout: bool,
    pub access_8bit: bool,
    pub access_16bit: bool,
}

/// Everything the backend needs later about a qualifying device.
pub(crate) struct Candidate {
    pub physical: vk::PhysicalDevice,
    pub queue_family: u32,
    pub support: FeatureSupport,
    /// Host-coherent memory types that are DEVICE_LOCAL | HOST_VISIBLE on the
    /// largest device-local heap (bit i = memory type i).
    pub host_visible_device_local_types: u32,
    pub info: PhysicalDeviceInfo,
}

fn flag(value: vk::Bool32) -> bool {
    value == vk::TRUE
}

fn c_string(bytes: Result<&CStr, std::ffi::FromBytesUntilNulError>) -> String {
    bytes
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The device extensions, as owned C strings.
fn device_extensions(instance: &ash::Instance, physical: vk::PhysicalDevice) -> Vec<CString> {
    // SAFETY: `physical` was enumerated from `instance`, which is alive.
    let props = unsafe { instance.enumerate_device_extension_properties(physical) };
    props
        .unwrap_or_default()
        .iter()
        .filter_map(|p| p.extension_name_as_c_str().ok().map(CStr::to_owned))
        .collect()
}

fn has(extensions: &[CString], name: &CStr) -> bool {
    extensions.iter().any(|e| e.as_c_str() == name)
}

/// Probes one physical device. `Err` carries the note saying why it does not
/// qualify.
pub(crate) fn probe(
    entry: &ash::Entry,
    instance: &ash::Instance,
    instance_api: u32,
    physical: vk::PhysicalDevice,
) -> Result<Candidate, String> {
    // SAFETY: `physical` was enumerated from the live `instance`.
    let base = unsafe { instance.get_physical_device_properties(physical) };
    let name = c_string(base.device_name_as_c_str());
    let device_api = base.api_version;
    let effective_api = device_api.min(instance_api);
    if vk::api_version_major(effective_api) == 1 && vk::api_version_minor(effective_api) < 2 {
        return Err(format!(
            "{name}: skipped, it offers Vulkan {}.{} and ferrocl needs 1.2",
            vk::api_version_major(device_api),
            vk::api_version_minor(device_api)
        ));
    }
    let core13 = effective_api >= vk::API_VERSION_1_3;
    let extensions = device_extensions(instance, physical);
    let ext = |n: &CStr| has(&extensions, n);

    // Features.
    let mut v11 = vk::PhysicalDeviceVulkan11Features::default();
    let mut v12 = vk::PhysicalDeviceVulkan12Features::default();
    let mut v13 = vk::PhysicalDeviceVulkan13Features::default();
    let mut sgc = vk::PhysicalDeviceSubgroupSizeControlFeatures::default();
    let mut idp = vk::PhysicalDeviceShaderIntegerDotProductFeatures::default();
    let mut af = vk::PhysicalDeviceShaderAtomicFloatFeaturesEXT::default();
    let mut af2 = vk::PhysicalDeviceShaderAtomicFloat2FeaturesEXT::default();
    let mut wg = vk::PhysicalDeviceWorkgroupMemoryExplicitLayoutFeaturesKHR::default();
    let mut pep = vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default();
    let has_pep = ext(ash::khr::pipeline_executable_properties::NAME);
    let has_sgc_ext = ext(ash::ext::subgroup_size_control::NAME);
    let has_idp_ext = ext(ash::khr::shader_integer_dot_product::NAME);
    let has_af = ext(ash::ext::shader_atomic_float::NAME);
    let has_af2 = ext(ash::ext::shader_atomic_float2::NAME);
    let has_wg = ext(ash::khr::workgroup_memory_explicit_layout::NAME);
    let mut clock = vk::PhysicalDeviceShaderClockFeaturesKHR::default();
    let has_clock = ext(ash::khr::shader_clock::NAME);
    let core10 = {
        let mut f2 = vk::PhysicalDeviceFeatures2::default()
            .push_next(&mut v11)
            .push_next(&mut v12);
        if core13 {
            f2 = f2.push_next(&mut v13);
        } else {
            if has_sgc_ext {
                f2 = f2.push_next(&mut sgc);
            }
            if has_idp_ext {
                f2 = f2.push_next(&mut idp);
            }
        }
        if has_af {
            f2 = f2.push_next(&mut af);
        }
        if has_af2 {
            f2 = f2.push_next(&mut af2);
        }
        if has_wg {
            f2 = f2.push_next(&mut wg);
        }
        if has_clock {
            f2 = f2.push_next(&mut clock);
        }
        if has_pep {
            f2 = f2.push_next(&mut pep);
        }
        // SAFETY: every chained struct is core in `effective_api` or belongs
        // to an extension the device lists; all outlive the call.
        unsafe { instance.get_physical_device_features2(physical, &mut f2) };
        f2.features
    };

    let mut support = FeatureSupport {
        core13,
        shader_float64: flag(core10.shader_float64),
        shader_int64: flag(core10.shader_int64),
        shader_int16: flag(core10.shader_int16),
        sparse_binding: flag(core10.sparse_binding),
        storage_buffer_16bit_access: flag(v11.storage_buffer16_bit_access),
        storage_push_constant16: flag(v11.storage_push_constant16),
        buffer_device_address: flag(v12.buffer_device_address),
        timeline_semaphore: flag(v12.timeline_semaphore),
        vulkan_memory_model: flag(v12.vulkan_memory_model),
        vulkan_memory_model_device_scope: flag(v12.vulkan_memory_model_device_scope),
        vulkan_memory_model_availability_visibility_chains: flag(
            v12.vulkan_memory_model_availability_visibility_chains,
        ),
        scalar_block_layout: flag(v12.scalar_block_layout),
        storage_buffer_8bit_access: flag(v12.storage_buffer8_bit_access),
        storage_push_constant8: flag(v12.storage_push_constant8),
        shader_int8: flag(v12.shader_int8),
        shader_float16: flag(v12.shader_float16),
        shader_buffer_int64_atomics: flag(v12.shader_buffer_int64_atomics),
        shader_shared_int64_atomics: flag(v12.shader_shared_int64_atomics),
        shader_subgroup_extended_types: flag(v12.shader_subgroup_extended_types),
        push_descriptor: ext(ash::khr::push_descriptor::NAME),
        external_memory_host: ext(ash::ext::external_memory_host::NAME),
        external_memory_fd: ext(ash::khr::external_memory_fd::NAME)
            && buffers_importable(
                instance,
                physical,
                vk::ExternalMemoryHandleTypeFlags::OPAQUE_FD,
            ),
        portability_subset: ext(ash::khr::portability_subset::NAME),
        pipeline_executable_info: has_pep && flag(pep.pipeline_executable_info),
        ..FeatureSupport::default()
    };
    if core13 {
        support.subgroup_size_control = flag(v13.subgroup_size_control);
        support.compute_full_subgroups = flag(v13.compute_full_subgroups);
        support.shader_integer_dot_product = flag(v13.shader_integer_dot_product);
    } else {
        support.subgroup_size_control = has_sgc_ext && flag(sgc.subgroup_size_control);
        support.compute_full_subgroups = has_sgc_ext && flag(sgc.compute_full_subgroups);
        support.shader_integer_dot_product = has_idp_ext && flag(idp.shader_integer_dot_product);
    }
    if has_af {
        support.atomic_float = Some(AtomicFloatSupport {
            buffer_float32_atomics: flag(af.shader_buffer_float32_atomics),
            buffer_float32_atomic_add: flag(af.shader_buffer_float32_atomic_add),
            buffer_float64_atomics: flag(af.shader_buffer_float64_atomics),
            buffer_float64_atomic_add: flag(af.shader_buffer_float64_atomic_add),
            shared_float32_atomics: flag(af.shader_shared_float32_atomics),
            shared_float32_atomic_add: flag(af.shader_shared_float32_atomic_add),
        });
    }
    if has_af2 {
        support.atomic_float2 = Some(AtomicFloat2Support {
            buffer_float32_atomic_min_max: flag(af2.shader_buffer_float32_atomic_min_max),
            buffer_float64_atomic_min_max: flag(af2.shader_buffer_float64_atomic_min_max),
            shared_float32_atomic_min_max: flag(af2.shader_shared_float32_atomic_min_max),
        });
    }
    if has_clock && (flag(clock.shader_subgroup_clock) || flag(clock.shader_device_clock)) {
        support.shader_clock = Some(ShaderClockSupport {
            subgroup: flag(clock.shader_subgroup_clock),
            device: flag(clock.shader_device_clock),
        });
    }
    if has_wg && flag(wg.workgroup_memory_explicit_layout) {
        support.workgroup_explicit_layout = Some(WorkgroupLayoutSupport {
            scalar_block_layout: flag(wg.workgroup_memory_explicit_layout_scalar_block_layout),
            access_8bit: flag(wg.workgroup_memory_explicit_layout8_bit_access),
            access_16bit: flag(wg.workgroup_memory_explicit_layout16_bit_access),
        });
    }

    // Queue: a family with COMPUTE, preferring one with timestamps (for
    // profiling), then one without GRAPHICS: on an H100 (driver 580) one
    // dispatch plus a full barrier, submitted and spun on until its timeline
    // signal, took a median 17.3, 18.3 and 18.9 µs on the compute-only family
    // against 18.4, 20.1 and 20.9 µs on the graphics one, in three runs
    // (docs/performance.md, "The Vulkan floor under a launch"). ferrocl
    // records no command that needs a graphics queue.
    // SAFETY: `physical` belongs to the live `instance`.
    let families = unsafe { instance.get_physical_device_queue_family_properties(physical) };
    let compute = |f: &vk::QueueFamilyProperties| {
        f.queue_flags.contains(vk::QueueFlags::COMPUTE) && f.queue_count > 0
    };
    let rank = |f: &vk::QueueFamilyProperties| {
        (
            f.timestamp_valid_bits > 0,
            !f.queue_flags.contains(vk::QueueFlags::GRAPHICS),
        )
    };
    let queue_family = families
        .iter()
        .enumerate()
        .filter(|(_, f)| compute(f))
        // max_by_key keeps the last of equals: reverse for the first.
        .rev()
        .max_by_key(|(_, f)| rank(f))
        .map(|(i, _)| i);

    let mut missing = Vec::new();
    for (ok, what) in [
        (support.buffer_device_address, "bufferDeviceAddress"),
        (support.shader_int64, "shaderInt64"),
        (support.timeline_semaphore, "timelineSemaphore"),
        (support.vulkan_memory_model, "vulkanMemoryModel"),
        (
            support.vulkan_memory_model_device_scope,
            "vulkanMemoryModelDeviceScope",
        ),
        (support.scalar_block_layout, "scalarBlockLayout"),
        (
            support.storage_buffer_8bit_access,
            "storageBuffer8BitAccess",
        ),
        (support.shader_int8, "shaderInt8"),
        (queue_family.is_some(), "a compute queue"),
    ] {
        if !ok {
            missing.push(what);
        }
    }
    if !missing.is_empty() {
        return Err(format!("{name}: skipped, it lacks {}", missing.join(", ")));
    }
    let queue_family = queue_family.unwrap_or(0);
    let timestamp_valid_bits = families
        .get(queue_family)
        .map_or(0, |f| f.timestamp_valid_bits);
    // Sparse memory is bound through the one queue the device gets.
    support.sparse_binding &= families
        .get(queue_family)
        .is_some_and(|f| f.queue_flags.contains(vk::QueueFlags::SPARSE_BINDING));

    // Properties.
    let mut p11 = vk::PhysicalDeviceVulkan11Properties::default();
    let mut p12 = vk::PhysicalDeviceVulkan12Properties::default();
    let mut m4 = vk::PhysicalDeviceMaintenance4Properties::default();
    let mut sgcp = vk::PhysicalDeviceSubgroupSizeControlProperties::default();
    let mut pci = vk::PhysicalDevicePCIBusInfoPropertiesEXT::default();
    let mut sm = vk::PhysicalDeviceShaderSMBuiltinsPropertiesNV::default();
    let mut amd = vk::PhysicalDeviceShaderCorePropertiesAMD::default();
    let mut host_import = vk::PhysicalDeviceExternalMemoryHostPropertiesEXT::default();
    let mut idp_props = vk::PhysicalDeviceShaderIntegerDotProductProperties::default();
    let has_m4 = core13 || ext(ash::khr::maintenance4::NAME);
    let has_sgcp = core13 || has_sgc_ext;
    let has_pci = ext(ash::ext::pci_bus_info::NAME);
    let has_sm = ext(ash::nv::shader_sm_builtins::NAME);
    let has_amd = ext(ash::amd::shader_core_properties::NAME);
    let props = {
        let mut p2 = vk::PhysicalDeviceProperties2::default()
            .push_next(&mut p11)
            .push_next(&mut p12);
        if has_m4 {
            p2 = p2.push_next(&mut m4);
        }
        if has_sgcp {
            p2 = p2.push_next(&mut sgcp);
        }
        if has_pci {
            p2 = p2.push_next(&mut pci);
        }
        if has_sm {
            p2 = p2.push_next(&mut sm);
        }
        if has_amd {
            p2 = p2.push_next(&mut amd);
        }
        if support.external_memory_host {
            p2 = p2.push_next(&mut host_import);
        }
        if support.shader_integer_dot_product {
            p2 = p2.push_next(&mut idp_props);
        }
        // SAFETY: as for the features query above.
        unsafe { instance.get_physical_device_properties2(physical, &mut p2) };
        p2.properties
    };
    let limits = &props.limits;

    let calibrated = ext(ash::ext::calibrated_timestamps::NAME)
        && host_time_domain(entry, instance, physical).is_some();
    support.calibrated_timestamps = calibrated;

    // Memory.
    // SAFETY: `physical` belongs to the live `instance`.
    let memory = unsafe { instance.get_physical_device_memory_properties(physical) };
    let heaps = memory.memory_heaps_as_slice();
    let local_heap = heaps
        .iter()
        .enumerate()
        .filter(|(_, h)| h.flags.contains(vk::MemoryHeapFlags::DEVICE_LOCAL))
        .max_by_key(|(_, h)| h.size)
        .map(|(i, h)| (i as u32, h.size));
    let device_local_heap_size = local_heap.map_or(0, |(_, size)| size);
    let mappable_local = vk::MemoryPropertyFlags::DEVICE_LOCAL
        | vk::MemoryPropertyFlags::HOST_VISIBLE
        | vk::MemoryPropertyFlags::HOST_COHERENT;
    let host_visible_device_local_types = memory
        .memory_types_as_slice()
        .iter()
        .enumerate()
        .filter(|(_, t)| {
            t.property_flags.contains(mappable_local)
                && local_heap.is_some_and(|(heap, _)| heap == t.heap_index)
        })
        .fold(0u32, |mask, (i, _)| mask | (1 << i));
    let device_type = DeviceType::from_vk(props.device_type);
    let unified_memory = matches!(device_type, DeviceType::Cpu | DeviceType::IntegratedGpu)
        || heaps
            .iter()
            .all(|h| h.flags.contains(vk::MemoryHeapFlags::DEVICE_LOCAL));

    let compute_units = if has_sm && sm.shader_sm_count > 0 {
        sm.shader_sm_count
    } else if has_amd && amd.shader_engine_count > 0 {
        amd.shader_engine_count
            * amd.shader_arrays_per_engine_count
            * amd.compute_units_per_shader_array
    } else if device_type == DeviceType::Cpu {
        std::thread::available_parallelism().map_or(1, |n| n.get() as u32)
    } else {
        1
    };
    let max_clock_mhz = if device_type == DeviceType::Cpu {
        host_cpu_max_mhz()
    } else {
        0
    };

    // maxMemoryAllocationSize is a soft limit on some drivers (NVIDIA's
    // allocate past it), but the validation layers treat passing it as an
    // error: a buffer larger than one allocation is bound to several with
    // sparse binding instead, up to maxBufferSize and the sparse address
    // space.
    let max_allocation_size = p11.max_memory_allocation_size;
    let vk_max_buffer = if has_m4 && m4.max_buffer_size > 0 {
        m4.max_buffer_size
    } else {
        max_allocation_size
    };
    let one_allocation = max_allocation_size.min(vk_max_buffer);
    let max_buffer_size = if support.sparse_binding {
        vk_max_buffer
            .min(limits.sparse_address_space_size)
            .max(one_allocation)
    } else {
        one_allocation
    };
    let (min_subgroup_size, max_subgroup_size) = if has_sgcp && sgcp.min_subgroup_size > 0 {
        (sgcp.min_subgroup_size, sgcp.max_subgroup_size)
    } else {
        (p11.subgroup_size, p11.subgroup_size)
    };
    let sg_ops = if p11
        .subgroup_supported_stages
        .contains(vk::ShaderStageFlags::COMPUTE)
    {
        p11.subgroup_supported_operations
    } else {
        vk::SubgroupFeatureFlags::empty()
    };
    let sg = |f: vk::SubgroupFeatureFlags| sg_ops.contains(f);
    let af = support.atomic_float.unwrap_or_default();
    let af2 = support.atomic_float2.unwrap_or_default();

    let info = PhysicalDeviceInfo {
        name,
        vendor_id: props.vendor_id,
        device_id: props.device_id,
        device_type,
        api_version: device_api,
        driver_version: props.driver_version,
        driver_name: c_string(p12.driver_name_as_c_str()),
        driver_info: c_string(p12.driver_info_as_c_str()),
        device_uuid: p11.device_uuid,
        driver_uuid: p11.driver_uuid,
        device_luid: flag(p11.device_luid_valid).then_some(p11.device_luid),
        device_node_mask: p11.device_node_mask,
        pci_bus_info: has_pci.then_some((
            pci.pci_domain,
            pci.pci_bus,
            pci.pci_device,
            pci.pci_function,
        )),
        limits: Limits {
            max_push_constants_size: limits.max_push_constants_size,
            max_compute_shared_memory_size: limits.max_compute_shared_memory_size,
            max_compute_work_group_invocations: limits.max_compute_work_group_invocations,
            max_compute_work_group_size: limits.max_compute_work_group_size,
            max_compute_work_group_count: limits.max_compute_work_group_count,
            max_buffer_size,
            max_allocation_size,
            max_storage_buffer_range: limits.max_storage_buffer_range,
            timestamp_period: limits.timestamp_period,
            subgroup_size: p11.subgroup_size,
            min_subgroup_size,
            max_subgroup_size,
            timestamp_valid_bits,
            min_storage_buffer_offset_alignment: limits.min_storage_buffer_offset_alignment,
            min_imported_host_pointer_alignment: if support.external_memory_host {
                host_import.min_imported_host_pointer_alignment
            } else {
                0
            },
        },
        features: Features {
            float64: support.shader_float64,
            float16: support.shader_float16 && support.storage_buffer_16bit_access,
            int16: support.shader_int16,
            storage_16bit: support.storage_buffer_16bit_access,
            int64_atomics: support.shader_buffer_int64_atomics,
            shared_int64_atomics: support.shader_shared_int64_atomics,
            subgroup_basic: sg(vk::SubgroupFeatureFlags::BASIC),
            subgroup_vote: sg(vk::SubgroupFeatureFlags::VOTE),
            subgroup_ballot: sg(vk::SubgroupFeatureFlags::BALLOT),
            subgroup_shuffle: sg(vk::SubgroupFeatureFlags::SHUFFLE),
            subgroup_shuffle_relative: sg(vk::SubgroupFeatureFlags::SHUFFLE_RELATIVE),
            subgroup_arithmetic: sg(vk::SubgroupFeatureFlags::ARITHMETIC),
            subgroup_clustered: sg(vk::SubgroupFeatureFlags::CLUSTERED),
            float32_atomic_add: af.buffer_float32_atomic_add,
            float32_atomic_min_max: af2.buffer_float32_atomic_min_max,
            shared_float32_atomic_add: af.shared_float32_atomic_add,
            shared_float32_atomic_min_max: af2.shared_float32_atomic_min_max,
            integer_dot_product: support.shader_integer_dot_product,
            integer_dot_packed_accelerated: [
                idp_props.integer_dot_product4x8_bit_packed_signed_accelerated,
                idp_props.integer_dot_product4x8_bit_packed_unsigned_accelerated,
                idp_props.integer_dot_product4x8_bit_packed_mixed_signedness_accelerated,
                idp_props.integer_dot_product_accumulating_saturating4x8_bit_packed_signed_accelerated,
                idp_props.integer_dot_product_accumulating_saturating4x8_bit_packed_unsigned_accelerated,
                idp_props.integer_dot_product_accumulating_saturating4x8_bit_packed_mixed_signedness_accelerated,
            ]
            .map(flag),
            workgroup_memory_explicit_layout: support.workgroup_explicit_layout.is_some(),
            subgroup_clock: support.shader_clock.is_some_and(|c| c.subgroup),
            device_clock: support.shader_clock.is_some_and(|c| c.device),
            push_descriptor: support.push_descriptor,
            external_memory_host: support.external_memory_host,
            external_memory_fd: support.external_memory_fd,
            sparse_binding: support.sparse_binding,
            push_constant_8bit: support.storage_push_constant8,
            push_constant_16bit: support.storage_push_constant16,
            subgroup_extended_types: support.shader_subgroup_extended_types,
            subgroup_size_control: support.subgroup_size_control
                && has_sgcp
                && sgcp
                    .required_subgroup_size_stages
                    .contains(vk::ShaderStageFlags::COMPUTE),
            compute_full_subgroups: support.compute_full_subgroups,
            float64_atomic_add: af.buffer_float64_atomic_add,
            float64_atomic_min_max: af2.buffer_float64_atomic_min_max,
            calibrated_timestamps: calibrated,
            denorm_preserve_float16: flag(p12.shader_denorm_preserve_float16),
            denorm_preserve_float32: flag(p12.shader_denorm_preserve_float32),
            denorm_preserve_float64: flag(p12.shader_denorm_preserve_float64),
            pipeline_statistics: support.pipeline_executable_info,
        },
        device_local_heap_size,
        host_visible_device_local: host_visible_device_local_types != 0,
        unified_memory,
        compute_units,
        max_clock_mhz,
        spirv_version: if core13 { (1, 6) } else { (1, 5) },
    };
    Ok(Candidate {
        physical,
        queue_family: queue_family as u32,
        support,
        host_visible_device_local_types,
        info,
    })
}

/// The host clock that VK_EXT_calibrated_timestamps can pair with the
/// device clock, if the device offers one: CLOCK_MONOTONIC on POSIX,
/// QueryPerformanceCounter on Windows.
pub(crate) fn host_time_domain(
    entry: &ash::Entry,
    instance: &ash::Instance,
    physical: vk::PhysicalDevice,
) -> Option<vk::TimeDomainEXT> {
    let calibrated = ash::ext::calibrated_timestamps::Instance::new(entry, instance);
    // SAFETY: the device lists VK_EXT_calibrated_timestamps (checked by the
    // caller), so the instance-level query exists.
    let domains =
        unsafe { calibrated.get_physical_device_calibrateable_time_domains(physical) }.ok()?;
    if !domains.contains(&vk::TimeDomainEXT::DEVICE) {
        return None;
    }
    let host = if cfg!(windows) {
        vk::TimeDomainEXT::QUERY_PERFORMANCE_COUNTER
    } else {
        vk::TimeDomainEXT::CLOCK_MONOTONIC
    };
    domains.contains(&host).then_some(host)
}

/// The host CPU's highest clock in MHz (a CPU Vulkan device runs on it), from
/// cpufreq or /proc/cpuinfo; 0 when neither says.
fn host_cpu_max_mhz() -> u32 {
    if let Ok(khz) =
        std::fs::read_to_string("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq")
    {
        if let Ok(khz) = khz.trim().parse::<u64>() {
            return (khz / 1000) as u32;
        }
    }
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .filter(|l| l.starts_with("cpu MHz"))
                .filter_map(|l| l.split(':').nth(1)?.trim().parse::<f64>().ok())
                .reduce(f64::max)
        })
        .map_or(0, |mhz| mhz.round() as u32)
}

/// The usage of every buffer ferrocl makes.
pub(crate) const BUFFER_USAGE: vk::BufferUsageFlags = vk::BufferUsageFlags::from_raw(
    vk::BufferUsageFlags::STORAGE_BUFFER.as_raw()
        | vk::BufferUsageFlags::TRANSFER_SRC.as_raw()
        | vk::BufferUsageFlags::TRANSFER_DST.as_raw()
        | vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS.as_raw(),
);

/// Whether buffers of [`BUFFER_USAGE`] can be bound to memory imported
/// from handles of `handle_type`.
pub(crate) fn buffers_importable(
    instance: &ash::Instance,
    physical: vk::PhysicalDevice,
    handle_type: vk::ExternalMemoryHandleTypeFlags,
) -> bool {
    let query = vk::PhysicalDeviceExternalBufferInfo::default()
        .usage(BUFFER_USAGE)
        .handle_type(handle_type);
    let mut props = vk::ExternalBufferProperties::default();
    // SAFETY: `physical` belongs to the live instance.
    unsafe {
        instance.get_physical_device_external_buffer_properties(physical, &query, &mut props)
    };
    props
        .external_memory_properties
        .external_memory_features
        .contains(vk::ExternalMemoryFeatureFlags::IMPORTABLE)
}
