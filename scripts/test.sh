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
