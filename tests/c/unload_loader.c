/* An application that loads the OpenCL loader at run time and unloads it
 * before it exits, with its context, queue and buffer never released, as
 * hashcat does when it skips a device. The process must still exit 0:
 * ferrocl and any loader layer outlive the loader's code. Prints PASS or
 * FAIL. */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <dlfcn.h>
#include <stdio.h>

typedef cl_int (*get_platform_ids_fn)(cl_uint, cl_platform_id *, cl_uint *);
typedef cl_int (*get_device_ids_fn)(cl_platform_id, cl_device_type, cl_uint, cl_device_id *,
                                    cl_uint *);
typedef cl_context (*create_context_fn)(const cl_context_properties *, cl_uint,
                                        const cl_device_id *,
                                        void(CL_CALLBACK *)(const char *, const void *, size_t,
                                                            void *),
                                        void *, cl_int *);
typedef cl_command_queue (*create_queue_fn)(cl_context, cl_device_id,
                                            const cl_queue_properties *, cl_int *);
typedef cl_mem (*create_buffer_fn)(cl_context, cl_mem_flags, size_t, void *, cl_int *);
typedef cl_int (*write_buffer_fn)(cl_command_queue, cl_mem, cl_bool, size_t, size_t,
                                  const void *, cl_uint, const cl_event *, cl_event *);
typedef cl_int (*finish_fn)(cl_command_queue);

static int fail(const char *what, cl_int status) {
    fprintf(stderr, "%s failed: %d\n", what, status);
    puts("FAIL");
    return 1;
}

int main(void) {
    void *loader = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
    if (loader == NULL)
        return fail(dlerror(), 0);
    get_platform_ids_fn get_platform_ids =
        (get_platform_ids_fn)dlsym(loader, "clGetPlatformIDs");
    get_device_ids_fn get_device_ids = (get_device_ids_fn)dlsym(loader, "clGetDeviceIDs");
    create_context_fn create_context = (create_context_fn)dlsym(loader, "clCreateContext");
    create_queue_fn create_queue =
        (create_queue_fn)dlsym(loader, "clCreateCommandQueueWithProperties");
    create_buffer_fn create_buffer = (create_buffer_fn)dlsym(loader, "clCreateBuffer");
    write_buffer_fn write_buffer = (write_buffer_fn)dlsym(loader, "clEnqueueWriteBuffer");
    finish_fn finish = (finish_fn)dlsym(loader, "clFinish");
    if (!get_platform_ids || !get_device_ids || !create_context || !create_queue ||
        !create_buffer || !write_buffer || !finish)
        return fail("dlsym", 0);

    cl_platform_id platform;
    cl_device_id device;
    cl_int status = get_platform_ids(1, &platform, NULL);
    if (status != CL_SUCCESS)
        return fail("clGetPlatformIDs", status);
    status = get_device_ids(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL);
    if (status != CL_SUCCESS)
        return fail("clGetDeviceIDs", status);
    cl_context context = create_context(NULL, 1, &device, NULL, NULL, &status);
    if (status != CL_SUCCESS)
        return fail("clCreateContext", status);
    /* Profiling on, so a profiling layer's exit report has an event to
     * read: the call that used to jump into the unloaded loader. */
    const cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
    cl_command_queue queue = create_queue(context, device, props, &status);
    if (status != CL_SUCCESS)
        return fail("clCreateCommandQueueWithProperties", status);
    cl_mem buffer = create_buffer(context, CL_MEM_READ_WRITE, 4096, NULL, &status);
    if (status != CL_SUCCESS)
        return fail("clCreateBuffer", status);
    static const unsigned char bytes[4096];
    status = write_buffer(queue, buffer, CL_FALSE, 0, sizeof bytes, bytes, 0, NULL, NULL);
    if (status != CL_SUCCESS)
        return fail("clEnqueueWriteBuffer", status);
    status = finish(queue);
    if (status != CL_SUCCESS)
        return fail("clFinish", status);

    /* Nothing released: the loader goes, the objects stay until exit. */
    if (dlclose(loader) != 0)
        return fail(dlerror(), 0);
    puts("PASS");
    return 0;
}
