//! Where the contents of a memory object live in a context with several
//! devices, and how they move between devices (`clEnqueueMigrateMemObjects`
//! and the implicit migrations before commands).
//!
//! Each device of a context has its own Vulkan device, so a memory object
//! has one backing buffer per device: device 0's is [`Mem::buffer`],
//! allocated with the object; the others are allocated the first time a
//! command on that device uses the object. Sub-buffers and images made from
//! a memory object share the backing of their root object (the one without
//! a parent) at [`Mem::offset`], so residency is tracked on the root.
//!
//! The state changes in enqueue order, which is the order the application's
//! synchronisation promises for commands that use an object on several
//! devices:
//!
//! - a command that writes the object on device d makes d the owner, its
//!   copy the only valid one, and remembers the queue;
//! - a command that uses the object on a device whose copy is stale first
//!   gets a migration command on its own queue: it waits, on the host (a
//!   Vulkan semaphore of one device cannot be waited for by another), for a
//!   marker behind the owner's writing queues, copies the owner's contents
//!   to the host (directly from host-cached memory, else through a transfer
//!   on the owner's device) and from there into a staging buffer that the
//!   GPU copies into the stale backing. On an out-of-order queue the
//!   command waits for that migration's event.
//!
//! Objects without initial contents are valid everywhere until first
//! written: there is nothing to move. In a context with one device none of
//! this runs: [`Mem`] carries no residency and every call returns at once.
//!
//! This module owns the residency state only; it records through the
//! queues' ordinary enqueue path and makes no Vulkan call itself.

use crate::cl::*;
use crate::event::Event;
use crate::memory::Mem;
use crate::queue::{no_work, Access, Queue, Recorder};
use crate::vk_error;
use ferrocl_vk::{Buffer, MemoryLocation};
use parking_lot::Mutex;
use std::borrow::Cow;
use std::sync::{Arc, Weak};

/// How a command uses a memory object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Use {
    /// Reads the contents.
    Read,
    /// Reads or partly overwrites the contents: they must be current on the
    /// command's device, whose copy is the only valid one afterwards.
    Update,
    /// Makes the whole contents undefined or replaces them
    /// (`CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED`): nothing is moved.
    Replace,
}

/// The per-device state of a memory object in a context with several
/// devices.
pub struct Residency {
    state: Mutex<State>,
}

struct State {
    /// Per device of the context: the root object's memory there. Entry 0
    /// is [`Mem::buffer`]; the others are allocated on first use.
    backings: Vec<Option<Arc<Buffer>>>,
    /// Per device: its copy holds the latest contents.
    valid: Vec<bool>,
    /// The device written last; migrations copy from it.
    owner: usize,
    /// The owner's queues that wrote the object since it became the owner:
    /// a migration waits for everything enqueued on them so far.
    writers: Vec<Weak<Queue>>,
    /// Images: per device, the image descriptor (docs/images.md) that points
    /// at that device's pixels. Entry 0 is unused: the image holds device
    /// 0's.
    descriptors: Vec<Option<Arc<Buffer>>>,
}

impl Residency {
    /// The residency of a new memory object whose device-0 memory is
    /// `buffer`; `None` in a context with one device. `initialized`: the
    /// object's contents were written into `buffer` (host data), so the
    /// other devices' copies start stale.
    pub fn new(devices: usize, buffer: &Arc<Buffer>, initialized: bool) -> Option<Residency> {
        if devices < 2 {
            return None;
        }
        let mut backings = vec![None; devices];
        backings[0] = Some(buffer.clone());
        let mut valid = vec![!initialized; devices];
        valid[0] = true;
        Some(Residency {
            state: Mutex::new(State {
                backings,
                valid,
                owner: 0,
                writers: Vec::new(),
                descriptors: vec![None; devices],
            }),
        })
    }

    /// Which devices hold a valid copy (for tests and diagnostics).
    pub fn valid_devices(&self) -> Vec<bool> {
        self.state.lock().valid.clone()
    }
}

impl State {
    /// A write on device `index` through `queue`: that copy alone is valid.
    fn note_write(&mut self, index: usize, queue: &Arc<Queue>) {
        self.valid.iter_mut().for_each(|v| *v = false);
        self.valid[index] = true;
        if self.owner != index {
            self.owner = index;
            self.writers.clear();
        }
        self.writers.retain(|w| w.strong_count() > 0);
        if !self
            .writers
            .iter()
            .any(|w| std::ptr::eq(w.as_ptr(), Arc::as_ptr(queue)))
        {
            self.writers.push(Arc::downgrade(queue));
        }
    }
}

impl Mem {
    /// The memory object whose memory this one shares: itself, or for a
    /// sub-buffer or an image made from a memory object, the first
    /// ancestor without a parent.
    pub fn root(&self) -> &Mem {
        let mut mem = self;
        while let Some(parent) = &mem.parent {
            mem = parent;
        }
        mem
    }

    /// The residency of this object's memory across the devices of its
    /// context; `None` in a context with one device.
    pub fn residency(&self) -> Option<&Residency> {
        self.root().residency.as_ref()
    }

    /// The buffer that holds this object (at [`Mem::offset`]) on device
    /// `index` of its context, allocated there on first use. Its contents
    /// are current only after [`prepare`].
    pub fn buffer_on(&self, index: usize) -> Result<Arc<Buffer>, cl_int> {
        if index == 0 {
            return Ok(self.buffer.clone());
        }
        let root = self.root();
        // Without residency the memory is the first device's only (SVM).
        let residency = root.residency.as_ref().ok_or(CL_OUT_OF_RESOURCES)?;
        let mut state = residency.state.lock();
        backing(&mut state, root, index)
    }

    /// The device address of byte 0 of this object on device `index` of its
    /// context (a kernel argument).
    pub fn device_address_on(&self, index: usize) -> Result<u64, cl_int> {
        if index == 0 {
            return Ok(self.device_address());
        }
        Ok(self.buffer_on(index)?.device_address() + self.offset as u64)
    }

    /// The device address of this image's descriptor on device `index` of
    /// its context (an `image*_t` argument); the descriptor for a device
    /// other than the first is made on first use, pointing at that device's
    /// pixels.
    pub fn image_descriptor_on(&self, index: usize) -> Result<u64, cl_int> {
        let image = self.image.as_deref().ok_or(CL_INVALID_MEM_OBJECT)?;
        let Some(residency) = self.residency.as_ref().filter(|_| index != 0) else {
            return Ok(image.descriptor_address());
        };
        if let Some(d) = residency
            .state
            .lock()
            .descriptors
            .get(index)
            .ok_or(CL_INVALID_DEVICE)?
        {
            return Ok(d.device_address());
        }
        // Made outside the lock: the pixel address locks the root, which
        // may be this object, and the upload waits for the device.
        let pixels = self.device_address_on(index)?;
        let bytes =
            crate::image::descriptor_bytes(pixels, &image.format, &image.desc, image.element_size);
        let device = self.context.devices[index].backend()?;
        let descriptor = Arc::new(
            device
                .create_buffer(bytes.len() as u64, MemoryLocation::DeviceLocal)
                .map_err(vk_error)?,
        );
        self.context.upload(index, &descriptor, 0, &bytes)?;
        let mut state = residency.state.lock();
        let slot = &mut state.descriptors[index];
        // A racing launch may have made one meanwhile; both are equal.
        Ok(slot.get_or_insert(descriptor).device_address())
    }
}

/// The root's backing on device `index`, allocated on first use.
fn backing(state: &mut State, root: &Mem, index: usize) -> Result<Arc<Buffer>, cl_int> {
    let slot = state.backings.get_mut(index).ok_or(CL_INVALID_DEVICE)?;
    if let Some(buffer) = slot {
        return Ok(buffer.clone());
    }
    let device = root.context.devices[index].backend()?;
    let buffer = Arc::new(
        device
            .create_aligned_buffer(
                root.buffer.size(),
                MemoryLocation::DeviceLocal,
                crate::memory::base_alignment(&root.context.devices[index]),
            )
            .map_err(vk_error)?,
    );
    *slot = Some(buffer.clone());
    Ok(buffer)
}

/// The index of `queue`'s device in its context.
fn device_index(queue: &Queue) -> Result<usize, cl_int> {
    queue
        .context
        .device_index(&queue.device)
        .ok_or(CL_INVALID_COMMAND_QUEUE)
}

/// A copy of the owner's contents into a stale backing.
struct Migration {
    owner: usize,
    source: Arc<Buffer>,
    writers: Vec<Arc<Queue>>,
}

/// Makes `mem` current on `queue`'s device for a command that uses it as
/// `usage`, and returns the buffer holding it there (at `mem.offset`). When
/// that device's copy is stale, a migration is enqueued on `queue` first;
/// on an out-of-order queue its event joins `waits`, which the command must
/// then wait for. In a context with one device this only returns
/// [`Mem::buffer`].
pub fn prepare(
    queue: &Arc<Queue>,
    mem: &Mem,
    usage: Use,
    waits: &mut Cow<'_, [Arc<Event>]>,
) -> Result<Arc<Buffer>, cl_int> {
    let root = mem.root();
    let Some(residency) = root.residency.as_ref() else {
        // One device, or memory that lives on the first device only (SVM).
        if queue.context.devices.len() > 1 && device_index(queue)? != 0 {
            return Err(CL_OUT_OF_RESOURCES);
        }
        return Ok(mem.buffer.clone());
    };
    let index = device_index(queue)?;
    let (target, migration) = {
        let mut state = residency.state.lock();
        let target = backing(&mut state, root, index)?;
        let migration = if usage != Use::Replace && !state.valid[index] {
            let owner = state.owner;
            let source = state.backings[owner].clone().ok_or(CL_OUT_OF_RESOURCES)?;
            let writers = state.writers.iter().filter_map(Weak::upgrade).collect();
            Some(Migration {
                owner,
                source,
                writers,
            })
        } else {
            None
        };
        (target, migration)
    };
    // Enqueued without the lock: the owner's queues are locked meanwhile.
    if let Some(migration) = migration {
        let event = enqueue_copy_from_owner(queue, root, migration, target.clone())?;
        if queue.out_of_order() {
            waits.to_mut().push(event);
        }
    }
    let mut state = residency.state.lock();
    state.valid[index] = true;
    if usage != Use::Read {
        state.note_write(index, queue);
    }
    Ok(target)
}

/// [`prepare`] for the memory objects of a kernel launch: those whose entry
/// in `read_only` is true are read, the others updated. Costs one lock per
/// object when the contents are already current, and nothing in a context
/// with one device.
pub fn prepare_launch(
    queue: &Arc<Queue>,
    mems: &[Arc<Mem>],
    read_only: &[bool],
    waits: &mut Cow<'_, [Arc<Event>]>,
) -> Result<(), cl_int> {
    if queue.context.devices.len() < 2 {
        return Ok(());
    }
    for (i, mem) in mems.iter().enumerate() {
        let usage = if read_only.get(i).copied().unwrap_or(false) {
            Use::Read
        } else {
            Use::Update
        };
        prepare(queue, mem, usage, waits)?;
    }
    Ok(())
}

/// Enqueues on `queue` the copy of `root`'s contents from the owner's
/// backing into `target`.
fn enqueue_copy_from_owner(
    queue: &Arc<Queue>,
    root: &Mem,
    migration: Migration,
    target: Arc<Buffer>,
) -> Result<Arc<Event>, cl_int> {
    // A marker behind everything enqueued so far on each writing queue:
    // the owner's copy is final once they complete.
    let mut deps = Vec::with_capacity(migration.writers.len());
    for writer in &migration.writers {
        deps.push(writer.enqueue_with_access(CL_COMMAND_MARKER, &[], Access::Nothing, no_work)?);
    }
    let Migration { owner, source, .. } = migration;
    let size = source.size().min(target.size()) as usize;
    let context = queue.context.clone();
    let access = Access::writes_to(&root.buffer);
    let record = move |r: &mut Recorder<'_>| {
        let stage = Arc::new(r.staging.take(size, MemoryLocation::HostToDevice)?);
        r.keep(stage.clone());
        r.keep(source.clone());
        r.keep(target.clone());
        let ptr = stage.ptr();
        if ptr.is_null() {
            return Err(CL_OUT_OF_RESOURCES);
        }
        // SAFETY: the staging buffer is mapped and at least `size` bytes
        // long, and no command uses it yet.
        let bytes = unsafe { std::slice::from_raw_parts_mut(ptr, size) };
        context.read_back(owner, &source, 0, bytes)?;
        r.stream
            .copy_buffer(stage.buffer(), 0, &target, 0, size as u64)
            .map_err(vk_error)
    };
    queue.enqueue_with_access(CL_COMMAND_MIGRATE_MEM_OBJECTS, &deps, access, record)
}

/// `clEnqueueMigrateMemObjects` after the ICD's checks.
///
/// - No flag: each object's latest contents move to the queue's device
///   (which keeps them until another device writes the object).
/// - `CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED`: the queue's device gets the
///   object without its contents, and becomes the only device whose copy
///   counts.
/// - `CL_MIGRATE_MEM_OBJECT_HOST`: objects created with
///   `CL_MEM_USE_HOST_PTR` get their latest contents written into the
///   application's `host_ptr` memory when the command completes; the memory
///   of other objects is device memory that the host reaches through
///   mapping, so for them the command only orders. With
///   `CONTENT_UNDEFINED` as well, nothing is copied.
pub fn enqueue_migrate(
    queue: &Arc<Queue>,
    mems: Vec<Arc<Mem>>,
    flags: cl_bitfield,
    wait_list: &[Arc<Event>],
) -> Result<Arc<Event>, cl_int> {
    let undefined = flags & CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED != 0;
    let to_host = flags & CL_MIGRATE_MEM_OBJECT_HOST != 0;
    let mut waits = Cow::Borrowed(wait_list);
    let mut to_host_ptr = Vec::new();
    for mem in &mems {
        match (to_host, undefined) {
            (false, false) => {
                prepare(queue, mem, Use::Read, &mut waits)?;
            }
            (false, true) => {
                prepare(queue, mem, Use::Replace, &mut waits)?;
            }
            (true, false) if mem.host_ptr != 0 && mem.size > 0 => {
                let buffer = prepare(queue, mem, Use::Read, &mut waits)?;
                to_host_ptr.push((mem.clone(), buffer));
            }
            (true, _) => {}
        }
    }
    let record = move |r: &mut Recorder<'_>| {
        for mem in &mems {
            r.keep(mem.clone());
        }
        for (mem, buffer) in to_host_ptr {
            write_back_to_host_ptr(r, mem, buffer)?;
        }
        Ok(())
    };
    queue.enqueue(CL_COMMAND_MIGRATE_MEM_OBJECTS, &waits, record)
}

/// Records the copy of `mem`'s contents in `buffer` into its `host_ptr`
/// memory, done on the host when the command completes.
fn write_back_to_host_ptr(
    r: &mut Recorder<'_>,
    mem: Arc<Mem>,
    buffer: Arc<Buffer>,
) -> Result<(), cl_int> {
    let size = mem.size;
    let from = (mem.offset as u64, buffer.mapped_ptr());
    // Memory that is the application's own pages already holds them.
    if let (_, Some(base)) = from {
        if base.as_ptr() as usize + mem.offset == mem.host_ptr {
            return Ok(());
        }
    }
    let stage = Arc::new(r.staging.take(size, MemoryLocation::DeviceToHost)?);
    r.keep(stage.clone());
    r.keep(buffer.clone());
    r.stream
        .copy_buffer(&buffer, from.0, stage.buffer(), 0, size as u64)
        .map_err(vk_error)?;
    let stage_ptr = stage.ptr() as usize;
    if stage_ptr == 0 {
        return Err(CL_OUT_OF_RESOURCES);
    }
    let host = mem.host_ptr;
    r.after(Box::new(move || {
        // SAFETY: the staging buffer holds `size` bytes; `host_ptr` of a
        // USE_HOST_PTR object covers the object for its whole life, and the
        // command holds the object.
        unsafe { crate::staging::host_copy(stage_ptr as *const u8, host as *mut u8, size) };
        drop((stage, mem));
    }));
    Ok(())
}
