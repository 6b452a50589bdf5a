//! The bitwise majority of three values, as hash functions write it.
//!
//! SHA-1, SHA-2 and their kin take the majority of three words as
//! `(x & y) | (z & (x ^ y))` (hashcat's `SHA256_F0`, `SHA1_F2`,
//! `SHA512_F1`). NVIDIA's OpenCL compiles it to one three-input logic
//! instruction (`LOP3.LUT` 0xe8); its Vulkan compiler, given those four
//! SPIR-V operations, to two. Written `x ^ ((x ^ y) & (x ^ z))` it gets
//! one: a SHA-256 round loop ran 0.89 of NVIDIA's OpenCL speed as written
//! and 0.97 so on an H200 (docs/performance.md). `bitselect` lowers to the
//! same shape ([`super::builtin`]).

use super::rotate::same_value;
use super::*;

/// `(x & y) | (z & (x ^ y))`, with the operands of each operation in
/// either order, `x` and `y` free of side effects (each is evaluated once
/// instead of twice).
pub(super) struct MajorityIdiom<'e> {
    x: &'e Expr,
    y: &'e Expr,
    z: &'e Expr,
}

impl<'e> MajorityIdiom<'e> {
    /// The idiom in the operands of `a | b`, if they are one.
    pub(super) fn of(a: &'e Expr, b: &'e Expr) -> Option<MajorityIdiom<'e>> {
        Self::ordered(a, b).or_else(|| Self::ordered(b, a))
    }

    /// `both` is `x & y`, `select` is `z & (x ^ y)`.
    fn ordered(both: &'e Expr, select: &'e Expr) -> Option<MajorityIdiom<'e>> {
        let (x, y) = operands(both, BinOp::BitAnd)?;
        let (s, t) = operands(select, BinOp::BitAnd)?;
        let (z, (p, q)) = match (operands(t, BinOp::BitXor), operands(s, BinOp::BitXor)) {
            (Some(pq), _) => (s, pq),
            (None, Some(pq)) => (t, pq),
            (None, None) => return None,
        };
        let same = |a: &Expr, b: &Expr| same_value(a, b);
        let matched = (same(x, p) && same(y, q)) || (same(x, q) && same(y, p));
        matched.then_some(MajorityIdiom { x, y, z })
    }
}

/// The two operands of `e` if it is `a op b`.
fn operands(e: &Expr, op: BinOp) -> Option<(&Expr, &Expr)> {
    match &e.kind {
        ExprKind::Binary(o, a, b) if *o == op => Some((a, b)),
        _ => None,
    }
}

impl<'a> Lowerer<'a> {
    /// The majority `idiom` as `x ^ ((x ^ y) & (x ^ z))` where the three
    /// have one integer type, so that no conversion differs between the
    /// two forms; as written otherwise.
    pub(super) fn majority(&mut self, idiom: MajorityIdiom<'a>, span: Span) -> R<Val> {
        let x = self.expr(idiom.x)?;
        let y = self.expr(idiom.y)?;
        let z = self.expr(idiom.z)?;
        let xor = BinOp::BitXor;
        if x.ty == y.ty && y.ty == z.ty && x.ty.is_integer() {
            let xy = self.binary(xor, x.clone(), y, span)?;
            let xz = self.binary(xor, x.clone(), z, span)?;
            let pick = self.binary(BinOp::BitAnd, xy, xz, span)?;
            return self.binary(xor, x, pick, span);
        }
        let both = self.binary(BinOp::BitAnd, x.clone(), y.clone(), span)?;
        let xy = self.binary(xor, x, y, span)?;
        let select = self.binary(BinOp::BitAnd, z, xy, span)?;
        self.binary(BinOp::BitOr, both, select, span)
    }
}
