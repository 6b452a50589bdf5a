//! Events: the status of one command (or a user event), its callbacks and
//! profiling times.
//!
//! A command's event moves `CL_QUEUED → CL_SUBMITTED → CL_RUNNING →
//! CL_COMPLETE` (or a negative error). The queue marks it submitted when its
//! batch goes to the GPU, its completion thread marks it running and then
//! complete. Callbacks and internal listeners are taken out of the lock and
//! run outside it, each exactly once.
//!
//! Command events are recycled: once a command has completed and nothing
//! but its queue refers to its event (no application handle, no wait list,
//! no weak link), the queue resets the object and hands it to a later
//! command, so that a steady stream of launches allocates no events. An
//! event the application holds is never reused.
//!
//! A command's event links to its queue weakly: the completion thread, which
//! holds events, must never hold the last reference to a queue (the queue's
//! teardown joins that thread), and the application's release of a queue
//! is then where the queue goes.

use crate::api::{handle_of, ApiHeader, ApiObject, Tag};
use crate::cl::*;
use crate::context::Context;
use crate::queue::Queue;
use ferrocl_vk::Timeline;
use parking_lot::{Condvar, Mutex};
use std::ffi::c_void;
use std::sync::{Arc, OnceLock, Weak};
use std::time::Instant;

/// `void (CL_CALLBACK *)(cl_event, cl_int, void *)`.
pub type EventCallback =
    unsafe extern "C" fn(event: *mut c_void, status: cl_int, user_data: *mut c_void);

/// Host clock in nanoseconds since the first use in this process; the
/// profiling times of every event come from it.
pub fn host_time_ns() -> u64 {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    let epoch = *EPOCH.get_or_init(Instant::now);
    // One nanosecond more so that no profiling time reads as "not set".
    epoch.elapsed().as_nanos() as u64 + 1
}

/// The `CL_PROFILING_COMMAND_QUEUED` time of a new event: read from the
/// clock only for a command of a profiling queue, as no other event's
/// times can be queried (the clock read is a noticeable part of an
/// enqueue call).
fn queued_time(link: Option<&QueueLink>) -> u64 {
    if link.is_some_and(|l| l.profiling) {
        host_time_ns()
    } else {
        0
    }
}

/// A profiled command's submit (when not yet set), start and end times as
/// it completes now: the device's measurement where there is one, kept in
/// order (queued <= submit <= start <= end).
fn set_end_times(times: &mut [u64; 4], measured: Option<(u64, u64)>) {
    let now = host_time_ns();
    if times[1] == 0 {
        times[1] = now;
    }
    match measured {
        Some((start, end)) => {
            times[2] = start.clamp(times[1], now);
            times[3] = end.clamp(times[2], now);
        }
        None => {
            if times[2] == 0 {
                times[2] = now;
            }
            times[3] = now;
        }
    }
}

/// The queued, submit and start times of `first` as those of `times`, a
/// later command's, whose end they may not pass.
fn spread_start(times: &mut [u64; 4], first: [u64; 4]) {
    let end = times[3];
    for (time, first) in times.iter_mut().zip(first).take(3) {
        *time = first.min(end);
    }
}

/// The command type of [`Event::new_gate`]'s events: none of the API's.
const GATE: cl_uint = 0;

type Listener = Box<dyn FnOnce() + Send>;

struct Registered {
    /// `CL_SUBMITTED`, `CL_RUNNING` or `CL_COMPLETE`.
    on: cl_int,
    callback: EventCallback,
    user_data: usize,
}

struct EventState {
    status: cl_int,
    /// The timeline value whose signal completes this command, once its
    /// batch has been submitted.
    timeline_value: Option<u64>,
    callbacks: Vec<Registered>,
    /// Runtime listeners run once the event completes (or fails).
    listeners: Vec<Listener>,
    /// Queued, submit, start, end (ns, host clock); 0 until reached.
    times: [u64; 4],
    /// The first command of an operation this command ends (a read run as
    /// several commands): its queued, submit and start times become this
    /// one's when this one completes ([`Event::span_from`]).
    span_from: Option<Arc<Event>>,
}

/// What an event knows of its queue.
struct QueueLink {
    queue: Weak<Queue>,
    timeline: Arc<Timeline>,
    profiling: bool,
}

impl QueueLink {
    fn to(queue: &Arc<Queue>) -> QueueLink {
        QueueLink {
            queue: Arc::downgrade(queue),
            timeline: queue.timeline().clone(),
            profiling: queue.profiling(),
        }
    }
}

/// A `cl_event`.
#[repr(C)]
pub struct Event {
    header: ApiHeader,
    pub context: Arc<Context>,
    /// None for a user event.
    queue: Option<QueueLink>,
    pub command_type: cl_uint,
    state: Mutex<EventState>,
    changed: Condvar,
}

// SAFETY: repr(C) with the header first; the tag is unique to Event.
unsafe impl ApiObject for Event {
    const TAG: Tag = Tag::Event;
    const INVALID: cl_int = CL_INVALID_EVENT;
}

impl Event {
    fn new(
        context: Arc<Context>,
        queue: Option<QueueLink>,
        command_type: cl_uint,
        status: cl_int,
    ) -> Arc<Event> {
        let queued = queued_time(queue.as_ref());
        Arc::new(Event {
            header: ApiHeader::new(Tag::Event),
            context,
            queue,
            command_type,
            state: Mutex::new(EventState {
                status,
                timeline_value: None,
                callbacks: Vec::new(),
                listeners: Vec::new(),
                times: [queued, 0, 0, 0],
                span_from: None,
            }),
            changed: Condvar::new(),
        })
    }

    /// The event of a command enqueued on `queue`: `spare`, a completed
    /// one of the queue's, where there is one.
    pub(crate) fn new_command(
        queue: &Arc<Queue>,
        spare: Option<Arc<Event>>,
        command_type: cl_uint,
    ) -> Arc<Event> {
        if let Some(mut event) = spare {
            if let Some(e) = Arc::get_mut(&mut event) {
                e.command_type = command_type;
                if let Some(link) = &mut e.queue {
                    link.profiling = queue.profiling();
                }
                let queued = queued_time(e.queue.as_ref());
                let state = e.state.get_mut();
                state.status = CL_QUEUED as cl_int;
                state.times = [queued, 0, 0, 0];
                return event;
            }
        }
        Event::new(
            queue.context.clone(),
            Some(QueueLink::to(queue)),
            command_type,
            CL_QUEUED as cl_int,
        )
    }

    /// A completed event of `queue` that no command has used, made ahead
    /// for [`Event::new_command`] to reuse.
    pub(crate) fn new_spare(queue: &Arc<Queue>) -> Arc<Event> {
        Event::new(
            queue.context.clone(),
            Some(QueueLink::to(queue)),
            0,
            CL_COMPLETE as cl_int,
        )
    }

    /// Makes a completed command event that nothing else refers to ready
    /// for [`Event::new_command`] on the same queue; gives it back when
    /// something still does (an application handle, a wait list, a weak
    /// link of the queue).
    pub(crate) fn into_spare(mut self: Arc<Self>) -> Result<Arc<Event>, Arc<Event>> {
        let Some(e) = Arc::get_mut(&mut self) else {
            return Err(self);
        };
        let state = e.state.get_mut();
        if e.queue.is_none() || state.status > CL_COMPLETE as cl_int {
            return Err(self);
        }
        state.timeline_value = None;
        // Emptied, keeping their capacity: every callback has run, as the
        // command completed.
        state.callbacks.clear();
        state.listeners.clear();
        Ok(self)
    }

    /// `clCreateUserEvent`: starts as `CL_SUBMITTED`.
    pub fn new_user(context: Arc<Context>) -> Arc<Event> {
        Event::new(context, None, CL_COMMAND_USER, CL_SUBMITTED as cl_int)
    }

    /// An event of no queue that the runtime completes itself, never seen
    /// by the application: a command that waits for it is held until then
    /// ([`Queue::runs_unheld`] counts on it to complete).
    pub(crate) fn new_gate(context: Arc<Context>) -> Arc<Event> {
        Event::new(context, None, GATE, CL_SUBMITTED as cl_int)
    }

    /// Made by [`Event::new_gate`].
    pub(crate) fn is_gate(&self) -> bool {
        self.queue.is_none() && self.command_type == GATE
    }

    pub fn is_user(&self) -> bool {
        self.queue.is_none()
    }

    /// The command's queue, while it exists.
    pub fn queue(&self) -> Option<Arc<Queue>> {
        self.queue.as_ref().and_then(|l| l.queue.upgrade())
    }

    /// `CL_EVENT_COMMAND_QUEUE`: the queue's handle (NULL for a user event).
    pub fn queue_handle(&self) -> *mut c_void {
        self.queue
            .as_ref()
            .map_or(std::ptr::null_mut(), |l| l.queue.as_ptr() as *mut c_void)
    }

    /// True for a command of `queue`.
    pub fn is_on(&self, queue: &Queue) -> bool {
        self.queue
            .as_ref()
            .is_some_and(|l| std::ptr::eq(l.queue.as_ptr(), queue))
    }

    /// The timeline that the command's batch signals.
    pub(crate) fn timeline(&self) -> Option<&Arc<Timeline>> {
        self.queue.as_ref().map(|l| &l.timeline)
    }

    /// The command's queue has `CL_QUEUE_PROFILING_ENABLE`.
    pub fn profiled(&self) -> bool {
        self.queue.as_ref().is_some_and(|l| l.profiling)
    }

    pub fn status(&self) -> cl_int {
        self.state.lock().status
    }

    /// Complete or failed.
    pub fn is_done(&self) -> bool {
        self.status() <= CL_COMPLETE as cl_int
    }

    pub fn timeline_value(&self) -> Option<u64> {
        self.state.lock().timeline_value
    }

    /// The queue put the command's batch on the GPU, having begun to at
    /// `submit_ns`; the callbacks for `CL_SUBMITTED` run later from the
    /// completion thread, outside the queue's lock.
    pub(crate) fn mark_submitted(&self, value: u64, submit_ns: u64) {
        let mut state = self.state.lock();
        state.timeline_value = Some(value);
        state.times[1] = submit_ns.max(state.times[0]);
        if state.status > CL_SUBMITTED as cl_int {
            state.status = CL_SUBMITTED as cl_int;
        }
    }

    /// The command may be running from now (its batch is the oldest one the
    /// completion thread waits for). Without `callbacks`, those registered
    /// for `CL_RUNNING` run when the command completes.
    pub(crate) fn mark_running(self: &Arc<Self>, start_ns: u64, callbacks: bool) {
        {
            let mut state = self.state.lock();
            if state.status <= CL_RUNNING as cl_int {
                return;
            }
            state.status = CL_RUNNING as cl_int;
            state.times[2] = start_ns.max(state.times[1]);
        }
        self.changed.notify_all();
        if callbacks {
            self.run_callbacks();
        }
    }

    /// Sets the final status (`CL_COMPLETE` or a negative error); a second
    /// call does nothing. Runs callbacks and listeners outside the lock.
    pub fn complete(self: &Arc<Self>, status: cl_int) -> bool {
        self.complete_timed(status, None)
    }

    /// [`Event::complete`] with the command's start and end (host clock,
    /// ns) when the device measured them.
    pub(crate) fn complete_timed(
        self: &Arc<Self>,
        status: cl_int,
        measured: Option<(u64, u64)>,
    ) -> bool {
        if !self.set_final_status(status, measured) {
            return false;
        }
        self.notify_done();
        true
    }

    /// Sets the final status like [`Event::complete_timed`] and wakes its
    /// waiters, but leaves callbacks and listeners to
    /// [`Event::notify_done`]; true when some are left to run. An
    /// application thread that completes commands while it waits for them
    /// uses this, so that no callback runs inside its blocking call.
    pub(crate) fn complete_quietly(&self, status: cl_int, measured: Option<(u64, u64)>) -> bool {
        if !self.set_final_status(status, measured) {
            return false;
        }
        let state = self.state.lock();
        !state.callbacks.is_empty() || !state.listeners.is_empty()
    }

    /// Runs, outside the lock, the callbacks whose status has been reached
    /// and, once the event is complete or failed, its listeners.
    pub(crate) fn notify_done(self: &Arc<Self>) {
        let listeners = {
            let mut state = self.state.lock();
            if state.status > CL_COMPLETE as cl_int {
                return;
            }
            std::mem::take(&mut state.listeners)
        };
        self.run_callbacks();
        for listener in listeners {
            listener();
        }
    }

    /// The final status and end times; wakes the waiters. False when the
    /// event was already complete or failed.
    fn set_final_status(&self, status: cl_int, measured: Option<(u64, u64)>) -> bool {
        let profiled = self.profiled();
        let first = {
            let mut state = self.state.lock();
            if state.status <= CL_COMPLETE as cl_int {
                return false;
            }
            state.status = status.min(CL_COMPLETE as cl_int);
            if profiled {
                set_end_times(&mut state.times, measured);
            }
            let first = state.span_from.take();
            if let Some(first) = &first {
                // `first` completed before this command (an earlier one of
                // the same in-order queue), so its times are final; nothing
                // locks the two the other way round.
                let from = first.state.lock().times;
                spread_start(&mut state.times, from);
            }
            first
        };
        // Dropped outside the lock: it may be the last reference.
        drop(first);
        self.changed.notify_all();
        true
    }

    /// Calls, outside the lock, every callback whose status has been
    /// reached, removing it so that it runs once.
    fn run_callbacks(self: &Arc<Self>) {
        let (due, status) = {
            let mut state = self.state.lock();
            let status = state.status;
            let mut due = Vec::new();
            let mut i = 0;
            while i < state.callbacks.len() {
                if status <= state.callbacks[i].on {
                    due.push(state.callbacks.swap_remove(i));
                } else {
                    i += 1;
                }
            }
            (due, status)
        };
        let handle = handle_of(&**self);
        for cb in due {
            // A callback learns the status it registered for, or the error.
            let reported = if status < 0 { status } else { cb.on };
            // SAFETY: the application registered this function for this
            // event; the event stays alive (we hold an Arc) during the call.
            unsafe { (cb.callback)(handle, reported, cb.user_data as *mut c_void) };
        }
    }

    /// `clSetEventCallback`; runs at once (on this thread) when the status
    /// is already reached.
    pub fn add_callback(
        self: &Arc<Self>,
        on: cl_int,
        callback: EventCallback,
        user_data: *mut c_void,
    ) {
        self.state.lock().callbacks.push(Registered {
            on,
            callback,
            user_data: user_data as usize,
        });
        self.run_callbacks();
    }

    /// Runs `listener` once the event is complete or failed (at once if it
    /// already is).
    pub(crate) fn on_done(&self, listener: Listener) {
        let mut state = self.state.lock();
        if state.status <= CL_COMPLETE as cl_int {
            drop(state);
            listener();
        } else {
            state.listeners.push(listener);
        }
    }

    /// Blocks until the event is complete or failed and returns its status.
    /// Submits the batch holding the command first; once submitted, this
    /// thread waits on the queue's timeline and completes the command
    /// itself (see [`Queue::wait_for`]).
    pub fn wait(&self) -> cl_int {
        if self.is_done() {
            return self.status();
        }
        if let Some(queue) = self.queue() {
            if self.timeline_value().is_none() {
                queue.flush_for_wait(self);
            }
            if let Some(value) = self.timeline_value() {
                queue.wait_for(self, value);
            }
        }
        self.wait_passively()
    }

    /// Blocks until the event is complete or failed, leaving its batch to
    /// the thread that retires it, and returns its status. For a command
    /// that is submitted, or will be without this thread, when this thread
    /// would otherwise spin on the timeline beside a copy that wants every
    /// core (see [`Queue::finish`]).
    pub(crate) fn wait_passively(&self) -> cl_int {
        let mut state = self.state.lock();
        while state.status > CL_COMPLETE as cl_int {
            self.changed.wait(&mut state);
        }
        state.status
    }

    /// Waits until the status changes or `timeout` passes.
    pub(crate) fn wait_changed(&self, timeout: std::time::Duration) {
        let mut state = self.state.lock();
        if state.status > CL_COMPLETE as cl_int {
            self.changed.wait_for(&mut state, timeout);
        }
    }

    /// Makes this completed event's queued, submit and start times those
    /// of `first`, an earlier command of the same operation, so that its
    /// profiling times span the whole operation (a read run as several
    /// commands).
    pub(crate) fn take_start_from(&self, first: &Event) {
        if std::ptr::eq(self, first) {
            return;
        }
        let from = first.state.lock().times;
        spread_start(&mut self.state.lock().times, from);
    }

    /// [`Event::take_start_from`] for a command that may not have
    /// completed yet: done as it completes. Only for a profiled command
    /// whose `first` completes before it.
    pub(crate) fn span_from(&self, first: &Arc<Event>) {
        if !self.profiled() || std::ptr::eq(self, &**first) {
            return;
        }
        let mut state = self.state.lock();
        if state.status > CL_COMPLETE as cl_int {
            state.span_from = Some(first.clone());
            return;
        }
        drop(state);
        self.take_start_from(first);
    }

    /// `CL_PROFILING_COMMAND_*` times: queued, submit, start, end.
    pub fn profiling_times(&self) -> [u64; 4] {
        self.state.lock().times
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_clock_is_monotonic_and_non_zero() {
        let a = host_time_ns();
        let b = host_time_ns();
        assert!(a > 0 && b >= a);
    }
}
