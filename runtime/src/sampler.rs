//! Sampler objects. A sampler is its three settings; a kernel receives it
//! as its `CLK_*` bits in an 8-byte argument slot (docs/images.md), and
//! the image built-ins apply the addressing mode and filter in software,
//! so a sampler owns no Vulkan object.

use crate::api::{ApiHeader, ApiObject, Tag};
use crate::cl::*;
use crate::context::Context;
use std::sync::Arc;

/// `CLK_NORMALIZED_COORDS_TRUE`.
pub const CLK_NORMALIZED_COORDS_TRUE: u32 = 0x1;
/// `CLK_ADDRESS_*`, in bits 1 to 3.
pub const CLK_ADDRESS_NONE: u32 = 0x0;
pub const CLK_ADDRESS_CLAMP_TO_EDGE: u32 = 0x2;
pub const CLK_ADDRESS_CLAMP: u32 = 0x4;
pub const CLK_ADDRESS_REPEAT: u32 = 0x6;
pub const CLK_ADDRESS_MIRRORED_REPEAT: u32 = 0x8;
/// `CLK_FILTER_*`, in bits 4 and 5.
pub const CLK_FILTER_NEAREST: u32 = 0x10;
pub const CLK_FILTER_LINEAR: u32 = 0x20;

/// A `cl_sampler`.
#[repr(C)]
pub struct Sampler {
    header: ApiHeader,
    pub context: Arc<Context>,
    pub normalized_coords: bool,
    /// `CL_ADDRESS_*`.
    pub addressing_mode: cl_uint,
    /// `CL_FILTER_*`.
    pub filter_mode: cl_uint,
    /// `CL_SAMPLER_PROPERTIES`: the list given to
    /// `clCreateSamplerWithProperties` (with its 0), empty otherwise.
    pub properties: Vec<u64>,
}

// SAFETY: repr(C) with the header first; the tag is unique to Sampler.
unsafe impl ApiObject for Sampler {
    const TAG: Tag = Tag::Sampler;
    const INVALID: cl_int = CL_INVALID_SAMPLER;
}

/// Whether `mode` is a `CL_ADDRESS_*` value.
pub fn addressing_mode_valid(mode: cl_uint) -> bool {
    matches!(
        mode,
        CL_ADDRESS_NONE
            | CL_ADDRESS_CLAMP_TO_EDGE
            | CL_ADDRESS_CLAMP
            | CL_ADDRESS_REPEAT
            | CL_ADDRESS_MIRRORED_REPEAT
    )
}

/// Whether `mode` is a `CL_FILTER_*` value.
pub fn filter_mode_valid(mode: cl_uint) -> bool {
    matches!(mode, CL_FILTER_NEAREST | CL_FILTER_LINEAR)
}

impl Sampler {
    /// A sampler with settings already checked.
    pub fn new(
        context: Arc<Context>,
        normalized_coords: bool,
        addressing_mode: cl_uint,
        filter_mode: cl_uint,
        properties: Vec<u64>,
    ) -> Arc<Sampler> {
        Arc::new(Sampler {
            header: ApiHeader::new(Tag::Sampler),
            context,
            normalized_coords,
            addressing_mode,
            filter_mode,
            properties,
        })
    }

    /// The `CLK_*` bits of a `sampler_t` kernel argument.
    pub fn bits(&self) -> u32 {
        sampler_bits(
            self.normalized_coords,
            self.addressing_mode,
            self.filter_mode,
        )
    }
}

/// The `CLK_*` bits of the given settings.
pub fn sampler_bits(
    normalized_coords: bool,
    addressing_mode: cl_uint,
    filter_mode: cl_uint,
) -> u32 {
    let normalized = if normalized_coords {
        CLK_NORMALIZED_COORDS_TRUE
    } else {
        0
    };
    let address = match addressing_mode {
        CL_ADDRESS_CLAMP_TO_EDGE => CLK_ADDRESS_CLAMP_TO_EDGE,
        CL_ADDRESS_CLAMP => CLK_ADDRESS_CLAMP,
        CL_ADDRESS_REPEAT => CLK_ADDRESS_REPEAT,
        CL_ADDRESS_MIRRORED_REPEAT => CLK_ADDRESS_MIRRORED_REPEAT,
        _ => CLK_ADDRESS_NONE,
    };
    let filter = if filter_mode == CL_FILTER_LINEAR {
        CLK_FILTER_LINEAR
    } else {
        CLK_FILTER_NEAREST
    };
    normalized | address | filter
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_follow_docs_images_md() {
        assert_eq!(
            sampler_bits(false, CL_ADDRESS_NONE, CL_FILTER_NEAREST),
            0x10
        );
        assert_eq!(sampler_bits(true, CL_ADDRESS_CLAMP, CL_FILTER_LINEAR), 0x25);
        assert_eq!(
            sampler_bits(true, CL_ADDRESS_MIRRORED_REPEAT, CL_FILTER_NEAREST),
            0x19
        );
        assert_eq!(
            sampler_bits(false, CL_ADDRESS_REPEAT, CL_FILTER_LINEAR),
            0x26
        );
        assert_eq!(
            sampler_bits(false, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_NEAREST),
            0x12
        );
        assert!(addressing_mode_valid(CL_ADDRESS_REPEAT));
        assert!(!addressing_mode_valid(0));
        assert!(filter_mode_valid(CL_FILTER_LINEAR));
        assert!(!filter_mode_valid(CL_FILTER_LINEAR + 1));
    }
}
