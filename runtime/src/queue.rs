//! Command queues (in order and out of order): recording at enqueue time,
//! batched submission, host-side holding of commands that wait on user
//! events, and a completion thread per queue.
//!
//! Each command is recorded into the queue's [`CommandStream`] when it is
//! enqueued, and its event joins the current batch. A barrier goes before a
//! command only where it must wait for earlier device work (DESIGN.md):
//!
//! - In order: where the command's [`Access`] conflicts with what commands
//!   since the last barrier read or wrote (read after write, write after
//!   read, write after write, per memory object; reads after reads need
//!   none), or where either side's access is not known.
//! - Out of order: where the command waits for an event of this queue
//!   recorded since the last barrier, and for every barrier command;
//!   commands without dependencies overlap on the GPU.
//!
//! Each batch ends with a barrier, so that hazards never span submissions.
//!
//! A batch is submitted on `clFlush`, `clFinish`, a blocking call, a wait on one
//! of its events, once it holds [`BATCH_LIMIT`] commands, or once it holds
//! [`IDLE_BATCH`] while the queue has nothing left on the device; it signals the
//! queue's timeline with the next value. Submitted batches are retired in
//! order: the batch's post-actions run (copies into the application's
//! memory), its events complete, and what its commands kept alive is
//! dropped. The queue's completion thread waits for the oldest batch and
//! retires it; a thread that waits for a command (`clFinish`,
//! `clWaitForEvents`, a blocking call) waits on the timeline itself and
//! retires what has finished, leaving only event callbacks to the
//! completion thread, so that a short command's round trip involves no
//! hand-off between threads. Emptied batches and the events of completed
//! commands nobody holds are reused: a steady stream of kernel launches
//! allocates nothing.
//!
//! Every OpenCL queue shares the device's one `VkQueue`, so a batch must
//! never wait on the GPU for something only the host can signal (a user
//! event, or a command that is itself held back): such commands, and in an
//! in-order queue everything after them, wait on the host in `held` until
//! their dependencies are done. Dependencies on another queue's submitted
//! commands are timeline waits on the GPU; the dependent batch's events
//! become running and complete only after those commands' events are
//! complete, so the application never sees a command finish before what it
//! waited for.

use crate::api::{ApiHeader, ApiObject, Tag};
use crate::cl::*;
use crate::context::Context;
use crate::device::Device;
use crate::event::{host_time_ns, Event};
use crate::printf::PrintfPool;
use crate::staging::StagingPool;
use crate::vk_error;
use ferrocl_vk::{Buffer, CommandStream, MemoryLocation, Timeline, Timestamp};
use parking_lot::{Condvar, Mutex, MutexGuard};
use std::any::Any;
use std::cell::Cell;
use std::collections::{HashSet, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

/// Commands per batch before the queue submits on its own.
pub const BATCH_LIMIT: usize = 32;

/// Commands in a batch that the queue submits at once when every batch
/// it submitted before has finished, so that an idle device starts on a
/// stream of commands as it begins instead of after [`BATCH_LIMIT`] of
/// them are recorded (on an H200, 32 launches take the host about 45 µs
/// to enqueue, time the device sat idle at the start of each stream).
/// Two, not one: a lone command that `clFinish` follows is submitted by
/// the waiting thread, which leaves the completion thread asleep; waking
/// it from the enqueue made that round trip 1.5-2 µs longer. The batch
/// after such a one waits for [`BATCH_LIMIT`] (or a flush, or a wait):
/// where the device runs commands faster than the host enqueues them, it
/// would otherwise catch up with every batch, and each would go out at
/// two commands, a `vkQueueSubmit` for every two launches.
pub const IDLE_BATCH: usize = 2;

/// Submitted batches a queue lets wait for the device: an application that
/// enqueues faster than the device runs waits in the enqueue call that
/// would submit one more (the oldest is retired on its thread), which
/// bounds the memory the pending commands hold and the batches a queue
/// keeps for reuse ([`BATCHES_ALIVE`]).
pub const MAX_IN_FLIGHT: u64 = 16;

/// The name of every queue's completion thread.
const COMPLETION_THREAD: &str = "ferrocl-completion";

/// The most batches of a queue alive at once: [`MAX_IN_FLIGHT`] not yet
/// retired, one more just submitted before its enqueue call waits for
/// the oldest, and the one being recorded. A queue makes this many
/// batches when it is created, their command buffers with its first
/// batch and their events with its first command, so that how the
/// device's pace spreads a stream of commands over batches never makes
/// an enqueue allocate.
const BATCHES_ALIVE: usize = MAX_IN_FLIGHT as usize + 2;

/// Completed command events kept for reuse (see `Event::into_spare`): as
/// many as the batches alive hold.
const SPARE_EVENTS: usize = BATCHES_ALIVE * BATCH_LIMIT;

/// Bytes per chunk of the argument ring.
const ARG_CHUNK: u64 = 64 * 1024;

/// Something a command keeps alive until it completes.
pub type KeepAlive = Arc<dyn Any + Send + Sync>;
/// Work done on the host after a command completes.
pub type PostAction = Box<dyn FnOnce() + Send>;

/// Host-visible memory for the arguments of kernels whose arguments do not
/// fit in push constants. Chunks used by a batch go back to the pool when
/// the batch completes, so the steady state allocates nothing.
struct ArgRing {
    current: Option<(Arc<Buffer>, u64)>,
    pool: Arc<Mutex<Vec<Arc<Buffer>>>>,
}

/// What a command records with.
pub struct Recorder<'a> {
    pub stream: &'a mut CommandStream,
    pub device: &'a ferrocl_vk::Device,
    pub staging: &'a Arc<StagingPool>,
    keep: &'a mut Vec<KeepAlive>,
    posts: &'a mut Vec<PostAction>,
    ring: &'a mut ArgRing,
    ring_used: &'a mut Vec<Arc<Buffer>>,
    ends_batch: &'a mut bool,
}

impl Recorder<'_> {
    /// Keeps `object` alive until the command completes.
    pub fn keep(&mut self, object: KeepAlive) {
        self.keep.push(object);
    }

    /// Runs `action` on the host once the command has completed
    /// successfully.
    pub fn after(&mut self, action: PostAction) {
        self.posts.push(action);
    }

    /// Submits the batch right after this command, so that the command's
    /// completion is seen, and its post-actions run, as soon as it has
    /// run rather than with the commands recorded after it: a chunk of a
    /// large read, whose copy out is faster while the device's writes
    /// are fresh in the host's caches.
    pub fn end_batch(&mut self) {
        *self.ends_batch = true;
    }

    /// Copies `bytes` into the argument ring; returns the device address.
    pub fn push_args(&mut self, bytes: &[u8]) -> Result<u64, cl_int> {
        let size = (bytes.len() as u64).max(16).next_multiple_of(16);
        let fits = matches!(&self.ring.current, Some((buf, used)) if used + size <= buf.size());
        if !fits {
            if let Some((old, _)) = self.ring.current.take() {
                self.ring_used.push(old);
            }
            let pooled = {
                let mut pool = self.ring.pool.lock();
                let index = pool.iter().position(|b| b.size() >= size);
                index.map(|i| pool.swap_remove(i))
            };
            let chunk = match pooled {
                Some(chunk) => chunk,
                None => Arc::new(
                    self.device
                        .create_buffer(size.max(ARG_CHUNK), MemoryLocation::HostToDevice)
                        .map_err(vk_error)?,
                ),
            };
            self.ring.current = Some((chunk, 0));
        }
        let (chunk, used) = self.ring.current.as_mut().ok_or(CL_OUT_OF_RESOURCES)?;
        let ptr = chunk.mapped_ptr().ok_or(CL_OUT_OF_RESOURCES)?;
        // SAFETY: the chunk is mapped, `used + size <= chunk.size()`, and no
        // submitted command reads this range (chunks return to the pool only
        // when their batch has completed).
        unsafe {
            std::ptr::copy_nonoverlapping(
                bytes.as_ptr(),
                ptr.as_ptr().add(*used as usize),
                bytes.len(),
            )
        };
        let address = chunk.device_address() + *used;
        *used += size;
        Ok(address)
    }
}

/// The recording of a command that does no device work (markers, barriers,
/// empty NDRanges): it only orders.
pub fn no_work(_: &mut Recorder<'_>) -> Result<(), cl_int> {
    Ok(())
}

/// The recording of one command, run at once or when its dependencies are
/// done.
pub type RecordFn = Box<dyn FnOnce(&mut Recorder<'_>) -> Result<(), cl_int> + Send>;

/// The device memory a command uses, which decides the barrier before it
/// on an in-order queue.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Access {
    /// Not known: the command is ordered after all earlier device work,
    /// and later commands after it.
    #[default]
    Unknown,
    /// No device memory (markers, barriers, empty NDRanges).
    Nothing,
    /// Exactly these memory objects, by [`memory_key`].
    Buffers {
        reads: Vec<usize>,
        writes: Vec<usize>,
    },
    /// Exactly these memory objects, held inline: what a kernel launch
    /// builds on every enqueue without touching the heap.
    Uses(UseList),
}

impl Access {
    /// A command that writes `buffer` and uses no other device memory.
    pub fn writes_to(buffer: &Arc<Buffer>) -> Access {
        Access::Buffers {
            reads: Vec::new(),
            writes: vec![memory_key(buffer)],
        }
    }
}

/// Memory objects a command reads or writes, by [`memory_key`], stored
/// inline. A command that uses more than [`UseList::CAPACITY`] of them is
/// given [`Access::Unknown`] instead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UseList {
    keys: [usize; UseList::CAPACITY],
    written: [bool; UseList::CAPACITY],
    len: usize,
}

impl Default for UseList {
    fn default() -> UseList {
        UseList {
            keys: [0; UseList::CAPACITY],
            written: [false; UseList::CAPACITY],
            len: 0,
        }
    }
}

impl UseList {
    pub const CAPACITY: usize = 16;

    /// Adds a memory object; false when the list is full.
    pub fn push(&mut self, key: usize, written: bool) -> bool {
        if self.len == Self::CAPACITY {
            return false;
        }
        self.keys[self.len] = key;
        self.written[self.len] = written;
        self.len += 1;
        true
    }

    fn entries(&self) -> impl Iterator<Item = (usize, bool)> + '_ {
        self.keys[..self.len]
            .iter()
            .copied()
            .zip(self.written[..self.len].iter().copied())
    }
}

/// The identity of a memory object's storage for hazard tracking: its
/// Vulkan buffer, which sub-buffers share with their parent (so commands on
/// disjoint sub-buffers of one buffer are still ordered).
pub fn memory_key(buffer: &Arc<Buffer>) -> usize {
    Arc::as_ptr(buffer) as usize
}

/// Entries tracked since the last barrier before one is recorded anyway:
/// it bounds the sets on queues that run long without one.
const HAZARD_LIMIT: usize = 4096;

/// Hashes the addresses that key the hazard sets. They are unique heap
/// addresses, so one multiplication spreads them well enough; the default
/// SipHash was a noticeable part of every enqueue call.
#[derive(Default)]
struct AddressHasher(u64);

impl Hasher for AddressHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }

    fn write_u64(&mut self, n: u64) {
        // A folded multiply (the 128-bit product's halves combined): every
        // bit of the key reaches the low bits, where hashbrown finds the
        // bucket, and the top seven, its tag.
        let full = u128::from(self.0 ^ n) * 0x9e37_79b9_7f4a_7c15;
        self.0 = (full as u64) ^ ((full >> 64) as u64);
    }
}

type AddressSet = HashSet<usize, BuildHasherDefault<AddressHasher>>;

/// What device work since the last barrier may still be in flight.
#[derive(Default)]
struct Hazards {
    reads: AddressSet,
    writes: AddressSet,
    /// A command of unknown access was recorded.
    unknown: bool,
    /// Out of order: the events (by address) of the commands recorded.
    events: AddressSet,
}

impl Hazards {
    fn clear(&mut self) {
        self.reads.clear();
        self.writes.clear();
        self.unknown = false;
        self.events.clear();
    }

    /// An in-order command with `access` must wait for earlier work.
    fn conflicts(&self, access: &Access) -> bool {
        match access {
            Access::Unknown => true,
            Access::Nothing => false,
            Access::Buffers { reads, writes } => {
                self.unknown
                    || reads.iter().any(|k| self.writes.contains(k))
                    || writes
                        .iter()
                        .any(|k| self.writes.contains(k) || self.reads.contains(k))
            }
            Access::Uses(list) => {
                self.unknown
                    || list.entries().any(|(k, written)| {
                        self.writes.contains(&k) || (written && self.reads.contains(&k))
                    })
            }
        }
    }

    /// Records a command's access; out of order also its event, which
    /// later commands may name in their wait lists.
    fn add(&mut self, access: &Access, event: &Arc<Event>, out_of_order: bool) {
        self.add_access(access);
        if out_of_order {
            self.events.insert(Arc::as_ptr(event) as usize);
        }
    }

    fn add_access(&mut self, access: &Access) {
        match access {
            Access::Unknown => self.unknown = true,
            Access::Nothing => {}
            Access::Buffers { reads, writes } => {
                self.reads.extend(reads);
                self.writes.extend(writes);
            }
            Access::Uses(list) => {
                for (k, written) in list.entries() {
                    if written {
                        self.writes.insert(k);
                    } else {
                        self.reads.insert(k);
                    }
                }
            }
        }
    }

    fn len(&self) -> usize {
        self.reads.len() + self.writes.len() + self.events.len()
    }
}

struct HeldCommand {
    event: Arc<Event>,
    deps: Vec<Arc<Event>>,
    access: Access,
    record: RecordFn,
}

/// Device timestamps around one command of a profiling queue.
type Stamps = Option<(Timestamp, Timestamp)>;

struct Batch {
    events: Vec<Arc<Event>>,
    /// One per event: the device times of its command, when measured.
    stamps: Vec<Stamps>,
    /// One per event: the command may run as soon as the batch does (it
    /// waits for nothing else in the batch), so its event is marked
    /// `CL_RUNNING` then; the others go from `CL_SUBMITTED` to complete, so
    /// that no command is seen running while one it waits for is.
    starts: Vec<bool>,
    /// A barrier was recorded between this batch's commands.
    ordered: bool,
    posts: Vec<PostAction>,
    keep: Vec<KeepAlive>,
    ring_used: Vec<Arc<Buffer>>,
    waits: Vec<(Arc<Timeline>, u64)>,
    /// Commands of other queues that this batch waits for on the GPU. Their
    /// events complete on their own queues' completion threads, which may
    /// run behind the GPU: this batch's events are not marked running or
    /// complete before those are complete.
    foreign: Vec<Arc<Event>>,
    /// The events of `starts` were marked running.
    running: bool,
    /// A command asked for the batch to be submitted after it
    /// ([`Recorder::end_batch`]).
    ends_here: bool,
}

impl Batch {
    /// An empty batch with room for [`BATCH_LIMIT`] commands, and for two
    /// objects each of them keeps alive (a launch's kernel and buffer, a
    /// transfer's memory object and staging), before its lists grow.
    fn with_room() -> Batch {
        Batch {
            events: Vec::with_capacity(BATCH_LIMIT),
            stamps: Vec::with_capacity(BATCH_LIMIT),
            starts: Vec::with_capacity(BATCH_LIMIT),
            ordered: false,
            posts: Vec::new(),
            keep: Vec::with_capacity(2 * BATCH_LIMIT),
            ring_used: Vec::new(),
            waits: Vec::new(),
            foreign: Vec::new(),
            running: false,
            ends_here: false,
        }
    }
}

struct Submitted {
    value: u64,
    batch: Batch,
}

struct QueueState {
    stream: CommandStream,
    /// The value the latest submission signals.
    submitted_value: u64,
    /// The batch may go out at [`IDLE_BATCH`] commands: false right after
    /// a batch did, until another submission or `clFinish`.
    idle_batch_allowed: bool,
    batch: Batch,
    held: VecDeque<HeldCommand>,
    ring: ArgRing,
    hazards: Hazards,
    /// Barriers recorded between two commands of a batch because the
    /// second had to wait for the first (not those that end a batch).
    hazard_barriers: u64,
    /// Out of order: the latest barrier command, which every later command
    /// waits for.
    last_barrier: Weak<Event>,
    /// Completed command events the next commands of this queue reuse,
    /// taken from [`Completion::spare_events`] all at once when this runs
    /// out: one lock of the list the completion thread fills per refill,
    /// not per command.
    spare_events: Vec<Arc<Event>>,
}

/// A `cl_command_queue`.
#[repr(C)]
pub struct Queue {
    header: ApiHeader,
    pub context: Arc<Context>,
    pub device: Arc<Device>,
    /// `CL_QUEUE_PROPERTIES`; `clSetCommandQueueProperty` may change the
    /// profiling and out-of-order bits.
    properties: std::sync::atomic::AtomicU64,
    /// The properties array of `clCreateCommandQueueWithProperties` (with
    /// its terminating 0), empty otherwise.
    pub properties_array: Vec<u64>,
    backend: ferrocl_vk::Device,
    timeline: Arc<Timeline>,
    staging: Arc<StagingPool>,
    state: Mutex<QueueState>,
    completion: Arc<Completion>,
    completion_thread: Mutex<Option<std::thread::JoinHandle<()>>>,
    /// printf buffers of the kernels this queue runs.
    printf_pool: Arc<PrintfPool>,
    /// The spare events were made ([`Queue::take_spare_event`]).
    spare_events_made: AtomicBool,
    /// The gates of this queue's read-ahead chunks in flight, oldest first
    /// (`memory::read_ahead_in_chunks`): each read goes on from the window
    /// of the reads before it, so reads queued back to back hold one
    /// window of staging between them, not one each.
    pub read_ahead_gates: Mutex<VecDeque<Arc<Event>>>,
}

// SAFETY: repr(C) with the header first; the tag is unique to Queue.
unsafe impl ApiObject for Queue {
    const TAG: Tag = Tag::Queue;
    const INVALID: cl_int = CL_INVALID_COMMAND_QUEUE;
}

impl Queue {
    pub fn new(
        context: Arc<Context>,
        device: Arc<Device>,
        properties: cl_bitfield,
        properties_array: Vec<u64>,
    ) -> Result<Arc<Queue>, cl_int> {
        let backend = device.backend()?.clone();
        let stream = backend
            .create_command_stream_for(BATCHES_ALIVE, BATCH_LIMIT)
            .map_err(vk_error)?;
        let timeline = Arc::new(backend.create_timeline(0).map_err(vk_error)?);
        let pool = Arc::new(Mutex::new(Vec::new()));
        let completion = Arc::new(Completion::new(
            &backend,
            timeline.clone(),
            pool.clone(),
            completion_poll(backend.info().device_type),
        ));
        let thread = {
            let completion = completion.clone();
            std::thread::Builder::new()
                .name(COMPLETION_THREAD.into())
                .spawn(move || run_completion_thread(&completion))
                .map_err(|_| CL_OUT_OF_HOST_MEMORY)?
        };
        let printf_pool = PrintfPool::new(device.info().printf_buffer_size);
        Ok(Arc::new(Queue {
            header: ApiHeader::new(Tag::Queue),
            context,
            device,
            properties: std::sync::atomic::AtomicU64::new(properties),
            properties_array,
            staging: StagingPool::new(backend.clone()),
            backend,
            timeline,
            state: Mutex::new(QueueState {
                stream,
                submitted_value: 0,
                idle_batch_allowed: true,
                batch: Batch::with_room(),
                held: VecDeque::new(),
                ring: ArgRing {
                    current: None,
                    pool,
                },
                hazards: Hazards::default(),
                hazard_barriers: 0,
                last_barrier: Weak::new(),
                spare_events: Vec::with_capacity(SPARE_EVENTS),
            }),
            completion,
            completion_thread: Mutex::new(Some(thread)),
            read_ahead_gates: Mutex::new(VecDeque::new()),
            printf_pool,
            spare_events_made: AtomicBool::new(false),
        }))
    }

    /// `CL_QUEUE_PROPERTIES`.
    pub fn properties(&self) -> cl_bitfield {
        self.properties.load(std::sync::atomic::Ordering::Acquire)
    }

    pub fn profiling(&self) -> bool {
        self.properties() & CL_QUEUE_PROFILING_ENABLE != 0
    }

    pub fn out_of_order(&self) -> bool {
        self.properties() & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE != 0
    }

    /// `clSetCommandQueueProperty`: sets or clears `bits` (profiling and
    /// out-of-order execution, already checked against the device) and
    /// returns the properties before. Commands already enqueued keep the
    /// mode they were enqueued with; the queue is finished first so that
    /// none is pending across the change.
    pub fn set_properties(&self, bits: cl_bitfield, enable: bool) -> Result<cl_bitfield, cl_int> {
        self.finish()?;
        let mut state = self.state.lock();
        let old = self.properties();
        let new = if enable { old | bits } else { old & !bits };
        self.properties
            .store(new, std::sync::atomic::Ordering::Release);
        // The modes track hazards differently: start from a barrier.
        if new != old && !state.stream.is_empty() {
            state.stream.barrier().map_err(vk_error)?;
        }
        state.hazards.clear();
        state.last_barrier = Weak::new();
        Ok(old)
    }

    /// How many barriers this queue has recorded between commands because
    /// of a hazard (a diagnostic: tests check which launches are ordered).
    pub fn hazard_barriers(&self) -> u64 {
        self.state.lock().hazard_barriers
    }

    pub fn backend(&self) -> &ferrocl_vk::Device {
        &self.backend
    }

    pub fn staging(&self) -> &Arc<StagingPool> {
        &self.staging
    }

    pub(crate) fn timeline(&self) -> &Arc<Timeline> {
        &self.timeline
    }

    pub(crate) fn printf_pool(&self) -> &Arc<PrintfPool> {
        &self.printf_pool
    }

    /// Drops, on this (application) thread, what completed commands kept
    /// alive.
    fn bury(&self) {
        let mut graveyard = self.completion.graveyard.lock();
        if graveyard.is_empty() {
            return;
        }
        let dead = std::mem::take(&mut *graveyard);
        drop(graveyard);
        drop(dead);
    }

    /// A completed command event of this queue to reuse. The queue's
    /// first command makes the events its batches can hold
    /// ([`SPARE_EVENTS`]), so that no later command allocates one
    /// however many are pending; a queue that never runs a command makes
    /// none (each holds the context, which its reference count shows).
    fn take_spare_event(self: &Arc<Queue>, state: &mut QueueState) -> Option<Arc<Event>> {
        let spare = &mut state.spare_events;
        if spare.is_empty() {
            // Both lists keep their capacity of SPARE_EVENTS.
            std::mem::swap(spare, &mut *self.completion.spare_events.lock());
            if spare.is_empty() && !self.spare_events_made.swap(true, Ordering::Relaxed) {
                spare.extend((0..SPARE_EVENTS).map(|_| Event::new_spare(self)));
            }
        }
        spare.pop()
    }

    /// The event of a command enqueued now, a spare one where there is one
    /// ([`Event::new_command`]).
    fn new_event(self: &Arc<Queue>, state: &mut QueueState, command_type: cl_uint) -> Arc<Event> {
        let spare = self.take_spare_event(state);
        Event::new_command(self, spare, command_type)
    }

    /// Waits until the command of `event`, whose batch signals `value`, is
    /// done: this thread polls and then blocks on the timeline itself, and
    /// retires the batches that have finished (running their post-actions
    /// and completing their events) instead of waiting for the completion
    /// thread to wake up and do it. Callbacks are left to the completion
    /// thread.
    pub(crate) fn wait_for(&self, event: &Event, value: u64) {
        let c = &self.completion;
        let ok = wait_timeline(&c.timeline, value, c.spin, Waiter::Application);
        let nested = RETIRING.get();
        while !event.is_done() {
            if c.retire_on_app_thread(value, ok, nested) {
                return;
            }
            event.wait_changed(Duration::from_micros(100));
        }
    }

    /// Enqueues a command whose recording is `record`, after the events in
    /// `wait_list` (already checked to belong to this queue's context).
    /// Returns the command's event. Its device memory use is not known, so
    /// on an in-order queue it is ordered after all earlier device work.
    pub fn enqueue<F>(
        self: &Arc<Self>,
        command_type: cl_uint,
        wait_list: &[Arc<Event>],
        record: F,
    ) -> Result<Arc<Event>, cl_int>
    where
        F: FnOnce(&mut Recorder<'_>) -> Result<(), cl_int> + Send + 'static,
    {
        self.enqueue_with_access(command_type, wait_list, Access::Unknown, record)
    }

    /// [`Queue::enqueue`] for a command that uses exactly the device memory
    /// of `access`.
    pub fn enqueue_with_access<F>(
        self: &Arc<Self>,
        command_type: cl_uint,
        wait_list: &[Arc<Event>],
        access: Access,
        record: F,
    ) -> Result<Arc<Event>, cl_int>
    where
        F: FnOnce(&mut Recorder<'_>) -> Result<(), cl_int> + Send + 'static,
    {
        self.bury();
        // Commands of other queues that are recorded but not submitted are
        // submitted now, so this queue's batch can wait for them on the GPU.
        // Done before taking this queue's lock: two queues never hold each
        // other's locks.
        for dep in wait_list {
            if !dep.is_on(self) && !dep.is_done() && dep.timeline_value().is_none() {
                if let Some(q) = dep.queue() {
                    q.flush();
                }
            }
        }
        let mut failed = Vec::new();
        // The batch to wait for before returning, when too many are in
        // flight (0: none).
        let mut throttle = 0;
        let event;
        {
            let mut state = self.state.lock();
            event = self.new_event(&mut state, command_type);
            let ooo = self.out_of_order();
            let mut deps = wait_list.to_vec();
            if ooo {
                // Every command waits for the latest barrier command; a
                // barrier or marker without a wait list waits for every
                // earlier command, of which only the held ones are not
                // already before it on the device.
                if let Some(barrier) = state.last_barrier.upgrade() {
                    deps.push(barrier);
                }
                let sync_point =
                    command_type == CL_COMMAND_BARRIER || command_type == CL_COMMAND_MARKER;
                if sync_point && wait_list.is_empty() {
                    deps.extend(state.held.iter().map(|h| h.event.clone()));
                }
                if command_type == CL_COMMAND_BARRIER {
                    state.last_barrier = Arc::downgrade(&event);
                }
            }
            let must_hold = if ooo {
                deps.iter().any(|d| !self.ready(&state, d))
            } else {
                !state.held.is_empty() || deps.iter().any(|d| !self.ready(&state, d))
            };
            if must_hold {
                state.held.push_back(HeldCommand {
                    event: event.clone(),
                    deps,
                    access,
                    record: Box::new(record),
                });
                drop(state);
                // Only foreign dependencies: this queue's own completion
                // thread must never hold a reference to this queue. Held
                // commands of this queue are released together with what
                // they wait for.
                for dep in wait_list.iter().filter(|d| !d.is_on(self)) {
                    let queue = self.clone();
                    dep.on_done(Box::new(move || queue.release_held()));
                }
                return Ok(event);
            }
            if deps.iter().any(|d| d.status() < 0) {
                failed.push((event.clone(), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST));
            } else {
                // Recorded now: a recording error is this call's error, and
                // no event is made.
                self.record_locked(&mut state, &event, &deps, &access, record)?;
                let recorded = state.batch.events.len();
                let idle =
                    recorded == IDLE_BATCH && state.idle_batch_allowed && self.caught_up(&state);
                if idle || recorded >= BATCH_LIMIT || state.batch.ends_here {
                    self.submit_locked(&mut state, &mut failed, false);
                    if idle {
                        // Every other submission allows the next one.
                        state.idle_batch_allowed = false;
                    }
                    throttle = state.submitted_value.saturating_sub(MAX_IN_FLIGHT);
                }
            }
        }
        for (e, code) in failed {
            e.complete(code);
        }
        // A thread already retiring batches (a callback) is not held back:
        // the batch it would wait for may be behind the one it retires.
        if throttle > self.completion.retired_value() && !RETIRING.get() {
            self.wait_retired(throttle, Waiter::HeldBack);
        }
        Ok(event)
    }

    /// Whether a command enqueued now after `wait_list` runs without the
    /// application: every event it or a held command of this queue waits
    /// for is complete, submitted, a command of this queue (held ones are
    /// asked the same of), or a gate the runtime opens itself
    /// ([`Event::new_gate`]). A caller that waits for such a command in
    /// the enqueue call cannot wait for an event the application has yet
    /// to set.
    pub fn runs_unheld(&self, wait_list: &[Arc<Event>]) -> bool {
        let runs = |e: &Arc<Event>| {
            e.is_done()
                || e.is_gate()
                || e.is_on(self)
                || (!e.is_user() && e.timeline_value().is_some())
        };
        wait_list.iter().all(runs)
            && self
                .state
                .lock()
                .held
                .iter()
                .all(|h| h.deps.iter().all(runs))
    }

    /// True when the device has finished every batch this queue submitted.
    fn caught_up(&self, state: &QueueState) -> bool {
        self.timeline
            .value()
            .is_ok_and(|v| v >= state.submitted_value)
    }

    /// Submitted batches that have not retired yet.
    pub fn batches_in_flight(&self) -> u64 {
        let submitted = self.state.lock().submitted_value;
        submitted.saturating_sub(self.completion.retired_value())
    }

    /// A dependency this queue's next batch can wait for without the host.
    fn ready(self: &Arc<Self>, state: &QueueState, dep: &Arc<Event>) -> bool {
        if dep.is_done() {
            return true;
        }
        if dep.is_on(self) {
            // In order, an earlier command of this queue is already before
            // (held ones too: they are recorded first). Out of order, one
            // that is held is not.
            return !self.out_of_order() || !state.held.iter().any(|h| Arc::ptr_eq(&h.event, dep));
        }
        // A timeline semaphore of another device of the context belongs to
        // another Vulkan device, which this one cannot wait for: such a
        // dependency waits on the host.
        !dep.is_user()
            && dep.timeline_value().is_some()
            && dep
                .queue()
                .is_some_and(|q| std::ptr::eq(&*q.device, &*self.device))
    }

    fn record_locked<F>(
        &self,
        state: &mut QueueState,
        event: &Arc<Event>,
        deps: &[Arc<Event>],
        access: &Access,
        record: F,
    ) -> Result<(), cl_int>
    where
        F: FnOnce(&mut Recorder<'_>) -> Result<(), cl_int>,
    {
        let waits_before = state.batch.waits.len();
        let foreign_before = state.batch.foreign.len();
        for dep in deps {
            if let (Some(timeline), Some(value)) = (dep.timeline(), dep.timeline_value()) {
                if !dep.is_on(self) && !dep.is_done() {
                    state.batch.waits.push((timeline.clone(), value));
                    state.batch.foreign.push(dep.clone());
                }
            }
        }
        let needs_barrier = if self.out_of_order() {
            event.command_type == CL_COMMAND_BARRIER
                || deps
                    .iter()
                    .any(|d| state.hazards.events.contains(&(Arc::as_ptr(d) as usize)))
        } else {
            state.hazards.conflicts(access)
        } || state.hazards.len() >= HAZARD_LIMIT;
        let QueueState {
            stream,
            batch,
            ring,
            hazards,
            hazard_barriers,
            ..
        } = state;
        let posts_before = batch.posts.len();
        // Profiling queues bracket each command with device timestamps; a
        // device without them falls back to the host clock.
        let mut start = None;
        // In order, a command waits for the one before it, so only a
        // batch's first command starts with it; out of order, those before
        // the batch's first barrier.
        let starts = if self.out_of_order() {
            !batch.ordered && !needs_barrier
        } else {
            batch.events.is_empty()
        };
        let barrier = if needs_barrier {
            *hazard_barriers += 1;
            batch.ordered = true;
            hazards.clear();
            stream.barrier().map_err(vk_error)
        } else {
            Ok(())
        };
        let result = barrier.and_then(|_| {
            if self.profiling() {
                start = stream.write_timestamp().ok();
            }
            let mut recorder = Recorder {
                stream,
                device: &self.backend,
                staging: &self.staging,
                keep: &mut batch.keep,
                posts: &mut batch.posts,
                ring,
                ring_used: &mut batch.ring_used,
                ends_batch: &mut batch.ends_here,
            };
            record(&mut recorder)
        });
        match result {
            Ok(()) => {
                let end = start.as_ref().and_then(|_| stream.write_timestamp().ok());
                batch.stamps.push(start.zip(end));
                batch.starts.push(starts);
                batch.events.push(event.clone());
                hazards.add(access, event, self.out_of_order());
                Ok(())
            }
            Err(code) => {
                // Whatever the command recorded before failing stays in the
                // stream (a barrier, possibly a partial copy of its own
                // staging data); its post-actions are dropped.
                batch.posts.truncate(posts_before);
                batch.waits.truncate(waits_before);
                batch.foreign.truncate(foreign_before);
                hazards.unknown = true;
                Err(code)
            }
        }
    }

    /// Submits the current batch. With `waiter`, the calling thread is about
    /// to wait for it and retire it itself, so the completion thread is not
    /// woken for it: on a CPU device that wake-up competes for the cores
    /// that run the command.
    fn submit_locked(
        &self,
        state: &mut QueueState,
        failed: &mut Vec<(Arc<Event>, cl_int)>,
        waiter: bool,
    ) {
        if state.batch.events.is_empty() && state.stream.is_empty() {
            return;
        }
        if let Some((chunk, _)) = state.ring.current.take() {
            state.batch.ring_used.push(chunk);
        }
        let value = state.submitted_value + 1;
        let next = self
            .completion
            .spare_batches
            .lock()
            .pop()
            .unwrap_or_else(Batch::with_room);
        let mut batch = std::mem::replace(&mut state.batch, next);
        batch.ends_here = false;
        state.hazards.clear();
        // Taken before the submission: the device may run the batch, and
        // even finish it, before `vkQueueSubmit` returns to this thread,
        // and a command's CL_PROFILING_COMMAND_SUBMIT may not come after
        // its START.
        let submit_ns = host_time_ns();
        // The stream ends each submission with a full barrier.
        let result = {
            let waits: Vec<(&Timeline, u64)> =
                batch.waits.iter().map(|(t, v)| (&**t, *v)).collect();
            state.stream.submit(&waits, (&self.timeline, value))
        };
        match result {
            Ok(()) => {
                state.submitted_value = value;
                state.idle_batch_allowed = true;
                for e in &batch.events {
                    e.mark_submitted(value, submit_ns);
                }
                batch.waits.clear();
                let mut pending = self.completion.pending.lock();
                if pending.closed {
                    drop(pending);
                    failed.extend(batch.events.drain(..).map(|e| (e, CL_OUT_OF_RESOURCES)));
                } else {
                    pending.batches.push_back(Submitted { value, batch });
                    drop(pending);
                    if !waiter {
                        self.completion.arrived.notify_one();
                    }
                }
            }
            Err(_) => {
                failed.extend(batch.events.drain(..).map(|e| (e, CL_OUT_OF_RESOURCES)));
            }
        }
    }

    /// Records the held commands whose dependencies are now done, and
    /// submits them: in order, the oldest ones up to the first still
    /// waiting; out of order, every one that is ready, until none is.
    fn release_held(self: &Arc<Self>) {
        let mut failed = Vec::new();
        {
            let mut state = self.state.lock();
            let mut recorded = false;
            let ooo = self.out_of_order();
            loop {
                let next = state
                    .held
                    .iter()
                    .position(|h| h.deps.iter().all(|d| self.ready(&state, d)));
                let index = match next {
                    Some(0) => 0,
                    Some(i) if ooo => i,
                    _ => break,
                };
                let Some(cmd) = state.held.remove(index) else {
                    break;
                };
                if cmd.deps.iter().any(|d| d.status() < 0) {
                    failed.push((cmd.event, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST));
                    continue;
                }
                match self.record_locked(&mut state, &cmd.event, &cmd.deps, &cmd.access, cmd.record)
                {
                    Ok(()) if state.batch.ends_here => {
                        self.submit_locked(&mut state, &mut failed, false);
                        recorded = false;
                    }
                    Ok(()) => recorded = true,
                    // The status carries the error, so waiters do not hang.
                    Err(code) => failed.push((cmd.event, code)),
                }
            }
            if recorded {
                self.submit_locked(&mut state, &mut failed, false);
            }
        }
        for (e, code) in failed {
            e.complete(code);
        }
    }

    /// Runs `transfer` on the calling thread as the command `command_type`
    /// when nothing of this queue is recorded, held or unfinished and every
    /// event of `wait_list` is complete: no other command can then observe
    /// it out of order (the queue's lock keeps new ones out meanwhile).
    /// Returns the command's event, complete; `None` when the queue is busy
    /// (enqueue the command as usual then).
    pub fn run_on_host_if_idle(
        self: &Arc<Self>,
        command_type: cl_uint,
        wait_list: &[Arc<Event>],
        transfer: impl FnOnce(),
    ) -> Option<Arc<Event>> {
        if wait_list
            .iter()
            .any(|d| d.status() != CL_COMPLETE as cl_int)
        {
            return None;
        }
        let event = {
            let mut state = self.state.lock();
            // Batches retire in order, post-actions first: the latest one
            // retired means every earlier command is done.
            let idle = state.held.is_empty()
                && state.batch.events.is_empty()
                && state.stream.is_empty()
                && self.completion.retired_value() >= state.submitted_value;
            if !idle {
                return None;
            }
            let event = self.new_event(&mut state, command_type);
            transfer();
            event
        };
        event.complete(CL_COMPLETE as cl_int);
        Some(event)
    }

    /// `clFlush`: submits the current batch.
    pub fn flush(&self) {
        self.bury();
        let mut failed = Vec::new();
        self.submit_locked(&mut self.state.lock(), &mut failed, false);
        for (e, code) in failed {
            e.complete(code);
        }
    }

    /// Submits the current batch for a thread that then waits for `event`
    /// with [`Queue::wait_for`]; when the batch holds that command, the
    /// waiter retires it and the completion thread is not woken for it.
    pub(crate) fn flush_for_wait(&self, event: &Event) {
        self.bury();
        let mut failed = Vec::new();
        {
            let mut state = self.state.lock();
            let waiter =
                !RETIRING.get() && state.batch.events.iter().any(|e| std::ptr::eq(&**e, event));
            self.submit_locked(&mut state, &mut failed, waiter);
        }
        for (e, code) in failed {
            e.complete(code);
        }
    }

    /// `clFinish`: submits and waits for every command enqueued so far:
    /// for the latest submission to retire, then for the held commands
    /// (out of order, one may be recorded after the latest one). Waiting
    /// for a timeline value rather than for the latest command's event
    /// leaves no reference to that event, so it is recycled like any other.
    pub fn finish(&self) -> Result<(), cl_int> {
        self.bury();
        let mut failed = Vec::new();
        let (value, held) = {
            let mut state = self.state.lock();
            // A thread already retiring some queue may have to leave this
            // queue's batches to the completion thread (see `wait_retired`).
            self.submit_locked(&mut state, &mut failed, !RETIRING.get());
            // What comes next starts a new stream on an idle device.
            state.idle_batch_allowed = true;
            let held: Vec<Arc<Event>> = state.held.iter().map(|h| h.event.clone()).collect();
            (state.submitted_value, held)
        };
        for (e, code) in failed {
            e.complete(code);
        }
        self.wait_retired(value, Waiter::Application);
        // Held commands are recorded and submitted as what they wait for
        // completes, without this thread, and the completion thread
        // retires them: this thread sleeps meanwhile. Polling the timeline
        // and retiring here instead halved a large read's copies out on an
        // H200 (16 virtual CPUs, every one of them copying, one spinning
        // thread more). A thread already retiring (a callback) may be the
        // one that must retire them, so it waits as usual.
        for event in held {
            if RETIRING.get() {
                event.wait();
            } else {
                event.wait_passively();
            }
        }
        self.bury();
        Ok(())
    }

    /// Waits until every batch up to the one that signals `value` has
    /// retired, retiring them on this thread as [`Queue::wait_for`] does.
    fn wait_retired(&self, value: u64, waiter: Waiter) {
        let c = &self.completion;
        if c.retired_value() >= value {
            return;
        }
        let ok = wait_timeline(&c.timeline, value, c.spin, waiter);
        let nested = RETIRING.get();
        while c.retired_value() < value {
            if c.retire_on_app_thread(value, ok, nested) {
                return;
            }
            std::thread::sleep(Duration::from_micros(50));
        }
    }
}

impl Drop for Queue {
    fn drop(&mut self) {
        // Runs on an application thread (see `graveyard`): submit what is
        // left, let the completion thread finish every batch and exit, then
        // drop what the commands kept alive. The command stream goes only
        // once the GPU is done with it.
        let mut failed = Vec::new();
        self.submit_locked(&mut self.state.lock(), &mut failed, false);
        for (e, code) in failed {
            e.complete(code);
        }
        self.completion.pending.lock().closed = true;
        self.completion.arrived.notify_one();
        if let Some(thread) = self.completion_thread.get_mut().take() {
            // A completion thread (a callback released the queue) joins no
            // other: that one may be waiting for this thread's events (see
            // `Batch::foreign`). Unjoined, it exits once its channel is
            // drained.
            if std::thread::current().name() != Some(COMPLETION_THREAD) {
                let _ = thread.join();
            }
        }
        let value = self.state.get_mut().submitted_value;
        let _ = self.timeline.wait(value, u64::MAX);
        self.bury();
    }
}

/// Submitted batches that have not been retired yet, in submission order.
#[derive(Default)]
struct Pending {
    batches: VecDeque<Submitted>,
    /// Events an application thread completed whose callbacks and
    /// listeners are left to the completion thread.
    notify: Vec<Arc<Event>>,
    /// The queue is going: the completion thread ends once nothing is left.
    closed: bool,
}

/// Where a queue's submitted batches are retired (post-actions run, events
/// completed, what the commands kept alive released, in submission order).
/// Shared by the queue's completion thread and every thread waiting for one
/// of the queue's commands: a waiter whose command has finished retires it
/// itself rather than sleep until the completion thread has woken up and
/// done it, which on a GPU is most of a short command's round trip.
struct Completion {
    timeline: Arc<Timeline>,
    pending: Mutex<Pending>,
    /// Signalled when `pending` gains a batch or a notification, or closes.
    arrived: Condvar,
    /// Held by the one thread retiring batches.
    retiring: Mutex<Retiring>,
    /// Argument ring chunks whose batches have completed.
    ring_pool: Arc<Mutex<Vec<Arc<Buffer>>>>,
    /// What completed commands kept alive and the completion thread must
    /// not drop itself: the last reference to a buffer, kernel, event or
    /// context may be among them, and their teardown calls Vulkan, which
    /// must not race with the application's exit. Application threads drop
    /// them (on the next call on this queue, or when the queue goes).
    graveyard: Mutex<Vec<KeepAlive>>,
    /// Emptied batches whose vectors the next batches reuse.
    spare_batches: Mutex<Vec<Batch>>,
    /// The timeline value of the latest retired batch.
    retired: AtomicU64,
    /// Completed command events the next commands reuse.
    spare_events: Mutex<Vec<Arc<Event>>>,
    /// How a wait polls the timeline before it blocks.
    spin: Poll,
}

/// What the retiring thread owns.
struct Retiring {
    /// The oldest batch, taken out of `pending` by the completion thread,
    /// which marked its first commands running and waits for it.
    current: Option<Submitted>,
    /// Profiling on the host clock: without device timestamps a command
    /// starts when its batch was submitted or when the batch before ended,
    /// whichever is later, and ends when its batch was seen complete.
    previous_end: u64,
    clock: DeviceClock,
}

thread_local! {
    /// This thread holds some queue's `retiring` lock.
    static RETIRING: Cell<bool> = const { Cell::new(false) };
}

impl Completion {
    fn new(
        backend: &ferrocl_vk::Device,
        timeline: Arc<Timeline>,
        ring_pool: Arc<Mutex<Vec<Arc<Buffer>>>>,
        spin: Poll,
    ) -> Completion {
        Completion {
            timeline,
            pending: Mutex::new(Pending {
                batches: VecDeque::with_capacity(BATCHES_ALIVE),
                ..Pending::default()
            }),
            arrived: Condvar::new(),
            retiring: Mutex::new(Retiring {
                current: None,
                previous_end: 0,
                clock: DeviceClock {
                    device: backend.clone(),
                    period_ns: backend.info().limits.timestamp_period as f64,
                },
            }),
            ring_pool,
            graveyard: Mutex::new(Vec::new()),
            spare_batches: Mutex::new((1..BATCHES_ALIVE).map(|_| Batch::with_room()).collect()),
            retired: AtomicU64::new(0),
            spare_events: Mutex::new(Vec::with_capacity(SPARE_EVENTS)),
            spin,
        }
    }

    /// Retires, on the application thread that waits for the batch that
    /// signals `value` (reached, or lost when `!ok`), every batch reached so
    /// far; false when another thread holds the lock and `nested` forbade
    /// waiting for it. A thread already retiring some queue's batches (a
    /// callback, or a wait for another queue's command) must not block on
    /// this lock: its holder may be waiting for that thread's queue. Nor may
    /// it retire more than it waits for: a later batch may wait for a
    /// command of the queue it is retiring, which it cannot complete from
    /// here.
    fn retire_on_app_thread(&self, value: u64, ok: bool, nested: bool) -> bool {
        let (retiring, limit) = if nested {
            (self.retiring.try_lock(), value)
        } else {
            (Some(self.retiring.lock()), u64::MAX)
        };
        match retiring {
            Some(mut r) => {
                self.retire_reached(&mut r, !ok, true, limit);
                true
            }
            None => false,
        }
    }

    fn retired_value(&self) -> u64 {
        self.retired.load(Ordering::Acquire)
    }

    /// Takes the oldest batch for the completion thread, waits for the
    /// commands of other queues it depends on, and marks its first
    /// commands running. Returns the timeline value to wait for.
    fn start_oldest(&self, r: &mut Retiring) -> Option<u64> {
        if r.current.is_none() {
            r.current = self.pending.lock().batches.pop_front();
        }
        let previous_end = r.previous_end;
        let current = r.current.as_mut()?;
        let was = RETIRING.replace(true);
        // A command waited for on the GPU is complete before this batch's
        // commands are seen running: their queues get there soon, as those
        // batches were submitted before this one.
        for dep in current.batch.foreign.drain(..) {
            dep.wait();
        }
        let batch = &mut current.batch;
        if !batch.running {
            for (e, starts) in batch.events.iter().zip(&batch.starts) {
                if *starts {
                    e.mark_running(previous_end, true);
                }
            }
            batch.running = true;
        }
        RETIRING.set(was);
        Some(current.value)
    }

    /// Retires, in order, every batch up to the one that signals `limit`
    /// whose timeline value has been reached; with `lost`, every such batch,
    /// as failed. An `app_thread` leaves the events' callbacks and
    /// listeners to the completion thread.
    fn retire_reached(&self, r: &mut Retiring, lost: bool, app_thread: bool, limit: u64) {
        let was = RETIRING.replace(true);
        let reached = if lost {
            None
        } else {
            self.timeline.value().ok()
        };
        let ready = |value: u64| value <= limit && reached.is_none_or(|v| v >= value);
        let mut notify = Vec::new();
        loop {
            let next = match &r.current {
                Some(current) if ready(current.value) => r.current.take(),
                Some(_) => None,
                None => {
                    let mut pending = self.pending.lock();
                    match pending.batches.front() {
                        Some(s) if ready(s.value) => pending.batches.pop_front(),
                        _ => None,
                    }
                }
            };
            let Some(Submitted { batch, value }) = next else {
                break;
            };
            self.retire(r, batch, reached.is_some(), app_thread, &mut notify);
            self.retired.store(value, Ordering::Release);
        }
        RETIRING.set(was);
        if !notify.is_empty() {
            self.pending.lock().notify.append(&mut notify);
            self.arrived.notify_one();
        }
    }

    fn retire(
        &self,
        r: &mut Retiring,
        mut batch: Batch,
        ok: bool,
        app_thread: bool,
        notify: &mut Vec<Arc<Event>>,
    ) {
        for dep in batch.foreign.drain(..) {
            dep.wait();
        }
        if !batch.running {
            for (e, starts) in batch.events.iter().zip(&batch.starts) {
                if *starts {
                    e.mark_running(r.previous_end, !app_thread);
                }
            }
        }
        batch.running = false;
        batch.starts.clear();
        batch.ordered = false;
        r.previous_end = host_time_ns();
        let measured = r.clock.host_times(&batch.stamps, r.previous_end);
        batch.stamps.clear();
        for post in batch.posts.drain(..) {
            if ok {
                post();
            }
        }
        // Before the events complete: an application that waits for them
        // cannot have exited while these drops run.
        batch.keep.clear();
        self.ring_pool.lock().append(&mut batch.ring_used);
        batch.waits.clear();
        if !ok {
            if let Some(first) = batch.events.first() {
                first.context.report(
                    "ferrocl: a batch of commands failed on the device (CL_OUT_OF_RESOURCES)",
                );
            }
        }
        let status = if ok {
            CL_COMPLETE as cl_int
        } else {
            CL_OUT_OF_RESOURCES
        };
        for (i, e) in batch.events.iter().enumerate() {
            let times = measured.get(i).copied().flatten();
            if !app_thread {
                e.complete_timed(status, times);
            } else if e.complete_quietly(status, times) {
                notify.push(e.clone());
            }
        }
        // An event nothing else refers to serves a later command; one only
        // a weak link still names waits in the graveyard; one someone else
        // holds is let go here (its reference count is the application's
        // again).
        // One lock of the spare list per batch: the enqueue thread takes
        // from it too.
        let mut spare = self.spare_events.lock();
        for e in batch.events.drain(..) {
            match e.into_spare() {
                Ok(e) if spare.len() < SPARE_EVENTS => spare.push(e),
                Ok(e) => self.graveyard.lock().push(e),
                Err(e) if Arc::strong_count(&e) == 1 => self.graveyard.lock().push(e),
                Err(_) => {}
            }
        }
        drop(spare);
        // The emptied vectors serve a later batch.
        let mut spare = self.spare_batches.lock();
        if spare.len() < BATCHES_ALIVE {
            spare.push(batch);
        }
    }
}

/// The completion thread of one queue: waits for the oldest batch, retires
/// what has finished, and runs the callbacks that application threads left
/// to it.
fn run_completion_thread(c: &Completion) {
    loop {
        let notify = {
            let mut pending = c.pending.lock();
            let mut idle_since = None;
            while pending.notify.is_empty() && pending.batches.is_empty() {
                if pending.closed {
                    return;
                }
                let idle = idle_since.get_or_insert_with(std::time::Instant::now);
                if idle.elapsed() < c.spin.idle_watch {
                    MutexGuard::unlocked(&mut pending, || std::thread::sleep(IDLE_WATCH_SLEEP));
                } else {
                    c.arrived.wait(&mut pending);
                }
            }
            std::mem::take(&mut pending.notify)
        };
        for e in notify {
            e.notify_done();
        }
        let value = c.start_oldest(&mut c.retiring.lock());
        if let Some(value) = value {
            let ok = wait_timeline(&c.timeline, value, c.spin, Waiter::CompletionThread);
            c.retire_reached(&mut c.retiring.lock(), !ok, false, u64::MAX);
        }
    }
}

/// How a thread that waits for a batch polls the timeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Poll {
    /// How long to poll before sleeping or blocking.
    limit: Duration,
    /// Give the core away between two reads of the counter.
    yields: bool,
    /// After that, go on reading the counter between sleeps instead of
    /// blocking in `vkWaitSemaphores`.
    sleeps: bool,
    /// How long the completion thread, having retired every batch, looks
    /// for the next one between sleeps ([`IDLE_WATCH_SLEEP`]) before it
    /// parks until a submission wakes it. While it watches, a submission
    /// need not wake it: on an H200 host (a virtual machine) the futex
    /// call of that wake-up cost the enqueue that submitted a batch
    /// several microseconds, once every 2 to 32 launches of a pipelined
    /// stream whose device kept up.
    idle_watch: Duration,
}

/// The completion thread's sleep between two looks at the submitted
/// batches while it watches for them ([`Poll::idle_watch`]).
const IDLE_WATCH_SLEEP: Duration = Duration::from_micros(50);

/// The shortest and longest sleep between two reads of the counter: a
/// wait sleeps a sixteenth of what it has waited so far, so it notices
/// the end of a long batch within about 6 % of its length.
const MIN_SLEEP: Duration = Duration::from_micros(20);
const MAX_SLEEP: Duration = Duration::from_millis(1);

/// Who waits in [`wait_timeline`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Waiter {
    /// An application call that waits for commands to finish (`clFinish`,
    /// a blocking call, `clWaitForEvents`).
    Application,
    /// An enqueue held back by the batches in flight ([`MAX_IN_FLIGHT`]):
    /// it waits for room, while the device still has the later batches.
    HeldBack,
    CompletionThread,
}

/// The longest sleep of an enqueue held back by the batches in flight,
/// once the batch it waits for is the next to finish: short enough that
/// the batches behind it do not run out while it sleeps (a stream of
/// empty kernels runs 32 a batch in tens of microseconds), without
/// spinning a core while the device has work queued.
const HELD_BACK_SLEEP: Duration = Duration::from_micros(50);

/// A blocking host wait on a semaphore returns well after the signal: on a
/// GPU the driver sleeps until an interrupt, tens of microseconds, which is
/// most of the round trip of a short command; polling the counter for a
/// while catches short batches as they end. A CPU device (lavapipe) runs
/// the commands on threads of this process, on the same cores: there the
/// waiter polls only briefly and yields between reads, which still saves
/// the futex sleep and wake-up of the common case (a short command on an
/// otherwise idle queue ends within a few microseconds of the submit)
/// without taking a core from the threads running the command, and its
/// completion thread parks as soon as it is idle.
///
/// On a GPU the waiter never blocks in `vkWaitSemaphores`: on an H100
/// (driver 580) a host thread blocked there while the queue ran further
/// batches slowed the device itself. Back-to-back 75 µs kernels took 73 µs
/// each with the waiters polling (between sleeps or not), and 73 to 97 µs,
/// changing from one 40 ms sample to the next, with the completion thread
/// blocking for each batch (device timestamps put every kernel at the same
/// 76 µs). It showed as the spread of every compute and bandwidth row of
/// `ferrocl bench`.
pub(crate) fn completion_poll(device_type: ferrocl_vk::DeviceType) -> Poll {
    match device_type {
        ferrocl_vk::DeviceType::Cpu => Poll {
            limit: Duration::from_micros(20),
            yields: true,
            sleeps: false,
            idle_watch: Duration::ZERO,
        },
        _ => Poll {
            limit: Duration::from_micros(200),
            yields: false,
            sleeps: true,
            idle_watch: Duration::from_millis(2),
        },
    }
}

/// Waits until `timeline` reaches `value` as `poll` says. False if the
/// device failed.
fn wait_timeline(timeline: &Timeline, value: u64, poll: Poll, waiter: Waiter) -> bool {
    let start = std::time::Instant::now();
    loop {
        let waited = start.elapsed();
        match timeline.value() {
            Ok(v) if v >= value => return true,
            Err(_) => return false,
            Ok(_) if waited < poll.limit => {
                if poll.yields {
                    std::thread::yield_now()
                } else {
                    std::hint::spin_loop()
                }
            }
            Ok(v) if poll.sleeps => match sleep_between_reads(waited, v, value, waiter) {
                Some(pause) => std::thread::sleep(pause),
                None => std::thread::yield_now(),
            },
            Ok(_) => return matches!(timeline.wait(value, u64::MAX), Ok(true)),
        }
    }
}

/// How long a waiter that has waited `waited` for the timeline to reach
/// `value` sleeps before it reads the counter again, having read `now`;
/// `None` where it only gives the core away: an application thread
/// (`clFinish`, a blocking call, `clWaitForEvents`) whose batch is the
/// next to finish. What such a thread oversleeps is time the application
/// loses: with 1 ms sleeps, a
/// `clFinish` after 500 launches of a 97 µs kernel on an H100 returned
/// about 0.35 ms late on average; with 50 µs sleeps (about 100 µs each
/// with Linux's default timer slack) the bench's 50 ms streams of
/// launches lost 0.1-0.4 % on an H200 (the int32 compute row 32963-32987
/// GIOPS with those sleeps, 33076-33114 reading the counter without
/// them). NVIDIA's own `clFinish` spins a core the same way. An enqueue
/// held back by the batches in flight and the completion thread, which
/// no application call waits for, keep sleeping.
fn sleep_between_reads(waited: Duration, now: u64, value: u64, waiter: Waiter) -> Option<Duration> {
    let next = now + 1 >= value;
    let longest = match waiter {
        Waiter::Application if next => return None,
        Waiter::HeldBack if next => HELD_BACK_SLEEP,
        _ => MAX_SLEEP,
    };
    Some((waited / 16).clamp(MIN_SLEEP, longest))
}

/// What turns device timestamps into host-clock profiling times.
struct DeviceClock {
    device: ferrocl_vk::Device,
    /// Nanoseconds per timestamp tick.
    period_ns: f64,
}

impl DeviceClock {
    /// A device tick count and the host clock ([`host_time_ns`]) at the same
    /// moment, from VK_EXT_calibrated_timestamps: the host clock is read
    /// just before and after the calibrated sample and the midpoint taken,
    /// which places the pair on this process's profiling clock whatever host
    /// time domain the device calibrates against.
    fn calibrate(&self) -> Option<(u64, u64)> {
        let before = host_time_ns();
        let sample = self.device.calibrated_host_time().ok()??;
        let after = host_time_ns();
        Some((sample.device_ticks, before + (after - before) / 2))
    }

    /// Host-clock (start, end) of each command that device timestamps
    /// measured. Calibrated against the host clock where the device can
    /// (one calibration per batch, so the clocks cannot drift apart);
    /// elsewhere the durations are the device's and the batch's last
    /// timestamp is placed at `anchor_ns`, when its completion was observed.
    fn host_times(&self, stamps: &[Stamps], anchor_ns: u64) -> Vec<Option<(u64, u64)>> {
        if stamps.iter().all(Option::is_none) {
            return Vec::new();
        }
        let ticks: Vec<Option<(u64, u64)>> = stamps
            .iter()
            .map(|s| {
                let (a, b) = s.as_ref()?;
                Some((a.ticks().ok()??, b.ticks().ok()??))
            })
            .collect();
        let Some(last) = ticks.iter().flatten().map(|t| t.1).max() else {
            return ticks;
        };
        let (ref_ticks, ref_ns) = self.calibrate().unwrap_or((last, anchor_ns));
        let period = self.period_ns;
        let to_host = |t: u64| {
            if t >= ref_ticks {
                ref_ns.saturating_add(((t - ref_ticks) as f64 * period) as u64)
            } else {
                ref_ns.saturating_sub(((ref_ticks - t) as f64 * period) as u64)
            }
        };
        ticks
            .into_iter()
            .map(|t| t.map(|(a, b)| (to_host(a), to_host(b))))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sleeps grow with the time waited, up to 1 ms, except that an
    /// application thread whose batch is the next to finish does not sleep
    /// (what it oversleeps, the application loses) and an enqueue held
    /// back by the batches in flight sleeps briefly then; the completion
    /// thread keeps the long sleeps.
    #[test]
    fn application_waiters_stop_sleeping_once_their_batch_is_next() {
        let long = Duration::from_millis(100);
        let sleep = |now, waiter| sleep_between_reads(long, now, 10, waiter);
        assert_eq!(sleep(8, Waiter::Application), Some(MAX_SLEEP));
        assert_eq!(sleep(9, Waiter::Application), None);
        assert_eq!(sleep(10, Waiter::Application), None);
        assert_eq!(sleep(9, Waiter::CompletionThread), Some(MAX_SLEEP));
        assert_eq!(sleep(8, Waiter::CompletionThread), Some(MAX_SLEEP));
        // An enqueue waiting for room sleeps briefly near the end.
        assert_eq!(sleep(9, Waiter::HeldBack), Some(HELD_BACK_SLEEP));
        assert_eq!(sleep(8, Waiter::HeldBack), Some(MAX_SLEEP));
        assert!(HELD_BACK_SLEEP < MAX_SLEEP);
        // Early in a wait the sleeps are short for everyone else.
        let early =
            sleep_between_reads(Duration::from_micros(400), 0, 10, Waiter::CompletionThread);
        assert_eq!(early, Some(MIN_SLEEP.max(Duration::from_micros(25))));
    }

    /// A GPU's waiter reads the counter between sleeps until the value
    /// arrives, however late; a CPU device's waiter blocks. Both see a
    /// value a host thread signals while they wait.
    #[test]
    fn waiters_see_late_signals_whether_they_sleep_or_block() {
        let instance = ferrocl_vk::Instance::new();
        if instance.devices().is_empty() {
            return;
        }
        let device = instance.open_device(0).expect("open the Vulkan device");
        for (kind, late) in [
            (ferrocl_vk::DeviceType::DiscreteGpu, 30),
            (ferrocl_vk::DeviceType::Cpu, 5),
        ] {
            let poll = completion_poll(kind);
            assert_eq!(poll.sleeps, kind != ferrocl_vk::DeviceType::Cpu);
            let timeline = device.create_timeline(0).expect("timeline");
            let start = std::time::Instant::now();
            std::thread::scope(|scope| {
                scope.spawn(|| {
                    std::thread::sleep(Duration::from_millis(late));
                    timeline.signal(3).expect("host signal");
                });
                assert!(
                    wait_timeline(&timeline, 2, poll, Waiter::Application),
                    "{kind:?}"
                );
            });
            let waited = start.elapsed();
            assert!(
                waited >= Duration::from_millis(late),
                "{kind:?}: {waited:?}"
            );
            // The sleeps grow to a sixteenth of the wait, at most 1 ms.
            assert!(
                waited < Duration::from_millis(late + 200),
                "{kind:?}: {waited:?}"
            );
            assert!(
                wait_timeline(&timeline, 3, poll, Waiter::Application),
                "{kind:?}: reached already"
            );
        }
    }

    /// Once it has retired every batch, a GPU queue's completion thread
    /// watches for the next one for `idle_watch` (a submission then wakes
    /// no thread) and parks after that (the next submission wakes it); a
    /// CPU device's parks at once.
    #[test]
    fn an_idle_completion_thread_watches_before_it_parks() {
        let instance = ferrocl_vk::Instance::new();
        if instance.devices().is_empty() {
            return;
        }
        let device = instance.open_device(0).expect("open the Vulkan device");
        let gpu = completion_poll(ferrocl_vk::DeviceType::DiscreteGpu);
        assert!(gpu.idle_watch > Duration::ZERO);
        let cpu = completion_poll(ferrocl_vk::DeviceType::Cpu);
        assert_eq!(cpu.idle_watch, Duration::ZERO);
        // A watch far longer than the test, and one that ends at once.
        for (watch, parks) in [(Duration::from_secs(30), false), (Duration::ZERO, true)] {
            let timeline = Arc::new(device.create_timeline(0).expect("timeline"));
            let poll = Poll {
                idle_watch: watch,
                ..gpu
            };
            let c = Arc::new(Completion::new(&device, timeline, Arc::default(), poll));
            let thread = {
                let c = c.clone();
                std::thread::spawn(move || run_completion_thread(&c))
            };
            c.pending.lock().batches.push_back(Submitted {
                value: 1,
                batch: Batch::with_room(),
            });
            c.arrived.notify_one();
            c.timeline.signal(1).expect("host signal");
            let start = std::time::Instant::now();
            while c.retired_value() < 1 {
                assert!(start.elapsed() < Duration::from_secs(10), "never retired");
                std::thread::sleep(Duration::from_millis(1));
            }
            std::thread::sleep(Duration::from_millis(50));
            assert_eq!(c.arrived.notify_one(), parks, "watch {watch:?}");
            c.pending.lock().closed = true;
            c.arrived.notify_one();
            thread
                .join()
                .expect("the completion thread ends once closed");
        }
    }

    fn buffers(reads: &[usize], writes: &[usize]) -> Access {
        Access::Buffers {
            reads: reads.to_vec(),
            writes: writes.to_vec(),
        }
    }

    fn after(earlier: &[Access]) -> Hazards {
        let mut h = Hazards::default();
        for a in earlier {
            h.add_access(a);
        }
        h
    }

    fn uses(reads: &[usize], writes: &[usize]) -> Access {
        let mut list = UseList::default();
        for &k in reads {
            assert!(list.push(k, false));
        }
        for &k in writes {
            assert!(list.push(k, true));
        }
        Access::Uses(list)
    }

    #[test]
    fn address_hashes_spread_aligned_addresses() {
        // Heap addresses share their low bits (alignment); the bucket comes
        // from the hash's low bits, which must still differ.
        let buckets: HashSet<u64> = (0..1024u64)
            .map(|i| {
                let mut h = AddressHasher::default();
                h.write_usize(0x7f00_1234_0000 + i as usize * 64);
                h.finish() & 1023
            })
            .collect();
        // Random hashes fill about 1 - 1/e of them (647).
        assert!(buckets.len() > 600, "{} of 1024 buckets", buckets.len());
    }

    #[test]
    fn barriers_follow_hazards_per_memory_object() {
        let h = after(&[buffers(&[1], &[2])]);
        // Read after read, and work on other objects: no barrier.
        assert!(!h.conflicts(&buffers(&[1], &[3])));
        assert!(!h.conflicts(&Access::Nothing));
        // Read after write, write after read, write after write.
        assert!(h.conflicts(&buffers(&[2], &[])));
        assert!(h.conflicts(&buffers(&[], &[1])));
        assert!(h.conflicts(&buffers(&[], &[2])));
        // Unknown access on either side.
        assert!(h.conflicts(&Access::Unknown));
        assert!(after(&[Access::Unknown]).conflicts(&buffers(&[7], &[])));
        assert!(!after(&[]).conflicts(&buffers(&[1], &[2])));
    }

    #[test]
    fn inline_use_lists_track_hazards_like_buffer_lists() {
        let cases: [(&[usize], &[usize]); 5] = [
            (&[1], &[3]),
            (&[2], &[]),
            (&[], &[1]),
            (&[], &[2]),
            (&[4, 5], &[6]),
        ];
        for earlier in [buffers(&[1], &[2]), uses(&[1], &[2])] {
            let h = after(std::slice::from_ref(&earlier));
            for (reads, writes) in cases {
                assert_eq!(
                    h.conflicts(&uses(reads, writes)),
                    h.conflicts(&buffers(reads, writes)),
                    "{earlier:?} then reads {reads:?} writes {writes:?}"
                );
            }
        }
        let mut full = UseList::default();
        for k in 0..UseList::CAPACITY {
            assert!(full.push(k, false));
        }
        assert!(!full.push(99, true));
    }
}
