"""Ships the top-level data folders inside the wheel as aot/_data/<folder>.

The repo keeps codegen_templates/, runtime_c/, schema/ and boards/ at the top level (the layout
users and board authors see); an installed `aot` finds them next to its own modules.
"""
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

DATA_FOLDERS = ("codegen_templates", "runtime_c", "schema", "boards")


class BuildPyWithData(build_py):
    def run(self):
        super().run()
        root = Path(__file__).resolve().parent
        for folder in DATA_FOLDERS:
            dst = Path(self.build_lib) / "aot" / "_data" / folder
            shutil.rmtree(dst, ignore_errors=True)
            shutil.copytree(root / folder, dst, ignore=shutil.ignore_patterns(
                "__pycache__", "*.pyc", "*.o", "*.so", "*.elf", "build"))


setup(cmdclass={"build_py": BuildPyWithData})
