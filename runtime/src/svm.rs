//! Coarse-grained buffer shared virtual memory: `clSVMAlloc`, `clSVMFree`
//! and the `clEnqueueSVM*` commands.
//!
//! The value `clSVMAlloc` returns is the allocation's Vulkan device address
//! (what a kernel's `__global` pointer holds, DESIGN.md), and the same
//! number is a host address of the allocation's bytes, so pointers stored
//! in SVM memory mean the same on both sides. The backend makes that true
//! in one of two ways ([`SvmHostView`]): where a host-visible buffer's
//! persistent mapping is at its device address (lavapipe), host and device
//! share the bytes; elsewhere host pages are reserved at the device address
//! and map and unmap copy between them and the buffer, which is what
//! coarse-grained sharing allows. A device reports
//! `CL_DEVICE_SVM_COARSE_GRAIN_BUFFER` only when a probe allocation at its
//! first query gets one of the two ([`device_capabilities`]).
//!
//! Each allocation is a hidden buffer object ([`Mem`]) over the buffer, so
//! copies, fills and host transfers reuse the buffer commands and their
//! hazard tracking, and `CL_MEM_USE_HOST_PTR` with an SVM pointer makes one
//! more buffer object over the same storage. This module never calls
//! Vulkan itself.

use crate::api::handle_of;
use crate::cl::*;
use crate::context::Context;
use crate::device::Device;
use crate::event::Event;
use crate::memory::{self, wait_blocking, Mem, Rect, DEVICE_ACCESS_FLAGS};
use crate::queue::{memory_key, no_work, Access, Queue, Recorder};
use crate::vk_error;
use ferrocl_vk::{MemoryLocation, SvmHostView};
use parking_lot::Mutex;
use std::collections::{BTreeMap, HashMap};
use std::ffi::c_void;
use std::sync::Arc;

/// The default alignment of `clSVMAlloc` (alignment 0): the size of the
/// largest OpenCL C type, `long16`.
pub const DEFAULT_ALIGNMENT: usize = 128;

/// The largest alignment `clSVMAlloc` accepts: device addresses of
/// sub-allocated Vulkan memory are not promised anything larger.
pub const MAX_ALIGNMENT: usize = 64 * 1024;

/// The `pfn_free_func` of `clEnqueueSVMFree`.
pub type SvmFreeCallback =
    unsafe extern "C" fn(*mut c_void, cl_uint, *mut *mut c_void, *mut c_void);

/// One host mapping of a mirrored allocation (`clEnqueueSVMMap`).
struct SvmMapping {
    ptr: usize,
    size: usize,
    write: bool,
}

/// One `clSVMAlloc` allocation.
pub struct SvmAllocation {
    /// The `flags` of `clSVMAlloc`.
    pub flags: cl_bitfield,
    /// The hidden buffer object over the whole allocation: its `host_ptr`
    /// is the SVM pointer, its `size` the size asked for.
    pub mem: Arc<Mem>,
    view: SvmHostView,
    maps: Mutex<Vec<SvmMapping>>,
}

impl SvmAllocation {
    pub fn base(&self) -> usize {
        self.mem.host_ptr
    }

    pub fn size(&self) -> usize {
        self.mem.size
    }

    pub fn context(&self) -> &Arc<Context> {
        &self.mem.context
    }
}

/// Every live allocation by its SVM pointer. Addresses are unique in the
/// process (they are host addresses too), so one map serves all contexts.
static ALLOCATIONS: Mutex<BTreeMap<usize, Arc<SvmAllocation>>> = Mutex::new(BTreeMap::new());

/// Probe results per device (root devices live as long as the process).
static PROBED: Mutex<Option<HashMap<usize, cl_bitfield>>> = Mutex::new(None);

/// `CL_DEVICE_SVM_CAPABILITIES`: coarse-grained buffer SVM where the
/// device gives a buffer whose device address is also a host address,
/// found by allocating one small buffer the first time the question is
/// asked (which opens the Vulkan device). A device that cannot be opened,
/// or whose probe buffer is neither mapped at its device address nor able
/// to have host pages reserved there, reports 0.
pub fn device_capabilities(device: &Device) -> cl_bitfield {
    let key = device as *const Device as usize;
    if let Some(caps) = PROBED.lock().as_ref().and_then(|m| m.get(&key)) {
        return *caps;
    }
    let probe = device.backend().ok().and_then(|backend| {
        backend
            .create_svm_buffer(4096, DEFAULT_ALIGNMENT as u64)
            .ok()
            .and_then(|b| b.svm_host_view())
    });
    let caps = if probe.is_some() {
        CL_DEVICE_SVM_COARSE_GRAIN_BUFFER
    } else {
        0
    };
    PROBED
        .lock()
        .get_or_insert_with(HashMap::new)
        .insert(key, caps);
    caps
}

/// True when some device of `context` supports SVM.
pub fn context_supports_svm(context: &Context) -> bool {
    context
        .devices
        .iter()
        .any(|d| device_capabilities(d) & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER != 0)
}

/// `clSVMAlloc` after the ICD's checks of flags, size and alignment (a
/// power of two, or 0 for [`DEFAULT_ALIGNMENT`]). The memory lives on the
/// context's first device, like every buffer's.
pub fn alloc(
    context: &Arc<Context>,
    flags: cl_bitfield,
    size: usize,
    alignment: usize,
) -> Result<usize, cl_int> {
    let device = context.devices.first().ok_or(CL_INVALID_CONTEXT)?;
    if device_capabilities(device) & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER == 0 {
        return Err(CL_INVALID_OPERATION);
    }
    let alignment = if alignment == 0 {
        DEFAULT_ALIGNMENT
    } else {
        alignment
    };
    let buffer = device
        .backend()?
        .create_svm_buffer(size as u64, alignment as u64)
        .map_err(vk_error)?;
    let view = buffer.svm_host_view().ok_or(CL_OUT_OF_RESOURCES)?;
    let base = buffer.device_address() as usize;
    let mem_flags = match flags & DEVICE_ACCESS_FLAGS {
        0 => CL_MEM_READ_WRITE,
        access => access,
    };
    let mem = Mem::new_over_buffer(
        context.clone(),
        mem_flags,
        size,
        base,
        Arc::new(buffer),
        0,
        Vec::new(),
    );
    let allocation = Arc::new(SvmAllocation {
        flags,
        mem,
        view,
        maps: Mutex::new(Vec::new()),
    });
    ALLOCATIONS.lock().insert(base, allocation);
    Ok(base)
}

/// `clSVMFree`: forgets the allocation that starts at `ptr` in `context`.
/// Commands still pending hold its storage until they complete.
pub fn free(context: &Context, ptr: usize) {
    let mut all = ALLOCATIONS.lock();
    let ours = all
        .get(&ptr)
        .is_some_and(|a| std::ptr::eq(&**a.context(), context));
    if ours {
        all.remove(&ptr);
    }
}

/// The allocation holding the byte at `ptr`, and `ptr`'s offset in it.
pub fn find(ptr: usize) -> Option<(Arc<SvmAllocation>, usize)> {
    let all = ALLOCATIONS.lock();
    containing(&all, ptr, |a| a.size()).map(|(a, offset)| (a.clone(), offset))
}

/// The entry of `map` (keyed by start address) whose `size_of` bytes hold
/// `ptr`, and `ptr`'s offset in it.
fn containing<T>(
    map: &BTreeMap<usize, T>,
    ptr: usize,
    size_of: impl Fn(&T) -> usize,
) -> Option<(&T, usize)> {
    let (base, entry) = map.range(..=ptr).next_back()?;
    let offset = ptr - base;
    (offset < size_of(entry)).then_some((entry, offset))
}

/// [`find`] for a pointer used with a queue of `context`: allocations of
/// other contexts are host memory as far as this context is concerned.
fn find_in(context: &Context, ptr: usize) -> Option<(Arc<SvmAllocation>, usize)> {
    find(ptr).filter(|(a, _)| std::ptr::eq(&**a.context(), context))
}

/// `CL_MEM_USE_HOST_PTR` with a pointer into an SVM allocation: a buffer
/// object over `size` bytes of it from `host_ptr`, or `None` when
/// `host_ptr` is not SVM memory of `context`. `CL_INVALID_BUFFER_SIZE` when
/// the allocation ends before `host_ptr + size`.
pub fn buffer_over(
    context: &Arc<Context>,
    flags: cl_bitfield,
    size: usize,
    host_ptr: usize,
    properties: Vec<u64>,
) -> Result<Option<Arc<Mem>>, cl_int> {
    let Some((allocation, offset)) = find_in(context, host_ptr) else {
        return Ok(None);
    };
    if offset
        .checked_add(size)
        .is_none_or(|end| end > allocation.size())
    {
        return Err(CL_INVALID_BUFFER_SIZE);
    }
    let svm = &allocation.mem;
    Ok(Some(Mem::new_over_buffer(
        context.clone(),
        flags,
        size,
        host_ptr,
        svm.buffer.clone(),
        svm.offset + offset,
        properties,
    )))
}

/// `CL_MEM_USES_SVM_POINTER`: the object (or its parent) was made with
/// `CL_MEM_USE_HOST_PTR` over an SVM allocation's storage.
pub fn uses_svm_pointer(mem: &Mem) -> bool {
    let root = mem.parent.as_deref().unwrap_or(mem);
    root.flags & CL_MEM_USE_HOST_PTR != 0
        && find(root.host_ptr).is_some_and(|(a, _)| Arc::ptr_eq(&a.mem.buffer, &root.buffer))
}

/// The hidden buffer object of the SVM allocation of `context` that `ptr`
/// points into.
pub fn object_at(context: &Context, ptr: usize) -> Option<Arc<Mem>> {
    find_in(context, ptr).map(|(allocation, _)| allocation.mem.clone())
}

/// A byte range of an allocation as a one-row rectangle.
fn at(offset: usize) -> Rect {
    Rect {
        origin: [offset, 0, 0],
        row_pitch: 0,
        slice_pitch: 0,
    }
}

/// A command that does no device work, of `command_type`.
fn empty_command(
    queue: &Arc<Queue>,
    command_type: cl_uint,
    wait_list: &[Arc<Event>],
) -> Result<Arc<Event>, cl_int> {
    queue.enqueue_with_access(command_type, wait_list, Access::Nothing, no_work)
}

/// Checks that `size` bytes from `offset` stay inside `allocation`.
fn check_range(allocation: &SvmAllocation, offset: usize, size: usize) -> Result<(), cl_int> {
    match offset.checked_add(size) {
        Some(end) if end <= allocation.size() => Ok(()),
        _ => Err(CL_INVALID_VALUE),
    }
}

/// `clEnqueueSVMMemcpy` after the ICD's checks (pointers non-NULL, no
/// overlap). Either side may be SVM memory of the queue's context or
/// other host memory; a range that starts in an allocation must end in it.
pub fn enqueue_memcpy(
    queue: &Arc<Queue>,
    dst: usize,
    src: usize,
    size: usize,
    wait_list: &[Arc<Event>],
    blocking: bool,
) -> Result<Arc<Event>, cl_int> {
    const COPY: cl_uint = CL_COMMAND_SVM_MEMCPY;
    if size == 0 {
        let event = empty_command(queue, COPY, wait_list)?;
        if blocking {
            wait_blocking(&event)?;
        }
        return Ok(event);
    }
    let context = &queue.context;
    let to = find_in(context, dst);
    let from = find_in(context, src);
    if let Some((a, offset)) = &to {
        check_range(a, *offset, size)?;
    }
    if let Some((a, offset)) = &from {
        check_range(a, *offset, size)?;
    }
    let region = [size, 1, 1];
    let event = match (to, from) {
        (Some((d, d_off)), Some((s, s_off))) => memory::enqueue_copy(
            queue,
            &s.mem,
            at(s_off),
            &d.mem,
            at(d_off),
            region,
            wait_list,
            COPY,
        )?,
        (Some((d, d_off)), None) => memory::enqueue_write(
            queue,
            &d.mem,
            at(d_off),
            src,
            at(0),
            region,
            wait_list,
            COPY,
        )?,
        (None, Some((s, s_off))) => {
            return memory::enqueue_read(
                queue,
                &s.mem,
                at(s_off),
                dst,
                at(0),
                region,
                wait_list,
                COPY,
                blocking,
            )
            .and_then(|event| {
                if blocking {
                    wait_blocking(&event)?;
                }
                Ok(event)
            });
        }
        (None, None) => {
            // Host memory on both sides: copied on the host once the
            // command's turn comes.
            let record = move |r: &mut Recorder<'_>| {
                r.after(Box::new(move || {
                    // SAFETY: the application gives `size` readable bytes
                    // at src and writable ones at dst (checked not to
                    // overlap), valid until the command completes.
                    unsafe {
                        std::ptr::copy_nonoverlapping(src as *const u8, dst as *mut u8, size)
                    };
                }));
                Ok(())
            };
            queue.enqueue_with_access(COPY, wait_list, Access::Nothing, record)?
        }
    };
    if blocking {
        wait_blocking(&event)?;
    }
    Ok(event)
}

/// `clEnqueueSVMMemFill` after the ICD's checks of the pattern and
/// alignment. `CL_INVALID_VALUE` when the range is not inside one SVM
/// allocation of the queue's context: without fine-grained system SVM the
/// device cannot reach other memory.
pub fn enqueue_fill(
    queue: &Arc<Queue>,
    ptr: usize,
    pattern: &[u8],
    size: usize,
    wait_list: &[Arc<Event>],
) -> Result<Arc<Event>, cl_int> {
    const FILL: cl_uint = CL_COMMAND_SVM_MEMFILL;
    let (allocation, offset) = find_in(&queue.context, ptr).ok_or(CL_INVALID_VALUE)?;
    check_range(&allocation, offset, size)?;
    if size == 0 || pattern.is_empty() {
        return empty_command(queue, FILL, wait_list);
    }
    allocation.mem.check_device(queue)?;
    let mem = allocation.mem.clone();
    let start = (mem.offset + offset) as u64;
    let access = Access::writes_to(&mem.buffer);
    // A pattern that repeats every 4 bytes over a 4-byte aligned range is
    // one vkCmdFillBuffer; any other is copied from a staging buffer that
    // holds the whole range, filled now.
    let word = match pattern.len() {
        1 | 2 | 4 => {
            let mut bytes = [0u8; 4];
            for (i, b) in bytes.iter_mut().enumerate() {
                *b = pattern[i % pattern.len()];
            }
            Some(u32::from_ne_bytes(bytes))
        }
        _ => None,
    };
    if let Some(value) = word.filter(|_| start.is_multiple_of(4) && size.is_multiple_of(4)) {
        let record = move |r: &mut Recorder<'_>| {
            r.keep(mem.clone());
            r.stream
                .fill_buffer(&mem.buffer, start, size as u64, value)
                .map_err(vk_error)
        };
        return queue.enqueue_with_access(FILL, wait_list, access, record);
    }
    let stage = Arc::new(queue.staging().take(size, MemoryLocation::HostToDevice)?);
    let host = stage.ptr();
    if host.is_null() {
        return Err(CL_OUT_OF_RESOURCES);
    }
    for i in (0..size).step_by(pattern.len()) {
        // SAFETY: `size` is a multiple of the pattern size (checked by the
        // ICD) and the staging buffer holds at least `size` bytes.
        unsafe { std::ptr::copy_nonoverlapping(pattern.as_ptr(), host.add(i), pattern.len()) };
    }
    let record = move |r: &mut Recorder<'_>| {
        r.keep(mem.clone());
        r.keep(stage.clone());
        r.stream
            .copy_buffer(stage.buffer(), 0, &mem.buffer, start, size as u64)
            .map_err(vk_error)
    };
    queue.enqueue_with_access(FILL, wait_list, access, record)
}

/// `clEnqueueSVMMap` after the ICD's checks. Shared storage needs only the
/// ordering (the event completes once earlier device writes are visible to
/// the host); a mirror gets the region's bytes from the device unless the
/// map invalidates them.
pub fn enqueue_map(
    queue: &Arc<Queue>,
    ptr: usize,
    size: usize,
    map_flags: cl_bitfield,
    wait_list: &[Arc<Event>],
    blocking: bool,
) -> Result<Arc<Event>, cl_int> {
    const MAP: cl_uint = CL_COMMAND_SVM_MAP;
    let (allocation, offset) = find_in(&queue.context, ptr).ok_or(CL_INVALID_VALUE)?;
    check_range(&allocation, offset, size)?;
    allocation.mem.check_device(queue)?;
    let write = map_flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION) != 0;
    let event = match allocation.view {
        SvmHostView::Shared => {
            let mem = allocation.mem.clone();
            let access = Access::Buffers {
                reads: vec![memory_key(&mem.buffer)],
                writes: Vec::new(),
            };
            let record = move |r: &mut Recorder<'_>| {
                r.keep(mem);
                Ok(())
            };
            queue.enqueue_with_access(MAP, wait_list, access, record)?
        }
        SvmHostView::Mirror => {
            allocation.maps.lock().push(SvmMapping { ptr, size, write });
            let fetched = if map_flags & CL_MAP_WRITE_INVALIDATE_REGION != 0 {
                empty_command(queue, MAP, wait_list)
            } else {
                memory::enqueue_read(
                    queue,
                    &allocation.mem,
                    at(offset),
                    ptr,
                    at(0),
                    [size, 1, 1],
                    wait_list,
                    MAP,
                    blocking,
                )
            };
            match fetched {
                Ok(event) => event,
                Err(code) => {
                    let mut maps = allocation.maps.lock();
                    if let Some(i) = maps.iter().rposition(|m| m.ptr == ptr) {
                        maps.remove(i);
                    }
                    return Err(code);
                }
            }
        }
    };
    if blocking {
        wait_blocking(&event)?;
    }
    Ok(event)
}

/// `clEnqueueSVMUnmap` after the ICD's checks: a mirror mapped for writing
/// sends the mapped bytes to the device; anything else only orders.
pub fn enqueue_unmap(
    queue: &Arc<Queue>,
    ptr: usize,
    wait_list: &[Arc<Event>],
) -> Result<Arc<Event>, cl_int> {
    const UNMAP: cl_uint = CL_COMMAND_SVM_UNMAP;
    let Some((allocation, offset)) = find_in(&queue.context, ptr) else {
        return empty_command(queue, UNMAP, wait_list);
    };
    allocation.mem.check_device(queue)?;
    let mem = allocation.mem.clone();
    match allocation.view {
        SvmHostView::Shared => {
            // Host writes made before this call reach the device with the
            // submission of the commands after it.
            let access = Access::writes_to(&mem.buffer);
            let record = move |r: &mut Recorder<'_>| {
                r.keep(mem);
                Ok(())
            };
            queue.enqueue_with_access(UNMAP, wait_list, access, record)
        }
        SvmHostView::Mirror => {
            let mapping = {
                let mut maps = allocation.maps.lock();
                maps.iter()
                    .rposition(|m| m.ptr == ptr)
                    .map(|i| maps.remove(i))
            };
            match mapping {
                Some(m) if m.write && m.size > 0 => memory::enqueue_write(
                    queue,
                    &mem,
                    at(offset),
                    m.ptr,
                    at(0),
                    [m.size, 1, 1],
                    wait_list,
                    UNMAP,
                ),
                _ => empty_command(queue, UNMAP, wait_list),
            }
        }
    }
}

/// `clEnqueueSVMMigrateMem` after the ICD's checks. Every allocation lives
/// on the context's first device, which is where its queue's commands run,
/// so there is nothing to move: the command orders like a marker.
pub fn enqueue_migrate(queue: &Arc<Queue>, wait_list: &[Arc<Event>]) -> Result<Arc<Event>, cl_int> {
    empty_command(queue, CL_COMMAND_SVM_MIGRATE_MEM, wait_list)
}

/// Whether `[ptr, ptr + size)` lies inside one SVM allocation of `context`
/// (`size` 0: `ptr` is in one).
pub fn contains(context: &Context, ptr: usize, size: usize) -> bool {
    find_in(context, ptr).is_some_and(|(a, offset)| check_range(&a, offset, size).is_ok())
}

/// `clEnqueueSVMFree`: once the command's turn comes, `callback` gets the
/// pointers (it frees them), or without one each allocation is freed.
pub fn enqueue_free(
    queue: &Arc<Queue>,
    pointers: Vec<usize>,
    callback: Option<(SvmFreeCallback, usize)>,
    wait_list: &[Arc<Event>],
) -> Result<Arc<Event>, cl_int> {
    // The queue lives until its commands are done (its release waits for
    // them), so its handle is valid when the callback runs.
    let queue_handle = handle_of(&**queue) as usize;
    let context = queue.context.clone();
    let record = move |r: &mut Recorder<'_>| {
        r.after(Box::new(move || match callback {
            Some((free_func, user_data)) => {
                let mut list: Vec<*mut c_void> =
                    pointers.iter().map(|&p| p as *mut c_void).collect();
                // SAFETY: the application's callback, called as
                // clEnqueueSVMFree defines it, with a list it may read.
                unsafe {
                    free_func(
                        queue_handle as *mut c_void,
                        list.len() as cl_uint,
                        list.as_mut_ptr(),
                        user_data as *mut c_void,
                    )
                };
            }
            None => {
                for p in pointers {
                    free(&context, p);
                }
            }
        }));
        Ok(())
    };
    queue.enqueue_with_access(CL_COMMAND_SVM_FREE, wait_list, Access::Nothing, record)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers_into_the_middle_find_their_allocation() {
        let map: BTreeMap<usize, usize> = [(0x1000, 256), (0x2000, 16)].into_iter().collect();
        let size = |s: &usize| *s;
        assert_eq!(containing(&map, 0x1000, size), Some((&256, 0)));
        assert_eq!(containing(&map, 0x10ff, size), Some((&256, 0xff)));
        assert_eq!(containing(&map, 0x2008, size), Some((&16, 8)));
        // One past the end, between and before allocations: none.
        assert_eq!(containing(&map, 0x1100, size), None);
        assert_eq!(containing(&map, 0x1800, size), None);
        assert_eq!(containing(&map, 0xfff, size), None);
        assert_eq!(containing(&map, 0x2010, size), None);
    }

    #[test]
    fn rectangles_address_one_row() {
        let r = at(24);
        assert_eq!(r.offset(0, 0, 0), 24);
        assert_eq!(r.offset(8, 0, 0), 32);
    }
}
