"""The ``mpc-rr`` command line.

Each subcommand lives in its own module under :mod:`scenarios.commands` and
exposes ``register(subparsers)``, which adds its parser and sets
``func(args) -> int`` (the exit status).  Add a module name to
:data:`COMMANDS` to expose a new subcommand.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

COMMANDS: tuple[str, ...] = ("reproduce", "mechanism", "run", "secure_sum", "keys", "party", "ping", "audit", "attack")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mpc-rr",
        description="Randomized response and secure aggregation over simulated or real networks.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        module = f"scenarios.commands.{name}"
        try:
            mod = importlib.import_module(module)
        except ModuleNotFoundError as exc:  # a command not merged in this checkout yet
            if exc.name != module:
                raise
            continue
        mod.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except ValueError as exc:  # UsageError and friends: a clean message, not a traceback
        print(f"mpc-rr {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
