#!/usr/bin/env bash
# Runs ffmpeg's OpenCL filters on ferrocl and on PoCL (a second OpenCL
# implementation, installed here if missing) and compares the frames bit for
# bit. Prints one table row per filter: identical, or how many bytes differ
# and by how much at most.
#
#   scripts/ffmpeg-compare.sh [path/to/libferrocl.so]
#
# ONLY=regex runs the filters whose name matches; FRAMES and SIZE set the
# input.
# Not part of the test suite: it needs root for apt-get, and PoCL's own
# compiler (LLVM) takes a while per kernel.
set -euo pipefail

lib=$(realpath "${1:-target/debug/libferrocl.so}")
frames=${FRAMES:-3}
size=${SIZE:-128x96}

need() { command -v "$1" >/dev/null 2>&1; }
if ! need ffmpeg || ! need clinfo || ! ls /usr/lib/x86_64-linux-gnu/libpocl.so.2* >/dev/null 2>&1; then
    apt-get install -y ffmpeg clinfo pocl-opencl-icd >/dev/null
fi
[ -f "$lib" ] || { echo "no ferrocl library at $lib" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The loader reads only this directory, so exactly these two platforms exist
# whatever else is installed.
mkdir "$work/vendors"
cp "$lib" "$work/libferrocl.so"
echo "$work/libferrocl.so" >"$work/vendors/ferrocl.icd"
pocl=$(basename "$(ls /usr/lib/x86_64-linux-gnu/libpocl.so.2* | head -1)")
echo "$pocl" >"$work/vendors/pocl.icd"
export OCL_ICD_VENDORS=$work/vendors

# Platform indices as the loader numbers them (its order follows the
# directory listing, which is not sorted).
platform_index() {
    clinfo -l | awk -v want="$1" '/^Platform #/ { sub(/:$/, "", $2); idx = substr($2, 2) }
        /^Platform #/ && index($0, want) { print idx; exit }'
}
p_ferrocl=$(platform_index ferrocl)
p_pocl=$(platform_index "Portable Computing Language")
[ -n "$p_ferrocl" ] && [ -n "$p_pocl" ] || { clinfo -l; echo "both platforms must be listed" >&2; exit 1; }

# A custom kernel for program_opencl: mirrors each plane horizontally and
# darkens it, with a sampler read and a write.
cat >"$work/mirror.cl" <<'EOF'
__kernel void mirror(__write_only image2d_t dst, unsigned int index,
                     __read_only image2d_t src) {
    const sampler_t s = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE |
                        CLK_FILTER_NEAREST;
    int2 p = (int2)(get_global_id(0), get_global_id(1));
    int2 size = get_image_dim(dst);
    float4 v = read_imagef(src, s, (int2)(size.x - 1 - p.x, p.y));
    write_imagef(dst, p, v * 0.75f);
}
EOF

src="testsrc=size=$size:rate=5"
src2="testsrc2=size=$size:rate=5"
bars="smptebars=size=$size:rate=5"
up="hwupload"
down="hwdownload"
# name | filter graph (sources inside it) | output pixel format
cases=(
    "avgblur_opencl|$src,format=yuv420p,$up,avgblur_opencl=sizeX=3:sizeY=2,$down|yuv420p"
    "boxblur_opencl|$src2,format=yuv420p,$up,boxblur_opencl=luma_radius=3:chroma_radius=1,$down|yuv420p"
    "convolution_opencl (sharpen)|$src,format=yuv420p,$up,convolution_opencl=0m='0 -1 0 -1 5 -1 0 -1 0':1m='0 -1 0 -1 5 -1 0 -1 0':2m='0 -1 0 -1 5 -1 0 -1 0',$down|yuv420p"
    "convolution_opencl (5x5 blur)|$bars,format=yuv420p,$up,convolution_opencl=0m='1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1':0rdiv=1/25,$down|yuv420p"
    "sobel_opencl|$src,format=yuv420p,$up,sobel_opencl=scale=2:delta=8,$down|yuv420p"
    "prewitt_opencl|$src2,format=yuv420p,$up,prewitt_opencl,$down|yuv420p"
    "roberts_opencl|$src,format=yuv420p,$up,roberts_opencl=scale=1.5,$down|yuv420p"
    "dilation_opencl|$src,format=yuv420p,$up,dilation_opencl=threshold0=40,$down|yuv420p"
    "erosion_opencl|$src2,format=yuv420p,$up,erosion_opencl,$down|yuv420p"
    "overlay_opencl|$src,format=yuv420p,$up[a];$bars,scale=64:48,format=yuv420p,$up[b];[a][b]overlay_opencl=x=24:y=16,$down|yuv420p"
    "colorkey_opencl (rgba)|$src,format=rgba,$up,colorkey_opencl=color=0x00ff00:similarity=0.4:blend=0.2,$down|rgba"
    "unsharp_opencl|$src2,format=yuv420p,$up,unsharp_opencl=lx=5:ly=5:la=1.0:cx=3:cy=3:ca=-0.5,$down|yuv420p"
    "nlmeans_opencl|$src2,format=yuv420p,noise=alls=12:allf=t,$up,nlmeans_opencl=s=4:p=3:r=7,$down|yuv420p"
    "tonemap_opencl (p010 PQ → nv12)|$bars,format=p010,setparams=color_primaries=bt2020:color_trc=smpte2084:colorspace=bt2020nc:range=tv,$up,tonemap_opencl=tonemap=hable:format=nv12:t=bt709:m=bt709:p=bt709,$down|nv12"
    "transpose_opencl|$src,format=yuv420p,$up,transpose_opencl=dir=clock,$down|yuv420p"
    "pad_opencl|$bars,format=yuv420p,$up,pad_opencl=w=iw+32:h=ih+24:x=16:y=12:color=violet,$down|yuv420p"
    "deshake_opencl (rgba)|$src2,format=rgba,$up,deshake_opencl,$down|rgba"
    "deshake_opencl (noisy yuv420p)|$src2,noise=alls=40:all_seed=7,format=yuv420p,$up,deshake_opencl,$down|yuv420p"
    "xfade_opencl (fade)|$src,format=yuv420p,$up[a];$src2,format=yuv420p,$up[b];[a][b]xfade_opencl=transition=fade:duration=0.4:offset=0.2,$down|yuv420p"
    "program_opencl (custom kernel)|$src,format=yuv420p,$up,program_opencl=source=$work/mirror.cl:kernel=mirror,$down|yuv420p"
)

# ffmpeg exits 0 when a filter fails on the first frame, so an empty output
# is a failure too.
run_one() { # platform graph pixfmt out
    ffmpeg -hide_banner -loglevel error -nostdin -y \
        -init_hw_device "opencl=ocl:$1.0" -filter_hw_device ocl \
        -filter_complex "$2,format=$3" -frames:v "$frames" -f rawvideo "$4" && [ -s "$4" ]
}

compare() { # a b
    python3 - "$1" "$2" <<'EOF'
import sys
a = open(sys.argv[1], "rb").read()
b = open(sys.argv[2], "rb").read()
if len(a) != len(b):
    print(f"sizes differ ({len(a)} vs {len(b)} bytes)")
    sys.exit()
diff = [abs(x - y) for x, y in zip(a, b) if x != y]
if not diff:
    print("identical")
else:
    hist = {}
    for d in diff:
        hist[d] = hist.get(d, 0) + 1
    top = ", ".join(f"±{d}: {n}" for d, n in sorted(hist.items())[:4])
    print(f"{len(diff)} of {len(a)} bytes differ (max {max(diff)}; {top})")
EOF
}

printf '| filter | ferrocl | PoCL | frames (%s, %s) |\n|---|---|---|---|\n' "$size" "$frames"
for c in "${cases[@]}"; do
    IFS='|' read -r name graph fmt <<<"$c"
    [[ "$name" =~ ${ONLY:-.} ]] || continue
    fa="$work/ferrocl.raw" fb="$work/pocl.raw"
    ra=ok rb=ok
    run_one "$p_ferrocl" "$graph" "$fmt" "$fa" 2>"$work/ferrocl.err" || ra="fails: $(head -c 160 "$work/ferrocl.err" | tr '\n|' '  ')"
    run_one "$p_pocl" "$graph" "$fmt" "$fb" 2>"$work/pocl.err" || rb="fails: $(head -c 160 "$work/pocl.err" | tr '\n|' '  ')"
    if [ "$ra" = ok ] && [ "$rb" = ok ]; then
        result=$(compare "$fa" "$fb")
    else
        result="-"
    fi
    printf '| %s | %s | %s | %s |\n' "$name" "$ra" "$rb" "$result"
    rm -f "$fa" "$fb"
done
