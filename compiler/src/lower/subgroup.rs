//! Sub-group functions (cl_khr_subgroups, and cl_khr_subgroup_ballot,
//! _non_uniform_vote, _non_uniform_arithmetic, _shuffle, _shuffle_relative,
//! _rotate, _clustered_reduce)
//! as SPIR-V `GroupNonUniform*` instructions at `Subgroup` scope. An OpenCL
//! sub-group is a Vulkan subgroup.

use super::*;
use crate::sema::builtins::{GroupArith, GroupOp, SubGroupFn};

/// `GroupOperation` operands.
const GROUP_REDUCE: u32 = 0;
const GROUP_INCLUSIVE_SCAN: u32 = 1;
const GROUP_EXCLUSIVE_SCAN: u32 = 2;
const GROUP_CLUSTERED_REDUCE: u32 = 3;

impl<'a> Lowerer<'a> {
    /// A scalar `uint` (or `uint4` for the masks) sub-group built-in input.
    fn subgroup_input(&mut self, b: BuiltIn) -> Word {
        let u = self.sty(&Type::UINT);
        let mask = matches!(
            b,
            BuiltIn::SubgroupEqMask
                | BuiltIn::SubgroupGeMask
                | BuiltIn::SubgroupGtMask
                | BuiltIn::SubgroupLeMask
                | BuiltIn::SubgroupLtMask
        );
        let ty = if mask {
            self.m.ty(TypeKey::Vector(u, 4))
        } else {
            u
        };
        let var = match self.k.builtins.get(&(b as u32)) {
            Some(v) => *v,
            None => {
                let p = self.m.ty(TypeKey::Pointer(StorageClass::Input, ty));
                let var = self
                    .m
                    .global(Op::Variable, p, &[StorageClass::Input as u32]);
                self.m.decorate(var, Decoration::BuiltIn, &[b as u32]);
                self.k.builtins.insert(b as u32, var);
                self.k.interface.insert(var);
                var
            }
        };
        self.op(Op::Load, ty, &[var])
    }

    pub(super) fn sub_group(
        &mut self,
        f: SubGroupFn,
        name: &str,
        args: &'a [Expr],
        span: Span,
    ) -> R<Val> {
        let ext = match f {
            SubGroupFn::NonUniform(_) => "cl_khr_subgroup_non_uniform_arithmetic",
            SubGroupFn::Elect
            | SubGroupFn::NonUniformAll
            | SubGroupFn::NonUniformAny
            | SubGroupFn::NonUniformAllEqual => "cl_khr_subgroup_non_uniform_vote",
            SubGroupFn::NonUniformBroadcast
            | SubGroupFn::BroadcastFirst
            | SubGroupFn::Ballot
            | SubGroupFn::InverseBallot
            | SubGroupFn::BallotBitExtract
            | SubGroupFn::BallotBitCount
            | SubGroupFn::BallotInclusiveScan
            | SubGroupFn::BallotExclusiveScan
            | SubGroupFn::BallotFindLsb
            | SubGroupFn::BallotFindMsb
            | SubGroupFn::EqMask
            | SubGroupFn::GeMask
            | SubGroupFn::GtMask
            | SubGroupFn::LeMask
            | SubGroupFn::LtMask => "cl_khr_subgroup_ballot",
            SubGroupFn::Shuffle | SubGroupFn::ShuffleXor => "cl_khr_subgroup_shuffle",
            SubGroupFn::ShuffleUp | SubGroupFn::ShuffleDown => "cl_khr_subgroup_shuffle_relative",
            SubGroupFn::Rotate | SubGroupFn::ClusteredRotate => "cl_khr_subgroup_rotate",
            SubGroupFn::ClusteredReduce(_) => "cl_khr_subgroup_clustered_reduce",
            _ => "cl_khr_subgroups",
        };
        self.require_extension(ext, name, span)?;
        if f == SubGroupFn::Barrier {
            return self.sub_group_barrier(args, span);
        }
        let want = match f {
            SubGroupFn::Size
            | SubGroupFn::MaxSize
            | SubGroupFn::NumSubGroups
            | SubGroupFn::EnqueuedNumSubGroups
            | SubGroupFn::Id
            | SubGroupFn::LocalId
            | SubGroupFn::Elect
            | SubGroupFn::EqMask
            | SubGroupFn::GeMask
            | SubGroupFn::GtMask
            | SubGroupFn::LeMask
            | SubGroupFn::LtMask => 0,
            SubGroupFn::Collective(GroupOp::Broadcast)
            | SubGroupFn::NonUniformBroadcast
            | SubGroupFn::BallotBitExtract
            | SubGroupFn::Shuffle
            | SubGroupFn::ShuffleXor
            | SubGroupFn::ShuffleUp
            | SubGroupFn::ShuffleDown
            | SubGroupFn::Rotate
            | SubGroupFn::ClusteredReduce(_) => 2,
            SubGroupFn::ClusteredRotate => 3,
            _ => 1,
        };
        if args.len() != want {
            self.error(
                span,
                format!(
                    "'{name}' takes {want} argument{}, {} given",
                    if want == 1 { "" } else { "s" },
                    args.len()
                ),
            );
            return None;
        }
        let mut vals = Vec::new();
        for a in args {
            vals.push(self.expr(a)?);
        }
        self.m.capability(Capability::GroupNonUniform);
        let u = self.sty(&Type::UINT);
        let scope = self.u32c(SCOPE_SUBGROUP);
        let bt = self.bool_ty(1);
        let uint4 = Type::Vector(Scalar::UInt, 4);
        match f {
            SubGroupFn::Size => {
                // The last sub-group of a work-group whose size is not a
                // multiple of the sub-group size is partial: sub-groups are
                // filled in local linear id order (what lavapipe and GPU
                // drivers do for compute).
                let size = self.subgroup_input(BuiltIn::SubgroupSize);
                let id = self.subgroup_input(BuiltIn::SubgroupId);
                let (_, n) = self.work_group_extent();
                let first = self.op(Op::IMul, u, &[id, size]);
                let left = self.op(Op::ISub, u, &[n, first]);
                let r = self.glsl(u, crate::sema::builtins::glsl::UMIN, &[size, left]);
                Some(Val::new(r, Type::UINT))
            }
            SubGroupFn::MaxSize => Some(Val::new(
                self.subgroup_input(BuiltIn::SubgroupSize),
                Type::UINT,
            )),
            SubGroupFn::NumSubGroups => {
                // Counted from the group size rather than read from
                // `NumSubgroups`: lavapipe (Mesa 22.3) rounds that down,
                // leaving out a partial last sub-group whose
                // `SubgroupId` it still hands out.
                let size = self.subgroup_input(BuiltIn::SubgroupSize);
                let (_, n) = self.work_group_extent();
                let one = self.u32c(1);
                let up = self.op(Op::ISub, u, &[size, one]);
                let up = self.op(Op::IAdd, u, &[n, up]);
                Some(Val::new(self.op(Op::UDiv, u, &[up, size]), Type::UINT))
            }
            SubGroupFn::EnqueuedNumSubGroups => {
                // Sub-groups in a work-group of the enqueued local size.
                let size = self.subgroup_input(BuiltIn::SubgroupSize);
                let mut n = None;
                for d in 0..3 {
                    let dim = self.const_val(&Type::UINT, d);
                    let s = self.work_item(
                        crate::sema::builtins::WorkItem::EnqueuedLocalSize,
                        Some(dim),
                        Some(d),
                        span,
                    )?;
                    let s = self.convert(s, &Type::UINT, span, false)?.id;
                    n = Some(match n {
                        None => s,
                        Some(p) => self.op(Op::IMul, u, &[p, s]),
                    });
                }
                let n = n?;
                let one = self.u32c(1);
                let up = self.op(Op::ISub, u, &[size, one]);
                let up = self.op(Op::IAdd, u, &[n, up]);
                Some(Val::new(self.op(Op::UDiv, u, &[up, size]), Type::UINT))
            }
            SubGroupFn::Id => Some(Val::new(
                self.subgroup_input(BuiltIn::SubgroupId),
                Type::UINT,
            )),
            SubGroupFn::LocalId => Some(Val::new(
                self.subgroup_input(BuiltIn::SubgroupLocalInvocationId),
                Type::UINT,
            )),
            SubGroupFn::EqMask
            | SubGroupFn::GeMask
            | SubGroupFn::GtMask
            | SubGroupFn::LeMask
            | SubGroupFn::LtMask => {
                self.m.capability(Capability::GroupNonUniformBallot);
                let b = match f {
                    SubGroupFn::EqMask => BuiltIn::SubgroupEqMask,
                    SubGroupFn::GeMask => BuiltIn::SubgroupGeMask,
                    SubGroupFn::GtMask => BuiltIn::SubgroupGtMask,
                    SubGroupFn::LeMask => BuiltIn::SubgroupLeMask,
                    _ => BuiltIn::SubgroupLtMask,
                };
                Some(Val::new(self.subgroup_input(b), uint4))
            }
            SubGroupFn::Elect => {
                let b = self.op(Op::GroupNonUniformElect, bt, &[scope]);
                Some(self.bool_to_int(b))
            }
            SubGroupFn::Collective(GroupOp::All)
            | SubGroupFn::Collective(GroupOp::Any)
            | SubGroupFn::NonUniformAll
            | SubGroupFn::NonUniformAny => {
                self.m.capability(Capability::GroupNonUniformVote);
                let v = vals.remove(0);
                let p = self.predicate(v, name, span)?;
                let op = match f {
                    SubGroupFn::Collective(GroupOp::All) | SubGroupFn::NonUniformAll => {
                        Op::GroupNonUniformAll
                    }
                    _ => Op::GroupNonUniformAny,
                };
                let b = self.op(op, bt, &[scope, p]);
                Some(self.bool_to_int(b))
            }
            SubGroupFn::NonUniformAllEqual => {
                self.m.capability(Capability::GroupNonUniformVote);
                let v = vals.remove(0);
                self.subgroup_type(&v.ty, name, span)?;
                let b = self.op(Op::GroupNonUniformAllEqual, bt, &[scope, v.id]);
                Some(self.bool_to_int(b))
            }
            SubGroupFn::Collective(GroupOp::Broadcast) | SubGroupFn::NonUniformBroadcast => {
                let v = vals.remove(0);
                // cl_khr_subgroup_ballot's non-uniform broadcast takes
                // vectors too, and so does sub_group_broadcast with
                // cl_khr_subgroup_extended_types.
                let t = if f == SubGroupFn::NonUniformBroadcast
                    || self.has_extension("cl_khr_subgroup_extended_types")
                {
                    self.subgroup_vector_type(&v.ty, name, span)?
                } else {
                    self.subgroup_type(&v.ty, name, span)?
                };
                let id = self.convert(vals.remove(0), &Type::UINT, span, false)?;
                let constant = consteval::eval(&args[1], self.types).is_some();
                let (op, cap) = if constant || !self.has_extension("cl_khr_subgroup_shuffle") {
                    // SPIR-V 1.5 takes a dynamically uniform id, which
                    // OpenCL requires of the argument.
                    (
                        Op::GroupNonUniformBroadcast,
                        Capability::GroupNonUniformBallot,
                    )
                } else {
                    // A shuffle needs no subgroupBroadcastDynamicId.
                    (
                        Op::GroupNonUniformShuffle,
                        Capability::GroupNonUniformShuffle,
                    )
                };
                self.m.capability(cap);
                let r = self.per_component(&t, v.id, |l, ty, x| l.op(op, ty, &[scope, x, id.id]));
                Some(Val::new(r, t))
            }
            SubGroupFn::BroadcastFirst => {
                self.m.capability(Capability::GroupNonUniformBallot);
                let v = vals.remove(0);
                let t = self.subgroup_vector_type(&v.ty, name, span)?;
                let r = self.per_component(&t, v.id, |l, ty, x| {
                    l.op(Op::GroupNonUniformBroadcastFirst, ty, &[scope, x])
                });
                Some(Val::new(r, t))
            }
            SubGroupFn::Collective(op) | SubGroupFn::NonUniform(op) => {
                let (arith, group_op) = match op {
                    GroupOp::Reduce(a) => (a, GROUP_REDUCE),
                    GroupOp::ScanInclusive(a) => (a, GROUP_INCLUSIVE_SCAN),
                    GroupOp::ScanExclusive(a) => (a, GROUP_EXCLUSIVE_SCAN),
                    _ => return None,
                };
                self.m.capability(Capability::GroupNonUniformArithmetic);
                let v = vals.remove(0);
                let t = self.subgroup_type(&v.ty, name, span)?;
                self.sub_group_arithmetic(arith, (group_op, None), v, &t, name, span)
            }
            SubGroupFn::ClusteredReduce(arith) => {
                // SPIR-V takes the cluster size only as a constant, and only
                // a power of two; OpenCL leaves anything else undefined, so
                // it is diagnosed here rather than passed on.
                let size = consteval::eval(&args[1], self.types)
                    .map(|c| c.as_i64())
                    .filter(|&n| n > 0 && n <= i64::from(u32::MAX) && (n as u64).is_power_of_two());
                let Some(size) = size else {
                    self.error(
                        args[1].span,
                        format!(
                            "'{name}' needs a cluster size that is an integer constant \
                             expression and a power of two"
                        ),
                    );
                    return None;
                };
                self.m.capability(Capability::GroupNonUniformClustered);
                let v = vals.remove(0);
                let t = self.subgroup_type(&v.ty, name, span)?;
                let size = self.u32c(size as u32);
                self.sub_group_arithmetic(
                    arith,
                    (GROUP_CLUSTERED_REDUCE, Some(size)),
                    v,
                    &t,
                    name,
                    span,
                )
            }
            SubGroupFn::Ballot => {
                self.m.capability(Capability::GroupNonUniformBallot);
                let v = vals.remove(0);
                let p = self.predicate(v, name, span)?;
                let ty = self.sty(&uint4);
                let r = self.op(Op::GroupNonUniformBallot, ty, &[scope, p]);
                Some(Val::new(r, uint4))
            }
            SubGroupFn::InverseBallot
            | SubGroupFn::BallotBitExtract
            | SubGroupFn::BallotBitCount
            | SubGroupFn::BallotInclusiveScan
            | SubGroupFn::BallotExclusiveScan
            | SubGroupFn::BallotFindLsb
            | SubGroupFn::BallotFindMsb => {
                self.m.capability(Capability::GroupNonUniformBallot);
                let mask = vals.remove(0);
                let mask = self.convert(mask, &uint4, span, false)?.id;
                Some(match f {
                    SubGroupFn::InverseBallot => {
                        let b = self.op(Op::GroupNonUniformInverseBallot, bt, &[scope, mask]);
                        self.bool_to_int(b)
                    }
                    SubGroupFn::BallotBitExtract => {
                        let i = self.convert(vals.remove(0), &Type::UINT, span, false)?;
                        let b = self.op(
                            Op::GroupNonUniformBallotBitExtract,
                            bt,
                            &[scope, mask, i.id],
                        );
                        self.bool_to_int(b)
                    }
                    SubGroupFn::BallotFindLsb => Val::new(
                        self.op(Op::GroupNonUniformBallotFindLSB, u, &[scope, mask]),
                        Type::UINT,
                    ),
                    SubGroupFn::BallotFindMsb => Val::new(
                        self.op(Op::GroupNonUniformBallotFindMSB, u, &[scope, mask]),
                        Type::UINT,
                    ),
                    _ => {
                        let g = match f {
                            SubGroupFn::BallotBitCount => GROUP_REDUCE,
                            SubGroupFn::BallotInclusiveScan => GROUP_INCLUSIVE_SCAN,
                            _ => GROUP_EXCLUSIVE_SCAN,
                        };
                        Val::new(
                            self.op(Op::GroupNonUniformBallotBitCount, u, &[scope, g, mask]),
                            Type::UINT,
                        )
                    }
                })
            }
            SubGroupFn::Shuffle
            | SubGroupFn::ShuffleXor
            | SubGroupFn::ShuffleUp
            | SubGroupFn::ShuffleDown => {
                let v = vals.remove(0);
                let t = self.subgroup_type(&v.ty, name, span)?;
                let i = self.convert(vals.remove(0), &Type::UINT, span, false)?;
                let op = match f {
                    SubGroupFn::Shuffle => Op::GroupNonUniformShuffle,
                    SubGroupFn::ShuffleXor => Op::GroupNonUniformShuffleXor,
                    SubGroupFn::ShuffleUp => Op::GroupNonUniformShuffleUp,
                    _ => Op::GroupNonUniformShuffleDown,
                };
                self.m.capability(
                    if matches!(f, SubGroupFn::Shuffle | SubGroupFn::ShuffleXor) {
                        Capability::GroupNonUniformShuffle
                    } else {
                        Capability::GroupNonUniformShuffleRelative
                    },
                );
                let ty = self.sty(&t);
                Some(Val::new(self.op(op, ty, &[scope, v.id, i.id]), t))
            }
            SubGroupFn::Rotate | SubGroupFn::ClusteredRotate => {
                // A shuffle from (id + delta) modulo the maximum sub-group
                // size, or within the cluster; both sizes are powers of
                // two, so the modulo is a mask and a negative delta wraps.
                self.m.capability(Capability::GroupNonUniformShuffle);
                let v = vals.remove(0);
                let t = self.subgroup_type(&v.ty, name, span)?;
                let delta = self.convert(vals.remove(0), &Type::INT, span, false)?;
                let lid = self.subgroup_input(BuiltIn::SubgroupLocalInvocationId);
                let sum = self.op(Op::IAdd, u, &[lid, delta.id]);
                let one = self.u32c(1);
                let index = if f == SubGroupFn::Rotate {
                    let size = self.subgroup_input(BuiltIn::SubgroupSize);
                    let mask = self.op(Op::ISub, u, &[size, one]);
                    self.op(Op::BitwiseAnd, u, &[sum, mask])
                } else {
                    let cs = self.convert(vals.remove(0), &Type::UINT, span, false)?;
                    let mask = self.op(Op::ISub, u, &[cs.id, one]);
                    let inside = self.op(Op::BitwiseAnd, u, &[sum, mask]);
                    let not_mask = self.op(Op::Not, u, &[mask]);
                    let base = self.op(Op::BitwiseAnd, u, &[lid, not_mask]);
                    self.op(Op::BitwiseOr, u, &[base, inside])
                };
                let ty = self.sty(&t);
                let r = self.op(Op::GroupNonUniformShuffle, ty, &[scope, v.id, index]);
                Some(Val::new(r, t))
            }
            SubGroupFn::Barrier => None,
        }
    }

    fn bool_to_int(&mut self, b: Word) -> Val {
        let i = self.sty(&Type::INT);
        let (one, zero) = (self.u32c(1), self.u32c(0));
        Val::new(self.op(Op::Select, i, &[b, one, zero]), Type::INT)
    }

    /// An `int` predicate as a SPIR-V bool.
    fn predicate(&mut self, v: Val, name: &str, span: Span) -> R<Word> {
        if !v.ty.is_arith() || v.ty.is_vector() {
            let n = self.types.name(&v.ty);
            self.error(span, format!("'{name}' takes an int predicate, not '{n}'"));
            return None;
        }
        Some(self.truth(v))
    }

    /// The scalar types sub-group functions take: 32- and 64-bit integers
    /// and floats, half, and 8- and 16-bit integers (which need
    /// shaderSubgroupExtendedTypes, required with cl_khr_subgroups).
    fn subgroup_type(&mut self, t: &Type, name: &str, span: Span) -> R<Type> {
        match t {
            Type::Scalar(Scalar::Char | Scalar::UChar | Scalar::Short | Scalar::UShort) => {
                if matches!(t, Type::Scalar(Scalar::Short | Scalar::UShort)) && !self.caps.int16 {
                    self.error(
                        span,
                        format!("'{name}' on 16-bit integers needs shaderInt16"),
                    );
                    return None;
                }
                Some(t.clone())
            }
            _ => self.collective_type(t, name, span),
        }
    }

    /// A scalar type as for [`Self::subgroup_type`], or a vector of one.
    fn subgroup_vector_type(&mut self, t: &Type, name: &str, span: Span) -> R<Type> {
        if let Type::Vector(s, _) = t {
            self.subgroup_type(&Type::Scalar(*s), name, span)?;
            return Some(t.clone());
        }
        self.subgroup_type(t, name, span)
    }

    /// `f` applied to each component of `v` (of type `t`), or to `v`
    /// itself when it is a scalar. Vectors go component by component:
    /// 8- and 16-component vectors are arrays, which group instructions
    /// do not take.
    fn per_component(
        &mut self,
        t: &Type,
        v: Word,
        mut f: impl FnMut(&mut Self, Word, Word) -> Word,
    ) -> Word {
        let Type::Vector(s, n) = t else {
            let ty = self.sty(t);
            return f(self, ty, v);
        };
        let st = self.sty(&Type::Scalar(*s));
        let comps: Vec<Word> = (0..*n)
            .map(|i| {
                let x = self.op(Op::CompositeExtract, st, &[v, u32::from(i)]);
                f(self, st, x)
            })
            .collect();
        let ty = self.sty(t);
        self.op(Op::CompositeConstruct, ty, &comps)
    }

    /// One `OpGroupNonUniform<arith>` at sub-group scope; `group_op` is
    /// the `GroupOperation` and, for a clustered reduction, the id of the
    /// constant cluster size.
    fn sub_group_arithmetic(
        &mut self,
        arith: GroupArith,
        (group_op, cluster): (u32, Option<Word>),
        v: Val,
        t: &Type,
        name: &str,
        span: Span,
    ) -> R<Val> {
        let s = t.elem_scalar()?;
        let float = s.is_float();
        let op = match arith {
            GroupArith::Add if float => Op::GroupNonUniformFAdd,
            GroupArith::Add => Op::GroupNonUniformIAdd,
            GroupArith::Mul if float => Op::GroupNonUniformFMul,
            GroupArith::Mul => Op::GroupNonUniformIMul,
            GroupArith::Min if float => Op::GroupNonUniformFMin,
            GroupArith::Min if s.is_signed() => Op::GroupNonUniformSMin,
            GroupArith::Min => Op::GroupNonUniformUMin,
            GroupArith::Max if float => Op::GroupNonUniformFMax,
            GroupArith::Max if s.is_signed() => Op::GroupNonUniformSMax,
            GroupArith::Max => Op::GroupNonUniformUMax,
            _ if float => {
                self.error(span, format!("'{name}' takes integers"));
                return None;
            }
            GroupArith::And => Op::GroupNonUniformBitwiseAnd,
            GroupArith::Or => Op::GroupNonUniformBitwiseOr,
            GroupArith::Xor => Op::GroupNonUniformBitwiseXor,
            GroupArith::LogicalAnd | GroupArith::LogicalOr | GroupArith::LogicalXor => {
                // On the truth values, with an int result of 0 or 1.
                let o = match arith {
                    GroupArith::LogicalAnd => Op::GroupNonUniformLogicalAnd,
                    GroupArith::LogicalOr => Op::GroupNonUniformLogicalOr,
                    _ => Op::GroupNonUniformLogicalXor,
                };
                let p = self.truth(v);
                let bt = self.bool_ty(1);
                let scope = self.u32c(SCOPE_SUBGROUP);
                let operands = [scope, group_op, p];
                let b = self.op(o, bt, &with_cluster(&operands, cluster));
                return Some(self.bool_to_int(b));
            }
        };
        let scope = self.u32c(SCOPE_SUBGROUP);
        let ty = self.sty(t);
        let operands = [scope, group_op, v.id];
        Some(Val::new(
            self.op(op, ty, &with_cluster(&operands, cluster)),
            t.clone(),
        ))
    }

    /// `sub_group_barrier(flags[, scope])`: every work-item of the
    /// sub-group waits; memory named by `flags` is ordered at sub-group
    /// scope (or the scope given).
    fn sub_group_barrier(&mut self, args: &'a [Expr], span: Span) -> R<Val> {
        if args.is_empty() || args.len() > 2 {
            self.error(span, "'sub_group_barrier' takes 1 or 2 arguments");
            return None;
        }
        let flags = match consteval::eval(&args[0], self.types) {
            Some(v) => v.as_i64() as u32,
            None => {
                self.expr(&args[0])?;
                3
            }
        };
        let memory_scope = match args.get(1) {
            Some(e) => {
                let s = match &e.kind {
                    ExprKind::Ident(n) => super::atomic::memory_enumerator(n),
                    _ => None,
                };
                match s.or_else(|| consteval::eval(e, self.types).map(|v| v.as_i64() as u32)) {
                    // memory_scope_work_group
                    Some(1) => SCOPE_WORKGROUP,
                    // memory_scope_device and wider
                    Some(2 | 3) => SCOPE_DEVICE,
                    _ => SCOPE_SUBGROUP,
                }
            }
            None => SCOPE_SUBGROUP,
        };
        self.m.capability(Capability::GroupNonUniform);
        let mut sem = SEM_ACQ_REL | SEM_AVAILABLE | SEM_VISIBLE;
        if flags & 1 != 0 {
            sem |= SEM_WORKGROUP;
        }
        if flags & 2 != 0 {
            sem |= SEM_UNIFORM;
        }
        if sem & (SEM_WORKGROUP | SEM_UNIFORM) == 0 {
            // No memory named: an execution barrier only.
            sem = 0;
        }
        if memory_scope == SCOPE_DEVICE {
            self.m.capability(Capability::VulkanMemoryModelDeviceScope);
        }
        let exec = self.u32c(SCOPE_SUBGROUP);
        let mem = self.u32c(memory_scope);
        let sem = self.u32c(sem);
        self.op_void(Op::ControlBarrier, &[exec, mem, sem]);
        Some(Val::new(0, Type::Void))
    }
}

/// A group operation's operands, with the cluster size last when there is
/// one.
fn with_cluster(operands: &[Word; 3], cluster: Option<Word>) -> Vec<Word> {
    let mut all = operands.to_vec();
    all.extend(cluster);
    all
}
