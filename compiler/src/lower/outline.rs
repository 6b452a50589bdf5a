//! Calls that stay calls: large functions a kernel would otherwise inline
//! several times become SPIR-V functions of their own.
//!
//! Inlining every call makes a kernel as large as its call tree spelled
//! out. hashcat's pure headers call big functions (`sha1_update_64`, the
//! 64-case byte shifters) from many places: inlined, `m22000_init` was
//! 515,000 lines of SPIR-V and NVIDIA's driver took 7 to 53 s per
//! pipeline. So a function of the program whose body, with what it
//! inlines, has at least `TargetCaps::outline_min_nodes` expression nodes
//! and that the kernel would inline at least twice is emitted once per
//! kernel and called with `OpFunctionCall`.
//!
//! Each kernel gets its own copies. Where the kernel has a private word
//! pool holding pointer targets, the function's addressed variables keep
//! fixed slots of it (no function is active twice at once, OpenCL C
//! having no recursion), so a private pointer stays a byte offset into
//! one pool, which the kernel then keeps in a `Private` variable that
//! every function of it reaches. Elsewhere a `__private` pointer names
//! its variable at compile time: the function takes the variable itself
//! (SPIR-V's logical addressing lets a call pass a memory object
//! declaration), the target's dynamic indices and the element index, one
//! copy per shape of target (`OutlinedParam::Pointer`). A call whose
//! pointer argument has a target the function cannot be handed (constant
//! data, a `__local` variable) is inlined as before.

use super::unroll::for_each_expr;
use super::*;

/// SPIR-V's `DontInline` function control. Without it NVIDIA's Vulkan
/// compiler inlines every outlined call again, and a kernel that calls a
/// large function from many places takes it long to compile: hashcat's
/// sha512crypt `m01800_init` holds ten copies of `orig_sha512_update`
/// (5,724 nodes with what it inlines) and four of `orig_sha512_final`; on
/// an H200 (driver 580) its pipeline took 20.7 s to create with every
/// call inlined and 0.53 s with them kept, and hashcat's first start went
/// from 34.2 to 11.4 s (NVIDIA's OpenCL: 12.5 s on an H100). A call is
/// slower than inlined code, though: kept calls made WPA's `m22000_loop`
/// (two copies of `hmac_sha1_run_V`, 10,672 nodes) run 107 instead of
/// 65 ms a launch, and md5crypt's `m00500_loop` (three of `memcat16`, 531
/// nodes) 18.7 instead of 17.2 ms. So only functions whose copies in one
/// kernel would add up to [`KEEP_CALLS_NODES`] keep their calls.
const DONT_INLINE: u32 = 0x2;

/// Expression nodes of a function's inlined copies in one kernel from
/// which its calls stay calls: between the 21,344 of the hot loop above
/// and the 45,656 of `orig_sha512_final` in `m01800_init`.
const KEEP_CALLS_NODES: usize = 32_000;

/// The default of `TargetCaps::outline_min_nodes`: functions smaller than
/// this, counting the calls they inline, are always inlined.
pub const MIN_NODES: usize = 400;

/// The calls between the program's own functions (the built-in library's
/// are left out) and each function's size with its calls inlined.
#[derive(Default)]
pub(super) struct CallGraph<'a> {
    /// By function: the program's functions it calls, with the number of
    /// call sites.
    calls: HashMap<&'a str, Vec<(&'a str, usize)>>,
    /// Expression nodes of each function with every call inlined.
    sizes: HashMap<&'a str, usize>,
}

impl<'a> CallGraph<'a> {
    pub(super) fn of(tu: &'a TranslationUnit) -> CallGraph<'a> {
        let defined: HashSet<&str> = tu
            .funcs
            .iter()
            .filter(|f| f.body.is_some())
            .map(|f| f.name.as_str())
            .collect();
        let mut graph = CallGraph::default();
        let mut own = HashMap::default();
        for f in &tu.funcs {
            let Some(body) = &f.body else { continue };
            let mut census = Census {
                defined: &defined,
                nodes: 0,
                sites: Vec::new(),
            };
            for_each_expr(body, &mut |e| census.expr(e));
            own.insert(f.name.as_str(), census.nodes);
            graph.calls.insert(f.name.as_str(), census.sites);
        }
        // Callees finish before their callers; a callee still open is a
        // recursive call, diagnosed when lowered, and counts nothing here.
        let roots: Vec<&str> = graph.calls.keys().copied().collect();
        for f in graph.post_order(&roots) {
            let inlined = graph.calls[f].iter().fold(0usize, |n, &(g, sites)| {
                let each = graph.sizes.get(g).copied().unwrap_or(0);
                n.saturating_add(each.saturating_mul(sites))
            });
            graph.sizes.insert(f, own[f] + inlined);
        }
        graph
    }

    /// The functions `kernel` calls as SPIR-V functions, with their
    /// function control: those `eligible` admits that are large enough
    /// (`min_nodes`) and would be inlined at least twice, counting the
    /// copies of their callers; with `min_nodes` 0, every eligible
    /// function the kernel reaches. Those whose copies would add up to
    /// [`KEEP_CALLS_NODES`] carry `DontInline`.
    pub(super) fn outlined(
        &self,
        kernel: &'a str,
        min_nodes: usize,
        eligible: impl Fn(&str) -> bool,
    ) -> HashMap<&'a str, u32> {
        let mut order = self.post_order(&[kernel]);
        // Callers before callees.
        order.reverse();
        let mut copies: HashMap<&str, usize> = HashMap::from_iter([(kernel, 1)]);
        let mut out = HashMap::default();
        for f in order {
            let n = copies.get(f).copied().unwrap_or(0);
            let large = match min_nodes {
                0 => n >= 1,
                _ => n >= 2 && self.sizes.get(f).is_some_and(|&s| s >= min_nodes),
            };
            let outline = f != kernel && large && eligible(f);
            if outline {
                let size = self.sizes.get(f).copied().unwrap_or(0);
                let control = if n.saturating_mul(size) >= KEEP_CALLS_NODES {
                    DONT_INLINE
                } else {
                    0
                };
                out.insert(f, control);
            }
            let each = if outline { 1 } else { n };
            for &(g, sites) in self.calls.get(f).into_iter().flatten() {
                let c = copies.entry(g).or_default();
                *c = c.saturating_add(each.saturating_mul(sites));
            }
        }
        out
    }

    /// `root` and the program's functions it calls, directly or not.
    pub(super) fn reached(&self, root: &str) -> Vec<&'a str> {
        match self.calls.get_key_value(root) {
            Some((&root, _)) => self.post_order(&[root]),
            None => Vec::new(),
        }
    }

    /// The functions reachable from `roots`, each after everything it
    /// calls (but for recursive calls); iterative, as call chains may be
    /// deep.
    fn post_order(&self, roots: &[&'a str]) -> Vec<&'a str> {
        let mut seen = HashSet::default();
        let mut out = Vec::new();
        for &root in roots {
            if !seen.insert(root) {
                continue;
            }
            let mut stack = vec![(root, 0)];
            while let Some((f, next)) = stack.pop() {
                let callees = self.calls.get(f).map_or(&[][..], |c| &c[..]);
                match callees.get(next) {
                    Some(&(g, _)) => {
                        stack.push((f, next + 1));
                        if seen.insert(g) {
                            stack.push((g, 0));
                        }
                    }
                    None => out.push(f),
                }
            }
        }
        out
    }
}

/// A function body's expression nodes and its calls of the program's
/// functions (`defined`), by callee with the number of call sites.
struct Census<'a, 'd> {
    defined: &'d HashSet<&'d str>,
    nodes: usize,
    sites: Vec<(&'a str, usize)>,
}

impl<'a> Census<'a, '_> {
    fn expr(&mut self, e: &'a Expr) {
        self.nodes += 1;
        match &e.kind {
            ExprKind::Call(name, _) if self.defined.contains(name.as_str()) => {
                match self.sites.iter_mut().find(|(g, _)| *g == name) {
                    Some((_, n)) => *n += 1,
                    None => self.sites.push((name.as_str(), 1)),
                }
            }
            ExprKind::CompoundLit(_, init) => self.init(init),
            _ => {}
        }
        e.any_operand(|x| {
            self.expr(x);
            false
        });
    }

    fn init(&mut self, i: &'a Init) {
        match i {
            Init::Expr(e) => self.expr(e),
            Init::List(items, _) => items.iter().for_each(|i| self.init(i)),
        }
    }
}

/// A parameter of an outlined function, as its callers' arguments make it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) enum OutlinedParam {
    /// A value of this type (with pools, `__local` and `__private`
    /// pointers are byte offsets).
    Value(Type),
    /// A `__local` or `__private` pointer of type `ty` with a compile-time
    /// target: the SPIR-V parameters are the target variable (of pointer
    /// type `root_ty`), a `uint` for each dynamic index of the target's
    /// path (the `None` entries; constant ones are fixed in the function)
    /// and the element index.
    Pointer {
        ty: Type,
        root_ty: Word,
        sc: StorageClass,
        path: Vec<Option<Word>>,
        elem: Type,
        is_array: bool,
    },
}

impl<'a> Lowerer<'a> {
    /// Whether `name` may be a SPIR-V function of its own, judged by its
    /// declaration: a function of the program (not a kernel, not the
    /// built-in library's) that takes no image, sampler or event and
    /// returns no `__local` or `__private` pointer.
    pub(super) fn may_outline(&self, name: &str) -> bool {
        let Some(f) = self.funcs.get(name) else {
            return false;
        };
        let local_pointer = |t: &Type| {
            matches!(
                t,
                Type::Pointer(_, AddrSpace::Private | AddrSpace::Local, _)
            )
        };
        !f.is_kernel
            && f.body.is_some()
            && !name.starts_with("__ferrocl_")
            && !local_pointer(&f.ret)
            && !f.params.iter().any(|p| matches!(p.ty, Type::Opaque(_)))
    }

    /// The parameters of an outlined call of `f` with `args`, or None when
    /// the call must be inlined: an argument is a `__local` or `__private`
    /// pointer into a space without a word pool whose target is not a
    /// variable the callee can be handed.
    pub(super) fn outlined_params(
        &mut self,
        f: &FuncDef,
        args: &[Val],
    ) -> Option<Vec<OutlinedParam>> {
        if args.len() != f.params.len() {
            return None;
        }
        let mut params = Vec::with_capacity(args.len());
        for (p, a) in f.params.iter().zip(args) {
            let ty = self.bound_param_type(p, a);
            if let Some(base) = &a.base {
                let param = match self.member_copy(base, args) {
                    true => self.copied_member_param(ty, base),
                    false => self.typed_pointer_param(ty, base)?,
                };
                params.push(param);
                continue;
            }
            if let Type::Pointer(_, sp @ (AddrSpace::Private | AddrSpace::Local), _) = ty {
                if !self.generic_dynamic && self.pool_of(sp).is_none() {
                    return None;
                }
            }
            params.push(OutlinedParam::Value(ty));
        }
        Some(params)
    }

    /// A pointer argument with a compile-time target, passed as its
    /// variable (a memory object declaration, which SPIR-V's logical
    /// addressing lets a call pass), the target's dynamic indices and the
    /// element index. Targets in constant data, or in variables whose
    /// type was not noted, are inlined.
    fn typed_pointer_param(&self, ty: Type, base: &LBase) -> Option<OutlinedParam> {
        if !matches!(base.sc, StorageClass::Function | StorageClass::Workgroup) {
            return None;
        }
        let root_ty = *self.root_types.get(&base.root)?;
        let path = base
            .path
            .iter()
            .zip(&base.saved)
            .map(|(&id, &saved)| (!saved).then_some(id))
            .collect();
        Some(OutlinedParam::Pointer {
            ty,
            root_ty,
            sc: base.sc,
            path,
            elem: base.elem.clone(),
            is_array: base.is_array,
        })
    }

    /// Whether a pointer argument with target `base` is passed as a copy
    /// of its target (`TargetCaps::outline_member_copies`): a struct (not
    /// an array element) inside a `__private` variable, reached by
    /// constant indices only, whose variable no other argument of the
    /// call points into. The callee can reach the variable through that
    /// argument alone (a private variable a pointer stored in memory could
    /// reach is in the private pool, and has no compile-time target), so
    /// copying the struct in and back out is the same as passing it.
    /// hashcat's HMAC contexts pass `&ctx->ipad` and `&ctx->opad` to one
    /// `sha256_update_64`: two copies of 19,952 SPIR-V lines in scrypt's
    /// `m08900_init` where one serves.
    fn member_copy(&self, base: &LBase, args: &[Val]) -> bool {
        let same_root = args
            .iter()
            .filter(|a| a.base.as_ref().is_some_and(|b| b.root == base.root))
            .count();
        self.caps.outline_member_copies
            && base.sc == StorageClass::Function
            && !base.path.is_empty()
            && !base.saved.iter().any(|&s| s)
            && !base.is_array
            && matches!(base.elem, Type::Struct(_))
            && same_root == 1
    }

    /// The parameter of a pointer argument passed as a copy of its target
    /// ([`Self::member_copy`]): a variable of the target's type.
    fn copied_member_param(&mut self, ty: Type, base: &LBase) -> OutlinedParam {
        OutlinedParam::Pointer {
            ty,
            root_ty: self.ptr_ty(StorageClass::Function, &base.elem),
            sc: StorageClass::Function,
            path: Vec::new(),
            elem: base.elem.clone(),
            is_array: false,
        }
    }

    /// Calls the kernel's SPIR-V function for `f` with parameters
    /// `params`, emitting it first if this kernel has not called it yet.
    pub(super) fn call_outlined(
        &mut self,
        f: &'a FuncDef,
        params: Vec<OutlinedParam>,
        args: Vec<Val>,
        span: Span,
    ) -> R<Val> {
        let key = (f.name.as_str(), params);
        let id = match self.user_functions.get(&key) {
            Some(&id) => id,
            None => {
                let (id, _) = self.emit_outlined(f, &key.1, false, span)?;
                self.user_functions.insert(key.clone(), id);
                id
            }
        };
        let mut operands = vec![id];
        // Targets passed as copies: (the target, the copy, the type).
        let mut copies = Vec::new();
        for (param, a) in key.1.iter().zip(args) {
            match param {
                OutlinedParam::Value(ty) => operands.push(self.convert(a, ty, span, false)?.id),
                OutlinedParam::Pointer { path, elem, .. }
                    if path.is_empty() && a.base.as_ref().is_some_and(|b| !b.path.is_empty()) =>
                {
                    let base = a.base.as_ref()?;
                    let p = self.ptr_ty(StorageClass::Function, elem);
                    let mut chain = vec![base.root];
                    chain.extend(&base.path);
                    let target = self.op(Op::AccessChain, p, &chain);
                    let t = self.sty(elem);
                    let value = self.op(Op::Load, t, &[target]);
                    let copy = self.new_function_var(elem);
                    self.op_void(Op::Store, &[copy, value]);
                    operands.push(copy);
                    operands.push(a.id);
                    copies.push((target, copy, t));
                }
                OutlinedParam::Pointer { .. } => {
                    let base = a.base.as_ref()?;
                    operands.push(base.root);
                    let u = self.m.ty(TypeKey::Int(32));
                    for (&index, _) in base.path.iter().zip(&base.saved).filter(|(_, &s)| s) {
                        operands.push(self.op(Op::Load, u, &[index]));
                    }
                    operands.push(a.id);
                }
            }
        }
        let ret = self.sty(&f.ret);
        let result = self.op(Op::FunctionCall, ret, &operands);
        for (target, copy, t) in copies {
            let value = self.op(Op::Load, t, &[copy]);
            self.op_void(Op::Store, &[target, value]);
        }
        Some(Val::new(result, f.ret.clone()))
    }

    /// Emits `def` as a SPIR-V function of its own with parameters of
    /// `types`: its parameters are `OpFunctionParameter`s, its body the
    /// function inlined into a fresh function writer, so everything it
    /// calls in turn stays inside it (or is called in turn). The state of
    /// the function being lowered is set aside and restored around it.
    /// With `own_pools` the function keeps its variables in a private pool
    /// of its own and reaches no `__local` pool, and the bytes of its
    /// private variables are returned apart; otherwise it shares the
    /// kernel's pools, and its variables count once towards the kernel's.
    pub(super) fn emit_outlined(
        &mut self,
        def: &'a FuncDef,
        types: &[OutlinedParam],
        own_pools: bool,
        span: Span,
    ) -> R<(Word, u64)> {
        let entry = self.label();
        let saved_f = std::mem::replace(&mut self.f, FunctionWriter::new(entry));
        let saved_scopes = std::mem::take(&mut self.scopes);
        let saved_breakables = std::mem::take(&mut self.breakables);
        let saved_jumps = std::mem::take(&mut self.jumps);
        let saved_frames = std::mem::take(&mut self.frames);
        let saved_pools = own_pools.then(|| {
            let fresh_ppool = self
                .ppool
                .as_ref()
                .map(|p| p.pointers)
                .map(|pointers| self.private_pool(StorageClass::Function, pointers));
            (
                self.pool.take(),
                std::mem::replace(&mut self.ppool, fresh_ppool),
            )
        });
        // Sharing the kernel's pool, the function's variables go above
        // every variable placed so far, and stay reserved: it may run
        // under any of its callers, whatever they hold then.
        let shared_top = if own_pools {
            None
        } else {
            self.ppool.as_mut().map(|p| {
                let top = p.top;
                p.top = p.static_bytes;
                (top, p.static_bytes)
            })
        };
        // Code reached from a dead region is still a live function.
        let saved_dead = std::mem::replace(&mut self.dead, 0);
        let saved_private = if own_pools {
            (
                std::mem::replace(&mut self.private_bytes, 0),
                std::mem::replace(&mut self.private_live, 0),
            )
        } else {
            (self.private_bytes, self.private_live)
        };

        let mut params = Vec::with_capacity(types.len());
        let mut param_ids = Vec::with_capacity(types.len());
        for param in types {
            let mut take = |l: &mut Self, t: Word| {
                let id = l.m.id();
                param_ids.push((t, id));
                id
            };
            match param {
                OutlinedParam::Value(ty) => {
                    let t = self.sty(ty);
                    params.push(Val::new(take(self, t), ty.clone()));
                }
                OutlinedParam::Pointer {
                    ty,
                    root_ty,
                    sc,
                    path,
                    elem,
                    is_array,
                } => {
                    let root = take(self, *root_ty);
                    self.root_types.insert(root, *root_ty);
                    let u = self.m.ty(TypeKey::Int(32));
                    // A parameter is defined wherever the function uses
                    // it, so dynamic indices need no saving.
                    let path = path
                        .iter()
                        .map(|entry| entry.unwrap_or_else(|| take(self, u)))
                        .collect::<Vec<_>>();
                    let index = take(self, u);
                    let base = LBase {
                        root,
                        sc: *sc,
                        saved: vec![false; path.len()],
                        path,
                        elem: elem.clone(),
                        is_array: *is_array,
                    };
                    params.push(Val {
                        id: index,
                        ty: ty.clone(),
                        base: Some(Rc::new(base)),
                    });
                }
            }
        }
        let result = self.call_function_inline(def, params, span);
        if self.f.is_open() {
            match &result {
                Some(v) if self.f.reachable() && def.ret != Type::Void => {
                    self.term(Op::ReturnValue, &[v.id])
                }
                _ if self.f.reachable() && def.ret == Type::Void => self.term(Op::Return, &[]),
                _ => self.term(Op::Unreachable, &[]),
            }
        }
        if let (Some(pool), Some((top, start))) = (self.ppool.as_mut(), shared_top) {
            pool.reserved.push((start, pool.static_bytes));
            pool.top = top;
        }
        let mut private_bytes = 0;
        if let Some((pool, ppool)) = saved_pools {
            self.declare_private_pool();
            private_bytes = std::mem::replace(&mut self.private_bytes, saved_private.0);
            self.private_live = saved_private.1;
            self.pool = pool;
            self.ppool = ppool;
        }
        self.dead = saved_dead;
        self.frames = saved_frames;
        self.jumps = saved_jumps;
        self.breakables = saved_breakables;
        self.scopes = saved_scopes;
        let fw = std::mem::replace(&mut self.f, saved_f);
        result?;

        let ret = self.sty(&def.ret);
        let control = self.outlined.get(def.name.as_str()).copied().unwrap_or(0);
        let id = self.add_function(fw, ret, &param_ids, control);
        self.m.name(id, &def.name);
        Some((id, private_bytes))
    }
}
