"""Run ONE party of a protocol over TCP: the engine of ``mpc-rr party``.

Each process builds its own role from ``(roster size, seed, params)`` with a
:class:`~mpc_rr.core.RegisteredProtocol` (the caller resolves the protocol name,
``mpc_rr.core._registry``), so the same command works on one host or many.
The hub (party 0) listens, runs its role, then keeps relaying until every
other party has connected and left again (bounded by ``linger`` seconds).
A start barrier (:meth:`~transports.tcp.TcpHub.start_all`) makes every party
begin only when all are connected, so slow process start-up does not eat
into the step deadlines; a party that never shows up is a dropout for the
protocol to handle.

Every ending produces a report (a JSON-able dict): ``ok``, ``cause`` (``ok``,
``aborted``, ``connection``, ``timeout``, ``terminated``), ``result``,
``error``, ``culprits`` (proven: its abort's, or the parties its completed run left out for
misbehaving), ``suspects`` (groups of which at least one cheated, the relay as ``"relay"``:
:class:`~mpc_rr.core.ProtocolAbort`), ``stats`` (messages / bytes / rounds / wall time) --
also when the hub is absent, dies mid-run, or refuses us, and with cause
``usage`` (exit 2) for a missing, mismatched or malformed key, certificate or
CA file (named) or bad protocol parameters -- ``run``, the run label every
message carried, and ``startup_s``,
the age of the process when it was ready to connect (the hub: listening),
and ``max_rss_bytes``, its peak resident memory; ``receipt``, when the role holds a
signed receipt of its result (SecAgg+'s ``Aggregate``: two that disagree prove the
aggregator equivocated), as JSON (bytes in base64).

Budgets (:mod:`transports.budgets`, on by default: :meth:`PartyBudget.default` for the
roster's size; ``budget=None`` turns them off): the hub cuts off a party over its message
or byte budget, and every party cuts off a sender whose messages caused it more errors than
the error budget.  ``budget`` in the report says which budget the run had; ``cut_off`` lists
every party cut off as this party knows it, ``{"party", "by", "why"}`` -- ``by`` this party
itself (it saw the errors or counted the frames: the party is also among its ``culprits``),
or ``"hub"`` (the hub's notice, which the others cannot check).
"""

from __future__ import annotations

import functools
import os
import signal
import socket
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import msgspec
import numpy as np
import trio

from mpc_rr.core import (
    COORDINATOR,
    DropAt,
    ProtocolAbort,
    RegisteredProtocol,
    Role,
    Transcript,
    UsageError,
)
from mpc_rr.core._errors import blame_json
from mpc_rr.core._messages import message_type
from parties.party import Party
from parties.process_stats import peak_rss_bytes
from transports.budgets import PartyBudget
from transports.errors import HandshakeDropped, TransportError
from transports.pki import Roster, client_context, server_context, signing_key, signing_keys
from transports.tap import WireCounter
from transports.tcp import TcpClient, connect_client, open_hub

__all__ = ["EXIT_CODES", "exit_code", "run_label", "run_node"]

EXIT_CODES = {"ok": 0, "aborted": 1, "cheated": 1, "connection": 1, "timeout": 1, "terminated": 1, "usage": 2}
"""Process exit status per cause (3 = internal error comes from the CLI)."""


def exit_code(report: Mapping[str, Any]) -> int:
    return EXIT_CODES.get(str(report.get("cause")), 3)


def _report(
    pid: int,
    spec: RegisteredProtocol,
    role: Role,
    party: Party | None,
    cause: str,
    error: str | None,
    extra: Mapping[str, Any],
) -> dict[str, Any]:
    err = party.stats.error if party is not None else None
    err = err or role.error
    ok = cause == "ok" and role.done and err is None
    if not ok and cause == "ok":
        cause = "aborted"
    # whom this party named: its abort's culprits, or those its completed run excluded for
    # misbehaving (SecAgg+'s aggregator leaves a cheating client out and goes on)
    named = err.culprits if isinstance(err, ProtocolAbort) else getattr(role, "culprits", ())
    culprits = [int(c) for c in named]
    cut = _cut_off(pid, party)
    culprits += [c["party"] for c in cut if c["by"] == pid and c["party"] not in culprits]
    if ok and pid != COORDINATOR and COORDINATOR in culprits:
        # it finished (RRBA goes on without a block whose tally failed), but it caught the party
        # every other one relies on cheating: not a clean run, whatever it kept (exit 1)
        ok, cause = False, "cheated"
        error = error or f"party {pid} named party {COORDINATOR} (the coordinator or aggregator) as a cheat"
    suspects = [blame_json(g) for g in err.suspects] if isinstance(err, ProtocolAbort) else []
    receipt = getattr(role, "receipt", None)
    if receipt is not None and bool(getattr(receipt, "signature", None)):  # its signer answers for it
        extra = {**extra, "receipt": msgspec.to_builtins(receipt)}
    return {
        "party": pid,
        "protocol": spec.name,
        "ok": ok,
        "cause": cause,
        "result": spec.result_to_json(role.result) if ok or cause == "cheated" else None,
        "error": error if error is not None else (None if err is None else str(err)),
        "culprits": culprits,
        "suspects": suspects,
        "stats": None if party is None else party.stats.to_json(),
        "cut_off": cut,
        **extra,
    }


def _party(role: Role, ep: Any, step_timeout: float | None, trace: Transcript | None,
           budget: PartyBudget | None) -> Party:  # fmt: skip
    """The Party over ``ep``, with its share of ``budget``: the errors and undecodable frames
    it counts itself."""
    return Party(role, ep, step_timeout=step_timeout, transcript=trace,
                 error_budget=None if budget is None else budget.errors,
                 garbage_budget=None if budget is None else budget.garbage)  # fmt: skip


def _cut_off(pid: int, party: Party | None) -> list[dict[str, Any]]:
    """The parties cut off for their budget, as ``pid`` knows it (module docstring)."""
    if party is None:
        return []
    ep = party.endpoint
    mine = dict(party.cut_off)
    told: dict[int, str] = {}
    if isinstance(ep, TcpClient):
        told = dict(ep.cut_off)  # the hub's notices
    else:  # the hub's endpoint: what it counted itself
        mine.update({p: w for p, w in ep.cut_off.items() if p not in mine})
    out = [{"party": int(p), "by": pid, "why": w} for p, w in sorted(mine.items())]
    return out + [{"party": int(p), "by": "hub", "why": w} for p, w in sorted(told.items()) if p not in mine]

def process_age() -> float | None:
    """Seconds since this process was started (Linux ``/proc``; ``None`` elsewhere).

    Reported as ``startup_s`` when the party is ready to connect (or, for the
    hub, listening): interpreter start, imports, role and TLS context.
    """
    try:
        stat = Path("/proc/self/stat").read_text()
        uptime = float(Path("/proc/uptime").read_text().split()[0])
        ticks = int(stat.rsplit(")", 1)[1].split()[19])  # field 22, starttime
        return max(0.0, uptime - ticks / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return None


def run_label(spec: RegisteredProtocol, seed: int, params: Mapping[str, Any], nonce: str) -> str:
    """The run label of a deployed run: the given ``run`` (default ``<protocol>-<seed>``)
    and the hub's nonce, ``base#nonce`` -- unique per run, so a message replayed from
    another run (same seed or not) carries another label and is rejected naming its sender.
    The nonce changes labels only: what a run computes depends on the base."""
    base = str(params.get("run", f"{spec.name}-{seed}"))
    return f"{base}#{nonce}" if nonce else base


def _build(
    spec: RegisteredProtocol, pid: int, n: int, seed: int, params: Mapping[str, Any], nonce: str,
    crash_before: str | None,
) -> Role:  # fmt: skip
    label = run_label(spec, seed, params, nonce)
    if pid == COORDINATOR and not getattr(spec, "coordinator", True):  # the all-to-all full mesh
        from parties.tcp_runner import IdleHub

        return IdleHub(tuple(spec.message_types()), run=label)  # the hub only relays
    role = spec.make_role(pid, n, seed, {**params, "run": label})
    return role if crash_before is None else _crashing(role, crash_before)


def _crashing(role: Role, type_name: str) -> Role:
    target = message_type(type_name)
    return DropAt(role, target, on_crash=lambda: os.kill(os.getpid(), signal.SIGKILL))


RETRY_FIRST = 0.05
"""Seconds a client waits before its second connection attempt; each later wait doubles."""
RETRY_CAP = 0.5
"""The longest wait between two connection attempts, in seconds (before jitter)."""


async def _connect_retrying(
    roster: Roster, pid: int, ctx: Any, tls: bool, within: float, extra: dict[str, Any],
    rng: np.random.Generator,
) -> TcpClient:  # fmt: skip
    """Connect, retrying for ``within`` seconds while the hub is not listening yet, starting
    up, or shedding handshakes under a flood of outsiders (:class:`HandshakeDropped`).
    Waits grow exponentially with jitter from ``rng``, so parties that were shed together
    do not all come back in the same instant; attempts are counted in ``extra``."""
    extra["startup_s"] = process_age()  # ready to connect
    deadline = trio.current_time() + within
    attempt = 0
    while True:
        attempt += 1
        extra["connect_attempts"] = attempt
        try:
            return await connect_client(roster, pid, tls=tls, ssl_context=ctx)
        except (OSError, trio.TooSlowError, HandshakeDropped) as exc:
            if trio.current_time() > deadline:
                if isinstance(exc, trio.TooSlowError):
                    raise TransportError(
                        f"party {pid}: no TLS handshake with the hub within {within} s"
                    ) from None
                raise
            wait = min(RETRY_CAP, RETRY_FIRST * 2 ** min(attempt - 1, 16))
            await trio.sleep(wait * float(rng.uniform(0.5, 1.0)))


async def _watch_signals(scope: trio.CancelScope, got: list[int]) -> None:
    with trio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
        async for signum in signals:
            got.append(signum)
            scope.cancel()
            return


def deployment_identities(roster: Roster, ids: Iterable[int], tls: bool, seed: int) -> dict[int, Callable[[], Any]]:
    """Loaders of parties ``ids``' signing identities in a deployment, sharing one roster:
    each party's certificate key and every party's certificate (TLS).  A plaintext
    deployment has no PKI: every process derives the same keys from the seed -- signatures
    then prove nothing, as plaintext itself does (for local tests only)."""
    from mpc_rr.secure_sum import Identity
    from mpc_rr.secure_sum import Roster as SigningRoster

    shared: dict[str, Any] = {}

    def load(pid: int) -> Identity:
        if tls:
            if "roster" not in shared:
                key, public = signing_keys(roster, pid)
                shared["roster"] = SigningRoster(public)
                return Identity(pid, key, shared["roster"])
            return Identity(pid, signing_key(roster, pid), shared["roster"])
        if "pki" not in shared:
            from mpc_rr.secure_sum import SeededEntropy, simulated_pki

            shared["pki"] = simulated_pki(sorted(roster.parties), SeededEntropy(seed, "plaintext-pki"))
        identity: Identity = shared["pki"][pid]
        return identity

    return {int(pid): functools.partial(load, int(pid)) for pid in ids}


def _install_identity(roster: Roster, pid: int, tls: bool, seed: int) -> None:
    """The party's signing identity for every role of this process, loaded when a role first
    signs (:func:`deployment_identities`)."""
    from mpc_rr.secure_sum._identity import install_identity

    install_identity(deployment_identities(roster, [pid], tls, seed)[pid], party_id=pid)


async def run_node(
    roster: Roster,
    pid: int,
    spec: RegisteredProtocol,
    *,
    seed: int = 0,
    params: Mapping[str, Any] | None = None,
    tls: bool = True,
    bind: str | None = None,
    port: int | None = None,
    port_file: Path | None = None,
    listen_fd: int | None = None,
    step_timeout: float | None = 30.0,
    timeout: float = 600.0,
    linger: float = 30.0,
    transcript: Path | None = None,
    handle_signals: bool = False,
    crash_before: str | None = None,
    run_nonce: str | None = None,
    relay_filter: Callable[[int, int, bytes], bytes | None] | None = None,
    budget: PartyBudget | str | None = "default",
    alongside: Callable[[TcpClient, dict[str, Any]], Any] | None = None,
) -> dict[str, Any]:
    """Run party ``pid`` of ``spec`` and return its report (see the module docstring).

    The hub listens on ``bind`` (default: its roster host) and ``port``
    (default: its roster port), or serves the listening socket ``listen_fd``
    inherited from its parent, and writes the bound port to ``port_file``.
    ``transcript``: write what this party sent to that file.  With
    ``handle_signals``, SIGTERM / SIGINT end the run with cause ``terminated``
    and a report.  ``crash_before`` (fault injection): the process kills itself
    with SIGKILL right before it would send a message of that type.  ``run_nonce`` (the
    hub): this run's nonce instead of a fresh random one (a runner that builds the other
    parties' roles before they connect chooses it).  ``relay_filter`` (the hub; a hostile
    hub in tests and demos): every frame it relays between two parties passes through it
    (:attr:`transports.tcp.TcpHub.relay_filter`).  ``budget``: every party's
    :class:`~transports.budgets.PartyBudget` (``"default"``: the default for the roster's
    size; ``None``: none).  ``alongside`` (a client; a hostile party in tests and demos):
    ``await alongside(endpoint, extra)`` runs next to the party's role from the start
    signal on; the party ends once both have (e.g. a flood of frames that stops on its own;
    it may note figures in ``extra``, the report's own fields).
    """
    t0 = time.perf_counter()
    if budget == "default":
        budget = PartyBudget.default(len(roster.parties))
    elif budget is not None and not isinstance(budget, PartyBudget):
        raise UsageError(f"run_node: budget must be a PartyBudget, None or 'default', got {budget!r}")
    extra: dict[str, Any] = {"budget": None if budget is None else budget.to_json()}
    params = dict(params or {})
    build = functools.partial(
        _build, spec, pid, len(roster.parties), int(seed), params, crash_before=crash_before
    )
    try:  # refused before any work, with a report naming the file or parameter
        ctx = (server_context(roster) if pid == roster.hub else client_context(roster, pid)) if tls else None
        role = build("")  # the parameters are checked here; the deployed role carries the nonce
    except UsageError as exc:
        return {"party": pid, "protocol": spec.name, "ok": False, "cause": "usage", "result": None,
                "error": str(exc), "culprits": [], "suspects": [], "stats": None}  # fmt: skip
    trace = Transcript(f"party {pid} (sent)", meta={"protocol": spec.name}) if transcript else None
    party: Party | None = None
    cause, error = "ok", None
    signals: list[int] = []
    with trio.CancelScope() as outer:
        async with trio.open_nursery() as watchers:
            if handle_signals:
                watchers.start_soon(_watch_signals, outer, signals)
            try:
                await trio.sleep(0)  # the signal watcher starts first: the import below takes a while
                _install_identity(roster, pid, tls, int(seed))
                if pid == roster.hub:
                    party, cause = await _run_hub(
                        roster, build, step_timeout, timeout, linger, bind, port, port_file, tls,
                        trace, extra, listen_fd, run_nonce, relay_filter, budget,
                    )  # fmt: skip
                else:
                    party, cause = await _run_client(
                        roster, pid, build, ctx, step_timeout, timeout, linger, tls, trace, extra,
                        np.random.default_rng([int(seed), pid]), budget, alongside,
                    )
                role = party.role
            except (OSError, TransportError) as exc:
                cause, error = "connection", f"party {pid}: {type(exc).__name__}: {exc}"
            watchers.cancel_scope.cancel()
    if signals:
        cause, error = "terminated", f"party {pid}: stopped by signal {signals[0]}"
    extra["process_wall_s"] = time.perf_counter() - t0
    extra["max_rss_bytes"] = peak_rss_bytes()
    if trace is not None and transcript is not None:
        trace.save(transcript)
    try:
        return _report(pid, spec, role, party, cause, error, extra)
    finally:  # a process that runs a party in-process more than once (tests) starts afresh
        from mpc_rr.secure_sum._identity import install_identity

        install_identity(None, party_id=pid)


async def _run_hub(
    roster: Roster,
    build: Any,
    step_timeout: float | None,
    timeout: float,
    linger: float,
    bind: str | None,
    port: int | None,
    port_file: Path | None,
    tls: bool,
    trace: Transcript | None,
    extra: dict[str, Any],
    listen_fd: int | None = None,
    run_nonce: str | None = None,
    relay_filter: Callable[[int, int, bytes], bytes | None] | None = None,
    budget: PartyBudget | None = None,
) -> tuple[Party, str]:
    cause = "ok"
    sock = None if listen_fd is None else socket.socket(fileno=listen_fd)
    wire = WireCounter()
    async with open_hub(
        roster, host=bind, port=port, tls=tls, sock=sock, tap=wire, run_nonce=run_nonce, budget=budget
    ) as hub:
        hub.relay_filter = relay_filter
        extra["startup_s"] = process_age()  # listening
        if port_file is not None:
            tmp = Path(str(port_file) + ".tmp")
            tmp.write_text(str(hub.port))
            os.replace(tmp, port_file)
        role = build(hub.run_nonce)
        extra["run"] = role.run
        party = _party(role, hub, step_timeout, trace, budget)
        with trio.move_on_after(timeout) as run_scope:
            try:  # everyone present before any step deadline starts
                await hub.start_all(timeout=linger)
            except TransportError as exc:  # the absent ones are dropouts for the protocol
                extra["start_error"] = str(exc)
            extra["wire_bytes_setup"] = wire.bytes
            await party.run()
        if run_scope.cancelled_caught and not role.done:
            cause = "timeout"
            waiting = sorted(role.waiting_for())
            party.stats.error = ProtocolAbort(
                f"party {role.party_id}: run timed out after {timeout} s; waiting for {waiting}",
                waiting,
            )
        try:  # keep relaying for the others until they are done and gone
            await hub.wait_disconnected(timeout=linger)
        except TransportError as exc:
            extra["linger_error"] = str(exc)
        extra["wire_bytes"] = wire.bytes  # what the hub wrote beneath TLS, set-up included
        extra["handshakes"] = hub.handshakes
        extra["refused"] = list(hub.refused)[:20]
        extra["outsiders"] = hub.admission.summary()
        extra["transport_errors"] = len(hub.peer_errors)
        extra["transport_error_samples"] = hub.peer_errors.summary()[:20]
        extra["refusing"] = {str(p): sorted(s) for p, s in sorted(hub.refusing.items())}
    return party, cause


async def _run_client(
    roster: Roster,
    pid: int,
    build: Any,
    ctx: Any,
    step_timeout: float | None,
    timeout: float,
    linger: float,
    tls: bool,
    trace: Transcript | None,
    extra: dict[str, Any],
    rng: np.random.Generator,
    budget: PartyBudget | None = None,
    alongside: Callable[[TcpClient, dict[str, Any]], Any] | None = None,
) -> tuple[Party, str]:
    cause = "ok"
    ep = await _connect_retrying(
        roster, pid, ctx, tls, within=min(linger, timeout), extra=extra, rng=rng
    )
    try:
        role = build(ep.run_nonce)
    except BaseException:
        await ep.aclose()
        raise
    extra["run"] = role.run
    party = _party(role, ep, step_timeout, trace, budget)
    try:
        with trio.move_on_after(timeout) as run_scope:
            with trio.move_on_after(linger):
                await ep.wait_start()
            async with trio.open_nursery() as beside:
                if alongside is not None:
                    beside.start_soon(alongside, ep, extra)
                await party.run()
        if run_scope.cancelled_caught and not role.done:
            cause = "timeout"
            waiting = sorted(role.waiting_for())
            party.stats.error = ProtocolAbort(
                f"party {pid}: run timed out after {timeout} s; waiting for {waiting}", waiting
            )
        elif party.connection_lost:
            cause = "connection"
    finally:
        await ep.aclose()
    return party, cause
