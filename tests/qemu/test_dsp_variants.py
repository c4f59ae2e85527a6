"""The Cortex-M4's and M7's firmware compiles only the fast paths of the DSP int8 kernels its
model takes (aot/codegen/dsp_variants.py, runtime_c/src/arch/cortex_m_dsp/dsp_variants.h):
that pruned build computes the very bytes of the full one in the same instructions (but for a
fully connected layer too small for its asm blocks) and less code, and a path left out is
never a wrong answer, only a slower one."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import aot
from aot.codegen import dsp_variants as D
from aot.codegen.mve_variants import Layer
from aot.firmware import run_on_board
from conftest import require_board

from int8_models import int8_inputs, lowered

BOARD = "mps2-an386"
_SOURCES: dict = {}


def _sources(net: str):
    if net not in _SOURCES:
        _SOURCES[net] = aot.generate_c(lowered(net, True), name=f"d_{net}")
    return _SOURCES[net]


def _run(sources, net, board=BOARD, profile=False):
    r = run_on_board(sources, require_board(board), inputs=int8_inputs(net), timeout=300,
                     profile=profile)
    assert r.status == 0 and r.exit_code == 0 and r.fault is None, r
    return r


def _same_outputs(a, b):
    assert len(a.outputs) == len(b.outputs)
    for got, want in zip(a.outputs, b.outputs):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("net", ["kws", "vww", "resnet8"])
def test_pruned_build_equals_full_build_in_less_code(net):
    pruned = _sources(net)
    assert pruned.dsp_use, pruned.dsp_use
    a = _run(pruned, net, profile=True)
    b = _run(dataclasses.replace(pruned, dsp_use=None), net, profile=True)
    _same_outputs(a, b)
    assert a.code.runtime < b.code.runtime, (a.code, b.code)
    # A path the mirror wrongly left out would cost its layer a multiple of its instructions.
    # Each call may only differ by what gcc makes of the smaller dispatch (under 1%), but for
    # a fully connected layer too small for its asm blocks (FC_MIN_MACS), which is left the C
    # loop on purpose.
    small = {r.index for r in pruned.ops
             if r.kernel == D.FULLY_CONNECTED and r.macs < D.FC_MIN_MACS}
    for ra, rb in zip(a.profile.rows, b.profile.rows):
        slack = 4 * D.FC_MIN_MACS if ra.index in small else 200
        assert ra.count <= rb.count * 1.01 + slack, (ra.index, ra.op, ra.count, rb.count)


def test_kws_on_the_m7_is_pruned_too():
    pruned = _sources("kws")
    a = _run(pruned, "kws", "mps2-an500")
    b = _run(dataclasses.replace(pruned, dsp_use=None), "kws", "mps2-an500")
    _same_outputs(a, b)
    assert a.code.runtime < b.code.runtime, (a.code, b.code)


def test_a_path_left_out_falls_back_to_the_same_bytes():
    """Each path KWS takes, left out: its layers take the next path, slower, same bytes."""
    sources = _sources("kws")
    full = _run(sources, "kws")
    bits = [1 << i for i in range(8) if sources.dsp_use >> i & 1]
    assert set(bits) == {D.PW_QUADS, D.DW3_FLAT, D.DW_PAIRS}, hex(sources.dsp_use)
    for bit in bits:
        r = _run(dataclasses.replace(sources, dsp_use=sources.dsp_use & ~bit), "kws")
        _same_outputs(r, full)
        assert r.instructions > full.instructions + 10_000, (hex(bit), r.instructions)


def test_a_small_fully_connected_layer_leaves_the_asm_blocks_out():
    """KWS's classifier (64 -> 12, 768 MACs) takes the C loop: the asm blocks' code is not
    worth their few cycles there. The autoencoder's layers keep them."""
    sources = _sources("kws")
    assert not sources.dsp_use & D.FC_BLOCKS
    assert _sources("autoencoder").dsp_use & D.FC_BLOCKS
    a = _run(sources, "kws")
    b = _run(dataclasses.replace(sources, dsp_use=sources.dsp_use | D.FC_BLOCKS), "kws")
    _same_outputs(a, b)
    assert b.code.runtime - a.code.runtime > 700, (a.code, b.code)
    assert 0 < a.instructions - b.instructions < 4 * D.FC_MIN_MACS, (a.instructions,
                                                                     b.instructions)


def _layer(**kw):
    base = dict(n=1, h=25, w=5, cin=64, oh=25, ow=5, cout=64, kh=3, kw=3, stride=(1, 1),
                pad=(1, 1), dil=(1, 1), output_offset=-128, act_min=-128, act_max=127,
                shift=(-8,) * 64)
    base.update(kw)
    return Layer(**base)


def test_mirror_of_the_dispatch():
    """Spot checks of the predicates the generator mirrors (depthwise_conv_s8.c,
    conv_1x1_s8.c, dw_dsp.h)."""
    bias, mult = (100,) * 64, (1 << 30,) * 64
    # KWS's 25x5 3x3: the planes, whole (flat); a 12x40 map's: rings of rows
    assert D.depthwise_paths(_layer(), bias, mult) == D.DW3_FLAT
    wide = _layer(h=12, w=40, oh=12, ow=40)
    assert D.depthwise_paths(wide, bias, mult) == D.DW3_ROWS
    # at stride 2: a 6x6 output's planes whole (too narrow for rings; compiled with them),
    # a 12x12's and a 24x24's rings
    assert D.depthwise_paths(_layer(h=12, w=12, oh=6, ow=6, stride=(2, 2)), bias,
                             mult) == D.DW3_ROWS
    assert D.depthwise_paths(_layer(h=24, w=24, oh=12, ow=12, stride=(2, 2)), bias,
                             mult) == D.DW3_ROWS
    assert D.depthwise_paths(_layer(h=48, w=48, oh=24, ow=24, stride=(2, 2)), bias,
                             mult) == D.DW3_ROWS
    # a narrower activation range: none of the fast paths
    assert D.depthwise_paths(_layer(act_min=0), bias, mult) == 0
    # a 3x3 on a 3x3 map: the planes whole, as on larger ones
    assert D.depthwise_paths(_layer(h=3, w=3, oh=3, ow=3), bias, mult) == D.DW3_FLAT
    # a 5x5 filter: the quads
    assert D.depthwise_paths(_layer(kh=5, kw=5, pad=(2, 2)), bias, mult) == D.DW_QUADS
    # a shift left beyond 6: none
    assert D.depthwise_paths(_layer(shift=(7,) * 64), bias, mult) == 0
    # one input channel, 10x4 taps, multiplier 64: channel pairs
    stem = _layer(cin=1, kh=10, kw=4, h=49, w=10, stride=(2, 2), pad=(4, 1))
    assert D.depthwise_paths(stem, bias, mult) == D.DW_PAIRS
    # pointwise: quads on 16 pixels or more and an even Cout, blocks on fewer, none when a
    # shift is left or Cin is not a multiple of 4
    pw = _layer(kh=1, kw=1, pad=(0, 0))
    assert D.pointwise_paths(pw, bias, mult) == D.PW_QUADS
    # (the blocks leave 2x2 = 4 pixels, 16 K MACs, to the fully connected rows)
    assert D.pointwise_paths(_layer(kh=1, kw=1, oh=2, ow=2), bias, mult) == \
        D.PW_BLOCKS | D.FC_BLOCKS
    assert D.pointwise_paths(_layer(kh=1, kw=1, oh=3, ow=2), bias, mult) == D.PW_BLOCKS
    assert D.pointwise_paths(_layer(kh=1, kw=1, shift=(1,) * 64), bias, mult) == D.FC_BLOCKS
    assert D.pointwise_paths(_layer(kh=1, kw=1, cin=62), bias, mult) == 0
    # a bias whose sums may pass 2^30: no pointwise path (the rows try their blocks)
    assert D.pointwise_paths(pw, (1 << 30,) * 64, mult) == D.FC_BLOCKS
    # long convolution patches: 148 to 576 taps of whole words, an even Cout, 4 pixels
    conv = _layer(h=16, w=16, oh=16, ow=16, cin=32, cout=32)
    assert D.conv_paths(conv, bias, mult, 1) == D.CONV_KXK            # 288 taps
    assert D.conv_paths(_layer(cin=16, cout=16), bias, mult, 1) == 0  # 144 taps: quads
    assert D.conv_paths(_layer(cin=64, cout=64), bias, mult, 1) == D.CONV_KXK    # 576
    assert D.conv_paths(_layer(cin=68, cout=64), bias, mult, 1) == 0  # 612 taps
    assert D.conv_paths(_layer(cin=32, cout=31), bias, mult, 1) == 0
    assert D.conv_paths(_layer(cin=64, cout=64), bias, mult, 2) == 0
    assert D.conv_paths(_layer(cin=32, cout=32, oh=1, ow=3), bias, mult, 1) == 0
    # fully connected rows: the blocks from FC_MIN_MACS, for symmetric weights, k a multiple
    # of 4 that the widened row holds, four outputs or more
    assert D.fc_paths(64, 12, 1, 0, -128) == 0
    assert D.fc_paths(640, 128, 1, 0, 5) == D.FC_BLOCKS
    assert D.fc_paths(64, 12, 8, 0, 5) == D.FC_BLOCKS
    assert D.fc_paths(640, 128, 1, 3, 5) == 0
    assert D.fc_paths(640, 2, 8, 0, 5) == 0
    assert D.fc_paths(1156, 128, 1, 0, 5) == 0
    assert D.fc_paths(642, 128, 1, 0, 5) == 0
