"""Names a user chooses from, import-free (the command line reads them at start-up)."""

from __future__ import annotations

__all__ = ["ESTIMATORS"]

ESTIMATORS: tuple[str, ...] = ("clip", "project", "ibu", "none")
"""Repairs of Eq. 2 estimates off the simplex (docs/rr_library.md, decision 4)."""
