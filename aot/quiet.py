"""Keeping the noise of the libraries we build on away from the user.

torch, torchao and ExecuTorch log and warn about their own affairs (deprecations inside torch,
optional CUDA extensions torchao cannot load, ExecuTorch's CPU probing). The command line
shows only mcu-aot's own output: ``quiet_third_party()`` filters the known messages at their
source, and ``native_stderr_captured()`` holds back what native code writes straight to file
descriptor 2 while it runs.
"""
from __future__ import annotations

import contextlib
import logging
import os
import sys
import tempfile
import warnings

_QUIET_LOGGERS = ("torchao", "torch.utils._pytree", "torch.export", "torch._export")
_QUIET_WARNINGS = (
    (FutureWarning, r".*isinstance\(treespec, LeafSpec\)"),     # torch.export.load
)


def quiet_third_party() -> None:
    for name in _QUIET_LOGGERS:
        logging.getLogger(name).setLevel(logging.ERROR)
    for category, message in _QUIET_WARNINGS:
        warnings.filterwarnings("ignore", message=message, category=category)


@contextlib.contextmanager
def native_stderr_captured():
    """Run the body with file descriptor 2 going to a temporary file. What was written is
    dropped when the body succeeds and written to stderr when it raises."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as sink:
        os.dup2(sink.fileno(), 2)
        try:
            yield
        except BaseException:
            os.dup2(saved, 2)
            sink.seek(0)
            sys.stderr.write(sink.read().decode(errors="replace"))
            raise
        finally:
            os.dup2(saved, 2)
            os.close(saved)
