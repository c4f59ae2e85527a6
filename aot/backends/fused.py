"""FusedElementwiseBackend: a chain of pointwise ops becomes one loop, with no tensor between.

Without it, ``y = relu(x * w + b)`` is three kernel calls, each reading and writing a whole
tensor, and an intermediate that must stay alive while ``x`` is still needed costs arena. The
partitioner (FusedElementwisePartitioner) tags connected groups of pointwise float32 ops with
one output shape; the backend compiles each group into a small SSA program (the processed
bytes, JSON) and its C hook renders that program as one loop nest over the output, every
value a local float (here ``relu(x * 0.5 + bias[c])`` on 1x8x16x16):

    for (i0 = 0; i0 < 8; ++i0) {                  adjacent dims merge where every operand
        for (i1 = 0; i1 < 256; ++i1) {            steps evenly; a broadcast dim has stride 0
            const float a0 = in0[i0 * 256 + i1];
            const float b0 = model_d0_c0[i0];
            const float v0 = a0 * 0.5f;
            const float v1 = v0 + b0;
            const float v2 = fe_relu(v1);
            out0[i0 * 256 + i1] = v2;
        }
    }

Operands may broadcast (a per-channel bias, a scalar); constants the group alone reads move
into the blob and become static const arrays (or literals, for one element). Output 0 may be
planned over any input of its shape that dies at the call (``inplace_inputs``).
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
import torch
from torch.export import ExportedProgram

from ..backend import (BackendDetails, CompileSpec, DelegateC, DelegationSpec, PartitionResult,
                       Partitioner, PreprocessResult)
from ..backend.partitioner import TAG, group_nodes
from ..codegen.c import f32_literal
from ..passes._editor import ProgramEditor

aten = torch.ops.aten
F32 = torch.float32


def _relu6(x: str) -> str:
    return f"fe_clamp({x}, 0.0f, 6.0f)"


@dataclass(frozen=True)
class Pointwise:
    """One op the backend fuses: how many tensor operands, its parameters (read from the edge
    node's arguments), its C expression and its torch reference."""
    name: str
    arity: int
    params: Callable[[dict], dict]
    c: Callable[[list, dict], str]         # operand expressions, params -> C expression
    ref: Callable[[list, dict], torch.Tensor]


def _none(args):
    return {}


def _alpha(args):
    return {"alpha": float(args.get("alpha", 1))}


def _other(args):
    return {"other": float(args["other"])}


def _other_alpha(args):
    return {"other": float(args["other"]), "alpha": float(args.get("alpha", 1))}


def _bounds(lo_name, hi_name, lo_default=None, hi_default=None):
    def read(args):
        lo, hi = args.get(lo_name, lo_default), args.get(hi_name, hi_default)
        return {"lo": -math.inf if lo is None else float(lo),
                "hi": math.inf if hi is None else float(hi)}
    return read


def lit(x: float) -> str:
    return f32_literal(x)


def _f32(x: float) -> torch.Tensor:
    return torch.tensor(x, dtype=F32)


def _scaled(b: str, alpha: float) -> str:
    return b if alpha == 1 else f"{b} * {lit(alpha)}"


def _scalar(p) -> float:
    """add/sub.Scalar's operand: other * alpha, rounded to float32 as torch does."""
    return float(np.float32(p["other"]) * np.float32(p["alpha"])) if p["alpha"] != 1 \
        else p["other"]


OPS: dict = {
    aten.add.Tensor: Pointwise("add", 2, _alpha, lambda v, p: f"{v[0]} + {_scaled(v[1], p['alpha'])}",
                               lambda t, p: torch.add(t[0], t[1], alpha=p["alpha"])),
    aten.sub.Tensor: Pointwise("sub", 2, _alpha, lambda v, p: f"{v[0]} - {_scaled(v[1], p['alpha'])}",
                               lambda t, p: torch.sub(t[0], t[1], alpha=p["alpha"])),
    aten.mul.Tensor: Pointwise("mul", 2, _none, lambda v, p: f"{v[0]} * {v[1]}",
                               lambda t, p: t[0] * t[1]),
    aten.div.Tensor: Pointwise("div", 2, _none, lambda v, p: f"{v[0]} / {v[1]}",
                               lambda t, p: t[0] / t[1]),
    aten.maximum.default: Pointwise("maximum", 2, _none, lambda v, p: f"fe_max({v[0]}, {v[1]})",
                                    lambda t, p: torch.maximum(t[0], t[1])),
    aten.minimum.default: Pointwise("minimum", 2, _none, lambda v, p: f"fe_min({v[0]}, {v[1]})",
                                    lambda t, p: torch.minimum(t[0], t[1])),
    aten.add.Scalar: Pointwise("adds", 1, _other_alpha, lambda v, p: f"{v[0]} + {lit(_scalar(p))}",
                               lambda t, p: t[0] + _f32(_scalar(p))),
    aten.sub.Scalar: Pointwise("subs", 1, _other_alpha, lambda v, p: f"{v[0]} - {lit(_scalar(p))}",
                               lambda t, p: t[0] - _f32(_scalar(p))),
    aten.mul.Scalar: Pointwise("muls", 1, _other, lambda v, p: f"{v[0]} * {lit(p['other'])}",
                               lambda t, p: t[0] * _f32(p["other"])),
    aten.div.Scalar: Pointwise("divs", 1, _other, lambda v, p: f"{v[0]} / {lit(p['other'])}",
                               lambda t, p: t[0] / _f32(p["other"])),
    aten.relu.default: Pointwise("relu", 1, _none, lambda v, p: f"fe_relu({v[0]})",
                                 lambda t, p: torch.relu(t[0])),
    aten.sigmoid.default: Pointwise("sigmoid", 1, _none,
                                    lambda v, p: f"1.0f / (1.0f + expf(-{v[0]}))",
                                    lambda t, p: torch.sigmoid(t[0])),
    aten.tanh.default: Pointwise("tanh", 1, _none, lambda v, p: f"tanhf({v[0]})",
                                 lambda t, p: torch.tanh(t[0])),
    aten.hardswish.default: Pointwise("hardswish", 1, _none,
                                      lambda v, p: f"{v[0]} * {_relu6(v[0] + ' + 3.0f')} / 6.0f",
                                      lambda t, p: torch.nn.functional.hardswish(t[0])),
    aten.hardsigmoid.default: Pointwise("hardsigmoid", 1, _none,
                                        lambda v, p: f"{_relu6(v[0] + ' + 3.0f')} / 6.0f",
                                        lambda t, p: torch.nn.functional.hardsigmoid(t[0])),
    aten.neg.default: Pointwise("neg", 1, _none, lambda v, p: f"-{v[0]}",
                                lambda t, p: -t[0]),
    aten.abs.default: Pointwise("abs", 1, _none, lambda v, p: f"fabsf({v[0]})",
                                lambda t, p: torch.abs(t[0])),
    aten.exp.default: Pointwise("exp", 1, _none, lambda v, p: f"expf({v[0]})",
                                lambda t, p: torch.exp(t[0])),
    aten.log.default: Pointwise("log", 1, _none, lambda v, p: f"logf({v[0]})",
                                lambda t, p: torch.log(t[0])),
    aten.sqrt.default: Pointwise("sqrt", 1, _none, lambda v, p: f"sqrtf({v[0]})",
                                 lambda t, p: torch.sqrt(t[0])),
    aten.rsqrt.default: Pointwise("rsqrt", 1, _none, lambda v, p: f"1.0f / sqrtf({v[0]})",
                                  lambda t, p: torch.rsqrt(t[0])),
    aten.clamp.default: Pointwise("clamp", 1, _bounds("min", "max"),
                                  lambda v, p: f"fe_clamp({v[0]}, {lit(p['lo'])}, {lit(p['hi'])})",
                                  lambda t, p: torch.clamp(t[0], p["lo"], p["hi"])),
    aten.hardtanh.default: Pointwise("hardtanh", 1, _bounds("min_val", "max_val", -1.0, 1.0),
                                     lambda v, p: f"fe_clamp({v[0]}, {lit(p['lo'])}, "
                                                  f"{lit(p['hi'])})",
                                     lambda t, p: torch.clamp(t[0], p["lo"], p["hi"])),
    aten.leaky_relu.default: Pointwise(
        "leaky_relu", 1, lambda a: {"slope": float(a.get("negative_slope", 0.01))},
        lambda v, p: f"({v[0]} > 0.0f ? {v[0]} : {v[0]} * {lit(p['slope'])})",
        lambda t, p: torch.nn.functional.leaky_relu(t[0], p["slope"])),
    aten.gelu.default: Pointwise(
        "gelu", 1, lambda a: {"tanh": a.get("approximate", "none") == "tanh"},
        lambda v, p: (f"0.5f * {v[0]} * (1.0f + tanhf({lit(math.sqrt(2 / math.pi))} * "
                      f"({v[0]} + 0.044715f * ({v[0]} * {v[0]} * {v[0]}))))") if p["tanh"] else
                     f"{v[0]} * 0.5f * (1.0f + erff({v[0]} * {lit(math.sqrt(0.5))}))",
        lambda t, p: torch.nn.functional.gelu(t[0], approximate="tanh" if p["tanh"] else "none")),
}
BY_NAME = {p.name: p for p in OPS.values()}

# Helpers the generated functions call: static inline, each guarded so that several fused
# functions in one translation unit share one definition.
_HELPERS = {
    "fe_clamp": "static inline float fe_clamp(float x, float lo, float hi)\n"
                "{\n    x = x < lo ? lo : x;\n    return x > hi ? hi : x;\n}",
    "fe_relu": "static inline float fe_relu(float x) { return x < 0.0f ? 0.0f : x; }",
    "fe_max": "static inline float fe_max(float a, float b) { return (a > b || a != a) ? a : b; }",
    "fe_min": "static inline float fe_min(float a, float b) { return (a < b || a != a) ? a : b; }",
}


def _helpers(body: str) -> list[str]:
    lines = []
    for name, code in _HELPERS.items():
        if f"{name}(" in body:
            guard = name.upper()
            lines += [f"#ifndef {guard}", f"#define {guard}", code, "#endif"]
    return lines


def _named_args(node: torch.fx.Node) -> dict:
    schema = node.target._schema.arguments
    named = {a.name: a.default_value for a in schema if a.has_default_value()}
    named.update(zip((a.name for a in schema), node.args))
    named.update(node.kwargs)
    return named


def _operands(node: torch.fx.Node) -> list:
    return [a for a in node.args if isinstance(a, torch.fx.Node)]


def supports(node: torch.fx.Node) -> bool:
    """A pointwise float32 op the backend fuses, with tensor operands that broadcast to it."""
    spec = OPS.get(node.target) if node.op == "call_function" else None
    val = node.meta.get("val")
    if spec is None or not isinstance(val, torch.Tensor) or val.dtype != F32:
        return False
    tensors = _operands(node)
    if len(tensors) != spec.arity or any(
            not isinstance(t.meta.get("val"), torch.Tensor) or t.meta["val"].dtype != F32
            for t in tensors):
        return False
    named = _named_args(node)
    if named.get("rounding_mode") is not None:
        return False
    try:
        spec.params(named)
    except (TypeError, ValueError):   # a tensor where a number was expected, say
        return False
    return True


# -- the processed program ----------------------------------------------------------------------

def _program(ep: ExportedProgram) -> tuple[dict, dict]:
    """The SSA program of a fused group, and its debug handle map."""
    sig = ep.graph_signature
    ed = ProgramEditor(ep)
    names: dict[torch.fx.Node, str] = {}
    inputs, consts, code, handles = [], [], [], {}
    out_node = ep.graph.output_node()
    shape = None
    for node in ep.graph.nodes:
        if node.op == "placeholder":
            value = ed.const_value(node)
            if value is not None:
                names[node] = f"c{len(consts)}"
                data = value.detach().to(F32).contiguous().numpy()
                consts.append({"shape": list(value.shape), "data": data.tobytes().hex()})
            elif node.name in sig.user_inputs:
                names[node] = f"i{len(inputs)}"
                inputs.append(list(node.meta["val"].shape))
            else:
                raise RuntimeError(f"unexpected input {node.name}")
        elif node.op == "call_function":
            if not supports(node):
                raise RuntimeError(f"{node.name} ({node.target}) is not a pointwise float32 op")
            out = list(node.meta["val"].shape)
            if shape is not None and out != shape:
                raise RuntimeError(f"{node.name} has shape {out}, the group {shape}")
            shape = out
            spec = OPS[node.target]
            handles[len(code)] = (node.meta.get("debug_handle", -1),)
            code.append({"op": spec.name, "args": [names[a] for a in _operands(node)],
                         "params": spec.params(_named_args(node))})
            names[node] = f"v{len(code) - 1}"
    outputs = [names[o] for o in out_node.args[0]]
    if shape is None or any(not o.startswith("v") for o in outputs):
        raise RuntimeError("a fused group computes every output it returns")
    for operand in inputs + [c["shape"] for c in consts]:
        if torch.broadcast_shapes(tuple(operand), tuple(shape)) != tuple(shape):
            raise RuntimeError(f"operand of shape {operand} does not broadcast to {shape}")
    return {"version": 1, "shape": shape, "inputs": inputs, "consts": consts, "code": code,
            "outputs": outputs}, handles


def load(processed_bytes: bytes) -> dict:
    prog = json.loads(processed_bytes.decode())
    if prog.get("version") != 1:
        raise ValueError("not a FusedElementwiseBackend program (version 1)")
    return prog


def _const(c: dict) -> np.ndarray:
    return np.frombuffer(bytes.fromhex(c["data"]), dtype=np.float32).reshape(c["shape"])


class FusedElementwiseBackend(BackendDetails):
    @staticmethod
    def preprocess(edge_program: ExportedProgram,
                   compile_specs: Sequence[CompileSpec]) -> PreprocessResult:
        prog, handles = _program(edge_program)
        text = json.dumps(prog, sort_keys=True, separators=(",", ":"))
        return PreprocessResult(text.encode(), handles)

    @classmethod
    def execute(cls, processed_bytes, compile_specs, inputs):
        prog = load(processed_bytes)
        env = {f"i{k}": x.to(F32) for k, x in enumerate(inputs)}
        env.update({f"c{k}": torch.from_numpy(_const(c).copy())
                    for k, c in enumerate(prog["consts"])})
        for k, ins in enumerate(prog["code"]):
            spec = BY_NAME[ins["op"]]
            env[f"v{k}"] = spec.ref([env[a] for a in ins["args"]], ins["params"])
        shape = tuple(prog["shape"])
        return [env[o].expand(shape).contiguous() for o in prog["outputs"]]

    @classmethod
    def inplace_inputs(cls, processed_bytes, compile_specs):
        # Each iteration reads every operand before it writes: an input of the output's shape
        # (element k read at iteration k only) may share the output's storage.
        return tuple(range(len(load(processed_bytes)["inputs"])))

    @classmethod
    def codegen_c(cls, processed_bytes, compile_specs, inputs, outputs, name):
        return DelegateC(name, render_c(load(processed_bytes), inputs, outputs, name))


# -- C -------------------------------------------------------------------------------------------

def _strides(shape, out_shape) -> list[int]:
    """Element strides of a contiguous ``shape`` broadcast to ``out_shape`` (0: broadcast)."""
    shape = [1] * (len(out_shape) - len(shape)) + list(shape)
    strides, acc = [0] * len(out_shape), 1
    for d in reversed(range(len(out_shape))):
        if shape[d] != 1:
            strides[d] = acc
        acc *= shape[d]
    return strides


def loop_nest(out_shape, operand_shapes) -> list[tuple[int, list[int]]]:
    """The fewest loops that walk ``out_shape`` in order: (trip count, stride per operand),
    outermost first. Adjacent dims merge wherever every operand steps through them evenly."""
    strides = [_strides(s, out_shape) for s in operand_shapes]
    loops: list[tuple[int, list[int]]] = []
    for d, size in enumerate(out_shape):
        if size == 1:
            continue
        st = [s[d] for s in strides]
        if loops and all(p == s * size for p, s in zip(loops[-1][1], st)):
            loops[-1] = (loops[-1][0] * size, st)
        else:
            loops.append((size, st))
    return loops or [(1, [0] * len(operand_shapes))]


def _index(strides) -> str:
    terms = [f"i{d}" if s == 1 else f"i{d} * {s}" for d, s in enumerate(strides) if s]
    return " + ".join(terms) or "0"


def render_c(prog: dict, inputs, outputs, name: str) -> str:
    """``static rt_status <name>(const float *in0, ..., float *out0, ...)``: one loop nest."""
    shape = prog["shape"]
    if len(inputs) != len(prog["inputs"]) or len(outputs) != len(prog["outputs"]) or \
            any(io.dtype != "float32" for io in (*inputs, *outputs)):
        raise ValueError(f"{name}: the call does not match the fused program's inputs/outputs")
    consts = [_const(c) for c in prog["consts"]]
    arrays = [k for k, c in enumerate(consts) if c.size > 1]
    # Operands that live in memory: inputs, array constants, outputs (all walk the loops).
    shapes = [io.shape for io in inputs] + [consts[k].shape for k in arrays] + \
        [tuple(shape)] * len(outputs)
    loops = loop_nest(tuple(shape), shapes)
    index = [_index([stride[j] for _, stride in loops]) for j in range(len(shapes))]
    lines = []
    for k in arrays:
        values = [f32_literal(x) for x in consts[k].reshape(-1).tolist()]
        lines.append(f"static const float {name}_c{k}[{consts[k].size}] = {{")
        lines += ["    " + ", ".join(values[j:j + 8]) + "," for j in range(0, len(values), 8)]
        lines.append("};")
    params = [f"const float *in{k}" for k in range(len(inputs))] + \
        [f"float *out{k}" for k in range(len(outputs))]
    lines += [f"static rt_status {name}({', '.join(params)})", "{"]
    lines.append("    int32_t " + ", ".join(f"i{d}" for d in range(len(loops))) + ";")
    pad = "    "
    for d, (trip, _) in enumerate(loops):
        lines.append(f"{pad}for (i{d} = 0; i{d} < {trip}; ++i{d}) {{")
        pad += "    "
    env = {}
    for k in range(len(inputs)):
        env[f"i{k}"] = f"a{k}"
        lines.append(f"{pad}const float a{k} = in{k}[{index[k]}];")
    for j, k in enumerate(arrays):
        env[f"c{k}"] = f"b{k}"
        lines.append(f"{pad}const float b{k} = {name}_c{k}[{index[len(inputs) + j]}];")
    for k, c in enumerate(consts):
        if c.size <= 1:
            env[f"c{k}"] = f32_literal(float(c.reshape(-1)[0])) if c.size else "0.0f"
    for k, ins in enumerate(prog["code"]):
        expr = BY_NAME[ins["op"]].c([_paren(env[a]) for a in ins["args"]], ins["params"])
        env[f"v{k}"] = f"v{k}"
        lines.append(f"{pad}const float v{k} = {expr};")
    base = len(inputs) + len(arrays)
    for k, o in enumerate(prog["outputs"]):
        lines.append(f"{pad}out{k}[{index[base + k]}] = {env[o]};")
    for _ in loops:
        pad = pad[:-4]
        lines.append(f"{pad}}}")
    lines += ["    return RT_OK;", "}"]
    head = [f"/* FusedElementwiseBackend: {len(prog['code'])} ops in one pass over "
            f"{'x'.join(map(str, shape)) or 'a scalar'}, no intermediate tensors */"]
    return "\n".join(head + _helpers("\n".join(lines)) + lines) + "\n"


def _paren(expr: str) -> str:
    return f"({expr})" if expr.startswith("-") else expr


# -- the partitioner ---------------------------------------------------------------------------

class FusedElementwisePartitioner(Partitioner):
    """Tags each connected group of at least ``min_ops`` pointwise ops with one output shape
    (and the constants only that group reads) for FusedElementwiseBackend."""

    def __init__(self, min_ops: int = 2):
        self.min_ops = min_ops
        self.delegation_spec = DelegationSpec(FusedElementwiseBackend.__name__)

    def partition(self, exported_program: ExportedProgram) -> PartitionResult:
        ed = ProgramEditor(exported_program)
        shape = lambda n: tuple(n.meta["val"].shape)
        tags = {}
        for nodes in group_nodes(exported_program.graph, supports, key=shape):
            if len(nodes) < self.min_ops:
                continue
            tag = f"fused{len(tags)}"
            inside = set(nodes)
            for n in nodes:
                n.meta[TAG] = tag
                for a in n.all_input_nodes:
                    if a.op == "placeholder" and ed.is_const(a) and set(a.users) <= inside:
                        a.meta[TAG] = tag
            tags[tag] = self.delegation_spec
        return PartitionResult(exported_program, tags)
