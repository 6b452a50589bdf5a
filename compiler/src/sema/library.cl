// Built-in functions written in OpenCL C, compiled by this compiler and
// inlined where called. They exist where the Vulkan precision of the
// GLSL.std.450 instruction is looser than the OpenCL single-precision bound
// (exp, log and pow carry errors that grow with the argument on Vulkan;
// atan loses relative precision near 0). The algorithms: argument reduction
// by powers of two with a constant split in a short head and a tail so the
// head product is exact, then a short polynomial on the reduced range.

// e^r for |r| <= ln(2)/2: the Taylor series to r^8 is below 2^-30 there.
float __ferrocl_exp_poly(float r) {
    // 1 + (r + r^2 (...)): the sum with 1 is the only rounding near 1.
    return 1.0f + (r + r * r * (0.5f + r * (0.16666667f + r * (0.041666668f
        + r * (0.008333334f + r * (0.0013888889f + r * (0.0001984127f + r * 0.0000248016f)))))));
}

// p * 2^k in two steps, so neither step leaves the float range early.
float __ferrocl_scale(float p, float k) {
    int n = (int)k;
    int h = n / 2;
    return ldexp(ldexp(p, h), n - h);
}

float __ferrocl_exp(float x) {
    if (isnan(x)) return x;
    if (x > 88.72284f) return INFINITY;
    if (x < -103.97208f) return 0.0f;
    float n = rint(x * 1.44269504f);
    // ln 2 = 0.693145751953125 (exact in 16 bits) + 1.4286068e-6.
    float r = (x - n * 0.693145751953125f) - n * 1.4286068203094172e-6f;
    return __ferrocl_scale(__ferrocl_exp_poly(r), n);
}

float __ferrocl_exp2(float x) {
    if (isnan(x)) return x;
    if (x >= 128.0f) return INFINITY;
    if (x < -150.0f) return 0.0f;
    float n = rint(x);
    float r = (x - n) * 0.6931472f;
    return __ferrocl_scale(__ferrocl_exp_poly(r), n);
}

float __ferrocl_exp10(float x) {
    if (isnan(x)) return x;
    if (x > 38.5318394f) return INFINITY;
    if (x < -45.1544993f) return 0.0f;
    float n = rint(x * 3.321928f);
    // log10(2) = 0.301025390625 (exact in 13 bits) + 4.6050389811952135e-6.
    float r = ((x - n * 0.301025390625f) - n * 4.6050389811952135e-6f) * 2.3025851f;
    return __ferrocl_scale(__ferrocl_exp_poly(r), n);
}

// For finite x > 0: (e, log(m)) with x = m * 2^e and m in [sqrt(1/2), sqrt(2)).
float2 __ferrocl_log_parts(float x) {
    int e = 0;
    if (x < 1.17549435e-38f) {
        x = x * 8388608.0f;
        e = -23;
    }
    uint b = as_uint(x);
    e += (int)(b >> 23) - 127;
    float m = as_float((b & 0x007fffffu) | 0x3f800000u);
    if (m > 1.41421356f) {
        m = m * 0.5f;
        e += 1;
    }
    // log(1 + f) = 2 atanh(s) with s = f / (2 + f), |s| < 0.172.
    float f = m - 1.0f;
    float s = f / (2.0f + f);
    float z = s * s;
    float r = z * (0.6666667f + z * (0.4f + z * (0.2857143f + z * (0.22222222f + z * 0.18181819f))));
    return (float2)((float)e, f - s * (f - r));
}

float __ferrocl_log_special(float x) {
    if (x < 0.0f) return NAN;
    if (x == 0.0f) return -INFINITY;
    return x;
}

float __ferrocl_log(float x) {
    if (isnan(x) || isinf(x) || x <= 0.0f) return __ferrocl_log_special(x);
    float2 p = __ferrocl_log_parts(x);
    return p.x * 0.693145751953125f + (p.x * 1.4286068203094172e-6f + p.y);
}

float __ferrocl_log2(float x) {
    if (isnan(x) || isinf(x) || x <= 0.0f) return __ferrocl_log_special(x);
    float2 p = __ferrocl_log_parts(x);
    // 1/ln 2 = 1.4426950216293334961 + 1.925963033500011079e-8.
    return p.x + (p.y * 1.925963033500011079e-8f + p.y * 1.4426950216293334961f);
}

float __ferrocl_log10(float x) {
    if (isnan(x) || isinf(x) || x <= 0.0f) return __ferrocl_log_special(x);
    float2 p = __ferrocl_log_parts(x);
    // log10(2) split as in exp10; 1/ln 10 = 0.43429448190325182.
    return p.x * 0.301025390625f + (p.x * 4.6050389811952135e-6f + p.y * 0.43429448190325182f);
}

float __ferrocl_pow(float x, float y) {
    if (y == 0.0f || x == 1.0f) return 1.0f;
    if (isnan(x) || isnan(y)) return x + y;
    float ax = fabs(x);
    int y_int = floor(y) == y;
    int y_odd = y_int && fabs(y) < 16777216.0f && (((int)y) & 1) != 0;
    if (isinf(y)) {
        if (ax == 1.0f) return 1.0f;
        return ((ax > 1.0f) == (y > 0.0f)) ? INFINITY : 0.0f;
    }
    if (x == 0.0f) {
        float z = y < 0.0f ? INFINITY : 0.0f;
        return y_odd ? copysign(z, x) : z;
    }
    if (isinf(x)) {
        float z = y < 0.0f ? 0.0f : INFINITY;
        return (x < 0.0f && y_odd) ? -z : z;
    }
    if (x < 0.0f && !y_int) return NAN;
    float2 p = __ferrocl_log_parts(ax);
    float t = p.y * 1.4426950216293334961f + p.y * 1.925963033500011079e-8f;
    // y * (e + t): y's head has 12 bits, so its product with e is exact.
    float yh = as_float(as_uint(y) & 0xfffff000u);
    float yl = y - yh;
    float a = yh * p.x;
    float b = yl * p.x + y * t;
    float n = rint(a + b);
    float z;
    if (n > 128.0f) {
        z = INFINITY;
    } else if (n < -151.0f) {
        z = 0.0f;
    } else {
        float f = (a - n) + b;
        z = __ferrocl_scale(__ferrocl_exp_poly(f * 0.6931472f), n);
    }
    return (x < 0.0f && y_odd) ? -z : z;
}

float __ferrocl_atan(float x) {
    if (isnan(x)) return x;
    float ax = fabs(x);
    float base;
    float t;
    // atan(ax) = atan(c) + atan((ax - c) / (1 + c ax)) for a nearby c.
    if (ax < 0.4375f) {
        base = 0.0f;
        t = ax;
    } else if (ax < 0.6875f) {
        base = 0.46364760900080611f;
        t = (ax - 0.5f) / (1.0f + 0.5f * ax);
    } else if (ax < 1.1875f) {
        base = 0.78539816339744831f;
        t = (ax - 1.0f) / (ax + 1.0f);
    } else if (ax < 2.4375f) {
        base = 0.98279372324732907f;
        t = (ax - 1.5f) / (1.0f + 1.5f * ax);
    } else {
        base = 1.5707963267948966f;
        t = -1.0f / ax;
    }
    float z = t * t;
    float s = t - t * z * (0.33333334f - z * (0.2f - z * (0.14285715f - z * (0.11111111f
        - z * (0.09090909f - z * (0.07692308f - z * (0.06666667f - z * (0.05882353f - z * 0.05263158f))))))));
    float r = base + s;
    return copysign(r, x);
}

float __ferrocl_atan2(float y, float x) {
    if (isnan(x) || isnan(y)) return x + y;
    if (isinf(x) || isinf(y)) {
        float a = isinf(y) ? (isinf(x) ? (x > 0.0f ? 0.78539816f : 2.3561945f) : 1.5707964f)
                           : (x > 0.0f ? 0.0f : 3.1415927f);
        return copysign(a, y);
    }
    if (x == 0.0f) {
        if (y == 0.0f) return copysign(signbit(x) ? 3.1415927f : 0.0f, y);
        return copysign(1.5707964f, y);
    }
    float r;
    if (fabs(y) > fabs(x)) {
        r = 1.5707963267948966f - __ferrocl_atan(fabs(x / y));
        if (x < 0.0f) r = 3.1415926535897932f - r;
    } else {
        r = __ferrocl_atan(fabs(y / x));
        if (x < 0.0f) r = 3.1415926535897932f - r;
    }
    return copysign(r, y);
}

float __ferrocl_expm1(float x) {
    if (fabs(x) < 0.5f) {
        // exp(x) - 1 without the cancellation: the Taylor series less its 1.
        return x * (1.0f + x * (0.5f + x * (0.16666667f + x * (0.041666668f + x * (0.008333334f
            + x * (0.0013888889f + x * (0.0001984127f + x * (0.0000248016f + x * 0.0000027557319f))))))));
    }
    if (x > 88.72284f) return INFINITY;
    if (x < -17.4f) return -1.0f;
    return __ferrocl_exp(x) - 1.0f;
}

float __ferrocl_log1p(float x) {
    if (isnan(x) || x == INFINITY) return x;
    if (x == -1.0f) return -INFINITY;
    if (x < -1.0f) return NAN;
    float u = 1.0f + x;
    if (u == 1.0f) return x;
    // log(u) plus the first-order term of what rounding 1 + x lost.
    return __ferrocl_log(u) + (x - (u - 1.0f)) / u;
}

// sin(pi r) for |r| <= 1, folded to |r| <= 1/2 where pi r keeps its precision.
float __ferrocl_sinpi_reduced(float r) {
    if (r > 0.5f) r = 1.0f - r;
    if (r < -0.5f) r = -1.0f - r;
    return sin(3.14159265358979f * r);
}

float __ferrocl_sinpi(float x) {
    if (isnan(x) || isinf(x)) return NAN;
    float r = x - 2.0f * rint(0.5f * x);
    float s = __ferrocl_sinpi_reduced(r);
    return s == 0.0f ? copysign(0.0f, x) : s;
}

float __ferrocl_cospi(float x) {
    if (isnan(x) || isinf(x)) return NAN;
    float r = fabs(x - 2.0f * rint(0.5f * x));
    return __ferrocl_sinpi_reduced(0.5f - r);
}

float __ferrocl_tanpi(float x) {
    return __ferrocl_sinpi(x) / __ferrocl_cospi(x);
}

float __ferrocl_atanpi(float x) {
    return __ferrocl_atan(x) * 0.31830988618379067f;
}

float __ferrocl_atan2pi(float y, float x) {
    return __ferrocl_atan2(y, x) * 0.31830988618379067f;
}

// Scaling by the rounded 1/pi adds at most 1.5 ulp to the error of asin and
// acos, which stays inside asinpi's and acospi's 5 ulp (icd's execution tests
// measure it).
float __ferrocl_asinpi(float x) {
    return __ferrocl_asin(x) * 0.31830988618379067f;
}

float __ferrocl_acospi(float x) {
    return __ferrocl_acos(x) * 0.31830988618379067f;
}

// e^ax / 2 for ax >= 9, without overflowing where the result still fits:
// exp(ax - ln 2) with the subtraction exact (ln 2's head has 16 bits).
float __ferrocl_half_exp(float ax) {
    return __ferrocl_exp(ax - 0.693145751953125f) * 0.99999857f;
}

float __ferrocl_sinh(float x) {
    float ax = fabs(x);
    float r;
    if (isnan(x)) return x;
    if (ax < 0.5f) {
        float z = ax * ax;
        r = ax + ax * z * (0.16666667f + z * (0.008333334f + z * (0.0001984127f + z * 2.7557319e-6f)));
    } else if (ax < 9.0f) {
        float em = __ferrocl_expm1(ax);
        r = 0.5f * (em + em / (em + 1.0f));
    } else {
        r = __ferrocl_half_exp(ax);
    }
    return copysign(r, x);
}

float __ferrocl_cosh(float x) {
    float ax = fabs(x);
    if (isnan(x)) return x;
    if (ax < 9.0f) {
        float e = __ferrocl_exp(ax);
        return 0.5f * e + 0.5f / e;
    }
    return __ferrocl_half_exp(ax);
}

float __ferrocl_tanh(float x) {
    float ax = fabs(x);
    if (isnan(x)) return x;
    float r;
    if (ax < 9.0f) {
        float em = __ferrocl_expm1(2.0f * ax);
        r = em / (em + 2.0f);
    } else {
        r = 1.0f;
    }
    return copysign(r, x);
}

float __ferrocl_asinh(float x) {
    float ax = fabs(x);
    if (isnan(x) || isinf(x)) return x;
    float r;
    if (ax < 2.44140625e-4f) {
        r = ax;
    } else if (ax < 2.0f) {
        float z = ax * ax;
        r = __ferrocl_log1p(ax + z / (1.0f + sqrt(1.0f + z)));
    } else if (ax < 1.0e18f) {
        r = __ferrocl_log(2.0f * ax + 1.0f / (sqrt(ax * ax + 1.0f) + ax));
    } else {
        r = __ferrocl_log(ax) + 0.6931472f;
    }
    return copysign(r, x);
}

float __ferrocl_acosh(float x) {
    if (isnan(x) || x < 1.0f) return NAN;
    if (isinf(x)) return x;
    if (x < 2.0f) {
        float t = x - 1.0f;
        return __ferrocl_log1p(t + sqrt(2.0f * t + t * t));
    }
    if (x < 1.0e18f) {
        return __ferrocl_log(2.0f * x - 1.0f / (x + sqrt(x * x - 1.0f)));
    }
    return __ferrocl_log(x) + 0.6931472f;
}

float __ferrocl_atanh(float x) {
    float ax = fabs(x);
    if (isnan(x) || ax > 1.0f) return NAN;
    if (ax == 1.0f) return copysign(INFINITY, x);
    float r;
    if (ax < 0.5f) {
        float t = ax + ax;
        r = 0.5f * __ferrocl_log1p(t + t * ax / (1.0f - ax));
    } else {
        r = 0.5f * __ferrocl_log1p((ax + ax) / (1.0f - ax));
    }
    return copysign(r, x);
}

// asin on [0, 1/2]: its Taylor series, whose coefficients are
// (2k)! / (4^k (k!)^2 (2k + 1)).
float __ferrocl_asin_small(float x) {
    float z = x * x;
    return x + x * z * (0.16666667f + z * (0.075f + z * (0.044642858f + z * (0.030381944f
        + z * (0.022372159f + z * (0.017352764f + z * (0.01396484375f + z * (0.011551800f
        + z * (0.009761609f + z * 0.008390335f)))))))));
}

float __ferrocl_asin(float x) {
    float ax = fabs(x);
    if (isnan(x) || ax > 1.0f) return NAN;
    if (ax <= 0.5f) return __ferrocl_asin_small(x);
    // asin(a) = pi/2 - 2 asin(sqrt((1 - a) / 2)), pi/2 split in head and tail.
    float s = sqrt(0.5f * (1.0f - ax));
    float r = (1.5707963705062866f - 2.0f * __ferrocl_asin_small(s)) - 4.371139000186243e-8f;
    return copysign(r, x);
}

float __ferrocl_acos(float x) {
    float ax = fabs(x);
    if (isnan(x) || ax > 1.0f) return NAN;
    if (ax <= 0.5f) {
        return (1.5707963705062866f - __ferrocl_asin_small(x)) - 4.371139000186243e-8f;
    }
    float s = sqrt(0.5f * (1.0f - ax));
    float a = 2.0f * __ferrocl_asin_small(s);
    if (x > 0.0f) return a;
    return (3.1415927410125732f - a) - 8.742278000372485e-8f;
}

float __ferrocl_cbrt(float x) {
    if (isnan(x) || isinf(x) || x == 0.0f) return x;
    float ax = fabs(x);
    float scale = 1.0f;
    // Scaled up well before the denormal range: near FLT_MIN the Newton
    // residual y^3 - ax is itself denormal, and a device that flushes
    // denormals would stop the iteration at the first guess.
    if (ax < 1.0e-30f) {
        ax = ax * 16777216.0f;
        scale = 0.00390625f;
    }
    if (ax > 1.0e36f) {
        // Keeps y^3 in the Newton steps below overflow: 2^-123 = (2^-41)^3.
        ax = ax * 9.40395481e-38f;
        scale = 2199023255552.0f;
    }
    // A first guess from the exponent bits divided by three, then Newton.
    float y = as_float(as_uint(ax) / 3u + 0x2a51067fu);
    y = y - (y * y * y - ax) / (3.0f * y * y);
    y = y - (y * y * y - ax) / (3.0f * y * y);
    y = y - (y * y * y - ax) / (3.0f * y * y);
    // A last step with the residual split, so rounding of y^3 does not bias it.
    float y2 = y * y;
    float y3 = y2 * y;
    float e = fma(y2, y, -y3);
    y = y - ((y3 - ax) + e) / (3.0f * y2);
    return copysign(y * scale, x);
}

// Word i of the binary expansion of 2/pi (0.a2f9836e 4e441529 ...).
uint __ferrocl_two_over_pi_word(int i) {
    switch (i) {
    case 0: return 0xa2f9836eu;
    case 1: return 0x4e441529u;
    case 2: return 0xfc2757d1u;
    case 3: return 0xf534ddc0u;
    case 4: return 0xdb629599u;
    case 5: return 0x3c439041u;
    case 6: return 0xfe5163abu;
    case 7: return 0xdebbc561u;
    default: return 0u;
    }
}

// 32 bits of 2/pi starting at fraction bit j (0 is the first); bits before
// the binary point are 0.
uint __ferrocl_two_over_pi_bits(int j) {
    if (j <= -32) return 0u;
    if (j < 0) return __ferrocl_two_over_pi_word(0) >> (uint)(-j);
    int w = j / 32;
    int s = j % 32;
    uint hi = __ferrocl_two_over_pi_word(w);
    if (s == 0) return hi;
    return (hi << (uint)s) | (__ferrocl_two_over_pi_word(w + 1) >> (uint)(32 - s));
}

// |x| = q * pi/2 + r, q mod 4 and |r| <= pi/4, for any finite x, by exact
// integer multiplication of x's mantissa with the bits of 2/pi that matter
// (Payne and Hanek's method). r comes as a head and a tail: (q, hi, lo).
float3 __ferrocl_reduce_pio2(float x) {
    float ax = fabs(x);
    if (ax <= 0.78539816f) return (float3)(0.0f, ax, 0.0f);
    uint b = as_uint(ax);
    int e = (int)(b >> 23) - 150;
    ulong m = (ulong)((b & 0x007fffffu) | 0x00800000u);
    // Bits of 2/pi from weight 2^(1-e) down: earlier ones only add
    // multiples of 4 to m * 2^e * 2/pi.
    int j = e - 2;
    ulong p0 = (ulong)__ferrocl_two_over_pi_bits(j);
    ulong p1 = (ulong)__ferrocl_two_over_pi_bits(j + 32);
    ulong p2 = (ulong)__ferrocl_two_over_pi_bits(j + 64);
    ulong t2 = m * p2;
    ulong t1 = m * p1 + (t2 >> 32);
    ulong t0 = m * p0 + (t1 >> 32);
    // The product is t0 * 2^64 + (t1 mod 2^32) * 2^32 + (t2 mod 2^32), in
    // units of 2^-94: its bits from 94 up are the quadrant, the 64 below
    // them the fraction.
    ulong frac = (t0 << 34) | ((t1 & 0xffffffffUL) << 2) | ((t2 & 0xffffffffUL) >> 30);
    // Round to the nearest quadrant: a fraction of 1/2 or more belongs to
    // the next one, as a negative remainder.
    uint q = (uint)((t0 >> 30) + (frac >> 63)) & 3u;
    long sf = (long)frac;
    float f_hi = (float)sf;
    float f_lo = (float)(sf - (long)f_hi);
    // (f_hi + f_lo) * 2^-64 * pi/2 with pi/2 * 2^-64 split in two floats.
    float hi = f_hi * 8.515304e-20f;
    float lo = f_hi * -2.3695991e-27f + f_lo * 8.515304e-20f;
    float r = hi + lo;
    return (float3)((float)q, r, lo - (r - hi));
}

float __ferrocl_sin_poly(float hi, float lo) {
    float z = hi * hi;
    return hi + (lo + hi * z * (-0.16666667f + z * (0.008333334f + z * (-0.0001984127f
        + z * (2.7557319e-6f + z * -2.5052108e-8f)))));
}

float __ferrocl_cos_poly(float hi, float lo) {
    float z = hi * hi;
    return 1.0f + (z * (-0.5f + z * (0.041666668f + z * (-0.0013888889f
        + z * (2.4801588e-5f + z * (-2.7557319e-7f + z * 2.0876757e-9f))))) - hi * lo);
}

float __ferrocl_sin(float x) {
    if (isnan(x) || isinf(x)) return NAN;
    float3 r = __ferrocl_reduce_pio2(x);
    int q = (int)r.x;
    float v;
    if (q == 0) v = __ferrocl_sin_poly(r.y, r.z);
    else if (q == 1) v = __ferrocl_cos_poly(r.y, r.z);
    else if (q == 2) v = -__ferrocl_sin_poly(r.y, r.z);
    else v = -__ferrocl_cos_poly(r.y, r.z);
    return x < 0.0f ? -v : v;
}

float __ferrocl_cos(float x) {
    if (isnan(x) || isinf(x)) return NAN;
    float3 r = __ferrocl_reduce_pio2(x);
    int q = (int)r.x;
    if (q == 0) return __ferrocl_cos_poly(r.y, r.z);
    if (q == 1) return -__ferrocl_sin_poly(r.y, r.z);
    if (q == 2) return -__ferrocl_cos_poly(r.y, r.z);
    return __ferrocl_sin_poly(r.y, r.z);
}

float __ferrocl_tan(float x) {
    if (isnan(x) || isinf(x)) return NAN;
    float3 r = __ferrocl_reduce_pio2(x);
    int q = (int)r.x;
    float s = __ferrocl_sin_poly(r.y, r.z);
    float c = __ferrocl_cos_poly(r.y, r.z);
    float t = (q & 1) ? -c / s : s / c;
    return x < 0.0f ? -t : t;
}

// mad_sat on 64-bit integers: a * b + c in 128 bits (hi:lo), then clamped.
long __ferrocl_mad_sat_i64(long a, long b, long c) {
    ulong lo = (ulong)a * (ulong)b;
    long hi = mul_hi(a, b);
    ulong sum = lo + (ulong)c;
    // c sign-extended into the high word, plus the carry out of the low one.
    hi += (c < 0 ? -1L : 0L) + (sum < lo ? 1L : 0L);
    // The result fits a long when the high word is the low word's sign.
    if (hi == ((long)sum >> 63)) return (long)sum;
    return hi < 0 ? LONG_MIN : LONG_MAX;
}

ulong __ferrocl_mad_sat_u64(ulong a, ulong b, ulong c) {
    ulong lo = a * b;
    ulong sum = lo + c;
    if (mul_hi(a, b) != 0 || sum < lo) return ULONG_MAX;
    return sum;
}

int __ferrocl_ilogb(float x) {
    if (isnan(x)) return 2147483647;
    if (isinf(x)) return 2147483647;
    if (x == 0.0f) return -2147483647 - 1;
    uint b = as_uint(fabs(x));
    if (b < 0x00800000u) {
        // A subnormal: its exponent from the leading one of the mantissa.
        return -127 - (int)clz(b) + 9;
    }
    return (int)(b >> 23) - 127;
}

float __ferrocl_logb(float x) {
    if (isnan(x)) return x;
    if (isinf(x)) return INFINITY;
    if (x == 0.0f) return -INFINITY;
    return (float)__ferrocl_ilogb(x);
}

float __ferrocl_nextafter(float x, float y) {
    if (isnan(x) || isnan(y)) return x + y;
    if (x == y) return y;
    if (x == 0.0f) return copysign(as_float(1u), y);
    uint b = as_uint(x);
    // Away from zero when y is further out on x's side, else towards it.
    int away = (x < y) == (x > 0.0f);
    return as_float(away ? b + 1u : b - 1u);
}

// nextafter of half values, held exactly in floats: one step is the half
// ulp at x (2^-24 below the normal range), half of it when x steps towards
// zero from a power of two. Going through float's own nextafter would move
// by a float ulp, which rounds back to x.
float __ferrocl_nextafter_h(float x, float y) {
    if (isnan(x) || isnan(y)) return x + y;
    if (x == y) return y;
    if (x == 0.0f) return copysign(5.9604644775390625e-8f, y);
    if (isinf(x)) return copysign(65504.0f, x);
    float ax = fabs(x);
    int e = max(__ferrocl_ilogb(ax), -14);
    float step = as_float((uint)(e + 117) << 23);
    int away = (x < y) == (x > 0.0f);
    if (!away && e > -14 && ax == as_float((uint)(e + 127) << 23)) step *= 0.5f;
    // Beyond 65504 the result rounds to infinity when it becomes a half;
    // towards zero from the smallest subnormal keeps x's sign.
    return away ? x + copysign(step, x) : copysign(x - copysign(step, x), x);
}

float __ferrocl_rootn(float x, int n) {
    if (n == 0 || isnan(x) || (x < 0.0f && (n & 1) == 0)) return NAN;
    if (x == 0.0f || isinf(x)) {
        // 0 and infinity swap for negative n; odd roots keep x's sign.
        float z = ((x == 0.0f) == (n < 0)) ? INFINITY : 0.0f;
        return (n & 1) != 0 ? copysign(z, x) : z;
    }
    return copysign(__ferrocl_pow(fabs(x), 1.0f / (float)n), x);
}

// ---- erf, erfc, tgamma and lgamma in float -------------------------------
// Used where the device has no doubles (with doubles, the float built-ins
// are the double ones rounded once). Same scheme as the double versions,
// with float-sized fits.

float __ferrocl_erf_small(float x) {
    float z = x * x;
    return x * (1.12837917f + z * (-0.376126389f + z * (0.112837917f + z * (-0.0268661706f + z * (0.00522397763f + z * (-0.000854832702f + z * (0.00012055333f + z * (-1.49256504e-05f + z * (1.64621144e-06f + z * (-1.63658447e-07f + z * (1.48071928e-08f + z * (-1.22905553e-09f))))))))))));
}

float __ferrocl_erfcx(float x) {
    if (x < 1.5f) {
        float u = 2.0f * x - 2.0f;
        return 0.427583576f + u * (-0.136606007f + u * (0.0385928767f + u * (-0.00990336882f + u * (0.00234837744f + u * (-0.000520701729f + u * (0.00010860542f + u * (-2.15823292e-05f + u * (4.44406658e-06f + u * (-8.03504756e-07f)))))))));
    }
    if (x < 2.5f) {
        float u = 2.0f * x - 4.0f;
        return 0.255395676f + u * (-0.0533982298f + u * (0.010450688f + u * (-0.00193259529f + u * (0.000340048365f + u * (-5.7183674e-05f + u * (9.24942968e-06f + u * (-1.51734098e-06f + u * (2.28148401e-07f))))))));
    }
    if (x < 4.0f) {
        float u = (x - 3.25f) * 1.33333333f;
        return 0.166335348f + u * (-0.0353995517f + u * (0.00727722521f + u * (-0.0014493393f + u * (0.000280344697f + u * (-5.27736296e-05f + u * (9.66531911e-06f + u * (-1.73256031e-06f + u * (3.27157883e-07f + u * (-5.59768697e-08f)))))))));
    }
    float u = 32.0f / (x * x) - 1.0f;
    return (0.985055706f + u * (-0.0143104471f + u * (0.000591285595f + u * (-3.87477966e-05f + u * (3.39232728e-06f + u * (-3.65619401e-07f + u * (4.84933833e-08f + u * (-7.04255539e-09f)))))))) / (x * 1.77245385f);
}

// e^(-x^2) with x^2 split into an exact head (12 bits squared) and a tail.
float __ferrocl_exp_neg_square(float x) {
    float h = as_float(as_uint(x) & 0xfffff000u);
    float l = x - h;
    return __ferrocl_exp(-(h * h)) * __ferrocl_exp(-(l * (x + h)));
}

float __ferrocl_erfc_pos(float x) {
    if (x > 10.1f) return 0.0f;
    return __ferrocl_exp_neg_square(x) * __ferrocl_erfcx(x);
}

float __ferrocl_erf(float x) {
    if (isnan(x)) return x;
    float ax = fabs(x);
    if (ax <= 1.0f) return __ferrocl_erf_small(x);
    if (ax >= 4.0f) return copysign(1.0f, x);
    return copysign(1.0f - __ferrocl_erfc_pos(ax), x);
}

float __ferrocl_erfc(float x) {
    if (isnan(x)) return x;
    if (x >= 0.5f) return __ferrocl_erfc_pos(x);
    if (x > -1.0f) return 1.0f - __ferrocl_erf_small(x);
    if (x < -4.0f) return 2.0f;
    return 2.0f - __ferrocl_erfc_pos(-x);
}

// 1 / Gamma(1 + t) for t in [0, 1], given u = 2t - 1.
float __ferrocl_rgamma1(float u) {
    return 1.12837917f + u * (-0.0205872731f + u * (-0.13166361f + u * (0.0218878858f + u * (0.0031854409f + u * (-0.00131782865f + u * (0.000103283018f + u * (1.72148862e-05f + u * (-4.28132456e-06f))))))));
}

// a * b = p + e exactly (Dekker's product, Veltkamp's 12-bit split).
float2 __ferrocl_split(float a) {
    // Scaled by 2^-14 where 4097 a could overflow, and back.
    int big = fabs(a) > 8.0e34f;
    float s = big ? a * 6.10351562e-05f : a;
    float c = 4097.0f * s;
    float hi = c - (c - s);
    float lo = s - hi;
    return big ? (float2)(hi * 16384.0f, lo * 16384.0f) : (float2)(hi, lo);
}

float2 __ferrocl_two_prod(float a, float b) {
    float p = a * b;
    float2 x = __ferrocl_split(a);
    float2 y = __ferrocl_split(b);
    float e = ((x.x * y.x - p) + x.x * y.y + x.y * y.x) + x.y * y.y;
    return (float2)(p, e);
}

float2 __ferrocl_ff_mul(float2 a, float b) {
    float2 p = __ferrocl_two_prod(a.x, b);
    float e = p.y + a.y * b;
    float s = p.x + e;
    return (float2)(s, e - (s - p.x));
}

float __ferrocl_tgamma(float x) {
    if (isnan(x) || x == INFINITY) return x;
    if (x == 0.0f) return 1.0f / x;
    if (x < 0.0f && (isinf(x) || floor(x) == x)) return NAN;
    if (x > 35.0401f) return INFINITY;
    if (x >= 1.0f) {
        int n = (int)x - 1;
        float t = x - (float)(n + 1);
        float r = __ferrocl_rgamma1(2.0f * t - 1.0f);
        // From 1 / r as a float-float, so the product stays below Gamma(x).
        float q = 1.0f / r;
        float2 qr = __ferrocl_two_prod(q, r);
        float2 p = (float2)(q, ((1.0f - qr.x) - qr.y) / r);
        for (int j = 1; j <= n; j++) {
            p = __ferrocl_ff_mul(p, x - (float)j);
        }
        return p.x + p.y;
    }
    if (x > 0.0f) return (1.0f / x) / __ferrocl_rgamma1(2.0f * x - 1.0f);
    // Gamma(x) = Gamma(2 + x) / (x (1 + x)) on (-1, 0).
    if (x > -1.0f) return (1.0f / x) / (__ferrocl_rgamma1(2.0f * x + 1.0f) * (x + 1.0f));
    if (x < -50.0f) return (((int)floor(x)) & 1) != 0 ? -0.0f : 0.0f;
    int m = -(int)floor(x);
    float t = x + (float)m;
    float g = 1.0f / __ferrocl_rgamma1(2.0f * t - 1.0f);
    // The divisor in products of 16 factors, each far below overflow.
    float2 d = (float2)(1.0f, 0.0f);
    for (int j = 0; j <= m; j++) {
        d = __ferrocl_ff_mul(d, x + (float)j);
        if ((j & 15) == 15) {
            g = g / (d.x + d.y);
            d = (float2)(1.0f, 0.0f);
        }
    }
    return g / (d.x + d.y);
}

// Stirling's series for lgamma, x >= 34.
float __ferrocl_lgamma_stirling(float x) {
    float z = 1.0f / (x * x);
    float s = (0.0833333333f + z * -0.00277777778f) / x;
    return (x - 0.5f) * (__ferrocl_log(x) - 1.0f) + (0.418938533f + s);
}

float __ferrocl_lgamma(float x) {
    if (isnan(x)) return x;
    if (isinf(x)) return INFINITY;
    float ax = fabs(x);
    if (x <= 0.0f && floor(x) == x) return INFINITY;
    if (ax < 1.0e-30f) return -__ferrocl_log(ax);
    if (ax < 34.0f) return __ferrocl_log(fabs(__ferrocl_tgamma(x)));
    if (x > 0.0f) return __ferrocl_lgamma_stirling(x);
    float r = x - 2.0f * rint(0.5f * x);
    if (r > 0.5f) r = 1.0f - r;
    if (r < -0.5f) r = -1.0f - r;
    float sp = __ferrocl_sin(3.14159265f * r);
    // Reflection: Gamma(x) Gamma(-x) = -pi / (x sin(pi x)).
    return __ferrocl_log(3.14159265f / fabs(x * sp)) - __ferrocl_lgamma_stirling(-x);
}

float __ferrocl_gamma_sign(float x) {
    if (isnan(x) || isinf(x) || (x <= 0.0f && floor(x) == x)) return 0.0f;
    if (x > 0.0f) return 1.0f;
    // Beyond 2^24 every float is an integer, so the conversion is exact.
    return (((int)floor(x)) & 1) != 0 ? -1.0f : 1.0f;
}

// ---- fmod, remainder, remquo, hypot --------------------------------------

// |x| = m * 2^(e - 150) with m < 2^24 an integer, for finite x; denormals
// have the exponent of the smallest normal.
int __ferrocl_unpack_exp(float x) {
    int e = (int)((as_uint(x) >> 23) & 0xffu);
    return e == 0 ? 1 : e;
}

uint __ferrocl_unpack_mant(float x) {
    uint b = as_uint(x) & 0x7fffffffu;
    return b < 0x00800000u ? b : (b & 0x007fffffu) | 0x00800000u;
}

// (r, q) for finite x, y with 0 < |y| <= |x|: the remainder of |x| by |y| as the
// integer r in units of 2^(ey - 150) (so r < my), and the low 8 bits of the
// truncated quotient, by long division on the integer mantissas (exact).
uint2 __ferrocl_mod_parts(float x, float y) {
    int ex = __ferrocl_unpack_exp(x);
    int ey = __ferrocl_unpack_exp(y);
    uint mx = __ferrocl_unpack_mant(x);
    uint my = __ferrocl_unpack_mant(y);
    int d = ex - ey;
    ulong r = (ulong)(mx % my);
    uint q = mx / my;
    while (d > 0) {
        int k = d < 32 ? d : 32;
        ulong w = r << (ulong)k;
        ulong qs = w / (ulong)my;
        r = w - qs * (ulong)my;
        q = (uint)((((ulong)q << (ulong)k) + qs) & 0xffUL);
        d -= k;
    }
    return (uint2)((uint)r, q & 0xffu);
}

float __ferrocl_fmod(float x, float y) {
    if (isnan(x) || isnan(y) || isinf(x) || y == 0.0f) return NAN;
    if (isinf(y) || fabs(x) < fabs(y)) return x;
    uint2 p = __ferrocl_mod_parts(x, y);
    float r = ldexp((float)p.x, __ferrocl_unpack_exp(y) - 150);
    return copysign(r, x);
}

// (remainder, quotient's low 7 bits with the sign of x / y).
float2 __ferrocl_remquo_parts(float x, float y) {
    if (isnan(x) || isnan(y) || isinf(x) || y == 0.0f) return (float2)(NAN, 0.0f);
    if (isinf(y)) return (float2)(x, 0.0f);
    uint my = __ferrocl_unpack_mant(y);
    int ey = __ferrocl_unpack_exp(y);
    float ax = fabs(x);
    float ay = fabs(y);
    float qsign = ((x < 0.0f) != (y < 0.0f)) ? -1.0f : 1.0f;
    if (ax < ay) {
        // The quotient rounds to 0, or to 1 above |y| / 2, where |x| - |y|
        // is exact (Sterbenz); 2|x| is exact where |y| / 2 may not be.
        if (2.0f * ax > ay) return (float2)((x < 0.0f ? -1.0f : 1.0f) * (ax - ay), qsign);
        return (float2)(x, 0.0f);
    }
    uint2 p = __ferrocl_mod_parts(x, y);
    long r = (long)p.x;
    uint q = p.y;
    // Round the quotient to nearest, ties to even.
    if (2L * r > (long)my || (2L * r == (long)my && (q & 1u) != 0u)) {
        r -= (long)my;
        q += 1u;
    }
    float v = ldexp((float)r, ey - 150);
    v = r == 0L ? 0.0f : v;
    float rem = (x < 0.0f) ? -v : v;
    return (float2)(rem, qsign * (float)(int)(q & 0x7fu));
}

float __ferrocl_remainder(float x, float y) {
    return __ferrocl_remquo_parts(x, y).x;
}

float __ferrocl_remquo_quo(float x, float y) {
    return __ferrocl_remquo_parts(x, y).y;
}

// sqrt(x^2 + y^2) without overflow or underflow in the squares: both
// scaled by a power of two near the larger one's magnitude.
float __ferrocl_hypot(float x, float y) {
    if (isinf(x) || isinf(y)) return INFINITY;
    if (isnan(x) || isnan(y)) return x + y;
    float ax = fabs(x);
    float ay = fabs(y);
    float big = fmax(ax, ay);
    if (big == 0.0f) return 0.0f;
    int e = __ferrocl_unpack_exp(big) - 127;
    float a = ldexp(ax, -e);
    float b = ldexp(ay, -e);
    return ldexp(sqrt(a * a + b * b), e);
}

// powr: pow for x >= 0, whose special cases are those of exp(y log x).
float __ferrocl_powr(float x, float y) {
    if (isnan(x) || isnan(y) || x < 0.0f) return NAN;
    if (x == 0.0f) return y == 0.0f ? NAN : (y < 0.0f ? INFINITY : 0.0f);
    if (isinf(x)) return y == 0.0f ? NAN : (y < 0.0f ? 0.0f : INFINITY);
    if (x == 1.0f) return isinf(y) ? NAN : 1.0f;
    return __ferrocl_pow(x, y);
}

// ldexp exactly, for every n: the exponent field is set directly where the
// result is normal, and one multiplication rounds where it is denormal
// (Vulkan's Ldexp is only defined for exponents within the float range).
float __ferrocl_ldexp(float x, int n) {
    if (isnan(x) || isinf(x) || x == 0.0f) return x;
    n = clamp(n, -400, 400);
    if (fabs(x) < 1.17549435e-38f) {
        x = x * 16777216.0f;
        n -= 24;
    }
    uint b = as_uint(x);
    int t = (int)((b >> 23) & 0xffu) - 127 + n;
    if (t > 127) return copysign(INFINITY, x);
    if (t >= -126) return as_float((b & 0x807fffffu) | ((uint)(t + 127) << 23));
    if (t < -151) return copysign(0.0f, x);
    float m = as_float((b & 0x807fffffu) | 0x00800000u);
    return m * as_float((uint)(t + 126 + 127) << 23);
}

// pown: the sign from n's parity as an integer (a large odd n is not exact
// as a float), the magnitude from pow.
float __ferrocl_pown(float x, int n) {
    if (n == 0) return 1.0f;
    float r = __ferrocl_pow(fabs(x), (float)n);
    return ((n & 1) != 0) ? copysign(r, x) : r;
}

// Geometric functions without overflow or underflow in the sum of squares:
// the vector is scaled by a power of two (exact) that brings its largest
// component into [1, 4), the length is taken there and scaled back.
// 2^k for k in [-126, 127], a normal float.
float __ferrocl_pow2(int k) {
    return as_float((uint)(k + 127) << 23);
}

// The exponent of the scale for a vector whose largest |component| is m;
// clamped so that 2^k and 2^-k are both normal floats.
int __ferrocl_geometry_exp(float m) {
    return clamp((int)((as_uint(m) >> 23) & 0xffu) - 127, -126, 126);
}

float __ferrocl_maxabs1(float v) { return fabs(v); }
float __ferrocl_maxabs2(float2 v) { return fmax(fabs(v.x), fabs(v.y)); }
float __ferrocl_maxabs3(float3 v) { return fmax(fmax(fabs(v.x), fabs(v.y)), fabs(v.z)); }
float __ferrocl_maxabs4(float4 v) {
    return fmax(fmax(fabs(v.x), fabs(v.y)), fmax(fabs(v.z), fabs(v.w)));
}

#define FERROCL_GEOMETRY(N, T)                                                 \
float __ferrocl_length##N(T v) {                                               \
    int k = __ferrocl_geometry_exp(__ferrocl_maxabs##N(v));                    \
    T s = v * __ferrocl_pow2(-k);                                              \
    return sqrt(dot(s, s)) * __ferrocl_pow2(k);                                \
}                                                                              \
float __ferrocl_distance##N(T a, T b) {                                        \
    return __ferrocl_length##N(a - b);                                         \
}                                                                              \
/* Infinite components count as +-1 and the finite ones as 0 (the spec's   */ \
/* rule); all zeros come back unchanged, any NaN gives NaNs.               */ \
T __ferrocl_normalize##N(T v) {                                                \
    if (any(isinf(v))) v = select(copysign((T)0.0f, v), copysign((T)1.0f, v), isinf(v)); \
    int k = __ferrocl_geometry_exp(__ferrocl_maxabs##N(v));                    \
    T s = v * __ferrocl_pow2(-k);                                              \
    float d = dot(s, s);                                                       \
    if (d == 0.0f) return v;                                                   \
    return s * rsqrt(d);                                                       \
}

FERROCL_GEOMETRY(1, float)
FERROCL_GEOMETRY(2, float2)
FERROCL_GEOMETRY(3, float3)
FERROCL_GEOMETRY(4, float4)
