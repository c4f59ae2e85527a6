"""aot/'s import graph, read with ``ast``: no cycle, and no import inside a function except of an
optional dependency (one that ``pip install mcu-aot`` does not bring).

Edges are module -> module, from every import statement of a module (top level or inside a
function), relative or absolute, to the deepest aot module it names: ``from .x import y`` reads
``aot.<pkg>.x.y`` if that is a module, else ``aot.<pkg>.x``. A package's ``__init__`` is the
package's module, and importing ``aot.a.b`` from outside ``aot.a`` runs ``aot.a`` first, so that
is an edge too. The one import left out of the graph is the lazy import of an optional
dependency (it runs after every module has loaded). The generated flatbuffer bindings
(aot/pte/_fb/) are left out.
"""
from __future__ import annotations

import ast
from pathlib import Path

AOT = Path(__file__).resolve().parents[2] / "aot"

# Imported inside functions on purpose: optional dependencies (pyproject's extras), a module of
# ours that needs one (the quantizer subclasses torchao's), and fcntl, which only POSIX has.
OPTIONAL = {"executorch", "torchao", "tflite_micro", "hypothesis", "aot.quantization.quantizer",
            "fcntl"}

def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(AOT.rglob("*.py")):
        rel = path.relative_to(AOT.parent).with_suffix("")
        if "_fb" in rel.parts:
            continue
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _package(module: str) -> str:
    return module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]


def _target(base: str, name: str) -> str | None:
    """The deepest aot module that ``base.name`` names (``name`` may be an attribute)."""
    for full in (f"{base}.{name}" if name else base, base):
        if full in MODULES:
            return full
    return None


def imports(module: str) -> list[tuple[str, int, bool, str]]:
    """(imported aot module or external top-level name, line, inside a function, statement)."""
    tree = ast.parse(MODULES[module].read_text())
    inside = {id(n) for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef,
                                                              ast.AsyncFunctionDef))
              for n in ast.walk(f) if n is not f}
    out = []
    for node in ast.walk(tree):
        nested = id(node) in inside
        if isinstance(node, ast.Import):
            for a in node.names:
                ref = _target(a.name, "") if a.name.split(".")[0] == "aot" else \
                    a.name.split(".")[0]
                out.append((ref, node.lineno, nested, ast.unparse(node)))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = _package(module)
                for _ in range(node.level - 1):
                    base = base.rpartition(".")[0]
                base = f"{base}.{node.module}" if node.module else base
            elif (node.module or "").split(".")[0] == "aot":
                base = node.module
            else:
                out.append((node.module.split(".")[0], node.lineno, nested, ast.unparse(node)))
                continue
            for a in node.names:
                out.append((_target(base, a.name), node.lineno, nested, ast.unparse(node)))
    return out


def _packages_run(importer: str, module: str) -> list[str]:
    """The packages that importing ``module`` from ``importer`` runs first (those of its
    parents that do not hold ``importer``)."""
    parts = module.split(".")
    return [p for p in (".".join(parts[:k]) for k in range(1, len(parts)))
            if importer != p and not importer.startswith(p + ".")]


def import_graph() -> dict[str, set[str]]:
    graph = {m: set() for m in MODULES}
    for m in MODULES:
        for ref, _, nested, _ in imports(m):
            if ref in MODULES and ref != m and not (nested and ref in OPTIONAL):
                graph[m].update([ref, *_packages_run(m, ref)])
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One cycle of ``graph`` as [a, b, ..., a], or [] (depth-first search)."""
    state: dict[str, int] = {}     # 1: on the stack, 2: done
    stack: list[str] = []

    def visit(m: str) -> list[str]:
        state[m] = 1
        stack.append(m)
        for n in sorted(graph[m]):
            if state.get(n) == 1:
                return stack[stack.index(n):] + [n]
            if n not in state:
                found = visit(n)
                if found:
                    return found
        stack.pop()
        state[m] = 2
        return []

    for m in sorted(graph):
        if m not in state:
            found = visit(m)
            if found:
                return found
    return []


def test_the_graph_sees_the_packages():
    assert {"aot", "aot.api", "aot.backend", "aot.backends", "aot.passes.to_out_variant"} <= \
        set(MODULES)
    assert not any(m.startswith("aot.pte._fb") for m in MODULES)
    graph = import_graph()
    assert "aot.api" in graph["aot"]
    assert {"aot.passes", "aot.passes.lower_quantized"} <= graph["aot.firmware.model"]  # package 1st
    assert "aot.backend" not in graph["aot.backend.lower"]                # it is already running


def test_no_import_cycle_in_aot():
    cycle = find_cycle(import_graph())
    assert not cycle, "import cycle: " + " -> ".join(cycle)


def test_no_import_inside_a_function_but_optional_dependencies():
    found = sorted({f"{MODULES[m].relative_to(AOT.parent)}:{line}: {text}"
                    for m in MODULES
                    for ref, line, nested, text in imports(m)
                    if nested and ref not in OPTIONAL})
    assert not found, "imports inside functions:\n" + "\n".join(found)


def test_find_cycle_names_the_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) == []
