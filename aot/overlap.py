"""How far an op's output may overlap the input it reads for the last time: the op table's
``OpDef.overlap`` declarations, from the loop order every kernel of the op keeps on every arch.

int8 pooling and convolutions of one group and up to 64 filters stream: every kernel
(portable, DSP, Helium) writes output pixels in order, image by image and row by row, all of
a pixel's filters before it moves on, and while writing pixel ``i`` reads no input below the
window of pixel ``i - BLOCK_BACK`` (the fast kernels take blocks of up to six pixels, the last
of which may redo some of the one before). ``window_lag`` turns this into the lag
``aot.memory.Overlap`` takes: the least number of bytes the output must start below the input
so that no pixel overwrites input yet to be read. The fast kernels run their filters a table
at a time (64 filters, or as many pairs as the DSP quads' buffer holds), each table over every
pixel: a kernel that sees its output over its input keeps to paths whose one table holds every
filter (the DSP's conv_s8.c), and no convolution of more filters, or pointwise one (whose DSP
and Helium kernels always run the tables outermost), declares an overlap.

A depthwise convolution of multiplier 1 runs in place: the DSP kernels take a
group of channels over the whole map (widening its planes first) before the next group, and
each writes a channel's rows in order, so an output pixel must land on its own channel's
bytes of an earlier pixel. Its overlap is exact, at the window's lag rounded up to whole
pixels (and to the arena's alignment, so the planner can use it). The Helium kernel leaves
its whole-plane and gathered-taps strategies (down columns) to layers not in place.

The transpose of an input image (NCHW, up to four planes) to NHWC writes one plane below its
input: rt_permute moves the pixels that land on bytes already read, then the planes' rest up
their buffer, phase by phase (transpose_s8).

tests/qemu/fixtures/twins runs every kernel, fast and portable, with its output at these lags
inside its input's buffer against its separate-buffer run (tests/qemu/test_kernel_twins.py).

float32 maps are NCHW: a channel's plane is contiguous, so an output that starts where its
input starts lands each output channel on the input channel of its index. A pointwise or
"same" kxk convolution then runs exactly in place by bands (mcu_aot::convolution_in_place,
runtime_c/src/conv/conv_in_place.c: a band's outputs computed from the input where it lies,
into the scratch, and copied home once no later band reads under them); so does a depthwise
one of small planes, by groups of planes. One of large planes needs no scratch, since every
arch's kernel reads plane by plane: it starts one output plane below its input, as average
pooling does. Any other convolution of one group on one image (a strided stem) also runs
exactly over its input, a row of every channel at a time: a channel's row goes home once the
input under it is dead, and the rows that must wait are held in the scratch, a ring a channel
(_f32_ring_rows). tests/host/test_kernels.py holds each to the plain kernel's bytes;
tests/qemu/test_firmware.py runs the networks on every kernel build.
"""
from __future__ import annotations

import functools
import math
from typing import Optional

import numpy as np

from .memory.plan import DEFAULT_ALIGNMENT

# Output pixels a kernel may write past the one whose window it still reads (a block of six).
BLOCK_BACK = 5
# The most filters a convolution that streams may have (one table of the fast kernels).
STREAM_FILTERS = 64


def window_lag(x: tuple, out: tuple, stride: tuple, pad: tuple, back: int = BLOCK_BACK) -> int:
    """Least bytes an NHWC int8 output ``out`` of a window op over NHWC ``x`` (both
    ``(N, H, W, C)``) must start below its input, for a kernel that writes pixels in order and,
    while writing pixel ``i``, reads nothing below pixel ``i - back``'s window (its top row
    ``stride * y - pad``, its left column likewise, both clamped to the map). Negative where
    a smaller output may start above its input."""
    n, hi, wi, ci = x
    _, ho, wo, co = out
    if n * ho * wo == 0:
        return 0
    i = np.arange(n * ho * wo, dtype=np.int64)
    j = np.maximum(i - back, 0)
    b, r = np.divmod(j, ho * wo)
    y, xx = np.divmod(r, wo)
    row = np.clip(stride[0] * y - pad[0], 0, hi)
    col = np.clip(stride[1] * xx - pad[1], 0, wi)
    low = b * (hi * wi * ci) + (row * wi + np.where(row < hi, col, 0)) * ci
    return int(np.max((i + 1) * co - low))


def _pair(v, default: int) -> tuple[int, int]:
    v = list(v) if v else [default]
    return (int(v[0]), int(v[-1]))


def _nhwc_window(args: dict, outs: list) -> Optional[int]:
    x, out = args["input"], outs[0]
    if len(x.shape) != 4 or len(out.shape) != 4 or out.shape[0] != x.shape[0]:
        return None
    return window_lag(x.shape, out.shape, _pair(args.get("stride"), 1),
                      _pair(args.get("padding"), 0))


def _pointwise(x: tuple, w: tuple, out: tuple, stride: tuple, pad: tuple) -> bool:
    """The layer is one rt_conv2d_1x1_s8 takes (the spec's condition)."""
    return tuple(w[1:3]) == (1, 1) and w[3] == x[3] and stride == (1, 1) and \
        pad == (0, 0) and tuple(out[1:3]) == tuple(x[1:3])


def pointwise_band(x: tuple) -> int:
    """Pixels of a pointwise layer over NHWC ``x`` that rt_conv2d_1x1_in_place_s8 computes at a
    time into its scratch: two rows of the map (all of it where smaller), down to a multiple
    of four pixels where that leaves four or more (the DSP quads' step)."""
    n, h, w, _ = x
    band = max(1, min(n * h * w, 2 * w))
    return band - band % 4 if band >= 4 else band


def depthwise_band(pad_h: int) -> int:
    """Output rows a band of rt_depthwise_conv2d_in_place_s8: as few as the next band allows
    (it reads ``pad_h`` rows above itself, which the band before must not yet have overwritten).
    The scratch holds two bands."""
    return max(1, pad_h)


def depthwise_bands(h: int, pad_h: int, kh: int, dil_h: int, rows: Optional[int] = None):
    """The bands rt_depthwise_conv2d_in_place_s8 runs over a map of ``h`` rows, ``rows`` a band
    (what its scratch holds; depthwise_band's by default): for each, its output rows [y0, y1)
    and the input rows [r0, r1) it reads (int8/in_place_s8.h)."""
    rows, reach = rows or depthwise_band(pad_h), (kh - 1) * dil_h + 1
    for y0 in range(0, h, rows):
        y1 = min(h, y0 + rows)
        yield y0, y1, max(0, y0 - pad_h), min(h, y1 - 1 - pad_h + reach)


def _depthwise_in_place(x: tuple, w: tuple, out: tuple, stride: tuple, pad: tuple,
                        dil: tuple, rows: Optional[int] = None) -> bool:
    """A depthwise layer that runs exactly in place by bands of ``rows`` (depthwise_band's by
    default): stride 1, multiplier 1, the output the input's shape, and every band a window
    the kernels' geometry check takes (rows beyond the map's bottom are the kernels' padding,
    up to the band's top padding plus a stride)."""
    n, h, wd, c = x
    if tuple(out) != tuple(x) or stride != (1, 1) or w[3] != c or n * h * wd * c == 0:
        return False
    reach = (w[1] - 1) * dil[0]
    return all(r1 > r0 and (y1 - y0 - 1) + reach < (r1 - r0) + 2 * (r0 - y0 + pad[0]) + 1
               for y0, y1, r0, r1 in depthwise_bands(h, pad[0], w[1], dil[0], rows))


def depthwise_rows(args: dict, outs: list, nbytes: int) -> int:
    """The most rows a band of a depthwise layer in place (quantized_depthwise_conv2d_nhwc
    with its band scratch, shapes as ``scratch`` takes them) can take in a scratch of
    ``nbytes``, up to the whole map: 0 where that is fewer than depthwise_band's or a band of
    that height is no window the kernels take."""
    x, w, out = args["input"], args["weight"], outs[0]
    pad, row = _pair(args.get("padding"), 0), x[2] * x[3]
    rows = min(x[1], nbytes // (2 * row)) if row else 0
    while rows >= depthwise_band(pad[0]):
        if _depthwise_in_place(x, w, out, _pair(args.get("stride"), 1), pad,
                               _pair(args.get("dilation"), 1), rows):
            return rows
        rows -= 1
    return 0


def pointwise_scratch(args: dict, outs: list) -> int:
    """quantized_conv2d_nhwc's in-place scratch (OpDef.in_place_scratch, as ``scratch`` takes
    its arguments: shapes): a band of pixels for a pointwise layer, else 0 (it streams, or
    does not overlap)."""
    x, w, out = args["input"], args["weight"], outs[0]
    if len(x) != 4 or len(w) != 4 or len(out) != 4 or not _pointwise(
            x, w, out, _pair(args.get("stride"), 1), _pair(args.get("padding"), 0)):
        return 0
    return pointwise_band(x) * out[3]


def depthwise_scratch(args: dict, outs: list) -> int:
    """quantized_depthwise_conv2d_nhwc's in-place scratch: two bands of rows where the layer
    runs in place by bands, else 0 (it overlaps at its window's lag)."""
    x, w, out = args["input"], args["weight"], outs[0]
    pad = _pair(args.get("padding"), 0)
    if len(x) != 4 or len(w) != 4 or not _depthwise_in_place(
            x, w, out, _pair(args.get("stride"), 1), pad, _pair(args.get("dilation"), 1)):
        return 0
    return 2 * depthwise_band(pad[0]) * x[2] * x[3]


def has_bands(args: dict, outs: list, need) -> bool:
    """The call's scratch (a TensorSpec among ``args``) holds the bands its in-place kernel
    runs (``need``: pointwise_scratch or depthwise_scratch, nonzero): the plan gave it them.
    A plan that takes them away (aot.passes.plan_memory's trim_bands, where the output cannot
    overlap) takes away the overlap that needs them."""
    scratch = args.get("scratch")
    shapes = {k: tuple(v.shape) if hasattr(v, "shape") else v for k, v in args.items()}
    need = need(shapes, [tuple(outs[0].shape)])
    return need > 0 and scratch is not None and scratch.numel >= need


def conv_s8(args: dict, outs: list) -> Optional[tuple[str, int, bool]]:
    """quantized_conv2d_nhwc of one group: a pointwise layer by bands of pixels through the
    scratch (rt_conv2d_1x1_in_place_s8: a band lands on input already read); else, up to
    STREAM_FILTERS filters, streaming at the window's lag."""
    x, w, out = args["input"], args["weight"], outs[0]
    if len(x.shape) != 4 or len(w.shape) != 4 or len(out.shape) != 4:
        return None
    cout, kh, kw, cin_g = w.shape
    stride, pad = _pair(args.get("stride"), 1), _pair(args.get("padding"), 0)
    if _pointwise(x.shape, w.shape, out.shape, stride, pad):
        if not has_bands(args, outs, pointwise_scratch):
            return None
        growth = cout - x.shape[3]
        return "input", max(growth, math.prod(x.shape[:3]) * growth), False
    if cin_g != x.shape[3] or cout > STREAM_FILTERS:
        return None
    lag = _nhwc_window(args, outs)
    return None if lag is None else ("input", lag, False)


def pool_s8(args: dict, outs: list) -> Optional[tuple[str, int, bool]]:
    """quantized_avg_pool2d_nhwc and quantized_max_pool2d_nhwc: streaming, at the window's lag."""
    lag = _nhwc_window(args, outs)
    return None if lag is None else ("input", lag, False)


def depthwise_s8(args: dict, outs: list) -> Optional[tuple[str, int, bool]]:
    """quantized_depthwise_conv2d_nhwc of multiplier 1: in place, a channel landing on its own
    channel, the window's lag (negative where the output is the smaller) in whole pixels and
    arena alignment below."""
    x, out = args["input"], outs[0]
    if len(x.shape) != 4 or len(out.shape) != 4 or x.shape[0] != out.shape[0] or \
            x.shape[3] != out.shape[3]:
        return None
    if has_bands(args, outs, depthwise_scratch):
        return "input", 0, True
    lag = _nhwc_window(args, outs)
    step = math.lcm(x.shape[3], DEFAULT_ALIGNMENT)
    return "input", -(-lag // step) * step, True


# The most planes of an NCHW map whose transpose to NHWC may overlap it: an input image's (RGB,
# or with alpha). rt_permute moves the planes' rest up once a phase, planes - 1 phases.
TRANSPOSE_PLANES = 4


def transpose_s8(args: dict, outs: list) -> Optional[tuple[str, int, bool]]:
    """transpose of an NCHW map of 2 to TRANSPOSE_PLANES planes to NHWC (the input's move to
    the int8 kernels' layout): its output a plane below its input, or lower (and at least
    planes - 1 elements, which a map of fewer pixels than planes needs). rt_permute
    (runtime_c/src/shape/movement.c) then runs in phases: each moves as many pixels of every
    plane as land on bytes already read, then the planes' rest up their buffer. With the output
    one plane below, a 3-plane image takes two phases and moves half of two planes once more;
    VWW's 96x96 RGB input then needs 36,864 B for the move, not 55,296."""
    x, out = args["input"], outs[0]
    if len(x.shape) != 4 or [p % 4 for p in args["perm"]] != [0, 2, 3, 1]:
        return None
    n, planes, h, w = x.shape
    if not 2 <= planes <= TRANSPOSE_PLANES or h * w < 2 or not x.nbytes or \
            out.nbytes != x.nbytes:
        return None
    return "input", max(h * w, planes - 1) * (x.nbytes // (n * planes * h * w)), False


# -- float32 (NCHW): runtime_c/src/conv/conv_in_place.c --------------------------------------

# Pixels a band of rt_conv2d_1x1_in_place_f32 (RT_F32_POINTWISE_BAND in rt_kernels.h).
F32_POINTWISE_BAND = 8
# The fewest planes a group of rt_conv2d_depthwise_in_place_f32 is worth its calls for: fewer
# (large planes), and the layer starts one output plane below its input instead.
F32_DEPTHWISE_GROUP = 4


def _f32_conv(x: tuple, w: tuple, out: tuple, args: dict) -> Optional[str]:
    """"pointwise", "rows" or "held" where rt_conv2d_1x1_in_place_f32 or rt_conv2d_in_place_f32
    takes the float32 convolution exactly in place (NCHW or NCL shapes; "rows" for a 2-D "same"
    layer of stride 1, "held" for another 2-D layer of one group and one image, either where
    its scratch is at most half its input), "depthwise" where
    rt_conv2d_depthwise_f32 may write one output plane below its input (multiplier 1, an output
    plane no larger than an input one), else None."""
    if args.get("transposed") or len(x) not in (3, 4) or len(w) != len(x) or \
            len(out) != len(x) or math.prod(x) == 0 or math.prod(out) == 0:
        return None
    groups = int(args.get("groups", 1))
    stride, pad = _pair(args.get("stride"), 1), _pair(args.get("padding"), 0)
    plane_in, plane_out = math.prod(x[2:]), math.prod(out[2:])
    if groups == 1 and all(k == 1 for k in w[2:]) and all(s == 1 for s in stride) and \
            all(p == 0 for p in pad) and (x[0] == 1 or out[1] <= x[1]):
        return "pointwise"
    if groups == x[1] == out[1] == w[0] and w[1] == 1 and plane_out <= plane_in:
        return "depthwise"
    if groups != 1 or len(x) != 4:
        return None
    if stride == (1, 1) and out[2:] == x[2:] and (x[0] == 1 or out[1] <= x[1]):
        return "rows" if 2 * _f32_rows_floats(x, out, args) <= math.prod(x[1:]) else None
    if x[0] == 1 and 2 * _f32_held_floats(x, out, args) <= math.prod(x[1:]):
        return "held"
    return None


def _f32_rows_floats(x: tuple, out: tuple, args: dict) -> int:
    """The scratch of rt_conv2d_in_place_f32, in floats: two bands of max(1, pad_h) output
    rows of every channel (a band goes home once the next is computed)."""
    rows = min(max(1, _pair(args.get("padding"), 0)[0]), x[2])
    return 2 * out[1] * rows * x[3]


def _f32_row_dead(x: tuple, out: tuple, stride: int, pad: int, o: int, y: int, t: int) -> bool:
    """Whether output row ``y`` of channel ``o`` of a layer whose output lies exactly over its
    NCHW input (one image) may go home once output row ``t`` is computed: the last row, or
    the input under it is past the input's end or above every row the next output row reads
    (every channel's; a row that crosses into the next plane lies over the last rows of its
    first). rt_f32_row_dead in runtime_c/src/conv/conv_in_place.c, in the same steps."""
    _, cin, h, w = x
    _, _, oh, ow = out
    hw, total = h * w, cin * h * w
    a = o * oh * ow + y * ow
    if t == oh - 1 or a >= total:
        return True
    end = min(a + ow, total)
    need = h - 1 if (end - 1) // hw > a // hw else (end - 1) % hw // w
    return need < (t + 1) * stride - pad


def _f32_ring_rows(x: tuple, out: tuple, stride: int, pad: int, o: int) -> int:
    """The rows output channel ``o`` of a "held" layer keeps waiting at the most: its rows go
    home in order, each once its bytes are dead (_f32_row_dead), a row straight from the
    layer's kernel where none waits before it. rt_f32_ring_rows, in the same steps."""
    first = cap = 0
    for t in range(out[2]):
        if first == t and _f32_row_dead(x, out, stride, pad, o, t, t):
            first = t + 1
            continue
        cap = max(cap, t + 1 - first)
        while first <= t and _f32_row_dead(x, out, stride, pad, o, first, t):
            first += 1
    return cap


def _f32_held_floats(x: tuple, out: tuple, args: dict) -> int:
    """The scratch of a "held" rt_conv2d_in_place_f32, in floats (4 bytes each): each channel's
    ring size and next row home (two int32), one output row of every channel, and the
    rings."""
    stride, pad = _pair(args.get("stride"), 1)[0], _pair(args.get("padding"), 0)[0]
    return 2 * out[1] + (out[1] + _f32_held_rows(tuple(x), tuple(out), stride, pad)) * out[3]


@functools.lru_cache(maxsize=256)
def _f32_held_rows(x: tuple, out: tuple, stride: int, pad: int) -> int:
    """Every channel's _f32_ring_rows, summed (once a layer: planning asks often)."""
    return sum(_f32_ring_rows(x, out, stride, pad, o) for o in range(out[1]))


def conv_f32_scratch(args: dict, outs: list) -> int:
    """The in-place scratch of a float32 convolution (``scratch`` takes its arguments:
    shapes): a band of pixels' outputs for a pointwise layer (its inputs are read where they
    lie), a group of output planes for a depthwise one of small planes, two bands of output
    rows for a "same" kxk one, an output row and the rows held back for another, else 0 (a
    depthwise layer of large planes starts one output plane below its input instead:
    depthwise_f32)."""
    x, w, out = (tuple(args["input"]), tuple(args["weight"]), tuple(outs[0]))
    kind = _f32_conv(x, w, out, args)
    if kind == "pointwise":
        return 4 * out[1] * min(math.prod(x[2:]), F32_POINTWISE_BAND)
    if kind == "depthwise":
        planes = _f32_depthwise_group(x, out)
        return 4 * planes * math.prod(out[2:]) if planes else 0
    if kind == "held":
        return 4 * _f32_held_floats(x, out, args)
    return 4 * _f32_rows_floats(x, out, args) if kind == "rows" else 0


def _f32_depthwise_group(x: tuple, out: tuple) -> int:
    """The output planes a group of rt_conv2d_depthwise_in_place_f32 computes into its scratch:
    as many as a pointwise band of the layer's channels holds floats (KWS's 25x5 planes: 4 of
    its 64), where that is at least F32_DEPTHWISE_GROUP and not every plane, else 0."""
    planes = F32_POINTWISE_BAND * x[1] // math.prod(out[2:])
    return planes if F32_DEPTHWISE_GROUP <= planes < x[1] else 0


def conv_f32(args: dict, outs: list) -> Optional[tuple[str, int, bool]]:
    """mcu_aot::convolution_in_place (a float32 convolution under --overlap): exactly in
    place where its scratch holds the bands (conv_f32_scratch), else a depthwise layer one
    output plane below its input (depthwise_f32)."""
    if has_bands(args, outs, conv_f32_scratch):
        return "input", 0, True
    return depthwise_f32(args, outs)


def depthwise_f32(args: dict, outs: list) -> Optional[tuple[str, int, bool]]:
    """A float32 depthwise convolution of multiplier 1 (aten.convolution): every arch's
    rt_conv2d_depthwise_f32 computes the planes in order (image by image), each from its own
    input plane alone (copied to the stack first, where it pads), so output plane k may lie on
    input planes before k: the output one output plane (or more) below the input."""
    x, w, out = (tuple(args["input"].shape), tuple(args["weight"].shape), tuple(outs[0].shape))
    if _f32_conv(x, w, out, args) != "depthwise":
        return None
    return "input", 4 * math.prod(out[2:]), False


def pool_f32(args: dict, outs: list) -> Optional[tuple[str, int, bool]]:
    """avg_pool2d, _adaptive_avg_pool2d and max_pool2d_with_indices (its values, output 0; its
    indices never overlap) of float32 NCHW (or CHW) maps: their one kernel each
    (runtime_c/src/pool/, no arch twin) writes the planes in order, each from its own input
    plane, so the output may start one output plane below its input where an output plane is
    no larger than an input one."""
    x, out = tuple(args["self"].shape), tuple(outs[0].shape)
    if len(x) not in (3, 4) or len(out) != len(x) or x[:-2] != out[:-2] or \
            math.prod(out[-2:]) > math.prod(x[-2:]) or not math.prod(out):
        return None
    return "self", 4 * math.prod(out[-2:]), False
