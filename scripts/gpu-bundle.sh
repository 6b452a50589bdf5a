#!/usr/bin/env bash
# Packs what the test suite needs to run on a machine without Rust (a GPU
# machine): the test executables, libferrocl.so, the ferrocl command and
# the Khronos headers, laid out as target/<profile>/ so that the tests find
# the library next to them. Usage: scripts/gpu-bundle.sh OUT_DIR
# On the other machine: OUT_DIR/run-tests.sh
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/gpu-bundle.sh OUT_DIR}
rm -rf "$out"
mkdir -p "$out/debug/deps" "$out/include"
cargo build --workspace
cargo test --workspace --no-run --message-format=json 2>/dev/null |
    python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    # The CTS harness tests drive its own binary on fake suites: host-only.
    host_only = "/cts-harness/" in m.get("target", {}).get("src_path", "")
    if m.get("reason") == "compiler-artifact" and m.get("profile", {}).get("test") and m.get("executable") and not host_only:
        print(m["executable"])' |
    while read -r exe; do
        cp "$exe" "$out/debug/deps/"
    done
cp target/debug/libferrocl.so target/debug/ferrocl "$out/debug/"
cp -r /usr/include/CL "$out/include/"
strip --strip-debug "$out"/debug/deps/* "$out"/debug/libferrocl.so "$out"/debug/ferrocl
cat > "$out/run-tests.sh" <<'RUN'
#!/usr/bin/env bash
# Runs every bundled test executable; prints one summary line each.
cd "$(dirname "$0")"
export CPATH="$PWD/include${CPATH:+:$CPATH}"
status=0
for t in debug/deps/*; do
    name=$(basename "$t")
    if "$t" --test-threads="${FERROCL_TEST_THREADS:-4}" >"$name.log" 2>&1; then
        echo "PASS $name: $(grep 'test result' "$name.log" | tail -1)"
    else
        status=1
        echo "FAIL $name: $(grep 'test result' "$name.log" | tail -1)"
        grep -E '^(test .* FAILED|---- )' "$name.log" | head -20
    fi
done
exit $status
RUN
chmod +x "$out/run-tests.sh"
du -sh "$out"
