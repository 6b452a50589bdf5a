//! The Vulkan instance: opening the loader at run time, the optional
//! validation layer with its message counter, and the list of qualifying
//! physical devices. Owns the `VkInstance` and the debug messenger; devices
//! keep it alive through an `Arc`.

use crate::info::{self, Candidate, PhysicalDeviceInfo};
use ash::vk;
use std::ffi::{c_void, CStr};
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

const VALIDATION_LAYER: &CStr = c"VK_LAYER_KHRONOS_validation";

static VALIDATION_MESSAGES: AtomicUsize = AtomicUsize::new(0);

/// Number of validation-layer messages seen in this process (see the crate
/// docs).
pub fn validation_message_count() -> usize {
    VALIDATION_MESSAGES.load(Ordering::SeqCst)
}

/// Counts and prints WARNING and ERROR messages; VERBOSE and INFO are
/// chatter about layer setup and are dropped.
unsafe extern "system" fn validation_callback(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    _types: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    _user: *mut c_void,
) -> vk::Bool32 {
    let wanted = vk::DebugUtilsMessageSeverityFlagsEXT::WARNING
        | vk::DebugUtilsMessageSeverityFlagsEXT::ERROR;
    if !severity.intersects(wanted) {
        return vk::FALSE;
    }
    VALIDATION_MESSAGES.fetch_add(1, Ordering::SeqCst);
    // SAFETY: the layer passes a valid callback-data struct whose pMessage,
    // when not null, is a NUL-terminated string that lives for this call.
    let message = unsafe {
        data.as_ref()
            .filter(|d| !d.p_message.is_null())
            .map(|d| CStr::from_ptr(d.p_message).to_string_lossy())
    };
    // A failed write to stderr must not unwind into the Vulkan layer.
    let _ = writeln!(
        std::io::stderr(),
        "ferrocl: vulkan validation: {}",
        message.as_deref().unwrap_or("(no message)")
    );
    vk::FALSE
}

/// The loaded library and the instance made from it. Field order matters:
/// the instance is destroyed in `Drop` before the library is unloaded.
pub(crate) struct RawInstance {
    pub instance: ash::Instance,
    messenger: Option<(ash::ext::debug_utils::Instance, vk::DebugUtilsMessengerEXT)>,
    pub api_version: u32,
    pub entry: ash::Entry,
}

impl Drop for RawInstance {
    fn drop(&mut self) {
        if let Some((utils, messenger)) = self.messenger.take() {
            // SAFETY: the messenger was created from this instance and is
            // destroyed once; no other thread uses it (we are in Drop).
            unsafe { utils.destroy_debug_utils_messenger(messenger, None) };
        }
        // SAFETY: every device made from this instance holds an Arc to it,
        // so none is alive any more.
        unsafe { self.instance.destroy_instance(None) };
    }
}

/// The Vulkan instance and the qualifying physical devices.
pub struct Instance {
    pub(crate) candidates: Vec<Candidate>,
    devices: Vec<PhysicalDeviceInfo>,
    notes: Vec<String>,
    // Last: destroyed after everything above that might refer to it.
    pub(crate) raw: Option<RawInstance>,
}

impl Instance {
    /// Loads Vulkan. On a machine without a loader or without a qualifying
    /// device this still succeeds, with an empty [`Instance::devices`], and
    /// [`Instance::notes`] says why (for a log line).
    pub fn new() -> Arc<Instance> {
        let validation = match std::env::var("FERROCL_VALIDATION").as_deref() {
            Ok("1") => Validation::Core,
            Ok("sync") => Validation::CoreAndSync,
            _ => Validation::Off,
        };
        let mut notes = Vec::new();
        let raw = match create_raw_instance(validation, &mut notes) {
            Ok(raw) => Some(raw),
            Err(note) => {
                notes.push(note);
                None
            }
        };
        let mut candidates = Vec::new();
        if let Some(raw) = &raw {
            candidates = enumerate(raw, &mut notes);
            if candidates.is_empty() && notes.is_empty() {
                notes.push("Vulkan lists no physical device".to_string());
            }
        }
        let devices = candidates.iter().map(|c| c.info.clone()).collect();
        Arc::new(Instance {
            candidates,
            devices,
            notes,
            raw,
        })
    }

    pub fn devices(&self) -> &[PhysicalDeviceInfo] {
        &self.devices
    }

    /// Why the device list is empty or shorter than the Vulkan list: one
    /// line per skipped device or failure.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }
}

/// What `FERROCL_VALIDATION` asks for: `1` for the layer's core checks,
/// `sync` for those plus synchronization validation (missing barriers and
/// semaphore waits between commands that touch the same memory).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Validation {
    Off,
    Core,
    CoreAndSync,
}

fn create_raw_instance(
    validation: Validation,
    notes: &mut Vec<String>,
) -> Result<RawInstance, String> {
    let sync_validation = validation == Validation::CoreAndSync;
    let validation = validation != Validation::Off;
    // SAFETY: loading the system's Vulkan loader runs its initialisers; the
    // loader is designed to be opened by any process.
    let entry = unsafe { ash::Entry::load() }
        .map_err(|e| format!("no Vulkan loader on this machine ({e})"))?;
    // SAFETY: a global command; `entry` is loaded.
    let loader_version = match unsafe { entry.try_enumerate_instance_version() } {
        Ok(Some(v)) => v,
        Ok(None) => vk::API_VERSION_1_0,
        Err(e) => return Err(format!("vkEnumerateInstanceVersion failed: {e}")),
    };
    let api_version = if loader_version >= vk::API_VERSION_1_3 {
        vk::API_VERSION_1_3
    } else if loader_version >= vk::API_VERSION_1_2 {
        vk::API_VERSION_1_2
    } else {
        return Err(format!(
            "the Vulkan loader offers only Vulkan {}.{}; ferrocl needs 1.2",
            vk::api_version_major(loader_version),
            vk::api_version_minor(loader_version)
        ));
    };

    // SAFETY: global commands on a loaded entry.
    let layers = unsafe { entry.enumerate_instance_layer_properties() }.unwrap_or_default();
    let has_layer = layers
        .iter()
        .any(|l| l.layer_name_as_c_str() == Ok(VALIDATION_LAYER));
    // SAFETY: as above; `None` lists the loader's and drivers' extensions.
    let mut extensions: Vec<_> =
        unsafe { entry.enumerate_instance_extension_properties(None) }.unwrap_or_default();
    if validation && has_layer {
        // SAFETY: as above, for the layer's own extensions.
        let layer_exts =
            unsafe { entry.enumerate_instance_extension_properties(Some(VALIDATION_LAYER)) };
        extensions.extend(layer_exts.unwrap_or_default());
    }
    let has_ext = |name: &CStr| {
        extensions
            .iter()
            .any(|e| e.extension_name_as_c_str() == Ok(name))
    };

    let mut enabled_layers = Vec::new();
    let mut enabled_exts = Vec::new();
    let mut use_messenger = false;
    if validation {
        if has_layer {
            enabled_layers.push(VALIDATION_LAYER.as_ptr());
        } else {
            let note = "FERROCL_VALIDATION=1 but VK_LAYER_KHRONOS_validation is not installed; \
                        running without validation"
                .to_string();
            let _ = writeln!(std::io::stderr(), "ferrocl: {note}");
            notes.push(note);
        }
        if has_ext(ash::ext::debug_utils::NAME) {
            enabled_exts.push(ash::ext::debug_utils::NAME.as_ptr());
            use_messenger = true;
        } else {
            let note =
                "FERROCL_VALIDATION=1 but VK_EXT_debug_utils is missing; messages are not counted"
                    .to_string();
            let _ = writeln!(std::io::stderr(), "ferrocl: {note}");
            notes.push(note);
        }
    }
    // Lets drivers that only conform partially (MoltenVK) be listed.
    let mut flags = vk::InstanceCreateFlags::empty();
    if has_ext(ash::khr::portability_enumeration::NAME) {
        enabled_exts.push(ash::khr::portability_enumeration::NAME.as_ptr());
        flags |= vk::InstanceCreateFlags::ENUMERATE_PORTABILITY_KHR;
    }

    let app = vk::ApplicationInfo::default()
        .application_name(c"ferrocl")
        .engine_name(c"ferrocl")
        .engine_version(vk::make_api_version(0, 0, 1, 0))
        .api_version(api_version);
    let mut messenger_info = vk::DebugUtilsMessengerCreateInfoEXT::default()
        .message_severity(
            vk::DebugUtilsMessageSeverityFlagsEXT::WARNING
                | vk::DebugUtilsMessageSeverityFlagsEXT::ERROR,
        )
        .message_type(
            vk::DebugUtilsMessageTypeFlagsEXT::GENERAL
                | vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
                | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE,
        )
        .pfn_user_callback(Some(validation_callback));
    let enabled_checks = [vk::ValidationFeatureEnableEXT::SYNCHRONIZATION_VALIDATION];
    let mut checks =
        vk::ValidationFeaturesEXT::default().enabled_validation_features(&enabled_checks);
    let use_sync_validation =
        sync_validation && has_layer && has_ext(ash::ext::validation_features::NAME);
    if use_sync_validation {
        enabled_exts.push(ash::ext::validation_features::NAME.as_ptr());
    }
    let mut create_info = vk::InstanceCreateInfo::default()
        .flags(flags)
        .application_info(&app)
        .enabled_layer_names(&enabled_layers)
        .enabled_extension_names(&enabled_exts);
    if use_messenger {
        // Chained so that vkCreateInstance and vkDestroyInstance themselves
        // are validated too.
        create_info = create_info.push_next(&mut messenger_info);
    }
    if use_sync_validation {
        create_info = create_info.push_next(&mut checks);
    }
    // SAFETY: every pointer in `create_info` refers to locals or 'static C
    // strings that outlive the call.
    let instance = unsafe { entry.create_instance(&create_info, None) }
        .map_err(|e| format!("vkCreateInstance failed: {e}"))?;

    let mut raw = RawInstance {
        instance,
        messenger: None,
        api_version,
        entry,
    };
    if use_messenger {
        let utils = ash::ext::debug_utils::Instance::new(&raw.entry, &raw.instance);
        // SAFETY: VK_EXT_debug_utils is enabled on this instance; the
        // callback is a 'static function.
        match unsafe { utils.create_debug_utils_messenger(&messenger_info, None) } {
            Ok(messenger) => raw.messenger = Some((utils, messenger)),
            Err(e) => notes.push(format!("vkCreateDebugUtilsMessengerEXT failed: {e}")),
        }
    }
    Ok(raw)
}

/// Every qualifying physical device, discrete GPUs first.
fn enumerate(raw: &RawInstance, notes: &mut Vec<String>) -> Vec<Candidate> {
    // SAFETY: the instance is alive.
    let physical = match unsafe { raw.instance.enumerate_physical_devices() } {
        Ok(list) => list,
        Err(e) => {
            notes.push(format!("vkEnumeratePhysicalDevices failed: {e}"));
            return Vec::new();
        }
    };
    let mut candidates: Vec<Candidate> = physical
        .into_iter()
        .filter_map(
            |pd| match info::probe(&raw.entry, &raw.instance, raw.api_version, pd) {
                Ok(candidate) => Some(candidate),
                Err(note) => {
                    notes.push(note);
                    None
                }
            },
        )
        .collect();
    // Stable: devices of one kind keep the driver's order.
    candidates.sort_by_key(|c| c.info.device_type.rank());
    candidates
}
