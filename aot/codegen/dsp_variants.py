"""Which fast paths of the Cortex-M DSP int8 convolutions a model's layers take, so that its
firmware compiles only those (runtime_c/src/arch/cortex_m_dsp/dsp_variants.h).

rt_conv2d_1x1_s8 and rt_depthwise_conv2d_s8 (and rt_depthwise_conv2d_3x3_s8, which hands the
layers it does not take to the latter) pick a path per layer at run time by predicates on the
layer's shapes, quantization and biases, and so do rt_conv2d_s8's long patches and the fully
connected rows (rt_s8_fc_row, which a pointwise layer's leftover pixels take too). This module
is those predicates on a call's known values: ``call_paths`` gives one call's RT_DSP_U_* bits;
the model's union is passed to the firmware's build as -DRT_DSP_USE. A path the mask lacks is
never a wrong answer (its layers take the general path, in more cycles), so where the generator
cannot tell, it keeps the path; tests/qemu/test_dsp_variants.py checks that a pruned build runs
the zoo's networks in the instructions of the full one.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from .mve_variants import ALL, IN_PLACE, Layer, band_layers, layer_of

# dsp_variants.h's bits
PW_QUADS, PW_BLOCKS, DW3_FLAT, DW_PAIRS, DW_QUADS, DW3_ROWS, FC_BLOCKS, CONV_KXK = \
    (1 << b for b in range(8))

# The fully connected asm blocks (fc_row_s8.c's fc_blocks, about 950 B on the M4) are built
# only for a model with a row that would take them over this many multiply-accumulates: they
# save about 2 cycles a MAC, so a smaller layer (a keyword spotter's 768-MAC classifier) is
# not worth their code and takes the C loop, in the same bytes out.
FC_MIN_MACS = 4096

# The C's sizes: conv_dsp.h's RT_DSP_Q_K, RT_DSP_Q_PIXELS, RT_DSP_PX_CIN, RT_DSP_PX,
# RT_DSP_WIDE_WORDS; depthwise_conv_s8.c's DW_TAPS, DW_ROWS, DW_RING_WORDS, DWM_PAIRS; dw_dsp.h's
# DW3_COLS and DW3_FLAT; conv_s8.c's CONV_KXK_MIN and conv_kxk.h's RT_KXK_TAPS.
Q_K, Q_PIXELS, PX_CIN, PX, WIDE_WORDS = 256, 16, 256, 6, 576
KXK_MIN, KXK_TAPS = 148, 576
DW_TAPS, DW_ROWS, DW_RING_WORDS, DWM_PAIRS = 48, 12, 448, 32
DW3_COLS = 104
DW3_FLAT_HALFWORDS = (4 * 3 + 1) * DW3_COLS // 4

INT32_MAX = 2**31 - 1
DEPTHWISE, DEPTHWISE_3X3, POINTWISE, CONV, FULLY_CONNECTED = \
    "rt_depthwise_conv2d_s8", "rt_depthwise_conv2d_3x3_s8", "rt_conv2d_1x1_s8", "rt_conv2d_s8", \
    "rt_fully_connected_s8"


def _sum_bound(bias: int, n: int) -> int:   # rt_dsp_sum_bound
    return min(abs(bias) + n * 255 * 128, INT32_MAX)


def _full(L: Layer) -> bool:
    return L.act_min == -128 and L.act_max == 127 and -128 <= L.output_offset <= 127


def pw_fits(L: Layer, bias, mult, cin: int) -> bool:   # rt_dsp_pw_fits
    return cin % 4 == 0 and _full(L) and all(
        -22 <= s <= 0 and m >= 0 and _sum_bound(b, cin) < 1 << 30
        for s, m, b in zip(L.shift, mult, bias))


def dw_requant_fits(L: Layer, bias, mult, taps: int) -> bool:   # rt_dsp_dw_requant_fits
    return _full(L) and all(
        -22 <= s <= 6 and m >= 0 and _sum_bound(b, taps) < 1 << (30 - max(s, 0))
        for s, m, b in zip(L.shift, mult, bias))


def _is_dw3x3(L: Layer) -> bool:   # rt_conv_s8_is_dw3x3
    return L.kh == 3 and L.kw == 3 and L.cout == L.cin and L.dil == (1, 1)


def _dw3_flat(L: Layer) -> bool:   # rt_dsp_dw3_flat_pw (and rt_dsp_dw3_tall, _flat_steps)
    tall = L.ow < L.oh
    lines, length = (L.ow, L.oh) if tall else (L.oh, L.ow)
    pw = (length + 3) & ~1
    steps = ((lines - 1) * pw + length + 7) // 8
    return L.stride == (1, 1) and (lines + 2) * pw <= DW3_FLAT_HALFWORDS and \
        8 * steps + 2 * pw + 2 <= DW3_FLAT_HALFWORDS


def _dw3_flat2(L: Layer) -> bool:   # rt_dsp_dw3_flat_pw at stride 2 (dw3_flat2_pw, _odd)
    pw2 = 2 * (L.ow + 1)
    steps = ((L.oh - 1) * (L.ow + 1) + L.ow + 7) // 8
    return L.stride == (2, 2) and (2 * L.oh + 1) * pw2 <= DW3_FLAT_HALFWORDS and \
        (L.oh + 1) * pw2 + 16 * steps + 2 <= DW3_FLAT_HALFWORDS


def dw3_mode(L: Layer, bias, mult) -> int:
    """rt_dsp_dw3_takes: DW3_FLAT or DW3_ROWS for the mode the planes take the layer in (the
    whole planes at stride 2 are compiled with the rings, under DW3_ROWS), 0 when they do
    not take it."""
    sw = L.stride[1]
    if L.ow == 0 or L.oh == 0 or L.pad[1] > 2 or not dw_requant_fits(L, bias, mult, 9):
        return 0
    if _dw3_flat2(L):
        return DW3_ROWS
    if _dw3_flat(L):
        return DW3_FLAT
    rows = L.ow >= 8 and sw in (1, 2) and ((4 * ((L.ow + 3) // 4) * sw + 3) & ~1) <= DW3_COLS
    return DW3_ROWS if rows else 0


def depthwise_paths(L: Layer, bias, mult) -> int:
    """rt_depthwise_conv2d_s8's dispatch (depthwise_conv_s8.c), which is also the 3x3
    kernel's: the planes first, where they take the layer."""
    mode = dw3_mode(L, bias, mult) if _is_dw3x3(L) else 0
    if mode:
        return mode
    taps, m = L.kh * L.kw, L.cout // L.cin if L.cin > 0 else 1
    pw = max(DW_RING_WORDS // (2 * (L.kh + 1)), L.kw)
    if L.dil == (1, 1) and m % 2 == 0 and \
            ((L.kh * ((L.kw + 1) // 2) + 3) & ~3) <= DWM_PAIRS and \
            dw_requant_fits(L, bias, mult, taps):   # dwm_fits
        return DW_PAIRS
    if L.dil == (1, 1) and (m == 1 or m % 4 == 0) and taps <= DW_TAPS and L.kh <= DW_ROWS \
            and (L.kh + 1) * pw * 2 <= DW_RING_WORDS and L.cout >= 4 and \
            dw_requant_fits(L, bias, mult, taps):   # quad_fits
        return DW_QUADS
    return 0


def fc_paths(k: int, cout: int, rows: int, filter_offset: int, output_offset: int) -> int:
    """rt_s8_fc_row's: FC_BLOCKS where its asm blocks take the rows (fc_row_s8.c) and the
    rows are worth them (FC_MIN_MACS)."""
    takes = k > 0 and k % 4 == 0 and k // 2 <= WIDE_WORDS and cout >= 4 and \
        filter_offset == 0 and -128 <= output_offset <= 127
    return FC_BLOCKS if takes and rows * k * cout >= FC_MIN_MACS else 0


def pointwise_paths(L: Layer, bias, mult) -> int:
    """rt_conv2d_1x1_s8's dispatch (conv_1x1_s8.c): quads, or blocks and the pixels they leave
    as fully connected rows (rt_s8_fc_row)."""
    pixels = L.n * L.oh * L.ow
    fits = pw_fits(L, bias, mult, L.cin)
    if fits and L.cin <= Q_K and L.cout % 2 == 0 and pixels >= Q_PIXELS:
        return PW_QUADS
    blocks = fits and L.cin <= PX_CIN
    left = pixels % PX
    whole = (pixels if left >= 4 and pixels > PX else pixels - left) if blocks else 0
    rows = fc_paths(L.cin, L.cout, pixels - whole, 0, L.output_offset)
    return (PW_BLOCKS if blocks else 0) | rows


def conv_paths(L: Layer, bias, mult, groups: int) -> int:
    """rt_conv2d_s8's long patches (conv_s8.c): CONV_KXK where conv_kxk takes the layer."""
    taps = L.kh * L.kw * (L.cin // groups if groups else 0)
    takes = groups == 1 and taps % 4 == 0 and KXK_MIN <= taps <= KXK_TAPS and \
        L.cout % 2 == 0 and L.oh * L.ow >= 4 and pw_fits(L, bias, mult, taps)
    return CONV_KXK if takes else 0


def _values(ctx, raw: dict, name: str, count: int):
    """A constant int32 argument's values (zeros where the argument is absent); None where
    they are not known here."""
    if name == "bias" and raw.get(name) is None:
        return (0,) * count
    v = ctx.constant_values(name)
    if v is None or v.size < count:
        return None
    return tuple(int(x) for x in np.asarray(v).reshape(-1)[:count])


def call_paths(kernel: str, ctx, raw: dict) -> Optional[int]:
    """The RT_DSP_U_* bits of one rendered call (spec_render's record, as for
    mve_variants.call_variants), or None for a kernel with no such paths."""
    if kernel == FULLY_CONNECTED:
        if any(k not in raw for k in ("input", "weights", "params")):
            return ALL
        w, prm = raw["weights"], raw["params"]
        cout, k = w.shape
        rows = int(np.prod(raw["input"].shape)) // k if k else 0
        return fc_paths(k, cout, rows, prm["filter_offset"], prm["output_offset"])
    if kernel not in (DEPTHWISE, DEPTHWISE_3X3, POINTWISE, CONV) and kernel not in IN_PLACE:
        return None
    L = layer_of(ctx, raw)
    if L is None:
        return ALL
    bias = _values(ctx, raw, "bias", L.cout)
    mult = _values(ctx, raw, "requantize_multipliers", L.cout)
    if bias is None or mult is None or len(L.shift) < L.cout:
        return ALL
    banded = kernel in IN_PLACE and L.over_input
    kernel, layers = band_layers(kernel, L)
    bits = 0
    for B in layers:
        if kernel == POINTWISE and banded:   # conv_1x1_in_place_s8.c: quads on every band
            quads = pw_fits(B, bias, mult, B.cin) and B.cin <= Q_K and B.cout % 2 == 0 and \
                B.ow >= 4
            bits |= PW_QUADS if quads else pointwise_paths(B, bias, mult)
        elif kernel == POINTWISE:
            bits |= pointwise_paths(B, bias, mult)
        elif kernel == CONV:
            w = raw["weight"]
            bits |= conv_paths(B, bias, mult, B.cin // w.shape[3] if w.shape[3] else 0)
        else:
            bits |= depthwise_paths(B, bias, mult)
    return bits
