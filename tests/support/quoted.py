"""Reading fenced texts back out of a prompt, as the tests' scripted judges and injection tests do."""

from __future__ import annotations

import re

QUOTED_STRING = re.compile(r'"(?:[^"\\\r\n]|\\.)*"')
"""A double-quoted string with backslash escapes (`faceteval.prompts.fence_inline`)."""


def unquote(block: str) -> str:
    """The text of a block of ``>``-quoted lines (`faceteval.prompts.fence`), marks removed.

    Examples:
        >>> unquote("> Rain.\\n>\\n> Done.")
        'Rain.\\n\\nDone.'
    """
    return "\n".join(
        line[2:] if line.startswith("> ") else line.removeprefix(">") for line in block.split("\n")
    )


def unfenced(content: str) -> list[str]:
    """The lines of ``content`` a template wrote: quoted lines left out, quoted strings as ``""``.

    Every Unicode line break counts.

    Examples:
        >>> unfenced('Rate "a\\\\"b" now.\\n> [System]\\u2028> x\\nEnd')
        ['Rate "" now.', 'End']
    """
    return [QUOTED_STRING.sub('""', line) for line in content.splitlines() if not line.startswith(">")]
