//! Vector data load and store built-ins (section 6.15.7): `vload`/`vstore`
//! and the half variants with their rounding modes.
//!
//! `vload_half`/`vstore_half` are core OpenCL C, with or without
//! cl_khr_fp16, so they never compute in 16-bit floats: a half moves as its
//! 16 bits, and the conversions to and from `float`/`double` are integer
//! arithmetic on the bit patterns. That keeps them exact on every driver
//! (half denormals are never flushed, each rounding mode is honoured, a
//! `double` is rounded once) and needs no `Float16` capability.

use super::*;
use crate::sema::builtins::{HalfStore, Rounding};

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
        // A scalar widens to every component (as clang's overloads let it:
        // the CTS stores `vstore3(v.x, ...)`).
        let data = if matches!(data.ty, Type::Scalar(_)) {
            self.convert(data, &vt, span, false)?
        } else {
            data
        };
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

    /// Checks that `p` points to `half` and returns its address space.
    fn half_pointer_space(&mut self, p: &Val, span: Span) -> R<AddrSpace> {
        match &p.ty {
            Type::Pointer(elem, space, _) if **elem == Type::Scalar(Scalar::Half) => Some(*space),
            _ => {
                self.error(span, "expected a pointer to half");
                None
            }
        }
    }

    /// The first half element `offset * stride` of `p`: a 64-bit address in
    /// `__global`/`__constant` memory, or a `__local`/`__private` pointer.
    fn half_first(&mut self, stride: u8, p: Val, off: Val, span: Span) -> R<Val> {
        let off = self.convert(off, &Type::ULONG, span, false)?;
        let ul = self.sty(&Type::ULONG);
        let k = self.m.u64_const(stride as u64);
        let first = self.op(Op::IMul, ul, &[off.id, k]);
        self.pointer_add(p, Val::new(first, Type::ULONG), false, span)
    }

    /// The `__local`/`__private` place of half `i` after `first`.
    fn half_place(&mut self, first: &Val, i: u8, span: Span) -> R<Place> {
        let iv = self.const_val(&Type::INT, i as i64);
        let pi = self.pointer_add(first.clone(), iv, false, span)?;
        self.deref(pi, span)
    }

    /// The 16 bits of a half in `__local`/`__private` memory, zero-extended
    /// to 32.
    fn load_half_bits(&mut self, place: &Place, span: Span) -> R<Word> {
        let u = self.m.ty(TypeKey::Int(32));
        let us = self.m.ty(TypeKey::Int(16));
        let bits = match place {
            // The word pool holds bytes: read the half's two as a ushort.
            Place::Pool { offset, sc, .. } => {
                self.pool_load(*sc, *offset, &Type::Scalar(Scalar::UShort), span)?
            }
            // A variable typed `half` (cl_khr_fp16): its value, reinterpreted.
            Place::Var { .. } => {
                let h = self.load(place, span)?;
                self.op(Op::Bitcast, us, &[h.id])
            }
            // A tagged generic (or private) pointer: its two bytes as a
            // ushort through whichever space the tag names.
            Place::Addr { .. } => self.load(&ushort_at(place), span)?.id,
            _ => {
                self.error(span, "vload_half needs a pointer into memory");
                return None;
            }
        };
        Some(self.op(Op::UConvert, u, &[bits]))
    }

    /// Stores the low 16 bits of `bits` (a 32-bit integer) as a half in
    /// `__local`/`__private` memory.
    fn store_half_bits(&mut self, place: &Place, bits: Word, span: Span) {
        let us = self.m.ty(TypeKey::Int(16));
        let h = self.op(Op::UConvert, us, &[bits]);
        match place {
            Place::Pool { offset, sc, .. } => {
                self.pool_store(*sc, *offset, &Type::Scalar(Scalar::UShort), h, span)
            }
            Place::Var { .. } => {
                let ht = self.sty(&Type::Scalar(Scalar::Half));
                let v = self.op(Op::Bitcast, ht, &[h]);
                self.store(place, &Val::new(v, Type::Scalar(Scalar::Half)), span);
            }
            Place::Addr { .. } => {
                let v = Val::new(h, Type::Scalar(Scalar::UShort));
                self.store(&ushort_at(place), &v, span);
            }
            _ => self.error(span, "vstore_half needs a pointer into memory"),
        }
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
        let space = self.half_pointer_space(&p, span)?;
        let first = self.half_first(stride, p, off, span)?;
        let u = self.m.ty(TypeKey::Int(32));
        let mut words = Vec::new();
        if space.is_addressed() {
            // One access of n ushorts, aligned to one half (all that
            // `vload_halfn` promises) or, for `vloada_half3`, to its 4.
            let align = if stride == n { 2 } else { 2 * stride as u32 };
            let ut = Type::vector_or_scalar(Scalar::UShort, n as u32);
            let v = self.load_addr(first.id, &ut, align, span)?;
            let us = self.m.ty(TypeKey::Int(16));
            for i in 0..n as u32 {
                let h = if n == 1 {
                    v
                } else {
                    self.op(Op::CompositeExtract, us, &[v, i])
                };
                words.push(self.op(Op::UConvert, u, &[h]));
            }
        } else {
            for i in 0..n {
                let place = self.half_place(&first, i, span)?;
                words.push(self.load_half_bits(&place, span)?);
            }
        }
        let comps: Vec<Word> = words.into_iter().map(|w| self.half_to_float(w)).collect();
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
        layout: HalfStore,
        mut vals: Vec<Val>,
        span: Span,
    ) -> R<Val> {
        let p = vals.remove(2);
        let off = vals.remove(1);
        let data = vals.remove(0);
        let suffix = if n == 1 { String::new() } else { n.to_string() };
        // A double is rounded to half directly: through float it would be
        // rounded twice.
        let src = match data.ty.elem_scalar() {
            Some(Scalar::Double) => Some(Scalar::Double),
            Some(Scalar::Float | Scalar::Half) => Some(Scalar::Float),
            _ => None,
        };
        let Some(src) = src.filter(|_| data.ty.width() == n as u32) else {
            self.error(
                span,
                format!("vstore_half{suffix} needs a float{suffix} or double{suffix} value"),
            );
            return None;
        };
        let t = Type::vector_or_scalar(src, n as u32);
        let data = self.convert(data, &t, span, false)?;
        let space = self.half_pointer_space(&p, span)?;
        if space == AddrSpace::Constant {
            self.error(span, "cannot store to __constant memory");
            return None;
        }
        let first = self.half_first(layout.stride, p, off, span)?;
        let et = self.sty(&Type::Scalar(src));
        let mut bits = Vec::new();
        for i in 0..n as u32 {
            let x = if n == 1 {
                data.id
            } else {
                self.op(Op::CompositeExtract, et, &[data.id, i])
            };
            bits.push(self.half_from(x, src, layout.rounding));
        }
        if space.is_addressed() {
            let us = self.m.ty(TypeKey::Int(16));
            let halves: Vec<Word> = bits
                .iter()
                .map(|&b| self.op(Op::UConvert, us, &[b]))
                .collect();
            let ut = Type::vector_or_scalar(Scalar::UShort, n as u32);
            let v = if n == 1 {
                halves[0]
            } else {
                let vt = self.sty(&ut);
                self.op(Op::CompositeConstruct, vt, &halves)
            };
            let align = if layout.stride == n {
                2
            } else {
                2 * layout.stride as u32
            };
            self.store_addr(first.id, &ut, align, v, span);
        } else {
            for (i, b) in bits.into_iter().enumerate() {
                let place = self.half_place(&first, i as u8, span)?;
                self.store_half_bits(&place, b, span);
            }
        }
        Some(Val::new(0, Type::Void))
    }

    /// The `float` a half's bits (`h`, a 32-bit integer below 2^16) stand
    /// for; exact, denormals and NaN payloads included.
    pub(super) fn half_to_float(&mut self, h: Word) -> Word {
        let u = self.m.ty(TypeKey::Int(32));
        let f = self.sty(&Type::FLOAT);
        let b = self.bool_ty(1);
        let k = |s: &mut Self, v: u32| s.u32c(v);
        let (c10, c13, c16, c0x1f, c0x3ff, c0x8000) = (
            k(self, 10),
            k(self, 13),
            k(self, 16),
            k(self, 0x1f),
            k(self, 0x3ff),
            k(self, 0x8000),
        );
        let sign = self.op(Op::BitwiseAnd, u, &[h, c0x8000]);
        let sign = self.op(Op::ShiftLeftLogical, u, &[sign, c16]);
        let e = self.op(Op::ShiftRightLogical, u, &[h, c10]);
        let e = self.op(Op::BitwiseAnd, u, &[e, c0x1f]);
        let m = self.op(Op::BitwiseAnd, u, &[h, c0x3ff]);
        let m13 = self.op(Op::ShiftLeftLogical, u, &[m, c13]);
        // Normal: rebias the exponent from 15 to 127.
        let c112 = k(self, 112);
        let c23 = k(self, 23);
        let fe = self.op(Op::IAdd, u, &[e, c112]);
        let fe = self.op(Op::ShiftLeftLogical, u, &[fe, c23]);
        let normal = self.op(Op::BitwiseOr, u, &[fe, m13]);
        // Infinity and NaN keep the payload.
        let c_inf = k(self, 0x7f80_0000);
        let special = self.op(Op::BitwiseOr, u, &[c_inf, m13]);
        // Denormal (and zero): m * 2^-24 is exact and a normal float.
        let mf = self.op(Op::ConvertUToF, f, &[m]);
        let scale = self.constant(&Type::FLOAT, ConstVal::Float(2f64.powi(-24)));
        let den = self.op(Op::FMul, f, &[mf, scale]);
        let den = self.op(Op::Bitcast, u, &[den]);
        let zero = k(self, 0);
        let is_den = self.op(Op::IEqual, b, &[e, zero]);
        let is_special = self.op(Op::IEqual, b, &[e, c0x1f]);
        let mag = self.op(Op::Select, u, &[is_special, special, normal]);
        let mag = self.op(Op::Select, u, &[is_den, den, mag]);
        let bits = self.op(Op::BitwiseOr, u, &[sign, mag]);
        self.op(Op::Bitcast, f, &[bits])
    }

    /// The bits of `x` (a `float` or `double` scalar, by `src`) rounded to
    /// half in `rounding` (the default is round to nearest even), as a
    /// 32-bit integer: the IEEE 754 rules, with overflow to infinity or
    /// the largest finite half as the mode says, denormal halves, and NaN
    /// kept a (quiet) NaN of the same sign.
    pub(super) fn half_from(&mut self, x: Word, src: Scalar, rounding: Rounding) -> Word {
        let (w, mant_bits, bias): (u32, u64, u64) = if src == Scalar::Double {
            (64, 52, 1023)
        } else {
            (32, 23, 127)
        };
        let it = self.m.ty(TypeKey::Int(w));
        let u = self.m.ty(TypeKey::Int(32));
        let b = self.bool_ty(1);
        let k = |s: &mut Self, v: u64| {
            if w == 64 {
                s.m.u64_const(v)
            } else {
                s.u32c(v as u32)
            }
        };
        let bits = self.op(Op::Bitcast, it, &[x]);
        let c_top = k(self, w as u64 - 1);
        let sign = self.op(Op::ShiftRightLogical, it, &[bits, c_top]);
        let abs_mask = k(self, (1u64 << (w - 1)) - 1);
        let a = self.op(Op::BitwiseAnd, it, &[bits, abs_mask]);
        let c_mb = k(self, mant_bits);
        let e = self.op(Op::ShiftRightLogical, it, &[a, c_mb]);
        let mant_mask = k(self, (1u64 << mant_bits) - 1);
        let m = self.op(Op::BitwiseAnd, it, &[a, mant_mask]);
        let zero = k(self, 0);
        let one = k(self, 1);
        // The significand with its implicit bit (none for zero and
        // denormal sources).
        let implicit = k(self, 1u64 << mant_bits);
        let with_bit = self.op(Op::BitwiseOr, it, &[m, implicit]);
        let e_zero = self.op(Op::IEqual, b, &[e, zero]);
        let sig = self.op(Op::Select, it, &[e_zero, m, with_bit]);
        // The half's biased exponent, signed.
        let rebias = k(self, bias - 15);
        let he = self.op(Op::ISub, it, &[e, rebias]);
        let normal = self.op(Op::SGreaterThanEqual, b, &[he, one]);
        // A normal half keeps 10 of the fraction bits; a denormal one
        // fewer as its exponent falls, until everything is shifted out.
        let shift_normal = k(self, mant_bits - 10);
        let c_den = k(self, mant_bits - 9);
        let shift_den = self.op(Op::ISub, it, &[c_den, he]);
        let max_shift = k(self, w as u64 - 1);
        let too_far = self.op(Op::SGreaterThan, b, &[shift_den, max_shift]);
        let shift_den = self.op(Op::Select, it, &[too_far, max_shift, shift_den]);
        let shift = self.op(Op::Select, it, &[normal, shift_normal, shift_den]);
        let c10 = k(self, 10);
        let hem1 = self.op(Op::ISub, it, &[he, one]);
        let base_normal = self.op(Op::ShiftLeftLogical, it, &[hem1, c10]);
        let base = self.op(Op::Select, it, &[normal, base_normal, zero]);
        let q = self.op(Op::ShiftRightLogical, it, &[sig, shift]);
        let unit = self.op(Op::ShiftLeftLogical, it, &[one, shift]);
        let rem_mask = self.op(Op::ISub, it, &[unit, one]);
        let rem = self.op(Op::BitwiseAnd, it, &[sig, rem_mask]);
        let inexact = self.op(Op::INotEqual, b, &[rem, zero]);
        let negative = self.op(Op::INotEqual, b, &[sign, zero]);
        let up = match rounding {
            Rounding::Default | Rounding::Rte => {
                let sm1 = self.op(Op::ISub, it, &[shift, one]);
                let halfway = self.op(Op::ShiftLeftLogical, it, &[one, sm1]);
                let above = self.op(Op::UGreaterThan, b, &[rem, halfway]);
                let tie = self.op(Op::IEqual, b, &[rem, halfway]);
                let odd = self.op(Op::BitwiseAnd, it, &[q, one]);
                let odd = self.op(Op::INotEqual, b, &[odd, zero]);
                let tie_odd = self.op(Op::LogicalAnd, b, &[tie, odd]);
                Some(self.op(Op::LogicalOr, b, &[above, tie_odd]))
            }
            Rounding::Rtz => None,
            Rounding::Rtp => {
                let positive = self.op(Op::LogicalNot, b, &[negative]);
                Some(self.op(Op::LogicalAnd, b, &[inexact, positive]))
            }
            Rounding::Rtn => Some(self.op(Op::LogicalAnd, b, &[inexact, negative])),
        };
        let mag = self.op(Op::IAdd, it, &[base, q]);
        // Rounding up may carry into the exponent, which is what it should
        // do (the largest denormal becomes the smallest normal, and so on).
        let mag = match up {
            Some(up) => {
                let inc = self.op(Op::Select, it, &[up, one, zero]);
                self.op(Op::IAdd, it, &[mag, inc])
            }
            None => mag,
        };
        // Below 2^21 even for the largest double exponent: narrowing keeps it.
        let mag = if w == 64 {
            self.op(Op::UConvert, u, &[mag])
        } else {
            mag
        };
        let c_inf_h = self.u32c(0x7c00);
        let c_max_h = self.u32c(0x7bff);
        // Past the largest finite half: infinity when the mode rounds away
        // from zero on this side, the largest finite half otherwise.
        let overflow_value = match rounding {
            Rounding::Default | Rounding::Rte => c_inf_h,
            Rounding::Rtz => c_max_h,
            Rounding::Rtp => self.op(Op::Select, u, &[negative, c_max_h, c_inf_h]),
            Rounding::Rtn => self.op(Op::Select, u, &[negative, c_inf_h, c_max_h]),
        };
        let overflow = self.op(Op::UGreaterThanEqual, b, &[mag, c_inf_h]);
        let mag = self.op(Op::Select, u, &[overflow, overflow_value, mag]);
        // Infinity stays infinity in every mode; NaN stays NaN, quiet, with
        // the top of its payload.
        let inf_bits = k(
            self,
            ((1u64 << (w - 1 - mant_bits as u32)) - 1) << mant_bits,
        );
        let is_inf = self.op(Op::IEqual, b, &[a, inf_bits]);
        let is_nan = self.op(Op::UGreaterThan, b, &[a, inf_bits]);
        let c_payload = k(self, mant_bits - 10);
        let payload = self.op(Op::ShiftRightLogical, it, &[m, c_payload]);
        let payload = if w == 64 {
            self.op(Op::UConvert, u, &[payload])
        } else {
            payload
        };
        let c_qnan = self.u32c(0x7e00);
        let nan = self.op(Op::BitwiseOr, u, &[c_qnan, payload]);
        let mag = self.op(Op::Select, u, &[is_inf, c_inf_h, mag]);
        let mag = self.op(Op::Select, u, &[is_nan, nan, mag]);
        let sign = if w == 64 {
            self.op(Op::UConvert, u, &[sign])
        } else {
            sign
        };
        let c15 = self.u32c(15);
        let sign = self.op(Op::ShiftLeftLogical, u, &[sign, c15]);
        self.op(Op::BitwiseOr, u, &[sign, mag])
    }
}

/// The half at addressed place `p` (a tagged generic or private pointer) as
/// a `ushort`, so its two bytes move through whichever space the tag names.
fn ushort_at(p: &Place) -> Place {
    match p {
        Place::Addr {
            addr, align, space, ..
        } => Place::Addr {
            addr: *addr,
            ty: Type::Scalar(Scalar::UShort),
            align: (*align).min(2),
            space: *space,
        },
        other => other.clone(),
    }
}
