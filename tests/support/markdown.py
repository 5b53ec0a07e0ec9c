"""Reading the project's Markdown as GitHub shows it: links, heading anchors, sections, console blocks.

Parsed with markdown-it-py (CommonMark and tables), so that nothing inside code counts as a link.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from markdown_it import MarkdownIt
from markdown_it.token import Token

ROOT = Path(__file__).resolve().parents[2]
_PARSER = MarkdownIt("commonmark").enable("table")
_OUTSIDE = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)
"""A link with a scheme (https:, mailto:) leads outside the repository."""


@dataclass(frozen=True, slots=True)
class Heading:
    """A heading: its level, text, GitHub anchor and the lines of its section (0-based, end excluded)."""

    level: int
    text: str
    anchor: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Step:
    """One ``$ command`` of a console block, with the output lines shown under it."""

    argv: tuple[str, ...]
    output: tuple[str, ...]


def tokens(path: Path) -> list[Token]:
    """The Markdown file's block tokens."""
    return _PARSER.parse(path.read_text(encoding="utf-8"))


def links(path: Path) -> Iterator[str]:
    """Every link and image target of the file, as written."""
    for token in tokens(path):
        for child in token.children or ():
            if child.type in ("link_open", "image"):
                yield str(child.attrs.get("href") or child.attrs.get("src") or "")


def local(target: str) -> bool:
    """Whether a link leads to something in the repository (not a URL with a scheme)."""
    return not _OUTSIDE.match(target)


def headings(path: Path) -> list[Heading]:
    """The file's headings in order, each with GitHub's anchor and its section's line range."""
    found: list[tuple[int, str, int]] = []
    parsed = tokens(path)
    for index, token in enumerate(parsed):
        if token.type == "heading_open" and token.map:
            inline = parsed[index + 1]
            text = "".join(c.content for c in inline.children or () if c.type in ("text", "code_inline"))
            found.append((int(token.tag[1:]), text, token.map[0]))
    total = len(path.read_text(encoding="utf-8").splitlines())
    seen: dict[str, int] = {}
    result = []
    for i, (level, text, start) in enumerate(found):
        end = next((s for lv, _, s in found[i + 1 :] if lv <= level), total)
        base = slug(text)
        count = seen.get(base, 0)
        seen[base] = count + 1
        result.append(Heading(level, text, base if count == 0 else f"{base}-{count}", start, end))
    return result


def slug(text: str) -> str:
    """GitHub's anchor for a heading's text: lower case, punctuation dropped, spaces as hyphens.

    Examples:
        >>> slug("Defaults: `faceteval.toml` and the environment")
        'defaults-facetevaltoml-and-the-environment'
        >>> slug("Fennec's measures")
        'fennecs-measures'
    """
    kept = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return kept.replace(" ", "-")


def section(path: Path, heading: Heading) -> str:
    """The text of a heading's section, the heading included."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return "\n".join(lines[heading.start : heading.end])


def console_steps(path: Path) -> list[Step]:
    """The ``$ ...`` commands of every ``console`` block, in order, with the output shown under each."""
    steps: list[Step] = []
    for token in tokens(path):
        if token.type != "fence" or token.info.strip() != "console":
            continue
        argv: list[str] | None = None
        output: list[str] = []
        for line in token.content.splitlines():
            if line.startswith("$ "):
                if argv is not None:
                    steps.append(Step(tuple(argv), tuple(output)))
                argv, output = shlex.split(line[2:], comments=True), []
            elif argv is not None:
                output.append(line)
        if argv is not None:
            steps.append(Step(tuple(argv), tuple(output)))
    return steps


def code_blocks(path: Path, language: str) -> list[str]:
    """The contents of the file's fenced blocks in ``language``."""
    return [t.content for t in tokens(path) if t.type == "fence" and t.info.strip() == language]
