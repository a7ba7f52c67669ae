"""A hostile process in a real deployment: a cheating hub or party over TCP + TLS (tests and demos).

Usage (every ``mpc-rr party`` flag applies)::

    python -m scenarios.workloads.hostile_hub --strategy key-substitution \
        --roster keys/roster.json --id 0 --protocol secagg --port 0 --port-file hub.port
    python -m scenarios.workloads.hostile_hub --strategy bad-shares --roster keys/live.json --id 3 ...

It runs one party exactly as ``mpc-rr party`` would, except that every SecAgg+
role it builds is the cheater's (:func:`scenarios.workloads.hostile_roles.hostile_secagg`):
party 0 plays a server strategy (``--id`` the hub), a data party a client
strategy -- for ``--protocol secagg`` alone, and through the pipeline's
secure-sum dependence and RRBA's secure tally, which run SecAgg+.  The other
parties are ordinary ``mpc-rr party`` processes.  It prints its party report,
then one last JSON line ``{"strategy", "side", "party", "learned"}``
(``learned``: honest inputs it recovered exactly), also under ``cheat`` in its
``--out`` report.

``--strategy none --record FILE``: play honestly and save the signed keys the
hub received, for a later ``--strategy replay --replay FILE`` (an earlier
deployment's keys replayed into this one).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mpc_rr.adversary.active import CLIENT_STRATEGIES, SERVER_STRATEGIES
from mpc_rr.core import UsageError, register_protocol
from mpc_rr.pipeline import PIPELINE
from mpc_rr.rrba import RRBA
from mpc_rr.secure_sum.full_mesh import BOARD_SPEC as BOARD
from mpc_rr.secure_sum.full_mesh import SPEC as MESH
from mpc_rr.secure_sum.secagg import SPEC as SECAGG
from mpc_rr.secure_sum.secagg._messages import PROTOCOL as SIGNED_AS
from parties import party_main
from parties.cli_args import guarded
from scenarios.workloads.hostile_roles import (
    hostile_mesh,
    hostile_secagg,
    load_recorded,
    save_recorded,
)
from transports.pki import Roster

__all__ = ["DEPLOYED_PROTOCOLS", "DeployedCheat", "cheat_params", "deploy_cheat", "main"]

DEPLOYED_PROTOCOLS = (SECAGG.name, PIPELINE.name, RRBA.name, MESH.name, BOARD.name)
"""Protocols a hostile process plays: SecAgg+ (alone, the pipeline's dependence sum, RRBA's
tallies) and the full mesh (its relaying hub; in board mode, the board's process)."""

MESH_PROTOCOLS = (MESH.name, BOARD.name)
MESH_RELAYS = ("key-substitution", "forge-shares", "withhold-shares", "different-aggregates")
"""What a hostile full-mesh hub plays (:func:`mpc_rr.adversary.active.mesh_relay`)."""

CHEATER = 3
"""The cheating party's id in client strategies (as :func:`mpc_rr.adversary.active.cheat`'s)."""


def cheat_params(protocol: str, strategy: str) -> tuple[int, dict[str, Any]]:
    """``(n, params)`` of a deployment in which ``strategy`` is worth playing, small enough for
    one process per party: SecAgg+'s options as :func:`mpc_rr.adversary.active.cheat` chooses them
    (a sparse graph to isolate in; a dropout bound that covers the withheld senders or the
    excluded client, so the run can go on without it; t below the degree so a client's
    bad shares can be left out), at the smallest n that has them."""
    opts: dict[str, Any] = {}
    n = 6
    if strategy == "isolate":
        n, opts = 10, {"degree": 4, "threshold": 3, "max_dropout": 0.25, "max_corrupt": 0.05}
    elif strategy == "withhold-shares":
        opts = {"max_dropout": 0.25}
    elif strategy in CLIENT_STRATEGIES:
        n, opts = 5, {"threshold": 3, "max_dropout": 0.25}
    if protocol == SECAGG.name:
        return n, {"cells": 4, **opts}
    if protocol == PIPELINE.name:
        return n, {"dependence": "secure-sum", "sum_options": opts}
    if protocol in MESH_PROTOCOLS:
        if strategy not in MESH_RELAYS:
            raise UsageError(f"deploy_cheat: a hostile {protocol} hub plays {', '.join(MESH_RELAYS)}, not {strategy}")
        return 5, {"cells": 4}
    if protocol == RRBA.name:
        return n, {"schema": "survey", "block": n, "p": 0.5, "secure_tally": True, "sum_options": opts}
    raise UsageError(f"deploy_cheat: protocol {protocol!r}; a hostile process plays {', '.join(DEPLOYED_PROTOCOLS)}")


@dataclass
class DeployedCheat:
    """One deployment with a hostile process: every party's JSON report and exit code."""

    protocol: str
    strategy: str
    side: str
    cheater: int
    reports: dict[int, dict[str, Any]]
    exit_codes: dict[int, int | None]
    wall_s: float
    receipts: int = 0
    """Distinct totals among the honest parties' receipts that verify as the hub's signature:
    two or more prove that it told them different aggregates (anyone holding both checks
    them against the roster's certificates)."""

    @property
    def honest(self) -> dict[int, dict[str, Any]]:
        """The honest parties' reports (every id but the cheater's), each with its ``exit``."""
        return {i: r | {"exit": self.exit_codes.get(i)} for i, r in self.reports.items() if i != self.cheater}

    @property
    def learned(self) -> int:
        return int(self.reports.get(self.cheater, {}).get("cheat", {}).get("learned", 0))

    @property
    def token(self) -> int | str:
        """How an honest report names the cheater: its id, or ``"relay"`` for the all-to-all hub
        (no party of the run: a receiver suspects "the sender or the relay")."""
        return "relay" if self.protocol == MESH.name else self.cheater

    def as_json(self) -> dict[str, Any]:
        named = {c for r in self.honest.values() for c in r["culprits"]}
        if self.receipts > 1:  # two receipts the hub signed for different totals
            named.add(0)
        suspects = sorted({tuple(g) for r in self.honest.values() for g in r.get("suspects", [])}, key=str)
        suspected = any(self.token in g for g in suspects)
        return {
            "protocol": self.protocol, "strategy": self.strategy, "side": self.side, "transport": "tcp+tls",
            "cheater": self.cheater, "detected": self.cheater in named or suspected, "culprits": sorted(named),
            "suspects": [list(g) for g in suspects],
            "honest_blamed": sorted(named - {self.cheater}),
            "named_by": sorted(i for i, r in self.honest.items() if self.cheater in r["culprits"]),
            "exit_codes": {str(i): c for i, c in sorted(self.exit_codes.items())},
            "inputs_recovered": self.learned, "signed_totals": self.receipts, "wall_s": round(self.wall_s, 2),
        }  # fmt: skip


def deploy_cheat(
    protocol: str, strategy: str, *, n: int | None = None, params: Mapping[str, Any] | None = None,
    seed: int = 1, step_timeout: float = 3.0, timeout: float = 120.0, workdir: Path | None = None,
) -> DeployedCheat:  # fmt: skip
    """Deploy ``protocol`` with one process per party over TCP + mutual TLS, the hub
    (server strategies) or party :data:`CHEATER` (client strategies) being this module's
    hostile process, every other an ordinary ``mpc-rr party``; defaults from
    :func:`cheat_params`.  ``replay`` first runs an honest deployment of the same roster
    whose hub records the signed keys, then replays them into a second one."""
    from mpc_rr.adversary.active import cheat_strategies
    from parties.procs import run_processes
    from transports.pki import generate_deployment

    sides = cheat_strategies()
    if strategy not in sides:
        raise UsageError(f"deploy_cheat: unknown strategy {strategy!r}; the strategies are: {', '.join(sides)}")
    n0, p0 = cheat_params(protocol, strategy)
    n = n0 if n is None else n
    given = dict(p0 if params is None else params)
    cheater = 0 if sides[strategy] == "server" else CHEATER
    with contextlib.ExitStack() as stack:
        w = Path(workdir) if workdir is not None else Path(stack.enter_context(tempfile.TemporaryDirectory()))
        if protocol == "pipeline" and "coordinator_key" not in given:
            from mpc_rr.pipeline import new_coordinator_key

            given |= {"coordinator_key": new_coordinator_key(w / "coord.key"), "signing_key": str(w / "coord.key")}
        hostile = [sys.executable, "-m", "scenarios.workloads.hostile_hub", "--strategy", strategy]
        keys = None
        if strategy == "replay":  # an earlier deployment of the same roster, its keys recorded
            keys = w / "keys"
            generate_deployment(n + 1, keys, hub_port=0)
            rec = w / "recorded.bin"
            (w / "earlier").mkdir()
            run_processes(protocol, n + 1, seed=seed, params=given, workdir=w / "earlier", keys=keys,
                          step_timeout=step_timeout, timeout=timeout, linger=timeout,
                          entries={0: [*hostile[1:4], "none", "--record", str(rec)]})  # fmt: skip
            hostile += ["--replay", str(rec)]
        t0 = time.perf_counter()
        r = run_processes(protocol, n + 1, seed=seed, params=given, workdir=w, keys=keys,
                          step_timeout=step_timeout, timeout=timeout, linger=timeout,
                          entries={cheater: hostile[1:]})  # fmt: skip
        wall = time.perf_counter() - t0
        receipts = _signed_totals(r.reports, Roster.load((keys or w / "keys") / "roster.json"), cheater)
    return DeployedCheat(protocol, strategy, sides[strategy], cheater, r.reports,
                         {int(k): v for k, v in r.exit_codes.items()}, wall, receipts)  # fmt: skip


def _signed_totals(reports: Mapping[int, Mapping[str, Any]], roster: Roster, cheater: int) -> int:
    """How many different totals the honest parties hold receipts for that verify as signed by
    the hub (SecAgg+'s ``Aggregate``, round ``aggregate``, bound to the run and the count)."""
    import msgspec

    from mpc_rr.secure_sum import Roster as SigningRoster
    from mpc_rr.secure_sum.secagg import Aggregate
    from transports.pki import signing_keys

    public = SigningRoster(signing_keys(roster, roster.hub)[1])
    totals = set()
    for pid, rep in reports.items():
        if pid == cheater or "receipt" not in rep:
            continue
        r = msgspec.convert(rep["receipt"], Aggregate)
        if public.verify_signed(SIGNED_AS, r.run, "aggregate", roster.hub, r.signature, r.total.data,
                                str(r.n_included).encode()):  # fmt: skip
            totals.add(r.total.data)
    return len(totals)


def _play(args: argparse.Namespace) -> int:
    strategy = None if args.strategy == "none" else args.strategy
    hub = Roster.load(args.roster).hub
    if strategy in SERVER_STRATEGIES and args.id != hub:
        raise UsageError(f"--strategy {strategy} is a server strategy: the hub (--id {hub}) plays it, not {args.id}")
    if strategy in CLIENT_STRATEGIES and args.id == hub:
        raise UsageError(f"--strategy {strategy} is a client strategy: a data party plays it, not the hub {hub}")
    if args.protocol in MESH_PROTOCOLS:
        return _play_mesh(args, strategy, hub)
    replay = load_recorded(args.replay.read_bytes(), where=str(args.replay)) if args.replay else None
    spec, log = hostile_secagg(strategy, replay=replay)
    register_protocol(spec, replace=True)  # every SecAgg+ role of this process, inner ones included
    code = party_main.run(args)
    if args.record is not None:
        args.record.write_bytes(save_recorded(log.recorded()))
    return _report(args, log.side, log.learned(), code)


def _play_mesh(args: argparse.Namespace, strategy: str | None, hub: int) -> int:
    """The full mesh: the hub relays through the adversary module's relay (and in board mode its
    board sends and receives through it)."""
    if strategy not in MESH_RELAYS or args.id != hub:
        raise UsageError(f"{args.protocol}: a hostile hub plays {', '.join(MESH_RELAYS)}, not {strategy} "
                         f"as party {args.id}")  # fmt: skip
    n = len(Roster.load(args.roster).parties) - 1
    cells = int(json.loads(args.params).get("cells", 1582))
    spec, relay = hostile_mesh(strategy, args.protocol == BOARD.name, n, cells, args.seed)
    register_protocol(spec, replace=True)
    code = party_main.run(args, relay_filter=relay.filter)
    return _report(args, "server", relay.learned(), code)


def _report(args: argparse.Namespace, side: str, learned: int, code: int) -> int:
    cheat = {"strategy": args.strategy, "side": side, "party": args.id, "learned": learned}
    if args.out is not None and args.out.is_file():  # the report says what this process was
        args.out.write_text(json.dumps(json.loads(args.out.read_text()) | {"cheat": cheat}) + "\n")
    print(json.dumps(cheat))
    sys.stdout.flush()
    return code


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="hostile_hub", description=__doc__.split("\n")[0])
    p.add_argument("--strategy", choices=(*SERVER_STRATEGIES, *CLIENT_STRATEGIES, "none"), required=True)
    p.add_argument("--record", type=Path, default=None, help="save the signed keys the hub received here")
    p.add_argument("--replay", type=Path, default=None, help="the signed keys to replay (from --record)")
    party_main.add_arguments(p)
    args = p.parse_args(argv)
    return guarded("hostile_hub", lambda: _play(args))


if __name__ == "__main__":
    sys.exit(main())
