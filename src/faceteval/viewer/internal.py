"""The plumbing of `faceteval.viewer` that other faceteval packages use: not its public API.

A name here may change or go in any release; documentation and examples never use one. What users
use is in the package's ``__all__``. See "Public names and internal seams" in docs/architecture.md.
"""

from typing import TYPE_CHECKING

from faceteval._util.lazy import lazy_attributes

if TYPE_CHECKING:  # imported on first use, as the package's own names are
    from faceteval.viewer._app import create_app
    from faceteval.viewer._runs import find_runs, run_at

__getattr__ = lazy_attributes(
    "faceteval.viewer",
    {
        "_app": ("create_app",),
        "_runs": ("find_runs", "run_at"),
    },
)

__all__ = [
    "create_app",
    "find_runs",
    "run_at",
]
