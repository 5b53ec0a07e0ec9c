"""What `LLM.ask` needs from a parser."""

from __future__ import annotations

from typing import Protocol, TypeVar

T_co = TypeVar("T_co", covariant=True)


class Parser(Protocol[T_co]):
    """Turns reply text into a value, loudly.

    ``parse`` raises `faceteval.errors.ParseError` with a ``problem`` an LLM can act on (it is sent
    back in the one re-ask) and never invents a value. ``example`` is a well-formed reply of typical
    length, used by dry runs to estimate tokens and to drive later stages without calling an LLM.
    """

    @property
    def instructions(self) -> str:
        """The expected reply format in one or two sentences, repeated in the re-ask."""
        ...

    def parse(self, text: str) -> T_co:
        """Read the value from ``text`` or raise `ParseError`."""
        ...

    def example(self) -> str:
        """A well-formed reply of typical length."""
        ...
