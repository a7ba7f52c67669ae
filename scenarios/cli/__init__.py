"""The ``mpc-rr`` command line.

Each subcommand lives in its own module under :mod:`scenarios.cli.commands` and
exposes ``register(subparsers)``, which adds its parser and sets
``func(args) -> int`` (the exit status).  Add a module name to
:data:`COMMANDS` to expose a new subcommand.

Exit status, for every command: 0 success; 1 the protocol aborted or its
result was not exact; 2 usage error (a bad flag or input, reported before
any work where possible); 3 internal error (a bug: the traceback is printed)
(:func:`parties.cli_args.guarded`, shared with the party process).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from parties.cli_args import guarded

COMMANDS: tuple[str, ...] = (
    "run",
    "secure_sum",
    "rrba",
    "schema",
    "classroom",
    "classroom_serve",
    "scenario",
    "results",
    "report",
    "audit",
    "attack",
    "reproduce",
    "mechanism",
    "keys",
    "party",
    "ping",
)



def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mpc-rr")
    except PackageNotFoundError:
        return "unknown"


class _Version(argparse.Action):
    """``--version``: reads the installed metadata only when asked (importlib.metadata is slow)."""

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        print(f"mpc-rr {_version()}")
        parser.exit()


def build_parser(commands: Sequence[str] = COMMANDS) -> argparse.ArgumentParser:
    """The ``mpc-rr`` parser with ``commands`` (a forked party process needs only ``party``)."""
    from parties.cli_args import HelpFormatter

    parser = argparse.ArgumentParser(
        prog="mpc-rr",
        description="Randomized response and secure aggregation over simulated or real networks.",
        epilog="Exit status: 0 ok, 1 protocol abort or inexact result, 2 usage error, 3 internal error.",
        formatter_class=HelpFormatter,
    )
    parser.add_argument("--version", action=_Version, nargs=0, help="show the version and exit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in commands:
        importlib.import_module(f"scenarios.cli.commands.{name}").register(sub)
    return parser


def main(argv: Sequence[str] | None = None, commands: Sequence[str] = COMMANDS) -> int:
    parser = build_parser(commands)
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:2] == ["classroom", "serve"]:  # `classroom PROTOCOL` is a positional: serve is its own command
        argv[:2] = ["classroom-serve"]
    args = parser.parse_args(argv)  # argparse exits with status 2 on a usage error
    return guarded(args.command, lambda: args.func(args))

