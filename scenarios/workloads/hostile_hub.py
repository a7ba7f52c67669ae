"""A hostile SecAgg+ hub: one process that serves a deployment and cheats (for tests and demos).

Usage::

    python -m scenarios.workloads.hostile_hub --roster keys/roster.json --strategy key-substitution \
        --port 0 --port-file hub.port [--params '{"cells": 4}'] [--seed 1]

It runs party 0 over TCP + TLS exactly as ``mpc-rr party --protocol secagg``
would, with :class:`mpc_rr.adversary.CheatingServer` in place of the honest
aggregator, and prints its JSON report (with ``learned``: how many inputs it
recovered).  The honest parties are ordinary ``mpc-rr party`` processes: each
ends with its JSON report naming the culprit (party 0) and exit code 1.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

import trio

from mpc_rr.adversary import SERVER_STRATEGIES, CheatingServer
from mpc_rr.core import Role
from mpc_rr.secure_sum import make_sum_role, sum_protocol
from parties.node import run_node
from transports.pki import Roster


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="hostile_hub", description=__doc__.split("\n")[0])
    p.add_argument("--roster", type=Path, required=True)
    p.add_argument("--strategy", choices=SERVER_STRATEGIES, required=True)
    p.add_argument("--params", type=json.loads, default={})
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--port", type=int, default=None)
    p.add_argument("--port-file", type=Path, default=None)
    p.add_argument("--step-timeout", type=float, default=10.0)
    p.add_argument("--linger", type=float, default=60.0)
    args = p.parse_args(argv)
    spec = sum_protocol("secagg")
    learned: dict[str, Any] = {}

    def make_role(pid: int, n_parties: int, seed: int, params: dict[str, Any]) -> Role:
        honest = make_sum_role(spec, pid, n_parties, seed, params)
        server = CheatingServer(honest.cfg, honest.graph, strategy=args.strategy)  # type: ignore[attr-defined]
        learned["server"] = server
        return server

    cheat_spec = dataclasses.replace(spec, make_role=make_role)
    roster = Roster.load(args.roster)

    async def go() -> dict[str, Any]:
        return await run_node(
            roster, roster.hub, cheat_spec, seed=args.seed, params=args.params, port=args.port,
            port_file=args.port_file, step_timeout=args.step_timeout, linger=args.linger,
        )  # fmt: skip

    report = trio.run(go)
    server = learned.get("server")
    report["learned"] = len(getattr(server, "learned", {}))
    print(json.dumps(report, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
