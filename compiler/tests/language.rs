//! OpenCL C language features: each kernel must build and pass spirv-val.

mod common;

use common::build;

#[test]
fn scalar_types_and_conversions() {
    build(
        "kernel void k(global int *o, global uchar *c, global long *l, global float *f,\n\
                       short s, ulong u) {\n\
           char a = -3; uchar b = 250; ushort us = 65535; uint ui = 4000000000u;\n\
           long x = a * b + s; ulong y = u >> 3;\n\
           bool flag = x > 0;\n\
           size_t sz = sizeof(float4); ptrdiff_t pd = 5; intptr_t ip = 1; uintptr_t up = 2;\n\
           o[0] = (int)x + flag + (int)sz + (int)(pd + ip + up) + us + (int)ui;\n\
           c[1] = (uchar)(b + 10);\n\
           l[2] = y * 7 - x / 3 % 5;\n\
           f[3] = (float)x * 0.5f + (float)y;\n\
           o[4] = (int)f[3];\n\
           o[5] = x << 65;\n\
         }\n",
    );
}

#[test]
fn vectors_swizzles_and_literals() {
    build(
        "kernel void k(global float4 *o, global int4 *io, float s, global float3 *t) {\n\
           float4 v = (float4)(1.0f, 2.0f, (float2)(3.0f, s));\n\
           float4 w = v * 2.0f + s;\n\
           w.xy = v.zw;\n\
           w.s3 = 7.0f;\n\
           float2 lo = w.lo, hi = w.hi, ev = w.even, od = w.odd;\n\
           int4 m = v < w;\n\
           io[0] = m & (int4)(1);\n\
           io[1] = -m;\n\
           o[0] = (float4)(lo, hi) + (float4)(ev.x, od.y, 0, 1);\n\
           o[1] = m.x ? v : w;\n\
           o[2] = select(v, w, m);\n\
           float3 q = t[0];\n\
           q.z += 1.0f;\n\
           t[1] = q.zyx;\n\
           float16 big = (float16)(s);\n\
           o[3] = big.s0123 + big.sCDEF;\n\
           uchar8 bytes = (uchar8)(1, 2, 3, 4, 5, 6, 7, 8);\n\
           io[2] = convert_int4(bytes.hi) + vec_step(bytes);\n\
           io[3] = (m != 0) ? (int4)(1) : (int4)(2);\n\
         }\n",
    );
}

#[test]
fn control_flow() {
    build(
        "kernel void k(global int *o, int n) {\n\
           int acc = 0;\n\
           for (int i = 0; i < n; i++) {\n\
             if (i == 3) continue;\n\
             if (i > 100) break;\n\
             acc += i;\n\
           }\n\
           int j = 0;\n\
           while (j < n) { j += 2; if (j == 7) break; }\n\
           do { j--; } while (j > 0 && acc != 5);\n\
           switch (n) {\n\
             case 0: acc = 1;\n\
             case 1: acc += 2; break;\n\
             case 5: { acc = 9; break; }\n\
             default: acc = -1;\n\
           }\n\
           for (;;) { if (acc > 10) break; acc++; }\n\
           o[0] = acc + j;\n\
           if (n < 0) return;\n\
           o[1] = n ? acc : j;\n\
         }\n",
    );
}

#[test]
fn helper_functions_are_inlined() {
    build(
        "int sq(int x) { return x * x; }\n\
         float clampf(float v, float lo, float hi) {\n\
           if (v < lo) return lo;\n\
           if (v > hi) return hi;\n\
           return v;\n\
         }\n\
         int find(global const int *p, int n, int key) {\n\
           for (int i = 0; i < n; i++) {\n\
             if (p[i] == key) return i;\n\
           }\n\
           return -1;\n\
         }\n\
         void store(global int *p, int v) { *p = v; }\n\
         kernel void k(global int *o, global float *f, int n) {\n\
           int i = get_global_id(0);\n\
           store(o + i, sq(i) + find(o, n, 3));\n\
           f[i] = clampf(f[i], 0.0f, 1.0f);\n\
         }\n",
    );
}

#[test]
fn structs_unions_arrays_and_pointers() {
    let p = build(
        "typedef struct { float x, y; } point;\n\
         struct particle { float4 pos; int id; char tag; };\n\
         typedef union { float f; uint u; } bits;\n\
         kernel void k(global struct particle *ps, global point *pts, point off,\n\
                       global bits *b, global int *o) {\n\
           int i = get_global_id(0);\n\
           struct particle p = ps[i];\n\
           p.pos.x += off.x;\n\
           ps[i] = p;\n\
           ps[i].id = i;\n\
           global struct particle *q = &ps[i];\n\
           q->tag = 'a';\n\
           pts[i].y = off.y;\n\
           b[i].u = b[i].u ^ 0x80000000u;\n\
           int arr[4] = {1, 2, 3, 4};\n\
           int sum = 0;\n\
           for (int j = 0; j < 4; j++) sum += arr[j];\n\
           int *pa = arr;\n\
           pa[1] = 7;\n\
           sum += *(pa + 1);\n\
           global int *g = o + 4;\n\
           o[0] = sum + (int)(g - o) + (g > o) + (q != 0);\n\
           point local_pt = { 1.0f, 2.0f };\n\
           pts[0] = local_pt;\n\
           o[1] = (int)((ulong)g & 7);\n\
         }\n",
    );
    let k = &p.kernels[0];
    let types: Vec<&str> = k.args.iter().map(|a| a.type_name.as_str()).collect();
    assert_eq!(
        types,
        ["struct particle*", "point*", "point", "bits*", "int*"]
    );
    assert_eq!(k.args[2].size, 8);
}

#[test]
fn local_memory_and_barriers() {
    let p = build(
        "kernel void reduce(global const float *in, global float *out, local float *scratch) {\n\
           uint lid = get_local_id(0);\n\
           local float tile[64];\n\
           scratch[lid] = in[get_global_id(0)];\n\
           tile[lid % 64] = scratch[lid];\n\
           barrier(CLK_LOCAL_MEM_FENCE);\n\
           for (uint s = get_local_size(0) / 2; s > 0; s >>= 1) {\n\
             if (lid < s) scratch[lid] += scratch[lid + s];\n\
             barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);\n\
           }\n\
           if (lid == 0) out[get_group_id(0)] = scratch[0] + tile[0];\n\
         }\n",
    );
    let k = &p.kernels[0];
    assert_eq!(k.args[2].local_size_spec_id, Some(3));
    assert_eq!(k.args[2].size, 0);
    assert_eq!(k.static_local_mem_size, 256);
}

#[test]
fn atomics() {
    build(
        "kernel void k(global int *c, global uint *u, local int *l, volatile global float *f) {\n\
           atomic_add(c, 1);\n\
           atom_inc(u);\n\
           atomic_dec(c + 1);\n\
           int old = atomic_cmpxchg(c + 2, 0, 5);\n\
           atomic_min(c + 3, old);\n\
           atomic_max(u + 1, 7u);\n\
           atomic_and(u + 2, 3u);\n\
           atomic_or(u + 3, 4u);\n\
           atomic_xor(u + 4, 5u);\n\
           atomic_xchg(f, 1.0f);\n\
           l[0] = 0;\n\
           barrier(CLK_LOCAL_MEM_FENCE);\n\
           atomic_add(&l[0], 2);\n\
           atomic_sub(l, 1);\n\
         }\n",
    );
}

#[test]
fn work_item_functions() {
    build(
        "kernel void k(global ulong *o, uint d) {\n\
           o[0] = get_global_id(0) + get_global_size(1) + get_local_id(2) + get_local_size(d)\n\
                + get_enqueued_local_size(0) + get_num_groups(0) + get_group_id(1)\n\
                + get_global_offset(2) + get_work_dim() + get_global_linear_id()\n\
                + get_local_linear_id() + get_global_id(d);\n\
         }\n",
    );
}

#[test]
fn math_and_common_builtins() {
    build(
        "kernel void k(global float *f, global float4 *v, global int *i, global uint4 *u) {\n\
           float x = f[0];\n\
           f[1] = sqrt(x) + rsqrt(x) + exp(x) + exp2(x) + log(x) + log2(x) + pow(x, 2.0f)\n\
                + sin(x) + cos(x) + tan(x) + fabs(x) + floor(x) + ceil(x) + round(x) + trunc(x)\n\
                + fmin(x, 1.0f) + fmax(x, 2.0f) + fma(x, x, x) + mad(x, x, 1.0f) + hypot(x, x)\n\
                + atan(x) + atan2(x, 1.0f) + exp10(x) + log10(x) + cbrt(x) + fmod(x, 3.0f)\n\
                + copysign(x, -1.0f) + pown(x, 3) + ldexp(x, 2) + native_sin(x) + half_cos(x);\n\
           float4 a = v[0];\n\
           v[1] = min(a, 1.0f) + max(a, a) + clamp(a, 0.0f, 1.0f) + mix(a, a, 0.5f) + step(0.5f, a)\n\
                + sign(a) + degrees(a) + radians(a) + smoothstep(0.0f, 1.0f, a);\n\
           f[2] = dot(a, a) + length(a) + distance(a, a) + normalize(a).x + cross(a, a).y;\n\
           int n = i[0];\n\
           i[1] = abs(n) + min(n, 3) + max(n, 4) + clamp(n, 0, 9) + mad24(n, n, n) + mul24(n, 2)\n\
                + popcount(n) + clz(n) + ctz(n) + rotate(n, 3) + add_sat(n, n) + sub_sat(n, 5)\n\
                + hadd(n, 1) + rhadd(n, 2) + mul_hi(n, n) + abs_diff(n, 1);\n\
           uint4 w = u[0];\n\
           u[1] = popcount(w) + clz(w) + rotate(w, (uint4)(1)) + add_sat(w, w) + mul_hi(w, w);\n\
           i[2] = isnan(x) + isinf(x) + isfinite(x) + signbit(x) + isequal(x, x) + isless(x, 1.0f)\n\
                + any((int4)(n)) + all((int4)(n)) + select(1, 2, n) + bitselect(n, 5, 3);\n\
           v[2] = bitselect(a, a, a) + convert_float4(isnan(a));\n\
           i[3] = convert_int_sat(x) + convert_int_rte(x) + as_int(x) + convert_uchar_sat(n);\n\
           f[3] = expm1(x) + log1p(x) + sinpi(x) + cospi(x) + tanpi(x) + atanpi(x) + atan2pi(x, x)\n\
                + maxmag(x, 1.0f) + minmag(x, 1.0f) + nan(1u) + isnormal(x) + native_divide(x, 3.0f)\n\
                + native_recip(x) + native_exp(x) + half_log(x) + native_powr(x, x) + exp10(x) + log10(x);\n\
           v[3] = exp(a) + log(a) + pow(a, a) + expm1(a) + atan2(a, a);\n\
           ulong big = upsample((uint)n, 5u);\n\
           long l = (long)big;\n\
           i[4] = (int)(clz(l) + popcount(big) + add_sat(l, l) + mul_hi(l, l));\n\
           short s = (short)n;\n\
           i[5] = clz(s) + popcount((uchar)n) + sub_sat((ushort)s, (ushort)3);\n\
         }\n",
    );
}

#[test]
fn vload_vstore() {
    build(
        "kernel void k(global float *f, global const int *c, local float *l) {\n\
           float4 v = vload4(1, f);\n\
           vstore4(v * 2.0f, 0, f);\n\
           float3 t = vload3(0, f);\n\
           vstore3(t, 2, f);\n\
           int8 q = vload8(0, c);\n\
           f[20] = (float)q.s7;\n\
           vstore2((float2)(1.0f, 2.0f), get_local_id(0), l);\n\
           float2 r = vload2(0, l);\n\
           f[21] = r.y;\n\
           global half *h = (global half *)f;\n\
           vstore_half(r.x, 0, h);\n\
           vstore_half4_rte(v, 1, h);\n\
           vstorea_half3(t, 1, h);\n\
           f[23] = vloada_half3(1, h).z + vloada_half4(0, h).w;\n\
           f[22] = vload_half(0, h) + vload_half4(1, h).w;\n\
         }\n",
    );
}

#[test]
fn program_scope_constants_and_attributes() {
    let p = build(
        "constant float table[4] = { 1.0f, 2.0f, 3.0f, 4.0f };\n\
         __constant int scale = 3;\n\
         constant float4 base = (float4)(1.0f, 2.0f, 3.0f, 4.0f);\n\
         enum mode { ADD, MUL = 4, SUB };\n\
         __kernel __attribute__((reqd_work_group_size(64, 1, 1)))\n\
         __attribute__((vec_type_hint(float4)))\n\
         void k(global float *o, constant float *coeffs, read_only int m) {\n\
           int i = get_global_id(0);\n\
           o[i] = table[i & 3] * scale + coeffs[i] + base.y + (m == SUB ? 1.0f : 0.0f);\n\
         }\n\
         __kernel __attribute__((work_group_size_hint(8, 8, 1))) void k2(global int *o) { o[0] = MUL; }\n",
    );
    assert_eq!(p.kernels.len(), 2);
    let k = &p.kernels[0];
    assert_eq!(k.reqd_work_group_size, Some([64, 1, 1]));
    assert_eq!(k.vec_type_hint.as_deref(), Some("float4"));
    assert_eq!(
        k.args[1].address_qualifier,
        ferrocl_compiler::AddressQualifier::Constant
    );
    assert_eq!(p.kernels[1].work_group_size_hint, Some([8, 8, 1]));
    assert!(p.kernels[1]
        .attributes
        .contains("work_group_size_hint(8,8,1)"));
}

#[test]
fn many_arguments_go_to_a_buffer() {
    let p = build(
        "kernel void k(global float *o, float16 a, float16 b, float4 c) {\n\
           o[0] = a.s0 + b.sf + c.w;\n\
         }\n",
    );
    let k = &p.kernels[0];
    assert_eq!(k.arg_block, ferrocl_compiler::ArgBlock::Buffer);
    assert_eq!(k.args[1].offset, 64);
    assert_eq!(k.args[2].offset, 128);
    assert_eq!(k.args[3].offset, 192);
}

#[test]
fn ternary_with_side_effects_and_short_circuit() {
    build(
        "int bump(global int *p) { return (*p)++; }\n\
         kernel void k(global int *o, int n) {\n\
           int a = n > 2 ? bump(o) : o[1]++;\n\
           if (n > 0 && bump(o + 1) > 3) a++;\n\
           if (n < 0 || bump(o + 2)) a--;\n\
           o[3] = a, o[4] = n;\n\
         }\n",
    );
}

/// A read through a pointer that `&&`, `||` or `?:` guards is made only
/// where the guard lets it: the guard usually keeps it inside the buffer,
/// and a read outside one faults on a GPU. No global load may sit in the
/// kernel's entry block, before the first branch.
#[test]
fn guarded_reads_are_not_made_ahead_of_their_guard() {
    let p = build(
        "kernel void k(global const int *p, global int *o, uint n) {\n\
           uint i = get_global_id(0);\n\
           int a = (i < n && p[i] > 0) ? 1 : 0;\n\
           int b = i >= n || p[i] < 0;\n\
           int c = i < n ? p[i] : 7;\n\
           int d = i < n ? *(p + i) : 0;\n\
           o[0] = a + b + c + d;\n\
         }\n",
    );
    let text = common::disassemble(&p.spirv);
    let mut labels = 0;
    let mut guarded = 0;
    for line in text.lines() {
        if line.contains("OpLabel") {
            labels += 1;
        }
        if line.contains("OpLoad") && line.contains("Aligned") {
            assert!(labels > 1, "a global read ahead of its guard:\n{text}");
            guarded += 1;
        }
    }
    assert_eq!(guarded, 4, "{text}");
}

#[test]
fn switch_default_in_the_middle_falls_through() {
    build(
        "kernel void k(global int *o, int n) {\n\
           int a = 0;\n\
           switch (n) {\n\
             case 1: a += 1;\n\
             default: a += 2;\n\
             case 3: a += 3; break;\n\
             case 4: a += 4;\n\
           }\n\
           switch (n) { case 9: a = 9; }\n\
           long l = n;\n\
           switch (l) { case 5000000000L: a = 1; break; case -1: a = 2; }\n\
           o[0] = a;\n\
         }\n",
    );
}

#[test]
fn doubles_with_fp64() {
    let mut caps = common::caps();
    caps.fp64 = true;
    common::build_caps(
        "kernel void k(global double *d, global float *f, double s) {\n\
           double x = d[0] * s + 1.0;\n\
           d[1] = sqrt(x) + fabs(x) + floor(x) + fma(x, x, x) + fmin(x, 2.0);\n\
           f[0] = (float)x;\n\
           double2 v = (double2)(x, 2.0);\n\
           d[2] = dot(v, v) + convert_double(f[1]) + M_PI;\n\
           d[3] = exp(x) + log(x) + pow(x, s) + sin(x) + cos(x) + tan(x) + atan2(x, s) + asin(x)\n\
                + acos(x) + sinh(x) + cosh(x) + tanh(x) + expm1(x) + log1p(x) + cbrt(x) + exp2(x)\n\
                + exp10(x) + log2(x) + log10(x) + atan(x);\n\
           double4 w = exp((double4)(x));\n\
           d[4] = w.w;\n\
         }\n",
        &caps,
    );
}

#[test]
fn reinterpreted_local_memory_uses_the_word_pool() {
    let p = build(
        "typedef struct { char c; int i; } pair;\n\
         kernel void k(global int *o, local float *scratch, local uchar *bytes) {\n\
           local float4 tile[8];\n\
           local pair pairs[4];\n\
           uint lid = get_local_id(0);\n\
           scratch[lid] = (float)lid;\n\
           tile[lid % 8] = (float4)(scratch[lid]);\n\
           bytes[lid] = (uchar)lid;\n\
           pairs[lid % 4].c = 'x';\n\
           barrier(CLK_LOCAL_MEM_FENCE);\n\
           local float4 *v = (local float4 *)scratch;\n\
           local uint *words = (local uint *)bytes;\n\
           o[lid] = (int)v[0].y + words[0] + (int)tile[1].x + pairs[0].c;\n\
           atomic_add((local int *)scratch, 1);\n\
           local long *l = (local long *)tile;\n\
           l[1] = -5;\n\
           o[lid + 64] = (int)(l[1] + (local short *)bytes - (local short *)bytes);\n\
         }\n",
    );
    let k = &p.kernels[0];
    assert_eq!(k.args[1].local_size_spec_id, Some(3));
    assert_eq!(k.args[2].local_size_spec_id, Some(4));
    assert_eq!(k.static_local_mem_size, 128 + 32);
}

#[test]
fn reinterpreted_private_memory_uses_the_word_pool() {
    build(
        "uint sum(const uchar *p, int n) { uint s = 0; for (int i = 0; i < n; i++) s = s * 31 + p[i]; return s; }\n\
         kernel void k(global const float *in, global uint *out) {\n\
           int i = get_global_id(0);\n\
           float f = in[i];\n\
           int pair[2] = { i, -i };\n\
           uchar *b = (uchar *)&f;\n\
           b[3] ^= 0x80;\n\
           out[i] = sum((const uchar *)&f, 4) + sum((const uchar *)pair, 8) + as_uint(f);\n\
         }\n",
    );
}

#[test]
fn async_copies_and_events() {
    build(
        "kernel void k(global int *out, local int *tile) {\n\
           event_t e = async_work_group_copy(tile, out + 256, 64, 0);\n\
           wait_group_events(1, &e);\n\
           out[get_global_id(0)] = tile[(get_local_id(0) + 1) % 64];\n\
           event_t e2 = async_work_group_strided_copy(out + 600, tile, 8, 2, 0);\n\
           wait_group_events(1, &e2);\n\
           prefetch(out, 4);\n\
         }\n",
    );
}

#[test]
fn unions_in_private_and_local_memory() {
    build(
        "typedef union { float f; uint u; uchar b[4]; } pun;\n\
         typedef struct { int tag; pun v; } tagged;\n\
         pun make(float f) { pun p; p.f = f; return p; }\n\
         kernel void k(global uint *out, pun arg) {\n\
           local pun lp[4];\n\
           lp[get_local_id(0) % 4].f = 1.0f;\n\
           pun p = { 2.0f };\n\
           p.b[3] ^= 0x80;\n\
           tagged t = { 7, { 0.5f } };\n\
           out[0] = p.u + make(3.0f).u + t.v.u + arg.u + lp[0].b[2];\n\
           global pun *g = (global pun *)out;\n\
           g[1] = p;\n\
         }\n",
    );
}

#[test]
fn unions_in_functions_no_kernel_calls() {
    // Uncalled functions are still checked; those taking or declaring
    // unions (pyopencl's complex helpers, most of them unused by any one
    // kernel) must check as they would when called. Their pool variables
    // reuse offsets: a `const` one must not make a later one at the same
    // offset read-only (nor a kernel's another kernel's).
    build(
        "typedef union { struct { float x, y; }; struct { float real, imag; }; } cf;\n\
         inline float cf_real(cf a) { return a.real; }\n\
         inline cf cf_new(float r, float i) { cf c; c.real = r; c.imag = i; return c; }\n\
         inline float limited(cf a) { const float limit = 2.0f; return a.real > limit ? limit : a.real; }\n\
         inline float assigned(cf z) { float b; b = z.imag; return b; }\n\
         kernel void k(global float *out) { out[0] = 1.0f; }\n\
         kernel void k2(global float *out) { const float c = 2.0f; out[0] = c; }\n\
         kernel void k3(global float *out) { float d; d = 3.0f; out[0] = d; }\n",
    );
}

#[test]
fn shuffles_and_math_with_pointer_outputs() {
    build(
        "kernel void k(global float4 *o, global int4 *io, global float *f, global int *i) {\n\
           float4 x = o[0], y = o[1];\n\
           o[2] = shuffle2(x, y, (uint4)(7, 0, 5, 2));\n\
           io[0] = shuffle(io[1], (uint4)(3, 3, 0, 1));\n\
           float8 wide = shuffle(x, (uint8)(0, 1, 2, 3, 3, 2, 1, 0));\n\
           o[3] = wide.hi;\n\
           float whole, fl, c; int e, q;\n\
           f[0] = fract(f[1], &fl) + modf(f[2], &whole) + frexp(f[3], &e)\n\
                + remquo(f[4], 0.75f, &q) + sincos(f[5], &c) + remainder(f[6], 2.0f);\n\
           i[0] = e + q + (int)(whole + fl + c);\n\
           float4 w4; int4 e4;\n\
           o[4] = fract(x, &w4) + frexp(y, &e4);\n\
           fract(x, o + 5);\n\
         }\n",
    );
}

#[test]
fn fast_relaxed_math_uses_native_instructions() {
    // sin: exp stays in the library under relaxed math (its Vulkan bound is
    // looser than OpenCL's relaxed one).
    let src = "kernel void k(global float *f) { f[0] = sin(f[1]) + f[2] * f[3] + f[4]; }\n";
    let caps = common::caps();
    let req = |options| ferrocl_compiler::CompileRequest {
        source: src,
        options,
        headers: &[],
    };
    let precise = ferrocl_compiler::compile(&req(""), &caps).expect("builds");
    let fast = ferrocl_compiler::compile(&req("-cl-fast-relaxed-math"), &caps).expect("builds");
    common::validate(&fast.spirv);
    let (p, f) = (
        common::disassemble(&precise.spirv),
        common::disassemble(&fast.spirv),
    );
    if p.is_empty() {
        return;
    }
    assert!(p.contains("NoContraction") && !f.contains("NoContraction"));
    assert!(f.contains(" Sin ") && !p.contains(" Sin "));
}

#[test]
fn statement_attributes_and_array_values() {
    build(
        "typedef struct { float v[4]; } box;\n\
         box make(float x) { box b; for (int i = 0; i < 4; i++) b.v[i] = x + i; return b; }\n\
         kernel void k(global float *o, int n) {\n\
           float s = 0.0f;\n\
           __attribute__((opencl_unroll_hint(4)))\n\
           for (int i = 0; i < n; i++) s += o[i];\n\
           #pragma unroll\n\
           for (int i = 0; i < 2; i++) s += 1.0f;\n\
           o[0] = s + make(2.0f).v[n & 3];\n\
         }\n",
    );
}

#[test]
fn unqualified_pointers_take_the_address_space_they_are_given() {
    build(
        "float sum(const float *p, int n) { float s = 0; for (int i = 0; i < n; i++) s += p[i]; return s; }\n\
         void put(int *p, int v) { *p = v; }\n\
         kernel void k(global float *g, global int *o, local int *l) {\n\
           float priv[2] = { 1.0f, 2.0f };\n\
           put(l + get_local_id(0), 1);\n\
           global int *q = o + 4;\n\
           put(q, (int)(sum(g, 4) + sum(priv, 2)));\n\
         }\n",
    );
}

#[test]
fn pointers_to_rows_of_two_dimensional_arrays() {
    build(
        "float rowsum(local float *row) { float s = 0; for (int i = 0; i < 8; i++) s += row[i]; return s; }\n\
         kernel void k(global float *o) {\n\
           local float tile[8][8];\n\
           uint lid = get_local_id(0);\n\
           tile[lid / 8][lid % 8] = (float)lid;\n\
           barrier(CLK_LOCAL_MEM_FENCE);\n\
           local float *row;\n\
           if (lid < 8) row = tile[lid]; else row = tile[0];\n\
           float priv[3][2] = { {1, 2}, {3, 4}, {5, 6} };\n\
           float *pr = priv[lid % 3];\n\
           o[lid] = rowsum(row) + pr[1] + rowsum(&tile[lid % 8][0]);\n\
         }\n",
    );
}

#[test]
fn printf_records_and_reflection() {
    let p = build(
        "void say(int i) { printf(\"item %d\\n\", i); }\n\
         kernel void k(global float4 *o, uint n) {\n\
           int r = printf(\"%s %f %v4f %lu %c %p\\n\", \"hello\", o[0].x, o[1], (ulong)n, 'a', o);\n\
           say(r);\n\
         }\n\
         kernel void quiet(global int *o) { o[0] = 1; }\n",
    );
    assert_eq!(
        p.printf_strings,
        ["%s %f %v4f %lu %c %p\n", "hello", "item %d\n"]
    );
    let k = &p.kernels[0];
    assert!(k.uses_printf);
    // Arguments 8 + 4 bytes, then the buffer address 8-aligned.
    assert_eq!(k.args_size, 24);
    assert!(!p.kernels[1].uses_printf);
    assert_eq!(p.kernels[1].args_size, 8);
}

#[test]
fn more_math_builtins() {
    build(
        "kernel void k(global float *f, global int *i, global float4 *v) {\n\
           f[0] = logb(f[1]) + nextafter(f[2], 0.0f) + rootn(f[3], 3) + pown(f[4], 3);\n\
           i[0] = ilogb(f[5]) + mad_sat(i[1], i[2], i[3]);\n\
           v[0] = pown(v[1], (int4)(2)) + rootn(v[2], (int4)(3)) + convert_float4(ilogb(v[3]));\n\
         }\n",
    );
}

#[test]
fn directed_rounding_conversions() {
    let mut caps = common::caps();
    caps.fp64 = true;
    common::build_caps(
        "kernel void k(global float4 *o, global int4 *i, global ulong *l, global double *d) {\n\
           o[0] = convert_float4_rtz(i[0]) + convert_float4_rtp(i[1]) + convert_float4_rtn(i[2]);\n\
           o[1].x = convert_float_rtp(l[0]) + convert_float_rtn(d[0]) + convert_float_rtz(d[1]);\n\
         }\n",
        &caps,
    );
}

#[test]
fn signed_division_uses_signed_types_and_no_srem() {
    let p = build("kernel void k(global int *o, global long *l) { o[0] = o[1] / o[2] + o[3] % o[4]; l[0] %= l[1]; }\n");
    let text = common::disassemble(&p.spirv);
    if text.is_empty() {
        return;
    }
    // NVIDIA's driver gets OpSRem wrong for negative operands: the
    // remainder is built from a signed division.
    assert!(!text.contains("OpSRem"), "{text}");
    assert!(
        text.contains("OpTypeInt 32 1") && text.contains("OpSDiv"),
        "{text}"
    );
}

#[test]
fn unreachable_code_is_checked_but_not_emitted() {
    build(
        "int f(int x) { if (x) return 1; else return 2; return 3; }\n\
         kernel void k(global int *o, int n) {\n\
           for (int j = 0; j < n; j++) { break; if (j == 2) continue; o[j] = 1; }\n\
           for (int j = 0; j < n; j++) { if (j) break; else continue; o[j] = 2; }\n\
           switch (n) { case 1: o[0] = 1; break; int y = 5; o[1] = y; case 2: y = 3; o[2] = y; }\n\
           o[3] = f(n);\n\
           if (n > 100) { for (;;) { o[4]++; } o[5] = 1; }\n\
           return;\n\
           o[6] = 7;\n\
         }\n",
    );
    let log = common::build_error("kernel void k(global int *o) { return; o[0] = nope; }\n");
    assert!(log.contains("nope"), "{log}");
}

#[test]
fn pointers_into_program_scope_constants() {
    build(
        "constant float table[4] = { 1.0f, 2.0f, 3.0f, 4.0f };\n\
         float sum(constant float *p, int n) { float s = 0; for (int i = 0; i < n; i++) s += p[i]; return s; }\n\
         kernel void k(global float *o) {\n\
           constant float *t = table + 1;\n\
           o[0] = sum(table, 4) + t[1] + *t + sum(t, 3);\n\
         }\n",
    );
    let log = common::build_error(
        "constant float table[2] = { 1.0f, 2.0f };\n\
         kernel void k(global int *o) { constant float *t = table; t[0] = 5.0f; }\n",
    );
    assert!(log.contains("cannot assign"), "{log}");
}

#[test]
fn vec_step_of_three_component_vectors_is_four() {
    // A negative array size is an error, so this builds only when the
    // constant vec_step of a 3-vector type is 4.
    build(
        "kernel void k(global int *o, global float3 *f) {\n\
           int check[vec_step(float3) == 4 ? 1 : -1];\n\
           check[0] = vec_step(f[0]) + vec_step(int3) + vec_step(uchar16);\n\
           o[0] = check[0];\n\
         }\n",
    );
    let log = common::build_error(
        "kernel void k(global int *o) { int check[vec_step(char3) == 3 ? 1 : -1]; o[0] = check[0]; }\n",
    );
    assert!(log.contains("array size must be a positive"), "{log}");
}

#[test]
fn vector_literal_of_a_cast_operand() {
    build(
        "kernel void k(global char2 *c, global float4 *f, int x) {\n\
           c[0] = (char2)(char)0;\n\
           c[1] = (char2)((char)x, (char)1);\n\
           f[0] = (float4)((float)x, 1.0f, 2, 3);\n\
           f[1] = (float4)(float)x;\n\
         }\n",
    );
}

#[test]
fn limit_macros() {
    build(
        "kernel void k(global int *o, global float *f) {\n\
           o[0] = CHAR_BIT + INT_MAX + FLT_DIG + FLT_MANT_DIG + FP_ILOGB0 + FP_ILOGBNAN;\n\
           f[0] = MAXFLOAT + HUGE_VALF + INFINITY + NAN + M_PI_F + FLT_EPSILON;\n\
         }\n",
    );
    let mut caps = common::caps();
    caps.fp64 = true;
    common::build_caps(
        "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n\
         kernel void k(global int *o, global double *d) {\n\
           o[0] = DBL_DIG + DBL_MANT_DIG + DBL_MAX_10_EXP + DBL_MAX_EXP + DBL_MIN_10_EXP + DBL_MIN_EXP;\n\
           d[0] = DBL_MAX + DBL_MIN + DBL_EPSILON + M_PI + M_SQRT1_2 + HUGE_VAL;\n\
         }\n",
        &caps,
    );
}

#[test]
fn pi_scaled_inverse_trig_degrees_and_64_bit_mad_sat() {
    build(
        "kernel void k(global float4 *f, global long8 *l, global ulong3 *u) {\n\
           float4 x = f[0];\n\
           f[1] = asinpi(x) + acospi(x) + atanpi(x) + atan2pi(x, x.s0);\n\
           f[2] = (float4)(asinpi(x.s1), acospi(x.s2), 0, 0);\n\
           l[1] = mad_sat(l[0], l[0], l[2]);\n\
           u[1] = mad_sat(u[0], u[0], u[2]);\n\
           long s = mad_sat(l[0].s0, 3L, 5L);\n\
           l[3] = (long8)(s);\n\
         }\n",
    );
    let mut caps = common::caps();
    caps.fp64 = true;
    common::build_caps(
        "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n\
         kernel void k(global double4 *d, global double *s) {\n\
           double4 x = d[0];\n\
           d[1] = degrees(x) + radians(x);\n\
           d[2] = asinpi(x) + acospi(x) + atanpi(x) + atan2pi(x, x);\n\
           s[0] = degrees(s[1]) + radians(s[2]) + acospi(s[3]);\n\
         }\n",
        &caps,
    );
}

#[test]
fn mul_hi_and_mad_hi_on_wide_64_bit_vectors() {
    build(
        "kernel void k(global long8 *a, global ulong16 *b, global int8 *c) {\n\
           a[1] = mul_hi(a[0], a[2]);\n\
           a[3] = mad_hi(a[0], a[2], a[1]);\n\
           b[1] = mul_hi(b[0], b[2]);\n\
           b[3] = mad_hi(b[0], b[2], b[1]);\n\
           c[1] = mul_hi(c[0], c[2]);\n\
         }\n",
    );
}

#[test]
fn hi_lo_even_odd_of_three_component_vectors() {
    build(
        "kernel void k(global float3 *f, global float2 *o, global int3 *v) {\n\
           float3 a = f[0];\n\
           o[0] = a.lo; o[1] = a.hi; o[2] = a.even; o[3] = a.odd;\n\
           o[4] = f[1].hi + vload3(0, (global float *)f).odd;\n\
           int3 b = v[0];\n\
           b.hi = (int2)(7, 8);\n\
           b.lo = b.hi;\n\
           b.odd += (int2)(1);\n\
           v[1] = b;\n\
           v[2].hi = (int2)(1, 2);\n\
         }\n",
    );
}

#[test]
fn local_private_and_constant_pointers_as_integers() {
    // Typed variables, then the same with `__local` and `__private` in the
    // word pools (a cast to a `__local`/`__private` pointer puts them there).
    for reinterpret in ["", "o[9] = *(local uchar *)c + *(private uchar *)pi;\n"] {
        build(&format!(
            "constant int tab[4] = {{1, 2, 3, 4}};\n\
             kernel void k(global ulong *o, local float *lp) {{\n\
               local char c[3]; local short4 s4[2];\n\
               private char pc[3]; private int4 pi[2];\n\
               c[0] = 1; s4[0] = (short4)(1); pc[0] = 2; pi[0] = (int4)(3);\n\
               o[0] = (ulong)&c[0]; o[1] = (ulong)&s4[1]; o[2] = (ulong)(lp + 3);\n\
               o[3] = (ulong)&pc[1]; o[4] = (ulong)pi; o[5] = (ulong)&tab[2];\n\
               o[6] = (uint)(&s4[1]) - (uint)(&s4[0]);\n\
               o[7] = ((size_t)&pi[1] & 15) == 0;\n\
               o[8] = (uintptr_t)&pc[0] < (uintptr_t)&pc[2];\n\
               {reinterpret}\
             }}\n"
        ));
    }
}

#[test]
fn vector_condition_with_scalar_arms() {
    build(
        "kernel void k(global int4 *p, global long8 *q, global float2 *f, int c) {\n\
           p[0] = p[1] > 3 ? 5 : 7;\n\
           p[1] = p[2] > 3 ? p[3] : 7;\n\
           q[0] = q[1] > 3 ? 5L : q[2];\n\
           q[1] = c ? q[1] : 2;\n\
           f[0] = (int2)(c, 0) ? 1.5f : f[1];\n\
         }\n",
    );
}

/// A dynamic read of an 8- or 16-component value (which SPIR-V holds as an
/// array) stores the value to a `Function` variable once per block, however
/// many components are read: the CTS's shuffle kernels (32 shuffles of
/// `long16` with constant masks) had a variable per result component, 64 KiB
/// of stack per work-item, and NVIDIA's driver refused the pipeline.
#[test]
fn wide_shuffles_store_each_source_once() {
    let shuffles = 8;
    let mut src = String::from("kernel void k(global long16 *s, global long16 *d) {\n");
    for i in 0..shuffles {
        let mask: Vec<String> = (0..16).map(|c| ((c * 7 + i) % 16).to_string()).collect();
        src += &format!(
            "  d[{i}] = shuffle(s[{i}], (ulong16)({}));\n",
            mask.join(", ")
        );
    }
    src += "}\n";
    let p = build(&src);
    let text = common::disassemble(&p.spirv);
    let function_vars = text
        .lines()
        .filter(|l| l.contains("OpVariable") && l.contains("Function"))
        .count();
    assert!(
        (shuffles..2 * shuffles).contains(&function_vars),
        "{function_vars} Function variables for {shuffles} shuffles of long16"
    );
}

/// The CTS's vector_creation builds each double16 from scalars and vloads
/// at constant offsets. Each access should cost one address add and one
/// load per 4-component piece: constant index arithmetic is folded, offsets
/// chain into one add, and a vload8/16 moves as 4-component vectors.
#[test]
fn constant_offset_vloads_fold_their_address_arithmetic() {
    let src = "kernel void k(global long *src, global long16 *result) {
  result[0] = (long16)(src[0], vload2(0, src + 1), vload8(0, src + 3), vload4(0, src + 11), src[15]);
  result[1] = vload16(0, src + 1);
}";
    let p = build(src);
    let text = common::disassemble(&p.spirv);
    // What the same kernel with an empty body has (the early return of a
    // kernel that ignores its work-groups) is not the accesses'.
    let empty = common::disassemble(
        &build("kernel void k(global long *src, global long16 *result) {}").spirv,
    );
    let count = |needle: &str| {
        let n = |t: &str| t.lines().filter(|l| l.contains(needle)).count();
        n(&text) - n(&empty)
    };
    // Loads through physical pointers: 1 + 1 + 2 + 1 + 1 for result[0], 4
    // for result[1].
    let loads = text
        .lines()
        .filter(|l| l.contains("OpLoad") && l.contains("Aligned"))
        .count();
    assert_eq!(loads, 10, "{text}");
    assert_eq!(count("OpIMul"), 0, "constant index products are folded");
    assert_eq!(
        count("OpSConvert"),
        0,
        "constant index widenings are folded"
    );
    // One add per access at a non-zero offset: src + 1, 3, 7, 11 and 15
    // for result[0]; result + 128 and src + 1, 5, 9, 13 for result[1]; and
    // three per store, for the 4-component pieces after the first.
    assert_eq!(count("OpIAdd"), 5 + 5 + 2 * 3, "{text}");
}

/// A library math function on 8 or 16 components runs in a loop over the
/// components, so its body is inlined once, not once per component.
#[test]
fn wide_library_calls_inline_the_function_once() {
    let words = |ty: &str| {
        let src = format!(
            "kernel void k(global {ty} *a, global {ty} *b) {{
  size_t i = get_global_id(0);
  b[i] = lgamma(a[i]) + pow(a[i], b[i]);
}}"
        );
        build(&src).spirv.len()
    };
    let scalar = words("float");
    for wide in ["float8", "float16"] {
        let size = words(wide);
        assert!(
            size < 2 * scalar,
            "{wide}: {size} words of SPIR-V against {scalar} for float"
        );
    }
    // Up to four components stay inlined one after another.
    assert!(words("float4") > 3 * scalar);
}

/// Pragmas in a row before a statement are read one after the other, not
/// as nesting: a thousand of them build, the loop after them keeps its
/// hint, and a pragma between a loop's head and its body leaves the body
/// to the statement after it.
#[test]
fn pragmas_in_a_row_and_between_a_statement_and_its_body() {
    let many = "#pragma unroll\n".repeat(1000);
    build(&format!(
        "kernel void k(global int *o, int n) {{\n\
         {many}for (int i = 0; i < 4; i++) o[i] = i;\n\
         for (int a = 0; a < n; a++)\n\
         #pragma unroll 2\n\
         for (int b = 0; b < 4; b++) o[a * 4 + b] += a;\n\
         #pragma unroll\n\
         }}\n"
    ));
}
