//! Buffer memory objects and sub-buffers, and the commands that move their
//! data: read, write, copy (linear and rectangular), fill, map and unmap.
//!
//! Each buffer is one device-local `ferrocl_vk::Buffer`; a sub-buffer shares
//! its parent's at an offset. Host data goes through staging buffers: a
//! write copies the application's bytes into a staging buffer when it is
//! enqueued (so even a non-blocking write leaves the host pointer free), a
//! read copies into a staging buffer on the GPU and into the application's
//! memory on the completion thread.

use crate::api::{handle_of, ApiHeader, ApiObject, Tag};
use crate::cl::*;
use crate::context::{Context, ObjectCallback};
use crate::event::Event;
use crate::migrate::{self, Residency, Use};
use crate::queue::{memory_key, Access, Queue, RecordFn, Recorder};
use crate::staging::{self, Staging};
use crate::vk_error;
use ferrocl_vk::{Buffer, MemoryLocation};
use parking_lot::Mutex;
use std::borrow::Cow;
use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

/// One active mapping of a buffer.
struct Mapping {
    /// The pointer the application got.
    ptr: usize,
    /// Offset and size within this memory object.
    offset: usize,
    size: usize,
    write: bool,
    /// Host-visible memory holding the mapped bytes (for `USE_HOST_PTR`,
    /// the bytes live in the application's memory and this is the way back
    /// to the device); `None` when the mapping is the buffer's own memory
    /// ([`maps_directly`]).
    staging: Option<Arc<Staging>>,
    /// [`staging::device_key`] of the device `staging` belongs to.
    device: usize,
}

/// A `cl_mem` (buffers and sub-buffers).
#[repr(C)]
pub struct Mem {
    header: ApiHeader,
    pub context: Arc<Context>,
    pub flags: cl_bitfield,
    pub size: usize,
    /// `host_ptr` of `CL_MEM_USE_HOST_PTR` (already offset for a
    /// sub-buffer), else 0.
    pub host_ptr: usize,
    pub parent: Option<Arc<Mem>>,
    /// Offset in the parent (`CL_MEM_OFFSET`).
    pub origin: usize,
    /// Offset of byte 0 within `buffer`.
    pub offset: usize,
    pub buffer: Arc<Buffer>,
    /// `CL_MEM_PROPERTIES`.
    pub properties: Vec<u64>,
    /// The format and geometry of an image; None for a buffer.
    pub image: Option<Box<crate::image::Image>>,
    maps: Mutex<Vec<Mapping>>,
    /// The staging buffer of the last unmapped mapping too large for the
    /// staging pool, and its device: the next map of this buffer takes it
    /// instead of a fresh one. Making (and so pinning) a 2 GiB staging
    /// buffer per map held clpeak's `enqueueMapBuffer` at 3.3 GB/s on an
    /// H100.
    pub(crate) map_staging: Mutex<Option<(Arc<Staging>, usize)>>,
    destructors: Mutex<Vec<(ObjectCallback, usize)>>,
    /// Per-device copies in a context with several devices
    /// (`crate::migrate`); `None` with one device, and for memory that
    /// lives on the first device only (SVM).
    pub(crate) residency: Option<crate::migrate::Residency>,
}

// SAFETY: repr(C) with the header first; the tag is unique to Mem.
unsafe impl ApiObject for Mem {
    const TAG: Tag = Tag::Mem;
    const INVALID: cl_int = CL_INVALID_MEM_OBJECT;
}

/// The alignment of every buffer's device address: the device's
/// `CL_DEVICE_MEM_BASE_ADDR_ALIGN`, which kernels may rely on (a `long16 *`
/// argument is 128-byte aligned). Vulkan's own requirement is smaller: on
/// an H100 small buffers lay 32 bytes apart, and the CTS's
/// `kernel_memory_alignment_*` tests failed.
pub(crate) fn base_alignment(device: &crate::device::Device) -> u64 {
    (u64::from(device.info().mem_base_addr_align) / 8).max(1)
}

/// Host access flags and the checks that use them.
pub const HOST_ACCESS_FLAGS: cl_bitfield =
    CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS;
/// Device access flags.
pub const DEVICE_ACCESS_FLAGS: cl_bitfield =
    CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY;

impl Mem {
    /// A buffer of `size` bytes; `host_data` is copied in
    /// (`COPY_HOST_PTR` / `USE_HOST_PTR`).
    pub fn new_buffer(
        context: Arc<Context>,
        flags: cl_bitfield,
        size: usize,
        host_ptr: *mut c_void,
        properties: Vec<u64>,
    ) -> Result<Arc<Mem>, cl_int> {
        let device = context.devices[0].backend()?;
        let buffer = Arc::new(
            device
                .create_aligned_buffer(
                    size as u64,
                    MemoryLocation::DeviceLocal,
                    base_alignment(&context.devices[0]),
                )
                .map_err(vk_error)?,
        );
        let initialized =
            flags & (CL_MEM_COPY_HOST_PTR | CL_MEM_USE_HOST_PTR) != 0 && !host_ptr.is_null();
        if initialized {
            // SAFETY: the application promises `size` readable bytes at
            // host_ptr with these flags.
            let data = unsafe { std::slice::from_raw_parts(host_ptr as *const u8, size) };
            context.upload(0, &buffer, 0, data)?;
        }
        let use_host = if flags & CL_MEM_USE_HOST_PTR != 0 {
            host_ptr as usize
        } else {
            0
        };
        let residency = Residency::new(context.devices.len(), &buffer, initialized);
        Ok(Arc::new(Mem {
            header: ApiHeader::new(Tag::Mem),
            context,
            flags,
            size,
            host_ptr: use_host,
            parent: None,
            origin: 0,
            offset: 0,
            residency,
            buffer,
            properties,
            image: None,
            maps: Mutex::new(Vec::new()),
            map_staging: Mutex::new(None),
            destructors: Mutex::new(Vec::new()),
        }))
    }

    /// An image whose pixels start at `offset` of `buffer`; `parent` is
    /// the buffer or image it was made from (`CL_MEM_ASSOCIATED_MEMOBJECT`).
    #[allow(clippy::too_many_arguments)]
    pub fn new_image(
        context: Arc<Context>,
        flags: cl_bitfield,
        size: usize,
        host_ptr: usize,
        parent: Option<Arc<Mem>>,
        offset: usize,
        buffer: Arc<Buffer>,
        properties: Vec<u64>,
        image: crate::image::Image,
    ) -> Arc<Mem> {
        // Pixels shared with a parent keep their residency on the parent.
        let initialized = flags & (CL_MEM_COPY_HOST_PTR | CL_MEM_USE_HOST_PTR) != 0;
        let residency = Residency::new(context.devices.len(), &buffer, initialized);
        Arc::new(Mem {
            header: ApiHeader::new(Tag::Mem),
            context,
            flags,
            size,
            host_ptr,
            parent,
            origin: 0,
            offset,
            buffer,
            properties,
            image: Some(Box::new(image)),
            maps: Mutex::new(Vec::new()),
            map_staging: Mutex::new(None),
            destructors: Mutex::new(Vec::new()),
            residency,
        })
    }

    /// A buffer object whose storage is `size` bytes at `offset` of an
    /// existing `buffer` of the context's first device: a coarse-grained
    /// SVM allocation (`runtime/src/svm.rs`), for its own commands and for
    /// `CL_MEM_USE_HOST_PTR` with an SVM pointer (`host_ptr` is then the
    /// SVM pointer of byte 0, `CL_MEM_HOST_PTR`), or imported external
    /// memory (`runtime/src/external_memory.rs`).
    #[allow(clippy::too_many_arguments)]
    pub fn new_over_buffer(
        context: Arc<Context>,
        flags: cl_bitfield,
        size: usize,
        host_ptr: usize,
        buffer: Arc<Buffer>,
        offset: usize,
        properties: Vec<u64>,
    ) -> Arc<Mem> {
        Arc::new(Mem {
            header: ApiHeader::new(Tag::Mem),
            context,
            flags,
            size,
            host_ptr,
            parent: None,
            origin: 0,
            offset,
            buffer,
            properties,
            image: None,
            maps: Mutex::new(Vec::new()),
            map_staging: Mutex::new(None),
            destructors: Mutex::new(Vec::new()),
            residency: None,
        })
    }

    /// `clCreateSubBuffer` with a region already checked against the
    /// parent.
    pub fn new_sub_buffer(
        parent: &Arc<Mem>,
        flags: cl_bitfield,
        origin: usize,
        size: usize,
    ) -> Arc<Mem> {
        Arc::new(Mem {
            header: ApiHeader::new(Tag::Mem),
            context: parent.context.clone(),
            flags,
            size,
            host_ptr: if parent.host_ptr != 0 {
                parent.host_ptr + origin
            } else {
                0
            },
            parent: Some(parent.clone()),
            origin,
            offset: parent.offset + origin,
            buffer: parent.buffer.clone(),
            properties: Vec::new(),
            image: None,
            maps: Mutex::new(Vec::new()),
            map_staging: Mutex::new(None),
            destructors: Mutex::new(Vec::new()),
            residency: Residency::new(parent.context.devices.len(), &parent.buffer, false),
        })
    }

    /// Checks that `queue`'s device holds this object's memory. Every
    /// buffer lives on the first device of its context; moving contents
    /// between the devices of a multi-device context is not implemented.
    pub fn check_device(&self, queue: &Queue) -> Result<(), cl_int> {
        if std::ptr::eq(&*self.context.devices[0], &*queue.device) {
            Ok(())
        } else {
            Err(CL_OUT_OF_RESOURCES)
        }
    }

    /// Device address of byte 0 of this object (a kernel argument).
    pub fn device_address(&self) -> u64 {
        self.buffer.device_address() + self.offset as u64
    }

    pub fn map_count(&self) -> usize {
        self.maps.lock().len()
    }

    /// `clSetMemObjectDestructorCallback`.
    pub fn add_destructor(&self, callback: ObjectCallback, user_data: *mut c_void) {
        self.destructors.lock().push((callback, user_data as usize));
    }
}

impl Drop for Mem {
    fn drop(&mut self) {
        let callbacks = std::mem::take(&mut *self.destructors.lock());
        let handle = handle_of(&*self);
        for (callback, user_data) in callbacks.into_iter().rev() {
            // SAFETY: registered by the application for this memory object.
            unsafe { callback(handle, user_data as *mut c_void) };
        }
    }
}

/// A rectangle of a 3D region in a linear buffer: `(origin, pitches)`,
/// already checked. Offsets in bytes: `origin[0] + origin[1] * row_pitch +
/// origin[2] * slice_pitch`.
#[derive(Clone, Copy, Debug)]
pub struct Rect {
    pub origin: [usize; 3],
    pub row_pitch: usize,
    pub slice_pitch: usize,
}

impl Rect {
    pub fn offset(&self, x: usize, y: usize, z: usize) -> usize {
        (self.origin[0] + x)
            + (self.origin[1] + y) * self.row_pitch
            + (self.origin[2] + z) * self.slice_pitch
    }

    /// `[row pitch, slice pitch]`.
    fn pitches(&self) -> [u64; 2] {
        [self.row_pitch as u64, self.slice_pitch as u64]
    }

    /// One past the last byte of `region`.
    pub fn end(&self, region: [usize; 3]) -> usize {
        self.offset(region[0], region[1] - 1, region[2] - 1)
    }

    /// The rectangle `bytes` further along its rows.
    fn shifted(self, bytes: usize) -> Rect {
        let [x, y, z] = self.origin;
        Rect {
            origin: [x + bytes, y, z],
            ..self
        }
    }
}

/// A linear region longer than one staging piece: a read or write of it
/// runs [`in_pieces`] (rectangles stay one command).
fn past_one_piece(region: [usize; 3]) -> bool {
    region[1] == 1 && region[2] == 1 && region[0] > staging::TRANSFER_PIECE
}

/// A read, write or fill of one row longer than [`staging::TRANSFER_PIECE`]: runs
/// `piece(at, len, waits)` for consecutive pieces of it, each waiting for
/// the one before (the first for `wait_list`), and answers the last one's
/// event, which completes after all of them.
fn in_pieces(
    row: usize,
    wait_list: &[Arc<Event>],
    mut piece: impl FnMut(usize, usize, &[Arc<Event>]) -> Result<Arc<Event>, cl_int>,
) -> Result<Arc<Event>, cl_int> {
    let mut last = piece(0, staging::TRANSFER_PIECE, wait_list)?;
    let mut at = staging::TRANSFER_PIECE;
    while at < row {
        let len = staging::TRANSFER_PIECE.min(row - at);
        last = piece(at, len, &[last])?;
        at += len;
    }
    Ok(last)
}

fn staging(
    recorder: &Recorder<'_>,
    size: usize,
    location: MemoryLocation,
) -> Result<Arc<Staging>, cl_int> {
    Ok(Arc::new(recorder.staging.take(size, location)?))
}

fn create_staging(
    queue: &Queue,
    size: usize,
    location: MemoryLocation,
) -> Result<Arc<Staging>, cl_int> {
    Ok(Arc::new(queue.staging().take(size, location)?))
}

fn mapped(staging: &Staging) -> Result<*mut u8, cl_int> {
    let ptr = staging.ptr();
    if ptr.is_null() {
        return Err(CL_OUT_OF_RESOURCES);
    }
    Ok(ptr)
}

/// `[row pitch, slice pitch]` of `region` packed row after row (a
/// staging buffer's).
fn packed_pitches(region: [usize; 3]) -> [u64; 2] {
    let row = region[0] as u64;
    [row, row * region[1] as u64]
}

/// Copies `region` (rows of `region[0]` bytes) from the rectangle `src` at
/// host address `from` to the rectangle `dst` at host address `to`.
fn copy_rects(from: usize, src: Rect, to: usize, dst: Rect, region: [usize; 3]) {
    for z in 0..region[2] {
        for y in 0..region[1] {
            // SAFETY: the callers checked both rectangles against their
            // memory (a buffer's mapping, or the application's pointer,
            // which it guarantees covers the rectangle).
            unsafe {
                staging::host_copy(
                    (from as *const u8).add(src.offset(0, y, z)),
                    (to as *mut u8).add(dst.offset(0, y, z)),
                    region[0],
                )
            };
        }
    }
}

/// Waits for a blocking command; an error status becomes the error the
/// spec gives blocking calls.
pub fn wait_blocking(event: &Arc<Event>) -> Result<(), cl_int> {
    if event.wait() < 0 {
        return Err(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    }
    Ok(())
}

/// `clEnqueueReadBuffer(Rect)`: GPU copy into staging, then the completion
/// thread copies row by row into `dst` (valid until the event completes, as
/// the spec requires of the application).
#[allow(clippy::too_many_arguments)]
pub fn enqueue_read(
    queue: &Arc<Queue>,
    mem: &Arc<Mem>,
    src: Rect,
    dst_ptr: usize,
    dst: Rect,
    region: [usize; 3],
    wait_list: &[Arc<Event>],
    command_type: cl_uint,
    blocking: bool,
) -> Result<Arc<Event>, cl_int> {
    // Chunks carry a read of any length; pieces are for the other paths.
    // Only a read that runs without the application goes ahead, and a
    // blocking one that does not is paced by this thread.
    let in_chunks = read_goes_in_chunks(queue, dst_ptr, dst, region);
    let mut ahead = in_chunks && queue.runs_unheld(wait_list);
    if past_one_piece(region) && !ahead && !(in_chunks && blocking) {
        return in_pieces(region[0], wait_list, |at, len, waits| {
            let (src, dst) = (src.shifted(at), dst.shifted(at));
            enqueue_read(
                queue,
                mem,
                src,
                dst_ptr,
                dst,
                [len, 1, 1],
                waits,
                command_type,
                blocking,
            )
        });
    }
    let mut waits = Cow::Borrowed(wait_list);
    let buffer = migrate::prepare(queue, mem, Use::Read, &mut waits)?;
    // A migration from another device adds to the wait list.
    if matches!(waits, Cow::Owned(_)) {
        ahead = in_chunks && queue.runs_unheld(&waits);
    }
    let wait_list = &*waits;
    // Host-cached device memory (lavapipe, unified memory): a blocking read
    // waits for the queue anyway, then copies straight out of the buffer;
    // a non-blocking one does the same when the queue is idle (on lavapipe
    // 16 GB/s where staging and chunks gave 4-5).
    // Not on an out-of-order queue: there the read waits for its wait list
    // only, and finishing the queue could wait on commands held by events
    // that the application sets after this call.
    if let (Some(base), false) = (host_accessed(&buffer), queue.out_of_order()) {
        if blocking {
            queue.finish()?;
            for dep in wait_list {
                dep.wait();
            }
        }
        let from = base.as_ptr() as usize + mem.offset;
        let copy = || copy_rects(from, src, dst_ptr, dst, region);
        if let Some(event) = queue.run_on_host_if_idle(command_type, wait_list, copy) {
            return Ok(event);
        }
    }
    let read = HostRead {
        mem: mem.clone(),
        buffer,
        src,
        dst_ptr,
        dst,
        region,
    };
    // A blocking read goes ahead too, then waits for its last chunk (2-4 %
    // faster on an H200 than pacing the chunks from the waiting thread).
    if ahead {
        let event = read_ahead_in_chunks(queue, &read, wait_list, command_type)?;
        if blocking {
            wait_blocking(&event)?;
        }
        return Ok(event);
    }
    if in_chunks && blocking {
        return read_in_chunks(queue, &read, wait_list, command_type);
    }
    if let Some(event) = read_into_imported(queue, &read, wait_list, command_type)? {
        return Ok(event);
    }
    staged_read(queue, read, wait_list, command_type)
}

/// Whether a read of `region` into the application's memory at `dst_ptr`
/// suits chunk commands ([`read_in_chunks`], [`read_ahead_in_chunks`]): a
/// linear one of two chunks or more, on an in-order queue, into memory
/// that is not a mapped staging buffer (which the device copies into
/// directly).
fn read_goes_in_chunks(queue: &Queue, dst_ptr: usize, dst: Rect, region: [usize; 3]) -> bool {
    region[1] == 1
        && region[2] == 1
        && region[0] >= 2 * READ_CHUNK
        && !queue.out_of_order()
        && !staging::host_import_requested()
        && mapped_staging_region(queue, dst_ptr, dst, region).is_none()
}

/// What a read moves: `region` from `mem` (its device copy `buffer`) at
/// `src`, into the application's memory at `dst_ptr` laid out as `dst`.
#[derive(Clone)]
struct HostRead {
    mem: Arc<Mem>,
    buffer: Arc<Buffer>,
    src: Rect,
    dst_ptr: usize,
    dst: Rect,
    region: [usize; 3],
}

/// A blocking linear read of twice this many bytes or more runs as chunks
/// of this size, so that the host copies one chunk out of staging while
/// the device copies the next one in. Measured on an H100 (128 MiB reads,
/// GB/s): 16 MiB chunks 26.1-26.3, 32 MiB 25.0-26.9, 64 MiB 21.2-26.6, and
/// one staging buffer for the whole read 18.8-19.4.
const READ_CHUNK: usize = 16 << 20;
/// Chunks of one read in flight at a time: the staging memory a read
/// holds, and how far the device may run ahead of the host copies.
const READ_CHUNKS_IN_FLIGHT: usize = 3;
/// Chunks of a read ahead ([`read_ahead_in_chunks`]) in flight at a time:
/// a chunk after these is released only once the one this many before is
/// copied out and retired, by whichever thread gets to it. H200, 512 MiB
/// non-blocking reads back to back, three rounds: 3 in flight 35.6-37.9
/// GB/s, 6 in flight 38.3-40.1.
pub const READ_AHEAD_IN_FLIGHT: usize = 6;

/// A blocking linear read as commands of [`READ_CHUNK`] bytes, each
/// submitted on its own, copied out by up to sixteen threads each
/// (`staging::host_copy`), paced by the calling thread: for a read behind
/// an event the application sets (others go ahead in chunks,
/// [`read_ahead_in_chunks`]). Before, the device copied the whole region into
/// staging and the host then copied it out: on an H100 a 128 MiB read took
/// 2.7 ms of PCIe transfer followed by 3.5-4 ms of host copy (about 20
/// GB/s), and a read past the largest pooled staging buffer imported the
/// application's pages instead (7.7 GB/s for clpeak's 2 GiB, below
/// NVIDIA's 9.5). The returned event is the last chunk's, carrying the
/// first chunk's queued, submit and start times.
fn read_in_chunks(
    queue: &Arc<Queue>,
    read: &HostRead,
    wait_list: &[Arc<Event>],
    command_type: cl_uint,
) -> Result<Arc<Event>, cl_int> {
    // Every chunk writes into `dst` when it completes, so none may be left
    // running when this call returns, even on an error.
    let chunks = Chunks {
        len: read.region[0],
        size: READ_CHUNK,
        in_flight: READ_CHUNKS_IN_FLIGHT,
        wait_for_all: true,
    };
    chunks.run(queue, wait_list, |at, len, waits| {
        let chunk = HostRead {
            src: read.src.shifted(at),
            dst: read.dst.shifted(at),
            region: [len, 1, 1],
            ..read.clone()
        };
        staged_read(queue, chunk, waits, command_type)
    })
}

/// Reads that went ahead in chunks so far in this process (a diagnostic:
/// tests check which path a read took).
static READS_AHEAD: AtomicU64 = AtomicU64::new(0);

/// How many reads [`read_ahead_in_chunks`] has run in this process.
pub fn reads_ahead_in_chunks() -> u64 {
    READS_AHEAD.load(Ordering::Relaxed)
}

/// Read-ahead chunks recorded and not yet copied out, in this process, and
/// the most there were at once since [`reset_read_ahead_peak`] (a
/// diagnostic: tests check the window of chunks in flight).
static CHUNKS_IN_FLIGHT: AtomicU64 = AtomicU64::new(0);
static CHUNKS_PEAK: AtomicU64 = AtomicU64::new(0);

/// The most read-ahead chunks that were recorded and not yet copied out at
/// one time since the last [`reset_read_ahead_peak`].
pub fn read_ahead_peak() -> u64 {
    CHUNKS_PEAK.load(Ordering::Relaxed)
}

/// Starts [`read_ahead_peak`] again from the chunks in flight now.
pub fn reset_read_ahead_peak() {
    CHUNKS_PEAK.store(CHUNKS_IN_FLIGHT.load(Ordering::Relaxed), Ordering::Relaxed);
}

/// Counts a chunk as out of flight, once: its post-action or, after a
/// failed batch, its event's listener.
fn chunk_out_of_flight(recorded: &AtomicBool) {
    if recorded.swap(false, Ordering::AcqRel) {
        CHUNKS_IN_FLIGHT.fetch_sub(1, Ordering::Relaxed);
    }
}

/// A linear read as commands of [`READ_CHUNK`] bytes that run ahead of the
/// application (a blocking read then waits for the returned event): each
/// chunk is held until the chunk [`READ_AHEAD_IN_FLIGHT`] before it on the
/// queue (of this read or of reads before it) has its bytes copied out (a
/// gate event that chunk opens), so the thread that retires the chunks
/// releases the rest as the copies out finish, and the queue's reads hold
/// that many chunks of staging however long and however many they are.
/// Reads queued back to back each kept a window of their own before: on
/// an H200, twenty 128 MiB reads and one `clFinish` ran at half the rate
/// of blocking reads, each copy out taking three times as long with twelve
/// chunks in flight. Before chunks, a non-blocking read went
/// through one staging buffer of its whole size (a fresh allocation per
/// call past the pool's largest) or imported the application's pages: on
/// an H200 2 GiB reads ran at 2.4-3.3 GB/s and 256 MiB ones at 4-6 against
/// NVIDIA's 9-11. The returned event is the last chunk's; it fails if any
/// chunk failed, and its profiling times span the whole read.
///
/// Only where the read runs without the application ([`Queue::runs_unheld`]):
/// after an error, the chunks already made are waited for, as they write
/// into `dst`.
fn read_ahead_in_chunks(
    queue: &Arc<Queue>,
    read: &HostRead,
    wait_list: &[Arc<Event>],
    command_type: cl_uint,
) -> Result<Arc<Event>, cl_int> {
    READS_AHEAD.fetch_add(1, Ordering::Relaxed);
    // Set once a chunk fails: every later chunk then fails too, so the last
    // chunk's event tells the application.
    let failed = Arc::new(AtomicBool::new(false));
    // The gates of the queue's chunks in flight, oldest first, this read's
    // and the reads' before it: locked while the chunks are enqueued, so
    // that the window's order is the queue's (a chunk waiting for the gate
    // of one enqueued after it on an in-order queue would wait forever).
    let mut window = queue.read_ahead_gates.lock();
    window.retain(|gate| !gate.is_done());
    let mut first: Option<Arc<Event>> = None;
    let mut last: Option<Arc<Event>> = None;
    for at in (0..read.region[0]).step_by(READ_CHUNK) {
        let earlier = if window.len() < READ_AHEAD_IN_FLIGHT {
            None
        } else {
            window.pop_front()
        };
        let both: Vec<Arc<Event>>;
        let waits = match (&earlier, at) {
            (Some(gate), 0) if !wait_list.is_empty() => {
                both = wait_list.iter().chain([gate]).cloned().collect();
                &both[..]
            }
            (Some(gate), _) => std::slice::from_ref(gate),
            (None, 0) => wait_list,
            (None, _) => &[],
        };
        let chunk = HostRead {
            src: read.src.shifted(at),
            dst: read.dst.shifted(at),
            region: [READ_CHUNK.min(read.region[0] - at), 1, 1],
            ..read.clone()
        };
        let (access, record) = staged_read_command(chunk);
        let gate = Event::new_gate(queue.context.clone());
        let recorded = Arc::new(AtomicBool::new(false));
        let (opened, chunk_failed, in_flight) = (gate.clone(), failed.clone(), recorded.clone());
        let record = move |r: &mut Recorder<'_>| {
            if chunk_failed.load(Ordering::Acquire) {
                return Err(CL_OUT_OF_RESOURCES);
            }
            record(r).inspect_err(|_| chunk_failed.store(true, Ordering::Release))?;
            in_flight.store(true, Ordering::Release);
            let now = CHUNKS_IN_FLIGHT.fetch_add(1, Ordering::Relaxed) + 1;
            CHUNKS_PEAK.fetch_max(now, Ordering::Relaxed);
            // Chunks released together (the first ones of a read queued
            // behind another) are submitted one by one, so each is copied
            // out as soon as the device has written it.
            r.end_batch();
            // After the copy out: whichever thread retires the chunk opens
            // the gate at once (an application thread retiring in
            // `clFinish` leaves the event's listeners to the completion
            // thread, a hand-off per chunk).
            r.after(Box::new(move || {
                chunk_out_of_flight(&in_flight);
                opened.complete(CL_COMPLETE as cl_int);
            }));
            Ok(())
        };
        let event = match queue.enqueue_with_access(command_type, waits, access, record) {
            Ok(event) => event,
            Err(code) => {
                // The chunks before this one run (or are released) without
                // the application; none may write into `dst` after this
                // call has failed.
                if let Some(last) = last {
                    last.wait();
                }
                return Err(code);
            }
        };
        // Recorded now or when released, a chunk submits its own batch
        // (`end_batch` above).
        open_when_done(&event, &gate, &failed, recorded);
        first.get_or_insert_with(|| event.clone());
        window.push_back(gate);
        last = Some(event);
    }
    let (Some(first), Some(last)) = (first, last) else {
        return Err(CL_OUT_OF_RESOURCES);
    };
    last.span_from(&first);
    Ok(last)
}

/// Opens `gate` (an event of no queue, which a later chunk waits for, held
/// by its queue until then) once `chunk` is done, marking the read
/// `failed` if it failed: the chunk's own post-action opens it on success,
/// but a failed batch runs no post-actions. The gate opens without the
/// error: the chunk waiting for it may be of a later read, which a failed
/// one must not fail (the read's own later chunks fail on `failed`).
fn open_when_done(
    chunk: &Arc<Event>,
    gate: &Arc<Event>,
    failed: &Arc<AtomicBool>,
    recorded: Arc<AtomicBool>,
) {
    let (gate, chunk_done, failed) = (gate.clone(), Arc::downgrade(chunk), failed.clone());
    chunk.on_done(Box::new(move || {
        chunk_out_of_flight(&recorded);
        // The chunk runs this as it completes, so it is still alive.
        let status = chunk_done
            .upgrade()
            .map_or(CL_COMPLETE as cl_int, |c| c.status());
        if status < 0 {
            failed.store(true, Ordering::Release);
        }
        gate.complete(CL_COMPLETE as cl_int);
    }));
}

/// A transfer of `len` bytes as commands of `size` bytes, each submitted
/// as it is made: once more than `in_flight` are pending, the oldest is
/// waited for before the next is made. With `wait_for_all`, every chunk
/// is waited for before this returns; otherwise only on an error (after
/// which none may still be running).
struct Chunks {
    len: usize,
    size: usize,
    in_flight: usize,
    wait_for_all: bool,
}

impl Chunks {
    /// Runs `chunk(at, len, waits)` for each chunk (the first waits for
    /// `wait_list`, the rest follow it on the in-order queue). Returns the
    /// last chunk's event, carrying the first chunk's queued, submit and
    /// start times.
    fn run(
        &self,
        queue: &Arc<Queue>,
        wait_list: &[Arc<Event>],
        mut chunk: impl FnMut(usize, usize, &[Arc<Event>]) -> Result<Arc<Event>, cl_int>,
    ) -> Result<Arc<Event>, cl_int> {
        let mut pending = std::collections::VecDeque::with_capacity(self.in_flight + 1);
        let mut first: Option<Arc<Event>> = None;
        let mut last: Option<Arc<Event>> = None;
        let mut result = Ok(());
        for at in (0..self.len).step_by(self.size) {
            let waits = if at == 0 { wait_list } else { &[] };
            let event = match chunk(at, self.size.min(self.len - at), waits) {
                Ok(event) => event,
                Err(code) => {
                    result = Err(code);
                    break;
                }
            };
            queue.flush();
            first.get_or_insert_with(|| event.clone());
            last = Some(event.clone());
            pending.push_back(event);
            if pending.len() > self.in_flight {
                if let Some(oldest) = pending.pop_front() {
                    result = wait_blocking(&oldest);
                    if result.is_err() {
                        break;
                    }
                }
            }
        }
        if self.wait_for_all || result.is_err() {
            for event in pending {
                let waited = wait_blocking(&event);
                result = result.and(waited);
            }
        }
        result?;
        let (Some(first), Some(last)) = (first, last) else {
            return Err(CL_OUT_OF_RESOURCES);
        };
        last.take_start_from(&first);
        Ok(last)
    }
}

/// A read through a staging buffer: the device copies the region into it,
/// and the host copies it out into `dst` when the command completes.
fn staged_read(
    queue: &Arc<Queue>,
    read: HostRead,
    wait_list: &[Arc<Event>],
    command_type: cl_uint,
) -> Result<Arc<Event>, cl_int> {
    let (access, record) = staged_read_command(read);
    queue.enqueue_with_access(command_type, wait_list, access, record)
}

/// The memory use and the recording of a [`staged_read`].
fn staged_read_command(
    read: HostRead,
) -> (
    Access,
    impl FnOnce(&mut Recorder<'_>) -> Result<(), cl_int> + Send + 'static,
) {
    let HostRead {
        mem,
        buffer,
        src,
        dst_ptr,
        dst,
        region,
    } = read;
    // Staging memory is the command's own until it completes: only the
    // memory object counts for hazards.
    let access = Access::Buffers {
        reads: vec![memory_key(&mem.buffer)],
        writes: Vec::new(),
    };
    let record = move |r: &mut Recorder<'_>| {
        r.keep(mem.clone());
        let row = region[0];
        let total = row * region[1] * region[2];
        let stage = staging(r, total, MemoryLocation::DeviceToHost)?;
        // Kept before anything is recorded: the buffer may only go back to
        // the pool once every copy into it has run.
        r.keep(stage.clone());
        r.stream
            .copy_buffer_rect(
                &buffer,
                (mem.offset + src.offset(0, 0, 0)) as u64,
                src.pitches(),
                stage.buffer(),
                0,
                packed_pitches(region),
                region.map(|d| d as u64),
            )
            .map_err(vk_error)?;
        let stage_ptr = mapped(&stage)? as usize;
        r.after(Box::new(move || {
            let mut at = 0usize;
            for z in 0..region[2] {
                for y in 0..region[1] {
                    // SAFETY: the staging buffer holds `total` bytes; the
                    // application keeps dst valid for the region until
                    // the command completes.
                    unsafe {
                        staging::host_copy(
                            (stage_ptr as *const u8).add(at),
                            (dst_ptr as *mut u8).add(dst.offset(0, y, z)),
                            row,
                        )
                    };
                    at += row;
                }
            }
            drop(stage);
        }));
        Ok(())
    };
    (access, record)
}

/// A linear region between the application's memory at `host` and `mem`
/// as a buffer the GPU copies to or from directly: the staging buffer of a
/// live mapping when `host` points into one (mapped `ALLOC_HOST_PTR`
/// memory), else, from [`staging::IMPORT_MIN_BYTES`] on, the application's
/// own pages imported. `None` when the region is not one contiguous run or
/// neither applies.
fn imported_host_region(
    queue: &Queue,
    host: usize,
    host_rect: Rect,
    region: [usize; 3],
) -> Result<Option<(Arc<Buffer>, u64)>, cl_int> {
    if let Some(found) = mapped_staging_region(queue, host, host_rect, region) {
        return Ok(Some(found));
    }
    if region[1] != 1 || region[2] != 1 || region[0] < staging::IMPORT_MIN_BYTES {
        return Ok(None);
    }
    let start = host + host_rect.offset(0, 0, 0);
    let device = queue.device.backend()?;
    // SAFETY: the application keeps `region[0]` bytes at `start` valid
    // until the command completes; the buffer is kept alive by the command
    // and dropped only after it has completed.
    Ok(unsafe { staging::import_host_range(device, start, region[0]) })
}

/// The mapped staging buffer (pinned memory) that holds a linear host
/// region, and the region's offset in it.
fn mapped_staging_region(
    queue: &Queue,
    host: usize,
    host_rect: Rect,
    region: [usize; 3],
) -> Option<(Arc<Buffer>, u64)> {
    if region[1] != 1 || region[2] != 1 {
        return None;
    }
    let start = host + host_rect.offset(0, 0, 0);
    staging::mapped_staging(start, region[0], staging::device_key(&queue.device))
}

/// `clEnqueueReadBuffer` of a large linear region: a GPU copy into the
/// application's imported pages; `None` when they cannot be imported.
fn read_into_imported(
    queue: &Arc<Queue>,
    read: &HostRead,
    wait_list: &[Arc<Event>],
    command_type: cl_uint,
) -> Result<Option<Arc<Event>>, cl_int> {
    let Some((host, at)) = imported_host_region(queue, read.dst_ptr, read.dst, read.region)? else {
        return Ok(None);
    };
    let (mem, buffer, src, len) = (
        read.mem.clone(),
        read.buffer.clone(),
        read.src,
        read.region[0],
    );
    let record = move |r: &mut Recorder<'_>| {
        r.keep(mem.clone());
        r.keep(host.clone());
        let from = (mem.offset + src.offset(0, 0, 0)) as u64;
        r.stream
            .copy_buffer(&buffer, from, &host, at, len as u64)
            .map_err(vk_error)
    };
    queue.enqueue(command_type, wait_list, record).map(Some)
}

/// `clEnqueueWriteBuffer(Rect)`: the bytes are copied into staging now.
#[allow(clippy::too_many_arguments)]
pub fn enqueue_write(
    queue: &Arc<Queue>,
    mem: &Arc<Mem>,
    dst: Rect,
    src_ptr: usize,
    src: Rect,
    region: [usize; 3],
    wait_list: &[Arc<Event>],
    command_type: cl_uint,
) -> Result<Arc<Event>, cl_int> {
    if past_one_piece(region) {
        return in_pieces(region[0], wait_list, |at, len, waits| {
            let (dst, src) = (dst.shifted(at), src.shifted(at));
            enqueue_write(
                queue,
                mem,
                dst,
                src_ptr,
                src,
                [len, 1, 1],
                waits,
                command_type,
            )
        });
    }
    let mut waits = Cow::Borrowed(wait_list);
    let buffer = migrate::prepare(queue, mem, Use::Update, &mut waits)?;
    let wait_list = &*waits;
    // A large write into device memory from pageable memory: staged in
    // host memory chunk by chunk, the host copying one while the device
    // copies the one before (pinned sources go by DMA below). The call
    // waits for its early chunks, so only where nothing it follows waits
    // for the application (a user event): a non-blocking write returns.
    // The mapped ALLOC_HOST_PTR staging buffer (pinned memory) that holds
    // a large linear source.
    let pinned = (region[0] >= staging::IMPORT_MIN_BYTES)
        .then(|| mapped_staging_region(queue, src_ptr, src, region))
        .flatten();
    let linear = region[1] == 1 && region[2] == 1;
    if linear
        && region[0] >= 2 * WRITE_CHUNK
        && !queue.out_of_order()
        && !staging::host_import_requested()
        && writes_in_chunks(buffer.host_cached())
        && pinned.is_none()
        && queue.runs_unheld(wait_list)
    {
        let write = HostWrite {
            mem: mem.clone(),
            buffer: buffer.clone(),
            dst,
            src_ptr,
            src,
            len: region[0],
        };
        return write_in_chunks(queue, &write, wait_list, command_type);
    }
    // Large regions into memory the host cannot write at memory speed
    // (device-local, or write-combined over PCIe): the GPU copies from the
    // application's own pages by DMA, with no host copy (the application
    // may not touch them until the command completes).
    // Mapped device memory (resizable BAR) takes a parallel host copy at
    // about 30 GB/s on an H100, faster than importing pageable pages (about
    // 9 GB/s), so it is imported into only on request.
    // Except from pinned memory (a mapped ALLOC_HOST_PTR staging buffer):
    // the copy engine reads that at link speed, 50 GB/s on an H100 against
    // the host copy's 30, once the region outweighs a submission.
    let in_place = buffer.mapped_ptr().is_some() && !staging::host_import_requested();
    let imported = if buffer.host_cached() {
        None
    } else if in_place || pinned.is_some() {
        // Only linear regions lie in a mapping, so the row is the size.
        pinned
    } else {
        imported_host_region(queue, src_ptr, src, region)?
    };
    if let Some((host, at)) = imported {
        let (mem, buffer) = (mem.clone(), buffer.clone());
        let record = move |r: &mut Recorder<'_>| {
            r.keep(mem.clone());
            r.keep(host.clone());
            let to = (mem.offset + dst.offset(0, 0, 0)) as u64;
            r.stream
                .copy_buffer(&host, at, &buffer, to, region[0] as u64)
                .map_err(vk_error)
        };
        return queue.enqueue(command_type, wait_list, record);
    }
    // Host-visible device memory on an idle queue: written in place.
    if let Some(base) = buffer.mapped_ptr() {
        let to = base.as_ptr() as usize + mem.offset;
        let copy = || copy_rects(src_ptr, src, to, dst, region);
        if let Some(event) = queue.run_on_host_if_idle(command_type, wait_list, copy) {
            return Ok(event);
        }
    }
    let row = region[0];
    let total = row * region[1] * region[2];
    let stage = create_staging(queue, total, MemoryLocation::HostToDevice)?;
    let stage_ptr = mapped(&stage)?;
    let mut at = 0usize;
    for z in 0..region[2] {
        for y in 0..region[1] {
            // SAFETY: the application gives readable bytes over the source
            // rectangle; the staging buffer holds `total` bytes.
            unsafe {
                staging::host_copy(
                    (src_ptr as *const u8).add(src.offset(0, y, z)),
                    stage_ptr.add(at),
                    row,
                )
            };
            at += row;
        }
    }
    let mem = mem.clone();
    let access = Access::writes_to(&mem.buffer);
    let record = move |r: &mut Recorder<'_>| {
        r.keep(mem.clone());
        r.keep(stage.clone());
        r.stream
            .copy_buffer_rect(
                stage.buffer(),
                0,
                packed_pitches(region),
                &buffer,
                (mem.offset + dst.offset(0, 0, 0)) as u64,
                dst.pitches(),
                region.map(|d| d as u64),
            )
            .map_err(vk_error)
    };
    queue.enqueue_with_access(command_type, wait_list, access, record)
}

/// A linear write of twice this many bytes or more into memory the host
/// cannot write at memory speed runs as chunks of this size: the host
/// copies a chunk into host-memory staging while the device copies the
/// one before into the buffer.
const WRITE_CHUNK: usize = 16 << 20;
/// Chunks of one write left pending before the oldest is waited for: the
/// staging memory a write holds.
const WRITE_CHUNKS_IN_FLIGHT: usize = 3;

/// Whether a large linear write into a buffer goes in chunks
/// ([`write_in_chunks`]): where the buffer's memory is not host-cached
/// (device memory, written by the host over PCIe at about 32 GB/s on an
/// H200, where its DMA reads host memory at 51). `FERROCL_WRITE_CHUNKS=on`
/// or `=off` chooses for every buffer, to compare the two and to test the
/// path on a device whose memory is all host memory.
fn writes_in_chunks(host_cached: bool) -> bool {
    crate::device::code_shape("FERROCL_WRITE_CHUNKS", ["on", "off"], !host_cached)
}

/// Writes that went in chunks so far in this process (a diagnostic: tests
/// check which path a write took).
static CHUNKED_WRITES: AtomicU64 = AtomicU64::new(0);

/// How many writes [`write_in_chunks`] has run in this process.
pub fn chunked_writes() -> u64 {
    CHUNKED_WRITES.load(Ordering::Relaxed)
}

/// What a write moves: `len` bytes from the application's memory at
/// `src_ptr` (rectangle `src`) into `mem` (its device copy `buffer`) at
/// `dst`.
struct HostWrite {
    mem: Arc<Mem>,
    buffer: Arc<Buffer>,
    dst: Rect,
    src_ptr: usize,
    src: Rect,
    len: usize,
}

/// A linear write as commands of [`WRITE_CHUNK`] bytes, each copied by the
/// host (`staging::host_copy`, up to sixteen threads) into staging in host
/// memory and submitted at once ([`Chunks`]); the bytes are all copied
/// when this returns, as for any write. The returned event is the last
/// chunk's, carrying the first chunk's queued, submit and start times.
fn write_in_chunks(
    queue: &Arc<Queue>,
    write: &HostWrite,
    wait_list: &[Arc<Event>],
    command_type: cl_uint,
) -> Result<Arc<Event>, cl_int> {
    CHUNKED_WRITES.fetch_add(1, Ordering::Relaxed);
    // The bytes are all copied when the last chunk is made: the chunks
    // need not be waited for (after an error, none is left running).
    let chunks = Chunks {
        len: write.len,
        size: WRITE_CHUNK,
        in_flight: WRITE_CHUNKS_IN_FLIGHT,
        wait_for_all: false,
    };
    chunks.run(queue, wait_list, |at, len, waits| {
        write_chunk(queue, write, at, len, waits, command_type)
    })
}

/// One chunk of [`write_in_chunks`]: `len` bytes at `at`.
fn write_chunk(
    queue: &Arc<Queue>,
    write: &HostWrite,
    at: usize,
    len: usize,
    wait_list: &[Arc<Event>],
    command_type: cl_uint,
) -> Result<Arc<Event>, cl_int> {
    let stage = create_staging(queue, len, MemoryLocation::DeviceToHost)?;
    // SAFETY: the application gives `write.len` readable bytes at the
    // source, of which this chunk is a part; the staging buffer holds
    // `len` bytes.
    unsafe {
        staging::host_copy(
            (write.src_ptr as *const u8).add(write.src.shifted(at).offset(0, 0, 0)),
            mapped(&stage)?,
            len,
        )
    };
    let (mem, buffer) = (write.mem.clone(), write.buffer.clone());
    let to = (mem.offset + write.dst.shifted(at).offset(0, 0, 0)) as u64;
    let access = Access::writes_to(&mem.buffer);
    let record = move |r: &mut Recorder<'_>| {
        r.keep(mem.clone());
        r.keep(stage.clone());
        r.stream
            .copy_buffer(stage.buffer(), 0, &buffer, to, len as u64)
            .map_err(vk_error)
    };
    queue.enqueue_with_access(command_type, wait_list, access, record)
}

/// `clEnqueueCopyBuffer(Rect)`.
#[allow(clippy::too_many_arguments)]
pub fn enqueue_copy(
    queue: &Arc<Queue>,
    src_mem: &Arc<Mem>,
    src: Rect,
    dst_mem: &Arc<Mem>,
    dst: Rect,
    region: [usize; 3],
    wait_list: &[Arc<Event>],
    command_type: cl_uint,
) -> Result<Arc<Event>, cl_int> {
    let mut waits = Cow::Borrowed(wait_list);
    let src_buffer = migrate::prepare(queue, src_mem, Use::Read, &mut waits)?;
    let dst_buffer = migrate::prepare(queue, dst_mem, Use::Update, &mut waits)?;
    let wait_list = &*waits;
    let (src_mem, dst_mem) = (src_mem.clone(), dst_mem.clone());
    let access = Access::Buffers {
        reads: vec![memory_key(&src_mem.buffer)],
        writes: vec![memory_key(&dst_mem.buffer)],
    };
    let record = move |r: &mut Recorder<'_>| {
        r.keep(src_mem.clone());
        r.keep(dst_mem.clone());
        let row = region[0] as u64;
        if region[1] == 1 && region[2] == 1 {
            let from = (src_mem.offset + src.offset(0, 0, 0)) as u64;
            let to = (dst_mem.offset + dst.offset(0, 0, 0)) as u64;
            r.stream
                .copy_buffer(&src_buffer, from, &dst_buffer, to, row)
                .map_err(vk_error)?;
        } else {
            r.stream
                .copy_buffer_rect(
                    &src_buffer,
                    (src_mem.offset + src.offset(0, 0, 0)) as u64,
                    src.pitches(),
                    &dst_buffer,
                    (dst_mem.offset + dst.offset(0, 0, 0)) as u64,
                    dst.pitches(),
                    region.map(|d| d as u64),
                )
                .map_err(vk_error)?;
        }
        Ok(())
    };
    queue.enqueue_with_access(command_type, wait_list, access, record)
}

/// `clEnqueueFillBuffer`: `vkCmdFillBuffer` when the pattern repeats every
/// 4 bytes and the range is 4-byte aligned, else a staging buffer holding
/// the repeated pattern.
pub fn enqueue_fill(
    queue: &Arc<Queue>,
    mem: &Arc<Mem>,
    pattern: &[u8],
    offset: usize,
    size: usize,
    wait_list: &[Arc<Event>],
) -> Result<Arc<Event>, cl_int> {
    // A piece is a power of two, so every piece holds whole patterns.
    if size > staging::TRANSFER_PIECE {
        return in_pieces(size, wait_list, |at, len, waits| {
            enqueue_fill(queue, mem, pattern, offset + at, len, waits)
        });
    }
    let mut waits = Cow::Borrowed(wait_list);
    let buffer = migrate::prepare(queue, mem, Use::Update, &mut waits)?;
    let wait_list = &*waits;
    let mem = mem.clone();
    let start = mem.offset + offset;
    let word = match pattern.len() {
        1 => Some(u32::from_ne_bytes([pattern[0]; 4])),
        2 => Some(u32::from_ne_bytes([
            pattern[0], pattern[1], pattern[0], pattern[1],
        ])),
        4 => Some(u32::from_ne_bytes([
            pattern[0], pattern[1], pattern[2], pattern[3],
        ])),
        _ => None,
    };
    let access = Access::writes_to(&mem.buffer);
    let record: RecordFn = match word {
        Some(value) if start.is_multiple_of(4) && size.is_multiple_of(4) => {
            Box::new(move |r: &mut Recorder<'_>| {
                r.keep(mem.clone());
                r.stream
                    .fill_buffer(&buffer, start as u64, size as u64, value)
                    .map_err(vk_error)?;
                Ok(())
            })
        }
        _ => {
            let stage = create_staging(queue, size, MemoryLocation::HostToDevice)?;
            let ptr = mapped(&stage)?;
            for i in (0..size).step_by(pattern.len()) {
                // SAFETY: `size` is a multiple of the pattern size (checked
                // by the caller) and the staging buffer holds `size` bytes.
                unsafe {
                    std::ptr::copy_nonoverlapping(pattern.as_ptr(), ptr.add(i), pattern.len())
                };
            }
            Box::new(move |r: &mut Recorder<'_>| {
                r.keep(mem.clone());
                r.keep(stage.clone());
                r.stream
                    .copy_buffer(stage.buffer(), 0, &buffer, start as u64, size as u64)
                    .map_err(vk_error)?;
                Ok(())
            })
        }
    };
    queue.enqueue_with_access(CL_COMMAND_FILL_BUFFER, wait_list, access, record)
}

/// `clEnqueueMapBuffer`: returns the host pointer at once; its contents are
/// valid once the event completes.
pub fn enqueue_map(
    queue: &Arc<Queue>,
    mem: &Arc<Mem>,
    map_flags: cl_bitfield,
    offset: usize,
    size: usize,
    wait_list: &[Arc<Event>],
) -> Result<(Arc<Event>, *mut c_void), cl_int> {
    let mut waits = Cow::Borrowed(wait_list);
    let buffer = migrate::prepare(queue, mem, Use::Read, &mut waits)?;
    let wait_list = &*waits;
    let device = staging::device_key(&queue.device);
    if let Some(base) = maps_directly(mem, &buffer) {
        return map_directly(queue, mem, map_flags, offset, size, wait_list, base);
    }
    let stage = match kept_map_staging(mem, size, device) {
        Some(stage) => stage,
        None => create_staging(queue, size, MemoryLocation::DeviceToHost)?,
    };
    let stage_ptr = mapped(&stage)? as usize;
    let ptr = if mem.host_ptr != 0 {
        mem.host_ptr + offset
    } else {
        stage_ptr
    };
    let write = map_flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION) != 0;
    let fetch = map_flags & CL_MAP_WRITE_INVALIDATE_REGION == 0;
    if ptr == stage_ptr {
        staging::register_mapping(
            ptr,
            size,
            stage.buffer(),
            staging::device_key(&queue.device),
        );
    }
    mem.maps.lock().push(Mapping {
        ptr,
        offset,
        size,
        write,
        staging: Some(stage.clone()),
        device,
    });
    let mem2 = mem.clone();
    let record = move |r: &mut Recorder<'_>| {
        r.keep(mem2.clone());
        r.keep(stage.clone());
        if fetch && size > 0 {
            let from = (mem2.offset + offset) as u64;
            r.stream
                .copy_buffer(&buffer, from, stage.buffer(), 0, size as u64)
                .map_err(vk_error)?;
            if ptr != stage_ptr {
                r.after(Box::new(move || {
                    // SAFETY: USE_HOST_PTR memory is the application's and
                    // covers the buffer; staging holds `size` bytes.
                    unsafe {
                        std::ptr::copy_nonoverlapping(stage_ptr as *const u8, ptr as *mut u8, size)
                    };
                }));
            }
        }
        Ok(())
    };
    match queue.enqueue(map_command(mem), wait_list, record) {
        Ok(event) => Ok((event, ptr as *mut c_void)),
        Err(code) => {
            forget_mapping(mem, ptr);
            if ptr == stage_ptr {
                staging::unregister_mapping(ptr);
            }
            Err(code)
        }
    }
}

fn map_command(mem: &Mem) -> cl_uint {
    if mem.image.is_some() {
        CL_COMMAND_MAP_IMAGE
    } else {
        CL_COMMAND_MAP_BUFFER
    }
}

/// The host address of byte 0 of `mem` in `buffer`, its device copy, when a
/// map of `mem` is that memory itself: a buffer or image without
/// `USE_HOST_PTR` (whose mapping is the application's memory) in
/// host-cached memory (lavapipe, unified memory), which the host reads and
/// writes at memory speed and which is always coherent here (`ferrocl_vk`
/// offers no other mapping). An image's bytes lie in its buffer at the
/// pitches its map returns, as in a staged map's copy of them. On
/// lavapipe a blocking map of 128 MiB ran at 6.6 GB/s through staging.
fn maps_directly(mem: &Mem, buffer: &Buffer) -> Option<usize> {
    let base = host_accessed(buffer)?;
    (mem.host_ptr == 0).then(|| base.as_ptr() as usize + mem.offset)
}

/// The mapping of `buffer` when the host reads and maps it directly: its
/// memory is host-cached (lavapipe, unified memory). Uncached mappings
/// (resizable BAR on a discrete GPU) are fast to write but not to read:
/// host reads across PCIe ran at 20-40 MB/s on an H100.
/// `FERROCL_DIRECT_ACCESS=off` reads and maps through staging everywhere,
/// as on a discrete GPU (tests use it to run that path on lavapipe).
fn host_accessed(buffer: &Buffer) -> Option<std::ptr::NonNull<u8>> {
    // Read once: every read and map on lavapipe asks.
    static DIRECT: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    let direct = || {
        *DIRECT
            .get_or_init(|| crate::device::code_shape("FERROCL_DIRECT_ACCESS", ["on", "off"], true))
    };
    buffer
        .mapped_ptr()
        .filter(|_| buffer.host_cached() && direct())
}

/// Maps that were the buffer's own memory so far in this process (a
/// diagnostic: tests check which path a map took).
static DIRECT_MAPS: AtomicU64 = AtomicU64::new(0);

/// How many maps [`map_directly`] has made in this process.
pub fn direct_maps() -> u64 {
    DIRECT_MAPS.load(Ordering::Relaxed)
}

/// A map whose pointer is the buffer's own memory at `base` (see
/// [`maps_directly`]): the command only orders the map after the commands
/// before it, whose writes the end of their batch makes visible to the
/// host.
fn map_directly(
    queue: &Arc<Queue>,
    mem: &Arc<Mem>,
    map_flags: cl_bitfield,
    offset: usize,
    size: usize,
    wait_list: &[Arc<Event>],
    base: usize,
) -> Result<(Arc<Event>, *mut c_void), cl_int> {
    DIRECT_MAPS.fetch_add(1, Ordering::Relaxed);
    let ptr = base + offset;
    mem.maps.lock().push(Mapping {
        ptr,
        offset,
        size,
        write: map_flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION) != 0,
        staging: None,
        device: staging::device_key(&queue.device),
    });
    let access = Access::Buffers {
        reads: vec![memory_key(&mem.buffer)],
        writes: Vec::new(),
    };
    let kept = mem.clone();
    let record = move |r: &mut Recorder<'_>| {
        r.keep(kept);
        Ok(())
    };
    match queue.enqueue_with_access(map_command(mem), wait_list, access, record) {
        Ok(event) => Ok((event, ptr as *mut c_void)),
        Err(code) => {
            forget_mapping(mem, ptr);
            Err(code)
        }
    }
}

/// Takes back the latest mapping of `mem` at `ptr`, whose map failed.
fn forget_mapping(mem: &Mem, ptr: usize) {
    let mut maps = mem.maps.lock();
    if let Some(i) = maps.iter().rposition(|m| m.ptr == ptr) {
        maps.remove(i);
    }
}

/// The staging buffer that `mem` kept from its last large mapping, if it
/// holds `size` bytes on `device` and `size` is past what the staging pool
/// keeps (smaller maps take a pooled buffer). It may still be in use by
/// that mapping's unmap: the unmap writes `mem` and the map reads it, so a
/// queue orders the map's copy after the unmap's, and across queues the
/// application must order them.
fn kept_map_staging(mem: &Mem, size: usize, device: usize) -> Option<Arc<Staging>> {
    if staging::pooled(size as u64) {
        return None;
    }
    let (stage, on) = mem.map_staging.lock().take()?;
    (on == device && stage.buffer().size() >= size as u64).then_some(stage)
}

/// `clEnqueueUnmapMemObject`: copies back what was mapped for writing.
/// `CL_INVALID_VALUE` when `ptr` is not a mapping of `mem`.
pub fn enqueue_unmap(
    queue: &Arc<Queue>,
    mem: &Arc<Mem>,
    ptr: *mut c_void,
    wait_list: &[Arc<Event>],
) -> Result<Arc<Event>, cl_int> {
    let write = {
        let maps = mem.maps.lock();
        let mapping = maps.iter().find(|m| m.ptr == ptr as usize);
        mapping.ok_or(CL_INVALID_VALUE)?.write
    };
    let mut waits = Cow::Borrowed(wait_list);
    let buffer = if write {
        Some(migrate::prepare(queue, mem, Use::Update, &mut waits)?)
    } else {
        None
    };
    let wait_list = &*waits;
    let mapping = {
        let mut maps = mem.maps.lock();
        let i = maps
            .iter()
            .position(|m| m.ptr == ptr as usize)
            .ok_or(CL_INVALID_VALUE)?;
        maps.remove(i)
    };
    staging::unregister_mapping(ptr as usize);
    let same_device = mapping.device == staging::device_key(&queue.device);
    if let Some(stage) = mapping
        .staging
        .as_ref()
        .filter(|s| !staging::pooled(s.buffer().size()))
    {
        *mem.map_staging.lock() = Some((stage.clone(), mapping.device));
    }
    // The buffer's own memory, mapped on this device: the host's writes
    // are there already, and visible to the commands submitted after this
    // one.
    let buffer = buffer.filter(|_| mapping.staging.is_some() || !same_device);
    let mem = mem.clone();
    let record = move |r: &mut Recorder<'_>| {
        r.keep(mem.clone());
        if let Some(stage) = &mapping.staging {
            r.keep(stage.clone());
        }
        if let (Some(buffer), true) = (buffer, mapping.size > 0) {
            // A mapping made through another device's queue has its
            // staging buffer (or is the buffer) on that Vulkan device: the
            // bytes go back through one of this queue's.
            let stage = match (&mapping.staging, same_device) {
                (Some(stage), true) => stage.clone(),
                _ => staging(r, mapping.size, MemoryLocation::HostToDevice)?,
            };
            r.keep(stage.clone());
            let stage_ptr = mapped(&stage)?;
            if stage_ptr as usize != mapping.ptr {
                // SAFETY: the mapped region (the application's USE_HOST_PTR
                // memory, or the mapping's staging buffer) holds `size`
                // bytes, and so does `stage`.
                unsafe {
                    std::ptr::copy_nonoverlapping(mapping.ptr as *const u8, stage_ptr, mapping.size)
                };
            }
            let to = (mem.offset + mapping.offset) as u64;
            r.stream
                .copy_buffer(stage.buffer(), 0, &buffer, to, mapping.size as u64)
                .map_err(vk_error)?;
        }
        Ok(())
    };
    queue.enqueue(CL_COMMAND_UNMAP_MEM_OBJECT, wait_list, record)
}
