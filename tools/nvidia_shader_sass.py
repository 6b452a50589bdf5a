#!/usr/bin/env python3
"""Machine code of the pipelines in NVIDIA's Vulkan shader disk cache.

NVIDIA's driver keeps what it compiles in files under
`__GL_SHADER_DISK_CACHE_PATH` (default ~/.cache/nvidia/GLCache). Each
pipeline there is a zstd frame holding an image that starts with
"NVDANVVM"; a table of 32-byte entries at byte 0x48 gives each section's
type, size and offset (counted from byte 8), and the section of type 1 is
the raw code. This writes each pipeline's code to OUTDIR/<entry>.raw and,
where `nvdisasm` (CUDA toolkit) is on PATH, its listing to <entry>.sass
(`nvdisasm -b SM90`, or the architecture given with --arch). The entry
name comes from the image's strings; its size is the "Binary Size" that
FERROCL_PIPELINE_STATS=1 reports. Needs the `zstd` command.

    tools/nvidia_shader_sass.py OUTDIR $(find /tmp/glc -name '*.bin')

docs/performance.md ("Reading the driver's machine code") says what it
was used for.
"""

import argparse
import os
import re
import shutil
import struct
import subprocess
import sys

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
IMAGE_MAGIC = b"NVDANVVM"
SECTION_TABLE = 0x48
SECTION_ENTRY = 0x20
CODE_SECTION = 1
ENTRY_NAME = re.compile(rb"([A-Za-z_][A-Za-z0-9_]*_[0-9]+)\x00")


def images(data):
    """The decompressed NVDANVVM images of one cache file."""
    at = 0
    while True:
        at = data.find(ZSTD_MAGIC, at)
        if at < 0:
            return
        out = subprocess.run(
            ["zstd", "-d", "-c", "--no-check"], input=data[at:], capture_output=True
        ).stdout
        at += len(ZSTD_MAGIC)
        if out.startswith(IMAGE_MAGIC):
            yield out


def code_of(image):
    """The bytes of the image's code section, or None."""
    count = struct.unpack_from("<I", image, 0x28)[0]
    for i in range(count + 8):
        at = SECTION_TABLE + SECTION_ENTRY * i
        if at + 12 > len(image):
            break
        kind, size, offset = struct.unpack_from("<III", image, at)
        if kind == CODE_SECTION and size and offset:
            return image[offset + 8 : offset + 8 + size]
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outdir")
    parser.add_argument("files", nargs="+")
    parser.add_argument("--arch", default="SM90")
    args = parser.parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    nvdisasm = shutil.which("nvdisasm")
    for path in args.files:
        with open(path, "rb") as f:
            data = f.read()
        for image in images(data):
            code = code_of(image)
            if not code:
                continue
            m = ENTRY_NAME.search(image, 0x170)
            base = m.group(1).decode() if m else "unknown"
            name, n = base, 0
            while os.path.exists(os.path.join(args.outdir, name + ".raw")):
                n += 1
                name = f"{base}.{n}"
            raw = os.path.join(args.outdir, name + ".raw")
            with open(raw, "wb") as f:
                f.write(code)
            if nvdisasm:
                with open(os.path.join(args.outdir, name + ".sass"), "w") as f:
                    subprocess.run([nvdisasm, "-b", args.arch, raw], stdout=f, check=False)
            print(name, len(code))
    return 0


if __name__ == "__main__":
    sys.exit(main())
