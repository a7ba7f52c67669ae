"""Run roles as Party actors over real TCP (+TLS) sockets, all in this process.

Every non-hub party opens its own connection (and TLS handshake) to the hub
on loopback.  :class:`TcpRunner` is the :class:`~mpc_rr.runs.Runner`; when the
roles have no party 0 (the all-to-all full mesh) an idle hub role relays.
For separate OS processes see :mod:`parties.procs`.
"""

from __future__ import annotations

import enum
import functools
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import trio

from mpc_rr.errors import UsageError
from mpc_rr.messages import DEFAULT_MAX_FRAME, Message
from mpc_rr.roles import COORDINATOR, Role, Send
from mpc_rr.runs import RunResult
from parties.party import Party
from parties.runner import StepTimeout, run_parties, sent_transcript, timeout_for
from transports.base import Endpoint
from transports.memory import DEFAULT_BUFFER
from transports.pki import Roster, client_context, generate_deployment
from transports.tap import Tap
from transports.tcp import connect_client, open_hub

__all__ = ["TcpRunner", "run_tcp", "run_tcp_sync"]


async def run_tcp(
    roles: Mapping[int, Role],
    *,
    roster: Roster | None = None,
    tls: bool = True,
    tap: Tap | None = None,
    buffer: int = DEFAULT_BUFFER,
    max_frame: int = DEFAULT_MAX_FRAME,
    step_timeout: StepTimeout = None,
    timeout: float | None = None,
    transcript: bool = False,
    connect_limit: int = 64,
) -> RunResult:
    """Run ``roles`` over TCP on 127.0.0.1 (hub = party ``roster.hub``, port chosen by the OS).

    ``roster`` defaults to a fresh deployment in a temporary directory with
    ids ``0..len(roles)-1``.  ``connect_limit`` bounds concurrent handshakes.
    ``costs.extra`` holds ``handshakes`` and ``handshake_s`` (time to connect
    every party).
    """
    ids = sorted(roles)
    trace = sent_transcript() if transcript else None
    with tempfile.TemporaryDirectory(prefix="mpc-rr-keys-") as tmp:
        if roster is None:
            if ids != list(range(len(ids))):
                raise UsageError("run_tcp: without a roster, party ids must be 0..n-1")
            roster = generate_deployment(len(ids), Path(tmp), hub_port=0)
        if set(ids) != set(roster.ids):
            raise UsageError("run_tcp: roles and roster list different parties")
        async with open_hub(
            roster, host="127.0.0.1", port=0, tls=tls, buffer=buffer, tap=tap, max_frame=max_frame
        ) as hub:
            r = roster.with_hub_address("127.0.0.1", hub.port)
            eps: dict[int, Endpoint] = {r.hub: hub}
            limiter = trio.CapacityLimiter(connect_limit)

            async def conn(i: int) -> None:
                async with limiter:
                    ctx = client_context(r, i) if tls else None
                    eps[i] = await connect_client(
                        r, i, tls=tls, tap=tap, max_frame=max_frame, ssl_context=ctx
                    )

            t0 = time.perf_counter()
            try:
                async with trio.open_nursery() as nursery:
                    for i in ids:
                        if i != r.hub:
                            nursery.start_soon(conn, i)
                handshake_s = time.perf_counter() - t0
                parties = {
                    pid: Party(
                        role,
                        eps[pid],
                        step_timeout=timeout_for(step_timeout, pid),
                        transcript=trace,
                        max_frame=max_frame,
                    )
                    for pid, role in roles.items()
                }
                result = await run_parties(parties, timeout=timeout, transport="tcp", transcript=trace)
            finally:
                for pid, ep in eps.items():
                    if pid != r.hub:
                        await ep.aclose()
    result.costs.extra["handshake_s"] = handshake_s
    result.costs.extra["handshakes"] = len(ids) - 1
    return result


def run_tcp_sync(roles: Mapping[int, Role], **kwargs: Any) -> RunResult:
    """``trio.run(run_tcp(roles, **kwargs))``."""
    return trio.run(functools.partial(run_tcp, roles, **kwargs))


class _IdleState(enum.Enum):
    DONE = "done"
    ABORTED = "aborted"


class _IdleHub(Role):
    """Party 0 when the protocol has no role for it: the TCP hub only relays frames."""

    def __init__(self, message_types: tuple[type[Message], ...]) -> None:
        super().__init__(COORDINATOR, _IdleState.DONE)
        self.message_types = message_types

    def start(self) -> list[Send]:
        return []


class TcpRunner:
    """Party actors over TCP + mutual TLS on 127.0.0.1 in one process (real time).

    Options are :func:`run_tcp`'s.
    """

    name = "tcp"

    def __init__(self, *, step_timeout: StepTimeout = 30.0, **options: Any) -> None:
        self.options: dict[str, Any] = dict(step_timeout=step_timeout, **options)

    def __call__(self, roles: Mapping[int, Role]) -> RunResult:
        if COORDINATOR not in roles:  # e.g. the all-to-all full mesh: the hub relays only
            types = next(iter(roles.values())).message_types
            roles = {COORDINATOR: _IdleHub(types), **roles}
        return run_tcp_sync(roles, **self.options)
