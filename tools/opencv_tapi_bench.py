#!/usr/bin/env python3
"""OpenCV's OpenCL path (the T-API) timed on several OpenCL platforms in
one run, as ratios.

Times the operations of tools/opencv_tapi_check.py on `cv2.UMat`s, each
platform in a process of its own (OpenCV picks its OpenCL device once per
process, by OPENCV_OPENCL_DEVICE), and prints per operation the median
time of each and the first platform's speed against each other one
(their time over its time: above 1 the first is faster). A call is the
operation and `cv2.ocl.finish()`, after three warm-up calls, so program
builds are not timed.

    tools/opencv_tapi_bench.py --device ferrocl:GPU: --device NVIDIA:GPU: \\
        [--size 1920x1080] [--repeats 15] [--json FILE] [NAME ...]

NAME keeps only the operations whose names contain it. The images are
WIDTHxHEIGHT (default 1920x1080; the check's models are not used). The
check, not this, says whether the results are right.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time


def child(names, repeats):
    """Times every operation on the device OPENCV_OPENCL_DEVICE names and
    prints the medians (ms) as JSON."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import cv2

    import opencv_tapi_check as check

    cv2.ocl.setUseOpenCL(True)
    device = cv2.ocl.Device.getDefault()
    times = {}
    for name, fn, data, _, model in check.cases():
        if model is not None or (names and not any(n in name for n in names)):
            continue
        try:
            umat = cv2.UMat(data)
            for _ in range(3):
                fn(umat)
                cv2.ocl.finish()
            samples = []
            for _ in range(repeats):
                start = time.perf_counter()
                fn(umat)
                cv2.ocl.finish()
                samples.append(time.perf_counter() - start)
            times[name] = statistics.median(samples) * 1e3
        except Exception as e:  # OpenCV raises cv2.error and others
            times[name] = f"failed: {e!r}"[:200]
    print(json.dumps({"device": f"{device.name()} ({device.version()})", "ms": times}))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", action="append", required=True,
                        help="an OPENCV_OPENCL_DEVICE value; the first is compared with the others")
    parser.add_argument("--size", default="1920x1080")
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--json")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("names", nargs="*")
    args = parser.parse_args()
    if args.child:
        child(args.names, args.repeats)
        return 0
    results = []
    for device in args.device:
        env = dict(os.environ, OPENCV_OPENCL_DEVICE=device, OPENCV_CHECK_SIZE=args.size)
        command = [sys.executable, os.path.abspath(__file__), "--child", "--device", device,
                   "--repeats", str(args.repeats), *args.names]
        out = subprocess.run(command, env=env, capture_output=True, text=True)
        lines = [l for l in out.stdout.splitlines() if l.startswith("{")]
        if out.returncode != 0 or not lines:
            print(f"{device}: no result (exit {out.returncode})\n{out.stderr[-2000:]}")
            return 1
        results.append(json.loads(lines[-1]))
    for device, r in zip(args.device, results):
        print(f"{device} -> {r['device']}")
    first = results[0]["ms"]
    header = f"{'operation':34}" + "".join(f"{d[:14]:>16}" for d in args.device)
    header += "".join(f"{'vs ' + d[:10]:>16}" for d in args.device[1:])
    print(f"\n{args.size}, median of {args.repeats} calls, ms\n{header}")
    ratios = {d: [] for d in args.device[1:]}
    for name in first:
        cells = [r["ms"].get(name) for r in results]
        row = f"{name:34}" + "".join(
            f"{c:16.3f}" if isinstance(c, float) else f"{'failed':>16}" for c in cells
        )
        for d, c in zip(args.device[1:], cells[1:]):
            if isinstance(c, float) and isinstance(cells[0], float) and cells[0] > 0:
                ratios[d].append(c / cells[0])
                row += f"{c / cells[0]:16.2f}"
            else:
                row += f"{'-':>16}"
        print(row)
    for d, rs in ratios.items():
        if rs:
            geo = statistics.geometric_mean(rs)
            faster = sum(r >= 1 for r in rs)
            print(f"against {d}: geometric mean {geo:.2f}, first faster in {faster} of {len(rs)}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"size": args.size, "repeats": args.repeats,
                       "devices": dict(zip(args.device, results))}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
