"""What ``mpc-rr rrba`` reports: per-subset results, marginal errors, epsilon, cost, plot.

Marginal errors (Imran & Meo, Sec. 3.2.1): for each order ``m`` in 2, 3, 4
(when the data has that many attributes) up to ``max_tables`` random
``m``-attribute sets (all of them when there are fewer), the estimate is the
RRBA table itself when the cover has that subset (``m == k``), else the
consistent marginal of the Sec. 4.3 QP (:func:`mpc_rr.rrba.reconstruct`);
``l2`` is on counts (``n`` x proportions), Jensen-Shannon in bits.  On wide
data the QP's cost is cubic in the distinct marginal cells the views
constrain on the set, so a set is evaluated by default only when they are at
most :data:`mpc_rr.rrba.MAX_ROWS` (1,000; every 3-/4-way set of Adult
fits); a refused set is skipped and counted (``skipped``).

The report itself is typed (:class:`~mpc_rr.workflows.RRBAResults`,
:mod:`mpc_rr.workflows._rrba_results`); ``results.json`` is its ``to_json()``.

Cost: the protocol-level counts every run knows exactly (answers, tables and
table cells sent to clients).  A distributed run (``--transport``) adds the
messages, bytes, rounds and wall time the runner measured (its
:class:`~mpc_rr.core.CostReport`), for the aggregator (party 0) and the
clients; the centralized engine sends no message, so those keys are
``null`` there, never estimated.  Every run reports its dropouts: clients
asked, answered, left out (silent or rejected) and blocks lost.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np

from mpc_rr.core import CostReport, Runner, RunResult, UsageError
from mpc_rr.data import Dataset
from mpc_rr.rrba import MAX_ROWS, RRBARun, empirical_table, js_divergence, l2_counts, reconstruct
from mpc_rr.rrba._consistency import marginal_rows
from mpc_rr.secure_sum import DEFAULT_SUM

__all__ = ["RRBACollection", "RunnerFactory", "collect_rrba", "marginal_errors", "summarize"]


def _targets(
    d: int,
    m: int,
    max_tables: int,
    rng: np.random.Generator,
    fits: Callable[[tuple[int, ...]], bool],
) -> tuple[list[tuple[int, ...]], int]:
    """Up to ``max_tables`` ``m``-attribute sets that ``fits`` accepts, and how many were refused.

    All of them when there are at most ``max_tables`` sets; else sets drawn uniformly from
    ``rng`` until ``max_tables`` distinct ones fit (a refused set is skipped, so when every set
    fits the draws are those of plain sampling), at most ``100 * max_tables`` draws.
    """
    if math.comb(d, m) <= max_tables:
        every = list(combinations(range(d), m))
        kept = [t for t in every if fits(t)]
        return kept, len(every) - len(kept)
    seen: set[tuple[int, ...]] = set()
    refused: set[tuple[int, ...]] = set()
    for _ in range(100 * max_tables):
        if len(seen) == max_tables:
            break
        t = tuple(sorted(int(a) for a in rng.choice(d, m, replace=False)))
        if t in seen or t in refused:
            continue
        (seen if fits(t) else refused).add(t)
    return sorted(seen), len(refused)


def marginal_errors(
    run: RRBARun,
    data: Dataset,
    rng: np.random.Generator,
    *,
    max_tables: int = 20,
    max_rows: int = MAX_ROWS,
    progress: Callable[[int, int, int], None] | None = None,
) -> dict[str, dict[str, Any]]:
    """l2 (counts) and Jensen-Shannon of the 2-, 3- and 4-way marginals to the truth.

    Which marginals: per order, up to ``max_tables`` attribute sets (see the module
    docstring) among those the structured solver handles in its budget: a set whose
    consistent marginal needs the QP is kept only when the views constrain at most
    ``max_rows`` distinct marginal cells on it (:func:`mpc_rr.rrba.marginal_rows`; the
    solver is cubic in them, :data:`mpc_rr.rrba.MAX_ROWS`); the collection's own tables
    always fit.  Each order reports ``skipped``, the sets refused by that rule, and
    ``max_rows``; an order with no set that fits is left out.  ``progress(order, done,
    total)`` is called after each marginal (``total``: that order's tables).

    ``max_tables=0`` skips the evaluation (an empty dict): the Sec. 4.3 QP of
    every 3-/4-way marginal is the costly part on wide data, and the
    collection's own tables do not need it.
    """
    if max_tables < 0:
        raise UsageError(f"marginal_errors: max_tables must be >= 0 (0 skips), got {max_tables}")
    if max_rows < 1:
        raise UsageError(f"marginal_errors: max_rows must be >= 1, got {max_rows}")
    if max_tables == 0:
        return {}
    sizes, d, n = data.schema.sizes, len(data.schema), data.n
    own = {tuple(s): t for s, t in zip(run.cover.subsets, run.estimates, strict=True)}

    def fits(tg: tuple[int, ...]) -> bool:
        return tg in own or marginal_rows(tg, sizes, run.cover.subsets) <= max_rows

    out: dict[str, dict[str, Any]] = {}
    for m in (2, 3, 4):
        if m > d:
            continue
        t0 = time.perf_counter()
        l2s, jss, residuals = [], [], []
        targets, skipped = _targets(d, m, max_tables, rng, fits)
        if not targets:
            continue
        for i, tg in enumerate(targets):
            if tg in own:
                est = own[tg]
            else:
                marg = reconstruct(tg, sizes, run.cover.subsets, run.estimates)
                est = marg.table
                residuals.append(marg.residual)
            truth = empirical_table(data.codes, sizes, tg)
            l2s.append(l2_counts(est, truth, n))
            jss.append(js_divergence(est, truth))
            if progress is not None:
                progress(m, i + 1, len(targets))
        out[str(m)] = {
            "tables": len(targets),
            "skipped": skipped,
            "max_rows": max_rows,
            "method": "qp" if residuals else "rrba tables",
            "l2_mean": float(np.mean(l2s)),
            "l2_max": float(np.max(l2s)),
            "js_mean": float(np.mean(jss)),
            "js_max": float(np.max(jss)),
            "view_inconsistency_mean": float(np.mean(residuals)) if residuals else 0.0,
            "seconds": time.perf_counter() - t0,
        }
    return out


def summarize(
    run: RRBARun,
    data: Dataset,
    source: str,
    marginals: dict[str, dict[str, Any]],
    costs: CostReport | None = None,
    *,
    secure_tally: bool = False,
    sum_protocol: str = DEFAULT_SUM,
    sum_options: Mapping[str, Any] | None = None,
    dp_epsilon: float | None = None,
    dp_delta: float = 1e-6,
) -> dict[str, Any]:
    """The JSON document of one run: :meth:`~mpc_rr.workflows.RRBAResults.to_json` of
    :func:`~mpc_rr.workflows.rrba_results` (same arguments)."""
    from mpc_rr.workflows._rrba_results import rrba_results

    return rrba_results(run, data, source, marginals, costs, secure_tally=secure_tally,
                        sum_protocol=sum_protocol, sum_options=sum_options,
                        dp_epsilon=dp_epsilon, dp_delta=dp_delta).to_json()  # fmt: skip


RunnerFactory = Callable[[Mapping[int, float] | float], Runner]
"""``factory(step_timeouts) -> Runner``: a runner for the distributed collection, given each
party's step timeout (a client waits its whole turn: :func:`mpc_rr.rrba.client_step_timeouts`)."""


@dataclass(frozen=True)
class RRBACollection:
    """One RRBA collection: the run and, when distributed, what the runner measured."""

    run: RRBARun
    execution: RunResult | None = None


def collect_rrba(
    data: Dataset,
    *,
    p: float,
    block: int,
    seed: int | np.random.SeedSequence = 0,
    k: int = 2,
    estimator: str = "pooled",
    repair: str = "clip",
    alpha: float = 0.05,
    t_floor: float = 0.0,
    stop: str = "never",
    client_rng: str = "per-client",
    runner: RunnerFactory | None = None,
    step_timeout: float = 60.0,
    secure_tally: bool = False,
    sum_protocol: str = DEFAULT_SUM,
    sum_options: Mapping[str, Any] | None = None,
    dropout: float = 0.0,
    run_id: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    dp_epsilon: float | None = None,
    dp_delta: float = 1e-6,
) -> RRBACollection:
    """One RRBA collection over every record of ``data`` (Imran & Meo).

    Without ``runner``: the centralized engine (:func:`mpc_rr.rrba.run_rrba`),
    no message.  With one (``runner(step_timeouts) -> Runner``): the
    Aggregator and Client roles as a distributed protocol, optionally with
    secure block tallies (``secure_tally``: ``sum_protocol`` with
    ``sum_options``), and ``round(dropout * n)`` clients, drawn from their own
    child of the seed, silent at the step where their answer leaves them; the
    same seed gives the same estimates as the centralized engine.  ``dp_epsilon``,
    ``dp_delta``: distributed Skellam noise in the secure tallies for that central
    ``(epsilon, delta)`` per record (:mod:`mpc_rr.rrba._noisy_tally`).
    """
    from mpc_rr.core import DropAt
    from mpc_rr.rrba import run_distributed, run_rrba
    from mpc_rr.rrba._messages import Answer
    from mpc_rr.rrba._protocol import client_step_timeouts, config_for

    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    if runner is None:
        if secure_tally or dropout or dp_epsilon is not None:
            raise UsageError("a secure tally, its noise or dropouts need a distributed run (a runner)")
        run = run_rrba(
            data, p=p, block=block, k=k, estimator=estimator, repair=repair, alpha=alpha,
            t_floor=t_floor, stop=stop, client_rng=client_rng, seed=ss,
        )  # fmt: skip
        return RRBACollection(run)
    if client_rng != "per-client":
        raise UsageError("client_rng 'shared' is for the centralized engine only: distributed "
                         "clients each hold their own generator")  # fmt: skip
    cfg = config_for(
        data, block, p, k=k, estimator=estimator, repair=repair, alpha=alpha, t_floor=t_floor,
        stop=stop, run=run_id or f"rrba-{ss.entropy}", secure_tally=secure_tally,
        sum_protocol=sum_protocol, sum_options=dict(sum_options or {}), dp_epsilon=dp_epsilon,
        dp_delta=dp_delta,
    )  # fmt: skip
    # the dropouts: drawn from their own child of the seed, so the protocol's draws are unchanged
    root = ss.entropy if isinstance(ss.entropy, int) else 0
    drop_rng = np.random.default_rng(np.random.SeedSequence(root, spawn_key=(99,)))
    silent = set((1 + drop_rng.permutation(data.n)[: round(dropout * data.n)]).tolist())
    at = cfg.sum_spec.step_messages()[cfg.sum_spec.input_step] if secure_tally else Answer
    d = run_distributed(
        data, cfg, runner(client_step_timeouts(cfg, step_timeout)), ss, progress=progress,
        client_patience=1, wrap=lambda pid, role: DropAt(role, at) if pid in silent else role,
    )  # fmt: skip
    return RRBACollection(d.run, d.result)
