//! cl_khr_extended_bit_ops: `bitfield_insert`, `bitfield_extract_signed`,
//! `bitfield_extract_unsigned` and `bit_reverse` on every integer scalar
//! and vector type.
//!
//! Vulkan allows SPIR-V's bit-field instructions on 32-bit integers only,
//! so the bit fields are shifts and masks at every width, and bit reversal
//! is `OpBitReverse` on 32-bit pieces: a narrower value is widened and the
//! result shifted down, a 64-bit value reversed as two swapped halves.
//! A count of 0 gives `base` (insert) or 0 (extract), as the
//! specification asks; the shift by the full width that a count of 0
//! would need is undefined in SPIR-V, so that case is a select.

use super::*;

/// The extended bit operation a built-in's name names, if any.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum BitOp {
    Insert,
    ExtractSigned,
    ExtractUnsigned,
    Reverse,
}

impl BitOp {
    pub(super) fn from_name(name: &str) -> Option<BitOp> {
        Some(match name {
            "bitfield_insert" => BitOp::Insert,
            "bitfield_extract_signed" => BitOp::ExtractSigned,
            "bitfield_extract_unsigned" => BitOp::ExtractUnsigned,
            "bit_reverse" => BitOp::Reverse,
            _ => return None,
        })
    }

    pub(super) fn arity(self) -> usize {
        match self {
            BitOp::Insert => 4,
            BitOp::ExtractSigned | BitOp::ExtractUnsigned => 3,
            BitOp::Reverse => 1,
        }
    }
}

impl<'a> Lowerer<'a> {
    /// One extended bit operation; the caller checked the argument count.
    pub(super) fn extended_bit_op(
        &mut self,
        op: BitOp,
        name: &str,
        vals: Vec<Val>,
        span: Span,
    ) -> R<Val> {
        self.require_extension("cl_khr_extended_bit_ops", name, span)?;
        // The type is the first argument's: `insert` follows `base`.
        let t = vals[0].ty.clone();
        if !t.is_integer() || t.elem_scalar() == Some(Scalar::Bool) {
            self.error(span, format!("'{name}' takes integer arguments"));
            return None;
        }
        let s = t.elem_scalar()?;
        let ids = self.convert_all(vals, &t, span)?;
        let ty = self.sty(&t);
        let id = match op {
            BitOp::Reverse => self.reverse_bits(ids[0], &t),
            BitOp::Insert => {
                let (base, insert, offset, count) = (ids[0], ids[1], ids[2], ids[3]);
                let mask = self.field_mask(offset, count, &t);
                let shifted = self.op(Op::ShiftLeftLogical, ty, &[insert, offset]);
                let shifted = self.op(Op::BitwiseAnd, ty, &[shifted, mask]);
                let keep = self.op(Op::Not, ty, &[mask]);
                let kept = self.op(Op::BitwiseAnd, ty, &[base, keep]);
                self.op(Op::BitwiseOr, ty, &[kept, shifted])
            }
            BitOp::ExtractSigned | BitOp::ExtractUnsigned => {
                // The field's top bit to the top of the value, then down to
                // bit 0, arithmetic or logical.
                let (base, offset, count) = (ids[0], ids[1], ids[2]);
                let width = self.constant(&t, ConstVal::Int(i64::from(s.bits())));
                let up = self.op(Op::ISub, ty, &[width, offset]);
                let up = self.op(Op::ISub, ty, &[up, count]);
                let down = self.op(Op::ISub, ty, &[width, count]);
                let top = self.op(Op::ShiftLeftLogical, ty, &[base, up]);
                let shift = if op == BitOp::ExtractSigned {
                    Op::ShiftRightArithmetic
                } else {
                    Op::ShiftRightLogical
                };
                let field = self.op(shift, ty, &[top, down]);
                let zero = self.constant(&t, ConstVal::Int(0));
                let bt = self.bool_ty(t.width());
                let empty = self.op(Op::IEqual, bt, &[count, zero]);
                self.op(Op::Select, ty, &[empty, zero, field])
            }
        };
        let result = match op {
            BitOp::ExtractSigned => t.with_elem(Scalar::int(s.bits(), true)),
            BitOp::ExtractUnsigned => t.with_elem(s.to_unsigned()),
            _ => t,
        };
        Some(Val::new(id, result))
    }

    /// `count` one bits from bit `offset` up: all ones shifted right by
    /// the bits not in the field, then left by `offset`; 0 for a count of
    /// 0.
    fn field_mask(&mut self, offset: Word, count: Word, t: &Type) -> Word {
        let ty = self.sty(t);
        let bits = t.elem_scalar().map_or(32, |s| s.bits());
        let ones = self.constant(t, ConstVal::Int(-1));
        let width = self.constant(t, ConstVal::Int(i64::from(bits)));
        let spare = self.op(Op::ISub, ty, &[width, count]);
        let low = self.op(Op::ShiftRightLogical, ty, &[ones, spare]);
        let mask = self.op(Op::ShiftLeftLogical, ty, &[low, offset]);
        let zero = self.constant(t, ConstVal::Int(0));
        let bt = self.bool_ty(t.width());
        let empty = self.op(Op::IEqual, bt, &[count, zero]);
        self.op(Op::Select, ty, &[empty, zero, mask])
    }

    /// The bits of `v` in reverse order, through 32-bit `OpBitReverse`.
    fn reverse_bits(&mut self, v: Word, t: &Type) -> Word {
        let s = t.elem_scalar().unwrap_or(Scalar::UInt);
        let n = t.width();
        let u32t = Type::vector_or_scalar(Scalar::UInt, n);
        let u32ty = self.sty(&u32t);
        match s.bits() {
            32 => self.op(Op::BitReverse, u32ty, &[v]),
            64 => {
                // Each half reversed, and the halves swapped.
                let ty = self.sty(t);
                let thirty_two = self.constant(t, ConstVal::Int(32));
                let lo = self.op(Op::UConvert, u32ty, &[v]);
                let hi = self.op(Op::ShiftRightLogical, ty, &[v, thirty_two]);
                let hi = self.op(Op::UConvert, u32ty, &[hi]);
                let new_hi = self.op(Op::BitReverse, u32ty, &[lo]);
                let new_lo = self.op(Op::BitReverse, u32ty, &[hi]);
                let new_hi = self.op(Op::UConvert, ty, &[new_hi]);
                let new_hi = self.op(Op::ShiftLeftLogical, ty, &[new_hi, thirty_two]);
                let new_lo = self.op(Op::UConvert, ty, &[new_lo]);
                self.op(Op::BitwiseOr, ty, &[new_hi, new_lo])
            }
            bits => {
                // Widened to 32 bits, reversed, and the top `bits` bits
                // brought down.
                let ty = self.sty(t);
                let wide = self.op(Op::UConvert, u32ty, &[v]);
                let reversed = self.op(Op::BitReverse, u32ty, &[wide]);
                let down = self.constant(&u32t, ConstVal::Int(i64::from(32 - bits)));
                let r = self.op(Op::ShiftRightLogical, u32ty, &[reversed, down]);
                self.op(Op::UConvert, ty, &[r])
            }
        }
    }
}
