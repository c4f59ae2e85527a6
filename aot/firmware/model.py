"""What a firmware is made from: the model lowered to a Program (or given as C), the reference
its outputs are compared with, and the inputs embedded in main.c."""
from __future__ import annotations

import dataclasses
import importlib.util
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional, Sequence, Union

import numpy as np
import torch
from torch.export import ExportedProgram
from torch.utils._pytree import tree_leaves

from ..api import to_edge
from ..boards import Board, load_board
from ..codegen.c import CSources
from ..config import EdgeCompileConfig, backend_config
from ..errors import AotError
from ..executorch import ExecutorchProgramManager
from ..loading import load_pt2
from ..ops import by_et_name
from ..passes.lower_quantized import has_quantized_ops
from ..program import Program
from ..pte import load_program, serialize_pte
from ..quantization import arith
from ..quiet import native_stderr_captured

DEFAULT_SEED = 0

Reference = Callable[..., Sequence[np.ndarray]]


@dataclass(frozen=True)
class _Model:
    """A model on its way to C: a Program (or ready CSources) and what to compare it with."""
    program: object                    # aot.program.Program, or CSources
    label: str
    reference: Optional[Reference]
    reference_name: Optional[str]
    # Per output: the scale of one int8 step (LSB) where the output is quantized, else None.
    output_scales: tuple = ()


def _eager(module) -> Reference:

    def run(*xs):
        with torch.no_grad():
            out = module(*[torch.from_numpy(np.array(x)) for x in xs])
        return [t.detach().numpy() for t in tree_leaves(out)]
    return run


def _in_executorch(program) -> bool:
    """Whether ExecuTorch's portable kernel library runs every operator of the program (its
    runtime refuses the int8 cortex_m ops, for one: such a .pte has no reference)."""
    for plan in program.execution_plan:
        for o in plan.operators:
            op = by_et_name(o.name, o.overload)
            if op is not None and not op.in_executorch:
                return False
    return True


def _executorch(program, pte: Callable[[], bytes],
                method: str) -> tuple[Optional[Reference], Optional[str]]:
    """ExecuTorch's own runtime on the .pte bytes, when the executorch package is installed
    (imported only when the reference runs: it is slow to load) and its kernels run every
    operator of the program."""
    if importlib.util.find_spec("executorch") is None or not _in_executorch(program):
        return None, None

    def run(*xs):
        from executorch.runtime import Runtime   # optional (and slow to load): lazy
        data = pte()                    # the runtime reads these bytes in place: keep them,
        with native_stderr_captured():  # and the program, alive meanwhile
            program = Runtime.get().load_program(data)
            outs = program.load_method(method).execute([torch.from_numpy(np.array(x))
                                                        for x in xs])
        result = [o.detach().numpy().copy() for o in outs]
        del program, data
        return result
    return run, "ExecuTorch runtime"


def output_scales(program, method: str = "forward") -> tuple:
    """Per output of ``method``: the scale of the int8 value it dequantizes (float output of
    a quantized model), 1.0 for an int8 output, else None."""
    plan = program.method(method)
    made = {}
    for chain in plan.chains:
        for ins in chain.instructions:
            if hasattr(ins, "op_index"):
                opr = plan.operators[ins.op_index]
                made[ins.args[-1]] = (f"{opr.name}.{opr.overload}", ins.args)
    scales = []
    for v in plan.outputs:
        op, args = made.get(v, ("", ()))
        t = plan.values[v]
        if op == "cortex_m::dequantize_per_tensor.out":
            scales.append(float(plan.values[args[1]].double_val))
        elif getattr(t, "scalar_type", None) == 1:      # int8: errors are already in steps
            scales.append(1.0)
        else:
            scales.append(None)
    return tuple(scales)


def _int8_io_reference(module, manager, method: str) -> Reference:
    """The PT2E model with int8 inputs and outputs: dequantize, run, quantize (PT2E's ops)."""
    g = manager.lowered(method).graph
    ins = [g.tensors[t].qparams for t in g.inputs]
    outs = [g.tensors[t].qparams if t is not None else None for t in g.outputs]
    eager = _eager(module)

    def run(*xs):
        real = [arith.dequantize_f32(x, *q) if q is not None else x for x, q in zip(xs, ins)]
        got = eager(*real)
        return [arith.quantize_f32(y, *q).astype(np.int8) if q is not None else y
                for y, q in zip(got, outs)]
    return run


def _resolve(model, method: str, int8_io: bool = False, overlap: bool = False,
             patches: Optional[bool] = None) -> _Model:
    """Lower whatever we were given to a Program, and find something to compare it with
    (a .pt2 or ExportedProgram lowered with ``int8_io``, ``overlap`` and ``patches`` as in
    loading.load_model)."""

    if isinstance(model, CSources):
        return _Model(model, model.name, None, None)
    if isinstance(model, (str, os.PathLike)):
        path = Path(model)
        if path.suffix == ".pte":
            if not path.is_file():
                raise AotError(f"{path}: no such file")
            for flag, on in (("--overlap", overlap), ("--patches", patches not in (None, False))):
                if on:
                    raise AotError(f"{path}: {flag} plans a .pt2 as it is lowered; a .pte "
                                   "keeps the plan it was written with")
            program = load_program(str(path))
            return _Model(program, path.name, *_executorch(program, path.read_bytes, method),
                          output_scales(program, method))
        return dataclasses.replace(_resolve(load_pt2(str(path)), method, int8_io, overlap,
                                            patches),
                                   label=path.name)
    if isinstance(model, ExportedProgram):
        module = model.module()                     # before lowering touches the program
        quantized = has_quantized_ops(model)
        manager = to_edge(model, compile_config=EdgeCompileConfig(
            int8_io=int8_io, patches=True if patches is None else patches)).to_executorch(
            backend_config(overlap))
        reference = _int8_io_reference(module, manager, method) if quantized and int8_io \
            else _eager(module)
        program = manager.executorch_program
        return _Model(program, "ExportedProgram", reference,
                      "PT2E quantized torch" if quantized else "torch eager",
                      output_scales(program, method))
    if isinstance(model, ExecutorchProgramManager):
        return _Model(model.executorch_program, "program",
                      *_executorch(model.executorch_program, lambda: model.buffer, method),
                      output_scales(model.executorch_program, method))
    if isinstance(model, Program):
        return _Model(model, "program",
                      *_executorch(model, lambda: serialize_pte(model).to_bytes(), method))
    raise AotError("a firmware model is a .pt2 or .pte path, an ExportedProgram, a manager "
                   f"from to_executorch(), a Program or CSources, not {type(model).__name__}")


def _board(board: Union[str, Board]) -> Board:
    return board if isinstance(board, Board) else load_board(board)


# ---- inputs ----------------------------------------------------------------------------------

def random_inputs(sources: CSources, seed: int = DEFAULT_SEED) -> tuple[np.ndarray, ...]:
    """Seeded inputs of the model's shapes and dtypes: standard normal floats; integers and
    bools 0 or 1 (valid indices into any table)."""
    rng = np.random.default_rng(seed)
    out = []
    for spec in sources.inputs:
        if spec.dtype == "float32":
            out.append(rng.standard_normal(spec.shape).astype(np.float32))
        elif spec.dtype == "int8":                  # a quantized input: any code
            out.append(rng.integers(-128, 128, spec.shape).astype(np.int8))
        else:
            out.append(rng.integers(0, 2, spec.shape).astype(spec.dtype))
    return tuple(out)


def _load_input(x, k: int) -> np.ndarray:
    if isinstance(x, (str, os.PathLike)):
        try:
            return np.load(x, allow_pickle=False)
        except (OSError, ValueError) as e:
            raise AotError(f"input {k}: cannot read {x} as a .npy file ({e})") from None
    if hasattr(x, "detach"):                       # a torch tensor
        return x.detach().cpu().numpy()
    return np.asarray(x)


def check_inputs(sources: CSources, inputs) -> tuple[np.ndarray, ...]:
    """The given inputs (arrays, tensors or .npy paths) as contiguous arrays of the model's
    dtypes; AotError naming the input whose count, shape or dtype is wrong."""
    if inputs is None:
        return random_inputs(sources)
    inputs = list(inputs)
    if len(inputs) != len(sources.inputs):
        raise AotError(f"{sources.name} takes {len(sources.inputs)} input(s), "
                       f"got {len(inputs)}")
    out = []
    for k, (x, spec) in enumerate(zip(inputs, sources.inputs)):
        a = _load_input(x, k)
        if tuple(a.shape) != spec.shape:
            raise AotError(f"input {k}: shape {tuple(a.shape)}, {sources.name} takes "
                           f"{spec.shape}")
        if not np.can_cast(a.dtype, spec.dtype, "same_kind"):
            raise AotError(f"input {k}: dtype {a.dtype} does not convert to {spec.dtype}")
        out.append(np.require(a, spec.dtype, "C"))   # keeps rank 0
    return tuple(out)


