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
from collections.abc import Sequence
from typing import NoReturn

from parties.cli_args import guarded

COMMANDS: tuple[str, ...] = (
    "run",
    "secure_sum",
    "rrba",
    "schema",
    "data",
    "classroom",
    "classroom_serve",
    "scenario",
    "results",
    "report",
    "audit",
    "privacy",
    "frontier",
    "attack",
    "reproduce",
    "mechanism",
    "keys",
    "party",
    "ping",
    "simulate",
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


class Parser(argparse.ArgumentParser):
    """Every ``mpc-rr`` parser: a usage error names the command it is about, suggests the
    nearest flag for an unknown one, and under ``--json`` is also one JSON object on stdout."""

    json_errors = False

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        ns, extras = super().parse_known_args(args, namespace)
        leaf = not any(isinstance(a, argparse._SubParsersAction) for a in self._actions)
        if extras and leaf:  # refuse here, with this command's usage, not the top level's
            import difflib

            flags = [s for a in self._actions for s in a.option_strings]
            hints = []
            for x in extras:
                near = difflib.get_close_matches(x.split("=")[0], flags, n=1, cutoff=0.6)
                if x.startswith("-") and near:
                    hints.append(f"{x} (did you mean {near[0]}?)")
                else:
                    hints.append(x)
            self.error(f"unrecognized arguments: {' '.join(hints)}")
        return ns, extras

    def error(self, message: str) -> NoReturn:
        if Parser.json_errors:
            import json

            command = self.prog.removeprefix("mpc-rr").strip() or "mpc-rr"
            print(json.dumps({"error": message, "kind": "error", "exit": 2, "command": command}))
        super().error(message)


def build_parser(commands: Sequence[str] = COMMANDS) -> argparse.ArgumentParser:
    """The ``mpc-rr`` parser with ``commands`` (a forked party process needs only ``party``)."""
    from parties.cli_args import HelpFormatter

    parser = Parser(
        prog="mpc-rr",
        description="Randomized response and secure aggregation over simulated or real networks.",
        epilog="Exit status: 0 ok, 1 protocol abort or inexact result, 2 usage error, 3 internal "
        "error, 130 interrupted (Ctrl-C).",
        formatter_class=HelpFormatter,
    )
    parser.add_argument("--version", action=_Version, nargs=0, help="show the version and exit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in commands:
        importlib.import_module(f"scenarios.cli.commands.{name}").register(sub)
    from scenarios.cli.examples import add_examples

    add_examples(parser)
    return parser


def main(argv: Sequence[str] | None = None, commands: Sequence[str] = COMMANDS) -> int:
    import sys

    from_shell = argv is None
    argv = list(sys.argv[1:] if argv is None else argv)
    Parser.json_errors = "--json" in argv
    parser = build_parser(commands)
    if argv[:2] == ["classroom", "serve"]:  # `classroom PROTOCOL` is a positional: serve is its own command
        argv[:2] = ["classroom-serve"]
    args = parser.parse_args(argv)  # argparse exits with status 2 on a usage error
    if from_shell:
        _terminate_as_interrupt()
    status = guarded(args.command, lambda: args.func(args), as_json=Parser.json_errors)
    if status == 130 and from_shell:
        # interrupted: what was kept is said and flushed; tearing down millions of objects (a
        # big simulation) took seconds after Ctrl-C, so the process ends now
        import os

        sys.stdout.flush()
        sys.stderr.flush()
        _release_process_resources()
        os._exit(status)
    return status


def _release_process_resources() -> None:
    """Before an ``os._exit``, which skips :mod:`multiprocessing`'s exit handlers: release its
    named semaphores (else its resource tracker warns of leaked ones) and remove its temporary
    folder (``pymp-*``: the fork server's socket)."""
    import sys

    if "multiprocessing.process" not in sys.modules:
        return
    import shutil
    from multiprocessing import process, util

    util._run_finalizers(0)  # type: ignore[attr-defined]  # the semaphores' (priority 0 and up)
    folder = process.current_process()._config.get("tempdir")  # type: ignore[attr-defined]
    if folder:
        shutil.rmtree(folder, ignore_errors=True)


def _terminate_as_interrupt() -> None:
    """SIGTERM (``kill PID``, a service manager, a CI timeout) stops the command as Ctrl-C does:
    what was kept is said and closed (a scenario's session), exit 130."""
    import signal
    import threading

    from parties import cli_args

    if threading.current_thread() is not threading.main_thread():
        return

    def stop(signum: int, frame: object) -> None:
        cli_args.interrupted_by("SIGTERM")
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
