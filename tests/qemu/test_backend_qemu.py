"""Delegates on a board: a model with a DemoBackend delegate (run by runtime_c's rt_backend
interface, composed as in flow 2) and FusedElementwiseBackend loops (flow 3) is built with
aot.firmware for the MPS2-AN386 (Cortex-M4F), run under QEMU and compared with eager torch."""
from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from conftest import require
from torch.export import export

import aot
from aot.backend import to_backend
from aot.backends import FusedElementwisePartitioner
from aot.boards import check_toolchain, load_board
from aot.errors import BoardError
from aot.firmware import format_run_report, run_on_board

BOARD = "mps2-an386"


class Sin(torch.nn.Module):
    def forward(self, x):
        return torch.sin(x)


class OnBoard(torch.nn.Module):
    def __init__(self, lowered_sin):
        super().__init__()
        self.sin = lowered_sin
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)

    def forward(self, x):
        h = self.conv(self.sin(x))
        h = h * F.relu6(h + 3.0) / 6.0 - 0.25       # hardswish by hand, then a shift
        return h.mean(dim=(2, 3)), torch.sigmoid(h) * h


def test_delegates_run_on_the_board():
    try:
        check_toolchain(load_board(BOARD))
    except BoardError as e:
        require(False, str(e))
    torch.manual_seed(0)
    x = torch.randn(1, 3, 6, 6) * 4.0
    edge = aot.to_edge(export(Sin(), (x,)))
    model = OnBoard(to_backend("DemoBackend", edge.exported_program(), [])).eval()
    et = aot.to_edge(export(model, (x,))).to_backend(FusedElementwisePartitioner()) \
        .to_executorch()
    ids = [d.id for d in et.executorch_program.method().delegates]
    assert ids[0] == "DemoBackend" and set(ids[1:]) == {"FusedElementwiseBackend"}
    report = run_on_board(et, BOARD, inputs=[x.numpy()], reference=model)
    assert report.status == 0 and report.fault is None, format_run_report(report)
    assert report.max_abs_error is not None and report.max_abs_error <= 1e-5, \
        format_run_report(report)
    assert np.isfinite(report.outputs[1]).all()
