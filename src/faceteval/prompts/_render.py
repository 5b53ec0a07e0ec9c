"""Prompt templates: package data, rendered with Jinja2 into chat messages.

A template is named ``<prefix>/<stage>`` (``dna/score``). ``common/`` and ``_macros.j2`` live here;
every other prefix names a folder of templates its method family keeps beside its code, registered
with `add_templates` (the methods registry does it for every method spec's folders).

A template file holds sections, each started by a line ``### system``, ``### user`` or
``### assistant``; Jinja statements before the first section apply to every section. Sections are
split before rendering, so nothing a candidate writes can open a new section. The macros of
``templates/_macros.j2`` are available to every template as ``m``.
Every text a template did not write itself goes through the ``fence`` filter (a block of lines each
quoted with ``>``) or ``fence_inline`` (a quoted string inside a sentence); see `faceteval.prompts._fence`.
"""

from __future__ import annotations

import contextvars
import functools
import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, cast

import jinja2

from faceteval.errors import ConfigError
from faceteval.llm import Message, Role
from faceteval.prompts._fence import fence, fence_inline
from faceteval.prompts._sandbox import PromptSandbox

_SECTION = re.compile(r"^### (system|user|assistant)[ \t]*$", re.MULTILINE)


def and_join(items: list[str]) -> str:
    """Join words as prose: ``a``, ``a and b``, ``a, b and c``."""
    items = [str(item) for item in items]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


_RESERVED = ("common",)
"""Prefixes of this package's own templates."""
_FOLDERS: dict[str, jinja2.BaseLoader] = {}
"""Each registered prefix's loader (`jinja2.PrefixLoader` reads this dict as it grows)."""
_HOMES: dict[str, tuple[str, str]] = {}
"""Each registered prefix's (package, folder), to tell a repeated registration from a clash."""


def add_templates(prefix: str, package: str, folder: str = "templates") -> None:
    """Name the templates in ``folder`` of ``package`` ``<prefix>/<stage>`` (``<stage>.j2`` there).

    Registering the same folder again does nothing.

    Raises:
        ConfigError: ``prefix`` is not one word (letters, digits, ``_`` or ``-``), is this package's
            own (``common``), is another folder's already, or the folder is not there.
    """
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_-]*", prefix) or prefix in _RESERVED:
        raise ConfigError(f"template prefix {prefix!r}: give one word other than {', '.join(_RESERVED)}")
    home = (package, folder)
    if (known := _HOMES.get(prefix)) is not None:
        if known != home:
            raise ConfigError(
                f"template prefix {prefix!r} names {known[1]} of {known[0]} already, "
                f"not {folder} of {package}"
            )
        return
    try:
        loader = jinja2.PackageLoader(package, folder)
    except (ValueError, ModuleNotFoundError) as exc:
        raise ConfigError(f"no template folder {folder!r} in package {package!r}: {exc}") from None
    _FOLDERS[prefix] = loader
    _HOMES[prefix] = home


def template_names() -> list[str]:
    """Every template's name (``dna/score``), those of this package (``common/reask``, ``_macros``) too."""
    environment = _environment()
    assert environment.loader is not None
    names = environment.loader.list_templates()
    return sorted(name.removesuffix(".j2") for name in names if name.endswith(".j2"))


@functools.cache
def _environment() -> jinja2.Environment:
    """The one Jinja environment, a sandbox (`faceteval.prompts._sandbox`), built on first use
    (importing faceteval does no I/O)."""
    environment = PromptSandbox(
        loader=jinja2.ChoiceLoader(
            [jinja2.PackageLoader("faceteval.prompts", "templates"), jinja2.PrefixLoader(_FOLDERS)]
        ),
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


BUILT_IN = "built-in"
"""The origin of a template shipped with faceteval (a user's names the file it was read from)."""


@dataclass(frozen=True, slots=True)
class Template:
    """A loaded prompt template.

    Attributes:
        name: ``<prefix>/<stage>``, for example ``dna/score``.
        source: The template text.
        sha256: Hash of ``source``, recorded in run records.
        origin: `BUILT_IN`, or where the template that replaces the built-in one was read from.
    """

    name: str
    source: str
    sha256: str
    origin: str = BUILT_IN

    def render(self, **variables: Any) -> tuple[Message, ...]:
        """Render every section into a message (a section without Jinja syntax is used as it is).

        Raises:
            ConfigError: A template given in place of a built-in one failed to render (named, with
                where it was read from).
        """
        messages = []
        for role, body in _sections(self.name, self.source):
            try:
                content = body if isinstance(body, str) else body.render(**variables).strip()
            except jinja2.TemplateError as exc:
                if self.origin == BUILT_IN:
                    raise
                raise ConfigError(
                    f"template {self.name} ({self.origin}) could not be rendered: {exc}"
                ) from None
            messages.append(Message(cast(Role, role), content))
        return tuple(messages)


ACTIVE: contextvars.ContextVar[Mapping[str, Template]] = contextvars.ContextVar(
    "faceteval_templates", default=MappingProxyType({})
)
"""The templates that replace built-in ones where they are in use (`faceteval.prompts.using_templates`)."""


def load_template(name: str) -> Template:
    """The template ``name`` (``<prefix>/<stage>``): the one in use in its place (`using_templates`),
    else the built-in one from the folder its prefix names."""
    return ACTIVE.get().get(name) or builtin_template(name)


@functools.cache
def builtin_template(name: str) -> Template:
    """The built-in template ``name`` (``<prefix>/<stage>``), from the folder its prefix names.

    Raises:
        ConfigError: There is none of that name.
    """
    environment = _environment()
    assert environment.loader is not None
    try:
        source, _, _ = environment.loader.get_source(environment, f"{name}.j2")
    except jinja2.TemplateNotFound as exc:
        raise ConfigError(f"no prompt template named {name!r}") from exc
    return Template(name, source, hashlib.sha256(source.encode("utf-8")).hexdigest())


def sections(name: str, source: str) -> tuple[tuple[str, str | jinja2.Template], ...]:
    """Each section's role and body, compiled (see `Template.render`).

    Raises:
        ConfigError: Text before the first section.
        jinja2.TemplateSyntaxError: The source is not a valid template.
    """
    return _sections(name, source)


def environment() -> jinja2.Environment:
    """The one Jinja environment every template is compiled in."""
    return _environment()


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


PREFIX_CACHE: contextvars.ContextVar[bool] = contextvars.ContextVar("faceteval_prefix_cache", default=False)
"""Whether prompts are ordered for a server's prefix cache (`prefix_cache_order`)."""
PREFIX_VARIANT = ".prefix"
"""The suffix of a template's variant ordered for a prefix cache (``dna/score.prefix``): what an
instance's calls share first, what tells them apart (the facet) last."""


@dataclass(frozen=True, eq=False, slots=True)
class Prompts:
    """Which template each name renders in a run: replacements of built-in ones, and whether the
    per-facet prompts are ordered for a server's prefix cache. A judge run's come from its options
    (`faceteval.JudgeOptions`: ``templates``, ``prefix_cache``) and travel with its `JudgeContext`.

    Attributes:
        overrides: Templates in place of the built-in ones of their names.
        prefix_cache: Render a template's ``.prefix`` variant where it has one (unless ``overrides``
            replace the template and not its variant: a template of your own is rendered as written).
    """

    overrides: Mapping[str, Template] = field(default_factory=lambda: MappingProxyType({}))
    prefix_cache: bool = False

    def in_use(self, name: str) -> str:
        """The name of the template rendered for ``name``.

        Examples:
            >>> Prompts().in_use("dna/score"), Prompts(prefix_cache=True).in_use("dna/score")
            ('dna/score', 'dna/score.prefix')
        """
        if not self.prefix_cache:
            return name
        variant = name + PREFIX_VARIANT
        if variant in self.overrides:
            return variant
        if name in self.overrides or not _has_builtin(variant):
            return name
        return variant

    def template(self, name: str) -> Template:
        """The template rendered for ``name``: the one in its place, else the built-in one."""
        used = self.in_use(name)
        return self.overrides.get(used) or builtin_template(used)

    def render(self, name: str, **variables: Any) -> tuple[Message, ...]:
        """Render the template in use for ``name`` with ``variables``."""
        return self.template(name).render(**variables)


def current_prompts() -> Prompts:
    """The prompts of code outside a judge run: those `faceteval.prompts.using_templates` and
    `faceteval.prompts.prefix_cache_order` put in use around it (the built-in ones otherwise)."""
    return Prompts(ACTIVE.get(), PREFIX_CACHE.get())


def in_use(name: str, overrides: Mapping[str, Template] | None = None) -> str:
    """The name of the template rendered for ``name`` here (`Prompts.in_use` of `current_prompts`, or of
    ``overrides`` in place of those in use).

    Examples:
        >>> in_use("dna/score")
        'dna/score'
    """
    prompts = current_prompts()
    return (prompts if overrides is None else Prompts(overrides, prompts.prefix_cache)).in_use(name)


@functools.cache
def _has_builtin(name: str) -> bool:
    environment = _environment()
    assert environment.loader is not None
    try:
        environment.loader.get_source(environment, f"{name}.j2")
    except jinja2.TemplateNotFound:
        return False
    return True


def render(name: str, **variables: Any) -> tuple[Message, ...]:
    """Render the template ``name`` as `current_prompts` say (a method renders through its
    `JudgeContext`, whose prompts are the run's)."""
    return current_prompts().render(name, **variables)
