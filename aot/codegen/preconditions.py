"""The kernels' preconditions: what a kernel needs of its arguments beyond their kinds, dtypes and
shapes, checked before anything runs.

An op whose kernel needs one names it in its op-table entry (``aot.ops.OpDef.preconditions``). Its
call spec (aot/opspec.py, a ``Pre`` statement) states the precondition's arguments through
``ctx.require(name, ...)``, which runs the check of that name here; ``check_call`` (run by the
Program check, so by ``aot.load_program`` and ``to_executorch``) then makes sure that every
precondition the op declares was checked, and the C generator runs the same renderer. A call that
breaks one is refused with ``Invalid`` naming the argument.

Each check has a twin of the same name in C, ``rt_pte_pre_<name>`` in
runtime_c/include/rt_pte_checks.h, which the op's interpreter adapter calls while ``rt_pte_load``
checks the call (refusing with RT_ERR_PTE_ARGS). The two make the same decision on the same
arguments; the kernels rely on it and do not check again.

- ``requant_shift``: each (multiplier, shift) pair is one the int8 requantization takes: shift in
  [-31, 31] (its rounding right shift goes up to 31 bits), multiplier in [mult_lo, 2^31 - 1];
  and for inputs of up to ``in_max`` in magnitude its results stay within ``out_max``
  (2^31 - 129 where an output offset is added next; quantized_add's rescaled inputs within
  2^30 - 1, so their sum fits). Pairs held in tensors must be constants, so that their values
  are known at load. Its forms ``requant_shift_tensors`` and ``requant_shift_lists`` take a
  layer's pairs as two tensors or two int lists, and the sums accumulator_fits passed as their
  inputs.
- ``accumulator_fits``: an int8 kernel's int32 sum of ``terms`` products, each at most
  ``term_max`` in magnitude, plus each bias value, fits int32 in whatever order a kernel adds it.
  A bias must be a constant.
- ``softmax_scaling_fits``: the int8 softmax scales each difference it keeps,
  d in [max(diff_min, -255), 0], by 2^shift in int32: shift in [0, 30] and
  min(-diff_min, 255) * 2^shift <= 2^31.
- ``resample_scale_fits``: bilinear upsampling's source index of the last output pixel,
  (out - 0.5) * scale - 0.5 in float, converts to int32: below 2^30 (a float scale of
  1 / scale_factor; none: in / out, which always fits; align_corners: none taken).
- ``conv_geometry_fits``: a convolution's groups lie in [1, max(Cin, 1)], its output sizes are the
  ones its input, taps, stride, padding and dilation give (at least 1), and every offset and step
  its kernels make over the padded input fits int32: N * reach_h * reach_w * max(Cin, Cout)
  <= 2^31 - 1 (a count of 0 as 1), an axis' reach being in + 2 pad + stride + dil * k (a
  transposed one's adds in * stride + output_padding).
- ``pool_geometry_fits``: the same products and output sizes (with ceil_mode, either rounding)
  for a pooling window, whose padding is at most half the window (an average's k // 2 over a
  non-empty input, so every window holds a tap; a maximum's half its dilated extent).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

from ..quantization.arith import REQUANT_OUT_MAX, requant_max

INT32_MAX = 2 ** 31 - 1


@dataclass(frozen=True)
class Window:
    """One spatial axis of a convolution or pooling window (rt_pte_window in C)."""
    size: int        # the input's size along the axis
    k: int           # taps
    stride: int
    pad: int         # each side
    dil: int
    out: int         # the output's size along the axis

    @property
    def reach(self) -> int:
        """Every index a kernel makes along the axis lies within +-reach; 0 for an axis outside
        the ranges every kernel takes."""
        if self.size < 0 or self.k < 1 or self.stride < 1 or self.pad < 0 or self.dil < 1 \
                or self.out < 0:
            return 0
        return self.size + 2 * self.pad + self.stride + self.dil * self.k

    def out_size(self, ceil_mode: bool = False) -> int:
        """PyTorch's output size (rt_pool_out_size)."""
        s = self.stride
        out = (self.size + 2 * self.pad - self.dil * (self.k - 1) - 1
               + (s - 1 if ceil_mode else 0)) // s + 1
        if ceil_mode and (out - 1) * s >= self.size + self.pad:
            out -= 1
        return out


def _products_fit(reach_h: int, reach_w: int, batch: int, channels: int) -> bool:
    return 0 < reach_h and 0 < reach_w and \
        max(batch, 1) * reach_h * reach_w * max(channels, 1) <= INT32_MAX


def requant_shift(ctx, form: Optional[str] = None, **args) -> None:
    """The check, in its ``form``: None (``_requant_shift``), "tensors" or "lists"."""
    {None: _requant_shift, "tensors": requant_shift_tensors,
     "lists": requant_shift_lists}[form](ctx, **args)


def _requant_shift(ctx, mult: int, shift: int, mult_lo: int = 0, in_max: Optional[int] = None,
                   out_max: int = REQUANT_OUT_MAX, what: str = "multiplier") -> None:
    """One pair's values, as C's rt_pte_pre_requant_shift takes them (``what``: the multiplier's
    argument). ``in_max``: the largest magnitude of its inputs."""
    _requant_pair(ctx, what, [mult], [shift], mult_lo, in_max, out_max)


def requant_shift_tensors(ctx, mult: str, shift: str, n: int, terms: int, term_max: int,
                          bias: Optional[str]) -> None:
    """requant_shift of a layer's sums: the int32 constant tensors ``mult`` and ``shift`` (n
    pairs), each for sums of ``terms`` products of up to ``term_max`` plus the bias (the sums
    accumulator_fits passed)."""
    mults, shifts = _constant_values(ctx, mult), _constant_values(ctx, shift)
    if mults is not None and shifts is not None:    # else constants whose bytes are not at hand
        _requant_pair(ctx, mult, mults, shifts, 0, accumulator_max(ctx, terms, term_max, bias),
                      REQUANT_OUT_MAX, shift)


def requant_shift_lists(ctx, mult: list[int], shift: list[int], n: int, terms: int,
                        term_max: int, bias: Optional[str], channels: int,
                        what: str = "multiplier") -> None:
    """The same of n pairs given as int lists (a linear layer's), for the sums of a bias of
    ``channels`` items."""
    _requant_pair(ctx, what, mult, shift, 0, accumulator_max(ctx, terms, term_max, bias),
                  REQUANT_OUT_MAX)


def _requant_pair(ctx, what: str, mults: list[int], shifts: list[int], mult_lo: int,
                  in_max: Optional[int], out_max: int, shift_what: str = "shift") -> None:
    for i, s in enumerate(shifts):
        if not -31 <= s <= 31:
            ctx.invalid(f"argument {shift_what!r}: shift {s} (item {i}) is outside [-31, 31], "
                        "which the int8 requantization takes (precondition requant_shift)")
    for i, m in enumerate(mults):
        if not mult_lo <= m <= INT32_MAX:
            ctx.invalid(f"argument {what!r}: multiplier {m} (item {i}) is outside "
                        f"[{mult_lo}, {INT32_MAX}] (precondition requant_shift)")
    if in_max is None:
        return
    for i, (m, s) in enumerate(zip(mults, shifts)):
        if requant_max(in_max, m, s) > out_max:
            ctx.invalid(f"argument {what!r}: multiplier {m} with shift {s} (item {i}) "
                        f"takes values of up to {in_max} beyond {out_max}, where the "
                        "kernel's int32 overflows (precondition requant_shift)")


def _constant_values(ctx, name: str) -> Optional[list[int]]:
    """An int32 tensor argument's values (it must be a constant); None when the constant's bytes
    are not at hand."""
    if ctx.is_constant(name) is False:
        ctx.invalid(f"argument {name!r} must be a constant tensor: the requantization's values "
                    "are checked before the program runs (precondition requant_shift)")
    data = ctx.constant_values(name)
    return None if data is None else [int(x) for x in data]


def accumulator_max(ctx, terms: int, term_max: int, bias: Optional[str] = None) -> Optional[int]:
    """The largest magnitude of a sum accumulator_fits passed (rt_pte_accumulator_max); None where
    a bias's bytes are not at hand."""
    if bias is None or ctx.is_none(bias):
        return terms * term_max
    data = ctx.constant_values(bias) if ctx.is_constant(bias) else None
    return None if data is None else terms * term_max + max((abs(int(b)) for b in data),
                                                            default=0)


def accumulator_fits(ctx, terms: int, term_max: int, bias: Optional[str] = None,
                     n: Optional[int] = None, what: str = "weight") -> None:
    """``terms`` products of at most ``term_max`` each, plus the values of the int32 tensor
    argument ``bias`` (None, or an argument that is None: no bias; ``n``, its values the C check
    reads, is C's: here all of them are). ``what`` names the argument whose shape gives
    ``terms``."""
    if terms * term_max > INT32_MAX:
        ctx.invalid(f"argument {what!r}: a sum of {terms} products of up to {term_max} overflows "
                    "the kernel's int32 accumulator (precondition accumulator_fits)")
    if bias is None or ctx.is_none(bias):
        return
    if ctx.is_constant(bias) is False:
        ctx.invalid(f"argument {bias!r} must be a constant tensor: the accumulator's range is "
                    "checked before the program runs (precondition accumulator_fits)")
    data = ctx.constant_values(bias)
    if data is None:
        return
    room = INT32_MAX - terms * term_max
    for i, b in enumerate(int(x) for x in data):
        if abs(b) > room:
            ctx.invalid(f"argument {bias!r}: bias {b} (item {i}) plus a sum of {terms} products "
                        f"of up to {term_max} overflows the kernel's int32 accumulator "
                        "(precondition accumulator_fits)")


def softmax_scaling_fits(ctx, shift: int, diff_min: int) -> None:
    reach = min(-diff_min, 255)
    if not 0 <= shift <= 30 or diff_min > 0 or reach << shift > 2 ** 31:
        ctx.invalid(f"argument 'input_shift': differences down to -{reach} scaled by 2^{shift} "
                    "overflow the int8 softmax's int32 (precondition softmax_scaling_fits)")


def resample_scale_fits(ctx, size_h: int, size_w: int, scale_h: float, scale_w: float,
                        align_corners: bool) -> None:
    """``scale_*``: the float32 scale the kernel gets (0: in / out)."""
    if align_corners:
        return
    for axis, out, scale in (("H", size_h, scale_h), ("W", size_w, scale_w)):
        if scale > 0 and out > 0 and not (out - 0.5) * scale - 0.5 < 2.0 ** 30:
            ctx.invalid(f"argument 'scale_factors': a scale of {scale} over {out} output "
                        f"pixels ({axis}) takes source indices beyond int32 "
                        "(precondition resample_scale_fits)")


def conv_geometry_fits(ctx, h: Window, w: Window, batch: int, cin: int, cout: int, groups: int,
                       transposed: bool = False, out_pad_h: int = 0, out_pad_w: int = 0) -> None:
    if not (cin >= 0 and cout >= 0 and 1 <= groups <= max(cin, 1)):
        ctx.invalid(f"argument 'groups': {groups} groups of {cin} input channels "
                    "(precondition conv_geometry_fits)")
    reach = []
    for axis, a, op in (("H", h, out_pad_h), ("W", w, out_pad_w)):
        r = a.reach
        if r == 0 or op < 0:
            ctx.invalid(f"arguments 'stride', 'padding', 'dilation': axis {axis} (size {a.size}, "
                        f"{a.k} taps, stride {a.stride}, padding {a.pad}, dilation {a.dil}) "
                        "is outside what the kernels take (precondition conv_geometry_fits)")
        if transposed:
            r += a.size * a.stride + op
            want = (a.size - 1) * a.stride - 2 * a.pad + a.dil * (a.k - 1) + op + 1
        else:
            want = a.out_size()
        if want < 1 or a.out != want:
            ctx.invalid(f"argument 'out': its {axis} is {a.out}, where the input's {a.size}, "
                        f"{a.k} taps, stride {a.stride}, padding {a.pad} and dilation {a.dil} "
                        f"give {want} (precondition conv_geometry_fits)")
        reach.append(r)
    if not _products_fit(reach[0], reach[1], batch, max(cin, cout)):
        ctx.invalid(f"arguments 'stride', 'padding', 'dilation': over {batch} input(s) of "
                    f"{h.size} x {w.size} and {max(cin, cout)} channels, the kernels' offsets "
                    "overflow int32 (precondition conv_geometry_fits)")


def pool_geometry_fits(ctx, h: Window, w: Window, batch: int, channels: int, ceil_mode: bool,
                       average: bool) -> None:
    reach = []
    for axis, a in (("H", h), ("W", w)):
        span = a.dil * (a.k - 1) + 1
        r = a.reach
        if r == 0:
            ctx.invalid(f"arguments 'kernel_size', 'stride', 'padding': axis {axis} (size "
                        f"{a.size}, {a.k} taps, stride {a.stride}, padding {a.pad}, dilation "
                        f"{a.dil}) is outside what the kernels take "
                        "(precondition pool_geometry_fits)")
        if (a.pad > a.k // 2 or a.size < 1) if average else a.pad > span // 2:
            ctx.invalid(f"argument 'padding': {a.pad} on axis {axis} is more than half the "
                        f"window{'' if average else ' extent'}"
                        f"{' (or the input is empty)' if average else ''}: a window would hold "
                        "no tap (precondition pool_geometry_fits)")
        if a.out < 1 or (a.out != a.out_size() and not (ceil_mode and
                                                         a.out == a.out_size(True))):
            ctx.invalid(f"argument 'out': its {axis} is {a.out}, where the input's {a.size}, "
                        f"{a.k} taps, stride {a.stride} and padding {a.pad} give "
                        f"{a.out_size()}{f' or {a.out_size(True)}' if ceil_mode else ''} "
                        "(precondition pool_geometry_fits)")
        reach.append(r)
    if not _products_fit(reach[0], reach[1], batch, channels):
        ctx.invalid(f"arguments 'kernel_size', 'stride', 'padding': over {batch} input(s) of "
                    f"{h.size} x {w.size} and {channels} channels, the kernels' offsets overflow "
                    "int32 (precondition pool_geometry_fits)")


# Each precondition by the name ops declare (aot.ops.OpDef.preconditions); rt_pte_checks.h has
# rt_pte_pre_<name> for each.
# The checks with several forms (each C's rt_pte_pre_<name>_<form>; Python's takes ``form``).
FORMS = {"requant_shift": ("tensors", "lists")}

CHECKS: dict[str, Callable] = {
    "requant_shift": requant_shift,
    "accumulator_fits": accumulator_fits,
    "softmax_scaling_fits": softmax_scaling_fits,
    "resample_scale_fits": resample_scale_fits,
    "conv_geometry_fits": conv_geometry_fits,
    "pool_geometry_fits": pool_geometry_fits,
}
