//! The threads that large host copies are spread over, started once per
//! process and kept.
//!
//! Starting threads for every copy (`std::thread::scope`) cost little on
//! its own, but a 128 MiB read copied out in 16 MiB chunks starts 56 of
//! them, and with NVIDIA's OpenCL library loaded in the same process the
//! chunked read fell from 26 to 11-13 GB/s on an H100. Kept threads take
//! the pieces of a copy from a queue instead.

use parking_lot::{Condvar, Mutex};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

/// One piece of a copy: `len` bytes from `src` to `dst`, whether it
/// bypasses the caches ([`STREAMING_MIN`]), and the latch of the copy it
/// belongs to.
struct Piece {
    src: usize,
    dst: usize,
    len: usize,
    streaming: bool,
    done: Arc<Latch>,
}

/// Counts the pieces of one copy that are not done yet.
struct Latch {
    left: AtomicUsize,
    /// Held to sleep on `zero` and to wake its sleeper, so that no wake-up
    /// falls between the sleeper's last look at `left` and its sleep.
    lock: Mutex<()>,
    zero: Condvar,
}

impl Latch {
    fn new(count: usize) -> Latch {
        Latch {
            left: AtomicUsize::new(count),
            lock: Mutex::new(()),
            zero: Condvar::new(),
        }
    }

    fn count_down(&self) {
        if self.left.fetch_sub(1, Ordering::AcqRel) == 1 {
            let _held = self.lock.lock();
            self.zero.notify_all();
        }
    }

    /// Spins for [`SPIN`] (the other pieces usually end within it), then
    /// sleeps.
    fn wait(&self) {
        if spin_until(|| self.left.load(Ordering::Acquire) == 0) {
            return;
        }
        let mut held = self.lock.lock();
        while self.left.load(Ordering::Acquire) > 0 {
            self.zero.wait(&mut held);
        }
    }
}

/// How long a worker looks for the next piece, and a copy's caller for its
/// last piece to end, before sleeping. On the GPU machines (virtual
/// machines) waking a sleeping thread costs a futex call and the wake-up
/// of an idle virtual CPU; the chunks of a large transfer follow one
/// another within tens of microseconds, so workers that keep looking
/// take the next chunk's pieces without being woken.
const SPIN: std::time::Duration = std::time::Duration::from_micros(200);

/// Spins until `done` or [`SPIN`] has passed; whether `done` held.
fn spin_until(mut done: impl FnMut() -> bool) -> bool {
    let start = std::time::Instant::now();
    loop {
        for _ in 0..64 {
            if done() {
                return true;
            }
            std::hint::spin_loop();
        }
        if start.elapsed() >= SPIN {
            return done();
        }
    }
}

struct Pool {
    queue: Mutex<VecDeque<Piece>>,
    /// Pieces in `queue`, read without its lock by spinning workers.
    queued: AtomicUsize,
    work: Condvar,
    /// Workers that started; with none, copies run on their calling
    /// thread.
    workers: AtomicUsize,
    /// The process that started them: a child made by `fork` has none.
    pid: u32,
}

/// Threads a large host copy may use: one core moves about 10 GB/s, short
/// of what PCIe 5 and a GPU's copy engine take (about 50 GB/s). On the
/// 16-core H100 host, 128 MiB pageable reads copied out of staging by 16
/// threads ran at 19.4-40.0 GB/s (mean 29.1, six runs) against 13.0-29.9
/// (mean 21.8) with eight, alternating in one machine session.
pub fn max_threads() -> usize {
    static THREADS: OnceLock<usize> = OnceLock::new();
    *THREADS.get_or_init(|| {
        std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(16)
    })
}

/// The pool, its `max_threads() - 1` workers started on first use.
fn pool() -> &'static Pool {
    static POOL: OnceLock<&'static Pool> = OnceLock::new();
    POOL.get_or_init(|| {
        let workers = max_threads() - 1;
        let pool: &'static Pool = Box::leak(Box::new(Pool {
            queue: Mutex::new(VecDeque::new()),
            queued: AtomicUsize::new(0),
            work: Condvar::new(),
            workers: AtomicUsize::new(0),
            pid: std::process::id(),
        }));
        let started = (0..workers)
            .take_while(|i| {
                std::thread::Builder::new()
                    .name(format!("ferrocl-copy-{i}"))
                    .spawn(move || work(pool))
                    .is_ok()
            })
            .count();
        pool.workers.store(started, Ordering::Release);
        pool
    })
}

/// The next piece: looked for for [`SPIN`], then slept for.
fn next_piece(pool: &Pool) -> Piece {
    let mut taken = None;
    spin_until(|| {
        if pool.queued.load(Ordering::Acquire) > 0 {
            taken = pool.queue.lock().pop_front();
        }
        taken.is_some()
    });
    let mut queue = pool.queue.lock();
    loop {
        if let Some(piece) = taken.take().or_else(|| queue.pop_front()) {
            pool.queued.fetch_sub(1, Ordering::AcqRel);
            return piece;
        }
        pool.work.wait(&mut queue);
    }
}

fn work(pool: &'static Pool) {
    loop {
        let piece = next_piece(pool);
        // SAFETY: `copy` waits for this piece before it returns, and its
        // caller keeps both ranges valid and disjoint until then.
        unsafe {
            copy_piece(
                piece.src as *const u8,
                piece.dst as *mut u8,
                piece.len,
                piece.streaming,
            )
        };
        piece.done.count_down();
    }
}

/// Copies `len` bytes from `src` to `dst` as `threads` pieces of whole
/// pages (so that no two threads write one cache line): the first on the
/// calling thread, the others on the pool's `threads - 1` workers. Returns
/// when every piece is done.
///
/// # Safety
///
/// As for `std::ptr::copy_nonoverlapping`: `src` readable and `dst`
/// writable for `len` bytes, the two ranges disjoint.
pub unsafe fn copy(src: *const u8, dst: *mut u8, len: usize, threads: usize) {
    let pool = pool();
    let threads = threads.min(pool.workers.load(Ordering::Acquire) + 1);
    let per = len.div_ceil(threads.max(1)).next_multiple_of(4096);
    let streaming = len >= STREAMING_MIN;
    if threads <= 1 || per == 0 || per >= len || pool.pid != std::process::id() {
        // SAFETY: the caller's contract.
        unsafe { copy_piece(src, dst, len, streaming) };
        return;
    }
    let (src, dst) = (src as usize, dst as usize);
    let pieces = len.div_ceil(per) - 1;
    let done = Arc::new(Latch::new(pieces));
    {
        let mut queue = pool.queue.lock();
        for start in (per..len).step_by(per) {
            queue.push_back(Piece {
                src: src + start,
                dst: dst + start,
                len: per.min(len - start),
                streaming,
                done: done.clone(),
            });
        }
        pool.queued.fetch_add(pieces, Ordering::AcqRel);
    }
    pool.work.notify_all();
    // SAFETY: the first piece, on the calling thread; the caller's contract.
    unsafe { copy_piece(src as *const u8, dst as *mut u8, per.min(len), streaming) };
    done.wait();
}

/// A copy of this many bytes or more bypasses the caches on its way to
/// `dst` (non-temporal stores): its destination is far larger than the
/// caches, and is read next by the GPU (staging for a write) or much later
/// by the application (a read's destination), so caching it only costs
/// the read of every destination line before it is overwritten. On an
/// H200 host (16 cores), 128 MiB pageable reads copied out of staging by
/// eight threads ran at 24.8-29.8 GB/s with streaming stores against
/// 16.9-21.9 GB/s with `copy_nonoverlapping`.
const STREAMING_MIN: usize = 8 << 20;

/// One piece of a copy, on the calling thread.
///
/// # Safety
///
/// As for `std::ptr::copy_nonoverlapping`.
unsafe fn copy_piece(src: *const u8, dst: *mut u8, len: usize, streaming: bool) {
    if streaming {
        // SAFETY: the caller's contract.
        unsafe { stream_copy(src, dst, len) }
    } else {
        // SAFETY: the caller's contract.
        unsafe { std::ptr::copy_nonoverlapping(src, dst, len) }
    }
}

/// `copy_nonoverlapping` with non-temporal 16-byte stores for the
/// 16-byte-aligned part of `dst`; they are fenced before it returns, so
/// the bytes are visible to whoever the caller then signals.
///
/// # Safety
///
/// As for `std::ptr::copy_nonoverlapping`.
#[cfg(target_arch = "x86_64")]
unsafe fn stream_copy(src: *const u8, dst: *mut u8, len: usize) {
    use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_sfence, _mm_stream_si128};
    let head = dst.align_offset(16).min(len);
    // SAFETY: `head <= len`; the caller's contract covers the ranges.
    unsafe { std::ptr::copy_nonoverlapping(src, dst, head) };
    let mut at = head;
    while at + 64 <= len {
        // SAFETY: `at + 64 <= len`, so all four 16-byte loads and stores
        // lie inside the ranges; `dst + at` is 16-byte aligned (`head`),
        // as `_mm_stream_si128` requires; SSE2 is part of x86-64.
        unsafe {
            let from = src.add(at).cast::<__m128i>();
            let to = dst.add(at).cast::<__m128i>();
            let a = _mm_loadu_si128(from);
            let b = _mm_loadu_si128(from.add(1));
            let c = _mm_loadu_si128(from.add(2));
            let d = _mm_loadu_si128(from.add(3));
            _mm_stream_si128(to, a);
            _mm_stream_si128(to.add(1), b);
            _mm_stream_si128(to.add(2), c);
            _mm_stream_si128(to.add(3), d);
        }
        at += 64;
    }
    // SAFETY: orders the streaming stores before anything after; then the
    // tail, `len - at < 64` bytes inside the ranges.
    unsafe {
        _mm_sfence();
        std::ptr::copy_nonoverlapping(src.add(at), dst.add(at), len - at);
    }
}

#[cfg(not(target_arch = "x86_64"))]
unsafe fn stream_copy(src: *const u8, dst: *mut u8, len: usize) {
    // SAFETY: the caller's contract.
    unsafe { std::ptr::copy_nonoverlapping(src, dst, len) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Copies of every size around the piece boundaries arrive whole, from
    /// several threads at once, and the pool's threads are reused.
    #[test]
    fn pieces_arrive_whole_from_concurrent_copies() {
        std::thread::scope(|scope| {
            for t in 0..3usize {
                scope.spawn(move || {
                    for len in [0, 1, 4095, 4096, 3 * 4096 + 7, (1 << 20) + 12345] {
                        let src: Vec<u8> = (0..len).map(|i| (i * 7 + t) as u8).collect();
                        let mut dst = vec![0u8; len];
                        // SAFETY: both vectors hold `len` bytes.
                        unsafe { copy(src.as_ptr(), dst.as_mut_ptr(), len, 4) };
                        assert!(src == dst, "{len} bytes");
                    }
                });
            }
        });
        assert!(pool().workers.load(Ordering::Acquire) < max_threads());
    }

    /// Streaming copies arrive whole whatever the alignment of either end
    /// and whatever is left after the last 64 bytes.
    #[test]
    fn streaming_copies_arrive_whole_at_any_alignment() {
        let src: Vec<u8> = (0..8192 + 200).map(|i| (i * 13 + 5) as u8).collect();
        for (from, to, len) in [
            (0, 0, 0),
            (0, 0, 15),
            (1, 3, 64),
            (7, 0, 4096 + 63),
            (0, 9, 8192),
            (5, 11, 8000),
        ] {
            let mut dst = vec![0u8; len + 32];
            // SAFETY: `src` holds `from + len` bytes and `dst` `to + len`.
            unsafe { stream_copy(src.as_ptr().add(from), dst.as_mut_ptr().add(to), len) };
            assert_eq!(
                &dst[to..to + len],
                &src[from..from + len],
                "{from} {to} {len}"
            );
            assert!(
                dst[..to].iter().all(|&b| b == 0),
                "{from} {to} {len}: before"
            );
            assert!(
                dst[to + len..].iter().all(|&b| b == 0),
                "{from} {to} {len}: after"
            );
        }
    }

    /// A copy large enough to stream, spread over the pool, arrives whole.
    #[test]
    fn large_copies_stream_whole() {
        let len = STREAMING_MIN + 4096 * 3 + 17;
        let src: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
        let mut dst = vec![0u8; len + 1];
        // SAFETY: both hold `len` bytes from offset 0 and 1.
        unsafe { copy(src.as_ptr(), dst.as_mut_ptr().add(1), len, 4) };
        assert!(src[..] == dst[1..], "{len} bytes");
        assert_eq!(dst[0], 0);
    }
}
