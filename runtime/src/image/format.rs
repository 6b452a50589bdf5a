//! Image formats: which (channel order, channel data type) pairs ferrocl
//! supports, their element sizes, and the host-side encoding of one pixel
//! (`clEnqueueFillImage`) with the conversion rules of section 8.3 of the
//! OpenCL C specification.
//!
//! Kernels decode and encode the same layouts in software (docs/images.md),
//! so every pair listed here is available for every image type and access,
//! except depth formats (not offered yet).

// cl.h spells the sRGB channel orders with a lower-case s (`CL_sRGBA`).
#![allow(non_upper_case_globals)]

use crate::cl::*;

/// `cl_image_format`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageFormat {
    pub channel_order: cl_uint,
    pub channel_data_type: cl_uint,
}

/// Data types of plain channels (one value per channel).
const PLAIN_TYPES: [cl_uint; 12] = [
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
];

/// Data types allowed with the byte-swizzled orders (`CL_BGRA`, `CL_ARGB`,
/// `CL_ABGR`): the spec restricts them to 8-bit channels.
const BYTE_TYPES: [cl_uint; 4] = [
    CL_UNORM_INT8,
    CL_SNORM_INT8,
    CL_SIGNED_INT8,
    CL_UNSIGNED_INT8,
];

/// Data types allowed with `CL_INTENSITY` and `CL_LUMINANCE`.
const NORM_AND_FLOAT_TYPES: [cl_uint; 6] = [
    CL_UNORM_INT8,
    CL_UNORM_INT16,
    CL_SNORM_INT8,
    CL_SNORM_INT16,
    CL_HALF_FLOAT,
    CL_FLOAT,
];

/// Bytes of one channel of a plain data type.
fn channel_size(data_type: cl_uint) -> Option<usize> {
    Some(match data_type {
        CL_UNORM_INT8 | CL_SNORM_INT8 | CL_SIGNED_INT8 | CL_UNSIGNED_INT8 => 1,
        CL_UNORM_INT16 | CL_SNORM_INT16 | CL_SIGNED_INT16 | CL_UNSIGNED_INT16 | CL_HALF_FLOAT => 2,
        CL_SIGNED_INT32 | CL_UNSIGNED_INT32 | CL_FLOAT => 4,
        _ => return None,
    })
}

/// Channels stored per pixel of a channel order. The orders with an
/// ignored `x` channel take the layouts the OpenCL CTS and the other
/// implementations use: `CL_Rx` and `CL_RGx` store their colour channels
/// only (a stored pad channel would make `CL_RGx` 24, 48 or 96 bits per
/// pixel, which the spec's power-of-two rule forbids), `CL_sRGBx` stores
/// four bytes, the fourth unused by reads.
fn channel_count(order: cl_uint) -> Option<usize> {
    Some(match order {
        CL_R | CL_Rx | CL_A | CL_INTENSITY | CL_LUMINANCE | CL_DEPTH => 1,
        CL_RG | CL_RGx | CL_RA => 2,
        CL_RGB => 3,
        CL_RGBA | CL_BGRA | CL_ARGB | CL_ABGR | CL_sRGBA | CL_sBGRA | CL_sRGBx => 4,
        _ => return None,
    })
}

/// Whether reads convert the colour channels of this order from sRGB (and
/// `write_imagef` to it).
pub fn is_srgb(order: cl_uint) -> bool {
    matches!(order, CL_sRGB | CL_sRGBx | CL_sRGBA | CL_sBGRA)
}

impl ImageFormat {
    pub const fn new(channel_order: cl_uint, channel_data_type: cl_uint) -> ImageFormat {
        ImageFormat {
            channel_order,
            channel_data_type,
        }
    }

    /// Whether the pair is a valid OpenCL image format that ferrocl knows:
    /// the data types each order allows (the packed types only with
    /// `CL_RGB` and `CL_RGBx`, the swizzled orders only with 8-bit types,
    /// sRGB only with `CL_UNORM_INT8`...). An invalid pair is
    /// `CL_INVALID_IMAGE_FORMAT_DESCRIPTOR`. `CL_sRGB` has no valid data
    /// type: its one 8-bit layout is 24 bits per pixel, and the spec
    /// requires a power of two (as it does of `CL_RGB` with 8-bit types).
    pub fn is_valid(&self) -> bool {
        let t = self.channel_data_type;
        match self.channel_order {
            CL_R | CL_Rx | CL_A | CL_RG | CL_RGx | CL_RA | CL_RGBA => PLAIN_TYPES.contains(&t),
            CL_RGB | CL_RGBx => matches!(
                t,
                CL_UNORM_SHORT_565 | CL_UNORM_SHORT_555 | CL_UNORM_INT_101010
            ),
            CL_BGRA | CL_ARGB | CL_ABGR => BYTE_TYPES.contains(&t),
            CL_INTENSITY | CL_LUMINANCE => NORM_AND_FLOAT_TYPES.contains(&t),
            CL_DEPTH => matches!(t, CL_UNORM_INT16 | CL_FLOAT),
            CL_sRGBA | CL_sBGRA | CL_sRGBx => t == CL_UNORM_INT8,
            _ => false,
        }
    }

    /// `CL_IMAGE_ELEMENT_SIZE`: bytes per pixel, for a valid format.
    pub fn element_size(&self) -> Option<usize> {
        if !self.is_valid() {
            return None;
        }
        match self.channel_data_type {
            CL_UNORM_SHORT_565 | CL_UNORM_SHORT_555 => Some(2),
            CL_UNORM_INT_101010 => Some(4),
            t => Some(channel_size(t)? * channel_count(self.channel_order)?),
        }
    }

    /// Whether a device supports this format for an image of type
    /// `_image_type` with the access of `_flags` (`CL_MEM_*` access
    /// flags): every offered format works with every type and access
    /// (sRGB is written through cl_khr_srgb_image_writes). Depth formats
    /// (cl_khr_depth_images) exist for 2D images and 2D arrays only, the
    /// image types `image2d_depth_t` and `image2d_array_depth_t` take.
    pub fn is_supported(&self, image_type: cl_uint, _flags: cl_bitfield) -> bool {
        self.is_valid()
            && (self.channel_order != CL_DEPTH
                || matches!(
                    image_type,
                    CL_MEM_OBJECT_IMAGE2D | CL_MEM_OBJECT_IMAGE2D_ARRAY
                ))
    }
}

/// Every format in the order `clGetSupportedImageFormats` lists them.
pub fn all_formats() -> Vec<ImageFormat> {
    let orders = [
        CL_R,
        CL_A,
        CL_RG,
        CL_RA,
        CL_RGB,
        CL_RGBA,
        CL_BGRA,
        CL_ARGB,
        CL_ABGR,
        CL_INTENSITY,
        CL_LUMINANCE,
        CL_Rx,
        CL_RGx,
        CL_RGBx,
        CL_DEPTH,
        CL_sRGBA,
        CL_sBGRA,
        CL_sRGBx,
    ];
    let types = [
        CL_SNORM_INT8,
        CL_SNORM_INT16,
        CL_UNORM_INT8,
        CL_UNORM_INT16,
        CL_UNORM_SHORT_565,
        CL_UNORM_SHORT_555,
        CL_UNORM_INT_101010,
        CL_SIGNED_INT8,
        CL_SIGNED_INT16,
        CL_SIGNED_INT32,
        CL_UNSIGNED_INT8,
        CL_UNSIGNED_INT16,
        CL_UNSIGNED_INT32,
        CL_HALF_FLOAT,
        CL_FLOAT,
    ];
    let mut list = Vec::new();
    for order in orders {
        for t in types {
            let f = ImageFormat::new(order, t);
            if f.is_valid() {
                list.push(f);
            }
        }
    }
    list
}

/// The colour of `clEnqueueFillImage`: four floats for normalized, half
/// and float formats, four signed or unsigned integers for the integer
/// formats, always in (R, G, B, A) order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FillColor {
    Float([f32; 4]),
    Int([i32; 4]),
    Uint([u32; 4]),
}

impl FillColor {
    /// Reads the 16 bytes of `fill_color` as the kind the format takes.
    pub fn from_bytes(format: &ImageFormat, bytes: [u8; 16]) -> FillColor {
        let word = |i: usize| {
            [
                bytes[4 * i],
                bytes[4 * i + 1],
                bytes[4 * i + 2],
                bytes[4 * i + 3],
            ]
        };
        match format.channel_data_type {
            CL_SIGNED_INT8 | CL_SIGNED_INT16 | CL_SIGNED_INT32 => {
                FillColor::Int([0, 1, 2, 3].map(|i| i32::from_ne_bytes(word(i))))
            }
            CL_UNSIGNED_INT8 | CL_UNSIGNED_INT16 | CL_UNSIGNED_INT32 => {
                FillColor::Uint([0, 1, 2, 3].map(|i| u32::from_ne_bytes(word(i))))
            }
            _ => FillColor::Float([0, 1, 2, 3].map(|i| f32::from_ne_bytes(word(i)))),
        }
    }
}

/// Which (R, G, B, A) component each stored channel holds, in memory order.
fn stored_components(order: cl_uint) -> &'static [usize] {
    match order {
        // CL_INTENSITY and CL_LUMINANCE store one value, written from R
        // (write_imagef takes the red component for them); a depth image
        // stores the depth value, the first component of the fill colour.
        CL_R | CL_Rx | CL_INTENSITY | CL_LUMINANCE | CL_DEPTH => &[0],
        CL_A => &[3],
        CL_RG | CL_RGx => &[0, 1],
        CL_RA => &[0, 3],
        CL_RGB => &[0, 1, 2],
        // The unused fourth byte of CL_sRGBx holds alpha, as write_imagef
        // stores it.
        CL_RGBA | CL_sRGBA | CL_sRGBx => &[0, 1, 2, 3],
        CL_BGRA | CL_sBGRA => &[2, 1, 0, 3],
        CL_ARGB => &[3, 0, 1, 2],
        CL_ABGR => &[3, 2, 1, 0],
        _ => &[],
    }
}

/// Rounds to the nearest integer, ties to even, then saturates to
/// [lo, hi]; NaN becomes 0 (`convert_<type>_sat_rte`).
fn sat_rte(x: f32, lo: f32, hi: f32) -> i64 {
    if x.is_nan() {
        return 0;
    }
    x.round_ties_even().clamp(lo, hi) as i64
}

/// `float` to `half` bits, rounding to nearest even.
pub fn f32_to_f16(value: f32) -> u16 {
    let bits = value.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let exp = ((bits >> 23) & 0xff) as i32;
    let mant = bits & 0x7f_ffff;
    if exp == 0xff {
        // Infinity keeps its sign; NaN stays a quiet NaN.
        return sign | 0x7c00 | if mant != 0 { 0x200 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    if e <= 0 {
        // Subnormal half (or zero): shift the full significand right.
        if e < -10 {
            return sign;
        }
        let m = mant | 0x80_0000;
        let shift = (14 - e) as u32;
        let half = m >> shift;
        let rest = m & ((1 << shift) - 1);
        let midpoint = 1 << (shift - 1);
        let round = rest > midpoint || (rest == midpoint && half & 1 == 1);
        return sign | (half + u32::from(round)) as u16;
    }
    let half = ((e as u32) << 10) | (mant >> 13);
    let rest = mant & 0x1fff;
    let round = rest > 0x1000 || (rest == 0x1000 && half & 1 == 1);
    // A carry out of the significand correctly bumps the exponent (up to
    // infinity).
    sign | (half + u32::from(round)) as u16
}

/// The sRGB transfer function applied to a linear value in [0, 1].
fn linear_to_srgb(c: f32) -> f32 {
    if c.is_nan() {
        return 0.0;
    }
    let c = c.clamp(0.0, 1.0);
    if c <= 0.003_130_8 {
        12.92 * c
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    }
}

/// The bytes of one pixel of `format` holding `color`, as `write_image*`
/// would store it. Empty for an invalid format.
pub fn encode_pixel(format: &ImageFormat, color: FillColor) -> Vec<u8> {
    let order = format.channel_order;
    let t = format.channel_data_type;
    let mut out = Vec::with_capacity(16);
    match (t, color) {
        (CL_UNORM_SHORT_565, FillColor::Float(c)) => {
            let r = sat_rte(c[0] * 31.0, 0.0, 31.0) as u16;
            let g = sat_rte(c[1] * 63.0, 0.0, 63.0) as u16;
            let b = sat_rte(c[2] * 31.0, 0.0, 31.0) as u16;
            out.extend_from_slice(&((r << 11) | (g << 5) | b).to_ne_bytes());
        }
        (CL_UNORM_SHORT_555, FillColor::Float(c)) => {
            let [r, g, b] = [0, 1, 2].map(|i| sat_rte(c[i] * 31.0, 0.0, 31.0) as u16);
            out.extend_from_slice(&((r << 10) | (g << 5) | b).to_ne_bytes());
        }
        (CL_UNORM_INT_101010, FillColor::Float(c)) => {
            let [r, g, b] = [0, 1, 2].map(|i| sat_rte(c[i] * 1023.0, 0.0, 1023.0) as u32);
            out.extend_from_slice(&((r << 20) | (g << 10) | b).to_ne_bytes());
        }
        _ => {
            for &component in stored_components(order) {
                encode_channel(&mut out, order, t, color, component);
            }
        }
    }
    out
}

fn encode_channel(out: &mut Vec<u8>, order: cl_uint, t: cl_uint, color: FillColor, i: usize) {
    match color {
        FillColor::Float(c) => {
            let mut v = c[i];
            // sRGB stores the colour channels through the transfer
            // function; alpha stays linear.
            if is_srgb(order) && i != 3 {
                v = linear_to_srgb(v);
            }
            match t {
                CL_UNORM_INT8 => out.push(sat_rte(v * 255.0, 0.0, 255.0) as u8),
                CL_UNORM_INT16 => out
                    .extend_from_slice(&(sat_rte(v * 65535.0, 0.0, 65535.0) as u16).to_ne_bytes()),
                CL_SNORM_INT8 => out.push(sat_rte(v * 127.0, -128.0, 127.0) as i8 as u8),
                CL_SNORM_INT16 => out.extend_from_slice(
                    &(sat_rte(v * 32767.0, -32768.0, 32767.0) as i16).to_ne_bytes(),
                ),
                CL_HALF_FLOAT => out.extend_from_slice(&f32_to_f16(v).to_ne_bytes()),
                CL_FLOAT => out.extend_from_slice(&v.to_ne_bytes()),
                _ => {}
            }
        }
        FillColor::Int(c) => {
            let v = c[i];
            match t {
                CL_SIGNED_INT8 => out.push(v.clamp(-128, 127) as i8 as u8),
                CL_SIGNED_INT16 => {
                    out.extend_from_slice(&(v.clamp(-32768, 32767) as i16).to_ne_bytes())
                }
                CL_SIGNED_INT32 => out.extend_from_slice(&v.to_ne_bytes()),
                _ => {}
            }
        }
        FillColor::Uint(c) => {
            let v = c[i];
            match t {
                CL_UNSIGNED_INT8 => out.push(v.min(255) as u8),
                CL_UNSIGNED_INT16 => out.extend_from_slice(&(v.min(65535) as u16).to_ne_bytes()),
                CL_UNSIGNED_INT32 => out.extend_from_slice(&v.to_ne_bytes()),
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn element_sizes() {
        let size = |o, t| ImageFormat::new(o, t).element_size();
        assert_eq!(size(CL_RGBA, CL_UNORM_INT8), Some(4));
        assert_eq!(size(CL_RGBA, CL_FLOAT), Some(16));
        assert_eq!(size(CL_RG, CL_HALF_FLOAT), Some(4));
        assert_eq!(size(CL_R, CL_SIGNED_INT32), Some(4));
        assert_eq!(size(CL_RGB, CL_UNORM_SHORT_565), Some(2));
        assert_eq!(size(CL_RGB, CL_UNORM_INT_101010), Some(4));
        assert_eq!(size(CL_BGRA, CL_UNORM_INT8), Some(4));
        assert_eq!(size(CL_DEPTH, CL_FLOAT), Some(4));
        assert_eq!(size(CL_BGRA, CL_FLOAT), None);
        assert_eq!(size(CL_RGB, CL_UNORM_INT8), None);
        assert_eq!(size(CL_INTENSITY, CL_SIGNED_INT8), None);
        assert_eq!(size(0, CL_FLOAT), None);
        assert_eq!(size(CL_Rx, CL_UNORM_INT16), Some(2));
        assert_eq!(size(CL_RGx, CL_FLOAT), Some(8));
        assert_eq!(size(CL_RGBx, CL_UNORM_SHORT_555), Some(2));
        assert_eq!(size(CL_RGBx, CL_UNORM_INT_101010), Some(4));
        assert_eq!(size(CL_RGBx, CL_UNORM_INT8), None);
        assert_eq!(size(CL_sRGBx, CL_UNORM_INT8), Some(4));
        assert_eq!(size(CL_sRGBx, CL_UNORM_INT16), None);
        assert_eq!(size(CL_sRGB, CL_UNORM_INT8), None);
    }

    #[test]
    fn format_list_is_valid_and_complete() {
        let list = all_formats();
        assert!(list.iter().all(|f| f.is_valid()));
        // 12 + 12 + 12 + 12 (R, A, RG, RA) + 3 (RGB) + 12 (RGBA) + 3 * 4
        // (BGRA, ARGB, ABGR) + 2 * 6 (INTENSITY, LUMINANCE) + 12 + 12 + 3
        // (Rx, RGx, RGBx) + 2 (DEPTH) + 3 (sRGBA, sBGRA, sRGBx).
        assert_eq!(list.len(), 48 + 3 + 12 + 12 + 12 + 27 + 2 + 3);
        let depth = ImageFormat::new(CL_DEPTH, CL_FLOAT);
        assert!(depth.is_valid());
        assert!(depth.is_supported(CL_MEM_OBJECT_IMAGE2D, CL_MEM_READ_ONLY));
        assert!(!depth.is_supported(CL_MEM_OBJECT_IMAGE3D, CL_MEM_READ_ONLY));
        let srgb = ImageFormat::new(CL_sRGBA, CL_UNORM_INT8);
        assert!(srgb.is_supported(CL_MEM_OBJECT_IMAGE2D, CL_MEM_READ_ONLY));
        assert!(srgb.is_supported(CL_MEM_OBJECT_IMAGE2D, CL_MEM_WRITE_ONLY));
    }

    #[test]
    fn half_conversion_rounds_to_nearest_even() {
        assert_eq!(f32_to_f16(0.0), 0);
        assert_eq!(f32_to_f16(-0.0), 0x8000);
        assert_eq!(f32_to_f16(1.0), 0x3c00);
        assert_eq!(f32_to_f16(-2.0), 0xc000);
        assert_eq!(f32_to_f16(65504.0), 0x7bff);
        assert_eq!(f32_to_f16(65520.0), 0x7c00);
        assert_eq!(f32_to_f16(f32::INFINITY), 0x7c00);
        assert_eq!(f32_to_f16(f32::NAN) & 0x7c00, 0x7c00);
        assert_ne!(f32_to_f16(f32::NAN) & 0x3ff, 0);
        // Smallest subnormal half and a value exactly halfway below it.
        assert_eq!(f32_to_f16(2f32.powi(-24)), 1);
        assert_eq!(f32_to_f16(2f32.powi(-25)), 0);
        assert_eq!(f32_to_f16(3.0 * 2f32.powi(-25)), 2);
        // 1 + 2^-11 is halfway between 1 and the next half: even wins.
        assert_eq!(f32_to_f16(1.0 + 2f32.powi(-11)), 0x3c00);
        assert_eq!(f32_to_f16(1.0 + 3.0 * 2f32.powi(-11)), 0x3c02);
    }

    #[test]
    fn pixels_are_encoded_per_format() {
        let f = |o, t| ImageFormat::new(o, t);
        let red = FillColor::Float([1.0, 0.5, 0.0, 0.25]);
        assert_eq!(
            encode_pixel(&f(CL_RGBA, CL_UNORM_INT8), red),
            [255, 128, 0, 64]
        );
        assert_eq!(
            encode_pixel(&f(CL_BGRA, CL_UNORM_INT8), red),
            [0, 128, 255, 64]
        );
        assert_eq!(
            encode_pixel(&f(CL_ARGB, CL_UNORM_INT8), red),
            [64, 255, 128, 0]
        );
        assert_eq!(encode_pixel(&f(CL_A, CL_UNORM_INT8), red), [64]);
        assert_eq!(
            encode_pixel(
                &f(CL_R, CL_SNORM_INT8),
                FillColor::Float([-2.0, 0.0, 0.0, 0.0])
            ),
            [(-128i8) as u8]
        );
        assert_eq!(
            encode_pixel(&f(CL_R, CL_UNORM_INT16), FillColor::Float([f32::NAN; 4])),
            [0, 0]
        );
        let rgb = FillColor::Float([1.0, 1.0, 0.0, 0.0]);
        assert_eq!(
            encode_pixel(&f(CL_RGB, CL_UNORM_SHORT_565), rgb),
            ((31u16 << 11) | (63 << 5)).to_ne_bytes()
        );
        assert_eq!(
            encode_pixel(&f(CL_RGB, CL_UNORM_SHORT_555), rgb),
            ((31u16 << 10) | (31 << 5)).to_ne_bytes()
        );
        assert_eq!(
            encode_pixel(&f(CL_RGB, CL_UNORM_INT_101010), rgb),
            ((1023u32 << 20) | (1023 << 10)).to_ne_bytes()
        );
        assert_eq!(
            encode_pixel(&f(CL_RG, CL_SIGNED_INT8), FillColor::Int([-300, 5, 0, 0])),
            [(-128i8) as u8, 5]
        );
        assert_eq!(
            encode_pixel(
                &f(CL_R, CL_UNSIGNED_INT16),
                FillColor::Uint([70000, 0, 0, 0])
            ),
            [0xff, 0xff]
        );
        // sRGB: 0.5 linear is 188 (0.7354 × 255); alpha stays linear.
        assert_eq!(
            encode_pixel(
                &f(CL_sRGBA, CL_UNORM_INT8),
                FillColor::Float([0.5, 0.0, 1.0, 0.5])
            ),
            [188, 0, 255, 128]
        );
        assert_eq!(
            encode_pixel(
                &f(CL_sRGBx, CL_UNORM_INT8),
                FillColor::Float([0.5, 0.0, 1.0, 0.5])
            ),
            [188, 0, 255, 128]
        );
        assert_eq!(encode_pixel(&f(CL_Rx, CL_UNORM_INT8), red), [255]);
        assert_eq!(
            encode_pixel(&f(CL_RGx, CL_UNSIGNED_INT16), FillColor::Uint([1, 2, 3, 4])),
            [1, 0, 2, 0]
        );
        assert_eq!(
            encode_pixel(&f(CL_RGBx, CL_UNORM_SHORT_565), rgb),
            ((31u16 << 11) | (63 << 5)).to_ne_bytes()
        );
    }
}
