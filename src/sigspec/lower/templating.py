"""The one Jinja environment factory for emitters' file skeletons (templates/<target>/*.j2).

Delimiters are `[[ ]]`, `[% %]` and `[# #]`, so that Mustache's `{{ }}` in prompt templates
and generated code passes through untouched. Values inserted with `[[ ]]` are never parsed
again by Jinja. StrictUndefined: a missing view-model field is a bug, not an empty string.
"""

from __future__ import annotations

from typing import Any

import jinja2

from sigspec.infra.resources import resource_path
from sigspec.lower import quoting


def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(resource_path("templates"))),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        variable_start_string="[[",
        variable_end_string="]]",
        block_start_string="[%",
        block_end_string="%]",
        comment_start_string="[#",
        comment_end_string="#]",
    )
    env.filters.update(_FILTERS)
    return env


def _kwargs_map(params: Any) -> str:
    return repr({p.name: p.kwarg for p in params})


# Every value from a .sig file or its path goes through one of these, never raw: Python
# values through `repr`, text in comments and docstrings through `lower/quoting.py`.
_FILTERS = {
    "pyrepr": repr,
    "docstring": lambda text: repr(text or ""),
    "kwargs_map": _kwargs_map,
    "in_docstring": quoting.docstring,
    "in_line_comment": quoting.line_comment,
    "in_block_comment": quoting.block_comment,
}


def render(env: jinja2.Environment, name: str, **view: Any) -> str:
    return env.get_template(name).render(**view)
