//! Builds kept on disk, so that an application that builds the same
//! program on every start (hashcat keeps ferrocl's program binary, which
//! is its source, and builds it again each run: 0.7-2 s for one of its
//! kernel files) compiles it once.
//!
//! An entry is keyed by everything a build depends on: the compiler's
//! [`ferrocl_compiler::BUILD_ID`], the device's `TargetCaps`, the options,
//! the source, the in-memory headers, and the name and contents of every
//! header the build reads from disk. Those are found by running the
//! preprocessor alone first (a few percent of a build), so that a changed
//! header is a different key, never a stale answer. Only successful builds
//! that took at least `FERROCL_CACHE_MIN_MS` milliseconds (default
//! [`MIN_BUILD`]) are kept, with their log: a small program compiles in
//! less time than its entry takes to write, and a test suite or the CTS,
//! building tens of thousands of distinct small programs, would fill the
//! directory with them.
//!
//! Where: `FERROCL_CACHE_DIR`, else `$XDG_CACHE_HOME/ferrocl`, else
//! `$HOME/.cache/ferrocl`; `FERROCL_CACHE=off` turns the cache off. The
//! directory is kept under [`MAX_BYTES`] by removing the entries least
//! recently used. Every failure to read or write it is a cache miss, never
//! a failed build; an entry that does not read back whole is removed.

use ferrocl_compiler::{BuildError, CompileRequest, CompiledProgram, Header, TargetCaps};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime};

/// Bytes the cache directory may hold before the least recently used
/// entries go (down to three quarters of it).
const MAX_BYTES: u64 = 512 << 20;
/// The first bytes of an entry.
const MAGIC: &[u8; 8] = b"FCLBUILD";
/// Magic, payload length and payload hash.
const ENTRY_HEADER_BYTES: usize = 8 + 8 + 8;
/// Builds quicker than this are not kept (`FERROCL_CACHE_MIN_MS`).
const MIN_BUILD: Duration = Duration::from_millis(10);

/// `ferrocl_compiler::compile`, answered from the cache where it can be.
pub fn compile(
    request: &CompileRequest<'_>,
    caps: &TargetCaps,
) -> Result<CompiledProgram, BuildError> {
    let Some(dir) = cache_dir() else {
        return ferrocl_compiler::compile(request, caps);
    };
    let Some(included) = ferrocl_compiler::driver::disk_includes(request, caps) else {
        return ferrocl_compiler::compile(request, caps);
    };
    let path = dir.join(format!("{}.bin", key(request, caps, &included)));
    if let Some(program) = load(&path) {
        return Ok(program);
    }
    let started = Instant::now();
    let built = ferrocl_compiler::compile(request, caps);
    if let Ok(program) = &built {
        if started.elapsed() >= min_build() {
            store(&dir, &path, program);
        }
    }
    built
}

/// How long a build must take to be kept.
fn min_build() -> Duration {
    std::env::var("FERROCL_CACHE_MIN_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map_or(MIN_BUILD, Duration::from_millis)
}

/// The cache's directory, when the cache is on (the module docs).
pub(crate) fn cache_dir() -> Option<PathBuf> {
    if std::env::var("FERROCL_CACHE").is_ok_and(|v| v == "off" || v == "0") {
        return None;
    }
    let non_empty = |var: &str| std::env::var_os(var).filter(|v| !v.is_empty());
    if let Some(dir) = non_empty("FERROCL_CACHE_DIR") {
        return Some(PathBuf::from(dir));
    }
    if let Some(dir) = non_empty("XDG_CACHE_HOME") {
        return Some(PathBuf::from(dir).join("ferrocl"));
    }
    non_empty("HOME").map(|home| PathBuf::from(home).join(".cache").join("ferrocl"))
}

/// Two 64-bit hashes of the same bytes, seeded apart: 128 bits of key
/// from one pass over the inputs.
struct TwinHasher([DefaultHasher; 2]);

impl TwinHasher {
    fn new() -> Self {
        let mut pair = [DefaultHasher::new(), DefaultHasher::new()];
        for (seed, h) in pair.iter_mut().enumerate() {
            seed.hash(h);
        }
        TwinHasher(pair)
    }

    fn hex(&self) -> String {
        format!("{:016x}{:016x}", self.0[0].finish(), self.0[1].finish())
    }
}

impl Hasher for TwinHasher {
    fn write(&mut self, bytes: &[u8]) {
        for h in &mut self.0 {
            h.write(bytes);
        }
    }

    fn finish(&self) -> u64 {
        self.0[0].finish()
    }
}

/// 128 bits of hash over everything the build depends on, as hex.
fn key(request: &CompileRequest<'_>, caps: &TargetCaps, included: &[Header]) -> String {
    let mut h = TwinHasher::new();
    ferrocl_compiler::BUILD_ID.hash(&mut h);
    format!("{caps:?}").hash(&mut h);
    request.options.hash(&mut h);
    request.source.hash(&mut h);
    for headers in [request.headers, included] {
        headers.len().hash(&mut h);
        for header in headers {
            header.name.hash(&mut h);
            header.source.hash(&mut h);
        }
    }
    h.hex()
}

fn payload_hash(payload: &[u8]) -> u64 {
    let mut h = DefaultHasher::new();
    payload.hash(&mut h);
    h.finish()
}

/// The entry at `path`, when it is there and reads back whole; a damaged
/// one is removed.
fn load(path: &Path) -> Option<CompiledProgram> {
    let bytes = std::fs::read(path).ok()?;
    let program = parse_entry(&bytes);
    match &program {
        // Marks the entry used, for the least-recently-used removal.
        Some(_) => {
            if let Ok(file) = std::fs::OpenOptions::new().write(true).open(path) {
                let _ = file.set_modified(SystemTime::now());
            }
        }
        None => {
            let _ = std::fs::remove_file(path);
        }
    }
    program
}

fn parse_entry(bytes: &[u8]) -> Option<CompiledProgram> {
    let (header, payload) = bytes.split_at_checked(ENTRY_HEADER_BYTES)?;
    let (magic, rest) = header.split_at(8);
    let (len, hash) = rest.split_at(8);
    let len = u64::from_le_bytes(len.try_into().ok()?);
    let hash = u64::from_le_bytes(hash.try_into().ok()?);
    let whole = magic == MAGIC && len == payload.len() as u64 && hash == payload_hash(payload);
    whole
        .then(|| CompiledProgram::from_bytes(payload))
        .flatten()
}

fn entry_bytes(program: &CompiledProgram) -> Vec<u8> {
    let payload = program.to_bytes();
    let mut bytes = Vec::with_capacity(ENTRY_HEADER_BYTES + payload.len());
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&payload_hash(&payload).to_le_bytes());
    bytes.extend_from_slice(&payload);
    bytes
}

/// Writes the entry under a temporary name and renames it into place, so
/// that a reader (another process building the same program) sees the
/// whole entry or none.
fn store(dir: &Path, path: &Path, program: &CompiledProgram) {
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    // Unique among this process's threads and other processes.
    static STORES: AtomicU64 = AtomicU64::new(0);
    let n = STORES.fetch_add(1, Ordering::Relaxed);
    let temporary = dir.join(format!(".{}.{n}.tmp", std::process::id()));
    let bytes = entry_bytes(program);
    let written = std::fs::File::create(&temporary)
        .and_then(|mut f| f.write_all(&bytes))
        .and_then(|()| std::fs::rename(&temporary, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&temporary);
        return;
    }
    // The directory is measured at a process's first store, then after
    // every sixteenth of the limit it has written: a scan costs a look at
    // every entry, far more than a store.
    static SCANNED: AtomicBool = AtomicBool::new(false);
    static WRITTEN: AtomicU64 = AtomicU64::new(0);
    let written = WRITTEN.fetch_add(bytes.len() as u64, Ordering::Relaxed) + bytes.len() as u64;
    if !SCANNED.swap(true, Ordering::Relaxed) || written >= MAX_BYTES / 16 {
        WRITTEN.store(0, Ordering::Relaxed);
        trim(dir, MAX_BYTES);
    }
}

/// Removes the least recently used entries until the directory's entries
/// take at most three quarters of `max` bytes, if they take more than
/// `max`.
fn trim(dir: &Path, max: u64) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let an_hour_ago = SystemTime::now() - std::time::Duration::from_secs(3600);
    let mut list: Vec<(SystemTime, u64, PathBuf)> = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        let Some(modified) = entry.metadata().ok().and_then(|m| {
            let len = m.len();
            m.modified().ok().map(|t| (t, len))
        }) else {
            continue;
        };
        match path.extension().and_then(|x| x.to_str()) {
            Some("bin") => list.push((modified.0, modified.1, path)),
            // Left by a process that stopped between writing and renaming.
            Some("tmp") if modified.0 < an_hour_ago => {
                let _ = std::fs::remove_file(&path);
            }
            _ => {}
        }
    }
    let mut total: u64 = list.iter().map(|e| e.1).sum();
    if total <= max {
        return;
    }
    list.sort();
    for (_, len, path) in list {
        if total <= max / 4 * 3 {
            break;
        }
        if std::fs::remove_file(&path).is_ok() {
            total -= len;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build(source: &str, headers: &[Header]) -> CompiledProgram {
        let request = CompileRequest {
            source,
            options: "",
            headers,
        };
        ferrocl_compiler::compile(&request, &TargetCaps::default()).expect("builds")
    }

    #[test]
    fn an_entry_reads_back_and_a_damaged_one_does_not() {
        let program = build("kernel void k(global int *o) { o[0] = 7; }", &[]);
        let bytes = entry_bytes(&program);
        assert_eq!(parse_entry(&bytes), Some(program));
        for i in [0, 9, 17, ENTRY_HEADER_BYTES, bytes.len() - 1] {
            let mut damaged = bytes.clone();
            damaged[i] ^= 0x10;
            assert_eq!(parse_entry(&damaged), None, "byte {i} flipped");
        }
        assert_eq!(parse_entry(&bytes[..bytes.len() - 1]), None);
    }

    #[test]
    fn the_key_follows_every_input() {
        let caps = TargetCaps::default();
        let h = |name: &str, source: &str| Header {
            name: name.into(),
            source: source.into(),
        };
        let request = |source, options, headers| CompileRequest {
            source,
            options,
            headers,
        };
        let in_memory = [h("x.h", "1")];
        let base = key(&request("a", "", &[]), &caps, &[h("x.h", "1")]);
        let others = [
            key(&request("b", "", &[]), &caps, &[h("x.h", "1")]),
            key(&request("a", "-DX", &[]), &caps, &[h("x.h", "1")]),
            key(&request("a", "", &in_memory), &caps, &[]),
            key(&request("a", "", &[]), &caps, &[h("x.h", "2")]),
            key(&request("a", "", &[]), &caps, &[h("y.h", "1")]),
            key(
                &request("a", "", &[]),
                &TargetCaps {
                    fp64: true,
                    ..TargetCaps::default()
                },
                &[h("x.h", "1")],
            ),
        ];
        for (i, other) in others.iter().enumerate() {
            assert_ne!(&base, other, "input {i}");
        }
        assert_eq!(base, key(&request("a", "", &[]), &caps, &[h("x.h", "1")]));
    }

    #[test]
    fn trimming_removes_the_least_recently_used_first() {
        let dir = std::env::temp_dir().join(format!("ferrocl-trim-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let start = SystemTime::now() - std::time::Duration::from_secs(100);
        for i in 0..8u64 {
            let path = dir.join(format!("{i}.bin"));
            std::fs::write(&path, vec![0u8; 1000]).unwrap();
            let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
            file.set_modified(start + std::time::Duration::from_secs(i))
                .unwrap();
        }
        std::fs::write(dir.join("other.txt"), vec![0u8; 5000]).unwrap();
        for (name, age) in [(".1.0.tmp", 7200), (".1.1.tmp", 60)] {
            let path = dir.join(name);
            std::fs::write(&path, [0u8; 10]).unwrap();
            let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
            let when = SystemTime::now() - std::time::Duration::from_secs(age);
            file.set_modified(when).unwrap();
        }
        trim(&dir, 6000);
        let mut left: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        // 8000 bytes of entries over 6000: the four oldest go (to 4500),
        // and the temporary file left two hours ago.
        assert_eq!(
            left,
            [".1.1.tmp", "4.bin", "5.bin", "6.bin", "7.bin", "other.txt"]
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
