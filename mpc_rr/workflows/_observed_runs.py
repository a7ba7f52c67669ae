"""Which protocols an eavesdropper can watch live: every sum protocol, and the outer protocols
whose observed run the workflows register here (import-light: the command line reads it)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mpc_rr.core import UsageError, protocol_names
from mpc_rr.core._registry import lazy

__all__ = ["eavesdrop_protocols", "observed_run_of", "register_observed_run"]

_RUNS: dict[str, Callable[..., Any]] = {}


def register_observed_run(protocol: str, run: Callable[..., Any] | str) -> None:
    """``run(network=, meta=, parties=, seed=, planted=, step_timeout=, entropy=, ...) ->
    ObservedRun``: how :func:`~mpc_rr.workflows.observed_run` runs ``protocol`` (not a sum
    protocol: those run through their :class:`~mpc_rr.secure_sum.SumProtocol`); a string
    ``"module:attribute"`` is imported on first use."""
    _RUNS[protocol] = lazy(run) if isinstance(run, str) else run


def observed_run_of(protocol: str) -> Callable[..., Any]:
    """The registered observed run of ``protocol`` (a :class:`UsageError` if none)."""
    run = _RUNS.get(protocol)
    if run is None:
        raise UsageError(f"{protocol} has no observed run (those with one: {', '.join(sorted(_RUNS))})")
    return run


def eavesdrop_protocols() -> tuple[str, ...]:
    """Every sum protocol and every protocol with a registered observed run, in name order."""
    known = set(protocol_names())
    return tuple(sorted(set(protocol_names(family="sum")) | (set(_RUNS) & known)))


def _register_builtin() -> None:
    from mpc_rr.pipeline import PIPELINE
    from mpc_rr.rrba import RRBA

    register_observed_run(PIPELINE.name, "mpc_rr.workflows._observed:pipeline_run")
    register_observed_run(RRBA.name, "mpc_rr.workflows._observed:rrba_run")


_register_builtin()
