//! OpenCL C 6.5 (operators): arithmetic, unary, increment, relational and
//! equality (vector results of -1/0), bitwise, logical, ternary selection,
//! shifts masked to the bit width, sizeof, comma, indirection and
//! address-of, pointer arithmetic and comparison.

mod common;
mod spec_support;

use spec_support::*;

#[test]
fn arithmetic_operators() {
    let rows: &[Row<i32, i32>] = &[
        row("add", "out[i] = x + 17;", |x| x.wrapping_add(17)),
        row("sub", "out[i] = 5 - x;", |x| 5i32.wrapping_sub(x)),
        row("mul", "out[i] = x * -3;", |x| x.wrapping_mul(-3)),
        row("div truncates", "out[i] = x / 7;", |x| x / 7),
        row("rem sign of dividend", "out[i] = x % 7;", |x| x % 7),
        row("div negative divisor", "out[i] = x / -5;", |x| {
            x.wrapping_div(-5)
        }),
        row("uint div", "out[i] = (int)((uint)x / 3u);", |x| {
            ((x as u32) / 3) as i32
        }),
        row("uint rem", "out[i] = (int)((uint)x % 10u);", |x| {
            ((x as u32) % 10) as i32
        }),
        row("unary minus", "out[i] = -x;", |x| x.wrapping_neg()),
        row("unary plus", "out[i] = +x;", |x| x),
        row(
            "pre increment",
            "int y = x; int z = ++y; out[i] = z + y;",
            |x| x.wrapping_add(1).wrapping_mul(2),
        ),
        row(
            "post increment",
            "int y = x; int z = y++; out[i] = z * 2 - y;",
            |x| x.wrapping_mul(2).wrapping_sub(x.wrapping_add(1)),
        ),
        row("pre decrement", "int y = x; out[i] = --y;", |x| {
            x.wrapping_sub(1)
        }),
        row("post decrement", "int y = x; y--; out[i] = y;", |x| {
            x.wrapping_sub(1)
        }),
        row(
            "compound ops",
            "int y = x; y += 3; y *= 2; y -= 1; y ^= 0x55; y |= 0x100; y &= ~1; out[i] = y;",
            |x| ((x.wrapping_add(3).wrapping_mul(2).wrapping_sub(1)) ^ 0x55 | 0x100) & !1,
        ),
        row(
            "compound div rem",
            "int y = x; y /= 3; y %= 5; out[i] = y;",
            |x| (x / 3) % 5,
        ),
        row(
            "long mul",
            "long a = x; out[i] = (int)((a * a) >> 31);",
            |x| ((x as i64 * x as i64) >> 31) as i32,
        ),
        row(
            "vector add",
            "int4 v = (int4)(x, 1, 2, 3) + (int4)(4); out[i] = v.x + v.w;",
            |x| x.wrapping_add(4).wrapping_add(7),
        ),
        row(
            "vector div by scalar",
            "int2 v = (int2)(x, 100) / 3; out[i] = v.x + v.y;",
            |x| x / 3 + 33,
        ),
        row(
            "vector rem",
            "int4 v = (int4)(x) % (int4)(2, 3, 5, 7); out[i] = v.x + v.y + v.z + v.w;",
            |x| x % 2 + x % 3 + x % 5 + x % 7,
        ),
        row(
            "vector unary minus",
            "int3 v = -(int3)(x, 1, -1); out[i] = v.x + v.y * 10 + v.z * 100;",
            |x| x.wrapping_neg().wrapping_add(90),
        ),
        row(
            "vector increment",
            "int2 v = (int2)(x, 1); v++; ++v; out[i] = v.x + v.y;",
            |x| x.wrapping_add(2).wrapping_add(3),
        ),
    ];
    check_rows("int", "int", &int_inputs(), rows, "", 0.0);
}

#[test]
fn relational_and_equality_operators() {
    let rows: &[Row<i32, i32>] = &[
        row("scalar less", "out[i] = x < 3;", |x| (x < 3) as i32),
        row("scalar greater equal", "out[i] = (x >= -2) * 5;", |x| (x >= -2) as i32 * 5),
        row("scalar equal", "out[i] = (x == 7) | (x != 7) << 1;", |x| (x == 7) as i32 | ((x != 7) as i32) << 1),
        row("vector less gives -1/0", "int4 r = (int4)(x) < (int4)(0, 1, 2, 3); out[i] = r.x + r.y * 10 + r.z * 100 + r.w * 1000;", |x| -((x < 0) as i32) - 10 * (x < 1) as i32 - 100 * (x < 2) as i32 - 1000 * (x < 3) as i32),
        row("vector equal result type", "int2 r = (int2)(x, 5) == (int2)(5, 5); out[i] = r.x * 2 + r.y;", |x| -2 * (x == 5) as i32 - 1),
        row("float vector compare gives int vector", "int4 r = convert_float4((int4)(x)) > (float4)(0.0f); out[i] = r.w;", |x| -((x as f32 > 0.0) as i32)),
        row("char vector compare gives char", "char4 r = (char4)((char)x) != (char4)(0); out[i] = r.y + 100 * (int)sizeof(r);", |x| -((x as i8 != 0) as i32) + 400),
        row("long vector compare gives long", "long2 r = (long2)(x) <= (long2)(0); out[i] = (int)(r.x >> 32);", |x| -((x <= 0) as i32)),
        row("unsigned compare", "out[i] = (uint)x > 100u;", |x| (x as u32 > 100) as i32),
        row("scalar vs vector compare widens", "int4 r = 2 < (int4)(x, 1, 2, 3); out[i] = r.x + r.w;", |x| -((2 < x) as i32) - 1),
    ];
    check_rows("int", "int", &int_inputs(), rows, "", 0.0);

    let frows: &[Row<f32, i32>] = &[
        row("float less", "out[i] = x < 0.5f;", |x| (x < 0.5) as i32),
        row(
            "float NaN not equal",
            "float n = as_float(0x7fc00000u) + x; out[i] = (n == n) + (n != n) * 2 + (n < x) * 4;",
            |_| 2,
        ),
        row(
            "float vector isequal style",
            "int2 r = (float2)(x, 1.0f) == (float2)(1.0f); out[i] = r.x * 10 + r.y;",
            |x| -10 * (x == 1.0) as i32 - 1,
        ),
        row(
            "negative zero equals zero",
            "out[i] = (-0.0f == 0.0f) + (x == -x) * 2;",
            |x| 1 + 2 * (x == -x) as i32,
        ),
    ];
    check_rows("float", "int", &float_inputs(), frows, "", 0.0);
}

#[test]
fn bitwise_logical_and_shift_operators() {
    let rows: &[Row<i32, i32>] = &[
        row("and or xor not", "out[i] = (x & 0xf0f0) | (x ^ 0x0f0f) & ~x;", |x| (x & 0xf0f0) | ((x ^ 0x0f0f) & !x)),
        row("logical and short circuits", "int y = 0; if (x > 0 && (y = 5)) y++; out[i] = y;", |x| if x > 0 { 6 } else { 0 }),
        row("logical or short circuits", "int y = 1; if (x > 0 || (y = 9)) y += 10; out[i] = y;", |x| if x > 0 { 11 } else { 19 }),
        row("logical not", "out[i] = !x + !!x * 2;", |x| (x == 0) as i32 + 2 * (x != 0) as i32),
        row("shift left masked", "out[i] = 1 << (x & 63);", |x| 1i32.wrapping_shl((x & 63) as u32)),
        row("shift amount masked to 5 bits", "int s = x; out[i] = 3 << s;", |x| 3i32.wrapping_shl(x as u32 & 31)),
        row("arithmetic right shift", "out[i] = x >> 3;", |x| x >> 3),
        row("logical right shift of uint", "out[i] = (int)((uint)x >> 7);", |x| ((x as u32) >> 7) as i32),
        row("char shift promoted to int", "char c = (char)1; char s = (char)(x & 15); out[i] = (char)(c << s);", |x| (1i32 << ((x & 15) & 31)) as i8 as i32),
        row("short shift promoted to int", "short c = 1; out[i] = (short)(c << (short)(x & 31));", |x| 1i32.wrapping_shl((x & 31) as u32) as i16 as i32),
        row(
            "char vector shift masked to 3 bits",
            "char2 c = (char2)(1) << (char2)((char)(x & 15), 9); out[i] = c.x + c.y * 1000;",
            |x| (1u8 << ((x & 15) & 7)) as i8 as i32 + 2000,
        ),
        row(
            "short vector shift masked to 4 bits",
            "short2 c = (short2)(1) << (short2)((short)(x & 31), 17); out[i] = c.x + c.y * 100000;",
            |x| (1u16 << ((x & 31) & 15)) as i16 as i32 + 200_000,
        ),
        row("long shift masked to 6 bits", "long l = 1; out[i] = (int)((l << (x & 127)) >> 32);", |x| ((1i64.wrapping_shl((x & 127) as u32 & 63)) >> 32) as i32),
        row("vector shift per component", "int4 v = (int4)(1) << (int4)(x, 1, 33, 2); out[i] = v.x ^ v.y ^ v.z ^ v.w;", |x| 1i32.wrapping_shl(x as u32 & 31) ^ 2 ^ 2 ^ 4),
        row("vector shift by scalar", "uint2 v = (uint2)((uint)x, 0x80000000u) >> 4; out[i] = (int)(v.x + v.y);", |x| ((x as u32 >> 4).wrapping_add(0x0800_0000)) as i32),
        row("vector logical not gives -1/0", "int4 r = !(int4)(x, 0, 1, -1); out[i] = r.x * 1000 + r.y * 100 + r.z * 10 + r.w;", |x| -1000 * (x == 0) as i32 - 100),
        row("vector logical and", "int2 r = (int2)(x, 1) && (int2)(1, 0); out[i] = r.x * 10 + r.y;", |x| -10 * (x != 0) as i32),
        row("vector logical or", "int2 r = (int2)(x, 0) || (int2)(0, 0); out[i] = r.x * 10 + r.y;", |x| -10 * (x != 0) as i32),
        row("scalar && vector widens the scalar", "char2 r = (char)x && (char2)(1, 0); out[i] = r.x * 10 + r.y;", |x| -10 * (x as i8 != 0) as i32),
        row("scalar || vector with a call on the right", "int c[3] = {0, 0, 0}; int3 r = x || vload3(0, c); out[i] = r.x * 100 + r.y * 10 + r.z;", |x| -111 * (x != 0) as i32),
        row("scalar || vector with side effects evaluates both", "int n = 0; int2 r = 1 || (int2)(n++, 0); out[i] = r.x + r.y * 10 + n * 100;", |_| 89),
        row("vector bitwise not", "uchar4 v = ~as_uchar4(x); out[i] = as_int(v);", |x| !x),
        row("comma operator", "int y = (x, 5); int z = 0; for (int j = 0, k = 3; j < k; j++, k--) z += 1; out[i] = y + z;", |_| 7),
    ];
    check_rows("int", "int", &int_inputs(), rows, "", 0.0);
}

#[test]
fn ternary_selection() {
    let rows: &[Row<i32, i32>] = &[
        row("scalar ternary", "out[i] = x > 0 ? x : -x;", |x| if x > 0 { x } else { x.wrapping_neg() }),
        row("ternary only evaluates one side", "int y = 0; int z = x > 0 ? (y = 1) : (y = 2); out[i] = y * 10 + z;", |x| if x > 0 { 11 } else { 22 }),
        row("vector ternary selects on MSB", "int4 c = (int4)(x, -1, 0, 1 << 31); int4 r = c ? (int4)(1) : (int4)(2); out[i] = r.x * 1000 + r.y * 100 + r.z * 10 + r.w;", |x| (if x < 0 { 1000 } else { 2000 }) + 100 + 20 + 1),
        row("vector ternary with compare", "int4 v = (int4)(x, 5, -5, 0); int4 r = v > 0 ? v : -v; out[i] = r.y + r.z + r.w + (r.x == (x > 0 ? x : -x));", |_| 11),
        row("float vector ternary", "float2 a = (float2)(1.0f, 2.0f); float2 b = (float2)(3.0f, 4.0f); int2 c = (int2)(x, -1); float2 r = c ? a : b; out[i] = (int)(r.x * 10 + r.y);", |x| if x < 0 { 12 } else { 32 }),
        row("ternary nested", "out[i] = x < 0 ? -1 : x == 0 ? 0 : 1;", |x| x.signum()),
        row("ternary usual arithmetic", "out[i] = (int)sizeof(x > 0 ? (char)1 : 2L);", |_| 8),
    ];
    check_rows("int", "int", &int_inputs(), rows, "", 0.0);
}

#[test]
fn pointers_address_of_and_indirection() {
    let rows: &[Row<i32, i32>] = &[
        row("address of and deref", "int y = x; int *p = &y; *p += 2; out[i] = y;", |x| x.wrapping_add(2)),
        row("pointer arithmetic on array", "int a[4] = {1, 2, 3, 4}; int *p = a + 2; out[i] = *p + p[1] + *(p - 2);", |_| 3 + 4 + 1),
        row("pointer difference", "int a[8]; int *p = &a[6], *q = &a[1]; out[i] = (int)(p - q);", |_| 5),
        row("pointer comparison", "int a[4]; int *p = &a[x & 3]; out[i] = (p > a) + (p == a) * 2 + (p <= &a[3]) * 4;", |x| ((x & 3) > 0) as i32 + 2 * ((x & 3) == 0) as i32 + 4),
        row("pointer increment walks array", "int a[5] = {5, 4, 3, 2, 1}; int s = 0; for (int *p = a; p != a + 5; p++) s = s * 10 + *p; out[i] = s;", |_| 54321),
        row("global pointer arithmetic", "global const int *p = in + i; out[i] = *p + (int)(p - in) * 0;", |x| x),
        row("global pointer comparison", "global int *p = out + i; global int *q = out; out[i] = (p >= q) + (p == q + i) * 2;", |_| 3),
        row("char pointer over int", "int y = x; uchar *b = (uchar *)&y; out[i] = b[0] + (b[3] << 8);", |x| (x & 0xff) + (((x as u32) >> 24) as i32) * 256),
        row("pointer to struct member", "struct { int a; int b; } s; int *p = &s.b; *p = x; s.a = 1; out[i] = s.a + s.b;", |x| x.wrapping_add(1)),
        row("arrow operator", "struct P { int v; } s; struct P *p = &s; p->v = x; out[i] = s.v * 2;", |x| x.wrapping_mul(2)),
        row("vector component through pointer", "int4 v = (int4)(0); int *p = (int *)&v; p[2] = x; out[i] = v.z;", |x| x),
    ];
    check_rows("int", "int", &int_inputs(), rows, "", 0.0);
}

#[test]
fn float_operators() {
    let rows: &[Row<f32, f32>] = &[
        row("float add sub", "out[i] = (x + 3.0f) - 1.0f;", |x| {
            (x + 3.0) - 1.0
        }),
        row(
            "float compound",
            "float y = x; y += 1.0f; y *= 0.5f; out[i] = y;",
            |x| (x + 1.0) * 0.5,
        ),
        row("float increment", "float y = x; y++; out[i] = y;", |x| {
            x + 1.0
        }),
        row(
            "float vector ops",
            "float4 v = (float4)(x, 1.0f, 2.0f, 3.0f); v = v * v - v; out[i] = v.x + v.w;",
            |x| (x * x - x) + 6.0,
        ),
        row("float ternary", "out[i] = x < 0.0f ? -x : x;", |x| {
            if x < 0.0 {
                -x
            } else {
                x
            }
        }),
    ];
    check_rows("float", "float", &float_inputs(), rows, "", 0.0);
    // Single-precision division is within 2.5 ulp (OpenCL C 7.4), not
    // correctly rounded: NVIDIA's is not.
    let division: &[Row<f32, f32>] = &[row("float mul div", "out[i] = x * 3.0f / 7.0f;", |x| {
        x * 3.0 / 7.0
    })];
    check_rows(
        "float",
        "float",
        &float_inputs(),
        division,
        "",
        3.0 * f64::from(f32::EPSILON),
    );
}

#[test]
fn subscript_with_the_array_second() {
    let rows: &[Row<i32, i32>] = &[row(
        "index commutes",
        "int a[3] = {7, 8, 9}; out[i] = 2[a] + 0[a];",
        |_| 16,
    )];
    check_rows("int", "int", &int_inputs(), rows, "", 0.0);
}

#[test]
fn ternary_between_private_objects() {
    let rows: &[Row<i32, i32>] = &[row(
        "ternary lvalue free with pointers",
        "int a = 1, b = 2; int *p = x > 0 ? &a : &b; *p = 9; out[i] = a * 10 + b;",
        |x| if x > 0 { 92 } else { 19 },
    )];
    check_rows("int", "int", &int_inputs(), rows, "", 0.0);
}
