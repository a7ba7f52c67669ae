"""The registered sum protocols by name (:func:`sum_protocol`) and their options (:func:`sum_options`).

Every :class:`~mpc_rr.secure_sum.SumProtocol` registered in
:mod:`mpc_rr.core` is found here; this module imports no role (the command
line reads it at start-up).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from mpc_rr.core import UsageError, get_protocol, protocols
from mpc_rr.secure_sum._protocol import SumProtocol

__all__ = [
    "DEFAULT_SUM",
    "check_inner_sum",
    "given_options",
    "merge_sum_options",
    "sum_options",
    "sum_options_json",
    "sum_protocol",
    "sum_protocol_names",
    "sum_protocols",
]


DEFAULT_SUM = "secagg"
"""The inner sum of the pipeline's secure-sum dependence and RRBA's secure tally, and the sum
the commands run, when none is chosen (SecAgg+: dropouts tolerated in every step)."""


def sum_protocols(*, at_coordinator: bool = False) -> tuple[SumProtocol, ...]:
    """The registered sum protocols in name order (only those whose party 0 learns the sum,
    with ``at_coordinator``: what an outer protocol's coordinator can run)."""
    return tuple(
        s for s in protocols("sum")
        if isinstance(s, SumProtocol) and (s.total_at_coordinator or not at_coordinator)
    )  # fmt: skip


def sum_protocol(name: str) -> SumProtocol:
    """The registered sum protocol ``name`` (a :class:`UsageError` naming the sum protocols)."""
    try:
        spec = get_protocol(name)
    except UsageError:
        spec = None
    if not isinstance(spec, SumProtocol):
        raise UsageError(
            f"unknown sum protocol {name!r}; the sum protocols are: {', '.join(sum_protocol_names())}"
        )
    return spec


def sum_protocol_names(*, at_coordinator: bool = False) -> tuple[str, ...]:
    """Names of the registered sum protocols (only those whose party 0 learns the sum,
    with ``at_coordinator``: what an outer protocol's coordinator can run)."""
    return tuple(s.name for s in sum_protocols(at_coordinator=at_coordinator))


def check_inner_sum(protocol: str, *, learner: str = "coordinator") -> None:
    """Refuse ``protocol`` as the inner sum of an outer protocol (the pipeline's dependence, RRBA's
    tallies) unless it is a registered sum whose ``learner`` (party 0) learns the total."""
    names = sum_protocol_names(at_coordinator=True)
    if protocol not in names:
        raise UsageError(
            f"sum_protocol must be a sum protocol whose {learner} learns the sum "
            f"({', '.join(names)}), got {protocol!r}"
        )


def given_options(given: Any) -> Any:
    """An options mapping without its unset (``None``) entries; a parsed options struct as is."""
    if isinstance(given, Mapping):
        return {k: v for k, v in given.items() if v is not None}
    return given


def sum_options(
    protocol: str | SumProtocol,
    given: Mapping[str, Any],
    *,
    flag: Callable[[str], str] = str,
    where: str = "protocol",
) -> Any:
    """``given`` options (``None`` = default) parsed by ``protocol``'s spec, validated once.

    An option ``protocol`` does not have is refused naming the protocols that
    do: ``"--degree only apply to --protocol secagg"`` (``flag`` spells an
    option as its user typed it, ``where`` names the choice).
    """
    spec = sum_protocol(protocol) if isinstance(protocol, str) else protocol
    values = {k: v for k, v in given.items() if v is not None}
    bad = [k for k in values if k not in spec.option_names()]
    if bad:
        owners = [s.name for s in sum_protocols() if all(k in s.option_names() for k in bad)]
        names = ", ".join(flag(k) for k in bad)
        if owners:
            raise UsageError(f"{names} only apply to {where} {' or '.join(owners)}")
        own = ", ".join(flag(k) for k in spec.option_names()) or "none"
        raise UsageError(f"{names}: not an option of {spec.name} (its options: {own})")
    return spec.parse_options(values)



def sum_options_json(protocol: str | SumProtocol, given: Any) -> dict[str, Any]:
    """``given`` options of ``protocol`` parsed (defaults filled in) as JSON values: what a
    ``results.json`` records of the inner sum a run used."""
    import msgspec

    spec = sum_protocol(protocol) if isinstance(protocol, str) else protocol
    out: dict[str, Any] = msgspec.to_builtins(spec.parse_options(given_options(given)))
    return out


def merge_sum_options(given: Mapping[str, Any] | None, aliases: Mapping[str, Any]) -> dict[str, Any]:
    """The options ``given`` (``None`` values: unset) with ``aliases`` -- options a command also
    takes as flags of their own (SecAgg+'s ``--max-dropout``, ...) -- merged in; an option set
    both ways to different values is a :class:`UsageError`."""
    out = {k: v for k, v in dict(given or {}).items() if v is not None}
    for key, value in aliases.items():
        if value is None:
            continue
        if key in out and out[key] != value:
            raise UsageError(f"option {key} is given twice: {out[key]!r} and {value!r}")
        out[key] = value
    return out
