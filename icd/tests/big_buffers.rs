//! Buffers and transfers past the sizes one Vulkan allocation or one
//! staging buffer holds: reads, writes and fills longer than a staging
//! piece run as several commands (runtime/src/staging.rs `TRANSFER_PIECE`),
//! a map past the pooled sizes takes a staging buffer of its own size, and
//! a buffer larger than the driver's maxMemoryAllocationSize is one
//! allocation where the driver accepts it, else bound to several with
//! sparse binding (vulkan-backend/src/memory.rs; both ways through
//! `FERROCL_LARGE_BUFFERS`).

mod common;

use common::{check, Buffer, Gpu};
use ferrocl_runtime::cl::*;
use std::ffi::c_void;
use std::ptr::{null, null_mut};

/// One more than a staging piece (1 GiB) and a word, so that a whole
/// transfer splits into two pieces, the second not a multiple of the first.
const PAST_ONE_PIECE: usize = (1 << 30) + (4 << 20) + 12;

/// The word at word index `i` of the test patterns.
fn word(i: u64, salt: u32) -> u32 {
    (i as u32).wrapping_mul(2_654_435_761) ^ (i >> 32) as u32 ^ salt
}

fn pattern(bytes: usize, salt: u32) -> Vec<u32> {
    (0..bytes as u64 / 4).map(|i| word(i, salt)).collect()
}

#[track_caller]
fn read_at(gpu: &Gpu, buffer: &Buffer<'_>, offset: usize, into: &mut [u32]) {
    // SAFETY: a blocking read fills `into` before returning.
    let status = unsafe {
        (gpu.api.clEnqueueReadBuffer)(
            gpu.queue,
            buffer.handle,
            CL_TRUE,
            offset,
            std::mem::size_of_val(into),
            into.as_mut_ptr() as *mut c_void,
            0,
            null(),
            null_mut(),
        )
    };
    check(status, "clEnqueueReadBuffer");
}

/// The first word index where `got` and the pattern from `first` differ.
fn first_wrong(got: &[u32], first: u64, salt: u32) -> Option<u64> {
    (0..got.len() as u64)
        .find(|&i| got[i as usize] != word(first + i, salt))
        .map(|i| first + i)
}

#[test]
fn transfers_longer_than_a_staging_piece_run_in_pieces() {
    let gpu = Gpu::new();
    let max_alloc: u64 = gpu.device_info(CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    if max_alloc < PAST_ONE_PIECE as u64 {
        eprintln!("skipped: the device's largest buffer is {max_alloc} bytes");
        return;
    }
    // Created from host memory: the upload runs in pieces.
    let first = pattern(PAST_ONE_PIECE, 0x5a5a_0001);
    let buffer = gpu.buffer(&first);
    let got: Vec<u32> = gpu.read(&buffer);
    assert_eq!(first_wrong(&got, 0, 0x5a5a_0001), None, "after the upload");
    drop((first, got));
    // A write and a read of the whole buffer, each in two pieces.
    let second = pattern(PAST_ONE_PIECE, 0x0bad_cafe);
    gpu.write(&buffer, &second);
    drop(second);
    let got: Vec<u32> = gpu.read(&buffer);
    assert_eq!(first_wrong(&got, 0, 0x0bad_cafe), None, "after the write");
    // A short read across the pieces' seam lands where the long one did.
    let seam = (1 << 30) - 40;
    let mut window = vec![0u32; 32];
    read_at(&gpu, &buffer, seam, &mut window);
    assert_eq!(first_wrong(&window, seam as u64 / 4, 0x0bad_cafe), None);
}

#[test]
fn fills_longer_than_a_staging_piece_run_in_pieces() {
    let gpu = Gpu::new();
    let max_alloc: u64 = gpu.device_info(CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    if max_alloc < PAST_ONE_PIECE as u64 + 64 {
        eprintln!("skipped: the device's largest buffer is {max_alloc} bytes");
        return;
    }
    // A 16-byte pattern (no word fill) from byte 48 to the end: 1 GiB and
    // 4 MiB, in two pieces through staging.
    let buffer = gpu.buffer_bytes(PAST_ONE_PIECE + 52);
    let pattern: [u32; 4] = [0x0102_0304, 0xa0b0_c0d0, 0xdead_beef, 0x7654_3210];
    let offset = 48;
    let size = (PAST_ONE_PIECE - 12) / 16 * 16;
    // SAFETY: the pattern outlives the blocking finish below.
    let status = unsafe {
        (gpu.api.clEnqueueFillBuffer)(
            gpu.queue,
            buffer.handle,
            pattern.as_ptr() as *const c_void,
            16,
            offset,
            size,
            0,
            null(),
            null_mut(),
        )
    };
    check(status, "clEnqueueFillBuffer");
    gpu.finish();
    let got: Vec<u32> = gpu.read(&buffer);
    let (first, end) = (offset / 4, (offset + size) / 4);
    let wrong = (first..end).find(|&i| got[i] != pattern[(i - first) % 4]);
    assert_eq!(wrong, None, "first word the fill got wrong");
}

#[test]
fn maps_longer_than_a_staging_piece_see_and_set_every_byte() {
    let gpu = Gpu::new();
    let max_alloc: u64 = gpu.device_info(CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    if max_alloc < PAST_ONE_PIECE as u64 {
        eprintln!("skipped: the device's largest buffer is {max_alloc} bytes");
        return;
    }
    let words = PAST_ONE_PIECE / 4;
    let buffer = gpu.buffer(&pattern(PAST_ONE_PIECE, 0x3c3c_0002));
    let map = |flags: cl_bitfield| {
        let mut err = 0;
        // SAFETY: a blocking map of the whole buffer.
        let ptr = unsafe {
            (gpu.api.clEnqueueMapBuffer)(
                gpu.queue,
                buffer.handle,
                CL_TRUE,
                flags,
                0,
                words * 4,
                0,
                null(),
                null_mut(),
                &mut err,
            )
        };
        check(err, "clEnqueueMapBuffer");
        ptr as *mut u32
    };
    let unmap = |ptr: *mut u32| {
        // SAFETY: `ptr` is a live mapping of `buffer`.
        let status = unsafe {
            (gpu.api.clEnqueueUnmapMemObject)(
                gpu.queue,
                buffer.handle,
                ptr as *mut c_void,
                0,
                null(),
                null_mut(),
            )
        };
        check(status, "clEnqueueUnmapMemObject");
        gpu.finish();
    };
    let ptr = map(CL_MAP_READ | CL_MAP_WRITE);
    // SAFETY: the mapping holds `words` words until the unmap.
    let mapped = unsafe { std::slice::from_raw_parts_mut(ptr, words) };
    assert_eq!(
        first_wrong(mapped, 0, 0x3c3c_0002),
        None,
        "read through the map"
    );
    for (i, w) in mapped.iter_mut().enumerate() {
        *w = word(i as u64, 0x4d4d_0003);
    }
    unmap(ptr);
    let got: Vec<u32> = gpu.read(&buffer);
    assert_eq!(
        first_wrong(&got, 0, 0x4d4d_0003),
        None,
        "written through the map"
    );
}

const FILL: &str = "
kernel void fill(global uint *p, ulong words, uint salt) {
    for (ulong i = get_global_id(0); i < words; i += get_global_size(0))
        p[i] = (uint)i * 2654435761u ^ (uint)(i >> 32) ^ salt;
}
kernel void gather(global const uint *p, global uint *out, ulong first) {
    size_t i = get_global_id(0);
    out[i] = p[first + i];
}";

/// Larger than the 2-4 GiB that drivers allow one allocation.
const BIG: usize = 6 << 30;

#[test]
fn buffers_larger_than_one_allocation_hold_every_byte() {
    let gpu = Gpu::new();
    let max_alloc: u64 = gpu.device_info(CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    let global: u64 = gpu.device_info(CL_DEVICE_GLOBAL_MEM_SIZE);
    if max_alloc < BIG as u64 || global < 2 * BIG as u64 {
        eprintln!("skipped: the device's largest buffer is {max_alloc} bytes of {global}");
        return;
    }
    let words = (BIG / 4) as u64;
    let buffer = gpu.buffer_bytes(BIG);
    let program = gpu.program(FILL, "");
    let fill = program.kernel("fill");
    fill.arg_buffer(0, &buffer)
        .arg(1, words)
        .arg(2, 0x1234_5678u32);
    gpu.run(&fill, &[1 << 20], None, None);
    // The device wrote every word: the host reads them back in pieces.
    let got: Vec<u32> = gpu.read(&buffer);
    assert_eq!(
        first_wrong(&got, 0, 0x1234_5678),
        None,
        "written by the kernel"
    );
    drop(got);
    // The host writes across 4 GiB (past any one allocation) and the
    // device reads those words back.
    let at = (4u64 << 30) - 64;
    let window: Vec<u32> = (0..64).map(|i| word(at / 4 + i, 0x7777_0000)).collect();
    // SAFETY: a blocking write reads `window` before returning.
    let status = unsafe {
        (gpu.api.clEnqueueWriteBuffer)(
            gpu.queue,
            buffer.handle,
            CL_TRUE,
            at as usize,
            window.len() * 4,
            window.as_ptr() as *const c_void,
            0,
            null(),
            null_mut(),
        )
    };
    check(status, "clEnqueueWriteBuffer");
    let out = gpu.zeroed::<u32>(64);
    let gather = program.kernel("gather");
    gather
        .arg_buffer(0, &buffer)
        .arg_buffer(1, &out)
        .arg(2, at / 4);
    gpu.run(&gather, &[64], None, None);
    let back: Vec<u32> = gpu.read(&out);
    assert_eq!(
        back, window,
        "the device reads what the host wrote across 4 GiB"
    );
    let mut tail = vec![0u32; 1024];
    read_at(&gpu, &buffer, BIG - 4096, &mut tail);
    assert_eq!(
        first_wrong(&tail, words - 1024, 0x1234_5678),
        None,
        "the last page"
    );
}

/// The test above in a process for each value of `FERROCL_LARGE_BUFFERS`
/// (read once per process): one allocation past the driver's limit, and
/// sparse binding.
#[test]
fn buffers_larger_than_one_allocation_both_ways() {
    common::rerun_with_each(
        "FERROCL_LARGE_BUFFERS",
        &["one", "sparse"],
        "buffers_larger_than_one_allocation_hold_every_byte",
    );
}
