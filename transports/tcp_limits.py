"""The hub's memory limits: their defaults, and the check of what :func:`~transports.tcp.open_hub` is given.

Each of the hub's queues -- one outbox per destination and its own inbox,
:class:`~transports.queues.ByteQueue` s -- holds at most ``queue_bytes``
bytes and ``buffer`` frames; a connected destination that accepts nothing
for ``stall_timeout`` seconds while a sender waits for room is disconnected.
The checks raise :class:`~mpc_rr.core.UsageError` naming the parameter, the
rule and the value received.
"""

from __future__ import annotations

import math
import operator

from mpc_rr.core import UsageError

__all__ = ["DEFAULT_QUEUE_BYTES", "DEFAULT_STALL_TIMEOUT", "count_limit", "stall_limit"]

DEFAULT_QUEUE_BYTES = 32 << 20
"""Default bound of each hub queue (per destination, and the hub's inbox), in bytes."""
DEFAULT_STALL_TIMEOUT = 60.0
"""Default seconds a connected destination may accept nothing while a sender waits for room."""


def count_limit(name: str, value: object) -> int:
    """``value`` as an int >= 1, else UsageError naming ``name``."""
    try:
        n = operator.index(value)  # type: ignore[call-overload]
    except TypeError:
        n = 0
    if isinstance(value, bool) or n < 1:
        raise UsageError(f"open_hub: {name} must be an int >= 1, got {value!r}")
    return n


def stall_limit(value: float | None) -> float | None:
    """``value`` as finite seconds > 0, or ``None`` (never), else UsageError."""
    if value is None:
        return None
    try:
        t = float(value)
    except (TypeError, ValueError):
        t = math.nan
    if not (math.isfinite(t) and t > 0):
        raise UsageError(
            f"open_hub: stall_timeout must be None or finite seconds > 0, got {value!r}"
        )
    return t
