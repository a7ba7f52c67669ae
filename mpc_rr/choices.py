"""The names users choose from, in one import-free module (the CLI reads them at start-up)."""

from __future__ import annotations

__all__ = [
    "DEPENDENCE_SOURCES",
    "ESTIMATORS",
    "LINK_CHANNELS",
    "MECHANISMS",
    "RRBA_CLIENT_RNG",
    "RRBA_ESTIMATORS",
    "RRBA_REPAIRS",
    "RRBA_STOPS",
    "SCHEMA_MAX_CATEGORIES",
    "SECURE_SUM_PROTOCOLS",
]

ESTIMATORS: tuple[str, ...] = ("clip", "project", "ibu", "none")
"""Repairs of Eq. 2 estimates off the simplex (DESIGN note 4)."""

DEPENDENCE_SOURCES: tuple[str, ...] = ("rr", "secure-sum", "pairwise-rr")
"""Where the pipeline's dependences come from: Sec. 4.1, 4.2, 4.3."""

MECHANISMS: tuple[str, ...] = ("cluster", "lambda", "optimized")
"""Release mechanism per cluster."""

SECURE_SUM_PROTOCOLS: tuple[str, ...] = ("full-mesh", "full-mesh-board", "secagg")

LINK_CHANNELS: tuple[str, ...] = ("direct", "anonymous", "secure-sum")
"""How pairwise-RR reports reach the aggregator (:mod:`mpc_rr.adversary.channels`)."""

RRBA_ESTIMATORS: tuple[str, ...] = ("pooled", "paper")
"""RRBA table updates: the pooled estimator (convergent) or Eq. 4 as written (DESIGN note 8)."""

RRBA_REPAIRS: tuple[str, ...] = ("clip", "project")
"""Repairs of RRBA tables off the simplex before clients sample from them."""

RRBA_STOPS: tuple[str, ...] = ("first", "never")
"""RRBA stopping: freeze a subset when the Sec. 5 rule holds, or collect from every client."""

RRBA_CLIENT_RNG: tuple[str, ...] = ("per-client", "shared")
"""The centralized RRBA engine's client generators: one per client (as distributed) or shared."""

SCHEMA_MAX_CATEGORIES = 200
"""Default most categories per attribute when a schema is inferred (``mpc-rr schema infer``)."""
