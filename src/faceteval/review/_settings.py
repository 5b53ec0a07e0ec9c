"""A project's settings, as `review import` records them: its queue, blind mode and label targets.

They are one JSON object in the ``meta`` table (key ``settings``): a project without it (made before
settings were kept, or never imported into from the command line) has the defaults.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from dataclasses import dataclass
from typing import Any

from faceteval.review._database import Database
from faceteval.review._model import ReviewError
from faceteval.review._queue import ORDERS, Ordering

__all__ = ["ProjectSettings", "read_settings", "write_settings"]

_KEY = "settings"


@dataclass(frozen=True, slots=True)
class ProjectSettings:
    """How a project's items are queued and shown, and how many labels it aims for."""

    order: Ordering = "input"
    """The queue order of the latest import (each item keeps the order it was queued by)."""
    seed: int = 0
    """The seed of the latest import's queue."""
    blind: bool = False
    """Whether the judge's verdict, scores and explanations are hidden until the annotator's own
    preference (a comparison) or overall score (an output) is given."""
    target_width: float = 0.1
    """The width of the prediction-powered interval the labels aim for (±half of it)."""
    target_agreement: float = 0.9
    """The agreement with humans calibration is to show."""
    delta: float = 0.1
    """Calibration's risk of being wrong."""

    def __post_init__(self) -> None:
        if self.order not in ORDERS:
            raise ReviewError(f"order {self.order!r}: one of {', '.join(ORDERS)}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int):
            raise ReviewError(f"seed {self.seed!r}: a whole number")
        for name in ("target_width", "target_agreement", "delta"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < 1:
                raise ReviewError(f"{name.replace('_', ' ')} {value!r}: a number between 0 and 1")


def read_settings(db: sqlite3.Connection) -> ProjectSettings:
    """The project's settings (the defaults where none were recorded).

    Raises:
        ReviewError: The recorded settings are not settings this faceteval knows.
    """
    row = db.execute("SELECT value FROM meta WHERE key = ?", (_KEY,)).fetchone()
    if row is None:
        return ProjectSettings()
    try:
        recorded = json.loads(row[0])
        known = {f.name for f in dataclasses.fields(ProjectSettings)}
        return ProjectSettings(**{k: v for k, v in recorded.items() if k in known})
    except (ValueError, TypeError, AttributeError) as exc:
        raise ReviewError(f"the project's settings cannot be read ({exc}): {row[0][:200]!r}") from None


def write_settings(database: Database, **changes: Any) -> ProjectSettings:
    """Record ``changes`` (fields of `ProjectSettings`; a None leaves its field as it is); the settings now.

    Raises:
        ReviewError: A value out of range, or a field that is not a setting.
    """
    with database.write() as db:
        given = {name: value for name, value in changes.items() if value is not None}
        try:
            settings = dataclasses.replace(read_settings(db), **given)
        except TypeError as exc:
            raise ReviewError(f"not a project setting: {exc}") from None
        db.execute(
            "INSERT INTO meta VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (_KEY, json.dumps(dataclasses.asdict(settings))),
        )
    return settings
