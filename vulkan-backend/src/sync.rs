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

    /// Blocks until every timeline in `waits` reaches its value (one
    /// vkWaitSemaphores per device); `Ok(false)` if `timeout_ns` passed
    /// first. For clWaitForEvents over events of several queues.
    pub fn wait_all(waits: &[(&Timeline, u64)], timeout_ns: u64) -> Result<bool> {
        let deadline =
            std::time::Instant::now().checked_add(std::time::Duration::from_nanos(timeout_ns));
        let mut semaphores = Vec::with_capacity(waits.len());
        let mut values = Vec::with_capacity(waits.len());
        let mut done = vec![false; waits.len()];
        for first in 0..waits.len() {
            if done[first] {
                continue;
            }
            let device = &waits[first].0.shared.device;
            semaphores.clear();
            values.clear();
            for (i, (timeline, value)) in waits.iter().enumerate().skip(first) {
                if !done[i] && Arc::ptr_eq(&timeline.shared.device, device) {
                    semaphores.push(timeline.shared.raw);
                    values.push(*value);
                    done[i] = true;
                }
            }
            // Later devices get what is left of the caller's timeout.
            let remaining = match deadline {
                Some(deadline) => deadline
                    .saturating_duration_since(std::time::Instant::now())
                    .as_nanos()
                    .min(u128::from(u64::MAX)) as u64,
                None => u64::MAX,
            };
            let info = vk::SemaphoreWaitInfo::default()
                .semaphores(&semaphores)
                .values(&values);
            // SAFETY: live timeline semaphores, all of this device.
            match unsafe { device.raw.wait_semaphores(&info, remaining) } {
                Ok(()) => {}
                Err(vk::Result::TIMEOUT) => return Ok(false),
                Err(e) => return Err(vk_error("vkWaitSemaphores", e)),
            }
        }
        Ok(true)
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
