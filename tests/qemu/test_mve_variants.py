"""The Cortex-M55's firmware compiles only the Helium kernels' variants its model takes
(aot/codegen/mve_variants.py, runtime_c/src/arch/cortex_m_mve/mve_variants.h): that pruned
build computes the very bytes of the full one, in less code, and a variant its layers ask for
but left out returns RT_ERR_PARAM rather than any output."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import aot
from aot.codegen import mve_variants as V
from aot.firmware import run_on_board
from conftest import require_board

from int8_models import int8_inputs, lowered

BOARD = "mps3-an547"
RT_ERR_PARAM = 4
_SOURCES: dict = {}


def _sources(net: str):
    if net not in _SOURCES:
        _SOURCES[net] = aot.generate_c(lowered(net, True), name=f"v_{net}")
    return _SOURCES[net]


def _run(sources, net):
    return run_on_board(sources, require_board(BOARD), inputs=int8_inputs(net), timeout=180)


@pytest.mark.parametrize("net", ["kws", "vww"])
def test_pruned_build_equals_full_build_in_less_code(net):
    pruned = _sources(net)
    assert pruned.mve_use is not None and pruned.mve_use != 0
    full = dataclasses.replace(pruned, mve_use=None)
    a, b = _run(pruned, net), _run(full, net)
    for r in (a, b):
        assert r.status == 0 and r.exit_code == 0 and r.fault is None, r
    for got, want in zip(a.outputs, b.outputs):
        np.testing.assert_array_equal(got, want)
    assert a.code.runtime < b.code.runtime, (a.code, b.code)
    assert a.instructions <= b.instructions + 1000, (a.instructions, b.instructions)


def _bits(mask: int):
    return [1 << i for i in range(64) if mask >> i & 1]


@pytest.mark.parametrize("kind", ["depthwise", "quads"])
def test_variant_left_out_returns_an_error(kind):
    """KWS takes a depthwise plane loop and 4x2 tile loops: without one of them, its call
    returns RT_ERR_PARAM, and the firmware prints no outputs."""
    sources = _sources("kws")
    planes = sum(V.dw_plane_bit(m, odd, bare) for m in (1, 2, 3) for odd in (0, 1)
                 for bare in (0, 1))
    wanted = [b for b in _bits(sources.mve_use)
              if (b & planes if kind == "depthwise" else b >= V.quad_bit(0))]
    assert wanted, hex(sources.mve_use)
    for bit in wanted:
        r = _run(dataclasses.replace(sources, mve_use=sources.mve_use & ~bit), "kws")
        assert r.fault is None, r
        assert r.status == RT_ERR_PARAM, (hex(bit), r)
        assert not r.outputs or all(o is None for o in r.outputs), r


def test_mirror_of_the_dispatch():
    """Spot checks of the predicates the generator mirrors (depthwise_conv_s8.c)."""
    def layer(**kw):
        base = dict(n=1, h=25, w=5, cin=64, oh=25, ow=5, cout=64, kh=3, kw=3, stride=(1, 1),
                    pad=(1, 1), dil=(1, 1), output_offset=-128, act_min=-128, act_max=127,
                    shift=(-8,) * 64)
        base.update(kw)
        return V.Layer(**base)
    # KWS's 25x5 3x3: a whole plane down its columns, 25 rows (six groups: even), bare
    assert V.depthwise_variants(layer()) == V.dw_plane_bit(V.P_COLUMNS, 0, 1)
    # a narrower activation range: no plane; gathered taps down the columns
    assert V.depthwise_variants(layer(act_min=-100)) == V.DW_G_COLS
    # a multiplier of 2: the general strategies
    assert V.depthwise_variants(layer(cout=128, shift=(-8,) * 128)) == V.DW_BAND
    # one input channel, 10x4 taps: one_input, 48-tap rows that saturate
    one = layer(cin=1, kh=10, kw=4, h=49, w=10, oh=25, ow=5, stride=(2, 2))
    assert V.depthwise_variants(one) == V.DW_ONE_INPUT | V.quad_bit(V.Q_SAT48)
