#!/usr/bin/env bash
# Installs the Debian 12 packages ferrocl needs to build, test and run, when
# they are missing. Sourced by demo.sh and test.sh.
set -euo pipefail

FERROCL_PACKAGES=(
    libvulkan1              # the Vulkan loader, opened at run time
    mesa-vulkan-drivers     # lavapipe: a Vulkan device on any CPU
    vulkan-validationlayers # the tests fail on any validation message
    ocl-icd-libopencl1      # the OpenCL ICD loader (libOpenCL.so.1)
    ocl-icd-opencl-dev      # libOpenCL.so for linking the C tests
    opencl-headers          # CL/cl.h for the C tests
    clinfo                  # the clinfo test
    spirv-tools             # spirv-val for the compiler tests
    gcc                     # builds the C tests
)

# What the tests need besides: OpenCV's Python module, whose OpenCL path
# scripts/test.sh checks against its CPU path (tools/opencv_tapi_check.py).
FERROCL_TEST_PACKAGES=(
    python3-opencv
)

# The packages named (default: FERROCL_PACKAGES) that are not installed.
ferrocl_missing_packages() {
    local missing=()
    local wanted=("$@")
    [ ${#wanted[@]} -eq 0 ] && wanted=("${FERROCL_PACKAGES[@]}")
    for p in "${wanted[@]}"; do
        if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
            missing+=("$p")
        fi
    done
    echo "${missing[@]:-}"
}

# Installs the packages named (default: FERROCL_PACKAGES) that are missing.
ferrocl_install_deps() {
    local wanted=("$@")
    [ ${#wanted[@]} -eq 0 ] && wanted=("${FERROCL_PACKAGES[@]}")
    if ! command -v dpkg-query >/dev/null 2>&1; then
        echo "ferrocl: this is not a Debian-like system; install the equivalents of: ${wanted[*]}" >&2
        return 0
    fi
    local missing
    missing=$(ferrocl_missing_packages "${wanted[@]}")
    [ -z "$missing" ] && return 0
    echo "ferrocl: installing missing packages: $missing"
    local sudo=""
    if [ "$(id -u)" != 0 ]; then
        if command -v sudo >/dev/null 2>&1; then
            sudo="sudo"
        else
            echo "ferrocl: missing packages ($missing) and not root without sudo." >&2
            echo "ferrocl: as root, run: apt-get update && apt-get install -y $missing" >&2
            exit 1
        fi
    fi
    # shellcheck disable=SC2086
    if ! { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing >/dev/null; }; then
        echo "ferrocl: could not install: $missing" >&2
        echo "ferrocl: install them by hand (apt-get install $missing) and run this again." >&2
        exit 1
    fi
}
