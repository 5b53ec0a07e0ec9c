"""Templates of your own, in place of built-in ones by name: `Templates` and `using_templates`.

A folder of templates replaces the built-in ones of the same names: ``DIR/dna/score.j2`` replaces
``dna/score``, ``DIR/hdeval/evaluate/summarization.j2`` replaces ``hdeval/evaluate/summarization``.
Every file is checked when the folder is read, before any call: its name must be a built-in
template's (an unknown one is an error listing them), its text a template of ``### <role>`` sections,
and its slots (the variables it uses) those the built-in one is given: it may not use one the stage
does not give, and must use each one the built-in shows on every call (a judging prompt that left out
the candidates would judge nothing). Templates are in use inside `using_templates` (what
``JudgeOptions(templates=...)`` and ``--templates DIR`` do for a run): `faceteval.prompts.render` and
`faceteval.prompts.load_template` then give them in place of the built-in ones, so every stage of
every method, and every template registered by a family or a plugin, is covered by name.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

import jinja2
from jinja2 import meta, nodes

from faceteval.errors import ConfigError
from faceteval.prompts._render import (
    ACTIVE,
    BUILT_IN,
    PREFIX_CACHE,
    Prompts,
    Template,
    builtin_template,
    current_prompts,
    environment,
    sections,
    template_names,
)
from faceteval.prompts._sandbox import unsafe_parts

SUFFIX = ".j2"
"""A template file's suffix."""
NOT_OVERRIDDEN = ("_macros",)
"""Templates that are not a stage's: the macros every template calls as ``m``."""
MAX_TEMPLATE_BYTES = 2**20
"""The largest template file read (1 MiB: the built-in ones are 1-5 kB)."""


@dataclass(frozen=True)
class Templates:
    """Templates in place of built-in ones, by name; empty: the built-in ones.

    Build one with `Templates.from_dir` or `Templates.from_texts` (each checks every template before
    any call); use it with ``JudgeOptions(templates=...)`` or `using_templates`. The names known are
    those registered when it is built: import it as ``faceteval.Templates`` (or after
    ``faceteval.methods``), which registers every family's.

    Attributes:
        overrides: The templates that replace built-in ones, by name.
    """

    overrides: Mapping[str, Template] = field(default_factory=lambda: MappingProxyType({}))

    @classmethod
    def from_dir(cls, directory: str | os.PathLike[str]) -> Templates:
        """The templates of ``directory``: each ``<name>.j2`` (``dna/score.j2``) replaces ``<name>``.

        Raises:
            ConfigError: The directory is not there, holds a file that is not a ``.j2`` template of a
                known name (the known names listed), or a template that is not valid, or uses a slot
                its stage does not give, or leaves out one it needs (file and slot named).
        """
        root = Path(directory)
        if not root.is_dir():
            raise ConfigError(f"--templates {directory}: not a directory of templates")
        overrides = {}
        for path in sorted(p for p in root.rglob("*") if p.is_file() and not _hidden(p, root)):
            name = path.relative_to(root).as_posix()
            if not name.endswith(SUFFIX):
                raise ConfigError(f"{path}: a template file is <name>{SUFFIX}; {_known()}")
            source = _read(path)
            overrides[name.removesuffix(SUFFIX)] = checked(name.removesuffix(SUFFIX), source, str(path))
        return cls(MappingProxyType(overrides))

    @classmethod
    def from_texts(cls, texts: Mapping[str, str], *, origin: str = "given in Python") -> Templates:
        """Templates from their texts, by name (``{"dna/score": "### user\\n..."}``), checked.

        Raises:
            ConfigError: As `from_dir`.
        """
        overrides = {name: checked(name, source, origin) for name, source in texts.items()}
        return cls(MappingProxyType(overrides))

    def get(self, name: str) -> Template:
        """The template ``name``: this set's, else the built-in one."""
        return self.overrides.get(name) or builtin_template(name)

    def __hash__(self) -> int:
        """Hashed by what each template is (its name, hash and origin), as options holding it are."""
        return hash(tuple(sorted((t.name, t.sha256, t.origin) for t in self.overrides.values())))


@contextmanager
def using_templates(templates: Templates | None) -> Iterator[None]:
    """Within the block (and the tasks it starts), `load_template` and `render` give ``templates``'s
    in place of the built-in ones. None leaves the templates in use as they are.

    Examples:
        >>> from faceteval.prompts import render
        >>> mine = Templates.from_texts({"common/reask": "### user\\n{{ problem }}. {{ instructions }}"})
        >>> with using_templates(mine):
        ...     render("common/reask", problem="no score", instructions="Reply with one.")[0].content
        'no score. Reply with one.'
    """
    if templates is None:
        yield
        return
    token = ACTIVE.set(MappingProxyType({**ACTIVE.get(), **templates.overrides}))
    try:
        yield
    finally:
        ACTIVE.reset(token)


@contextmanager
def prefix_cache_order(on: bool) -> Iterator[None]:
    """Within the block (and the tasks it starts), the per-facet scoring templates are rendered from
    their ``.prefix`` variants (``dna/score.prefix``), which put what an instance's calls share
    (instructions, query, candidates) first and the facet last, so that a server's prefix cache reuses
    it (``--prefix-cache``). The papers' templates stay as they are, and so do their hashes.

    Examples:
        >>> from faceteval.prompts import render
        >>> with prefix_cache_order(True):
        ...     text = render("dna/score", query="q", candidates=["a"], labels=["A"], reference=None,
        ...                   aspect="clarity", scale=(1, 10))[1].content
        >>> text.rstrip().endswith("> clarity")
        True
    """
    token = PREFIX_CACHE.set(on)
    try:
        yield
    finally:
        PREFIX_CACHE.reset(token)


def prefix_cache_on() -> bool:
    """Whether prompts are ordered for a prefix cache here (within `prefix_cache_order` ``(True)``)."""
    return PREFIX_CACHE.get()


def prompts_of(templates: Templates | None, *, prefix_cache: bool = False) -> Prompts:
    """The prompts of a run whose options give ``templates`` and ``prefix_cache``, over those in use
    around the call (`using_templates`, `prefix_cache_order`: the built-in ones where none is).

    Examples:
        >>> mine = Templates.from_texts({"common/reask": "### user\\n{{ problem }}. {{ instructions }}"})
        >>> prompts_of(mine).render("common/reask", problem="no score", instructions="Reply.")[0].content
        'no score. Reply.'
    """
    around = current_prompts()
    overrides = around.overrides if templates is None else {**around.overrides, **templates.overrides}
    return Prompts(MappingProxyType(dict(overrides)), prefix_cache or around.prefix_cache)


def recorded_prompts(
    names: Sequence[str], templates: Templates | None = None, *, prompts: Prompts | None = None
) -> dict[str, dict[str, str]]:
    """What a run record says of the templates ``names``: ``prompts`` (each one's SHA-256) and
    ``prompt_sources`` (`BUILT_IN`, or where the one used in its place was read from); as ``prompts``
    render them, else ``templates``'s, else those in use."""
    if prompts is None:
        current = current_prompts()
        prompts = current if templates is None else Prompts(templates.overrides, current.prefix_cache)
    used = [prompts.template(name) for name in names]
    return {
        "prompts": {template.name: template.sha256 for template in used},
        "prompt_sources": {template.name: template.origin for template in used},
    }


def overridable_names() -> list[str]:
    """The names a template of your own may have: every stage's template registered."""
    return [name for name in template_names() if name not in NOT_OVERRIDDEN]


def slots(source: str) -> tuple[set[str], set[str]]:
    """The variables a template's text uses, and of them those it uses on every call (outside any
    ``if``, conditional expression or ``default`` filter).

    Examples:
        >>> sorted(map(sorted, slots("### user\\n{{ query }}{% if reference %}{{ reference }}{% endif %}")))
        [['query'], ['query', 'reference']]
    """
    env = environment()
    tree = env.parse(source)
    used = meta.find_undeclared_variables(tree) - set(env.globals)
    return used, used & _unconditional(tree)


def checked(name: str, source: str, origin: str) -> Template:
    """``source`` as the template ``name`` in place of the built-in one, read from ``origin``.

    Raises:
        ConfigError: An unknown name, text that is not a template of sections, a slot the stage does
            not give, or one it needs left out.
    """
    if name not in overridable_names():
        raise ConfigError(f"{origin}: no built-in template is named {name!r}; {_known()}")
    try:
        for line, problem in unsafe_parts(environment().parse(source)):
            raise ConfigError(f"line {line}: {problem}: the template is refused (docs/reliability.md)")
        parts = sections(name, source)
        used, _ = slots(source)
    except jinja2.TemplateSyntaxError as exc:
        raise ConfigError(f"{origin}, line {exc.lineno}: not a valid template: {exc.message}") from None
    except jinja2.TemplateError as exc:  # a bound of the sandbox, met while compiling constants
        raise ConfigError(f"{origin}: not a valid template: {exc}") from None
    except ConfigError as exc:
        raise ConfigError(f"{origin}{',' if str(exc).startswith('line ') else ':'} {exc}") from None
    if not parts:
        raise ConfigError(f"{origin}: no section; start each with a line '### system', '### user' or ...")
    given, needed = slots(builtin_template(name).source)
    if unknown := sorted(used - given):
        raise ConfigError(
            f"{origin}: uses {_listed(unknown)}, which {name} is not given; its slots are {_listed(given)}"
        )
    if missing := sorted(needed - used):
        raise ConfigError(
            f"{origin}: leaves out {_listed(missing)}, which the built-in {name} shows on every call: "
            "use it (`faceteval templates show " + name + "` shows the built-in one)"
        )
    return Template(name, source, hashlib.sha256(source.encode("utf-8")).hexdigest(), origin)


def _unconditional(tree: nodes.Node) -> set[str]:
    """The names a template loads outside every condition."""
    found: set[str] = set()

    def visit(node: nodes.Node) -> None:
        if isinstance(node, nodes.If):
            return
        if isinstance(node, nodes.CondExpr):
            return
        if isinstance(node, nodes.Filter) and node.name in ("default", "d"):
            return
        if isinstance(node, nodes.Name) and node.ctx == "load":
            found.add(node.name)
        for child in node.iter_child_nodes():
            visit(child)

    visit(tree)
    return found


def _read(path: Path) -> str:
    """The text of the template file ``path``, of at most `MAX_TEMPLATE_BYTES`."""
    try:
        with path.open("rb") as file:
            data = file.read(MAX_TEMPLATE_BYTES + 1)
        if len(data) > MAX_TEMPLATE_BYTES:
            raise ConfigError(
                f"{path}: more than {MAX_TEMPLATE_BYTES:,} bytes; a prompt template is a page of text"
            )
        return data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot be read: {exc}") from None


def _hidden(path: Path, root: Path) -> bool:
    return any(part.startswith(".") for part in path.relative_to(root).parts)


def _listed(names: set[str] | list[str]) -> str:
    return ", ".join(f"{{{{ {name} }}}}" for name in sorted(names)) or "none"


def _known() -> str:
    return f"the templates are {', '.join(overridable_names())}"


__all__ = ["BUILT_IN", "Templates", "recorded_prompts", "using_templates"]
