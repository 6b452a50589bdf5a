//! The generic address space at run time (OpenCL C 2.0 and 3.0).
//!
//! Most programs never need it: every call is inlined, so a generic pointer
//! usually takes the address space of the pointer it is made from, and the
//! lowering resolves it at compile time. A program where that fails (a
//! generic pointer given pointers into different spaces on different paths
//! or work-items, pointers to `__private`/`__local` data stored in memory,
//! `?:` between pointers to two private objects) is lowered again with
//! tagged generic pointers:
//!
//! - a generic (or `__private`) pointer is a 64-bit value. `__global` (and
//!   `__constant`) objects are at their device address, whose top two bits
//!   are clear on every device ferrocl runs on; `__local` objects are
//!   [`TAG_LOCAL`] plus their byte offset in the work-group's word pool;
//!   `__private` objects [`TAG_PRIVATE`] plus their byte offset in the
//!   work-item's private word pool. NULL is 0 in every space.
//! - every `__local` and `__private` object lives in its word pool, so a
//!   pointer into it is a byte offset and arithmetic, comparison and casts
//!   on the 64-bit value behave as on an address.
//! - loads, stores and atomics through such a pointer branch on the tag to
//!   the `PhysicalStorageBuffer` access, the local pool or the private pool.
//!
//! This module owns the tag layout and the accesses through it; it does not
//! decide where objects live (the pools in `mod.rs` do).

use super::*;

/// Generic pointers into the `__local` pool: the tag in bits 62 and 63.
pub(super) const TAG_LOCAL: u64 = 1 << 62;
/// Generic pointers into the work-item's `__private` pool.
pub(super) const TAG_PRIVATE: u64 = 2 << 62;
/// How far the tag is shifted.
const TAG_SHIFT: u64 = 62;

impl<'a> Lowerer<'a> {
    /// Is a pointer into `space` held as a 64-bit value (an address, or a
    /// tagged generic pointer)?
    pub(super) fn addressed(&self, space: AddrSpace) -> bool {
        space.is_addressed() || (self.generic_dynamic && space == AddrSpace::Private)
    }

    /// Reports what resolving generic pointers at compile time cannot do;
    /// the program is then lowered again with tagged generic pointers.
    pub(super) fn generic_limitation(&mut self, span: Span, msg: impl Into<String>) {
        if self.cl_version >= 200 && !self.generic_dynamic {
            self.generic_limit = true;
        }
        self.error(span, msg);
    }
}
