//! Kernels that observe nothing of their work-groups.
//!
//! A kernel that never asks for its local id, local size, group id or
//! group count, never synchronizes or fences, declares no `__local` memory,
//! uses no sub-group or work-group function and no atomic scoped to a
//! work-group or sub-group computes the same whatever work-groups its
//! NDRange is cut into. Such a kernel is marked
//! [`crate::KernelInfo::ignores_work_groups`], and the runtime then runs
//! every launch of it with work-groups of one size of its own choosing
//! (dimension 0 rounded up to whole groups): one pipeline serves every
//! `local_work_size` the application passes, where each would otherwise be
//! its own driver compile (hashcat's autotune tries seven, and NVIDIA's
//! compiler takes 20 s for each of sha512crypt's `m01800_init`).
//! Work-items past the global size return at once ([`Lowerer::return_past_global_size`]).
//!
//! The walk is by name over the kernel and every function it calls,
//! those of the built-in library included, and errs towards "observes".

use super::*;

/// Built-ins besides [`QUERIES`] whose result or effect depends on the
/// work-group or sub-group a work-item is in.
const OBSERVING: &[&str] = &[
    "barrier",
    "mem_fence",
    "read_mem_fence",
    "write_mem_fence",
    "atomic_work_item_fence",
    "get_max_sub_group_size",
    "get_num_sub_groups",
    "get_enqueued_num_sub_groups",
    "async_work_group_copy",
    "async_work_group_strided_copy",
    "wait_group_events",
    "clock_read_work_group",
    "clock_read_hilo_work_group",
    "clock_read_sub_group",
    "clock_read_hilo_sub_group",
    "enqueue_kernel",
];

/// Prefixes of such built-ins (`work_group_reduce_add`,
/// `sub_group_broadcast`, `get_sub_group_local_id`, ...).
const OBSERVING_PREFIXES: &[&str] = &[
    "work_group_",
    "sub_group_",
    "get_sub_group_",
    "intel_sub_group",
];

/// Queries of the work-group without side effects. A variable that only
/// holds one and is never read (hashcat's `const u64 lid =
/// get_local_id (0);` in kernels that do not use it) observes nothing;
/// any other call of one does.
const QUERIES: &[&str] = &[
    "get_local_id",
    "get_local_size",
    "get_enqueued_local_size",
    "get_local_linear_id",
    "get_group_id",
    "get_num_groups",
];

/// Names whose mention ties an operation to a work-group or sub-group.
const SCOPES: &[&str] = &["memory_scope_work_group", "memory_scope_sub_group"];

fn observing_call(name: &str) -> bool {
    QUERIES.contains(&name)
        || OBSERVING.contains(&name)
        || OBSERVING_PREFIXES.iter().any(|p| name.starts_with(p))
}

/// Whether kernel `f` observes nothing of its work-groups (module docs);
/// `funcs` holds every function a call may name.
pub(super) fn ignores_work_groups(f: &FuncDef, funcs: &HashMap<&str, &FuncDef>) -> bool {
    let local_param = f
        .params
        .iter()
        .any(|p| matches!(&p.ty, Type::Pointer(_, AddrSpace::Local, _)));
    if local_param {
        return false;
    }
    let mut seen = vec![f.name.as_str()];
    !function_observes(f, funcs, &mut seen)
}

/// Whether `f`, or a function it calls that is not in `seen` yet, observes
/// its work-group. A recursive call (diagnosed elsewhere) is walked once.
fn function_observes<'a>(
    f: &'a FuncDef,
    funcs: &HashMap<&str, &'a FuncDef>,
    seen: &mut Vec<&'a str>,
) -> bool {
    let Some(body) = &f.body else {
        return false;
    };
    let mut walk = Walk {
        funcs,
        seen,
        body,
        observes: false,
    };
    walk.stmt(body);
    walk.observes
}

struct Walk<'a, 'w> {
    funcs: &'w HashMap<&'w str, &'a FuncDef>,
    seen: &'w mut Vec<&'a str>,
    /// The body of the function walked.
    body: &'a Stmt,
    observes: bool,
}

impl<'a> Walk<'a, '_> {
    fn stmt(&mut self, s: &'a Stmt) {
        if self.observes {
            return;
        }
        match &s.kind {
            StmtKind::Expr(e) | StmtKind::Return(Some(e)) => self.expr(e),
            StmtKind::Decl(vars) => {
                for v in vars {
                    if v.space == AddrSpace::Local {
                        self.observes = true;
                    }
                    match &v.init {
                        Some(i) if !self.unread_query(&v.name, i) => self.init(i),
                        _ => {}
                    }
                }
            }
            StmtKind::Block(items) => items.iter().for_each(|x| self.stmt(x)),
            StmtKind::If(c, a, b) => {
                self.expr(c);
                self.stmt(a);
                if let Some(b) = b {
                    self.stmt(b);
                }
            }
            StmtKind::While(c, b) | StmtKind::DoWhile(b, c) | StmtKind::Switch(c, b) => {
                self.expr(c);
                self.stmt(b);
            }
            StmtKind::For(i, c, step, b) => {
                if let Some(i) = i {
                    self.stmt(i);
                }
                for e in [c, step].into_iter().flatten() {
                    self.expr(e);
                }
                self.stmt(b);
            }
            StmtKind::Case(_, b) | StmtKind::Label(_, b) => self.stmt(b),
            _ => {}
        }
    }

    /// Whether `init` is a work-group query of constant arguments and
    /// the variable `name` it initializes is never mentioned in the
    /// function (any variable of that name, in any scope).
    fn unread_query(&self, name: &str, init: &Init) -> bool {
        let Init::Expr(Expr {
            kind: ExprKind::Call(callee, args),
            ..
        }) = init
        else {
            return false;
        };
        let constant = |a: &Expr| matches!(a.kind, ExprKind::IntLit(..));
        if !QUERIES.contains(&callee.as_str()) || !args.iter().all(constant) {
            return false;
        }
        fn mentions(e: &Expr, name: &str) -> bool {
            matches!(&e.kind, ExprKind::Ident(n) if n == name)
                || matches!(&e.kind, ExprKind::CompoundLit(..))
                || e.any_operand(|a| mentions(a, name))
        }
        let mut mentioned = false;
        unroll::for_each_expr(self.body, &mut |e| mentioned |= mentions(e, name));
        !mentioned
    }

    fn init(&mut self, i: &'a Init) {
        match i {
            Init::Expr(e) => self.expr(e),
            Init::List(items, _) => items.iter().for_each(|i| self.init(i)),
        }
    }

    fn expr(&mut self, e: &'a Expr) {
        if self.observes {
            return;
        }
        match &e.kind {
            ExprKind::Call(name, _) => {
                if observing_call(name) {
                    self.observes = true;
                    return;
                }
                if let Some(&g) = self.funcs.get(name.as_str()) {
                    if !self.seen.contains(&g.name.as_str()) {
                        self.seen.push(g.name.as_str());
                        if function_observes(g, self.funcs, self.seen) {
                            self.observes = true;
                            return;
                        }
                    }
                }
            }
            ExprKind::Ident(name) if SCOPES.contains(&name.as_str()) => {
                self.observes = true;
                return;
            }
            ExprKind::CompoundLit(_, i) => self.init(i),
            _ => {}
        }
        e.any_operand(|a| {
            self.expr(a);
            false
        });
    }
}

impl<'a> Lowerer<'a> {
    /// For a kernel that ignores its work-groups: work-items past the
    /// global size in dimension 0, which the runtime's rounding up to whole
    /// work-groups adds, return before the body.
    pub(super) fn return_past_global_size(&mut self) {
        let ul = self.m.ty(TypeKey::Int(64));
        let gid = self.global_invocation_id();
        let x = self.op(Op::CompositeExtract, ul, &[gid, 0]);
        let size = self.header_u64x3(crate::HEADER_GLOBAL_SIZE);
        let gx = self.op(Op::CompositeExtract, ul, &[size, 0]);
        let bt = self.bool_ty(1);
        let past = self.op(Op::UGreaterThanEqual, bt, &[x, gx]);
        let leave = self.label();
        let body = self.label();
        self.op_void(Op::SelectionMerge, &[body, 0]);
        self.term(Op::BranchConditional, &[past, leave, body]);
        self.f.begin(leave);
        self.term(Op::Return, &[]);
        self.f.begin(body);
    }
}
