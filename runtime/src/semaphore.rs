//! Binary semaphores (cl_khr_semaphore), kept on the host.
//!
//! Every OpenCL queue of a device shares one `VkQueue` and orders its
//! commands with events, so a semaphore is a queue of events: a signal
//! command's event joins the semaphore's signals, and a wait command
//! depends on the oldest signal not yet waited for, which it consumes. A
//! wait enqueued before its signal depends on a placeholder event that the
//! signal completes when it does (with its status, so a failed signal fails
//! the wait), and the queue holds the wait, and on an in-order queue what
//! follows it, until then, as it holds commands behind a user event.

use crate::api::{ApiHeader, ApiObject, Tag};
use crate::cl::*;
use crate::context::Context;
use crate::device::Device;
use crate::event::Event;
use crate::queue::{no_work, Access, Queue};
use parking_lot::Mutex;
use std::collections::VecDeque;
use std::sync::Arc;

/// What a semaphore has been told and not yet used.
#[derive(Default)]
struct Pending {
    /// Signal commands no wait has consumed, oldest first.
    signals: VecDeque<Arc<Event>>,
    /// Placeholders of waits enqueued before their signal, oldest first.
    waits: VecDeque<Arc<Event>>,
}

/// A `cl_semaphore_khr` of type `CL_SEMAPHORE_TYPE_BINARY_KHR`.
#[repr(C)]
pub struct Semaphore {
    header: ApiHeader,
    pub context: Arc<Context>,
    /// `CL_SEMAPHORE_PROPERTIES_KHR`: the list as given, with its
    /// terminating 0.
    pub properties: Vec<u64>,
    /// The device the semaphore is used on (`CL_SEMAPHORE_DEVICE_HANDLE_LIST_KHR`).
    pub device: Arc<Device>,
    pending: Mutex<Pending>,
}

// SAFETY: repr(C) with the header first; the tag is unique to Semaphore.
unsafe impl ApiObject for Semaphore {
    const TAG: Tag = Tag::Semaphore;
    const INVALID: cl_int = CL_INVALID_SEMAPHORE_KHR;
}

impl Semaphore {
    pub fn new(context: Arc<Context>, device: Arc<Device>, properties: Vec<u64>) -> Arc<Semaphore> {
        Arc::new(Semaphore {
            header: ApiHeader::new(Tag::Semaphore),
            context,
            properties,
            device,
            pending: Mutex::new(Pending::default()),
        })
    }

    /// `CL_SEMAPHORE_PAYLOAD_KHR`: 1 while a completed signal waits to be
    /// consumed, else 0.
    pub fn payload(&self) -> u64 {
        let pending = self.pending.lock();
        let signaled = pending
            .signals
            .front()
            .is_some_and(|e| e.status() == CL_COMPLETE as cl_int);
        u64::from(signaled)
    }

    /// Hands a signal command's event to the oldest waiting placeholder
    /// (true), or keeps it for the next wait.
    fn signal(&self, event: &Arc<Event>) -> bool {
        let waiter = {
            let mut pending = self.pending.lock();
            let waiter = pending.waits.pop_front();
            if waiter.is_none() {
                pending.signals.push_back(event.clone());
            }
            waiter
        };
        let Some(waiter) = waiter else {
            return false;
        };
        let signal = event.clone();
        event.on_done(Box::new(move || {
            waiter.complete(signal.status().min(CL_COMPLETE as cl_int));
        }));
        true
    }

    /// The event a wait on this semaphore depends on: the oldest signal not
    /// yet consumed, or a placeholder the next signal completes.
    fn take_signal(&self) -> Arc<Event> {
        let mut pending = self.pending.lock();
        pending.signals.pop_front().unwrap_or_else(|| {
            let placeholder = Event::new_user(self.context.clone());
            pending.waits.push_back(placeholder.clone());
            placeholder
        })
    }
}

/// `clEnqueueSignalSemaphoresKHR` after the ICD's checks: a command that
/// waits for `wait_list` (and, on an in-order queue, what came before it)
/// and then signals `semaphores`.
pub fn enqueue_signal(
    queue: &Arc<Queue>,
    semaphores: &[Arc<Semaphore>],
    wait_list: &[Arc<Event>],
) -> Result<Arc<Event>, cl_int> {
    let event = queue.enqueue_with_access(
        CL_COMMAND_SEMAPHORE_SIGNAL_KHR,
        wait_list,
        Access::Nothing,
        no_work,
    )?;
    let mut awaited = false;
    for s in semaphores {
        awaited |= s.signal(&event);
    }
    // A wait on another queue already depends on this signal: it must
    // reach the device without waiting for this queue's next flush.
    if awaited {
        queue.flush();
    }
    Ok(event)
}

/// `clEnqueueWaitSemaphoresKHR` after the ICD's checks: a command that
/// waits for `wait_list` and for one signal of each of `semaphores`.
pub fn enqueue_wait(
    queue: &Arc<Queue>,
    semaphores: &[Arc<Semaphore>],
    wait_list: &[Arc<Event>],
) -> Result<Arc<Event>, cl_int> {
    let mut deps = wait_list.to_vec();
    deps.extend(semaphores.iter().map(|s| s.take_signal()));
    queue.enqueue_with_access(
        CL_COMMAND_SEMAPHORE_WAIT_KHR,
        &deps,
        Access::Nothing,
        no_work,
    )
}
