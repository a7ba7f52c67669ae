"""``mpc-rr secure-sum``: run a secure sum of random one-hot vectors and check it.

Exit status 0 only when the protocol finished and its total equals the plain
sum of the included parties' vectors; 1 when it aborted or was not exact.
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from mpc_rr.errors import UsageError

TRANSPORTS = ("harness", "memory", "tcp")


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "secure-sum",
        help="secure sum of random one-hot vectors, checked against the plaintext sum",
        description=__doc__,
    )
    p.add_argument(
        "--protocol",
        choices=("full-mesh", "full-mesh-board", "secagg"),
        default="secagg",
        help="full-mesh: Sec. 4.2 with all-to-all publication; full-mesh-board: publication "
        "through a bulletin board (party 0); secagg: SecAgg+ (sparse graph, dropouts)",
    )
    p.add_argument("--parties", type=int, required=True, help="number of data parties n")
    p.add_argument("--cells", type=int, default=1582, help="vector length D (default 1582)")
    p.add_argument(
        "--transport",
        choices=TRANSPORTS,
        default="memory",
        help="memory: Party actors over the in-memory transport (virtual time); tcp: TCP + "
        "mutual TLS on 127.0.0.1, one process; harness: synchronous driver, no transport",
    )
    p.add_argument(
        "--step-timeout", type=float, default=30.0, help="seconds before a step's dropouts"
    )
    p.add_argument("--dropout", type=float, default=0.0, help="fraction of parties that drop")
    p.add_argument(
        "--drop-step",
        choices=("keys", "shares", "masked", "unmask"),
        default="unmask",
        help="SecAgg step at which the dropouts vanish (default: after masked input)",
    )
    p.add_argument("--max-dropout", type=float, default=None, help="SecAgg tolerance")
    p.add_argument("--degree", type=int, default=None, help="SecAgg graph degree k")
    p.add_argument("--threshold", type=int, default=None, help="SecAgg Shamir threshold t")
    p.add_argument("--failure", type=float, default=1e-6, help="SecAgg threshold failure target")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from mpc_rr.secure_sum.simulate import run_secure_sum
    from scenarios.secure_sum_runners import runner_for

    if args.parties < 2:
        raise UsageError(f"--parties must be >= 2, got {args.parties}")
    if args.cells < 1:
        raise UsageError(f"--cells must be >= 1, got {args.cells}")
    if not 0.0 <= args.dropout < 1.0:
        raise UsageError(f"--dropout must be in [0, 1), got {args.dropout}")
    rng = np.random.default_rng(args.seed)
    x = np.zeros((args.parties, args.cells), np.uint8)
    x[np.arange(args.parties), rng.integers(0, args.cells, args.parties)] = 1
    max_dropout = args.max_dropout
    if max_dropout is None and args.protocol == "secagg":
        max_dropout = max(args.dropout, 0.1)
    rep = run_secure_sum(
        args.protocol,
        x,
        seed=args.seed,
        dropout=args.dropout,
        drop_step=args.drop_step,
        max_dropout=max_dropout,
        degree=args.degree,
        threshold=args.threshold,
        failure=args.failure,
        runner=runner_for(args.transport),
        step_timeout=args.step_timeout,
    )
    out = rep.as_dict()
    out["transport"] = args.transport
    if args.json:
        print(json.dumps(out))
    else:
        status = "EXACT" if rep.exact else f"FAILED ({rep.aborted or 'wrong sum'})"
        print(
            f"{rep.protocol}: {rep.parties} parties x {rep.cells} cells over {args.transport}: "
            f"{status}; survivors {rep.survivors}, {rep.messages} messages, {rep.bytes} bytes "
            f"({rep.bytes_per_party_sent:.0f} sent per party), {rep.wall_s:.2f} s"
        )
        if rep.aborted:
            print(f"aborted: {rep.aborted}", file=sys.stderr)
    return 0 if rep.exact else 1
