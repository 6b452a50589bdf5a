//! Device entry points: `clGetDeviceIDs`, `clGetDeviceInfo`, sub-devices,
//! device retain/release, the default device queue and the timers.
//!
//! Every device is a root device owned by the platform for the life of the
//! process; the values of `clGetDeviceInfo` come from the runtime's
//! [`DeviceInfo`](ferrocl_runtime::device::DeviceInfo), except those that
//! are the same for every ferrocl device (image limits; no pipes, SVM, on-device
//! queues or sub-groups yet), which are answered here.

use crate::entry::api_call;
use crate::info::{write_info, Bytes};
use crate::platform::platform_from_handle;
use ferrocl_runtime::api::{from_handle, handle_of};
use ferrocl_runtime::cl::*;
use ferrocl_runtime::context::Context;
use ferrocl_runtime::device::{Device, NameVersion};
use ferrocl_runtime::image;
use std::ffi::c_void;

/// Every bit `clGetDeviceIDs` accepts in `device_type`.
const DEVICE_TYPE_BITS: cl_bitfield = CL_DEVICE_TYPE_DEFAULT
    | CL_DEVICE_TYPE_CPU
    | CL_DEVICE_TYPE_GPU
    | CL_DEVICE_TYPE_ACCELERATOR
    | CL_DEVICE_TYPE_CUSTOM;

/// `CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED` of a device that has not
/// passed the conformance process.
const NO_CONFORMANCE_VERSION: &str = "v0000-01-01-00";

/// Whether `device` is selected by a valid `device_type` of
/// `clGetDeviceIDs` / `clCreateContextFromType`.
pub fn device_type_matches(device: &Device, device_type: cl_bitfield) -> bool {
    device_type == CL_DEVICE_TYPE_ALL
        || device.info().device_type & device_type != 0
        || (device_type & CL_DEVICE_TYPE_DEFAULT != 0 && device.is_default())
}

/// Whether `device_type` is a valid value for `clGetDeviceIDs` /
/// `clCreateContextFromType`.
pub fn device_type_is_valid(device_type: cl_bitfield) -> bool {
    device_type == CL_DEVICE_TYPE_ALL || (device_type != 0 && device_type & !DEVICE_TYPE_BITS == 0)
}

#[no_mangle]
pub unsafe extern "C" fn clGetDeviceIDs(
    platform: *mut c_void,
    device_type: cl_bitfield,
    num_entries: cl_uint,
    devices: *mut *mut c_void,
    num_devices: *mut cl_uint,
) -> cl_int {
    api_call(|| {
        // CL_INVALID_PLATFORM if platform is not a valid platform.
        // SAFETY: the application's handle.
        let platform = unsafe { platform_from_handle(platform)? };
        // CL_INVALID_DEVICE_TYPE if device_type is not a valid value.
        if !device_type_is_valid(device_type) {
            return Err(CL_INVALID_DEVICE_TYPE);
        }
        // CL_INVALID_VALUE if num_entries is equal to zero and devices is not
        // NULL.
        if num_entries == 0 && !devices.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        // CL_INVALID_VALUE if both num_devices and devices are NULL.
        if num_devices.is_null() && devices.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let matching: Vec<*mut c_void> = platform
            .devices()
            .iter()
            .filter(|d| device_type_matches(d, device_type))
            .map(|d| handle_of(&**d))
            .collect();
        // CL_DEVICE_NOT_FOUND if no OpenCL devices that matched device_type
        // were found.
        if matching.is_empty() {
            return Err(CL_DEVICE_NOT_FOUND);
        }
        if !devices.is_null() {
            for (i, handle) in matching.iter().take(num_entries as usize).enumerate() {
                // SAFETY: the application provides num_entries writable
                // handles and i < num_entries.
                unsafe { devices.add(i).write_unaligned(*handle) };
            }
        }
        if !num_devices.is_null() {
            // SAFETY: the caller guarantees a writable cl_uint.
            unsafe { num_devices.write_unaligned(matching.len() as cl_uint) };
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn clGetDeviceInfo(
    device: *mut c_void,
    param_name: cl_uint,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    api_call(|| {
        // CL_INVALID_DEVICE if device is not a valid device.
        // SAFETY: the application's handle.
        let device = unsafe { from_handle::<Device>(device)? };
        // SAFETY: the application's output pointers, as write_info requires.
        unsafe {
            device_info(
                device,
                param_name,
                param_value_size,
                param_value,
                param_value_size_ret,
            )
        }
    })
}

/// The body of `clGetDeviceInfo` for a valid device.
///
/// # Safety
/// As [`write_info`].
unsafe fn device_info(
    device: &Device,
    param_name: cl_uint,
    size: usize,
    ptr: *mut c_void,
    size_ret: *mut usize,
) -> Result<(), cl_int> {
    let info = device.info();
    let names = |list: &[NameVersion]| NameVersion::to_c_bytes(list);
    let no_names: [NameVersion; 0] = [];
    // SAFETY (every arm): forwarded contract.
    unsafe {
        match param_name {
            CL_DEVICE_TYPE => write_info(&info.device_type, size, ptr, size_ret),
            CL_DEVICE_VENDOR_ID => write_info(&info.vendor_id, size, ptr, size_ret),
            CL_DEVICE_MAX_COMPUTE_UNITS => write_info(&info.max_compute_units, size, ptr, size_ret),
            CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS => write_info(&3u32, size, ptr, size_ret),
            CL_DEVICE_MAX_WORK_ITEM_SIZES => {
                write_info(&info.max_work_item_sizes, size, ptr, size_ret)
            }
            CL_DEVICE_MAX_WORK_GROUP_SIZE => {
                write_info(&info.max_work_group_size, size, ptr, size_ret)
            }
            CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR => {
                write_info(&info.preferred_vector_widths.char, size, ptr, size_ret)
            }
            CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT => {
                write_info(&info.preferred_vector_widths.short, size, ptr, size_ret)
            }
            CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT => {
                write_info(&info.preferred_vector_widths.int, size, ptr, size_ret)
            }
            CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG => {
                write_info(&info.preferred_vector_widths.long, size, ptr, size_ret)
            }
            CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT => {
                write_info(&info.preferred_vector_widths.float, size, ptr, size_ret)
            }
            CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE => {
                write_info(&info.preferred_vector_widths.double, size, ptr, size_ret)
            }
            CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF => {
                write_info(&info.preferred_vector_widths.half, size, ptr, size_ret)
            }
            CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR => {
                write_info(&info.native_vector_widths.char, size, ptr, size_ret)
            }
            CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT => {
                write_info(&info.native_vector_widths.short, size, ptr, size_ret)
            }
            CL_DEVICE_NATIVE_VECTOR_WIDTH_INT => {
                write_info(&info.native_vector_widths.int, size, ptr, size_ret)
            }
            CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG => {
                write_info(&info.native_vector_widths.long, size, ptr, size_ret)
            }
            CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT => {
                write_info(&info.native_vector_widths.float, size, ptr, size_ret)
            }
            CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE => {
                write_info(&info.native_vector_widths.double, size, ptr, size_ret)
            }
            CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF => {
                write_info(&info.native_vector_widths.half, size, ptr, size_ret)
            }
            CL_DEVICE_MAX_CLOCK_FREQUENCY => {
                write_info(&info.max_clock_frequency, size, ptr, size_ret)
            }
            CL_DEVICE_ADDRESS_BITS => write_info(&info.address_bits, size, ptr, size_ret),
            CL_DEVICE_MAX_MEM_ALLOC_SIZE => {
                write_info(&info.max_mem_alloc_size, size, ptr, size_ret)
            }
            CL_DEVICE_IMAGE_SUPPORT => write_info(&info.image_support, size, ptr, size_ret),
            // The image limits (runtime/src/image.rs); 0 without image
            // support.
            CL_DEVICE_MAX_READ_IMAGE_ARGS
            | CL_DEVICE_MAX_WRITE_IMAGE_ARGS
            | CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS
            | CL_DEVICE_MAX_SAMPLERS
            | CL_DEVICE_IMAGE_PITCH_ALIGNMENT
            | CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT => {
                let value = match param_name {
                    _ if !info.image_support => 0,
                    CL_DEVICE_MAX_READ_IMAGE_ARGS => image::MAX_READ_IMAGE_ARGS,
                    CL_DEVICE_MAX_WRITE_IMAGE_ARGS => image::MAX_WRITE_IMAGE_ARGS,
                    CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS => image::MAX_READ_WRITE_IMAGE_ARGS,
                    CL_DEVICE_MAX_SAMPLERS => image::MAX_SAMPLERS,
                    CL_DEVICE_IMAGE_PITCH_ALIGNMENT => image::IMAGE_PITCH_ALIGNMENT,
                    _ => image::IMAGE_BASE_ADDRESS_ALIGNMENT,
                };
                write_info(&value, size, ptr, size_ret)
            }
            CL_DEVICE_IMAGE2D_MAX_WIDTH
            | CL_DEVICE_IMAGE2D_MAX_HEIGHT
            | CL_DEVICE_IMAGE3D_MAX_WIDTH
            | CL_DEVICE_IMAGE3D_MAX_HEIGHT
            | CL_DEVICE_IMAGE3D_MAX_DEPTH
            | CL_DEVICE_IMAGE_MAX_BUFFER_SIZE
            | CL_DEVICE_IMAGE_MAX_ARRAY_SIZE => {
                let value = match param_name {
                    _ if !info.image_support => 0,
                    CL_DEVICE_IMAGE2D_MAX_WIDTH | CL_DEVICE_IMAGE2D_MAX_HEIGHT => {
                        image::IMAGE2D_MAX_SIZE
                    }
                    CL_DEVICE_IMAGE_MAX_BUFFER_SIZE => image::IMAGE_MAX_BUFFER_SIZE,
                    CL_DEVICE_IMAGE_MAX_ARRAY_SIZE => image::IMAGE_MAX_ARRAY_SIZE,
                    _ => image::IMAGE3D_MAX_SIZE,
                };
                write_info(&value, size, ptr, size_ret)
            }
            // Programs come from OpenCL C source only.
            CL_DEVICE_IL_VERSION => write_info("", size, ptr, size_ret),
            CL_DEVICE_ILS_WITH_VERSION => {
                write_info(&Bytes(&names(&no_names)), size, ptr, size_ret)
            }
            // Pipes are not supported.
            CL_DEVICE_MAX_PIPE_ARGS
            | CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS
            | CL_DEVICE_PIPE_MAX_PACKET_SIZE => write_info(&0u32, size, ptr, size_ret),
            CL_DEVICE_PIPE_SUPPORT => write_info(&false, size, ptr, size_ret),
            CL_DEVICE_MAX_PARAMETER_SIZE => {
                write_info(&info.max_parameter_size, size, ptr, size_ret)
            }
            CL_DEVICE_MEM_BASE_ADDR_ALIGN => {
                write_info(&info.mem_base_addr_align, size, ptr, size_ret)
            }
            CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE => {
                write_info(&info.min_data_type_align_size, size, ptr, size_ret)
            }
            CL_DEVICE_SINGLE_FP_CONFIG => write_info(&info.single_fp_config, size, ptr, size_ret),
            CL_DEVICE_DOUBLE_FP_CONFIG => write_info(&info.double_fp_config, size, ptr, size_ret),
            CL_DEVICE_HALF_FP_CONFIG if info.has_extension("cl_khr_fp16") => {
                write_info(&info.half_fp_config, size, ptr, size_ret)
            }
            CL_DEVICE_GLOBAL_MEM_CACHE_TYPE => {
                write_info(&info.global_mem_cache_type, size, ptr, size_ret)
            }
            CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE => {
                write_info(&info.global_mem_cacheline_size, size, ptr, size_ret)
            }
            CL_DEVICE_GLOBAL_MEM_CACHE_SIZE => {
                write_info(&info.global_mem_cache_size, size, ptr, size_ret)
            }
            CL_DEVICE_GLOBAL_MEM_SIZE => write_info(&info.global_mem_size, size, ptr, size_ret),
            CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE => {
                write_info(&info.max_constant_buffer_size, size, ptr, size_ret)
            }
            CL_DEVICE_MAX_CONSTANT_ARGS => write_info(&info.max_constant_args, size, ptr, size_ret),
            // Program-scope global variables (__opencl_c_program_scope_global_variables)
            // live in one buffer per program whose initial bytes the compiler
            // builds on the host: 1 MiB each (the spec's minimum is 64 KiB).
            CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE | CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE => {
                let bytes: usize = if info
                    .opencl_c_features
                    .iter()
                    .any(|f| f.name == "__opencl_c_program_scope_global_variables")
                {
                    1 << 20
                } else {
                    0
                };
                write_info(&bytes, size, ptr, size_ret)
            }
            CL_DEVICE_LOCAL_MEM_TYPE => write_info(&info.local_mem_type, size, ptr, size_ret),
            CL_DEVICE_LOCAL_MEM_SIZE => write_info(&info.local_mem_size, size, ptr, size_ret),
            CL_DEVICE_ERROR_CORRECTION_SUPPORT => write_info(&false, size, ptr, size_ret),
            CL_DEVICE_HOST_UNIFIED_MEMORY => {
                write_info(&info.host_unified_memory, size, ptr, size_ret)
            }
            CL_DEVICE_PROFILING_TIMER_RESOLUTION => {
                write_info(&info.profiling_timer_resolution, size, ptr, size_ret)
            }
            CL_DEVICE_ENDIAN_LITTLE => write_info(&true, size, ptr, size_ret),
            CL_DEVICE_AVAILABLE | CL_DEVICE_COMPILER_AVAILABLE | CL_DEVICE_LINKER_AVAILABLE => {
                write_info(&true, size, ptr, size_ret)
            }
            CL_DEVICE_EXECUTION_CAPABILITIES => write_info(&CL_EXEC_KERNEL, size, ptr, size_ret),
            CL_DEVICE_QUEUE_ON_HOST_PROPERTIES => {
                write_info(&info.queue_properties, size, ptr, size_ret)
            }
            // On-device queues (device-side enqueue) are not supported.
            CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES | CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES => {
                write_info(&(0 as cl_bitfield), size, ptr, size_ret)
            }
            CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE
            | CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE
            | CL_DEVICE_MAX_ON_DEVICE_QUEUES
            | CL_DEVICE_MAX_ON_DEVICE_EVENTS => write_info(&0u32, size, ptr, size_ret),
            CL_DEVICE_BUILT_IN_KERNELS => write_info("", size, ptr, size_ret),
            CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION => {
                write_info(&Bytes(&names(&no_names)), size, ptr, size_ret)
            }
            CL_DEVICE_PLATFORM => write_info(&handle_of(&**device.platform()), size, ptr, size_ret),
            CL_DEVICE_NAME => write_info(&info.name, size, ptr, size_ret),
            CL_DEVICE_VENDOR => write_info(&info.vendor, size, ptr, size_ret),
            CL_DRIVER_VERSION => write_info(&info.driver_version, size, ptr, size_ret),
            CL_DEVICE_PROFILE => write_info(&info.profile, size, ptr, size_ret),
            CL_DEVICE_VERSION => write_info(&info.version, size, ptr, size_ret),
            CL_DEVICE_NUMERIC_VERSION => write_info(&info.numeric_version, size, ptr, size_ret),
            CL_DEVICE_OPENCL_C_VERSION => write_info(&info.opencl_c_version, size, ptr, size_ret),
            CL_DEVICE_OPENCL_C_NUMERIC_VERSION_KHR
                if info.has_extension("cl_khr_extended_versioning") =>
            {
                write_info(&info.opencl_c_numeric_version, size, ptr, size_ret)
            }
            CL_DEVICE_OPENCL_C_ALL_VERSIONS => write_info(
                &Bytes(&names(&info.opencl_c_all_versions)),
                size,
                ptr,
                size_ret,
            ),
            CL_DEVICE_OPENCL_C_FEATURES => write_info(
                &Bytes(&names(&device.opencl_c_features())),
                size,
                ptr,
                size_ret,
            ),
            CL_DEVICE_EXTENSIONS => write_info(&info.extensions, size, ptr, size_ret),
            CL_DEVICE_EXTENSIONS_WITH_VERSION => write_info(
                &Bytes(&names(&info.extensions_with_version)),
                size,
                ptr,
                size_ret,
            ),
            CL_DEVICE_PRINTF_BUFFER_SIZE => {
                write_info(&info.printf_buffer_size, size, ptr, size_ret)
            }
            // No interop with other APIs exists, so no fast path to prefer.
            CL_DEVICE_PREFERRED_INTEROP_USER_SYNC => write_info(&true, size, ptr, size_ret),
            // A root device that cannot be partitioned.
            CL_DEVICE_PARENT_DEVICE => {
                write_info(&std::ptr::null_mut::<c_void>(), size, ptr, size_ret)
            }
            CL_DEVICE_PARTITION_MAX_SUB_DEVICES => write_info(&0u32, size, ptr, size_ret),
            CL_DEVICE_PARTITION_PROPERTIES => write_info(&[0isize], size, ptr, size_ret),
            CL_DEVICE_PARTITION_AFFINITY_DOMAIN => {
                write_info(&(0 as cl_bitfield), size, ptr, size_ret)
            }
            CL_DEVICE_PARTITION_TYPE => write_info(&[0isize; 0], size, ptr, size_ret),
            CL_DEVICE_REFERENCE_COUNT => write_info(&1u32, size, ptr, size_ret),
            CL_DEVICE_SVM_CAPABILITIES => {
                let caps = ferrocl_runtime::svm::device_capabilities(device);
                write_info(&caps, size, ptr, size_ret)
            }
            // 0: atomics are aligned to the natural size of their type.
            CL_DEVICE_PREFERRED_PLATFORM_ATOMIC_ALIGNMENT
            | CL_DEVICE_PREFERRED_GLOBAL_ATOMIC_ALIGNMENT
            | CL_DEVICE_PREFERRED_LOCAL_ATOMIC_ALIGNMENT => write_info(&0u32, size, ptr, size_ret),
            CL_DEVICE_MAX_NUM_SUB_GROUPS => {
                write_info(&info.max_num_sub_groups, size, ptr, size_ret)
            }
            CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS => {
                write_info(&false, size, ptr, size_ret)
            }
            CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES => {
                write_info(&info.atomic_memory_capabilities, size, ptr, size_ret)
            }
            CL_DEVICE_ATOMIC_FENCE_CAPABILITIES => {
                write_info(&info.atomic_fence_capabilities, size, ptr, size_ret)
            }
            CL_DEVICE_SINGLE_FP_ATOMIC_CAPABILITIES_EXT
                if info.has_extension("cl_ext_float_atomics") =>
            {
                write_info(&info.single_fp_atomic_capabilities, size, ptr, size_ret)
            }
            // The compiler has float atomic arithmetic for float only: no
            // double or half operation is offered.
            CL_DEVICE_DOUBLE_FP_ATOMIC_CAPABILITIES_EXT
            | CL_DEVICE_HALF_FP_ATOMIC_CAPABILITIES_EXT
                if info.has_extension("cl_ext_float_atomics") =>
            {
                write_info(&(0 as cl_bitfield), size, ptr, size_ret)
            }
            // Commands of a command-buffer run through the queue's own
            // paths: printf works as in any launch, and any queue the device
            // has may run them.
            // Each enqueue makes its own events, so enqueues of one
            // command-buffer may overlap (simultaneous use).
            CL_DEVICE_COMMAND_BUFFER_CAPABILITIES_KHR => {
                let caps = CL_COMMAND_BUFFER_CAPABILITY_KERNEL_PRINTF_KHR
                    | CL_COMMAND_BUFFER_CAPABILITY_SIMULTANEOUS_USE_KHR;
                write_info(&caps, size, ptr, size_ret)
            }
            // Buffers, not images, import opaque file descriptors.
            CL_DEVICE_EXTERNAL_MEMORY_IMPORT_HANDLE_TYPES_KHR
                if info.has_extension("cl_khr_external_memory_opaque_fd") =>
            {
                write_info(
                    &[CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR],
                    size,
                    ptr,
                    size_ret,
                )
            }
            CL_DEVICE_EXTERNAL_MEMORY_IMPORT_ASSUME_LINEAR_IMAGES_HANDLE_TYPES_KHR
                if info.has_extension("cl_khr_external_memory") =>
            {
                write_info(&Vec::<cl_uint>::new(), size, ptr, size_ret)
            }
            // Binary semaphores, kept on the host (cl_khr_semaphore).
            CL_DEVICE_SEMAPHORE_TYPES_KHR => {
                write_info(&[CL_SEMAPHORE_TYPE_BINARY_KHR], size, ptr, size_ret)
            }
            CL_DEVICE_MUTABLE_DISPATCH_CAPABILITIES_KHR => write_info(
                &crate::command_buffer::MUTABLE_DISPATCH_FIELDS,
                size,
                ptr,
                size_ret,
            ),
            CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES_KHR => {
                let all = CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE;
                write_info(&all, size, ptr, size_ret)
            }
            CL_DEVICE_COMMAND_BUFFER_REQUIRED_QUEUE_PROPERTIES_KHR => {
                write_info(&(0 as cl_bitfield), size, ptr, size_ret)
            }
            CL_DEVICE_KERNEL_CLOCK_CAPABILITIES_KHR
                if info.has_extension("cl_khr_kernel_clock") =>
            {
                write_info(&info.kernel_clock_capabilities, size, ptr, size_ret)
            }
            CL_DEVICE_INTEGER_DOT_PRODUCT_CAPABILITIES_KHR
                if info.has_extension("cl_khr_integer_dot_product") =>
            {
                let both = CL_DEVICE_INTEGER_DOT_PRODUCT_INPUT_4x8BIT_KHR
                    | CL_DEVICE_INTEGER_DOT_PRODUCT_INPUT_4x8BIT_PACKED_KHR;
                write_info(&both, size, ptr, size_ret)
            }
            // The six cl_bool members of the properties structure, the
            // same for both forms (`DeviceInfo::integer_dot_acceleration`).
            // The second name is the specification's, `x` included.
            #[allow(non_upper_case_globals)]
            CL_DEVICE_INTEGER_DOT_PRODUCT_ACCELERATION_PROPERTIES_8BIT_KHR
            | CL_DEVICE_INTEGER_DOT_PRODUCT_ACCELERATION_PROPERTIES_4x8BIT_PACKED_KHR
                if info.has_extension("cl_khr_integer_dot_product") =>
            {
                let bools = info.integer_dot_acceleration.map(cl_bool::from);
                write_info(&bools, size, ptr, size_ret)
            }
            // Non-uniform NDRanges run as up to 8 regions of uniform
            // dispatches.
            CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT => write_info(&true, size, ptr, size_ret),
            CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT => {
                write_info(&info.work_group_collective_functions, size, ptr, size_ret)
            }
            // Generic pointers are tagged in bits 62-63 where the compiler
            // cannot resolve them, which the device's addresses must leave free.
            CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT => {
                write_info(&device.generic_address_space(), size, ptr, size_ret)
            }
            CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE => write_info(
                &info.preferred_work_group_size_multiple,
                size,
                ptr,
                size_ret,
            ),
            CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED => {
                write_info(NO_CONFORMANCE_VERSION, size, ptr, size_ret)
            }
            CL_DEVICE_UUID if info.has_extension("cl_khr_device_uuid") => {
                write_info(&info.device_uuid, size, ptr, size_ret)
            }
            CL_DRIVER_UUID if info.has_extension("cl_khr_device_uuid") => {
                write_info(&info.driver_uuid, size, ptr, size_ret)
            }
            CL_DEVICE_LUID_VALID if info.has_extension("cl_khr_device_uuid") => {
                write_info(&info.device_luid.is_some(), size, ptr, size_ret)
            }
            // Undefined contents when the LUID is not valid; zeros then.
            CL_DEVICE_LUID if info.has_extension("cl_khr_device_uuid") => {
                write_info(&info.device_luid.unwrap_or_default(), size, ptr, size_ret)
            }
            CL_DEVICE_NODE_MASK if info.has_extension("cl_khr_device_uuid") => {
                write_info(&info.node_mask, size, ptr, size_ret)
            }
            CL_DEVICE_PCI_BUS_INFO_KHR => match info.pci_bus_info {
                Some(bus) => write_info(&bus, size, ptr, size_ret),
                None => Err(CL_INVALID_VALUE),
            },
            // CL_INVALID_VALUE if param_name is not one of the supported
            // values (queries of extensions the device does not expose
            // included, e.g. CL_DEVICE_HALF_FP_CONFIG without cl_khr_fp16).
            _ => Err(CL_INVALID_VALUE),
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn clCreateSubDevices(
    in_device: *mut c_void,
    properties: *const isize,
    num_devices: cl_uint,
    out_devices: *mut *mut c_void,
    num_devices_ret: *mut cl_uint,
) -> cl_int {
    let _ = (num_devices, out_devices, num_devices_ret);
    api_call(|| {
        // CL_INVALID_DEVICE if in_device is not a valid device.
        // SAFETY: the application's handle.
        unsafe { from_handle::<Device>(in_device)? };
        // CL_INVALID_VALUE if values specified in properties are not valid
        // or if values specified in properties are valid but not supported
        // by the device: CL_DEVICE_PARTITION_PROPERTIES is empty, so no
        // partition scheme is supported.
        let _ = properties;
        Err(CL_INVALID_VALUE)
    })
}

#[no_mangle]
pub unsafe extern "C" fn clRetainDevice(device: *mut c_void) -> cl_int {
    api_call(|| {
        // CL_INVALID_DEVICE if device is not a valid device.
        // SAFETY: the application's handle.
        unsafe { from_handle::<Device>(device)? };
        // Root devices are not reference counted: the count stays 1.
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn clReleaseDevice(device: *mut c_void) -> cl_int {
    api_call(|| {
        // CL_INVALID_DEVICE if device is not a valid device.
        // SAFETY: the application's handle.
        unsafe { from_handle::<Device>(device)? };
        // Root devices are not reference counted: the count stays 1.
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn clSetDefaultDeviceCommandQueue(
    context: *mut c_void,
    device: *mut c_void,
    command_queue: *mut c_void,
) -> cl_int {
    let _ = command_queue;
    api_call(|| {
        // CL_INVALID_CONTEXT if context is not a valid context.
        // SAFETY: the application's handle.
        let context = unsafe { from_handle::<Context>(context)? };
        // CL_INVALID_DEVICE if device is not a valid device or if device is
        // not associated with context.
        // SAFETY: the application's handle.
        let device = unsafe { from_handle::<Device>(device)? };
        if !context.has_device(device) {
            return Err(CL_INVALID_DEVICE);
        }
        // CL_INVALID_OPERATION if device does not support a replaceable
        // default on-device queue: no ferrocl device has on-device queues.
        Err(CL_INVALID_OPERATION)
    })
}

#[no_mangle]
pub unsafe extern "C" fn clGetDeviceAndHostTimer(
    device: *mut c_void,
    device_timestamp: *mut cl_ulong,
    host_timestamp: *mut cl_ulong,
) -> cl_int {
    api_call(|| {
        // CL_INVALID_DEVICE if device is not a valid device.
        // SAFETY: the application's handle.
        let device = unsafe { from_handle::<Device>(device)? };
        // CL_INVALID_VALUE if host_timestamp or device_timestamp is NULL.
        if host_timestamp.is_null() || device_timestamp.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let (device_time, host_time) = device.device_and_host_timer();
        // SAFETY: both pointers are the application's writable cl_ulongs.
        unsafe {
            device_timestamp.write_unaligned(device_time);
            host_timestamp.write_unaligned(host_time);
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn clGetHostTimer(
    device: *mut c_void,
    host_timestamp: *mut cl_ulong,
) -> cl_int {
    api_call(|| {
        // CL_INVALID_DEVICE if device is not a valid device.
        // SAFETY: the application's handle.
        let device = unsafe { from_handle::<Device>(device)? };
        // CL_INVALID_VALUE if host_timestamp is NULL.
        if host_timestamp.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let (_, host_time) = device.device_and_host_timer();
        // SAFETY: the application's writable cl_ulong.
        unsafe { host_timestamp.write_unaligned(host_time) };
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ptr::null_mut;

    fn first_device() -> Option<*mut c_void> {
        let mut device = null_mut();
        let status =
            unsafe { clGetDeviceIDs(null_mut(), CL_DEVICE_TYPE_ALL, 1, &mut device, null_mut()) };
        if status == CL_DEVICE_NOT_FOUND {
            eprintln!("skipped: no Vulkan device qualifies on this machine");
            return None;
        }
        assert_eq!(status, CL_SUCCESS);
        Some(device)
    }

    fn device_string(device: *mut c_void, param: cl_uint) -> String {
        let mut size = 0;
        assert_eq!(
            unsafe { clGetDeviceInfo(device, param, 0, null_mut(), &mut size) },
            CL_SUCCESS
        );
        let mut buf = vec![0u8; size];
        let status =
            unsafe { clGetDeviceInfo(device, param, size, buf.as_mut_ptr().cast(), null_mut()) };
        assert_eq!(status, CL_SUCCESS);
        assert_eq!(buf.pop(), Some(0), "NUL-terminated");
        String::from_utf8(buf).unwrap()
    }

    fn device_value<T: Copy + Default>(device: *mut c_void, param: cl_uint) -> T {
        let mut value = T::default();
        let mut size = 0;
        let status = unsafe {
            clGetDeviceInfo(
                device,
                param,
                std::mem::size_of::<T>(),
                (&mut value as *mut T).cast(),
                &mut size,
            )
        };
        assert_eq!(status, CL_SUCCESS, "query 0x{param:x}");
        assert_eq!(size, std::mem::size_of::<T>(), "size of query 0x{param:x}");
        value
    }

    #[test]
    fn device_type_validation() {
        assert!(device_type_is_valid(CL_DEVICE_TYPE_ALL));
        assert!(device_type_is_valid(
            CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_CPU
        ));
        assert!(device_type_is_valid(CL_DEVICE_TYPE_DEFAULT));
        assert!(!device_type_is_valid(0));
        assert!(!device_type_is_valid(1 << 20));
    }

    #[test]
    fn get_device_ids_checks_its_arguments() {
        let mut device = null_mut();
        let mut count = 0;
        unsafe {
            assert_eq!(
                clGetDeviceIDs(null_mut(), 0, 1, &mut device, null_mut()),
                CL_INVALID_DEVICE_TYPE
            );
            assert_eq!(
                clGetDeviceIDs(null_mut(), CL_DEVICE_TYPE_ALL, 0, &mut device, null_mut()),
                CL_INVALID_VALUE
            );
            assert_eq!(
                clGetDeviceIDs(null_mut(), CL_DEVICE_TYPE_ALL, 1, null_mut(), null_mut()),
                CL_INVALID_VALUE
            );
            let mut bogus = [0u64; 4];
            assert_eq!(
                clGetDeviceIDs(
                    bogus.as_mut_ptr().cast(),
                    CL_DEVICE_TYPE_ALL,
                    0,
                    null_mut(),
                    &mut count
                ),
                CL_INVALID_PLATFORM
            );
        }
    }

    #[test]
    fn every_type_query_agrees_with_the_device_types() {
        let Some(_) = first_device() else { return };
        let mut all = 0;
        unsafe { clGetDeviceIDs(null_mut(), CL_DEVICE_TYPE_ALL, 0, null_mut(), &mut all) };
        let mut default = 0;
        assert_eq!(
            unsafe {
                clGetDeviceIDs(
                    null_mut(),
                    CL_DEVICE_TYPE_DEFAULT,
                    0,
                    null_mut(),
                    &mut default,
                )
            },
            CL_SUCCESS
        );
        assert_eq!(default, 1);
        let mut sum = 0;
        for ty in [
            CL_DEVICE_TYPE_CPU,
            CL_DEVICE_TYPE_GPU,
            CL_DEVICE_TYPE_ACCELERATOR,
            CL_DEVICE_TYPE_CUSTOM,
        ] {
            let mut n = 0;
            let status = unsafe { clGetDeviceIDs(null_mut(), ty, 0, null_mut(), &mut n) };
            assert!(status == CL_SUCCESS || status == CL_DEVICE_NOT_FOUND);
            if status == CL_SUCCESS {
                sum += n;
            }
        }
        assert_eq!(sum, all);
        let mut devices = vec![null_mut(); all as usize];
        assert_eq!(
            unsafe {
                clGetDeviceIDs(
                    null_mut(),
                    CL_DEVICE_TYPE_ALL,
                    all,
                    devices.as_mut_ptr(),
                    null_mut(),
                )
            },
            CL_SUCCESS
        );
        for device in devices {
            let ty: cl_bitfield = device_value(device, CL_DEVICE_TYPE);
            assert_eq!(ty & CL_DEVICE_TYPE_DEFAULT, 0);
            assert_eq!(ty.count_ones(), 1);
        }
    }

    #[test]
    fn device_queries_answer_with_the_right_sizes() {
        let Some(device) = first_device() else { return };
        assert!(device_string(device, CL_DEVICE_VERSION).starts_with("OpenCL 3.0 "));
        assert!(device_string(device, CL_DEVICE_OPENCL_C_VERSION).starts_with("OpenCL C 1.2 "));
        assert_eq!(device_string(device, CL_DEVICE_PROFILE), "FULL_PROFILE");
        assert!(!device_string(device, CL_DEVICE_NAME).is_empty());
        assert_eq!(device_string(device, CL_DEVICE_IL_VERSION), "");
        assert_eq!(
            device_value::<u32>(device, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS),
            3
        );
        let sizes: [usize; 3] = device_value(device, CL_DEVICE_MAX_WORK_ITEM_SIZES);
        let group: usize = device_value(device, CL_DEVICE_MAX_WORK_GROUP_SIZE);
        assert!(sizes.iter().all(|&s| s >= 1 && s <= group));
        assert!(device_value::<u64>(device, CL_DEVICE_GLOBAL_MEM_SIZE) > 0);
        assert!(device_value::<u32>(device, CL_DEVICE_MAX_COMPUTE_UNITS) >= 1);
        assert_eq!(
            device_value::<u32>(device, CL_DEVICE_IMAGE_SUPPORT),
            CL_TRUE
        );
        // The full-profile minimums for a device with images.
        assert!(device_value::<usize>(device, CL_DEVICE_IMAGE2D_MAX_WIDTH) >= 16384);
        assert!(device_value::<usize>(device, CL_DEVICE_IMAGE3D_MAX_DEPTH) >= 2048);
        assert!(device_value::<usize>(device, CL_DEVICE_IMAGE_MAX_ARRAY_SIZE) >= 2048);
        assert!(device_value::<u32>(device, CL_DEVICE_MAX_READ_IMAGE_ARGS) >= 128);
        assert!(device_value::<u32>(device, CL_DEVICE_MAX_WRITE_IMAGE_ARGS) >= 64);
        assert!(device_value::<u32>(device, CL_DEVICE_MAX_SAMPLERS) >= 16);
        assert_eq!(device_value::<u32>(device, CL_DEVICE_AVAILABLE), CL_TRUE);
        assert_eq!(device_value::<u32>(device, CL_DEVICE_REFERENCE_COUNT), 1);
        assert_eq!(device_value::<[u8; 16]>(device, CL_DEVICE_UUID).len(), 16);
        let platform: *mut c_void = device_value(device, CL_DEVICE_PLATFORM);
        let mut expected = null_mut();
        unsafe { crate::platform::clGetPlatformIDs(1, &mut expected, null_mut()) };
        assert_eq!(platform, expected);
        // The versioned lists are whole cl_name_version entries.
        for param in [
            CL_DEVICE_EXTENSIONS_WITH_VERSION,
            CL_DEVICE_OPENCL_C_ALL_VERSIONS,
            CL_DEVICE_OPENCL_C_FEATURES,
        ] {
            let mut size = 0;
            assert_eq!(
                unsafe { clGetDeviceInfo(device, param, 0, null_mut(), &mut size) },
                CL_SUCCESS
            );
            assert_eq!(size % 68, 0);
        }
        let mut size = 1;
        assert_eq!(
            unsafe {
                clGetDeviceInfo(device, CL_DEVICE_ILS_WITH_VERSION, 0, null_mut(), &mut size)
            },
            CL_SUCCESS
        );
        assert_eq!(size, 0);
    }

    #[test]
    fn device_info_errors() {
        let mut value = 0u64;
        unsafe {
            assert_eq!(
                clGetDeviceInfo(
                    null_mut(),
                    CL_DEVICE_TYPE,
                    8,
                    (&mut value as *mut u64).cast(),
                    null_mut()
                ),
                CL_INVALID_DEVICE
            );
        }
        let Some(device) = first_device() else { return };
        unsafe {
            assert_eq!(
                clGetDeviceInfo(
                    device,
                    0xdead,
                    8,
                    (&mut value as *mut u64).cast(),
                    null_mut()
                ),
                CL_INVALID_VALUE
            );
            assert_eq!(
                clGetDeviceInfo(
                    device,
                    CL_DEVICE_TYPE,
                    4,
                    (&mut value as *mut u64).cast(),
                    null_mut()
                ),
                CL_INVALID_VALUE
            );
            // The half query exists exactly when cl_khr_fp16 is offered.
            let fp16 = from_handle::<Device>(device)
                .map(|d| d.info().has_extension("cl_khr_fp16"))
                .unwrap_or(false);
            let rc = clGetDeviceInfo(
                device,
                CL_DEVICE_HALF_FP_CONFIG,
                8,
                (&mut value as *mut u64).cast(),
                null_mut(),
            );
            if fp16 {
                assert_eq!(rc, CL_SUCCESS);
                assert_ne!(value & CL_FP_ROUND_TO_NEAREST, 0);
            } else {
                assert_eq!(rc, CL_INVALID_VALUE);
            }
        }
    }

    #[test]
    fn root_devices_cannot_be_partitioned_and_are_not_counted() {
        let Some(device) = first_device() else { return };
        let properties = [CL_DEVICE_PARTITION_EQUALLY as isize, 1, 0];
        let mut n = 0;
        unsafe {
            assert_eq!(
                clCreateSubDevices(null_mut(), properties.as_ptr(), 0, null_mut(), &mut n),
                CL_INVALID_DEVICE
            );
            assert_eq!(
                clCreateSubDevices(device, properties.as_ptr(), 0, null_mut(), &mut n),
                CL_INVALID_VALUE
            );
            assert_eq!(clRetainDevice(device), CL_SUCCESS);
            assert_eq!(clReleaseDevice(device), CL_SUCCESS);
            assert_eq!(clReleaseDevice(device), CL_SUCCESS);
            assert_eq!(clRetainDevice(null_mut()), CL_INVALID_DEVICE);
        }
        assert_eq!(device_value::<u32>(device, CL_DEVICE_REFERENCE_COUNT), 1);
    }

    #[test]
    fn timers_are_monotonic_and_checked() {
        let Some(device) = first_device() else { return };
        let (mut d0, mut h0, mut h1, mut d1, mut h2) = (0, 0, 0, 0, 0);
        unsafe {
            assert_eq!(
                clGetDeviceAndHostTimer(device, &mut d0, &mut h0),
                CL_SUCCESS
            );
            assert_eq!(clGetHostTimer(device, &mut h1), CL_SUCCESS);
            assert_eq!(
                clGetDeviceAndHostTimer(device, &mut d1, &mut h2),
                CL_SUCCESS
            );
            assert_eq!(
                clGetDeviceAndHostTimer(device, null_mut(), &mut h2),
                CL_INVALID_VALUE
            );
            assert_eq!(clGetHostTimer(device, null_mut()), CL_INVALID_VALUE);
            assert_eq!(clGetHostTimer(null_mut(), &mut h2), CL_INVALID_DEVICE);
        }
        assert!(h0 <= h1 && h1 <= h2);
        assert!(d0 <= d1);
    }
}
