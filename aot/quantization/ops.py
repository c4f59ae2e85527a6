"""The int8 ops of a lowered graph: torch.library ops in the ``mcu_aot`` namespace.

Each has the argument list of ExecuTorch 1.5.1's ``cortex_m`` op of the same name (the op table
maps it to that name in the .pte), minus the ``scratch`` tensor, which the planner adds (see
``OpDef.scratch``). Feature maps are NHWC tensors (the ``_nhwc`` variants of cortex_m), conv
filters OHWI and depthwise filters [1, KH, KW, Cout].

Every op has a fake implementation (shapes, for export and the planner) and a CPU
implementation in integer arithmetic (``aot.quantization.arith``), so an edge program holding
them still runs in torch, and the Python interpreter of a .pte runs them through the op table.
"""
from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

from . import arith
from ..program import ScalarType

LIB = torch.library.Library("mcu_aot", "DEF")

SCHEMAS = {
    "quantize_per_tensor": "(Tensor input, float scale, int zero_point, int quant_min, "
                           "int quant_max, ScalarType dtype) -> Tensor",
    "dequantize_per_tensor": "(Tensor input, float scale, int zero_point, int quant_min, "
                             "int quant_max, ScalarType dtype) -> Tensor",
    "quantized_conv2d_nhwc": "(Tensor input, Tensor weight, Tensor? bias, int[] stride, "
                             "int[] padding, int[] dilation, int input_offset, int output_offset, "
                             "Tensor requantize_multipliers, Tensor requantize_shifts, "
                             "int activation_min, int activation_max) -> Tensor",
    "quantized_depthwise_conv2d_nhwc": "(Tensor input, Tensor weight, Tensor? bias, int[] stride, "
                                       "int[] padding, int[] dilation, int depth_multiplier, "
                                       "int input_offset, int output_offset, "
                                       "Tensor requantize_multipliers, "
                                       "Tensor requantize_shifts, int activation_min, "
                                       "int activation_max) -> Tensor",
    "quantized_transpose_conv2d_nhwc": "(Tensor input, Tensor weight, Tensor? bias, "
                                       "int[] stride, int[] padding, int[] output_padding, "
                                       "int[] dilation, int input_offset, int output_offset, "
                                       "Tensor requantize_multipliers, "
                                       "Tensor requantize_shifts, int activation_min, "
                                       "int activation_max) -> Tensor",
    "quantized_linear": "(Tensor input, Tensor weights, Tensor? bias, Tensor? kernel_sum, "
                        "int input_offset, int filter_offset, int output_offset, "
                        "int[] requantize_multipliers, int[] requantize_shifts, "
                        "int activation_max, int activation_min) -> Tensor",
    "quantized_batch_matmul": "(Tensor lhs, int lhs_zero_point, Tensor rhs_transposed, "
                              "int rhs_zero_point, int output_zero_point, "
                              "int output_multiplier, int output_shift) -> Tensor",
    "quantized_layer_norm": "(Tensor input, Tensor? weight, Tensor? bias, float input_scale, "
                            "float eps, float output_scale, int output_zero_point) -> Tensor",
    "quantized_add": "(Tensor self, int self_zero_point, int self_multiplier, int self_shift, "
                     "Tensor other, int other_zero_point, int other_multiplier, int other_shift, "
                     "int output_zero_point, int output_multiplier, int output_shift, "
                     "int activation_min, int activation_max) -> Tensor",
    "quantized_mul": "(Tensor self, int self_zero_point, Tensor other, int other_zero_point, "
                     "int output_zero_point, int output_multiplier, int output_shift) -> Tensor",
    "quantized_activation": "(Tensor input, Tensor lut) -> Tensor",
    "quantized_mul_s16": "(Tensor self, int self_zero_point, Tensor other, int other_zero_point, "
                         "int output_multiplier, int output_shift) -> Tensor",
    "add_s16": "(Tensor self, Tensor other) -> Tensor",
    "step_s16": "(Tensor input, Tensor steps, int first) -> Tensor",
    "maximum": "(Tensor self, Tensor other) -> Tensor",
    "minimum": "(Tensor self, Tensor other) -> Tensor",
    "softmax": "(Tensor input, int dim, int input_zero_point, int output_zero_point, "
               "int input_multiplier, int input_shift, int diff_min) -> Tensor",
    "log_softmax": "(Tensor input, int dim, int input_multiplier, int input_shift, "
                   "int reverse_multiplier, int reverse_shift, int diff_min) -> Tensor",
    "transpose": "(Tensor input, int[] perm) -> Tensor",
    "quantized_reduce_sum": "(Tensor input, int input_zero_point, int output_zero_point, "
                            "int output_multiplier, int output_shift) -> Tensor",
    "reduce_min": "(Tensor input) -> Tensor",
    "resize_bilinear_nhwc": "(Tensor input, int[] output_size, bool align_corners, "
                            "bool half_pixel_centers) -> Tensor",
    "pad": "(Tensor input, int[] pre_pad, int[] post_pad, int pad_value) -> Tensor",
    "quantized_avg_pool2d_nhwc": "(Tensor input, int[] kernel_size, int[] stride, "
                                 "int[] padding, bool ceil_mode, int zero_point, int multiplier, "
                                 "int shift) -> Tensor",
    "quantized_max_pool2d_nhwc": "(Tensor input, int[] kernel_size, int[] stride, "
                                 "int[] padding, int[] dilation, bool ceil_mode, "
                                 "int input_zero_point, int output_zero_point, "
                                 "int activation_min, int activation_max) -> Tensor",
}

# The .pte name of each: ExecuTorch's cortex_m out-variant, with its scratch argument(s).
_SCRATCH = {"quantized_conv2d_nhwc": ", Tensor scratch",
            "quantized_depthwise_conv2d_nhwc": ", Tensor scratch",
            "quantized_avg_pool2d_nhwc": ", Tensor scratch",
            "quantized_transpose_conv2d_nhwc": ", Tensor scratch, Tensor output_scratch",
            "quantized_batch_matmul": ", Tensor scratch"}
# ExecuTorch's cortex_m has no int8 layer norm, resize, reductions or log softmax: ours keep our own
# namespace in the .pte, so no runtime mistakes them for theirs.
_OURS = {"quantized_layer_norm", "resize_bilinear_nhwc", "quantized_reduce_sum", "reduce_min",
         "log_softmax", "quantized_mul_s16", "add_s16", "step_s16"}
PTE_SCHEMAS = {name: ("mcu_aot::" if name in _OURS else "cortex_m::") + name + ".out" +
               sig.replace(") -> Tensor", _SCRATCH.get(name, "") +
                           ", *, Tensor(a!) out) -> Tensor(a!)")
               for name, sig in SCHEMAS.items()}

# The dtypes each tensor argument of the .pte op (PTE_SCHEMAS) may have, where the schema's
# ``Tensor`` cannot say it: the op table carries them (``aot.ops.OpDef.arg_dtypes``) and the
# Program check (aot.passes.verify_program) refuses a call that passes any other, so an int32
# constant never reaches a kernel as int8 weights. Every tensor argument is listed; scratch is
# bytes (the kernel takes its element count as its size).
I8, I16, I32, F32 = (ScalarType.CHAR,), (ScalarType.SHORT,), (ScalarType.INT,), (ScalarType.FLOAT,)
BYTES = (ScalarType.CHAR, ScalarType.BYTE)
_CONV = dict(input=I8, weight=I8, bias=I32, requantize_multipliers=I32, requantize_shifts=I32,
             scratch=BYTES, out=I8)
ARG_DTYPES: dict[str, dict[str, tuple[ScalarType, ...]]] = {
    "quantize_per_tensor": dict(input=F32, out=I8),
    "dequantize_per_tensor": dict(input=I8, out=F32),
    "quantized_conv2d_nhwc": _CONV,
    "quantized_depthwise_conv2d_nhwc": _CONV,
    "quantized_transpose_conv2d_nhwc": dict(_CONV, output_scratch=BYTES),
    "quantized_linear": dict(input=I8, weights=I8, bias=I32, kernel_sum=I32, out=I8),
    "quantized_batch_matmul": dict(lhs=I8, rhs_transposed=I8, scratch=BYTES, out=I8),
    "quantized_layer_norm": dict(input=I8, weight=F32, bias=F32, out=I8),
    "quantized_add": dict(self=I8, other=I8, out=I8),
    "quantized_mul": dict(self=I8, other=I8, out=I8),
    "quantized_activation": dict(input=I8, lut=I8, out=I8),
    "quantized_mul_s16": dict(self=I8, other=I8 + I16, out=I16),
    "add_s16": dict(self=I16, other=I16, out=I16),
    "step_s16": dict(input=I16, steps=I16, out=I8),
    "maximum": dict(self=I8, other=I8, out=I8),
    "minimum": dict(self=I8, other=I8, out=I8),
    "softmax": dict(input=I8, out=I8),
    "log_softmax": dict(input=I8, out=I8),
    "transpose": dict(input=I8, out=I8),
    "quantized_reduce_sum": dict(input=I8, out=I8),
    "reduce_min": dict(input=I8, out=I8),
    "resize_bilinear_nhwc": dict(input=I8, out=I8),
    "pad": dict(input=I8, out=I8),
    "quantized_avg_pool2d_nhwc": dict(input=I8, scratch=BYTES, out=I8),
    "quantized_max_pool2d_nhwc": dict(input=I8, out=I8),
}


def _tensor_args(schema: str) -> set:
    def tensor(t) -> bool:
        t = t.getElementType() if isinstance(t, torch.OptionalType) else t
        return isinstance(t, torch.TensorType)
    return {a.name for a in torch._C.parse_schema(schema).arguments if tensor(a.type)}


for _name, _pte in PTE_SCHEMAS.items():     # the table names exactly the tensor arguments
    if set(ARG_DTYPES.get(_name, ())) != _tensor_args(_pte):
        raise RuntimeError(f"ARG_DTYPES[{_name!r}] must list the dtypes of exactly the tensor "
                           f"arguments {sorted(_tensor_args(_pte))}")

for _name, _sig in SCHEMAS.items():
    LIB.define(_name + _sig)

OPS = torch.ops.mcu_aot


def _i64(t: torch.Tensor) -> np.ndarray:
    return t.detach().cpu().numpy().astype(np.int64)


def _i8(a: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(np.ascontiguousarray(a).astype(np.int8))


def _out(acc: np.ndarray, mult, shift, out_offset: int, lo: int, hi: int) -> torch.Tensor:
    return _i8(np.clip(arith.requantize(acc, mult, shift) + out_offset, lo, hi))


def _conv_acc(x_nhwc, w_oihw, bias, stride, padding, dilation, groups, in_off) -> np.ndarray:
    """sum((x + in_off) * w) + bias as int64 NHWC, exact (float64 holds every partial sum)."""
    x = torch.from_numpy(_i64(x_nhwc) + in_off).double().permute(0, 3, 1, 2)
    w = torch.from_numpy(w_oihw).double()
    acc = F.conv2d(x, w, None, tuple(stride), tuple(padding), tuple(dilation), groups)
    acc = np.rint(acc.permute(0, 2, 3, 1).numpy()).astype(np.int64)
    return acc if bias is None else acc + _i64(bias)


# -- CPU implementations (integer arithmetic, as the C kernels) ----------------------------------

def _quantize(input, scale, zero_point, quant_min, quant_max, dtype):
    q = arith.quantize_f32(input.detach().float().numpy(), scale, zero_point, quant_min,
                           quant_max)
    return torch.from_numpy(np.asarray(q)).to(dtype)     # (a rank-0 q is a numpy scalar)


def _dequantize(input, scale, zero_point, quant_min, quant_max, dtype):
    return torch.from_numpy(np.asarray(arith.dequantize_f32(_i64(input), scale, zero_point)))


def _conv(input, weight, bias, stride, padding, dilation, input_offset, output_offset,
          requantize_multipliers, requantize_shifts, activation_min, activation_max):
    w = _i64(weight).transpose(0, 3, 1, 2)                    # OHWI -> OIHW
    groups = input.shape[3] // weight.shape[3]
    acc = _conv_acc(input, w, bias, stride, padding, dilation, groups, input_offset)
    return _out(acc, _i64(requantize_multipliers), _i64(requantize_shifts), output_offset,
                activation_min, activation_max)


def _depthwise(input, weight, bias, stride, padding, dilation, depth_multiplier, input_offset,
               output_offset, requantize_multipliers, requantize_shifts, activation_min,
               activation_max):
    w = _i64(weight).transpose(3, 0, 1, 2)                    # [1,KH,KW,Cout] -> [Cout,1,KH,KW]
    acc = _conv_acc(input, w, bias, stride, padding, dilation, input.shape[3], input_offset)
    return _out(acc, _i64(requantize_multipliers), _i64(requantize_shifts), output_offset,
                activation_min, activation_max)


def _transpose_conv(input, weight, bias, stride, padding, output_padding, dilation,
                    input_offset, output_offset, requantize_multipliers, requantize_shifts,
                    activation_min, activation_max):
    """A transposed convolution of one group, weights OHWI (O the output channels)."""
    x = torch.from_numpy(_i64(input) + input_offset).double().permute(0, 3, 1, 2)
    w = torch.from_numpy(_i64(weight).transpose(3, 0, 1, 2)).double()    # OHWI -> IOHW
    acc = F.conv_transpose2d(x, w, None, tuple(stride), tuple(padding), tuple(output_padding),
                             1, tuple(dilation))
    acc = np.rint(acc.permute(0, 2, 3, 1).numpy()).astype(np.int64)
    acc = acc if bias is None else acc + _i64(bias)
    return _out(acc, _i64(requantize_multipliers), _i64(requantize_shifts), output_offset,
                activation_min, activation_max)


def _linear(input, weights, bias, kernel_sum, input_offset, filter_offset, output_offset,
            requantize_multipliers, requantize_shifts, activation_max, activation_min):
    w = _i64(weights) + filter_offset
    if kernel_sum is not None:    # the MVE form: input_offset * sum(w) + bias, precomputed
        acc = _i64(input) @ w.T + _i64(kernel_sum).reshape(-1)
    else:
        acc = (_i64(input) + input_offset) @ w.T
        if bias is not None:
            acc = acc + _i64(bias)
    mult = np.asarray(requantize_multipliers, np.int64)
    shift = np.asarray(requantize_shifts, np.int64)
    return _out(acc, mult, shift, output_offset, activation_min, activation_max)


def _batch_matmul(lhs, lhs_zero_point, rhs_transposed, rhs_zero_point, output_zero_point,
                  output_multiplier, output_shift):
    """lhs [B, M, K] times rhs [B, K, N] given as rhs_transposed [B, N, K]; the "zero point"
    arguments are offsets (-zp), as ExecuTorch's cortex_m op takes them."""
    a = _i64(lhs) + lhs_zero_point
    b = _i64(rhs_transposed) + rhs_zero_point
    acc = np.einsum("bmk,bnk->bmn", a, b)
    return _out(acc, output_multiplier, output_shift, output_zero_point, -128, 127)


def _layer_norm(input, weight, bias, input_scale, eps, output_scale, output_zero_point):
    """Layer norm over the last dim, as rt_layer_norm_s8 computes it: exact integer row sums,
    then the same float32 operations in the same order."""
    f = np.float32
    shape = input.shape
    x = _i64(input).reshape(-1, shape[-1]) if input.numel() else _i64(input).reshape(0, 1)
    d = x.shape[1]
    total, squares = x.sum(1, keepdims=True), (x * x).sum(1, keepdims=True)
    s_in, inv_out = f(input_scale), f(1.0 / output_scale)
    var = (squares * d - total * total).astype(f) / (f(d) * f(d))
    rstd = f(1.0) / np.sqrt(var * s_in * s_in + f(eps))
    y = (x * d - total).astype(f) / f(d) * s_in * rstd
    if weight is not None:
        y = y * weight.detach().numpy().astype(f)
    if bias is not None:
        y = y + bias.detach().numpy().astype(f)
    q = np.rint(y * inv_out) + f(output_zero_point)
    return _i8(np.clip(np.nan_to_num(q, nan=-128.0), -128, 127).reshape(shape))


def _add(self, self_zero_point, self_multiplier, self_shift, other, other_zero_point,
         other_multiplier, other_shift, output_zero_point, output_multiplier, output_shift,
         activation_min, activation_max):
    a, b = np.broadcast_arrays(_i64(self), _i64(other))
    a = arith.requantize((a - self_zero_point) << arith.ADD_LEFT_SHIFT, self_multiplier,
                         self_shift)
    b = arith.requantize((b - other_zero_point) << arith.ADD_LEFT_SHIFT, abs(other_multiplier),
                         other_shift)
    total = a - b if other_multiplier < 0 else a + b
    return _out(total, output_multiplier, output_shift, output_zero_point, activation_min,
                activation_max)


def _mul(self, self_zero_point, other, other_zero_point, output_zero_point, output_multiplier,
         output_shift):
    a, b = np.broadcast_arrays(_i64(self), _i64(other))
    return _out((a - self_zero_point) * (b - other_zero_point), output_multiplier, output_shift,
                output_zero_point, -128, 127)


def _lut(input, lut):
    return _i8(_i64(lut)[_i64(input) + 128])


def _i16(x) -> torch.Tensor:
    return torch.from_numpy(np.clip(x, -32768, 32767).astype(np.int16))


def _mul_s16(self, self_zero_point, other, other_zero_point, output_multiplier, output_shift):
    """An LSTM's int16 cell state: a gate times the cell state or another gate, into int16."""
    product = (_i64(self) - self_zero_point) * (_i64(other) - other_zero_point)
    return _i16(arith.requantize(product, output_multiplier, output_shift))


def _add_s16(self, other):
    return _i16(_i64(self) + _i64(other))


def _step_s16(input, steps, first):
    """A non-decreasing int16 -> int8 function: first + the number of steps at or below x."""
    return _i8(first + np.searchsorted(_i64(steps), _i64(input), side="right"))


def _softmax(input, dim, input_zero_point, output_zero_point, input_multiplier, input_shift,
             diff_min):
    x = np.moveaxis(_i64(input), dim, -1)
    out = arith.softmax_s8(x, input_multiplier, input_shift, diff_min)
    return _i8(np.moveaxis(out, -1, dim))


def _reduce_sum(input, input_zero_point, output_zero_point, output_multiplier, output_shift):
    """The sum over dim 1 of (A, R, B) of (x - z_in), requantized: TFLite Micro's SUM."""
    acc = (_i64(input) - input_zero_point).sum(1, keepdims=True)
    return _out(acc, output_multiplier, output_shift, output_zero_point, -128, 127)


def _reduce_min(input):
    return input.amin(1, keepdim=True)


def _log_softmax(input, dim, input_multiplier, input_shift, reverse_multiplier, reverse_shift,
                 diff_min):
    x = np.moveaxis(_i64(input), dim, -1)
    out = arith.log_softmax_s8(x, input_multiplier, input_shift, reverse_multiplier,
                               reverse_shift, diff_min)
    return _i8(np.moveaxis(out, -1, dim))


def _pad(input, pre_pad, post_pad, pad_value):
    off = 4 - input.dim()
    widths = [(pre_pad[off + i], post_pad[off + i]) for i in range(input.dim())]
    return _i8(np.pad(_i64(input), widths, constant_values=pad_value))


def _trunc_div(a: np.ndarray, b: int) -> np.ndarray:
    """a / b rounded toward zero, as C's integer division."""
    return np.sign(a) * (np.abs(a) // b)


def _resize_axis(out: int, size: int, align_corners: bool, half_pixel: bool) -> tuple:
    """Per output position along one axis: the two source positions and the position in
    1/1024ths, as TFLite's integer RESIZE_BILINEAR computes them."""
    scale = ((1 << 10) * size + out // 2) // out
    if align_corners and out > 1:
        scale = ((1 << 10) * (size - 1) + (out - 1) // 2) // (out - 1)
    pos = np.arange(out, dtype=np.int64) * scale + (scale // 2 - (1 << 9) if half_pixel else 0)
    lo = np.clip(_trunc_div(pos, 1 << 10), 0, size - 1)      # (TFLM's may pass the map)
    hi = np.minimum(_trunc_div(pos + (1 << 10) - 1, 1 << 10), size - 1)
    return lo, hi, pos - (lo << 10)


def _resize_bilinear(input, output_size, align_corners, half_pixel_centers):
    """Bilinear resize of an NHWC int8 map in 1/1024ths, the four products summed exactly and
    rounded half away from zero, as TFLite Micro's RESIZE_BILINEAR (input and output share
    qparams, so the codes themselves are interpolated)."""
    x = _i64(input)
    y0, y1, fy = _resize_axis(output_size[0], x.shape[1], align_corners, half_pixel_centers)
    x0, x1, fx = _resize_axis(output_size[1], x.shape[2], align_corners, half_pixel_centers)
    wy, wx = ((1 << 10) - fy)[:, None, None], ((1 << 10) - fx)[None, :, None]
    fy, fx = fy[:, None, None], fx[None, :, None]
    acc = x[:, y0][:, :, x0] * wy * wx + x[:, y1][:, :, x0] * fy * wx + \
        x[:, y0][:, :, x1] * wy * fx + x[:, y1][:, :, x1] * fy * fx
    return _i8(_trunc_div(acc + np.where(acc > 0, 1 << 19, -(1 << 19)), 1 << 20))


def _pool_windows(input, kernel_size, stride, padding, dilation, ceil_mode):
    """Yield (oh, ow, taps) over an NHWC input, taps as [N, k, C] of the valid positions."""
    x = _i64(input)
    _, h, w, _ = x.shape
    oh, ow = _pool_out(h, w, kernel_size, stride, padding, dilation, ceil_mode)
    for i in range(oh):
        rows = [i * stride[0] - padding[0] + k * dilation[0] for k in range(kernel_size[0])]
        rows = [r for r in rows if 0 <= r < h]
        for j in range(ow):
            cols = [j * stride[1] - padding[1] + k * dilation[1] for k in range(kernel_size[1])]
            cols = [c for c in cols if 0 <= c < w]
            yield i, j, x[:, rows][:, :, cols].reshape(x.shape[0], -1, x.shape[3])


def _pool_out(h, w, kernel, stride, padding, dilation, ceil_mode):
    def one(size, k, s, p, d):
        span = size + 2 * p - d * (k - 1) - 1
        out = (span + (s - 1 if ceil_mode else 0)) // s + 1
        if ceil_mode and (out - 1) * s >= size + p:
            out -= 1
        return out
    return (one(h, kernel[0], stride[0], padding[0], dilation[0]),
            one(w, kernel[1], stride[1], padding[1], dilation[1]))


def _pooled(input, kernel_size, stride, padding, dilation, ceil_mode, reduce):
    n, h, w, c = input.shape
    oh, ow = _pool_out(h, w, kernel_size, stride, padding, dilation, ceil_mode)
    out = np.zeros((n, oh, ow, c), np.int64)
    for i, j, taps in _pool_windows(input, kernel_size, stride, padding, dilation, ceil_mode):
        out[:, i, j] = reduce(taps)
    return out


def _round_div(total: np.ndarray, count: int) -> np.ndarray:
    """total / count rounded half away from zero, with C's truncating division."""
    half = count // 2
    return np.where(total > 0, (total + half) // count, -((-total + half) // count))


def _avg_pool(input, kernel_size, stride, padding, ceil_mode, zero_point, multiplier, shift):
    out = _pooled(input, kernel_size, stride, padding, (1, 1), ceil_mode,
                  lambda t: _round_div(t.sum(1), t.shape[1]))
    return _i8(np.clip(out, -128, 127))


def _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, input_zero_point,
              output_zero_point, activation_min, activation_max):
    out = _pooled(input, kernel_size, stride, padding, dilation, ceil_mode, lambda t: t.max(1))
    return _i8(np.clip(out, activation_min, activation_max))


def _maximum(self, other):
    return torch.maximum(self, other)


def _minimum(self, other):
    return torch.minimum(self, other)


def _transpose(input, perm):
    return input.permute(tuple(perm)).contiguous()


IMPLS = {
    "quantize_per_tensor": _quantize, "dequantize_per_tensor": _dequantize,
    "quantized_conv2d_nhwc": _conv, "quantized_depthwise_conv2d_nhwc": _depthwise,
    "quantized_transpose_conv2d_nhwc": _transpose_conv,
    "quantized_linear": _linear, "quantized_batch_matmul": _batch_matmul, "quantized_add": _add,
    "quantized_layer_norm": _layer_norm,
    "quantized_mul": _mul, "quantized_mul_s16": _mul_s16, "add_s16": _add_s16,
    "step_s16": _step_s16,
    "quantized_activation": _lut, "maximum": _maximum, "minimum": _minimum,
    "softmax": _softmax, "log_softmax": _log_softmax, "transpose": _transpose, "pad": _pad,
    "quantized_reduce_sum": _reduce_sum, "reduce_min": _reduce_min,
    "resize_bilinear_nhwc": _resize_bilinear,
    "quantized_avg_pool2d_nhwc": _avg_pool, "quantized_max_pool2d_nhwc": _max_pool,
}


# -- fake implementations (shapes only) ---------------------------------------------------------

def _conv_shape(x, kernel, stride, padding, dilation, cout):
    n, h, w, _ = x.shape
    oh = (h + 2 * padding[0] - dilation[0] * (kernel[0] - 1) - 1) // stride[0] + 1
    ow = (w + 2 * padding[1] - dilation[1] * (kernel[1] - 1) - 1) // stride[1] + 1
    return (n, oh, ow, cout)


def _fake(name):
    def empty(shape, like, dtype=torch.int8):
        return like.new_empty(shape, dtype=dtype)

    def conv(input, weight, bias, stride, padding, dilation, *rest):
        cout = weight.shape[3] if name == "quantized_depthwise_conv2d_nhwc" else weight.shape[0]
        return empty(_conv_shape(input, weight.shape[1:3], stride, padding, dilation, cout),
                     input)

    def transpose_conv(input, weight, bias, stride, padding, output_padding, dilation, *rest):
        n, h, w, _ = input.shape
        oh, ow = ((size - 1) * stride[i] - 2 * padding[i] + dilation[i] *
                  (weight.shape[1 + i] - 1) + output_padding[i] + 1
                  for i, size in enumerate((h, w)))
        return empty((n, oh, ow, weight.shape[0]), input)

    def pool(input, kernel_size, stride, padding, *rest):
        dilation = rest[0] if name == "quantized_max_pool2d_nhwc" else (1, 1)
        ceil_mode = rest[1] if name == "quantized_max_pool2d_nhwc" else rest[0]
        oh, ow = _pool_out(input.shape[1], input.shape[2], kernel_size, stride, padding,
                           dilation, ceil_mode)
        return empty((input.shape[0], oh, ow, input.shape[3]), input)

    def pad(input, pre_pad, post_pad, pad_value):
        off = 4 - input.dim()
        return empty([s + pre_pad[off + i] + post_pad[off + i]
                      for i, s in enumerate(input.shape)], input)

    table = {
        "quantize_per_tensor": lambda input, *a: empty(input.shape, input, a[-1]),
        "dequantize_per_tensor": lambda input, *a: empty(input.shape, input, torch.float32),
        "quantized_conv2d_nhwc": conv, "quantized_depthwise_conv2d_nhwc": conv,
        "quantized_transpose_conv2d_nhwc": transpose_conv,
        "quantized_linear": lambda input, weights, *a: empty(
            (*input.shape[:-1], weights.shape[0]), input),
        "quantized_layer_norm": lambda input, *a: empty(input.shape, input),
        "quantized_batch_matmul": lambda lhs, a, rhs, *r: empty(
            (lhs.shape[0], lhs.shape[1], rhs.shape[1]), lhs),
        "quantized_add": lambda self, a, b, c, other, *r: empty(
            torch.broadcast_shapes(self.shape, other.shape), self),
        "quantized_mul": lambda self, a, other, *r: empty(
            torch.broadcast_shapes(self.shape, other.shape), self),
        "quantized_activation": lambda input, lut: empty(input.shape, input),
        "quantized_mul_s16": lambda self, a, other, *r: empty(self.shape, self, torch.int16),
        "add_s16": lambda self, other: empty(self.shape, self, torch.int16),
        "step_s16": lambda input, *a: empty(input.shape, input, torch.int8),
        "maximum": lambda self, other: empty(torch.broadcast_shapes(self.shape, other.shape),
                                             self),
        "minimum": lambda self, other: empty(torch.broadcast_shapes(self.shape, other.shape),
                                             self),
        "softmax": lambda input, *a: empty(input.shape, input),
        "log_softmax": lambda input, *a: empty(input.shape, input),
        "transpose": lambda input, perm: empty([input.shape[p] for p in perm], input),
        "quantized_reduce_sum": lambda input, *a: empty(
            (input.shape[0], 1, input.shape[2]), input),
        "reduce_min": lambda input: empty((input.shape[0], 1, input.shape[2]), input),
        "resize_bilinear_nhwc": lambda input, size, *a: empty(
            (input.shape[0], *size, input.shape[3]), input),
        "pad": pad,
        "quantized_avg_pool2d_nhwc": pool, "quantized_max_pool2d_nhwc": pool,
    }
    return table[name]


for _name in SCHEMAS:
    LIB.impl(_name, IMPLS[_name], "CompositeExplicitAutograd")
    torch.library.register_fake(f"mcu_aot::{_name}", _fake(_name), lib=LIB)
