//! Kernels: argument values, the pipeline cache, and `clEnqueueNDRangeKernel`.
//!
//! Arguments are stored as the bytes of the launch block (see the launch
//! ABI in `ferrocl_compiler`'s docs) as `clSetKernelArg` receives them;
//! buffer arguments keep their `cl_mem` alive and are turned into device
//! addresses when the kernel is enqueued. Pipelines are cached per (device,
//! work-group size, `__local` argument sizes).

use crate::api::{ApiHeader, ApiObject, Tag};
use crate::cl::*;
use crate::device::Device;
use crate::event::Event;
use crate::memory::Mem;
use crate::printf;
use crate::program::Program;
use crate::queue::{Queue, Recorder};
use crate::vk_error;
pub use ferrocl_compiler::{AccessQualifier, AddressQualifier, ArgKind, KernelArg};
use ferrocl_compiler::{
    ArgBlock, CompiledProgram, KernelInfo, ARGS_OFFSET, SPEC_ID_WORK_GROUP_SIZE,
};
use ferrocl_vk::Pipeline;
use parking_lot::Mutex;
use std::sync::atomic::Ordering;
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
}

/// A cached pipeline: (device index, work-group size, `__local` argument
/// sizes) and the pipeline. Searched linearly: a kernel has few.
type CachedPipeline = (usize, [u32; 3], Vec<u32>, Arc<Pipeline>);

/// The buffers one launch fills, reused from launch to launch.
#[derive(Default)]
struct LaunchData {
    push: Vec<u8>,
    args: Vec<u8>,
    mems: Vec<Arc<Mem>>,
    local_sizes: Vec<u32>,
}

/// A `cl_kernel`.
#[repr(C)]
pub struct Kernel {
    header: ApiHeader,
    pub program: Arc<Program>,
    pub info: KernelInfo,
    /// The executable per device of the program (None where the program is
    /// not built for that device).
    executables: Vec<Option<Arc<CompiledProgram>>>,
    args: Mutex<Vec<Option<ArgValue>>>,
    pipelines: Mutex<Vec<CachedPipeline>>,
    spare_launches: Mutex<Vec<LaunchData>>,
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
        Ok(Kernel::from_parts(program.clone(), info, executables, None))
    }

    fn from_parts(
        program: Arc<Program>,
        info: KernelInfo,
        executables: Vec<Option<Arc<CompiledProgram>>>,
        args: Option<Vec<Option<ArgValue>>>,
    ) -> Arc<Kernel> {
        program.kernel_count.fetch_add(1, Ordering::AcqRel);
        let args = args.unwrap_or_else(|| vec![None; info.args.len()]);
        Arc::new(Kernel {
            header: ApiHeader::new(Tag::Kernel),
            program,
            info,
            executables,
            args: Mutex::new(args),
            pipelines: Mutex::new(Vec::new()),
            spare_launches: Mutex::new(Vec::new()),
        })
    }

    /// `clCloneKernel`: same program, a copy of the argument values.
    pub fn clone_kernel(&self) -> Arc<Kernel> {
        let args = self.args.lock().clone();
        Kernel::from_parts(
            self.program.clone(),
            self.info.clone(),
            self.executables.clone(),
            Some(args),
        )
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

    fn pipeline(
        &self,
        device_index: usize,
        device: &Device,
        local: [u32; 3],
        local_sizes: &[u32],
    ) -> Result<Arc<Pipeline>, cl_int> {
        let cached = |list: &[CachedPipeline]| {
            list.iter()
                .find(|(d, l, s, _)| {
                    *d == device_index && *l == local && s.as_slice() == local_sizes
                })
                .map(|c| c.3.clone())
        };
        if let Some(p) = cached(&self.pipelines.lock()) {
            return Ok(p);
        }
        let exe = self.executables[device_index]
            .as_ref()
            .ok_or(CL_INVALID_PROGRAM_EXECUTABLE)?;
        let mut spec: Vec<(u32, u32)> =
            SPEC_ID_WORK_GROUP_SIZE.iter().copied().zip(local).collect();
        let mut locals = local_sizes.iter();
        for arg in &self.info.args {
            if let (ArgKind::LocalPointer, Some(id)) = (arg.kind, arg.local_size_spec_id) {
                spec.push((id, locals.next().copied().unwrap_or(0)));
            }
        }
        // Built outside the lock: pipeline creation is slow, and a racing
        // launch that builds the same one only wastes time.
        let pipeline = device
            .backend()?
            .create_pipeline(&exe.spirv, &self.info.name, push_size(&self.info), &spec)
            .map_err(vk_error)?;
        let pipeline = Arc::new(pipeline);
        let mut list = self.pipelines.lock();
        if let Some(p) = cached(&list) {
            return Ok(p);
        }
        list.push((device_index, local, local_sizes.to_vec(), pipeline.clone()));
        Ok(pipeline)
    }
}

impl Drop for Kernel {
    fn drop(&mut self) {
        self.program.kernel_count.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Byte offset of `group_base_x` in the launch header.
const GROUP_BASE_X_OFFSET: usize = 28;

/// Bytes of the push-constant range of a kernel.
pub fn push_size(info: &KernelInfo) -> u32 {
    let args = match info.arg_block {
        ArgBlock::Push => info.args_size,
        ArgBlock::Buffer => 8,
    };
    (ARGS_OFFSET + args).next_multiple_of(4)
}

/// A work-group size for a NULL `local_work_size`: the largest group whose
/// size in each dimension divides the global size, growing x first, up to
/// the device's limits.
pub fn pick_local_size(
    global: [usize; 3],
    work_dim: usize,
    max_total: usize,
    max_items: [usize; 3],
) -> [usize; 3] {
    let mut local = [1usize; 3];
    let mut total = 1usize;
    for d in 0..work_dim {
        let limit = max_items[d].min(max_total / total).max(1);
        let mut best = 1;
        let mut candidate = 1;
        while candidate <= limit && candidate <= global[d] {
            if global[d].is_multiple_of(candidate) {
                best = candidate;
            }
            candidate += 1;
        }
        local[d] = best;
        total *= best;
    }
    local
}

/// A checked NDRange.
pub struct NdRange {
    pub work_dim: u32,
    pub offset: [usize; 3],
    pub global: [usize; 3],
    pub local: [usize; 3],
}

/// `clEnqueueNDRangeKernel`, after the ICD's argument checks: captures the
/// arguments now and records one dispatch.
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
    let mut launch = kernel.spare_launches.lock().pop().unwrap_or_default();
    let filled = fill_launch(kernel, range, &mut launch)
        .and_then(|_| launch.mems.iter().try_for_each(|m| m.check_device(queue)));
    let launch_pipeline = filled.and_then(|_| {
        let local = range.local.map(|l| l as u32);
        kernel.pipeline(device_index, &queue.device, local, &launch.local_sizes)
    });
    let pipeline = match launch_pipeline {
        Ok(p) => p,
        Err(code) => {
            recycle_launch(kernel, launch);
            return Err(code);
        }
    };
    let groups = [0, 1, 2].map(|d| (range.global[d] / range.local[d]) as u64);
    // Vulkan bounds base + count of a dispatch by maxComputeWorkGroupCount,
    // so `vkCmdDispatchBase` cannot reach group ids past the limit. In x the
    // launch ABI has `group_base_x` (added to the work-group id by the
    // kernel): more groups than the limit become several dispatches from
    // group 0. y and z have no such base yet.
    let max = queue.device.vk_info().limits.max_compute_work_group_count;
    if groups[1] > max[1] as u64 || groups[2] > max[2] as u64 {
        recycle_launch(kernel, launch);
        return Err(CL_OUT_OF_RESOURCES);
    }
    let step_x = max[0].max(1) as u64;
    let in_push = info.arg_block == ArgBlock::Push;
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
        .and_then(|_| record_launch(r, &mut launch, &pipeline, in_push, groups, step_x));
        recycle_launch(&kernel, launch);
        result
    };
    queue.enqueue(CL_COMMAND_NDRANGE_KERNEL, wait_list, record)
}

/// Returns a launch's buffers to the kernel for the next launch, holding no
/// memory object: steady-state launches then allocate nothing.
fn recycle_launch(kernel: &Kernel, mut launch: LaunchData) {
    launch.mems.clear();
    kernel.spare_launches.lock().push(launch);
}

/// Captures the kernel's arguments and the launch header into `launch`.
fn fill_launch(kernel: &Kernel, range: &NdRange, launch: &mut LaunchData) -> Result<(), cl_int> {
    let info = &kernel.info;
    launch.push.clear();
    launch.push.resize(push_size(info) as usize, 0);
    launch.args.clear();
    launch.args.resize(info.args_size as usize, 0);
    launch.mems.clear();
    launch.local_sizes.clear();
    {
        let args = kernel.args.lock();
        for (arg, value) in info.args.iter().zip(args.iter()) {
            let at = arg.offset as usize;
            match value {
                None => return Err(CL_INVALID_KERNEL_ARGS),
                Some(ArgValue::Bytes(bytes)) => {
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
                    let address = mem.as_ref().map_or(0, |m| m.device_address());
                    launch
                        .args
                        .get_mut(at..at + 8)
                        .ok_or(CL_INVALID_KERNEL_ARGS)?
                        .copy_from_slice(&address.to_ne_bytes());
                    if let Some(m) = mem {
                        launch.mems.push(m);
                    }
                }
                Some(ArgValue::Local(size)) => launch.local_sizes.push(*size as u32),
            }
        }
    }
    let mut header = [0u32; 8];
    for d in 0..3 {
        header[d] = u32::try_from(range.offset[d]).map_err(|_| CL_INVALID_GLOBAL_OFFSET)?;
        header[3 + d] = u32::try_from(range.global[d]).map_err(|_| CL_INVALID_GLOBAL_WORK_SIZE)?;
    }
    header[6] = range.work_dim;
    for (i, word) in header.iter().enumerate() {
        launch.push[i * 4..i * 4 + 4].copy_from_slice(&word.to_ne_bytes());
    }
    if info.arg_block == ArgBlock::Push {
        let start = ARGS_OFFSET as usize;
        let end = start + launch.args.len();
        launch
            .push
            .get_mut(start..end)
            .ok_or(CL_OUT_OF_RESOURCES)?
            .copy_from_slice(&launch.args);
    }
    Ok(())
}

/// Writes the printf buffer's address into the hidden trailing argument,
/// in the argument data and, when the arguments are pushed, in the push
/// constants (which already hold a copy of them).
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
    if info.arg_block == ArgBlock::Push {
        let at = ARGS_OFFSET as usize + at;
        launch
            .push
            .get_mut(at..at + 8)
            .ok_or(CL_INVALID_KERNEL)?
            .copy_from_slice(&bytes);
    }
    Ok(())
}

/// Records the dispatches of one launch: one per `step_x` groups in x.
fn record_launch(
    r: &mut Recorder<'_>,
    launch: &mut LaunchData,
    pipeline: &Arc<Pipeline>,
    in_push: bool,
    groups: [u64; 3],
    step_x: u64,
) -> Result<(), cl_int> {
    let LaunchData { push, args, .. } = launch;
    if !in_push {
        let address = r.push_args(args)?;
        let start = ARGS_OFFSET as usize;
        push[start..start + 8].copy_from_slice(&address.to_ne_bytes());
    }
    let mut x = 0u64;
    while x < groups[0] {
        let count = (groups[0] - x).min(step_x);
        push[GROUP_BASE_X_OFFSET..GROUP_BASE_X_OFFSET + 4]
            .copy_from_slice(&(x as u32).to_ne_bytes());
        r.stream
            .dispatch(
                pipeline,
                push,
                [0; 3],
                [count as u32, groups[1] as u32, groups[2] as u32],
            )
            .map_err(vk_error)?;
        x += count;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_size_divides_global() {
        assert_eq!(
            pick_local_size([1024, 1, 1], 1, 256, [256, 256, 256]),
            [256, 1, 1]
        );
        assert_eq!(
            pick_local_size([1000, 1, 1], 1, 256, [256, 256, 256]),
            [250, 1, 1]
        );
        assert_eq!(
            pick_local_size([7, 1, 1], 1, 256, [256, 256, 256]),
            [7, 1, 1]
        );
        assert_eq!(
            pick_local_size([64, 64, 1], 2, 256, [256, 256, 256]),
            [64, 4, 1]
        );
        assert_eq!(
            pick_local_size([1031, 3, 1], 2, 256, [256, 256, 256]),
            [1, 3, 1]
        );
    }
}
