//! Launches of kernels that ignore their work-groups, which the runtime
//! runs with work-groups of its own size (dimension 0 rounded up, the
//! work-items past the global size returning at once), against kernels
//! that observe theirs and run as enqueued. Both ways on any device
//! through `FERROCL_GROUP_SIZE`.

mod common;

const SOURCE: &str = r#"
    __kernel void ids(__global ulong *out, ulong bias) {
        size_t g = get_global_id(0);
        size_t row = get_global_id(1);
        size_t w = get_global_size(0);
        size_t first = get_global_offset(0);
        out[row * w + (g - first)] = g * 3 + bias + 1000000 * row;
    }

    __kernel void local_sizes(__global uint *out) {
        size_t g = get_global_id(0);
        out[g] = (uint)(get_local_size(0) * 1000 + get_local_id(0));
    }

    __kernel void group_sums(__global const uint *in, __global uint *out, __local uint *scratch) {
        size_t l = get_local_id(0);
        scratch[l] = in[get_global_id(0)];
        barrier(CLK_LOCAL_MEM_FENCE);
        if (l == 0) {
            uint s = 0;
            for (size_t i = 0; i < get_local_size(0); i++) s += scratch[i];
            out[get_group_id(0)] = s;
        }
    }
"#;

/// Words past the end of each output, which no work-item may write.
const GUARD: usize = 300;
const SENTINEL: u64 = 0xdead_beef_dead_beef;

/// `ids` over one row of `global` work-items from `offset`, with `local`
/// (or none): every item writes its own slot and nothing past them.
fn check_ids(gpu: &common::Gpu, k: &common::Kernel<'_>, global: usize, local: Option<usize>) {
    let offset = 7usize;
    let init = vec![SENTINEL; global + GUARD];
    let out = gpu.buffer(&init);
    k.arg_buffer(0, &out)
        .arg_bytes(1, common::as_bytes(&[5u64]));
    let local = local.map(|l| [l]);
    gpu.run(
        k,
        &[global],
        local.as_ref().map(|l| &l[..]),
        Some(&[offset]),
    );
    let got = gpu.read::<u64>(&out);
    let want: Vec<u64> = (0..global)
        .map(|i| (offset + i) as u64 * 3 + 5)
        .chain(std::iter::repeat_n(SENTINEL, GUARD))
        .collect();
    common::assert_same(
        &got,
        &want,
        &format!("ids, global {global}, local {local:?}"),
    );
}

#[test]
fn kernels_that_ignore_work_groups_run_every_item_once() {
    let gpu = common::Gpu::new();
    let k = gpu.kernel(SOURCE, "ids");
    // Global sizes that are and are not multiples of the runtime's widths,
    // with local sizes from 1 up, and none; small ones (fewer groups of
    // the wide width than compute units) run in narrow groups, large ones
    // in wide groups (runtime/src/kernel.rs `shared_dispatch_width`).
    for (global, local) in [
        (1, Some(1)),
        (37, None),
        (200, Some(8)),
        (256 * 600 + 3, Some(1)),
        (1000, Some(1)),
        (1000, Some(8)),
        (1024, Some(256)),
        (513, None),
        (4096, Some(64)),
        (700, Some(700)),
    ] {
        check_ids(&gpu, &k, global, local);
    }
}

#[test]
fn two_dimensional_rows_keep_their_rows() {
    let gpu = common::Gpu::new();
    let k = gpu.kernel(SOURCE, "ids");
    let (w, h) = (300usize, 5usize);
    let init = vec![SENTINEL; w * h + GUARD];
    let out = gpu.buffer(&init);
    k.arg_buffer(0, &out)
        .arg_bytes(1, common::as_bytes(&[0u64]));
    gpu.run(&k, &[w, h], Some(&[4, 1]), None);
    let got = gpu.read::<u64>(&out);
    let want: Vec<u64> = (0..h)
        .flat_map(|r| (0..w).map(move |x| x as u64 * 3 + 1_000_000 * r as u64))
        .chain(std::iter::repeat_n(SENTINEL, GUARD))
        .collect();
    common::assert_same(&got, &want, "ids over rows");
}

#[test]
fn kernels_that_observe_work_groups_run_as_enqueued() {
    let gpu = common::Gpu::new();
    let k = gpu.kernel(SOURCE, "local_sizes");
    for local in [1usize, 8, 48] {
        let n = local * 6;
        let out = gpu.zeroed::<u32>(n);
        k.arg_buffer(0, &out);
        gpu.run(&k, &[n], Some(&[local]), None);
        let got = gpu.read::<u32>(&out);
        let want: Vec<u32> = (0..n).map(|i| (local * 1000 + i % local) as u32).collect();
        common::assert_same(&got, &want, &format!("local size {local}"));
    }
    let k = gpu.kernel(SOURCE, "group_sums");
    let n = 640usize;
    let input: Vec<u32> = (0..n as u32).collect();
    let din = gpu.buffer(&input);
    for local in [16usize, 64] {
        let out = gpu.zeroed::<u32>(n / local);
        k.arg_buffer(0, &din)
            .arg_buffer(1, &out)
            .arg_local(2, 4 * local);
        gpu.run(&k, &[n], Some(&[local]), None);
        let want: Vec<u32> = input.chunks(local).map(|c| c.iter().sum()).collect();
        common::assert_same(&gpu.read::<u32>(&out), &want, &format!("sums of {local}"));
    }
}

/// The tests above in a process for each value of `FERROCL_GROUP_SIZE`
/// (read once per process).
#[test]
fn both_ways() {
    for name in [
        "kernels_that_ignore_work_groups_run_every_item_once",
        "two_dimensional_rows_keep_their_rows",
        "kernels_that_observe_work_groups_run_as_enqueued",
    ] {
        common::rerun_with_each("FERROCL_GROUP_SIZE", &["shared", "enqueued"], name);
    }
}
