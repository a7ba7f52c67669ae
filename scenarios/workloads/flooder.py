"""An authenticated party that floods, in a real deployment (tests and demos).

Usage (every ``mpc-rr party`` flag applies)::

    python -m scenarios.workloads.flooder --roster keys/roster.json --id 3 --protocol secagg ...

It runs one party exactly as ``mpc-rr party`` would -- it plays its role honestly -- and,
from the start signal on, sends garbage frames (bytes no codec decodes) to every other
party in turn, hub included, as fast as the hub takes them: :data:`FLOOD_FRAMES` of them,
unless the hub cuts it off first.  Its report says how many it sent, under ``flood``.

:func:`flood_trial` deploys a protocol twice with one process per party over TCP + TLS --
quiet, then with party :data:`FLOODER` flooding -- and compares the honest parties' finish
times, the errors they recorded and whom they named.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mpc_rr.secure_sum import DEFAULT_SUM
from parties import party_main
from parties.cli_args import guarded

__all__ = ["FLOODER", "flood", "flood_trial", "main"]

FLOODER = 3
"""The flooding party's id in :func:`flood_trial`."""

FLOOD_FRAMES = 300_000
"""Garbage frames the flooder sends at most (then it stops, and its process ends)."""


async def flood(ep: Any, extra: dict[str, Any]) -> None:
    """Send :data:`FLOOD_FRAMES` garbage frames to every other party in turn, unless cut off first."""
    from transports.errors import EndpointClosed

    peers = sorted(p for p in ep.peers if p != ep.party_id)
    sent = 0
    extra["flood"] = {"frames": 0, "stopped": f"all {FLOOD_FRAMES} sent"}
    try:
        while sent < FLOOD_FRAMES:
            await ep.send(peers[sent % len(peers)], b"\xc1garbage" + sent.to_bytes(8, "little"))
            sent += 1
            extra["flood"]["frames"] = sent
    except EndpointClosed as exc:
        extra["flood"]["stopped"] = f"cut off: {exc}"


def flood_trial(
    protocol: str = DEFAULT_SUM, n: int = 8, *, params: Mapping[str, Any] | None = None,
    party_budget: str = "default", seed: int = 1, step_timeout: float = 20.0, timeout: float = 300.0,
    workdir: Path | None = None,
) -> dict[str, Any]:  # fmt: skip
    """A quiet deployment of ``protocol`` (``n`` processes, the hub included), then the same
    with party :data:`FLOODER` flooding (:func:`flood`); every party under ``party_budget``.

    Returns ``quiet_s`` / ``flooded_s`` (the slowest honest party's time in its role, from
    the start signal to its result), ``ratio``, the honest parties' ``errors`` (peer errors
    recorded in the flooded run, the hub's transport included), ``frames`` (what the flooder
    sent), ``named_by`` (honest parties whose report names it among ``cut_off``), ``ok``
    (every honest party finished with a result) and the honest reports' ``causes``."""
    import tempfile

    from parties.procs import run_processes

    given = dict(params or {"cells": 16, "max_dropout": 0.3})
    flooder = [sys.executable, "-m", "scenarios.workloads.flooder"]

    def run(entries: dict[int, list[str]], folder: Path) -> dict[int, dict[str, Any]]:
        folder.mkdir(parents=True, exist_ok=True)
        r = run_processes(protocol, n, seed=seed, params=given, workdir=folder, step_timeout=step_timeout,
                          timeout=timeout, linger=timeout, entries=entries, party_budget=party_budget)  # fmt: skip
        return r.reports

    def finish(reports: Mapping[int, Mapping[str, Any]]) -> float:
        return max(float((r.get("stats") or {}).get("wall_s", 0.0)) for i, r in reports.items() if i != FLOODER)

    with tempfile.TemporaryDirectory(prefix="mpc-rr-flood-") as tmp:
        w = Path(workdir) if workdir is not None else Path(tmp)
        t0 = time.perf_counter()
        # party FLOODER plays honestly in a fresh interpreter in both runs (as the flooder must):
        # the others are forked from a pre-imported one, and a fresh one is slower in its role
        quiet = run({FLOODER: ["-m", "parties.party_main"]}, w / "quiet")
        t1 = time.perf_counter()
        loud = run({FLOODER: flooder[1:]}, w / "flooded")
        t2 = time.perf_counter()
    honest = {i: r for i, r in loud.items() if i != FLOODER}
    errors = sum(int((r.get("stats") or {}).get("peer_errors", 0)) for r in honest.values())
    errors += sum(int(r.get("transport_errors", 0)) for r in honest.values())
    q, f = finish(quiet), finish(loud)
    return {
        "protocol": protocol, "parties": n, "party_budget": party_budget,
        "quiet_s": round(q, 3), "flooded_s": round(f, 3), "ratio": round(f / q, 3) if q else None,
        "quiet_wall_s": round(t1 - t0, 2), "flooded_wall_s": round(t2 - t1, 2),
        "frames": int((loud.get(FLOODER, {}).get("flood") or {}).get("frames", 0)),
        "flood_stopped": (loud.get(FLOODER, {}).get("flood") or {}).get("stopped"),
        "errors": errors,
        "named_by": sorted(i for i, r in honest.items() if any(c["party"] == FLOODER for c in r.get("cut_off", []))),
        "culprit_of": sorted(i for i, r in honest.items() if FLOODER in r.get("culprits", [])),
        "ok": all(r.get("ok") for r in honest.values()),
        "causes": {str(i): r.get("cause") for i, r in sorted(honest.items())},
    }  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    """``mpc-rr party``'s flags; the party floods alongside its role (module docstring)."""
    parser = argparse.ArgumentParser(prog="flooder", description=__doc__.split("\n\n")[0])
    party_main.add_arguments(parser)
    args = parser.parse_args(argv)
    return guarded("party", lambda: party_main.run(args, alongside=flood))


if __name__ == "__main__":
    sys.exit(main())
