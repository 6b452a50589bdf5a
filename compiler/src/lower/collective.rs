//! Work-group collectives (`work_group_all`, `_any`, `_broadcast`,
//! `_reduce_<op>`, `_scan_{inclusive,exclusive}_<op>`; OpenCL C 6.15.16,
//! and the `mul`, bitwise and logical operations of
//! cl_khr_work_group_uniform_arithmetic, 6.15.17),
//! written with a `Workgroup` scratch array of one element per work-item
//! and barriers, so they hold for every work-group size, including sizes
//! that are not a power of two, and need no sub-group operations. Each
//! work-item publishes its value, then folds the values it needs in local
//! linear id order, which also makes float results deterministic.

use super::*;
use crate::sema::builtins::{glsl, GroupArith, GroupOp};

impl<'a> Lowerer<'a> {
    pub(super) fn work_group(
        &mut self,
        op: GroupOp,
        name: &str,
        args: &'a [Expr],
        span: Span,
    ) -> R<Val> {
        if let GroupOp::Reduce(a) | GroupOp::ScanInclusive(a) | GroupOp::ScanExclusive(a) = op {
            if !matches!(a, GroupArith::Add | GroupArith::Min | GroupArith::Max) {
                self.require_extension("cl_khr_work_group_uniform_arithmetic", name, span)?;
            }
        }
        let (lo, hi) = if op == GroupOp::Broadcast {
            (2, 4)
        } else {
            (1, 1)
        };
        if args.len() < lo || args.len() > hi {
            let want = if lo == hi {
                format!("{lo} argument")
            } else {
                format!("{lo} to {hi} arguments")
            };
            self.error(span, format!("'{name}' takes {want}, {} given", args.len()));
            return None;
        }
        let v = self.expr(&args[0])?;
        let predicate = matches!(op, GroupOp::All | GroupOp::Any);
        let elem = if predicate {
            if !v.ty.is_arith() || v.ty.is_vector() {
                let n = self.types.name(&v.ty);
                self.error(span, format!("'{name}' takes an int predicate, not '{n}'"));
                return None;
            }
            Type::UINT
        } else {
            self.collective_type(&v.ty, name, span)?
        };
        let value = if predicate {
            let b = self.truth(v);
            let u = self.sty(&Type::UINT);
            let (one, zero) = (self.u32c(1), self.u32c(0));
            self.op(Op::Select, u, &[b, one, zero])
        } else {
            self.convert(v, &elem, span, false)?.id
        };
        let target = if op == GroupOp::Broadcast {
            let mut ids = Vec::new();
            for a in &args[1..] {
                let x = self.expr(a)?;
                ids.push(self.convert(x, &Type::UINT, span, false)?.id);
            }
            Some(ids)
        } else {
            None
        };
        let (lid, n) = self.local_linear_index();
        let scratch = self.collective_scratch(&elem);
        let ptr = self.scratch_element(scratch, &elem, lid);
        let mut store = vec![ptr, value];
        store.extend(Self::mem_operands(StorageClass::Workgroup));
        self.op_void(Op::Store, &store);
        self.local_barrier();
        let zero = self.u32c(0);
        let result = match op {
            GroupOp::Broadcast => {
                let ids = target.unwrap_or_default();
                let index = self.linear_local_id(&ids);
                // An id outside the work-group is undefined behaviour; the
                // clamp keeps the access inside the scratch array.
                let u = self.sty(&Type::UINT);
                let one = self.u32c(1);
                let last = self.op(Op::ISub, u, &[n, one]);
                let index = self.glsl(u, glsl::UMIN, &[index, last]);
                let p = self.scratch_element(scratch, &elem, index);
                self.scratch_load(p, &elem)
            }
            GroupOp::All | GroupOp::Any => {
                let arith = if op == GroupOp::All {
                    GroupArith::And
                } else {
                    GroupArith::Or
                };
                let acc = self.fold_scratch(scratch, &elem, arith, zero, n, span)?;
                let b = self.bool_ty(1);
                let set = self.op(Op::INotEqual, b, &[acc, zero]);
                let i = self.sty(&Type::INT);
                let (one, zero) = (self.u32c(1), self.u32c(0));
                let r = self.op(Op::Select, i, &[set, one, zero]);
                self.local_barrier();
                return Some(Val::new(r, Type::INT));
            }
            GroupOp::Reduce(a) => self.fold_scratch(scratch, &elem, a, zero, n, span)?,
            GroupOp::ScanInclusive(a) => {
                let u = self.sty(&Type::UINT);
                let one = self.u32c(1);
                let end = self.op(Op::IAdd, u, &[lid, one]);
                self.fold_scratch(scratch, &elem, a, zero, end, span)?
            }
            GroupOp::ScanExclusive(a) => self.fold_scratch(scratch, &elem, a, zero, lid, span)?,
        };
        // The scratch array is reused when this call runs again (in a
        // loop): nobody may write it before everyone has read it.
        self.local_barrier();
        Some(Val::new(result, elem))
    }

    /// The element type of a reduction, scan or broadcast: a scalar `int`,
    /// `uint`, `long`, `ulong`, `float`, `half` or `double`.
    pub(super) fn collective_type(&mut self, t: &Type, name: &str, span: Span) -> R<Type> {
        match t {
            Type::Scalar(
                Scalar::Int
                | Scalar::UInt
                | Scalar::Long
                | Scalar::ULong
                | Scalar::Float
                | Scalar::Half
                | Scalar::Double,
            ) => Some(t.clone()),
            _ => {
                let n = self.types.name(t);
                self.error(
                    span,
                    format!(
                        "'{name}' takes int, uint, long, ulong, float, half or double, not '{n}'"
                    ),
                );
                None
            }
        }
    }

    /// `v != 0` as a SPIR-V bool.
    pub(super) fn truth(&mut self, v: Val) -> Word {
        if v.ty == Type::BOOL {
            return v.id;
        }
        let zero = self.constant(&v.ty, ConstVal::Int(0));
        let b = self.bool_ty(1);
        if v.ty.is_float() {
            return self.op(Op::FUnordNotEqual, b, &[v.id, zero]);
        }
        self.op(Op::INotEqual, b, &[v.id, zero])
    }

    /// The work-group size as specialization-constant expressions: the
    /// three dimensions and their product (each region of a non-uniform
    /// NDRange has its own).
    pub(super) fn work_group_extent(&mut self) -> ([Word; 3], Word) {
        let u = self.sty(&Type::UINT);
        let ws = self.workgroup_size();
        let dims = [0, 1, 2].map(|i| {
            self.m
                .global(Op::SpecConstantOp, u, &[Op::CompositeExtract as u32, ws, i])
        });
        let xy = self
            .m
            .global(Op::SpecConstantOp, u, &[Op::IMul as u32, dims[0], dims[1]]);
        let n = self
            .m
            .global(Op::SpecConstantOp, u, &[Op::IMul as u32, xy, dims[2]]);
        (dims, n)
    }

    /// The local linear id and the number of work-items in the group, as
    /// `uint`s.
    fn local_linear_index(&mut self) -> (Word, Word) {
        let u = self.sty(&Type::UINT);
        let (dims, n) = self.work_group_extent();
        let id = self.builtin_input(BuiltIn::LocalInvocationId);
        let c = [0, 1, 2].map(|i| self.op(Op::CompositeExtract, u, &[id, i]));
        let a = self.op(Op::IMul, u, &[c[2], dims[1]]);
        let a = self.op(Op::IAdd, u, &[a, c[1]]);
        let a = self.op(Op::IMul, u, &[a, dims[0]]);
        let lid = self.op(Op::IAdd, u, &[a, c[0]]);
        (lid, n)
    }

    /// `x + y * size_x + z * size_x * size_y` from up to three local ids.
    fn linear_local_id(&mut self, ids: &[Word]) -> Word {
        let u = self.sty(&Type::UINT);
        let ([sx, sy, _], _) = self.work_group_extent();
        let mut index = ids[0];
        if let Some(&y) = ids.get(1) {
            let t = self.op(Op::IMul, u, &[y, sx]);
            index = self.op(Op::IAdd, u, &[index, t]);
        }
        if let Some(&z) = ids.get(2) {
            let sxy = self
                .m
                .global(Op::SpecConstantOp, u, &[Op::IMul as u32, sx, sy]);
            let t = self.op(Op::IMul, u, &[z, sxy]);
            index = self.op(Op::IAdd, u, &[index, t]);
        }
        index
    }

    /// A `Workgroup` array of `elem` with one element per work-item.
    fn collective_scratch(&mut self, elem: &Type) -> Word {
        let (_, n) = self.work_group_extent();
        let e = self.sty(elem);
        let arr = self.m.ty(TypeKey::Array(e, n));
        let p = self.m.ty(TypeKey::Pointer(StorageClass::Workgroup, arr));
        let var = self
            .m
            .global(Op::Variable, p, &[StorageClass::Workgroup as u32]);
        self.k.interface.insert(var);
        var
    }

    fn scratch_element(&mut self, scratch: Word, elem: &Type, index: Word) -> Word {
        let e = self.sty(elem);
        let p = self.m.ty(TypeKey::Pointer(StorageClass::Workgroup, e));
        self.op(Op::AccessChain, p, &[scratch, index])
    }

    fn scratch_load(&mut self, ptr: Word, elem: &Type) -> Word {
        let e = self.sty(elem);
        let mut args = vec![ptr];
        args.extend(Self::mem_operands(StorageClass::Workgroup));
        self.op(Op::Load, e, &args)
    }

    /// `barrier(CLK_LOCAL_MEM_FENCE)`.
    fn local_barrier(&mut self) {
        let wg = self.u32c(SCOPE_WORKGROUP);
        let sem = self.u32c(SEM_ACQ_REL | SEM_WORKGROUP | SEM_AVAILABLE | SEM_VISIBLE);
        self.op_void(Op::ControlBarrier, &[wg, wg, sem]);
    }

    /// The identity of `arith` on `elem`: what an exclusive scan gives the
    /// first work-item.
    pub(super) fn group_identity(&mut self, arith: GroupArith, elem: &Type) -> Word {
        let s = elem.elem_scalar().unwrap_or(Scalar::UInt);
        let v = match arith {
            GroupArith::Add
            | GroupArith::Or
            | GroupArith::Xor
            | GroupArith::LogicalOr
            | GroupArith::LogicalXor => ConstVal::Int(0),
            GroupArith::Mul | GroupArith::LogicalAnd => ConstVal::Int(1),
            GroupArith::And => ConstVal::Int(-1),
            GroupArith::Min if s.is_float() => ConstVal::Float(f64::INFINITY),
            GroupArith::Max if s.is_float() => ConstVal::Float(f64::NEG_INFINITY),
            GroupArith::Min => ConstVal::Int(int_limit(s, true)),
            GroupArith::Max => ConstVal::Int(int_limit(s, false)),
        };
        let v = match (v, s.is_float()) {
            (ConstVal::Int(i), true) => ConstVal::Float(i as f64),
            (v, _) => v,
        };
        self.constant(elem, v)
    }

    /// `a <arith> b` on `elem`.
    pub(super) fn group_combine(
        &mut self,
        arith: GroupArith,
        elem: &Type,
        a: Word,
        b: Word,
        span: Span,
    ) -> R<Word> {
        let s = elem.elem_scalar().unwrap_or(Scalar::UInt);
        let t = self.sty(elem);
        let float = s.is_float();
        let op = match arith {
            GroupArith::Add if float => Op::FAdd,
            GroupArith::Add => Op::IAdd,
            GroupArith::Mul if float => Op::FMul,
            GroupArith::Mul => Op::IMul,
            GroupArith::Min | GroupArith::Max => {
                let inst = match (arith, float, s.is_signed()) {
                    (GroupArith::Min, true, _) => glsl::NMIN,
                    (GroupArith::Max, true, _) => glsl::NMAX,
                    (GroupArith::Min, false, true) => glsl::SMIN,
                    (GroupArith::Min, false, false) => glsl::UMIN,
                    (_, false, true) => glsl::SMAX,
                    _ => glsl::UMAX,
                };
                return Some(self.glsl(t, inst, &[a, b]));
            }
            _ if float => {
                self.error(span, "bitwise and logical operations take integers");
                return None;
            }
            GroupArith::And => Op::BitwiseAnd,
            GroupArith::Or => Op::BitwiseOr,
            GroupArith::Xor => Op::BitwiseXor,
            GroupArith::LogicalAnd | GroupArith::LogicalOr | GroupArith::LogicalXor => {
                let bt = self.bool_ty(1);
                let zero = self.constant(elem, ConstVal::Int(0));
                let x = self.op(Op::INotEqual, bt, &[a, zero]);
                let y = self.op(Op::INotEqual, bt, &[b, zero]);
                let o = match arith {
                    GroupArith::LogicalAnd => Op::LogicalAnd,
                    GroupArith::LogicalOr => Op::LogicalOr,
                    _ => Op::LogicalNotEqual,
                };
                let r = self.op(o, bt, &[x, y]);
                let one = self.constant(elem, ConstVal::Int(1));
                return Some(self.op(Op::Select, t, &[r, one, zero]));
            }
        };
        Some(self.op(op, t, &[a, b]))
    }

    /// Folds `scratch[start..end]` with `arith`, from its identity, in
    /// index order.
    fn fold_scratch(
        &mut self,
        scratch: Word,
        elem: &Type,
        arith: GroupArith,
        start: Word,
        end: Word,
        span: Span,
    ) -> R<Word> {
        let u = self.sty(&Type::UINT);
        let e = self.sty(elem);
        let acc = self.new_function_var(elem);
        let i = self.new_function_var(&Type::UINT);
        let identity = self.group_identity(arith, elem);
        self.op_void(Op::Store, &[acc, identity]);
        self.op_void(Op::Store, &[i, start]);
        let one = self.u32c(1);
        self.counted_loop(i, u, end, one, |l, iv| {
            let p = l.scratch_element(scratch, elem, iv);
            let x = l.scratch_load(p, elem);
            let a = l.op(Op::Load, e, &[acc]);
            let r = l.group_combine(arith, elem, a, x, span)?;
            l.op_void(Op::Store, &[acc, r]);
            Some(())
        })?;
        Some(self.op(Op::Load, e, &[acc]))
    }
}

/// The smallest (`min`: false) or largest value of an integer scalar, as
/// the bits `ConstVal::Int` wraps to that type.
fn int_limit(s: Scalar, largest: bool) -> i64 {
    match (s.is_signed(), s.bits(), largest) {
        (true, 64, true) => i64::MAX,
        (true, 64, false) => i64::MIN,
        (true, b, true) => (1i64 << (b - 1)) - 1,
        (true, b, false) => -(1i64 << (b - 1)),
        (false, _, true) => -1,
        (false, _, false) => 0,
    }
}
