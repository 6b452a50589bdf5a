//! Builds kept on disk, so that an application that builds the same
//! program on every start (hashcat keeps ferrocl's program binary, which
//! is its source, and builds it again each run: 0.7-2 s for one of its
//! kernel files) compiles it once.
//!
//! An entry is keyed by everything a build depends on: the compiler's
//! [`ferrocl_compiler::BUILD_ID`], the device's `TargetCaps`, and the
//! source as the preprocessor leaves it, with the options it does not
//! consume ([`ferrocl_compiler::driver::Preprocessed`]). So a changed
//! header is a different key, never a stale answer, while the same program
//! reached another way is the same key: hashcat compiles and links its
//! programs on its first start (the macros become `#define` lines of the
//! linked source, the headers in-memory ones) and builds the binary it
//! kept with its `-D` options and `-I` directories on later starts. A
//! build whose log is not empty is kept under a second key that also
//! covers what its log quotes (file names, source lines). The
//! preprocessing done for the key is the build's own. Only successful builds
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

use ferrocl_compiler::{BuildError, CompileRequest, CompiledProgram, TargetCaps};
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
    let started = Instant::now();
    let Some(pre) = ferrocl_compiler::driver::preprocess(request, caps) else {
        return ferrocl_compiler::compile(request, caps);
    };
    let mut key = key_hasher(caps);
    pre.hash_tokens(&mut key);
    let tokens = dir.join(format!("{}.bin", key.hex()));
    // An entry under the tokens' key has an empty log (see below).
    if let Some(program) = load(&tokens).filter(|p| p.log.is_empty()) {
        return Ok(program);
    }
    pre.hash_quoted_text(&mut key);
    let quoted = dir.join(format!("{}.bin", key.hex()));
    if let Some(program) = load(&quoted) {
        return Ok(program);
    }
    let built = ferrocl_compiler::driver::compile_preprocessed(&pre, caps);
    if let Ok(program) = &built {
        if started.elapsed() >= min_build() {
            // An empty log quotes nothing: such a build is the same for
            // every source that preprocesses to the same tokens.
            let path = if program.log.is_empty() {
                &tokens
            } else {
                &quoted
            };
            store(&dir, path, program);
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

/// The hasher a build's keys start from: the compiler and the device.
/// Fed `Preprocessed::hash_tokens`, it is the key of what the program
/// depends on (and its log, when that is empty); fed
/// `Preprocessed::hash_quoted_text` after that, the key of a build with a
/// log.
fn key_hasher(caps: &TargetCaps) -> TwinHasher {
    let mut h = TwinHasher::new();
    ferrocl_compiler::BUILD_ID.hash(&mut h);
    format!("{caps:?}").hash(&mut h);
    h
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

/// Writes `bytes` to `path` in `dir` under a temporary name first and
/// renames it into place, so that a reader in another process (building
/// the same program, opening the same device) sees the whole file or
/// none. False where it could not.
pub(crate) fn write_atomically(dir: &Path, path: &Path, bytes: &[u8]) -> bool {
    if std::fs::create_dir_all(dir).is_err() {
        return false;
    }
    // Unique among this process's threads and other processes; [`trim`]
    // removes those a process left behind.
    static WRITES: AtomicU64 = AtomicU64::new(0);
    let n = WRITES.fetch_add(1, Ordering::Relaxed);
    let temporary = dir.join(format!(".{}.{n}.tmp", std::process::id()));
    let written = std::fs::File::create(&temporary)
        .and_then(|mut f| f.write_all(bytes))
        .and_then(|()| std::fs::rename(&temporary, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    written.is_ok()
}

/// Writes the entry ([`write_atomically`]) and keeps the directory within
/// [`MAX_BYTES`].
fn store(dir: &Path, path: &Path, program: &CompiledProgram) {
    let bytes = entry_bytes(program);
    if !write_atomically(dir, path, &bytes) {
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
    use ferrocl_compiler::Header;

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

    /// A build's two keys, as hex, as `compile` makes them.
    fn keys_of(
        source: &str,
        options: &str,
        headers: &[Header],
        caps: &TargetCaps,
    ) -> (String, String) {
        let request = CompileRequest {
            source,
            options,
            headers,
        };
        let pre = ferrocl_compiler::driver::preprocess(&request, caps).expect("preprocesses");
        let mut h = key_hasher(caps);
        pre.hash_tokens(&mut h);
        let tokens = h.hex();
        pre.hash_quoted_text(&mut h);
        (tokens, h.hex())
    }

    fn header(name: &str, source: &str) -> Header {
        Header {
            name: name.into(),
            source: source.into(),
        }
    }

    #[test]
    fn the_keys_follow_what_the_compiler_reads() {
        let caps = TargetCaps::default();
        let source = "#include \"x.h\"\nkernel void k(global int *o) { o[0] = X + Y; }\n";
        let x1 = [header("x.h", "#define X 1\n")];
        let base = keys_of(source, "-DY=2", &x1, &caps);
        let fp64 = TargetCaps {
            fp64: true,
            ..TargetCaps::default()
        };
        let others = [
            ("a macro's value", keys_of(source, "-DY=3", &x1, &caps)),
            (
                "a header",
                keys_of(source, "-DY=2", &[header("x.h", "#define X 2\n")], &caps),
            ),
            (
                "the source",
                keys_of(&source.replace("X + Y", "Y + X"), "-DY=2", &x1, &caps),
            ),
            (
                "an option",
                keys_of(source, "-DY=2 -cl-fast-relaxed-math", &x1, &caps),
            ),
            ("the device", keys_of(source, "-DY=2", &x1, &fp64)),
        ];
        for (what, other) in &others {
            assert_ne!(base.0, other.0, "{what}");
            assert_ne!(base.1, other.1, "{what}");
        }
        assert_eq!(base, keys_of(source, "-DY=2", &x1, &caps));
        // The same tokens in the same places: the same program, and the
        // same log where it is empty. What a log would quote differs.
        // The same tokens, one with a warning of the preprocessor's: the
        // log that goes with the tokens differs.
        let plain = "#define Z 2\nkernel void k(global int *o) { o[0] = Z; }\n";
        let redefined = format!("#define Z 1\n#undef Z\n{plain}");
        let warned = format!("#define Z 1\n\n{plain}");
        let [plain, redefined, warned] =
            [plain, redefined.as_str(), warned.as_str()].map(|s| keys_of(s, "", &[], &caps).0);
        assert_eq!(redefined, plain, "no warning");
        assert_ne!(warned, plain, "a preprocessor warning");
        let prefixed = format!("#define Y 2\n#line 1\n{source}");
        let commented = source.replace("; }", "; } // a comment");
        let moved = source.replace("\nkernel", "\n\nkernel");
        let spaced = source.replace("{ o", "{  o");
        let renamed = source.replace("x.h", "y.h");
        let y1 = [header("y.h", "#define X 1\n")];
        for (what, same) in [
            ("a #define line for -D", keys_of(&prefixed, "", &x1, &caps)),
            ("a comment", keys_of(&commented, "-DY=2", &x1, &caps)),
            ("a token's line", keys_of(&moved, "-DY=2", &x1, &caps)),
            ("a token's column", keys_of(&spaced, "-DY=2", &x1, &caps)),
            ("a header's name", keys_of(&renamed, "-DY=2", &y1, &caps)),
        ] {
            assert_eq!(base.0, same.0, "{what}");
            assert_ne!(base.1, same.1, "{what}");
        }
        // An include directory the build does not use changes nothing.
        assert_eq!(base, keys_of(source, "-DY=2 -I /nonexistent", &x1, &caps));
    }

    /// hashcat's case: a program compiled with `-D` and `-I` options and
    /// linked, whose binary (the linked source) is later built with the
    /// compile options again, is one program.
    #[test]
    fn a_linked_program_and_its_binary_built_again_share_a_key() {
        let caps = TargetCaps::default();
        let dir = std::env::temp_dir().join(format!("ferrocl-link-key-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("twice.h"), "#define TWICE(x) ((x) * 2)\n").unwrap();
        let source =
            "#include \"twice.h\"\nkernel void k(global int *o) { o[0] = TWICE(VALUE); }\n";
        let options = format!("-D VALUE=21 -I {} -w", dir.display());
        let request = CompileRequest {
            source,
            options: &options,
            headers: &[],
        };
        let object = ferrocl_compiler::driver::compile_object(&request, &caps).expect("compiles");
        // What clLinkProgram builds: the unit with its macros as lines and
        // the headers the object read, with the link's `-w`.
        let (text, others) = crate::program::unit_for_link(source, &options);
        let link_options = std::iter::once("-w".to_string())
            .chain(others.into_iter().filter(|o| o != "-w"))
            .collect::<Vec<_>>()
            .join(" ");
        let linked = keys_of(&text, &link_options, &object.included, &caps);
        let rebuilt = keys_of(&text, &options, &[], &caps);
        assert_eq!(linked.0, rebuilt.0);
        assert_ne!(
            linked.0,
            keys_of(
                &text.replace("TWICE(VALUE)", "TWICE(VALUE) + 1"),
                &options,
                &[],
                &caps
            )
            .0
        );
        std::fs::remove_dir_all(&dir).unwrap();
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
