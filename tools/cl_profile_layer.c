/*
 * An OpenCL loader layer that times every kernel launch and buffer
 * transfer of an application on the device, on any platform: ferrocl,
 * NVIDIA's OpenCL, PoCL. It turns on profiling for each command queue,
 * keeps an event for each command, and when the queue is released (or
 * the process exits) prints, per kernel name and per transfer kind, the
 * count, the device time from CL_PROFILING_COMMAND_START to _END and the
 * mean wait from _QUEUED to _START, then how long the device was busy and
 * idle between the first command's start and the last one's end.
 *
 * Both ICD loaders load layers named in OPENCL_LAYERS (the Khronos
 * loader, and ocl-icd from 2.3.0):
 *
 *     cc -O2 -shared -fPIC -o libcl_profile_layer.so \
 *         tools/cl_profile_layer.c -lpthread
 *     OPENCL_LAYERS=$PWD/libcl_profile_layer.so hashcat -b -m 500
 *
 * The report goes to stderr, or to the file named by CL_PROFILE_OUT
 * (appended). An event the application asked for is shared (retained),
 * one it did not ask for is made and released here, so the application
 * sees the calls it made. docs/performance.md says what it was used for.
 *
 * With CL_PROFILE_TRACE set it also writes, as they happen, each buffer
 * created (flags and size), each kernel launch (name, global and local
 * sizes, offset), each kernel created and when each clBuildProgram starts
 * and ends, each after the wall-clock time in seconds, to the same
 * place as the report: where an application's launches or buffers differ
 * between platforms, this shows it.
 *
 * With CL_PROFILE_BINARIES=DIR it also writes the binary of every program
 * that clBuildProgram or clLinkProgram made, one file per device, named
 * after a counter and the program's first kernel: NVIDIA's OpenCL gives
 * PTX, which `ptxas` and `cuobjdump -sass` turn into machine code, so an
 * application's kernels (hashcat's, built with its own options) can be
 * read as NVIDIA runs them.
 */

/* dladdr and RTLD_NODELETE */
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl_layer.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The next layer's (or the ICD's) entry points, and this layer's. */
static cl_icd_dispatch next;
static cl_icd_dispatch layer;

/* One command whose timestamps are not read yet. */
struct pending {
    cl_event event;
    int label;
};

/* What was measured of one label (a kernel name or a transfer kind). */
struct stat {
    char name[96];
    uint64_t count, total_ns, min_ns, max_ns;
    /* From CL_PROFILING_COMMAND_QUEUED to _START: how long the command
     * waited for the device (earlier commands, submission). */
    uint64_t wait_ns;
};

static void trace(const char *fmt, ...);
static void trace_sizes(char *buf, size_t cap, cl_uint n, const size_t *what);

/* A command's interval on the device, for the busy and idle figures. */
struct span {
    cl_ulong start, end;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct pending *pending;
static size_t pending_len, pending_cap;
static struct stat *stats;
static size_t stats_len, stats_cap;
static struct span *spans;
static size_t spans_len, spans_cap;
static uint64_t unreadable;

/* Reads timestamps once this many commands wait, completed or not. */
enum { HARVEST_AT = 4096 };

static void *grow(void *p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return p;
    size_t n = *cap ? *cap * 2 : 256;
    while (n < need)
        n *= 2;
    void *q = realloc(p, n * size);
    if (!q)
        return NULL;
    *cap = n;
    return q;
}

/* The index of `name` among the labels, added if new; -1 if out of memory. */
static int label_of(const char *name)
{
    for (size_t i = 0; i < stats_len; i++)
        if (strcmp(stats[i].name, name) == 0)
            return (int)i;
    struct stat *s = grow(stats, &stats_cap, stats_len + 1, sizeof *stats);
    if (!s)
        return -1;
    stats = s;
    struct stat *n = &stats[stats_len];
    memset(n, 0, sizeof *n);
    snprintf(n->name, sizeof n->name, "%s", name);
    n->min_ns = UINT64_MAX;
    return (int)stats_len++;
}

/* Reads the timestamps of the first `upto` pending commands, waiting for
 * them, and forgets them. Called with the lock held. */
static void harvest(size_t upto)
{
    for (size_t i = 0; i < upto; i++) {
        struct pending *p = &pending[i];
        cl_ulong queued = 0, start = 0, end = 0;
        if (next.clWaitForEvents(1, &p->event) != CL_SUCCESS
            || next.clGetEventProfilingInfo(p->event, CL_PROFILING_COMMAND_QUEUED,
                                            sizeof queued, &queued, NULL) != CL_SUCCESS
            || next.clGetEventProfilingInfo(p->event, CL_PROFILING_COMMAND_START,
                                            sizeof start, &start, NULL) != CL_SUCCESS
            || next.clGetEventProfilingInfo(p->event, CL_PROFILING_COMMAND_END,
                                            sizeof end, &end, NULL) != CL_SUCCESS
            || end < start) {
            unreadable++;
        } else {
            struct stat *s = &stats[p->label];
            uint64_t ns = end - start;
            s->count++;
            s->total_ns += ns;
            s->wait_ns += start > queued ? start - queued : 0;
            s->min_ns = ns < s->min_ns ? ns : s->min_ns;
            s->max_ns = ns > s->max_ns ? ns : s->max_ns;
            struct span *sp = grow(spans, &spans_cap, spans_len + 1, sizeof *spans);
            if (sp) {
                spans = sp;
                spans[spans_len++] = (struct span){start, end};
            }
        }
        next.clReleaseEvent(p->event);
    }
    memmove(pending, pending + upto, (pending_len - upto) * sizeof *pending);
    pending_len -= upto;
}

/* Keeps `event` (the application's, retained, or one made here) under
 * `name`. */
static void record(cl_event event, const char *name, int app_owns)
{
    pthread_mutex_lock(&lock);
    int label = label_of(name);
    struct pending *p = grow(pending, &pending_cap, pending_len + 1, sizeof *pending);
    if (label < 0 || !p) {
        pthread_mutex_unlock(&lock);
        if (!app_owns)
            next.clReleaseEvent(event);
        return;
    }
    pending = p;
    if (app_owns)
        next.clRetainEvent(event);
    pending[pending_len++] = (struct pending){event, label};
    if (pending_len >= HARVEST_AT)
        harvest(pending_len / 2);
    pthread_mutex_unlock(&lock);
}

static int by_start(const void *a, const void *b)
{
    const struct span *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

static int by_total(const void *a, const void *b)
{
    const struct stat *x = a, *y = b;
    return x->total_ns < y->total_ns ? 1 : x->total_ns > y->total_ns ? -1 : 0;
}

/* Prints what was measured since the last report, then starts afresh. */
static void report(const char *why)
{
    pthread_mutex_lock(&lock);
    harvest(pending_len);
    if (spans_len == 0) {
        pthread_mutex_unlock(&lock);
        return;
    }
    qsort(spans, spans_len, sizeof *spans, by_start);
    cl_ulong first = spans[0].start, last = 0, busy = 0, cover = 0;
    for (size_t i = 0; i < spans_len; i++) {
        /* The union of the intervals: overlapping commands count once. */
        cl_ulong s = spans[i].start > cover ? spans[i].start : cover;
        if (spans[i].end > s)
            busy += spans[i].end - s;
        if (spans[i].end > cover)
            cover = spans[i].end;
        if (spans[i].end > last)
            last = spans[i].end;
    }
    qsort(stats, stats_len, sizeof *stats, by_total);
    const char *path = getenv("CL_PROFILE_OUT");
    FILE *out = path ? fopen(path, "a") : NULL;
    FILE *f = out ? out : stderr;
    fprintf(f, "cl_profile_layer (%s): %.3f ms from the first command's start to the last one's end, "
               "device busy %.3f ms, idle %.3f ms\n",
            why, (last - first) / 1e6, busy / 1e6, (last - first - busy) / 1e6);
    fprintf(f, "%-40s %8s %12s %10s %10s %10s %12s\n", "command", "count", "total ms",
            "mean us", "min us", "max us", "mean wait us");
    for (size_t i = 0; i < stats_len; i++) {
        struct stat *s = &stats[i];
        if (s->count == 0)
            continue;
        fprintf(f, "%-40s %8llu %12.3f %10.2f %10.2f %10.2f %12.2f\n", s->name,
                (unsigned long long)s->count, s->total_ns / 1e6,
                s->total_ns / 1e3 / s->count, s->min_ns / 1e3, s->max_ns / 1e3,
                s->wait_ns / 1e3 / s->count);
    }
    if (unreadable)
        fprintf(f, "%llu commands without timestamps\n", (unsigned long long)unreadable);
    if (out)
        fclose(out);
    stats_len = 0;
    spans_len = 0;
    unreadable = 0;
    pthread_mutex_unlock(&lock);
}

static cl_command_queue CL_API_CALL
create_queue(cl_context context, cl_device_id device, cl_command_queue_properties props,
             cl_int *err)
{
    return next.clCreateCommandQueue(context, device, props | CL_QUEUE_PROFILING_ENABLE, err);
}

static cl_command_queue CL_API_CALL
create_queue_with_properties(cl_context context, cl_device_id device,
                             const cl_queue_properties *props, cl_int *err)
{
    /* A copy of the list with CL_QUEUE_PROFILING_ENABLE in its
     * CL_QUEUE_PROPERTIES, which is added if absent. */
    cl_queue_properties list[64];
    size_t n = 0;
    int found = 0;
    for (; props && props[n] != 0 && n + 3 < 64; n += 2) {
        list[n] = props[n];
        list[n + 1] = props[n + 1];
        if (props[n] == CL_QUEUE_PROPERTIES) {
            list[n + 1] |= CL_QUEUE_PROFILING_ENABLE;
            found = 1;
        }
    }
    if (props && props[n] != 0) /* too long to copy: as given */
        return next.clCreateCommandQueueWithProperties(context, device, props, err);
    if (!found) {
        list[n++] = CL_QUEUE_PROPERTIES;
        list[n++] = CL_QUEUE_PROFILING_ENABLE;
    }
    list[n] = 0;
    return next.clCreateCommandQueueWithProperties(context, device, list, err);
}

static cl_int CL_API_CALL release_queue(cl_command_queue queue)
{
    report("queue released");
    return next.clReleaseCommandQueue(queue);
}

static cl_int CL_API_CALL
enqueue_kernel(cl_command_queue queue, cl_kernel kernel, cl_uint dim, const size_t *offset,
               const size_t *global, const size_t *local, cl_uint n, const cl_event *wait,
               cl_event *event)
{
    cl_event own = NULL;
    cl_int err = next.clEnqueueNDRangeKernel(queue, kernel, dim, offset, global, local, n,
                                             wait, event ? event : &own);
    if (err != CL_SUCCESS)
        return err;
    char name[96] = "?";
    next.clGetKernelInfo(kernel, CL_KERNEL_FUNCTION_NAME, sizeof name, name, NULL);
    name[sizeof name - 1] = 0;
    record(event ? *event : own, name, event != NULL);
    char g[96], l[96], o[96];
    trace_sizes(g, sizeof g, dim, global);
    trace_sizes(l, sizeof l, dim, local);
    trace_sizes(o, sizeof o, dim, offset);
    trace("cl_profile_layer: launch %s global %s local %s offset %s\n", name, g, l, o);
    return err;
}

static cl_int CL_API_CALL
enqueue_read(cl_command_queue queue, cl_mem buffer, cl_bool blocking, size_t offset,
             size_t size, void *ptr, cl_uint n, const cl_event *wait, cl_event *event)
{
    cl_event own = NULL;
    cl_int err = next.clEnqueueReadBuffer(queue, buffer, blocking, offset, size, ptr, n, wait,
                                          event ? event : &own);
    if (err == CL_SUCCESS)
        record(event ? *event : own, "(read buffer)", event != NULL);
    return err;
}

static cl_int CL_API_CALL
enqueue_write(cl_command_queue queue, cl_mem buffer, cl_bool blocking, size_t offset,
              size_t size, const void *ptr, cl_uint n, const cl_event *wait, cl_event *event)
{
    cl_event own = NULL;
    cl_int err = next.clEnqueueWriteBuffer(queue, buffer, blocking, offset, size, ptr, n,
                                           wait, event ? event : &own);
    if (err == CL_SUCCESS)
        record(event ? *event : own, "(write buffer)", event != NULL);
    return err;
}

static cl_int CL_API_CALL
enqueue_copy(cl_command_queue queue, cl_mem src, cl_mem dst, size_t src_offset,
             size_t dst_offset, size_t size, cl_uint n, const cl_event *wait, cl_event *event)
{
    cl_event own = NULL;
    cl_int err = next.clEnqueueCopyBuffer(queue, src, dst, src_offset, dst_offset, size, n,
                                          wait, event ? event : &own);
    if (err == CL_SUCCESS)
        record(event ? *event : own, "(copy buffer)", event != NULL);
    return err;
}

static cl_int CL_API_CALL
enqueue_fill(cl_command_queue queue, cl_mem buffer, const void *pattern, size_t pattern_size,
             size_t offset, size_t size, cl_uint n, const cl_event *wait, cl_event *event)
{
    cl_event own = NULL;
    cl_int err = next.clEnqueueFillBuffer(queue, buffer, pattern, pattern_size, offset, size,
                                          n, wait, event ? event : &own);
    if (err == CL_SUCCESS)
        record(event ? *event : own, "(fill buffer)", event != NULL);
    return err;
}

/* Writes `program`'s binaries into CL_PROFILE_BINARIES, if it is set. */
static void save_binaries(cl_program program)
{
    static unsigned counter;
    const char *dir = getenv("CL_PROFILE_BINARIES");
    cl_uint devices = 0;
    if (!dir || !program
        || next.clGetProgramInfo(program, CL_PROGRAM_NUM_DEVICES, sizeof devices, &devices,
                                 NULL) != CL_SUCCESS
        || devices == 0)
        return;
    char kernels[256] = "";
    size_t names_len = 0;
    if (next.clGetProgramInfo(program, CL_PROGRAM_KERNEL_NAMES, 0, NULL, &names_len) == CL_SUCCESS
        && names_len > 0) {
        char *names = malloc(names_len);
        if (names
            && next.clGetProgramInfo(program, CL_PROGRAM_KERNEL_NAMES, names_len, names, NULL)
                   == CL_SUCCESS)
            snprintf(kernels, sizeof kernels, "%.*s", (int)strcspn(names, ";"), names);
        free(names);
    }
    size_t *sizes = calloc(devices, sizeof *sizes);
    unsigned char **bins = calloc(devices, sizeof *bins);
    if (!sizes || !bins
        || next.clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, devices * sizeof *sizes, sizes,
                                 NULL) != CL_SUCCESS)
        goto out;
    for (cl_uint d = 0; d < devices; d++)
        if (sizes[d] && !(bins[d] = malloc(sizes[d])))
            goto out;
    if (next.clGetProgramInfo(program, CL_PROGRAM_BINARIES, devices * sizeof *bins, bins, NULL)
        != CL_SUCCESS)
        goto out;
    pthread_mutex_lock(&lock);
    unsigned n = counter++;
    pthread_mutex_unlock(&lock);
    for (cl_uint d = 0; d < devices; d++) {
        if (!sizes[d])
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%04u-%s-%u.bin", dir, n, kernels[0] ? kernels : "program", d);
        FILE *f = fopen(path, "wb");
        if (f) {
            fwrite(bins[d], 1, sizes[d], f);
            fclose(f);
        }
    }
out:
    if (bins)
        for (cl_uint d = 0; d < devices; d++)
            free(bins[d]);
    free(bins);
    free(sizes);
}

static cl_int CL_API_CALL build_program(cl_program program, cl_uint num_devices,
                                        const cl_device_id *device_list, const char *options,
                                        void(CL_CALLBACK *notify)(cl_program, void *),
                                        void *user_data)
{
    trace("cl_profile_layer: build starts\n");
    cl_int err = next.clBuildProgram(program, num_devices, device_list, options, notify, user_data);
    trace("cl_profile_layer: build ends (%d)\n", err);
    /* With a callback the build may still run: its binary is not there yet. */
    if (err == CL_SUCCESS && !notify)
        save_binaries(program);
    return err;
}

static cl_kernel CL_API_CALL create_kernel(cl_program program, const char *name,
                                           cl_int *errcode_ret)
{
    cl_kernel kernel = next.clCreateKernel(program, name, errcode_ret);
    trace("cl_profile_layer: kernel %s%s\n", name ? name : "(null)", kernel ? "" : " failed");
    return kernel;
}

static cl_program CL_API_CALL link_program(cl_context context, cl_uint num_devices,
                                           const cl_device_id *device_list, const char *options,
                                           cl_uint num_inputs, const cl_program *inputs,
                                           void(CL_CALLBACK *notify)(cl_program, void *),
                                           void *user_data, cl_int *errcode_ret)
{
    cl_int err = CL_SUCCESS;
    cl_program program = next.clLinkProgram(context, num_devices, device_list, options,
                                            num_inputs, inputs, notify, user_data, &err);
    if (errcode_ret)
        *errcode_ret = err;
    if (err == CL_SUCCESS && !notify)
        save_binaries(program);
    return program;
}

/* Appends one line to the report's destination, if CL_PROFILE_TRACE is
 * set, after the wall-clock time in seconds (so that the lines can be
 * lined up with samples taken outside the process, e.g. nvidia-smi's). */
static void trace(const char *fmt, ...)
{
    static int on = -1;
    if (on < 0)
        on = getenv("CL_PROFILE_TRACE") != NULL;
    if (!on)
        return;
    const char *path = getenv("CL_PROFILE_OUT");
    FILE *out = path ? fopen(path, "a") : NULL;
    FILE *f = out ? out : stderr;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    fprintf(f, "%lld.%03ld ", (long long)now.tv_sec, now.tv_nsec / 1000000);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    if (out)
        fclose(out);
}

/* Writes `n` sizes of `what` for the trace ("-" where there are none). */
static void trace_sizes(char *buf, size_t cap, cl_uint n, const size_t *what)
{
    size_t at = 0;
    buf[0] = 0;
    if (!what) {
        snprintf(buf, cap, "-");
        return;
    }
    for (cl_uint i = 0; i < n && at < cap; i++)
        at += snprintf(buf + at, cap - at, i ? "x%zu" : "%zu", what[i]);
}

static cl_mem CL_API_CALL create_buffer(cl_context context, cl_mem_flags flags, size_t size,
                                        void *host, cl_int *err)
{
    cl_mem m = next.clCreateBuffer(context, flags, size, host, err);
    trace("cl_profile_layer: buffer flags 0x%llx size %zu%s\n", (unsigned long long)flags, size,
          m ? "" : " (failed)");
    return m;
}

static void at_exit(void)
{
    report("exit");
}

CL_API_ENTRY cl_int CL_API_CALL
clGetLayerInfo(cl_layer_info name, size_t size, void *value, size_t *size_ret)
{
    static const char layer_name[] = "cl_profile_layer";
    const void *src;
    size_t len;
    cl_layer_api_version version = CL_LAYER_API_VERSION_100;
    switch (name) {
    case CL_LAYER_API_VERSION:
        src = &version;
        len = sizeof version;
        break;
    case CL_LAYER_NAME:
        src = layer_name;
        len = sizeof layer_name;
        break;
    default:
        return CL_INVALID_VALUE;
    }
    if (value && size < len)
        return CL_INVALID_VALUE;
    if (value)
        memcpy(value, src, len);
    if (size_ret)
        *size_ret = len;
    return CL_SUCCESS;
}

/*
 * The report at exit calls through `next`, into the loader (or the next
 * layer). An application may unload the loader before it exits: hashcat
 * dlcloses libOpenCL.so.1 and, when it skipped a device, leaves its queue
 * unreleased, so the exit report would jump into unmapped code. Marking
 * the library behind `next` RTLD_NODELETE keeps it mapped until exit.
 */
static void pin_next(void)
{
    Dl_info info;
    if (next.clGetEventProfilingInfo &&
        dladdr((void *)next.clGetEventProfilingInfo, &info) && info.dli_fname)
        dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
}

CL_API_ENTRY cl_int CL_API_CALL
clInitLayer(cl_uint num_entries, const cl_icd_dispatch *target, cl_uint *num_entries_ret,
            const cl_icd_dispatch **layer_ret)
{
    const cl_uint entries = sizeof(cl_icd_dispatch) / sizeof(void *);
    if (!target || !num_entries_ret || !layer_ret)
        return CL_INVALID_VALUE;
    /* A shorter table than this header's leaves the rest unset. */
    memset(&next, 0, sizeof next);
    memcpy(&next, target, (num_entries < entries ? num_entries : entries) * sizeof(void *));
    pin_next();
    layer = next;
    layer.clCreateCommandQueue = create_queue;
    layer.clCreateCommandQueueWithProperties = create_queue_with_properties;
    layer.clReleaseCommandQueue = release_queue;
    layer.clEnqueueNDRangeKernel = enqueue_kernel;
    layer.clCreateBuffer = create_buffer;
    layer.clEnqueueReadBuffer = enqueue_read;
    layer.clEnqueueWriteBuffer = enqueue_write;
    layer.clEnqueueCopyBuffer = enqueue_copy;
    layer.clEnqueueFillBuffer = enqueue_fill;
    layer.clBuildProgram = build_program;
    layer.clCreateKernel = create_kernel;
    layer.clLinkProgram = link_program;
    atexit(at_exit);
    *num_entries_ret = entries;
    *layer_ret = &layer;
    return CL_SUCCESS;
}
