"""TCP transport through a hub, mutually authenticated with TLS 1.3 by default.

Topology: party 0 (the hub / coordinator) listens; every other party opens
exactly one connection to it.  A frame from party ``i`` addressed to ``j``
is relayed by the hub, so ``n`` parties need ``n - 1`` connections instead of
a full mesh of ``n (n - 1) / 2`` (MPyC's full mesh runs out of ports near 180
parties).  The hub is also a party: frames addressed to 0 are delivered to its
own :meth:`TcpHub.receive`.  Relaying preserves per-link order (one reader per
connection, one writer per destination).

Authentication (``tls=True``, the default): the TLS handshake verifies the
peer certificate against the deployment CA (:mod:`transports.pki`); then the
client sends a hello naming its party id and the hub checks that the
certificate's fingerprint is in the roster *for that id* and that the
certificate's CN says the same id.  Anything else is refused, logged on the
``transports.tcp`` logger and recorded in ``hub.peer_errors`` / ``hub.refused``.
The client checks the hub's certificate fingerprint against the roster.
``tls=False`` (explicit, for classroom traces) trusts the hello.

Memory and misbehaving parties: the hub's queues (one outbox per destination
and its own inbox, :class:`~transports.queues.ByteQueue`) are bounded in
bytes (``queue_bytes``) and frames (``buffer``).  A party sending to a full
queue is throttled: the hub stops reading its connection, so TCP
back-pressure reaches it.  A connected destination that accepts nothing for
``stall_timeout`` seconds while a sender waits for room is named in
``hub.peer_errors`` and disconnected, so one party that stops reading cannot
hold the hub's memory or stall everyone who talks to it.  Error records are
bounded (:class:`~mpc_rr.core.ErrorLog`).

Taps sit beneath TLS (a :class:`~transports.framing.TappedStream` wraps the
raw socket stream), so they record ciphertext; hops are labelled
``(i, 0)`` / ``(0, i)``; hub-side bytes sent before the peer is
authenticated are labelled with ``dst = -1``.

This module is the transport's API; the code is in

* :mod:`transports.tcp_hub` -- :class:`TcpHub` (connections, relaying, the hub's
  queues, evictions and budgets); :mod:`transports.tcp_serve` -- :func:`open_hub`;
* :mod:`transports.tcp_client` -- :class:`TcpClient` and :func:`connect_client`;
* :mod:`transports.tcp_handshake` -- TLS, hello / welcome and the roster
  checks of both sides, :class:`RefusalLog`;
* :mod:`transports.tcp_limits` -- the hub's memory limits (defaults, checks);
* :mod:`transports.framing` -- frames on the byte stream, the tapped stream.
"""

from __future__ import annotations

from transports.tcp_client import TcpClient, connect_client
from transports.tcp_handshake import RefusalLog
from transports.tcp_handshake import log as log  # the "transports.tcp" logger, as before the split
from transports.tcp_hub import TcpHub
from transports.tcp_limits import DEFAULT_QUEUE_BYTES, DEFAULT_STALL_TIMEOUT
from transports.tcp_serve import open_hub

__all__ = [
    "DEFAULT_QUEUE_BYTES",
    "DEFAULT_STALL_TIMEOUT",
    "RefusalLog",
    "TcpClient",
    "TcpHub",
    "connect_client",
    "open_hub",
]
