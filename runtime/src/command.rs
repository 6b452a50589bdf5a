//! A device command whose arguments the ICD has checked, held as data: what
//! a `clEnqueue*` call runs on its queue at once, and what a command-buffer
//! records once and runs on every `clEnqueueCommandBufferKHR`.
//!
//! Holding the command as data (not a recorded closure) lets the one check
//! of each entry point serve both paths, and lets a command-buffer replay a
//! command on a substitute queue of the same device.

use crate::cl::*;
use crate::event::Event;
use crate::image::{self, FillColor};
use crate::kernel::{enqueue_nd_range, Kernel, NdRange};
use crate::memory::{self, Mem, Rect};
use crate::queue::{no_work, Access, Queue};
use crate::svm;
use std::sync::Arc;

/// A fill pattern of 1 to 128 bytes, held inline so that a fill allocates
/// nothing to be recorded.
#[derive(Clone, Copy)]
pub struct Pattern {
    bytes: [u8; 128],
    len: usize,
}

impl Pattern {
    /// `bytes` is at most 128 long (checked by the ICD).
    pub fn new(bytes: &[u8]) -> Pattern {
        let mut p = Pattern {
            bytes: [0; 128],
            len: bytes.len().min(128),
        };
        p.bytes[..p.len].copy_from_slice(&bytes[..p.len]);
        p
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

/// One checked command.
pub enum Command {
    /// A command with no device work (an empty NDRange, a barrier): it only
    /// orders.
    Nothing {
        command_type: cl_uint,
    },
    NdRange {
        kernel: Arc<Kernel>,
        range: NdRange,
    },
    /// A buffer-to-buffer copy, linear or rectangular.
    Copy {
        src: Arc<Mem>,
        src_rect: Rect,
        dst: Arc<Mem>,
        dst_rect: Rect,
        region: [usize; 3],
        command_type: cl_uint,
    },
    Fill {
        mem: Arc<Mem>,
        pattern: Pattern,
        offset: usize,
        size: usize,
    },
    CopyImage {
        src: Arc<Mem>,
        dst: Arc<Mem>,
        src_origin: [usize; 3],
        dst_origin: [usize; 3],
        region: [usize; 3],
    },
    CopyImageToBuffer {
        src: Arc<Mem>,
        dst: Arc<Mem>,
        src_origin: [usize; 3],
        region: [usize; 3],
        dst_offset: usize,
    },
    CopyBufferToImage {
        src: Arc<Mem>,
        dst: Arc<Mem>,
        src_offset: usize,
        dst_origin: [usize; 3],
        region: [usize; 3],
    },
    FillImage {
        mem: Arc<Mem>,
        color: FillColor,
        origin: [usize; 3],
        region: [usize; 3],
    },
    SvmMemcpy {
        dst: usize,
        src: usize,
        size: usize,
    },
    SvmFill {
        ptr: usize,
        pattern: Pattern,
        size: usize,
    },
}

impl Command {
    /// The command of a checked launch: nothing to run where the global
    /// size has a 0 (an empty NDRange still orders).
    pub fn nd_range(kernel: Arc<Kernel>, range: NdRange) -> Command {
        if range.global.contains(&0) {
            Command::Nothing {
                command_type: CL_COMMAND_NDRANGE_KERNEL,
            }
        } else {
            Command::NdRange { kernel, range }
        }
    }

    /// Enqueues the command on `queue` after `wait_list`; returns its event.
    pub fn enqueue(
        &self,
        queue: &Arc<Queue>,
        wait_list: &[Arc<Event>],
    ) -> Result<Arc<Event>, cl_int> {
        match self {
            Command::Nothing { command_type } => {
                queue.enqueue_with_access(*command_type, wait_list, Access::Nothing, no_work)
            }
            Command::NdRange { kernel, range } => enqueue_nd_range(queue, kernel, range, wait_list),
            Command::Copy {
                src,
                src_rect,
                dst,
                dst_rect,
                region,
                command_type,
            } => memory::enqueue_copy(
                queue,
                src,
                *src_rect,
                dst,
                *dst_rect,
                *region,
                wait_list,
                *command_type,
            ),
            Command::Fill {
                mem,
                pattern,
                offset,
                size,
            } => memory::enqueue_fill(queue, mem, pattern.as_bytes(), *offset, *size, wait_list),
            Command::CopyImage {
                src,
                dst,
                src_origin,
                dst_origin,
                region,
            } => image::enqueue_copy(
                queue,
                src,
                dst,
                *src_origin,
                *dst_origin,
                *region,
                wait_list,
            ),
            Command::CopyImageToBuffer {
                src,
                dst,
                src_origin,
                region,
                dst_offset,
            } => image::enqueue_copy_to_buffer(
                queue,
                src,
                dst,
                *src_origin,
                *region,
                *dst_offset,
                wait_list,
            ),
            Command::CopyBufferToImage {
                src,
                dst,
                src_offset,
                dst_origin,
                region,
            } => image::enqueue_copy_from_buffer(
                queue,
                src,
                dst,
                *src_offset,
                *dst_origin,
                *region,
                wait_list,
            ),
            Command::FillImage {
                mem,
                color,
                origin,
                region,
            } => image::enqueue_fill(queue, mem, *color, *origin, *region, wait_list),
            Command::SvmMemcpy { dst, src, size } => {
                svm::enqueue_memcpy(queue, *dst, *src, *size, wait_list, false)
            }
            Command::SvmFill { ptr, pattern, size } => {
                svm::enqueue_fill(queue, *ptr, pattern.as_bytes(), *size, wait_list)
            }
        }
    }
}
