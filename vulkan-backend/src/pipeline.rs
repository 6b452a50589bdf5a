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
    /// Keep what the driver compiled for [`Pipeline::executables`]
    /// (CAPTURE_STATISTICS and CAPTURE_INTERNAL_REPRESENTATIONS). Needs
    /// `Features::pipeline_statistics`.
    pub capture_statistics: bool,
    /// Ask the driver for a quick compile (DISABLE_OPTIMIZATION), whose
    /// code may run slower. NVIDIA's driver 580 ignores it: the same
    /// compile times and the same code (docs/performance.md, "The driver's
    /// compile under the cold build").
    pub disable_optimization: bool,
}

/// One executable the driver compiled a pipeline into, as
/// VK_KHR_pipeline_executable_properties reports it: for a compute pipeline
/// usually one, with statistics such as registers per thread.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PipelineExecutable {
    pub name: String,
    pub subgroup_size: u32,
    /// Each statistic's name and value, in the driver's order.
    pub statistics: Vec<(String, String)>,
    /// Each internal representation the driver gives as text (an IR or
    /// the machine code), by name.
    pub representations: Vec<(String, String)>,
}

/// A compute pipeline; destroyed on drop.
pub struct Pipeline {
    device: Arc<DeviceShared>,
    pub(crate) raw: vk::Pipeline,
    /// Owned by the device's layout cache.
    pub(crate) layout: vk::PipelineLayout,
    push_constant_size: u32,
    captured: bool,
}

impl Pipeline {
    /// Size of the push-constant range, rounded up to a multiple of 4.
    pub fn push_constant_size(&self) -> u32 {
        self.push_constant_size
    }

    /// What the driver compiled this pipeline into. The pipeline must have
    /// been created with `PipelineOptions::capture_statistics`.
    pub fn executables(&self) -> Result<Vec<PipelineExecutable>> {
        let ext = match (&self.device.executable_properties, self.captured) {
            (Some(ext), true) => ext,
            _ => {
                return Err(Error::Other(
                    "the pipeline was not created to capture its statistics".to_string(),
                ))
            }
        };
        let info = vk::PipelineInfoKHR::default().pipeline(self.raw);
        // SAFETY: the pipeline is alive and was created with the capture
        // flags on a device with pipelineExecutableInfo enabled.
        let properties = unsafe { ext.get_pipeline_executable_properties(&info) }
            .map_err(|e| vk_error("vkGetPipelineExecutablePropertiesKHR", e))?;
        let mut executables = Vec::with_capacity(properties.len());
        for (index, p) in properties.iter().enumerate() {
            let which = vk::PipelineExecutableInfoKHR::default()
                .pipeline(self.raw)
                .executable_index(index as u32);
            // SAFETY: as above; `index` is below the count just returned.
            let statistics = unsafe { ext.get_pipeline_executable_statistics(&which) }
                .map_err(|e| vk_error("vkGetPipelineExecutableStatisticsKHR", e))?
                .iter()
                .map(|s| (text(s.name_as_c_str()), statistic_value(s)))
                .collect();
            executables.push(PipelineExecutable {
                name: text(p.name_as_c_str()),
                subgroup_size: p.subgroup_size,
                statistics,
                representations: representations(ext, &which)?,
            });
        }
        Ok(executables)
    }
}

fn text(s: std::result::Result<&std::ffi::CStr, std::ffi::FromBytesUntilNulError>) -> String {
    s.map(|c| c.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn statistic_value(s: &vk::PipelineExecutableStatisticKHR<'_>) -> String {
    // SAFETY: the union member read is the one `format` names.
    unsafe {
        match s.format {
            vk::PipelineExecutableStatisticFormatKHR::BOOL32 => {
                (s.value.b32 == vk::TRUE).to_string()
            }
            vk::PipelineExecutableStatisticFormatKHR::INT64 => s.value.i64.to_string(),
            vk::PipelineExecutableStatisticFormatKHR::UINT64 => s.value.u64.to_string(),
            vk::PipelineExecutableStatisticFormatKHR::FLOAT64 => s.value.f64.to_string(),
            other => format!("(format {})", other.as_raw()),
        }
    }
}

/// The textual internal representations of one executable, read with the
/// two calls the extension asks for: sizes first, then the text.
fn representations(
    ext: &ash::khr::pipeline_executable_properties::Device,
    which: &vk::PipelineExecutableInfoKHR<'_>,
) -> Result<Vec<(String, String)>> {
    let fail = |e| vk_error("vkGetPipelineExecutableInternalRepresentationsKHR", e);
    // SAFETY: as in `executables`; with no data pointers the driver only
    // reports each representation's size.
    let sized =
        unsafe { ext.get_pipeline_executable_internal_representations(which) }.map_err(fail)?;
    let mut buffers: Vec<Vec<u8>> = sized.iter().map(|r| vec![0u8; r.data_size]).collect();
    let mut reps: Vec<vk::PipelineExecutableInternalRepresentationKHR<'_>> = sized
        .iter()
        .zip(buffers.iter_mut())
        .map(
            |(r, buffer)| vk::PipelineExecutableInternalRepresentationKHR {
                data_size: r.data_size,
                p_data: buffer.as_mut_ptr().cast(),
                ..Default::default()
            },
        )
        .collect();
    let mut count = reps.len() as u32;
    // SAFETY: each `p_data` points at `data_size` writable bytes that
    // outlive the call; `count` is the length of `reps`.
    unsafe {
        (ext.fp()
            .get_pipeline_executable_internal_representations_khr)(
            ext.device(),
            which,
            &mut count,
            reps.as_mut_ptr(),
        )
    }
    .result()
    .map_err(fail)?;
    Ok(reps
        .iter()
        .zip(&buffers)
        .take(count as usize)
        .filter(|(r, _)| r.is_text == vk::TRUE)
        .map(|(r, buffer)| {
            let used = &buffer[..r.data_size.min(buffer.len())];
            let end = used.iter().position(|&b| b == 0).unwrap_or(used.len());
            (
                text(r.name_as_c_str()),
                String::from_utf8_lossy(&used[..end]).into_owned(),
            )
        })
        .collect())
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
            captured: options.capture_statistics,
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
    if options.capture_statistics && shared.executable_properties.is_none() {
        return Err(Error::Other(
            "the device cannot report pipeline statistics".to_string(),
        ));
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
    let mut flags = vk::PipelineCreateFlags::DISPATCH_BASE;
    if options.capture_statistics {
        flags |= vk::PipelineCreateFlags::CAPTURE_STATISTICS_KHR
            | vk::PipelineCreateFlags::CAPTURE_INTERNAL_REPRESENTATIONS_KHR;
    }
    if options.disable_optimization {
        flags |= vk::PipelineCreateFlags::DISABLE_OPTIMIZATION;
    }
    let info = [vk::ComputePipelineCreateInfo::default()
        .flags(flags)
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
