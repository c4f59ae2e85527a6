"""DemoBackend and AddMulPartitioner: the smallest complete backend, for tests and as a model.

DemoBackend compiles a program of sin, add and mul (tensor-tensor of one shape, or tensor and
a number) into a short ASCII program; on the device ``runtime_c/src/backend/demo.c`` runs it
one element at a time (the blob format is documented there). It has a Python reference
(``execute``) and reaches the C code through the runtime interface (``rt_backend``).

AddMulPartitioner tags the add and mul nodes the backend takes, one tag per connected group.
"""
from __future__ import annotations

import struct
from typing import Sequence

import torch
from torch.export import ExportedProgram

from ..backend import (BackendDetails, CompileSpec, DelegateC, DelegationSpec, PartitionResult,
                       Partitioner, PreprocessResult)
from ..backend.partitioner import TAG, group_nodes

aten = torch.ops.aten

_BINARY = {aten.add.Tensor: "add", aten.mul.Tensor: "mul"}
_SCALAR = {aten.add.Scalar: "addc", aten.mul.Scalar: "mulc"}
_UNARY = {aten.sin.default: "sin"}


def _bits(x: float) -> str:
    return struct.pack(">f", x).hex()


def _float(bits: str) -> float:
    return struct.unpack(">f", bytes.fromhex(bits))[0]


def _scalar_operand(node) -> float:
    """add.Scalar: other * alpha; mul.Scalar: other."""
    other = float(node.args[1])
    alpha = float(node.kwargs.get("alpha", node.args[2] if len(node.args) > 2 else 1))
    return other * alpha if node.target == aten.add.Scalar else other


def supports(node: torch.fx.Node) -> bool:
    """Can DemoBackend run this node? float32, one shape for every tensor, alpha 1."""
    if node.op != "call_function" or node.target not in (*_BINARY, *_SCALAR, *_UNARY):
        return False
    val = node.meta.get("val")
    tensors = [a for a in node.args if isinstance(a, torch.fx.Node)]
    if not isinstance(val, torch.Tensor) or val.dtype != torch.float32:
        return False
    if any(a.meta["val"].shape != val.shape or a.meta["val"].dtype != torch.float32
           for a in tensors):
        return False
    if node.target in _BINARY:
        alpha = node.kwargs.get("alpha", node.args[2] if len(node.args) > 2 else 1)
        return len(tensors) == 2 and alpha == 1
    return len(tensors) == 1


class DemoBackend(BackendDetails):
    @staticmethod
    def preprocess(edge_program: ExportedProgram,
                   compile_specs: Sequence[CompileSpec]) -> PreprocessResult:
        sig = edge_program.graph_signature
        regs: dict[torch.fx.Node, int] = {}
        code, handles = [], {}
        sizes = {n.meta["val"].numel() for n in edge_program.graph.nodes
                 if n.op in ("placeholder", "call_function")}
        if len(sizes) > 1:
            raise RuntimeError(f"DemoBackend needs tensors of one size, not {sorted(sizes)}")
        for node in edge_program.graph.nodes:
            if node.op == "placeholder":
                if node.name not in sig.user_inputs:
                    raise RuntimeError(f"DemoBackend takes no constants ({node.name})")
                regs[node] = len(regs)
            elif node.op == "call_function":
                if not supports(node):
                    raise RuntimeError(f"DemoBackend cannot run {node.name} ({node.target})")
                args = [str(regs[a]) for a in node.args if isinstance(a, torch.fx.Node)]
                if node.target in _SCALAR:
                    name = _SCALAR[node.target]
                    args.append(_bits(_scalar_operand(node)))
                else:
                    name = {**_BINARY, **_UNARY}[node.target]
                handles[len(code)] = (node.meta.get("debug_handle", -1),)
                code.append(f"{name} {len(regs)} {' '.join(args)}")
                regs[node] = len(regs)
            elif node.op == "output":
                outs = node.args[0]
                if not all(isinstance(o, torch.fx.Node) for o in outs):
                    raise RuntimeError("DemoBackend returns tensors only")
                code.append("ret " + " ".join(str(regs[o]) for o in outs))
        numel = sizes.pop() if sizes else 0
        n_in = len(sig.user_inputs)
        n_out = len(edge_program.graph.output_node().args[0])
        head = f"demo 1 {n_in} {n_out} {numel}"
        return PreprocessResult("\n".join([head, *code]).encode() + b"\n", handles)

    @classmethod
    def execute(cls, processed_bytes, compile_specs, inputs):
        words = processed_bytes.decode().split()
        if words[:2] != ["demo", "1"]:
            raise ValueError("not a DemoBackend blob")
        n_in, n_out = int(words[2]), int(words[3])
        regs = [x.detach().to(torch.float32).reshape(-1) for x in inputs[:n_in]]
        shape = inputs[0].shape if inputs else ()
        i = 5
        while words[i] != "ret":
            op, a = words[i], regs[int(words[i + 2])]
            if op == "sin":
                regs.append(torch.sin(a))
                i += 3
            elif op in ("add", "mul"):
                b = regs[int(words[i + 3])]
                regs.append(a + b if op == "add" else a * b)
                i += 4
            else:
                c = torch.tensor(_float(words[i + 3]), dtype=torch.float32)
                regs.append(a + c if op == "addc" else a * c)
                i += 4
        return [regs[int(r)].reshape(shape).clone() for r in words[i + 1:i + 1 + n_out]]

    @classmethod
    def codegen_c(cls, processed_bytes, compile_specs, inputs, outputs, name):
        return DelegateC.on_runtime("rt_backend_demo", "rt_demo_execute",
                                    ("src/backend/demo.c",))


class AddMulPartitioner(Partitioner):
    """Tags every connected group of add/mul nodes DemoBackend can run."""

    def __init__(self, compile_specs: Sequence[CompileSpec] = (CompileSpec("max_value",
                                                                           bytes([4])),)):
        self.delegation_spec = DelegationSpec(DemoBackend.__name__, tuple(compile_specs))

    def partition(self, exported_program: ExportedProgram) -> PartitionResult:
        add_mul = lambda n: supports(n) and n.target not in _UNARY
        tags = {}
        for i, nodes in enumerate(group_nodes(exported_program.graph, add_mul)):
            for n in nodes:
                n.meta[TAG] = f"tag{i}"
            tags[f"tag{i}"] = self.delegation_spec
        return PartitionResult(exported_program, tags)
