//! Work-item functions: ids and sizes built from the launch header of the
//! crate docs, `WorkgroupId`, `LocalInvocationId`, the work-group size
//! specialization constants (the size of the work-groups of one region of
//! a non-uniform NDRange) and the enqueued local size specialization
//! constants (the `local_work_size` the application asked for).
//!
//! Sizes and ids are `size_t` (64 bits): offsets and global sizes arrive as
//! 64-bit header values, group ids and local sizes as 32-bit ones.

use super::*;
use crate::sema::builtins::{glsl, WorkItem};
use crate::{
    HEADER_GLOBAL_OFFSET, HEADER_GLOBAL_SIZE, HEADER_GROUP_BASE, HEADER_WORK_DIM,
    SPEC_ID_ENQUEUED_LOCAL_SIZE,
};

impl<'a> Lowerer<'a> {
    /// Component `d` of a `ulong3`, or `default` when `d` is not 0, 1 or 2.
    fn select_dim(&mut self, vec: Word, d: &Val, default: u64, span: Span) -> R<Word> {
        let u = self.m.ty(TypeKey::Int(32));
        let ul = self.m.ty(TypeKey::Int(64));
        let d = self.convert(d.clone(), &Type::UINT, span, false)?;
        let three = self.u32c(3);
        let two = self.u32c(2);
        let dflt = self.m.u64_const(default);
        let bt = self.bool_ty(1);
        let in_range = self.op(Op::ULessThan, bt, &[d.id, three]);
        let clamped = self.glsl(u, glsl::UMIN, &[d.id, two]);
        let x = self.op(Op::VectorExtractDynamic, ul, &[vec, clamped]);
        Some(self.op(Op::Select, ul, &[in_range, x, dflt]))
    }

    fn ulong3(&mut self) -> Word {
        let ul = self.m.ty(TypeKey::Int(64));
        self.m.ty(TypeKey::Vector(ul, 3))
    }

    fn uint3(&mut self) -> Word {
        let u = self.m.ty(TypeKey::Int(32));
        self.m.ty(TypeKey::Vector(u, 3))
    }

    /// Three 64-bit header values from byte `offset` on (low word first).
    pub(super) fn header_u64x3(&mut self, offset: u32) -> Word {
        let first = offset / 4;
        let comps: Vec<Word> = (0..3)
            .map(|i| {
                let lo = self.header_word(first + 2 * i);
                let hi = self.header_word(first + 2 * i + 1);
                self.combine_u64(lo, hi)
            })
            .collect();
        let v3 = self.ulong3();
        self.op(Op::CompositeConstruct, v3, &comps)
    }

    /// A `uint3` widened to `ulong3`.
    fn widen3(&mut self, v: Word) -> Word {
        let v3 = self.ulong3();
        self.op(Op::UConvert, v3, &[v])
    }

    /// The enqueued local size: specialization constants that the runtime
    /// sets to `local_work_size` for every region of an NDRange, while the
    /// `WorkgroupSize` of a region's pipeline is that region's own size.
    fn enqueued_local_size(&mut self) -> Word {
        if let Some(id) = self.enqueued_size {
            return id;
        }
        let u = self.m.ty(TypeKey::Int(32));
        let mut comps = Vec::with_capacity(3);
        for sid in SPEC_ID_ENQUEUED_LOCAL_SIZE {
            let c = self.m.global(Op::SpecConstant, u, &[1]);
            self.m.decorate(c, Decoration::SpecId, &[sid]);
            comps.push(c);
        }
        let v3 = self.uint3();
        let id = self.m.global(Op::SpecConstantComposite, v3, &comps);
        self.enqueued_size = Some(id);
        id
    }

    /// The work-group id in the NDRange: `WorkgroupId` (which includes a
    /// `vkCmdDispatchBase` base) plus the group base of the launch header,
    /// for NDRanges split beyond `maxComputeWorkGroupCount`.
    fn group_id(&mut self) -> Word {
        let v3 = self.uint3();
        let grp = self.builtin_input(BuiltIn::WorkgroupId);
        let first = HEADER_GROUP_BASE / 4;
        let comps: Vec<Word> = (0..3).map(|i| self.header_word(first + i)).collect();
        let base = self.op(Op::CompositeConstruct, v3, &comps);
        self.op(Op::IAdd, v3, &[grp, base])
    }

    /// The id within the whole NDRange, before the global offset, as
    /// `ulong3`: group id × enqueued local size + local id. Built from
    /// `WorkgroupId`, which includes the base of a split dispatch: lavapipe
    /// 22.3 leaves that base out of `GlobalInvocationId`.
    pub(super) fn global_invocation_id(&mut self) -> Word {
        let v3 = self.ulong3();
        let grp = self.group_id();
        let grp = self.widen3(grp);
        let enq = self.enqueued_local_size();
        let enq = self.widen3(enq);
        let lid = self.builtin_input(BuiltIn::LocalInvocationId);
        let lid = self.widen3(lid);
        let start = self.op(Op::IMul, v3, &[grp, enq]);
        self.op(Op::IAdd, v3, &[start, lid])
    }

    pub(super) fn work_item(
        &mut self,
        w: WorkItem,
        d: Option<Val>,
        constant_dim: Option<i64>,
        span: Span,
    ) -> R<Val> {
        let ul = self.m.ty(TypeKey::Int(64));
        let v3 = self.ulong3();
        let (vec, default) = match w {
            WorkItem::WorkDim => {
                let id = self.header_word(HEADER_WORK_DIM / 4);
                return Some(Val::new(id, Type::UINT));
            }
            WorkItem::GlobalLinearId | WorkItem::LocalLinearId => {
                let (id, size) = if w == WorkItem::GlobalLinearId {
                    let gid = self.global_invocation_id();
                    (gid, self.header_u64x3(HEADER_GLOBAL_SIZE))
                } else {
                    let lid = self.builtin_input(BuiltIn::LocalInvocationId);
                    let lid = self.widen3(lid);
                    let ws = self.workgroup_size();
                    (lid, self.widen3(ws))
                };
                let c = |l: &mut Self, v: Word, i: u32| l.op(Op::CompositeExtract, ul, &[v, i]);
                let (i0, i1, i2) = (c(self, id, 0), c(self, id, 1), c(self, id, 2));
                let (s0, s1) = (c(self, size, 0), c(self, size, 1));
                let a = self.op(Op::IMul, ul, &[i2, s1]);
                let a = self.op(Op::IAdd, ul, &[a, i1]);
                let a = self.op(Op::IMul, ul, &[a, s0]);
                let a = self.op(Op::IAdd, ul, &[a, i0]);
                return Some(Val::new(a, Type::ULONG));
            }
            WorkItem::GlobalId => {
                let gid = self.global_invocation_id();
                let off = self.header_u64x3(HEADER_GLOBAL_OFFSET);
                (self.op(Op::IAdd, v3, &[gid, off]), 0)
            }
            WorkItem::LocalId => {
                let lid = self.builtin_input(BuiltIn::LocalInvocationId);
                (self.widen3(lid), 0)
            }
            WorkItem::GroupId => {
                let grp = self.group_id();
                (self.widen3(grp), 0)
            }
            WorkItem::GlobalSize => (self.header_u64x3(HEADER_GLOBAL_SIZE), 1),
            WorkItem::GlobalOffset => (self.header_u64x3(HEADER_GLOBAL_OFFSET), 0),
            WorkItem::EnqueuedLocalSize => {
                let enq = self.enqueued_local_size();
                (self.widen3(enq), 1)
            }
            // Each region of a non-uniform NDRange runs with its own
            // work-group size, so the built-in is exact.
            WorkItem::LocalSize => {
                let ws = self.workgroup_size();
                (self.widen3(ws), 1)
            }
            WorkItem::NumGroups => {
                let enq = self.enqueued_local_size();
                let enq = self.widen3(enq);
                let gs = self.header_u64x3(HEADER_GLOBAL_SIZE);
                let one = self.m.u64_const(1);
                let ones = self.m.constant(ConstKey::Composite(v3, vec![one; 3]));
                let a = self.op(Op::IAdd, v3, &[gs, enq]);
                let a = self.op(Op::ISub, v3, &[a, ones]);
                (self.op(Op::UDiv, v3, &[a, enq]), 1)
            }
        };
        let d = d?;
        let x = match constant_dim {
            Some(c @ 0..=2) => self.op(Op::CompositeExtract, ul, &[vec, c as u32]),
            Some(_) => self.m.u64_const(default),
            None => self.select_dim(vec, &d, default, span)?,
        };
        Some(Val::new(x, Type::ULONG))
    }
}
