//! Runs the pipeline: options → preprocessor → parser → semantic analysis →
//! lowering → SPIR-V → reflection.

use crate::{BuildError, CompileRequest, CompiledProgram, TargetCaps};

pub(crate) fn compile(
    request: &CompileRequest<'_>,
    caps: &TargetCaps,
) -> Result<CompiledProgram, BuildError> {
    let _ = (request, caps);
    unimplemented!("driver")
}
