//! Synchronisation built-ins: barriers, fences and atomics, mapped onto the
//! Vulkan memory model.

use super::*;
use crate::sema::builtins::{AtomicOp, Fence};

impl<'a> Lowerer<'a> {
    pub(super) fn fence(&mut self, kind: Fence, args: &'a [Expr], span: Span) -> R<Val> {
        if args.is_empty() || args.len() > 2 {
            self.error(span, "expected a cl_mem_fence_flags argument");
            return None;
        }
        let flags = match consteval::eval(&args[0], self.types) {
            Some(v) => v.as_i64() as u32,
            None => match &args[0].kind {
                ExprKind::Ident(n) if n == "CLK_LOCAL_MEM_FENCE" => 1,
                ExprKind::Ident(n) if n == "CLK_GLOBAL_MEM_FENCE" => 2,
                _ => {
                    // Flags known only at run time: order both kinds.
                    self.expr(&args[0])?;
                    3
                }
            },
        };
        let flags = if let ExprKind::Binary(BinOp::BitOr, a, b) = &args[0].kind {
            let name_bits = |e: &Expr| match &e.kind {
                ExprKind::Ident(n) if n == "CLK_LOCAL_MEM_FENCE" => 1,
                ExprKind::Ident(n) if n == "CLK_GLOBAL_MEM_FENCE" => 2,
                _ => 0,
            };
            flags | name_bits(a) | name_bits(b)
        } else {
            flags
        };
        let mut sem = SEM_ACQ_REL | SEM_WORKGROUP | SEM_AVAILABLE | SEM_VISIBLE;
        if flags & 2 != 0 {
            sem |= SEM_UNIFORM;
        }
        let wg = self.u32c(SCOPE_WORKGROUP);
        let sem = self.u32c(sem);
        match kind {
            Fence::Barrier => self.op_void(Op::ControlBarrier, &[wg, wg, sem]),
            Fence::MemFence => self.op_void(Op::MemoryBarrier, &[wg, sem]),
        }
        Some(Val::new(0, Type::Void))
    }

    /// A SPIR-V pointer to the object `p` points at, and its scope.
    fn atomic_pointer(&mut self, p: Val, span: Span) -> R<(Word, Type, u32)> {
        let Type::Pointer(pt, space, _) = &p.ty else {
            self.error(
                span,
                "the first argument of an atomic function must be a pointer",
            );
            return None;
        };
        let elem = (**pt).clone();
        let ok = match elem.scalar() {
            Some(Scalar::Int | Scalar::UInt | Scalar::Float) => true,
            Some(Scalar::Long | Scalar::ULong) => self.caps.int64_atomics,
            _ => false,
        };
        if !ok {
            let n = self.types.name(&elem);
            self.error(span, format!("atomic functions on '{n}' are not supported"));
            return None;
        }
        match space {
            AddrSpace::Global => {
                let t = self.sty(&elem);
                let pt = self
                    .m
                    .ty(TypeKey::Pointer(StorageClass::PhysicalStorageBuffer, t));
                let ptr = self.op(Op::ConvertUToPtr, pt, &[p.id]);
                self.m.capability(Capability::VulkanMemoryModelDeviceScope);
                Some((ptr, elem, SCOPE_DEVICE))
            }
            AddrSpace::Local if self.pool.is_some() => {
                if self.types.size(&elem) != 4 {
                    self.error(
                        span,
                        "64-bit atomics on reinterpreted __local memory are not supported yet",
                    );
                    return None;
                }
                let ptr = self.pool_word_ptr(StorageClass::Workgroup, p.id);
                Some((ptr, elem, SCOPE_WORKGROUP))
            }
            AddrSpace::Local => {
                let place = self.deref(p, span)?;
                let Place::Var {
                    root, sc, path, ty, ..
                } = place
                else {
                    return None;
                };
                let ptr = self.var_pointer(root, sc, &path, &ty);
                Some((ptr, elem, SCOPE_WORKGROUP))
            }
            _ => {
                self.error(span, "atomic functions need a __global or __local pointer");
                None
            }
        }
    }

    pub(super) fn atomic(&mut self, op: AtomicOp, mut vals: Vec<Val>, span: Span) -> R<Val> {
        let p = vals.remove(0);
        let (ptr, elem, scope) = self.atomic_pointer(p, span)?;
        if elem.is_float() && op != AtomicOp::Xchg {
            self.error(span, "only atomic_xchg takes a float");
            return None;
        }
        let t = self.sty(&elem);
        let scope = self.u32c(scope);
        let relaxed = self.u32c(0);
        let mut args = Vec::new();
        for v in vals {
            args.push(self.convert(v, &elem, span, false)?.id);
        }
        let signed = elem.scalar().is_some_and(|s| s.is_signed());
        let id = match op {
            AtomicOp::Inc => self.op(Op::AtomicIIncrement, t, &[ptr, scope, relaxed]),
            AtomicOp::Dec => self.op(Op::AtomicIDecrement, t, &[ptr, scope, relaxed]),
            AtomicOp::CmpXchg => self.op(
                Op::AtomicCompareExchange,
                t,
                &[ptr, scope, relaxed, relaxed, args[1], args[0]],
            ),
            _ => {
                let o = match op {
                    AtomicOp::Add => Op::AtomicIAdd,
                    AtomicOp::Sub => Op::AtomicISub,
                    AtomicOp::Xchg => Op::AtomicExchange,
                    AtomicOp::Min => {
                        if signed {
                            Op::AtomicSMin
                        } else {
                            Op::AtomicUMin
                        }
                    }
                    AtomicOp::Max => {
                        if signed {
                            Op::AtomicSMax
                        } else {
                            Op::AtomicUMax
                        }
                    }
                    AtomicOp::And => Op::AtomicAnd,
                    AtomicOp::Or => Op::AtomicOr,
                    _ => Op::AtomicXor,
                };
                self.op(o, t, &[ptr, scope, relaxed, args[0]])
            }
        };
        if elem.scalar().is_some_and(|s| s.bits() == 64) {
            self.m.capability(Capability::Int64Atomics);
        }
        Some(Val::new(id, elem))
    }
}
