"""The int8 kernels, one by one, against TensorFlow Lite Micro's reference kernels (the
`tflite-micro` wheel): exact equality, with hypothesis drawing shapes, strides, padding,
dilation, groups, zero points and scales. Plus the requantization's rounding ties, weights of
-128, the float boundary against PT2E's own quantize/dequantize, and bad shapes."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, assume, given, settings, strategies as st

import kernel_harness
from kernel_harness import KernelError

from aot.quantization import arith

SETTINGS = settings(max_examples=50, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def rt():
    return kernel_harness.load()


@pytest.fixture(scope="module")
def lite():
    from conftest import require_module
    require_module("tflite_micro")
    from tflite_micro.python.tflite_micro import runtime
    from tflite_micro.tensorflow.lite.micro.compression import model_editor as me
    from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as fb
    return runtime, me, fb


def f32(x) -> float:
    return float(np.float32(x))


def run_tflm(lite, opcode, inputs, out_shape, out_q, options=None):
    """One TFLite op: inputs are (array, (scales, zps, axis) or None, is_constant)."""
    runtime, me, fb = lite
    sg = me.Subgraph()
    tensors, feeds = [], []
    types = {np.dtype(np.int8): fb.TensorType.INT8, np.dtype(np.int32): fb.TensorType.INT32}
    for k, (arr, q, const) in enumerate(inputs):
        if arr is None:
            tensors.append(None)
            continue
        kw = dict(shape=arr.shape, dtype=types[arr.dtype], name=f"in{k}")
        if q is not None:
            kw["quantization"] = me.Quantization(scales=q[0], zero_points=q[1], axis=q[2])
        if const:
            kw["data"] = np.ascontiguousarray(arr)
        t = sg.add_tensor(**kw)
        tensors.append(t)
        if not const:
            feeds.append((t, arr))
    out = sg.add_tensor(shape=out_shape, dtype=fb.TensorType.INT8, name="out",
                        quantization=me.Quantization(scales=out_q[0], zero_points=out_q[1]))
    op = sg.add_operator(opcode=opcode, inputs=tensors, outputs=[out])
    if options is not None:
        op._fb.builtinOptionsType, op._fb.builtinOptions = options
    sg.inputs = [t for t, _ in feeds]
    sg.outputs = [out]
    interp = runtime.Interpreter.from_bytes(bytes(me.Model(subgraphs=[sg]).build()),
                                            arena_size=1 << 20)
    for i, (_, arr) in enumerate(feeds):
        interp.set_input(arr, i)
    interp.invoke()
    return np.array(interp.get_output(0)).reshape(out_shape)


def i8(rng, shape, lo=-128, hi=127):
    return rng.integers(lo, hi + 1, size=shape).astype(np.int8)


def scratch(rt):
    return rt.ffi.NULL


# -- requantization -------------------------------------------------------------------------------

def test_requantize_matches_the_python_model_including_ties(rt):
    rng = np.random.default_rng(0)
    xs = list(rng.integers(-(2 ** 24), 2 ** 24, 2000)) + [1, -1, 3, -3, 0, 2 ** 20, -(2 ** 20)]
    for mult, shift in [(1 << 30, -1), (1 << 30, -2), (1 << 30, -3), (1 << 30, 0),
                        (1518500250, -7), (2 ** 31 - 1, -31), (1 << 30, 2)]:
        want = arith.requantize(np.array(xs), mult, shift)
        got = [rt.lib.rt_requantize(int(x), mult, shift) for x in xs]
        np.testing.assert_array_equal(got, want)
    # Double rounding. The high multiply rounds its ties up (M = 0.5: 1.5 -> 2, -1.5 -> -1);
    # the shift after it rounds ties away from zero (M = 0.25: 6 -> 3 -> 1.5 -> 2, -6 -> -2).
    assert [rt.lib.rt_requantize(v, 1 << 30, 0) for v in (3, -3)] == [2, -1]
    assert [rt.lib.rt_requantize(v, 1 << 30, -1) for v in (6, -6, 2, -2)] == [2, -2, 1, -1]


# -- convolution ----------------------------------------------------------------------------------

@SETTINGS
@given(st.data())
def test_pointwise_entry_point_equals_the_general_conv(rt, data):
    """rt_conv2d_1x1_s8 (the generator's choice for a pointwise layer) gives exactly what
    rt_conv2d_s8 gives, and refuses a layer that is not pointwise."""
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 31)))
    n, h, w_, cin, cout = (data.draw(st.integers(1, k)) for k in (2, 6, 6, 20, 9))
    x, wt = i8(rng, (n, h, w_, cin)), i8(rng, (cout, 1, 1, cin))
    bias = rng.integers(-5000, 5000, cout).astype(np.int32)
    m_arr = rt.int32s(rng.integers(1 << 30, 1 << 31, cout))   # kept alive for the calls
    s_arr = rt.int32s(rng.integers(-10, 2, cout))
    p = rt.params("rt_conv_s8_params", stride_h=1, stride_w=1, pad_h=0, pad_w=0, dilation_h=1,
                  dilation_w=1, input_offset=int(rng.integers(-127, 129)),
                  output_offset=int(rng.integers(-128, 128)), act_min=-128, act_max=127,
                  mult=m_arr, shift=s_arr)
    want, got = (np.zeros((n, h, w_, cout), np.int8) for _ in range(2))
    rt.call("rt_conv2d_s8", scratch(rt), p, x, wt, bias, want)
    rt.call("rt_conv2d_1x1_s8", scratch(rt), p, x, wt, bias, got)
    np.testing.assert_array_equal(got, want)
    p.stride_w = 2
    with pytest.raises(KernelError, match="RT_ERR_PARAM"):
        rt.call("rt_conv2d_1x1_s8", scratch(rt), p, x, wt, bias,
                np.zeros((n, h, (w_ + 1) // 2, cout), np.int8))


@SETTINGS
@given(st.data())
def test_depthwise_3x3_entry_point_equals_the_general_one(rt, data):
    """rt_depthwise_conv2d_3x3_s8 (the generator's choice for a 3x3 depthwise layer of a
    multiplier of 1 on rows of 6 or more) gives exactly what rt_depthwise_conv2d_s8 gives, and
    refuses other filters and a channel multiplier."""
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 31)))
    n, h, w_, c = (data.draw(st.integers(1, k)) for k in (2, 9, 12, 12))
    sh, sw, ph, pw = (data.draw(st.integers(lo, 2)) for lo in (1, 1, 0, 0))
    oh, ow = (h + 2 * ph - 3) // sh + 1, (w_ + 2 * pw - 3) // sw + 1
    assume(oh > 0 and ow > 0)
    x, wt = i8(rng, (n, h, w_, c)), i8(rng, (1, 3, 3, c))
    bias = rng.integers(-5000, 5000, c).astype(np.int32)
    m_arr = rt.int32s(rng.integers(1 << 30, 1 << 31, c))   # kept alive for the calls
    s_arr = rt.int32s(rng.integers(-10, 2, c))
    p = rt.params("rt_conv_s8_params", stride_h=sh, stride_w=sw, pad_h=ph, pad_w=pw,
                  dilation_h=1, dilation_w=1, input_offset=int(rng.integers(-127, 129)),
                  output_offset=int(rng.integers(-128, 128)), act_min=-128, act_max=127,
                  mult=m_arr, shift=s_arr)
    want, got = (np.zeros((n, oh, ow, c), np.int8) for _ in range(2))
    rt.call("rt_depthwise_conv2d_s8", p, x, wt, bias, want)
    rt.call("rt_depthwise_conv2d_3x3_s8", p, x, wt, bias, got)
    np.testing.assert_array_equal(got, want)
    m2, s2 = rt.int32s(np.tile(rng.integers(1 << 30, 1 << 31, c), 2)), \
        rt.int32s(np.zeros(2 * c, np.int64))
    p2 = rt.params("rt_conv_s8_params", stride_h=sh, stride_w=sw, pad_h=ph, pad_w=pw,
                   dilation_h=1, dilation_w=1, input_offset=0, output_offset=0, act_min=-128,
                   act_max=127, mult=m2, shift=s2)
    with pytest.raises(KernelError, match="RT_ERR_PARAM"):   # a multiplier of 2
        rt.call("rt_depthwise_conv2d_3x3_s8", p2, x, i8(rng, (1, 3, 3, 2 * c)),
                np.concatenate([bias, bias]), np.zeros((n, oh, ow, 2 * c), np.int8))
    p.dilation_h = 2
    assume(h + 2 * ph >= 5)
    with pytest.raises(KernelError, match="RT_ERR_PARAM"):
        rt.call("rt_depthwise_conv2d_3x3_s8", p, x, wt, bias,
                np.zeros((n, (h + 2 * ph - 5) // sh + 1, ow, c), np.int8))


def test_conv_scratch_size_is_the_planners(rt):
    """The planner gives rt_conv2d_s8 exactly the scratch the C says it takes (two gathered
    patches when the filter rows are not whole words), the same on every arch."""
    from aot.ops import by_et_name
    q8_conv2d_scratch = by_et_name("cortex_m::quantized_conv2d_nhwc", "out").scratch
    for cout, kh, kw, cin_g in [(8, 3, 3, 3), (64, 10, 4, 1), (4, 1, 1, 3), (4, 3, 3, 16),
                                (2, 1, 3, 2), (5, 2, 2, 5), (3, 1, 1, 1), (6, 3, 1, 4)]:
        want = rt.lib.rt_conv2d_s8_scratch_size(rt.shape([cout, kh, kw, cin_g]))
        assert q8_conv2d_scratch({"weight": (cout, kh, kw, cin_g)}, []) == want
        assert want == (2 * kh * kw * cin_g if cin_g % 4 and kh * kw > 1 else 0)


@st.composite
def conv_cases(draw, depthwise=False):
    groups = 1
    if depthwise:
        cin = draw(st.integers(1, 4))
        mult = draw(st.integers(1, 3))
        cout = cin * mult
    else:
        groups = draw(st.sampled_from([1, 1, 2]))
        cin = groups * draw(st.integers(1, 4))
        cout = groups * draw(st.integers(1, 4))
        mult = 1
    kh, kw = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    sh, sw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    dh, dw = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    h = draw(st.integers((kh - 1) * dh + 1, 10))
    w = draw(st.integers((kw - 1) * dw + 1, 10))
    return dict(cin=cin, cout=cout, groups=groups, mult=mult, k=(kh, kw), s=(sh, sw),
                d=(dh, dw), hw=(h, w), n=draw(st.integers(1, 2)),
                z_in=draw(st.integers(-128, 127)), z_out=draw(st.integers(-128, 127)),
                s_in=draw(st.floats(0.005, 0.2)), s_out=draw(st.floats(0.01, 0.5)),
                seed=draw(st.integers(0, 10 ** 6)), bias=draw(st.booleans()),
                relu=draw(st.booleans()))


def _conv_both(rt, lite, c, depthwise):
    runtime, me, fb = lite
    rng = np.random.default_rng(c["seed"])
    (kh, kw), (sh, sw), (dh, dw), (h, w) = c["k"], c["s"], c["d"], c["hw"]
    cin, cout = c["cin"], c["cout"]
    x = i8(rng, (c["n"], h, w, cin))
    wshape = (1, kh, kw, cout) if depthwise else (cout, kh, kw, cin // c["groups"])
    wt = i8(rng, wshape)
    wt.reshape(-1)[0] = -128                                  # weights of -128 occur
    s_w = [f32(v) for v in rng.uniform(0.002, 0.05, cout)]
    s_in, s_out = f32(c["s_in"]), f32(c["s_out"])
    bias = rng.integers(-5000, 5000, cout).astype(np.int32) if c["bias"] else None
    oh = (h - (kh - 1) * dh - 1) // sh + 1
    ow = (w - (kw - 1) * dw - 1) // sw + 1
    mults, shifts = arith.quantize_multipliers([s_in * sw_ / s_out for sw_ in s_w])
    lo, hi = arith.activation_bounds(0.0, math.inf, s_out, c["z_out"]) if c["relu"] \
        else (-128, 127)
    m_arr, s_arr = rt.int32s(mults), rt.int32s(shifts)
    p = rt.params("rt_conv_s8_params", stride_h=sh, stride_w=sw, pad_h=0, pad_w=0,
                  dilation_h=dh, dilation_w=dw, input_offset=-c["z_in"],
                  output_offset=c["z_out"], act_min=lo, act_max=hi, mult=m_arr, shift=s_arr)
    out = rt.empty((c["n"], oh, ow, cout), np.int8)
    if depthwise:
        rt.call("rt_depthwise_conv2d_s8", p, x, wt, bias, out)
        o = fb.DepthwiseConv2DOptionsT()
        o.depthMultiplier = c["mult"]
        code, otype = fb.BuiltinOperator.DEPTHWISE_CONV_2D, fb.BuiltinOptions.DepthwiseConv2DOptions
        axis = 3
    else:
        rt.call("rt_conv2d_s8", scratch(rt), p, x, wt, bias, out)
        o = fb.Conv2DOptionsT()
        code, otype = fb.BuiltinOperator.CONV_2D, fb.BuiltinOptions.Conv2DOptions
        axis = 0
    o.padding, o.strideH, o.strideW = fb.Padding.VALID, sh, sw
    o.dilationHFactor, o.dilationWFactor = dh, dw
    o.fusedActivationFunction = fb.ActivationFunctionType.RELU if c["relu"] else \
        fb.ActivationFunctionType.NONE
    # TFLM's depthwise kernel needs a bias tensor: no bias is a bias of zeros there.
    tb = bias if bias is not None else np.zeros(cout, np.int32)
    want = run_tflm(lite, code, [
        (x, ([s_in], [c["z_in"]], None), False),
        (wt, (s_w, [0] * cout, axis), True),
        (tb, ([f32(s_in * v) for v in s_w], [0] * cout, 0), True)],
        out.shape, ([s_out], [c["z_out"]]), (otype, o))
    return out, want


@SETTINGS
@given(conv_cases())
def test_conv2d_equals_tflm(rt, lite, c):
    got, want = _conv_both(rt, lite, c, depthwise=False)
    np.testing.assert_array_equal(got, want)


@SETTINGS
@given(conv_cases(depthwise=True))
def test_depthwise_conv2d_equals_tflm(rt, lite, c):
    got, want = _conv_both(rt, lite, c, depthwise=True)
    np.testing.assert_array_equal(got, want)


def test_conv_padding_contributes_real_zero(rt):
    """Padded taps hold the input zero point: same as padding the input with z_in."""
    rng = np.random.default_rng(3)
    x, w = i8(rng, (1, 5, 6, 3)), i8(rng, (4, 3, 3, 3))
    m, s = rt.int32s([1 << 30] * 4), rt.int32s([-9] * 4)
    p = rt.params("rt_conv_s8_params", stride_h=1, stride_w=2, pad_h=1, pad_w=1,
                  dilation_h=1, dilation_w=1, input_offset=7, output_offset=3, act_min=-128,
                  act_max=127, mult=m, shift=s)
    padded = np.pad(x, [(0, 0), (1, 1), (1, 1), (0, 0)], constant_values=-7)
    p0 = rt.params("rt_conv_s8_params", stride_h=1, stride_w=2, pad_h=0, pad_w=0,
                   dilation_h=1, dilation_w=1, input_offset=7, output_offset=3, act_min=-128,
                   act_max=127, mult=m, shift=s)
    a, b = rt.empty((1, 5, 3, 4), np.int8), rt.empty((1, 5, 3, 4), np.int8)
    rt.call("rt_conv2d_s8", rt.ffi.NULL, p, x, w, None, a)
    rt.call("rt_conv2d_s8", rt.ffi.NULL, p0, padded, w, None, b)
    np.testing.assert_array_equal(a, b)


# -- fully connected ---------------------------------------------------------------------------

@SETTINGS
@given(rows=st.integers(1, 4), k=st.integers(1, 40), cout=st.integers(1, 12),
       per_channel=st.booleans(), z_in=st.integers(-128, 127), z_out=st.integers(-128, 127),
       seed=st.integers(0, 10 ** 6), relu=st.booleans())
def test_fully_connected_equals_tflm(rt, lite, rows, k, cout, per_channel, z_in, z_out, seed,
                                     relu):
    _, _, fb = lite
    rng = np.random.default_rng(seed)
    x, w = i8(rng, (rows, k)), i8(rng, (cout, k))
    bias = rng.integers(-3000, 3000, cout).astype(np.int32)
    s_in, s_out = f32(rng.uniform(0.01, 0.1)), f32(rng.uniform(0.02, 0.3))
    s_w = [f32(v) for v in rng.uniform(0.002, 0.02, cout if per_channel else 1)]
    mults, shifts = arith.quantize_multipliers([s_in * v / s_out for v in s_w])
    lo, hi = arith.activation_bounds(0.0, math.inf, s_out, z_out) if relu else (-128, 127)
    m_arr, s_arr = rt.int32s(mults), rt.int32s(shifts)
    p = rt.params("rt_fc_s8_params", input_offset=-z_in, filter_offset=0, output_offset=z_out,
                  act_min=lo, act_max=hi, per_channel=int(per_channel), mult=m_arr,
                  shift=s_arr)
    got = rt.empty((rows, cout), np.int8)
    rt.call("rt_fully_connected_s8", p, x, w, bias, got)
    o = fb.FullyConnectedOptionsT()
    o.fusedActivationFunction = fb.ActivationFunctionType.RELU if relu else \
        fb.ActivationFunctionType.NONE
    axis = 0 if per_channel else None
    want = run_tflm(lite, fb.BuiltinOperator.FULLY_CONNECTED, [
        (x, ([s_in], [z_in], None), False), (w, (s_w, [0] * len(s_w), axis), True),
        (bias, ([f32(s_in * v) for v in s_w], [0] * len(s_w), axis), True)],
        got.shape, ([s_out], [z_out]), (fb.BuiltinOptions.FullyConnectedOptions, o))
    np.testing.assert_array_equal(got, want)


# -- elementwise ---------------------------------------------------------------------------------

BROADCASTS = [((2, 3, 4), (2, 3, 4)), ((2, 3, 4), (4,)), ((1, 3, 1), (2, 1, 5)),
              ((4, 1), (1, 6))]


@SETTINGS
@given(shapes=st.sampled_from(BROADCASTS), op=st.sampled_from(["add", "sub", "mul"]),
       za=st.integers(-128, 127), zb=st.integers(-128, 127), zo=st.integers(-128, 127),
       sa=st.floats(0.005, 0.5), sb=st.floats(0.005, 0.5), so=st.floats(0.01, 1.0),
       seed=st.integers(0, 10 ** 6))
def test_add_sub_mul_equal_tflm(rt, lite, shapes, op, za, zb, zo, sa, sb, so, seed):
    _, _, fb = lite
    rng = np.random.default_rng(seed)
    a, b = i8(rng, shapes[0]), i8(rng, shapes[1])
    sa, sb, so = f32(sa), f32(sb), f32(so)
    out_shape = np.broadcast_shapes(a.shape, b.shape)
    got = rt.empty(out_shape, np.int8)
    if op == "mul":
        m, s = arith.quantize_multiplier(sa * sb / so)
        p = rt.params("rt_mul_s8_params", in1_offset=-za, in2_offset=-zb, out_offset=zo,
                      out_mult=m, out_shift=s, act_min=-128, act_max=127)
        rt.call("rt_mul_s8", p, a, b, got)
        o, code, otype = fb.MulOptionsT(), fb.BuiltinOperator.MUL, fb.BuiltinOptions.MulOptions
    else:
        twice = 2 * max(sa, sb)
        m1, s1 = arith.quantize_multiplier(sa / twice)
        m2, s2 = arith.quantize_multiplier(sb / twice)
        mo, so_ = arith.quantize_multiplier(twice / ((1 << 20) * so))
        p = rt.params("rt_add_s8_params", in1_offset=-za, in1_mult=m1, in1_shift=s1,
                      in2_offset=-zb, in2_mult=-m2 if op == "sub" else m2, in2_shift=s2,
                      left_shift=20, out_offset=zo, out_mult=mo, out_shift=so_, act_min=-128,
                      act_max=127)
        rt.call("rt_add_s8", p, a, b, got)
        if op == "sub":
            o, code, otype = fb.SubOptionsT(), fb.BuiltinOperator.SUB, fb.BuiltinOptions.SubOptions
        else:
            o, code, otype = fb.AddOptionsT(), fb.BuiltinOperator.ADD, fb.BuiltinOptions.AddOptions
    o.fusedActivationFunction = fb.ActivationFunctionType.NONE
    want = run_tflm(lite, code, [(a, ([sa], [za], None), False), (b, ([sb], [zb], None), False)],
                    out_shape, ([so], [zo]), (otype, o))
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("op", ["maximum", "minimum"])
def test_maximum_minimum_equal_tflm(rt, lite, op):
    _, _, fb = lite
    rng = np.random.default_rng(1)
    a, b = i8(rng, (2, 3, 4)), i8(rng, (3, 1))
    got = rt.empty((2, 3, 4), np.int8)
    rt.call(f"rt_{op}_s8", a, b, got)
    code = fb.BuiltinOperator.MAXIMUM if op == "maximum" else fb.BuiltinOperator.MINIMUM
    want = run_tflm(lite, code, [(a, ([0.1], [3], None), False), (b, ([0.1], [3], None), False)],
                    got.shape, ([0.1], [3]))
    np.testing.assert_array_equal(got, want)


# -- pooling and softmax ---------------------------------------------------------------------------

@SETTINGS
@given(kind=st.sampled_from(["avg", "max"]), k=st.tuples(st.integers(1, 4), st.integers(1, 4)),
       s=st.tuples(st.integers(1, 3), st.integers(1, 3)), hw=st.tuples(st.integers(4, 9),
                                                                        st.integers(4, 9)),
       c=st.integers(1, 20), same=st.booleans(), seed=st.integers(0, 10 ** 6))
def test_pooling_equals_tflm(rt, lite, kind, k, s, hw, c, same, seed):
    """TFLite's SAME padding is our (top, left) padding with the output size it gives."""
    _, _, fb = lite
    rng = np.random.default_rng(seed)
    x = i8(rng, (1, *hw, c))
    if same:
        out_hw = [-(-hw[i] // s[i]) for i in range(2)]
        pads = [max((out_hw[i] - 1) * s[i] + k[i] - hw[i], 0) // 2 for i in range(2)]
    else:
        out_hw = [(hw[i] - k[i]) // s[i] + 1 for i in range(2)]
        pads = [0, 0]
    p = rt.params("rt_pool_s8_params", kernel_h=k[0], kernel_w=k[1], stride_h=s[0],
                  stride_w=s[1], pad_h=pads[0], pad_w=pads[1], dilation_h=1, dilation_w=1,
                  act_min=-128, act_max=127)
    got = rt.empty((1, *out_hw, c), np.int8)
    rt.call(f"rt_{kind}_pool2d_s8", p, x, got)
    o = fb.Pool2DOptionsT()
    o.padding = fb.Padding.SAME if same else fb.Padding.VALID
    o.strideH, o.strideW, o.filterHeight, o.filterWidth = s[0], s[1], k[0], k[1]
    o.fusedActivationFunction = fb.ActivationFunctionType.NONE
    code = fb.BuiltinOperator.AVERAGE_POOL_2D if kind == "avg" else fb.BuiltinOperator.MAX_POOL_2D
    want = run_tflm(lite, code, [(x, ([0.05], [-3], None), False)], got.shape, ([0.05], [-3]),
                    (fb.BuiltinOptions.Pool2DOptions, o))
    np.testing.assert_array_equal(got, want)


@SETTINGS
@given(a=st.integers(1, 3), r=st.integers(1, 300), b=st.integers(1, 9),
       kind=st.sampled_from(["sum", "min"]), s_in=st.floats(0.001, 1.0),
       s_out=st.floats(0.001, 8.0), z_in=st.integers(-128, 127), z_out=st.integers(-128, 127),
       seed=st.integers(0, 10 ** 6))
def test_reductions_equal_tflm_and_their_twins(rt, lite, a, r, b, kind, s_in, s_out, z_in,
                                               z_out, seed):
    """rt_reduce_sum_s8 / rt_reduce_min_s8 over the middle dim of (A, R, B) equal TFLite
    Micro's SUM / REDUCE_MIN over that axis (keep_dims), and the ops' Python twins."""
    from aot.quantization.ops import OPS as Q8
    _, _, fb = lite
    x = i8(np.random.default_rng(seed), (a, r, b))
    got = rt.empty((a, 1, b), np.int8)
    s_in, s_out = f32(s_in), f32(s_out)
    if kind == "min":
        s_out, z_out = s_in, z_in
        rt.call("rt_reduce_min_s8", x, got)
        twin = Q8.reduce_min.default(torch.from_numpy(x))
    else:
        m, s = arith.quantize_multiplier(float(np.float64(s_in) / np.float64(s_out)))
        assume((r * 255) << max(s, 0) < 1 << 31)
        rt.call("rt_reduce_sum_s8", rt.params("rt_reduce_s8_params", in_offset=-z_in,
                                              out_offset=z_out, mult=m, shift=s), x, got)
        twin = Q8.quantized_reduce_sum.default(torch.from_numpy(x), z_in, z_out, m, s)
    o = fb.ReducerOptionsT()
    o.keepDims = True
    code = fb.BuiltinOperator.SUM if kind == "sum" else fb.BuiltinOperator.REDUCE_MIN
    want = run_tflm(lite, code, [(x, ([s_in], [z_in], None), False),
                                 (np.array([1], np.int32), None, True)],
                    got.shape, ([s_out], [z_out]), (fb.BuiltinOptions.ReducerOptions, o))
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(twin.numpy(), got)


@SETTINGS
@given(n=st.integers(1, 2), hw=st.tuples(st.integers(1, 20), st.integers(1, 20)),
       c=st.integers(1, 24), seed=st.integers(0, 10 ** 6))
def test_global_avg_pool_equals_tflm(rt, lite, n, hw, c, seed):
    """The whole-map average (KWS's last pool) equals TFLite's AVERAGE_POOL_2D with the map's
    size as its filter, up to 400 taps."""
    _, _, fb = lite
    rng = np.random.default_rng(seed)
    x = i8(rng, (n, *hw, c))
    p = rt.params("rt_pool_s8_params", kernel_h=hw[0], kernel_w=hw[1], stride_h=1, stride_w=1,
                  pad_h=0, pad_w=0, dilation_h=1, dilation_w=1, act_min=-128, act_max=127)
    got = rt.empty((n, 1, 1, c), np.int8)
    rt.call("rt_global_avg_pool2d_s8", p, x, got)
    o = fb.Pool2DOptionsT()
    o.padding = fb.Padding.VALID
    o.strideH, o.strideW, o.filterHeight, o.filterWidth = 1, 1, hw[0], hw[1]
    o.fusedActivationFunction = fb.ActivationFunctionType.NONE
    want = run_tflm(lite, fb.BuiltinOperator.AVERAGE_POOL_2D, [(x, ([0.05], [-3], None), False)],
                    got.shape, ([0.05], [-3]), (fb.BuiltinOptions.Pool2DOptions, o))
    np.testing.assert_array_equal(got, want)


def test_global_avg_pool_refuses_another_window(rt):
    x = np.zeros((1, 4, 4, 3), np.int8)
    out = rt.empty((1, 1, 1, 3), np.int8)
    for window in (dict(kernel_h=3, kernel_w=4, pad_h=0), dict(kernel_h=4, kernel_w=4, pad_h=1)):
        p = rt.params("rt_pool_s8_params", **{"kernel_w": 4, "pad_h": 0, **window},
                      stride_h=1, stride_w=1, pad_w=0, dilation_h=1, dilation_w=1,
                      act_min=-128, act_max=127)
        with pytest.raises(KernelError, match="RT_ERR_PARAM"):
            rt.call("rt_global_avg_pool2d_s8", p, x, out)


def test_avg_pool_rounds_half_away_from_zero(rt):
    x = np.array([0, 1, -1, -2], np.int8).reshape(1, 2, 2, 1)   # mean -0.5 -> -1
    p = rt.params("rt_pool_s8_params", kernel_h=2, kernel_w=2, stride_h=2, stride_w=2, pad_h=0,
                  pad_w=0, dilation_h=1, dilation_w=1, act_min=-128, act_max=127)
    out = rt.empty((1, 1, 1, 1), np.int8)
    rt.call("rt_avg_pool2d_s8", p, x, out)
    assert out.item() == -1
    x = np.array([0, 1], np.int8).reshape(1, 1, 2, 1)            # mean 0.5 -> 1
    p = rt.params("rt_pool_s8_params", kernel_h=1, kernel_w=2, stride_h=1, stride_w=2, pad_h=0,
                  pad_w=0, dilation_h=1, dilation_w=1, act_min=-128, act_max=127)
    out = rt.empty((1, 1, 1, 1), np.int8)
    rt.call("rt_avg_pool2d_s8", p, x, out)
    assert out.item() == 1


@SETTINGS
@given(rows=st.integers(1, 12), n=st.integers(1, 80), s_in=st.floats(0.001, 1.0),
       z_in=st.integers(-128, 127), seed=st.integers(0, 10 ** 6))
def test_softmax_equals_tflm(rt, lite, rows, n, s_in, z_in, seed):
    """Tensors of up to 256 elements compute each exp; larger ones read a table of 256."""
    _, _, fb = lite
    rng = np.random.default_rng(seed)
    x = i8(rng, (rows, n))
    s_in = f32(s_in)
    m, s = arith.quantize_multiplier(min(s_in * float(1 << 26), float((1 << 31) - 1)))
    diff_min = -math.floor(31.0 * (1 << 26) / (1 << s))
    got = rt.empty(x.shape, np.int8)
    rt.call("rt_softmax_s8", rt.params("rt_softmax_s8_params", mult=m, shift=s,
                                       diff_min=diff_min), x, got)
    np.testing.assert_array_equal(got, arith.softmax_s8(x, m, s, diff_min))
    o = fb.SoftmaxOptionsT()
    o.beta = 1.0
    want = run_tflm(lite, fb.BuiltinOperator.SOFTMAX, [(x, ([s_in], [z_in], None), False)],
                    x.shape, ([1 / 256], [-128]), (fb.BuiltinOptions.SoftmaxOptions, o))
    np.testing.assert_array_equal(got, want)


@SETTINGS
@given(rows=st.integers(1, 12), n=st.integers(1, 80), s_in=st.floats(0.001, 1.0),
       z_in=st.integers(-128, 127), kind=st.sampled_from(["random", "equal", "extremes"]),
       seed=st.integers(0, 10 ** 6))
def test_log_softmax_equals_tflm(rt, lite, rows, n, s_in, z_in, kind, seed):
    """LOG_SOFTMAX: the C kernel, its numpy twin and TFLite Micro agree byte for byte, on random
    rows, rows of one value (each output -log(n)) and rows of -128 and 127 only (the range where
    differences fall below diff_min or out of Q5.26)."""
    _, _, fb = lite
    rng = np.random.default_rng(seed)
    x = i8(rng, (rows, n))
    if kind == "equal":
        x[:] = x[:, :1]
    elif kind == "extremes":
        x = np.where(rng.random((rows, n)) < 0.5, -128, 127).astype(np.int8)
    s_in = f32(s_in)
    mult, shift, rev_mult, rev_shift, diff_min = arith.log_softmax_params(s_in)
    got = rt.empty(x.shape, np.int8)
    rt.call("rt_log_softmax_s8", rt.params("rt_log_softmax_s8_params", mult=mult, shift=shift,
                                           rev_mult=rev_mult, rev_shift=rev_shift,
                                           diff_min=diff_min), x, got)
    np.testing.assert_array_equal(got, arith.log_softmax_s8(x, mult, shift, rev_mult, rev_shift,
                                                            diff_min))
    want = run_tflm(lite, fb.BuiltinOperator.LOG_SOFTMAX, [(x, ([s_in], [z_in], None), False)],
                    x.shape, ([16 / 256], [127]),
                    (fb.BuiltinOptions.LogSoftmaxOptions, fb.LogSoftmaxOptionsT()))
    np.testing.assert_array_equal(got, want)


def test_log_softmax_params_follow_tflm_prepare():
    """Scale 1/16: M = 2^22 exactly (shift 23), its reverse 2^-22 (rev_shift -21), diff_min
    -floor(31 * 2^3). Scale 64: M capped at 2^31 - 1, whose reverse rounds up to 2^30 + 1 at
    2^-30, and diff_min 0 (only the maximum counts). A scale at or below 2^-26 is refused, as
    TFLM's QuantizeMultiplierGreaterThanOne refuses it."""
    assert arith.log_softmax_params(1 / 16) == (1 << 30, 23, 1 << 30, -21, -248)
    assert arith.log_softmax_params(64.0) == ((1 << 31) - 1, 31, (1 << 30) + 1, -30, 0)
    with pytest.raises(ValueError):
        arith.log_softmax_params(2.0 ** -26)


@SETTINGS
@given(n=st.integers(1, 2), h=st.integers(1, 7), w=st.integers(1, 7), c=st.integers(1, 5),
       oh=st.integers(1, 16), ow=st.integers(1, 16), mode=st.sampled_from(["half", "align"]),
       z=st.integers(-128, 127), seed=st.integers(0, 10 ** 6))
def test_resize_bilinear_equals_tflm_and_its_twin(rt, lite, n, h, w, c, oh, ow, mode, z, seed):
    """RESIZE_BILINEAR with half-pixel centers (torch's align_corners=False) or aligned
    corners, up and down, one qparams in and out; the Python twin (the .pte interpreter's
    reference) computes the same bytes."""
    from aot.quantization.ops import OPS as Q8
    _, _, fb = lite
    x = i8(np.random.default_rng(seed), (n, h, w, c))
    align = mode == "align"
    got = rt.empty((n, oh, ow, c), np.int8)
    rt.call("rt_resize_bilinear_s8", int(align), int(not align), x, got)
    o = fb.ResizeBilinearOptionsT()
    o.alignCorners, o.halfPixelCenters = align, not align
    q = ([0.05], [z], None)
    want = run_tflm(lite, fb.BuiltinOperator.RESIZE_BILINEAR,
                    [(x, q, False), (np.array([oh, ow], np.int32), None, True)], got.shape,
                    q[:2], (fb.BuiltinOptions.ResizeBilinearOptions, o))
    np.testing.assert_array_equal(got, want)
    twin = Q8.resize_bilinear_nhwc.default(torch.from_numpy(x), [oh, ow], align, not align)
    np.testing.assert_array_equal(twin.numpy(), got)


# -- float boundary, lookup tables, data movement --------------------------------------------------

def test_quantize_dequantize_equal_pt2e(rt):
    import torch.ao.quantization.fx._decomposed  # noqa: F401
    qd = torch.ops.quantized_decomposed
    rng = np.random.default_rng(2)
    scale, zp = 0.0375, -7
    x = (rng.standard_normal(4000) * 3).astype(np.float32)
    x[:8] = np.array([0.5, 1.5, 2.5, -0.5, -1.5, 1e9, -1e9, 0.0], np.float32) * np.float32(scale)
    got = rt.empty(x.shape, np.int8)
    rt.call("rt_quantize_f32_s8", rt.params("rt_quant_params", scale=f32(1.0 / scale),
                                            zero_point=zp, qmin=-128, qmax=127), x, got)
    want = qd.quantize_per_tensor.default(torch.from_numpy(x), scale, zp, -128, 127, torch.int8)
    np.testing.assert_array_equal(got, want.numpy())
    back = rt.empty(x.shape)
    rt.call("rt_dequantize_s8_f32", rt.params("rt_quant_params", scale=f32(scale),
                                              zero_point=zp, qmin=-128, qmax=127), got, back)
    want = qd.dequantize_per_tensor.default(torch.from_numpy(got), scale, zp, -128, 127,
                                            torch.int8)
    np.testing.assert_array_equal(back, want.numpy())


def test_lut_and_clamp_in_place(rt):
    table = np.arange(127, -129, -1, dtype=np.int8)               # negation, saturating
    x = np.arange(-128, 128, dtype=np.int8).reshape(16, 16)
    rt.call("rt_lut_s8", rt.ffi.cast("int8_t *", rt.ffi.from_buffer(table)), x, x)
    np.testing.assert_array_equal(x.reshape(-1), table)
    rt.call("rt_clamp_s8", -5, 9, x, x)
    assert x.min() == -5 and x.max() == 9


@SETTINGS
@given(dims=st.lists(st.integers(1, 7), min_size=1, max_size=5),
       dtype=st.sampled_from([np.int8, np.int16, np.int32, np.int64]), data=st.data())
def test_permute_equals_numpy(rt, dims, dtype, data):
    """Every permutation of ranks 1 to 5 (dims of one among them), for each element size: the
    copy walks whichever of the output's last dim and the input's contiguous one is longer
    (NCHW -> NHWC of an RGB image runs along all its pixels), output dims that follow each
    other in the input too taken as one."""
    perm = data.draw(st.permutations(range(len(dims))))
    x = np.random.default_rng(len(dims)).integers(-100, 100, dims).astype(dtype)
    out = rt.empty(tuple(dims[p] for p in perm), dtype)
    rt.call("rt_permute", x.itemsize, rt.int32s(list(perm)), x, out)
    np.testing.assert_array_equal(out, x.transpose(perm))


@SETTINGS
@given(n=st.integers(1, 2), c=st.integers(2, 4), h=st.integers(1, 12), w=st.integers(1, 12),
       dtype=st.sampled_from([np.int8, np.int16, np.int32, np.int64]), data=st.data())
def test_permute_below_its_input_gives_the_separate_buffers_bytes(rt, n, c, h, w, dtype, data):
    """rt_permute NCHW -> NHWC with its output over its input: at aot/overlap.py's
    transpose_s8 lag (one plane below) and at any other gap of at least planes - 1 elements
    (more phases), it gives the bytes it gives into a buffer of its own; nearer than that,
    above the input, or a permutation that is no transpose of (planes, pixels) matrices over
    its input, it refuses (RT_ERR_PARAM)."""
    from aot.overlap import transpose_s8
    assume(h * w >= 2)
    x = np.random.default_rng(h * 13 + w).integers(-100, 100, (n, c, h, w)).astype(dtype)
    perm = rt.int32s([0, 2, 3, 1])
    want = x.transpose(0, 2, 3, 1)
    declared = transpose_s8({"input": torch.from_numpy(x), "perm": [0, 2, 3, 1]},
                            [torch.from_numpy(np.ascontiguousarray(want))])
    assert declared is not None and declared[1] == max(h * w, c - 1) * x.itemsize
    gap = data.draw(st.sampled_from([max(h * w, c - 1), c - 1]) | st.integers(c - 1, x.size + 2))
    arena = np.full(gap + x.size, -7, dtype)
    arena[gap:] = x.reshape(-1)
    rt.call("rt_permute", x.itemsize, perm, arena[gap:].reshape(x.shape),
            arena[:x.size].reshape(want.shape))
    np.testing.assert_array_equal(arena[:x.size].reshape(want.shape), want)
    near = np.zeros(c - 2 + x.size, dtype)
    with pytest.raises(KernelError):         # too near: no pixel lands on bytes already read
        rt.call("rt_permute", x.itemsize, perm, near[c - 2:].reshape(x.shape),
                near[:x.size].reshape(want.shape))
    above = np.zeros(1 + x.size, dtype)
    with pytest.raises(KernelError):
        rt.call("rt_permute", x.itemsize, perm, above[:x.size].reshape(x.shape),
                above[1:].reshape(want.shape))
    if n == 2 and gap < x.size:    # a move of whole planes: no transpose over its input
        with pytest.raises(KernelError):
            rt.call("rt_permute", x.itemsize, rt.int32s([1, 0, 2, 3]),
                    arena[gap:].reshape(x.shape), arena[:x.size].reshape(c, n, h, w))


def test_generic_movement(rt):
    rng = np.random.default_rng(4)
    x = i8(rng, (2, 3, 4, 5))
    out = rt.empty((2, 4, 5, 3), np.int8)
    rt.call("rt_permute", 1, rt.int32s([0, 2, 3, 1]), x, out)
    np.testing.assert_array_equal(out, x.transpose(0, 2, 3, 1))
    value = np.array([-9], np.int8)
    out = rt.empty((2, 4, 6, 8), np.int8)
    rt.call("rt_constant_pad", 1, rt.int32s([0, 1, 2, 3]), rt.ffi.from_buffer(value), x, out)
    np.testing.assert_array_equal(out, np.pad(x, [(0, 0), (1, 0), (2, 0), (3, 0)],
                                              constant_values=-9))
    y = i8(rng, (2, 1, 4, 5))
    out = rt.empty((2, 4, 4, 5), np.int8)
    shapes = rt.ffi.new("rt_shape[]", 2)
    shapes[0], shapes[1] = rt.shape(x.shape)[0], rt.shape(y.shape)[0]
    ptrs = rt.ffi.new("const void *[]", [rt.ffi.from_buffer(x), rt.ffi.from_buffer(y)])
    rt.call("rt_cat", 1, 1, 2, shapes, ptrs, out)
    np.testing.assert_array_equal(out, np.concatenate([x, y], 1))
    out = rt.empty((2, 3, 2, 5), np.int8)
    rt.call("rt_slice", 1, 2, 1, 100, 2, x, out)
    np.testing.assert_array_equal(out, x[:, :, 1::2])


def test_bad_shapes_and_params_give_statuses(rt):
    x, w = np.zeros((1, 4, 4, 3), np.int8), np.zeros((2, 3, 3, 2), np.int8)
    m, s = rt.int32s([1 << 30] * 2), rt.int32s([0] * 2)
    p = rt.params("rt_conv_s8_params", stride_h=1, stride_w=1, pad_h=0, pad_w=0, dilation_h=1,
                  dilation_w=1, input_offset=0, output_offset=0, act_min=-128, act_max=127,
                  mult=m, shift=s)
    with pytest.raises(KernelError, match="RT_ERR_SHAPE"):      # Cin 3 is not 2 * groups
        rt.call("rt_conv2d_s8", rt.ffi.NULL, p, x, w, None, rt.empty((1, 2, 2, 2), np.int8))
    bad = rt.params("rt_conv_s8_params", stride_h=0, stride_w=1, pad_h=0, pad_w=0,
                    dilation_h=1, dilation_w=1, input_offset=0, output_offset=0, act_min=-128,
                    act_max=127, mult=m, shift=s)
    with pytest.raises(KernelError, match="RT_ERR_PARAM"):
        rt.call("rt_conv2d_s8", rt.ffi.NULL, bad, x, np.zeros((2, 3, 3, 3), np.int8), None,
                rt.empty((1, 2, 2, 2), np.int8))
    with pytest.raises(KernelError, match="RT_ERR_SHAPE"):
        rt.call("rt_add_s8", rt.params("rt_add_s8_params", in1_mult=1 << 30, in2_mult=1 << 30,
                                       out_mult=1 << 30, left_shift=20, act_min=-128,
                                       act_max=127),
                np.zeros((2, 3), np.int8), np.zeros((4,), np.int8), rt.empty((2, 3), np.int8))
    with pytest.raises(KernelError, match="RT_ERR_PARAM"):
        rt.call("rt_clamp_s8", 5, -5, x, rt.empty(x.shape, np.int8))
    lsm = rt.params("rt_log_softmax_s8_params", mult=1 << 30, shift=27, rev_mult=1 << 30,
                    rev_shift=-25, diff_min=-15)
    with pytest.raises(KernelError, match="RT_ERR_SHAPE"):      # one shape in and out
        rt.call("rt_log_softmax_s8", lsm, np.zeros((2, 3), np.int8), rt.empty((3, 2), np.int8))
    with pytest.raises(KernelError, match="RT_ERR_SHAPE"):      # the exps of 4096 overflow Q12
        rt.call("rt_log_softmax_s8", lsm, np.zeros(4096, np.int8), rt.empty(4096, np.int8))
    bad = rt.params("rt_log_softmax_s8_params", mult=1 << 30, shift=27, rev_mult=1 << 30,
                    rev_shift=1, diff_min=-15)
    with pytest.raises(KernelError, match="RT_ERR_PARAM"):
        rt.call("rt_log_softmax_s8", bad, x, rt.empty(x.shape, np.int8))


# -- transposed convolution and batch matmul ---------------------------------------------------

@SETTINGS
@given(hw=st.tuples(st.integers(1, 6), st.integers(1, 6)), cin=st.integers(1, 6),
       cout=st.integers(1, 6), ks=st.sampled_from([(2, 2, 0), (3, 1, 1), (4, 2, 1), (3, 2, 0),
                                                   (1, 3, 0), (3, 3, 0)]),
       z_in=st.integers(-128, 127), z_out=st.integers(-128, 127), relu=st.booleans(),
       bias=st.booleans(), seed=st.integers(0, 10 ** 6))
def test_transpose_conv_equals_tflm(rt, lite, hw, cin, cout, ks, z_in, z_out, relu, bias, seed):
    """TRANSPOSE_CONV: VALID (no padding) and SAME (padding (k - s) // 2, output in * s)."""
    _, _, fb = lite
    k, s, pad = ks
    same = pad == (k - s) // 2 and pad > 0
    oh, ow = ((i * s) if same else (i - 1) * s + k for i in hw)
    rng = np.random.default_rng(seed)
    x, w = i8(rng, (1, *hw, cin)), i8(rng, (cout, k, k, cin), -127, 127)
    b = rng.integers(-3000, 3000, cout).astype(np.int32) if bias else None
    s_in, s_out = f32(rng.uniform(0.01, 0.1)), f32(rng.uniform(0.05, 0.5))
    s_w = [f32(v) for v in rng.uniform(0.002, 0.02, cout)]
    mults, shifts = arith.quantize_multipliers([s_in * v / s_out for v in s_w])
    lo, hi = arith.activation_bounds(0.0, math.inf, s_out, z_out) if relu else (-128, 127)
    m_arr, s_arr = rt.int32s(mults), rt.int32s(shifts)
    p = rt.params("rt_conv_s8_params", stride_h=s, stride_w=s, pad_h=pad, pad_w=pad,
                  dilation_h=1, dilation_w=1, input_offset=-z_in, output_offset=z_out,
                  act_min=lo, act_max=hi, mult=m_arr, shift=s_arr)
    got = rt.empty((1, oh, ow, cout), np.int8)
    rt.call("rt_transpose_conv2d_s8", p, x, w, b, got)
    o = fb.TransposeConvOptionsT()
    o.padding = fb.Padding.SAME if same else fb.Padding.VALID
    o.strideH = o.strideW = s
    o.fusedActivationFunction = fb.ActivationFunctionType.RELU if relu else \
        fb.ActivationFunctionType.NONE
    shape = np.array(got.shape, np.int32)
    bias_in = (b, ([f32(s_in * v) for v in s_w], [0] * cout, 0), True) if bias else \
        (None, None, True)
    want = run_tflm(lite, fb.BuiltinOperator.TRANSPOSE_CONV, [
        (shape, None, True), (w, (s_w, [0] * cout, 0), True), (x, ([s_in], [z_in], None), False),
        bias_in], got.shape, ([s_out], [z_out]), (fb.BuiltinOptions.TransposeConvOptions, o))
    np.testing.assert_array_equal(got, want)
    if not same:      # the Python twin (the .pte interpreter's reference) agrees
        from aot.quantization.ops import OPS as Q8
        ref = Q8.quantized_transpose_conv2d_nhwc.default(
            torch.from_numpy(x), torch.from_numpy(w), None if b is None else torch.from_numpy(b),
            [s, s], [pad, pad], [0, 0], [1, 1], -z_in, z_out, torch.tensor(mults),
            torch.tensor(shifts), lo, hi)
        np.testing.assert_array_equal(ref.numpy(), got)


@SETTINGS
@given(b=st.integers(1, 3), m=st.integers(1, 6), k=st.integers(1, 40), n=st.integers(1, 6),
       za=st.integers(-128, 127), zb=st.integers(-128, 127), zo=st.integers(-128, 127),
       seed=st.integers(0, 10 ** 6))
def test_batch_matmul_equals_tflm(rt, lite, b, m, k, n, za, zb, zo, seed):
    """BATCH_MATMUL with adj_y: the right operand given [B, N, K]."""
    _, _, fb = lite
    rng = np.random.default_rng(seed)
    lhs, rhs = i8(rng, (b, m, k)), i8(rng, (b, n, k))
    sa, sb, so = (f32(rng.uniform(lo, hi)) for lo, hi in ((0.01, 0.1), (0.01, 0.1), (0.1, 1.0)))
    mult, shift = arith.quantize_multiplier(sa * sb / so)
    p = rt.params("rt_bmm_s8_params", lhs_offset=-za, rhs_offset=-zb, out_offset=zo,
                  out_mult=mult, out_shift=shift)
    got = rt.empty((b, m, n), np.int8)
    rt.call("rt_batch_matmul_s8", p, lhs, rhs, got)
    o = fb.BatchMatMulOptionsT()
    o.adjX, o.adjY = False, True
    want = run_tflm(lite, fb.BuiltinOperator.BATCH_MATMUL, [
        (lhs, ([sa], [za], None), False), (rhs, ([sb], [zb], None), False)], got.shape,
        ([so], [zo]), (fb.BuiltinOptions.BatchMatMulOptions, o))
    np.testing.assert_array_equal(got, want)


# -- layer norm (ours: TFLite Micro has none) ----------------------------------------------------

@SETTINGS
@given(rows=st.integers(1, 5), d=st.integers(1, 70), z_in=st.integers(-128, 127),
       z_out=st.integers(-128, 127), affine=st.booleans(), seed=st.integers(0, 10 ** 6))
def test_layer_norm_equals_its_twin_and_pt2e_within_one_step(rt, rows, d, z_in, z_out, affine,
                                                             seed):
    """rt_layer_norm_s8 equals the Python twin (the .pte interpreter's reference) bit for bit,
    and PT2E's float reference (dequantize, F.layer_norm, quantize) within one output step."""
    from aot.quantization.ops import OPS as Q8
    rng = np.random.default_rng(seed)
    x = i8(rng, (rows, d))
    s_in, s_out = f32(rng.uniform(0.005, 0.1)), f32(rng.uniform(0.005, 0.05))
    w = rng.uniform(0.5, 1.5, d).astype(np.float32) if affine else None
    b = rng.uniform(-0.3, 0.3, d).astype(np.float32) if affine else None
    eps = 1e-5
    p = rt.params("rt_layer_norm_s8_params", in_scale=s_in, eps=f32(eps),
                  inv_out_scale=f32(1.0 / s_out), out_zero_point=z_out)
    got = rt.empty((rows, d), np.int8)
    rt.call("rt_layer_norm_s8", p, x, w, b, got)
    tw = None if w is None else torch.from_numpy(w)
    tb = None if b is None else torch.from_numpy(b)
    twin = Q8.quantized_layer_norm.default(torch.from_numpy(x), tw, tb, s_in, eps, s_out, z_out)
    np.testing.assert_array_equal(got, twin.numpy())
    real = torch.from_numpy(arith.dequantize_f32(x.astype(np.int64), s_in, z_in))
    ref = torch.nn.functional.layer_norm(real, (d,), tw, tb, eps)
    want = arith.quantize_f32(ref.numpy(), s_out, z_out)
    assert np.abs(got.astype(np.int64) - want).max() <= 1


# -- the int16 cell state of an LSTM (ours: TFLite Micro keeps it inside its fused LSTM) ---------

def i16(rng, shape):
    return rng.integers(-32768, 32768, size=shape).astype(np.int16)


@SETTINGS
@given(n=st.integers(1, 40), wide=st.booleans(), z_a=st.integers(-128, 127),
       z_b=st.integers(-128, 127), seed=st.integers(0, 10 ** 6))
def test_cell_state_products_equal_their_twin_and_pt2e_within_one_step(rt, n, wide, z_a, z_b,
                                                                       seed):
    """rt_mul_s8_s16: a gate (int8) times the int16 cell state or another gate (int8), into the
    int16 state, equals its Python twin bit for bit, and PT2E's float reference (dequantize,
    multiply, quantize to int16) within one step, saturation included."""
    from aot.quantization.ops import OPS as Q8
    rng = np.random.default_rng(seed)
    a = i8(rng, (1, n))
    b = i16(rng, (1, n)) if wide else i8(rng, (1, n))
    z_b = 0 if wide else z_b
    s_a, s_b = f32(1 / 256), f32(rng.uniform(1e-4, 0.05))
    s_out = f32(rng.uniform(1e-4, 0.01) if wide else rng.uniform(1e-6, 1e-4))
    m, s = arith.quantize_multiplier(float(np.float64(s_a) * s_b / s_out))
    got = rt.empty((1, n), np.int16)
    rt.call("rt_mul_s8_s16", rt.params("rt_mul_s16_params", in1_offset=-z_a, in2_offset=-z_b,
                                       out_mult=m, out_shift=s), a, b, b.dtype.itemsize, got)
    twin = Q8.quantized_mul_s16.default(torch.from_numpy(a), z_a, torch.from_numpy(b), z_b, m, s)
    np.testing.assert_array_equal(got, twin.numpy())
    real = (a.astype(np.float64) - z_a) * s_a * (b.astype(np.float64) - z_b) * s_b
    want = np.clip(np.rint(real / s_out), -32768, 32767)
    assert np.abs(got.astype(np.int64) - want).max() <= 1


@SETTINGS
@given(n=st.integers(1, 40), seed=st.integers(0, 10 ** 6))
def test_cell_state_sums_saturate_as_their_twin(rt, n, seed):
    """rt_add_s16: two int16 tensors of one scale, summed and saturated (PT2E's dequantize, add,
    quantize is exact there), as the Python twin."""
    from aot.quantization.ops import OPS as Q8
    rng = np.random.default_rng(seed)
    a, b = i16(rng, (2, n)), i16(rng, (2, n))
    got = rt.empty((2, n), np.int16)
    rt.call("rt_add_s16", a, b, got)
    want = np.clip(a.astype(np.int64) + b, -32768, 32767)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got, Q8.add_s16.default(torch.from_numpy(a),
                                                          torch.from_numpy(b)).numpy())


@pytest.mark.parametrize("fn", ["tanh", "sigmoid"])
@pytest.mark.parametrize("s_in", [2 ** -11, 3.1e-4, 1e-3])
def test_cell_state_tanh_steps_equal_pt2e_on_every_code(rt, fn, s_in):
    """tanh (and sigmoid) of the int16 cell state, as the lowering builds it (the lowest code of
    each output step), equals PT2E's dequantize -> op -> quantize on all 65,536 codes, in C
    (rt_step_s16_s8) and in the Python twin."""
    from aot.passes._int8_rules import step_table
    from aot.quantization.ops import OPS as Q8
    qd = torch.ops.quantized_decomposed
    codes = torch.arange(-32768, 32768, dtype=torch.int16)
    real = qd.dequantize_per_tensor.default(codes, s_in, 0, -32768, 32767, torch.int16)
    out_s, out_z = (1 / 128, 0) if fn == "tanh" else (1 / 256, -128)
    want = qd.quantize_per_tensor.default(getattr(torch, fn)(real), out_s, out_z, -128, 127,
                                          torch.int8).numpy()
    steps, first = step_table(getattr(torch.ops.aten, fn).default, (), {}, s_in, out_s, out_z,
                              (-math.inf, math.inf))
    got = rt.empty(codes.shape, np.int8)
    x = codes.numpy().reshape(1, -1)
    rt.call("rt_step_s16_s8", rt.data(steps.numpy()), steps.numel(), first, x,
            got.reshape(1, -1))
    np.testing.assert_array_equal(got, want)
    twin = Q8.step_s16.default(codes, steps, first)
    np.testing.assert_array_equal(twin.numpy(), want)


# -- in place (aot/overlap.py's bands, planned under --overlap) ---------------------------------

def _s8_layer(rt, rng, cout, pad=(0, 0), dil=(1, 1)):
    """Random per-channel requantization for ``cout`` channels: (params, bias)."""
    m_arr = rt.int32s(rng.integers(1 << 30, 1 << 31, cout))
    s_arr = rt.int32s(rng.integers(-10, 2, cout))
    p = rt.params("rt_conv_s8_params", stride_h=1, stride_w=1, pad_h=pad[0], pad_w=pad[1],
                  dilation_h=dil[0], dilation_w=dil[1],
                  input_offset=int(rng.integers(-127, 129)),
                  output_offset=int(rng.integers(-128, 128)), act_min=-128, act_max=127,
                  mult=m_arr, shift=s_arr)
    return p, rng.integers(-5000, 5000, cout).astype(np.int32)


def _scratch(rt, size: int):
    buf = np.zeros(max(size, 1), np.int8)
    return rt.ffi.new("rt_scratch *", {"buf": rt.data(buf), "size": size}), buf


@SETTINGS
@given(st.data())
def test_pointwise_in_place_gives_the_separate_buffers_bytes(rt, data):
    """rt_conv2d_1x1_in_place_s8 with its output in the input's buffer, at the lag
    aot/overlap.py declares (or lower), bands of any size: the bytes rt_conv2d_1x1_s8 gives
    into a buffer of its own. An output above the lag, or too little scratch, is refused."""
    from aot.overlap import conv_s8
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 31)))
    n, h, w_, cin, cout = (data.draw(st.integers(1, k)) for k in (2, 5, 5, 24, 24))
    x, wt = i8(rng, (n, h, w_, cin)), i8(rng, (cout, 1, 1, cin))
    p, bias = _s8_layer(rt, rng, cout)
    want = np.zeros((n, h, w_, cout), np.int8)
    rt.call("rt_conv2d_1x1_s8", scratch(rt), p, x, wt, bias, want)

    class Spec:   # a TensorSpec's shape and numel, as the op table's declarations read them
        def __init__(self, shape):
            self.shape, self.numel = shape, math.prod(shape)
    scr, _ = _scratch(rt, cout * data.draw(st.integers(1, n * h * w_ + 2)))
    lag = conv_s8({"input": Spec(x.shape), "weight": Spec(wt.shape), "scratch": Spec((1 << 20,)),
                   "stride": [1, 1], "padding": [0, 0]}, [Spec(want.shape)])[1]
    below = lag + data.draw(st.integers(0, 8))
    size = max(x.size, want.size)
    arena = np.full(2 * size + abs(below) + 64, 99, np.int8)
    at = size + 32                                       # the input's offset in the arena
    arena[at:at + x.size] = x.reshape(-1)
    got = arena[at - below:at - below + want.size].reshape(want.shape)
    rt.call("rt_conv2d_1x1_in_place_s8", scr, p, arena[at:at + x.size].reshape(x.shape), wt,
            bias, got)
    np.testing.assert_array_equal(got, want)
    if n * h * w_ * (cout - cin) > cout - cin and cout > cin:   # one byte too high
        arena[at:at + x.size] = x.reshape(-1)
        high = arena[at - lag + 1:at - lag + 1 + want.size].reshape(want.shape)
        with pytest.raises(KernelError, match="RT_ERR_PARAM"):
            rt.call("rt_conv2d_1x1_in_place_s8", scr, p,
                    arena[at:at + x.size].reshape(x.shape), wt, bias, high)
    small, _ = _scratch(rt, cout - 1)
    arena[at:at + x.size] = x.reshape(-1)
    over = arena[at - max(lag, 0):at - max(lag, 0) + want.size].reshape(want.shape)
    with pytest.raises(KernelError, match="RT_ERR_SCRATCH"):
        rt.call("rt_conv2d_1x1_in_place_s8", small, p, arena[at:at + x.size].reshape(x.shape),
                wt, bias, over)


@SETTINGS
@given(st.data())
def test_depthwise_in_place_gives_the_separate_buffers_bytes(rt, data):
    """rt_depthwise_conv2d_in_place_s8 (and the 3x3 entry) with the output exactly over the
    input, for every layer aot/overlap.py lets run in place by bands (any filter, padding and
    dilation whose bands the kernels' geometry takes), bands of the least rows up to the whole
    map (as widen_bands gives them the bytes free at the call): the bytes
    rt_depthwise_conv2d_s8 gives into a buffer of its own. Separate buffers pass through; an
    overlap other than exact, or too little scratch, is refused."""
    from aot.overlap import _depthwise_in_place, depthwise_band
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 31)))
    n, h, w_, c = (data.draw(st.integers(1, k)) for k in (2, 9, 7, 20))
    kh, kw = data.draw(st.sampled_from([1, 3, 5])), data.draw(st.sampled_from([1, 3, 5]))
    dil = (data.draw(st.integers(1, 2)), data.draw(st.integers(1, 2)))
    pad = ((kh - 1) * dil[0] // 2, (kw - 1) * dil[1] // 2)
    pad = (data.draw(st.integers(0, pad[0])), pad[1])
    oh, ow = h + 2 * pad[0] - (kh - 1) * dil[0], w_ + 2 * pad[1] - (kw - 1) * dil[1]
    assume(oh == h and ow == w_)
    assume(_depthwise_in_place((n, h, w_, c), (1, kh, kw, c), (n, h, w_, c), (1, 1), pad, dil))
    x, wt = i8(rng, (n, h, w_, c)), i8(rng, (1, kh, kw, c))
    p, bias = _s8_layer(rt, rng, c, pad, dil)
    want = np.zeros_like(x)
    rt.call("rt_depthwise_conv2d_s8", p, x, wt, bias, want)
    rows = data.draw(st.integers(depthwise_band(pad[0]), max(h, depthwise_band(pad[0]))))
    if not _depthwise_in_place((n, h, w_, c), (1, kh, kw, c), (n, h, w_, c), (1, 1), pad, dil,
                               rows):
        rows = depthwise_band(pad[0])     # (aot.overlap.depthwise_rows gives no such band)
    scr, _ = _scratch(rt, 2 * rows * w_ * c)
    entries = ["rt_depthwise_conv2d_in_place_s8"] + \
        (["rt_depthwise_conv2d_3x3_in_place_s8"] if (kh, kw, dil) == (3, 3, (1, 1)) else [])
    for entry in entries:
        buf = x.copy()
        rt.call(entry, scr, p, buf, wt, bias, buf)
        np.testing.assert_array_equal(buf, want)
        apart = np.zeros_like(x)
        rt.call(entry, scr, p, x, wt, bias, apart)
        np.testing.assert_array_equal(apart, want)
    if n * h * w_ > 1:   # a pixel below the input: an overlap, but not exact
        arena = np.concatenate([x.reshape(-1), np.zeros(c, np.int8)])
        with pytest.raises(KernelError, match="RT_ERR_PARAM"):
            rt.call(entries[0], scr, p, arena[c:].reshape(x.shape), wt, bias,
                    arena[:x.size].reshape(x.shape))
    if pad[0] > 0:
        small, _ = _scratch(rt, 2 * (pad[0] - 1) * w_ * c + 1)
        buf = x.copy()
        with pytest.raises(KernelError, match="RT_ERR_SCRATCH"):
            rt.call(entries[0], small, p, buf, wt, bias, buf)
