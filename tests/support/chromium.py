"""The Chromium the browser tests drive, and how they start it."""

from __future__ import annotations

import os

CHROMIUM = os.environ.get("FACETEVAL_CHROMIUM", "/usr/bin/chromium")
"""`make test` installs Debian's chromium; ``FACETEVAL_CHROMIUM`` names another."""
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
"""Flags for a headless Chromium that reaches nothing but the app under test."""
