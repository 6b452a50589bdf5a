//! End-to-end checks of the backend on whatever Vulkan device the machine
//! has (lavapipe in CI), with the Khronos validation layer on: every test
//! fails if the layer sent a single warning or error.

use ferrocl_vk::{
    validation_message_count, Buffer, CopyEngine, Device, Error, Instance, MemoryLocation,
    Pipeline, PipelineOptions, Timeline,
};
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

const SECOND_NS: u64 = 1_000_000_000;

/// One validated instance for the whole test binary. The variable is set
/// before any Vulkan call of this process, so no other thread is reading
/// the environment while it changes. `FERROCL_VALIDATION=sync` given from
/// outside adds synchronization validation.
fn instance() -> Arc<Instance> {
    static INSTANCE: OnceLock<Arc<Instance>> = OnceLock::new();
    Arc::clone(INSTANCE.get_or_init(|| {
        if std::env::var("FERROCL_VALIDATION").as_deref() != Ok("sync") {
            std::env::set_var("FERROCL_VALIDATION", "1");
        }
        Instance::new()
    }))
}

/// Runs `body` on a freshly opened first device, then checks that the
/// validation layer stayed silent, teardown included. A machine without a
/// qualifying Vulkan device fails rather than skips: CI has lavapipe, and a
/// skip would hide a backend that stopped finding it.
fn with_device(body: impl FnOnce(&Device)) {
    let instance = instance();
    assert!(
        !instance.devices().is_empty(),
        "no qualifying Vulkan device (install mesa-vulkan-drivers for lavapipe): {:?}",
        instance.notes()
    );
    {
        let device = instance.open_device(0).expect("open device 0");
        body(&device);
    }
    assert_eq!(validation_message_count(), 0, "validation layer messages");
}

fn write_bytes(buffer: &Buffer, bytes: &[u8]) {
    let ptr = buffer.mapped_ptr().expect("host-visible buffer is mapped");
    assert!(bytes.len() as u64 <= buffer.size());
    // SAFETY: the mapping covers `size()` bytes and no GPU work uses the
    // buffer during the write.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), ptr.as_ptr(), bytes.len()) };
}

fn read_u32s(buffer: &Buffer) -> Vec<u32> {
    let ptr = buffer.mapped_ptr().expect("host-visible buffer is mapped");
    let mut out = vec![0u32; (buffer.size() / 4) as usize];
    // SAFETY: as in `write_bytes`; the GPU work writing it has completed.
    unsafe {
        std::ptr::copy_nonoverlapping(ptr.as_ptr(), out.as_mut_ptr().cast::<u8>(), out.len() * 4)
    };
    out
}

fn u32_bytes(values: &[u32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_ne_bytes()).collect()
}

/// Assembles SPIR-V text with `spirv-as`; `None` (and a note) if the tool
/// is not installed.
fn assemble(name: &str, text: &str) -> Option<Vec<u32>> {
    let dir = std::env::temp_dir().join(format!("ferrocl-vk-test-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).ok()?;
    let source: PathBuf = dir.join(format!("{name}.spvasm"));
    let binary: PathBuf = dir.join(format!("{name}.spv"));
    std::fs::write(&source, text).expect("write SPIR-V text");
    let status = std::process::Command::new("spirv-as")
        .args(["--target-env", "vulkan1.2", "-o"])
        .arg(&binary)
        .arg(&source)
        .status();
    match status {
        Ok(s) if s.success() => {}
        Ok(s) => panic!("spirv-as failed on {name}: {s}"),
        Err(e) => {
            eprintln!("skipping: spirv-as is not available ({e})");
            return None;
        }
    }
    let bytes = std::fs::read(&binary).expect("read SPIR-V binary");
    let _ = std::fs::remove_dir_all(&dir);
    Some(
        bytes
            .chunks_exact(4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
            .collect(),
    )
}

/// The launch ABI in miniature: the push-constant block holds a buffer
/// address (u64) and a value (u32); each invocation stores
/// `global_id.x + value` at `address + 4 * global_id.x` through a
/// PhysicalStorageBuffer pointer. The work-group size is a specialization
/// constant (ids 0, 1, 2).
const STORE_KERNEL: &str = r#"
               OpCapability Shader
               OpCapability Int64
               OpCapability PhysicalStorageBufferAddresses
               OpCapability VulkanMemoryModel
               OpMemoryModel PhysicalStorageBuffer64 Vulkan
               OpEntryPoint GLCompute %main "store_ids" %gid %pc
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %wgsize BuiltIn WorkgroupSize
               OpDecorate %sx SpecId 0
               OpDecorate %sy SpecId 1
               OpDecorate %sz SpecId 2
               OpDecorate %Push Block
               OpMemberDecorate %Push 0 Offset 0
               OpMemberDecorate %Push 1 Offset 8
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
      %ulong = OpTypeInt 64 0
     %v3uint = OpTypeVector %uint 3
         %sx = OpSpecConstant %uint 1
         %sy = OpSpecConstant %uint 1
         %sz = OpSpecConstant %uint 1
     %wgsize = OpSpecConstantComposite %v3uint %sx %sy %sz
       %Push = OpTypeStruct %ulong %uint
 %ptr_pc_Push = OpTypePointer PushConstant %Push
%ptr_pc_ulong = OpTypePointer PushConstant %ulong
 %ptr_pc_uint = OpTypePointer PushConstant %uint
  %ptr_in_v3 = OpTypePointer Input %v3uint
%ptr_psb_uint = OpTypePointer PhysicalStorageBuffer %uint
        %gid = OpVariable %ptr_in_v3 Input
         %pc = OpVariable %ptr_pc_Push PushConstant
     %uint_0 = OpConstant %uint 0
     %uint_1 = OpConstant %uint 1
    %ulong_4 = OpConstant %ulong 4
       %main = OpFunction %void None %fn
      %entry = OpLabel
          %g = OpLoad %v3uint %gid
         %gx = OpCompositeExtract %uint %g 0
       %aptr = OpAccessChain %ptr_pc_ulong %pc %uint_0
       %addr = OpLoad %ulong %aptr
       %vptr = OpAccessChain %ptr_pc_uint %pc %uint_1
        %val = OpLoad %uint %vptr
       %gx64 = OpUConvert %ulong %gx
        %off = OpIMul %ulong %gx64 %ulong_4
         %ea = OpIAdd %ulong %addr %off
          %p = OpConvertUToPtr %ptr_psb_uint %ea
        %sum = OpIAdd %uint %gx %val
               OpStore %p %sum Aligned 4
               OpReturn
               OpFunctionEnd
"#;

fn store_pipeline(device: &Device, local_x: u32) -> Option<Arc<Pipeline>> {
    let words = assemble("store_ids", STORE_KERNEL)?;
    let pipeline = device
        .create_pipeline(&words, "store_ids", 12, &[(0, local_x), (1, 1), (2, 1)])
        .expect("create pipeline");
    Some(Arc::new(pipeline))
}

fn push_block(address: u64, value: u32) -> Vec<u8> {
    let mut push = address.to_ne_bytes().to_vec();
    push.extend_from_slice(&value.to_ne_bytes());
    push
}

#[test]
fn device_discovery_reports_sensible_info() {
    let instance = instance();
    for note in instance.notes() {
        eprintln!("note: {note}");
    }
    assert!(
        !instance.devices().is_empty(),
        "no qualifying Vulkan device"
    );
    for (i, d) in instance.devices().iter().enumerate() {
        eprintln!(
            "device {i}: {} ({:?}), driver {} [{}], Vulkan {}.{}, SPIR-V {:?}, {} CUs @ {} MHz, \
             {} MiB local heap, host-visible local {}, unified {}",
            d.name,
            d.device_type,
            d.driver_name,
            d.driver_info,
            d.api_version >> 22,
            (d.api_version >> 12) & 0x3ff,
            d.spirv_version,
            d.compute_units,
            d.max_clock_mhz,
            d.device_local_heap_size >> 20,
            d.host_visible_device_local,
            d.unified_memory
        );
        eprintln!("  limits: {:?}", d.limits);
        eprintln!("  features: {:?}", d.features);
        assert!(!d.name.is_empty());
        assert!(d.api_version >= (1 << 22 | 2 << 12), "Vulkan 1.2 or later");
        assert!(matches!(d.spirv_version, (1, 5) | (1, 6)));
        assert!(d.compute_units >= 1);
        assert!(d.device_local_heap_size > 0);
        assert!(d.limits.max_buffer_size > 0);
        assert!(d.limits.max_push_constants_size >= 128);
        assert!(d.limits.max_compute_work_group_invocations >= 128);
        assert!(d.limits.subgroup_size >= 1);
        assert!(d.limits.min_subgroup_size <= d.limits.max_subgroup_size);
        assert_ne!(d.device_uuid, [0; 16]);
    }
    // Listed in the documented order: discrete, integrated, virtual, CPU.
    let kinds: Vec<_> = instance.devices().iter().map(|d| d.device_type).collect();
    let rank = |t: &ferrocl_vk::DeviceType| match t {
        ferrocl_vk::DeviceType::DiscreteGpu => 0,
        ferrocl_vk::DeviceType::IntegratedGpu => 1,
        ferrocl_vk::DeviceType::VirtualGpu => 2,
        ferrocl_vk::DeviceType::Cpu => 3,
        ferrocl_vk::DeviceType::Other => 4,
    };
    assert!(kinds.windows(2).all(|w| rank(&w[0]) <= rank(&w[1])));
    assert_eq!(validation_message_count(), 0, "validation layer messages");
}

#[test]
fn buffers_map_write_and_read() {
    with_device(|device| {
        let upload = device
            .create_buffer(4096, MemoryLocation::HostToDevice)
            .unwrap();
        let readback = device
            .create_buffer(4096, MemoryLocation::DeviceToHost)
            .unwrap();
        let local = device
            .create_buffer(1 << 20, MemoryLocation::DeviceLocal)
            .unwrap();
        assert_eq!(upload.size(), 4096);
        assert_eq!(local.size(), 1 << 20);
        let addresses = [
            upload.device_address(),
            readback.device_address(),
            local.device_address(),
        ];
        assert!(addresses.iter().all(|&a| a != 0));
        assert!(addresses[0] != addresses[1] && addresses[1] != addresses[2]);
        if device.info().host_visible_device_local {
            assert!(local.mapped_ptr().is_some());
        }
        eprintln!(
            "host-cached: upload {}, readback {}, local {}",
            upload.host_cached(),
            readback.host_cached(),
            local.host_cached()
        );
        assert!(!local.host_cached() || local.mapped_ptr().is_some());
        let pattern: Vec<u32> = (0..1024).map(|i| i * 3 + 1).collect();
        write_bytes(&upload, &u32_bytes(&pattern));
        assert_eq!(read_u32s(&upload), pattern);
        write_bytes(&readback, &u32_bytes(&pattern));
        assert_eq!(read_u32s(&readback), pattern);
    });
}

/// A freed buffer serves the next one of its size and location
/// (vulkan-backend/src/recycle.rs), still holding what it held; other
/// sizes and locations, and alignments its address does not meet, get
/// buffers of their own; the device's teardown destroys what is kept.
#[test]
fn freed_buffers_serve_new_ones_of_their_size() {
    with_device(|device| {
        let size = 3 << 20;
        let first = device
            .create_buffer(size, MemoryLocation::HostToDevice)
            .unwrap();
        let address = first.device_address();
        let pattern: Vec<u32> = (0..256).map(|i| i * 7 + 5).collect();
        write_bytes(&first, &u32_bytes(&pattern));
        drop(first);
        let again = device
            .create_buffer(size, MemoryLocation::HostToDevice)
            .unwrap();
        assert_eq!(again.device_address(), address, "the freed buffer");
        assert_eq!(read_u32s(&again)[..256], pattern[..]);
        // While that one is in use: another size, another location, an
        // alignment past the address's own.
        let other_size = device
            .create_buffer(size + 4096, MemoryLocation::HostToDevice)
            .unwrap();
        let other_place = device
            .create_buffer(size, MemoryLocation::DeviceToHost)
            .unwrap();
        for b in [&other_size, &other_place] {
            assert_ne!(b.device_address(), address);
        }
        drop(again);
        let unaligned = 1u64 << address.trailing_zeros();
        let aligned = device
            .create_aligned_buffer(size, MemoryLocation::HostToDevice, unaligned << 1)
            .unwrap();
        assert_ne!(aligned.device_address(), address);
        // Freed buffers left kept here: the teardown destroys them, which
        // the validation layer checks.
    });
}

#[test]
fn buffer_size_errors() {
    with_device(|device| {
        assert!(matches!(
            device.create_buffer(0, MemoryLocation::DeviceLocal),
            Err(Error::Other(_))
        ));
        let too_big = device.info().limits.max_buffer_size + 1;
        assert_eq!(
            device
                .create_buffer(too_big, MemoryLocation::DeviceLocal)
                .err(),
            Some(Error::OutOfDeviceMemory)
        );
        // A buffer is one allocation unless the device binds sparse memory;
        // host-visible buffers, which are mapped whole, always are.
        let limits = &device.info().limits;
        assert!(limits.max_allocation_size > 0);
        if device.info().features.sparse_binding {
            assert!(limits.max_buffer_size >= limits.max_allocation_size);
            let past_one = limits.max_allocation_size + 1;
            assert_eq!(
                device
                    .create_buffer(past_one, MemoryLocation::HostToDevice)
                    .err(),
                Some(Error::OutOfDeviceMemory)
            );
        } else {
            assert!(limits.max_buffer_size <= limits.max_allocation_size);
        }
    });
}

#[test]
fn copy_and_fill_with_transfer_commands() {
    with_device(|device| {
        device.set_copy_engine(CopyEngine::Transfer);
        copy_and_fill(device);
    });
}

#[test]
fn copy_and_fill_with_compute_kernels() {
    with_device(|device| {
        device.set_copy_engine(CopyEngine::Compute);
        copy_and_fill(device);
    });
}

fn copy_and_fill(device: &Device) {
    {
        let n = 256u64;
        let src = Arc::new(
            device
                .create_buffer(n * 4, MemoryLocation::HostToDevice)
                .unwrap(),
        );
        let mid = Arc::new(
            device
                .create_buffer(n * 4, MemoryLocation::DeviceLocal)
                .unwrap(),
        );
        let dst = Arc::new(
            device
                .create_buffer(n * 4, MemoryLocation::DeviceToHost)
                .unwrap(),
        );
        let pattern: Vec<u32> = (0..n as u32).map(|i| i ^ 0x5a5a).collect();
        write_bytes(&src, &u32_bytes(&pattern));

        let timeline = device.create_timeline(0).unwrap();
        let mut stream = device.create_command_stream().unwrap();
        assert!(stream.is_empty());
        stream.fill_buffer(&mid, 0, n * 4, 0xdead_beef).unwrap();
        assert!(!stream.is_empty());
        stream.barrier().unwrap();
        // Elements 64..128 of `src` land at 32..96 of `mid`.
        stream
            .copy_buffer(&src, 64 * 4, &mid, 32 * 4, 64 * 4)
            .unwrap();
        stream.barrier().unwrap();
        stream.copy_buffer(&mid, 0, &dst, 0, n * 4).unwrap();
        // Out-of-bounds and overlapping requests are refused, not recorded.
        assert!(stream.copy_buffer(&src, 4, &mid, 0, n * 4).is_err());
        assert!(stream.copy_buffer(&mid, 0, &mid, 8, 16).is_err());
        assert!(stream.fill_buffer(&mid, 2, 8, 0).is_err());
        stream.submit(&[], (&timeline, 1)).unwrap();
        assert!(stream.is_empty());
        assert!(timeline.wait(1, 10 * SECOND_NS).unwrap());

        let got = read_u32s(&dst);
        for (i, &v) in got.iter().enumerate() {
            let want = if (32..96).contains(&i) {
                pattern[i + 32]
            } else {
                0xdead_beef
            };
            assert_eq!(v, want, "element {i}");
        }
    }
}

#[test]
fn rectangle_copies_with_transfer_commands() {
    with_device(|device| {
        device.set_copy_engine(CopyEngine::Transfer);
        rectangle_copies(device);
    });
}

#[test]
fn rectangle_copies_with_compute_kernels() {
    with_device(|device| {
        device.set_copy_engine(CopyEngine::Compute);
        rectangle_copies(device);
    });
}

/// (source offset, source pitches, destination offset, destination
/// pitches, region, within one buffer)
type RectCase = (u64, [u64; 2], u64, [u64; 2], [u64; 3], bool);

/// Rectangles copied between buffers and within one, compared with the
/// same copy done on the host: rows of 16-byte, 4-byte and odd multiples
/// (the built-in kernel in 16- or 4-byte units, or regions of a transfer
/// command), over several slices.
fn rectangle_copies(device: &Device) {
    let size = 64 * 1024u64;
    let pattern: Vec<u8> = (0..size).map(|i| (i * 13 % 251) as u8).collect();
    let cases: [RectCase; 5] = [
        (
            32,
            [256, 256 * 10],
            48,
            [160, 160 * 12],
            [128, 10, 3],
            false,
        ),
        (4, [100, 1200], 8, [68, 68 * 12], [64, 11, 2], false),
        (3, [101, 1300], 5, [70, 70 * 12], [61, 12, 2], false),
        (0, [512, 0], 40_000, [600, 0], [256, 16, 1], true),
        (0, [256, 4096], 128, [256, 4096], [64, 16, 2], true),
    ];
    for (src_offset, src_pitches, dst_offset, dst_pitches, region, one) in cases {
        let src = Arc::new(
            device
                .create_buffer(size, MemoryLocation::HostToDevice)
                .unwrap(),
        );
        let dst = if one {
            Arc::clone(&src)
        } else {
            Arc::new(
                device
                    .create_buffer(size, MemoryLocation::HostToDevice)
                    .unwrap(),
            )
        };
        write_bytes(&src, &pattern);
        if !one {
            write_bytes(&dst, &vec![0u8; size as usize]);
        }
        let mut want = if one {
            pattern.clone()
        } else {
            vec![0u8; size as usize]
        };
        let [row, rows, slices] = region;
        for z in 0..slices {
            for y in 0..rows {
                let from = (src_offset + y * src_pitches[0] + z * src_pitches[1]) as usize;
                let to = (dst_offset + y * dst_pitches[0] + z * dst_pitches[1]) as usize;
                let bytes = pattern[from..from + row as usize].to_vec();
                want[to..to + row as usize].copy_from_slice(&bytes);
            }
        }
        let timeline = device.create_timeline(0).unwrap();
        let mut stream = device.create_command_stream().unwrap();
        stream
            .copy_buffer_rect(
                &src,
                src_offset,
                src_pitches,
                &dst,
                dst_offset,
                dst_pitches,
                region,
            )
            .unwrap();
        // Past the end of a buffer: refused, not recorded.
        assert!(stream
            .copy_buffer_rect(&src, size - 64, src_pitches, &dst, 0, dst_pitches, region)
            .is_err());
        stream.submit(&[], (&timeline, 1)).unwrap();
        assert!(timeline.wait(1, 10 * SECOND_NS).unwrap());
        let ptr = dst.mapped_ptr().unwrap();
        let mut got = vec![0u8; size as usize];
        // SAFETY: the mapping covers `size` bytes; the copy has completed.
        unsafe { std::ptr::copy_nonoverlapping(ptr.as_ptr(), got.as_mut_ptr(), got.len()) };
        assert!(
            got == want,
            "rectangle {region:?} from {src_offset} to {dst_offset}: first difference at {:?}",
            got.iter().zip(&want).position(|(a, b)| a != b)
        );
    }
}

#[test]
fn dispatch_with_base_push_constants_and_spec_constant_workgroup() {
    with_device(|device| {
        let Some(pipeline) = store_pipeline(device, 4) else {
            return;
        };
        assert_eq!(pipeline.push_constant_size(), 12);
        let out = Arc::new(
            device
                .create_buffer(32 * 4, MemoryLocation::DeviceToHost)
                .unwrap(),
        );
        let timeline = device.create_timeline(0).unwrap();
        let mut stream = device.create_command_stream().unwrap();
        stream.fill_buffer(&out, 0, 32 * 4, u32::MAX).unwrap();
        stream.barrier().unwrap();
        let push = push_block(out.device_address(), 1000);
        // Groups 2..5 of a work-group size of 4: global ids 8..20.
        stream
            .dispatch(&pipeline, &push, [2, 0, 0], [3, 1, 1])
            .unwrap();
        // A push block larger than the pipeline's range is refused.
        assert!(stream
            .dispatch(&pipeline, &[0; 16], [0, 0, 0], [1, 1, 1])
            .is_err());
        // So is a group range beyond maxComputeWorkGroupCount.
        let max_x = device.info().limits.max_compute_work_group_count[0];
        assert!(stream
            .dispatch(&pipeline, &push, [max_x, 0, 0], [1, 1, 1])
            .is_err());
        assert!(Arc::strong_count(&out) >= 2, "the stream holds the buffer");
        let scratch = Arc::new(
            device
                .create_buffer(64, MemoryLocation::DeviceLocal)
                .unwrap(),
        );
        stream.keep_alive(&scratch).unwrap();
        let weak_scratch = Arc::downgrade(&scratch);
        drop(scratch);
        stream.submit(&[], (&timeline, 1)).unwrap();
        drop(pipeline); // The stream keeps it alive until completion.
        assert!(timeline.wait(1, 10 * SECOND_NS).unwrap());
        assert!(weak_scratch.upgrade().is_some(), "kept until recycled");
        stream.release_completed();
        assert!(weak_scratch.upgrade().is_none(), "released once complete");
        let got = read_u32s(&out);
        for (i, &v) in got.iter().enumerate() {
            let want = if (8..20).contains(&i) {
                i as u32 + 1000
            } else {
                u32::MAX
            };
            assert_eq!(v, want, "element {i}");
        }
    });
}

#[test]
fn timeline_waits_across_submissions_and_host_signal() {
    with_device(|device| {
        let a = Arc::new(
            device
                .create_buffer(1024, MemoryLocation::DeviceLocal)
                .unwrap(),
        );
        let b = Arc::new(
            device
                .create_buffer(1024, MemoryLocation::DeviceToHost)
                .unwrap(),
        );
        let gpu = device.create_timeline(0).unwrap();
        let host = device.create_timeline(0).unwrap();
        let mut first = device.create_command_stream().unwrap();
        let mut second = device.create_command_stream().unwrap();

        first.fill_buffer(&a, 0, 1024, 7).unwrap();
        first.submit(&[], (&gpu, 1)).unwrap();
        // The second submission's copy waits for the first one's fill.
        second.copy_buffer(&a, 0, &b, 0, 1024).unwrap();
        second.submit(&[(&gpu, 1)], (&gpu, 2)).unwrap();
        assert!(gpu.wait(2, 10 * SECOND_NS).unwrap());
        assert!(read_u32s(&b).iter().all(|&v| v == 7));

        // A submission held back by a host-signalled timeline.
        first.fill_buffer(&b, 0, 1024, 9).unwrap();
        first.submit(&[(&host, 1)], (&gpu, 3)).unwrap();
        std::thread::sleep(Duration::from_millis(20));
        assert!(!gpu.wait(3, 0).unwrap(), "ran before the host signal");
        assert_eq!(gpu.value().unwrap(), 2);
        host.signal(1).unwrap();
        assert!(gpu.wait(3, 10 * SECOND_NS).unwrap());
        assert!(read_u32s(&b).iter().all(|&v| v == 9));

        // Several timelines at once.
        let other = device.create_timeline(5).unwrap();
        assert!(Timeline::wait_all(&[(&gpu, 3), (&other, 5)], SECOND_NS).unwrap());
        assert!(!Timeline::wait_all(&[(&gpu, 3), (&other, 6)], 1_000_000).unwrap());

        // An empty submission still signals.
        second.submit(&[(&gpu, 3)], (&gpu, 4)).unwrap();
        assert!(gpu.wait(4, 10 * SECOND_NS).unwrap());
        assert_eq!(gpu.value().unwrap(), 4);
        // Signalling backwards is refused rather than left to the driver.
        assert!(host.signal(1).is_err());
    });
}

#[test]
fn command_buffers_are_recycled_and_release_resources() {
    with_device(|device| {
        let buffer = Arc::new(
            device
                .create_buffer(64, MemoryLocation::DeviceLocal)
                .unwrap(),
        );
        let timeline = device.create_timeline(0).unwrap();
        let mut stream = device.create_command_stream().unwrap();
        for i in 1..=50u64 {
            stream.fill_buffer(&buffer, 0, 64, i as u32).unwrap();
            stream.submit(&[], (&timeline, i)).unwrap();
        }
        assert!(timeline.wait(50, 10 * SECOND_NS).unwrap());
        stream.release_completed();
        assert_eq!(Arc::strong_count(&buffer), 1, "completed work released");
    });
}

#[test]
fn timestamps_and_calibration() {
    with_device(|device| {
        if device.info().limits.timestamp_valid_bits == 0 {
            eprintln!("skipping: the queue has no timestamps");
            return;
        }
        let buffer = Arc::new(
            device
                .create_buffer(1 << 16, MemoryLocation::DeviceLocal)
                .unwrap(),
        );
        let timeline = device.create_timeline(0).unwrap();
        let mut stream = device.create_command_stream().unwrap();
        let start = stream.write_timestamp().unwrap();
        stream.fill_buffer(&buffer, 0, 1 << 16, 1).unwrap();
        let end = stream.write_timestamp().unwrap();
        stream.submit(&[], (&timeline, 1)).unwrap();
        assert!(timeline.wait(1, 10 * SECOND_NS).unwrap());
        let t0 = start.ticks().unwrap().expect("start written");
        let t1 = end.ticks().unwrap().expect("end written");
        assert!(t1 >= t0);
        let ns0 = start.nanoseconds().unwrap().unwrap();
        let ns1 = end.nanoseconds().unwrap().unwrap();
        assert!(ns1 >= ns0);
        if device.info().features.calibrated_timestamps {
            let c = device.calibrated_host_time().unwrap().expect("calibration");
            assert!(c.device_ticks > 0 && c.host_time > 0);
        } else {
            assert!(device.calibrated_host_time().unwrap().is_none());
        }
    });
}

#[test]
fn pipelines_build_concurrently_and_cache_data_is_readable() {
    with_device(|device| {
        let Some(words) = assemble("store_ids_threads", STORE_KERNEL) else {
            return;
        };
        std::thread::scope(|scope| {
            for local in [1u32, 2, 8, 16] {
                let words = &words;
                scope.spawn(move || {
                    device
                        .create_pipeline(words, "store_ids", 12, &[(0, local)])
                        .expect("pipeline on a thread");
                });
            }
        });
        assert!(device
            .create_pipeline(&words, "store_ids", 4096, &[])
            .is_err());
        assert!(device
            .create_pipeline(&words, "store_ids", u32::MAX, &[])
            .is_err());
        device.pipeline_cache_data().unwrap();
    });
}

#[test]
fn instance_and_device_teardown_is_clean() {
    // The shared instance set FERROCL_VALIDATION before any Vulkan call.
    let shared = instance();
    assert!(!shared.devices().is_empty(), "{:?}", shared.notes());
    {
        let own = Instance::new();
        let device = own.open_device(0).unwrap();
        let buffer = Arc::new(
            device
                .create_buffer(256, MemoryLocation::DeviceLocal)
                .unwrap(),
        );
        let timeline = device.create_timeline(0).unwrap();
        let mut stream = device.create_command_stream().unwrap();
        stream.fill_buffer(&buffer, 0, 256, 3).unwrap();
        stream.submit(&[], (&timeline, 1)).unwrap();
        // Dropped with work possibly in flight: the stream waits for it.
        drop(stream);
        drop(buffer);
        drop(timeline);
        device.wait_idle();
        assert!(own.open_device(99).is_err());
    }
    assert_eq!(validation_message_count(), 0, "validation layer messages");
}

#[test]
fn imported_host_memory_is_written_by_the_device() {
    with_device(|device| {
        let alignment = device.info().limits.min_imported_host_pointer_alignment;
        if !device.info().features.external_memory_host || alignment == 0 {
            eprintln!("skipping: no VK_EXT_external_memory_host");
            return;
        }
        let size = (64 * 1024u64).div_ceil(alignment) * alignment;
        let layout =
            std::alloc::Layout::from_size_align(size as usize, alignment.max(64) as usize).unwrap();
        // SAFETY: a non-zero size layout.
        let host = unsafe { std::alloc::alloc_zeroed(layout) };
        let host = std::ptr::NonNull::new(host).expect("host allocation");
        {
            // SAFETY: `host` is `size` bytes, aligned, and outlives the
            // buffer (freed after this block, after the work completed).
            let imported = unsafe { device.import_host_memory(host, size) }.unwrap();
            assert_eq!(imported.mapped_ptr(), Some(host));
            assert_ne!(imported.device_address(), 0);
            let imported = Arc::new(imported);
            let timeline = device.create_timeline(0).unwrap();
            let mut stream = device.create_command_stream().unwrap();
            stream.fill_buffer(&imported, 0, size, 0x0102_0304).unwrap();
            stream.submit(&[], (&timeline, 1)).unwrap();
            assert!(timeline.wait(1, 10 * SECOND_NS).unwrap());
            assert!(read_u32s(&imported).iter().all(|&v| v == 0x0102_0304));
            // Misaligned requests are refused before Vulkan sees them.
            let skewed = std::ptr::NonNull::new(host.as_ptr().wrapping_add(4)).unwrap();
            // SAFETY: refused before any use of the pointer.
            assert!(unsafe { device.import_host_memory(skewed, alignment) }.is_err());
        }
        // SAFETY: allocated above with this layout; the buffer is gone.
        unsafe { std::alloc::dealloc(host.as_ptr(), layout) };
    });
}

/// Copies and fills whose addresses or sizes are not 16-byte multiples:
/// the 4-byte kernels, and the transfer path for odd bytes, mixed with a
/// user dispatch in one command buffer.
#[test]
fn unaligned_copies_and_fills_on_compute() {
    with_device(|device| {
        device.set_copy_engine(CopyEngine::Compute);
        let size = 4096u64;
        let src = Arc::new(
            device
                .create_buffer(size, MemoryLocation::HostToDevice)
                .unwrap(),
        );
        let dst = Arc::new(
            device
                .create_buffer(size, MemoryLocation::DeviceToHost)
                .unwrap(),
        );
        let bytes: Vec<u8> = (0..size).map(|i| (i * 7 + 3) as u8).collect();
        write_bytes(&src, &bytes);
        let timeline = device.create_timeline(0).unwrap();
        let mut stream = device.create_command_stream().unwrap();
        stream.fill_buffer(&dst, 0, size, 0).unwrap();
        stream.barrier().unwrap();
        // 4-aligned, not 16: the uint kernels.
        stream.copy_buffer(&src, 4, &dst, 8, 1000).unwrap();
        stream.fill_buffer(&dst, 2000, 12, 0xabab_abab).unwrap();
        // Odd offsets and size: the transfer path.
        stream.copy_buffer(&src, 1, &dst, 3001, 7).unwrap();
        // A user kernel after a built-in one in the same command buffer.
        let out = Arc::new(
            device
                .create_buffer(64, MemoryLocation::DeviceToHost)
                .unwrap(),
        );
        if let Some(pipeline) = store_pipeline(device, 4) {
            let push = push_block(out.device_address(), 5);
            stream
                .dispatch(&pipeline, &push, [0, 0, 0], [4, 1, 1])
                .unwrap();
        }
        stream.submit(&[], (&timeline, 1)).unwrap();
        assert!(timeline.wait(1, 10 * SECOND_NS).unwrap());

        let ptr = dst.mapped_ptr().unwrap();
        // SAFETY: the mapping covers `size` bytes; the work has completed.
        let got = unsafe { std::slice::from_raw_parts(ptr.as_ptr(), size as usize) };
        for i in 0..size as usize {
            let want = match i {
                8..1008 => bytes[i - 4],
                2000..2012 => 0xab,
                3001..3008 => bytes[i - 3000],
                _ => 0,
            };
            assert_eq!(got[i], want, "byte {i}");
        }
        if assemble("store_ids_check", STORE_KERNEL).is_some() {
            let ids = read_u32s(&out);
            assert!(ids.iter().enumerate().all(|(i, &v)| v == i as u32 + 5));
        }
    });
}

/// A large fill and copy on the compute path loop inside the kernel (more
/// units than invocations launched).
#[test]
fn large_compute_copy_loops_over_the_range() {
    with_device(|device| {
        device.set_copy_engine(CopyEngine::Compute);
        let size = 48u64 << 20;
        let a = Arc::new(
            device
                .create_buffer(size, MemoryLocation::DeviceLocal)
                .unwrap(),
        );
        let b = Arc::new(
            device
                .create_buffer(size, MemoryLocation::DeviceToHost)
                .unwrap(),
        );
        let timeline = device.create_timeline(0).unwrap();
        let mut stream = device.create_command_stream().unwrap();
        stream.fill_buffer(&a, 0, size, 0x1234_5678).unwrap();
        stream.fill_buffer(&b, 0, size, 0).unwrap();
        stream.barrier().unwrap();
        stream.copy_buffer(&a, 16, &b, 32, size - 48).unwrap();
        stream.submit(&[], (&timeline, 1)).unwrap();
        assert!(timeline.wait(1, 60 * SECOND_NS).unwrap());
        let got = read_u32s(&b);
        let last = got.len() - 4;
        assert!(got[..8].iter().all(|&v| v == 0));
        assert!(got[8..last].iter().all(|&v| v == 0x1234_5678));
        assert!(got[last..].iter().all(|&v| v == 0));
    });
}

#[test]
fn pipelines_with_a_required_subgroup_size() {
    with_device(|device| {
        let Some(words) = assemble("store_ids_subgroups", STORE_KERNEL) else {
            return;
        };
        let limits = &device.info().limits;
        let features = &device.info().features;
        let local = limits.max_subgroup_size;
        let options = PipelineOptions {
            required_subgroup_size: features
                .subgroup_size_control
                .then_some(limits.min_subgroup_size),
            full_subgroups: features.compute_full_subgroups,
            ..PipelineOptions::default()
        };
        let pipeline = device
            .create_pipeline_with_options(&words, "store_ids", 12, &[(0, local)], &options)
            .expect("pipeline with subgroup options");
        let out = Arc::new(
            device
                .create_buffer(u64::from(local) * 8, MemoryLocation::DeviceToHost)
                .unwrap(),
        );
        let timeline = device.create_timeline(0).unwrap();
        let mut stream = device.create_command_stream().unwrap();
        let push = push_block(out.device_address(), 0);
        stream
            .dispatch(&Arc::new(pipeline), &push, [0, 0, 0], [2, 1, 1])
            .unwrap();
        stream.submit(&[], (&timeline, 1)).unwrap();
        assert!(timeline.wait(1, 10 * SECOND_NS).unwrap());
        let ids = read_u32s(&out);
        assert!(ids.iter().enumerate().all(|(i, &v)| v == i as u32));

        // Sizes outside the device's range are refused before Vulkan sees them.
        let too_big = PipelineOptions {
            required_subgroup_size: Some(limits.max_subgroup_size * 2),
            ..PipelineOptions::default()
        };
        assert!(device
            .create_pipeline_with_options(&words, "store_ids", 12, &[(0, local)], &too_big)
            .is_err());
    });
}

/// A pipeline made to capture its statistics reports what the driver
/// compiled where the device offers VK_KHR_pipeline_executable_properties,
/// and cannot be made where it does not; a pipeline made without the
/// flags reports nothing either way.
#[test]
fn pipeline_statistics_where_the_driver_reports_them() {
    with_device(|device| {
        let Some(words) = assemble("store_ids_statistics", STORE_KERNEL) else {
            return;
        };
        let capture = PipelineOptions {
            capture_statistics: true,
            ..PipelineOptions::default()
        };
        let made =
            device.create_pipeline_with_options(&words, "store_ids", 12, &[(0, 64)], &capture);
        if device.info().features.pipeline_statistics {
            let executables = made
                .expect("pipeline with captured statistics")
                .executables()
                .unwrap();
            assert!(!executables.is_empty());
            assert!(
                executables.iter().any(|e| !e.statistics.is_empty()),
                "{executables:?}"
            );
        } else {
            assert!(made.is_err());
        }
        let plain = device
            .create_pipeline(&words, "store_ids", 12, &[(0, 64)])
            .unwrap();
        assert!(plain.executables().is_err());
    });
}

/// Streams on several threads share the device's queue, allocator, layout
/// cache and query pools.
#[test]
fn streams_on_many_threads_share_one_device() {
    with_device(|device| {
        std::thread::scope(|scope| {
            for t in 0..4u32 {
                scope.spawn(move || {
                    let timeline = device.create_timeline(0).unwrap();
                    let mut stream = device.create_command_stream().unwrap();
                    let mut stamps = Vec::new();
                    for round in 1..=20u32 {
                        let value = t * 1000 + round;
                        let a = Arc::new(
                            device
                                .create_buffer(4096, MemoryLocation::DeviceLocal)
                                .unwrap(),
                        );
                        let b = Arc::new(
                            device
                                .create_buffer(4096, MemoryLocation::DeviceToHost)
                                .unwrap(),
                        );
                        stream.fill_buffer(&a, 0, 4096, value).unwrap();
                        stream.barrier().unwrap();
                        stream.copy_buffer(&a, 0, &b, 0, 4096).unwrap();
                        if device.info().limits.timestamp_valid_bits > 0 {
                            stamps.push(stream.write_timestamp().unwrap());
                        }
                        stream.submit(&[], (&timeline, u64::from(round))).unwrap();
                        assert!(timeline.wait(u64::from(round), 10 * SECOND_NS).unwrap());
                        assert!(read_u32s(&b).iter().all(|&v| v == value));
                    }
                    for stamp in &stamps {
                        assert!(stamp.ticks().unwrap().is_some());
                    }
                });
            }
        });
    });
}

/// More timestamps than one query pool holds, some dropped before their
/// submission completes.
#[test]
fn timestamp_slots_are_pooled_and_reused() {
    with_device(|device| {
        if device.info().limits.timestamp_valid_bits == 0 {
            return;
        }
        let timeline = device.create_timeline(0).unwrap();
        let mut stream = device.create_command_stream().unwrap();
        let mut kept = Vec::new();
        for i in 0..600 {
            let stamp = stream.write_timestamp().unwrap();
            if i % 3 == 0 {
                kept.push(stamp);
            }
        }
        stream.submit(&[], (&timeline, 1)).unwrap();
        assert!(timeline.wait(1, 10 * SECOND_NS).unwrap());
        let ticks: Vec<u64> = kept.iter().map(|s| s.ticks().unwrap().unwrap()).collect();
        assert!(ticks.windows(2).all(|w| w[0] <= w[1]));
        drop(kept);
        stream.release_completed();
        // Slots came back: another round fits without trouble.
        for _ in 0..600 {
            stream.write_timestamp().unwrap();
        }
        stream.submit(&[], (&timeline, 2)).unwrap();
        assert!(timeline.wait(2, 10 * SECOND_NS).unwrap());
    });
}
