// Double-precision built-ins, written in OpenCL C and compiled by this
// compiler when the device has cl_khr_fp64. GLSL.std.450 has no 64-bit
// transcendental instructions, so every one of these is ours. Same scheme
// as the float library: exact argument reduction with split constants, then
// a series on the reduced range, with enough terms for double precision.

double __ferrocl_exp_poly_f64(double r) {
    return 1.0 + r * (1.0 + r * (0.5 + r * (0.16666666666666666 + r * (0.041666666666666664
        + r * (0.008333333333333333 + r * (0.001388888888888889 + r * (0.0001984126984126984
        + r * (2.48015873015873e-05 + r * (2.7557319223985893e-06 + r * (2.755731922398589e-07
        + r * (2.505210838544172e-08 + r * (2.08767569878681e-09 + r * 1.6059043836821613e-10))))))))))));
}

double __ferrocl_scale_f64(double p, double k) {
    int n = (int)k;
    int h = n / 2;
    return ldexp(ldexp(p, h), n - h);
}

double __ferrocl_exp_f64(double x) {
    if (isnan(x)) return x;
    if (x > 709.782712893384) return INFINITY;
    if (x < -745.1332191019412) return 0.0;
    double n = rint(x * 1.4426950408889634);
    // ln 2 = 0.6931471803691238 (32 bits) + 1.9082149292705877e-10.
    double r = (x - n * 0.6931471803691238) - n * 1.9082149292705877e-10;
    return __ferrocl_scale_f64(__ferrocl_exp_poly_f64(r), n);
}

double __ferrocl_exp2_f64(double x) {
    if (isnan(x)) return x;
    if (x >= 1024.0) return INFINITY;
    if (x < -1075.0) return 0.0;
    double n = rint(x);
    double f = x - n;
    // f ln 2 with ln 2 in two parts keeps the reduced argument exact enough.
    double r = f * 0.6931471803691238 + f * 1.9082149292705877e-10;
    return __ferrocl_scale_f64(__ferrocl_exp_poly_f64(r), n);
}

double __ferrocl_exp10_f64(double x) {
    if (isnan(x)) return x;
    if (x > 308.25471555991675) return INFINITY;
    if (x < -323.60724533877976) return 0.0;
    double n = rint(x * 3.321928094887362);
    // log10(2) = 0.3010299955494702 (32 bits) + 1.1451100898021838e-10.
    double r = ((x - n * 0.3010299955494702) - n * 1.1451100898021838e-10) * 2.302585092994046;
    return __ferrocl_scale_f64(__ferrocl_exp_poly_f64(r), n);
}

double2 __ferrocl_log_parts_f64(double x) {
    int e = 0;
    if (x < 2.2250738585072014e-308) {
        x = x * 18014398509481984.0;
        e = -54;
    }
    ulong b = as_ulong(x);
    e += (int)(b >> 52) - 1023;
    double m = as_double((b & 0x000fffffffffffffUL) | 0x3ff0000000000000UL);
    if (m > 1.4142135623730951) {
        m = m * 0.5;
        e += 1;
    }
    double f = m - 1.0;
    double s = f / (2.0 + f);
    double z = s * s;
    double r = z * (0.6666666666666666 + z * (0.4 + z * (0.2857142857142857 + z * (0.2222222222222222
        + z * (0.18181818181818182 + z * (0.15384615384615385 + z * (0.13333333333333333
        + z * (0.11764705882352941 + z * (0.10526315789473684 + z * (0.09523809523809523
        + z * 0.08695652173913043))))))))));
    return (double2)((double)e, f - s * (f - r));
}

double __ferrocl_log_special_f64(double x) {
    if (x < 0.0) return NAN;
    if (x == 0.0) return -INFINITY;
    return x;
}

double __ferrocl_log_f64(double x) {
    if (isnan(x) || isinf(x) || x <= 0.0) return __ferrocl_log_special_f64(x);
    double2 p = __ferrocl_log_parts_f64(x);
    return p.x * 0.6931471803691238 + (p.x * 1.9082149292705877e-10 + p.y);
}

double __ferrocl_log2_f64(double x) {
    if (isnan(x) || isinf(x) || x <= 0.0) return __ferrocl_log_special_f64(x);
    double2 p = __ferrocl_log_parts_f64(x);
    // 1/ln 2 = 1.4426950407214463 + 1.6751713164886512e-10.
    return p.x + (p.y * 1.6751713164886512e-10 + p.y * 1.4426950407214463);
}

double __ferrocl_log10_f64(double x) {
    if (isnan(x) || isinf(x) || x <= 0.0) return __ferrocl_log_special_f64(x);
    double2 p = __ferrocl_log_parts_f64(x);
    return p.x * 0.3010299955494702 + (p.x * 1.1451100898021838e-10 + p.y * 0.43429448190325176);
}

double __ferrocl_expm1_f64(double x) {
    if (fabs(x) < 0.5) {
        return x * (1.0 + x * (0.5 + x * (0.16666666666666666 + x * (0.041666666666666664
            + x * (0.008333333333333333 + x * (0.001388888888888889 + x * (0.0001984126984126984
            + x * (2.48015873015873e-05 + x * (2.7557319223985893e-06 + x * (2.755731922398589e-07
            + x * (2.505210838544172e-08 + x * (2.08767569878681e-09 + x * (1.6059043836821613e-10
            + x * (1.1470745597729725e-11 + x * (7.647163731819816e-13 + x * (4.779477332387385e-14
            + x * 2.8114572543455206e-15))))))))))))))));
    }
    if (x > 709.782712893384) return INFINITY;
    if (x < -38.0) return -1.0;
    return __ferrocl_exp_f64(x) - 1.0;
}

double __ferrocl_log1p_f64(double x) {
    if (isnan(x) || x == INFINITY) return x;
    if (x == -1.0) return -INFINITY;
    if (x < -1.0) return NAN;
    double u = 1.0 + x;
    if (u == 1.0) return x;
    // log(u) plus the first-order term of what rounding 1 + x lost.
    return __ferrocl_log_f64(u) + (x - (u - 1.0)) / u;
}

double __ferrocl_pow_f64(double x, double y) {
    if (y == 0.0 || x == 1.0) return 1.0;
    if (isnan(x) || isnan(y)) return x + y;
    double ax = fabs(x);
    int y_int = floor(y) == y;
    int y_odd = y_int && fabs(y) < 9007199254740992.0 && (((long)y) & 1L) != 0;
    if (isinf(y)) {
        if (ax == 1.0) return 1.0;
        return ((ax > 1.0) == (y > 0.0)) ? INFINITY : 0.0;
    }
    if (x == 0.0) {
        double z = y < 0.0 ? INFINITY : 0.0;
        return y_odd ? copysign(z, x) : z;
    }
    if (isinf(x)) {
        double z = y < 0.0 ? 0.0 : INFINITY;
        return (x < 0.0 && y_odd) ? -z : z;
    }
    if (x < 0.0 && !y_int) return NAN;
    double z = __ferrocl_exp2_dd_f64(__ferrocl_log2_dd_f64(ax, y));
    return (x < 0.0 && y_odd) ? -z : z;
}

// 2^(w.x + w.y) for a double-double exponent; NaN in w.x means beyond the
// double range upwards.
double __ferrocl_exp2_dd_f64(double2 w) {
    if (isnan(w.x) || w.x > 1025.0) return INFINITY;
    if (w.x < -1077.0) return 0.0;
    double n = rint(w.x);
    double f = (w.x - n) + w.y;
    return __ferrocl_scale_f64(__ferrocl_exp_poly_f64(f * 0.6931471803691238 + f * 1.9082149292705877e-10), n);
}

// rootn: 2^(log2|x| / n) with the quotient kept as a double-double, so
// 1/n's rounding does not enter.
double __ferrocl_rootn_f64(double x, int n) {
    if (n == 0 || isnan(x) || (x < 0.0 && (n & 1) == 0)) return NAN;
    if (x == 0.0 || isinf(x)) {
        double z = ((x == 0.0) == (n < 0)) ? INFINITY : 0.0;
        return (n & 1) != 0 ? copysign(z, x) : z;
    }
    double2 w = __ferrocl_log2_dd_f64(fabs(x), 1.0);
    double dn = (double)n;
    double q = w.x / dn;
    double2 qn = __ferrocl_two_prod_f64(q, dn);
    double ql = (((w.x - qn.x) - qn.y) + w.y) / dn;
    return copysign(__ferrocl_exp2_dd_f64((double2)(q, ql)), x);
}

// y log2(x) for finite x > 0 as a double-double: pow's result is 2^(that),
// so its error must stay far below 2^-53 even where it nears +-1075, which
// takes log2(x) to about 70 bits and exact products with y. NaN stands for
// "beyond any double" (the caller knows the sign).
double2 __ferrocl_log2_dd_f64(double ax, double y) {
    int e = 0;
    if (ax < 2.2250738585072014e-308) {
        ax = ax * 18014398509481984.0;
        e = -54;
    }
    ulong b = as_ulong(ax);
    e += (int)(b >> 52) - 1023;
    double m = as_double((b & 0x000fffffffffffffUL) | 0x3ff0000000000000UL);
    if (m > 1.4142135623730951) {
        m = m * 0.5;
        e += 1;
    }
    // log(m) = 2 atanh(s), s = f / (2 + f), with s's rounding error kept.
    double f = m - 1.0;
    double2 u = __ferrocl_two_sum_f64(2.0, f);
    double s = f / u.x;
    double2 su = __ferrocl_two_prod_f64(s, u.x);
    double sl = (((f - su.x) - su.y) - s * u.y) / u.x;
    double z = s * s;
    double r = z * (0.6666666666666666 + z * (0.4 + z * (0.2857142857142857 + z * (0.2222222222222222
        + z * (0.18181818181818182 + z * (0.15384615384615385 + z * (0.13333333333333333
        + z * (0.11764705882352941 + z * (0.10526315789473684 + z * (0.09523809523809523
        + z * 0.08695652173913043))))))))));
    double tail = 2.0 * sl + s * r;
    double lh = 2.0 * s + tail;
    double ll = tail - (lh - 2.0 * s);
    // Times 1/ln 2 = 1.4426950408889634 + 2.0355273740931033e-17.
    double2 th = __ferrocl_two_prod_f64(lh, 1.4426950408889634);
    double tl = th.y + (lh * 2.0355273740931033e-17 + ll * 1.4426950408889634);
    double ed = (double)e;
    if (e != 0 && fabs(y) >= 4096.0) {
        // |y log2 x| > 2048: far outside the range either way.
        return (double2)((y > 0.0) == (e > 0) ? NAN : -2048.0, 0.0);
    }
    // y (e + th + tl): the products exact, the sum a double-double.
    double2 p1 = __ferrocl_two_prod_f64(y, ed);
    double2 p2 = __ferrocl_two_prod_f64(y, th.x);
    double2 hs = __ferrocl_two_sum_f64(p1.x, p2.x);
    double lo = hs.y + (p1.y + p2.y + y * tl);
    double hi = hs.x + lo;
    return (double2)(hi, lo - (hi - hs.x));
}

double __ferrocl_sin_poly_f64(double r) {
    double z = r * r;
    return r + r * z * (-0.16666666666666666 + z * (0.008333333333333333 + z * (-0.0001984126984126984
        + z * (2.7557319223985893e-06 + z * (-2.505210838544172e-08 + z * (1.6059043836821613e-10
        + z * (-7.647163731819816e-13 + z * (2.8114572543455206e-15 + z * -8.22063524662433e-18))))))));
}

double __ferrocl_cos_poly_f64(double r) {
    double z = r * r;
    return 1.0 + z * (-0.5 + z * (0.041666666666666664 + z * (-0.001388888888888889
        + z * (2.48015873015873e-05 + z * (-2.755731922398589e-07 + z * (2.08767569878681e-09
        + z * (-1.1470745597729725e-11 + z * (4.779477332387385e-14 + z * -1.5619206968586225e-16))))))));
}

// x = k pi/2 + r with |r| <= pi/4: pi/2 in three parts of 33 bits, so the
// products with k stay exact for |k| < 2^20.
double2 __ferrocl_reduce_pio2_f64(double x) {
    double k = rint(x * 0.6366197723675814);
    double r = ((x - k * 1.5707963267341256) - k * 6.077100506303966e-11) - k * 2.0222662487959506e-21;
    return (double2)(k, r);
}

// ---- sin, cos and tan of huge arguments ------------------------------------

// Word i of the binary expansion of 2/pi, 64 fraction bits each.
ulong __ferrocl_two_over_pi_word_f64(int i) {
    switch (i) {
    case 0: return 0xa2f9836e4e441529UL;
    case 1: return 0xfc2757d1f534ddc0UL;
    case 2: return 0xdb6295993c439041UL;
    case 3: return 0xfe5163abdebbc561UL;
    case 4: return 0xb7246e3a424dd2e0UL;
    case 5: return 0x06492eea09d1921cUL;
    case 6: return 0xfe1deb1cb129a73eUL;
    case 7: return 0xe88235f52ebb4484UL;
    case 8: return 0xe99c7026b45f7e41UL;
    case 9: return 0x3991d639835339f4UL;
    case 10: return 0x9c845f8bbdf9283bUL;
    case 11: return 0x1ff897ffde05980fUL;
    case 12: return 0xef2f118b5a0a6d1fUL;
    case 13: return 0x6d367ecf27cb09b7UL;
    case 14: return 0x4f463f669e5fea2dUL;
    case 15: return 0x7527bac7ebe5f17bUL;
    case 16: return 0x3d0739f78a5292eaUL;
    case 17: return 0x6bfb5fb11f8d5d08UL;
    case 18: return 0x56033046fc7b6babUL;
    case 19: return 0xf0cfbc209af4361dUL;
    default: return 0UL;
    }
}

// 64 bits of 2/pi starting at fraction bit p (0 is the first); bits before
// the binary point are 0.
ulong __ferrocl_two_over_pi_bits_f64(int p) {
    if (p <= -64) return 0UL;
    if (p < 0) return __ferrocl_two_over_pi_word_f64(0) >> (ulong)(-p);
    int w = p / 64;
    int s = p % 64;
    ulong hi = __ferrocl_two_over_pi_word_f64(w);
    if (s == 0) return hi;
    return (hi << (ulong)s) | (__ferrocl_two_over_pi_word_f64(w + 1) >> (ulong)(64 - s));
}

// |x| = q pi/2 + r, q mod 4, |r| <= pi/4, for any finite x (Payne and
// Hanek): x's 53-bit integer mantissa times the 192 bits of 2/pi that
// matter, exactly in 64-bit limbs; r as (q, hi, lo).
double3 __ferrocl_reduce_pio2_huge_f64(double x) {
    ulong b = as_ulong(fabs(x));
    int e = (int)(b >> 52) - 1075;
    ulong m = (b & 0x000fffffffffffffUL) | 0x0010000000000000UL;
    // Bits of 2/pi before weight 2^(1 - e) add multiples of 4 to m 2^e 2/pi.
    int p = e - 2;
    ulong w0 = __ferrocl_two_over_pi_bits_f64(p);
    ulong w1 = __ferrocl_two_over_pi_bits_f64(p + 64);
    ulong w2 = __ferrocl_two_over_pi_bits_f64(p + 128);
    // m * (w0 w1 w2) in limbs l0 (lowest) .. l2; the part above l2 is a
    // multiple of 4 quadrants.
    ulong h2 = mul_hi(m, w2);
    ulong a1 = m * w1;
    ulong h1 = mul_hi(m, w1);
    ulong a0 = m * w0;
    ulong l0 = m * w2;
    ulong l1 = a1 + h2;
    ulong c1 = l1 < a1 ? 1UL : 0UL;
    ulong l2 = a0 + h1 + c1;
    // l2:l1:l0 is in units of 2^-190 quadrants: l2's top two bits are the
    // quadrant, the 126 bits below the fraction.
    ulong q = l2 >> 62;
    ulong fh = (l2 << 2) | (l1 >> 62);
    ulong fl = (l1 << 2) | (l0 >> 62);
    // Round to the nearest quadrant: a fraction of 1/2 or more is a
    // negative remainder of the next one.
    double sign = 1.0;
    if ((fh >> 63) != 0UL) {
        q += 1UL;
        // 2^128 - f, the magnitude of the negative remainder.
        fl = ~fl + 1UL;
        fh = ~fh + (fl == 0UL ? 1UL : 0UL);
        sign = -1.0;
    }
    // Normalize so fh's top bit is set; the fraction is then
    // (fh + fl 2^-64) 2^-(64 + z) quadrants.
    int z = 0;
    if (fh == 0UL) {
        fh = fl;
        fl = 0UL;
        z = 64;
    }
    int s = (int)clz(fh);
    if (s > 0) {
        fh = (fh << (ulong)s) | (fl >> (ulong)(64 - s));
        fl = fl << (ulong)s;
    }
    z += s;
    double fhi = (double)(fh & 0xfffffffffffff800UL);
    double flo = (double)(fh & 0x7ffUL) + (double)fl * 5.421010862427522e-20;
    // (fhi + flo) pi/2 as a double-double, then scaled by 2^-(64 + z).
    double2 ph = __ferrocl_two_prod_f64(fhi, 1.5707963267948966);
    double lo = ph.y + (fhi * 6.123233995736766e-17 + flo * 1.5707963267948966);
    double hi = ph.x + lo;
    lo = lo - (hi - ph.x);
    hi = ldexp(hi, -64 - z);
    lo = ldexp(lo, -64 - z);
    return (double3)((double)(q & 3UL), sign * hi, sign * lo);
}

// x = q pi/2 + r for finite x: (q mod 4, r's head, r's tail). The
// three-part pi/2 serves while k pi/2 stays exact (|k| < 2^20); beyond,
// Payne and Hanek's reduction.
double3 __ferrocl_reduce_f64(double x) {
    if (fabs(x) < 1.0e5) {
        double2 kr = __ferrocl_reduce_pio2_f64(x);
        return (double3)((double)(((long)kr.x) & 3L), kr.y, 0.0);
    }
    double3 r = __ferrocl_reduce_pio2_huge_f64(x);
    if (x < 0.0) {
        // -x = q pi/2 + r, so x = (-q) pi/2 - r.
        return (double3)((double)((4 - (int)r.x) & 3), -r.y, -r.z);
    }
    return r;
}

double __ferrocl_sin_reduced_f64(double hi, double lo) {
    return __ferrocl_sin_poly_f64(hi) + lo * (1.0 - 0.5 * hi * hi);
}

double __ferrocl_cos_reduced_f64(double hi, double lo) {
    return __ferrocl_cos_poly_f64(hi) - lo * hi;
}

double __ferrocl_sin_f64(double x) {
    if (isnan(x) || isinf(x)) return NAN;
    double3 r = __ferrocl_reduce_f64(x);
    int q = (int)r.x;
    if (q == 0) return __ferrocl_sin_reduced_f64(r.y, r.z);
    if (q == 1) return __ferrocl_cos_reduced_f64(r.y, r.z);
    if (q == 2) return -__ferrocl_sin_reduced_f64(r.y, r.z);
    return -__ferrocl_cos_reduced_f64(r.y, r.z);
}

double __ferrocl_cos_f64(double x) {
    if (isnan(x) || isinf(x)) return NAN;
    double3 r = __ferrocl_reduce_f64(x);
    int q = (int)r.x;
    if (q == 0) return __ferrocl_cos_reduced_f64(r.y, r.z);
    if (q == 1) return -__ferrocl_sin_reduced_f64(r.y, r.z);
    if (q == 2) return -__ferrocl_cos_reduced_f64(r.y, r.z);
    return __ferrocl_sin_reduced_f64(r.y, r.z);
}

double __ferrocl_tan_f64(double x) {
    if (isnan(x) || isinf(x)) return NAN;
    double3 r = __ferrocl_reduce_f64(x);
    double s = __ferrocl_sin_reduced_f64(r.y, r.z);
    double c = __ferrocl_cos_reduced_f64(r.y, r.z);
    return (((int)r.x) & 1) != 0 ? -c / s : s / c;
}

double __ferrocl_atan_f64(double x) {
    if (isnan(x)) return x;
    double ax = fabs(x);
    double base;
    double t;
    if (ax < 0.4375) {
        base = 0.0;
        t = ax;
    } else if (ax < 0.6875) {
        base = 0.4636476090008061;
        t = (ax - 0.5) / (1.0 + 0.5 * ax);
    } else if (ax < 1.1875) {
        base = 0.7853981633974483;
        t = (ax - 1.0) / (ax + 1.0);
    } else if (ax < 2.4375) {
        base = 0.982793723247329;
        t = (ax - 1.5) / (1.0 + 1.5 * ax);
    } else {
        base = 1.5707963267948966;
        t = -1.0 / ax;
    }
    double z = t * t;
    double s = t - t * z * (0.3333333333333333 - z * (0.2 - z * (0.14285714285714285 - z * (0.1111111111111111
        - z * (0.09090909090909091 - z * (0.07692307692307693 - z * (0.06666666666666667
        - z * (0.058823529411764705 - z * (0.05263157894736842 - z * (0.047619047619047616
        - z * (0.043478260869565216 - z * (0.04 - z * (0.037037037037037035 - z * (0.034482758620689655
        - z * (0.03225806451612903 - z * (0.030303030303030304 - z * (0.02857142857142857
        - z * (0.02702702702702703 - z * (0.02564102564102564 - z * 0.024390243902439025)))))))))))))))))));
    double r = base + s;
    return copysign(r, x);
}

double __ferrocl_atan2_f64(double y, double x) {
    if (isnan(x) || isnan(y)) return x + y;
    if (isinf(x) || isinf(y)) {
        double a = isinf(y) ? (isinf(x) ? (x > 0.0 ? 0.7853981633974483 : 2.356194490192345) : 1.5707963267948966)
                            : (x > 0.0 ? 0.0 : 3.141592653589793);
        return copysign(a, y);
    }
    if (x == 0.0) {
        if (y == 0.0) return copysign(signbit(x) ? 3.141592653589793 : 0.0, y);
        return copysign(1.5707963267948966, y);
    }
    double r;
    if (fabs(y) > fabs(x)) {
        r = 1.5707963267948966 - __ferrocl_atan_f64(fabs(x / y));
    } else {
        r = __ferrocl_atan_f64(fabs(y / x));
    }
    if (x < 0.0) r = 3.141592653589793 - r;
    return copysign(r, y);
}

double __ferrocl_asin_f64(double x) {
    double ax = fabs(x);
    if (isnan(x) || ax > 1.0) return NAN;
    if (ax == 1.0) return copysign(1.5707963267948966, x);
    return __ferrocl_atan2_f64(x, sqrt((1.0 - ax) * (1.0 + ax)));
}

double __ferrocl_acos_f64(double x) {
    double ax = fabs(x);
    if (isnan(x) || ax > 1.0) return NAN;
    return 2.0 * __ferrocl_atan2_f64(sqrt(1.0 - x), sqrt(1.0 + x));
}

// The pi-scaled inverses: the double results above times the rounded 1/pi,
// well inside the 5 (6 for atan2pi) ulp that OpenCL allows.
double __ferrocl_asinpi_f64(double x) {
    return __ferrocl_asin_f64(x) * 0.3183098861837907;
}

double __ferrocl_acospi_f64(double x) {
    return __ferrocl_acos_f64(x) * 0.3183098861837907;
}

double __ferrocl_atanpi_f64(double x) {
    return __ferrocl_atan_f64(x) * 0.3183098861837907;
}

double __ferrocl_atan2pi_f64(double y, double x) {
    return __ferrocl_atan2_f64(y, x) * 0.3183098861837907;
}

double __ferrocl_sinh_f64(double x) {
    double ax = fabs(x);
    if (isnan(x)) return x;
    double r;
    if (ax < 22.0) {
        double em = __ferrocl_expm1_f64(ax);
        r = 0.5 * (em + em / (em + 1.0));
    } else {
        r = __ferrocl_exp_f64(ax - 0.6931471803691238) * (1.0 - 1.9082149292705877e-10);
    }
    return copysign(r, x);
}

double __ferrocl_cosh_f64(double x) {
    double ax = fabs(x);
    if (isnan(x)) return x;
    if (ax < 22.0) {
        double e = __ferrocl_exp_f64(ax);
        return 0.5 * e + 0.5 / e;
    }
    return __ferrocl_exp_f64(ax - 0.6931471803691238) * (1.0 - 1.9082149292705877e-10);
}

double __ferrocl_tanh_f64(double x) {
    double ax = fabs(x);
    if (isnan(x)) return x;
    double r = 1.0;
    if (ax < 22.0) {
        double em = __ferrocl_expm1_f64(2.0 * ax);
        r = em / (em + 2.0);
    }
    return copysign(r, x);
}

double __ferrocl_cbrt_f64(double x) {
    if (isnan(x) || isinf(x) || x == 0.0) return x;
    double ax = fabs(x);
    // Scaled by a cube of a power of two into [1, 8), so the float first
    // guess is good to 24 bits and three Newton steps reach double.
    int k = __ferrocl_exponent_f64(ax);
    k = (k >= 0 ? k : k - 2) / 3;
    ax = __ferrocl_ldexp_f64(ax, -3 * k);
    double scale = __ferrocl_ldexp_f64(1.0, k);
    // A float first guess, then Newton steps in double.
    double y = (double)cbrt((float)ax);
    if (y == 0.0 || isinf(y)) y = as_double(as_ulong(ax) / 3UL + 0x2a9f7893782da1ceUL);
    y = y - (y * y * y - ax) / (3.0 * y * y);
    y = y - (y * y * y - ax) / (3.0 * y * y);
    y = y - (y * y * y - ax) / (3.0 * y * y);
    return copysign(y * scale, x);
}

// ---- error-free transforms -------------------------------------------------
// The library is compiled with NoContraction on every operation, so these
// hold on drivers that would otherwise fuse or reassociate.

// a + b = s + e exactly (Knuth's TwoSum), for any finite a and b.
double2 __ferrocl_two_sum_f64(double a, double b) {
    double s = a + b;
    double bb = s - a;
    double e = (a - (s - bb)) + (b - bb);
    return (double2)(s, e);
}

// a = hi + lo with hi holding the top 26 bits (Veltkamp's split), for
// |a| < 2^995 (so 2^27 a cannot overflow).
double2 __ferrocl_split_f64(double a) {
    double c = 134217729.0 * a;
    double hi = c - (c - a);
    return (double2)(hi, a - hi);
}

// a * b = p + e exactly (Dekker's product) unless p overflows or e
// underflows; operands above 2^995 are scaled by 2^-60 for the split and
// the scale comes back exactly.
double2 __ferrocl_two_prod_f64(double a, double b) {
    double sa = fabs(a) > 6.703903964971299e+299 ? 8.673617379884035e-19 : 1.0;
    double sb = fabs(b) > 6.703903964971299e+299 ? 8.673617379884035e-19 : 1.0;
    double as = a * sa;
    double bs = b * sb;
    double p = as * bs;
    double2 x = __ferrocl_split_f64(as);
    double2 y = __ferrocl_split_f64(bs);
    double e = ((x.x * y.x - p) + x.x * y.y + x.y * y.x) + x.y * y.y;
    double back = (1.0 / sa) * (1.0 / sb);
    return (double2)(a * b, e * back);
}

// s rounded to odd given the exact error e of s = RN(a + b): a value with
// an odd last bit stands for every real between its neighbours, so a later
// rounding to fewer bits cannot round twice the wrong way.
double __ferrocl_round_odd_f64(double s, double e) {
    ulong b = as_ulong(s);
    if (e == 0.0 || (b & 1UL) != 0UL || isinf(s) || isnan(e)) return s;
    // Towards e: away from zero when e has s's sign.
    return as_double(((e > 0.0) == (s > 0.0)) ? b + 1UL : b - 1UL);
}

// The exponent of finite non-zero x (ilogb), denormals included.
int __ferrocl_exponent_f64(double x) {
    ulong b = as_ulong(x) & 0x7fffffffffffffffUL;
    if (b < 0x0010000000000000UL) {
        return (int)((as_ulong(x * 18014398509481984.0) >> 52) & 0x7ffUL) - 1023 - 54;
    }
    return (int)(b >> 52) - 1023;
}

// fma(a, b, c) correctly rounded without a fused instruction (Boldo and
// Melquiond's emulation): the exact product as p + e, c + p as s + t, then
// s + RO(t + e). a and b are first scaled to [1, 2) so the exact steps
// neither overflow nor underflow; the scale comes back in one ldexp.
double __ferrocl_fma_f64(double a, double b, double c) {
    // An infinite c with a finite product: the exact sum is c, even where
    // the rounded product would overflow.
    if (isinf(c) && isfinite(a) && isfinite(b)) return c;
    if (!isfinite(a) || !isfinite(b) || !isfinite(c) || a == 0.0 || b == 0.0) return a * b + c;
    if (c == 0.0) return a * b;
    int ea = __ferrocl_exponent_f64(a);
    int eb = __ferrocl_exponent_f64(b);
    int ec = __ferrocl_exponent_f64(c);
    int k = ea + eb;
    // c far above the product: the product only decides a rounding that
    // cannot tie, so the result is c.
    if (ec > k + 110) return c;
    double as = ldexp(a, -ea);
    double bs = ldexp(b, -eb);
    // c far below the product acts only as a sticky bit: any tiny value of
    // its sign rounds the same way.
    double cs = ec < k - 160 ? copysign(1.0e-200, c) : ldexp(c, -k);
    double2 p = __ferrocl_two_prod_f64(as, bs);
    double2 s = __ferrocl_two_sum_f64(cs, p.x);
    double2 v = __ferrocl_two_sum_f64(s.y, p.y);
    double vo = __ferrocl_round_odd_f64(v.x, v.y);
    double2 z = __ferrocl_two_sum_f64(s.x, vo);
    double r = z.x;
    if (r != 0.0 && k + __ferrocl_exponent_f64(r) < -1022) {
        // The result is subnormal: round r to the subnormal grid (2^-1074,
        // u here) with the exact error z.y breaking a tie, then scale back
        // exactly. Rounding r to odd and letting ldexp round would need two
        // bits more than r has where the result keeps 52.
        double u = ldexp(1.0, -1074 - k);
        double t = r / u;
        double lo = floor(t);
        double n = (t - lo == 0.5 && z.y != 0.0) ? (z.y > 0.0 ? lo + 1.0 : lo) : rint(t);
        return ldexp(n * u, k);
    }
    return ldexp(r, k);
}

// ---- erf and erfc ------------------------------------------------------------

// erf(x) for |x| <= 1: its Taylor series, 2/sqrt(pi) sum (-1)^k x^(2k+1) / (k! (2k+1)).
double __ferrocl_erf_small_f64(double x) {
    double z = x * x;
    return x * (1.1283791670955126 + z * (-0.37612638903183754 + z * (0.11283791670955126 + z * (-0.026866170645131252 + z * (0.005223977625442188 + z * (-0.0008548327023450853 + z * (0.00012055332981789664 + z * (-1.492565035840625e-05 + z * (1.6462114365889248e-06 + z * (-1.6365844691234924e-07 + z * (1.4807192815879218e-08 + z * (-1.2290555301717928e-09 + z * (9.422759064650411e-11 + z * (-6.7113668551641105e-12 + z * (4.4632242632864775e-13 + z * (-2.7835162072109215e-14 + z * (1.6342614095367152e-15 + z * (-9.063970842808673e-17 + z * (4.763348040515068e-18)))))))))))))))))));
}

// erfcx(x) = e^(x^2) erfc(x) for x >= 1/2: Chebyshev fits on three
// intervals, then x erfcx(x) sqrt(pi) as a function of 1/x^2 beyond 4.
double __ferrocl_erfcx_f64(double x) {
    if (x < 1.5) {
        double u = 2.0 * x - 2.0;
        return 0.427583576155807 + u * (-0.13660600739194928 + u * (0.03859289034297711 + u * (-0.00990337111766582 + u * (0.0023482685134556744 + u * (-0.0005206834090758812 + u * (0.00010890847460878921 + u * (-2.163331855782933e-05 + u * (4.1026148424254695e-06 + u * (-7.460049524743092e-07 + u * (1.3053025037981643e-07 + u * (-2.2042891187870488e-08 + u * (3.6018445414775295e-09 + u * (-5.707977183947575e-10 + u * (8.787810267386302e-11 + u * (-1.3113911274672565e-11 + u * (1.9160170411014948e-12 + u * (-3.000816310876132e-13 + u * (4.1644124346136074e-14))))))))))))))))));
    }
    if (x < 2.5) {
        double u = 2.0 * x - 4.0;
        return 0.25539567631050575 + u * (-0.0533982309267448 + u * (0.010450688150881637 + u * (-0.0019325797205364107 + u * (0.00034004615859202107 + u * (-5.7239508616337115e-05 + u * (9.257343676999363e-06 + u * (-1.443580996570628e-06 + u * (2.176887318152635e-07 + u * (-3.182366011581627e-08 + u * (4.519701266061009e-09 + u * (-6.247858207594854e-10 + u * (8.419550792602017e-11 + u * (-1.105585983819779e-11 + u * (1.4220522208718966e-12 + u * (-1.9104751081971532e-13 + u * (2.3499047873035464e-14))))))))))))))));
    }
    if (x < 4.0) {
        double u = (x - 3.25) * 1.3333333333333333;
        return 0.16633534842682188 + u * (-0.035399551740877784 + u * (0.007277226121697714 + u * (-0.0014493394550703807 + u * (0.0002803373858604529 + u * (-5.277242617693111e-05 + u * (9.68566358011363e-06 + u * (-1.7359099277026063e-06 + u * (3.042263285375889e-07 + u * (-5.21994809578618e-08 + u * (8.778215800450754e-09 + u * (-1.448234363602924e-09 + u * (2.3461073095897796e-10 + u * (-3.735399613589818e-11 + u * (5.8479171043372e-12 + u * (-8.963592052933864e-13 + u * (1.3601796667920307e-13 + u * (-2.2623017175157163e-14 + u * (3.323944386921197e-15))))))))))))))))));
    }
    double u = 32.0 / (x * x) - 1.0;
    return (0.9850557060634584 + u * (-0.014310447062397032 + u * (0.0005912853104842328 + u * (-3.874774635967686e-05 + u * (3.393739659008946e-06 + u * (-3.658687858073269e-07 + u * (4.62658242707925e-08 + u * (-6.650125135371635e-09 + u * (1.0628579374004916e-09 + u * (-1.858436419510141e-10 + u * (3.511607354877188e-11 + u * (-7.115041031015578e-12 + u * (1.5287589313260946e-12 + u * (-3.315501785548179e-13 + u * (7.821240191433549e-14 + u * (-2.7871190893585478e-14 + u * (7.378057934770629e-15))))))))))))))))) / (x * 1.7724538509055159);
}

// e^(-x^2) with x^2 split into an exact head and a small tail.
double __ferrocl_exp_neg_square_f64(double x) {
    double h = as_double(as_ulong(x) & 0xfffffffff8000000UL);
    double l = x - h;
    return __ferrocl_exp_f64(-(h * h)) * __ferrocl_exp_f64(-(l * (x + h)));
}

// erfc for x >= 1/2.
double __ferrocl_erfc_pos_f64(double x) {
    if (x > 27.3) return 0.0;
    return __ferrocl_exp_neg_square_f64(x) * __ferrocl_erfcx_f64(x);
}

double __ferrocl_erf_f64(double x) {
    if (isnan(x)) return x;
    double ax = fabs(x);
    if (ax <= 1.0) return __ferrocl_erf_small_f64(x);
    if (ax >= 6.0) return copysign(1.0, x);
    return copysign(1.0 - __ferrocl_erfc_pos_f64(ax), x);
}

double __ferrocl_erfc_f64(double x) {
    if (isnan(x)) return x;
    if (x >= 0.5) return __ferrocl_erfc_pos_f64(x);
    if (x > -1.0) return 1.0 - __ferrocl_erf_small_f64(x);
    if (x < -6.0) return 2.0;
    return 2.0 - __ferrocl_erfc_pos_f64(-x);
}

// ---- tgamma and lgamma ---------------------------------------------------

// 1 / Gamma(1 + t) for t in [0, 1], given u = 2t - 1 (a Chebyshev fit; the
// reciprocal of Gamma is entire, so the fit converges fast).
double __ferrocl_rgamma1_f64(double u) {
    return 1.1283791670955126 + u * (-0.02058726322264155 + u * (-0.13166360888138612 + u * (0.021887753255491794 + u * (0.0031854287654816335 + u * (-0.00131734904276637 + u * (0.00010332652854407746 + u * (1.6568214392792705e-05 + u * (-4.338790056699956e-06 + u * (2.9757348574836496e-07 + u * (2.4760941270571037e-08 + u * (-6.785564178483211e-09 + u * (5.264187816023964e-10 + u * (7.088659432481053e-12 + u * (-5.4425137581991965e-12 + u * (5.131043224357747e-13 + u * (-1.3003266062440807e-14))))))))))))))));
}

// (h, l) * b as a double-double, renormalized.
double2 __ferrocl_dd_mul_f64(double2 a, double b) {
    double2 p = __ferrocl_two_prod_f64(a.x, b);
    double e = p.y + a.y * b;
    double s = p.x + e;
    return (double2)(s, e - (s - p.x));
}

// prod_{j = lo}^{hi - 1} (x + j) as a double-double; each x + j is exact
// where the callers use it (x and j are multiples of x's last place).
double2 __ferrocl_rising_f64(double x, int lo, int hi) {
    double2 p = (double2)(1.0, 0.0);
    for (int j = lo; j < hi; j++) {
        p = __ferrocl_dd_mul_f64(p, x + (double)j);
    }
    return p;
}

double __ferrocl_tgamma_f64(double x) {
    if (isnan(x) || x == INFINITY) return x;
    if (x == 0.0) return 1.0 / x;
    if (x < 0.0 && (isinf(x) || floor(x) == x)) return NAN;
    if (x > 171.62437695630272) return INFINITY;
    if (x >= 1.0) {
        // Gamma(x) = Gamma(1 + t) (x - 1)(x - 2) ... (x - n), t = x - 1 - n.
        int n = (int)x - 1;
        double t = x - (double)(n + 1);
        double r = __ferrocl_rgamma1_f64(2.0 * t - 1.0);
        // Start from 1 / r as a double-double, so the product stays below
        // Gamma(x) and overflows only with it.
        double q = 1.0 / r;
        double2 qr = __ferrocl_two_prod_f64(q, r);
        double2 p = (double2)(q, ((1.0 - qr.x) - qr.y) / r);
        for (int j = 1; j <= n; j++) {
            p = __ferrocl_dd_mul_f64(p, x - (double)j);
        }
        return p.x + p.y;
    }
    if (x > 0.0) {
        // Gamma(x) = Gamma(1 + x) / x.
        return (1.0 / x) / __ferrocl_rgamma1_f64(2.0 * x - 1.0);
    }
    // x < 0: Gamma(x) = Gamma(1 + t) / (x (x + 1) ... (x + m)), t = x + m,
    // with m = -floor(x); the product in two halves so neither overflows
    // before the quotient underflows.
    if (x > -1.0) {
        // Gamma(x) = Gamma(2 + x) / (x (1 + x)), with t = 1 + x given to
        // the fit as 2t - 1 = 2x + 1, formed without losing x's low bits.
        return (1.0 / x) / (__ferrocl_rgamma1_f64(2.0 * x + 1.0) * (x + 1.0));
    }
    if (x < -190.0) {
        // Below every denormal; the sign alternates between the poles.
        return (((long)floor(x)) & 1L) != 0L ? -0.0 : 0.0;
    }
    int m = -(int)floor(x);
    double t = x + (double)m;
    double g = 1.0 / __ferrocl_rgamma1_f64(2.0 * t - 1.0);
    int h = (m + 1) / 2;
    double2 d1 = __ferrocl_rising_f64(x, 0, h);
    double2 d2 = __ferrocl_rising_f64(x, h, m + 1);
    return (g / (d1.x + d1.y)) / (d2.x + d2.y);
}

// sin(pi r) for |r| <= 1/2.
double __ferrocl_sinpi_reduced_f64(double r) {
    return __ferrocl_sin_f64(3.141592653589793 * r);
}

// sinpi, cospi and tanpi: x reduced modulo 2 exactly, then folded by
// symmetry into [-1/2, 1/2].
double __ferrocl_sinpi_f64(double x) {
    if (isnan(x) || isinf(x)) return NAN;
    double r = x - 2.0 * rint(0.5 * x);
    if (r > 0.5) r = 1.0 - r;
    if (r < -0.5) r = -1.0 - r;
    double s = __ferrocl_sinpi_reduced_f64(r);
    return s == 0.0 ? copysign(0.0, x) : s;
}

double __ferrocl_cospi_f64(double x) {
    if (isnan(x) || isinf(x)) return NAN;
    double r = fabs(x - 2.0 * rint(0.5 * x));
    return __ferrocl_sinpi_reduced_f64(0.5 - r);
}

double __ferrocl_tanpi_f64(double x) {
    return __ferrocl_sinpi_f64(x) / __ferrocl_cospi_f64(x);
}

double __ferrocl_asinh_f64(double x) {
    double ax = fabs(x);
    if (isnan(x) || isinf(x)) return x;
    double r;
    if (ax < 1.0e-8) {
        r = ax;
    } else if (ax < 2.0) {
        double z = ax * ax;
        r = __ferrocl_log1p_f64(ax + z / (1.0 + sqrt(1.0 + z)));
    } else if (ax < 1.0e150) {
        r = __ferrocl_log_f64(2.0 * ax + 1.0 / (sqrt(ax * ax + 1.0) + ax));
    } else {
        r = __ferrocl_log_f64(ax) + 0.6931471805599453;
    }
    return copysign(r, x);
}

double __ferrocl_acosh_f64(double x) {
    if (isnan(x) || x < 1.0) return NAN;
    if (isinf(x)) return x;
    if (x < 2.0) {
        double t = x - 1.0;
        return __ferrocl_log1p_f64(t + sqrt(2.0 * t + t * t));
    }
    if (x < 1.0e150) return __ferrocl_log_f64(2.0 * x - 1.0 / (x + sqrt(x * x - 1.0)));
    return __ferrocl_log_f64(x) + 0.6931471805599453;
}

double __ferrocl_atanh_f64(double x) {
    double ax = fabs(x);
    if (isnan(x) || ax > 1.0) return NAN;
    if (ax == 1.0) return copysign(INFINITY, x);
    double r;
    if (ax < 0.5) {
        double t = ax + ax;
        r = 0.5 * __ferrocl_log1p_f64(t + t * ax / (1.0 - ax));
    } else {
        r = 0.5 * __ferrocl_log1p_f64((ax + ax) / (1.0 - ax));
    }
    return copysign(r, x);
}

// Stirling's series for lgamma, x >= 170.
double __ferrocl_lgamma_stirling_f64(double x) {
    double z = 1.0 / (x * x);
    double s = (0.08333333333333333 + z * (-0.002777777777777778 + z * 0.0007936507936507937)) / x;
    return (x - 0.5) * (__ferrocl_log_f64(x) - 1.0) + (0.4189385332046728 + s);
}

double __ferrocl_lgamma_f64(double x) {
    if (isnan(x)) return x;
    if (isinf(x)) return INFINITY;
    double ax = fabs(x);
    if (x <= 0.0 && floor(x) == x) return INFINITY;
    if (ax < 1.0e-300) return -__ferrocl_log_f64(ax);
    if (x > 0.0 && x < 170.0) return __ferrocl_log_f64(__ferrocl_tgamma_f64(x));
    if (x > 0.0) return __ferrocl_lgamma_stirling_f64(x);
    if (x > -170.0) return __ferrocl_log_f64(fabs(__ferrocl_tgamma_f64(x)));
    // Reflection: Gamma(x) Gamma(-x) = -pi / (x sin(pi x)).
    return __ferrocl_log_f64(3.141592653589793 / fabs(x * __ferrocl_sinpi_f64(x))) - __ferrocl_lgamma_stirling_f64(-x);
}

// The sign of Gamma(x): 0 at zero, negative integers and NaN.
double __ferrocl_gamma_sign_f64(double x) {
    if (isnan(x) || (x <= 0.0 && floor(x) == x)) return 0.0;
    if (x > 0.0) return 1.0;
    if (isinf(x)) return 0.0;
    // Beyond 2^53 every double is an integer, so the conversion is exact.
    return (((long)floor(x)) & 1L) != 0L ? -1.0 : 1.0;
}

// ---- float functions computed in double ----------------------------------
// Where the device has doubles, these float built-ins are the double ones
// rounded once: far inside the float bounds.

float __ferrocl_fma_ff64(float a, float b, float c) {
    // The product of two floats is exact in double; the sum rounded to odd
    // then to float is the correctly rounded fma.
    double2 s = __ferrocl_two_sum_f64((double)a * (double)b, (double)c);
    if (!isfinite(s.x)) return (float)s.x;
    return (float)__ferrocl_round_odd_f64(s.x, s.y);
}

float __ferrocl_erf_ff64(float x) { return (float)__ferrocl_erf_f64((double)x); }
float __ferrocl_erfc_ff64(float x) { return (float)__ferrocl_erfc_f64((double)x); }
float __ferrocl_tgamma_ff64(float x) { return (float)__ferrocl_tgamma_f64((double)x); }
float __ferrocl_lgamma_ff64(float x) { return (float)__ferrocl_lgamma_f64((double)x); }
float __ferrocl_gamma_sign_ff64(float x) { return (float)__ferrocl_gamma_sign_f64((double)x); }

// ---- fmod, remainder, remquo, hypot --------------------------------------

// |x| = m * 2^(e - 1075) with m < 2^53 an integer, for finite x.
int __ferrocl_unpack_exp_f64(double x) {
    int e = (int)((as_ulong(x) >> 52) & 0x7ffUL);
    return e == 0 ? 1 : e;
}

ulong __ferrocl_unpack_mant_f64(double x) {
    ulong b = as_ulong(x) & 0x7fffffffffffffffUL;
    return b < 0x0010000000000000UL ? b : (b & 0x000fffffffffffffUL) | 0x0010000000000000UL;
}

// As the float version: |x| mod |y| in units of y's last place and the low
// bits of the quotient, 11 bits of long division at a time (r < 2^53).
ulong2 __ferrocl_mod_parts_f64(double x, double y) {
    int d = __ferrocl_unpack_exp_f64(x) - __ferrocl_unpack_exp_f64(y);
    ulong mx = __ferrocl_unpack_mant_f64(x);
    ulong my = __ferrocl_unpack_mant_f64(y);
    ulong r = mx % my;
    ulong q = mx / my;
    while (d > 0) {
        int k = d < 11 ? d : 11;
        ulong w = r << (ulong)k;
        ulong qs = w / my;
        r = w - qs * my;
        q = ((q << (ulong)k) + qs) & 0xffUL;
        d -= k;
    }
    return (ulong2)(r, q & 0xffUL);
}

double __ferrocl_fmod_f64(double x, double y) {
    if (isnan(x) || isnan(y) || isinf(x) || y == 0.0) return NAN;
    if (isinf(y) || fabs(x) < fabs(y)) return x;
    ulong2 p = __ferrocl_mod_parts_f64(x, y);
    double r = ldexp((double)p.x, __ferrocl_unpack_exp_f64(y) - 1075);
    return copysign(r, x);
}

double2 __ferrocl_remquo_parts_f64(double x, double y) {
    if (isnan(x) || isnan(y) || isinf(x) || y == 0.0) return (double2)(NAN, 0.0);
    if (isinf(y)) return (double2)(x, 0.0);
    double ax = fabs(x);
    double ay = fabs(y);
    double qsign = ((x < 0.0) != (y < 0.0)) ? -1.0 : 1.0;
    if (ax < ay) {
        if (2.0 * ax > ay) return (double2)((x < 0.0 ? -1.0 : 1.0) * (ax - ay), qsign);
        return (double2)(x, 0.0);
    }
    ulong my = __ferrocl_unpack_mant_f64(y);
    ulong2 p = __ferrocl_mod_parts_f64(x, y);
    long r = (long)p.x;
    ulong q = p.y;
    if (2L * r > (long)my || (2L * r == (long)my && (q & 1UL) != 0UL)) {
        r -= (long)my;
        q += 1UL;
    }
    double v = ldexp((double)r, __ferrocl_unpack_exp_f64(y) - 1075);
    double rem = (x < 0.0) ? -v : v;
    return (double2)(rem, qsign * (double)(long)(q & 0x7fUL));
}

double __ferrocl_remainder_f64(double x, double y) {
    return __ferrocl_remquo_parts_f64(x, y).x;
}

double __ferrocl_remquo_quo_f64(double x, double y) {
    return __ferrocl_remquo_parts_f64(x, y).y;
}

double __ferrocl_hypot_f64(double x, double y) {
    if (isinf(x) || isinf(y)) return INFINITY;
    if (isnan(x) || isnan(y)) return x + y;
    double ax = fabs(x);
    double ay = fabs(y);
    double big = fmax(ax, ay);
    if (big == 0.0) return 0.0;
    int e = __ferrocl_unpack_exp_f64(big) - 1023;
    double a = ldexp(ax, -e);
    double b = ldexp(ay, -e);
    return ldexp(sqrt(a * a + b * b), e);
}

// The squares of floats are exact in double and their sum rounds once.
float __ferrocl_hypot_ff64(float x, float y) {
    if (isinf(x) || isinf(y)) return INFINITY;
    if (isnan(x) || isnan(y)) return x + y;
    double a = (double)x;
    double b = (double)y;
    return (float)sqrt(a * a + b * b);
}

double __ferrocl_powr_f64(double x, double y) {
    if (isnan(x) || isnan(y) || x < 0.0) return NAN;
    if (x == 0.0) return y == 0.0 ? NAN : (y < 0.0 ? INFINITY : 0.0);
    if (isinf(x)) return y == 0.0 ? NAN : (y < 0.0 ? 0.0 : INFINITY);
    if (x == 1.0) return isinf(y) ? NAN : 1.0;
    return __ferrocl_pow_f64(x, y);
}

// x as a double, exactly, also where x is a float denormal: a device that
// flushes float denormals (NVIDIA) may turn the conversion instruction's
// result into zero while comparisons on the float still see x, and pow's
// branches would then disagree about x. The bits decide here.
double __ferrocl_float_to_double(float x) {
    uint b = as_uint(x);
    if ((b & 0x7f800000u) != 0u) return (double)x;
    // (b & 0x7fffff) units of 2^-149.
    double m = (double)(b & 0x007fffffu) * as_double(0x36a0000000000000UL);
    return (b >> 31) != 0u ? -m : m;
}

// Float pow, powr and rootn through double: y log|x| in double carries an
// error far below a float ulp even where the result nears the float range,
// which the float algorithm cannot promise.
float __ferrocl_pow_ff64(float x, float y) {
    // Every test reads x and y as exact doubles, so a float denormal is the
    // same nonzero value in each branch.
    double dx = __ferrocl_float_to_double(x);
    double dy = __ferrocl_float_to_double(y);
    if (dy == 0.0 || dx == 1.0) return 1.0f;
    if (isnan(x) || isnan(y)) return x + y;
    double ax = fabs(dx);
    int y_int = floor(dy) == dy;
    int y_odd = y_int && fabs(dy) < 16777216.0 && (((int)dy) & 1) != 0;
    int x_neg = (as_uint(x) >> 31) != 0u;
    if (isinf(y)) {
        if (ax == 1.0) return 1.0f;
        return ((ax > 1.0) == (dy > 0.0)) ? INFINITY : 0.0f;
    }
    if (dx == 0.0) {
        float z = dy < 0.0 ? INFINITY : 0.0f;
        return y_odd ? copysign(z, x) : z;
    }
    if (isinf(x)) {
        float z = dy < 0.0 ? 0.0f : INFINITY;
        return (x_neg && y_odd) ? -z : z;
    }
    if (x_neg && !y_int) return NAN;
    float z = (float)__ferrocl_exp_f64(dy * __ferrocl_log_f64(ax));
    return (x_neg && y_odd) ? -z : z;
}

float __ferrocl_powr_ff64(float x, float y) {
    double dx = __ferrocl_float_to_double(x);
    double dy = __ferrocl_float_to_double(y);
    if (isnan(x) || isnan(y) || dx < 0.0) return NAN;
    if (dx == 0.0) return dy == 0.0 ? NAN : (dy < 0.0 ? INFINITY : 0.0f);
    if (isinf(x)) return dy == 0.0 ? NAN : (dy < 0.0 ? 0.0f : INFINITY);
    if (dx == 1.0) return isinf(y) ? NAN : 1.0f;
    return __ferrocl_pow_ff64(x, y);
}

float __ferrocl_rootn_ff64(float x, int n) {
    double dx = __ferrocl_float_to_double(x);
    if (n == 0 || isnan(x) || (dx < 0.0 && (n & 1) == 0)) return NAN;
    if (dx == 0.0 || isinf(x)) {
        // 0 and infinity swap for negative n; odd roots keep x's sign.
        float z = ((dx == 0.0) == (n < 0)) ? INFINITY : 0.0f;
        return (n & 1) != 0 ? copysign(z, x) : z;
    }
    double r = __ferrocl_exp_f64(__ferrocl_log_f64(fabs(dx)) / (double)n);
    return copysign((float)r, x);
}

// Near the top of the float range sinh and cosh need e^|x| / 2 past
// FLT_MAX; in double it does not overflow.
float __ferrocl_sinh_ff64(float x) {
    return (float)__ferrocl_sinh_f64((double)x);
}

float __ferrocl_cosh_ff64(float x) {
    return (float)__ferrocl_cosh_f64((double)x);
}

double __ferrocl_ldexp_f64(double x, int n) {
    if (isnan(x) || isinf(x) || x == 0.0) return x;
    n = clamp(n, -2200, 2200);
    if (fabs(x) < 2.2250738585072014e-308) {
        x = x * 18014398509481984.0;
        n -= 54;
    }
    ulong b = as_ulong(x);
    int t = (int)((b >> 52) & 0x7ffUL) - 1023 + n;
    if (t > 1023) return copysign(INFINITY, x);
    if (t >= -1022) return as_double((b & 0x800fffffffffffffUL) | ((ulong)(t + 1023) << 52));
    if (t < -1076) return copysign(0.0, x);
    double m = as_double((b & 0x800fffffffffffffUL) | 0x0010000000000000UL);
    return m * as_double((ulong)(t + 1022 + 1023) << 52);
}


float __ferrocl_pown_ff64(float x, int n) {
    if (n == 0) return 1.0f;
    // n is exact as a double; the sign of an odd power follows x.
    float r = (float)__ferrocl_pow_f64(fabs(__ferrocl_float_to_double(x)), (double)n);
    return ((n & 1) != 0) ? copysign(r, x) : r;
}

int __ferrocl_ilogb_f64(double x) {
    if (isnan(x) || isinf(x)) return 2147483647;
    if (x == 0.0) return -2147483647 - 1;
    return __ferrocl_exponent_f64(x);
}

// Geometric functions scaled by a power of two as the float ones
// (library.cl): the largest |component| is brought into [1, 4).
double __ferrocl_pow2_f64(int k) {
    return as_double((ulong)(k + 1023) << 52);
}

int __ferrocl_geometry_exp_f64(double m) {
    return clamp((int)((as_ulong(m) >> 52) & 0x7fful) - 1023, -1022, 1022);
}

double __ferrocl_maxabs1_f64(double v) { return fabs(v); }
double __ferrocl_maxabs2_f64(double2 v) { return fmax(fabs(v.x), fabs(v.y)); }
double __ferrocl_maxabs3_f64(double3 v) { return fmax(fmax(fabs(v.x), fabs(v.y)), fabs(v.z)); }
double __ferrocl_maxabs4_f64(double4 v) {
    return fmax(fmax(fabs(v.x), fabs(v.y)), fmax(fabs(v.z), fabs(v.w)));
}

#define FERROCL_GEOMETRY_F64(N, T)                                             \
double __ferrocl_length##N##_f64(T v) {                                        \
    int k = __ferrocl_geometry_exp_f64(__ferrocl_maxabs##N##_f64(v));          \
    T s = v * __ferrocl_pow2_f64(-k);                                          \
    return sqrt(dot(s, s)) * __ferrocl_pow2_f64(k);                            \
}                                                                              \
double __ferrocl_distance##N##_f64(T a, T b) {                                 \
    return __ferrocl_length##N##_f64(a - b);                                   \
}                                                                              \
T __ferrocl_normalize##N##_f64(T v) {                                          \
    if (any(isinf(v))) v = select(copysign((T)0.0, v), copysign((T)1.0, v), isinf(v)); \
    int k = __ferrocl_geometry_exp_f64(__ferrocl_maxabs##N##_f64(v));          \
    T s = v * __ferrocl_pow2_f64(-k);                                          \
    double d = dot(s, s);                                                      \
    if (d == 0.0) return v;                                                    \
    return s * rsqrt(d);                                                       \
}

FERROCL_GEOMETRY_F64(1, double)
FERROCL_GEOMETRY_F64(2, double2)
FERROCL_GEOMETRY_F64(3, double3)
FERROCL_GEOMETRY_F64(4, double4)

double __ferrocl_logb_f64(double x) {
    if (isnan(x)) return x;
    if (isinf(x)) return INFINITY;
    if (x == 0.0) return -INFINITY;
    return (double)__ferrocl_exponent_f64(x);
}

double __ferrocl_nextafter_f64(double x, double y) {
    if (isnan(x) || isnan(y)) return x + y;
    if (x == y) return y;
    if (x == 0.0) return copysign(as_double(1UL), y);
    ulong b = as_ulong(x);
    // Away from zero when y is further out on x's side, else towards it.
    int away = (x < y) == (x > 0.0);
    return as_double(away ? b + 1UL : b - 1UL);
}
