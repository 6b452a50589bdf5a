//! Which `__private` variables of a function may have their address taken.
//!
//! A kernel that reinterprets private memory, or takes the address of a
//! union there, itself or in a function it calls, lowers `__private`
//! pointers to byte offsets into one `Function` word array (the private
//! pool). Only a variable whose address can reach such a pointer needs a
//! slot there; every other one stays an ordinary `Function` variable,
//! which the driver's compiler keeps in registers. (A kernel whose unions
//! are never addressed keeps only those in the pool.) A pool of every variable instead hides the whole kernel's
//! state behind one dynamically indexed array: slow code on GPUs, and
//! minutes of LLVM time on lavapipe for random123's Threefry.
//!
//! The walk is syntactic and conservative. A name is addressed in a
//! function when any occurrence of it is under `&`, or is an array (or an
//! array member of it) used as a value, where it decays to a pointer;
//! each occurrence is judged against every declaration of the name before
//! it, in any scope. A member the walk cannot type counts as an array.

use crate::{HashMap, HashSet};

use crate::ast::{Expr, ExprKind, FuncDef, Init, Stmt, StmtKind, UnOp};
use crate::sema::types::{Type, TypeRef, TypeTable};
use std::rc::Rc;

/// The names of `f`'s parameters and variables that may be addressed.
pub(super) fn addressed_variables<'a>(f: &'a FuncDef, types: &TypeTable) -> HashSet<&'a str> {
    Walk::over(f, types).addressed
}

/// Whether `f` may take the address of a parameter or variable whose type
/// holds a union: a pointer into a union needs private pointers to be
/// offsets into the private word pool.
pub(super) fn addresses_a_union(f: &FuncDef, types: &TypeTable) -> bool {
    let walk = Walk::over(f, types);
    walk.addressed.iter().any(|name| {
        walk.declared
            .get(name)
            .is_some_and(|ts| ts.iter().any(|t| types.contains_union(t)))
    })
}

struct Walk<'a, 't> {
    types: &'t TypeTable,
    /// Every type each name has been declared with so far in the
    /// function: scopes are not tracked, so a use is judged against all
    /// of them.
    declared: HashMap<&'a str, Vec<&'a Type>>,
    addressed: HashSet<&'a str>,
}

impl<'a, 't> Walk<'a, 't> {
    /// The walk of `f`'s parameters and body.
    fn over(f: &'a FuncDef, types: &'t TypeTable) -> Walk<'a, 't> {
        let mut walk = Walk {
            types,
            declared: HashMap::default(),
            addressed: HashSet::default(),
        };
        for p in &f.params {
            walk.declared.entry(&p.name).or_default().push(&p.ty);
        }
        if let Some(body) = &f.body {
            walk.stmt(body);
        }
        walk
    }

    fn stmt(&mut self, s: &'a Stmt) {
        match &s.kind {
            StmtKind::Expr(e) | StmtKind::Return(Some(e)) => self.value(e),
            // A name is declared before any use of it that refers to
            // that declaration, so collecting declarations as they come
            // judges every use against its own among them.
            StmtKind::Decl(vars) => {
                for v in vars {
                    self.declared.entry(&v.name).or_default().push(&v.ty);
                    if let Some(i) = &v.init {
                        self.init(i);
                    }
                }
            }
            StmtKind::Block(items) => items.iter().for_each(|x| self.stmt(x)),
            StmtKind::If(c, a, b) => {
                self.value(c);
                self.stmt(a);
                if let Some(b) = b {
                    self.stmt(b);
                }
            }
            StmtKind::While(c, b) | StmtKind::DoWhile(b, c) | StmtKind::Switch(c, b) => {
                self.value(c);
                self.stmt(b);
            }
            StmtKind::For(i, c, step, b) => {
                if let Some(i) = i {
                    self.stmt(i);
                }
                for e in [c, step].into_iter().flatten() {
                    self.value(e);
                }
                self.stmt(b);
            }
            StmtKind::Case(_, b) | StmtKind::Label(_, b) => self.stmt(b),
            _ => {}
        }
    }

    fn init(&mut self, i: &'a Init) {
        match i {
            Init::Expr(e) => self.value(e),
            Init::List(items, _) => items.iter().for_each(|i| self.init(i)),
        }
    }

    /// `e` evaluated for its value (or assigned to): an array there
    /// decays to a pointer to its first element.
    fn value(&mut self, e: &'a Expr) {
        match &e.kind {
            ExprKind::Unary(UnOp::AddrOf, target) => {
                if let Some((name, types)) = self.storage(target) {
                    if !types.is_empty() {
                        self.addressed.insert(name);
                    }
                }
            }
            // Not evaluated.
            ExprKind::SizeofExpr(_) | ExprKind::VecStepExpr(_) => {}
            ExprKind::Ident(_) | ExprKind::Index(..) | ExprKind::Member(_, _, false) => {
                if let Some((name, types)) = self.storage(e) {
                    if types.iter().any(|t| matches!(t, Type::Array(..))) {
                        self.addressed.insert(name);
                    }
                }
            }
            ExprKind::CompoundLit(_, i) => self.init(i),
            _ => {
                e.any_operand(|a| {
                    self.value(a);
                    false
                });
            }
        }
    }

    /// For an lvalue inside a named variable (`v`, `v.m`, `v[i].m`): the
    /// variable's name and the types the lvalue may have, one per
    /// declaration of the name (none once the path leaves the variable
    /// through a pointer). `None` for other expressions. Operands that are
    /// evaluated on the way (indices) are walked.
    fn storage(&mut self, e: &'a Expr) -> Option<(&'a str, Vec<Type>)> {
        match &e.kind {
            ExprKind::Ident(name) => {
                let types = self
                    .declared
                    .get(name.as_str())
                    .map(|ts| ts.iter().map(|&t| t.clone()).collect())
                    .unwrap_or_default();
                Some((name, types))
            }
            ExprKind::Member(base, member, false) => {
                let (name, types) = self.storage(base)?;
                let types = types
                    .iter()
                    .filter_map(|t| self.member_type(t, member))
                    .collect();
                Some((name, types))
            }
            ExprKind::Index(base, index) => {
                // `2[a]` is `a[2]`: an array on either side is indexed,
                // and one in the index position is judged as a value.
                self.value(index);
                let (name, types) = self.storage(base)?;
                let types = types
                    .into_iter()
                    .filter_map(|t| match t {
                        Type::Array(elem, _) => Some(Rc::unwrap_or_clone(elem)),
                        Type::Vector(s, _) => Some(Type::Scalar(s)),
                        _ => None,
                    })
                    .collect();
                Some((name, types))
            }
            _ => {
                self.value(e);
                None
            }
        }
    }

    /// The type of `member` of a value of type `t`; a swizzle's is never
    /// an array, and any type that cannot be read here counts as one.
    fn member_type(&self, t: &Type, member: &str) -> Option<Type> {
        match t {
            Type::Struct(id) => Some(
                self.types
                    .member_path(*id, member)
                    .map_or(Type::Array(TypeRef::new(Type::Void), 0), |(_, m, _)| {
                        m.ty.clone()
                    }),
            ),
            Type::Vector(s, _) => Some(Type::Scalar(*s)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addressed(src: &str) -> Vec<String> {
        let tu = crate::parse::parse_for_test(src);
        let f = tu.funcs.last().expect("a function");
        let mut names: Vec<String> = addressed_variables(f, &tu.types)
            .into_iter()
            .map(str::to_string)
            .collect();
        names.sort();
        names
    }

    #[test]
    fn scalars_read_and_written_by_name_are_not_addressed() {
        let src = "void f(int n) { int a = n; int b; b = a * 2; a += b; float4 v; v.x = a; }";
        assert!(addressed(src).is_empty());
    }

    #[test]
    fn the_operand_of_address_of_is_addressed() {
        let src = "void g(int *p); void f() { int a; int b; float4 v; struct { int m; } s; \
                   g(&a); int *q = &s.m; float *r = &v.x; b = 1; }";
        assert_eq!(addressed(src), ["a", "s", "v"]);
    }

    #[test]
    fn arrays_are_addressed_where_they_decay() {
        let src = "void g(int *p); void f(int i) { int a[4]; int b[4]; int c[2][2]; int d[2][2]; \
                   int e[4]; a[i] = b[0]; g(c[1]); d[1][i] = 0; g(e + 1); }";
        assert_eq!(addressed(src), ["c", "e"]);
    }

    #[test]
    fn array_members_are_addressed_where_they_decay() {
        let src = "typedef struct { int v[4]; } ctr_t; void g(int *p); \
                   void f(int i) { ctr_t a; ctr_t b; a.v[i] = 1; g(b.v); }";
        assert_eq!(addressed(src), ["b"]);
    }

    #[test]
    fn a_pointer_indexed_or_dereferenced_is_not_addressed() {
        let src = "void f(int *p, int i) { int *q = p; q[i] = *p; int *r = &q[1]; }";
        assert!(addressed(src).is_empty());
    }

    #[test]
    fn sizeof_takes_no_address() {
        let src = "void f() { int a[4]; int n = sizeof(a) + sizeof(&a); }";
        assert!(addressed(src).is_empty());
    }

    #[test]
    fn an_array_in_the_index_position_decays() {
        let src = "void f(int i) { int a[4]; int b = i[a]; }";
        assert_eq!(addressed(src), ["a"]);
    }
}
