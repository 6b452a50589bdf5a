//! Tokens: the boundary between the preprocessor and the parser.
//!
//! The preprocessor hands the parser a flat `Vec<Token>` with every macro
//! expanded and every directive consumed; each token keeps where it was
//! written (after `#line`), so diagnostics point at the user's source.

/// A source file known to one compilation: index into [`SourceMap::files`].
pub type FileId = u32;

/// Where a token was written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    pub file: FileId,
    /// Byte offset of the token's first character in its file.
    pub offset: u32,
    /// 1-based line and column (column in bytes).
    pub line: u32,
    pub col: u32,
}

/// Every file of a compilation (the main source, included headers), so that
/// diagnostics can print the source line.
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    pub files: Vec<SourceFile>,
}

#[derive(Clone, Debug)]
pub struct SourceFile {
    /// The name diagnostics print (`<source>` for the program source).
    pub name: String,
    pub text: String,
}

#[derive(Clone, Debug, PartialEq, Hash)]
pub enum TokenKind {
    Identifier(String),
    /// Keywords are identifiers to the preprocessor; the parser decides.
    /// An integer literal: value and suffix as written (`u`, `l`, `ul`, ...,
    /// lower-cased). The value is the literal's bits; the parser types it per
    /// C99 6.4.4.1.
    IntLiteral {
        value: u64,
        suffix: String,
        radix: u32,
    },
    /// A floating literal as written (`1.5f`, `0x1p-3`, `2.0h`): the parser
    /// converts with the suffix's type, so rounding happens once.
    FloatLiteral {
        text: String,
    },
    /// A character constant's value (`'a'` → 97).
    CharLiteral(i64),
    /// A string literal's bytes after escape processing, without the NUL.
    /// Adjacent literals are already concatenated.
    StringLiteral(Vec<u8>),
    /// Punctuators: `(`, `->`, `<<=`, `...` and so on, as written.
    Punct(&'static str),
    /// `#pragma` text that the parser must see (`OPENCL EXTENSION`,
    /// `FP_CONTRACT`, `unroll`), whole, without the leading `#pragma`.
    Pragma(String),
    Eof,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    pub kind: TokenKind,
    pub span: Span,
}
