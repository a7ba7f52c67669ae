"""Names a user chooses from, import-free (the command line reads them at start-up)."""

from __future__ import annotations

__all__ = ["LINK_CHANNELS"]

LINK_CHANNELS: tuple[str, ...] = ("direct", "anonymous", "secure-sum")
"""How pairwise-RR reports reach the aggregator (:func:`mpc_rr.adversary.observe`)."""
