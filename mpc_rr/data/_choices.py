"""Names and limits a user chooses from, import-free (the command line reads them at start-up)."""

from __future__ import annotations

__all__ = ["DEFAULT_MAX_CATEGORIES"]

DEFAULT_MAX_CATEGORIES = 200
"""Default most categories per attribute when a schema is inferred (``mpc-rr schema infer``)."""
