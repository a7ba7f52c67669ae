"""Names a user chooses from, import-free (the command line reads them at start-up)."""

from __future__ import annotations

__all__ = ["LINK_CHANNELS", "planted_variants"]

LINK_CHANNELS: tuple[str, ...] = ("direct", "anonymous", "secure-sum")
"""How pairwise-RR reports reach the aggregator (:func:`mpc_rr.adversary.observe`)."""


def planted_variants(protocol: str | None = None) -> tuple[str, ...]:
    """Names of the broken-on-purpose variants (of ``protocol``, or of any protocol) the
    adversary registered (:func:`~mpc_rr.adversary.attacks_for`; importing its broken roles)."""
    from mpc_rr.adversary._extensions import attacked, attacks_for
    from mpc_rr.core import get_protocol

    if protocol is not None:
        get_protocol(protocol)  # a UsageError naming the known ones
    names = [protocol] if protocol is not None else list(attacked("plants"))
    return tuple(sorted({v for n in names for v in attacks_for(n).planted()}))
