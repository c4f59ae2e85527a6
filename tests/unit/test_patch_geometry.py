"""The patch stage's geometry (aot/passes/patch_stage.py), in torch alone: for random float32
chains of convolutions (kernel, stride, padding, dilation and groups drawn at random, relus
between) and random grids, the patched edge program computes what the model does, and the
estimate of the whole-tensor peak is the planner's lower bound."""
from __future__ import annotations

import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from torch import nn

import aot
from aot.config import EdgeCompileConfig
from aot.passes._editor import ProgramEditor
from aot.passes.patch_stage import PatchError, _Estimate

_LAYER = st.tuples(st.integers(1, 5), st.integers(1, 5), st.integers(1, 3), st.integers(0, 2),
                   st.integers(1, 2), st.booleans(), st.booleans())


def _chain(layers, h: int, w: int):
    """(model, ops in the chain, output map), or None where a map would vanish."""
    mods, c = [], 2
    for kh, kw, stride, pad, dil, grouped, relu in layers:
        h = (h + 2 * pad - dil * (kh - 1) - 1) // stride + 1
        w = (w + 2 * pad - dil * (kw - 1) - 1) // stride + 1
        if h < 1 or w < 1:
            return None
        groups = 2 if grouped else 1
        mods.append(nn.Conv2d(c, 4, (kh, kw), stride, pad, dil, groups=groups))
        c = 4
        if relu:
            mods.append(nn.ReLU())
    torch.manual_seed(0)
    model = nn.Sequential(*mods, nn.Flatten()).eval()
    return model, len(mods), (h, w)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(layers=st.lists(_LAYER, min_size=1, max_size=4), h=st.integers(6, 19),
       w=st.integers(6, 19), grid=st.tuples(st.integers(1, 4), st.integers(1, 4)),
       seed=st.integers(0, 2 ** 16))
def test_a_patched_chain_computes_the_model(layers, h, w, grid, seed):
    built = _chain(layers, h, w)
    if built is None:
        return
    model, n_ops, (oh, ow) = built
    x = torch.randn(1, 2, h, w, generator=torch.Generator().manual_seed(seed))
    at = (n_ops, min(grid[0], oh), min(grid[1], ow))
    if at[1] * at[2] == 1:
        return
    ep = aot.export(model, (x,))
    try:
        edge = aot.to_edge(ep, compile_config=EdgeCompileConfig(patches=at)).to_executorch() \
            .exported_program()
    except PatchError as e:                   # strides and paddings that leave a patch no input
        assert "would read only the layers' padding" in str(e)
        return
    targets = {str(n.target) for n in edge.graph.nodes}
    assert "aten.cat.default" in targets
    with torch.no_grad():
        torch.testing.assert_close(edge.module()(x), model(x), rtol=1e-5, atol=1e-5)


def test_the_estimate_is_the_planners_bound():
    """Unpatched, the estimate is the whole-tensor bound the planner reports (in-place ops over
    their inputs' buffers included)."""
    from aot.zoo import ZOO
    for name in ("kws", "vww"):
        model, example = ZOO[name]()
        ep = aot.export(model, example)
        plain = EdgeCompileConfig(patches=False)
        edge = aot.to_edge(ep, compile_config=plain).exported_program()
        bound = aot.to_edge(ep, compile_config=plain).to_executorch().lowered().plan.lower_bound
        assert _Estimate(ProgramEditor(edge)).peak() == bound


def test_a_chain_ends_at_an_op_of_several_outputs():
    """A max pool's values and indices are no layer: the chain ends before it (squeezenet's
    float32 chain once crashed the pass there), and the stage before it still patches."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Conv2d(4, 4, 3, padding=1), nn.Flatten()).eval()
    x = torch.randn(1, 3, 12, 12, generator=torch.Generator().manual_seed(1))
    ep = aot.export(model, (x,))
    for patches in (True, (2, 3, 1)):
        program = aot.to_edge(ep, compile_config=EdgeCompileConfig(patches=patches)) \
            .to_executorch().exported_program()
        with torch.no_grad():
            torch.testing.assert_close(program.module()(x), model(x), rtol=1e-5, atol=1e-5)
