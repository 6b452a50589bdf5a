//! The OpenCL platform: the one `cl_platform_id` of ferrocl.
//!
//! Owns the Vulkan instance (through `ferrocl-vk`) and one [`Device`] per
//! qualifying Vulkan physical device, created together on first use and
//! kept for the life of the process. It makes no Vulkan call itself.
//!
//! `FERROCL_DEVICE_REPLICAS=N` (1 to [`MAX_REPLICAS`]) lists every physical
//! device N times, one after the other. Each replica is a `cl_device_id` of
//! its own with its own `VkDevice`, so memory, queues and pipelines are
//! truly per device: this is how contexts with several devices, and the
//! migration of memory objects between them (`crate::migrate`), are tested
//! on a machine with one GPU. Without the variable each physical device is
//! listed once.

use crate::api::{ApiHeader, ApiObject, Tag};
use crate::cl::*;
use crate::device::{make_version, Device, NameVersion};
use std::sync::{Arc, OnceLock};

/// Platform-level extensions: the ICD mechanism and the versioned queries.
/// `cl_khr_icd` is at revision 1.0: the ICD 2 entry points
/// (`clIcdGetFunctionAddressForPlatformKHR`, `clIcdSetPlatformDispatchDataKHR`)
/// are not provided.
const PLATFORM_EXTENSIONS: [(&str, (u32, u32, u32)); 2] = [
    ("cl_khr_icd", (1, 0, 0)),
    ("cl_khr_extended_versioning", (1, 0, 0)),
];

/// `CL_PLATFORM_ICD_SUFFIX_KHR`: extension functions named `...FERRO` go to
/// this platform through the ICD loader.
pub const ICD_SUFFIX: &str = "FERRO";

static PLATFORM: OnceLock<Arc<Platform>> = OnceLock::new();

/// `FERROCL_DEBUG=1`: log why devices are missing and why things fail.
pub fn debug_enabled() -> bool {
    std::env::var_os("FERROCL_DEBUG").is_some_and(|v| !v.is_empty() && v != "0")
}

/// The most replicas `FERROCL_DEVICE_REPLICAS` may ask for: each opens a
/// `VkDevice` with its own memory pools, and tests need two or three.
pub const MAX_REPLICAS: usize = 8;

/// How many times each physical device is listed: `FERROCL_DEVICE_REPLICAS`
/// when it is a number from 1 to [`MAX_REPLICAS`], else 1.
pub fn device_replicas() -> usize {
    parse_replicas(std::env::var("FERROCL_DEVICE_REPLICAS").ok().as_deref())
}

fn parse_replicas(value: Option<&str>) -> usize {
    match value.map(|v| v.trim().parse::<usize>()) {
        None => 1,
        Some(Ok(n)) if (1..=MAX_REPLICAS).contains(&n) => n,
        Some(_) => {
            if debug_enabled() {
                eprintln!(
                    "ferrocl: FERROCL_DEVICE_REPLICAS must be a number from 1 to {MAX_REPLICAS}; \
                     listing each device once"
                );
            }
            1
        }
    }
}

/// The `cl_platform_id`.
#[repr(C)]
pub struct Platform {
    header: ApiHeader,
    instance: Arc<ferrocl_vk::Instance>,
    devices: Vec<Arc<Device>>,
    extensions_with_version: Vec<NameVersion>,
    extensions: String,
}

// SAFETY: repr(C) with ApiHeader first; the tag is Platform's alone.
unsafe impl ApiObject for Platform {
    const TAG: Tag = Tag::Platform;
    const INVALID: cl_int = CL_INVALID_PLATFORM;
}

impl Platform {
    /// The platform, created on first use with its devices. The ICD
    /// registers its dispatch table before the first call, so that the
    /// platform and device handles carry it.
    pub fn get() -> &'static Arc<Platform> {
        PLATFORM.get_or_init(|| Arc::new(Platform::create()))
    }

    fn create() -> Platform {
        let instance = ferrocl_vk::Instance::new();
        if debug_enabled() {
            for note in instance.notes() {
                eprintln!("ferrocl: {note}");
            }
            if instance.devices().is_empty() {
                eprintln!("ferrocl: no Vulkan device qualifies; the platform has no devices");
            }
        }
        let replicas = device_replicas();
        let devices: Vec<Arc<Device>> = instance
            .devices()
            .iter()
            .enumerate()
            .flat_map(|(index, vk_info)| {
                (0..replicas).map(move |_| Arc::new(Device::new(index, vk_info.clone())))
            })
            .collect();
        let extensions_with_version = platform_extensions(&devices);
        let extensions = extensions_with_version
            .iter()
            .map(|e| e.name.as_str())
            .collect::<Vec<_>>()
            .join(" ");
        Platform {
            header: ApiHeader::new(Tag::Platform),
            instance,
            devices,
            extensions_with_version,
            extensions,
        }
    }

    /// The devices, the `CL_DEVICE_TYPE_DEFAULT` one first.
    pub fn devices(&self) -> &[Arc<Device>] {
        &self.devices
    }

    pub fn instance(&self) -> &Arc<ferrocl_vk::Instance> {
        &self.instance
    }

    pub fn profile(&self) -> &'static str {
        "FULL_PROFILE"
    }

    pub fn version(&self) -> String {
        format!("OpenCL 3.0 ferrocl {}", env!("CARGO_PKG_VERSION"))
    }

    pub fn numeric_version(&self) -> u32 {
        make_version(3, 0, 0)
    }

    pub fn name(&self) -> &'static str {
        "ferrocl"
    }

    pub fn vendor(&self) -> &'static str {
        "ferrocl"
    }

    /// `CL_PLATFORM_EXTENSIONS`: space separated.
    pub fn extensions(&self) -> &str {
        &self.extensions
    }

    pub fn extensions_with_version(&self) -> &[NameVersion] {
        &self.extensions_with_version
    }

    /// `CL_PLATFORM_HOST_TIMER_RESOLUTION`: the host timer of
    /// `clGetHostTimer` is the monotonic clock in nanoseconds.
    pub fn host_timer_resolution(&self) -> u64 {
        1
    }
}

/// The platform's own extensions plus every extension that all devices
/// share, each once.
fn platform_extensions(devices: &[Arc<Device>]) -> Vec<NameVersion> {
    let mut list: Vec<NameVersion> = PLATFORM_EXTENSIONS
        .iter()
        .map(|&(name, (major, minor, patch))| {
            NameVersion::new(name, make_version(major, minor, patch))
        })
        .collect();
    if let Some((first, rest)) = devices.split_first() {
        for ext in &first.info().extensions_with_version {
            let everywhere = rest
                .iter()
                .all(|d| d.info().extensions_with_version.iter().any(|e| e == ext));
            if everywhere && !list.iter().any(|e| e.name == ext.name) {
                list.push(ext.clone());
            }
        }
    }
    list
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replicas_come_from_a_small_number() {
        assert_eq!(parse_replicas(None), 1);
        assert_eq!(parse_replicas(Some("2")), 2);
        assert_eq!(parse_replicas(Some(" 3 ")), 3);
        assert_eq!(parse_replicas(Some("8")), MAX_REPLICAS);
        assert_eq!(parse_replicas(Some("0")), 1);
        assert_eq!(parse_replicas(Some("9")), 1);
        assert_eq!(parse_replicas(Some("two")), 1);
        assert_eq!(parse_replicas(Some("")), 1);
    }
}
