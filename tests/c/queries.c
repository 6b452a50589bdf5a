/* Walks every platform and device and prints the key facts, checking each
 * answer against what the OpenCL specification requires of it. Prints PASS
 * or FAIL and exits non-zero on any failure. */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

#define EXPECT(cond, ...)                                 \
    do {                                                  \
        if (!(cond)) {                                    \
            fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                 \
            fputc('\n', stderr);                          \
            ++failures;                                   \
        }                                                 \
    } while (0)

/* A string query in the two-call form every application uses: size, then
 * contents. The result is malloc'd; NULL on failure. */
static char *platform_string(cl_platform_id platform, cl_platform_info param) {
    size_t size = 0;
    cl_int err = clGetPlatformInfo(platform, param, 0, NULL, &size);
    EXPECT(err == CL_SUCCESS, "clGetPlatformInfo(0x%x) size: %d", (unsigned)param, err);
    if (err != CL_SUCCESS || size == 0)
        return NULL;
    char *s = malloc(size);
    err = clGetPlatformInfo(platform, param, size, s, NULL);
    EXPECT(err == CL_SUCCESS, "clGetPlatformInfo(0x%x): %d", (unsigned)param, err);
    EXPECT(s[size - 1] == '\0', "platform string 0x%x is not NUL-terminated", (unsigned)param);
    return s;
}

static char *device_string(cl_device_id device, cl_device_info param) {
    size_t size = 0;
    cl_int err = clGetDeviceInfo(device, param, 0, NULL, &size);
    EXPECT(err == CL_SUCCESS, "clGetDeviceInfo(0x%x) size: %d", (unsigned)param, err);
    if (err != CL_SUCCESS || size == 0)
        return NULL;
    char *s = malloc(size);
    err = clGetDeviceInfo(device, param, size, s, NULL);
    EXPECT(err == CL_SUCCESS, "clGetDeviceInfo(0x%x): %d", (unsigned)param, err);
    EXPECT(s[size - 1] == '\0', "device string 0x%x is not NUL-terminated", (unsigned)param);
    return s;
}

#define DEVICE_VALUE(device, param, var)                                                        \
    do {                                                                                        \
        size_t got_ = 0;                                                                        \
        cl_int err_ = clGetDeviceInfo(device, param, sizeof(var), &(var), &got_);               \
        EXPECT(err_ == CL_SUCCESS, "clGetDeviceInfo(%s): %d", #param, err_);                    \
        EXPECT(got_ == sizeof(var), "clGetDeviceInfo(%s) size %zu, want %zu", #param, got_, sizeof(var)); \
    } while (0)

int main(void) {
    cl_uint num_platforms = 0;
    EXPECT(clGetPlatformIDs(0, NULL, NULL) == CL_INVALID_VALUE,
           "clGetPlatformIDs(0, NULL, NULL) must be CL_INVALID_VALUE");
    cl_int err = clGetPlatformIDs(0, NULL, &num_platforms);
    if (err != CL_SUCCESS || num_platforms == 0) {
        fprintf(stderr, "clGetPlatformIDs: %d, %u platforms\n", err, num_platforms);
        puts("FAIL");
        return 1;
    }
    cl_platform_id *platforms = malloc(num_platforms * sizeof *platforms);
    EXPECT(clGetPlatformIDs(num_platforms, platforms, NULL) == CL_SUCCESS, "clGetPlatformIDs");

    cl_uint total_devices = 0;
    for (cl_uint p = 0; p < num_platforms; ++p) {
        char *name = platform_string(platforms[p], CL_PLATFORM_NAME);
        char *vendor = platform_string(platforms[p], CL_PLATFORM_VENDOR);
        char *version = platform_string(platforms[p], CL_PLATFORM_VERSION);
        char *profile = platform_string(platforms[p], CL_PLATFORM_PROFILE);
        char *extensions = platform_string(platforms[p], CL_PLATFORM_EXTENSIONS);
        printf("platform %u: %s (%s), %s, %s\n", p, name ? name : "?", vendor ? vendor : "?",
               version ? version : "?", profile ? profile : "?");
        EXPECT(version && strncmp(version, "OpenCL ", 7) == 0, "platform version \"%s\"", version ? version : "");
        EXPECT(profile && (strcmp(profile, "FULL_PROFILE") == 0 || strcmp(profile, "EMBEDDED_PROFILE") == 0),
               "platform profile \"%s\"", profile ? profile : "");
        EXPECT(extensions != NULL, "no platform extension string");
        EXPECT(clGetPlatformInfo(platforms[p], 0xFFFF, 0, NULL, NULL) == CL_INVALID_VALUE,
               "an unknown platform query must be CL_INVALID_VALUE");
        free(name);
        free(vendor);
        free(version);
        free(profile);
        free(extensions);

        cl_uint num_devices = 0;
        err = clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 0, NULL, &num_devices);
        if (err == CL_DEVICE_NOT_FOUND)
            continue;
        EXPECT(err == CL_SUCCESS, "clGetDeviceIDs: %d", err);
        if (err != CL_SUCCESS)
            continue;
        cl_device_id *devices = malloc(num_devices * sizeof *devices);
        EXPECT(clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, num_devices, devices, NULL) == CL_SUCCESS,
               "clGetDeviceIDs");
        for (cl_uint d = 0; d < num_devices; ++d) {
            ++total_devices;
            char *dname = device_string(devices[d], CL_DEVICE_NAME);
            char *dversion = device_string(devices[d], CL_DEVICE_VERSION);
            char *cversion = device_string(devices[d], CL_DEVICE_OPENCL_C_VERSION);
            char *driver = device_string(devices[d], CL_DRIVER_VERSION);
            char *dext = device_string(devices[d], CL_DEVICE_EXTENSIONS);
            cl_device_type type = 0;
            cl_uint units = 0, dims = 0, align_bits = 0;
            cl_ulong global_mem = 0, local_mem = 0, max_alloc = 0;
            size_t wg = 0;
            size_t items[3] = { 0, 0, 0 };
            cl_bool available = CL_FALSE, compiler = CL_FALSE;
            cl_platform_id owner = NULL;
            DEVICE_VALUE(devices[d], CL_DEVICE_TYPE, type);
            DEVICE_VALUE(devices[d], CL_DEVICE_MAX_COMPUTE_UNITS, units);
            DEVICE_VALUE(devices[d], CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, dims);
            DEVICE_VALUE(devices[d], CL_DEVICE_MAX_WORK_GROUP_SIZE, wg);
            DEVICE_VALUE(devices[d], CL_DEVICE_MAX_WORK_ITEM_SIZES, items);
            DEVICE_VALUE(devices[d], CL_DEVICE_GLOBAL_MEM_SIZE, global_mem);
            DEVICE_VALUE(devices[d], CL_DEVICE_LOCAL_MEM_SIZE, local_mem);
            DEVICE_VALUE(devices[d], CL_DEVICE_MAX_MEM_ALLOC_SIZE, max_alloc);
            DEVICE_VALUE(devices[d], CL_DEVICE_MEM_BASE_ADDR_ALIGN, align_bits);
            DEVICE_VALUE(devices[d], CL_DEVICE_AVAILABLE, available);
            DEVICE_VALUE(devices[d], CL_DEVICE_COMPILER_AVAILABLE, compiler);
            DEVICE_VALUE(devices[d], CL_DEVICE_PLATFORM, owner);
            printf("  device %u: %s [%s%s%s], %s, OpenCL C: %s, driver %s\n", d, dname ? dname : "?",
                   (type & CL_DEVICE_TYPE_CPU) ? "CPU" : "", (type & CL_DEVICE_TYPE_GPU) ? "GPU" : "",
                   (type & CL_DEVICE_TYPE_ACCELERATOR) ? "ACCELERATOR" : "", dversion ? dversion : "?",
                   cversion ? cversion : "?", driver ? driver : "?");
            printf("    %u compute units, work-group %zu (%zu x %zu x %zu), global %llu MiB, local %llu KiB, "
                   "max alloc %llu MiB\n",
                   units, wg, items[0], items[1], items[2], (unsigned long long)(global_mem >> 20),
                   (unsigned long long)(local_mem >> 10), (unsigned long long)(max_alloc >> 20));
            EXPECT(dversion && strncmp(dversion, "OpenCL ", 7) == 0, "device version \"%s\"", dversion ? dversion : "");
            EXPECT(cversion && strncmp(cversion, "OpenCL C ", 9) == 0, "OpenCL C version \"%s\"", cversion ? cversion : "");
            EXPECT(dext != NULL, "no device extension string");
            EXPECT(type != 0, "device type is 0");
            EXPECT(units >= 1, "CL_DEVICE_MAX_COMPUTE_UNITS %u", units);
            EXPECT(dims >= 3, "CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS %u (minimum 3)", dims);
            EXPECT(wg >= 1, "CL_DEVICE_MAX_WORK_GROUP_SIZE %zu", wg);
            EXPECT(items[0] >= 1 && items[0] <= wg, "CL_DEVICE_MAX_WORK_ITEM_SIZES[0] %zu", items[0]);
            EXPECT(global_mem > 0, "CL_DEVICE_GLOBAL_MEM_SIZE is 0");
            EXPECT(local_mem >= 1024, "CL_DEVICE_LOCAL_MEM_SIZE %llu", (unsigned long long)local_mem);
            /* At least max(min(1 GiB, 1/4 of global memory), 32 MiB). */
            cl_ulong quarter = global_mem / 4 < (1ull << 30) ? global_mem / 4 : (1ull << 30);
            cl_ulong min_alloc = quarter > (32ull << 20) ? quarter : (32ull << 20);
            EXPECT(max_alloc >= min_alloc,
                   "CL_DEVICE_MAX_MEM_ALLOC_SIZE %llu below the minimum %llu", (unsigned long long)max_alloc,
                   (unsigned long long)min_alloc);
            EXPECT(align_bits >= 8 * sizeof(cl_long16), "CL_DEVICE_MEM_BASE_ADDR_ALIGN %u bits", align_bits);
            EXPECT(available == CL_TRUE, "device not available");
            EXPECT(compiler == CL_TRUE, "no compiler");
            EXPECT(owner == platforms[p], "CL_DEVICE_PLATFORM names another platform");
            EXPECT(clGetDeviceInfo(devices[d], CL_DEVICE_TYPE, 1, &type, NULL) == CL_INVALID_VALUE,
                   "a too-small value buffer must be CL_INVALID_VALUE");
            free(dname);
            free(dversion);
            free(cversion);
            free(driver);
            free(dext);
        }
        free(devices);
    }
    free(platforms);
    EXPECT(total_devices > 0, "no device on any platform");
    if (failures) {
        printf("%d check(s) failed\n", failures);
        puts("FAIL");
        return 1;
    }
    puts("PASS");
    return 0;
}
