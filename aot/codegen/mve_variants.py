"""Which variants of the Cortex-M Helium int8 kernels a model's layers take, so that its
firmware compiles only those (runtime_c/src/arch/cortex_m_mve/mve_variants.h).

The Helium convolutions choose a variant per layer at run time (a depthwise strategy, a
plane's loop, a 4x2 tile's loop), each its own copy of an assembly loop, by predicates on the
layer's shapes and quantization alone. This module is those predicates, line for line, on a
call's known values: ``call_variants`` gives one call's RT_MVE_U_* bits, ``variants_mask`` a
model's, which the firmware's Makefile passes as -DRT_MVE_USE. Where the C reads what the
generator cannot know (the alignment of a buffer on the stack, or of a caller's input), both
answers are taken. A variant the C asks for that the mask lacks returns RT_ERR_PARAM, never
another result (tests/qemu/test_mve_variants.py runs the zoo's networks pruned and not).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Optional, Sequence

import numpy as np

from ..overlap import depthwise_bands, pointwise_band

# mve_variants.h's bits
DW_ONE_INPUT, DW_G_COLS, DW_G_ROWS, DW_G_LINES, DW_BAND = (1 << b for b in range(5))
COLS = 1 << 17
# takes_gathered's and takes_plane's answers (dw_mve.h)
G_COLS, G_ROWS, G_LINES = 1, 2, 3
P_COLUMNS, P_BLOCKS, P_BLOCKS2 = 1, 2, 3
# rt_mve_quads_variant's numbers
Q_AT18, Q_256, Q_SAT48, Q_SAT64 = 0, 1, 2, 3
Q_DOWN = {8: 4, 16: 5, 32: 6, 64: 7, 128: 8}
Q_CLAMP = {128: 9, 64: 11, 48: 13, 32: 15, 16: 17, 8: 19}
ANY_LEFT, ALL_RIGHT = 1, 2

# The C's sizes: RT_MVE_DW_BAND_BYTES, DW_P_ROW, DW_P_ROW2, DW_P_BYTES, DW_MAT_TAPS,
# DW_MAT_BYTES, RT_MVE_BLOCK_PAIRS, RT_MVE_PATCH_MAX, RT_MVE_COLS_MAX (conv_s8.c's patch
# buffer is twice the longest filter).
BAND_BYTES, P_ROW, P_ROW2, P_BYTES = 2560, 64, 104, 4096
MAT_TAPS, MAT_BYTES = 64, 3072
BLOCK = 64
PATCH_MAX, COLS_MAX = 768, 1024

# The kernels whose variants these are (rt_depthwise_conv2d_3x3_s8 calls the depthwise one).
DEPTHWISE = ("rt_depthwise_conv2d_s8", "rt_depthwise_conv2d_3x3_s8")
POINTWISE = "rt_conv2d_1x1_s8"
CONV = "rt_conv2d_s8"
KERNELS = (*DEPTHWISE, POINTWISE, CONV)
# The in-place entries (runtime_c/src/int8/*_in_place_s8.c) and the kernel each runs on bands.
IN_PLACE = {"rt_conv2d_1x1_in_place_s8": POINTWISE,
            "rt_depthwise_conv2d_in_place_s8": DEPTHWISE[0],
            "rt_depthwise_conv2d_3x3_in_place_s8": DEPTHWISE[1]}
ALL = -1   # a call whose variants are not known: every one


def dw_plane_bit(mode: int, odd: int, bare: int) -> int:
    return 1 << (5 + 4 * (mode - 1) + 2 * odd + bare)


def quad_bit(v: int) -> int:
    return 1 << (18 + v)


@dataclass(frozen=True)
class Layer:
    """One int8 convolution as its kernel sees it (rt_conv_s8_geom and rt_conv_s8_params),
    with whether its input and weight pointers are word-aligned (None: not known)."""
    n: int
    h: int
    w: int
    cin: int
    oh: int
    ow: int
    cout: int
    kh: int
    kw: int
    stride: tuple
    pad: tuple
    dil: tuple
    output_offset: int
    act_min: int
    act_max: int
    shift: tuple
    in_aligned: Optional[bool] = None
    w_aligned: Optional[bool] = None
    # the output shares arena bytes with the input (a plan with overlaps, aot/overlap.py)
    over_input: bool = False
    scratch: Optional[int] = None      # bytes of the call's scratch (its bands), where known


def _full(L: Layer) -> bool:
    return L.act_min == -128 and L.act_max == 127


def _relu(L: Layer) -> bool:   # rt_mve_sheds_fix(output_offset, act_min)
    return L.act_min >= L.output_offset


def _shifts(L: Layer, oc: int, count: int) -> int:
    """rt_mve_pairs_make's flags of filters oc .. oc + count - 1."""
    most = max(L.shift[oc:oc + count])
    return (ANY_LEFT if most > 0 else 0) | (ALL_RIGHT if most < 0 else 0)


def _padded(k: int) -> int:   # rt_mve_padded_taps
    kp = (k + 15) & ~15
    return kp if kp <= 64 else k


def _alignments(*known: Optional[bool]) -> tuple:
    if any(a is False for a in known):
        return (False,)
    return (True,) if all(a is True for a in known) else (True, False)


def quads_variant(k: int, pitch: int, sat: bool, aligned: bool, shifts: int) -> int:
    """rt_mve_quads_variant (conv_mve_tiles.h)."""
    if pitch != k:
        return Q_AT18
    if k == 256:
        return Q_256
    if sat and k == 48:
        return Q_SAT48
    if sat and k == 64 and not aligned:
        return Q_SAT64
    if sat:
        return Q_DOWN[k] if k in Q_DOWN else Q_DOWN[8]
    return Q_CLAMP.get(k, Q_CLAMP[8]) + (1 if shifts & ALL_RIGHT else 0)


def _rows(L: Layer, k: int, aligned: Sequence[bool], count: int, shifts: int) -> int:
    """The 4x2 tile loops rows of k taps by a block of count filters take (conv_mve.c's rows,
    for any number of rows: four or more take them)."""
    sat = not (shifts & ANY_LEFT) and _full(L) and _relu(L)
    bits = 0
    for a in aligned:
        take = k in (8, 16, 32, 48, 64) or ((k == 128 or (k == 256 and sat)) and a)
        if take and not count & 1 and not shifts & ANY_LEFT and L.cout <= 21844:
            bits |= quad_bit(quads_variant(k, k, sat, a, shifts))
    return bits


def _blocks(cout: int, block: int = BLOCK):
    for oc in range(0, cout, block):
        yield oc, min(block, cout - oc)


def _gathered(L: Layer, k: int, oc: int, count: int, cols: bool,
              aligned: Sequence[bool] = (True, False)) -> int:
    """rt_mve_gathered's variants for one block (its patch on the stack: either alignment)."""
    shifts = _shifts(L, oc, count)
    bits = _rows(L, k, aligned, count, shifts)
    if cols:
        bits |= COLS
        sat = not (shifts & ANY_LEFT) and _full(L) and _relu(L)
        if k == 32 and L.stride[1] * L.kh * L.cin == 18 and L.ow >= 4 and not count & 1 and \
                sat and L.cout <= 21844:   # cols_direct
            bits |= quad_bit(Q_AT18)
    return bits


def _takes_plane(L: Layer) -> int:
    oh, ow, s = L.oh, L.ow, L.stride[0]
    blocks = ow in (2, 4, 6) and oh % 2 == 0
    if not _fits_gathered(L) or L.stride[1] != s or not _full(L) or 7 * ow * L.cout > 65535:
        return 0
    if s == 2:
        return P_BLOCKS2 if blocks and 2 * (2 * oh + 1) * P_ROW2 <= P_BYTES else 0
    if 2 * (oh + 2) * P_ROW > P_BYTES:
        return 0
    if ow in (4, 5) and oh >= 8:
        return P_COLUMNS
    return P_BLOCKS if blocks else 0


def _fits_gathered(L: Layer) -> bool:
    mult = L.cout // L.cin if L.cin > 0 else 1
    return mult == 1 and L.kh == 3 and L.kw == 3 and L.dil == (1, 1) and L.stride[1] in (1, 2)


def _c_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def _takes_gathered(L: Layer) -> int:
    ow, oh, sh, sw = L.ow, L.oh, L.stride[0], L.stride[1]
    bw = (ow - 1) * sw + 3
    full = _full(L)
    if not _fits_gathered(L):
        return 0
    if full and oh >= 16 and ow <= 7 and sh in (1, 2) and ((oh - 1) * sh + 3) * 48 <= BAND_BYTES:
        return G_LINES
    if sh == 1 and ow >= 3 and (oh >= 4 if full else oh >= 8 and L.cin >= 16) and \
            3 * 96 <= BAND_BYTES:
        return G_COLS
    return G_ROWS if ow >= 4 and 23 * ((ow + 3) >> 2) + 25 < 8 * ow and \
        bw * 48 <= BAND_BYTES else 0


def depthwise_variants(L: Layer) -> int:
    """rt_depthwise_conv2d_s8's dispatch (depthwise_conv_s8.c) and what its strategy runs."""
    taps = L.kh * L.kw
    if L.cin == 1 and 16 <= taps <= MAT_TAPS:   # takes_one_input: one_input, dw_one_input.h
        kp = _padded(taps)
        block = min((MAT_BYTES // kp) & ~1, 64)
        bits = DW_ONE_INPUT
        for oc, count in _blocks(L.cout, block):
            bits |= _gathered(L, kp, oc, count, cols=False)
        return bits
    plane = 0 if L.over_input else _takes_plane(L)   # (in_place: the bands)
    if plane:   # plane_loop
        odd = ((L.oh >> 2) if plane == P_COLUMNS else (L.oh >> 1)) & 1
        return dw_plane_bit(plane, odd, int(-128 >= L.output_offset))   # rt_mve_sheds_fix
    return {G_COLS: DW_G_COLS, G_ROWS: DW_G_ROWS, G_LINES: DW_G_LINES}.get(
        0 if L.over_input else _takes_gathered(L), DW_BAND)


def pointwise_variants(L: Layer) -> int:
    """rt_conv2d_1x1_s8: each block of filters' rows (the input's pixels)."""
    bits = 0
    for oc, count in _blocks(L.cout):
        w_aligned = None if L.w_aligned is None else L.w_aligned and (oc * L.cin) % 4 == 0
        bits |= _rows(L, L.cin, _alignments(L.in_aligned, w_aligned), count,
                      _shifts(L, oc, count))
    return bits


def _cols_bytes(L: Layer, k: int) -> int:   # rt_mve_cols_bytes
    cin, cc = L.cin, L.kh * L.cin
    taps = L.kw * cc
    ncols, step = (L.ow - 1) * L.stride[1] + L.kw, L.w * cin
    if L.dil != (1, 1) or k > 64 or taps >= k or L.kw * cin >= 16 or cin > 16 or \
            (L.kh - 1) * step + L.kw * cin <= 256 or (15 // cin) * cc + 15 % cin >= 256:
        return 0
    return ncols * cc + 32


def conv_variants(L: Layer, groups: int) -> int:
    """rt_conv2d_s8 (conv_s8.c): one group of up to RT_MVE_PATCH_MAX taps gathered, block by
    block (rows padded to kp taps where they fit in half the patch buffer, column-major where
    rt_mve_cols_bytes says); the others take C tiles, no variant."""
    k = L.kh * L.kw * (L.cin // groups)
    if groups != 1 or k > PATCH_MAX:
        return 0
    kp = _padded(k)
    cb = _cols_bytes(L, kp)
    by_cols = 0 < cb <= COLS_MAX
    bits = 0
    for oc, count in _blocks(L.cout):
        wk = kp if kp != k and count * kp <= PATCH_MAX else k
        bits |= _gathered(L, wk, oc, count, cols=by_cols and wk == kp)
    return bits


# -- from the generator's calls -----------------------------------------------------------------

_ARENA = re.compile(r"\(arena \+ (\d+)\)$")


def _aligned(ptr: str, constant: bool) -> Optional[bool]:
    """Whether a tensor's pointer is word-aligned: the arena (aligned to 16) at an offset,
    a constant (aligned to 16); a caller's buffer is not known."""
    if constant:
        return True
    m = _ARENA.search(ptr)
    return int(m.group(1)) % 4 == 0 if m else None


def _over(x, out) -> bool:
    """Both tensors in the arena, sharing bytes."""
    a, b = _ARENA.search(x.ptr), _ARENA.search(out.ptr)
    if a is None or b is None:
        return False
    xa, oa = int(a.group(1)), int(b.group(1))
    return xa < oa + int(np.prod(out.shape)) and oa < xa + int(np.prod(x.shape))


def layer_of(ctx, raw: dict) -> Optional[Layer]:
    """The convolution of one rendered call (``raw``: the Params' fields as values and the
    tensor arguments by name, spec_render's record); None where it is not known here."""
    shift = ctx.constant_values("requantize_shifts")
    if shift is None or any(k not in raw for k in ("input", "weight", "out", "params")):
        return None
    x, w, out, prm = raw["input"], raw["weight"], raw["out"], raw["params"]
    n, h, wd, cin = x.shape
    _, oh, ow, cout = out.shape
    return Layer(n=n, h=h, w=wd, cin=cin, oh=oh, ow=ow, cout=cout, kh=w.shape[1],
                 kw=w.shape[2], stride=(prm["stride_h"], prm["stride_w"]),
                 pad=(prm["pad_h"], prm["pad_w"]),
                 dil=(prm["dilation_h"], prm["dilation_w"]),
                 output_offset=prm["output_offset"], act_min=prm["act_min"],
                 act_max=prm["act_max"],
                 shift=tuple(int(v) for v in np.asarray(shift).reshape(-1)),
                 in_aligned=_aligned(x.ptr, ctx.is_constant("input")),
                 w_aligned=_aligned(w.ptr, ctx.is_constant("weight")), over_input=_over(x, out),
                 scratch=raw["scratch"].numel if "scratch" in raw else None)


def band_layers(kernel: str, L: Layer) -> tuple[str, tuple[Layer, ...]]:
    """The kernel a call runs and the layers it runs it on: an in-place entry's kernel on each
    shape of band it takes (int8/in_place_s8.h, over separate buffers) and on the whole layer
    exactly in place (the arch files run it so where their kernel takes it), where its output
    is over its input; else the call's kernel on the layer."""
    base = IN_PLACE.get(kernel, kernel)
    if base == kernel or not L.over_input:
        return base, (L,)
    bands = [] if base == POINTWISE else [L]
    if base == POINTWISE:   # as the scratch holds: a band of pixels, two bands of rows
        pixels = L.n * L.oh * L.ow
        band = min(pixels, L.scratch // L.cout) if L.scratch else \
            pointwise_band((L.n, L.h, L.w, L.cin))
        for k in sorted({min(band, pixels - i) for i in range(0, pixels, band)}):
            bands.append(replace(L, n=1, h=1, w=k, oh=1, ow=k))
    else:
        rows = L.scratch // (2 * L.w * L.cin) if L.scratch else None
        for y0, y1, r0, r1 in depthwise_bands(L.h, L.pad[0], L.kh, L.dil[0], rows):
            bands.append(replace(L, n=1, h=r1 - r0, oh=y1 - y0,
                                 pad=(r0 - y0 + L.pad[0], L.pad[1])))
    return base, tuple(dict.fromkeys(replace(b, over_input=False, in_aligned=None, scratch=None)
                                     for b in bands))


def call_variants(kernel: str, ctx, raw: dict) -> Optional[int]:
    """The RT_MVE_U_* bits of one rendered call, or None for a kernel with no variants."""
    if kernel not in KERNELS and kernel not in IN_PLACE:
        return None
    L = layer_of(ctx, raw)
    if L is None:
        return ALL   # not known here: every variant
    w = raw["weight"]
    kernel, layers = band_layers(kernel, L)
    bits = 0
    for B in layers:
        if kernel in DEPTHWISE:
            bits |= depthwise_variants(B)
        elif kernel == POINTWISE:
            bits |= pointwise_variants(B)
        else:
            bits |= conv_variants(B, B.cin // w.shape[3] if w.shape[3] else 1)
    return bits


def variants_mask(calls, key: str = "mve") -> Optional[int]:
    """A model's RT_MVE_USE (or, by ``key``, another mask of its calls' bits): the union of
    its calls' bits (0 where none has variants); None (every variant) where a call's are not
    known."""
    mask = 0
    for c in calls:
        bits = c.get(key)
        if bits == ALL:
            return None
        mask |= bits or 0
    return mask
