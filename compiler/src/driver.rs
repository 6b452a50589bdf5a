//! Runs the pipeline: options → preprocessor → parser → semantic analysis →
//! lowering → SPIR-V → reflection.

use crate::diag::Diagnostics;
use crate::options::BuildOptions;
use crate::token::{SourceMap, Token};
use crate::{BuildError, CompileRequest, CompiledProgram, TargetCaps};
use std::hash::{Hash, Hasher};

/// Stack for a build: the parser and the lowering recurse once per nesting
/// level of the source (bounded by the parser), which must not overflow the
/// caller's stack, whatever thread the application builds on.
const BUILD_STACK_BYTES: usize = 64 << 20;

/// Runs `f` on a thread of its own with [`BUILD_STACK_BYTES`] of stack;
/// where no thread can be started, on this one. `None` if it panicked.
fn on_build_thread<R: Send>(f: impl Fn() -> R + Sync) -> Option<R> {
    let result = std::thread::scope(|s| {
        std::thread::Builder::new()
            .name("ferrocl-compile".into())
            .stack_size(BUILD_STACK_BYTES)
            .spawn_scoped(s, &f)
            .map(|h| h.join())
    });
    match result {
        Ok(joined) => joined.ok(),
        Err(_) => Some(f()),
    }
}

fn internal_error() -> BuildError {
    BuildError {
        log: "error: internal compiler error\n".into(),
        invalid_options: false,
    }
}

pub(crate) fn compile(
    request: &CompileRequest<'_>,
    caps: &TargetCaps,
) -> Result<CompiledProgram, BuildError> {
    on_build_thread(|| compile_on_this_thread(request, caps))
        .unwrap_or_else(|| Err(internal_error()))
}

/// A program's source after preprocessing, with its options: everything
/// the rest of its build reads ([`compile_preprocessed`]). What a cache of
/// builds keys an entry by: two sources that preprocess to the same tokens
/// build the same program, however the macros and headers reached them
/// (`-D` options or `#define` lines, headers in memory or on disk).
pub struct Preprocessed {
    tokens: Vec<Token>,
    sources: SourceMap,
    options: BuildOptions,
    /// The preprocessor's own warnings.
    diags: Diagnostics,
}

impl Preprocessed {
    /// Feeds `h` everything the build's program depends on besides the
    /// compiler and the device, and its log too when the log is empty:
    /// the options the preprocessor did not consume, the preprocessor's
    /// warnings as they read, and every token. Past
    /// the preprocessor a token's place only names it (a `#pragma unroll`
    /// finds its loop by it) and is quoted by diagnostics, so the places
    /// are fed as which earlier token's place each one repeats, if any: a
    /// macro's value from `-D` or from a `#define` line is the same
    /// program. A build whose log is not empty also depends on
    /// [`Self::hash_quoted_text`].
    pub fn hash_tokens(&self, h: &mut impl Hasher) {
        let mut options = self.options.clone();
        options.defines.clear();
        options.include_dirs.clear();
        format!("{options:?}").hash(h);
        self.tokens.len().hash(h);
        let mut places: crate::HashMap<crate::token::Span, usize> = crate::HashMap::default();
        for t in &self.tokens {
            t.kind.hash(h);
            let next = places.len();
            places.entry(t.span).or_insert(next).hash(h);
        }
        // The preprocessor's warnings, which the log will hold (none, in
        // a build whose log is empty).
        self.diags.render(&self.sources).hash(h);
    }

    /// Feeds `h` what a log of the build would quote besides the tokens:
    /// the files' names, each token's file, line and column, and the text
    /// of every line that holds a token.
    pub fn hash_quoted_text(&self, h: &mut impl Hasher) {
        let files = &self.sources.files;
        for f in files {
            f.name.hash(h);
        }
        let mut quoted = crate::diag::QuotedLines::new(&self.sources);
        let mut last = None;
        for t in &self.tokens {
            (t.span.file, t.span.line, t.span.col).hash(h);
            // Each line once, not once per token on it.
            let at = (t.span.file, t.span.line);
            if last != Some(at) {
                last = Some(at);
                quoted.line(t.span).hash(h);
            }
        }
    }
}

/// Runs the preprocessor over `request`, on a build thread. `None` where
/// the options are not valid or preprocessing fails: [`crate::compile`]
/// reports why.
pub fn preprocess(request: &CompileRequest<'_>, caps: &TargetCaps) -> Option<Preprocessed> {
    on_build_thread(|| preprocess_on_this_thread(request, caps, false).ok())
        .flatten()
        .map(|(pre, _)| pre)
}

/// The first half of a build: its options read and its source
/// preprocessed. With `record`, also every header read from disk (what a
/// compiled object keeps).
fn preprocess_on_this_thread(
    request: &CompileRequest<'_>,
    caps: &TargetCaps,
    record: bool,
) -> Result<(Preprocessed, Vec<crate::Header>), BuildError> {
    let options = BuildOptions::parse(request.options).map_err(|log| BuildError {
        log,
        invalid_options: true,
    })?;
    let mut diags = Diagnostics {
        suppress_warnings: options.suppress_warnings,
        warnings_are_errors: options.warnings_are_errors,
        ..Default::default()
    };
    let (source, headers) = (request.source, request.headers);
    let (tokens, sources, included) = if record {
        crate::preprocess::preprocess_recording_includes(
            source, headers, &options, caps, &mut diags,
        )
    } else {
        let (tokens, sources) =
            crate::preprocess::preprocess(source, headers, &options, caps, &mut diags);
        (tokens, sources, Vec::new())
    };
    if diags.has_errors() {
        return Err(BuildError {
            log: diags.render(&sources),
            invalid_options: false,
        });
    }
    let pre = Preprocessed {
        tokens,
        sources,
        options,
        diags,
    };
    Ok((pre, included))
}

/// Builds what [`preprocess`] made of a request, on a build thread: the
/// same program and log as [`crate::compile`] of that request.
pub fn compile_preprocessed(
    pre: &Preprocessed,
    caps: &TargetCaps,
) -> Result<CompiledProgram, BuildError> {
    on_build_thread(|| {
        compile_tokens(
            &pre.tokens,
            &pre.sources,
            caps,
            &pre.options,
            false,
            pre.diags.clone(),
        )
    })
    .unwrap_or_else(|| Err(internal_error()))
}

/// A compiled object of `clCompileProgram`.
#[derive(Clone, Debug)]
pub struct CompiledObject {
    /// The object checked as a program; `extern` variables and functions
    /// it does not define have stand-ins, so its module is not meant to
    /// run.
    pub program: CompiledProgram,
    /// Every header `#include` read from disk, named as the directive
    /// wrote it: passed as in-memory headers to the link, the `-I`
    /// directories of the compile may no longer exist then.
    pub included: Vec<crate::Header>,
}

/// Compiles one unit for `clCompileProgram`: as [`crate::compile`], except
/// that `extern` variables and functions declared but not defined are left
/// for `clLinkProgram` to resolve (C99 6.9: another translation unit may
/// hold the external definition).
pub fn compile_object(
    request: &CompileRequest<'_>,
    caps: &TargetCaps,
) -> Result<CompiledObject, BuildError> {
    let (program, included) = on_build_thread(|| build_on_this_thread(request, caps, true))
        .unwrap_or_else(|| Err(internal_error()))?;
    Ok(CompiledObject { program, included })
}

fn compile_on_this_thread(
    request: &CompileRequest<'_>,
    caps: &TargetCaps,
) -> Result<CompiledProgram, BuildError> {
    build_on_this_thread(request, caps, false).map(|(program, _)| program)
}

fn build_on_this_thread(
    request: &CompileRequest<'_>,
    caps: &TargetCaps,
    object: bool,
) -> Result<(CompiledProgram, Vec<crate::Header>), BuildError> {
    let (pre, included) = preprocess_on_this_thread(request, caps, object)?;
    let program = compile_tokens(
        &pre.tokens,
        &pre.sources,
        caps,
        &pre.options,
        object,
        pre.diags,
    )?;
    Ok((program, included))
}

/// Compiles already-preprocessed tokens: parse, check and lower, emit.
/// `object`: a compiled object of `clCompileProgram` ([`compile_object`]).
/// `diags` may already hold the preprocessor's warnings.
pub fn compile_tokens(
    tokens: &[Token],
    sources: &SourceMap,
    caps: &TargetCaps,
    options: &BuildOptions,
    object: bool,
    mut diags: Diagnostics,
) -> Result<CompiledProgram, BuildError> {
    let native_math = options.fast_relaxed_math || options.unsafe_math_optimizations;
    let relaxed_arithmetic = native_math || options.mad_enable;
    let float_mode = crate::lower::FloatMode {
        relaxed_arithmetic,
        native_math,
        relaxed_specials: relaxed_arithmetic || options.no_signed_zeros || options.finite_math_only,
    };
    let tu = crate::parse::parse(tokens, caps.fp64, &mut diags);
    let library = if diags.has_errors() {
        None
    } else {
        built_in_library(tokens, caps, &mut diags)
    };
    let lowered = if diags.has_errors() {
        None
    } else {
        crate::lower::lower(
            &tu,
            library.as_ref(),
            caps,
            float_mode,
            options.cl_std.version_number(),
            object,
            &mut diags,
        )
    };
    match lowered {
        Some(out) if !diags.has_errors() => Ok(CompiledProgram {
            spirv: out.spirv,
            kernels: out.kernels,
            printf_strings: out.printf_strings,
            global_data: out.global_data,
            global_relocations: out.global_relocations,
            global_variable_size: out.global_variable_size,
            log: diags.render(sources),
        }),
        _ => {
            if !diags.has_errors() {
                diags.error_nowhere("compilation failed");
            }
            Err(BuildError {
                log: diags.render(sources),
                invalid_options: false,
            })
        }
    }
}

/// The image built-ins (`read_image*`, `write_image*`, `get_image_*`).
const LIBRARY_IMAGE_SOURCE: &str = include_str!("sema/library_image.cl");

/// Parses the built-in library (OpenCL C compiled by this compiler) when the
/// program names one of its functions.
fn built_in_library(
    tokens: &[Token],
    caps: &TargetCaps,
    diags: &mut Diagnostics,
) -> Option<crate::ast::TranslationUnit> {
    let needed = tokens.iter().any(|t| {
        matches!(&t.kind, crate::token::TokenKind::Identifier(n) if crate::sema::builtins::uses_library(n))
    });
    // The image built-ins are a library of their own, parsed only for
    // programs that name one, so other programs build no faster or slower.
    let images = tokens.iter().any(|t| {
        matches!(&t.kind, crate::token::TokenKind::Identifier(n) if crate::lower::uses_image_library(n))
    });
    if !needed && !images {
        return None;
    }
    let mut lib_diags = Diagnostics::default();
    let (lib_tokens, _) = crate::preprocess::preprocess(
        crate::sema::builtins::LIBRARY_SOURCE,
        &[],
        &BuildOptions::default(),
        caps,
        &mut lib_diags,
    );
    let mut lib = crate::parse::parse(&lib_tokens, caps.fp64, &mut lib_diags);
    if caps.fp64 {
        let (fp64_tokens, _) = crate::preprocess::preprocess(
            crate::sema::builtins::LIBRARY_FP64_SOURCE,
            &[],
            &BuildOptions::default(),
            caps,
            &mut lib_diags,
        );
        let fp64 = crate::parse::parse(&fp64_tokens, caps.fp64, &mut lib_diags);
        lib.funcs.extend(fp64.funcs);
    }
    if images {
        let (image_tokens, _) = crate::preprocess::preprocess(
            LIBRARY_IMAGE_SOURCE,
            &[],
            &BuildOptions::default(),
            caps,
            &mut lib_diags,
        );
        let image = crate::parse::parse(&image_tokens, caps.fp64, &mut lib_diags);
        lib.funcs.extend(image.funcs);
    }
    if lib_diags.has_errors() {
        diags.error_nowhere("internal compiler error: the built-in library does not build");
        return None;
    }
    Some(lib)
}
