//! Program data beyond named variables: string literals and the address
//! constants that initialise program-scope pointers.
//!
//! A string literal outside printf (OpenCL C 6.7.3, C99 6.4.5) is an
//! unnamed `__constant char` array, NUL-terminated. Its bytes live in the
//! program's data buffer beside the `__constant` variables, so a literal
//! is a `__constant char *` like any other once it decays. Identical
//! literals share one copy, which C99 6.4.5p6 allows. The literals of
//! functions are placed before any kernel is lowered: whether a kernel
//! receives the data buffer's address depends on the buffer not being
//! empty. printf's format and its `%s` literals are not placed here; they
//! travel in the printf records.
//!
//! A program-scope pointer may be initialised with an address constant
//! (C99 6.6p9): the address of a program-scope variable, of an element or
//! member of one, or a string literal, plus or minus an integer constant.
//! The device address of the data buffer is known only to the runtime, so
//! such a pointer holds the target's offset in the buffer and is listed in
//! [`Lowered::global_relocations`]; the runtime adds the buffer's address
//! before the first launch.

use super::*;

impl<'a> Lowerer<'a> {
    /// Places every string literal of the program's functions that is not
    /// a printf format or `%s` argument, nor the initializer of a character
    /// array (which copies it).
    pub(super) fn place_string_literals(&mut self, tu: &TranslationUnit) {
        let mut found = Vec::new();
        for f in &tu.funcs {
            if let Some(body) = &f.body {
                stmt_strings(body, &mut found);
            }
        }
        for bytes in found {
            if self.place_string(bytes, Span::default()).is_none() {
                return;
            }
        }
    }

    /// The offset of a string literal's bytes in the data buffer, placing
    /// them there on first use.
    fn place_string(&mut self, bytes: &[u8], span: Span) -> Option<u32> {
        if let Some(&at) = self.string_literals.get(bytes) {
            return Some(at);
        }
        let at = self.global_data.len() as u32;
        if at as usize + bytes.len() + 1 > MAX_VARIABLE_BYTES as usize {
            self.error(
                span,
                format!(
                    "string literals and program-scope variables take more than the \
                     {MAX_VARIABLE_BYTES} bytes supported"
                ),
            );
            return None;
        }
        self.global_data.extend_from_slice(bytes);
        self.global_data.push(0);
        self.string_literals.insert(bytes.to_vec(), at);
        Some(at)
    }

    /// Writes the address constant `e` into `out`, the bytes of a pointer
    /// of type `t` that begin `pos` bytes into the variable being
    /// initialised.
    pub(super) fn address_constant_bytes(
        &mut self,
        t: &Type,
        e: &Expr,
        out: &mut [u8],
        pos: usize,
    ) -> bool {
        let Some((offset, space)) = self.address_constant(e) else {
            self.error(
                e.span,
                "initializer of a program-scope pointer is not an address constant",
            );
            return false;
        };
        let want = match t {
            Type::Pointer(_, sp, _) => *sp,
            _ => return false,
        };
        if want != space {
            self.error(
                e.span,
                format!(
                    "cannot initialise a pointer to the {} address space with an address \
                     in the {} address space",
                    want.keyword(),
                    space.keyword()
                ),
            );
            return false;
        }
        let Ok(offset) = u64::try_from(offset) else {
            self.error(e.span, "address constant points before its object");
            return false;
        };
        out[..8].copy_from_slice(&offset.to_le_bytes());
        self.init_relocations.push(pos);
        true
    }

    /// An address constant: its byte offset in the data buffer and the
    /// address space it points into.
    fn address_constant(&mut self, e: &Expr) -> Option<(i64, AddrSpace)> {
        match &e.kind {
            ExprKind::Unary(UnOp::AddrOf, inner) => {
                let (at, _, space) = self.constant_lvalue(inner)?;
                Some((at, space))
            }
            ExprKind::StrLit(bytes) => {
                let at = self.place_string(bytes, e.span)?;
                Some((at as i64, AddrSpace::Constant))
            }
            // An array decays to the address of its first element.
            ExprKind::Ident(_) | ExprKind::Index(..) | ExprKind::Member(..) => {
                match self.constant_lvalue(e)? {
                    (at, Type::Array(..), space) => Some((at, space)),
                    _ => None,
                }
            }
            ExprKind::Cast(Type::Pointer(..), inner) => self.address_constant(inner),
            ExprKind::Binary(op @ (BinOp::Add | BinOp::Sub), a, b) => {
                let (ptr, n, neg) = match consteval::eval(b, self.types) {
                    Some(n) => (a, n.as_i64(), *op == BinOp::Sub),
                    None if *op == BinOp::Add => {
                        (b, consteval::eval(a, self.types)?.as_i64(), false)
                    }
                    None => return None,
                };
                let elem = self.address_constant_pointee(ptr)?;
                let (at, space) = self.address_constant(ptr)?;
                let step = n.checked_mul(self.types.size(&elem) as i64)?;
                let at = if neg {
                    at.checked_sub(step)?
                } else {
                    at.checked_add(step)?
                };
                Some((at, space))
            }
            _ => None,
        }
    }

    /// The type an address constant points to, for pointer arithmetic.
    fn address_constant_pointee(&mut self, e: &Expr) -> Option<Type> {
        match &e.kind {
            ExprKind::Unary(UnOp::AddrOf, inner) => Some(self.constant_lvalue(inner)?.1),
            ExprKind::StrLit(_) => Some(Type::Scalar(Scalar::Char)),
            ExprKind::Cast(Type::Pointer(elem, ..), _) => Some((**elem).clone()),
            ExprKind::Binary(_, a, b) => self
                .address_constant_pointee(a)
                .or_else(|| self.address_constant_pointee(b)),
            _ => match self.constant_lvalue(e)?.1 {
                Type::Array(elem, _) => Some(Rc::unwrap_or_clone(elem)),
                _ => None,
            },
        }
    }

    /// A program-scope object named by a constant expression: its offset
    /// in the data buffer, its type and its address space.
    fn constant_lvalue(&mut self, e: &Expr) -> Option<(i64, Type, AddrSpace)> {
        match &e.kind {
            ExprKind::Ident(name) => {
                let sym = self.globals.get(name)?;
                let space = match sym.sc {
                    StorageClass::PhysicalStorageBuffer => AddrSpace::Global,
                    StorageClass::UniformConstant => AddrSpace::Constant,
                    _ => return None,
                };
                Some((sym.root as i64, sym.ty.clone(), space))
            }
            ExprKind::StrLit(bytes) => {
                let at = self.place_string(bytes, e.span)?;
                let ty = Type::Array(
                    TypeRef::new(Type::Scalar(Scalar::Char)),
                    bytes.len() as u32 + 1,
                );
                Some((at as i64, ty, AddrSpace::Constant))
            }
            ExprKind::Index(a, i) => {
                let (at, ty, space) = self.constant_lvalue(a)?;
                let Type::Array(elem, _) = ty else {
                    return None;
                };
                let i = consteval::eval(i, self.types)?.as_i64();
                let step = i.checked_mul(self.types.size(&elem) as i64)?;
                Some((at.checked_add(step)?, Rc::unwrap_or_clone(elem), space))
            }
            ExprKind::Member(a, name, false) => {
                let (at, ty, space) = self.constant_lvalue(a)?;
                let Type::Struct(id) = ty else {
                    return None;
                };
                let m = self
                    .types
                    .structs
                    .get(id)?
                    .members
                    .iter()
                    .find(|m| m.name == *name)?;
                Some((at.checked_add(i64::from(m.offset))?, m.ty.clone(), space))
            }
            _ => None,
        }
    }

    /// The place of a string literal: a `__constant char` array of its
    /// length plus the terminating NUL.
    pub(super) fn string_literal(&mut self, bytes: &[u8], span: Span) -> R<Place> {
        let Some(&at) = self.string_literals.get(bytes) else {
            self.error(
                span,
                "a string literal here is only supported as a printf format or argument",
            );
            return None;
        };
        let ty = Type::Array(
            TypeRef::new(Type::Scalar(Scalar::Char)),
            bytes.len() as u32 + 1,
        );
        match self.global_data_place(at, ty) {
            Place::Addr {
                addr, ty, align, ..
            } => Some(Place::Addr {
                addr,
                ty,
                align,
                space: AddrSpace::Constant,
            }),
            p => Some(p),
        }
    }
}

fn expr_strings<'e>(e: &'e Expr, out: &mut Vec<&'e [u8]>) {
    match &e.kind {
        ExprKind::StrLit(bytes) => out.push(bytes),
        ExprKind::CompoundLit(t, i) => init_strings(t, i, out),
        ExprKind::Call(name, _) if name == "printf" => {
            e.any_operand(|a| {
                if !matches!(a.kind, ExprKind::StrLit(_)) {
                    expr_strings(a, out);
                }
                false
            });
        }
        _ => {
            e.any_operand(|a| {
                expr_strings(a, out);
                false
            });
        }
    }
}

/// The literals of an initializer of an object of type `t`, except those
/// that initialize a character array.
fn init_strings<'e>(t: &Type, i: &'e Init, out: &mut Vec<&'e [u8]>) {
    match i {
        Init::Expr(Expr {
            kind: ExprKind::StrLit(_),
            ..
        }) if matches!(t, Type::Array(..)) => {}
        Init::Expr(e) => expr_strings(e, out),
        // Members of nested aggregates are not matched to their types
        // here; a literal there that initializes a character array is
        // placed needlessly, which costs only its bytes.
        Init::List(items, _) => {
            let elem = match t {
                Type::Array(e, _) => (**e).clone(),
                _ => Type::Void,
            };
            items.iter().for_each(|i| init_strings(&elem, i, out));
        }
    }
}

fn stmt_strings<'e>(s: &'e Stmt, out: &mut Vec<&'e [u8]>) {
    match &s.kind {
        StmtKind::Expr(x) => expr_strings(x, out),
        StmtKind::Decl(vars) => {
            for v in vars {
                if let Some(i) = &v.init {
                    init_strings(&v.ty, i, out);
                }
            }
        }
        StmtKind::Block(items) => items.iter().for_each(|x| stmt_strings(x, out)),
        StmtKind::If(c, a, b) => {
            expr_strings(c, out);
            stmt_strings(a, out);
            if let Some(b) = b {
                stmt_strings(b, out);
            }
        }
        StmtKind::While(c, b) | StmtKind::DoWhile(b, c) | StmtKind::Switch(c, b) => {
            expr_strings(c, out);
            stmt_strings(b, out);
        }
        StmtKind::For(i, c, st, b) => {
            if let Some(i) = i {
                stmt_strings(i, out);
            }
            if let Some(c) = c {
                expr_strings(c, out);
            }
            if let Some(st) = st {
                expr_strings(st, out);
            }
            stmt_strings(b, out);
        }
        StmtKind::Return(Some(x)) => expr_strings(x, out),
        StmtKind::Case(_, b) | StmtKind::Label(_, b) => stmt_strings(b, out),
        _ => {}
    }
}
