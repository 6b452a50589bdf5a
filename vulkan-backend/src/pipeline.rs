//! Compute pipelines: one SPIR-V entry point, a push-constant block, no
//! descriptor sets, 32-bit specialization constants (work-group size,
//! `__local` argument sizes), created through the device's `VkPipelineCache`.

use crate::device::{Device, DeviceShared};
use crate::error::{vk_error, Error, Result};
use ash::vk;
use std::ffi::CString;
use std::sync::Arc;

/// How a pipeline's subgroups are formed. Without options the driver picks
/// the subgroup size (and, for SPIR-V 1.6 modules, may vary it between
/// dispatches), which OpenCL's `get_max_sub_group_size` cannot tolerate where
/// a device offers several sizes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PipelineOptions {
    /// The subgroup size every dispatch uses: a power of two between
    /// `Limits::min_subgroup_size` and `max_subgroup_size`. Needs
    /// `Features::subgroup_size_control`.
    pub required_subgroup_size: Option<u32>,
    /// Every subgroup is full (REQUIRE_FULL_SUBGROUPS): the work-group's x
    /// size must be a multiple of the subgroup size. Needs
    /// `Features::compute_full_subgroups`.
    pub full_subgroups: bool,
}

/// A compute pipeline; destroyed on drop.
pub struct Pipeline {
    device: Arc<DeviceShared>,
    pub(crate) raw: vk::Pipeline,
    /// Owned by the device's layout cache.
    pub(crate) layout: vk::PipelineLayout,
    push_constant_size: u32,
}

impl Pipeline {
    /// Size of the push-constant range, rounded up to a multiple of 4.
    pub fn push_constant_size(&self) -> u32 {
        self.push_constant_size
    }
}

impl Drop for Pipeline {
    fn drop(&mut self) {
        // SAFETY: command streams keep an Arc to every pipeline they recorded
        // until the submission completes, so no pending work uses it.
        unsafe { self.device.raw.destroy_pipeline(self.raw, None) };
    }
}

/// Destroys a shader module once the pipeline made from it exists (or failed).
struct ShaderModule<'a> {
    device: &'a ash::Device,
    raw: vk::ShaderModule,
}

impl Drop for ShaderModule<'_> {
    fn drop(&mut self) {
        // SAFETY: a pipeline does not need its shader module after creation.
        unsafe { self.device.destroy_shader_module(self.raw, None) };
    }
}

impl Device {
    /// A compute pipeline for `entry_point` of `spirv`, with a push-constant
    /// range of `push_constant_size` bytes (0: none) and the given
    /// specialization constants (id, 32-bit value). Created with
    /// DISPATCH_BASE, through the device's VkPipelineCache.
    ///
    /// No lock of the backend is held while the driver compiles (the
    /// pipeline cache is internally synchronized), so several threads may
    /// build pipelines at once, off the application's thread.
    pub fn create_pipeline(
        &self,
        spirv: &[u32],
        entry_point: &str,
        push_constant_size: u32,
        spec_constants: &[(u32, u32)],
    ) -> Result<Pipeline> {
        self.create_pipeline_with_options(
            spirv,
            entry_point,
            push_constant_size,
            spec_constants,
            &PipelineOptions::default(),
        )
    }

    /// As [`Device::create_pipeline`], with subgroup requirements.
    pub fn create_pipeline_with_options(
        &self,
        spirv: &[u32],
        entry_point: &str,
        push_constant_size: u32,
        spec_constants: &[(u32, u32)],
        options: &PipelineOptions,
    ) -> Result<Pipeline> {
        let (raw, layout, push_constant_size) = create_raw_pipeline(
            &self.shared,
            spirv,
            entry_point,
            push_constant_size,
            spec_constants,
            options,
        )?;
        Ok(Pipeline {
            device: Arc::clone(&self.shared),
            raw,
            layout,
            push_constant_size,
        })
    }
}

/// Creates a compute pipeline; the caller owns the returned `VkPipeline`.
/// Returns it with its layout (owned by the device's cache) and the
/// push-constant size rounded up to a multiple of 4.
pub(crate) fn create_raw_pipeline(
    shared: &DeviceShared,
    spirv: &[u32],
    entry_point: &str,
    push_constant_size: u32,
    spec_constants: &[(u32, u32)],
    options: &PipelineOptions,
) -> Result<(vk::Pipeline, vk::PipelineLayout, u32)> {
    if spirv.is_empty() {
        return Err(Error::Other("empty SPIR-V module".to_string()));
    }
    let info = &shared.info;
    if let Some(size) = options.required_subgroup_size {
        if !info.features.subgroup_size_control {
            return Err(Error::Other(
                "the device cannot require a compute subgroup size".to_string(),
            ));
        }
        let range = info.limits.min_subgroup_size..=info.limits.max_subgroup_size;
        if !size.is_power_of_two() || !range.contains(&size) {
            return Err(Error::Other(format!(
                "subgroup size {size} is not a power of two in {range:?}"
            )));
        }
    }
    if options.full_subgroups && !info.features.compute_full_subgroups {
        return Err(Error::Other(
            "the device cannot require full subgroups".to_string(),
        ));
    }
    // VkPushConstantRange sizes are multiples of 4; a larger range than
    // the shader's block is valid. (Checked first: rounding cannot overflow.)
    if push_constant_size > shared.info.limits.max_push_constants_size {
        return Err(Error::Other(format!(
            "push-constant block of {push_constant_size} bytes exceeds the device's {}",
            shared.info.limits.max_push_constants_size
        )));
    }
    let push_constant_size = push_constant_size.div_ceil(4) * 4;
    if push_constant_size > shared.info.limits.max_push_constants_size {
        return Err(Error::Other(format!(
            "push-constant block of {push_constant_size} bytes exceeds the device's {}",
            shared.info.limits.max_push_constants_size
        )));
    }
    let entry = CString::new(entry_point)
        .map_err(|_| Error::Other("entry point name contains NUL".to_string()))?;
    let layout = shared.pipeline_layout(push_constant_size)?;

    let module_info = vk::ShaderModuleCreateInfo::default().code(spirv);
    // SAFETY: the device is alive; the words are passed with their length.
    let module = unsafe { shared.raw.create_shader_module(&module_info, None) }
        .map_err(|e| vk_error("vkCreateShaderModule", e))?;
    let module = ShaderModule {
        device: &shared.raw,
        raw: module,
    };

    let entries: Vec<vk::SpecializationMapEntry> = spec_constants
        .iter()
        .enumerate()
        .map(|(i, &(id, _))| vk::SpecializationMapEntry {
            constant_id: id,
            offset: (i * 4) as u32,
            size: 4,
        })
        .collect();
    let data: Vec<u8> = spec_constants
        .iter()
        .flat_map(|&(_, value)| value.to_ne_bytes())
        .collect();
    let specialization = vk::SpecializationInfo::default()
        .map_entries(&entries)
        .data(&data);
    let mut required_size = vk::PipelineShaderStageRequiredSubgroupSizeCreateInfo::default()
        .required_subgroup_size(options.required_subgroup_size.unwrap_or(0));
    let mut stage = vk::PipelineShaderStageCreateInfo::default()
        .stage(vk::ShaderStageFlags::COMPUTE)
        .module(module.raw)
        .name(&entry);
    if !spec_constants.is_empty() {
        stage = stage.specialization_info(&specialization);
    }
    if options.full_subgroups {
        stage = stage.flags(vk::PipelineShaderStageCreateFlags::REQUIRE_FULL_SUBGROUPS);
    }
    if options.required_subgroup_size.is_some() {
        stage = stage.push_next(&mut required_size);
    }
    let info = [vk::ComputePipelineCreateInfo::default()
        .flags(vk::PipelineCreateFlags::DISPATCH_BASE)
        .stage(stage)
        .layout(layout)];
    // SAFETY: module, layout and cache belong to this device; the cache
    // is internally synchronized, so concurrent creation is allowed.
    let created = unsafe {
        shared
            .raw
            .create_compute_pipelines(shared.pipeline_cache, &info, None)
    };
    drop(module);
    let raw = match created {
        Ok(pipelines) => pipelines[0],
        Err((pipelines, e)) => {
            for p in pipelines.into_iter().filter(|p| *p != vk::Pipeline::null()) {
                // SAFETY: a partially created pipeline is unused.
                unsafe { shared.raw.destroy_pipeline(p, None) };
            }
            return Err(vk_error("vkCreateComputePipelines", e));
        }
    };
    Ok((raw, layout, push_constant_size))
}
