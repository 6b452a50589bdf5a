//! Runs the pipeline: options → preprocessor → parser → semantic analysis →
//! lowering → SPIR-V → reflection.

use crate::diag::Diagnostics;
use crate::options::BuildOptions;
use crate::token::{SourceMap, Token};
use crate::{BuildError, CompileRequest, CompiledProgram, TargetCaps};

/// Stack for a build: the parser and the lowering recurse once per nesting
/// level of the source (bounded by the parser), which must not overflow the
/// caller's stack, whatever thread the application builds on.
const BUILD_STACK_BYTES: usize = 64 << 20;

pub(crate) fn compile(
    request: &CompileRequest<'_>,
    caps: &TargetCaps,
) -> Result<CompiledProgram, BuildError> {
    let result = std::thread::scope(|s| {
        std::thread::Builder::new()
            .name("ferrocl-compile".into())
            .stack_size(BUILD_STACK_BYTES)
            .spawn_scoped(s, || compile_on_this_thread(request, caps))
            .map(|h| h.join())
    });
    match result {
        Ok(Ok(r)) => r,
        Ok(Err(_)) => Err(BuildError {
            log: "error: internal compiler error\n".into(),
            invalid_options: false,
        }),
        // No thread could be started: build here instead.
        Err(_) => compile_on_this_thread(request, caps),
    }
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
    let result = std::thread::scope(|s| {
        std::thread::Builder::new()
            .name("ferrocl-compile".into())
            .stack_size(BUILD_STACK_BYTES)
            .spawn_scoped(s, || build_on_this_thread(request, caps, true))
            .map(|h| h.join())
    });
    let (program, included) = match result {
        Ok(Ok(r)) => r?,
        Ok(Err(_)) => {
            return Err(BuildError {
                log: "error: internal compiler error\n".into(),
                invalid_options: false,
            })
        }
        Err(_) => build_on_this_thread(request, caps, true)?,
    };
    Ok(CompiledObject { program, included })
}

/// The headers a build of `request` would read from disk (`-I`
/// directories, the directory of the including file), with their
/// contents as they are now: with the request itself and `caps`, every
/// input the build depends on. Runs the preprocessor alone; `None` where
/// the options or the preprocessing fail (the build itself reports why).
pub fn disk_includes(
    request: &CompileRequest<'_>,
    caps: &TargetCaps,
) -> Option<Vec<crate::Header>> {
    let run = || {
        let options = BuildOptions::parse(request.options).ok()?;
        let mut diags = Diagnostics::default();
        let (_, _, included) = crate::preprocess::preprocess_recording_includes(
            request.source,
            request.headers,
            &options,
            caps,
            &mut diags,
        );
        (!diags.has_errors()).then_some(included)
    };
    // On a thread of its own for the stack, as a build.
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .name("ferrocl-compile".into())
            .stack_size(BUILD_STACK_BYTES)
            .spawn_scoped(s, run)
            .ok()?
            .join()
            .ok()?
    })
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
    let options = BuildOptions::parse(request.options).map_err(|log| BuildError {
        log,
        invalid_options: true,
    })?;
    let mut diags = Diagnostics {
        suppress_warnings: options.suppress_warnings,
        warnings_are_errors: options.warnings_are_errors,
        ..Default::default()
    };
    let (tokens, sources, included) = crate::preprocess::preprocess_recording_includes(
        request.source,
        request.headers,
        &options,
        caps,
        &mut diags,
    );
    if diags.has_errors() {
        return Err(BuildError {
            log: diags.render(&sources),
            invalid_options: false,
        });
    }
    let program = compile_tokens(&tokens, &sources, caps, &options, object, diags)?;
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
