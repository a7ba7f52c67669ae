"""Admission of WebSockets that have not said who they are: bounded per address and in all.

A classroom server is reachable by every device on the LAN.  A socket counts as
*unidentified* from its opening until the layer above calls
:meth:`~transports.websocket.WebConn.identify` (a student's hello was accepted; the
teacher's key was checked when it opened).  :class:`Unidentified` keeps at most
``per_address`` of them from one source address and ``max_pending`` in all; past a
bound one is closed (code 1013, "try again later"): the oldest of the new socket's own
address (per-address bound), or the oldest of the address holding the most (global
bound), so that a flood from one device evicts only its own sockets.  Each one also has
a hello deadline (:class:`~transports.websocket.WebServer`'s ``hello_timeout``).
Identified sockets -- students, bounded by the room's class size, and the teacher --
are never counted here.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from transports.websocket import WebConn

__all__ = ["DEFAULT_HELLO_TIMEOUT", "DEFAULT_PER_ADDRESS", "DEFAULT_UNIDENTIFIED", "Unidentified"]

DEFAULT_HELLO_TIMEOUT = 5.0
"""Seconds a socket may stay open without identifying itself."""
DEFAULT_PER_ADDRESS = 4
"""Unidentified sockets one source address may hold at once."""
DEFAULT_UNIDENTIFIED = 64
"""Unidentified sockets the server holds at once, from all addresses."""


class Unidentified:
    """The bounded set of unidentified sockets (module docstring)."""

    def __init__(self, max_pending: int = DEFAULT_UNIDENTIFIED, per_address: int = DEFAULT_PER_ADDRESS) -> None:
        self.max_pending = int(max_pending)
        self.per_address = max(1, min(int(per_address), self.max_pending)) if self.max_pending else 0
        self._by_address: dict[str, dict[WebConn, None]] = {}  # insertion-ordered: oldest first
        self.count = 0
        self.closed: Counter[str] = Counter()  # sockets closed here, by reason

    def admit(self, conn: WebConn) -> bool:
        """Count ``conn`` as unidentified, closing another one if a bound is reached; False
        (``conn`` refused) when the bounds are zero."""
        if self.max_pending <= 0:
            self.closed["no room"] += 1
            return False
        own = self._by_address.get(conn.address, {})
        if len(own) >= self.per_address:
            self._evict(next(iter(own)), "per-address limit")
        elif self.count >= self.max_pending:
            busiest = max(self._by_address.values(), key=len)
            self._evict(next(iter(busiest)), "unidentified limit")
        self._by_address.setdefault(conn.address, {})[conn] = None
        self.count += 1
        return True

    def _evict(self, victim: WebConn, why: str) -> None:
        self.closed[why] += 1
        self.release(victim)
        victim.close(1013, f"{why}: too many sockets that have not said hello")

    def release(self, conn: WebConn) -> None:
        """``conn`` identified itself or closed: it no longer counts."""
        own = self._by_address.get(conn.address)
        if own is not None and conn in own:
            del own[conn]
            self.count -= 1
            if not own:
                del self._by_address[conn.address]

    def held(self, address: str) -> int:
        """Unidentified sockets ``address`` holds now."""
        return len(self._by_address.get(address, {}))
