//! The generic address space at run time (OpenCL C 2.0 and 3.0).
//!
//! Most programs never need it: every call is inlined, so a generic pointer
//! usually takes the address space of the pointer it is made from, and the
//! lowering resolves it at compile time. A program where that fails (a
//! generic pointer given pointers into different spaces on different paths
//! or work-items, pointers to `__private`/`__local` data stored in memory,
//! `?:` between pointers to two private objects) is lowered again with
//! tagged generic pointers, on a device that reports
//! `__opencl_c_generic_address_space` (its buffer addresses leave the tag
//! bits free; elsewhere the first lowering's diagnostic stands):
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

/// The OpenCL C 3.0 feature a device reports when its buffer device
/// addresses leave the tag bits clear (the runtime checks an allocation);
/// only then are generic pointers tagged.
const GENERIC_ADDRESS_SPACE: &str = "__opencl_c_generic_address_space";

/// May programs for `caps` be lowered with tagged generic pointers?
pub(super) fn tags_fit(caps: &TargetCaps) -> bool {
    caps.features.iter().any(|f| f == GENERIC_ADDRESS_SPACE)
}

impl<'a> Lowerer<'a> {
    /// Is a pointer into `space` held as a 64-bit value (an address, or a
    /// tagged generic pointer)?
    pub(super) fn addressed(&self, space: AddrSpace) -> bool {
        space.is_addressed() || (self.generic_dynamic && space == AddrSpace::Private)
    }

    /// Reports what resolving pointers to `__local`/`__private` objects
    /// and generic pointers at compile time cannot do; the program is then
    /// lowered again with tagged pointers (in OpenCL C 1.2 too, where a
    /// `__private` pointer into one of several objects needs the same
    /// pool offsets).
    pub(super) fn generic_limitation(&mut self, span: Span, msg: impl Into<String>) {
        if !self.generic_dynamic {
            self.generic_limit = true;
        }
        self.error(span, msg);
    }
}

impl<'a> Lowerer<'a> {
    /// The space tag of generic pointer `p`: 0 (`__global`, `__constant`
    /// or NULL), 1 (`__local`) or 2 (`__private`), as a 32-bit integer.
    fn generic_tag(&mut self, p: Word) -> Word {
        let u64t = self.m.ty(TypeKey::Int(64));
        let u32t = self.m.ty(TypeKey::Int(32));
        let shift = self.m.u64_const(TAG_SHIFT);
        let hi = self.op(Op::ShiftRightLogical, u64t, &[p, shift]);
        self.op(Op::UConvert, u32t, &[hi])
    }

    /// The byte offset a tagged `__local`/`__private` pointer holds.
    fn generic_offset(&mut self, p: Word) -> Word {
        let u32t = self.m.ty(TypeKey::Int(32));
        self.op(Op::UConvert, u32t, &[p])
    }

    /// Runs `path` once per address space in `spaces` that generic pointer
    /// `p` may point into, each on the path its tag selects, with `p` as
    /// that space holds it (an address, or a pool byte offset); returns the
    /// value the chosen path produced. A space whose pool this kernel lacks
    /// holds no object and is left out; a tag whose space is not in
    /// `spaces` leaves the result undefined.
    pub(super) fn generic_dispatch(
        &mut self,
        p: Word,
        spaces: &[AddrSpace],
        mut path: impl FnMut(&mut Self, AddrSpace, Word) -> R<Val>,
    ) -> R<Val> {
        let present = |l: &Self, s: AddrSpace| match s {
            AddrSpace::Local => l.pool.is_some(),
            AddrSpace::Private => l.ppool.is_some(),
            _ => true,
        };
        let tags = [
            (0u32, AddrSpace::Global),
            (1, AddrSpace::Local),
            (2, AddrSpace::Private),
        ];
        let mut taken: Vec<(u32, AddrSpace, Word)> = Vec::new();
        for &(t, s) in &tags {
            if spaces.contains(&s) && present(self, s) {
                taken.push((t, s, self.m.id()));
            }
        }
        let tag = self.generic_tag(p);
        let merge = self.label();
        self.op_void(Op::SelectionMerge, &[merge, 0]);
        let default = taken.first().map_or(merge, |t| t.2);
        let mut ops = vec![tag, default];
        for &(t, _, l) in taken.iter().skip(1) {
            ops.push(t);
            ops.push(l);
        }
        for &(t, s) in &tags {
            if t != 0 && present(self, s) && !spaces.contains(&s) {
                ops.push(t);
                ops.push(merge);
            }
        }
        self.term(Op::Switch, &ops);
        // The writer does not decode OpSwitch: without its targets marked,
        // every path and the merge would be taken for unreachable and
        // closed with OpUnreachable.
        let targets: Vec<Word> = ops[1..].iter().step_by(2).copied().collect();
        self.f.mark_targets(&targets);
        let mut ok = true;
        let mut result: Option<(Word, Type)> = None;
        for &(_, space, l) in &taken {
            self.f.begin(l);
            let held = if space.is_addressed() {
                p
            } else {
                self.generic_offset(p)
            };
            match path(self, space, held) {
                Some(v) if v.ty != Type::Void => {
                    let var = match &result {
                        Some((var, _)) => *var,
                        None => {
                            let var = self.new_function_var(&v.ty);
                            result = Some((var, v.ty.clone()));
                            var
                        }
                    };
                    self.op_void(Op::Store, &[var, v.id]);
                }
                Some(_) => {}
                None => ok = false,
            }
            self.branch(merge);
        }
        self.f.begin(merge);
        if !ok {
            return None;
        }
        match result {
            Some((var, ty)) => {
                let t = self.sty(&ty);
                Some(Val::new(self.op(Op::Load, t, &[var]), ty))
            }
            None => Some(Val::new(0, Type::Void)),
        }
    }

    /// Loads a `ty` through generic pointer `addr`.
    pub(super) fn generic_load(
        &mut self,
        addr: Word,
        ty: &Type,
        align: u32,
        span: Span,
    ) -> R<Word> {
        let all = [AddrSpace::Global, AddrSpace::Local, AddrSpace::Private];
        let v = self.generic_dispatch(addr, &all, |l, space, at| {
            let id = match space {
                AddrSpace::Local => l.pool_load(StorageClass::Workgroup, at, ty, span),
                AddrSpace::Private => l.pool_load(StorageClass::Function, at, ty, span),
                _ => l.load_addr(at, ty, align, span),
            }?;
            Some(Val::new(id, ty.clone()))
        })?;
        Some(v.id)
    }

    /// Stores `val`, a `ty`, through generic pointer `addr`.
    pub(super) fn generic_store(
        &mut self,
        addr: Word,
        ty: &Type,
        align: u32,
        val: Word,
        span: Span,
    ) {
        let all = [AddrSpace::Global, AddrSpace::Local, AddrSpace::Private];
        self.generic_dispatch(addr, &all, |l, space, at| {
            match space {
                AddrSpace::Local => l.pool_store(StorageClass::Workgroup, at, ty, val, span),
                AddrSpace::Private => l.pool_store(StorageClass::Function, at, ty, val, span),
                _ => l.store_addr(at, ty, align, val, span),
            }
            Some(Val::new(0, Type::Void))
        });
    }

    /// Is `p` a tagged generic pointer?
    pub(super) fn is_tagged_generic(&self, p: &Val) -> bool {
        self.generic_dynamic && matches!(p.ty, Type::Pointer(_, AddrSpace::Private, _))
    }

    /// For built-ins that need a named address space (atomics): runs
    /// `path` with tagged generic pointer `p` as a `__global` and as a
    /// `__local` pointer, on the path its tag selects. Atomics on private
    /// memory are undefined (OpenCL C 6.15.12), and so is their result
    /// here.
    pub(super) fn split_global_local(
        &mut self,
        p: Val,
        mut path: impl FnMut(&mut Self, Val) -> R<Val>,
    ) -> R<Val> {
        let Type::Pointer(elem, _, q) = p.ty.clone() else {
            return None;
        };
        self.generic_dispatch(
            p.id,
            &[AddrSpace::Global, AddrSpace::Local],
            |l, space, at| path(l, Val::new(at, Type::Pointer(elem.clone(), space, q))),
        )
    }

    /// A generic pointer to the `__private` pool slot at byte `offset`.
    pub(super) fn tag_private(&mut self, offset: Word) -> Word {
        let u64t = self.m.ty(TypeKey::Int(64));
        let wide = self.op(Op::UConvert, u64t, &[offset]);
        let tag = self.m.u64_const(TAG_PRIVATE);
        self.op(Op::BitwiseOr, u64t, &[wide, tag])
    }

    /// `__local` pointer `offset` (a pool byte offset, or the NULL marker)
    /// as a generic pointer.
    pub(super) fn tag_local(&mut self, offset: Word) -> Word {
        let u64t = self.m.ty(TypeKey::Int(64));
        let b = self.bool_ty(1);
        let wide = self.op(Op::UConvert, u64t, &[offset]);
        let tag = self.m.u64_const(TAG_LOCAL);
        let tagged = self.op(Op::BitwiseOr, u64t, &[wide, tag]);
        let marker = self.u32c(expr::NULL_SHARED_OR_PRIVATE);
        let is_null = self.op(Op::IEqual, b, &[offset, marker]);
        let zero = self.m.u64_const(0);
        self.op(Op::Select, u64t, &[is_null, zero, tagged])
    }

    /// Generic pointer `p` as a `__local` pointer: its pool offset where
    /// it points into local memory, else the NULL marker.
    pub(super) fn untag_local(&mut self, p: Word) -> Word {
        let u32t = self.m.ty(TypeKey::Int(32));
        let b = self.bool_ty(1);
        let tag = self.generic_tag(p);
        let one = self.u32c(1);
        let is_local = self.op(Op::IEqual, b, &[tag, one]);
        let offset = self.generic_offset(p);
        let marker = self.u32c(expr::NULL_SHARED_OR_PRIVATE);
        self.op(Op::Select, u32t, &[is_local, offset, marker])
    }

    /// Generic pointer `p` where its tag is `tag`, else NULL (0): what
    /// `to_global` and `to_private` return.
    fn keep_if_tagged(&mut self, p: Word, tag: u32) -> Word {
        let u64t = self.m.ty(TypeKey::Int(64));
        let b = self.bool_ty(1);
        let t = self.generic_tag(p);
        let want = self.u32c(tag);
        let same = self.op(Op::IEqual, b, &[t, want]);
        let zero = self.m.u64_const(0);
        self.op(Op::Select, u64t, &[same, p, zero])
    }

    /// `to_global`, `to_local` or `to_private` of a tagged generic pointer
    /// `p`: the pointer if it points into `space`, else NULL.
    pub(super) fn generic_to_space(&mut self, p: Word, space: AddrSpace) -> Word {
        match space {
            AddrSpace::Local => self.untag_local(p),
            AddrSpace::Private => self.keep_if_tagged(p, 2),
            _ => self.keep_if_tagged(p, 0),
        }
    }

    /// `get_fence(p)` (OpenCL C 6.15.10): the memory fence flags that order
    /// accesses through `p`: `CLK_GLOBAL_MEM_FENCE` for global memory,
    /// `CLK_LOCAL_MEM_FENCE` for local memory, and 0 for private memory,
    /// which no other work-item sees.
    pub(super) fn get_fence(&mut self, args: &'a [Expr], span: Span) -> R<Val> {
        if self.cl_version < 200 {
            self.error(
                span,
                "'get_fence' needs the generic address space (-cl-std=CL2.0 or CL3.0)",
            );
            return None;
        }
        let [arg] = args else {
            self.error(span, "'get_fence' takes one argument");
            return None;
        };
        let v = self.expr(arg)?;
        let Type::Pointer(_, space, _) = v.ty else {
            self.error(arg.span, "the argument of 'get_fence' must be a pointer");
            return None;
        };
        let ty = Type::UINT;
        let fixed = match space {
            AddrSpace::Constant => {
                self.error(
                    arg.span,
                    "'get_fence' takes a generic pointer, not a pointer to __constant",
                );
                return None;
            }
            AddrSpace::Global => Some(CLK_GLOBAL_MEM_FENCE),
            AddrSpace::Local => Some(CLK_LOCAL_MEM_FENCE),
            AddrSpace::Private if self.generic_dynamic => None,
            AddrSpace::Private => Some(0),
        };
        if let Some(f) = fixed {
            return Some(self.const_val(&ty, i64::from(f)));
        }
        // Tags 0, 1, 2 give global, local, none; NULL (tag 0) gives the
        // global flag, which is valid for any pointer.
        let u = self.sty(&ty);
        let b = self.bool_ty(1);
        let tag = self.generic_tag(v.id);
        let zero = self.u32c(0);
        let one = self.u32c(1);
        let global = self.u32c(CLK_GLOBAL_MEM_FENCE);
        let local = self.u32c(CLK_LOCAL_MEM_FENCE);
        let is_global = self.op(Op::IEqual, b, &[tag, zero]);
        let is_local = self.op(Op::IEqual, b, &[tag, one]);
        let other = self.op(Op::Select, u, &[is_local, local, zero]);
        let id = self.op(Op::Select, u, &[is_global, global, other]);
        Some(Val::new(id, ty))
    }
}

/// `cl_mem_fence_flags` bits.
const CLK_LOCAL_MEM_FENCE: u32 = 1;
const CLK_GLOBAL_MEM_FENCE: u32 = 2;

impl<'a> Lowerer<'a> {
    /// A `__constant` variable of program scope (or `static` in a
    /// function): a read-only slot of the program's global variable buffer,
    /// so that pointers into it are addresses like every other `__constant`
    /// pointer. The symbol's
    /// storage class `UniformConstant` marks it read-only.
    pub(super) fn constant_data_variable(&mut self, g: &VarDecl) -> Option<Sym> {
        let at = self.place_global_data(g, "program-scope variables")?;
        Some(Sym {
            root: at,
            sc: StorageClass::UniformConstant,
            ty: g.ty.clone(),
            base: None,
            pool: None,
        })
    }
}
