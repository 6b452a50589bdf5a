//! Images and samplers in kernels.
//!
//! The layout the runtime shares is in docs/images.md: an image argument is
//! the 8-byte device address of an image descriptor, a sampler argument
//! 8 bytes holding the sampler's `CLK_*` bits.

use super::*;

impl<'a> Lowerer<'a> {
    /// The argument layout `(kind, address qualifier, size, alignment)` of a
    /// kernel parameter of opaque type `name`; None (with a diagnostic) when
    /// such a parameter is not allowed.
    pub(super) fn opaque_arg(
        &mut self,
        name: &'static str,
        p: &Param,
    ) -> Option<(ArgKind, AddressQualifier, u32, u32)> {
        self.error(
            p.span,
            format!("kernel arguments of type {name} are not supported yet"),
        );
        None
    }

    /// A call to an image built-in (`read_image*`, `write_image*`,
    /// `get_image_*`); None when `name` is not one.
    pub(super) fn image_call(
        &mut self,
        name: &str,
        args: &'a [Expr],
        span: Span,
    ) -> Option<R<Val>> {
        let _ = (name, args, span);
        None
    }
}

/// The value of an image or sampler constant of OpenCL C (`CLK_RGBA`,
/// `CLK_ADDRESS_CLAMP`, `CLK_NORMALIZED_COORDS_TRUE`...); None for other
/// names.
pub(super) fn image_constant(name: &str) -> Option<i64> {
    let _ = name;
    None
}
