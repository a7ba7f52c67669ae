"""``mpc-rr keys init``: create a deployment's CA, party certificates and roster."""

from __future__ import annotations

import argparse
from pathlib import Path

from transports.pki import generate_deployment


def _parse_hub(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit():
        raise argparse.ArgumentTypeError(f"--hub must be HOST:PORT, got {text!r}")
    return host, int(port)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("keys", help="manage deployment keys and rosters (TCP + TLS)")
    ksub = p.add_subparsers(dest="keys_command", required=True, metavar="ACTION")
    init = ksub.add_parser(
        "init",
        help="write a fresh CA, one key/certificate per party and roster.json",
        description=(
            "Party 0 is the hub: every other party connects only to it. "
            "Keys are written unencrypted (mode 0600); copy party-<i>.key only to party i."
        ),
    )
    init.add_argument("--parties", type=int, required=True, help="number of parties incl. hub")
    init.add_argument("--out", type=Path, required=True, help="output directory")
    init.add_argument(
        "--hub",
        type=_parse_hub,
        default=("127.0.0.1", 7300),
        help="hub HOST:PORT (default %(default)s)",
    )
    init.add_argument("--days", type=int, default=30, help="certificate validity in days")
    init.set_defaults(func=_init)


def _init(args: argparse.Namespace) -> int:
    host, port = args.hub
    roster = generate_deployment(
        args.parties, args.out, hub_host=host, hub_port=port, valid_days=args.days
    )
    print(
        f"wrote CA, {len(roster.parties)} party certificates and {args.out / 'roster.json'} "
        f"(hub {host}:{port})"
    )
    return 0
