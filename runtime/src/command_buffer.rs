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
//!
//! A kernel command recorded with a mutable handle, or without all its
//! arguments, is a [`MutableDispatch`] (cl_khr_command_buffer_mutable_dispatch):
//! its kernel copy and NDRange sit behind a lock, an update replaces them
//! between enqueues, and each enqueue takes them as they are then.

use crate::api::{ApiHeader, ApiObject, Tag};
use crate::cl::*;
use crate::command::Command;
use crate::context::Context;
use crate::event::Event;
use crate::kernel::{Kernel, NdRange};
use crate::queue::{no_work, Access, Queue};
use parking_lot::Mutex;
use std::sync::{Arc, OnceLock};

/// A recorded command.
pub enum Step {
    /// Fixed when recorded.
    Fixed(Command),
    /// A kernel command that updates may change.
    Dispatch(Arc<MutableDispatch>),
}

impl From<Command> for Step {
    fn from(command: Command) -> Step {
        Step::Fixed(command)
    }
}

/// A recorded command and the indices of the commands it waits for.
struct Recorded {
    step: Step,
    waits: Vec<usize>,
}

/// What a mutable kernel command runs: its own copy of the kernel and the
/// NDRange.
#[derive(Clone)]
pub struct DispatchConfig {
    pub kernel: Arc<Kernel>,
    pub range: NdRange,
    /// Whether the application gave the local size (else it was chosen).
    pub local_given: bool,
}

/// A `cl_mutable_command_khr` of a kernel command. The handle belongs to
/// its command-buffer and lives as long as it does (no reference count).
#[repr(C)]
pub struct MutableDispatch {
    header: ApiHeader,
    /// The address of the command-buffer it belongs to.
    command_buffer: usize,
    pub queue: Arc<Queue>,
    /// The kernel given when the command was recorded
    /// (`CL_MUTABLE_DISPATCH_KERNEL_KHR`).
    pub recorded_kernel: Arc<Kernel>,
    /// `CL_MUTABLE_COMMAND_PROPERTIES_ARRAY_KHR`: as given, empty for NULL.
    pub properties: Vec<cl_properties>,
    /// `CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR`.
    pub updatable: cl_bitfield,
    config: Mutex<DispatchConfig>,
}

// SAFETY: repr(C) with the header first; the tag is unique to the type.
unsafe impl ApiObject for MutableDispatch {
    const TAG: Tag = Tag::MutableCommand;
    const INVALID: cl_int = CL_INVALID_MUTABLE_COMMAND_KHR;
}

impl MutableDispatch {
    /// The configuration now (what the next enqueue runs).
    pub fn config(&self) -> DispatchConfig {
        self.config.lock().clone()
    }

    /// Whether the command belongs to `command_buffer`.
    pub fn belongs_to(&self, command_buffer: &CommandBuffer) -> bool {
        self.command_buffer == command_buffer as *const CommandBuffer as usize
    }

    /// The command-buffer's handle (`CL_MUTABLE_COMMAND_COMMAND_BUFFER_KHR`).
    pub fn command_buffer_handle(&self) -> *mut std::ffi::c_void {
        self.command_buffer as *mut std::ffi::c_void
    }

    fn ready(&self) -> bool {
        self.config.lock().kernel.all_args_set()
    }
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
    /// `CL_COMMAND_BUFFER_FLAGS_KHR`.
    pub flags: cl_bitfield,
    /// `CL_COMMAND_BUFFER_MUTABLE_DISPATCH_ASSERTS_KHR`.
    pub asserts: cl_bitfield,
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
    pub fn new(
        queue: Arc<Queue>,
        properties: Vec<cl_properties>,
        flags: cl_bitfield,
        asserts: cl_bitfield,
    ) -> Arc<CommandBuffer> {
        Arc::new(CommandBuffer {
            header: ApiHeader::new(Tag::CommandBuffer),
            context: queue.context.clone(),
            queue,
            properties,
            flags,
            asserts,
            recording: Mutex::new(Some(Recording::default())),
            executable: OnceLock::new(),
        })
    }

    /// `CL_COMMAND_BUFFER_STATE_KHR`: finalized but not executable while
    /// a kernel command still lacks an argument.
    pub fn state(&self) -> cl_uint {
        let Some(commands) = self.executable.get() else {
            return CL_COMMAND_BUFFER_STATE_RECORDING_KHR;
        };
        let ready = commands.iter().all(|r| match &r.step {
            Step::Fixed(_) => true,
            Step::Dispatch(d) => d.ready(),
        });
        if ready {
            CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR
        } else {
            CL_COMMAND_BUFFER_STATE_FINALIZED_KHR
        }
    }

    /// A mutable kernel command of this command-buffer, to be recorded
    /// with [`CommandBuffer::record`].
    pub fn new_dispatch(
        &self,
        recorded_kernel: Arc<Kernel>,
        properties: Vec<cl_properties>,
        updatable: cl_bitfield,
        config: DispatchConfig,
    ) -> Arc<MutableDispatch> {
        Arc::new(MutableDispatch {
            header: ApiHeader::new(Tag::MutableCommand),
            command_buffer: self as *const CommandBuffer as usize,
            queue: self.queue.clone(),
            recorded_kernel,
            properties,
            updatable,
            config: Mutex::new(config),
        })
    }

    /// Applies checked configurations together (clUpdateMutableCommandsKHR
    /// keeps all of its updates or none).
    pub fn update(&self, updates: Vec<(Arc<MutableDispatch>, DispatchConfig)>) {
        for (dispatch, config) in updates {
            *dispatch.config.lock() = config;
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
    pub fn record(&self, step: Step, mut waits: Vec<usize>) -> Result<cl_uint, cl_int> {
        let mut recording = self.recording.lock();
        let recording = recording.as_mut().ok_or(CL_INVALID_OPERATION)?;
        let index = recording.commands.len();
        let point = cl_uint::try_from(index + 1).map_err(|_| CL_OUT_OF_RESOURCES)?;
        if let Some(barrier) = recording.last_barrier {
            waits.push(barrier);
        }
        recording.commands.push(Recorded { step, waits });
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
        let step = Step::Fixed(Command::Nothing {
            command_type: CL_COMMAND_BARRIER,
        });
        recording.commands.push(Recorded { step, waits });
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
        if self.state() != CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR {
            return Err(CL_INVALID_OPERATION);
        }
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
            let event = match &recorded.step {
                Step::Fixed(command) => command.enqueue(queue, &deps)?,
                Step::Dispatch(dispatch) => {
                    let DispatchConfig { kernel, range, .. } = dispatch.config();
                    Command::nd_range(kernel, range).enqueue(queue, &deps)?
                }
            };
            events.push(event);
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
