"""Run a secure sum end to end, check it against the plaintext sum, and report its costs.

Used by the ``secure-sum`` command, tests and benchmarks.  It plans the
roles of a protocol (:class:`mpc_rr.secure_sum.SecureSumPlan`),
makes chosen parties crash at a chosen step
(:class:`mpc_rr.core.DropPlan`), runs them with any
:class:`~mpc_rr.core.Runner` (harness, memory, sharded, Ray, TCP), and compares the result
with the plain sum of the included inputs.  Also here: the two Section 4.2 /
4.3 computations built on a secure sum (:func:`exact_bivariate_counts`,
:func:`pairwise_rr_counts`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mpc_rr.core import (
    COORDINATOR,
    CostReport,
    DropPlan,
    HarnessRunner,
    ProtocolAbort,
    Runner,
    RunResult,
    UsageError,
)
from mpc_rr.core._errors import blame_json
from mpc_rr.core._gc import simulation_gc
from mpc_rr.data import Schema
from mpc_rr.estimation import Estimate, dependence_matrix_from_tables
from mpc_rr.mdrr import PairLayout, composed_epsilons
from mpc_rr.mdrr._pairwise import estimate_pair_tables, pair_cells, pair_dependences, perturb_pairs
from mpc_rr.mechanisms import JointMechanism
from mpc_rr.secure_sum import DEFAULT_SUM, SecureSumPlan, SeededEntropy, sum_options, sum_protocol
from mpc_rr.secure_sum._trust import NO_VALIDITY

__all__ = [
    "BivariateCounts",
    "PairwiseCounts",
    "SumReport",
    "exact_bivariate_counts",
    "pairwise_rr_counts",
    "run_secure_sum",
]


@dataclass(frozen=True)
class SumReport:
    """Outcome and costs of one secure-sum run."""

    protocol: str
    parties: int
    cells: int
    exact: bool
    aborted: str | None
    culprits: tuple[int, ...]
    inputs_in_sum: int  # parties whose input the total counts (one that left after sending it: counted)
    dropped: tuple[int, ...]  # parties that crashed, at any step (before or after sending their input)
    params: dict[str, Any]
    costs: CostReport
    total: np.ndarray | None = field(default=None, repr=False)
    run: RunResult | None = field(default=None, repr=False)
    rejected: tuple[int, ...] = ()  # senders whose reports failed a validity proof (prio3)
    suspects: tuple[tuple[int, ...], ...] = ()  # on an abort: groups of which one cheated (ProtocolAbort)
    validity: str = NO_VALIDITY  # what the run proved of each input (SumProtocol.validity_of)
    included: tuple[int, ...] = field(default=(), repr=False)  # the parties whose input is counted

    @property
    def survivors(self) -> int:
        """Data parties that did not drop out (``parties`` minus ``dropped``)."""
        return self.parties - len(self.dropped)

    @property
    def dropped_after_input(self) -> tuple[int, ...]:
        """The dropped parties whose input the total still counts."""
        counted = set(self.included)
        return tuple(p for p in self.dropped if p in counted)

    def to_json(self) -> dict[str, Any]:
        return {
            "protocol": self.protocol,
            "parties": self.parties,
            "cells": self.cells,
            "exact": self.exact,
            "aborted": self.aborted,
            "culprits": list(self.culprits),
            "suspects": [blame_json(g) for g in self.suspects],
            "survivors": self.survivors,  # parties that did not drop out
            "inputs_in_sum": self.inputs_in_sum,  # a party that left after sending its input counts
            "dropped": list(self.dropped),
            "dropped_count": len(self.dropped),
            "rejected": {"count": len(self.rejected), "ids": list(self.rejected)},
            "validity": self.validity,
            "params": self.params,
            "transport": self.costs.transport,
            "messages": self.costs.messages,
            "bytes": self.costs.bytes,
            "wall_s": self.costs.wall_s,
            "cost": self.costs.to_json(),
        }


def run_secure_sum(
    protocol: str,
    inputs: np.ndarray,
    *,
    runner: Runner | None = None,
    seed: int = 0,
    dropout: float = 0.0,
    drop_step: str | None = None,
    victims: Mapping[int, str] | None = None,
    options: Mapping[str, Any] | None = None,
    deterministic: bool = False,
    run: str | None = None,
    one_hot_blocks: tuple[int, ...] | None = None,
    **more_options: Any,
) -> SumReport:
    """Run one secure sum and check it against the plaintext sum of the included inputs.

    Parameters
    ----------
    runner:
        How to run the roles (default: the harness).
    dropout, drop_step:
        ``round(dropout * n)`` data parties, chosen with ``seed``, crash when
        they would send their message of step ``drop_step`` (the protocol's
        ``steps``: SecAgg+ ``keys``, ``shares``, ``masked``, ``unmask``; full
        mesh ``keys``, ``shares``, ``publish``; default the last).
    victims:
        Explicit crashes ``{party: step}`` (instead of ``dropout``).
    options, more_options:
        The protocol's options (e.g. SecAgg+'s ``max_dropout``, ``degree``;
        ``None``: its defaults), validated by its spec; independent of
        ``dropout``, so a run beyond the tolerated bound aborts cleanly.
    deterministic:
        :class:`SeededEntropy` (reproducible; tests and teaching only) instead
        of the OS CSPRNG for keys, seeds and shares.
    one_hot_blocks:
        The cells of each block every input is one-hot in (e.g. one block per
        attribute pair): a protocol that proves its inputs (Prio3's ``auto``
        circuit) proves exactly that (:attr:`~mpc_rr.secure_sum.SumProtocol.one_hot_options`).
    """
    runner = runner if runner is not None else HarnessRunner()
    x = np.asarray(inputs)
    if x.ndim != 2:
        raise UsageError(f"inputs must be a (parties, cells) matrix, got shape {x.shape}")
    n, cells = x.shape
    if not 0.0 <= dropout < 1.0:
        raise UsageError(f"dropout must be in [0, 1), got {dropout}")
    spec = sum_protocol(protocol)
    steps = dict(spec.step_messages())
    rng = np.random.default_rng(seed)
    plan = dict(victims or {})
    if dropout > 0:
        if plan:
            raise UsageError("give either dropout or victims, not both")
        step = drop_step if drop_step is not None else list(steps)[-1]
        chosen = rng.choice(np.arange(1, n + 1), size=round(dropout * n), replace=False)
        plan = {int(v): step for v in chosen}
    for v, step in plan.items():
        if step not in steps:
            raise UsageError(f"{protocol} has steps {list(steps)}, got {step!r}")
        if not 1 <= v <= n:
            raise UsageError(f"victim {v} is not a data party (1..{n})")
    ent = SeededEntropy(seed).spawn if deterministic else None
    opts: Any = {**dict(options or {}), **more_options}
    if one_hot_blocks is not None:
        if sum(one_hot_blocks) != cells:
            raise UsageError(f"one_hot_blocks {tuple(one_hot_blocks)} sum to {sum(one_hot_blocks)} cells, not {cells}")
        opts = spec.one_hot_options(sum_options(protocol, opts), tuple(one_hot_blocks))
    sums = SecureSumPlan(
        protocol, x, run=run if run is not None else f"{protocol}-{seed}", entropy=ent, options=opts,
    )  # fmt: skip
    params = sums.public_params()
    validity = spec.validity_of(sums.public()) if spec.validity is not None else NO_VALIDITY
    t0 = time.perf_counter()
    with simulation_gc():
        res = runner(DropPlan(sums, {v: steps[step] for v, step in plan.items()}))
    params["transport"] = runner.name
    params["wall_s"] = time.perf_counter() - t0
    roles = res.roles  # (a runner may add a relay hub the protocol does not have: ask the plan)
    ids = sums.parties
    watcher = roles[COORDINATOR] if COORDINATOR in ids else roles[min(set(ids) - set(plan))]
    aborted: str | None = None
    culprits: tuple[int, ...] = ()
    suspects: tuple[tuple[int, ...], ...] = ()
    total: np.ndarray | None = None
    included: tuple[int, ...] = ()
    rejected: tuple[int, ...] = ()
    try:
        r = spec.result_of(watcher)
        total, included = r.total, r.included
        rejected = tuple(getattr(r, "rejected", ()))
    except ProtocolAbort as exc:
        aborted, culprits, suspects = str(exc), exc.culprits, exc.suspects
    except RuntimeError as exc:
        aborted = f"did not finish: {exc}"
    exact = total is not None and np.array_equal(total, x[np.asarray(included, int) - 1].sum(axis=0))
    return SumReport(
        protocol, n, cells, bool(exact), aborted, tuple(culprits), len(included),
        tuple(sorted(plan)), params, res.costs, total, res, rejected, suspects, validity,
        tuple(int(p) for p in included),
    )  # fmt: skip


def _checked_total(rep: SumReport) -> np.ndarray:
    if rep.aborted or rep.total is None:
        raise ProtocolAbort(f"secure sum did not finish: {rep.aborted}", rep.culprits, rep.suspects)
    if not rep.exact:
        raise ProtocolAbort("secure sum result differs from the plaintext sum")
    return rep.total


def _pair_blocks(layout: PairLayout) -> tuple[int, ...]:
    """Each attribute pair's cells: every party's input is one-hot in each (Sec. 4.2 / 4.3)."""
    return tuple(int(b) for b in np.diff(layout.offsets))


@dataclass(frozen=True)
class BivariateCounts:
    """Tables of every attribute pair, their dependence matrix and the run's report."""

    tables: dict[tuple[int, int], np.ndarray]
    dependence: np.ndarray
    report: SumReport


def exact_bivariate_counts(
    codes: np.ndarray, schema: Schema, *, protocol: str = DEFAULT_SUM, **kwargs: Any
) -> BivariateCounts:
    """Section 4.2: every party's one-hot pair cells summed securely (``kwargs``: run_secure_sum's).

    Raises :class:`ProtocolAbort` if the secure sum aborted or was not exact;
    with dropouts (SecAgg+) the tables count the included parties only.
    """
    layout = PairLayout(schema.sizes)
    rep = run_secure_sum(protocol, layout.one_hot(codes), one_hot_blocks=_pair_blocks(layout), **kwargs)
    tables = layout.decode(_checked_total(rep))
    return BivariateCounts(tables, dependence_matrix_from_tables(tables, schema), rep)


@dataclass(frozen=True)
class PairwiseCounts:
    """Section 4.3 over a secure sum: observed and estimated pair tables, dependences, epsilons."""

    observed: dict[tuple[int, int], np.ndarray]
    estimates: dict[tuple[int, int], Estimate]
    tables: dict[tuple[int, int], np.ndarray]
    dependence: np.ndarray
    epsilon_sequential: np.ndarray
    epsilon_parallel: np.ndarray
    report: SumReport


def pairwise_rr_counts(
    codes: np.ndarray,
    schema: Schema,
    mechanism: Callable[[tuple[int, int]], JointMechanism] | Mapping[tuple[int, int], JointMechanism],
    rng: np.random.Generator,
    *,
    protocol: str = DEFAULT_SUM,
    method: str = "clip",
    **kwargs: Any,
) -> PairwiseCounts:
    """Section 4.3: pairwise RR (:mod:`mpc_rr.mdrr._pairwise`) submitted through a secure sum.

    ``mechanism((|A_i|, |A_j|))`` builds each pair's matrix, or a mapping
    ``{(i, j): mechanism}``; ``rng`` draws every party's randomization
    (vectorized); ``method`` is the repair of Eq. 2.
    """
    layout = PairLayout(schema.sizes)
    mechs = [
        mechanism[(i, j)] if isinstance(mechanism, Mapping) else mechanism((schema.sizes[i], schema.sizes[j]))
        for i, j in layout.pairs
    ]
    c = np.asarray(codes)
    cells = pair_cells(perturb_pairs(c, layout, mechs, rng), layout)
    x = np.zeros((c.shape[0], layout.cells), np.uint8)
    np.put_along_axis(x, cells, 1, axis=1)
    rep = run_secure_sum(protocol, x, one_hot_blocks=_pair_blocks(layout), **kwargs)
    observed = layout.decode(_checked_total(rep))
    est = estimate_pair_tables(observed, mechs, layout, method)
    seq, par = composed_epsilons(
        {k: float(m.epsilon) for k, m in zip(layout.pairs, mechs, strict=True)}, len(schema)
    )
    return PairwiseCounts(
        observed, est.estimates, est.tables, pair_dependences(est.tables, schema), seq, par, rep
    )
