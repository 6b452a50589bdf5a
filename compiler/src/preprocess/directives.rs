//! Preprocessing directives (C99 6.10): conditional inclusion, `#include`,
//! `#define`/`#undef`, `#line`, `#error`, `#warning`, `#pragma` and the
//! `_Pragma` operator.

use super::lexer::{lex_text, PpKind, PpTok};
use super::literal::decode_escapes;
use super::{Cond, FileCtx, Preprocessor};
use crate::sema::linkage::TRANSLATION_UNIT_PRAGMA;
use crate::token::Span;
use crate::Header;
use std::path::Path;
use std::rc::Rc;

/// Deepest `#include` nesting (clang's limit too).
const INCLUDE_DEPTH_LIMIT: usize = 200;

impl<'a> Preprocessor<'a> {
    /// The tokens left on the directive's line.
    fn line_tokens(&mut self) -> Vec<PpTok> {
        match self.stack.last_mut() {
            Some(f) => f.lexer.rest_of_line(&mut self.interner, self.diags),
            None => Vec::new(),
        }
    }

    fn at_line_end(&mut self) -> bool {
        match self.stack.last_mut() {
            Some(f) => f.lexer.at_line_end(self.diags),
            None => true,
        }
    }

    /// Ends a directive that takes no more operands.
    fn end_directive(&mut self, name: &str) {
        let rest = self.line_tokens();
        if let Some(t) = rest.first() {
            self.diags
                .warning(t.span, format!("extra tokens at end of #{name} directive"));
        }
    }

    /// Carries out the directive whose `#` is `hash`. Tokens it produces
    /// (pragmas) go to `out`.
    pub(super) fn directive(&mut self, hash: PpTok, out: &mut Vec<PpTok>) {
        if self.at_line_end() {
            // The null directive.
            return;
        }
        let name_tok = match self.stack.last_mut() {
            Some(f) => f.lexer.next(&mut self.interner, self.diags),
            None => return,
        };
        if let PpKind::Number(_) = name_tok.kind {
            // A GNU line marker, `# 12 "file.cl"`, is `#line`.
            let mut toks = vec![name_tok];
            toks.extend(self.line_tokens());
            self.line_directive(toks, hash.span, true);
            return;
        }
        let name = match &name_tok.kind {
            PpKind::Ident(sym) => self.interner.name(*sym).to_string(),
            _ => String::new(),
        };
        match name.as_str() {
            "define" => {
                let toks = self.line_tokens();
                if let Some((sym, m)) = self.parse_define(toks, name_tok.span) {
                    self.define(sym, m);
                }
            }
            "undef" => {
                let toks = self.line_tokens();
                match toks.first().map(|t| &t.kind) {
                    Some(PpKind::Ident(sym)) if *sym == self.sym.defined => {
                        self.diags
                            .error(toks[0].span, "'defined' cannot be used as a macro name");
                    }
                    Some(PpKind::Ident(sym)) => {
                        if let Some(old) = self.macros.get(*sym) {
                            if old.builtin.is_some() {
                                self.diags.warning(toks[0].span, "undefining builtin macro");
                            }
                        }
                        self.macros.remove(*sym);
                        if let Some(t) = toks.get(1) {
                            self.diags
                                .warning(t.span, "extra tokens at end of #undef directive");
                        }
                    }
                    Some(_) => self
                        .diags
                        .error(toks[0].span, "macro name must be an identifier"),
                    None => self.diags.error(name_tok.span, "macro name missing"),
                }
            }
            "include" => self.include_directive(name_tok.span),
            "if" => {
                let toks = self.line_tokens();
                let value = self.if_expression(toks, name_tok.span);
                self.begin_conditional(hash.span, value);
            }
            "ifdef" | "ifndef" => {
                let toks = self.line_tokens();
                let value = match toks.first().map(|t| &t.kind) {
                    Some(PpKind::Ident(sym)) => {
                        if let Some(t) = toks.get(1) {
                            self.diags.warning(
                                t.span,
                                format!("extra tokens at end of #{name} directive"),
                            );
                        }
                        self.macros.contains(*sym) == (name == "ifdef")
                    }
                    Some(_) => {
                        self.diags
                            .error(toks[0].span, "macro name must be an identifier");
                        false
                    }
                    None => {
                        self.diags.error(name_tok.span, "macro name missing");
                        false
                    }
                };
                self.begin_conditional(hash.span, value);
            }
            "elif" | "else" => {
                // A group was being taken: every later one is skipped.
                let base = self.stack.last().map_or(0, |f| f.cond_base);
                if self.conds.len() <= base {
                    self.diags
                        .error(name_tok.span, format!("#{name} without #if"));
                    self.line_tokens();
                    return;
                }
                let cond = self.conds.last_mut().expect("checked above");
                if cond.seen_else {
                    self.diags
                        .error(name_tok.span, format!("#{name} after #else"));
                }
                if name == "else" {
                    cond.seen_else = true;
                    self.end_directive("else");
                } else {
                    // Not evaluated: an earlier group was taken.
                    self.line_tokens();
                }
                self.skip_group();
            }
            "endif" => {
                let base = self.stack.last().map_or(0, |f| f.cond_base);
                if self.conds.len() <= base {
                    self.diags.error(name_tok.span, "#endif without #if");
                    self.line_tokens();
                    return;
                }
                self.conds.pop();
                self.end_directive("endif");
            }
            "line" => {
                let toks = self.line_tokens();
                self.line_directive(toks, name_tok.span, false);
            }
            "error" | "warning" => {
                let toks = self.line_tokens();
                let text = self.join_spellings(&toks, true);
                let message = if text.is_empty() {
                    format!("#{name}")
                } else {
                    text
                };
                if name == "error" {
                    self.diags.error(name_tok.span, message);
                } else {
                    self.diags.warning(name_tok.span, message);
                }
            }
            "pragma" => {
                let toks = self.line_tokens();
                self.pragma(toks, hash.span, out);
            }
            _ => {
                self.diags.error(
                    name_tok.span,
                    format!(
                        "invalid preprocessing directive '#{}'",
                        name_tok.spelling(&self.interner)
                    ),
                );
                self.line_tokens();
            }
        }
    }

    fn define(&mut self, sym: super::lexer::Sym, m: super::macros::Macro) {
        if let Some(old) = self.macros.get(sym) {
            let name = self.interner.name(sym).to_string();
            if old.builtin.is_some() {
                self.diags
                    .warning(m.span, format!("redefining builtin macro '{name}'"));
            } else if !old.same_definition(&m) {
                let previous = old.span;
                let before = self.diags.list.len();
                self.diags
                    .warning(m.span, format!("'{name}' macro redefined"));
                // The note belongs to the warning: none when `-w` dropped it.
                if self.diags.list.len() > before {
                    self.diags.note(previous, "previous definition is here");
                }
            }
        }
        self.macros.insert(sym, Rc::new(m));
    }

    /// Spellings joined by single spaces: where the source had whitespace
    /// (`as_written`), or between every two tokens.
    pub(super) fn join_spellings(&self, toks: &[PpTok], as_written: bool) -> String {
        let mut s = String::new();
        for (i, t) in toks.iter().enumerate() {
            if i > 0 && (t.space || !as_written) {
                s.push(' ');
            }
            s.push_str(&t.spelling(&self.interner));
        }
        s
    }

    /// `#if` / `#elif`: macro-expands the line (with `defined` applied
    /// first) and evaluates it.
    fn if_expression(&mut self, toks: Vec<PpTok>, at: Span) -> bool {
        if toks.is_empty() {
            self.diags.error(at, "expected value in expression");
            return false;
        }
        let outer = std::mem::replace(&mut self.in_if_expression, true);
        self.if_expression_failed = false;
        let expanded = self.expand_isolated(&toks);
        self.in_if_expression = outer;
        if self.if_expression_failed || self.aborted {
            return false;
        }
        super::expr::evaluate(&expanded, self.diags, at).unwrap_or(false)
    }

    /// `defined X` or `defined ( X )` inside a `#if` line.
    pub(super) fn defined_operator(&mut self, t: &PpTok, out: &mut Vec<PpTok>) {
        let mut operand = self.next();
        let paren = operand.is_punct("(");
        if paren {
            operand = self.next();
        }
        let value = match operand.kind {
            PpKind::Ident(sym) => self.macros.contains(sym),
            _ => {
                self.diags
                    .error(operand.span, "macro name must be an identifier");
                self.if_expression_failed = true;
                if operand.is_end() {
                    self.pending.push(operand);
                }
                return;
            }
        };
        if paren {
            let close = self.next();
            if !close.is_punct(")") {
                self.diags.error(close.span, "missing ')' after 'defined'");
                self.if_expression_failed = true;
                if close.is_end() {
                    self.pending.push(close);
                }
                return;
            }
        }
        let mut result = PpTok::new(PpKind::Number(if value { "1" } else { "0" }.into()), t.span);
        result.space = t.space;
        out.push(result);
    }

    fn begin_conditional(&mut self, span: Span, value: bool) {
        self.conds.push(Cond {
            span,
            taken: value,
            seen_else: false,
        });
        if !value {
            self.skip_group();
        }
    }

    /// Skips a group whose condition is false, up to the `#elif`, `#else`
    /// or `#endif` that ends it (C99 6.10.1p6). Directives inside are only
    /// tracked for nesting; tokens are lexed but not otherwise looked at.
    fn skip_group(&mut self) {
        let mut depth = 0usize;
        loop {
            if self.aborted {
                return;
            }
            let t = self.next();
            match t.kind {
                PpKind::Eof | PpKind::EndOfFile => {
                    self.pending.push(t);
                    return;
                }
                PpKind::Punct("#") if t.bol => {}
                _ => continue,
            }
            if self.at_line_end() {
                continue;
            }
            let name_tok = match self.stack.last_mut() {
                Some(f) => f.lexer.next(&mut self.interner, self.diags),
                None => return,
            };
            let name = match name_tok.kind {
                PpKind::Ident(sym) => self.interner.name(sym),
                _ => "",
            };
            match name {
                "if" | "ifdef" | "ifndef" => depth += 1,
                "endif" if depth > 0 => depth -= 1,
                "endif" => {
                    self.conds.pop();
                    self.end_directive("endif");
                    return;
                }
                "elif" if depth == 0 => {
                    let toks = self.line_tokens();
                    let Some(&Cond {
                        taken, seen_else, ..
                    }) = self.conds.last()
                    else {
                        return;
                    };
                    if seen_else {
                        self.diags.error(name_tok.span, "#elif after #else");
                    }
                    if !taken && self.if_expression(toks, name_tok.span) {
                        if let Some(cond) = self.conds.last_mut() {
                            cond.taken = true;
                        }
                        return;
                    }
                    continue;
                }
                "else" if depth == 0 => {
                    let Some(cond) = self.conds.last_mut() else {
                        return;
                    };
                    if cond.seen_else {
                        self.diags.error(name_tok.span, "#else after #else");
                    }
                    cond.seen_else = true;
                    if !cond.taken {
                        cond.taken = true;
                        self.end_directive("else");
                        return;
                    }
                }
                _ => {}
            }
            self.line_tokens();
        }
    }

    fn include_directive(&mut self, at: Span) {
        let header = match self.stack.last_mut() {
            Some(f) => f.lexer.header_name(self.diags),
            None => None,
        };
        let (name, quoted, span) = match header {
            Some((name, angled, span)) => {
                self.end_directive("include");
                (name, !angled, span)
            }
            None => {
                // `#include` followed by macros that expand to a header name.
                let toks = self.line_tokens();
                let expanded = self.expand_isolated(&toks);
                match expanded.first().map(|t| &t.kind) {
                    Some(PpKind::Str(s)) if s.len() >= 2 => {
                        if let Some(t) = expanded.get(1) {
                            self.diags
                                .warning(t.span, "extra tokens at end of #include directive");
                        }
                        (s[1..s.len() - 1].to_string(), true, expanded[0].span)
                    }
                    Some(PpKind::Punct("<")) => {
                        let Some(close) = expanded.iter().position(|t| t.is_punct(">")) else {
                            self.diags
                                .error(expanded[0].span, "expected '>' after header name");
                            return;
                        };
                        let name = self.join_spellings(&expanded[1..close], true);
                        (name, false, expanded[0].span)
                    }
                    _ => {
                        let span = expanded.first().map_or(at, |t| t.span);
                        self.diags
                            .error(span, "expected \"FILENAME\" or <FILENAME>");
                        return;
                    }
                }
            }
        };
        self.include(&name, quoted, span);
    }

    /// Enters the file `name`: an in-memory header of that name, else, for
    /// a `"quoted"` name in a file read from disk, that file's directory
    /// (as C compilers do: a header's own headers sit beside it), else the
    /// first `-I` directory holding it (or the path itself when absolute).
    /// Program source has no directory of its own.
    ///
    /// Headers are named as paths, so a quoted name in a header looks for
    /// the header named by joining it to the including header's name
    /// first (`lib/top.h` including `"inner.h"` finds `lib/inner.h`). A
    /// file read from disk is recorded under that same name, the one the
    /// next run finds first: a linked program compiles its objects again
    /// from what they recorded, after the directories may be gone.
    fn include(&mut self, name: &str, quoted: bool, span: Span) {
        if self.stack.len() >= INCLUDE_DEPTH_LIMIT {
            self.diags.error(span, "#include nested too deeply");
            return;
        }
        let Some(found) = self.locate(name, quoted) else {
            self.diags.error(span, format!("'{name}' file not found"));
            return;
        };
        let (key, display) = match &found.from {
            Origin::Header(h) => (format!("header:{}", h.name), h.name.clone()),
            Origin::Disk(p) => {
                let canonical = p.canonicalize().unwrap_or_else(|_| p.clone());
                (
                    format!("disk:{}", canonical.to_string_lossy()),
                    p.to_string_lossy().into_owned(),
                )
            }
        };
        let id = match self.file_ids.get(&key) {
            Some(&id) => id,
            None => {
                let text: Rc<str> = match &found.from {
                    Origin::Header(h) => Rc::from(h.source.as_str()),
                    Origin::Disk(p) => match std::fs::read(p) {
                        Ok(bytes) => Rc::from(String::from_utf8_lossy(&bytes).as_ref()),
                        Err(e) => {
                            self.diags
                                .error(span, format!("cannot read '{display}': {e}"));
                            return;
                        }
                    },
                };
                let id = self.add_file(&display, text);
                self.file_ids.insert(key, id);
                id
            }
        };
        let dir = match &found.from {
            // Under every name that reached it: one file may be included
            // as `/abs/dir/x.h` by one header and as `"x.h"` by its
            // neighbour.
            Origin::Disk(p) => {
                if !self.disk_includes.iter().any(|h| h.name == found.name) {
                    self.disk_includes.push(Header {
                        name: found.name.clone(),
                        source: self.files[id as usize].1.to_string(),
                    });
                }
                p.parent().map(Path::to_path_buf)
            }
            Origin::Header(_) => None,
        };
        if self.once.contains(&id) {
            return;
        }
        let name_dir = Path::new(&found.name)
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .map(Path::to_path_buf);
        self.push_file_in(id, dir, name_dir);
    }

    /// Where `include` finds `name` (see there), and the name it is known
    /// by from then on.
    fn locate(&self, name: &str, quoted: bool) -> Option<Located<'a>> {
        let including = self.stack.last().filter(|_| quoted);
        let beside_name = including
            .and_then(|f| f.name_dir.as_ref())
            .map(|d| d.join(name).to_string_lossy().into_owned());
        let headers = self.headers;
        let in_memory = beside_name
            .iter()
            .map(String::as_str)
            .chain([name])
            .find_map(|n| headers.iter().find(|h| h.name == n));
        if let Some(h) = in_memory {
            return Some(Located {
                from: Origin::Header(h),
                name: h.name.clone(),
            });
        }
        // Beside the including file it is known by the name joined to the
        // includer's; elsewhere by the name the directive wrote.
        let beside = including
            .and_then(|f| f.dir.as_ref())
            .map(|d| (d.join(name), beside_name));
        let absolute = Path::new(name)
            .is_absolute()
            .then(|| (Path::new(name).to_path_buf(), None));
        let on_path = self
            .include_dirs
            .iter()
            .map(|d| (Path::new(d).join(name), None));
        absolute
            .into_iter()
            .chain(beside)
            .chain(on_path)
            .find(|(p, _)| p.is_file())
            .map(|(p, known)| Located {
                from: Origin::Disk(p),
                name: known.unwrap_or_else(|| name.to_string()),
            })
    }

    pub(super) fn push_file(&mut self, id: crate::token::FileId) {
        self.push_file_in(id, None, None);
    }

    /// Enters file `id`, read from disk in `dir` (None: not from disk),
    /// named as a path in `name_dir`.
    fn push_file_in(
        &mut self,
        id: crate::token::FileId,
        dir: Option<std::path::PathBuf>,
        name_dir: Option<std::path::PathBuf>,
    ) {
        let text = self.files[id as usize].1.clone();
        self.stack.push(FileCtx {
            lexer: super::lexer::Lexer::new(text, id),
            cond_base: self.conds.len(),
            file: id,
            dir,
            name_dir,
        });
    }

    /// `#line digits ["name"]` (C99 6.10.4), after macro expansion.
    fn line_directive(&mut self, toks: Vec<PpTok>, at: Span, line_marker: bool) {
        let toks = if line_marker {
            toks
        } else {
            self.expand_isolated(&toks)
        };
        let number = match toks.first().map(|t| &t.kind) {
            Some(PpKind::Number(n)) if n.bytes().all(|b| b.is_ascii_digit()) => {
                n.parse::<u64>().ok()
            }
            _ => None,
        };
        let Some(number) = number.filter(|n| (1..=2147483647).contains(n)) else {
            let span = toks.first().map_or(at, |t| t.span);
            self.diags.error(
                span,
                "#line directive requires a positive integer argument (at most 2147483647)",
            );
            return;
        };
        let name = match toks.get(1).map(|t| &t.kind) {
            Some(PpKind::Str(s)) => {
                let bytes = decode_escapes(&s[1..s.len() - 1]).bytes;
                Some(String::from_utf8_lossy(&bytes).into_owned())
            }
            Some(_) => {
                self.diags
                    .error(toks[1].span, "invalid filename for #line directive");
                return;
            }
            None => None,
        };
        if !line_marker {
            if let Some(t) = toks.get(2) {
                self.diags
                    .warning(t.span, "extra tokens at end of #line directive");
            }
        }
        let Some(current) = self.stack.last().map(|f| f.lexer.span_file) else {
            return;
        };
        let name = name.unwrap_or_else(|| self.files[current as usize].0.clone());
        let id = self.add_file(&name, Rc::from(""));
        if let Some(f) = self.stack.last_mut() {
            f.lexer.set_next_line(number as u32);
            f.lexer.span_file = id;
        }
    }

    /// `#pragma` (C99 6.10.6, OpenCL C 6.12): the pragmas the parser acts on
    /// become tokens; `once` is carried out here; others are ignored.
    fn pragma(&mut self, toks: Vec<PpTok>, at: Span, out: &mut Vec<PpTok>) {
        let first = match toks.first().map(|t| &t.kind) {
            Some(PpKind::Ident(sym)) => self.interner.name(*sym).to_string(),
            _ => return,
        };
        let text = match first.as_str() {
            // No macro replacement after OPENCL or STDC.
            "OPENCL" => {
                if !self.check_opencl_pragma(&toks, at) {
                    return;
                }
                self.join_spellings(&toks, false)
            }
            "STDC" | "FP_CONTRACT" => self.join_spellings(&toks, false),
            // `ferrocl translation_unit`: where a linked program's next unit
            // begins (crate::sema::linkage); its macros and `#pragma once`
            // files are those of a fresh unit.
            "ferrocl" => {
                let text = self.join_spellings(&toks, false);
                if text
                    .split_whitespace()
                    .eq(TRANSLATION_UNIT_PRAGMA.split(' '))
                {
                    if let Some(m) = &self.unit_macros {
                        self.macros = m.clone();
                    }
                    self.once.clear();
                }
                text
            }
            "unroll" | "nounroll" => {
                let operands = self.expand_isolated(&toks[1..]);
                let mut all = vec![toks[0].clone()];
                all.extend(operands);
                self.join_spellings(&all, false)
            }
            "once" => {
                if let Some(f) = self.stack.last() {
                    self.once.insert(f.file);
                }
                return;
            }
            _ => return,
        };
        out.push(PpTok::new(PpKind::Pragma(text.into()), at));
    }

    /// Checks the forms OpenCL C 6.12 allows after `#pragma OPENCL`. A bad
    /// one is ignored with a warning, as Clang does: programs commonly
    /// enable an extension the device lacks and then test its macro.
    fn check_opencl_pragma(&mut self, toks: &[PpTok], at: Span) -> bool {
        let word = |i: usize| match toks.get(i).map(|t| &t.kind) {
            Some(PpKind::Ident(sym)) => Some(self.interner.name(*sym).to_string()),
            _ => None,
        };
        let span_of = |i: usize| toks.get(i).map_or(at, |t| t.span);
        match word(1).as_deref() {
            Some("EXTENSION") => {
                let Some(name) = word(2) else {
                    self.diags.warning(
                        span_of(2),
                        "expected an extension name after 'OPENCL EXTENSION' - ignoring pragma",
                    );
                    return false;
                };
                if !toks.get(3).is_some_and(|t| t.is_punct(":")) {
                    self.diags.warning(
                        span_of(3),
                        "expected ':' in 'OPENCL EXTENSION' pragma - ignoring it",
                    );
                    return false;
                }
                let behavior = word(4);
                if !matches!(behavior.as_deref(), Some("enable" | "disable")) {
                    self.diags.warning(
                        span_of(4),
                        "expected 'enable' or 'disable' in 'OPENCL EXTENSION' pragma - ignoring it",
                    );
                    return false;
                }
                if toks.len() > 5 {
                    self.diags.warning(
                        span_of(5),
                        "extra tokens at end of '#pragma OPENCL EXTENSION'",
                    );
                }
                if name == "all" {
                    if behavior.as_deref() == Some("enable") {
                        self.diags.warning(
                            span_of(4),
                            "'all' can only be disabled in 'OPENCL EXTENSION' pragma - ignoring it",
                        );
                        return false;
                    }
                    return true;
                }
                if !self.extensions.contains(&name) {
                    self.diags.warning(
                        span_of(2),
                        format!("unsupported OpenCL extension '{name}' - ignoring"),
                    );
                    return false;
                }
                true
            }
            Some("FP_CONTRACT") => {
                if !matches!(word(2).as_deref(), Some("ON" | "OFF" | "DEFAULT")) {
                    self.diags.warning(
                        span_of(2),
                        "expected 'ON', 'OFF' or 'DEFAULT' in 'OPENCL FP_CONTRACT' pragma - ignoring it",
                    );
                    return false;
                }
                true
            }
            _ => {
                self.diags
                    .warning(span_of(1), "unknown OpenCL pragma - ignoring it");
                false
            }
        }
    }

    /// `_Pragma ( string-literal )` (C99 6.10.9): the string, destringized,
    /// is a `#pragma` line. Returns false when no `(` follows.
    pub(super) fn pragma_operator(&mut self, t: &PpTok, out: &mut Vec<PpTok>) -> bool {
        if !self.peek_is_lparen() {
            return false;
        }
        self.next();
        let s = self.next();
        let PpKind::Str(text) = &s.kind else {
            self.diags
                .error(s.span, "_Pragma takes a parenthesized string literal");
            if !s.is_punct(")") {
                self.pending.push(s);
            }
            return true;
        };
        let close = self.next();
        if !close.is_punct(")") {
            self.diags
                .error(close.span, "_Pragma takes a parenthesized string literal");
            self.pending.push(close);
            return true;
        }
        let body = &text[1..text.len() - 1];
        let mut destringized = String::with_capacity(body.len());
        let mut chars = body.chars().peekable();
        while let Some(c) = chars.next() {
            if c == '\\' && matches!(chars.peek(), Some('"' | '\\')) {
                if let Some(next) = chars.next() {
                    destringized.push(next);
                }
            } else {
                destringized.push(c);
            }
        }
        let toks = lex_text(&destringized, t.span, &mut self.interner, self.diags);
        self.pragma(toks, t.span, out);
        true
    }
}

/// A file an `#include` found.
struct Located<'a> {
    from: Origin<'a>,
    /// The name the file is known by: its own quoted includes look beside
    /// it, and a file from disk is recorded under it.
    name: String,
}

enum Origin<'a> {
    Header(&'a Header),
    Disk(std::path::PathBuf),
}
