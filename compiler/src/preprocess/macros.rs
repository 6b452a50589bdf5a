//! Macro definitions and their expansion (C99 6.10.3): argument collection,
//! argument pre-expansion, `#` and `##`, rescanning with hide sets.

use super::lexer::{
    hideset_contains, hideset_intersection, hideset_union, hideset_with, lex_text, PpKind, PpTok,
    Sym,
};
use super::Preprocessor;
use crate::diag::Diagnostics;
use crate::token::Span;
use std::rc::Rc;

/// Most tokens all macro expansions of one build may produce; beyond that
/// the source is an expansion bomb, not a kernel.
const EXPANSION_LIMIT: usize = 1 << 21;
/// Deepest nesting of macro invocations inside macro arguments. Each level
/// is a recursion of about 1.5 KiB of stack: 128 levels fit a small thread.
const ARG_NESTING_LIMIT: u32 = 128;

/// A macro the preprocessor computes rather than stores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Builtin {
    File,
    Line,
    /// `__has_builtin(name)`: 1 when `name` is a built-in function the
    /// compiler knows (clang's operator, which portable code tests for
    /// `__builtin_expect` and the like).
    KnownFunction,
}

/// One element of a replacement list, with the operators resolved.
#[derive(Clone, Debug)]
pub(crate) enum Item {
    Tok(PpTok),
    /// A parameter, replaced by its fully expanded argument.
    Arg {
        index: usize,
        space: bool,
    },
    /// A parameter next to `##`, replaced by its argument as written.
    RawArg {
        index: usize,
        space: bool,
    },
    /// `# parameter`.
    Stringize {
        index: usize,
        space: bool,
    },
    /// `##`.
    Paste,
    /// `, ## __VA_ARGS__` (a GNU extension): the comma disappears when the
    /// variable arguments are empty.
    CommaVaArgs {
        index: usize,
        space: bool,
    },
    /// `__VA_OPT__(content)` (C23 6.10.5.1), or `# __VA_OPT__(content)`:
    /// the content when the variable arguments expand to some tokens, else
    /// a placemarker.
    VaOpt {
        items: Vec<Item>,
        space: bool,
        stringize: bool,
    },
}

#[derive(Debug)]
pub(crate) struct Macro {
    /// `None` for an object-like macro.
    pub params: Option<Vec<Sym>>,
    pub variadic: bool,
    pub body: Vec<Item>,
    /// The replacement list as written, to compare redefinitions.
    pub written: Vec<PpTok>,
    pub builtin: Option<Builtin>,
    pub span: Span,
}

impl Macro {
    pub(crate) fn builtin(kind: Builtin) -> Macro {
        Macro {
            params: None,
            variadic: false,
            body: Vec::new(),
            written: Vec::new(),
            builtin: Some(kind),
            span: Span::default(),
        }
    }

    /// C99 6.10.3p2: the same parameters and the same replacement list,
    /// whitespace separations included.
    pub(crate) fn same_definition(&self, other: &Macro) -> bool {
        self.params == other.params
            && self.variadic == other.variadic
            && self.builtin == other.builtin
            && self.written.len() == other.written.len()
            && self
                .written
                .iter()
                .zip(&other.written)
                .enumerate()
                .all(|(i, (a, b))| a.kind == b.kind && (i == 0 || a.space == b.space))
    }
}

/// The defined macros, indexed by interned name (names are dense small
/// numbers, so no hashing on the hot path).
#[derive(Clone, Default)]
pub(crate) struct MacroTable {
    by_sym: Vec<Option<Rc<Macro>>>,
}

impl MacroTable {
    pub(crate) fn get(&self, sym: Sym) -> Option<&Rc<Macro>> {
        self.by_sym.get(sym as usize).and_then(Option::as_ref)
    }

    pub(crate) fn contains(&self, sym: Sym) -> bool {
        self.get(sym).is_some()
    }

    pub(crate) fn insert(&mut self, sym: Sym, m: Rc<Macro>) {
        let i = sym as usize;
        if self.by_sym.len() <= i {
            self.by_sym.resize(i + 1, None);
        }
        self.by_sym[i] = Some(m);
    }

    pub(crate) fn remove(&mut self, sym: Sym) {
        if let Some(slot) = self.by_sym.get_mut(sym as usize) {
            *slot = None;
        }
    }
}

impl Preprocessor<'_> {
    /// Parses a `#define` line (the tokens after `define`) into a macro and
    /// its name. Errors are reported; `None` means nothing is defined.
    pub(super) fn parse_define(&mut self, toks: Vec<PpTok>, at: Span) -> Option<(Sym, Macro)> {
        let Some(name_tok) = toks.first() else {
            self.diags.error(at, "macro name missing");
            return None;
        };
        let PpKind::Ident(name) = name_tok.kind else {
            self.diags
                .error(name_tok.span, "macro name must be an identifier");
            return None;
        };
        if name == self.sym.defined {
            self.diags
                .error(name_tok.span, "'defined' cannot be used as a macro name");
            return None;
        }
        let mut i = 1;
        let mut params = None;
        let mut variadic = false;
        if toks.get(1).is_some_and(|t| t.is_punct("(") && !t.space) {
            let mut list: Vec<Sym> = Vec::new();
            i = 2;
            let mut expect_param = true;
            loop {
                let Some(t) = toks.get(i) else {
                    self.diags
                        .error(toks[i - 1].span, "missing ')' in macro parameter list");
                    return None;
                };
                i += 1;
                match &t.kind {
                    PpKind::Punct(")") if !expect_param || list.is_empty() => break,
                    PpKind::Punct("...") if expect_param => {
                        list.push(self.sym.va_args);
                        variadic = true;
                        if !toks.get(i).is_some_and(|t| t.is_punct(")")) {
                            let span = toks.get(i).map_or(t.span, |t| t.span);
                            self.diags
                                .error(span, "missing ')' in macro parameter list");
                            return None;
                        }
                        i += 1;
                        break;
                    }
                    PpKind::Ident(p) if expect_param => {
                        if *p == self.sym.va_args {
                            self.diags.error(
                                t.span,
                                "__VA_ARGS__ can only appear in the expansion of a C99 variadic macro",
                            );
                            return None;
                        }
                        if list.contains(p) {
                            let name = self.interner.name(*p).to_string();
                            self.diags
                                .error(t.span, format!("duplicate macro parameter name '{name}'"));
                            return None;
                        }
                        list.push(*p);
                        // GNU named variable arguments: `args...`.
                        if toks.get(i).is_some_and(|t| t.is_punct("...")) {
                            variadic = true;
                            if !toks.get(i + 1).is_some_and(|t| t.is_punct(")")) {
                                self.diags
                                    .error(toks[i].span, "missing ')' in macro parameter list");
                                return None;
                            }
                            i += 2;
                            break;
                        }
                        expect_param = false;
                    }
                    PpKind::Punct(",") if !expect_param => expect_param = true,
                    _ => {
                        let message = if expect_param {
                            "expected parameter name"
                        } else {
                            "expected comma in macro parameter list"
                        };
                        self.diags.error(t.span, message);
                        return None;
                    }
                }
            }
            params = Some(list);
        } else if toks.get(1).is_some_and(|t| !t.space) {
            self.diags
                .warning(toks[1].span, "whitespace required after macro name");
        }
        let written: Vec<PpTok> = toks[i..].to_vec();
        let body = self.parse_replacement_list(&written, params.as_deref(), variadic, false)?;
        let span = name_tok.span;
        Some((
            name,
            Macro {
                params,
                variadic,
                body,
                written,
                builtin: None,
                span,
            },
        ))
    }

    fn parse_replacement_list(
        &mut self,
        written: &[PpTok],
        params: Option<&[Sym]>,
        variadic: bool,
        in_va_opt: bool,
    ) -> Option<Vec<Item>> {
        for end in [written.first(), written.last()].into_iter().flatten() {
            if end.is_punct("##") {
                self.diags.error(
                    end.span,
                    "'##' cannot appear at either end of a macro expansion",
                );
                return None;
            }
        }
        let param_index = |t: &PpTok| match (&t.kind, params) {
            (PpKind::Ident(s), Some(ps)) => ps.iter().position(|p| p == s),
            _ => None,
        };
        let mut items: Vec<Item> = Vec::with_capacity(written.len());
        let mut i = 0;
        while i < written.len() {
            let t = &written[i];
            i += 1;
            if t.kind == PpKind::Ident(self.sym.va_args) && !variadic {
                // A constraint of C99 6.10.3p5; GCC and Clang warn and keep
                // the definition, with `__VA_ARGS__` an ordinary identifier.
                self.diags.warning(
                    t.span,
                    "__VA_ARGS__ can only appear in the expansion of a C99 variadic macro",
                );
            }
            let va_opt = self.sym.va_opt;
            let va_opt_at = |k: usize| {
                variadic && written.get(k).map(|t| &t.kind) == Some(&PpKind::Ident(va_opt))
            };
            if va_opt_at(i - 1) || (t.is_punct("#") && va_opt_at(i)) {
                let stringize = t.is_punct("#");
                let at = if stringize { i } else { i - 1 };
                let (item, next) =
                    self.parse_va_opt(written, at, t.space, stringize, params, in_va_opt)?;
                items.push(item);
                i = next;
                continue;
            }
            if params.is_some() && t.is_punct("#") {
                match written.get(i).and_then(param_index) {
                    Some(index) => {
                        items.push(Item::Stringize {
                            index,
                            space: t.space,
                        });
                        i += 1;
                        continue;
                    }
                    None => {
                        self.diags
                            .error(t.span, "'#' is not followed by a macro parameter");
                        return None;
                    }
                }
            }
            if t.is_punct("##") {
                items.push(Item::Paste);
                continue;
            }
            if let Some(index) = param_index(t) {
                let after_paste = matches!(items.last(), Some(Item::Paste));
                let before_paste = written.get(i).is_some_and(|n| n.is_punct("##"));
                let is_va = variadic && Some(index + 1) == params.map(<[Sym]>::len);
                if after_paste && is_va && !before_paste && items.len() >= 2 {
                    if let Item::Tok(comma) = &items[items.len() - 2] {
                        if comma.is_punct(",") {
                            let space = comma.space;
                            items.truncate(items.len() - 2);
                            items.push(Item::CommaVaArgs { index, space });
                            continue;
                        }
                    }
                }
                let space = t.space;
                items.push(if after_paste || before_paste {
                    Item::RawArg { index, space }
                } else {
                    Item::Arg { index, space }
                });
                continue;
            }
            let mut t = t.clone();
            t.bol = false;
            items.push(Item::Tok(t));
        }
        Some(items)
    }

    /// `__VA_OPT__ ( content )` starting at `written[at]`; returns the item
    /// and the index after its `)`.
    fn parse_va_opt(
        &mut self,
        written: &[PpTok],
        at: usize,
        space: bool,
        stringize: bool,
        params: Option<&[Sym]>,
        in_va_opt: bool,
    ) -> Option<(Item, usize)> {
        let span = written[at].span;
        if in_va_opt {
            self.diags.error(span, "'__VA_OPT__' cannot be nested");
            return None;
        }
        if !written.get(at + 1).is_some_and(|t| t.is_punct("(")) {
            self.diags.error(span, "expected '(' after '__VA_OPT__'");
            return None;
        }
        let mut depth = 0usize;
        let mut close = None;
        for (k, t) in written.iter().enumerate().skip(at + 2) {
            if t.is_punct("(") {
                depth += 1;
            } else if t.is_punct(")") {
                if depth == 0 {
                    close = Some(k);
                    break;
                }
                depth -= 1;
            }
        }
        let Some(close) = close else {
            self.diags
                .error(written[at + 1].span, "missing ')' after '__VA_OPT__('");
            return None;
        };
        let items = self.parse_replacement_list(&written[at + 2..close], params, true, true)?;
        Some((
            Item::VaOpt {
                items,
                space,
                stringize,
            },
            close + 1,
        ))
    }

    /// True when the next token (not reading past the current file or an
    /// isolated list) is `(`.
    pub(super) fn peek_is_lparen(&mut self) -> bool {
        if let Some(t) = self.pending.last() {
            return t.is_punct("(");
        }
        match self.stack.last_mut() {
            Some(f) => f.lexer.peek(&mut self.interner, self.diags).is_punct("("),
            None => false,
        }
    }

    /// The `( name )` after `__has_builtin`: whether `name` is a built-in
    /// function. Anything else is diagnosed and answers false.
    fn has_builtin_operand(&mut self) -> bool {
        let _open = self.next();
        let operand = self.next();
        let known = match operand.kind {
            PpKind::Ident(sym) => crate::sema::builtins::lookup(self.interner.name(sym)).is_some(),
            _ => {
                self.diags
                    .error(operand.span, "'__has_builtin' needs a function name");
                if operand.is_end() {
                    self.pending.push(operand);
                }
                return false;
            }
        };
        let close = self.next();
        if !close.is_punct(")") {
            self.diags
                .error(close.span, "missing ')' after '__has_builtin' operand");
            if close.is_end() {
                self.pending.push(close);
            }
            return false;
        }
        known
    }

    /// Expands the macro `m` named by `name`, pushing the result in front of
    /// the input to be rescanned. Returns false when a function-like macro's
    /// name is not followed by `(` (then it is an ordinary identifier).
    pub(super) fn expand_macro(&mut self, name: &PpTok, sym: Sym, m: Rc<Macro>) -> bool {
        if let Some(kind) = m.builtin {
            let kind = match kind {
                Builtin::KnownFunction => {
                    if !self.peek_is_lparen() {
                        return false;
                    }
                    PpKind::Number(if self.has_builtin_operand() { "1" } else { "0" }.into())
                }
                Builtin::Line => PpKind::Number(name.span.line.to_string().into()),
                Builtin::File => {
                    let file = self
                        .files
                        .get(name.span.file as usize)
                        .map_or("<source>", |f| f.0.as_str());
                    PpKind::Str(quote(file).into())
                }
            };
            let mut t = PpTok::new(kind, name.span);
            t.space = name.space;
            self.pending.push(t);
            return true;
        }
        let (result, hide) = match &m.params {
            None => {
                let hide = hideset_with(&name.hide, sym);
                (self.substitute(&m, &[], name.span), hide)
            }
            Some(_) => {
                if !self.peek_is_lparen() {
                    return false;
                }
                self.next();
                let Some((args, rparen)) = self.collect_args(name, &m) else {
                    return true;
                };
                let hide = hideset_with(&hideset_intersection(&name.hide, &rparen.hide), sym);
                (self.substitute(&m, &args, name.span), hide)
            }
        };
        self.produced += result.len();
        if self.produced > EXPANSION_LIMIT {
            if !self.aborted {
                self.diags.error(
                    name.span,
                    format!(
                        "macro expansion produces more than {EXPANSION_LIMIT} tokens; preprocessing stopped"
                    ),
                );
            }
            self.aborted = true;
            self.pending.clear();
            return true;
        }
        let empty = result.is_empty();
        for mut t in result.into_iter().rev() {
            t.hide = hideset_union(&t.hide, &hide);
            t.bol = false;
            self.pending.push(t);
        }
        // The expansion stands where the name stood, spacing included; an
        // empty one leaves its space to the token after it.
        if empty {
            self.space_after_empty |= name.space;
        } else if let Some(t) = self.pending.last_mut() {
            t.space = name.space;
        }
        true
    }

    /// Reads the arguments of a function-like macro after its `(`, up to
    /// the matching `)` (returned too). Directives between the arguments are
    /// carried out, as most compilers do.
    fn collect_args(&mut self, name: &PpTok, m: &Macro) -> Option<(Vec<Vec<PpTok>>, PpTok)> {
        let nparams = m.params.as_ref().map_or(0, Vec::len);
        let mut args: Vec<Vec<PpTok>> = vec![Vec::new()];
        let mut depth = 0usize;
        let rparen = loop {
            let mut t = self.next();
            match &t.kind {
                PpKind::Eof | PpKind::EndOfFile | PpKind::Barrier => {
                    if !self.aborted {
                        self.diags
                            .error(name.span, "unterminated function-like macro invocation");
                    }
                    self.pending.push(t);
                    return None;
                }
                PpKind::Punct("#") if t.bol => {
                    let mut sink = Vec::new();
                    self.directive(t, &mut sink);
                    if let Some(arg) = args.last_mut() {
                        arg.extend(sink);
                    }
                    continue;
                }
                PpKind::Punct("(") => depth += 1,
                PpKind::Punct(")") if depth == 0 => break t,
                PpKind::Punct(")") => depth -= 1,
                PpKind::Punct(",") if depth == 0 && !(m.variadic && args.len() == nparams) => {
                    args.push(Vec::new());
                    continue;
                }
                _ => {}
            }
            t.bol = false;
            if let Some(arg) = args.last_mut() {
                arg.push(t);
            }
        };
        let macro_name = self.token_name(name);
        if nparams == 0 {
            if args.len() == 1 && args[0].is_empty() {
                args.clear();
            } else {
                self.diags.error(
                    rparen.span,
                    format!("too many arguments provided to function-like macro invocation '{macro_name}'"),
                );
                return None;
            }
        } else if args.len() < nparams {
            if m.variadic && args.len() == nparams - 1 {
                args.push(Vec::new());
            } else {
                self.diags.error(
                    rparen.span,
                    format!("too few arguments provided to function-like macro invocation '{macro_name}'"),
                );
                return None;
            }
        } else if args.len() > nparams {
            self.diags.error(
                rparen.span,
                format!(
                    "too many arguments provided to function-like macro invocation '{macro_name}'"
                ),
            );
            return None;
        }
        Some((args, rparen))
    }

    fn token_name(&self, t: &PpTok) -> String {
        t.spelling(&self.interner).into_owned()
    }

    /// The replacement list with the arguments substituted and `##` applied
    /// (C99 6.10.3.1–6.10.3.3). Tokens of the list itself take `at`, the
    /// place of the invocation.
    fn substitute(&mut self, m: &Macro, args: &[Vec<PpTok>], at: Span) -> Vec<PpTok> {
        let mut expanded: Vec<Option<Vec<PpTok>>> = vec![None; args.len()];
        let mut out = self.substitute_items(&m.body, args, &mut expanded, at);
        out.retain(|t| t.kind != PpKind::Placemarker);
        out
    }

    /// Substitutes `items`, keeping placemarkers for the `##` of an
    /// enclosing list.
    fn substitute_items(
        &mut self,
        items: &[Item],
        args: &[Vec<PpTok>],
        expanded: &mut [Option<Vec<PpTok>>],
        at: Span,
    ) -> Vec<PpTok> {
        let mut out: Vec<PpTok> = Vec::with_capacity(items.len());
        let mut paste_next = false;
        for item in items {
            let mut piece: Vec<PpTok> = match item {
                Item::Paste => {
                    paste_next = true;
                    continue;
                }
                Item::Tok(t) => {
                    let mut t = t.clone();
                    t.span = at;
                    vec![t]
                }
                Item::Arg { index, space } => {
                    let mut v = self.expanded_arg(expanded, args, *index);
                    if let Some(first) = v.first_mut() {
                        first.space = *space;
                    }
                    v
                }
                Item::RawArg { index, space } => {
                    let arg = args.get(*index).map_or(&[][..], Vec::as_slice);
                    let mut v = if arg.is_empty() {
                        vec![PpTok::new(PpKind::Placemarker, at)]
                    } else {
                        arg.to_vec()
                    };
                    v[0].space = *space;
                    v
                }
                Item::Stringize { index, space } => {
                    let arg = args.get(*index).map_or(&[][..], Vec::as_slice);
                    let mut t = PpTok::new(PpKind::Str(self.stringize(arg).into()), at);
                    t.space = *space;
                    vec![t]
                }
                Item::CommaVaArgs { index, space } => {
                    if args.get(*index).is_none_or(Vec::is_empty) {
                        Vec::new()
                    } else {
                        let mut comma = PpTok::new(PpKind::Punct(","), at);
                        comma.space = *space;
                        let mut v = vec![comma];
                        v.extend(self.expanded_arg(expanded, args, *index));
                        v
                    }
                }
                Item::VaOpt {
                    items,
                    space,
                    stringize,
                } => self.va_opt(items, *space, *stringize, args, expanded, at),
            };
            if std::mem::take(&mut paste_next) && !piece.is_empty() {
                if let Some(lhs) = out.pop() {
                    let rhs = piece.remove(0);
                    let pasted = self.paste(lhs, rhs);
                    out.extend(pasted);
                }
            }
            out.extend(piece);
        }
        out
    }

    /// `__VA_OPT__(items)`: the items when the variable arguments (the last
    /// argument) expand to something, else a placemarker; stringized under
    /// `#`.
    fn va_opt(
        &mut self,
        items: &[Item],
        space: bool,
        stringize: bool,
        args: &[Vec<PpTok>],
        expanded: &mut [Option<Vec<PpTok>>],
        at: Span,
    ) -> Vec<PpTok> {
        let present = match args.len().checked_sub(1) {
            Some(va) => !self.expanded_arg(expanded, args, va).is_empty(),
            None => false,
        };
        let mut v = if present {
            self.substitute_items(items, args, expanded, at)
        } else {
            Vec::new()
        };
        // A placemarker the content ends with still takes part in a `##`
        // after the `__VA_OPT__` (C23 6.10.5.2 EXAMPLE, `H4`).
        let mut v = if stringize {
            v.retain(|t| t.kind != PpKind::Placemarker);
            vec![PpTok::new(PpKind::Str(self.stringize(&v).into()), at)]
        } else if v.is_empty() {
            vec![PpTok::new(PpKind::Placemarker, at)]
        } else {
            v
        };
        v[0].space = space;
        v
    }

    fn expanded_arg(
        &mut self,
        cache: &mut [Option<Vec<PpTok>>],
        args: &[Vec<PpTok>],
        index: usize,
    ) -> Vec<PpTok> {
        if let Some(Some(v)) = cache.get(index) {
            return v.clone();
        }
        let Some(arg) = args.get(index) else {
            return Vec::new();
        };
        let v = self.expand_isolated(arg);
        cache[index] = Some(v.clone());
        v
    }

    /// Fully macro-expands a token list on its own: a macro argument
    /// (C99 6.10.3.1) or the operands of a directive.
    pub(super) fn expand_isolated(&mut self, toks: &[PpTok]) -> Vec<PpTok> {
        if self.aborted {
            return Vec::new();
        }
        if self.arg_depth >= ARG_NESTING_LIMIT {
            // Going on would redo the same deep expansion at every level
            // above this one.
            let span = toks.first().map_or(Span::default(), |t| t.span);
            self.diags.error(
                span,
                "macro invocations nested too deeply in arguments; preprocessing stopped",
            );
            self.aborted = true;
            self.pending.clear();
            return Vec::new();
        }
        self.arg_depth += 1;
        let at = toks.first().map_or(Span::default(), |t| t.span);
        self.pending.push(PpTok::new(PpKind::Barrier, at));
        for t in toks.iter().rev() {
            let mut t = t.clone();
            t.bol = false;
            self.pending.push(t);
        }
        let mut out = Vec::with_capacity(toks.len());
        self.expand_loop(&mut out, false);
        self.arg_depth -= 1;
        out
    }

    /// `#` applied to an argument (C99 6.10.3.2): its spelling in quotes,
    /// one space where the argument had whitespace, `"` and `\` escaped
    /// inside string and character literals.
    pub(super) fn stringize(&self, arg: &[PpTok]) -> String {
        let mut s = String::from("\"");
        for (i, t) in arg.iter().enumerate() {
            if i > 0 && t.space {
                s.push(' ');
            }
            let spelling = t.spelling(&self.interner);
            if matches!(
                t.kind,
                PpKind::Str(_) | PpKind::Char(_) | PpKind::Invalid(..)
            ) {
                for c in spelling.chars() {
                    if c == '"' || c == '\\' {
                        s.push('\\');
                    }
                    s.push(c);
                }
            } else {
                s.push_str(&spelling);
            }
        }
        s.push('"');
        s
    }

    /// `##` (C99 6.10.3.3): the two spellings must form one token.
    fn paste(&mut self, lhs: PpTok, rhs: PpTok) -> Vec<PpTok> {
        if lhs.kind == PpKind::Placemarker {
            let mut rhs = rhs;
            rhs.space = lhs.space;
            return vec![rhs];
        }
        if rhs.kind == PpKind::Placemarker {
            return vec![lhs];
        }
        let text = format!(
            "{}{}",
            lhs.spelling(&self.interner),
            rhs.spelling(&self.interner)
        );
        let mut scratch = Diagnostics::default();
        let toks = lex_text(&text, lhs.span, &mut self.interner, &mut scratch);
        let whole = toks.len() == 1
            && !scratch.has_errors()
            && !matches!(toks[0].kind, PpKind::Invalid(..))
            && toks[0].spelling(&self.interner).len() == text.len();
        if !whole {
            self.diags.error(
                lhs.span,
                format!("pasting formed '{text}', an invalid preprocessing token"),
            );
            return vec![lhs, rhs];
        }
        let mut t = toks.into_iter().next().unwrap_or(lhs.clone());
        t.span = lhs.span;
        t.space = lhs.space;
        t.hide = hideset_union(&lhs.hide, &rhs.hide);
        vec![t]
    }

    /// The expansion loop: reads tokens, carries out directives (at file
    /// level), expands macros, and appends what remains to `out`. At file
    /// level it runs to the end of the translation unit; otherwise to the
    /// barrier of an isolated list.
    pub(super) fn expand_loop(&mut self, out: &mut Vec<PpTok>, file_level: bool) {
        loop {
            if self.aborted {
                return;
            }
            let mut t = self.next();
            if std::mem::take(&mut self.space_after_empty) {
                t.space = true;
            }
            match &t.kind {
                PpKind::Eof => return,
                PpKind::Barrier => {
                    if !file_level {
                        return;
                    }
                }
                PpKind::EndOfFile | PpKind::Placemarker => {}
                PpKind::Punct("#") if t.bol => self.directive(t, out),
                PpKind::Ident(sym) => {
                    let sym = *sym;
                    if self.in_if_expression && sym == self.sym.defined {
                        self.defined_operator(&t, out);
                        continue;
                    }
                    if sym == self.sym.pragma_operator
                        && !self.in_if_expression
                        && self.pragma_operator(&t, out)
                    {
                        continue;
                    }
                    if !hideset_contains(&t.hide, sym) {
                        if let Some(m) = self.macros.get(sym).cloned() {
                            if self.expand_macro(&t, sym, m) {
                                continue;
                            }
                        }
                    }
                    out.push(t);
                }
                _ => out.push(t),
            }
        }
    }
}

/// A string literal spelling `text` (for `__FILE__`).
pub(super) fn quote(text: &str) -> String {
    let mut s = String::with_capacity(text.len() + 2);
    s.push('"');
    for c in text.chars() {
        if c == '"' || c == '\\' {
            s.push('\\');
        }
        s.push(c);
    }
    s.push('"');
    s
}
