//! cl_khr_external_memory_opaque_fd: a Vulkan device of this test exports
//! memory, ferrocl imports it as a buffer, acquires it, runs a kernel on it
//! and releases it, and Vulkan reads the kernel's results back.

mod common;

use ash::vk;
use common::*;
use ferrocl_runtime::cl::*;
use std::ffi::c_void;
use std::ptr::{null, null_mut};

type Ownership = unsafe extern "C" fn(
    Handle,
    cl_uint,
    *const Handle,
    cl_uint,
    *const Handle,
    *mut Handle,
) -> cl_int;

const N: usize = 4096;

/// A Vulkan device of the test's own on the physical device ferrocl uses,
/// with a buffer whose memory it exports, and a host-visible buffer to
/// fill and read it through.
struct Exporter {
    _entry: ash::Entry,
    instance: ash::Instance,
    device: ash::Device,
    queue: vk::Queue,
    pool: vk::CommandPool,
    exported: (vk::Buffer, vk::DeviceMemory),
    staging: (vk::Buffer, vk::DeviceMemory),
    mapped: *mut u32,
}

impl Exporter {
    /// `None` where the physical device with `uuid` is not found.
    fn new(uuid: [u8; 16]) -> Option<Exporter> {
        // SAFETY: the system's Vulkan loader; every object made here is
        // destroyed in `Drop`, children first.
        unsafe {
            let entry = ash::Entry::load().ok()?;
            let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_2);
            let instance = entry
                .create_instance(
                    &vk::InstanceCreateInfo::default().application_info(&app),
                    None,
                )
                .ok()?;
            let physical = instance
                .enumerate_physical_devices()
                .ok()?
                .into_iter()
                .find(|&p| {
                    let mut id = vk::PhysicalDeviceIDProperties::default();
                    let mut props = vk::PhysicalDeviceProperties2::default().push_next(&mut id);
                    instance.get_physical_device_properties2(p, &mut props);
                    id.device_uuid == uuid
                })?;
            let family = instance
                .get_physical_device_queue_family_properties(physical)
                .iter()
                .position(|f| {
                    f.queue_flags.contains(vk::QueueFlags::TRANSFER)
                        || f.queue_flags.contains(vk::QueueFlags::COMPUTE)
                })? as u32;
            let priorities = [1.0];
            let queues = [vk::DeviceQueueCreateInfo::default()
                .queue_family_index(family)
                .queue_priorities(&priorities)];
            let extensions = [ash::khr::external_memory_fd::NAME.as_ptr()];
            let device = instance
                .create_device(
                    physical,
                    &vk::DeviceCreateInfo::default()
                        .queue_create_infos(&queues)
                        .enabled_extension_names(&extensions),
                    None,
                )
                .ok()?;
            let queue = device.get_device_queue(family, 0);
            let pool = device
                .create_command_pool(
                    &vk::CommandPoolCreateInfo::default().queue_family_index(family),
                    None,
                )
                .ok()?;
            let types = instance.get_physical_device_memory_properties(physical);
            let size = (N * 4) as u64;
            let usage = vk::BufferUsageFlags::TRANSFER_SRC
                | vk::BufferUsageFlags::TRANSFER_DST
                | vk::BufferUsageFlags::STORAGE_BUFFER;
            // The memory ferrocl imports: of the first device-local type the
            // buffer allows, as ferrocl picks it.
            let mut external = vk::ExternalMemoryBufferCreateInfo::default()
                .handle_types(vk::ExternalMemoryHandleTypeFlags::OPAQUE_FD);
            let exported_buffer = device
                .create_buffer(
                    &vk::BufferCreateInfo::default()
                        .size(size)
                        .usage(usage)
                        .push_next(&mut external),
                    None,
                )
                .ok()?;
            let exported = allocate(
                &device,
                &types,
                exported_buffer,
                vk::MemoryPropertyFlags::DEVICE_LOCAL,
                true,
            )?;
            let staging_buffer = device
                .create_buffer(
                    &vk::BufferCreateInfo::default().size(size).usage(usage),
                    None,
                )
                .ok()?;
            let visible =
                vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
            let staging = allocate(&device, &types, staging_buffer, visible, false)?;
            let mapped = device
                .map_memory(staging.1, 0, size, vk::MemoryMapFlags::empty())
                .ok()? as *mut u32;
            Some(Exporter {
                _entry: entry,
                instance,
                device,
                queue,
                pool,
                exported,
                staging,
                mapped,
            })
        }
    }

    /// Copies the staging buffer into the exported one, or back.
    fn copy(&self, into_exported: bool) {
        let (from, to) = if into_exported {
            (self.staging.0, self.exported.0)
        } else {
            (self.exported.0, self.staging.0)
        };
        // SAFETY: objects of this exporter; the queue is idle afterwards.
        unsafe {
            let cmd = self
                .device
                .allocate_command_buffers(
                    &vk::CommandBufferAllocateInfo::default()
                        .command_pool(self.pool)
                        .command_buffer_count(1),
                )
                .expect("command buffer")[0];
            self.device
                .begin_command_buffer(cmd, &vk::CommandBufferBeginInfo::default())
                .expect("begin");
            let region = [vk::BufferCopy::default().size((N * 4) as u64)];
            self.device.cmd_copy_buffer(cmd, from, to, &region);
            self.device.end_command_buffer(cmd).expect("end");
            let cmds = [cmd];
            let submit = [vk::SubmitInfo::default().command_buffers(&cmds)];
            self.device
                .queue_submit(self.queue, &submit, vk::Fence::null())
                .expect("submit");
            self.device.queue_wait_idle(self.queue).expect("wait");
            self.device.free_command_buffers(self.pool, &cmds);
        }
    }

    /// A new file descriptor of the exported memory.
    fn export_fd(&self) -> i32 {
        // SAFETY: memory allocated exportable as an opaque descriptor.
        unsafe {
            ash::khr::external_memory_fd::Device::new(&self.instance, &self.device)
                .get_memory_fd(
                    &vk::MemoryGetFdInfoKHR::default()
                        .memory(self.exported.1)
                        .handle_type(vk::ExternalMemoryHandleTypeFlags::OPAQUE_FD),
                )
                .expect("vkGetMemoryFdKHR")
        }
    }

    fn staging(&mut self) -> &mut [u32] {
        // SAFETY: a coherent mapping of N words, used from one thread.
        unsafe { std::slice::from_raw_parts_mut(self.mapped, N) }
    }
}

/// Memory of the first type with `want` that `buffer` allows, bound to it.
///
/// # Safety
/// A buffer of `device`, not yet bound.
unsafe fn allocate(
    device: &ash::Device,
    types: &vk::PhysicalDeviceMemoryProperties,
    buffer: vk::Buffer,
    want: vk::MemoryPropertyFlags,
    export: bool,
) -> Option<(vk::Buffer, vk::DeviceMemory)> {
    // SAFETY: per the contract.
    unsafe {
        let req = device.get_buffer_memory_requirements(buffer);
        let index = (0..types.memory_type_count).find(|&i| {
            req.memory_type_bits & (1 << i) != 0
                && types.memory_types[i as usize].property_flags.contains(want)
        })?;
        let mut export_info = vk::ExportMemoryAllocateInfo::default()
            .handle_types(vk::ExternalMemoryHandleTypeFlags::OPAQUE_FD);
        let mut info = vk::MemoryAllocateInfo::default()
            .allocation_size(req.size)
            .memory_type_index(index);
        if export {
            info = info.push_next(&mut export_info);
        }
        let memory = device.allocate_memory(&info, None).ok()?;
        device.bind_buffer_memory(buffer, memory, 0).ok()?;
        Some((buffer, memory))
    }
}

impl Drop for Exporter {
    fn drop(&mut self) {
        // SAFETY: the queue is idle; children before parents.
        unsafe {
            let _ = self.device.device_wait_idle();
            for (buffer, memory) in [self.exported, self.staging] {
                self.device.destroy_buffer(buffer, None);
                self.device.free_memory(memory, None);
            }
            self.device.destroy_command_pool(self.pool, None);
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}

fn ownership(gpu: &Gpu, name: &std::ffi::CStr) -> Ownership {
    // SAFETY: a valid platform and a NUL-terminated name.
    let f =
        unsafe { (gpu.api.clGetExtensionFunctionAddressForPlatform)(gpu.platform, name.as_ptr()) };
    assert!(!f.is_null(), "{name:?}");
    // SAFETY: the extension's signature; the sizes of the two are equal.
    unsafe { std::mem::transmute_copy::<*mut c_void, Ownership>(&f) }
}

/// A read-write buffer of N * 4 bytes made from the 0-terminated property
/// list `props`, which names an exported descriptor.
fn external_buffer<'g>(gpu: &'g Gpu, props: &[u64], what: &str) -> Buffer<'g> {
    let mem = gpu.buffer_with_properties(props, N * 4, what);
    Buffer::wrap(gpu, mem, N * 4)
}

#[test]
fn a_kernel_changes_memory_vulkan_exported() {
    let gpu = Gpu::new();
    if !gpu
        .device_string(CL_DEVICE_EXTENSIONS)
        .split_whitespace()
        .any(|e| e == "cl_khr_external_memory_opaque_fd")
    {
        eprintln!("external_memory: the device imports no opaque file descriptors; skipped");
        return;
    }
    let handle_type: u32 = gpu.device_info(CL_DEVICE_EXTERNAL_MEMORY_IMPORT_HANDLE_TYPES_KHR);
    assert_eq!(handle_type, CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR);
    let uuid: [u8; 16] = gpu.device_info(CL_DEVICE_UUID_KHR);
    let mut exporter = Exporter::new(uuid).expect("a Vulkan device to export from");
    for (i, v) in exporter.staging().iter_mut().enumerate() {
        *v = i as u32 * 3;
    }
    exporter.copy(true);

    let acquire = ownership(&gpu, c"clEnqueueAcquireExternalMemObjectsKHR");
    let release = ownership(&gpu, c"clEnqueueReleaseExternalMemObjectsKHR");
    let props = [
        u64::from(CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR),
        exporter.export_fd() as u64,
        0,
    ];
    let buffer = external_buffer(&gpu, &props, "clCreateBufferWithProperties (opaque fd)");
    let k = gpu.kernel(
        "__kernel void step(__global uint *p) { size_t i = get_global_id(0); p[i] = p[i] * 2u + 1u; }",
        "step",
    );
    k.arg_buffer(0, &buffer);
    // SAFETY: one external memory object; no wait list.
    unsafe {
        check(
            acquire(gpu.queue, 1, &buffer.handle, 0, null(), null_mut()),
            "acquire",
        );
        gpu.run(&k, &[N], None, None);
        check(
            release(gpu.queue, 1, &buffer.handle, 0, null(), null_mut()),
            "release",
        );
    }
    gpu.finish();
    exporter.copy(false);
    let want: Vec<u32> = (0..N as u32).map(|i| i * 6 + 1).collect();
    assert_eq!(exporter.staging().to_vec(), want, "what Vulkan reads back");

    // Errors: a buffer that is not external, host pointer flags, a device
    // list without a handle.
    let plain = gpu.zeroed::<u32>(4);
    // SAFETY: every call passes valid memory or the NULL its case names.
    unsafe {
        assert_eq!(
            acquire(gpu.queue, 1, &plain.handle, 0, null(), null_mut()),
            CL_INVALID_MEM_OBJECT
        );
        assert_eq!(
            acquire(gpu.queue, 1, null(), 0, null(), null_mut()),
            CL_INVALID_VALUE
        );
        check(
            acquire(gpu.queue, 0, null(), 0, null(), null_mut()),
            "acquire nothing",
        );
        let mut err = 0;
        let props = [u64::from(CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR), 12345, 0];
        let flags = CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR;
        let m = (gpu.api.clCreateBufferWithProperties)(
            gpu.context,
            props.as_ptr(),
            flags,
            64,
            null_mut(),
            &mut err,
        );
        assert!(m.is_null());
        assert_eq!(err, CL_INVALID_VALUE);
        let list = [
            u64::from(CL_MEM_DEVICE_HANDLE_LIST_KHR),
            gpu.device as u64,
            0,
            0,
        ];
        let m = (gpu.api.clCreateBufferWithProperties)(
            gpu.context,
            list.as_ptr(),
            CL_MEM_READ_WRITE,
            64,
            null_mut(),
            &mut err,
        );
        assert!(m.is_null());
        assert_eq!(err, CL_INVALID_PROPERTY);
    }
    // The device list may come first: the buffer is still external.
    let props = [
        u64::from(CL_MEM_DEVICE_HANDLE_LIST_KHR),
        gpu.device as u64,
        0,
        u64::from(CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR),
        exporter.export_fd() as u64,
        0,
    ];
    let listed = external_buffer(
        &gpu,
        &props,
        "clCreateBufferWithProperties (device list, opaque fd)",
    );
    // SAFETY: one external memory object of this context.
    unsafe {
        check(
            acquire(gpu.queue, 1, &listed.handle, 0, null(), null_mut()),
            "acquire",
        );
        check(
            release(gpu.queue, 1, &listed.handle, 0, null(), null_mut()),
            "release",
        );
        gpu.finish();
    }
    drop(buffer);
}
