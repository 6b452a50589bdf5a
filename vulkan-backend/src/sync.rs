//! Timeline semaphores: the completion counter behind OpenCL events. The
//! semaphore is shared with every submission that waits on or signals it, so
//! it outlives pending GPU work even if the runtime drops its handle.

use crate::device::{Device, DeviceShared};
use crate::error::{vk_error, Error, Result};
use ash::vk;
use std::sync::Arc;

pub(crate) struct TimelineShared {
    device: Arc<DeviceShared>,
    pub raw: vk::Semaphore,
}

impl TimelineShared {
    pub fn value(&self) -> Result<u64> {
        // SAFETY: a live timeline semaphore of this device.
        unsafe { self.device.raw.get_semaphore_counter_value(self.raw) }
            .map_err(|e| vk_error("vkGetSemaphoreCounterValue", e))
    }

    pub fn wait(&self, value: u64, timeout_ns: u64) -> Result<bool> {
        let semaphores = [self.raw];
        let values = [value];
        let info = vk::SemaphoreWaitInfo::default()
            .semaphores(&semaphores)
            .values(&values);
        // SAFETY: a live timeline semaphore; host waits need no external
        // synchronization.
        match unsafe { self.device.raw.wait_semaphores(&info, timeout_ns) } {
            Ok(()) => Ok(true),
            Err(vk::Result::TIMEOUT) => Ok(false),
            Err(e) => Err(vk_error("vkWaitSemaphores", e)),
        }
    }
}

impl Drop for TimelineShared {
    fn drop(&mut self) {
        // SAFETY: every submission waiting on or signalling the semaphore
        // holds an Arc to it until it completes.
        unsafe { self.device.raw.destroy_semaphore(self.raw, None) };
    }
}

/// A timeline semaphore.
pub struct Timeline {
    pub(crate) shared: Arc<TimelineShared>,
}

impl Timeline {
    /// The current counter value.
    pub fn value(&self) -> Result<u64> {
        self.shared.value()
    }

    /// Blocks until the counter reaches `value`; `Ok(false)` on timeout.
    pub fn wait(&self, value: u64, timeout_ns: u64) -> Result<bool> {
        self.shared.wait(value, timeout_ns)
    }

    /// Signals `value` from the host. It must be greater than the current
    /// value and than any value a pending submission will signal.
    pub fn signal(&self, value: u64) -> Result<()> {
        let current = self.shared.value()?;
        if value <= current {
            return Err(Error::Other(format!(
                "timeline signal {value} is not above its current value {current}"
            )));
        }
        let info = vk::SemaphoreSignalInfo::default()
            .semaphore(self.shared.raw)
            .value(value);
        // SAFETY: a live timeline semaphore of this device.
        unsafe { self.shared.device.raw.signal_semaphore(&info) }
            .map_err(|e| vk_error("vkSignalSemaphore", e))
    }
}

impl Device {
    pub fn create_timeline(&self, initial_value: u64) -> Result<Timeline> {
        let mut kind = vk::SemaphoreTypeCreateInfo::default()
            .semaphore_type(vk::SemaphoreType::TIMELINE)
            .initial_value(initial_value);
        let info = vk::SemaphoreCreateInfo::default().push_next(&mut kind);
        // SAFETY: the device is alive and has timelineSemaphore enabled.
        let raw = unsafe { self.shared.raw.create_semaphore(&info, None) }
            .map_err(|e| vk_error("vkCreateSemaphore", e))?;
        Ok(Timeline {
            shared: Arc::new(TimelineShared {
                device: Arc::clone(&self.shared),
                raw,
            }),
        })
    }
}
