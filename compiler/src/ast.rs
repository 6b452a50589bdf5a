//! The syntax tree the parser builds. Declarations carry resolved
//! [`Type`]s (the parser tracks typedefs, tags and enum constants, as a C
//! parser must); expressions are untyped until semantic analysis.

use crate::sema::types::{AddrSpace, Scalar, Type};
use crate::token::Span;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    Neg,
    Plus,
    Not,
    BitNot,
    Deref,
    AddrOf,
    PreInc,
    PreDec,
    PostInc,
    PostDec,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
    Shr,
    Lt,
    Gt,
    Le,
    Ge,
    Eq,
    Ne,
    BitAnd,
    BitXor,
    BitOr,
    LogAnd,
    LogOr,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    IntLit(u64, Scalar),
    FloatLit(f64, Scalar),
    StrLit(Vec<u8>),
    Ident(String),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `a = b` (op `None`) or `a op= b`.
    Assign(Option<BinOp>, Box<Expr>, Box<Expr>),
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    Call(String, Vec<Expr>),
    Index(Box<Expr>, Box<Expr>),
    /// `e.name` or `e->name` (`arrow`); swizzles are members too.
    Member(Box<Expr>, String, bool),
    Cast(Type, Box<Expr>),
    /// `(float4)(a, b.xy, c)`.
    VecLit(Type, Vec<Expr>),
    SizeofType(Type),
    SizeofExpr(Box<Expr>),
    AlignofType(Type),
    VecStepType(Type),
    VecStepExpr(Box<Expr>),
    /// `(struct point){ 1, 2 }`: an unnamed object of the type, with the
    /// initializer already in positional form.
    CompoundLit(Type, Box<Init>),
    Comma(Box<Expr>, Box<Expr>),
    /// A parse error already reported; lowers to nothing.
    Error,
}

/// An initializer: an expression or a braced list.
impl Expr {
    /// Whether `f` holds for an operand of this expression (a direct
    /// sub-expression, tried in source order; a compound literal's
    /// initializer is not one): the one place that knows which kinds have
    /// operands, for walks over the tree.
    pub fn any_operand<'e>(&'e self, mut f: impl FnMut(&'e Expr) -> bool) -> bool {
        match &self.kind {
            ExprKind::Unary(_, a)
            | ExprKind::Member(a, _, _)
            | ExprKind::Cast(_, a)
            | ExprKind::SizeofExpr(a)
            | ExprKind::VecStepExpr(a) => f(a),
            ExprKind::Binary(_, a, b)
            | ExprKind::Assign(_, a, b)
            | ExprKind::Index(a, b)
            | ExprKind::Comma(a, b) => f(a) || f(b),
            ExprKind::Cond(a, b, c) => f(a) || f(b) || f(c),
            ExprKind::Call(_, args) | ExprKind::VecLit(_, args) => args.iter().any(f),
            _ => false,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Init {
    Expr(Expr),
    List(Vec<Init>, Span),
}

#[derive(Clone, Debug, PartialEq)]
pub struct VarDecl {
    pub name: String,
    pub ty: Type,
    /// Where the variable itself lives (`__local float tile[64]`).
    pub space: AddrSpace,
    pub qual: u8,
    pub init: Option<Init>,
    /// Declared `extern`: another declaration (maybe of another unit of a
    /// linked program) defines it.
    pub is_extern: bool,
    /// Declared `static`: inside a function, one object for all calls.
    pub is_static: bool,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    Expr(Expr),
    Decl(Vec<VarDecl>),
    Block(Vec<Stmt>),
    If(Expr, Box<Stmt>, Option<Box<Stmt>>),
    While(Expr, Box<Stmt>),
    DoWhile(Box<Stmt>, Expr),
    For(Option<Box<Stmt>>, Option<Expr>, Option<Expr>, Box<Stmt>),
    Break,
    Continue,
    Return(Option<Expr>),
    Switch(Expr, Box<Stmt>),
    /// `case V:` (value already evaluated) or `default:` (`None`), then the
    /// labelled statement.
    Case(Option<i64>, Box<Stmt>),
    /// `name: stmt`.
    Label(String, Box<Stmt>),
    /// `goto name;`
    Goto(String),
    Empty,
}

/// `__attribute__`s that reach reflection.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FuncAttrs {
    pub reqd_work_group_size: Option<[u32; 3]>,
    pub work_group_size_hint: Option<[u32; 3]>,
    pub vec_type_hint: Option<String>,
    /// The attributes as written, for `CL_KERNEL_ATTRIBUTES`.
    pub text: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    None,
    ReadOnly,
    WriteOnly,
    ReadWrite,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: String,
    pub ty: Type,
    /// Qualifiers of the parameter's pointee (pointers) or of itself.
    pub qual: u8,
    pub access: Access,
    /// The type as the source spells it (typedef names kept), for
    /// `CL_KERNEL_ARG_TYPE_NAME`.
    pub type_name: String,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FuncDef {
    pub name: String,
    pub ret: Type,
    pub params: Vec<Param>,
    pub body: Option<Stmt>,
    pub is_kernel: bool,
    pub attrs: FuncAttrs,
    pub span: Span,
}

/// An unroll hint on a loop: `#pragma unroll [N]`, `#pragma nounroll`,
/// `__attribute__((opencl_unroll_hint[(N)]))`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoopHint {
    /// Unroll fully (no count given).
    Full,
    /// Unroll by this many (2 or more).
    Count(u32),
    /// Do not unroll (`nounroll`, or a count of 1).
    Never,
}

#[derive(Clone, Debug, Default)]
pub struct TranslationUnit {
    /// Unroll hints, by the span of the loop statement they precede.
    pub loop_hints: crate::HashMap<Span, LoopHint>,
    pub funcs: Vec<FuncDef>,
    /// Program-scope variables (`__constant` data and `__global`
    /// variables).
    pub globals: Vec<VarDecl>,
    pub types: crate::sema::types::TypeTable,
}
