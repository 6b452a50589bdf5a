//! cl_khr_semaphore: binary semaphores ordering commands across queues,
//! waits enqueued before their signals, the payload query, and the
//! extension's errors.

mod common;

use common::*;
use ferrocl_runtime::cl::*;
use std::ffi::c_void;
use std::ptr::{null, null_mut};

type Create = unsafe extern "C" fn(Handle, *const u64, *mut cl_int) -> Handle;
type Enqueue = unsafe extern "C" fn(
    Handle,
    cl_uint,
    *const Handle,
    *const u64,
    cl_uint,
    *const Handle,
    *mut Handle,
) -> cl_int;
type Info = unsafe extern "C" fn(Handle, cl_uint, usize, *mut c_void, *mut usize) -> cl_int;
type Release = unsafe extern "C" fn(Handle) -> cl_int;

/// The extension's entry points.
struct Semaphores {
    create: Create,
    wait: Enqueue,
    signal: Enqueue,
    info: Info,
    release: Release,
}

/// An extension entry point's address as its function type.
///
/// # Safety
/// `F` is the C signature of the function at `address`.
unsafe fn entry<F: Copy>(address: *mut c_void) -> F {
    assert!(!address.is_null());
    assert_eq!(std::mem::size_of::<F>(), std::mem::size_of::<*mut c_void>());
    // SAFETY: per the contract; the sizes are equal.
    unsafe { std::mem::transmute_copy(&address) }
}

impl Semaphores {
    fn get(gpu: &Gpu) -> Semaphores {
        let find = |name: &std::ffi::CStr| {
            // SAFETY: a valid platform and a NUL-terminated name.
            unsafe {
                (gpu.api.clGetExtensionFunctionAddressForPlatform)(gpu.platform, name.as_ptr())
            }
        };
        // SAFETY: each name's C signature is the field's type.
        unsafe {
            Semaphores {
                create: entry(find(c"clCreateSemaphoreWithPropertiesKHR")),
                wait: entry(find(c"clEnqueueWaitSemaphoresKHR")),
                signal: entry(find(c"clEnqueueSignalSemaphoresKHR")),
                info: entry(find(c"clGetSemaphoreInfoKHR")),
                release: entry(find(c"clReleaseSemaphoreKHR")),
            }
        }
    }

    #[track_caller]
    fn binary(&self, gpu: &Gpu) -> Handle {
        let props = [
            u64::from(CL_SEMAPHORE_TYPE_KHR),
            u64::from(CL_SEMAPHORE_TYPE_BINARY_KHR),
            0,
        ];
        let mut err = 0;
        // SAFETY: a 0-terminated property list.
        let s = unsafe { (self.create)(gpu.context, props.as_ptr(), &mut err) };
        check(err, "clCreateSemaphoreWithPropertiesKHR");
        s
    }

    /// Enqueues `command` (wait or signal) of `semaphore` on `queue`; the
    /// event.
    #[track_caller]
    fn run(&self, command: Enqueue, queue: Handle, semaphore: Handle) -> Handle {
        let mut event = null_mut();
        // SAFETY: one valid semaphore.
        let status = unsafe { command(queue, 1, &semaphore, null(), 0, null(), &mut event) };
        check(status, "semaphore command");
        event
    }

    #[track_caller]
    fn payload(&self, semaphore: Handle) -> u64 {
        let mut value = 9u64;
        // SAFETY: an 8-byte query into an 8-byte local.
        let status = unsafe {
            (self.info)(
                semaphore,
                CL_SEMAPHORE_PAYLOAD_KHR,
                8,
                (&mut value as *mut u64).cast(),
                null_mut(),
            )
        };
        check(status, "CL_SEMAPHORE_PAYLOAD_KHR");
        value
    }
}

fn status_of(gpu: &Gpu, event: Handle) -> cl_int {
    let mut status: cl_int = 0;
    // SAFETY: a 4-byte query into a 4-byte local.
    let code = unsafe {
        (gpu.api.clGetEventInfo)(
            event,
            CL_EVENT_COMMAND_EXECUTION_STATUS,
            4,
            (&mut status as *mut cl_int).cast(),
            null_mut(),
        )
    };
    check(code, "clGetEventInfo");
    status
}

const SOURCE: &str = r#"
    __kernel void fill(__global int *p, int base) {
        size_t i = get_global_id(0);
        p[i] = base + (int)i;
    }
    __kernel void twice(__global const int *p, __global int *out) {
        size_t i = get_global_id(0);
        out[i] = p[i] * 2;
    }
"#;

#[test]
fn a_wait_orders_another_queue_after_the_signal() {
    const N: usize = 1024;
    let gpu = Gpu::new();
    assert!(gpu
        .device_string(CL_DEVICE_EXTENSIONS)
        .split_whitespace()
        .any(|e| e == "cl_khr_semaphore"));
    let types: u32 = gpu.device_info(CL_DEVICE_SEMAPHORE_TYPES_KHR);
    assert_eq!(types, CL_SEMAPHORE_TYPE_BINARY_KHR);
    let sems = Semaphores::get(&gpu);
    let semaphore = sems.binary(&gpu);
    assert_eq!(sems.payload(semaphore), 0, "created unsignaled");
    let mut err = 0;
    // SAFETY: a valid context and device.
    let other = unsafe {
        (gpu.api.clCreateCommandQueueWithProperties)(gpu.context, gpu.device, null(), &mut err)
    };
    check(err, "clCreateCommandQueueWithProperties");
    let program = gpu.program(SOURCE, "");
    let (fill, twice) = (program.kernel("fill"), program.kernel("twice"));
    let (data, out) = (gpu.zeroed::<i32>(N), gpu.zeroed::<i32>(N));
    fill.arg_buffer(0, &data);
    twice.arg_buffer(0, &data).arg_buffer(1, &out);
    // SAFETY: handles of this test; 1D NDRanges of N work-items.
    unsafe {
        for round in 0..3 {
            // The wait goes in first: `other` must hold it, and the launch
            // behind it, until the signal, which follows a fill on the
            // first queue.
            let waited = sems.run(sems.wait, other, semaphore);
            let read = launch(&gpu, other, &twice, N);
            std::thread::sleep(std::time::Duration::from_millis(10));
            assert!(
                status_of(&gpu, read) > CL_COMPLETE as cl_int,
                "ran before the signal"
            );
            fill.arg(1, round * 100);
            let filled = launch(&gpu, gpu.queue, &fill, N);
            let signaled = sems.run(sems.signal, gpu.queue, semaphore);
            check((gpu.api.clWaitForEvents)(1, &read), "clWaitForEvents");
            let want: Vec<i32> = (0..N as i32).map(|i| (round * 100 + i) * 2).collect();
            assert_eq!(gpu.read::<i32>(&out), want, "round {round}");
            assert_eq!(sems.payload(semaphore), 0, "the wait consumed the signal");
            for e in [waited, read, filled, signaled] {
                check((gpu.api.clReleaseEvent)(e), "clReleaseEvent");
            }
        }
        // Signal first, then wait: the payload shows the signal until a
        // wait consumes it.
        let signaled = sems.run(sems.signal, gpu.queue, semaphore);
        check((gpu.api.clWaitForEvents)(1, &signaled), "clWaitForEvents");
        assert_eq!(sems.payload(semaphore), 1, "signaled");
        let waited = sems.run(sems.wait, other, semaphore);
        check((gpu.api.clWaitForEvents)(1, &waited), "clWaitForEvents");
        assert_eq!(sems.payload(semaphore), 0, "consumed");
        let mut command_type = 0u32;
        check(
            (gpu.api.clGetEventInfo)(
                waited,
                CL_EVENT_COMMAND_TYPE,
                4,
                (&mut command_type as *mut u32).cast(),
                null_mut(),
            ),
            "clGetEventInfo",
        );
        assert_eq!(command_type, CL_COMMAND_SEMAPHORE_WAIT_KHR);
        for e in [signaled, waited] {
            check((gpu.api.clReleaseEvent)(e), "clReleaseEvent");
        }
        check((gpu.api.clFinish)(other), "clFinish");
        check(
            (gpu.api.clReleaseCommandQueue)(other),
            "clReleaseCommandQueue",
        );
        check((sems.release)(semaphore), "clReleaseSemaphoreKHR");
    }
}

/// Enqueues `kernel` over `n` work-items on `queue`; the event.
///
/// # Safety
/// Valid handles.
unsafe fn launch(gpu: &Gpu, queue: Handle, kernel: &Kernel<'_>, n: usize) -> Handle {
    let mut event = null_mut();
    // SAFETY: per the contract.
    let status = unsafe {
        (gpu.api.clEnqueueNDRangeKernel)(
            queue,
            kernel.handle,
            1,
            null(),
            &n,
            null(),
            0,
            null(),
            &mut event,
        )
    };
    check(status, "clEnqueueNDRangeKernel");
    event
}

#[test]
fn errors_and_queries_follow_the_extension() {
    let gpu = Gpu::new();
    let sems = Semaphores::get(&gpu);
    let kind = u64::from(CL_SEMAPHORE_TYPE_KHR);
    let binary = u64::from(CL_SEMAPHORE_TYPE_BINARY_KHR);
    let list = u64::from(CL_SEMAPHORE_DEVICE_HANDLE_LIST_KHR);
    let device = gpu.device as u64;
    let mut err = 0;
    // SAFETY: every call passes valid memory or the NULL its case names.
    unsafe {
        let create =
            |props: &[u64], err: &mut cl_int| (sems.create)(gpu.context, props.as_ptr(), err);
        assert!((sems.create)(gpu.context, null(), &mut err).is_null());
        assert_eq!(err, CL_INVALID_VALUE, "NULL properties");
        assert!(create(&[0], &mut err).is_null());
        assert_eq!(err, CL_INVALID_VALUE, "no type");
        for props in [
            vec![kind, 2, 0],
            vec![kind, binary, kind, binary, 0],
            vec![0x4242, 1, 0],
        ] {
            assert!(create(&props, &mut err).is_null());
            assert_eq!(err, CL_INVALID_PROPERTY, "{props:?}");
        }
        assert!(create(&[kind, binary, list, device, device, 0, 0], &mut err).is_null());
        assert_eq!(err, CL_INVALID_DEVICE, "two devices");
        assert!(create(&[kind, binary, list, 0x1234, 0, 0], &mut err).is_null());
        assert_eq!(err, CL_INVALID_DEVICE, "not a device");
        let props = [kind, binary, list, device, 0, 0];
        let semaphore = create(&props, &mut err);
        check(err, "clCreateSemaphoreWithPropertiesKHR");
        let mut got = [0u64; 6];
        let mut size = 0;
        check(
            (sems.info)(
                semaphore,
                CL_SEMAPHORE_PROPERTIES_KHR,
                48,
                got.as_mut_ptr().cast(),
                &mut size,
            ),
            "properties",
        );
        assert_eq!((got, size), (props, 48));
        let mut handle: Handle = null_mut();
        check(
            (sems.info)(
                semaphore,
                CL_SEMAPHORE_DEVICE_HANDLE_LIST_KHR,
                8,
                (&mut handle as *mut Handle).cast(),
                null_mut(),
            ),
            "devices",
        );
        assert_eq!(handle, gpu.device);
        check(
            (sems.info)(
                semaphore,
                CL_SEMAPHORE_CONTEXT_KHR,
                8,
                (&mut handle as *mut Handle).cast(),
                null_mut(),
            ),
            "context",
        );
        assert_eq!(handle, gpu.context);
        let mut kind_got = 0u32;
        check(
            (sems.info)(
                semaphore,
                CL_SEMAPHORE_TYPE_KHR,
                4,
                (&mut kind_got as *mut u32).cast(),
                null_mut(),
            ),
            "type",
        );
        assert_eq!(kind_got, CL_SEMAPHORE_TYPE_BINARY_KHR);
        assert_eq!(
            (sems.info)(semaphore, 0x4242, 0, null_mut(), &mut size),
            CL_INVALID_VALUE
        );
        let bogus = [0u64; 4];
        let not_one = bogus.as_ptr() as Handle;
        assert_eq!(
            (sems.info)(not_one, CL_SEMAPHORE_TYPE_KHR, 0, null_mut(), &mut size),
            CL_INVALID_SEMAPHORE_KHR
        );
        // Enqueues.
        for command in [sems.wait, sems.signal] {
            assert_eq!(
                command(gpu.queue, 0, &semaphore, null(), 0, null(), null_mut()),
                CL_INVALID_VALUE
            );
            assert_eq!(
                command(gpu.queue, 1, &not_one, null(), 0, null(), null_mut()),
                CL_INVALID_SEMAPHORE_KHR
            );
            assert_eq!(
                command(not_one, 1, &semaphore, null(), 0, null(), null_mut()),
                CL_INVALID_COMMAND_QUEUE
            );
            assert_eq!(
                command(gpu.queue, 1, &semaphore, null(), 1, null(), null_mut()),
                CL_INVALID_EVENT_WAIT_LIST
            );
        }
        // A failed event in the wait list.
        let user = (gpu.api.clCreateUserEvent)(gpu.context, &mut err);
        check(err, "clCreateUserEvent");
        check(
            (gpu.api.clSetUserEventStatus)(user, -1),
            "clSetUserEventStatus",
        );
        assert_eq!(
            (sems.signal)(gpu.queue, 1, &semaphore, null(), 1, &user, null_mut()),
            CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST
        );
        check((gpu.api.clReleaseEvent)(user), "clReleaseEvent");
        check((sems.release)(semaphore), "clReleaseSemaphoreKHR");
        assert_eq!((sems.release)(not_one), CL_INVALID_SEMAPHORE_KHR);
    }
}
