//! Programs: source, per-device build state and the compiled SPIR-V with
//! its reflection.
//!
//! `clCompileProgram` checks the source by compiling it as an object
//! (`extern` variables and functions may stay undefined) and keeps source,
//! options and headers, with the headers it read from `-I` directories;
//! `clLinkProgram` compiles the concatenation of its inputs' sources (with
//! every input's headers) as one program, the inputs separated by
//! `#pragma ferrocl translation_unit` lines: the compiler preprocesses each
//! unit on its own and keeps its `static` names private to it. This keeps
//! one compiler entry point; other declarations in two linked sources must
//! agree as they would in a single C file (a struct that both define
//! identically is one type).
//!
//! Binaries (`CL_PROGRAM_BINARIES`) use the ferrocl binary format:
//!
//! | bytes | what |
//! |---|---|
//! | 8 | magic `FRCLBIN1` |
//! | 4 | binary type (`CL_PROGRAM_BINARY_TYPE_*`, little endian) |
//! | 4 | options length n (little endian) |
//! | n | build options, UTF-8 |
//! | rest | OpenCL C source, UTF-8 |
//!
//! A program created from such a binary is compiled again from that source
//! when it is built, so a binary is valid for any ferrocl device.

use crate::api::{ApiHeader, ApiObject, Tag};
use crate::cl::*;
use crate::context::Context;
use crate::device::Device;
pub use ferrocl_compiler::Header;
use ferrocl_compiler::{BuildError, CompileRequest, CompiledProgram};
use parking_lot::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// `cl_build_status` values (signed in the C headers).
pub const CL_BUILD_NONE: cl_int = -1;
pub const CL_BUILD_ERROR: cl_int = -2;
pub const CL_BUILD_IN_PROGRESS: cl_int = -3;

const BINARY_MAGIC: &[u8; 8] = b"FRCLBIN1";

/// The build of a program for one device.
#[derive(Clone)]
pub struct DeviceBuild {
    pub status: cl_int,
    pub options: String,
    pub log: String,
    pub binary_type: cl_uint,
    pub compiled: Option<Arc<CompiledProgram>>,
    /// The executable's program-scope `__global` variables: one buffer
    /// for the program on this device, holding their values between
    /// kernel launches (the compiler's launch ABI).
    pub global_data: Option<Arc<crate::memory::Mem>>,
}

impl DeviceBuild {
    fn none() -> DeviceBuild {
        DeviceBuild {
            status: CL_BUILD_NONE,
            options: String::new(),
            log: String::new(),
            binary_type: CL_PROGRAM_BINARY_TYPE_NONE,
            compiled: None,
            global_data: None,
        }
    }
}

/// Where the program came from.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ProgramSource {
    Source,
    Binary,
}

/// A `cl_program`.
#[repr(C)]
pub struct Program {
    header: ApiHeader,
    pub context: Arc<Context>,
    pub devices: Vec<Arc<Device>>,
    pub origin: ProgramSource,
    source: Mutex<String>,
    headers: Mutex<Vec<Header>>,
    builds: Mutex<Vec<DeviceBuild>>,
    /// Kernel objects alive for this program (`clBuildProgram` is
    /// `CL_INVALID_OPERATION` while any is).
    pub kernel_count: AtomicUsize,
    /// Per kernel name, what all its kernel objects share (pipelines, cut
    /// modules; runtime/src/kernel.rs `SharedKernel`), for the current
    /// build.
    pub shared_kernels: Mutex<Vec<crate::kernel::SharedKernel>>,
}

// SAFETY: repr(C) with the header first; the tag is unique to Program.
unsafe impl ApiObject for Program {
    const TAG: Tag = Tag::Program;
    const INVALID: cl_int = CL_INVALID_PROGRAM;
}

/// Parses a ferrocl binary: (binary type, options, source).
pub fn parse_binary(bytes: &[u8]) -> Option<(cl_uint, String, String)> {
    if bytes.len() < 16 || &bytes[..8] != BINARY_MAGIC {
        return None;
    }
    let binary_type = u32::from_le_bytes(bytes[8..12].try_into().ok()?);
    let n = u32::from_le_bytes(bytes[12..16].try_into().ok()?) as usize;
    let options = std::str::from_utf8(bytes.get(16..16 + n)?)
        .ok()?
        .to_string();
    let source = std::str::from_utf8(bytes.get(16 + n..)?).ok()?.to_string();
    Some((binary_type, options, source))
}

fn make_binary(binary_type: cl_uint, options: &str, source: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(16 + options.len() + source.len());
    out.extend_from_slice(BINARY_MAGIC);
    out.extend_from_slice(&binary_type.to_le_bytes());
    out.extend_from_slice(&(options.len() as u32).to_le_bytes());
    out.extend_from_slice(options.as_bytes());
    out.extend_from_slice(source.as_bytes());
    out
}

impl Program {
    fn new(
        context: Arc<Context>,
        devices: Vec<Arc<Device>>,
        origin: ProgramSource,
        source: String,
        builds: Vec<DeviceBuild>,
    ) -> Arc<Program> {
        Arc::new(Program {
            header: ApiHeader::new(Tag::Program),
            context,
            devices,
            origin,
            source: Mutex::new(source),
            headers: Mutex::new(Vec::new()),
            builds: Mutex::new(builds),
            kernel_count: AtomicUsize::new(0),
            shared_kernels: Mutex::new(Vec::new()),
        })
    }

    pub fn with_source(context: Arc<Context>, source: String) -> Arc<Program> {
        let devices = context.devices.clone();
        let builds = devices.iter().map(|_| DeviceBuild::none()).collect();
        Program::new(context, devices, ProgramSource::Source, source, builds)
    }

    /// From binaries already parsed (one per device, same order).
    pub fn with_binaries(
        context: Arc<Context>,
        devices: Vec<Arc<Device>>,
        binaries: Vec<(cl_uint, String, String)>,
    ) -> Arc<Program> {
        let source = binaries.first().map(|b| b.2.clone()).unwrap_or_default();
        let builds = binaries
            .into_iter()
            .map(|(binary_type, options, _)| DeviceBuild {
                binary_type,
                options,
                ..DeviceBuild::none()
            })
            .collect();
        Program::new(context, devices, ProgramSource::Binary, source, builds)
    }

    pub fn source(&self) -> String {
        self.source.lock().clone()
    }

    pub fn device_index(&self, device: &Device) -> Option<usize> {
        self.devices.iter().position(|d| std::ptr::eq(&**d, device))
    }

    pub fn build_of(&self, index: usize) -> DeviceBuild {
        self.builds.lock()[index].clone()
    }

    /// The executable for a device, if built.
    pub fn executable(&self, index: usize) -> Option<Arc<CompiledProgram>> {
        let builds = self.builds.lock();
        let b = &builds[index];
        if b.binary_type == CL_PROGRAM_BINARY_TYPE_EXECUTABLE {
            b.compiled.clone()
        } else {
            None
        }
    }

    /// The buffer of the executable's program-scope `__global` variables
    /// on device `index`, if it has any.
    pub fn global_data(&self, index: usize) -> Option<Arc<crate::memory::Mem>> {
        self.builds.lock()[index].global_data.clone()
    }

    /// The first device's executable (kernel names and reflection are the
    /// same on every device: one compiler, one source).
    pub fn any_executable(&self) -> Option<Arc<CompiledProgram>> {
        (0..self.devices.len()).find_map(|i| self.executable(i))
    }

    /// `clBuildProgram` for the devices at `indices`: `Err` with
    /// `CL_BUILD_PROGRAM_FAILURE` or `CL_INVALID_BUILD_OPTIONS` when any
    /// failed.
    pub fn build(&self, indices: &[usize], options: &str) -> Result<(), cl_int> {
        let source = self.source();
        let headers = self.headers.lock().clone();
        // A binary carries the options it was built with; an empty options
        // string rebuilds it the same way.
        if self.origin == ProgramSource::Binary && options.is_empty() {
            let mut result = Ok(());
            for &i in indices {
                let stored = self.builds.lock()[i].options.clone();
                let failures = (CL_BUILD_PROGRAM_FAILURE, CL_INVALID_BUILD_OPTIONS);
                let r = self.compile_for(
                    &[i],
                    &stored,
                    &source,
                    &headers,
                    CL_PROGRAM_BINARY_TYPE_EXECUTABLE,
                    failures,
                );
                result = result.and(r);
            }
            return result;
        }
        let failures = (CL_BUILD_PROGRAM_FAILURE, CL_INVALID_BUILD_OPTIONS);
        self.compile_for(
            indices,
            options,
            &source,
            &headers,
            CL_PROGRAM_BINARY_TYPE_EXECUTABLE,
            failures,
        )
    }

    /// `clCompileProgram`: checks the source and keeps it with its headers.
    pub fn compile(
        &self,
        indices: &[usize],
        options: &str,
        headers: Vec<Header>,
    ) -> Result<(), cl_int> {
        let source = self.source();
        *self.headers.lock() = headers.clone();
        self.compile_for(
            indices,
            options,
            &source,
            &headers,
            CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT,
            (CL_COMPILE_PROGRAM_FAILURE, CL_INVALID_COMPILER_OPTIONS),
        )
    }

    fn compile_for(
        &self,
        indices: &[usize],
        options: &str,
        source: &str,
        headers: &[Header],
        binary_type: cl_uint,
        (failure, invalid_options): (cl_int, cl_int),
    ) -> Result<(), cl_int> {
        {
            // CL_INVALID_OPERATION if the build of a program executable for
            // any of the devices listed in device_list by a previous call to
            // clBuildProgram (or clCompileProgram) for program has not
            // completed. Checked and claimed under one lock, so that of two
            // threads building one program at once only one proceeds.
            let mut builds = self.builds.lock();
            if indices
                .iter()
                .any(|&i| builds[i].status == CL_BUILD_IN_PROGRESS)
            {
                return Err(CL_INVALID_OPERATION);
            }
            for &i in indices {
                builds[i].status = CL_BUILD_IN_PROGRESS;
            }
            // What kernel objects share belongs to the executables this
            // build replaces.
            self.shared_kernels.lock().clear();
        }
        let mut result = Ok(());
        for &i in indices {
            let request = CompileRequest {
                source,
                options,
                headers,
            };
            let caps = self.devices[i].target_caps();
            let object = binary_type == CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT;
            // A compiler bug must not leave the build "in progress" forever:
            // it becomes a failed build with a log line.
            let outcome = std::panic::catch_unwind(|| {
                if object {
                    ferrocl_compiler::driver::compile_object(&request, caps)
                        .map(|o| (o.program, o.included))
                } else {
                    crate::build_cache::compile(&request, caps).map(|p| (p, Vec::new()))
                }
            })
            .unwrap_or_else(|_| {
                Err(BuildError {
                    log: "error: internal compiler error (the compiler panicked)\n".to_string(),
                    invalid_options: false,
                })
            });
            // Headers read from `-I` directories stay with the object: the
            // link reads them again, maybe after the directories are gone.
            let outcome = outcome.map(|(compiled, included)| {
                let mut kept = self.headers.lock();
                for h in included {
                    if !kept.iter().any(|k| k.name == h.name) {
                        kept.push(h);
                    }
                }
                compiled
            });
            // An executable's global variables get their buffer, with
            // their initial values, before the build is published.
            let global_data = match &outcome {
                Ok(compiled)
                    if binary_type == CL_PROGRAM_BINARY_TYPE_EXECUTABLE
                        && !compiled.global_data.is_empty() =>
                {
                    let mut init = compiled.global_data.clone();
                    let buffer = crate::memory::Mem::new_buffer(
                        self.context.clone(),
                        CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                        init.len(),
                        init.as_mut_ptr().cast(),
                        Vec::new(),
                    );
                    let buffer = buffer.and_then(|m| {
                        relocate_global_data(&self.context, &self.devices[i], &m, compiled, init)
                            .map(|()| m)
                    });
                    match buffer {
                        Ok(m) => Some(m),
                        Err(code) => {
                            let mut builds = self.builds.lock();
                            let b = &mut builds[i];
                            b.options = options.to_string();
                            b.status = CL_BUILD_ERROR;
                            b.log = "error: no memory for the program's global variables\n".into();
                            b.binary_type = CL_PROGRAM_BINARY_TYPE_NONE;
                            b.compiled = None;
                            b.global_data = None;
                            result = Err(code);
                            continue;
                        }
                    }
                }
                _ => None,
            };
            match &outcome {
                Ok(compiled) => print_build_log(options, &compiled.log, false),
                Err(e) => print_build_log(options, &e.log, true),
            }
            let mut builds = self.builds.lock();
            let b = &mut builds[i];
            b.options = options.to_string();
            b.global_data = global_data;
            match outcome {
                Ok(compiled) => {
                    b.status = CL_BUILD_SUCCESS as cl_int;
                    b.log = compiled.log.clone();
                    b.binary_type = binary_type;
                    b.compiled = Some(Arc::new(compiled));
                }
                Err(e) => {
                    b.status = CL_BUILD_ERROR;
                    b.log = e.log;
                    b.binary_type = CL_PROGRAM_BINARY_TYPE_NONE;
                    b.compiled = None;
                    result = Err(if e.invalid_options {
                        invalid_options
                    } else {
                        failure
                    });
                }
            }
        }
        result
    }

    /// `clLinkProgram`: a new program compiled from the concatenation of
    /// `inputs` (every one compiled for the devices).
    pub fn link(
        context: Arc<Context>,
        devices: Vec<Arc<Device>>,
        inputs: &[Arc<Program>],
        options: &str,
    ) -> (Arc<Program>, Result<(), cl_int>) {
        let mut source = String::new();
        let mut headers = Vec::new();
        // The linker's own options mean nothing to the compiler.
        let mut compile_options: Vec<String> = option_words(options)
            .into_iter()
            .filter(|o| o != "-create-library" && o != "-enable-link-options")
            .collect();
        let library = options.split_whitespace().any(|o| o == "-create-library");
        for p in inputs {
            // Each object keeps the macros of its own compile options; its
            // other options (include directories, math flags) apply to the
            // whole link.
            let unit_options = p.build_of(0).options;
            let (text, others) = unit_for_link(&p.source(), &unit_options);
            // Each object is its own translation unit: its `static` names
            // are its own (the compiler's sema::linkage).
            if !source.is_empty() {
                source.push_str("#pragma ferrocl translation_unit\n");
            }
            source.push_str(&text);
            for o in others {
                if !compile_options.contains(&o) {
                    compile_options.push(o);
                }
            }
            headers.extend(p.headers.lock().iter().cloned());
        }
        let compile_options = compile_options.join(" ");
        let builds = devices.iter().map(|_| DeviceBuild::none()).collect();
        let program = Program::new(
            context,
            devices,
            ProgramSource::Source,
            source.clone(),
            builds,
        );
        *program.headers.lock() = headers.clone();
        let indices: Vec<usize> = (0..program.devices.len()).collect();
        let binary_type = if library {
            CL_PROGRAM_BINARY_TYPE_LIBRARY
        } else {
            CL_PROGRAM_BINARY_TYPE_EXECUTABLE
        };
        let result = program.compile_for(
            &indices,
            &compile_options,
            &source,
            &headers,
            binary_type,
            (CL_LINK_PROGRAM_FAILURE, CL_INVALID_LINKER_OPTIONS),
        );
        (program, result)
    }

    /// `CL_PROGRAM_BINARIES` of device `index`: empty when nothing was built.
    pub fn binary(&self, index: usize) -> Vec<u8> {
        let b = self.build_of(index);
        if b.binary_type == CL_PROGRAM_BINARY_TYPE_NONE {
            return Vec::new();
        }
        make_binary(b.binary_type, &b.options, &self.source())
    }

    pub fn kernels_alive(&self) -> usize {
        self.kernel_count.load(Ordering::Acquire)
    }
}

/// Many applications drop the build log of a failed build. With
/// `FERROCL_BUILD_LOG` set, the log of every failed build, compile and
/// link goes to stderr with the options; with `FERROCL_BUILD_LOG=all`, of
/// every one.
fn print_build_log(options: &str, log: &str, failed: bool) {
    static MODE: std::sync::OnceLock<Option<bool>> = std::sync::OnceLock::new();
    let all = *MODE.get_or_init(|| std::env::var("FERROCL_BUILD_LOG").ok().map(|v| v == "all"));
    if all == Some(true) || (failed && all.is_some()) {
        let outcome = if failed { "failed" } else { "succeeded" };
        eprintln!("ferrocl: build {outcome}, options \"{options}\"\n{log}");
    }
}

/// Program-scope pointers initialised with the address of program data
/// hold an offset in the program's data buffer
/// (`CompiledProgram::global_relocations`): adds the buffer's device
/// address on `device`, the one device whose kernels use this buffer, and
/// writes the result over the initial contents on the context's first
/// device, from which another device's copy is migrated on first use.
fn relocate_global_data(
    context: &Context,
    device: &Device,
    mem: &crate::memory::Mem,
    compiled: &CompiledProgram,
    mut init: Vec<u8>,
) -> Result<(), cl_int> {
    if compiled.global_relocations.is_empty() {
        return Ok(());
    }
    let index = context.device_index(device).ok_or(CL_INVALID_DEVICE)?;
    let base = mem.device_address_on(index)?;
    for &at in &compiled.global_relocations {
        let slot = init
            .get_mut(at as usize..at as usize + 8)
            .ok_or(CL_INVALID_PROGRAM)?;
        let offset = u64::from_le_bytes(slot.try_into().map_err(|_| CL_INVALID_PROGRAM)?);
        slot.copy_from_slice(&base.wrapping_add(offset).to_le_bytes());
    }
    context.upload(0, &mem.buffer, mem.offset as u64, &init)
}

/// Splits an options string into words; quotes group words and are kept
/// (the compiler's option parser reads them).
fn option_words(options: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quote = None;
    for c in options.chars() {
        match (quote, c) {
            (None, '\'' | '"') => {
                quote = Some(c);
                word.push(c);
            }
            (Some(q), _) if c == q => {
                quote = None;
                word.push(c);
            }
            (None, c) if c.is_whitespace() => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            }
            _ => word.push(c),
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// A compiled object's part of a link: its source between `#define`s and
/// `#undef`s of its `-D` options, and its other options.
pub(crate) fn unit_for_link(source: &str, options: &str) -> (String, Vec<String>) {
    let words = option_words(options);
    let mut defines = Vec::new();
    let mut others = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let w = &words[i];
        if let Some(rest) = w.strip_prefix("-D") {
            let def = if rest.is_empty() {
                i += 1;
                words.get(i).cloned().unwrap_or_default()
            } else {
                rest.to_string()
            };
            let def = def.trim_matches(|c| c == '\'' || c == '"').to_string();
            let (name, value) = def.split_once('=').unwrap_or((def.as_str(), "1"));
            if !name.is_empty() {
                defines.push((name.to_string(), value.to_string()));
            }
        } else if w == "-I" {
            i += 1;
            if let Some(dir) = words.get(i) {
                others.push(format!("-I{dir}"));
            }
        } else {
            others.push(w.clone());
        }
        i += 1;
    }
    let mut text = String::new();
    for (name, value) in &defines {
        text.push_str(&format!("#define {name} {value}\n"));
    }
    text.push_str("#line 1\n");
    text.push_str(source);
    text.push('\n');
    for (name, _) in &defines {
        let bare = name.split('(').next().unwrap_or(name);
        text.push_str(&format!("#undef {bare}\n"));
    }
    (text, others)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_round_trips() {
        let bin = make_binary(
            CL_PROGRAM_BINARY_TYPE_EXECUTABLE,
            "-DX=1",
            "kernel void k() {}",
        );
        let (t, o, s) = parse_binary(&bin).unwrap();
        assert_eq!(t, CL_PROGRAM_BINARY_TYPE_EXECUTABLE);
        assert_eq!(o, "-DX=1");
        assert_eq!(s, "kernel void k() {}");
        assert!(parse_binary(b"not a binary at all").is_none());
    }

    #[test]
    fn link_units_keep_their_macros() {
        let (text, others) = unit_for_link("int x = A + B;", "-DA=2 -D B -I /inc -cl-mad-enable");
        assert_eq!(
            text,
            "#define A 2\n#define B 1\n#line 1\nint x = A + B;\n#undef A\n#undef B\n"
        );
        assert_eq!(others, ["-I/inc", "-cl-mad-enable"]);
        assert_eq!(
            option_words("-D 'F(a,b)=a*b' -Dx"),
            ["-D", "'F(a,b)=a*b'", "-Dx"]
        );
        let (text, _) = unit_for_link("", "-D 'F(a,b)=a*b'");
        assert!(text.starts_with("#define F(a,b) a*b\n") && text.ends_with("#undef F\n"));
    }
}
