"""The protocol kinds a scenario can run: a small registry.

A :class:`Kind` says what the ``[protocol]`` table of a scenario holds (a
msgspec struct tagged with ``kind = "<name>"``: every field a parameter that
``[grid]`` may sweep), which data it needs, which metrics every run reports,
and how to run one grid point once (:attr:`Kind.run`, a pure function of a
:class:`RunContext` returning an :class:`Outcome`).

Built in: ``pipeline`` (``mpc-rr run``), ``secure-sum`` (full mesh or SecAgg+
on random one-hot inputs), ``rrba`` (:mod:`mpc_rr.rrba`), ``linkability``
(:mod:`mpc_rr.adversary`) and ``audit`` (empirical epsilon).  A new kind (the
distributed RRBA roles, an eavesdropper or coalition attack) plugs in with::

    from scenarios.experiments.kinds import Kind, register
    register(Kind(name="eavesdrop", params=EavesdropParams, run=run_eavesdrop,
                  metrics=("success", "baseline", "wall_s"), data="table"))

in a module listed in :data:`MODULES` (imported when a scenario is decoded).
The parameter structs import nothing heavy; run functions import the
library when they run.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import msgspec

from mpc_rr.core import UsageError

__all__ = [
    "KINDS",
    "MODULES",
    "Kind",
    "Outcome",
    "RunContext",
    "Scalar",
    "get",
    "kinds",
    "register",
]

Scalar = float | int | bool | str | None

#: modules that register the built-in kinds (imported on first use)
MODULES: tuple[str, ...] = (
    "scenarios.experiments.kinds.pipeline",
    "scenarios.experiments.kinds.secure_sum",
    "scenarios.experiments.kinds.rrba",
    "scenarios.experiments.kinds.linkability",
    "scenarios.experiments.kinds.audit",
    "scenarios.experiments.kinds.cheat",
    "scenarios.experiments.kinds.frontier",
)

KINDS: dict[str, Kind] = {}


@dataclass(frozen=True)
class RunContext:
    """One run: the parameters of its grid point, its seed, and the data (if the kind has any)."""

    params: Any  # the kind's params struct
    seed: int
    repeat: int
    source: Any = None  # scenarios.workloads.data_source.Source, or None for kinds without data


@dataclass(frozen=True)
class Outcome:
    """What one run produced.

    ``status``: ``ok``, or ``aborted`` when the protocol stopped cleanly
    without a result (too many dropouts: a finding, stored like any other).
    ``metrics``: flat scalars (the kind's :attr:`Kind.metrics`; ``None`` when
    undefined, e.g. an infinite epsilon or an aborted run's accuracy);
    ``result``: the full JSON document of the run.
    """

    status: Literal["ok", "aborted"]
    metrics: dict[str, Scalar]
    result: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Kind:
    """A protocol kind (see the module docstring).

    ``data``: ``"table"`` needs records (``adult``, a CSV file or a network to
    sample), ``"none"`` draws its own inputs (a ``[data]`` table is refused).
    ``check(params, source)`` refuses a grid point before any run (raise
    :class:`UsageError`; the caller names the point).  ``default_metrics``:
    shown when the scenario lists none.  ``choices``: fields whose allowed
    values are a live list (``field -> () -> names``, e.g. the registered sum
    protocols), checked when the scenario is decoded, as a ``Literal`` is.
    """

    name: str
    params: type[msgspec.Struct]
    run: Callable[[RunContext], Outcome]
    metrics: tuple[str, ...]
    default_metrics: tuple[str, ...] = ()
    data: Literal["table", "none"] = "table"
    check: Callable[[Any, Any], None] | None = None
    summary: str = ""
    choices: Mapping[str, Callable[[], Sequence[str]]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        tag = msgspec.inspect.type_info(self.params)
        if getattr(tag, "tag", None) != self.name or getattr(tag, "tag_field", None) != "kind":
            raise UsageError(
                f"Kind {self.name!r}: its params struct must be tagged: "
                f'class P(msgspec.Struct, tag="{self.name}", tag_field="kind", forbid_unknown_fields=True)'
            )
        unknown = [m for m in self.default_metrics if m not in self.metrics]
        if unknown:
            raise UsageError(
                f"Kind {self.name!r}: default metrics {unknown} are not among its metrics"
            )


def register(kind: Kind) -> Kind:
    """Add ``kind`` (a name may be registered once)."""
    if kind.name in KINDS and KINDS[kind.name] is not kind:
        raise UsageError(f"protocol kind {kind.name!r} is already registered")
    KINDS[kind.name] = kind
    return kind


def kinds() -> Mapping[str, Kind]:
    """Every registered kind (the built-in modules are imported on first call)."""
    for mod in MODULES:
        importlib.import_module(mod)
    return KINDS


def get(name: str) -> Kind:
    known = kinds()
    if name not in known:
        raise UsageError(f"protocol.kind: unknown kind {name!r}; known: {', '.join(known)}")
    return known[name]
