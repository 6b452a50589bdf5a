//! Vector data load and store built-ins (section 6.15.7): `vload`/`vstore`
//! and the half variants with their rounding modes.

use super::*;
use crate::sema::builtins::glsl;

impl<'a> Lowerer<'a> {
    pub(super) fn vload(&mut self, n: u8, mut vals: Vec<Val>, span: Span) -> R<Val> {
        let p = vals.remove(1);
        let off = vals.remove(0);
        let Type::Pointer(elem, space, _) = p.ty.clone() else {
            self.error(span, "vload needs a pointer argument");
            return None;
        };
        let Type::Scalar(s) = *elem else {
            self.error(span, "vload needs a pointer to a scalar type");
            return None;
        };
        let vt = Type::Vector(s, n);
        let off = self.convert(off, &Type::ULONG, span, false)?;
        let ul = self.sty(&Type::ULONG);
        let nn = self.m.u64_const(n as u64);
        let first = self.op(Op::IMul, ul, &[off.id, nn]);
        let first = Val::new(first, Type::ULONG);
        let base = self.pointer_add(p, first, false, span)?;
        if space.is_addressed() {
            let id = self.load_addr(base.id, &vt, s.size(), span)?;
            return Some(Val::new(id, vt));
        }
        let mut comps = Vec::new();
        for i in 0..n as i64 {
            let iv = self.const_val(&Type::INT, i);
            let pi = self.pointer_add(base.clone(), iv, false, span)?;
            let place = self.deref(pi, span)?;
            comps.push(self.load(&place, span)?.id);
        }
        let ty = self.sty(&vt);
        Some(Val::new(self.op(Op::CompositeConstruct, ty, &comps), vt))
    }

    pub(super) fn vstore(&mut self, n: u8, mut vals: Vec<Val>, span: Span) -> R<Val> {
        let p = vals.remove(2);
        let off = vals.remove(1);
        let data = vals.remove(0);
        let Type::Pointer(elem, space, _) = p.ty.clone() else {
            self.error(span, "vstore needs a pointer argument");
            return None;
        };
        let Type::Scalar(s) = *elem else {
            self.error(span, "vstore needs a pointer to a scalar type");
            return None;
        };
        let vt = Type::Vector(s, n);
        if data.ty != vt {
            let (a, b) = (self.types.name(&data.ty), self.types.name(&vt));
            self.error(span, format!("vstore{n} of '{a}' into a '{b}' pointer"));
            return None;
        }
        let off = self.convert(off, &Type::ULONG, span, false)?;
        let ul = self.sty(&Type::ULONG);
        let nn = self.m.u64_const(n as u64);
        let first = self.op(Op::IMul, ul, &[off.id, nn]);
        let base = self.pointer_add(p, Val::new(first, Type::ULONG), false, span)?;
        if space == AddrSpace::Constant {
            self.error(span, "cannot store to __constant memory");
            return None;
        }
        if space.is_addressed() {
            self.store_addr(base.id, &vt, s.size(), data.id, span);
            return Some(Val::new(0, Type::Void));
        }
        let et = self.sty(&Type::Scalar(s));
        for i in 0..n as i64 {
            let iv = self.const_val(&Type::INT, i);
            let pi = self.pointer_add(base.clone(), iv, false, span)?;
            let place = self.deref(pi, span)?;
            let c = self.op(Op::CompositeExtract, et, &[data.id, i as u32]);
            self.store(&place, &Val::new(c, Type::Scalar(s)), span);
        }
        Some(Val::new(0, Type::Void))
    }

    /// The address of element `offset * n` of a `__global`/`__constant`
    /// `half *` argument.
    fn half_address(&mut self, stride: u8, p: Val, off: Val, span: Span) -> R<(Word, AddrSpace)> {
        let Type::Pointer(elem, space, _) = p.ty.clone() else {
            self.error(span, "expected a pointer to half");
            return None;
        };
        if *elem != Type::Scalar(Scalar::Half) {
            self.error(span, "expected a pointer to half");
            return None;
        }
        if !space.is_addressed() {
            self.error(
                span,
                "half vload/vstore on __local or __private memory is not supported yet",
            );
            return None;
        }
        let off = self.convert(off, &Type::ULONG, span, false)?;
        let ul = self.sty(&Type::ULONG);
        let scale = self.m.u64_const(2 * stride as u64);
        let bytes = self.op(Op::IMul, ul, &[off.id, scale]);
        Some((self.op(Op::IAdd, ul, &[p.id, bytes]), space))
    }

    pub(super) fn vload_half(
        &mut self,
        n: u8,
        stride: u8,
        mut vals: Vec<Val>,
        span: Span,
    ) -> R<Val> {
        let p = vals.remove(1);
        let off = vals.remove(0);
        let (addr, _) = self.half_address(stride, p, off, span)?;
        let ush = Type::Scalar(Scalar::UShort);
        let u = self.m.ty(TypeKey::Int(32));
        let f = self.sty(&Type::FLOAT);
        let f2 = self.m.ty(TypeKey::Vector(f, 2));
        let ul = self.sty(&Type::ULONG);
        let mut comps = Vec::new();
        for i in 0..n as u64 {
            let o = self.m.u64_const(2 * i);
            let a = self.op(Op::IAdd, ul, &[addr, o]);
            let h = self.load_addr(a, &ush, 2, span)?;
            let w = self.op(Op::UConvert, u, &[h]);
            let pair = self.glsl(f2, glsl::UNPACK_HALF_2X16, &[w]);
            comps.push(self.op(Op::CompositeExtract, f, &[pair, 0]));
        }
        if n == 1 {
            return Some(Val::new(comps[0], Type::FLOAT));
        }
        let t = Type::Vector(Scalar::Float, n);
        let ty = self.sty(&t);
        Some(Val::new(self.op(Op::CompositeConstruct, ty, &comps), t))
    }

    pub(super) fn vstore_half(
        &mut self,
        n: u8,
        stride: u8,
        mut vals: Vec<Val>,
        span: Span,
    ) -> R<Val> {
        let p = vals.remove(2);
        let off = vals.remove(1);
        let data = vals.remove(0);
        let t = Type::vector_or_scalar(Scalar::Float, n as u32);
        if data.ty.width() != n as u32 || !data.ty.is_float() {
            self.error(
                span,
                format!(
                    "vstore_half{} needs a float{} value",
                    if n == 1 { String::new() } else { n.to_string() },
                    if n == 1 { String::new() } else { n.to_string() }
                ),
            );
            return None;
        }
        let data = self.convert(data, &t, span, false)?;
        let (addr, space) = self.half_address(stride, p, off, span)?;
        if space == AddrSpace::Constant {
            self.error(span, "cannot store to __constant memory");
            return None;
        }
        let f = self.sty(&Type::FLOAT);
        let f2 = self.m.ty(TypeKey::Vector(f, 2));
        let u = self.m.ty(TypeKey::Int(32));
        let ush = Type::Scalar(Scalar::UShort);
        let usht = self.sty(&ush);
        let ul = self.sty(&Type::ULONG);
        let zero = self.constant(&Type::FLOAT, ConstVal::Float(0.0));
        for i in 0..n as u32 {
            let x = if n == 1 {
                data.id
            } else {
                self.op(Op::CompositeExtract, f, &[data.id, i])
            };
            let pair = self.op(Op::CompositeConstruct, f2, &[x, zero]);
            let w = self.glsl(u, glsl::PACK_HALF_2X16, &[pair]);
            let h = self.op(Op::UConvert, usht, &[w]);
            let o = self.m.u64_const(2 * i as u64);
            let a = self.op(Op::IAdd, ul, &[addr, o]);
            self.store_addr(a, &ush, 2, h, span);
        }
        Some(Val::new(0, Type::Void))
    }
}
