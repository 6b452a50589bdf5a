#!/usr/bin/env python3
"""OpenCV's OpenCL path (the T-API) on an OpenCL platform, checked against
OpenCV's own CPU path.

Runs about 150 OpenCV operations twice, once on plain arrays with
OpenCL off and once on `cv2.UMat`s with OpenCL on, and compares the
results. OpenCV falls back to its CPU code without a word when an OpenCL
kernel fails to build or launch, so a match alone proves nothing: with
the launch trace of tools/cl_profile_layer.c (built as below and named in
OPENCL_LAYERS, CL_PROFILE_TRACE=1, CL_PROFILE_OUT=FILE) and `--trace FILE`,
an operation counts as passed only if it also launched at least one
kernel and no program failed to build. Needs Debian's python3-opencv
(OpenCV 4.6; the opencv-python wheels of 4.10 run it too).

    cc -O2 -shared -fPIC -o /tmp/libcl_profile_layer.so \\
        tools/cl_profile_layer.c -lpthread
    OCL_ICD_VENDORS=/tmp/vf OPENCV_OPENCL_DEVICE=ferrocl:: \\
    OPENCL_LAYERS=/tmp/libcl_profile_layer.so CL_PROFILE_TRACE=1 \\
    CL_PROFILE_OUT=/tmp/trace.txt \\
        /usr/bin/python3 tools/opencv_tapi_check.py --trace /tmp/trace.txt

(`ferrocl::` picks ferrocl's device of any type: OpenCV takes GPUs
only by default, and ferrocl reports lavapipe as a CPU device.
scripts/test.sh runs it so.) Arguments other than `--trace` keep
only the operations whose names contain one of them. Exit status 1 when
any operation differs, fails, ran no kernel or saw a build fail. docs/conformance.md says
what it found.

Two operations are compared with what OpenCV's OpenCL kernels compute,
not with its CPU code, because the two differ by design: the angle of
`cartToPolar` (the kernel divides by `0.28 y^2 + x^2`, a coarser
approximation than the CPU's), and `resize` to the nearest pixel, whose
kernel scales coordinates in single precision where the CPU code uses
double (at output row 37 of 222 from 480 the float product is 80.0 and
the double one 79.99...).
"""

import os
import sys
import time

import cv2
import numpy as np

cv2.ocl.setUseOpenCL(False)
# The images' size, WIDTHxHEIGHT (tools/opencv_tapi_bench.py asks for
# larger ones).
COLS, ROWS = (int(v) for v in os.environ.get("OPENCV_CHECK_SIZE", "640x480").split("x"))
rng = np.random.default_rng(1)
# Smooth images: on noise, a sampling position that moves by the 1/32 of a
# pixel that OpenCV's interpolation tables resolve changes a pixel by up
# to 8 levels, and the OpenCL kernels place samples in single precision
# where the CPU code uses double, so noise would measure OpenCV's kernels
# rather than the platform.
_noise = rng.random((ROWS, COLS, 3)).astype(np.float32)
_smooth = cv2.GaussianBlur(_noise, (0, 0), 3)
BGR8 = cv2.normalize(_smooth, None, 0, 255, cv2.NORM_MINMAX).astype(np.uint8)
GRAY8 = cv2.cvtColor(BGR8, cv2.COLOR_BGR2GRAY)
F32 = rng.random((ROWS, COLS), dtype=np.float32)
F32C3 = rng.random((ROWS, COLS, 3), dtype=np.float32)
MASK = (rng.random((ROWS, COLS)) > 0.3).astype(np.uint8)
ROTATE = cv2.getRotationMatrix2D((320, 240), 30, 0.8)
PERSPECTIVE = np.array([[1, 0.1, 5], [0.05, 1, 3], [1e-4, 2e-4, 1]], np.float64)
BOX5 = np.ones((5, 5), np.float32) / 25
MAP_X, MAP_Y = np.meshgrid(
    (np.arange(COLS) * 0.97 + 3.3).astype(np.float32),
    (np.arange(ROWS) * 1.01 - 2.7).astype(np.float32),
)
REVERSE = np.arange(255, -1, -1, dtype=np.uint8)
TEMPLATE = GRAY8[100:130, 200:240].copy()
FLIPPED = cv2.flip(GRAY8, 1)
WEIGHTS_A = np.full(GRAY8.shape, 0.3, np.float32)
WEIGHTS_B = np.full(GRAY8.shape, 0.7, np.float32)
# Luma over half-resolution interleaved chroma (NV12), from the gray image.
NV12 = np.vstack([GRAY8, GRAY8[: ROWS // 2]])
SHIFTED = np.roll(GRAY8, (2, 3), axis=(0, 1))
# Three lines on black, for the Hough transforms.
LINES = np.zeros((ROWS, COLS), np.uint8)
LINE_ENDS = [((20, 30), (600, 60)), ((100, 400), (500, 100)), ((320, 10), (330, 470))]
for _p, _q in LINE_ENDS:
    cv2.line(LINES, _p, _q, 255, 1)


# Five noisy frames of the colour image, for the background subtractors.
FRAMES = [
    np.clip(BGR8.astype(np.int16) + rng.integers(-20, 20, BGR8.shape), 0, 255).astype(np.uint8)
    for _ in range(5)
]


def like(a, array):
    """`array` as the kind of input `a` is (a UMat for the OpenCL run)."""
    return cv2.UMat(array) if isinstance(a, cv2.UMat) else array

def within(abs_tol, rel_tol=0.0):
    """Every element within `abs_tol + rel_tol * |expected|`."""

    def check(g, w):
        return bool(np.all(np.abs(g - w) <= abs_tol + rel_tol * np.abs(w)))

    return check


def scaled(rel_tol):
    """Every element within `rel_tol` of the largest expected magnitude:
    the error of a transform spreads over all its outputs."""

    def check(g, w):
        return bool(np.all(np.abs(g - w) <= rel_tol * np.abs(w).max()))

    return check


def similar(rel_tol):
    """The sum of the differences within `rel_tol` of the sum of the
    expected values (the measure OpenCV's own tests use for edge maps,
    where one pixel's rounding moves an edge)."""

    def check(g, w):
        return float(np.abs(g - w).sum()) <= rel_tol * float(np.abs(w).sum())

    return check


# Image operations, on 8-bit gray and (unless in GRAY_ONLY) BGR images.
IMAGE_OPS = {
    "GaussianBlur": lambda a: cv2.GaussianBlur(a, (7, 7), 1.5),
    "blur": lambda a: cv2.blur(a, (5, 5)),
    "boxFilter": lambda a: cv2.boxFilter(a, -1, (3, 3)),
    "medianBlur3": lambda a: cv2.medianBlur(a, 3),
    "medianBlur5": lambda a: cv2.medianBlur(a, 5),
    "filter2D": lambda a: cv2.filter2D(a, -1, BOX5),
    "Sobel": lambda a: cv2.Sobel(a, cv2.CV_16S, 1, 0),
    "Scharr": lambda a: cv2.Scharr(a, cv2.CV_32F, 0, 1),
    "Laplacian": lambda a: cv2.Laplacian(a, cv2.CV_16S),
    "Canny": lambda a: cv2.Canny(a, 50, 150),
    "erode": lambda a: cv2.erode(a, np.ones((3, 3), np.uint8)),
    "dilate": lambda a: cv2.dilate(a, np.ones((5, 5), np.uint8)),
    "morphologyEx": lambda a: cv2.morphologyEx(
        a, cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8)
    ),
    "resize_linear": lambda a: cv2.resize(a, (320, 240), interpolation=cv2.INTER_LINEAR),
    "resize_area": lambda a: cv2.resize(a, (320, 240), interpolation=cv2.INTER_AREA),
    "pyrDown": cv2.pyrDown,
    "pyrUp": cv2.pyrUp,
    "warpAffine": lambda a: cv2.warpAffine(a, ROTATE, (COLS, ROWS)),
    "warpPerspective": lambda a: cv2.warpPerspective(a, PERSPECTIVE, (COLS, ROWS)),
    "remap": lambda a: cv2.remap(a, MAP_X, MAP_Y, cv2.INTER_LINEAR),
    "threshold": lambda a: cv2.threshold(a, 100, 255, cv2.THRESH_BINARY)[1],
    "equalizeHist": cv2.equalizeHist,
    "integral": cv2.integral,
    "cornerHarris": lambda a: cv2.cornerHarris(a, 2, 3, 0.04),
    "cornerMinEigenVal": lambda a: cv2.cornerMinEigenVal(a, 3),
    "bilateralFilter": lambda a: cv2.bilateralFilter(a, 5, 50, 50),
    "flip": lambda a: cv2.flip(a, -1),
    "transpose": cv2.transpose,
    "add": lambda a: cv2.add(a, a),
    "subtract": lambda a: cv2.subtract(a, 30),
    "absdiff": lambda a: cv2.absdiff(a, 128),
    "addWeighted": lambda a: cv2.addWeighted(a, 0.3, a, 0.5, 7),
    "multiply": lambda a: cv2.multiply(a, a, scale=1 / 255),
    "divide": lambda a: cv2.divide(a, 3),
    "bitwise_not": cv2.bitwise_not,
    "bitwise_and": lambda a: cv2.bitwise_and(a, a),
    "convertScaleAbs": lambda a: cv2.convertScaleAbs(a, alpha=1.7, beta=-20),
    "normalize": lambda a: cv2.normalize(a, None, 0, 255, cv2.NORM_MINMAX),
    "LUT": lambda a: cv2.LUT(a, REVERSE),
    "inRange": lambda a: cv2.inRange(a, 50, 200),
    "copyMakeBorder": lambda a: cv2.copyMakeBorder(a, 5, 7, 9, 11, cv2.BORDER_REFLECT),
    "min": lambda a: cv2.min(a, 100),
    "max": lambda a: cv2.max(a, 100),
    "compare": lambda a: cv2.compare(a, 128, cv2.CMP_GT),
    "filter2D_11x11": lambda a: cv2.filter2D(a, -1, np.ones((11, 11), np.float32) / 121),
    "GaussianBlur_31x31": lambda a: cv2.GaussianBlur(a, (31, 31), 8),
    "Sobel_7": lambda a: cv2.Sobel(a, cv2.CV_32F, 1, 1, ksize=7),
    "linearPolar": lambda a: cv2.linearPolar(a, (320, 240), 200, cv2.WARP_FILL_OUTLIERS),
    "CLAHE": lambda a: cv2.createCLAHE(2.0, (8, 8)).apply(a),
    "fastNlMeansDenoising": lambda a: cv2.fastNlMeansDenoising(a, None, 10, 7, 21),
    "blendLinear": lambda a: cv2.blendLinear(
        a, like(a, FLIPPED), like(a, WEIGHTS_A), like(a, WEIGHTS_B)
    ),
    "cvtColor_HSV": lambda a: cv2.cvtColor(a, cv2.COLOR_BGR2HSV),
    "cvtColor_YUV": lambda a: cv2.cvtColor(a, cv2.COLOR_BGR2YUV),
    "cvtColor_Lab": lambda a: cv2.cvtColor(a, cv2.COLOR_BGR2Lab),
    "cvtColor_Luv": lambda a: cv2.cvtColor(a, cv2.COLOR_BGR2Luv),
    "cvtColor_HLS": lambda a: cv2.cvtColor(a, cv2.COLOR_BGR2HLS),
    "cvtColor_XYZ": lambda a: cv2.cvtColor(a, cv2.COLOR_BGR2XYZ),
    "cvtColor_I420": lambda a: cv2.cvtColor(a, cv2.COLOR_BGR2YUV_I420),
    "rotate": lambda a: cv2.rotate(a, cv2.ROTATE_90_CLOCKWISE),
    "repeat": lambda a: cv2.repeat(a, 2, 3),
    "reduce_sum": lambda a: cv2.reduce(a, 0, cv2.REDUCE_SUM, dtype=cv2.CV_32S),
    "reduce_max": lambda a: cv2.reduce(a, 1, cv2.REDUCE_MAX),
    "sepFilter2D": lambda a: cv2.sepFilter2D(
        a, cv2.CV_32F, np.array([1, 2, 1], np.float32), np.array([1, 0, -1], np.float32)
    ),
    "Canny_L2": lambda a: cv2.Canny(a, 30, 90, L2gradient=True),
    "goodFeaturesToTrack": lambda a: cv2.goodFeaturesToTrack(a, 100, 0.01, 10),
    "calcHist": lambda a: cv2.calcHist([a], [0], None, [256], [0, 256]),
    "matchTemplate_CCORR_NORMED": lambda a: cv2.matchTemplate(
        a, like(a, TEMPLATE), cv2.TM_CCORR_NORMED
    ),
    "matchTemplate_CCOEFF_NORMED": lambda a: cv2.matchTemplate(
        a, like(a, TEMPLATE), cv2.TM_CCOEFF_NORMED
    ),
    "matchTemplate_SQDIFF": lambda a: cv2.matchTemplate(a, like(a, TEMPLATE), cv2.TM_SQDIFF),
    "calcOpticalFlowFarneback": lambda a: cv2.calcOpticalFlowFarneback(
        a, like(a, SHIFTED), None, 0.5, 3, 15, 3, 5, 1.2, 0
    ),
    "split": lambda a: tuple(cv2.split(a)),
}
GRAY_ONLY = {
    "Canny", "Canny_L2", "equalizeHist", "cornerHarris", "goodFeaturesToTrack",
    "calcHist", "matchTemplate_CCORR_NORMED", "matchTemplate_CCOEFF_NORMED",
    "matchTemplate_SQDIFF", "calcOpticalFlowFarneback", "reduce_sum", "reduce_max",
    "CLAHE", "fastNlMeansDenoising", "blendLinear",
    "cornerMinEigenVal", "integral", "medianBlur5", "inRange", "compare",
}
BGR_ONLY = {
    "cvtColor_HSV", "cvtColor_YUV", "cvtColor_Lab", "cvtColor_Luv", "cvtColor_HLS",
    "cvtColor_XYZ", "cvtColor_I420", "split",
}


def half_of(a):
    return cv2.multiply(a, 0.5)


# Operations on single-precision data.
FLOAT_OPS = {
    "sqrt": cv2.sqrt,
    "exp": cv2.exp,
    "log": lambda a: cv2.log(cv2.add(a, 0.1)),
    "pow": lambda a: cv2.pow(a, 2.5),
    "magnitude": lambda a: cv2.magnitude(a, half_of(a)),
    "phase": lambda a: cv2.phase(a, half_of(a)),
    "cartToPolar_magnitude": lambda a: cv2.cartToPolar(a, half_of(a))[0],
    "polarToCart": lambda a: cv2.polarToCart(a, a),
    "dft": lambda a: cv2.dft(a, flags=cv2.DFT_COMPLEX_OUTPUT),
    "dft_rows": lambda a: cv2.dft(a, flags=cv2.DFT_COMPLEX_OUTPUT | cv2.DFT_ROWS),
    "idft": lambda a: cv2.idft(
        cv2.dft(a, flags=cv2.DFT_COMPLEX_OUTPUT), flags=cv2.DFT_REAL_OUTPUT | cv2.DFT_SCALE
    ),
    "GaussianBlur_f32": lambda a: cv2.GaussianBlur(a, (5, 5), 1.0),
    "Laplacian_f32": lambda a: cv2.Laplacian(a, cv2.CV_32F, ksize=5),
    "normalize_l2": lambda a: cv2.normalize(a, None, 1.0, 0.0, cv2.NORM_L2),
}


def mask_for(a):
    return cv2.UMat(MASK) if isinstance(a, cv2.UMat) else MASK


# Reductions, on 8-bit gray and 3-channel float data. Python's bindings
# pass an empty UMat for a mask left out, which OpenCV's OpenCL reductions
# cannot take (they log "can't create cl_mem handle" and run on the CPU),
# so these pass a mask.
REDUCTIONS = {
    "sumElems": cv2.sumElems,
    "meanStdDev": lambda a: cv2.meanStdDev(a, mask=mask_for(a)),
    "minMaxLoc": cv2.minMaxLoc,
    "countNonZero": cv2.countNonZero,
    "norm_L1": lambda a: cv2.norm(a, cv2.NORM_L1, mask_for(a)),
    "norm_L2": lambda a: cv2.norm(a, cv2.NORM_L2, mask_for(a)),
    "norm_INF": lambda a: cv2.norm(a, cv2.NORM_INF),
}
GRAY_REDUCTIONS_ONLY = {"countNonZero", "minMaxLoc"}


def nearest_rows_cols(src_shape, size):
    """The source rows and columns OpenCV's `resizeNN` kernel reads:
    single-precision products truncated toward zero."""
    (rows, cols), (dst_cols, dst_rows) = src_shape[:2], size
    ifx = np.float32(1.0 / (dst_cols / cols))
    ify = np.float32(1.0 / (dst_rows / rows))
    x = np.minimum((np.arange(dst_cols, dtype=np.float32) * ifx).astype(np.int32), cols - 1)
    y = np.minimum((np.arange(dst_rows, dtype=np.float32) * ify).astype(np.int32), rows - 1)
    return y, x


def polar_angle_kernel(x, y):
    """The angle OpenCV's `KF` kernel computes for `cartToPolar`, in
    single precision."""
    x, y = x.astype(np.float32), y.astype(np.float32)
    x2, y2 = x * x, y * y
    eps = np.float32(np.finfo(np.float32).eps)  # the kernel's CV_EPSILON for float
    tmp = np.where(y >= 0, np.float32(0), np.float32(2 * np.pi))
    tmp = np.where(x < 0, np.float32(np.pi), tmp)
    tmp1 = np.where(y >= 0, np.float32(np.pi / 2), np.float32(1.5 * np.pi))
    near_x = x * y / (np.float32(0.28) * y2 + (x2 + eps)) + tmp
    near_y = tmp1 - x * y / (np.float32(0.28) * x2 + (y2 + eps))
    return np.where(y2 <= x2, near_x, near_y).astype(np.float32)


def on_drawn_lines(got, _):
    """Every segment `HoughLinesP` found has both ends within 2 pixels of
    one of the lines drawn, and there is at least one. (The CPU code picks
    pixels in random order, so the two paths split lines into different
    segments.)"""
    if got is None or len(got) == 0:
        return False

    def distance(point, line):
        (x0, y0), (x1, y1) = line
        dx, dy = x1 - x0, y1 - y0
        px, py = point
        return abs(dy * (px - x0) - dx * (py - y0)) / np.hypot(dx, dy)

    return all(
        any(max(distance((x0, y0), l), distance((x1, y1), l)) <= 2 for l in LINE_ENDS)
        for x0, y0, x1, y1 in got.reshape(-1, 4)
    )


def same_lines(got, want):
    """`HoughLines`' (rho, theta) pairs, in any order."""
    if got is None or want is None:
        return got is None and want is None
    order = lambda a: sorted(map(tuple, np.round(a.reshape(-1, 2), 4).tolist()))
    return order(got) == order(want)


# Corners of the gray image at least 20 pixels inside it, for the sparse
# optical flow: SHIFTED wraps at the edges, and near them the CPU code and
# the OpenCL kernel take different windows.
_corners = cv2.goodFeaturesToTrack(GRAY8, 100, 0.01, 10).reshape(-1, 2)
CORNERS = _corners[
    (_corners[:, 0] >= 20)
    & (_corners[:, 0] < COLS - 20)
    & (_corners[:, 1] >= 20)
    & (_corners[:, 1] < ROWS - 20)
].reshape(-1, 1, 2)


def background_mask(a, make):
    """The foreground mask a fresh subtractor gives for the last of
    FRAMES, fed as the kind of input `a` is."""
    subtractor = make()
    mask = None
    for frame in FRAMES:
        mask = subtractor.apply(like(a, frame))
    return mask


# Operations of OpenCV's video and object detection modules: (operation,
# input, check).
MODULES = {
    "BackgroundSubtractorMOG2": (
        lambda a: background_mask(a, cv2.createBackgroundSubtractorMOG2),
        BGR8,
        within(0),
    ),
    "BackgroundSubtractorKNN": (
        lambda a: background_mask(a, cv2.createBackgroundSubtractorKNN),
        BGR8,
        within(0),
    ),
    "cvtColor_NV12": (lambda a: cv2.cvtColor(a, cv2.COLOR_YUV2BGR_NV12), NV12, within(1)),
    # Descriptors normalised to at most 0.2 per bin (L2-Hys); the kernels
    # sum gradients in another order than the CPU code.
    "HOGDescriptor_compute": (lambda a: cv2.HOGDescriptor().compute(a), GRAY8, within(1e-3)),
    # Positions of the corners in the shifted image (3 and 2 pixels away):
    # both paths find them within a thousandth of a pixel.
    "calcOpticalFlowPyrLK": (
        lambda a: cv2.calcOpticalFlowPyrLK(a, like(a, SHIFTED), like(a, CORNERS), None)[0],
        GRAY8,
        within(1e-2),
    ),
    # ORB's descriptors: bit strings, equal.
    "ORB_descriptors": (
        lambda a: cv2.ORB_create().detectAndCompute(a, None)[1],
        GRAY8,
        within(0),
    ),
}

on_drawn_lines.whole = True
same_lines.whole = True

SIZE_NN = (333, 222)
# Operations whose OpenCL result is compared with a model of the kernel.
# Operations whose results are checked as a whole: (operation, input,
# check of the OpenCL result against the CPU one).
WHOLE = {
    "HoughLines": (lambda a: cv2.HoughLines(a, 1, np.pi / 180, 150), LINES, same_lines),
    "HoughLinesP": (
        lambda a: cv2.HoughLinesP(a, 1, np.pi / 180, 80, minLineLength=50, maxLineGap=5),
        LINES,
        on_drawn_lines,
    ),
}
MODELLED = {
    "resize_nearest/gray": (
        lambda a: cv2.resize(a, SIZE_NN, interpolation=cv2.INTER_NEAREST),
        GRAY8,
        lambda: GRAY8[np.ix_(*nearest_rows_cols(GRAY8.shape, SIZE_NN))],
        within(0),
    ),
    "resize_nearest/bgr": (
        lambda a: cv2.resize(a, SIZE_NN, interpolation=cv2.INTER_NEAREST),
        BGR8,
        lambda: BGR8[np.ix_(*nearest_rows_cols(BGR8.shape, SIZE_NN))],
        within(0),
    ),
    "cartToPolar_angle": (
        lambda a: cv2.cartToPolar(a, half_of(a))[1],
        F32,
        lambda: polar_angle_kernel(F32, F32 * np.float32(0.5)),
        within(1e-6, 1e-5),
    ),
}


def to_numpy(x):
    if isinstance(x, cv2.UMat):
        return x.get()
    if isinstance(x, (tuple, list)):
        return tuple(to_numpy(y) for y in x)
    return x


def run(fn, data, opencl):
    cv2.ocl.setUseOpenCL(opencl)
    return to_numpy(fn(cv2.UMat(data) if opencl else data))


def close(got, want, check):
    if getattr(check, "whole", False):
        return check(got, want)
    if isinstance(want, (tuple, list)):
        return len(got) == len(want) and all(close(g, w, check) for g, w in zip(got, want))
    if isinstance(want, np.ndarray):
        if not isinstance(got, np.ndarray) or got.shape != want.shape:
            return False
        return check(got.astype(np.float64), want.astype(np.float64))
    return check(np.float64(got), np.float64(want))


def describe(got, want):
    if isinstance(got, np.ndarray) and isinstance(want, np.ndarray) and got.shape == want.shape:
        d = np.abs(got.astype(np.float64) - want.astype(np.float64))
        at = np.unravel_index(d.argmax(), d.shape)
        return f"max difference {d.max()} at {tuple(int(i) for i in at)}"
    return f"got {got!r}, expected {want!r}"


class Trace:
    """Reads the profile layer's trace, if given: kernel launches, and
    program builds that failed (OpenCV then runs the operation, or the
    rest of it, on the CPU)."""

    def __init__(self, path):
        self.path = path

    def counts(self):
        if self.path is None:
            return None
        launches = failed_builds = 0
        try:
            with open(self.path) as f:
                for line in f:
                    launches += " launch " in line
                    failed_builds += " build ends (" in line and "(0)" not in line
        except FileNotFoundError:
            pass
        return launches, failed_builds


# 8-bit results may differ by one level (the OpenCL kernels round in
# single precision or in other fixed-point steps than the CPU code).
EIGHT_BIT = within(1)
def inside_source(matrix, shape):
    """The output pixels of a warp by `matrix` (2x3 or 3x3, mapping source
    to output) whose source position lies a pixel or more inside the
    source image: where a sample straddles the edge of the constant
    border, OpenCV's CPU code and its OpenCL kernel weigh the outside
    differently (5 levels at 2 of 307,200 pixels of this perspective)."""
    rows, cols = shape[:2]
    m = np.vstack([matrix, [0, 0, 1]]) if matrix.shape[0] == 2 else matrix
    inverse = np.linalg.inv(m)
    y, x = np.mgrid[0:rows, 0:cols]
    src = np.tensordot(inverse, np.stack([x, y, np.ones_like(x)]), axes=1)
    sx, sy = src[0] / src[2], src[1] / src[2]
    return (sx >= 1) & (sx <= cols - 2) & (sy >= 1) & (sy <= rows - 2)


def within_where(where, abs_tol):
    """`within(abs_tol)` on the pixels `where` is true (broadcast over
    channels)."""

    def check(g, w):
        keep = where if g.ndim == where.ndim else where[..., None]
        return bool(np.all((np.abs(g - w) <= abs_tol) | ~keep))

    return check


TOLERANCES = {
    "warpAffine": within_where(inside_source(ROTATE, (ROWS, COLS)), 1),
    "warpPerspective": within_where(inside_source(PERSPECTIVE, (ROWS, COLS)), 1),
    "Canny": similar(1e-2),
    # Derivatives of 8-bit images as floats up to about 1e5.
    "Sobel_7": within(1e-2, 1e-4),
    "Canny_L2": similar(1e-2),
    # The kernels sum in single-precision integral images (OpenCV asks for
    # CV_32F), where the CPU code uses double; a normalised coefficient of
    # a window of little variance magnifies that (0.012 here; OpenCV's own
    # OpenCL tests allow 0.03 for the normalised methods).
    "matchTemplate_SQDIFF": scaled(1e-2),
    "matchTemplate_CCORR_NORMED": within(3e-2),
    "matchTemplate_CCOEFF_NORMED": within(3e-2),
    # An iterative solver in single precision: the two paths' flows agree
    # to 0.02 % of their sum (0.51 px at most, of a 3 x 2 px shift).
    "calcOpticalFlowFarneback": similar(1e-3),
    "goodFeaturesToTrack": within(1e-3),
    "dft": scaled(1e-5),
    "dft_rows": scaled(1e-5),
    "idft": scaled(1e-5),
}


def cases():
    for name, fn in IMAGE_OPS.items():
        check = TOLERANCES.get(name, EIGHT_BIT)
        if name not in BGR_ONLY:
            yield name + "/gray", fn, GRAY8, check, None
        if name not in GRAY_ONLY:
            yield name + "/bgr", fn, BGR8, check, None
    for name, fn in FLOAT_OPS.items():
        yield name, fn, F32, TOLERANCES.get(name, within(1e-5, 1e-4)), None
    for name, fn in REDUCTIONS.items():
        yield name + "/gray", fn, GRAY8, within(1e-6, 1e-6), None
        if name not in GRAY_REDUCTIONS_ONLY:
            yield name + "/f32c3", fn, F32C3, within(1e-5, 1e-5), None
    for name, (fn, data, model, check) in MODELLED.items():
        yield name, fn, data, check, model
    for name, (fn, data, whole) in WHOLE.items():
        yield name, fn, data, whole, None
    for name, (fn, data, check) in MODULES.items():
        yield name, fn, data, check, None


def main(argv):
    trace = None
    if "--trace" in argv:
        i = argv.index("--trace")
        trace = argv[i + 1]
        del argv[i : i + 2]
    only = argv
    if not cv2.ocl.haveOpenCL():
        print("OpenCV finds no OpenCL platform")
        return 1
    cv2.ocl.setUseOpenCL(True)
    device = cv2.ocl.Device.getDefault()
    print(f"OpenCV {cv2.__version__} on {device.name()} ({device.version()})")
    trace = Trace(trace)
    counts = {"passed": 0, "differ": 0, "failed": 0, "no kernel": 0, "build failed": 0}
    for name, fn, data, check, model in cases():
        if only and not any(o in name for o in only):
            continue
        start = time.time()
        try:
            want = model() if model else run(fn, data, False)
            before = trace.counts()
            got = run(fn, data, True)
            after = trace.counts()
        except Exception as e:  # OpenCV raises cv2.error and others
            counts["failed"] += 1
            print(f"FAIL {name}: {e!r}"[:300], flush=True)
            continue
        ran, failed_builds = (None, 0) if before is None else (
            after[0] - before[0],
            after[1] - before[1],
        )
        if failed_builds:
            counts["build failed"] += 1
            print(f"FAIL {name}: {failed_builds} program builds failed", flush=True)
        elif not close(got, want, check):
            counts["differ"] += 1
            print(f"DIFF {name}: {describe(got, want)}", flush=True)
        elif ran == 0:
            counts["no kernel"] += 1
            print(f"CPU  {name}: matches, but no kernel was launched", flush=True)
        else:
            counts["passed"] += 1
            kernels = "" if ran is None else f", {ran} launches"
            print(f"ok   {name} ({time.time() - start:.2f} s{kernels})", flush=True)
    print(", ".join(f"{v} {k}" for k, v in counts.items()))
    return 0 if counts["passed"] == sum(counts.values()) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
