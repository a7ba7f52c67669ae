"""The party process entry point: ``python -m parties.party_main --roster R --id I ...``.

One party of a named protocol over TCP (+ mutual TLS), on this host or its
own: the hub (party 0) listens on its roster address and relays frames,
every other party connects to it.  It prints one JSON report on standard
output whatever happens (:func:`parties.node.run_node`).  ``mpc-rr party``
is the same command (:mod:`scenarios.cli.commands.party` registers these
flags); the local process runners (:mod:`parties.launch`) start this module,
in a fresh interpreter or forked from a pre-imported one.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mpc_rr.core import UsageError, get_protocol, protocol_names
from mpc_rr.secure_sum.plainsum import SPEC as PLAINSUM
from parties.cli_args import (
    HelpFormatter,
    add_seed,
    add_step_timeout,
    guarded,
    output_file,
    positive_float,
)

__all__ = ["DESCRIPTION", "HELP", "add_arguments", "main", "run"]


HELP = "run one party of a protocol over TCP (+TLS), e.g. on its own host"
DESCRIPTION = (
    "Party 0 (the hub) listens on its roster address and relays frames; every other "
    "party connects to it with the key/certificate next to the roster file. "
    "Prints one JSON report on stdout."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The party's flags (the same for ``mpc-rr party`` and ``python -m parties.party_main``)."""
    p.add_argument("--roster", type=Path, required=True, help="roster.json from `keys init`")
    p.add_argument("--id", type=int, required=True, help="this party's id")
    p.add_argument("--protocol", choices=protocol_names(), default=PLAINSUM.name, help="the protocol to run")
    add_seed(p, "the run: scenario seed (same on every party)")
    p.add_argument("--params", default="{}", help="protocol parameters as JSON")
    p.add_argument("--plaintext", action="store_true", help="NO TLS (classroom traces only)")
    p.add_argument("--bind", default=None, help="hub: listen address (default: roster host)")
    p.add_argument("--port", type=int, default=None, help="hub: override the roster port")
    p.add_argument("--port-file", type=Path, default=None, help="hub: write the bound port here")
    p.add_argument(
        "--listen-fd", type=int, default=None, metavar="FD",
        help="hub: serve this inherited, already listening socket (the local process runner "
        "binds it, so every party can start at once)",
    )  # fmt: skip
    add_step_timeout(p)
    p.add_argument("--timeout", type=positive_float, default=600.0, help="whole-run limit in seconds")
    p.add_argument(
        "--linger",
        type=positive_float,
        default=30.0,
        help="seconds to wait for the others (hub: to arrive and leave; others: start signal)",
    )
    p.add_argument("--transcript", type=output_file, default=None, help="write what this party sent to this file")
    p.add_argument("--out", type=output_file, default=None, help="write the JSON report here too")
    p.add_argument(
        "--run-nonce", default=None, metavar="HEX",
        help="hub: this run's nonce (default: a fresh random one, sent to every party in its "
        "welcome and bound into every message's run label)",
    )  # fmt: skip
    p.add_argument(
        "--party-budget", type=_budget, default="default", metavar="BUDGET",
        help="what one party may send in the run before it is cut off (disconnected by the hub, "
        "named in every report): 'default' (10,000 + 1,000 n messages, 1 GiB + 4 MiB n bytes, "
        "100 errors it causes at one receiver, 10 frames that do not decode; n the roster's size), "
        "'none' (no budget), or messages=N,bytes=N,errors=N,garbage=N (any of them; N or 'none'); "
        "the same on every party",
    )  # fmt: skip
    p.add_argument(
        "--crash-before", default=None, metavar="MESSAGE",
        help="fault injection: kill this process (SIGKILL) right before it sends a MESSAGE",
    )  # fmt: skip


def _budget(text: str) -> str:
    """``--party-budget``'s syntax, checked before any work (the roster's size fills it in)."""
    from transports.budgets import parse_budget

    try:
        parse_budget(text, 1)
    except UsageError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("--party-budget: ")) from None
    return text


def run(args: argparse.Namespace, **node: Any) -> int:
    """Run the party described by ``args``; the exit status from its report.  ``node``: more
    options of :func:`parties.node.run_node` (e.g. a hostile hub's ``relay_filter``)."""
    try:
        return _run(args, node)
    except UsageError as exc:  # refused before any work, but still with its report (exit 2)
        report = {"party": args.id, "protocol": args.protocol, "ok": False, "cause": "usage",
                  "result": None, "error": str(exc), "culprits": [], "suspects": [], "stats": None}  # fmt: skip
        print(json.dumps(report))
        sys.stdout.flush()
        print(f"mpc-rr party: error: {exc}", file=sys.stderr)
        return 2


def _run(args: argparse.Namespace, node: dict[str, Any]) -> int:
    import trio

    from parties.node import exit_code, run_node
    from parties.protocol_keys import protocol_params
    from transports.pki import Roster

    roster = Roster.load(args.roster)
    if args.id not in roster.parties:
        raise UsageError(f"--id {args.id} is not in the roster {args.roster} (ids {sorted(roster.ids)[:10]}...)")
    try:
        params = json.loads(args.params)
    except json.JSONDecodeError as exc:
        raise UsageError(f"--params is not valid JSON: {exc}") from None
    if not isinstance(params, dict):
        raise UsageError(f"--params must be a JSON object, got {type(params).__name__}: {args.params}")
    from transports.budgets import parse_budget

    budget = parse_budget(getattr(args, "party_budget", "default"), len(roster.parties))
    spec = get_protocol(args.protocol)
    # the deployment's protocol keys (`keys init`: e.g. prio3's pinned helper key), under --params;
    # an outer protocol's inner sum (its `sum_protocol`) gets its own in `sum_options`
    params = {**protocol_params(roster.directory, spec.name), **params}
    inner, given = params.get("sum_protocol"), params.get("sum_options", {})
    if isinstance(inner, str) and isinstance(given, dict):
        keys = protocol_params(roster.directory, inner)
        if keys:
            params["sum_options"] = {**keys, **given}
    report = trio.run(
        functools.partial(
            run_node,
            roster,
            args.id,
            spec,
            seed=args.seed,
            params=params,
            tls=not args.plaintext,
            bind=args.bind,
            port=args.port,
            port_file=args.port_file,
            listen_fd=args.listen_fd,
            step_timeout=args.step_timeout,
            timeout=args.timeout,
            linger=args.linger,
            transcript=args.transcript,
            handle_signals=True,
            crash_before=args.crash_before,
            run_nonce=args.run_nonce,
            budget=budget,
            **node,
        )
    )
    text = json.dumps(report)
    if args.out is not None:
        tmp = Path(str(args.out) + ".tmp")
        tmp.write_text(text + "\n")
        tmp.replace(args.out)
    print(text)
    sys.stdout.flush()
    if report["cause"] == "usage":
        print(f"mpc-rr party: error: {report['error']}", file=sys.stderr)
    return exit_code(report)


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` (default: ``sys.argv[1:]``), run the party, return its exit status."""
    parser = argparse.ArgumentParser(
        prog="mpc-rr party", description=DESCRIPTION, formatter_class=HelpFormatter
    )
    add_arguments(parser)
    args = parser.parse_args(argv)
    return guarded("party", lambda: run(args))


if __name__ == "__main__":
    sys.exit(main())
