"""The ``aot`` command line. Errors the user can fix print one line and exit 2."""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from .errors import AotError


def _load_pt2(path: str):
    import logging
    import zipfile

    import torch
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


def _write_atomic(path: Path, data: bytes | str) -> None:
    """Write via a temporary file and rename, so a failure leaves nothing half-written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(data.encode() if isinstance(data, str) else data)
    os.replace(tmp, path)


def cmd_report(args) -> int:
    from . import to_edge
    from .memory import render_arena_svg
    from .report import format_report
    manager = to_edge(_load_pt2(args.model)).to_executorch()
    for name in sorted(manager.methods):
        method = manager.lowered(name)
        print(format_report(method, f"{Path(args.model).name} :: {name}"))
        if args.svg:
            labels = {t.id: t.name for t in method.graph.tensors}
            _write_atomic(Path(args.svg), render_arena_svg(method.buffers, method.plan, labels))
            print(f"arena map    {args.svg}")
    return 0


def cmd_zoo(args) -> int:
    import torch
    from .zoo import ZOO
    if args.name not in ZOO:
        raise AotError(f"unknown zoo model {args.name!r}; known: {', '.join(sorted(ZOO))}")
    model, example = ZOO[args.name]()
    ep = torch.export.export(model, example)
    out = Path(args.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp")
    torch.export.save(ep, str(tmp))
    os.replace(tmp, out)
    print(f"wrote {out} ({args.name}, input {tuple(example[0].shape)})")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="aot", description="mcu-aot: PyTorch models to "
                                "microcontrollers, ahead of time.")
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("report", help="per-op table and the arena against its lower bound")
    r.add_argument("model", help="a torch.export .pt2 file")
    r.add_argument("--svg", help="also draw the arena (offset against time) to this SVG file")
    r.set_defaults(func=cmd_report)
    z = sub.add_parser("zoo", help="export one of the MLPerf Tiny reference networks to .pt2")
    z.add_argument("name", help="kws, vww, resnet8 or autoencoder")
    z.add_argument("-o", "--output", required=True)
    z.set_defaults(func=cmd_zoo)
    return p


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except AotError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
