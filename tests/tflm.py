"""TensorFlow Lite Micro as the int8 oracle: our lowered program, rebuilt as a .tflite.

``to_tflite(method)`` walks the int8 kernel calls of a LoweredMethod (after the input's
quantize, up to the output's dequantize) and writes the same network as TFLite builtin ops,
from the same tensors, weights and qparams: conv (OHWI filters, per-channel quantization on
axis 0), depthwise ([1, KH, KW, Cout], axis 3), transposed conv (OHWI, axis 0), fully
connected, batch matmul, add/sub/mul, pooling, sum and min over rows (SUM, REDUCE_MIN),
softmax, log softmax, bilinear resize, transpose, pad, reshape. TFLite pads only SAME or
VALID, so an explicit padding becomes a PAD
(with the input's zero point, which is real zero) before a VALID op. TFLM then computes every
multiplier and shift itself, from the float32 scales, so equality with our C output checks
the whole chain: the qparams, our (multiplier, shift) pairs and the kernels.

``run_tflm(model, inputs)`` runs it in the `tflite-micro` wheel's interpreter (reference
kernels, CMSIS-NN's rounding) and returns the outputs and the arena bytes TFLM used.
"""
from __future__ import annotations

import math
import os
import re
import tempfile

import numpy as np

from tflite_micro.python.tflite_micro import runtime as tflm_runtime
from tflite_micro.tensorflow.lite.micro.compression import model_editor as me
from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as fb

from aot.quantization import arith

BO = fb.BuiltinOperator
ACT = fb.ActivationFunctionType


class NotExpressible(Exception):
    """A call TFLite has no builtin for (e.g. a lookup-table activation)."""


_ITEMSIZE = {"torch.int8": 1, "torch.int32": 4, "torch.float32": 4}


class _Builder:
    def __init__(self, method):
        self.g = method.graph
        self.sg = me.Subgraph()
        self.tensors: dict[int, me.Tensor] = {}

    def q(self, tid):
        s, z = self.g.tensors[tid].qparams
        if isinstance(s, tuple):
            raise NotExpressible("a per-channel tensor used as an activation")
        return me.Quantization(scales=float(np.float32(s)), zero_points=int(z))

    def tensor(self, tid) -> me.Tensor:
        tid = int(tid)
        if tid not in self.tensors:
            t = self.g.tensors[tid]
            data = self.g.constants.get(tid)
            kw = dict(shape=tuple(t.shape) or (1,), name=t.name)
            if data is not None:
                kw["data"] = np.ascontiguousarray(data)
            dtype = str(t.dtype)
            kw["dtype"] = {"torch.int8": fb.TensorType.INT8, "torch.int32": fb.TensorType.INT32,
                           "torch.float32": fb.TensorType.FLOAT32}[dtype]
            if t.qparams is not None and data is None:
                kw["quantization"] = self.q(tid)
            self.tensors[tid] = self.sg.add_tensor(**kw)
        return self.tensors[tid]

    def read(self, tid) -> me.Tensor:
        """A tensor an op reads. A zero-copy view (view_copy and friends emit no call in our
        program) becomes a RESHAPE of the tensor it views, the first time it is read; a view
        of a contiguous part (a strip's crop of whole rows) becomes a SLICE of it."""
        tid = int(tid)
        t = self.g.tensors[tid]
        if tid not in self.tensors and t.alias_of is not None and \
                self.g.tensors[t.alias_of].shape == t.shape:      # a view that changes nothing
            return self.read(t.alias_of)
        base = self.g.tensors[t.alias_of] if t.alias_of is not None else None
        if tid not in self.tensors and base is not None and \
                math.prod(base.shape) != math.prod(t.shape):
            d = next(i for i, (a, b) in enumerate(zip(base.shape, t.shape)) if a != b)
            if len(base.shape) != len(t.shape) or base.shape[d + 1:] != t.shape[d + 1:] or \
                    math.prod(base.shape[:d]) != 1:
                raise NotExpressible(f"a view {tuple(t.shape)} of {tuple(base.shape)}")
            row = math.prod(t.shape[d + 1:]) * _ITEMSIZE[str(t.dtype)]
            begin = np.zeros(len(t.shape), np.int32)
            begin[d] = t.alias_offset // row
            size = np.array(t.shape, np.int32)
            self.op(BO.SLICE, [self.read(t.alias_of),
                               self.new(begin.shape, fb.TensorType.INT32, begin),
                               self.new(size.shape, fb.TensorType.INT32, size)],
                    [self.tensor(tid)])
            return self.tensor(tid)
        if tid not in self.tensors and t.alias_of is not None:
            src = self.read(t.alias_of)
            shape = np.array(t.shape, np.int32)
            self.op(BO.RESHAPE, [src, self.new(shape.shape, fb.TensorType.INT32, shape)],
                    [self.tensor(tid)])
        return self.tensor(tid)

    def new(self, shape, dtype, data=None, quantization=None, name="tmp") -> me.Tensor:
        kw = dict(shape=tuple(shape), dtype=dtype, name=name)
        if data is not None:
            kw["data"] = np.ascontiguousarray(data)
        if quantization is not None:
            kw["quantization"] = quantization
        return self.sg.add_tensor(**kw)

    def op(self, code, inputs, outputs, options_type=None, options=None):
        o = self.sg.add_operator(opcode=code, inputs=inputs, outputs=outputs)
        if options is not None:
            o._fb.builtinOptionsType = options_type
            o._fb.builtinOptions = options
        return o

    def pad(self, tid, before_after, value_zp=True) -> me.Tensor:
        """PAD an NHWC int8 tensor by [(top, bottom), (left, right)] with its zero point."""
        (t, b), (l, r) = before_after
        if t == b == l == r == 0:
            return self.read(tid)
        n, h, w, c = self.g.tensors[tid].shape
        pads = np.array([[0, 0], [t, b], [l, r], [0, 0]], np.int32)
        out = self.new((n, h + t + b, w + l + r, c), fb.TensorType.INT8,
                       quantization=self.q(tid), name="padded")
        self.op(BO.PAD, [self.read(tid), self.new((4, 2), fb.TensorType.INT32, pads)], [out])
        return out


def _activation(lo, hi, scale, zp):
    for fn, (rlo, rhi) in ((ACT.NONE, (-np.inf, np.inf)), (ACT.RELU, (0.0, np.inf)),
                           (ACT.RELU6, (0.0, 6.0)), (ACT.RELU_N1_TO_1, (-1.0, 1.0))):
        if arith.activation_bounds(rlo, rhi, float(np.float32(scale)), zp) == (lo, hi):
            return fn
    raise NotExpressible(f"activation range [{lo}, {hi}]")


def _conv_pads(k, s, d, p, size, out):
    """(before, after) so a VALID conv over the padded input gives ``out`` positions."""
    after = (out - 1) * s + (k - 1) * d + 1 - size - p
    return p, max(after, 0)


def to_tflite(method, stop: int | None = None) -> tuple[bytes, int, int]:
    """The int8 part of ``method`` as a .tflite; returns (model, input tensor id, output
    tensor id). Filters carry their per-channel scales in their TensorSpec's qparams."""
    b = _Builder(method)
    g = b.g
    calls = [c for c in g.calls]
    first = last = None
    for c in calls:
        key = c.op.key
        args = dict(c.args)
        out = c.outs[0]
        if key == "cortex_m::quantize_per_tensor.out":
            first = out
            continue
        if key == "cortex_m::dequantize_per_tensor.out":
            last = args["input"].id
            continue
        if first is None:
            first = c.reads[0] if g.tensors[c.reads[0]].qparams is not None else None
            while first is not None and g.tensors[first].alias_of is not None:
                first = g.tensors[first].alias_of    # a view of the input: the input itself
        if key == "cortex_m::transpose.out":
            perm = np.array(args["perm"], np.int32)
            b.op(BO.TRANSPOSE, [b.read(args["input"].id),
                                b.new(perm.shape, fb.TensorType.INT32, perm)], [b.tensor(out)])
        elif key in ("cortex_m::quantized_conv2d_nhwc.out",
                     "cortex_m::quantized_depthwise_conv2d_nhwc.out"):
            x, w = args["input"].id, args["weight"].id
            dw = "depthwise" in key
            (_, h, wd, _), wshape = g.tensors[x].shape, g.tensors[w].shape
            kh, kw = wshape[1], wshape[2]
            (_, oh, ow, cout) = g.tensors[out].shape
            st, pd, dl = args["stride"], args["padding"], args["dilation"]
            xin = b.pad(x, [_conv_pads(kh, st[0], dl[0], pd[0], h, oh),
                            _conv_pads(kw, st[1], dl[1], pd[1], wd, ow)])
            scales = [float(v) for v in _scales(g, w)]
            wt = b.new(wshape, fb.TensorType.INT8, g.constants[w],
                       me.Quantization(scales=scales, zero_points=[0] * len(scales),
                                       axis=3 if dw else 0), name=g.tensors[w].name)
            bias = args.get("bias")
            s_in = float(np.float32(g.tensors[x].qparams[0]))
            bt = None
            if bias is not None:
                bt = b.new((cout,), fb.TensorType.INT32, g.constants[bias.id],
                           me.Quantization(scales=[float(np.float32(s_in * s)) for s in scales],
                                           zero_points=[0] * cout, axis=0), name="bias")
            s_out, z_out = g.tensors[out].qparams
            act = _activation(args["activation_min"], args["activation_max"], s_out, z_out)
            if dw:
                o = fb.DepthwiseConv2DOptionsT()
                o.padding, o.strideH, o.strideW = fb.Padding.VALID, st[0], st[1]
                o.depthMultiplier = args["depth_multiplier"]
                o.dilationHFactor, o.dilationWFactor = dl
                o.fusedActivationFunction = act
                b.op(BO.DEPTHWISE_CONV_2D, [xin, wt, bt], [b.tensor(out)],
                     fb.BuiltinOptions.DepthwiseConv2DOptions, o)
            else:
                o = fb.Conv2DOptionsT()
                o.padding, o.strideH, o.strideW = fb.Padding.VALID, st[0], st[1]
                o.dilationHFactor, o.dilationWFactor = dl
                o.fusedActivationFunction = act
                b.op(BO.CONV_2D, [xin, wt, bt], [b.tensor(out)],
                     fb.BuiltinOptions.Conv2DOptions, o)
        elif key == "cortex_m::quantized_transpose_conv2d_nhwc.out":
            x, w = args["input"].id, args["weight"].id
            (_, h, wd, _), wshape = g.tensors[x].shape, g.tensors[w].shape
            (_, oh, ow, cout) = g.tensors[out].shape
            st, pd = args["stride"], args["padding"]
            if list(args["dilation"]) != [1, 1]:
                raise NotExpressible("a dilated transposed convolution")
            # TFLite crops (k - s) // 2 at the start under SAME and nothing under VALID; the
            # output size says which, and the crop must be ours.
            same = [o == i * s for o, i, s in zip((oh, ow), (h, wd), st)]
            valid = [o == (i - 1) * s + k for o, i, s, k in zip((oh, ow), (h, wd), st,
                                                                  wshape[1:3])]
            crop = [(k - s) // 2 if sm else 0 for k, s, sm in zip(wshape[1:3], st, same)]
            if not (all(same) or all(valid)) or list(pd) != crop:
                raise NotExpressible(f"transposed-convolution padding {list(pd)}")
            scales = [float(v) for v in _scales(g, w)]
            wt = b.new(wshape, fb.TensorType.INT8, g.constants[w],
                       me.Quantization(scales=scales, zero_points=[0] * len(scales), axis=0),
                       name=g.tensors[w].name)
            s_in = float(np.float32(g.tensors[x].qparams[0]))
            bias, bt = args.get("bias"), None
            if bias is not None:
                bt = b.new((cout,), fb.TensorType.INT32, g.constants[bias.id],
                           me.Quantization(scales=[float(np.float32(s_in * s)) for s in scales],
                                           zero_points=[0] * cout, axis=0), name="bias")
            s_out, z_out = g.tensors[out].qparams
            o = fb.TransposeConvOptionsT()
            o.padding = fb.Padding.SAME if all(same) else fb.Padding.VALID
            o.strideH, o.strideW = st
            o.fusedActivationFunction = _activation(args["activation_min"],
                                                    args["activation_max"], s_out, z_out)
            shape = np.array(g.tensors[out].shape, np.int32)
            b.op(BO.TRANSPOSE_CONV, [b.new(shape.shape, fb.TensorType.INT32, shape), wt,
                                     b.read(x), bt], [b.tensor(out)],
                 fb.BuiltinOptions.TransposeConvOptions, o)
        elif key == "cortex_m::quantized_batch_matmul.out":
            o = fb.BatchMatMulOptionsT()
            o.adjX, o.adjY = False, True          # our right operand comes transposed
            b.op(BO.BATCH_MATMUL, [b.read(args["lhs"].id), b.read(args["rhs_transposed"].id)],
                 [b.tensor(out)], fb.BuiltinOptions.BatchMatMulOptions, o)
        elif key == "cortex_m::quantized_linear.out":
            x, w = args["input"].id, args["weights"].id
            scales = [float(v) for v in _scales(g, w)]
            cout, k = g.tensors[w].shape
            wt = b.new((cout, k), fb.TensorType.INT8, g.constants[w],
                       me.Quantization(scales=scales, zero_points=[0] * len(scales),
                                       axis=0 if len(scales) > 1 else None),
                       name=g.tensors[w].name)
            s_in = float(np.float32(g.tensors[x].qparams[0]))
            bias, ksum = args.get("bias"), args.get("kernel_sum")
            bias = None if bias is None else np.asarray(g.constants[bias.id], np.int64)
            if ksum is not None:     # the MVE form: TFLite's bias is the kernel sum less
                w8 = np.asarray(g.constants[w], np.int64)   # the input offset's products
                bias = np.asarray(g.constants[ksum.id], np.int64).reshape(-1) - \
                    args["input_offset"] * w8.sum(axis=1)
            bt = None
            if bias is not None:
                bt = b.new((cout,), fb.TensorType.INT32, bias.astype(np.int32),
                           me.Quantization(scales=[float(np.float32(s_in * s)) for s in scales],
                                           zero_points=[0] * len(scales),
                                           axis=0 if len(scales) > 1 else None), name="bias")
            s_out, z_out = g.tensors[out].qparams
            o = fb.FullyConnectedOptionsT()
            o.fusedActivationFunction = _activation(args["activation_min"],
                                                    args["activation_max"], s_out, z_out)
            o.keepNumDims = len(g.tensors[out].shape) > 2
            b.op(BO.FULLY_CONNECTED, [b.read(x), wt, bt], [b.tensor(out)],
                 fb.BuiltinOptions.FullyConnectedOptions, o)
        elif key in ("cortex_m::quantized_add.out", "cortex_m::quantized_mul.out"):
            a, c2 = args["self"].id, args["other"].id
            s_out, z_out = g.tensors[out].qparams
            if key.endswith("add.out"):
                sub = args["other_multiplier"] < 0
                o = fb.SubOptionsT() if sub else fb.AddOptionsT()
                o.fusedActivationFunction = _activation(args["activation_min"],
                                                        args["activation_max"], s_out, z_out)
                b.op(BO.SUB if sub else BO.ADD, [b.read(a), b.read(c2)], [b.tensor(out)],
                     fb.BuiltinOptions.SubOptions if sub else fb.BuiltinOptions.AddOptions, o)
            else:
                o = fb.MulOptionsT()
                o.fusedActivationFunction = ACT.NONE
                b.op(BO.MUL, [b.read(a), b.read(c2)], [b.tensor(out)],
                     fb.BuiltinOptions.MulOptions, o)
        elif key in ("cortex_m::quantized_avg_pool2d_nhwc.out",
                     "cortex_m::quantized_max_pool2d_nhwc.out"):
            x = args["input"].id
            k, st, pd = args["kernel_size"], args["stride"], args["padding"]
            if any(pd) and "avg" in key:
                raise NotExpressible("an average pool with padding that does not count")
            if "max" in key and list(args.get("dilation", [1, 1])) != [1, 1]:
                raise NotExpressible("a dilated max pool")
            (_, h, wd, _), (_, oh, ow, _) = g.tensors[x].shape, g.tensors[out].shape
            xin = b.read(x)
            if any(pd):
                raise NotExpressible("a padded max pool")
            o = fb.Pool2DOptionsT()
            o.padding, o.strideH, o.strideW = fb.Padding.VALID, st[0], st[1]
            o.filterHeight, o.filterWidth = k
            o.fusedActivationFunction = ACT.NONE
            b.op(BO.AVERAGE_POOL_2D if "avg" in key else BO.MAX_POOL_2D, [xin],
                 [b.tensor(out)], fb.BuiltinOptions.Pool2DOptions, o)
        elif key == "cortex_m::softmax.out":
            o = fb.SoftmaxOptionsT()
            o.beta = 1.0
            b.op(BO.SOFTMAX, [b.read(args["input"].id)], [b.tensor(out)],
                 fb.BuiltinOptions.SoftmaxOptions, o)
        elif key in ("mcu_aot::quantized_reduce_sum.out", "mcu_aot::reduce_min.out"):
            o = fb.ReducerOptionsT()
            o.keepDims = True
            axis = np.array([1], np.int32)
            b.op(BO.SUM if "sum" in key else BO.REDUCE_MIN,
                 [b.read(args["input"].id), b.new(axis.shape, fb.TensorType.INT32, axis)],
                 [b.tensor(out)], fb.BuiltinOptions.ReducerOptions, o)
        elif key == "mcu_aot::log_softmax.out":
            b.op(BO.LOG_SOFTMAX, [b.read(args["input"].id)], [b.tensor(out)])
        elif key == "mcu_aot::resize_bilinear_nhwc.out":
            o = fb.ResizeBilinearOptionsT()
            o.alignCorners, o.halfPixelCenters = args["align_corners"], \
                args["half_pixel_centers"]
            size = np.array(args["output_size"], np.int32)
            b.op(BO.RESIZE_BILINEAR, [b.read(args["input"].id),
                                      b.new(size.shape, fb.TensorType.INT32, size)],
                 [b.tensor(out)], fb.BuiltinOptions.ResizeBilinearOptions, o)
        elif key == "cortex_m::pad.out":
            x = args["input"].id
            rank = len(g.tensors[x].shape)
            pre, post = args["pre_pad"][4 - rank:], args["post_pad"][4 - rank:]
            pads = np.array(list(zip(pre, post)), np.int32).reshape(rank, 2)
            b.op(BO.PAD, [b.read(x), b.new(pads.shape, fb.TensorType.INT32, pads)],
                 [b.tensor(out)])
        elif key == "aten::cat.out":          # a patch-based stage's rows and columns
            o = fb.ConcatenationOptionsT()
            o.axis, o.fusedActivationFunction = args["dim"], ACT.NONE
            b.op(BO.CONCATENATION, [b.read(r.id) for r in args["tensors"]], [b.tensor(out)],
                 fb.BuiltinOptions.ConcatenationOptions, o)
        elif key == "aten::slice_copy.Tensor_out":    # a patch's crop
            x, d = args["self"].id, args["dim"]
            begin = np.zeros(len(g.tensors[x].shape), np.int32)
            begin[d] = args["start"]
            size = np.array(g.tensors[out].shape, np.int32)
            if args.get("step", 1) != 1:
                raise NotExpressible("a strided slice")
            b.op(BO.SLICE, [b.read(x), b.new(begin.shape, fb.TensorType.INT32, begin),
                            b.new(size.shape, fb.TensorType.INT32, size)], [b.tensor(out)])
        elif key in ("aten::view_copy.out", "aten::squeeze_copy.dims_out",
                     "aten::unsqueeze_copy.out", "aten::clone.out"):
            src = c.reads[0]
            shape = np.array(g.tensors[out].shape, np.int32)
            b.op(BO.RESHAPE, [b.read(src), b.new(shape.shape, fb.TensorType.INT32, shape)],
                 [b.tensor(out)])
        else:
            raise NotExpressible(f"{key} has no TFLite builtin here")
        last = out
        if stop is not None and out == stop:
            break
    b.sg.inputs = [b.tensor(first)]
    b.sg.outputs = [b.read(last)]
    model = me.Model(subgraphs=[b.sg])
    return bytes(model.build()), first, last


def _scales(g, tid) -> list[float]:
    scales = g.tensors[tid].qparams[0]
    return [float(np.float32(v)) for v in (scales if isinstance(scales, tuple) else (scales,))]


def run_tflm(model: bytes, inputs: list[np.ndarray]) -> tuple[list[np.ndarray], int]:
    """Run a .tflite in TFLM; returns the outputs and the arena bytes it used."""
    interp = tflm_runtime.Interpreter.from_bytes(model, arena_size=4 << 20)
    for i, x in enumerate(inputs):
        interp.set_input(x, i)
    interp.invoke()
    outs, k = [], 0
    while True:
        try:
            outs.append(np.array(interp.get_output(k)))
        except Exception:
            break
        k += 1
        if k >= 1:
            break
    return outs, arena_used_bytes(interp)


def arena_used_bytes(interp) -> int:
    """TFLM's RecordingMicroAllocator report ("[RecordingMicroAllocator] Arena allocation total
    N bytes"), read from its stderr print."""
    fd, path = tempfile.mkstemp()
    saved = os.dup(2)
    try:
        os.dup2(fd, 2)
        interp.print_allocations()
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(fd)
    text = open(path).read()
    os.unlink(path)
    m = re.search(r"Arena allocation total (\d+) bytes", text)
    if not m:
        raise RuntimeError(f"TFLM printed no arena total:\n{text}")
    return int(m.group(1))
