//! `ferrocl info`: the devices ferrocl offers, from the runtime directly
//! (no loader involved), and the backend's notes on Vulkan devices it left
//! out.

use ferrocl_runtime::cl::*;
use ferrocl_runtime::platform::Platform;

/// A byte count in the largest binary unit that keeps it readable.
fn size(bytes: u64) -> String {
    if bytes >= 1 << 30 {
        format!("{:.1} GiB", bytes as f64 / (1u64 << 30) as f64)
    } else if bytes >= 1 << 20 {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{} KiB", bytes >> 10)
    }
}

fn device_type_name(bits: cl_bitfield) -> &'static str {
    if bits & CL_DEVICE_TYPE_GPU != 0 {
        "GPU"
    } else if bits & CL_DEVICE_TYPE_CPU != 0 {
        "CPU"
    } else if bits & CL_DEVICE_TYPE_ACCELERATOR != 0 {
        "accelerator"
    } else {
        "custom"
    }
}

pub fn run() -> Result<(), String> {
    let platform = Platform::get();
    println!(
        "platform: {} ({}), {}",
        platform.name(),
        platform.vendor(),
        platform.version()
    );
    println!("  extensions: {}", platform.extensions());
    let devices = platform.devices();
    if devices.is_empty() {
        println!("no device: no Vulkan device has what ferrocl needs");
    }
    for (index, device) in devices.iter().enumerate() {
        let info = device.info();
        let vk = device.vk_info();
        let caps = device.target_caps();
        println!(
            "device {index}: {} [{}]",
            info.name,
            device_type_name(info.device_type)
        );
        println!("  version: {}, {}", info.version, info.opencl_c_version);
        println!("  driver: {}", info.driver_version);
        println!(
            "  Vulkan: {}.{}.{} ({}), SPIR-V {}.{}",
            vk.api_version >> 22,
            (vk.api_version >> 12) & 0x3ff,
            vk.api_version & 0xfff,
            vk.driver_name,
            caps.spirv_version.0,
            caps.spirv_version.1
        );
        println!(
            "  compute units: {}, clock: {} MHz, max work-group: {} ({} x {} x {})",
            info.max_compute_units,
            info.max_clock_frequency,
            info.max_work_group_size,
            info.max_work_item_sizes[0],
            info.max_work_item_sizes[1],
            info.max_work_item_sizes[2]
        );
        println!(
            "  memory: global {}, max allocation {}, local {}, constant {}",
            size(info.global_mem_size),
            size(info.max_mem_alloc_size),
            size(info.local_mem_size),
            size(info.max_constant_buffer_size)
        );
        println!(
            "  kernel arguments: {} bytes of push constants, {} bytes at most",
            caps.max_push_constants_size, info.max_parameter_size
        );
        println!(
            "  integer dot products: {}; accelerated (signed, unsigned, mixed; \
             then saturating): {}",
            if caps.integer_dot_product {
                "SPIR-V dot instructions"
            } else {
                "32-bit arithmetic"
            },
            flags(&info.integer_dot_acceleration)
        );
        println!("  extensions: {}", info.extensions);
    }
    let notes = platform.instance().notes();
    if !notes.is_empty() {
        println!("backend notes:");
        for note in notes {
            println!("  {note}");
        }
    }
    Ok(())
}

/// Six yes/no flags as a compact `ynn/nnn`.
fn flags(bits: &[bool; 6]) -> String {
    let mark = |b: &bool| if *b { 'y' } else { 'n' };
    let (a, b) = bits.split_at(3);
    format!(
        "{}/{}",
        a.iter().map(mark).collect::<String>(),
        b.iter().map(mark).collect::<String>()
    )
}
