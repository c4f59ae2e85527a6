"""Where a graph node came from in the user's code, for error messages and C comments.

torch.export records the Python stack of every node. The innermost frame is usually inside
torch.nn (``conv.py: return self._conv_forward(...)``), which tells a user nothing; the line
they wrote is the innermost frame *outside* torch. The module path (``features.3``) tells
layers of one ``nn.Sequential`` line apart.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass

import torch
import torch.fx

_FRAME = re.compile(r'File "([^"]+)", line (\d+), in (\S+)\n\s*(.*)')
_TORCH_DIR = os.path.dirname(torch.__file__) + os.sep


@dataclass(frozen=True)
class SourceLoc:
    filename: str
    lineno: int
    name: str       # function
    context: str    # the source line
    module: str = ""  # e.g. "features.3 (Conv2d)"

    def __str__(self) -> str:
        where = f" [{self.module}]" if self.module else ""
        if not self.filename:
            return (self.name or "<unknown source>") + where
        text = f"{os.path.basename(self.filename)}:{self.lineno} ({self.name})"
        return (f"{text}: {self.context}" if self.context else text) + where


UNKNOWN = SourceLoc("", 0, "", "")


def _module_of(node: torch.fx.Node) -> str:
    stack = node.meta.get("nn_module_stack") or {}
    if not stack:
        return ""
    path, cls = list(stack.values())[-1]
    cls_name = getattr(cls, "__name__", str(cls).rsplit(".", 1)[-1].strip("'>"))
    return f"{path} ({cls_name})" if path else ""


def source_of(node: torch.fx.Node) -> SourceLoc:
    """The innermost frame outside torch (else the innermost frame), and the module path."""
    frames = _FRAME.findall(node.meta.get("stack_trace") or "")
    module = _module_of(node)
    user = [f for f in frames if not f[0].startswith(_TORCH_DIR)]
    pick = (user or frames or [None])[-1]
    if pick is None:
        return SourceLoc("", 0, f"node {node.name}", "", module)
    filename, lineno, name, context = pick
    return SourceLoc(filename, int(lineno), name, context.strip(), module)
