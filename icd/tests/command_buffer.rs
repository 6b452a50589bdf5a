//! cl_khr_command_buffer: commands recorded once and replayed, against
//! what the same commands enqueued one by one compute on the host's
//! reckoning, and the extension's errors and queries.

mod common;

use common::*;
use ferrocl_runtime::cl::*;
use std::ffi::{c_char, c_void};
use std::ptr::{null, null_mut};

type SyncPoint = cl_uint;

/// The extension's entry points, from
/// `clGetExtensionFunctionAddressForPlatform`.
struct CommandBufferApi {
    create:
        unsafe extern "C" fn(cl_uint, *const Handle, *const cl_properties, *mut cl_int) -> Handle,
    finalize: unsafe extern "C" fn(Handle) -> cl_int,
    retain: unsafe extern "C" fn(Handle) -> cl_int,
    release: unsafe extern "C" fn(Handle) -> cl_int,
    enqueue: unsafe extern "C" fn(
        cl_uint,
        *const Handle,
        Handle,
        cl_uint,
        *const Handle,
        *mut Handle,
    ) -> cl_int,
    info: unsafe extern "C" fn(Handle, cl_uint, usize, *mut c_void, *mut usize) -> cl_int,
    barrier: unsafe extern "C" fn(
        Handle,
        Handle,
        *const cl_properties,
        cl_uint,
        *const SyncPoint,
        *mut SyncPoint,
        *mut Handle,
    ) -> cl_int,
    copy: unsafe extern "C" fn(
        Handle,
        Handle,
        *const cl_properties,
        Handle,
        Handle,
        usize,
        usize,
        usize,
        cl_uint,
        *const SyncPoint,
        *mut SyncPoint,
        *mut Handle,
    ) -> cl_int,
    fill: unsafe extern "C" fn(
        Handle,
        Handle,
        *const cl_properties,
        Handle,
        *const c_void,
        usize,
        usize,
        usize,
        cl_uint,
        *const SyncPoint,
        *mut SyncPoint,
        *mut Handle,
    ) -> cl_int,
    nd_range: unsafe extern "C" fn(
        Handle,
        Handle,
        *const cl_properties,
        Handle,
        cl_uint,
        *const usize,
        *const usize,
        *const usize,
        cl_uint,
        *const SyncPoint,
        *mut SyncPoint,
        *mut Handle,
    ) -> cl_int,
    update: unsafe extern "C" fn(Handle, cl_uint, *const cl_uint, *const *const c_void) -> cl_int,
    mutable_info: unsafe extern "C" fn(Handle, cl_uint, usize, *mut c_void, *mut usize) -> cl_int,
}

/// An extension entry point's address as its function type.
///
/// # Safety
/// `F` is the C signature of the function at `address`.
unsafe fn entry<F: Copy>(address: *mut c_void) -> F {
    assert_eq!(std::mem::size_of::<F>(), std::mem::size_of::<*mut c_void>());
    // SAFETY: per the contract; the sizes are equal.
    unsafe { std::mem::transmute_copy(&address) }
}

impl CommandBufferApi {
    fn get(gpu: &Gpu) -> CommandBufferApi {
        let find = |name: &std::ffi::CStr| -> *mut c_void {
            // SAFETY: a valid platform and a NUL-terminated name.
            let f = unsafe {
                (gpu.api.clGetExtensionFunctionAddressForPlatform)(
                    gpu.platform,
                    name.as_ptr() as *const c_char,
                )
            };
            assert!(!f.is_null(), "{name:?} not found");
            f
        };
        // SAFETY: each pointer is the entry point of that name, whose C
        // signature the field's type spells.
        unsafe {
            CommandBufferApi {
                create: entry(find(c"clCreateCommandBufferKHR")),
                finalize: entry(find(c"clFinalizeCommandBufferKHR")),
                retain: entry(find(c"clRetainCommandBufferKHR")),
                release: entry(find(c"clReleaseCommandBufferKHR")),
                enqueue: entry(find(c"clEnqueueCommandBufferKHR")),
                info: entry(find(c"clGetCommandBufferInfoKHR")),
                barrier: entry(find(c"clCommandBarrierWithWaitListKHR")),
                copy: entry(find(c"clCommandCopyBufferKHR")),
                fill: entry(find(c"clCommandFillBufferKHR")),
                nd_range: entry(find(c"clCommandNDRangeKernelKHR")),
                update: entry(find(c"clUpdateMutableCommandsKHR")),
                mutable_info: entry(find(c"clGetMutableCommandInfoKHR")),
            }
        }
    }

    /// A command-buffer on `queue` with no properties.
    #[track_caller]
    fn new_buffer(&self, queue: Handle) -> Handle {
        let mut err = 0;
        // SAFETY: one valid queue.
        let cb = unsafe { (self.create)(1, &queue, null(), &mut err) };
        check(err, "clCreateCommandBufferKHR");
        cb
    }

    /// Records a 1D NDRange of `n` work-items after `waits`; its sync point.
    #[track_caller]
    fn kernel(&self, cb: Handle, kernel: Handle, n: usize, waits: &[SyncPoint]) -> SyncPoint {
        let mut point = 0;
        // SAFETY: valid handles; `n` and the wait list live for the call.
        let status = unsafe {
            (self.nd_range)(
                cb,
                null_mut(),
                null(),
                kernel,
                1,
                null(),
                &n,
                null(),
                waits.len() as cl_uint,
                if waits.is_empty() {
                    null()
                } else {
                    waits.as_ptr()
                },
                &mut point,
                null_mut(),
            )
        };
        check(status, "clCommandNDRangeKernelKHR");
        point
    }

    #[track_caller]
    fn info_u32(&self, cb: Handle, param: cl_uint) -> u32 {
        let mut value = 0u32;
        // SAFETY: a 4-byte query into a 4-byte local.
        let status = unsafe {
            (self.info)(
                cb,
                param,
                4,
                &mut value as *mut u32 as *mut c_void,
                null_mut(),
            )
        };
        check(status, "clGetCommandBufferInfoKHR");
        value
    }

    /// Enqueues `cb` on its own queue after `waits`; the event.
    #[track_caller]
    fn run(&self, cb: Handle, waits: &[Handle]) -> Handle {
        let mut event = null_mut();
        // SAFETY: a valid command-buffer and wait list.
        let status = unsafe {
            (self.enqueue)(
                0,
                null(),
                cb,
                waits.len() as cl_uint,
                if waits.is_empty() {
                    null()
                } else {
                    waits.as_ptr()
                },
                &mut event,
            )
        };
        check(status, "clEnqueueCommandBufferKHR");
        event
    }
}

fn extension_reported(gpu: &Gpu) -> bool {
    gpu.device_string(CL_DEVICE_EXTENSIONS)
        .split_whitespace()
        .any(|e| e == "cl_khr_command_buffer")
}

const SOURCE: &str = r#"
    __kernel void scale_add(__global const int *in, __global int *out, int k) {
        size_t i = get_global_id(0);
        out[i] = in[i] * 2 + k;
    }
    __kernel void bump(__global int *counter) {
        // One work-item: a read-modify-write that only an order makes exact.
        counter[0] = counter[0] * 3 + 1;
    }
"#;

#[test]
fn replays_fill_kernel_copy_chains_with_arguments_taken_at_recording() {
    const N: usize = 4096;
    let gpu = Gpu::new();
    assert!(extension_reported(&gpu));
    let cbapi = CommandBufferApi::get(&gpu);
    let program = gpu.program(SOURCE, "");
    let k = program.kernel("scale_add");
    let (a, b, c) = (
        gpu.zeroed::<i32>(N),
        gpu.zeroed::<i32>(N),
        gpu.zeroed::<i32>(N),
    );
    let cb = cbapi.new_buffer(gpu.queue);
    // fill a with 7 -> b = a * 2 + 5 -> c = b.
    let pattern = 7i32;
    let mut filled = 0;
    // SAFETY: valid handles; the pattern lives for the call.
    let status = unsafe {
        (cbapi.fill)(
            cb,
            null_mut(),
            null(),
            a.handle,
            &pattern as *const i32 as *const c_void,
            4,
            0,
            N * 4,
            0,
            null(),
            &mut filled,
            null_mut(),
        )
    };
    check(status, "clCommandFillBufferKHR");
    k.arg_buffer(0, &a).arg_buffer(1, &b).arg(2, 5i32);
    let launched = cbapi.kernel(cb, k.handle, N, &[filled]);
    // Arguments set after recording do not reach the recorded command.
    k.arg(2, 1000i32).arg_buffer(1, &c);
    let mut copied = 0;
    // SAFETY: valid handles and sync point.
    let status = unsafe {
        (cbapi.copy)(
            cb,
            null_mut(),
            null(),
            b.handle,
            c.handle,
            0,
            0,
            N * 4,
            1,
            &launched,
            &mut copied,
            null_mut(),
        )
    };
    check(status, "clCommandCopyBufferKHR");
    assert_eq!((filled, launched, copied), (1, 2, 3), "sync points");
    assert_eq!(
        cbapi.info_u32(cb, CL_COMMAND_BUFFER_STATE_KHR),
        CL_COMMAND_BUFFER_STATE_RECORDING_KHR
    );
    // SAFETY: a valid command-buffer.
    check(
        unsafe { (cbapi.finalize)(cb) },
        "clFinalizeCommandBufferKHR",
    );
    assert_eq!(
        cbapi.info_u32(cb, CL_COMMAND_BUFFER_STATE_KHR),
        CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR
    );
    for round in 0..3 {
        // What the previous round left is overwritten by every replay.
        gpu.write(&c, &vec![-1i32; N]);
        let event = cbapi.run(cb, &[]);
        gpu.finish();
        assert_eq!(gpu.read::<i32>(&c), vec![19i32; N], "round {round}");
        let mut command_type = 0u32;
        // SAFETY: a 4-byte query into a 4-byte local; the event is ours.
        unsafe {
            check(
                (gpu.api.clGetEventInfo)(
                    event,
                    CL_EVENT_COMMAND_TYPE,
                    4,
                    &mut command_type as *mut u32 as *mut c_void,
                    null_mut(),
                ),
                "clGetEventInfo",
            );
            check((gpu.api.clReleaseEvent)(event), "clReleaseEvent");
        }
        assert_eq!(command_type, CL_COMMAND_COMMAND_BUFFER_KHR);
    }
    // The kernel object launched directly uses its new arguments.
    gpu.run(&k, &[N], None, None);
    assert_eq!(gpu.read::<i32>(&c), vec![1014i32; N]);
    // SAFETY: the application's reference.
    check(unsafe { (cbapi.release)(cb) }, "clReleaseCommandBufferKHR");
}

#[test]
fn replays_wait_for_their_wait_list_and_run_in_sync_point_order_out_of_order() {
    const STEPS: usize = 40;
    let gpu = Gpu::new();
    let cbapi = CommandBufferApi::get(&gpu);
    let supported: u64 = gpu.device_info(CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES_KHR);
    assert_ne!(supported & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0);
    let mut err = 0;
    let props = [
        CL_QUEUE_PROPERTIES as u64,
        CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
        0,
    ];
    // SAFETY: a 0-terminated property list.
    let ooo = unsafe {
        (gpu.api.clCreateCommandQueueWithProperties)(
            gpu.context,
            gpu.device,
            props.as_ptr(),
            &mut err,
        )
    };
    check(err, "clCreateCommandQueueWithProperties");
    let program = gpu.program(SOURCE, "");
    let bump = program.kernel("bump");
    let counter = gpu.zeroed::<i32>(1);
    bump.arg_buffer(0, &counter);
    let cb = cbapi.new_buffer(ooo);
    // A chain through sync points: x -> 3x + 1, STEPS times.
    let mut last = cbapi.kernel(cb, bump.handle, 1, &[]);
    for _ in 1..STEPS {
        last = cbapi.kernel(cb, bump.handle, 1, &[last]);
    }
    // SAFETY: a valid command-buffer.
    check(
        unsafe { (cbapi.finalize)(cb) },
        "clFinalizeCommandBufferKHR",
    );
    let want = (0..STEPS).fold(0i32, |x, _| x.wrapping_mul(3).wrapping_add(1));
    for _ in 0..2 {
        gpu.write(&counter, &[0i32]);
        // SAFETY: a valid context; the user event is released below.
        let gate = unsafe { (gpu.api.clCreateUserEvent)(gpu.context, &mut err) };
        check(err, "clCreateUserEvent");
        let done = cbapi.run(cb, &[gate]);
        std::thread::sleep(std::time::Duration::from_millis(20));
        let mut status: cl_int = 0;
        // SAFETY: 4-byte queries into 4-byte locals; handles are ours.
        unsafe {
            check(
                (gpu.api.clGetEventInfo)(
                    done,
                    CL_EVENT_COMMAND_EXECUTION_STATUS,
                    4,
                    &mut status as *mut cl_int as *mut c_void,
                    null_mut(),
                ),
                "clGetEventInfo",
            );
            assert!(
                status > CL_COMPLETE as cl_int,
                "ran before its wait list: {status}"
            );
            check(
                (gpu.api.clSetUserEventStatus)(gate, CL_COMPLETE as cl_int),
                "clSetUserEventStatus",
            );
            check((gpu.api.clWaitForEvents)(1, &done), "clWaitForEvents");
            check((gpu.api.clReleaseEvent)(done), "clReleaseEvent");
            check((gpu.api.clReleaseEvent)(gate), "clReleaseEvent");
        }
        assert_eq!(gpu.read::<i32>(&counter), vec![want]);
    }
    // A barrier with no wait list orders everything before it: two
    // unordered bumps, a barrier, then one more.
    let cb2 = cbapi.new_buffer(ooo);
    cbapi.kernel(cb2, bump.handle, 1, &[]);
    let mut barrier = 0;
    // SAFETY: a valid command-buffer.
    unsafe {
        check(
            (cbapi.barrier)(cb2, null_mut(), null(), 0, null(), &mut barrier, null_mut()),
            "clCommandBarrierWithWaitListKHR",
        );
    }
    let after = cbapi.kernel(cb2, bump.handle, 1, &[]);
    assert_eq!((barrier, after), (2, 3));
    // SAFETY: valid handles.
    unsafe {
        check((cbapi.finalize)(cb2), "clFinalizeCommandBufferKHR");
        gpu.write(&counter, &[0i32]);
        let e = cbapi.run(cb2, &[]);
        check((gpu.api.clWaitForEvents)(1, &e), "clWaitForEvents");
        check((gpu.api.clReleaseEvent)(e), "clReleaseEvent");
    }
    assert_eq!(gpu.read::<i32>(&counter), vec![4]);
    // SAFETY: the application's references.
    unsafe {
        check((cbapi.release)(cb), "clReleaseCommandBufferKHR");
        check((cbapi.release)(cb2), "clReleaseCommandBufferKHR");
        check(
            (gpu.api.clReleaseCommandQueue)(ooo),
            "clReleaseCommandQueue",
        );
    }
}

#[test]
fn errors_and_queries_follow_the_extension() {
    let gpu = Gpu::new();
    let cbapi = CommandBufferApi::get(&gpu);
    let program = gpu.program(SOURCE, "");
    let bump = program.kernel("bump");
    let counter = gpu.zeroed::<i32>(4);
    bump.arg_buffer(0, &counter);
    let mut err = 0;
    // SAFETY: every call passes valid memory or the NULL its case names.
    unsafe {
        // Creation: one queue, known properties only, no flags.
        assert_eq!((cbapi.create)(0, &gpu.queue, null(), &mut err), null_mut());
        assert_eq!(err, CL_INVALID_VALUE);
        assert_eq!((cbapi.create)(1, null(), null(), &mut err), null_mut());
        assert_eq!(err, CL_INVALID_VALUE);
        let bogus = [0u64; 4];
        let bad_queue = bogus.as_ptr() as Handle;
        assert_eq!((cbapi.create)(1, &bad_queue, null(), &mut err), null_mut());
        assert_eq!(err, CL_INVALID_COMMAND_QUEUE);
        for props in [
            [CL_COMMAND_BUFFER_FLAGS_KHR as u64, 1 << 5, 0, 0, 0],
            [
                CL_COMMAND_BUFFER_FLAGS_KHR as u64,
                0,
                CL_COMMAND_BUFFER_FLAGS_KHR as u64,
                0,
                0,
            ],
            [0x4242, 0, 0, 0, 0],
        ] {
            assert_eq!(
                (cbapi.create)(1, &gpu.queue, props.as_ptr(), &mut err),
                null_mut()
            );
            assert_eq!(err, CL_INVALID_VALUE, "{props:?}");
        }
        let props = [CL_COMMAND_BUFFER_FLAGS_KHR as u64, 0, 0];
        let cb = (cbapi.create)(1, &gpu.queue, props.as_ptr(), &mut err);
        check(err, "clCreateCommandBufferKHR");
        let mut got = [9u64; 3];
        let mut size = 0;
        check(
            (cbapi.info)(
                cb,
                CL_COMMAND_BUFFER_PROPERTIES_ARRAY_KHR,
                24,
                got.as_mut_ptr() as *mut c_void,
                &mut size,
            ),
            "properties",
        );
        assert_eq!((got, size), (props, 24));
        let mut queue = null_mut();
        check(
            (cbapi.info)(
                cb,
                CL_COMMAND_BUFFER_QUEUES_KHR,
                8,
                &mut queue as *mut Handle as *mut c_void,
                null_mut(),
            ),
            "queues",
        );
        assert_eq!(queue, gpu.queue);
        let mut context = null_mut();
        check(
            (cbapi.info)(
                cb,
                CL_COMMAND_BUFFER_CONTEXT_KHR,
                8,
                &mut context as *mut Handle as *mut c_void,
                null_mut(),
            ),
            "context",
        );
        assert_eq!(context, gpu.context);
        assert_eq!(cbapi.info_u32(cb, CL_COMMAND_BUFFER_NUM_QUEUES_KHR), 1);
        assert_eq!(cbapi.info_u32(cb, CL_COMMAND_BUFFER_REFERENCE_COUNT_KHR), 1);
        check((cbapi.retain)(cb), "clRetainCommandBufferKHR");
        assert_eq!(cbapi.info_u32(cb, CL_COMMAND_BUFFER_REFERENCE_COUNT_KHR), 2);
        check((cbapi.release)(cb), "clReleaseCommandBufferKHR");
        assert_eq!(
            (cbapi.info)(cb, 0x4242, 0, null_mut(), &mut size),
            CL_INVALID_VALUE
        );
        assert_eq!(
            (cbapi.info)(
                bad_queue,
                CL_COMMAND_BUFFER_STATE_KHR,
                0,
                null_mut(),
                &mut size
            ),
            CL_INVALID_COMMAND_BUFFER_KHR
        );

        // Recording: NULL queue and mutable handle, valid sync points.
        let n = 1usize;
        let record =
            |queue: Handle, props: *const u64, waits: &[SyncPoint], handle: *mut Handle| {
                let list = if waits.is_empty() {
                    null()
                } else {
                    waits.as_ptr()
                };
                (cbapi.nd_range)(
                    cb,
                    queue,
                    props,
                    bump.handle,
                    1,
                    null(),
                    &n,
                    null(),
                    waits.len() as cl_uint,
                    list,
                    null_mut(),
                    handle,
                )
            };
        assert_eq!(
            record(gpu.queue, null(), &[], null_mut()),
            CL_INVALID_COMMAND_QUEUE
        );
        // A kernel command hands out a mutable handle; others take none.
        let mut mutable = null_mut();
        assert_eq!(record(null_mut(), null(), &[], &mut mutable), CL_SUCCESS);
        assert!(!mutable.is_null());
        assert_eq!(
            (cbapi.fill)(
                cb,
                null_mut(),
                null(),
                counter.handle,
                &n as *const usize as *const c_void,
                4,
                0,
                4,
                0,
                null(),
                null_mut(),
                &mut mutable
            ),
            CL_INVALID_VALUE
        );
        let unknown = [0x4242u64, 1, 0];
        assert_eq!(
            record(null_mut(), unknown.as_ptr(), &[], null_mut()),
            CL_INVALID_VALUE
        );
        let empty = [0u64];
        assert_eq!(
            record(null_mut(), empty.as_ptr(), &[], null_mut()),
            CL_SUCCESS
        );
        assert_eq!(
            record(null_mut(), null(), &[0], null_mut()),
            CL_INVALID_SYNC_POINT_WAIT_LIST_KHR
        );
        assert_eq!(
            record(null_mut(), null(), &[3], null_mut()),
            CL_INVALID_SYNC_POINT_WAIT_LIST_KHR
        );
        assert_eq!(record(null_mut(), null(), &[1], null_mut()), CL_SUCCESS);
        // A sync-point list and its count must agree; work_dim is checked
        // as clEnqueueNDRangeKernel checks it.
        let point = 1;
        let raw = |work_dim: cl_uint, count: cl_uint, list: *const SyncPoint| {
            (cbapi.nd_range)(
                cb,
                null_mut(),
                null(),
                bump.handle,
                work_dim,
                null(),
                &n,
                null(),
                count,
                list,
                null_mut(),
                null_mut(),
            )
        };
        assert_eq!(raw(1, 1, null()), CL_INVALID_SYNC_POINT_WAIT_LIST_KHR);
        assert_eq!(raw(1, 0, &point), CL_INVALID_SYNC_POINT_WAIT_LIST_KHR);
        // The checks of clEnqueueNDRangeKernel and clEnqueueCopyBuffer.
        assert_eq!(raw(4, 0, null()), CL_INVALID_WORK_DIMENSION);
        assert_eq!(
            (cbapi.copy)(
                cb,
                null_mut(),
                null(),
                counter.handle,
                counter.handle,
                0,
                4,
                8,
                0,
                null(),
                null_mut(),
                null_mut()
            ),
            CL_MEM_COPY_OVERLAP
        );
        assert_eq!(
            (cbapi.copy)(
                cb,
                null_mut(),
                null(),
                counter.handle,
                counter.handle,
                0,
                8,
                12,
                0,
                null(),
                null_mut(),
                null_mut()
            ),
            CL_INVALID_VALUE
        );
        // Enqueue before finalizing; finalizing twice; recording after.
        assert_eq!(
            (cbapi.enqueue)(0, null(), cb, 0, null(), null_mut()),
            CL_INVALID_OPERATION
        );
        check((cbapi.finalize)(cb), "clFinalizeCommandBufferKHR");
        assert_eq!((cbapi.finalize)(cb), CL_INVALID_OPERATION);
        assert_eq!(
            record(null_mut(), null(), &[], null_mut()),
            CL_INVALID_OPERATION
        );
        // Enqueue: queues and counts agree, one queue, same context.
        assert_eq!(
            (cbapi.enqueue)(1, null(), cb, 0, null(), null_mut()),
            CL_INVALID_VALUE
        );
        assert_eq!(
            (cbapi.enqueue)(0, &gpu.queue, cb, 0, null(), null_mut()),
            CL_INVALID_VALUE
        );
        assert_eq!(
            (cbapi.enqueue)(1, &bad_queue, cb, 0, null(), null_mut()),
            CL_INVALID_COMMAND_QUEUE
        );
        assert_eq!(
            (cbapi.enqueue)(0, null(), cb, 1, null(), null_mut()),
            CL_INVALID_EVENT_WAIT_LIST
        );
        assert_eq!(
            (cbapi.enqueue)(0, null(), bad_queue, 0, null(), null_mut()),
            CL_INVALID_COMMAND_BUFFER_KHR
        );
        // A substitute queue of the same device runs it: three bumps each.
        let other =
            (gpu.api.clCreateCommandQueueWithProperties)(gpu.context, gpu.device, null(), &mut err);
        check(err, "clCreateCommandQueueWithProperties");
        check(
            (cbapi.enqueue)(1, &other, cb, 0, null(), null_mut()),
            "clEnqueueCommandBufferKHR",
        );
        check((gpu.api.clFinish)(other), "clFinish");
        check(
            (cbapi.enqueue)(0, null(), cb, 0, null(), null_mut()),
            "clEnqueueCommandBufferKHR",
        );
        gpu.finish();
        // 0 -> 1 -> 4 -> 13 (first enqueue), -> 40 -> 121 -> 364 (second).
        assert_eq!(gpu.read::<i32>(&counter)[0], 364);
        check(
            (gpu.api.clReleaseCommandQueue)(other),
            "clReleaseCommandQueue",
        );
        check((cbapi.release)(cb), "clReleaseCommandBufferKHR");
    }
}

/// `cl_mutable_dispatch_arg_khr`.
#[repr(C)]
struct DispatchArg {
    arg_index: cl_uint,
    arg_size: usize,
    arg_value: *const c_void,
}

/// `cl_mutable_dispatch_config_khr`.
#[repr(C)]
struct DispatchConfig {
    command: Handle,
    num_args: cl_uint,
    num_svm_args: cl_uint,
    num_exec_infos: cl_uint,
    work_dim: cl_uint,
    arg_list: *const DispatchArg,
    arg_svm_list: *const DispatchArg,
    exec_info_list: *const c_void,
    global_work_offset: *const usize,
    global_work_size: *const usize,
    local_work_size: *const usize,
}

impl DispatchConfig {
    fn new(command: Handle) -> DispatchConfig {
        DispatchConfig {
            command,
            num_args: 0,
            num_svm_args: 0,
            num_exec_infos: 0,
            work_dim: 0,
            arg_list: null(),
            arg_svm_list: null(),
            exec_info_list: null(),
            global_work_offset: null(),
            global_work_size: null(),
            local_work_size: null(),
        }
    }

    /// Updates the command with these arguments.
    fn with_args(command: Handle, args: &[DispatchArg]) -> DispatchConfig {
        let mut config = DispatchConfig::new(command);
        config.num_args = args.len() as cl_uint;
        config.arg_list = args.as_ptr();
        config
    }
}

/// A buffer argument of a mutable dispatch.
fn buffer_arg(index: cl_uint, buffer: &Buffer<'_>) -> DispatchArg {
    DispatchArg {
        arg_index: index,
        arg_size: std::mem::size_of::<Handle>(),
        arg_value: &buffer.handle as *const Handle as *const c_void,
    }
}

#[test]
fn mutable_dispatches_take_new_arguments_and_sizes_between_enqueues() {
    const N: usize = 1024;
    const HALF: usize = N / 2;
    let gpu = Gpu::new();
    assert!(gpu
        .device_string(CL_DEVICE_EXTENSIONS)
        .split_whitespace()
        .any(|e| e == "cl_khr_command_buffer_mutable_dispatch"));
    let fields: u64 = gpu.device_info(CL_DEVICE_MUTABLE_DISPATCH_CAPABILITIES_KHR);
    assert_eq!(fields, 0x1f, "every field is updatable");
    let cbapi = CommandBufferApi::get(&gpu);
    let program = gpu.program(SOURCE, "");
    let k = program.kernel("scale_add");
    let input: Vec<i32> = (0..N as i32).collect();
    let a = gpu.buffer(&input);
    let (b, c) = (gpu.zeroed::<i32>(N), gpu.zeroed::<i32>(N));
    let list: *const SyncPoint = null();
    let mut err = 0;
    let flags = [
        CL_COMMAND_BUFFER_FLAGS_KHR as u64,
        CL_COMMAND_BUFFER_MUTABLE_KHR,
        0,
    ];
    // SAFETY: every call passes valid memory or the NULL its case names.
    unsafe {
        let cb = (cbapi.create)(1, &gpu.queue, flags.as_ptr(), &mut err);
        check(err, "clCreateCommandBufferKHR");
        // Argument 1 (the output) is left unset, which the ARGUMENTS field
        // allows; the global size may change too.
        k.arg_buffer(0, &a).arg(2, 3i32);
        let updatable = [
            CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR as u64,
            CL_MUTABLE_DISPATCH_ARGUMENTS_KHR | CL_MUTABLE_DISPATCH_GLOBAL_SIZE_KHR,
            0,
        ];
        let mut command = null_mut();
        let status = (cbapi.nd_range)(
            cb,
            null_mut(),
            updatable.as_ptr(),
            k.handle,
            1,
            null(),
            &HALF,
            null(),
            0,
            list,
            null_mut(),
            &mut command,
        );
        check(status, "clCommandNDRangeKernelKHR");
        check((cbapi.finalize)(cb), "clFinalizeCommandBufferKHR");
        let state = cbapi.info_u32(cb, CL_COMMAND_BUFFER_STATE_KHR);
        assert_eq!(state, CL_COMMAND_BUFFER_STATE_FINALIZED_KHR);
        let not_ready = (cbapi.enqueue)(0, null(), cb, 0, null(), null_mut());
        assert_eq!(not_ready, CL_INVALID_OPERATION);
        let types = [CL_STRUCTURE_TYPE_MUTABLE_DISPATCH_CONFIG_KHR];
        let update = |config: &DispatchConfig| {
            let configs = [config as *const DispatchConfig as *const c_void];
            (cbapi.update)(cb, 1, types.as_ptr(), configs.as_ptr())
        };
        // The missing argument: b.
        let out_b = [buffer_arg(1, &b)];
        check(
            update(&DispatchConfig::with_args(command, &out_b)),
            "update",
        );
        let state = cbapi.info_u32(cb, CL_COMMAND_BUFFER_STATE_KHR);
        assert_eq!(state, CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR);
        let e = cbapi.run(cb, &[]);
        check((gpu.api.clReleaseEvent)(e), "clReleaseEvent");
        // Then c, with k = -1, over all N work-items; b keeps the first run.
        let minus_one = -1i32;
        let args = [
            buffer_arg(1, &c),
            DispatchArg {
                arg_index: 2,
                arg_size: 4,
                arg_value: &minus_one as *const i32 as *const c_void,
            },
        ];
        let mut config = DispatchConfig::with_args(command, &args);
        config.global_work_size = &N;
        check(update(&config), "update");
        let e = cbapi.run(cb, &[]);
        check((gpu.api.clReleaseEvent)(e), "clReleaseEvent");
        gpu.finish();
        let want_b: Vec<i32> = (0..N as i32)
            .map(|i| if (i as usize) < HALF { i * 2 + 3 } else { 0 })
            .collect();
        let want_c: Vec<i32> = (0..N as i32).map(|i| i * 2 - 1).collect();
        assert_eq!(gpu.read::<i32>(&b), want_b);
        assert_eq!(gpu.read::<i32>(&c), want_c);

        // The queries follow the updates.
        let query = |param: cl_uint, out: *mut c_void, size: usize| {
            let mut got = 0;
            check(
                (cbapi.mutable_info)(command, param, size, out, &mut got),
                "info",
            );
            got
        };
        let mut global = [0usize; 1];
        let size = query(
            CL_MUTABLE_DISPATCH_GLOBAL_WORK_SIZE_KHR,
            global.as_mut_ptr().cast(),
            8,
        );
        assert_eq!((global[0], size), (N, 8));
        let mut handle: Handle = null_mut();
        query(
            CL_MUTABLE_DISPATCH_KERNEL_KHR,
            (&mut handle as *mut Handle).cast(),
            8,
        );
        assert_eq!(handle, k.handle);
        query(
            CL_MUTABLE_COMMAND_COMMAND_BUFFER_KHR,
            (&mut handle as *mut Handle).cast(),
            8,
        );
        assert_eq!(handle, cb);
        let mut props = [0u64; 3];
        let size = query(
            CL_MUTABLE_COMMAND_PROPERTIES_ARRAY_KHR,
            props.as_mut_ptr().cast(),
            24,
        );
        assert_eq!((props, size), (updatable, 24));

        // Errors leave the command as it was.
        let mut config = DispatchConfig::new(command);
        config.global_work_offset = &N;
        assert_eq!(
            update(&config),
            CL_INVALID_OPERATION,
            "offset not updatable"
        );
        let mut config = DispatchConfig::new(command);
        config.work_dim = 2;
        assert_eq!(update(&config), CL_INVALID_OPERATION, "work_dim");
        let good_then_bad = [
            buffer_arg(1, &b),
            DispatchArg {
                arg_index: 7,
                arg_size: 4,
                arg_value: &minus_one as *const i32 as *const c_void,
            },
        ];
        let config = DispatchConfig::with_args(command, &good_then_bad);
        assert_eq!(update(&config), CL_INVALID_ARG_INDEX);
        let mut config = DispatchConfig::new(command);
        config.num_args = 1;
        assert_eq!(update(&config), CL_INVALID_VALUE, "NULL arg_list");
        let bogus = [0u64; 4];
        let config = DispatchConfig::new(bogus.as_ptr() as Handle);
        assert_eq!(update(&config), CL_INVALID_MUTABLE_COMMAND_KHR);
        let wrong_type = [1u32];
        let config = DispatchConfig::new(command);
        let configs = [&config as *const DispatchConfig as *const c_void];
        let status = (cbapi.update)(cb, 1, wrong_type.as_ptr(), configs.as_ptr());
        assert_eq!(status, CL_INVALID_VALUE);
        gpu.write(&c, &vec![0i32; N]);
        let e = cbapi.run(cb, &[]);
        check((gpu.api.clWaitForEvents)(1, &e), "clWaitForEvents");
        check((gpu.api.clReleaseEvent)(e), "clReleaseEvent");
        assert_eq!(
            gpu.read::<i32>(&c),
            want_c,
            "the failed updates changed nothing"
        );

        // A command-buffer without CL_COMMAND_BUFFER_MUTABLE_KHR takes no
        // update, and a command of another command-buffer is not its own.
        let fixed = cbapi.new_buffer(gpu.queue);
        let mut other = null_mut();
        k.arg_buffer(1, &b);
        let status = (cbapi.nd_range)(
            fixed,
            null_mut(),
            null(),
            k.handle,
            1,
            null(),
            &N,
            null(),
            0,
            list,
            null_mut(),
            &mut other,
        );
        check(status, "clCommandNDRangeKernelKHR");
        check((cbapi.finalize)(fixed), "clFinalizeCommandBufferKHR");
        let config = DispatchConfig::new(other);
        let configs = [&config as *const DispatchConfig as *const c_void];
        let status = (cbapi.update)(fixed, 1, types.as_ptr(), configs.as_ptr());
        assert_eq!(status, CL_INVALID_OPERATION);
        let status = (cbapi.update)(cb, 1, types.as_ptr(), configs.as_ptr());
        assert_eq!(status, CL_INVALID_MUTABLE_COMMAND_KHR);
        check((cbapi.release)(fixed), "clReleaseCommandBufferKHR");
        check((cbapi.release)(cb), "clReleaseCommandBufferKHR");
    }
}
