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
    double2 p = __ferrocl_log_parts_f64(ax);
    double t = p.y * 1.4426950407214463 + p.y * 1.6751713164886512e-10;
    // y's head has 26 bits, so its product with the exponent is exact.
    double yh = as_double(as_ulong(y) & 0xfffffffff8000000UL);
    double yl = y - yh;
    double a = yh * p.x;
    double b = yl * p.x + y * t;
    double n = rint(a + b);
    double z;
    if (n > 1024.0) {
        z = INFINITY;
    } else if (n < -1076.0) {
        z = 0.0;
    } else {
        double f = (a - n) + b;
        z = __ferrocl_scale_f64(__ferrocl_exp_poly_f64(f * 0.6931471803691238 + f * 1.9082149292705877e-10), n);
    }
    return (x < 0.0 && y_odd) ? -z : z;
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

double __ferrocl_sin_f64(double x) {
    if (isnan(x) || isinf(x)) return NAN;
    double2 kr = __ferrocl_reduce_pio2_f64(x);
    int q = ((int)fmod(kr.x, 4.0) + 4) & 3;
    double r = kr.y;
    double v;
    if (q == 0) v = __ferrocl_sin_poly_f64(r);
    else if (q == 1) v = __ferrocl_cos_poly_f64(r);
    else if (q == 2) v = -__ferrocl_sin_poly_f64(r);
    else v = -__ferrocl_cos_poly_f64(r);
    return v;
}

double __ferrocl_cos_f64(double x) {
    if (isnan(x) || isinf(x)) return NAN;
    double2 kr = __ferrocl_reduce_pio2_f64(x);
    int q = ((int)fmod(kr.x, 4.0) + 4) & 3;
    double r = kr.y;
    double v;
    if (q == 0) v = __ferrocl_cos_poly_f64(r);
    else if (q == 1) v = -__ferrocl_sin_poly_f64(r);
    else if (q == 2) v = -__ferrocl_cos_poly_f64(r);
    else v = __ferrocl_sin_poly_f64(r);
    return v;
}

double __ferrocl_tan_f64(double x) {
    if (isnan(x) || isinf(x)) return NAN;
    double2 kr = __ferrocl_reduce_pio2_f64(x);
    int odd = ((int)fmod(kr.x, 2.0)) != 0;
    double s = __ferrocl_sin_poly_f64(kr.y);
    double c = __ferrocl_cos_poly_f64(kr.y);
    return odd ? -c / s : s / c;
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
    return x < 0.0 ? -r : r;
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
    // A float first guess, then Newton steps in double.
    double y = (double)cbrt((float)ax);
    if (y == 0.0 || isinf(y)) y = as_double(as_ulong(ax) / 3UL + 0x2a9f7893782da1ceUL);
    y = y - (y * y * y - ax) / (3.0 * y * y);
    y = y - (y * y * y - ax) / (3.0 * y * y);
    y = y - (y * y * y - ax) / (3.0 * y * y);
    return copysign(y, x);
}
