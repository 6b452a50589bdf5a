//! cl_ext_buffer_device_address: buffers with a device address the
//! application can read, kernels given raw device pointers as arguments
//! and through pointers stored in memory, and the ordering of launches that
//! reach memory only through such pointers.

mod common;

use common::*;
use ferrocl_runtime::cl::*;
use std::ffi::c_void;
use std::ptr::null_mut;

type SetDevicePointer = unsafe extern "C" fn(Handle, cl_uint, u64) -> cl_int;

const SOURCE: &str = r#"
    __kernel void address_of(__global int *p, __global ulong *out) {
        *out = (ulong)p;
    }
    // Reads the two ints before the pointer it is given.
    __kernel void before(__global const int *p, __global int *out) {
        size_t i = get_global_id(0);
        out[i] = p[(long)i - 2];
    }
    // Follows a pointer stored in memory (kernel arguments cannot be
    // pointers to pointers).
    __kernel void indirect(__global const ulong *table, __global int *out) {
        size_t i = get_global_id(0);
        out[i] = ((__global const int *)table[0])[i];
    }
    __kernel void fill(__global int *p, int base) {
        size_t i = get_global_id(0);
        p[i] = base + (int)i;
    }
"#;

fn set_device_pointer(gpu: &Gpu) -> SetDevicePointer {
    // SAFETY: a valid platform and a NUL-terminated name.
    let f = unsafe {
        (gpu.api.clGetExtensionFunctionAddressForPlatform)(
            gpu.platform,
            c"clSetKernelArgDevicePointerEXT".as_ptr(),
        )
    };
    assert!(!f.is_null());
    // SAFETY: the extension's signature; the sizes of the two are equal.
    unsafe { std::mem::transmute_copy::<*mut c_void, SetDevicePointer>(&f) }
}

/// A buffer of `n` ints with `CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT`, and its
/// address.
fn addressed(gpu: &Gpu, n: usize) -> (Handle, u64) {
    let props = [
        u64::from(CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT),
        u64::from(CL_TRUE),
        0,
    ];
    let mem = gpu.buffer_with_properties(&props, n * 4, "clCreateBufferWithProperties");
    let mut address = 0u64;
    let mut size = 0;
    // SAFETY: one address for the one device.
    let status = unsafe {
        (gpu.api.clGetMemObjectInfo)(
            mem,
            CL_MEM_DEVICE_ADDRESS_EXT,
            8,
            &mut address as *mut u64 as *mut c_void,
            &mut size,
        )
    };
    check(status, "CL_MEM_DEVICE_ADDRESS_EXT");
    assert_eq!(size, 8);
    assert_ne!(address, 0);
    (mem, address)
}

#[test]
fn kernels_see_the_address_and_follow_raw_pointers() {
    const N: usize = 256;
    let gpu = Gpu::new();
    assert!(gpu
        .device_string(CL_DEVICE_EXTENSIONS)
        .split_whitespace()
        .any(|e| e == "cl_ext_buffer_device_address"));
    let set_pointer = set_device_pointer(&gpu);
    let program = gpu.program(SOURCE, "");
    let (mem, address) = addressed(&gpu, N);
    let wrapped = Buffer::wrap(&gpu, mem, N * 4);
    // The address a kernel sees for the buffer is the one the query gave.
    let out = gpu.zeroed::<u64>(1);
    let k = program.kernel("address_of");
    k.arg_buffer(0, &wrapped).arg_buffer(1, &out);
    gpu.run(&k, &[1], None, None);
    assert_eq!(gpu.read::<u64>(&out), vec![address]);

    // A device pointer into the middle of the buffer, read backwards; the
    // buffer is written by a launch just before (the raw pointer must still
    // order after it).
    let fill = program.kernel("fill");
    fill.arg_buffer(0, &wrapped).arg(1, 1000i32);
    gpu.run(&fill, &[N], None, None);
    let before = program.kernel("before");
    let got = gpu.zeroed::<i32>(N - 2);
    // SAFETY: a valid kernel; argument 0 is a global pointer.
    check(
        unsafe { set_pointer(before.handle, 0, address + 8) },
        "device pointer",
    );
    before.arg_buffer(1, &got);
    gpu.run(&before, &[N - 2], None, None);
    let want: Vec<i32> = (0..N as i32 - 2).map(|i| 1000 + i).collect();
    assert_eq!(gpu.read::<i32>(&got), want);

    // A pointer stored in memory, named to the launch through
    // CL_KERNEL_EXEC_INFO_DEVICE_PTRS_EXT, after another fill.
    fill.arg(1, -50i32);
    gpu.run(&fill, &[N], None, None);
    let table = gpu.buffer(&[address]);
    let indirect = program.kernel("indirect");
    let got = gpu.zeroed::<i32>(N);
    indirect.arg_buffer(0, &table).arg_buffer(1, &got);
    // SAFETY: one 8-byte address.
    let status = unsafe {
        (gpu.api.clSetKernelExecInfo)(
            indirect.handle,
            CL_KERNEL_EXEC_INFO_DEVICE_PTRS_EXT,
            8,
            &address as *const u64 as *const c_void,
        )
    };
    check(status, "CL_KERNEL_EXEC_INFO_DEVICE_PTRS_EXT");
    gpu.run(&indirect, &[N], None, None);
    let want: Vec<i32> = (0..N as i32).map(|i| i - 50).collect();
    assert_eq!(gpu.read::<i32>(&got), want);
}

#[test]
fn errors_follow_the_extension() {
    let gpu = Gpu::new();
    let set_pointer = set_device_pointer(&gpu);
    let program = gpu.program(SOURCE, "");
    let k = program.kernel("fill");
    let plain = gpu.zeroed::<i32>(4);
    let mut err = 0;
    // SAFETY: every call passes valid memory or the NULL its case names.
    unsafe {
        // No address for a buffer created without the property.
        let mut address = 0u64;
        let status = (gpu.api.clGetMemObjectInfo)(
            plain.handle,
            CL_MEM_DEVICE_ADDRESS_EXT,
            8,
            &mut address as *mut u64 as *mut c_void,
            null_mut(),
        );
        assert_eq!(status, CL_INVALID_OPERATION);
        // Only CL_TRUE and CL_FALSE, once.
        let name = u64::from(CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT);
        for props in [
            [name, 2, 0, 0, 0],
            [name, 1, name, 1, 0],
            [0x4242, 1, 0, 0, 0],
        ] {
            let mem = (gpu.api.clCreateBufferWithProperties)(
                gpu.context,
                props.as_ptr(),
                CL_MEM_READ_WRITE,
                16,
                null_mut(),
                &mut err,
            );
            assert!(mem.is_null());
            assert_eq!(err, CL_INVALID_PROPERTY, "{props:?}");
        }
        // A device pointer goes to a __global pointer argument only.
        assert_eq!(set_pointer(null_mut(), 0, 0), CL_INVALID_KERNEL);
        assert_eq!(set_pointer(k.handle, 1, 0x1000), CL_INVALID_ARG_INDEX);
        assert_eq!(set_pointer(k.handle, 2, 0x1000), CL_INVALID_ARG_INDEX);
        // Any value may be set, NULL too, as long as it is not used.
        check(set_pointer(k.handle, 0, 0), "NULL device pointer");
        check(
            set_pointer(k.handle, 0, 0x1234_5678),
            "unused device pointer",
        );
        let odd = [0u8; 12];
        let status = (gpu.api.clSetKernelExecInfo)(
            k.handle,
            CL_KERNEL_EXEC_INFO_DEVICE_PTRS_EXT,
            12,
            odd.as_ptr() as *const c_void,
        );
        assert_eq!(status, CL_INVALID_VALUE);
    }
}
