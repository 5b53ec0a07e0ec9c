"""Storage: the SQLite response cache (runs resume from it)."""

from faceteval.store._cache import SQLiteCache

__all__ = ["SQLiteCache"]
