//! Initializers: designated initializers (C99 6.7.8), arrays sized by
//! their initializer, and compound literals (6.5.2.5), at function and
//! program scope. Each kernel must build and pass spirv-val.

mod common;

use common::build;

#[test]
fn designated_struct_and_array_initializers() {
    build(
        "struct P { int x, y; float4 v; };\n\
         struct Q { struct P p[2]; int tag; };\n\
         constant struct Q cq = { .tag = 9, .p[1].y = 7, .p[0] = { .v = (float4)(1.0f) } };\n\
         constant int tab[] = { [3] = 4, 5, [1] = 2 };\n\
         kernel void k(global int *o) {\n\
           struct P p = { .y = 2, .x = 1 };\n\
           int a[4] = { [2] = 5 };\n\
           struct Q q = { .p = { [1] = { 3, 4 } }, .tag = 6 };\n\
           int b[] = { 1, 2, 3 };\n\
           char s[] = \"abc\";\n\
           o[0] = p.x + a[2] + q.p[1].y + b[2] + sizeof(s) + tab[4] + cq.p[1].y;\n\
         }\n",
    );
}

#[test]
fn compound_literals() {
    build(
        "struct P { int x, y; };\n\
         int sum(struct P p) { return p.x + p.y; }\n\
         kernel void k(global int *o, global float4 *f) {\n\
           o[0] = sum((struct P){ 1, 2 }) + ((int[2]){ 5, 6 })[1];\n\
           int *p = (int[]){ 7, 8, 9 };\n\
           struct P *q = &(struct P){ .y = 3 };\n\
           q->x = p[1];\n\
           o[1] = q->x + q->y;\n\
           f[0] = (float4){ 1.0f, 2.0f };\n\
         }\n",
    );
}
