//! Execution tests for `goto` (C99 6.8.6.1 as OpenCL C keeps it): each
//! kernel runs on the first device and is compared with the same control
//! flow written in Rust.

mod common;

use common::*;

fn host_cleanup(v: &[i32], n: usize) -> [i32; 2] {
    let mut r = 0;
    for &x in &v[..n] {
        if x < 0 {
            return [-1, r];
        }
        r += x;
    }
    [r, r]
}

#[test]
fn forward_gotos_to_cleanup_and_exit() {
    let gpu = Gpu::new();
    let src = r#"
        kernel void k(global const int *in, global int *out) {
            int g = get_global_id(0);
            global const int *v = in + 8 * g;
            int n = g % 9, r = 0;
            for (int i = 0; i < n; i++) {
                if (v[i] < 0)
                    goto fail;
                r += v[i];
            }
            out[2 * g] = r;
            goto done;
        fail:
            out[2 * g] = -1;
        done:
            out[2 * g + 1] = r;
        }"#;
    let groups = 64;
    let mut rng = XorShift::new(7);
    let input: Vec<i32> = (0..8 * groups)
        .map(|_| (rng.next_u32() % 40) as i32 - 3)
        .collect();
    let k = gpu.kernel(src, "k");
    let (din, dout) = (gpu.buffer(&input), gpu.zeroed::<i32>(2 * groups));
    k.arg_buffer(0, &din).arg_buffer(1, &dout);
    gpu.run(&k, &[groups], None, None);
    let want: Vec<i32> = (0..groups)
        .flat_map(|g| host_cleanup(&input[8 * g..8 * g + 8], g % 9))
        .collect();
    assert_same(&gpu.read::<i32>(&dout), &want, "goto fail / goto done");
}

fn host_loops(x: i32) -> [i32; 3] {
    // A retry loop written with a backward goto.
    let mut tries = 0;
    let mut acc = x;
    loop {
        tries += 1;
        acc = acc * 3 + 1;
        if acc % 7 != 0 && tries < 12 {
            continue;
        }
        break;
    }
    // A two-level search left with goto.
    let mut found = -1;
    'outer: for i in 0..10 {
        for j in 0..10 {
            match j {
                3 if i * j == x % 50 => {
                    found = i * 10 + j;
                    break 'outer;
                }
                3 => {}
                _ if i + j == x % 19 => {
                    found = 1000 + i * 10 + j;
                    break 'outer;
                }
                _ => {}
            }
        }
    }
    // goto used as continue, beside break and continue.
    let mut a = 0;
    for i in 0..(x % 60) {
        if i & 1 == 0 {
            if i > 40 {
                break;
            }
            if i == 6 {
                continue;
            }
            a += i;
        }
        a += 1;
    }
    [tries * 1000 + acc % 1000, found, a]
}

#[test]
fn backward_gotos_and_jumps_out_of_loops() {
    let gpu = Gpu::new();
    let src = r#"
        kernel void k(global const int *in, global int *out) {
            int g = get_global_id(0);
            int x = in[g];
            int tries = 0, acc = x;
        retry:
            tries++;
            acc = acc * 3 + 1;
            if (acc % 7 != 0 && tries < 12)
                goto retry;
            out[3 * g] = tries * 1000 + acc % 1000;

            int found = -1;
            for (int i = 0; i < 10; i++)
                for (int j = 0; j < 10; j++) {
                    switch (j) {
                    case 3:
                        if (i * j == x % 50) { found = i * 10 + j; goto found; }
                        break;
                    default:
                        if (i + j == x % 19) { found = 1000 + i * 10 + j; goto found; }
                    }
                }
        found:
            out[3 * g + 1] = found;

            int a = 0;
            for (int i = 0; i < x % 60; i++) {
                if (i & 1)
                    goto next;
                if (i > 40)
                    break;
                if (i == 6)
                    continue;
                a += i;
            next:
                a++;
            }
            out[3 * g + 2] = a;
        }"#;
    let n = 300usize;
    let input: Vec<i32> = (0..n as i32).map(|i| i * 7 + 2).collect();
    let k = gpu.kernel(src, "k");
    let (din, dout) = (gpu.buffer(&input), gpu.zeroed::<i32>(3 * n));
    k.arg_buffer(0, &din).arg_buffer(1, &dout);
    gpu.run(&k, &[n], None, None);
    let want: Vec<i32> = input.iter().flat_map(|&x| host_loops(x)).collect();
    assert_same(
        &gpu.read::<i32>(&dout),
        &want,
        "retry, search, goto as continue",
    );
}

#[test]
fn gotos_in_an_inlined_function_with_early_returns() {
    let gpu = Gpu::new();
    let src = r#"
        int find(global const int *p, int n, int v) {
            int i = 0;
        again:
            if (i >= n)
                goto missing;
            if (p[i] == v)
                return i;
            i++;
            goto again;
        missing:
            return -1;
        }
        kernel void k(global const int *in, global int *out) {
            int g = get_global_id(0);
            out[g] = find(in, 32, g) * 100 + find(in + 16, 16, g + 1);
        }"#;
    let input: Vec<i32> = (0..32).map(|i| (i * 5) % 23).collect();
    let find = |p: &[i32], v: i32| p.iter().position(|&x| x == v).map_or(-1, |i| i as i32);
    let n = 40usize;
    let k = gpu.kernel(src, "k");
    let (din, dout) = (gpu.buffer(&input), gpu.zeroed::<i32>(n));
    k.arg_buffer(0, &din).arg_buffer(1, &dout);
    gpu.run(&k, &[n], None, None);
    let want: Vec<i32> = (0..n as i32)
        .map(|g| find(&input, g) * 100 + find(&input[16..], g + 1))
        .collect();
    assert_same(&gpu.read::<i32>(&dout), &want, "goto inside a helper");
}
