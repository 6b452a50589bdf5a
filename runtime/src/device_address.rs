//! cl_ext_buffer_device_address: buffers with a fixed device address per
//! device (`CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT`), and the memory objects a
//! launch reaches through raw addresses.
//!
//! Every ferrocl buffer already lives at a fixed device address (buffer
//! device addresses are how kernels reach memory, DESIGN.md), so the
//! property changes no allocation: it makes the address visible
//! (`CL_MEM_DEVICE_ADDRESS_EXT`) and registers the buffer with its context,
//! so that a launch given raw addresses (`clSetKernelArgDevicePointerEXT`,
//! `CL_KERNEL_EXEC_INFO_DEVICE_PTRS_EXT`, or SVM pointers) can find the
//! buffers they point into: the launch holds them, counts them as read and
//! written, and, in a context with several devices, has their contents
//! brought to its device first.

use crate::cl::*;
use crate::context::Context;
use crate::memory::Mem;
use std::sync::{Arc, Weak};

/// Registers a buffer created with `CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT`.
pub fn register(mem: &Arc<Mem>) {
    let mut buffers = mem.context.device_address_buffers.lock();
    // Buffers released since are dropped from the list here, so it grows
    // only with the live ones.
    buffers.retain(|w| w.strong_count() > 0);
    buffers.push(Arc::downgrade(mem));
}

/// `CL_MEM_DEVICE_ADDRESS_EXT`: the buffer's address on each device of its
/// context, in the context's order; `CL_INVALID_OPERATION` for a memory
/// object created without the property (one not registered).
pub fn addresses(mem: &Mem) -> Result<Vec<u64>, cl_int> {
    let registered = mem
        .context
        .device_address_buffers
        .lock()
        .iter()
        .any(|w| std::ptr::eq(w.as_ptr(), mem));
    if !registered {
        return Err(CL_INVALID_OPERATION);
    }
    (0..mem.context.devices.len())
        .map(|i| mem.device_address_on(i))
        .collect()
}

/// The registered buffer whose bytes on device `index` of `context`
/// include `address`. Looked through under the registry's lock, which
/// nothing else is taken under: a launch with raw addresses allocates
/// nothing here.
fn buffer_at(context: &Context, index: usize, address: u64) -> Option<Arc<Mem>> {
    let buffers = context.device_address_buffers.lock();
    buffers.iter().filter_map(Weak::upgrade).find(|m| {
        m.device_address_on(index)
            .is_ok_and(|start| address >= start && address - start < m.size as u64)
    })
}

/// The memory objects that the raw `addresses` of a launch on device
/// `index` of `context` point into (once each): buffers with a device
/// address, and SVM allocations. `None` when a non-NULL address is in
/// neither (the launch then reaches memory nobody tracks).
pub fn launch_objects(context: &Context, index: usize, addresses: &[u64]) -> Option<Vec<Arc<Mem>>> {
    let mut out: Vec<Arc<Mem>> = Vec::new();
    for &address in addresses.iter().filter(|&&a| a != 0) {
        let mem = match buffer_at(context, index, address) {
            Some(m) => m,
            None => crate::svm::object_at(context, address as usize)?,
        };
        if !out.iter().any(|m| Arc::ptr_eq(m, &mem)) {
            out.push(mem);
        }
    }
    Some(out)
}
