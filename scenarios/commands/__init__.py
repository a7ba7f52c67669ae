"""The subcommands of ``mpc-rr``; each module exposes ``register(subparsers)``.

Argument types that refuse bad values before any work, naming the flag's rule
(argparse prefixes the flag: ``argument --queries: must be an integer >= 1, got 0``).
"""

from __future__ import annotations

import argparse
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

__all__ = [
    "HelpFormatter",
    "add_shard_flags",
    "int_at_least",
    "open_open",
    "open_unit",
    "output_dir",
    "output_file",
    "positive_float",
    "probability",
    "runner_choice",
    "unit_interval",
    "warn",
    "wire_summary",
]


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


def add_shard_flags(p: argparse.ArgumentParser) -> None:
    """``--workers``, ``--engine`` and ``--ray-address``: sharding the in-memory simulation."""
    p.add_argument(
        "--workers", type=int_at_least(1), default=None,
        help="shard the memory-transport simulation over N worker processes (or Ray actors); "
        "default: the cores available; 1 = every party in this process",
    )  # fmt: skip
    p.add_argument(
        "--engine", choices=("processes", "ray"), default="processes",
        help="where the shards run: worker processes on this machine, or Ray actors (needs "
        "mpc-rr[ray]; see docs/scale.md)",
    )  # fmt: skip
    p.add_argument(
        "--ray-address", default=None,
        help="with --engine ray: 'auto' joins the cluster of `ray start --head`, or host:port; "
        "default: start a local Ray instance",
    )  # fmt: skip


def add_secagg_bounds(p: argparse.ArgumentParser, scope: str = "", parties: str = "parties") -> None:
    """``--max-dropout`` and ``--max-corrupt``: the two bounds SecAgg+'s threshold is sized by.

    ``scope`` prefixes the help (``"secure-sum sources: "``); ``parties`` names who
    drops out or colludes (``"a block's clients"``).
    """
    p.add_argument(
        "--max-dropout", type=open_unit, default=None,
        help=f"{scope}SecAgg+ tolerated fraction of {parties} that drop out (default 0.1)",
    )  # fmt: skip
    p.add_argument(
        "--max-corrupt", type=open_unit, default=None,
        help=f"{scope}SecAgg+ tolerated fraction of {parties} colluding with the aggregator "
        "(default 0.1): the threshold exceeds what such a coalition holds of any neighbourhood, "
        "and the default degree grows until both bounds hold",
    )  # fmt: skip


def runner_choice(args: argparse.Namespace) -> tuple[str, dict[str, object]]:
    """The runner name and sharding options for ``runner_for`` (refusing flags that do not apply)."""
    from mpc_rr.core import UsageError

    if args.transport != "memory":
        if args.workers is not None and args.workers > 1:
            raise UsageError(
                f"--workers {args.workers} shards the in-memory simulation: it needs --transport "
                f"memory, got --transport {args.transport}"
            )
        if args.engine != "processes":
            raise UsageError(f"--engine {args.engine} needs --transport memory, got {args.transport}")
    if args.ray_address is not None and args.engine != "ray":
        raise UsageError("--ray-address only applies to --engine ray")
    if args.transport != "memory":
        return args.transport, {}
    if args.engine == "ray":
        return "ray", {"workers": args.workers, "ray_address": args.ray_address}
    from parties.shards import available_cores

    workers = args.workers if args.workers is not None else available_cores()
    return "memory", {"workers": workers}


def wire_summary(cost: dict[str, object]) -> str | None:
    """One line comparing TCP wire bytes with payload bytes, or ``None`` without wire figures.

    ``cost`` is a ``CostReport.to_json()``; the TCP runners add ``wire_bytes``,
    ``wire_bytes_setup`` and ``handshakes``.
    """
    wire = cost.get("wire_bytes")
    if not isinstance(wire, int):
        return None
    payload = int(cost.get("bytes", 0))  # type: ignore[call-overload]
    setup = int(cost.get("wire_bytes_setup", 0))  # type: ignore[call-overload]
    hs = int(cost.get("handshakes", 0))  # type: ignore[call-overload]
    kind = "TLS" if cost.get("tls", True) else "plaintext"
    ratio = f", {wire / payload:.2f}x the payload" if payload else ""
    return (
        f"wire ({kind} over TCP, hop by hop): {wire:,} bytes{ratio}; of which {setup:,} setting up "
        f"{hs:,} connection(s) ({kind} handshakes, hello/welcome) and {wire - setup:,} carrying "
        f"{payload:,} payload bytes (framing, {kind} records, relays through the hub)"
    )


def warn(command: str, message: str) -> None:
    """A warning on standard error, in the one format: ``mpc-rr CMD: warning: ...``."""
    import sys

    print(f"mpc-rr {command}: warning: {message}", file=sys.stderr)
