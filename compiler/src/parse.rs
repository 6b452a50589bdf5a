//! The parser: recursive descent over the preprocessor's tokens into the
//! [`ast`](crate::ast). Owns declarations (typedefs, struct/union/enum tags,
//! enum constants) because C cannot be parsed without them. Errors go to the
//! diagnostics; the parser recovers at statement and declaration
//! boundaries and never panics.

use crate::ast::*;
use crate::diag::Diagnostics;
use crate::sema::types::{
    qual, vector_from_name, AddrSpace, Member, MemberLayout, Scalar, StructDef, Type, TypeRef,
    TypeTable,
};
use crate::sema::{consteval, linkage};
use crate::token::{Span, Token, TokenKind};
use crate::{HashMap, HashSet};

/// Nesting deeper than this is reported rather than risking the stack.
const MAX_DEPTH: u32 = 256;

pub struct Parser<'a> {
    toks: &'a [Token],
    pos: usize,
    diags: &'a mut Diagnostics,
    types: TypeTable,
    typedefs: Vec<HashMap<String, Type>>,
    tags: HashMap<String, usize>,
    enum_tags: HashMap<String, ()>,
    /// Enumerators: value and type (see `enum_specifier`).
    enum_consts: HashMap<String, (i64, Scalar)>,
    /// Unsuffixed floating literals are `double` only with cl_khr_fp64.
    fp64: bool,
    depth: u32,
    eof: Token,
    /// Labels and gotos of the function body being parsed (C99 6.8.6.1:
    /// a goto names a label of the same function).
    labels: Vec<(String, Span)>,
    gotos: Vec<(String, Span)>,
    /// The translation unit being parsed, of a linked program (see
    /// [`crate::sema::linkage`]), and where its declarations begin in
    /// `funcs` and `globals`.
    unit: u32,
    unit_start: (usize, usize),
    /// File-scope names the current unit declares `static`.
    unit_statics: HashSet<String>,
    /// Untagged struct and union definitions and the unit of each.
    untagged_structs: Vec<(usize, u32)>,
    /// Where the parameter list just parsed had `...`.
    variadic_at: Option<Span>,
    /// An unroll hint just read (`#pragma unroll`, `opencl_unroll_hint`),
    /// where it was written, and whether it was an attribute: the next
    /// statement must be a loop.
    pending_hint: Option<(LoopHint, Span, bool)>,
    /// Unroll hints by the span of their loop statement.
    loop_hints: HashMap<Span, LoopHint>,
}

/// What declaration specifiers said.
#[derive(Clone, Debug)]
struct Specs {
    ty: Type,
    /// The spelling of the base type (typedef names kept).
    name: String,
    space: Option<AddrSpace>,
    qual: u8,
    is_typedef: bool,
    is_extern: bool,
    is_static: bool,
    is_kernel: bool,
    access: Access,
    attrs: Vec<Attr>,
}

#[derive(Clone, Debug)]
struct Attr {
    name: String,
    args: Vec<Expr>,
    /// `vec_type_hint(T)`: the type argument.
    ty_arg: Option<Type>,
    span: Span,
}

/// A declarator: the name and the type built around the specifiers.
struct Declarator {
    name: Option<String>,
    ty: Type,
    /// Qualifiers of the outermost pointer (`restrict`).
    ptr_qual: u8,
    /// Pointee qualifiers when `ty` is a pointer.
    pointee_qual: u8,
    params: Option<Vec<Param>>,
    span: Span,
    type_name: String,
    /// Where a variable so declared lives: the specifiers' address space,
    /// or for a pointer the one written after its last `*`.
    var_space: AddrSpace,
    /// Attributes written after the name or the array dimensions.
    attrs: Vec<Attr>,
}

pub fn parse(toks: &[Token], fp64: bool, diags: &mut Diagnostics) -> TranslationUnit {
    let eof = Token {
        kind: TokenKind::Eof,
        span: toks.last().map(|t| t.span).unwrap_or_default(),
    };
    let mut p = Parser {
        toks,
        pos: 0,
        diags,
        types: TypeTable::default(),
        typedefs: vec![HashMap::default()],
        tags: HashMap::default(),
        enum_tags: HashMap::default(),
        enum_consts: HashMap::default(),
        fp64,
        depth: 0,
        eof,
        labels: Vec::new(),
        gotos: Vec::new(),
        unit: 0,
        unit_start: (0, 0),
        unit_statics: HashSet::default(),
        untagged_structs: Vec::new(),
        variadic_at: None,
        pending_hint: None,
        loop_hints: HashMap::default(),
    };
    let mut tu = TranslationUnit::default();
    while !p.at_eof() {
        let before = p.pos;
        p.external_declaration(&mut tu);
        if p.pos == before {
            p.bump();
        }
    }
    if p.unit > 0 {
        p.end_translation_unit(&mut tu);
    }
    tu.types = std::mem::take(&mut p.types);
    tu.loop_hints = std::mem::take(&mut p.loop_hints);
    tu
}

/// The unroll hint of a `#pragma unroll [N]`, `#pragma unroll(N)` or
/// `#pragma nounroll` (the text after `#pragma`); `None` for other
/// pragmas, `Some(Err)` for an unroll pragma with a bad count.
fn pragma_loop_hint(text: &str) -> Option<Result<LoopHint, ()>> {
    let text = text.trim();
    if text == "nounroll" {
        return Some(Ok(LoopHint::Never));
    }
    let rest = text.strip_prefix("unroll")?;
    if rest.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_') {
        return None;
    }
    let count = rest
        .trim()
        .trim_start_matches('(')
        .trim_end_matches(')')
        .trim();
    if count.is_empty() {
        return Some(Ok(LoopHint::Full));
    }
    Some(match count.parse::<u32>() {
        Ok(1) => Ok(LoopHint::Never),
        Ok(n) if n > 1 => Ok(LoopHint::Count(n)),
        _ => Err(()),
    })
}

impl<'a> Parser<'a> {
    // ---- token helpers -------------------------------------------------

    fn peek(&self) -> &Token {
        self.toks.get(self.pos).unwrap_or(&self.eof)
    }

    fn peek_at(&self, n: usize) -> &Token {
        self.toks.get(self.pos + n).unwrap_or(&self.eof)
    }

    fn span(&self) -> Span {
        self.peek().span
    }

    fn at_eof(&self) -> bool {
        matches!(self.peek().kind, TokenKind::Eof)
    }

    fn bump(&mut self) -> Token {
        let t = self.peek().clone();
        if self.pos < self.toks.len() {
            self.pos += 1;
        }
        t
    }

    fn is_punct(&self, p: &str) -> bool {
        matches!(&self.peek().kind, TokenKind::Punct(q) if *q == p)
    }

    fn is_punct_at(&self, n: usize, p: &str) -> bool {
        matches!(&self.peek_at(n).kind, TokenKind::Punct(q) if *q == p)
    }

    fn eat(&mut self, p: &str) -> bool {
        if self.is_punct(p) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, p: &str) -> bool {
        if self.eat(p) {
            return true;
        }
        let found = describe(self.peek());
        self.diags
            .error(self.span(), format!("expected '{p}', found {found}"));
        false
    }

    fn ident_text(&self) -> Option<&str> {
        match &self.peek().kind {
            TokenKind::Identifier(s) => Some(s),
            _ => None,
        }
    }

    fn is_ident(&self, s: &str) -> bool {
        self.ident_text() == Some(s)
    }

    fn typedef(&self, name: &str) -> Option<&Type> {
        self.typedefs.iter().rev().find_map(|m| m.get(name))
    }

    /// Skips to the end of the current statement or declaration.
    fn recover(&mut self) {
        let mut depth = 0i32;
        while !self.at_eof() {
            if self.is_punct("{") || self.is_punct("(") || self.is_punct("[") {
                depth += 1;
            } else if self.is_punct("}") || self.is_punct(")") || self.is_punct("]") {
                if depth == 0 {
                    if self.is_punct("}") {
                        return;
                    }
                } else {
                    depth -= 1;
                    if depth == 0 && self.is_punct("}") {
                        self.bump();
                        if self.is_punct(";") {
                            self.bump();
                        }
                        return;
                    }
                }
            } else if self.is_punct(";") && depth == 0 {
                self.bump();
                return;
            }
            self.bump();
        }
    }

    fn enter(&mut self) -> bool {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            self.diags
                .error(self.span(), "nesting is too deep for this compiler");
            return false;
        }
        true
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    // ---- declarations --------------------------------------------------

    /// Does the current token begin a type name or declaration specifier?
    fn starts_type(&self) -> bool {
        self.starts_type_at(0)
    }

    fn starts_type_at(&self, n: usize) -> bool {
        let TokenKind::Identifier(s) = &self.peek_at(n).kind else {
            return false;
        };
        if s == "generic" {
            return self.generic_keyword_at(n);
        }
        is_specifier_keyword(s)
            || Scalar::from_name(s).is_some()
            || vector_from_name(s).is_some()
            || is_opaque_type(s).is_some()
            || self.typedef(s).is_some()
    }

    /// Do the tokens from here read `( * name ) (`, a pointer to a
    /// function?
    fn declares_function_pointer(&self) -> bool {
        let mut k = 2;
        while matches!(self.peek_at(k).kind, TokenKind::Identifier(_)) && k < 6 {
            k += 1;
        }
        self.is_punct_at(k, ")") && self.is_punct_at(k + 1, "(")
    }

    /// An address space qualifier; OpenCL C 6.7 allows one per type.
    fn set_space(&mut self, specs: &mut Specs, space: AddrSpace) {
        if specs.space.is_some_and(|s| s != space) {
            self.diags
                .error(self.span(), "multiple address spaces specified for type");
        }
        specs.space = Some(space);
    }

    /// Is `generic` at token `n` the address space (OpenCL C 2.0) rather
    /// than a name? It is when a type, a qualifier or a declarator follows.
    fn generic_keyword_at(&self, n: usize) -> bool {
        match &self.peek_at(n + 1).kind {
            TokenKind::Identifier(_) => true,
            TokenKind::Punct(p) => *p == "*",
            _ => false,
        }
    }

    /// Gives the `static` names of the unit that ends here their private
    /// spelling, and starts the next unit.
    fn end_translation_unit(&mut self, tu: &mut TranslationUnit) {
        let statics = std::mem::take(&mut self.unit_statics);
        let (funcs, globals) = self.unit_start;
        linkage::make_statics_private(
            &mut tu.funcs[funcs..],
            &mut tu.globals[globals..],
            &statics,
            self.unit,
        );
        self.unit += 1;
        self.unit_start = (tu.funcs.len(), tu.globals.len());
    }

    /// external-declaration: function-definition | declaration
    fn external_declaration(&mut self, tu: &mut TranslationUnit) {
        if let TokenKind::Pragma(text) = &self.peek().kind {
            let next_unit = text
                .split_whitespace()
                .eq(linkage::TRANSLATION_UNIT_PRAGMA.split(' '));
            self.bump();
            if next_unit {
                self.end_translation_unit(tu);
            }
            return;
        }
        if self.eat(";") {
            return;
        }
        let start = self.span();
        let Some(specs) = self.declaration_specifiers() else {
            self.diags.error(
                start,
                format!("expected a declaration, found {}", describe(self.peek())),
            );
            self.recover();
            return;
        };
        if self.eat(";") {
            return;
        }
        loop {
            let d = self.declarator(&specs);
            let mut attrs = specs.attrs.clone();
            attrs.extend(self.attributes());
            if let (true, Some(name)) = (specs.is_static, &d.name) {
                if specs.is_kernel {
                    self.diags
                        .error(d.span, "a kernel function cannot be declared 'static'");
                }
                self.unit_statics.insert(name.clone());
            }
            if let Some(params) = d.params {
                let name = d.name.unwrap_or_default();
                if self.is_punct("{") {
                    self.typedefs.push(HashMap::default());
                    self.labels.clear();
                    self.gotos.clear();
                    let body = self.compound_statement();
                    self.check_labels();
                    self.typedefs.pop();
                    let fattrs = self.func_attrs(&attrs);
                    tu.funcs.push(FuncDef {
                        name,
                        ret: d.ty,
                        params,
                        body: Some(body),
                        is_kernel: specs.is_kernel,
                        attrs: fattrs,
                        span: d.span,
                    });
                    return;
                }
                // A prototype declares the function for calls that come
                // before its definition, or that another compilation unit
                // of a clLinkProgram resolves; lowering pairs it with the
                // definition.
                let fattrs = self.func_attrs(&attrs);
                tu.funcs.push(FuncDef {
                    name,
                    ret: d.ty,
                    params,
                    body: None,
                    is_kernel: specs.is_kernel,
                    attrs: fattrs,
                    span: d.span,
                });
                if !self.eat(",") {
                    self.expect(";");
                    return;
                }
                continue;
            }
            let Some(name) = d.name else {
                self.diags.error(d.span, "expected an identifier");
                self.recover();
                return;
            };
            if specs.is_typedef {
                if let Some(m) = self.typedefs.last_mut() {
                    m.insert(name, d.ty);
                }
            } else {
                let init = if self.eat("=") {
                    Some(self.initializer(&d.ty))
                } else {
                    None
                };
                tu.globals.push(VarDecl {
                    name,
                    ty: complete_array(d.ty, init.as_ref()),
                    space: d.var_space,
                    qual: specs.qual,
                    init,
                    is_extern: specs.is_extern,
                    is_static: specs.is_static,
                    span: d.span,
                });
            }
            if !self.eat(",") {
                if !self.expect(";") {
                    self.recover();
                }
                return;
            }
        }
    }

    fn func_attrs(&mut self, attrs: &[Attr]) -> FuncAttrs {
        let mut out = FuncAttrs::default();
        for a in attrs {
            match a.name.as_str() {
                "reqd_work_group_size" | "work_group_size_hint" => {
                    let vals: Vec<u32> = a
                        .args
                        .iter()
                        .filter_map(|e| consteval::eval(e, &self.types))
                        .map(|v| v.as_i64().clamp(0, u32::MAX as i64) as u32)
                        .collect();
                    if vals.len() != 3 || vals.contains(&0) {
                        self.diags.error(
                            a.span,
                            format!("'{}' takes three positive integer constants", a.name),
                        );
                        continue;
                    }
                    let v = [vals[0], vals[1], vals[2]];
                    out.text
                        .push(format!("{}({},{},{})", a.name, v[0], v[1], v[2]));
                    if a.name == "reqd_work_group_size" {
                        out.reqd_work_group_size = Some(v);
                    } else {
                        out.work_group_size_hint = Some(v);
                    }
                }
                "vec_type_hint" => {
                    if let Some(t) = &a.ty_arg {
                        let n = self.types.name(t);
                        out.text.push(format!("vec_type_hint({n})"));
                        out.vec_type_hint = Some(n);
                    } else {
                        self.diags.error(a.span, "'vec_type_hint' takes a type");
                    }
                }
                _ => {}
            }
        }
        out
    }

    /// The `aligned` and `packed` attributes among `attrs`. `aligned`
    /// without an argument is the largest alignment of any type, 128 bytes
    /// (a `long16`); an argument that is not a power of two is an error.
    fn member_layout_attrs<'t>(&mut self, attrs: impl Iterator<Item = &'t Attr>) -> MemberLayout {
        let mut out = MemberLayout::default();
        for a in attrs {
            match a.name.as_str() {
                "packed" => out.packed = true,
                "aligned" => {
                    let n = match a.args.first() {
                        None => 128,
                        Some(e) => match consteval::eval(e, &self.types).map(|v| v.as_i64()) {
                            Some(n) if n > 0 && n <= 1 << 16 && (n & (n - 1)) == 0 => n as u32,
                            _ => {
                                self.diags.error(
                                    a.span,
                                    "requested alignment is not a positive power of 2",
                                );
                                1
                            }
                        },
                    };
                    out.aligned = out.aligned.max(n);
                }
                _ => {}
            }
        }
        out
    }

    /// attribute-list: ( `__attribute__` `((` attribute (`,` attribute)* `))` )*
    fn attributes(&mut self) -> Vec<Attr> {
        let mut out = Vec::new();
        while self.is_ident("__attribute__") || self.is_ident("__attribute") {
            self.bump();
            if !self.expect("(") || !self.expect("(") {
                self.recover();
                return out;
            }
            while !self.is_punct(")") && !self.at_eof() {
                let span = self.span();
                let name = match self.ident_text() {
                    Some(s) => s.trim_matches('_').to_string(),
                    None => {
                        self.diags.error(span, "expected an attribute name");
                        break;
                    }
                };
                self.bump();
                let mut args = Vec::new();
                let mut ty_arg = None;
                if self.eat("(") {
                    while !self.is_punct(")") && !self.at_eof() {
                        if self.starts_type() {
                            ty_arg = self.type_name();
                        } else {
                            args.push(self.assignment_expr());
                        }
                        if !self.eat(",") {
                            break;
                        }
                    }
                    self.expect(")");
                }
                match name.as_str() {
                    "reqd_work_group_size"
                    | "work_group_size_hint"
                    | "vec_type_hint"
                    | "aligned"
                    | "packed"
                    | "always_inline"
                    | "noinline"
                    | "const"
                    | "pure"
                    | "overloadable"
                    | "unused"
                    | "used"
                    | "nosvm"
                    | "opencl_unroll_hint"
                    | "endian" => {}
                    _ => self
                        .diags
                        .warning(span, format!("unknown attribute '{name}' ignored")),
                }
                out.push(Attr {
                    name,
                    args,
                    ty_arg,
                    span,
                });
                if !self.eat(",") {
                    break;
                }
            }
            self.expect(")");
            self.expect(")");
        }
        out
    }

    /// declaration-specifiers: ( storage-class | type-qualifier |
    ///   address-space | function-specifier | access-qualifier |
    ///   type-specifier | attribute )+
    fn declaration_specifiers(&mut self) -> Option<Specs> {
        let start = self.span();
        let mut specs = Specs {
            ty: Type::Void,
            name: String::new(),
            space: None,
            qual: 0,
            is_typedef: false,
            is_extern: false,
            is_static: false,
            is_kernel: false,
            access: Access::None,
            attrs: Vec::new(),
        };
        let mut base: Option<Type> = None;
        let (mut signed, mut unsigned, mut longs, mut shorts, mut ints, mut chars) =
            (false, false, 0, 0, 0, 0);
        let mut any = false;
        loop {
            if self.is_ident("__attribute__") || self.is_ident("__attribute") {
                let a = self.attributes();
                specs.attrs.extend(a);
                any = true;
                continue;
            }
            let Some(word) = self.ident_text().map(str::to_string) else {
                break;
            };
            match word.as_str() {
                "typedef" => specs.is_typedef = true,
                "extern" => specs.is_extern = true,
                "static" => specs.is_static = true,
                "inline" | "__inline" | "__inline__" => {}
                // OpenCL C 6.11 (9).
                "auto" | "register" => self.diags.error(
                    self.span(),
                    format!("the '{word}' storage-class specifier is not supported in OpenCL C"),
                ),
                "const" | "__const" => specs.qual |= qual::CONST,
                "volatile" | "__volatile" => specs.qual |= qual::VOLATILE,
                "restrict" | "__restrict" => specs.qual |= qual::RESTRICT,
                "__global" | "global" => self.set_space(&mut specs, AddrSpace::Global),
                "__local" | "local" => self.set_space(&mut specs, AddrSpace::Local),
                "__constant" | "constant" => self.set_space(&mut specs, AddrSpace::Constant),
                "__private" | "private" | "__generic" => {
                    self.set_space(&mut specs, AddrSpace::Private)
                }
                "generic" if self.generic_keyword_at(0) => {
                    self.set_space(&mut specs, AddrSpace::Private)
                }
                "__kernel" | "kernel" => specs.is_kernel = true,
                "__read_only" | "read_only" => specs.access = Access::ReadOnly,
                "__write_only" | "write_only" => specs.access = Access::WriteOnly,
                "__read_write" | "read_write" => specs.access = Access::ReadWrite,
                "signed" | "__signed" => signed = true,
                "unsigned" => unsigned = true,
                "long" => longs += 1,
                "short" => shorts += 1,
                "int" => ints += 1,
                "char" => chars += 1,
                "struct" | "union" => {
                    if base.is_some() {
                        break;
                    }
                    self.bump();
                    base = Some(self.struct_specifier(word == "union"));
                    any = true;
                    continue;
                }
                "enum" => {
                    if base.is_some() {
                        break;
                    }
                    self.bump();
                    self.enum_specifier();
                    base = Some(Type::INT);
                    specs.name = "int".into();
                    any = true;
                    continue;
                }
                "void" if base.is_none() => {
                    base = Some(Type::Void);
                }
                _ => {
                    let has_int_words = signed || unsigned || longs + shorts + ints + chars > 0;
                    if base.is_some() || has_int_words {
                        break;
                    }
                    if let Some(s) = Scalar::from_name(&word) {
                        base = Some(Type::Scalar(s));
                        specs.name = word.clone();
                    } else if let Some(v) = vector_from_name(&word) {
                        base = Some(v);
                        specs.name = word.clone();
                    } else if let Some(o) = is_opaque_type(&word) {
                        base = Some(Type::Opaque(o));
                        specs.name = word.clone();
                    } else if let Some(t) = self.typedef(&word) {
                        base = Some(t.clone());
                        specs.name = word.clone();
                    } else {
                        break;
                    }
                }
            }
            any = true;
            self.bump();
        }
        if !any {
            return None;
        }
        let int_words = signed || unsigned || longs + shorts + ints + chars > 0;
        specs.ty = match base {
            Some(t) => {
                if int_words {
                    self.diags
                        .error(start, "cannot combine these type specifiers");
                }
                t
            }
            None if int_words => {
                let bits = if chars > 0 {
                    8
                } else if shorts > 0 {
                    16
                } else if longs > 0 {
                    64
                } else {
                    32
                };
                let s = Scalar::int(bits, !unsigned);
                specs.name = s.name().into();
                Type::Scalar(s)
            }
            None => {
                if !specs.is_kernel && specs.qual == 0 && specs.space.is_none() {
                    self.diags.error(start, "type specifier missing");
                }
                Type::INT
            }
        };
        if specs.name.is_empty() {
            specs.name = self.types.name(&specs.ty);
        }
        Some(specs)
    }

    /// struct-or-union-specifier:
    ///   (`struct`|`union`) attribute* identifier? (`{` struct-declaration* `}`)? attribute*
    fn struct_specifier(&mut self, is_union: bool) -> Type {
        let mut attrs = self.attributes();
        let span = self.span();
        let tag = self.ident_text().map(str::to_string);
        if tag.is_some() {
            self.bump();
        }
        let existing = tag.as_ref().and_then(|t| self.tags.get(t).copied());
        if !self.is_punct("{") {
            if let Some(id) = existing {
                return Type::Struct(id);
            }
            // A forward declaration: an incomplete type until defined.
            let id = self.types.structs.len();
            self.types.structs.push(StructDef {
                tag: tag.clone(),
                is_union,
                members: Vec::new(),
                size: 0,
                align: 1,
                complete: false,
            });
            if let Some(t) = tag {
                self.tags.insert(t, id);
            }
            return Type::Struct(id);
        }
        self.bump();
        let mut members = Vec::new();
        let mut member_attrs = Vec::new();
        while !self.is_punct("}") && !self.at_eof() {
            let Some(specs) = self.declaration_specifiers() else {
                self.diags.error(
                    self.span(),
                    format!(
                        "expected a member declaration, found {}",
                        describe(self.peek())
                    ),
                );
                self.recover();
                continue;
            };
            loop {
                let d = self.declarator(&specs);
                if self.is_punct(":") {
                    self.diags
                        .error(self.span(), "bit-fields are not supported in OpenCL C");
                    self.bump();
                    self.conditional_expr();
                }
                // OpenCL C 6.11 (2) and (18).
                if let Type::Opaque(tname) = d.ty {
                    self.diags.error(
                        d.span,
                        format!("a struct or union member cannot be of type {tname}"),
                    );
                }
                // An unnamed member of an untagged struct or union type is
                // an anonymous member (C11 6.7.2.1p13): its members are
                // found through it (`TypeTable::member_path`).
                let anonymous = d.name.is_none()
                    && matches!(d.ty, Type::Struct(id)
                        if self.types.structs.get(id).is_some_and(|s| s.tag.is_none()));
                match d.name {
                    Some(name) => {
                        let attrs = specs.attrs.iter().chain(&d.attrs);
                        member_attrs.push(self.member_layout_attrs(attrs));
                        members.push(Member {
                            name,
                            ty: d.ty,
                            offset: 0,
                        });
                    }
                    None if anonymous => {
                        let attrs = specs.attrs.iter().chain(&d.attrs);
                        member_attrs.push(self.member_layout_attrs(attrs));
                        members.push(Member {
                            name: String::new(),
                            ty: d.ty,
                            offset: 0,
                        });
                    }
                    None => self.diags.error(d.span, "expected a member name"),
                }
                if !self.eat(",") {
                    break;
                }
            }
            if !self.expect(";") {
                self.recover();
            }
        }
        self.expect("}");
        attrs.extend(self.attributes());
        let packed = attrs.iter().any(|a| a.name == "packed");
        let min_align = self.member_layout_attrs(attrs.iter()).aligned.max(1);
        for m in &members {
            if let Type::Struct(id) = m.ty {
                if !self.types.structs.get(id).is_some_and(|s| s.complete) {
                    self.diags
                        .error(span, format!("member '{}' has incomplete type", m.name));
                }
            }
        }
        let (size, align) =
            self.types
                .layout(&mut members, &member_attrs, is_union, packed, min_align);
        let def = StructDef {
            tag: tag.clone(),
            is_union,
            members,
            size,
            align,
            complete: true,
        };
        // The units of a clLinkProgram are parsed as one text, and each may
        // define a struct that they share (C99 6.2.7: compatible types
        // across translation units); an identical definition is that same
        // type, so values pass between the units' functions.
        if let Some(id) = existing.filter(|id| self.types.structs[*id] == def) {
            return Type::Struct(id);
        }
        // Likewise an untagged definition identical to one of an earlier
        // unit (`typedef struct { ... } T;` in a shared header); within
        // one unit each untagged definition is a type of its own.
        if tag.is_none() {
            let earlier = self
                .untagged_structs
                .iter()
                .find(|&&(id, unit)| unit != self.unit && self.types.structs.get(id) == Some(&def));
            if let Some(&(id, _)) = earlier {
                return Type::Struct(id);
            }
        }
        match existing.filter(|id| !self.types.structs[*id].complete) {
            Some(id) => {
                self.types.structs[id] = def;
                Type::Struct(id)
            }
            None => {
                let id = self.types.structs.len();
                self.types.structs.push(def);
                match tag {
                    Some(t) => {
                        self.tags.insert(t, id);
                    }
                    None => self.untagged_structs.push((id, self.unit)),
                }
                Type::Struct(id)
            }
        }
    }

    /// enum-specifier: `enum` identifier? (`{` enumerator (`,` enumerator)* `,`? `}`)?
    fn enum_specifier(&mut self) {
        self.attributes();
        if let Some(t) = self.ident_text().map(str::to_string) {
            self.bump();
            self.enum_tags.insert(t, ());
        }
        if !self.eat("{") {
            return;
        }
        // An enumerator is an `int` (C99 6.7.2.2). Like GCC and clang, one
        // whose value does not fit keeps the type of its value: hashcat's
        // headers keep 64-bit hash constants in enums.
        let mut next = (0i64, Scalar::Int);
        while !self.is_punct("}") && !self.at_eof() {
            let span = self.span();
            let Some(name) = self.ident_text().map(str::to_string) else {
                self.diags.error(span, "expected an enumerator name");
                self.recover();
                return;
            };
            self.bump();
            if self.eat("=") {
                let e = self.conditional_expr();
                match consteval::eval(&e, &self.types) {
                    Some(v) => {
                        let ty = consteval::int_type(&e);
                        next = enumerator(wide_value(v.as_i64(), ty), ty);
                    }
                    None => self
                        .diags
                        .error(e.span, "enumerator value is not an integer constant"),
                }
            }
            self.enum_consts.insert(name, next);
            next = enumerator(wide_value(next.0, next.1) + 1, next.1);
            if !self.eat(",") {
                break;
            }
        }
        self.expect("}");
    }

    /// declarator: pointer* direct-declarator
    /// pointer: `*` (type-qualifier | address-space)*
    /// direct-declarator: identifier? (`[` constant-expression? `]` | `(` parameter-list `)`)*
    fn declarator(&mut self, specs: &Specs) -> Declarator {
        let span = self.span();
        let mut ty = specs.ty.clone();
        let mut type_name = specs.name.clone();
        let mut pointee_qual = 0u8;
        let mut ptr_qual = 0u8;
        let mut space = specs.space.unwrap_or(AddrSpace::Private);
        let mut cur_qual = specs.qual & (qual::CONST | qual::VOLATILE);
        let mut is_ptr = false;
        while self.is_punct("*") {
            if let Some(name) = image_or_sampler(&ty) {
                self.diags
                    .error(self.span(), format!("pointers to {name} are not allowed"));
            }
            self.bump();
            ty = Type::Pointer(TypeRef::new(ty), space, cur_qual);
            type_name.push('*');
            pointee_qual = cur_qual;
            is_ptr = true;
            cur_qual = 0;
            ptr_qual = 0;
            space = AddrSpace::Private;
            loop {
                match self.ident_text() {
                    Some("const" | "__const") => cur_qual |= qual::CONST,
                    Some("volatile" | "__volatile") => cur_qual |= qual::VOLATILE,
                    Some("restrict" | "__restrict") => ptr_qual |= qual::RESTRICT,
                    Some("__global" | "global") => space = AddrSpace::Global,
                    Some("__local" | "local") => space = AddrSpace::Local,
                    Some("__private" | "private") => space = AddrSpace::Private,
                    Some("__constant" | "constant") => space = AddrSpace::Constant,
                    // The generic address space is held as __private
                    // until a pointer's value fixes it (see lowering).
                    Some("__generic") => space = AddrSpace::Private,
                    Some("generic") if self.generic_keyword_at(0) => space = AddrSpace::Private,
                    _ => break,
                }
                self.bump();
            }
        }
        if !is_ptr {
            ptr_qual = specs.qual & qual::RESTRICT;
        }
        let mut name = None;
        let mut dspan = span;
        if self.is_punct("(") && self.is_punct_at(1, "*") && self.declares_function_pointer() {
            self.diags.error(
                self.span(),
                "pointers to functions (function pointers) are not allowed in OpenCL C",
            );
        }
        if let Some(n) = self.ident_text() {
            if !is_specifier_keyword(n) {
                name = Some(n.to_string());
                dspan = self.span();
                self.bump();
            }
        }
        let mut attrs = self.attributes();
        let mut params = None;
        if self.is_punct("(") && name.is_some() {
            self.bump();
            self.variadic_at = None;
            params = Some(self.parameter_list());
            // OpenCL C 6.11 (5): printf is the one variadic function.
            if let Some(at) = self.variadic_at.take() {
                if name.as_deref() != Some("printf") {
                    self.diags
                        .error(at, "variadic functions are not supported in OpenCL C");
                }
            }
        }
        let mut dims = Vec::new();
        while self.eat("[") {
            if self.eat("]") {
                dims.push(0u32);
                continue;
            }
            let e = self.assignment_expr();
            let n = match consteval::eval(&e, &self.types) {
                Some(v) if v.as_i64() > 0 && v.as_i64() <= u32::MAX as i64 => v.as_i64() as u32,
                _ => {
                    self.diags.error(
                        e.span,
                        "array size must be a positive integer constant expression",
                    );
                    1
                }
            };
            dims.push(n);
            self.expect("]");
        }
        // OpenCL C 6.11 (2): images and samplers are never elements of
        // arrays, nor what a function returns.
        if let Some(tname) = image_or_sampler(&ty) {
            if !dims.is_empty() {
                self.diags
                    .error(dspan, format!("arrays of {tname} are not allowed"));
            } else if params.is_some() {
                self.diags
                    .error(dspan, format!("a function cannot return {tname}"));
            }
        }
        for n in dims.into_iter().rev() {
            ty = Type::Array(TypeRef::new(ty), n);
        }
        attrs.extend(self.attributes());
        let var_space = if is_ptr {
            space
        } else {
            specs.space.unwrap_or(AddrSpace::Private)
        };
        Declarator {
            name,
            ty,
            ptr_qual,
            pointee_qual,
            params,
            span: dspan,
            type_name,
            var_space,
            attrs,
        }
    }

    /// parameter-list: `void` | parameter-declaration (`,` parameter-declaration)*
    fn parameter_list(&mut self) -> Vec<Param> {
        let mut out = Vec::new();
        if self.is_ident("void") && self.is_punct_at(1, ")") {
            self.bump();
        }
        while !self.is_punct(")") && !self.at_eof() {
            let span = self.span();
            if self.eat("...") {
                self.variadic_at = Some(span);
                break;
            }
            let Some(specs) = self.declaration_specifiers() else {
                self.diags.error(
                    span,
                    format!(
                        "expected a parameter declaration, found {}",
                        describe(self.peek())
                    ),
                );
                break;
            };
            let d = self.declarator(&specs);
            // Array parameters are pointers (C99 6.7.5.3).
            let (ty, type_name) = match d.ty {
                Type::Array(elem, _) => (
                    Type::Pointer(elem, specs.space.unwrap_or(AddrSpace::Private), specs.qual),
                    format!("{}*", d.type_name),
                ),
                t => (t, d.type_name),
            };
            // CL_KERNEL_ARG_TYPE_*: the pointee's const and volatile, the
            // pointer's restrict, const for __constant. A value's own
            // `const` makes the parameter read-only; reflection leaves it
            // out.
            let qual = match &ty {
                Type::Pointer(_, space, _) => {
                    let constant = if *space == AddrSpace::Constant {
                        qual::CONST
                    } else {
                        0
                    };
                    d.pointee_qual | d.ptr_qual | constant
                }
                _ => specs.qual & qual::CONST,
            };
            out.push(Param {
                name: d.name.unwrap_or_default(),
                ty,
                qual,
                access: specs.access,
                type_name,
                span: d.span,
            });
            if !self.eat(",") {
                break;
            }
        }
        if !self.expect(")") {
            while !self.is_punct(")") && !self.is_punct("{") && !self.at_eof() {
                self.bump();
            }
            self.eat(")");
        }
        out
    }

    /// type-name: specifier-qualifier-list abstract-declarator?
    fn type_name(&mut self) -> Option<Type> {
        let specs = self.declaration_specifiers()?;
        let d = self.declarator(&specs);
        if let Some(n) = d.name {
            self.diags.error(
                d.span,
                format!("unexpected identifier '{n}' in a type name"),
            );
        }
        Some(d.ty)
    }

    /// initializer: assignment-expression | `{` initializer (`,` initializer)* `,`? `}`
    /// initializer: assignment-expression | `{` (designation? initializer
    ///   `,`)* `}`; designation: (`[` constant-expression `]` | `.`
    ///   identifier)+ `=`
    ///
    /// The list is built for `ty`: designators (C99 6.7.8) become positions,
    /// so later stages see one entry per member or element, an empty list
    /// standing for one left zero.
    fn initializer(&mut self, ty: &Type) -> Init {
        let span = self.span();
        if !self.eat("{") {
            return Init::Expr(self.assignment_expr());
        }
        if !self.enter() {
            self.recover();
            return Init::List(Vec::new(), span);
        }
        let mut items: Vec<Option<Init>> = Vec::new();
        let mut pos = 0usize;
        while !self.is_punct("}") && !self.at_eof() {
            let before = self.pos;
            if self.is_punct(".") || self.is_punct("[") {
                let path = self.designation();
                match path.first().and_then(|d| self.designator_index(ty, d)) {
                    Some(idx) => {
                        if items.len() <= idx {
                            items.resize_with(idx + 1, || None);
                        }
                        let elem = self.element_type(ty, idx);
                        self.designated(&mut items[idx], &elem, &path[1..], span);
                        pos = idx + 1;
                    }
                    None => {
                        self.initializer(&Type::INT);
                    }
                }
            } else {
                if items.len() <= pos {
                    items.resize_with(pos + 1, || None);
                }
                let elem = self.element_type(ty, pos);
                items[pos] = Some(self.initializer(&elem));
                pos += 1;
            }
            if self.pos == before {
                self.bump();
            }
            if !self.eat(",") {
                break;
            }
        }
        self.expect("}");
        self.leave();
        let items = items
            .into_iter()
            .map(|i| i.unwrap_or(Init::List(Vec::new(), span)))
            .collect();
        Init::List(items, span)
    }

    /// The initializer at the end of a designator path, merged into what
    /// `slot` already holds.
    fn designated(&mut self, slot: &mut Option<Init>, ty: &Type, path: &[Designator], span: Span) {
        let Some(first) = path.first() else {
            *slot = Some(self.initializer(ty));
            return;
        };
        let Some(idx) = self.designator_index(ty, first) else {
            self.initializer(&Type::INT);
            return;
        };
        let mut items: Vec<Option<Init>> = match slot.take() {
            Some(Init::List(items, _)) => items.into_iter().map(Some).collect(),
            _ => Vec::new(),
        };
        if items.len() <= idx {
            items.resize_with(idx + 1, || None);
        }
        let elem = self.element_type(ty, idx);
        self.designated(&mut items[idx], &elem, &path[1..], span);
        let items = items
            .into_iter()
            .map(|i| i.unwrap_or(Init::List(Vec::new(), span)))
            .collect();
        *slot = Some(Init::List(items, span));
    }

    /// designation: designator+ `=`
    fn designation(&mut self) -> Vec<Designator> {
        let mut path = Vec::new();
        loop {
            let span = self.span();
            if self.eat(".") {
                match self.ident_text().map(str::to_string) {
                    Some(name) => {
                        self.bump();
                        path.push(Designator::Field(name, span));
                    }
                    None => {
                        self.diags.error(self.span(), "expected a field designator");
                        break;
                    }
                }
            } else if self.eat("[") {
                let e = self.conditional_expr();
                self.expect("]");
                match consteval::eval(&e, &self.types) {
                    Some(v) => path.push(Designator::Index(v.as_i64(), span)),
                    None => {
                        self.diags.error(
                            e.span,
                            "array designator is not an integer constant expression",
                        );
                        path.push(Designator::Index(0, span));
                    }
                }
            } else {
                break;
            }
        }
        self.expect("=");
        path
    }

    /// The position a designator selects in an object of type `ty`.
    fn designator_index(&mut self, ty: &Type, d: &Designator) -> Option<usize> {
        match (d, ty) {
            (Designator::Field(name, span), Type::Struct(id)) => {
                let def = self.types.structs.get(*id)?;
                match def.members.iter().position(|m| m.name == *name) {
                    Some(0) => Some(0),
                    Some(i) if !def.is_union => Some(i),
                    Some(_) => {
                        self.diags.error(
                            *span,
                            "initializing a union member other than the first is not supported yet",
                        );
                        None
                    }
                    None => {
                        let tn = self.types.name(ty);
                        self.diags.error(
                            *span,
                            format!("field designator '{name}' does not refer to any field in type '{tn}'"),
                        );
                        None
                    }
                }
            }
            (Designator::Index(i, span), Type::Array(_, n)) => {
                // An array sized by its initializer is bounded like any
                // variable (1 MiB), which bounds this list too.
                let bound = if *n > 0 { *n as i64 } else { 1 << 20 };
                if *i < 0 || *i >= bound {
                    self.diags.error(
                        *span,
                        format!("array index {i} in initializer exceeds array bounds"),
                    );
                    None
                } else {
                    Some(*i as usize)
                }
            }
            (Designator::Field(_, span), _) => {
                let tn = self.types.name(ty);
                self.diags.error(
                    *span,
                    format!(
                        "field designator cannot initialize a non-struct, non-union type '{tn}'"
                    ),
                );
                None
            }
            (Designator::Index(_, span), _) => {
                let tn = self.types.name(ty);
                self.diags.error(
                    *span,
                    format!("array designator cannot initialize non-array type '{tn}'"),
                );
                None
            }
        }
    }

    /// The type of position `idx` of an initializer list for `ty` (the
    /// type itself for a scalar in braces).
    fn element_type(&self, ty: &Type, idx: usize) -> Type {
        match ty {
            Type::Array(e, _) => (**e).clone(),
            Type::Vector(s, _) => Type::Scalar(*s),
            Type::Struct(id) => self
                .types
                .structs
                .get(*id)
                .and_then(|d| d.members.get(idx))
                .map_or(Type::INT, |m| m.ty.clone()),
            t => t.clone(),
        }
    }

    /// declaration: declaration-specifiers init-declarator-list? `;`
    fn declaration(&mut self) -> Stmt {
        let span = self.span();
        let Some(specs) = self.declaration_specifiers() else {
            self.recover();
            return Stmt {
                kind: StmtKind::Empty,
                span,
            };
        };
        let mut vars = Vec::new();
        if self.eat(";") {
            return Stmt {
                kind: StmtKind::Empty,
                span,
            };
        }
        loop {
            let d = self.declarator(&specs);
            self.attributes();
            let Some(name) = d.name else {
                self.diags.error(d.span, "expected an identifier");
                self.recover();
                return Stmt {
                    kind: StmtKind::Decl(vars),
                    span,
                };
            };
            if d.params.is_some() {
                self.diags.error(
                    d.span,
                    "function declarations inside functions are not supported",
                );
            }
            if specs.is_typedef {
                if let Some(m) = self.typedefs.last_mut() {
                    m.insert(name, d.ty);
                }
            } else {
                let init = if self.eat("=") {
                    Some(self.initializer(&d.ty))
                } else {
                    None
                };
                vars.push(VarDecl {
                    name,
                    ty: complete_array(d.ty, init.as_ref()),
                    space: d.var_space,
                    qual: specs.qual,
                    init,
                    is_extern: specs.is_extern,
                    is_static: specs.is_static,
                    span: d.span,
                });
            }
            if !self.eat(",") {
                break;
            }
        }
        if !self.expect(";") {
            self.recover();
        }
        Stmt {
            kind: StmtKind::Decl(vars),
            span,
        }
    }

    // ---- statements ----------------------------------------------------

    /// compound-statement: `{` (declaration | statement)* `}`
    fn compound_statement(&mut self) -> Stmt {
        let span = self.span();
        self.expect("{");
        self.typedefs.push(HashMap::default());
        let mut items = Vec::new();
        while !self.is_punct("}") && !self.at_eof() {
            let before = self.pos;
            items.push(self.statement());
            if self.pos == before {
                self.bump();
            }
        }
        self.expect("}");
        self.typedefs.pop();
        Stmt {
            kind: StmtKind::Block(items),
            span,
        }
    }

    /// statement: compound | expression-statement | selection | iteration |
    ///   jump | labeled | declaration
    fn statement(&mut self) -> Stmt {
        if !self.enter() {
            self.recover();
            return Stmt {
                kind: StmtKind::Empty,
                span: self.span(),
            };
        }
        let s = self.statement_inner();
        self.leave();
        s
    }

    fn statement_inner(&mut self) -> Stmt {
        let span = self.span();
        let mk = |kind| Stmt { kind, span };
        if matches!(self.peek().kind, TokenKind::Pragma(_)) {
            // Pragmas in a row, read here rather than one call deeper
            // each, which would count as nesting.
            while let TokenKind::Pragma(text) = &self.peek().kind {
                let at = self.span();
                match pragma_loop_hint(text) {
                    Some(Ok(hint)) => self.pending_hint = Some((hint, at, false)),
                    Some(Err(())) => self.diags.warning(
                        at,
                        "unroll pragma ignored: the count must be a positive integer",
                    ),
                    None => {}
                }
                self.bump();
            }
            // A pragma is no statement of its own: `for (...) #pragma
            // unroll for (...) s;` has the inner loop as its body (OpenCV's
            // Farneback kernels are written so). At the end of a block
            // there is no statement to take.
            if self.is_punct("}") || self.at_eof() {
                if let Some((_, at, _)) = self.pending_hint.take() {
                    self.diags.warning(
                        at,
                        "unroll pragma ignored: it must precede a for, while or do loop",
                    );
                }
                return mk(StmtKind::Empty);
            }
            return self.statement();
        }
        // An unroll hint read just before belongs to this statement, which
        // must be a loop (attributes in between keep it for the statement
        // after them).
        if !self.is_ident("__attribute__") && !self.is_ident("__attribute") {
            if let Some((hint, at, attribute)) = self.pending_hint.take() {
                if matches!(self.ident_text(), Some("for" | "while" | "do")) {
                    self.loop_hints.insert(span, hint);
                } else if attribute {
                    self.diags.error(
                        at,
                        "'opencl_unroll_hint' must appear immediately before a for, while or do loop",
                    );
                } else {
                    self.diags.warning(
                        at,
                        "unroll pragma ignored: it must precede a for, while or do loop",
                    );
                }
            }
        }
        if self.is_punct("{") {
            return self.compound_statement();
        }
        if self.eat(";") {
            return mk(StmtKind::Empty);
        }
        // Statement attributes: `opencl_unroll_hint` is kept for the loop
        // that follows; the others are dropped. Attributes before a
        // declaration belong to it.
        if self.is_ident("__attribute__") || self.is_ident("__attribute") {
            let start = self.pos;
            let attrs = self.attributes();
            if !self.starts_type() {
                for a in attrs.iter().filter(|a| a.name == "opencl_unroll_hint") {
                    if let Some(hint) = self.unroll_hint_attribute(a) {
                        self.pending_hint = Some((hint, a.span, true));
                    }
                }
                return self.statement();
            }
            self.pos = start;
        }
        let word = self.ident_text().map(str::to_string);
        match word.as_deref() {
            Some("if") => {
                self.bump();
                let cond = self.paren_expr();
                let then = Box::new(self.statement());
                let els = if self.is_ident("else") {
                    self.bump();
                    Some(Box::new(self.statement()))
                } else {
                    None
                };
                mk(StmtKind::If(cond, then, els))
            }
            Some("while") => {
                self.bump();
                let cond = self.paren_expr();
                let body = Box::new(self.statement());
                mk(StmtKind::While(cond, body))
            }
            Some("do") => {
                self.bump();
                let body = Box::new(self.statement());
                if self.is_ident("while") {
                    self.bump();
                } else {
                    self.diags
                        .error(self.span(), "expected 'while' after do body");
                }
                let cond = self.paren_expr();
                self.expect(";");
                mk(StmtKind::DoWhile(body, cond))
            }
            Some("for") => {
                self.bump();
                self.expect("(");
                self.typedefs.push(HashMap::default());
                let init = if self.eat(";") {
                    None
                } else if self.starts_type() {
                    Some(Box::new(self.declaration()))
                } else {
                    let e = self.expression();
                    self.expect(";");
                    Some(Box::new(Stmt {
                        span: e.span,
                        kind: StmtKind::Expr(e),
                    }))
                };
                let cond = if self.is_punct(";") {
                    None
                } else {
                    Some(self.expression())
                };
                self.expect(";");
                let step = if self.is_punct(")") {
                    None
                } else {
                    Some(self.expression())
                };
                self.expect(")");
                let body = Box::new(self.statement());
                self.typedefs.pop();
                mk(StmtKind::For(init, cond, step, body))
            }
            Some("break") => {
                self.bump();
                self.expect(";");
                mk(StmtKind::Break)
            }
            Some("continue") => {
                self.bump();
                self.expect(";");
                mk(StmtKind::Continue)
            }
            Some("return") => {
                self.bump();
                let e = if self.is_punct(";") {
                    None
                } else {
                    Some(self.expression())
                };
                if !self.expect(";") {
                    self.recover();
                }
                mk(StmtKind::Return(e))
            }
            Some("switch") => {
                self.bump();
                let e = self.paren_expr();
                let body = Box::new(self.statement());
                mk(StmtKind::Switch(e, body))
            }
            Some("case") => {
                self.bump();
                let e = self.conditional_expr();
                let v = match consteval::eval(&e, &self.types) {
                    Some(v) => v.as_i64(),
                    None => {
                        self.diags
                            .error(e.span, "case label is not an integer constant expression");
                        0
                    }
                };
                self.expect(":");
                let s = self.labelled_body();
                mk(StmtKind::Case(Some(v), Box::new(s)))
            }
            Some("default") if self.is_punct_at(1, ":") => {
                self.bump();
                self.bump();
                let s = self.labelled_body();
                mk(StmtKind::Case(None, Box::new(s)))
            }
            Some("goto") => {
                self.bump();
                let Some(name) = self.ident_text().map(str::to_string) else {
                    let found = describe(self.peek());
                    self.diags
                        .error(self.span(), format!("expected a label name, found {found}"));
                    self.recover();
                    return mk(StmtKind::Empty);
                };
                let at = self.span();
                self.bump();
                if !self.expect(";") {
                    self.recover();
                }
                self.gotos.push((name.clone(), at));
                mk(StmtKind::Goto(name))
            }
            Some(name) if self.is_punct_at(1, ":") && !self.starts_type() => {
                let name = name.to_string();
                self.bump();
                self.bump();
                if let Some((_, first)) = self.labels.iter().find(|l| l.0 == name) {
                    let first = *first;
                    self.diags
                        .error(span, format!("redefinition of label '{name}'"));
                    self.diags.note(first, "previous definition is here");
                }
                self.labels.push((name.clone(), span));
                let s = self.labelled_body();
                mk(StmtKind::Label(name, Box::new(s)))
            }
            _ if self.starts_type() => self.declaration(),
            _ => {
                let e = self.expression();
                if !self.expect(";") {
                    self.recover();
                }
                mk(StmtKind::Expr(e))
            }
        }
    }

    /// The hint of `opencl_unroll_hint` (no count: the compiler chooses)
    /// or `opencl_unroll_hint(n)`; an error unless `n` is a positive
    /// integer constant (OpenCL C 6.11.3).
    fn unroll_hint_attribute(&mut self, a: &Attr) -> Option<LoopHint> {
        let count = match a.args.as_slice() {
            [] => return None,
            [n] => consteval::eval(n, &self.types).map(|v| v.as_i64()),
            _ => None,
        };
        match count {
            Some(1) => Some(LoopHint::Never),
            Some(n) if n > 1 => Some(LoopHint::Count(n.min(i64::from(u32::MAX)) as u32)),
            _ => {
                self.diags.error(
                    a.span,
                    "'opencl_unroll_hint' takes a positive integer constant",
                );
                None
            }
        }
    }

    /// Every goto of the function body just parsed names one of its labels.
    fn check_labels(&mut self) {
        for (name, at) in std::mem::take(&mut self.gotos) {
            if !self.labels.iter().any(|l| l.0 == name) {
                self.diags
                    .error(at, format!("use of undeclared label '{name}'"));
            }
        }
        self.labels.clear();
    }

    fn labelled_body(&mut self) -> Stmt {
        if self.is_punct("}") {
            return Stmt {
                kind: StmtKind::Empty,
                span: self.span(),
            };
        }
        self.statement()
    }

    fn paren_expr(&mut self) -> Expr {
        self.expect("(");
        let e = self.expression();
        self.expect(")");
        e
    }

    // ---- expressions ---------------------------------------------------

    /// expression: assignment-expression (`,` assignment-expression)*
    fn expression(&mut self) -> Expr {
        let mut e = self.assignment_expr();
        while self.is_punct(",") {
            let span = self.span();
            self.bump();
            let r = self.assignment_expr();
            e = Expr {
                kind: ExprKind::Comma(Box::new(e), Box::new(r)),
                span,
            };
        }
        e
    }

    /// assignment-expression: conditional-expression |
    ///   unary-expression assignment-operator assignment-expression
    fn assignment_expr(&mut self) -> Expr {
        if !self.enter() {
            self.recover();
            return Expr {
                kind: ExprKind::Error,
                span: self.span(),
            };
        }
        let lhs = self.conditional_expr();
        let op = match &self.peek().kind {
            TokenKind::Punct(p) => match *p {
                "=" => Some(None),
                "+=" => Some(Some(BinOp::Add)),
                "-=" => Some(Some(BinOp::Sub)),
                "*=" => Some(Some(BinOp::Mul)),
                "/=" => Some(Some(BinOp::Div)),
                "%=" => Some(Some(BinOp::Rem)),
                "<<=" => Some(Some(BinOp::Shl)),
                ">>=" => Some(Some(BinOp::Shr)),
                "&=" => Some(Some(BinOp::BitAnd)),
                "|=" => Some(Some(BinOp::BitOr)),
                "^=" => Some(Some(BinOp::BitXor)),
                _ => None,
            },
            _ => None,
        };
        let out = if let Some(op) = op {
            let span = self.span();
            self.bump();
            let rhs = self.assignment_expr();
            Expr {
                kind: ExprKind::Assign(op, Box::new(lhs), Box::new(rhs)),
                span,
            }
        } else {
            lhs
        };
        self.leave();
        out
    }

    /// conditional-expression: logical-or-expression (`?` expression `:` conditional-expression)?
    fn conditional_expr(&mut self) -> Expr {
        let c = self.binary_expr(0);
        if self.is_punct("?") {
            let span = self.span();
            self.bump();
            let a = self.expression();
            self.expect(":");
            let b = if self.enter() {
                let b = self.conditional_expr();
                self.leave();
                b
            } else {
                Expr {
                    kind: ExprKind::Error,
                    span: self.span(),
                }
            };
            return Expr {
                kind: ExprKind::Cond(Box::new(c), Box::new(a), Box::new(b)),
                span,
            };
        }
        c
    }

    /// The binary operators by C precedence (logical-or down to
    /// multiplicative), by precedence climbing.
    fn binary_expr(&mut self, min_prec: u8) -> Expr {
        let mut lhs = self.cast_expr();
        while let Some((op, prec)) = self.binop() {
            if prec < min_prec {
                break;
            }
            let span = self.span();
            self.bump();
            let rhs = self.binary_expr(prec + 1);
            lhs = Expr {
                kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)),
                span,
            };
        }
        lhs
    }

    fn binop(&self) -> Option<(BinOp, u8)> {
        let TokenKind::Punct(p) = &self.peek().kind else {
            return None;
        };
        Some(match *p {
            "||" => (BinOp::LogOr, 1),
            "&&" => (BinOp::LogAnd, 2),
            "|" => (BinOp::BitOr, 3),
            "^" => (BinOp::BitXor, 4),
            "&" => (BinOp::BitAnd, 5),
            "==" => (BinOp::Eq, 6),
            "!=" => (BinOp::Ne, 6),
            "<" => (BinOp::Lt, 7),
            ">" => (BinOp::Gt, 7),
            "<=" => (BinOp::Le, 7),
            ">=" => (BinOp::Ge, 7),
            "<<" => (BinOp::Shl, 8),
            ">>" => (BinOp::Shr, 8),
            "+" => (BinOp::Add, 9),
            "-" => (BinOp::Sub, 9),
            "*" => (BinOp::Mul, 10),
            "/" => (BinOp::Div, 10),
            "%" => (BinOp::Rem, 10),
            _ => return None,
        })
    }

    /// cast-expression: unary-expression | `(` type-name `)` cast-expression |
    ///   `(` vector-type `)` `(` expression-list `)`
    fn cast_expr(&mut self) -> Expr {
        if self.is_punct("(") && self.starts_type_at(1) {
            let span = self.span();
            self.bump();
            let ty = self.type_name().unwrap_or(Type::INT);
            self.expect(")");
            if self.is_punct("{") {
                // A compound literal (C99 6.5.2.5): an unnamed object.
                let init = self.initializer(&ty);
                let ty = complete_array(ty, Some(&init));
                let e = Expr {
                    kind: ExprKind::CompoundLit(ty, Box::new(init)),
                    span,
                };
                return self.postfix_tail(e);
            }
            // `(char2)(char)0` is a cast of a cast, not a vector literal
            // whose first operand is a type name.
            if ty.is_vector() && self.is_punct("(") && !self.starts_type_at(1) {
                self.bump();
                let mut items = Vec::new();
                while !self.is_punct(")") && !self.at_eof() {
                    items.push(self.assignment_expr());
                    if !self.eat(",") {
                        break;
                    }
                }
                self.expect(")");
                let kind = if items.len() == 1 {
                    ExprKind::Cast(ty, Box::new(items.remove(0)))
                } else {
                    ExprKind::VecLit(ty, items)
                };
                let e = Expr { kind, span };
                return self.postfix_tail(e);
            }
            if !self.enter() {
                return Expr {
                    kind: ExprKind::Error,
                    span,
                };
            }
            let inner = self.cast_expr();
            self.leave();
            return Expr {
                kind: ExprKind::Cast(ty, Box::new(inner)),
                span,
            };
        }
        self.unary_expr()
    }

    /// unary-expression: postfix-expression | (`++`|`--`) unary-expression |
    ///   unary-operator cast-expression | `sizeof` unary-expression |
    ///   `sizeof` `(` type-name `)` | `vec_step` ... | `__alignof__` `(` type-name `)`
    fn unary_expr(&mut self) -> Expr {
        let span = self.span();
        let op = match &self.peek().kind {
            TokenKind::Punct(p) => match *p {
                "-" => Some(UnOp::Neg),
                "+" => Some(UnOp::Plus),
                "!" => Some(UnOp::Not),
                "~" => Some(UnOp::BitNot),
                "*" => Some(UnOp::Deref),
                "&" => Some(UnOp::AddrOf),
                "++" => Some(UnOp::PreInc),
                "--" => Some(UnOp::PreDec),
                _ => None,
            },
            _ => None,
        };
        if let Some(op) = op {
            self.bump();
            if !self.enter() {
                return Expr {
                    kind: ExprKind::Error,
                    span,
                };
            }
            let inner = if matches!(op, UnOp::PreInc | UnOp::PreDec) {
                self.unary_expr()
            } else {
                self.cast_expr()
            };
            self.leave();
            return Expr {
                kind: ExprKind::Unary(op, Box::new(inner)),
                span,
            };
        }
        let word = self.ident_text().map(str::to_string);
        match word.as_deref() {
            Some("sizeof") | Some("vec_step") | Some("__alignof__") | Some("_Alignof") => {
                let w = word.unwrap_or_default();
                self.bump();
                if self.is_punct("(") && self.starts_type_at(1) {
                    self.bump();
                    let ty = self.type_name().unwrap_or(Type::INT);
                    self.expect(")");
                    let kind = match w.as_str() {
                        "sizeof" => ExprKind::SizeofType(ty),
                        "vec_step" => ExprKind::VecStepType(ty),
                        _ => ExprKind::AlignofType(ty),
                    };
                    return Expr { kind, span };
                }
                let inner = Box::new(self.unary_expr());
                let kind = match w.as_str() {
                    "sizeof" => ExprKind::SizeofExpr(inner),
                    "vec_step" => ExprKind::VecStepExpr(inner),
                    _ => {
                        self.diags.error(span, "alignof needs a type name");
                        ExprKind::Error
                    }
                };
                Expr { kind, span }
            }
            Some("__builtin_offsetof") => {
                self.bump();
                let kind = match self.offsetof() {
                    Some(n) => ExprKind::IntLit(n as u64, Scalar::ULong),
                    None => ExprKind::Error,
                };
                Expr { kind, span }
            }
            _ => {
                let e = self.primary_expr();
                self.postfix_tail(e)
            }
        }
    }

    /// `__builtin_offsetof` `(` type-name `,` identifier ( `.` identifier |
    /// `[` constant-expression `]` )* `)`, which `offsetof` of `<stddef.h>`
    /// (C99 7.17) expands to: the member's offset in bytes, a `size_t`.
    fn offsetof(&mut self) -> Option<u32> {
        if !self.expect("(") {
            return None;
        }
        let ty = self.type_name()?;
        if !self.expect(",") {
            return None;
        }
        let mut ty = ty;
        let mut offset = 0u32;
        let mut first = true;
        loop {
            let span = self.span();
            if first || self.eat(".") {
                first = false;
                let Some(name) = self.ident_text().map(str::to_string) else {
                    self.diags.error(span, "expected a member name");
                    return None;
                };
                self.bump();
                let member = match &ty {
                    Type::Struct(id) => self
                        .types
                        .member_path(*id, &name)
                        .map(|(_, m, offset)| (offset, m.ty.clone())),
                    _ => None,
                };
                let Some((at, mty)) = member else {
                    self.diags.error(
                        span,
                        format!("no member named '{name}' in '{}'", self.types.name(&ty)),
                    );
                    return None;
                };
                offset = offset.saturating_add(at);
                ty = mty;
            } else if self.eat("[") {
                let e = self.expression();
                self.expect("]");
                let Type::Array(elem, _) = &ty else {
                    self.diags.error(span, "subscripted value is not an array");
                    return None;
                };
                let Some(i) = consteval::eval(&e, &self.types).map(|v| v.as_i64()) else {
                    self.diags
                        .error(e.span, "array index in offsetof is not an integer constant");
                    return None;
                };
                let elem = (**elem).clone();
                let step = i64::from(self.types.size(&elem)).saturating_mul(i);
                offset = u32::try_from(i64::from(offset).saturating_add(step)).unwrap_or(u32::MAX);
                ty = elem;
            } else {
                break;
            }
        }
        self.expect(")");
        Some(offset)
    }

    /// postfix-expression: primary-expression ( `[` expression `]` |
    ///   `(` argument-list `)` | `.` identifier | `->` identifier | `++` | `--` )*
    fn postfix_tail(&mut self, mut e: Expr) -> Expr {
        loop {
            let span = self.span();
            if self.eat("[") {
                let idx = self.expression();
                self.expect("]");
                e = Expr {
                    kind: ExprKind::Index(Box::new(e), Box::new(idx)),
                    span,
                };
            } else if self.is_punct("(") {
                self.bump();
                let mut args = Vec::new();
                while !self.is_punct(")") && !self.at_eof() {
                    args.push(self.assignment_expr());
                    if !self.eat(",") {
                        break;
                    }
                }
                self.expect(")");
                e = match e.kind {
                    ExprKind::Ident(name) => Expr {
                        kind: ExprKind::Call(name, args),
                        span: e.span,
                    },
                    _ => {
                        self.diags.error(span, "called object is not a function");
                        Expr {
                            kind: ExprKind::Error,
                            span,
                        }
                    }
                };
            } else if self.is_punct(".") || self.is_punct("->") {
                let arrow = self.is_punct("->");
                self.bump();
                let name = match &self.peek().kind {
                    TokenKind::Identifier(s) => s.clone(),
                    // `v.s0` may lex as a number after the dot in some lexers.
                    TokenKind::IntLiteral { .. } | TokenKind::FloatLiteral { .. } => {
                        self.diags.error(self.span(), "expected a member name");
                        String::new()
                    }
                    _ => {
                        self.diags.error(self.span(), "expected a member name");
                        return e;
                    }
                };
                self.bump();
                e = Expr {
                    kind: ExprKind::Member(Box::new(e), name, arrow),
                    span,
                };
            } else if self.eat("++") {
                e = Expr {
                    kind: ExprKind::Unary(UnOp::PostInc, Box::new(e)),
                    span,
                };
            } else if self.eat("--") {
                e = Expr {
                    kind: ExprKind::Unary(UnOp::PostDec, Box::new(e)),
                    span,
                };
            } else {
                return e;
            }
        }
    }

    /// primary-expression: identifier | constant | string-literal | `(` expression `)`
    fn primary_expr(&mut self) -> Expr {
        let tok = self.peek().clone();
        let span = tok.span;
        let kind = match tok.kind {
            TokenKind::Identifier(name) => {
                self.bump();
                match self.enum_consts.get(&name) {
                    Some(&(v, ty)) => ExprKind::IntLit(v as u64, ty),
                    None => ExprKind::Ident(name),
                }
            }
            TokenKind::IntLiteral {
                value,
                suffix,
                radix,
            } => {
                self.bump();
                ExprKind::IntLit(value, int_literal_type(value, &suffix, radix))
            }
            TokenKind::CharLiteral(v) => {
                self.bump();
                ExprKind::IntLit(v as u64, Scalar::Int)
            }
            TokenKind::FloatLiteral { text } => {
                self.bump();
                match parse_float(&text, self.fp64) {
                    Some((v, s)) => ExprKind::FloatLit(v, s),
                    None => {
                        self.diags
                            .error(span, format!("invalid floating constant '{text}'"));
                        ExprKind::Error
                    }
                }
            }
            TokenKind::StringLiteral(bytes) => {
                self.bump();
                ExprKind::StrLit(bytes)
            }
            TokenKind::Punct("(") => {
                self.bump();
                if !self.enter() {
                    return Expr {
                        kind: ExprKind::Error,
                        span,
                    };
                }
                let e = self.expression();
                self.leave();
                self.expect(")");
                return e;
            }
            _ => {
                self.diags.error(
                    span,
                    format!("expected an expression, found {}", describe(&tok)),
                );
                if !matches!(tok.kind, TokenKind::Punct(";" | "}" | ")")) && !self.at_eof() {
                    self.bump();
                }
                ExprKind::Error
            }
        };
        Expr { kind, span }
    }
}

/// One step of a designation.
enum Designator {
    Field(String, Span),
    Index(i64, Span),
}

/// `T x[] = {...}` (and `"..."`): the array takes the initializer's length.
fn complete_array(ty: Type, init: Option<&Init>) -> Type {
    match (ty, init) {
        (Type::Array(e, 0), Some(Init::List(items, _))) => {
            Type::Array(e, items.len().max(1) as u32)
        }
        (
            Type::Array(e, 0),
            Some(Init::Expr(Expr {
                kind: ExprKind::StrLit(bytes),
                ..
            })),
        ) => Type::Array(e, bytes.len() as u32 + 1),
        (t, _) => t,
    }
}

fn is_specifier_keyword(s: &str) -> bool {
    matches!(
        s,
        "typedef"
            | "extern"
            | "static"
            | "inline"
            | "__inline"
            | "__inline__"
            | "auto"
            | "register"
            | "const"
            | "__const"
            | "volatile"
            | "__volatile"
            | "restrict"
            | "__restrict"
            | "__global"
            | "global"
            | "__local"
            | "local"
            | "__constant"
            | "constant"
            | "__private"
            | "private"
            | "__generic"
            | "__kernel"
            | "kernel"
            | "__read_only"
            | "read_only"
            | "__write_only"
            | "write_only"
            | "__read_write"
            | "read_write"
            | "signed"
            | "__signed"
            | "unsigned"
            | "long"
            | "short"
            | "int"
            | "char"
            | "struct"
            | "union"
            | "enum"
            | "void"
            | "__attribute__"
            | "__attribute"
    )
}

/// The name of an image or sampler type (not `event_t`).
fn image_or_sampler(t: &Type) -> Option<&'static str> {
    match t {
        Type::Opaque(n) if *n != "event_t" => Some(n),
        _ => None,
    }
}

fn is_opaque_type(s: &str) -> Option<&'static str> {
    Some(match s {
        "sampler_t" => "sampler_t",
        "event_t" => "event_t",
        "image1d_t" => "image1d_t",
        "image1d_array_t" => "image1d_array_t",
        "image1d_buffer_t" => "image1d_buffer_t",
        "image2d_t" => "image2d_t",
        "image2d_array_t" => "image2d_array_t",
        "image3d_t" => "image3d_t",
        "image2d_depth_t" => "image2d_depth_t",
        "image2d_array_depth_t" => "image2d_array_depth_t",
        _ => return None,
    })
}

fn describe(t: &Token) -> String {
    match &t.kind {
        TokenKind::Identifier(s) => format!("'{s}'"),
        TokenKind::Punct(p) => format!("'{p}'"),
        TokenKind::IntLiteral { value, .. } => format!("'{value}'"),
        TokenKind::FloatLiteral { text } => format!("'{text}'"),
        TokenKind::CharLiteral(_) => "a character constant".into(),
        TokenKind::StringLiteral(_) => "a string literal".into(),
        TokenKind::Pragma(_) => "a pragma".into(),
        TokenKind::Eof => "end of input".into(),
    }
}

/// C99 6.4.4.1: the first type of the literal's list that holds the value.
/// `v` (bits of a value of type `ty`) as a mathematical integer.
fn wide_value(v: i64, ty: Scalar) -> i128 {
    if ty == Scalar::ULong {
        v as u64 as i128
    } else {
        consteval::wrap_to(v, ty) as i128
    }
}

/// An enumerator of value `v` whose expression has type `ty`: an `int`
/// where the value fits, else `ty` where that is 64-bit, else the first of
/// `uint` and `long` that holds it.
fn enumerator(v: i128, ty: Scalar) -> (i64, Scalar) {
    let ty = if i32::try_from(v).is_ok() {
        Scalar::Int
    } else if ty.bits() == 64 {
        ty
    } else if u32::try_from(v).is_ok() {
        Scalar::UInt
    } else {
        Scalar::Long
    };
    (v as i64, ty)
}

fn int_literal_type(value: u64, suffix: &str, radix: u32) -> Scalar {
    let unsigned = suffix.contains('u');
    let long = suffix.contains('l');
    let decimal = radix == 10;
    if !long {
        if !unsigned && value <= i32::MAX as u64 {
            return Scalar::Int;
        }
        if (unsigned || !decimal) && value <= u32::MAX as u64 {
            return Scalar::UInt;
        }
    }
    if !unsigned && value <= i64::MAX as u64 {
        return Scalar::Long;
    }
    Scalar::ULong
}

/// Converts a floating literal (decimal or hexadecimal, with its suffix).
pub fn parse_float(text: &str, fp64: bool) -> Option<(f64, Scalar)> {
    let lower = text.to_ascii_lowercase();
    let is_hex = lower.starts_with("0x");
    let (body, ty) = if let Some(b) = lower
        .strip_suffix('f')
        .filter(|_| !is_hex || lower.contains('p'))
    {
        (b, Scalar::Float)
    } else if let Some(b) = lower.strip_suffix('h') {
        (b, Scalar::Half)
    } else if let Some(b) = lower.strip_suffix('l') {
        (b, if fp64 { Scalar::Double } else { Scalar::Float })
    } else {
        (
            lower.as_str(),
            if fp64 { Scalar::Double } else { Scalar::Float },
        )
    };
    let v = if is_hex {
        parse_hex_float(&body[2..])?
    } else {
        body.parse::<f64>().ok()?
    };
    Some((v, ty))
}

fn parse_hex_float(s: &str) -> Option<f64> {
    let (mant, exp) = match s.find('p') {
        Some(i) => (&s[..i], s[i + 1..].parse::<i32>().ok()?),
        None => (s, 0),
    };
    let (int, frac) = match mant.find('.') {
        Some(i) => (&mant[..i], &mant[i + 1..]),
        None => (mant, ""),
    };
    let mut v = 0f64;
    for c in int.chars() {
        v = v * 16.0 + c.to_digit(16)? as f64;
    }
    let mut scale = 1.0 / 16.0;
    for c in frac.chars() {
        v += c.to_digit(16)? as f64 * scale;
        scale /= 16.0;
    }
    Some(v * 2f64.powi(exp))
}

/// `src` preprocessed and parsed, for the compiler's unit tests; panics on
/// a diagnostic.
#[cfg(test)]
pub(crate) fn parse_for_test(src: &str) -> TranslationUnit {
    let mut diags = Diagnostics::default();
    let (toks, _) = crate::preprocess::preprocess(
        src,
        &[],
        &crate::options::BuildOptions::default(),
        &crate::TargetCaps::default(),
        &mut diags,
    );
    let tu = parse(&toks, false, &mut diags);
    assert!(!diags.has_errors(), "{diags:?}");
    tu
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::token::Span;

    /// Tokens for a tiny subset of C, enough to drive the parser alone.
    fn lex(src: &str) -> Vec<Token> {
        let mut out = Vec::new();
        let b = src.as_bytes();
        let mut i = 0;
        let puncts = [
            "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+=", "-=", "*=",
            "(", ")", "{", "}", "[", "]", ";", ",", "*", "+", "-", "/", "%", "<", ">", "=", ".",
            "&", "|", "^", "!", "~", "?", ":",
        ];
        while i < b.len() {
            let c = b[i] as char;
            let span = Span {
                file: 0,
                offset: i as u32,
                line: 1,
                col: i as u32 + 1,
            };
            if c.is_whitespace() {
                i += 1;
            } else if c.is_ascii_alphabetic() || c == '_' {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                out.push(Token {
                    kind: TokenKind::Identifier(src[start..i].into()),
                    span,
                });
            } else if c.is_ascii_digit() {
                let start = i;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
                let value = src[start..i].parse().unwrap_or(0);
                out.push(Token {
                    kind: TokenKind::IntLiteral {
                        value,
                        suffix: String::new(),
                        radix: 10,
                    },
                    span,
                });
            } else {
                let p = puncts
                    .iter()
                    .find(|p| src[i..].starts_with(**p))
                    .copied()
                    .unwrap_or(";");
                i += p.len();
                out.push(Token {
                    kind: TokenKind::Punct(p),
                    span,
                });
            }
        }
        out.push(Token {
            kind: TokenKind::Eof,
            span: Span::default(),
        });
        out
    }

    #[test]
    fn declarations_and_kernels() {
        let mut d = Diagnostics::default();
        let tu = parse(
            &lex(
                "typedef struct { int a; float b[3]; } S; enum { A = 2, B };\n\
                  kernel void k(global S *p, local float *l, int n) { S s; s.a = B; }",
            ),
            false,
            &mut d,
        );
        assert!(!d.has_errors(), "{:?}", d.list);
        assert_eq!(tu.funcs.len(), 1);
        let k = &tu.funcs[0];
        assert!(k.is_kernel);
        assert_eq!(k.params.len(), 3);
        assert_eq!(k.params[0].type_name, "S*");
        assert!(matches!(
            k.params[1].ty,
            Type::Pointer(_, AddrSpace::Local, _)
        ));
        assert_eq!(tu.types.structs[0].size, 16);
    }

    #[test]
    fn errors_recover_at_statement_boundaries() {
        let mut d = Diagnostics::default();
        let tu = parse(
            &lex("kernel void k(global int *o) { o[0] = ; o[1] = 2; int x = (; }"),
            false,
            &mut d,
        );
        let cols: Vec<u32> = d
            .list
            .iter()
            .filter_map(|x| x.span.map(|s| s.col))
            .collect();
        assert!(cols.contains(&39) && cols.contains(&60), "{:?}", d.list);
        assert!(d.list.len() <= 3, "{:?}", d.list);
        assert_eq!(tu.funcs.len(), 1);
    }

    #[test]
    fn literal_types() {
        assert_eq!(int_literal_type(5, "", 10), Scalar::Int);
        assert_eq!(int_literal_type(0xffff_ffff, "", 16), Scalar::UInt);
        assert_eq!(int_literal_type(0xffff_ffff, "", 10), Scalar::Long);
        assert_eq!(int_literal_type(1, "ul", 10), Scalar::ULong);
        assert_eq!(parse_float("0x1p-3f", false), Some((0.125, Scalar::Float)));
        assert_eq!(parse_float("1.5", true), Some((1.5, Scalar::Double)));
    }
}
