//! Kernels: argument values, the pipeline cache, and `clEnqueueNDRangeKernel`.
//!
//! Arguments are stored as the bytes of the launch block (see the launch
//! ABI in `ferrocl_compiler`'s docs) as `clSetKernelArg` receives them;
//! buffer arguments keep their `cl_mem` alive and are turned into device
//! addresses when the kernel is enqueued. Pipelines are cached per (device,
//! work-group size, enqueued local size, `__local` argument sizes): a
//! non-uniform NDRange dispatches each of its regions with its own.

use crate::api::{ApiHeader, ApiObject, Tag};
use crate::cl::*;
use crate::device::Device;
use crate::event::Event;
use crate::memory::Mem;
use crate::migrate;
use crate::pipeline_jobs;
use crate::printf;
use crate::program::{Program, ProgramSource};
use crate::queue::{memory_key, Access, Queue, Recorder, UseList};
use crate::vk_error;
use ferrocl_compiler::entry_module::ModuleIndex;
use ferrocl_compiler::options::{BuildOptions, ClStd};
pub use ferrocl_compiler::{AccessQualifier, AddressQualifier, ArgKind, KernelArg};
use ferrocl_compiler::{
    ArgBlock, CompiledProgram, KernelInfo, ARGS_OFFSET, HEADER_BUFFER_ADDRESS,
    HEADER_GLOBAL_OFFSET, HEADER_GLOBAL_SIZE, HEADER_GROUP_BASE, HEADER_WORK_DIM,
    PUSHED_HEADER_WORDS, SPEC_ID_ENQUEUED_LOCAL_SIZE, SPEC_ID_REGISTER_PAD,
    SPEC_ID_WORK_GROUP_SIZE,
};
use ferrocl_vk::{Pipeline, PipelineOptions};
use parking_lot::Mutex;
use std::borrow::Cow;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Weak};

/// The value of one argument.
#[derive(Clone)]
pub enum ArgValue {
    /// Bytes copied into the launch block.
    Bytes(Vec<u8>),
    /// A buffer (None: NULL). Held weakly: `clSetKernelArg` does not retain
    /// the memory object (releasing it runs its destructor callbacks even
    /// while it is set); a launch holds it until the launch completes.
    Buffer(Option<Weak<Mem>>),
    /// The size of a `__local` pointer argument.
    Local(usize),
    /// An image: the argument is the device address of its descriptor
    /// (docs/images.md). Held weakly like a buffer.
    Image(Weak<Mem>),
    /// `clSetKernelArgSVMPointer`: the pointer value, which is the device
    /// address (runtime/src/svm.rs), and `clSetKernelArgDevicePointerEXT`:
    /// a device address (runtime/src/device_address.rs). The launch holds
    /// the memory object it points into and counts it as read and written.
    Address(u64),
}

/// What a pipeline of a kernel is specialized for.
#[derive(Clone, Copy, PartialEq, Eq)]
struct PipelineKey {
    device_index: usize,
    /// The work-group size of the dispatches (one region's of a non-uniform
    /// NDRange).
    work_group_size: [u32; 3],
    /// `local_work_size` as enqueued.
    enqueued_local_size: [u32; 3],
    /// The register pad is sized ([`pads_registers`]).
    register_pad: bool,
}

/// A cached pipeline: its key, the `__local` argument sizes, and the
/// pipeline. Searched linearly: a kernel has few.
type CachedPipeline = (PipelineKey, Vec<u32>, Arc<Pipeline>);

/// A pipeline being created: its key, `__local` argument sizes, and the
/// lock its creator holds while it works.
type PipelineInProgress = (PipelineKey, Vec<u32>, Arc<Mutex<()>>);

/// A kernel's pipelines, shared with its other kernel objects
/// ([`SharedKernel`]) and with the jobs that create pipelines ahead of
/// a launch ([`Kernel::create_pipelines_ahead`]).
#[derive(Default)]
struct KernelPipelines {
    ready: Mutex<Vec<CachedPipeline>>,
    /// Per pipeline being created, the lock its creator holds: a launch
    /// that needs the pipeline a job is creating waits for it rather than
    /// creating it a second time.
    creating: Mutex<Vec<PipelineInProgress>>,
}

impl KernelPipelines {
    fn find(&self, key: PipelineKey, local_sizes: &[u32]) -> Option<Arc<Pipeline>> {
        find_pipeline(&self.ready.lock(), key, local_sizes)
    }

    /// The pipeline of `key` and `local_sizes`: made before, or being made
    /// by another thread (then this one waits for it), or made here by
    /// `create`.
    fn get_or_create(
        &self,
        key: PipelineKey,
        local_sizes: &[u32],
        create: impl FnOnce() -> Result<Pipeline, cl_int>,
    ) -> Result<Arc<Pipeline>, cl_int> {
        if let Some(p) = self.find(key, local_sizes) {
            return Ok(p);
        }
        let lock = {
            let mut creating = self.creating.lock();
            match creating
                .iter()
                .find(|(k, s, _)| *k == key && s.as_slice() == local_sizes)
            {
                Some((_, _, lock)) => lock.clone(),
                None => {
                    let lock = Arc::new(Mutex::new(()));
                    creating.push((key, local_sizes.to_vec(), lock.clone()));
                    lock
                }
            }
        };
        // In a child made by `fork` a job's lock is never released: there
        // the pipeline is made without waiting for it.
        let _held = if pipeline_jobs::in_forked_child() {
            lock.try_lock()
        } else {
            Some(lock.lock())
        };
        let made = match self.find(key, local_sizes) {
            Some(p) => Ok(p),
            None => create().map(|pipeline| {
                let pipeline = Arc::new(pipeline);
                let mut ready = self.ready.lock();
                // Only a forked child gets here with the pipeline made.
                if let Some(p) = find_pipeline(&ready, key, local_sizes) {
                    return p;
                }
                ready.push((key, local_sizes.to_vec(), pipeline.clone()));
                pipeline
            }),
        };
        self.creating
            .lock()
            .retain(|(_, _, other)| !Arc::ptr_eq(other, &lock));
        made
    }
}

/// What every kernel object of one name of a program shares: its
/// pipelines, so that an application that makes a kernel object per call
/// (OpenCV makes one per operation, hundreds for one template match)
/// compiles each pipeline once and queues those made ahead of the first
/// launch ([`Kernel::create_pipelines_ahead`]) once; and the kernel's
/// modules cut from the executables with the analysis of which arguments
/// it writes ([`Kernel::cut_and_analyse`]), which took 0.1-1 ms per
/// `clCreateKernel`. Kept by the program until it is built again
/// (`Program::compile_for` clears them) or released.
pub struct SharedKernel {
    name: String,
    /// The executables the modules were cut from (per device of the
    /// program): an entry made from other ones is not this build's.
    executables: Vec<Option<Arc<CompiledProgram>>>,
    pipelines: Arc<KernelPipelines>,
    analysis: (EntryModules, Vec<bool>),
}

impl SharedKernel {
    fn is(&self, name: &str, executables: &[Option<Arc<CompiledProgram>>]) -> bool {
        self.name == name
            && self.executables.len() == executables.len()
            && self
                .executables
                .iter()
                .zip(executables)
                .all(|(a, b)| match (a, b) {
                    (Some(a), Some(b)) => Arc::ptr_eq(a, b),
                    (None, None) => true,
                    _ => false,
                })
    }
}

/// Kernels cut and analysed in this process ([`Kernel::cut_and_analyse`]):
/// a diagnostic for the tests, which check that kernel objects of a name
/// made before share its analysis.
static KERNELS_ANALYSED: AtomicUsize = AtomicUsize::new(0);

/// How many kernels this process has cut and analysed.
pub fn kernels_analysed() -> usize {
    KERNELS_ANALYSED.load(Ordering::Relaxed)
}

/// What kernel objects named `name` of `program` share (see
/// [`SharedKernel`]): the pipelines, the cut modules and the analysis,
/// and whether they are new (no kernel object of this name was made from
/// these executables before).
fn shared_kernel(
    program: &Program,
    name: &str,
    executables: &[Option<Arc<CompiledProgram>>],
    info: &KernelInfo,
) -> (Arc<KernelPipelines>, (EntryModules, Vec<bool>), bool) {
    let find = |shared: &[SharedKernel]| {
        shared
            .iter()
            .find(|s| s.is(name, executables))
            .map(|s| (s.pipelines.clone(), s.analysis.clone(), false))
    };
    if let Some(found) = find(&program.shared_kernels.lock()) {
        return found;
    }
    // Cut and analysed outside the lock; a thread that made the same
    // kernel meanwhile wins, and this one's work is dropped.
    let analysis = Kernel::cut_and_analyse(executables, info);
    let mut shared = program.shared_kernels.lock();
    if let Some(found) = find(&shared) {
        return found;
    }
    shared.retain(|s| s.name != name);
    let pipelines = Arc::new(KernelPipelines::default());
    shared.push(SharedKernel {
        name: name.to_string(),
        executables: executables.to_vec(),
        pipelines: pipelines.clone(),
        analysis: analysis.clone(),
    });
    (pipelines, analysis, true)
}

fn find_pipeline(
    list: &[CachedPipeline],
    key: PipelineKey,
    local_sizes: &[u32],
) -> Option<Arc<Pipeline>> {
    list.iter()
        .find(|(k, s, _)| *k == key && s.as_slice() == local_sizes)
        .map(|c| c.2.clone())
}

/// A device's module for a kernel: its own cut, or the whole executable's.
#[derive(Clone)]
enum KernelModule {
    Entry(Arc<[u32]>),
    Whole(Arc<CompiledProgram>),
}

impl KernelModule {
    fn words(&self) -> &[u32] {
        match self {
            KernelModule::Entry(words) => words,
            KernelModule::Whole(exe) => &exe.spirv,
        }
    }
}

/// The buffers one launch fills, reused from launch to launch.
struct LaunchData {
    /// The push-constant block (the launch ABI of `ferrocl_compiler`).
    push: Vec<u8>,
    /// The launch header, copied into `push` or, for
    /// [`ArgBlock::HeaderBuffer`], into the argument ring per dispatch.
    header: [u8; ARGS_OFFSET as usize],
    args: Vec<u8>,
    mems: Vec<Arc<Mem>>,
    /// Per entry of `mems` from a buffer argument: true where the kernel
    /// only reads it (`__constant`, or no store, atomic or escape through
    /// it in the kernel's code: `ferrocl_compiler::arg_writes`).
    read_only: Vec<bool>,
    /// An argument reaches device memory the runtime does not track (an
    /// image, or a pointer value): the launch's access is unknown.
    untracked: bool,
    local_sizes: Vec<u32>,
    /// The regions of the NDRange and the pipeline of each.
    pipelines: Vec<(Region, Arc<Pipeline>)>,
}

impl Default for LaunchData {
    fn default() -> Self {
        LaunchData {
            push: Vec::new(),
            header: [0; ARGS_OFFSET as usize],
            args: Vec::new(),
            mems: Vec::new(),
            read_only: Vec::new(),
            untracked: false,
            local_sizes: Vec::new(),
            pipelines: Vec::new(),
        }
    }
}

impl LaunchData {
    /// The device memory the launch uses: buffer arguments are read and
    /// written unless the kernel never writes them; other memory objects
    /// the launch holds count as read and written.
    fn access(&self) -> Access {
        if self.untracked {
            return Access::Unknown;
        }
        let mut list = UseList::default();
        for (i, m) in self.mems.iter().enumerate() {
            let read_only = self.read_only.get(i).copied().unwrap_or(false);
            if !list.push(memory_key(&m.buffer), !read_only) {
                return Access::Unknown;
            }
        }
        Access::Uses(list)
    }
}

/// Per built executable, its module read once for cutting
/// (`ferrocl_compiler::entry_module::ModuleIndex`), made at the first
/// `clCreateKernel`: each kernel's cut then reads only what it keeps, not
/// the whole module again. Entries go when their executable does.
type SharedIndex = Arc<Option<ModuleIndex>>;
static MODULE_INDEXES: Mutex<Vec<(Weak<CompiledProgram>, SharedIndex)>> = Mutex::new(Vec::new());

fn module_index(exe: &Arc<CompiledProgram>) -> SharedIndex {
    {
        let mut cache = MODULE_INDEXES.lock();
        cache.retain(|(program, _)| program.strong_count() > 0);
        if let Some((_, index)) = cache
            .iter()
            .find(|(program, _)| std::ptr::eq(program.as_ptr(), Arc::as_ptr(exe)))
        {
            return index.clone();
        }
    }
    // Read outside the lock; two threads may both read one module, and
    // both indexes are the same.
    let index = Arc::new(ModuleIndex::new(&exe.spirv));
    MODULE_INDEXES
        .lock()
        .push((Arc::downgrade(exe), index.clone()));
    index
}

/// Per device of a program, a kernel's own module (see
/// `Kernel::entry_modules`).
type EntryModules = Vec<Option<Arc<[u32]>>>;

/// A `cl_kernel`.
#[repr(C)]
pub struct Kernel {
    header: ApiHeader,
    pub program: Arc<Program>,
    pub info: KernelInfo,
    /// Per argument: the kernel may write the memory object it names, on
    /// any device of the program.
    written: Vec<bool>,
    /// Per device of the program: NDRanges must have uniform work-groups.
    uniform_work_groups: Vec<bool>,
    /// The executable per device of the program (None where the program is
    /// not built for that device). A program cannot be built again while
    /// it has kernel objects, so these stay its executables.
    executables: Vec<Option<Arc<CompiledProgram>>>,
    /// Per device of the program: the buffer of its program-scope
    /// `__global` variables, if any, read once here rather than under the
    /// program's lock at every launch.
    global_data: Vec<Option<Arc<Mem>>>,
    /// Per device of the program: the kernel's own module, cut from the
    /// executable's when the kernel is created
    /// (`ferrocl_compiler::entry_module`); `None` where the cut failed or
    /// the device has no executable, and the whole module serves.
    entry_modules: EntryModules,
    args: Mutex<Vec<Option<ArgValue>>>,
    pipelines: Arc<KernelPipelines>,
    /// Launch buffers kept for the next launch; boxed, as a launch moves
    /// through several hands (this list, the recording closure, the queue)
    /// and each move of the whole struct was a copy.
    #[allow(clippy::vec_box)]
    spare_launches: Mutex<Vec<Box<LaunchData>>>,
    /// `CL_KERNEL_EXEC_INFO_SVM_PTRS` and
    /// `CL_KERNEL_EXEC_INFO_DEVICE_PTRS_EXT`: memory the kernel reaches
    /// through pointers stored in memory; each launch holds the objects
    /// they point into and counts them as read and written.
    exec_addresses: Mutex<ExecAddresses>,
}

// SAFETY: repr(C) with the header first; the tag is unique to Kernel.
unsafe impl ApiObject for Kernel {
    const TAG: Tag = Tag::Kernel;
    const INVALID: cl_int = CL_INVALID_KERNEL;
}

impl Kernel {
    /// `clCreateKernel`: `CL_INVALID_PROGRAM_EXECUTABLE` without a built
    /// executable, `CL_INVALID_KERNEL_NAME` when no kernel has that name.
    pub fn new(program: &Arc<Program>, name: &str) -> Result<Arc<Kernel>, cl_int> {
        let executables: Vec<_> = (0..program.devices.len())
            .map(|i| program.executable(i))
            .collect();
        let any = executables
            .iter()
            .flatten()
            .next()
            .ok_or(CL_INVALID_PROGRAM_EXECUTABLE)?;
        let info = any
            .kernels
            .iter()
            .find(|k| k.name == name)
            .ok_or(CL_INVALID_KERNEL_NAME)?
            .clone();
        let (pipelines, modules, new) = shared_kernel(program, name, &executables, &info);
        let kernel =
            Kernel::from_parts(program.clone(), info, executables, modules, None, pipelines);
        if new {
            kernel.create_pipelines_ahead();
        }
        Ok(kernel)
    }

    /// Per device, the kernel's own module, and which arguments it may
    /// write on any device.
    fn cut_and_analyse(
        executables: &[Option<Arc<CompiledProgram>>],
        info: &KernelInfo,
    ) -> (EntryModules, Vec<bool>) {
        KERNELS_ANALYSED.fetch_add(1, Ordering::Relaxed);
        // Each device's module for this kernel is cut now, from the
        // executable's index: the analysis of which arguments the kernel
        // writes reads it (a fifth of the five-kernel benchmark program's
        // words: 75 µs where the whole module took 240-350), and its
        // pipelines are made from it.
        let entry_modules: EntryModules = executables
            .iter()
            .map(|exe| {
                let exe = exe.as_ref()?;
                let index = module_index(exe);
                let cut = Option::as_ref(&index)?.cut(&exe.spirv, &info.name)?;
                Some(Arc::from(cut))
            })
            .collect();
        let mut written: Option<Vec<bool>> = None;
        for (module, exe) in entry_modules.iter().zip(executables) {
            let Some(exe) = exe else {
                continue;
            };
            let Some(compiled) = exe.kernels.iter().find(|k| k.name == info.name) else {
                continue;
            };
            let on_device = ferrocl_compiler::arg_writes::written_arguments(
                module.as_deref().unwrap_or(&exe.spirv),
                compiled,
            );
            let all = written.get_or_insert_with(|| vec![false; info.args.len()]);
            for (w, d) in all.iter_mut().zip(&on_device) {
                *w |= *d;
            }
        }
        let written = written.unwrap_or_else(|| vec![true; info.args.len()]);
        (entry_modules, written)
    }

    fn from_parts(
        program: Arc<Program>,
        info: KernelInfo,
        executables: Vec<Option<Arc<CompiledProgram>>>,
        (entry_modules, written): (EntryModules, Vec<bool>),
        args: Option<Vec<Option<ArgValue>>>,
        pipelines: Arc<KernelPipelines>,
    ) -> Arc<Kernel> {
        program.kernel_count.fetch_add(1, Ordering::AcqRel);
        let args = args.unwrap_or_else(|| vec![None; info.args.len()]);
        let uniform_work_groups = (0..program.devices.len())
            .map(|i| Kernel::uniform_work_groups_of(&program, i))
            .collect();
        let global_data = (0..program.devices.len())
            .map(|i| program.global_data(i))
            .collect();
        Arc::new(Kernel {
            header: ApiHeader::new(Tag::Kernel),
            program,
            info,
            written,
            uniform_work_groups,
            entry_modules,
            executables,
            global_data,
            args: Mutex::new(args),
            pipelines,
            spare_launches: Mutex::new(Vec::new()),
            exec_addresses: Mutex::new(ExecAddresses::default()),
        })
    }

    /// `clCloneKernel`: same program, a copy of the argument values and
    /// of the execution information.
    pub fn clone_kernel(&self) -> Arc<Kernel> {
        let args = self.args.lock().clone();
        // The same executables: the cuts, the analysis and the pipelines
        // (those of every kernel object of this name) are shared.
        let clone = Kernel::from_parts(
            self.program.clone(),
            self.info.clone(),
            self.executables.clone(),
            (self.entry_modules.clone(), self.written.clone()),
            Some(args),
            self.pipelines.clone(),
        );
        *clone.exec_addresses.lock() = self.exec_addresses.lock().clone();
        clone
    }

    /// `clSetKernelExecInfo(CL_KERNEL_EXEC_INFO_SVM_PTRS)`: replaces the
    /// set.
    pub fn set_svm_pointers(&self, pointers: Vec<u64>) {
        self.exec_addresses.lock().svm = pointers;
    }

    /// `clSetKernelExecInfo(CL_KERNEL_EXEC_INFO_DEVICE_PTRS_EXT)`: replaces
    /// the set.
    pub fn set_device_pointers(&self, pointers: Vec<u64>) {
        self.exec_addresses.lock().device = pointers;
    }

    /// `clSetKernelArg` for a value argument or a `__local` size, after
    /// the index check.
    pub fn set_arg(&self, index: usize, value: ArgValue) {
        self.args.lock()[index] = Some(value);
    }

    /// `clSetKernelArg` for a value argument: the bytes are copied into the
    /// previous value's storage when it has the same size.
    pub fn set_arg_bytes(&self, index: usize, bytes: &[u8]) {
        let mut args = self.args.lock();
        match &mut args[index] {
            Some(ArgValue::Bytes(old)) if old.len() == bytes.len() => old.copy_from_slice(bytes),
            slot => *slot = Some(ArgValue::Bytes(bytes.to_vec())),
        }
    }

    /// True when every argument has a value.
    pub fn all_args_set(&self) -> bool {
        self.args.lock().iter().all(|a| a.is_some())
    }

    /// Total bytes of `__local` memory: the kernel's own plus its arguments'.
    pub fn local_mem_size(&self) -> u64 {
        let args: u64 = self
            .args
            .lock()
            .iter()
            .map(|a| match a {
                Some(ArgValue::Local(n)) => *n as u64,
                _ => 0,
            })
            .sum();
        self.info.static_local_mem_size + args
    }

    /// True when an NDRange of this kernel must consist of uniform
    /// work-groups on the device with index `device_index` of the program:
    /// a program built from source for OpenCL C before 2.0, or any program
    /// built with `-cl-uniform-work-group-size`.
    pub fn requires_uniform_work_groups(&self, device_index: usize) -> bool {
        self.uniform_work_groups
            .get(device_index)
            .copied()
            .unwrap_or(true)
    }

    /// [`Kernel::requires_uniform_work_groups`] from the program's build
    /// options, read once when the kernel is made: a program with kernels
    /// cannot be built again.
    fn uniform_work_groups_of(program: &Program, device_index: usize) -> bool {
        let build = program.build_of(device_index);
        match BuildOptions::parse(&build.options) {
            Ok(options) => {
                options.uniform_work_group_size
                    || (program.origin == ProgramSource::Source && options.cl_std < ClStd::Cl2_0)
            }
            // Options that built the program parse; anything else keeps
            // the stricter rule.
            Err(_) => true,
        }
    }

    fn pipeline(
        &self,
        key: PipelineKey,
        device: &Device,
        local_sizes: &[u32],
    ) -> Result<Arc<Pipeline>, cl_int> {
        self.pipelines.get_or_create(key, local_sizes, || {
            let module = self.module(key.device_index)?;
            let spec = specialization(&self.info, key, local_sizes);
            let source = PipelineSource {
                module: module.words(),
                name: &self.info.name,
                push_size: push_size(&self.info),
                ahead: false,
            };
            create_pipeline(device, source, key, &spec)
        })
    }

    /// Whether the program has an executable for device `index`.
    pub fn has_executable(&self, index: usize) -> bool {
        self.executables.get(index).is_some_and(Option::is_some)
    }

    /// The module pipelines of this kernel on device `index` are made from.
    fn module(&self, index: usize) -> Result<KernelModule, cl_int> {
        if let Some(words) = &self.entry_modules[index] {
            return Ok(KernelModule::Entry(words.clone()));
        }
        self.executables[index]
            .clone()
            .map(KernelModule::Whole)
            .ok_or(CL_INVALID_PROGRAM_EXECUTABLE)
    }

    /// Queues the creation of the pipelines this kernel's launches will
    /// take, on the pipeline jobs' threads (runtime/src/pipeline_jobs.rs),
    /// on each device that asks for it ([`crate::device::DeviceInfo::pipelines_ahead`]):
    /// the driver's compile then runs while the application prepares its
    /// launches, where otherwise its first launch waits for it (hashcat's
    /// scrypt: 2.4-2.7 s for each of two kernels, inside the batch hashcat
    /// times). Only a kernel that ignores its work-groups and has no
    /// `__local` pointer argument has pipelines known in advance: each of
    /// its launches takes the narrow work-group pipeline (with the register
    /// pad where the device sizes it) or the wide one ([`dispatch_shape`]).
    fn create_pipelines_ahead(&self) {
        let local_args = self
            .info
            .args
            .iter()
            .any(|a| matches!(a.kind, ArgKind::LocalPointer));
        if !self.info.ignores_work_groups || local_args {
            return;
        }
        for (index, device) in self.program.devices.iter().enumerate() {
            let info = device.info();
            let (true, Some(wide)) = (info.pipelines_ahead, info.shared_group_width) else {
                continue;
            };
            let Ok(module) = self.module(index) else {
                continue;
            };
            let narrow = NARROW_GROUP_WIDTH.min(wide);
            let small_pad =
                launch_pads_registers(device, [narrow, 1, 1], self.info.static_local_mem_size);
            let key = |width: usize, register_pad: bool| PipelineKey {
                device_index: index,
                work_group_size: [width as u32, 1, 1],
                enqueued_local_size: [width as u32, 1, 1],
                register_pad,
            };
            let small = key(narrow, small_pad);
            let large = key(wide, false);
            for key in [small, large] {
                let pipelines = Arc::downgrade(&self.pipelines);
                let device = device.clone();
                let module = module.clone();
                let name = self.info.name.clone();
                let push = push_size(&self.info);
                let spec = specialization(&self.info, key, &[]);
                pipeline_jobs::submit(Box::new(move || {
                    // A program released or built again before the job
                    // starts needs no pipeline.
                    let Some(pipelines) = pipelines.upgrade() else {
                        return;
                    };
                    // A failure here is the first launch's to report: it
                    // tries again.
                    let _ = pipelines.get_or_create(key, &[], || {
                        let source = PipelineSource {
                            module: module.words(),
                            name: &name,
                            push_size: push,
                            ahead: true,
                        };
                        create_pipeline(&device, source, key, &spec)
                    });
                }));
                // Where the widths agree, one pipeline serves both.
                if small == large {
                    break;
                }
            }
        }
    }
}

/// The specialization constants of the pipeline of `key` for a kernel
/// whose `__local` pointer arguments have `local_sizes` bytes.
fn specialization(info: &KernelInfo, key: PipelineKey, local_sizes: &[u32]) -> Vec<(u32, u32)> {
    let mut spec: Vec<(u32, u32)> = SPEC_ID_WORK_GROUP_SIZE
        .iter()
        .copied()
        .zip(key.work_group_size)
        .chain(
            SPEC_ID_ENQUEUED_LOCAL_SIZE
                .iter()
                .copied()
                .zip(key.enqueued_local_size),
        )
        .collect();
    let mut locals = local_sizes.iter();
    for arg in &info.args {
        if let (ArgKind::LocalPointer, Some(id)) = (arg.kind, arg.local_size_spec_id) {
            spec.push((id, locals.next().copied().unwrap_or(0)));
        }
    }
    if key.register_pad {
        spec.push((SPEC_ID_REGISTER_PAD, REGISTER_PAD_BYTES / 4));
    }
    spec
}

/// What a pipeline is compiled from, and whether it is made ahead of its
/// first launch (for the report).
struct PipelineSource<'a> {
    module: &'a [u32],
    name: &'a str,
    push_size: u32,
    ahead: bool,
}

/// Has the driver compile the pipeline of `source` for `key`, writes the
/// device's pipeline cache when enough compile time has gone unsaved, and
/// reports the pipeline where `FERROCL_PIPELINE_STATS` asks.
fn create_pipeline(
    device: &Device,
    source: PipelineSource<'_>,
    key: PipelineKey,
    spec: &[(u32, u32)],
) -> Result<Pipeline, cl_int> {
    let backend = device.backend()?;
    let level = pipeline_report_level();
    let statistics = level.is_some() && {
        let offered = backend.info().features.pipeline_statistics;
        if !offered && !NO_STATISTICS_TOLD.swap(true, Ordering::Relaxed) {
            eprintln!(
                "ferrocl: FERROCL_PIPELINE_STATS: {} does not offer \
                 VK_KHR_pipeline_executable_properties",
                backend.info().name
            );
        }
        offered
    };
    let options = PipelineOptions {
        capture_statistics: statistics,
        ..PipelineOptions::default()
    };
    let started = std::time::Instant::now();
    let pipeline = backend
        .create_pipeline_with_options(source.module, source.name, source.push_size, spec, &options)
        .map_err(vk_error)?;
    let created = started.elapsed();
    if device.unsaved_pipelines.add(created) {
        let writing = std::time::Instant::now();
        if let (Some(path), Ok(data)) =
            (device.pipeline_cache_path(), backend.pipeline_cache_data())
        {
            crate::pipeline_cache::save(&path, &data);
            device.unsaved_pipelines.written(writing.elapsed());
        }
    }
    if let Some(level) = level {
        let detail = statistics.then_some(level);
        report_pipeline(&source, key.work_group_size, &pipeline, created, detail);
    }
    Ok(pipeline)
}

impl Drop for Kernel {
    fn drop(&mut self) {
        self.program.kernel_count.fetch_sub(1, Ordering::AcqRel);
    }
}

/// How much `FERROCL_PIPELINE_STATS` asks to be told of each pipeline the
/// driver compiles: 1, its statistics (registers, instructions, spills:
/// whatever the driver reports); 2, also its internal representations
/// (the driver's IR or machine code, where it gives them). Unset or 0:
/// nothing, and pipelines are created without the capture flags.
fn pipeline_report_level() -> Option<u32> {
    static LEVEL: std::sync::OnceLock<Option<u32>> = std::sync::OnceLock::new();
    *LEVEL.get_or_init(|| {
        std::env::var("FERROCL_PIPELINE_STATS")
            .ok()
            .and_then(|v| v.trim().parse::<u32>().ok())
            .filter(|&level| level > 0)
    })
}

static NO_STATISTICS_TOLD: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// Writes how long `vkCreateComputePipelines` took for a kernel's
/// pipeline, and whether ahead of its first launch, to stderr; with
/// `level` (where the driver gives statistics), also what the driver made
/// of it.
fn report_pipeline(
    source: &PipelineSource<'_>,
    work_group_size: [u32; 3],
    pipeline: &Pipeline,
    created: std::time::Duration,
    level: Option<u32>,
) {
    let name = source.name;
    let [x, y, z] = work_group_size;
    let ahead = if source.ahead {
        " ahead of its launch"
    } else {
        ""
    };
    eprintln!(
        "ferrocl: kernel {name} ({x}x{y}x{z}): pipeline created{ahead} in {:.3} ms",
        created.as_secs_f64() * 1e3
    );
    let Some(level) = level else {
        return;
    };
    let executables = match pipeline.executables() {
        Ok(executables) => executables,
        Err(e) => {
            eprintln!("ferrocl: kernel {name} ({x}x{y}x{z}): no pipeline statistics: {e}");
            return;
        }
    };
    let mut text = String::new();
    for exe in executables {
        let _ = writeln!(
            text,
            "ferrocl: kernel {name} ({x}x{y}x{z}): {} (subgroup {})",
            exe.name, exe.subgroup_size
        );
        for (stat, value) in &exe.statistics {
            let _ = writeln!(text, "    {stat}: {value}");
        }
        if level >= 2 {
            for (rep, body) in &exe.representations {
                let _ = writeln!(text, "  -- {rep} --\n{body}");
            }
        }
    }
    eprint!("{text}");
}

/// Bytes of the push-constant range of a kernel.
pub fn push_size(info: &KernelInfo) -> u32 {
    info.arg_block.push_size(info.args_size)
}

/// A work-group size for a NULL `local_work_size`: the largest group whose
/// size in each dimension divides the global size, growing x first, up to
/// the device's limits. Where non-uniform work-groups are allowed and the
/// best divisor is less than half of what the limits allow, the size the
/// limits allow is taken instead: the NDRange then ends in one partial
/// work-group rather than running many tiny ones (a prime global size would
/// otherwise run groups of one work-item).
pub fn pick_local_size(
    global: [usize; 3],
    work_dim: usize,
    max_total: usize,
    max_items: [usize; 3],
    non_uniform: bool,
) -> [usize; 3] {
    let mut local = [1usize; 3];
    let mut total = 1usize;
    for d in 0..work_dim {
        let limit = max_items[d].min(max_total / total).max(1);
        let target = limit.min(global[d]).max(1);
        let mut best = 1;
        let mut candidate = 1;
        while candidate <= target {
            if global[d].is_multiple_of(candidate) {
                best = candidate;
            }
            candidate += 1;
        }
        if non_uniform && best * 2 < target {
            best = target;
        }
        local[d] = best;
        total *= best;
    }
    local
}

/// The addresses a kernel's execution information names.
#[derive(Clone, Default)]
struct ExecAddresses {
    svm: Vec<u64>,
    device: Vec<u64>,
}

impl ExecAddresses {
    fn is_empty(&self) -> bool {
        self.svm.is_empty() && self.device.is_empty()
    }
}

/// A checked NDRange.
#[derive(Clone, Copy, Debug)]
pub struct NdRange {
    pub work_dim: u32,
    pub offset: [usize; 3],
    pub global: [usize; 3],
    pub local: [usize; 3],
}

/// One region of an NDRange: work-groups of one size (DESIGN.md: a
/// non-uniform NDRange is up to 8 regions, one per combination of whole and
/// partial work-groups in each dimension).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Region {
    /// The id of the region's first work-group in each dimension.
    first_group: [u64; 3],
    groups: [u64; 3],
    work_group_size: [u32; 3],
}

/// The regions of one NDRange, held inline (at most two parts in each of
/// three dimensions).
struct Regions {
    list: [Region; 8],
    len: usize,
}

impl Regions {
    fn as_slice(&self) -> &[Region] {
        &self.list[..self.len]
    }
}

/// The regions of an NDRange (global sizes non-zero): in each dimension the
/// whole work-groups of the enqueued local size, then one partial group of
/// the remaining work-items.
fn regions(global: [usize; 3], local: [usize; 3]) -> Regions {
    // Per dimension: (first group, group count, work-group size) of each
    // part, and how many parts there are.
    let mut parts = [[(0u64, 0u64, 0u32); 2]; 3];
    let mut counts = [0usize; 3];
    for d in 0..3 {
        let whole = (global[d] / local[d]) as u64;
        let rest = global[d] % local[d];
        if whole > 0 {
            parts[d][counts[d]] = (0, whole, local[d] as u32);
            counts[d] += 1;
        }
        if rest > 0 {
            parts[d][counts[d]] = (whole, 1, rest as u32);
            counts[d] += 1;
        }
    }
    let empty = Region {
        first_group: [0; 3],
        groups: [0; 3],
        work_group_size: [0; 3],
    };
    let mut out = Regions {
        list: [empty; 8],
        len: 0,
    };
    for z in &parts[2][..counts[2]] {
        for y in &parts[1][..counts[1]] {
            for x in &parts[0][..counts[0]] {
                out.list[out.len] = Region {
                    first_group: [x.0, y.0, z.0],
                    groups: [x.1, y.1, z.1],
                    work_group_size: [x.2, y.2, z.2],
                };
                out.len += 1;
            }
        }
    }
    out
}

/// `clEnqueueNDRangeKernel`, after the ICD's argument checks (including the
/// uniformity of the work-groups where the program requires it): captures
/// the arguments now and records the dispatches of every region.
pub fn enqueue_nd_range(
    queue: &Arc<Queue>,
    kernel: &Arc<Kernel>,
    range: &NdRange,
    wait_list: &[Arc<Event>],
) -> Result<Arc<Event>, cl_int> {
    let device_index = kernel
        .program
        .device_index(&queue.device)
        .ok_or(CL_INVALID_PROGRAM_EXECUTABLE)?;
    let info = &kernel.info;
    // Work-group ids are 32-bit values in the launch ABI.
    if (0..3).any(|d| range.global[d].div_ceil(range.local[d]) as u64 > u64::from(u32::MAX)) {
        return Err(CL_OUT_OF_RESOURCES);
    }
    // A printf kernel writes into a buffer of the queue's pool, one per
    // launch, printed when the launch completes.
    let printf = if info.uses_printf {
        let program = kernel.executables[device_index]
            .clone()
            .ok_or(CL_INVALID_PROGRAM_EXECUTABLE)?;
        Some((queue.printf_pool().clone(), program))
    } else {
        None
    };
    // Buffers are addressed on the queue's device: in a context with
    // several devices each has its own copy (`crate::migrate`).
    let context_index = queue
        .context
        .device_index(&queue.device)
        .ok_or(CL_INVALID_COMMAND_QUEUE)?;
    let mut waits = Cow::Borrowed(wait_list);
    let mut launch = kernel.spare_launches.lock().pop().unwrap_or_default();
    let filled = fill_launch(kernel, range, context_index, &mut launch)
        .and_then(|_| set_global_data_address(kernel, device_index, context_index, &mut launch))
        .and_then(|_| migrate::prepare_launch(queue, &launch.mems, &launch.read_only, &mut waits));
    let (global, local) = dispatch_shape(kernel, &queue.device, range);
    let enqueued_local_size = local.map(|l| l as u32);
    let local_bytes = info.static_local_mem_size
        + launch
            .local_sizes
            .iter()
            .map(|&b| u64::from(b))
            .sum::<u64>();
    let register_pad = launch_pads_registers(&queue.device, global, local_bytes);
    let launch_pipelines = filled.and_then(|_| {
        launch.pipelines.clear();
        for region in regions(global, local).as_slice() {
            let key = PipelineKey {
                device_index,
                work_group_size: region.work_group_size,
                enqueued_local_size,
                register_pad,
            };
            let pipeline = kernel.pipeline(key, &queue.device, &launch.local_sizes)?;
            launch.pipelines.push((*region, pipeline));
        }
        Ok(())
    });
    if let Err(code) = launch_pipelines {
        recycle_launch(kernel, launch);
        return Err(code);
    }
    // Vulkan bounds base + count of a dispatch by maxComputeWorkGroupCount,
    // so `vkCmdDispatchBase` cannot reach group ids past the limit: larger
    // regions become several dispatches, each placed by the header's
    // `group_base`.
    let max = queue.device.vk_info().limits.max_compute_work_group_count;
    let step = max.map(|m| u64::from(m.max(1)));
    let block = info.arg_block;
    let access = launch.access();
    let kernel = kernel.clone();
    let record = move |r: &mut Recorder<'_>| {
        let mut launch = launch;
        // Kept before anything is recorded, so that a partly recorded
        // launch still holds what it uses.
        for m in launch.mems.drain(..) {
            r.keep(m);
        }
        r.keep(kernel.clone());
        let result = match printf {
            Some((pool, program)) => printf::record_launch_buffer(r, &pool, program)
                .and_then(|address| set_printf_address(&kernel.info, &mut launch, address)),
            None => Ok(()),
        }
        .and_then(|_| record_launch(r, &mut launch, block, step));
        recycle_launch(&kernel, launch);
        result
    };
    queue.enqueue_with_access(CL_COMMAND_NDRANGE_KERNEL, &waits, access, record)
}

/// The global and local sizes to dispatch for `range`: as enqueued, or
/// for a kernel that ignores its work-groups
/// ([`ferrocl_compiler::KernelInfo::ignores_work_groups`]) and a
/// `local_work_size` of one row (`[l, 1, 1]`), work-groups of a shared
/// width ([`shared_dispatch_width`]) with dimension 0 rounded up to whole
/// ones (the kernel returns at once past the global size). Every launch of
/// such a kernel then takes one of two pipelines, where each local size
/// would be a driver compile of its own.
fn dispatch_shape(kernel: &Kernel, device: &Device, range: &NdRange) -> ([usize; 3], [usize; 3]) {
    let one_row = range.local[1] == 1 && range.local[2] == 1;
    let info = device.info();
    match info.shared_group_width {
        Some(wide) if kernel.info.ignores_work_groups && one_row => {
            let width = shared_dispatch_width(range.global, wide, info.max_compute_units as usize);
            (
                [
                    range.global[0].div_ceil(width) * width,
                    range.global[1],
                    range.global[2],
                ],
                [width, 1, 1],
            )
        }
        _ => (range.global, range.local),
    }
}

/// Bytes of the register pad a small launch's pipeline declares: with 8
/// KiB NVIDIA's driver gave a probe of hashcat's scrypt loop 255 registers,
/// with 4 KiB 166, with none 74 (compiler lower/register_pad.rs).
const REGISTER_PAD_BYTES: u32 = 8192;

/// The most work-items per compute unit a launch may have for its pipeline
/// to size the register pad: 8 warps of 32, all that fit on an NVIDIA
/// multiprocessor (65,536 registers) at 255 registers each, so the pad
/// takes away no occupancy the launch could use.
pub const REGISTER_PAD_ITEMS_PER_UNIT: usize = 256;

/// Whether a launch of `global` work-items using `local_bytes` of
/// `__local` memory gets the register pad on `device`: where the device
/// sizes one at all ([`crate::device::DeviceInfo::register_pad`]), as
/// [`pads_registers`] says. The launch and the pipelines made ahead of it
/// ask the same question.
fn launch_pads_registers(device: &Device, global: [usize; 3], local_bytes: u64) -> bool {
    let info = device.info();
    info.register_pad
        && pads_registers(
            global,
            info.max_compute_units as usize,
            local_bytes,
            u64::from(device.vk_info().limits.max_compute_shared_memory_size),
        )
}

/// Whether a launch of `global` work-items on `compute_units` gets the
/// register pad: few enough work-items ([`REGISTER_PAD_ITEMS_PER_UNIT`]
/// per unit), and room for the pad beside the `local_bytes` of `__local`
/// memory the launch uses, within the device's `local_limit`.
fn pads_registers(
    global: [usize; 3],
    compute_units: usize,
    local_bytes: u64,
    local_limit: u64,
) -> bool {
    let items = global
        .iter()
        .try_fold(1usize, |n, &g| n.checked_mul(g))
        .unwrap_or(usize::MAX);
    items <= compute_units.saturating_mul(REGISTER_PAD_ITEMS_PER_UNIT)
        && local_bytes + u64::from(REGISTER_PAD_BYTES) <= local_limit
}

/// The narrow shared work-group width: one warp of NVIDIA's, the fewest
/// work-items that fill a SIMD unit on most GPUs.
const NARROW_GROUP_WIDTH: usize = 32;

/// The work-group width of a launch of a kernel that ignores its
/// work-groups: `wide` (the device's shared width) where that still
/// gives every compute unit a work-group, else [`NARROW_GROUP_WIDTH`].
/// A small NDRange in wide groups runs on a few compute units while the
/// rest idle: hashcat's scrypt loop launches 4,224 work-items on the
/// H200's 132 multiprocessors, which groups of 256 put on 17 of them
/// (2.9 times as long as NVIDIA's OpenCL, which runs the 132 groups of 32
/// hashcat asks for, on all of them).
fn shared_dispatch_width(global: [usize; 3], wide: usize, compute_units: usize) -> usize {
    let rows = global[1].saturating_mul(global[2]);
    let wide_groups = global[0].div_ceil(wide.max(1)).saturating_mul(rows);
    if wide_groups >= compute_units {
        wide
    } else {
        NARROW_GROUP_WIDTH.min(wide)
    }
}

/// Returns a launch's buffers to the kernel for the next launch, holding no
/// memory object: steady-state launches then allocate nothing.
fn recycle_launch(kernel: &Kernel, mut launch: Box<LaunchData>) {
    launch.mems.clear();
    launch.read_only.clear();
    launch.pipelines.clear();
    kernel.spare_launches.lock().push(launch);
}

/// Captures the kernel's arguments and the launch header into `launch`.
fn fill_launch(
    kernel: &Kernel,
    range: &NdRange,
    context_index: usize,
    launch: &mut LaunchData,
) -> Result<(), cl_int> {
    let info = &kernel.info;
    launch.push.clear();
    launch.push.resize(push_size(info) as usize, 0);
    launch.args.clear();
    launch.args.resize(info.args_size as usize, 0);
    launch.mems.clear();
    launch.read_only.clear();
    launch.untracked = false;
    launch.local_sizes.clear();
    let mut addresses: Vec<u64> = Vec::new();
    {
        let args = kernel.args.lock();
        for (index, (arg, value)) in info.args.iter().zip(args.iter()).enumerate() {
            let at = arg.offset as usize;
            match value {
                None => return Err(CL_INVALID_KERNEL_ARGS),
                Some(ArgValue::Bytes(bytes)) => {
                    // A pointer argument given as bytes (an SVM pointer)
                    // reaches memory the launch does not hold.
                    if arg.kind != ArgKind::Value {
                        launch.untracked = true;
                    }
                    let end = at + bytes.len();
                    launch
                        .args
                        .get_mut(at..end)
                        .ok_or(CL_INVALID_KERNEL_ARGS)?
                        .copy_from_slice(bytes);
                }
                Some(ArgValue::Buffer(mem)) => {
                    // A memory object released since it was set is no
                    // longer an argument value.
                    let mem = match mem {
                        Some(weak) => Some(weak.upgrade().ok_or(CL_INVALID_KERNEL_ARGS)?),
                        None => None,
                    };
                    let address = match &mem {
                        Some(m) => m.device_address_on(context_index)?,
                        None => 0,
                    };
                    launch
                        .args
                        .get_mut(at..at + 8)
                        .ok_or(CL_INVALID_KERNEL_ARGS)?
                        .copy_from_slice(&address.to_ne_bytes());
                    if let Some(m) = mem {
                        let read_only = arg.address_qualifier == AddressQualifier::Constant
                            || !kernel.written.get(index).copied().unwrap_or(true);
                        launch.read_only.resize(launch.mems.len(), false);
                        launch.read_only.push(read_only);
                        launch.mems.push(m);
                    }
                }
                Some(ArgValue::Local(size)) => launch.local_sizes.push(*size as u32),
                Some(ArgValue::Image(mem)) => {
                    let mem = mem.upgrade().ok_or(CL_INVALID_KERNEL_ARGS)?;
                    mem.image.as_ref().ok_or(CL_INVALID_KERNEL_ARGS)?;
                    let address = mem.image_descriptor_on(context_index)?;
                    launch
                        .args
                        .get_mut(at..at + 8)
                        .ok_or(CL_INVALID_KERNEL_ARGS)?
                        .copy_from_slice(&address.to_ne_bytes());
                    launch.mems.push(mem);
                    launch.untracked = true;
                }
                Some(ArgValue::Address(address)) => {
                    launch
                        .args
                        .get_mut(at..at + 8)
                        .ok_or(CL_INVALID_KERNEL_ARGS)?
                        .copy_from_slice(&address.to_ne_bytes());
                    addresses.push(*address);
                }
            }
        }
    }
    // Memory the kernel may reach through raw addresses, as arguments or
    // through pointers in memory: each object is held by the launch and
    // counts as written.
    let exec_info = kernel.exec_addresses.lock();
    if !addresses.is_empty() || !exec_info.is_empty() {
        addresses.extend(exec_info.svm.iter().chain(&exec_info.device));
        let context = &kernel.program.context;
        match crate::device_address::launch_objects(context, context_index, &addresses) {
            Some(objects) => {
                launch.read_only.resize(launch.mems.len(), false);
                for m in objects {
                    launch.read_only.push(false);
                    launch.mems.push(m);
                }
            }
            None => launch.untracked = true,
        }
    }
    drop(exec_info);
    let header = &mut launch.header;
    for d in 0..3 {
        let at = HEADER_GLOBAL_OFFSET as usize + 8 * d;
        header[at..at + 8].copy_from_slice(&(range.offset[d] as u64).to_ne_bytes());
        let at = HEADER_GLOBAL_SIZE as usize + 8 * d;
        header[at..at + 8].copy_from_slice(&(range.global[d] as u64).to_ne_bytes());
    }
    let at = HEADER_WORK_DIM as usize;
    header[at..at + 4].copy_from_slice(&range.work_dim.to_ne_bytes());
    Ok(())
}

/// Writes the address of the program's global variable buffer into its
/// hidden argument (the compiler's launch ABI), and keeps the buffer with
/// the launch so that commands touching it are ordered like any argument.
fn set_global_data_address(
    kernel: &Kernel,
    device_index: usize,
    context_index: usize,
    launch: &mut LaunchData,
) -> Result<(), cl_int> {
    let Some(mem) = kernel.global_data.get(device_index).cloned().flatten() else {
        return Ok(());
    };
    let info = &kernel.info;
    let at = info.global_data_offset() as usize;
    let bytes = mem.device_address_on(context_index)?.to_ne_bytes();
    launch
        .args
        .get_mut(at..at + 8)
        .ok_or(CL_INVALID_KERNEL)?
        .copy_from_slice(&bytes);
    launch.mems.push(mem);
    Ok(())
}

/// Writes the printf buffer's address into the hidden trailing argument.
fn set_printf_address(
    info: &KernelInfo,
    launch: &mut LaunchData,
    address: u64,
) -> Result<(), cl_int> {
    let at = (info.args_size as usize)
        .checked_sub(8)
        .ok_or(CL_INVALID_KERNEL)?;
    let bytes = address.to_ne_bytes();
    launch
        .args
        .get_mut(at..at + 8)
        .ok_or(CL_INVALID_KERNEL)?
        .copy_from_slice(&bytes);
    Ok(())
}

/// Records the dispatches of one launch: per region, one per `step` groups
/// in each dimension.
fn record_launch(
    r: &mut Recorder<'_>,
    launch: &mut LaunchData,
    block: ArgBlock,
    step: [u64; 3],
) -> Result<(), cl_int> {
    let LaunchData {
        push,
        header,
        args,
        pipelines,
        ..
    } = launch;
    // The argument data is complete here, hidden arguments included.
    let start = block.args_offset() as usize;
    if block.args_pushed() {
        push.get_mut(start..start + args.len())
            .ok_or(CL_OUT_OF_RESOURCES)?
            .copy_from_slice(args);
    } else {
        let address = r.push_args(args)?;
        push[start..start + 8].copy_from_slice(&address.to_ne_bytes());
    }
    for (region, pipeline) in pipelines.iter() {
        let mut z = 0u64;
        while z < region.groups[2] {
            let count_z = (region.groups[2] - z).min(step[2]);
            let mut y = 0u64;
            while y < region.groups[1] {
                let count_y = (region.groups[1] - y).min(step[1]);
                let mut x = 0u64;
                while x < region.groups[0] {
                    let count_x = (region.groups[0] - x).min(step[0]);
                    let base = [
                        region.first_group[0] + x,
                        region.first_group[1] + y,
                        region.first_group[2] + z,
                    ];
                    for (d, b) in base.iter().enumerate() {
                        let at = HEADER_GROUP_BASE as usize + 4 * d;
                        header[at..at + 4].copy_from_slice(&(*b as u32).to_ne_bytes());
                    }
                    // Each dispatch's header differs in its group base.
                    if block == ArgBlock::HeaderBuffer {
                        let address = r.push_args(header)?;
                        let at = HEADER_BUFFER_ADDRESS as usize;
                        push[at..at + 8].copy_from_slice(&address.to_ne_bytes());
                        for (word, pushed) in PUSHED_HEADER_WORDS {
                            let (from, to) = (4 * word as usize, 4 * pushed as usize);
                            push[to..to + 4].copy_from_slice(&header[from..from + 4]);
                        }
                    } else {
                        push[..header.len()].copy_from_slice(header);
                    }
                    r.stream
                        .dispatch(
                            pipeline,
                            push,
                            [0; 3],
                            [count_x as u32, count_y as u32, count_z as u32],
                        )
                        .map_err(vk_error)?;
                    x += count_x;
                }
                y += count_y;
            }
            z += count_z;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_launches_too_small_for_more_occupancy_size_the_register_pad() {
        let limit = 49152;
        // The H200: 132 multiprocessors, 256 work-items each at most.
        assert!(pads_registers([4224, 1, 1], 132, 0, limit));
        assert!(pads_registers([132 * 256, 1, 1], 132, 0, limit));
        assert!(!pads_registers([132 * 256 + 1, 1, 1], 132, 0, limit));
        assert!(pads_registers([64, 4, 2], 132, 0, limit));
        assert!(!pads_registers([1 << 20, 1, 1], 132, 0, limit));
        // Room for the 8 KiB pad beside the launch's own `__local` memory.
        assert!(pads_registers([4224, 1, 1], 132, 40960, limit));
        assert!(!pads_registers([4224, 1, 1], 132, 40961, limit));
        // Sizes whose product passes `usize` do not pad.
        assert!(!pads_registers([usize::MAX, 2, 1], 132, 0, limit));
    }

    #[test]
    fn small_ndranges_of_shared_width_kernels_reach_every_compute_unit() {
        // The H200: 132 multiprocessors.
        assert_eq!(shared_dispatch_width([4224, 1, 1], 256, 132), 32);
        assert_eq!(shared_dispatch_width([1056, 1, 1], 256, 132), 32);
        assert_eq!(shared_dispatch_width([132 * 256, 1, 1], 256, 132), 256);
        assert_eq!(
            shared_dispatch_width([132 * 256 - 255, 1, 1], 256, 132),
            256
        );
        assert_eq!(shared_dispatch_width([132 * 256 - 256, 1, 1], 256, 132), 32);
        // Rows count as groups too.
        assert_eq!(shared_dispatch_width([256, 66, 2], 256, 132), 256);
        assert_eq!(shared_dispatch_width([256, 65, 2], 256, 132), 32);
        // Never wider than the device's shared width.
        assert_eq!(shared_dispatch_width([1, 1, 1], 16, 132), 16);
        assert_eq!(
            shared_dispatch_width([usize::MAX, usize::MAX, 2], 256, 132),
            256
        );
    }

    #[test]
    fn local_size_divides_global() {
        assert_eq!(
            pick_local_size([1024, 1, 1], 1, 256, [256, 256, 256], false),
            [256, 1, 1]
        );
        assert_eq!(
            pick_local_size([1000, 1, 1], 1, 256, [256, 256, 256], false),
            [250, 1, 1]
        );
        assert_eq!(
            pick_local_size([7, 1, 1], 1, 256, [256, 256, 256], false),
            [7, 1, 1]
        );
        assert_eq!(
            pick_local_size([64, 64, 1], 2, 256, [256, 256, 256], false),
            [64, 4, 1]
        );
        assert_eq!(
            pick_local_size([1031, 3, 1], 2, 256, [256, 256, 256], false),
            [1, 3, 1]
        );
    }

    #[test]
    fn local_size_may_leave_a_partial_group() {
        assert_eq!(
            pick_local_size([1031, 3, 1], 2, 256, [256, 256, 256], true),
            [256, 1, 1]
        );
        assert_eq!(
            pick_local_size([1000, 1, 1], 1, 256, [256, 256, 256], true),
            [250, 1, 1]
        );
        assert_eq!(
            pick_local_size([5, 7, 1], 2, 256, [256, 256, 256], true),
            [5, 7, 1]
        );
    }

    #[test]
    fn regions_cover_the_ndrange_once() {
        let r = regions([10, 7, 1], [4, 7, 1]);
        assert_eq!(
            r.as_slice(),
            [
                Region {
                    first_group: [0, 0, 0],
                    groups: [2, 1, 1],
                    work_group_size: [4, 7, 1],
                },
                Region {
                    first_group: [2, 0, 0],
                    groups: [1, 1, 1],
                    work_group_size: [2, 7, 1],
                },
            ]
        );
        assert_eq!(regions([3, 5, 7], [2, 2, 2]).as_slice().len(), 8);
        assert_eq!(regions([16, 16, 16], [4, 4, 4]).as_slice().len(), 1);
        // Every work-item is in exactly one region.
        for (global, local) in [([13, 9, 5], [4, 2, 3]), ([3, 1, 1], [8, 1, 1])] {
            let items: usize = regions(global, local)
                .as_slice()
                .iter()
                .map(|r| {
                    (0..3)
                        .map(|d| r.groups[d] as usize * r.work_group_size[d] as usize)
                        .product::<usize>()
                })
                .sum();
            assert_eq!(items, global.iter().product::<usize>());
        }
    }
}
