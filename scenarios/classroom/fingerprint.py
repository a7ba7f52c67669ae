"""The roster fingerprint of a live round: a short code every page shows, for the class to compare.

In a live round the server hands every page the round's roster -- each party's Ed25519
verification key, which the pages check each other's signatures against.  A server that
shows different rosters to different pages, or swaps a student's key for one of its own,
could then impersonate that student to the others.  Every page shows the fingerprint of
the roster it was given, computed in the browser, and the teacher's projector shows the
server's: students compare them aloud.  Each student's page also checks that the roster
carries its own key under its own id, and alarms if not.

The fingerprint is the first 8 bytes of SHA-256 over the domain ``mpc_rr/classroom/roster/v1``
and then, for every id in increasing order, its id (8 bytes, little-endian) and its 32-byte
key; shown as four groups of four hex digits (``3f2a 9c01 77de b540``).  The page's
``signing.fingerprint`` computes the same bytes with WebCrypto.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

from mpc_rr.core import UsageError

__all__ = ["DOMAIN", "roster_fingerprint"]

DOMAIN = b"mpc_rr/classroom/roster/v1"


def roster_fingerprint(roster: Mapping[str | int, str]) -> str:
    """The fingerprint (module docstring) of ``roster``: ``{id: 64 hex digits of the raw key}``."""
    h = hashlib.sha256(DOMAIN)
    for pid in sorted(int(i) for i in roster):
        key = roster[str(pid)] if str(pid) in roster else roster[pid]
        raw = bytes.fromhex(key)
        if len(raw) != 32 or pid < 0:
            raise UsageError(f"roster_fingerprint: party {pid} needs a 32-byte key (64 hex digits), got {key!r}")
        h.update(pid.to_bytes(8, "little") + raw)
    d = h.digest()[:8].hex()
    return " ".join(d[i : i + 4] for i in range(0, 16, 4))
