//! Execution tests for initializers (C99 6.7.8 as OpenCL C keeps it):
//! designated initializers for structs and arrays, nested designators,
//! arrays sized by their initializer, and compound literals (6.5.2.5).

mod common;

use common::*;

#[test]
fn designated_initializers_and_compound_literals() {
    let gpu = Gpu::new();
    let src = r#"
        struct P { int x, y; float4 v; };
        struct Q { struct P p[2]; int tag; };
        constant struct Q cq = { .tag = 9, .p[1].y = 7, .p[0] = { .v = (float4)(1.0f) } };
        constant int tab[] = { [3] = 4, 5, [1] = 2 };
        kernel void k(global int *o, int s) {
            struct P p = { .y = 2 + s, .x = 1 };
            int a[4] = { [2] = 5 };
            struct Q q = { .p = { [1] = { 3, 4 } }, .tag = 6 };
            int b[] = { 1, 2, 3 };
            o[0] = p.x + p.y + a[2] + q.p[1].x + q.p[1].y + q.tag + q.p[0].x + a[3];
            struct P c = (struct P){ .x = 3, 4 };
            o[1] = c.y + ((int[2]){ 5, 6 })[1] + (int)sizeof(b) + tab[3] + tab[4]
                 + tab[1] + (int)sizeof(tab) + tab[0];
            o[2] = cq.tag + cq.p[1].y + (int)cq.p[0].v.w + cq.p[1].x;
            int *ptr = (int[]){ 7, 8, 9 + s };
            o[3] = ptr[2] + ((struct P){ .y = 10 }).y;
            for (int i = 0; i < 3; i++) {
                int *fresh = (int[2]){ i };
                o[4 + i] = fresh[0] * 10 + fresh[1];
                fresh[1] = 99;
            }
        }"#;
    let k = gpu.kernel(src, "k");
    let out = gpu.zeroed::<i32>(8);
    k.arg_buffer(0, &out).arg(1, 100i32);
    gpu.run(&k, &[1], None, None);
    assert_same(
        &gpu.read::<i32>(&out),
        &[121, 53, 17, 119, 0, 10, 20, 0],
        "initializers",
    );
}
