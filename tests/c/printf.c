/* printf from a kernel: each work-item prints one line; the host checks
 * nothing itself (the order of lines between work-items is unspecified) and
 * the test harness compares the sorted lines. Prints PASS at the end when
 * every OpenCL call succeeded. */
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
    "__kernel void report(__global const float *v) {\n"
    "    int i = get_global_id(0);\n"
    "    int2 pair = (int2)(i, -i);\n"
    "    printf(\"line %d: %5.2f %#x %s %c %v2d %ld\\n\", i, v[i], i * 16, \"ok\", 'A' + i,\n"
    "           pair, (long)i * 10000000000L);\n"
    "}\n";

int main(void) {
    cl_int err;
    cl_platform_id platform;
    cl_device_id device;
    CHECK(clGetPlatformIDs(1, &platform, NULL));
    CHECK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL));
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    CHECK(err);
    cl_command_queue queue = clCreateCommandQueueWithProperties(context, device, NULL, &err);
    CHECK(err);
    size_t len = strlen(source);
    cl_program program = clCreateProgramWithSource(context, 1, &source, &len, &err);
    CHECK(err);
    err = clBuildProgram(program, 1, &device, "", NULL, NULL);
    if (err != CL_SUCCESS) {
        char log[4096] = { 0 };
        clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
        fprintf(stderr, "build failed (%d):\n%s\n", err, log);
        puts("FAIL");
        return 1;
    }
    cl_kernel kernel = clCreateKernel(program, "report", &err);
    CHECK(err);
    float values[8];
    for (int i = 0; i < 8; ++i)
        values[i] = (float)i * 1.25f - 2.0f;
    cl_mem buffer = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof values, values, &err);
    CHECK(err);
    CHECK(clSetKernelArg(kernel, 0, sizeof buffer, &buffer));
    size_t global = 8;
    CHECK(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL));
    CHECK(clFinish(queue));
    /* The kernel's output must be complete once clFinish returns. */
    fflush(stdout);
    CHECK(clReleaseMemObject(buffer));
    CHECK(clReleaseKernel(kernel));
    CHECK(clReleaseProgram(program));
    CHECK(clReleaseCommandQueue(queue));
    CHECK(clReleaseContext(context));
    puts("PASS");
    return 0;
}
