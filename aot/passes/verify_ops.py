"""The op verifier: every op must be in the op table, and the C runtime must have a kernel for
it with these arguments. One error lists every offender with its source line.

The second check runs each op's own C renderer on the node's shapes, dtypes and arguments (see
aot.codegen.renderers.check_call), so an op that the table knows but the runtime cannot run with
these parameters (a 3-D convolution, a dtype without a kernel) is refused here, by ``to_edge``,
and never later by the C generator.
"""
from __future__ import annotations

import operator
from typing import Any

import torch
from torch.export import ExportedProgram

from .. import program as P
from ..calls import TensorValue
from ..codegen.context import Invalid, Unsupported
from ..codegen.renderers import check_call
from ..emit import MEMORY_FORMATS
from ..errors import UnsupportedOpError
from ..ir import SCALAR_TYPES, is_delegate_call
from ..ops import OPS, OUT, SCRATCH_ARGS, bind_out_args
from ..source import source_of

_STRUCTURAL = {operator.getitem}


def _size(s) -> int:
    """A dim's size, without int(), which would put a guard on a symbolic size."""
    if isinstance(s, int):
        return s
    hint = getattr(getattr(s, "node", None), "hint", None)
    return hint if isinstance(hint, int) else -1


def _tensor(val: torch.Tensor) -> TensorValue:
    dtype = SCALAR_TYPES.get(val.dtype)
    if dtype is None:
        raise Unsupported(f"tensor dtype {val.dtype}")
    shape = tuple(_size(s) for s in val.shape)
    return TensorValue(-1, P.Tensor(dtype, 0, shape, tuple(range(len(shape)))))


def _value(v: Any) -> Any:
    """An FX argument as the Program check sees the same argument (aot.calls)."""
    if isinstance(v, torch.fx.Node):
        val = v.meta.get("val")
        if isinstance(val, (list, tuple)):
            return tuple(_tensor(x) for x in val)
        return _tensor(val)
    if isinstance(v, (list, tuple)):
        return tuple(_value(x) for x in v)
    if isinstance(v, torch.dtype):
        return int(SCALAR_TYPES[v])
    if isinstance(v, torch.memory_format):
        return MEMORY_FORMATS.get(v, 0)
    if isinstance(v, torch.layout):
        return 0 if v == torch.strided else 1
    if isinstance(v, torch.device):
        return None
    return v


def node_values(op, node: torch.fx.Node) -> dict[str, Any]:
    """The out-variant call's arguments for ``node``, as aot.calls.decode_call gives them."""
    val = node.meta["val"]
    outs = list(val) if isinstance(val, (list, tuple)) else [val]
    values, k = {}, 0
    for a, given in bind_out_args(op, node):
        if a.name in SCRATCH_ARGS and op.scratch is not None:   # the planner adds it
            values[a.name] = _tensor(torch.empty(0, dtype=torch.int8))
        elif given is not OUT:
            values[a.name] = _value(given)
        elif isinstance(a.type, torch.ListType):
            values[a.name] = tuple(_tensor(v) for v in outs)
        else:
            values[a.name] = _tensor(outs[k])
            k += 1
    return values


def _why_not(node) -> str | None:
    """Why the C runtime cannot run this node, or None if it can."""
    op = OPS.get(node.target)
    if op is None:
        return ""
    try:
        check_call(op, node_values(op, node))
    except (Unsupported, Invalid) as e:
        return str(e)
    return None


def unsupported_ops(ep: ExportedProgram) -> list[tuple[str, str]]:
    """(op, source line) for each node whose op mcu-aot cannot lower, in graph order."""
    missing = []
    for node in ep.graph.nodes:
        if node.op != "call_function" or node.target in _STRUCTURAL:
            continue
        if is_delegate_call(node):
            continue
        why = _why_not(node)
        if why is not None:
            label = str(node.target) + (f" ({why})" if why else "")
            missing.append((label, str(source_of(node))))
    return missing


def verify_ops(ep: ExportedProgram) -> ExportedProgram:
    missing = unsupported_ops(ep)
    if missing:
        raise UnsupportedOpError(missing)
    return ep
