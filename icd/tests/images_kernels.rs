//! Image kernels end to end: `read_image*`, `write_image*` and
//! `get_image_*` run on the first device through the exported C ABI, each
//! result compared with a host reference written from the formulas of the
//! OpenCL SPIR-V environment ("Image Addressing and Filtering": addressing
//! modes, nearest and linear filtering, the conversion rules of every
//! channel data type, sRGB) and the channel order table of the OpenCL C
//! specification.

#![allow(non_upper_case_globals)] // cl.h spells CL_sRGBA, CL_Rx...

mod common;

use common::{ImageDesc as Desc, ImageFormat as Format, *};
use ferrocl_runtime::cl::*;
use std::ffi::c_void;
use std::ptr::{null, null_mut};

// ---------------------------------------------------------------------------
// Images and samplers in the tests
// ---------------------------------------------------------------------------

/// An image and the host copy of its pixels (tightly packed).
struct Image<'g> {
    gpu: &'g Gpu,
    handle: Handle,
    format: Format,
    /// Width, height (1D arrays: 1), depth or layers.
    extent: [usize; 3],
    /// A 1D array: its layers are the second coordinate of the API's
    /// origins and regions.
    array_1d: bool,
    pixels: Vec<u8>,
}

impl Drop for Image<'_> {
    fn drop(&mut self) {
        // SAFETY: the handle is ours.
        let status = unsafe { (self.gpu.api.clReleaseMemObject)(self.handle) };
        if !std::thread::panicking() {
            check(status, "clReleaseMemObject(image)");
        }
    }
}

/// Creates an image of `image_type` holding `pixels` (CL_MEM_COPY_HOST_PTR
/// when given). `size` is (width, height, depth) or, for arrays, the layer
/// count in place of the last used dimension.
fn image<'g>(
    gpu: &'g Gpu,
    image_type: cl_uint,
    format: Format,
    size: [usize; 3],
    pixels: Option<Vec<u8>>,
    flags: cl_bitfield,
) -> Image<'g> {
    let (width, height, depth, array_size, extent) = match image_type {
        CL_MEM_OBJECT_IMAGE1D | CL_MEM_OBJECT_IMAGE1D_BUFFER => (size[0], 0, 0, 0, [size[0], 1, 1]),
        CL_MEM_OBJECT_IMAGE1D_ARRAY => (size[0], 0, 0, size[1], [size[0], 1, size[1]]),
        CL_MEM_OBJECT_IMAGE2D => (size[0], size[1], 0, 0, [size[0], size[1], 1]),
        CL_MEM_OBJECT_IMAGE2D_ARRAY => (size[0], size[1], 0, size[2], size),
        _ => (size[0], size[1], size[2], 0, size),
    };
    let desc = Desc {
        image_type,
        width,
        height,
        depth,
        array_size,
        row_pitch: 0,
        slice_pitch: 0,
        num_mip_levels: 0,
        num_samples: 0,
        buffer: null_mut(),
    };
    let bytes = extent[0] * extent[1] * extent[2] * element_size(format);
    let mut pixels = pixels.unwrap_or_else(|| vec![0; bytes]);
    assert_eq!(pixels.len(), bytes);
    let mut err = 0;
    // SAFETY: format and desc are live; the host pointer covers the image.
    let handle = unsafe {
        (gpu.api.clCreateImage)(
            gpu.context,
            flags | CL_MEM_COPY_HOST_PTR,
            &format,
            &desc,
            pixels.as_mut_ptr() as *mut c_void,
            &mut err,
        )
    };
    check(err, &format!("clCreateImage({format:x?})"));
    Image {
        gpu,
        handle,
        format,
        extent,
        array_1d: image_type == CL_MEM_OBJECT_IMAGE1D_ARRAY,
        pixels,
    }
}

impl Image<'_> {
    fn read_back(&self) -> Vec<u8> {
        let mut out = vec![0u8; self.pixels.len()];
        let origin = [0usize; 3];
        let region = if self.array_1d {
            [self.extent[0], self.extent[2], 1]
        } else {
            self.extent
        };
        // SAFETY: a blocking read fills `out`, which holds the whole image.
        let status = unsafe {
            (self.gpu.api.clEnqueueReadImage)(
                self.gpu.queue,
                self.handle,
                CL_TRUE,
                origin.as_ptr(),
                region.as_ptr(),
                0,
                0,
                out.as_mut_ptr() as *mut c_void,
                0,
                null(),
                null_mut(),
            )
        };
        check(status, "clEnqueueReadImage");
        out
    }
}

struct Sampler<'g> {
    gpu: &'g Gpu,
    handle: Handle,
    bits: u32,
}

impl Drop for Sampler<'_> {
    fn drop(&mut self) {
        // SAFETY: the handle is ours.
        let status = unsafe { (self.gpu.api.clReleaseSampler)(self.handle) };
        if !std::thread::panicking() {
            check(status, "clReleaseSampler");
        }
    }
}

/// A sampler from its CLK_* bits (docs/images.md).
fn sampler(gpu: &Gpu, bits: u32) -> Sampler<'_> {
    let addressing = match bits & 0xE {
        0 => CL_ADDRESS_NONE,
        2 => CL_ADDRESS_CLAMP_TO_EDGE,
        4 => CL_ADDRESS_CLAMP,
        6 => CL_ADDRESS_REPEAT,
        _ => CL_ADDRESS_MIRRORED_REPEAT,
    };
    let filter = if bits & LINEAR != 0 {
        CL_FILTER_LINEAR
    } else {
        CL_FILTER_NEAREST
    };
    let props = [
        CL_SAMPLER_NORMALIZED_COORDS as u64,
        (bits & NORMALIZED) as u64,
        CL_SAMPLER_ADDRESSING_MODE as u64,
        addressing as u64,
        CL_SAMPLER_FILTER_MODE as u64,
        filter as u64,
        0,
    ];
    let mut err = 0;
    // SAFETY: the property list is 0-terminated.
    let handle =
        unsafe { (gpu.api.clCreateSamplerWithProperties)(gpu.context, props.as_ptr(), &mut err) };
    check(err, "clCreateSamplerWithProperties");
    Sampler { gpu, handle, bits }
}

fn arg_handle(k: &Kernel<'_>, index: u32, handle: Handle) {
    k.arg_bytes(index, &(handle as usize).to_ne_bytes());
}

fn supported_formats(gpu: &Gpu, flags: cl_bitfield, image_type: cl_uint) -> Vec<Format> {
    let mut n = 0;
    // SAFETY: the first call asks for the count, the second fills `n`.
    unsafe {
        check(
            (gpu.api.clGetSupportedImageFormats)(
                gpu.context,
                flags,
                image_type,
                0,
                null_mut(),
                &mut n,
            ),
            "clGetSupportedImageFormats",
        );
        let mut list = vec![Format { order: 0, ty: 0 }; n as usize];
        check(
            (gpu.api.clGetSupportedImageFormats)(
                gpu.context,
                flags,
                image_type,
                n,
                list.as_mut_ptr(),
                null_mut(),
            ),
            "clGetSupportedImageFormats",
        );
        list
    }
}

// ---------------------------------------------------------------------------
// The host reference
// ---------------------------------------------------------------------------

const NORMALIZED: u32 = 0x1;
const LINEAR: u32 = 0x20;
const ADDRESS_NONE: u32 = 0;
const CLAMP_TO_EDGE: u32 = 2;
const CLAMP: u32 = 4;
const REPEAT: u32 = 6;
const MIRRORED_REPEAT: u32 = 8;

fn channel_count(order: u32) -> usize {
    match order {
        CL_R | CL_A | CL_INTENSITY | CL_LUMINANCE | CL_Rx | CL_DEPTH => 1,
        CL_RG | CL_RA | CL_RGx => 2,
        CL_RGB | CL_RGBx | CL_sRGB => 3,
        // CL_sRGBx: four bytes, alpha in the unused one.
        _ => 4,
    }
}

fn channel_bytes(ty: u32) -> usize {
    match ty {
        CL_SNORM_INT8 | CL_UNORM_INT8 | CL_SIGNED_INT8 | CL_UNSIGNED_INT8 => 1,
        CL_SNORM_INT16 | CL_UNORM_INT16 | CL_SIGNED_INT16 | CL_UNSIGNED_INT16 | CL_HALF_FLOAT => 2,
        _ => 4,
    }
}

fn element_size(f: Format) -> usize {
    match f.ty {
        CL_UNORM_SHORT_565 | CL_UNORM_SHORT_555 => 2,
        CL_UNORM_INT_101010 | CL_UNORM_INT_101010_2 => 4,
        t => channel_bytes(t) * channel_count(f.order),
    }
}

fn is_integer(ty: u32) -> bool {
    matches!(
        ty,
        CL_SIGNED_INT8
            | CL_SIGNED_INT16
            | CL_SIGNED_INT32
            | CL_UNSIGNED_INT8
            | CL_UNSIGNED_INT16
            | CL_UNSIGNED_INT32
    )
}

fn is_signed_integer(ty: u32) -> bool {
    matches!(ty, CL_SIGNED_INT8 | CL_SIGNED_INT16 | CL_SIGNED_INT32)
}

fn is_srgb(order: u32) -> bool {
    matches!(order, CL_sRGB | CL_sRGBx | CL_sRGBA | CL_sBGRA)
}

fn half_to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = ((h >> 10) & 31) as i32;
    let m = (h & 1023) as f32;
    match e {
        0 => sign * m * 2f32.powi(-24),
        31 if m == 0.0 => sign * f32::INFINITY,
        31 => f32::NAN,
        _ => sign * (1.0 + m / 1024.0) * 2f32.powi(e - 15),
    }
}

/// Round to nearest even, computed exactly in f64.
fn f32_to_half(f: f32) -> u16 {
    let sign: u16 = if f.is_sign_negative() { 0x8000 } else { 0 };
    let a = (f as f64).abs();
    if f.is_nan() {
        return 0x7e00;
    }
    if a >= 65520.0 {
        return sign | 0x7c00;
    }
    if a < 2f64.powi(-14) {
        let units = (a * 2f64.powi(24)).round_ties_even();
        return sign | units as u16;
    }
    let e = a.log2().floor() as i32;
    let (e, m) = {
        let m = (a / 2f64.powi(e) - 1.0) * 1024.0;
        let m = m.round_ties_even();
        if m >= 1024.0 {
            (e + 1, 0.0)
        } else {
            (e, m)
        }
    };
    sign | (((e + 15) as u16) << 10) | m as u16
}

/// The raw channel values of the texel at `bytes`, in memory order.
fn raw_channels(f: Format, bytes: &[u8]) -> [u32; 4] {
    let word = |n: usize| -> u32 {
        let mut b = [0u8; 4];
        b[..n].copy_from_slice(&bytes[..n]);
        u32::from_le_bytes(b)
    };
    match f.ty {
        CL_UNORM_SHORT_565 => {
            let v = word(2);
            [v >> 11, (v >> 5) & 63, v & 31, 0]
        }
        CL_UNORM_SHORT_555 => {
            let v = word(2);
            [(v >> 10) & 31, (v >> 5) & 31, v & 31, 0]
        }
        CL_UNORM_INT_101010 => {
            let v = word(4);
            [(v >> 20) & 1023, (v >> 10) & 1023, v & 1023, 0]
        }
        CL_UNORM_INT_101010_2 => {
            let v = word(4);
            [v >> 22, (v >> 12) & 1023, (v >> 2) & 1023, v & 3]
        }
        t => {
            let size = channel_bytes(t);
            let mut out = [0u32; 4];
            for (c, o) in out.iter_mut().enumerate().take(channel_count(f.order)) {
                let b = &bytes[c * size..(c + 1) * size];
                *o = match (size, is_signed(t)) {
                    (1, true) => b[0] as i8 as i32 as u32,
                    (1, false) => b[0] as u32,
                    (2, true) => i16::from_le_bytes([b[0], b[1]]) as i32 as u32,
                    (2, false) => u16::from_le_bytes([b[0], b[1]]) as u32,
                    _ => u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
                };
            }
            out
        }
    }
}

fn is_signed(ty: u32) -> bool {
    matches!(
        ty,
        CL_SNORM_INT8 | CL_SNORM_INT16 | CL_SIGNED_INT8 | CL_SIGNED_INT16 | CL_SIGNED_INT32
    )
}

/// Section 8.3's normalized → float conversions (computed exactly, then
/// rounded once).
fn channel_to_f32(ty: u32, raw: [u32; 4]) -> [f32; 4] {
    let unorm = |v: u32, max: f64| (v as f64 / max) as f32;
    let snorm = |v: u32, max: f64| ((v as i32) as f64 / max).max(-1.0) as f32;
    let mut out = [0f32; 4];
    for c in 0..4 {
        let v = raw[c];
        out[c] = match ty {
            CL_UNORM_INT8 => unorm(v, 255.0),
            CL_UNORM_INT16 => unorm(v, 65535.0),
            CL_SNORM_INT8 => snorm(v, 127.0),
            CL_SNORM_INT16 => snorm(v, 32767.0),
            CL_UNORM_SHORT_565 => unorm(v, if c == 1 { 63.0 } else { 31.0 }),
            CL_UNORM_SHORT_555 => unorm(v, 31.0),
            CL_UNORM_INT_101010 => unorm(v, 1023.0),
            CL_UNORM_INT_101010_2 => unorm(v, if c == 3 { 3.0 } else { 1023.0 }),
            CL_HALF_FLOAT => half_to_f32(v as u16),
            _ => f32::from_bits(v),
        };
    }
    out
}

/// The channel order table: memory order → (R, G, B, A).
fn to_rgba<T: Copy + Default>(order: u32, m: [T; 4], one: T) -> [T; 4] {
    let z = T::default();
    match order {
        CL_R | CL_Rx => [m[0], z, z, one],
        CL_DEPTH => [m[0], z, z, z],
        CL_A => [z, z, z, m[0]],
        CL_RG | CL_RGx => [m[0], m[1], z, one],
        CL_RA => [m[0], z, z, m[1]],
        CL_RGB | CL_RGBx | CL_sRGB | CL_sRGBx => [m[0], m[1], m[2], one],
        CL_BGRA | CL_sBGRA => [m[2], m[1], m[0], m[3]],
        CL_ARGB => [m[1], m[2], m[3], m[0]],
        CL_ABGR => [m[3], m[2], m[1], m[0]],
        CL_INTENSITY => [m[0]; 4],
        CL_LUMINANCE => [m[0], m[0], m[0], one],
        _ => m,
    }
}

fn border<T: Copy + Default>(order: u32, one: T) -> [T; 4] {
    let z = T::default();
    match order {
        // The x orders as the CTS has them (see __ferrocl_img_border).
        CL_R | CL_RG | CL_RGB | CL_LUMINANCE | CL_sRGB | CL_Rx | CL_RGx | CL_RGBx | CL_sRGBx => {
            [z, z, z, one]
        }
        _ => [z; 4],
    }
}

fn srgb_to_linear(r: f32) -> f32 {
    let r = r as f64;
    (if r <= 0.04045 {
        r / 12.92
    } else {
        ((r + 0.055) / 1.055).powf(2.4)
    }) as f32
}

fn linear_to_srgb(y: f32) -> f32 {
    let y = y as f64;
    (if y.is_nan() || y < 0.0 {
        0.0
    } else if y < 0.0031308 {
        12.92 * y
    } else if y >= 1.0 {
        1.0
    } else {
        1.055 * y.powf(1.0 / 2.4) - 0.055
    }) as f32
}

impl Image<'_> {
    fn inside(&self, x: i64, y: i64, z: i64) -> bool {
        x >= 0
            && y >= 0
            && z >= 0
            && (x as usize) < self.extent[0]
            && (y as usize) < self.extent[1]
            && (z as usize) < self.extent[2]
    }

    fn texel_bytes(&self, x: i64, y: i64, z: i64) -> &[u8] {
        let e = element_size(self.format);
        let at = ((z as usize * self.extent[1] + y as usize) * self.extent[0] + x as usize) * e;
        &self.pixels[at..at + e]
    }

    /// The texel as (R, G, B, A) floats, sRGB made linear; the border colour
    /// outside the image.
    fn texel_f(&self, x: i64, y: i64, z: i64) -> [f32; 4] {
        let order = self.format.order;
        if !self.inside(x, y, z) {
            return border(order, 1.0);
        }
        let raw = raw_channels(self.format, self.texel_bytes(x, y, z));
        let mut c = to_rgba(order, channel_to_f32(self.format.ty, raw), 1.0);
        if is_srgb(order) {
            for v in &mut c[..3] {
                *v = srgb_to_linear(*v);
            }
        }
        c
    }

    fn texel_i(&self, x: i64, y: i64, z: i64) -> [u32; 4] {
        let order = self.format.order;
        if !self.inside(x, y, z) {
            return border(order, 1);
        }
        to_rgba(
            order,
            raw_channels(self.format, self.texel_bytes(x, y, z)),
            1,
        )
    }
}

/// One axis of the addressing modes, in the spec's float arithmetic:
/// (i0, i1, a), i1 and a only for linear filtering.
fn axis(bits: u32, s: f32, size: usize, linear: bool) -> (i64, i64, f64) {
    let mode = bits & 0xE;
    let n = size as i64;
    let floor = |v: f32| v.floor() as i64;
    let frac = |v: f32| (v - v.floor()) as f64;
    let normalized = bits & NORMALIZED != 0;
    if normalized && mode == REPEAT {
        let u = (s - s.floor()) * n as f32;
        if !linear {
            let mut i = floor(u);
            if i > n - 1 {
                i -= n;
            }
            return (i, 0, 0.0);
        }
        let mut i0 = floor(u - 0.5);
        let mut i1 = i0 + 1;
        if i0 < 0 {
            i0 += n;
        }
        if i1 > n - 1 {
            i1 -= n;
        }
        return (i0, i1, frac(u - 0.5));
    }
    if normalized && mode == MIRRORED_REPEAT {
        let sp = (s - 2.0 * (0.5 * s).round_ties_even()).abs();
        let u = sp * n as f32;
        if !linear {
            return (floor(u).min(n - 1), 0, 0.0);
        }
        let i0 = floor(u - 0.5);
        return (i0.max(0), (i0 + 1).min(n - 1), frac(u - 0.5));
    }
    let u = if normalized { s * n as f32 } else { s };
    let address = |i: i64| match mode {
        CLAMP => i.clamp(-1, n),
        CLAMP_TO_EDGE => i.clamp(0, n - 1),
        _ => i,
    };
    if !linear {
        return (address(floor(u)), 0, 0.0);
    }
    let f = floor(u - 0.5);
    (address(f), address(f + 1), frac(u - 0.5))
}

/// A sampled float read: `dims` spatial coordinates, `layered` the index
/// of the layer coordinate (0 for none).
fn sample_f(img: &Image<'_>, bits: u32, coord: [f32; 4], dims: usize, layered: usize) -> [f32; 4] {
    let linear = bits & LINEAR != 0;
    let mut axes = [(0i64, 0i64, 0f64); 3];
    for (d, a) in axes.iter_mut().enumerate().take(dims) {
        *a = axis(bits, coord[d], img.extent[d], linear);
    }
    if layered != 0 {
        let layers = img.extent[2] as f64;
        let l = (coord[layered] as f64)
            .round_ties_even()
            .clamp(0.0, layers - 1.0) as i64;
        axes[2] = (l, l, 0.0);
    }
    if !linear {
        return img.texel_f(axes[0].0, axes[1].0, axes[2].0);
    }
    let mut sum = [0f64; 4];
    for n in 0..(1usize << dims) {
        let mut w = 1.0;
        let mut at = [0i64; 3];
        for d in 0..3 {
            let (i0, i1, a) = axes[d];
            if d < dims {
                let hi = n >> d & 1 == 1;
                at[d] = if hi { i1 } else { i0 };
                w *= if hi { a } else { 1.0 - a };
            } else {
                at[d] = i0;
            }
        }
        let t = img.texel_f(at[0], at[1], at[2]);
        for c in 0..4 {
            sum[c] += w * t[c] as f64;
        }
    }
    sum.map(|v| v as f32)
}

fn sample_i(img: &Image<'_>, bits: u32, coord: [f32; 4], dims: usize, layered: usize) -> [u32; 4] {
    let mut at = [0i64; 3];
    for d in 0..dims {
        at[d] = axis(bits, coord[d], img.extent[d], false).0;
    }
    if layered != 0 {
        let layers = img.extent[2] as f64;
        at[2] = (coord[layered] as f64)
            .round_ties_even()
            .clamp(0.0, layers - 1.0) as i64;
    }
    img.texel_i(at[0], at[1], at[2])
}

/// Section 8.3's float → channel conversions, round to nearest even.
fn encode_f(f: Format, c: [f32; 4]) -> Vec<u8> {
    let mut c = c;
    if is_srgb(f.order) {
        for v in &mut c[..3] {
            *v = linear_to_srgb(*v);
        }
    }
    let m = from_rgba(f.order, c);
    let norm = |x: f32, lo: f64, max: f64| -> u32 {
        if x.is_nan() {
            return 0;
        }
        ((x as f64 * max).clamp(lo, max).round_ties_even() as i64) as u32
    };
    let raw: [u32; 4] = std::array::from_fn(|i| match f.ty {
        CL_UNORM_INT8 => norm(m[i], 0.0, 255.0),
        CL_UNORM_INT16 => norm(m[i], 0.0, 65535.0),
        CL_SNORM_INT8 => norm(m[i], -128.0, 127.0),
        CL_SNORM_INT16 => norm(m[i], -32768.0, 32767.0),
        CL_UNORM_SHORT_565 => norm(m[i], 0.0, if i == 1 { 63.0 } else { 31.0 }),
        CL_UNORM_SHORT_555 => norm(m[i], 0.0, 31.0),
        CL_UNORM_INT_101010 => norm(m[i], 0.0, 1023.0),
        CL_UNORM_INT_101010_2 => norm(m[i], 0.0, if i == 3 { 3.0 } else { 1023.0 }),
        CL_HALF_FLOAT => f32_to_half(m[i]) as u32,
        _ => m[i].to_bits(),
    });
    pack(f, raw)
}

fn from_rgba<T: Copy + Default>(order: u32, c: [T; 4]) -> [T; 4] {
    let z = T::default();
    match order {
        CL_A => [c[3], z, z, z],
        CL_RA => [c[0], c[3], z, z],
        CL_BGRA | CL_sBGRA => [c[2], c[1], c[0], c[3]],
        CL_ARGB => [c[3], c[0], c[1], c[2]],
        CL_ABGR => [c[3], c[2], c[1], c[0]],
        _ => c,
    }
}

fn pack(f: Format, raw: [u32; 4]) -> Vec<u8> {
    match f.ty {
        CL_UNORM_SHORT_565 => ((raw[0] << 11 | raw[1] << 5 | raw[2]) as u16)
            .to_le_bytes()
            .to_vec(),
        CL_UNORM_SHORT_555 => ((raw[0] << 10 | raw[1] << 5 | raw[2]) as u16)
            .to_le_bytes()
            .to_vec(),
        CL_UNORM_INT_101010 => (raw[0] << 20 | raw[1] << 10 | raw[2])
            .to_le_bytes()
            .to_vec(),
        CL_UNORM_INT_101010_2 => (raw[0] << 22 | raw[1] << 12 | raw[2] << 2 | raw[3])
            .to_le_bytes()
            .to_vec(),
        t => {
            let size = channel_bytes(t);
            let mut out = Vec::new();
            for v in raw.iter().take(channel_count(f.order)) {
                out.extend_from_slice(&v.to_le_bytes()[..size]);
            }
            out
        }
    }
}

fn encode_i(f: Format, c: [i32; 4]) -> Vec<u8> {
    let m = from_rgba(f.order, c);
    let raw = m.map(|v| match f.ty {
        CL_SIGNED_INT8 => v.clamp(-128, 127) as u32,
        CL_SIGNED_INT16 => v.clamp(-32768, 32767) as u32,
        _ => v as u32,
    });
    pack(f, raw)
}

fn encode_ui(f: Format, c: [u32; 4]) -> Vec<u8> {
    let m = from_rgba(f.order, c);
    let raw = m.map(|v| match f.ty {
        CL_UNSIGNED_INT8 => v.min(255),
        CL_UNSIGNED_INT16 => v.min(65535),
        _ => v,
    });
    pack(f, raw)
}

/// Random pixels that every channel data type accepts (finite halves and
/// floats in [-2, 2]).
fn random_pixels(rng: &mut XorShift, f: Format, texels: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(texels * element_size(f));
    for _ in 0..texels {
        match f.ty {
            CL_HALF_FLOAT => {
                for _ in 0..channel_count(f.order) {
                    let h = f32_to_half(rng.f32_in(-2.0, 2.0));
                    out.extend_from_slice(&h.to_le_bytes());
                }
            }
            CL_FLOAT => {
                for _ in 0..channel_count(f.order) {
                    out.extend_from_slice(&rng.f32_in(-2.0, 2.0).to_le_bytes());
                }
            }
            _ => {
                for _ in 0..element_size(f) {
                    out.push(rng.next_u32() as u8);
                }
            }
        }
    }
    out
}

#[track_caller]
fn assert_close(got: &[[f32; 4]], want: &[[f32; 4]], tol: f32, what: &str) {
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        for c in 0..4 {
            let ok = g[c] == w[c] || (g[c] - w[c]).abs() <= tol * w[c].abs().max(1.0);
            assert!(
                ok,
                "{what}: result {i} component {c}: got {g:?}, want {w:?}"
            );
        }
    }
}

fn format_name(f: Format) -> String {
    format!("order {:#x} type {:#x}", f.order, f.ty)
}

/// The coordinates every sampled read test uses: inside, on texel centres,
/// on edges and well outside the image, in unnormalized units of an image
/// of `size` texels (divided by the size for normalized samplers).
fn coordinates(rng: &mut XorShift, n: usize, size: [usize; 3]) -> Vec<[f32; 4]> {
    (0..n)
        .map(|i| {
            std::array::from_fn(|d| {
                let s = size[d.min(2)] as f32;
                match i % 4 {
                    0 => (rng.next_u32() % (size[d.min(2)] as u32 + 4)) as f32 - 2.0 + 0.5,
                    1 => (rng.next_u32() % (size[d.min(2)] as u32 + 1)) as f32,
                    _ => rng.f32_in(-1.5 * s, 2.5 * s),
                }
            })
        })
        .collect()
}

fn floats4(v: &[f32]) -> Vec<[f32; 4]> {
    v.chunks(4).map(|c| [c[0], c[1], c[2], c[3]]).collect()
}

const SAMPLERS: [u32; 10] = [
    ADDRESS_NONE,
    CLAMP_TO_EDGE,
    CLAMP,
    CLAMP_TO_EDGE | LINEAR,
    CLAMP | LINEAR,
    NORMALIZED | CLAMP,
    NORMALIZED | REPEAT,
    NORMALIZED | MIRRORED_REPEAT,
    NORMALIZED | REPEAT | LINEAR,
    NORMALIZED | MIRRORED_REPEAT | LINEAR,
];

// ---------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------

/// read_imagef with every sampler on every float-returning format of a 2D
/// image.
#[test]
fn read_imagef_2d_every_format_and_sampler() {
    let gpu = Gpu::new();
    let k = gpu.kernel(
        "kernel void k(read_only image2d_t im, sampler_t s, global const float4 *c, global float4 *out) {\n\
           int i = get_global_id(0);\n\
           out[i] = read_imagef(im, s, c[i].xy);\n\
         }",
        "k",
    );
    let size = [5usize, 4, 1];
    let mut rng = XorShift::new(11);
    let n = 64;
    let coords = coordinates(&mut rng, n, size);
    let formats: Vec<Format> = supported_formats(&gpu, CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D)
        .into_iter()
        .filter(|f| !is_integer(f.ty) && f.order != CL_DEPTH)
        .collect();
    assert!(!formats.is_empty(), "no float image formats");
    let out = gpu.zeroed::<[f32; 4]>(n);
    for f in formats {
        let pixels = random_pixels(&mut rng, f, size[0] * size[1]);
        let img = image(
            &gpu,
            CL_MEM_OBJECT_IMAGE2D,
            f,
            size,
            Some(pixels),
            CL_MEM_READ_ONLY,
        );
        for bits in SAMPLERS {
            let scaled: Vec<[f32; 4]> = coords
                .iter()
                .map(|c| {
                    if bits & NORMALIZED != 0 {
                        [c[0] / size[0] as f32, c[1] / size[1] as f32, 0.0, 0.0]
                    } else {
                        *c
                    }
                })
                .collect();
            // CLK_ADDRESS_NONE promises coordinates inside the image.
            let scaled: Vec<[f32; 4]> = if bits & 0xE == ADDRESS_NONE {
                scaled
                    .iter()
                    .map(|c| [c[0].clamp(0.0, 4.5), c[1].clamp(0.0, 3.5), 0.0, 0.0])
                    .collect()
            } else {
                scaled
            };
            let s = sampler(&gpu, bits);
            let dc = gpu.buffer(&scaled);
            arg_handle(&k, 0, img.handle);
            arg_handle(&k, 1, s.handle);
            k.arg_buffer(2, &dc).arg_buffer(3, &out);
            gpu.run(&k, &[n], None, None);
            let got = gpu.read::<[f32; 4]>(&out);
            let want: Vec<[f32; 4]> = scaled
                .iter()
                .map(|c| sample_f(&img, s.bits, *c, 2, 0))
                .collect();
            let tol = if bits & LINEAR != 0 || is_srgb(f.order) {
                2e-4
            } else {
                2e-7
            };
            assert_close(
                &got,
                &want,
                tol,
                &format!("{} sampler {bits:#x}", format_name(f)),
            );
        }
    }
}

/// read_imagei / read_imageui with a sampler (float and int coordinates)
/// and without one, on every integer format.
#[test]
fn read_integer_formats() {
    let gpu = Gpu::new();
    let src = "kernel void k(read_only image2d_t im, sampler_t s, global const float4 *c, global uint4 *out, int sign) {\n\
           int i = get_global_id(0);\n\
           int2 ic = convert_int2(floor(c[i].xy));\n\
           if (sign) {\n\
             out[3 * i] = as_uint4(read_imagei(im, s, c[i].xy));\n\
             out[3 * i + 1] = as_uint4(read_imagei(im, s, ic));\n\
             out[3 * i + 2] = as_uint4(read_imagei(im, clamp(ic, (int2)(0), (int2)(4, 3))));\n\
           } else {\n\
             out[3 * i] = read_imageui(im, s, c[i].xy);\n\
             out[3 * i + 1] = read_imageui(im, s, ic);\n\
             out[3 * i + 2] = read_imageui(im, clamp(ic, (int2)(0), (int2)(4, 3)));\n\
           }\n\
         }";
    let k = gpu.kernel(src, "k");
    let size = [5usize, 4, 1];
    let mut rng = XorShift::new(12);
    let n = 48;
    let coords = coordinates(&mut rng, n, size);
    let out = gpu.zeroed::<[u32; 4]>(3 * n);
    let dc = gpu.buffer(&coords);
    let formats: Vec<Format> = supported_formats(&gpu, CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D)
        .into_iter()
        .filter(|f| is_integer(f.ty))
        .collect();
    assert!(!formats.is_empty(), "no integer image formats");
    for f in formats {
        let pixels = random_pixels(&mut rng, f, size[0] * size[1]);
        let img = image(
            &gpu,
            CL_MEM_OBJECT_IMAGE2D,
            f,
            size,
            Some(pixels),
            CL_MEM_READ_ONLY,
        );
        for bits in [CLAMP_TO_EDGE, CLAMP] {
            let s = sampler(&gpu, bits);
            arg_handle(&k, 0, img.handle);
            arg_handle(&k, 1, s.handle);
            k.arg_buffer(2, &dc)
                .arg_buffer(3, &out)
                .arg(4, is_signed_integer(f.ty) as i32);
            gpu.run(&k, &[n], None, None);
            let got = gpu.read::<[u32; 4]>(&out);
            for (i, c) in coords.iter().enumerate() {
                let want = sample_i(&img, bits, *c, 2, 0);
                let ic = [c[0].floor(), c[1].floor(), 0.0, 0.0];
                let want_int = sample_i(&img, bits, ic, 2, 0);
                let inside = [ic[0].clamp(0.0, 4.0) as i64, ic[1].clamp(0.0, 3.0) as i64];
                let want_fetch = img.texel_i(inside[0], inside[1], 0);
                let what = format!("{} sampler {bits:#x} coordinate {c:?}", format_name(f));
                assert_eq!(got[3 * i], want, "{what}: float coordinates");
                assert_eq!(got[3 * i + 1], want_int, "{what}: int coordinates");
                assert_eq!(got[3 * i + 2], want_fetch, "{what}: sampler-less");
            }
        }
    }
}

/// write_imagef / write_imagei / write_imageui on every writable format,
/// read back with clEnqueueReadImage.
#[test]
fn write_every_format() {
    let gpu = Gpu::new();
    let src = "kernel void wf(write_only image2d_t im, global const float4 *c) {\n\
           int2 p = (int2)(get_global_id(0), get_global_id(1));\n\
           write_imagef(im, p, c[p.y * get_global_size(0) + p.x]);\n\
         }\n\
         kernel void wi(write_only image2d_t im, global const int4 *c) {\n\
           int2 p = (int2)(get_global_id(0), get_global_id(1));\n\
           write_imagei(im, p, c[p.y * get_global_size(0) + p.x]);\n\
         }\n\
         kernel void wu(write_only image2d_t im, global const uint4 *c) {\n\
           int2 p = (int2)(get_global_id(0), get_global_id(1));\n\
           write_imageui(im, p, c[p.y * get_global_size(0) + p.x]);\n\
         }";
    let program = gpu.program(src, "");
    let (kf, ki, ku) = (
        program.kernel("wf"),
        program.kernel("wi"),
        program.kernel("wu"),
    );
    let size = [7usize, 3, 1];
    let texels = size[0] * size[1];
    let mut rng = XorShift::new(13);
    let formats = supported_formats(&gpu, CL_MEM_WRITE_ONLY, CL_MEM_OBJECT_IMAGE2D);
    assert!(!formats.is_empty());
    for f in formats.into_iter().filter(|f| f.order != CL_DEPTH) {
        let img = image(
            &gpu,
            CL_MEM_OBJECT_IMAGE2D,
            f,
            size,
            None,
            CL_MEM_WRITE_ONLY,
        );
        let mut want = Vec::new();
        if is_integer(f.ty) && is_signed_integer(f.ty) {
            let colors: Vec<[i32; 4]> = (0..texels)
                .map(|_| std::array::from_fn(|_| rng.next_u32() as i32 >> (rng.next_u32() % 31)))
                .collect();
            let dc = gpu.buffer(&colors);
            arg_handle(&ki, 0, img.handle);
            ki.arg_buffer(1, &dc);
            gpu.run(&ki, &size[..2], None, None);
            colors.iter().for_each(|c| want.extend(encode_i(f, *c)));
        } else if is_integer(f.ty) {
            let colors: Vec<[u32; 4]> = (0..texels)
                .map(|_| std::array::from_fn(|_| rng.next_u32() >> (rng.next_u32() % 32)))
                .collect();
            let dc = gpu.buffer(&colors);
            arg_handle(&ku, 0, img.handle);
            ku.arg_buffer(1, &dc);
            gpu.run(&ku, &size[..2], None, None);
            colors.iter().for_each(|c| want.extend(encode_ui(f, *c)));
        } else {
            let colors: Vec<[f32; 4]> = (0..texels)
                .map(|_| std::array::from_fn(|_| rng.f32_in(-1.25, 1.25)))
                .collect();
            let dc = gpu.buffer(&colors);
            arg_handle(&kf, 0, img.handle);
            kf.arg_buffer(1, &dc);
            gpu.run(&kf, &size[..2], None, None);
            colors.iter().for_each(|c| want.extend(encode_f(f, *c)));
        }
        let got = img.read_back();
        if f.ty == CL_FLOAT || f.ty == CL_HALF_FLOAT || is_integer(f.ty) {
            assert_eq!(got, want, "{}", format_name(f));
        } else {
            // Normalized channels: within one unit of the exactly rounded
            // value (the spec allows 0.6 of a unit); sRGB within two.
            let e = element_size(f);
            let slack = if is_srgb(f.order) { 2 } else { 1 };
            for (t, (g, w)) in got.chunks(e).zip(want.chunks(e)).enumerate() {
                let (g, w) = (raw_channels(f, g), raw_channels(f, w));
                for c in 0..4 {
                    let d = (g[c] as i32 as i64 - w[c] as i32 as i64).abs();
                    assert!(
                        d <= slack,
                        "{} texel {t}: got {g:?}, want {w:?}",
                        format_name(f)
                    );
                }
            }
        }
    }
}

/// (kernel image type, image type, coordinate expression, size, spatial
/// dimensions, layer coordinate index).
type TypeCase = (
    &'static str,
    cl_uint,
    &'static str,
    [usize; 3],
    usize,
    usize,
);

/// The other image types: coordinates, layers and linear filtering in 1, 2
/// and 3 dimensions, on a float format and an 8-bit normalized one.
#[test]
fn read_every_image_type() {
    let gpu = Gpu::new();
    let cases: [TypeCase; 5] = [
        (
            "image1d_t",
            CL_MEM_OBJECT_IMAGE1D,
            "c[i].x",
            [9, 1, 1],
            1,
            0,
        ),
        (
            "image1d_array_t",
            CL_MEM_OBJECT_IMAGE1D_ARRAY,
            "c[i].xy",
            [9, 3, 1],
            1,
            1,
        ),
        (
            "image2d_array_t",
            CL_MEM_OBJECT_IMAGE2D_ARRAY,
            "c[i]",
            [5, 4, 3],
            2,
            2,
        ),
        ("image3d_t", CL_MEM_OBJECT_IMAGE3D, "c[i]", [5, 4, 3], 3, 0),
        (
            "image2d_t",
            CL_MEM_OBJECT_IMAGE2D,
            "c[i].xy",
            [6, 5, 1],
            2,
            0,
        ),
    ];
    let mut rng = XorShift::new(14);
    let n = 64;
    let out = gpu.zeroed::<[f32; 4]>(2 * n);
    for (ty, image_type, coord, size, dims, layered) in cases {
        let src = format!(
            "kernel void k(read_only {ty} im, sampler_t s, global const float4 *c, global float4 *out) {{\n\
               int i = get_global_id(0);\n\
               out[2 * i] = read_imagef(im, s, {coord});\n\
               out[2 * i + 1] = read_imagef(im, convert_int{w}(clamp({coord}, 0.0f, 2.0f)));\n\
             }}",
            w = if coord.ends_with(".x") { String::new() } else if coord.ends_with(".xy") { "2".into() } else { "4".into() }
        );
        let k = gpu.kernel(&src, "k");
        let extent = match image_type {
            CL_MEM_OBJECT_IMAGE1D => [size[0], 1, 1],
            CL_MEM_OBJECT_IMAGE1D_ARRAY => [size[0], 1, size[1]],
            _ => size,
        };
        let layer_extent = [extent[0], extent[1], extent[2]];
        for f in [
            Format {
                order: CL_RGBA,
                ty: CL_FLOAT,
            },
            Format {
                order: CL_BGRA,
                ty: CL_UNORM_INT8,
            },
        ] {
            let pixels = random_pixels(&mut rng, f, extent.iter().product());
            let img = image(&gpu, image_type, f, size, Some(pixels), CL_MEM_READ_ONLY);
            assert_eq!(img.extent, layer_extent);
            for bits in SAMPLERS.into_iter().filter(|b| b & 0xE != ADDRESS_NONE) {
                // Spatial coordinates per dimension, then the layer (always
                // unnormalized) where the type has one.
                let coords: Vec<[f32; 4]> = (0..n)
                    .map(|_| {
                        let mut c = [0f32; 4];
                        for d in 0..dims {
                            let s = extent[d] as f32;
                            let u = rng.f32_in(-0.5 * s, 1.5 * s);
                            c[d] = if bits & NORMALIZED != 0 { u / s } else { u };
                        }
                        if layered != 0 {
                            c[layered] = rng.f32_in(-1.0, extent[2] as f32 + 1.0);
                        }
                        c
                    })
                    .collect();
                let s = sampler(&gpu, bits);
                let dc = gpu.buffer(&coords);
                arg_handle(&k, 0, img.handle);
                arg_handle(&k, 1, s.handle);
                k.arg_buffer(2, &dc).arg_buffer(3, &out);
                gpu.run(&k, &[n], None, None);
                let got = floats4(&gpu.read::<f32>(&out));
                let sampled: Vec<[f32; 4]> = got.iter().step_by(2).copied().collect();
                let want: Vec<[f32; 4]> = coords
                    .iter()
                    .map(|c| sample_f(&img, bits, *c, dims, layered))
                    .collect();
                let tol = if bits & LINEAR != 0 { 2e-4 } else { 2e-7 };
                assert_close(
                    &sampled,
                    &want,
                    tol,
                    &format!("{ty} {} sampler {bits:#x}", format_name(f)),
                );
                let fetched: Vec<[f32; 4]> = got.iter().skip(1).step_by(2).copied().collect();
                let want: Vec<[f32; 4]> = coords
                    .iter()
                    .map(|c| {
                        let i = c.map(|v| v.clamp(0.0, 2.0) as i64);
                        let at = match layered {
                            1 => [i[0], 0, i[1]],
                            _ => [
                                i[0],
                                if dims > 1 { i[1] } else { 0 },
                                if dims > 2 || layered == 2 { i[2] } else { 0 },
                            ],
                        };
                        img.texel_f(at[0], at[1], at[2])
                    })
                    .collect();
                assert_close(
                    &fetched,
                    &want,
                    2e-7,
                    &format!("{ty} {} sampler-less", format_name(f)),
                );
            }
        }
    }
}

/// get_image_* answer the image's geometry and format.
#[test]
fn image_queries() {
    let gpu = Gpu::new();
    let k = gpu.kernel(
        "kernel void k(image2d_array_t a, image3d_t b, image1d_array_t c, global int *out) {\n\
           int2 da = get_image_dim(a);\n\
           int4 db = get_image_dim(b);\n\
           out[0] = get_image_width(a); out[1] = get_image_height(a);\n\
           out[2] = (int)get_image_array_size(a); out[3] = da.x * 100 + da.y;\n\
           out[4] = get_image_depth(b); out[5] = db.x * 10000 + db.y * 100 + db.z;\n\
           out[6] = db.w; out[7] = (int)get_image_array_size(c);\n\
           out[8] = get_image_channel_order(a) == CLK_RGBA;\n\
           out[9] = get_image_channel_data_type(b) == CLK_UNORM_INT16;\n\
           out[10] = get_image_channel_order(c); out[11] = get_image_channel_data_type(c);\n\
         }",
        "k",
    );
    let a = image(
        &gpu,
        CL_MEM_OBJECT_IMAGE2D_ARRAY,
        Format {
            order: CL_RGBA,
            ty: CL_FLOAT,
        },
        [7, 5, 3],
        None,
        CL_MEM_READ_ONLY,
    );
    let b = image(
        &gpu,
        CL_MEM_OBJECT_IMAGE3D,
        Format {
            order: CL_R,
            ty: CL_UNORM_INT16,
        },
        [4, 6, 2],
        None,
        CL_MEM_READ_ONLY,
    );
    let c = image(
        &gpu,
        CL_MEM_OBJECT_IMAGE1D_ARRAY,
        Format {
            order: CL_RG,
            ty: CL_SIGNED_INT8,
        },
        [9, 4, 1],
        None,
        CL_MEM_READ_ONLY,
    );
    let out = gpu.zeroed::<i32>(12);
    arg_handle(&k, 0, a.handle);
    arg_handle(&k, 1, b.handle);
    arg_handle(&k, 2, c.handle);
    k.arg_buffer(3, &out);
    gpu.run(&k, &[1], None, None);
    assert_eq!(
        gpu.read::<i32>(&out),
        [
            7,
            5,
            3,
            705,
            2,
            40602,
            0,
            4,
            1,
            1,
            CL_RG as i32,
            CL_SIGNED_INT8 as i32
        ]
    );
}

/// Samplers declared in the program, images passed to helper functions,
/// and a read_write image read and written by the same kernel.
#[test]
fn program_samplers_helpers_and_read_write() {
    let gpu = Gpu::new();
    let src = "constant sampler_t edge = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;\n\
         float4 twice(read_only image2d_t im, sampler_t border, int2 p) {\n\
           return read_imagef(im, edge, p) + read_imagef(im, border, p);\n\
         }\n\
         kernel void k(read_only image2d_t im, global float4 *out) {\n\
           const sampler_t border = CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;\n\
           int2 p = (int2)(get_global_id(0) - 1, get_global_id(1));\n\
           out[get_global_id(1) * get_global_size(0) + get_global_id(0)] = twice(im, border, p);\n\
         }\n\
         kernel void rw(read_write image2d_t im) {\n\
           int2 p = (int2)(get_global_id(0), get_global_id(1));\n\
           float4 v = read_imagef(im, p);\n\
           write_imagef(im, p, v * 0.5f);\n\
           atomic_work_item_fence(CLK_IMAGE_MEM_FENCE, memory_order_acq_rel, memory_scope_work_item);\n\
           write_imagef(im, p, read_imagef(im, p) + 1.0f);\n\
         }";
    let program = gpu.program(src, "");
    let k = program.kernel("k");
    let f = Format {
        order: CL_RGBA,
        ty: CL_FLOAT,
    };
    let size = [4usize, 3, 1];
    let mut rng = XorShift::new(15);
    let pixels = random_pixels(&mut rng, f, 12);
    let img = image(
        &gpu,
        CL_MEM_OBJECT_IMAGE2D,
        f,
        size,
        Some(pixels),
        CL_MEM_READ_WRITE,
    );
    let out = gpu.zeroed::<[f32; 4]>(6 * 3);
    arg_handle(&k, 0, img.handle);
    k.arg_buffer(1, &out);
    gpu.run(&k, &[6, 3], None, None);
    let got = gpu.read::<[f32; 4]>(&out);
    for y in 0..3i64 {
        for x in 0..6i64 {
            let px = x - 1;
            let a = img.texel_f(px.clamp(0, 3), y, 0);
            let b = img.texel_f(px, y, 0);
            let want: [f32; 4] = std::array::from_fn(|c| a[c] + b[c]);
            assert_eq!(got[(y * 6 + x) as usize], want, "texel ({px}, {y})");
        }
    }
    let rw = program.kernel("rw");
    arg_handle(&rw, 0, img.handle);
    gpu.run(&rw, &size[..2], None, None);
    let back = img.read_back();
    let want: Vec<u8> = img
        .pixels
        .chunks(4)
        .flat_map(|b| (f32::from_le_bytes([b[0], b[1], b[2], b[3]]) * 0.5 + 1.0).to_le_bytes())
        .collect();
    assert_eq!(
        back, want,
        "read_write image halved, then read again after a fence"
    );
}

#[test]
fn host_reference_conversions() {
    assert_eq!(f32_to_half(1.0), 0x3c00);
    assert_eq!(f32_to_half(65504.0), 0x7bff);
    assert_eq!(f32_to_half(65520.0), 0x7c00);
    assert_eq!(f32_to_half(2f32.powi(-24)), 1);
    assert_eq!(half_to_f32(0x3555), 0.333_251_95);
    assert_eq!(
        channel_to_f32(CL_SNORM_INT8, [0xffff_ff80, 127, 0, 1])[..2],
        [-1.0, 1.0]
    );
    assert_eq!(
        to_rgba(CL_ARGB, [1u32, 2, 3, 4], 9),
        [2, 3, 4, 1],
        "ARGB memory order"
    );
    assert_eq!(
        from_rgba(CL_ARGB, to_rgba(CL_ARGB, [1u32, 2, 3, 4], 9)),
        [1, 2, 3, 4]
    );
    assert_eq!(axis(NORMALIZED | REPEAT, 1.1, 10, false).0, 1);
    assert_eq!(axis(NORMALIZED | MIRRORED_REPEAT, 1.1, 10, false).0, 9);
    assert_eq!(axis(CLAMP, -7.0, 10, false).0, -1);
}

/// Writes on every image type land on the texel of their coordinate (the
/// layer of arrays, the slice of 3D images), read back with
/// clEnqueueReadImage; writes outside the image change nothing.
#[test]
fn write_every_image_type() {
    let gpu = Gpu::new();
    let cases: [(&str, cl_uint, [usize; 3], &str); 5] = [
        ("image1d_t", CL_MEM_OBJECT_IMAGE1D, [9, 1, 1], "p.x"),
        (
            "image1d_array_t",
            CL_MEM_OBJECT_IMAGE1D_ARRAY,
            [9, 3, 1],
            "p.xy",
        ),
        ("image2d_t", CL_MEM_OBJECT_IMAGE2D, [5, 4, 1], "p.xy"),
        (
            "image2d_array_t",
            CL_MEM_OBJECT_IMAGE2D_ARRAY,
            [5, 4, 3],
            "p",
        ),
        ("image3d_t", CL_MEM_OBJECT_IMAGE3D, [5, 4, 3], "p"),
    ];
    let f = Format {
        order: CL_RGBA,
        ty: CL_UNSIGNED_INT16,
    };
    for (ty, image_type, size, coord) in cases {
        // One work-item per texel plus one beyond the image in x.
        let src = format!(
            "kernel void k(write_only {ty} im) {{\n\
               int4 p = (int4)(get_global_id(0), get_global_id(1), get_global_id(2), 0);\n\
               uint v = (uint)(p.x + 16 * p.y + 256 * p.z);\n\
               write_imageui(im, {coord}, (uint4)(v, v + 1, v + 2, 7));\n\
             }}"
        );
        let k = gpu.kernel(&src, "k");
        let img = image(&gpu, image_type, f, size, None, CL_MEM_WRITE_ONLY);
        arg_handle(&k, 0, img.handle);
        let global = [size[0] + 1, size[1], size[2]];
        gpu.run(&k, &global, None, None);
        let got = img.read_back();
        let mut want = Vec::new();
        for z in 0..img.extent[2] {
            for y in 0..img.extent[1] {
                for x in 0..img.extent[0] {
                    // A 1D array's layer is the second coordinate.
                    let (gy, gz) = if image_type == CL_MEM_OBJECT_IMAGE1D_ARRAY {
                        (z, 0)
                    } else {
                        (y, z)
                    };
                    let v = (x + 16 * gy + 256 * gz) as u32;
                    want.extend(encode_ui(f, [v, v + 1, v + 2, 7]));
                }
            }
        }
        assert_eq!(got, want, "{ty}");
    }
}

/// An image1d_buffer_t made from a buffer reads the buffer's bytes, and
/// writes through the image are visible in the buffer.
#[test]
fn image1d_buffer_shares_its_buffer() {
    let gpu = Gpu::new();
    let program = gpu.program(
        "kernel void r(read_only image1d_buffer_t im, global float4 *out) {\n\
           int i = get_global_id(0);\n\
           out[i] = read_imagef(im, i);\n\
           if (i == 0) out[get_global_size(0)] = (float4)(get_image_width(im));\n\
         }\n\
         kernel void w(write_only image1d_buffer_t im) {\n\
           int i = get_global_id(0);\n\
           write_imagef(im, i, (float4)(i / 8.0f, 0.5f, 1.0f, 0.0f));\n\
         }",
        "",
    );
    let n = 16usize;
    let f = Format {
        order: CL_RGBA,
        ty: CL_UNORM_INT8,
    };
    let mut rng = XorShift::new(16);
    let bytes: Vec<u8> = (0..4 * n).map(|_| rng.next_u32() as u8).collect();
    let buffer = gpu.buffer(&bytes);
    let desc = Desc {
        image_type: CL_MEM_OBJECT_IMAGE1D_BUFFER,
        width: n,
        height: 0,
        depth: 0,
        array_size: 0,
        row_pitch: 0,
        slice_pitch: 0,
        num_mip_levels: 0,
        num_samples: 0,
        buffer: buffer.handle,
    };
    let mut err = 0;
    // SAFETY: format and desc are live; no host pointer.
    let handle = unsafe {
        (gpu.api.clCreateImage)(
            gpu.context,
            CL_MEM_READ_WRITE,
            &f,
            &desc,
            null_mut(),
            &mut err,
        )
    };
    check(err, "clCreateImage(IMAGE1D_BUFFER)");
    let img = Image {
        gpu: &gpu,
        handle,
        format: f,
        extent: [n, 1, 1],
        array_1d: false,
        pixels: bytes.clone(),
    };
    let out = gpu.zeroed::<[f32; 4]>(n + 1);
    let r = program.kernel("r");
    arg_handle(&r, 0, img.handle);
    r.arg_buffer(1, &out);
    gpu.run(&r, &[n], None, None);
    let got = gpu.read::<[f32; 4]>(&out);
    let want: Vec<[f32; 4]> = (0..n as i64)
        .map(|x| img.texel_f(x, 0, 0))
        .chain([[n as f32; 4]])
        .collect();
    assert_close(&got, &want, 2e-7, "image1d_buffer_t reads");
    let w = program.kernel("w");
    arg_handle(&w, 0, img.handle);
    gpu.run(&w, &[n], None, None);
    let got = gpu.read::<u8>(&buffer);
    let want: Vec<u8> = (0..n)
        .flat_map(|i| encode_f(f, [i as f32 / 8.0, 0.5, 1.0, 0.0]))
        .collect();
    assert_eq!(got, want, "image1d_buffer_t writes reach the buffer");
}

/// A 2D image made from a buffer (cl_khr_image2d_from_buffer) with a row
/// pitch wider than its rows: reads and writes step rows by the pitch.
#[test]
fn image2d_from_buffer_with_row_pitch() {
    let gpu = Gpu::new();
    let program = gpu.program(
        "kernel void copy(read_only image2d_t src, write_only image2d_t dst) {\n\
           int2 p = (int2)(get_global_id(0), get_global_id(1));\n\
           write_imageui(dst, p, read_imageui(src, p) + (uint4)(1, 2, 3, 4));\n\
         }",
        "",
    );
    let f = Format {
        order: CL_RGBA,
        ty: CL_UNSIGNED_INT8,
    };
    let (width, height) = (5usize, 4usize);
    let align = (gpu.device_info::<cl_uint>(CL_DEVICE_IMAGE_PITCH_ALIGNMENT) as usize).max(1);
    let pitch = (width * 4 + 4).div_ceil(4 * align) * 4 * align;
    let mut rng = XorShift::new(17);
    let bytes: Vec<u8> = (0..pitch * height)
        .map(|_| rng.next_u32() as u8 & 0x7f)
        .collect();
    let src_buffer = gpu.buffer(&bytes);
    let dst_buffer = gpu.buffer(&vec![0u8; pitch * height]);
    let view = |buffer: &Buffer<'_>, flags: cl_bitfield| {
        let desc = Desc {
            image_type: CL_MEM_OBJECT_IMAGE2D,
            width,
            height,
            depth: 0,
            array_size: 0,
            row_pitch: pitch,
            slice_pitch: 0,
            num_mip_levels: 0,
            num_samples: 0,
            buffer: buffer.handle,
        };
        let mut err = 0;
        // SAFETY: format and desc are live; no host pointer.
        let handle =
            unsafe { (gpu.api.clCreateImage)(gpu.context, flags, &f, &desc, null_mut(), &mut err) };
        check(err, "clCreateImage(2D from buffer)");
        Image {
            gpu: &gpu,
            handle,
            format: f,
            extent: [width, height, 1],
            array_1d: false,
            pixels: Vec::new(),
        }
    };
    let src = view(&src_buffer, CL_MEM_READ_ONLY);
    let dst = view(&dst_buffer, CL_MEM_WRITE_ONLY);
    let k = program.kernel("copy");
    arg_handle(&k, 0, src.handle);
    arg_handle(&k, 1, dst.handle);
    gpu.run(&k, &[width, height], None, None);
    let got = gpu.read::<u8>(&dst_buffer);
    for y in 0..height {
        for x in 0..pitch {
            let at = y * pitch + x;
            let want = if x < width * 4 {
                bytes[at] + 1 + (x % 4) as u8
            } else {
                0
            };
            assert_eq!(got[at], want, "byte {x} of row {y}");
        }
    }
}

/// A 3×3 box blur with nine sampled reads per work-item, as image filters
/// write them, against the host reference.
#[test]
fn box_blur_3x3() {
    let gpu = Gpu::new();
    let k = gpu.kernel(
        "constant sampler_t s = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;\n\
         kernel void blur(read_only image2d_t im, write_only image2d_t out) {\n\
           int2 p = (int2)(get_global_id(0), get_global_id(1));\n\
           float4 sum = read_imagef(im, s, p + (int2)(-1, -1)) + read_imagef(im, s, p + (int2)(0, -1))\n\
             + read_imagef(im, s, p + (int2)(1, -1)) + read_imagef(im, s, p + (int2)(-1, 0))\n\
             + read_imagef(im, s, p) + read_imagef(im, s, p + (int2)(1, 0))\n\
             + read_imagef(im, s, p + (int2)(-1, 1)) + read_imagef(im, s, p + (int2)(0, 1))\n\
             + read_imagef(im, s, p + (int2)(1, 1));\n\
           write_imagef(out, p, sum / 9.0f);\n\
         }",
        "blur",
    );
    let f = Format {
        order: CL_RGBA,
        ty: CL_FLOAT,
    };
    let size = [13usize, 7, 1];
    let mut rng = XorShift::new(18);
    let pixels = random_pixels(&mut rng, f, size[0] * size[1]);
    let src = image(
        &gpu,
        CL_MEM_OBJECT_IMAGE2D,
        f,
        size,
        Some(pixels),
        CL_MEM_READ_ONLY,
    );
    let dst = image(
        &gpu,
        CL_MEM_OBJECT_IMAGE2D,
        f,
        size,
        None,
        CL_MEM_WRITE_ONLY,
    );
    arg_handle(&k, 0, src.handle);
    arg_handle(&k, 1, dst.handle);
    gpu.run(&k, &size[..2], None, None);
    let got = floats4(
        &dst.read_back()
            .chunks(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect::<Vec<f32>>(),
    );
    let mut want = Vec::new();
    for y in 0..size[1] as i64 {
        for x in 0..size[0] as i64 {
            let mut sum = [0f32; 4];
            for (dx, dy) in [
                (-1, -1),
                (0, -1),
                (1, -1),
                (-1, 0),
                (0, 0),
                (1, 0),
                (-1, 1),
                (0, 1),
                (1, 1),
            ] {
                let t = src.texel_f(
                    (x + dx).clamp(0, size[0] as i64 - 1),
                    (y + dy).clamp(0, size[1] as i64 - 1),
                    0,
                );
                for c in 0..4 {
                    sum[c] += t[c];
                }
            }
            want.push(sum.map(|v| v / 9.0));
        }
    }
    assert_close(&got, &want, 1e-6, "3x3 box blur");
}

/// cl_khr_depth_images: a CL_DEPTH image reads as one float (with and
/// without a sampler) and is written with write_imagef's float.
#[test]
fn depth_image_read_and_write() {
    let gpu = Gpu::new();
    if !gpu
        .device_string(CL_DEVICE_EXTENSIONS)
        .contains("cl_khr_depth_images")
    {
        eprintln!("device lacks cl_khr_depth_images: skipped");
        return;
    }
    let k = gpu.kernel(
        "constant sampler_t s = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;\n\
         kernel void k(read_only image2d_depth_t d, write_only image2d_depth_t o, global float *out) {\n\
           int2 p = (int2)(get_global_id(0), get_global_id(1));\n\
           float v = read_imagef(d, s, p + (int2)(1, 0));\n\
           write_imagef(o, p, v * 0.5f);\n\
           out[p.y * get_image_width(d) + p.x] = read_imagef(d, p);\n\
         }",
        "k",
    );
    let f = Format {
        order: CL_DEPTH,
        ty: CL_FLOAT,
    };
    let size = [9usize, 5, 1];
    let n = size[0] * size[1];
    let vals: Vec<f32> = (0..n).map(|i| i as f32 * 0.125 - 1.0).collect();
    let pixels: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
    let src = image(
        &gpu,
        CL_MEM_OBJECT_IMAGE2D,
        f,
        size,
        Some(pixels),
        CL_MEM_READ_ONLY,
    );
    let dst = image(
        &gpu,
        CL_MEM_OBJECT_IMAGE2D,
        f,
        size,
        None,
        CL_MEM_WRITE_ONLY,
    );
    let out = gpu.zeroed::<f32>(n);
    arg_handle(&k, 0, src.handle);
    arg_handle(&k, 1, dst.handle);
    k.arg_buffer(2, &out);
    gpu.run(&k, &size[..2], None, None);
    assert_same(&gpu.read::<f32>(&out), &vals, "sampler-less depth reads");
    let written: Vec<f32> = dst
        .read_back()
        .chunks(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    let mut want = Vec::new();
    for y in 0..size[1] {
        for x in 0..size[0] {
            want.push(vals[y * size[0] + (x + 1).min(size[0] - 1)] * 0.5);
        }
    }
    assert_same(&written, &want, "sampled depth reads written back");
}

/// A blocking clEnqueueReadImage of `region` at `origin` into a tight
/// host array of `bytes` bytes.
fn read_region(
    gpu: &Gpu,
    image: Handle,
    origin: [usize; 3],
    region: [usize; 3],
    bytes: usize,
) -> Vec<u8> {
    let mut out = vec![0u8; bytes];
    // SAFETY: a blocking read fills `out`, which holds the region.
    let status = unsafe {
        (gpu.api.clEnqueueReadImage)(
            gpu.queue,
            image,
            CL_TRUE,
            origin.as_ptr(),
            region.as_ptr(),
            0,
            0,
            out.as_mut_ptr() as *mut c_void,
            0,
            null(),
            null_mut(),
        )
    };
    check(status, "clEnqueueReadImage");
    out
}

/// The CTS `allocations` image2d_write pattern at a small height: the
/// work-items of one work-group each write a whole row of a wide
/// `CL_RGBA`/`CL_UNSIGNED_INT32` image (92,672-byte rows, so rows cross
/// 512 KiB) over random pixels written before with clEnqueueWriteImage;
/// rows are read back one clEnqueueReadImage at a time and through a map.
/// On lavapipe the rows of the last work-items in each group of eight used
/// to keep the old pixels: the kernel's loops had run into llvmpipe's limit
/// of 65535 loop iterations per shader invocation, of which each image
/// write spent one.
#[test]
fn rows_written_by_the_work_items_of_one_group() {
    let gpu = Gpu::new();
    let k = gpu.kernel(
        "kernel void rows(write_only image2d_t im, global uint *result, uint stride) {\n\
           uint4 color = (uint4)(0);\n\
           const uint4 offset = (uint4)(0, 1, 2, 3);\n\
           for (int y = 0; y < get_image_height(im); y++)\n\
             if (y % stride == get_global_id(0))\n\
               for (int x = 0; x < get_image_width(im); x++) {\n\
                 color = (uint4)x * (uint4)y + offset;\n\
                 write_imageui(im, (int2)(x, y), color);\n\
               }\n\
           result[get_global_id(0)] += color.x + color.y + color.z + color.w;\n\
         }",
        "rows",
    );
    let (width, height) = (5792usize, 16usize);
    let f = Format {
        order: CL_RGBA,
        ty: CL_UNSIGNED_INT32,
    };
    let img = image(
        &gpu,
        CL_MEM_OBJECT_IMAGE2D,
        f,
        [width, height, 1],
        None,
        CL_MEM_WRITE_ONLY,
    );
    let row = width * 16;
    let mut rng = XorShift::new(55);
    for y0 in (0..height).step_by(8) {
        let noise: Vec<u8> = (0..row * 8).map(|_| rng.next_u32() as u8).collect();
        let (origin, region) = ([0, y0, 0], [width, 8, 1]);
        // SAFETY: a blocking write reads `noise`, which covers the region.
        let status = unsafe {
            (gpu.api.clEnqueueWriteImage)(
                gpu.queue,
                img.handle,
                CL_TRUE,
                origin.as_ptr(),
                region.as_ptr(),
                0,
                0,
                noise.as_ptr() as *const c_void,
                0,
                null(),
                null_mut(),
            )
        };
        check(status, "clEnqueueWriteImage");
    }
    let result = gpu.zeroed::<u32>(height);
    arg_handle(&k, 0, img.handle);
    k.arg_buffer(1, &result);
    k.arg(2, height as u32);
    let local = k.work_group_size().min(height);
    gpu.run(&k, &[height], Some(&[local]), None);
    let want_row = |y: usize| -> Vec<u8> {
        (0..width)
            .flat_map(|x| (0..4).map(move |c| (x * y + c) as u32))
            .flat_map(u32::to_le_bytes)
            .collect()
    };
    for y in 0..height {
        let got = read_region(&gpu, img.handle, [0, y, 0], [width, 1, 1], row);
        let want = want_row(y);
        if let Some(at) = (0..row).find(|&i| got[i] != want[i]) {
            panic!(
                "row {y}: byte {at} (image byte {}) is {}, want {}",
                y * row + at,
                got[at],
                want[at]
            );
        }
    }
    let (origin, region) = ([0usize; 3], [width, height, 1]);
    let (mut row_pitch, mut slice_pitch, mut err) = (0usize, 0usize, 0);
    // SAFETY: a blocking map of the whole image; it is read within its
    // row pitch and unmapped before the image is released.
    unsafe {
        let ptr = (gpu.api.clEnqueueMapImage)(
            gpu.queue,
            img.handle,
            CL_TRUE,
            CL_MAP_READ,
            origin.as_ptr(),
            region.as_ptr(),
            &mut row_pitch,
            &mut slice_pitch,
            0,
            null(),
            null_mut(),
            &mut err,
        );
        check(err, "clEnqueueMapImage");
        assert!(row_pitch >= row);
        for y in 0..height {
            let got = std::slice::from_raw_parts((ptr as *const u8).add(y * row_pitch), row);
            assert!(got == want_row(y).as_slice(), "mapped row {y}");
        }
        check(
            (gpu.api.clEnqueueUnmapMemObject)(gpu.queue, img.handle, ptr, 0, null(), null_mut()),
            "clEnqueueUnmapMemObject",
        );
    }
    gpu.finish();
}

/// Image reads and writes spend none of a shader invocation's loop
/// iterations: one work-item runs 60,000 iterations of a loop that reads a
/// texel, writes it back incremented and records the iteration. llvmpipe
/// runs at most 65535 loop iterations per invocation in all, so a loop
/// inside any of these built-ins would leave the last iterations unrun.
#[test]
fn image_built_ins_spend_no_loop_iterations() {
    let gpu = Gpu::new();
    let k = gpu.kernel(
        "kernel void many(read_write image2d_t im, global uint *done, uint n) {\n\
           for (uint i = 0; i < n; i++) {\n\
             int2 p = (int2)(i % 64, (i / 64) % 64);\n\
             uint4 v = read_imageui(im, p);\n\
             write_imageui(im, p, v + (uint4)(1, 2, 3, 4));\n\
             atomic_work_item_fence(CLK_IMAGE_MEM_FENCE, memory_order_acq_rel, memory_scope_work_item);\n\
             done[i] = i + 1;\n\
           }\n\
         }",
        "many",
    );
    let n = 60_000usize;
    let f = Format {
        order: CL_RGBA,
        ty: CL_UNSIGNED_INT16,
    };
    let img = image(
        &gpu,
        CL_MEM_OBJECT_IMAGE2D,
        f,
        [64, 64, 1],
        None,
        CL_MEM_READ_WRITE,
    );
    let done = gpu.zeroed::<u32>(n);
    arg_handle(&k, 0, img.handle);
    k.arg_buffer(1, &done);
    k.arg(2, n as u32);
    gpu.run(&k, &[1], Some(&[1]), None);
    let got = gpu.read::<u32>(&done);
    if let Some(i) = (0..n).find(|&i| got[i] != i as u32 + 1) {
        panic!("iteration {i} of {n} did not run");
    }
    // Each texel was visited n / 4096 or n / 4096 + 1 times.
    let pixels = read_region(&gpu, img.handle, [0; 3], [64, 64, 1], 64 * 64 * 8);
    for t in 0..64 * 64 {
        let visits = (n / 4096 + usize::from(t < n % 4096)) as u16;
        let texel: Vec<u16> = pixels[t * 8..t * 8 + 8]
            .chunks(2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
            .collect();
        let want: Vec<u16> = (1..=4).map(|c| c * visits).collect();
        assert_eq!(texel, want, "texel {t}");
    }
}

/// The orders with an ignored channel and the sRGB orders are offered for
/// every image type and every access, with the data types the spec allows
/// them; `CL_sRGB` is not (its only 8-bit layout is 24 bits per pixel).
#[test]
fn x_and_srgb_orders_are_offered_everywhere() {
    let gpu = Gpu::new();
    let plain = [
        CL_SNORM_INT8,
        CL_SNORM_INT16,
        CL_UNORM_INT8,
        CL_UNORM_INT16,
        CL_SIGNED_INT8,
        CL_SIGNED_INT16,
        CL_SIGNED_INT32,
        CL_UNSIGNED_INT8,
        CL_UNSIGNED_INT16,
        CL_UNSIGNED_INT32,
        CL_HALF_FLOAT,
        CL_FLOAT,
    ];
    let mut want: Vec<Format> = Vec::new();
    for order in [CL_Rx, CL_RGx] {
        want.extend(plain.map(|ty| Format { order, ty }));
    }
    for ty in [CL_UNORM_SHORT_565, CL_UNORM_SHORT_555, CL_UNORM_INT_101010] {
        want.push(Format { order: CL_RGBx, ty });
    }
    for order in [CL_sRGBA, CL_sBGRA, CL_sRGBx] {
        want.push(Format {
            order,
            ty: CL_UNORM_INT8,
        });
    }
    let types = [
        CL_MEM_OBJECT_IMAGE1D,
        CL_MEM_OBJECT_IMAGE1D_BUFFER,
        CL_MEM_OBJECT_IMAGE1D_ARRAY,
        CL_MEM_OBJECT_IMAGE2D,
        CL_MEM_OBJECT_IMAGE2D_ARRAY,
        CL_MEM_OBJECT_IMAGE3D,
    ];
    let accesses = [
        CL_MEM_READ_ONLY,
        CL_MEM_WRITE_ONLY,
        CL_MEM_READ_WRITE,
        CL_MEM_KERNEL_READ_AND_WRITE,
    ];
    for image_type in types {
        for access in accesses {
            let list = supported_formats(&gpu, access, image_type);
            for f in &want {
                assert!(
                    list.contains(f),
                    "{} missing for type {image_type:#x}, flags {access:#x}",
                    format_name(*f)
                );
            }
            assert!(
                !list.iter().any(|f| f.order == CL_sRGB),
                "CL_sRGB is listed"
            );
            for f in list
                .iter()
                .filter(|f| f.order == CL_RGBx || is_srgb(f.order))
            {
                assert!(want.contains(f), "{} is listed", format_name(*f));
            }
        }
    }
    // CL_sRGB with CL_UNORM_INT8 breaks the power-of-two rule of the
    // format descriptor, as CL_RGB with CL_UNORM_INT8 does.
    for order in [CL_sRGB, CL_RGB] {
        let f = Format {
            order,
            ty: CL_UNORM_INT8,
        };
        let desc = Desc {
            image_type: CL_MEM_OBJECT_IMAGE2D,
            width: 4,
            height: 4,
            depth: 0,
            array_size: 0,
            row_pitch: 0,
            slice_pitch: 0,
            num_mip_levels: 0,
            num_samples: 0,
            buffer: null_mut(),
        };
        let mut err = 0;
        // SAFETY: format and desc are live; no host pointer.
        let handle = unsafe {
            (gpu.api.clCreateImage)(
                gpu.context,
                CL_MEM_READ_WRITE,
                &f,
                &desc,
                null_mut(),
                &mut err,
            )
        };
        assert!(handle.is_null());
        assert_eq!(
            err,
            CL_INVALID_IMAGE_FORMAT_DESCRIPTOR,
            "{}",
            format_name(f)
        );
    }
}

/// sRGB reads and writes against section 8.3.5 of the OpenCL C
/// specification, for every 8-bit code and a sweep of linear values:
/// a read converted back to sRGB (unrounded) is within 0.5 of the stored
/// code, a written code within 0.6 of the exact scaled value; alpha is
/// linear, and `CL_sRGBx` keeps it in its unused byte.
#[test]
fn srgb_transfer_function_within_the_spec_tolerance() {
    let gpu = Gpu::new();
    let program = gpu.program(
        "kernel void rd(read_only image2d_t im, global float4 *out) {\n\
           int i = get_global_id(0);\n\
           out[i] = read_imagef(im, (int2)(i, 0));\n\
         }\n\
         kernel void wr(write_only image2d_t im, global const float4 *c) {\n\
           int i = get_global_id(0);\n\
           write_imagef(im, (int2)(i, 0), c[i]);\n\
         }",
        "",
    );
    let (rd, wr) = (program.kernel("rd"), program.kernel("wr"));
    let exact_to_srgb = |y: f64| -> f64 {
        if y.is_nan() || y <= 0.0 {
            0.0
        } else if y >= 1.0 {
            1.0
        } else if y < 0.0031308 {
            12.92 * y
        } else {
            1.055 * y.powf(1.0 / 2.4) - 0.055
        }
    };
    for order in [CL_sRGBA, CL_sBGRA, CL_sRGBx] {
        let f = Format {
            order,
            ty: CL_UNORM_INT8,
        };
        let name = format_name(f);
        // Reads: texel i holds code i in R, 255 - i in G, i / 2 in B and
        // alpha i, each in its place in memory.
        let pixels: Vec<u8> = (0..256usize)
            .flat_map(|i| {
                let rgba = [i as u8, 255 - i as u8, (i / 2) as u8, i as u8];
                match order {
                    CL_sBGRA => [rgba[2], rgba[1], rgba[0], rgba[3]],
                    _ => rgba,
                }
            })
            .collect();
        let img = image(
            &gpu,
            CL_MEM_OBJECT_IMAGE2D,
            f,
            [256, 1, 1],
            Some(pixels),
            CL_MEM_READ_ONLY,
        );
        let out = gpu.zeroed::<[f32; 4]>(256);
        arg_handle(&rd, 0, img.handle);
        rd.arg_buffer(1, &out);
        gpu.run(&rd, &[256], None, None);
        for (i, got) in gpu.read::<[f32; 4]>(&out).into_iter().enumerate() {
            let codes = [i as f64, 255.0 - i as f64, (i / 2) as f64];
            for c in 0..3 {
                let back = exact_to_srgb(got[c] as f64) * 255.0;
                assert!(
                    (back - codes[c]).abs() <= 0.5,
                    "{name} read of code {}: {} goes back to {back}",
                    codes[c],
                    got[c]
                );
            }
            // Alpha as an ordinary UNORM_INT8 channel, within 2 ulp of
            // code / 255.
            let alpha = if order == CL_sRGBx {
                1.0
            } else {
                i as f32 / 255.0
            };
            assert!(
                (got[3] - alpha).abs() <= 2.0 * f32::EPSILON * alpha,
                "{name} alpha of texel {i}: {} for {alpha}",
                got[3]
            );
        }
        // Writes: a sweep of [0, 1] in the colour channels (and values
        // outside it), a linear ramp in alpha.
        let n = 4096usize;
        let mut colors: Vec<[f32; 4]> = (0..n)
            .map(|i| {
                let t = i as f32 / (n - 1) as f32;
                [t, t * t, 1.0 - t, t]
            })
            .collect();
        colors[1] = [f32::NAN, -1.0, 2.0, 0.5];
        colors[2] = [0.0031308, 0.0031307, 1e-6, 1.0];
        let dst = image(
            &gpu,
            CL_MEM_OBJECT_IMAGE2D,
            f,
            [n, 1, 1],
            None,
            CL_MEM_WRITE_ONLY,
        );
        let dc = gpu.buffer(&colors);
        arg_handle(&wr, 0, dst.handle);
        wr.arg_buffer(1, &dc);
        gpu.run(&wr, &[n], None, None);
        let got = dst.read_back();
        for (i, c) in colors.iter().enumerate() {
            let texel = &got[i * 4..i * 4 + 4];
            let rgba = match order {
                CL_sBGRA => [texel[2], texel[1], texel[0], texel[3]],
                _ => [texel[0], texel[1], texel[2], texel[3]],
            };
            for ch in 0..3 {
                let scaled = exact_to_srgb(c[ch] as f64) * 255.0;
                assert!(
                    (rgba[ch] as f64 - scaled).abs() <= 0.6,
                    "{name} write of {}: code {}, exact {scaled}",
                    c[ch],
                    rgba[ch]
                );
            }
            let alpha = (c[3] as f64 * 255.0).round_ties_even();
            assert_eq!(rgba[3] as f64, alpha, "{name} alpha of texel {i}");
        }
    }
}
