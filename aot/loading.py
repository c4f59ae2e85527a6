"""Loading the files users hand the command line: torch.export .pt2 and ExecuTorch .pte."""
from __future__ import annotations

import logging
import zipfile
from pathlib import Path
from typing import Optional

import torch

from .api import to_edge
from .config import EdgeCompileConfig, backend_config
from .errors import AotError
from .pte import load_program


def load_pt2(path: str):
    """A torch.export .pt2 file as an ExportedProgram, or one clear error naming the file."""
    p = Path(path)
    if not p.is_file():
        raise AotError(f"{path}: no such file")
    if not zipfile.is_zipfile(p):
        raise AotError(f"{path}: not a torch.export .pt2 file (not a zip archive)")
    try:
        logging.getLogger("torch.export").setLevel(logging.ERROR)
        return torch.export.load(str(p))
    except Exception as e:
        raise AotError(f"{path}: not a torch.export .pt2 file ({type(e).__name__}: "
                       f"{str(e).splitlines()[0] if str(e) else ''})") from None


def load_model(path: str, int8_io: bool = False, overlap: bool = False,
               patches: Optional[bool] = None):
    """A .pt2 (lowered here, giving an ExecutorchProgramManager) or a .pte (read back, giving
    a Program). ``int8_io``: a quantized model keeps int8 inputs and outputs; ``overlap``: its
    outputs are planned over their inputs' dead bytes (config.backend_config); ``patches``
    (None: on for a .pt2; a .pte keeps its own): a run of its layers runs patch by patch
    where that lowers the peak."""
    if path.endswith(".pte"):
        if not Path(path).is_file():
            raise AotError(f"{path}: no such file")
        for flag, on in (("--overlap", overlap), ("--patches", patches not in (None, False))):
            if on:
                raise AotError(f"{path}: {flag} plans a .pt2 as it is lowered; a .pte keeps "
                               "the plan it was written with")
        return load_program(path)
    return to_edge(load_pt2(path), compile_config=EdgeCompileConfig(
        int8_io=int8_io, patches=True if patches is None else patches)).to_executorch(
        backend_config(overlap))
