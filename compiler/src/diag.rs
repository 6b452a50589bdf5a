//! Diagnostics: errors and warnings with a source location, rendered like
//! clang (`<source>:3:9: error: ...`, the source line, a caret) into the build
//! log. Every stage reports here and goes on where it can; nothing exits.

use crate::token::{SourceMap, Span};
use std::fmt::Write;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Note,
    Warning,
    Error,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    /// `None` for problems with no place in the source (e.g. bad options).
    pub span: Option<Span>,
    pub message: String,
}

/// The diagnostics of one compilation.
#[derive(Clone, Debug, Default)]
pub struct Diagnostics {
    pub list: Vec<Diagnostic>,
    /// `-w`: drop warnings.
    pub suppress_warnings: bool,
    /// `-Werror`: warnings count as errors.
    pub warnings_are_errors: bool,
}

impl Diagnostics {
    pub fn error(&mut self, span: Span, message: impl Into<String>) {
        self.push(Severity::Error, Some(span), message.into());
    }

    pub fn warning(&mut self, span: Span, message: impl Into<String>) {
        self.push(Severity::Warning, Some(span), message.into());
    }

    pub fn note(&mut self, span: Span, message: impl Into<String>) {
        self.push(Severity::Note, Some(span), message.into());
    }

    /// An error with no source location.
    pub fn error_nowhere(&mut self, message: impl Into<String>) {
        self.push(Severity::Error, None, message.into());
    }

    fn push(&mut self, severity: Severity, span: Option<Span>, message: String) {
        let severity = match severity {
            Severity::Warning if self.suppress_warnings => return,
            Severity::Warning if self.warnings_are_errors => Severity::Error,
            other => other,
        };
        self.list.push(Diagnostic {
            severity,
            span,
            message,
        });
    }

    pub fn has_errors(&self) -> bool {
        self.list.iter().any(|d| d.severity == Severity::Error)
    }

    /// The build log: every diagnostic, clang style.
    pub fn render(&self, sources: &SourceMap) -> String {
        let mut log = String::new();
        let mut quoted = QuotedLines::new(sources);
        for d in &self.list {
            let label = match d.severity {
                Severity::Note => "note",
                Severity::Warning => "warning",
                Severity::Error => "error",
            };
            let Some(span) = d.span else {
                let _ = writeln!(log, "{label}: {}", d.message);
                continue;
            };
            let file = sources.files.get(span.file as usize);
            let name = file.map_or("<source>", |f| f.name.as_str());
            let _ = writeln!(
                log,
                "{name}:{}:{}: {label}: {}",
                span.line, span.col, d.message
            );
            if let Some(line) = quoted.line(span) {
                let _ = writeln!(log, "{line}");
                // Keep tabs so that the caret lines up under the character.
                let pad: String = line
                    .chars()
                    .take(span.col.saturating_sub(1) as usize)
                    .map(|c| if c == '\t' { '\t' } else { ' ' })
                    .collect();
                let _ = writeln!(log, "{pad}^");
            }
        }
        let errors = self
            .list
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count();
        if errors > 0 {
            let _ = writeln!(
                log,
                "{errors} error{} generated.",
                if errors == 1 { "" } else { "s" }
            );
        }
        log
    }
}

/// The source line a diagnostic at a span quotes.
pub(crate) struct QuotedLines<'s> {
    sources: &'s SourceMap,
    /// Where each line of each file starts, found once: looking the line
    /// up by scanning from the top for every diagnostic made a source with
    /// thousands of errors quadratic to report.
    starts: Vec<Option<Vec<usize>>>,
}

impl<'s> QuotedLines<'s> {
    pub(crate) fn new(sources: &'s SourceMap) -> Self {
        QuotedLines {
            sources,
            starts: vec![None; sources.files.len()],
        }
    }

    /// Line `span.line` of the span's file, as a diagnostic quotes it.
    pub(crate) fn line(&mut self, span: Span) -> Option<&'s str> {
        let file = self.sources.files.get(span.file as usize)?;
        let starts =
            self.starts[span.file as usize].get_or_insert_with(|| line_starts_of(&file.text));
        source_line(&file.text, starts, span.line.saturating_sub(1) as usize)
    }
}

/// The byte offset where each line of `text` starts, as `str::lines` splits it.
fn line_starts_of(text: &str) -> Vec<usize> {
    let mut starts = vec![0];
    starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
    if starts.last() == Some(&text.len()) {
        // A final newline ends the last line; it does not begin another.
        starts.pop();
    }
    starts
}

/// Line `index` (0-based) of `text` without its line ending, the same text
/// `text.lines().nth(index)` gives.
fn source_line<'a>(text: &'a str, starts: &[usize], index: usize) -> Option<&'a str> {
    let start = *starts.get(index)?;
    let rest = &text[start..];
    Some(match rest.find('\n') {
        Some(end) => rest[..end].strip_suffix('\r').unwrap_or(&rest[..end]),
        None => rest,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::token::SourceFile;

    #[test]
    fn renders_like_clang() {
        let sources = SourceMap {
            files: vec![SourceFile {
                name: "<source>".into(),
                text: "kernel void f() {\n  int x = y;\n}\n".into(),
            }],
        };
        let mut diags = Diagnostics::default();
        diags.error(
            Span {
                file: 0,
                offset: 28,
                line: 2,
                col: 11,
            },
            "use of undeclared identifier 'y'",
        );
        let log = diags.render(&sources);
        assert_eq!(
            log,
            "<source>:2:11: error: use of undeclared identifier 'y'\n  int x = y;\n          ^\n1 error generated.\n"
        );
    }

    #[test]
    fn source_lines_match_str_lines() {
        for text in [
            "",
            "a",
            "a\n",
            "a\nb",
            "a\r\nb\r\n",
            "\n\n",
            "x\r",
            "\r\n\r\nz",
        ] {
            let starts = line_starts_of(text);
            let ours: Vec<&str> = (0..=starts.len())
                .map_while(|i| source_line(text, &starts, i))
                .collect();
            assert_eq!(ours, text.lines().collect::<Vec<_>>(), "{text:?}");
        }
    }

    #[test]
    fn werror_promotes_and_w_drops() {
        let mut d = Diagnostics {
            warnings_are_errors: true,
            ..Default::default()
        };
        d.warning(Span::default(), "w");
        assert!(d.has_errors());
        let mut d = Diagnostics {
            suppress_warnings: true,
            ..Default::default()
        };
        d.warning(Span::default(), "w");
        assert!(d.list.is_empty());
    }
}
