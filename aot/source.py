"""Where a graph node came from in the user's code, for error messages and C comments."""
from __future__ import annotations

import os
import re
from dataclasses import dataclass

import torch.fx

_FRAME = re.compile(r'File "([^"]+)", line (\d+), in (\S+)\n\s*(.*)')


@dataclass(frozen=True)
class SourceLoc:
    filename: str
    lineno: int
    name: str
    context: str

    def __str__(self) -> str:
        if not self.filename:
            return self.name or "<unknown source>"
        text = f"{os.path.basename(self.filename)}:{self.lineno} ({self.name})"
        return f"{text}: {self.context}" if self.context else text


UNKNOWN = SourceLoc("", 0, "", "")


def source_of(node: torch.fx.Node) -> SourceLoc:
    """The innermost user frame recorded by torch.export, else the module path."""
    frames = _FRAME.findall(node.meta.get("stack_trace") or "")
    if frames:
        filename, lineno, name, context = frames[-1]
        return SourceLoc(filename, int(lineno), name, context.strip())
    stack = node.meta.get("nn_module_stack") or {}
    if stack:
        path, _ = list(stack.values())[-1]
        return SourceLoc("", 0, f"module {path or '<root>'}", "")
    return SourceLoc("", 0, f"node {node.name}", "")
