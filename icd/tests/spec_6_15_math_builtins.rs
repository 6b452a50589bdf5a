//! OpenCL C 6.15.2 (math functions), 6.15.4 (common functions) and
//! 6.15.5 (geometric functions) on float, compared with the host within a
//! relative tolerance that covers the ULP bounds of 7.4 for these inputs.

mod common;
mod spec_support;

use spec_support::*;

/// Positive inputs for functions with a restricted domain.
fn positive_inputs() -> Vec<f32> {
    let mut v = vec![1.0, 0.5, 2.0, 10.0, 1e-3, 123.456];
    let mut rng = common::XorShift::new(11);
    v.extend(rng.floats(26, 0.01, 100.0));
    v
}

/// Inputs in [-1, 1].
fn unit_inputs() -> Vec<f32> {
    let mut v = vec![0.0, 1.0, -1.0, 0.5, -0.5];
    let mut rng = common::XorShift::new(13);
    v.extend(rng.floats(27, -1.0, 1.0));
    v
}

const TOL: f64 = 1e-5;

#[test]
fn math_functions_any_input() {
    let rows: &[Row<f32, f32>] = &[
        row("fabs", "out[i] = fabs(x);", |x| x.abs()),
        row("floor", "out[i] = floor(x);", |x| x.floor()),
        row("ceil", "out[i] = ceil(x);", |x| x.ceil()),
        row("trunc", "out[i] = trunc(x);", |x| x.trunc()),
        row("round half away", "out[i] = round(x);", |x| x.round()),
        row("rint half even", "out[i] = rint(x);", |x| {
            x.round_ties_even()
        }),
        row(
            "fmin fmax",
            "out[i] = fmin(x, 1.0f) + fmax(x, -1.0f);",
            |x| x.min(1.0) + x.max(-1.0),
        ),
        row("fmod", "out[i] = fmod(x, 3.0f);", |x| x % 3.0),
        row("copysign", "out[i] = copysign(2.0f, x);", |x| {
            2f32.copysign(x)
        }),
        row("fdim", "out[i] = fdim(x, 1.0f);", |x| {
            if x > 1.0 {
                x - 1.0
            } else {
                0.0
            }
        }),
        row("sin", "out[i] = sin(x);", |x| x.sin()),
        row("cos", "out[i] = cos(x);", |x| x.cos()),
        row("tan", "out[i] = tan(x * 0.1f);", |x| (x * 0.1).tan()),
        row("atan", "out[i] = atan(x);", |x| x.atan()),
        row("atan2", "out[i] = atan2(x, 2.0f);", |x| x.atan2(2.0)),
        row("exp", "out[i] = exp(x * 0.1f);", |x| (x * 0.1).exp()),
        row("exp2", "out[i] = exp2(x * 0.25f);", |x| (x * 0.25).exp2()),
        row("sinh", "out[i] = sinh(x * 0.1f);", |x| (x * 0.1).sinh()),
        row("cosh", "out[i] = cosh(x * 0.1f);", |x| (x * 0.1).cosh()),
        row("tanh", "out[i] = tanh(x * 0.1f);", |x| (x * 0.1).tanh()),
        row("cbrt", "out[i] = cbrt(x);", |x| x.cbrt()),
        row("hypot", "out[i] = hypot(x, 3.0f);", |x| x.hypot(3.0)),
        row("fma", "out[i] = fma(x, 3.0f, 0.5f);", |x| {
            x.mul_add(3.0, 0.5)
        }),
        row("mad", "out[i] = mad(x, 2.0f, 1.0f);", |x| x * 2.0 + 1.0),
        row("pown", "out[i] = pown(x * 0.1f, 3);", |x| (x * 0.1).powi(3)),
        row("ldexp", "out[i] = ldexp(x, 3);", |x| x * 8.0),
        row(
            "frexp",
            "int e; float m = frexp(x + 100.0f, &e); out[i] = m * 1000.0f + (float)e;",
            |x| {
                let v = x + 100.0;
                let e = v.abs().log2().floor() as i32 + 1;
                v / 2f32.powi(e) * 1000.0 + e as f32
            },
        ),
        row(
            "modf",
            "float ip; float fp = modf(x, &ip); out[i] = fp * 10.0f + ip;",
            |x| x.fract() * 10.0 + x.trunc(),
        ),
        row(
            "fract",
            "float fl; out[i] = fract(x, &fl) + fl * 0.0f;",
            |x| (x - x.floor()).min(f32::from_bits(0x3f7f_ffff)),
        ),
        row("remainder", "out[i] = remainder(x, 2.0f);", |x| {
            x - 2.0 * (x / 2.0).round_ties_even()
        }),
        row("maxmag", "out[i] = maxmag(x, -2.0f);", |x| {
            if x.abs() > 2.0 {
                x
            } else if x.abs() < 2.0 {
                -2.0
            } else {
                x.max(-2.0)
            }
        }),
        row("minmag", "out[i] = minmag(x, -2.0f);", |x| {
            if x.abs() < 2.0 {
                x
            } else if x.abs() > 2.0 {
                -2.0
            } else {
                x.min(-2.0)
            }
        }),
        row("nextafter", "out[i] = nextafter(x, 1000.0f);", |x| {
            if x == 0.0 {
                f32::from_bits(1)
            } else {
                x.next_up()
            }
        }),
        row(
            "sinpi cospi",
            "out[i] = sinpi(x * 0.01f) + cospi(x * 0.01f);",
            |x| (std::f32::consts::PI * x * 0.01).sin() + (std::f32::consts::PI * x * 0.01).cos(),
        ),
        row(
            "float4 sin",
            "float4 v = sin((float4)(x, x * 0.5f, 0.0f, 1.0f)); out[i] = v.x + v.y + v.z + v.w;",
            |x| x.sin() + (x * 0.5).sin() + 1f32.sin(),
        ),
        row("native_sin", "out[i] = native_sin(x * 0.01f);", |x| {
            (x * 0.01).sin()
        }),
        row("half_cos", "out[i] = half_cos(x * 0.01f);", |x| {
            (x * 0.01).cos()
        }),
    ];
    check_rows("float", "float", &float_inputs(), rows, "", TOL);
}

#[test]
fn math_functions_restricted_domain() {
    let rows: &[Row<f32, f32>] = &[
        row("sqrt", "out[i] = sqrt(x);", |x| x.sqrt()),
        row("rsqrt", "out[i] = rsqrt(x);", |x| 1.0 / x.sqrt()),
        row("log", "out[i] = log(x);", |x| x.ln()),
        row("log2", "out[i] = log2(x);", |x| x.log2()),
        row("log10", "out[i] = log10(x);", |x| x.log10()),
        row("log1p", "out[i] = log1p(x);", |x| x.ln_1p()),
        row("pow", "out[i] = pow(x, 1.5f);", |x| x.powf(1.5)),
        row("powr", "out[i] = powr(x, 0.5f);", |x| x.powf(0.5)),
        row("rootn", "out[i] = rootn(x, 3);", |x| x.cbrt()),
        row("logb", "out[i] = logb(x);", |x| x.log2().floor()),
        row("expm1", "out[i] = expm1(x * 0.01f);", |x| {
            (x * 0.01).exp_m1()
        }),
        row("native_sqrt", "out[i] = native_sqrt(x);", |x| x.sqrt()),
        row("native_divide", "out[i] = native_divide(1.0f, x);", |x| {
            1.0 / x
        }),
        row("native_recip", "out[i] = native_recip(x);", |x| 1.0 / x),
    ];
    check_rows("float", "float", &positive_inputs(), rows, "", TOL * 10.0);
    let unit: &[Row<f32, f32>] = &[
        row("asin", "out[i] = asin(x);", |x| x.asin()),
        row("acos", "out[i] = acos(x);", |x| x.acos()),
        row("atanh", "out[i] = atanh(x * 0.9f);", |x| (x * 0.9).atanh()),
        row("asinh", "out[i] = asinh(x);", |x| x.asinh()),
        row("acosh", "out[i] = acosh(2.0f + x);", |x| (2.0 + x).acosh()),
        row("asinpi", "out[i] = asinpi(x);", |x| {
            x.asin() / std::f32::consts::PI
        }),
        row("acospi", "out[i] = acospi(x);", |x| {
            x.acos() / std::f32::consts::PI
        }),
        row("atanpi", "out[i] = atanpi(x);", |x| {
            x.atan() / std::f32::consts::PI
        }),
        row("tanpi", "out[i] = tanpi(x * 0.2f);", |x| {
            (x * 0.2 * std::f32::consts::PI).tan()
        }),
        row("erf", "out[i] = erf(x);", |x| erf(x as f64) as f32),
        row("exp10", "out[i] = exp10(x);", |x| 10f32.powf(x)),
        row(
            "sincos",
            "float c; float s = sincos(x, &c); out[i] = s * 2.0f + c;",
            |x| x.sin() * 2.0 + x.cos(),
        ),
    ];
    check_rows("float", "float", &unit_inputs(), unit, "", TOL * 10.0);
}

/// erf by its Taylor series (enough terms for |x| <= 1 to double precision).
fn erf(x: f64) -> f64 {
    let mut sum = 0.0;
    let mut term = x;
    for n in 0..40 {
        sum += term / (2 * n + 1) as f64;
        term *= -x * x / (n + 1) as f64;
    }
    sum * 2.0 / std::f64::consts::PI.sqrt()
}

#[test]
fn common_functions() {
    let rows: &[Row<f32, f32>] = &[
        row("clamp", "out[i] = clamp(x, -1.0f, 2.0f);", |x| x.clamp(-1.0, 2.0)),
        row("degrees", "out[i] = degrees(x);", |x| x.to_degrees()),
        row("radians", "out[i] = radians(x);", |x| x.to_radians()),
        row("max min", "out[i] = max(x, 0.0f) + min(x, 1.0f);", |x| x.max(0.0) + x.min(1.0)),
        row("mix", "out[i] = mix(x, 10.0f, 0.25f);", |x| x + (10.0 - x) * 0.25),
        row("step", "out[i] = step(0.5f, x);", |x| if x < 0.5 { 0.0 } else { 1.0 }),
        row("smoothstep", "out[i] = smoothstep(-10.0f, 10.0f, x);", |x| { let t = ((x + 10.0) / 20.0).clamp(0.0, 1.0); t * t * (3.0 - 2.0 * t) }),
        row("sign", "out[i] = sign(x);", |x| if x > 0.0 { 1.0 } else if x < 0.0 { -1.0 } else { x }),
        row("clamp of vector with scalars", "float4 v = clamp((float4)(x, -x, 0.0f, 5.0f), -1.0f, 1.0f); out[i] = v.x + v.y * 10.0f + v.w * 100.0f;", |x| x.clamp(-1.0, 1.0) + 10.0 * (-x).clamp(-1.0, 1.0) + 100.0),
        row("mix of vectors", "float2 v = mix((float2)(x, 0.0f), (float2)(1.0f, 4.0f), (float2)(0.5f, 0.25f)); out[i] = v.x + v.y;", |x| (x + (1.0 - x) * 0.5) + 1.0),
    ];
    check_rows("float", "float", &float_inputs(), rows, "", TOL);
}

#[test]
fn geometric_functions() {
    let rows: &[Row<f32, f32>] = &[
        row("dot", "out[i] = dot((float4)(x, 1.0f, 2.0f, 3.0f), (float4)(2.0f, x, 1.0f, 0.5f));", |x| 2.0 * x + x + 2.0 + 1.5),
        row("dot of float2", "out[i] = dot((float2)(x, 1.0f), (float2)(x, 1.0f));", |x| x * x + 1.0),
        row("cross", "float3 c = cross((float3)(x, 1.0f, 0.0f), (float3)(0.0f, 1.0f, x)); out[i] = c.x + c.y * 10.0f + c.z * 100.0f;", |x| x + 10.0 * (-x * x) + 100.0 * x),
        row("cross of float4", "float4 c = cross((float4)(1.0f, 0.0f, 0.0f, 5.0f), (float4)(0.0f, x, 0.0f, 7.0f)); out[i] = c.z + c.w;", |x| x),
        row("length", "out[i] = length((float3)(x, 3.0f, 4.0f));", |x| (x * x + 25.0).sqrt()),
        row("distance", "out[i] = distance((float2)(x, 0.0f), (float2)(0.0f, 2.0f));", |x| (x * x + 4.0).sqrt()),
        row("normalize", "float2 n = normalize((float2)(x + 0.001f, 1.0f)); out[i] = n.x;", |x| { let a = x + 0.001; a / (a * a + 1.0).sqrt() }),
        row("fast_length", "out[i] = fast_length((float2)(x, 1.0f));", |x| (x * x + 1.0).sqrt()),
        row("fast_distance", "out[i] = fast_distance((float4)(x), (float4)(0.0f));", |x| 2.0 * x.abs()),
        row("fast_normalize", "out[i] = fast_normalize((float2)(3.0f, 4.0f)).y + x * 0.0f;", |_| 0.8),
        row("length of scalar", "out[i] = length(x);", |x| x.abs()),
    ];
    check_rows("float", "float", &float_inputs(), rows, "", 1e-3);
}

#[test]
fn double_math_functions() {
    if !device_defines("cl_khr_fp64", "") {
        eprintln!("the device lacks cl_khr_fp64: nothing to run");
        return;
    }
    let rows: &[Row<f32, f64>] = &[
        row(
            "double add keeps precision",
            "double d = x; out[i] = d + 1e-12;",
            |x| x as f64 + 1e-12,
        ),
        row(
            "double mul div",
            "double d = x; out[i] = d * 3.0 / 7.0;",
            |x| x as f64 * 3.0 / 7.0,
        ),
        row(
            "double sqrt",
            "double d = fabs((double)x); out[i] = sqrt(d);",
            |x| (x as f64).abs().sqrt(),
        ),
        row("double sin", "out[i] = sin((double)x);", |x| {
            (x as f64).sin()
        }),
        row("double cos", "out[i] = cos((double)x);", |x| {
            (x as f64).cos()
        }),
        row("double exp", "out[i] = exp((double)x * 0.1);", |x| {
            (x as f64 * 0.1).exp()
        }),
        row("double log", "out[i] = log(fabs((double)x) + 1.0);", |x| {
            ((x as f64).abs() + 1.0).ln()
        }),
        row(
            "double pow",
            "out[i] = pow(fabs((double)x) + 1.0, 1.5);",
            |x| ((x as f64).abs() + 1.0).powf(1.5),
        ),
        row("double atan2", "out[i] = atan2((double)x, 3.0);", |x| {
            (x as f64).atan2(3.0)
        }),
        row(
            "double floor fma",
            "out[i] = floor((double)x) + fma((double)x, 2.0, 0.5);",
            |x| (x as f64).floor() + (x as f64).mul_add(2.0, 0.5),
        ),
        row(
            "double from long",
            "long l = (long)(x * 1000.0f); out[i] = (double)(l * 1000003L);",
            |x| (((x * 1000.0) as i64) * 1_000_003) as f64,
        ),
        row(
            "double to float rounding",
            "double d = (double)x / 3.0; out[i] = (double)(float)d;",
            |x| ((x as f64 / 3.0) as f32) as f64,
        ),
        row(
            "convert_float_rtz of double",
            "double d = (double)x / 3.0; out[i] = convert_float_rtz(d);",
            |x| {
                let d = x as f64 / 3.0;
                let f = d as f32;
                if (f as f64).abs() > d.abs() {
                    f32::from_bits(f.to_bits() - 1) as f64
                } else {
                    f as f64
                }
            },
        ),
        row(
            "double vector dot",
            "double4 v = (double4)(x, 1.0, 2.0, 3.0); out[i] = dot(v, v);",
            |x| (x as f64) * (x as f64) + 14.0,
        ),
    ];
    check_rows("float", "double", &float_inputs(), rows, "", 1e-12);
}
