"""The criteria tree of HD-Eval: a task, its layer-1 criteria, their sub-criteria, and so on.

A tree lives in a YAML or JSON file that people read and edit by hand::

    task: text summarization
    domain: summarization
    background: A summary is a shorter passage that keeps the key details of an article.
    criteria:
      - name: coherence
        description: The summary is well structured and well organised.
        children:
          - name: logical flow
            description: Ideas follow one another without abrupt jumps.

Each criterion in the tree is a `Node` whose ``id`` is the path of names from layer 1 down, joined
by ``" / "`` (``"coherence / logical flow"``). `render_tree` shows a tree in the terminal.
``domain`` (optional: ``summarization``, ``dialogue`` or ``data-to-text``) chooses the wording of the
prompts (`faceteval.methods.hdeval._domains`); without it, the generic wording is used.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml
from pydantic import ValidationError

from faceteval._util.documents import node_line
from faceteval._util.files import read_document
from faceteval._util.text import did_you_mean
from faceteval.core import Criterion
from faceteval.errors import ConfigError, InputError
from faceteval.methods._base import as_criteria
from faceteval.methods.hdeval._domains import DOMAINS, domain_of
from faceteval.store.internal import write_atomic

if TYPE_CHECKING:
    from rich.tree import Tree

SEPARATOR = " / "
"""Joins the names along a node's path into its id."""
SUFFIXES = (".yaml", ".yml", ".json")
_TOP_FIELDS = ("task", "domain", "background", "criteria")


@dataclass(frozen=True, slots=True)
class Node:
    """One criterion in a tree, with where it sits.

    Attributes:
        id: The names from layer 1 down to this criterion, joined by ``" / "``; unique in the tree.
        criterion: The criterion (with its children).
        parent: The criterion it refines, None on layer 1 (whose parent is the task itself).
        layer: 1 for the top-level criteria, 2 for their children, and so on.
    """

    id: str
    criterion: Criterion
    parent: Criterion | None
    layer: int

    @property
    def parent_id(self) -> str | None:
        """The parent's node id; None on layer 1."""
        return None if self.parent is None else self.id.removesuffix(SEPARATOR + self.criterion.name)


@dataclass(frozen=True, slots=True)
class CriteriaTree:
    """An evaluation task and its hierarchy of criteria.

    Attributes:
        task: What is evaluated, in a few words ("text summarization").
        background: Background and definitions of the task, shown to the LLM when decomposing.
        criteria: The layer-1 criteria; their ``children`` are layer 2, and so on.
        domain: HD-Eval's evaluation domain whose wording the prompts use (``summarization``,
            ``dialogue``, ``data-to-text``); None: the generic wording.

    Raises:
        ConfigError: The task is blank, the domain unknown, or two siblings share a name (their ids
            would collide).

    Examples:
        >>> tree = CriteriaTree("dialogue", criteria=(Criterion(name="fluency", children=("grammar",)),))
        >>> [node.id for node in tree.nodes()]
        ['fluency', 'fluency / grammar']
    """

    task: str
    background: str = ""
    criteria: tuple[Criterion, ...] = ()
    domain: str | None = None
    _nodes: tuple[Node, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.task.strip():
            raise ConfigError("a criteria tree needs a task")
        domain_of(self.domain)
        object.__setattr__(self, "criteria", as_criteria(self.criteria) or ())
        object.__setattr__(self, "_nodes", _index(self.criteria))

    @property
    def depth(self) -> int:
        """The number of layers (0 for a tree without criteria)."""
        return max((node.layer for node in self._nodes), default=0)

    def nodes(self) -> list[Node]:
        """Every criterion, breadth first: all of layer 1, then all of layer 2, and so on."""
        return list(self._nodes)

    def layer(self, n: int) -> list[Node]:
        """The criteria of layer ``n`` (1-based), in tree order; empty past the deepest layer."""
        return [node for node in self._nodes if node.layer == n]

    def find(self, node_id: str) -> Node:
        """The node with id ``node_id`` (compared exactly, then ignoring case).

        Raises:
            ConfigError: No node has that id; the message suggests close ones.
        """
        folded = node_id.casefold()
        exact = [node for node in self._nodes if node.id == node_id]
        matches = exact or [node for node in self._nodes if node.id.casefold() == folded]
        if matches:
            return matches[0]
        ids = [node.id for node in self._nodes]
        hint = did_you_mean(node_id, ids)
        raise ConfigError(f"no criterion {node_id!r} in the tree{hint}; ids are names joined by ' / '")

    def with_children(self, node_id: str, children: Sequence[Criterion]) -> CriteriaTree:
        """A new tree in which the node ``node_id`` has ``children`` instead of its own.

        Raises:
            ConfigError: No such node, or two of ``children`` share a name.
        """
        target = self.find(node_id).id
        criteria = tuple(_replaced(c, c.name, target, tuple(children)) for c in self.criteria)
        return CriteriaTree(self.task, self.background, criteria, self.domain)


def _walk(criteria: Sequence[Criterion]) -> Iterator[Node]:
    """Every node breadth first."""
    frontier: list[Node] = [Node(c.name, c, None, 1) for c in criteria]
    while frontier:
        yield from frontier
        frontier = [
            Node(f"{node.id}{SEPARATOR}{child.name}", child, node.criterion, node.layer + 1)
            for node in frontier
            for child in node.criterion.children
        ]


def _index(criteria: Sequence[Criterion]) -> tuple[Node, ...]:
    nodes = tuple(_walk(criteria))
    seen: dict[str, Node] = {}
    for node in nodes:
        key = node.id.casefold()
        if (other := seen.get(key)) is not None:
            where = f"under {node.parent.name!r}" if node.parent is not None else "on layer 1"
            if other.parent_id == node.parent_id:
                raise ConfigError(
                    f"criterion {node.criterion.name!r} appears twice {where} (node id {node.id!r}); "
                    "sibling criteria need different names"
                )
            raise ConfigError(
                f"criterion {node.criterion.name!r} {where} and criterion {other.criterion.name!r} on layer "
                f"{other.layer} have the same node id {node.id!r} (names are joined by {SEPARATOR!r}); "
                "rename one"
            )
        seen[key] = node
    return nodes


def _replaced(criterion: Criterion, node_id: str, target: str, children: tuple[Criterion, ...]) -> Criterion:
    if node_id == target:
        return criterion.model_copy(update={"children": children})
    if not target.startswith(node_id + SEPARATOR):
        return criterion
    updated = tuple(
        _replaced(child, f"{node_id}{SEPARATOR}{child.name}", target, children)
        for child in criterion.children
    )
    return criterion.model_copy(update={"children": updated})


# -- the terminal ----------------------------------------------------------------------------------


EXPANDED_MARK = "▸ expanded"
"""Shown after a criterion that was decomposed further."""


def render_tree(
    tree: CriteriaTree, *, importance: Mapping[str, float] | None = None, expanded: Collection[str] = ()
) -> Tree:
    """The tree as a `rich.tree.Tree`: the task at the root, then each criterion under its parent.

    Args:
        tree: The criteria tree.
        importance: Node id -> importance, shown after the name of each node that has one.
        expanded: Ids of the nodes that were decomposed further; they are marked.

    Names and descriptions are shown as written (rich markup in them is escaped).
    """
    from rich.tree import Tree  # rich is loaded by what shows a tree, not by what scores one

    root = Tree(f"[bold]{_escape(tree.task)}[/bold]" + _dim(tree.background), guide_style="dim")
    branches: dict[str, Tree] = {}
    for node in tree.nodes():
        parent = root if node.parent_id is None else branches[node.parent_id]
        branches[node.id] = parent.add(_label(node, importance or {}, expanded))
    return root


def _label(node: Node, importance: Mapping[str, float], expanded: Collection[str]) -> str:
    label = f"[bold]{_escape(node.criterion.name)}[/bold]"
    if node.id in importance:
        label += f" [cyan]{importance[node.id]:.3f}[/cyan]"
    if node.id in expanded:
        label += f" [green]{EXPANDED_MARK}[/green]"
    return label + _dim(node.criterion.description)


def _dim(text: str) -> str:
    return f"\n[dim]{_escape(text)}[/dim]" if text else ""


def _escape(text: str) -> str:
    from rich.markup import escape

    return escape(text)


# -- files ------------------------------------------------------------------------------------------


def tree_document(tree: CriteriaTree) -> dict[str, Any]:
    """The tree as a file holds it: only fields that differ from their defaults, in a stable order."""
    document: dict[str, Any] = {"task": tree.task}
    if tree.domain is not None:
        document["domain"] = tree.domain
    if tree.background:
        document["background"] = tree.background
    if tree.criteria:
        document["criteria"] = [c.model_dump(mode="json", exclude_defaults=True) for c in tree.criteria]
    return document


def save_tree(tree: CriteriaTree, path: str | Path) -> None:
    """Write ``tree`` as YAML (``.yaml``, ``.yml``) or JSON (``.json``), chosen by the suffix.

    Raises:
        ConfigError: The suffix is none of those.
        StoreError: The file cannot be written (a full disk is named as such); the earlier one is left.
    """
    target = Path(path)
    document = tree_document(tree)
    if target.suffix.lower() == ".json":
        text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    elif target.suffix.lower() in (".yaml", ".yml"):
        text = yaml.dump(document, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)
    else:
        raise ConfigError(f"{path}: a criteria tree is saved as .yaml, .yml or .json")
    write_atomic(target, text)


class _Dumper(yaml.SafeDumper):
    """Safe YAML that reads like the text: multi-line text as ``|`` blocks, a scale as ``[1, 5]``."""


def _represent_text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


def _represent_list(dumper: yaml.SafeDumper, value: list[Any]) -> yaml.SequenceNode:
    flat = all(not isinstance(item, dict | list) for item in value)
    return dumper.represent_sequence("tag:yaml.org,2002:seq", value, flow_style=flat)


_Dumper.add_representer(str, _represent_text)
_Dumper.add_representer(list, _represent_list)


def load_tree(path: str | Path) -> CriteriaTree:
    """Read a criteria tree from a YAML or JSON file (see the module docstring for the format).

    A criterion may be written as its name alone. Unknown fields are errors, not ignored.

    Raises:
        InputError: The file cannot be read or holds no valid tree; names the file, the line when
            known, and the field path (``criteria[2].children[0].name``).
    """
    name = str(path)
    data, document = _read(Path(path), name)
    if not isinstance(data, Mapping):
        raise InputError(name, None, None, "expected a mapping with 'task' and 'criteria'")
    reader = _Reader(name)
    for key in data:
        if key not in _TOP_FIELDS:
            raise InputError(name, node_line(_value(document, key)), str(key), _unknown(_TOP_FIELDS))
    task = reader.text(data, document, "task", required=True)
    background = reader.text(data, document, "background", required=False)
    domain = reader.text(data, document, "domain", required=False) or None
    if domain is not None and domain not in DOMAINS:
        line = node_line(_value(document, "domain"))
        raise InputError(
            name, line, "domain", f"unknown domain {domain!r}; expected one of {', '.join(DOMAINS)}"
        )
    criteria = reader.criteria(data.get("criteria", []), _value(document, "criteria"), "criteria")
    try:
        return CriteriaTree(task=task, background=background, criteria=criteria, domain=domain)
    except ConfigError as exc:  # two node ids collide: a name holding " / " spells another node's path
        raise InputError(name, node_line(_value(document, "criteria")), "criteria", str(exc)) from None


def _read(path: Path, name: str) -> tuple[Any, yaml.Node | None]:
    """The file's data, and its YAML node graph (for line numbers) when it has one."""
    if path.suffix.lower() not in SUFFIXES:
        raise InputError(name, None, None, "a criteria tree file ends in .yaml, .yml or .json")
    return read_document(path)


def _value(node: yaml.Node | None, key: str) -> yaml.Node | None:
    """The value node of ``key`` in a mapping node."""
    if not isinstance(node, yaml.MappingNode):
        return None
    return next((v for k, v in node.value if getattr(k, "value", None) == key), None)


def _item(node: yaml.Node | None, index: int) -> yaml.Node | None:
    """The ``index``-th item node of a sequence node."""
    if not isinstance(node, yaml.SequenceNode) or index >= len(node.value):
        return None
    item: yaml.Node = node.value[index]
    return item


def _unknown(known: Sequence[str]) -> str:
    return f"unknown field; expected one of {', '.join(known)}"


@dataclass(frozen=True, slots=True)
class _Reader:
    """Turns a file's data into criteria, naming the field path of the first problem."""

    name: str

    def text(self, data: Mapping[str, Any], document: yaml.Node | None, key: str, *, required: bool) -> str:
        value = data.get(key)
        if value is None and not required:
            return ""
        line = node_line(_value(document, key) or document)
        if not isinstance(value, str):
            raise InputError(self.name, line, key, "expected text" if key in data else "missing")
        if required and not value.strip():
            raise InputError(self.name, line, key, "must not be blank")
        return value

    def criteria(self, entries: Any, node: yaml.Node | None, where: str) -> tuple[Criterion, ...]:
        if entries is None:  # "children:" left empty
            return ()
        if not isinstance(entries, list):
            raise InputError(self.name, node_line(node), where, "expected a list of criteria")
        criteria = [self.criterion(entry, _item(node, i), f"{where}[{i}]") for i, entry in enumerate(entries)]
        seen: dict[str, int] = {}
        for i, criterion in enumerate(criteria):
            key = criterion.name.casefold()
            if key in seen:
                problem = f"repeats {criterion.name!r} (a sibling of the same name is {where}[{seen[key]}])"
                raise InputError(self.name, node_line(_item(node, i)), f"{where}[{i}].name", problem)
            seen[key] = i
        return tuple(criteria)

    def criterion(self, entry: Any, node: yaml.Node | None, where: str) -> Criterion:
        if isinstance(entry, str):
            entry = {"name": entry}
        if not isinstance(entry, Mapping):
            raise InputError(
                self.name, node_line(node), where, "expected a criterion name or a mapping with 'name'"
            )
        fields = dict(entry)
        children = self.criteria(fields.pop("children", []), _value(node, "children"), f"{where}.children")
        try:
            return Criterion.model_validate({**fields, "children": children})
        except ValidationError as exc:
            problem = exc.errors(include_url=False)[0]
            loc = [str(p) for p in problem["loc"]]
            line = node_line(_value(node, loc[0]) or node) if loc else node_line(node)
            message = problem["msg"].removeprefix("Value error, ")
            if problem["type"] == "extra_forbidden":
                message = _unknown(tuple(Criterion.model_fields))
            raise InputError(self.name, line, where + _path(problem["loc"]), message) from exc


def _path(loc: Sequence[int | str]) -> str:
    """A pydantic error location as a field path: ``("scale", 0)`` -> ``.scale[0]``."""
    return "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in loc)
