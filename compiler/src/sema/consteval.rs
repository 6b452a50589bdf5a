//! Integer constant expressions (C99 6.6): array sizes, `case` labels, enum
//! values, attribute arguments and program-scope initializers.

use crate::ast::{BinOp, Expr, ExprKind, UnOp};
use crate::sema::types::{Scalar, Type, TypeTable};

/// A scalar constant value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ConstVal {
    Int(i64),
    Float(f64),
}

impl ConstVal {
    pub fn as_i64(self) -> i64 {
        match self {
            ConstVal::Int(v) => v,
            ConstVal::Float(f) => f as i64,
        }
    }

    pub fn as_f64(self) -> f64 {
        match self {
            ConstVal::Int(v) => v as f64,
            ConstVal::Float(f) => f,
        }
    }

    fn truthy(self) -> bool {
        match self {
            ConstVal::Int(v) => v != 0,
            ConstVal::Float(f) => f != 0.0,
        }
    }
}

/// Truncates or sign-extends `v` to the scalar `s` (C conversion to an
/// integer type).
pub fn wrap_to(v: i64, s: Scalar) -> i64 {
    if s == Scalar::Bool {
        return (v != 0) as i64;
    }
    let bits = s.bits();
    if bits >= 64 {
        return v;
    }
    let mask = (1u64 << bits) - 1;
    let u = (v as u64) & mask;
    if s.is_signed() && (u >> (bits - 1)) & 1 == 1 {
        (u | !mask) as i64
    } else {
        u as i64
    }
}

/// Evaluates `e` as a constant, or `None` when it is not constant.
pub fn eval(e: &Expr, types: &TypeTable) -> Option<ConstVal> {
    eval_in(e, types, &|_| None)
}

/// [`eval`] where `named` gives the values of the variables known to hold
/// one (a `const` local with a constant initializer); other names are the
/// built-in constants.
pub fn eval_in(
    e: &Expr,
    types: &TypeTable,
    named: &dyn Fn(&str) -> Option<ConstVal>,
) -> Option<ConstVal> {
    let eval = |e: &Expr, types: &TypeTable| eval_in(e, types, named);
    Some(match &e.kind {
        ExprKind::IntLit(v, s) => ConstVal::Int(wrap_to(*v as i64, *s)),
        ExprKind::FloatLit(f, _) => ConstVal::Float(*f),
        ExprKind::SizeofType(t) => ConstVal::Int(types.size(t) as i64),
        ExprKind::AlignofType(t) => ConstVal::Int(types.align(t) as i64),
        ExprKind::VecStepType(t) => ConstVal::Int(match t {
            // A 3-component vector steps like a 4-component one (6.13.6).
            Type::Vector(_, 3) => 4,
            Type::Vector(_, n) => *n as i64,
            _ => 1,
        }),
        ExprKind::Cast(t, inner) => {
            let v = eval(inner, types)?;
            match t {
                Type::Scalar(s) if s.is_float() => ConstVal::Float(v.as_f64()),
                Type::Scalar(s) => ConstVal::Int(wrap_to(v.as_i64(), *s)),
                _ => return None,
            }
        }
        ExprKind::Unary(op, inner) => {
            let v = eval(inner, types)?;
            match (op, v) {
                (UnOp::Neg, ConstVal::Int(i)) => ConstVal::Int(i.wrapping_neg()),
                (UnOp::Neg, ConstVal::Float(f)) => ConstVal::Float(-f),
                (UnOp::Plus, v) => v,
                (UnOp::Not, v) => ConstVal::Int(!v.truthy() as i64),
                (UnOp::BitNot, ConstVal::Int(i)) => ConstVal::Int(!i),
                _ => return None,
            }
        }
        ExprKind::Binary(op, a, b) => {
            let x = eval(a, types)?;
            if *op == BinOp::LogAnd && !x.truthy() {
                return Some(ConstVal::Int(0));
            }
            if *op == BinOp::LogOr && x.truthy() {
                return Some(ConstVal::Int(1));
            }
            let y = eval(b, types)?;
            binary(*op, x, y)?
        }
        ExprKind::Cond(c, a, b) => {
            if eval(c, types)?.truthy() {
                eval(a, types)?
            } else {
                eval(b, types)?
            }
        }
        ExprKind::Comma(_, b) => eval(b, types)?,
        ExprKind::Ident(name) => match named(name) {
            Some(v) => v,
            None => ConstVal::Int(crate::lower::builtin_constant(name)?),
        },
        _ => return None,
    })
}

/// The type of the integer constant expression `e` (C99 6.3.1.8's usual
/// arithmetic conversions over its literals and casts), which `eval`
/// computes in 64 bits.
pub fn int_type(e: &Expr) -> Scalar {
    use crate::sema::types::{common_scalar, promote};
    match &e.kind {
        ExprKind::IntLit(_, s) => *s,
        ExprKind::Cast(Type::Scalar(s), _) => *s,
        ExprKind::SizeofType(_) | ExprKind::AlignofType(_) => Scalar::ULong,
        ExprKind::Unary(UnOp::Neg | UnOp::Plus | UnOp::BitNot, a) => promote(int_type(a)),
        ExprKind::Binary(BinOp::Shl | BinOp::Shr, a, _) => promote(int_type(a)),
        ExprKind::Binary(
            BinOp::Add
            | BinOp::Sub
            | BinOp::Mul
            | BinOp::Div
            | BinOp::Rem
            | BinOp::BitAnd
            | BinOp::BitOr
            | BinOp::BitXor,
            a,
            b,
        ) => common_scalar(int_type(a), int_type(b)),
        ExprKind::Cond(_, a, b) => common_scalar(int_type(a), int_type(b)),
        ExprKind::Comma(_, b) => int_type(b),
        _ => Scalar::Int,
    }
}

/// `x op y` as constant folding computes it (in 64 bits).
pub(crate) fn binary(op: BinOp, x: ConstVal, y: ConstVal) -> Option<ConstVal> {
    use ConstVal::*;
    if let (Int(a), Int(b)) = (x, y) {
        let r = match op {
            BinOp::Add => a.wrapping_add(b),
            BinOp::Sub => a.wrapping_sub(b),
            BinOp::Mul => a.wrapping_mul(b),
            BinOp::Div => a.checked_div(b)?,
            BinOp::Rem => a.checked_rem(b)?,
            BinOp::Shl => a.wrapping_shl((b & 63) as u32),
            BinOp::Shr => a.wrapping_shr((b & 63) as u32),
            BinOp::Lt => (a < b) as i64,
            BinOp::Gt => (a > b) as i64,
            BinOp::Le => (a <= b) as i64,
            BinOp::Ge => (a >= b) as i64,
            BinOp::Eq => (a == b) as i64,
            BinOp::Ne => (a != b) as i64,
            BinOp::BitAnd => a & b,
            BinOp::BitOr => a | b,
            BinOp::BitXor => a ^ b,
            BinOp::LogAnd => (a != 0 && b != 0) as i64,
            BinOp::LogOr => (a != 0 || b != 0) as i64,
        };
        return Some(Int(r));
    }
    let (a, b) = (x.as_f64(), y.as_f64());
    Some(match op {
        BinOp::Add => Float(a + b),
        BinOp::Sub => Float(a - b),
        BinOp::Mul => Float(a * b),
        BinOp::Div => Float(a / b),
        BinOp::Lt => Int((a < b) as i64),
        BinOp::Gt => Int((a > b) as i64),
        BinOp::Le => Int((a <= b) as i64),
        BinOp::Ge => Int((a >= b) as i64),
        BinOp::Eq => Int((a == b) as i64),
        BinOp::Ne => Int((a != b) as i64),
        BinOp::LogAnd => Int((a != 0.0 && b != 0.0) as i64),
        BinOp::LogOr => Int((a != 0.0 || b != 0.0) as i64),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_like_c() {
        assert_eq!(wrap_to(300, Scalar::UChar), 44);
        assert_eq!(wrap_to(255, Scalar::Char), -1);
        assert_eq!(wrap_to(-1, Scalar::UInt), 0xffff_ffff);
    }
}
