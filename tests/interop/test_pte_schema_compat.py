"""Our schema/program.fbs is wire-compatible with the one ExecuTorch 1.5.1 ships.

Compared against ExecuTorch's installed schema and its flatc-generated Python bindings:
enum and union numbers, each table's field slots and scalar types, vector element sizes,
and (with flatc) every field's type as flatc's JSON schema describes it.
"""
import importlib
import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from aot import program as ir
from conftest import require_tool

try:
    import executorch
    from executorch.exir._serialize.generated import executorch_flatbuffer as et_fb
except ImportError as e:  # pragma: no cover - depends on the environment
    if os.environ.get("CI") == "true":
        pytest.fail(f"executorch is required in CI: {e}", pytrace=False)
    pytest.skip(f"executorch not installed: {e}", allow_module_level=True)

OURS = Path(__file__).resolve().parents[2] / "schema"
THEIRS = Path(list(executorch.__path__)[0]) / "schema"
OUR_BINDINGS = Path(__file__).resolve().parents[2] / "aot" / "pte" / "_fb"
ENUMS = ["ScalarType", "TensorShapeDynamism", "TensorDataLocation", "DeviceType", "DataLocation",
         "KernelTypes", "InstructionArguments"]
TABLES = sorted(p.stem for p in OUR_BINDINGS.glob("*.py")
                if p.stem != "__init__" and p.stem not in ENUMS)


def _members(cls) -> dict:
    return {k: v for k, v in vars(cls).items() if not k.startswith("_") and isinstance(v, int)}


@pytest.mark.parametrize("name", ENUMS)
def test_enum_and_union_numbers_match(name):
    ours = getattr(importlib.import_module(f"aot.pte._fb.{name}"), name)
    theirs = getattr(importlib.import_module(f"{et_fb.__name__}.{name}"), name)
    assert _members(ours) == _members(theirs)


def test_ir_scalar_type_matches_the_schema():
    from aot.pte._fb.ScalarType import ScalarType as generated
    assert {m.name: m.value for m in ir.ScalarType} == _members(generated)


def _layout(source: str, table: str) -> dict:
    """Field -> (slot, how it is written) and vector -> element size, from generated code."""
    slots = {m[0]: (int(m[2]), m[1]) for m in re.findall(
        rf"def {table}Add(\w+)\(builder[^)]*\):\s*(?:return\s+)?builder\.Prepend(\w+)Slot\((\d+)",
        source)}
    vectors = {m[0]: int(m[1]) for m in re.findall(
        rf"def {table}Start(\w+)Vector\(builder[^)]*\)[^:]*:\s*return builder\.StartVector\((\d+)",
        source)}
    objects = re.findall(rf"def {table}Start\(builder[^)]*\):\s*(?:return\s+)?"
                         rf"builder\.StartObject\((\d+)\)", source)
    return {"slots": slots, "vectors": vectors, "fields": objects}


@pytest.mark.parametrize("table", TABLES)
def test_table_slots_and_types_match(table):
    ours = _layout((OUR_BINDINGS / f"{table}.py").read_text(), table)
    theirs = _layout(Path(importlib.import_module(f"{et_fb.__name__}.{table}").__file__)
                     .read_text(), table)
    assert ours["fields"] and ours == theirs


def test_every_table_of_theirs_is_in_ours():
    theirs = {p.stem for p in Path(et_fb.__file__).parent.glob("*.py")} - {"__init__"}
    assert theirs == set(TABLES) | set(ENUMS)


def test_flatc_json_schemas_agree(tmp_path):
    flatc = require_tool("flatc")

    def definitions(schema_dir: Path, out: Path) -> dict:
        subprocess.run([flatc, "--jsonschema", "-o", str(out), str(schema_dir / "program.fbs")],
                       check=True)
        return _without_descriptions(json.loads((out / "program.schema.json").read_text()))

    ours = definitions(OURS, tmp_path / "ours")
    theirs = definitions(THEIRS, tmp_path / "theirs")
    assert ours["definitions"].keys() == theirs["definitions"].keys()
    for name, definition in theirs["definitions"].items():
        mine = ours["definitions"][name]
        assert mine == definition, name
        assert list(mine.get("properties", {})) == list(definition.get("properties", {})), name


def _without_descriptions(node):
    if isinstance(node, dict):
        return {k: _without_descriptions(v) for k, v in node.items() if k != "description"}
    if isinstance(node, list):
        return [_without_descriptions(x) for x in node]
    return node
