"""The sandbox every prompt template is compiled and rendered in, built-in or your own.

A template is text from a file, and a file in a checkout is as trusted as the checkout: so a template
runs no code and reaches nothing of Python's. It renders in Jinja's `ImmutableSandboxedEnvironment`
(no attribute or item starting with ``_``, no method that changes a list, dict or set, no call of
an unsafe callable), without the globals that make unbounded work (``lipsum``) or keep state across
loop turns (``namespace``), and every operation of the template's own that could make a text or a list
without bound (``*``, ``**``, ``%``, ``+``, ``~``, string methods and filters that pad, repeat, join or
fill) is refused past `MAX_TEXT` characters (or `MAX_ITEMS` items) before it is computed. Jinja folds
constant expressions while compiling, so these bounds hold when a template is checked, too.

`unsafe_parts` finds, in a template's syntax tree, what the sandbox would refuse while rendering
(names starting with ``_``) and what a template of your own may not do (include, import or extend
another), so that a template is refused, file and line named, before any call.
"""

from __future__ import annotations

import functools
import itertools
import math
import re
from collections.abc import Callable, Iterator
from typing import Any

from jinja2 import nodes
from jinja2.compiler import CodeGenerator, Frame, optimizeconst
from jinja2.exceptions import SecurityError
from jinja2.runtime import Context, Macro
from jinja2.sandbox import ImmutableSandboxedEnvironment

MAX_TEXT = 16 * 2**20
"""The most characters a template's own operation may make (16 Mi, about 4 million tokens: more than
any model reads in one prompt)."""
MAX_ITEMS = 100_000
"""The most items a template's own operation may make (Jinja's sandbox bounds ``range`` so)."""
MAX_POWER_BITS = 4096
"""The most bits ``a ** b`` may have (``2 ** 4096``: far past any number a prompt needs)."""
REMOVED_GLOBALS = ("lipsum", "namespace")
"""Jinja's globals a prompt template does not get: ``lipsum(n)`` makes ``n`` paragraphs, and a
``namespace`` keeps state from one loop turn to the next (what lets a text double each turn)."""

_ATTRIBUTE_ARGUMENTS = {"attr": 0, "selectattr": 0, "rejectattr": 0, "groupby": 0, "sum": 0, "sort": 2}
_ATTRIBUTE_ARGUMENTS.update(unique=1, min=1, max=1)
"""Filters that read the attribute a string argument names (``sort(attribute="a.b")``, dotted), and
where that argument is when given by position (``map`` takes it by name only)."""
_SPEC = re.compile(r"%(?:\([^)]*\))?[-#0 +]*(\*|\d+)?(?:\.(\*|\d+))?|\{[^{}]*?:([^{}]*)\}")
_NUMBER = re.compile(r"\d+")


class PromptSandbox(ImmutableSandboxedEnvironment):
    """Jinja's immutable sandbox with the size of what a template's own operations make bounded.

    Examples:
        >>> sandbox = PromptSandbox()
        >>> sandbox.from_string("{{ 'ab' * 2 }}").render()
        'abab'
        >>> sandbox.from_string("{{ 'ab' * 10**9 }}").render()  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        jinja2.exceptions.SecurityError: 'ab' * 1000000000 would make 2,000,000,000 characters, more ...
    """

    intercepted_binops = frozenset({"*", "**", "%", "+"})

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._safe: dict[tuple[type, str], bool] = {}
        self.code_generator_class = _BoundedConcat
        for name in REMOVED_GLOBALS:
            self.globals.pop(name, None)
        for name, estimate in _FILTER_SIZES.items():
            self.filters[name] = _bounded_filter(self.filters[name], name, estimate)

    def is_safe_attribute(self, obj: Any, attr: str, value: Any) -> bool:
        """Whether a template may read ``obj.attr``: Jinja's immutable sandbox's answer, which depends on
        the type and the name only, so it is kept per type and name."""
        key = (type(obj), attr)
        safe = self._safe.get(key)
        if safe is None:
            safe = self._safe[key] = super().is_safe_attribute(obj, attr, value)
        return safe

    def call_binop(self, context: Context, operator: str, left: Any, right: Any) -> Any:
        """``left operator right``, refused where it would make too much."""
        size = _binop_size(operator, left, right)
        if size is not None:
            _check(size, f"{_shown(left)} {operator} {_shown(right)}")
        return super().call_binop(context, operator, left, right)

    def call(__self, __context: Context, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        """Call ``__obj`` as the sandbox does, refused where a string method would make too much."""
        if type(__obj) is Macro:  # a template's own macro: what it makes inside is bounded there
            return __context.call(__obj, *args, **kwargs)
        method = getattr(__obj, "__wrapped__", __obj)
        owner = getattr(method, "__self__", None)
        if isinstance(owner, str):
            estimate = _STR_METHOD_SIZES.get(getattr(method, "__name__", ""))
            if estimate is not None:
                args = _listed(args)
                _check(estimate(owner, *args, **kwargs), f"{_shown(owner)}.{method.__name__}(...)")
        for value in (*args, *kwargs.values()):
            if isinstance(value, int) and abs(value) > MAX_TEXT:
                raise SecurityError(
                    f"an argument of {value:,} is more than a template may pass ({MAX_TEXT:,})"
                )
        return super().call(__context, __obj, *args, **kwargs)

    def joined(self, parts: tuple[Any, ...]) -> str:
        """``a ~ b ~ ...``, refused past `MAX_TEXT` characters."""
        texts = [str(part) for part in parts]
        _check(sum(map(len, texts)), "a text joined with ~")
        return "".join(texts)


class _BoundedConcat(CodeGenerator):
    """Compiles ``a ~ b`` to `PromptSandbox.joined` (Jinja's own join is not an operator it intercepts)."""

    @optimizeconst
    def visit_Concat(self, node: nodes.Concat, frame: Frame) -> None:
        self.write("environment.joined((")
        for part in node.nodes:
            self.visit(part, frame)
            self.write(", ")
        self.write("))")


def unsafe_parts(tree: nodes.Template) -> Iterator[tuple[int, str]]:
    """Each line of ``tree`` that does what a template of your own may not, and what it does.

    Examples:
        >>> list(unsafe_parts(PromptSandbox().parse("{{ x }}\\n{{ ''.__class__ }}")))
        [(2, "'.__class__': a name starting with '_' reaches Python's internals")]
    """
    internals = "a name starting with '_' reaches Python's internals"
    for node in tree.find_all((nodes.Getattr, nodes.Getitem, nodes.Filter, nodes.Test)):
        if isinstance(node, nodes.Getattr) and node.attr.startswith("_"):
            yield node.lineno, f"'.{node.attr}': {internals}"
        elif isinstance(node, nodes.Getitem) and _private(node.arg):
            yield node.lineno, f"'[{node.arg.as_const()!r}]': {internals}"
        elif isinstance(node, nodes.Filter | nodes.Test) and (name := _attribute_argument(node)):
            yield node.lineno, f"'{node.name}({name!r})': {internals}"
    for other in tree.find_all((nodes.Include, nodes.Import, nodes.FromImport, nodes.Extends)):
        kind = type(other).__name__.lower().replace("fromimport", "from ... import")
        yield (
            other.lineno,
            f"'{{% {kind} %}}': a template of your own uses its slots and m's macros, not other files",
        )


def _private(node: nodes.Node) -> bool:
    return isinstance(node, nodes.Const) and isinstance(node.value, str) and _names_private(node.value)


def _names_private(value: str) -> bool:
    return any(part.startswith("_") for part in value.split("."))


def _attribute_argument(node: nodes.Filter | nodes.Test) -> str | None:
    """A constant argument of ``node`` naming an attribute that starts with ``_`` (dotted parts too)."""
    arguments = [pair.value for pair in node.kwargs if pair.key == "attribute"]
    place = _ATTRIBUTE_ARGUMENTS.get(node.name) if isinstance(node, nodes.Filter) else None
    if place is not None:
        arguments += node.args[place : place + 1]
    for argument in arguments:
        if _private(argument):
            return str(argument.as_const())
    return None


def _check(size: int, what: str) -> None:
    if size > MAX_TEXT:
        raise SecurityError(
            f"{what} would make {size:,} characters, more than a template may make ({MAX_TEXT:,})"
        )


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:30]}...({len(text):,} characters)"


def _length(value: Any) -> int:
    return len(value) if isinstance(value, str | list | tuple) else len(str(value))


def _binop_size(op: str, left: Any, right: Any) -> int | None:
    """How many characters ``left op right`` would make, where it could make many; else None. A list
    or tuple is bounded by its items (`MAX_ITEMS`) and a number by its bits, here."""
    if op == "*":
        for sequence, times in ((left, right), (right, left)):
            if isinstance(sequence, str | list | tuple) and isinstance(times, int):
                return _sized(sequence, len(sequence) * max(times, 0))
        return None
    if op == "**":
        powers = isinstance(left, int) and isinstance(right, int) and right > 0 and abs(left) > 1
        if powers and right * math.log2(abs(left)) > MAX_POWER_BITS:
            raise SecurityError(
                f"{_shown(left)} ** {_shown(right)} would be a number of more than "
                f"{MAX_POWER_BITS:,} bits, more than a template may make"
            )
        return None
    if op == "%" and isinstance(left, str):
        arguments = right if isinstance(right, tuple) else (right,)
        return _formatted_size(left, arguments)
    if op == "+" and isinstance(left, str | list | tuple) and isinstance(right, str | list | tuple):
        return _sized(left, len(left) + len(right))
    return None


def _sized(sequence: Any, length: int) -> int | None:
    """``length`` characters if ``sequence`` is a text; a list or tuple's is checked as items."""
    if isinstance(sequence, str):
        return length
    _too_many(length)
    return None


def _formatted_size(template: str, arguments: tuple[Any, ...] | list[Any]) -> int:
    """An upper bound of ``template % arguments`` (or ``.format``): its widths and precisions taken as
    written, a ``*`` one as the largest number among the arguments."""
    numbers = [a for a in arguments if isinstance(a, int)]
    widths = 0
    for match in _SPEC.finditer(template):
        spec = "".join(part or "" for part in match.groups())
        widths += sum(int(n) for n in _NUMBER.findall(spec)) + (max(numbers, default=0) if "*" in spec else 0)
    return len(template) + widths + sum(_length(a) for a in arguments)


def _listed(arguments: tuple[Any, ...]) -> tuple[Any, ...]:
    """``arguments`` with the first made a list if it is an iterator (what ``map`` gives a ``join``),
    so that measuring it does not use it up."""
    if arguments and isinstance(arguments[0], Iterator):
        items = list(itertools.islice(arguments[0], MAX_ITEMS + 1))
        _too_many(len(items))
        return (items, *arguments[1:])
    return arguments


def _too_many(count: int) -> None:
    if count > MAX_ITEMS:
        raise SecurityError(f"{count:,} items, more than a template may make ({MAX_ITEMS:,})")


def _join_size(separator: Any, items: Any) -> int:
    listed = list(items)
    _too_many(len(listed))
    return _length(separator) * max(len(listed) - 1, 0) + sum(_length(item) for item in listed)


def _replace_size(text: str, old: Any = "", new: Any = "", count: Any = -1) -> int:
    found = text.count(str(old)) if str(old) else len(text) + 1
    if isinstance(count, int) and count >= 0:
        found = min(found, count)
    return len(text) + found * max(len(str(new)) - len(str(old)), 0)


def _padded(text: str, width: Any = 0, *_: Any) -> int:
    return max(len(text), width if isinstance(width, int) else 0)


_STR_METHOD_SIZES: dict[str, Callable[..., int]] = {
    "center": _padded,
    "ljust": _padded,
    "rjust": _padded,
    "zfill": _padded,
    "expandtabs": lambda text, size=8: len(text) + text.count("\t") * (size if isinstance(size, int) else 0),
    "replace": _replace_size,
    "join": lambda separator, items: _join_size(separator, items),
    "format": lambda text, *args, **kwargs: _formatted_size(text, [*args, *kwargs.values()]),
    "format_map": lambda text, mapping: _formatted_size(text, list(dict(mapping).values())),
}
"""How big each string method that could make a big text would make it (its receiver first)."""


def _indent_size(value: Any, width: Any = 4, *_: Any, **__: Any) -> int:
    text = str(value)
    step = len(width) if isinstance(width, str) else width if isinstance(width, int) else 0
    return len(text) + (text.count("\n") + 1) * step


def _wordwrap_size(
    value: Any, width: Any = 79, break_long_words: Any = True, wrapstring: Any = None, **_: Any
) -> int:
    text = str(value)
    step = width if isinstance(width, int) and width > 0 else 1
    return len(text) + (len(text) // step + 1) * len(wrapstring or "\n")


def _filled(value: Any, count: Any = 1, *_: Any, **__: Any) -> int:
    """``batch`` and ``slice`` fill ``count`` places (of lists they make): bounded as items."""
    if isinstance(count, int):
        _too_many(count)
    return 0


_FILTER_SIZES: dict[str, Callable[..., int]] = {
    "center": lambda value, width=80: _padded(str(value), width),
    "indent": _indent_size,
    "format": lambda value, *args, **kwargs: _formatted_size(str(value), [*args, *kwargs.values()]),
    "replace": lambda value, old="", new="", count=None: _replace_size(
        str(value), old, new, -1 if count is None else count
    ),
    "wordwrap": _wordwrap_size,
    "join": lambda value, d="", attribute=None: _join_size(d, value),
    "batch": _filled,
    "slice": _filled,
}
"""How big each Jinja filter that could make a big text (or list) would make it (its value first)."""


def _bounded_filter(
    filter: Callable[..., Any], name: str, estimate: Callable[..., int]
) -> Callable[..., Any]:
    """``filter``, refused where ``estimate`` of its arguments is past `MAX_TEXT`; Jinja's marks (what
    it passes first: the context, the environment) kept."""
    passes = getattr(filter, "jinja_pass_arg", None)

    @functools.wraps(filter)
    def bounded(*args: Any, **kwargs: Any) -> Any:
        first = 1 if passes is not None else 0
        args = (*args[:first], *_listed(args[first:]))
        _check(estimate(*args[first:], **kwargs), f"the filter {name}")
        return filter(*args, **kwargs)

    return bounded
