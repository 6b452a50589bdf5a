//! Internal linkage across the translation units of a linked program.
//!
//! `clLinkProgram` compiles its compiled objects as one text in which
//! `#pragma ferrocl translation_unit` separates the units (the runtime
//! writes it; see runtime/src/program.rs). A file-scope name declared
//! `static` has internal linkage (C99 6.2.2p3): it denotes a different
//! object or function in each unit, so two units may each define a
//! `static int helper()` and call their own. The parser hands each unit's
//! declarations to [`make_statics_private`] when the unit ends, which gives
//! those names a spelling no identifier can have (`helper@1`) throughout the
//! unit, except where a local declaration hides them.

use crate::ast::*;
use crate::HashSet;

/// The pragma text (after `#pragma`) that starts a new translation unit.
pub const TRANSLATION_UNIT_PRAGMA: &str = "ferrocl translation_unit";

/// The name a `static` file-scope `name` of unit `unit` takes.
pub fn private_name(name: &str, unit: u32) -> String {
    format!("{name}@{unit}")
}

/// Renames the file-scope names in `statics` within one unit's functions
/// and program-scope variables.
pub fn make_statics_private(
    funcs: &mut [FuncDef],
    globals: &mut [VarDecl],
    statics: &HashSet<String>,
    unit: u32,
) {
    if statics.is_empty() {
        return;
    }
    let mut r = Renamer {
        statics,
        unit,
        scopes: Vec::new(),
    };
    for g in globals.iter_mut() {
        if let Some(init) = &mut g.init {
            r.init(init);
        }
        if statics.contains(&g.name) {
            g.name = private_name(&g.name, unit);
        }
    }
    for f in funcs.iter_mut() {
        if statics.contains(&f.name) {
            f.name = private_name(&f.name, unit);
        }
        r.scopes
            .push(f.params.iter().map(|p| p.name.clone()).collect());
        if let Some(body) = &mut f.body {
            r.stmt(body);
        }
        r.scopes.pop();
    }
}

struct Renamer<'s> {
    statics: &'s HashSet<String>,
    unit: u32,
    /// Names declared in the enclosing blocks of the function being walked.
    scopes: Vec<HashSet<String>>,
}

impl Renamer<'_> {
    fn rename(&self, name: &mut String) {
        if self.statics.contains(name.as_str()) && !self.scopes.iter().any(|s| s.contains(name)) {
            *name = private_name(name, self.unit);
        }
    }

    fn declare(&mut self, name: &str) {
        if let Some(s) = self.scopes.last_mut() {
            s.insert(name.to_string());
        }
    }

    fn expr(&mut self, e: &mut Expr) {
        match &mut e.kind {
            ExprKind::Ident(name) => self.rename(name),
            ExprKind::Call(name, args) => {
                // No object can be called (OpenCL C has no function
                // pointers), so a local name never hides a function here.
                if self.statics.contains(name.as_str()) {
                    *name = private_name(name, self.unit);
                }
                args.iter_mut().for_each(|a| self.expr(a));
            }
            ExprKind::Unary(_, a)
            | ExprKind::Member(a, _, _)
            | ExprKind::Cast(_, a)
            | ExprKind::SizeofExpr(a)
            | ExprKind::VecStepExpr(a) => self.expr(a),
            ExprKind::Binary(_, a, b)
            | ExprKind::Assign(_, a, b)
            | ExprKind::Index(a, b)
            | ExprKind::Comma(a, b) => {
                self.expr(a);
                self.expr(b);
            }
            ExprKind::Cond(a, b, c) => {
                self.expr(a);
                self.expr(b);
                self.expr(c);
            }
            ExprKind::VecLit(_, items) => items.iter_mut().for_each(|a| self.expr(a)),
            ExprKind::CompoundLit(_, i) => self.init(i),
            _ => {}
        }
    }

    fn init(&mut self, i: &mut Init) {
        match i {
            Init::Expr(e) => self.expr(e),
            Init::List(items, _) => items.iter_mut().for_each(|i| self.init(i)),
        }
    }

    fn block(&mut self, s: &mut Stmt) {
        self.scopes.push(HashSet::default());
        self.stmt(s);
        self.scopes.pop();
    }

    fn stmt(&mut self, s: &mut Stmt) {
        match &mut s.kind {
            StmtKind::Expr(e) => self.expr(e),
            StmtKind::Decl(vars) => {
                for v in vars {
                    // C99 6.2.1p7: a name is in scope from the end of its
                    // declarator, so its own initializer already sees it.
                    self.declare(&v.name);
                    if let Some(init) = &mut v.init {
                        self.init(init);
                    }
                }
            }
            StmtKind::Block(items) => {
                self.scopes.push(HashSet::default());
                items.iter_mut().for_each(|x| self.stmt(x));
                self.scopes.pop();
            }
            StmtKind::If(c, a, b) => {
                self.expr(c);
                self.block(a);
                if let Some(b) = b {
                    self.block(b);
                }
            }
            StmtKind::While(c, b) | StmtKind::Switch(c, b) => {
                self.expr(c);
                self.block(b);
            }
            StmtKind::DoWhile(b, c) => {
                self.block(b);
                self.expr(c);
            }
            StmtKind::For(init, c, step, b) => {
                self.scopes.push(HashSet::default());
                if let Some(init) = init {
                    self.stmt(init);
                }
                if let Some(c) = c {
                    self.expr(c);
                }
                if let Some(step) = step {
                    self.expr(step);
                }
                self.block(b);
                self.scopes.pop();
            }
            StmtKind::Return(Some(e)) => self.expr(e),
            StmtKind::Case(_, b) | StmtKind::Label(_, b) => self.stmt(b),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(src: &str) -> TranslationUnit {
        crate::parse::parse_for_test(src)
    }

    #[test]
    fn statics_of_each_unit_get_their_own_names() {
        let tu = parse(
            "static int helper(void) { return 1; }\n\
             static int count;\n\
             int first(void) { int count = 2; return helper() + count; }\n\
             #pragma ferrocl translation_unit\n\
             static int helper(void) { return 2; }\n\
             int second(void) { return helper(); }\n",
        );
        let names: Vec<&str> = tu.funcs.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["helper@0", "first", "helper@1", "second"]);
        assert_eq!(tu.globals[0].name, "count@0");
        // `first` calls its own unit's helper; its local `count` hides the
        // static one.
        let body = format!("{:?}", tu.funcs[1].body);
        assert!(body.contains("\"helper@0\""), "{body}");
        assert!(body.contains("Ident(\"count\")"), "{body}");
        let body = format!("{:?}", tu.funcs[3].body);
        assert!(body.contains("\"helper@1\""), "{body}");
    }

    #[test]
    fn a_single_unit_keeps_its_names() {
        let tu = parse("static int helper(void) { return 1; }\nint f(void) { return helper(); }\n");
        assert_eq!(tu.funcs[0].name, "helper");
    }
}
