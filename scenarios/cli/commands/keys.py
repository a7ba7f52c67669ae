"""``mpc-rr keys init``: create a deployment's CA, party certificates and roster."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

from mpc_rr.core import UsageError
from scenarios.cli.options import HelpFormatter, add_json, int_at_least, on_interrupt, output_dir


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
            "Keys are written unencrypted (mode 0600); copy party-<i>.key only to party i. "
            "Protocols that need deployment secrets get them too (protocols.json: prio3's "
            "pinned helper key; its private half prio3-helper.key goes to party 1 only)."
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


SECONDS_PER_PARTY = 0.004
"""Measured: an ECDSA P-256 key and certificate per party, ~4 ms on one loaded core."""

BYTES_PER_PARTY = 2 * 4096
"""Disk per party: a key and a certificate, one 4 KiB block each."""

MAX_SECONDS = 30 * 60
"""A deployment estimated to take longer to write is refused (the hub holds one connection per
party: such a deployment is not run from one hub anyway)."""


def _check_size(args: argparse.Namespace) -> None:
    """Refuse a deployment that would not fit on the disk or would take too long, with the
    estimate (``keys init --parties 1000000`` wrote 1.9 GB in 476k files before it was stopped)."""
    from scenarios.cli.options import human_bytes, human_seconds

    n = args.parties
    disk, secs = n * BYTES_PER_PARTY, n * SECONDS_PER_PARTY
    base = args.out
    while not base.exists():
        base = base.parent
    free = shutil.disk_usage(base).free
    if disk > 0.9 * free or secs > MAX_SECONDS:
        fit = int(min(0.9 * free / BYTES_PER_PARTY, MAX_SECONDS / SECONDS_PER_PARTY))
        raise UsageError(
            f"--parties {n:,} means {2 * n + 3:,} files, about {human_bytes(disk)} on disk "
            f"({human_bytes(free)} free) and {human_seconds(secs)} of key generation; at most "
            f"about {fit:,} parties fit. Use fewer --parties"
        )
    if secs > 10 and not args.json:
        print(f"keys init: {n:,} parties, about {human_bytes(disk)} and {human_seconds(secs)}",
              file=sys.stderr)  # fmt: skip


def _init(args: argparse.Namespace) -> int:
    from parties.protocol_keys import PROTOCOLS_FILE, write_protocol_keys
    from transports.pki import generate_deployment

    host, port = args.hub
    existing = [p.name for p in (args.out / "roster.json", args.out / "ca.key") if p.exists()]
    if existing and not args.force:
        raise UsageError(
            f"{args.out} already holds a deployment ({', '.join(existing)}); overwriting it "
            f"replaces its CA and every key. Choose another --out, or pass --force"
        )
    _check_size(args)
    # written beside --out and moved in when complete: a Ctrl-C or a full disk leaves no
    # half-written deployment that would block the rerun ("already holds a deployment")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{args.out.name}.partial-", dir=args.out.parent))
    on_interrupt(f"no deployment was written to {args.out}")
    try:
        roster = generate_deployment(
            args.parties, tmp, hub_host=host, hub_port=port, valid_days=args.days
        )
        notes = write_protocol_keys(tmp)  # protocols that need deployment secrets (prio3)
        args.out.mkdir(parents=True, exist_ok=True)
        for f in sorted(tmp.iterdir(), key=lambda f: f.name == "roster.json"):  # roster last
            os.replace(f, args.out / f.name)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if args.json:
        print(json.dumps({"roster": str(args.out / "roster.json"), "parties": len(roster.parties),
                          "hub": f"{host}:{port}", "days": args.days,
                          "protocol_keys": str(args.out / PROTOCOLS_FILE), "notes": notes}))  # fmt: skip
    else:
        print(
            f"wrote CA, {len(roster.parties)} party certificates, {args.out / 'roster.json'} "
            f"(hub {host}:{port}) and the protocols' keys ({args.out / PROTOCOLS_FILE})"
        )
        for note in notes:
            print(f"  {note}")
    return 0
