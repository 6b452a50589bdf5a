// Image built-ins written in OpenCL C, compiled by this compiler and inlined
// where called. An image value is the device address of its 64-byte image
// descriptor (docs/images.md); a sampler value is its CLK_* bits. Reads
// decode the channel data type (section 8.3 of the OpenCL C specification),
// map the channel order to (R, G, B, A), convert sRGB to linear, and apply
// the sampler's addressing mode and filter as the OpenCL SPIR-V
// environment's "Image Addressing and Filtering" writes them; writes do the
// reverse. Texels outside the image are never touched: a read there gives
// the border colour, a write there is dropped.

// Channel orders (cl.h).
#define ORDER_R 0x10B0
#define ORDER_A 0x10B1
#define ORDER_RG 0x10B2
#define ORDER_RA 0x10B3
#define ORDER_RGB 0x10B4
#define ORDER_RGBA 0x10B5
#define ORDER_BGRA 0x10B6
#define ORDER_ARGB 0x10B7
#define ORDER_INTENSITY 0x10B8
#define ORDER_LUMINANCE 0x10B9
#define ORDER_Rx 0x10BA
#define ORDER_RGx 0x10BB
#define ORDER_RGBx 0x10BC
#define ORDER_DEPTH 0x10BD
#define ORDER_sRGB 0x10BF
#define ORDER_sRGBx 0x10C0
#define ORDER_sRGBA 0x10C1
#define ORDER_sBGRA 0x10C2
#define ORDER_ABGR 0x10C3

// Channel data types (cl.h).
#define TYPE_SNORM_INT8 0x10D0
#define TYPE_SNORM_INT16 0x10D1
#define TYPE_UNORM_INT8 0x10D2
#define TYPE_UNORM_INT16 0x10D3
#define TYPE_UNORM_SHORT_565 0x10D4
#define TYPE_UNORM_SHORT_555 0x10D5
#define TYPE_UNORM_INT_101010 0x10D6
#define TYPE_SIGNED_INT8 0x10D7
#define TYPE_SIGNED_INT16 0x10D8
#define TYPE_SIGNED_INT32 0x10D9
#define TYPE_UNSIGNED_INT8 0x10DA
#define TYPE_UNSIGNED_INT16 0x10DB
#define TYPE_UNSIGNED_INT32 0x10DC
#define TYPE_HALF_FLOAT 0x10DD
#define TYPE_FLOAT 0x10DE
#define TYPE_UNORM_INT_101010_2 0x10E0

// Sampler bits (docs/images.md).
#define SAMPLER_NORMALIZED 0x1u
#define SAMPLER_ADDRESS_MASK 0xEu
#define ADDRESS_NONE 0u
#define ADDRESS_CLAMP_TO_EDGE 2u
#define ADDRESS_CLAMP 4u
#define ADDRESS_REPEAT 6u
#define ADDRESS_MIRRORED_REPEAT 8u
#define SAMPLER_FILTER_LINEAR 0x20u

// ---- the descriptor --------------------------------------------------------

uint __ferrocl_img_field(ulong img, uint index) {
    return ((__global const uint *)img)[index];
}

int __ferrocl_img_width(ulong img) { return (int)__ferrocl_img_field(img, 2u); }
int __ferrocl_img_height(ulong img) { return (int)__ferrocl_img_field(img, 3u); }
int __ferrocl_img_depth(ulong img) { return (int)__ferrocl_img_field(img, 4u); }
int __ferrocl_img_array_size(ulong img) { return (int)__ferrocl_img_field(img, 5u); }
int __ferrocl_img_channel_order(ulong img) { return (int)__ferrocl_img_field(img, 6u); }
int __ferrocl_img_channel_data_type(ulong img) { return (int)__ferrocl_img_field(img, 7u); }

// The extent addressed by (x, y, z): z counts the layers of 1D and 2D
// arrays, y is 1 for 1D images.
int4 __ferrocl_img_extent(ulong img, int layered_axis) {
    int w = __ferrocl_img_width(img);
    int h = __ferrocl_img_height(img);
    int d = __ferrocl_img_depth(img);
    if (layered_axis == 1) {
        h = 1;
        d = __ferrocl_img_array_size(img);
    } else if (layered_axis == 2) {
        d = __ferrocl_img_array_size(img);
    }
    return (int4)(max(w, 1), max(h, 1), max(d, 1), 0);
}

// Device address of the texel (x, y, z) inside the image. Array layers are
// slice_pitch apart for 1D and 2D arrays alike.
ulong __ferrocl_img_texel_address(ulong img, int x, int y, int z) {
    ulong base = *(__global const ulong *)img;
    ulong bpp = (ulong)__ferrocl_img_field(img, 8u);
    ulong row = (ulong)__ferrocl_img_field(img, 9u);
    ulong slice = (ulong)__ferrocl_img_field(img, 10u);
    return base + (ulong)z * slice + (ulong)y * row + (ulong)x * bpp;
}

// Channels stored per texel, in memory order (packed types hold them in one
// word).
int __ferrocl_img_channels(uint order) {
    switch (order) {
    case ORDER_R:
    case ORDER_A:
    case ORDER_INTENSITY:
    case ORDER_LUMINANCE:
    case ORDER_Rx:
    case ORDER_DEPTH:
        return 1;
    case ORDER_RG:
    case ORDER_RA:
    case ORDER_RGx:
        return 2;
    case ORDER_RGB:
    case ORDER_RGBx:
    case ORDER_sRGB:
        return 3;
    default:
        // CL_sRGBx stores a fourth byte, which writes fill with alpha.
        return 4;
    }
}

int __ferrocl_img_is_srgb(uint order) {
    return order == ORDER_sRGB || order == ORDER_sRGBx || order == ORDER_sRGBA
        || order == ORDER_sBGRA;
}

// ---- raw texels: channel values in memory order, as 32-bit words -------------
// Signed channels are sign-extended, unsigned ones zero-extended; half and
// float channels keep their bits.

// Bytes of one channel (of the whole packed word for packed types).
int __ferrocl_img_channel_size(uint type) {
    switch (type) {
    case TYPE_SNORM_INT8:
    case TYPE_UNORM_INT8:
    case TYPE_SIGNED_INT8:
    case TYPE_UNSIGNED_INT8:
        return 1;
    case TYPE_SNORM_INT16:
    case TYPE_UNORM_INT16:
    case TYPE_SIGNED_INT16:
    case TYPE_UNSIGNED_INT16:
    case TYPE_HALF_FLOAT:
    case TYPE_UNORM_SHORT_565:
    case TYPE_UNORM_SHORT_555:
        return 2;
    default:
        return 4;
    }
}

int __ferrocl_img_is_packed(uint type) {
    return type == TYPE_UNORM_SHORT_565 || type == TYPE_UNORM_SHORT_555
        || type == TYPE_UNORM_INT_101010 || type == TYPE_UNORM_INT_101010_2;
}

int __ferrocl_img_is_signed(uint type) {
    return type == TYPE_SNORM_INT8 || type == TYPE_SNORM_INT16 || type == TYPE_SIGNED_INT8
        || type == TYPE_SIGNED_INT16;
}

// One channel of `size` bytes at `p`, sign- or zero-extended to 32 bits.
uint __ferrocl_img_load_channel(ulong p, int size, int sign) {
    if (size == 1)
        return sign ? (uint)(int)*(__global const char *)p : (uint)*(__global const uchar *)p;
    if (size == 2)
        return sign ? (uint)(int)*(__global const short *)p : (uint)*(__global const ushort *)p;
    return *(__global const uint *)p;
}

// The channels stored at `a` (one word for packed types). Written out per
// channel rather than as a loop over the channel count: Mesa's llvmpipe
// (lavapipe) gives each shader invocation a budget of 65535 loop
// iterations in all and silently skips every iteration past it, so a loop
// inside an image access would cut short the application's own loops.
uint4 __ferrocl_img_load_raw(ulong img, int x, int y, int z) {
    ulong a = __ferrocl_img_texel_address(img, x, y, z);
    uint type = __ferrocl_img_field(img, 7u);
    int packed = __ferrocl_img_is_packed(type);
    int n = packed ? 1 : __ferrocl_img_channels(__ferrocl_img_field(img, 6u));
    int size = __ferrocl_img_channel_size(type);
    int sign = __ferrocl_img_is_signed(type);
    ulong step = (ulong)size;
    uint v[4] = {0u, 0u, 0u, 0u};
    v[0] = __ferrocl_img_load_channel(a, size, sign);
    if (n > 1) v[1] = __ferrocl_img_load_channel(a + step, size, sign);
    if (n > 2) v[2] = __ferrocl_img_load_channel(a + 2ul * step, size, sign);
    if (n > 3) v[3] = __ferrocl_img_load_channel(a + 3ul * step, size, sign);
    uint w = v[0];
    switch (type) {
    case TYPE_UNORM_SHORT_565:
        return (uint4)(w >> 11, (w >> 5) & 63u, w & 31u, 0u);
    case TYPE_UNORM_SHORT_555:
        return (uint4)((w >> 10) & 31u, (w >> 5) & 31u, w & 31u, 0u);
    case TYPE_UNORM_INT_101010:
        return (uint4)((w >> 20) & 1023u, (w >> 10) & 1023u, w & 1023u, 0u);
    case TYPE_UNORM_INT_101010_2:
        return (uint4)(w >> 22, (w >> 12) & 1023u, (w >> 2) & 1023u, w & 3u);
    default:
        return (uint4)(v[0], v[1], v[2], v[3]);
    }
}

// The low `size` bytes of `v` to `p`.
void __ferrocl_img_store_channel(ulong p, int size, uint v) {
    if (size == 1) {
        *(__global uchar *)p = (uchar)v;
    } else if (size == 2) {
        *(__global ushort *)p = (ushort)v;
    } else {
        *(__global uint *)p = v;
    }
}

void __ferrocl_img_store_raw(ulong img, int x, int y, int z, uint4 r) {
    ulong a = __ferrocl_img_texel_address(img, x, y, z);
    uint type = __ferrocl_img_field(img, 7u);
    int n = __ferrocl_img_channels(__ferrocl_img_field(img, 6u));
    uint v[4] = {r.x, r.y, r.z, r.w};
    switch (type) {
    case TYPE_UNORM_SHORT_565:
        v[0] = (r.x << 11) | (r.y << 5) | r.z;
        n = 1;
        break;
    case TYPE_UNORM_SHORT_555:
        v[0] = (r.x << 10) | (r.y << 5) | r.z;
        n = 1;
        break;
    case TYPE_UNORM_INT_101010:
        v[0] = (r.x << 20) | (r.y << 10) | r.z;
        n = 1;
        break;
    case TYPE_UNORM_INT_101010_2:
        v[0] = (r.x << 22) | (r.y << 12) | (r.z << 2) | r.w;
        n = 1;
        break;
    default:
        break;
    }
    int size = __ferrocl_img_channel_size(type);
    // Per channel, not a loop: see __ferrocl_img_load_raw.
    ulong step = (ulong)size;
    __ferrocl_img_store_channel(a, size, v[0]);
    if (n > 1) __ferrocl_img_store_channel(a + step, size, v[1]);
    if (n > 2) __ferrocl_img_store_channel(a + 2ul * step, size, v[2]);
    if (n > 3) __ferrocl_img_store_channel(a + 3ul * step, size, v[3]);
}

// ---- channel orders ----------------------------------------------------------

// Memory order → (R, G, B, A), with the missing components of the spec's
// table; `one` is the bits of 1 in the result's type.
uint4 __ferrocl_img_to_rgba(uint order, uint4 m, uint one) {
    switch (order) {
    case ORDER_R:
    case ORDER_Rx:
        return (uint4)(m.x, 0u, 0u, one);
    case ORDER_DEPTH:
        return (uint4)(m.x, 0u, 0u, 0u);
    case ORDER_A:
        return (uint4)(0u, 0u, 0u, m.x);
    case ORDER_RG:
    case ORDER_RGx:
        return (uint4)(m.x, m.y, 0u, one);
    case ORDER_RA:
        return (uint4)(m.x, 0u, 0u, m.y);
    case ORDER_RGB:
    case ORDER_RGBx:
    case ORDER_sRGB:
    case ORDER_sRGBx:
        return (uint4)(m.x, m.y, m.z, one);
    case ORDER_BGRA:
    case ORDER_sBGRA:
        return (uint4)(m.z, m.y, m.x, m.w);
    case ORDER_ARGB:
        return (uint4)(m.y, m.z, m.w, m.x);
    case ORDER_ABGR:
        return (uint4)(m.w, m.z, m.y, m.x);
    case ORDER_INTENSITY:
        return (uint4)(m.x, m.x, m.x, m.x);
    case ORDER_LUMINANCE:
        return (uint4)(m.x, m.x, m.x, one);
    default:
        return m;
    }
}

// (R, G, B, A) → memory order.
uint4 __ferrocl_img_from_rgba(uint order, uint4 c) {
    switch (order) {
    case ORDER_A:
        return (uint4)(c.w, 0u, 0u, 0u);
    case ORDER_RA:
        return (uint4)(c.x, c.w, 0u, 0u);
    case ORDER_BGRA:
    case ORDER_sBGRA:
        return (uint4)(c.z, c.y, c.x, c.w);
    case ORDER_ARGB:
        return (uint4)(c.w, c.x, c.y, c.z);
    case ORDER_ABGR:
        return (uint4)(c.w, c.z, c.y, c.x);
    default:
        return c;
    }
}

// The border colour of CLK_ADDRESS_CLAMP: alpha 0 for orders with an alpha
// (or x) channel, 1 for the others.
// Orders without alpha border in opaque black. The C specification
// (6.15.15.1.1) lists the x orders (CL_Rx, CL_RGx, CL_RGBx, CL_sRGBx) with
// the transparent border; the CTS, and so every conformant driver, treats
// them as orders without alpha, like the alpha of 1 their texels read as.
uint4 __ferrocl_img_border(uint order, uint one) {
    switch (order) {
    case ORDER_R:
    case ORDER_RG:
    case ORDER_RGB:
    case ORDER_LUMINANCE:
    case ORDER_sRGB:
    case ORDER_Rx:
    case ORDER_RGx:
    case ORDER_RGBx:
    case ORDER_sRGBx:
        return (uint4)(0u, 0u, 0u, one);
    default:
        return (uint4)(0u);
    }
}

// ---- conversions -------------------------------------------------------------

float __ferrocl_img_half_to_float(uint h) {
    uint s = (h & 0x8000u) << 16;
    uint e = (h >> 10) & 31u;
    uint m = h & 1023u;
    if (e == 31u) return as_float(s | 0x7f800000u | (m << 13));
    if (e == 0u) {
        // m * 2^-24 is exact in float.
        float f = (float)m * 5.9604644775390625e-8f;
        return s != 0u ? -f : f;
    }
    return as_float(s | ((e + 112u) << 23) | (m << 13));
}

// Round to nearest even; NaN stays NaN, overflow becomes infinity.
uint __ferrocl_img_float_to_half(float f) {
    uint b = as_uint(f);
    uint s = (b >> 16) & 0x8000u;
    uint a = b & 0x7fffffffu;
    if (a > 0x7f800000u) return s | 0x7e00u;
    // 65520 and up round to infinity.
    if (a >= 0x477ff000u) return s | 0x7c00u;
    if (a < 0x38800000u) {
        // A half denormal: the value in units of 2^-24, rounded to even
        // (1024 units is the smallest normal, which encodes the same way).
        float v = as_float(a) * 16777216.0f;
        return s | (uint)rint(v);
    }
    uint r = a - 0x38000000u;
    uint h = r >> 13;
    uint rest = r & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u) != 0u)) h += 1u;
    return s | h;
}

// Channel `c` (in memory order) of raw value `v` as a float, per the
// channel data type. Normalized channels are v * (1 / max), within 1 ulp
// of v / max (the spec allows 1.5), with 0, max and -max exact; the
// switch only picks max and its reciprocal, so the conversion itself is
// inlined once.
float __ferrocl_img_channel_f(uint type, uint v, int c) {
    int max = 0;
    float inv = 0.0f;
    int is_signed = 0;
    switch (type) {
    case TYPE_HALF_FLOAT:
        return __ferrocl_img_half_to_float(v);
    case TYPE_FLOAT:
        return as_float(v);
    case TYPE_SIGNED_INT8:
    case TYPE_SIGNED_INT16:
    case TYPE_SIGNED_INT32:
        // read_imagef of an integer image is undefined: the values.
        return (float)(int)v;
    case TYPE_UNSIGNED_INT8:
    case TYPE_UNSIGNED_INT16:
    case TYPE_UNSIGNED_INT32:
        return (float)v;
    case TYPE_UNORM_INT8:
        max = 255;
        inv = 3.921568859e-03f;
        break;
    case TYPE_UNORM_INT16:
        max = 65535;
        inv = 1.525902189e-05f;
        break;
    case TYPE_SNORM_INT8:
        max = 127;
        inv = 7.874015719e-03f;
        is_signed = 1;
        break;
    case TYPE_SNORM_INT16:
        max = 32767;
        inv = 3.051850945e-05f;
        is_signed = 1;
        break;
    case TYPE_UNORM_SHORT_565:
        max = c == 1 ? 63 : 31;
        inv = c == 1 ? 1.587301679e-02f : 3.225806355e-02f;
        break;
    case TYPE_UNORM_SHORT_555:
        max = 31;
        inv = 3.225806355e-02f;
        break;
    case TYPE_UNORM_INT_101010_2:
        max = c == 3 ? 3 : 1023;
        inv = c == 3 ? 3.333333433e-01f : 9.775171056e-04f;
        break;
    case TYPE_UNORM_INT_101010:
        max = 1023;
        inv = 9.775171056e-04f;
        break;
    default:
        // No image of another channel data type can be created.
        return 0.0f;
    }
    int x = is_signed ? (int)v : (int)(v & 0x7fffffffu);
    if (x >= max) return 1.0f;
    if (x <= -max) return -1.0f;
    return (float)x * inv;
}

// Memory-order raw channels → floats. One loop, so the conversion is
// inlined once per read rather than once per channel.
float4 __ferrocl_img_decode_f(uint type, uint4 r) {
    uint in[4] = {r.x, r.y, r.z, r.w};
    float out[4];
    for (int c = 0; c < 4; c++) out[c] = __ferrocl_img_channel_f(type, in[c], c);
    return (float4)(out[0], out[1], out[2], out[3]);
}

// round_to_nearest_even(clamp(x * max, lo, max)); NaN gives 0.
uint __ferrocl_img_norm_channel(float x, float lo, float max) {
    float v = x * max;
    if (!(v >= lo)) v = lo;
    if (v > max) v = max;
    if (isnan(x)) v = 0.0f;
    return (uint)(int)rint(v);
}

// Channel `c` (in memory order) of a float colour as its raw value, per
// the channel data type.
uint __ferrocl_img_channel_encode_f(uint type, float x, int c) {
    switch (type) {
    case TYPE_UNORM_INT8:
        return __ferrocl_img_norm_channel(x, 0.0f, 255.0f);
    case TYPE_UNORM_INT16:
        return __ferrocl_img_norm_channel(x, 0.0f, 65535.0f);
    case TYPE_SNORM_INT8:
        return __ferrocl_img_norm_channel(x, -128.0f, 127.0f);
    case TYPE_SNORM_INT16:
        return __ferrocl_img_norm_channel(x, -32768.0f, 32767.0f);
    case TYPE_UNORM_SHORT_565:
        return __ferrocl_img_norm_channel(x, 0.0f, c == 1 ? 63.0f : 31.0f);
    case TYPE_UNORM_SHORT_555:
        return __ferrocl_img_norm_channel(x, 0.0f, 31.0f);
    case TYPE_UNORM_INT_101010:
        return __ferrocl_img_norm_channel(x, 0.0f, 1023.0f);
    case TYPE_UNORM_INT_101010_2:
        return __ferrocl_img_norm_channel(x, 0.0f, c == 3 ? 3.0f : 1023.0f);
    case TYPE_HALF_FLOAT:
        return __ferrocl_img_float_to_half(x);
    default:
        return as_uint(x);
    }
}

// Floats in memory order → raw channels, one channel per loop iteration.
uint4 __ferrocl_img_encode_f(uint type, float4 m) {
    float in[4] = {m.x, m.y, m.z, m.w};
    uint out[4];
    for (int c = 0; c < 4; c++) out[c] = __ferrocl_img_channel_encode_f(type, in[c], c);
    return (uint4)(out[0], out[1], out[2], out[3]);
}

// Integers in memory order → raw channels, saturated to the channel type.
uint4 __ferrocl_img_encode_i(uint type, int4 c) {
    switch (type) {
    case TYPE_SIGNED_INT8:
        return as_uint4(clamp(c, -128, 127));
    case TYPE_SIGNED_INT16:
        return as_uint4(clamp(c, -32768, 32767));
    default:
        return as_uint4(c);
    }
}

uint4 __ferrocl_img_encode_ui(uint type, uint4 c) {
    switch (type) {
    case TYPE_UNSIGNED_INT8:
        return min(c, (uint4)(255u));
    case TYPE_UNSIGNED_INT16:
        return min(c, (uint4)(65535u));
    default:
        return c;
    }
}

// a^(1/n) for a in (0, 1]: Newton's method on z^n = a, from the estimate
// that divides the exponent by n. The estimate is within 7%, and each
// step squares the error, so six steps reach float precision. Far smaller
// than the library's pow once inlined, which matters as every read_image
// call inlines the transfer function.
float __ferrocl_img_root(float a, int n) {
    float z = as_float(0x3f800000 + (as_int(a) - 0x3f800000) / n);
    for (int k = 0; k < 6; k++) {
        float p = z;
        for (int i = 2; i < n; i++) p = p * z;
        z = ((float)(n - 1) * z + a / p) / (float)n;
    }
    return z;
}

// The sRGB transfer functions, on one channel: x^2.4 = x^2 * (x^2)^(1/5)
// and y^(1/2.4) = (y^5)^(1/12).
float __ferrocl_img_srgb_to_linear(float r) {
    if (r <= 0.04045f) return r / 12.92f;
    float t = (r + 0.055f) / 1.055f;
    float t2 = t * t;
    return t2 * __ferrocl_img_root(t2, 5);
}

float __ferrocl_img_linear_to_srgb(float y) {
    if (!(y >= 0.0f)) return 0.0f;
    if (y < 0.0031308f) return 12.92f * y;
    if (y >= 1.0f) return 1.0f;
    float y2 = y * y;
    return 1.055f * __ferrocl_img_root(y2 * y2 * y, 12) - 0.055f;
}

// ---- texels --------------------------------------------------------------------

int __ferrocl_img_inside(int4 ext, int x, int y, int z) {
    return x >= 0 && y >= 0 && z >= 0 && x < ext.x && y < ext.y && z < ext.z;
}

// The texel (x, y, z) as (R, G, B, A) floats, sRGB made linear; the border
// colour outside the image.
float4 __ferrocl_img_texel_f(ulong img, int4 ext, int x, int y, int z) {
    uint order = __ferrocl_img_field(img, 6u);
    if (!__ferrocl_img_inside(ext, x, y, z))
        return as_float4(__ferrocl_img_border(order, 0x3f800000u));
    uint type = __ferrocl_img_field(img, 7u);
    float4 m = __ferrocl_img_decode_f(type, __ferrocl_img_load_raw(img, x, y, z));
    float4 c = as_float4(__ferrocl_img_to_rgba(order, as_uint4(m), 0x3f800000u));
    if (__ferrocl_img_is_srgb(order)) {
        // Alpha stays linear; one loop inlines the transfer function once.
        float rgb[3] = {c.x, c.y, c.z};
        for (int i = 0; i < 3; i++) rgb[i] = __ferrocl_img_srgb_to_linear(rgb[i]);
        c = (float4)(rgb[0], rgb[1], rgb[2], c.w);
    }
    return c;
}

// The texel (x, y, z) as (R, G, B, A) 32-bit integers; the border colour
// outside the image.
uint4 __ferrocl_img_texel_i(ulong img, int4 ext, int x, int y, int z) {
    uint order = __ferrocl_img_field(img, 6u);
    if (!__ferrocl_img_inside(ext, x, y, z)) return __ferrocl_img_border(order, 1u);
    return __ferrocl_img_to_rgba(order, __ferrocl_img_load_raw(img, x, y, z), 1u);
}

// ---- addressing ----------------------------------------------------------------

// The addressing modes without normalized coordinates' wrapping, on the
// three axes at once.
int4 __ferrocl_img_address(uint mode, int4 i, int4 size) {
    if (mode == ADDRESS_CLAMP) return clamp(i, (int4)(-1), size);
    if (mode == ADDRESS_CLAMP_TO_EDGE) return clamp(i, (int4)(0), size - 1);
    return i;
}

// (int)floor(x) for coordinates far outside any image too.
int4 __ferrocl_img_floor(float4 x) {
    return convert_int4(floor(clamp(x, -1073741824.0f, 1073741824.0f)));
}

// The array layer a coordinate selects: clamp(rint(c), 0, layers - 1).
int __ferrocl_img_layer(float c, int layers) {
    return (int)clamp(rint(c), 0.0f, (float)(layers - 1));
}

// The texel indices of a sampled read along each axis of (x, y, z), as the
// addressing modes define them: i0 (nearest: the texel), i1 and the weight
// of i1 (linear; 0 for nearest). The three axes are one vector computation
// rather than a loop over them: llvmpipe (lavapipe) runs at most 65535
// loop iterations per shader invocation in all and skips the rest, so the
// image built-ins avoid loops of their own where they can. `dims`
// spatial coordinates come first in `coord`; `layered_axis` (1 for 1D
// arrays, 2 for 2D arrays, 0 otherwise) names the coordinate that selects
// the layer, which goes to z.
void __ferrocl_img_axes(uint smp, float4 coord, int4 ext, int dims, int layered_axis,
                        int linear, int4 *i0, int4 *i1, float4 *weight) {
    uint mode = smp & SAMPLER_ADDRESS_MASK;
    int normalized = (smp & SAMPLER_NORMALIZED) != 0u;
    int4 size = ext;
    float4 fsize = convert_float4(ext);
    int4 lo;
    int4 hi;
    float4 a = (float4)(0.0f);
    if (normalized && mode == ADDRESS_REPEAT) {
        float4 u = (coord - floor(coord)) * fsize;
        if (!linear) {
            lo = __ferrocl_img_floor(u);
            lo = select(lo, lo - size, lo > size - 1);
            hi = lo;
        } else {
            float4 t = u - 0.5f;
            lo = __ferrocl_img_floor(t);
            hi = lo + 1;
            lo = select(lo, size + lo, lo < 0);
            hi = select(hi, hi - size, hi > size - 1);
            a = t - floor(t);
        }
    } else if (normalized && mode == ADDRESS_MIRRORED_REPEAT) {
        float4 sp = fabs(coord - 2.0f * rint(0.5f * coord));
        float4 u = sp * fsize;
        if (!linear) {
            lo = min(__ferrocl_img_floor(u), size - 1);
            hi = lo;
        } else {
            float4 t = u - 0.5f;
            lo = __ferrocl_img_floor(t);
            hi = min(lo + 1, size - 1);
            lo = max(lo, (int4)(0));
            a = t - floor(t);
        }
    } else {
        float4 u = normalized ? coord * fsize : coord;
        if (!linear) {
            lo = __ferrocl_img_address(mode, __ferrocl_img_floor(u), size);
            hi = lo;
        } else {
            float4 t = u - 0.5f;
            int4 f = __ferrocl_img_floor(t);
            lo = __ferrocl_img_address(mode, f, size);
            hi = __ferrocl_img_address(mode, f + 1, size);
            a = t - floor(t);
        }
    }
    // Axes past the image's dimensions sit at index 0 with weight 0.
    int4 used = (int4)(0, 1, 2, 3) < dims;
    lo = select((int4)(0), lo, used);
    hi = select((int4)(0), hi, used);
    a = select((float4)(0.0f), a, used);
    if (layered_axis != 0) {
        float c = layered_axis == 1 ? coord.y : coord.z;
        int l = __ferrocl_img_layer(c, ext.z);
        lo.z = l;
        hi.z = l;
        a.z = 0.0f;
    }
    *i0 = lo;
    *i1 = hi;
    *weight = a;
}

// A sampled read as (R, G, B, A) floats: the 2, 4 or 8 texels of linear
// filtering weighted, or the nearest texel. The corners are a loop, so the
// texel decode is inlined once per read: written out, the eight corners
// made lavapipe's pipeline builds about four times slower. On lavapipe
// the loop spends one of the invocation's 65535 loop iterations per
// corner (none when the sampler is a constant with nearest filtering:
// the loop folds away).
float4 __ferrocl_img_sample_f(ulong img, uint smp, float4 coord, int dims, int layered_axis) {
    int4 ext = __ferrocl_img_extent(img, layered_axis);
    int linear = (smp & SAMPLER_FILTER_LINEAR) != 0u;
    int4 i0;
    int4 i1;
    float4 a;
    __ferrocl_img_axes(smp, coord, ext, dims, layered_axis, linear, &i0, &i1, &a);
    int corners = linear ? 1 << dims : 1;
    float4 sum = (float4)(0.0f);
    // A do-while: llvmpipe also counts the pass that leaves a for loop.
    int k = 0;
    do {
        int4 bit = (int4)(k, k >> 1, k >> 2, 0) & 1;
        int4 at = select(i0, i1, bit != 0);
        float4 w4 = select(1.0f - a, a, bit != 0);
        w4 = select((float4)(1.0f), w4, (int4)(0, 1, 2, 3) < dims);
        float4 t = (w4.x * w4.y * w4.z) * __ferrocl_img_texel_f(img, ext, at.x, at.y, at.z);
        // The first corner is assigned, not added, so that a nearest read
        // returns -0.0 as stored.
        sum = k == 0 ? t : sum + t;
        k++;
    } while (k < corners);
    return sum;
}

// A sampled read of an integer image: nearest filtering only (linear is
// undefined for read_imagei and read_imageui).
uint4 __ferrocl_img_sample_i(ulong img, uint smp, float4 coord, int dims, int layered_axis) {
    int4 ext = __ferrocl_img_extent(img, layered_axis);
    int4 i0;
    int4 i1;
    float4 a;
    __ferrocl_img_axes(smp, coord, ext, dims, layered_axis, 0, &i0, &i1, &a);
    return __ferrocl_img_texel_i(img, ext, i0.x, i0.y, i0.z);
}

// (x, y, z) of integer coordinates: the layer coordinate moves to z.
int4 __ferrocl_img_int_coord(int4 coord, int layered_axis) {
    if (layered_axis == 1) return (int4)(coord.x, 0, coord.y, 0);
    return coord;
}

// Sampler-less reads: nearest, unnormalized, CLK_ADDRESS_NONE.
float4 __ferrocl_img_fetch_f(ulong img, int4 coord, int layered_axis) {
    int4 ext = __ferrocl_img_extent(img, layered_axis);
    int4 c = __ferrocl_img_int_coord(coord, layered_axis);
    return __ferrocl_img_texel_f(img, ext, c.x, c.y, c.z);
}

uint4 __ferrocl_img_fetch_i(ulong img, int4 coord, int layered_axis) {
    int4 ext = __ferrocl_img_extent(img, layered_axis);
    int4 c = __ferrocl_img_int_coord(coord, layered_axis);
    return __ferrocl_img_texel_i(img, ext, c.x, c.y, c.z);
}

// ---- writes --------------------------------------------------------------------

void __ferrocl_img_write_f(ulong img, int4 coord, int layered_axis, float4 color) {
    int4 ext = __ferrocl_img_extent(img, layered_axis);
    int4 c = __ferrocl_img_int_coord(coord, layered_axis);
    if (!__ferrocl_img_inside(ext, c.x, c.y, c.z)) return;
    uint order = __ferrocl_img_field(img, 6u);
    if (__ferrocl_img_is_srgb(order)) {
        float rgb[3] = {color.x, color.y, color.z};
        for (int i = 0; i < 3; i++) rgb[i] = __ferrocl_img_linear_to_srgb(rgb[i]);
        color = (float4)(rgb[0], rgb[1], rgb[2], color.w);
    }
    float4 m = as_float4(__ferrocl_img_from_rgba(order, as_uint4(color)));
    uint4 r = __ferrocl_img_encode_f(__ferrocl_img_field(img, 7u), m);
    __ferrocl_img_store_raw(img, c.x, c.y, c.z, r);
}

void __ferrocl_img_write_i(ulong img, int4 coord, int layered_axis, int4 color) {
    int4 ext = __ferrocl_img_extent(img, layered_axis);
    int4 c = __ferrocl_img_int_coord(coord, layered_axis);
    if (!__ferrocl_img_inside(ext, c.x, c.y, c.z)) return;
    uint order = __ferrocl_img_field(img, 6u);
    int4 m = as_int4(__ferrocl_img_from_rgba(order, as_uint4(color)));
    __ferrocl_img_store_raw(img, c.x, c.y, c.z, __ferrocl_img_encode_i(__ferrocl_img_field(img, 7u), m));
}

void __ferrocl_img_write_ui(ulong img, int4 coord, int layered_axis, uint4 color) {
    int4 ext = __ferrocl_img_extent(img, layered_axis);
    int4 c = __ferrocl_img_int_coord(coord, layered_axis);
    if (!__ferrocl_img_inside(ext, c.x, c.y, c.z)) return;
    uint order = __ferrocl_img_field(img, 6u);
    uint4 m = __ferrocl_img_from_rgba(order, color);
    __ferrocl_img_store_raw(img, c.x, c.y, c.z, __ferrocl_img_encode_ui(__ferrocl_img_field(img, 7u), m));
}
