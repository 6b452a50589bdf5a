//! Command-buffers (cl_khr_command_buffer): commands checked once when they
//! are recorded, then run on every `clEnqueueCommandBufferKHR`.
//!
//! A command-buffer holds [`Command`]s, the data the ICD's checks produce,
//! and for each the synchronization points it waits for. An enqueue hands
//! every command to the queue's normal enqueue path, in recording order,
//! each after the events of the commands it waits for, and ends with a
//! marker of type `CL_COMMAND_COMMAND_BUFFER_KHR` that waits for them all:
//! its event is the one the application gets. On an in-order queue the
//! commands run one after the other (an order the sync points allow); on an
//! out-of-order queue only the sync points and barriers order them. Each
//! enqueue makes its own events, so enqueues of one command-buffer may
//! overlap (simultaneous use).

use crate::api::{ApiHeader, ApiObject, Tag};
use crate::cl::*;
use crate::command::Command;
use crate::context::Context;
use crate::event::Event;
use crate::queue::{no_work, Access, Queue};
use parking_lot::Mutex;
use std::sync::{Arc, OnceLock};

/// A recorded command and the indices of the commands it waits for.
struct Recorded {
    command: Command,
    waits: Vec<usize>,
}

/// What recording builds up until the command-buffer is finalized.
#[derive(Default)]
struct Recording {
    commands: Vec<Recorded>,
    /// The latest barrier: every command recorded after it waits for it.
    last_barrier: Option<usize>,
    /// The first command recorded after the latest barrier.
    since_barrier: usize,
}

/// A `cl_command_buffer_khr`.
#[repr(C)]
pub struct CommandBuffer {
    header: ApiHeader,
    pub context: Arc<Context>,
    /// The queue given at creation, where the commands run by default.
    pub queue: Arc<Queue>,
    /// `CL_COMMAND_BUFFER_PROPERTIES_ARRAY_KHR`: the list as given, with its
    /// terminating 0 (empty when NULL was given).
    pub properties: Vec<cl_properties>,
    recording: Mutex<Option<Recording>>,
    /// The commands, once finalized.
    executable: OnceLock<Vec<Recorded>>,
}

// SAFETY: repr(C) with the header first; the tag is unique to CommandBuffer.
unsafe impl ApiObject for CommandBuffer {
    const TAG: Tag = Tag::CommandBuffer;
    const INVALID: cl_int = CL_INVALID_COMMAND_BUFFER_KHR;
}

impl CommandBuffer {
    pub fn new(queue: Arc<Queue>, properties: Vec<cl_properties>) -> Arc<CommandBuffer> {
        Arc::new(CommandBuffer {
            header: ApiHeader::new(Tag::CommandBuffer),
            context: queue.context.clone(),
            queue,
            properties,
            recording: Mutex::new(Some(Recording::default())),
            executable: OnceLock::new(),
        })
    }

    /// `CL_COMMAND_BUFFER_STATE_KHR`.
    pub fn state(&self) -> cl_uint {
        if self.executable.get().is_some() {
            CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR
        } else {
            CL_COMMAND_BUFFER_STATE_RECORDING_KHR
        }
    }

    /// Checks a sync-point wait list against the commands recorded so far:
    /// the indices of the commands it names. `CL_INVALID_OPERATION` once
    /// finalized.
    pub fn check_sync_points(&self, points: &[cl_uint]) -> Result<Vec<usize>, cl_int> {
        let recording = self.recording.lock();
        let recording = recording.as_ref().ok_or(CL_INVALID_OPERATION)?;
        points
            .iter()
            .map(|&p| {
                let index = (p as usize).wrapping_sub(1);
                if index < recording.commands.len() {
                    Ok(index)
                } else {
                    Err(CL_INVALID_SYNC_POINT_WAIT_LIST_KHR)
                }
            })
            .collect()
    }

    /// Records `command` after the commands of `waits` (from
    /// [`CommandBuffer::check_sync_points`]); returns its sync point.
    pub fn record(&self, command: Command, mut waits: Vec<usize>) -> Result<cl_uint, cl_int> {
        let mut recording = self.recording.lock();
        let recording = recording.as_mut().ok_or(CL_INVALID_OPERATION)?;
        let index = recording.commands.len();
        let point = cl_uint::try_from(index + 1).map_err(|_| CL_OUT_OF_RESOURCES)?;
        if let Some(barrier) = recording.last_barrier {
            waits.push(barrier);
        }
        recording.commands.push(Recorded { command, waits });
        Ok(point)
    }

    /// `clCommandBarrierWithWaitListKHR`: a command that waits for `waits`,
    /// or for every command recorded before it when `waits` is empty, and
    /// that every later command waits for.
    pub fn record_barrier(&self, mut waits: Vec<usize>) -> Result<cl_uint, cl_int> {
        let mut recording = self.recording.lock();
        let recording = recording.as_mut().ok_or(CL_INVALID_OPERATION)?;
        let index = recording.commands.len();
        let point = cl_uint::try_from(index + 1).map_err(|_| CL_OUT_OF_RESOURCES)?;
        if waits.is_empty() {
            // The commands before the last barrier are already behind it.
            waits.extend(recording.since_barrier..index);
        }
        if let Some(barrier) = recording.last_barrier {
            waits.push(barrier);
        }
        let command = Command::Nothing {
            command_type: CL_COMMAND_BARRIER,
        };
        recording.commands.push(Recorded { command, waits });
        recording.last_barrier = Some(index);
        recording.since_barrier = index + 1;
        Ok(point)
    }

    /// `clFinalizeCommandBufferKHR`.
    pub fn finalize(&self) -> Result<(), cl_int> {
        let recording = self.recording.lock().take().ok_or(CL_INVALID_OPERATION)?;
        let _ = self.executable.set(recording.commands);
        Ok(())
    }

    /// `clEnqueueCommandBufferKHR` on `queue` (the creation queue or a
    /// substitute the ICD checked) after `wait_list`.
    pub fn enqueue(
        &self,
        queue: &Arc<Queue>,
        wait_list: &[Arc<Event>],
    ) -> Result<Arc<Event>, cl_int> {
        let commands = self.executable.get().ok_or(CL_INVALID_OPERATION)?;
        let mut events: Vec<Arc<Event>> = Vec::with_capacity(commands.len());
        let mut deps: Vec<Arc<Event>> = Vec::new();
        for recorded in commands {
            deps.clear();
            if recorded.waits.is_empty() {
                // A command that waits for no other command waits for the
                // wait list; the others wait for it through theirs.
                deps.extend_from_slice(wait_list);
            }
            deps.extend(recorded.waits.iter().map(|&i| events[i].clone()));
            events.push(recorded.command.enqueue(queue, &deps)?);
        }
        // In order, the marker follows every command anyway.
        deps.clear();
        deps.extend_from_slice(wait_list);
        if queue.out_of_order() {
            deps.extend(events);
        }
        queue.enqueue_with_access(
            CL_COMMAND_COMMAND_BUFFER_KHR,
            &deps,
            Access::Nothing,
            no_work,
        )
    }
}
