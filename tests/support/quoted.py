"""Reading a fenced text back out of a prompt, as the scripted judges of the tests do."""

from __future__ import annotations


def unquote(block: str) -> str:
    """The text of a block of ``>``-quoted lines (`faceteval.prompts.fence`), marks removed.

    Examples:
        >>> unquote("> Rain.\\n>\\n> Done.")
        'Rain.\\n\\nDone.'
    """
    return "\n".join(line[2:] if line.startswith("> ") else line.removeprefix(">") for line in block.split("\n"))
