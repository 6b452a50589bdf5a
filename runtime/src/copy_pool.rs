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

/// One piece of a copy: `len` bytes from `src` to `dst`, and the latch
/// of the copy it belongs to.
struct Piece {
    src: usize,
    dst: usize,
    len: usize,
    done: Arc<Latch>,
}

/// Counts the pieces of one copy that are not done yet.
struct Latch {
    left: Mutex<usize>,
    zero: Condvar,
}

impl Latch {
    fn count_down(&self) {
        let mut left = self.left.lock();
        *left -= 1;
        if *left == 0 {
            self.zero.notify_all();
        }
    }

    fn wait(&self) {
        let mut left = self.left.lock();
        while *left > 0 {
            self.zero.wait(&mut left);
        }
    }
}

struct Pool {
    queue: Mutex<VecDeque<Piece>>,
    work: Condvar,
    /// Workers that started; with none, copies run on their calling
    /// thread.
    workers: AtomicUsize,
    /// The process that started them: a child made by `fork` has none.
    pid: u32,
}

/// Threads a large host copy may use: one core moves about 10 GB/s, short
/// of what PCIe 5 and a GPU's copy engine take (about 50 GB/s).
pub fn max_threads() -> usize {
    static THREADS: OnceLock<usize> = OnceLock::new();
    *THREADS.get_or_init(|| {
        std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(8)
    })
}

/// The pool, its `max_threads() - 1` workers started on first use.
fn pool() -> &'static Pool {
    static POOL: OnceLock<&'static Pool> = OnceLock::new();
    POOL.get_or_init(|| {
        let workers = max_threads() - 1;
        let pool: &'static Pool = Box::leak(Box::new(Pool {
            queue: Mutex::new(VecDeque::new()),
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

fn work(pool: &'static Pool) {
    loop {
        let piece = {
            let mut queue = pool.queue.lock();
            loop {
                if let Some(piece) = queue.pop_front() {
                    break piece;
                }
                pool.work.wait(&mut queue);
            }
        };
        // SAFETY: `copy` waits for this piece before it returns, and its
        // caller keeps both ranges valid and disjoint until then.
        unsafe {
            std::ptr::copy_nonoverlapping(piece.src as *const u8, piece.dst as *mut u8, piece.len)
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
    if threads <= 1 || per == 0 || per >= len || pool.pid != std::process::id() {
        // SAFETY: the caller's contract.
        unsafe { std::ptr::copy_nonoverlapping(src, dst, len) };
        return;
    }
    let (src, dst) = (src as usize, dst as usize);
    let done = Arc::new(Latch {
        left: Mutex::new(len.div_ceil(per) - 1),
        zero: Condvar::new(),
    });
    {
        let mut queue = pool.queue.lock();
        for start in (per..len).step_by(per) {
            queue.push_back(Piece {
                src: src + start,
                dst: dst + start,
                len: per.min(len - start),
                done: done.clone(),
            });
        }
    }
    pool.work.notify_all();
    // SAFETY: the first piece, on the calling thread; the caller's contract.
    unsafe { std::ptr::copy_nonoverlapping(src as *const u8, dst as *mut u8, per.min(len)) };
    done.wait();
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
}
