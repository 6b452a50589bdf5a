//! Coarse-grained buffer SVM through the C API: allocation, the SVM
//! commands with events and wait lists, kernels that follow pointers
//! stored in SVM memory (built on the host, and written by the device),
//! `CL_MEM_USE_HOST_PTR` over SVM memory, and the error codes of bad input.

mod common;

use common::{check, library_path, Gpu, Handle};
use ferrocl_runtime::cl::*;
use libloading::Library;
use std::ffi::c_void;
use std::ptr::{null, null_mut};
use std::sync::OnceLock;

type FreeFn = unsafe extern "C" fn(Handle, cl_uint, *mut *mut c_void, *mut c_void);

/// The SVM entry points, resolved from the same library as `common`'s.
struct Svm {
    alloc: unsafe extern "C" fn(Handle, cl_bitfield, usize, cl_uint) -> *mut c_void,
    free: unsafe extern "C" fn(Handle, *mut c_void),
    enqueue_free: unsafe extern "C" fn(
        Handle,
        cl_uint,
        *mut *mut c_void,
        Option<FreeFn>,
        *mut c_void,
        cl_uint,
        *const Handle,
        *mut Handle,
    ) -> cl_int,
    memcpy: unsafe extern "C" fn(
        Handle,
        cl_bool,
        *mut c_void,
        *const c_void,
        usize,
        cl_uint,
        *const Handle,
        *mut Handle,
    ) -> cl_int,
    fill: unsafe extern "C" fn(
        Handle,
        *mut c_void,
        *const c_void,
        usize,
        usize,
        cl_uint,
        *const Handle,
        *mut Handle,
    ) -> cl_int,
    map: unsafe extern "C" fn(
        Handle,
        cl_bool,
        cl_bitfield,
        *mut c_void,
        usize,
        cl_uint,
        *const Handle,
        *mut Handle,
    ) -> cl_int,
    unmap: unsafe extern "C" fn(Handle, *mut c_void, cl_uint, *const Handle, *mut Handle) -> cl_int,
    migrate: unsafe extern "C" fn(
        Handle,
        cl_uint,
        *const *const c_void,
        *const usize,
        cl_bitfield,
        cl_uint,
        *const Handle,
        *mut Handle,
    ) -> cl_int,
    set_arg: unsafe extern "C" fn(Handle, cl_uint, *const c_void) -> cl_int,
    exec_info: unsafe extern "C" fn(Handle, cl_uint, usize, *const c_void) -> cl_int,
    mem_info: unsafe extern "C" fn(Handle, cl_uint, usize, *mut c_void, *mut usize) -> cl_int,
}

fn svm() -> &'static Svm {
    static LIB: OnceLock<Library> = OnceLock::new();
    static SVM: OnceLock<Svm> = OnceLock::new();
    SVM.get_or_init(|| {
        // `common::api` chooses the validation layer before the library
        // first loads; loading it again only adds a reference.
        common::api();
        // SAFETY: the same library common::api() loaded.
        let lib = LIB.get_or_init(|| unsafe { Library::new(library_path()) }.expect("load"));
        macro_rules! sym {
            ($name:literal) => {
                // SAFETY: the field's type is the one cl.h declares.
                *unsafe { lib.get(concat!($name, "\0").as_bytes()) }.expect($name)
            };
        }
        Svm {
            alloc: sym!("clSVMAlloc"),
            free: sym!("clSVMFree"),
            enqueue_free: sym!("clEnqueueSVMFree"),
            memcpy: sym!("clEnqueueSVMMemcpy"),
            fill: sym!("clEnqueueSVMMemFill"),
            map: sym!("clEnqueueSVMMap"),
            unmap: sym!("clEnqueueSVMUnmap"),
            migrate: sym!("clEnqueueSVMMigrateMem"),
            set_arg: sym!("clSetKernelArgSVMPointer"),
            exec_info: sym!("clSetKernelExecInfo"),
            mem_info: sym!("clGetMemObjectInfo"),
        }
    })
}

/// The test's device with coarse-grained SVM, or None (the test then has
/// nothing to check) where the probe found none.
fn svm_gpu() -> Option<Gpu> {
    let gpu = Gpu::new();
    let caps: cl_bitfield = gpu.device_info(CL_DEVICE_SVM_CAPABILITIES);
    if caps & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER == 0 {
        eprintln!("device reports no coarse-grained buffer SVM; nothing to test");
        return None;
    }
    assert_eq!(caps, CL_DEVICE_SVM_COARSE_GRAIN_BUFFER);
    Some(gpu)
}

/// An allocation freed when dropped.
struct Alloc<'g> {
    gpu: &'g Gpu,
    ptr: *mut c_void,
    size: usize,
}

impl<'g> Alloc<'g> {
    fn new(gpu: &'g Gpu, size: usize) -> Alloc<'g> {
        // SAFETY: a valid context; default flags and alignment.
        let ptr = unsafe { (svm().alloc)(gpu.context, CL_MEM_READ_WRITE, size, 0) };
        assert!(!ptr.is_null(), "clSVMAlloc({size}) returned NULL");
        Alloc { gpu, ptr, size }
    }

    fn map(&self, flags: cl_bitfield) {
        // SAFETY: the allocation's own range.
        let status = unsafe {
            (svm().map)(
                self.gpu.queue,
                CL_TRUE,
                flags,
                self.ptr,
                self.size,
                0,
                null(),
                null_mut(),
            )
        };
        check(status, "clEnqueueSVMMap");
    }

    fn unmap(&self) {
        // SAFETY: a pointer mapped before.
        let status = unsafe { (svm().unmap)(self.gpu.queue, self.ptr, 0, null(), null_mut()) };
        check(status, "clEnqueueSVMUnmap");
    }
}

/// CL_MEM_USES_SVM_POINTER of `buffer`.
fn uses_svm_pointer(buffer: Handle) -> cl_bool {
    let mut uses: cl_bool = 0;
    // SAFETY: a valid buffer; the answer is a cl_bool.
    let status = unsafe {
        (svm().mem_info)(
            buffer,
            CL_MEM_USES_SVM_POINTER,
            4,
            &mut uses as *mut cl_bool as *mut c_void,
            null_mut(),
        )
    };
    check(status, "CL_MEM_USES_SVM_POINTER");
    uses
}

/// Runs `f` with `allocs` mapped with `flags`, then unmaps them.
fn with_mapped<R>(allocs: &[&Alloc<'_>], flags: cl_bitfield, f: impl FnOnce() -> R) -> R {
    for a in allocs {
        a.map(flags);
    }
    let r = f();
    for a in allocs {
        a.unmap();
    }
    r
}

impl Drop for Alloc<'_> {
    fn drop(&mut self) {
        // Nothing may still use it.
        self.gpu.finish();
        // SAFETY: allocated from this context.
        unsafe { (svm().free)(self.gpu.context, self.ptr) };
    }
}

#[repr(C)]
#[derive(Clone, Copy)]
struct Node {
    value: i32,
    pad: i32,
    next: *mut Node,
}

const LIST_KERNELS: &str = r#"
typedef struct Node {
    int value;
    int pad;
    __global struct Node *next;
} Node;

// Walks the list from `head`, one work-item, summing and doubling.
__kernel void walk(__global Node *head, __global int *out) {
    int sum = 0, count = 0;
    for (__global Node *n = head; n != 0; n = n->next) {
        sum += n->value;
        n->value *= 2;
        count++;
    }
    out[0] = sum;
    out[1] = count;
}

// Links node i to node i + 1 of `nodes` (the last to NULL) and stores the
// address of element n - 1 - i of `targets` in `ptrs[i]` (OpenCL C has no
// pointer-to-pointer kernel arguments, so the table is of integers).
__kernel void link(__global Node *nodes, int n, __global int *targets,
                   __global ulong *ptrs) {
    int i = get_global_id(0);
    nodes[i].value = i * 3;
    nodes[i].next = (i + 1 < n) ? &nodes[i + 1] : 0;
    ptrs[i] = (ulong)&targets[n - 1 - i];
}
"#;

#[test]
fn kernel_walks_a_list_built_on_the_host() {
    let Some(gpu) = svm_gpu() else { return };
    const N: usize = 50;
    let nodes = Alloc::new(&gpu, N * std::mem::size_of::<Node>());
    // A second allocation reached only through pointers in the first, as
    // the execution information lists it.
    let extra = Alloc::new(&gpu, std::mem::size_of::<Node>());
    let out = Alloc::new(&gpu, 8);
    let base = nodes.ptr as *mut Node;
    let tail = extra.ptr as *mut Node;
    // Nodes in a scrambled order: node k sits at slot (k * 7) % N.
    // SAFETY: mapped memory of N nodes (and one in `extra`).
    with_mapped(
        &[&nodes, &extra],
        CL_MAP_WRITE_INVALIDATE_REGION,
        || unsafe {
            for k in 0..N {
                let slot = base.add((k * 7) % N);
                let next = if k + 1 < N {
                    base.add(((k + 1) * 7) % N)
                } else {
                    tail
                };
                slot.write(Node {
                    value: k as i32,
                    pad: 0,
                    next,
                });
            }
            tail.write(Node {
                value: 1000,
                pad: 0,
                next: null_mut(),
            });
        },
    );
    let kernel = gpu.kernel(LIST_KERNELS, "walk");
    // SAFETY: pointers from clSVMAlloc; the list holds one pointer.
    unsafe {
        check((svm().set_arg)(kernel.handle, 0, nodes.ptr), "set head");
        check((svm().set_arg)(kernel.handle, 1, out.ptr), "set out");
        let list = [extra.ptr];
        check(
            (svm().exec_info)(
                kernel.handle,
                CL_KERNEL_EXEC_INFO_SVM_PTRS,
                std::mem::size_of_val(&list),
                list.as_ptr() as *const c_void,
            ),
            "clSetKernelExecInfo",
        );
    }
    gpu.run(&kernel, &[1], None, None);
    // SAFETY: mapped for reading after the kernel.
    with_mapped(&[&out, &nodes, &extra], CL_MAP_READ, || unsafe {
        let result = std::slice::from_raw_parts(out.ptr as *const i32, 2);
        let want: i32 = (0..N as i32).sum::<i32>() + 1000;
        assert_eq!(result, [want, N as i32 + 1]);
        for k in 0..N {
            assert_eq!((*base.add((k * 7) % N)).value, 2 * k as i32);
        }
        assert_eq!((*tail).value, 2000);
    });
}

#[test]
fn host_follows_pointers_the_kernel_wrote() {
    let Some(gpu) = svm_gpu() else { return };
    const N: usize = 64;
    let nodes = Alloc::new(&gpu, N * std::mem::size_of::<Node>());
    let targets = Alloc::new(&gpu, N * 4);
    let ptrs = Alloc::new(&gpu, N * 8);
    // SAFETY: mapped, N ints.
    with_mapped(&[&targets], CL_MAP_WRITE, || unsafe {
        for i in 0..N {
            (targets.ptr as *mut i32).add(i).write(100 + i as i32);
        }
    });
    let kernel = gpu.kernel(LIST_KERNELS, "link");
    // SAFETY: pointers from clSVMAlloc; `ptrs` is passed as a pointer into
    // the middle of nothing but its start, `targets` into its middle below.
    unsafe {
        check((svm().set_arg)(kernel.handle, 0, nodes.ptr), "nodes");
        check((svm().set_arg)(kernel.handle, 2, targets.ptr), "targets");
        check((svm().set_arg)(kernel.handle, 3, ptrs.ptr), "ptrs");
    }
    kernel.arg(1, N as i32);
    gpu.run(&kernel, &[N], None, None);
    // SAFETY: every pointer the kernel wrote points into these mapped
    // allocations.
    with_mapped(&[&nodes, &ptrs, &targets], CL_MAP_READ, || unsafe {
        let mut n = nodes.ptr as *const Node;
        let mut seen = 0;
        while !n.is_null() {
            assert_eq!((*n).value, seen * 3);
            n = (*n).next;
            seen += 1;
        }
        assert_eq!(seen, N as i32);
        for i in 0..N {
            let p = *(ptrs.ptr as *const *const i32).add(i);
            assert_eq!(*p, 100 + (N - 1 - i) as i32, "pointer {i}");
        }
    });
}

#[test]
fn pointer_into_the_middle_of_an_allocation() {
    let Some(gpu) = svm_gpu() else { return };
    let data = Alloc::new(&gpu, 256 * 4);
    let zero = 0i32;
    // SAFETY: the allocation's range; a 4-byte pattern.
    unsafe {
        check(
            (svm().fill)(
                gpu.queue,
                data.ptr,
                &zero as *const i32 as *const c_void,
                4,
                data.size,
                0,
                null(),
                null_mut(),
            ),
            "fill",
        );
    }
    let kernel = gpu.kernel(
        "__kernel void k(__global int *p) { p[get_global_id(0)] = 7; }",
        "k",
    );
    // SAFETY: 64 ints into the allocation.
    unsafe {
        let middle = (data.ptr as *mut i32).add(64) as *const c_void;
        check((svm().set_arg)(kernel.handle, 0, middle), "middle");
    }
    gpu.run(&kernel, &[16], None, None);
    // SAFETY: mapped.
    let values = with_mapped(&[&data], CL_MAP_READ, || unsafe {
        std::slice::from_raw_parts(data.ptr as *const i32, 256).to_vec()
    });
    for (i, v) in values.iter().enumerate() {
        assert_eq!(*v, if (64..80).contains(&i) { 7 } else { 0 }, "int {i}");
    }
}

#[test]
fn memcpy_fill_map_and_free_with_events() {
    let Some(gpu) = svm_gpu() else { return };
    let api = gpu.api;
    const SIZE: usize = 4096;
    let a = Alloc::new(&gpu, SIZE);
    let b = Alloc::new(&gpu, SIZE);
    let host: Vec<u8> = (0..SIZE).map(|i| (i * 7 % 251) as u8).collect();
    let mut back = vec![0u8; SIZE];
    let mut err = 0;
    // SAFETY: every pointer covers the sizes given; events are ours.
    unsafe {
        // Held by a user event: nothing runs until it is set.
        let gate = (api.clCreateUserEvent)(gpu.context, &mut err);
        check(err, "clCreateUserEvent");
        let mut write = null_mut();
        check(
            (svm().memcpy)(
                gpu.queue,
                CL_FALSE,
                a.ptr,
                host.as_ptr() as *const c_void,
                SIZE,
                1,
                &gate,
                &mut write,
            ),
            "memcpy host to svm",
        );
        // A 3-byte pattern is invalid; a 16-byte one fills the second half.
        let pattern = [0xabu8; 16];
        assert_eq!(
            (svm().fill)(
                gpu.queue,
                b.ptr,
                pattern.as_ptr() as *const c_void,
                3,
                SIZE,
                0,
                null(),
                null_mut()
            ),
            CL_INVALID_VALUE
        );
        let mut copy = null_mut();
        check(
            (svm().memcpy)(
                gpu.queue,
                CL_FALSE,
                b.ptr,
                a.ptr,
                SIZE / 2,
                1,
                &write,
                &mut copy,
            ),
            "memcpy svm to svm",
        );
        let mut fill = null_mut();
        check(
            (svm().fill)(
                gpu.queue,
                (b.ptr as *mut u8).add(SIZE / 2) as *mut c_void,
                pattern.as_ptr() as *const c_void,
                16,
                SIZE / 2,
                1,
                &copy,
                &mut fill,
            ),
            "fill",
        );
        let mut status: cl_int = 0;
        check(
            (api.clGetEventInfo)(
                fill,
                CL_EVENT_COMMAND_EXECUTION_STATUS,
                4,
                &mut status as *mut cl_int as *mut c_void,
                null_mut(),
            ),
            "status",
        );
        assert!(status > CL_COMPLETE as cl_int, "ran before its user event");
        check(
            (api.clSetUserEventStatus)(gate, CL_COMPLETE as cl_int),
            "gate",
        );
        check(
            (svm().memcpy)(
                gpu.queue,
                CL_TRUE,
                back.as_mut_ptr() as *mut c_void,
                b.ptr,
                SIZE,
                1,
                &fill,
                null_mut(),
            ),
            "memcpy svm to host",
        );
        let mut command: cl_uint = 0;
        check(
            (api.clGetEventInfo)(
                fill,
                CL_EVENT_COMMAND_TYPE,
                4,
                &mut command as *mut cl_uint as *mut c_void,
                null_mut(),
            ),
            "type",
        );
        assert_eq!(command, CL_COMMAND_SVM_MEMFILL);
        for e in [gate, write, copy, fill] {
            check((api.clReleaseEvent)(e), "release");
        }
    }
    assert_eq!(&back[..SIZE / 2], &host[..SIZE / 2]);
    assert!(back[SIZE / 2..].iter().all(|&x| x == 0xab));

    // Overlapping copies are refused.
    // SAFETY: inside `a`.
    unsafe {
        let p = a.ptr as *mut u8;
        assert_eq!(
            (svm().memcpy)(
                gpu.queue,
                CL_TRUE,
                p.add(8) as *mut c_void,
                p as *const c_void,
                16,
                0,
                null(),
                null_mut()
            ),
            CL_MEM_COPY_OVERLAP
        );
    }

    // clEnqueueSVMFree with a callback gets the pointers; without one the
    // allocations are freed.
    unsafe extern "C" fn record(
        _queue: Handle,
        n: cl_uint,
        pointers: *mut *mut c_void,
        user_data: *mut c_void,
    ) {
        // SAFETY: the list holds n pointers; user_data is a Vec<usize>.
        unsafe {
            let seen = &mut *(user_data as *mut Vec<usize>);
            for i in 0..n as usize {
                seen.push(*pointers.add(i) as usize);
            }
        }
    }
    let mut seen: Vec<usize> = Vec::new();
    // SAFETY: the context is live; `seen` outlives the command (finish).
    unsafe {
        let c = (svm().alloc)(gpu.context, 0, 64, 0);
        let d = (svm().alloc)(gpu.context, 0, 64, 0);
        assert!(!c.is_null() && !d.is_null());
        let mut list = [c, d];
        let mut event = null_mut();
        check(
            (svm().enqueue_free)(
                gpu.queue,
                2,
                list.as_mut_ptr(),
                Some(record),
                &mut seen as *mut Vec<usize> as *mut c_void,
                0,
                null(),
                &mut event,
            ),
            "clEnqueueSVMFree",
        );
        check((api.clWaitForEvents)(1, &event), "wait");
        check((api.clReleaseEvent)(event), "release");
        assert_eq!(seen, vec![c as usize, d as usize]);
        check(
            (svm().enqueue_free)(
                gpu.queue,
                2,
                list.as_mut_ptr(),
                None,
                null_mut(),
                0,
                null(),
                null_mut(),
            ),
            "clEnqueueSVMFree",
        );
        gpu.finish();
        // Freed: the memory is no longer an SVM allocation to migrate.
        let size = 64usize;
        assert_eq!(
            (svm().migrate)(
                gpu.queue,
                1,
                &(c as *const c_void),
                &size,
                0,
                0,
                null(),
                null_mut()
            ),
            CL_INVALID_VALUE
        );
        check(
            (svm().migrate)(
                gpu.queue,
                1,
                &(a.ptr as *const c_void),
                &size,
                0,
                0,
                null(),
                null_mut(),
            ),
            "migrate",
        );
    }
}

#[test]
fn buffer_over_svm_memory_shares_it() {
    let Some(gpu) = svm_gpu() else { return };
    let api = gpu.api;
    let data = Alloc::new(&gpu, 1024);
    let mut err = 0;
    // SAFETY: the allocation holds 1024 bytes; out parameters are locals.
    unsafe {
        // Larger than the allocation: CL_INVALID_BUFFER_SIZE.
        let too_big =
            (api.clCreateBuffer)(gpu.context, CL_MEM_USE_HOST_PTR, 2048, data.ptr, &mut err);
        assert!(too_big.is_null());
        assert_eq!(err, CL_INVALID_BUFFER_SIZE);
        let at = (data.ptr as *mut u8).add(256) as *mut c_void;
        let buffer = (api.clCreateBuffer)(gpu.context, CL_MEM_USE_HOST_PTR, 512, at, &mut err);
        check(err, "clCreateBuffer over SVM");
        assert_eq!(uses_svm_pointer(buffer), CL_TRUE);
        let words: Vec<u32> = (0..128).collect();
        check(
            (api.clEnqueueWriteBuffer)(
                gpu.queue,
                buffer,
                CL_TRUE,
                0,
                512,
                words.as_ptr() as *const c_void,
                0,
                null(),
                null_mut(),
            ),
            "write through the buffer",
        );
        with_mapped(&[&data], CL_MAP_READ, || {
            let seen = std::slice::from_raw_parts((data.ptr as *const u32).add(64), 128);
            assert_eq!(seen, &words[..]);
        });
        check((api.clReleaseMemObject)(buffer), "release");

        let plain = (api.clCreateBuffer)(gpu.context, CL_MEM_READ_WRITE, 64, null_mut(), &mut err);
        check(err, "plain buffer");
        assert_eq!(uses_svm_pointer(plain), CL_FALSE);
        check((api.clReleaseMemObject)(plain), "release");
    }
}

#[test]
fn bad_input_gets_the_spec_errors() {
    let Some(gpu) = svm_gpu() else { return };
    let s = svm();
    // SAFETY: every call passes valid or deliberately invalid values the
    // entry points must reject without touching memory.
    unsafe {
        // clSVMAlloc answers NULL for a bad context, flags, size or
        // alignment.
        assert!((s.alloc)(null_mut(), 0, 64, 0).is_null());
        assert!((s.alloc)(gpu.context, CL_MEM_SVM_ATOMICS, 64, 0).is_null());
        assert!((s.alloc)(gpu.context, CL_MEM_SVM_FINE_GRAIN_BUFFER, 64, 0).is_null());
        assert!((s.alloc)(gpu.context, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, 64, 0).is_null());
        assert!((s.alloc)(gpu.context, 1 << 40, 64, 0).is_null());
        assert!((s.alloc)(gpu.context, 0, 0, 0).is_null());
        assert!((s.alloc)(gpu.context, 0, usize::MAX, 0).is_null());
        assert!((s.alloc)(gpu.context, 0, 64, 3).is_null());
        // A requested alignment is honoured.
        let aligned = (s.alloc)(gpu.context, CL_MEM_READ_ONLY, 100, 4096);
        assert!(!aligned.is_null());
        assert_eq!(aligned as usize % 4096, 0);
        // NULL and an invalid context: no action.
        (s.free)(gpu.context, null_mut());
        (s.free)(null_mut(), aligned);
        (s.free)(gpu.context, aligned);

        let data = Alloc::new(&gpu, 64);
        let q = gpu.queue;
        let one = [0u8; 4];
        let src = one.as_ptr() as *const c_void;
        assert_eq!(
            (s.memcpy)(null_mut(), 1, data.ptr, src, 4, 0, null(), null_mut()),
            CL_INVALID_COMMAND_QUEUE
        );
        assert_eq!(
            (s.memcpy)(q, 1, null_mut(), src, 4, 0, null(), null_mut()),
            CL_INVALID_VALUE
        );
        assert_eq!(
            (s.memcpy)(q, 1, data.ptr, null(), 4, 0, null(), null_mut()),
            CL_INVALID_VALUE
        );
        assert_eq!(
            (s.memcpy)(q, 1, data.ptr, src, 4, 1, null(), null_mut()),
            CL_INVALID_EVENT_WAIT_LIST
        );
        let bogus: Handle = one.as_ptr() as Handle;
        assert_eq!(
            (s.memcpy)(q, 1, data.ptr, src, 4, 1, &bogus, null_mut()),
            CL_INVALID_EVENT_WAIT_LIST
        );
        // Fill: pointer, pattern, pattern size, alignment, size.
        let fill = |ptr: *mut c_void, pattern: *const c_void, psize: usize, size: usize| {
            (s.fill)(q, ptr, pattern, psize, size, 0, null(), null_mut())
        };
        assert_eq!(fill(null_mut(), src, 4, 4), CL_INVALID_VALUE);
        assert_eq!(fill(data.ptr, null(), 4, 4), CL_INVALID_VALUE);
        assert_eq!(fill(data.ptr, src, 0, 4), CL_INVALID_VALUE);
        assert_eq!(fill(data.ptr, src, 256, 256), CL_INVALID_VALUE);
        assert_eq!(fill(data.ptr, src, 4, 6), CL_INVALID_VALUE);
        let odd = (data.ptr as *mut u8).add(2) as *mut c_void;
        assert_eq!(fill(odd, src, 4, 4), CL_INVALID_VALUE);
        // Map: pointer, size, flags.
        let map = |ptr: *mut c_void, flags: cl_bitfield, size: usize| {
            (s.map)(q, 1, flags, ptr, size, 0, null(), null_mut())
        };
        assert_eq!(map(null_mut(), CL_MAP_READ, 4), CL_INVALID_VALUE);
        assert_eq!(map(data.ptr, CL_MAP_READ, 0), CL_INVALID_VALUE);
        assert_eq!(map(data.ptr, 1 << 5, 4), CL_INVALID_VALUE);
        assert_eq!(
            (s.unmap)(q, null_mut(), 0, null(), null_mut()),
            CL_INVALID_VALUE
        );
        // Free and migrate: pointer lists and flags.
        let mut list = [data.ptr];
        assert_eq!(
            (s.enqueue_free)(
                q,
                0,
                list.as_mut_ptr(),
                None,
                null_mut(),
                0,
                null(),
                null_mut()
            ),
            CL_INVALID_VALUE
        );
        assert_eq!(
            (s.enqueue_free)(q, 1, null_mut(), None, null_mut(), 0, null(), null_mut()),
            CL_INVALID_VALUE
        );
        let ptrs = [data.ptr as *const c_void];
        assert_eq!(
            (s.migrate)(q, 0, ptrs.as_ptr(), null(), 0, 0, null(), null_mut()),
            CL_INVALID_VALUE
        );
        assert_eq!(
            (s.migrate)(q, 1, null(), null(), 0, 0, null(), null_mut()),
            CL_INVALID_VALUE
        );
        assert_eq!(
            (s.migrate)(q, 1, ptrs.as_ptr(), null(), 1 << 4, 0, null(), null_mut()),
            CL_INVALID_VALUE
        );
        let past = [128usize];
        assert_eq!(
            (s.migrate)(q, 1, ptrs.as_ptr(), past.as_ptr(), 0, 0, null(), null_mut()),
            CL_INVALID_VALUE
        );

        // Kernel arguments and execution information.
        let kernel = gpu.kernel("__kernel void k(__global int *p, int n) { p[0] = n; }", "k");
        assert_eq!((s.set_arg)(null_mut(), 0, data.ptr), CL_INVALID_KERNEL);
        assert_eq!(
            (s.set_arg)(kernel.handle, 2, data.ptr),
            CL_INVALID_ARG_INDEX
        );
        assert_eq!(
            (s.set_arg)(kernel.handle, 1, data.ptr),
            CL_INVALID_ARG_VALUE
        );
        let t: cl_bool = CL_TRUE;
        let f: cl_bool = CL_FALSE;
        let flag = |v: &cl_bool| {
            (s.exec_info)(
                kernel.handle,
                CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM,
                4,
                v as *const cl_bool as *const c_void,
            )
        };
        assert_eq!(flag(&t), CL_INVALID_OPERATION);
        assert_eq!(flag(&f), CL_SUCCESS);
        assert_eq!(
            (s.exec_info)(kernel.handle, CL_KERNEL_EXEC_INFO_SVM_PTRS, 8, null()),
            CL_INVALID_VALUE
        );
        assert_eq!(
            (s.exec_info)(kernel.handle, CL_KERNEL_EXEC_INFO_SVM_PTRS, 0, null()),
            CL_SUCCESS
        );
        assert_eq!(
            (s.exec_info)(kernel.handle, 0x1234, 0, null()),
            CL_INVALID_VALUE
        );
    }
}
