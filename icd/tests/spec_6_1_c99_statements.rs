//! OpenCL C 6.1: the language is C99 with restrictions, so its statements
//! work as in C99: if/else, the three loops, switch with fall-through and
//! default, break/continue, return from nested loops, goto where the
//! control flow is structured, blocks and scopes.

mod common;
mod spec_support;

use spec_support::*;

fn collatz_steps(mut n: u32) -> i32 {
    let mut steps = 0;
    while n != 1 && steps < 1000 {
        n = if n.is_multiple_of(2) {
            n / 2
        } else {
            3 * n + 1
        };
        steps += 1;
    }
    steps
}

#[test]
fn selection_and_iteration() {
    let rows: &[Row<i32, i32>] = &[
        row("if else chain", "if (x < -100) out[i] = -2; else if (x < 0) out[i] = -1; else if (x == 0) out[i] = 0; else out[i] = 1;", |x| if x < -100 { -2 } else if x < 0 { -1 } else if x == 0 { 0 } else { 1 }),
        row("dangling else binds inner", "out[i] = 0; if (x > 0) if (x > 100) out[i] = 2; else out[i] = 1;", |x| if x > 0 { if x > 100 { 2 } else { 1 } } else { 0 }),
        row("for loop", "int s = 0; for (int j = 0; j < (x & 15); j++) s += j; out[i] = s;", |x| (0..(x & 15)).sum()),
        // A pragma is no statement: the loop after it is the body (OpenCV's
        // Farneback optical flow nests its loops so).
        row("pragma between a loop and its body", "int s = 0; for (int a = 0; a < 3; a++)\n#pragma unroll\n for (int b = 0; b < 4; b++) s += a * 4 + b + (x & 1);\n out[i] = s;", |x| 66 + 12 * (x & 1)),
        row("pragma between if and its loop", "int s = 0; if (x > 0)\n#pragma unroll 2\n for (int b = 0; b < 3; b++) s += b;\n out[i] = s;", |x| if x > 0 { 3 } else { 0 }),
        row("while loop", "uint n = ((uint)x & 255) + 1; int steps = 0; while (n != 1 && steps < 1000) { n = (n & 1) ? 3 * n + 1 : n / 2; steps++; } out[i] = steps;", |x| collatz_steps(((x as u32) & 255) + 1)),
        row("do while runs once", "int s = 0; do { s++; } while (x > 0 && s < 3); out[i] = s;", |x| if x > 0 { 3 } else { 1 }),
        row("break leaves inner loop only", "int s = 0; for (int a = 0; a < 4; a++) for (int b = 0; b < 4; b++) { if (b == a) break; s++; } out[i] = s + (x & 0);", |_| 6),
        row("continue skips", "int s = 0; for (int j = 0; j < 10; j++) { if (j % 3 == 0) continue; s += j; } out[i] = s + (x & 0);", |_| 1 + 2 + 4 + 5 + 7 + 8),
        row("return from nested loop", "out[i] = find(x & 63);", |x| if (x & 63) < 48 { (x & 63) / 8 * 10 + (x & 63) % 8 } else { -1 }),
        row("loop with early exit on data", "int j = 0; while (1) { if (j * j > (x & 1023)) break; j++; } out[i] = j;", |x| { let v = x & 1023; let mut j = 0; while j * j <= v { j += 1; } j }),
        row("for with empty parts", "int j = 0; for (;;) { if (++j >= 5) break; } out[i] = j + (x & 0);", |_| 5),
        row("loop counting down with unsigned", "uint s = 0; for (uint j = 10; j-- > 0;) s += j; out[i] = (int)s + (x & 0);", |_| 45),
        row("nested blocks and shadowing", "int v = 1; { int v = 2; { int v = x; out[i] = v; } out[i] += v; } out[i] += v;", |x| x.wrapping_add(3)),
        row("comma in for", "int s = 0; for (int a = 0, b = 10; a < b; a++, b--) s += b - a; out[i] = s + (x & 0);", |_| 10 + 8 + 6 + 4 + 2),
        row("loop variable after loop", "int j; for (j = 0; j < (x & 7); j++) {} out[i] = j;", |x| x & 7),
    ];
    let rows: Vec<Row<i32, i32>> = rows
        .iter()
        .map(|r| Row {
            prelude: "int find(int t) { for (int a = 0; a < 6; a++) for (int b = 0; b < 8; b++) if (a * 8 + b == t) return a * 10 + b; return -1; }",
            ..*r
        })
        .collect();
    check_rows("int", "int", &int_inputs(), &rows, "", 0.0);
}

#[test]
fn switch_statements() {
    let rows: &[Row<i32, i32>] = &[
        row("switch with default", "switch (x & 3) { case 0: out[i] = 10; break; case 1: out[i] = 11; break; default: out[i] = 12; }", |x| [10, 11, 12, 12][(x & 3) as usize]),
        row("fall-through accumulates", "int s = 0; switch (x & 3) { case 0: s += 1; case 1: s += 2; case 2: s += 4; break; case 3: s += 8; } out[i] = s;", |x| [7, 6, 4, 8][(x & 3) as usize]),
        row("default in the middle", "int s = 0; switch (x & 7) { case 1: s = 1; break; default: s = 5; case 2: s += 2; break; case 3: s = 3; } out[i] = s;", |x| match x & 7 { 1 => 1, 2 => 2, 3 => 3, _ => 7 }),
        row("no matching case and no default", "int s = 9; switch (x & 3) { case 5: s = 0; } out[i] = s;", |_| 9),
        row("switch on char with negative cases", "char c = (char)x; int s; switch (c) { case -1: s = 1; break; case 0: s = 2; break; case 127: s = 3; break; default: s = 4; } out[i] = s;", |x| match x as i8 { -1 => 1, 0 => 2, 127 => 3, _ => 4 }),
        row("case labels from enum and constant expressions", "enum { A = 2, B = A * 3 }; int s; switch (x & 7) { case A: s = 1; break; case B: s = 2; break; case 1 + 2: s = 3; break; default: s = 0; } out[i] = s;", |x| match x & 7 { 2 => 1, 6 => 2, 3 => 3, _ => 0 }),
        row("break inside loop inside switch", "int s = 0; switch (x & 1) { case 0: for (int j = 0; j < 10; j++) { if (j == 3) break; s++; } s += 100; break; default: s = -1; } out[i] = s;", |x| if x & 1 == 0 { 103 } else { -1 }),
        row("continue inside switch inside loop", "int s = 0; for (int j = 0; j < 6; j++) { switch (j & 1) { case 0: continue; default: break; } s += j; } out[i] = s + (x & 0);", |_| 1 + 3 + 5),
        row("nested switch", "int s = 0; switch (x & 1) { case 0: switch (x & 2) { case 0: s = 1; break; default: s = 2; } break; case 1: s = 3; } out[i] = s;", |x| if x & 1 == 1 { 3 } else if x & 2 == 0 { 1 } else { 2 }),
        row("switch on unsigned long", "ulong v = (ulong)(uint)x << 32; int s; switch (v >> 62) { case 0: s = 0; break; case 1: s = 1; break; case 2: s = 2; break; default: s = 3; } out[i] = s;", |x| ((x as u32) >> 30) as i32),
        row("return inside switch", "out[i] = classify(x);", |x| if x < 0 { -1 } else if x & 1 == 1 { 1 } else { 0 }),
    ];
    let rows: Vec<Row<i32, i32>> = rows
        .iter()
        .map(|r| Row {
            prelude: "int classify(int v) { switch (v < 0 ? 2 : v & 1) { case 2: return -1; case 1: return 1; default: return 0; } }",
            ..*r
        })
        .collect();
    check_rows("int", "int", &int_inputs(), &rows, "", 0.0);
}

#[test]
fn goto_where_structured() {
    let rows: &[Row<i32, i32>] = &[
        row("goto forward to skip", "int s = 1; if (x > 0) goto done; s = 2; done: out[i] = s;", |x| if x > 0 { 1 } else { 2 }),
        row("goto out of nested loops", "int s = 0; for (int a = 0; a < 5; a++) for (int b = 0; b < 5; b++) { if (a * b > (x & 15)) goto out; s++; } out: out[i] = s;", |x| { let t = x & 15; let mut s = 0; 'o: for a in 0..5 { for b in 0..5 { if a * b > t { break 'o; } s += 1; } } s }),
        row("goto as a loop", "int j = 0; again: j++; if (j < (x & 7)) goto again; out[i] = j;", |x| (x & 7).max(1)),
        row("goto to a cleanup label", "int s = 0; if (x < 0) { s = -1; goto end; } s = x & 255; end: out[i] = s;", |x| if x < 0 { -1 } else { x & 255 }),
    ];
    check_rows("int", "int", &int_inputs(), rows, "", 0.0);
}

#[test]
fn compound_literals() {
    let rows: &[Row<i32, i32>] = &[
        row_with(
            "struct compound literal",
            "typedef struct { int a, b; } P;",
            "P p = (P){x, 2}; out[i] = p.a + p.b;",
            |x| x.wrapping_add(2),
        ),
        row(
            "array compound literal",
            "int *p = (int[]){1, 2, x}; out[i] = p[2] + p[0];",
            |x| x.wrapping_add(1),
        ),
    ];
    check_rows("int", "int", &int_inputs(), rows, "", 0.0);
}

#[test]
fn memory_through_pointers_of_other_types() {
    let rows: &[Row<i32, i32>] = &[
        row_with(
            "global pointer stored in a struct",
            "typedef struct { global int *dst; int v; } W; void put(W w) { *w.dst = w.v; }",
            "W w; w.dst = out + i; w.v = x ^ 1; put(w);",
            |x| x ^ 1,
        ),
        row(
            "float3 array stride is 16 bytes",
            "float3 a[2]; a[1] = (float3)(1.0f, 2.0f, (float)(x & 255)); out[i] = (int)((float *)a)[6] + (int)sizeof(a);",
            |x| (x & 255) + 32,
        ),
        row(
            "global bytes rewritten through uchar pointer",
            "out[i] = x; global uchar *b = (global uchar *)(out + i); b[3] = 0x7f;",
            |x| (x & 0x00ff_ffff) | 0x7f00_0000,
        ),
        row(
            "local struct array walked with char pointer",
            "typedef struct { short s; char c; } S; local S t[64]; size_t l = get_local_id(0) & 63; t[l].s = (short)x; t[l].c = 3; local char *p = (local char *)&t[l]; out[i] = p[0] + p[2] * 1000;",
            |x| (x as i8 as i32) + 3000,
        ),
        row(
            "union of vector and array",
            "union { int4 v; int a[4]; } u; u.v = (int4)(x, 1, 2, 3); u.a[2] = 9; out[i] = u.v.z + u.a[0];",
            |x| x.wrapping_add(9),
        ),
    ];
    check_rows("int", "int", &int_inputs(), rows, "", 0.0);
}
