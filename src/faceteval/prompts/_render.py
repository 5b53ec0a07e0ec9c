"""Prompt templates: package data, rendered with Jinja2 into chat messages.

A template file holds sections, each started by a line ``### system``, ``### user`` or
``### assistant``; Jinja statements before the first section apply to every section. Sections are
split before rendering, so nothing a candidate writes can open a new section. The macros of
``templates/_macros.j2`` are available to every template as ``m``.
Every text a template did not write itself goes through the ``fence`` filter (a block of lines each
quoted with ``>``) or ``fence_inline`` (a quoted string inside a sentence); see `faceteval.prompts._fence`.
"""

from __future__ import annotations

import functools
import hashlib
import re
from dataclasses import dataclass
from importlib import resources
from typing import Any, cast

import jinja2

from faceteval.errors import ConfigError
from faceteval.llm import Message
from faceteval.llm._types import Role
from faceteval.prompts._fence import fence, fence_inline

_SECTION = re.compile(r"^### (system|user|assistant)[ \t]*$", re.MULTILINE)


def and_join(items: list[str]) -> str:
    """Join words as prose: ``a``, ``a and b``, ``a, b and c``."""
    items = [str(item) for item in items]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


@functools.cache
def _environment() -> jinja2.Environment:
    """The one Jinja environment, built on first use (importing faceteval does no I/O)."""
    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("faceteval.prompts", "templates"),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
        auto_reload=False,
    )
    environment.filters["fence"] = fence
    environment.filters["fence_inline"] = fence_inline
    environment.filters["and_join"] = and_join
    environment.globals["m"] = environment.get_template("_macros.j2").module
    return environment


@dataclass(frozen=True, slots=True)
class Template:
    """A loaded prompt template.

    Attributes:
        name: ``<method>/<stage>``, for example ``dna/score``.
        source: The template text.
        sha256: Hash of ``source``, recorded in run records.
    """

    name: str
    source: str
    sha256: str

    def render(self, **variables: Any) -> tuple[Message, ...]:
        """Render every section into a message (a section without Jinja syntax is used as it is)."""
        messages = []
        for role, body in _sections(self.name, self.source):
            content = body if isinstance(body, str) else body.render(**variables).strip()
            messages.append(Message(cast(Role, role), content))
        return tuple(messages)


@functools.cache
def load_template(name: str) -> Template:
    """Load ``templates/<name>.j2`` from the package."""
    path = resources.files("faceteval.prompts").joinpath("templates", f"{name}.j2")
    try:
        source = path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise ConfigError(f"no prompt template named {name!r}") from exc
    return Template(name, source, hashlib.sha256(source.encode("utf-8")).hexdigest())


@functools.cache
def _sections(name: str, source: str) -> tuple[tuple[str, str | jinja2.Template], ...]:
    """Each section's role and body: compiled, or the text itself when it holds no Jinja syntax."""
    environment = _environment()
    parts = _SECTION.split(source)
    preamble = parts[0]
    if environment.from_string(preamble).render().strip():
        raise ConfigError(f"template {name!r} has text before its first '### <role>' line")
    sections: list[tuple[str, str | jinja2.Template]] = []
    for role, body in zip(parts[1::2], parts[2::2], strict=True):
        text = preamble + body
        static = not any(mark in text for mark in ("{{", "{%", "{#"))
        sections.append((role, text.strip() if static else environment.from_string(text)))
    return tuple(sections)


def render(name: str, **variables: Any) -> tuple[Message, ...]:
    """Render the template ``name`` with ``variables``."""
    return load_template(name).render(**variables)
