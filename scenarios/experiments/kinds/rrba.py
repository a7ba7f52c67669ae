"""Scenario kind ``rrba``: one RRBA collection (Imran & Meo) with :func:`mpc_rr.rrba.run_rrba`.

``clients`` records are the clients: drawn from a network with the run's
seed, or a shuffled subsample of a table (all of it when not given).  Each
run stores the convergence curve (per block: answers per subset and the
median and maximum over subsets of max |estimate - truth|) next to the
marginal errors of ``mpc-rr rrba``.  The centralized engine runs the same
pure functions the distributed roles will; messages and bytes are not
measured here (``null``), answers and tables sent are.
"""

from __future__ import annotations

import time
from typing import Annotated, Any, Literal

import msgspec
import numpy as np
from msgspec import Meta

from mpc_rr.core import UsageError
from mpc_rr.data import Dataset
from scenarios.experiments.kinds import Kind, Outcome, RunContext, Scalar, register

__all__ = ["RRBAParams"]

DEFAULT_NETWORK_CLIENTS = 8000


class RRBAParams(
    msgspec.Struct, tag="rrba", tag_field="kind", forbid_unknown_fields=True, kw_only=True
):
    clients: Annotated[int, Meta(ge=1)] | None = None
    block: Annotated[int, Meta(ge=1)] = 250
    p: Annotated[float, Meta(gt=0, le=1)] = 0.5
    k: Annotated[int, Meta(ge=1)] = 2
    estimator: Literal["pooled", "paper"] = "pooled"
    repair: Literal["clip", "project"] = "clip"
    alpha: Annotated[float, Meta(gt=0, lt=1)] = 0.05
    t_floor: Annotated[float, Meta(ge=0, lt=1)] = 0.0
    stop: Literal["never", "first"] = "never"
    client_rng: Literal["per-client", "shared"] = "shared"
    marginals: Annotated[int, Meta(ge=1)] = 20


METRICS: tuple[str, ...] = (
    "l2_2", "js_2", "l2_3", "js_3", "l2_4", "js_4", "max_abs_error", "mean_max_abs_error",
    "central_epsilon_total", "epsilon_true", "epsilon_paper", "epsilon_paper_view", "clients", "blocks", "answers",
    "subsets", "converged_subsets", "wall_s", "marginals_s",
)  # fmt: skip


def check(prm: RRBAParams, source: Any) -> None:
    records = source.records
    if records is not None and prm.clients is not None and prm.clients > records:
        raise UsageError(
            f"clients must be at most the {records:,} records of {source.name}, got {prm.clients}"
        )
    d = len(source.schema)
    if prm.k > d:
        raise UsageError(f"k must be at most the {d} attributes of {source.name}, got {prm.k}")


def _clients(ctx: RunContext, rng: np.random.Generator) -> Dataset:
    prm: RRBAParams = ctx.params
    src = ctx.source
    if src.table is None:
        n = prm.clients if prm.clients is not None else DEFAULT_NETWORK_CLIENTS
        return src.draw(n, rng, key="clients")  # type: ignore[no-any-return]
    t = src.table
    n = prm.clients if prm.clients is not None else t.n
    return Dataset(t.schema, t.codes[rng.permutation(t.n)[:n]], t.name)


def run(ctx: RunContext) -> Outcome:
    from mpc_rr.rrba import run_rrba
    from mpc_rr.workflows import marginal_errors, summarize

    prm: RRBAParams = ctx.params
    data_ss, proto_ss, eval_ss = np.random.SeedSequence(ctx.seed).spawn(3)
    data = _clients(ctx, np.random.default_rng(data_ss))
    t0 = time.perf_counter()
    res = run_rrba(
        data, p=prm.p, block=prm.block, k=prm.k, estimator=prm.estimator, repair=prm.repair,
        alpha=prm.alpha, t_floor=prm.t_floor, stop=prm.stop, client_rng=prm.client_rng, seed=proto_ss,
    )  # fmt: skip
    wall = time.perf_counter() - t0
    marg = marginal_errors(res, data, np.random.default_rng(eval_ss), max_tables=prm.marginals)
    doc = summarize(res, data, f"{data.n} records of {ctx.source.description}", marg)
    doc["dataset"] = data.name
    doc["curve"] = {
        "block": list(range(1, res.blocks + 1)),
        "answers_median": np.median(res.tuples, axis=1).tolist() if res.blocks else [],
        "error_median": np.median(res.error, axis=1).tolist() if res.blocks else [],
        "error_max": np.max(res.error, axis=1).tolist() if res.blocks else [],
    }
    errs = [s["max_abs_error"] for s in doc["subsets"]]
    metrics: dict[str, Scalar] = dict.fromkeys(METRICS)
    for m, v in marg.items():
        metrics[f"l2_{m}"] = v["l2_mean"]
        metrics[f"js_{m}"] = v["js_mean"]
    metrics |= {
        "max_abs_error": max(errs), "mean_max_abs_error": float(np.mean(errs)),
        "epsilon_true": doc["epsilon_true"], "epsilon_paper": doc["epsilon_paper"],
        "epsilon_paper_view": doc["epsilon_paper_view"], "clients": res.clients, "blocks": res.blocks,
        "answers": doc["cost"]["answers"], "subsets": doc["subsets_total"],
        "converged_subsets": doc["converged_subsets"], "wall_s": wall,
        "marginals_s": sum(v["seconds"] for v in marg.values()),
        "central_epsilon_total": doc["privacy"]["total"]["central_epsilon"],
    }  # fmt: skip
    return Outcome("ok", metrics, doc)


register(
    Kind(
        name="rrba",
        params=RRBAParams,
        run=run,
        metrics=METRICS,
        default_metrics=(
            "max_abs_error",
            "l2_2",
            "js_2",
            "epsilon_true",
            "epsilon_paper",
            "central_epsilon_total",
            "answers",
            "wall_s",
        ),
        data="table",
        check=check,
        summary="one RRBA collection (Imran & Meo): convergence, marginal errors, true vs paper epsilon",
    )
)
