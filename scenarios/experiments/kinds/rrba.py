"""Scenario kind ``rrba``: one RRBA collection (Imran & Meo) with :func:`mpc_rr.rrba.run_rrba`.

``clients`` records are the clients: drawn from a network with the run's
seed, or a shuffled subsample of a table (all of it when not given).  Each
run stores the convergence curve (per block: answers per subset and the
median and maximum over subsets of max |estimate - truth|) next to the
marginal errors of ``mpc-rr rrba``.  The centralized engine runs the same
pure functions the distributed roles will; messages and bytes are not
measured here (``null``), answers and tables sent are.

``network = "lan"|"wan"|"mobile"|FILE.toml`` prices the collection on that
network profile instead (as ``mpc-rr rrba --network``): the aggregator and
client roles run over the simulated network in virtual time
(:mod:`parties.pricing`), the same seed giving the same estimates, and the
run stores ``network_s`` and ``projected_wall_s`` (network critical path +
CPU here) with the messages and bytes.  Distributed clients each hold their
own generator, so it needs ``client_rng = "per-client"``.
"""

from __future__ import annotations

import time
from typing import Annotated, Any, Literal

import msgspec
import numpy as np
from msgspec import Meta

from mpc_rr.core import UsageError
from mpc_rr.data import Dataset
from mpc_rr.secure_sum import DEFAULT_SUM
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
    network: str | None = None  # lan|wan|mobile|FILE.toml: priced on it (the distributed roles)
    step_timeout: Annotated[float, Meta(gt=0)] = 60.0  # with network: a client's patience per step
    secure_tally: bool = False  # each block's answers summed by ``sum`` (distributed roles: the harness)
    sum: str = DEFAULT_SUM  # the secure tally's sum protocol (checked with the point)
    sum_options: dict[str, Any] = msgspec.field(default_factory=dict)  # its options ([protocol.sum_options])
    dp_epsilon: Annotated[float, Meta(gt=0)] | None = None  # secure_tally: distributed noise, central (E, D)
    dp_delta: Annotated[float, Meta(gt=0, lt=1)] = 1e-6


METRICS: tuple[str, ...] = (
    "l2_2", "js_2", "l2_3", "js_3", "l2_4", "js_4", "max_abs_error", "mean_max_abs_error",
    "central_epsilon_total", "epsilon_true", "epsilon_paper", "epsilon_paper_view", "clients", "blocks", "answers",
    "subsets", "converged_subsets", "wall_s", "marginals_s", "messages", "bytes", "network_s",
    "projected_wall_s",
)  # fmt: skip


def check(prm: RRBAParams, source: Any) -> None:
    from parties.pricing import scenario_runner

    scenario_runner(prm.network, "memory", 0)  # an unknown profile refused here
    if prm.network is not None and prm.client_rng != "per-client":
        raise UsageError(
            'network prices the distributed collection, whose clients each hold their own '
            'generator: set client_rng = "per-client"'
        )
    if not prm.secure_tally and (prm.sum != DEFAULT_SUM or prm.sum_options):
        raise UsageError("sum and sum_options only apply with secure_tally = true")
    if not prm.secure_tally and prm.dp_epsilon is not None:
        raise UsageError("dp_epsilon only applies with secure_tally = true (noise inside each block's sum)")
    if prm.secure_tally:
        from mpc_rr.secure_sum import check_inner_sum, sum_options

        if prm.client_rng != "per-client":
            raise UsageError('secure_tally runs the distributed clients, each with its own generator: '
                             'set client_rng = "per-client"')  # fmt: skip
        check_inner_sum(prm.sum, learner="aggregator")
        sum_options(prm.sum, prm.sum_options, where="sum")
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


def _priced_factory(priced: Any) -> Any:
    """``collect_rrba``'s runner factory: the priced runner, with the clients' step timeouts."""

    def factory(timeouts: object) -> Any:
        priced.options["step_timeout"] = timeouts
        return priced

    return factory


def run(ctx: RunContext) -> Outcome:
    from mpc_rr.workflows import collect_rrba
    from mpc_rr.workflows._rrba import marginal_errors, summarize
    from parties.pricing import network_metrics, scenario_runner

    prm: RRBAParams = ctx.params
    data_ss, proto_ss, eval_ss = np.random.SeedSequence(ctx.seed).spawn(3)
    data = _clients(ctx, np.random.default_rng(data_ss))
    priced = scenario_runner(prm.network, "memory", ctx.seed)
    runner = None if priced is None else _priced_factory(priced)
    if runner is None and prm.secure_tally:
        from parties.runners import runner_for

        def runner(timeouts: object) -> Any:
            return runner_for("harness")

    t0 = time.perf_counter()
    col = collect_rrba(
        data, p=prm.p, block=prm.block, k=prm.k, estimator=prm.estimator, repair=prm.repair,
        alpha=prm.alpha, t_floor=prm.t_floor, stop=prm.stop, client_rng=prm.client_rng, seed=proto_ss,
        runner=runner, step_timeout=prm.step_timeout, secure_tally=prm.secure_tally,
        sum_protocol=prm.sum, sum_options=prm.sum_options, dp_epsilon=prm.dp_epsilon,
        dp_delta=prm.dp_delta,
    )  # fmt: skip
    res = col.run
    wall = time.perf_counter() - t0
    marg = marginal_errors(res, data, np.random.default_rng(eval_ss), max_tables=prm.marginals)
    costs = None if col.execution is None else col.execution.costs
    doc = summarize(res, data, f"{data.n} records of {ctx.source.description}", marg, costs,
                    secure_tally=prm.secure_tally, sum_protocol=prm.sum, sum_options=prm.sum_options,
                    dp_epsilon=prm.dp_epsilon, dp_delta=prm.dp_delta)  # fmt: skip
    if priced is not None:
        doc["network"] = priced.summary()
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
        "messages": None if costs is None else costs.messages,
        "bytes": None if costs is None else costs.bytes, **network_metrics(priced),
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
