//! Expressions: typing by the OpenCL C rules, implicit conversions, and the
//! instructions that compute them.

use super::*;
use crate::sema::types::{common_scalar, promote};

/// An expression's result before loads: a place (lvalue) or a value.
pub(super) enum Operand {
    Place(Place),
    Val(Val),
}

const MAX_SWIZZLE: usize = 16;

/// The component indices a swizzle names on an `n`-vector, or `None`.
pub(crate) fn swizzle_comps(name: &str, n: u32) -> Option<Vec<u32>> {
    let half = n.next_power_of_two() / 2;
    let comps: Vec<u32> = match name {
        "lo" => (0..half).collect(),
        "hi" => (half..2 * half).collect(),
        "even" => (0..n.next_power_of_two()).step_by(2).collect(),
        "odd" => (1..n.next_power_of_two()).step_by(2).collect(),
        _ => {
            if let Some(digits) = name.strip_prefix('s').or_else(|| name.strip_prefix('S')) {
                if digits.is_empty() {
                    return None;
                }
                let mut v = Vec::new();
                for c in digits.chars() {
                    let d = c.to_digit(16)?;
                    if d >= n {
                        return None;
                    }
                    v.push(d);
                }
                v
            } else {
                let xyzw = name.chars().all(|c| "xyzw".contains(c));
                let rgba = name.chars().all(|c| "rgba".contains(c));
                if !xyzw && !rgba || name.is_empty() {
                    return None;
                }
                let set = if xyzw { "xyzw" } else { "rgba" };
                let mut v = Vec::new();
                for c in name.chars() {
                    let d = set.find(c)? as u32;
                    if d >= n {
                        return None;
                    }
                    v.push(d);
                }
                v
            }
        }
    };
    if comps.is_empty()
        || comps.len() > MAX_SWIZZLE
        || !matches!(comps.len(), 1 | 2 | 3 | 4 | 8 | 16)
    {
        return None;
    }
    Some(comps)
}

/// The address space of a pointer into a variable of storage class `sc`.
/// Pointers into program-scope `__constant` data (`Private` variables) are
/// held as indices, like `__private` ones; stores through them are refused.
fn space_of(sc: StorageClass) -> AddrSpace {
    match sc {
        StorageClass::Workgroup => AddrSpace::Local,
        _ => AddrSpace::Private,
    }
}

/// Could evaluating `e` change anything (so both arms of `?:` may not both
/// be computed)?
pub(super) fn has_side_effects(e: &Expr) -> bool {
    match &e.kind {
        // A compound literal writes its unnamed object.
        ExprKind::Assign(..) | ExprKind::CompoundLit(..) => true,
        ExprKind::Unary(op, inner) => {
            matches!(
                op,
                UnOp::PreInc | UnOp::PreDec | UnOp::PostInc | UnOp::PostDec
            ) || has_side_effects(inner)
        }
        ExprKind::Call(name, args) => {
            !matches!(
                crate::sema::builtins::lookup(name),
                Some(
                    crate::sema::builtins::Builtin::FloatGlsl { .. }
                        | crate::sema::builtins::Builtin::MinMax { .. }
                        | crate::sema::builtins::Builtin::Convert { .. }
                        | crate::sema::builtins::Builtin::AsType(_)
                        | crate::sema::builtins::Builtin::WorkItem(_)
                )
            ) || args.iter().any(has_side_effects)
        }
        ExprKind::Binary(_, a, b) | ExprKind::Comma(a, b) | ExprKind::Index(a, b) => {
            has_side_effects(a) || has_side_effects(b)
        }
        ExprKind::Cond(a, b, c) => {
            has_side_effects(a) || has_side_effects(b) || has_side_effects(c)
        }
        ExprKind::Member(a, _, _) | ExprKind::Cast(_, a) => has_side_effects(a),
        ExprKind::VecLit(_, items) => items.iter().any(has_side_effects),
        ExprKind::SizeofExpr(_) | ExprKind::VecStepExpr(_) => false,
        _ => false,
    }
}

/// Must `e` be evaluated only where the program evaluates it, as an arm
/// of `?:` or the right operand of `&&` and `||`? It must when it changes
/// anything, and when it reads memory through a pointer or an index: the
/// guard before it is often what keeps that read in bounds (`i < n &&
/// p[i] > 0`, `g < n ? in[g] : 0`), and a read outside a buffer faults on
/// a GPU.
pub(super) fn needs_guard(e: &Expr) -> bool {
    has_side_effects(e) || reads_memory(e)
}

/// Does evaluating `e` read memory through a pointer (`*p`, `p->m`) or an
/// index (`p[i]`, `array[i]`)? `sizeof` and `vec_step` evaluate nothing.
fn reads_memory(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Index(..) | ExprKind::Unary(UnOp::Deref, _) | ExprKind::Member(_, _, true) => {
            true
        }
        ExprKind::SizeofExpr(_) | ExprKind::VecStepExpr(_) => false,
        _ => e.any_operand(reads_memory),
    }
}

impl<'a> Lowerer<'a> {
    /// The word pool that pointers into `space` index, if this kernel has
    /// one.
    pub(super) fn pool_of(&self, space: AddrSpace) -> Option<StorageClass> {
        match space {
            AddrSpace::Local if self.pool.is_some() => Some(StorageClass::Workgroup),
            // With tagged generic pointers a `__private` pointer is a
            // generic one, not a bare pool offset.
            AddrSpace::Private if self.private_pointers_pooled() && !self.generic_dynamic => {
                Some(StorageClass::Function)
            }
            _ => None,
        }
    }

    /// Lowers `e` to a value (arrays decay to pointers).
    pub(super) fn expr(&mut self, e: &'a Expr) -> R<Val> {
        if let ExprKind::Ident(name) = &e.kind {
            if let Some((_, ty, value)) = self.unrolled_counters.iter().rfind(|c| c.0 == name) {
                let ty = ty.clone();
                let id = self.constant(&ty, ConstVal::Int(*value));
                return Some(Val::new(id, ty));
            }
            if let Some(v) = self.constant_local(name) {
                return Some(v);
            }
        }
        if let ExprKind::Index(..) = e.kind {
            if let Some(v) = self.constant_table_read(e) {
                return v;
            }
        }
        match self.operand(e)? {
            Operand::Val(v) => Some(v),
            Operand::Place(p) => self.place_value(p, e),
        }
    }

    fn place_value(&mut self, p: Place, e: &'a Expr) -> R<Val> {
        if let Type::Array(elem, _) = p.ty().clone() {
            return self.decay(p, &elem, e.span);
        }
        let mut v = self.load(&p, e.span)?;
        if let ExprKind::Ident(name) = &e.kind {
            if let Some(sym) = self.lookup(name) {
                v.base = sym.base.clone();
            }
        }
        Some(v)
    }

    fn decay(&mut self, p: Place, elem: &Type, span: Span) -> R<Val> {
        match p {
            Place::Pool { offset, sc, .. } => {
                let id = if self.generic_dynamic && sc == StorageClass::Function {
                    self.tag_private(offset)
                } else {
                    offset
                };
                Some(Val::new(
                    id,
                    Type::Pointer(TypeRef::new(elem.clone()), space_of(sc), 0),
                ))
            }
            Place::Addr { addr, space, .. } => Some(Val::new(
                addr,
                Type::Pointer(TypeRef::new(elem.clone()), space, 0),
            )),
            Place::Var {
                root,
                sc,
                path,
                dynamic,
                ..
            } => {
                self.check_outside_pool(sc, span)?;
                let (path, saved) = self.save_path(path, &dynamic);
                let base = LBase {
                    root,
                    sc,
                    path,
                    saved,
                    elem: elem.clone(),
                    is_array: true,
                };
                let zero = self.u32c(0);
                Some(Val {
                    id: zero,
                    ty: Type::Pointer(TypeRef::new(elem.clone()), space_of(sc), 0),
                    base: Some(Rc::new(base)),
                })
            }
            Place::Swizzle { .. } => {
                self.error(span, "cannot take the address of a vector component");
                None
            }
        }
    }

    /// Lowers `e` to a place where it is an lvalue, else to a value.
    pub(super) fn operand(&mut self, e: &'a Expr) -> R<Operand> {
        match &e.kind {
            ExprKind::Ident(name) => match self.lookup(name) {
                // A program-scope or static `__global` variable: `root` is
                // its offset in the program's global variable buffer.
                Some(Sym {
                    sc: StorageClass::PhysicalStorageBuffer,
                    root,
                    ty,
                    ..
                }) => Some(Operand::Place(self.global_data_place(root, ty))),
                // `__constant` data in the same buffer (tagged generic
                // pointers): read-only.
                Some(Sym {
                    sc: StorageClass::UniformConstant,
                    root,
                    ty,
                    ..
                }) => {
                    let place = match self.global_data_place(root, ty) {
                        Place::Addr {
                            addr, ty, align, ..
                        } => Place::Addr {
                            addr,
                            ty,
                            align,
                            space: AddrSpace::Constant,
                        },
                        p => p,
                    };
                    Some(Operand::Place(place))
                }
                Some(Sym {
                    pool: Some(offset),
                    ty,
                    sc,
                    ..
                }) => Some(Operand::Place(Place::Pool { offset, ty, sc })),
                Some(sym) => Some(Operand::Place(Place::Var {
                    root: sym.root,
                    sc: sym.sc,
                    path: Vec::new(),
                    dynamic: Vec::new(),
                    in_array: false,
                    ty: sym.ty,
                })),
                None => {
                    if let Some(v) = self.named_constant(name) {
                        return Some(Operand::Val(v));
                    }
                    self.error(e.span, format!("use of undeclared identifier '{name}'"));
                    None
                }
            },
            ExprKind::Index(a, i) => {
                let base = self.operand(a)?;
                // C99 6.5.2.1: `E1[E2]` is `*(E1 + E2)`, so the integer may
                // come first (`2[a]`).
                let (base, idx, a, i) = match base {
                    Operand::Val(v) if v.ty.scalar().is_some_and(|s| s.is_integer()) => {
                        (self.operand(i)?, v, &**i, &**a)
                    }
                    base => (base, self.expr(i)?, &**a, &**i),
                };
                if !idx
                    .ty
                    .scalar()
                    .is_some_and(|s| s.is_integer() || s == Scalar::Bool)
                {
                    self.error(i.span, "array subscript is not an integer");
                    return None;
                }
                match base {
                    Operand::Place(p) if matches!(p.ty(), Type::Array(..) | Type::Vector(..)) => {
                        self.index_dynamic(p, idx, e.span).map(Operand::Place)
                    }
                    Operand::Place(p) => {
                        let v = self.place_value(p, a)?;
                        self.subscript_value(v, idx, e.span)
                    }
                    Operand::Val(v) => self.subscript_value(v, idx, e.span),
                }
            }
            ExprKind::Member(base, name, arrow) => {
                if *arrow {
                    let v = self.expr(base)?;
                    if !matches!(v.ty.pointee(), Some(Type::Struct(_))) {
                        self.error(
                            e.span,
                            "member reference type is not a pointer to a struct or union",
                        );
                        return None;
                    }
                    let p = self.deref(v, e.span)?;
                    return self.member(Operand::Place(p), name, e.span);
                }
                let b = self.operand(base)?;
                self.member(b, name, e.span)
            }
            ExprKind::Unary(UnOp::Deref, inner) => {
                let v = self.expr(inner)?;
                self.deref(v, e.span).map(Operand::Place)
            }
            ExprKind::CompoundLit(ty, init) => self.compound_literal(ty, init, e.span),
            ExprKind::StrLit(bytes) => self.string_literal(bytes, e.span).map(Operand::Place),
            _ => self.rvalue(e).map(Operand::Val),
        }
    }

    /// A compound literal: an unnamed `__private` object, zeroed and then
    /// initialised where it is evaluated (C99 6.5.2.5).
    fn compound_literal(&mut self, ty: &Type, init: &'a Init, span: Span) -> R<Operand> {
        self.check_type_supported(ty, span)?;
        if *ty == Type::Void || matches!(ty, Type::Opaque(_)) {
            let tn = self.types.name(ty);
            self.error(
                span,
                format!("compound literal of type '{tn}' is not allowed"),
            );
            return None;
        }
        if self.contains_union(ty) && self.ppool.is_none() {
            self.error(
                span,
                "unions in __private or __local memory are not supported yet",
            );
            return None;
        }
        let sym = self.named_private("", ty);
        let place = Self::sym_place(&sym);
        let t = self.sty(ty);
        let zero = self.m.constant(ConstKey::Null(t));
        self.store(&place, &Val::new(zero, ty.clone()), span);
        self.initialize(place.clone(), ty, init);
        Some(Operand::Place(place))
    }

    /// `CLK_*` flags and other names the headers would define, when the
    /// preprocessor has not already replaced them.
    fn named_constant(&mut self, name: &str) -> R<Val> {
        if let Some(f) = float_constant(name) {
            let id = self.constant(&Type::FLOAT, ConstVal::Float(f));
            return Some(Val::new(id, Type::FLOAT));
        }
        if self.caps.fp64 {
            if let Some(f) = double_constant(name) {
                let t = Type::Scalar(Scalar::Double);
                let id = self.constant(&t, ConstVal::Float(f));
                return Some(Val::new(id, t));
            }
        }
        if let Some((v, s)) = integer_limit(name) {
            return Some(self.const_val(&Type::Scalar(s), v));
        }
        if self.caps.fp64 {
            if let Some(v) = double_integer_limit(name) {
                return Some(self.const_val(&Type::INT, v));
            }
        }
        if let Some(v) = super::image::image_constant(name) {
            return Some(self.const_val(&Type::INT, v));
        }
        if let Some(v) = super::atomic::memory_enumerator(name) {
            return Some(self.const_val(&Type::INT, v as i64));
        }
        let v = match name {
            "CLK_LOCAL_MEM_FENCE" => 1,
            "CLK_GLOBAL_MEM_FENCE" => 2,
            "CLK_IMAGE_MEM_FENCE" => 4,
            "NULL" => {
                let zero = self.m.u64_const(0);
                return Some(Val::new(
                    zero,
                    Type::Pointer(TypeRef::new(Type::Void), AddrSpace::Global, 0),
                ));
            }
            "true" => 1,
            "false" => 0,
            _ => return None,
        };
        Some(self.const_val(&Type::INT, v))
    }

    fn subscript_value(&mut self, v: Val, idx: Val, span: Span) -> R<Operand> {
        match &v.ty {
            Type::Pointer(..) => {
                let p = self.pointer_add(v, idx, false, span)?;
                self.deref(p, span).map(Operand::Place)
            }
            Type::Vector(s, _) => {
                let i = self.convert(idx, &Type::UINT, span, false)?;
                let t = self.sty(&Type::Scalar(*s));
                Some(Operand::Val(Val::new(
                    self.op(Op::VectorExtractDynamic, t, &[v.id, i.id]),
                    Type::Scalar(*s),
                )))
            }
            Type::Array(..) => {
                // An array value (a struct member of a returned struct):
                // index a copy of it.
                let ty = v.ty.clone();
                let var = self.new_function_var(&ty);
                self.op_void(Op::Store, &[var, v.id]);
                let place = Place::Var {
                    root: var,
                    sc: StorageClass::Function,
                    path: Vec::new(),
                    dynamic: Vec::new(),
                    in_array: false,
                    ty,
                };
                self.index_dynamic(place, idx, span).map(Operand::Place)
            }
            _ => {
                self.error(
                    span,
                    "subscripted value is not an array, pointer, or vector",
                );
                None
            }
        }
    }

    fn index_dynamic(&mut self, p: Place, idx: Val, span: Span) -> R<Place> {
        let elem = match p.ty() {
            Type::Array(e, _) => (**e).clone(),
            Type::Vector(s, _) => Type::Scalar(*s),
            _ => return None,
        };
        match p {
            Place::Pool { offset, sc, .. } => {
                let i = self.convert(idx, &Type::UINT, span, false)?;
                let u = self.sty(&Type::UINT);
                let bytes = self.types.size(&elem);
                let size = self.u32c(bytes);
                let scaled = self.op(Op::IMul, u, &[i.id, size]);
                let o = self.op(Op::IAdd, u, &[offset, scaled]);
                self.note_pool_offset(offset, o, None);
                self.note_pool_index(offset, o, i.id, bytes, false);
                Some(Place::Pool {
                    offset: o,
                    ty: elem,
                    sc,
                })
            }
            Place::Var {
                root,
                sc,
                mut path,
                mut dynamic,
                ..
            } => {
                let i = self.convert(idx, &Type::UINT, span, false)?;
                path.push(i.id);
                dynamic.push(true);
                Some(Place::Var {
                    root,
                    sc,
                    path,
                    dynamic,
                    in_array: true,
                    ty: elem,
                })
            }
            Place::Addr {
                addr, space, align, ..
            } => {
                let i = self.convert(idx, &Type::LONG, span, false)?;
                let size = self.types.size(&elem) as u64;
                let u64t = self.m.ty(TypeKey::Int(64));
                let s = self.m.u64_const(size);
                let off = self.op(Op::IMul, u64t, &[i.id, s]);
                let a = self.op(Op::IAdd, u64t, &[addr, off]);
                let ealign = self.types.align(&elem).min(align.max(1));
                Some(Place::Addr {
                    addr: a,
                    ty: elem,
                    align: ealign,
                    space,
                })
            }
            Place::Swizzle { .. } => {
                self.error(
                    span,
                    "indexing a swizzle is not supported; copy it to a variable first",
                );
                None
            }
        }
    }

    fn member(&mut self, base: Operand, name: &str, span: Span) -> R<Operand> {
        let ty = match &base {
            Operand::Place(p) => p.ty().clone(),
            Operand::Val(v) => v.ty.clone(),
        };
        match ty {
            Type::Struct(id) => {
                // A direct member without building a path (the common case).
                let def = &self.types.structs[id];
                if let Some(idx) = def.members.iter().position(|m| m.name == name) {
                    return self.member_at(base, idx, span);
                }
                // Through anonymous members, one index at a time.
                let Some((path, _, _)) = self.types.member_path(id, name) else {
                    let tn = self.types.name(&ty);
                    self.error(span, format!("no member named '{name}' in '{tn}'"));
                    return None;
                };
                let mut operand = base;
                for idx in path {
                    operand = self.member_at(operand, idx as usize, span)?;
                }
                Some(operand)
            }
            Type::Vector(s, n) => {
                let Some(comps) = swizzle_comps(name, n as u32) else {
                    self.error(span, format!("invalid vector component or swizzle '.{name}' on a {}-component vector", n));
                    return None;
                };
                let rty = Type::vector_or_scalar(s, comps.len() as u32);
                match base {
                    // Only `.hi`/`.odd` of a 3-vector name component 3: the
                    // vector acts as a 4-vector whose `w` is undefined, so
                    // loads read it as undefined and stores drop it.
                    Operand::Place(p) => {
                        let place = match p {
                            Place::Swizzle {
                                base, comps: inner, ..
                            } => Place::Swizzle {
                                base,
                                comps: comps.iter().map(|c| inner[*c as usize]).collect(),
                                ty: rty,
                            },
                            p => Place::Swizzle {
                                base: Box::new(p),
                                comps,
                                ty: rty,
                            },
                        };
                        Some(Operand::Place(place))
                    }
                    Operand::Val(v) => Some(Operand::Val(self.swizzle_value(&v, &comps, &rty))),
                }
            }
            _ => {
                let tn = self.types.name(&ty);
                self.error(
                    span,
                    format!(
                        "member reference base type '{tn}' is not a structure, union or vector"
                    ),
                );
                None
            }
        }
    }

    /// Member `idx` of a struct or union operand.
    fn member_at(&mut self, base: Operand, idx: usize, span: Span) -> R<Operand> {
        let ty = match &base {
            Operand::Place(p) => p.ty().clone(),
            Operand::Val(v) => v.ty.clone(),
        };
        let Type::Struct(id) = ty else {
            return None;
        };
        let def = &self.types.structs[id];
        let mty = def.members.get(idx)?.ty.clone();
        let is_union = def.is_union;
        match base {
            Operand::Place(p) => {
                if is_union && !matches!(p, Place::Addr { .. } | Place::Pool { .. }) {
                    self.error(
                        span,
                        "unions in __private or __local memory are not supported yet",
                    );
                    return None;
                }
                Some(Operand::Place(self.member_place(p, idx as u32, mty)))
            }
            Operand::Val(v) if is_union => {
                // Overlapping members need memory: spill the value
                // to a private pool slot and read the member there.
                if self.ppool.is_none() {
                    self.error(
                        span,
                        "members of union values are not supported here yet; use a variable",
                    );
                    return None;
                }
                let sym = self.named_private("", &ty);
                let place = Self::sym_place(&sym);
                self.store(&place, &v, span);
                Some(Operand::Place(self.member_place(place, idx as u32, mty)))
            }
            Operand::Val(v) => {
                let t = self.sty(&mty);
                Some(Operand::Val(Val::new(
                    self.op(Op::CompositeExtract, t, &[v.id, idx as u32]),
                    mty,
                )))
            }
        }
    }

    pub(super) fn swizzle_value(&mut self, v: &Val, comps: &[u32], ty: &Type) -> Val {
        let t = self.sty(ty);
        let n = v.ty.width();
        if comps.len() == 1 {
            let c = comps[0].min(n - 1);
            return Val::new(self.op(Op::CompositeExtract, t, &[v.id, c]), ty.clone());
        }
        let mut args = vec![v.id, v.id];
        args.extend(comps.iter().map(|c| if *c < n { *c } else { 0xffff_ffff }));
        Val::new(self.op(Op::VectorShuffle, t, &args), ty.clone())
    }

    pub(super) fn deref(&mut self, v: Val, span: Span) -> R<Place> {
        let Type::Pointer(pointee, space, _) = &v.ty else {
            let tn = self.types.name(&v.ty);
            self.error(
                span,
                format!("indirection requires pointer operand ('{tn}' invalid)"),
            );
            return None;
        };
        if **pointee == Type::Void {
            self.error(span, "cannot dereference a void pointer");
            return None;
        }
        if v.base.is_none() {
            if let Some(sc) = self.pool_of(*space) {
                return Some(Place::Pool {
                    offset: v.id,
                    ty: (**pointee).clone(),
                    sc,
                });
            }
        }
        if self.addressed(*space) {
            let align = self.types.align(pointee);
            return Some(Place::Addr {
                addr: v.id,
                ty: (**pointee).clone(),
                align,
                space: *space,
            });
        }
        let Some(base) = v.base.clone() else {
            self.generic_limitation(
                span,
                "cannot tell which __local/__private object this pointer points into; \
                 such pointers are not supported yet",
            );
            return None;
        };
        if base.elem != **pointee {
            let (a, b) = (self.types.name(pointee), self.types.name(&base.elem));
            self.generic_limitation(
                span,
                format!("accessing '{b}' memory through a '{a}*' pointer is not supported yet for __local/__private memory"),
            );
            return None;
        }
        let u = self.sty(&Type::UINT);
        let mut path = Vec::new();
        for (id, saved) in base.path.iter().zip(&base.saved) {
            path.push(if *saved {
                self.op(Op::Load, u, &[*id])
            } else {
                *id
            });
        }
        let mut dynamic = base.saved.clone();
        if base.is_array {
            path.push(v.id);
            dynamic.push(true);
        }
        Some(Place::Var {
            root: base.root,
            sc: base.sc,
            path,
            dynamic,
            in_array: base.is_array,
            ty: base.elem.clone(),
        })
    }

    /// A pointer's access path, its run-time indices copied to variables.
    fn save_path(&mut self, path: Vec<Word>, dynamic: &[bool]) -> (Vec<Word>, Vec<bool>) {
        let mut saved = Vec::new();
        let mut out = Vec::new();
        for (i, id) in path.into_iter().enumerate() {
            if dynamic.get(i).copied().unwrap_or(false) {
                let var = self.new_function_var(&Type::UINT);
                self.op_void(Op::Store, &[var, id]);
                out.push(var);
                saved.push(true);
            } else {
                out.push(id);
                saved.push(false);
            }
        }
        (out, saved)
    }

    fn address_of(&mut self, e: &'a Expr) -> R<Val> {
        let p = match self.operand(e)? {
            Operand::Place(p) => p,
            Operand::Val(_) => {
                self.error(e.span, "cannot take the address of an rvalue");
                return None;
            }
        };
        match p {
            Place::Pool { offset, ty, sc } => {
                let id = if self.generic_dynamic && sc == StorageClass::Function {
                    self.tag_private(offset)
                } else {
                    offset
                };
                Some(Val::new(
                    id,
                    Type::Pointer(TypeRef::new(ty), space_of(sc), 0),
                ))
            }
            Place::Addr {
                addr, ty, space, ..
            } => Some(Val::new(addr, Type::Pointer(TypeRef::new(ty), space, 0))),
            Place::Var {
                root,
                sc,
                mut path,
                mut dynamic,
                in_array,
                ty,
            } => {
                self.check_outside_pool(sc, e.span)?;
                let space = space_of(sc);
                let (index, is_array) = if in_array && !path.is_empty() {
                    let last = path.pop().unwrap_or_default();
                    dynamic.pop();
                    (last, true)
                } else {
                    (self.u32c(0), false)
                };
                let (path, saved) = self.save_path(path, &dynamic);
                let base = LBase {
                    root,
                    sc,
                    path,
                    saved,
                    elem: ty.clone(),
                    is_array,
                };
                Some(Val {
                    id: index,
                    ty: Type::Pointer(TypeRef::new(ty), space, 0),
                    base: Some(Rc::new(base)),
                })
            }
            Place::Swizzle { .. } => {
                self.error(e.span, "cannot take the address of a vector component");
                None
            }
        }
    }

    /// A pointer to a `Function` variable outside the private pool cannot
    /// be made where private pointers are pool offsets: `addressed` put
    /// every variable whose address is taken in the pool, so reaching
    /// here is a compiler bug, reported instead of miscompiled.
    fn check_outside_pool(&mut self, sc: StorageClass, span: Span) -> R<()> {
        if sc == StorageClass::Function && self.private_pointers_pooled() {
            self.error(
                span,
                "internal compiler error: the address of a private variable outside the private pool",
            );
            return None;
        }
        Some(())
    }

    /// Expressions that are never lvalues.
    fn rvalue(&mut self, e: &'a Expr) -> R<Val> {
        match &e.kind {
            ExprKind::Error => None,
            ExprKind::IntLit(v, s) => Some(self.const_val(&Type::Scalar(*s), *v as i64)),
            ExprKind::FloatLit(f, s) => {
                if *s == Scalar::Double && !self.caps.fp64 {
                    self.error(e.span, "double precision literals need cl_khr_fp64");
                    return None;
                }
                if *s == Scalar::Half && !self.caps.fp16 {
                    self.error(e.span, "half precision literals need cl_khr_fp16");
                    return None;
                }
                let t = Type::Scalar(*s);
                let id = self.constant(&t, ConstVal::Float(*f));
                Some(Val::new(id, t))
            }
            ExprKind::StrLit(_)
            | ExprKind::Ident(_)
            | ExprKind::Index(..)
            | ExprKind::Member(..)
            | ExprKind::CompoundLit(..) => self.expr(e),
            ExprKind::Unary(op, inner) => self.unary(*op, inner, e.span),
            ExprKind::Binary(BinOp::LogAnd, a, b) => self.logical(true, a, b, e.span),
            ExprKind::Binary(BinOp::LogOr, a, b) => self.logical(false, a, b, e.span),
            ExprKind::Binary(op, a, b) => {
                let joins = matches!(op, BinOp::BitOr | BinOp::BitXor | BinOp::Add);
                if joins && self.caps.rotate64_in_halves {
                    if let Some(idiom) = self.rotate64_idiom(*op, a, b) {
                        return self.rotate_idiom(idiom, e.span);
                    }
                }
                if *op == BinOp::BitOr {
                    if let Some(idiom) = majority::MajorityIdiom::of(a, b) {
                        return self.majority(idiom, e.span);
                    }
                }
                let x = self.expr(a)?;
                let y = self.expr(b)?;
                if matches!(op, BinOp::Eq | BinOp::Ne) {
                    let null_test = match (is_null_constant(a), is_null_constant(b)) {
                        (false, true) => Some(&x),
                        (true, false) => Some(&y),
                        _ => None,
                    };
                    let offset_pointer =
                        |t: &Type| matches!(t, Type::Pointer(_, sp, _) if !self.addressed(*sp));
                    if let Some(p) = null_test.filter(|p| offset_pointer(&p.ty)) {
                        return Some(self.is_null(p, *op == BinOp::Ne));
                    }
                }
                self.binary(*op, x, y, e.span)
            }
            ExprKind::Assign(op, l, r) => self.assign(*op, l, r, e.span),
            ExprKind::Cond(c, a, b) => self.conditional(c, a, b, e.span),
            ExprKind::Call(name, args) => self.call(name, args, e.span),
            ExprKind::Cast(t, inner) => {
                let v = self.expr(inner)?;
                if *t == Type::Void {
                    return Some(Val::new(0, Type::Void));
                }
                self.check_type_supported(t, e.span)?;
                self.convert(v, t, e.span, true)
            }
            ExprKind::VecLit(t, items) => self.vector_literal(t, items, e.span),
            ExprKind::SizeofType(t) => {
                let n = self.types.size(t);
                Some(self.const_val(&Type::ULONG, n as i64))
            }
            ExprKind::AlignofType(t) => {
                let n = self.types.align(t);
                Some(self.const_val(&Type::ULONG, n as i64))
            }
            ExprKind::VecStepType(t) => {
                let n = vec_step(t);
                Some(self.const_val(&Type::INT, n as i64))
            }
            ExprKind::SizeofExpr(inner) | ExprKind::VecStepExpr(inner) => {
                // C99 6.5.3.4: the operand is not evaluated, only typed;
                // its instructions are checked and dropped.
                let mut ty = None;
                self.dead_code(|l| {
                    ty = l.operand(inner).map(|o| match o {
                        Operand::Place(p) => p.ty().clone(),
                        Operand::Val(v) => v.ty,
                    });
                });
                let t = ty?;
                if matches!(e.kind, ExprKind::SizeofExpr(_)) {
                    let n = self.types.size(&t);
                    Some(self.const_val(&Type::ULONG, n as i64))
                } else {
                    Some(self.const_val(&Type::INT, vec_step(&t) as i64))
                }
            }
            ExprKind::Comma(a, b) => {
                self.expr(a);
                self.expr(b)
            }
        }
    }

    pub(super) fn check_type_supported(&mut self, t: &Type, span: Span) -> R<()> {
        match t.elem_scalar() {
            Some(Scalar::Double) if !self.caps.fp64 => {
                self.error(span, "type 'double' requires cl_khr_fp64 support");
                None
            }
            _ => Some(()),
        }
    }

    /// A boolean condition (`if`, loops, `!`, `&&`, `?:`).
    pub(super) fn cond(&mut self, e: &'a Expr) -> R<Word> {
        let v = self.expr(e)?;
        self.truth_value(v, e.span)
    }

    fn truth_value(&mut self, v: Val, span: Span) -> R<Word> {
        match &v.ty {
            Type::Scalar(Scalar::Bool) => Some(v.id),
            Type::Scalar(_) | Type::Pointer(..) => {
                let b = self.convert(v, &Type::BOOL, span, false)?;
                Some(b.id)
            }
            _ => {
                let tn = self.types.name(&v.ty);
                self.error(
                    span,
                    format!("statement requires expression of scalar type ('{tn}' invalid)"),
                );
                None
            }
        }
    }

    /// Converts `v` to `to`: the implicit conversions of assignment and
    /// argument passing, and (with `explicit`) casts.
    pub(super) fn convert(&mut self, v: Val, to: &Type, span: Span, explicit: bool) -> R<Val> {
        if v.ty == *to {
            return Some(v);
        }
        match (&v.ty, to) {
            (Type::Scalar(_) | Type::Vector(..), Type::Scalar(_) | Type::Vector(..)) => {
                let (n1, n2) = (v.ty.width(), to.width());
                if n1 == n2 {
                    if n1 > 1 && v.ty.elem_scalar() != to.elem_scalar() {
                        let (a, b) = (self.types.name(&v.ty), self.types.name(to));
                        self.error(
                            span,
                            format!("cannot convert between vector types '{a}' and '{b}'; use convert_{b}()"),
                        );
                        return None;
                    }
                    let id = self.convert_elems(v.id, v.ty.elem_scalar()?, to.elem_scalar()?, n1);
                    return Some(Val::new(id, to.clone()));
                }
                if n1 == 1 {
                    let s = v.ty.scalar()?;
                    let e = to.elem_scalar()?;
                    let c = self.convert_elems(v.id, s, e, 1);
                    let t = self.sty(to);
                    let comps = vec![c; n2 as usize];
                    return Some(Val::new(
                        self.op(Op::CompositeConstruct, t, &comps),
                        to.clone(),
                    ));
                }
                let (a, b) = (self.types.name(&v.ty), self.types.name(to));
                self.error(span, format!("cannot convert '{a}' to '{b}'"));
                None
            }
            (Type::Pointer(_, s1, _), Type::Pointer(elem, AddrSpace::Private, q))
                if explicit
                    && self.cl_version >= 200
                    && *s1 != AddrSpace::Private
                    && !(self.generic_dynamic && *s1 == AddrSpace::Local) =>
            {
                // A cast to a pointer without an address space makes a
                // generic pointer: it keeps pointing where it did. (A
                // tagged generic pointer into `__local` memory carries the
                // local tag instead, below.)
                let ty = Type::Pointer(elem.clone(), *s1, *q);
                Some(Val {
                    id: v.id,
                    ty,
                    base: v.base,
                })
            }
            (Type::Pointer(_, s1, _), Type::Pointer(_, s2, _)) => {
                if self.addressed(*s1) == self.addressed(*s2) {
                    if s1 != s2
                        && !explicit
                        && !(s1.is_addressed() && v.ty.pointee() == Some(&Type::Void))
                        && (!self.generic_dynamic || *s2 != AddrSpace::Private)
                    {
                        self.diags.warning(
                            span,
                            format!(
                                "conversion between pointers to the {} and {} address spaces",
                                s1.keyword(),
                                s2.keyword()
                            ),
                        );
                    }
                    return Some(Val {
                        id: v.id,
                        ty: to.clone(),
                        base: v.base,
                    });
                }
                // Only a null pointer changes between the 64-bit and the
                // 32-bit spaces.
                if v.base.is_none() && self.is_null_value(&v) {
                    let id = if self.addressed(*s2) {
                        self.m.u64_const(0)
                    } else {
                        self.u32c(NULL_SHARED_OR_PRIVATE)
                    };
                    return Some(Val::new(id, to.clone()));
                }
                // Tagged generic pointers: a `__local` pointer gains the
                // local tag; a generic one cast to `__local` loses it.
                if self.generic_dynamic && v.base.is_none() {
                    let id = match (s1, s2) {
                        (AddrSpace::Local, AddrSpace::Private) => Some(self.tag_local(v.id)),
                        (AddrSpace::Private, AddrSpace::Local) => Some(self.untag_local(v.id)),
                        _ => None,
                    };
                    if let Some(id) = id {
                        return Some(Val::new(id, to.clone()));
                    }
                }
                self.generic_limitation(
                    span,
                    format!(
                        "cannot convert a pointer to the {} address space into one to {}",
                        s1.keyword(),
                        s2.keyword()
                    ),
                );
                None
            }
            (Type::Scalar(s), Type::Pointer(_, space, _))
                if (s.is_integer() || *s == Scalar::Bool)
                    && !self.addressed(*space)
                    && self.is_null_value(&v) =>
            {
                Some(Val::new(self.u32c(NULL_SHARED_OR_PRIVATE), to.clone()))
            }
            (Type::Scalar(s), Type::Pointer(_, space, _))
                if s.is_integer() || *s == Scalar::Bool =>
            {
                let bits = if self.addressed(*space) { 64 } else { 32 };
                let id = self.convert_elems(v.id, *s, Scalar::int(bits, false), 1);
                Some(Val::new(id, to.clone()))
            }
            (Type::Pointer(_, space, _), Type::Scalar(s)) => {
                if *s == Scalar::Bool {
                    if !self.addressed(*space) {
                        // A pointer into a known object is never NULL; one
                        // without (a pool offset, or NULL from to_local /
                        // to_private) is NULL only as that marker.
                        if v.base.is_some() {
                            let t = self.m.constant(ConstKey::True);
                            return Some(Val::new(t, Type::BOOL));
                        }
                        let null = self.u32c(NULL_SHARED_OR_PRIVATE);
                        let b = self.bool_ty(1);
                        return Some(Val::new(
                            self.op(Op::INotEqual, b, &[v.id, null]),
                            Type::BOOL,
                        ));
                    }
                    let zero = self.m.u64_const(0);
                    let b = self.bool_ty(1);
                    return Some(Val::new(
                        self.op(Op::INotEqual, b, &[v.id, zero]),
                        Type::BOOL,
                    ));
                }
                if s.is_integer() && (v.base.is_some() || !self.addressed(*space)) {
                    if let Some(n) = self.pointer_as_integer(&v) {
                        let id = self.convert_elems(n, Scalar::ULong, *s, 1);
                        return Some(Val::new(id, to.clone()));
                    }
                }
                if !self.addressed(*space) || s.is_float() {
                    self.error(span, "cannot convert this pointer to an arithmetic type");
                    return None;
                }
                let id = self.convert_elems(v.id, Scalar::ULong, *s, 1);
                Some(Val::new(id, to.clone()))
            }
            _ => {
                let (a, b) = (self.types.name(&v.ty), self.types.name(to));
                self.error(span, format!("cannot convert '{a}' to '{b}'"));
                None
            }
        }
    }

    /// The integer value of a `__local`, `__private` or program-scope
    /// `__constant` pointer, as a `ulong`. A pool pointer is its byte offset
    /// in the pool. A pointer into a typed variable has no address, so it
    /// gets a virtual one: a base unique to the variable (its result id
    /// times 2^24, so every variable is far apart and 16 MiB aligned) plus
    /// the element's byte offset. Comparisons, differences and alignment
    /// then behave as for real addresses.
    fn pointer_as_integer(&mut self, v: &Val) -> R<Word> {
        let u64t = self.m.ty(TypeKey::Int(64));
        let Some(base) = v.base.clone() else {
            return Some(self.convert_elems(v.id, Scalar::UInt, Scalar::ULong, 1));
        };
        // Inside a struct or a nested array the offset of the path would
        // be needed too.
        if !base.path.is_empty() {
            return None;
        }
        let index = self.convert_elems(v.id, Scalar::UInt, Scalar::ULong, 1);
        let size = self.m.u64_const(self.types.size(&base.elem) as u64);
        let offset = self.op(Op::IMul, u64t, &[index, size]);
        let start = self.m.u64_const((base.root as u64) << 24);
        Some(self.op(Op::IAdd, u64t, &[start, offset]))
    }

    /// Converts `n` components from scalar `from` to `to`.
    /// `x / y` in float within OpenCL's 2.5 ulp over the whole range.
    /// Vulkan bounds `OpFDiv` only for |y| in [2^-126, 2^126], and NVIDIA
    /// computes it as `x * (1 / y)`: the reciprocal is a flushed denormal
    /// once |y| > 2^126 (`FLT_MAX / FLT_MAX` gives 0) and loses precision
    /// or overflows for a subnormal y. Both operands are scaled by 1/4
    /// above the range and by 2^24 below it, which changes no quotient (an
    /// x that overflows when scaled up has an infinite quotient too).
    pub(super) fn float_division(&mut self, t: &Type, x: Word, y: Word) -> Word {
        let ty = self.sty(t);
        let n = t.width();
        let big = self.constant(t, ConstVal::Float(2f64.powi(126)));
        let small = self.constant(t, ConstVal::Float(2f64.powi(-126)));
        let quarter = self.constant(t, ConstVal::Float(0.25));
        let up = self.constant(t, ConstVal::Float(2f64.powi(24)));
        let one = self.constant(t, ConstVal::Float(1.0));
        let ay = self.glsl(ty, crate::sema::builtins::glsl::FABS, &[y]);
        let bt = self.bool_ty(n);
        let is_big = self.op(Op::FOrdGreaterThan, bt, &[ay, big]);
        let is_small = self.op(Op::FOrdLessThan, bt, &[ay, small]);
        let scale = self.op(Op::Select, ty, &[is_small, up, one]);
        let scale = self.op(Op::Select, ty, &[is_big, quarter, scale]);
        let xs = self.op(Op::FMul, ty, &[x, scale]);
        let ys = self.op(Op::FMul, ty, &[y, scale]);
        self.op(Op::FDiv, ty, &[xs, ys])
    }

    pub(super) fn convert_elems(&mut self, id: Word, from: Scalar, to: Scalar, n: u32) -> Word {
        if from == to {
            return id;
        }
        let tt = self.sty(&Type::vector_or_scalar(to, n));
        if to == Scalar::Bool {
            let ft = Type::vector_or_scalar(from, n);
            let zero = self.constant(&ft, ConstVal::Int(0));
            let op = if from.is_float() {
                Op::FUnordNotEqual
            } else {
                Op::INotEqual
            };
            return self.op(op, tt, &[id, zero]);
        }
        if from == Scalar::Bool {
            let t = Type::vector_or_scalar(to, n);
            let one = self.constant(&t, ConstVal::Int(1));
            let zero = self.constant(&t, ConstVal::Int(0));
            return self.op(Op::Select, tt, &[id, one, zero]);
        }
        match (from.is_float(), to.is_float()) {
            (false, false) => {
                if from.bits() == to.bits() {
                    id
                } else if from.bits() < to.bits() && from.is_signed() {
                    self.op(Op::SConvert, tt, &[id])
                } else {
                    self.op(Op::UConvert, tt, &[id])
                }
            }
            (false, true) => {
                let op = if from.is_signed() {
                    Op::ConvertSToF
                } else {
                    Op::ConvertUToF
                };
                self.op(op, tt, &[id])
            }
            (true, false) => {
                let op = if to.is_signed() {
                    Op::ConvertFToS
                } else {
                    Op::ConvertFToU
                };
                self.op(op, tt, &[id])
            }
            (true, true) => self.op(Op::FConvert, tt, &[id]),
        }
    }

    /// The operand type of a binary arithmetic operator (usual arithmetic
    /// conversions with scalar-to-vector widening).
    fn common_type(&mut self, a: &Type, b: &Type, span: Span) -> R<Type> {
        match (a, b) {
            (Type::Vector(..), Type::Vector(..)) => {
                if a != b {
                    let (x, y) = (self.types.name(a), self.types.name(b));
                    self.error(
                        span,
                        format!("invalid operands to binary expression ('{x}' and '{y}')"),
                    );
                    return None;
                }
                Some(a.clone())
            }
            (Type::Vector(..), Type::Scalar(_)) => Some(a.clone()),
            (Type::Scalar(_), Type::Vector(..)) => Some(b.clone()),
            (Type::Scalar(x), Type::Scalar(y)) => Some(Type::Scalar(common_scalar(*x, *y))),
            _ => {
                let (x, y) = (self.types.name(a), self.types.name(b));
                self.error(
                    span,
                    format!("invalid operands to binary expression ('{x}' and '{y}')"),
                );
                None
            }
        }
    }

    /// A signed division or remainder. NVIDIA's driver (580) computes
    /// OpSDiv on operands of unsigned type as unsigned, though SPIR-V says
    /// the opcode decides, and OpSRem as unsigned even on signed types: the
    /// division is done in signed types (values otherwise live in unsigned
    /// ones, so the operands are bitcast there and back) and the remainder
    /// is a - (a / b) * b, which C defines it to be. Check both on that
    /// driver before dropping this.
    pub(super) fn signed_op(&mut self, op: Op, t: &Type, args: &[Word]) -> Word {
        let bits = t.elem_scalar().map_or(32, |s| s.bits());
        let sint = self.m.ty(TypeKey::SInt(bits));
        let st = if t.width() > 1 {
            self.vector_ty(sint, t.width())
        } else {
            sint
        };
        let ty = self.sty(t);
        let cast: Vec<Word> = args
            .iter()
            .map(|&a| self.op(Op::Bitcast, st, &[a]))
            .collect();
        let q = self.op(Op::SDiv, st, &cast);
        let q = self.op(Op::Bitcast, ty, &[q]);
        if op == Op::SDiv {
            return q;
        }
        let qb = self.op(Op::IMul, ty, &[q, args[1]]);
        self.op(Op::ISub, ty, &[args[0], qb])
    }

    /// A comparison `op` of two values of type `t`, one bool per component.
    ///
    /// Signed 64-bit orderings are emitted as unsigned ones of the operands
    /// with the sign bit flipped, which orders them the same way: lavapipe
    /// (Mesa 22.3, LLVM 15) gets `OpSGreaterThan` and its kin wrong on
    /// 64-bit operands, seen where one is a constant — `(long)x > 0L` is
    /// true for x = 0, in scalars and vectors alike — while it computes the
    /// unsigned ones correctly (icd/tests/spec_6_6_vectors.rs,
    /// long_vector_relational_and_select). The flip can go when lavapipe
    /// passes that test with plain signed compares.
    pub(super) fn compare(&mut self, op: Op, t: &Type, x: Word, y: Word) -> Word {
        let bt = self.bool_ty(t.width());
        let unsigned = match op {
            Op::SLessThan => Some(Op::ULessThan),
            Op::SGreaterThan => Some(Op::UGreaterThan),
            Op::SLessThanEqual => Some(Op::ULessThanEqual),
            Op::SGreaterThanEqual => Some(Op::UGreaterThanEqual),
            _ => None,
        };
        if let (Some(uop), Some(64)) = (unsigned, t.elem_scalar().map(|s| s.bits())) {
            let ty = self.sty(t);
            let min = self.constant(&t.with_elem(Scalar::Long), ConstVal::Int(i64::MIN));
            let xf = self.op(Op::BitwiseXor, ty, &[x, min]);
            let yf = self.op(Op::BitwiseXor, ty, &[y, min]);
            return self.op(uop, bt, &[xf, yf]);
        }
        self.op(op, bt, &[x, y])
    }

    /// A relational result: `int` 0/1 for scalars, -1/0 of the same-sized
    /// signed integer for vectors.
    pub(super) fn bool_to_relational(&mut self, b: Word, operand: &Type) -> Val {
        let n = operand.width();
        let rt = if n == 1 {
            Type::INT
        } else {
            Type::Vector(
                operand
                    .elem_scalar()
                    .unwrap_or(Scalar::Int)
                    .signed_int_of_size(),
                n as u8,
            )
        };
        let t = self.sty(&rt);
        let one = self.constant(&rt, ConstVal::Int(if n == 1 { 1 } else { -1 }));
        let zero = self.constant(&rt, ConstVal::Int(0));
        Val::new(self.op(Op::Select, t, &[b, one, zero]), rt)
    }

    pub(super) fn binary(&mut self, op: BinOp, a: Val, b: Val, span: Span) -> R<Val> {
        if a.ty.is_pointer() || b.ty.is_pointer() {
            return self.pointer_binary(op, a, b, span);
        }
        let is_shift = matches!(op, BinOp::Shl | BinOp::Shr);
        let t = if is_shift {
            if !a.ty.is_integer() || !b.ty.is_integer() {
                self.error(span, "shift operands must be integers");
                return None;
            }
            match &a.ty {
                Type::Scalar(s) if b.ty.is_vector() => {
                    let _ = s;
                    self.error(span, "cannot shift a scalar by a vector");
                    return None;
                }
                Type::Scalar(s) => Type::Scalar(promote(*s)),
                t => t.clone(),
            }
        } else {
            self.common_type(&a.ty, &b.ty, span)?
        };
        let s = t.elem_scalar()?;
        if s.is_float()
            && matches!(
                op,
                BinOp::Rem | BinOp::Shl | BinOp::Shr | BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor
            )
        {
            self.error(
                span,
                "invalid operands: this operator needs integer operands",
            );
            return None;
        }
        let t = if s == Scalar::Bool {
            t.with_elem(Scalar::Int)
        } else {
            t
        };
        let s = t.elem_scalar()?;
        let x = self.convert(a, &t, span, false)?;
        let y = if is_shift && !b.ty.is_vector() && t.is_vector() {
            self.convert(b, &t, span, false)?
        } else {
            let bt = if is_shift {
                b.ty.with_elem(s)
            } else {
                t.clone()
            };
            if is_shift && bt.width() != t.width() {
                self.error(span, "shift operands have different vector sizes");
                return None;
            }
            self.convert(b, &bt, span, false)?
        };
        let ty = self.sty(&t);
        let f = s.is_float();
        let signed = s.is_signed();
        let id = match op {
            BinOp::Add => self.op(if f { Op::FAdd } else { Op::IAdd }, ty, &[x.id, y.id]),
            BinOp::Sub => self.op(if f { Op::FSub } else { Op::ISub }, ty, &[x.id, y.id]),
            BinOp::Mul => self.op(if f { Op::FMul } else { Op::IMul }, ty, &[x.id, y.id]),
            // Half division in float, rounded once: correctly rounded
            // (float carries more than twice half's precision), where
            // drivers' half division may be an approximation.
            BinOp::Div if s == Scalar::Half => {
                let n = t.width();
                let fx = self.convert_elems(x.id, Scalar::Half, Scalar::Float, n);
                let fy = self.convert_elems(y.id, Scalar::Half, Scalar::Float, n);
                let fty = self.sty(&t.with_elem(Scalar::Float));
                let q = self.op(Op::FDiv, fty, &[fx, fy]);
                self.convert_elems(q, Scalar::Float, Scalar::Half, n)
            }
            BinOp::Div if s == Scalar::Float && !self.float_mode.native_math => {
                self.float_division(&t, x.id, y.id)
            }
            BinOp::Div if f => self.op(Op::FDiv, ty, &[x.id, y.id]),
            BinOp::Div if signed => self.signed_op(Op::SDiv, &t, &[x.id, y.id]),
            BinOp::Div => self.op(Op::UDiv, ty, &[x.id, y.id]),
            BinOp::Rem if signed => self.signed_op(Op::SRem, &t, &[x.id, y.id]),
            BinOp::Rem => self.op(Op::UMod, ty, &[x.id, y.id]),
            BinOp::Shl | BinOp::Shr => {
                // OpenCL masks the shift count to the width of the operand.
                let mask = self.constant(&t, ConstVal::Int(s.bits() as i64 - 1));
                let count = self.op(Op::BitwiseAnd, ty, &[y.id, mask]);
                let o = if op == BinOp::Shl {
                    Op::ShiftLeftLogical
                } else if signed {
                    Op::ShiftRightArithmetic
                } else {
                    Op::ShiftRightLogical
                };
                self.op(o, ty, &[x.id, count])
            }
            BinOp::BitAnd => self.op(Op::BitwiseAnd, ty, &[x.id, y.id]),
            BinOp::BitOr => self.op(Op::BitwiseOr, ty, &[x.id, y.id]),
            BinOp::BitXor => self.op(Op::BitwiseXor, ty, &[x.id, y.id]),
            BinOp::Lt | BinOp::Gt | BinOp::Le | BinOp::Ge | BinOp::Eq | BinOp::Ne => {
                let o = compare_op(op, f, signed);
                let b = self.compare(o, &t, x.id, y.id);
                return Some(self.bool_to_relational(b, &t));
            }
            BinOp::LogAnd | BinOp::LogOr => {
                // Vector && and ||: component-wise, both sides evaluated.
                let bt = self.bool_ty(t.width());
                let zero = self.constant(&t, ConstVal::Int(0));
                let ne = if f { Op::FUnordNotEqual } else { Op::INotEqual };
                let bx = self.op(ne, bt, &[x.id, zero]);
                let by = self.op(ne, bt, &[y.id, zero]);
                let o = if op == BinOp::LogAnd {
                    Op::LogicalAnd
                } else {
                    Op::LogicalOr
                };
                let b = self.op(o, bt, &[bx, by]);
                return Some(self.bool_to_relational(b, &t));
            }
        };
        Some(Val::new(id, t))
    }

    fn pointer_binary(&mut self, op: BinOp, a: Val, b: Val, span: Span) -> R<Val> {
        match (op, a.ty.is_pointer(), b.ty.is_pointer()) {
            (BinOp::Add, true, false) => self.pointer_add(a, b, false, span),
            (BinOp::Add, false, true) => self.pointer_add(b, a, false, span),
            (BinOp::Sub, true, false) => self.pointer_add(a, b, true, span),
            (BinOp::Sub, true, true) => {
                let Type::Pointer(pt, space, _) = &a.ty else {
                    return None;
                };
                let size = self.types.size(pt).max(1) as i64;
                let l = Type::LONG;
                let lt = self.sty(&l);
                let (x, y) = if self.addressed(*space) {
                    (a.id, b.id)
                } else {
                    (
                        self.op(Op::SConvert, lt, &[a.id]),
                        self.op(Op::SConvert, lt, &[b.id]),
                    )
                };
                let d = self.op(Op::ISub, lt, &[x, y]);
                if self.addressed(*space) || self.pool_of(*space).is_some() {
                    let s = self.constant(&l, ConstVal::Int(size));
                    Some(Val::new(self.op(Op::SDiv, lt, &[d, s]), l))
                } else {
                    Some(Val::new(d, l))
                }
            }
            (BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Gt | BinOp::Le | BinOp::Ge, _, _) => {
                let wide = |t: &Type| matches!(t, Type::Pointer(_, sp, _) if self.addressed(*sp));
                let (a_wide, b_wide) = (wide(&a.ty), wide(&b.ty));
                let (x, y) = match (a.ty.is_pointer(), b.ty.is_pointer()) {
                    // Compared as addresses: a NULL of another space
                    // widens to the 64-bit side (so does a `__local`
                    // pointer compared with a tagged generic one).
                    (true, true) if !a_wide && b_wide => {
                        (self.convert(a, &b.ty, span, true)?, b.clone())
                    }
                    (true, true) => (a.clone(), self.convert(b, &a.ty, span, true)?),
                    (true, false) => {
                        let y = self.convert(b, &a.ty, span, true)?;
                        (a.clone(), y)
                    }
                    _ => {
                        let x = self.convert(a, &b.ty, span, true)?;
                        (x, b.clone())
                    }
                };
                let o = compare_op(op, false, false);
                let bt = self.bool_ty(1);
                let r = self.op(o, bt, &[x.id, y.id]);
                Some(self.bool_to_relational(r, &Type::INT))
            }
            (BinOp::LogAnd | BinOp::LogOr, _, _) => {
                let x = self.truth_value(a, span)?;
                let y = self.truth_value(b, span)?;
                let bt = self.bool_ty(1);
                let o = if op == BinOp::LogAnd {
                    Op::LogicalAnd
                } else {
                    Op::LogicalOr
                };
                let r = self.op(o, bt, &[x, y]);
                Some(self.bool_to_relational(r, &Type::INT))
            }
            _ => {
                self.error(span, "invalid operands to binary expression with a pointer");
                None
            }
        }
    }

    /// `p + i` or `p - i` (`sub`).
    pub(super) fn pointer_add(&mut self, p: Val, i: Val, sub: bool, span: Span) -> R<Val> {
        let Type::Pointer(pt, space, _) = &p.ty else {
            return None;
        };
        if !i.ty.is_integer() || i.ty.is_vector() {
            self.error(span, "pointer arithmetic needs an integer operand");
            return None;
        }
        if self.addressed(*space) {
            if **pt == Type::Void {
                self.error(span, "arithmetic on a pointer to void");
                return None;
            }
            let size = self.types.size(pt) as i64;
            // `p[t + c]` with a 64-bit `t + c`, or a 32-bit one that
            // cannot carry past the bits `t` leaves zero: `p[t]` and `c`
            // elements further, an
            // offset the driver folds into the access (hashcat's
            // `V[x * N + z]` in scrypt: one address per row instead of one
            // per element).
            let (i, elements) = match self.unwrapping_constant_offset(&i) {
                Some((t, c)) => (Val::new(t, i.ty.clone()), c),
                None => (i, 0),
            };
            let i = self.convert(i, &Type::LONG, span, false)?;
            let lt = self.sty(&Type::LONG);
            let s = self.constant(&Type::LONG, ConstVal::Int(size));
            let off = self.op(Op::IMul, lt, &[i.id, s]);
            let o = if sub { Op::ISub } else { Op::IAdd };
            let mut id = self.op(o, lt, &[p.id, off]);
            if elements != 0 {
                let bytes = (elements as i64).wrapping_mul(size);
                let bytes = if sub { bytes.wrapping_neg() } else { bytes };
                let k = self.constant(&Type::LONG, ConstVal::Int(bytes));
                id = self.op(Op::IAdd, lt, &[id, k]);
            }
            return Some(Val::new(id, p.ty.clone()));
        }
        let i = self.convert(i, &Type::UINT, span, false)?;
        let index = i.id;
        let ut = self.sty(&Type::UINT);
        let pooled = self.pool_of(*space).is_some();
        let i = if pooled {
            let size = self.u32c(self.types.size(pt).max(1));
            Val::new(self.op(Op::IMul, ut, &[i.id, size]), Type::UINT)
        } else {
            i
        };
        let o = if sub { Op::ISub } else { Op::IAdd };
        let id = self.op(o, ut, &[p.id, i.id]);
        if p.base.is_none() {
            // `p[3]`: three elements past `p`'s words.
            let bytes = match self.m.int_constant(i.id) {
                Some((_, bytes)) if !sub => u32::try_from(bytes).ok(),
                _ => None,
            };
            self.note_pool_offset(p.id, id, bytes);
            if pooled {
                let size = self.types.size(pt);
                self.note_pool_index(p.id, id, index, size, sub);
            }
        }
        Some(Val {
            id,
            ty: p.ty.clone(),
            base: p.base.clone(),
        })
    }

    /// `(t, c)` where `i` is an `int` or `uint` computed as `t + c`, `c` a
    /// constant below the low bits known to be zero in `t`: the add
    /// carries out of none of them, so it sets bits `t` leaves zero and
    /// changes nothing above, and `i` widened to 64 bits (with its sign
    /// or with zeros) is `t` widened plus `c`. An `int`'s `c` must also
    /// leave the sign bit alone (`0 + 0xffffffff` is -1). A 64-bit `t + c`
    /// always splits: the address is computed modulo 2^64 too
    /// (`out[gid * 4 + 1]` with a `size_t` `gid`).
    fn unwrapping_constant_offset(&self, i: &Val) -> Option<(Word, u64)> {
        let sign_bit = match i.ty {
            Type::Scalar(Scalar::UInt) => 0,
            Type::Scalar(Scalar::Int) => 1,
            Type::Scalar(Scalar::Long | Scalar::ULong) => {
                return self.constant_offsets.get(&i.id).copied();
            }
            _ => return None,
        };
        let &(t, c) = self.constant_offsets.get(&i.id)?;
        let zeros = self.known_low_zero_bits(t).min(32 - sign_bit);
        (c < 1u64 << zeros).then_some((t, c))
    }

    fn unary(&mut self, op: UnOp, inner: &'a Expr, span: Span) -> R<Val> {
        match op {
            UnOp::AddrOf => self.address_of(inner),
            UnOp::Deref => {
                let v = self.expr(inner)?;
                let p = self.deref(v, span)?;
                self.load(&p, span)
            }
            UnOp::PreInc | UnOp::PreDec | UnOp::PostInc | UnOp::PostDec => {
                self.check_not_const(inner)?;
                let place = self.lvalue(inner)?;
                let mut old = self.load(&place, span)?;
                if let ExprKind::Ident(n) = &inner.kind {
                    if let Some(sym) = self.lookup(n) {
                        old.base = sym.base;
                    }
                }
                let one = self.const_val(&Type::INT, 1);
                let bop = if matches!(op, UnOp::PreInc | UnOp::PostInc) {
                    BinOp::Add
                } else {
                    BinOp::Sub
                };
                let new = if old.ty.is_pointer() {
                    self.pointer_add(old.clone(), one, bop == BinOp::Sub, span)?
                } else if old.ty.is_arith() {
                    let t = old.ty.clone();
                    let one = self.convert(one, &t, span, false)?;
                    let r = self.binary(bop, old.clone(), one, span)?;
                    self.convert(r, &t, span, false)?
                } else {
                    self.error(span, "cannot increment a value of this type");
                    return None;
                };
                self.store(&place, &new, span);
                Some(if matches!(op, UnOp::PreInc | UnOp::PreDec) {
                    new
                } else {
                    old
                })
            }
            UnOp::Plus | UnOp::Neg | UnOp::BitNot => {
                let v = self.expr(inner)?;
                let t = match &v.ty {
                    Type::Scalar(s) => Type::Scalar(promote(*s)),
                    Type::Vector(..) => v.ty.clone(),
                    _ => {
                        self.error(span, "invalid argument type to unary expression");
                        return None;
                    }
                };
                let v = self.convert(v, &t, span, false)?;
                let ty = self.sty(&t);
                match op {
                    UnOp::Plus => Some(v),
                    UnOp::Neg => {
                        let o = if t.is_float() {
                            Op::FNegate
                        } else {
                            Op::SNegate
                        };
                        Some(Val::new(self.op(o, ty, &[v.id]), t))
                    }
                    _ => {
                        if t.is_float() {
                            self.error(span, "invalid argument type to unary '~'");
                            return None;
                        }
                        Some(Val::new(self.op(Op::Not, ty, &[v.id]), t))
                    }
                }
            }
            UnOp::Not => {
                let v = self.expr(inner)?;
                if v.ty.is_vector() {
                    let zero = self.constant(&v.ty, ConstVal::Int(0));
                    let bt = self.bool_ty(v.ty.width());
                    let o = if v.ty.is_float() {
                        Op::FOrdEqual
                    } else {
                        Op::IEqual
                    };
                    let b = self.op(o, bt, &[v.id, zero]);
                    let t = v.ty.clone();
                    return Some(self.bool_to_relational(b, &t));
                }
                let b = self.truth_value(v, span)?;
                let bt = self.bool_ty(1);
                let nb = self.op(Op::LogicalNot, bt, &[b]);
                Some(self.bool_to_relational(nb, &Type::INT))
            }
        }
    }

    /// An lvalue, or a diagnostic.
    pub(super) fn lvalue(&mut self, e: &'a Expr) -> R<Place> {
        match self.operand(e)? {
            Operand::Place(p) => {
                if matches!(p.ty(), Type::Array(..)) {
                    self.error(e.span, "array type is not assignable");
                    return None;
                }
                Some(p)
            }
            Operand::Val(_) => {
                self.error(e.span, "expression is not assignable");
                None
            }
        }
    }

    /// C99 6.5.16: an lvalue that is (part of) a `const` variable cannot
    /// be assigned.
    fn check_not_const(&mut self, e: &Expr) -> R<()> {
        let mut cur = e;
        loop {
            match &cur.kind {
                ExprKind::Index(a, _) | ExprKind::Member(a, _, false) => cur = a,
                ExprKind::Ident(n) => {
                    let is_const = self
                        .lookup(n)
                        .is_some_and(|s| self.const_vars.contains(&(s.root, s.pool)));
                    if is_const {
                        self.error(
                            e.span,
                            format!("cannot assign to variable '{n}' with const-qualified type"),
                        );
                        return None;
                    }
                    return Some(());
                }
                _ => return Some(()),
            }
        }
    }

    fn assign(&mut self, op: Option<BinOp>, l: &'a Expr, r: &'a Expr, span: Span) -> R<Val> {
        self.check_not_const(l)?;
        let (place, rv) = match &l.kind {
            ExprKind::Ident(n) if op.is_none() && self.unresolved_generic(n) => {
                let rv = self.expr(r)?;
                self.resolve_generic(n, &rv);
                (self.lvalue(l)?, rv)
            }
            _ => {
                let place = self.lvalue(l)?;
                (place, self.expr(r)?)
            }
        };
        if let Place::Swizzle { comps, .. } = &place {
            if (1..comps.len()).any(|i| comps[..i].contains(&comps[i])) {
                self.error(
                    l.span,
                    "a swizzle that names a component twice cannot be assigned",
                );
                return None;
            }
        }
        let t = place.ty().clone();
        let v = match op {
            None => self.convert(rv, &t, r.span, false)?,
            Some(op) => {
                let mut old = self.load(&place, span)?;
                if let ExprKind::Ident(n) = &l.kind {
                    if let Some(sym) = self.lookup(n) {
                        old.base = sym.base;
                    }
                }
                let res = self.binary(op, old, rv, span)?;
                self.convert(res, &t, span, false)?
            }
        };
        self.store(&place, &v, span);
        if let (ExprKind::Ident(n), Type::Pointer(_, sp, _)) = (&l.kind, &t) {
            if !self.addressed(*sp) {
                self.set_pointer_base(n, v.base.clone(), span);
            }
        }
        Some(v)
    }

    fn logical(&mut self, and: bool, a: &'a Expr, b: &'a Expr, span: Span) -> R<Val> {
        let x = self.expr(a)?;
        // OpenCL C 6.5.9: with a vector on either side both operands are
        // evaluated and the operator applies component-wise, a scalar
        // being widened first; only scalar operands short-circuit.
        let op = if and { BinOp::LogAnd } else { BinOp::LogOr };
        let guarded = needs_guard(b);
        if x.ty.is_vector() || guarded && self.is_vector_expr(b) {
            let y = self.expr(b)?;
            return self.binary(op, x, y, span);
        }
        if !guarded {
            let y = self.expr(b)?;
            if y.ty.is_vector() {
                return self.binary(op, x, y, span);
            }
            let bt = self.bool_ty(1);
            let bx = self.truth_value(x, a.span)?;
            let by = self.truth_value(y, b.span)?;
            let o = if and { Op::LogicalAnd } else { Op::LogicalOr };
            let r = self.op(o, bt, &[bx, by]);
            return Some(self.bool_to_relational(r, &Type::INT));
        }
        // Short-circuit: evaluate `b` only when it decides the result.
        let bx = self.truth_value(x, a.span)?;
        let bt = self.bool_ty(1);
        let tmp = self.new_function_var(&Type::BOOL);
        self.op_void(Op::Store, &[tmp, bx]);
        let (rhs, merge) = (self.label(), self.label());
        self.op_void(Op::SelectionMerge, &[merge, 0]);
        if and {
            self.term(Op::BranchConditional, &[bx, rhs, merge]);
        } else {
            self.term(Op::BranchConditional, &[bx, merge, rhs]);
        }
        self.f.begin(rhs);
        if let Some(y) = self.expr(b) {
            if let Some(by) = self.truth_value(y, b.span) {
                self.op_void(Op::Store, &[tmp, by]);
            }
        }
        self.begin(merge);
        let r = self.op(Op::Load, bt, &[tmp]);
        Some(self.bool_to_relational(r, &Type::INT))
    }

    /// Is `e` of a vector type? Typed without being evaluated, its
    /// diagnostics dropped: they come again where it is lowered. The
    /// answer is kept per expression, so that nested `&&`/`||` chains are
    /// not typed over and over.
    fn is_vector_expr(&mut self, e: &'a Expr) -> bool {
        let key = e as *const Expr as usize;
        if let Some(&v) = self.vector_exprs.get(&key) {
            return v;
        }
        let before = self.diags.clone();
        let mut ty = None;
        self.dead_code(|l| ty = l.expr(e).map(|v| v.ty));
        *self.diags = before;
        let v = ty.is_some_and(|t| t.is_vector());
        self.vector_exprs.insert(key, v);
        v
    }

    fn conditional(&mut self, c: &'a Expr, a: &'a Expr, b: &'a Expr, span: Span) -> R<Val> {
        let cv = self.expr(c)?;
        if cv.ty.is_vector() {
            let x = self.expr(a)?;
            let y = self.expr(b)?;
            return self.vector_select(cv, x, y, span);
        }
        let cb = self.truth_value(cv, c.span)?;
        if !needs_guard(a) && !needs_guard(b) {
            let x = self.expr(a)?;
            let y = self.expr(b)?;
            let (x, y) = self.unify(x, y, span)?;
            let t = self.sty(&x.ty);
            let base = x.base.clone().or(y.base.clone());
            if x.base.is_some() && y.base.is_some() && x.base != y.base {
                self.generic_limitation(
                    span,
                    "both arms of '?:' must point into the same __local/__private object",
                );
            }
            let id = self.op(Op::Select, t, &[cb, x.id, y.id]);
            return Some(Val { id, ty: x.ty, base });
        }
        // Arms with side effects or reads: run one of them; their values meet in
        // variables so the result type can be chosen after both are typed.
        let (tl, el, merge) = (self.label(), self.label(), self.label());
        self.op_void(Op::SelectionMerge, &[merge, 0]);
        self.term(Op::BranchConditional, &[cb, tl, el]);
        self.f.begin(tl);
        let x = self.expr(a);
        let xv = x.as_ref().filter(|v| v.ty != Type::Void).map(|v| {
            let var = self.new_function_var(&v.ty);
            self.op_void(Op::Store, &[var, v.id]);
            var
        });
        if self.f.is_open() {
            self.branch(merge);
        }
        self.f.begin(el);
        let y = self.expr(b);
        let yv = y.as_ref().filter(|v| v.ty != Type::Void).map(|v| {
            let var = self.new_function_var(&v.ty);
            self.op_void(Op::Store, &[var, v.id]);
            var
        });
        self.begin(merge);
        let (x, y) = (x?, y?);
        if x.ty == Type::Void || y.ty == Type::Void {
            return Some(Val::new(0, Type::Void));
        }
        let (xt, yt) = (self.sty(&x.ty), self.sty(&y.ty));
        let xl = self.op(Op::Load, xt, &[xv?]);
        let yl = self.op(Op::Load, yt, &[yv?]);
        let (x, y) = self.unify(
            Val {
                id: xl,
                ty: x.ty,
                base: x.base,
            },
            Val {
                id: yl,
                ty: y.ty,
                base: y.base,
            },
            span,
        )?;
        let t = self.sty(&x.ty);
        let base = x.base.clone().or(y.base.clone());
        let id = self.op(Op::Select, t, &[cb, x.id, y.id]);
        Some(Val { id, ty: x.ty, base })
    }

    /// Brings the arms of `?:` to one type.
    fn unify(&mut self, x: Val, y: Val, span: Span) -> R<(Val, Val)> {
        if x.ty == y.ty {
            return Some((x, y));
        }
        if x.ty.is_arith() && y.ty.is_arith() {
            let t = self.common_type(&x.ty, &y.ty, span)?;
            let x = self.convert(x, &t, span, false)?;
            let y = self.convert(y, &t, span, false)?;
            return Some((x, y));
        }
        if let (Type::Pointer(xe, xs, xq), Type::Pointer(_, ys, _)) = (&x.ty, &y.ty) {
            // Pointers into two named spaces meet as generic pointers.
            if self.generic_dynamic
                && xs != ys
                && !self.is_null_value(&x)
                && !self.is_null_value(&y)
            {
                let t = Type::Pointer(xe.clone(), AddrSpace::Private, *xq);
                let x = self.convert(x, &t, span, false)?;
                let y = self.convert(y, &t, span, false)?;
                return Some((x, y));
            }
        }
        if x.ty.is_pointer() {
            let t = x.ty.clone();
            let y = self.convert(y, &t, span, true)?;
            return Some((x, y));
        }
        if y.ty.is_pointer() {
            let t = y.ty.clone();
            let x = self.convert(x, &t, span, true)?;
            return Some((x, y));
        }
        let (a, b) = (self.types.name(&x.ty), self.types.name(&y.ty));
        self.error(
            span,
            format!("incompatible operand types ('{a}' and '{b}')"),
        );
        None
    }

    /// `select`-style choice by the most significant bit of each component
    /// of `c` (vector `?:` and `select`).
    pub(super) fn vector_select(&mut self, c: Val, x: Val, y: Val, span: Span) -> R<Val> {
        let (mut x, mut y) = self.unify(x, y, span)?;
        // Scalar arms are widened to the condition's width (OpenCL C 6.3.i).
        if let (Type::Scalar(s), Type::Vector(_, w)) = (&x.ty, &c.ty) {
            if *s != Scalar::Bool {
                let t = Type::Vector(*s, *w);
                x = self.convert(x, &t, span, false)?;
                y = self.convert(y, &t, span, false)?;
            }
        }
        let n = x.ty.width();
        if c.ty.width() != n || !c.ty.is_integer() {
            self.error(
                span,
                "vector condition must be an integer vector of the same size as the result",
            );
            return None;
        }
        let cs = c.ty.elem_scalar()?.signed_int_of_size();
        let ct = c.ty.with_elem(cs);
        let zero = self.constant(&ct, ConstVal::Int(0));
        let b = self.compare(Op::SLessThan, &ct, c.id, zero);
        let t = self.sty(&x.ty);
        Some(Val::new(self.op(Op::Select, t, &[b, x.id, y.id]), x.ty))
    }

    fn vector_literal(&mut self, t: &Type, items: &'a [Expr], span: Span) -> R<Val> {
        let Type::Vector(s, n) = t else { return None };
        self.check_type_supported(t, span)?;
        let elem = Type::Scalar(*s);
        let mut comps = Vec::new();
        for it in items {
            let v = self.expr(it)?;
            match &v.ty {
                Type::Scalar(_) => {
                    let c = self.convert(v, &elem, it.span, true)?;
                    comps.push(c.id);
                }
                Type::Vector(vs, m) => {
                    if vs != s {
                        let (a, b) = (self.types.name(&v.ty), self.types.name(t));
                        self.error(it.span, format!("'{a}' cannot be used in a '{b}' literal"));
                        return None;
                    }
                    let et = self.sty(&elem);
                    for i in 0..*m as u32 {
                        comps.push(self.op(Op::CompositeExtract, et, &[v.id, i]));
                    }
                }
                _ => {
                    self.error(
                        it.span,
                        "vector literal components must be scalars or vectors",
                    );
                    return None;
                }
            }
        }
        if comps.len() != *n as usize {
            self.error(
                span,
                format!(
                    "vector literal has {} components, '{}' needs {}",
                    comps.len(),
                    self.types.name(t),
                    n
                ),
            );
            return None;
        }
        let ty = self.sty(t);
        Some(Val::new(
            self.op(Op::CompositeConstruct, ty, &comps),
            t.clone(),
        ))
    }

    /// Is `v` the constant 0 (an integer, or a pointer of any space)?
    /// Constants are made once per value, so the id tells.
    fn is_null_value(&mut self, v: &Val) -> bool {
        let zero = match &v.ty {
            Type::Scalar(s) if s.is_integer() || *s == Scalar::Bool => {
                self.constant(&v.ty, ConstVal::Int(0))
            }
            Type::Pointer(_, sp, _) if self.addressed(*sp) => self.m.u64_const(0),
            Type::Pointer(..) => {
                if v.id == self.u32c(NULL_SHARED_OR_PRIVATE) {
                    return true;
                }
                self.u32c(0)
            }
            _ => return false,
        };
        v.id == zero
    }

    /// `p == NULL` (or `!=` with `not`) for a `__local`/`__private`
    /// pointer: one into a known object is never NULL; one without is NULL
    /// when it holds the marker that `to_local`/`to_private` return.
    fn is_null(&mut self, p: &Val, not: bool) -> Val {
        let b = self.bool_ty(1);
        let r = if p.base.is_some() {
            self.m
                .constant(if not { ConstKey::True } else { ConstKey::False })
        } else {
            let null = self.u32c(NULL_SHARED_OR_PRIVATE);
            let op = if not { Op::INotEqual } else { Op::IEqual };
            self.op(op, b, &[p.id, null])
        };
        self.bool_to_relational(r, &Type::INT)
    }

    /// `to_global`, `to_local`, `to_private` (OpenCL C 6.15.10): the
    /// pointer if it points into `space`, else NULL. Every call is inlined,
    /// so a generic pointer's space is known here and the answer is too.
    fn address_space_query(
        &mut self,
        name: &str,
        space: AddrSpace,
        args: &'a [Expr],
        span: Span,
    ) -> R<Val> {
        if self.cl_version < 200 {
            self.error(
                span,
                format!("'{name}' needs the generic address space (-cl-std=CL2.0 or CL3.0)"),
            );
            return None;
        }
        let [arg] = args else {
            self.error(span, format!("'{name}' takes one argument"));
            return None;
        };
        let v = self.expr(arg)?;
        let Type::Pointer(elem, from, q) = v.ty.clone() else {
            self.error(
                arg.span,
                format!("the argument of '{name}' must be a pointer"),
            );
            return None;
        };
        if from == AddrSpace::Constant {
            self.error(
                arg.span,
                format!("'{name}' takes a generic pointer, not a pointer to __constant"),
            );
            return None;
        }
        let ty = Type::Pointer(elem, space, q);
        if self.generic_dynamic && from == AddrSpace::Private {
            let id = self.generic_to_space(v.id, space);
            return Some(Val::new(id, ty));
        }
        if from == space {
            return Some(Val {
                id: v.id,
                ty,
                base: v.base,
            });
        }
        let null = if self.addressed(space) {
            self.m.u64_const(0)
        } else {
            self.u32c(NULL_SHARED_OR_PRIVATE)
        };
        Some(Val::new(null, ty))
    }

    fn call(&mut self, name: &str, args: &'a [Expr], span: Span) -> R<Val> {
        if let Some(f) = self.funcs.get(name).copied() {
            let mut vals = Vec::new();
            for a in args {
                vals.push(self.expr(a)?);
            }
            return self.call_function(f, vals, span);
        }
        if let Some(r) = self.image_call(name, args, span) {
            return r;
        }
        if let Some(space) = match name {
            "to_global" => Some(AddrSpace::Global),
            "to_local" => Some(AddrSpace::Local),
            "to_private" => Some(AddrSpace::Private),
            _ => None,
        } {
            return self.address_space_query(name, space, args, span);
        }
        if name == "get_fence" {
            return self.get_fence(args, span);
        }
        match crate::sema::builtins::lookup(name) {
            Some(b) => self.builtin(b, name, args, span),
            None => {
                self.error(
                    span,
                    format!("implicit declaration of function '{name}' is invalid in OpenCL"),
                );
                None
            }
        }
    }
}

/// Is `e` a null pointer constant (`0`, `NULL`, `(void *)0`)?
fn is_null_constant(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::IntLit(0, _) => true,
        ExprKind::Ident(n) => n == "NULL",
        ExprKind::Cast(Type::Pointer(..) | Type::Scalar(_), inner) => is_null_constant(inner),
        _ => false,
    }
}

/// The value of a NULL `__local`/`__private` pointer that is not a
/// constant (what `to_local` and `to_private` return for a pointer into
/// another space): no object of either space reaches this byte offset or
/// element index.
pub(super) const NULL_SHARED_OR_PRIVATE: u32 = u32::MAX;

/// OpenCL C 6.13.6: `vec_step` of a 3-component vector is 4, because it
/// takes the storage of a 4-component one.
pub(crate) fn vec_step(t: &Type) -> u32 {
    match t.width() {
        3 => 4,
        n => n,
    }
}

fn compare_op(op: BinOp, float: bool, signed: bool) -> Op {
    match (op, float, signed) {
        (BinOp::Eq, true, _) => Op::FOrdEqual,
        (BinOp::Ne, true, _) => Op::FUnordNotEqual,
        (BinOp::Lt, true, _) => Op::FOrdLessThan,
        (BinOp::Gt, true, _) => Op::FOrdGreaterThan,
        (BinOp::Le, true, _) => Op::FOrdLessThanEqual,
        (BinOp::Ge, true, _) => Op::FOrdGreaterThanEqual,
        (BinOp::Eq, false, _) => Op::IEqual,
        (BinOp::Ne, false, _) => Op::INotEqual,
        (BinOp::Lt, false, true) => Op::SLessThan,
        (BinOp::Gt, false, true) => Op::SGreaterThan,
        (BinOp::Le, false, true) => Op::SLessThanEqual,
        (BinOp::Ge, false, true) => Op::SGreaterThanEqual,
        (BinOp::Lt, false, false) => Op::ULessThan,
        (BinOp::Gt, false, false) => Op::UGreaterThan,
        (BinOp::Le, false, false) => Op::ULessThanEqual,
        _ => Op::UGreaterThanEqual,
    }
}

/// The float macros of OpenCL C 6.13.2 (`<math.h>`-like constants).
fn float_constant(name: &str) -> Option<f64> {
    use std::f64::consts as c;
    Some(match name {
        "NAN" => f64::NAN,
        "INFINITY" | "HUGE_VALF" => f64::INFINITY,
        "MAXFLOAT" | "FLT_MAX" => f32::MAX as f64,
        "FLT_MIN" => f32::MIN_POSITIVE as f64,
        "FLT_EPSILON" => f32::EPSILON as f64,
        "M_E_F" => c::E,
        "M_LOG2E_F" => c::LOG2_E,
        "M_LOG10E_F" => c::LOG10_E,
        "M_LN2_F" => c::LN_2,
        "M_LN10_F" => c::LN_10,
        "M_PI_F" => c::PI,
        "M_PI_2_F" => c::FRAC_PI_2,
        "M_PI_4_F" => c::FRAC_PI_4,
        "M_1_PI_F" => c::FRAC_1_PI,
        "M_2_PI_F" => c::FRAC_2_PI,
        "M_2_SQRTPI_F" => c::FRAC_2_SQRT_PI,
        "M_SQRT2_F" => c::SQRT_2,
        "M_SQRT1_2_F" => c::FRAC_1_SQRT_2,
        _ => return None,
    })
}

fn double_constant(name: &str) -> Option<f64> {
    use std::f64::consts as c;
    Some(match name {
        "HUGE_VAL" => f64::INFINITY,
        "DBL_MAX" => f64::MAX,
        "DBL_MIN" => f64::MIN_POSITIVE,
        "DBL_EPSILON" => f64::EPSILON,
        "M_E" => c::E,
        "M_LOG2E" => c::LOG2_E,
        "M_LOG10E" => c::LOG10_E,
        "M_LN2" => c::LN_2,
        "M_LN10" => c::LN_10,
        "M_PI" => c::PI,
        "M_PI_2" => c::FRAC_PI_2,
        "M_PI_4" => c::FRAC_PI_4,
        "M_1_PI" => c::FRAC_1_PI,
        "M_2_PI" => c::FRAC_2_PI,
        "M_2_SQRTPI" => c::FRAC_2_SQRT_PI,
        "M_SQRT2" => c::SQRT_2,
        "M_SQRT1_2" => c::FRAC_1_SQRT_2,
        _ => return None,
    })
}

/// The integer limits of OpenCL C 6.13.3 and the float ones that are
/// integers.
fn integer_limit(name: &str) -> Option<(i64, Scalar)> {
    Some(match name {
        "CHAR_BIT" => (8, Scalar::Int),
        "CHAR_MAX" | "SCHAR_MAX" => (127, Scalar::Int),
        "CHAR_MIN" | "SCHAR_MIN" => (-128, Scalar::Int),
        "UCHAR_MAX" => (255, Scalar::Int),
        "SHRT_MAX" => (32767, Scalar::Int),
        "SHRT_MIN" => (-32768, Scalar::Int),
        "USHRT_MAX" => (65535, Scalar::Int),
        "INT_MAX" => (i32::MAX as i64, Scalar::Int),
        "INT_MIN" => (i32::MIN as i64, Scalar::Int),
        "UINT_MAX" => (u32::MAX as i64, Scalar::UInt),
        "LONG_MAX" => (i64::MAX, Scalar::Long),
        "LONG_MIN" => (i64::MIN, Scalar::Long),
        "ULONG_MAX" => (-1, Scalar::ULong),
        "FLT_DIG" => (6, Scalar::Int),
        "FLT_MANT_DIG" => (24, Scalar::Int),
        "FLT_MAX_10_EXP" => (38, Scalar::Int),
        "FLT_MAX_EXP" => (128, Scalar::Int),
        "FLT_MIN_10_EXP" => (-37, Scalar::Int),
        "FLT_MIN_EXP" => (-125, Scalar::Int),
        "FLT_RADIX" => (2, Scalar::Int),
        // What `ilogb` answers for zero and NaN (OpenCL C 6.15.2.1).
        "FP_ILOGB0" => (i32::MIN as i64, Scalar::Int),
        "FP_ILOGBNAN" => (i32::MAX as i64, Scalar::Int),
        _ => return None,
    })
}

/// The integer `DBL_*` limits, which OpenCL C defines only where `double` is
/// supported.
fn double_integer_limit(name: &str) -> Option<i64> {
    Some(match name {
        "DBL_DIG" => 15,
        "DBL_MANT_DIG" => 53,
        "DBL_MAX_10_EXP" => 308,
        "DBL_MAX_EXP" => 1024,
        "DBL_MIN_10_EXP" => -307,
        "DBL_MIN_EXP" => -1021,
        "DBL_RADIX" => 2,
        _ => return None,
    })
}
