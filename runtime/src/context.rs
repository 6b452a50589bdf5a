//! Contexts: a set of devices, the properties they were created with, and
//! the destructor callbacks.
//!
//! Memory objects, programs, queues and events keep their context alive
//! through an `Arc`, so the context goes only after all of them.

use crate::api::{handle_of, ApiHeader, ApiObject, Tag};
use crate::cl::*;
use crate::device::Device;
use crate::memory::Mem;
use ferrocl_vk::{Buffer, CommandStream, MemoryLocation, Timeline};
use parking_lot::Mutex;
use std::ffi::c_void;
use std::sync::{Arc, Weak};

/// `void (CL_CALLBACK *)(cl_context, void *)` and the like: a callback that
/// learns the object it belongs to.
pub type ObjectCallback = unsafe extern "C" fn(object: *mut c_void, user_data: *mut c_void);

/// `pfn_notify` of `clCreateContext`.
pub type ContextNotify = unsafe extern "C" fn(
    errinfo: *const std::ffi::c_char,
    private_info: *const c_void,
    cb: usize,
    user_data: *mut c_void,
);

/// The per-device stream that uploads the initial contents of buffers
/// created with `CL_MEM_COPY_HOST_PTR` / `CL_MEM_USE_HOST_PTR` when the
/// device memory is not host-visible, and reads back the contents that a
/// migration between the context's devices moves (`crate::migrate`).
struct Uploader {
    stream: CommandStream,
    timeline: Timeline,
    value: u64,
}

/// A `cl_context`.
#[repr(C)]
pub struct Context {
    header: ApiHeader,
    pub devices: Vec<Arc<Device>>,
    /// The property list as given (with its terminating 0; empty when it
    /// was NULL), for `CL_CONTEXT_PROPERTIES`.
    pub properties: Vec<isize>,
    notify: Option<(ContextNotify, usize)>,
    destructors: Mutex<Vec<(ObjectCallback, usize)>>,
    uploaders: Vec<Mutex<Option<Uploader>>>,
    /// Buffers created with `CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT`
    /// (`crate::device_address`).
    pub(crate) device_address_buffers: Mutex<Vec<Weak<Mem>>>,
}

// SAFETY: repr(C) with the header first; the tag is unique to Context.
unsafe impl ApiObject for Context {
    const TAG: Tag = Tag::Context;
    const INVALID: cl_int = CL_INVALID_CONTEXT;
}

impl Context {
    pub fn new(
        devices: Vec<Arc<Device>>,
        properties: Vec<isize>,
        notify: Option<(ContextNotify, usize)>,
    ) -> Arc<Context> {
        let uploaders = devices.iter().map(|_| Mutex::new(None)).collect();
        Arc::new(Context {
            header: ApiHeader::new(Tag::Context),
            devices,
            properties,
            notify,
            destructors: Mutex::new(Vec::new()),
            uploaders,
            device_address_buffers: Mutex::new(Vec::new()),
        })
    }

    pub fn has_device(&self, device: &Device) -> bool {
        self.devices.iter().any(|d| std::ptr::eq(&**d, device))
    }

    pub fn device_index(&self, device: &Device) -> Option<usize> {
        self.devices.iter().position(|d| std::ptr::eq(&**d, device))
    }

    /// `clSetContextDestructorCallback`.
    pub fn add_destructor(&self, callback: ObjectCallback, user_data: *mut c_void) {
        self.destructors.lock().push((callback, user_data as usize));
    }

    /// Reports an error to the application's `pfn_notify`, if it gave one.
    pub fn report(&self, message: &str) {
        if let Some((notify, user_data)) = self.notify {
            let text = std::ffi::CString::new(message.replace('\0', " ")).unwrap_or_default();
            // SAFETY: the application registered this function with the
            // context; the string lives for the call.
            unsafe { notify(text.as_ptr(), std::ptr::null(), 0, user_data as *mut c_void) };
        }
    }

    /// Writes `data` at `offset` of a freshly created buffer of device
    /// `index`, before any command can use it; blocks until done.
    pub fn upload(
        &self,
        index: usize,
        buffer: &Arc<Buffer>,
        offset: u64,
        data: &[u8],
    ) -> Result<(), cl_int> {
        if data.is_empty() {
            return Ok(());
        }
        if let Some(ptr) = buffer.mapped_ptr() {
            // SAFETY: the buffer is host-visible and mapped for its whole
            // size, no command uses it yet, and the range was checked by the
            // caller against its size.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    data.as_ptr(),
                    ptr.as_ptr().add(offset as usize),
                    data.len(),
                )
            };
            return Ok(());
        }
        let mut at = offset;
        for piece in data.chunks(crate::staging::TRANSFER_PIECE) {
            let len = piece.len() as u64;
            let (staging, ptr) = self.mapped_buffer(index, len, MemoryLocation::HostToDevice)?;
            // SAFETY: the staging buffer is mapped and `len` bytes long.
            unsafe { std::ptr::copy_nonoverlapping(piece.as_ptr(), ptr.as_ptr(), piece.len()) };
            self.transfer(index, |stream| {
                stream.copy_buffer(&staging, 0, buffer, at, len)
            })?;
            at += len;
        }
        Ok(())
    }

    /// Reads `into.len()` bytes at `offset` of `buffer`, a buffer of device
    /// `index` that no pending command writes; blocks until done. Memory
    /// the host reads at memory speed is read in place; other memory goes
    /// through a transfer into host-visible memory first.
    pub fn read_back(
        &self,
        index: usize,
        buffer: &Arc<Buffer>,
        offset: u64,
        into: &mut [u8],
    ) -> Result<(), cl_int> {
        if into.is_empty() {
            return Ok(());
        }
        let len = into.len();
        if let Some(ptr) = buffer.mapped_ptr().filter(|_| buffer.host_cached()) {
            // SAFETY: the buffer is mapped for its whole size, the caller
            // checked the range, and no command writes it meanwhile (device
            // writes are visible to the host once their submission has
            // completed: every submission ends with a barrier).
            unsafe {
                crate::staging::host_copy(ptr.as_ptr().add(offset as usize), into.as_mut_ptr(), len)
            };
            return Ok(());
        }
        let mut at = offset;
        for piece in into.chunks_mut(crate::staging::TRANSFER_PIECE) {
            let len = piece.len() as u64;
            let (staging, ptr) = self.mapped_buffer(index, len, MemoryLocation::DeviceToHost)?;
            self.transfer(index, |stream| {
                stream.copy_buffer(buffer, at, &staging, 0, len)
            })?;
            // SAFETY: the staging buffer is mapped, `len` bytes long, and
            // the copy into it has completed.
            unsafe { crate::staging::host_copy(ptr.as_ptr(), piece.as_mut_ptr(), piece.len()) };
            at += len;
        }
        Ok(())
    }

    /// A host-visible buffer of `len` bytes on device `index` for
    /// [`Context::upload`] and [`Context::read_back`], and its mapping.
    fn mapped_buffer(
        &self,
        index: usize,
        len: u64,
        location: MemoryLocation,
    ) -> Result<(Arc<Buffer>, std::ptr::NonNull<u8>), cl_int> {
        let device = self.devices[index].backend()?;
        let buffer = device
            .create_buffer(len, location)
            .map_err(crate::vk_error)?;
        let ptr = buffer.mapped_ptr().ok_or(CL_OUT_OF_RESOURCES)?;
        Ok((Arc::new(buffer), ptr))
    }

    /// Records `copy` on device `index`'s transfer stream, submits it and
    /// waits for it.
    fn transfer(
        &self,
        index: usize,
        copy: impl FnOnce(&mut CommandStream) -> Result<(), ferrocl_vk::Error>,
    ) -> Result<(), cl_int> {
        let device = self.devices[index].backend()?;
        let mut slot = self.uploaders[index].lock();
        if slot.is_none() {
            *slot = Some(Uploader {
                stream: device.create_command_stream().map_err(crate::vk_error)?,
                timeline: device.create_timeline(0).map_err(crate::vk_error)?,
                value: 0,
            });
        }
        let up = slot.as_mut().ok_or(CL_OUT_OF_RESOURCES)?;
        copy(&mut up.stream).map_err(crate::vk_error)?;
        up.stream.barrier().map_err(crate::vk_error)?;
        up.value += 1;
        up.stream
            .submit(&[], (&up.timeline, up.value))
            .map_err(crate::vk_error)?;
        up.timeline
            .wait(up.value, u64::MAX)
            .map_err(crate::vk_error)?;
        Ok(())
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        // Destructor callbacks run in the reverse order of registration.
        let callbacks = std::mem::take(&mut *self.destructors.lock());
        let handle = handle_of(&*self);
        for (callback, user_data) in callbacks.into_iter().rev() {
            // SAFETY: registered by the application for this context.
            unsafe { callback(handle, user_data as *mut c_void) };
        }
    }
}
