//! Unrolling of counted loops whose trip count is known only at run time.
//!
//! NVIDIA's OpenCL compiler unrolls such a loop by four; its Vulkan
//! compiler does not, and ignores SPIR-V's `Unroll` and `PartialCount`
//! loop controls there. On an H100 (driver 580) the benchmark's
//! multiply-add loop (`for (uint i = 0; i < iters; ++i)`, 16 `mad`s per
//! trip) took 81.7 µs per launch through ferrocl against 77.5 µs through
//! NVIDIA's OpenCL (device timestamps), and 75.7 µs once unrolled by four
//! in the source; with either loop control it stayed at 81.6 µs. So the compiler unrolls these
//! loops itself. A loop
//!
//! ```c
//! for (init; i < n; i += c) body     /* or i <= n */
//! ```
//!
//! whose counter `i` and bound `n` are private integer variables of one
//! type (32 or 64 bits), that the body neither assigns nor could change
//! through a pointer (the program never takes their address), and whose
//! body has no jump out of it, no `static` variable and no inner loop but
//! loops of a few constant trips (a tiled kernel's loop over its tile,
//! counted at its size times its trips), is lowered as
//!
//! ```c
//! init;
//! limit = i < n ? n - (n - i) % (U * c) : i;   /* n + 1 for i <= n */
//! for (; i < limit;) { body; i += c;  /* U times */ }
//! for (; i < n; i += c) body
//! ```
//!
//! The first loop runs `U` iterations per trip, the second one the rest;
//! it carries `DontUnroll`: NVIDIA's compiler unrolled it otherwise, and
//! the kernel above then took 80.3 µs instead of 76.0. `n - i` is taken
//! in the unsigned type of the counter's width, where it is exact
//! whenever `i < n`, so `limit` lies between `i` and `n` and the
//! iterations run are always those of the original loop, in its order.
//! The first loop's trips can be counted from its test, so NVIDIA's
//! compiler unrolls it again where it sees fit, as its OpenCL compiler
//! does with the loops that compiler unrolls by four: with the test
//! `i < n && n - i >= U * c` instead, on an H200 (driver 580) the
//! benchmark's scalar bandwidth kernel kept four loads in flight per
//! work-item where NVIDIA's OpenCL keeps sixteen (0.957-0.964 of its
//! bandwidth, 0.997-0.999 with the limit), and the fp32 multiply-add
//! kernel ran at 0.998-0.999 of NVIDIA's OpenCL against 1.052-1.054.
//! Loops of the built-in library are left to the driver.
//!
//! So is a loop whose bound is a variable that only ever holds the
//! work-group size (`uint wg = get_local_size(0); for (j = 0; j < wg;
//! ++j)`, a tiled kernel's loop over its tile), unless a factor is asked
//! for: a kernel that reads its work-group size gets a pipeline for each
//! size, so the driver sees that bound as a constant and unrolls the loop
//! itself. The benchmark's n-body kernel, whose inner loop is that one,
//! ran at 1.17 of NVIDIA's OpenCL on an H200 unrolled here and 1.31 left
//! to the driver.
//!
//! The loop over tiles of the benchmark's sgemm (`for (t = 0; t < n; t +=
//! 16)`, holding two barriers and a 16-trip loop) is unrolled twice that
//! way: on an H200 (driver 580) sgemm went from 0.995-0.996 of NVIDIA's
//! OpenCL to 0.998-1.000 (four runs; by hand four times, 0.999-1.000).
//! NVIDIA's OpenCL unrolls it four times and loads the next tile's
//! operands right after the second barrier.
//!
//! The step may also be a value the loop does not change, known only at
//! run time (`i += s` with `s` a private variable the body never assigns,
//! or `i += get_global_size(0)`, a grid-stride loop): the span is then
//! `U * s`, and where `s` is 0 or `U * s` would not fit the counter's
//! type the limit is the counter, so the loop after runs every iteration.
//! NVIDIA's OpenCL compiler leaves such a loop rolled: on an H200 the
//! benchmark's reduction (`for (i = gid; i < n4; i += get_global_size(0))
//! acc += in[i];`, about 62 trips) ran 64.4-64.5 µs a launch through it
//! and 64.5-64.7 µs through ferrocl as written, 61.9-62.0 and 62.5-62.6
//! unrolled four times in the source.
//!
//! A loop whose trip count is a small constant (`for (uint off = 1; off <
//! 256; off <<= 1)`) is left whole but carries SPIR-V's `Unroll` control,
//! which NVIDIA's Vulkan compiler follows for such loops (it unrolls them
//! completely) though it does not unroll them unasked when their body
//! holds a barrier. On an H100 (driver 580) the benchmark's prefix scan
//! block kernel, whose eight-trip loop holds three barriers, took 144.0 µs
//! per launch as written, 138.1 µs with the hint or unrolled by hand, and
//! 131.8 µs through NVIDIA's OpenCL, whose compiler unrolls it unasked.
//! The hint changes no result, so the trip count need only be estimated:
//! [`Lowerer::constant_trip_hint`] runs the counter through the condition
//! and step in 64 bits.

use super::*;
use crate::HashSet;

/// Bodies of at most this many expression nodes are unrolled four times,
/// larger ones up to [`MAX_NODES`] twice: the unrolled loop plus the
/// remainder hold five or three copies of the body.
const SMALL_NODES: usize = 160;
const MAX_NODES: usize = 400;
/// The largest constant step unrolled.
const MAX_STEP: u64 = 1 << 12;
/// SPIR-V's `DontUnroll` loop control, which the loop running the
/// iterations left over carries.
pub(super) const DONT_UNROLL: u32 = 0x2;
/// SPIR-V's `Unroll` loop control: a hint the compiler passes on where it
/// cannot follow it itself.
pub(super) const UNROLL: u32 = 0x1;
/// Loops of at most this many trips with a constant count get the
/// `Unroll` control, when the unrolled body stays within
/// [`MAX_REQUESTED_NODES`].
const MAX_HINTED_TRIPS: u64 = 32;
/// The largest unroll factor a hint gets, and the most expression nodes
/// of body copies it may make.
const MAX_REQUESTED_FACTOR: u32 = 16;
const MAX_REQUESTED_NODES: usize = 4 * MAX_NODES;
/// Loops of at most this many constant trips whose counter indexes a
/// private variable are unrolled completely here, within
/// [`MAX_REQUESTED_NODES`] of body copies.
const MAX_FULL_TRIPS: u64 = 64;

/// A loop to unroll: its counter and bound as the condition names them.
pub(super) struct Unroll<'a> {
    counter: &'a Expr,
    bound: &'a Expr,
    /// The condition is `counter <= bound`, not `counter < bound`.
    inclusive: bool,
    ty: Type,
    /// Iterations per trip of the unrolled loop.
    factor: u32,
    /// What the counter advances by per iteration.
    stride: Stride<'a>,
}

/// A loop the compiler unrolls completely: its counter, the counter's
/// type, and its value in each trip.
pub(super) struct FullUnroll<'a> {
    counter: &'a str,
    ty: Type,
    values: Vec<i64>,
}

/// A loop counter's step: a constant, or a value the loop does not
/// change (`i += get_global_size(0)`, `i += s`).
#[derive(Clone, Copy)]
enum Stride<'a> {
    Constant(u64),
    Invariant(&'a Expr),
}

/// The work-item functions whose value a loop cannot change.
const WORK_SIZES: [&str; 4] = [
    "get_global_size",
    "get_local_size",
    "get_enqueued_local_size",
    "get_num_groups",
];

impl Unroll<'_> {
    fn signed(&self) -> bool {
        self.ty.elem_scalar().is_some_and(|s| s.is_signed())
    }

    /// The counter's `<` in its type's signedness.
    fn less_than(&self) -> Op {
        if self.signed() {
            Op::SLessThan
        } else {
            Op::ULessThan
        }
    }

    /// The loop's own test: `<`, or `<=`.
    fn test(&self) -> Op {
        match (self.inclusive, self.signed()) {
            (false, _) => self.less_than(),
            (true, true) => Op::SLessThanEqual,
            (true, false) => Op::ULessThanEqual,
        }
    }
}

/// What the whole program says about names: those whose address is taken
/// somewhere (`&x`, `&x.f`, `&x[i]`), the functions it defines, and the
/// variables that only ever hold a work-group size.
#[derive(Default)]
pub(super) struct ProgramNames<'a> {
    addressed: HashSet<&'a str>,
    functions: HashSet<&'a str>,
    /// Names every declaration of which is a local variable initialized
    /// with `get_local_size(d)` or `get_enqueued_local_size(d)` (cast or
    /// not), and that nothing assigns: a pipeline is made for its kernel's
    /// work-group size, so the driver sees such a value as a constant.
    work_group_sized: HashSet<&'a str>,
}

impl<'a> ProgramNames<'a> {
    fn of(tu: &'a TranslationUnit) -> ProgramNames<'a> {
        let mut names = ProgramNames::default();
        let mut other_values = HashSet::default();
        for f in &tu.funcs {
            names.functions.insert(f.name.as_str());
            other_values.extend(f.params.iter().map(|p| p.name.as_str()));
            if let Some(body) = &f.body {
                addressed_in_stmt(body, &mut names.addressed);
                sized_in_stmt(body, &mut names.work_group_sized, &mut other_values);
            }
        }
        for g in &tu.globals {
            other_values.insert(g.name.as_str());
            if let Some(init) = &g.init {
                addressed_in_init(init, &mut names.addressed);
            }
        }
        names.work_group_sized.retain(|n| !other_values.contains(n));
        names
    }
}

/// Sorts the variables `s` declares and assigns into those declared with a
/// work-group size and those given any other value.
fn sized_in_stmt<'a>(s: &'a Stmt, sized: &mut HashSet<&'a str>, other: &mut HashSet<&'a str>) {
    let mut assigned = |e: &'a Expr| assigned_in_expr(e, other);
    for_each_expr(s, &mut assigned);
    let mut on_decl = |v: &'a VarDecl| match &v.init {
        Some(Init::Expr(e)) if !v.is_static && is_work_group_size(e) => {
            sized.insert(v.name.as_str());
        }
        _ => {
            other.insert(v.name.as_str());
        }
    };
    for_each_decl(s, &mut on_decl);
}

/// `get_local_size(d)` or `get_enqueued_local_size(d)`, maybe cast.
fn is_work_group_size(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Cast(_, inner) => is_work_group_size(inner),
        ExprKind::Call(name, args) => {
            matches!(name.as_str(), "get_local_size" | "get_enqueued_local_size") && args.len() == 1
        }
        _ => false,
    }
}

/// The names `e` assigns, increments or decrements.
fn assigned_in_expr<'a>(e: &'a Expr, out: &mut HashSet<&'a str>) {
    let target = match &e.kind {
        ExprKind::Assign(_, target, _) => Some(&**target),
        ExprKind::Unary(UnOp::PreInc | UnOp::PreDec | UnOp::PostInc | UnOp::PostDec, x) => {
            Some(&**x)
        }
        _ => None,
    };
    if let Some(ExprKind::Ident(name)) = target.map(|t| &t.kind) {
        out.insert(name.as_str());
    }
    e.any_operand(|x| {
        assigned_in_expr(x, out);
        false
    });
}

/// Calls `f` on every variable declaration in `s` and the statements
/// inside it.
pub(super) fn for_each_decl<'a>(s: &'a Stmt, f: &mut impl FnMut(&'a VarDecl)) {
    match &s.kind {
        StmtKind::Decl(vars) => vars.iter().for_each(&mut *f),
        StmtKind::Block(items) => items.iter().for_each(|s| for_each_decl(s, f)),
        StmtKind::If(_, a, b) => {
            for_each_decl(a, f);
            if let Some(b) = b {
                for_each_decl(b, f);
            }
        }
        StmtKind::While(_, b)
        | StmtKind::DoWhile(b, _)
        | StmtKind::Switch(_, b)
        | StmtKind::Case(_, b)
        | StmtKind::Label(_, b) => for_each_decl(b, f),
        StmtKind::For(init, _, _, b) => {
            if let Some(init) = init {
                for_each_decl(init, f);
            }
            for_each_decl(b, f);
        }
        StmtKind::Expr(_)
        | StmtKind::Return(_)
        | StmtKind::Break
        | StmtKind::Continue
        | StmtKind::Goto(_)
        | StmtKind::Empty => {}
    }
}

fn addressed_in_stmt<'a>(s: &'a Stmt, out: &mut HashSet<&'a str>) {
    let mut on_expr = |e: &'a Expr| addressed_in_expr(e, out);
    for_each_expr(s, &mut on_expr);
}

fn addressed_in_init<'a>(i: &'a Init, out: &mut HashSet<&'a str>) {
    match i {
        Init::Expr(e) => addressed_in_expr(e, out),
        Init::List(items, _) => items.iter().for_each(|i| addressed_in_init(i, out)),
    }
}

fn addressed_in_expr<'a>(e: &'a Expr, out: &mut HashSet<&'a str>) {
    if let ExprKind::Unary(UnOp::AddrOf, target) = &e.kind {
        let mut root = &**target;
        while let ExprKind::Member(inner, _, false) | ExprKind::Index(inner, _) = &root.kind {
            root = inner;
        }
        if let ExprKind::Ident(name) = &root.kind {
            out.insert(name.as_str());
        }
    }
    if let ExprKind::CompoundLit(_, init) = &e.kind {
        addressed_in_init(init, out);
    }
    e.any_operand(|x| {
        addressed_in_expr(x, out);
        false
    });
}

/// Calls `f` on every top-level expression of `s` and of the statements
/// inside it (declarations' initializers included).
pub(super) fn for_each_expr<'a>(s: &'a Stmt, f: &mut impl FnMut(&'a Expr)) {
    match &s.kind {
        StmtKind::Expr(e) => f(e),
        StmtKind::Decl(vars) => {
            for v in vars {
                if let Some(init) = &v.init {
                    init_exprs(init, f);
                }
            }
        }
        StmtKind::Block(items) => items.iter().for_each(|s| for_each_expr(s, f)),
        StmtKind::If(c, a, b) => {
            f(c);
            for_each_expr(a, f);
            if let Some(b) = b {
                for_each_expr(b, f);
            }
        }
        StmtKind::While(c, b) | StmtKind::DoWhile(b, c) | StmtKind::Switch(c, b) => {
            f(c);
            for_each_expr(b, f);
        }
        StmtKind::For(init, c, step, b) => {
            if let Some(init) = init {
                for_each_expr(init, f);
            }
            c.iter().chain(step).for_each(&mut *f);
            for_each_expr(b, f);
        }
        StmtKind::Return(Some(e)) => f(e),
        StmtKind::Case(_, b) | StmtKind::Label(_, b) => for_each_expr(b, f),
        StmtKind::Return(None)
        | StmtKind::Break
        | StmtKind::Continue
        | StmtKind::Goto(_)
        | StmtKind::Empty => {}
    }
}

fn init_exprs<'a>(i: &'a Init, f: &mut impl FnMut(&'a Expr)) {
    match i {
        Init::Expr(e) => f(e),
        Init::List(items, _) => items.iter().for_each(|i| init_exprs(i, f)),
    }
}

/// Whether `e` is the variable `name`.
fn names(e: &Expr, name: &str) -> bool {
    matches!(&e.kind, ExprKind::Ident(n) if n == name)
}

/// Whether `e` reads or writes the variable `name` anywhere.
fn mentions(e: &Expr, name: &str) -> bool {
    names(e, name) || e.any_operand(|x| mentions(x, name))
}

/// The variable an lvalue such as `a[i][j]`, `((uchar *)a)[i]` or
/// `s.m[i]` is part of.
fn root_variable(e: &Expr) -> Option<&str> {
    match &e.kind {
        ExprKind::Ident(name) => Some(name),
        ExprKind::Index(base, _) | ExprKind::Cast(_, base) | ExprKind::Member(base, _, _) => {
            root_variable(base)
        }
        _ => None,
    }
}

/// The step of `counter` among the operands of a comma expression (`k++,
/// p++`): the one operand that names it; the others must not.
fn counter_step<'e>(step: &'e Expr, counter: &str) -> Option<&'e Expr> {
    match &step.kind {
        ExprKind::Comma(a, b) => match (mentions(a, counter), mentions(b, counter)) {
            (true, false) => counter_step(a, counter),
            (false, true) => counter_step(b, counter),
            _ => None,
        },
        _ => Some(step),
    }
}

/// The constant step of `step` on `counter` (`++i`, `i++`, `i += c`,
/// `i = i + c`), if it is one.
fn constant_step(step: &Expr, counter: &str) -> Option<u64> {
    let is_counter = |e: &Expr| names(e, counter);
    let literal = |e: &Expr| match e.kind {
        ExprKind::IntLit(v, _) => Some(v),
        _ => None,
    };
    let c = match &step.kind {
        ExprKind::Unary(UnOp::PreInc | UnOp::PostInc, x) if is_counter(x) => 1,
        ExprKind::Assign(Some(BinOp::Add), x, v) if is_counter(x) => literal(v)?,
        ExprKind::Assign(None, x, sum) if is_counter(x) => match &sum.kind {
            ExprKind::Binary(BinOp::Add, a, b) if is_counter(a) => literal(b)?,
            ExprKind::Binary(BinOp::Add, a, b) if is_counter(b) => literal(a)?,
            _ => return None,
        },
        _ => return None,
    };
    (1..=MAX_STEP).contains(&c).then_some(c)
}

/// `counter op c` or `c op counter` with `c` constant: the operator, the
/// constant, and whether the counter is the left operand.
type CounterOp = (BinOp, ConstVal, bool);

/// The value of an expression where it is a constant where the loop is
/// lowered: an integer constant expression, maybe of `const` locals known
/// to hold one ([`Lowerer::loop_constant`]). A loop inside the body is
/// judged with the names in scope at the loop being lowered; that only
/// sizes the body.
type Constant<'c> = &'c dyn Fn(&Expr) -> Option<ConstVal>;

fn counter_op(e: &Expr, counter: &str, constant: Constant) -> Option<CounterOp> {
    let ExprKind::Binary(op, a, b) = &e.kind else {
        return None;
    };
    match (names(a, counter), names(b, counter)) {
        (true, false) => Some((*op, constant(b)?, true)),
        (false, true) => Some((*op, constant(a)?, false)),
        _ => None,
    }
}

/// The steps [`Lowerer::constant_trip_hint`] follows as a [`CounterOp`]:
/// `++`, `--`, `i op= c`, `i = i op c`, `i = c op i`.
fn step_op(step: &Expr, counter: &str, constant: Constant) -> Option<CounterOp> {
    let one = ConstVal::Int(1);
    match &step.kind {
        ExprKind::Unary(UnOp::PreInc | UnOp::PostInc, x) if names(x, counter) => {
            Some((BinOp::Add, one, true))
        }
        ExprKind::Unary(UnOp::PreDec | UnOp::PostDec, x) if names(x, counter) => {
            Some((BinOp::Sub, one, true))
        }
        ExprKind::Assign(Some(op), x, c) if names(x, counter) => Some((*op, constant(c)?, true)),
        ExprKind::Assign(None, x, e) if names(x, counter) => counter_op(e, counter, constant),
        _ => None,
    }
}

/// `(op, c, counter_first)` applied to the counter's value `v`.
fn apply((op, c, counter_first): CounterOp, v: i64) -> Option<i64> {
    let v = ConstVal::Int(v);
    let r = if counter_first {
        consteval::binary(op, v, c)?
    } else {
        consteval::binary(op, c, v)?
    };
    match r {
        ConstVal::Int(n) => Some(n),
        ConstVal::Float(_) => None,
    }
}

/// The trips of a loop whose counter of type `scalar` starts at `start`,
/// runs while `test` holds and changes by `step` each trip, when they are
/// at least two and at most [`MAX_HINTED_TRIPS`].
fn constant_trips(start: i64, scalar: Scalar, test: CounterOp, step: CounterOp) -> Option<u64> {
    let values = counter_values(start, scalar, test, step, MAX_HINTED_TRIPS)?;
    Some(values.len() as u64)
}

/// The counter's value in each of the loop's trips, when they are at
/// least two and at most `most`.
fn counter_values(
    start: i64,
    scalar: Scalar,
    test: CounterOp,
    step: CounterOp,
    most: u64,
) -> Option<Vec<i64>> {
    let mut value = consteval::wrap_to(start, scalar);
    let mut values = Vec::new();
    while apply(test, value)? != 0 {
        if values.len() as u64 == most {
            return None;
        }
        values.push(value);
        value = consteval::wrap_to(apply(step, value)?, scalar);
    }
    (values.len() >= 2).then_some(values)
}

/// The counter `init` sets and the constant it sets it to, `T i = c` or
/// `i = c`, with the declaration where it declares the counter.
fn constant_start<'s>(
    init: &'s Stmt,
    constant: Constant,
) -> Option<(&'s str, i64, Option<&'s VarDecl>)> {
    let (name, declared) = match &init.kind {
        StmtKind::Decl(vars) => match vars.as_slice() {
            [decl] => (decl.name.as_str(), Some(decl)),
            _ => return None,
        },
        StmtKind::Expr(Expr {
            kind: ExprKind::Assign(None, target, _),
            ..
        }) => match &target.kind {
            ExprKind::Ident(name) => (name.as_str(), None),
            _ => return None,
        },
        _ => return None,
    };
    Some((name, counter_start(init, name, constant)?, declared))
}

/// The constant a loop's `init` starts `counter` at: `T ..., counter = c,
/// ...` or `counter = c`.
fn counter_start(init: &Stmt, counter: &str, constant: Constant) -> Option<i64> {
    let value = match &init.kind {
        StmtKind::Decl(vars) => match vars.iter().find(|v| v.name == counter)? {
            VarDecl {
                init: Some(Init::Expr(e)),
                ..
            } => e,
            _ => return None,
        },
        StmtKind::Expr(Expr {
            kind: ExprKind::Assign(None, target, e),
            ..
        }) if names(target, counter) => e,
        _ => return None,
    };
    match constant(value)? {
        ConstVal::Int(v) => Some(v),
        ConstVal::Float(_) => None,
    }
}

/// The size of `body` in expression nodes, or `None` when it must not be
/// unrolled: it leaves the loop (`break`, `continue`, `return`, `goto`),
/// has a label, a switch, an inner loop (but, where `inner` evaluates
/// constants, a loop of a few constant trips, counted once per
/// trip), or a `static` variable (one object per declaration), declares or
/// assigns one of `fixed`, or calls a function of the program (inlined:
/// its size is not counted here).
fn body_size(
    body: &Stmt,
    fixed: &[&str],
    functions: &HashSet<&str>,
    inner: Option<Constant>,
) -> Option<usize> {
    let size = |s: &Stmt| body_size(s, fixed, functions, inner);
    match &body.kind {
        StmtKind::Expr(e) => expr_size(e, fixed, functions),
        StmtKind::Decl(vars) => {
            let mut n = 0;
            for v in vars {
                if v.is_static || fixed.contains(&v.name.as_str()) {
                    return None;
                }
                n += 1;
                if let Some(init) = &v.init {
                    n += init_size(init, fixed, functions)?;
                }
            }
            Some(n)
        }
        StmtKind::Block(items) => items.iter().try_fold(0, |n, s| Some(n + size(s)?)),
        StmtKind::If(c, a, b) => {
            let b = match b {
                Some(b) => size(b)?,
                None => 0,
            };
            Some(expr_size(c, fixed, functions)? + size(a)? + b)
        }
        StmtKind::Empty => Some(0),
        StmtKind::For(Some(init), Some(cond), Some(step), inner_body) => {
            let constant = inner?;
            let (counter, start, declared) = constant_start(init, constant)?;
            let Some(VarDecl {
                ty:
                    Type::Scalar(scalar @ (Scalar::Int | Scalar::UInt | Scalar::Long | Scalar::ULong)),
                is_static: false,
                ..
            }) = declared
            else {
                return None;
            };
            let scalar = *scalar;
            if fixed.contains(&counter) {
                return None;
            }
            let trips = constant_trips(
                start,
                scalar,
                counter_op(cond, counter, constant)?,
                step_op(step, counter, constant)?,
            )?;
            let mut with_counter = fixed.to_vec();
            with_counter.push(counter);
            let once = body_size(inner_body, &with_counter, functions, inner)?
                + expr_size(cond, fixed, functions)?
                + expr_size(step, fixed, functions)?;
            Some(once * trips as usize)
        }
        StmtKind::While(..)
        | StmtKind::DoWhile(..)
        | StmtKind::For(..)
        | StmtKind::Switch(..)
        | StmtKind::Case(..)
        | StmtKind::Label(..)
        | StmtKind::Goto(_)
        | StmtKind::Break
        | StmtKind::Continue
        | StmtKind::Return(_) => None,
    }
}

fn init_size(i: &Init, fixed: &[&str], functions: &HashSet<&str>) -> Option<usize> {
    match i {
        Init::Expr(e) => expr_size(e, fixed, functions),
        Init::List(items, _) => items
            .iter()
            .try_fold(0, |n, i| Some(n + init_size(i, fixed, functions)?)),
    }
}

fn expr_size(e: &Expr, fixed: &[&str], functions: &HashSet<&str>) -> Option<usize> {
    let names_fixed =
        |x: &Expr| matches!(&x.kind, ExprKind::Ident(n) if fixed.contains(&n.as_str()));
    match &e.kind {
        ExprKind::Assign(_, target, _) if names_fixed(target) => return None,
        ExprKind::Unary(UnOp::PreInc | UnOp::PreDec | UnOp::PostInc | UnOp::PostDec, x)
            if names_fixed(x) =>
        {
            return None
        }
        ExprKind::Call(name, _) if functions.contains(name.as_str()) => return None,
        _ => {}
    }
    let mut n = 1;
    if let ExprKind::CompoundLit(_, init) = &e.kind {
        n += init_size(init, fixed, functions)?;
    }
    let mut ok = true;
    e.any_operand(|x| {
        match expr_size(x, fixed, functions) {
            Some(m) => n += m,
            None => ok = false,
        }
        !ok
    });
    ok.then_some(n)
}

impl<'a> Lowerer<'a> {
    /// The plan for unrolling `for (...; cond; step) body`, if it is a loop
    /// of the form the module documentation describes.
    pub(super) fn unroll_plan(
        &self,
        cond: Option<&'a Expr>,
        step: Option<&'a Expr>,
        body: &'a Stmt,
        hint: Option<LoopHint>,
    ) -> Option<Unroll<'a>> {
        if self.in_library > 0 || self.dead > 0 || !self.f.is_open() {
            return None;
        }
        let cond = cond?;
        let (counter, bound, inclusive) = match &cond.kind {
            ExprKind::Binary(BinOp::Lt, a, b) => (&**a, &**b, false),
            ExprKind::Binary(BinOp::Gt, a, b) => (&**b, &**a, false),
            ExprKind::Binary(BinOp::Le, a, b) => (&**a, &**b, true),
            ExprKind::Binary(BinOp::Ge, a, b) => (&**b, &**a, true),
            _ => return None,
        };
        let (ExprKind::Ident(i), ExprKind::Ident(n)) = (&counter.kind, &bound.kind) else {
            return None;
        };
        if i == n {
            return None;
        }
        // A bound known to be a constant makes a loop of constant trips,
        // which is left to the driver as one bounded by a literal is.
        let constant: Constant = &|e| self.loop_constant(e);
        if constant(bound).is_some() {
            return None;
        }
        let ty = self.unrollable_variable(i)?;
        if self.unrollable_variable(n)? != ty {
            return None;
        }
        let stride = match constant_step(step?, i) {
            Some(c) => Stride::Constant(c),
            None => Stride::Invariant(self.invariant_step(step?, i, n)?),
        };
        // `i <= n` with a step known only at run time: the limit's bound
        // `n + 1` may wrap, which only constant steps are shown to survive.
        if inclusive && matches!(stride, Stride::Invariant(_)) {
            return None;
        }
        // The step's variable, if any, is fixed like the counter and bound.
        let step_name = match stride {
            Stride::Invariant(Expr {
                kind: ExprKind::Ident(name),
                ..
            }) => Some(name.as_str()),
            _ => None,
        };
        // Unless a factor is asked for, a loop to a work-group size is
        // left to the driver, which knows that bound (the module
        // documentation says why).
        let asked = matches!(hint, Some(LoopHint::Count(_)));
        if !asked && self.program_names().work_group_sized.contains(n.as_str()) {
            return None;
        }
        let functions = &self.program_names().functions;
        let fixed: Vec<&str> = [Some(i.as_str()), Some(n.as_str()), step_name]
            .into_iter()
            .flatten()
            .collect();
        let nodes = body_size(body, &fixed, functions, Some(constant))?;
        let factor = match (hint, nodes) {
            (Some(LoopHint::Count(asked)), _) => {
                let factor = asked.min(MAX_REQUESTED_FACTOR);
                if nodes * factor as usize > MAX_REQUESTED_NODES {
                    return None;
                }
                factor
            }
            (_, 0..=SMALL_NODES) => 4,
            (_, _) if nodes <= MAX_NODES => 2,
            _ => return None,
        };
        Some(Unroll {
            counter,
            bound,
            inclusive,
            ty,
            factor,
            stride,
        })
    }

    /// The value of `i += e` or `i = i + e` when `e` is one the loop
    /// cannot change: a private integer variable other than the counter
    /// and bound whose address is never taken (the body is then checked
    /// not to assign it), or a work-size function of a constant
    /// dimension, maybe cast.
    fn invariant_step(&self, step: &'a Expr, counter: &str, bound: &str) -> Option<&'a Expr> {
        let amount = match &step.kind {
            ExprKind::Assign(Some(BinOp::Add), x, v) if names(x, counter) => &**v,
            ExprKind::Assign(None, x, sum) if names(x, counter) => match &sum.kind {
                ExprKind::Binary(BinOp::Add, a, b) if names(a, counter) => &**b,
                ExprKind::Binary(BinOp::Add, a, b) if names(b, counter) => &**a,
                _ => return None,
            },
            _ => return None,
        };
        let mut inner = amount;
        while let ExprKind::Cast(_, x) = &inner.kind {
            inner = x;
        }
        let invariant = match &inner.kind {
            ExprKind::Ident(name) => {
                name != counter
                    && name != bound
                    && self
                        .unrollable_variable(name)
                        .is_some_and(|t| t.elem_scalar().is_some())
            }
            ExprKind::Call(name, args) => {
                WORK_SIZES.contains(&name.as_str())
                    && !self.program_names().functions.contains(name.as_str())
                    && matches!(
                        args.as_slice(),
                        [Expr {
                            kind: ExprKind::IntLit(..),
                            ..
                        }]
                    )
            }
            _ => false,
        };
        invariant.then_some(amount)
    }

    /// Whether `for (init; cond; step) body` runs a small constant number
    /// of trips (at least two, at most [`MAX_HINTED_TRIPS`]) of a body
    /// small enough to copy that often: the counter starts at a constant,
    /// the condition compares it with a constant, the step changes it by a
    /// constant (`++`, `--`, `+=`, `-=`, `*=`, `<<=`, `>>=`, `i = i op c`)
    /// and the body holds no loop and never assigns it. Call it once
    /// `init` is lowered, so that the counter is in scope.
    pub(super) fn constant_trip_hint(
        &self,
        init: Option<&'a Stmt>,
        cond: Option<&'a Expr>,
        step: Option<&'a Expr>,
        body: &'a Stmt,
    ) -> bool {
        if self.in_library > 0 || self.dead > 0 {
            return false;
        }
        let (Some(init), Some(cond), Some(step)) = (init, cond, step) else {
            return false;
        };
        let constant: Constant = &|e| self.loop_constant(e);
        let Some((counter, start, _)) = constant_start(init, constant) else {
            return false;
        };
        let Some(Type::Scalar(scalar)) = self.unrollable_variable(counter) else {
            return false;
        };
        let Some(nodes) = body_size(body, &[counter], &self.program_names().functions, None) else {
            return false;
        };
        let (Some(test), Some(step)) = (
            counter_op(cond, counter, constant),
            step_op(step, counter, constant),
        ) else {
            return false;
        };
        constant_trips(start, scalar, test, step)
            .is_some_and(|trips| nodes * trips as usize <= MAX_REQUESTED_NODES)
    }

    /// The counter of `for (init; cond; step) body` and its value in each
    /// trip, when the compiler unrolls the loop completely: the counter
    /// (the variable the condition compares with a constant) starts at a
    /// constant, changes by a constant step (maybe beside other steps,
    /// `k++, p++`) and is not assigned in the body; the loop runs two to
    /// [`MAX_FULL_TRIPS`] trips of a body [`body_size`] accepts, whose
    /// copies stay within [`MAX_REQUESTED_NODES`]; and the body indexes a
    /// private variable with an expression of the counter. Unrolled by the
    /// driver instead, such a loop leaves the variable in local memory:
    /// NVIDIA's Vulkan compiler places arrays before it unrolls, and keeps
    /// in registers only those whose indices are constants in the SPIR-V
    /// (on an H200 a 64-trip loop reading `st[k >> 3]` ran 59.0 ms a
    /// launch, 54.6 with the copies written out; NVIDIA's OpenCL 45.0
    /// either way). Call it once `init` is lowered.
    pub(super) fn full_unroll_plan(
        &self,
        init: Option<&'a Stmt>,
        cond: Option<&'a Expr>,
        step: Option<&'a Expr>,
        body: &'a Stmt,
    ) -> Option<FullUnroll<'a>> {
        if self.in_library > 0 || self.dead > 0 || !self.f.is_open() {
            return None;
        }
        let (init, cond, step) = (init?, cond?, step?);
        let constant: Constant = &|e| self.loop_constant(e);
        let ExprKind::Binary(_, a, b) = &cond.kind else {
            return None;
        };
        let counter = [a, b].into_iter().find_map(|side| match &side.kind {
            ExprKind::Ident(n) if counter_op(cond, n, constant).is_some() => Some(n.as_str()),
            _ => None,
        })?;
        let start = counter_start(init, counter, constant)?;
        let ty = self.unrollable_variable(counter)?;
        let scalar = ty.scalar()?;
        let test = counter_op(cond, counter, constant)?;
        let advance = step_op(counter_step(step, counter)?, counter, constant)?;
        let values = counter_values(start, scalar, test, advance, MAX_FULL_TRIPS)?;
        let trips = values.len();
        let functions = &self.program_names().functions;
        let nodes = body_size(body, &[counter], functions, Some(constant))?
            + expr_size(step, &[], functions)?;
        if nodes.saturating_mul(trips) > MAX_REQUESTED_NODES {
            return None;
        }
        let mut indexed = false;
        for_each_expr(body, &mut |e| indexed |= self.indexes_private(e, counter));
        indexed.then_some(FullUnroll {
            counter,
            ty,
            values,
        })
    }

    /// Whether `e` subscripts a private variable of the function with an
    /// expression of `counter`.
    fn indexes_private(&self, e: &Expr, counter: &str) -> bool {
        if let ExprKind::Index(base, index) = &e.kind {
            let private = root_variable(base)
                .and_then(|name| self.lookup(name))
                .is_some_and(|sym| {
                    sym.sc == StorageClass::Function
                        && (matches!(sym.ty, Type::Array(..)) || sym.base.is_some())
                });
            if private && mentions(index, counter) {
                return true;
            }
        }
        e.any_operand(|x| self.indexes_private(x, counter))
    }

    /// Lowers a copy of `body` for each trip of `plan`, each followed by
    /// `step`; the loop's `init` is already lowered. The body reads the
    /// counter as the constant of its trip (the steps still store it, for
    /// what follows the loop).
    pub(super) fn unrolled_completely(
        &mut self,
        plan: FullUnroll<'a>,
        step: &'a Expr,
        body: &'a Stmt,
    ) {
        let mut keep = None;
        for value in plan.values {
            self.unrolled_counters
                .push((plan.counter, plan.ty.clone(), value));
            self.scoped(body);
            self.unrolled_counters.pop();
            self.expr(step);
            // The other copies would repeat the first one's diagnostics.
            keep.get_or_insert(self.diags.list.len());
        }
        if let Some(keep) = keep {
            self.diags.list.truncate(keep);
        }
    }

    fn program_names(&self) -> &ProgramNames<'a> {
        self.program_names.get_or_init(|| ProgramNames::of(self.tu))
    }

    /// [`Constant`]: `e`'s value where it is an integer constant
    /// expression, maybe of `const` locals known to hold a constant.
    fn loop_constant(&self, e: &Expr) -> Option<ConstVal> {
        consteval::eval_in(e, self.types, &|name| {
            let v = self.constant_local(name)?;
            let (_, bits) = self.m.int_constant(v.id)?;
            Some(ConstVal::Int(consteval::wrap_to(
                bits as i64,
                v.ty.scalar()?,
            )))
        })
    }

    /// Whether the program takes the address of a variable named `name`
    /// anywhere (`&x`, `&x.f`, `&x[i]`).
    pub(super) fn is_addressed(&self, name: &str) -> bool {
        self.program_names().addressed.contains(name)
    }

    /// The type of the variable `name` if it may be a counter or bound: a
    /// 32- or 64-bit integer in a `Function` variable whose address the
    /// program never takes.
    fn unrollable_variable(&self, name: &str) -> Option<Type> {
        if self.program_names().addressed.contains(name) {
            return None;
        }
        let sym = self.lookup(name)?;
        if sym.sc != StorageClass::Function || sym.pool.is_some() || sym.base.is_some() {
            return None;
        }
        match sym.ty {
            Type::Scalar(Scalar::Int | Scalar::UInt | Scalar::Long | Scalar::ULong) => Some(sym.ty),
            _ => None,
        }
    }

    /// Lowers the unrolled loop of `plan`; the caller lowers the original
    /// loop after it, which runs the iterations left. Returns how many
    /// diagnostics to keep once that is done: those of the first copy of
    /// the body; the other copies would repeat them.
    pub(super) fn unrolled_loop(
        &mut self,
        plan: &Unroll<'a>,
        step: &'a Expr,
        body: &'a Stmt,
    ) -> usize {
        let limit = self.unrolled_limit(plan);
        let l = self.enter_checked_loop(|s| {
            let below = limit.and_then(|limit| {
                let counter = s.expr(plan.counter)?;
                Some(s.compare(plan.less_than(), &plan.ty, counter.id, limit))
            });
            below.unwrap_or_else(|| s.m.constant(ConstKey::False))
        });
        self.breakables.push(Breakable {
            merge: l.merge,
            cont: Some(l.cont),
            kind: Construct::Loop,
        });
        let mut keep = None;
        for _ in 0..plan.factor {
            self.scoped(body);
            self.expr(step);
            keep.get_or_insert(self.diags.list.len());
        }
        self.breakables.pop();
        self.branch(l.cont);
        self.f.begin(l.cont);
        self.term(Op::Branch, &[l.header]);
        self.f.begin(l.merge);
        keep.unwrap_or(self.diags.list.len())
    }

    /// Where the unrolled loop stops, computed once before it: `end -
    /// (end - counter) % span` if the loop runs at all, else `counter`,
    /// where `end` is the bound, or for `counter <= bound` the bound plus
    /// one. The unrolled loop is then `for (; counter < limit; counter +=
    /// span)`, a loop whose trips the driver can count, and NVIDIA's
    /// compiler unrolls it further as its OpenCL compiler does the loops
    /// it unrolls by four. `end - counter` is exact in the unsigned type
    /// of the same width whenever the loop runs, so `limit` lies between
    /// the two and the iterations left run in the loop after this one.
    /// Where the bound of `counter <= bound` is its type's largest value,
    /// `end` wraps, and so does `limit` when it would be one past the
    /// bound: the unrolled loop then runs no trip, and the loop after it
    /// runs them all.
    fn unrolled_limit(&mut self, plan: &Unroll<'a>) -> R<Word> {
        let counter = self.expr(plan.counter)?.id;
        let bound = self.expr(plan.bound)?.id;
        let entered = self.compare(plan.test(), &plan.ty, counter, bound);
        let ty = self.sty(&plan.ty);
        let end = if plan.inclusive {
            let one = self.constant(&plan.ty, ConstVal::Int(1));
            self.op(Op::IAdd, ty, &[bound, one])
        } else {
            bound
        };
        let left = self.op(Op::ISub, ty, &[end, counter]);
        let span = match plan.stride {
            Stride::Constant(step) => step * u64::from(plan.factor),
            Stride::Invariant(amount) => {
                return self.invariant_limit(plan, amount, entered, end, left, counter);
            }
        };
        let rem = if span.is_power_of_two() {
            let mask = self.constant(&plan.ty, ConstVal::Int(span as i64 - 1));
            self.op(Op::BitwiseAnd, ty, &[left, mask])
        } else {
            let unsigned = plan.ty.with_elem(plan.ty.elem_scalar()?.to_unsigned());
            let uty = self.sty(&unsigned);
            let span = self.constant(&unsigned, ConstVal::Int(span as i64));
            let left = self.op(Op::Bitcast, uty, &[left]);
            let rem = self.op(Op::UMod, uty, &[left, span]);
            self.op(Op::Bitcast, ty, &[rem])
        };
        let limit = self.op(Op::ISub, ty, &[end, rem]);
        Some(self.op(Op::Select, ty, &[entered, limit, counter]))
    }

    /// [`Lowerer::unrolled_limit`] for a step `amount` known at run time:
    /// the span is `factor` times the step converted to the counter's
    /// unsigned type. Where the step is 0, or the span would not fit the
    /// counter's type (or be negative, for a signed counter), the limit
    /// is the counter: the unrolled loop runs no trip and the loop after
    /// it runs them all, as written.
    fn invariant_limit(
        &mut self,
        plan: &Unroll<'a>,
        amount: &'a Expr,
        entered: Word,
        end: Word,
        left: Word,
        counter: Word,
    ) -> R<Word> {
        let scalar = plan.ty.elem_scalar()?;
        let unsigned = plan.ty.with_elem(scalar.to_unsigned());
        let (ty, uty) = (self.sty(&plan.ty), self.sty(&unsigned));
        let step = self.expr(amount)?;
        let step = self.convert(step, &unsigned, amount.span, true)?.id;
        let largest = if scalar.is_signed() {
            u64::MAX >> (65 - scalar.bits())
        } else {
            u64::MAX >> (64 - scalar.bits())
        } / u64::from(plan.factor);
        let largest = self.constant(&unsigned, ConstVal::Int(largest as i64));
        let zero = self.constant(&unsigned, ConstVal::Int(0));
        let one = self.constant(&unsigned, ConstVal::Int(1));
        let factor = self.constant(&unsigned, ConstVal::Int(i64::from(plan.factor)));
        let nonzero = self.compare(Op::ULessThan, &unsigned, zero, step);
        let fits = self.compare(Op::ULessThanEqual, &unsigned, step, largest);
        let bool_ty = self.m.ty(TypeKey::Bool);
        let usable = self.op(Op::LogicalAnd, bool_ty, &[nonzero, fits]);
        let span = self.op(Op::IMul, uty, &[step, factor]);
        // Never a division by zero, even where the limit is not used.
        let divisor = self.op(Op::Select, uty, &[usable, span, one]);
        let left = self.op(Op::Bitcast, uty, &[left]);
        let rem = self.op(Op::UMod, uty, &[left, divisor]);
        let rem = self.op(Op::Bitcast, ty, &[rem]);
        let limit = self.op(Op::ISub, ty, &[end, rem]);
        let run = self.op(Op::LogicalAnd, bool_ty, &[entered, usable]);
        Some(self.op(Op::Select, ty, &[run, limit, counter]))
    }
}
