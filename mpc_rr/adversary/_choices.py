"""Names a user chooses from, import-free (the command line reads them at start-up)."""

from __future__ import annotations

__all__ = ["LINK_CHANNELS", "eavesdrop_protocols", "planted_variants"]

LINK_CHANNELS: tuple[str, ...] = ("direct", "anonymous", "secure-sum")
"""How pairwise-RR reports reach the aggregator (:func:`mpc_rr.adversary.observe`)."""


def eavesdrop_protocols() -> tuple[str, ...]:
    """Protocols an eavesdropper can watch live: every sum protocol, and every protocol whose
    spec names an ``observed_run`` hook (from the registry; import-light)."""
    from mpc_rr.core import protocol_names

    return tuple(sorted(set(protocol_names(family="sum")) | set(protocol_names(hook="observed_run"))))


def planted_variants(protocol: str | None = None) -> tuple[str, ...]:
    """Names of the broken-on-purpose variants (of ``protocol``, or of any protocol): each
    spec's ``plants`` hook (importing the adversary module's broken roles)."""
    from mpc_rr.core import get_protocol, protocols

    specs = [get_protocol(protocol)] if protocol is not None else list(protocols(hook="plants"))
    return tuple(sorted({n for s in specs if s.has_hook("plants") for n in s.hook("plants")}))
