"""The consoles every command prints through, and the one way text from outside is printed.

Ids, queries, candidates, model replies, criteria, file names and error messages come from outside
and may hold characters a terminal acts on (ESC sequences that set the title, clear the screen or
recolour text; C1 controls; bidi overrides that make text display as other text). `Console` shows
every such character as its escape (`faceteval._util.text.neutralise`) in whatever it prints, so that a
call site that forgets still prints nothing raw; `escape` is what call sites use for a piece of
text inside markup: control characters neutralised, then markup escaped. rich's own styling is
added after, as it renders, and is unaffected.
"""

from __future__ import annotations

import copy
import io
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import IO, Any, cast

import rich.console
import rich.markup
from rich import box
from rich.segment import Segment
from rich.table import Table
from rich.text import Text

from faceteval._util.text import neutralise

__all__ = [
    "Console",
    "NeutralLogFilter",
    "err_console",
    "escape",
    "json_lines_out",
    "neutral_log_config",
    "neutral_out",
]


def escape(text: str) -> str:
    r"""``text`` to print as it is within rich markup: control characters neutralised, markup escaped.

    >>> print(escape("[bold]id\x1b[2J"))
    \[bold]id\x1b[2J
    """
    return rich.markup.escape(neutralise(text))


class Console(rich.console.Console):
    """rich's console, but what it prints from text can hold no control character (see `neutralise`).

    Strings (``print`` arguments, table cells, titles, tree labels) are neutralised before markup
    is read, so their width is measured as shown; anything else rendered (a `Text` built elsewhere,
    a progress bar's description) is neutralised segment by segment as it is rendered. Control
    segments, rich's own cursor movements, pass as they are.
    """

    def render_str(self, text: str, **kwargs: Any) -> Text:
        """rich's `render_str` of ``text`` with its control characters neutralised."""
        return super().render_str(neutralise(text), **kwargs)

    def render(
        self, renderable: rich.console.RenderableType, options: rich.console.ConsoleOptions | None = None
    ) -> Iterable[Segment]:
        """rich's `render`, every segment of text (not of control) neutralised."""
        for segment in super().render(renderable, options):
            text = segment.text if segment.control else neutralise(segment.text)
            yield segment if text is segment.text else Segment(text, segment.style)


err_console = Console(stderr=True, highlight=False, soft_wrap=True, emoji=False)
"""The console for messages on stderr (errors, warnings, summaries), shared by every command."""


class NeutralLogFilter(logging.Filter):
    """Neutralises a log record's message, arguments and traceback, whatever handler formats it."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Neutralise ``record`` in place; always let it through."""
        if isinstance(record.msg, str):
            record.msg = neutralise(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(neutralise(a) if isinstance(a, str) else a for a in record.args)
        elif isinstance(record.args, Mapping):
            record.args = {k: neutralise(v) if isinstance(v, str) else v for k, v in record.args.items()}
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = neutralise(record.exc_text)
        return True


def neutral_log_config(config: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of a `logging.config.dictConfig` mapping whose every handler has a `NeutralLogFilter`."""
    neutral = copy.deepcopy(dict(config))
    neutral.setdefault("filters", {})["neutralise"] = {"()": NeutralLogFilter}
    for handler in neutral.get("handlers", {}).values():
        handler["filters"] = [*handler.get("filters", []), "neutralise"]
    return neutral


_JSON_UNSAFE = {code: f"\\u{code:04x}" for code in (0x7F, *range(0x80, 0xA0), *range(0x202A, 0x202F))}
_JSON_UNSAFE |= {code: f"\\u{code:04x}" for code in range(0x2066, 0x206A)}


class _Filtered(io.TextIOBase):
    """A text stream writing what it is given through ``transform`` to another."""

    def __init__(self, stream: IO[str], transform: Callable[[str], str]) -> None:
        self._stream, self._transform = stream, transform

    def write(self, text: str) -> int:
        self._stream.write(self._transform(text))
        return len(text)

    def flush(self) -> None:
        self._stream.flush()

    def isatty(self) -> bool:
        return self._stream.isatty()

    def fileno(self) -> int:
        return self._stream.fileno()


def neutral_out(stream: IO[str]) -> IO[str]:
    """``stream``, every text written to it neutralised (for what is printed other than by a `Console`)."""
    return cast(IO[str], _Filtered(stream, neutralise))


def json_lines_out(stream: IO[str]) -> IO[str]:
    r"""``stream`` for JSON Lines that may reach a terminal: characters it would act on, escaped.

    JSON escapes the C0 controls (ESC as ``\u001b``) but leaves DEL, the C1 controls and the bidi
    overrides and isolates as they are; these are written as JSON escapes (``\u009b``), which mean
    the same to any JSON reader (they can stand only inside JSON strings).

    >>> import sys
    >>> _ = json_lines_out(sys.stdout).write('{"id": "a\x9bb\u202e"}\n')
    {"id": "a\u009bb\u202e"}
    """
    return cast(IO[str], _Filtered(stream, lambda text: text.translate(_JSON_UNSAFE)))


def table_of(title: str, columns: Sequence[str]) -> Table:
    """A table in the result's style: a title on the left, the first column left, the rest right."""
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
    for k, column in enumerate(columns):
        if k == 0:  # the names: never squeezed to a letter a line by the numbers beside them
            table.add_column(column, justify="left", overflow="fold", min_width=min(len(column), 12))
        else:  # a narrow terminal wraps a header, or a value at its space, before it hides a column
            table.add_column(column, justify="right", overflow="fold")
    return table
