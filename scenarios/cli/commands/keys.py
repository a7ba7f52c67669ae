"""``mpc-rr keys init``: create a deployment's CA, party certificates and roster."""

from __future__ import annotations

import argparse
import json

from mpc_rr.core import UsageError
from scenarios.cli.options import HelpFormatter, add_json, int_at_least, output_dir


def _parse_hub(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 1 <= int(port) <= 65535:
        raise argparse.ArgumentTypeError(f"must be HOST:PORT with a port in [1, 65535], got {text!r}")
    return host, int(port)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "keys", help="manage deployment keys and rosters (TCP + TLS)", formatter_class=HelpFormatter
    )
    ksub = p.add_subparsers(dest="keys_command", required=True, metavar="ACTION")
    init = ksub.add_parser(
        "init",
        help="write a fresh CA, one key/certificate per party and roster.json",
        description=(
            "Party 0 is the hub: every other party connects only to it. "
            "Keys are written unencrypted (mode 0600); copy party-<i>.key only to party i."
        ),
        formatter_class=HelpFormatter,
    )
    init.add_argument("--parties", type=int_at_least(2), required=True, help="number of parties incl. hub")
    init.add_argument("--out", type=output_dir, required=True, help="output directory")
    init.add_argument(
        "--hub",
        type=_parse_hub,
        default=("127.0.0.1", 7300),
        help="hub HOST:PORT (default 127.0.0.1:7300)",
    )
    init.add_argument("--days", type=int_at_least(1, 3650), default=30, help="certificate validity in days")
    init.add_argument(
        "--force", action="store_true",
        help="overwrite an existing deployment in --out (its CA and keys are lost)",
    )  # fmt: skip
    add_json(init, "print one JSON object")
    init.set_defaults(func=_init)


def _init(args: argparse.Namespace) -> int:
    from transports.pki import generate_deployment

    host, port = args.hub
    existing = [p.name for p in (args.out / "roster.json", args.out / "ca.key") if p.exists()]
    if existing and not args.force:
        raise UsageError(
            f"{args.out} already holds a deployment ({', '.join(existing)}); overwriting it "
            f"replaces its CA and every key. Choose another --out, or pass --force"
        )
    roster = generate_deployment(
        args.parties, args.out, hub_host=host, hub_port=port, valid_days=args.days
    )
    if args.json:
        print(json.dumps({"roster": str(args.out / "roster.json"), "parties": len(roster.parties),
                          "hub": f"{host}:{port}", "days": args.days}))  # fmt: skip
    else:
        print(
            f"wrote CA, {len(roster.parties)} party certificates and {args.out / 'roster.json'} "
            f"(hub {host}:{port})"
        )
    return 0
