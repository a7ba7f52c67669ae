"""Names a user chooses from, import-free (the command line reads them at start-up)."""

from __future__ import annotations

__all__ = ["DEPENDENCE_SOURCES", "MECHANISMS"]

DEPENDENCE_SOURCES: tuple[str, ...] = ("rr", "secure-sum", "pairwise-rr")
"""Where the pipeline's dependences come from: Sec. 4.1, 4.2, 4.3."""

MECHANISMS: tuple[str, ...] = ("cluster", "lambda", "optimized")
"""Release mechanism per cluster."""
