//! The C99 preprocessor with OpenCL's predefined macros.
//!
//! Owns: lexing source text into preprocessing tokens, directives, macro
//! expansion, `#include` from in-memory headers and `-I` directories, the
//! predefined macros of the target. Produces the parser's [`Token`]s.

use crate::diag::Diagnostics;
use crate::options::BuildOptions;
use crate::token::{SourceMap, Token};
use crate::{Header, TargetCaps};

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
    let _ = (source, headers, options, caps, diags);
    unimplemented!("preprocessor")
}
