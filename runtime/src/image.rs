//! Image memory objects: their geometry, the 64-byte image descriptor that
//! kernels read (docs/images.md), the device limits they are checked
//! against, and the image commands (read, write, copy, copies to and from
//! buffers, fill, map).
//!
//! An image is a `Mem` whose pixels live in a linear buffer, row after row
//! and slice after slice at the image's pitches; a 1D buffer image or a 2D
//! image made from a buffer shares that buffer's memory. Every transfer is
//! therefore a rectangle of bytes, and runs through the buffer paths of
//! `memory`.

pub mod format;

use crate::cl::*;
use crate::context::Context;
use crate::event::Event;
use crate::memory::{self, Mem, Rect};
use crate::queue::Queue;
use crate::vk_error;
use ferrocl_vk::{Buffer, MemoryLocation};
pub use format::{FillColor, ImageFormat};
use std::ffi::c_void;
use std::sync::Arc;

/// `CL_DEVICE_IMAGE2D_MAX_WIDTH` / `HEIGHT`: the values the spec requires
/// of a full-profile GPU.
pub const IMAGE2D_MAX_SIZE: usize = 16384;
/// `CL_DEVICE_IMAGE3D_MAX_WIDTH` / `HEIGHT` / `DEPTH`.
pub const IMAGE3D_MAX_SIZE: usize = 2048;
/// `CL_DEVICE_IMAGE_MAX_ARRAY_SIZE`.
pub const IMAGE_MAX_ARRAY_SIZE: usize = 2048;
/// `CL_DEVICE_IMAGE_MAX_BUFFER_SIZE` in pixels: images are addressed with
/// 32-bit pitches in the descriptor, and 2^27 pixels of 16 bytes stay
/// under 4 GiB.
pub const IMAGE_MAX_BUFFER_SIZE: usize = 1 << 27;
/// `CL_DEVICE_IMAGE_PITCH_ALIGNMENT` in pixels: any row pitch works, since
/// kernels address pixels in software; 1 is the loosest value.
pub const IMAGE_PITCH_ALIGNMENT: u32 = 1;
/// `CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT` in pixels.
pub const IMAGE_BASE_ADDRESS_ALIGNMENT: u32 = 1;
/// `CL_DEVICE_MAX_READ_IMAGE_ARGS`.
pub const MAX_READ_IMAGE_ARGS: u32 = 128;
/// `CL_DEVICE_MAX_WRITE_IMAGE_ARGS`.
pub const MAX_WRITE_IMAGE_ARGS: u32 = 64;
/// `CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS`.
pub const MAX_READ_WRITE_IMAGE_ARGS: u32 = 64;
/// `CL_DEVICE_MAX_SAMPLERS`.
pub const MAX_SAMPLERS: u32 = 16;
/// Bytes of the image descriptor.
pub const DESCRIPTOR_SIZE: usize = 64;

/// `cl_image_desc` as C lays it out.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ClImageDesc {
    pub image_type: cl_uint,
    pub image_width: usize,
    pub image_height: usize,
    pub image_depth: usize,
    pub image_array_size: usize,
    pub image_row_pitch: usize,
    pub image_slice_pitch: usize,
    pub num_mip_levels: cl_uint,
    pub num_samples: cl_uint,
    /// `buffer` / `mem_object`.
    pub mem_object: *mut c_void,
}

/// The geometry of an image, every size at least 1 and both pitches
/// resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageDesc {
    pub image_type: cl_uint,
    pub width: usize,
    /// 1 for 1D images and 1D arrays.
    pub height: usize,
    /// 1 unless 3D.
    pub depth: usize,
    /// 1 unless an array.
    pub array_size: usize,
    pub row_pitch: usize,
    /// The size of a 3D slice or of an array layer; 0 for 1D and 2D images
    /// (as `CL_IMAGE_SLICE_PITCH` reports it).
    pub slice_pitch: usize,
}

impl ImageDesc {
    /// Bytes of memory the pixels span.
    pub fn size(&self) -> usize {
        match self.image_type {
            CL_MEM_OBJECT_IMAGE3D => self.slice_pitch * self.depth,
            CL_MEM_OBJECT_IMAGE1D_ARRAY | CL_MEM_OBJECT_IMAGE2D_ARRAY => {
                self.slice_pitch * self.array_size
            }
            CL_MEM_OBJECT_IMAGE2D => self.row_pitch * self.height,
            _ => self.row_pitch,
        }
    }

    /// Number of dimensions of a pixel coordinate (origin and region of
    /// the image commands): 1D 1, 1D array and 2D 2, 2D array and 3D 3.
    pub fn dims(&self) -> usize {
        match self.image_type {
            CL_MEM_OBJECT_IMAGE1D | CL_MEM_OBJECT_IMAGE1D_BUFFER => 1,
            CL_MEM_OBJECT_IMAGE1D_ARRAY | CL_MEM_OBJECT_IMAGE2D => 2,
            _ => 3,
        }
    }

    /// The size in pixels along each coordinate of the image commands
    /// (the layer count of an array stands in for its last dimension).
    pub fn extent(&self) -> [usize; 3] {
        match self.image_type {
            CL_MEM_OBJECT_IMAGE1D | CL_MEM_OBJECT_IMAGE1D_BUFFER => [self.width, 1, 1],
            CL_MEM_OBJECT_IMAGE1D_ARRAY => [self.width, self.array_size, 1],
            CL_MEM_OBJECT_IMAGE2D => [self.width, self.height, 1],
            CL_MEM_OBJECT_IMAGE2D_ARRAY => [self.width, self.height, self.array_size],
            _ => [self.width, self.height, self.depth],
        }
    }

    /// Byte steps between consecutive coordinates in y and z: a 1D array
    /// steps layers in y.
    pub fn steps(&self) -> (usize, usize) {
        match self.image_type {
            CL_MEM_OBJECT_IMAGE1D_ARRAY => (self.slice_pitch, self.slice_pitch),
            _ => (self.row_pitch, self.slice_pitch),
        }
    }
}

/// Which of the `cl_image_desc` sizes an image type uses, and the device
/// limit of each: (width, height, depth, array size), 0 where unused.
fn limits(image_type: cl_uint) -> [usize; 4] {
    match image_type {
        CL_MEM_OBJECT_IMAGE1D => [IMAGE2D_MAX_SIZE, 0, 0, 0],
        CL_MEM_OBJECT_IMAGE1D_BUFFER => [IMAGE_MAX_BUFFER_SIZE, 0, 0, 0],
        CL_MEM_OBJECT_IMAGE1D_ARRAY => [IMAGE2D_MAX_SIZE, 0, 0, IMAGE_MAX_ARRAY_SIZE],
        CL_MEM_OBJECT_IMAGE2D => [IMAGE2D_MAX_SIZE, IMAGE2D_MAX_SIZE, 0, 0],
        CL_MEM_OBJECT_IMAGE2D_ARRAY => {
            [IMAGE2D_MAX_SIZE, IMAGE2D_MAX_SIZE, 0, IMAGE_MAX_ARRAY_SIZE]
        }
        _ => [IMAGE3D_MAX_SIZE, IMAGE3D_MAX_SIZE, IMAGE3D_MAX_SIZE, 0],
    }
}

/// Whether `image_type` is one of the six image types.
pub fn is_image_type(image_type: cl_uint) -> bool {
    matches!(
        image_type,
        CL_MEM_OBJECT_IMAGE1D
            | CL_MEM_OBJECT_IMAGE1D_BUFFER
            | CL_MEM_OBJECT_IMAGE1D_ARRAY
            | CL_MEM_OBJECT_IMAGE2D
            | CL_MEM_OBJECT_IMAGE2D_ARRAY
            | CL_MEM_OBJECT_IMAGE3D
    )
}

/// The `cl_image_desc` checks that need no memory object, in the order of
/// the spec: `CL_INVALID_IMAGE_DESCRIPTOR` for a bad type, mip levels,
/// samples or pitch, `CL_INVALID_IMAGE_SIZE` for a size of 0 or over the
/// device limits. `has_host_ptr`: a host pointer or a memory object
/// supplies the pixels, so pitches may be given; `from_buffer`: the
/// pixels come from a buffer (pitch must then be a multiple of the pitch
/// alignment).
pub fn resolve_desc(
    raw: &ClImageDesc,
    element_size: usize,
    has_host_ptr: bool,
    from_buffer: bool,
) -> Result<ImageDesc, cl_int> {
    let t = raw.image_type;
    if !is_image_type(t) || raw.num_mip_levels != 0 || raw.num_samples != 0 {
        return Err(CL_INVALID_IMAGE_DESCRIPTOR);
    }
    let [max_w, max_h, max_d, max_a] = limits(t);
    let size_ok = |v: usize, max: usize| max == 0 || (1..=max).contains(&v);
    if !size_ok(raw.image_width, max_w)
        || !size_ok(raw.image_height, max_h)
        || !size_ok(raw.image_depth, max_d)
        || !size_ok(raw.image_array_size, max_a)
    {
        return Err(CL_INVALID_IMAGE_SIZE);
    }
    let used = |v: usize, max: usize| if max == 0 { 1 } else { v };
    let width = raw.image_width;
    let height = used(raw.image_height, max_h);
    let depth = used(raw.image_depth, max_d);
    let array_size = used(raw.image_array_size, max_a);
    // image_row_pitch must be 0 if host_ptr is NULL (and the image is not
    // made from a buffer); if non-zero, it must be >= width × element size
    // and a multiple of the element size; for an image from a buffer, a
    // multiple of CL_DEVICE_IMAGE_PITCH_ALIGNMENT pixels.
    let tight_row = width
        .checked_mul(element_size)
        .ok_or(CL_INVALID_IMAGE_SIZE)?;
    let pitches_allowed = has_host_ptr || from_buffer;
    let row_pitch = match raw.image_row_pitch {
        0 => tight_row,
        p if !pitches_allowed
            || p < tight_row
            || !p.is_multiple_of(element_size)
            || (from_buffer
                && !p.is_multiple_of(element_size * IMAGE_PITCH_ALIGNMENT as usize)) =>
        {
            return Err(CL_INVALID_IMAGE_DESCRIPTOR)
        }
        p => p,
    };
    // The slice pitch: >= row pitch × height for a 2D array or 3D image,
    // >= row pitch for a 1D array, a multiple of the row pitch; 0 when
    // host_ptr is NULL.
    let tight_slice = match t {
        CL_MEM_OBJECT_IMAGE1D_ARRAY => row_pitch,
        CL_MEM_OBJECT_IMAGE2D_ARRAY | CL_MEM_OBJECT_IMAGE3D => {
            row_pitch.checked_mul(height).ok_or(CL_INVALID_IMAGE_SIZE)?
        }
        _ => 0,
    };
    let slice_pitch = match (tight_slice, raw.image_slice_pitch) {
        // 1D and 2D images have no slices: the field is not used.
        (0, _) => 0,
        (s, 0) => s,
        (s, p) if !pitches_allowed || p < s || !p.is_multiple_of(row_pitch) => {
            return Err(CL_INVALID_IMAGE_DESCRIPTOR)
        }
        (_, p) => p,
    };
    let desc = ImageDesc {
        image_type: t,
        width,
        height,
        depth,
        array_size,
        row_pitch,
        slice_pitch,
    };
    // The descriptor holds 32-bit pitches.
    if u32::try_from(row_pitch).is_err() || u32::try_from(slice_pitch).is_err() {
        return Err(CL_INVALID_IMAGE_SIZE);
    }
    Ok(desc)
}

/// The image part of a `Mem`.
pub struct Image {
    pub format: ImageFormat,
    pub desc: ImageDesc,
    pub element_size: usize,
    /// The 64-byte image descriptor kernels read.
    descriptor: Arc<Buffer>,
}

impl Image {
    /// Device address of the image descriptor (an `image*_t` argument).
    pub fn descriptor_address(&self) -> u64 {
        self.descriptor.device_address()
    }

    /// The byte rectangle of the pixels at `origin` (in pixels).
    pub fn rect(&self, origin: [usize; 3]) -> Rect {
        let (row, slice) = self.desc.steps();
        Rect {
            origin: [origin[0] * self.element_size, origin[1], origin[2]],
            row_pitch: row,
            slice_pitch: slice,
        }
    }

    /// A region in pixels as a region of bytes (x in bytes).
    pub fn byte_region(&self, region: [usize; 3]) -> [usize; 3] {
        [region[0] * self.element_size, region[1], region[2]]
    }
}

/// The 64 bytes of the descriptor of docs/images.md.
pub fn descriptor_bytes(
    address: u64,
    format: &ImageFormat,
    desc: &ImageDesc,
    element_size: usize,
) -> [u8; DESCRIPTOR_SIZE] {
    let mut d = [0u8; DESCRIPTOR_SIZE];
    // A 1D array steps from layer to layer by y × row pitch in the kernel's
    // address formula, so its row pitch there is the layer pitch.
    let (row_step, _) = desc.steps();
    let words: [(usize, u32); 12] = [
        (8, desc.width as u32),
        (12, desc.height as u32),
        (16, desc.depth as u32),
        (20, desc.array_size as u32),
        (24, format.channel_order),
        (28, format.channel_data_type),
        (32, element_size as u32),
        (36, row_step as u32),
        (40, desc.slice_pitch as u32),
        (44, desc.image_type),
        (48, 0),
        (52, 0),
    ];
    d[0..8].copy_from_slice(&address.to_le_bytes());
    for (at, value) in words {
        d[at..at + 4].copy_from_slice(&value.to_le_bytes());
    }
    d
}

/// Where a new image's pixels come from.
pub enum ImageSource<'a> {
    /// New memory; `host_ptr` with `COPY_HOST_PTR` / `USE_HOST_PTR` is
    /// copied in (laid out at the descriptor's pitches).
    New { host_ptr: *mut c_void },
    /// The memory of a buffer (1D buffer images, `cl_khr_image2d_from_buffer`)
    /// or of another image (a 2D view with another channel order).
    Shared(&'a Arc<Mem>),
}

/// Creates an image after the ICD's checks: `desc` already resolved and
/// within the source's memory.
pub fn create_image(
    context: &Arc<Context>,
    flags: cl_bitfield,
    format: ImageFormat,
    desc: ImageDesc,
    source: ImageSource<'_>,
    properties: Vec<u64>,
) -> Result<Arc<Mem>, cl_int> {
    let element_size = format
        .element_size()
        .ok_or(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)?;
    let device = context.devices[0].backend()?;
    let size = desc.size();
    let (buffer, offset, parent, host_ptr) = match source {
        ImageSource::New { host_ptr } => {
            let buffer = Arc::new(
                device
                    .create_buffer(size.max(1) as u64, MemoryLocation::DeviceLocal)
                    .map_err(vk_error)?,
            );
            if flags & (CL_MEM_COPY_HOST_PTR | CL_MEM_USE_HOST_PTR) != 0 && !host_ptr.is_null() {
                // SAFETY: the application promises the host_ptr sizes of the
                // spec's table (slice pitch × depth or layers, row pitch ×
                // height, row pitch), which is `size`.
                let data = unsafe { std::slice::from_raw_parts(host_ptr as *const u8, size) };
                context.upload(0, &buffer, 0, data)?;
            }
            let use_host = if flags & CL_MEM_USE_HOST_PTR != 0 {
                host_ptr as usize
            } else {
                0
            };
            (buffer, 0, None, use_host)
        }
        ImageSource::Shared(mem) => (
            mem.buffer.clone(),
            mem.offset,
            Some(mem.clone()),
            mem.host_ptr,
        ),
    };
    let descriptor = Arc::new(
        device
            .create_buffer(DESCRIPTOR_SIZE as u64, MemoryLocation::DeviceLocal)
            .map_err(vk_error)?,
    );
    let address = buffer.device_address() + offset as u64;
    let bytes = descriptor_bytes(address, &format, &desc, element_size);
    context.upload(0, &descriptor, 0, &bytes)?;
    let image = Image {
        format,
        desc,
        element_size,
        descriptor,
    };
    Ok(Mem::new_image(
        context.clone(),
        flags,
        size,
        host_ptr,
        parent,
        offset,
        buffer,
        properties,
        image,
    ))
}

/// The image of a memory object, or `CL_INVALID_MEM_OBJECT`.
pub fn image_of(mem: &Mem) -> Result<&Image, cl_int> {
    mem.image.as_deref().ok_or(CL_INVALID_MEM_OBJECT)
}

/// The host rectangle of `clEnqueueReadImage` / `WriteImage` with the
/// default pitches applied, in bytes; `CL_INVALID_VALUE` for a pitch below
/// the region's, or a slice pitch given for a 1D or 2D image.
pub fn host_rect(
    desc: &ImageDesc,
    element_size: usize,
    region: [usize; 3],
    row_pitch: usize,
    slice_pitch: usize,
) -> Result<Rect, cl_int> {
    let row = region[0] * element_size;
    let row_pitch = match row_pitch {
        0 => row,
        p if p < row => return Err(CL_INVALID_VALUE),
        p => p,
    };
    let rect = |row_pitch, slice_pitch| Rect {
        origin: [0; 3],
        row_pitch,
        slice_pitch,
    };
    match desc.image_type {
        CL_MEM_OBJECT_IMAGE1D | CL_MEM_OBJECT_IMAGE1D_BUFFER | CL_MEM_OBJECT_IMAGE2D => {
            if slice_pitch != 0 {
                return Err(CL_INVALID_VALUE);
            }
            Ok(rect(row_pitch, row_pitch * region[1]))
        }
        // A 1D array's layers are its y coordinate and step by the slice
        // pitch.
        CL_MEM_OBJECT_IMAGE1D_ARRAY => match slice_pitch {
            0 => Ok(rect(row_pitch, row_pitch)),
            p if p < row_pitch => Err(CL_INVALID_VALUE),
            p => Ok(rect(p, p)),
        },
        _ => match slice_pitch {
            0 => Ok(rect(row_pitch, row_pitch * region[1])),
            p if p < row_pitch * region[1] => Err(CL_INVALID_VALUE),
            p => Ok(rect(row_pitch, p)),
        },
    }
}

/// `clEnqueueReadImage`.
#[allow(clippy::too_many_arguments)]
pub fn enqueue_read(
    queue: &Arc<Queue>,
    mem: &Arc<Mem>,
    origin: [usize; 3],
    region: [usize; 3],
    host: Rect,
    ptr: usize,
    wait_list: &[Arc<Event>],
    blocking: bool,
) -> Result<Arc<Event>, cl_int> {
    let image = image_of(mem)?;
    memory::enqueue_read(
        queue,
        mem,
        image.rect(origin),
        ptr,
        host,
        image.byte_region(region),
        wait_list,
        CL_COMMAND_READ_IMAGE,
        blocking,
    )
}

/// `clEnqueueWriteImage`.
pub fn enqueue_write(
    queue: &Arc<Queue>,
    mem: &Arc<Mem>,
    origin: [usize; 3],
    region: [usize; 3],
    host: Rect,
    ptr: usize,
    wait_list: &[Arc<Event>],
) -> Result<Arc<Event>, cl_int> {
    let image = image_of(mem)?;
    memory::enqueue_write(
        queue,
        mem,
        image.rect(origin),
        ptr,
        host,
        image.byte_region(region),
        wait_list,
        CL_COMMAND_WRITE_IMAGE,
    )
}

/// `clEnqueueCopyImage` (formats already checked equal).
pub fn enqueue_copy(
    queue: &Arc<Queue>,
    src: &Arc<Mem>,
    dst: &Arc<Mem>,
    src_origin: [usize; 3],
    dst_origin: [usize; 3],
    region: [usize; 3],
    wait_list: &[Arc<Event>],
) -> Result<Arc<Event>, cl_int> {
    let (si, di) = (image_of(src)?, image_of(dst)?);
    memory::enqueue_copy(
        queue,
        src,
        si.rect(src_origin),
        dst,
        di.rect(dst_origin),
        si.byte_region(region),
        wait_list,
        CL_COMMAND_COPY_IMAGE,
    )
}

/// The tightly packed rectangle of an image region in a buffer at
/// `offset` (`clEnqueueCopyImageToBuffer` / `BufferToImage`).
pub fn buffer_rect(image: &Image, offset: usize, region: [usize; 3]) -> Rect {
    let row = region[0] * image.element_size;
    Rect {
        origin: [offset, 0, 0],
        row_pitch: row,
        slice_pitch: row * region[1],
    }
}

/// `clEnqueueCopyImageToBuffer`.
#[allow(clippy::too_many_arguments)]
pub fn enqueue_copy_to_buffer(
    queue: &Arc<Queue>,
    src: &Arc<Mem>,
    dst: &Arc<Mem>,
    src_origin: [usize; 3],
    region: [usize; 3],
    dst_offset: usize,
    wait_list: &[Arc<Event>],
) -> Result<Arc<Event>, cl_int> {
    let image = image_of(src)?;
    memory::enqueue_copy(
        queue,
        src,
        image.rect(src_origin),
        dst,
        buffer_rect(image, dst_offset, region),
        image.byte_region(region),
        wait_list,
        CL_COMMAND_COPY_IMAGE_TO_BUFFER,
    )
}

/// `clEnqueueCopyBufferToImage`.
#[allow(clippy::too_many_arguments)]
pub fn enqueue_copy_from_buffer(
    queue: &Arc<Queue>,
    src: &Arc<Mem>,
    dst: &Arc<Mem>,
    src_offset: usize,
    dst_origin: [usize; 3],
    region: [usize; 3],
    wait_list: &[Arc<Event>],
) -> Result<Arc<Event>, cl_int> {
    let image = image_of(dst)?;
    memory::enqueue_copy(
        queue,
        src,
        buffer_rect(image, src_offset, region),
        dst,
        image.rect(dst_origin),
        image.byte_region(region),
        wait_list,
        CL_COMMAND_COPY_BUFFER_TO_IMAGE,
    )
}

/// `clEnqueueFillImage`: the colour is encoded on the host once, repeated
/// over the region, and written like `clEnqueueWriteImage`.
pub fn enqueue_fill(
    queue: &Arc<Queue>,
    mem: &Arc<Mem>,
    color: FillColor,
    origin: [usize; 3],
    region: [usize; 3],
    wait_list: &[Arc<Event>],
) -> Result<Arc<Event>, cl_int> {
    let image = image_of(mem)?;
    let pixel = format::encode_pixel(&image.format, color);
    if pixel.len() != image.element_size {
        return Err(CL_INVALID_VALUE);
    }
    let count = region[0] * region[1] * region[2];
    let data = pixel.repeat(count);
    let row = region[0] * image.element_size;
    let host = Rect {
        origin: [0; 3],
        row_pitch: row,
        slice_pitch: row * region[1],
    };
    // enqueue_write copies the bytes before it returns.
    memory::enqueue_write(
        queue,
        mem,
        image.rect(origin),
        data.as_ptr() as usize,
        host,
        image.byte_region(region),
        wait_list,
        CL_COMMAND_FILL_IMAGE,
    )
}

/// `clEnqueueMapImage`: maps the bytes from the region's first pixel to
/// its last, at the image's own pitches, which are returned as
/// (row pitch, slice pitch). A write-invalidate map still reads the span:
/// the bytes between the region's rows go back to the image at unmap.
pub fn enqueue_map(
    queue: &Arc<Queue>,
    mem: &Arc<Mem>,
    map_flags: cl_bitfield,
    origin: [usize; 3],
    region: [usize; 3],
    wait_list: &[Arc<Event>],
) -> Result<(Arc<Event>, *mut c_void, usize, usize), cl_int> {
    let image = image_of(mem)?;
    let rect = image.rect(origin);
    let start = rect.offset(0, 0, 0);
    let end = rect.end(image.byte_region(region));
    let flags = if map_flags & CL_MAP_WRITE_INVALIDATE_REGION != 0 {
        CL_MAP_WRITE
    } else {
        map_flags
    };
    let (event, ptr) = memory::enqueue_map(queue, mem, flags, start, end - start, wait_list)?;
    let desc = &image.desc;
    let (row_pitch, slice_pitch) = match desc.image_type {
        // The pitch of a 1D array's layers is its slice pitch; a 1D image
        // has neither.
        CL_MEM_OBJECT_IMAGE1D_ARRAY => (desc.row_pitch, desc.slice_pitch),
        CL_MEM_OBJECT_IMAGE1D | CL_MEM_OBJECT_IMAGE1D_BUFFER => (desc.row_pitch, 0),
        CL_MEM_OBJECT_IMAGE2D => (desc.row_pitch, 0),
        _ => (desc.row_pitch, desc.slice_pitch),
    };
    Ok((event, ptr, row_pitch, slice_pitch))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(t: cl_uint, w: usize, h: usize, d: usize, a: usize) -> ClImageDesc {
        ClImageDesc {
            image_type: t,
            image_width: w,
            image_height: h,
            image_depth: d,
            image_array_size: a,
            image_row_pitch: 0,
            image_slice_pitch: 0,
            num_mip_levels: 0,
            num_samples: 0,
            mem_object: std::ptr::null_mut(),
        }
    }

    #[test]
    fn descriptors_resolve_pitches_and_check_sizes() {
        let d = resolve_desc(&raw(CL_MEM_OBJECT_IMAGE2D, 5, 3, 0, 0), 4, false, false).unwrap();
        assert_eq!(
            (d.row_pitch, d.slice_pitch, d.height, d.depth),
            (20, 0, 3, 1)
        );
        assert_eq!(d.size(), 60);
        let d = resolve_desc(
            &raw(CL_MEM_OBJECT_IMAGE1D_ARRAY, 5, 9, 9, 4),
            2,
            false,
            false,
        )
        .unwrap();
        assert_eq!((d.height, d.depth, d.array_size), (1, 1, 4));
        assert_eq!((d.row_pitch, d.slice_pitch, d.size()), (10, 10, 40));
        assert_eq!(d.extent(), [5, 4, 1]);
        let d = resolve_desc(&raw(CL_MEM_OBJECT_IMAGE3D, 2, 3, 4, 0), 1, false, false).unwrap();
        assert_eq!((d.slice_pitch, d.size()), (6, 24));
        let mut r = raw(CL_MEM_OBJECT_IMAGE2D, 5, 3, 0, 0);
        r.image_row_pitch = 24;
        assert_eq!(
            resolve_desc(&r, 4, false, false),
            Err(CL_INVALID_IMAGE_DESCRIPTOR)
        );
        assert_eq!(resolve_desc(&r, 4, true, false).unwrap().row_pitch, 24);
        r.image_row_pitch = 22;
        assert_eq!(
            resolve_desc(&r, 4, true, false),
            Err(CL_INVALID_IMAGE_DESCRIPTOR)
        );
        r.image_row_pitch = 16;
        assert_eq!(
            resolve_desc(&r, 4, true, false),
            Err(CL_INVALID_IMAGE_DESCRIPTOR)
        );
        let mut r = raw(CL_MEM_OBJECT_IMAGE2D_ARRAY, 4, 4, 0, 2);
        r.image_slice_pitch = 32;
        assert_eq!(resolve_desc(&r, 1, true, false).unwrap().size(), 64);
        r.image_slice_pitch = 33;
        assert_eq!(
            resolve_desc(&r, 1, true, false),
            Err(CL_INVALID_IMAGE_DESCRIPTOR)
        );
        r.image_slice_pitch = 12;
        assert_eq!(
            resolve_desc(&r, 1, true, false),
            Err(CL_INVALID_IMAGE_DESCRIPTOR)
        );
        assert_eq!(
            resolve_desc(&raw(CL_MEM_OBJECT_IMAGE2D, 0, 3, 0, 0), 4, false, false),
            Err(CL_INVALID_IMAGE_SIZE)
        );
        assert_eq!(
            resolve_desc(&raw(CL_MEM_OBJECT_IMAGE2D, 16385, 1, 0, 0), 4, false, false),
            Err(CL_INVALID_IMAGE_SIZE)
        );
        assert_eq!(
            resolve_desc(&raw(CL_MEM_OBJECT_IMAGE3D, 4, 4, 2049, 0), 4, false, false),
            Err(CL_INVALID_IMAGE_SIZE)
        );
        assert_eq!(
            resolve_desc(&raw(CL_MEM_OBJECT_BUFFER, 4, 4, 0, 0), 4, false, false),
            Err(CL_INVALID_IMAGE_DESCRIPTOR)
        );
        let mut r = raw(CL_MEM_OBJECT_IMAGE2D, 4, 4, 0, 0);
        r.num_samples = 1;
        assert_eq!(
            resolve_desc(&r, 4, false, false),
            Err(CL_INVALID_IMAGE_DESCRIPTOR)
        );
    }

    #[test]
    fn descriptor_layout() {
        let format = ImageFormat::new(CL_RGBA, CL_UNORM_INT8);
        let desc = resolve_desc(
            &raw(CL_MEM_OBJECT_IMAGE1D_ARRAY, 7, 0, 0, 3),
            4,
            false,
            false,
        )
        .unwrap();
        let d = descriptor_bytes(0x1122_3344_5566_7788, &format, &desc, 4);
        let word = |at: usize| u32::from_le_bytes(d[at..at + 4].try_into().unwrap());
        assert_eq!(
            u64::from_le_bytes(d[0..8].try_into().unwrap()),
            0x1122_3344_5566_7788
        );
        assert_eq!([word(8), word(12), word(16), word(20)], [7, 1, 1, 3]);
        assert_eq!([word(24), word(28), word(32)], [CL_RGBA, CL_UNORM_INT8, 4]);
        assert_eq!(
            [word(36), word(40), word(44)],
            [28, 28, CL_MEM_OBJECT_IMAGE1D_ARRAY]
        );
        assert!(d[48..].iter().all(|&b| b == 0));
    }

    #[test]
    fn host_rects_follow_the_image_type() {
        let desc = |t, w, h, d, a| resolve_desc(&raw(t, w, h, d, a), 4, false, false).unwrap();
        let d1a = desc(CL_MEM_OBJECT_IMAGE1D_ARRAY, 8, 0, 0, 4);
        assert_eq!(d1a.steps(), (32, 32));
        let r = host_rect(&d1a, 4, [2, 3, 1], 0, 0).unwrap();
        assert_eq!((r.row_pitch, r.slice_pitch), (8, 8));
        let r = host_rect(&d1a, 4, [2, 3, 1], 0, 12).unwrap();
        assert_eq!((r.row_pitch, r.slice_pitch), (12, 12));
        assert_eq!(
            host_rect(&d1a, 4, [2, 3, 1], 16, 12).err(),
            Some(CL_INVALID_VALUE)
        );
        let d3 = desc(CL_MEM_OBJECT_IMAGE3D, 8, 2, 2, 0);
        assert_eq!(d3.steps(), (32, 64));
        assert_eq!(d3.dims(), 3);
        let r = host_rect(&d3, 4, [2, 2, 2], 12, 0).unwrap();
        assert_eq!((r.row_pitch, r.slice_pitch), (12, 24));
        assert_eq!(
            host_rect(&d3, 4, [2, 2, 2], 12, 20).err(),
            Some(CL_INVALID_VALUE)
        );
        assert_eq!(
            host_rect(&d3, 4, [2, 2, 2], 4, 0).err(),
            Some(CL_INVALID_VALUE)
        );
        let d2 = desc(CL_MEM_OBJECT_IMAGE2D, 8, 2, 0, 0);
        assert_eq!(
            host_rect(&d2, 4, [2, 2, 1], 0, 64).err(),
            Some(CL_INVALID_VALUE)
        );
    }
}
