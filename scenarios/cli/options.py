"""Options shared by the commands of ``mpc-rr``: flag groups, the runner choice, output lines.

The argument types (refusing a bad value before any work, naming the flag's
rule) are :mod:`parties.cli_args`', re-exported here for the commands.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from mpc_rr.core._registry import option_flag
from parties.cli_args import (
    HelpFormatter,
    add_json,
    add_seed,
    add_step_timeout,
    bounded,
    int_at_least,
    non_negative,
    on_interrupt,
    open_open,
    open_unit,
    output_dir,
    output_file,
    positive_float,
    probability,
    unit_interval,
)

__all__ = [
    "HelpFormatter",
    "add_json",
    "add_protocol_options",
    "add_secagg_bounds",
    "add_seed",
    "add_shard_flags",
    "add_step_timeout",
    "add_sum_option",
    "args_digest",
    "available_memory",
    "given_options",
    "human_bytes",
    "human_seconds",
    "inner_sum_options",
    "int_at_least",
    "non_negative",
    "on_interrupt",
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


def _field_kind(t: Any) -> tuple[Any, str]:
    """``(msgspec type info without None, description)`` of an option field's type."""
    import msgspec

    desc = ""
    if isinstance(t, msgspec.inspect.UnionType):
        t = next(x for x in t.types if not isinstance(x, msgspec.inspect.NoneType))
    if isinstance(t, msgspec.inspect.Metadata):
        desc = str((t.extra_json_schema or {}).get("description", ""))
        t = t.type
    return t, desc


def add_protocol_options(
    parser: argparse.ArgumentParser | argparse._ArgumentGroup,
    specs: Sequence[Any],
    *,
    chooser: str = "--protocol",
    flag: Callable[[str], str] = option_flag,
) -> dict[str, str]:
    """One flag per option field of the protocols ``specs`` (their typed options structs).

    The flag's type and bounds come from the field (``Meta(ge=..., lt=...)``),
    its help from the field's description, followed by the protocols it
    applies to; its default is ``None`` (the protocol's own).  A field shared
    by several protocols gets one flag.  Returns ``{field: flag}`` for
    :func:`given_options`.
    """
    import msgspec

    owners: dict[str, list[str]] = {}
    info: dict[str, tuple[Any, str]] = {}
    for spec in specs:
        for f in msgspec.inspect.type_info(spec.options).fields:
            owners.setdefault(f.name, []).append(spec.name)
            info.setdefault(f.name, _field_kind(f.type))
    out = {}
    for name, (t, desc) in info.items():
        only = f" (only {chooser} {' or '.join(owners[name])})" if len(owners[name]) < len(specs) else ""
        if isinstance(t, msgspec.inspect.BoolType):
            parser.add_argument(flag(name), action="store_true", default=None, dest=name,
                                help=f"{desc}{only}")  # fmt: skip
        else:
            kind = int if isinstance(t, msgspec.inspect.IntType) else float
            if not isinstance(t, msgspec.inspect.IntType | msgspec.inspect.FloatType):
                kind = str  # type: ignore[assignment]
            conv = (
                bounded(kind, ge=t.ge, gt=t.gt, le=t.le, lt=t.lt) if kind is not str else str
            )  # fmt: skip
            parser.add_argument(flag(name), type=conv, default=None, dest=name, help=f"{desc}{only}")
        out[name] = flag(name)
    return out


def given_options(args: argparse.Namespace, flags: Mapping[str, str]) -> dict[str, Any]:
    """The options a user gave (``None`` dropped) among the fields of :func:`add_protocol_options`."""
    return {k: getattr(args, k) for k in flags if getattr(args, k, None) is not None}


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


SECAGG_ALIASES: dict[str, str] = {
    "max_dropout": "max_dropout", "max_corrupt": "max_corrupt",
    "secagg_degree": "degree", "secagg_failure": "failure",
}  # fmt: skip
"""The SecAgg+ flags a command with an inner sum keeps (``--secagg-degree`` is ``--sum-option degree=K``)."""


def add_sum_option(p: argparse.ArgumentParser, scope: str = "") -> None:
    """``--sum-option KEY=VALUE`` (repeatable): an option of the inner sum (``--sum``), checked
    against that protocol's options struct -- the same for every protocol."""
    p.add_argument(
        "--sum-option", action="append", default=[], metavar="KEY=VALUE",
        help=f"{scope}an option of the --sum protocol, repeatable (e.g. degree=8 for secagg, "
        "field=field128 for prio3, proceed_on_timeout=true for plainsum: each protocol's options "
        "are those of mpc-rr secure-sum --protocol NAME); --max-dropout, --max-corrupt, "
        "--secagg-degree and --secagg-failure are SecAgg+'s, as flags",
    )  # fmt: skip


def inner_sum_options(
    args: argparse.Namespace, protocol: str, where: str = "--sum", *, with_flags: bool = True
) -> dict[str, Any]:
    """The inner sum's options from ``--sum-option`` and the SecAgg+ flags of ``args``,
    validated by ``protocol``'s options struct (a :class:`UsageError` naming the flag) and
    returned as given (JSON values; the library parses them again where it runs); without
    ``with_flags``, only the ``--sum-option`` ones (a caller that passes the flags itself)."""
    from mpc_rr.core import UsageError
    from mpc_rr.secure_sum import merge_sum_options, sum_options

    pairs: dict[str, Any] = {}
    for item in getattr(args, "sum_option", None) or ():
        key, sep, value = item.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or not key:
            raise UsageError(f"--sum-option takes KEY=VALUE, got {item!r}")
        if key in pairs:
            raise UsageError(f"--sum-option {key} is given twice")
        pairs[key] = _option_value(value.strip())
    flags = {f: getattr(args, f, None) for f in SECAGG_ALIASES}
    aliases = {SECAGG_ALIASES[f]: v for f, v in flags.items() if v is not None}
    spelled = {SECAGG_ALIASES[f]: "--" + f.replace("_", "-") for f, v in flags.items() if v is not None}
    given = merge_sum_options(pairs, aliases)
    sum_options(protocol, given, flag=lambda k: spelled.get(k, f"--sum-option {k}"), where=where)
    return given if with_flags else pairs


def _option_value(text: str) -> Any:
    """A ``--sum-option`` value as JSON where it reads as JSON (numbers, true/false), else the text."""
    import json

    try:
        return json.loads(text)
    except ValueError:
        return text


def add_network(p: argparse.ArgumentParser, what: str = "the run") -> None:
    """``--network lan|wan|mobile|FILE.toml``: price ``what`` on a network profile."""
    p.add_argument(
        "--network", default=None, metavar="lan|wan|mobile|FILE.toml",
        help=f"price {what} on a network profile (transports/network_profiles.py): run it over the "
        "simulated network (memory transport, one process, virtual time) and print the projected "
        "wall time of the deployment, network critical path + CPU here (docs/runtime.md)",
    )  # fmt: skip


def network_runner_of(args: argparse.Namespace, transport: str | None, **options: Any) -> Any:
    """The :class:`~parties.pricing.PricedRunner` of ``--network``, or ``None`` without it."""
    if getattr(args, "network", None) is None:
        return None
    from mpc_rr.core import UsageError
    from parties.pricing import network_runner

    if getattr(args, "engine", "processes") != "processes":
        raise UsageError("--network runs the parties in one process: drop --engine ray")
    return network_runner(args.network, args.seed, transport=transport,
                          workers=getattr(args, "workers", None), **options)  # fmt: skip


def runner_choice(args: argparse.Namespace) -> tuple[str, dict[str, object]]:
    """The runner name and sharding options for ``runner_for`` (refusing flags that do not apply,
    and more worker processes than this machine runs well); imports nothing heavy, so a command
    calls it before any work."""
    from mpc_rr.core import UsageError
    from parties.cores import available_cores, check_workers

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
    if args.engine == "processes" and args.workers is not None:
        check_workers(args.workers, "--workers")
    if args.transport != "memory":
        return args.transport, {}
    if args.engine == "ray":
        from mpc_rr.core import require_extra

        require_extra("ray", "ray", needed_for="--engine ray")
        return "ray", {"workers": args.workers, "ray_address": args.ray_address}
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


def args_digest(args: argparse.Namespace, skip: Sequence[str] = ("out", "json", "no_plot", "func")) -> str:
    """Six hex digits naming a command line's choices (``--out``, ``--json`` aside): output
    files named with it are not overwritten by a run asked for differently."""
    import hashlib

    items = sorted((k, repr(v)) for k, v in vars(args).items() if k not in skip)
    return hashlib.sha256(repr(items).encode()).hexdigest()[:6]


def available_memory() -> int:
    """Bytes of physical memory free now (a huge number where this cannot be read: no refusal
    on a guess)."""
    import os

    try:
        return int(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return 1 << 62


def human_bytes(n: float) -> str:
    """``n`` bytes as ``"512 B"``, ``"3.4 KiB"``, ``"120 MiB"``, ``"1.9 GiB"`` (never "0 MiB")."""
    for unit, scale in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= scale:
            v = n / scale
            return f"{v:.1f} {unit}" if v < 10 else f"{v:,.0f} {unit}"
    return f"{n:.0f} B"


def human_seconds(s: float) -> str:
    """A duration as ``"40 s"``, ``"12 min"``, ``"3.5 h"``, ``"9 days"``."""
    if s < 120:
        return f"{s:.0f} s"
    if s < 7200:
        return f"{s / 60:.0f} min"
    if s < 3 * 86400:
        return f"{s / 3600:.1f} h"
    return f"{s / 86400:,.0f} days"


def warn(command: str, message: str) -> None:
    """A warning on standard error, in the one format: ``mpc-rr CMD: warning: ...``."""
    import sys

    print(f"mpc-rr {command}: warning: {message}", file=sys.stderr)
