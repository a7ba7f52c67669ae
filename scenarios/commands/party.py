"""``mpc-rr party``: run one party of a named protocol over TCP (one process per party)."""

from __future__ import annotations

import argparse
import functools
import json
import sys
from pathlib import Path

import trio

from parties.node import run_node
from parties.registry import protocol_names
from transports.pki import Roster


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "party",
        help="run one party of a protocol over TCP (+TLS), e.g. on its own host",
        description=(
            "Party 0 (the hub) listens on its roster address and relays frames; every other "
            "party connects to it with the key/certificate next to the roster file. "
            "Prints one JSON report on stdout."
        ),
    )
    p.add_argument("--roster", type=Path, required=True, help="roster.json from `keys init`")
    p.add_argument("--id", type=int, required=True, help="this party's id")
    p.add_argument("--protocol", default="plainsum", help=f"one of {protocol_names()}")
    p.add_argument("--seed", type=int, default=0, help="scenario seed (same on every party)")
    p.add_argument("--params", default="{}", help="protocol parameters as JSON")
    p.add_argument("--plaintext", action="store_true", help="NO TLS (classroom traces only)")
    p.add_argument("--bind", default=None, help="hub: listen address (default: roster host)")
    p.add_argument("--port", type=int, default=None, help="hub: override the roster port")
    p.add_argument("--port-file", type=Path, default=None, help="hub: write the bound port here")
    p.add_argument("--step-timeout", type=float, default=30.0, help="seconds without progress")
    p.add_argument("--timeout", type=float, default=600.0, help="whole-run limit in seconds")
    p.add_argument(
        "--linger",
        type=float,
        default=30.0,
        help="seconds to wait for the others (hub: to arrive and leave; others: start signal)",
    )
    p.add_argument("--transcript", action="store_true", help="include sent payloads (hex)")
    p.add_argument("--out", type=Path, default=None, help="write the JSON report here too")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    roster = Roster.load(args.roster)
    params = json.loads(args.params)
    report = trio.run(
        functools.partial(
            run_node,
            roster,
            args.id,
            args.protocol,
            seed=args.seed,
            params=params,
            tls=not args.plaintext,
            bind=args.bind,
            port=args.port,
            port_file=args.port_file,
            step_timeout=args.step_timeout,
            timeout=args.timeout,
            linger=args.linger,
            transcript=args.transcript,
        )
    )
    text = json.dumps(report)
    if args.out is not None:
        args.out.write_text(text + "\n")
    print(text)
    sys.stdout.flush()
    return 0 if report["ok"] else 1
