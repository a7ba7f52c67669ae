"""Listening as the TCP transport's hub: :func:`open_hub` serves a :class:`~transports.tcp_hub.TcpHub`."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import trio

from mpc_rr.core._messages import DEFAULT_MAX_FRAME
from transports.memory import DEFAULT_BUFFER
from transports.pki import Roster
from transports.tap import Tap
from transports.tcp_admission import DEFAULT_HANDSHAKE_TIMEOUT
from transports.tcp_hub import TcpHub
from transports.tcp_limits import DEFAULT_QUEUE_BYTES, DEFAULT_STALL_TIMEOUT

__all__ = ["open_hub"]


@asynccontextmanager
async def open_hub(
    roster: Roster,
    *,
    host: str | None = None,
    port: int | None = None,
    tls: bool = True,
    max_frame: int = DEFAULT_MAX_FRAME,
    buffer: int = DEFAULT_BUFFER,
    queue_bytes: int = DEFAULT_QUEUE_BYTES,
    stall_timeout: float | None = DEFAULT_STALL_TIMEOUT,
    tap: Tap | None = None,
    handshake_timeout: float = DEFAULT_HANDSHAKE_TIMEOUT,
    sock: socket.socket | None = None,
    **limits: Any,
) -> AsyncIterator[TcpHub]:
    """Listen as the hub; ``host``/``port`` default to the roster entry (port 0 = any).

    ``sock``: an already bound and listening TCP socket to serve instead (e.g.
    inherited from a parent that started every party at once; ``host`` and
    ``port`` are then ignored).  The hub takes ownership and closes it.

    ``buffer`` (frames) and ``queue_bytes`` (bytes) bound each of the hub's
    queues -- one per destination and its own inbox; an empty queue always
    admits one frame.  ``stall_timeout`` (seconds, ``None`` = never): a
    connected party that accepts nothing for that long while a sender waits
    to queue a frame for it is recorded in ``hub.peer_errors`` and
    disconnected.

    ``limits`` (:class:`TcpHub`'s keywords): outsiders (connections not yet
    authenticated): at most ``max_pending`` handshakes at once and ``per_source``
    per source address, each within ``handshake_timeout`` seconds; past a bound
    one is closed, a silent one of the busiest source first (:mod:`transports.tcp_admission`).
    Authenticated parties: a party that does not complete a frame within
    ``frame_timeout`` seconds of its first byte (plus an allowance for its length,
    :data:`~transports.framing.FRAME_MIN_RATE`) is disconnected and named; a party
    holding ``party_bytes`` (default ``2 * queue_bytes``) in the hub's queues is
    throttled; one over its ``budget`` (a :class:`~transports.budgets.PartyBudget`;
    default :meth:`PartyBudget.default` for the roster's size, ``None``: no budget)
    is cut off (:meth:`TcpHub.cut`).

    Leaving the block closes the hub and every connection.  An exception
    raised in the block propagates unchanged (with its cause).  Raises
    :class:`UsageError` for invalid parameters and ``OSError`` if the
    address cannot be listened on.
    """
    entry = roster.parties[roster.hub]
    hub = TcpHub(
        roster,
        tls=tls,
        max_frame=max_frame,
        buffer=buffer,
        queue_bytes=queue_bytes,
        stall_timeout=stall_timeout,
        tap=tap,
        handshake_timeout=handshake_timeout,
        **limits,
    )
    if sock is not None:
        listeners = [trio.SocketListener(trio.socket.from_stdlib_socket(sock))]
    else:
        listeners = await trio.open_tcp_listeners(
            entry.port if port is None else port, host=entry.host if host is None else host
        )
    # The body's exception is kept out of the nursery: a strict nursery would
    # wrap it in an ExceptionGroup, and awaiting inside the cancelled nursery
    # would replace it with Cancelled.  It is re-raised, unchanged, once the
    # hub's tasks have stopped.
    body_error: BaseException | None = None
    try:
        async with trio.open_nursery() as nursery:
            await nursery.start(hub._serve, listeners)
            try:
                yield hub
            except BaseException as exc:
                body_error = exc
            finally:
                hub.close()
    finally:
        for listener in listeners:
            listener.socket.close()
    if body_error is not None:
        raise body_error

