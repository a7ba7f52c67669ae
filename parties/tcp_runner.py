"""Run roles as Party actors over real TCP (+TLS) sockets, all in this process.

Every non-hub party opens its own connection (and TLS handshake) to the hub
on loopback.  :class:`TcpRunner` is the :class:`~mpc_rr.core.Runner`; when the
roles have no party 0 (the all-to-all full mesh) an idle hub role relays.
For separate OS processes see :mod:`parties.procs`.
"""

from __future__ import annotations

import contextlib
import enum
import functools
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import trio

from mpc_rr.core import COORDINATOR, Message, Role, RunResult, Send, UsageError
from mpc_rr.core._messages import DEFAULT_MAX_FRAME
from mpc_rr.core._runs import RolePlan, roles_of
from parties.party import Party
from parties.runner import StepTimeout, run_parties, sent_transcript, timeout_for
from transports.base import Endpoint
from transports.delay import DelayedEndpoint
from transports.errors import TransportError
from transports.limits import ensure_fd_limit
from transports.memory import DEFAULT_BUFFER
from transports.pki import Roster, client_context, generate_deployment
from transports.tap import Tap, WireCounter
from transports.tcp import connect_client, open_hub

__all__ = ["IdleHub", "TcpRunner", "run_tcp", "run_tcp_sync"]

_FD_HEADROOM = 64  # listening sockets, key files, logging, trio's own descriptors


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
    connect_wait: float = 120.0,
    delay: float = 0.0,
) -> RunResult:
    """Run ``roles`` over TCP on 127.0.0.1 (hub = party ``roster.hub``, port chosen by the OS).

    ``roster`` defaults to a fresh deployment in a temporary directory with
    ids ``0..len(roles)-1``.  ``connect_limit`` bounds concurrent handshakes;
    ``connect_wait``: seconds a remote hub may take to signal the start.
    ``delay``: seconds every payload is held before it is sent (an emulated
    one-way network delay per message, :class:`~transports.delay.DelayedEndpoint`).
    ``costs.extra`` holds ``handshakes``, ``handshake_s`` (time to connect
    every party), ``tls``, ``wire_bytes`` (every byte written to the sockets,
    beneath TLS, hop by hop: a message between two non-hub parties crosses two
    hops) and ``wire_bytes_setup`` (those written while connecting: TLS
    handshakes and the hello/welcome frames); the payload bytes are
    ``costs.bytes``.  Wire bytes come from ``tap`` when one is given (its
    events), else from a counter.

    **Hub elsewhere.** When ``roster`` is given and ``roles`` hold every
    party but the hub, the hub is another process already serving the
    roster's hub address (e.g. ``mpc-rr party --id 0``; see
    :func:`parties.procs.run_with_hub_process`): the parties connect to it,
    wait for its start signal and run; this process then holds one socket per
    party instead of two (10,000 TLS parties under an open-file limit of
    20,000).

    Raises :class:`UsageError` before any work if the process may not open
    enough files for all the sockets (see
    :func:`transports.limits.ensure_fd_limit`); errors while connecting or
    running propagate with their cause.
    """
    ids = sorted(roles)
    trace = sent_transcript() if transcript else None
    wire: Tap = tap if tap is not None else WireCounter()
    hub_here = roster is None or roster.hub in roles
    clients = len(ids) - 1 if hub_here else len(ids)
    # every non-hub party holds its socket here, and the hub's end too when the hub is here
    ensure_fd_limit(
        (2 if hub_here else 1) * max(clients, 0) + _FD_HEADROOM,
        f"run_tcp with {clients} parties{' and their hub' if hub_here else ''} in one process",
        alternative=(
            "run the hub in its own process, one socket per party here instead of two "
            "(parties.procs.run_with_hub_process; `mpc-rr ping --hub-process`)"
            if hub_here
            else "run fewer parties per process"
        ),
    )
    with tempfile.TemporaryDirectory(prefix="mpc-rr-keys-") as tmp:
        if roster is None:
            if ids != list(range(len(ids))):
                raise UsageError("run_tcp: without a roster, party ids must be 0..n-1")
            roster = generate_deployment(len(ids), Path(tmp), hub_port=0)
        if set(ids) | ({roster.hub} if not hub_here else set()) != set(roster.ids):
            raise UsageError(
                "run_tcp: roles and roster list different parties (give every party, "
                "or every party but the hub when the hub runs elsewhere)"
            )
        if hub_here:
            hub_cm: Any = open_hub(
                roster, host="127.0.0.1", port=0, tls=tls, buffer=buffer, tap=wire, max_frame=max_frame
            )
        else:
            if roster.parties[roster.hub].port == 0:
                raise UsageError("run_tcp: the hub runs elsewhere, but the roster gives it no port")
            hub_cm = contextlib.nullcontext()
        async with hub_cm as hub:
            r = roster.with_hub_address("127.0.0.1", hub.port) if hub_here else roster
            eps: dict[int, Endpoint] = {r.hub: hub} if hub_here else {}
            limiter = trio.CapacityLimiter(connect_limit)

            async def conn(i: int) -> None:
                async with limiter:
                    ctx = client_context(r, i) if tls else None
                    eps[i] = await connect_client(
                        r, i, tls=tls, tap=wire, max_frame=max_frame, ssl_context=ctx
                    )

            try:  # close every client that connected, also when connecting failed
                t0 = time.perf_counter()
                async with trio.open_nursery() as nursery:
                    for i in ids:
                        if i != r.hub:
                            nursery.start_soon(conn, i)
                handshake_s = time.perf_counter() - t0
                if not hub_here:  # the remote hub signals once every party is connected
                    with trio.move_on_after(connect_wait) as waited:
                        async with trio.open_nursery() as nursery:
                            for ep in eps.values():
                                nursery.start_soon(ep.wait_start)  # type: ignore[attr-defined]
                    if waited.cancelled_caught:
                        e = r.parties[r.hub]
                        raise TransportError(
                            f"run_tcp: the hub at {e.host}:{e.port} did not signal the start "
                            f"within {connect_wait} s of {clients} parties connecting"
                        )
                setup_bytes = wire.total_bytes
                lines = {pid: DelayedEndpoint(ep, delay) for pid, ep in eps.items()} if delay else {}
                parties = {
                    pid: Party(
                        role,
                        lines.get(pid, eps[pid]),
                        step_timeout=timeout_for(step_timeout, pid),
                        transcript=trace,
                        max_frame=max_frame,
                    )
                    for pid, role in roles.items()
                }
                async with trio.open_nursery() as nursery:
                    for line in lines.values():
                        nursery.start_soon(line.run)
                    result = await run_parties(parties, timeout=timeout, transport="tcp", transcript=trace)
                    nursery.cancel_scope.cancel()
                result.costs.extra["handshake_s"] = handshake_s
                result.costs.extra["handshakes"] = clients
                result.costs.extra["tls"] = tls
                result.costs.extra["wire_bytes"] = wire.total_bytes
                result.costs.extra["wire_bytes_setup"] = setup_bytes
            finally:
                for pid, ep in eps.items():
                    if pid != r.hub:
                        await ep.aclose()
    return result


def run_tcp_sync(roles: Mapping[int, Role], **kwargs: Any) -> RunResult:
    """``trio.run(run_tcp(roles, **kwargs))``."""
    return trio.run(functools.partial(run_tcp, roles, **kwargs))


class _IdleState(enum.Enum):
    DONE = "done"
    ABORTED = "aborted"


class IdleHub(Role):
    """Party 0 when the protocol has no role for it: the TCP hub only relays frames."""

    def __init__(self, message_types: tuple[type[Message], ...], run: str = "") -> None:
        super().__init__(COORDINATOR, _IdleState.DONE)
        self.message_types = message_types
        self.run = run

    def start(self) -> list[Send]:
        return []


class TcpRunner:
    """Party actors over TCP + mutual TLS on 127.0.0.1 in one process (real time).

    Options are :func:`run_tcp`'s.
    """

    name = "tcp"

    def __init__(self, *, step_timeout: StepTimeout = 30.0, **options: Any) -> None:
        self.options: dict[str, Any] = dict(step_timeout=step_timeout, **options)

    def __call__(self, roles: Mapping[int, Role] | RolePlan) -> RunResult:
        built = roles_of(roles)
        if COORDINATOR not in built:  # e.g. the all-to-all full mesh: the hub relays only
            types = next(iter(built.values())).message_types
            built = {COORDINATOR: IdleHub(types), **built}
        return run_tcp_sync(built, **self.options)
