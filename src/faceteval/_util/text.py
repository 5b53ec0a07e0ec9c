"""Small helpers for the wording of messages (lists, counts, close names), and for printing text that
came from outside."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence


def first_few(items: Sequence[str], limit: int = 5, separator: str = ", ") -> str:
    """The first `limit` of `items` joined by `separator`, then how many more there are.

    The count follows the last item after a space, or, when `separator` starts new lines, on a
    line of its own.

    >>> first_few(["a", "b", "c"], limit=2)
    'a, b and 1 more'
    """
    shown = separator.join(items[:limit])
    if len(items) <= limit:
        return shown
    joiner = separator if "\n" in separator else " "
    return f"{shown}{joiner}and {len(items) - limit} more"


_IRREGULAR = {"criterion": "criteria", "is": "are", "has": "have", "was": "were", "does": "do"}


def plural(count: int, noun: str, many: str | None = None) -> str:
    """`count` (with thousands separators) and `noun`, in the plural unless `count` is 1.

    The plural of `noun`'s last word is `many` when given, else its irregular plural (criterion,
    and the verbs is, has, was, does), else -ies for a -y after a consonant, -es after -s, -x, -ch or
    -sh, else -s.

    >>> plural(1, "instance"), plural(0, "instance"), plural(1200, "LLM call")
    ('1 instance', '0 instances', '1,200 LLM calls')
    >>> plural(1, "criterion"), plural(2, "criterion"), plural(2, "retry"), plural(2, "parse error")
    ('1 criterion', '2 criteria', '2 retries', '2 parse errors')
    >>> plural(1, "judgment id"), plural(3, "index", "indices")
    ('1 judgment id', '3 indices')
    """
    return f"{count:,} {noun if count == 1 else plural_of(noun, many)}"


def plural_of(noun: str, many: str | None = None) -> str:
    """The plural of `noun` as `plural` makes it, without a count.

    >>> plural_of("query"), plural_of("day"), plural_of("match"), plural_of("failed judgment")
    ('queries', 'days', 'matches', 'failed judgments')
    """
    head, _, last = noun.rpartition(" ")
    if many is None:
        if last in _IRREGULAR:
            many = _IRREGULAR[last]
        elif last.endswith("y") and last[-2:-1] not in ("a", "e", "i", "o", "u"):
            many = f"{last[:-1]}ies"
        elif last.endswith(("s", "x", "ch", "sh")):
            many = f"{last}es"
        else:
            many = f"{last}s"
    return f"{head} {many}" if head else many


def did_you_mean(name: str, known: Iterable[str], *, limit: int = 3) -> str:
    """A hint naming the up to `limit` entries of `known` closest to `name` (case aside), for a message
    about an unknown name; empty when none is close. An entry that holds the whole of `name` (``eli5`` in
    ``coeval-eli5``) comes first.

    >>> "unknown benchmark 'llmbar-adversrial'" + did_you_mean("llmbar-adversrial", ["llmbar-adversarial"])
    "unknown benchmark 'llmbar-adversrial' (did you mean 'llmbar-adversarial'?)"
    >>> did_you_mean("DNA", ["dna", "coeval-direct", "direct"]), did_you_mean("xyz", ["dna"])
    (" (did you mean 'dna'?)", '')
    >>> did_you_mean("eli5", ["coeval-eli5", "coeval-rocstories"])
    " (did you mean 'coeval-eli5'?)"
    """
    by_folded = {entry.casefold(): entry for entry in known}
    folded = name.casefold()
    holding = [entry for entry in by_folded if len(folded) >= 3 and folded in entry]
    close = [*holding, *difflib.get_close_matches(folded, list(by_folded), n=limit)]
    quoted = [repr(by_folded[entry]) for entry in dict.fromkeys(close)][:limit]
    if not quoted:
        return ""
    listed = f"{', '.join(quoted[:-1])} or {quoted[-1]}" if len(quoted) > 1 else quoted[0]
    return f" (did you mean {listed}?)"


_UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
"""What a terminal would act on rather than show: C0 controls but tab and newline (ESC among them),
DEL, C1 controls, the bidi overrides and isolates, and lone surrogates (which cannot be encoded)."""


def neutralise(text: str) -> str:
    r"""``text`` safe to print to a terminal: each character a terminal would act on, shown as its escape.

    Those are the C0 controls but newline and tab (ESC, BEL, carriage return among them), DEL, the C1
    controls (U+0080-U+009F; U+009B starts a command on some terminals as ESC [ does), the bidi
    overrides and isolates (U+202A-U+202E, U+2066-U+2069: they make text display as other text) and
    lone surrogates. Each is written as its hex escape in a Python string (``\x1b``, ``\x0d``,
    ``\x9b``, ``\u202e``): inert, and visible, so that a reader sees that something odd was there.
    Anything else, tabs and other languages' letters included, is left as it is.

    >>> print(neutralise("id\x1b]0;title\x07 \u202eevil\u202c\r\nnext line: café"))
    id\x1b]0;title\x07 \u202eevil\u202c\x0d
    next line: café
    """
    if _UNSAFE.search(text) is None:
        return text
    return _UNSAFE.sub(_escaped, text)


def _escaped(match: re.Match[str]) -> str:
    code = ord(match[0])
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
