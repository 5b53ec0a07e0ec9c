"""A choice among names (methods, benchmarks) that answers an unknown one with the closest names."""

from __future__ import annotations

from typing import Any

import click

from faceteval._util.text import did_you_mean


class NamedChoice(click.Choice):  # type: ignore[type-arg]  # (generic from click 8.2 only)
    """`click.Choice`, whose error for an unknown name ends with "did you mean ...?" when one is close."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        """The choice ``value`` names; a usage error naming the closest choices when it names none."""
        try:
            return super().convert(value, param, ctx)
        except click.BadParameter as exc:
            hint = did_you_mean(str(value), [str(choice) for choice in self.choices])
            if not hint:
                raise
            self.fail(f"{exc.message.rstrip('.')}{hint}.", param, ctx)
