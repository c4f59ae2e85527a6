"""The arguments of one kernel call, read against its out-variant's schema.

A KernelCall in a Program lists value indices; what each must be comes from the operator's
schema: a tensor, an optional tensor, an int, a float, a Scalar, a bool, a string, a list of
ints, floats, bools or tensors. ``decode_call`` checks every argument's kind against the schema
and returns the values by argument name as plain Python values:

    Tensor, Tensor?     TensorValue (value index and the tensor), or None
    int, SymInt, bool   int / bool (ScalarType, MemoryFormat and Layout arrive as ints)
    float, Scalar       float, int or bool, as stored
    int[], float[] ...  tuples
    Tensor[], Tensor?[] tuples of TensorValue (None for an absent optional)
    str                 str
    Device              None

Anything else raises ArgError naming the argument, so every consumer (the Program check, the C
generator, the Python interpreters) sees only values of the kinds it expects.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

import torch

from . import program as P


class ArgError(Exception):
    """An argument whose value does not have the kind its schema asks for."""

    def __init__(self, name: str, why: str):
        super().__init__(f"argument {name!r} {why}")
        self.name = name


@dataclass(frozen=True)
class TensorValue:
    index: int          # value index in the execution plan
    tensor: P.Tensor

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.tensor.sizes)


_NUMBER = (P.Int, P.Double, P.Bool)


def _base(jit_type) -> tuple[Any, bool]:
    """(type without Optional, whether None is allowed)."""
    if isinstance(jit_type, torch.OptionalType):
        return jit_type.getElementType(), True
    return jit_type, False


def _kind_name(v: P.EValue) -> str:
    return type(v).__name__


class _Decoder:
    def __init__(self, plan: P.ExecutionPlan):
        self.values = plan.values

    def value(self, index: int, name: str) -> P.EValue:
        if not 0 <= index < len(self.values):
            raise ArgError(name, f"refers to value {index}, but there are {len(self.values)}")
        return self.values[index]

    def tensor(self, index: int, name: str, optional: bool) -> Optional[TensorValue]:
        v = self.value(index, name)
        if isinstance(v, P.Null) and optional:
            return None
        if not isinstance(v, P.Tensor):
            raise ArgError(name, f"must be a tensor, not {_kind_name(v)} (value {index})")
        return TensorValue(index, v)

    def item_ints(self, v: P.IntList, name: str) -> tuple[int, ...]:
        out = []
        for i in v.items:
            item = self.value(i, name)
            if not isinstance(item, P.Int):
                raise ArgError(name, f"must list ints, but item value {i} is {_kind_name(item)}")
            out.append(item.int_val)
        return tuple(out)

    def decode(self, index: int, arg: torch.Argument) -> Any:
        name = arg.name
        jit, optional = _base(arg.type)
        if isinstance(jit, torch.TensorType):
            return self.tensor(index, name, optional)
        v = self.value(index, name)
        if isinstance(v, P.Null):
            if optional or isinstance(jit, torch.DeviceObjType):
                return None
            raise ArgError(name, f"must not be None (value {index})")
        if isinstance(jit, torch.ListType):
            elem, elem_optional = _base(jit.getElementType())
            if isinstance(elem, torch.TensorType):
                if elem_optional and isinstance(v, P.OptionalTensorList):
                    return tuple(None if i == -1 else self.tensor(i, name, False)
                                 for i in v.items)
                if isinstance(v, P.TensorList):
                    return tuple(self.tensor(i, name, False) for i in v.items)
                raise ArgError(name, f"must be a tensor list, not {_kind_name(v)}")
            if isinstance(elem, torch.BoolType) and isinstance(v, P.BoolList):
                return tuple(bool(b) for b in v.items)
            if isinstance(elem, torch.FloatType) and isinstance(v, P.DoubleList):
                return tuple(float(x) for x in v.items)
            if isinstance(elem, (torch.IntType, torch.SymIntType)) and isinstance(v, P.IntList):
                return self.item_ints(v, name)
            raise ArgError(name, f"must be a {jit}, not {_kind_name(v)}")
        if isinstance(jit, torch.BoolType):
            if isinstance(v, P.Bool):
                return bool(v.bool_val)
        elif isinstance(jit, (torch.IntType, torch.SymIntType)) or _is_enum(jit):
            if isinstance(v, P.Int):
                return v.int_val
        elif isinstance(jit, torch.FloatType):     # ExecuTorch reads these as doubles only
            if isinstance(v, P.Double):
                return float(v.double_val)
        elif isinstance(jit, (torch.NumberType,)):     # Scalar
            if isinstance(v, _NUMBER):
                return {P.Int: lambda: v.int_val, P.Double: lambda: v.double_val,
                        P.Bool: lambda: bool(v.bool_val)}[type(v)]()
        elif isinstance(jit, torch.StringType):
            if isinstance(v, P.String):
                return v.string_val
        elif isinstance(jit, torch.DeviceObjType):
            return None
        raise ArgError(name, f"must be {jit}, not {_kind_name(v)} (value {index})")


def _is_enum(jit) -> bool:
    """ScalarType, MemoryFormat and Layout: ints in a .pte."""
    return str(jit) in ("ScalarType", "MemoryFormat", "Layout")


def decode_call(plan: P.ExecutionPlan, call: P.KernelCall,
                schema: torch.FunctionSchema) -> dict[str, Any]:
    """The call's arguments by schema name, each checked against its schema type. The
    argument list must be the schema's, then the result again (the out tensor, or a
    TensorList of the outs), as ExecuTorch's emitter lays it out."""
    arguments = schema.arguments
    if len(call.args) != len(arguments) + 1:
        raise ArgError("(list)", f"has {len(call.args)} entries; the schema needs "
                       f"{len(arguments)} arguments and the result")
    dec = _Decoder(plan)
    values = {a.name: dec.decode(call.args[i], a) for i, a in enumerate(arguments)}
    outs = [values[a.name] for a in arguments if a.is_out]
    result = call.args[-1]
    if len(outs) == 1 and isinstance(outs[0], TensorValue):
        if result != outs[0].index:
            raise ArgError("(result)", f"is value {result}, not the out tensor "
                           f"{outs[0].index}")
    else:
        flat = [t.index for o in outs for t in (o if isinstance(o, tuple) else (o,))]
        got = dec.value(result, "(result)")
        if not isinstance(got, P.TensorList) or list(got.items) != flat:
            raise ArgError("(result)", f"must be a TensorList of the outs {flat}")
    return values
