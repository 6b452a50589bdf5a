#!/usr/bin/env bash
# Packs what `ferrocl bench` and Debian's clpeak need on a GPU machine
# without Rust or package registries: the release ferrocl command and
# libferrocl.so, the OpenCL loader (ocl-icd) and clpeak as .deb files, and
# run-bench.sh, which runs both on every OpenCL platform there (ferrocl and
# the vendor's own, e.g. NVIDIA's libnvidia-opencl.so.1) and leaves the
# results in $OUT (or ./results).
# Usage: scripts/bench-bundle.sh [OUT_DIR]   (default .device/bench, which
# git ignores). The Vulkan loader comes from the `.gl` carry folder, as for
# the test bundle (.device/h100.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-.device/bench}
rm -rf "$out"
mkdir -p "$out/debs"
cargo build --release -p ferrocl-icd -p ferrocl-cli
cp target/release/libferrocl.so target/release/ferrocl "$out/"
strip --strip-debug "$out/libferrocl.so" "$out/ferrocl"
(
    cd "$out/debs"
    for pkg in clpeak ocl-icd-libopencl1; do
        if ls /work/main/.device/debs/${pkg}_*.deb >/dev/null 2>&1; then
            cp /work/main/.device/debs/${pkg}_*.deb .
        else
            apt-get download "$pkg" >/dev/null
        fi
    done
)
cat > "$out/run-bench.sh" <<'RUN'
#!/usr/bin/env bash
# Runs `ferrocl bench` and clpeak over ferrocl and every other ICD named in
# OTHER_ICDS (default: NVIDIA's). Arguments go to `ferrocl bench`.
set -u
here=$(cd "$(dirname "$0")" && pwd)
results=${OUT:-$here/results}
mkdir -p "$results" /tmp/bench-ocl /tmp/bench-vendors
for d in "$here"/debs/*.deb; do dpkg -x "$d" /tmp/bench-ocl; done
export LD_LIBRARY_PATH=/tmp/bench-ocl/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
echo "$here/libferrocl.so" > /tmp/bench-vendors/ferrocl.icd
list="$here/libferrocl.so"
for icd in ${OTHER_ICDS-libnvidia-opencl.so.1}; do
    echo "$icd" > "/tmp/bench-vendors/$(basename "$icd" .so.1).icd"
    list="$list:$icd"
done
export OCL_ICD_VENDORS=/tmp/bench-vendors OCL_ICD_FILENAMES=$list
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | tee "$results/gpu.txt"
"$here/ferrocl" info 2>&1 | head -20
echo "== ferrocl bench $*"
"$here/ferrocl" bench --json-file "$results/bench.json" "$@" 2>&1 | tee "$results/bench.txt"
echo "ferrocl bench rc=${PIPESTATUS[0]}"
echo "== clpeak"
timeout "${CLPEAK_TIMEOUT:-240}" /tmp/bench-ocl/usr/bin/clpeak 2>&1 | tee "$results/clpeak.txt"
echo "clpeak rc=${PIPESTATUS[0]}"
RUN
chmod +x "$out/run-bench.sh"
du -sh "$out"
