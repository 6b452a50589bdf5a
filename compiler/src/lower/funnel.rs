//! Byte alignment written as an `if`/`else if` chain of funnel shifts.
//!
//! OpenCL C has no funnel shift, and programs that shift a byte stream
//! by a run-time number of bytes pick one of a few shifts by a branch on
//! the count. hashcat's generic `hc_bytealign` (17,000 uses across its
//! kernels) is
//!
//! ```c
//! const int cm = c & 3;
//!      if (cm == 0) { r = b;                     }
//! else if (cm == 1) { r = (a << 24) | (b >>  8); }
//! else if (cm == 2) { r = (a << 16) | (b >> 16); }
//! else if (cm == 3) { r = (a <<  8) | (b >> 24); }
//! ```
//!
//! Each arm is the low 32 bits of the 64-bit value `a:b` shifted right by
//! `8 * cm`: one funnel shift by an amount that is affine in the tested
//! value. NVIDIA's OpenCL gets a byte permute through inline PTX there;
//! the chain reached its Vulkan compiler as branches, which also made
//! hashcat's first pipelines take seconds each (docs/performance.md).
//! On an H100 a chain of such alignments ran 3.0x faster as one 64-bit
//! shift of the pair, which that driver compiles to one `SHF.R.U64`
//! (`TargetCaps::funnel_shift64`); on lavapipe the 32-bit form below ran
//! 1.6x faster than the branches and the 64-bit one 0.8x.
//!
//! A chain qualifies when every arm tests one `uint`/`int` variable for
//! equality with a constant, the constants cover a range without gaps,
//! and every arm assigns one `uint` variable a funnel shift of the same
//! two `uint` variables (`(h << (32 - s)) | (l >> s)`, or `l` alone for
//! `s` = 0, `h` for 32) whose amount `s` is affine in the constant. It
//! lowers to the shift by that amount when the tested value is in the
//! range, the variable's old value otherwise: what the chain does with no
//! arm taken. Everything else lowers as written.

use super::*;

/// The chain, as matched in the source.
pub(super) struct FunnelChain<'e> {
    /// The variable the arms test (an identifier).
    selector: &'e Expr,
    /// The variable every arm assigns.
    target: &'e Expr,
    /// The two variables shifted (identifiers).
    high: &'e Expr,
    low: &'e Expr,
    /// The smallest constant tested, and how many there are.
    first: u32,
    arms: u32,
    /// The shift amount for `first`, and its change per step of the
    /// tested value.
    base: i64,
    step: i64,
}

/// One arm's value: a funnel shift right of `high:low` by `shift`, or one
/// variable alone (which is `low` shifted by 0 or `high` by 32).
enum ArmValue<'e> {
    Funnel {
        high: &'e Expr,
        low: &'e Expr,
        shift: i64,
    },
    Alone(&'e Expr),
}

/// The shortest chain worth matching: two arms are as cheap as branches.
const MIN_ARMS: usize = 3;

impl<'e> FunnelChain<'e> {
    /// The chain `s` is, if it is one (types are checked by the lowerer).
    pub(super) fn of(s: &'e Stmt) -> Option<FunnelChain<'e>> {
        let mut arms = Vec::new();
        let mut cur = s;
        loop {
            let StmtKind::If(cond, then, els) = &cur.kind else {
                return None;
            };
            let (selector, k) = equality_test(cond)?;
            let (target, value) = single_assignment(then)?;
            arms.push((selector, k, target, arm_value(value)?));
            match els.as_deref() {
                None => break,
                Some(next) => cur = next,
            }
        }
        if arms.len() < MIN_ARMS {
            return None;
        }
        let (selector, _, target, _) = arms[0];
        if arms
            .iter()
            .any(|&(s, _, t, _)| !same_name(s, selector) || !same_name(t, target))
        {
            return None;
        }
        // The constants: distinct, without gaps.
        let mut ks: Vec<u64> = arms.iter().map(|a| a.1).collect();
        ks.sort_unstable();
        if ks.windows(2).any(|w| w[1] != w[0] + 1) {
            return None;
        }
        let first = u32::try_from(ks[0]).ok()?;
        // The pair and the affine amount, from the funnel arms.
        let funnels: Vec<(&Expr, &Expr, i64, u64)> = arms
            .iter()
            .filter_map(|(_, k, _, v)| match *v {
                ArmValue::Funnel { high, low, shift } => Some((high, low, shift, *k)),
                ArmValue::Alone(_) => None,
            })
            .collect();
        let [(high, low, s0, k0), (_, _, s1, k1), ..] = funnels[..] else {
            return None;
        };
        let dk = k1 as i64 - k0 as i64;
        if (s1 - s0) % dk != 0 {
            return None;
        }
        let step = (s1 - s0) / dk;
        let base = s0 - step * (k0 as i64 - i64::from(first));
        let fits = arms.iter().all(|(_, k, _, v)| {
            let shift = base + step * (*k as i64 - i64::from(first));
            match *v {
                ArmValue::Funnel {
                    high: h,
                    low: l,
                    shift: s,
                } => same_name(h, high) && same_name(l, low) && s == shift,
                ArmValue::Alone(x) => {
                    (shift == 0 && same_name(x, low)) || (shift == 32 && same_name(x, high))
                }
            }
        });
        fits.then_some(FunnelChain {
            selector,
            target,
            high,
            low,
            first,
            arms: ks.len() as u32,
            base,
            step,
        })
    }
}

/// Whether `a` and `b` are identifiers of one name.
fn same_name(a: &Expr, b: &Expr) -> bool {
    matches!((&a.kind, &b.kind), (ExprKind::Ident(x), ExprKind::Ident(y)) if x == y)
}

/// `x == k` or `k == x`, of a variable and a small constant: the
/// variable's identifier and the constant.
fn equality_test(cond: &Expr) -> Option<(&Expr, u64)> {
    let ExprKind::Binary(BinOp::Eq, a, b) = &cond.kind else {
        return None;
    };
    let (x, k) = match (&a.kind, &b.kind) {
        (ExprKind::Ident(_), ExprKind::IntLit(k, _)) => (&**a, *k),
        (ExprKind::IntLit(k, _), ExprKind::Ident(_)) => (&**b, *k),
        _ => return None,
    };
    (k < 1 << 16).then_some((x, k))
}

/// The `target = value` a statement (or a block of one) is.
fn single_assignment(s: &Stmt) -> Option<(&Expr, &Expr)> {
    match &s.kind {
        StmtKind::Block(items) => match items.as_slice() {
            [only] => single_assignment(only),
            _ => None,
        },
        StmtKind::Expr(Expr {
            kind: ExprKind::Assign(None, target, value),
            ..
        }) => Some((target, value)),
        _ => None,
    }
}

/// `x << n` or `x >> n` of a variable by a literal in 1..32.
fn shifted(e: &Expr) -> Option<(BinOp, &Expr, i64)> {
    let ExprKind::Binary(op @ (BinOp::Shl | BinOp::Shr), x, n) = &e.kind else {
        return None;
    };
    match (&x.kind, &n.kind) {
        (ExprKind::Ident(_), ExprKind::IntLit(n, _)) if (1..32).contains(n) => {
            Some((*op, &**x, *n as i64))
        }
        _ => None,
    }
}

/// A funnel shift of two variables by a literal amount, or one variable.
fn arm_value(e: &Expr) -> Option<ArmValue<'_>> {
    match &e.kind {
        ExprKind::Ident(_) => Some(ArmValue::Alone(e)),
        ExprKind::Binary(BinOp::BitOr, p, q) => {
            let (p, q) = (shifted(p)?, shifted(q)?);
            let ((_, high, up), (_, low, down)) = match (p.0, q.0) {
                (BinOp::Shl, BinOp::Shr) => (p, q),
                (BinOp::Shr, BinOp::Shl) => (q, p),
                _ => return None,
            };
            (up + down == 32).then_some(ArmValue::Funnel {
                high,
                low,
                shift: down,
            })
        }
        _ => None,
    }
}

impl<'a> Lowerer<'a> {
    /// Lowers `chain` as one funnel shift, if its variables have the types
    /// it needs: `uint` values and target, a 32-bit integer selector, a
    /// target that is a private variable that may be assigned. Returns
    /// whether it did; if not, nothing was emitted and the chain lowers
    /// as written.
    pub(super) fn funnel_chain(&mut self, chain: &FunnelChain<'a>, span: Span) -> bool {
        let is_uint = |l: &Self, e: &Expr| l.variable_type(e) == Some(Type::UINT);
        let selector_ok = matches!(
            self.variable_type(chain.selector),
            Some(Type::UINT | Type::INT)
        );
        // The target is stored whichever arm is taken, so it must be a
        // work-item's own variable: a `__local` one stored with its old
        // value could undo another work-item's store.
        let target_private = match &chain.target.kind {
            ExprKind::Ident(name) => self.symbol(name).is_some_and(|s| {
                s.sc == StorageClass::Function
                    && s.pool.is_none()
                    && !self.const_vars.contains(&(s.root, s.pool))
            }),
            _ => false,
        };
        if !selector_ok
            || !target_private
            || !is_uint(self, chain.target)
            || !is_uint(self, chain.high)
            || !is_uint(self, chain.low)
        {
            return false;
        }
        self.emit_funnel_chain(chain, span).is_some()
    }

    /// The type of the variable an identifier names, unless it is a
    /// pointer with a known target.
    fn variable_type(&self, e: &Expr) -> Option<Type> {
        let ExprKind::Ident(name) = &e.kind else {
            return None;
        };
        let sym = self.symbol(name)?;
        sym.base.is_none().then(|| sym.ty.clone())
    }

    fn emit_funnel_chain(&mut self, chain: &FunnelChain<'a>, span: Span) -> R<()> {
        let sel = self.expr(chain.selector)?;
        let sel = self.convert(sel, &Type::UINT, span, true)?.id;
        let high = self.expr(chain.high)?.id;
        let low = self.expr(chain.low)?.id;
        let place = self.lvalue(chain.target)?;
        let old = self.load(&place, span)?;
        let uty = self.sty(&Type::UINT);
        let bt = self.bool_ty(1);
        // The tested value's offset in the range, and whether it is in it.
        let first = self.u32c(chain.first);
        let off = self.op(Op::ISub, uty, &[sel, first]);
        let arms = self.u32c(chain.arms);
        let taken = self.op(Op::ULessThan, bt, &[off, arms]);
        // The amount, 0..=32 where an arm is taken (wrapping arithmetic:
        // the step may be negative).
        let base = self.u32c(chain.base as u32);
        let step = self.u32c(chain.step as u32);
        let scaled = self.op(Op::IMul, uty, &[off, step]);
        let shift = self.op(Op::IAdd, uty, &[base, scaled]);
        let shifted = if self.caps.funnel_shift64 {
            // The low half of `high:low >> shift`; the mask keeps the
            // shift defined where no arm is taken.
            let lty = self.sty(&Type::ULONG);
            let h = self.op(Op::UConvert, lty, &[high]);
            let l = self.op(Op::UConvert, lty, &[low]);
            let c32 = self.u32c(32);
            let up = self.op(Op::ShiftLeftLogical, lty, &[h, c32]);
            let pair = self.op(Op::BitwiseOr, lty, &[up, l]);
            let c63 = self.u32c(63);
            let by = self.op(Op::BitwiseAnd, uty, &[shift, c63]);
            let down = self.op(Op::ShiftRightLogical, lty, &[pair, by]);
            self.op(Op::UConvert, uty, &[down])
        } else {
            // The 32-bit funnel shift by `shift & 31`; `high` itself for 32.
            let c31 = self.u32c(31);
            let s = self.op(Op::BitwiseAnd, uty, &[shift, c31]);
            let funnel = self.funnel_right32(high, low, s);
            let whole = self.op(Op::UGreaterThan, bt, &[shift, c31]);
            self.op(Op::Select, uty, &[whole, high, funnel])
        };
        let value = self.op(Op::Select, uty, &[taken, shifted, old.id]);
        self.store(&place, &Val::new(value, Type::UINT), span);
        Some(())
    }

    /// The low half of `high:low` shifted right by `s` (a `uint` in
    /// 0..=31), in 32-bit shifts: `(low >> s) | ((high << 1) << (31 - s))`,
    /// which stays defined for `s` = 0 (a shift by 32 is not in SPIR-V).
    pub(super) fn funnel_right32(&mut self, high: Word, low: Word, s: Word) -> Word {
        let uty = self.sty(&Type::UINT);
        let c31 = self.u32c(31);
        let one = self.u32c(1);
        let rest = self.op(Op::ISub, uty, &[c31, s]);
        let down = self.op(Op::ShiftRightLogical, uty, &[low, s]);
        let up = self.op(Op::ShiftLeftLogical, uty, &[high, one]);
        let up = self.op(Op::ShiftLeftLogical, uty, &[up, rest]);
        self.op(Op::BitwiseOr, uty, &[down, up])
    }
}
