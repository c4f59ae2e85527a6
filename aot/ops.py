"""The op table: one entry per op that mcu-aot lowers, runs and renders.

The verifier (which ops are allowed), the lowering to out-variants (which overload the .pte calls
and how its arguments are laid out), the planner (which outputs may alias their input), the
report (MACs), the Program check and the C generator (which kernel renders the call) all read
this one table.

An entry is keyed two ways: by the functional op found in the edge graph (``OPS``), and by the
out-variant name a .pte calls (``by_et_name``). Most entries are core-ATen ops whose out-variant
torch itself defines. Some exist only in .pte files that ExecuTorch writes (its ``dim_order_ops``
copies): those have no edge-graph op, and their schema is written here, as ExecuTorch defines it.

Adding an op means: one ``_op(...)`` line here, one kernel in ``runtime_c/`` and one test.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Mapping, Optional

import torch

from . import overlap
from .opspec import CallSpec
from .ops_compute import COMPUTE, CONVOLUTION_IN_PLACE as COMPUTE_IN_PLACE
from .ops_create import CREATE
from .ops_data import MOVES
from .ops_elementwise import ELEMENTWISE
from .ops_int8 import INT8
from .ops_reduce import REDUCE
from .quantization.ops import ARG_DTYPES as Q8_DTYPES, BYTES, F32, PTE_SCHEMAS as Q8

aten = torch.ops.aten

# A MAC counter gets the op's named arguments (tensors as their shapes) and the output shapes.
MacFn = Callable[[dict, list], int]


# The tensor arguments the planner supplies, not the program: a kernel's working memory.
SCRATCH_ARGS = ("scratch", "output_scratch")


def _no_macs(args: dict, outs: list) -> int:
    return 0


def _no_scratch(args: dict, outs: list) -> int:
    return 0


def _conv_macs(args: dict, outs: list) -> int:
    w = args["weight"]  # [Cout, Cin/groups, *k], or [Cin, Cout/groups, *k] when transposed
    if args.get("transposed"):
        return math.prod(args["input"]) * math.prod(w[1:])
    return math.prod(outs[0]) * math.prod(w[1:])


def _addmm_macs(args: dict, outs: list) -> int:
    return math.prod(outs[0]) * args["mat1"][-1]


def _mm_macs(args: dict, outs: list) -> int:
    return math.prod(outs[0]) * args["self"][-1]


@dataclass(frozen=True)
class OpDef:
    """One supported op.

    ``aten`` is the functional overload found in the edge graph (None for an op that only .pte
    files written elsewhere call); ``schema`` is the out-variant the .pte calls (ExecuTorch's
    kernel name and argument list). ``alias`` ops may become zero-copy views: their output is
    the input's bytes under another shape. ``inplace`` ops compute out[i] from in[i] alone, so
    their output may take over the storage of their first input (``self``) when that input dies
    at this op and has the output's shape and dtype.
    """
    aten: Optional[torch._ops.OpOverload]
    schema: torch.FunctionSchema
    macs: MacFn = _no_macs
    alias: bool = False
    inplace: bool = False
    # What the kernel needs of its arguments beyond their kinds and shapes, by name
    # (aot.codegen.preconditions; rt_pte_pre_<name> in runtime_c/include/rt_pte_checks.h): the
    # renderer and the interpreter's adapter check each before anything runs.
    preconditions: tuple[str, ...] = ()
    # Runs the out-variant in torch, given its schema arguments by name (default: torch's own
    # overload of that name). The Python interpreters of a lowered method and of a .pte use it.
    reference: Optional[Callable] = None
    # False where ExecuTorch 1.5.1's portable kernel library has no kernel of this name: its
    # runtime refuses such a .pte at load ("Missing operator"); our C runs it.
    in_executorch: bool = True
    # Bytes of scratch the kernel needs (same arguments as ``macs``), for ops whose schema has a
    # ``scratch`` tensor: the planner gives it arena space for the call's duration (and an empty
    # one to an ``output_scratch``, see SCRATCH_ARGS).
    scratch: Optional[Callable[[dict, list], int]] = None
    # The ScalarTypes each tensor argument (by name) may have, where the schema's ``Tensor``
    # cannot say it (the int8 ops: ``aot.quantization.ops.ARG_DTYPES``); the Program check
    # refuses a call that passes another. None: the schema alone (the kernel checks dtypes).
    arg_dtypes: Optional[Mapping[str, tuple]] = field(default=None, hash=False)
    # The call, declared once (aot/opspec.py): the static C generator renders it and the
    # interpreter's adapter is compiled from it.
    spec: Optional[CallSpec] = field(default=None, hash=False)
    # torch's default decomposition of ``aten`` is skipped (aot.passes.decompose_to_core): the
    # runtime runs the op whole, where the decomposition would make it several calls.
    keep: bool = False
    # Where the output may overlap an input the call reads for the last time (aot.memory's
    # Overlap): ``overlap(args, outs)``, tensors as their TensorSpecs and other arguments as
    # values, gives that input's argument name, the lag in bytes that every kernel of the op
    # honours (on every arch: the generated C is the same for all) and whether only exactly
    # that lag is safe (in place); or None. Planned only under MemoryPlanningPass(overlap=True).
    overlap: Optional[Callable[[dict, list], Optional[tuple[str, int, bool]]]] = field(
        default=None, hash=False)
    # The scratch (bytes, as ``scratch`` takes its arguments) the kernel needs to honour that
    # overlap by bands (aot/overlap.py's pointwise_scratch and depthwise_scratch); planned,
    # instead of ``scratch`` where larger, only under MemoryPlanningPass(overlap=True).
    in_place_scratch: Optional[Callable[[dict, list], int]] = field(default=None, hash=False)

    @property
    def has_kernel(self) -> bool:
        return self.spec is not None

    @property
    def et_name(self) -> str:
        return self.schema.name                 # e.g. "aten::convolution"

    @property
    def et_overload(self) -> str:
        return self.schema.overload_name        # e.g. "out"

    @property
    def key(self) -> str:
        return f"{self.et_name}.{self.et_overload}"

    @property
    def outs(self) -> list:
        """The schema's out arguments."""
        return [a for a in self.schema.arguments if a.is_out]

    def run(self, /, **kwargs):
        """Execute the out-variant in torch, writing into the ``out`` tensors given."""
        if self.reference is not None:
            return self.reference(**kwargs)
        namespace, name = self.et_name.split("::")
        packet = getattr(getattr(torch.ops, namespace), name)
        return getattr(packet, self.et_overload or "default")(**kwargs)


def _find_out_overload(op: torch._ops.OpOverload) -> torch._ops.OpOverload:
    """The out-variant whose non-out arguments are exactly the functional op's arguments."""
    want = [(a.name, str(a.type)) for a in op._schema.arguments]
    packet = op.overloadpacket
    for name in packet.overloads():
        cand = getattr(packet, name)
        args = cand._schema.arguments
        if any(a.is_out for a in args) and [(a.name, str(a.type)) for a in args
                                            if not a.is_out] == want:
            return cand
    raise LookupError(f"no out-variant for {op}")


OPS: dict[torch._ops.OpOverload, OpDef] = {}
_BY_ET: dict[tuple[str, str], OpDef] = {}


def _add(op: OpDef) -> None:
    if op.aten is not None:
        OPS[op.aten] = op
    _BY_ET.setdefault((op.et_name, op.et_overload), op)


def _op(op: torch._ops.OpOverload, spec: CallSpec, macs: MacFn = _no_macs,
        alias: bool = False, inplace: bool = False,
        out: Optional[torch._ops.OpOverload] = None, in_executorch: bool = True,
        preconditions: tuple[str, ...] = (), keep: bool = False,
        overlap: Optional[Callable] = None) -> None:
    """An entry, its call declared by ``spec``."""
    out = out or _find_out_overload(op)
    _add(OpDef(op, out._schema, macs, alias, inplace, in_executorch=in_executorch,
               preconditions=preconditions, spec=spec, keep=keep, overlap=overlap))


def _reduction(op: torch._ops.OpOverload) -> None:
    """A reduction, softmax, batch norm or layer norm entry, its call from aot/ops_reduce.py."""
    spec, in_executorch, out = REDUCE[op]
    _op(op, spec, out=out, in_executorch=in_executorch)


def _pte_op(schema: str, spec: CallSpec, reference: Callable) -> None:
    """An out-variant that only .pte files written elsewhere call: its schema as they define it."""
    _add(OpDef(None, torch._C.parse_schema(schema), spec=spec, reference=reference))


# Elementwise ops whose output may not take over their input's storage.
_NOT_INPLACE = {aten.eq.Tensor, aten.ne.Tensor, aten.lt.Tensor, aten.le.Tensor, aten.gt.Tensor,
                aten.ge.Tensor, aten.eq.Scalar, aten.ne.Scalar, aten.lt.Scalar, aten.le.Scalar,
                aten.gt.Scalar, aten.ge.Scalar, aten.where.self, aten.pow.Scalar}


# Out variants torch's naming does not find (the functional forms take dtype, layout and device).
_CREATE_OUT = {aten.any.default: aten.any.all_out, aten.arange.default: aten.arange.out,
               aten.arange.start_step: aten.arange.start_out,
               **{getattr(aten, n).default: getattr(aten, n).out
                  for n in ("full_like", "full", "zeros", "ones", "scalar_tensor")}}


def _copy_into(self, out, **_):
    """dim_order_ops copies, in torch: the values (cast to out's dtype) land in ``out``."""
    return out.copy_(self)


# Convolution and matrix products.
_op(aten.convolution.default, COMPUTE[aten.convolution.default], _conv_macs,
    preconditions=("conv_geometry_fits",), overlap=overlap.depthwise_f32)


def _convolution_in_place(out, scratch=None, **kwargs):
    return out.copy_(aten.convolution.default(**kwargs))


# A float32 convolution planned under --overlap: aten::convolution with a scratch, for the
# kernels that run it with its output exactly over its input (aot/overlap.py's conv_f32). Only
# our runtimes have it (MemoryPlanningPass.overlap). Its ``aten`` is the convolution's, so the
# passes that look for a convolution (an activation's producer) find it; the functional op
# stays the plain entry's.
CONVOLUTION_IN_PLACE = OpDef(
    aten.convolution.default, torch._C.parse_schema(
        str(aten.convolution.out._schema).replace("aten::convolution.out", "mcu_aot::"
                                                  "convolution_in_place.out").replace(
            ", *, Tensor(a!) out", ", Tensor scratch, *, Tensor(a!) out")),
    _conv_macs, in_executorch=False, preconditions=("conv_geometry_fits",),
    arg_dtypes=dict(input=F32, weight=F32, bias=F32, scratch=BYTES, out=F32),
    reference=_convolution_in_place, spec=COMPUTE_IN_PLACE, scratch=_no_scratch,
    overlap=overlap.conv_f32, in_place_scratch=overlap.conv_f32_scratch)
_BY_ET.setdefault((CONVOLUTION_IN_PLACE.et_name, CONVOLUTION_IN_PLACE.et_overload),
                  CONVOLUTION_IN_PLACE)
_op(aten.addmm.default, COMPUTE[aten.addmm.default], _addmm_macs)
_op(aten.mm.default, COMPUTE[aten.mm.default], _mm_macs)
_op(aten.bmm.default, COMPUTE[aten.bmm.default], _mm_macs)
# Elementwise ops and activations (their calls: aot/ops_elementwise.py).
for _op_name, (_spec, _in_et, _keep) in ELEMENTWISE.items():
    _op(_op_name, _spec, inplace=_op_name not in _NOT_INPLACE, in_executorch=_in_et, keep=_keep)
_op(aten.clone.default, MOVES[aten.clone.default], inplace=True)
_op(aten._to_copy.default, MOVES[aten._to_copy.default], out=aten._to_copy.out)
# Pooling and reductions.
_op(aten.max_pool2d_with_indices.default, COMPUTE[aten.max_pool2d_with_indices.default],
    preconditions=("pool_geometry_fits",), overlap=overlap.pool_f32)
_op(aten.avg_pool2d.default, COMPUTE[aten.avg_pool2d.default],
    preconditions=("pool_geometry_fits",), overlap=overlap.pool_f32)
_reduction(aten.mean.dim)
_reduction(aten.mean.default)
_reduction(aten.sum.dim_IntList)
_reduction(aten.amax.default)
# Normalization.
_reduction(aten._softmax.default)
_reduction(aten._log_softmax.default)
_reduction(aten.native_layer_norm.default)
_reduction(aten._native_batch_norm_legit_no_training.default)
# Data movement. view_copy/squeeze/unsqueeze keep the bytes: zero-copy where the plan allows.
_op(aten.view_copy.default, MOVES[aten.view_copy.default], alias=True)
_op(aten.squeeze_copy.dims, MOVES[aten.squeeze_copy.dims], alias=True)
_op(aten.unsqueeze_copy.default, MOVES[aten.unsqueeze_copy.default], alias=True)
_op(aten.permute_copy.default, MOVES[aten.permute_copy.default])
_op(aten.expand_copy.default, MOVES[aten.expand_copy.default])
_op(aten.slice_copy.Tensor, MOVES[aten.slice_copy.Tensor])
_op(aten.select_copy.int, MOVES[aten.select_copy.int])
_op(aten.split_with_sizes_copy.default, MOVES[aten.split_with_sizes_copy.default])
_op(aten.cat.default, MOVES[aten.cat.default])
_op(aten.constant_pad_nd.default, MOVES[aten.constant_pad_nd.default])
_op(aten.upsample_nearest2d.vec, COMPUTE[aten.upsample_nearest2d.vec])
_op(aten.embedding.default, COMPUTE[aten.embedding.default])
# Buffer write-back (state kept across calls).
_op(aten.copy.default, MOVES[aten.copy.default])
# -- reductions, indexing and scatter --
_reduction(aten.amin.default)
_reduction(aten.argmax.default)
_reduction(aten.argmin.default)
_op(aten.index_select.default, MOVES[aten.index_select.default])
_op(aten.flip.default, MOVES[aten.flip.default])
_op(aten.slice_scatter.default, MOVES[aten.slice_scatter.default])
_op(aten.index.Tensor, MOVES[aten.index.Tensor])
_op(aten.index_put.default, MOVES[aten.index_put.default])
_op(aten.gather.default, MOVES[aten.gather.default])
_reduction(aten.cumsum.default)
_reduction(aten.median.default)
_reduction(aten.median.dim)
# -- end reductions, indexing and scatter --
# -- spatial: resampling, adaptive pooling, padding modes, transposed convolution --
_op(aten.upsample_bilinear2d.vec, COMPUTE[aten.upsample_bilinear2d.vec],
    out=aten.upsample_bilinear2d.vec_out, preconditions=("resample_scale_fits",))
_op(aten._adaptive_avg_pool2d.default, COMPUTE[aten._adaptive_avg_pool2d.default],
    overlap=overlap.pool_f32)
_op(aten.adaptive_max_pool2d.default, COMPUTE[aten.adaptive_max_pool2d.default],
    in_executorch=False)
for _k in (1, 2, 3):   # decomposed, they would be index.Tensor over arange-built indices
    for _mode in ("reflection", "replication"):
        _pad = getattr(aten, f"{_mode}_pad{_k}d").default
        _op(_pad, MOVES[_pad], keep=True)
# -- end spatial --
# ExecuTorch's to_edge writes clone and _to_copy as these (dim_order: the output's layout).
_pte_op("dim_order_ops::_clone_dim_order.out(Tensor self, *, bool non_blocking=False, "
        "int[]? dim_order=None, Tensor(a!) out) -> Tensor(a!)",
        MOVES["dim_order_ops::_clone_dim_order.out"], _copy_into)
_pte_op("dim_order_ops::_to_dim_order_copy.out(Tensor self, *, bool non_blocking=False, "
        "int[]? dim_order=None, Tensor(a!) out) -> Tensor(a!)",
        MOVES["dim_order_ops::_to_dim_order_copy.out"], _copy_into)
# Logic and creation (their calls: aot/ops_create.py).
for _name, _spec in CREATE.items():
    _op(_name, _spec, out=_CREATE_OUT.get(_name))


# -- int8 (aot.quantization.ops): ExecuTorch cortex_m names and argument lists -------------------

def _q8_reference(name: str) -> Callable:
    """Run the functional int8 op (the planner's SCRATCH_ARGS aside) and write its result into
    ``out``."""
    def run(out, **kwargs):
        return out.copy_(getattr(torch.ops.mcu_aot, name).default(
            **{k: v for k, v in kwargs.items() if k not in SCRATCH_ARGS}))
    return run


def _q8(name: str, macs: MacFn = _no_macs, inplace: bool = False,
        scratch: Optional[Callable] = None, preconditions: tuple[str, ...] = (),
        overlap: Optional[Callable] = None,
        in_place_scratch: Optional[Callable] = None) -> None:
    """An int8 entry, its call spec from aot/ops_int8.py."""
    _add(OpDef(getattr(torch.ops.mcu_aot, name).default, torch._C.parse_schema(Q8[name]), macs,
               inplace=inplace, reference=_q8_reference(name),
               preconditions=preconditions, spec=INT8[name],
               in_executorch=False, scratch=scratch, arg_dtypes=Q8_DTYPES[name],
               overlap=overlap, in_place_scratch=in_place_scratch))


def _q8_conv2d_scratch(args: dict, outs: list) -> int:
    """Scratch for rt_conv2d_s8 (rt_conv2d_s8_scratch_size): two output pixels' patches of
    taps when the filter rows are not whole words (Cin per group not a multiple of 4, more than
    one tap), which the DSP kernels gather; else none. The same on every board, so one
    planned program serves them all."""
    cout, kh, kw, cin_g = args["weight"]
    return 2 * kh * kw * cin_g if cin_g % 4 and kh * kw > 1 else 0


def _nhwc_conv_macs(args: dict, outs: list) -> int:
    w = args["weight"]       # OHWI
    return math.prod(outs[0]) * w[1] * w[2] * w[3]


def _depthwise_macs(args: dict, outs: list) -> int:
    w = args["weight"]       # [1, KH, KW, Cout]
    return math.prod(outs[0]) * w[1] * w[2]


def _transpose_conv_macs(args: dict, outs: list) -> int:
    """Every input pixel times the whole filter (the scatter form's count)."""
    w = args["weight"]       # OHWI
    return math.prod(args["input"][:3]) * w[0] * w[1] * w[2] * w[3]


def _bmm_macs(args: dict, outs: list) -> int:
    return math.prod(outs[0]) * args["lhs"][2]


def _q8_linear_macs(args: dict, outs: list) -> int:
    return math.prod(outs[0]) * args["weights"][1]


_q8("quantize_per_tensor")
_q8("dequantize_per_tensor")
_CONV_PRE = ("requant_shift", "accumulator_fits", "conv_geometry_fits")
_q8("quantized_conv2d_nhwc", macs=_nhwc_conv_macs, scratch=_q8_conv2d_scratch,
    preconditions=_CONV_PRE, overlap=overlap.conv_s8,
    in_place_scratch=overlap.pointwise_scratch)
_q8("quantized_depthwise_conv2d_nhwc", macs=_depthwise_macs,
    scratch=_no_scratch, preconditions=_CONV_PRE, overlap=overlap.depthwise_s8,
    in_place_scratch=overlap.depthwise_scratch)
_q8("quantized_transpose_conv2d_nhwc", macs=_transpose_conv_macs, scratch=_no_scratch,
    preconditions=_CONV_PRE)
_q8("quantized_linear", macs=_q8_linear_macs,
    preconditions=("requant_shift", "accumulator_fits"))
_q8("quantized_batch_matmul", macs=_bmm_macs, scratch=_no_scratch,
    preconditions=("requant_shift", "accumulator_fits"))
_q8("quantized_layer_norm")
_q8("quantized_add", inplace=True, preconditions=("requant_shift",))
_q8("quantized_mul", inplace=True, preconditions=("requant_shift",))
_q8("quantized_activation", inplace=True)
_q8("quantized_mul_s16", preconditions=("requant_shift",))
_q8("add_s16", inplace=True)
_q8("step_s16")
_q8("maximum", inplace=True)
_q8("minimum", inplace=True)
_q8("softmax", preconditions=("softmax_scaling_fits",))
_q8("log_softmax")
_q8("transpose", overlap=overlap.transpose_s8)
_q8("quantized_reduce_sum", preconditions=("accumulator_fits", "requant_shift"))
_q8("reduce_min")
_q8("resize_bilinear_nhwc")
_q8("pad")
_q8("quantized_avg_pool2d_nhwc", scratch=_no_scratch,
    preconditions=("pool_geometry_fits", "accumulator_fits"), overlap=overlap.pool_s8)
_q8("quantized_max_pool2d_nhwc", preconditions=("pool_geometry_fits",),
    overlap=overlap.pool_s8)


def lookup(op) -> Optional[OpDef]:
    return OPS.get(op)


def all_ops() -> list[OpDef]:
    """Every entry, including those only .pte files written elsewhere call."""
    return list(_BY_ET.values())


def by_et_name(name: str, overload: str) -> Optional[OpDef]:
    """The entry for an operator as a .pte names it, e.g. ("aten::convolution", "out")."""
    return _BY_ET.get((name, overload))


def bind_out_args(op: OpDef, node: torch.fx.Node) -> list[tuple[torch.Argument, object]]:
    """The out-variant's schema arguments, each with the value the functional call ``node``
    gives it (an FX argument, else the schema default); out arguments get ``OUT``."""
    given = dict(zip((a.name for a in node.target._schema.arguments), node.args))
    given.update(node.kwargs)
    bound = []
    for a in op.schema.arguments:
        if a.is_out:
            bound.append((a, OUT))
        elif a.name in given:
            bound.append((a, given[a.name]))
        else:
            bound.append((a, a.default_value if a.has_default_value() else None))
    return bound


class _Out:
    def __repr__(self) -> str:
        return "OUT"


OUT = _Out()   # marks an out argument in bind_out_args
