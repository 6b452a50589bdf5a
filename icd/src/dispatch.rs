//! The ICD dispatch table: `struct _cl_icd_dispatch` of the Khronos
//! `cl_icd.h`, slot for slot, filled with ferrocl's entry points.
//!
//! The first word of every handle points to it (see `ferrocl_runtime::api`);
//! an ICD loader calls through it. [`ensure_registered`] hands the table to
//! the runtime before any object exists.
//!
//! libferrocl.so exports every entry point under its OpenCL name, and so
//! does the ICD loader that loads it. An address taken at link time would
//! be bound by the dynamic linker to the first definition in the process —
//! the loader's own `clGetPlatformInfo`, which calls back through this
//! table for ever — so the library is linked with `-Bsymbolic-functions`
//! (icd/build.rs): its references to its own functions bind to its own
//! definitions.

use std::ffi::c_void;
use std::sync::OnceLock;

macro_rules! dispatch_table {
    ($($slot:ident => $function:expr,)*) => {
        /// `cl_icd_dispatch`: one function pointer per slot, in the header's
        /// order.
        #[repr(C)]
        #[derive(Clone, Copy)]
        #[allow(non_snake_case)]
        pub struct IcdDispatch {
            $(pub $slot: *const c_void,)*
        }

        /// The table as linked: correct where nothing else defines the
        /// OpenCL names (an executable that links the rlib, or libferrocl
        /// used as libOpenCL.so.1).
        fn linked_table() -> IcdDispatch {
            IcdDispatch {
                $($slot: $function as *const c_void,)*
            }
        }

        /// The slot names in table order (checked against `cl_icd.h`).
        pub const SLOT_NAMES: &[&str] = &[$(stringify!($slot),)*];
    };
}

dispatch_table! {
    // OpenCL 1.0
    clGetPlatformIDs => crate::platform::clGetPlatformIDs,
    clGetPlatformInfo => crate::platform::clGetPlatformInfo,
    clGetDeviceIDs => crate::device::clGetDeviceIDs,
    clGetDeviceInfo => crate::device::clGetDeviceInfo,
    clCreateContext => crate::context::clCreateContext,
    clCreateContextFromType => crate::context::clCreateContextFromType,
    clRetainContext => crate::context::clRetainContext,
    clReleaseContext => crate::context::clReleaseContext,
    clGetContextInfo => crate::context::clGetContextInfo,
    clCreateCommandQueue => crate::queue::clCreateCommandQueue,
    clRetainCommandQueue => crate::queue::clRetainCommandQueue,
    clReleaseCommandQueue => crate::queue::clReleaseCommandQueue,
    clGetCommandQueueInfo => crate::queue::clGetCommandQueueInfo,
    clSetCommandQueueProperty => crate::queue::clSetCommandQueueProperty,
    clCreateBuffer => crate::memory::clCreateBuffer,
    clCreateImage2D => crate::image::clCreateImage2D,
    clCreateImage3D => crate::image::clCreateImage3D,
    clRetainMemObject => crate::memory::clRetainMemObject,
    clReleaseMemObject => crate::memory::clReleaseMemObject,
    clGetSupportedImageFormats => crate::image::clGetSupportedImageFormats,
    clGetMemObjectInfo => crate::memory::clGetMemObjectInfo,
    clGetImageInfo => crate::image::clGetImageInfo,
    clCreateSampler => crate::sampler::clCreateSampler,
    clRetainSampler => crate::sampler::clRetainSampler,
    clReleaseSampler => crate::sampler::clReleaseSampler,
    clGetSamplerInfo => crate::sampler::clGetSamplerInfo,
    clCreateProgramWithSource => crate::program::clCreateProgramWithSource,
    clCreateProgramWithBinary => crate::program::clCreateProgramWithBinary,
    clRetainProgram => crate::program::clRetainProgram,
    clReleaseProgram => crate::program::clReleaseProgram,
    clBuildProgram => crate::program::clBuildProgram,
    clUnloadCompiler => crate::program::clUnloadCompiler,
    clGetProgramInfo => crate::program::clGetProgramInfo,
    clGetProgramBuildInfo => crate::program::clGetProgramBuildInfo,
    clCreateKernel => crate::kernel::clCreateKernel,
    clCreateKernelsInProgram => crate::kernel::clCreateKernelsInProgram,
    clRetainKernel => crate::kernel::clRetainKernel,
    clReleaseKernel => crate::kernel::clReleaseKernel,
    clSetKernelArg => crate::kernel::clSetKernelArg,
    clGetKernelInfo => crate::kernel::clGetKernelInfo,
    clGetKernelWorkGroupInfo => crate::kernel::clGetKernelWorkGroupInfo,
    clWaitForEvents => crate::event::clWaitForEvents,
    clGetEventInfo => crate::event::clGetEventInfo,
    clRetainEvent => crate::event::clRetainEvent,
    clReleaseEvent => crate::event::clReleaseEvent,
    clGetEventProfilingInfo => crate::event::clGetEventProfilingInfo,
    clFlush => crate::queue::clFlush,
    clFinish => crate::queue::clFinish,
    clEnqueueReadBuffer => crate::memory::clEnqueueReadBuffer,
    clEnqueueWriteBuffer => crate::memory::clEnqueueWriteBuffer,
    clEnqueueCopyBuffer => crate::memory::clEnqueueCopyBuffer,
    clEnqueueReadImage => crate::image::clEnqueueReadImage,
    clEnqueueWriteImage => crate::image::clEnqueueWriteImage,
    clEnqueueCopyImage => crate::image::clEnqueueCopyImage,
    clEnqueueCopyImageToBuffer => crate::image::clEnqueueCopyImageToBuffer,
    clEnqueueCopyBufferToImage => crate::image::clEnqueueCopyBufferToImage,
    clEnqueueMapBuffer => crate::memory::clEnqueueMapBuffer,
    clEnqueueMapImage => crate::image::clEnqueueMapImage,
    clEnqueueUnmapMemObject => crate::memory::clEnqueueUnmapMemObject,
    clEnqueueNDRangeKernel => crate::enqueue::clEnqueueNDRangeKernel,
    clEnqueueTask => crate::enqueue::clEnqueueTask,
    clEnqueueNativeKernel => crate::enqueue::clEnqueueNativeKernel,
    clEnqueueMarker => crate::enqueue::clEnqueueMarker,
    clEnqueueWaitForEvents => crate::enqueue::clEnqueueWaitForEvents,
    clEnqueueBarrier => crate::enqueue::clEnqueueBarrier,
    clGetExtensionFunctionAddress => crate::extension::clGetExtensionFunctionAddress,
    clCreateFromGLBuffer => crate::unsupported::clCreateFromGLBuffer,
    clCreateFromGLTexture2D => crate::unsupported::clCreateFromGLTexture2D,
    clCreateFromGLTexture3D => crate::unsupported::clCreateFromGLTexture3D,
    clCreateFromGLRenderbuffer => crate::unsupported::clCreateFromGLRenderbuffer,
    clGetGLObjectInfo => crate::unsupported::clGetGLObjectInfo,
    clGetGLTextureInfo => crate::unsupported::clGetGLTextureInfo,
    clEnqueueAcquireGLObjects => crate::unsupported::clEnqueueAcquireGLObjects,
    clEnqueueReleaseGLObjects => crate::unsupported::clEnqueueReleaseGLObjects,
    clGetGLContextInfoKHR => crate::unsupported::clGetGLContextInfoKHR,
    // cl_khr_d3d10_sharing
    clGetDeviceIDsFromD3D10KHR => crate::unsupported::clGetDeviceIDsFromD3D10KHR,
    clCreateFromD3D10BufferKHR => crate::unsupported::clCreateFromD3D10BufferKHR,
    clCreateFromD3D10Texture2DKHR => crate::unsupported::clCreateFromD3D10Texture2DKHR,
    clCreateFromD3D10Texture3DKHR => crate::unsupported::clCreateFromD3D10Texture3DKHR,
    clEnqueueAcquireD3D10ObjectsKHR => crate::unsupported::clEnqueueAcquireD3D10ObjectsKHR,
    clEnqueueReleaseD3D10ObjectsKHR => crate::unsupported::clEnqueueReleaseD3D10ObjectsKHR,
    // OpenCL 1.1
    clSetEventCallback => crate::event::clSetEventCallback,
    clCreateSubBuffer => crate::memory::clCreateSubBuffer,
    clSetMemObjectDestructorCallback => crate::memory::clSetMemObjectDestructorCallback,
    clCreateUserEvent => crate::event::clCreateUserEvent,
    clSetUserEventStatus => crate::event::clSetUserEventStatus,
    clEnqueueReadBufferRect => crate::memory::clEnqueueReadBufferRect,
    clEnqueueWriteBufferRect => crate::memory::clEnqueueWriteBufferRect,
    clEnqueueCopyBufferRect => crate::memory::clEnqueueCopyBufferRect,
    // cl_ext_device_fission
    clCreateSubDevicesEXT => crate::unsupported::clCreateSubDevicesEXT,
    clRetainDeviceEXT => crate::unsupported::clRetainDeviceEXT,
    clReleaseDeviceEXT => crate::unsupported::clReleaseDeviceEXT,
    // cl_khr_gl_event
    clCreateEventFromGLsyncKHR => crate::unsupported::clCreateEventFromGLsyncKHR,
    // OpenCL 1.2
    clCreateSubDevices => crate::device::clCreateSubDevices,
    clRetainDevice => crate::device::clRetainDevice,
    clReleaseDevice => crate::device::clReleaseDevice,
    clCreateImage => crate::image::clCreateImage,
    clCreateProgramWithBuiltInKernels => crate::program::clCreateProgramWithBuiltInKernels,
    clCompileProgram => crate::program::clCompileProgram,
    clLinkProgram => crate::program::clLinkProgram,
    clUnloadPlatformCompiler => crate::program::clUnloadPlatformCompiler,
    clGetKernelArgInfo => crate::kernel::clGetKernelArgInfo,
    clEnqueueFillBuffer => crate::memory::clEnqueueFillBuffer,
    clEnqueueFillImage => crate::image::clEnqueueFillImage,
    clEnqueueMigrateMemObjects => crate::memory::clEnqueueMigrateMemObjects,
    clEnqueueMarkerWithWaitList => crate::enqueue::clEnqueueMarkerWithWaitList,
    clEnqueueBarrierWithWaitList => crate::enqueue::clEnqueueBarrierWithWaitList,
    clGetExtensionFunctionAddressForPlatform => crate::extension::clGetExtensionFunctionAddressForPlatform,
    clCreateFromGLTexture => crate::unsupported::clCreateFromGLTexture,
    // cl_khr_d3d11_sharing
    clGetDeviceIDsFromD3D11KHR => crate::unsupported::clGetDeviceIDsFromD3D11KHR,
    clCreateFromD3D11BufferKHR => crate::unsupported::clCreateFromD3D11BufferKHR,
    clCreateFromD3D11Texture2DKHR => crate::unsupported::clCreateFromD3D11Texture2DKHR,
    clCreateFromD3D11Texture3DKHR => crate::unsupported::clCreateFromD3D11Texture3DKHR,
    clCreateFromDX9MediaSurfaceKHR => crate::unsupported::clCreateFromDX9MediaSurfaceKHR,
    clEnqueueAcquireD3D11ObjectsKHR => crate::unsupported::clEnqueueAcquireD3D11ObjectsKHR,
    clEnqueueReleaseD3D11ObjectsKHR => crate::unsupported::clEnqueueReleaseD3D11ObjectsKHR,
    // cl_khr_dx9_media_sharing
    clGetDeviceIDsFromDX9MediaAdapterKHR => crate::unsupported::clGetDeviceIDsFromDX9MediaAdapterKHR,
    clEnqueueAcquireDX9MediaSurfacesKHR => crate::unsupported::clEnqueueAcquireDX9MediaSurfacesKHR,
    clEnqueueReleaseDX9MediaSurfacesKHR => crate::unsupported::clEnqueueReleaseDX9MediaSurfacesKHR,
    // cl_khr_egl_image
    clCreateFromEGLImageKHR => crate::unsupported::clCreateFromEGLImageKHR,
    clEnqueueAcquireEGLObjectsKHR => crate::unsupported::clEnqueueAcquireEGLObjectsKHR,
    clEnqueueReleaseEGLObjectsKHR => crate::unsupported::clEnqueueReleaseEGLObjectsKHR,
    // cl_khr_egl_event
    clCreateEventFromEGLSyncKHR => crate::unsupported::clCreateEventFromEGLSyncKHR,
    // OpenCL 2.0
    clCreateCommandQueueWithProperties => crate::queue::clCreateCommandQueueWithProperties,
    clCreatePipe => crate::unsupported::clCreatePipe,
    clGetPipeInfo => crate::unsupported::clGetPipeInfo,
    clSVMAlloc => crate::svm::clSVMAlloc,
    clSVMFree => crate::svm::clSVMFree,
    clEnqueueSVMFree => crate::svm::clEnqueueSVMFree,
    clEnqueueSVMMemcpy => crate::svm::clEnqueueSVMMemcpy,
    clEnqueueSVMMemFill => crate::svm::clEnqueueSVMMemFill,
    clEnqueueSVMMap => crate::svm::clEnqueueSVMMap,
    clEnqueueSVMUnmap => crate::svm::clEnqueueSVMUnmap,
    clCreateSamplerWithProperties => crate::sampler::clCreateSamplerWithProperties,
    clSetKernelArgSVMPointer => crate::kernel::clSetKernelArgSVMPointer,
    clSetKernelExecInfo => crate::kernel::clSetKernelExecInfo,
    // cl_khr_sub_groups
    clGetKernelSubGroupInfoKHR => crate::unsupported::clGetKernelSubGroupInfoKHR,
    // OpenCL 2.1
    clCloneKernel => crate::kernel::clCloneKernel,
    clCreateProgramWithIL => crate::program::clCreateProgramWithIL,
    clEnqueueSVMMigrateMem => crate::svm::clEnqueueSVMMigrateMem,
    clGetDeviceAndHostTimer => crate::device::clGetDeviceAndHostTimer,
    clGetHostTimer => crate::device::clGetHostTimer,
    clGetKernelSubGroupInfo => crate::kernel::clGetKernelSubGroupInfo,
    clSetDefaultDeviceCommandQueue => crate::device::clSetDefaultDeviceCommandQueue,
    // OpenCL 2.2
    clSetProgramReleaseCallback => crate::program::clSetProgramReleaseCallback,
    clSetProgramSpecializationConstant => crate::program::clSetProgramSpecializationConstant,
    // OpenCL 3.0
    clCreateBufferWithProperties => crate::memory::clCreateBufferWithProperties,
    clCreateImageWithProperties => crate::image::clCreateImageWithProperties,
    clSetContextDestructorCallback => crate::context::clSetContextDestructorCallback,
}

// SAFETY: the table is written once, before it is shared, and holds only
// function addresses.
unsafe impl Sync for IcdDispatch {}
// SAFETY: as above.
unsafe impl Send for IcdDispatch {}

static DISPATCH: OnceLock<IcdDispatch> = OnceLock::new();

/// The table every ferrocl handle points to.
pub fn dispatch_table() -> &'static IcdDispatch {
    DISPATCH.get_or_init(linked_table)
}

/// Registers the table with the runtime, once. Called by every entry point
/// that can be an application's first call (`clGetPlatformIDs`,
/// `clIcdGetPlatformIDsKHR`, ...) before the platform is created.
pub fn ensure_registered() {
    static REGISTER: std::sync::Once = std::sync::Once::new();
    REGISTER.call_once(|| {
        ferrocl_runtime::api::set_dispatch_table(
            dispatch_table() as *const IcdDispatch as *const c_void
        )
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The slot names of `struct _cl_icd_dispatch` in the installed
    /// Khronos header, in order.
    fn header_slots() -> Option<Vec<String>> {
        let header = std::fs::read_to_string("/usr/include/CL/cl_icd.h").ok()?;
        let start = header.find("typedef struct _cl_icd_dispatch")?;
        let end = start + header[start..].find("} cl_icd_dispatch;")?;
        let slots = header[start..end]
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter_map(|word| word.strip_prefix("cl_api_"))
            .map(str::to_string)
            .collect::<Vec<_>>();
        // Older headers declare the table without the cl_api_* typedefs.
        (!slots.is_empty()).then_some(slots)
    }

    #[test]
    fn slots_match_the_khronos_header() {
        let Some(slots) = header_slots() else {
            eprintln!("skipped: no cl_api_* dispatch table in /usr/include/CL/cl_icd.h");
            return;
        };
        assert_eq!(SLOT_NAMES, slots.as_slice());
        assert_eq!(
            std::mem::size_of::<IcdDispatch>(),
            slots.len() * std::mem::size_of::<*const c_void>()
        );
    }

    #[test]
    fn every_slot_is_filled() {
        let table = dispatch_table() as *const IcdDispatch as *const *const c_void;
        for (i, name) in SLOT_NAMES.iter().enumerate() {
            // SAFETY: IcdDispatch is repr(C) with SLOT_NAMES.len() pointer fields.
            let slot = unsafe { table.add(i).read() };
            assert!(!slot.is_null(), "{name} is empty");
        }
    }

    #[test]
    fn handles_carry_the_registered_table() {
        ensure_registered();
        ensure_registered();
        let mut platform = std::ptr::null_mut();
        let status =
            unsafe { crate::platform::clGetPlatformIDs(1, &mut platform, std::ptr::null_mut()) };
        assert_eq!(status, ferrocl_runtime::cl::CL_SUCCESS);
        // The loader reads the table from the handle's first word.
        let first_word = unsafe { *(platform as *const *const c_void) };
        assert_eq!(
            first_word,
            dispatch_table() as *const IcdDispatch as *const c_void
        );
    }
}
