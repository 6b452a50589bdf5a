//! Synchronisation built-ins: barriers, fences and atomics, mapped onto the
//! Vulkan memory model.
//!
//! Floats that atomics move whole (`atomic_init`, `atomic_load`,
//! `atomic_store`, `atomic_exchange`, `atomic_compare_exchange_*`) go
//! through integer atomics on their bits: C11 compares object
//! representations, SPIR-V's `OpAtomicCompareExchange` takes integers only,
//! and Vulkan's float loads, stores and exchanges need optional features.
//! A `__global` pointer is an address, so it is reinterpreted in place. A
//! typed `__local` variable cannot be (logical pointers do not cast), so in
//! a program that calls such atomic functions every `__local` float or
//! double object (and array of them) is declared as uint/ulong storage;
//! ordinary loads and stores of it reinterpret the bits, which costs
//! nothing on a GPU. `atomic_fetch_<op>` on such storage is a
//! compare-exchange loop.

use super::*;
use crate::sema::builtins::{glsl, AtomicC11, AtomicOp, Fence};

/// Does `f` call an atomic function that can act on a float (the OpenCL C
/// 2.0 ones, and 1.x `atomic_xchg`)?
pub(super) fn calls_float_atomics(f: &FuncDef) -> bool {
    fn on_values(name: &str) -> bool {
        name == "atomic_xchg"
            || name.strip_prefix("atomic_").is_some_and(|rest| {
                [
                    "init",
                    "load",
                    "store",
                    "exchange",
                    "compare_exchange",
                    "fetch_",
                ]
                .iter()
                .any(|p| rest.starts_with(p))
            })
    }
    fn expr(e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Call(name, _) if on_values(name) => true,
            ExprKind::CompoundLit(_, i) => init(i),
            _ => e.any_operand(expr),
        }
    }
    fn init(i: &Init) -> bool {
        match i {
            Init::Expr(e) => expr(e),
            Init::List(items, _) => items.iter().any(init),
        }
    }
    fn stmt(s: &Stmt) -> bool {
        match &s.kind {
            StmtKind::Expr(x) => expr(x),
            StmtKind::Decl(vars) => vars.iter().any(|v| v.init.as_ref().is_some_and(init)),
            StmtKind::Block(items) => items.iter().any(stmt),
            StmtKind::If(c, a, b) => expr(c) || stmt(a) || b.as_deref().is_some_and(stmt),
            StmtKind::While(c, b) | StmtKind::DoWhile(b, c) | StmtKind::Switch(c, b) => {
                expr(c) || stmt(b)
            }
            StmtKind::For(i, c, step, b) => {
                i.as_deref().is_some_and(stmt)
                    || c.as_ref().is_some_and(expr)
                    || step.as_ref().is_some_and(expr)
                    || stmt(b)
            }
            StmtKind::Return(x) => x.as_ref().is_some_and(expr),
            StmtKind::Case(_, b) | StmtKind::Label(_, b) => stmt(b),
            _ => false,
        }
    }
    f.body.as_ref().is_some_and(stmt)
}

/// The integer type holding the bits of `ty` (a float or double, or an
/// array of them); `None` for anything else.
fn float_bits_type(ty: &Type) -> Option<Type> {
    match ty {
        Type::Scalar(Scalar::Float) => Some(Type::UINT),
        Type::Scalar(Scalar::Double) => Some(Type::ULONG),
        Type::Array(e, n) => Some(Type::Array(TypeRef::new(float_bits_type(e)?), *n)),
        _ => None,
    }
}

impl<'a> Lowerer<'a> {
    /// The type a new `__local` variable of type `ty` is declared with.
    pub(super) fn local_stored_type(&self, ty: &Type) -> Type {
        match float_bits_type(ty) {
            Some(bits) if self.local_float_bits => bits,
            _ => ty.clone(),
        }
    }

    /// Records that `var`, of OpenCL type `ty`, was declared as `stored`.
    pub(super) fn mark_float_bits(&mut self, var: Word, ty: &Type, stored: &Type) {
        if ty != stored {
            self.float_bits_roots.insert(var);
        }
    }

    /// The type that an object of type `ty` inside variable `root` has in
    /// memory.
    pub(super) fn stored_type(&self, root: Word, ty: &Type) -> Type {
        if !self.float_bits_roots.contains(&root) {
            return ty.clone();
        }
        float_bits_type(ty).unwrap_or_else(|| ty.clone())
    }

    /// A value `id` loaded as `stored`, as the `ty` it holds.
    pub(super) fn stored_bits_as_value(
        &mut self,
        id: Word,
        ty: &Type,
        stored: &Type,
        span: Span,
    ) -> R<Word> {
        self.reinterpret_stored(id, ty, stored, ty, span)
    }

    /// A value `id` of type `ty`, as the `stored` that holds it.
    pub(super) fn value_as_stored_bits(
        &mut self,
        id: Word,
        ty: &Type,
        stored: &Type,
        span: Span,
    ) -> R<Word> {
        self.reinterpret_stored(id, ty, stored, stored, span)
    }

    /// `id` bitcast to `to`, one of a float `ty` and the integer `stored`
    /// that holds it (nothing to do when they are the same type).
    fn reinterpret_stored(
        &mut self,
        id: Word,
        ty: &Type,
        stored: &Type,
        to: &Type,
        span: Span,
    ) -> R<Word> {
        if ty == stored {
            return Some(id);
        }
        if !ty.is_float() {
            self.whole_float_array(span);
            return None;
        }
        let t = self.sty(to);
        Some(self.op(Op::Bitcast, t, &[id]))
    }

    fn whole_float_array(&mut self, span: Span) {
        self.error(
            span,
            "copying a whole __local array of floats is not supported in a program \
             that calls atomic functions",
        );
    }
}

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
        // `work_group_barrier(flags, scope)`: the memory scope is given;
        // without it, work-group scope.
        let memory = match args.get(1) {
            Some(e) => {
                let scope = self.memory_argument(e, MSCOPE_DEVICE)?;
                // Never narrower than the work-group the barrier waits for.
                self.memory_scope(scope, SCOPE_DEVICE).min(SCOPE_WORKGROUP)
            }
            None => SCOPE_WORKGROUP,
        };
        let wg = self.u32c(SCOPE_WORKGROUP);
        let memory = self.u32c(memory);
        let sem = self.u32c(sem);
        match kind {
            Fence::Barrier => self.op_void(Op::ControlBarrier, &[wg, memory, sem]),
            Fence::MemFence => self.memory_fence(memory, sem),
        }
        Some(Val::new(0, Type::Void))
    }

    /// A SPIR-V pointer to the object `p` points at, the object's type,
    /// its scope, and whether the pointer is to the integer holding a
    /// float's bits (the `__local` word pool, or a `__local` variable
    /// declared as bits).
    fn atomic_pointer(&mut self, p: Val, span: Span) -> R<(Word, Type, u32, bool)> {
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
            // Only moved whole, through 64-bit integer atomics.
            Some(Scalar::Double) => self.caps.int64_atomics && self.caps.fp64,
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
                Some((ptr, elem, SCOPE_DEVICE, false))
            }
            AddrSpace::Local if self.pool.is_some() => {
                if self.types.size(&elem) != 4 {
                    self.error(
                        span,
                        "64-bit atomics on reinterpreted __local memory are not supported yet",
                    );
                    return None;
                }
                let ptr = self.pool_word_ptr(StorageClass::Workgroup, p.id).ptr;
                let bits = elem.is_float();
                Some((ptr, elem, SCOPE_WORKGROUP, bits))
            }
            AddrSpace::Local => {
                let place = self.deref(p, span)?;
                let Place::Var {
                    root, sc, path, ty, ..
                } = place
                else {
                    return None;
                };
                let stored = self.stored_type(root, &ty);
                let ptr = self.var_pointer(root, sc, &path, &stored);
                Some((ptr, elem, SCOPE_WORKGROUP, stored != ty))
            }
            _ => {
                self.error(span, "atomic functions need a __global or __local pointer");
                None
            }
        }
    }

    pub(super) fn atomic(&mut self, op: AtomicOp, mut vals: Vec<Val>, span: Span) -> R<Val> {
        let p = vals.remove(0);
        if self.is_tagged_generic(&p) {
            // A generic pointer: the atomic on the space its tag names.
            return self.split_global_local(p, |l, p| {
                let mut vals = vals.clone();
                vals.insert(0, p);
                l.atomic(op, vals, span)
            });
        }
        let (ptr, elem, scope, bits) = self.atomic_pointer(p, span)?;
        if (elem.is_float() && op != AtomicOp::Xchg) || elem.scalar() == Some(Scalar::Double) {
            self.error(span, "only atomic_xchg takes a float");
            return None;
        }
        if let Some((iptr, it)) = self.float_bits_pointer(ptr, &elem, bits, scope) {
            // `atomic_xchg` on a float: an exchange of its bits.
            let v = self.convert(vals[0].clone(), &elem, span, false)?;
            let itw = self.sty(&it);
            let v = self.op(Op::Bitcast, itw, &[v.id]);
            let scope = self.u32c(scope);
            let relaxed = self.u32c(0);
            let old = self.op(Op::AtomicExchange, itw, &[iptr, scope, relaxed, v]);
            let ft = self.sty(&elem);
            return Some(Val::new(self.op(Op::Bitcast, ft, &[old]), elem));
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

/// `memory_order` values (the C11 numbering OpenCL C uses).
const ORDER_RELAXED: u32 = 0;
const ORDER_ACQUIRE: u32 = 2;
const ORDER_RELEASE: u32 = 3;
const ORDER_ACQ_REL: u32 = 4;
const ORDER_SEQ_CST: u32 = 5;
/// `memory_scope` values.
const MSCOPE_WORK_ITEM: u32 = 0;
const MSCOPE_WORK_GROUP: u32 = 1;
const MSCOPE_DEVICE: u32 = 2;
const MSCOPE_ALL_DEVICES: u32 = 3;
const MSCOPE_SUB_GROUP: u32 = 4;
/// SPIR-V semantics not named in the parent module.
const SEM_ACQUIRE: u32 = 0x2;
const SEM_RELEASE: u32 = 0x4;

/// The value of a `memory_order_*` or `memory_scope_*` enumerator.
pub(super) fn memory_enumerator(name: &str) -> Option<u32> {
    Some(match name {
        "memory_order_relaxed" => ORDER_RELAXED,
        "memory_order_acquire" => ORDER_ACQUIRE,
        "memory_order_release" => ORDER_RELEASE,
        "memory_order_acq_rel" => ORDER_ACQ_REL,
        "memory_order_seq_cst" => ORDER_SEQ_CST,
        "memory_scope_work_item" => MSCOPE_WORK_ITEM,
        "memory_scope_work_group" => MSCOPE_WORK_GROUP,
        "memory_scope_device" => MSCOPE_DEVICE,
        "memory_scope_all_svm_devices" | "memory_scope_all_devices" => MSCOPE_ALL_DEVICES,
        "memory_scope_sub_group" => MSCOPE_SUB_GROUP,
        _ => return None,
    })
}

/// What an atomic access does, for the semantics it may carry: SPIR-V
/// forbids release semantics on loads and acquire semantics on stores.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Access {
    Load,
    Store,
    ReadModifyWrite,
}

/// Vulkan memory-model semantics for an OpenCL memory order. Under the
/// Vulkan memory model `SequentiallyConsistent` may not be used: seq_cst
/// becomes acquire-release, which is why the device does not report
/// `__opencl_c_atomic_order_seq_cst`. Ordered accesses cover both global
/// and local memory, and make writes available and visible as the
/// model requires for non-atomic data published through the atomic.
fn order_semantics(order: u32, access: Access) -> u32 {
    let acquire = matches!(order, ORDER_ACQUIRE | ORDER_ACQ_REL | ORDER_SEQ_CST);
    let release = matches!(order, ORDER_RELEASE | ORDER_ACQ_REL | ORDER_SEQ_CST);
    let acquire = acquire && access != Access::Store;
    let release = release && access != Access::Load;
    let ordering = match (acquire, release) {
        (true, true) => SEM_ACQ_REL | SEM_AVAILABLE | SEM_VISIBLE,
        (true, false) => SEM_ACQUIRE | SEM_VISIBLE,
        (false, true) => SEM_RELEASE | SEM_AVAILABLE,
        (false, false) => return 0,
    };
    ordering | SEM_UNIFORM | SEM_WORKGROUP
}

impl<'a> Lowerer<'a> {
    /// A `memory_order` or `memory_scope` argument: an enumerator, or a
    /// constant expression. Vulkan needs both as constants, so a value
    /// known only at run time takes the strongest meaning (`fallback`).
    fn memory_argument(&mut self, e: &'a Expr, fallback: u32) -> R<u32> {
        if let ExprKind::Ident(n) = &e.kind {
            if let Some(v) = memory_enumerator(n) {
                return Some(v);
            }
        }
        if let Some(v) = consteval::eval(e, self.types) {
            return Some(v.as_i64() as u32);
        }
        self.expr(e)?;
        Some(fallback)
    }

    /// The SPIR-V scope for an OpenCL memory scope on memory whose widest
    /// useful scope is `widest`.
    fn memory_scope(&mut self, scope: u32, widest: u32) -> u32 {
        let s = match scope {
            MSCOPE_SUB_GROUP => SCOPE_SUBGROUP,
            MSCOPE_WORK_GROUP | MSCOPE_WORK_ITEM => SCOPE_WORKGROUP,
            // Vulkan has no scope across devices and the host; without
            // SVM the device scope is the widest there is.
            _ => SCOPE_DEVICE,
        };
        // Local memory is shared by one work-group only: a wider scope
        // means the same as work-group scope there. (Smaller numbers are
        // wider SPIR-V scopes.)
        let s = s.max(widest);
        if s == SCOPE_DEVICE {
            self.m.capability(Capability::VulkanMemoryModelDeviceScope);
        }
        s
    }

    pub(super) fn atomic_c11(
        &mut self,
        op: AtomicC11,
        explicit: bool,
        name: &str,
        args: &'a [Expr],
        span: Span,
    ) -> R<Val> {
        if op == AtomicC11::WorkItemFence {
            return self.work_item_fence(args, span);
        }
        let (values, orders) = match op {
            AtomicC11::Load | AtomicC11::FlagTestAndSet | AtomicC11::FlagClear => (1, 1),
            AtomicC11::CompareExchange => (3, 2),
            AtomicC11::Init => (2, 0),
            _ => (2, 1),
        };
        let (lo, hi) = if explicit {
            (values + orders, values + orders + 1)
        } else {
            (values, values)
        };
        if args.len() < lo || args.len() > hi {
            let want = if lo == hi {
                format!("{lo}")
            } else {
                format!("{lo} or {hi}")
            };
            self.error(
                span,
                format!("'{name}' takes {want} arguments, {} given", args.len()),
            );
            return None;
        }
        let mut vals = Vec::new();
        for a in &args[..values] {
            vals.push(self.expr(a)?);
        }
        let mut order = [ORDER_SEQ_CST; 2];
        let mut scope = MSCOPE_DEVICE;
        if explicit {
            for (i, a) in args[values..values + orders].iter().enumerate() {
                order[i] = self.memory_argument(a, ORDER_SEQ_CST)?;
            }
            if let Some(a) = args.get(values + orders) {
                scope = self.memory_argument(a, MSCOPE_DEVICE)?;
            }
        }
        self.atomic_c11_values(op, name, vals, order, scope, span)
    }

    /// An OpenCL C 2.0 atomic on evaluated arguments (the atomic object's
    /// pointer first) with its memory orders and scope.
    fn atomic_c11_values(
        &mut self,
        op: AtomicC11,
        name: &str,
        mut vals: Vec<Val>,
        order: [u32; 2],
        scope: u32,
        span: Span,
    ) -> R<Val> {
        if self.caps.fences_as_atomics && order != [ORDER_RELAXED; 2] {
            // The order as fences around a relaxed atomic (see
            // `memory_fence`): release before it, acquire after it.
            let access = match op {
                AtomicC11::Init | AtomicC11::Store | AtomicC11::FlagClear => Access::Store,
                AtomicC11::Load => Access::Load,
                _ => Access::ReadModifyWrite,
            };
            let sem = order_semantics(order[0], access);
            let failure = match op {
                AtomicC11::CompareExchange => order_semantics(order[1], Access::Load),
                _ => 0,
            };
            if sem & (SEM_RELEASE | SEM_ACQ_REL) != 0 {
                self.fence_word_update();
            }
            let result = self.atomic_c11_values(op, name, vals, [ORDER_RELAXED; 2], scope, span)?;
            if (sem | failure) & (SEM_ACQUIRE | SEM_ACQ_REL) != 0 {
                self.fence_word_update();
            }
            return Some(result);
        }
        let p = vals.remove(0);
        if self.is_tagged_generic(&p) {
            // A generic pointer: the atomic on the space its tag names.
            return self.split_global_local(p, |l, p| {
                let mut vals = vals.clone();
                vals.insert(0, p);
                l.atomic_c11_values(op, name, vals, order, scope, span)
            });
        }
        let (ptr, elem, widest, bits) = self.atomic_pointer(p, span)?;
        let is_flag = matches!(op, AtomicC11::FlagTestAndSet | AtomicC11::FlagClear);
        if is_flag
            && !elem
                .scalar()
                .is_some_and(|s| s.is_integer() && s.bits() == 32)
        {
            self.error(span, format!("'{name}' takes a pointer to an atomic_flag"));
            return None;
        }
        // Floats moved whole go through integer atomics on their bits (see
        // the module docs); so does `atomic_fetch_<op>` where the float is
        // stored as bits. Elsewhere it is Vulkan's float atomic.
        let whole = !matches!(op, AtomicC11::Fetch(_));
        let as_bits = if elem.is_float() && (whole || bits) {
            self.float_bits_pointer(ptr, &elem, bits, widest)
        } else {
            None
        };
        let (ptr, elem, float) = match as_bits {
            Some((iptr, it)) => (iptr, it, Some(elem)),
            None => {
                if elem.scalar() == Some(Scalar::Double) && whole {
                    self.error(
                        span,
                        format!(
                            "'{name}' on a double inside a __local struct or vector is not supported"
                        ),
                    );
                    return None;
                }
                (ptr, elem, None)
            }
        };
        // A float argument as the integer the atomic moves, and back.
        let to_bits = |l: &mut Self, v: Val, span: Span| -> R<Word> {
            match &float {
                Some(f) => {
                    let v = l.convert(v, f, span, false)?;
                    let it = l.sty(&elem);
                    Some(l.op(Op::Bitcast, it, &[v.id]))
                }
                None => Some(l.convert(v, &elem, span, false)?.id),
            }
        };
        let from_bits = |l: &mut Self, id: Word| -> Val {
            match &float {
                Some(f) => {
                    let ft = l.sty(f);
                    Val::new(l.op(Op::Bitcast, ft, &[id]), f.clone())
                }
                None => Val::new(id, elem.clone()),
            }
        };
        let t = self.sty(&elem);
        let scope_id = self.memory_scope(scope, widest);
        let scope_id = self.u32c(scope_id);
        let sem = |l: &mut Self, order: u32, access: Access| l.u32c(order_semantics(order, access));
        match op {
            AtomicC11::Init | AtomicC11::Store => {
                let v = to_bits(self, vals.remove(0), span)?;
                // atomic_init need not be atomic: a relaxed store is one
                // valid way to initialise.
                let order = if op == AtomicC11::Init {
                    ORDER_RELAXED
                } else {
                    order[0]
                };
                let s = sem(self, order, Access::Store);
                self.op_void(Op::AtomicStore, &[ptr, scope_id, s, v]);
                self.int64_atomic_capability(&elem);
                Some(Val::new(0, Type::Void))
            }
            AtomicC11::Load => {
                let s = sem(self, order[0], Access::Load);
                let id = self.op(Op::AtomicLoad, t, &[ptr, scope_id, s]);
                self.int64_atomic_capability(&elem);
                Some(from_bits(self, id))
            }
            AtomicC11::Exchange => {
                let v = to_bits(self, vals.remove(0), span)?;
                let s = sem(self, order[0], Access::ReadModifyWrite);
                let id = self.op(Op::AtomicExchange, t, &[ptr, scope_id, s, v]);
                self.int64_atomic_capability(&elem);
                Some(from_bits(self, id))
            }
            AtomicC11::FlagTestAndSet => {
                let s = sem(self, order[0], Access::ReadModifyWrite);
                let one = self.constant(&elem, ConstVal::Int(1));
                let old = self.op(Op::AtomicExchange, t, &[ptr, scope_id, s, one]);
                let zero = self.constant(&elem, ConstVal::Int(0));
                let b = self.bool_ty(1);
                let was_set = self.op(Op::INotEqual, b, &[old, zero]);
                Some(Val::new(was_set, Type::BOOL))
            }
            AtomicC11::FlagClear => {
                let s = sem(self, order[0], Access::Store);
                let zero = self.constant(&elem, ConstVal::Int(0));
                self.op_void(Op::AtomicStore, &[ptr, scope_id, s, zero]);
                Some(Val::new(0, Type::Void))
            }
            AtomicC11::CompareExchange => {
                if elem.is_float() {
                    self.error(
                        span,
                        format!(
                            "'{name}' on a float inside a __local struct or vector is not supported"
                        ),
                    );
                    return None;
                }
                let expected_ptr = vals.remove(0);
                let desired = to_bits(self, vals.remove(0), span)?;
                if !matches!(expected_ptr.ty, Type::Pointer(..)) {
                    self.error(
                        span,
                        format!("the second argument of '{name}' is a pointer"),
                    );
                    return None;
                }
                let place = self.deref(expected_ptr, span)?;
                let expected = self.load(&place, span)?;
                let expected = to_bits(self, expected, span)?;
                let eq = sem(self, order[0], Access::ReadModifyWrite);
                // The failure order may be no stronger than a load.
                let uneq = sem(self, order[1], Access::Load);
                let old = self.op(
                    Op::AtomicCompareExchange,
                    t,
                    &[ptr, scope_id, eq, uneq, desired, expected],
                );
                self.int64_atomic_capability(&elem);
                let b = self.bool_ty(1);
                let ok = self.op(Op::IEqual, b, &[old, expected]);
                // On failure *expected takes the value found; on success
                // it already holds that value.
                let found = from_bits(self, old);
                self.store(&place, &found, span);
                Some(Val::new(ok, Type::BOOL))
            }
            AtomicC11::Fetch(f) => {
                if elem.scalar() == Some(Scalar::Double)
                    || float.as_ref().and_then(|f| f.scalar()) == Some(Scalar::Double)
                {
                    self.error(span, format!("'{name}' on double is not supported"));
                    return None;
                }
                if let Some(ft) = &float {
                    self.float_fetch_feature(f, widest, name, span)?;
                    let v = to_bits(self, vals.remove(0), span)?;
                    let found = self.float_fetch_loop(f, ptr, ft, &elem, scope_id, order[0], v);
                    return Some(from_bits(self, found));
                }
                let v = self.convert(vals.remove(0), &elem, span, false)?;
                let s = sem(self, order[0], Access::ReadModifyWrite);
                let id = if elem.is_float() {
                    self.float_fetch(f, ptr, widest, t, scope_id, s, v.id, name, span)?
                } else {
                    let signed = elem.scalar().is_some_and(|s| s.is_signed());
                    let o = match f {
                        AtomicOp::Add => Op::AtomicIAdd,
                        AtomicOp::Sub => Op::AtomicISub,
                        AtomicOp::Or => Op::AtomicOr,
                        AtomicOp::Xor => Op::AtomicXor,
                        AtomicOp::And => Op::AtomicAnd,
                        AtomicOp::Min if signed => Op::AtomicSMin,
                        AtomicOp::Min => Op::AtomicUMin,
                        AtomicOp::Max if signed => Op::AtomicSMax,
                        _ => Op::AtomicUMax,
                    };
                    self.op(o, t, &[ptr, scope_id, s, v.id])
                };
                self.int64_atomic_capability(&elem);
                Some(Val::new(id, elem))
            }
            AtomicC11::WorkItemFence => None,
        }
    }

    fn int64_atomic_capability(&mut self, elem: &Type) {
        if elem.scalar().is_some_and(|s| s.bits() == 64) {
            self.m.capability(Capability::Int64Atomics);
        }
    }

    /// `atomic_fetch_{add,sub,min,max}` on float (cl_ext_float_atomics),
    /// where VK_EXT_shader_atomic_float(2) gives the instruction for that
    /// memory.
    #[allow(clippy::too_many_arguments)]
    fn float_fetch(
        &mut self,
        f: AtomicOp,
        ptr: Word,
        widest: u32,
        t: Word,
        scope: Word,
        sem: Word,
        v: Word,
        name: &str,
        span: Span,
    ) -> R<Word> {
        let op = self.float_fetch_feature(f, widest, name, span)?;
        if op == Op::AtomicFAddEXT {
            self.m.capability(Capability::AtomicFloat32AddEXT);
            self.m
                .extensions
                .insert("SPV_EXT_shader_atomic_float_add".into());
        } else {
            self.m.capability(Capability::AtomicFloat32MinMaxEXT);
            self.m
                .extensions
                .insert("SPV_EXT_shader_atomic_float_min_max".into());
        }
        let v = if f == AtomicOp::Sub {
            self.op(Op::FNegate, t, &[v])
        } else {
            v
        };
        Some(self.op(op, t, &[ptr, scope, sem, v]))
    }

    /// The float atomic instruction for `atomic_fetch_<f>`, once the
    /// device's feature macro for it (cl_ext_float_atomics) is checked:
    /// the function exists only where the macro is defined.
    fn float_fetch_feature(&mut self, f: AtomicOp, widest: u32, name: &str, span: Span) -> R<Op> {
        let space = if widest == SCOPE_WORKGROUP {
            "local"
        } else {
            "global"
        };
        let (feature, op) = match f {
            AtomicOp::Add | AtomicOp::Sub => ("atomic_add", Op::AtomicFAddEXT),
            AtomicOp::Min => ("atomic_min_max", Op::AtomicFMinEXT),
            AtomicOp::Max => ("atomic_min_max", Op::AtomicFMaxEXT),
            _ => {
                self.error(span, format!("'{name}' takes an integer object"));
                return None;
            }
        };
        let macro_name = format!("__opencl_c_ext_fp32_{space}_{feature}");
        if !self.has_feature(&macro_name) {
            self.error(
                span,
                format!(
                    "'{name}' on float {space} memory needs {macro_name}, which this device lacks"
                ),
            );
            return None;
        }
        Some(op)
    }

    /// `atomic_fetch_<f>` on a float held as integer bits at `ptr`: a
    /// relaxed compare-exchange loop, with the order's release and acquire
    /// as fences around it. (Fences outside the loop also keep lavapipe
    /// correct: Mesa 22.3 miscompiles ordered atomics in a loop that
    /// work-items leave at different times.) Returns the bits found.
    #[allow(clippy::too_many_arguments)]
    fn float_fetch_loop(
        &mut self,
        f: AtomicOp,
        ptr: Word,
        float: &Type,
        bits: &Type,
        scope: Word,
        order: u32,
        v: Word,
    ) -> Word {
        let it = self.sty(bits);
        let ft = self.sty(float);
        let relaxed = self.u32c(0);
        let release = order_semantics(order, Access::Store);
        if release != 0 {
            let s = self.u32c(release);
            self.memory_fence(scope, s);
        }
        let operand = self.op(Op::Bitcast, ft, &[v]);
        let seen = self.new_function_var(bits);
        let first = self.op(Op::AtomicLoad, it, &[ptr, scope, relaxed]);
        self.op_void(Op::Store, &[seen, first]);
        let (header, body, cont, merge) = (self.label(), self.label(), self.label(), self.label());
        self.begin(header);
        self.op_void(Op::LoopMerge, &[merge, cont, 0]);
        self.branch(body);
        self.f.begin(body);
        let old = self.op(Op::Load, it, &[seen]);
        let x = self.op(Op::Bitcast, ft, &[old]);
        let r = match f {
            AtomicOp::Add => self.op(Op::FAdd, ft, &[x, operand]),
            AtomicOp::Sub => self.op(Op::FSub, ft, &[x, operand]),
            // fmin/fmax: a NaN operand gives the other one.
            AtomicOp::Min => self.glsl(ft, glsl::NMIN, &[x, operand]),
            _ => self.glsl(ft, glsl::NMAX, &[x, operand]),
        };
        let r = self.op(Op::Bitcast, it, &[r]);
        let found = self.op(
            Op::AtomicCompareExchange,
            it,
            &[ptr, scope, relaxed, relaxed, r, old],
        );
        self.op_void(Op::Store, &[seen, found]);
        let b = self.bool_ty(1);
        let done = self.op(Op::IEqual, b, &[found, old]);
        self.term(Op::BranchConditional, &[done, merge, cont]);
        self.f.begin(cont);
        self.term(Op::Branch, &[header]);
        self.f.begin(merge);
        let acquire = order_semantics(order, Access::Load);
        if acquire != 0 {
            let s = self.u32c(acquire);
            self.memory_fence(scope, s);
        }
        self.op(Op::Load, it, &[seen])
    }

    /// An integer pointer to the bits of the float `elem` that `ptr` points
    /// at, and that integer's type; `None` where the float's memory cannot
    /// be reinterpreted (a float inside a typed `__local` struct or vector).
    fn float_bits_pointer(
        &mut self,
        ptr: Word,
        elem: &Type,
        bits: bool,
        widest: u32,
    ) -> Option<(Word, Type)> {
        if !elem.is_float() {
            return None;
        }
        let it = if elem.scalar().is_some_and(|s| s.bits() == 64) {
            Type::ULONG
        } else {
            Type::UINT
        };
        if bits {
            return Some((ptr, it));
        }
        // Only a `__global` pointer (device scope) is a physical address.
        if widest != SCOPE_DEVICE {
            return None;
        }
        let itw = self.sty(&it);
        let pt = self
            .m
            .ty(TypeKey::Pointer(StorageClass::PhysicalStorageBuffer, itw));
        Some((self.op(Op::Bitcast, pt, &[ptr]), it))
    }

    /// `atomic_work_item_fence(flags, order, scope)`.
    fn work_item_fence(&mut self, args: &'a [Expr], span: Span) -> R<Val> {
        if args.len() != 3 {
            self.error(span, "'atomic_work_item_fence' takes 3 arguments");
            return None;
        }
        let flags = match consteval::eval(&args[0], self.types) {
            Some(v) => v.as_i64() as u32,
            None => {
                self.expr(&args[0])?;
                3
            }
        };
        let order = self.memory_argument(&args[1], ORDER_SEQ_CST)?;
        let scope = self.memory_argument(&args[2], MSCOPE_DEVICE)?;
        let ordering = order_semantics(order, Access::ReadModifyWrite);
        if ordering == 0 {
            // A relaxed fence orders nothing.
            return Some(Val::new(0, Type::Void));
        }
        let mut sem = ordering & !(SEM_UNIFORM | SEM_WORKGROUP);
        if flags & 1 != 0 {
            sem |= SEM_WORKGROUP;
        }
        if flags & 2 != 0 {
            sem |= SEM_UNIFORM;
        }
        // Image memory is reached through descriptors: UniformMemory
        // covers it too.
        if flags & 4 != 0 {
            sem |= SEM_UNIFORM | 0x800;
        }
        if sem & (SEM_UNIFORM | SEM_WORKGROUP | 0x800) == 0 {
            return Some(Val::new(0, Type::Void));
        }
        let widest = if flags & 6 == 0 {
            SCOPE_WORKGROUP
        } else {
            SCOPE_DEVICE
        };
        let s = self.memory_scope(scope, widest);
        let s = self.u32c(s);
        let sem = self.u32c(sem);
        self.memory_fence(s, sem);
        Some(Val::new(0, Type::Void))
    }

    /// A memory fence (`OpMemoryBarrier`) at `scope` with semantics `sem`
    /// (both constant ids). Where the driver runs fences as work-group
    /// barriers (`TargetCaps::fences_as_atomics`), a relaxed atomic OR of
    /// zero into a work-group word instead: llvmpipe compiles every atomic
    /// read-modify-write to a sequentially consistent one, which orders all
    /// memory accesses around it, in the compiler and on the CPU, and it
    /// is not a barrier, so a work-item may run it alone.
    pub(super) fn memory_fence(&mut self, scope: Word, sem: Word) {
        if self.caps.fences_as_atomics {
            self.fence_word_update();
        } else {
            self.op_void(Op::MemoryBarrier, &[scope, sem]);
        }
    }

    /// The relaxed OR of zero into the kernel's fence word that stands for
    /// a fence under `TargetCaps::fences_as_atomics`.
    fn fence_word_update(&mut self) {
        let word = self.fence_word();
        let u = self.m.ty(TypeKey::Int(32));
        let wg = self.u32c(SCOPE_WORKGROUP);
        let zero = self.u32c(0);
        self.op(Op::AtomicOr, u, &[word, wg, zero, zero]);
    }

    /// The kernel's work-group word for `memory_fence`, made on first use.
    fn fence_word(&mut self) -> Word {
        if let Some(word) = self.k.fence_word {
            return word;
        }
        let u = self.m.ty(TypeKey::Int(32));
        let p = self.m.ty(TypeKey::Pointer(StorageClass::Workgroup, u));
        let word = self
            .m
            .global(Op::Variable, p, &[StorageClass::Workgroup as u32]);
        self.k.interface.insert(word);
        self.k.fence_word = Some(word);
        self.static_local_bytes += 4;
        word
    }
}
