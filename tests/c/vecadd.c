/* Vector addition through the standard OpenCL host API: the program a user
 * writes first. Every call's status is checked; prints PASS or FAIL and exits
 * non-zero on any failure. */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                                      \
    do {                                                                                 \
        cl_int status_ = (call);                                                         \
        if (status_ != CL_SUCCESS) {                                                     \
            fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__, #call, status_); \
            puts("FAIL");                                                                \
            return 1;                                                                    \
        }                                                                                \
    } while (0)

static const char *source =
    "__kernel void vecadd(__global const float *a, __global const float *b,\n"
    "                     __global float *c, const unsigned int n) {\n"
    "    size_t i = get_global_id(0);\n"
    "    if (i < n)\n"
    "        c[i] = a[i] + b[i];\n"
    "}\n";

int main(void) {
    const cl_uint n = 100003;
    cl_int err;

    cl_uint num_platforms = 0;
    CHECK(clGetPlatformIDs(0, NULL, &num_platforms));
    if (num_platforms == 0) {
        fprintf(stderr, "no OpenCL platform\n");
        puts("FAIL");
        return 1;
    }
    cl_platform_id *platforms = malloc(num_platforms * sizeof *platforms);
    CHECK(clGetPlatformIDs(num_platforms, platforms, NULL));

    /* The first platform that has a device. */
    cl_platform_id platform = NULL;
    cl_device_id device = NULL;
    for (cl_uint p = 0; p < num_platforms && device == NULL; ++p) {
        cl_uint num_devices = 0;
        err = clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 1, &device, &num_devices);
        if (err == CL_DEVICE_NOT_FOUND) {
            device = NULL;
            continue;
        }
        CHECK(err);
        platform = platforms[p];
    }
    free(platforms);
    if (device == NULL) {
        fprintf(stderr, "no OpenCL device\n");
        puts("FAIL");
        return 1;
    }
    char name[256] = { 0 };
    CHECK(clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof name - 1, name, NULL));
    printf("platform: %s\n", name);
    CHECK(clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof name - 1, name, NULL));
    printf("device: %s\n", name);

    cl_context_properties props[] = { CL_CONTEXT_PLATFORM, (cl_context_properties)platform, 0 };
    cl_context context = clCreateContext(props, 1, &device, NULL, NULL, &err);
    CHECK(err);
    cl_command_queue queue = clCreateCommandQueueWithProperties(context, device, NULL, &err);
    CHECK(err);

    size_t len = strlen(source);
    cl_program program = clCreateProgramWithSource(context, 1, &source, &len, &err);
    CHECK(err);
    err = clBuildProgram(program, 1, &device, "", NULL, NULL);
    if (err != CL_SUCCESS) {
        size_t log_size = 0;
        clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, NULL, &log_size);
        char *log = calloc(log_size + 1, 1);
        clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, log_size, log, NULL);
        fprintf(stderr, "build failed (%d):\n%s\n", err, log);
        free(log);
        puts("FAIL");
        return 1;
    }
    cl_kernel kernel = clCreateKernel(program, "vecadd", &err);
    CHECK(err);

    float *a = malloc(n * sizeof(float));
    float *b = malloc(n * sizeof(float));
    float *c = malloc(n * sizeof(float));
    for (cl_uint i = 0; i < n; ++i) {
        a[i] = (float)i * 0.5f;
        b[i] = (float)(n - i) * 0.25f;
        c[i] = -1.0f;
    }
    cl_mem da = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof(float), a, &err);
    CHECK(err);
    cl_mem db = clCreateBuffer(context, CL_MEM_READ_ONLY, n * sizeof(float), NULL, &err);
    CHECK(err);
    cl_mem dc = clCreateBuffer(context, CL_MEM_WRITE_ONLY, n * sizeof(float), NULL, &err);
    CHECK(err);
    CHECK(clEnqueueWriteBuffer(queue, db, CL_FALSE, 0, n * sizeof(float), b, 0, NULL, NULL));

    CHECK(clSetKernelArg(kernel, 0, sizeof(cl_mem), &da));
    CHECK(clSetKernelArg(kernel, 1, sizeof(cl_mem), &db));
    CHECK(clSetKernelArg(kernel, 2, sizeof(cl_mem), &dc));
    CHECK(clSetKernelArg(kernel, 3, sizeof(cl_uint), &n));
    /* The usual pattern: a global size rounded up to the work-group size,
     * the kernel guarding against the tail. */
    size_t local = 64;
    size_t global = (n + local - 1) / local * local;
    cl_event done;
    CHECK(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, &local, 0, NULL, &done));
    CHECK(clEnqueueReadBuffer(queue, dc, CL_TRUE, 0, n * sizeof(float), c, 1, &done, NULL));
    cl_int exec_status = 1;
    CHECK(clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof exec_status, &exec_status, NULL));
    if (exec_status != CL_COMPLETE) {
        fprintf(stderr, "kernel event status %d after a blocking read that waited on it\n", exec_status);
        puts("FAIL");
        return 1;
    }

    cl_uint bad = 0;
    for (cl_uint i = 0; i < n; ++i) {
        float want = a[i] + b[i];
        if (c[i] != want) {
            if (bad < 5)
                fprintf(stderr, "c[%u] = %g, want %g\n", i, c[i], want);
            ++bad;
        }
    }

    CHECK(clReleaseEvent(done));
    CHECK(clReleaseMemObject(da));
    CHECK(clReleaseMemObject(db));
    CHECK(clReleaseMemObject(dc));
    CHECK(clReleaseKernel(kernel));
    CHECK(clReleaseProgram(program));
    CHECK(clReleaseCommandQueue(queue));
    CHECK(clReleaseContext(context));
    free(a);
    free(b);
    free(c);

    if (bad != 0) {
        fprintf(stderr, "%u of %u results wrong\n", bad, n);
        puts("FAIL");
        return 1;
    }
    puts("PASS");
    return 0;
}
