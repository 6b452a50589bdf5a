//! Contexts with several devices: memory objects used by queues of
//! different devices stay coherent, `clEnqueueMigrateMemObjects` moves
//! contents, events of one device's queue order commands on another's, and
//! a program is built for every device of the context.
//!
//! The machine running the tests usually has one Vulkan device; run with
//! `FERROCL_DEVICE_REPLICAS=2` so that the platform lists it twice, each
//! replica with its own Vulkan device and memory. Without a second device
//! the two-device parts are skipped with a message, and the one-device
//! parts still run. With `FERROCL_VALIDATION=1` any Vulkan validation
//! message fails the test.

use ferrocl::context::{clCreateContext, clReleaseContext};
use ferrocl::device::clGetDeviceIDs;
use ferrocl::enqueue::clEnqueueNDRangeKernel;
use ferrocl::event::{clReleaseEvent, clWaitForEvents};
use ferrocl::kernel::{
    clCreateKernel, clReleaseKernel, clSetKernelArg, clSetKernelArgDevicePointerEXT,
};
use ferrocl::memory::{
    clCreateBuffer, clCreateBufferWithProperties, clEnqueueMapBuffer, clEnqueueMigrateMemObjects,
    clEnqueueReadBuffer, clEnqueueUnmapMemObject, clEnqueueWriteBuffer, clGetMemObjectInfo,
    clReleaseMemObject,
};
use ferrocl::platform::clGetPlatformIDs;
use ferrocl::program::{clBuildProgram, clCreateProgramWithSource, clReleaseProgram};
use ferrocl::queue::{clCreateCommandQueueWithProperties, clFinish, clReleaseCommandQueue};
use ferrocl_runtime::cl::*;
use std::ffi::{c_void, CString};
use std::ptr::{null, null_mut};
use std::sync::Mutex;

type Handle = *mut c_void;

/// One test at a time, so that a validation message belongs to its test.
static SERIAL: Mutex<()> = Mutex::new(());

const N: usize = 4096;

const SOURCE: &str = "kernel void add(global int *data, int amount) {
    size_t i = get_global_id(0);
    data[i] = data[i] * 2 + amount;
}";

fn ok(code: cl_int, what: &str) {
    assert_eq!(code, CL_SUCCESS, "{what} failed with {code}");
}

fn validation_clean() {
    assert_eq!(
        ferrocl_vk::validation_message_count(),
        0,
        "Vulkan validation messages"
    );
}

/// Every device of the platform.
fn devices() -> Vec<Handle> {
    let mut platform: Handle = null_mut();
    // SAFETY: room for one platform handle.
    unsafe {
        ok(
            clGetPlatformIDs(1, &mut platform, null_mut()),
            "clGetPlatformIDs",
        )
    };
    let mut count = 0;
    // SAFETY: only the count is asked for.
    unsafe {
        ok(
            clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, null_mut(), &mut count),
            "clGetDeviceIDs",
        )
    };
    let mut list = vec![null_mut(); count as usize];
    // SAFETY: `list` holds `count` handles.
    unsafe {
        ok(
            clGetDeviceIDs(
                platform,
                CL_DEVICE_TYPE_ALL,
                count,
                list.as_mut_ptr(),
                null_mut(),
            ),
            "clGetDeviceIDs",
        )
    };
    list
}

/// A context over `devices`, one in-order queue per device (out of order
/// when asked), the `add` kernel built for all of them, and an int buffer.
struct Setup {
    context: Handle,
    queues: Vec<Handle>,
    program: Handle,
    kernel: Handle,
    buffer: Handle,
}

impl Setup {
    fn new(devices: &[Handle], out_of_order: bool) -> Setup {
        let mut err = 0;
        // SAFETY: valid device handles; every out-pointer is ours.
        unsafe {
            let context = clCreateContext(
                null(),
                devices.len() as cl_uint,
                devices.as_ptr(),
                None,
                null_mut(),
                &mut err,
            );
            ok(err, "clCreateContext");
            let props: [cl_ulong; 3] = if out_of_order {
                [
                    CL_QUEUE_PROPERTIES as cl_ulong,
                    CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
                    0,
                ]
            } else {
                [0; 3]
            };
            let queues = devices
                .iter()
                .map(|&d| {
                    let q =
                        clCreateCommandQueueWithProperties(context, d, props.as_ptr(), &mut err);
                    ok(err, "clCreateCommandQueueWithProperties");
                    q
                })
                .collect();
            let text = CString::new(SOURCE).unwrap();
            let strings = [text.as_ptr()];
            let program = clCreateProgramWithSource(context, 1, strings.as_ptr(), null(), &mut err);
            ok(err, "clCreateProgramWithSource");
            // Built for every device of the context (NULL device list).
            ok(
                clBuildProgram(program, 0, null(), null(), None, null_mut()),
                "clBuildProgram",
            );
            let name = CString::new("add").unwrap();
            let kernel = clCreateKernel(program, name.as_ptr(), &mut err);
            ok(err, "clCreateKernel");
            let buffer = clCreateBuffer(context, CL_MEM_READ_WRITE, N * 4, null_mut(), &mut err);
            ok(err, "clCreateBuffer");
            Setup {
                context,
                queues,
                program,
                kernel,
                buffer,
            }
        }
    }

    fn write(&self, queue: usize, data: &[i32]) -> Handle {
        let mut event = null_mut();
        // SAFETY: a blocking write of N ints from `data`.
        unsafe {
            ok(
                clEnqueueWriteBuffer(
                    self.queues[queue],
                    self.buffer,
                    CL_TRUE,
                    0,
                    N * 4,
                    data.as_ptr().cast(),
                    0,
                    null(),
                    &mut event,
                ),
                "clEnqueueWriteBuffer",
            )
        };
        event
    }

    fn read(&self, queue: usize) -> Vec<i32> {
        let mut out = vec![0i32; N];
        // SAFETY: a blocking read of N ints into `out`.
        unsafe {
            ok(
                clEnqueueReadBuffer(
                    self.queues[queue],
                    self.buffer,
                    CL_TRUE,
                    0,
                    N * 4,
                    out.as_mut_ptr().cast(),
                    0,
                    null(),
                    null_mut(),
                ),
                "clEnqueueReadBuffer",
            )
        };
        out
    }

    /// `data[i] = data[i] * 2 + amount` on `queue`, after `waits`.
    fn add(&self, queue: usize, amount: i32, waits: &[Handle]) -> Handle {
        let mut event = null_mut();
        let global = N;
        // SAFETY: argument values of the kernel's types; a 1D NDRange.
        unsafe {
            ok(
                clSetKernelArg(
                    self.kernel,
                    0,
                    std::mem::size_of::<Handle>(),
                    (&self.buffer as *const Handle).cast(),
                ),
                "clSetKernelArg",
            );
            ok(
                clSetKernelArg(self.kernel, 1, 4, (&amount as *const i32).cast()),
                "clSetKernelArg",
            );
            ok(
                clEnqueueNDRangeKernel(
                    self.queues[queue],
                    self.kernel,
                    1,
                    null(),
                    &global,
                    null(),
                    waits.len() as cl_uint,
                    if waits.is_empty() {
                        null()
                    } else {
                        waits.as_ptr()
                    },
                    &mut event,
                ),
                "clEnqueueNDRangeKernel",
            )
        };
        event
    }

    fn migrate(&self, queue: usize, flags: cl_bitfield) {
        let mut event = null_mut();
        // SAFETY: one valid memory object.
        unsafe {
            ok(
                clEnqueueMigrateMemObjects(
                    self.queues[queue],
                    1,
                    &self.buffer,
                    flags,
                    0,
                    null(),
                    &mut event,
                ),
                "clEnqueueMigrateMemObjects",
            );
            ok(clWaitForEvents(1, &event), "clWaitForEvents");
            ok(clReleaseEvent(event), "clReleaseEvent");
        }
    }
}

impl Drop for Setup {
    fn drop(&mut self) {
        // SAFETY: handles made in `new`, released once.
        unsafe {
            for &q in &self.queues {
                clFinish(q);
                clReleaseCommandQueue(q);
            }
            clReleaseMemObject(self.buffer);
            clReleaseKernel(self.kernel);
            clReleaseProgram(self.program);
            clReleaseContext(self.context);
        }
    }
}

fn pattern() -> Vec<i32> {
    (0..N as i32).map(|i| i * 3 - 7).collect()
}

/// The first two devices, or None (with a message) where there is one.
fn two_devices() -> Option<Vec<Handle>> {
    let list = devices();
    if list.len() < 2 {
        eprintln!(
            "multi_device: one device only; the two-device parts are skipped \
             (set FERROCL_DEVICE_REPLICAS=2)"
        );
        return None;
    }
    Some(list[..2].to_vec())
}

#[test]
fn one_device_migration_keeps_contents() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let list = devices();
    let s = Setup::new(&list[..1], false);
    let data = pattern();
    let e = s.write(0, &data);
    // SAFETY: an event of this test.
    unsafe { clReleaseEvent(e) };
    s.migrate(0, 0);
    s.migrate(0, CL_MIGRATE_MEM_OBJECT_HOST);
    assert_eq!(s.read(0), data);
    validation_clean();
}

#[test]
fn kernel_on_one_device_sees_a_write_on_another() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(list) = two_devices() else { return };
    for out_of_order in [false, true] {
        let s = Setup::new(&list, out_of_order);
        let data = pattern();
        let written = s.write(0, &data);
        // The kernel on device B waits for the write on device A.
        let ran = s.add(1, 5, &[written]);
        // SAFETY: events of this test.
        unsafe {
            ok(clWaitForEvents(1, &ran), "clWaitForEvents");
            clReleaseEvent(written);
            clReleaseEvent(ran);
        }
        let expect: Vec<i32> = data.iter().map(|v| v * 2 + 5).collect();
        assert_eq!(s.read(0), expect, "read on A after a kernel on B");
        assert_eq!(s.read(1), expect, "read on B");
        // Back and forth: A, then B again, each after the other's event.
        let a = s.add(0, 1, &[]);
        let b = s.add(1, -3, &[a]);
        // SAFETY: events of this test.
        unsafe {
            ok(clWaitForEvents(1, &b), "clWaitForEvents");
            clReleaseEvent(a);
            clReleaseEvent(b);
        }
        let expect: Vec<i32> = expect.iter().map(|v| (v * 2 + 1) * 2 - 3).collect();
        assert_eq!(s.read(0), expect, "two hops");
    }
    validation_clean();
}

#[test]
fn map_on_one_device_after_a_kernel_on_another() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(list) = two_devices() else { return };
    let s = Setup::new(&list, false);
    let data = pattern();
    let e = s.write(1, &data);
    let k = s.add(1, 2, &[]);
    // SAFETY: events of this test; the mapping covers N ints.
    unsafe {
        ok(clFinish(s.queues[1]), "clFinish");
        clReleaseEvent(e);
        clReleaseEvent(k);
        let mut err = 0;
        let ptr = clEnqueueMapBuffer(
            s.queues[0],
            s.buffer,
            CL_TRUE,
            CL_MAP_READ | CL_MAP_WRITE,
            0,
            N * 4,
            0,
            null(),
            null_mut(),
            &mut err,
        );
        ok(err, "clEnqueueMapBuffer");
        let mapped = std::slice::from_raw_parts_mut(ptr as *mut i32, N);
        let expect: Vec<i32> = data.iter().map(|v| v * 2 + 2).collect();
        assert_eq!(mapped, &expect[..], "map on A");
        mapped.iter_mut().for_each(|v| *v += 100);
        // Unmapped through the other device's queue.
        ok(
            clEnqueueUnmapMemObject(s.queues[1], s.buffer, ptr, 0, null(), null_mut()),
            "clEnqueueUnmapMemObject",
        );
        ok(clFinish(s.queues[1]), "clFinish");
        let expect: Vec<i32> = expect.iter().map(|v| v + 100).collect();
        assert_eq!(s.read(1), expect, "read on B after unmap on B");
        assert_eq!(s.read(0), expect, "read on A after unmap on B");
    }
    validation_clean();
}

#[test]
fn explicit_migration_moves_contents() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(list) = two_devices() else { return };
    let s = Setup::new(&list, false);
    let data = pattern();
    let e = s.write(0, &data);
    // SAFETY: an event of this test.
    unsafe { clReleaseEvent(e) };
    s.migrate(1, 0);
    let residency = |s: &Setup| {
        // SAFETY: a live buffer handle of this test.
        let mem =
            unsafe { ferrocl_runtime::api::from_handle::<ferrocl_runtime::memory::Mem>(s.buffer) }
                .expect("a memory object");
        mem.residency().expect("two devices").valid_devices()
    };
    assert_eq!(residency(&s), vec![true, true]);
    assert_eq!(s.read(1), data);
    // Contents undefined: the queue's device becomes the only holder.
    s.migrate(0, CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED);
    assert_eq!(residency(&s), vec![true, false]);
    let e = s.write(0, &data);
    // SAFETY: an event of this test.
    unsafe { clReleaseEvent(e) };
    s.migrate(1, CL_MIGRATE_MEM_OBJECT_HOST);
    assert_eq!(s.read(1), data);
    validation_clean();
}

#[test]
fn device_pointers_reach_each_devices_copy() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(list) = two_devices() else { return };
    let mut s = Setup::new(&list, false);
    let mut err = 0;
    let mut addresses = [0u64; 2];
    // SAFETY: the setup's handles; a 0-terminated property list; room for
    // two addresses.
    unsafe {
        // The buffer again, with a device address on each device
        // (cl_ext_buffer_device_address).
        clReleaseMemObject(s.buffer);
        let props = [
            u64::from(CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT),
            u64::from(CL_TRUE),
            0,
        ];
        s.buffer = clCreateBufferWithProperties(
            s.context,
            props.as_ptr(),
            CL_MEM_READ_WRITE,
            N * 4,
            null_mut(),
            &mut err,
        );
        ok(err, "clCreateBufferWithProperties");
        ok(
            clGetMemObjectInfo(
                s.buffer,
                CL_MEM_DEVICE_ADDRESS_EXT,
                16,
                addresses.as_mut_ptr().cast(),
                null_mut(),
            ),
            "CL_MEM_DEVICE_ADDRESS_EXT",
        );
    }
    assert!(addresses.iter().all(|&a| a != 0), "{addresses:x?}");
    // `add` on `queue`, reaching the buffer only through the raw address
    // of that queue's device: the runtime must bring the contents there
    // first and count the launch as a write.
    let add_through_pointer = |queue: usize, amount: i32| {
        let global = N;
        let mut event = null_mut();
        // SAFETY: argument values of the kernel's types; a 1D NDRange.
        unsafe {
            ok(
                clSetKernelArgDevicePointerEXT(s.kernel, 0, addresses[queue]),
                "clSetKernelArgDevicePointerEXT",
            );
            ok(
                clSetKernelArg(s.kernel, 1, 4, (&amount as *const i32).cast()),
                "clSetKernelArg",
            );
            ok(
                clEnqueueNDRangeKernel(
                    s.queues[queue],
                    s.kernel,
                    1,
                    null(),
                    &global,
                    null(),
                    0,
                    null(),
                    &mut event,
                ),
                "clEnqueueNDRangeKernel",
            );
            ok(clWaitForEvents(1, &event), "clWaitForEvents");
            clReleaseEvent(event);
        }
    };
    let data = pattern();
    // SAFETY: an event of this test.
    unsafe { clReleaseEvent(s.write(0, &data)) };
    add_through_pointer(1, 5);
    let expect: Vec<i32> = data.iter().map(|v| v * 2 + 5).collect();
    assert_eq!(
        s.read(0),
        expect,
        "read on A after a raw-pointer kernel on B"
    );
    add_through_pointer(0, -1);
    let expect: Vec<i32> = expect.iter().map(|v| v * 2 - 1).collect();
    assert_eq!(
        s.read(1),
        expect,
        "read on B after a raw-pointer kernel on A"
    );
    validation_clean();
}
