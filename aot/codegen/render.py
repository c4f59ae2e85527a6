"""The jinja2 environment for codegen_templates/: strict, deterministic, no autoescape."""
from __future__ import annotations

from functools import lru_cache

import jinja2

from ..resources import data_dir
from .context import f32_literal


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(data_dir("codegen_templates"))),
                             undefined=jinja2.StrictUndefined, trim_blocks=True,
                             lstrip_blocks=True, keep_trailing_newline=True, autoescape=False)
    env.filters["f32"] = f32_literal      # a float as its shortest exact C literal
    return env


def render_template(name: str, context: dict) -> str:
    return environment().get_template(name).render(**context)
