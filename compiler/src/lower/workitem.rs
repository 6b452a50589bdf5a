//! Work-item functions: ids and sizes built from the launch header of the
//! crate docs, `WorkgroupId`, `LocalInvocationId` and the work-group size
//! specialization constants.

use super::*;
use crate::sema::builtins::{glsl, WorkItem};

impl<'a> Lowerer<'a> {
    /// Component `d` of a `uint3`, or `default` when `d` is not 0, 1 or 2.
    fn select_dim(&mut self, vec: Word, d: &Val, default: u32, span: Span) -> R<Word> {
        let u = self.m.ty(TypeKey::Int(32));
        let d = self.convert(d.clone(), &Type::UINT, span, false)?;
        let three = self.u32c(3);
        let two = self.u32c(2);
        let dflt = self.u32c(default);
        let bt = self.bool_ty(1);
        let in_range = self.op(Op::ULessThan, bt, &[d.id, three]);
        let clamped = self.glsl(u, glsl::UMIN, &[d.id, two]);
        let x = self.op(Op::VectorExtractDynamic, u, &[vec, clamped]);
        Some(self.op(Op::Select, u, &[in_range, x, dflt]))
    }

    fn header_vec(&mut self, first_word: u32) -> Word {
        let u = self.m.ty(TypeKey::Int(32));
        let v3 = self.m.ty(TypeKey::Vector(u, 3));
        let comps: Vec<Word> = (0..3).map(|i| self.push_word_at(first_word + i)).collect();
        self.op(Op::CompositeConstruct, v3, &comps)
    }

    /// The id within the whole NDRange, before the global offset. Built
    /// from `WorkgroupId`, which includes the base of a split dispatch:
    /// lavapipe 22.3 leaves that base out of `GlobalInvocationId`.
    fn global_invocation_id(&mut self) -> Word {
        let u = self.m.ty(TypeKey::Int(32));
        let v3 = self.m.ty(TypeKey::Vector(u, 3));
        let grp = self.group_id();
        let ws = self.workgroup_size();
        let lid = self.builtin_input(BuiltIn::LocalInvocationId);
        let start = self.op(Op::IMul, v3, &[grp, ws]);
        self.op(Op::IAdd, v3, &[start, lid])
    }

    /// The work-group id in the NDRange: `WorkgroupId` (which includes a
    /// `vkCmdDispatchBase` base) plus the group base in x of the launch
    /// header, for NDRanges split beyond `maxComputeWorkGroupCount`.
    fn group_id(&mut self) -> Word {
        let u = self.m.ty(TypeKey::Int(32));
        let v3 = self.m.ty(TypeKey::Vector(u, 3));
        let grp = self.builtin_input(BuiltIn::WorkgroupId);
        let base = self.push_word_at(7);
        let zero = self.u32c(0);
        let b = self.op(Op::CompositeConstruct, v3, &[base, zero, zero]);
        self.op(Op::IAdd, v3, &[grp, b])
    }

    fn local_size_vec(&mut self) -> Word {
        let u = self.m.ty(TypeKey::Int(32));
        let v3 = self.m.ty(TypeKey::Vector(u, 3));
        let ws = self.workgroup_size();
        let gs = self.header_vec(3);
        let grp = self.group_id();
        let start = self.op(Op::IMul, v3, &[grp, ws]);
        let left = self.op(Op::ISub, v3, &[gs, start]);
        self.glsl(v3, glsl::UMIN, &[ws, left])
    }

    pub(super) fn work_item(
        &mut self,
        w: WorkItem,
        d: Option<Val>,
        constant_dim: Option<i64>,
        span: Span,
    ) -> R<Val> {
        let u = self.m.ty(TypeKey::Int(32));
        let v3 = self.m.ty(TypeKey::Vector(u, 3));
        let ul = self.sty(&Type::ULONG);
        let size_t = |l: &mut Self, id: Word| Val::new(l.op(Op::UConvert, ul, &[id]), Type::ULONG);
        let (vec, default) = match w {
            WorkItem::WorkDim => {
                let id = self.push_word_at(6);
                return Some(Val::new(id, Type::UINT));
            }
            WorkItem::GlobalLinearId | WorkItem::LocalLinearId => {
                let (id, size) = if w == WorkItem::GlobalLinearId {
                    let gid = self.global_invocation_id();
                    (gid, self.header_vec(3))
                } else {
                    let lid = self.builtin_input(BuiltIn::LocalInvocationId);
                    (lid, self.local_size_vec())
                };
                let c = |l: &mut Self, v: Word, i: u32| {
                    let x = l.op(Op::CompositeExtract, u, &[v, i]);
                    l.op(Op::UConvert, ul, &[x])
                };
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
                let off = self.header_vec(0);
                (self.op(Op::IAdd, v3, &[gid, off]), 0)
            }
            WorkItem::LocalId => (self.builtin_input(BuiltIn::LocalInvocationId), 0),
            WorkItem::GroupId => (self.group_id(), 0),
            WorkItem::GlobalSize => (self.header_vec(3), 1),
            WorkItem::GlobalOffset => (self.header_vec(0), 0),
            WorkItem::EnqueuedLocalSize => (self.workgroup_size(), 1),
            WorkItem::LocalSize => (self.local_size_vec(), 1),
            WorkItem::NumGroups => {
                let ws = self.workgroup_size();
                let gs = self.header_vec(3);
                let one = self.u32c(1);
                let ones = self.m.constant(ConstKey::Composite(v3, vec![one; 3]));
                let a = self.op(Op::IAdd, v3, &[gs, ws]);
                let a = self.op(Op::ISub, v3, &[a, ones]);
                (self.op(Op::UDiv, v3, &[a, ws]), 1)
            }
        };
        let d = d?;
        let x = match constant_dim {
            Some(c @ 0..=2) => self.op(Op::CompositeExtract, u, &[vec, c as u32]),
            Some(_) => self.u32c(default),
            None => self.select_dim(vec, &d, default, span)?,
        };
        Some(size_t(self, x))
    }
}
