#!/usr/bin/env bash
# The main job: build libferrocl.so and the ferrocl command, then run real
# OpenCL work through the system's OpenCL loader on the best Vulkan device
# (lavapipe when the machine has no GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
ferrocl_install_deps
cargo build --release -p ferrocl-icd -p ferrocl-cli
exec target/release/ferrocl demo "$@"
