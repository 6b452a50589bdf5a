#!/usr/bin/env bash
# The whole test suite: compiler, backend, runtime, the C API through the
# ocl-icd loader, clinfo, and 30+ kernels compared with host references, all
# under the Khronos validation layer (any validation message fails a test).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
ferrocl_install_deps
export FERROCL_VALIDATION=1
# The C-program, clinfo and kernel tests load target/debug/libferrocl.so,
# which `cargo test` does not relink: build it first.
cargo build --workspace
# Two kernels at a time keep lavapipe's threads from fighting each other on
# small machines; the tests themselves are independent.
cargo test --workspace --no-fail-fast -- --test-threads="${FERROCL_TEST_THREADS:-2}"
# Contexts with two devices: the platform lists the one Vulkan device
# twice, each replica with its own VkDevice and memory, so that migration
# between devices runs here too (the run above skips those parts).
FERROCL_DEVICE_REPLICAS=2 cargo test -p ferrocl-icd --test multi_device
# OpenCV's OpenCL path against its CPU path (tools/opencv_tapi_check.py):
# about a hundred operations through the ocl-icd loader, each counted only
# if it launched a kernel (the launch trace of tools/cl_profile_layer.c)
# and no program failed to build; a validation message fails it too.
ferrocl_install_deps "${FERROCL_TEST_PACKAGES[@]}"
opencv=$(mktemp -d)
trap 'rm -rf "$opencv"' EXIT
cc -O2 -shared -fPIC -o "$opencv/libcl_profile_layer.so" tools/cl_profile_layer.c -lpthread
echo "$PWD/target/debug/libferrocl.so" > "$opencv/ferrocl.icd"
OCL_ICD_VENDORS="$opencv" OPENCV_OPENCL_DEVICE="ferrocl::" \
    OPENCL_LAYERS="$opencv/libcl_profile_layer.so" CL_PROFILE_TRACE=1 \
    CL_PROFILE_OUT="$opencv/trace.txt" \
    /usr/bin/python3 tools/opencv_tapi_check.py --trace "$opencv/trace.txt" 2>&1 |
    tee "$opencv/check.log"
if grep -q "ferrocl: vulkan validation" "$opencv/check.log"; then
    echo "ferrocl: the OpenCV check raised validation messages" >&2
    exit 1
fi
