//! The C99 preprocessor with OpenCL's predefined macros.
//!
//! Owns: lexing source text into preprocessing tokens, directives, macro
//! expansion, `#include` from in-memory headers and `-I` directories, the
//! predefined macros of the target. Produces the parser's [`Token`]s.
//!
//! Macro expansion follows Prosser's algorithm: every token carries the set
//! of macro names it must not be expanded by again (its hide set), which is
//! how C99 6.10.3.4's "painted blue" rule survives rescanning. Expansions go
//! back onto a token stack in front of the rest of the input, so a
//! function-like macro name at the end of an expansion can take its
//! arguments from the source that follows.
//!
//! Output conventions the parser relies on:
//! - Adjacent string literals are concatenated; the span is the first one's.
//! - A token produced by a macro's replacement list has the span of the macro
//!   name where it was expanded; tokens from arguments keep their own.
//! - `#pragma OPENCL ...`, `#pragma STDC ...`, `#pragma FP_CONTRACT ...`,
//!   `#pragma unroll ...` and `#pragma nounroll` become
//!   [`TokenKind::Pragma`] with their tokens joined by single spaces
//!   (`OPENCL EXTENSION cl_khr_fp64 : enable`); other pragmas are dropped.
//! - After `#line`, spans carry the presumed line and a new file id whose
//!   [`SourceFile`](crate::token::SourceFile) has the presumed name and no
//!   text, so that diagnostics never show a line that is not the one meant.

mod directives;
mod expr;
mod lexer;
mod literal;
mod macros;
mod predefined;

use crate::diag::Diagnostics;
use crate::options::BuildOptions;
use crate::token::{FileId, SourceFile, SourceMap, Span, Token, TokenKind};
use crate::{HashMap, HashSet};
use crate::{Header, TargetCaps};
use lexer::{Interner, Lexer, PpKind, PpTok, Sym};
use macros::{Builtin, Macro, MacroTable};
use std::rc::Rc;

/// Preprocesses `source` (named `<source>` in diagnostics). Returns the tokens
/// (ending with [`TokenKind::Eof`](crate::token::TokenKind::Eof)) and every
/// file read. On errors the diagnostics say why; the tokens may be partial.
pub fn preprocess(
    source: &str,
    headers: &[Header],
    options: &BuildOptions,
    caps: &TargetCaps,
    diags: &mut Diagnostics,
) -> (Vec<Token>, SourceMap) {
    run(source, headers, options, caps, diags, |pp, pp_tokens| {
        let tokens = pp.convert(pp_tokens);
        (tokens, pp.source_map())
    })
}

/// Like [`preprocess`], and also returns every file that `#include` read
/// from disk (not from `headers`), under each name by which a later run
/// would look it up among in-memory headers: what a
/// compiled object keeps so that a later link need not find the files
/// again (`clCompileProgram` `-I` directories may be gone by then).
pub fn preprocess_recording_includes(
    source: &str,
    headers: &[Header],
    options: &BuildOptions,
    caps: &TargetCaps,
    diags: &mut Diagnostics,
) -> (Vec<Token>, SourceMap, Vec<Header>) {
    run(source, headers, options, caps, diags, |pp, pp_tokens| {
        let tokens = pp.convert(pp_tokens);
        let read = std::mem::take(&mut pp.disk_includes);
        (tokens, pp.source_map(), read)
    })
}

/// Runs the preprocessor over `source` and hands its tokens, before
/// conversion, to `finish`.
fn run<R>(
    source: &str,
    headers: &[Header],
    options: &BuildOptions,
    caps: &TargetCaps,
    diags: &mut Diagnostics,
    finish: impl FnOnce(&mut Preprocessor<'_>, Vec<PpTok>) -> R,
) -> R {
    let mut pp = Preprocessor::new(diags, headers, options, caps);
    // File 0 is the program source; the predefined macros and the `-D`
    // options are read first, as if included before its first line.
    let main = pp.add_file("<source>", Rc::from(source));
    let builtin = pp.add_file(
        "<built-in>",
        Rc::from(predefined::builtin_source(options, caps)),
    );
    let command_line = pp.add_file(
        "<command line>",
        Rc::from(predefined::command_line_source(options)),
    );
    pp.push_file(main);
    pp.push_file(command_line);
    pp.push_file(builtin);
    let mut pp_tokens = Vec::new();
    pp.expand_loop(&mut pp_tokens, true);
    finish(&mut pp, pp_tokens)
}

/// One file being read.
struct FileCtx {
    lexer: Lexer,
    /// How many conditionals were open when the file was entered: its own
    /// must all be closed at its end.
    cond_base: usize,
    /// The file itself (not a `#line` name), for `#pragma once`.
    file: FileId,
    /// The directory of a file read from disk, where its own quoted
    /// includes are looked for first.
    dir: Option<std::path::PathBuf>,
    /// The directory part of the name the file was entered under: a
    /// quoted include in it looks for the header named by joining the two
    /// first.
    name_dir: Option<std::path::PathBuf>,
}

/// An open `#if` group.
#[derive(Clone, Copy, Debug)]
struct Cond {
    span: Span,
    /// One of its groups has been taken: the rest are skipped.
    taken: bool,
    seen_else: bool,
}

/// Identifiers the preprocessor itself treats specially.
struct KnownSyms {
    defined: Sym,
    va_args: Sym,
    va_opt: Sym,
    pragma_operator: Sym,
}

struct Preprocessor<'a> {
    diags: &'a mut Diagnostics,
    headers: &'a [Header],
    include_dirs: &'a [String],
    /// The device's extensions, for `#pragma OPENCL EXTENSION`.
    extensions: &'a [String],
    interner: Interner,
    sym: KnownSyms,
    /// Name and text of every file, indexed by [`FileId`].
    files: Vec<(String, Rc<str>)>,
    /// File ids of headers already read, by where they came from.
    file_ids: HashMap<String, FileId>,
    /// Files with `#pragma once`.
    once: HashSet<FileId>,
    /// Files read from disk by `#include`, by the name an in-memory lookup
    /// finds first (see `include`).
    disk_includes: Vec<Header>,
    /// Files being read, innermost last.
    stack: Vec<FileCtx>,
    /// Tokens to read before the files: expansions waiting to be rescanned,
    /// top last.
    pending: Vec<PpTok>,
    macros: MacroTable,
    /// The macros once the predefined files are read: where each unit of a
    /// linked program starts (`#pragma ferrocl translation_unit`, C99
    /// 5.1.1.2: every unit is preprocessed on its own).
    unit_macros: Option<MacroTable>,
    conds: Vec<Cond>,
    in_if_expression: bool,
    if_expression_failed: bool,
    /// Tokens produced by macro expansion so far.
    produced: usize,
    /// Expansion blew past its limit: stop.
    aborted: bool,
    /// Nesting of isolated expansions (macro arguments, directive lines).
    arg_depth: u32,
    /// A macro expanded to nothing after whitespace: the next token gets
    /// the whitespace (it shows in `#` of an expanded argument).
    space_after_empty: bool,
}

impl<'a> Preprocessor<'a> {
    fn new(
        diags: &'a mut Diagnostics,
        headers: &'a [Header],
        options: &'a BuildOptions,
        caps: &'a TargetCaps,
    ) -> Self {
        let mut interner = Interner::default();
        let sym = KnownSyms {
            defined: interner.intern("defined"),
            va_args: interner.intern("__VA_ARGS__"),
            va_opt: interner.intern("__VA_OPT__"),
            pragma_operator: interner.intern("_Pragma"),
        };
        let mut macros = MacroTable::default();
        macros.insert(
            interner.intern("__FILE__"),
            Rc::new(Macro::builtin(Builtin::File)),
        );
        macros.insert(
            interner.intern("__LINE__"),
            Rc::new(Macro::builtin(Builtin::Line)),
        );
        macros.insert(
            interner.intern("__has_builtin"),
            Rc::new(Macro::builtin(Builtin::KnownFunction)),
        );
        Preprocessor {
            diags,
            headers,
            include_dirs: &options.include_dirs,
            extensions: &caps.extensions,
            interner,
            sym,
            files: Vec::new(),
            file_ids: HashMap::default(),
            once: HashSet::default(),
            disk_includes: Vec::new(),
            stack: Vec::new(),
            pending: Vec::new(),
            macros,
            unit_macros: None,
            conds: Vec::new(),
            in_if_expression: false,
            if_expression_failed: false,
            produced: 0,
            aborted: false,
            arg_depth: 0,
            space_after_empty: false,
        }
    }

    fn add_file(&mut self, name: &str, text: Rc<str>) -> FileId {
        self.files.push((name.to_string(), text));
        (self.files.len() - 1) as FileId
    }

    fn source_map(&self) -> SourceMap {
        SourceMap {
            files: self
                .files
                .iter()
                .map(|(name, text)| SourceFile {
                    name: name.clone(),
                    text: text.to_string(),
                })
                .collect(),
        }
    }

    /// The next token: a pending one, else from the innermost file. The end
    /// of an included file is [`PpKind::EndOfFile`], once.
    fn next(&mut self) -> PpTok {
        if self.aborted {
            return PpTok::new(PpKind::Eof, Span::default());
        }
        if let Some(t) = self.pending.pop() {
            return t;
        }
        let Some(file) = self.stack.last_mut() else {
            return PpTok::new(PpKind::Eof, Span::default());
        };
        let t = file.lexer.next(&mut self.interner, self.diags);
        if t.kind != PpKind::Eof {
            return t;
        }
        let base = file.cond_base;
        self.close_conditionals(base);
        if self.stack.len() == 1 {
            return t;
        }
        self.stack.pop();
        if self.stack.len() == 1 && self.unit_macros.is_none() {
            self.unit_macros = Some(self.macros.clone());
        }
        PpTok::new(PpKind::EndOfFile, t.span)
    }

    /// At the end of a file, its open conditionals are errors.
    fn close_conditionals(&mut self, base: usize) {
        while self.conds.len() > base {
            if let Some(c) = self.conds.pop() {
                self.diags
                    .error(c.span, "unterminated conditional directive");
            }
        }
    }

    /// Turns preprocessing tokens into the parser's tokens (translation
    /// phases 5–7): literal values, string concatenation, and errors for
    /// what is no token at all.
    fn convert(&mut self, toks: Vec<PpTok>) -> Vec<Token> {
        let mut out: Vec<Token> = Vec::with_capacity(toks.len() + 1);
        let mut last_span = Span::default();
        for t in toks {
            last_span = t.span;
            let kind = match &t.kind {
                PpKind::Ident(sym) => TokenKind::Identifier(self.interner.name(*sym).to_string()),
                PpKind::Number(text) => match literal::parse_number(text) {
                    Ok(literal::Number::Int {
                        value,
                        suffix,
                        radix,
                    }) => TokenKind::IntLiteral {
                        value,
                        suffix,
                        radix,
                    },
                    Ok(literal::Number::Float) => TokenKind::FloatLiteral {
                        text: text.to_string(),
                    },
                    Err(message) => {
                        self.diags.error(t.span, message);
                        // A stand-in keeps the parser from a second error.
                        TokenKind::IntLiteral {
                            value: 0,
                            suffix: String::new(),
                            radix: 10,
                        }
                    }
                },
                PpKind::Char(text) | PpKind::Str(text) if text.starts_with('L') => {
                    self.diags.error(
                        t.span,
                        "wide character constants and strings are not supported in OpenCL C",
                    );
                    continue;
                }
                PpKind::Char(text) => {
                    let (value, warnings) = literal::char_value(text);
                    for w in warnings {
                        self.diags.warning(t.span, w);
                    }
                    match value {
                        Ok(v) => TokenKind::CharLiteral(v),
                        Err(message) => {
                            self.diags.error(t.span, message);
                            TokenKind::CharLiteral(0)
                        }
                    }
                }
                PpKind::Str(text) => {
                    let decoded = literal::decode_escapes(&text[1..text.len() - 1]);
                    for w in decoded.warnings {
                        self.diags.warning(t.span, w);
                    }
                    if let Some(e) = decoded.error {
                        self.diags.error(t.span, e);
                    }
                    if let Some(Token {
                        kind: TokenKind::StringLiteral(prev),
                        ..
                    }) = out.last_mut()
                    {
                        prev.extend_from_slice(&decoded.bytes);
                        continue;
                    }
                    TokenKind::StringLiteral(decoded.bytes)
                }
                PpKind::Punct(p) => TokenKind::Punct(p),
                PpKind::Pragma(text) => TokenKind::Pragma(text.to_string()),
                PpKind::Other(c) => {
                    self.diags.error(
                        t.span,
                        format!("unexpected character '{}'", c.escape_default()),
                    );
                    continue;
                }
                PpKind::Invalid(_, is_char) => {
                    let message = if *is_char {
                        "missing terminating ' character"
                    } else {
                        "missing terminating '\"' character"
                    };
                    self.diags.error(t.span, message);
                    continue;
                }
                PpKind::Placemarker | PpKind::Barrier | PpKind::EndOfFile | PpKind::Eof => continue,
            };
            out.push(Token { kind, span: t.span });
        }
        let eof_span = self.stack.first().map_or(last_span, |f| f.lexer.end_span());
        out.push(Token {
            kind: TokenKind::Eof,
            span: eof_span,
        });
        out
    }
}

#[cfg(test)]
mod tests;
