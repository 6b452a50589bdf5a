//! Image and sampler objects through the Rust-callable `extern "C"` entry
//! points of the `ferrocl` rlib: creation with every host pointer mode,
//! the supported formats, info queries, image kernel arguments, and the
//! error codes of bad arguments in the spec's order.

#![allow(clippy::missing_safety_doc)]

mod common;

use common::rlib::*;
use ferrocl::enqueue::*;
use ferrocl::image::*;
use ferrocl::kernel::*;
use ferrocl::memory::*;
use ferrocl::program::*;
use ferrocl::sampler::*;
use ferrocl_runtime::cl::*;
use std::ffi::{c_void, CString};
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

fn desc(image_type: cl_uint, width: usize, height: usize, depth: usize, layers: usize) -> Desc {
    Desc {
        image_type,
        width,
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

fn create(
    env: &Env,
    flags: cl_bitfield,
    format: [cl_uint; 2],
    d: &Desc,
    host: *mut c_void,
) -> (H, cl_int) {
    let mut err = 0;
    let image = unsafe {
        clCreateImage(
            env.ctx,
            flags,
            format.as_ptr().cast(),
            (d as *const Desc).cast(),
            host,
            &mut err,
        )
    };
    (image, err)
}

fn image_info<T: Copy + Default>(image: H, param: cl_uint) -> T {
    let mut value = T::default();
    let mut size = 0;
    unsafe {
        ok(clGetImageInfo(
            image,
            param,
            std::mem::size_of::<T>(),
            (&mut value as *mut T).cast(),
            &mut size,
        ));
    }
    assert_eq!(size, std::mem::size_of::<T>());
    value
}

fn mem_info<T: Copy + Default>(mem: H, param: cl_uint) -> T {
    let mut value = T::default();
    unsafe {
        ok(clGetMemObjectInfo(
            mem,
            param,
            std::mem::size_of::<T>(),
            (&mut value as *mut T).cast(),
            null_mut(),
        ));
    }
    value
}

const RGBA8: [cl_uint; 2] = [CL_RGBA, CL_UNORM_INT8];

fn formats(env: &Env, flags: cl_bitfield, image_type: cl_uint) -> Vec<[cl_uint; 2]> {
    let mut n = 0;
    unsafe {
        ok(clGetSupportedImageFormats(
            env.ctx,
            flags,
            image_type,
            0,
            null_mut(),
            &mut n,
        ));
        let mut list = vec![[0u32; 2]; n as usize];
        ok(clGetSupportedImageFormats(
            env.ctx,
            flags,
            image_type,
            n,
            list.as_mut_ptr().cast(),
            null_mut(),
        ));
        list
    }
}

#[test]
fn supported_formats_cover_the_required_list() {
    let env = Env::new();
    let read = formats(&env, CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D);
    let write = formats(&env, CL_MEM_WRITE_ONLY, CL_MEM_OBJECT_IMAGE2D);
    for order in [CL_R, CL_RG, CL_RGBA] {
        for t in [
            CL_UNORM_INT8,
            CL_UNORM_INT16,
            CL_SNORM_INT8,
            CL_SNORM_INT16,
            CL_SIGNED_INT8,
            CL_SIGNED_INT16,
            CL_SIGNED_INT32,
            CL_UNSIGNED_INT8,
            CL_UNSIGNED_INT16,
            CL_UNSIGNED_INT32,
            CL_HALF_FLOAT,
            CL_FLOAT,
        ] {
            assert!(read.contains(&[order, t]));
            assert!(write.contains(&[order, t]));
        }
    }
    assert!(read.contains(&[CL_BGRA, CL_UNORM_INT8]));
    assert!(read.contains(&[CL_sRGBA, CL_UNORM_INT8]));
    assert!(write.contains(&[CL_sRGBA, CL_UNORM_INT8]));
    assert!(read.contains(&[CL_DEPTH, CL_FLOAT]));
    let read_3d = formats(&env, CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE3D);
    assert!(read_3d.contains(&[CL_RGBA, CL_FLOAT]));
    assert!(!read_3d.contains(&[CL_DEPTH, CL_FLOAT]));
    // A short list gets the first entries.
    let mut two = [[0u32; 2]; 2];
    let mut n = 0;
    unsafe {
        ok(clGetSupportedImageFormats(
            env.ctx,
            CL_MEM_READ_WRITE,
            CL_MEM_OBJECT_IMAGE2D,
            2,
            two.as_mut_ptr().cast(),
            &mut n,
        ));
        assert!(n as usize > 2);
        assert_eq!(
            clGetSupportedImageFormats(
                env.ctx,
                CL_MEM_READ_WRITE,
                CL_MEM_OBJECT_BUFFER,
                0,
                null_mut(),
                &mut n
            ),
            CL_INVALID_VALUE
        );
        assert_eq!(
            clGetSupportedImageFormats(
                env.ctx,
                CL_MEM_READ_WRITE,
                CL_MEM_OBJECT_IMAGE2D,
                0,
                two.as_mut_ptr().cast(),
                &mut n
            ),
            CL_INVALID_VALUE
        );
        assert_eq!(
            clGetSupportedImageFormats(
                null_mut(),
                CL_MEM_READ_WRITE,
                CL_MEM_OBJECT_IMAGE2D,
                0,
                null_mut(),
                &mut n
            ),
            CL_INVALID_CONTEXT
        );
    }
    check_validation();
}

#[test]
fn image_2d_round_trip_with_every_host_pointer_mode() {
    let env = Env::new();
    let (w, h) = (5usize, 3usize);
    // Padded rows: 7 pixels of 4 bytes per row.
    let pitch = 28;
    let mut host: Vec<u8> = (0..pitch * h).map(|i| (i * 7 + 3) as u8).collect();
    let expected: Vec<u8> = (0..h)
        .flat_map(|y| host[y * pitch..y * pitch + w * 4].to_vec())
        .collect();
    let mut d = desc(CL_MEM_OBJECT_IMAGE2D, w, h, 0, 0);
    d.row_pitch = pitch;
    for flags in [
        CL_MEM_COPY_HOST_PTR,
        CL_MEM_USE_HOST_PTR,
        CL_MEM_COPY_HOST_PTR | CL_MEM_ALLOC_HOST_PTR,
    ] {
        let (image, err) = create(
            &env,
            flags | CL_MEM_READ_WRITE,
            RGBA8,
            &d,
            host.as_mut_ptr().cast(),
        );
        ok(err);
        let mut out = vec![0u8; w * h * 4];
        let origin = [0usize; 3];
        let region = [w, h, 1];
        unsafe {
            ok(clEnqueueReadImage(
                env.queue,
                image,
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
        assert_eq!(out, expected, "flags {flags:#x}");
        assert_eq!(image_info::<usize>(image, CL_IMAGE_ROW_PITCH), pitch);
        let host_ptr: H = mem_info(image, CL_MEM_HOST_PTR);
        if flags & CL_MEM_USE_HOST_PTR != 0 {
            assert_eq!(host_ptr, host.as_mut_ptr().cast());
        } else {
            assert!(host_ptr.is_null());
        }
        unsafe { ok(clReleaseMemObject(image)) };
    }
    // No host pointer: write a sub-rectangle, read the whole image.
    let (image, err) = create(
        &env,
        CL_MEM_READ_WRITE,
        RGBA8,
        &desc(CL_MEM_OBJECT_IMAGE2D, w, h, 0, 0),
        null_mut(),
    );
    ok(err);
    assert_eq!(image_info::<usize>(image, CL_IMAGE_ROW_PITCH), w * 4);
    let zero = vec![0u8; w * h * 4];
    let patch: Vec<u8> = (0..2 * 2 * 4).map(|i| 200 + i as u8).collect();
    unsafe {
        let all = [w, h, 1];
        ok(clEnqueueWriteImage(
            env.queue,
            image,
            CL_TRUE,
            [0usize; 3].as_ptr(),
            all.as_ptr(),
            0,
            0,
            zero.as_ptr().cast(),
            0,
            null(),
            null_mut(),
        ));
        ok(clEnqueueWriteImage(
            env.queue,
            image,
            CL_FALSE,
            [2usize, 1, 0].as_ptr(),
            [2usize, 2, 1].as_ptr(),
            0,
            0,
            patch.as_ptr().cast(),
            0,
            null(),
            null_mut(),
        ));
        let mut out = vec![0u8; w * h * 4];
        ok(clEnqueueReadImage(
            env.queue,
            image,
            CL_TRUE,
            [0usize; 3].as_ptr(),
            all.as_ptr(),
            0,
            0,
            out.as_mut_ptr().cast(),
            0,
            null(),
            null_mut(),
        ));
        for y in 0..h {
            for x in 0..w {
                let px = &out[(y * w + x) * 4..(y * w + x) * 4 + 4];
                if (2..4).contains(&x) && (1..3).contains(&y) {
                    let i = ((y - 1) * 2 + (x - 2)) * 4;
                    assert_eq!(px, &patch[i..i + 4]);
                } else {
                    assert_eq!(px, [0, 0, 0, 0]);
                }
            }
        }
        ok(clReleaseMemObject(image));
    }
    check_validation();
}

#[test]
fn image_info_for_every_type() {
    let env = Env::new();
    let cases = [
        (desc(CL_MEM_OBJECT_IMAGE1D, 9, 0, 0, 0), [9, 0, 0, 0], 36, 0),
        (
            desc(CL_MEM_OBJECT_IMAGE1D_ARRAY, 9, 0, 0, 3),
            [9, 0, 0, 3],
            36,
            36,
        ),
        (desc(CL_MEM_OBJECT_IMAGE2D, 9, 4, 0, 0), [9, 4, 0, 0], 36, 0),
        (
            desc(CL_MEM_OBJECT_IMAGE2D_ARRAY, 9, 4, 0, 2),
            [9, 4, 0, 2],
            36,
            144,
        ),
        (
            desc(CL_MEM_OBJECT_IMAGE3D, 9, 4, 5, 0),
            [9, 4, 5, 0],
            36,
            144,
        ),
    ];
    for (d, [w, h, depth, layers], row, slice) in cases {
        let (image, err) = create(&env, CL_MEM_READ_ONLY, RGBA8, &d, null_mut());
        ok(err);
        assert_eq!(image_info::<[cl_uint; 2]>(image, CL_IMAGE_FORMAT), RGBA8);
        assert_eq!(image_info::<usize>(image, CL_IMAGE_ELEMENT_SIZE), 4);
        assert_eq!(image_info::<usize>(image, CL_IMAGE_WIDTH), w);
        assert_eq!(image_info::<usize>(image, CL_IMAGE_HEIGHT), h);
        assert_eq!(image_info::<usize>(image, CL_IMAGE_DEPTH), depth);
        assert_eq!(image_info::<usize>(image, CL_IMAGE_ARRAY_SIZE), layers);
        assert_eq!(image_info::<usize>(image, CL_IMAGE_ROW_PITCH), row);
        assert_eq!(image_info::<usize>(image, CL_IMAGE_SLICE_PITCH), slice);
        assert_eq!(image_info::<cl_uint>(image, CL_IMAGE_NUM_MIP_LEVELS), 0);
        assert_eq!(image_info::<cl_uint>(image, CL_IMAGE_NUM_SAMPLES), 0);
        assert!(image_info::<H>(image, CL_IMAGE_BUFFER).is_null());
        assert_eq!(mem_info::<cl_uint>(image, CL_MEM_TYPE), d.image_type);
        assert_eq!(
            mem_info::<cl_bitfield>(image, CL_MEM_FLAGS),
            CL_MEM_READ_ONLY
        );
        let size: usize = mem_info(image, CL_MEM_SIZE);
        assert!(size >= row * h.max(1) * depth.max(1) * layers.max(1));
        assert!(mem_info::<H>(image, CL_MEM_ASSOCIATED_MEMOBJECT).is_null());
        unsafe {
            assert_eq!(
                clGetImageInfo(image, 0x1234, 0, null_mut(), null_mut()),
                CL_INVALID_VALUE
            );
            ok(clReleaseMemObject(image));
        }
    }
    // A buffer is no image.
    let mut err = 0;
    unsafe {
        let buffer = clCreateBuffer(env.ctx, CL_MEM_READ_WRITE, 64, null_mut(), &mut err);
        ok(err);
        assert_eq!(
            clGetImageInfo(buffer, CL_IMAGE_WIDTH, 0, null_mut(), null_mut()),
            CL_INVALID_MEM_OBJECT
        );
        ok(clReleaseMemObject(buffer));
    }
    check_validation();
}

#[test]
fn images_from_buffers_share_their_memory() {
    let env = Env::new();
    let mut err = 0;
    unsafe {
        let data: Vec<u8> = (0..256u32).map(|i| i as u8).collect();
        let buffer = clCreateBuffer(
            env.ctx,
            CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
            256,
            data.as_ptr() as *mut c_void,
            &mut err,
        );
        ok(err);
        let mut d = desc(CL_MEM_OBJECT_IMAGE1D_BUFFER, 64, 0, 0, 0);
        d.mem_object = buffer;
        let (image, err) = create(&env, 0, RGBA8, &d, null_mut());
        ok(err);
        assert_eq!(image_info::<H>(image, CL_IMAGE_BUFFER), buffer);
        assert_eq!(mem_info::<H>(image, CL_MEM_ASSOCIATED_MEMOBJECT), buffer);
        assert_eq!(
            mem_info::<cl_bitfield>(image, CL_MEM_FLAGS),
            CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR
        );
        let mut out = [0u8; 8];
        ok(clEnqueueReadImage(
            env.queue,
            image,
            CL_TRUE,
            [10usize, 0, 0].as_ptr(),
            [2usize, 1, 1].as_ptr(),
            0,
            0,
            out.as_mut_ptr().cast(),
            0,
            null(),
            null_mut(),
        ));
        assert_eq!(out, [40, 41, 42, 43, 44, 45, 46, 47]);
        // A 1D image buffer cannot be copied to or from its own buffer.
        assert_eq!(
            clEnqueueCopyImageToBuffer(
                env.queue,
                image,
                buffer,
                [0usize; 3].as_ptr(),
                [1usize, 1, 1].as_ptr(),
                0,
                0,
                null(),
                null_mut()
            ),
            CL_INVALID_MEM_OBJECT
        );
        // Too wide for the buffer.
        d.width = 65;
        assert_eq!(
            create(&env, 0, RGBA8, &d, null_mut()).1,
            CL_INVALID_IMAGE_SIZE
        );
        // A 2D image over the same buffer: 4 rows of 16 bytes (pitch 16).
        let mut d2 = desc(CL_MEM_OBJECT_IMAGE2D, 3, 4, 0, 0);
        d2.row_pitch = 16;
        d2.mem_object = buffer;
        let (image2, err) = create(&env, CL_MEM_READ_ONLY, RGBA8, &d2, null_mut());
        ok(err);
        ok(clEnqueueReadImage(
            env.queue,
            image2,
            CL_TRUE,
            [1usize, 2, 0].as_ptr(),
            [2usize, 1, 1].as_ptr(),
            0,
            0,
            out.as_mut_ptr().cast(),
            0,
            null(),
            null_mut(),
        ));
        assert_eq!(out, [36, 37, 38, 39, 40, 41, 42, 43]);
        // A host pointer flag with a memory object is CL_INVALID_VALUE.
        assert_eq!(
            create(&env, CL_MEM_COPY_HOST_PTR, RGBA8, &d2, data.as_ptr() as H).1,
            CL_INVALID_VALUE
        );
        // A buffer operation on an image is CL_INVALID_MEM_OBJECT.
        assert_eq!(
            clEnqueueReadBuffer(
                env.queue,
                image,
                CL_TRUE,
                0,
                4,
                out.as_mut_ptr().cast(),
                0,
                null(),
                null_mut()
            ),
            CL_INVALID_MEM_OBJECT
        );
        ok(clReleaseMemObject(image2));
        ok(clReleaseMemObject(image));
        ok(clReleaseMemObject(buffer));
    }
    check_validation();
}

#[test]
fn creation_errors_in_the_spec_order() {
    let env = Env::new();
    let d = desc(CL_MEM_OBJECT_IMAGE2D, 4, 4, 0, 0);
    let mut host = vec![0u8; 4 * 4 * 16];
    let hp: H = host.as_mut_ptr().cast();
    let mut err = 0;
    unsafe {
        clCreateImage(
            null_mut(),
            0,
            RGBA8.as_ptr().cast(),
            (&d as *const Desc).cast(),
            null_mut(),
            &mut err,
        );
        assert_eq!(err, CL_INVALID_CONTEXT);
    }
    assert_eq!(
        create(
            &env,
            CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY,
            RGBA8,
            &d,
            null_mut()
        )
        .1,
        CL_INVALID_VALUE
    );
    assert_eq!(
        create(&env, 0, [CL_RGB, CL_UNORM_INT8], &d, null_mut()).1,
        CL_INVALID_IMAGE_FORMAT_DESCRIPTOR
    );
    assert_eq!(
        create(&env, 0, [CL_BGRA, CL_FLOAT], &d, null_mut()).1,
        CL_INVALID_IMAGE_FORMAT_DESCRIPTOR
    );
    unsafe {
        clCreateImage(
            env.ctx,
            0,
            null(),
            (&d as *const Desc).cast(),
            null_mut(),
            &mut err,
        );
        assert_eq!(err, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
        clCreateImage(
            env.ctx,
            0,
            RGBA8.as_ptr().cast(),
            null(),
            null_mut(),
            &mut err,
        );
        assert_eq!(err, CL_INVALID_IMAGE_DESCRIPTOR);
    }
    let mut bad = d;
    bad.image_type = CL_MEM_OBJECT_BUFFER;
    assert_eq!(
        create(&env, 0, RGBA8, &bad, null_mut()).1,
        CL_INVALID_IMAGE_DESCRIPTOR
    );
    let mut bad = d;
    bad.num_mip_levels = 2;
    assert_eq!(
        create(&env, 0, RGBA8, &bad, null_mut()).1,
        CL_INVALID_IMAGE_DESCRIPTOR
    );
    let mut bad = d;
    bad.row_pitch = 32;
    assert_eq!(
        create(&env, 0, RGBA8, &bad, null_mut()).1,
        CL_INVALID_IMAGE_DESCRIPTOR
    );
    assert_eq!(
        create(&env, CL_MEM_COPY_HOST_PTR, RGBA8, &bad, hp).1,
        CL_SUCCESS
    );
    bad.row_pitch = 8;
    assert_eq!(
        create(&env, CL_MEM_COPY_HOST_PTR, RGBA8, &bad, hp).1,
        CL_INVALID_IMAGE_DESCRIPTOR
    );
    bad.row_pitch = 18;
    assert_eq!(
        create(&env, CL_MEM_COPY_HOST_PTR, RGBA8, &bad, hp).1,
        CL_INVALID_IMAGE_DESCRIPTOR
    );
    assert_eq!(
        create(
            &env,
            0,
            RGBA8,
            &desc(CL_MEM_OBJECT_IMAGE2D, 0, 4, 0, 0),
            null_mut()
        )
        .1,
        CL_INVALID_IMAGE_SIZE
    );
    assert_eq!(
        create(
            &env,
            0,
            RGBA8,
            &desc(CL_MEM_OBJECT_IMAGE2D, 16385, 4, 0, 0),
            null_mut()
        )
        .1,
        CL_INVALID_IMAGE_SIZE
    );
    assert_eq!(
        create(
            &env,
            0,
            RGBA8,
            &desc(CL_MEM_OBJECT_IMAGE3D, 4, 4, 2049, 0),
            null_mut()
        )
        .1,
        CL_INVALID_IMAGE_SIZE
    );
    assert_eq!(
        create(
            &env,
            0,
            RGBA8,
            &desc(CL_MEM_OBJECT_IMAGE2D_ARRAY, 4, 4, 0, 2049),
            null_mut()
        )
        .1,
        CL_INVALID_IMAGE_SIZE
    );
    assert_eq!(
        create(
            &env,
            0,
            RGBA8,
            &desc(CL_MEM_OBJECT_IMAGE1D_BUFFER, 4, 0, 0, 0),
            null_mut()
        )
        .1,
        CL_INVALID_IMAGE_DESCRIPTOR
    );
    assert_eq!(
        create(&env, CL_MEM_COPY_HOST_PTR, RGBA8, &d, null_mut()).1,
        CL_INVALID_HOST_PTR
    );
    assert_eq!(
        create(&env, CL_MEM_USE_HOST_PTR, RGBA8, &d, null_mut()).1,
        CL_INVALID_HOST_PTR
    );
    assert_eq!(create(&env, 0, RGBA8, &d, hp).1, CL_INVALID_HOST_PTR);
    // A valid format that is not offered for the image type (depth
    // images are 2D or 2D arrays).
    let d3 = desc(CL_MEM_OBJECT_IMAGE3D, 4, 4, 4, 0);
    assert_eq!(
        create(
            &env,
            CL_MEM_READ_ONLY,
            [CL_DEPTH, CL_FLOAT],
            &d3,
            null_mut()
        )
        .1,
        CL_IMAGE_FORMAT_NOT_SUPPORTED
    );
    // clCreateImage2D / 3D: pitch errors are CL_INVALID_IMAGE_SIZE.
    unsafe {
        let i = clCreateImage2D(
            env.ctx,
            0,
            RGBA8.as_ptr().cast(),
            4,
            4,
            32,
            null_mut(),
            &mut err,
        );
        assert!(i.is_null());
        assert_eq!(err, CL_INVALID_IMAGE_SIZE);
        let i = clCreateImage3D(
            env.ctx,
            0,
            RGBA8.as_ptr().cast(),
            4,
            4,
            1,
            0,
            0,
            null_mut(),
            &mut err,
        );
        assert!(i.is_null());
        assert_eq!(err, CL_INVALID_IMAGE_SIZE);
        let i = clCreateImage3D(
            env.ctx,
            0,
            RGBA8.as_ptr().cast(),
            4,
            4,
            2,
            0,
            0,
            null_mut(),
            &mut err,
        );
        ok(err);
        assert_eq!(image_info::<usize>(i, CL_IMAGE_DEPTH), 2);
        ok(clReleaseMemObject(i));
        let i = clCreateImage2D(
            env.ctx,
            CL_MEM_COPY_HOST_PTR,
            RGBA8.as_ptr().cast(),
            4,
            4,
            0,
            hp,
            &mut err,
        );
        ok(err);
        ok(clReleaseMemObject(i));
        // clCreateImageWithProperties: an empty list is reported back.
        let props = [0u64];
        let i = clCreateImageWithProperties(
            env.ctx,
            props.as_ptr(),
            0,
            RGBA8.as_ptr().cast(),
            (&d as *const Desc).cast(),
            null_mut(),
            &mut err,
        );
        ok(err);
        let mut size = 0;
        ok(clGetMemObjectInfo(
            i,
            CL_MEM_PROPERTIES,
            0,
            null_mut(),
            &mut size,
        ));
        assert_eq!(size, 8);
        ok(clReleaseMemObject(i));
        let bad_props = [0x1234u64, 1, 0];
        clCreateImageWithProperties(
            env.ctx,
            bad_props.as_ptr(),
            0,
            RGBA8.as_ptr().cast(),
            (&d as *const Desc).cast(),
            null_mut(),
            &mut err,
        );
        assert_eq!(err, CL_INVALID_PROPERTY);
    }
    check_validation();
}

#[test]
fn samplers_and_their_info() {
    let env = Env::new();
    let mut err = 0;
    unsafe {
        let s = clCreateSampler(
            env.ctx,
            CL_TRUE,
            CL_ADDRESS_REPEAT,
            CL_FILTER_LINEAR,
            &mut err,
        );
        ok(err);
        let mut v: cl_uint = 0;
        ok(clGetSamplerInfo(
            s,
            CL_SAMPLER_ADDRESSING_MODE,
            4,
            (&mut v as *mut cl_uint).cast(),
            null_mut(),
        ));
        assert_eq!(v, CL_ADDRESS_REPEAT);
        ok(clGetSamplerInfo(
            s,
            CL_SAMPLER_FILTER_MODE,
            4,
            (&mut v as *mut cl_uint).cast(),
            null_mut(),
        ));
        assert_eq!(v, CL_FILTER_LINEAR);
        ok(clGetSamplerInfo(
            s,
            CL_SAMPLER_NORMALIZED_COORDS,
            4,
            (&mut v as *mut cl_uint).cast(),
            null_mut(),
        ));
        assert_eq!(v, CL_TRUE);
        ok(clGetSamplerInfo(
            s,
            CL_SAMPLER_REFERENCE_COUNT,
            4,
            (&mut v as *mut cl_uint).cast(),
            null_mut(),
        ));
        assert_eq!(v, 1);
        let mut ctx: H = null_mut();
        ok(clGetSamplerInfo(
            s,
            CL_SAMPLER_CONTEXT,
            8,
            (&mut ctx as *mut H).cast(),
            null_mut(),
        ));
        assert_eq!(ctx, env.ctx);
        let mut size = 1;
        ok(clGetSamplerInfo(
            s,
            CL_SAMPLER_PROPERTIES,
            0,
            null_mut(),
            &mut size,
        ));
        assert_eq!(size, 0);
        assert_eq!(
            clGetSamplerInfo(s, 0x1234, 0, null_mut(), null_mut()),
            CL_INVALID_VALUE
        );
        ok(clRetainSampler(s));
        ok(clReleaseSampler(s));
        ok(clReleaseSampler(s));

        let props = [
            u64::from(CL_SAMPLER_NORMALIZED_COORDS),
            u64::from(CL_FALSE),
            u64::from(CL_SAMPLER_FILTER_MODE),
            u64::from(CL_FILTER_LINEAR),
            0,
        ];
        let s = clCreateSamplerWithProperties(env.ctx, props.as_ptr(), &mut err);
        ok(err);
        ok(clGetSamplerInfo(
            s,
            CL_SAMPLER_ADDRESSING_MODE,
            4,
            (&mut v as *mut cl_uint).cast(),
            null_mut(),
        ));
        assert_eq!(v, CL_ADDRESS_CLAMP);
        ok(clGetSamplerInfo(
            s,
            CL_SAMPLER_NORMALIZED_COORDS,
            4,
            (&mut v as *mut cl_uint).cast(),
            null_mut(),
        ));
        assert_eq!(v, CL_FALSE);
        let mut back = [0u64; 5];
        ok(clGetSamplerInfo(
            s,
            CL_SAMPLER_PROPERTIES,
            40,
            back.as_mut_ptr().cast(),
            &mut size,
        ));
        assert_eq!((size, back), (40, props));
        ok(clReleaseSampler(s));

        clCreateSampler(
            null_mut(),
            CL_TRUE,
            CL_ADDRESS_CLAMP,
            CL_FILTER_LINEAR,
            &mut err,
        );
        assert_eq!(err, CL_INVALID_CONTEXT);
        clCreateSampler(env.ctx, CL_TRUE, 0, CL_FILTER_NEAREST, &mut err);
        assert_eq!(err, CL_INVALID_VALUE);
        clCreateSampler(env.ctx, 2, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, &mut err);
        assert_eq!(err, CL_INVALID_VALUE);
        let twice = [
            u64::from(CL_SAMPLER_FILTER_MODE),
            u64::from(CL_FILTER_LINEAR),
            u64::from(CL_SAMPLER_FILTER_MODE),
            u64::from(CL_FILTER_LINEAR),
            0,
        ];
        clCreateSamplerWithProperties(env.ctx, twice.as_ptr(), &mut err);
        assert_eq!(err, CL_INVALID_VALUE);
        let unknown = [0x1234u64, 0, 0];
        clCreateSamplerWithProperties(env.ctx, unknown.as_ptr(), &mut err);
        assert_eq!(err, CL_INVALID_VALUE);
        assert_eq!(clRetainSampler(null_mut()), CL_INVALID_SAMPLER);
        assert_eq!(clReleaseSampler(env.ctx), CL_INVALID_SAMPLER);
    }
    check_validation();
}

#[test]
fn image_and_sampler_kernel_arguments() {
    let env = Env::new();
    let dev = device();
    let source = CString::new(
        "kernel void k(read_only image2d_t img, sampler_t s, global int *out) { out[0] = 1; }",
    )
    .unwrap();
    let mut err = 0;
    unsafe {
        let ptr = source.as_ptr();
        let program = clCreateProgramWithSource(env.ctx, 1, &ptr, null(), &mut err);
        ok(err);
        ok(clBuildProgram(program, 1, &dev, null(), None, null_mut()));
        let name = CString::new("k").unwrap();
        let kernel = clCreateKernel(program, name.as_ptr(), &mut err);
        ok(err);
        let (image, e) = create(
            &env,
            CL_MEM_READ_ONLY,
            RGBA8,
            &desc(CL_MEM_OBJECT_IMAGE2D, 4, 4, 0, 0),
            null_mut(),
        );
        ok(e);
        let buffer = clCreateBuffer(env.ctx, CL_MEM_READ_WRITE, 4, null_mut(), &mut err);
        ok(err);
        let sampler = clCreateSampler(
            env.ctx,
            CL_FALSE,
            CL_ADDRESS_NONE,
            CL_FILTER_NEAREST,
            &mut err,
        );
        ok(err);
        let hsize = std::mem::size_of::<H>();
        ok(clSetKernelArg(
            kernel,
            0,
            hsize,
            (&image as *const H).cast(),
        ));
        ok(clSetKernelArg(
            kernel,
            1,
            hsize,
            (&sampler as *const H).cast(),
        ));
        assert_eq!(
            clSetKernelArg(kernel, 0, hsize, (&buffer as *const H).cast()),
            CL_INVALID_MEM_OBJECT
        );
        assert_eq!(
            clSetKernelArg(kernel, 0, 4, (&image as *const H).cast()),
            CL_INVALID_ARG_SIZE
        );
        assert_eq!(
            clSetKernelArg(kernel, 1, hsize, (&image as *const H).cast()),
            CL_INVALID_SAMPLER
        );
        assert_eq!(clSetKernelArg(kernel, 1, hsize, null()), CL_INVALID_SAMPLER);
        // A pointer argument takes a buffer, not an image.
        assert_eq!(
            clSetKernelArg(kernel, 2, hsize, (&image as *const H).cast()),
            CL_INVALID_MEM_OBJECT
        );
        ok(clSetKernelArg(
            kernel,
            2,
            hsize,
            (&buffer as *const H).cast(),
        ));
        // A write-only image is no read_only argument.
        let (write_only, e) = create(
            &env,
            CL_MEM_WRITE_ONLY,
            RGBA8,
            &desc(CL_MEM_OBJECT_IMAGE2D, 4, 4, 0, 0),
            null_mut(),
        );
        ok(e);
        assert_eq!(
            clSetKernelArg(kernel, 0, hsize, (&write_only as *const H).cast()),
            CL_INVALID_ARG_VALUE
        );
        ok(clReleaseMemObject(write_only));
        ok(clReleaseSampler(sampler));
        ok(clReleaseMemObject(buffer));
        ok(clReleaseMemObject(image));
        ok(clReleaseKernel(kernel));
        ok(clReleaseProgram(program));
    }
    check_validation();
}

#[test]
fn kernels_see_the_image_descriptor() {
    let env = Env::new();
    let dev = device();
    let source = CString::new(
        "kernel void k(read_only image2d_t img, global uint *out) {\n\
             int x = get_global_id(0), y = get_global_id(1);\n\
             uint4 p = read_imageui(img, (int2)(x, y));\n\
             out[y * get_image_width(img) + x] = p.x + (p.w << 8);\n\
             if (x == 0 && y == 0) { out[64] = get_image_width(img); out[65] = get_image_height(img); }\n\
         }",
    )
    .unwrap();
    let mut err = 0;
    unsafe {
        let ptr = source.as_ptr();
        let program = clCreateProgramWithSource(env.ctx, 1, &ptr, null(), &mut err);
        ok(err);
        let status = clBuildProgram(program, 1, &dev, null(), None, null_mut());
        if status != CL_SUCCESS {
            let mut log = vec![0u8; 16384];
            clGetProgramBuildInfo(
                program,
                dev,
                CL_PROGRAM_BUILD_LOG,
                log.len(),
                log.as_mut_ptr().cast(),
                null_mut(),
            );
            panic!("build failed: {}", String::from_utf8_lossy(&log));
        }
        let name = CString::new("k").unwrap();
        let kernel = clCreateKernel(program, name.as_ptr(), &mut err);
        ok(err);
        let (w, h) = (6usize, 5usize);
        let mut pixels: Vec<u8> = (0..w * h).flat_map(|i| [i as u8, 0, 0, 3]).collect();
        let mut d = desc(CL_MEM_OBJECT_IMAGE2D, w, h, 0, 0);
        d.row_pitch = 0;
        let (image, e) = create(
            &env,
            CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
            [CL_RGBA, CL_UNSIGNED_INT8],
            &d,
            pixels.as_mut_ptr().cast(),
        );
        ok(e);
        let buffer = clCreateBuffer(env.ctx, CL_MEM_READ_WRITE, 66 * 4, null_mut(), &mut err);
        ok(err);
        let hsize = std::mem::size_of::<H>();
        ok(clSetKernelArg(
            kernel,
            0,
            hsize,
            (&image as *const H).cast(),
        ));
        ok(clSetKernelArg(
            kernel,
            1,
            hsize,
            (&buffer as *const H).cast(),
        ));
        let global = [w, h];
        ok(clEnqueueNDRangeKernel(
            env.queue,
            kernel,
            2,
            null(),
            global.as_ptr(),
            null(),
            0,
            null(),
            null_mut(),
        ));
        let mut out = vec![0u32; 66];
        ok(clEnqueueReadBuffer(
            env.queue,
            buffer,
            CL_TRUE,
            0,
            66 * 4,
            out.as_mut_ptr().cast(),
            0,
            null(),
            null_mut(),
        ));
        for (i, &value) in out.iter().take(w * h).enumerate() {
            assert_eq!(value, i as u32 + (3 << 8), "pixel {i}");
        }
        assert_eq!((out[64], out[65]), (w as u32, h as u32));
        ok(clReleaseMemObject(buffer));
        ok(clReleaseMemObject(image));
        ok(clReleaseKernel(kernel));
        ok(clReleaseProgram(program));
    }
    check_validation();
}

#[test]
fn image_views_share_pixels_and_pitches() {
    let env = Env::new();
    let (w, h, pitch) = (3usize, 2usize, 20usize);
    let mut host: Vec<u8> = (0..pitch * h).map(|i| i as u8).collect();
    let mut d = desc(CL_MEM_OBJECT_IMAGE2D, w, h, 0, 0);
    d.row_pitch = pitch;
    let (image, err) = create(
        &env,
        CL_MEM_COPY_HOST_PTR,
        RGBA8,
        &d,
        host.as_mut_ptr().cast(),
    );
    ok(err);
    let mut v = desc(CL_MEM_OBJECT_IMAGE2D, w, h, 0, 0);
    v.mem_object = image;
    let (view, err) = create(
        &env,
        CL_MEM_READ_ONLY,
        [CL_sRGBA, CL_UNORM_INT8],
        &v,
        null_mut(),
    );
    ok(err);
    assert_eq!(image_info::<usize>(view, CL_IMAGE_ROW_PITCH), pitch);
    assert_eq!(mem_info::<H>(view, CL_MEM_ASSOCIATED_MEMOBJECT), image);
    let mut out = vec![0u8; w * h * 4];
    unsafe {
        ok(clEnqueueReadImage(
            env.queue,
            view,
            CL_TRUE,
            [0usize; 3].as_ptr(),
            [w, h, 1].as_ptr(),
            0,
            0,
            out.as_mut_ptr().cast(),
            0,
            null(),
            null_mut(),
        ));
    }
    let expected: Vec<u8> = (0..h)
        .flat_map(|y| host[y * pitch..y * pitch + w * 4].to_vec())
        .collect();
    assert_eq!(out, expected);
    // A different data type, or another size, is no view.
    assert_eq!(
        create(
            &env,
            CL_MEM_READ_ONLY,
            [CL_RGBA, CL_SNORM_INT8],
            &v,
            null_mut()
        )
        .1,
        CL_INVALID_IMAGE_FORMAT_DESCRIPTOR
    );
    assert_eq!(
        create(
            &env,
            CL_MEM_READ_ONLY,
            [CL_BGRA, CL_UNORM_INT8],
            &v,
            null_mut()
        )
        .1,
        CL_INVALID_IMAGE_FORMAT_DESCRIPTOR
    );
    v.width = 2;
    assert_eq!(
        create(
            &env,
            CL_MEM_READ_ONLY,
            [CL_sRGBA, CL_UNORM_INT8],
            &v,
            null_mut()
        )
        .1,
        CL_INVALID_IMAGE_DESCRIPTOR
    );
    unsafe {
        ok(clReleaseMemObject(view));
        ok(clReleaseMemObject(image));
    }
    check_validation();
}
