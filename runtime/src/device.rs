//! The OpenCL device: one per qualifying Vulkan physical device.
//!
//! Owns the derivation of every `CL_DEVICE_*` value and of the compiler's
//! [`TargetCaps`] from the backend's [`PhysicalDeviceInfo`] (pure functions,
//! [`derive_device_info`] and [`derive_target_caps`], so that both can be
//! checked without a GPU), and the lazily opened Vulkan device. It makes no
//! Vulkan call itself.

use crate::api::{ApiHeader, ApiObject, Tag};
use crate::cl::*;
use crate::event::host_time_ns;
use crate::platform::Platform;
use ferrocl_compiler::TargetCaps;
use ferrocl_vk::{DeviceType, PhysicalDeviceInfo};
use std::sync::{Arc, Mutex, OnceLock};

/// `CL_MAKE_VERSION(major, minor, patch)`: a packed `cl_version`.
pub const fn make_version(major: u32, minor: u32, patch: u32) -> u32 {
    (major << 22) | (minor << 12) | patch
}

/// `CL_NAME_VERSION_MAX_NAME_SIZE`: the name field of `cl_name_version`.
pub const NAME_VERSION_MAX_NAME_SIZE: usize = 64;

/// One `cl_name_version` (an extension, an OpenCL C version or feature).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NameVersion {
    pub version: u32,
    pub name: String,
}

impl NameVersion {
    pub fn new(name: &str, version: u32) -> NameVersion {
        NameVersion {
            version,
            name: name.to_string(),
        }
    }

    /// The C layout of an array of `cl_name_version`: a `cl_version` then
    /// a NUL-padded `char[64]` for each entry.
    pub fn to_c_bytes(list: &[NameVersion]) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(list.len() * (4 + NAME_VERSION_MAX_NAME_SIZE));
        for entry in list {
            bytes.extend_from_slice(&entry.version.to_ne_bytes());
            let mut name = [0u8; NAME_VERSION_MAX_NAME_SIZE];
            // Names are ours and short; the last byte always stays NUL.
            let len = entry.name.len().min(NAME_VERSION_MAX_NAME_SIZE - 1);
            name[..len].copy_from_slice(&entry.name.as_bytes()[..len]);
            bytes.extend_from_slice(&name);
        }
        bytes
    }
}

/// Preferred or native vector widths, per scalar type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VectorWidths {
    pub char: u32,
    pub short: u32,
    pub int: u32,
    pub long: u32,
    pub float: u32,
    pub double: u32,
    pub half: u32,
}

/// Every `CL_DEVICE_*` value that depends on the device, computed once.
/// Queries whose answer is the same for every device (image limits, no pipes,
/// no on-device queues, ...) are answered by the ICD directly.
#[derive(Clone, Debug)]
pub struct DeviceInfo {
    /// `CL_DEVICE_TYPE`; never includes `CL_DEVICE_TYPE_DEFAULT`.
    pub device_type: cl_bitfield,
    pub vendor_id: u32,
    pub max_compute_units: u32,
    pub max_work_item_sizes: [usize; 3],
    pub max_work_group_size: usize,
    /// The work-group width every launch of a kernel that ignores its
    /// work-groups runs with (runtime/src/kernel.rs `dispatch_shape`), or
    /// `None` where `FERROCL_GROUP_SIZE=enqueued` keeps launches as
    /// enqueued.
    pub shared_group_width: Option<usize>,
    /// Kernels carry the register pad (compiler lower/register_pad.rs) and
    /// launches of at most [`crate::kernel::REGISTER_PAD_ITEMS_PER_UNIT`]
    /// work-items per compute unit size it ([`register_pad`]).
    pub register_pad: bool,
    /// Kernels that ignore their work-groups have their pipelines created
    /// on background threads when the kernel is created
    /// (runtime/src/kernel.rs `Kernel::create_pipelines_ahead`), see
    /// [`pipelines_ahead`].
    pub pipelines_ahead: bool,
    pub preferred_vector_widths: VectorWidths,
    pub native_vector_widths: VectorWidths,
    /// MHz; 0 where the driver does not tell.
    pub max_clock_frequency: u32,
    pub address_bits: u32,
    pub max_mem_alloc_size: u64,
    pub image_support: bool,
    pub max_parameter_size: usize,
    /// In bits, as `CL_DEVICE_MEM_BASE_ADDR_ALIGN` reports it (sub-buffer
    /// offsets must be multiples of `mem_base_addr_align / 8` bytes).
    pub mem_base_addr_align: u32,
    /// In bytes.
    pub min_data_type_align_size: u32,
    pub single_fp_config: cl_bitfield,
    pub double_fp_config: cl_bitfield,
    /// 0 unless the device offers cl_khr_fp16.
    pub half_fp_config: cl_bitfield,
    pub global_mem_cache_type: u32,
    pub global_mem_cacheline_size: u32,
    pub global_mem_cache_size: u64,
    pub global_mem_size: u64,
    pub max_constant_buffer_size: u64,
    pub max_constant_args: u32,
    pub local_mem_type: u32,
    pub local_mem_size: u64,
    pub host_unified_memory: bool,
    /// Nanoseconds per device timestamp tick, rounded up.
    pub profiling_timer_resolution: usize,
    pub queue_properties: cl_bitfield,
    pub name: String,
    pub vendor: String,
    pub driver_version: String,
    pub profile: String,
    pub version: String,
    pub numeric_version: u32,
    pub opencl_c_version: String,
    pub opencl_c_numeric_version: u32,
    pub opencl_c_all_versions: Vec<NameVersion>,
    pub opencl_c_features: Vec<NameVersion>,
    /// `CL_DEVICE_EXTENSIONS`: space separated.
    pub extensions: String,
    pub extensions_with_version: Vec<NameVersion>,
    pub printf_buffer_size: usize,
    pub svm_capabilities: cl_bitfield,
    pub atomic_memory_capabilities: cl_bitfield,
    pub atomic_fence_capabilities: cl_bitfield,
    /// `CL_DEVICE_SINGLE_FP_ATOMIC_CAPABILITIES_EXT`.
    pub single_fp_atomic_capabilities: cl_bitfield,
    /// `CL_DEVICE_KERNEL_CLOCK_CAPABILITIES_KHR`.
    pub kernel_clock_capabilities: cl_bitfield,
    /// `CL_DEVICE_INTEGER_DOT_PRODUCT_ACCELERATION_PROPERTIES_{8BIT,
    /// 4x8BIT_PACKED}_KHR`, one answer for both: both forms compile to the
    /// packed instructions where the compiler emits them, and these are
    /// the driver's flags for those; all false where it writes arithmetic.
    pub integer_dot_acceleration: [bool; 6],
    /// `CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT`.
    pub work_group_collective_functions: bool,
    /// The size of every sub-group (cl_khr_subgroups), 0 without them.
    pub sub_group_size: u32,
    /// `CL_DEVICE_MAX_NUM_SUB_GROUPS`: sub-groups in the largest
    /// work-group, 0 without sub-groups.
    pub max_num_sub_groups: u32,
    pub preferred_work_group_size_multiple: usize,
    pub device_uuid: [u8; 16],
    pub driver_uuid: [u8; 16],
    pub device_luid: Option<[u8; 8]>,
    pub node_mask: u32,
    /// `cl_device_pci_bus_info_khr` (domain, bus, device, function) where
    /// the backend knows it; `cl_khr_pci_bus_info` is exposed only then.
    pub pci_bus_info: Option<[u32; 4]>,
}

impl DeviceInfo {
    pub fn has_extension(&self, name: &str) -> bool {
        self.extensions_with_version.iter().any(|e| e.name == name)
    }
}

/// The OpenCL C extensions ferrocl's compiler implements on every device.
/// These are also the macros and pragmas the compiler accepts.
const OPENCL_C_EXTENSIONS: [&str; 10] = [
    "cl_khr_3d_image_writes",
    "cl_khr_byte_addressable_store",
    "cl_khr_depth_images",
    // Shifts, masks and 32-bit bit reversal (compiler/src/lower/bit_ops.rs).
    "cl_khr_extended_bit_ops",
    "cl_khr_global_int32_base_atomics",
    "cl_khr_global_int32_extended_atomics",
    // SPIR-V's dot instructions or 32-bit arithmetic (`integer_dot_instructions`).
    "cl_khr_integer_dot_product",
    "cl_khr_local_int32_base_atomics",
    "cl_khr_local_int32_extended_atomics",
    "cl_khr_srgb_image_writes",
    // Not cl_khr_work_group_uniform_arithmetic, although the compiler has
    // its functions (compiler/src/lower/collective.rs): the CTS's
    // compiler_defines_for_extensions (b8f8906c) fails any cl_khr_ name
    // missing from its list of approved extensions, and this one is.
];

/// The revision of cl_khr_command_buffer implemented.
pub const COMMAND_BUFFER_VERSION: u32 = make_version(0, 9, 8);

/// The revision of cl_khr_command_buffer_mutable_dispatch implemented.
pub const MUTABLE_DISPATCH_VERSION: u32 = make_version(0, 9, 5);

/// The API-only extensions every ferrocl device has.
const API_EXTENSIONS: [&str; 9] = [
    // Every buffer has a fixed device address (device_address.rs).
    "cl_ext_buffer_device_address",
    // Recorded commands replayed through each queue (command_buffer.rs).
    "cl_khr_command_buffer",
    "cl_khr_command_buffer_mutable_dispatch",
    // clCreateCommandQueueWithProperties for OpenCL 1.x applications.
    "cl_khr_create_command_queue",
    "cl_khr_device_uuid",
    "cl_khr_extended_versioning",
    "cl_khr_image2d_from_buffer",
    // Binary semaphores kept on the host (semaphore.rs).
    "cl_khr_semaphore",
    "cl_khr_suggested_local_work_size",
];

/// Size of the printf buffer a kernel writes into: eight times the full
/// profile's minimum. A `printf("%c", c)` record takes 24 bytes, so 1 MiB
/// held the output of 43,690 such calls, fewer than one call per work-item
/// of a 64 Ki-item NDRange (CTS cl_khr_command_buffer `printf` prints
/// 98,304 characters in one launch). Only a queue that runs printf kernels
/// allocates these buffers.
const PRINTF_BUFFER_SIZE: usize = 8 * 1024 * 1024;

/// What `clSetKernelArg` data may total. Arguments that do not fit the push
/// constants go to an argument buffer, so the push-constant budget is not
/// the limit; 1024 is the spec's minimum, which keeps the launch block small.
const MAX_PARAMETER_SIZE: usize = 1024;

/// The largest OpenCL C type, `long16`, in bytes: loads and stores carry
/// their C alignment, so a sub-buffer must start on this boundary.
const LARGEST_TYPE_SIZE: u32 = 128;

/// The largest work-group reported even where Vulkan allows more: kernels
/// commonly size `__local` arrays by the work-group size, and with the
/// 32 KiB of local memory that every device offers, wider groups leave them
/// under 32 bytes per work-item.
const MAX_WORK_GROUP_SIZE: u32 = 1024;

fn opencl_c_extension_names(vk: &PhysicalDeviceInfo) -> Vec<&'static str> {
    let mut names = OPENCL_C_EXTENSIONS.to_vec();
    if vk.features.float64 {
        names.push("cl_khr_fp64");
    }
    // Half arithmetic runs on shaderFloat16 with 16-bit storage; the math
    // built-ins compute in float and round once to half.
    if vk.features.float16 {
        names.push("cl_khr_fp16");
    }
    if int64_atomics(vk) {
        names.push("cl_khr_int64_base_atomics");
        names.push("cl_khr_int64_extended_atomics");
    }
    // Float atomic add and min/max on VK_EXT_shader_atomic_float(2); the
    // capabilities say which operations and memories.
    if single_fp_atomic_capabilities(vk) != 0 {
        names.push("cl_ext_float_atomics");
    }
    names.extend(subgroup_extension_names(vk));
    if kernel_clock_capabilities(vk) != 0 {
        names.push("cl_khr_kernel_clock");
    }
    names
}

/// `CL_DEVICE_KERNEL_CLOCK_CAPABILITIES_KHR`: the scopes of
/// `OpReadClockKHR` the device reads (VK_KHR_shader_clock). Vulkan has no
/// work-group clock, so that scope is never offered.
fn kernel_clock_capabilities(vk: &PhysicalDeviceInfo) -> cl_bitfield {
    let mut caps = 0;
    if vk.features.device_clock {
        caps |= CL_DEVICE_KERNEL_CLOCK_SCOPE_DEVICE_KHR;
    }
    if vk.features.subgroup_clock {
        caps |= CL_DEVICE_KERNEL_CLOCK_SCOPE_SUB_GROUP_KHR;
    }
    caps
}

/// The sub-group size every kernel runs with, where the device offers
/// OpenCL C 3.0 sub-groups (`__opencl_c_subgroups`): votes, broadcasts (by
/// shuffle for a non-constant id), reductions and scans of 64-bit types
/// too (shaderSubgroupExtendedTypes), and one fixed subgroup size, so that
/// what clGetKernelSubGroupInfo reports is what a launch gets.
pub fn sub_group_size(vk: &PhysicalDeviceInfo) -> Option<u32> {
    let f = &vk.features;
    let l = &vk.limits;
    let offered = f.subgroup_basic
        && f.subgroup_vote
        && f.subgroup_ballot
        && f.subgroup_arithmetic
        && f.subgroup_shuffle
        && f.subgroup_extended_types
        && l.subgroup_size > 0
        && l.min_subgroup_size == l.max_subgroup_size;
    offered.then_some(l.subgroup_size)
}

/// The extended sub-group extensions the device's Vulkan subgroup
/// operations in compute allow. cl_khr_subgroups itself is not among them:
/// it promises independent forward progress of sub-groups, which Vulkan
/// does not.
fn subgroup_extension_names(vk: &PhysicalDeviceInfo) -> Vec<&'static str> {
    if sub_group_size(vk).is_none() {
        return Vec::new();
    }
    let mut names = vec![
        "cl_khr_subgroup_non_uniform_vote",
        "cl_khr_subgroup_ballot",
        "cl_khr_subgroup_non_uniform_arithmetic",
        "cl_khr_subgroup_shuffle",
        // Rotations are shuffles.
        "cl_khr_subgroup_rotate",
    ];
    if vk.features.subgroup_shuffle_relative {
        names.push("cl_khr_subgroup_shuffle_relative");
    }
    // Reductions over clusters of a constant power-of-two size.
    if vk.features.subgroup_clustered {
        names.push("cl_khr_subgroup_clustered_reduce");
    }
    // 8- and 16-bit integers and vectors in broadcasts, reductions and
    // scans (half too, where the device has it).
    if vk.features.int16 {
        names.push("cl_khr_subgroup_extended_types");
    }
    names
}

/// Whether cl_khr_integer_dot_product's built-ins compile to SPIR-V's dot
/// instructions: where the driver runs the packed 4 x 8-bit ones as its
/// own instructions (it reports them accelerated: 4.9x the 32-bit
/// arithmetic on the H100). A driver that does not runs arithmetic in
/// their place, no faster than ferrocl's own (lavapipe: 29-40 GIOPS either
/// way), so such a device gets the arithmetic every device runs alike.
/// `FERROCL_INTEGER_DOT=arith` or `=instructions` (where the device has
/// shaderIntegerDotProduct) chooses, to compare the two and to test both
/// on any device.
fn integer_dot_instructions(vk: &PhysicalDeviceInfo) -> bool {
    let f = &vk.features;
    if !f.integer_dot_product {
        return false;
    }
    let accelerated = f.integer_dot_packed_accelerated[..3].iter().all(|&a| a);
    code_shape(
        "FERROCL_INTEGER_DOT",
        ["instructions", "arith"],
        accelerated,
    )
}

/// The work-group width of launches of kernels that ignore their
/// work-groups: wide enough that work-group count limits no device's
/// occupancy, the size NVIDIA's guides suggest for such kernels.
const SHARED_GROUP_WIDTH: usize = 256;

/// Which of two ways to compile or run something: `on` or `off` where the
/// environment variable `var` names one (to compare the two and to test
/// both on any device), `default` otherwise.
pub(crate) fn code_shape(var: &str, [on, off]: [&str; 2], default: bool) -> bool {
    match std::env::var(var).as_deref() {
        Ok(v) if v == on => true,
        Ok(v) if v == off => false,
        _ => default,
    }
}

/// NVIDIA's own driver on an NVIDIA device (not, say, Mesa's NVK).
fn nvidia_driver(vk: &PhysicalDeviceInfo) -> bool {
    vk.vendor_id == NVIDIA_VENDOR_ID && vk.driver_name == "NVIDIA"
}

/// What `CL_DEVICE_INTEGER_DOT_PRODUCT_ACCELERATION_PROPERTIES_*` answer
/// (see [`DeviceInfo::integer_dot_acceleration`]).
fn integer_dot_acceleration(vk: &PhysicalDeviceInfo) -> [bool; 6] {
    if integer_dot_instructions(vk) {
        vk.features.integer_dot_packed_accelerated
    } else {
        [false; 6]
    }
}

/// cl_khr_int64_{base,extended}_atomics cover `__global` and `__local`
/// memory alike: both Vulkan features are needed.
fn int64_atomics(vk: &PhysicalDeviceInfo) -> bool {
    vk.features.int64_atomics && vk.features.shared_int64_atomics
}

fn opencl_c_feature_names(vk: &PhysicalDeviceInfo) -> Vec<&'static str> {
    // Only what the compiler implements today: 64-bit integers are required
    // of every full-profile device; fp64 follows shaderFloat64.
    let mut names = vec!["__opencl_c_int64"];
    if vk.features.float64 {
        names.push("__opencl_c_fp64");
    }
    if vk.features.float16 {
        names.push("__opencl_c_fp16");
    }
    // Program-scope and static __global variables live in one buffer per
    // program, found through a hidden kernel argument.
    names.push("__opencl_c_program_scope_global_variables");
    // `__opencl_c_generic_address_space` is not in this list: it needs a
    // look at a real buffer device address (`Device::generic_address_space`).
    // OpenCL C 2.0 atomics on the Vulkan memory model: acquire-release
    // ordering at work-group and device scope (vulkanMemoryModelDeviceScope
    // is required of every device). The Vulkan memory model has no
    // sequentially consistent ordering and no scope across devices and the
    // host, so `__opencl_c_atomic_order_seq_cst` and
    // `__opencl_c_atomic_scope_all_devices` are not offered.
    names.push("__opencl_c_atomic_order_acq_rel");
    names.push("__opencl_c_atomic_scope_device");
    // Written with local memory and barriers: every device has them.
    names.push("__opencl_c_work_group_collective_functions");
    if sub_group_size(vk).is_some() {
        names.push("__opencl_c_subgroups");
    }
    let clock = kernel_clock_capabilities(vk);
    if clock & CL_DEVICE_KERNEL_CLOCK_SCOPE_DEVICE_KHR != 0 {
        names.push("__opencl_c_kernel_clock_scope_device");
    }
    if clock & CL_DEVICE_KERNEL_CLOCK_SCOPE_SUB_GROUP_KHR != 0 {
        names.push("__opencl_c_kernel_clock_scope_sub_group");
    }
    // cl_khr_integer_dot_product, both forms.
    names.push("__opencl_c_integer_dot_product_input_4x8bit");
    names.push("__opencl_c_integer_dot_product_input_4x8bit_packed");
    // Images in software (docs/images.md): every type, written too, and
    // read_write images.
    names.push("__opencl_c_images");
    names.push("__opencl_c_3d_image_writes");
    names.push("__opencl_c_read_write_images");
    let fp = single_fp_atomic_capabilities(vk);
    for (bit, name) in [
        (
            CL_DEVICE_GLOBAL_FP_ATOMIC_ADD_EXT,
            "__opencl_c_ext_fp32_global_atomic_add",
        ),
        (
            CL_DEVICE_LOCAL_FP_ATOMIC_ADD_EXT,
            "__opencl_c_ext_fp32_local_atomic_add",
        ),
        (
            CL_DEVICE_GLOBAL_FP_ATOMIC_MIN_MAX_EXT,
            "__opencl_c_ext_fp32_global_atomic_min_max",
        ),
        (
            CL_DEVICE_LOCAL_FP_ATOMIC_MIN_MAX_EXT,
            "__opencl_c_ext_fp32_local_atomic_min_max",
        ),
    ] {
        if fp & bit != 0 {
            names.push(name);
        }
    }
    names
}

/// `CL_DEVICE_SINGLE_FP_ATOMIC_CAPABILITIES_EXT` (cl_ext_float_atomics):
/// float atomic add and min/max where VK_EXT_shader_atomic_float(2) has
/// them. Loads, stores and exchanges of floats are plain 32-bit atomics
/// and work everywhere, but the extension names them only together with
/// an arithmetic operation.
pub fn single_fp_atomic_capabilities(vk: &PhysicalDeviceInfo) -> cl_bitfield {
    let f = &vk.features;
    let mut caps = 0;
    if f.float32_atomic_add {
        caps |= CL_DEVICE_GLOBAL_FP_ATOMIC_ADD_EXT;
    }
    if f.float32_atomic_min_max {
        caps |= CL_DEVICE_GLOBAL_FP_ATOMIC_MIN_MAX_EXT;
    }
    if f.shared_float32_atomic_add {
        caps |= CL_DEVICE_LOCAL_FP_ATOMIC_ADD_EXT;
    }
    if f.shared_float32_atomic_min_max {
        caps |= CL_DEVICE_LOCAL_FP_ATOMIC_MIN_MAX_EXT;
    }
    if caps != 0 {
        caps |=
            CL_DEVICE_GLOBAL_FP_ATOMIC_LOAD_STORE_EXT | CL_DEVICE_LOCAL_FP_ATOMIC_LOAD_STORE_EXT;
    }
    caps
}

fn extension_list(vk: &PhysicalDeviceInfo) -> Vec<NameVersion> {
    let v1 = make_version(1, 0, 0);
    let mut list: Vec<NameVersion> = opencl_c_extension_names(vk)
        .into_iter()
        .chain(API_EXTENSIONS)
        .map(|name| {
            let version = match name {
                // Version 2 added the acceleration queries, which are
                // answered.
                "cl_khr_integer_dot_product" => make_version(2, 0, 0),
                // The provisional extension's revision whose entry points
                // and enums ferrocl has.
                "cl_khr_command_buffer" => COMMAND_BUFFER_VERSION,
                "cl_khr_command_buffer_mutable_dispatch" => MUTABLE_DISPATCH_VERSION,
                "cl_ext_buffer_device_address" => make_version(1, 0, 2),
                _ => v1,
            };
            NameVersion::new(name, version)
        })
        .collect();
    if vk.pci_bus_info.is_some() {
        list.push(NameVersion::new("cl_khr_pci_bus_info", v1));
    }
    // Buffers over memory Vulkan exported (external_memory.rs).
    if vk.features.external_memory_fd {
        list.push(NameVersion::new(
            "cl_khr_external_memory",
            make_version(1, 0, 1),
        ));
        list.push(NameVersion::new("cl_khr_external_memory_opaque_fd", v1));
    }
    list.sort_by(|a, b| a.name.cmp(&b.name));
    list
}

/// NVIDIA's PCI vendor id.
const NVIDIA_VENDOR_ID: u32 = 0x10de;

/// The vendor string for a PCI (or Khronos) vendor id.
fn vendor_name(vendor_id: u32) -> String {
    match vendor_id {
        NVIDIA_VENDOR_ID => "NVIDIA Corporation".to_string(),
        0x1002 | 0x1022 => "Advanced Micro Devices, Inc.".to_string(),
        0x8086 => "Intel(R) Corporation".to_string(),
        0x13b5 => "ARM".to_string(),
        0x5143 => "Qualcomm".to_string(),
        0x106b => "Apple".to_string(),
        0x1010 => "Imagination Technologies".to_string(),
        0x14e4 => "Broadcom".to_string(),
        // VK_VENDOR_ID_MESA, a Khronos vendor id (lavapipe, venus, ...).
        0x10005 => "Mesa".to_string(),
        other => format!("Vulkan vendor 0x{other:04x}"),
    }
}

/// `CL_DEVICE_VENDOR_ID`: a PCI id in the low 16 bits, or a Khronos id
/// (≥ 0x10000) as Vulkan already reports it.
fn cl_vendor_id(vendor_id: u32) -> u32 {
    if vendor_id >= 0x10000 {
        vendor_id
    } else {
        vendor_id & 0xffff
    }
}

/// Derives every device-dependent `CL_DEVICE_*` value from what the Vulkan
/// backend found.
pub fn derive_device_info(vk: &PhysicalDeviceInfo) -> DeviceInfo {
    let limits = &vk.limits;
    let register_pad = register_pad(vk);
    let device_type = match vk.device_type {
        DeviceType::Cpu => CL_DEVICE_TYPE_CPU,
        DeviceType::DiscreteGpu | DeviceType::IntegratedGpu | DeviceType::VirtualGpu => {
            CL_DEVICE_TYPE_GPU
        }
        DeviceType::Other => CL_DEVICE_TYPE_ACCELERATOR,
    };

    let max_work_group_size = limits
        .max_compute_work_group_invocations
        .clamp(1, MAX_WORK_GROUP_SIZE);
    let max_work_item_sizes = limits
        .max_compute_work_group_size
        .map(|n| n.clamp(1, max_work_group_size) as usize);

    let global_mem_size = vk.device_local_heap_size;
    // Buffers are addressed through their device address, so only the
    // largest single allocation bounds a memory object, not
    // maxStorageBufferRange.
    let max_mem_alloc_size = if limits.max_buffer_size == 0 {
        global_mem_size
    } else {
        limits.max_buffer_size.min(global_mem_size)
    };

    let fp64 = vk.features.float64;
    let vector_widths = VectorWidths {
        // Both lavapipe (which vectorises across work-items) and GPUs run
        // scalar code best.
        char: 1,
        short: 1,
        int: 1,
        long: 1,
        float: 1,
        double: u32::from(fp64),
        half: u32::from(vk.features.float16),
    };

    // Kernels declare DenormPreserve for 32-bit floats where the device
    // offers it (shaderDenormPreserveFloat32, optional in Vulkan), so only
    // there are subnormals promised; fma() is not promised to be a hardware
    // fused operation, so CL_FP_FMA stays off.
    let single_fp_config = CL_FP_ROUND_TO_NEAREST
        | CL_FP_INF_NAN
        | if vk.features.denorm_preserve_float32 {
            CL_FP_DENORM
        } else {
            0
        };
    // Selecting a rounding mode for arithmetic left OpenCL C in 1.1, so the
    // rounding bits now say which modes double arithmetic offers where a
    // kernel can name one: convert_* with _rtz/_rtp/_rtn to and from double
    // and vstore_half_rt* of doubles, which the compiler rounds exactly in
    // every mode. That is the OpenCL 1.x minimum for a device with doubles,
    // which the CTS (math_brute_force, api min_max_double_fp_config) asks
    // of every device that lists cl_khr_fp64.
    let double_fp_config = if fp64 {
        CL_FP_FMA
            | CL_FP_ROUND_TO_NEAREST
            | CL_FP_ROUND_TO_ZERO
            | CL_FP_ROUND_TO_INF
            | CL_FP_INF_NAN
            | CL_FP_DENORM
    } else {
        0
    };

    // Round-to-nearest with infinities and NaNs: the minimum cl_khr_fp16
    // asks of a device without half denormals promised.
    let half_fp_config = if vk.features.float16 {
        CL_FP_ROUND_TO_NEAREST
            | CL_FP_INF_NAN
            | if vk.features.denorm_preserve_float16 {
                CL_FP_DENORM
            } else {
                0
            }
    } else {
        0
    };

    let extensions_with_version = extension_list(vk);
    let extensions = extensions_with_version
        .iter()
        .map(|e| e.name.as_str())
        .collect::<Vec<_>>()
        .join(" ");

    let c_version = |major, minor| NameVersion::new("OpenCL C", make_version(major, minor, 0));
    let opencl_c_all_versions = vec![
        c_version(1, 0),
        c_version(1, 1),
        c_version(1, 2),
        c_version(3, 0),
    ];
    let opencl_c_features = opencl_c_feature_names(vk)
        .into_iter()
        .map(|name| NameVersion::new(name, make_version(3, 0, 0)))
        .collect();

    let version = env!("CARGO_PKG_VERSION");
    let vulkan_driver = [vk.driver_name.trim(), vk.driver_info.trim()]
        .into_iter()
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    let driver_version = format!("ferrocl {version} (Vulkan driver: {vulkan_driver})");

    DeviceInfo {
        device_type,
        vendor_id: cl_vendor_id(vk.vendor_id),
        max_compute_units: vk.compute_units.max(1),
        max_work_item_sizes,
        max_work_group_size: max_work_group_size as usize,
        shared_group_width: code_shape("FERROCL_GROUP_SIZE", ["shared", "enqueued"], true)
            .then(|| SHARED_GROUP_WIDTH.min(max_work_item_sizes[0])),
        register_pad,
        pipelines_ahead: pipelines_ahead(vk),
        preferred_vector_widths: vector_widths,
        native_vector_widths: vector_widths,
        max_clock_frequency: vk.max_clock_mhz,
        address_bits: 64,
        max_mem_alloc_size,
        // Images are buffers that kernels read and write in software
        // (docs/images.md), so every device supports them.
        image_support: true,
        max_parameter_size: MAX_PARAMETER_SIZE,
        // Descriptors, where a sub-buffer is bound through one, need
        // minStorageBufferOffsetAlignment as well.
        mem_base_addr_align: (u64::from(LARGEST_TYPE_SIZE)
            .max(limits.min_storage_buffer_offset_alignment)
            * 8)
        .min(u64::from(u32::MAX)) as u32,
        min_data_type_align_size: LARGEST_TYPE_SIZE,
        single_fp_config,
        double_fp_config,
        half_fp_config,
        // Vulkan does not describe the cache hierarchy.
        global_mem_cache_type: CL_NONE,
        global_mem_cacheline_size: 0,
        global_mem_cache_size: 0,
        global_mem_size,
        // `__constant` pointers are device addresses like `__global` ones, so
        // any buffer can be a constant buffer.
        max_constant_buffer_size: max_mem_alloc_size,
        // Each one is an 8-byte address in the argument block; the
        // parameter budget allows 128 of them.
        max_constant_args: (MAX_PARAMETER_SIZE / 8) as u32,
        local_mem_type: CL_LOCAL,
        // The register pad's word takes work-group memory in every kernel.
        local_mem_size: u64::from(limits.max_compute_shared_memory_size).saturating_sub(
            if register_pad {
                REGISTER_PAD_RESERVED
            } else {
                0
            },
        ),
        host_unified_memory: vk.unified_memory,
        profiling_timer_resolution: (limits.timestamp_period.ceil() as usize).max(1),
        // Out of order: commands without dependencies overlap on the GPU.
        queue_properties: CL_QUEUE_PROFILING_ENABLE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
        name: vk.name.clone(),
        vendor: vendor_name(vk.vendor_id),
        driver_version,
        profile: "FULL_PROFILE".to_string(),
        version: "OpenCL 3.0 ferrocl".to_string(),
        numeric_version: make_version(3, 0, 0),
        opencl_c_version: "OpenCL C 1.2 ferrocl".to_string(),
        opencl_c_numeric_version: make_version(1, 2, 0),
        opencl_c_all_versions,
        opencl_c_features,
        extensions,
        extensions_with_version,
        printf_buffer_size: PRINTF_BUFFER_SIZE,
        svm_capabilities: 0,
        // The orders and scopes the Vulkan memory model gives (see
        // `opencl_c_feature_names`); a work-item fence is a work-group one.
        atomic_memory_capabilities: CL_DEVICE_ATOMIC_ORDER_RELAXED
            | CL_DEVICE_ATOMIC_ORDER_ACQ_REL
            | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP
            | CL_DEVICE_ATOMIC_SCOPE_DEVICE,
        atomic_fence_capabilities: CL_DEVICE_ATOMIC_ORDER_RELAXED
            | CL_DEVICE_ATOMIC_ORDER_ACQ_REL
            | CL_DEVICE_ATOMIC_SCOPE_WORK_ITEM
            | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP
            | CL_DEVICE_ATOMIC_SCOPE_DEVICE,
        single_fp_atomic_capabilities: single_fp_atomic_capabilities(vk),
        integer_dot_acceleration: integer_dot_acceleration(vk),
        kernel_clock_capabilities: kernel_clock_capabilities(vk),
        work_group_collective_functions: true,
        sub_group_size: sub_group_size(vk).unwrap_or(0),
        max_num_sub_groups: sub_group_size(vk)
            .map_or(0, |size| max_work_group_size.div_ceil(size.max(1))),
        preferred_work_group_size_multiple: limits.subgroup_size.max(1) as usize,
        device_uuid: vk.device_uuid,
        driver_uuid: vk.driver_uuid,
        device_luid: vk.device_luid,
        node_mask: vk.device_node_mask,
        pci_bus_info: vk
            .pci_bus_info
            .map(|(domain, bus, device, function)| [domain, bus, device, function]),
    }
}

/// The compiler's view of the same device facts.
pub fn derive_target_caps(vk: &PhysicalDeviceInfo) -> TargetCaps {
    TargetCaps {
        spirv_version: vk.spirv_version,
        max_push_constants_size: vk.limits.max_push_constants_size,
        fp64: vk.features.float64,
        fp16: vk.features.float16,
        int16: vk.features.int16,
        integer_dot_product: integer_dot_instructions(vk),
        int64_atomics: int64_atomics(vk),
        denorm_preserve_fp16: vk.features.denorm_preserve_float16,
        denorm_preserve_fp32: vk.features.denorm_preserve_float32,
        denorm_preserve_fp64: vk.features.denorm_preserve_float64,
        // Kernels read and write images in software (docs/images.md), so
        // every device compiles image kernels.
        images: true,
        extensions: opencl_c_extension_names(vk)
            .into_iter()
            .map(String::from)
            .collect(),
        features: opencl_c_feature_names(vk)
            .into_iter()
            .map(String::from)
            .collect(),
        // lavapipe runs every memory fence as a work-group barrier, which
        // breaks fences in loops that work-items leave at different times
        // (docs/conformance.md, "lavapipe's fences").
        fences_as_atomics: vk.driver_name == "llvmpipe",
        // lavapipe's double `trunc` and `rint` are wrong where the CPU has
        // no AVX-512 (compiler TargetCaps::f64_rounding_from_floor).
        f64_rounding_from_floor: vk.driver_name == "llvmpipe",
        rotate64_in_halves: rotate64_in_halves(vk),
        funnel_shift64: funnel_shift64(vk),
        fused_fma: fused_fma(vk),
        header_buffer: header_buffer(),
        outline_min_nodes: outline_min_nodes_setting(),
        outline_member_copies: outline_member_copies(),
        split_private_pool: split_private_pool(),
        hoist_loop_invariants: hoist_loop_invariants(),
        split_loop_addresses: split_loop_addresses(),
        copy_out_private_loops: copy_out_private_loops(vk),
        private_byte_words: private_byte_words(vk),
        const_locals_as_constants: const_locals_as_constants(),
        register_pad: register_pad(vk),
    }
}

/// Kernels declare a work-group array that a small launch's pipeline sizes
/// so that NVIDIA's driver gives the kernel every register it can use
/// (compiler lower/register_pad.rs, runtime/src/kernel.rs
/// `pads_registers`). On an H200 (driver 580) inside hashcat, scrypt's
/// loop went from 14.02 to 10.26 ms a launch (NVIDIA's OpenCL 12.04-12.12);
/// descrypt, LM and DES at NVIDIA's sizes, small launches too, and
/// SHA2-256's large ones did not move. scrypt's `loop_prepare` timed alone
/// went from 164.2 to 181.3 ms the other way. Other drivers were not
/// measured and go without. `FERROCL_REGISTER_PAD=on` or `=off` chooses,
/// to compare the two and to test both on any device.
fn register_pad(vk: &PhysicalDeviceInfo) -> bool {
    code_shape("FERROCL_REGISTER_PAD", ["on", "off"], nvidia_driver(vk))
}

/// Pipelines created when their kernel is created, before its first
/// launch. NVIDIA's driver takes seconds for a large kernel (hashcat's
/// scrypt `init` and `comp`: 2.4-2.7 s each on an H200), and its OpenCL
/// compiles at `clBuildProgram`, before an application times anything;
/// with the compile at the first launch, hashcat's scrypt benchmark
/// measured 704 H/s on a first run where the next run, its pipelines in
/// the cache, measured 10,934 (NVIDIA's OpenCL 11,649). Other drivers go
/// without: llvmpipe's compiles take the CPU the tests run on.
/// `FERROCL_PIPELINES_AHEAD=on` or `=off` chooses, to compare the two and
/// to test both on any device.
fn pipelines_ahead(vk: &PhysicalDeviceInfo) -> bool {
    code_shape("FERROCL_PIPELINES_AHEAD", ["on", "off"], nvidia_driver(vk))
}

/// A struct member passed to an outlined function as a copy of it
/// (compiler lower/outline.rs `member_copy`), so that one copy of the
/// function serves every member. `FERROCL_OUTLINE_MEMBERS=copy` or
/// `=chain` (a copy of the function per member) chooses, to compare the
/// two and to test both on any device.
fn outline_member_copies() -> bool {
    code_shape("FERROCL_OUTLINE_MEMBERS", ["copy", "chain"], true)
}

/// Bytes of work-group memory held back from `CL_DEVICE_LOCAL_MEM_SIZE`
/// where kernels carry the register pad: its one word, with room to align
/// it.
const REGISTER_PAD_RESERVED: u64 = 16;

/// `const` integer locals with constant initializers read as their
/// constants, so that loops they bound count as constant-trip loops
/// (compiler lower/mod.rs, `note_constant_local`).
/// `FERROCL_CONST_LOCALS=fold` or `=keep` chooses, to compare the two and
/// to test both on any device.
fn const_locals_as_constants() -> bool {
    code_shape("FERROCL_CONST_LOCALS", ["fold", "keep"], true)
}

/// Loops of a few constant trips over a private array copied out, each
/// copy reading the counter as a constant (compiler lower/unroll.rs):
/// NVIDIA's Vulkan compiler places arrays before it unrolls, so an array
/// indexed by a counter stays in local memory though the loop is unrolled
/// (hashcat's sha512crypt loop on an H200: 62.7 ms kept, 62.1 copied out).
/// llvmpipe compiles every compute shader as a coroutine, and LLVM
/// builds the coroutine's frame for the copies slowly: the CTS's
/// `vload_private` kernels took 39.8 s copied out against 30.9 s kept
/// (shader caches off). Other drivers were not measured and keep the
/// loops. `FERROCL_PRIVATE_LOOPS=copy` or `=keep` chooses, to
/// compare the two and to test both on any device.
fn copy_out_private_loops(vk: &PhysicalDeviceInfo) -> bool {
    code_shape("FERROCL_PRIVATE_LOOPS", ["copy", "keep"], nvidia_driver(vk))
}

/// Private variables that take byte stores held as `uchar4` words
/// (compiler lower/split_pool.rs): through NVIDIA's Vulkan compiler a byte
/// stored into a `uint` word is a load, a merge and a store, into a
/// `uchar4` component one `STL.U8` (a 64-byte append into a `ulong[16]`
/// on an H200: 54.7 against 48.2 ms; hashcat's RAR3-hp loop 97.09
/// against 96.88 ms). On llvmpipe the CTS's `vload_private` kernels took
/// LLVM over 300 s with `uchar4` words (building coroutine frames)
/// against 30.9 s. Other drivers were not measured and keep `uint` words.
/// `FERROCL_PRIVATE_BYTES=uchar4` or `=uint` chooses, to compare the two
/// and to test both on any device.
fn private_byte_words(vk: &PhysicalDeviceInfo) -> bool {
    code_shape(
        "FERROCL_PRIVATE_BYTES",
        ["uchar4", "uint"],
        nvidia_driver(vk),
    )
}

/// Loop invariants computed once before their loop (compiler
/// spirv/hoist.rs): NVIDIA's Vulkan compiler leaves them in the loop.
/// `FERROCL_LOOP_INVARIANTS=hoist` or `=keep` chooses, to compare the two
/// and to test both on any device.
fn hoist_loop_invariants() -> bool {
    code_shape("FERROCL_LOOP_INVARIANTS", ["hoist", "keep"], true)
}

/// A loop's addresses split into the part it changes and the part
/// computed before it (compiler spirv/hoist/addresses.rs): NVIDIA's Vulkan
/// compiler computes the whole address every trip.
/// `FERROCL_LOOP_ADDRESSES=split` or `=compute` chooses, to compare the two
/// and to test both on any device.
fn split_loop_addresses() -> bool {
    code_shape("FERROCL_LOOP_ADDRESSES", ["split", "compute"], true)
}

/// A kernel that reinterprets private memory gets a word array per
/// variable where every access's variable is known (compiler
/// lower/split_pool.rs): the driver keeps in registers the arrays only
/// read at constant offsets. On an H200, hashcat's sha512crypt loop ran in
/// 69.0-69.1 against 74.3 ms with one array for all (md5crypt, SHA2-256,
/// SHA2-512 and WPA unchanged). `FERROCL_PRIVATE_POOL=split` or `=whole`
/// chooses, to compare the two and to test both on any device.
fn split_private_pool() -> bool {
    code_shape("FERROCL_PRIVATE_POOL", ["split", "whole"], true)
}

/// NVIDIA's Vulkan compiler matches 32-bit funnel shifts but not 64-bit
/// rotates (compiler lower/rotate.rs): hashcat's SHA2-512 on an H100 ran
/// at 0.62 of NVIDIA's OpenCL with the rotates as 64-bit shifts, 0.98 on
/// halves. LLVM (lavapipe) has a 64-bit rotate and matches the shifts:
/// there halves are slower (hashcat SHA2-512 657-711 to 416-424 kH/s).
/// Other drivers were not measured and keep the shifts.
/// `FERROCL_ROTATE64=halves` or `=shifts` chooses, to compare the two and
/// to test both on any device.
fn rotate64_in_halves(vk: &PhysicalDeviceInfo) -> bool {
    code_shape("FERROCL_ROTATE64", ["halves", "shifts"], nvidia_driver(vk))
}

/// NVIDIA's Vulkan compiler makes one `SHF.R.U64` of the low half of a
/// 64-bit shift right, so byte alignments (compiler lower/funnel.rs)
/// shift the pair: on an H100 a chain of them ran in 818 µs against
/// 1317 µs as 32-bit shifts (2481 µs as branches). On lavapipe the 64-bit
/// shift is the slower one (16.1 against 8.3 ms; branches 13.5 ms).
/// `FERROCL_FUNNEL=wide` or `=narrow` chooses, to compare the two and to
/// test both on any device.
fn funnel_shift64(vk: &PhysicalDeviceInfo) -> bool {
    code_shape("FERROCL_FUNNEL", ["wide", "narrow"], nvidia_driver(vk))
}

/// NVIDIA's driver compiles GLSL.std.450 `Fma` to its fused multiply-adds
/// (`FFMA`, `DFMA`, `HFMA2`), correctly rounded, so `fma` uses it (compiler
/// `TargetCaps::fused_fma`): OpenCV's FFT rows, whose butterflies are
/// `fma`s, took 52 us on an H200 with the library's fma in double (350
/// double compares and 315 conversions in its machine code) against
/// NVIDIA's OpenCL's 26. Vulkan does not promise a fused `Fma`
/// (VK_KHR_shader_fma would, which the H200's driver 580 does not offer),
/// so other drivers keep the library. `FERROCL_FMA=fused` or `=library`
/// chooses, to compare the two and to test both on any device.
fn fused_fma(vk: &PhysicalDeviceInfo) -> bool {
    code_shape("FERROCL_FMA", ["fused", "library"], nvidia_driver(vk))
}

/// Where a kernel's launch header and arguments pass the push-constant
/// limit, the arguments go to a buffer (`FERROCL_LARGE_ARGS=buffer`, the
/// default) or the header does (`=push`, compiler
/// `TargetCaps::header_buffer`). On an H100 with hashcat's kernels (200 to
/// 208 bytes of arguments, at NVIDIA's work sizes) pushed arguments ran
/// sha512crypt's loop in 74.9 against 77.0 ms, but SHA2-256 in 74.9
/// against 73.7 and SHA1 in 54.4 against 53.7 (md5crypt, WPA, SHA2-512,
/// MD5 and BLAKE2b alike), so the default stays with the faster fast
/// hashes.
fn header_buffer() -> bool {
    code_shape("FERROCL_LARGE_ARGS", ["push", "buffer"], false)
}

/// `TargetCaps::outline_min_nodes` as `FERROCL_OUTLINE_NODES` sets it.
pub fn outline_min_nodes_setting() -> usize {
    outline_min_nodes(std::env::var("FERROCL_OUTLINE_NODES").ok().as_deref())
}

/// `TargetCaps::outline_min_nodes` from a `FERROCL_OUTLINE_NODES` value: a
/// number of expression nodes (0 outlines every function the compiler
/// can, `never` none); the compiler's default when unset or unreadable.
fn outline_min_nodes(setting: Option<&str>) -> usize {
    match setting.map(str::trim) {
        Some("never") => usize::MAX,
        Some(n) => n
            .parse()
            .unwrap_or(ferrocl_compiler::lower::OUTLINE_MIN_NODES),
        None => ferrocl_compiler::lower::OUTLINE_MIN_NODES,
    }
}

/// The OpenCL C 3.0 feature of generic pointers (tagged at run time where
/// the compiler cannot resolve them: compiler/src/lower/generic.rs).
const GENERIC_ADDRESS_SPACE: &str = "__opencl_c_generic_address_space";

/// Can a buffer at device `address` be reached through a tagged generic
/// pointer: are its bits 62 and 63 clear?
pub fn address_leaves_tag_bits_clear(address: u64) -> bool {
    address >> 62 == 0
}

/// `caps` where the device's buffer addresses leave the generic pointer
/// tag free.
fn with_generic_address_space(mut caps: TargetCaps) -> TargetCaps {
    caps.features.push(GENERIC_ADDRESS_SPACE.to_string());
    caps
}

/// A `cl_device_id`. Root devices live as long as the platform (the whole
/// process); `clRetainDevice`/`clReleaseDevice` do not change them.
#[repr(C)]
pub struct Device {
    header: ApiHeader,
    /// Index in the backend instance's device list.
    index: usize,
    vk_info: PhysicalDeviceInfo,
    info: DeviceInfo,
    caps: TargetCaps,
    /// `caps` with `__opencl_c_generic_address_space`.
    caps_generic: TargetCaps,
    /// Whether buffer device addresses leave bits 62 and 63 clear, which
    /// tagged generic pointers use; known once the device has been opened.
    generic_tags_fit: OnceLock<bool>,
    backend: OnceLock<ferrocl_vk::Device>,
    /// Serialises opening the Vulkan device; a failed open is retried by
    /// the next caller rather than remembered.
    opening: Mutex<()>,
    /// The pipelines created since the device's `VkPipelineCache` was last
    /// written to disk.
    pub(crate) unsaved_pipelines: crate::pipeline_cache::Unsaved,
}

// SAFETY: repr(C) with ApiHeader first; the tag is Device's alone.
unsafe impl ApiObject for Device {
    const TAG: Tag = Tag::Device;
    const INVALID: cl_int = CL_INVALID_DEVICE;
}

impl Device {
    /// A device for entry `index` of the backend instance's device list.
    pub(crate) fn new(index: usize, vk_info: PhysicalDeviceInfo) -> Device {
        Device {
            header: ApiHeader::new(Tag::Device),
            index,
            info: derive_device_info(&vk_info),
            caps: derive_target_caps(&vk_info),
            caps_generic: with_generic_address_space(derive_target_caps(&vk_info)),
            generic_tags_fit: OnceLock::new(),
            vk_info,
            backend: OnceLock::new(),
            opening: Mutex::new(()),
            unsaved_pipelines: crate::pipeline_cache::Unsaved::default(),
        }
    }

    pub fn platform(&self) -> &'static Arc<Platform> {
        Platform::get()
    }

    /// The Vulkan device, opened on first use.
    pub fn backend(&self) -> Result<&ferrocl_vk::Device, cl_int> {
        if let Some(device) = self.backend.get() {
            return Ok(device);
        }
        let _guard = self
            .opening
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(device) = self.backend.get() {
            return Ok(device);
        }
        let cache = self.pipeline_cache_path();
        let cache_data = crate::pipeline_cache::load(cache.as_deref());
        let instance = self.platform().instance();
        match instance.open_device_with_pipeline_cache(self.index, &cache_data) {
            Ok(device) => Ok(self.backend.get_or_init(|| device)),
            Err(ferrocl_vk::Error::OutOfHostMemory) => Err(CL_OUT_OF_HOST_MEMORY),
            Err(error) => {
                if crate::platform::debug_enabled() {
                    eprintln!(
                        "ferrocl: opening Vulkan device {} failed: {error:?}",
                        self.vk_info.name
                    );
                }
                Err(CL_OUT_OF_RESOURCES)
            }
        }
    }

    /// Where this device's `VkPipelineCache` is kept on disk
    /// (pipeline_cache.rs), when the cache is on.
    pub fn pipeline_cache_path(&self) -> Option<std::path::PathBuf> {
        crate::pipeline_cache::path(&self.vk_info.device_uuid, self.vk_info.driver_version)
    }

    /// What the compiler may use on this device; the generic address
    /// space only once [`Device::generic_address_space`] has said yes.
    pub fn target_caps(&self) -> &TargetCaps {
        if self.generic_address_space() {
            &self.caps_generic
        } else {
            &self.caps
        }
    }

    /// `CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT`. A generic pointer that the
    /// compiler cannot resolve is a 64-bit value whose bits 62 and 63 tag
    /// the space (`__global`/`__constant` addresses keep 0), so the feature
    /// needs buffer device addresses below 2^62. Vulkan bounds no address,
    /// so the answer comes from a real allocation when the device is first
    /// opened: lavapipe's addresses are host pointers (at most 57 bits on
    /// x86-64 and AArch64), GPUs' are virtual addresses of 40 to 57 bits.
    /// A device that cannot be opened reports no support.
    pub fn generic_address_space(&self) -> bool {
        if let Some(&fit) = self.generic_tags_fit.get() {
            return fit;
        }
        let Ok(backend) = self.backend() else {
            return false;
        };
        let fit = match backend.create_buffer(16, ferrocl_vk::MemoryLocation::DeviceLocal) {
            Ok(buffer) => address_leaves_tag_bits_clear(buffer.device_address()),
            // An allocation that fails now is no answer; ask again later.
            Err(_) => return false,
        };
        if !fit && crate::platform::debug_enabled() {
            eprintln!(
                "ferrocl: {}: buffer device addresses use bits 62-63; \
                 the generic address space is not offered",
                self.vk_info.name
            );
        }
        *self.generic_tags_fit.get_or_init(|| fit)
    }

    /// `CL_DEVICE_OPENCL_C_FEATURES`: [`DeviceInfo::opencl_c_features`]
    /// and the generic address space where the device has it.
    pub fn opencl_c_features(&self) -> Vec<NameVersion> {
        let mut features = self.info.opencl_c_features.clone();
        if self.generic_address_space() {
            features.push(NameVersion::new(
                GENERIC_ADDRESS_SPACE,
                make_version(3, 0, 0),
            ));
        }
        features
    }

    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }

    pub fn vk_info(&self) -> &PhysicalDeviceInfo {
        &self.vk_info
    }

    /// `clGetDeviceAndHostTimer`: (device timer, host timer) in
    /// nanoseconds. The device timer is the timebase of this device's event
    /// profiling times, which the queues place on the host's monotonic
    /// clock ([`host_time_ns`]); so the two are one reading of that clock,
    /// which is as close together as the spec asks.
    pub fn device_and_host_timer(&self) -> (u64, u64) {
        let now = host_time_ns();
        (now, now)
    }

    /// Whether this is the platform's `CL_DEVICE_TYPE_DEFAULT` device.
    pub fn is_default(&self) -> bool {
        self.platform()
            .devices()
            .first()
            .is_some_and(|first| std::ptr::eq(Arc::as_ptr(first), self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferrocl_vk::{Features, Limits};

    fn lavapipe_like() -> PhysicalDeviceInfo {
        PhysicalDeviceInfo {
            name: "llvmpipe (LLVM 15.0.6, 256 bits)".to_string(),
            vendor_id: 0x10005,
            device_id: 0,
            device_type: DeviceType::Cpu,
            api_version: (1 << 22) | (3 << 12),
            driver_version: 1,
            driver_name: "llvmpipe".to_string(),
            driver_info: "Mesa 22.3.6 (LLVM 15.0.6)".to_string(),
            device_uuid: [1; 16],
            driver_uuid: [2; 16],
            device_luid: None,
            device_node_mask: 0,
            pci_bus_info: None,
            limits: Limits {
                max_push_constants_size: 128,
                max_compute_shared_memory_size: 32768,
                max_compute_work_group_invocations: 1024,
                max_compute_work_group_size: [1024, 1024, 1024],
                max_compute_work_group_count: [65535, 65535, 65535],
                max_buffer_size: 2 << 30,
                max_storage_buffer_range: 1 << 27,
                timestamp_period: 1.0,
                subgroup_size: 8,
                min_subgroup_size: 8,
                max_subgroup_size: 8,
                ..Limits::default()
            },
            features: Features {
                float64: true,
                int16: true,
                int64_atomics: true,
                shared_int64_atomics: true,
                ..Features::default()
            },
            device_local_heap_size: 16 << 30,
            host_visible_device_local: true,
            unified_memory: true,
            compute_units: 2,
            max_clock_mhz: 0,
            spirv_version: (1, 6),
        }
    }

    fn h100_like() -> PhysicalDeviceInfo {
        PhysicalDeviceInfo {
            name: "NVIDIA H100 80GB HBM3".to_string(),
            vendor_id: 0x10de,
            device_id: 0x2330,
            device_type: DeviceType::DiscreteGpu,
            api_version: (1 << 22) | (4 << 12),
            driver_version: 0,
            driver_name: "NVIDIA".to_string(),
            driver_info: "580.65.06".to_string(),
            device_uuid: [3; 16],
            driver_uuid: [4; 16],
            device_luid: None,
            device_node_mask: 0,
            pci_bus_info: Some((0, 0x1b, 0, 0)),
            limits: Limits {
                max_push_constants_size: 256,
                max_compute_shared_memory_size: 49152,
                max_compute_work_group_invocations: 1024,
                max_compute_work_group_size: [1024, 1024, 64],
                max_compute_work_group_count: [u32::MAX >> 1, 65535, 65535],
                max_buffer_size: (4 << 30) - 4096,
                max_storage_buffer_range: u32::MAX,
                timestamp_period: 1.0,
                subgroup_size: 32,
                min_subgroup_size: 32,
                max_subgroup_size: 32,
                ..Limits::default()
            },
            features: Features {
                float64: true,
                float16: true,
                int16: true,
                int64_atomics: true,
                shared_int64_atomics: true,
                subgroup_basic: true,
                workgroup_memory_explicit_layout: true,
                push_descriptor: true,
                denorm_preserve_float16: true,
                denorm_preserve_float32: true,
                denorm_preserve_float64: true,
                ..Features::default()
            },
            device_local_heap_size: 80 << 30,
            host_visible_device_local: false,
            unified_memory: false,
            compute_units: 132,
            max_clock_mhz: 1980,
            spirv_version: (1, 6),
        }
    }

    /// Minimums of the OpenCL 3.0 full profile that hold on any device.
    fn check_full_profile_minimums(info: &DeviceInfo) {
        assert!(info.max_compute_units >= 1);
        assert!(info.max_work_group_size >= 1);
        assert!(info
            .max_work_item_sizes
            .iter()
            .all(|&n| n >= 1 && n <= info.max_work_group_size));
        assert!(info.max_parameter_size >= 1024);
        assert!(info.mem_base_addr_align >= 1024);
        assert!(info.max_constant_buffer_size >= 64 * 1024);
        assert!(info.max_constant_args >= 8);
        assert!(info.local_mem_size >= 32 * 1024);
        assert!(info.printf_buffer_size >= 1024 * 1024);
        assert_eq!(
            info.single_fp_config & (CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN),
            CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN
        );
        assert_ne!(info.queue_properties & CL_QUEUE_PROFILING_ENABLE, 0);
        let needed_memory = CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP;
        assert_eq!(
            info.atomic_memory_capabilities & needed_memory,
            needed_memory
        );
        let needed_fence = needed_memory | CL_DEVICE_ATOMIC_ORDER_ACQ_REL;
        assert_eq!(info.atomic_fence_capabilities & needed_fence, needed_fence);
        let min_alloc = (info.global_mem_size / 4).clamp(32 << 20, 1 << 30);
        assert!(info.max_mem_alloc_size >= min_alloc);
        assert!(info.max_mem_alloc_size <= info.global_mem_size);
        assert_eq!(info.device_type & CL_DEVICE_TYPE_DEFAULT, 0);
        for v in [(1, 0), (1, 1), (1, 2), (3, 0)] {
            let version = make_version(v.0, v.1, 0);
            assert!(info
                .opencl_c_all_versions
                .iter()
                .any(|e| e.name == "OpenCL C" && e.version == version));
        }
        // The string and the versioned list name the same extensions once each.
        let mut names: Vec<&str> = info.extensions.split(' ').collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), info.extensions_with_version.len());
        assert!(names.iter().all(|n| info.has_extension(n)));
        assert!(info.version.starts_with("OpenCL 3.0 "));
        assert!(info.opencl_c_version.starts_with("OpenCL C 1.2 "));
    }

    #[test]
    fn lavapipe_is_a_cpu_device_with_its_own_limits() {
        let info = derive_device_info(&lavapipe_like());
        check_full_profile_minimums(&info);
        assert_eq!(info.device_type, CL_DEVICE_TYPE_CPU);
        assert_eq!(info.vendor_id, 0x10005);
        assert_eq!(info.vendor, "Mesa");
        assert_eq!(info.max_compute_units, 2);
        assert_eq!(info.max_work_group_size, 1024);
        assert_eq!(info.max_work_item_sizes, [1024, 1024, 1024]);
        assert_eq!(info.global_mem_size, 16 << 30);
        assert_eq!(info.max_mem_alloc_size, 2 << 30);
        assert_eq!(info.local_mem_size, 32768);
        assert_eq!(info.preferred_work_group_size_multiple, 8);
        assert!(info.host_unified_memory);
        assert!(!info.has_extension("cl_khr_pci_bus_info"));
        assert_eq!(info.pci_bus_info, None);
        assert_eq!(
            info.driver_version,
            "ferrocl 0.1.0 (Vulkan driver: llvmpipe Mesa 22.3.6 (LLVM 15.0.6))"
        );
    }

    #[test]
    fn h100_is_a_gpu_device_with_its_own_limits() {
        let info = derive_device_info(&h100_like());
        check_full_profile_minimums(&info);
        assert_eq!(info.device_type, CL_DEVICE_TYPE_GPU);
        assert_eq!(info.vendor_id, 0x10de);
        assert_eq!(info.vendor, "NVIDIA Corporation");
        assert_eq!(info.max_compute_units, 132);
        assert_eq!(info.max_clock_frequency, 1980);
        assert_eq!(info.max_work_item_sizes, [1024, 1024, 64]);
        assert_eq!(info.max_mem_alloc_size, (4 << 30) - 4096);
        let pad = if info.register_pad { 16 } else { 0 };
        assert_eq!(info.local_mem_size, 49152 - pad);
        assert_eq!(info.preferred_work_group_size_multiple, 32);
        assert!(!info.host_unified_memory);
        assert!(info.has_extension("cl_khr_pci_bus_info"));
        assert_eq!(info.pci_bus_info, Some([0, 0x1b, 0, 0]));
        // shaderFloat16 with 16-bit storage offers half precision.
        assert!(info.has_extension("cl_khr_fp16"));
        assert_eq!(info.preferred_vector_widths.half, 1);
        // shaderDenormPreserveFloat16/32 let kernels keep subnormals.
        assert_eq!(
            info.half_fp_config,
            CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN | CL_FP_DENORM
        );
        assert_ne!(info.single_fp_config & CL_FP_DENORM, 0);
        let caps = derive_target_caps(&h100_like());
        assert!(caps.denorm_preserve_fp32 && caps.denorm_preserve_fp64);
    }

    #[test]
    fn subnormal_floats_are_promised_only_with_denorm_preserve() {
        let info = derive_device_info(&lavapipe_like());
        assert_eq!(info.single_fp_config & CL_FP_DENORM, 0);
        assert!(!derive_target_caps(&lavapipe_like()).denorm_preserve_fp32);
    }

    #[test]
    fn only_nvidia_rotates_64_bit_values_in_halves() {
        if std::env::var_os("FERROCL_ROTATE64").is_none() {
            assert!(derive_target_caps(&h100_like()).rotate64_in_halves);
            assert!(!derive_target_caps(&lavapipe_like()).rotate64_in_halves);
        }
    }

    #[test]
    fn only_nvidia_takes_the_drivers_fma() {
        if std::env::var_os("FERROCL_FMA").is_none() {
            assert!(derive_target_caps(&h100_like()).fused_fma);
            assert!(!derive_target_caps(&lavapipe_like()).fused_fma);
        }
    }

    #[test]
    fn only_nvidia_aligns_bytes_with_64_bit_shifts() {
        if std::env::var_os("FERROCL_FUNNEL").is_none() {
            assert!(derive_target_caps(&h100_like()).funnel_shift64);
            assert!(!derive_target_caps(&lavapipe_like()).funnel_shift64);
        }
    }

    #[test]
    fn only_nvidia_pads_registers() {
        if std::env::var_os("FERROCL_REGISTER_PAD").is_none() {
            assert!(derive_target_caps(&h100_like()).register_pad);
            assert!(derive_device_info(&h100_like()).register_pad);
            assert!(!derive_target_caps(&lavapipe_like()).register_pad);
            assert!(!derive_device_info(&lavapipe_like()).register_pad);
        }
    }

    #[test]
    fn only_nvidia_creates_pipelines_ahead() {
        if std::env::var_os("FERROCL_PIPELINES_AHEAD").is_none() {
            assert!(derive_device_info(&h100_like()).pipelines_ahead);
            assert!(!derive_device_info(&lavapipe_like()).pipelines_ahead);
        }
    }

    #[test]
    fn only_nvidia_copies_out_private_loops_and_holds_bytes_as_uchar4() {
        if std::env::var_os("FERROCL_PRIVATE_LOOPS").is_none() {
            assert!(derive_target_caps(&h100_like()).copy_out_private_loops);
            assert!(!derive_target_caps(&lavapipe_like()).copy_out_private_loops);
        }
        if std::env::var_os("FERROCL_PRIVATE_BYTES").is_none() {
            assert!(derive_target_caps(&h100_like()).private_byte_words);
            assert!(!derive_target_caps(&lavapipe_like()).private_byte_words);
        }
    }

    #[test]
    fn only_lavapipe_runs_fences_as_atomics() {
        assert!(derive_target_caps(&lavapipe_like()).fences_as_atomics);
        assert!(!derive_target_caps(&h100_like()).fences_as_atomics);
    }

    #[test]
    fn fp64_follows_shader_float64() {
        let mut vk = lavapipe_like();
        let info = derive_device_info(&vk);
        assert!(info.has_extension("cl_khr_fp64"));
        // The OpenCL 1.x minimum for doubles, which the CTS requires.
        assert_eq!(
            info.double_fp_config,
            CL_FP_FMA
                | CL_FP_ROUND_TO_NEAREST
                | CL_FP_ROUND_TO_ZERO
                | CL_FP_ROUND_TO_INF
                | CL_FP_INF_NAN
                | CL_FP_DENORM
        );
        assert_eq!(info.preferred_vector_widths.double, 1);
        assert!(info
            .opencl_c_features
            .iter()
            .any(|f| f.name == "__opencl_c_fp64"));
        let caps = derive_target_caps(&vk);
        assert!(caps.fp64);
        assert!(caps.extensions.iter().any(|e| e == "cl_khr_fp64"));
        assert!(caps.features.iter().any(|f| f == "__opencl_c_fp64"));

        vk.features.float64 = false;
        let info = derive_device_info(&vk);
        assert!(!info.has_extension("cl_khr_fp64"));
        assert_eq!(info.double_fp_config, 0);
        assert_eq!(info.preferred_vector_widths.double, 0);
        assert_eq!(info.native_vector_widths.double, 0);
        assert!(!info
            .opencl_c_features
            .iter()
            .any(|f| f.name == "__opencl_c_fp64"));
        let caps = derive_target_caps(&vk);
        assert!(!caps.fp64);
        assert!(!caps.extensions.iter().any(|e| e == "cl_khr_fp64"));
        assert!(!caps.features.iter().any(|f| f == "__opencl_c_fp64"));
    }

    #[test]
    fn float_atomics_follow_the_vulkan_float_atomic_features() {
        let mut vk = lavapipe_like();
        let info = derive_device_info(&vk);
        assert!(!info.has_extension("cl_ext_float_atomics"));
        assert_eq!(info.single_fp_atomic_capabilities, 0);

        vk.features.float32_atomic_add = true;
        vk.features.shared_float32_atomic_min_max = true;
        let info = derive_device_info(&vk);
        assert!(info.has_extension("cl_ext_float_atomics"));
        assert_eq!(
            info.single_fp_atomic_capabilities,
            CL_DEVICE_GLOBAL_FP_ATOMIC_ADD_EXT
                | CL_DEVICE_LOCAL_FP_ATOMIC_MIN_MAX_EXT
                | CL_DEVICE_GLOBAL_FP_ATOMIC_LOAD_STORE_EXT
                | CL_DEVICE_LOCAL_FP_ATOMIC_LOAD_STORE_EXT
        );
        let caps = derive_target_caps(&vk);
        assert!(caps.extensions.iter().any(|e| e == "cl_ext_float_atomics"));
        assert!(caps
            .features
            .iter()
            .any(|f| f == "__opencl_c_ext_fp32_global_atomic_add"));
        assert!(!caps
            .features
            .iter()
            .any(|f| f == "__opencl_c_ext_fp32_local_atomic_add"));
    }

    #[test]
    fn target_caps_carry_the_push_constant_budget_and_spirv_version() {
        let caps = derive_target_caps(&h100_like());
        assert_eq!(caps.max_push_constants_size, 256);
        assert_eq!(caps.spirv_version, (1, 6));
        assert!(caps.int64_atomics);
        assert!(caps.images);
        assert!(caps.fp16);
        // API-only extensions are not OpenCL C extensions.
        assert!(!caps.extensions.iter().any(|e| e == "cl_khr_device_uuid"));
        assert!(caps
            .extensions
            .iter()
            .any(|e| e == "cl_khr_global_int32_base_atomics"));
    }

    #[test]
    fn limits_are_clamped_to_sane_values() {
        let mut vk = lavapipe_like();
        vk.limits.max_compute_work_group_invocations = 4096;
        vk.limits.max_compute_work_group_size = [4096, 0, 16];
        vk.limits.timestamp_period = 0.25;
        vk.limits.subgroup_size = 0;
        vk.compute_units = 0;
        vk.device_local_heap_size = 1 << 30;
        let info = derive_device_info(&vk);
        assert_eq!(info.max_work_group_size, 1024);
        assert_eq!(info.max_work_item_sizes, [1024, 1, 16]);
        assert_eq!(info.profiling_timer_resolution, 1);
        assert_eq!(info.preferred_work_group_size_multiple, 1);
        assert_eq!(info.max_compute_units, 1);
        // The allocation limit never exceeds the memory there is.
        assert_eq!(info.max_mem_alloc_size, 1 << 30);
    }

    #[test]
    fn atomics_and_sub_groups_follow_the_vulkan_features() {
        let mut vk = lavapipe_like();
        let info = derive_device_info(&vk);
        assert!(info.has_extension("cl_khr_int64_base_atomics"));
        assert!(info.has_extension("cl_khr_int64_extended_atomics"));
        let feature =
            |info: &DeviceInfo, name: &str| info.opencl_c_features.iter().any(|f| f.name == name);
        assert!(feature(&info, "__opencl_c_atomic_order_acq_rel"));
        assert!(!feature(&info, "__opencl_c_atomic_order_seq_cst"));
        assert!(feature(&info, "__opencl_c_work_group_collective_functions"));
        assert_eq!(
            info.atomic_memory_capabilities & CL_DEVICE_ATOMIC_ORDER_SEQ_CST,
            0
        );
        // No subgroup operations in the fixture: no sub-groups.
        assert!(!feature(&info, "__opencl_c_subgroups"));
        assert_eq!(info.max_num_sub_groups, 0);

        vk.features.shared_int64_atomics = false;
        assert!(!derive_device_info(&vk).has_extension("cl_khr_int64_base_atomics"));
        assert!(!derive_target_caps(&vk).int64_atomics);

        let f = &mut vk.features;
        f.subgroup_basic = true;
        f.subgroup_vote = true;
        f.subgroup_ballot = true;
        f.subgroup_arithmetic = true;
        f.subgroup_shuffle = true;
        f.subgroup_shuffle_relative = true;
        f.subgroup_extended_types = true;
        let info = derive_device_info(&vk);
        assert!(feature(&info, "__opencl_c_subgroups"));
        assert_eq!(info.sub_group_size, 8);
        assert_eq!(info.max_num_sub_groups, 1024 / 8);
        // Vulkan gives no independent forward progress.
        assert!(!info.has_extension("cl_khr_subgroups"));
        assert!(info.has_extension("cl_khr_subgroup_shuffle_relative"));
        assert!(info.has_extension("cl_khr_subgroup_extended_types"));
        // Clustered reductions need Vulkan's clustered operations.
        assert!(!info.has_extension("cl_khr_subgroup_clustered_reduce"));
        vk.features.subgroup_clustered = true;
        let info = derive_device_info(&vk);
        assert!(info.has_extension("cl_khr_subgroup_clustered_reduce"));
        assert!(derive_target_caps(&vk)
            .extensions
            .iter()
            .any(|e| e == "cl_khr_subgroup_clustered_reduce"));

        // A subgroup size that varies between pipelines is not offered.
        vk.limits.max_subgroup_size = 32;
        let info = derive_device_info(&vk);
        assert!(!feature(&info, "__opencl_c_subgroups"));
        assert!(!info.has_extension("cl_khr_subgroup_ballot"));
    }

    #[test]
    fn integer_dot_instructions_follow_the_vulkan_feature() {
        let mut vk = lavapipe_like();
        vk.features.integer_dot_product = false;
        vk.features.integer_dot_packed_accelerated = [true; 6];
        assert!(!derive_target_caps(&vk).integer_dot_product);
        // Without the instructions nothing is accelerated, whatever the
        // driver's properties say; the extension is offered either way.
        let info = derive_device_info(&vk);
        assert_eq!(info.integer_dot_acceleration, [false; 6]);
        assert!(info.has_extension("cl_khr_integer_dot_product"));
        if std::env::var_os("FERROCL_INTEGER_DOT").is_none() {
            // The instructions where the driver accelerates them; vectors
            // compile to the packed ones.
            vk.features.integer_dot_product = true;
            assert!(derive_target_caps(&vk).integer_dot_product);
            let info = derive_device_info(&vk);
            assert_eq!(info.integer_dot_acceleration, [true; 6]);
            // A driver that has them but does not accelerate them gets the
            // arithmetic.
            vk.features.integer_dot_packed_accelerated[2] = false;
            assert!(!derive_target_caps(&vk).integer_dot_product);
        }
    }

    #[test]
    fn generic_pointer_tags_need_addresses_below_2_to_the_62() {
        assert!(address_leaves_tag_bits_clear(0));
        assert!(address_leaves_tag_bits_clear(0x7fff_ffff_f000));
        assert!(address_leaves_tag_bits_clear((1 << 62) - 1));
        assert!(!address_leaves_tag_bits_clear(1 << 62));
        assert!(!address_leaves_tag_bits_clear(0xffff_8000_0000_0000));
        // Only a device that passed the check compiles with the feature.
        let vk = lavapipe_like();
        let plain = derive_target_caps(&vk);
        assert!(!plain.features.iter().any(|f| f == GENERIC_ADDRESS_SPACE));
        let generic = with_generic_address_space(plain);
        assert!(generic.features.iter().any(|f| f == GENERIC_ADDRESS_SPACE));
    }

    #[test]
    fn name_version_has_the_c_layout() {
        let bytes =
            NameVersion::to_c_bytes(&[NameVersion::new("cl_khr_icd", make_version(1, 0, 0))]);
        assert_eq!(bytes.len(), 68);
        assert_eq!(u32::from_ne_bytes(bytes[0..4].try_into().unwrap()), 1 << 22);
        assert_eq!(&bytes[4..15], b"cl_khr_icd\0");
        assert!(bytes[15..].iter().all(|&b| b == 0));
    }
}
