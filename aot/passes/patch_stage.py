"""Patch-based stages (MCUNetV2's idea): a run of a convolutional network's layers computed
patch by patch, so their large maps never exist whole.

A chain starts at a user input, each op read only by the next: int8 convolutions and
depthwise layers (NHWC, after the input's quantize and NCHW -> NHWC transpose, if any: the
stage's head, which works pixel by pixel too), or float32 convolutions and their activations
(NCHW). A stage is any run of a chain's layers: from the input, or from the map a layer of it
writes (the stage's input, then). Its output map is cut into a grid; each patch's layers
compute just the window its outputs need (the halo), read from a crop of the stage's input,
and the patches are concatenated into the stage's output. Inside the map a window's border is
real data; at the map's edge a layer's zero padding becomes an explicit pad of the patch (the
int8 input's zero point, or 0.0), except along an axis the patch's outputs span whole (a
strip's columns), where the layer keeps its own padding; so every convolution sums the taps
the whole layer sums: int8 is bit-exact with it, float32 equal up to the kernels' order of
summation.

The price is what the patches cost over the layers computed whole, in cycles as ``_Costs``
models the M4's and the M55's kernels (the larger share of the network's counts): the halos'
recomputed MACs, a depthwise layer's fixed cost for each output row of each channel (a narrow
patch pays it for fewer outputs), and the crops', pads' and concatenations' bytes and runs (a
crop of a few columns is a short copy a row). The pass runs where ``to_executorch`` plans the
arena, so it knows whether the plan may overlap outputs with their inputs. It tries every
stage and grid whose price is within ``BUDGET`` of the network's modelled cycles and estimates
each one's peak: the whole-tensor liveness peak, or with overlaps the plan's least bytes
outside the stage beside the stage's own whole-tensor peak. Of the estimate's best, smallest
peak first and each cheaper than those before (``options``), it plans each and keeps the
smallest arena, the cheapest of equals, if it is below the program's own; else it changes
nothing. It is on by default: a stage is only taken where it lowers the arena.
"""
from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field
from typing import Callable, Optional

import torch
from torch.export import ExportedProgram
from torch.export.graph_signature import InputKind, OutputKind
from torch.fx.traceback import NodeSource

from ..errors import AotError
from ..memory import Buffer, lower_bound, overlap_live
from ..ops import OUT, bind_out_args, lookup
from ._editor import ProgramEditor

Q = torch.ops.mcu_aot
_CONV = Q.quantized_conv2d_nhwc.default
_DEPTHWISE = Q.quantized_depthwise_conv2d_nhwc.default
_INPUT_OFFSET = {_CONV: 6, _DEPTHWISE: 7}     # positional index of input_offset (-z_in)
_FLOAT_CONV = torch.ops.aten.convolution.default
_FLOAT_ACTS = {torch.ops.aten.relu.default, torch.ops.aten.hardtanh.default,
               torch.ops.aten.clamp.default}  # pixel by pixel: the window passes through
_NCHW_TO_NHWC = [0, 2, 3, 1]
BUDGET = 0.04          # a stage's price (the cycles it adds to the whole layers'), as a share
                       # of the network's, both as _Costs models them
MAX_GRID = 6           # patches per side at most
OPTIONS = 8            # stages the pass plans (each its own lowering) to keep the smallest arena


class PatchError(AotError):
    """An explicit patch grid the program cannot take."""


@dataclass(frozen=True)
class PatchStage:
    """The stage the pass chose: what ``aot report`` prints."""
    nodes: tuple[str, ...]        # the chain's nodes, as the lowered program named them
    grid: tuple[int, int]         # patches down, patches across
    out_shape: tuple[int, ...]    # the stage's output, NHWC
    macs: int                     # the stage's MACs, layers computed whole
    patched_macs: int             # the same, patch by patch (halos recomputed)
    network_macs: int
    peak: int                     # estimated whole-tensor peak of the network without patches
    patched_peak: int             # and with them
    copied: int = 0               # elements the patches' crops, pads and concatenations copy
    first: bool = True            # the stage starts at a user input (else at a layer's map)
    shares: tuple[tuple[str, float], ...] = ()   # per core, the share of the network's
                                                 # cycles the patches add (``_Costs``)

    @property
    def price(self) -> float:
        """What the stage costs over the whole layers: the largest share of the network's
        cycles it adds on a modelled core."""
        return max((s for _, s in self.shares), default=0.0)

    def describe(self) -> str:
        extra = self.patched_macs - self.macs
        n, h, w, c = self.out_shape
        return (f"{'first ' if self.first else ''}{len(self.nodes)} ops ({self.nodes[0]} .. "
                f"{self.nodes[-1]}) in a {self.grid[0]}x{self.grid[1]} grid of patches into "
                f"{h}x{w}x{c}\n"
                f"{extra:,} MACs recomputed (+{100 * extra / max(1, self.network_macs):.1f}% "
                f"of {self.network_macs:,}), {self.copied:,} elements copied: modelled "
                + ", ".join(f"+{100 * v:.1f}% {core}" for core, v in self.shares) +
                f" cycles\nestimated peak {self.peak:,} -> {self.patched_peak:,} B")


@dataclass(frozen=True)
class _Layer:
    node: torch.fx.Node
    kernel: tuple[int, int]        # (1, 1), stride 1 and no padding: an activation
    stride: tuple[int, int]
    pad: tuple[int, int]
    dilation: tuple[int, int]
    in_hw: tuple[int, int]
    out_shape: tuple[int, ...]     # NHWC (int8) or NCHW (float32)
    macs_per_pixel: int
    pad_value: object              # what a padded tap holds: the int8 input's zero point, 0.0

    @property
    def is_activation(self) -> bool:
        return self.node.target in _FLOAT_ACTS


@dataclass(frozen=True)
class _Chain:
    x: torch.fx.Node               # the user input
    head: tuple[torch.fx.Node, ...]     # the input's quantize and transpose, where present
    layers: tuple[_Layer, ...]

    @property
    def transposed(self) -> bool:
        """The input is NCHW, the layers NHWC."""
        return any(n.target == Q.transpose.default for n in self.head)

    @property
    def nchw(self) -> bool:
        """The layers' maps are NCHW (float32); else NHWC (int8)."""
        return self.layers[0].node.target == _FLOAT_CONV or self.layers[0].is_activation

    @property
    def itemsize(self) -> int:
        return self.layers[0].node.meta["val"].element_size()


@dataclass
class _Step:
    """One op of the patched schedule: its kind, output shape, inputs (step indices, or -1 for
    the stage's input) and what it needs to become a node."""
    kind: str                      # slice | head | pad | layer | cat
    shape: tuple[int, ...]
    reads: list[int]
    args: dict = field(default_factory=dict)
    itemsize: int = 1              # bytes an element (a crop of a float input: 4)


def _shape(node) -> tuple[int, ...]:
    return tuple(node.meta["val"].shape)


def _layer(node: torch.fx.Node, nchw: bool) -> Optional[_Layer]:
    """The node as a layer of an int8 (NHWC) or a float32 (NCHW) stage, or None."""
    if node.op != "call_function" or not node.args or \
            not isinstance(node.meta.get("val"), torch.Tensor) or \
            not isinstance(node.args[0], torch.fx.Node) or \
            not isinstance(node.args[0].meta.get("val"), torch.Tensor) or \
            len(_shape(node.args[0])) != 4 or _shape(node.args[0])[0] != 1:
        return None       # (a max pool's values and indices, say: no layer)
    xs, out = _shape(node.args[0]), _shape(node)
    h, w = (2, 3) if nchw else (1, 2)
    if nchw and node.target in _FLOAT_ACTS and out == xs:
        return _Layer(node, (1, 1), (1, 1), (0, 0), (1, 1), (xs[h], xs[w]), out, 0, 0.0)
    if nchw and node.target == _FLOAT_CONV and not node.args[6]:
        ws = _shape(node.args[1])
        kernel, pad_value = (ws[2], ws[3]), 0.0
    elif not nchw and node.target in _INPUT_OFFSET:
        ws = _shape(node.args[1])
        kernel, pad_value = (ws[1], ws[2]), -int(node.args[_INPUT_OFFSET[node.target]])
    else:
        return None
    stride, pad, dil = (tuple(int(v) for v in node.args[i]) for i in (3, 4, 5))
    if len(pad) != 2 or node.meta["val"].dtype != node.args[0].meta["val"].dtype:
        return None
    return _Layer(node, kernel, stride, pad, dil, (xs[h], xs[w]), out, math.prod(ws),
                  pad_value)


def _chains(ed: ProgramEditor) -> list[_Chain]:
    """Each user input's chain of single-reader int8 convolutions (after an optional NCHW ->
    NHWC transpose, and its quantize) or float32 convolutions and activations."""
    found = []
    placeholders = [n for n in ed.graph.nodes if n.op == "placeholder"]
    for spec, x in zip(ed.input_specs, placeholders):   # in order (a deep copy renames some)
        if spec.kind != InputKind.USER_INPUT or len(x.users) != 1:
            continue
        node, head = next(iter(x.users)), []
        for target, ok in ((Q.quantize_per_tensor.default, lambda n: True),
                           (Q.transpose.default,
                            lambda n: list(n.args[1]) == _NCHW_TO_NHWC)):
            if node.target == target and ok(node) and len(node.users) == 1:
                head.append(node)
                node = next(iter(node.users))
        layers, prev = [], head[-1] if head else x
        nchw = not head and node.target == _FLOAT_CONV
        while (layer := _layer(node, nchw)) is not None and node.args[0] is prev:
            layers.append(layer)
            if len(node.users) != 1:
                break
            prev, node = node, next(iter(node.users))
        if any(not la.is_activation for la in layers):
            found.append(_Chain(x, tuple(head), tuple(layers)))
    return found


def _split(n: int, parts: int) -> list[tuple[int, int]]:
    edges = [n * i // parts for i in range(parts + 1)]
    return list(zip(edges, edges[1:]))


def _window(span: tuple[int, int], k: int, s: int, p: int, d: int, size: int):
    """The input range a layer's outputs ``span`` read, clipped to the map, and the padding
    (before, after) the clipping leaves."""
    lo, hi = span[0] * s - p, (span[1] - 1) * s - p + d * (k - 1) + 1
    return (max(lo, 0), min(hi, size)), (max(0, -lo), max(0, hi - size))


def _kept(layer: _Layer, whole: tuple[bool, bool]) -> tuple[int, int]:
    """The padding a patch's layer keeps, per axis: the layer's own where its outputs span the
    whole axis (a full-width strip's columns), so its kernel pads them as it pads the whole
    map (a stride-2 layer may not read its last padded column: the clipping leaves (1, 0));
    else none, and an explicit pad supplies what the clipping left."""
    return tuple(p if w else 0 for p, w in zip(layer.pad, whole))


def _hw(chain: _Chain) -> tuple[int, int]:
    """The dims of a map's rows and columns."""
    return (2, 3) if chain.nchw else (1, 2)


def _nhwc(shape: tuple, chain: _Chain) -> tuple[int, ...]:
    return (shape[0], shape[2], shape[3], shape[1]) if chain.nchw else tuple(shape)


def schedule(chain: _Chain, grid: tuple[int, int]) -> Optional[list[_Step]]:
    """The stage's ops, patch by patch in row-major order: crop, the head, then per layer an
    optional border pad and the unpadded layer; each row of patches concatenated along W as it
    finishes, the rows along H at the end. None where a patch would read only padding."""
    steps: list[_Step] = []

    x_item = item = chain.x.meta["val"].element_size()

    def add(kind, shape, reads, **args) -> int:
        steps.append(_Step(kind, tuple(shape), list(reads), args, item))
        return len(steps) - 1

    layers, last = chain.layers, chain.layers[-1].out_shape
    h, w = _hw(chain)
    x_shape = _shape(chain.x)
    strips = []
    for out_rows in _split(last[h], grid[0]):
        pieces = []
        for out_cols in _split(last[w], grid[1]):
            windows, rows, cols = [], out_rows, out_cols
            for layer in reversed(layers):
                whole = tuple(span == (0, size) for span, size in
                              ((rows, layer.out_shape[h]), (cols, layer.out_shape[w])))
                (rows, pr), (cols, pc) = (
                    _window(span, layer.kernel[a], layer.stride[a], layer.pad[a],
                            layer.dilation[a], layer.in_hw[a]) for a, span in ((0, rows),
                                                                               (1, cols)))
                windows.append((rows, cols, pr + pc, whole))
                if rows[1] <= rows[0] or cols[1] <= cols[0]:
                    return None                 # a patch whose window is all padding
            windows.reverse()
            at, shape, item = -1, list(x_shape), x_item
            x_h, x_w = (2, 3) if chain.transposed else (h, w)
            for dim, (lo, hi) in ((x_h, windows[0][0]), (x_w, windows[0][1])):
                if (lo, hi) != (0, shape[dim]):
                    shape[dim] = hi - lo
                    at = add("slice", shape, [at], dim=dim, start=lo, end=hi)
            for i, node in enumerate(chain.head):
                if node.target == Q.transpose.default:
                    shape = [shape[d] for d in _NCHW_TO_NHWC]
                item = node.meta["val"].element_size()
                at = add("head", shape, [at], node=i)
            item = chain.itemsize
            for i, (layer, (_, _, pads, whole)) in enumerate(zip(layers, windows)):
                kept = _kept(layer, whole)
                pads = tuple(0 if whole[a // 2] else v for a, v in enumerate(pads))
                top, bottom, left, right = pads
                if any(pads):
                    shape[h], shape[w] = shape[h] + top + bottom, shape[w] + left + right
                    at = add("pad", shape, [at], layer=i, pads=pads)
                size, shape = list(shape), list(layer.out_shape)
                for a, dim in enumerate((h, w)):
                    shape[dim] = (size[dim] + 2 * kept[a] - layer.dilation[a] *
                                  (layer.kernel[a] - 1) - 1) // layer.stride[a] + 1
                at = add("layer", shape, [at], layer=i, pad=kept)
            pieces.append(at)
        if len(pieces) == 1:
            strips.append(pieces[0])
        else:
            shape = list(last)
            shape[h] = out_rows[1] - out_rows[0]
            strips.append(add("cat", shape, pieces, dim=w))
    if len(strips) > 1:
        add("cat", last, strips, dim=h)
    return steps


def _macs(steps: list[_Step], stage: _Chain) -> int:
    h, w = _hw(stage)
    return sum(s.shape[h] * s.shape[w] * stage.layers[s.args["layer"]].macs_per_pixel
               for s in steps if s.kind == "layer")


def _nbytes(node) -> int:
    val = node.meta.get("val")
    vals = val if isinstance(val, (list, tuple)) else [val]
    return sum(v.numel() * v.element_size() for v in vals if isinstance(v, torch.Tensor))


def _peak(events: list[tuple[object, int, list]], outputs: set, alive: dict,
          span: Optional[tuple[int, int]] = None) -> int:
    """The whole-tensor liveness peak of ``events`` (key, bytes, keys read), in order, with
    ``alive`` (key -> bytes) live from the start and ``outputs`` to the end; or, given a
    ``span`` of events (first, last), the peak there. An event of None bytes writes over the
    buffer it names (an op in place)."""
    born = {k: -1 for k in alive}
    size = dict(alive)
    death: dict = {}
    for i, (key, nbytes, reads) in enumerate(events):
        if nbytes is not None:        # None: an op in place, over its input's buffer
            born[key], size[key] = i, nbytes
        death[key] = i
        for r in reads:
            if r in size:
                death[r] = i
    for k in outputs:
        death[k] = len(events)
    buffers = [Buffer(i, size[k], b, max(death.get(k, b), b))
               for i, (k, b) in enumerate(born.items())]
    if span is None:
        return lower_bound(buffers, alignment=1)
    live = overlap_live(buffers, alignment=1)
    return max((live.get(t, 0) for t in range(span[0], span[1] + 1)), default=0)


def _network_macs(graph: torch.fx.Graph) -> int:
    """The MACs of every call, as the op table counts them (tensors by their shapes)."""
    total = 0
    for node in graph.nodes:
        op = lookup(node.target) if node.op == "call_function" else None
        if op is None:
            continue
        args = {a.name: _shape(v) if isinstance(v, torch.fx.Node) else v
                for a, v in bind_out_args(op, node) if v is not OUT}
        val = node.meta["val"]
        outs = [tuple(v.shape) for v in (val if isinstance(val, (list, tuple)) else [val])]
        total += op.macs(args, outs)
    return total


class _Estimate:
    """The liveness peak of the program with one chain's stage replaced by a schedule. An op
    the op table runs in place (OpDef.inplace) over an input it alone reads takes over that
    input's buffer, as the planner does.

    Given ``live``, the bytes the plan with overlaps must hold at each node of the program as
    it is (its position in the graph -> bytes: ``overlap_live`` of its lowering), the peak is
    the largest of those outside the stage and of the stage's own whole-tensor peak (an upper
    bound: its patches' overlaps are not counted)."""

    def __init__(self, ed: ProgramEditor, live: Optional[dict[int, int]] = None):
        nodes = list(ed.graph.nodes)
        self.live = None if live is None else {nodes[i]: n for i, n in live.items()}
        self.inputs = {n: _nbytes(n) for n in ed.graph.nodes
                       if n.op == "placeholder" and not ed.is_const(n)}
        out = next(n for n in reversed(ed.graph.nodes) if n.op == "output")
        self.outputs = {a for a in out.args[0] if isinstance(a, torch.fx.Node)}
        self.nodes = []                  # (node, bytes, inputs, the input it runs over)
        for node in ed.graph.nodes:
            if node.op != "call_function":
                continue
            op, first = lookup(node.target), node.args[0] if node.args else None
            over = first if op is not None and op.inplace and \
                isinstance(first, torch.fx.Node) and len(first.users) == 1 and \
                first not in self.inputs and _nbytes(node) == _nbytes(first) else None
            self.nodes.append((node, _nbytes(node), node.all_input_nodes, over))

    def events(self, replaced: tuple = (), steps: list[_Step] = (), x=None, end=None,
               stage: Optional[_Chain] = None):
        gone, key = set(replaced), {}
        events, span = [], None

        def at(a):
            return key.get(a, a)
        for node, nbytes, inputs, over in self.nodes:
            if node in gone:
                if node is replaced[0]:
                    span = (len(events), len(events) + len(steps) - 1)
                    for i, st in enumerate(steps):
                        reads = [at(x) if r < 0 else at(("step", r)) for r in st.reads]
                        if st.kind == "layer" and stage.layers[st.args["layer"]].is_activation:
                            key[("step", i)] = reads[0]
                            events.append((reads[0], None, reads))
                        else:
                            events.append((("step", i), math.prod(st.shape) * st.itemsize,
                                           reads))
                    key[end] = at(("step", len(steps) - 1))
                continue
            reads = [at(a) for a in inputs]
            if over is not None:
                key[node] = at(over)
                events.append((key[node], None, reads))
            else:
                events.append((node, nbytes, reads))
        return events, {at(o) for o in self.outputs}, span

    def peak(self, replaced: tuple = (), *args) -> int:
        events, outputs, span = self.events(replaced, *args)
        if self.live is None:
            return _peak(events, outputs, self.inputs)
        gone = set(replaced)
        outside = max((n for node, n in self.live.items() if node not in gone), default=0)
        return max(outside, _peak(events, outputs, self.inputs, span) if span else 0)


def _grids(rows: int, cols: int) -> list[tuple[int, int]]:
    """Every grid of up to MAX_GRID patches a side, at least a row and a column each."""
    return [(a, b) for a in range(1, min(MAX_GRID, rows) + 1)
            for b in range(1, min(MAX_GRID, cols) + 1) if a * b > 1]


def _substage(chain: _Chain, start: int, end: int) -> _Chain:
    """The chain's layers ``start`` to ``end`` (exclusive), from the map the one before writes
    (the chain's input and head for the first)."""
    if start == 0:
        return _Chain(chain.x, chain.head, chain.layers[:end])
    return _Chain(chain.layers[start - 1].node, (), chain.layers[start:end])


def _copied(steps: list[_Step]) -> int:
    """Elements the schedule's crops, pads and concatenations copy."""
    return sum(math.prod(s.shape) for s in steps if s.kind in ("slice", "pad", "cat"))


@dataclass(frozen=True)
class _Costs:
    """A core's cycles for the ops a stage runs: a convolution's MAC, a depthwise layer's MAC
    and its fixed cost per output row and channel (its rows' setup: on the M4 a 48-wide int8
    3x3 layer runs at 2.9 cycles a MAC, an 8-wide patch of it at 5.5), a copy's byte and its
    fixed cost per contiguous run (a call, its index arithmetic), and the network's cycles per
    MAC on average. Fitted to ``aot run --cycles --profile`` of the zoo's and mobilenet_v2's
    patched and whole layers on mps2-an386 (the M4's DSP and FPU kernels) and mps3-an547 (the
    M55's Helium kernels; its float32 figures from stages forced on KWS and ResNet-8, as no
    float network the pass patches fits its flash)."""
    core: str
    conv: float
    depthwise: float
    row: float
    run: float
    byte: float
    network: float


_COSTS = {1: (_Costs("M4", conv=2.6, depthwise=3.0, row=230.0, run=150.0, byte=1.0,
                     network=1.8),
              _Costs("M55", conv=0.7, depthwise=0.9, row=8.0, run=30.0, byte=0.8,
                     network=0.4)),
          4: (_Costs("M4", conv=4.0, depthwise=5.0, row=90.0, run=300.0, byte=1.0,
                     network=3.4),
              _Costs("M55", conv=2.0, depthwise=4.0, row=100.0, run=180.0, byte=1.0,
                     network=1.4))}


def _depthwise(layer: _Layer) -> bool:
    """A depthwise layer: int8's own op, or a float convolution of one group a channel (a
    grouped layer of several channels a group is priced as a convolution)."""
    node = layer.node
    return node.target == _DEPTHWISE or (
        node.target == _FLOAT_CONV and node.args[8] > 1 and
        node.args[8] == node.args[0].meta["val"].shape[1])


def _cycles(steps: list[_Step], stage: _Chain, k: _Costs) -> float:
    """The modelled cycles of ``steps`` on a core: the layers' MACs (and a depthwise layer's
    rows), the head's and the copies' bytes, and each copy's contiguous runs."""
    h, w = _hw(stage)
    c = 1 if stage.nchw else 3
    total = 0.0
    for s in steps:
        n = math.prod(s.shape)
        if s.kind == "layer":
            layer = stage.layers[s.args["layer"]]
            macs = s.shape[h] * s.shape[w] * layer.macs_per_pixel
            if layer.is_activation:
                total += k.byte * n * s.itemsize
            elif _depthwise(layer):
                total += k.depthwise * macs + k.row * s.shape[h] * s.shape[c]
            else:
                total += k.conv * macs
            continue
        if s.kind == "slice":
            runs = math.prod(s.shape[:s.args["dim"]])
        elif s.kind == "cat":
            runs = math.prod(s.shape[:s.args["dim"]]) * len(s.reads)
        elif s.kind == "pad":
            runs = math.prod(s.shape[:h + 1])     # a row at a time (NCHW: of each channel)
        else:
            runs = 0                              # the head: whole in both, bytes alone
        total += k.run * runs + k.byte * n * s.itemsize
    return total


def _whole_macs(stage: _Chain) -> int:
    h, w = _hw(stage)
    return sum(la.out_shape[h] * la.out_shape[w] * la.macs_per_pixel for la in stage.layers)


def _shares(stage: _Chain, steps: list[_Step], network: int) -> tuple[tuple[str, float], ...]:
    """Per modelled core, the share of the network's cycles that ``steps`` add to the stage's
    layers computed whole."""
    whole = schedule(stage, (1, 1))
    return tuple((k.core, (_cycles(steps, stage, k) - _cycles(whole, stage, k)) /
                  (k.network * max(1, network))) for k in _COSTS[stage.itemsize])


def _describe(est: _Estimate, network: int, base: int, stage: _Chain, grid: tuple[int, int],
              steps: list[_Step], shares: tuple[tuple[str, float], ...]) -> PatchStage:
    """What ``stage`` in ``grid``, scheduled as ``steps``, costs (its ``_shares``) and saves."""
    replaced = list(stage.head) + [la.node for la in stage.layers]
    peak = est.peak(tuple(replaced), steps, stage.x, stage.layers[-1].node, stage)
    return PatchStage(tuple(n.name for n in replaced), grid,
                      _nhwc(stage.layers[-1].out_shape, stage), _whole_macs(stage),
                      _macs(steps, stage), network, base, peak, _copied(steps),
                      stage.x.op == "placeholder", shares)


@dataclass(frozen=True)
class _Option:
    """A stage the pass may take: the chain (its index in ``_chains``), its layers [start,
    end), the grid, and what the estimate says it costs and saves."""
    chain: int
    start: int
    end: int
    grid: tuple[int, int]
    info: PatchStage


def options(ed: ProgramEditor, live: Optional[dict[int, int]] = None) -> list[_Option]:
    """The stages worth planning, smallest estimated peak (``_Estimate``'s, with ``live``)
    first: each one's price (modelled cycles) is within ``BUDGET`` of the network's and below
    every option's of a smaller peak, and its peak is below the unpatched one. At most
    ``OPTIONS`` of them. A stage is any run of a chain's layers, from its input or from a
    layer's map; a longer one in the same grid recomputes at least as many MACs, so the
    search stops there once they alone are over the budget."""
    est = _Estimate(ed, live)
    base, network = est.peak(), _network_macs(ed.graph)
    found = []
    for c, chain in enumerate(_chains(ed)):
        least = max(min(k.conv, k.depthwise) / (k.network * max(1, network))
                    for k in _COSTS[chain.itemsize])     # a recomputed MAC's share, at least
        for start, first in enumerate(chain.layers):
            for grid in [] if first.is_activation else _grids(MAX_GRID, MAX_GRID):
                for end in range(start + 1, len(chain.layers) + 1):
                    stage = _substage(chain, start, end)
                    if stage.layers[-1].node in est.outputs:
                        break
                    _, rows, cols, _ = _nhwc(stage.layers[-1].out_shape, stage)
                    steps = None if grid[0] > rows or grid[1] > cols else \
                        schedule(stage, grid)
                    if steps is None:
                        continue
                    if least * (_macs(steps, stage) - _whole_macs(stage)) > BUDGET:
                        break
                    shares = _shares(stage, steps, network)
                    if max(v for _, v in shares) > BUDGET:
                        continue
                    info = _describe(est, network, base, stage, grid, steps, shares)
                    if info.patched_peak < base:
                        found.append(_Option(c, start, end, grid, info))
    found.sort(key=lambda o: (o.info.patched_peak, o.info.price, o.grid, o.start, o.end))
    kept: list[_Option] = []
    for o in found:
        if not kept or o.info.price < kept[-1].info.price:
            kept.append(o)
    return kept[:OPTIONS]


def _apply(ep: ExportedProgram, o: _Option) -> Patched:
    """``ep`` (a copy of it) with option ``o``'s stage computed patch by patch."""
    ed = ProgramEditor(copy.deepcopy(ep))            # the caller's program stays as it was
    stage = _substage(_chains(ed)[o.chain], o.start, o.end)
    _materialize(ed, stage, schedule(stage, o.grid))
    return Patched(ed.finish(), o.info)


def _call(ed: ProgramEditor, target, args: tuple, origin: torch.fx.Node) -> torch.fx.Node:
    node = ed.graph.call_function(target, args)
    node.meta = {k: v for k, v in origin.meta.items()
                 if k in ("stack_trace", "nn_module_stack", "source_fn_stack")}
    node.meta["from_node"] = [NodeSource(origin, "patch_stage")]

    def fake(a):
        if isinstance(a, torch.fx.Node):
            return a.meta["val"]
        return [fake(v) for v in a] if isinstance(a, (list, tuple)) else a
    with ed._fake_mode:
        node.meta["val"] = target(*fake(list(args)))
    return node


def _materialize(ed: ProgramEditor, stage: _Chain, steps: list[_Step]) -> None:
    first = (*stage.head, stage.layers[0].node)[0]
    made: list[torch.fx.Node] = []
    with ed.graph.inserting_before(first):
        for st in steps:
            reads = [stage.x if r < 0 else made[r] for r in st.reads]
            if st.kind == "slice":
                node = _call(ed, torch.ops.aten.slice_copy.Tensor,
                             (reads[0], st.args["dim"], st.args["start"], st.args["end"]),
                             stage.x)
            elif st.kind == "head":
                head = stage.head[st.args["node"]]
                node = _call(ed, head.target, (reads[0], *head.args[1:]), head)
            elif st.kind == "pad":
                layer = stage.layers[st.args["layer"]]
                top, bottom, left, right = st.args["pads"]
                args = (reads[0], [left, right, top, bottom], layer.pad_value) if stage.nchw \
                    else (reads[0], [0, top, left, 0], [0, bottom, right, 0], layer.pad_value)
                node = _call(ed, torch.ops.aten.constant_pad_nd.default if stage.nchw else
                             Q.pad.default, args, layer.node.args[0])
            elif st.kind == "layer":
                layer = stage.layers[st.args["layer"]]
                args = list(layer.node.args)
                args[0] = reads[0]
                if not layer.is_activation:
                    args[4] = list(st.args["pad"])
                node = _call(ed, layer.node.target, tuple(args), layer.node)
            else:
                node = _call(ed, torch.ops.aten.cat.default, (reads, st.args["dim"]),
                             stage.layers[-1].node)
            assert tuple(node.meta["val"].shape) == st.shape, (st, node.meta["val"].shape)
            made.append(node)
    end = stage.layers[-1].node
    end.replace_all_uses_with(made[-1])
    for layer in reversed(stage.layers):
        ed.graph.erase_node(layer.node)
    for node in reversed(stage.head):
        ed.graph.erase_node(node)


@dataclass(frozen=True)
class Patched:
    """What ``patch_stage`` hands on: the program and the stage it made (None: none)."""
    program: ExportedProgram
    stage: Optional[PatchStage]


def patch_stage(ep: ExportedProgram, at: Optional[tuple[int, int, int]] = None,
                live: Optional[dict[int, int]] = None,
                arena: Optional[Callable[[ExportedProgram], int]] = None) -> Patched:
    """The program with a stage computed patch by patch where that lowers the peak: of the
    ``options`` (for the plan with overlaps, given ``live``), the one whose program ``arena``
    plans smallest, the cheapest of equals, if that is below the program's own (without
    ``arena``, the smallest estimate). Given ``at`` = (layers, rows, columns): the first
    chain's first ``layers`` convolutions in that grid, whatever it costs or saves."""
    if any(s.kind == OutputKind.USER_INPUT_MUTATION for s in ep.graph_signature.output_specs) \
            or not _chains(ProgramEditor(ep)):
        if at is not None:
            raise PatchError(f"patches={at}: the program has no chain of convolutions from "
                             "an input")
        return Patched(ep, None)
    ed = ProgramEditor(ep)
    if at is None:
        found = options(ed, live)
        if not found:
            return Patched(ep, None)
        if arena is None:
            return _apply(ep, found[0])
        planned = [_apply(ep, o) for o in found]
        size, _, best = min(((arena(p.program), o.info.price, i) for i, (o, p) in
                             enumerate(zip(found, planned))))
        return planned[best] if size < arena(ep) else Patched(ep, None)
    chain, (n_layers, rows, cols) = _chains(ed)[0], at
    _, h, w, _ = _nhwc(chain.layers[min(max(n_layers, 1), len(chain.layers)) - 1].out_shape,
                       chain)
    if not (1 <= n_layers <= len(chain.layers) and 1 <= rows <= h and 1 <= cols <= w):
        raise PatchError(f"patches={at}: the first chain has {len(chain.layers)} layers "
                         f"and its map there is {h}x{w}")
    stage = _substage(chain, 0, n_layers)
    steps = schedule(stage, (rows, cols))
    if steps is None:
        raise PatchError(f"patches={at}: a patch of that grid would read only the "
                         "layers' padding; take fewer rows or columns")
    est, network = _Estimate(ed), _network_macs(ed.graph)
    info = _describe(est, network, est.peak(), stage, (rows, cols), steps,
                     _shares(stage, steps, network))
    return _apply(ep, _Option(0, 0, n_layers, (rows, cols), info))
