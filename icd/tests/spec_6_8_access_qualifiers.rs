//! OpenCL C 6.8 (access qualifiers): `read_only`/`__read_only`,
//! `write_only`/`__write_only` and `read_write` image arguments, as the
//! kernel reflection reports them (`CL_KERNEL_ARG_ACCESS_QUALIFIER`) and as
//! kernels that read and write images through them behave.

mod common;
mod spec_support;

use common::*;
use ferrocl_runtime::cl::*;
use std::ffi::c_void;
use std::ptr::null_mut;
use std::sync::OnceLock;

#[repr(C)]
struct ImageFormat {
    order: cl_uint,
    data_type: cl_uint,
}

#[repr(C)]
struct ImageDesc {
    image_type: cl_uint,
    width: usize,
    height: usize,
    depth: usize,
    array_size: usize,
    row_pitch: usize,
    slice_pitch: usize,
    num_mip_levels: cl_uint,
    num_samples: cl_uint,
    mem_object: Handle,
}

type CreateImage = unsafe extern "C" fn(
    Handle,
    cl_bitfield,
    *const ImageFormat,
    *const ImageDesc,
    *mut c_void,
    *mut cl_int,
) -> Handle;
type GetKernelArgInfo =
    unsafe extern "C" fn(Handle, cl_uint, cl_uint, usize, *mut c_void, *mut usize) -> cl_int;

/// The two entry points these tests need beyond the common set, resolved
/// from the same library.
struct ImageApi {
    create_image: CreateImage,
    get_kernel_arg_info: GetKernelArgInfo,
}

fn image_api() -> &'static ImageApi {
    static LIB: OnceLock<libloading::Library> = OnceLock::new();
    static API: OnceLock<ImageApi> = OnceLock::new();
    API.get_or_init(|| {
        api();
        // SAFETY: the library is the one the common helpers already loaded;
        // loading it again only takes another reference.
        let lib =
            LIB.get_or_init(|| unsafe { libloading::Library::new(library_path()) }.expect("load"));
        // SAFETY: the types are those of the OpenCL headers.
        unsafe {
            ImageApi {
                create_image: *lib
                    .get::<CreateImage>(b"clCreateImage\0")
                    .expect("clCreateImage"),
                get_kernel_arg_info: *lib
                    .get::<GetKernelArgInfo>(b"clGetKernelArgInfo\0")
                    .expect("clGetKernelArgInfo"),
            }
        }
    })
}

fn image_support(gpu: &Gpu) -> bool {
    gpu.device_info::<cl_uint>(CL_DEVICE_IMAGE_SUPPORT) != 0
}

/// A 2D RGBA float image of `w` x `h`, initialised from `data` when given.
struct Image(Handle);

fn image(gpu: &Gpu, w: usize, h: usize, data: Option<&[f32]>) -> Image {
    let format = ImageFormat {
        order: CL_RGBA,
        data_type: CL_FLOAT,
    };
    let desc = ImageDesc {
        image_type: CL_MEM_OBJECT_IMAGE2D,
        width: w,
        height: h,
        depth: 1,
        array_size: 1,
        row_pitch: 0,
        slice_pitch: 0,
        num_mip_levels: 0,
        num_samples: 0,
        mem_object: null_mut(),
    };
    let (flags, ptr) = match data {
        Some(d) => (
            CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
            d.as_ptr() as *mut c_void,
        ),
        None => (CL_MEM_READ_WRITE, null_mut()),
    };
    let mut err = 0;
    // SAFETY: format and desc are live; the host data covers w * h texels.
    let handle =
        unsafe { (image_api().create_image)(gpu.context, flags, &format, &desc, ptr, &mut err) };
    check(err, "clCreateImage");
    Image(handle)
}

fn set_image(k: &Kernel<'_>, index: u32, img: &Image) {
    k.arg_bytes(index, &(img.0 as usize).to_ne_bytes());
}

fn release(gpu: &Gpu, img: Image) {
    // SAFETY: the handle is ours and released once.
    check(
        unsafe { (gpu.api.clReleaseMemObject)(img.0) },
        "clReleaseMemObject",
    );
}

#[test]
fn access_qualifiers_in_reflection() {
    let gpu = Gpu::new();
    if !image_support(&gpu) {
        eprintln!("the device has no image support: nothing to check");
        return;
    }
    let src = r#"
        kernel void k(read_only image2d_t a, __read_only image2d_t b,
                      write_only image2d_t c, __write_only image2d_t d,
                      image2d_t e, global int *f) { }
    "#;
    let program = gpu.program(src, "-cl-kernel-arg-info");
    let k = program.kernel("k");
    let want = [
        CL_KERNEL_ARG_ACCESS_READ_ONLY,
        CL_KERNEL_ARG_ACCESS_READ_ONLY,
        CL_KERNEL_ARG_ACCESS_WRITE_ONLY,
        CL_KERNEL_ARG_ACCESS_WRITE_ONLY,
        // An image without a qualifier is read_only (6.8).
        CL_KERNEL_ARG_ACCESS_READ_ONLY,
        CL_KERNEL_ARG_ACCESS_NONE,
    ];
    let mut got = Vec::new();
    for i in 0..want.len() as cl_uint {
        let mut v: cl_uint = 0;
        // SAFETY: the value is a cl_kernel_arg_access_qualifier (cl_uint).
        let status = unsafe {
            (image_api().get_kernel_arg_info)(
                k.handle,
                i,
                CL_KERNEL_ARG_ACCESS_QUALIFIER,
                4,
                &mut v as *mut cl_uint as *mut c_void,
                null_mut(),
            )
        };
        check(status, "clGetKernelArgInfo");
        got.push(v);
    }
    assert_same(&got, &want, "CL_KERNEL_ARG_ACCESS_QUALIFIER");
}

#[test]
fn read_only_and_write_only_images_in_kernels() {
    let gpu = Gpu::new();
    if !image_support(&gpu) {
        eprintln!("the device has no image support: nothing to run");
        return;
    }
    let (w, h) = (8usize, 4usize);
    let texels: Vec<f32> = (0..w * h * 4).map(|v| v as f32 * 0.5 - 10.0).collect();
    let src = r#"
        kernel void scale(read_only image2d_t src, write_only image2d_t dst, float f) {
            int2 p = (int2)(get_global_id(0), get_global_id(1));
            write_imagef(dst, p, read_imagef(src, p) * f);
        }
        kernel void to_buffer(__read_only image2d_t img, global float4 *out) {
            int2 p = (int2)(get_global_id(0), get_global_id(1));
            out[p.y * get_image_width(img) + p.x] = read_imagef(img, p);
        }
    "#;
    let program = gpu.program(src, "");
    let a = image(&gpu, w, h, Some(&texels));
    let b = image(&gpu, w, h, None);
    let scale = program.kernel("scale");
    set_image(&scale, 0, &a);
    set_image(&scale, 1, &b);
    scale.arg(2, 3.0f32);
    gpu.run(&scale, &[w, h], None, None);
    let to_buffer = program.kernel("to_buffer");
    let out = gpu.zeroed::<f32>(w * h * 4);
    set_image(&to_buffer, 0, &b);
    to_buffer.arg_buffer(1, &out);
    gpu.run(&to_buffer, &[w, h], None, None);
    let want: Vec<f32> = texels.iter().map(|v| v * 3.0).collect();
    assert_close(
        &gpu.read::<f32>(&out),
        &want,
        0.0,
        0.0,
        "write_only then read_only",
    );
    drop(scale);
    drop(to_buffer);
    release(&gpu, a);
    release(&gpu, b);
}

#[test]
fn read_write_images() {
    if !spec_support::device_defines("__opencl_c_read_write_images", "-cl-std=CL3.0") {
        eprintln!("the device lacks __opencl_c_read_write_images: nothing to run");
        return;
    }
    let gpu = Gpu::new();
    let (w, h) = (4usize, 4usize);
    let texels: Vec<f32> = (0..w * h * 4).map(|v| v as f32).collect();
    let src = r#"
        kernel void bump(read_write image2d_t img, global float4 *out) {
            int2 p = (int2)(get_global_id(0), get_global_id(1));
            float4 v = read_imagef(img, p) + (float4)(1.0f);
            write_imagef(img, p, v);
            atomic_work_item_fence(CLK_IMAGE_MEM_FENCE, memory_order_acq_rel, memory_scope_work_item);
            out[p.y * 4 + p.x] = read_imagef(img, p);
        }
    "#;
    let program = gpu.program(src, "-cl-std=CL3.0");
    let img = image(&gpu, w, h, Some(&texels));
    let k = program.kernel("bump");
    let out = gpu.zeroed::<f32>(w * h * 4);
    set_image(&k, 0, &img);
    k.arg_buffer(1, &out);
    gpu.run(&k, &[w, h], None, None);
    let want: Vec<f32> = texels.iter().map(|v| v + 1.0).collect();
    assert_close(&gpu.read::<f32>(&out), &want, 0.0, 0.0, "read_write image");
    drop(k);
    release(&gpu, img);
}
