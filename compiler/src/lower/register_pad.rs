//! A `Workgroup` array the runtime may size per pipeline to lift the
//! driver's register limit for launches too small to fill the device.
//!
//! NVIDIA's Vulkan compiler (driver 580) gives a kernel the registers that
//! keep as many warps resident as the work-group memory allows, not knowing
//! how many the launch will bring: hashcat's scrypt loop got 142 registers
//! (a probe of it 74), which leaves room for only a few of a row's 64
//! independent loads in flight. The launch has one warp per
//! multiprocessor, so that occupancy is never used. With 8 KiB of
//! work-group memory declared the driver gives the same kernel 254-255
//! registers and issues the row's loads together: on an H200 the loop took
//! 10.39 ms a launch against 13.89 (NVIDIA's OpenCL 12.02). The array is
//! only touched behind a test that is never true (`get_work_dim() == 0`),
//! which the driver cannot fold: an array no instruction touches is
//! dropped, and with it the effect. Its length is the specialization
//! constant [`crate::SPEC_ID_REGISTER_PAD`] (words, 1 unless the runtime
//! asks for more).

use super::*;
use crate::{HEADER_WORK_DIM, SPEC_ID_REGISTER_PAD};

impl Lowerer<'_> {
    /// Touches the pad behind the never-true test, at the start of the
    /// kernel's body; the module's kernels share one pad and its length.
    pub(super) fn register_pad(&mut self) {
        let u = self.m.ty(TypeKey::Int(32));
        let pad = match self.register_pad_var {
            Some(pad) => pad,
            None => {
                let len = self.m.global(Op::SpecConstant, u, &[1]);
                self.m
                    .decorate(len, Decoration::SpecId, &[SPEC_ID_REGISTER_PAD]);
                let arr = self.m.ty(TypeKey::Array(u, len));
                let p = self.m.ty(TypeKey::Pointer(StorageClass::Workgroup, arr));
                let pad = self
                    .m
                    .global(Op::Variable, p, &[StorageClass::Workgroup as u32]);
                self.m.name(pad, "register_pad");
                self.register_pad_var = Some(pad);
                pad
            }
        };
        self.k.interface.insert(pad);
        let dim = self.header_word(HEADER_WORK_DIM / 4);
        let zero = self.u32c(0);
        let bt = self.bool_ty(1);
        let never = self.op(Op::IEqual, bt, &[dim, zero]);
        let touch = self.label();
        let body = self.label();
        self.op_void(Op::SelectionMerge, &[body, 0]);
        self.term(Op::BranchConditional, &[never, touch, body]);
        self.f.begin(touch);
        let pu = self.m.ty(TypeKey::Pointer(StorageClass::Workgroup, u));
        let first = self.op(Op::AccessChain, pu, &[pad, zero]);
        // An atomic, which no compiler drops for an unused result.
        let scope = self.u32c(SCOPE_WORKGROUP);
        let relaxed = self.u32c(0);
        let one = self.u32c(1);
        self.op(Op::AtomicIAdd, u, &[first, scope, relaxed, one]);
        self.term(Op::Branch, &[body]);
        self.f.begin(body);
    }
}
