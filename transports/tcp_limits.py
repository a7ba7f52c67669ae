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

import trio

from mpc_rr.core import PeerError, UsageError
from transports.budgets import PartyBudget

__all__ = [
    "DEFAULT_FRAME_TIMEOUT",
    "DEFAULT_QUEUE_BYTES",
    "DEFAULT_STALL_TIMEOUT",
    "PartyBudgets",
    "count_limit",
    "stall_limit",
]

DEFAULT_QUEUE_BYTES = 32 << 20
"""Default bound of each hub queue (per destination, and the hub's inbox), in bytes."""
DEFAULT_STALL_TIMEOUT = 60.0
"""Default seconds a connected destination may accept nothing while a sender waits for room."""
DEFAULT_FRAME_TIMEOUT = 30.0
"""Default seconds an authenticated party has to complete a frame from its first byte (plus
:data:`~transports.framing.FRAME_MIN_RATE`'s allowance for the frame's declared size)."""


def count_limit(name: str, value: object) -> int:
    """``value`` as an int >= 1, else UsageError naming ``name``."""
    try:
        n = operator.index(value)  # type: ignore[call-overload]
    except TypeError:
        n = 0
    if isinstance(value, bool) or n < 1:
        raise UsageError(f"open_hub: {name} must be an int >= 1, got {value!r}")
    return n


def stall_limit(value: float | None, name: str = "stall_timeout") -> float | None:
    """``value`` as finite seconds > 0, or ``None`` (never), else UsageError naming ``name``."""
    if value is None:
        return None
    try:
        t = float(value)
    except (TypeError, ValueError):
        t = math.nan
    if not (math.isfinite(t) and t > 0):
        raise UsageError(
            f"open_hub: {name} must be None or finite seconds > 0, got {value!r}"
        )
    return t


class PartyBudgets:
    """What each authenticated party may hold in the hub, and send in all.

    ``party_bytes``: payload bytes one party may have queued in the hub at
    once (over all destinations); past it the hub stops reading that party
    (back-pressure) until some of its frames are written -- one flooder holds
    about ``party_bytes``, however many destinations it addresses.  If none
    of its frames leaves for ``patience`` seconds (its destinations stopped
    reading), it goes on to wait at the destination's queue, whose stall
    detection disconnects a destination that stopped reading (one frame per
    ``patience`` seconds passes meanwhile).
    ``budget`` (:class:`~transports.budgets.PartyBudget`, ``None`` = no limit):
    frames and payload bytes one party may send in the whole run; past either
    :meth:`admit` names it, and the hub disconnects it.
    """

    def __init__(
        self, party_bytes: int, budget: PartyBudget | None, hub: int, patience: float | None
    ) -> None:
        self.party_bytes = party_bytes
        self.patience = math.inf if patience is None else patience
        self.budget = budget
        self._max_messages = math.inf if budget is None or budget.messages is None else budget.messages
        self._max_bytes = math.inf if budget is None or budget.bytes is None else budget.bytes
        self._hub = hub
        self.held: dict[int, int] = {}  # payload bytes queued in the hub, per sending party
        self.sent: dict[int, int] = {}  # payload bytes received from each party this run
        self.frames: dict[int, int] = {}  # frames received from each party this run
        self._drained = trio.Event()

    def hold(self, src: int, payload: bytes) -> None:
        """A frame from ``src`` was queued in the hub."""
        if 0 <= src != self._hub:
            self.held[src] = self.held.get(src, 0) + len(payload)

    def release(self, item: tuple[int, bytes]) -> None:
        """A queued frame left the hub (written, or dropped with its queue)."""
        held = self.held.get(item[0])
        if held is not None:
            self.held[item[0]] = held - len(item[1])
            ev, self._drained = self._drained, trio.Event()
            ev.set()

    def over(self, pid: int, size: int) -> PeerError | None:
        """Count one frame of ``size`` payload bytes from ``pid``; the error naming it once it
        is over its budget of messages or bytes per run."""
        sent = self.sent[pid] = self.sent.get(pid, 0) + size
        frames = self.frames[pid] = self.frames.get(pid, 0) + 1
        if frames > self._max_messages:
            what = f"{frames} messages, over its budget of {self._max_messages} messages per run"
        elif sent > self._max_bytes:
            what = f"{sent} bytes, over its budget of {self._max_bytes} bytes per run"
        else:
            return None
        return PeerError(f"hub: party {pid} sent {what}; disconnected it", pid)

    async def admit(self, pid: int, size: int) -> PeerError | None:
        """Wait while ``pid`` holds ``party_bytes``; the error naming it once it is over its budget."""
        over = self.over(pid, size)
        if over is not None:
            return over
        while 0 < self.held.get(pid, 0) and self.held.get(pid, 0) + size > self.party_bytes:
            held = self.held[pid]
            with trio.move_on_after(self.patience) as waited:
                while self.held.get(pid, 0) >= held:  # until one of pid's frames leaves
                    await self._drained.wait()
            if waited.cancelled_caught:
                break
        return None
