//! The OpenCL C of every benchmark workload. The same source runs on every
//! platform, so the comparison is between implementations, not kernels.

/// Global memory bandwidth: each work-item reads `iters` vectors of
/// `TYPE` a whole NDRange apart (consecutive work-items read consecutive
/// vectors) and writes their sum once.
pub fn bandwidth(vector: &str) -> String {
    format!(
        r#"
__kernel void bandwidth(__global const {vector} *in, __global {vector} *out, uint iters) {{
    size_t gid = get_global_id(0);
    size_t stride = get_global_size(0);
    {vector} sum = ({vector})(0.0f);
    for (uint i = 0; i < iters; ++i)
        sum += in[gid + i * stride];
    out[gid] = sum;
}}
"#
    )
}

/// Peak arithmetic: chains of dependent multiply-adds on a 4-wide vector
/// (`mad` for floating point, `a * b + c` for integers), 16 per loop trip
/// in two interleaved chains. `out` keeps the result alive.
pub fn compute(scalar: &str, mad_expr: &str, pragma: &str) -> String {
    let v = format!("{scalar}4");
    let step = |a: &str, b: &str| mad_expr.replace("A", a).replace("B", b);
    let mut body = String::new();
    for _ in 0..8 {
        body.push_str(&format!("        x = {};\n", step("y", "x")));
        body.push_str(&format!("        y = {};\n", step("x", "y")));
    }
    format!(
        r#"{pragma}
__kernel void compute(__global {v} *out, float seed, uint iters) {{
    {v} x = ({v})(({scalar})seed);
    {v} y = ({v})(({scalar})get_local_id(0));
    for (uint i = 0; i < iters; ++i) {{
{body}    }}
    out[get_global_id(0)] = x + y;
}}
"#
    )
}

/// The integer dot product row's step: each lane of `b` plus the dot
/// product of the four bytes of `a`'s and `b`'s lanes (cl_khr_integer_dot_product).
pub const DOT4: &str = r#"
uint4 dot4(uint4 a, uint4 b) {
    return (uint4)(dot_4x8packed_uu_uint(a.x, b.x), dot_4x8packed_uu_uint(a.y, b.y),
                   dot_4x8packed_uu_uint(a.z, b.z), dot_4x8packed_uu_uint(a.w, b.w)) + b;
}
"#;

/// A kernel that does nothing, for launch overhead.
pub const EMPTY: &str = "__kernel void empty(__global uint *unused) { }\n";

/// A kernel that reads what the launch before it wrote: a stream of them
/// is a chain of dependent launches, each waiting for the last to finish.
/// Not named `step`, the built-in function: PoCL refuses that kernel name.
pub const STEP: &str = "__kernel void count_step(__global uint *counter) { counter[0] += 1u; }\n";

/// Five kernels for the cold-build measurement; the caller prefixes a
/// unique `#define SALT` (never a launch's `n`), which `axpy`, the kernel
/// launched, compares with. A comment alone would leave the SPIR-V the same
/// from build to build, and a Vulkan pipeline cache (ferrocl's
/// `VkPipelineCache`, a driver's shader cache) would answer every build
/// after the first.
pub const BUILD_FIVE: &str = r#"
__kernel void axpy(__global float *y, __global const float *x, float a, uint n) {
    uint i = get_global_id(0);
    if (i < n && n != SALT) y[i] = a * x[i] + y[i];
}
__kernel void scale_rows(__global float *m, __global const float *s, uint cols) {
    uint r = get_global_id(1), c = get_global_id(0);
    if (c < cols) m[r * cols + c] *= s[r];
}
__kernel void histogram(__global const uint *in, __global uint *bins, uint n) {
    uint i = get_global_id(0);
    if (i < n) atomic_inc(&bins[in[i] & 63u]);
}
__kernel void block_sum(__global const float *in, __global float *out, __local float *tmp) {
    uint l = get_local_id(0);
    tmp[l] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = get_local_size(0) / 2; s > 0; s >>= 1) {
        if (l < s) tmp[l] += tmp[l + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0) out[get_group_id(0)] = tmp[0];
}
__kernel void mandel(__global uint *out, uint w, uint h, uint max_iter) {
    uint px = get_global_id(0), py = get_global_id(1);
    if (px >= w || py >= h) return;
    float cx = -2.0f + 3.0f * px / w, cy = -1.5f + 3.0f * py / h;
    float x = 0.0f, y = 0.0f;
    uint it = 0;
    while (x * x + y * y < 4.0f && it < max_iter) {
        float t = x * x - y * y + cx;
        y = 2.0f * x * y + cy;
        x = t;
        ++it;
    }
    out[py * w + px] = it;
}
"#;

/// Tiled single-precision matrix multiply, C = A * B, n a multiple of 16.
pub const SGEMM: &str = r#"
#define TS 16
__kernel void sgemm(__global const float *A, __global const float *B, __global float *C, uint n) {
    __local float As[TS][TS + 1];
    __local float Bs[TS][TS + 1];
    uint col = get_global_id(0), row = get_global_id(1);
    uint lc = get_local_id(0), lr = get_local_id(1);
    float acc = 0.0f;
    for (uint t = 0; t < n; t += TS) {
        As[lr][lc] = A[row * n + t + lc];
        Bs[lr][lc] = B[(t + lr) * n + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint k = 0; k < TS; ++k)
            acc = mad(As[lr][k], Bs[k][lc], acc);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[row * n + col] = acc;
}
"#;

/// Sum of a float array: grid-stride accumulation, then a tree in local
/// memory; one partial sum per work-group (summed on the host).
pub const REDUCE: &str = r#"
__kernel void reduce(__global const float4 *in, __global float *partial, __local float *tmp, uint n4) {
    uint l = get_local_id(0);
    float4 acc = (float4)(0.0f);
    for (uint i = get_global_id(0); i < n4; i += get_global_size(0))
        acc += in[i];
    tmp[l] = acc.x + acc.y + acc.z + acc.w;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = get_local_size(0) / 2; s > 0; s >>= 1) {
        if (l < s) tmp[l] += tmp[l + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0) partial[get_group_id(0)] = tmp[0];
}
"#;

/// Inclusive prefix sum of uints, 256 per work-group (Hillis-Steele in
/// local memory), each group's total into `sums`; `add_base` then adds the
/// scanned totals of the groups before. Also the scan of radix sort.
pub const SCAN: &str = r#"
#define WG 256
__kernel void scan_block(__global const uint *in, __global uint *out, __global uint *sums, uint n) {
    __local uint a[WG];
    __local uint b[WG];
    uint l = get_local_id(0), g = get_global_id(0);
    a[l] = g < n ? in[g] : 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint off = 1; off < WG; off <<= 1) {
        uint v = a[l];
        if (l >= off) v += a[l - off];
        barrier(CLK_LOCAL_MEM_FENCE);
        b[l] = v;
        barrier(CLK_LOCAL_MEM_FENCE);
        a[l] = b[l];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (g < n) out[g] = a[l];
    if (l == WG - 1) sums[get_group_id(0)] = a[l];
}
__kernel void add_base(__global uint *data, __global const uint *scanned_sums, uint n) {
    uint g = get_global_id(0), grp = get_group_id(0);
    if (grp > 0 && g < n) data[g] += scanned_sums[grp - 1];
}
"#;

/// All-pairs gravitational acceleration with softening, bodies staged
/// through local memory a work-group at a time.
pub const NBODY: &str = r#"
__kernel void nbody(__global const float4 *pos, __global float4 *acc, __local float4 *tile, uint n, float eps2) {
    uint i = get_global_id(0), l = get_local_id(0), wg = get_local_size(0);
    float4 p = pos[i];
    float3 a = (float3)(0.0f);
    for (uint base = 0; base < n; base += wg) {
        tile[l] = pos[base + l];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint j = 0; j < wg; ++j) {
            float4 q = tile[j];
            float3 d = q.xyz - p.xyz;
            float r2 = dot(d, d) + eps2;
            float inv = rsqrt(r2);
            float s = q.w * inv * inv * inv;
            a += d * s;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    acc[i] = (float4)(a, 0.0f);
}
"#;

/// 5x5 convolution of a float image with clamped borders; the filter in
/// `__constant` memory.
pub const CONV2D: &str = r#"
#define R 2
__kernel void conv2d(__global const float *img, __global float *out, __constant float *filt, int w, int h) {
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h) return;
    float sum = 0.0f;
    for (int dy = -R; dy <= R; ++dy) {
        int yy = clamp(y + dy, 0, h - 1);
        for (int dx = -R; dx <= R; ++dx) {
            int xx = clamp(x + dx, 0, w - 1);
            sum = mad(img[yy * w + xx], filt[(dy + R) * (2 * R + 1) + dx + R], sum);
        }
    }
    out[y * w + x] = sum;
}
"#;

/// One 4-bit pass of a least-significant-digit radix sort of uints over
/// blocks of 256 keys: `radix_block` sorts each block stably by the digit
/// (four 1-bit splits in local memory) and records per block how many keys
/// have each digit (`hist[digit * blocks + block]`) and where each digit's
/// run starts in the block; after a scan of `hist`, `radix_scatter` moves
/// every key to its global place.
pub const RADIX: &str = r#"
#define WG 256
__kernel void radix_block(__global const uint *in, __global uint *sorted, __global uint *hist, __global uint *starts, uint shift, uint blocks) {
    __local uint keys[WG];
    __local uint a[WG];
    __local uint b[WG];
    __local uint first[16];
    __local uint last[16];
    uint l = get_local_id(0), grp = get_group_id(0);
    uint key = in[grp * WG + l];
    for (uint bit = 0; bit < 4; ++bit) {
        uint one = (key >> (shift + bit)) & 1u;
        a[l] = 1u - one;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint off = 1; off < WG; off <<= 1) {
            uint v = a[l];
            if (l >= off) v += a[l - off];
            barrier(CLK_LOCAL_MEM_FENCE);
            b[l] = v;
            barrier(CLK_LOCAL_MEM_FENCE);
            a[l] = b[l];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        uint zeros_through = a[l];
        uint zeros = a[WG - 1];
        uint zeros_before = zeros_through - (1u - one);
        uint pos = one ? zeros + (l - zeros_before) : zeros_before;
        barrier(CLK_LOCAL_MEM_FENCE);
        keys[pos] = key;
        barrier(CLK_LOCAL_MEM_FENCE);
        key = keys[l];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l < 16) {
        first[l] = 0u;
        last[l] = 0u;
    }
    keys[l] = key;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint d = (key >> shift) & 15u;
    if (l == 0 || ((keys[l - 1] >> shift) & 15u) != d) first[d] = l;
    if (l == WG - 1 || ((keys[l + 1] >> shift) & 15u) != d) last[d] = l + 1;
    barrier(CLK_LOCAL_MEM_FENCE);
    sorted[grp * WG + l] = key;
    if (l < 16) {
        hist[l * blocks + grp] = last[l] - first[l];
        starts[grp * 16 + l] = first[l];
    }
}
__kernel void radix_scatter(__global const uint *sorted, __global const uint *hist, __global const uint *hist_scan, __global const uint *starts, __global uint *out, uint shift, uint blocks) {
    uint l = get_local_id(0), grp = get_group_id(0);
    uint key = sorted[grp * WG + l];
    uint d = (key >> shift) & 15u;
    uint at = d * blocks + grp;
    uint base = hist_scan[at] - hist[at];
    out[base + l - starts[grp * 16 + d]] = key;
}
"#;
