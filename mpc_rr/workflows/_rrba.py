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
from mpc_rr.rrba import (
    MAX_ROWS,
    RRBARun,
    empirical_table,
    epsilon_cap,
    js_divergence,
    l2_counts,
    reconstruct,
)
from mpc_rr.rrba._consistency import marginal_rows
from mpc_rr.secure_sum import DEFAULT_SUM
from mpc_rr.secure_sum._family import given_options, sum_options_json
from mpc_rr.workflows._privacy import (
    ledger_curve,
    rrba_crowds,
    rrba_ledger,
    rrba_noise_central,
    sum_channel,
)
from mpc_rr.workflows._validity import rrba_validity

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


def _finite(x: float) -> float | None:
    return None if math.isinf(x) or math.isnan(x) else float(x)


def _cost(run: RRBARun, costs: CostReport | None, cells_sent: int) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "answers": int(run.answers.sum()),
        "tables_sent": int(run.sent.sum()),
        "table_cells_sent": cells_sent,
        "dropouts": run.dropouts(),
        "late": run.late,
    }
    if costs is None:
        return {
            **doc, "transport": None, "messages": None, "bytes": None, "rounds": None,
            "wall_s": None, "aggregator": None, "clients": None,
            "note": "centralized engine: no messages are sent (use --transport harness|memory|tcp)",
        }  # fmt: skip
    clients = costs.data_parties()
    return {
        **doc,
        "transport": costs.transport,
        "messages": costs.messages,
        "bytes": costs.bytes,
        "rounds": costs.rounds,
        "wall_s": costs.wall_s,
        "aggregator": costs.coordinator(),
        "clients": {"count": len(costs.parties) - 1, **clients},
        "peer_errors": costs.peer_errors,
        **costs.extra,
    }


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
    """The JSON document of one run (``results.json``); ``costs`` of a distributed run;
    ``sum``: the secure tally's protocol and its options (``None`` for answers in the clear);
    ``dp_epsilon``, ``dp_delta``: the secure tally's distributed noise (the ledger then
    states the tally's central figure, :func:`~mpc_rr.workflows._privacy.rrba_noise_central`).

    ``privacy``: the ledger (docs/privacy.md) -- answers sent directly amplify nothing; a
    secure tally reveals only each block's histogram per table (shuffle amplification), under
    the tally's assumption (``sum_protocol`` with ``sum_options``: who must be honest).
    ``validity``: what each phase proves of a client's answer.
    """
    names = data.schema.names
    last = run.held[-1] if run.held.size else np.zeros(len(run.cover.subsets), bool)
    subsets = []
    for s, sub in enumerate(run.cover.subsets):
        est, tru = run.estimates[s], run.truth[s]
        subsets.append(
            {
                "attributes": [names[a] for a in sub],
                "cells": int(est.size),
                "answers": int(run.answers[s]),
                "blocks": int(run.blocks_used[s]),
                "first_held_block": int(run.first_held[s]) or None,
                "converged": bool(run.converged[s]),
                "held_at_last_block": bool(last[s]),
                "max_abs_error": float(np.abs(est - tru).max()),
                "epsilon_true_max": _finite(float(run.epsilon_table_max[s])),
                "estimate": est.reshape(-1).round(6).tolist(),
                "truth": tru.reshape(-1).round(6).tolist(),
            }
        )
    cells_sent = int((run.sent * np.asarray(run.index.layout.cells)).sum())
    eps_true = run.epsilon_true
    noisy = _noisy_config(run, sum_protocol, sum_options, dp_epsilon, dp_delta) if secure_tally else None
    floor = float(run.options["t_floor"])  # type: ignore[arg-type]
    view_len = max(len(v) for v in run.cover.views)
    return {
        "data": source,
        "attributes": list(names),
        "clients": run.clients,
        "blocks": run.blocks,
        "views": run.cover.n_views,
        "subsets_total": len(run.cover.subsets),
        "options": {"p": run.p, **run.options},
        "converged": bool(run.converged.all()),
        "converged_subsets": int(run.converged.sum()),
        "epsilon_true": _finite(eps_true),
        "epsilon_true_is_infinite": math.isinf(eps_true),
        "epsilon_paper": _finite(run.epsilon_paper),
        "epsilon_paper_view": _finite(run.epsilon_paper * view_len),
        "epsilon_cap_per_subset": _finite(epsilon_cap(floor, run.p)),
        "l2": {m: v["l2_mean"] for m, v in marginals.items()},
        "js": {m: v["js_mean"] for m, v in marginals.items()},
        "marginals": marginals,
        "cost": _cost(run, costs, cells_sent),
        "subsets": subsets,
        "privacy": _ledger(run, view_len, secure_tally, sum_protocol, sum_options, noisy),
        "validity": rrba_validity(run, secure_tally, sum_protocol, sum_options,
                                  noisy=None if noisy is None else noisy.tally_public(1)),
        "sum": {"protocol": sum_protocol, "options": sum_options_json(sum_protocol, sum_options),
                **({} if dp_epsilon is None else {"dp_epsilon": dp_epsilon, "dp_delta": dp_delta})}
        if secure_tally else None,
    }


def _noisy_config(run: RRBARun, sum_protocol: str, sum_options: Mapping[str, Any] | None,
                  dp_epsilon: float | None, dp_delta: float) -> Any:  # fmt: skip
    """The run's configuration when its tallies carried noise (``None`` otherwise)."""
    if dp_epsilon is None:
        return None
    from mpc_rr.rrba import RRBAConfig

    return RRBAConfig(tuple(run.index.sizes), run.clients, int(run.options.get("block", 1)),  # type: ignore[call-overload]
                      run.p, k=run.cover.k, secure_tally=True, sum_protocol=sum_protocol,
                      sum_options=given_options(sum_options or {}) or None, dp_epsilon=dp_epsilon,
                      dp_delta=dp_delta)  # fmt: skip


def _ledger(run: RRBARun, view_len: int, secure_tally: bool, sum_protocol: str,
            sum_options: Mapping[str, Any] | None, noisy: Any) -> dict[str, Any]:  # fmt: skip
    views = [[int(s) for s in row if s >= 0] for row in np.asarray(run.cover.padded_tables())]
    worst = max(views, key=lambda v: sum(float(run.epsilon_table_max[s]) for s in v))
    crowds = rrba_crowds(run.tuples)
    central = None
    if noisy is not None:
        used = [(r.asked, r.answered) for r in run.records if r.answered and not r.lost]
        central = rrba_noise_central(used, noisy._noise_for, sum_channel(sum_protocol))
    ledger, specs = rrba_ledger(
        epsilon_tables=[float(run.epsilon_table_max[s]) for s in worst], paper_epsilon=run.epsilon_paper,
        view_len=view_len, crowds=[int(crowds[s]) for s in worst] if crowds.size else [1] * len(worst),
        secure_tally=secure_tally, sum_protocol=sum_protocol, sum_options=given_options(sum_options or {}),
        block=int(run.options.get("block", 0)) or None,  # type: ignore[call-overload]
        central=central,
    )  # fmt: skip
    return {**ledger.to_json(), "lines": ledger.lines(), "plot_data": ledger_curve(ledger, specs)}


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
