//! Image transfers against a host reference: for every image type and
//! several element sizes, reads, writes (with host pitches), copies between
//! images, copies to and from buffers, maps and fills, each compared with
//! the same operation done on a host copy of the pixels.

#![allow(clippy::missing_safety_doc)]

mod common;

use common::rlib::*;
use ferrocl::event::*;
use ferrocl::image::*;
use ferrocl::memory::*;
use ferrocl::queue::*;
use ferrocl_runtime::cl::*;
use std::ffi::c_void;
use std::ptr::{null, null_mut};

type H = *mut c_void;

/// `cl_image_desc`.
#[repr(C)]
#[derive(Clone, Copy)]
struct Desc {
    image_type: cl_uint,
    width: usize,
    height: usize,
    depth: usize,
    array_size: usize,
    row_pitch: usize,
    slice_pitch: usize,
    num_mip_levels: cl_uint,
    num_samples: cl_uint,
    mem_object: H,
}

/// A deterministic byte stream.
struct Rng(u64);

impl Rng {
    fn byte(&mut self) -> u8 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) as u8
    }

    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.byte()).collect()
    }
}

/// The host reference: pixels as a tight array of `extent` pixels.
#[derive(Clone)]
struct Reference {
    extent: [usize; 3],
    element: usize,
    pixels: Vec<u8>,
}

impl Reference {
    fn at(&self, x: usize, y: usize, z: usize) -> usize {
        ((z * self.extent[1] + y) * self.extent[0] + x) * self.element
    }

    fn pixel(&self, p: [usize; 3]) -> &[u8] {
        let i = self.at(p[0], p[1], p[2]);
        &self.pixels[i..i + self.element]
    }

    fn set(&mut self, p: [usize; 3], v: &[u8]) {
        let i = self.at(p[0], p[1], p[2]);
        self.pixels[i..i + self.element].copy_from_slice(v);
    }

    /// The region as tight bytes.
    fn region(&self, origin: [usize; 3], region: [usize; 3]) -> Vec<u8> {
        let mut out = Vec::new();
        for z in 0..region[2] {
            for y in 0..region[1] {
                for x in 0..region[0] {
                    out.extend_from_slice(self.pixel([
                        origin[0] + x,
                        origin[1] + y,
                        origin[2] + z,
                    ]));
                }
            }
        }
        out
    }

    fn set_region(&mut self, origin: [usize; 3], region: [usize; 3], tight: &[u8]) {
        let mut i = 0;
        for z in 0..region[2] {
            for y in 0..region[1] {
                for x in 0..region[0] {
                    let v = tight[i..i + self.element].to_vec();
                    self.set([origin[0] + x, origin[1] + y, origin[2] + z], &v);
                    i += self.element;
                }
            }
        }
    }
}

/// An image type with its size and the number of coordinates it uses.
#[derive(Clone, Copy, Debug)]
struct Shape {
    image_type: cl_uint,
    extent: [usize; 3],
}

impl Shape {
    fn desc(&self) -> Desc {
        let [w, a, b] = self.extent;
        let (height, depth, layers) = match self.image_type {
            CL_MEM_OBJECT_IMAGE1D | CL_MEM_OBJECT_IMAGE1D_BUFFER => (0, 0, 0),
            CL_MEM_OBJECT_IMAGE1D_ARRAY => (0, 0, a),
            CL_MEM_OBJECT_IMAGE2D => (a, 0, 0),
            CL_MEM_OBJECT_IMAGE2D_ARRAY => (a, 0, b),
            _ => (a, b, 0),
        };
        Desc {
            image_type: self.image_type,
            width: w,
            height,
            depth,
            array_size: layers,
            row_pitch: 0,
            slice_pitch: 0,
            num_mip_levels: 0,
            num_samples: 0,
            mem_object: null_mut(),
        }
    }
}

const SHAPES: [Shape; 6] = [
    Shape {
        image_type: CL_MEM_OBJECT_IMAGE1D,
        extent: [37, 1, 1],
    },
    Shape {
        image_type: CL_MEM_OBJECT_IMAGE1D_BUFFER,
        extent: [29, 1, 1],
    },
    Shape {
        image_type: CL_MEM_OBJECT_IMAGE1D_ARRAY,
        extent: [13, 5, 1],
    },
    Shape {
        image_type: CL_MEM_OBJECT_IMAGE2D,
        extent: [11, 7, 1],
    },
    Shape {
        image_type: CL_MEM_OBJECT_IMAGE2D_ARRAY,
        extent: [9, 5, 3],
    },
    Shape {
        image_type: CL_MEM_OBJECT_IMAGE3D,
        extent: [7, 6, 4],
    },
];

/// Formats of element sizes 1, 2, 4, 8 and 16.
const FORMATS: [([cl_uint; 2], usize); 6] = [
    ([CL_R, CL_UNSIGNED_INT8], 1),
    ([CL_RG, CL_UNORM_INT8], 2),
    ([CL_RGB, CL_UNORM_SHORT_565], 2),
    ([CL_BGRA, CL_UNORM_INT8], 4),
    ([CL_RGBA, CL_HALF_FLOAT], 8),
    ([CL_RGBA, CL_FLOAT], 16),
];

/// An image with its reference. With `pad`, the image is created from a
/// host pointer whose rows and slices are padded.
struct TestImage {
    handle: H,
    buffer: H,
    reference: Reference,
    shape: Shape,
}

impl TestImage {
    fn new(
        env: &Env,
        shape: Shape,
        format: [cl_uint; 2],
        element: usize,
        rng: &mut Rng,
        pad: bool,
    ) -> TestImage {
        let mut d = shape.desc();
        let [w, h, n] = shape.extent;
        let pixels = rng.bytes(w * h * n * element);
        let reference = Reference {
            extent: shape.extent,
            element,
            pixels,
        };
        let mut err = 0;
        let mut buffer = null_mut();
        let mut host = Vec::new();
        let mut host_ptr: H = null_mut();
        let mut flags = CL_MEM_READ_WRITE;
        if shape.image_type == CL_MEM_OBJECT_IMAGE1D_BUFFER {
            let mut tight = reference.pixels.clone();
            unsafe {
                buffer = clCreateBuffer(
                    env.ctx,
                    CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                    tight.len(),
                    tight.as_mut_ptr().cast(),
                    &mut err,
                );
            }
            ok(err);
            d.mem_object = buffer;
        } else {
            // Host layout: rows of `row` bytes, layers/slices of `slice`.
            let row = w * element + if pad { 3 * element } else { 0 };
            let one_d_array = shape.image_type == CL_MEM_OBJECT_IMAGE1D_ARRAY;
            let rows_per_slice = if one_d_array { 1 } else { h };
            let slice = row * rows_per_slice + if pad { 2 * row } else { 0 };
            let layers = if one_d_array { h } else { n };
            host = vec![0u8; slice * layers.max(1)];
            for z in 0..n {
                for y in 0..h {
                    let at = if one_d_array {
                        y * slice
                    } else {
                        z * slice + y * row
                    };
                    let i = reference.at(0, y, z);
                    host[at..at + w * element]
                        .copy_from_slice(&reference.pixels[i..i + w * element]);
                }
            }
            host_ptr = host.as_mut_ptr().cast();
            flags |= CL_MEM_COPY_HOST_PTR;
            if pad {
                d.row_pitch = row;
                if matches!(
                    shape.image_type,
                    CL_MEM_OBJECT_IMAGE1D_ARRAY
                        | CL_MEM_OBJECT_IMAGE2D_ARRAY
                        | CL_MEM_OBJECT_IMAGE3D
                ) {
                    d.slice_pitch = slice;
                }
            }
        }
        let handle = unsafe {
            clCreateImage(
                env.ctx,
                flags,
                format.as_ptr().cast(),
                (&d as *const Desc).cast(),
                host_ptr,
                &mut err,
            )
        };
        assert_eq!(err, CL_SUCCESS, "{shape:?} {format:x?}");
        drop(host);
        TestImage {
            handle,
            buffer,
            reference,
            shape,
        }
    }

    fn read(&self, env: &Env, origin: [usize; 3], region: [usize; 3]) -> Vec<u8> {
        let mut out = vec![0u8; region.iter().product::<usize>() * self.reference.element];
        unsafe {
            ok(clEnqueueReadImage(
                env.queue,
                self.handle,
                CL_TRUE,
                origin.as_ptr(),
                region.as_ptr(),
                0,
                0,
                out.as_mut_ptr().cast(),
                0,
                null(),
                null_mut(),
            ));
        }
        out
    }

    fn check(&self, env: &Env, what: &str) {
        let all = self.read(env, [0; 3], self.shape.extent);
        assert!(
            all == self.reference.pixels,
            "{what}: {:?} element {}",
            self.shape,
            self.reference.element
        );
    }
}

impl Drop for TestImage {
    fn drop(&mut self) {
        unsafe {
            ok(clReleaseMemObject(self.handle));
            if !self.buffer.is_null() {
                ok(clReleaseMemObject(self.buffer));
            }
        }
    }
}

/// A sub-region inside `extent`: about half of it, off the origin where
/// the image is wide enough.
fn sub_region(extent: [usize; 3]) -> ([usize; 3], [usize; 3]) {
    let origin = extent.map(|e| if e > 2 { 1 } else { 0 });
    let region = [0, 1, 2].map(|d| (extent[d] / 2).max(1).min(extent[d] - origin[d]));
    (origin, region)
}

#[test]
fn read_and_write_with_host_pitches_on_every_type() {
    let env = Env::new();
    let mut rng = Rng(1);
    for shape in SHAPES {
        for (format, element) in FORMATS {
            for pad in [false, true] {
                let mut image = TestImage::new(&env, shape, format, element, &mut rng, pad);
                image.check(&env, "created");
                let (origin, region) = sub_region(shape.extent);
                // Write the region from a padded host layout.
                let row = region[0] * element + 5;
                let one_d_array = shape.image_type == CL_MEM_OBJECT_IMAGE1D_ARRAY;
                let three = matches!(
                    shape.image_type,
                    CL_MEM_OBJECT_IMAGE2D_ARRAY | CL_MEM_OBJECT_IMAGE3D
                );
                let slice = if one_d_array {
                    row + 7
                } else {
                    row * region[1] + 7
                };
                let tight = rng.bytes(region.iter().product::<usize>() * element);
                let mut host = vec![0u8; slice * region[1] * region[2] + row * region[1]];
                let mut i = 0;
                for z in 0..region[2] {
                    for y in 0..region[1] {
                        let at = if one_d_array {
                            y * slice
                        } else {
                            z * slice + y * row
                        };
                        host[at..at + region[0] * element]
                            .copy_from_slice(&tight[i..i + region[0] * element]);
                        i += region[0] * element;
                    }
                }
                let slice_arg = if one_d_array || three { slice } else { 0 };
                unsafe {
                    ok(clEnqueueWriteImage(
                        env.queue,
                        image.handle,
                        CL_TRUE,
                        origin.as_ptr(),
                        region.as_ptr(),
                        row,
                        slice_arg,
                        host.as_ptr().cast(),
                        0,
                        null(),
                        null_mut(),
                    ));
                }
                image.reference.set_region(origin, region, &tight);
                image.check(&env, "written");
                // Read the same region back through the padded layout.
                let mut back = vec![0u8; host.len()];
                unsafe {
                    ok(clEnqueueReadImage(
                        env.queue,
                        image.handle,
                        CL_TRUE,
                        origin.as_ptr(),
                        region.as_ptr(),
                        row,
                        slice_arg,
                        back.as_mut_ptr().cast(),
                        0,
                        null(),
                        null_mut(),
                    ));
                }
                let mut i = 0;
                for z in 0..region[2] {
                    for y in 0..region[1] {
                        let at = if one_d_array {
                            y * slice
                        } else {
                            z * slice + y * row
                        };
                        assert_eq!(
                            back[at..at + region[0] * element],
                            tight[i..i + region[0] * element]
                        );
                        i += region[0] * element;
                    }
                }
            }
        }
    }
    check_validation();
}

#[test]
fn copies_between_images_and_buffers() {
    let env = Env::new();
    let mut rng = Rng(2);
    for (format, element) in FORMATS {
        for src_shape in SHAPES {
            for dst_shape in SHAPES {
                let src = TestImage::new(&env, src_shape, format, element, &mut rng, true);
                let mut dst = TestImage::new(&env, dst_shape, format, element, &mut rng, false);
                // The largest region both images hold, limited by the
                // coordinates each image type uses.
                let region = [0, 1, 2].map(|d| src_shape.extent[d].min(dst_shape.extent[d]) - 1);
                let region = region.map(|r| r.max(1));
                let src_origin = [0, 1, 2].map(|d| src_shape.extent[d] - region[d]);
                let dst_origin = [0usize; 3];
                unsafe {
                    ok(clEnqueueCopyImage(
                        env.queue,
                        src.handle,
                        dst.handle,
                        src_origin.as_ptr(),
                        dst_origin.as_ptr(),
                        region.as_ptr(),
                        0,
                        null(),
                        null_mut(),
                    ));
                }
                let moved = src.reference.region(src_origin, region);
                dst.reference.set_region(dst_origin, region, &moved);
                dst.check(&env, "copy image");
            }
        }
        // Image to buffer and back, at offsets.
        for shape in SHAPES {
            let mut image = TestImage::new(&env, shape, format, element, &mut rng, true);
            let (origin, region) = sub_region(shape.extent);
            let bytes = region.iter().product::<usize>() * element;
            let mut err = 0;
            let buffer = unsafe {
                clCreateBuffer(
                    env.ctx,
                    CL_MEM_READ_WRITE,
                    bytes + 3 * element,
                    null_mut(),
                    &mut err,
                )
            };
            ok(err);
            let mut out = vec![0u8; bytes];
            unsafe {
                ok(clEnqueueCopyImageToBuffer(
                    env.queue,
                    image.handle,
                    buffer,
                    origin.as_ptr(),
                    region.as_ptr(),
                    element,
                    0,
                    null(),
                    null_mut(),
                ));
                ok(clEnqueueReadBuffer(
                    env.queue,
                    buffer,
                    CL_TRUE,
                    element,
                    bytes,
                    out.as_mut_ptr().cast(),
                    0,
                    null(),
                    null_mut(),
                ));
            }
            assert_eq!(out, image.reference.region(origin, region), "{shape:?}");
            let fresh = rng.bytes(bytes);
            unsafe {
                ok(clEnqueueWriteBuffer(
                    env.queue,
                    buffer,
                    CL_TRUE,
                    2 * element,
                    bytes,
                    fresh.as_ptr().cast(),
                    0,
                    null(),
                    null_mut(),
                ));
                ok(clEnqueueCopyBufferToImage(
                    env.queue,
                    buffer,
                    image.handle,
                    2 * element,
                    origin.as_ptr(),
                    region.as_ptr(),
                    0,
                    null(),
                    null_mut(),
                ));
            }
            image.reference.set_region(origin, region, &fresh);
            image.check(&env, "copy buffer to image");
            unsafe {
                // Past the end of the buffer.
                assert_eq!(
                    clEnqueueCopyBufferToImage(
                        env.queue,
                        buffer,
                        image.handle,
                        4 * element,
                        origin.as_ptr(),
                        region.as_ptr(),
                        0,
                        null(),
                        null_mut(),
                    ),
                    CL_INVALID_VALUE
                );
                ok(clReleaseMemObject(buffer));
            }
        }
    }
    check_validation();
}

#[test]
fn maps_expose_the_image_at_its_pitches() {
    let env = Env::new();
    let mut rng = Rng(3);
    for shape in SHAPES {
        for (format, element) in FORMATS {
            for pad in [false, true] {
                let mut image = TestImage::new(&env, shape, format, element, &mut rng, pad);
                let (origin, region) = sub_region(shape.extent);
                let (mut row_pitch, mut slice_pitch) = (0usize, 0usize);
                let mut err = 0;
                let mut event: H = null_mut();
                let ptr = unsafe {
                    clEnqueueMapImage(
                        env.queue,
                        image.handle,
                        CL_TRUE,
                        CL_MAP_READ | CL_MAP_WRITE,
                        origin.as_ptr(),
                        region.as_ptr(),
                        &mut row_pitch,
                        &mut slice_pitch,
                        0,
                        null(),
                        &mut event,
                        &mut err,
                    )
                } as *mut u8;
                ok(err);
                let mut command: cl_uint = 0;
                unsafe {
                    ok(clGetEventInfo(
                        event,
                        CL_EVENT_COMMAND_TYPE,
                        4,
                        (&mut command as *mut cl_uint).cast(),
                        null_mut(),
                    ));
                    ok(clReleaseEvent(event));
                }
                assert_eq!(command, CL_COMMAND_MAP_IMAGE);
                let one_d_array = shape.image_type == CL_MEM_OBJECT_IMAGE1D_ARRAY;
                let (y_step, z_step) = if one_d_array {
                    (slice_pitch, 0)
                } else {
                    (row_pitch, slice_pitch)
                };
                let fresh = rng.bytes(region.iter().product::<usize>() * element);
                let mut i = 0;
                for z in 0..region[2] {
                    for y in 0..region[1] {
                        for x in 0..region[0] {
                            let at = z * z_step + y * y_step + x * element;
                            // SAFETY: inside the mapped region at the
                            // returned pitches.
                            let px =
                                unsafe { std::slice::from_raw_parts_mut(ptr.add(at), element) };
                            let p = [origin[0] + x, origin[1] + y, origin[2] + z];
                            assert_eq!(px, image.reference.pixel(p), "{shape:?} {x} {y} {z}");
                            px.copy_from_slice(&fresh[i..i + element]);
                            i += element;
                        }
                    }
                }
                let mut count: cl_uint = 0;
                unsafe {
                    ok(clGetMemObjectInfo(
                        image.handle,
                        CL_MEM_MAP_COUNT,
                        4,
                        (&mut count as *mut cl_uint).cast(),
                        null_mut(),
                    ));
                    assert_eq!(count, 1);
                    ok(clEnqueueUnmapMemObject(
                        env.queue,
                        image.handle,
                        ptr.cast(),
                        0,
                        null(),
                        null_mut(),
                    ));
                    ok(clFinish(env.queue));
                }
                image.reference.set_region(origin, region, &fresh);
                image.check(&env, "mapped write");
            }
        }
    }
    check_validation();
}

/// `float` to `half` bits for values exact in half.
fn half(v: f32) -> [u8; 2] {
    let bits = v.to_bits();
    if v == 0.0 {
        return [0, 0];
    }
    let sign = ((bits >> 16) & 0x8000) as u16;
    let exp = (((bits >> 23) & 0xff) as i32 - 127 + 15) as u16;
    let mant = ((bits >> 13) & 0x3ff) as u16;
    (sign | (exp << 10) | mant).to_ne_bytes()
}

#[test]
fn fills_encode_the_colour_per_format() {
    let env = Env::new();
    let mut rng = Rng(4);
    let f = |v: [f32; 4]| v.iter().flat_map(|x| x.to_ne_bytes()).collect::<Vec<u8>>();
    let i = |v: [i32; 4]| v.iter().flat_map(|x| x.to_ne_bytes()).collect::<Vec<u8>>();
    let u = |v: [u32; 4]| v.iter().flat_map(|x| x.to_ne_bytes()).collect::<Vec<u8>>();
    let color = [1.0f32, 0.5, -0.25, 0.25];
    let cases: Vec<([cl_uint; 2], Vec<u8>, Vec<u8>)> = vec![
        ([CL_RGBA, CL_UNORM_INT8], f(color), vec![255, 128, 0, 64]),
        ([CL_BGRA, CL_UNORM_INT8], f(color), vec![0, 128, 255, 64]),
        ([CL_ARGB, CL_UNORM_INT8], f(color), vec![64, 255, 128, 0]),
        (
            [CL_RGBA, CL_SNORM_INT8],
            f(color),
            vec![127, 64, (-32i8) as u8, 32],
        ),
        (
            [CL_RG, CL_UNORM_INT16],
            f(color),
            [65535u16, 32768]
                .iter()
                .flat_map(|x| x.to_ne_bytes())
                .collect(),
        ),
        ([CL_R, CL_FLOAT], f(color), 1.0f32.to_ne_bytes().to_vec()),
        ([CL_A, CL_UNORM_INT8], f(color), vec![64]),
        ([CL_LUMINANCE, CL_UNORM_INT8], f(color), vec![255]),
        (
            [CL_RGBA, CL_HALF_FLOAT],
            f(color),
            color.iter().flat_map(|&c| half(c)).collect(),
        ),
        (
            [CL_RGB, CL_UNORM_SHORT_565],
            f(color),
            ((31u16 << 11) | (32 << 5)).to_ne_bytes().to_vec(),
        ),
        (
            [CL_RGB, CL_UNORM_INT_101010],
            f(color),
            ((1023u32 << 20) | (512 << 10)).to_ne_bytes().to_vec(),
        ),
        (
            [CL_RGBA, CL_SIGNED_INT8],
            i([-200, 100, -1, 7]),
            vec![128, 100, 255, 7],
        ),
        (
            [CL_RG, CL_SIGNED_INT32],
            i([-200, 100, -1, 7]),
            [-200i32, 100]
                .iter()
                .flat_map(|x| x.to_ne_bytes())
                .collect(),
        ),
        (
            [CL_R, CL_UNSIGNED_INT16],
            u([70000, 1, 2, 3]),
            65535u16.to_ne_bytes().to_vec(),
        ),
    ];
    for (format, fill, pixel) in cases {
        let element = pixel.len();
        for shape in SHAPES {
            let mut image = TestImage::new(&env, shape, format, element, &mut rng, true);
            let (origin, region) = sub_region(shape.extent);
            unsafe {
                ok(clEnqueueFillImage(
                    env.queue,
                    image.handle,
                    fill.as_ptr().cast(),
                    origin.as_ptr(),
                    region.as_ptr(),
                    0,
                    null(),
                    null_mut(),
                ));
            }
            let tight = pixel.repeat(region.iter().product());
            image.reference.set_region(origin, region, &tight);
            image.check(&env, &format!("fill {format:x?}"));
        }
    }
    check_validation();
}

#[test]
fn command_errors_in_the_spec_order() {
    let env = Env::new();
    let mut rng = Rng(5);
    let image = TestImage::new(
        &env,
        SHAPES[3],
        [CL_RGBA, CL_UNORM_INT8],
        4,
        &mut rng,
        false,
    );
    let other = TestImage::new(&env, SHAPES[3], [CL_RGBA, CL_FLOAT], 16, &mut rng, false);
    let mut px = [0u8; 4096];
    let p = px.as_mut_ptr().cast::<c_void>();
    let read = |origin: [usize; 3], region: [usize; 3], row: usize, slice: usize, ptr: H| unsafe {
        clEnqueueReadImage(
            env.queue,
            image.handle,
            CL_TRUE,
            origin.as_ptr(),
            region.as_ptr(),
            row,
            slice,
            ptr,
            0,
            null(),
            null_mut(),
        )
    };
    ok(read([0; 3], [1, 1, 1], 0, 0, p));
    assert_eq!(read([0; 3], [0, 1, 1], 0, 0, p), CL_INVALID_VALUE);
    assert_eq!(read([0, 0, 1], [1, 1, 1], 0, 0, p), CL_INVALID_VALUE);
    assert_eq!(read([0; 3], [1, 1, 2], 0, 0, p), CL_INVALID_VALUE);
    assert_eq!(read([10, 0, 0], [2, 1, 1], 0, 0, p), CL_INVALID_VALUE);
    assert_eq!(read([0; 3], [2, 1, 1], 4, 0, p), CL_INVALID_VALUE);
    assert_eq!(read([0; 3], [1, 1, 1], 0, 64, p), CL_INVALID_VALUE);
    assert_eq!(read([0; 3], [1, 1, 1], 0, 0, null_mut()), CL_INVALID_VALUE);
    unsafe {
        assert_eq!(
            clEnqueueReadImage(
                env.queue,
                image.handle,
                CL_TRUE,
                null(),
                [1usize; 3].as_ptr(),
                0,
                0,
                p,
                0,
                null(),
                null_mut()
            ),
            CL_INVALID_VALUE
        );
        assert_eq!(
            clEnqueueReadImage(
                null_mut(),
                image.handle,
                CL_TRUE,
                [0usize; 3].as_ptr(),
                [1usize; 3].as_ptr(),
                0,
                0,
                p,
                0,
                null(),
                null_mut()
            ),
            CL_INVALID_COMMAND_QUEUE
        );
        let mut err = 0;
        let buffer = clCreateBuffer(env.ctx, CL_MEM_READ_WRITE, 64, null_mut(), &mut err);
        ok(err);
        assert_eq!(
            clEnqueueReadImage(
                env.queue,
                buffer,
                CL_TRUE,
                [0usize; 3].as_ptr(),
                [1usize; 3].as_ptr(),
                0,
                0,
                p,
                0,
                null(),
                null_mut()
            ),
            CL_INVALID_MEM_OBJECT
        );
        assert_eq!(
            clEnqueueCopyImageToBuffer(
                env.queue,
                buffer,
                buffer,
                [0usize; 3].as_ptr(),
                [1usize; 3].as_ptr(),
                0,
                0,
                null(),
                null_mut()
            ),
            CL_INVALID_MEM_OBJECT
        );
        assert_eq!(
            clEnqueueCopyImageToBuffer(
                env.queue,
                image.handle,
                image.handle,
                [0usize; 3].as_ptr(),
                [1usize; 3].as_ptr(),
                0,
                0,
                null(),
                null_mut()
            ),
            CL_INVALID_MEM_OBJECT
        );
        assert_eq!(
            clEnqueueCopyImage(
                env.queue,
                image.handle,
                other.handle,
                [0usize; 3].as_ptr(),
                [0usize; 3].as_ptr(),
                [1usize; 3].as_ptr(),
                0,
                null(),
                null_mut()
            ),
            CL_IMAGE_FORMAT_MISMATCH
        );
        assert_eq!(
            clEnqueueCopyImage(
                env.queue,
                image.handle,
                image.handle,
                [0usize; 3].as_ptr(),
                [1usize, 1, 0].as_ptr(),
                [2usize, 2, 1].as_ptr(),
                0,
                null(),
                null_mut()
            ),
            CL_MEM_COPY_OVERLAP
        );
        ok(clEnqueueCopyImage(
            env.queue,
            image.handle,
            image.handle,
            [0usize; 3].as_ptr(),
            [2usize, 2, 0].as_ptr(),
            [2usize, 2, 1].as_ptr(),
            0,
            null(),
            null_mut(),
        ));
        assert_eq!(
            clEnqueueFillImage(
                env.queue,
                image.handle,
                null(),
                [0usize; 3].as_ptr(),
                [1usize; 3].as_ptr(),
                0,
                null(),
                null_mut()
            ),
            CL_INVALID_VALUE
        );
        let mut row = 0usize;
        clEnqueueMapImage(
            env.queue,
            image.handle,
            CL_TRUE,
            CL_MAP_READ,
            [0usize; 3].as_ptr(),
            [1usize; 3].as_ptr(),
            null_mut(),
            null_mut(),
            0,
            null(),
            null_mut(),
            &mut err,
        );
        assert_eq!(err, CL_INVALID_VALUE);
        clEnqueueMapImage(
            env.queue,
            image.handle,
            CL_TRUE,
            CL_MAP_READ | CL_MAP_WRITE_INVALIDATE_REGION,
            [0usize; 3].as_ptr(),
            [1usize; 3].as_ptr(),
            &mut row,
            null_mut(),
            0,
            null(),
            null_mut(),
            &mut err,
        );
        assert_eq!(err, CL_INVALID_VALUE);
        ok(clReleaseMemObject(buffer));
        // Host access flags.
        let d = SHAPES[3].desc();
        let fmt = [CL_RGBA, CL_UNORM_INT8];
        let img = clCreateImage(
            env.ctx,
            CL_MEM_HOST_WRITE_ONLY,
            fmt.as_ptr().cast(),
            (&d as *const Desc).cast(),
            null_mut(),
            &mut err,
        );
        ok(err);
        assert_eq!(
            clEnqueueReadImage(
                env.queue,
                img,
                CL_TRUE,
                [0usize; 3].as_ptr(),
                [1usize; 3].as_ptr(),
                0,
                0,
                p,
                0,
                null(),
                null_mut()
            ),
            CL_INVALID_OPERATION
        );
        ok(clEnqueueWriteImage(
            env.queue,
            img,
            CL_TRUE,
            [0usize; 3].as_ptr(),
            [1usize; 3].as_ptr(),
            0,
            0,
            p,
            0,
            null(),
            null_mut(),
        ));
        clEnqueueMapImage(
            env.queue,
            img,
            CL_TRUE,
            CL_MAP_READ,
            [0usize; 3].as_ptr(),
            [1usize; 3].as_ptr(),
            &mut row,
            null_mut(),
            0,
            null(),
            null_mut(),
            &mut err,
        );
        assert_eq!(err, CL_INVALID_OPERATION);
        ok(clReleaseMemObject(img));
    }
    check_validation();
}
