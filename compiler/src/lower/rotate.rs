//! 64-bit rotates on two 32-bit halves (`TargetCaps::rotate64_in_halves`).
//!
//! SPIR-V has no rotate instruction: OpenCL C's `rotate` and the idiom
//! programs write instead, `(x >> n) | (x << (64 - n))`, reach the driver
//! as two shifts and an OR, and the driver has to see the rotate itself.
//! NVIDIA's Vulkan compiler does so for 32-bit values (hashcat's MD5,
//! rotates and adds, runs as fast as on NVIDIA's OpenCL) but not for
//! 64-bit ones, where its OpenCL compiler emits two 32-bit funnel shifts.
//! SHA-512 is mostly such rotates: hashcat's SHA2-512 ran at 0.62 of
//! NVIDIA's OpenCL on an H100 with them as shifts, 0.98 on halves
//! (docs/performance.md).
//!
//! So on such a driver a 64-bit rotate right by `r` is written on the
//! halves: they are swapped when `r` has bit 5 set, then each half of the
//! result is the funnel shift `(a >> s) | (b << (32 - s))` of the two, for
//! `s = r & 31`, which the driver does match once `r` is a constant. The
//! left shift is written `(b << 1) << (31 - s)`, because a shift by 32
//! (`s` = 0) is undefined in SPIR-V.
//!
//! The idiom is recognised in the source, before lowering: `x` is loaded
//! twice there, so the two shifts of the SPIR-V would not even share
//! their operand.

use super::*;

/// The rotate written as two shifts of one value by complementary counts:
/// `(x >> n) | (x << (W - n))` or `(x << n) | (x >> (W - n))`, either
/// operand first, or with both counts literals adding up to `W` (and
/// with `^` or `+` for `|` where the count is a nonzero constant).
pub(super) struct RotateIdiom<'e> {
    /// The value shifted; evaluated once instead of twice, so it must
    /// have no side effects ([`same_value`]).
    pub value: &'e Expr,
    /// The count of the right shift: the rotate is to the right by it.
    pub right_count: &'e Expr,
    /// The width `W` the counts add up to.
    pub width: u64,
}

impl<'e> RotateIdiom<'e> {
    /// The idiom in the operands of `a | b` (or `^`, `+`), if they are one.
    pub(super) fn of(a: &'e Expr, b: &'e Expr) -> Option<RotateIdiom<'e>> {
        let (ExprKind::Binary(op_a, xa, ca), ExprKind::Binary(op_b, xb, cb)) = (&a.kind, &b.kind)
        else {
            return None;
        };
        let (right, left) = match (op_a, op_b) {
            (BinOp::Shr, BinOp::Shl) => (ca, cb),
            (BinOp::Shl, BinOp::Shr) => (cb, ca),
            _ => return None,
        };
        if !same_value(xa, xb) {
            return None;
        }
        let width =
            complementary_counts(right, left).or_else(|| complementary_counts(left, right))?;
        Some(RotateIdiom {
            value: xa,
            right_count: right,
            width,
        })
    }
}

/// `W` where `b` is `W - a` (or both are literals adding up to `W`).
fn complementary_counts(a: &Expr, b: &Expr) -> Option<u64> {
    match (&a.kind, &b.kind) {
        (ExprKind::IntLit(x, _), ExprKind::IntLit(y, _)) => x.checked_add(*y),
        (_, ExprKind::Binary(BinOp::Sub, w, n)) if same_value(n, a) => match w.kind {
            ExprKind::IntLit(w, _) => Some(w),
            _ => None,
        },
        _ => None,
    }
}

/// Whether `a` and `b` are the same expression without side effects (so
/// that evaluating it once gives what evaluating each would: nothing
/// between the two reads can write what they read). Spans are not
/// compared.
pub(super) fn same_value(a: &Expr, b: &Expr) -> bool {
    use ExprKind as E;
    match (&a.kind, &b.kind) {
        (E::Ident(x), E::Ident(y)) => x == y,
        (E::IntLit(x, s), E::IntLit(y, t)) => x == y && s == t,
        (E::Unary(o, x), E::Unary(p, y)) => {
            o == p
                && matches!(
                    o,
                    UnOp::Neg | UnOp::Plus | UnOp::Not | UnOp::BitNot | UnOp::Deref
                )
                && same_value(x, y)
        }
        (E::Binary(o, x1, x2), E::Binary(p, y1, y2)) => {
            o == p && same_value(x1, y1) && same_value(x2, y2)
        }
        (E::Index(x1, x2), E::Index(y1, y2)) => same_value(x1, y1) && same_value(x2, y2),
        (E::Member(x, n, arrow), E::Member(y, m, arrow2)) => {
            n == m && arrow == arrow2 && same_value(x, y)
        }
        (E::Cast(t, x), E::Cast(u, y)) => t == u && same_value(x, y),
        _ => false,
    }
}

impl<'a> Lowerer<'a> {
    /// The 64-bit rotate in the operands of `a op b` (`|`, `^` or `+`), if
    /// they are one: the idiom, of a value whose type is `ulong` (or a
    /// vector of them) before it is lowered, a variable's or a cast's.
    /// Anything else lowers as written, so that only rotates change.
    pub(super) fn rotate64_idiom(
        &self,
        op: BinOp,
        a: &'a Expr,
        b: &'a Expr,
    ) -> Option<RotateIdiom<'a>> {
        let idiom = RotateIdiom::of(a, b).filter(|i| i.width == 64)?;
        // With `^` or `+` instead of `|`, a count of 0 (mod 64) gives 0 or
        // twice the value, not the value: only a constant count that is
        // not 0 qualifies (the Keccak reference's `ROL64` is written so).
        if op != BinOp::BitOr {
            match consteval::eval(idiom.right_count, self.types)? {
                ConstVal::Int(n) if n & 63 != 0 => {}
                _ => return None,
            }
        }
        let ty = match &idiom.value.kind {
            ExprKind::Ident(name) => &self.symbol(name)?.ty,
            ExprKind::Cast(t, _) => t,
            _ => return None,
        };
        (ty.elem_scalar() == Some(Scalar::ULong)).then_some(idiom)
    }

    /// A 64-bit rotate ([`Lowerer::rotate64_idiom`]) on the value's halves.
    pub(super) fn rotate_idiom(&mut self, idiom: RotateIdiom<'a>, span: Span) -> R<Val> {
        let x = self.expr(idiom.value)?;
        let n = self.expr(idiom.right_count)?;
        let t = x.ty.clone();
        let ut = Type::vector_or_scalar(Scalar::UInt, t.width());
        // Only the count's low six bits matter: `uint`s, one per lane.
        let r = match n.ty {
            Type::Vector(s, w) if s.is_integer() && u32::from(w) == t.width() => {
                self.convert_elems(n.id, s, Scalar::UInt, u32::from(w))
            }
            Type::Scalar(s) if s.is_integer() || s == Scalar::Bool => {
                let r = self.convert(n, &Type::UINT, span, true)?;
                self.convert(r, &ut, span, false)?.id
            }
            // A count the shift rejects: its diagnostic.
            _ => {
                let count = idiom.right_count.span;
                if self.binary(BinOp::Shr, x, n, count).is_some() {
                    self.error(count, "invalid shift count");
                }
                return None;
            }
        };
        let id = self.rotate_right_in_halves(x.id, r, &t);
        Some(Val::new(id, t))
    }

    /// `x` (`ulong` or a vector of them) rotated right by `r` (`uint` or
    /// a vector of as many; only its low six bits count), on its halves.
    pub(super) fn rotate_right_in_halves(&mut self, x: Word, r: Word, t: &Type) -> Word {
        let ty = self.sty(t);
        if t.is_vector() {
            // Lane by lane: the halves of a lane are a `uint2`, as below.
            let uty = self.sty(&Type::UINT);
            let lty = self.sty(&Type::ULONG);
            let lanes: Vec<Word> = (0..t.width())
                .map(|i| {
                    let xi = self.op(Op::CompositeExtract, lty, &[x, i]);
                    let ri = self.op(Op::CompositeExtract, uty, &[r, i]);
                    self.rotate_right_in_halves(xi, ri, &Type::ULONG)
                })
                .collect();
            return self.op(Op::CompositeConstruct, ty, &lanes);
        }
        // The halves as a `uint2`, which the driver keeps as the two
        // registers of the value (where the shifts by 32 of `UConvert`s
        // measured no faster than the 64-bit rotate).
        let uty = self.sty(&Type::UINT);
        let pair = self.sty(&Type::Vector(Scalar::UInt, 2));
        let halves = self.op(Op::Bitcast, pair, &[x]);
        let lo = self.op(Op::CompositeExtract, uty, &[halves, 0]);
        let hi = self.op(Op::CompositeExtract, uty, &[halves, 1]);
        // By 32 and more: the halves swap places first.
        let c32 = self.u32c(32);
        let zero = self.u32c(0);
        let by32 = self.op(Op::BitwiseAnd, uty, &[r, c32]);
        let bt = self.bool_ty(1);
        let swap = self.op(Op::INotEqual, bt, &[by32, zero]);
        let a = self.op(Op::Select, uty, &[swap, hi, lo]);
        let b = self.op(Op::Select, uty, &[swap, lo, hi]);
        let c31 = self.u32c(31);
        let s = self.op(Op::BitwiseAnd, uty, &[r, c31]);
        let new_lo = self.funnel_right32(b, a, s);
        let new_hi = self.funnel_right32(a, b, s);
        let joined = self.op(Op::CompositeConstruct, pair, &[new_lo, new_hi]);
        self.op(Op::Bitcast, ty, &[joined])
    }
}
