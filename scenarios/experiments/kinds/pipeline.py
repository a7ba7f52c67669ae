"""Scenario kind ``pipeline``: the distributed RR-Clusters pipeline of ``mpc-rr run``.

Parameters are ``mpc-rr run``'s (:class:`mpc_rr.workflows.RunOptions`)
plus the transport and injected dropouts.  ``wall_s`` is the protocol's wall
time from the runner's start to its end (over TCP: deployment keys and TLS
handshakes included, also ``phase_network_s``); ``exchange_s`` the parties'
exchange alone (the cost report's).  Injected dropouts: ``dropout`` is the fraction of data
parties (chosen with the run's seed) that crash when they would send their
``drop_step`` message -- ``dependence`` (the Sec. 4.1 record, or the SecAgg+
masked input for the secure-sum sources) or ``release``.  The coordinator
goes on without them (down to 2 parties; SecAgg+ within ``max_dropout``), so
accuracy and completion can be swept against the dropout rate.

Over ``tcp`` a dropout costs ``step_timeout`` seconds of real time (the
other transports have virtual or no time): set it low when sweeping both.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
import numpy as np
from msgspec import Meta

from mpc_rr.core import UsageError
from mpc_rr.estimation import ESTIMATORS
from mpc_rr.mdrr import DEPENDENCE_SOURCES, MECHANISMS
from mpc_rr.secure_sum import DEFAULT_SUM
from parties.cli_args import DEFAULT_STEP_TIMEOUT
from scenarios.experiments.kinds import Kind, Outcome, RunContext, Scalar, register

__all__ = ["METHOD_KEYS", "PipelineParams"]

#: result method name -> metric stem
METHOD_KEYS = {
    "RR-Independent": "independent",
    "RR-Independent+Adjustment": "independent_adj",
    "RR-Clusters": "clusters",
    "RR-Clusters+Adjustment": "clusters_adj",
}
SIGMAS = ("0.1", "0.5")
PHASES = {"network setup": "phase_network_s", "dependence": "phase_dependence_s",
          "clustering + release": "phase_release_s",
          "estimation": "phase_estimation_s"}  # fmt: skip


class PipelineParams(
    msgspec.Struct, tag="pipeline", tag_field="kind", forbid_unknown_fields=True, kw_only=True
):
    parties: Annotated[int, Meta(ge=2)] | None = None
    p: Annotated[float, Meta(gt=0, le=1)] = 0.7
    tv: Annotated[int, Meta(ge=1)] = 100
    td: Annotated[float, Meta(ge=0, le=1)] = 0.1
    dependence: Literal[DEPENDENCE_SOURCES] = "rr"  # type: ignore[valid-type]
    mechanism: Literal[MECHANISMS] = "cluster"  # type: ignore[valid-type]
    estimator: Literal[ESTIMATORS] = "clip"  # type: ignore[valid-type]
    adjust_iterations: Annotated[int, Meta(ge=0)] = 50
    queries: Annotated[int, Meta(ge=1)] = 200
    transport: Literal["harness", "memory", "tcp"] = "memory"
    network: str | None = None  # lan|wan|mobile|FILE.toml: priced on it (transport memory)
    step_timeout: Annotated[float, Meta(gt=0)] = DEFAULT_STEP_TIMEOUT
    max_dropout: Annotated[float, Meta(ge=0, lt=1)] | None = None
    max_corrupt: Annotated[float, Meta(ge=0, lt=1)] | None = None
    secagg_degree: Annotated[int, Meta(ge=1)] | None = None
    secagg_failure: Annotated[float, Meta(gt=0, lt=1)] | None = None
    sum: str = DEFAULT_SUM  # the dependence sum protocol (secure-sum sources; checked with the point)
    # its options ([protocol.sum_options], any protocol's; max_dropout, max_corrupt, secagg_degree
    # and secagg_failure above are SecAgg+'s, as fields of their own)
    sum_options: dict[str, Any] = msgspec.field(default_factory=dict)
    dropout: Annotated[float, Meta(ge=0, lt=1)] = 0.0
    drop_step: Literal["dependence", "release"] = "release"
    audit_trials: Annotated[int, Meta(ge=0)] = 0  # > 0: the ledger's audit_lower (docs/privacy.md)


METRICS: tuple[str, ...] = (
    *(f"error_{m}_{s}" for m in METHOD_KEYS.values() for s in SIGMAS),
    "completed", "parties", "parties_released", "dropped", "clusters", "adjust_converged",
    "epsilon_dependence", "epsilon_release", "epsilon_total",
    "central_epsilon_dependence", "central_epsilon_total", "central_delta", "audit_lower_total",
    "messages", "bytes", "rounds", "wall_s", "exchange_s", "setup_s", "evaluation_s",
    *PHASES.values(), "peer_errors", "tcp_handshakes", "tcp_handshake_s",
    "bytes_per_party", "sum_degree", "sum_threshold",
    "network_s", "projected_wall_s",
)  # fmt: skip


def check(prm: PipelineParams, source: Any) -> None:
    if 0 < prm.audit_trials < 100:
        raise UsageError(f"audit_trials must be 0 (no audit) or >= 100, got {prm.audit_trials}")
    from parties.pricing import scenario_runner

    scenario_runner(prm.network, prm.transport, 0)  # an unknown profile or transport refused here
    given = [
        k
        for k in ("max_dropout", "max_corrupt", "secagg_degree", "secagg_failure")
        if getattr(prm, k) is not None
    ] + (["sum_options"] if prm.sum_options else [])
    if given and prm.dependence == "rr":
        raise UsageError(f"{', '.join(given)} only apply to dependence secure-sum or pairwise-rr")
    if prm.dependence != "rr":
        from mpc_rr.secure_sum import sum_options

        sum_options(prm.sum, _inner_options(prm), where="sum")  # refused with the point, naming the field
    records = source.records if source is not None else None
    if prm.parties is not None and records is not None and prm.parties > records:
        raise UsageError(
            f"parties must be at most the {records:,} records of {source.name}, got {prm.parties}"
        )
    if prm.parties is None and records is None:
        raise UsageError(
            f"parties: records are sampled from the network {source.name!r}; say how many"
        )
    n = prm.parties if prm.parties is not None else records
    if prm.secagg_degree is not None and n is not None and prm.secagg_degree > n - 1:
        raise UsageError(
            f"secagg_degree must be at most parties - 1 = {n - 1}, got {prm.secagg_degree}"
        )


def _inner_options(prm: PipelineParams) -> dict[str, Any]:
    """The dependence sum's options: ``sum_options`` and the SecAgg+ fields."""
    from mpc_rr.secure_sum import merge_sum_options

    aliases = {"max_dropout": prm.max_dropout, "max_corrupt": prm.max_corrupt,
               "degree": prm.secagg_degree, "failure": prm.secagg_failure}  # fmt: skip
    return merge_sum_options(prm.sum_options, aliases)


def _dropper(prm: PipelineParams, seed: int) -> Any:
    from mpc_rr.core import DropAt
    from mpc_rr.pipeline import RandomizedRecord, Release
    from mpc_rr.secure_sum import sum_protocol

    def drop(roles: dict[int, Any], cfg: Any) -> dict[int, Any]:
        rng = np.random.default_rng(np.random.SeedSequence([seed, 0xD809]))
        victims = rng.choice(
            np.arange(1, cfg.n + 1), size=round(prm.dropout * cfg.n), replace=False
        )
        if prm.drop_step == "release":
            at: Any = Release
        else:
            inner = sum_protocol(prm.sum)  # a party drops where its input would leave it
            at = RandomizedRecord if prm.dependence == "rr" else inner.step_messages()[inner.input_step]
        out = dict(roles)
        for v in victims:
            out[int(v)] = DropAt(roles[int(v)], at)
        return out

    return drop


def _cost_metrics(cost: dict[str, Any]) -> dict[str, Scalar]:
    return {
        "messages": cost["messages"], "bytes": cost["bytes"], "rounds": cost["rounds"],
        "exchange_s": cost["wall_s"], "peer_errors": cost["peer_errors"],
        "tcp_handshakes": cost.get("handshakes"), "tcp_handshake_s": cost.get("handshake_s"),
    }  # fmt: skip


def run(ctx: RunContext) -> Outcome:
    from mpc_rr.workflows import RunAborted, RunOptions
    from mpc_rr.workflows._adjustment_checks import adjustment_checks
    from mpc_rr.workflows._pipeline import evaluate, execute, to_json
    from parties.runners import runner_for

    prm: PipelineParams = ctx.params
    src = ctx.source
    if src.table is not None:
        data, parties = src.table, prm.parties
    else:  # a network: this run's records, drawn with its seed
        data = src.draw(
            prm.parties, np.random.default_rng(np.random.SeedSequence([ctx.seed, 0xDA7A]))
        )
        parties = None
    opts = RunOptions(
        parties=parties, p=prm.p, tv=prm.tv, td=prm.td, dependence=prm.dependence,
        mechanism=prm.mechanism, estimator=prm.estimator, adjust_iterations=prm.adjust_iterations,
        seed=ctx.seed, queries=prm.queries, max_dropout=prm.max_dropout, max_corrupt=prm.max_corrupt,
        secagg_degree=prm.secagg_degree, secagg_failure=prm.secagg_failure, sum=prm.sum,
        sum_options=prm.sum_options,
        audit_trials=prm.audit_trials,
    )  # fmt: skip
    from parties.pricing import network_metrics, scenario_runner

    priced = scenario_runner(prm.network, prm.transport, ctx.seed, step_timeout=prm.step_timeout)
    runner = priced or runner_for(prm.transport, step_timeout=prm.step_timeout)
    drop = _dropper(prm, ctx.seed) if prm.dropout > 0 else None
    n = parties if parties is not None else data.n
    dropped = round(prm.dropout * n)
    metrics: dict[str, Scalar] = dict.fromkeys(METRICS)
    try:
        ex = execute(opts, runner, data, drop=drop)
    except RunAborted as exc:
        cost = exc.run.costs.to_json()
        metrics |= _cost_metrics(cost) | network_metrics(priced) | {"completed": False, "parties": n, "dropped": dropped,
                                          "wall_s": exc.protocol_s}  # fmt: skip
        doc = {"dataset": data.name, "parties": n, "aborted": str(exc), "culprits": list(exc.culprits),
               "cost": cost, "options": msgspec.to_builtins(prm)}  # fmt: skip
        return Outcome("aborted", metrics, doc)
    ev = evaluate(ex, opts)
    doc = to_json(ev, opts)
    doc["dropped"] = dropped
    doc["warnings"] = adjustment_checks(doc["relative_error"], ev.adjustments)
    eps = doc["epsilon"]
    t = doc["timing"]
    metrics |= {
        f"error_{METHOD_KEYS[m]}_{s}": v for m, by in doc["relative_error"].items() for s, v in by.items()
        if m in METHOD_KEYS and s in SIGMAS
    }  # fmt: skip
    if priced is not None:
        doc["network"] = priced.summary()
    metrics |= _cost_metrics(doc["cost"]) | network_metrics(priced) | {
        "completed": True, "parties": doc["parties"], "parties_released": doc["parties_released"],
        "dropped": dropped, "clusters": len(doc["clusters"]),
        "adjust_converged": None if doc["adjustment"] is None else doc["adjustment"]["converged"],
        "epsilon_dependence": eps["dependence"], "epsilon_release": eps["release"],
        "epsilon_total": eps["total"], "setup_s": t["setup_s"], "wall_s": t["protocol_s"],
        "central_epsilon_dependence": doc["privacy"]["phases"][0]["central_epsilon"],
        "central_epsilon_total": doc["privacy"]["total"]["central_epsilon"],
        "central_delta": doc["privacy"]["total"]["delta"],
        "audit_lower_total": doc["privacy"]["total"]["audit_lower"],
        "evaluation_s": t["evaluation_s"],
        **{PHASES[k]: v for k, v in t["phases_s"].items()},
    }  # fmt: skip
    # the dependence sum's parameters derived for this n (SecAgg+: the graph degree and threshold,
    # which set the bytes a party sends: a sweep over n shows why bytes/party grows)
    ss = doc.get("secure_sum") or {}
    metrics |= {"bytes_per_party": doc["cost"]["data_parties"]["mean"]["bytes_sent"],
                "sum_degree": ss.get("params", {}).get("degree"),
                "sum_threshold": ss.get("params", {}).get("threshold")}  # fmt: skip
    return Outcome("ok", metrics, doc)


def _coordinator_sums() -> tuple[str, ...]:
    from mpc_rr.secure_sum import sum_protocol_names

    return sum_protocol_names(at_coordinator=True)


register(
    Kind(
        name="pipeline",
        params=PipelineParams,
        run=run,
        metrics=METRICS,
        choices={"sum": _coordinator_sums},
        default_metrics=(
            "error_clusters_0.1",
            "error_clusters_adj_0.1",
            "epsilon_total",
            "central_epsilon_total",
            "messages",
            "bytes",
            "wall_s",
            "completed",
        ),
        data="table",
        check=check,
        summary="the distributed RR-Clusters pipeline (mpc-rr run): accuracy, privacy, cost",
    )
)
