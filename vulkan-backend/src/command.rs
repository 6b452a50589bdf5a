//! Command recording and submission. A stream owns a command pool; its
//! command buffers are begun when the first command is recorded, submitted
//! with timeline waits and a timeline signal, and reset for reuse once that
//! signal is reached. Every object a recorded command uses (pipeline,
//! buffers, semaphores, timestamp slots) is kept alive by the batch until
//! then, so the runtime may drop its own handles at any time.

use crate::builtin::{self, BuiltinKernel};
use crate::device::{Device, DeviceShared};
use crate::error::{vk_error, Error, Result};
use crate::memory::Buffer;
use crate::pipeline::Pipeline;
use crate::sync::{Timeline, TimelineShared};
use crate::timestamp::{Timestamp, TimestampSlot};
use ash::vk;
use std::collections::VecDeque;
use std::sync::Arc;

/// One command buffer and what its commands use. Batches are reused with
/// their vectors' capacity, so steady-state recording does not allocate.
struct Batch {
    cmd: vk::CommandBuffer,
    /// vkBeginCommandBuffer was called (an empty submission never begins).
    begun: bool,
    bound_pipeline: vk::Pipeline,
    pipelines: Vec<Arc<Pipeline>>,
    buffers: Vec<Arc<Buffer>>,
    timelines: Vec<Arc<TimelineShared>>,
    timestamps: Vec<Arc<TimestampSlot>>,
    signal: Option<(Arc<TimelineShared>, u64)>,
}

impl Batch {
    /// A batch whose lists hold `commands` commands' entries (two
    /// timestamps each, on a profiling queue) before they grow.
    fn new(cmd: vk::CommandBuffer, commands: usize) -> Batch {
        Batch {
            cmd,
            begun: false,
            bound_pipeline: vk::Pipeline::null(),
            pipelines: Vec::with_capacity(commands),
            buffers: Vec::with_capacity(commands),
            timelines: Vec::new(),
            timestamps: Vec::with_capacity(2 * commands),
            signal: None,
        }
    }

    fn keep_buffer(&mut self, buffer: &Arc<Buffer>) {
        if !self.buffers.last().is_some_and(|b| Arc::ptr_eq(b, buffer)) {
            self.buffers.push(Arc::clone(buffer));
        }
    }

    /// Releases everything the finished commands used.
    fn release(&mut self) {
        self.begun = false;
        self.bound_pipeline = vk::Pipeline::null();
        self.pipelines.clear();
        self.buffers.clear();
        self.timelines.clear();
        self.timestamps.clear();
        self.signal = None;
    }
}

/// Records commands into command buffers and submits them on the device's
/// compute queue. Not `Sync`: the runtime owns one per OpenCL queue behind
/// its own lock. Command buffers are recycled once the timeline value their
/// submission signalled is reached.
pub struct CommandStream {
    device: Arc<DeviceShared>,
    pool: vk::CommandPool,
    current: Option<Batch>,
    in_flight: VecDeque<Batch>,
    spare: Vec<Batch>,
    /// Command buffers the first batch makes, and the commands each has
    /// room for ([`Device::create_command_stream_for`]).
    batches_ahead: usize,
    batch_commands: usize,
    wait_semaphores: Vec<vk::Semaphore>,
    wait_values: Vec<u64>,
    wait_stages: Vec<vk::PipelineStageFlags>,
    push_scratch: Vec<u8>,
}

impl Device {
    pub fn create_command_stream(&self) -> Result<CommandStream> {
        self.create_command_stream_for(0, 0)
    }

    /// A stream whose first batch makes `batches` command buffers at once,
    /// each with room for `commands` commands before its lists grow: a
    /// caller that keeps at most `batches` submissions alive (in flight,
    /// and the one being recorded) then records and submits without
    /// allocating, however the device's pace spreads its commands over
    /// them. A stream never used makes none.
    pub fn create_command_stream_for(
        &self,
        batches: usize,
        commands: usize,
    ) -> Result<CommandStream> {
        let info = vk::CommandPoolCreateInfo::default()
            .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER)
            .queue_family_index(self.shared.queue_family);
        // SAFETY: the device is alive; the family is the one its queue uses.
        let pool = unsafe { self.shared.raw.create_command_pool(&info, None) }
            .map_err(|e| vk_error("vkCreateCommandPool", e))?;
        Ok(CommandStream {
            device: Arc::clone(&self.shared),
            pool,
            current: None,
            in_flight: VecDeque::with_capacity(batches),
            spare: Vec::with_capacity(batches),
            batches_ahead: batches,
            batch_commands: commands,
            wait_semaphores: Vec::new(),
            wait_values: Vec::new(),
            wait_stages: Vec::new(),
            push_scratch: Vec::new(),
        })
    }
}

/// Stages and accesses of everything a stream records: compute dispatches
/// and transfers.
const WORK_STAGES: vk::PipelineStageFlags = vk::PipelineStageFlags::from_raw(
    vk::PipelineStageFlags::COMPUTE_SHADER.as_raw() | vk::PipelineStageFlags::TRANSFER.as_raw(),
);
const WORK_WRITES: vk::AccessFlags = vk::AccessFlags::from_raw(
    vk::AccessFlags::SHADER_WRITE.as_raw() | vk::AccessFlags::TRANSFER_WRITE.as_raw(),
);

/// Work-groups of one built-in copy or fill: enough to fill the largest
/// GPUs several times over; larger ranges loop inside the kernel.
const BUILTIN_MAX_GROUPS: u32 = 8192;

/// The copy kernel for addresses and size whose bits are or-ed in
/// `alignment_bits`: 16-byte units where all are 16-aligned, else 4-byte
/// units, else none (the transfer path copies odd bytes).
fn copy_kernel(alignment_bits: u64) -> Option<BuiltinKernel> {
    if alignment_bits & 15 == 0 {
        Some(BuiltinKernel::Copy16)
    } else if alignment_bits & 3 == 0 {
        Some(BuiltinKernel::Copy4)
    } else {
        None
    }
}

/// u64 values as the push block of a built-in kernel (zeros after them).
fn push_words(values: &[u64]) -> [u8; builtin::PUSH_SIZE as usize] {
    let mut push = [0u8; builtin::PUSH_SIZE as usize];
    for (chunk, value) in push.chunks_exact_mut(8).zip(values) {
        chunk.copy_from_slice(&value.to_ne_bytes());
    }
    push
}

impl CommandStream {
    /// The batch being recorded, begun on first use.
    fn recording(&mut self) -> Result<&mut Batch> {
        if self.current.is_none() {
            let mut batch = self.take_batch()?;
            let info = vk::CommandBufferBeginInfo::default()
                .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
            // SAFETY: the command buffer is in the initial state (new or
            // reset at recycle) and only this stream records into it.
            if let Err(e) = unsafe { self.device.raw.begin_command_buffer(batch.cmd, &info) } {
                self.spare.push(batch);
                return Err(vk_error("vkBeginCommandBuffer", e));
            }
            batch.begun = true;
            self.current = Some(batch);
        }
        self.current
            .as_mut()
            .ok_or_else(|| Error::Other("no command buffer is being recorded".to_string()))
    }

    /// A batch in the initial state: a recycled one, or a new command
    /// buffer (the first time, with those made ahead).
    fn take_batch(&mut self) -> Result<Batch> {
        self.release_completed();
        if let Some(batch) = self.spare.pop() {
            return Ok(batch);
        }
        let count = self.batches_ahead.max(1);
        let info = vk::CommandBufferAllocateInfo::default()
            .command_pool(self.pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(count as u32);
        // SAFETY: the pool belongs to this stream, which is not shared
        // between threads while `&mut self` is held.
        let mut cmds = unsafe { self.device.raw.allocate_command_buffers(&info) }
            .map_err(|e| vk_error("vkAllocateCommandBuffers", e))?;
        self.batches_ahead = 0;
        let commands = self.batch_commands;
        let first = cmds.pop().map(|cmd| Batch::new(cmd, commands));
        self.spare
            .extend(cmds.into_iter().map(|cmd| Batch::new(cmd, commands)));
        first.ok_or_else(|| Error::Other("vkAllocateCommandBuffers made none".to_string()))
    }

    /// Resets the command buffers of finished submissions and drops what
    /// their commands used (pipelines, buffers, semaphores). Also done
    /// whenever a new command buffer is needed.
    pub fn release_completed(&mut self) {
        // A queue usually signals one timeline: read each counter once per
        // pass rather than once per batch.
        let mut last_read: Option<(vk::Semaphore, u64)> = None;
        let mut i = 0;
        while i < self.in_flight.len() {
            let done = match &self.in_flight[i].signal {
                Some((timeline, value)) => {
                    let reached = match last_read {
                        Some((semaphore, reached)) if semaphore == timeline.raw => Some(reached),
                        _ => timeline.value().ok(),
                    };
                    if let Some(reached) = reached {
                        last_read = Some((timeline.raw, reached));
                    }
                    reached.is_some_and(|reached| reached >= *value)
                }
                None => true,
            };
            if !done {
                i += 1;
                continue;
            }
            if let Some(mut batch) = self.in_flight.remove(i) {
                if self.reset(&mut batch) {
                    self.spare.push(batch);
                }
            }
        }
    }

    /// Returns the batch to the initial state; false if the command buffer
    /// could not be reset (then it is freed).
    fn reset(&self, batch: &mut Batch) -> bool {
        batch.release();
        // SAFETY: the submission that used the command buffer has completed
        // (its signal was reached) or it was never submitted.
        let reset = unsafe {
            self.device
                .raw
                .reset_command_buffer(batch.cmd, vk::CommandBufferResetFlags::empty())
        };
        if reset.is_err() {
            // SAFETY: as above; the buffer is not pending.
            unsafe {
                self.device
                    .raw
                    .free_command_buffers(self.pool, &[batch.cmd])
            };
            return false;
        }
        true
    }

    /// Records `vkCmdDispatchBase(base, groups)` with `push` (≤ the
    /// pipeline's push-constant size) as push constants. The pipeline is
    /// kept alive until the submission completes.
    pub fn dispatch(
        &mut self,
        pipeline: &Arc<Pipeline>,
        push: &[u8],
        base: [u32; 3],
        groups: [u32; 3],
    ) -> Result<()> {
        if push.len() > pipeline.push_constant_size() as usize {
            return Err(Error::Other(format!(
                "{} bytes of push constants for a {}-byte range",
                push.len(),
                pipeline.push_constant_size()
            )));
        }
        let max = self.device.info.limits.max_compute_work_group_count;
        for d in 0..3 {
            if base[d] >= max[d] || groups[d] > max[d] - base[d] {
                return Err(Error::Other(format!(
                    "dispatch base {base:?} + groups {groups:?} exceeds maxComputeWorkGroupCount {max:?}"
                )));
            }
        }
        if groups.contains(&0) {
            return Ok(());
        }
        // vkCmdPushConstants takes whole 32-bit words.
        let mut scratch = std::mem::take(&mut self.push_scratch);
        scratch.clear();
        scratch.extend_from_slice(push);
        scratch.resize(push.len().div_ceil(4) * 4, 0);
        let recorded = self.record_dispatch(pipeline, &scratch, base, groups);
        self.push_scratch = scratch;
        recorded
    }

    fn record_dispatch(
        &mut self,
        pipeline: &Arc<Pipeline>,
        push: &[u8],
        base: [u32; 3],
        groups: [u32; 3],
    ) -> Result<()> {
        let device = Arc::clone(&self.device);
        let batch = self.recording()?;
        if batch.bound_pipeline != pipeline.raw {
            // SAFETY: the command buffer is recording; the pipeline is kept
            // alive by the batch below.
            unsafe {
                device.raw.cmd_bind_pipeline(
                    batch.cmd,
                    vk::PipelineBindPoint::COMPUTE,
                    pipeline.raw,
                )
            };
            batch.bound_pipeline = pipeline.raw;
            batch.pipelines.push(Arc::clone(pipeline));
        }
        if !push.is_empty() {
            // SAFETY: `push` is a multiple of 4 bytes within the layout's
            // single COMPUTE range starting at 0.
            unsafe {
                device.raw.cmd_push_constants(
                    batch.cmd,
                    pipeline.layout,
                    vk::ShaderStageFlags::COMPUTE,
                    0,
                    push,
                )
            };
        }
        // SAFETY: the pipeline was created with DISPATCH_BASE and the group
        // range was checked against maxComputeWorkGroupCount.
        unsafe {
            device.raw.cmd_dispatch_base(
                batch.cmd, base[0], base[1], base[2], groups[0], groups[1], groups[2],
            )
        };
        Ok(())
    }

    /// Keeps `buffer` alive until the submission of what is being recorded
    /// completes. A dispatch sees buffers only as addresses in its push
    /// constants, so the runtime hands over the kernel's buffer arguments
    /// here after recording the dispatch.
    pub fn keep_alive(&mut self, buffer: &Arc<Buffer>) -> Result<()> {
        self.recording()?.keep_buffer(buffer);
        Ok(())
    }

    /// Moves `buffer`, whose memory was imported from another API, between
    /// that API and this queue (Vulkan's queue family ownership transfer to
    /// or from `VK_QUEUE_FAMILY_EXTERNAL`): `acquire` makes the other API's
    /// writes visible to the work recorded after it, and a release makes
    /// the work recorded before it visible to the other API.
    pub fn external_ownership(&mut self, buffer: &Arc<Buffer>, acquire: bool) -> Result<()> {
        let device = Arc::clone(&self.device);
        let batch = self.recording()?;
        let ours = device.queue_family;
        let external = vk::QUEUE_FAMILY_EXTERNAL;
        let all_access =
            WORK_WRITES | vk::AccessFlags::SHADER_READ | vk::AccessFlags::TRANSFER_READ;
        let (src, dst, src_access, dst_access, src_stage, dst_stage) = if acquire {
            (
                external,
                ours,
                vk::AccessFlags::empty(),
                all_access,
                vk::PipelineStageFlags::TOP_OF_PIPE,
                WORK_STAGES,
            )
        } else {
            (
                ours,
                external,
                WORK_WRITES,
                vk::AccessFlags::empty(),
                WORK_STAGES,
                vk::PipelineStageFlags::BOTTOM_OF_PIPE,
            )
        };
        let barrier = [vk::BufferMemoryBarrier::default()
            .src_access_mask(src_access)
            .dst_access_mask(dst_access)
            .src_queue_family_index(src)
            .dst_queue_family_index(dst)
            .buffer(buffer.raw)
            .offset(0)
            .size(vk::WHOLE_SIZE)];
        // SAFETY: the command buffer is recording; the buffer is kept alive
        // with the batch below.
        unsafe {
            device.raw.cmd_pipeline_barrier(
                batch.cmd,
                src_stage,
                dst_stage,
                vk::DependencyFlags::empty(),
                &[],
                &barrier,
                &[],
            )
        };
        batch.keep_buffer(buffer);
        Ok(())
    }

    /// Copies `size` bytes between buffers (may be the same buffer with
    /// non-overlapping ranges).
    pub fn copy_buffer(
        &mut self,
        src: &Arc<Buffer>,
        src_offset: u64,
        dst: &Arc<Buffer>,
        dst_offset: u64,
        size: u64,
    ) -> Result<()> {
        let in_bounds =
            |b: &Buffer, offset: u64| offset.checked_add(size).is_some_and(|end| end <= b.size());
        if !in_bounds(src, src_offset) || !in_bounds(dst, dst_offset) {
            return Err(Error::Other("buffer copy out of bounds".to_string()));
        }
        if Arc::ptr_eq(src, dst) && src_offset < dst_offset + size && dst_offset < src_offset + size
        {
            return Err(Error::Other("overlapping buffer copy".to_string()));
        }
        if size == 0 {
            return Ok(());
        }
        if self
            .device
            .copy_on_compute(size, src.system_memory() || dst.system_memory())
        {
            let src_address = src.device_address() + src_offset;
            let dst_address = dst.device_address() + dst_offset;
            if let Some(kernel) = copy_kernel(src_address | dst_address | size) {
                let units = size / kernel.unit();
                let recorded = self.record_builtin(kernel, units, |stride| {
                    push_words(&[src_address, dst_address, units, stride])
                })?;
                if recorded {
                    return self.keep_buffers(src, dst);
                }
            }
        }
        let region = [vk::BufferCopy {
            src_offset,
            dst_offset,
            size,
        }];
        self.record_copy_regions(src, dst, &region)
    }

    /// Records one `vkCmdCopyBuffer` of `regions`, which the caller has
    /// checked: in bounds, and no source region meeting a destination one.
    fn record_copy_regions(
        &mut self,
        src: &Arc<Buffer>,
        dst: &Arc<Buffer>,
        regions: &[vk::BufferCopy],
    ) -> Result<()> {
        let device = Arc::clone(&self.device);
        let batch = self.recording()?;
        // SAFETY: both buffers are live and kept alive by the batch; the
        // caller checked the regions.
        unsafe {
            device
                .raw
                .cmd_copy_buffer(batch.cmd, src.raw, dst.raw, regions)
        };
        self.keep_buffers(src, dst)
    }

    /// Keeps both buffers of a copy alive with the batch being recorded.
    fn keep_buffers(&mut self, src: &Arc<Buffer>, dst: &Arc<Buffer>) -> Result<()> {
        let batch = self.recording()?;
        batch.keep_buffer(src);
        batch.keep_buffer(dst);
        Ok(())
    }

    /// Copies a rectangle: `region` is `[row bytes, rows a slice, slices]`,
    /// each side at its byte offset and `[row pitch, slice pitch]`. Where
    /// offsets, pitches and the row are multiples of 4 and the two sides'
    /// spans do not meet in one buffer, it is one dispatch of the built-in
    /// rectangle copy where `DeviceShared::rect_copy_on_compute` says so.
    /// Otherwise the rows go as regions of one transfer command
    /// ([`CommandStream::copy_buffer_rows`]).
    #[allow(clippy::too_many_arguments)]
    pub fn copy_buffer_rect(
        &mut self,
        src: &Arc<Buffer>,
        src_offset: u64,
        src_pitches: [u64; 2],
        dst: &Arc<Buffer>,
        dst_offset: u64,
        dst_pitches: [u64; 2],
        region: [u64; 3],
    ) -> Result<()> {
        let [row, rows, slices] = region;
        if row == 0 || rows == 0 || slices == 0 {
            return Ok(());
        }
        // One past the last byte of each side.
        let end = |offset: u64, [pitch, slice]: [u64; 2]| {
            (slices - 1)
                .checked_mul(slice)
                .and_then(|s| (rows - 1).checked_mul(pitch)?.checked_add(s))
                .and_then(|r| r.checked_add(offset)?.checked_add(row))
        };
        let (Some(src_end), Some(dst_end)) =
            (end(src_offset, src_pitches), end(dst_offset, dst_pitches))
        else {
            return Err(Error::Other("buffer copy out of bounds".to_string()));
        };
        if src_end > src.size() || dst_end > dst.size() {
            return Err(Error::Other("buffer copy out of bounds".to_string()));
        }
        let spans_meet = Arc::ptr_eq(src, dst) && src_offset < dst_end && dst_offset < src_end;
        let src_address = src.device_address() + src_offset;
        let dst_address = dst.device_address() + dst_offset;
        let bits = src_address
            | dst_address
            | row
            | src_pitches[0]
            | src_pitches[1]
            | dst_pitches[0]
            | dst_pitches[1];
        let kernel = if bits & 15 == 0 {
            Some(BuiltinKernel::CopyRect16)
        } else if bits & 3 == 0 {
            Some(BuiltinKernel::CopyRect4)
        } else {
            None
        };
        let on_compute = self.device.rect_copy_on_compute();
        if let (Some(kernel), false, true, true) =
            (kernel, spans_meet, on_compute, rows * slices > 1)
        {
            let row_units = row / kernel.unit();
            let units = row_units * rows * slices;
            let recorded = self.record_builtin(kernel, units, |stride| {
                push_words(&[
                    src_address,
                    dst_address,
                    units,
                    stride,
                    row_units,
                    rows,
                    src_pitches[0],
                    src_pitches[1],
                    dst_pitches[0],
                    dst_pitches[1],
                ])
            })?;
            if recorded {
                return self.keep_buffers(src, dst);
            }
        }
        let mut offsets = Vec::with_capacity((rows * slices) as usize);
        for z in 0..slices {
            for y in 0..rows {
                offsets.push((
                    src_offset + z * src_pitches[1] + y * src_pitches[0],
                    dst_offset + z * dst_pitches[1] + y * dst_pitches[0],
                ));
            }
        }
        self.copy_buffer_rows(src, dst, &offsets, row)
    }

    /// Copies rows of `row` bytes between buffers, one row per pair of
    /// offsets `(src_offset, dst_offset)` (the rows of a rectangle), as one
    /// `vkCmdCopyBuffer` with a region per row: a copy command per row made
    /// OpenCV's rectangle copies of 1,080 rows cost the GPU 0.1-0.2 ms
    /// each. Rows large enough for the compute copy, and rows in one
    /// buffer whose source and destination spans meet, go one by one
    /// through [`CommandStream::copy_buffer`].
    pub fn copy_buffer_rows(
        &mut self,
        src: &Arc<Buffer>,
        dst: &Arc<Buffer>,
        rows: &[(u64, u64)],
        row: u64,
    ) -> Result<()> {
        let span = |offsets: &mut dyn Iterator<Item = u64>| {
            offsets.fold((u64::MAX, 0u64), |(lo, hi), o| {
                (lo.min(o), hi.max(o.saturating_add(row)))
            })
        };
        let (src_lo, src_hi) = span(&mut rows.iter().map(|r| r.0));
        let (dst_lo, dst_hi) = span(&mut rows.iter().map(|r| r.1));
        let spans_meet = Arc::ptr_eq(src, dst) && src_lo < dst_hi && dst_lo < src_hi;
        let on_compute = self
            .device
            .copy_on_compute(row, src.system_memory() || dst.system_memory());
        if rows.len() < 2 || row == 0 || spans_meet || on_compute {
            for &(from, to) in rows {
                self.copy_buffer(src, from, dst, to, row)?;
            }
            return Ok(());
        }
        if src_hi > src.size() || dst_hi > dst.size() {
            return Err(Error::Other("buffer copy out of bounds".to_string()));
        }
        let regions: Vec<vk::BufferCopy> = rows
            .iter()
            .map(|&(src_offset, dst_offset)| vk::BufferCopy {
                src_offset,
                dst_offset,
                size: row,
            })
            .collect();
        // Every row is in bounds (the spans are), and the source rows and
        // the destination rows do not meet (other buffers, or disjoint
        // spans).
        self.record_copy_regions(src, dst, &regions)
    }

    /// Fills `size` bytes at `offset` with the 32-bit `value` (offset and
    /// size multiples of 4).
    pub fn fill_buffer(
        &mut self,
        dst: &Arc<Buffer>,
        offset: u64,
        size: u64,
        value: u32,
    ) -> Result<()> {
        // vkCmdFillBuffer works in 32-bit words.
        if (offset | size) & 3 != 0 {
            return Err(Error::Other(
                "buffer fill offset and size must be multiples of 4".to_string(),
            ));
        }
        match offset.checked_add(size) {
            Some(end) if end <= dst.size() => {}
            _ => return Err(Error::Other("buffer fill out of bounds".to_string())),
        }
        if size == 0 {
            return Ok(());
        }
        if self.device.fill_on_compute() {
            let dst_address = dst.device_address() + offset;
            let kernel = if (dst_address | size) & 15 == 0 {
                BuiltinKernel::Fill16
            } else {
                BuiltinKernel::Fill4
            };
            let units = size / kernel.unit();
            let recorded = self.record_builtin(kernel, units, |stride| {
                let mut push = push_words(&[dst_address, units, stride, 0]);
                push[24..28].copy_from_slice(&value.to_ne_bytes());
                push
            })?;
            if recorded {
                self.recording()?.keep_buffer(dst);
                return Ok(());
            }
        }
        let device = Arc::clone(&self.device);
        let batch = self.recording()?;
        // SAFETY: the buffer is live, the range in bounds and 4-aligned,
        // and the batch keeps the buffer alive.
        unsafe {
            device
                .raw
                .cmd_fill_buffer(batch.cmd, dst.raw, offset, size, value)
        };
        batch.keep_buffer(dst);
        Ok(())
    }

    /// Records a built-in copy or fill kernel over `units` units: a bounded
    /// number of work-groups, each invocation striding by the total count.
    /// `Ok(false)` when the kernel's pipeline cannot be built: the caller
    /// then records the transfer command, which does the same work.
    fn record_builtin(
        &mut self,
        kernel: BuiltinKernel,
        units: u64,
        push: impl FnOnce(u64) -> [u8; builtin::PUSH_SIZE as usize],
    ) -> Result<bool> {
        let Ok((pipeline, layout)) = self.device.builtin_pipeline(kernel) else {
            return Ok(false);
        };
        let max_groups = self.device.info.limits.max_compute_work_group_count[0];
        let groups = units
            .div_ceil(u64::from(builtin::LOCAL_SIZE))
            .min(u64::from(BUILTIN_MAX_GROUPS.min(max_groups))) as u32;
        let stride = u64::from(groups) * u64::from(builtin::LOCAL_SIZE);
        let push = push(stride);
        let device = Arc::clone(&self.device);
        let batch = self.recording()?;
        if batch.bound_pipeline != pipeline {
            // SAFETY: the command buffer is recording; the device owns the
            // built-in pipeline and outlives this stream.
            unsafe {
                device
                    .raw
                    .cmd_bind_pipeline(batch.cmd, vk::PipelineBindPoint::COMPUTE, pipeline)
            };
            batch.bound_pipeline = pipeline;
        }
        // SAFETY: the whole push-constant range of the built-in layout.
        unsafe {
            device.raw.cmd_push_constants(
                batch.cmd,
                layout,
                vk::ShaderStageFlags::COMPUTE,
                0,
                &push,
            )
        };
        // SAFETY: 1 <= groups <= maxComputeWorkGroupCount[0].
        unsafe { device.raw.cmd_dispatch(batch.cmd, groups, 1, 1) };
        Ok(true)
    }

    /// A memory barrier between everything recorded before and after
    /// (compute and transfer, all shader and transfer memory). It leaves
    /// the host out: the host reads a batch's results only after the
    /// timeline wait, and the barrier that ends every submission covers
    /// that. With the host in its second scope, a barrier between two
    /// dependent dispatches cost 0.65 µs more on an H100 (driver 580: a gap
    /// of 4.8 instead of 4.15 µs between the kernels, timestamps included),
    /// and the benchmark's prefix scan of six launches ran 3 % slower.
    pub fn barrier(&mut self) -> Result<()> {
        let device = Arc::clone(&self.device);
        let batch = self.recording()?;
        Self::record_barrier(&device, batch.cmd, false);
        Ok(())
    }

    /// Records a global barrier from all work to all work, and to host
    /// reads with `to_host`.
    fn record_barrier(device: &DeviceShared, cmd: vk::CommandBuffer, to_host: bool) {
        let (host_access, host_stage) = if to_host {
            (vk::AccessFlags::HOST_READ, vk::PipelineStageFlags::HOST)
        } else {
            (vk::AccessFlags::empty(), vk::PipelineStageFlags::empty())
        };
        let barrier = [vk::MemoryBarrier::default()
            .src_access_mask(WORK_WRITES)
            .dst_access_mask(
                vk::AccessFlags::SHADER_READ
                    | vk::AccessFlags::SHADER_WRITE
                    | vk::AccessFlags::TRANSFER_READ
                    | vk::AccessFlags::TRANSFER_WRITE
                    | host_access,
            )];
        // SAFETY: the caller's command buffer is recording; a global
        // memory barrier references no resource.
        unsafe {
            device.raw.cmd_pipeline_barrier(
                cmd,
                WORK_STAGES,
                WORK_STAGES | host_stage,
                vk::DependencyFlags::empty(),
                &barrier,
                &[],
                &[],
            )
        };
    }

    /// Writes the device time when every command recorded before it has
    /// finished. Needs a queue with timestamps
    /// (`Limits::timestamp_valid_bits` > 0).
    pub fn write_timestamp(&mut self) -> Result<Timestamp> {
        if self.device.info.limits.timestamp_valid_bits == 0 {
            return Err(Error::Other(
                "the compute queue does not support timestamps".to_string(),
            ));
        }
        let slot = TimestampSlot::acquire(&self.device)?;
        let device = Arc::clone(&self.device);
        let batch = self.recording()?;
        // SAFETY: the command buffer is recording; the query belongs to this
        // device and is reset in the same command buffer before the write,
        // and the batch keeps the slot from being reused until completion.
        unsafe {
            device
                .raw
                .cmd_reset_query_pool(batch.cmd, slot.pool, slot.index, 1);
            device.raw.cmd_write_timestamp(
                batch.cmd,
                vk::PipelineStageFlags::BOTTOM_OF_PIPE,
                slot.pool,
                slot.index,
            );
        }
        batch.timestamps.push(Arc::clone(&slot));
        Ok(Timestamp { slot })
    }

    /// True when nothing has been recorded since the last submit.
    pub fn is_empty(&self) -> bool {
        self.current.is_none()
    }

    /// Ends the current command buffer (if any) and submits it, waiting on
    /// every `(timeline, value)` in `waits` and signalling `signal` when done.
    /// With nothing recorded it still submits (the signal must happen).
    pub fn submit(&mut self, waits: &[(&Timeline, u64)], signal: (&Timeline, u64)) -> Result<()> {
        let mut batch = match self.current.take() {
            Some(batch) => batch,
            None => self.take_batch()?,
        };
        if batch.begun {
            if let Err(e) = self.end(&batch) {
                if self.reset(&mut batch) {
                    self.spare.push(batch);
                }
                return Err(e);
            }
        }
        self.wait_semaphores.clear();
        self.wait_values.clear();
        self.wait_stages.clear();
        for (timeline, value) in waits {
            self.wait_semaphores.push(timeline.shared.raw);
            self.wait_values.push(*value);
            self.wait_stages.push(WORK_STAGES);
            batch.timelines.push(Arc::clone(&timeline.shared));
        }
        let signal_semaphores = [signal.0.shared.raw];
        let signal_values = [signal.1];
        let mut timeline_info = vk::TimelineSemaphoreSubmitInfo::default()
            .wait_semaphore_values(&self.wait_values)
            .signal_semaphore_values(&signal_values);
        let cmds = [batch.cmd];
        let cmds: &[vk::CommandBuffer] = if batch.begun { &cmds } else { &[] };
        let submit = [vk::SubmitInfo::default()
            .wait_semaphores(&self.wait_semaphores)
            .wait_dst_stage_mask(&self.wait_stages)
            .command_buffers(cmds)
            .signal_semaphores(&signal_semaphores)
            .push_next(&mut timeline_info)];
        let submitted = {
            let queue = self.device.queue.lock();
            // SAFETY: the queue is externally synchronized by its mutex; the
            // command buffer is executable; the semaphores are timeline
            // semaphores of this device, kept alive by the batch.
            unsafe {
                self.device
                    .raw
                    .queue_submit(*queue, &submit, vk::Fence::null())
            }
        };
        if let Err(e) = submitted {
            if self.reset(&mut batch) {
                self.spare.push(batch);
            }
            return Err(vk_error("vkQueueSubmit", e));
        }
        batch.signal = Some((Arc::clone(&signal.0.shared), signal.1));
        self.in_flight.push_back(batch);
        Ok(())
    }

    /// Ends a command buffer after a full barrier: a pipeline barrier's
    /// second scope reaches every later submission to the queue, so this
    /// one orders the submission's work before all later device work, and
    /// makes its writes visible to host reads that follow the timeline
    /// wait. The runtime records no barrier of its own at the end of a
    /// batch (on lavapipe each barrier waits for the rasterizer's threads).
    fn end(&self, batch: &Batch) -> Result<()> {
        Self::record_barrier(&self.device, batch.cmd, true);
        // SAFETY: as above; recording ends once.
        unsafe { self.device.raw.end_command_buffer(batch.cmd) }
            .map_err(|e| vk_error("vkEndCommandBuffer", e))
    }
}

impl Drop for CommandStream {
    fn drop(&mut self) {
        for batch in &self.in_flight {
            if let Some((timeline, value)) = &batch.signal {
                // A pending command buffer may not be freed; a lost device
                // ends the wait with an error, after which freeing is allowed.
                let _ = timeline.wait(*value, u64::MAX);
            }
        }
        // SAFETY: no command buffer of the pool is pending (waited above);
        // destroying the pool frees them all.
        unsafe { self.device.raw.destroy_command_pool(self.pool, None) };
        // The batches, and the objects they kept alive, drop after this.
    }
}
