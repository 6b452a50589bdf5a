//! The device's `VkPipelineCache` kept on disk beside the build cache
//! (build_cache.rs), so that a pipeline the driver took long to compile in
//! one run is not compiled again in the next.
//!
//! NVIDIA's driver keeps a disk cache of its own, but on the H100 it
//! answered hashcat's sha512crypt pipelines only from the third run on: the
//! second run compiled `m01800_init` (11-14 s) again for the same SPIR-V.
//! The cache's contents are written once the pipelines created since the
//! last write took [`SLOW_PIPELINE`] together, and at least
//! [`WRITE_SHARE`] times as long as that write (writing after each
//! pipeline would rewrite a growing file thousands of times in a test
//! suite), and given to the device when it is opened; Vulkan ignores data
//! made for another device or driver. Counting fast pipelines together
//! matters for programs of many kernels each quick to compile: hashcat's
//! md5crypt, whose pipelines each took under 100 ms on an H200, created
//! them again in its second start while it measured its speed. One file
//! per device UUID and driver version; one larger than [`MAX_BYTES`] is
//! not read, so the next write starts it afresh.

use crate::build_cache::{cache_dir, write_atomically};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Pipelines that took this long to create, together, are worth keeping
/// on disk.
pub const SLOW_PIPELINE: Duration = Duration::from_millis(100);
/// The pipelines written must have taken at least this many times as long
/// to create as the write takes, so that writing the file costs at most a
/// tenth of the creating.
pub const WRITE_SHARE: u32 = 10;
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

/// How long a device's pipelines not yet on disk took to create, and how
/// long the last write of its cache took.
#[derive(Default)]
pub struct Unsaved {
    created_ns: AtomicU64,
    last_write_ns: AtomicU64,
}

impl Unsaved {
    /// Counts a pipeline that took `created`; true when the cache should
    /// be written now (then the count starts again, so of threads that
    /// create pipelines at once only one writes).
    pub fn add(&self, created: Duration) -> bool {
        let created = nanos(created);
        let total = self.created_ns.fetch_add(created, Ordering::Relaxed) + created;
        let last_write = self.last_write_ns.load(Ordering::Relaxed);
        let due = nanos(SLOW_PIPELINE).max(last_write.saturating_mul(u64::from(WRITE_SHARE)));
        total >= due
            && self
                .created_ns
                .compare_exchange(total, 0, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
    }

    /// Records how long a write of the cache took.
    pub fn written(&self, took: Duration) {
        self.last_write_ns.store(nanos(took), Ordering::Relaxed);
    }
}

fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fast pipelines are written once they add up to `SLOW_PIPELINE`, a
    /// slow one at once, and a write that took long puts the next off
    /// until ten times as much creating has happened.
    #[test]
    fn pipelines_are_written_once_their_creation_adds_up() {
        let ms = Duration::from_millis;
        let unsaved = Unsaved::default();
        for _ in 0..4 {
            assert!(!unsaved.add(ms(20)));
        }
        assert!(unsaved.add(ms(20)), "five of 20 ms make 100 ms");
        assert!(!unsaved.add(ms(99)), "the count started again");
        assert!(unsaved.add(ms(1)));
        assert!(unsaved.add(ms(150)), "a slow pipeline alone");
        unsaved.written(ms(30));
        assert!(!unsaved.add(ms(150)), "300 ms are due after a 30 ms write");
        assert!(!unsaved.add(ms(100)));
        assert!(unsaved.add(ms(50)));
        unsaved.written(ms(1));
        assert!(unsaved.add(ms(100)));
    }

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
