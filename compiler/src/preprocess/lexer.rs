//! Translation phases 1–3 (C99 5.1.1.2): line splices, comments and the
//! decomposition of source text into preprocessing tokens (C99 6.4), each
//! with the span where it was written and the whitespace before it.
//!
//! The lexer reports only what no later phase can: an unterminated comment.
//! Malformed character constants and strings become [`PpKind::Invalid`]
//! tokens, diagnosed only if they survive to the parser (they are harmless in
//! a skipped `#if` group, as in every C compiler).

use crate::diag::Diagnostics;
use crate::token::{FileId, Span};
use std::borrow::Cow;
use std::collections::HashMap;
use std::rc::Rc;

/// An interned identifier.
pub(crate) type Sym = u32;

/// FNV-1a: identifiers are short, and SipHash's resistance to chosen keys
/// buys nothing inside one compilation.
#[derive(Clone, Copy)]
pub(crate) struct NameHasher(u64);

impl Default for NameHasher {
    fn default() -> Self {
        NameHasher(0xcbf2_9ce4_8422_2325)
    }
}

impl std::hash::Hasher for NameHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

/// Identifier names of one preprocessing run.
#[derive(Default)]
pub(crate) struct Interner {
    map: HashMap<Rc<str>, Sym, std::hash::BuildHasherDefault<NameHasher>>,
    names: Vec<Rc<str>>,
}

impl Interner {
    pub(crate) fn intern(&mut self, name: &str) -> Sym {
        if let Some(&sym) = self.map.get(name) {
            return sym;
        }
        let sym = self.names.len() as Sym;
        let name: Rc<str> = Rc::from(name);
        self.names.push(name.clone());
        self.map.insert(name, sym);
        sym
    }

    pub(crate) fn name(&self, sym: Sym) -> &str {
        &self.names[sym as usize]
    }
}

/// The macro names a token must not be expanded by again ("painted blue",
/// C99 6.10.3.4p2): a sorted set, shared between the tokens of one
/// expansion.
pub(crate) type HideSet = Option<Rc<[Sym]>>;

pub(crate) fn hideset_contains(set: &HideSet, sym: Sym) -> bool {
    set.as_ref().is_some_and(|s| s.binary_search(&sym).is_ok())
}

pub(crate) fn hideset_union(a: &HideSet, b: &HideSet) -> HideSet {
    match (a, b) {
        (None, x) | (x, None) => x.clone(),
        (Some(a), Some(b)) if Rc::ptr_eq(a, b) => Some(a.clone()),
        (Some(a), Some(b)) => {
            let mut merged: Vec<Sym> = Vec::with_capacity(a.len() + b.len());
            merged.extend_from_slice(a);
            merged.extend_from_slice(b);
            merged.sort_unstable();
            merged.dedup();
            Some(merged.into())
        }
    }
}

pub(crate) fn hideset_intersection(a: &HideSet, b: &HideSet) -> HideSet {
    match (a, b) {
        (Some(a), Some(b)) => {
            let common: Vec<Sym> = a
                .iter()
                .copied()
                .filter(|s| b.binary_search(s).is_ok())
                .collect();
            if common.is_empty() {
                None
            } else {
                Some(common.into())
            }
        }
        _ => None,
    }
}

pub(crate) fn hideset_with(set: &HideSet, sym: Sym) -> HideSet {
    if hideset_contains(set, sym) {
        return set.clone();
    }
    let mut v: Vec<Sym> = set.as_deref().unwrap_or(&[]).to_vec();
    let at = v.partition_point(|&s| s < sym);
    v.insert(at, sym);
    Some(v.into())
}

/// A preprocessing token (C99 6.4) plus the markers the expander needs.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum PpKind {
    Ident(Sym),
    /// A pp-number, as written (without line splices).
    Number(Rc<str>),
    /// A character constant with its quotes, as written.
    Char(Rc<str>),
    /// A string literal with its quotes, as written.
    Str(Rc<str>),
    /// A punctuator; digraphs are stored as the token they stand for.
    Punct(&'static str),
    /// A character that starts no token (`@`, `` ` ``, a stray `\`).
    Other(char),
    /// An unterminated character constant (`true`) or string (`false`):
    /// its text.
    Invalid(Rc<str>, bool),
    /// A `#pragma` (or `_Pragma`) the parser must see, as its text.
    Pragma(Rc<str>),
    /// The empty argument of `##` (C99 6.10.3.3p2); never leaves expansion.
    Placemarker,
    /// The end of an isolated token list (a macro argument, a `#if` line).
    Barrier,
    /// The end of an included file.
    EndOfFile,
    /// The end of the translation unit.
    Eof,
}

#[derive(Clone, Debug)]
pub(crate) struct PpTok {
    pub kind: PpKind,
    pub span: Span,
    /// Whitespace (or a comment, or a newline) came before this token.
    pub space: bool,
    /// First token of a source line: where a directive may start.
    pub bol: bool,
    pub hide: HideSet,
}

impl PpTok {
    pub(crate) fn new(kind: PpKind, span: Span) -> PpTok {
        PpTok {
            kind,
            span,
            space: false,
            bol: false,
            hide: None,
        }
    }

    pub(crate) fn is_punct(&self, p: &str) -> bool {
        matches!(self.kind, PpKind::Punct(q) if q == p)
    }

    pub(crate) fn is_end(&self) -> bool {
        matches!(self.kind, PpKind::Eof | PpKind::EndOfFile | PpKind::Barrier)
    }

    /// The token as it would be written (digraphs in their usual form).
    pub(crate) fn spelling<'a>(&'a self, interner: &'a Interner) -> std::borrow::Cow<'a, str> {
        use std::borrow::Cow;
        match &self.kind {
            PpKind::Ident(sym) => Cow::Borrowed(interner.name(*sym)),
            PpKind::Number(t) | PpKind::Char(t) | PpKind::Str(t) | PpKind::Invalid(t, _) => {
                Cow::Borrowed(t)
            }
            PpKind::Punct(p) => Cow::Borrowed(p),
            PpKind::Other(c) => Cow::Owned(c.to_string()),
            PpKind::Pragma(t) => Cow::Owned(format!("_Pragma({t:?})")),
            PpKind::Placemarker | PpKind::Barrier | PpKind::EndOfFile | PpKind::Eof => {
                Cow::Borrowed("")
            }
        }
    }
}

/// Punctuators of four, three and two characters, longest first, with the
/// token each stands for (digraphs map to their usual spelling).
const PUNCT4: &[(&str, &str)] = &[("%:%:", "##")];
const PUNCT3: &[(&str, &str)] = &[("...", "..."), ("<<=", "<<="), (">>=", ">>=")];
const PUNCT2: &[(&str, &str)] = &[
    ("->", "->"),
    ("++", "++"),
    ("--", "--"),
    ("<<", "<<"),
    (">>", ">>"),
    ("<=", "<="),
    (">=", ">="),
    ("==", "=="),
    ("!=", "!="),
    ("&&", "&&"),
    ("||", "||"),
    ("*=", "*="),
    ("/=", "/="),
    ("%=", "%="),
    ("+=", "+="),
    ("-=", "-="),
    ("&=", "&="),
    ("^=", "^="),
    ("|=", "|="),
    ("##", "##"),
    ("<:", "["),
    (":>", "]"),
    ("<%", "{"),
    ("%>", "}"),
    ("%:", "#"),
];
const PUNCT1: &[&str] = &[
    "[", "]", "(", ")", "{", "}", ".", "&", "*", "+", "-", "~", "!", "/", "%", "<", ">", "^", "|",
    "?", ":", ";", "=", ",", "#",
];

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b == b'$' || b >= 0x80
}

fn is_ident_continue(b: u8) -> bool {
    is_ident_start(b) || b.is_ascii_digit()
}

/// The lexer position, saved to back out of a tentative scan.
#[derive(Clone, Copy)]
struct Mark {
    pos: usize,
    line: u32,
    line_start: usize,
    splices: u32,
}

/// Lexes one file on demand, so that `#line` and `#include` take effect
/// exactly where they are written.
pub(crate) struct Lexer {
    text: Rc<str>,
    pos: usize,
    /// Physical line at `pos` and the offset where it starts.
    line: u32,
    line_start: usize,
    /// Presumed line minus physical line, set by `#line`.
    line_delta: i64,
    /// A `#line` waiting for the end of its directive line.
    line_override: Option<u32>,
    /// The file id spans carry (a fresh one after `#line`).
    pub span_file: FileId,
    /// No token yet on this logical line.
    at_bol: bool,
    /// Whitespace was skipped by [`Lexer::at_line_end`].
    pending_space: bool,
    splices: u32,
    peeked: Option<PpTok>,
}

impl Lexer {
    pub(crate) fn new(text: Rc<str>, file: FileId) -> Lexer {
        // A byte order mark is not part of the program text.
        let pos = if text.starts_with('\u{feff}') { 3 } else { 0 };
        Lexer {
            text,
            pos,
            line: 1,
            line_start: pos,
            line_delta: 0,
            line_override: None,
            span_file: file,
            at_bol: true,
            pending_space: false,
            splices: 0,
            peeked: None,
        }
    }

    fn bytes(&self) -> &[u8] {
        self.text.as_bytes()
    }

    /// Removes backslash-newline pairs at the current position.
    fn skip_splices(&mut self) {
        loop {
            let b = self.bytes();
            if b.get(self.pos) != Some(&b'\\') {
                return;
            }
            let len = match (b.get(self.pos + 1), b.get(self.pos + 2)) {
                (Some(b'\n'), _) => 2,
                (Some(b'\r'), Some(b'\n')) => 3,
                _ => return,
            };
            self.pos += len;
            self.line += 1;
            self.line_start = self.pos;
            self.splices += 1;
        }
    }

    fn cur(&mut self) -> Option<u8> {
        self.skip_splices();
        self.bytes().get(self.pos).copied()
    }

    /// The character `k` places after the current one, across splices.
    fn peek_at(&self, k: usize) -> Option<u8> {
        let b = self.bytes();
        let mut p = self.pos;
        let mut n = 0;
        loop {
            while b.get(p) == Some(&b'\\') {
                match (b.get(p + 1), b.get(p + 2)) {
                    (Some(b'\n'), _) => p += 2,
                    (Some(b'\r'), Some(b'\n')) => p += 3,
                    _ => break,
                }
            }
            if n == k {
                return b.get(p).copied();
            }
            if p >= b.len() {
                return None;
            }
            p += 1;
            n += 1;
        }
    }

    /// Steps over the current character (never a newline).
    fn adv(&mut self) {
        self.skip_splices();
        if self.pos < self.text.len() {
            self.pos += 1;
        }
    }

    fn newline(&mut self) {
        self.pos += 1;
        self.line += 1;
        self.line_start = self.pos;
        self.at_bol = true;
        if let Some(presumed) = self.line_override.take() {
            self.line_delta = presumed as i64 - self.line as i64;
        }
    }

    fn mark(&self) -> Mark {
        Mark {
            pos: self.pos,
            line: self.line,
            line_start: self.line_start,
            splices: self.splices,
        }
    }

    fn reset(&mut self, m: Mark) {
        self.pos = m.pos;
        self.line = m.line;
        self.line_start = m.line_start;
        self.splices = m.splices;
    }

    fn span_here(&self) -> Span {
        let line = (self.line as i64 + self.line_delta).clamp(1, u32::MAX as i64) as u32;
        Span {
            file: self.span_file,
            offset: self.pos as u32,
            line,
            col: (self.pos - self.line_start + 1) as u32,
        }
    }

    /// `#line N`: the line after the directive's newline is line `presumed`.
    pub(crate) fn set_next_line(&mut self, presumed: u32) {
        self.line_override = Some(presumed);
    }

    /// Where the file ends (the span of its end-of-file).
    pub(crate) fn end_span(&self) -> Span {
        let mut end = self.span_here();
        end.offset = self.text.len() as u32;
        end
    }

    /// Skips spaces, tabs and comments up to (not over) a newline. Returns
    /// whether anything was skipped.
    fn skip_inline_space(&mut self, diags: &mut Diagnostics) -> bool {
        let mut skipped = false;
        loop {
            match self.cur() {
                Some(b' ' | b'\t' | 0x0b | 0x0c | b'\r') => {
                    self.pos += 1;
                    skipped = true;
                }
                Some(b'/') if self.peek_at(1) == Some(b'/') => {
                    while !matches!(self.cur(), None | Some(b'\n')) {
                        self.pos += 1;
                    }
                    skipped = true;
                }
                Some(b'/') if self.peek_at(1) == Some(b'*') => {
                    let start = self.span_here();
                    self.adv();
                    self.adv();
                    loop {
                        match self.cur() {
                            None => {
                                diags.error(start, "unterminated /* comment");
                                break;
                            }
                            Some(b'*') if self.peek_at(1) == Some(b'/') => {
                                self.adv();
                                self.adv();
                                break;
                            }
                            Some(b'\n') => {
                                // A comment is one space: the logical line
                                // goes on after it.
                                self.pos += 1;
                                self.line += 1;
                                self.line_start = self.pos;
                            }
                            Some(_) => self.pos += 1,
                        }
                    }
                    skipped = true;
                }
                _ => return skipped,
            }
        }
    }

    /// True when no token is left on the current logical line.
    pub(crate) fn at_line_end(&mut self, diags: &mut Diagnostics) -> bool {
        if let Some(t) = &self.peeked {
            return t.bol || t.is_end();
        }
        if self.skip_inline_space(diags) {
            self.pending_space = true;
        }
        matches!(self.cur(), None | Some(b'\n'))
    }

    /// The next token without consuming it.
    pub(crate) fn peek(&mut self, interner: &mut Interner, diags: &mut Diagnostics) -> &PpTok {
        if self.peeked.is_none() {
            let t = self.lex(interner, diags);
            self.peeked = Some(t);
        }
        self.peeked.as_ref().expect("just filled")
    }

    pub(crate) fn next(&mut self, interner: &mut Interner, diags: &mut Diagnostics) -> PpTok {
        match self.peeked.take() {
            Some(t) => t,
            None => self.lex(interner, diags),
        }
    }

    /// The tokens left on the current line (a directive's operands).
    pub(crate) fn rest_of_line(
        &mut self,
        interner: &mut Interner,
        diags: &mut Diagnostics,
    ) -> Vec<PpTok> {
        let mut out = Vec::new();
        while !self.at_line_end(diags) {
            out.push(self.next(interner, diags));
        }
        out
    }

    /// A header name (C99 6.4.7) if the line goes on with `<...>` or
    /// `"..."`; otherwise nothing is consumed. Returns the name, whether it
    /// was in angle brackets, and where it starts.
    pub(crate) fn header_name(&mut self, diags: &mut Diagnostics) -> Option<(String, bool, Span)> {
        if self.peeked.is_some() || self.at_line_end(diags) {
            return None;
        }
        let close = match self.cur()? {
            b'<' => b'>',
            b'"' => b'"',
            _ => return None,
        };
        let mark = self.mark();
        let span = self.span_here();
        self.adv();
        let start = self.pos;
        let splices = self.splices;
        loop {
            match self.cur() {
                None | Some(b'\n') => {
                    self.reset(mark);
                    return None;
                }
                Some(c) if c == close => break,
                Some(_) => self.adv(),
            }
        }
        let name = self.text_between(start, self.pos, splices).into_owned();
        self.adv();
        Some((name, close == b'>', span))
    }

    /// Source text from `start` to `end`, without line splices: borrowed
    /// where it holds none, as nearly every token's does.
    fn text_between(&self, start: usize, end: usize, splices_before: u32) -> Cow<'_, str> {
        let raw = &self.text[start..end];
        if self.splices == splices_before {
            return Cow::Borrowed(raw);
        }
        Cow::Owned(raw.replace("\\\r\n", "").replace("\\\n", ""))
    }

    fn lex(&mut self, interner: &mut Interner, diags: &mut Diagnostics) -> PpTok {
        let mut space = std::mem::take(&mut self.pending_space);
        loop {
            space |= self.skip_inline_space(diags);
            if self.cur() == Some(b'\n') {
                self.newline();
                space = true;
                continue;
            }
            break;
        }
        let span = self.span_here();
        let bol = std::mem::replace(&mut self.at_bol, false);
        let start = self.pos;
        let splices = self.splices;
        let Some(c) = self.cur() else {
            let kind = PpKind::Eof;
            return PpTok {
                kind,
                span,
                space,
                bol: true,
                hide: None,
            };
        };
        // C99's `L` prefix makes a wide character constant or string.
        let wide = c == b'L' && matches!(self.peek_at(1), Some(b'\'' | b'"'));
        let kind = if is_ident_start(c) && !wide {
            while self.cur().is_some_and(is_ident_continue) {
                self.pos += 1;
            }
            let text = self.text_between(start, self.pos, splices);
            PpKind::Ident(interner.intern(&text))
        } else if c.is_ascii_digit()
            || (c == b'.' && self.peek_at(1).is_some_and(|d| d.is_ascii_digit()))
        {
            self.pos += 1;
            loop {
                match self.cur() {
                    Some(b'e' | b'E' | b'p' | b'P')
                        if matches!(self.peek_at(1), Some(b'+' | b'-')) =>
                    {
                        self.adv();
                        self.adv();
                    }
                    Some(d) if d.is_ascii_alphanumeric() || d == b'_' || d == b'.' || d == b'$' => {
                        self.pos += 1
                    }
                    _ => break,
                }
            }
            PpKind::Number(Rc::from(&*self.text_between(start, self.pos, splices)))
        } else if wide || c == b'\'' || c == b'"' {
            if wide {
                self.pos += 1;
            }
            let c = self.cur().unwrap_or(b'"');
            self.pos += 1;
            let terminated = loop {
                match self.cur() {
                    None | Some(b'\n') => break false,
                    Some(b'\\') => {
                        self.pos += 1;
                        if !matches!(self.cur(), None | Some(b'\n')) {
                            self.adv();
                        }
                    }
                    Some(q) if q == c => {
                        self.pos += 1;
                        break true;
                    }
                    Some(_) => self.pos += 1,
                }
            };
            let text: Rc<str> = Rc::from(&*self.text_between(start, self.pos, splices));
            match (terminated, c) {
                (true, b'\'') => PpKind::Char(text),
                (true, _) => PpKind::Str(text),
                (false, quote) => PpKind::Invalid(text, quote == b'\''),
            }
        } else {
            self.lex_punct(c)
        };
        PpTok {
            kind,
            span,
            space,
            bol,
            hide: None,
        }
    }

    fn lex_punct(&mut self, c: u8) -> PpKind {
        // The commonest punctuators begin no longer one.
        let alone = match c {
            b'(' => Some("("),
            b')' => Some(")"),
            b'[' => Some("["),
            b']' => Some("]"),
            b'{' => Some("{"),
            b'}' => Some("}"),
            b';' => Some(";"),
            b',' => Some(","),
            b'?' => Some("?"),
            b'~' => Some("~"),
            _ => None,
        };
        if let Some(p) = alone {
            self.pos += 1;
            return PpKind::Punct(p);
        }
        let ahead: [Option<u8>; 4] = [Some(c), self.peek_at(1), self.peek_at(2), self.peek_at(3)];
        let matches = |s: &str| s.bytes().zip(ahead.iter()).all(|(a, b)| Some(a) == *b);
        for table in [PUNCT4, PUNCT3, PUNCT2] {
            if let Some(&(written, token)) = table.iter().find(|(w, _)| matches(w)) {
                for _ in 0..written.len() {
                    self.adv();
                }
                return PpKind::Punct(token);
            }
        }
        if let Some(&p) = PUNCT1.iter().find(|p| p.as_bytes()[0] == c) {
            self.adv();
            return PpKind::Punct(p);
        }
        self.adv();
        // Every byte of a multi-byte character starts an identifier, so this
        // one is ASCII.
        PpKind::Other(c as char)
    }
}

/// Lexes a whole text on its own (a pasted token, a `_Pragma` string, a
/// command-line definition), every token at `span`.
pub(crate) fn lex_text(
    text: &str,
    span: Span,
    interner: &mut Interner,
    diags: &mut Diagnostics,
) -> Vec<PpTok> {
    let mut lexer = Lexer::new(Rc::from(text), span.file);
    let mut out = Vec::new();
    loop {
        let mut t = lexer.next(interner, diags);
        if t.kind == PpKind::Eof {
            return out;
        }
        t.span = span;
        out.push(t);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lex_all(src: &str) -> (Vec<PpTok>, Interner, Diagnostics) {
        let mut interner = Interner::default();
        let mut diags = Diagnostics::default();
        let mut lexer = Lexer::new(Rc::from(src), 0);
        let mut out = Vec::new();
        loop {
            let t = lexer.next(&mut interner, &mut diags);
            if t.kind == PpKind::Eof {
                break;
            }
            out.push(t);
        }
        (out, interner, diags)
    }

    fn spellings(src: &str) -> Vec<String> {
        let (toks, interner, _) = lex_all(src);
        toks.iter()
            .map(|t| t.spelling(&interner).into_owned())
            .collect()
    }

    #[test]
    fn punctuators_take_the_longest_match() {
        assert_eq!(
            spellings("a+++++b x<<=y ->... .. >>= &&& ## # %:%: <: :> <% %> %:"),
            vec![
                "a", "++", "++", "+", "b", "x", "<<=", "y", "->", "...", ".", ".", ">>=", "&&",
                "&", "##", "#", "##", "[", "]", "{", "}", "#"
            ]
        );
    }

    #[test]
    fn numbers_are_pp_numbers() {
        assert_eq!(
            spellings("1.5e+3f 0x1p-3 .5 1e 12ul 0x1.8P+1h 1..2 3+4"),
            vec![
                "1.5e+3f",
                "0x1p-3",
                ".5",
                "1e",
                "12ul",
                "0x1.8P+1h",
                "1..2",
                "3",
                "+",
                "4"
            ]
        );
    }

    #[test]
    fn spans_are_line_col_offset() {
        let (toks, _, _) = lex_all("int a;\n  b\t= 3;");
        let at: Vec<(u32, u32, u32)> = toks
            .iter()
            .map(|t| (t.span.line, t.span.col, t.span.offset))
            .collect();
        assert_eq!(
            at,
            vec![
                (1, 1, 0),
                (1, 5, 4),
                (1, 6, 5),
                (2, 3, 9),
                (2, 5, 11),
                (2, 7, 13),
                (2, 8, 14)
            ]
        );
        assert!(toks[0].bol && !toks[1].bol && toks[3].bol);
        assert!(toks[1].space && !toks[2].space && toks[3].space);
    }

    #[test]
    fn comments_and_splices() {
        assert_eq!(
            spellings("a /* x \n y */ b // c \\\n d\ne f\\\ng \"s\\\nt\""),
            vec!["a", "b", "e", "fg", "\"st\""]
        );
        let (toks, _, _) = lex_all("a /* x \n y */ b\nc");
        assert!(!toks[1].bol, "a comment does not end the logical line");
        assert!(toks[2].bol);
        assert_eq!(toks[1].span.line, 2);
        assert_eq!(toks[2].span.line, 3);
    }

    #[test]
    fn unterminated_comment_is_an_error() {
        let (_, _, diags) = lex_all("a\n  /* open");
        assert_eq!(diags.list.len(), 1);
        let span = diags.list[0].span.unwrap();
        assert_eq!((span.line, span.col), (2, 3));
    }

    #[test]
    fn quotes_and_invalid_tokens() {
        let (toks, _, _) = lex_all("'a' '\\'' \"x\\\"y\" 'open\n\"open");
        assert_eq!(toks[0].kind, PpKind::Char("'a'".into()));
        assert_eq!(toks[1].kind, PpKind::Char("'\\''".into()));
        assert_eq!(toks[2].kind, PpKind::Str("\"x\\\"y\"".into()));
        assert!(matches!(toks[3].kind, PpKind::Invalid(_, _)));
        assert!(matches!(toks[4].kind, PpKind::Invalid(_, _)));
        assert!(toks[4].bol);
    }

    #[test]
    fn wide_literals_are_single_tokens() {
        assert_eq!(
            spellings("L'a' L\"s\" L x L"),
            vec!["L'a'", "L\"s\"", "L", "x", "L"]
        );
    }

    #[test]
    fn other_characters_and_unicode_identifiers() {
        let (toks, interner, _) = lex_all("@ ` \\ é_x");
        assert_eq!(toks[0].kind, PpKind::Other('@'));
        assert_eq!(toks[1].kind, PpKind::Other('`'));
        assert_eq!(toks[2].kind, PpKind::Other('\\'));
        assert_eq!(toks[3].spelling(&interner), "é_x");
    }

    #[test]
    fn header_names() {
        let mut interner = Interner::default();
        let mut diags = Diagnostics::default();
        let mut lexer = Lexer::new(
            Rc::from("include <a/b.h> x\ninclude \"c\\d.h\"\ninclude <e"),
            0,
        );
        lexer.next(&mut interner, &mut diags);
        assert_eq!(
            lexer.header_name(&mut diags).map(|h| (h.0, h.1)),
            Some(("a/b.h".to_string(), true))
        );
        assert!(!lexer.at_line_end(&mut diags));
        lexer.next(&mut interner, &mut diags);
        assert!(lexer.at_line_end(&mut diags));
        lexer.next(&mut interner, &mut diags);
        assert_eq!(
            lexer.header_name(&mut diags).map(|h| (h.0, h.1)),
            Some(("c\\d.h".to_string(), false))
        );
        lexer.next(&mut interner, &mut diags);
        assert_eq!(lexer.header_name(&mut diags), None);
        let t = lexer.next(&mut interner, &mut diags);
        assert_eq!(t.kind, PpKind::Punct("<"));
    }

    #[test]
    fn crlf_and_bom() {
        assert_eq!(spellings("\u{feff}a\r\nb\\\r\nc"), vec!["a", "bc"]);
    }

    #[test]
    fn hidesets() {
        let a = hideset_with(&None, 3);
        let a = hideset_with(&a, 1);
        assert!(hideset_contains(&a, 1) && hideset_contains(&a, 3) && !hideset_contains(&a, 2));
        let b = hideset_with(&None, 3);
        let b = hideset_with(&b, 7);
        assert_eq!(hideset_intersection(&a, &b).as_deref(), Some(&[3][..]));
        assert_eq!(hideset_union(&a, &b).as_deref(), Some(&[1, 3, 7][..]));
        assert_eq!(hideset_intersection(&a, &None), None);
    }
}
