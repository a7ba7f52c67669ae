"""Names a user chooses from, import-free (the command line reads them at start-up)."""

from __future__ import annotations

__all__ = ["CLIENT_RNG", "ESTIMATORS", "REPAIRS", "STOPS"]

ESTIMATORS: tuple[str, ...] = ("pooled", "paper")
"""RRBA table updates: the pooled estimator (convergent) or Eq. 4 as written (docs/rrba.md, Eq. 4 does not converge)."""

REPAIRS: tuple[str, ...] = ("clip", "project")
"""Repairs of RRBA tables off the simplex before clients sample from them."""

STOPS: tuple[str, ...] = ("first", "never")
"""RRBA stopping: freeze a subset when the Sec. 5 rule holds, or collect from every client."""

CLIENT_RNG: tuple[str, ...] = ("per-client", "shared")
"""The centralized RRBA engine's client generators: one per client (as distributed) or shared."""
