"""Run ONE party of a named protocol over TCP: the engine of ``mpc-rr party``.

Each process builds its own role from ``(roster size, seed, params)`` through
the protocol registry (:mod:`parties.registry`), so the same command works
on one host or many.  The hub (party 0) listens, runs its role, then keeps
relaying until every other party has connected and left again (bounded by
``linger`` seconds).  A start barrier (:meth:`~transports.tcp.TcpHub.start_all`)
makes every party begin only when all are connected, so slow process
start-up does not eat into the per-step timeouts.  The outcome is a
JSON-able dict: ``ok``, ``result``, ``error``, ``stats`` (messages / bytes /
rounds / wall time) and optionally the transcript of payloads it sent (hex).
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import trio

from mpc_rr.errors import ProtocolAbort
from mpc_rr.roles import Role
from parties.party import Party
from parties.registry import get_protocol
from transports.errors import TransportError
from transports.pki import Roster
from transports.tcp import connect_client, open_hub

__all__ = ["run_node"]


def _report(
    pid: int, protocol: str, role: Role, party: Party, extra: Mapping[str, Any]
) -> dict[str, Any]:
    spec = get_protocol(protocol)
    err = party.stats.error or role.error
    ok = role.done and err is None
    out: dict[str, Any] = {
        "party": pid,
        "protocol": protocol,
        "ok": ok,
        "result": spec.result_to_json(role.result) if ok else None,
        "error": None if err is None else str(err),
        "stats": party.stats.to_json(),
        **extra,
    }
    if party.transcript is not None:
        out["transcript"] = [[s, d, data.hex()] for s, d, data in party.transcript]
    return out


async def _connect_retrying(roster: Roster, pid: int, tls: bool, within: float) -> Any:
    deadline = trio.current_time() + within
    while True:
        try:
            return await connect_client(roster, pid, tls=tls)
        except OSError:  # hub not listening yet
            if trio.current_time() > deadline:
                raise
            await trio.sleep(0.05)


async def run_node(
    roster: Roster,
    pid: int,
    protocol: str,
    *,
    seed: int = 0,
    params: Mapping[str, Any] | None = None,
    tls: bool = True,
    bind: str | None = None,
    port: int | None = None,
    port_file: Path | None = None,
    step_timeout: float | None = 30.0,
    timeout: float = 600.0,
    linger: float = 30.0,
    transcript: bool = False,
) -> dict[str, Any]:
    """Run party ``pid`` of ``protocol`` and return its JSON-able report.

    The hub listens on ``bind`` (default: its roster host) and ``port``
    (default: its roster port) and writes the bound port to ``port_file``.
    """
    params = dict(params or {})
    spec = get_protocol(protocol)
    role = spec.make_role(pid, len(roster.parties), int(seed), params)
    t0 = time.perf_counter()
    extra: dict[str, Any] = {}
    if pid == roster.hub:
        async with open_hub(roster, host=bind, port=port, tls=tls) as hub:
            if port_file is not None:
                tmp = Path(str(port_file) + ".tmp")
                tmp.write_text(str(hub.port))
                os.replace(tmp, port_file)
            party = Party(role, hub, step_timeout=step_timeout, transcript=transcript)
            with trio.move_on_after(timeout):
                try:  # everyone present before any step timer starts
                    await hub.start_all(timeout=linger)
                except TransportError as exc:
                    extra["start_error"] = str(exc)
                await party.run()
            if not role.done and party.stats.error is None:
                party.stats.error = ProtocolAbort(f"party {pid}: run timed out after {timeout} s")
            try:  # keep relaying for the others until they are done and gone
                await hub.wait_connected(timeout=linger)
                await hub.wait_disconnected(timeout=linger)
            except TransportError as exc:
                extra["linger_error"] = str(exc)
            extra["handshakes"] = hub.handshakes
            extra["refused"] = list(hub.refused)
            extra["transport_errors"] = [str(e) for e in hub.peer_errors]
    else:
        ep = await _connect_retrying(roster, pid, tls, within=min(linger, timeout))
        party = Party(role, ep, step_timeout=step_timeout, transcript=transcript)
        try:
            with trio.move_on_after(timeout):
                with trio.move_on_after(linger):
                    await ep.wait_start()
                await party.run()
            if not role.done and party.stats.error is None:
                party.stats.error = ProtocolAbort(f"party {pid}: run timed out after {timeout} s")
        finally:
            await ep.aclose()
    extra["process_wall_s"] = time.perf_counter() - t0
    return _report(pid, protocol, role, party, extra)
