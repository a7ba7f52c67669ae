"""Argument types and exit status for every command line of the project.

Types refuse a bad value before any work, naming the flag's rule (argparse
prefixes the flag: ``argument --queries: must be an integer >= 1, got 0``).
:func:`guarded` runs a command and turns what it raised into the documented
exit status.  Used by ``mpc-rr`` (:mod:`scenarios.cli`) and by the party
process entry point (:mod:`parties.party_main`), which must not import the
scenario layer.

Exit status: 0 success; 1 the protocol aborted or its result was not exact
(or the network failed); 2 usage error (a bad flag or input, reported before
any work where possible); 3 internal error (a bug: the traceback is printed);
130 interrupted.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import traceback
from collections.abc import Callable
from pathlib import Path

from mpc_rr.core import ProtocolAbort, UsageError

__all__ = [
    "DEFAULT_SEED",
    "DEFAULT_STEP_TIMEOUT",
    "EXIT_ABORT",
    "EXIT_BUG",
    "EXIT_OK",
    "EXIT_USAGE",
    "HelpFormatter",
    "add_json",
    "add_seed",
    "add_step_timeout",
    "bounded",
    "guarded",
    "int_at_least",
    "open_open",
    "open_unit",
    "output_dir",
    "output_file",
    "positive_float",
    "probability",
    "unit_interval",
]

EXIT_OK, EXIT_ABORT, EXIT_USAGE, EXIT_BUG = 0, 1, 2, 3

DEFAULT_SEED = 1
"""Every command's ``--seed`` default (one, so the same command line means the same run)."""

DEFAULT_STEP_TIMEOUT = 60.0
"""Every command's ``--step-timeout`` default: seconds a party waits without accepting a message
before its role decides what the silence means (under the memory transport: virtual seconds)."""


class HelpFormatter(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    """Every command's ``--help``: descriptions as written, and each option's default shown.

    ``(default: X)`` is appended unless the help text already says what the
    default is (it contains "default"), the default is ``None`` (the help must
    then say what happens without the option: a test checks it) or the option
    is a switch (``store_true``: off unless given).
    """

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if "%(default)" in text or "default" in text.lower():
            return text
        if action.default is None or action.default is False or action.default == []:
            return text
        if action.default is argparse.SUPPRESS or not action.option_strings:
            return text
        return text + " (default: %(default)s)"


def int_at_least(lo: int, hi: int | None = None) -> Callable[[str], int]:
    """An integer in ``[lo, hi]``."""

    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be an integer, got {text!r}") from None
        if v < lo or (hi is not None and v > hi):
            rule = f">= {lo}" if hi is None else f"in [{lo}, {hi}]"
            raise argparse.ArgumentTypeError(f"must be an integer {rule}, got {v}")
        return v

    parse.__name__ = "integer"
    return parse


def _float(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None
    if v != v:
        raise argparse.ArgumentTypeError("must be a number, got nan")
    return v


def probability(text: str) -> float:
    """A keep probability in (0, 1]."""
    v = _float(text)
    if not 0.0 < v <= 1.0:
        raise argparse.ArgumentTypeError(f"must be in (0, 1], got {v}")
    return v


def unit_interval(text: str) -> float:
    """A number in [0, 1]."""
    v = _float(text)
    if not 0.0 <= v <= 1.0:
        raise argparse.ArgumentTypeError(f"must be in [0, 1], got {v}")
    return v


def open_unit(text: str) -> float:
    """A fraction in [0, 1) (a dropout rate or tolerance)."""
    v = _float(text)
    if not 0.0 <= v < 1.0:
        raise argparse.ArgumentTypeError(f"must be in [0, 1), got {v}")
    return v


def open_open(text: str) -> float:
    """A probability in (0, 1) (e.g. a failure target)."""
    v = _float(text)
    if not 0.0 < v < 1.0:
        raise argparse.ArgumentTypeError(f"must be in (0, 1), got {v}")
    return v


def positive_float(text: str) -> float:
    v = _float(text)
    if not v > 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {v}")
    return v


def bounded(
    kind: type[int] | type[float],
    *,
    ge: float | None = None,
    gt: float | None = None,
    le: float | None = None,
    lt: float | None = None,
) -> Callable[[str], float]:
    """A number of ``kind`` within the bounds given, refused naming the rule (as the types above)."""
    if kind is int and gt is None and le is None and lt is None and ge is not None:
        return int_at_least(int(ge))
    if kind is float and (ge, gt, le, lt) == (0, None, None, 1):
        return open_unit
    if kind is float and (ge, gt, le, lt) == (None, 0, None, 1):
        return open_open
    if kind is float and (ge, gt, le, lt) == (None, 0, 1, None):
        return probability
    lo = f"[{ge}" if ge is not None else f"({gt}" if gt is not None else "(-inf"
    hi = f"{le}]" if le is not None else f"{lt})" if lt is not None else "inf)"

    def parse(text: str) -> float:
        v: float
        if kind is int:
            try:
                v = int(text)
            except ValueError:
                raise argparse.ArgumentTypeError(f"must be an integer, got {text!r}") from None
        else:
            v = _float(text)
        if (ge is not None and v < ge) or (gt is not None and v <= gt) or (
            le is not None and v > le
        ) or (lt is not None and v >= lt):
            raise argparse.ArgumentTypeError(f"must be in {lo}, {hi}, got {v}")
        return v

    parse.__name__ = "integer" if kind is int else "number"
    return parse


def _probe(folder: Path) -> str | None:
    """Why files cannot be written in ``folder`` (created if missing), or ``None``.

    Tries for real (``os.access`` says yes to root even on a read-only mount).
    """
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".mpc-rr-probe-"):
            pass
    except OSError as exc:
        return exc.strerror or str(exc)
    return None


def output_dir(text: str) -> Path:
    """A folder that exists and is writable, or can be created (checked before any work)."""
    d = Path(text)
    if d.exists() and not d.is_dir():
        raise argparse.ArgumentTypeError(f"{d} exists and is not a folder")
    why = _probe(d)
    if why is not None:
        raise argparse.ArgumentTypeError(f"cannot write to {d}: {why}")
    return d


def output_file(text: str) -> Path:
    """A file path whose folder is writable (checked before any work)."""
    f = Path(text)
    if f.is_dir():
        raise argparse.ArgumentTypeError(f"{f} is a folder, expected a file name")
    why = _probe(f.parent if str(f.parent) else Path("."))
    if why is None and f.exists() and not os.access(f, os.W_OK):
        why = "the file is not writable"
    if why is not None:
        raise argparse.ArgumentTypeError(f"cannot write to {f}: {why}")
    return f


def add_seed(p: argparse.ArgumentParser | argparse._ArgumentGroup, what: str) -> None:
    """``--seed`` (an integer >= 0, default :data:`DEFAULT_SEED`): ``what`` derives from it."""
    p.add_argument("--seed", type=int_at_least(0), default=DEFAULT_SEED, help=f"seed of {what}")


def add_json(p: argparse.ArgumentParser | argparse._ArgumentGroup, what: str = "print one JSON object instead of text") -> None:
    """``--json``: machine-readable output on standard output."""
    p.add_argument("--json", action="store_true", help=what)


def add_step_timeout(p: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """``--step-timeout`` (seconds > 0, default :data:`DEFAULT_STEP_TIMEOUT`)."""
    p.add_argument(
        "--step-timeout", type=positive_float, default=DEFAULT_STEP_TIMEOUT,
        help="seconds a party waits without accepting a message before its role decides what the "
        "silence means (silent parties become dropouts; virtual time on the memory transport)",
    )  # fmt: skip


def guarded(command: str, func: Callable[[], int | None]) -> int:
    """Run ``func`` and map what it raised to the exit status (module docstring)."""
    try:
        return int(func() or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the reader went away (e.g. `| head`): not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except UsageError as exc:
        print(f"mpc-rr {command}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except ProtocolAbort as exc:
        print(f"mpc-rr {command}: protocol aborted: {exc}", file=sys.stderr)
        return EXIT_ABORT
    except Exception as exc:
        # a network failure (a hub gone, a refused connection) is not a bug; transports is
        # imported only by commands that use it (not at `--help` time), hence the lookup
        errors = sys.modules.get("transports.errors")
        if errors is not None and isinstance(exc, errors.TransportError):
            print(f"mpc-rr {command}: transport error: {exc}", file=sys.stderr)
            return EXIT_ABORT
        traceback.print_exc()
        print(
            f"mpc-rr {command}: internal error (a bug in mpc-rr; please report it with the "
            f"traceback above)",
            file=sys.stderr,
        )
        return EXIT_BUG
