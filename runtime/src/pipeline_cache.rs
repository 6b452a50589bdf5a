//! The device's `VkPipelineCache` kept on disk beside the build cache
//! (build_cache.rs), so that a pipeline the driver took long to compile in
//! one run is not compiled again in the next.
//!
//! NVIDIA's driver keeps a disk cache of its own, but on the H100 it
//! answered hashcat's sha512crypt pipelines only from the third run on: the
//! second run compiled `m01800_init` (11-14 s) again for the same SPIR-V.
//! The cache's contents are written after every pipeline that took at least
//! [`SLOW_PIPELINE`] to create (writing after each fast one would rewrite a
//! growing file thousands of times in a test suite), and given to the
//! device when it is opened; Vulkan ignores data made for another device or
//! driver. One file per device UUID and driver version; one larger than
//! [`MAX_BYTES`] is not read, so the next write starts it afresh.

use crate::build_cache::{cache_dir, write_atomically};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Pipelines that take this long to create are worth keeping on disk.
pub const SLOW_PIPELINE: Duration = Duration::from_millis(100);
/// A cache file larger than this is not read.
const MAX_BYTES: u64 = 256 << 20;

/// The file of the device with this UUID and driver version.
fn file_name(device_uuid: &[u8; 16], driver_version: u32) -> String {
    let uuid: String = device_uuid.iter().map(|b| format!("{b:02x}")).collect();
    format!("pipelines-{uuid}-{driver_version:08x}.vkcache")
}

/// Where the device's cache is kept, when the cache is on.
pub fn path(device_uuid: &[u8; 16], driver_version: u32) -> Option<PathBuf> {
    cache_dir().map(|dir| dir.join(file_name(device_uuid, driver_version)))
}

/// The data to open the device's `VkPipelineCache` with (empty when there
/// is none, or it is too large).
pub fn load(path: Option<&Path>) -> Vec<u8> {
    let Some(path) = path else {
        return Vec::new();
    };
    match std::fs::metadata(path) {
        Ok(meta) if meta.len() <= MAX_BYTES => std::fs::read(path).unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// Writes `data` to `path` whole ([`write_atomically`]), so that another
/// process opening its device reads the old file or the new.
pub fn save(path: &Path, data: &[u8]) {
    if let (Some(dir), false) = (path.parent(), data.is_empty()) {
        write_atomically(dir, path, data);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saved_data_loads_back_and_an_oversized_file_does_not() {
        let dir = std::env::temp_dir().join(format!("ferrocl-vkcache-{}", std::process::id()));
        let path = dir.join(file_name(&[0xab; 16], 0x0102_0304));
        assert!(path
            .to_string_lossy()
            .ends_with("pipelines-abababababababababababababababab-01020304.vkcache"));
        assert!(load(Some(&path)).is_empty(), "no file yet");
        save(&path, b"pipeline cache bytes");
        assert_eq!(load(Some(&path)), b"pipeline cache bytes");
        let big = std::fs::File::create(&path).unwrap();
        big.set_len(MAX_BYTES + 1).unwrap();
        assert!(
            load(Some(&path)).is_empty(),
            "an oversized file is not read"
        );
        save(&path, b"afresh");
        assert_eq!(load(Some(&path)), b"afresh");
        assert!(load(None).is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
