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
import re
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
    "EXIT_INTERRUPT",
    "EXIT_OK",
    "EXIT_USAGE",
    "HelpFormatter",
    "add_json",
    "add_seed",
    "add_step_timeout",
    "bounded",
    "for_command_line",
    "guarded",
    "int_at_least",
    "interrupted_by",
    "name_part",
    "non_negative",
    "on_interrupt",
    "open_open",
    "open_unit",
    "output_dir",
    "output_file",
    "positive_float",
    "probability",
    "unit_interval",
]

EXIT_OK, EXIT_ABORT, EXIT_USAGE, EXIT_BUG, EXIT_INTERRUPT = 0, 1, 2, 3, 130

DEFAULT_SEED = 1
"""Every command's ``--seed`` default (one, so the same command line means the same run)."""

DEFAULT_STEP_TIMEOUT = 60.0
"""Every command's ``--step-timeout`` default: seconds a party waits without accepting a message
before its role decides what the silence means (under the memory transport: virtual seconds)."""


_ROLE = re.compile(r":[a-z]+:`(~?)([^`]+)`")
_LITERAL = re.compile(r"``([^`]+)``")
_LINK = re.compile(r"`([^`<]+?)(?: <[^>]+>)?`_")


def plain_text(text: str) -> str:
    """``text`` without reStructuredText markup (module docstrings serve as descriptions):
    ``:func:`~a.b``` -> ``b``, ````x```` -> ``x``, a link's text alone, ``::`` -> ``:``."""
    text = _ROLE.sub(lambda m: m.group(2).rsplit(".", 1)[-1] if m.group(1) else m.group(2), text)
    text = _LITERAL.sub(r"\1", text)
    text = _LINK.sub(r"\1", text)
    return re.sub(r"(?<=\S)::$", ":", text, flags=re.M)


class HelpFormatter(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    """Every command's ``--help``: descriptions as written, and each option's default shown.

    ``(default: X)`` is appended unless the help text already says what the
    default is (it contains "default"), the default is ``None`` (the help must
    then say what happens without the option: a test checks it) or the option
    is a switch (``store_true``: off unless given).
    """

    def _format_text(self, text: str) -> str:
        return super()._format_text(plain_text(text))

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = plain_text(action.help or "")
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


def non_negative(text: str) -> float:
    """A number >= 0 (an epsilon may be 0)."""
    v = _float(text)
    if not v >= 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {v}")
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
    """Why files cannot be written in ``folder``, or ``None``; nothing is left behind.

    A missing folder is not created here (a later usage error must not leave an
    empty folder): its nearest existing ancestor must be a writable folder.
    Tries for real (``os.access`` says yes to root even on a read-only mount).
    """
    base = folder
    while not base.exists():
        if base.parent == base:
            break
        base = base.parent
    if base.exists() and not base.is_dir():
        return f"{base} is not a folder"
    try:
        with tempfile.NamedTemporaryFile(dir=base, prefix=".mpc-rr-probe-"):
            pass
    except OSError as exc:
        return exc.strerror or str(exc)
    return None


def name_part(text: str) -> str:
    """A name that becomes part of a file or folder name (``--name``): not empty, no path
    separator, not ``.`` or ``..`` -- outputs named with it stay inside their folder."""
    if not text.strip():
        raise argparse.ArgumentTypeError("must not be empty")
    if any(sep in text for sep in ("/", "\\", "\0")) or text.strip(".") == "":
        raise argparse.ArgumentTypeError(
            f"must be a plain name (it names output folders): no '/', '\\', or '..', got {text!r}"
        )
    return text


def output_dir(text: str) -> Path:
    """A folder that is writable, or can be created (checked before any work, created by the
    command when it writes)."""
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


_INTERRUPT_NOTES: list[str | Callable[[], str]] = []
_STOPPED_BY = ["Ctrl-C"]


def interrupted_by(what: str) -> None:
    """Name what stops the running command (``"SIGTERM"``) in its interrupted line: a
    KeyboardInterrupt raised for it ends the command as a Ctrl-C does."""
    _STOPPED_BY[0] = what


def on_interrupt(note: str | Callable[[], str]) -> None:
    """Say ``note`` (what was kept, what was not; a callable is asked when it happens) if the
    running command is stopped by Ctrl-C."""
    _INTERRUPT_NOTES.append(note)


def _leaves(exc: BaseException) -> list[BaseException]:
    """The exceptions inside ``exc`` (itself unless it is an exception group, e.g. from trio)."""
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for e in exc.exceptions for leaf in _leaves(e)]
    return [exc]


def for_command_line(message: str) -> str:
    """A library error as the command line says it: without its leading Python function name
    (``"load_adult: ..."`` names nothing the user typed), and a keyword spelled as in Python
    (``method='lp'``) spelled as its flag (``--method lp``)."""
    message = re.sub(r"^(?:[a-z][a-z0-9]*_[a-z0-9_]*|[A-Z][A-Za-z]+\.[a-z_]+): ", "", message)
    # a keyword spelled as in Python (use method='lp') is the flag on the command line
    return re.sub(
        r"(?<![\w-])([a-z][a-z0-9_]*)='([^'\s]*)'",
        lambda m: f"--{m.group(1).replace('_', '-')} {m.group(2)}",
        message,
    )


def _refusal(command: str, kind: str, message: str, status: int, as_json: bool) -> int:
    """Print ``mpc-rr CMD: <kind>: message`` on standard error (and, under ``--json``, one JSON
    object ``{"error", "kind", "exit"}`` on standard output); return ``status``."""
    print(f"mpc-rr {command}: {kind}: {message}", file=sys.stderr)
    if as_json:
        import json

        print(json.dumps({"error": message, "kind": kind, "exit": status, "command": command}))
    return status


def guarded(command: str, func: Callable[[], int | None], *, as_json: bool = False) -> int:
    """Run ``func`` and map what it raised to the exit status (module docstring).

    An exception group (a nursery's) counts as what is inside it: a Ctrl-C in any
    task is an interruption (130, one line), a usage error alone in it is a usage
    error.  ``as_json``: errors are also printed as one JSON object on stdout.
    """
    _INTERRUPT_NOTES.clear()
    _STOPPED_BY[0] = "Ctrl-C"
    try:
        return int(func() or 0)
    except BrokenPipeError:  # the reader went away (e.g. `| head`): not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except BaseException as top:
        leaves = _leaves(top)
        if any(isinstance(e, KeyboardInterrupt) for e in leaves):
            notes = [n if isinstance(n, str) else n() for n in _INTERRUPT_NOTES]
            note = "; ".join(notes) or "nothing was written"
            return _refusal(command, "interrupted", f"stopped by {_STOPPED_BY[0]}; {note}", EXIT_INTERRUPT, as_json)
        if isinstance(top, SystemExit):
            raise
        if not isinstance(top, Exception):
            raise
        errors = sys.modules.get("transports.errors")
        for exc in leaves if len(leaves) == 1 else [top]:
            if isinstance(exc, UsageError):
                return _refusal(command, "error", for_command_line(str(exc)), EXIT_USAGE, as_json)
            if isinstance(exc, ProtocolAbort):
                return _refusal(command, "protocol aborted", str(exc), EXIT_ABORT, as_json)
            # a network failure (a hub gone, a refused connection) is not a bug; transports is
            # imported only by commands that use it (not at `--help` time), hence the lookup
            if errors is not None and isinstance(exc, errors.TransportError):
                return _refusal(command, "transport error", str(exc), EXIT_ABORT, as_json)
        traceback.print_exc()
        return _refusal(
            command, "internal error",
            "a bug in mpc-rr; please report it with the traceback above", EXIT_BUG, as_json,
        )  # fmt: skip
